"""``bacon label import``: merge returned human labels into a study."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``bacon label`` and its ``import`` action."""
    p = subparsers.add_parser("label", help="manage human labels of a study")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    imp = actions.add_parser(
        "import",
        help="merge a file of returned labels (CSV, Parquet, JSON) into the study",
        description="Merge returned labels into a study, or returned votes (A / B / tie) "
        "into the table of comparisons bacon sample --pairwise wrote. The whole file is "
        "refused (nothing written) on unknown or unsampled ids, labels off the scale or "
        "votes that are no verdict, and repeated or conflicting ids; existing labels are "
        "never lost.",
    )
    imp.add_argument(
        "file",
        type=Path,
        help="CSV/TSV, Parquet or JSON (records, JSON Lines) with the id and label columns",
    )
    imp.add_argument(
        "--study",
        type=Path,
        default=Path("."),
        help="study folder (default: .), or the table bacon sample --pairwise wrote (WAVE.csv)",
    )
    imp.add_argument(
        "--replace", action="store_true", help="let the file correct labels already stored"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Import and print what changed."""
    from bacon_bayes.study.pair_votes import import_returned

    summary = import_returned(args.study, args.file, replace=args.replace)
    print(f"{args.study}: {summary}")
    return 0
