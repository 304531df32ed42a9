"""Reading tables from disk (CSV, gzipped CSV, Parquet) and NetCDF trees; the CSV text
of tables meant for people (spreadsheet formulas neutralised)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.atomic import write_file
from bacon_bayes.csv_format import (
    ITEM_COLUMNS,
    PADDED_ID,
    csv_options,
    csv_source,
    held,
    item_name,
    named_ids,
    open_raw,
    read_as,
    record_lines,
    sheet_lines,
)
from bacon_bayes.errors import BaconError, ValidationError
from bacon_bayes.words import blank_cells, bools_as_floats, minus_signs, word_numbers
from bacon_bayes.workbook import SAVE_AS_CSV, is_workbook, read_workbook


@contextmanager
def reading(path: str | Path, what: str, fix: str) -> Iterator[None]:
    """Turn any failure to read or decode the saved file ``path`` into a ValidationError
    that names the file and ``fix`` (what to do); errors of our own pass through.

    Covers empty, truncated and foreign files: h5py's ``OSError``s, decoding errors
    (``UnicodeDecodeError``, JSON/TOML/CSV parse errors are ``ValueError``s) and parts of a
    file that are missing (``KeyError``).
    """
    try:
        yield
    except BaconError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise ValidationError(
            f"{what} {str(path)!r} cannot be read: it is empty, truncated (a copy cut short, "
            f"a full disk?) or not the kind of file expected ({type(exc).__name__}: {detail}). "
            f"{fix}"
        ) from exc


class FileRows:
    """The rows of the file that a frame's rows came from (from 0), after rows were left
    out (``frame.attrs["file rows"]``). Shared, not copied, when pandas carries a frame's
    ``attrs`` to the frames made from it (it deep-copies them at every operation)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = np.asarray(rows, dtype=np.int64)
        self.rows.flags.writeable = False

    def __deepcopy__(self, memo: dict) -> FileRows:
        return self


def keep_file_rows(frame: pd.DataFrame, out: pd.DataFrame, kept: np.ndarray) -> None:
    """Record in ``out`` (``frame``'s rows where ``kept``) the file rows they came from,
    so that :func:`file_line` still names a cell's line in the file."""
    before = frame.attrs.get("file rows")
    rows = np.flatnonzero(np.asarray(kept, dtype=bool))
    out.attrs["file rows"] = FileRows(rows if before is None else before.rows[rows])


def file_line(frame: pd.DataFrame | pd.Series, row: int) -> int:
    """The line of a CSV (from 1) that holds ``frame``'s row ``row`` (from 0): past the
    header and the lines above it that the reader skipped (``frame.attrs["header line"]``,
    set by :func:`read_table` and the study's readers), and past the rows left out before
    it (``frame.attrs["file rows"]``, :func:`without_unscored`); where blank lines or
    cells of several lines put records off their row's number, the line each record
    starts on (``frame.attrs["record lines"]``, :func:`~bacon_bayes.csv_format.record_lines`)."""
    kept = frame.attrs.get("file rows")
    at = int(row if kept is None else kept.rows[row])
    if (lines := frame.attrs.get("record lines")) is not None:
        return int(lines.rows[at])
    return at + 2 + int(frame.attrs.get("header line", 0))


def csv_lines(frame: pd.DataFrame) -> np.ndarray | None:
    """Every row's CSV line (:func:`file_line`), or None for a frame that was not read
    from a CSV file (Parquet, or built in memory)."""
    if "header line" not in frame.attrs:
        return None
    kept = frame.attrs.get("file rows")
    rows = np.arange(len(frame)) if kept is None else kept.rows
    if (lines := frame.attrs.get("record lines")) is not None:
        return np.asarray(lines.rows[rows])
    return rows + 2 + int(frame.attrs["header line"])


def row_place(frame: pd.DataFrame | pd.Series, pos: int) -> str:
    """Where ``frame``'s row ``pos`` (from 0) is, for messages: ``line 7`` of the CSV it
    was read from (:func:`file_line`), else ``row 5`` (from 0, a frame built in memory).
    A column of such a frame knows its lines as well."""
    return f"line {file_line(frame, pos)}" if "header line" in frame.attrs else f"row {pos}"


def plural_places(places: Iterable[str]) -> str:
    """Places each said as ``line 7`` (or ``row 5``, :func:`row_place`) as one phrase:
    ``line 7``, ``lines 7, 8, 12``; places of more words (``row 5 by position (index
    1042)``) listed as they are."""
    said = list(places)
    parts = [p.split() for p in said]
    if any(len(p) != 2 for p in parts):
        return ", ".join(said)
    return parts[0][0] + ("s " if len(parts) > 1 else " ") + ", ".join(n for _, n in parts)


def check_header(path: Path, frame: pd.DataFrame) -> None:
    """Refuse two columns of one name (pandas renames the second ``name.1`` and a
    ``--judge name`` would take the first, silently)."""
    if frame.columns.duplicated().any():  # Parquet keeps duplicates as they are
        names = [str(c) for c in frame.columns]
    elif "header" in frame.attrs:  # a workbook's sheet (:func:`~.workbook.read_workbook`)
        names = frame.attrs["header"]
    elif path.name.lower().endswith((".parquet", ".pq")) or not any(
        re.search(r"\.\d+$", str(c)) for c in frame.columns
    ):
        return
    else:
        with csv_source(path, whole=False) as source:
            head = pd.read_csv(
                **source, **csv_options(path), header=None, nrows=1, dtype=str,
                keep_default_na=False,
            )  # fmt: skip
        names = [str(c) for c in head.iloc[0]] if len(head) else []
    seen: dict[str, int] = {}
    for k, name in enumerate(names):
        if name in seen:
            raise ValidationError(
                f"{str(path)!r}: columns {seen[name] + 1} and {k + 1} are both named "
                f"{name!r} (pandas would read the second as {name + '.1'!r}, and --judge "
                f"{name} would take the first without a word); rename one and run again."
            )
        seen[name] = k


#: workbook files of spreadsheet programs (bacon reads their sheets saved as CSV, and
#: ``.xlsx`` / ``.xlsm`` as they are: :mod:`bacon_bayes.workbook`)
WORKBOOKS = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")


def refuse_workbook(path: Path) -> None:
    """Refuse a spreadsheet workbook that bacon does not read (by its name, or an Excel
    workbook's zip or OLE header under another name) with how to save its sheet as the
    CSV that bacon reads; one named ``.xlsx`` / ``.xlsm`` passes
    (:func:`~bacon_bayes.workbook.read_workbook` reads it)."""
    name = path.name.lower()
    if is_workbook(path):
        return
    try:
        with open_raw(path) as fh:
            head = fh.read(2048)
    except OSError:
        return
    excel = head.startswith(b"\xd0\xcf\x11\xe0") or (
        head.startswith(b"PK") and (b"xl/" in head or b"[Content_Types].xml" in head)
    )
    if name.endswith(WORKBOOKS) or excel:
        raise ValidationError(
            f"{str(path)!r} is a spreadsheet workbook; bacon reads tables as CSV, Parquet or "
            f"an Excel .xlsx workbook. {SAVE_AS_CSV}."
        )


def _padded_ids_as_text(frame: pd.DataFrame, ids: list[str]) -> None:
    """Keep as text the id columns (read as text) where an id is written with leading
    zeros (``0004``: as numbers, ``004`` and ``4`` would be one id, as in a study's
    items); the others back to the numbers pandas reads them as."""
    for c in ids:
        s = frame[c] if c in frame.columns else None
        if s is None or not pd.api.types.is_string_dtype(s) or s.str.match(PADDED_ID).any():
            continue
        num = pd.to_numeric(s, errors="coerce")
        if num[s.notna()].notna().all():
            frame[c] = num


def read_table(
    path: str | Path, text: Iterable[str] = (), names: Iterable[str] = ()
) -> pd.DataFrame:
    """Read a CSV (optionally compressed) or Parquet file into a DataFrame.

    A compressed CSV is decompressed at most to
    :data:`~bacon_bayes.csv_format.INFLATE_RATIO` times its size (or
    :data:`~bacon_bayes.csv_format.INFLATE_FLOOR`); two columns of one name are refused;
    text cells that :func:`people_csv` neutralised are restored (:func:`restored`); ids written with
    leading zeros (:func:`_padded_ids_as_text`) and the ``text`` columns are read as text;
    ``names``: columns that name things (the group, item and prompt columns a command was
    given), whose words ``NA``, ``N/A``, ``null``, ``nan`` are names as written even among
    numbers (:func:`_kept_na_words`).
    """
    path, text, names = Path(path), list(text), {str(c) for c in names}
    if not path.exists():
        raise ValidationError(f"file {str(path)!r} does not exist; check the path.")
    if path.is_dir():
        raise ValidationError(f"{str(path)!r} is a folder; pass a CSV or Parquet file.")
    refuse_workbook(path)
    name = path.name.lower()
    if is_workbook(path):  # its one sheet, numbers as the sheet stores them
        check_header(path, sheet := read_workbook(path, sheet_lines))
        sheet, blank = without_blank_rows(sheet)
        for c in (c for c in text if c in sheet.columns):
            sheet[c] = sheet[c].map(lambda v: v if pd.isna(v) else str(v))
        ids = [c for c in sheet.columns if item_name(c) or c in text]
        out = bools_as_floats(sheet, numbers=True, ids=ids)
        out.attrs["read as"] = ", ".join(filter(None, (sheet.attrs["read as"], blank)))
        out.attrs |= {"sheet": sheet.attrs["sheet"], "blank rows": blank}
        out.attrs["header line"] = sheet.attrs["header row"]
        return out
    try:
        if name.endswith((".parquet", ".pq")):
            frame = pd.read_parquet(held(path) or path)
        else:
            how = csv_options(path)
            try:
                ids = named_ids(path, how)
                with csv_source(path) as source:
                    frame = pd.read_csv(**source, **how, dtype=dict.fromkeys(ids + text, str))
            except UnicodeDecodeError:  # UTF-8 in its first 64 KB only: a Windows file
                how["encoding"] = "cp1252"
                ids = named_ids(path, how)
                with csv_source(path) as source:
                    frame = pd.read_csv(**source, **how, dtype=dict.fromkeys(ids + text, str))
            kept = _kept_na_words(path, how, frame, names)
            frame.attrs["header line"] = int(how.get("skiprows", 0))
            if (starts := record_lines(path, how, len(frame))) is not None:
                frame.attrs["record lines"] = FileRows(starts)
            frame, blank = without_blank_rows(frame)
            _padded_ids_as_text(frame, [c for c in ids if c not in text])  # blank rows gone
            minus = minus_signs(frame)  # '−0,5': before the decimal commas are read
            grouped = grouped_numbers(frame, how)
            marked = ", ".join(filter(None, (minus, grouped, _other_decimal_mark(frame, how))))
            own_decimal_commas(frame, how)
    except BaconError:
        raise
    except UnicodeDecodeError as exc:
        raise ValidationError(
            f"cannot read {str(path)!r}: it is neither UTF-8 nor Windows-1252 text ({exc}). "
            "Save it as CSV UTF-8 (Excel: File > Save As > CSV UTF-8) and pass that file."
        ) from exc
    except (ValueError, OSError, EOFError, pd.errors.ParserError) as exc:
        raise ValidationError(
            f"cannot read {str(path)!r} as {'Parquet' if 'parq' in name else 'CSV'}: {exc}. "
            "Pass a CSV (.csv, .csv.gz) or Parquet (.parquet) file."
        ) from exc
    check_header(path, frame)
    ids = [c for c in frame.columns if item_name(c) or c in text]
    if name.endswith((".parquet", ".pq")):
        for c in frame.columns[[isinstance(t, pd.CategoricalDtype) for t in frame.dtypes]]:
            frame[c] = frame[c].cat.remove_unused_categories()  # no group of 0 rows
        return bools_as_floats(frame, numbers=True, ids=ids)
    _refuse_repeated_header(path, frame)
    out = bools_as_floats(restored(frame), numbers=True, ids=ids)
    out.attrs["read as"] = ", ".join(filter(None, (read_as(how), marked, blank)))
    out.attrs["blank rows"] = blank
    out.attrs["header line"] = int(how.get("skiprows", 0))
    if "record lines" in frame.attrs:
        out.attrs["record lines"] = frame.attrs["record lines"]
    out.attrs["kept words"] = kept
    return out


def _kept_na_words(
    path: Path, how: dict[str, Any], frame: pd.DataFrame, names: Collection[str] = ()
) -> dict[str, str]:
    """Keep as written, in place, the cells of ``frame``'s text columns that pandas read
    as missing but that hold a word (``NA``, ``None``, ``null``: a group or model so
    named, read as empty, its rows then refused or dropped as groupless); returns, per
    column, what was kept with the fix where the words mean no value. A column of numbers
    with a few words (a judge's ``NA``), of verdict words (``yes``/``no``) or where the
    words fill half the rows (a label's unlabeled rows, a vote's) keeps them missing; a
    column of ``names`` (groups, items, prompts) keeps them always, and where they stand
    among numbers (systems 8, 9.0, 010 and NA) the whole column is read as written."""
    rows = ~frame.isna().all(axis=1).to_numpy()  # a row of nothing stays blank
    cols = [
        k
        for k, (c, s) in enumerate(frame.items())
        if (s.isna() & rows).any() and (str(c) in names or _text(s))
    ]
    if not cols:
        return {}
    with csv_source(path) as source:
        raw = pd.read_csv(**source, **how, usecols=cols, dtype=str, keep_default_na=False)
    said = {}
    for k, written in zip(cols, raw.columns, strict=True):
        column = frame.columns[k]
        words = frame[column].isna().to_numpy() & rows & raw[written].str.strip().ne("")
        named = str(column) in names
        if words.any() and (named or words.sum() < 0.5 * rows.sum()):  # a label's: unlabeled
            if named and not _text(frame[column]):  # names among numbers: all as written
                frame[column] = raw[written].where(raw[written].str.strip().ne("")).to_numpy()
            else:
                frame.loc[words, column] = raw.loc[words, written]
            shown = ", ".join(map(repr, raw.loc[words, written].unique()[:5]))
            said[str(column)] = (
                f"the words {shown} ({int(words.sum())} cell(s)) are kept as written, not "
                "read as missing values; where one means no value, leave that cell empty"
            )
    return said


def _text(column: pd.Series) -> bool:
    """Whether ``column`` holds text: read as strings, under half of its cells numbers."""
    if not (pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)):
        return False
    filled = column.dropna()
    if filled.empty or word_numbers(column) is not None:
        return False
    return bool(pd.to_numeric(filled, errors="coerce").isna().mean() > 0.5)


def without_blank_rows(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """``frame`` without its rows whose every cell is empty or spaces (a spreadsheet's CSV
    writes ``,,,,`` for a row it once held: no item; a frame read as text has ``""``
    there), and what was skipped, with the lines (:func:`csv_lines`; ``""`` when none
    was). Pandas skips blank lines, not these; kept, they passed for items with no score,
    id or group."""
    text = [
        pd.api.types.is_string_dtype(t) or pd.api.types.is_object_dtype(t) for t in frame.dtypes
    ]
    blank = frame.loc[:, [not t for t in text]].isna().all(axis=1).to_numpy().copy()
    for c in np.flatnonzero(text):  # text: only where the rest is empty, so that a long
        cells = frame.iloc[blank, c]  # table's texts are not read again
        blank[blank] = blank_cells(cells).to_numpy()
    if not blank.any() or blank.all():
        return frame, ""
    out = frame.loc[~blank].reset_index(drop=True)
    keep_file_rows(frame, out, ~blank)
    rows = np.asarray(csv_lines(frame))[blank]
    lines = ", ".join(map(str, rows[:5])) + (" ..." if rows.size > 5 else "")
    return out, f"{rows.size} empty row(s) skipped (every cell empty, line(s) {lines})"


#: a cell that is a number with a decimal comma, or with a decimal point, or whole
_MARKED = {",": r"^\s*[-+]?\d+(,\d+)?\s*$", ".": r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$"}
#: numbers with the other mark than the file's every three digits (in a file of decimal
#: commas, ``1.234`` may be a thousand and more)
_THOUSANDS = {m: rf"^\s*[-+]?\d{{1,3}}(\{m}\d{{3}})+\s*$" for m in ".,"}
#: whole numbers from here up beside ``1.250``-shaped cells make them thousands; below
#: :data:`_SMALL`, decimals (``4`` beside ``3.667``); both, or neither: the column is refused
_LARGE, _SMALL = 100, 10


def _text_cells(frame: pd.DataFrame) -> Iterator[tuple[Any, pd.Series, pd.Series]]:
    """Each text column of ``frame`` but the ids: its name, itself and its filled cells as
    strings."""
    for c in frame.columns:
        s = frame[c]
        if item_name(c) or not (pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s)):
            continue
        filled = s.dropna().astype(str)
        yield c, s, filled[filled.str.strip() != ""]


def _other_decimal_mark(frame: pd.DataFrame, how: dict[str, Any]) -> str:
    """Read as numbers, in place, the text columns of a CSV not separated by commas
    (read with ``how``) whose filled cells are all numbers written with the other decimal
    mark than the file's (a column of ``4,00`` typed in by hand in a spreadsheet whose
    other columns have decimal points, or the reverse), and say which (``""``: none)."""
    if how.get("sep", ",") == ",":
        return ""
    mark = "." if how.get("decimal") == "," else ","
    read, grouped = [], []
    for c, s, filled in _text_cells(frame):
        if filled.empty or not filled.str.contains(mark, regex=False).any():
            continue
        if not filled.str.match(_MARKED[mark]).all() or filled.str.match(_THOUSANDS[mark]).all():
            continue
        if _thousands(c, filled, mark, how):
            text = s.astype(str).str.replace(mark, "", regex=False).where(s.notna())
            frame[c] = pd.to_numeric(text, errors="coerce")
            grouped.append(repr(str(c)))
            continue
        text = s.astype(str).str.replace(",", ".", regex=False).where(s.notna())
        frame[c] = pd.to_numeric(text, errors="coerce")
        read.append(repr(str(c)))
    name = "decimal points" if mark == "." else "decimal commas"
    said = [f"{name} in column(s) {', '.join(read)}"] if read else []
    if grouped:
        said.append(f"'{mark}' as a thousands separator in column(s) {', '.join(grouped)}")
    return ", ".join(said)


def _thousands(column: object, filled: pd.Series, mark: str, how: dict[str, Any]) -> bool:
    """Whether the cells of ``column`` (``filled``, strings) written with ``mark``, the
    other mark than the file's decimal one, are thousands (``1.250`` beside ``250``,
    ``500``: one scale) rather than decimals (``3.667`` beside ``4``): every such cell has
    the mark every three digits and the whole numbers beside them reach :data:`_LARGE`
    and none is under :data:`_SMALL`. Refused where the column allows both readings."""
    marked = filled.str.contains(mark, regex=False)
    if not filled[marked].str.match(_THOUSANDS[mark]).all():
        return False  # 3.5, 1.25: decimals
    whole = pd.to_numeric(filled[~marked], errors="coerce").abs()
    large, small = bool((whole >= _LARGE).any()), bool((whole < _SMALL).any())
    if large != small:
        return large
    shown = filled[marked].iloc[0].strip()
    own = how.get("decimal", ".")
    raise ValidationError(
        f"column {str(column)!r} writes {int(marked.sum())} numbers as {shown!r} in a file "
        f"whose decimal mark is {own!r}: a thousands separator ({shown.replace(mark, '')}) "
        f"or a decimal mark ({shown.replace(mark, '.')})? Its other numbers "
        f"({', '.join(filled[~marked].head(3))}) do not tell. Write that column's numbers "
        f"without the '{mark}' (1250, or 1{own}25) and run again."
    )


def grouped_numbers(frame: pd.DataFrame, how: dict[str, Any]) -> str:
    """Read as numbers, in place, the text columns of a CSV (read with ``how``) whose cells
    are numbers with a thousands separator, the other mark than the file's decimal one,
    where some cell also has the decimal mark after it (``1,537.72`` in a file of decimal
    points, ``1.537,72`` in one of decimal commas: a spreadsheet's number format "with
    separators"); such a cell is a number one way only, and ``1,500`` beside it is one of
    the same column's thousands. Not in id columns. Says which columns (``""``: none); the
    streamed reader's chunks go through it too."""
    own = how.get("decimal", ".")
    other = "," if own == "." else "."
    t, d = re.escape(other), re.escape(own)
    both = rf"^\s*[-+]?\d{{1,3}}({t}\d{{3}})+{d}\d+\s*$"
    number = rf"^\s*[-+]?(\d{{1,3}}({t}\d{{3}})+|\d+)({d}\d*)?\s*$"
    read = []
    for c, s, filled in _text_cells(frame):
        if not filled.str.match(both).any() or not filled.str.match(number).all():
            continue
        written = s.astype(str)
        text = written.str.replace(other, "", regex=False).str.replace(own, ".", regex=False)
        frame[c] = pd.to_numeric(text.where(s.notna() & (written.str.strip() != "")))
        read.append(repr(str(c)))
    return f"'{other}' as a thousands separator in column(s) {', '.join(read)}" if read else ""


#: a cell that is a number with a decimal comma
_COMMA_NUMBER = r"^\s*[-+]?\d+,\d+\s*$"


def own_decimal_commas(frame: pd.DataFrame, how: dict[str, Any]) -> pd.DataFrame:
    """In a CSV of decimal commas (read with ``how``), write with a decimal point, in
    place, the cells of its text columns that are numbers with a decimal comma (``3,5``):
    pandas reads them only in a column of nothing but numbers, so a ``-`` or an ``error``
    cell left them as text beside the column's whole numbers. Not in id columns. Returns
    ``frame`` (the streamed reader's chunks go through it too)."""
    if how.get("decimal") != ",":
        return frame
    for c in frame.columns:
        s = frame[c]
        if item_name(c) or not (pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s)):
            continue
        commas = s.str.match(_COMMA_NUMBER, na=False)
        if commas.any():
            frame[c] = s.where(~commas, s.str.replace(",", ".", regex=False))
    return frame


def _refuse_repeated_header(path: Path, frame: pd.DataFrame) -> None:
    """Refuse rows that repeat the header (CSV files joined with ``cat``), naming their
    lines (:func:`csv_lines`)."""
    text = [
        pd.api.types.is_object_dtype(t) or pd.api.types.is_string_dtype(t) for t in frame.dtypes
    ]
    if len(frame.columns) < 2 or not all(text):  # a column of numbers holds no header
        return
    names = [str(c) for c in frame.columns]
    same = np.ones(len(frame), dtype=bool)
    for c, name in zip(frame.columns, names, strict=True):
        same &= frame[c].astype(str).str.strip().to_numpy() == name
        if not same.any():
            return
    rows = np.asarray(csv_lines(frame))[same]  # past the blank rows left out
    lines = ", ".join(str(int(r)) for r in rows[:5]) + (" ..." if rows.size > 5 else "")
    raise ValidationError(
        f"{str(path)!r} repeats its header as a row at line(s) {lines} (CSV files joined "
        "with cat?): delete those lines, or join the files with their header once (e.g. "
        "pandas.concat), and run again."
    )


def without_unscored(
    frame: pd.DataFrame, judges: Any, label: str, item: str | None = None, group: Any = None
) -> tuple[pd.DataFrame, Any, str]:
    """``frame`` without its rows that no judge scored (``bacon estimate
    --drop-unscored``), the judges, and the note saying how many rows were left out and
    how many of them had a ``label`` (those labels go too: e.g. a reference system that
    reference-based metrics cannot score); "" when none.

    ``judges``: the table's judge columns, or a separate long table (``item``, ``judge``,
    ``score``: ``--scores``, an Inspect log's per-run scores), whose items are matched to
    ``frame``'s ``item`` column (none: its index, kept as it is, which is then the items'
    ids); its rows of the left-out items (scores that are all missing) go too, since they
    name items no longer in the table. ``group``: the group column, whose groups left out
    whole are named."""
    from bacon_bayes.group_gaps import whole_groups_dropped

    if isinstance(judges, list):
        empty = frame[judges].isna().all(axis=1)
        out, kept = frame.loc[~empty].reset_index(drop=True), judges
    else:
        ids = frame.index.to_series() if item is None else frame[item]
        score = pd.to_numeric(judges["score"], errors="coerce")
        empty = ~ids.isin(judges.loc[score.notna(), "item"])
        kept = judges.loc[~judges["item"].isin(ids[empty])].reset_index(drop=True)
        out = frame.loc[~empty] if item is None else frame.loc[~empty].reset_index(drop=True)
    if empty.any():  # messages name the CSV lines of the rows kept
        keep_file_rows(frame, out, ~np.asarray(empty))
    labels = int((empty & frame[label].notna()).sum())
    what = f", {labels} of them labeled (their labels unused)" if labels else " and no label"
    note = (
        f"--drop-unscored left out {int(empty.sum())} row(s) with no judge score{what}; the "
        f"estimates are over the other {len(out)}{whole_groups_dropped(frame, empty, group)}"
    )
    return out, kept, note if empty.any() else ""


#: first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
#: injection"); a cell starting with the quote that neutralises them is quoted too, so
#: that :func:`restored` gives back exactly what :func:`people_csv` was given
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_QUOTE = "'"
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _neutral(cell: Any) -> Any:
    if (
        isinstance(cell, str)
        and cell[:1] in (*FORMULA_START, _QUOTE)
        and not _NUMBER.fullmatch(cell)
    ):
        return _QUOTE + cell
    return cell


def _restore(cell: Any) -> Any:
    if isinstance(cell, str) and cell[:1] == _QUOTE and cell[1:2] in (*FORMULA_START, _QUOTE):
        return cell[1:]
    return cell


def _text_columns(frame: pd.DataFrame) -> list[Any]:
    return [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c].dtype)
            and not pd.api.types.is_bool_dtype(frame[c].dtype)
            and not pd.api.types.is_datetime64_any_dtype(frame[c].dtype)]  # fmt: skip


def people_csv(frame: pd.DataFrame) -> str:
    """The CSV text of a table meant for people (a to-label file, the judges' replies),
    safe to open in a spreadsheet: a text cell (or column name) that starts with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return, and is not a plain number, gets a
    leading single quote (the OWASP rule against formula injection), as does one that
    starts with a quote; :func:`read_table` and ``bacon label import`` take it off again.
    Lines end with ``\n``, or ``\r\n`` when a cell holds a carriage return (the csv
    module quotes such a cell only then, and unquoted it would split its row)."""
    out = frame.rename(columns=_neutral)
    carriage = False
    for c in _text_columns(out):
        out[c] = out[c].map(_neutral, na_action="ignore")
        carriage = carriage or bool(out[c].map(lambda v: isinstance(v, str) and "\r" in v).any())
    return out.to_csv(index=False, lineterminator="\r\n" if carriage else "\n")


#: the endings a table meant for people (a to-label file) is written with: CSV, Parquet
PEOPLE_SUFFIXES = (".csv", ".parquet")


def check_people_suffix(path: str | Path, option: str) -> None:
    """Refuse a name for a table meant for people that :func:`write_people_table` cannot
    write as its ending says (checked before the work, after the output's other checks:
    an input named as the output is refused as such)."""
    if Path(path).suffix.lower() not in PEOPLE_SUFFIXES:
        raise ValidationError(
            f"{option} {str(path)!r}: use a {' or '.join(PEOPLE_SUFFIXES)} file name "
            "(written as CSV or as Parquet, as its ending says)"
        )


def write_people_table(frame: pd.DataFrame, path: str | Path, option: str = "output") -> Path:
    """Write a table meant for people (a to-label file) atomically, by its name's ending:
    Parquet for ``.parquet`` (a column left empty to fill in, every cell ``""``, as
    numbers, all missing), CSV (:func:`people_csv`) for ``.csv``; any other ending is
    refused (a CSV written into ``todo.parquet`` broke every Parquet reader after it)."""
    path = Path(path)
    check_people_suffix(path, option)
    out = frame
    if path.suffix.lower() == ".parquet":
        out = frame.copy()
        for c in out.columns:
            if len(out) and (out[c].astype(object) == "").all():  # the column to fill in
                out[c] = np.nan
    return write_by_suffix(out, path)


def write_by_suffix(frame: pd.DataFrame, path: Path) -> Path:
    """Write ``frame`` atomically as CSV (:func:`people_csv`) when ``path`` ends in
    ``.csv``, else as Parquet (the ending checked by the caller, with its own message:
    :func:`write_people_table`, :func:`bacon_bayes.judges.output.write_table`); a table
    Arrow cannot hold (a column of numbers and text mixed) is refused with the fix."""
    if path.suffix.lower() == ".csv":
        text = people_csv(frame)
        return write_file(path, lambda tmp: tmp.write_text(text, encoding="utf-8", newline=""))
    try:
        import pyarrow
    except ImportError as exc:
        raise ValidationError(
            "writing Parquet needs pyarrow: pip install 'bacon_bayes[parquet]', or write "
            ".csv instead"
        ) from exc
    try:
        table = pyarrow.Table.from_pandas(frame, preserve_index=False)
    except (pyarrow.ArrowInvalid, pyarrow.ArrowTypeError) as exc:
        raise ValidationError(
            f"{str(path)!r}: the table cannot be written as Parquet ({exc}); write it as "
            ".csv instead"
        ) from exc
    import pyarrow.parquet as pq

    return write_file(path, lambda tmp: pq.write_table(table, tmp))


def restored(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the cells (and column names) :func:`people_csv` neutralised given
    back as they were (cells starting with a quote then ``= + - @``, a tab, a carriage
    return or a quote lose that first quote)."""
    columns = [c for c in _text_columns(frame) if _quoted(frame[c])]
    if not columns and not any(_restore(c) != c for c in frame.columns):
        return frame
    out = frame.copy()
    for c in columns:
        out[c] = out[c].map(_restore, na_action="ignore")
    return out.rename(columns=_restore)


def _quoted(column: pd.Series) -> bool:
    """Whether a cell of ``column`` starts with a quote (vectorised where it can be)."""
    try:
        return bool(column.str.startswith(_QUOTE, na=False).any())
    except (AttributeError, TypeError):  # not a column of strings
        values = column.to_numpy(dtype=object)
        return any(isinstance(v, str) and v[:1] == _QUOTE for v in values)


def write_tree(tree: Any, path: str | Path) -> Path:
    """Write an ``xarray.DataTree`` to a NetCDF file (h5netcdf), atomically (an earlier
    file at ``path`` stays whole if the write fails)."""
    # built in memory and then written: HDF5 writing into a file that fails (a full disk)
    # leaves h5py objects that crash the process when collected
    data = bytes(tree.to_netcdf(None, engine="h5netcdf"))
    return write_file(path, lambda tmp: tmp.write_bytes(data))


def read_tree(path: str | Path, what: str, fix: str) -> Any:
    """Read a whole ``xarray.DataTree`` from a NetCDF file into memory.

    ``what`` names the kind of file in errors and ``fix`` says what to do when it cannot be
    read (see :func:`reading`).
    """
    import xarray as xr

    path = Path(path)
    if not path.exists():
        raise ValidationError(f"{what} file {str(path)!r} does not exist.")
    with reading(path, f"{what} file", fix), xr.open_datatree(str(path), engine="h5netcdf") as t:
        return t.load()


def item_column(df: pd.DataFrame, judges: object = ()) -> str | None:
    """The item id column to use without ``--item``: the first of :data:`ITEM_COLUMNS`
    (:func:`item_name`: ``Item ID`` too) in the table that is not a judge and has unique,
    non-missing values (None: none).

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    judges : sequence of str
        The judge columns (never taken as ids).

    Returns
    -------
    str or None
        The column name, or None.
    """
    taken = set(judges) if isinstance(judges, list | tuple) else set()
    for name in ITEM_COLUMNS:
        for column in df.columns:
            if item_name(column) == name and column not in taken:
                col = df[column]
                if col.notna().all() and col.is_unique:
                    return str(column)
    return None
