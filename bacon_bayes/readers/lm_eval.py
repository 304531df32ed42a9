"""lm-evaluation-harness sample logs (``samples_<task>_<date>.jsonl`` of ``--log_samples``).

Followed: lm-eval 0.4.x (``lm_eval/evaluator.py``, ``evaluate``): each line is one document
with ``doc_id``, ``doc``, ``target``, ``arguments`` (``{"gen_args_0": {"arg_0": context,
"arg_1": ...}}``; a list of lists before 0.4.3), ``resps``, ``filtered_resps``, ``filter``,
``metrics`` (the names of the per-sample metrics) and one top-level field per metric
(``acc``, ``exact_match``, a custom LLM-judge metric ...). A task run with several filters
writes one line per document and filter.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.readers.jsonl import read_lines
from bacon_bayes.readers.meta import TableMeta

REQUIRED = ("doc_id", "metrics")


def looks_like(row: dict[str, Any]) -> bool:
    """Whether a JSON object is a line of an lm-eval sample log."""
    return all(k in row for k in REQUIRED) and ("resps" in row or "filtered_resps" in row)


def _context(arguments: Any) -> str | None:
    """The prompt (the first request's first argument), in either layout."""
    first: Any = None
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        first = next(iter(first.values())) if isinstance(first, dict) and first else first
    elif isinstance(arguments, list) and arguments:
        first = arguments[0][0] if isinstance(arguments[0], list) and arguments[0] else None
    return first if isinstance(first, str) else None


def _response(resps: Any) -> str | None:
    """The (filtered) response as text: the first string, else JSON."""
    while isinstance(resps, list) and len(resps) == 1:
        resps = resps[0]
    if resps is None:
        return None
    return resps if isinstance(resps, str) else json.dumps(resps, ensure_ascii=False)


def _number(value: Any) -> float | None:
    """A metric value as a float (booleans 1/0), None when it is not a number."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _refuse_repeated_docs(path: str | Path, lines: list[dict[str, Any]]) -> None:
    """Refuse a doc_id that comes back with the same filter.

    lm-eval writes one line per document and filter; a repeat means two logs were put in one
    file (``cat`` of two tasks' logs) or a run was appended to, and merging the lines would
    pair one document's scores with another's text and labels.
    """
    seen: dict[tuple[str, str], int] = {}
    repeats: list[tuple[Any, str, int, int]] = []
    for number, r in enumerate(lines, start=1):
        key = (json.dumps(r["doc_id"]), str(r.get("filter", "none")))
        if key in seen:
            repeats.append((r["doc_id"], key[1], seen[key], number))
        else:
            seen[key] = number
    if not repeats:
        return
    doc, filt, first, again = repeats[0]
    documents = len({key[0] for key in seen})
    more = f" (and {len(repeats) - 1} more repeated doc_ids)" if len(repeats) > 1 else ""
    raise ValidationError(
        f"{str(path)!r}: doc_id {doc!r} appears twice with the filter {filt!r}, in objects "
        f"{first} and {again}{more}; lm-eval writes one line per document and filter, so the "
        f"file holds {len(lines)} lines for {documents} documents: two logs put together "
        "(one task's samples after another's?). Read one samples_<task>_<date>.jsonl file "
        "per task, each with its own labels."
    )


def read_lm_eval(path: str | Path) -> tuple[pd.DataFrame, TableMeta]:
    """Read an lm-eval-harness sample log.

    Parameters
    ----------
    path : str or Path
        A ``samples_<task>_<date>.jsonl`` file written with ``--log_samples``.

    Returns
    -------
    frame : DataFrame
        One row per document: ``doc_id``, one column per numeric per-sample metric
        (``metric`` or, with several filters, ``metric|filter``), ``input`` (the prompt),
        ``output`` (the filtered response), ``target``.
    meta : TableMeta
        ``doc_id`` as the item, the metrics as judges.
    """
    lines = read_lines(path)
    bad = next((n for n, r in enumerate(lines, start=1) if not looks_like(r)), None)
    if bad is not None:
        raise ValidationError(
            f"{str(path)!r} object {bad} is not an lm-eval sample record (needs doc_id, "
            "metrics and resps); pass the samples_<task>_<date>.jsonl file lm-eval writes "
            "with --log_samples."
        )
    _refuse_repeated_docs(path, lines)
    filters = list(dict.fromkeys(str(r.get("filter", "none")) for r in lines))
    rows: dict[Any, dict[str, Any]] = {}
    skipped: set[str] = set()
    judges: list[str] = []
    for r in lines:
        filt = str(r.get("filter", "none"))
        row = rows.setdefault(r["doc_id"], {"doc_id": r["doc_id"]})
        if filt == filters[0]:
            row["input"] = _context(r.get("arguments"))
            row["output"] = _response(r.get("filtered_resps", r.get("resps")))
            target = r.get("target")
            row["target"] = target if isinstance(target, str | int | float) else json.dumps(target)
        for metric in r["metrics"]:
            value = _number(r.get(metric))
            if value is None:
                skipped.add(metric)
                continue
            name = metric if len(filters) == 1 else f"{metric}|{filt}"
            row[name] = value
            if name not in judges:
                judges.append(name)
    frame = pd.DataFrame(list(rows.values()))
    notes = []
    if skipped - set(judges):
        notes.append(
            f"metrics without a number per document left out: {', '.join(sorted(skipped))}"
        )
    if not judges:
        raise ValidationError(
            f"{str(path)!r} has no numeric per-sample metric (its metrics: "
            f"{', '.join(sorted(skipped)) or 'none'}); bacon needs a score per document."
        )
    text = [c for c in ("output", "input") if frame[c].notna().any()]
    meta = TableMeta(
        format="lm-eval",
        item="doc_id",
        judges=judges,
        text=text,
        response="output" if "output" in text else None,
        notes=notes,
        judge_kinds=dict.fromkeys(judges, "a per-sample metric"),
    )
    return frame, meta
