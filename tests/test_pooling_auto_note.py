"""``pooling="auto"`` says why it chose shrink or separate and what the other choice
gives (tester A finding 9: one more label in the smallest system, 9 -> 10, flipped auto
from shrink to separate and widened every interval by 8% with nothing saying why)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool


def pool(smallest: int, each: int = 12) -> EvalPool:
    """5 groups x 60 items, ``each`` labels in each but the first, which has ``smallest``."""
    rng = np.random.default_rng(3)
    g = np.repeat(np.arange(5), 60)
    y = rng.normal(0, 1, g.size) + 0.2 * g
    frame = pd.DataFrame({"item": np.arange(g.size), "g": [f"s{k}" for k in g]})
    for j in range(2):
        frame[f"j{j}"] = y + rng.normal(0, 0.7, g.size)
    take = np.zeros(g.size, bool)
    for k in range(5):
        take[np.flatnonzero(g == k)[: smallest if k == 0 else each]] = True
    frame["human"] = np.where(take, y, np.nan)
    return EvalPool.from_frame(
        frame, label="human", judges=["j0", "j1"], outcome="continuous", group="g", item="item"
    )


@pytest.mark.parametrize(
    ("smallest", "chose", "other"), [(9, "shrink", "separate"), (10, "separate", "shrink")]
)
def test_auto_says_why_and_what_the_other_pooling_gives(smallest, chose, other):
    cal = Calibrator(engine="freq").fit(pool(smallest))
    table = cal.estimate_groups()
    auto = table.details["pooling_auto"]
    assert auto["chose"] == chose == cal.pooling_for() and auto["other"] == other
    note = table.details["pooling_note"]
    assert f"pooling 'auto' chose '{chose}'" in note and f"--pooling {other}" in note
    assert ("s0: 9" in note) if chose == "shrink" else ("fewest: 10" in note)
    # the other pooling's width, as its own table gives it
    alt = cal.estimate_groups(pooling=other).to_frame()
    mine = table.to_frame()
    ratio = np.exp(np.mean(np.log((alt.ci_high - alt.ci_low) / (mine.ci_high - mine.ci_low))))
    assert auto["other_width_ratio"] == pytest.approx(ratio)
    assert f"{ratio:.2f}x as wide" in note
    assert alt.shape[0] == mine.shape[0]
    # in --json (the table's details) and not on a pooling the user chose
    assert json.loads(json.dumps(table.to_dict()))["details"]["pooling_auto"]["chose"] == chose
    assert "pooling_auto" not in cal.estimate_groups(pooling=chose).details


def test_the_cli_prints_why(tmp_path, capsys):
    from bacon_bayes.cli import main

    p = pool(9)
    frame = pd.DataFrame({"item": p.ids, "g": p.groups, "human": p.y, **p.judge_matrix()})
    frame.loc[~p.labeled, "human"] = np.nan
    frame.to_csv(tmp_path / "t.csv", index=False)
    read = ["--label", "human", "--judge", "j0,j1", "--group", "g", "--item", "item"]
    assert main(["estimate", str(tmp_path / "t.csv"), *read, "--engine", "freq"]) == 0
    assert "note: pooling 'auto' chose 'shrink'" in capsys.readouterr().out


def test_the_note_says_separate_means_would_give_no_interval_at_all():
    """Session 46 walk (TriviaQA, 14 labels over 8 models, each labeled model 1-4 of
    them): the note read "--pooling separate would give guaranteed family-wise (all hold
    together), none for 7 labeled groups under 5 labels", as if it gave intervals. With
    every labeled group under 5 labels it now says separate means give no interval."""
    cal = Calibrator(engine="freq").fit(pool(3, each=3))
    note = cal.estimate_groups().details["pooling_note"]
    assert "--pooling separate would give no interval (5 labeled groups, each under 5" in note
    assert "guaranteed" not in note.split("against these")[0], note
