"""Checks of the fully labeled table of ``bacon simulate`` (the Monte Carlo and the
ablation): the named columns exist, and every label is a number the outcome allows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.io import row_place
from bacon_bayes.pairs import VERDICTS
from bacon_bayes.words import blank_cells

__all__ = ["check_table", "refuse_pilot"]

#: under this share of rows labeled, a table is a pilot, not a fully labeled one
PILOT_SHARE = 0.5


def check_table(
    frame: pd.DataFrame,
    label: str,
    columns: Sequence[str | None],
    embedding: str | None,
    *,
    outcome: str = "continuous",
    levels: Sequence[float] | None = None,
) -> None:
    """Refuse a table without the named columns (None: not used), without a column of
    the embedding prefix, with an empty or non-numeric label, or with a label that the
    ``outcome`` does not allow (outside ``levels``; negative for ``nonnegative``), as
    ``bacon estimate`` does (row and fix named)."""
    for col in (label, *columns):
        if col is not None and col not in frame.columns:
            raise ValidationError(f"column {col!r} is not in the table; pass an existing one.")
    if embedding is not None and not any(str(c).startswith(embedding) for c in frame.columns):
        raise ValidationError(
            f"no column starts with the embedding prefix {embedding!r}; pass the prefix of "
            "the embedding columns (e.g. emb_) or leave out --embedding."
        )
    y = pd.to_numeric(frame[label], errors="coerce")
    empty = blank_cells(frame[label])
    words = (y.isna() & ~empty).to_numpy()
    if words.any():  # cells of text, not empty ones: say which
        row = int(np.flatnonzero(words)[0])
        value = frame[label].iloc[row]
        votes = str(value).strip().lower() in VERDICTS
        raise ValidationError(
            f"label column {label!r} holds {value!r}, not a number, at {row_place(frame, row)} "
            f"({int(words.sum())} such rows): "
            + (
                "if these are votes on comparisons (A / B / tie), bacon simulate does not "
                "take comparisons (bacon estimate --pairwise estimates them); otherwise "
                if votes
                else ""
            )
            + "write the labels as numbers."
        )
    if y.isna().any():
        row = int(np.flatnonzero(y.isna().to_numpy())[0])
        raise ValidationError(
            f"label column {label!r} is empty at {row_place(frame, row)} "
            f"({int(y.isna().sum())} rows): bacon simulate needs a fully labeled table "
            "(it hides the labels itself); fill them in, or leave those rows out "
            "(--drop-unlabeled)."
        )
    _check_label_values(y.to_numpy(float), label, outcome, levels)


def refuse_pilot(frame: pd.DataFrame, label: str, plan: str) -> None:
    """Refuse a table whose ``label`` has a value on under :data:`PILOT_SHARE` of its
    rows: a pilot's few labels, not the fully labeled table whose labels bacon simulate
    hides; ``plan``: the ``bacon plan`` command that plans from them. Cells of text are
    counted as filled: :func:`check_table` names them."""
    empty = blank_cells(frame[label])
    n, rows = int((~empty).sum()), len(frame)
    if rows == 0 or n >= PILOT_SHARE * rows:
        return
    raise ValidationError(
        f"label column {label!r} has a value on {n} of {rows} rows ({n / rows:.0%}): bacon "
        "simulate hides the labels of a fully labeled table to compare designs and "
        f"budgets, and --drop-unlabeled would simulate on those {n} rows alone, as if they "
        "were the whole table. With a pilot of few labels, bacon plan gives the labels "
        f"each design needs: {plan}"
    )


def _check_label_values(
    y: np.ndarray, label: str, outcome: str, levels: Sequence[float] | None
) -> None:
    """Labels the outcome does not allow: off the levels, or negative when nonnegative."""
    if levels is not None:
        bad = ~np.isin(y, np.asarray(levels, dtype=float))
        rule = f"not one of the levels {[float(v) for v in levels]} (--levels)"
        fix = "fix the label, round it to a level, add it to --levels"
    elif outcome == "nonnegative":
        bad = y < 0
        rule = "negative, but a nonnegative outcome must be >= 0"
        fix = "fix the label, negate scores such as -MQM first"
    else:
        return
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValidationError(
            f"label column {label!r} is {float(y[row])!r} in row {row} ({int(bad.sum())} "
            f"rows), which is {rule}; {fix}, or declare the outcome continuous."
        )
