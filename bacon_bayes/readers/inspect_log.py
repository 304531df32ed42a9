"""Inspect AI eval logs (``.eval``, or ``.json``), read with inspect_ai's own log API.

Samples are items (the sample id), epochs are runs of the long score table, the scores of
model-graded scorers are judges (letter grades C/I/P/N to 1/0/0.5/0 with inspect's
``value_to_float``), the input and the output are text columns and the sample's
``target`` is kept. Needs the ``inspect`` extra (``pip install 'bacon_bayes[inspect]'``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.readers.meta import TableMeta


def looks_like(doc: Any) -> bool:
    """Whether parsed JSON is an Inspect AI log (``eval`` and ``version`` at the top)."""
    return isinstance(doc, dict) and "eval" in doc and "version" in doc and "status" in doc


def _graded(log: Any) -> set[str]:
    """Names of the scorers that called a model: a ``model`` option, or a ``grading``
    conversation in their score metadata (``model_graded_qa``, ``model_graded_fact``)."""
    names = {s.name for s in (log.eval.scorers or []) if (s.options or {}).get("model")}
    names |= {s.name for s in (log.eval.scorers or []) if s.name.startswith("model_graded")}
    for sample in log.samples or []:
        for name, score in (sample.scores or {}).items():
            if isinstance(score.metadata, dict) and "grading" in score.metadata:
                names.add(name)
    return names


def _text(value: Any) -> str:
    """A sample's input (a string or chat messages) as text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(getattr(m, "text", m)) for m in value)
    return json.dumps(value, ensure_ascii=False, default=str)


def read_inspect(path: str | Path) -> tuple[pd.DataFrame, TableMeta]:
    """Read an Inspect AI eval log.

    Parameters
    ----------
    path : str or Path
        An ``.eval`` or ``.json`` log written by ``inspect eval``.

    Returns
    -------
    frame : DataFrame
        One row per sample: ``id``, ``epochs``, ``input``, ``output`` (the first epoch's),
        ``target`` and one column per scorer (multi-valued scorers: ``scorer.key``), the
        mean over epochs.
    meta : TableMeta
        ``id`` as the item, the model-graded scorers as judges, the others in
        ``other_scores``; ``scores`` holds the long table with epochs as runs when a
        sample has more than one epoch.
    """
    try:
        from inspect_ai.log import read_eval_log
        from inspect_ai.scorer import value_to_float
    except ImportError as exc:
        raise ValidationError(
            f"{str(path)!r} is an Inspect AI log; reading it needs inspect_ai: "
            "pip install 'bacon_bayes[inspect]'"
        ) from exc
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # inspect raises its own errors for foreign files
        raise ValidationError(
            f"cannot read {str(path)!r} as an Inspect AI log ({type(exc).__name__}: "
            f"{str(exc)[:200]}); pass a .eval or .json log written by inspect eval."
        ) from exc
    if not log.samples:
        raise ValidationError(
            f"Inspect AI log {str(path)!r} holds no samples (status {log.status}); pass a "
            "log of a finished run, not a header-only one."
        )
    to_float = value_to_float()
    long: list[dict[str, Any]] = []
    first: dict[str, dict[str, Any]] = {}
    for sample in log.samples:
        sid = str(sample.id)
        if sid not in first:
            target = sample.target
            first[sid] = {
                "id": sid,
                "input": _text(sample.input),
                "output": sample.output.completion if sample.output else "",
                "target": target if isinstance(target, str) else json.dumps(target),
            }
        for name, score in (sample.scores or {}).items():
            values = score.value if isinstance(score.value, dict) else {None: score.value}
            for key, value in values.items():
                judge = name if key is None else f"{name}.{key}"
                number = np.nan if value is None else to_float(value)
                long.append({"item": sid, "judge": judge, "run": sample.epoch, "score": number})
    frame = pd.DataFrame(list(first.values()))
    scores = pd.DataFrame(long, columns=["item", "judge", "run", "score"])
    epochs = scores.groupby("item")["run"].nunique() if len(scores) else pd.Series(dtype=int)
    frame["epochs"] = frame["id"].map(epochs).fillna(1).astype(int)
    wide = scores.pivot_table(index="item", columns="judge", values="score", aggfunc="mean")
    names = list(dict.fromkeys(scores["judge"]))
    frame = frame.join(wide.reindex(columns=names), on="id")
    graded = _graded(log)
    judges = [n for n in names if n.split(".")[0] in graded]
    others = [n for n in names if n not in judges]
    notes = []
    if not names:
        notes.append(f"the log {str(path)!r} has no scores: run it with a scorer")
    elif not judges:
        notes.append(
            "no model-graded scorer in this log (its scorers: "
            f"{', '.join(others)}); pass --judge NAME to use one of them as a judge anyway"
        )
    many = int(frame["epochs"].max()) > 1
    if many:
        notes.append(
            f"{int(frame['epochs'].max())} epochs: each sample is one item, its epochs are "
            "runs of the judges (judge columns are their means; texts are the first epoch's)"
        )
    meta = TableMeta(
        format="inspect",
        item="id",
        judges=judges,
        text=["output", "input"],
        response="output",
        scores=scores[scores["judge"].isin(judges)].reset_index(drop=True) if many else None,
        other_scores=others,
        notes=notes,
        judge_kinds=dict.fromkeys(judges, "a model-graded scorer"),
    )
    return frame, meta
