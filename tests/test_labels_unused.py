"""A --labels file's columns besides its ids and labels: said, never dropped silently; a
column the table has too whose values differ is named (the table's are used); numeric
columns that look like judges come with the line that merges them into the table."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

from .printed import run_python_line

N, LABELED, CHANGED = 60, 25, 4


def _files(folder: Path, extra: bool = True) -> None:
    """``judges.csv`` (id, gpt4, llama) and ``labels.csv`` (id, human; with ``extra``: gpt4
    changed on the first :data:`CHANGED` ids, a judge ``claude`` and ``notes``)."""
    rng = np.random.default_rng(1)
    table = pd.DataFrame(
        {"id": [f"i{k}" for k in range(N)], "gpt4": rng.integers(1, 6, N),
         "llama": rng.integers(1, 6, N)}
    )  # fmt: skip
    table.to_csv(folder / "judges.csv", index=False)
    labels = table.iloc[:LABELED][["id", "gpt4"]].copy()
    labels["human"] = np.clip(labels["gpt4"] + rng.integers(-1, 2, LABELED), 1, 5)
    if extra:
        labels.loc[: CHANGED - 1, "gpt4"] = (labels["gpt4"][:CHANGED] % 5) + 1
        labels["claude"] = rng.integers(1, 6, LABELED)
        labels["notes"] = "checked"
    labels.to_csv(folder / "labels.csv", index=False)


def _note(out: str) -> str:
    return next(x for x in out.splitlines() if x.startswith("note: labels file"))


def test_unused_columns_of_a_labels_file_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    assert main(["doctor", "judges.csv", "--labels", "labels.csv", "--label", "human"]) == 0
    note = _note(capsys.readouterr().out)
    assert "'claude', 'notes' not used (only 'human' is joined)" in note
    assert f"'gpt4' differs from the table's on {CHANGED} of {LABELED} joined ids" in note
    assert "the table's 'gpt4' is used" in note and "'llama'" not in note
    assert f"'claude' holds numbers on {LABELED} of the table's {N} items" in note
    run_python_line(note, cwd=tmp_path)  # merges claude into the table
    merged = pd.read_csv(tmp_path / "judges_merged.csv")
    assert merged["claude"].notna().sum() == LABELED and len(merged) == N
    doctor = shlex.split(note.split(", then ")[-1])
    assert main(doctor[1:]) == 0
    out = capsys.readouterr().out
    assert "left out  claude" in out.split("\nlabels:")[0]  # a column of the merged table now
    assert "'claude'" not in _note(out) and "'notes' not used" in _note(out)


def test_estimate_says_the_unused_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    args = ["judges.csv", "--labels", "labels.csv", "--label", "human", "--item", "id"]
    assert main(["estimate", *args, "--judge", "gpt4,llama", "--engine", "freq"]) == 0
    out = capsys.readouterr().out
    assert "'claude', 'notes' not used" in out and "the table's 'gpt4' is used" in out


def test_a_labels_file_of_ids_labels_and_the_table_s_own_values_has_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A column the table has with the same values (the judge beside the labels) is
    nothing lost: no note."""
    monkeypatch.chdir(tmp_path)
    _files(tmp_path, extra=False)
    assert main(["doctor", "judges.csv", "--labels", "labels.csv", "--label", "human"]) == 0
    assert "note: labels file" not in capsys.readouterr().out
