"""Reading the files evaluation tools write: CSV/Parquet tables, Inspect AI logs,
lm-eval-harness sample logs, promptfoo results, OpenAI evals logs, Label Studio and
Argilla exports, W&B and pandas JSON tables and generic JSON Lines.

:func:`read_any` sniffs the format and returns the table with a :class:`TableMeta` that
says which columns are ids, judges, texts and groups; :func:`join_labels` joins a
separate labels file by id. Pairwise-preference files (Arena, AlpacaEval, MT-Bench) have
their own entry, :func:`read_pairwise` (one row per comparison, verdicts A/B/tie).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.io import ITEM_COLUMNS, item_name, read_table, refuse_workbook
from bacon_bayes.readers.labels import join_labels, label_column
from bacon_bayes.readers.meta import TableMeta, id_column
from bacon_bayes.readers.pairwise import read_pairwise
from bacon_bayes.words import bools_as_floats
from bacon_bayes.workbook import is_workbook

__all__ = [
    "FORMATS",
    "TableMeta",
    "join_labels",
    "label_column",
    "read_any",
    "read_pairwise",
    "sniff",
]

#: The recursion limit while a JSON document is read and flattened: deeper nesting is
#: refused (no evaluation tool writes it), whatever limit a library has set.
MAX_NESTING = 1000

FORMATS = (
    "CSV (.csv, .csv.gz), Parquet (.parquet), an Excel workbook (.xlsx), an Inspect AI log "
    "(.eval, .json), an lm-eval-harness sample log (samples_*.jsonl), a promptfoo result file "
    "(.json), a Label Studio export (JSON, JSON-MIN), an Argilla export (.json, .jsonl), an "
    "OpenAI evals log (.jsonl), a W&B table (.table.json), a pandas to_json table (.json) or "
    "JSON Lines (.jsonl)"
)

#: the formats that are plain tables (no eval harness's log): rows are what the user wrote
TABLES = ("csv", "tsv", "parquet", "xlsx")


def sniff(path: Path) -> str:
    """The format of ``path``: ``parquet``, ``csv``, ``inspect``, ``json`` or ``jsonl``
    (JSON documents are told apart after parsing)."""
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith(".eval"):
        return "inspect"
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".json"):
        from bacon_bayes.readers.jsonl import is_json_lines

        return "jsonl" if is_json_lines(path) else "json"
    if name.endswith((".csv", ".csv.gz")):
        return "csv"
    if is_workbook(path):
        return "xlsx"
    refuse_workbook(path)
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if head.startswith(b"PK"):
        return "inspect"  # .eval logs are zip files
    if head.startswith(b"PAR1"):
        return "parquet"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")  # past a UTF-8 byte order mark
    if text.startswith(b"["):  # a JSON array (of records)
        return "json"
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0]
        try:
            json.loads(first)
            return "jsonl"
        except ValueError:
            return "json"
    return "csv"


def _read_json(path: Path) -> tuple[pd.DataFrame, TableMeta]:
    from bacon_bayes.readers import inspect_log, labelling, promptfoo
    from bacon_bayes.readers.json_tables import table_records
    from bacon_bayes.readers.jsonl import flatten

    try:
        doc: Any = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationError(f"{str(path)!r} is not valid JSON ({exc}); pass {FORMATS}.") from exc
    if inspect_log.looks_like(doc):
        return inspect_log.read_inspect(path)
    if promptfoo.looks_like(doc):
        return promptfoo.read_promptfoo(doc, str(path))
    if (export := labelling.read_export(doc, str(path))) is not None:
        return export
    read_as = ""
    if (table := table_records(doc)) is not None:  # W&B, pandas' other orients
        doc, read_as = table
    if isinstance(doc, list) and doc and all(isinstance(r, dict) for r in doc):
        frame = pd.DataFrame([flatten(r) for r in doc])
        if read_as:
            frame.attrs["read as"] = f"read as {read_as}"
        return frame, TableMeta(format="json", item=id_column(frame, ITEM_COLUMNS))
    keys = ", ".join(list(doc)[:8]) if isinstance(doc, dict) else type(doc).__name__
    raise ValidationError(
        f"{str(path)!r} is JSON but neither an Inspect AI log (eval, samples) nor a promptfoo "
        f"result file (results.results) nor a table (a list of records; a W&B table or "
        f"pandas' split, table, columns or index layouts) (top level: {keys}); pass "
        f"{FORMATS}."
    )


def csv_recipe(path: str | Path) -> tuple[str, str]:
    """A shell line that writes ``path`` (a JSON Lines file, an Inspect or lm-eval log...)
    as the CSV table a study draws from, read as every command reads it (nested objects
    as ``a.b`` columns), and that CSV's name (``nested.csv`` beside ``nested.jsonl``;
    ``nested_table.csv`` where that file exists: the user's, not to be replaced)."""
    path = Path(path)
    stem = path.name.split(".")[0]
    tails = ["", "_table", *(f"_table{k}" for k in range(2, 99))]
    names = (f"{stem}{tail}.csv" for tail in tails)
    out = next(str(path.with_name(n)) for n in names if not path.with_name(n).exists())
    from bacon_bayes.csv_format import python_command

    line = python_command(
        "from bacon_bayes.readers import read_any; "
        f"read_any({str(path)!r})[0].to_csv({out!r}, index=False)"
    )
    return line, out


def read_any(path: str | Path, names: Iterable[str] = ()) -> tuple[pd.DataFrame, TableMeta]:
    """Read a table of judge scores in any format bacon knows.

    Parameters
    ----------
    path : str or Path
        See :data:`FORMATS`.
    names : columns that name things (group, item, prompt), for a CSV: their cells
        ``NA``, ``null``... are names, not missing values (:func:`~bacon_bayes.io.read_table`).

    Returns
    -------
    frame : DataFrame
        One row per item.
    meta : TableMeta
        The roles of the columns the format fixes (for CSV/Parquet: none).

    Raises
    ------
    ValidationError
        A missing file, a folder, or a file of none of these formats.
    """
    from bacon_bayes.readers import arena_hard, inspect_log, labelling, lm_eval, oai_evals
    from bacon_bayes.readers.jsonl import first_object, read_jsonl, read_lines

    path = Path(path)
    if not path.exists():
        raise ValidationError(f"file {str(path)!r} does not exist; check the path.")
    if path.is_dir():
        raise ValidationError(f"{str(path)!r} is a folder; pass a file: {FORMATS}.")
    kind = sniff(path)
    if kind in ("csv", "parquet", "xlsx"):
        return read_table(path, names=names), TableMeta(format=kind)
    limit = sys.getrecursionlimit()  # a library (PyTensor, ...) may have raised it:
    sys.setrecursionlimit(min(limit, MAX_NESTING))  # the depth refused is ours, not theirs
    try:
        if kind == "inspect":
            frame, meta = inspect_log.read_inspect(path)
        elif kind == "json":
            frame, meta = _read_json(path)
        elif lm_eval.looks_like(first := first_object(path)):  # not the whole file
            frame, meta = lm_eval.read_lm_eval(path)
        elif labelling.is_argilla([first]):
            frame, meta = labelling.read_argilla(read_lines(path), str(path))
        elif oai_evals.looks_like(first):
            frame, meta = oai_evals.read_oai_evals(path)
        elif arena_hard.looks_like(first):  # comparisons with a baseline named nowhere
            raise ValidationError(
                f"{str(path)!r} holds Arena-Hard judgments (each model against a baseline, "
                f"two games): bacon doctor {str(path)!r} --baseline-model NAME reads them "
                "and prints the line that writes them as a table of comparisons."
            )
        else:
            frame, meta = read_jsonl(path)
        ids = [c for c in frame.columns if item_name(c) or c == meta.item]
        numbers = meta.format in ("json", "jsonl")  # records as a table: numbers as text too
        out = bools_as_floats(frame, numbers=numbers, ids=ids)
        out.attrs |= {k: v for k, v in frame.attrs.items() if k not in out.attrs}
        return out, meta
    except RecursionError:  # parsing or flattening a document nested thousands deep
        raise ValidationError(
            f"{str(path)!r} is nested too deeply to read (objects or lists inside each other "
            "hundreds of levels deep); no evaluation tool writes that: flatten it, or pass "
            f"{FORMATS}."
        ) from None
    finally:
        sys.setrecursionlimit(limit)
