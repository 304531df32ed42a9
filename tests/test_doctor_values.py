"""How doctor (and the commands after it) read the values of a table nobody prepared
(tester C's findings, session 31): word labels with '-' or '?' on the unlabeled rows,
Likert answers and percentages, a True/False labels file, ids written 1.0 in one file and
1 in the other, decimal commas in a label column, a judge whose name holds brackets."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.stream.source import expand_columns

from .messy_tables import Messy, messy_table
from .printed import run_python_line
from .test_doctor_messy import doctor, estimate_json, found, section


def _table(labeled: float = 0.25) -> pd.DataFrame:
    """A messy table with 1-5 labels (one rating) on a quarter of its rows, the LLM
    judges only."""
    frame = messy_table(Messy(labeled=labeled, ratings=1, sentinels=0))
    return frame[["id", "prompt", "system", "human", "llm_a", "llm_b", "llm_c"]]


def _doctor_out(tmp_path, frame: pd.DataFrame, capsys) -> str:
    """``bacon doctor``'s output on ``frame`` written as a CSV (with no command, maybe)."""
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    return capsys.readouterr().out


def _line(out: str, role: str, column: str) -> str:
    return next(
        ln
        for ln in out.splitlines()
        if ln.split()[: len(role.split()) + 1] == [*role.split(), column]
    )


@pytest.mark.parametrize("marks", [["?"], ["-", "?"]])
def test_a_word_label_with_marks_on_unlabeled_rows_is_named(tmp_path, capsys, marks) -> None:
    """Finding 1: correct/incorrect on the labeled rows and '?' on the others: doctor said
    "no sparse numeric column", called the column a category, and advised labeling a
    sample. It names the label column, its marks and the fix; a numeric ``qid`` beside
    the question is a prompt id, not a judge. ('-' alone is an empty cell, as 'n/a' is:
    tests/test_doctor_cells.py; beside '?', T2-8, it is not counted or shown among the
    text cells, which it was: 1162 of them where the 601 '?' were the problem.)"""
    frame = _table()
    words = np.where(frame["human"] >= 3, "correct", "incorrect")
    rows = np.arange(len(frame))
    unlabeled = np.array(marks, dtype=object)[rows % len(marks)]
    frame["human"] = np.where(frame["human"].notna(), words, unlabeled)
    frame["qid"] = frame["prompt"]
    out = _doctor_out(tmp_path, frame, capsys)
    assert "none: 'human' holds labels but for text cells (below)" in out
    left = _line(out, "left out", "human")
    asked = int((frame["human"] == "?").sum())
    assert f"{asked} cell(s) of other text ('?'; the first at line" in left, left
    assert "as numbers" not in left  # the words are labels as they are
    can = section(out, "what can be computed")
    assert "the label column 'human' holds labels but for" in can and "'-' at" not in can
    assert "bacon sample" not in can and "no human labels" not in can
    assert "named like a prompt id" in _line(out, "left out", "qid")


@pytest.mark.parametrize(("ways", "pairs"), [(("Yes", "1"), 2), ((" Yes", "YES ", "True", "1"), 3)])
def test_verdicts_written_several_ways_are_the_label(tmp_path, capsys, ways, pairs) -> None:
    """Finding T2-7: a label column whose verdicts two annotators wrote their own way
    ('Yes' / 'No' and '1' / '0', or yes, True and 1): doctor said "no sparse numeric
    column" and advised labeling a sample, and with --label "'1' is not numeric". Each
    cell is read as 1 / 0, the ways are said with the fix, and estimate reads the same."""
    frame = messy_table(Messy(label_scale="0-1", ratings=1, labeled=0.25, sentinels=0))
    frame = frame[["id", "prompt", "system", "human", "llm_a", "llm_b", "llm_c"]]
    level = frame["human"].to_numpy()
    no = {"Yes": "No", " Yes": "no ", "YES ": "NO", "True": "False", "1": "0"}
    way = np.array(ways, dtype=object)[np.arange(len(frame)) % len(ways)]
    pairs_ = zip(level, way, strict=True)
    frame["human"] = [(w if v == 1 else no[w]) if v == v else None for v, w in pairs_]
    path = tmp_path / "ways.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["human"], out
    label = _line(out, "label", "human")
    assert f"read from verdicts written {pairs} ways (" in label, label
    assert "'1' / '0'" in label and "write them one way" in label
    assert "bacon sample" not in section(out, "what can be computed")
    assert main(["doctor", str(path), "--label", "human"]) == 0
    assert "not numeric" not in capsys.readouterr().err
    result = estimate_json(command[1:], capsys)
    assert result["mean"]["classical"]["estimate"] == pytest.approx(np.nanmean(level))


def test_likert_answers_and_percentages_are_read_and_said(tmp_path, capsys) -> None:
    """Finding 9: a sparse label of Likert answers ('Strongly disagree' ... 'Strongly
    agree') and a judge written '80%': both were "a category, not a prompt (pass --prompt
    to use it)" and doctor found no labels. The answers are read as 1-5, the percentages
    as the number written, each said; the command runs on them."""
    frame = _table()
    answers = ["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree"]
    answers += ["Strongly agree"]
    level = frame["human"].to_numpy()
    frame["human"] = [answers[int(v) - 1] if v == v else None for v in level]
    frame = frame.rename(columns={"human": "expert_says"})
    frame["llm_a"] = [f"{20 * v:.0f}%" for v in frame["llm_a"]]
    path = tmp_path / "likert.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["expert_says"]
    label = _line(out, "label", "expert_says")
    assert "Likert answers as 'Strongly disagree' = 1, 'Disagree' = 2" in label
    assert "'Strongly agree' = 5" in label
    judge = _line(out, "judge", "llm_a")
    assert "read as numbers, the percent sign dropped (" in judge and "%' = " in judge
    assert "pass --prompt" not in out
    result = estimate_json(command[1:], capsys)
    labeled = ~np.isnan(level)
    assert result["mean"]["classical"]["estimate"] == pytest.approx(level[labeled].mean())


def test_a_category_of_a_few_values_is_never_offered_as_the_prompt(tmp_path, capsys) -> None:
    """Finding 9: a column of 5 strings shared by every system, about 20 rows each per
    system, is a category; "pass --prompt to use it" is no advice for it."""
    frame = _table()
    frame["domain"] = np.array(list("abcde"))[np.arange(len(frame)) % 5]
    left = _line(_doctor_out(tmp_path, frame, capsys), "left out", "domain")
    assert "a category, not a prompt" in left and "--prompt" not in left


def test_a_true_false_labels_file_is_a_binary_label(tmp_path, capsys) -> None:
    """Finding 10: a labels file of True/False (pandas' way of writing a bool column):
    doctor refused it ("not numeric (e.g. True)") and estimate took it as a continuous
    label, with share intervals past 1. Both read it as 1/0, a binary label."""
    frame = messy_table(Messy(label_scale="0-1", ratings=1, labeled=0.25, sentinels=0))
    frame = frame[["id", "prompt", "system", "human", "llm_a", "llm_b", "llm_c"]]
    labels = frame.loc[frame["human"].notna(), ["id", "human"]]
    labels = labels.assign(human=labels["human"].astype(bool))
    main_path, labels_path = tmp_path / "main.csv", tmp_path / "labels.csv"
    frame.drop(columns="human").to_csv(main_path, index=False)
    labels.to_csv(labels_path, index=False)
    assert "True" in labels_path.read_text()
    out, command = doctor([str(main_path), "--labels", str(labels_path)], capsys)
    assert "bacon estimate takes it as a binary (categorical) label" in out
    result = estimate_json(command[1:], capsys)
    assert result["pool"]["outcome"] == "categorical"
    assert result["mean"]["classical"]["estimate"] == pytest.approx(labels["human"].mean())


def test_ids_written_as_floats_join_ids_written_as_integers(tmp_path, capsys) -> None:
    """Finding 11: the table's ids written 1.0, 2.0 (pandas' way for an integer column
    with a missing value), the labels file's 1, 2: "145 ids are not in the table ...
    check that the labels belong to this file". They are one id, and join."""
    frame = _table()
    frame["id"] = np.arange(1, len(frame) + 1).astype(float)
    labels = frame.loc[frame["human"].notna(), ["id", "human"]]
    labels = labels.assign(id=labels["id"].astype(int))
    main_path, labels_path = tmp_path / "main.csv", tmp_path / "labels.csv"
    frame.drop(columns="human").to_csv(main_path, index=False)
    labels.to_csv(labels_path, index=False)
    assert "1.0," in main_path.read_text() and "\n1," not in main_path.read_text()
    out, command = doctor([str(main_path), "--labels", str(labels_path)], capsys)
    assert f"from --labels: {len(labels)} of {len(frame)} rows labeled" in out
    result = estimate_json(command[1:], capsys)
    assert result["mean"]["classical"]["estimate"] == pytest.approx(labels["human"].mean())


def test_a_label_with_decimal_commas_beside_judges_with_points(tmp_path, capsys) -> None:
    """Finding 14: a semicolon-separated file whose label was typed with decimal commas
    ('4,00') and whose judges have decimal points: the label read as text (a category)
    and doctor found no labels. Each column is read with its own decimal mark, and the
    first line says so."""
    frame = _table()
    frame["human"] = [f"{v:.2f}".replace(".", ",") if v == v else "" for v in frame["human"]]
    frame["llm_a"] = frame["llm_a"] + 0.5
    path = tmp_path / "semicolons.csv"
    frame.to_csv(path, index=False, sep=";")
    assert "4,00" in path.read_text() and ".5;" in path.read_text()
    out, command = doctor([str(path)], capsys)
    assert "semicolon-separated, decimal commas in column(s) 'human'" in out.splitlines()[0]
    assert found(out, "label") == ["human"]
    result = estimate_json(command[1:], capsys)
    values = pd.to_numeric(frame["human"].str.replace(",", "."), errors="coerce")
    assert result["mean"]["classical"]["estimate"] == pytest.approx(values.mean())


def test_a_label_with_decimal_commas_in_a_comma_file_is_named(tmp_path, capsys) -> None:
    """Finding 14: in a comma-separated file (quoted cells), a label written '4,00' was "a
    category, not a prompt (pass --prompt to use it)" and the table had "no labels";
    judges written so got the decimal-comma fix. The label gets it too, as the label."""
    frame = _table()
    frame["human"] = [f"{v:.2f}".replace(".", ",") if v == v else None for v in frame["human"]]
    out = _doctor_out(tmp_path, frame, capsys)
    assert "none: 'human' holds numbers written with a decimal comma (below)" in out
    left = _line(out, "left out", "human")
    assert "numbers written with a decimal comma (e.g. '" in left and "labels?" in left
    can = section(out, "what can be computed")
    assert "save it with a decimal point" in can and "bacon sample" not in can
    assert main(["doctor", str(tmp_path / "table.csv"), "--label", "human"]) == 2
    assert "holds numbers written with a decimal comma" in capsys.readouterr().err


def test_a_judge_named_with_brackets_is_its_column(tmp_path, capsys) -> None:
    """Finding 2: a judge column ``gpt4 [rts]``: doctor's command passed --judge 'gpt4
    [rts]', which estimate read as a pattern with a set of characters ("matches no
    column"). A column's whole name is that column; patterns still expand."""
    columns = ["gpt4 [rts]", "gpt4 r", "llama*70b", "llama-70b"]
    assert expand_columns(["gpt4 [rts]"], columns) == ["gpt4 [rts]"]
    assert expand_columns(["llama*70b"], columns) == ["llama*70b"]
    assert expand_columns(["gpt4 [r]"], columns) == ["gpt4 r"]
    assert expand_columns(["llama*"], columns) == ["llama*70b", "llama-70b"]
    frame = _table().rename(columns={"llm_a": "gpt4 [v2]"})
    path = tmp_path / "brackets.csv"
    frame.to_csv(path, index=False)
    _, command = doctor([str(path)], capsys)
    assert "gpt4 [v2]" in command
    assert estimate_json(command[1:], capsys)["pool"]["judges"][0] == "gpt4 [v2]"


def test_json_true_false_labels_with_na_marks_on_unlabeled_rows_are_read(tmp_path, capsys) -> None:
    """Finding H2-4: a JSON Lines export whose label is JSON's true / false where labeled
    and "N/A", "-" or "" elsewhere was called "labels written as 2 words ('True',
    'False')", with a map of the strings 'True' / 'False' that matches no cell (the cells
    are booleans): no label, and no route. It is read as 1 / 0, the marks as empty cells,
    said, and estimates as the same file with null there."""
    frame = _table()
    rows = [
        {"id": r.id, "system": r.system, "llm_a": r.llm_a, "llm_b": r.llm_b, "human": r.human}
        for r in frame.itertuples()
    ]
    for row in rows:
        row["human"] = bool(row["human"] >= 3) if row["human"] == row["human"] else None
    marked, plain = tmp_path / "marked.jsonl", tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for k, row in enumerate(rows):
        row["human"] = ["N/A", "-", ""][k % 3] if row["human"] is None else row["human"]
    marked.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["doctor", str(marked)]) == 0
    said = _line(capsys.readouterr().out, "label", "human")
    assert "True / False read as 1 / 0, 'N/A', '-', '' as empty cells" in said
    means = []
    for path in (marked, plain):
        assert main(["estimate", str(path), "--label", "human", "--judge", "llm_*", "--json"]) == 0
        means.append(json.loads(capsys.readouterr().out)["mean"])
    assert means[0] == means[1]


@pytest.mark.parametrize("binary", [True, False])
def test_a_json_labels_file_with_na_marks_on_unlabeled_rows_is_read(tmp_path, capsys, binary):
    """Finding H2-7: a JSON Lines labels file (every item, its label or "N/A" / "-" / "")
    was refused: "label 'N/A' is not a number", where the same cells in the table or in
    a CSV labels file are empty cells. They are read so, and said."""
    frame = _table()
    if binary:
        frame["human"] = frame["human"].map(lambda v: bool(v >= 3) if v == v else None)
    main_path, labels_path = tmp_path / "main.csv", tmp_path / "labels.jsonl"
    frame.drop(columns="human").to_csv(main_path, index=False)
    marks = ["N/A", "-", ""]
    labels_path.write_text(
        "".join(
            json.dumps({"id": i, "human": marks[k % 3] if h is None or h != h else h}) + "\n"
            for k, (i, h) in enumerate(zip(frame["id"], frame["human"], strict=True))
        )
    )
    out, command = doctor(
        [str(main_path), "--labels", str(labels_path), "--label", "human"], capsys
    )
    assert "'N/A', '-'" in _line(out, "label", "human")
    result = estimate_json(command[1:], capsys)
    labeled = frame["human"].dropna().astype(float)
    assert result["mean"]["classical"]["estimate"] == pytest.approx(labeled.mean())


def test_a_labels_file_of_several_raters_per_item_gets_the_line_that_averages_them(
    tmp_path, capsys, monkeypatch
):
    """Finding H2-8: a labels file of one row per item and rater (3 experts each) was
    refused with "keep one label per item (average repeated labels first)" and no way to
    do it; the refusal now prints the line that writes each item's mean, which then
    joins."""
    frame = _table()
    labeled = pd.DataFrame(frame.loc[frame["human"].notna(), ["id", "human"]].to_dict("list"))
    raters = pd.concat([labeled.assign(rater=f"r{k}") for k in range(3)]).sort_values("id")
    monkeypatch.chdir(tmp_path)
    frame.drop(columns="human").to_csv("main.csv", index=False)
    raters.to_csv("ratings.csv", index=False)
    assert main(["doctor", "main.csv", "--labels", "ratings.csv", "--label", "human"]) == 2
    err = capsys.readouterr().err.replace("\n", " ")
    run_python_line(err)
    assert err.rstrip().endswith("then pass --labels ratings_mean.csv).")
    out, _ = doctor(["main.csv", "--labels", "ratings_mean.csv", "--label", "human"], capsys)
    assert f"{len(labeled)} of {len(frame)} rows labeled" in _line(out, "label", "human")


def test_a_judge_missing_one_score_is_not_said_to_score_every_row(tmp_path, capsys) -> None:
    """Walk of session 59 (a ragas table): a judge missing one score of 1,200 was "100% of
    rows scored" and its coverage "1.00", rounded up; estimate then imputed that score.
    Shares are rounded down."""
    frame = _table()
    frame.loc[frame.index[7], "llm_a"] = np.nan
    out = _doctor_out(tmp_path, frame, capsys)
    assert "(99% of rows scored)" in _line(out, "judge", "llm_a"), out
    assert "(100% of rows scored)" in _line(out, "judge", "llm_b")
    row = next(ln.split() for ln in out.splitlines() if ln.split()[:1] == ["llm_a"])
    assert row[2] == "0.99", row
