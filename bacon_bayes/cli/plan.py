"""``bacon plan``: labels each design needs for a goal, from the judge scores and a pilot."""

from __future__ import annotations

import argparse
import math
import shlex
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bacon_bayes.cli.pairwise import add_pairwise_arguments
from bacon_bayes.cli.pool_args import (
    add_better_argument,
    add_fit_arguments,
    add_pool_arguments,
    add_pooling_argument,
    better_from_args,
    calibrator_from_args,
    fit_noted,
    parse_scale,
    pool_from_args,
)
from bacon_bayes.cli.printed import reading_options
from bacon_bayes.cli.rounds import plan_text, round_defaults
from bacon_bayes.errors import PoolWarning, ValidationError

if TYPE_CHECKING:  # the parser is built without the library (a quick --help)
    from bacon_bayes.planning import Goal

#: Why ``--engine auto`` fits the frequentist model for a plan.
AUTO_REASON = (
    "the plan reads only the pilot's residual variances, which the frequentist judge model "
    "gives in a second and the Bayesian one in 30 s or more; --engine bayes fits the Bayesian one"
)

#: As ``bacon_bayes.planning.DESIGNS`` (tests/test_cli_startup.py checks).
DESIGNS = ("uniform", "stratified", "paired", "adaptive")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``bacon plan``."""
    p = sub.add_parser(
        "plan",
        help="labels each design needs for a half-width, a difference or the top system",
        description="From the judge scores and the labels so far (a pilot), predict for "
        "each design (uniform, stratified by group, paired by prompt, adaptive) the labels "
        "needed to reach a goal and the precision at given budgets; recommend a design and "
        "print the `bacon sample` command that draws it.",
    )
    add_pool_arguments(p)
    goal = p.add_argument_group("goal (one of)")
    goal.add_argument(
        "--half-width",
        type=float,
        help="CI half-width of the pool mean (of a group's with --group-mean, of A - B with "
        "--difference A B)",
    )
    goal.add_argument("--group-mean", metavar="NAME", help="with --half-width: of this group")
    goal.add_argument(
        "--difference",
        nargs=2,
        metavar=("A", "B"),
        help="two groups (with --pairwise, two models) to compare: with --delta, the power "
        "to detect it; with --half-width, the CI half-width of A - B",
    )
    goal.add_argument("--delta", type=float, help="with --difference: difference to detect")
    goal.add_argument("--top", action="store_true", help="resolve the top group from the rest")
    goal.add_argument("--power", type=float, default=0.8, help="power 1 - beta (0.8)")
    p.add_argument(
        "--budgets",
        help="labels in all at which to report the precision, comma-separated: shares of "
        "the pool (< 1) or counts (default 0.05,0.1,0.2 past the pilot, topped up with 2, 4 "
        "and 8 times the pilot)",
    )
    p.add_argument("--designs", help=f"designs to compare (default all of {', '.join(DESIGNS)})")
    p.add_argument("--model", help="outcome family of the pilot's calibrator")
    p.add_argument(
        "--engine",
        default="auto",
        choices=("auto", "bayes", "freq"),
        help="engine of the pilot's calibrator: auto (default, as bacon estimate's), bayes or "
        f"freq. For a plan auto means freq: {AUTO_REASON}; the plan's assumptions say which "
        "engine was used",
    )
    p.add_argument(
        "--preset",
        help="Bayesian model preset of the pilot's calibrator, as bacon estimate's: a "
        "shipped name (e.g. hurdle_mqm) or a .toml path; sets engine bayes",
    )
    add_fit_arguments(p)
    add_pooling_argument(p)
    add_better_argument(p)
    p.add_argument(
        "--from-scratch",
        action="store_true",
        help="designs that draw every label themselves (as `bacon simulate` runs them)",
    )
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument(
        "--target",
        choices=("pool", "population"),
        default="pool",
        help="with --pairwise, the estimate's target: pool (default) or population; with "
        "--prompt and prompts shared by several comparisons, population intervals are "
        "clustered by prompt, and so is the plan's prediction",
    )
    p.add_argument(
        "--calibrator",
        metavar="OLD.nc",
        help="a saved calibrator of an earlier round, frozen on this pool: the fresh labels "
        "a --half-width needs, from its residual variance (and this pool's fresh labels)",
    )
    add_pairwise_arguments(p, report=True, difference=False)
    # the surrogates estimate takes by default (its calibrator serves as the plan line's
    # pilot: the estimate's line and this table agree, 418 labels against 415 before)
    p.set_defaults(func=run, preset=None, surrogates=None)


def goal_from_args(args: argparse.Namespace) -> Goal:
    """The one goal the options name (exactly one of --half-width, --difference, --top)."""
    from bacon_bayes.planning import Goal

    diff_width = args.half_width is not None and args.difference is not None
    if diff_width and args.delta is not None:
        raise ValidationError(
            "--difference A B takes --delta D (power) or --half-width H (the half-width of "
            "A - B), not both."
        )
    given = [args.half_width is not None, args.difference is not None and not diff_width, args.top]
    if sum(given) != 1:
        raise ValidationError(
            "give exactly one goal: --half-width H [--group-mean NAME | --difference A B], "
            "--difference A B --delta D [--power P], or --top [--power P]."
        )
    if args.group_mean and args.half_width is None:
        raise ValidationError("--group-mean goes with --half-width H (the group's CI half-width).")
    if diff_width and args.group_mean:
        raise ValidationError("--half-width is of --group-mean NAME or of --difference A B.")
    if diff_width:
        return Goal("half-width", half_width=args.half_width, pair=tuple(args.difference))
    if args.half_width is not None:
        return Goal("half-width", half_width=args.half_width, group=args.group_mean)
    if args.difference is not None:
        if args.delta is None:
            raise ValidationError("--difference A B needs --delta D (the difference to detect).")
        return Goal("difference", pair=tuple(args.difference), delta=args.delta, power=args.power)
    return Goal("top", power=args.power, better=better_from_args(args) or "higher")


def _list(text: str | None, what: str) -> list[str] | None:
    if not text:
        return None
    return [v.strip() for v in text.split(",") if v.strip()]


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.planning import plan
    from bacon_bayes.results import json_text

    if args.pairwise:  # comparisons: Bradley-Terry strengths (cli/pairwise_design.py)
        from bacon_bayes.cli.pairwise_design import run_plan

        return run_plan(args, _engine(args))
    if args.target != "pool":
        raise ValidationError("--target population applies to --pairwise plans; drop it.")
    if args.half_width is None and args.difference is None and not args.top:
        raise ValidationError(_no_goal(args))
    goal = goal_from_args(args)
    budgets = None
    if args.budgets:
        try:
            budgets = [float(v) for v in _list(args.budgets, "budgets") or []]
        except ValueError as exc:
            raise ValidationError(f"--budgets must be numbers, got {args.budgets!r}") from exc
    designs = _list(args.designs, "designs")
    if args.calibrator:
        return _plan_round(args, goal)
    args.find_text = True  # the printed bacon sample's --show: the response labellers read
    pool = pool_from_args(args)
    if _shows(args):  # a study that copies its recorded columns: no --show
        args.text = None
    engine = _engine(args)
    pending = _pending(args)
    with warnings.catch_warnings(record=True) as caught:  # the pilot fit's notes: said below
        warnings.simplefilter("always", PoolWarning)
        result = plan(
            pool,
            goal,
            budgets=budgets,
            designs=None if designs is None else tuple(designs),
            alpha=args.alpha,
            calibrator=calibrator_from_args(args),
            from_scratch=args.from_scratch,
            group_column=args.group or pool.group_name,  # a study's: its recorded column
            pool_arg=shlex.quote(str(args.file)),
            sample_args=reading_options(args, pool, sample=True)
            + (" --better lower" if goal.better == "lower" else ""),  # the study records it
            pooling=args.pooling,
            pending=pending,
        )
    result.pilot.assumptions.insert(0, engine)
    if pool.groups is not None:  # 'M8' and 'm8' planned as two groups: said, as estimate says
        from bacon_bayes.order import group_spellings, unique_codes

        spellings = group_spellings(unique_codes(pool.groups)[0], pool.group_name)
        last = len(result.pilot.assumptions) - bool(pending)  # before the pending items' note
        result.pilot.assumptions[last:last] = [spellings] if spellings else []
    for w in caught:  # what the pilot's fit warns of (failure codes...) among the notes
        if issubclass(w.category, PoolWarning):
            if str(w.message) not in result.pilot.assumptions:
                result.pilot.assumptions.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    _study_beside(args, result)
    _within_budget(args, result)
    unsamplable = _unsamplable(args)
    if unsamplable:  # a command bacon sample would refuse: none printed, and why
        for row in result.designs:
            row.command = None
        result.pilot.assumptions.append(unsamplable)
    if args.json:
        print(json_text(result.to_dict()))
    else:
        print(result.to_text())
    return 0


def _pending(args: argparse.Namespace) -> int:
    """On a study read with ``--allow-pending``: the items its waves selected that have no
    label yet, which the plan counts among its new labels (they are to come: each printed
    ``bacon sample`` draws that many fewer; checker of tester B's finding 18, s36: 191
    planned in all, and the printed wave drew 191 beside the 60 pending: 251); else 0."""
    from bacon_bayes.study import Study
    from bacon_bayes.study.folder import CONFIG_FILE

    root = Path(args.file)
    if not getattr(args, "allow_pending", False) or not (root / CONFIG_FILE).is_file():
        return 0
    return int(Study.open(root).status()["pending"].sum())


def _within_budget(args: argparse.Namespace, result: Any) -> None:
    """On a study that records a labelling budget: a design needing more labels gets no
    printed command (bacon sample refuses a wave past the budget), and the plan says so."""
    from bacon_bayes.study.folder import CONFIG_FILE, StudyConfig

    root = Path(args.file)
    if not (root / CONFIG_FILE).is_file():
        return
    most = StudyConfig.read(root).max_labels
    over = [d for d in result.designs if most and (d.labels_needed or 0) > most]
    for row in over:
        row.command = None
    if over:
        result.pilot.assumptions.append(
            f"the study records a labelling budget of {most} (max_labels): "
            f"{', '.join(d.design for d in over)} need more, and bacon sample refuses a wave "
            "past it (its alpha-spending intervals end there); labels past it get one look's "
            "intervals only (bacon estimate --fixed)"
        )


def _study_beside(args: argparse.Namespace, result: Any) -> None:
    """A study already started from the planned pool file (the folder the printed ``bacon
    sample`` adds its wave to): its labels are not in this plan, said with the fix; where
    its waves hold items not yet labeled, ``bacon sample`` draws only from the items no
    wave selected, so a design needing more gets no printed command (it would fail), and
    the plan says to import the pending labels first."""
    from bacon_bayes.study import Study
    from bacon_bayes.study.folder import CONFIG_FILE, study_beside

    source = Path(args.file)
    root = study_beside(source)
    if not source.is_file() or not (root / CONFIG_FILE).is_file():
        return
    study = Study.open(root)
    status = study.status()
    labeled = int(status["labeled"].sum())
    waiting = status[status["pending"] > 0]
    if waiting.empty:
        result.pilot.assumptions.append(
            f"a study {root} was started from this pool ({labeled} labels so far): this plan "
            f"counts only the labels in {source}, and the bacon sample below adds a wave to "
            f"that study; plan on it (bacon plan {root} ...) to count its labels"
        )
        return
    pending = int(waiting["pending"].sum())
    waves = ", ".join(str(w) for w in waiting["wave"])
    n_open = int((study.first_wave() < 0).sum())
    over = [d for d in result.designs if d.command and (d.new_labels or 0) > n_open]
    for row in over:
        row.command = None
    cut = (
        f"; bacon sample draws only from the {n_open} items no wave selected, so "
        f"{', '.join(d.design for d in over)} get no command here (it would fail)"
        if over
        else ""
    )
    result.pilot.assumptions.append(
        f"a study {root} was started from this pool ({labeled} labels so far), and its wave "
        f"{waves} holds {pending} items selected but not yet labeled: this plan counts only "
        f"the labels in {source}{cut}; label those items, bacon label import them (bacon "
        f"status {root} lists the waves), then plan on the study (bacon plan {root} ...) to "
        "count them"
    )


def _no_goal(args: argparse.Namespace) -> str:
    """The goals a plan answers, each with a command that runs as printed (example values
    from FILE's labels): a plan's labels depend on the question, so none is assumed."""
    from bacon_bayes.planning.note import goal_examples
    from bacon_bayes.planning.predict import pilot_folds

    pool = pool_from_args(args)
    goals = goal_examples(pool, args.alpha, _half_width_now(args, pool))
    width = max(len(goal) for goal, _ in goals)
    lines = [f"  {goal:<{width}}  {what}" for goal, what in goals]
    head = f"bacon plan {shlex.quote(str(args.file))} {reading_options(args, pool)}".strip()
    cal = calibrator_from_args(args)
    folds = pilot_folds(pool, cal.folds, cal.seed)  # a pilot too small for the folds given
    fewer = f" --folds {folds}" if folds else ""
    why = (
        f"\n({int(pool.labeled.sum())} pilot labels are too few for {cal.folds} "
        f"cross-fitting folds: --folds {folds} is the most they carry)"
        if folds
        else ""
    )
    return (
        "name the question to plan for (the labels needed depend on it), one of:\n"
        + "\n".join(lines)
        + f"\nfor example:\n  {head} {goals[0][0]}{fewer}{why}"
    )


def _half_width_now(args: argparse.Namespace, pool: Any) -> float | None:
    """The pool mean's half-width the pilot gives now, from the calibrator the plan would
    fit (the example goal halves it); None where it cannot be fitted (the example then
    halves the labels-alone one)."""
    if not pool.labeled.any():
        return None
    _engine(args)
    try:
        cal = fit_noted(calibrator_from_args(args), pool)
        est = cal.estimate_mean(alpha=args.alpha)
    except ValidationError:
        return None
    half = (est.ci_high - est.ci_low) / 2
    return float(half) if math.isfinite(half) and half > 0 else None


def _engine(args: argparse.Namespace) -> str:
    """The pilot's engine (``auto`` means freq for a plan; ``args.engine`` set) and the
    line saying so."""
    if args.engine != "auto":
        return f"engine: {args.engine} (as --engine asked)"
    if getattr(args, "preset", None):  # a preset is of the Bayesian engine (estimate's too)
        args.engine = "bayes"
        return f"engine: bayes (--preset {args.preset})"
    args.engine = "freq"
    return f"engine: freq (--engine auto, the default, means freq for a plan: {AUTO_REASON})"


def _unsamplable(args: argparse.Namespace) -> str | None:
    """Why ``bacon sample`` cannot draw from FILE as given (None: it can), for the
    assumptions in place of the command."""
    import shlex

    from bacon_bayes.cli.study_args import labels_join_line, pool_item
    from bacon_bayes.study.folder import CONFIG_FILE

    path = Path(args.file)
    if (path / CONFIG_FILE).is_file():
        return None
    joined = [f"{what} from {str(f)!r}" for f, what in
              ((args.labels, f"the labels ({args.label})"), (args.scores, "the judge scores"))
              if f]  # fmt: skip
    if joined:  # a study's pool file is one table: the labels and scores joined are none
        said = (
            f"no bacon sample command: a study draws from one pool file holding the judge "
            f"scores and the labels, and this plan joined {' and '.join(joined)} onto "
            f"{str(args.file)!r}: join them into one "
        )
        how = (
            f"(a row per item, by its id{f' {args.item!r}' if args.item else ''}"
            + ("; a column per judge" if args.scores else "")
            + "; the label column empty where unlabeled)"
        )
        line = None
        if not args.scores:  # the labels alone: the line that joins them
            line = labels_join_line(args.file, args.labels, args.label, args.item)
        if line is None:
            then = "and run bacon plan on it for the command"
            return f"{said}CSV or Parquet table first {how}, {then}"
        code, out, label = line
        return (
            f"{said}table {how}: {code} and run bacon plan on {shlex.quote(out)} --label "
            f"{shlex.quote(label)} (the same options, without --labels) for the command"
        )
    if not "".join(path.suffixes).lower().endswith((".csv", ".csv.gz", ".parquet")):
        from bacon_bayes.readers import csv_recipe

        line, out = csv_recipe(path)
        return (
            f"bacon sample draws from a CSV or Parquet table (or a study folder), not "
            f"{str(args.file)!r}: write the table out ({line}) and run bacon plan on {out} "
            "for the command"
        )
    if args.item:
        return None
    try:  # a study records the items a wave draws by id: the table needs an id column
        pool_item(args, path)
    except ValidationError as exc:
        return (
            f"no bacon sample command: {str(exc).split(';')[0]} (a study records the "
            "items each wave draws by their id); add a column of unique ids, or pass "
            "--item COLUMN, and run bacon plan again for the command"
        )
    return None


def _shows(args: argparse.Namespace) -> bool:
    """Whether FILE is a study folder that records columns for its to-label files."""
    from bacon_bayes.study.folder import CONFIG_FILE, StudyConfig

    path = Path(args.file)
    return (path / CONFIG_FILE).is_file() and bool(StudyConfig.read(path).show)


def _plan_round(args: argparse.Namespace, goal: Goal) -> int:
    """``--calibrator``: the fresh labels a half-width needs with the frozen calibrator."""
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.frozen import fresh_labels_for, unused_judges_note
    from bacon_bayes.results import json_text

    if goal.kind != "half-width":
        raise ValidationError(
            "with --calibrator, bacon plan answers --half-width H [--group-mean NAME] (the "
            "fresh labels a frozen calibrator needs); drop --calibrator for the other goals"
        )
    saved = Calibrator.load(args.calibrator)
    round_defaults(args, saved, parse_scale(getattr(args, "scale", None)))
    with warnings.catch_warnings():  # a judge the saved models do not read: noted below
        warnings.simplefilter("ignore", PoolWarning)
        cal = saved.apply(pool_from_args(args))
    result = fresh_labels_for(cal, goal.half_width, args.alpha, goal.group)
    print(json_text(result) if args.json else plan_text(result, args))
    if not args.json and (note := unused_judges_note(cal)):
        print(f"note: {note}")
    return 0
