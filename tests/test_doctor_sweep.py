"""``bacon doctor`` on the inputs of a tester's sweep: empty cells in the group column,
an empty judge named by the user, few labels over many groups, a title row above the
header, labels written with a unit, a group given by hand, group names that differ in
case, ids written with leading zeros. Every printed command runs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from bacon_bayes.cli import main

from .test_doctor_raw import mt_table


def doctor(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    """``bacon doctor``'s output and its printed command (without ``bacon``; [] for none)."""
    assert main(["doctor", *argv]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    if "run:" not in lines:
        return out, []
    return out, shlex.split(lines[lines.index("run:") + 1])[1:]


def runs(command: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run a command doctor printed (with the frequentist engine: fast) and its output."""
    assert main([*command, "--engine", "freq"]) == 0
    return capsys.readouterr().out


def test_empty_cells_in_the_group_column_are_named_with_the_fix(tmp_path: Path, capsys) -> None:
    """A few empty cells in the group column ended doctor in a traceback (np.bincount of
    a -1 code); estimate refuses them. Doctor names the column, the lines and the fix,
    and its command (without --group) runs."""
    frame = mt_table()
    frame.loc[[0, 1, 7], "system"] = np.nan
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    for extra in ([], ["--group", "system"]):
        out, cmd = doctor([str(path), *extra], capsys)
        assert "group column 'system' is empty at lines 2, 3, 9 (3 of 360 rows)" in out
        assert "give every item a group (e.g. 'unknown')" in out
        assert cmd and "--group" not in cmd and "--prompt" in cmd
        runs(cmd, capsys)


def test_an_empty_judge_named_by_the_user_is_left_out_of_the_command(
    tmp_path: Path, capsys
) -> None:
    """An all-empty column given with --judge (or matched by a pattern) went into the
    printed command, which estimate refused ("has no score at all"); doctor leaves it out
    and says so."""
    frame = mt_table().rename(columns={"comet": "judge:comet", "matese": "judge:matese"})
    path = tmp_path / "t.csv"
    frame.assign(**{"judge:empty": np.nan}).to_csv(path, index=False)
    for given in (["--judge", "judge:comet", "--judge", "judge:empty"], ["--judge", "judge:*"]):
        out, cmd = doctor([str(path), *given], capsys)
        assert re.search(r"judge:empty +--judge, but empty \(no score at all\): left out", out)
        assert "judge:comet" in cmd and "judge:empty" not in cmd and "judge:*" not in cmd
        runs(cmd, capsys)
