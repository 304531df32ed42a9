"""``bacon report``: one self-contained HTML page of the results."""

from __future__ import annotations

import argparse
from pathlib import Path

from bacon_bayes.cli.estimate import (
    add_calibrator_arguments,
    add_pool_arguments,
    calibrator_from_args,
    pool_from_args,
)
from bacon_bayes.errors import ValidationError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write one self-contained HTML report (estimates, groups, judge bias, ...)",
        description="Fit the calibration as `bacon estimate` does (FILE is a table or a study "
        "folder) or read a saved calibrator (FILE ending in .nc), and write one HTML page that "
        "opens offline: settings and convergence, population estimates, groups, judge bias, "
        "calibration, items, and the curves of a `bacon simulate` folder when given.",
    )
    add_pool_arguments(p)
    add_calibrator_arguments(p)
    p.add_argument("--out", required=True, type=Path, help="HTML file to write")
    p.add_argument("--simulate", type=Path, help="output folder of `bacon simulate` to include")
    p.add_argument("--title", help="page title")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.calibrator import Calibrator

    if args.out.suffix.lower() not in (".html", ".htm"):
        raise ValidationError(f"--out {str(args.out)!r} should end in .html")
    from bacon_bayes.planning import resolution_note

    if str(args.file).endswith(".nc"):
        cal = Calibrator.load(args.file)
    else:
        cal = calibrator_from_args(args).fit(pool_from_args(args))
    note = resolution_note(cal.pool_, args.alpha, group_column=getattr(args, "group", None))
    path = cal.report(
        args.out, simulate=args.simulate, title=args.title, alpha=args.alpha, plan_note=note
    )
    print(f"report written to {path} (open it in a browser; it works offline)")
    return 0
