"""Systems a study never sees (Session 60's walk of many systems on WMT22 zh-en): a system
no judge scored (``refA``, which the reference-based metrics cannot score) left out by
``--drop-unscored`` with "500 rows" said and the system never named; and systems whose
labels never come back (the four without MQM), read by ``--allow-pending`` as "missing at
random" while they were missing by system."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.group_gaps import pending_by_group
from bacon_bayes.study import import_labels

from .conftest import N_POOL, bacon, fill, systems_pool


def _pool(tmp_path: Path, unscored: str | None = None) -> Path:
    """Four systems of 50 items; ``unscored``: a system no judge scored."""
    rng = np.random.default_rng(1)
    system = np.repeat(["s1", "s2", "s3", "s4"], N_POOL // 4)
    truth = np.clip(rng.integers(1, 5, N_POOL) + (system == "s1"), 1, 5)
    path = systems_pool(tmp_path / "pool.csv", rng, system, truth)
    if unscored:
        frame = pd.read_csv(path)
        frame.loc[frame["system"] == unscored, ["judge_a", "judge_b"]] = np.nan
        frame.to_csv(path, index=False)
    return path


START = ("--item", "id", "--label", "human", "--judge", "judge_a,judge_b", "--group", "system")


def test_a_system_no_judge_scored_is_named_where_drop_unscored_leaves_it_out(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Before: "--drop-unscored left out 50 row(s) ... the study's pool is the other 150",
    and the study, its group table and every comparison had no s4, never said. Now the
    system is named, on a new study (as the printed pilot line runs) and on a table."""
    pool = _pool(tmp_path, unscored="s4")
    root = tmp_path / "study"
    argv = ("sample", str(pool), "--study", str(root), *START, "--drop-unscored")
    assert bacon(*argv, "--budget", "40") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "left out 50 row(s)" in out
    assert "every row of system 's4' (50 rows)" in out
    assert "the group table have no 's4' at all" in out
    frame = pd.read_csv(pool)
    frame["human"] = np.where(np.arange(len(frame)) % 4 == 0, frame["truth"], np.nan)
    frame.drop(columns="truth").to_csv(tmp_path / "labeled.csv", index=False)
    table = ("estimate", str(tmp_path / "labeled.csv"), *START, "--engine", "freq")
    assert bacon(*table, "--drop-unscored") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "every row of system 's4' (50 rows)" in out


def test_systems_whose_labels_never_come_back_are_said_missing_by_system(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Before: `estimate --allow-pending` said nothing of the 30 pending items (a
    confidence sequence), `status` "pending: missing at random", while every one of them
    was of s3 and s4, whose labels never came: their means are the judges' plus the pool's
    correction and the pool mean borrows the other systems' correction for them. Now
    estimate, status and the report say so, naming the systems."""
    pool = _pool(tmp_path)
    root = tmp_path / "study"
    todo = tmp_path / "todo1.csv"
    argv = ("sample", str(pool), "--study", str(root), *START, "--out", str(todo))
    assert bacon(*argv, "--budget", "60") == 0
    filled = pd.read_csv(fill(todo, pool, tmp_path / "filled1.csv"))
    back = filled[~filled["id"].isin(pd.read_csv(pool).query("system in ['s3', 's4']")["id"])]
    back.to_csv(tmp_path / "back.csv", index=False)
    import_labels(root, tmp_path / "back.csv")
    pending = len(filled) - len(back)
    capsys.readouterr()
    assert bacon("estimate", str(root), "--allow-pending", "--engine", "freq") == 0
    out = " ".join(capsys.readouterr().out.split())
    said = (
        f"missing by system, not at random: none of the {pending} items drawn from system "
        f"'s3' and 's4' came back (all {pending} items pending are theirs"
    )
    assert said in out
    assert "the pool mean takes their correction from the other system values' labels" in out
    assert bacon("status", str(root), "--allow-pending") == 0
    assert said in " ".join(capsys.readouterr().out.split())
    report = tmp_path / "r.html"
    assert (
        bacon("report", str(root), "--allow-pending", "--engine", "freq", "--out", str(report)) == 0
    )
    assert "missing by system, not at random" in report.read_text(encoding="utf-8")


def test_a_few_items_pending_by_chance_are_not_called_missing_by_group() -> None:
    """One pending item, its group's only one drawn: chance leaves that often (a group
    of one item misses with the rate the others missed), so no note; fifty are said."""
    groups = np.array(["a"] * 10 + ["b"] * 10 + ["c"])
    drawn = np.ones(21, bool)
    back = np.array([True] * 9 + [False] + [True] * 10 + [False])
    assert pending_by_group(groups, drawn, back, "system") is None
    groups = np.array(["a"] * 50 + ["b"] * 50)
    back = np.array([True] * 50 + [False] * 50)
    note = pending_by_group(groups, np.ones(100, bool), back, "system")
    assert note is not None and "none of the 50 items drawn from system 'b'" in note
    assert "'b' has no label, so its mean is" in note


def test_an_adaptive_wave_past_labels_that_never_come_names_the_designs_that_run(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Before: "import them before an adaptive wave", with --allow-pending too, while the
    labels would never come (no way on said). Now the refusal says an adaptive wave cannot
    be drawn past them and names the designs that can; the stratified one runs."""
    pool = _pool(tmp_path)
    root = tmp_path / "study"
    todo = tmp_path / "todo1.csv"
    argv = ("sample", str(pool), "--study", str(root), *START, "--out", str(todo))
    assert bacon(*argv, "--budget", "60") == 0
    fill(todo, pool, tmp_path / "back.csv", rows=slice(0, 50))
    import_labels(root, tmp_path / "back.csv")
    capsys.readouterr()
    assert (
        bacon("sample", str(root), "--design", "adaptive", "--budget", "20", "--allow-pending") == 2
    )
    err = " ".join(capsys.readouterr().err.split())
    assert "an adaptive wave cannot be drawn" in err and "--design stratified" in err
    assert bacon("sample", str(root), "--design", "stratified", "--budget", "20") == 0
