"""Tables nobody prepared (tester T2's findings 2-3 and 10-20, session 34): a label column with 0
for 'not rated', a filled-in to-label file with '-' and ids written 181.0, ..."""

from __future__ import annotations

import json
import re
import shlex

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

from .messy_tables import Messy, messy_table
from .printed import run_python_line
from .test_doctor_messy import section


def _table(labeled: float = 0.25) -> pd.DataFrame:
    """A messy table with 1-5 labels (one rating) on some rows, the LLM judges only."""
    frame = messy_table(Messy(labeled=labeled, ratings=1, sentinels=0))
    return frame[["id", "prompt", "system", "human", "llm_a", "llm_b", "llm_c"]]


def _run(argv: list[str], capsys) -> str:
    assert main(argv) == 0, argv
    return capsys.readouterr().out


def test_zero_for_not_rated_in_the_label_is_said(tmp_path, capsys) -> None:
    """Finding 15: 0 on every unrated row of a 1-5 label column. Doctor flagged the 0s
    only while it took the column for a judge; with --label it took 1200 of 1200 rows as
    labeled and said nothing, and estimate printed an 'exact' mean of 0.56 on a 1-5 scale
    without a note. Now both say the code, where, and the fix."""
    frame = _table()
    frame["human"] = frame["human"].fillna(0.0)
    path = tmp_path / "zeros.csv"
    frame.to_csv(path, index=False)
    zeros = int((frame["human"] == 0).sum())
    first = int(np.argmax(frame["human"].to_numpy() == 0))
    said = f"label 'human' has {zeros} labels of 0 (of its {len(frame)} labels; the first: "
    out = _run(["doctor", str(path), "--label", "human"], capsys)
    can = section(out, "what can be computed")
    assert f"{said}line {first + 2}), outside the 1:5 scale of the others" in can, can
    assert "a code for 'not rated'? They enter the estimates as labels; if so, blank" in can
    # unasked, named like a label and filled on every row: the codes, not 'every item
    # is labeled'; named otherwise, a judge: without its codes it is sparse, so labels
    out = _run(["doctor", str(path)], capsys)
    assert f"no label column was taken: {said}line {first + 2})" in out, out
    other = tmp_path / "relevance.csv"
    frame.rename(columns={"human": "relevance"}).to_csv(other, index=False)
    out = _run(["doctor", str(other)], capsys)
    assert f"without them relevance has a value on {len(frame) - zeros} of" in out, out
    assert "doctor takes them as the label" in out
    args = ["estimate", str(path), "--label", "human", "--item", "id", "--engine", "freq"]
    out = _run([*args, "--judge", "llm_a", "--judge", "llm_c"], capsys)
    note = next(ln for ln in out.splitlines() if ln.startswith("note: label 'human'"))
    assert f"{said}item {str(frame['id'][first])!r})" in note, note
    # real labels, blanks where unrated: nothing said
    frame["human"] = frame["human"].replace(0.0, np.nan)
    frame.to_csv(path, index=False)
    out = _run([*args, "--judge", "llm_a", "--judge", "llm_c"], capsys)
    assert "not rated" not in out
    assert "not rated" not in _run(["doctor", str(path), "--label", "human"], capsys)


def test_infinite_judge_scores_are_flagged_and_left_out_of_the_command(tmp_path, capsys) -> None:
    """Finding 17: a log-probability judge with -inf scores passed doctor unflagged
    ('100% of rows scored') and the command it printed was refused by estimate ('an
    infinite score at line 39'). Doctor names the scores and the first line, and its
    command, leaving that judge out, runs."""
    frame = _table()
    frame["logprob"] = np.log(frame["llm_a"] / 5.0)
    frame.loc[frame.index[[3, 10, 11]], "logprob"] = -np.inf
    path = tmp_path / "inf.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path), "--label", "human", "--item", "id"]) == 0
    out = capsys.readouterr().out
    flags = section(out, "the judges' scores")
    assert "logprob infinite 3 scores of -inf (the first at line 5): bacon estimate refuses" in (
        " ".join(flags.split())
    ), flags
    command = shlex.split(out.splitlines()[out.splitlines().index("run:") + 1])
    assert "logprob" not in command and "llm_*" in command, command
    assert main([*command[1:], "--engine", "freq"]) == 0


def test_a_judge_named_with_spaces_around_it_is_that_column(tmp_path, capsys) -> None:
    """Finding 12: header cells with spaces around them ('GPT-4 ', as Excel exports
    write): doctor printed --judge 'GPT-4 ', and --judge stripped it to 'GPT-4', not a
    column ("Did you mean 'GPT-4 '?"). A column's whole name is that column; other
    values are still stripped (a comma list 'llm_a, llm_b')."""
    from bacon_bayes.cli.judge_args import split_judges

    frame = _table().rename(columns={"llm_a": "llm_a ", "llm_b": " llm_b", "id": " id"})
    path = tmp_path / "spaces.csv"
    frame.to_csv(path, index=False)
    assert split_judges(["llm_a ", " llm_c"], frame.columns) == ["llm_a ", "llm_c"]
    assert split_judges(["llm_a , llm_c"], frame.columns) == ["llm_a ", "llm_c"]
    out = _run(["doctor", str(path)], capsys)
    command = shlex.split(out.splitlines()[out.splitlines().index("run:") + 1])
    assert "llm_a " in command and " llm_b" in command, command
    assert main([*command[1:], "--engine", "freq"]) == 0


def test_an_empty_prompt_on_a_row_the_command_drops_keeps_the_prompt(tmp_path, capsys) -> None:
    """Finding 11: a half-empty export row (no judge score, no label, no prompt) made
    doctor leave --prompt out of its command, though the command's --drop-unscored
    removes that very row. The prompt column is checked on the rows the command keeps;
    an empty prompt on a kept row still takes --prompt out."""
    frame = _table()
    frame["prompt"] = "q" + frame["prompt"].astype(str)  # strings: taken as the prompt
    unlabeled = int(np.flatnonzero(frame["human"].isna())[0])
    frame.loc[frame.index[unlabeled], ["llm_a", "llm_b", "llm_c", "prompt"]] = np.nan
    path = tmp_path / "half_empty.csv"
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path), "--label", "human", "--item", "id"], capsys)
    command = shlex.split(out.splitlines()[out.splitlines().index("run:") + 1])
    assert "--prompt" in command and "--drop-unscored" in command, command
    assert "prompt column 'prompt' is empty" not in out
    _run([*command[1:], "--engine", "freq"], capsys)
    frame.loc[frame.index[unlabeled + 1], "prompt"] = np.nan  # a row the command keeps
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path), "--label", "human", "--item", "id"], capsys)
    assert f"prompt column 'prompt' is empty at line {unlabeled + 3} (1 of" in out, out
    assert "--prompt" not in out.split("run:")[1]


def test_labels_split_over_two_columns_by_round_are_said(tmp_path, capsys, monkeypatch) -> None:
    """Finding 19: the labels of two annotation rounds exported as human_round1 and
    human_round2, on different rows: doctor took one and offered the other as a choice,
    so the command estimated from half the labels. It says they label different items,
    how many joined, and the recipe joining them; two columns on the same items are no
    rounds."""
    frame = _table(labeled=0.3)
    rows = np.flatnonzero(frame["human"].notna())
    frame["human_round1"] = frame["human"].where(np.isin(np.arange(len(frame)), rows[::2]))
    frame["human_round2"] = frame["human"].where(np.isin(np.arange(len(frame)), rows[1::2]))
    frame = frame.drop(columns="human")
    path = tmp_path / "rounds.csv"
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path)], capsys)
    can = " ".join(section(out, "what can be computed").split())
    n1, n2 = len(rows[::2]), len(rows[1::2])
    assert (
        f"human_round1 and human_round2 label different items (human_round1: {n1}, "
        f"human_round2: {n2}; no item in two)" in can
    ), can
    assert f"joined, {len(rows)} items are labeled" in can
    recipe = "df['label'] = df['human_round1'].fillna(df['human_round2'])"
    assert recipe in can
    monkeypatch.chdir(tmp_path)  # the recipe is a line that runs, writing rounds_label.csv
    run_python_line(can)
    assert "then bacon doctor rounds_label.csv" in can
    assert pd.read_csv("rounds_label.csv")["label"].notna().sum() == len(rows)
    # the same items rated twice: no rounds
    frame["human_round2"] = frame["human_round1"].clip(upper=4.0)
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path)], capsys)
    assert "label different items" not in out


def test_a_utf16_file_is_read_by_its_byte_order_mark(tmp_path, capsys) -> None:
    """Finding 14: a UTF-16 CSV (Excel's "Unicode Text", BOM FF FE) was read as
    Windows-1252: column names full of NUL bytes, no label, no judge. It is decoded by
    its byte-order mark, said, and its command runs."""
    frame = _table()
    path = tmp_path / "utf16.csv"
    frame.to_csv(path, sep="\t", index=False, encoding="utf-16")
    assert path.read_bytes()[:2] == b"\xff\xfe"
    out = _run(["doctor", str(path)], capsys)
    assert out.startswith(f"bacon doctor: {path} (csv, tab-separated, UTF-16 text, {len(frame)} ")
    command = shlex.split(out.splitlines()[out.splitlines().index("run:") + 1])
    assert command[command.index("--label") + 1] == "human", command
    assert "\x00" not in out
    _run([*command[1:], "--engine", "freq"], capsys)


@pytest.mark.parametrize(
    ("spell", "what"),
    [
        (lambda i: f"{i} ", "spaces around them"),
        (str.lower, "case"),
        (lambda i: f"00{i}", "leading zeros"),
    ],
)
def test_label_ids_written_otherwise_name_the_cause(
    tmp_path, capsys, monkeypatch, spell, what
) -> None:
    """Finding 20: --labels ids that differ from the table's only by spaces around them,
    case or leading zeros: the error said "check that the labels belong to this file".
    It says how they differ, with an example; unrelated ids keep the old advice. Walk of
    session 59: with the line that writes the labels file's ids as the table's, after
    which the labels join."""
    monkeypatch.chdir(tmp_path)
    frame = _table()
    frame["id"] = "S" + frame["id"].astype(str) if what != "leading zeros" else frame.index
    labels = frame.loc[frame["human"].notna(), ["id", "human"]]
    frame = frame.drop(columns="human")
    table, file = tmp_path / "table.csv", tmp_path / "labels.csv"
    frame.to_csv(table, index=False)
    first = str(labels["id"].iloc[0])
    labels.assign(id=labels["id"].astype(str).map(spell)).to_csv(file, index=False)
    assert main(["doctor", str(table), "--labels", str(file), "--item", "id"]) == 2
    err = capsys.readouterr().err
    assert (
        f"all of them match an id of the table but for {what} (e.g. {spell(first)!r} is "
        f"{first!r}): write the labels file's ids as the table does" in err
    ), err
    run_python_line(err)
    assert "then pass --labels labels_ids.csv" in err
    assert main(["doctor", str(table), "--labels", "labels_ids.csv", "--item", "id"]) == 0
    assert "\nrun:\n" in capsys.readouterr().out
    labels.assign(id="X" + labels["id"].astype(str) + "Y").to_csv(file, index=False)
    assert main(["doctor", str(table), "--labels", str(file), "--item", "id"]) == 2
    assert "check that the labels belong to this file" in capsys.readouterr().err


def test_a_judge_written_as_score_colon_number_is_named(tmp_path, capsys) -> None:
    """Finding 13: a judge column written 'Score: 4' on every row (a raw LLM reply) was
    left out as "8 distinct string(s): no group, prompt or text". Doctor says it holds
    numbers with text around them and gives the pandas line that reads them; since the
    walk of new table shapes, 'Score: 4' itself is read as a judge's reply
    (tests/test_doctor_cells.py), and other words around the number ('4 stars') are named so."""
    frame = _table()
    rng = np.random.default_rng(1)  # many distinct scores (few: a category, said so)
    score = (frame["llm_c"] + rng.normal(0, 0.3, len(frame))).round(2)
    frame["llm_c"] = "Score: " + score.map("{:g}".format)
    path = tmp_path / "score_colon.csv"
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path)], capsys)
    judge = next(ln for ln in out.splitlines() if ln.startswith("  judge     llm_c"))
    assert "read as numbers from a judge's replies ('Score: " in judge, judge
    frame["llm_c"] = score.map("{:g}".format) + " stars"
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path)], capsys)
    left = next(ln for ln in out.splitlines() if ln.startswith("  left out  llm_c"))
    assert "stars" in left and "as numbers only" in left, left


@pytest.mark.parametrize(
    ("spec", "typos", "scale"),
    [
        (Messy(labeled=0.25, ratings=1, sentinels=0), (44.0,), "1:5"),
        (Messy(labeled=0.25, label_scale="0-100", sentinels=0), (250.0, -5.0, 1000.0), "0:100"),
    ],
)
def test_label_typos_far_outside_the_others_are_named(
    tmp_path, capsys, spec: Messy, typos: tuple[float, ...], scale: str
) -> None:
    """Findings 2 and 3: a typo among the labels (77 among 1-10 labels; 250, -5 and 1000
    among 0-100 ones) widened the inferred scale to 0:100, or left none (``-``), and
    doctor said nothing of it: its command estimated with the typos in. Doctor names each
    and where it is, keeps the scale the other labels show, and prints the command to
    run once they are fixed; estimate without --scale says them too."""
    frame = messy_table(spec)[["id", "prompt", "system", "human", "llm_a", "llm_b", "llm_c"]]
    rows = frame.index[frame["human"].notna()][[3, 10, 20][: len(typos)]]
    frame.loc[rows, "human"] = typos
    path = tmp_path / "typos.csv"
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path)], capsys)
    line = next(ln for ln in out.splitlines() if ln.startswith("  scale"))
    assert line.split()[1] == scale and "without the labels far outside it (below)" in line
    can = section(out, "what can be computed")
    n, k = int(frame["human"].notna().sum()), len(typos)
    said = f"label 'human' has {k} value{'s' if k > 1 else ''} far outside the {scale} scale "
    assert f"{said}of its other {n - k} labels (" in can, can
    shown = ", ".join(f"{v:g} at line {r + 2}" for v, r in zip(typos, rows, strict=True))
    assert f"): {shown}; typos? Fix them (or empty those cells" in can, can
    run = out.split("\nrun, once those labels are fixed:\n", 1)[1].strip()
    assert shlex.split(run)[-2:] == ["--scale", scale] and "\nrun:\n" not in out
    out = _run([*shlex.split(run)[1:-2], "--engine", "freq"], capsys)  # no --scale: said
    assert f"\nnote: {said}of its other {n - k} labels (" in out, out
    assert (
        f"fix them (or empty those cells: not labeled) and run again with --scale {scale}\n" in out
    )
    frame.loc[rows, "human"] = np.nan  # fixed: the plain command, nothing said
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path)], capsys)
    assert "far outside" not in out and f"--scale {scale}\n" in out.split("\nrun:\n", 1)[1]


def test_groups_named_na_none_and_null_are_kept_as_names(tmp_path, capsys) -> None:
    """Tester D finding 8: systems named NA, None and null were read as missing (pandas'
    default): doctor called the cells empty and left the command without --group, and
    estimate refused the group column at a line that holds 'null'. They are names now,
    said by both; a judge's NA among numbers stays a missing score."""
    frame = _table()
    frame["system"] = frame["system"].replace({"M1": "NA", "M2": "None", "M3": "null"})
    frame["llm_c"] = frame["llm_c"].astype(object)
    frame.loc[5, "llm_c"] = "NA"
    path = tmp_path / "na_groups.csv"
    frame.to_csv(path, index=False)
    out = _run(["doctor", str(path), "--label", "human"], capsys)
    kept = "the words 'NA', 'None', 'null' (288 cell(s)) are kept as written"
    assert kept in section(out, "columns found") and "--group system" in out, out
    assert "is empty at" not in out
    est = _run(["estimate", str(path), "--label", "human", "--judge", "llm_a,llm_b,llm_c",
                "--group", "system", "--engine", "freq"], capsys)  # fmt: skip
    assert f"note: column 'system': {kept}" in est
    for name in ("NA", "None", "null"):  # a row of the table of means per system
        assert re.search(rf"^\s*{name} +[\d.]+ +\[", est, re.MULTILINE), name
    from bacon_bayes.io import read_table

    frame["verdict"] = np.where(
        frame.index % 4 == 0, np.where(frame.index % 8 == 0, "yes", "no"), "NA"
    )
    frame["category"] = np.where(frame.index % 4 == 0, "good", "NA")  # a sparse label's
    frame.to_csv(path, index=False)
    read = read_table(path)
    assert read["llm_c"].isna().sum() == 1 and read["llm_c"].dtype == float
    assert read.attrs["kept words"].keys() == {"system"}
    assert read["verdict"].isna().mean() == 0.75 and read["category"].isna().mean() == 0.75


def test_systems_named_by_numbers_and_na_keep_every_name(tmp_path, capsys) -> None:
    """Tester A finding 3 (session 37): systems named 8, 9.0, 010 and NA. Among numbers
    the column is not text, so NA was read as missing and estimate refused the group as
    empty; a column the command names (--group, --item, --prompt) keeps its words as
    names, the others as written (9.0 and 010 stay themselves)."""
    frame = _table()
    names = {"M1": "8", "M2": "9.0", "M3": "010"}
    frame["system"] = frame["system"].map(lambda s: names.get(s, "NA"))
    path = tmp_path / "numbered.csv"
    frame.to_csv(path, index=False)
    est = _run(["estimate", str(path), "--label", "human", "--judge", "llm_a,llm_b,llm_c",
                "--group", "system", "--engine", "freq"], capsys)  # fmt: skip
    assert "note: column 'system': the words 'NA'" in est, est
    for name in ("8", "9.0", "010", "NA"):
        assert re.search(rf"^\s*{re.escape(name)} +[\d.]+ +\[", est, re.MULTILINE), name


def test_an_empty_or_blank_group_is_refused_in_python_as_on_the_command_line() -> None:
    """Tester A finding 10: '' (and spaces) as a group from Python made a system of no
    name, which a CSV's empty cell (read as missing) is refused as; now both are empty,
    with the same message, and a missing cell in a frame bacon did not read says how
    pandas' NA words are kept."""
    from bacon_bayes import EvalPool
    from bacon_bayes.errors import ValidationError

    frame = _table()
    frame.attrs = {}  # a frame of the user's, not read by bacon
    kw = {"label": "human", "judges": ["llm_a", "llm_b"], "group": "system", "item": "id",
          "outcome": "continuous"}  # fmt: skip
    for cell, said in (("", "empty at"), ("  ", "empty (spaces only) at"), (np.nan, "empty at")):
        bad = frame.astype({"system": object})
        bad.loc[7, "system"] = cell
        with pytest.raises(ValidationError, match=re.escape(f"group column 'system' is {said}")):
            EvalPool.from_frame(bad, **kw)
    bad = frame.astype({"system": object})
    bad.loc[7, "system"] = np.nan
    with pytest.raises(ValidationError, match="keep_default_na=False"):
        EvalPool.from_frame(bad, **kw)
    bad = frame.astype({"id": object})
    bad.loc[7, "id"] = ""
    with pytest.raises(ValidationError, match="item id column 'id' is empty at"):
        EvalPool.from_frame(bad, **kw)


def test_ids_written_as_whole_floats_are_the_id(tmp_path, capsys) -> None:
    """Finding 3 (s37 B): an id column written 1.0, 2.0, ... (pandas or a spreadsheet once
    the column had a blank) was "id: none" and "left out: numeric, but named like an id",
    and the command had no --item. It is the id, said, and the command names it."""
    frame = _table()
    frame["id"] = np.arange(1, len(frame) + 1, dtype=float)
    path = tmp_path / "float_ids.csv"
    frame.to_csv(path, index=False)
    assert "1.0" in path.read_text().splitlines()[1]
    out = _run(["doctor", str(path)], capsys)
    assert re.search(r"^  id +id +named like an id, every value distinct", out, re.M), out
    assert "whole numbers written as 1.0" in out
    assert not re.search(r"left out +id ", out), out
    command = next(line for line in out.splitlines() if "bacon estimate" in line)
    assert "--item id" in command


def test_a_labels_file_with_a_rater_and_notes_gives_its_one_column_of_numbers(
    tmp_path, capsys
) -> None:
    """Walk of session 59: a labels file of id, annotator, rating and notes was refused
    by doctor and estimate without --label ("several columns besides the id"). Its one
    column of numbers is the label; a second one still asks for --label."""
    frame = _table()
    labeled = frame["human"].notna()
    labels = pd.DataFrame(
        {
            "id": frame.loc[labeled, "id"],
            "annotator": [f"ann_{k % 3}" for k in range(int(labeled.sum()))],
            "rating": frame.loc[labeled, "human"],
            "notes": ["unsure" if k % 7 == 0 else None for k in range(int(labeled.sum()))],
        }
    )
    table, file = tmp_path / "table.csv", tmp_path / "labels.csv"
    frame.drop(columns="human").to_csv(table, index=False)
    labels.to_csv(file, index=False)
    out = _run(["doctor", str(table), "--labels", str(file)], capsys)
    command = shlex.split(out.splitlines()[out.splitlines().index("run:") + 1])
    assert command[command.index("--label") + 1] == "rating", out
    args = ["estimate", str(table), "--labels", str(file), "--judge", "llm_a", "--json"]
    result = json.loads(_run(args, capsys))
    assert result["mean"]["classical"]["estimate"] == pytest.approx(labels["rating"].mean())
    labels.assign(confidence=0.9).to_csv(file, index=False)
    assert main(["doctor", str(table), "--labels", str(file)]) == 2
    assert "several columns besides the id" in capsys.readouterr().err
