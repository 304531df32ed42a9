"""MTurk batch results as --labels: a radio answer written one-hot, rejected assignments,
the labels file's id column named as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.readers.one_hot import marked, option_groups

from .printed import run_python_line

ITEMS = 40
LABELED = 12
WORKERS = ("A1WORKER", "A2WORKER", "A3WORKER")


def _table(folder: Path) -> Path:
    rng = np.random.default_rng(7)
    path = folder / "judges.csv"
    pd.DataFrame(
        {
            "item_id": [f"doc-{i}/M1" for i in range(ITEMS)],
            "gpt4": rng.integers(1, 6, ITEMS),
            "llama": rng.integers(1, 6, ITEMS),
        }
    ).to_csv(path, index=False)
    return path


def _batch(rejected: int = 0) -> pd.DataFrame:
    """One row per assignment: every labeled item rated by three workers; the first
    ``rejected`` rows rejected (rated 1, far from the others)."""
    rng = np.random.default_rng(8)
    rows = []
    for i in range(LABELED):
        for w in WORKERS:
            rows.append(
                {
                    "HITId": f"3HIT{i:04d}",
                    "AssignmentId": f"3AS{i:04d}{w}",
                    "WorkerId": w,
                    "AssignmentStatus": "Submitted",
                    "WorkTimeInSeconds": int(rng.integers(30, 300)),
                    "Input.item_id": f"doc-{i}/M1",
                    "Input.summary": f"summary {i}",
                    "Answer.relevance": int(rng.integers(2, 6)),
                    "Answer.comments": "",
                }
            )
    frame = pd.DataFrame(rows)
    frame.loc[: rejected - 1, "AssignmentStatus"] = "Rejected"
    frame.loc[: rejected - 1, "Answer.relevance"] = 1
    return frame


def _one_hot(batch: pd.DataFrame) -> pd.DataFrame:
    out = batch.drop(columns="Answer.relevance")
    for k in range(1, 6):
        out[f"Answer.relevance.{k}"] = np.where(batch["Answer.relevance"] == k, "true", "false")
    return out


def _means(batch: pd.DataFrame) -> pd.Series:
    kept = batch[batch["AssignmentStatus"] != "Rejected"]
    return kept.groupby("Input.item_id")["Answer.relevance"].mean()


def _refusal(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["doctor", *args]) == 2
    return capsys.readouterr().err


def test_one_hot_columns_read_as_one_answer() -> None:
    frame = _one_hot(_batch())
    groups = option_groups(frame)
    assert list(groups) == ["Answer.relevance"]
    cols = [c for c, _ in groups["Answer.relevance"]]
    choice, answered, bad = marked(frame, cols)
    assert answered.all() and not bad.any()
    assert np.array_equal(choice + 1, _batch()["Answer.relevance"])


@pytest.mark.parametrize("label", [None, "Answer.relevance.1", "Answer.relevance"])
def test_one_hot_rating_line_writes_the_mean(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    label: str | None,
) -> None:
    monkeypatch.chdir(tmp_path)
    _table(tmp_path)
    batch = _batch(rejected=3)
    _one_hot(batch).to_csv(tmp_path / "batch.csv", index=False)
    err = _refusal(
        capsys, "judges.csv", "--labels", "batch.csv", *(["--label", label] * bool(label))
    )
    assert "one answer written one-hot" in err and "'Answer.relevance'" in err
    assert "3 of its 36 rows are rejected assignments" in err
    run_python_line(err, cwd=tmp_path)
    out = err.split("then pass --labels ")[1].split()[0]
    written = pd.read_csv(tmp_path / out).set_index("Input.item_id")["Answer.relevance"]
    assert np.allclose(written.sort_index(), _means(batch).sort_index())
    assert main(["doctor", "judges.csv", "--labels", out, "--label", "Answer.relevance"]) == 0
    assert "label     Answer.relevance" in capsys.readouterr().out


def test_rejected_left_out_of_the_mean_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _table(tmp_path)
    batch = _batch(rejected=4)
    batch.to_csv(tmp_path / "batch.csv", index=False)
    err = _refusal(capsys, "judges.csv", "--labels", "batch.csv")  # the label found: the answer
    assert "appear more than once in column 'Input.item_id'" in err  # as the file names it
    assert "4 of its 36 rows are rejected assignments" in err
    run_python_line(err, cwd=tmp_path)
    out = err.split("then pass --labels ")[1].split()[0].rstrip(").")
    written = pd.read_csv(tmp_path / out).set_index("Input.item_id")["Answer.relevance"]
    assert np.allclose(written.sort_index(), _means(batch).sort_index())
    assert main(["doctor", "judges.csv", "--labels", out]) == 0
    assert "label     Answer.relevance" in capsys.readouterr().out


def _printed_doctor(out: str, judges: str) -> list[str]:
    """The ``bacon doctor JUDGES.csv --labels ...`` doctor prints, on the table ``judges``."""
    line = next(x for x in out.splitlines() if " doctor JUDGES.csv " in x)
    words = shlex.split(line)
    return ["doctor", judges, *words[words.index("JUDGES.csv") + 1 :]]


@pytest.mark.parametrize("hot", [False, True])
def test_doctor_on_a_batch_says_it_holds_raters_answers(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    hot: bool,
) -> None:
    """A batch's results given to doctor as the table took AssignmentId for the id and the
    answer for a judge. It is said to be raters' answers: the items the HIT's
    Input.item_id, the workers raters, and the line that averages them per item, whose
    file then joins a judges' table as --labels."""
    monkeypatch.chdir(tmp_path)
    _table(tmp_path)
    batch = _batch(rejected=4)
    (_one_hot(batch) if hot else batch).to_csv(tmp_path / "batch.csv", index=False)
    assert main(["doctor", "batch.csv"]) == 0
    out = capsys.readouterr().out
    assert "an Amazon MTurk batch's results" in out and "not a table of judge scores" in out
    assert re.search(rf"items +Input\.item_id +{LABELED} items", out)
    assert re.search(rf"raters +WorkerId +{len(WORKERS)} workers, 2-3 per item", out)
    assert "4 of 36 assignments" in out and "AssignmentId" in out.split("left out")[-1]
    run_python_line(out, cwd=tmp_path)
    written = pd.read_csv(tmp_path / "batch_mean.csv").set_index("Input.item_id")
    assert np.allclose(written["Answer.relevance"].sort_index(), _means(batch).sort_index())
    assert main(_printed_doctor(out, "judges.csv")) == 0
    assert f"from --labels: {len(_means(batch))} of {ITEMS} rows labeled" in capsys.readouterr().out


def test_a_batch_without_an_input_id_has_its_hits_for_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _batch().drop(columns="Input.item_id").to_csv(tmp_path / "batch.csv", index=False)
    assert main(["doctor", "batch.csv"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"items +HITId +12 items", out) and "no Input.<id> column" in out
    run_python_line(out, cwd=tmp_path)
    assert len(pd.read_csv(tmp_path / "batch_mean.csv")) == LABELED


def test_estimate_on_a_batch_or_a_survey_says_it_holds_raters_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bacon estimate`` given the batch (or a survey's export) as the table: before,
    "--label is required for a table; name the column of labels" alone (doctor alone said
    what the file is). Now the refusal says it holds raters' answers, with doctor's line
    writing each item's mean (rejected assignments left out; it runs) and the doctor that
    joins it; as ``--labels`` estimate refuses it with doctor's line (the same reader)."""
    from .test_survey_exports import google_forms

    monkeypatch.chdir(tmp_path)
    _table(tmp_path)
    batch = _batch(rejected=2)
    batch.to_csv(tmp_path / "batch.csv", index=False)
    assert main(["estimate", "batch.csv"]) == 2
    err = capsys.readouterr().err
    assert "batch.csv is an Amazon MTurk batch's results: raters' answers" in err
    assert "2 of its 36 rows are rejected assignments" in err
    run_python_line(err, cwd=tmp_path)
    written = pd.read_csv(tmp_path / "batch_mean.csv").set_index("Input.item_id")
    assert np.allclose(written["Answer.relevance"].sort_index(), _means(batch).sort_index())
    assert "--labels batch_mean.csv --label Answer.relevance" in err
    for command in ("estimate", "doctor"):
        assert main([command, "judges.csv", "--labels", "batch.csv"]) == 2
        assert "lab = lab[lab['AssignmentStatus'].ne('Rejected')]" in capsys.readouterr().err
    google_forms(tmp_path / "form.csv")
    assert main(["estimate", "form.csv"]) == 2
    assert "form.csv is a Google Forms survey export: raters'" in capsys.readouterr().err
