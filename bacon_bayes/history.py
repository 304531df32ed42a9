"""The history ledger: one line per evaluation round, for a trend across rounds.

A ledger is a JSON Lines file that ``bacon estimate ... --history FILE`` appends to: each
line one round's record (:func:`round_record`), tagged ``"format":
"bacon_bayes.history/1"``, with

* ``project``: the label's name and type and the judges (their names carry their
  versions, e.g. ``judge:gpt-4-0314|rts|relevance``). A ledger belongs to one project: a
  round of another label, another label type, or judges none of which the ledger has
  seen, is refused (:func:`check_project`);
* ``time`` (UTC, ISO 8601), ``round`` (``--round``, default the pool's file name) and
  ``file``;
* ``calibrator``: ``used`` (the ``save_id`` of the ``--calibrator`` that scored the pool,
  None for a fresh calibration), ``path``, and ``saved`` (the ``save_id`` of the
  ``--save`` file written by this round, None without it); ``mode`` is ``fresh``,
  ``frozen`` or ``refit``;
* ``n_items``, ``n_labels`` (this pool's labels: the fresh labels of a round scored by an
  earlier calibrator), ``alpha``;
* ``mean``: the AEE pool mean with ``se``, ``ci_low``, ``ci_high`` (``validated`` false
  and no interval below the fresh labels an interval needs), ``groups``: each group's AEE
  mean with its simultaneous interval, ``labels``;
* ``transport``: the tolerance and each row's verdict, estimate and interval (the old
  calibration's, :func:`bacon_bayes.transport.transport_check`), None for a fresh
  calibration.

Reading (:func:`read_history`) refuses a damaged ledger (a truncated line, a line that is
not a record of this format) with the line's number; nothing is appended to it then.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.atomic import atomic_write_text
from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import output_lock

__all__ = [
    "FORMAT",
    "append_history",
    "append_text",
    "check_project",
    "latest_rounds",
    "project_of",
    "read_history",
    "round_record",
]

FORMAT = "bacon_bayes.history/1"
_FIX = "Pass another --history file (or repair this one from a copy)"


def _plain(value: Any) -> Any:
    """JSON-ready: numpy scalars as Python ones, non-finite floats as None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def project_of(cal: Any) -> dict[str, Any]:
    """The project key of a fitted calibrator's pool: label, its type, the judges."""
    pool = cal.pool_
    return {
        "label": str(pool.label_name),
        "outcome": str(pool.outcome.kind),
        "judges": [str(j) for j in pool.judges],
    }


def read_history(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ledger (an empty list for a missing or empty file).

    Raises
    ------
    ValidationError
        A line is not JSON (a truncated write, an edit) or not a record of
        :data:`FORMAT`; the message names the file and the line.
    """
    path = Path(path)
    if not path.exists():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(
            f"history ledger {str(path)!r} is not text (a binary file?): not a bacon "
            f"history ledger; {_FIX}"
        ) from exc
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                f"history ledger {str(path)!r}, line {number}: not a JSON record (a "
                f"truncated or edited line: {exc.msg}); nothing was written. {_FIX}"
            ) from exc
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            found = record.get("format") if isinstance(record, dict) else type(record).__name__
            raise ValidationError(
                f"history ledger {str(path)!r}, line {number}: not a bacon history record "
                f"(format {found!r}, expected {FORMAT!r}); nothing was written. {_FIX}"
            )
        for key in ("project", "round", "mean"):
            if not isinstance(record.get(key), dict | str):
                raise ValidationError(
                    f"history ledger {str(path)!r}, line {number}: the record has no "
                    f"{key!r}; nothing was written. {_FIX}"
                )
        records.append(record)
    return records


def check_project(records: Sequence[dict[str, Any]], project: dict[str, Any], path: Any) -> None:
    """Refuse to add a round of another project to a ledger: another label name or type,
    or judges none of which the ledger's rounds used."""
    if not records:
        return
    first = records[0]["project"]
    seen = {str(j) for r in records for j in r["project"].get("judges", [])}
    judges = first.get("judges", [])
    shown = ", ".join(map(str, judges[:4])) + (" ..." if len(judges) > 4 else "")
    same = (
        first.get("label") == project["label"]
        and first.get("outcome") == project["outcome"]
        and bool(seen & set(project["judges"]))
    )
    if not same:
        raise ValidationError(
            f"history ledger {str(path)!r} belongs to label {first.get('label')!r} "
            f"({first.get('outcome')}) with judges {shown}, and this round is label "
            f"{project['label']!r} ({project['outcome']}) with judges "
            f"{', '.join(project['judges'][:4])}{' ...' if len(project['judges']) > 4 else ''}; "
            "nothing was written. Pass another --history file (one ledger per project)"
        )


def _groups(cal: Any, alpha: float) -> list[dict[str, Any]]:
    if cal.pool_.groups is None:
        return []
    try:
        table = cal.estimate_groups(alpha, True, "aee")
    except ValidationError:  # a group with fewer than 2 labels: no group means this round
        return []
    return [
        {
            "group": str(name),
            "estimate": table.estimate[k],
            "ci_low": table.ci_low[k],
            "ci_high": table.ci_high[k],
            "labels": int(table.n_labeled[k]),
        }
        for k, name in enumerate(table.names)
    ]


def round_record(
    cal: Any,
    *,
    round_name: str,
    file: str | None = None,
    alpha: float = 0.05,
    calibrator_path: str | None = None,
    saved_id: str | None = None,
    transport: tuple[pd.DataFrame, float] | None = None,
    validated: bool = True,
    time: dt.datetime | None = None,
) -> dict[str, Any]:
    """One round's ledger record (see the module docstring).

    Parameters
    ----------
    cal : Calibrator
        The fitted calibrator of the round's pool: fresh, frozen (``Calibrator.apply``) or
        refit.
    round_name, file : str
        The round's name and the pool's file.
    alpha : float
        The intervals are ``1 - alpha``.
    calibrator_path : str, optional
        The ``--calibrator`` file that scored the pool.
    saved_id : str, optional
        The ``save_id`` of the calibrator this round saved (``--save``).
    transport : (DataFrame, float), optional
        :func:`bacon_bayes.transport.transport_check`'s table and tolerance.
    validated : bool
        False when the pool had too few fresh labels for intervals: the mean is then the
        surrogate's own (:func:`bacon_bayes.frozen.unvalidated`), without interval.
    time : datetime, optional
        The record's time (default now, UTC).
    """
    mode = "refit" if hasattr(cal, "refit_") else "frozen" if hasattr(cal, "frozen_") else "fresh"
    used = None
    if mode == "frozen":
        used = cal.frozen_.save_id
    elif mode == "refit":
        used = cal.refit_.get("calibrator_id")
    pool = cal.pool_
    record: dict[str, Any] = {
        "format": FORMAT,
        "project": project_of(cal),
        "time": (time or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
        "round": round_name,
        "file": file,
        "calibrator": {"used": used, "path": calibrator_path, "saved": saved_id},
        "mode": mode,
        "n_items": pool.n_items,
        "n_labels": pool.n_labeled,
        "alpha": alpha,
    }
    if validated:
        m = cal.estimate_mean(alpha, "aee")
        record["mean"] = {
            "estimate": m.estimate,
            "se": m.se,
            "ci_low": m.ci_low,
            "ci_high": m.ci_high,
            "validated": True,
        }
        record["groups"] = _groups(cal, alpha)
    else:
        from bacon_bayes.frozen import unvalidated

        out = unvalidated(cal)
        record["mean"] = {"estimate": out["mean"], "validated": False}
        record["groups"] = [
            {"group": str(k), "estimate": v} for k, v in out.get("groups", {}).items()
        ]
    if transport is not None:
        table, tol = transport
        cols = ["group", "n_labels", "estimate", "ci_low", "ci_high", "verdict"]
        record["transport"] = {"tolerance": tol, "rows": table[cols].to_dict("records")}
    else:
        record["transport"] = None
    return _plain(record)


def append_text(existing: str, record: dict[str, Any]) -> str:
    """The ledger's text with ``record`` appended as one line."""
    line = json.dumps(record, allow_nan=False, sort_keys=False)
    if existing and not existing.endswith("\n"):
        existing += "\n"
    return existing + line + "\n"


def append_history(path: str | Path, record: dict[str, Any]) -> Path:
    """Append ``record`` to the ledger at ``path`` (library use; the command line does
    the same under :func:`bacon_bayes.outputs.claim`): under the ledger's lock beside it
    (:func:`bacon_bayes.outputs.output_lock`, refused when another process holds it) the
    ledger is read and checked (:func:`read_history`, :func:`check_project`) and rewritten
    atomically, so no round of another writer is lost."""
    path = Path(path)
    with output_lock(path.resolve(), f"history ledger {str(path)!r}"):
        check_project(read_history(path), record["project"], path)
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
        return atomic_write_text(path, append_text(existing, record))


def latest_rounds(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each round's latest record, in the order of those records (a round estimated
    again, with more labels say, keeps its latest line; the ledger keeps both)."""
    last = {r["round"]: k for k, r in enumerate(records)}
    return [records[k] for k in sorted(last.values())]
