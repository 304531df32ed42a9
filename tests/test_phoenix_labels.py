"""Arize Phoenix's span annotations given as ``--labels``: the rows of every annotator
(``annotator_kind`` HUMAN, LLM, CODE), the human labels the HUMAN rows' ``score`` (else
their ``label`` read as numbers), as ``client.spans.get_span_annotations_dataframe()``
saves them (``span_id``, ``annotation_name``, ``result.label``, ``result.score``...) and
as the frame ``log_span_annotations_dataframe`` takes (``context.span_id``, ``name``,
``label``, ``score``)."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.readers.labels import join_labels

from .printed import run_python_line
from .test_doctor_eval_exports import _phoenix
from .test_doctor_messy import found


def _annotations(spans: pd.DataFrame, every: bool = True) -> pd.DataFrame:
    """Phoenix's span annotations as ``get_span_annotations_dataframe`` returns them (the
    index ``span_id``): a person's ``correctness`` on about 40% of the spans (agreeing
    with the LLM judge 85% of the time), the LLM judge's ``correctness`` on every span
    (``every``; else on the others only: one annotation per span), a code check
    ``has_citation`` on some."""
    rng = np.random.default_rng(11)
    rows = []
    for span, good in zip(spans["context.span_id"], spans["score"], strict=True):
        person = rng.random() < 0.4
        if every or not person:
            rows.append((span, "correctness", "LLM", float(good), "It matches the docs."))
        if person:
            rows.append((span, "correctness", "HUMAN", float(good ^ (rng.random() > 0.85)), None))
        if rng.random() < 0.3:
            rows.append((span, "has_citation", "CODE", 1.0, None))
    names = ["span_id", "annotation_name", "annotator_kind", "result.score", "result.explanation"]
    frame = pd.DataFrame(rows, columns=names)
    frame.insert(1, "id", [f"U3BhbkFubm90YXRpb246{i}" for i in range(len(frame))])
    frame.insert(4, "result.label", np.where(frame["result.score"] == 1, "correct", "incorrect"))
    frame["source"] = np.where(frame["annotator_kind"] == "HUMAN", "APP", "API")
    frame["user_id"] = np.where(frame["annotator_kind"] == "HUMAN", "VXNlcjox", None)
    frame["created_at"] = "2025-03-02T09:00:00+00:00"
    return frame.set_index("span_id")


def _humans(annotations: pd.DataFrame) -> pd.Series:
    rows = annotations[annotations["annotator_kind"] == "HUMAN"]
    return rows["result.score"]


def _doctor(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["doctor", *args]) == 0
    return capsys.readouterr().out


def test_the_human_rows_are_the_labels_the_llm_and_code_rows_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: ``--labels annotations.csv`` asked for ``--label`` among 12 columns, and
    ``--label result.score`` refused the repeated spans with a line averaging the LLM's
    scores into the people's. Now the HUMAN rows' scores are the label ``correctness``,
    the LLM and CODE rows left out and said, and doctor's command runs; ``--label
    result.score`` is refused naming ``--label correctness``."""
    monkeypatch.chdir(tmp_path)
    spans = _phoenix()
    annotations = _annotations(spans)
    annotations.to_csv("annotations.csv")  # as the client returns it: span_id its index
    spans.to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv", "--labels", "annotations.csv"], capsys)
    assert found(out, "label") == ["correctness"] and found(out, "judge") == ["score"]
    humans = _humans(annotations)
    assert f"from --labels: {len(humans)} of 90 rows labeled" in out
    note = next(x for x in out.splitlines() if x.startswith("note: labels file"))
    assert f"the {len(humans)} HUMAN rows' column 'result.score'" in note
    assert "rows of other annotators (LLM 90, CODE" in note and "left out" in note
    joined, key = join_labels(spans, "annotations.csv", "correctness", None)
    labels = joined.set_index(key)["correctness"].dropna()
    pd.testing.assert_series_equal(labels, humans.loc[labels.index], check_names=False)
    lines = out.splitlines()
    words = shlex.split(lines[lines.index("run:") + 1])
    assert main([*words[words.index("estimate") :], "--engine", "freq"]) == 0
    assert "calibrated (AEE)" in capsys.readouterr().out
    args = ["doctor", "spans.csv", "--labels", "annotations.csv", "--label", "result.score"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "the HUMAN rows' are the column 'correctness': pass --label correctness" in err


def test_annotator_kind_is_never_the_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The people's annotations alone, written as ``log_span_annotations_dataframe``
    takes them (``context.span_id``, ``name``, ``annotator_kind``, ``label``, ``score``),
    beside spans joined with their LLM evaluations (``label``, ``score`` too): before,
    ``annotator_kind`` was the one column the table lacks, taken as the label ("label
    'HUMAN' is not a number"). Now the label is ``correctness``, the HUMAN rows' score."""
    monkeypatch.chdir(tmp_path)
    spans = _phoenix()
    people = _annotations(spans).reset_index().query("annotator_kind == 'HUMAN'")
    names = {"span_id": "context.span_id", "annotation_name": "name"}
    people = people.rename(columns=names).rename(columns=lambda c: c.removeprefix("result."))
    people[["context.span_id", "name", "annotator_kind", "label", "score"]].to_csv(
        "human.csv", index=False
    )
    spans.to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv", "--labels", "human.csv"], capsys)
    assert found(out, "label") == ["correctness"] and "annotator_kind" not in found(out, "label")
    assert f"the {len(people)} HUMAN rows' column 'score'" in out


def test_one_annotation_per_span_mixes_no_llm_score_into_the_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The LLM judge annotated the spans no person did: each span has one
    ``correctness``. Before, ``--label result.score`` joined every row: "90 of 90 rows
    labeled", the LLM's 0/1 on 51 spans taken for human labels without a word. Now only
    the HUMAN rows are (several people's on a span averaged, said), and ``--label
    result.score`` is refused with the column to name."""
    monkeypatch.chdir(tmp_path)
    spans = _phoenix()
    annotations = _annotations(spans, every=False)
    annotations = annotations[annotations["annotation_name"] == "correctness"]
    humans = _humans(annotations)
    second = annotations[annotations["annotator_kind"] == "HUMAN"].iloc[:1].assign(user_id="2")
    second["result.score"] = 1 - second["result.score"]  # a second person disagreeing
    pd.concat([annotations, second]).to_csv("annotations.csv")
    spans.to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv", "--labels", "annotations.csv"], capsys)
    assert found(out, "label") == ["correctness"]
    assert f"from --labels: {len(humans)} of 90 rows labeled" in out
    assert "the mean of several people's on 1 span(s)" in out
    joined, key = join_labels(spans, "annotations.csv", "correctness", None)
    assert joined.set_index(key)["correctness"][second.index[0]] == 0.5
    assert (
        main(["doctor", "spans.csv", "--labels", "annotations.csv", "--label", "result.score"]) == 2
    )
    assert "pass --label correctness" in capsys.readouterr().err


def test_words_alone_are_read_and_no_human_row_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """People's annotations with a label and no score (``correct`` / ``incorrect``) are
    read as 1 / 0, said; annotations with no HUMAN row are refused, the fix named."""
    monkeypatch.chdir(tmp_path)
    spans = _phoenix()
    annotations = _annotations(spans)
    annotations["result.score"] = annotations["result.score"].where(
        annotations["annotator_kind"] != "HUMAN"
    )
    annotations.to_csv("annotations.csv")
    spans.to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv", "--labels", "annotations.csv"], capsys)
    assert found(out, "label") == ["correctness"]
    assert "HUMAN rows' column 'result.label' (" in out
    joined = join_labels(spans, "annotations.csv", "correctness", None)[0]
    assert set(joined["correctness"].dropna()) == {0.0, 1.0}
    human = annotations["annotator_kind"] == "HUMAN"
    annotations.loc[human, "result.label"] = annotations.loc[human, "result.label"].map(
        {"correct": "spot on", "incorrect": "meh"}
    )
    annotations.to_csv("words.csv")
    assert main(["doctor", "spans.csv", "--labels", "words.csv"]) == 2
    err = capsys.readouterr().err
    assert "('spot on', 'meh') that are not numbers" in err and "check the map" in err
    run_python_line(err, cwd=tmp_path)
    out = _doctor(["spans.csv", "--labels", "words_scores.csv"], capsys)
    assert found(out, "label") == ["correctness"]
    annotations[~human].to_csv("llm.csv")
    assert main(["doctor", "spans.csv", "--labels", "llm.csv"]) == 2
    err = capsys.readouterr().err
    assert "no HUMAN row (LLM 90, CODE" in err and "annotator_kind HUMAN" in err
