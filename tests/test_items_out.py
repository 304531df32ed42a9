"""``bacon estimate --items-out`` on one table writes ``Calibrator.item_scores(0.9)`` of
the fit it estimates, and asking for the file does not change the estimate (tester E,
session 38, findings 2, 3 and 6); ``seed=None`` records the seed drawn at fit and
randomised item sets use it (findings 9 and 10)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.cli import build_parser, main
from bacon_bayes.cli.stream import wants_stream


def _binary_table(seed: int = 7, n_items: int = 800, n_labels: int = 150) -> pd.DataFrame:
    """A 0/1 label, judges that say little about some items (sets that cannot tell)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n_items)
    y = (z + rng.normal(0, 1.0, n_items) > -0.3).astype(float)
    df = pd.DataFrame({"item": [f"q{i:04d}" for i in range(n_items)]})
    df["model"] = rng.choice(["A", "B", "C", "D"], n_items)
    for j in range(3):
        df[f"j{j}"] = (z + rng.normal(0, 1.2, n_items) > 0).astype(float)
    df["label"] = np.nan
    drawn = rng.choice(n_items, n_labels, replace=False)
    df.loc[drawn, "label"] = y[drawn]
    return df


ARGS = ["--label", "label", "--judge", "j*", "--group", "model", "--item", "item",
        "--outcome", "categorical", "--engine", "freq", "--seed", "0"]  # fmt: skip


def test_items_out_on_one_table_writes_the_api_item_scores_and_keeps_the_estimate(tmp_path, capsys):
    df = _binary_table()
    path = tmp_path / "pool.csv"
    df.to_csv(path, index=False)
    assert main(["estimate", str(path), *ARGS, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    out = tmp_path / "items.parquet"
    assert main(["estimate", str(path), *ARGS, "--json", "--items-out", str(out)]) == 0
    cap = capsys.readouterr()
    with_items = json.loads(cap.out)
    assert "streamed" not in with_items  # the in-memory estimator, not the streamed one
    assert with_items["mean"] == plain["mean"]  # the headline unchanged (finding 3)
    assert with_items["items_out"] == str(out) and "item scores written" in cap.err
    pool = EvalPool.from_frame(
        df, label="label", judges=["j0", "j1", "j2"], group="model", item="item",
        outcome="categorical",
    )  # fmt: skip
    api = Calibrator(engine="freq", seed=0).fit(pool).item_scores(0.9)
    cli = pd.read_parquet(out)
    assert list(cli.columns) == list(api.columns)  # set and set_prob too (finding 2)
    assert list(cli["item"]) == list(api["item"])
    for c in ("score", "lower", "upper", "set_prob", "rank", "labeled"):
        np.testing.assert_array_equal(cli[c].to_numpy(), api[c].to_numpy())
    assert [list(s) for s in cli["set"]] == [list(s) for s in api["set"]]
    cannot_tell = api["lower"] < api["upper"]
    assert cannot_tell.any()  # the sets of both classes are written as such, not {1}


@pytest.mark.parametrize("engine", ["freq", "bayes"])
def test_items_out_alone_does_not_stream_one_table(tmp_path, engine):
    path = tmp_path / "pool.csv"
    _binary_table().to_csv(path, index=False)
    parse = build_parser().parse_args
    base = ["estimate", str(path), "--label", "label", "--judge", "j*", "--engine", engine]
    assert not wants_stream(parse([*base, "--items-out", str(tmp_path / "i.parquet")]))
    assert wants_stream(parse([*base, "--items-out", "i.parquet", "--chunk-rows", "100"]))


def _ordinal_pool(seed: int = 5, n_items: int = 600, n_labels: int = 120) -> EvalPool:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n_items)
    y = np.clip(np.round(3 + z + rng.normal(0, 0.8, n_items)), 1, 5)
    df = pd.DataFrame({f"j{j}": np.clip(np.round(3 + z + rng.normal(0, 1, n_items)), 1, 5)
                       for j in range(3)})  # fmt: skip
    df["label"] = np.nan
    drawn = rng.choice(n_items, n_labels, replace=False)
    df.loc[drawn, "label"] = y[drawn]
    return EvalPool.from_frame(df, label="label", judges=["j0", "j1", "j2"], outcome="ordinal")


def test_seed_none_still_randomises_item_sets():
    cal = Calibrator(engine="freq", seed=None).fit(_ordinal_pool())
    plain = cal.item_scores(0.9, "posterior")
    randomised = cal.item_scores(0.9, "posterior", randomize=True)
    assert (plain["upper"] != randomised["upper"]).sum() > 0  # not silently ignored (9)


def test_seed_none_records_the_seed_drawn_and_it_redoes_the_run(tmp_path):
    pool = _ordinal_pool()
    cal = Calibrator(engine="freq", seed=None).fit(pool)
    assert isinstance(cal.seed_, int) and cal.seed is None  # the setting stays None
    randomised = cal.item_scores(0.9, "posterior", randomize=True)
    again = Calibrator(engine="freq", seed=cal.seed_).fit(pool)
    pd.testing.assert_frame_equal(again.item_scores(0.9, "posterior", randomize=True), randomised)
    assert again.estimate_mean() == cal.estimate_mean()  # the drawn seed redoes the run
    summary = cal.summary()
    assert summary["seed"] == cal.seed_  # recorded (finding 10)
    loaded = Calibrator.load(cal.save(tmp_path / "cal.nc"))
    assert loaded.seed is None and loaded.seed_ == cal.seed_
    pd.testing.assert_frame_equal(loaded.item_scores(0.9, "posterior", randomize=True), randomised)
    other = Calibrator(engine="freq", seed=None).fit(pool)
    assert other.seed_ != cal.seed_  # a fresh seed at each fit, as documented


@pytest.mark.parametrize("weighted", [False, True])
def test_streamed_items_out_of_a_binary_label_are_the_in_memory_class_sets(tmp_path, weighted):
    """Streamed (--chunk-rows), a categorical label's written sets were the score's
    interval snapped to the levels: {1} where item_scores says {0, 1} (finding 2)."""
    from bacon_bayes.stream import estimate_stream

    df = _binary_table()
    judges = ["j0", "j1", "j2"]
    if weighted:  # labels drawn with unequal propensities: weighted conformal sets
        df["pi"] = np.where(df["j0"] > 0, 0.25, 0.15)
    path = tmp_path / "pool.csv"
    df.to_csv(path, index=False)
    pi = "pi" if weighted else None
    res = estimate_stream(
        path, Calibrator(engine="freq", seed=0), label="label", judges=judges, group="model",
        item="item", outcome="categorical", propensity=pi, chunk_rows=300, progress=False,
        items_out=tmp_path / "items.parquet", threads=1,
    )  # fmt: skip
    pool = EvalPool.from_frame(
        df, label="label", judges=judges, group="model", item="item", outcome="categorical",
        propensity=pi,
    )  # fmt: skip
    api = Calibrator(engine="freq", seed=0).fit(pool).item_scores(0.9)
    got = pd.read_parquet(res.items_out)
    assert list(got.columns) == [c for c in api.columns if c != "rank"]
    np.testing.assert_allclose(got["score"], api["score"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got["set_prob"], api["set_prob"], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(got["lower"], api["lower"])
    np.testing.assert_array_equal(got["upper"], api["upper"])
    assert [list(s) for s in got["set"]] == [list(s) for s in api["set"]]
    assert (api["lower"] < api["upper"]).any()  # some "cannot tell" sets among them


def test_a_streamed_fit_records_the_seed_drawn_for_seed_none(tmp_path):
    from bacon_bayes.stream import estimate_stream

    path = tmp_path / "pool.csv"
    _binary_table().to_csv(path, index=False)
    kw = {"label": "label", "judges": ["j*"], "outcome": "categorical", "group": "model",
          "item": "item", "chunk_rows": 400, "progress": False, "threads": 1}  # fmt: skip
    first = estimate_stream(path, Calibrator(engine="freq", seed=None), **kw)
    assert isinstance(first.fit.seed, int)
    again = estimate_stream(path, Calibrator(engine="freq", seed=first.fit.seed), **kw)
    assert again.means[0] == first.means[0]
    assert again.groups[0].ci_high.tolist() == first.groups[0].ci_high.tolist()
