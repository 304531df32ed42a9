"""Generic JSON Lines: one object per line, nested objects flattened to ``a.b`` columns."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.io import ITEM_COLUMNS
from bacon_bayes.readers.meta import TableMeta, id_column


def is_json_lines(path: str | Path) -> bool:
    """Whether a ``.json`` file holds JSON Lines (its first line a whole object and more
    after it: the Prediction-Powered Ranking repository's ``human.json``, for one), which
    a JSON parser refuses as "Extra data"."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(1 << 24)
            rest = fh.read(4096).strip()
        obj = json.loads(first) if first.strip() else None
    except (OSError, ValueError):
        return False
    return isinstance(obj, dict) and rest.startswith(b"{")


def json_records(path: Path, form: str, *, columns: bool = False) -> list[dict[str, Any]]:
    """The records of a ``.json`` file that holds a list of objects; with ``columns`` also
    a pandas ``to_json(orient="columns")`` table. ``form`` ends a refusal: the objects the
    file should hold (``'write [{"id": ..., "label": ...}, ...]'``)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationError(f"{str(path)!r} is not valid JSON ({exc}); {form}.") from exc
    if columns and isinstance(doc, dict):
        from bacon_bayes.readers.json_tables import table_records

        table = table_records(doc)  # pandas' orient="columns" and the other layouts
        doc = None if table is None else table[0]
    if not isinstance(doc, list) or not all(isinstance(r, dict) for r in doc):
        raise ValidationError(f"{str(path)!r} is JSON but not an array of records; {form}.")
    return doc


def read_lines(path: str | Path) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file (blank lines skipped).

    Raises
    ------
    ValidationError
        A line that is not a JSON object, named by its line number.
    """
    rows = list(iter_lines(path))
    if not rows:
        raise ValidationError(f"{str(path)!r} has no JSON objects; it is empty.")
    return rows


def first_object(path: str | Path) -> dict[str, Any]:
    """The first object of a JSON Lines file, the rest unread (what its format is)."""
    for obj in iter_lines(path):
        return obj
    raise ValidationError(f"{str(path)!r} has no JSON objects; it is empty.")


def iter_lines(path: str | Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSON Lines file one by one (see :func:`read_lines`)."""
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValidationError(
                    f"{str(path)!r} line {number} is not valid JSON ({exc.msg}); a JSON Lines "
                    "file holds one JSON object per line: fix or drop that line."
                ) from exc
            if not isinstance(obj, dict):
                raise ValidationError(
                    f"{str(path)!r} line {number} is a JSON {type(obj).__name__}, not an "
                    'object; each line must be one object like {"id": 1, "score": 0.5}.'
                )
            yield obj


def flatten(obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts as ``a.b`` keys; lists are kept as JSON text."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out |= flatten(value, name + ".")
        elif isinstance(value, list):
            out[name] = json.dumps(value, ensure_ascii=False)
        else:
            out[name] = value
    return out


def read_jsonl(path: str | Path) -> tuple[pd.DataFrame, TableMeta]:
    """Read a JSON Lines file into a flat table (nested dicts become ``a.b`` columns).

    Parameters
    ----------
    path : str or Path
        The ``.jsonl`` file.

    Returns
    -------
    frame : DataFrame
        One row per line.
    meta : TableMeta
        With ``item`` set when a column called ``id``, ``item``, ``item_id`` or
        ``doc_id`` has distinct values (:func:`~bacon_bayes.readers.meta.id_column`).
    """
    rows = [flatten(r) for r in iter_lines(path)]  # flattened as read: one list of records
    if not rows:
        raise ValidationError(f"{str(path)!r} has no JSON objects; it is empty.")
    frame = pd.DataFrame(rows)
    del rows
    item = id_column(frame, (*ITEM_COLUMNS, "doc_id"))
    return frame, TableMeta(format="jsonl", item=item)
