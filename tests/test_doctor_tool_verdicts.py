"""A tool's own verdict is no human label: DeepEval's ``success`` (a test case passed every
metric's threshold), ``<metric>_success`` and ``threshold`` beside the metrics' scores."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

N = 60


def _deepeval(folder: Path, human: bool = False, errored: bool = False) -> Path:
    """A DeepEval test run as a table: a row per test case, each metric's score, reason,
    threshold and success, and the case's ``success`` (with ``human``: a sparse human
    label; ``errored``: the verdicts empty on most cases, as where metrics failed)."""
    rng = np.random.default_rng(3)
    quality = rng.uniform(0, 1, N)
    relevancy = np.clip(quality + rng.normal(0, 0.15, N), 0, 1).round(2)
    faithful = np.clip(quality + rng.normal(0, 0.2, N), 0, 1).round(2)
    frame = pd.DataFrame(
        {
            "input": [f"question {i}" for i in range(N)],
            "actual_output": [f"answer {i} " * (1 + i % 5) for i in range(N)],
            "expected_output": [f"gold {i}" for i in range(N)],
            "answer_relevancy score": relevancy,
            "answer_relevancy_reason": [f"the answer covers point {i}" for i in range(N)],
            "answer_relevancy_threshold": 0.5,
            "answer_relevancy_success": relevancy >= 0.5,
            "faithfulness score": faithful,
            "faithfulness_success": faithful >= 0.5,
            "success": (relevancy >= 0.5) & (faithful >= 0.5),
        }
    )
    if errored:
        frame = frame.drop(columns=["answer_relevancy_success", "faithfulness_success"])
        frame["success"] = frame["success"].astype(object).where(np.arange(N) % 3 == 0)
    if human:
        labeled = rng.random(N) < 0.3
        frame["human"] = np.where(labeled, np.clip(np.round(1 + 4 * quality), 1, 5), np.nan)
    path = folder / "deepeval.csv"
    frame.to_csv(path, index=False)
    return path


def _doctor(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["doctor", str(path)]) == 0
    return capsys.readouterr().out


def _row(out: str, column: str) -> str:
    """Doctor's line of ``column`` in its columns found."""
    role = re.compile(rf"^  (label|judge|left out|text|id|group|prompt) +{re.escape(column)} ")
    return next(x for x in out.splitlines() if role.match(x))


def test_deepeval_s_success_is_no_human_rating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``success`` beside ``answer_relevancy_success`` was "named as an aspect the judges
    score: a human rating of success", and doctor printed ``--label success``."""
    out = _doctor(_deepeval(tmp_path), capsys)
    assert "--label success" not in out and "human rating of success" not in out
    assert "named like human ratings" not in out
    row = _row(out, "success")
    assert row.startswith("  left out") and "pass / fail of the case (DeepEval's" in row
    for metric in ("answer_relevancy", "faithfulness"):
        assert _row(out, f"{metric}_success").startswith("  left out")
        assert _row(out, f"{metric} score").startswith("  judge")
    assert "pass threshold" in _row(out, "answer_relevancy_threshold")


def test_deepeval_s_verdicts_beside_human_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With human labels, they are the label; the printed command takes the metrics'
    scores as the judges, not their verdicts, and runs."""
    out = _doctor(_deepeval(tmp_path, human=True), capsys)
    assert _row(out, "human").startswith("  label")
    line = out.splitlines()[out.splitlines().index("run:") + 1]
    words = shlex.split(line)
    judges = [words[k + 1] for k, w in enumerate(words) if w == "--judge"]
    assert judges == ["answer_relevancy score", "faithfulness score"]
    assert main([*words[words.index("estimate") :], "--engine", "freq"]) == 0
    assert "calibrated (AEE)" in capsys.readouterr().out


def test_a_sparse_success_is_not_taken_for_the_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``success`` on a third of the cases (metrics that errored on the rest) was the
    sparse numeric column doctor took for the human labels."""
    out = _doctor(_deepeval(tmp_path, errored=True), capsys)
    assert "label     -" in out and "--label success" not in out
    assert _row(out, "success").startswith("  left out")
