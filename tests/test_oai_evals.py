"""OpenAI evals logs: one row per sample_id, its metrics and match events as judges."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.readers import read_any

RUN = "240601120000ABCDEF"
N = 40


def _event(k: int, sid: str, kind: str, data: dict[str, object]) -> str:
    event = {"run_id": RUN, "event_id": k, "sample_id": sid, "type": kind, "data": data}
    return json.dumps({**event, "created_by": "", "created_at": "2024-06-01 12:00:01+00:00"})


def _truth() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    human = rng.integers(1, 6, N)
    return human, np.clip(human + rng.integers(-1, 2, N), 1, 5)


def _write_graded(path: Path, spec: bool = True, verdicts: bool = False) -> Path:
    """A model-graded log: a sampling and a metrics event per sample (``choice`` and
    ``score``; with ``verdicts`` only a ``choice`` Yes / No)."""
    _, judge = _truth()
    lines = []
    if spec:
        spec_run = {"eval_name": "rel.dev.v0", "completion_fns": ["gpt-4"], "run_id": RUN}
        lines.append(json.dumps({"spec": spec_run}))
    for i in range(N):
        sid = f"rel.dev.{i}"
        lines.append(_event(2 * i, sid, "sampling", {"prompt": "Rate", "sampled": [f"Answer {i}"]}))
        data = (
            {"choice": "Yes" if judge[i] >= 3 else "No"}
            if verdicts
            else {"choice": str(judge[i]), "score": float(judge[i])}
        )
        lines.append(_event(2 * i + 1, sid, "metrics", data))
    if spec:
        lines.append(json.dumps({"final_report": {"score": float(judge.mean())}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def _labels(path: Path) -> Path:
    human, _ = _truth()
    labeled = np.arange(0, N, 2)
    pd.DataFrame({"sample_id": [f"rel.dev.{i}" for i in labeled], "human": human[labeled]}).to_csv(
        path, index=False
    )
    return path


def test_graded_log_one_row_per_sample(tmp_path: Path) -> None:
    frame, meta = read_any(_write_graded(tmp_path / "run.jsonl"))
    _, judge = _truth()
    assert meta.format == "openai-evals" and meta.item == "sample_id" and meta.judges == ["score"]
    assert list(frame["sample_id"]) == [f"rel.dev.{i}" for i in range(N)]  # no spec/report row
    assert np.array_equal(frame["score"], judge.astype(float))
    assert "choice" not in frame  # the same numbers as score: said, left out
    assert frame["output"].iloc[3] == "Answer 3" and meta.response == "output"
    assert any("rel.dev.v0" in n for n in meta.notes)


def test_events_without_spec_and_verdict_choices(tmp_path: Path) -> None:
    frame, meta = read_any(_write_graded(tmp_path / "events.jsonl", spec=False, verdicts=True))
    _, judge = _truth()
    assert meta.format == "openai-evals" and meta.judges == ["choice"]
    assert np.array_equal(frame["choice"], (judge >= 3).astype(float))


def test_doctor_and_estimate_with_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_graded(tmp_path / "run.jsonl")
    _labels(tmp_path / "labels.csv")
    assert main(["doctor", "run.jsonl", "--labels", "labels.csv"]) == 0
    out = capsys.readouterr().out
    assert "label     human" in out and "judge     score" in out and "group     -" in out
    command = next(x for x in out.splitlines() if " estimate " in x)
    assert main(["estimate", *shlex.split(command.split(" estimate ", 1)[1])]) == 0


def test_match_log_answers_judge_expected_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match eval whose answers are ratings: the answers sampled are the judge, the
    expected answers (where the samples have one) the labels; ``correct`` is no judge."""
    human, judge = _truth()
    lines = []
    for i in range(N):
        sid = f"m.dev.{i}"
        if i % 3 == 0:  # a third of the samples with an expected answer
            data = {"correct": bool(human[i] == judge[i]), "expected": str(human[i])}
            data |= {"picked": str(judge[i]), "sampled": str(judge[i]), "options": [str(human[i])]}
            lines.append(_event(i, sid, "match", data))
        else:
            lines.append(_event(i, sid, "sampling", {"prompt": "...", "sampled": [str(judge[i])]}))
    (tmp_path / "match.jsonl").write_text("\n".join(lines) + "\n")
    frame, meta = read_any(tmp_path / "match.jsonl")
    assert meta.judges == ["sampled"] and "correct" not in frame and "picked" not in frame
    assert np.array_equal(frame["sampled"], judge.astype(float))
    assert np.allclose(
        frame["expected"], np.where(np.arange(N) % 3 == 0, human, np.nan), equal_nan=True
    )
    monkeypatch.chdir(tmp_path)
    assert main(["doctor", "match.jsonl"]) == 0
    out = capsys.readouterr().out
    assert "label     expected" in out and "judge     sampled" in out


def test_several_runs_refused(tmp_path: Path) -> None:
    path = _write_graded(tmp_path / "run.jsonl", spec=False)
    other = path.read_text().replace(RUN, "OTHERRUN")
    path.write_text(path.read_text() + other)
    with pytest.raises(Exception, match="2 runs"):
        read_any(path)
