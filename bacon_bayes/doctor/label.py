"""Which column holds the human labels: the one named (``--label``), else a sparse
numeric column, with why; the other sparse columns left out, each with why."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

import pandas as pd

from bacon_bayes.doctor.cells import (
    COMMAS,
    COMMAS_FIX,
    LABEL_CELLS_FIX,
    decimal_commas,
    numeric,
    text_cells,
)
from bacon_bayes.doctor.names import LABEL_HINT
from bacon_bayes.errors import ValidationError

#: a column is dense when at least this share of rows has a value, sparse below
DENSE = 0.5


@dataclass
class LabelChoice:
    """The label column found (None: none), why (``""``: nothing to say), and the other
    candidates left out, each with why."""

    label: str | None = None
    reason: str = ""
    left_out: dict[str, str] = field(default_factory=dict)


def _values(s: pd.Series) -> str:
    n = int(s.notna().sum())
    return f"{n} value{'' if n == 1 else 's'}"


def choose_label(
    frame: pd.DataFrame, kind: str, given: str | None, joined: bool, item: str | None
) -> LabelChoice:
    """The label column of ``frame`` (a file of format ``kind``): ``given`` (``--label``,
    from a ``--labels`` file when ``joined``), refused when it is not numeric, else the
    sparse numeric column named like a label with the most values (not the ``item``)."""
    if given is not None:
        if given in frame.columns and numeric(frame[given]) is None:
            cells = text_cells(frame, given, kind)
            commas = decimal_commas(frame[given])
            raise ValidationError(
                f"--label {given!r} holds labels but for {cells}: {LABEL_CELLS_FIX}, and run again"
                if cells
                else f"--label {given!r} holds {COMMAS} {commas}: {COMMAS_FIX}, and run again"
                if commas
                else f"--label {given!r} is not numeric (e.g. "
                f"{frame[given].dropna().iloc[0]!r}); a label column holds numbers (or "
                "verdict words such as yes / no)"
            )
        if given not in frame.columns:
            return LabelChoice()
        n = int(frame[given].notna().sum())
        how = "from --labels" if joined else "--label"
        return LabelChoice(given, f"{how}: {n} of {len(frame)} rows labeled")
    sparse = []
    for c in frame.columns:
        num = numeric(frame[c])
        if num is not None and c != item and 2 <= num.notna().sum() < DENSE * len(frame):
            sparse.append(str(c))
    if not sparse:
        return LabelChoice(reason=_no_sparse(frame, item))
    sparse.sort(key=lambda c: (not LABEL_HINT.search(c), -frame[c].notna().sum()))
    label = sparse[0]
    n = int(frame[label].notna().sum())
    hint = "named like a label, " if LABEL_HINT.search(label) else ""
    out = LabelChoice(label, f"{hint}numeric and sparse: {n} of {len(frame)} rows have a value")
    for c in sparse[1:]:
        k = int(frame[c].notna().sum())
        out.left_out[c] = (
            f"numeric and sparse ({k} of {len(frame)} rows), but {label} was taken as "
            f"the label; pass --label {shlex.quote(str(c))} to use this one"
        )
    return out


def _no_sparse(frame: pd.DataFrame, item: str | None) -> str:
    """Why no column was taken as the label when none is sparse: the columns named like
    one, with too few values or with a value on most rows (``""``: none such)."""
    dense = [
        str(c)
        for c in frame.columns
        if LABEL_HINT.search(str(c)) and numeric(frame[c]) is not None and c != item
    ]
    few = [c for c in dense if frame[c].notna().sum() < 2]
    dense = [c for c in dense if c not in few]
    said = [f"{c}, named like a label, has {_values(frame[c])}" for c in few]
    if dense:
        shown = ", ".join(dense[:4]) + (f" and {len(dense) - 4} more" if len(dense) > 4 else "")
        said.append(f"numeric columns named like human ratings, with a value on most rows: {shown}")
    if not said:
        return ""
    return (
        f"no numeric column with a value on 2 or more but under {DENSE:.0%} of rows; "
        f"{'; '.join(said)}; pass --label NAME to use one as the label"
    )
