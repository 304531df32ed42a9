"""``bacon sample FILE --pairwise``: draw comparisons for humans to vote on, by one of
the pairwise designs (:func:`bacon_bayes.planning.pairwise.draw_pairwise_wave`), without
a study folder. The output is the whole table with two columns added: ``to_label`` (1 on
the comparisons drawn) and ``propensity`` (every comparison's inclusion probability, the
pilot's and this wave's together), which ``bacon estimate --pairwise --propensity
propensity`` takes once the votes are filled in.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from bacon_bayes.errors import ValidationError

#: The designs ``--pairwise`` draws (as ``bacon_bayes.planning.pairwise.PAIRWISE_DESIGNS``).
PAIRWISE_DESIGNS = ("uniform", "stratified", "adaptive")
PROPENSITY = "propensity"
TO_LABEL = "to_label"
#: ``bacon sample`` options that do not apply to comparisons (dest, default).
_STUDY_ONLY = (
    ("until", None), ("max_labels", None), ("study", None), ("show", ""),
    ("strata", None), ("pi_column", None), ("features", ""), ("group", None),
    ("scale", None), ("levels", None),
)  # fmt: skip


def reading_args(args: argparse.Namespace) -> argparse.Namespace:
    """The options :func:`bacon_bayes.cli.pairwise.read_pairs` reads, from ``sample``'s."""
    label = None if args.label == "label" else args.label  # "label" is found by name
    return argparse.Namespace(
        file=args.pool, model_a=args.model_a, model_b=args.model_b, label=label,
        prompt=args.prompt, item=args.item, labels=None, judge=list(args.judge or []),
        engine="freq" if args.engine == "auto" else args.engine, propensity=None,
    )  # fmt: skip


def estimate_command(args: argparse.Namespace, out: str) -> str:
    """The ``bacon estimate`` command for the filled-in file."""
    parts = ["bacon", "estimate", shlex.quote(out), "--pairwise", "--propensity", PROPENSITY]
    for flag, value in (("--model-a", args.model_a), ("--model-b", args.model_b),
                        ("--prompt", args.prompt), ("--item", args.item)):  # fmt: skip
        if value:
            parts += [flag, shlex.quote(str(value))]
    if args.label != "label":
        parts += ["--label", shlex.quote(args.label)]
    for j in args.judge or []:
        parts += ["--judge", shlex.quote(j)]
    if args.engine != "auto":
        parts += ["--engine", args.engine]
    return " ".join(parts)


def run_sample(args: argparse.Namespace) -> int:
    """Draw the wave, write the table and print what to do next."""
    import numpy as np

    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.cli.pairwise import fit_pairs, read_pairs
    from bacon_bayes.outputs import claim
    from bacon_bayes.planning.pairwise import draw_pairwise_wave, pilot_from_calibrator

    for dest, default in _STUDY_ONLY:
        if getattr(args, dest, default) not in (default, None):
            flag = "--" + dest.replace("_", "-")
            raise ValidationError(f"{flag} does not apply to --pairwise; drop {flag}.")
    if args.design not in PAIRWISE_DESIGNS:
        raise ValidationError(
            f"--design {args.design} does not apply to --pairwise; use one of "
            f"{', '.join(PAIRWISE_DESIGNS)}."
        )
    if args.budget is None or not args.budget > 0:
        raise ValidationError("--pairwise needs --budget N (new comparisons; < 1: a share).")
    rargs = reading_args(args)
    frame, roles = read_pairs(rargs)
    if PROPENSITY in frame.columns:  # an earlier wave's: the prior of this one
        rargs.propensity = PROPENSITY
    labeled = frame[roles.label].notna().to_numpy()
    n_rows = labeled.size
    n = args.budget * n_rows if args.budget < 1 else args.budget
    if n > n_rows - labeled.sum():
        raise ValidationError(
            f"--budget {args.budget:g}: only {n_rows - labeled.sum()} comparisons have no vote."
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
        cal = Calibrator(args.model, engine=rargs.engine, folds=args.folds, seed=args.seed)
        cal, _, _, _ = fit_pairs(rargs, cal)
        pilot = pilot_from_calibrator(cal)
    union, drawn = draw_pairwise_wave(
        args.design, float(n), labeled=labeled, pilot=pilot, prior=prior, seed=args.seed
    )
    source = Path(args.pool)
    out_path = args.out or source.with_name(source.name.split(".")[0] + "-wave.csv")
    table = frame.copy()
    table[TO_LABEL] = drawn.astype(int)
    table[PROPENSITY] = union
    with claim(out_path, inputs=[args.pool], force=args.force) as out:
        table.to_csv(out.path, index=False)
        out.written()
        given = out.given
    engine = "" if pilot is None else f", pilot fitted with the {rargs.engine} engine"
    print(
        f"{args.design} wave (seed {args.seed}{engine}): {int(drawn.sum())} comparisons to "
        f"label, marked {TO_LABEL} = 1 in {given} (the whole table; column {PROPENSITY!r} "
        f"holds every comparison's inclusion probability). Fill in column {roles.label!r} "
        f"(A / B / tie) on those rows, then run:\n  {estimate_command(args, str(given))}"
    )
    return 0
