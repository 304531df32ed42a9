"""Numeric columns that hold codes, not scores: whole numbers naming a group (a system
written ``8``, ``9``, ... ``23``), found by their name (:data:`GROUP_NAME`) or, named like
nothing, by their shape: a few values, each on many rows, crossed with another column of
codes (every system on a row with every document). Taken for a judge, such a column
calibrates on which systems are good."""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd

from bacon_bayes.doctor.cells import is_str, numeric
from bacon_bayes.doctor.names import GROUP_NAME

#: the share of a full crossing (every value of one column with every value of the other)
#: that two columns of codes must fill, each pair of values on one row at most
CROSSED = 0.9
#: two columns of codes are looked for as crossed in tables of at least this many rows (in
#: a few rows two judges' scores may meet once each by chance)
CROSSED_ROWS = 40


def row_number(values: pd.Series) -> bool:
    """0..n-1 or 1..n in order: a row number."""
    v = values.to_numpy()
    return bool(len(v) > 2 and np.all(np.diff(v) == 1) and v[0] in (0, 1))


def whole_numbers(values: pd.Series) -> bool:
    """Integers, or floats that are all whole numbers (``1.0, 2.0``: ids a spreadsheet or
    pandas wrote as floats once the column had a blank)."""
    if pd.api.types.is_integer_dtype(values):
        return True
    if not pd.api.types.is_float_dtype(values):
        return False
    v = values.to_numpy(dtype=float)
    return bool(np.isfinite(v).all() and (v == np.round(v)).all())


def integers(num: pd.Series) -> bool:
    """Whether the filled values of ``num`` are whole numbers (at least one)."""
    v = num.dropna().to_numpy()
    return bool(v.size and np.all(v == np.round(v)))


def _codes(frame: pd.DataFrame, taken: Collection[object]) -> dict[str, pd.Series]:
    """The columns of whole numbers on every row (not booleans, not ``taken``)."""
    out = {}
    for c in map(str, frame.columns):
        num = numeric(frame[c])
        if c in taken or num is None or pd.api.types.is_bool_dtype(frame[c]):
            continue
        if num.notna().all() and integers(num):
            out[c] = num
    return out


def group_codes(frame: pd.DataFrame, taken: Collection[object]) -> list[str]:
    """Columns of whole numbers named like a group (:data:`GROUP_NAME`): a system or
    model written as a code (``system`` 8, 9, ... 23), never a judge."""
    return [c for c in _codes(frame, taken) if GROUP_NAME.match(c)]


def crossed_codes(frame: pd.DataFrame, taken: Collection[object], most: int) -> dict[str, str]:
    """Columns of whole numbers named like no group whose at most ``most`` values each
    meet every value of another such column, or of a column of strings, each pair on as
    many rows as the others (one) (``ver`` 8..23 and ``src`` 1..100 of 1,200 rows, or
    ``ckpt`` 1..12 and ``doc_id`` 'dm-test-...': systems crossed with documents): each
    with that other column. A judge's scores meet another's (or a document's) on many
    rows each."""
    codes = _codes(frame, taken)
    sizes = {c: int(s.nunique()) for c, s in codes.items()}
    n, out = len(frame), dict[str, str]()
    if n < CROSSED_ROWS:
        return out
    # the documents may be named by strings (``doc_id`` 'dm-test-8764...') beside a
    # system written as numbers (``ckpt`` 1..12)
    words = {str(c): int(frame[c].nunique()) for c in frame.columns}
    partners = {**sizes, **{c: k for c, k in words.items() if c not in taken and c not in sizes
                            and is_str(frame[c]) and frame[c].notna().all()}}  # fmt: skip
    for c, k in sizes.items():
        if GROUP_NAME.match(c) or not 2 <= k <= min(most, n // 2):
            continue
        for d, kd in partners.items():  # the finer column: the documents the groups share
            if d == c or kd <= k or n < CROSSED * k * kd:
                continue
            if _balanced(frame[c], frame[d], k * kd):
                out[c] = d
                break
    return out


def _balanced(c: pd.Series, d: pd.Series, cells: int) -> bool:
    """Whether the values of ``c`` and ``d`` fill :data:`CROSSED` of their ``cells``
    pairs, each value of ``c`` meeting each value of ``d`` it meets on as many rows as
    the others (once; or twice where two systems were given one code)."""
    pairs = pd.DataFrame({"c": c.to_numpy(), "d": d.to_numpy()}).value_counts()
    if len(pairs) < CROSSED * cells:
        return False
    return bool((pairs.groupby(level="c").nunique() == 1).all())
