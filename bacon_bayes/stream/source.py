"""Reading a pool that does not fit in memory: a Parquet file, a folder of Parquet files
(a dataset) or CSV files, as pieces (one Parquet row group or one CSV file) read in
chunks of rows. Every file's schema is checked before any row is read, and every value
that cannot be used stops the run with its file, row and column named."""

from __future__ import annotations

import contextlib
import fnmatch
import sys
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.csv_format import csv_options, pandas_command, table_header
from bacon_bayes.errors import BaconError, ValidationError
from bacon_bayes.io import grouped_numbers, own_decimal_commas
from bacon_bayes.words import as_numbers, minus_signs, says_missing, unread

PARQUET = (".parquet", ".pq")
CSV = (".csv", ".csv.gz", ".csv.bz2", ".csv.zst")


@dataclass(frozen=True)
class Columns:
    """The columns a streaming estimate reads and their roles."""

    label: str
    judges: tuple[str, ...]
    group: str | None = None
    item: str | None = None
    propensity: str | None = None

    @property
    def names(self) -> list[str]:
        extra = [c for c in (self.group, self.item, self.propensity) if c is not None]
        return [self.label, *self.judges, *extra]

    @property
    def numeric(self) -> list[str]:
        return [c for c in (self.label, *self.judges, self.propensity) if c is not None]


@dataclass(frozen=True)
class Piece:
    """A unit of work: one row group of a Parquet file, or a whole CSV file.

    ``start`` is the global row number (over the dataset, files in name order) of its
    first row, ``file_start`` the row number within its file.
    """

    path: str
    row_group: int | None
    start: int
    file_start: int
    n_rows: int


@dataclass(frozen=True)
class Chunk:
    """Rows of one piece as arrays: global row numbers, labels, judge scores (rows x
    judges), propensities, group codes per row with the codes' names (or None) and item
    ids (or None)."""

    rows: np.ndarray
    y: np.ndarray
    scores: np.ndarray
    pi: np.ndarray | None
    codes: np.ndarray | None
    names: np.ndarray | None
    items: np.ndarray | None

    def group_of_rows(self) -> np.ndarray | None:
        """Group name per row (None without a group column)."""
        return None if self.codes is None or self.names is None else self.names[self.codes]


def is_stream_source(path: str | Path) -> bool:
    """True for a folder of Parquet/CSV files (not a study folder) or a Parquet file."""
    p = Path(path)
    if p.is_dir():
        return bool(dataset_files(p, strict=False))
    return p.name.lower().endswith(PARQUET)


def dataset_files(path: str | Path, *, strict: bool = True) -> list[Path]:
    """The data files of ``path``: itself, or the Parquet or the CSV files under a folder
    (at any depth) in name order.

    A folder holding both Parquet and CSV files is refused (which kind is the dataset is
    not guessed). Skipped without a word: hidden files and folders (``.DS_Store``, the
    temp files ``.NAME.tmp-*`` and ``.NAME.bacon-tmp-*`` of an interrupted write) and
    ``_``-prefixed files (``_SUCCESS``, ``_metadata`` of Spark and Hive datasets). Any
    other file that is not read (``README.txt``, ``notes.json``) is named on stderr
    ("not read: ...") when ``strict``; with ``strict=False`` (only asking whether the
    folder is a dataset) nothing is printed and a folder without data files gives [].
    """
    p = Path(path)
    if not p.exists():
        raise ValidationError(f"{str(p)!r} does not exist; check the path.")
    if p.is_file():
        refuse_json(p)
        return [p]
    parquet: list[Path] = []
    csv: list[Path] = []
    other: list[Path] = []
    for f in sorted(p.rglob("*")):
        parts = f.relative_to(p).parts
        if not f.is_file() or any(part.startswith(".") for part in parts):
            continue
        if f.name.startswith("_"):
            continue
        name = f.name.lower()
        (parquet if name.endswith(PARQUET) else csv if name.endswith(CSV) else other).append(f)
    if parquet and csv:
        raise ValidationError(
            f"folder {str(p)!r} holds {len(parquet)} Parquet and {len(csv)} CSV file(s) (e.g. "
            f"{str(parquet[0].relative_to(p))!r} and {str(csv[0].relative_to(p))!r}); a "
            "dataset is one kind: move the other kind out of the folder, or convert it."
        )
    found = parquet or csv
    if not found and strict:
        raise ValidationError(
            f"folder {str(p)!r} holds no .parquet or .csv file; pass a Parquet dataset folder."
        )
    if found and other and strict:
        shown = ", ".join(str(f.relative_to(p)) for f in other[:5])
        more = f" and {len(other) - 5} more" if len(other) > 5 else ""
        print(
            f"note: {str(p)!r}: not read: {shown}{more} (not .parquet or .csv files)",
            file=sys.stderr,
        )
    return found


#: Endings of JSON files, which the stream does not read (it would split a record on commas)
JSON = tuple(f"{s}{z}" for s in (".jsonl", ".ndjson", ".json") for z in ("", ".gz", ".bz2"))


def refuse_json(path: Path) -> None:
    """Refuse a JSON (Lines) file: streaming reads Parquet and CSV only, and a JSON record
    read as a CSV header gives columns that are not the file's (tester F, finding 1)."""
    name = path.name.lower()
    first = b""
    if not name.endswith(PARQUET + CSV + JSON):
        with contextlib.suppress(OSError), path.open("rb") as fh:
            first = fh.read(256).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if name.endswith(JSON) or first in (b"{", b"["):
        parquet = path.name.split(".")[0] + ".parquet"
        raise ValidationError(
            f"file {str(path)!r} is JSON: streaming (--chunk-rows, --scheduler, --items-out) "
            "reads Parquet or CSV files only. Drop those options to read it whole, or "
            "convert it once, e.g. "
            + pandas_command(f"pd.read_json({str(path)!r}, lines=True).to_parquet({parquet!r})")
            + ", and stream the Parquet file."
        )


def _is_parquet(path: Path) -> bool:
    return path.name.lower().endswith(PARQUET)


def _unreadable(path: Path, exc: Exception, where: str = "") -> ValidationError:
    detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return ValidationError(
        f"file {str(path)!r}{where} cannot be read ({type(exc).__name__}: {detail}); it is "
        "empty, truncated or not a Parquet/CSV file. Replace or remove it."
    )


def _parquet_file(path: Path, columns: Columns | None = None, mapped: bool = False) -> Any:
    """The open Parquet file (``mapped``: memory-mapped, which spares copying the pages
    read: a fifth less CPU per pass over files in the page cache)."""
    import pyarrow.parquet as pq

    try:
        groups = [columns.group] if columns is not None and columns.group else None
        return pq.ParquetFile(path, read_dictionary=groups, memory_map=mapped)
    except Exception as exc:  # pyarrow raises ArrowInvalid/OSError for broken files
        raise _unreadable(path, exc) from exc


def _csv_header(path: Path) -> list[str]:
    try:
        return table_header(path)
    except Exception as exc:
        raise _unreadable(path, exc) from exc


def _csv_rows(path: Path, column: str) -> int:
    try:
        return sum(
            len(c)
            for c in pd.read_csv(path, usecols=[column], chunksize=1_000_000, **csv_options(path))
        )
    except Exception as exc:
        raise _unreadable(path, exc) from exc


def file_columns(path: Path) -> list[str]:
    """Column names of one data file."""
    if _is_parquet(path):
        return list(_parquet_file(path).schema_arrow.names)
    return _csv_header(path)


def expand_columns(patterns: Sequence[str], columns: Sequence[Any]) -> list[Any]:
    """Shell-style judge patterns (e.g. ``'judge:*'``) expanded against ``columns`` (order
    kept, no repeats); a name without ``*?[``, or one that is a column's whole name
    (``gpt4 [v2]``, whose brackets a pattern reads as a set of characters), is taken as
    given."""
    out: list[Any] = []
    for pat in patterns:
        exact = [c for c in columns if str(c) == pat]
        hits = (
            [c for c in columns if fnmatch.fnmatchcase(str(c), pat)]
            if any(ch in pat for ch in "*?[") and not exact
            else exact or [pat]
        )
        if not hits:
            raise ValidationError(f"--judge pattern {pat!r} matches no column; check the pattern.")
        out.extend(h for h in hits if h not in out)
    return out


def _numeric_type(typ: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_integer(typ)
        or pa.types.is_floating(typ)
        or pa.types.is_boolean(typ)
        or pa.types.is_null(typ)
        or pa.types.is_decimal(typ)
    )


def _string_type(typ: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(typ) or pa.types.is_large_string(typ))


def plan(files: Sequence[Path], columns: Columns) -> list[Piece]:
    """Check every file's schema (readable, all columns present, numeric or text where a
    number is expected) and split the dataset into pieces; nothing is read but metadata
    (CSV files are counted, which reads one column)."""
    pieces: list[Piece] = []
    start = 0
    for path in files:
        if _is_parquet(path):
            pf = _parquet_file(path, columns)
            schema = pf.schema_arrow
            _check_present(path, list(schema.names), columns)
            for col in columns.numeric:
                typ = schema.field(col).type
                if not (_numeric_type(typ) or _string_type(typ)):
                    raise ValidationError(
                        f"file {str(path)!r}: column {col!r} has type {typ}, not numbers; "
                        "write it as numbers (empty cells for missing values)."
                    )
            meta = pf.metadata
            file_start = 0
            for g in range(meta.num_row_groups):
                n = meta.row_group(g).num_rows
                if n:
                    pieces.append(Piece(str(path), g, start, file_start, n))
                start += n
                file_start += n
        else:
            _check_present(path, _csv_header(path), columns)
            n = _csv_rows(path, columns.label)
            pieces.append(Piece(str(path), None, start, 0, n))
            start += n
    if start == 0:
        raise ValidationError("the dataset has no rows; pass a table with one item per row.")
    return pieces


def _check_present(path: Path, names: list[str], columns: Columns) -> None:
    if len(set(names)) != len(names):
        dup = next(c for c in names if names.count(c) > 1)
        raise ValidationError(f"file {str(path)!r}: column {dup!r} appears twice; rename one.")
    for col in columns.names:
        if col not in names:
            raise ValidationError(
                f"file {str(path)!r} has no column {col!r} (columns: {', '.join(names[:12])}"
                f"{', ...' if len(names) > 12 else ''}); every file of the dataset needs the "
                "same columns. Add the column or remove the file."
            )


Frame = Any  # a pyarrow RecordBatch (Parquet) or a pandas DataFrame (CSV, Dask partitions)


def read_frames(
    piece: Piece, columns: Columns, chunk_rows: int, arrow_threads: bool = True
) -> Iterator[tuple[int, Frame]]:
    """The piece's rows in frames of at most ``chunk_rows`` rows, each with the global row
    number of its first row (``arrow_threads``: decode a Parquet piece's columns on
    pyarrow's threads; off when pieces are read on threads of their own)."""
    path = Path(piece.path)
    offset = piece.start
    try:
        frames: Iterator[Frame]
        if piece.row_group is not None:
            pf = _parquet_file(path, columns, mapped=True)
            frames = pf.iter_batches(
                batch_size=chunk_rows,
                row_groups=[piece.row_group],
                columns=columns.names,
                use_threads=arrow_threads,
            )
        else:
            # ids are text as written (0001 stays 0001); the group's names are categories
            dtype: dict[str, Any] = {columns.item: str} if columns.item else {}
            if columns.group:
                dtype[columns.group] = "category"
            how = csv_options(path)
            frames = (
                _written_numbers(frame, how)
                for frame in pd.read_csv(
                    path, usecols=columns.names, chunksize=chunk_rows, dtype=dtype or None, **how
                )  # type: ignore[call-overload]
            )
        for frame in frames:
            yield offset, frame
            offset += len(frame)
    except BaconError:
        raise
    except Exception as exc:
        where = f" (after its {_place(piece, offset)})"
        raise _unreadable(path, exc, where) from exc


def _place(piece: Piece, row: int) -> str:
    """Where global row ``row`` of ``piece`` is, as the in-memory commands say it: the
    CSV line (from 1, past the header and any title above it), or the Parquet file's row
    (from 0)."""
    within = row - piece.start + piece.file_start
    if piece.row_group is not None:
        return f"row {within}"
    return f"line {within + 2 + int(csv_options(piece.path).get('skiprows', 0))}"


def locate(pieces: Sequence[Piece], row: int) -> str:
    """Global row ``row`` as its file and place (``file 'a.parquet', row 12``)."""
    starts = [p.start for p in pieces]
    piece = pieces[max(0, bisect_right(starts, row) - 1)]
    return f"file {piece.path!r}, {_place(piece, row)}"


def repeated_labeled_ids(items: np.ndarray, rows: np.ndarray, pieces: Sequence[Piece]) -> None:
    """Refuse labeled rows that share an item id, naming the first id's two places
    (files copied twice, or an id column that does not name the items).

    Raises
    ------
    ValidationError
        An id on two labeled rows, with where each is and how many ids repeat.
    """
    ids = pd.Series(items)
    dup = ids.duplicated(keep=False).to_numpy()
    if not dup.any():
        return
    first = ids[dup].iloc[0]
    at = rows[(ids == first).to_numpy()][:2]
    n = int(ids[dup].nunique())
    raise ValidationError(
        f"item {first!r} is labeled on two rows: {locate(pieces, int(at[0]))} and "
        f"{locate(pieces, int(at[1]))}"
        + (f" ({n - 1} more labeled ids repeat)" if n > 1 else "")
        + ". Each item must be one row of the dataset: remove the file copied twice or the "
        "repeated rows; if that column does not name the items, pass --item naming the one "
        "that does."
    )


def _where(piece: Piece, row: int, col: str) -> str:
    return f"file {piece.path!r}, {_place(piece, row)}, column {col!r}"


def _numbers(frame: Frame, col: str, piece: Piece, start: int) -> np.ndarray:
    """Column ``col`` as float64 (NaN = empty, or blank), its cells read as the in-memory
    reader reads them (verdict words, Likert answers, percentages:
    :func:`bacon_bayes.words.as_numbers`, on the frame's rows; the cells of
    :data:`~bacon_bayes.words.MISSING_WORDS` empty); a non-numeric entry stops
    with its place."""
    if isinstance(frame, pd.DataFrame):
        s = frame[col]
    else:
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = frame.column(col)
        if pa.types.is_floating(arr.type) or pa.types.is_integer(arr.type):
            return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=float)
        if _numeric_type(arr.type):
            return np.asarray(pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False))
        s = pd.Series(arr.to_numpy(zero_copy_only=False), dtype=object)
    if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
        return s.to_numpy(dtype=float, na_value=np.nan)
    s = s.where(~says_missing(s))  # '-', 'NA', 'n/a': empty cells, as in memory
    values = as_numbers(s).to_numpy(dtype=float, na_value=np.nan)
    _stop_at(
        unread(values, s),
        lambda k: (
            f"{_where(piece, start + k, col)}: non-numeric value {s.iloc[k]!r}. Fix "
            "the value, or leave the cell empty if it is missing."
        ),
    )
    return values


def _stop_at(bad: np.ndarray, message: Any) -> None:
    """Raise ``message(k)`` for the first row ``k`` where ``bad`` is true."""
    if bad.any():
        raise ValidationError(message(int(np.argmax(bad))))


def _groups(frame: Frame, col: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Group code per row (int32, no copy of stored dictionary indices), the codes'
    names (distinct), and the first row whose group is empty (-1: none)."""
    if isinstance(frame, pd.DataFrame):
        g = frame[col]
        empty = g.isna().to_numpy()
        if isinstance(g.dtype, pd.CategoricalDtype):
            codes = g.cat.codes.to_numpy()
            names = g.cat.categories.astype(str).to_numpy()
        else:
            codes, uniques = pd.factorize(g.astype(str))
            names = np.asarray(uniques, dtype=object).astype(str)
        first = int(np.argmax(empty)) if empty.any() else -1
    else:
        import pyarrow as pa

        arr = frame.column(col)
        if not pa.types.is_dictionary(arr.type):
            arr = arr.dictionary_encode()
        first = -1
        idx = arr.indices
        if arr.null_count:
            first = int(np.argmax(arr.is_null().to_numpy(zero_copy_only=False)))
            idx = idx.fill_null(0)
        codes = idx.to_numpy(zero_copy_only=False)
        names = np.asarray(
            arr.dictionary.cast(pa.string()).to_numpy(zero_copy_only=False), dtype=str
        )
    codes = codes.astype(np.int32, copy=False)
    uniq, inverse = np.unique(names, return_inverse=True)
    if uniq.size < names.size:  # one name twice in a dictionary: one group
        codes, names = inverse.astype(np.int32)[codes], uniq
    return codes, names, first


def _stored(frame: Frame, col: str, piece: Piece, start: int) -> np.ndarray:
    """Column ``col`` as stored when it holds floating-point numbers (float32 stays
    float32, no copy without missing values), else as :func:`_numbers` converts it."""
    if isinstance(frame, pd.DataFrame):
        if frame[col].dtype in (np.float32, np.float64):
            return frame[col].to_numpy()
    else:
        import pyarrow as pa

        arr = frame.column(col)
        if pa.types.is_float32(arr.type) or pa.types.is_float64(arr.type):
            return arr.to_numpy(zero_copy_only=False)
    return _numbers(frame, col, piece, start)


def _propensity(frame: Frame, columns: Columns, y: np.ndarray, piece: Piece, start: int):
    """The inclusion probabilities (None without the column), checked."""
    if columns.propensity is None:
        return None
    pi = _numbers(frame, columns.propensity, piece, start)
    lab = ~np.isnan(y)
    _stop_at(
        (lab & ~((pi > 0) & (pi <= 1))) | (~np.isnan(pi) & ~((pi > 0) & (pi <= 1))),
        lambda k: (
            f"{_where(piece, start + k, str(columns.propensity))} is {float(pi[k])!r}; "
            "an inclusion probability must lie in (0, 1] (empty only for an unlabeled item)."
        ),
    )
    return pi


def _group_codes(frame: Frame, columns: Columns, piece: Piece, start: int):
    """Group codes and names (None, None without a group column), checked."""
    if columns.group is None:
        return None, None
    codes, names, first = _groups(frame, columns.group)
    if first >= 0:
        raise ValidationError(
            f"{_where(piece, start + first, columns.group)} is empty; give every item a "
            "group (e.g. 'unknown') or leave out --group."
        )
    return codes, names


def _items(frame: Frame, columns: Columns, rows: np.ndarray | None = None) -> np.ndarray | None:
    """The item ids (of ``rows`` only, when given), or None without an item column."""
    if columns.item is None:
        return None
    if isinstance(frame, pd.DataFrame):
        ids = frame[columns.item].to_numpy()
        return ids if rows is None else ids[rows]
    col = frame.column(columns.item)
    return (col if rows is None else col.take(rows)).to_numpy(zero_copy_only=False)


def to_chunk(frame: Frame, start: int, piece: Piece, columns: Columns) -> Chunk:
    """Convert and check one frame of rows starting at global row ``start`` (numbers,
    finite scores, labels, propensities in (0, 1], a group for every row)."""
    n = len(frame)
    rows = np.arange(start, start + n, dtype=np.int64)
    y = _numbers(frame, columns.label, piece, start)
    scores = np.empty((n, len(columns.judges)), order="F")  # one judge's column contiguous
    for k, j in enumerate(columns.judges):
        scores[:, k] = _numbers(frame, j, piece, start)
    for values, col in [(y[:, None], [columns.label]), (scores, list(columns.judges))]:
        inf = np.isinf(values)
        if inf.any():
            k, c = np.argwhere(inf)[0]
            raise ValidationError(
                f"{_where(piece, start + int(k), col[c])} is infinite; use a finite value or "
                "leave it empty."
            )
    none = np.isnan(scores).all(axis=1)
    if none.any():
        k = int(np.argmax(none))
        raise ValidationError(
            f"{_where(piece, start + k, ', '.join(columns.judges))}: the item has no judge "
            "score at all, so the naive judge average is undefined; score it with at least "
            "one judge or remove it."
        )
    pi = _propensity(frame, columns, y, piece, start)
    codes, names = _group_codes(frame, columns, piece, start)
    return Chunk(rows, y, scores, pi, codes, names, _items(frame, columns))


@dataclass(frozen=True)
class RawChunk:
    """Rows of one piece as read, for the first pass's compiled sweep: the global row
    of the first, labels (float64), one array per judge as stored (see
    :func:`~bacon_bayes.stream.kernels.column_tuple`), propensities, group codes per
    row (int32; all 0 without a group column) with their names (``[""]`` then),
    whether there is a group column; and where the rows came from, to name a bad value
    (:meth:`fail`) and to read the item ids of some rows (:meth:`items_at`)."""

    start: int
    y: np.ndarray
    cols: tuple[np.ndarray, ...]
    pi: np.ndarray | None
    group_codes: np.ndarray
    group_names: np.ndarray
    grouped: bool
    frame: Frame
    piece: Piece
    columns: Columns

    @property
    def codes(self) -> np.ndarray | None:
        return self.group_codes if self.grouped else None

    @property
    def names(self) -> np.ndarray | None:
        return self.group_names if self.grouped else None

    def items_at(self, rows: np.ndarray) -> np.ndarray | None:
        """The item ids of ``rows`` (positions in the chunk), or None without the column."""
        return _items(self.frame, self.columns, rows)

    def fail(self) -> None:
        """Raise the error that names the first unusable value (the sweep found one)."""
        to_chunk(self.frame, self.start, self.piece, self.columns)
        raise ValidationError(  # pragma: no cover (to_chunk raises)
            f"file {self.piece.path!r}: an unusable value after {_place(self.piece, self.start)}."
        )


def raw_chunk(frame: Frame, start: int, piece: Piece, columns: Columns) -> RawChunk:
    """One frame of rows starting at global row ``start`` for the first pass (values
    checked as by :func:`to_chunk`; infinite and all-missing scores by the sweep)."""
    from bacon_bayes.stream.kernels import column_tuple

    n = len(frame)
    y = _numbers(frame, columns.label, piece, start)
    cols = column_tuple([_stored(frame, j, piece, start) for j in columns.judges])
    pi = _propensity(frame, columns, y, piece, start)
    codes, names = _group_codes(frame, columns, piece, start)
    grouped = codes is not None
    if codes is None or names is None:
        codes, names = np.zeros(n, dtype=np.int32), np.array([""])
    return RawChunk(start, y, cols, pi, codes, names, grouped, frame, piece, columns)


def _written_numbers(frame: pd.DataFrame, how: dict[str, Any]) -> pd.DataFrame:
    """A chunk's numbers written as the file writes them (thousands separators, decimal
    commas, another minus sign) read as numbers, as the whole-file reader reads them."""
    minus_signs(frame)
    grouped_numbers(frame, how)
    return own_decimal_commas(frame, how)
