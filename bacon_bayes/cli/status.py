"""``bacon status``: labeled and pending counts per sampling wave of a study."""

from __future__ import annotations

import argparse
from pathlib import Path

from bacon_bayes.outputs import FORCE_HELP, claim


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``bacon status``."""
    p = subparsers.add_parser("status", help="labeled / pending items per wave of a study")
    p.add_argument("study", type=Path, help="study folder")
    p.add_argument("--pending-out", type=Path, help="write the pending items to this CSV")
    p.add_argument(
        "--show",
        default="",
        help="pool columns to copy into --pending-out (default: the study's, from bacon "
        "sample --show)",
    )
    p.add_argument("--force", action="store_true", help="--pending-out: " + FORCE_HELP)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the per-wave table (and optionally write the pending items)."""
    from bacon_bayes.study import Study, pending_items
    from bacon_bayes.study.folder import study_inputs

    study = Study.open(args.study)
    table = study.status()
    print(f"study {args.study}: {study.n_items} pool items, {len(study.labels)} labeled")
    if table.empty:
        print("no sampling wave yet; run `bacon sample`")
        return 0
    print(table.to_string(index=False))
    totals = table[["selected", "labeled", "pending"]].sum()
    print(
        f"total: {totals['selected']} selected, {totals['labeled']} labeled, "
        f"{totals['pending']} pending"
    )
    if args.pending_out:
        show = [c.strip() for c in args.show.split(",") if c.strip()] or None
        pending = pending_items(study, show=show)
        inputs = study_inputs(args.study)
        with claim(
            args.pending_out, option="--pending-out", inputs=inputs, force=args.force
        ) as out:
            from bacon_bayes.io import people_csv

            out.write_text(people_csv(pending))
        print(f"{len(pending)} pending items written to {args.pending_out}")
    return 0
