"""The jury's output loads into EvalPool as is, and round-trips through Parquet exactly."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.embed import embed_items
from bacon_bayes.features import build_features
from bacon_bayes.judges import load_template, run_jury
from bacon_bayes.judges.output import write_table
from bacon_bayes.pool import EvalPool
from bacon_bayes.testing.fake_server import Reply, Status, numeric_reply
from tests.jury.conftest import FAST_RETRY, judge


def _quality_script(req):
    """Judge 'good' scores the true quality written in the essay; 'noisy' is off by one;
    'broken' fails on essay 7 and answers junk on essay 8."""
    quality = int(re.search(r"quality (\d)", req.user_text).group(1))
    if req.model == "broken" and "Essay 7 " in req.user_text:
        return Status(400, '{"error": "context too long"}')
    if req.model == "broken" and "Essay 8 " in req.user_text:
        return Reply("I cannot grade this.")
    level = quality if req.model != "noisy" else min(6, quality + 1)
    base = numeric_reply(str(level), levels=(level,))
    return Reply(str(level), base.logprobs)


@pytest.fixture
def scored(serve, tmp_path):
    rng = np.random.default_rng(3)
    quality = rng.integers(1, 7, size=30)
    items = pd.DataFrame(
        {
            "item": [f"s{i:02d}" for i in range(30)],
            "prompt_name": "Venus",
            "full_text": [
                f"Essay {i} quality {q}: " + " ".join(rng.choice(["venus", "planet", "hot"], 12))
                for i, q in enumerate(quality)
            ],
            "human": np.where(np.arange(30) < 15, quality, np.nan),
        }
    )
    srv = serve(_quality_script)
    judges = [judge(srv, m) for m in ("good", "noisy", "broken")]
    res = run_jury(items, judges, load_template("essay"), runs=2, retry=FAST_RETRY)
    return items, res.table, quality


def test_long_table_loads_into_evalpool_directly(scored, tmp_path):
    items, table, quality = scored
    emb = embed_items(items, text="full_text", n_components=4)
    df = items.merge(emb, on="item")
    pool = EvalPool.from_frame(
        df,
        label="human",
        judges=table,
        outcome="ordinal",
        levels=[1, 2, 3, 4, 5, 6],
        item="item",
        embedding="emb_",
    )
    assert pool.n_items == 30 and pool.n_labeled == 15
    assert list(pool.judges) == ["good", "noisy", "broken"]
    assert pool.embedding.shape == (30, 4)
    wide = pool.judge_matrix()
    assert wide["good"].to_numpy() == pytest.approx(quality)
    assert wide["noisy"].to_numpy() == pytest.approx(np.minimum(6, quality + 1))
    assert wide["broken"].isna().sum() == 2  # the failed call and the unparseable reply
    assert any("NA" in note for note in pool.notes)
    feats = build_features(pool)
    assert "judge:good:entropy" in feats.names and "judge:broken:missing" in feats.names
    assert not np.isnan(feats.X).any()


def test_output_round_trips_through_parquet_and_csv(scored, tmp_path):
    _, table, _ = scored
    write_table(table, tmp_path / "s.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "s.parquet"), table)
    assert table["reason"].notna().sum() == 2 * 2  # two bad calls x two runs
    write_table(table, tmp_path / "s.csv")
    back = pd.read_csv(tmp_path / "s.csv", dtype={"raw": str})
    assert back["score"].to_numpy() == pytest.approx(table["score"].to_numpy(), nan_ok=True)
    assert back["raw"].fillna("").tolist() == table["raw"].fillna("").tolist()


def test_bacon_judge_table_feeds_bacon_estimate_scores_without_item(serve, tmp_path, capsys):
    """``bacon estimate items.csv --scores scores.parquet`` after ``bacon judge`` said each
    scored item 'is not in the pool; remove the row or add the item': without --item the
    pool's ids were its row numbers, not its 'item' column, which the table is keyed by."""
    from bacon_bayes.cli import main
    from tests.jury.conftest import essays

    srv = serve()
    items = essays(40)
    items["human"] = np.where(np.arange(40) % 2 == 0, np.arange(40) % 6 + 1.0, np.nan)
    items.to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "scores.parquet"
    assert main(["judge", str(tmp_path / "items.csv"), "--judge", f"m@{srv.url}",
                 "--template", "essay", "--out", str(out), "--api-key-env", ""]) == 0  # fmt: skip
    argv = ["estimate", str(tmp_path / "items.csv"), "--label", "human", "--engine", "freq"]
    assert main([*argv, "--scores", str(out)]) == 0, capsys.readouterr().err
    by_default = capsys.readouterr().out
    assert "40 items, 20 labeled, 1 judges" in by_default
    assert main([*argv, "--scores", str(out), "--item", "item"]) == 0
    assert capsys.readouterr().out == by_default
