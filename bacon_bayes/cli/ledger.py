"""``--history FILE`` and ``--round NAME`` of ``bacon estimate`` (the ledger of rounds,
:mod:`bacon_bayes.history`), and ``--anchor``/``--judge-version`` (judge drift,
:mod:`bacon_bayes.drift`) of ``bacon report``.

The ledger is claimed (:func:`bacon_bayes.outputs.claim`) before the work and read and
checked at once: a damaged ledger, or one bacon did not write (edited by hand; ``--force``
accepts it if it still reads), stops the command before anything is written. The round's
project is checked against it as soon as the pool is read, before ``--save`` writes. The
record is appended (the ledger read, a line added, rewritten atomically) after the
estimates, under the claim's lock beside the ledger, which every writer of it takes
whatever its state folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import Output

if TYPE_CHECKING:
    import pandas as pd


def add_history_arguments(p: argparse.ArgumentParser) -> None:
    """``--history`` and ``--round`` of ``bacon estimate``."""
    g = p.add_argument_group("history of rounds")
    g.add_argument(
        "--history",
        metavar="FILE",
        help="append this round (estimates, intervals, calibrator id, judges, transport "
        "verdicts) as one line to this ledger, e.g. history.jsonl next to the calibrator; "
        "created when missing; `bacon report --history FILE` plots it",
    )
    g.add_argument(
        "--round",
        metavar="NAME",
        help="with --history: the round's name in the ledger (default: FILE's name)",
    )


def open_ledger(out: Output | None) -> list[dict[str, Any]] | None:
    """The claimed ledger's records (None without ``--history``); refuses a damaged one."""
    from bacon_bayes.history import read_history

    return None if out is None else read_history(out.given)


def check_ledger(cal: Any, records: list[dict[str, Any]] | None, args: argparse.Namespace) -> None:
    """Refuse a ledger of another project before anything is written."""
    from bacon_bayes.history import check_project, project_of

    if records is not None:
        check_project(records, project_of(cal), args.history)


def append_round(
    cal: Any,
    args: argparse.Namespace,
    out: Output,
    records: list[dict[str, Any]],
    *,
    validated: bool,
    saved_id: str | None = None,
) -> None:
    """Append the round's record to the claimed ledger and say so (to stderr with
    ``--json``, whose output stays one JSON document)."""
    from bacon_bayes.history import append_text, round_record
    from bacon_bayes.transport import transport_check

    transport = None
    if hasattr(cal, "frozen_") and validated:
        transport = transport_check(cal, args.tolerance, args.alpha)
    record = round_record(
        cal,
        round_name=args.round or Path(args.file).name,
        file=str(args.file),
        alpha=args.alpha,
        calibrator_path=args.calibrator,
        saved_id=saved_id,
        transport=transport,
        validated=validated,
    )
    existing = out.path.read_text(encoding="utf-8") if out.path.exists() else ""
    out.write_text(append_text(existing, record))
    n = len(records) + 1
    print(
        f"round {record['round']!r} appended to {str(out.given)!r} ({n} round line(s))",
        file=sys.stderr if args.json else sys.stdout,
    )


def add_drift_arguments(p: argparse.ArgumentParser) -> None:
    """``--anchor`` and ``--judge-version`` (``bacon report``, ``bacon drift``)."""
    p.add_argument(
        "--anchor",
        metavar="FILE",
        help="anchor table (CSV or Parquet): the same items scored by an old and a new "
        "version of a judge, one column each (see --judge-version)",
    )
    p.add_argument(
        "--judge-version",
        metavar="OLD=NEW",
        action="append",
        default=[],
        help="with --anchor: a judge's old-version column (a judge of the calibrator) and "
        "its new-version column (repeat for several judges)",
    )


def drift_from_args(cal: Any, args: argparse.Namespace) -> pd.DataFrame | None:
    """The judge-drift table of ``--anchor`` (None without it)."""
    from bacon_bayes.drift import judge_drift, parse_versions
    from bacon_bayes.io import read_table

    if not args.anchor:
        if args.judge_version:
            raise ValidationError("--judge-version needs --anchor FILE (the anchor table)")
        return None
    if not args.judge_version:
        raise ValidationError(
            "--anchor needs --judge-version OLD=NEW: which column is a judge's old version "
            "(a judge of the calibrator) and which its new one"
        )
    versions = parse_versions(args.judge_version)
    anchor = read_table(args.anchor)
    return judge_drift(anchor, versions, cal, args.alpha, source=f"anchor table {args.anchor!r}")
