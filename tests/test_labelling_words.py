"""Labelling tools' choices written as words: a scale bacon's word readers know is read
(``Good`` / ``Bad``, quality levels); one they do not (``Relevant`` / ``Partially
relevant`` / ``Not relevant``; ``Okay`` beside ``Good`` / ``Bad``) is left out whole, with
the line that writes the export with them as numbers, and doctor on it then runs."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import words
from bacon_bayes.cli import main
from bacon_bayes.readers import labelling, read_any
from bacon_bayes.readers.labelling import _as_numbers

from .printed import run_python_line

TASKS, LABELED = 50, 16
RELEVANT = ("Relevant", "Partially relevant", "Not relevant")


def _answer(i: int, levels: tuple[str, ...]) -> str:
    return levels[i % len(levels)]


def _label_studio(path: Path, levels: tuple[str, ...]) -> Path:
    """A Label Studio JSON export: the first :data:`LABELED` tasks answered with the
    choice ``levels[i % k]`` (the first four by two annotators, the second one level
    down), a judge's score imported with the tasks' data."""
    tasks = []
    for i in range(TASKS):
        anns: list[dict[str, Any]] = []
        if i < LABELED:
            given = [_answer(i, levels)] + ([_answer(i + 1, levels)] if i < 4 else [])
            anns = [
                {"id": 100 * i + a, "completed_by": a + 1, "was_cancelled": False,
                 "result": [{"from_name": "rel", "to_name": "text", "type": "choices",
                             "value": {"choices": [w]}}]}
                for a, w in enumerate(given)
            ]  # fmt: skip
        tasks.append(
            {"id": i + 1, "data": {"text": f"t{i}", "gpt": 1 + i % 5}, "annotations": anns}
        )
    path.write_text(json.dumps(tasks))
    return path


def _argilla_v1(path: Path, levels: tuple[str, ...]) -> Path:
    """Argilla 1.x rows as on the Hugging Face Hub (JSON Lines): ``rel`` answered on the
    first :data:`LABELED` records."""
    rows = [
        {"external_id": f"r{i}", "text": f"t{i}", "gpt": 1 + i % 5,
         "rel": [{"user_id": "u1", "value": _answer(i, levels), "status": "submitted"}]
         if i < LABELED else [],
         "metadata": "{}"}
        for i in range(TASKS)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _note(out: str) -> str:
    return next(x for x in out.splitlines() if "note: 'rel'" in x)


@pytest.mark.parametrize("tool", ["label-studio", "argilla"])
def test_choices_of_a_scale_bacon_does_not_know_print_the_line_that_maps_them(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
) -> None:
    """The note said the answers were no numbers and left them out, with no way on."""
    monkeypatch.chdir(tmp_path)
    path = (
        _label_studio(tmp_path / "export.json", RELEVANT)
        if tool == "label-studio"
        else _argilla_v1(tmp_path / "export.jsonl", RELEVANT)
    )
    assert main(["doctor", path.name]) == 0
    note = _note(capsys.readouterr().out)
    assert "levels of a scale bacon does not read as numbers: left out" in note
    assert "{'Relevant': 3, 'Partially relevant': 2, 'Not relevant': 1}" in note
    run_python_line(note, cwd=tmp_path)
    doctor = shlex.split(note.rsplit(", then ", 1)[1].split(" (or --labels")[0])
    frame, _ = read_any(tmp_path / doctor[-1])
    number = {w: 3 - k for k, w in enumerate(RELEVANT)}
    expected = [number[_answer(i, RELEVANT)] for i in range(LABELED)]
    if tool == "label-studio":  # two annotators on the first four: their mean
        expected[:4] = [(number[_answer(i, RELEVANT)] + number[_answer(i + 1, RELEVANT)]) / 2
                        for i in range(4)]  # fmt: skip
    assert np.allclose(frame["rel"].to_numpy()[:LABELED], expected)
    assert frame["rel"].notna().sum() == LABELED
    assert main(doctor[1:]) == 0
    out = capsys.readouterr().out
    assert "label     rel" in out and f"{LABELED} of {TASKS} rows have a value" in out


def test_okay_beside_good_and_bad_is_no_longer_left_out_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Good`` / ``Bad`` were read as 1 / 0 and every ``Okay`` left out: the label's mean
    without its middle level. The question is left out whole, with the map that keeps it."""
    monkeypatch.chdir(tmp_path)
    _label_studio(tmp_path / "export.json", ("Good", "Okay", "Bad"))
    assert main(["doctor", "export.json"]) == 0
    note = _note(capsys.readouterr().out)
    assert "{'Good': 1, 'Okay': 0.5, 'Bad': 0}" in note
    run_python_line(note, cwd=tmp_path)
    frame, _ = read_any(tmp_path / "export_numbers.json")
    assert sorted(frame["rel"].dropna().unique()) == [0.0, 0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize(
    ("levels", "said"),
    [
        (("Good", "Bad"), "'good' = 1, 'bad' = 0"),
        (("Excellent", "Good", "Fair", "Poor"), "quality"),
    ],
)
def test_choices_of_a_scale_bacon_knows_are_read(
    tmp_path: Path, levels: tuple[str, ...], said: str
) -> None:
    frame, meta = read_any(_label_studio(tmp_path / "export.json", levels))
    assert frame["rel"].notna().sum() == LABELED and said in frame.attrs["verdicts"]["rel"]
    assert not any("left out" in n for n in meta.notes)


def test_answers_are_read_as_words_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_as_numbers`` read the words with ``word_numbers``, then again through
    ``as_numbers``."""
    calls = []
    real = words.word_numbers

    def counted(column: Any) -> Any:
        calls.append(len(column))
        return real(column)

    monkeypatch.setattr(words, "word_numbers", counted)
    monkeypatch.setattr(labelling, "word_numbers", counted, raising=False)  # imported there
    for answers in (["Good", "Bad"] * 5, list(RELEVANT) * 4, ["Good", "Okay", "Bad"] * 4):
        calls.clear()
        _as_numbers([{"choices": [w]} for w in answers])
        assert len(calls) == 1, answers


def test_the_map_is_said_where_the_export_is_a_labels_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As --labels, the question left out was only "no column 'rel'"."""
    monkeypatch.chdir(tmp_path)
    _label_studio(tmp_path / "export.json", RELEVANT)
    scores = {"id": range(1, TASKS + 1), "gpt4": [1 + i % 3 for i in range(TASKS)]}
    pd.DataFrame(scores).to_csv(tmp_path / "scores.csv", index=False)
    args = ["doctor", "scores.csv", "--labels", "export.json", "--label", "rel"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "no column 'rel'" in err and "levels of a scale bacon does not read" in err
    run_python_line(err, cwd=tmp_path)
    assert main([*args[:3], "export_numbers.json", *args[4:]]) == 0
    assert f"from --labels: {LABELED} of {TASKS} rows labeled" in capsys.readouterr().out
