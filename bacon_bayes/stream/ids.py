"""Repeated item ids over a whole stream, found without keeping the ids.

The first pass keeps each chunk's ids as 64-bit hashes of their text (8 bytes a row:
800 MB for 100 million rows, where a Python set of the strings would take several GB);
when it is through they are sorted once and a hash seen twice marks a repeated id. Only
then (a run about to be refused) are the files' ids read again, in row order, to find
the first row whose id an earlier row has, and its two ids compared as text: two ids
whose hashes collide (for 100 million distinct ids a chance of about n^2 / 2^65, 3 in
10,000) are not taken for one. The count of repeated ids in the message is that of
repeated hashes.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.compiled import njit_cached
from bacon_bayes.errors import ValidationError
from bacon_bayes.stream.source import Columns, Frame, Piece, locate, read_frames

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


def _hash_kernel(offsets, data):  # pragma: no cover (compiled)
    """FNV-1a of each string's bytes with splitmix64's finaliser, and the first string
    of no character but ASCII spaces (-1: none)."""
    n = offsets.size - 1
    out = np.empty(n, np.uint64)
    blank = -1
    for i in range(n):
        h = _FNV_OFFSET
        empty = True
        for k in range(offsets[i], offsets[i + 1]):
            c = data[k]
            if c != 32 and (c < 9 or c > 13):
                empty = False
            h = (h ^ np.uint64(c)) * _FNV_PRIME
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
        out[i] = h
        if empty and blank < 0:
            blank = i
    return out, blank


@functools.cache
def _compiled() -> Any:
    return njit_cached(_hash_kernel, nogil=True)  # nogil: chunks run on threads


def _text(frame: Frame, col: str) -> Any:
    """Column ``col`` of a frame as an Arrow string array (numbers as their text)."""
    import pyarrow as pa

    if isinstance(frame, pd.DataFrame):
        values = frame[col].to_numpy()
        try:
            arr = pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed numbers and text
            s = pd.Series(values, dtype=object)
            arr = pa.array(s.where(s.isna(), s.astype(str)), type=pa.string(), from_pandas=True)
    else:
        arr = frame.column(col)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    return arr


def id_hashes(frame: Frame, col: str) -> tuple[np.ndarray, int]:
    """64-bit hashes of the ids in column ``col`` of ``frame`` (of their text, so the
    number 7 and the text ``7`` are one id), and the first row whose id is missing or
    blank (-1: none)."""
    import pyarrow as pa

    arr = _text(frame, col)
    n = len(arr)
    width = np.int32 if pa.types.is_string(arr.type) else np.int64
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=width)[arr.offset : arr.offset + n + 1]
    data = np.zeros(0, np.uint8) if bufs[2] is None else np.frombuffer(bufs[2], dtype=np.uint8)
    hashes, blank = _compiled()(offsets, data)
    if arr.null_count:
        nulls = np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))
        blank = int(nulls[0]) if blank < 0 else min(blank, int(nulls[0]))
    return hashes, int(blank)


def _id_at(pieces: Sequence[Piece], columns: Columns, chunk_rows: int, row: int) -> Any:
    """The id of global row ``row``, read again from its file."""
    piece = pieces[max(0, bisect_right([p.start for p in pieces], row) - 1)]
    for start, frame in read_frames(piece, columns, chunk_rows):
        if start <= row < start + len(frame):
            return _text(frame, str(columns.item))[row - start].as_py()
    raise AssertionError(f"row {row} not in {piece}")  # pragma: no cover


def _rows_of(
    repeated: np.ndarray, pieces: Sequence[Piece], columns: Columns, chunk_rows: int
) -> Iterator[tuple[int, Frame, np.ndarray, np.ndarray]]:
    """The frames of the stream read again, in row order, each with its first global row,
    its rows whose id hash is in ``repeated`` (sorted) and those hashes' positions in
    ``repeated``."""
    col = str(columns.item)
    for piece in pieces:
        for start, frame in read_frames(piece, columns, chunk_rows):
            hashes, _ = id_hashes(frame, col)
            at = np.minimum(np.searchsorted(repeated, hashes), repeated.size - 1)
            pos = np.flatnonzero(repeated[at] == hashes)
            yield start, frame, pos, at[pos]


def _first_by_hash(
    repeated: np.ndarray, skip: np.ndarray, pieces: Sequence[Piece], columns: Columns,
    chunk_rows: int,
) -> tuple[Any, int, int, int] | None:  # fmt: skip
    """The first row (in row order) whose id hash an earlier row has, among the hashes of
    ``repeated`` not in ``skip``: its id, the earlier row, the row and the hash's
    position in ``repeated`` (None: no such row)."""
    first = np.full(repeated.size, -1, dtype=np.int64)  # each hash's first row
    for start, frame, pos, d in _rows_of(repeated, pieces, columns, chunk_rows):
        keep = ~skip[d]
        pos, d = pos[keep], d[keep]
        uniq, where = np.unique(d, return_index=True)
        later = np.ones(d.size, dtype=bool)
        later[where] = first[uniq] >= 0  # a first row here: a repeat of another chunk
        if later.any():
            k = int(np.argmax(later))
            h = int(d[k])
            r1 = int(first[h]) if first[h] >= 0 else start + int(pos[d == h][0])
            text = _text(frame, str(columns.item))[int(pos[k])].as_py()
            return text, r1, start + int(pos[k]), h
        first[uniq] = start + pos[where]
    return None


def _first_by_text(
    repeated: np.ndarray, pieces: Sequence[Piece], columns: Columns, chunk_rows: int
) -> tuple[Any, int, int] | None:
    """The first row whose id an earlier row has, among the rows of the (few) hashes of
    ``repeated`` that two different ids share, their ids compared as text."""
    rows, texts = [], []
    for start, frame, pos, _ in _rows_of(repeated, pieces, columns, chunk_rows):
        rows.append(start + pos)
        texts.extend(_text(frame, str(columns.item)).take(pos).to_pylist())
    ids = pd.Series(texts)
    again = ids.duplicated().to_numpy()
    if not again.any():
        return None
    k = int(np.argmax(again))
    every = np.concatenate(rows)
    return texts[k], int(every[int(np.argmax((ids == texts[k]).to_numpy()))]), int(every[k])


def _first_repeat(
    repeated: np.ndarray, pieces: Sequence[Piece], columns: Columns, chunk_rows: int
) -> tuple[Any, int, int] | None:
    """The first row (in row order) whose id an earlier row has, among rows whose hash is
    in ``repeated`` (sorted): the id and both rows; None when every repeated hash was
    different ids colliding. A pair of rows of one hash is compared as text; a hash
    found to hold two ids is left to :func:`_first_by_text`."""
    skip = np.zeros(repeated.size, dtype=bool)  # hashes of two different ids
    found = None
    while found is None:
        pair = _first_by_hash(repeated, skip, pieces, columns, chunk_rows)
        if pair is None:
            break
        text, r1, r2, h = pair
        if _id_at(pieces, columns, chunk_rows, r1) == text:
            found = (text, r1, r2)
        else:
            skip[h] = True
    if skip.any():
        shared = _first_by_text(repeated[skip], pieces, columns, chunk_rows)
        if shared is not None and (found is None or shared[2] < found[2]):
            found = shared
    return found


def repeated_ids(
    hashes: list[np.ndarray], pieces: Sequence[Piece], columns: Columns, chunk_rows: int
) -> None:
    """Refuse a stream whose rows share an item id (a file copied twice, rows repeated),
    labeled or not, as :meth:`bacon_bayes.EvalPool.from_frame` refuses a table's.

    ``hashes``: the first pass's :func:`id_hashes`, one array per chunk in any order;
    the list is emptied (its memory freed before the sort).

    Raises
    ------
    ValidationError
        An id on two rows: the id, where each row is, how many ids repeat and the fix.
    """
    if not hashes or columns.item is None:
        return
    every = np.empty(sum(h.size for h in hashes), dtype=np.uint64)
    at = 0
    while hashes:
        part = hashes.pop()
        every[at : at + part.size] = part
        at += part.size
        del part
    every.sort()
    twice = every[1:] == every[:-1]
    if not twice.any():
        return
    repeated = np.unique(every[1:][twice])
    del every, twice
    found = _first_repeat(repeated, pieces, columns, chunk_rows)
    if found is None:
        return
    same, r1, r2 = found
    more = repeated.size - 1
    also = f" (and {more:,} more repeated id{'s' * (more > 1)})" if more else ""
    raise ValidationError(
        f"item id column {columns.item!r} has a duplicate id {same!r} at "
        f"{locate(pieces, r1)} and {locate(pieces, r2)}{also}; ids must be unique (one row "
        "per item): a file copied twice or repeated rows would count an item twice. Remove "
        "the copies; if that column does not name the items, pass --item naming the one "
        "that does."
    )


def blank_id(piece: Piece, row: int, col: str) -> ValidationError:
    """The error for a missing or blank id at global row ``row`` of ``piece``."""
    return ValidationError(
        f"{locate([piece], row)}, column {col!r}: the item id is empty; give every item an "
        "id, or pass --item naming the column that has one for every row."
    )
