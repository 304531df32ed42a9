"""A study of True/False verdicts (TriviaQA's human judgement as shipped: True, False and
blank cells): ``bacon sample`` records the verdicts already in the pool as a first wave
and ``bacon label import`` takes a filled wave written as True/False, both as 1/0, as
every reader of a table does (both refused them as not numbers), and records the label
as binary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.study import Study

from .conftest import bacon


@pytest.mark.parametrize("words", [("True", "False"), ("yes", "No")])
def test_true_false_verdicts_are_labels(tmp_path: Path, words: tuple[str, str]) -> None:
    rng = np.random.default_rng(0)
    n = 200
    truth = rng.random(n) < 0.6
    verdict = np.where(rng.random(n) < 0.15, truth, None)  # True/False where labeled
    judge = np.where(rng.random(n) < 0.9, np.where(truth, 0.8, 0.2), None)  # with blanks
    frame = pd.DataFrame(
        {
            "id": [f"q{k:03d}" for k in range(n)],
            "judge_a": judge,
            "judge_b": (truth + rng.normal(0, 0.5, n)).round(2),
            "human": verdict,
        }
    )
    frame.to_csv(tmp_path / "pool.csv", index=False)
    root, todo = tmp_path / "study", tmp_path / "todo.csv"
    assert bacon(
        "sample", str(tmp_path / "pool.csv"), "--study", str(root), "--budget", "20",
        "--item", "id", "--label", "human", "--judge", "judge_a,judge_b", "--out", str(todo),
    ) == 0  # fmt: skip
    wave = pd.read_csv(todo, dtype=str)
    by_id = dict(zip(frame["id"], truth, strict=True))
    wave["human"] = [words[0] if by_id[i] else words[1] for i in wave["id"]]
    wave.to_csv(tmp_path / "filled.csv", index=False)
    assert bacon("label", "import", str(tmp_path / "filled.csv"), "--study", str(root)) == 0
    stored = Study.open(root).labels
    assert set(stored["human"].unique()) <= {0.0, 1.0}
    assert len(stored) == int(pd.notna(verdict).sum()) + 20


def test_a_study_of_verdicts_is_binary(tmp_path: Path) -> None:
    """Without --outcome, a study whose pool holds 0/1 labels records them as categorical
    (binary), as bacon estimate takes the same table; it recorded continuous, and the
    study's classical intervals reached past 1 (TriviaQA: 1.07)."""
    test_true_false_verdicts_are_labels(tmp_path, ("True", "False"))
    assert Study.open(tmp_path / "study").config.outcome == "categorical"
