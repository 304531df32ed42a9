"""Checks of the Python API's arguments: their types and forms.

A notebook user who passes the wrong kind of value (a Series of scores for the judges'
names, the command line's ``"1:5"`` for a scale) gets a message naming the argument and
the form it takes, not a traceback from deep inside numpy.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError


def _kind(value: Any) -> str:
    """What ``value`` is, in words (``a numpy array of shape (1200, 3)``)."""
    if isinstance(value, pd.Series):
        return f"a pandas Series{f' ({value.name!r})' if value.name is not None else ''}"
    if isinstance(value, np.ndarray):
        return f"a numpy array of shape {value.shape}"
    return f"{type(value).__name__} {value!r}"


def judge_columns(judges: Any, label: str, columns: pd.Index) -> list[Any]:
    """The judge columns named by ``judges`` of ``EvalPool.from_frame`` (a name or a list
    of names), checked: at least one, the label not among them, none twice.

    Parameters
    ----------
    judges : str or sequence of column names
        The argument as given (a long table is handled by the caller).
    label : str
        The label column.
    columns : Index
        The table's columns (a list of values that are not columns is judged by them).

    Returns
    -------
    list
        The judge columns, in the order given.
    """
    if isinstance(judges, str):
        return [judges]
    named = isinstance(judges, (list, tuple, pd.Index)) or (
        isinstance(judges, (np.ndarray, pd.Series)) and np.ndim(judges) == 1
    )
    values = list(judges) if named else []
    if (
        not named
        or not all(isinstance(j, Hashable) for j in values)
        or (
            isinstance(judges, (np.ndarray, pd.Series))
            and np.asarray(judges).dtype.kind in "fiub"
            and not all(j in columns for j in values)
        )
    ):
        name = getattr(judges, "name", None)
        example = [name] if name in columns else ["judge_a", "judge_b"]
        raise ValidationError(
            f"judges must be the names of the judge columns or a long table with columns "
            f"item, judge, score; got {_kind(judges)}, which looks like scores, not names. "
            f"Pass the column names, e.g. judges={example!r}."
        )
    if len(values) == 0:
        raise ValidationError("no judge columns given; pass at least one judge.")
    if label in values:
        raise ValidationError(
            f"label column {label!r} is also listed as a judge; a label cannot be a judge."
        )
    if len(set(values)) != len(values):
        twice = next(j for k, j in enumerate(values) if j in values[:k])
        raise ValidationError(f"judge column {twice!r} is listed twice; list each judge once.")
    return values
