"""``bacon demo``: the whole pipeline on the shipped sample data."""

from __future__ import annotations

import argparse

from bacon_bayes.outputs import FORCE_HELP, claim

#: As ``bacon_bayes.demo.DIMENSIONS`` (the parser is built without the library;
#: tests/test_cli_startup.py checks).
DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run the pipeline on the shipped SummEval sample")
    p.add_argument(
        "--dimension",
        default="relevance",
        choices=DIMENSIONS,
        help="SummEval dimension whose expert ratings are the label (relevance)",
    )
    p.add_argument("--fraction", type=float, default=0.1, help="share of labels kept (0.1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the label draw and folds (0)")
    p.add_argument(
        "--engine",
        default="bayes",
        choices=("bayes", "freq"),
        help="bayes: hierarchical judge model (~30 s); freq: ridge (~1 s)",
    )
    p.add_argument(
        "--report", default="demo-report.html", help="HTML report to write (demo-report.html)"
    )
    p.add_argument("--force", action="store_true", help="--report: " + FORCE_HELP)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.demo import run_demo

    with claim(args.report, option="--report", force=args.force) as out:
        print(run_demo(args.dimension, args.fraction, args.seed, args.engine, out))
        out.written()
    return 0
