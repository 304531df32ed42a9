"""A returned label file read as text (``bacon label import``): CSV (or TSV), Parquet or
JSON, its id and label columns found under the study's names or the labeller's own, the
empty rows a spreadsheet writes skipped."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.csv_format import csv_options, record_lines
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import FileRows, refuse_workbook, restored, without_blank_rows
from bacon_bayes.readers.labels import _named, file_id_column
from bacon_bayes.workbook import read_workbook

__all__ = ["read_label_file"]

#: a unit or scale written after a column's name (``Coherence (1-5)``, ``score [pts]``)
_UNIT = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")


#: the label files read: a pandas ``to_json(orient="records")`` array or JSON Lines for JSON
_FORMATS = "a CSV (or TSV), Parquet (.parquet) or JSON (.json records, .jsonl) file"


def _label_format(path: Path) -> str:
    """``parquet``, ``json`` or ``csv``: the label file's format as
    :func:`bacon_bayes.readers.sniff` tells it (by its ending, else its first bytes),
    JSON Lines as ``json``; anything else is read as CSV (or TSV, sniffed)."""
    from bacon_bayes.readers import sniff

    kinds = {"parquet": "parquet", "json": "json", "jsonl": "json", "xlsx": "xlsx"}
    return kinds.get(sniff(path), "csv")


def _cell_text(value: object) -> str:
    """A Parquet or JSON cell as the text a CSV would hold (``""`` for a missing one)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, float | np.floating) and np.isnan(value):
        return ""
    return str(value)


def _typed_label_file(path: Path, kind: str) -> pd.DataFrame:
    """A Parquet or JSON label file's cells as text, as the CSV reader reads them (its
    rows named by their place, from 0: no CSV lines)."""
    from bacon_bayes.readers.jsonl import is_json_lines, read_jsonl
    from bacon_bayes.readers.labels import json_labels

    try:
        if kind == "parquet":
            frame = pd.read_parquet(path)
        elif kind == "xlsx":  # a to-label file filled in and saved by Excel
            frame = read_workbook(path)
        elif path.name.lower().endswith((".jsonl", ".ndjson")) or is_json_lines(path):
            frame = read_jsonl(path)[0]
        else:
            form = 'write the labels as [{"id": ..., "label": ...}, ...] (one object per item)'
            frame = json_labels(path, form + ", or JSON Lines")  # a tool's export too
    except ValidationError as exc:
        raise ValidationError(f"label file {path}: {exc}") from exc
    except (ValueError, OSError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        what = "Parquet" if kind == "parquet" else "JSON"
        raise ValidationError(
            f"label file {path} is not a readable {what} file ({exc}); pass {_FORMATS}"
        ) from exc
    cells = {str(c): [_cell_text(v) for v in frame[c].tolist()] for c in frame.columns}
    return pd.DataFrame(cells, index=pd.RangeIndex(len(frame)), dtype=object)


def read_label_file(
    path: Path, item: str, label: str, pool_ids: pd.Index, *, other: bool = False
) -> tuple[pd.DataFrame, str]:
    """Cells as text and the label column (``other``: else the one beside the id)."""
    if not path.is_file():
        raise ValidationError(f"label file {path} does not exist")
    refuse_workbook(path)  # a spreadsheet's file bacon does not read (.ods, .xls)
    kind = _label_format(path)
    how: dict = {}
    if kind != "csv":
        frame = _typed_label_file(path, kind)
    else:
        how = csv_options(path)
        try:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, **how)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise ValidationError(
                f"label file {path} is not a readable CSV: {exc}; pass {_FORMATS}"
            ) from exc
        frame = restored(frame)  # ids a to-label file quoted against spreadsheet formulas
        frame.attrs["header line"] = int(how.get("skiprows", 0))
        if (starts := record_lines(path, how, len(frame))) is not None:  # blank lines,
            frame.attrs["record lines"] = FileRows(starts)  # cells of several lines
        frame, skipped = without_blank_rows(frame)  # a spreadsheet's ';;;;' rows
        frame.attrs["blank rows"] = skipped
    cased = _named(list(frame.columns), label)  # `Correct` for `correct`: read, and said
    if not cased:  # a spreadsheet's header with the scale after the name: `Coherence (1-5)`
        cased = [c for c in frame.columns if _named([_UNIT.sub("", str(c))], label)]
    column = label if label in frame.columns else str(cased[0]) if len(cased) == 1 else None
    column = column or ("label" if "label" in frame.columns else None)
    rest = [c for c in frame.columns if not _named([c], item)]
    column = column or (str(rest[0]) if other and len(rest) == 1 else None)
    item_column = file_id_column(frame, item, column or label, pool_ids, path)
    if column is None:  # the columns as the file writes them (the id not yet renamed)
        also = " (or 'label')" if label != "label" else ""
        raise ValidationError(
            f"label file {path} has no label column {label!r}{also}; "
            f"columns: {list(frame.columns)}{_label_fix(frame, item_column, label)}"
        )
    said = [f"ids read from column {item_column!r}"] if item_column != item else []
    said += [f"labels read from column {column!r}"] if column not in (None, label, "label") else []
    if said:  # the study's names written otherwise
        frame = frame.rename(columns={item_column: item})
        frame.attrs["id note"] = f"{' and '.join(said)} (the study's: {item!r}, {label!r})"
    if how.get("decimal") == ",":  # a spreadsheet's decimal comma: 39,5 is 39.5
        frame[column] = frame[column].str.replace(",", ".", regex=False)
    return frame, column


def _label_fix(frame: pd.DataFrame, item: str, label: str) -> str:
    """How to give a label file without its label column one: the raters' mean where
    several columns of numbers hold ratings (three experts, a column each), else the one
    such column renamed; "" when no column holds numbers. ``item``: the file's id column,
    as it names it."""
    numbers = []
    for c in frame.columns:
        if c in (item, "wave"):
            continue
        cells = frame[c].astype(str).str.strip()
        cells = cells[cells != ""]
        if len(cells) and pd.to_numeric(cells, errors="coerce").notna().all():
            numbers.append(str(c))
    if len(numbers) == 1:
        return f"; rename column {numbers[0]!r} to {label!r} if it holds the labels"
    if numbers:
        return (
            f"; if {', '.join(map(repr, numbers))} are raters of the same items, write their "
            f"mean in a column {label!r} (in pandas: df[{label!r}] = df[{numbers!r}]"
            ".mean(axis=1)) and import that file"
        )
    return ""
