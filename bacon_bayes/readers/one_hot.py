"""One answer written one-hot (a column per option, the one chosen marked), and the
Amazon Mechanical Turk batch results that write radio answers so.

Followed: MTurk's batch results CSV (``Batch_<id>_batch_results.csv``): one row per
assignment (a worker's answer to a HIT), ``HITId``, ``WorkerId``, ``AssignmentStatus``
(``Submitted``, ``Approved``, ``Rejected``), the HIT's inputs as ``Input.<name>`` and the
answers as ``Answer.<name>``; a crowd-html radio group ``<name>`` with options ``1``...``5``
as the columns ``Answer.<name>.1`` ... ``Answer.<name>.5`` of ``true`` / ``false``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.outputs import unused_name

#: cells that mark an option chosen (1) or not (0)
MARKS = {"true": 1.0, "false": 0.0, "1": 1.0, "0": 0.0, "1.0": 1.0, "0.0": 0.0}

#: ``<base>.<option>`` (MTurk) or ``<base>_<option>`` with a whole-number option
_OPTION = re.compile(r"^(?P<base>.+?)(?:\.(?P<any>[^.]+)|_(?P<num>\d+))$")

STATUS = "AssignmentStatus"


def marks(column: pd.Series) -> pd.Series:
    """A column of marks as 1.0 / 0.0 (``true`` / ``false``, ``1`` / ``0``), NaN where a
    cell is empty or none of these."""
    if pd.api.types.is_bool_dtype(column):
        return column.astype(float)
    text = column.astype("string").str.strip().str.lower()
    return text.map(MARKS, na_action="ignore").astype(float)


def marked(frame: pd.DataFrame, columns: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which of ``columns`` is marked on each row of ``frame``.

    Returns
    -------
    choice : ndarray of int
        The position in ``columns`` of the option marked (0 where none is).
    answered : ndarray of bool
        Rows with a mark (any of the columns filled).
    bad : ndarray of bool
        Answered rows without exactly one option at 1 and the others at 0 (or empty).
    """
    values = pd.DataFrame({c: marks(frame[c]) for c in columns})
    filled = frame[columns].notna() & frame[columns].astype("string").ne("")
    answered = filled.any(axis=1).to_numpy()
    ok = (values.fillna(0).isin([0, 1]).all(axis=1) & (values.sum(axis=1) == 1)).to_numpy()
    ok = ok & (values.notna() | ~filled).all(axis=1).to_numpy()  # no cell other than a mark
    return values.fillna(0).to_numpy().argmax(1), answered, answered & ~ok


def option_groups(frame: pd.DataFrame) -> dict[str, list[tuple[str, str]]]:
    """The answers written one-hot in ``frame``: base name -> its (column, option) pairs
    (``Answer.relevance`` -> ``[("Answer.relevance.1", "1"), ...]``), for groups of two
    columns or more whose cells are all marks, at most one option marked per row."""
    found: dict[str, list[tuple[str, str]]] = {}
    for c in frame.columns:
        if (m := _OPTION.match(str(c))) is not None:
            found.setdefault(m["base"], []).append((str(c), m["any"] or m["num"]))
    groups = {}
    for base, pairs in found.items():
        cols = [c for c, _ in pairs]
        if len(pairs) < 2 or frame[cols].notna().sum().sum() == 0:
            continue
        if all(marks(frame[c]).notna().sum() == frame[c].notna().sum() for c in cols):
            if not marked(frame, cols)[2].any():
                groups[base] = pairs
    return groups


def group_of(frame: pd.DataFrame, label: str) -> tuple[str, list[tuple[str, str]]] | None:
    """The one-hot answer ``label`` names (its base name, or one of its columns)."""
    for base, pairs in option_groups(frame).items():
        if label == base or label in (c for c, _ in pairs):
            return base, pairs
    return None


def batch_label(frame: pd.DataFrame) -> str | None:
    """An MTurk batch's one answer: its one ``Answer.*`` column of numbers, else its one
    answer written one-hot (its base name); None for another file, or several answers."""
    if STATUS not in frame.columns or "WorkerId" not in frame.columns:
        return None
    groups = [b for b in option_groups(frame) if b.startswith("Answer.")]
    in_groups = {c for b in groups for c, _ in option_groups(frame)[b]}
    numbers = [
        str(c)
        for c in frame.columns
        if str(c).startswith("Answer.")
        and c not in in_groups
        and frame[c].notna().any()
        and pd.api.types.is_numeric_dtype(frame[c])
    ]
    answers = numbers + groups
    return answers[0] if len(answers) == 1 else None


def rejected(frame: pd.DataFrame) -> int:
    """How many rows of an MTurk batch are rejected assignments."""
    if STATUS not in frame.columns:
        return 0
    return int(frame[STATUS].astype("string").str.strip().str.lower().eq("rejected").sum())


def keep_code(frame: pd.DataFrame) -> str:
    """The pandas code that leaves out an MTurk batch's rejected assignments from ``lab``
    (``""`` where it has none)."""
    return f"lab = lab[lab[{STATUS!r}].ne('Rejected')]; " if rejected(frame) else ""


def rejected_note(frame: pd.DataFrame) -> str:
    """What the averaging line does with rejected assignments (``""`` without any)."""
    n = rejected(frame)
    return (
        f"; {n} of its {len(frame)} rows are rejected assignments ({STATUS} 'Rejected'): "
        "the line leaves them out"
        if n
        else ""
    )


def one_hot_line(
    path: str | Path, frame: pd.DataFrame, key: str, base: str, pairs: list[tuple[str, str]]
) -> str:
    """Why a labels file's one-hot answer cannot be joined as it is, and the shell line
    that writes it as one column ``base`` (the option marked, a number where the options
    are), each item's mean of it (rejected assignments left out) into ``<stem>_mean.csv``,
    with what to pass then."""
    from bacon_bayes.csv_format import pandas_command, pandas_read

    options = [o for _, o in pairs]
    numeric = all(re.fullmatch(r"-?\d+(\.\d+)?", o) for o in options)
    values = [float(o) if numeric else o for o in options]
    values = [int(v) if isinstance(v, float) and v.is_integer() else v for v in values]
    cols = [c for c, _ in pairs]
    stem = Path(path).name.split(".")[0]
    out = unused_name(f"{stem}_mean")
    agg = "mean()" if numeric else "agg(lambda v: v.mode().iloc[0])"
    line = pandas_command(
        f"lab = {pandas_read(path, text=True)}; {keep_code(frame)}cols = {cols!r}; "
        f"m = lab[cols].apply(lambda s: s.str.strip().str.lower().isin(['true', '1'])); "
        f"lab[{base!r}] = pd.Series({values!r}, index=cols)[m.idxmax(axis=1)].to_numpy(); "
        f"lab = lab[m.sum(axis=1) == 1]; "
        f"lab.groupby({key!r}, as_index=False)[{base!r}].{agg}.to_csv({out!r}, index=False)"
    )
    return (
        f"columns {', '.join(map(repr, cols))} are one answer written one-hot (a column per "
        f"option, the one chosen marked true): one rating, {base!r}, the option marked"
        f"{rejected_note(frame)}. Write it as one column, each item's "
        f"{'mean' if numeric else 'commonest answer'} over its raters: {line}, then pass "
        f"--labels {shlex.quote(out)} --label {shlex.quote(base)} (one row per item)"
    )
