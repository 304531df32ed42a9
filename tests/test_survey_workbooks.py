"""Survey tools' exports as a new user has them beyond the CSV: the ``.xlsx`` Qualtrics,
Google Sheets (a form's responses) and SurveyMonkey write, read as their CSV is (openpyxl
missing named with the fix); a form whose questions are numbered (``Question 1``), whose
numbers are no items' ids; a Google Form submitted twice by one respondent."""

from __future__ import annotations

import csv
import datetime
import shlex
import sys
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from bacon_bayes.cli import main

from .printed import run_python_line
from .test_survey_exports import (
    ITEMS,
    RATERS,
    N,
    _check_means,
    _judges,
    _means_written,
    _ratings,
    _survey,
    google_forms,
)

#: each tool's workbook: the export's sheet name as the tool writes it
SHEETS = {
    "qualtrics_wide": "Sheet0",
    "qualtrics_long": "Sheet0",
    "google_forms": "Form Responses 1",
    "survey_monkey_matrix": "Sheet",
}


def _cell(text: str, timestamp: bool) -> object:
    """A CSV cell as the tool's workbook holds it: a number, a date (Google Sheets'
    Timestamp), text; an empty cell empty."""
    if text == "":
        return None
    if timestamp:  # '2024/05/01 10:10:00 AM GMT+2'
        return datetime.datetime.strptime(text.rsplit(" GMT", 1)[0], "%Y/%m/%d %I:%M:%S %p")
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _as_workbook(folder: Path, kind: str) -> str:
    """The export ``kind`` written as its tool's ``.xlsx`` (one sheet, cells typed)."""
    name, _ = _survey(folder, kind)
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = SHEETS[kind]
    with open(folder / name, encoding="utf-8") as f:
        for k, row in enumerate(csv.reader(f)):
            sheet.append([_cell(c, k > 0 and j == 0 and kind == "google_forms")
                          for j, c in enumerate(row)])  # fmt: skip
    book.save(folder / f"{kind}.xlsx")
    (folder / name).unlink()
    return f"{kind}.xlsx"


@pytest.fixture(autouse=True)
def _working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the printed lines write their files there


@pytest.mark.parametrize("kind", list(SHEETS))
def test_a_survey_tool_s_xlsx_is_read_as_its_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """Before: the workbook was read as a table (Qualtrics' question text and ImportId
    rows as data, a form's items as judges; SurveyMonkey's refused for two columns named
    ''). Now it is the survey export its CSV is, and the printed line reads the sheet and
    writes each item's mean; as --labels it is refused with that line."""
    _judges(tmp_path, item="item_id")
    name = _as_workbook(tmp_path, kind)
    assert main(["doctor", name]) == 0
    out = capsys.readouterr().out
    assert "survey export" in out and "not a table of judge scores" in out
    assert "pd.read_excel(" in out and SHEETS[kind] in out.split("pd.read_excel(", 1)[1]
    run_python_line(out, cwd=tmp_path)
    line = next(x for x in out.splitlines() if " doctor JUDGES.csv " in x)
    words = shlex.split(line)
    written = words[words.index("--labels") + 1]
    key = "item_id" if "long" in kind else "id"
    _check_means(_means_written(tmp_path, written, key), words[words.index("--label") + 1])
    assert main(["doctor", "judges.csv", "--labels", name]) == 2
    err = capsys.readouterr().err
    assert "survey export" in err and "12 of its 12 item ids" in err


def test_a_survey_xlsx_without_openpyxl_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without openpyxl the workbook is refused naming ``pip install openpyxl`` and saving
    the sheet as CSV."""
    name = _as_workbook(tmp_path, "google_forms")
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # import openpyxl fails
    assert main(["doctor", name]) == 2
    err = capsys.readouterr().err
    assert "pip install openpyxl" in err and "CSV" in err


def test_numbered_questions_are_no_item_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A form whose questions are headed ``Question 1`` ... ``Question 12``: before, the
    ids found were '1' ... '12' and the mean line wrote them (beside a judges' table with
    ids 1, 2, ..., joined to the wrong items). Now no id is found: the numbers are the
    form's order, said with the fix, and no mean line is printed."""
    google_forms(tmp_path / "form.csv")
    form = pd.read_csv(tmp_path / "form.csv", dtype=str)
    form.columns = ["Timestamp", "Email Address", *(f"Question {k}" for k in range(1, 13))]
    form.to_csv(tmp_path / "form.csv", index=False)
    assert main(["doctor", "form.csv"]) == 0
    out = capsys.readouterr().out
    assert "a Google Forms survey export" in out and "-> '1'" not in out
    assert "its questions are numbered ('Question 1', 'Question 2'" in out
    assert "python" not in out.split("what to do:")[1]
    pd.DataFrame({"id": range(1, N + 1), "gpt4": 3}).to_csv(tmp_path / "judges.csv", index=False)
    assert main(["doctor", "judges.csv", "--labels", "form.csv"]) == 2
    assert "its questions are numbered" in capsys.readouterr().err


def test_a_respondent_s_repeated_submissions_are_said_the_earlier_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Google Forms without "Limit to 1 response": rater 1 submitted again days later
    (another rating of d01) and rater 3's form was sent twice, seconds apart, without an
    address. Before, nothing was said and the line averaged 7 responses. Now the earlier
    submission of rater1@example.com is left out of the line, said with its lines, and the
    two same answers are said with theirs (kept: two raters may answer alike)."""
    google_forms(tmp_path / "form.csv")
    form = pd.read_csv(tmp_path / "form.csv", dtype=str)
    form.loc[3, "Email Address"] = None
    again = form.iloc[[1]].assign(Timestamp="2024/05/06 09:00:00 AM GMT+2")
    again.iloc[0, 2] = "5"  # rater 1's new rating of d01
    twice = form.iloc[[3]].assign(Timestamp="2024/05/04 10:13:20 AM GMT+2")
    form = pd.concat([form.iloc[:4], twice, form.iloc[4:], again], ignore_index=True)
    form.to_csv(tmp_path / "form.csv", index=False)
    assert main(["doctor", "form.csv"]) == 0
    out = capsys.readouterr().out
    assert "responses 6 of 7 kept" in out
    left = next(x for x in out.splitlines() if "earlier submission" in x)
    assert "'rater1@example.com' at lines 3 (2024/05/02" in left and ", 8 (2024/05/06" in left
    same = next(x for x in out.splitlines() if x.startswith("  repeated"))
    assert "lines 5 (2024/05/04 10:13:00 AM GMT+2), 6 (2024/05/04 10:13:20" in same
    run_python_line(out, cwd=tmp_path)
    written = _means_written(tmp_path, "form_mean.csv")
    ratings = _ratings().astype(float)
    ratings[1, 0] = 5  # rater 1's last submission
    for k, item in enumerate(ITEMS):  # rater 3's twice (said, kept), rater 1's once
        twice_mean = (ratings[:, k].sum() + ratings[3, k]) / (RATERS + 1)
        assert written.loc[item, "human"] == pytest.approx(twice_mean), item
    assert (written["n_raters"] == RATERS + 1).all()
