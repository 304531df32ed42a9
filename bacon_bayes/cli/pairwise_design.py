"""``bacon plan FILE --pairwise`` and ``bacon sample FILE --pairwise``.

:func:`run_plan`: the labels each pairwise design needs for a goal, from a pilot fitted on
FILE (:func:`bacon_bayes.planning.pairwise.plan_pairwise`), and the ``bacon sample``
command that draws them. :func:`run_sample`: draw comparisons for humans to vote on, by one of
the pairwise designs (:func:`bacon_bayes.planning.pairwise.draw_pairwise_wave`), without
a study folder. The output is the whole table with two columns added: ``to_label`` (1 on
the comparisons drawn) and ``propensity`` (every comparison's inclusion probability, the
pilot's and this wave's together), which ``bacon estimate --pairwise --propensity
propensity`` takes once the votes are filled in. ``--target population`` fits the pilot
for that target and puts it (and the prompt column) in the printed estimate command.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from bacon_bayes.cli.pairwise import TO_LABEL
from bacon_bayes.errors import ValidationError

#: The designs ``--pairwise`` draws (as ``bacon_bayes.planning.pairwise.PAIRWISE_DESIGNS``).
PAIRWISE_DESIGNS = ("uniform", "stratified", "adaptive")
PROPENSITY = "propensity"
#: ``bacon sample`` options that do not apply to comparisons (dest, default).
_STUDY_ONLY = (
    ("until", None), ("max_labels", None), ("study", None), ("show", ""),
    ("strata", None), ("pi_column", None), ("features", ""), ("group", None),
    ("scale", None), ("levels", None), ("outcome", None), ("existing_labels", "wave"),
    ("prior_design", "uniform"), ("allocation", "proportional"), ("bins", 5),
    ("uniform_share", None), ("per_prompt", 2.0), ("sd_model", "heteroskedastic"),
    ("max_ratio", 0.95), ("drop_unscored", False),
)  # fmt: skip


def reading_args(args: argparse.Namespace) -> argparse.Namespace:
    """The options :func:`bacon_bayes.cli.pairwise.read_pairs` reads, from ``sample``'s."""
    from bacon_bayes.readers.labels import read_labels

    label = args.label
    if label == "label":  # the default: found by name in the table, and in a --labels file
        # as its one column besides the id unless one is named "label" (as plan, doctor and
        # estimate find it: plan's printed sample command has no --label)
        named = bool(args.labels) and "label" in read_labels(args.labels).columns
        label = label if named else None
    return argparse.Namespace(
        file=args.pool, model_a=args.model_a, model_b=args.model_b, label=label,
        prompt=args.prompt, item=args.item, labels=args.labels, judge=list(args.judge or []),
        engine="freq" if args.engine == "auto" else args.engine, propensity=None,
    )  # fmt: skip


def estimate_command(
    args: argparse.Namespace, out: str, prompt: str | None = None, label: str | None = None
) -> str:
    """The ``bacon estimate`` command for the filled-in file, for ``--target`` (``prompt``:
    the prompt column the table was read with, named when the target is population so
    that the estimate clusters by it as the pilot did; ``label``: the vote column the
    table was read with, a ``--labels`` file's found by sample and written into the
    table), with the pilot's outcome family and folds."""
    population = args.target == "population"
    parts = ["bacon", "estimate", shlex.quote(out), "--pairwise", "--propensity", PROPENSITY]
    prompt = args.prompt or (prompt if population else None)
    for flag, value in (("--model-a", args.model_a), ("--model-b", args.model_b),
                        ("--prompt", prompt), ("--item", args.item)):  # fmt: skip
        if value:
            parts += [flag, shlex.quote(str(value))]
    if population:
        parts += ["--target", "population"]
    if getattr(args, "difference", None):  # the difference the wave was aimed at
        parts += ["--difference", *map(shlex.quote, map(str, args.difference))]
    if (label := label or args.label) != "label":  # estimate finds "label" by name
        parts += ["--label", shlex.quote(label)]
    for j in args.judge or []:
        parts += ["--judge", shlex.quote(j)]
    # the pilot's engine (auto: freq, as the pilot and the plan read it), not estimate's
    # default, the Bayesian one
    parts += ["--engine", "freq" if args.engine == "auto" else args.engine]
    if args.model:  # the estimator the pilot was fitted with
        parts += ["--model", shlex.quote(args.model)]
    parts += [] if args.folds == 5 else ["--folds", str(args.folds)]
    return " ".join(parts)


def run_sample(args: argparse.Namespace) -> int:
    """Draw the wave, write the table and print what to do next."""
    import numpy as np

    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.cli.pairwise import fit_pairs, read_pairs
    from bacon_bayes.estimate.bt_guards import graph_problem
    from bacon_bayes.io import check_people_suffix, write_people_table
    from bacon_bayes.outputs import claim
    from bacon_bayes.planning.pairwise import (
        draw_pairwise_wave,
        pending_marks,
        pilot_from_calibrator,
    )
    from bacon_bayes.study.folder import file_stem

    for dest, default in _STUDY_ONLY:
        if getattr(args, dest, default) not in (default, None):
            flag = "--" + dest.replace("_", "-")
            raise ValidationError(f"{flag} does not apply to --pairwise; drop {flag}.")
    if args.design not in PAIRWISE_DESIGNS:
        raise ValidationError(
            f"--design {args.design} does not apply to --pairwise; use one of "
            f"{', '.join(PAIRWISE_DESIGNS)}."
        )
    if args.budget is None:
        raise ValidationError("--pairwise needs --budget N (new comparisons; < 1: a share).")
    if not args.budget > 0:
        raise ValidationError(
            f"--budget {args.budget:g}: give a positive number of new comparisons to label "
            "(or a share in (0, 1))."
        )
    rargs = reading_args(args)
    frame, roles = read_pairs(rargs)
    if PROPENSITY in frame.columns:  # an earlier wave's: the prior of this one
        rargs.propensity = PROPENSITY
    apart = graph_problem(frame[roles.model_a].astype(str), frame[roles.model_b].astype(str))
    if apart:  # no wave of votes can be estimated (tester A finding 4)
        raise ValidationError(f"{apart.rstrip('.')}, then draw a wave; nothing was drawn.")
    pending = pending_marks(frame, roles.label)  # drawn by an earlier wave, not voted
    labeled = frame[roles.label].notna().to_numpy() | pending
    n_rows = labeled.size
    n = args.budget * n_rows if args.budget < 1 else args.budget
    if n > n_rows - labeled.sum():
        waiting = f" ({pending.sum()} more are drawn, votes pending)" if pending.any() else ""
        raise ValidationError(
            f"--budget {args.budget:g}: only {n_rows - labeled.sum()} comparisons have no "
            f"vote{waiting}."
        )
    pilot, prior = None, None
    if rargs.propensity:
        prior = frame[PROPENSITY].to_numpy(dtype=float)
        if not np.all(np.isfinite(prior)):
            raise ValidationError(
                f"column {PROPENSITY!r} is empty on some rows; it must hold every "
                "comparison's inclusion probability (as bacon sample --pairwise writes it)."
            )
    if args.design != "uniform":
        cal = Calibrator(
            args.model, engine=rargs.engine, folds=args.folds, seed=args.seed,
            target=args.target,
        )  # fmt: skip
        cal, _, _, _ = fit_pairs(rargs, cal)
        pilot = pilot_from_calibrator(cal)
    union, drawn = draw_pairwise_wave(
        args.design, float(n), labeled=labeled, pilot=pilot, prior=prior, seed=args.seed,
        pair=args.difference if args.design != "uniform" else None,
    )  # fmt: skip
    source = Path(args.pool)
    out_path = args.out or source.with_name(file_stem(source) + "-wave.csv")
    table = frame.copy()
    table[TO_LABEL] = (drawn | pending).astype(int)
    table[PROPENSITY] = union
    with claim(out_path, inputs=[args.pool], force=args.force) as out:
        check_people_suffix(out.given, "--out")
        write_people_table(table, out.path)  # CSV, or Parquet for a .parquet name
        out.written()
        given = out.given
    kept = (
        f", beside the {pending.sum()} an earlier wave drew whose votes are still pending "
        "(kept marked)"
        if pending.any()
        else ""
    )
    engine = "" if pilot is None else f", pilot fitted with the {rargs.engine} engine"
    if pilot is not None and pilot.target == "population":
        engine += f", {pilot.clustering}"
    print(
        f"{args.design} wave (seed {args.seed}{engine}): {int(drawn.sum())} comparisons to "
        f"label ({n:.0f} expected: each comparison is drawn on its own with its inclusion "
        f"probability, so the count varies){kept}, marked "
        f"{TO_LABEL} = 1 in {given} (the whole table; column {PROPENSITY!r} "
        f"holds every comparison's inclusion probability). Fill in column {roles.label!r} "
        f"({_spelling(frame[roles.label])}) on those rows, then run:\n  "
        f"{estimate_command(args, str(given), roles.prompt, roles.label)}"
    )
    return 0


def _spelling(votes: Any) -> str:
    """How to write a vote: A / B / tie, and the column's own words when it has others
    (``model_a``, ``tie (bothbad)``, 1 / 0 / 0.5); both are read."""
    words = sorted({str(v) for v in votes.dropna()} - {"A", "B", "tie"})
    return "A / B / tie" + (f", or as its votes so far: {' / '.join(words[:5])}" if words else "")


#: ``bacon plan`` options that do not apply to comparisons (dest, default).
_NOT_PLAN = (
    ("scores", None), ("group", None), ("outcome", None), ("levels", None),
    ("calibrator", None), ("from_scratch", False), ("group_mean", None), ("top", False),
    ("embedding", None), ("prompt_propensity", None), ("text", None), ("scale", None),
    ("allow_pending", False), ("drop_unscored", False),
)  # fmt: skip


def _budgets(args: argparse.Namespace, n_rows: int, n0: int, notes: list[str]) -> list[int]:
    """The labels in all at which the plan predicts (``--budgets``; default shares 0.05,
    0.1 and 0.2 of the comparisons, as ``bacon plan``'s), past the pilot's ``n0`` (those
    left out said in ``notes``)."""
    from bacon_bayes.planning.budgets import budget_labels

    try:
        values = [float(v) for v in (args.budgets or "").split(",") if v.strip()]
    except ValueError as exc:
        raise ValidationError(f"--budgets must be numbers, got {args.budgets!r}") from exc
    return budget_labels(values or None, n_rows, n0, notes)


def sample_command(args: argparse.Namespace, design: str, n_new: int) -> str | None:
    """The ``bacon sample --pairwise`` command drawing ``n_new`` comparisons by ``design``
    on FILE as the plan read it (None: ``sample`` cannot read it so)."""
    if args.propensity and args.propensity != PROPENSITY:
        return None
    parts = ["bacon", "sample", shlex.quote(str(args.file)), "--pairwise", "--design", design,
             "--budget", str(n_new)]  # fmt: skip
    for flag, value in (("--model-a", args.model_a), ("--model-b", args.model_b),
                        ("--label", args.label), ("--labels", args.labels),
                        ("--prompt", args.prompt), ("--item", args.item)):  # fmt: skip
        if value:
            parts += [flag, shlex.quote(str(value))]
    for j in args.judge or []:
        parts += ["--judge", shlex.quote(j)]
    if args.target == "population":  # the pilot's, and the printed estimate's
        parts += ["--target", "population"]
    if design != "uniform":  # the pilot is fitted again to draw the wave
        if args.difference is not None:  # aimed at the difference the plan sized it for
            parts += ["--difference", *map(shlex.quote, map(str, args.difference))]
        parts += [] if args.seed == 0 else ["--seed", str(args.seed)]
    # the engine, folds and model the plan's pilot was fitted with, which sample puts in
    # its estimate command (a uniform wave too: without them, estimate's default engine)
    parts += ["--engine", args.engine]
    parts += [] if args.folds == 5 else ["--folds", str(args.folds)]
    if args.model:
        parts += ["--model", shlex.quote(args.model)]
    return " ".join(parts)


def run_plan(args: argparse.Namespace, engine_line: str) -> int:
    """``bacon plan FILE --pairwise``: labels per design for ``--half-width H`` (the mean
    half-width of the strengths), ``--difference A B --half-width H`` (of A - B) or
    ``--difference A B --delta D`` (power)."""
    from bacon_bayes.cli.pairwise import fit_pairs
    from bacon_bayes.cli.pool_args import calibrator_from_args
    from bacon_bayes.estimate.bt_guards import ALL_TIES, all_ties
    from bacon_bayes.planning.pairwise import pilot_from_calibrator, plan_pairwise
    from bacon_bayes.results import json_text

    for dest, default in _NOT_PLAN:
        if getattr(args, dest, default) not in (default, None):
            flag = "--" + dest.replace("_", "-")
            raise ValidationError(f"{flag} does not apply to --pairwise; drop {flag}.")
    if args.half_width is None and args.difference is None:
        raise ValidationError(
            "--pairwise plans for one goal: --half-width H (the strengths' mean half-width), "
            "--difference A B --half-width H (the half-width of A - B) or --difference A B "
            "--delta D [--power P] (power to separate two models)."
        )
    if args.difference is None and args.delta is not None:
        raise ValidationError("--delta D goes with --difference A B (the difference to detect).")
    if args.difference is not None and (args.delta is None) == (args.half_width is None):
        raise ValidationError(
            "--difference A B takes --delta D (power to detect it) or --half-width H (the "
            "half-width of A - B), one of the two."
        )
    designs = [d.strip() for d in args.designs.split(",")] if args.designs else None
    for d in designs or []:
        if d not in PAIRWISE_DESIGNS:
            raise ValidationError(
                f"--designs {d} is not a pairwise design; use {PAIRWISE_DESIGNS}."
            )
    cal, _, _, fitted = fit_pairs(args, calibrator_from_args(args))
    votes = cal.pool_.y[cal.pool_.labeled]
    if all_ties(votes):  # the estimate's warning, and no plan
        raise ValidationError(
            ALL_TIES.format(n=votes.size) + "; a plan from them would call any goal reached"
        )
    pilot = pilot_from_calibrator(cal)
    scale = "elo" if args.elo else "logit"
    notes: list[str] = []  # budgets left out (tester A finding 7)
    result = plan_pairwise(
        pilot, half_width=args.half_width, alpha=args.alpha, scale=scale,
        pair=None if args.difference is None else tuple(args.difference), delta=args.delta,
        power=args.power, designs=designs or PAIRWISE_DESIGNS,
        budgets=_budgets(args, pilot.pi0.size, pilot.n_labeled, notes),
    )  # fmt: skip
    n0 = pilot.n_labeled
    best = result.recommended
    new = None if best is None else result.needed[best] - n0  # type: ignore[operator]
    command = sample_command(args, best, new) if best and new else None
    if args.json:
        doc = {"fitted": fitted, "engine": engine_line, "goal": result.goal, "labeled": n0,
               "needed": result.needed, "recommended": best, "new_labels": new,
               "predicted": result.predicted, "command": command,
               "variance": result.variance, "notes": notes}  # fmt: skip
        print(json_text(doc))
        return 0
    lines = [f"pilot: {fitted}", engine_line, f"goal: {result.goal}, level {1 - args.alpha:g}"]
    lines.append(f"variance: {result.variance}")
    lines += [f"note: {n}" for n in notes]
    lines.append("labels in all (the pilot's included) per design:")
    for d, n in result.needed.items():
        mark = "  <- recommended" if d == best else ""
        what = "not reachable within the pool" if n is None else f"{n} ({n - n0} new)"
        lines.append(f"  {d:<11} {what}{mark}")
        if result.predicted.get(d):
            at = ", ".join(f"{v:.3g} at {k}" for k, v in result.predicted[d].items())
            lines.append(f"              predicted: {at}")
    if best is None:
        lines.append("no design reaches the goal within the pool: relax it or judge more pairs")
    elif not new:
        lines.append(f"the {n0} votes so far reach the goal: nothing to draw")
    elif command is None:
        lines.append(
            "bacon sample --pairwise takes the earlier waves' inclusion probabilities from a "
            f"column named {PROPENSITY!r}: rename column {args.propensity!r} to "
            f"{PROPENSITY!r} in FILE, then run bacon plan again for the command"
        )
    else:
        lines += ["draw the recommended wave with:", f"  {command}"]
    print("\n".join(lines))
    return 0
