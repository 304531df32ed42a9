"""``bacon drift ANCHOR --calibrator CAL.nc --judge-version OLD=NEW``: how far a new judge
version moved, on the human scale (:mod:`bacon_bayes.drift`)."""

from __future__ import annotations

import argparse

import numpy as np

from bacon_bayes.errors import ValidationError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "drift",
        help="judge drift on an anchor set: a new judge version's shift on the human scale",
        description="ANCHOR holds the same items scored by the old and the new version of a "
        "judge (or the same judge on two dates), one column each; no labels needed. For "
        "each --judge-version OLD=NEW: the mean shift new - old on the judge's scale "
        "(paired interval) and on the human scale (divided by the judge's scale against the "
        "label, measured on the calibrator's labels; Fieller interval). OLD must be a judge "
        "of the calibrator.",
    )
    p.add_argument("anchor", help="anchor table (CSV or Parquet), one row per item")
    p.add_argument(
        "--calibrator",
        required=True,
        metavar="CAL.nc",
        help="a saved calibrator (bacon estimate --save) whose judges include each OLD",
    )
    p.add_argument(
        "--judge-version",
        metavar="OLD=NEW",
        action="append",
        default=[],
        help="old-version column (a judge of the calibrator) = new-version column (repeat)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level (0.05)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.cli.ledger import drift_from_args
    from bacon_bayes.drift import scale_words
    from bacon_bayes.results import json_text

    if not args.judge_version:
        raise ValidationError(
            "pass --judge-version OLD=NEW (the old and the new version's score columns)"
        )
    cal = Calibrator.load(args.calibrator)
    table = drift_from_args(cal, args)
    assert table is not None
    scale = scale_words(cal)
    if args.json:
        rows = table.replace({np.nan: None}).to_dict("records")
        print(json_text({"alpha": args.alpha, "scale_is": scale, "drift": rows}))
        return 0
    print(
        f"Judge drift on {args.anchor!r} ({1 - args.alpha:.0%} intervals): shift_judge = mean "
        "new - old score (judge's scale); shift_human = shift_judge / scale, on the label's "
        f"scale; scale in {args.calibrator!r}: {scale}"
    )
    shown = table.drop(columns="note") if not table["note"].astype(bool).any() else table
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0
