"""``bacon label import`` of a file whose labellers skipped some items (rows left blank):
it says what to do next, and each command it names runs as printed (session 53, H5)."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from .conftest import bacon, fill


def test_a_file_with_skipped_items_says_what_next_and_it_runs(
    study: Path,
    pool_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding (WMT22 study, a new user): the labellers left 4 of 900 rows blank; the
    import said "4 rows without a label left pending" and nothing more, while estimate then
    refused the study. It names the pending items' file and ``--allow-pending``; both
    commands run as printed."""
    done = fill(tmp_path / "todo.csv", pool_file, tmp_path / "done.csv")
    frame = pd.read_csv(done, dtype=str)
    frame.loc[[3, 17], "human"] = np.nan  # skipped
    frame.to_csv(done, index=False)
    assert bacon("label", "import", str(done), "--study", str(study)) == 0
    out = capsys.readouterr().out
    line = next(s for s in out.splitlines() if s.startswith("next: "))
    assert "the 2 items still pending" in line, line
    commands = [shlex.split(c) for c in line.split("`")[1::2]]
    assert [c[:2] for c in commands] == [["bacon", "status"], ["bacon", "estimate"]], line
    assert commands[1][-1] == "--allow-pending"
    monkeypatch.chdir(tmp_path)
    assert bacon(*commands[0][1:]) == 0
    assert len(pd.read_csv("pending.csv")) == 2
    assert bacon(*commands[1][1:], "--engine", "freq") == 0  # the ordinal study's NUTS aside
    assert "mean of 'human'" in capsys.readouterr().out
