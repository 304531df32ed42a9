"""Preference datasets: a ``chosen`` and a ``rejected`` answer per row (Anthropic HH-RLHF,
UltraFeedback binarized and the Hub's other preference sets, often with ``prompt`` and
``score_chosen`` / ``score_rejected``).

Such a set's every verdict is "chosen wins", always in the same column: there are no
positions to calibrate a judge on as it is. :func:`as_positions` puts each row's two
answers in random positions (``response_a``, ``response_b``) with the vote where the
chosen one landed, a table of comparisons a judge's verdicts can be collected on;
:func:`doctor_text` is what ``bacon doctor`` says of such a set, with the line that
writes it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["as_positions", "doctor_text", "looks_like", "paired_columns"]

SIDES = ("chosen", "rejected")


def looks_like(columns: Sequence[Any]) -> bool:
    """Whether a table's columns are a preference dataset's: ``chosen`` and ``rejected``
    (any case), and no ``model_a`` / ``model_b`` of a table of comparisons."""
    names = {str(c).lower() for c in columns}
    return set(SIDES) <= names and not {"model_a", "model_b"} & names


def _column(frame: pd.DataFrame, name: str) -> str:
    return next(str(c) for c in frame.columns if str(c).lower() == name)


def paired_columns(frame: pd.DataFrame) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The columns written once per side, ``X_chosen`` beside ``X_rejected`` (any place of
    the word: ``chosen-rating``, ``score_chosen``): the ratings (numbers) and the models
    (columns named ``model``)."""
    ratings, models = [], []
    for c in map(str, frame.columns):
        other = c.replace("chosen", "rejected").replace("Chosen", "Rejected")
        if c.lower() == "chosen" or other == c or other not in frame.columns:
            continue
        if pd.api.types.is_numeric_dtype(frame[c]) and pd.api.types.is_numeric_dtype(frame[other]):
            ratings.append((c, other))
        elif "model" in c.lower():
            models.append((c, other))
    return ratings, models


def _answer(cell: Any) -> Any:
    """A cell's answer: the last message's content of a conversation written as a JSON
    list of messages (UltraFeedback's ``[{"role": "user", ...}, {"role": "assistant",
    ...}]``), else the cell as it is (HH-RLHF's whole dialogue)."""
    if isinstance(cell, str) and cell.lstrip().startswith("["):
        try:
            cell = json.loads(cell)
        except ValueError:
            return cell
    if isinstance(cell, list) and cell and all(isinstance(m, dict) for m in cell):
        said = [m for m in cell if m.get("role") == "assistant"] or cell
        return said[-1].get("content", said[-1])
    return cell


def as_positions(path: str | Path, seed: int = 0) -> pd.DataFrame:
    """A preference dataset as comparisons with random positions.

    Parameters
    ----------
    path : str or Path
        Any file :func:`~bacon_bayes.readers.read_any` reads, with ``chosen`` and
        ``rejected`` columns.
    seed : int
        The seed of the positions (one coin per row).

    Returns
    -------
    DataFrame
        ``id`` (``prompt_id`` where unique, else the row number from 0), ``prompt`` (when
        the set has one), ``response_a``, ``response_b`` (the answers, a conversation's
        last message), ``model_a``, ``model_b`` (the models of the set's model columns,
        else which side each answer came from: ``chosen`` / ``rejected``), ``winner`` (``A``
        or ``B``: where the chosen answer landed) and, per pair of ratings (``score_chosen``
        / ``score_rejected``), ``rating`` (``A`` / ``B`` / ``tie``: the position rated
        higher; ``rating_<name>`` for a second pair) with the ratings of each position
        (``rating_a``, ``rating_b``).
    """
    from bacon_bayes.readers import read_any

    frame = read_any(path)[0]
    chosen, rejected = _column(frame, "chosen"), _column(frame, "rejected")
    swap = np.random.default_rng(seed).random(len(frame)) < 0.5  # the chosen answer is B
    out = pd.DataFrame(index=frame.index)
    ids = frame["prompt_id"] if "prompt_id" in frame.columns else None
    out["id"] = ids if ids is not None and ids.is_unique else np.arange(len(frame))
    if "prompt" in frame.columns:
        out["prompt"] = frame["prompt"]

    def placed(c: str, r: str) -> tuple[Any, Any]:
        return frame[c].where(~swap, frame[r]), frame[r].where(~swap, frame[c])

    out["response_a"], out["response_b"] = placed(chosen, rejected)
    for c in ("response_a", "response_b"):
        out[c] = out[c].map(_answer)
    ratings, models = paired_columns(frame)
    if models:
        out["model_a"], out["model_b"] = placed(*models[0])
    else:
        out["model_a"] = np.where(swap, "rejected", "chosen")
        out["model_b"] = np.where(swap, "chosen", "rejected")
    out["winner"] = np.where(swap, "B", "A")
    for k, (c, r) in enumerate(ratings):
        name = "rating" if k == 0 else f"rating_{c}"
        a, b = placed(c, r)
        out[name] = np.select([a > b, a < b, a == b], ["A", "B", "tie"], default="")
        out[name] = out[name].replace("", None)  # a rating missing: no verdict
        out[f"{name}_a"], out[f"{name}_b"] = a, b  # the numbers, of each position
    return out.reset_index(drop=True)


def doctor_text(frame: pd.DataFrame, path: str | Path) -> str:
    """``bacon doctor`` on a preference dataset: what it is, why it calibrates no judge as
    it is, the line that puts its answers in random positions and what to do then; its
    ratings (``score_chosen`` / ``score_rejected``) said to be the rating tool's, a judge."""
    from bacon_bayes.csv_format import python_command
    from bacon_bayes.outputs import unused_name

    path = Path(path)
    out = unused_name(f"{path.name.split('.')[0]}_positions")
    line = python_command(
        "from bacon_bayes.readers.preferences import as_positions; "
        f"as_positions({str(path)!r}, seed=0).to_csv({out!r}, index=False)"
    )
    ratings, models = paired_columns(frame)
    shown = ", ".join(map(str, frame.columns[:8])) + (", ..." if frame.shape[1] > 8 else "")
    ranked = (
        f"the models in {models[0][0]!r} / {models[0][1]!r} become model_a / model_b"
        if models
        else "it names no models, so it ranks none: model_a / model_b say which side each "
        "answer came from (chosen / rejected); what it gives is a judge's calibration "
        "against the votes (position bias, kappa, AUC)"
    )
    text = [
        f"{path}: a preference dataset ({shown}), {len(frame)} rows: a chosen and a rejected "
        "answer per row.",
        "  Every row's human verdict is 'chosen wins', and the chosen answer is always in the "
        "same column, so as it is there are no positions to calibrate a judge on (a judge "
        "always picking the first answer would agree with every vote) and no estimate to run.",
        "  To use it, put each row's two answers in random positions (response_a, "
        "response_b; winner A or B where the chosen one landed; " + ranked + "):",
        f"  {line}",
        f"  then collect your judge's verdicts (A / B / tie) on response_a vs response_b of "
        f"each row of {out} (the judge must see the answers in those positions), add them "
        f"as a column, and run: bacon doctor {shlex.quote(out)}",
    ]
    for k, (c, r) in enumerate(ratings):
        higher = int((frame[r] > frame[c]).sum())
        text.append(
            f"  {c!r} and {r!r} are ratings of the two answers by the dataset's own rating "
            "tool (GPT-4's in UltraFeedback), not human votes: usable as a judge, which the "
            f"line writes as the column {'rating' if k == 0 else f'rating_{c}'!r} (A / B / "
            "tie: the position rated higher)."
        )
        if higher == 0:
            text.append(
                "  They never rate the rejected answer higher: the chosen answer was "
                "picked by them (UltraFeedback binarized takes the highest rated), so "
                "'chosen wins' is that tool's verdict, not a person's, and as a judge the "
                "ratings would copy it; to calibrate them, collect human votes on some rows."
            )
        else:
            text.append(
                f"  They rate the rejected answer higher on {higher} of {len(frame)} rows: "
                "there they disagree with the vote."
            )
    return "\n".join(text)
