"""``--pairwise`` of ``bacon estimate`` and ``bacon report``, and ``bacon doctor`` on a
table of comparisons: Bradley-Terry strengths from judge verdicts and a few human votes.

The work is in the library (:mod:`bacon_bayes.readers.pair_table`,
:mod:`bacon_bayes.report.pairwise`, :mod:`bacon_bayes.doctor.pairs`); this module reads
the options and prints.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bacon_bayes.errors import ValidationError

if TYPE_CHECKING:  # the parser is built without the library (a quick --help)
    import pandas as pd

    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.readers.pair_table import PairRoles
    from bacon_bayes.report.pairwise import PairSummary

#: the column of ``bacon sample --pairwise``'s table marking the comparisons drawn
TO_LABEL = "to_label"
#: options of ``bacon estimate`` that have no meaning for comparisons (flag, default)
NOT_PAIRWISE: tuple[tuple[str, str, Any], ...] = (
    ("--quantile", "quantile", []),
    ("--scores", "scores", None),
    ("--surrogates", "surrogates", None),
    ("--group", "group", None),
    ("--outcome", "outcome", None),
    ("--levels", "levels", None),
    ("--calibrator", "calibrator", None),
    ("--refit", "refit", False),
    ("--tolerance", "tolerance", None),
    ("--round", "round", None),
    ("--pointwise", "pointwise", False),
    ("--history", "history", None),
    ("--anytime", "anytime", False),
    ("--max-labels", "max_labels", None),
    ("--wave", "wave", None),
    ("--prompt-propensity", "prompt_propensity", None),
    ("--embedding", "embedding", None),
    ("--chunk-rows", "chunk_rows", None),
    ("--scheduler", "scheduler", None),
    ("--items-out", "items_out", None),
    ("--pooling", "pooling", "auto"),
    ("--group-effects", "group_effects", "auto"),
    ("--scale", "scale", None),
    ("--text", "text", None),
    ("--drop-unscored", "drop_unscored", False),
    ("--allow-pending", "allow_pending", False),
    ("--fixed", "fixed", False),
    ("--pairs", "pairs", "summary"),
)


def add_model_columns(g: Any) -> None:
    """``--model-a`` and ``--model-b`` (every command that reads comparisons)."""
    g.add_argument("--model-a", help="column of model A (default: model_a)")
    g.add_argument("--model-b", help="column of model B (default: model_b)")


def add_pairwise_arguments(
    p: argparse.ArgumentParser, *, report: bool = False, difference: bool = True
) -> None:
    """``--pairwise``, ``--model-a``, ``--model-b``, ``--elo``, ``--difference`` (not
    with ``difference=False``: plan's is its goal) and ``--simultaneous``."""
    g = p.add_argument_group("pairwise comparisons (--pairwise)")
    g.add_argument(
        "--pairwise",
        action="store_true",
        help="FILE holds comparisons (model A vs model B, a human vote A/B/tie, judge "
        "verdicts): Bradley-Terry strengths with intervals, rank sets and tiers. FILE: "
        "CSV/Parquet, an Arena CSV/JSON/JSONL, an AlpacaEval annotations.json or an "
        "MT-Bench judgment JSONL (--labels: FastChat's human judgments file)",
    )
    add_model_columns(g)
    g.add_argument(
        "--elo", action="store_true", help="strengths in Elo points (mean 1000), not log-odds"
    )
    if difference:
        g.add_argument(
            "--difference",
            nargs=2,
            metavar=("A", "B"),
            help="the strength of model A minus model B with its pointwise interval and P(A "
            "beats B): the test bacon plan --pairwise --difference sizes a wave for",
        )
    if not report:
        g.add_argument(
            "--simultaneous",
            action="store_true",
            help="intervals holding jointly over all models (max-|t|)",
        )


def _refuse_options(args: argparse.Namespace) -> None:
    for flag, dest, default in NOT_PAIRWISE:
        if getattr(args, dest, default) not in (default, None, False, []):
            extra = {
                "--pointwise": " (the strengths' intervals are per model unless --simultaneous)",
            }
            raise ValidationError(
                f"{flag} does not apply to --pairwise comparisons; drop {flag}"
                + extra.get(flag, "")
                + "."
            )


#: the options :func:`read_pairs` reads FILE with (flag, dest), repeated in a command
READ_OPTIONS = (
    ("--model-a", "model_a"),
    ("--model-b", "model_b"),
    ("--label", "label"),
    ("--labels", "labels"),
    ("--item", "item"),
    ("--prompt", "prompt"),
)


def refuse_baseline(args: argparse.Namespace, models: Sequence[str]) -> None:
    """``--baseline`` on comparisons: refused, with what this command runs instead (one
    model against the baseline: ``--difference``, as a whole command on the user's FILE
    and options; every model against it: the Python call), or, where it names none of
    the ``models``, with the models and the nearest names."""
    base = getattr(args, "baseline", None)
    if base is None:
        return
    from bacon_bayes.arguments import suggest

    names = sorted(map(str, models))
    head = "--baseline does not apply to --pairwise comparisons; drop --baseline"
    if base not in names:
        shown = ", ".join(map(repr, names[:12])) + (", ..." if len(names) > 12 else "")
        raise ValidationError(
            f"{head}; nor is {base!r} one of the {len(names)} models ({shown})."
            + suggest(base, names)
        )
    other = next(n for n in names if n != base)
    words = ["bacon", args.command, str(args.file), "--pairwise"]
    for flag, dest in READ_OPTIONS:
        if getattr(args, dest, None):
            words += [flag, str(getattr(args, dest))]
    words += [f"--judge={j}" for j in getattr(args, "judge", None) or []]
    if getattr(args, "engine", "auto") != "auto":
        words += ["--engine", str(args.engine)]
    words += ["--difference", other, base]
    if args.command == "report":
        words += ["--out", str(args.out)]
    where = "on the page" if args.command == "report" else ""
    raise ValidationError(
        f"{head}. One model against {base!r} (its strength difference, interval and P(it "
        f"beats {base!r})){' ' + where if where else ''}: "
        + shlex.join(words)
        + f"; every model against {base!r} with joint intervals: in Python, "
        f"Calibrator.compare_groups(baseline={base!r}) on the fitted calibrator."
    )


def read_pairs(
    args: argparse.Namespace, guess_label: bool = False
) -> tuple[pd.DataFrame, PairRoles]:
    """FILE's comparisons and the roles of its columns (named or found; ``--judge``
    patterns expanded against the columns; ``guess_label``: doctor's reading of the votes,
    :func:`~bacon_bayes.readers.pair_table.read_pair_table`)."""
    from bacon_bayes.cli.judge_args import judge_columns
    from bacon_bayes.readers import TABLES
    from bacon_bayes.readers.pair_table import read_pair_table

    patterns = list(getattr(args, "judge", None) or [])
    frame, roles = read_pair_table(
        args.file, model_a=args.model_a, model_b=args.model_b, label=args.label,
        prompt=args.prompt, item=args.item, labels=args.labels,
        judges=(lambda cols: judge_columns(patterns, cols)) if patterns else None,
        guess_label=guess_label,
    )  # fmt: skip
    if not args.item and roles.format in TABLES:
        # one row per comparison and judge (a column naming the judge, one of verdicts):
        # each vote would count once per judge, the judges mixed in one column
        from bacon_bayes.doctor.long import long_table, read_call

        read = read_call(args.file, roles.format)
        if long := long_table(frame, roles.label, roles.judges, roles.format, read):
            import re

            said = long.replace("an item", "a comparison")  # (not --item)
            raise ValidationError(re.sub(r"(?<!-)\bitem", "comparison", said))
    return frame, roles


def _check_drawn_voted(frame: pd.DataFrame, label: str, item: str | None) -> None:
    """Refuse a ``bacon sample --pairwise`` table whose drawn comparisons (``to_label`` =
    1) are not all voted on: its propensities hold only for the whole wave. The first is
    named by its line in the CSV that command writes (and its id)."""
    if TO_LABEL not in frame.columns:
        return
    from bacon_bayes.readers.pair_table import drawn_marks

    todo = drawn_marks(frame) & frame[label].isna().to_numpy()
    if todo.any():
        n, first = int(todo.sum()), int(todo.argmax())
        the_id = frame[item].iloc[[first]].tolist()[0] if item else None  # 191, not np.int64(191)
        where = f"line {first + 2}" + (f", {item} {the_id!r}" if item else "")
        raise ValidationError(
            f"{n} comparison{'s' if n > 1 else ''} marked {TO_LABEL} = 1 ({where} the "
            f"first) {'have' if n > 1 else 'has'} no vote in {label!r}: the inclusion "
            "probabilities hold only when every drawn comparison is voted on; fill in "
            f"{label!r} on those rows, then run this command again."
        )


def _votes_beyond_waves(frame: pd.DataFrame, label: str, propensity: str) -> list[str]:
    """A note when a ``bacon sample --pairwise`` table has far more votes than its
    inclusion probabilities expect (their sum, the pilot's votes and the waves' expected
    draws; beyond 4 sd of the draws): votes filled in on comparisons no wave drew."""
    import numpy as np
    import pandas as pd

    if TO_LABEL not in frame.columns or propensity not in frame.columns:
        return []
    pi = pd.to_numeric(frame[propensity], errors="coerce").to_numpy(dtype=float)
    n, expected = int(frame[label].notna().sum()), float(np.nansum(pi))
    if n - expected <= 4.0 * float(np.sqrt(np.nansum(pi * (1.0 - pi)))) + 5.0:
        return []
    return [
        f"{n} comparisons have a vote in {label!r}, where the inclusion probabilities in "
        f"{propensity!r} expect about {expected:.0f} (the votes before the wave and those it "
        f"drew): about {n - expected:.0f} seem to be on comparisons no wave drew ({TO_LABEL} "
        "= 0, no vote when bacon sample read the table). Their propensity does not say how "
        "they were chosen, so the strengths may be biased: keep only the votes the table "
        f"had then and those on the {TO_LABEL} = 1 rows (empty the others), and draw more "
        "with a further bacon sample --pairwise"
    ]


def leave_out_unfit(frame: pd.DataFrame, roles: PairRoles) -> None:
    """The judges found (not named) that the votes cannot calibrate, left out of
    ``roles.judges`` with why, as ``bacon doctor``'s command leaves them out
    (:func:`~bacon_bayes.doctor.pairs.unfit_judges`; tester D finding 8: a full copy of the
    vote named ``reference`` was taken as a judge, intervals 3x too narrow); refused when
    no judge is left."""
    from bacon_bayes.doctor.pairs import unfit_judges

    if not frame[roles.label].notna().any():
        return
    unfit = unfit_judges(frame, roles.label, roles.judges, (roles.model_a, roles.model_b))
    if not unfit:
        return
    roles.judges = [j for j in roles.judges if j not in unfit]
    fix = "; left out of the judges (pass --judge to use it anyway)"
    why = [f"judge {j!r} {w}{fix}" for j, w in unfit.items()]
    if not roles.judges:
        raise ValidationError(
            "no judge left: " + "; ".join(why) + ". Add a column of model verdicts on every "
            "comparison, or name the judges with --judge."
        )
    roles.notes += why


def fit_pairs(
    args: argparse.Namespace, cal: Calibrator
) -> tuple[Calibrator, pd.DataFrame, PairRoles, str]:
    """``cal`` (the unfitted calibrator the options describe) fitted on FILE's
    comparisons; the frame, its roles and the line saying what was fitted."""
    from bacon_bayes.cli.pool_args import fit_noted
    from bacon_bayes.pool import EvalPool

    frame, roles = read_pairs(args)
    if getattr(args, "baseline", None) is not None:  # the models named, a blank one not
        sides = frame[[roles.model_a, roles.model_b]].stack().dropna()
        refuse_baseline(args, sides.astype(str).unique().tolist())
    if not getattr(args, "judge", None):
        leave_out_unfit(frame, roles)
    if not frame[roles.label].notna().any():  # no fit, no plan and no wave fitted on votes
        models = len(set(frame[roles.model_a]) | set(frame[roles.model_b]))
        n = min(len(frame), max(round(0.02 * len(frame)), 10 * models))
        raise ValidationError(
            f"no human vote in {roles.label!r} yet: the strengths, a plan and a stratified or "
            f"adaptive wave are fitted on the votes. Draw a uniform pilot first (2% of the "
            f"comparisons, at least 10 per model on average: a model in few comparisons gets "
            f"fewer, and a stratified wave after it reaches those), and vote on it: bacon sample "
            f"{shlex.quote(str(args.file))} --pairwise --design uniform --budget {n}"
        )
    propensity = getattr(args, "propensity", None) or roles.propensity  # a wave's table
    if propensity:
        _check_drawn_voted(frame, roles.label, roles.item)
        roles.notes += _votes_beyond_waves(frame, roles.label, propensity)
    pool = EvalPool.from_pairs(
        frame, model_a=roles.model_a, model_b=roles.model_b, label=roles.label,
        judges=roles.judges, prompt=roles.prompt, item=roles.item, propensity=propensity,
    )  # fmt: skip
    fit_noted(cal, pool)  # its warnings: among the notes
    split = " split by prompt" if pool.prompts is not None else ""
    engine = "Bayesian judge model" if cal.engine_ == "bayes" else "frequentist"
    fitted = (
        f"{pool.n_items} comparisons of {pool.pairs.n_models if pool.pairs else 0} models, "
        f"{pool.n_labeled} with a human vote, judges {', '.join(pool.judges)}; surrogate: "
        f"{cal.model_name_} ({engine} engine, --engine {args.engine}), {cal.folds}-fold "
        f"cross-fitting{split}, seed {cal.seed_}"
    )
    if propensity:
        fitted += f"; votes weighted by the inclusion probabilities in {propensity!r}"
    return cal, frame, roles, fitted


def summary_from_args(
    args: argparse.Namespace, cal: Calibrator
) -> tuple[Calibrator, PairSummary, Any, Any]:
    """Fit and summarise: the calibrator, the summary, the frame and its roles."""
    from dataclasses import replace

    from bacon_bayes.report.pairwise import pair_summary

    cal, frame, roles, fitted = fit_pairs(args, cal)
    summary = pair_summary(
        cal, args.alpha, simultaneous=getattr(args, "simultaneous", False),
        scale="elo" if args.elo else "logit", fitted=fitted, difference=args.difference,
    )  # fmt: skip
    # how the reader took the columns (verdicts naming the winning model, ...) and those
    # like a judge's that were left out, as doctor says them
    notes = tuple(dict.fromkeys((*summary.notes, *roles.notes, *roles.left_out_notes())))
    return cal, replace(summary, notes=notes), frame, roles


def refuse_difference(args: argparse.Namespace) -> None:
    """``--difference A B`` without ``--pairwise``: refused (it is two models' strengths)."""
    if getattr(args, "difference", None):
        raise ValidationError(
            "--difference A B is the difference of two models' strengths: it applies to "
            "--pairwise comparisons; add --pairwise, or drop --difference."
        )


def check_args(args: argparse.Namespace) -> None:
    """Refuse what ``--pairwise`` cannot take, before anything is read."""
    if not 0 < args.alpha < 1:
        raise ValidationError(f"--alpha must be between 0 and 1, got {args.alpha}")
    _refuse_options(args)


def run_estimate(args: argparse.Namespace, cal: Calibrator, inputs: list[Any]) -> int:
    """``bacon estimate FILE --pairwise ...`` (``cal``: the unfitted calibrator of the
    options; ``inputs``: the files read, which no output may be)."""
    import contextlib

    from bacon_bayes.outputs import claim
    from bacon_bayes.results import json_text

    if args.save and not str(args.save).endswith(".nc"):
        raise ValidationError(f"--save {args.save!r} should end in .nc (a NetCDF file)")
    with contextlib.ExitStack() as stack:
        save = None
        if args.save:
            save = stack.enter_context(
                claim(args.save, option="--save", inputs=inputs, force=args.force)
            )
        cal, summary, _, _ = summary_from_args(args, cal)
        said = ""
        if save is not None:
            from bacon_bayes.cli.rounds import save_and_say

            said = save_and_say(cal, save, str(args.save))  # claimed above, before the work
    if args.json:
        print(json_text(summary.to_dict()))
    else:
        print(summary.to_text())
    if said:
        import sys

        print(said, file=sys.stderr if args.json else sys.stdout)
    return 0


def run_report(
    args: argparse.Namespace, cal: Calibrator, inputs: list[Any], saved: Calibrator | None = None
) -> int:
    """``bacon report FILE --pairwise ... --out page.html`` (as :func:`run_estimate`;
    ``saved``: FILE's calibrator, read already, when FILE is a saved one, which is of
    comparisons with or without ``--pairwise``)."""
    from bacon_bayes.atomic import atomic_write_text
    from bacon_bayes.doctor.pairs import pool_pair_diagnostics
    from bacon_bayes.outputs import claim
    from bacon_bayes.report.pairwise import render_pairwise_report

    for flag in ("simulate", "history", "anchor"):
        if getattr(args, flag, None):
            raise ValidationError(f"--{flag} does not apply to --pairwise; drop it.")
    with claim(args.out, inputs=inputs, force=args.force) as out:
        if str(args.file).endswith(".nc"):  # a saved calibrator (bacon estimate --save)
            from bacon_bayes.calibrator import Calibrator
            from bacon_bayes.report.pairwise import pair_summary

            cal = saved or Calibrator.load(args.file)
            if getattr(cal.pool_, "pairs", None) is None:
                raise ValidationError(
                    f"{args.file} holds a calibrator of scores, not of comparisons; drop "
                    "--pairwise for its report."
                )
            refuse_baseline(args, cal.pool_.pairs.names)
            scale = "elo" if args.elo else "logit"
            summary = pair_summary(
                cal, args.alpha, scale=scale, fitted=f"saved {args.file}",
                difference=args.difference,
            )  # fmt: skip
        else:
            cal, summary, _, _ = summary_from_args(args, cal)
        # from the pool's verdicts, which a saved calibrator keeps: the same table either way
        diag = pool_pair_diagnostics(cal.pool_, level=1 - args.alpha)
        atomic_write_text(out.path, render_pairwise_report(cal, summary, diag, title=args.title))
        path = out.written()
    print(f"report written to {path} (open it in a browser; it works offline)")
    return 0


def run_doctor(args: argparse.Namespace) -> int:
    """``bacon doctor`` on a table of comparisons."""
    from bacon_bayes.doctor.pairs import pair_doctor_text

    frame, roles = read_pairs(args, guess_label=True)
    text = pair_doctor_text(
        frame, roles, args.file, alpha=args.alpha, labels=args.labels, named=bool(args.judge)
    )
    print(text)
    return 0
