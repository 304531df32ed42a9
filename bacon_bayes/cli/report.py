"""``bacon report``: one self-contained HTML page of the results."""

from __future__ import annotations

import argparse
from pathlib import Path

from bacon_bayes.cli.ledger import add_drift_arguments, drift_from_args
from bacon_bayes.cli.pairwise import add_pairwise_arguments, refuse_difference, run_report
from bacon_bayes.cli.pairwise import check_args as check_pairwise
from bacon_bayes.cli.pool_args import (
    ROW_ITEMS,
    add_anytime_arguments,
    add_calibrator_arguments,
    add_pool_arguments,
    anytime_from_args,
    better_from_args,
    budget_spent,
    calibrator_from_args,
    check_baseline,
    fit_from_args,
    plan_budget,
    plan_note_anytime,
    read_files,
)
from bacon_bayes.cli.printed import plan_command, round_plan_command
from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import FORCE_HELP, claim


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write one self-contained HTML report (estimates, groups, judge bias, ...)",
        description="Fit the calibration as `bacon estimate` does (FILE is a table or a study "
        "folder) or read a saved calibrator (FILE ending in .nc), and write one HTML page that "
        "opens offline: settings and convergence, a data check (bacon doctor's agreement and "
        "bias tables), population estimates, groups, judge bias, "
        "calibration, items, and the curves of a `bacon simulate` folder when given. On a "
        "study folder its intervals are anytime ones, as bacon estimate's (--fixed: one "
        "look's).",
    )
    add_pool_arguments(p)
    add_calibrator_arguments(p)
    add_anytime_arguments(p)
    p.add_argument(
        "--out",
        type=Path,
        help="HTML file to write (default: FILE's name and -report.html in the working folder, "
        "pool-report.html for pool.csv, a study's and a calibrator's alike)",
    )
    p.add_argument("--simulate", type=Path, help="output folder of `bacon simulate` to include")
    p.add_argument("--title", help="page title")
    p.add_argument(
        "--baseline",
        metavar="NAME",
        help="the comparisons section compares every other group against this one, joint "
        "over those comparisons alone (as bacon estimate --baseline)",
    )
    p.add_argument(
        "--history",
        metavar="FILE",
        help="a history ledger (bacon estimate --history): plot this round's estimates "
        "beside the earlier rounds' (read only; nothing is appended)",
    )
    p.add_argument(
        "--round", metavar="NAME", help="this round's name in the trend (default: FILE's name)"
    )
    add_drift_arguments(p)
    add_pairwise_arguments(p, report=True)
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.calibrator import Calibrator

    if args.out is None:  # pool.csv -> pool-report.html, replaced only where bacon wrote it
        from bacon_bayes.study.folder import file_stem

        args.out = Path(f"{file_stem(args.file)}-report.html")
    if args.out.suffix.lower() not in (".html", ".htm"):
        raise ValidationError(f"--out {str(args.out)!r} should end in .html")
    loaded = Calibrator.load(args.file) if str(args.file).endswith(".nc") else None
    if not args.pairwise and getattr(loaded, "pool_", None) is not None:
        args.pairwise = loaded.pool_.pairs is not None  # type: ignore[union-attr]
    if args.pairwise:  # comparisons: strengths, win probabilities, tiers (cli/pairwise.py)
        check_pairwise(args)
        return run_report(args, calibrator_from_args(args), read_files(args), saved=loaded)
    refuse_difference(args)
    from bacon_bayes.drift import scale_words
    from bacon_bayes.history import check_project, project_of, read_history
    from bacon_bayes.planning import resolution_note
    from bacon_bayes.planning.note import round_plan_note
    from bacon_bayes.report.rounds import drift_html, round_section
    from bacon_bayes.report.simulate_folder import read_simulate_settings, simulate_mismatch

    inputs = [*read_files(args), args.simulate, args.history, args.anchor]
    with claim(args.out, inputs=inputs, force=args.force) as out:
        records = None
        if args.history is not None:
            if not Path(args.history).is_file():
                raise ValidationError(
                    f"--history {args.history!r}: no such file; give the ledger that "
                    "`bacon estimate ... --history FILE` appends to"
                )
            records = read_history(args.history)
        anytime = None if str(args.file).endswith(".nc") else anytime_from_args(args)
        if loaded is not None:
            cal = saved = loaded
        else:
            args.find_text = True  # the data check's length table: doctor's response column
            cal, saved = fit_from_args(args)
        extra = {}
        drift = drift_from_args(saved or cal, args)
        if drift is not None:
            extra["bias"] = drift_html(drift, args.alpha, scale_words(saved or cal))
        if records is not None:
            check_project(records, project_of(cal), args.history)
        if records is not None or hasattr(cal, "frozen_") or hasattr(cal, "refit_"):
            extra["round"] = round_section(
                cal,
                alpha=args.alpha,
                calibrator=args.calibrator,
                tolerance=args.tolerance,
                history=records,
                round_name=args.round or Path(args.file).name,
            )
        looks = study_looks(args, cal) if saved is None else ""  # a fresh fit's looks
        if looks:
            extra["estimates"] = looks
        # the plan's pilot, either engine: the fit just made, or a saved calibrator's own
        # pool (`bacon report cal.nc`): a fresh frequentist pilot there quoted another
        # lead than the page's table (helper W14: "M22 leads M17" under M17 ranked first)
        mine = cal if saved is None or loaded is not None else None
        group = getattr(args, "group", None) or (cal.pool_.group_name if loaded else None)
        command = (
            None if str(args.file).endswith(".nc") else plan_command(args, cal.pool_, cal.engine_)
        )
        better = None if str(args.file).endswith(".nc") else better_from_args(args)
        check_baseline(args, cal.pool_.groups, group or cal.pool_.group_name)
        note = budget_spent(anytime, cal.pool_.n_labeled) or (
            round_plan_note(group, round_plan_command(args, cal.pool_))
            if getattr(args, "calibrator", None) and cal.pool_.groups is not None
            else resolution_note(
                cal.pool_,
                args.alpha,
                group_column=group,
                calibrator=mine,
                plan_command=command,
                pooling=cal.pooling if loaded is not None else args.pooling,  # the page's
                anytime=plan_note_anytime(args, anytime, cal.engine_),
                better=better or "higher",
                max_labels=plan_budget(args, anytime),
            )
        )
        path = cal.report(
            out,
            simulate=args.simulate,
            title=args.title,
            alpha=args.alpha,
            plan_note=note,
            extra=extra,
            anytime=anytime,
            better=better,
            baseline=args.baseline,
            item_note=ROW_ITEMS if getattr(args, "row_items", False) else None,
        )
        if args.simulate is not None:
            mismatch = simulate_mismatch(cal.pool_, read_simulate_settings(args.simulate))
            if mismatch:
                print(f"note: {mismatch}")
    print(f"report written to {path} (open it in a browser; it works offline)")
    return 0


def study_looks(args: argparse.Namespace, cal: object) -> str:
    """The estimates section's sequence across a study folder's waves (HTML; empty for a
    table or a saved calibrator)."""
    from bacon_bayes.study.folder import CONFIG_FILE

    if str(args.file).endswith(".nc") or not (Path(args.file) / CONFIG_FILE).is_file():
        return ""
    from bacon_bayes.cli.pool_args import study_pool_options
    from bacon_bayes.report.rounds import sequence_html
    from bacon_bayes.study import StudyConfig
    from bacon_bayes.study.looks import look_estimates

    budget = StudyConfig.read(Path(args.file)).max_labels
    looks = look_estimates(
        args.file, cal, alpha=args.alpha, max_labels=budget,  # type: ignore[arg-type]
        allow_pending=bool(getattr(args, "allow_pending", False)),
        pool_options=study_pool_options(args),  # the command's own pool, at every look
    )  # fmt: skip
    return sequence_html(looks, args.alpha)
