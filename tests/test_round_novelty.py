"""The next round's output (tester A, session 37, findings 2, 8, 13): which surrogates a
saved calibrator puts in the means, which systems it never saw, and what
``bacon plan --calibrator`` counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool

JUDGES = ["j1", "j2", "j3"]


def table(n: int, seed: int, systems: tuple[str, ...]) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.normal(3.0, 1.0, n)
    frame = pd.DataFrame({"item": [f"{seed}-{i}" for i in range(n)], "y": y})
    for k, j in enumerate(JUDGES):
        frame[j] = 0.5 + (0.8 + 0.1 * k) * y + rng.normal(0, 0.6 + 0.2 * k, n)
    frame["system"] = np.repeat(systems, n // len(systems))
    return frame


def pool(frame: pd.DataFrame, labeled: np.ndarray) -> EvalPool:
    frame = frame.copy()
    frame.loc[~labeled, "y"] = np.nan
    return EvalPool.from_frame(
        frame, label="y", judges=JUDGES, outcome="continuous", group="system", item="item"
    )


@pytest.fixture(scope="module")
def old() -> Calibrator:
    """Round 1: 400 items of systems a-d, 40 labels (below 20 per coefficient, so the
    frequentist small-budget rule picks the judges' ridge for a fresh fit)."""
    frame = table(400, 0, ("a", "b", "c", "d"))
    labeled = np.zeros(400, bool)
    labeled[np.random.default_rng(1).choice(400, 40, replace=False)] = True
    return Calibrator(engine="freq").fit(pool(frame, labeled))


@pytest.fixture(scope="module")
def new_frame() -> pd.DataFrame:
    """Round 2: systems a, b kept, e, f new (c, d gone), 100 items each."""
    return table(400, 7, ("a", "b", "e", "f"))


def labels_in(frame: pd.DataFrame, per_system: dict[str, int]) -> np.ndarray:
    labeled = np.zeros(len(frame), bool)
    for name, k in per_system.items():
        labeled[np.flatnonzero(frame["system"].to_numpy() == name)[:k]] = True
    return labeled


def test_plan_with_a_calibrator_counts_the_groups_own_labels(old, new_frame, tmp_path, capsys):
    """Finding 13: 'label at least 10 items of this pool ... 41 so far' when the rule is
    about the group's own labels; counts not saying total / group; no 'already met'; a
    doubled quote in "group 'b''s mean"."""
    from bacon_bayes.cli import main
    from bacon_bayes.frozen import fresh_labels_for

    saved = old.save(tmp_path / "old.nc")
    labeled = labels_in(new_frame, {"a": 30, "b": 2, "e": 8, "f": 8})
    frame = new_frame.copy()
    frame.loc[~labeled, "y"] = np.nan
    frame.to_csv(tmp_path / "new.csv", index=False)
    base = ["plan", str(tmp_path / "new.csv"), "--label", "y", "--item", "item"]
    base += ["--group", "system", "--calibrator", str(saved), "--half-width"]

    plan = fresh_labels_for(old.apply(pool(new_frame, labeled)), 0.5, group="a")
    assert plan["group_labels_now"] == 30 and plan["fresh_labels_now"] == 48
    assert plan["from_old_round"] == 4 * plan["in_group_from_old_round"]
    assert plan["met_from_old_round"] is (30 >= plan["in_group_from_old_round"])

    assert main([*base, "0.5", "--group-mean", "b"]) == 0
    out = capsys.readouterr().out
    assert "label at least 10 items of 'b' to measure it on their own residuals; 2 so far" in out
    assert "this pool" not in out.split("\n", 1)[1]  # the rule is about b's own labels
    assert "''" not in out
    assert "'b' has 2 of this pool's 48" in out
    assert " in 'b' (" in out and "in the pool in all): " in out

    assert main([*base, "0.5", "--group-mean", "a"]) == 0
    out = capsys.readouterr().out
    assert "from the residuals of the 30 fresh labels of 'a'" in out
    assert "already met" in out  # 30 labels of a 100-item group reach +-0.5 here

    assert main([*base, "0.5"]) == 0
    out = capsys.readouterr().out
    assert out.count(" in all: already met") == 2  # 48 labels for the pool mean: met
    assert main([*base, "0.05"]) == 0
    assert " more" in capsys.readouterr().out


def test_a_saved_calibrator_is_in_the_round_means_and_the_user_can_choose(
    old, new_frame, tmp_path, capsys
):
    """Finding 2: with the frequentist small-budget default the frozen model was 'not in
    the means', so --calibrator gave a fresh fit's estimates bit for bit, and
    --surrogates none was refused with --calibrator."""
    from bacon_bayes.cli import main
    from bacon_bayes.surrogates import JUDGE_RIDGE, NO_MODEL, in_means

    assert set(old.extras_) == {JUDGE_RIDGE, NO_MODEL}  # the small-budget rule's choice
    labeled = labels_in(new_frame, {"a": 12, "b": 12, "e": 12, "f": 12})
    new = pool(new_frame, labeled)
    fresh = Calibrator(engine="freq").fit(new).estimate_mean()
    frozen = old.apply(new)
    assert in_means(frozen.surrogate_names_, frozen.extras_) == ["ridge (freq)", JUDGE_RIDGE]
    assert frozen.estimate_mean().estimate != pytest.approx(fresh.estimate, abs=1e-9)
    alone = old.apply(new, surrogates=[])
    assert alone.extras_ == {}
    assert alone.estimate_mean().estimate != pytest.approx(frozen.estimate_mean().estimate)
    as_fresh = old.apply(new, surrogates=[JUDGE_RIDGE, NO_MODEL]).estimate_mean()
    assert as_fresh.estimate == pytest.approx(fresh.estimate)  # the old behaviour, asked for
    refit = old.apply(new, refit=True)
    assert NO_MODEL not in refit.extras_

    saved = old.save(tmp_path / "old.nc")
    frame = new_frame.copy()
    frame.loc[~labeled, "y"] = np.nan
    frame.to_csv(tmp_path / "new.csv", index=False)
    args = ["estimate", str(tmp_path / "new.csv"), "--label", "y", "--item", "item"]
    args += ["--calibrator", str(saved)]
    assert main(args) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "AEE means from ridge (freq) + judge_ridge (the saved model, frozen" in head
    assert "--surrogates none: the saved model alone" in head
    assert main([*args, "--surrogates", "none"]) == 0
    assert "AEE means from" not in capsys.readouterr().out.splitlines()[0]
    assert main([*args, "--surrogates", "judge_ridge,no_model"]) == 0
    assert "the saved model is not in the means" in capsys.readouterr().out


def test_the_round_names_systems_new_to_the_calibrator_and_gone(old, new_frame, tmp_path, capsys):
    """Finding 8: round-2 output never said which systems the calibrator never saw or
    which vanished, and called a new system's offset 'drifted'."""
    import json

    from bacon_bayes.cli import main
    from bacon_bayes.frozen import new_groups
    from bacon_bayes.transport import transport_check

    frame = new_frame.copy()
    frame.loc[frame["system"] == "f", "y"] += 1.5  # f: the judges miss what humans see
    labeled = labels_in(frame, {"a": 15, "b": 15, "e": 15, "f": 15})
    cal = old.apply(pool(frame, labeled))
    found = new_groups(cal)
    assert found == {"new": ["e", "f"], "absent": ["c", "d"], "group_level": False}
    table, _ = transport_check(cal)
    verdicts = dict(zip(table["group"], table["verdict"], strict=True))
    assert verdicts["f"] == "new"
    assert "new" not in {verdicts["a"], verdicts["b"]}

    saved = old.save(tmp_path / "old.nc")
    frame.loc[~labeled, "y"] = np.nan
    frame.to_csv(tmp_path / "new.csv", index=False)
    args = ["estimate", str(tmp_path / "new.csv"), "--label", "y", "--item", "item"]
    args += ["--group", "system", "--calibrator", str(saved)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "systems new to the calibrator (no label of theirs calibrated it" in out
    assert ": e, f; in the calibrator's round, not in this pool: c, d" in out
    assert "new: a group the calibrator never saw" in out
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["round"]["groups"] == found


def test_the_transport_table_quotes_a_group_name_with_spaces_around(old) -> None:
    """The text transport table printed ' e' as e, two rows that read the same (E1's
    leftover: the report and the other text tables quote it)."""
    import argparse

    from bacon_bayes.cli.rounds import transport_text

    frame = table(400, 7, ("a", "b", " e", "e"))
    cal = old.apply(pool(frame, labels_in(frame, {"a": 12, "b": 12, " e": 12, "e": 12})))
    text = transport_text(cal, argparse.Namespace(tolerance=None, alpha=0.05))
    assert "' e'" in text, text
