"""``bacon simulate``: Monte Carlo over label draws on a fully labeled table."""

from __future__ import annotations

import argparse
from pathlib import Path

from bacon_bayes.errors import ValidationError


def _list(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())


def _floats(text: str, what: str) -> tuple[float, ...]:
    try:
        return tuple(float(v) for v in _list(text))
    except ValueError as exc:
        raise ValidationError(
            f"--{what} must be numbers separated by commas, got {text!r}"
        ) from exc


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate",
        help="Monte Carlo of designs and estimators on a fully labeled table",
        description="Hide the labels of a fully labeled table, draw label samples with each "
        "design and budget, estimate the mean with each method, and compare with the "
        "full-data mean over many trials: bias, sd, RMSE, interval width and coverage (with "
        "its binomial band), label multiplier; with --group also simultaneous coverage and "
        "ranking quality. Writes DIR/trials.parquet, DIR/summary.csv and PNG plots.",
    )
    p.add_argument("data", type=Path, help="CSV or Parquet table with every label filled in")
    p.add_argument("--label", required=True, help="label column")
    p.add_argument("--judges", required=True, help="comma-separated judge score columns")
    p.add_argument(
        "--outcome",
        default="continuous",
        choices=("continuous", "ordinal", "nonnegative", "categorical"),
    )
    p.add_argument("--levels", help="levels of an ordinal/categorical label, e.g. 1,2,3,4,5")
    p.add_argument("--group", help="group column (per-group estimates and rankings)")
    p.add_argument("--item", help="item id column")
    p.add_argument("--budgets", default="0.05,0.1,0.2", help="label shares (0.05,0.1,0.2)")
    p.add_argument("--trials", type=int, default=200, help="label draws per budget (200)")
    p.add_argument("--designs", default="uniform", help="uniform,stratified (uniform)")
    p.add_argument("--methods", default="classical,aee", help="classical,aee,ppi")
    p.add_argument("--engine", default="freq", choices=("freq", "bayes"))
    p.add_argument(
        "--pilot-share", type=float, default=0.5, help="adaptive: budget share of the pilot"
    )
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="local worker processes (1)")
    p.add_argument(
        "--scheduler",
        help="dask.distributed scheduler address (tcp://host:8786) or local:N; results are "
        "the same as a serial run",
    )
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.io import read_table
    from bacon_bayes.simulation.montecarlo import (
        SimulationSpec,
        simulate,
        stderr_progress,
        summarise,
        write_outputs,
    )

    if args.workers < 1:
        raise ValidationError(f"--workers must be at least 1, got {args.workers}")
    spec = SimulationSpec(
        label=args.label,
        judges=_list(args.judges),
        outcome=args.outcome,
        levels=_floats(args.levels, "levels") if args.levels else None,
        group=args.group,
        item=args.item,
        budgets=_floats(args.budgets, "budgets"),
        trials=args.trials,
        designs=_list(args.designs),
        methods=_list(args.methods),
        engine=args.engine,
        folds=args.folds,
        seed=args.seed,
        alpha=args.alpha,
        pilot_share=args.pilot_share,
    )
    frame = read_table(args.data)
    spec.check(frame)
    trials = simulate(
        frame, spec, workers=args.workers, scheduler=args.scheduler, progress=stderr_progress
    )
    summary = summarise(trials, spec.alpha)
    out = write_outputs(args.out, trials, summary, spec)
    cols = ["design", "method", "budget", "trials", "bias", "rmse", "width", "coverage"]
    cols += ["band_low", "band_high", "label_multiplier"]
    print(summary[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"\nwritten to {out}/ (trials.parquet, summary.csv, rmse_width.png, coverage.png)")
    return 0
