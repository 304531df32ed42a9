"""A table written as one JSON document in a layout other than a list of records.

Followed: Weights & Biases tables (``wandb.Table`` saved as ``<name>.table.json``:
``{"_type": "table", "columns": [...], "data": [[...], ...]}``) and pandas
``DataFrame.to_json`` with ``orient="split"`` (``columns``, ``data``, perhaps ``index``),
``"table"`` (``schema`` with ``fields``, ``data`` a list of records), ``"columns"``
(``{column: {row: value}}``) and ``"index"`` (``{row: {column: value}}``). A list of
records (``orient="records"``) is read by :func:`bacon_bayes.readers._read_json` itself.
"""

from __future__ import annotations

from typing import Any

#: the column an ``orient="index"`` document's row keys are written into (``index``
#: where a column of that name exists)
ROW_KEY = "id"


def _is_rows(data: Any, width: int) -> bool:
    """Whether ``data`` is a list of rows of ``width`` cells each."""
    return isinstance(data, list) and all(isinstance(r, list) and len(r) == width for r in data)


def _split(doc: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The records of ``{"columns": [...], "data": [[...], ...]}`` (W&B, orient="split")."""
    columns = doc.get("columns")
    if not isinstance(columns, list) or not all(isinstance(c, str | int) for c in columns):
        return None
    names = [str(c) for c in columns]
    if len(set(names)) < len(names) or not _is_rows(doc.get("data"), len(names)):
        return None
    return [dict(zip(names, row, strict=True)) for row in doc["data"]]


def _schema_table(doc: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The records of pandas' ``orient="table"``: the default index (``index``, the
    schema's primary key, 0, 1, 2...) left out."""
    schema, data = doc.get("schema"), doc.get("data")
    if not isinstance(schema, dict) or not isinstance(schema.get("fields"), list):
        return None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        return None
    if schema.get("primaryKey") == ["index"] and [r.get("index") for r in data] == list(
        range(len(data))
    ):
        data = [{k: v for k, v in r.items() if k != "index"} for r in data]
    return data


def _numbered(keys: list[str]) -> bool:
    """Whether ``keys`` are ``"0"``, ``"1"``, ... in order (pandas' default index)."""
    return keys == [str(k) for k in range(len(keys))]


def _nested(doc: dict[str, Any]) -> tuple[list[dict[str, Any]], str] | None:
    """The records of a dict of dicts, ``orient="columns"`` or ``orient="index"``: each
    inner dict with the same keys (pandas writes every cell, ``null`` for a missing one).

    Told apart by the default index ``"0"``, ``"1"``...: the inner keys in a table by
    columns, the outer ones in a table by rows; else a table has more rows than columns.
    """
    if not doc or not all(isinstance(v, dict) and v for v in doc.values()):
        return None
    outer = list(doc)
    inner = list(next(iter(doc.values())))
    if any(list(v) != inner for v in doc.values()):
        return None
    if _numbered(inner) or (not _numbered(outer) and len(outer) < len(inner)):
        return [{c: doc[c][k] for c in outer} for k in inner], "orient='columns'"
    key = "index" if ROW_KEY in inner else ROW_KEY
    rows = [{key: r, **doc[r]} for r in outer]
    return rows, f"orient='index', its row keys as the column {key!r}"


def table_records(doc: Any) -> tuple[list[dict[str, Any]], str] | None:
    """The rows of a JSON table in one of the layouts this module follows, and how it was
    read (said to the user), or None for a document in none of them.

    Parameters
    ----------
    doc : Any
        The parsed JSON document.

    Returns
    -------
    tuple of (list of dict, str) or None
        One dict per row, column -> cell; and e.g. ``"a W&B table (columns, data)"``.
    """
    if not isinstance(doc, dict):
        return None
    if (rows := _split(doc)) is not None:
        if doc.get("_type") == "table":
            return rows, "a W&B table (columns, data)"
        return rows, "a pandas table written with orient='split' (columns, data)"
    if (rows := _schema_table(doc)) is not None:
        return rows, "a pandas table written with orient='table' (schema, data)"
    if (nested := _nested(doc)) is not None:
        return nested[0], f"a pandas table written with {nested[1]}"
    return None
