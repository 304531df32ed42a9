"""What a table's keys and shape say: group names written several ways (estimate, report
and plan by groups), an id column with blank cells, a long table whose judge column is
not named like one, repeated rows of a long table, and a pairwise labels file's one
column."""

from __future__ import annotations

import pandas as pd

from bacon_bayes.cli import main

from .test_printed_commands import READ, table


def _respelled(folder):
    """The printed-commands table with system s1 also written 'S1' and 's1 '."""
    path = table(folder)
    frame = pd.read_csv(path)
    s1 = frame.index[frame["system"] == "s1"]
    frame.loc[s1[::3], "system"] = "S1"
    frame.loc[s1[1::3], "system"] = "s1 "
    frame.to_csv(path, index=False)
    return path


def test_group_names_written_several_ways_are_said_by_estimate_and_plan(tmp_path, capsys):
    path = _respelled(tmp_path)
    assert main(["estimate", str(path), *READ, "--engine", "freq"]) == 0
    out = capsys.readouterr().out
    note = [line for line in out.splitlines() if "written several ways" in line]
    assert len(note) == 1, out
    assert "1 group name(s)" in note[0] and all(f"{n!r}" in note[0] for n in ("s1", "S1", "s1 "))
    assert "df['system'] = df['system'].str.strip().str.upper()" in note[0]
    assert main(["plan", str(path), *READ, "--top"]) == 0
    assert "group name(s) are written several ways" in capsys.readouterr().out
