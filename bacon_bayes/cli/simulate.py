"""``bacon simulate``: Monte Carlo over label draws on a fully labeled table."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bacon_bayes.cli.judge_args import OneLabel, add_judge_argument, judge_columns
from bacon_bayes.cli.pool_args import (
    SURROGATES_HELP,
    add_scale_argument,
    parse_scale,
    parse_surrogates,
)
from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import FORCE_HELP, claim


def _list(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())


def _floats(text: str, what: str) -> tuple[float, ...]:
    try:
        return tuple(float(v) for v in _list(text))
    except ValueError as exc:
        raise ValidationError(
            f"--{what} must be numbers separated by commas, got {text!r}"
        ) from exc


def _budgets(text: str, n_rows: int) -> tuple[float, ...]:
    """``--budgets``: shares of the table in (0, 1], or label counts (whole numbers above 1,
    at most the table's rows), each count read as its share of the ``n_rows`` rows (said)."""
    values = _floats(text, "budgets")
    counts = [v for v in values if v > 1]
    for v in counts:
        if v != int(v) or v > n_rows:
            raise ValidationError(
                f"--budgets {v:g}: a budget is a share of the table in (0, 1] or a whole "
                f"number of labels up to its {n_rows} rows"
            )
    if counts:
        said = ", ".join(f"{v:g} -> {v / n_rows:.4g}" for v in counts)
        print(f"--budgets: label counts read as shares of the {n_rows} rows ({said})")
    return tuple(v / n_rows if v > 1 else v for v in values)


def _table(args: argparse.Namespace) -> Any:
    """DATA in any format the readers take, with ``--labels`` joined by id; without
    ``--judge``, the judges are the ones the file's format names (an Inspect AI log's
    model-graded scorers, an lm-eval log's metrics), as ``bacon estimate`` takes them;
    without ``--outcome``, a label of 0 and 1 is binary, as estimate reads it (said)."""
    from bacon_bayes.readers import TABLES, join_labels, read_any
    from bacon_bayes.simulation.table import refuse_pilot

    frame, meta = read_any(args.data)
    plan = _plan_command(args)  # the judges as given, before they are resolved
    if args.judge:
        args.judge = judge_columns(args.judge, list(frame.columns))
    elif meta.judges:
        args.judge = list(meta.judges)  # an Inspect log's epochs: their mean, a column each
    else:
        judge_columns(args.judge, list(frame.columns))  # refused: no judges given
    if args.labels:
        frame, args.item = join_labels(
            frame, args.labels, args.label, args.item or meta.item, table=args.data
        )
    if not args.item and args.label in frame.columns and meta.format in TABLES:
        from bacon_bayes.doctor.long import long_table, read_call  # rows that are no items

        judges = judge_columns(args.judge, list(frame.columns), required=False)
        read = read_call(args.data, meta.format)
        if long := long_table(frame, args.label, [str(j) for j in judges], meta.format, read):
            raise ValidationError(long)
    if not args.drop_unlabeled and args.label in frame.columns:
        refuse_pilot(frame, args.label, plan)
    if args.drop_unlabeled and args.label in frame.columns:
        from bacon_bayes.io import keep_file_rows
        from bacon_bayes.words import as_numbers

        kept = as_numbers(frame[args.label]).notna().to_numpy()
        if not kept.all():
            print(f"--drop-unlabeled left out {int((~kept).sum())} row(s) without a label")
            out = frame.loc[kept].reset_index(drop=True)
            keep_file_rows(frame, out, kept)
            frame = out
    if args.outcome is None and args.label in frame.columns:  # as estimate reads it
        from bacon_bayes.scale import binary_note, guess_outcome

        args.outcome = guess_outcome(frame, args.label)
        if args.outcome == "categorical":
            print(f"note: {binary_note(args.label)}")
    args.outcome = args.outcome or "continuous"
    return frame


def _plan_command(args: argparse.Namespace) -> str:
    """The ``bacon plan`` command on DATA read as this simulate reads it (``--top`` with a
    group; without one, plan names the questions it plans for)."""
    import shlex

    given = [("--label", args.label), ("--labels", args.labels), ("--item", args.item)]
    given += [("--judge", j) for j in args.judge or []]
    given += [("--group", args.group), ("--prompt", args.prompt)]
    given += [("--outcome", args.outcome)]
    given += [("--levels", args.levels), ("--scale", args.scale)]
    given += [("--embedding", args.embedding)]
    words = [f"{k}{'=' if str(v)[:1] == '-' else ' '}{shlex.quote(str(v))}" for k, v in given if v]
    top = " --top" if args.group else ""
    return f"bacon plan {shlex.quote(str(args.data))} {' '.join(words)}{top}"


def _table_args(args: argparse.Namespace) -> dict:
    """The spec fields that describe the table (shared by the Monte Carlo and ablation);
    after :func:`_table`, which resolves the judges."""
    return {
        "label": args.label,
        "judges": tuple(args.judge),
        "outcome": args.outcome,
        "levels": _floats(args.levels, "levels") if args.levels else None,
        "item": args.item,
        "embedding": args.embedding,
    }


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate",
        help="Monte Carlo of designs and estimators on a fully labeled table",
        description="Hide the labels of a fully labeled table, draw label samples with each "
        "design and budget, estimate the mean with each method, and compare with the "
        "full-data mean over many trials: bias, sd, RMSE, interval width and coverage (with "
        "its binomial band), label multiplier; with --group also simultaneous coverage and "
        "ranking quality. Writes DIR/trials.parquet, DIR/summary.csv and PNG plots. With "
        "--ablation, instead: the oracle ablation (every label known, 5-fold out of fold: "
        "R^2, RMSE and Spearman of each feature set, family and engine), written to "
        "DIR/ablation.csv, DIR/ablation.md and DIR/ablation_settings.json.",
    )
    p.add_argument("data", type=Path, help="CSV or Parquet table with every label filled in")
    p.add_argument("--label", required=True, action=OneLabel, help="label column")
    p.add_argument(
        "--labels",
        metavar="FILE",
        help="CSV or Parquet file of the labels (an id column and the --label column), "
        "joined onto DATA by id (--item, or a column named id, item or item_id); every "
        "item of DATA needs one",
    )
    p.add_argument(
        "--drop-unlabeled",
        action="store_true",
        help="leave out the rows without a label (e.g. a model no human rated), counted; "
        "the simulation is then of the other rows",
    )
    add_judge_argument(p, legacy="commas")
    p.add_argument(
        "--outcome",
        choices=("continuous", "ordinal", "nonnegative", "categorical"),
        help="type of the label (default: continuous, or categorical for a label of 0 and 1 "
        "only, as bacon estimate reads it)",
    )
    p.add_argument("--levels", help="levels of an ordinal/categorical label, e.g. 1,2,3,4,5")
    add_scale_argument(p, study=False)
    p.add_argument("--group", help="group column (per-group estimates and rankings)")
    p.add_argument(
        "--prompt",
        help="prompt column (the prompt, question or source segment items share): folds split "
        "by prompt; needed by the paired designs",
    )
    p.add_argument("--item", "--id", help="item id column (--id is the same option)")
    p.add_argument("--embedding", help="prefix of embedding columns (features of the model)")
    p.add_argument(
        "--budgets",
        help="label shares (0.05,0.1,0.2), or label counts (100,200: whole numbers, each "
        "read as its share of the table's rows)",
    )
    p.add_argument("--trials", type=int, help="label draws per budget (200)")
    p.add_argument(
        "--designs",
        help="uniform,stratified,adaptive,paired,paired-subset,paired-adaptive (uniform); the "
        "paired designs draw prompts and label every group's item of a drawn prompt",
    )
    p.add_argument("--methods", help="classical,aee,ppi,ppi-aipw,cje (classical,aee)")
    p.add_argument(
        "--engine",
        default="freq",
        choices=("freq", "bayes"),
        help="freq (default) or bayes; with --ablation, bayes adds Bayesian rows",
    )
    p.add_argument("--surrogates", help=SURROGATES_HELP)
    p.add_argument("--pilot-share", type=float, help="adaptive: budget share of the pilot (0.3)")
    p.add_argument("--folds", type=int, default=5, help="cross-fitting folds (5)")
    p.add_argument("--alpha", type=float, help="1 - interval level (0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of every trial's draw (0)")
    p.add_argument("--workers", type=int, help="local worker processes (1)")
    p.add_argument(
        "--scheduler",
        help="dask.distributed scheduler address (tcp://host:8786) or local:N; results are "
        "the same as a serial run",
    )
    p.add_argument(
        "--ablation",
        nargs="?",
        const="basic",
        choices=("basic", "full"),
        help="run the oracle ablation instead of the Monte Carlo; 'full' gives the Bayesian "
        "engine every feature set (default: judges + embeddings and judges only)",
    )
    p.add_argument(
        "--models",
        help="--ablation: outcome families, e.g. hurdle,ridge (default: every frequentist "
        "family of the outcome type; the type's default family for --engine bayes)",
    )
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=run)


#: Monte Carlo options and their defaults (None on the command line = not given)
#: (pilot_share None: montecarlo.PILOT_SHARE, read where the simulation is imported)
MONTE_CARLO = {"budgets": "0.05,0.1,0.2", "trials": 200, "designs": "uniform",
               "methods": "classical,aee", "pilot_share": None, "alpha": 0.05, "workers": 1,
               "scheduler": None, "group": None, "surrogates": None, "prompt": None}  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.progress import Tally, silenced

    tally = Tally("fits" if args.ablation else "trials")  # on a terminal: decided outside
    with silenced():  # the trials' own bar counts the fits: none per fit (workers included)
        return _run(args, tally)


def _run(args: argparse.Namespace, tally: Any) -> int:
    if args.ablation:
        return run_ablation(args, tally)
    if args.models:
        raise ValidationError("--models applies to --ablation only; drop it or add --ablation.")
    for name, default in MONTE_CARLO.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    return run_monte_carlo(args, tally)


def _claim(args: argparse.Namespace, writes: tuple[str, ...]) -> Any:
    """Hold the output folder (see :func:`bacon_bayes.outputs.claim`)."""
    inputs = [args.data, args.labels]
    return claim(args.out, inputs=inputs, folder=True, force=args.force, writes=writes)


def run_ablation(args: argparse.Namespace, tally: Any) -> int:
    """``--ablation``: the oracle table, written to DIR/ablation.csv, .md and settings."""
    from bacon_bayes.simulation.ablation import (
        FILES,
        AblationSpec,
        ablation,
        ablation_markdown,
        write_ablation,
    )

    given = [n for n in MONTE_CARLO if getattr(args, n) is not None]
    if given:
        flags = ", ".join("--" + n.replace("_", "-") for n in given)
        raise ValidationError(
            f"{flags} belong to the Monte Carlo, not to --ablation; run the two as separate "
            "commands (the ablation adds only its ablation* files to DIR)."
        )
    frame = _table(args)
    spec = AblationSpec(
        **_table_args(args),
        models=_list(args.models) if args.models else None,
        engines=("freq", "bayes") if args.engine == "bayes" else ("freq",),
        bayes_sets=args.ablation,
        folds=args.folds,
        seed=args.seed,
    )
    with _claim(args, FILES) as out:
        table = ablation(frame, spec, progress=tally)
        paths = write_ablation(out.path, table, spec)
        out.written()
    print(ablation_markdown(table), end="")
    print(f"\nwritten to {', '.join(str(p) for p in paths)}")
    return 0


def adaptive_notes(trials: Any) -> list[str]:
    """A line per design and budget at which adaptive trials stepped back (``adaptive``
    to uniform, ``paired-adaptive`` to paired), and why.

    Parameters
    ----------
    trials : pandas.DataFrame
        The Monte Carlo's trial rows (``adaptive_choice`` records each adaptive trial's
        choice).

    Returns
    -------
    list of str
        Empty when no adaptive trial stepped back.
    """
    if "adaptive_choice" not in trials or "design" not in trials:
        return []
    lines = []
    for design, plain in (("adaptive", "uniform"), ("paired-adaptive", "paired")):
        rows = trials[trials["design"] == design].drop_duplicates(["budget", "trial"])
        for budget, part in rows.groupby("budget", sort=True):
            back = part["adaptive_choice"].astype(str) != "adaptive"
            if not back.any():
                continue
            why = sorted(set(part.loc[back, "adaptive_choice"].astype(str)))
            reasons = "; ".join(
                "pilot too small for the sd model" if "small" in w else "no gain predicted"
                for w in why
            )
            lines.append(
                f"note: {design} at budget {budget:g}: {int(back.sum())} of {len(part)} trials "
                f"fell back to {plain} ({reasons}); those trials equal the {plain} design's"
            )
    if lines:
        lines.insert(0, "")
    return lines


def group_trial_notes(summary: Any) -> list[str]:
    """A line per design, method and budget whose group metrics rest on fewer trials than
    its other metrics (``group_trials``), and why.

    Parameters
    ----------
    summary : pandas.DataFrame
        The Monte Carlo's summary rows.

    Returns
    -------
    list of str
        Empty when every method's group metrics rest on all its trials.
    """
    from bacon_bayes.simulation.montecarlo import POOL_ONLY

    if "group_trials" not in summary:
        return []
    pool_only = sorted(set(summary.loc[summary["method"].isin(POOL_ONLY), "method"]))
    summary = summary[~summary["method"].isin(POOL_ONLY)]
    short = summary[summary["group_trials"].fillna(0) < summary["trials"]]
    lines = [
        f"note: {r['method']} ({r['design']}) at budget {r['budget']:g}: its group metrics "
        f"(simultaneous coverage, ranks, differences) rest on {int(r['group_trials'] or 0)} "
        f"of {int(r['trials'])} trials"
        for _, r in short.iterrows()
    ]
    if lines:
        lines += [
            "  the other trials left some group without an estimate (the labels-only mean "
            "of a group the draw gave no label), so they are left out of every group metric "
            "of that method; methods' group metrics are then over different trials: raise "
            "the budget to compare them over the same ones"
        ]
    if pool_only:
        lines.append(
            f"note: {', '.join(pool_only)} estimate the pool mean only, not group means: "
            "they have no group metrics (simultaneous coverage, ranks, differences) at any "
            "budget"
        )
    if lines:
        lines.insert(0, "")
    return lines


def run_monte_carlo(args: argparse.Namespace, tally: Any) -> int:
    """The Monte Carlo over label draws (trials.parquet, summary.csv, plots)."""
    from bacon_bayes.simulation.montecarlo import (
        FILES as MONTE_CARLO_FILES,
    )
    from bacon_bayes.simulation.montecarlo import (
        PILOT_SHARE,
        SimulationSpec,
        simulate,
        summarise,
        write_outputs,
    )

    if args.workers < 1:
        raise ValidationError(f"--workers must be at least 1, got {args.workers}")
    extras = parse_surrogates(args.surrogates)
    frame = _table(args)
    spec = SimulationSpec(
        **_table_args(args),
        group=args.group,
        prompt=args.prompt,
        budgets=_budgets(args.budgets, len(frame)),
        trials=args.trials,
        designs=_list(args.designs),
        methods=_list(args.methods),
        engine=args.engine,
        folds=args.folds,
        seed=args.seed,
        alpha=args.alpha,
        pilot_share=PILOT_SHARE if args.pilot_share is None else args.pilot_share,
        surrogates=None if extras is None else tuple(extras),
        scale=parse_scale(args.scale),
    )
    with _claim(args, MONTE_CARLO_FILES) as held:
        spec.check(frame)
        trials = simulate(
            frame, spec, workers=args.workers, scheduler=args.scheduler, progress=tally
        )
        summary = summarise(trials, spec.alpha)
        out = write_outputs(held.path, trials, summary, spec)
        held.written()
    cols = ["design", "method", "budget", "trials", "bias", "rmse", "width", "coverage"]
    cols += ["band_low", "band_high", "label_multiplier"]
    print(summary[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if "diff_rmse_median" in summary:
        cols = ["design", "method", "budget", "diff_rmse_median", "diff_coverage"]
        cols += ["diff_simultaneous_coverage", "kendall", "rank_width"]
        print("\npairwise differences of group means (RMSE: median over pairs):")
        print(summary[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    from bacon_bayes.simulation.paired_draws import withheld_notes

    notes = adaptive_notes(trials) + group_trial_notes(summary)
    if sim_notes := withheld_notes(summary, spec.alpha):
        notes += ["", *sim_notes]
    for line in notes:
        print(line)
    print(f"\nwritten to {out}/ (trials.parquet, summary.csv, rmse_width.png, coverage.png)")
    return 0
