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
from bacon_bayes.doctor.names import BLOCK_NAME, GROUP_NAME, ID_LIKE, NOT_JUDGE, PROMPT_ID

#: the share of a full crossing (every value of one column with every value of the other)
#: that two columns of codes must fill, each pair of values on one row at most
CROSSED = 0.9
#: a column of whole numbers that ranks the rows this closely (Spearman) as another
#: numeric column does holds scores (a 1-5 judge beside the others), not prompts' numbers
TRACKS = 0.5
#: ... when it has at most this many levels (a rating scale's), as the other column has
#: (or it is continuous: a judge's probabilities, a mean label)
SCALE_LEVELS = 11
#: the rows read to tell it (a sample of a large table)
TRACK_ROWS = 5000
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


def tracks_scores(frame: pd.DataFrame, column: str, taken: Collection[object]) -> bool:
    """Whether the whole numbers of ``column`` rank the rows as another numeric column of
    ``frame`` (not ``taken``: the id, the group) does, a Spearman correlation of at least
    :data:`TRACKS` on the rows both fill (the first :data:`TRACK_ROWS`): a judge's scores
    following the other judges' or the label, not the numbers of prompts, which no score
    follows. A 1-5 judge of a small table (10 items per system) shares its five levels
    among the systems as a prompt's numbers are shared, and was taken for the prompt.
    Only columns of at most :data:`SCALE_LEVELS` levels are such, beside scores: a column
    named like a prompt's number, an id, a count or a batch (``seg_id`` rising with
    ``doc_id``) is neither."""
    if PROMPT_ID.search(column) or ID_LIKE.search(column):
        return False
    head = frame.iloc[:TRACK_ROWS]
    own = numeric(head[column])
    if own is None or not 3 <= own.nunique() <= SCALE_LEVELS:
        return False
    ranks = own.rank()
    for c in map(str, head.columns):
        named = any(p.search(c) for p in (PROMPT_ID, ID_LIKE, NOT_JUDGE, BLOCK_NAME))
        other = None if c == column or c in taken or named else numeric(head[c])
        if other is None or pd.api.types.is_bool_dtype(head[c]) or other.nunique() < 3:
            continue
        if integers(other) and other.nunique() > SCALE_LEVELS:  # numbers of things
            continue
        both = ranks.notna() & other.notna()
        if both.sum() >= 5 and ranks[both].corr(other[both].rank()) >= TRACKS:
            return True
    return False
