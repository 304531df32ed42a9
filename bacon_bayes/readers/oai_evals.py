"""OpenAI evals logs (``oaieval COMPLETION_FN EVAL --record_path run.jsonl``).

Followed: openai/evals' ``evals/record.py`` (``LocalRecorder``): a first line
``{"spec": {...}}`` (``eval_name``, ``completion_fns``, ``run_id``...), then one line per
event, ``{"run_id", "event_id", "sample_id", "type", "data", "created_by",
"created_at"}``, and a last line ``{"final_report": {...}}`` (the run's aggregates). The
events of a sample: ``sampling`` (``data.prompt``, ``data.sampled``), ``match``
(``data.correct``, ``expected``, ``picked``) and ``metrics`` (any numbers: a
model-graded eval's ``choice`` and ``score``); ``embedding``, ``cond_logp``, ``error``...
carry no score.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.readers.jsonl import read_lines
from bacon_bayes.readers.meta import TableMeta
from bacon_bayes.words import word_numbers

EVENT = ("run_id", "event_id", "sample_id", "type")

#: the event types whose numbers are the sample's scores
SCORED = ("metrics", "match")

#: match events' fields that are no judge: the reference answer, the options offered
NOT_SCORES = ("expected", "options", "sampled")


def looks_like(row: dict[str, Any]) -> bool:
    """Whether a JSON object is a line of an OpenAI evals log: its spec line, or an event."""
    spec = row.get("spec")
    if isinstance(spec, dict) and ("eval_name" in spec or "run_config" in spec):
        return True
    return all(k in row for k in EVENT) and isinstance(row.get("data"), dict)


def _number(value: Any) -> float | None:
    """A value as a float (booleans 1/0, numbers written as text), None when it is none."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _text(value: Any) -> str | None:
    """A sampling event's ``sampled`` as text: its one string, else JSON."""
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _cell(values: list[Any]) -> Any:
    """The one value of a sample's field, the mean where it has several numbers."""
    numbers = [_number(v) for v in values]
    if all(n is not None for n in numbers):
        return float(np.mean([n for n in numbers if n is not None]))
    return values[0]


def _scores(frame: pd.DataFrame, columns: list[str]) -> tuple[list[str], list[str]]:
    """The ``columns`` read as numbers in ``frame`` (in place; verdict words 1/0), and
    notes on those that are not."""
    judges, notes = [], []
    for c in columns:
        numbers = frame[c].map(_number)
        if numbers.notna().sum() == frame[c].notna().sum():
            frame[c] = numbers.astype(float)
            judges.append(c)
        elif (read := word_numbers(frame[c])) is not None:
            frame[c] = read[0]
            judges.append(c)
            notes.append(f"{c}: {read[1]}")
        else:
            notes.append(f"{c}: not a number per sample (e.g. {frame[c].dropna().iloc[0]!r})")
    return judges, notes


def _answers(output: pd.Series) -> pd.Series | None:
    """The sampled answers as numbers where every one is a number (a judge's rating
    sampled), else None (the responses' text)."""
    numbers = output.map(_number)
    filled = output.notna().sum()
    return numbers.astype(float) if filled and numbers.notna().sum() == filled else None


def _same_numbers(
    frame: pd.DataFrame, judges: list[str], notes: list[str]
) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Leave out of the judges a column repeating another's numbers (a model-graded eval's
    ``choice`` and ``score``, a match's ``picked`` and ``sampled``), and a match's
    ``correct`` where ``picked`` and ``expected`` are numbers (it only says whether the
    two are equal; ``expected``, the reference, would pass for a judge's score)."""
    for later, first in (("choice", "score"), ("picked", "sampled")):
        if later in judges and first in judges:
            both = frame[[later, first]].dropna()
            if both[later].equals(both[first]):
                judges.remove(later)
                frame = frame.drop(columns=later)
                notes.append(f"{later}: the same numbers as {first}, left out")
    numeric = "expected" in frame and pd.api.types.is_numeric_dtype(frame["expected"])
    if "correct" in judges and numeric and len(judges) > 1:
        judges.remove("correct")
        frame = frame.drop(columns="correct")
        notes.append(
            "correct: whether the answer picked is the expected one, left out (the answers "
            "are numbers: they are the judge, expected the reference)"
        )
    return frame, judges, notes


def read_oai_evals(path: str | Path) -> tuple[pd.DataFrame, TableMeta]:
    """Read an OpenAI evals log.

    Parameters
    ----------
    path : str or Path
        The ``.jsonl`` file ``oaieval`` writes (``--record_path``).

    Returns
    -------
    frame : DataFrame
        One row per ``sample_id``: the numbers of its ``metrics`` and ``match`` events (a
        field's name as its column: ``score``, ``choice``, ``correct`` 1/0, ``picked``; the
        mean where a sample has several), ``expected`` (a match's reference answer), and
        ``output``, its first ``sampling`` event's ``sampled`` text.
    meta : TableMeta
        ``sample_id`` as the item, the metrics and matches as judges, ``output`` as the
        response.

    Raises
    ------
    ValidationError
        Several runs in one file, or no event with a number.
    """
    lines = read_lines(path)
    spec: dict[str, Any] = next((r["spec"] for r in lines if isinstance(r.get("spec"), dict)), {})
    events = [r for r in lines if all(k in r for k in EVENT) and isinstance(r.get("data"), dict)]
    runs = list(dict.fromkeys(str(r["run_id"]) for r in events))
    if len(runs) > 1:
        raise ValidationError(
            f"{str(path)!r} holds the events of {len(runs)} runs ({', '.join(runs[:4])}): "
            "several logs put in one file. Read each run's log on its own."
        )
    fields: dict[str, dict[str, list[Any]]] = {}
    scored: list[str] = []
    other: dict[str, int] = {}
    for r in events:
        sid, kind, data = r["sample_id"], str(r["type"]), r["data"]
        if sid is None or sid == "":
            other[f"{kind} without a sample_id"] = other.get(f"{kind} without a sample_id", 0) + 1
            continue
        row = fields.setdefault(str(sid), {})
        if kind == "sampling" or (kind == "match" and "sampled" in data):
            row.setdefault("output", []).append(_text(data.get("sampled")))
        if kind in SCORED:
            for key, value in data.items():
                if isinstance(value, dict | list) or (kind == "match" and key in NOT_SCORES):
                    if key == "expected":
                        row.setdefault(key, []).append(_text(value))
                    continue
                row.setdefault(key, []).append(value)
                scored += [key] * (key not in scored)
        elif kind != "sampling":
            other[kind] = other.get(kind, 0) + 1
    if not scored:
        raise ValidationError(
            f"{str(path)!r} is an OpenAI evals log without metrics or match events: no score "
            "per sample to use as a judge (an eval that records only samplings: grade them, "
            "e.g. with a model-graded eval, and pass its log)."
        )
    several = sum(any(len(v) > 1 for k, v in f.items() if k in scored) for f in fields.values())
    records = [
        {
            "sample_id": sid,
            **{k: (v[0] if k == "output" else _cell(v)) for k, v in f.items()},
        }
        for sid, f in fields.items()
    ]
    frame = pd.DataFrame(records)
    judges, notes = _scores(frame, scored)
    if "output" in frame and (answers := _answers(frame["output"])) is not None:
        frame = frame.drop(columns="output").assign(sampled=answers)
        judges.insert(0, "sampled")
        notes.append("sampled: the answers sampled are numbers, read as a judge's scores")
    if "expected" in frame:
        frame["expected"] = frame["expected"].map(lambda v: v if (n := _number(v)) is None else n)
    frame, judges, notes = _same_numbers(frame, judges, notes)
    if not judges:
        raise ValidationError(
            f"{str(path)!r}: the metrics and match events of this OpenAI evals log hold no "
            f"number per sample ({'; '.join(notes)}); bacon needs a score per sample."
        )
    name = spec.get("eval_name")
    fns = ", ".join(map(str, spec.get("completion_fns") or []))
    notes.insert(
        0,
        f"an OpenAI evals log{f' of {name}' if name else ''}{f' ({fns})' if fns else ''}: "
        f"one row per sample_id, the numbers of its metrics and match events as judges"
        + (", its first sampling's text as output" if "output" in frame else ""),
    )
    if several:
        notes.append(f"{several} samples with several scoring events: their numbers averaged")
    if other:
        notes.append(
            "events without a score left out: "
            + ", ".join(f"{n} {k}" for k, n in sorted(other.items()))
        )
    if "expected" in frame:
        notes.append("expected: the samples' reference answers (match events), not a judge")
    text = ["output"] if "output" in frame and frame["output"].notna().any() else []
    meta = TableMeta(
        format="openai-evals",
        item="sample_id",
        judges=judges,
        text=text,
        response="output" if text else None,
        notes=notes,
        judge_kinds=dict.fromkeys(judges, "a metric of the eval's events"),
    )
    return frame, meta
