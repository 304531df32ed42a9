"""Label Studio and Argilla exports read as one row per task: the annotators' mean as the
label, the model's answers (predictions, suggestions) as judges; doctor on each file
prints an estimate command that runs."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.readers import read_any
from bacon_bayes.readers.labelling import read_argilla, read_label_studio

from .labelling_fixtures import (
    CANCELLED,
    DISCARDED,
    DRAFT,
    LABELED,
    SEVERAL,
    N,
    judge,
    truth,
    write_argilla_v1,
    write_argilla_v2,
    write_label_studio,
    write_label_studio_min,
)

TRUTH = np.array([truth(i) for i in range(N)])


def _labels_are_the_means(frame: pd.DataFrame, column: str = "relevance") -> None:
    assert len(frame) == N
    assert np.allclose(frame[column].to_numpy(), TRUTH, equal_nan=True)
    assert frame[column].notna().sum() == LABELED
    several = [i for i in SEVERAL if i < LABELED]
    assert any(frame[column].iloc[i] % 1 for i in several)  # a mean, not one rating


def _doctor_then_estimate(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run doctor on ``path``, then the estimate command it prints; doctor's output."""
    assert main(["doctor", str(path)]) == 0
    said = capsys.readouterr().out
    lines = [shlex.split(x) for x in said.splitlines() if " estimate " in x]
    words = next(w for w in lines if w[0] == "bacon" or w[0].endswith("python"))
    assert main(words[words.index("estimate") :]) == 0
    assert "calibrated (AEE)" in capsys.readouterr().out
    return said


def test_label_studio_json_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_label_studio(tmp_path / "project-7-at-2024.json")
    frame, meta = read_any(path)
    assert meta.format == "label-studio" and meta.item == "id"
    assert list(frame["id"]) == list(range(1, N + 1))
    _labels_are_the_means(frame)  # cancelled annotations (rating 1) left out
    assert np.isnan(frame["relevance"].iloc[40])  # only a cancelled annotation: no label
    assert meta.judges == ["judge-a.relevance", "judge-b.relevance"]
    assert list(frame["judge-a.relevance"]) == [judge(i, 0) for i in range(N)]
    assert list(frame["judge-b.relevance"]) == [judge(i, 1) for i in range(N)]
    assert {"summary", "system", "doc_id"} <= set(frame.columns)  # data, prefix-free
    assert not {"annotations", "predictions", "total_annotations"} & set(frame.columns)
    said = " ".join(meta.notes) + frame.attrs["read as"]
    assert f"{len(SEVERAL)} tasks annotated by several annotators" in said
    assert f"{len(CANCELLED)} cancelled" in said
    assert "'comment' (textarea)" in said  # a text control: no number, said
    out = _doctor_then_estimate(path, capsys)
    assert "label     relevance" in out and "judge     judge-a.relevance" in out


def test_label_studio_data_judges_and_choices() -> None:
    """Judge scores imported in ``data`` stay columns for doctor to find; choices are
    read as a table's cells are ('4 - Relevant' as 4, Yes / No as 1 / 0); a data field
    named like a control is prefixed."""
    levels = {1: "1 - Irrelevant", 2: "2 - Partly", 3: "3 - Somewhat", 4: "4 - Relevant"}
    tasks = []
    for i in range(8):
        anns = [
            {
                "id": 10 * i + a,
                "completed_by": a,
                "was_cancelled": False,
                "result": [
                    {"from_name": "rel", "type": "choices", "value": {"choices": [levels[v]]}},
                    {"from_name": "ok", "type": "choices", "value": {"choices": [yes]}},
                ],
            }
            for a, (v, yes) in enumerate([(1 + i % 4, "Yes"), (1 + (i + 1) % 4, "No")][: 1 + i % 2])
        ]
        tasks.append({"id": i, "data": {"text": "t", "rel": 9, "gpt": i % 5}, "annotations": anns})
    frame, meta = read_label_studio(tasks, "x.json")
    assert meta.judges == [] and "gpt" in frame.columns and "data.rel" in frame.columns
    expected = [1 + i % 4 if i % 2 == 0 else (1 + i % 4 + 1 + (i + 1) % 4) / 2 for i in range(8)]
    assert list(frame["rel"]) == expected
    assert list(frame["ok"]) == [1.0 if i % 2 == 0 else 0.5 for i in range(8)]


def test_label_studio_json_min_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_label_studio_min(tmp_path / "project-7-min.json")
    frame, meta = read_any(path)
    assert meta.format == "label-studio-min" and meta.item == "id"
    _labels_are_the_means(frame)
    assert not {"annotation_id", "annotator", "lead_time"} & set(frame.columns)
    assert list(frame["judge_a"]) == [judge(i, 0) for i in range(N)]
    out = _doctor_then_estimate(path, capsys)
    assert "label     relevance" in out and "annotation_id" not in out


def test_argilla_v2_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_argilla_v2(tmp_path / "records.json")
    frame, meta = read_any(path)
    assert meta.format == "argilla" and meta.item == "id"
    _labels_are_the_means(frame)  # discarded responses and drafts (rating 1) left out
    assert np.isnan(frame["relevance"].iloc[50])  # a draft alone: no label
    assert meta.judges == ["gpt-x.relevance"]
    assert list(frame["gpt-x.relevance"]) == [judge(i) for i in range(N)]
    assert {"summary", "system", "doc_id", "length"} <= set(frame.columns)
    said = " ".join(meta.notes)
    assert f"{len(DISCARDED)} discarded" in said and f"{len(DRAFT)} draft" in said
    out = _doctor_then_estimate(path, capsys)
    assert "label     relevance" in out and "judge     gpt-x.relevance" in out


def test_argilla_v1_hub_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_argilla_v1(tmp_path / "argilla_v1.jsonl")
    frame, meta = read_any(path)
    assert meta.format == "argilla" and meta.item == "id"
    assert frame["id"].iloc[3] == "ex-003"
    _labels_are_the_means(frame)
    assert meta.judges == ["gpt-x.relevance"]
    assert {"system", "doc_id"} <= set(frame.columns)  # the metadata's JSON unpacked
    _doctor_then_estimate(path, capsys)


def test_argilla_v2_flattened_records() -> None:
    """``to_list(flatten=True)``: ``q.responses`` lists beside their ``.status``."""
    records = [
        {
            "id": f"r{i}",
            "status": "completed",
            "text": "t",
            "relevance.responses": [*[i % 5 + 1, 5][: 1 + i % 2], 1],
            "relevance.responses.users": ["u1", "u2", "u3"][: 2 + i % 2],
            "relevance.responses.status": [*["submitted"] * (1 + i % 2), "discarded"],
            "relevance.suggestion": i % 3,
            "relevance.suggestion.score": None,
            "relevance.suggestion.agent": None,
        }
        for i in range(6)
    ]
    frame, meta = read_argilla(records, "flat.json")
    assert list(frame["relevance"]) == [
        i % 5 + 1 if i % 2 == 0 else (i % 5 + 6) / 2 for i in range(6)
    ]
    assert meta.judges == ["relevance.suggestion"] and list(frame["text"]) == ["t"] * 6
    assert "6 discarded" in " ".join(meta.notes)


def test_a_label_studio_export_is_a_labels_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The labels made in Label Studio beside a table of judge scores: ``--labels`` read
    the export as records and asked for ``--label`` among its raw fields (``annotations``,
    ``predictions``, ``total_annotations``...). It is read as the tool's export: each
    question's mean the label, the predictions not taken for labels."""
    path = write_label_studio(tmp_path / "ls.json")
    frame, meta = read_any(path)
    scores = frame[["id", "system", "doc_id", *meta.judges]]
    scores.to_csv(tmp_path / "scores.csv", index=False)
    assert main(["doctor", str(tmp_path / "scores.csv"), "--labels", str(path)]) == 0
    out = capsys.readouterr().out
    command = shlex.split(out.splitlines()[out.splitlines().index("run:") + 1])
    assert command[command.index("--label") + 1] == "relevance", out
    assert main([*command[1:], "--json"]) == 0
    import json

    result = json.loads(capsys.readouterr().out)
    labeled = frame["relevance"].dropna()
    assert result["mean"]["classical"]["estimate"] == pytest.approx(labeled.mean())


def test_a_study_s_wave_labelled_in_label_studio_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wave's to-label file imported into Label Studio and labelled there: `bacon label
    import` read its JSON export as records and found no label column. It reads the
    export as the tool's, the annotators' ratings the labels."""
    import json

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    pool = pd.DataFrame(
        {"item": [f"i{k}" for k in range(120)], "system": ["A", "B", "C"] * 40,
         "gpt4": rng.integers(1, 6, 120), "llama": rng.integers(1, 6, 120)}
    )  # fmt: skip
    pool.to_csv("pool.csv", index=False)
    args = ["sample", "pool.csv", "--judge", "gpt4", "--judge", "llama", "--budget", "20"]
    assert main([*args, "--item", "item", "--label", "relevance", "--study", "st"]) == 0
    todo = pd.read_csv("st/todo-wave1.csv")
    rating = {item: 1 + k % 5 for k, item in enumerate(todo["item"])}
    tasks = [
        {"id": k + 1, "data": {"item": item, "relevance": ""}, "predictions": [],
         "annotations": [{"id": 100 + k, "completed_by": 1, "was_cancelled": False,
                          "result": [{"from_name": "relevance", "to_name": "text",
                                      "type": "rating", "value": {"rating": rating[item]}}]}]}
        for k, item in enumerate(todo["item"])
    ]  # fmt: skip
    Path("export.json").write_text(json.dumps(tasks))
    capsys.readouterr()
    assert main(["label", "import", "export.json", "--study", "st"]) == 0
    assert f"{len(todo)} labels added" in capsys.readouterr().out
    assert main(["estimate", "st", "--fixed", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["mean"]["classical"]["estimate"] == pytest.approx(np.mean(list(rating.values())))
