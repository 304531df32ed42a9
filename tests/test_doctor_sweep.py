"""``bacon doctor`` on the inputs of a tester's sweep: empty cells in the group column,
an empty judge named by the user, few labels over many groups, a title row above the
header, labels written with a unit, a group given by hand, group names that differ in
case, ids written with leading zeros. Every printed command runs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import inclusion
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


def test_few_random_labels_over_many_groups_are_no_evidence_of_a_design() -> None:
    """64 groups, 123 labels drawn at random from 4,000 items: about 9.6 groups get no
    label on average, and 10 did here. The chance was computed for those 8 groups, picked after
    seeing the data (1e-07), and the pool said the labels were not drawn from them; the
    chance of 8 or more empty groups, any of them, is about 0.8. The true positive (whole
    systems never labeled under many labels) is still said."""
    sizes = np.repeat([51, 56, 82, 61], 16)
    codes = np.repeat(np.arange(64), sizes)
    names = np.array([f"g{k}" for k in range(64)], dtype=object)
    y = np.full(codes.size, np.nan)
    hit = np.random.default_rng(3).choice(codes.size, 123, replace=False)
    y[hit] = 1.0
    assert (np.bincount(codes, weights=~np.isnan(y), minlength=64) == 0).sum() == 10
    assert inclusion.groups_never_drawn(y, codes, names, "g") is None
    rng = np.random.default_rng(0)
    sims = [(np.bincount(codes[rng.choice(codes.size, 123, replace=False)], minlength=64) == 0)
            .sum() for _ in range(300)]  # fmt: skip
    assert 0.6 < np.mean(np.array(sims) >= 8) < 0.95  # what the old chance missed
    # 6 of 20 systems never labeled under 40% labels: said, with the bound
    codes = np.repeat(np.arange(20), 100)
    y = np.where((rng.random(codes.size) < 0.4) & (codes < 14), 1.0, np.nan)
    names = np.array([f"s{k}" for k in range(20)], dtype=object)
    note = inclusion.groups_never_drawn(y, codes, names, "system")
    assert note and "6 of 20 'system' groups (600 of 2000 items) have no label" in note
    assert "6 or more groups without one with chance at most" in note
    # the line that leaves them out (helper W2's walk: no command was printed), which runs
    line = note.split("in pandas: ")[1].split("), or give")[0]
    left = {"df": pd.DataFrame({"system": names[codes]})}
    exec(line, left)  # the printed line, run as a user would
    assert set(left["df"]["system"]) == {f"s{k}" for k in range(14)}
    assert inclusion.empty_groups_chance(np.full(64, 62), 123, 8) == 1.0
    assert inclusion.empty_groups_chance(np.full(12, 100), 300, 2) < 1e-20


def test_a_row_of_merged_group_titles_above_the_header_is_skipped(tmp_path: Path, capsys) -> None:
    """A spreadsheet's two-row header (``Item info;;;Human;LLM judges``, merged cells,
    above the real one): the title row was taken for the header, and doctor found no
    label and no judge; the row is skipped as a one-cell title is, and said."""
    from bacon_bayes.csv_format import csv_options

    frame = mt_table()[["system", "seg_id", "mqm", "comet", "matese"]]
    path = tmp_path / "merged.csv"
    body = frame.to_csv(index=False, sep=";", decimal=",")
    path.write_text("Item info;;Human;LLM judges;\n" + body, encoding="utf-8-sig")
    assert csv_options(path) == {"sep": ";", "skiprows": 1, "decimal": ","}
    out, cmd = doctor([str(path)], capsys)
    assert "semicolon-separated, decimal commas, 1 line(s) above the header skipped" in out
    assert cmd[cmd.index("--label") + 1] == "mqm" and "comet" in cmd
    runs(cmd, capsys)
    # a header with an unnamed column over rows of text is no group row: read as it is
    plain = tmp_path / "plain.csv"
    plain.write_text("a,,c\n" + "x,y,z\n" * 3 + "1,2,3\n" * 3)
    assert csv_options(plain) == {}


def test_labels_written_with_a_unit_are_named_with_the_fix(tmp_path: Path, capsys) -> None:
    """Labels written as text with a unit ('4 stars'): doctor called the column a
    category and said there were no human labels to label a sample; it names the column,
    its cells and the fix. A dense column of sizes ('7B') is no label."""
    frame = mt_table().rename(columns={"mqm": "human"})
    frame["human"] = [np.nan if np.isnan(v) else f"{int(-v)} errors" for v in frame["human"]]
    frame["size"] = np.tile(["7B", "13B", "70B"], len(frame) // 3)
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out, cmd = doctor([str(path)], capsys)
    assert not cmd
    assert re.search(r"label +- +none: 'human' holds labels written as text \(below\)", out)
    first = frame["human"].dropna().iloc[0]
    assert f"write them as numbers only ({first.split()[0]}, not {first!r}), and run again" in out
    assert "label a sample of items" not in out
    assert not re.search(r"size +labels written", out)
    frame["human"] = frame["human"].str.replace(" errors", "/25")  # out of one top: read
    frame.to_csv(path, index=False)
    out, cmd = doctor([str(path)], capsys)
    assert "--label" in cmd and "read as numbers, the top '/25' dropped" in out
    frame.loc[frame["human"].first_valid_index(), "human"] = "3/20"  # two tops: named
    frame.to_csv(path, index=False)
    out = doctor([str(path)], capsys)[0]
    assert "holds labels written as text" in out and "as fractions out of 20 and 25" in out


def test_a_group_given_by_hand_keeps_the_prompt_nested_in_it(tmp_path: Path, capsys) -> None:
    """With --group system|domain (each segment in one domain, so answered by a quarter
    of the groups) the segment id was called "numeric, but named like an id" and the
    command lost --prompt; found, the group is the system and seg_id the prompt. The
    prompt is the same either way; a judge's integer scores are still no prompt."""
    frame = mt_table(systems=6, segments=80)
    frame["sysdom"] = frame["system"] + "|" + frame["domain"]
    frame["judge_int"] = ((frame["comet"] - 0.6) * 250).round().clip(0, 100).astype(int)
    path = tmp_path / "t.csv"
    frame.drop(columns=["source", "reference_A"]).to_csv(path, index=False)
    for extra in ([], ["--group", "sysdom"]):
        out, cmd = doctor([str(path), *extra], capsys)
        assert cmd[cmd.index("--prompt") + 1] == "seg_id", out
        assert "judge_int" in cmd  # a judge, not the prompt
    runs(cmd, capsys)


def test_group_names_that_differ_only_in_case_or_spaces_are_named(tmp_path: Path, capsys) -> None:
    """A third of the systems upper-cased, one with a trailing space: doctor said "13
    distinct strings: no group" without a hint. It says the names differ only in case or
    spaces, shows some, and how to fix them; a group given by hand gets the same word."""
    frame = mt_table().drop(columns=["domain"])
    upper = np.random.default_rng(0).random(len(frame)) < 0.3
    frame.loc[upper, "system"] = frame.loc[upper, "system"].str.upper()
    frame.loc[0, "system"] += " "
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    said = re.search(r"system +13 distinct strings, but 6 names once case and spaces .*", out)
    assert said and "'sys0 ', 'sys0', 'SYS0'" in said[0], out
    assert "write each name one way" in said[0]
    out, cmd = doctor([str(path), "--group", "system"], capsys)
    assert re.search(r"group +system +--group: .*names written several ways \('sys", out)
    runs(cmd, capsys)


def test_ids_written_with_leading_zeros_are_text(tmp_path: Path, capsys) -> None:
    """Ids '004' and '4' were read as the number 4: estimate said "duplicate id 4" and
    doctor found no id. Ids written with leading zeros are read as text (as a study reads
    its items), so they are two ids; plain integer ids stay numbers."""
    from bacon_bayes.io import read_table

    frame = mt_table()
    frame.insert(0, "id", [f"{k:04d}" for k in range(len(frame))])
    frame.loc[5, "id"] = "4"
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    read = read_table(path)
    assert read["id"].tolist()[3:6] == ["0003", "0004", "4"]
    out, cmd = doctor([str(path)], capsys)
    assert re.search(r"id +id +named like an id, every value distinct \(360 rows\)", out)
    assert cmd[cmd.index("--item") + 1] == "id"
    runs(cmd, capsys)
    frame.assign(id=range(len(frame))).to_csv(path, index=False)
    assert read_table(path)["id"].dtype == np.int64


def test_numeric_columns_beside_the_judges_given_are_no_strings(tmp_path: Path, capsys) -> None:
    """With --judge, the other numeric columns were called "8 distinct string(s) (e.g.
    '8.0'): no group, prompt or text"; they are numbers, not taken as judges."""
    path = tmp_path / "t.csv"
    mt_table().to_csv(path, index=False)
    out, _ = doctor([str(path), "--judge", "comet"], capsys)
    assert re.search(r"left out +matese +numeric, not taken as a judge \(pass --judge", out)
