"""The checks a run of the jury passes before it opens any file or sends any call:
its inputs and settings (:func:`check_inputs`) and what sending needs, aiohttp and each
judge's API key (:func:`ready_to_send`), so that a refused run leaves no output, cache
or log behind."""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.judges.client import JudgeSpec

__all__ = ["check_inputs", "ready_to_send"]


def check_inputs(
    items: pd.DataFrame,
    judges: Sequence[JudgeSpec],
    id_col: str,
    runs: int,
    concurrency: int,
    timeout: float = 60.0,
) -> None:
    """Refuse items, a panel or settings a run cannot use, before anything is opened.

    Parameters
    ----------
    items : pandas.DataFrame
        One row per item, with unique ids in ``id_col``.
    judges : sequence of JudgeSpec
        The panel: at least one judge, names apart, rate limits positive.
    id_col : str
        The items' id column.
    runs, concurrency : int
        Calls per item and judge, and calls in flight: at least 1.
    timeout : float
        Seconds per attempt: positive and finite.

    Raises
    ------
    ValidationError
        Naming the setting or column at fault and the fix.
    """
    if id_col not in items.columns:
        raise ValidationError(
            f"items have no id column {id_col!r} (columns: {', '.join(map(str, items.columns))}); "
            "pass --item COLUMN naming the id column"
        )
    ids = items[id_col]
    if ids.isna().any():
        raise ValidationError(
            f"id column {id_col!r} is empty in row {int(ids.isna().to_numpy().argmax())}; "
            "give every item an id"
        )
    dup = ids[ids.duplicated()]
    if len(dup):
        raise ValidationError(
            f"id column {id_col!r} has duplicate id {dup.tolist()[0]!r}; ids must be unique"
        )
    if not judges:
        raise ValidationError("no judge given; pass at least one --judge MODEL")
    names = [j.name for j in judges]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValidationError(
            f"judge name {twice[0]!r} is used twice; name them apart (NAME=MODEL@URL)"
        )
    for j in judges:  # before the cache opens (the rate limiter would refuse it later)
        if j.rate is not None and not (math.isfinite(j.rate) and j.rate > 0):
            raise ValidationError(
                f"judge {j.name!r}: rate limit (--rate) must be a positive number of requests "
                f"per second, got {j.rate!r}; leave it out for no limit"
            )
    if runs < 1:
        raise ValidationError(f"runs must be at least 1, got {runs}")
    if concurrency < 1:
        raise ValidationError(f"concurrency must be at least 1, got {concurrency}")
    if not (isinstance(timeout, int | float) and math.isfinite(timeout) and timeout > 0):
        raise ValidationError(
            "timeout (--timeout) must be a positive number of seconds per attempt, got "
            f"{timeout!r} (0 or less would wait for a hung endpoint forever); e.g. --timeout 60"
        )


def ready_to_send(judges: Sequence[JudgeSpec]) -> None:
    """Refuse a run that could not send a call: aiohttp (the extra ``judge``) missing, or
    the environment variable of a judge's API key unset. Called before the cache, the
    output or the log is opened (tester, session 41: both were found only at the first
    call, after those files were made).

    Parameters
    ----------
    judges : sequence of JudgeSpec
        The judges that have calls to send.

    Raises
    ------
    ValidationError
        Naming what to install, or the variable to export (or ``--api-key-env ''``).
    """
    try:
        importlib.import_module("aiohttp")
    except ImportError as exc:
        raise ValidationError(
            "bacon judge needs aiohttp to send its calls, and it is not installed: "
            "pip install 'bacon_bayes[judge]' (--dry-run counts the calls without it)"
        ) from exc
    for judge in judges:
        judge.api_key()  # refuses an unset variable, naming the judge and the fix
