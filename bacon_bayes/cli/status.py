"""``bacon status``: labeled and pending counts per sampling wave of a study, and whether
its questions are settled by the anytime intervals (:mod:`bacon_bayes.study.settled`)."""

from __future__ import annotations

import argparse
import shlex
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from bacon_bayes.cli.pool_args import add_pooling_argument, parse_scale
from bacon_bayes.cli.study_args import add_study_pool_arguments, refuse_unimported
from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import FORCE_HELP, claim

if TYPE_CHECKING:
    import pandas as pd

    from bacon_bayes.study import Study


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``bacon status``."""
    p = subparsers.add_parser(
        "status",
        help="labeled / pending items per wave of a study, and whether its questions are "
        "settled (pool mean, pairs, best group) or about how many more labels they need",
    )
    p.add_argument("study", type=Path, help="study folder")
    p.add_argument(
        "--pending-out",
        type=Path,
        help="write the pending items to this file (.csv or .parquet)",
    )
    p.add_argument(
        "--show",
        default="",
        help="pool columns to copy into --pending-out (default: the study's, from bacon "
        "sample --show)",
    )
    p.add_argument("--force", action="store_true", help="--pending-out: " + FORCE_HELP)
    q = p.add_argument_group(
        "questions (answered by the anytime intervals at the latest fully labeled wave)"
    )
    q.add_argument(
        "--half-width", type=float, metavar="H", help="the pool mean is settled within +-H"
    )
    q.add_argument(
        "--max-labels",
        type=int,
        metavar="N",
        help="the budget fixed from the start: the study's, which `bacon sample --max-labels` "
        "records once (the default; another is refused): alpha-spending; without one, the "
        "confidence sequence",
    )
    q.add_argument(
        "--group",
        help="group column whose pairs and best group to ask about (default: the study's)",
    )
    q.add_argument(
        "--better",
        choices=("higher", "lower"),
        help="which way a group's mean is better for the best group: higher or lower (an "
        "error score such as MQM); default: the study's (bacon sample --better), else higher",
    )
    q.add_argument(
        "--scale",
        help="the label's scale: the study's, which `bacon sample STUDY --scale LOW:HIGH` "
        "records (another is refused with that command)",
    )
    q.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level (0.05)")
    q.add_argument(
        "--engine",
        default="freq",
        choices=("auto", "bayes", "freq"),
        help="engine of the calibrator: freq (default: the fast frequentist model, read "
        "after every wave), auto (bacon estimate's default: the Bayesian judge model where "
        "the family has one) or bayes; where estimate's default fits the other, the "
        "questions' line says so",
    )
    q.add_argument("--model", help="outcome family of the calibrator")
    add_study_pool_arguments(q, "embedding", "text", "prompt", "outcome", "levels")
    add_pooling_argument(q)  # as bacon estimate's: the group means and pairs it answers from
    q.add_argument("--no-questions", action="store_true", help="only the counts per wave")
    q.add_argument(
        "--allow-pending",
        action="store_true",
        help="answer after the latest wave, the items still without a label treated as "
        "missing at random (as bacon estimate --allow-pending); by default the questions "
        "wait at the last wave before one with pending items",
    )
    q.add_argument(
        "--pairs",
        choices=("summary", "all"),
        default="summary",
        help="the groups' pairs: summary (default: with more than 15 pairs, the settled "
        "ones and a count of the others) or all",
    )

    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the per-wave table (and optionally write the pending items)."""
    from bacon_bayes.study import Study, pending_items
    from bacon_bayes.study.folder import study_inputs

    if args.half_width is not None and not args.half_width > 0:
        raise ValidationError(f"--half-width {args.half_width:g}: give a positive number")
    if args.max_labels is not None and args.max_labels < 1:
        raise ValidationError(f"--max-labels {args.max_labels}: give a positive number of labels")
    study = Study.open(args.study)
    if args.scale and parse_scale(args.scale) != study.config.label_range:
        have = study.config.label_range
        words = shlex.join(["bacon", "sample", str(args.study), f"--scale={args.scale}"])
        raise ValidationError(
            f"--scale {args.scale}: status reads the study's scale, "
            + ("and it records none; record it (once: estimate, status, report and sample "
               f"--until then keep the intervals inside it): {words}" if have is None else
               f"{have[0]:g}:{have[1]:g}, recorded once; drop --scale")
        )  # fmt: skip
    if args.pending_out:  # a labeller's filled-in file kept, before anything is printed
        refuse_unimported(study, Path(args.pending_out), args.study, "--pending-out")
    if args.group is not None and args.group not in study.pool.columns:
        import difflib

        columns = [str(c) for c in study.pool.columns]
        close = difflib.get_close_matches(str(args.group), columns, n=3)
        hint = f"did you mean {', '.join(map(repr, close))}? " if close else ""
        raise ValidationError(
            f"--group {args.group!r} is not a column of the study's pool; {hint}pass one "
            f"of its columns: {', '.join(columns)}"
        )
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
    if (lost := study.unwritten_note()) and not args.pending_out:
        print(f"note: {lost}")
    if not args.no_questions:
        print_questions(args, study, table)
    if args.pending_out:
        from bacon_bayes.study.folder import record_to_label_written, show_notes

        show = [c.strip() for c in args.show.split(",") if c.strip()] or None
        pending = pending_items(study, show=show)
        for note in show_notes(study.config, show or [], given=False):
            print(note, file=sys.stderr)
        inputs = study_inputs(args.study)
        from bacon_bayes.io import check_people_suffix, write_people_table

        with claim(
            args.pending_out, option="--pending-out", inputs=inputs, force=args.force
        ) as out:  # CSV, or Parquet for a .parquet name; another ending refused
            check_people_suffix(out.given, "--pending-out")
            write_people_table(pending, out.path)
            out.written()
        record_to_label_written(args.study)  # every pending item is in it
        print(f"{len(pending)} pending items written to {args.pending_out}")
    return 0


def _labels_after(table: pd.DataFrame, wave: int | None) -> int:
    """The labels back from the waves after ``wave`` (all of them for None)."""
    later = table["wave"] > (0 if wave is None else wave)
    return int(table.loc[later, "labeled"].sum())


def print_questions(args: argparse.Namespace, study: Study, table: pd.DataFrame) -> None:
    """Whether each question is settled (a question that cannot be answered yet says why);
    ``study``: the open study, ``table`` its status."""
    from bacon_bayes.cli.pool_args import study_pool_options
    from bacon_bayes.errors import BaconError, PoolWarning
    from bacon_bayes.group_gaps import BY_GROUP
    from bacon_bayes.model_choice import engine_words
    from bacon_bayes.report.comparisons import SUMMARY_PAIRS
    from bacon_bayes.study.folder import PENDING_READ, recorded_max_labels
    from bacon_bayes.study.panel import is_panel_note
    from bacon_bayes.study.settled import (
        fit_study,
        last_labeled_wave,
        pending_text,
        pending_waves,
        question_lines,
        question_notes,
        questions,
    )

    waiting = pending_waves(table)
    wave, latest = last_labeled_wave(args.study), max(study.wave_numbers)
    if args.allow_pending:
        wave = latest
    elif waiting and (unused := _labels_after(table, wave)):  # labels in hand not used
        labels = f"the {unused} label{'s' if unused > 1 else ''}"
        where = (  # no wave complete: the labels of the first wave(s) themselves
            f"no question is answered yet and {labels} back so far"
            if wave is None
            else f"the questions wait at wave {wave} and {labels} back from the waves after it"
        )
        print(
            f"note: {pending_text(waiting)} still without labels, so {where} "
            f"{'are' if unused > 1 else 'is'} not used; import the rest (`bacon status "
            f"{shlex.quote(str(args.study))} --pending-out pending.csv` writes those items, "
            "for the labellers), or, if they will "
            "never come, --allow-pending answers after the latest wave with them missing "
            "at random (right only if whether a label came back has nothing to do with its "
            "value)"
        )
    if wave is None:
        print("questions: no wave has all its labels in yet")
        return
    max_labels = recorded_max_labels(Path(args.study), args.max_labels)
    try:
        with warnings.catch_warnings():  # printed below as notes, as bacon estimate does
            warnings.simplefilter("ignore", PoolWarning)
            cal = fit_study(
                args.study,
                wave=wave,
                engine=args.engine,
                model=args.model,
                allow_pending=args.allow_pending,
                pooling=args.pooling,
                pool_options=study_pool_options(args),  # read as bacon estimate reads it
            )
        better = args.better or study.config.better
        found = questions(cal, alpha=args.alpha, half_width=args.half_width,
                          max_labels=max_labels, better=better)  # fmt: skip
    except BaconError as exc:
        print(f"questions: not answered yet ({exc})")
        return
    kind = "alpha-spending" if max_labels else "confidence sequence"
    missing = f"; {pending_text(waiting)} pending: missing at random" if args.allow_pending else ""
    missing = missing if waiting else ""
    model = f"model {cal.model_name_} ({cal.engine_})"
    if args.model is None and (said := engine_words(cal, default="freq")):
        model += f", {said}" if cal.engine == "freq" else f"; engine: {said}"  # as estimate's
    print(
        f"questions after wave {wave} ({cal.pool_.n_labeled} labels{missing}; {kind}, "
        f"{100 * (1 - args.alpha):g}% at every wave; {model}):"
    )
    for note in cal.pool_.notes:  # partly returned waves (alpha-spending); the judges
        if PENDING_READ in note or BY_GROUP in note or is_panel_note(note):
            print(f"  note: {note}")
    for note in cal.pool_warnings():  # unscored rows, unfit judges: fit's PoolWarning
        print(f"  note: {note}")
    limit = None if args.pairs == "all" else SUMMARY_PAIRS
    for text in question_lines(found, limit):
        print(f"  {text}")
    for note in question_notes(found):
        print(f"  note: {note}")
    if cal.pool_.groups is not None and (better == "lower" or args.better is None):
        from bacon_bayes.doctor.pooled import better_hint  # as estimate says it

        if hint := better_hint(cal.pool_, cal.bounds_, None if better == "higher" else better):
            from bacon_bayes.cli.printed import better_rerun

            print(f"  note: {better_rerun(hint, args)}")
    if cal.pool_.groups is None:
        print("  (no groups: --group COLUMN asks about each pair's sign and the best group)")
