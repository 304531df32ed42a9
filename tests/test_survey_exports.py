"""Survey tools' exports of human ratings (Qualtrics, Google Forms, SurveyMonkey), given to
``bacon doctor`` as the table and as ``--labels`` beside a judges' table: said to be
raters' answers (one row per respondent), a Qualtrics preview or unfinished response left
out and counted, and the line that writes each item's mean over its raters (the id pulled
out of a question's header by a pattern shown with what it found), which runs as printed,
and the doctor that joins its file.

Before: doctor took a Google Form's or SurveyMonkey's item columns for judges and the
raters for items, said "nothing yet" of a Qualtrics export (its question text and ImportId
rows read as data), and refused each as --labels with "--labels needs --label"."""

from __future__ import annotations

import csv
import json
import shlex
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.readers.surveys import read_survey

from .printed import run_python_line

N = 30  # items in the judges' table
ITEMS = [f"d{k:02d}" for k in range(1, 13)]  # the items rated
RATERS = 5
LIKERT = {1: "Strongly disagree", 2: "Disagree", 3: "Neither agree nor disagree",
          4: "Agree", 5: "Strongly agree"}  # fmt: skip
MONKEY = {1: "Not at all relevant", 2: "Slightly relevant", 3: "Moderately relevant",
          4: "Very relevant", 5: "Extremely relevant"}  # fmt: skip
Q_META = ["StartDate", "EndDate", "Status", "IPAddress", "Progress", "Duration (in seconds)",
          "Finished", "RecordedDate", "ResponseId", "RecipientLastName", "RecipientFirstName",
          "RecipientEmail", "ExternalReference", "LocationLatitude", "LocationLongitude",
          "DistributionChannel", "UserLanguage"]  # fmt: skip
Q_TEXT = ["Start Date", "End Date", "Response Type", "IP Address", "Progress",
          "Duration (in seconds)", "Finished", "Recorded Date", "Response ID",
          "Recipient Last Name", "Recipient First Name", "Recipient Email",
          "External Data Reference", "Location Latitude", "Location Longitude",
          "Distribution Channel", "User Language"]  # fmt: skip
Q_IMPORT = ["startDate", "endDate", "status", "ipAddress", "progress", "duration", "finished",
            "recordedDate", "_recordId", "recipientLastName", "recipientFirstName",
            "recipientEmail", "externalDataReference", "locationLatitude",
            "locationLongitude", "distributionChannel", "userLanguage"]  # fmt: skip
#: Prolific's embedded data fields in a Qualtrics survey: the respondent's, not an item's
PROLIFIC = ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"]
M_META = ["Respondent ID", "Collector ID", "Start Date", "End Date", "IP Address",
          "Email Address", "First Name", "Last Name", "Custom Data 1"]  # fmt: skip


def _ratings() -> np.ndarray:
    """Each rater's 1-5 rating of each item (raters x items), near the item's truth."""
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, len(ITEMS))
    return np.clip(truth + rng.integers(-1, 2, (RATERS, len(ITEMS))), 1, 5)


def _judges(folder: Path, item: str = "id") -> None:
    """``judges.csv``: ``item``, a system, three judges scoring 1-5 near the raters' mean."""
    rng = np.random.default_rng(4)
    mean = np.concatenate([_ratings().mean(axis=0), rng.integers(1, 6, N - len(ITEMS))])
    table = pd.DataFrame({item: [f"d{k:02d}" for k in range(1, N + 1)],
                          "system": [f"M{k % 3 + 1}" for k in range(N)]})  # fmt: skip
    for j in ("gpt4", "llama", "claude"):
        table[j] = np.clip(np.round(mean) + rng.integers(-1, 2, N), 1, 5).astype(int)
    table.to_csv(folder / "judges.csv", index=False)


def _write(path: Path, rows: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)


def _qualtrics_meta(r: int, status: str, finished: str) -> list[str]:
    return ["2024-05-01 10:00:00", "2024-05-01 10:12:00", status, f"10.0.0.{r}", "100",
            str(600 + r), finished, "2024-05-01 10:12:01", f"R_{r:04d}abcXYZ", "", "", "",
            "", "47.6", "-122.3", "anonymous", "EN"]  # fmt: skip


#: the Qualtrics exports' extra responses: a preview (Status), an unfinished one, as the
#: text export (choice text) and the numeric export (codes) write them
EXTRA = {"text": (("Survey Preview", "True"), ("IP Address", "False")),
         "numbers": (("1", "1"), ("0", "0"))}  # fmt: skip
REAL = {"text": ("IP Address", "True"), "numbers": ("0", "1")}


def qualtrics_wide(path: Path, export: str = "text") -> None:
    """One row per response, one column per item: ``Q<k>_1`` headed ``How relevant is
    summary d<k>? - Relevance``; a comment question; a preview and an unfinished response
    (their ratings 1, far from the others) first."""
    ratings = _ratings()
    rows = [
        [*Q_META, *(f"Q{k}_1" for k in range(1, 13)), "Q13_TEXT", *PROLIFIC],
        [*Q_TEXT, *(f"How relevant is summary {i}? - Relevance" for i in ITEMS),
         "Any comments?", *PROLIFIC],
        [json.dumps({"ImportId": k}) for k in Q_IMPORT]
        + [json.dumps({"ImportId": f"QID{k}_1"}) for k in range(1, 13)]
        + [json.dumps({"ImportId": "QID13_TEXT"})]
        + [json.dumps({"ImportId": k}) for k in PROLIFIC],
    ]  # fmt: skip
    panel = ["5f1a", "64b0aa", "66c1"]  # the respondent's Prolific ids: no items
    for r, (status, done) in enumerate(EXTRA[export]):
        rows.append([*_qualtrics_meta(r, status, done), *(["1"] * len(ITEMS)), "", *panel])
    for r in range(RATERS):
        cells = [str(v) for v in ratings[r]]
        rows.append([*_qualtrics_meta(r + 2, *REAL[export]), *cells, "fine" * (r % 2), *panel])
    _write(path, rows)


def qualtrics_long(path: Path, export: str = "text") -> None:
    """One row per response and item, the item an embedded data field ``item_id`` (each
    response rates one summary: Q1 relevance, Q2 fluency); a preview and an unfinished
    response among them (rated 1)."""
    ratings = _ratings()
    rows = [
        [*Q_META, "item_id", "Q1", "Q2"],
        [*Q_TEXT, "item_id", "How relevant is this summary? (1-5)", "How fluent is it?"],
        [json.dumps({"ImportId": k}) for k in [*Q_IMPORT, "item_id", "QID1", "QID2"]],
    ]
    r = 0
    for k, item in enumerate(ITEMS):
        for rater in range(RATERS):
            rows.append([*_qualtrics_meta(r, *REAL[export]), item, str(ratings[rater, k]), "4"])
            r += 1
    for status, done in EXTRA[export]:
        rows.append([*_qualtrics_meta(r, status, done), ITEMS[0], "1", "1"])
        r += 1
    _write(path, rows)


def google_forms(path: Path, export: str = "numbers") -> None:
    """Timestamp, Email Address, one column per item headed by its question (``Summary d01
    — how relevant? (1-5)``; ``words``: Likert agreement answers), one row per rater."""
    ratings = _ratings()
    if export == "words":
        head = [f"The summary of document {i} is relevant to it." for i in ITEMS]
    else:
        head = [f"Summary {i} — how relevant? (1-5)" for i in ITEMS]
    rows = [["Timestamp", "Email Address", *head]]
    for r in range(RATERS):
        cells = [LIKERT[v] if export == "words" else str(v) for v in ratings[r]]
        rows.append([f"2024/05/0{r + 1} 10:1{r}:00 AM GMT+2", f"rater{r}@example.com", *cells])
    _write(path, rows)


def survey_monkey(path: Path, export: str = "numbers") -> None:
    """Two header rows: the question's text and ``Response`` (``matrix``: the question once
    over its columns, each item a matrix row, ``Summary d01``, the answers its words)."""
    ratings = _ratings()
    if export == "matrix":
        first = ["Please rate how relevant each summary is.", *([""] * (len(ITEMS) - 1))]
        second = [f"Summary {i}" for i in ITEMS]
    else:
        first = [f"How relevant is summary {i}?" for i in ITEMS]
        second = ["Response"] * len(ITEMS)
    rows = [[*M_META, *first], [*([""] * len(M_META)), *second]]
    for r in range(RATERS):
        cells = [MONKEY[v] if export == "matrix" else str(v) for v in ratings[r]]
        rows.append([str(114000000000 + r), "431234567", "05/01/2024 10:00:00 AM",
                     "05/01/2024 10:09:00 AM", f"10.1.0.{r}", "", "", "", "", *cells])  # fmt: skip
    _write(path, rows)


KINDS: dict[str, tuple[Callable[[Path, str], None], str, str]] = {
    "qualtrics_wide": (qualtrics_wide, "text", "Qualtrics"),
    "qualtrics_wide_numbers": (qualtrics_wide, "numbers", "Qualtrics"),
    "qualtrics_long": (qualtrics_long, "text", "Qualtrics"),
    "google_forms": (google_forms, "numbers", "Google Forms"),
    "google_forms_likert": (google_forms, "words", "Google Forms"),
    "survey_monkey": (survey_monkey, "numbers", "SurveyMonkey"),
    "survey_monkey_matrix": (survey_monkey, "matrix", "SurveyMonkey"),
}


def _survey(folder: Path, kind: str) -> tuple[str, str]:
    """The export ``kind`` written to ``folder`` as ``<kind>.csv``: its name and tool."""
    write, export, tool = KINDS[kind]
    write(folder / f"{kind}.csv", export)
    return f"{kind}.csv", tool


def _means_written(folder: Path, name: str, key: str = "id") -> pd.DataFrame:
    written = pd.read_csv(folder / name, dtype={key: str}).set_index(key)
    assert written.index.is_unique
    return written


def _expected() -> pd.Series:
    return pd.Series(_ratings().mean(axis=0), index=ITEMS)


def _check_means(written: pd.DataFrame, label: str) -> None:
    """The raters' mean and their number on each item: the preview's and unfinished
    response's 1s left out."""
    assert sorted(written.index) == ITEMS
    np.testing.assert_allclose(written[label].loc[ITEMS], _expected().to_numpy())
    assert (written["n_raters"] == RATERS).all()


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path``, the working folder (the printed lines' files are written there)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("kind", list(KINDS))
def test_doctor_on_a_survey_export_says_raters_answers_and_prints_the_mean_line(
    here: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """Given as the table: the tool named, raters' answers, the items and how they were
    found; the printed line writes each item's mean and number of raters; the printed
    doctor joins that file as --labels onto a judges' table."""
    _judges(here)
    name, tool = _survey(here, kind)
    assert main(["doctor", name]) == 0
    out = capsys.readouterr().out
    assert f"(a {tool} survey export" in out and "not a table of judge scores" in out
    assert "judge  " not in out  # no item column taken for a judge
    if kind.startswith("qualtrics"):
        assert "three header rows" in out
        assert "left out  1 of" in out and "(a preview, test or spam)" in out
        assert "left out  1 unfinished (Finished False)" in out
    if "long" not in kind:
        assert "12 question columns, the item's id found by the pattern r'" in out
        assert "-> 'd01'" in out and "(12 ids)" in out
    run_python_line(out, cwd=here)
    line = next(x for x in out.splitlines() if " doctor JUDGES.csv " in x)
    words = shlex.split(line)
    words = words[words.index("doctor") :]
    out_file, label = words[words.index("--labels") + 1], words[words.index("--label") + 1]
    _check_means(_means_written(here, out_file, "item_id" if "long" in kind else "id"), label)
    words[1] = "judges.csv"
    assert main(words) == 0
    joined = capsys.readouterr().out
    assert f"from --labels: {len(ITEMS)} of {N} rows labeled" in joined
    assert "\n  judge     " in joined


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_survey_export_as_labels_is_refused_with_the_line_and_the_doctor(
    here: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """Given as --labels beside a judges' table (its ids in ``item_id``): refused with what
    the file is, how many of its item ids the table has, the line that writes each item's
    mean keyed as the table's ids, and the doctor on the judges' table that joins it (it
    was "--labels needs --label", listing the export's columns)."""
    _judges(here, item="item_id")
    name, tool = _survey(here, kind)
    assert main(["doctor", "judges.csv", "--labels", name]) == 2
    err = capsys.readouterr().err
    assert f"labels file {name!r} is a {tool} survey export" in err
    assert "12 of its 12 item ids are in the table's column 'item_id'" in err
    run_python_line(err, cwd=here)
    words = shlex.split(err.rsplit("then: ", 1)[1])
    words = words[words.index("doctor") :]
    assert words[1] == "judges.csv"
    label = words[words.index("--label") + 1]
    _check_means(_means_written(here, words[words.index("--labels") + 1], "item_id"), label)
    assert main(words) == 0
    assert f"from --labels: {len(ITEMS)} of {N} rows labeled" in capsys.readouterr().out


def test_estimate_refuses_a_survey_export_as_labels_with_the_same_line(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bacon estimate --labels`` (and report, plan: the one reading of a pool) refuses a
    survey export with the line and the doctor on its table, with --label given too."""
    _judges(here)
    name, _ = _survey(here, "google_forms")
    for label in ([], ["--label", "Summary d01 — how relevant? (1-5)"]):
        assert main(["estimate", "judges.csv", "--labels", name, *label]) == 2
        err = capsys.readouterr().err
        assert "is a Google Forms survey export" in err and "--labels needs --label" not in err
        assert "then: bacon doctor judges.csv --labels google_forms_mean.csv" in err


@pytest.mark.parametrize("export", ["text", "numbers"])
def test_qualtrics_previews_and_unfinished_responses_are_left_out_and_counted(
    tmp_path: Path, export: str
) -> None:
    """Status 'Survey Preview' (code 1 in a numeric export) and Finished False (0) are no
    responses to average: counted, and left out by the line (their 1s would pull every
    item's mean down)."""
    qualtrics_wide(tmp_path / "q.csv", export)
    survey = read_survey(tmp_path / "q.csv")
    assert survey is not None and survey.tool == "Qualtrics" and survey.header_rows == 3
    assert int(survey.keep.sum()) == RATERS and len(survey.frame) == RATERS + 2
    assert len(survey.dropped) == 2 and "1 unfinished" in survey.dropped[1]
    assert survey.other == ["Any comments?"] and survey.item is None  # PROLIFIC_PID...


def test_a_plain_labels_file_with_a_timestamp_still_joins(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A labels file that starts with a Timestamp column (a Google Form of an id and a
    rating, each item rated once) is a labels file as it is: joined, not refused."""
    _judges(here)
    pd.DataFrame(
        {"Timestamp": ["2024/05/01 10:10:00 AM GMT+2"] * len(ITEMS), "id": ITEMS,
         "relevance": np.round(_expected()).astype(int).to_numpy()}
    ).to_csv(here / "form.csv", index=False)  # fmt: skip
    assert read_survey(here / "form.csv") is None
    assert main(["doctor", "judges.csv", "--labels", "form.csv", "--label", "relevance"]) == 0
    assert f"from --labels: {len(ITEMS)} of {N} rows labeled" in capsys.readouterr().out


def test_a_small_judges_table_keeps_its_1_5_judges_none_taken_for_the_prompt(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A judges' table of 30 items (10 per system), three judges scoring 1-5, the labels
    the raters' means: a judge's five levels, each shared by the systems about twice, were
    taken for the prompts' numbers (``prompt llama``), the judge left out of the printed
    estimate and its folds split by its scores. A column that ranks the items as the
    other judges and the label do is scores; the printed estimate runs with every judge."""
    _judges(here)
    means = pd.DataFrame({"id": ITEMS, "human": _expected().to_numpy()})
    means.to_csv(here / "means.csv", index=False)
    assert main(["doctor", "judges.csv", "--labels", "means.csv", "--label", "human"]) == 0
    out = capsys.readouterr().out
    assert "prompt    -" in out and "each shared by items of several" not in out
    line = next(x for x in out.splitlines() if " estimate judges.csv " in x)
    words = shlex.split(line)
    words = words[words.index("estimate") :]
    assert [words[k + 1] for k, w in enumerate(words) if w == "--judge"] == [
        "gpt4", "llama", "claude"
    ]  # fmt: skip
    assert "--prompt" not in words
    assert main(words) == 0
    assert "human" in capsys.readouterr().out
