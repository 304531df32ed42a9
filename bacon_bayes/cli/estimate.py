"""``bacon estimate``: pool (and per-group) estimates beside the baselines."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from typing import Any

import numpy as np

from bacon_bayes.cli.ledger import add_history_arguments, append_round, check_ledger, open_ledger
from bacon_bayes.cli.pairwise import add_pairwise_arguments, refuse_difference, run_estimate
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
    group_name,
    parse_levels,
    plan_budget,
    plan_note_anytime,
    read_files,
    target_line,
)
from bacon_bayes.cli.printed import (
    better_rerun,
    plan_command,
    round_plan_command,
    scale_rerun,
)
from bacon_bayes.cli.rounds import (
    fresh_enough,
    new_groups_text,
    refit_text,
    round_header,
    round_json,
    round_surrogates_note,
    save_and_say,
    transport_text,
    unvalidated_text,
)
from bacon_bayes.cli.stream import add_stream_arguments, run_stream, wants_stream
from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import Output, claim

METHODS = ("aee", "classical", "naive")
#: the coverage of the item intervals --items-out writes (as the streamed writer's)
ITEM_LEVEL = 0.9


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "estimate",
        help="estimate the pool mean (and per-group means) with valid CIs",
        description="Calibrate judge scores on the labeled rows and estimate the mean label "
        "of the whole pool, beside the classical (labels only) and naive (raw judge average) "
        "baselines.",
    )
    add_pool_arguments(p)
    add_calibrator_arguments(p)
    p.add_argument(
        "--quantile", type=float, action="append", default=[], help="also estimate quantile Q"
    )
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument(
        "--pointwise",
        action="store_true",
        help="group and pair intervals each at its own level (the ones bacon plan "
        "--group-mean and --difference size); default: simultaneous over the groups and "
        "over the pairs (the rank intervals are simultaneous either way)",
    )
    p.add_argument(
        "--pairs",
        choices=("summary", "all"),
        default="summary",
        help="comparisons of the groups: summary (default: with more than 15 pairs, the "
        "best group's pairs and the other resolved ones) or all",
    )
    p.add_argument(
        "--baseline",
        metavar="NAME",
        help="compare every other group against this one (e.g. the production model) "
        "instead of all pairs: the joint intervals then hold over those comparisons alone, "
        "narrower than all pairs' (with --group)",
    )
    p.add_argument(
        "--save",
        metavar="FILE.nc",
        help="also save the fitted calibrator (NetCDF): the next round's --calibrator",
    )
    add_anytime_arguments(p)
    add_history_arguments(p)
    add_stream_arguments(p)
    add_pairwise_arguments(p)
    p.set_defaults(func=run)


#: What a streamed estimate does not do (a saved calibrator holds its pool, which a stream
#: never has in memory; a ledger's round and a next round's check need it too).
NOT_STREAMED = (
    "--calibrator, --save, --history and anytime intervals (--anytime, --max-labels, a study "
    "folder) are not streamed yet (a saved calibrator holds the whole pool); pass a single "
    "table without --chunk-rows or --scheduler (or --fixed), or drop them"
)


def run(args: argparse.Namespace) -> int:
    if args.pairwise:  # comparisons: Bradley-Terry strengths (cli/pairwise.py)
        check_pairwise(args)
        return run_estimate(args, calibrator_from_args(args), read_files(args))
    refuse_difference(args)
    if args.save and not str(args.save).endswith(".nc"):
        raise ValidationError(f"--save {args.save!r} should end in .nc (a NetCDF file)")
    if args.round and not args.history:
        raise ValidationError("--round names a round in the ledger; pass --history FILE too")
    if args.save and args.calibrator and not getattr(args, "refit", False):
        raise ValidationError(
            "--save with a frozen --calibrator would save the old calibration again; "
            "add --refit to save one trained on both rounds, or drop --save"
        )
    if (args.save or args.history or args.calibrator) and wants_stream(args):
        raise ValidationError(NOT_STREAMED)  # before --save/--history are claimed
    if args.baseline is not None and wants_stream(args):
        raise ValidationError(
            "--baseline is not streamed yet; pass a single table without --chunk-rows or "
            "--scheduler, or drop --baseline"
        )
    inputs = read_files(args)
    with contextlib.ExitStack() as stack:
        save = history = items = None
        if args.items_out and not wants_stream(args):  # streamed: claimed by run_stream
            items = stack.enter_context(
                claim(args.items_out, option="--items-out", inputs=inputs, force=args.force)
            )
        if args.save:
            save = stack.enter_context(
                claim(args.save, option="--save", inputs=inputs, force=args.force)
            )
        if args.history:
            history = stack.enter_context(
                claim(
                    args.history,
                    option="--history",
                    inputs=[*inputs, args.save],
                    force=args.force,
                    appends=True,
                )
            )
        return _run(args, save, history, items)


def _run(
    args: argparse.Namespace,
    save: Output | None = None,
    history: Output | None = None,
    items: Output | None = None,
) -> int:
    """:func:`run` with its outputs claimed; ends with a line on what ``--save`` and
    ``--items-out`` wrote (on stderr with ``--json``)."""
    _said: list[str] = []
    code = _estimate(args, save, history, items, _said)
    for line in _said:
        print(line, file=sys.stderr if args.json else sys.stdout)
    return code


def _estimate(
    args: argparse.Namespace,
    save: Output | None,
    history: Output | None,
    items: Output | None,
    _said: list[str],
) -> int:
    from bacon_bayes.frozen import unvalidated
    from bacon_bayes.io import write_by_suffix
    from bacon_bayes.order import unique_codes
    from bacon_bayes.planning import resolution_note
    from bacon_bayes.planning.note import round_plan_note
    from bacon_bayes.report.comparisons import comparisons, target_description, uncompared
    from bacon_bayes.report.text import estimate_output, naive_note, pool_notes
    from bacon_bayes.results import json_text

    records = open_ledger(history)  # a damaged ledger stops here, before any work
    anytime = anytime_from_args(args)
    if wants_stream(args):
        if args.calibrator or save is not None or history is not None or anytime is not None:
            raise ValidationError(NOT_STREAMED)
        return run_stream(args, calibrator_from_args(args), parse_levels(args.levels))
    cal, saved = fit_from_args(args)
    check_ledger(cal, records, args)  # another project's ledger: refused before --save
    pool = cal.pool_

    def finish(validated: bool = True) -> None:
        """Write the item scores (--items-out), save the calibrator (--save) and append
        the round (--history): once every estimate is made, so a command that fails on
        the way saves nothing."""
        if items is not None:  # the item scores of this fit, as Calibrator.item_scores
            write_by_suffix(cal.item_scores(ITEM_LEVEL), items.path)
            items.written()
            rows = f" ({ROW_ITEMS})" if getattr(args, "row_items", False) else ""
            _said.append(f"item scores written to {str(args.items_out)!r}{rows}")
        saved_id = None
        if save is not None:
            said = save_and_say(cal, save, str(args.save))  # claimed above, before the work
            saved_id = cal.save_id_
            _said.append(f"{said}: pass it as the next round's --calibrator")
        if history is not None and records is not None:
            append_round(cal, args, history, records, validated=validated, saved_id=saved_id)

    group = group_name(args) if pool.groups is not None else None
    check_baseline(args, pool.groups, group)  # refused on every path, unvalidated too
    if saved is not None and not fresh_enough(cal):
        if args.json:
            out = {"n_items": pool.n_items, "n_labeled": pool.n_labeled}
            out |= {"unvalidated": unvalidated(cal), "round": round_json(cal, args)}
            text = json_text(out)
        else:
            text = f"{round_header(cal, args)}\n{unvalidated_text(cal, pool.label_name)}"
        finish(validated=False)
        print(text)
        return 0
    left_out = naive_note(pool, cal.bounds_)
    methods = tuple(m for m in METHODS if m != "naive" or not left_out)
    compared, groups, skipped = None, None, ""
    try:
        kw = anytime or {}
        groups = (
            [cal.estimate_groups(args.alpha, not args.pointwise, m, **kw) for m in methods]
            if group
            else None
        )
        n_groups = 0 if pool.groups is None else unique_codes(pool.groups)[0].size
        # against a baseline only its m - 1 comparisons: made past MAX_COMPARED too
        too_many = None if args.baseline else uncompared(n_groups, group or "group")
        if too_many:  # the means printed, the pairs past what one covariance holds
            skipped = f"\n{too_many}"
        elif n_groups > 1:
            better = better_from_args(args)
            compared = comparisons(
                cal, args.alpha, group, anytime=anytime, simultaneous=not args.pointwise,
                better=better, baseline=args.baseline,
            )  # fmt: skip
            hint = better_rerun(compared.direction_note, args)  # the command to run
            compared = dataclasses.replace(compared, direction_note=hint)
            if not compared.best_clear and compared.ranks_skipped is None:  # as printed
                # the fitted calibrator's residuals (either engine) are the plan's pilot,
                # so the lead quoted is the table's just printed (tester A finding 1)
                mine = cal if saved is None else None
                note = budget_spent(anytime, pool.n_labeled) or (
                    round_plan_note(group, round_plan_command(args, pool))
                    if saved is not None
                    else resolution_note(
                        pool, args.alpha, group_column=group, calibrator=mine,
                        plan_command=plan_command(args, pool, cal.engine_),
                        pooling=args.pooling,
                        anytime=plan_note_anytime(args, anytime, cal.engine_),
                        better=better or "higher",
                        max_labels=plan_budget(args, anytime),
                    )
                )  # fmt: skip
                compared = dataclasses.replace(compared, plan_note=note)
    except ValidationError as exc:  # e.g. --pooling shrink with under 3 groups labeled
        if pool.groups is None:
            raise
        skipped = f"\nper-{group or 'group'} estimates and comparisons skipped: {exc}"
        group = compared = groups = None
    if args.json:
        out = cal.summary(args.alpha, tuple(args.quantile))  # naive_left_out said there
        target, note = target_description(cal)
        out["target"] = {"target": target, "note": note}
        out["n_prompts"] = None if pool.prompts is None else int(np.unique(pool.prompts).size)
        # as the text prints them (unfit judges, unscored rows, comparisons skipped, and
        # the notes under the tables: the classical column, the range, the early look)
        out["notes"] = pool_notes(cal) + ([skipped.strip()] if skipped else [])
        json_means = [cal.estimate_mean(args.alpha, m, **(anytime or {})) for m in methods]
        closing = closing_notes(cal, args, json_means, groups, anytime, compared)
        out["notes"] += [n for n in closing.values() if n]
        out |= {k: v for k, v in header_notes(cal, saved).items() if v}
        if compared is not None:
            out["comparisons"] = compared.to_dict()
        if groups is not None:  # the tables printed: anytime, --pointwise
            out["groups"] = {t.method: t.to_dict() for t in groups}
        if anytime is not None:  # the estimates' intervals: of the sequence at this wave
            out["mean"] = {e.method: e.to_dict() for e in json_means}
            out["interval_kind"] = out["mean"]["aee"]["details"]["interval_kind"]
        if saved is not None:
            out["round"] = round_json(cal, args)
        if items is not None:
            out["items_out"] = str(args.items_out)
        text = json_text(out)
        finish()
        print(text)
        return 0
    means = [cal.estimate_mean(args.alpha, m, **(anytime or {})) for m in methods]
    quants = {q: [cal.estimate_quantile(q, args.alpha, m) for m in methods] for q in args.quantile}
    prompts = "" if pool.prompts is None else f", {np.unique(pool.prompts).size} prompts"
    split = " split by prompt" if pool.prompts is not None else ""
    fitted = (
        f"model {cal.model_name_} ({cal.engine_}), {cal.folds}-fold cross-fitting{split}, "
        f"seed {cal.seed_}"
        if saved is None
        else f"model {cal.model_name_} ({cal.engine_}) of {round_header(cal, args)}"
    )
    said = header_notes(cal, saved)  # the same words as --json's
    if said["means_from"]:  # visible: which surrogates the AEE means use
        fitted += f"; AEE means from {said['means_from']}"
    if saved is not None:
        fitted += new_groups_text(cal, args.group or "group")
    why = said["engine_reason"]  # which engine auto took, and why
    engine = f"engine: {cal.engine_} ({why})\n" if why else ""
    header = (
        f"{pool.n_items} items{prompts}, {pool.n_labeled} labeled, {len(pool.judges)} judges; "
        f"{fitted}\n{engine}{target_line(cal)}"
    )
    closing = closing_notes(cal, args, means, groups, anytime, compared)
    text = (
        estimate_output(  # the missing scores said in pool_notes, as each engine treats them
            header, pool_notes(cal), {}, pool.label_name, args.alpha, means, quants, groups,
            group,
        )
        + ("" if compared is None else "\n" + compared.to_text(args.pairs))
        + skipped
        + (f"\nnote: {closing['range']}" if closing["range"] else "")
        + (f"\nnaive (raw judge avg) left out: {left_out}" if left_out else "")
        + (f"\nnote: {closing['early_look']}" if closing["early_look"] else "")
    )  # fmt: skip
    if saved is not None:
        text += "\n" + transport_text(cal, args) + refit_text(cal, args, saved)
    finish()
    print(text)
    return 0


def header_notes(cal: Any, saved: Any) -> dict[str, str]:
    """What the settings line says besides the model, in the words the text and ``--json``
    share: ``means_from``, the surrogates the AEE means use (where extra ones are
    combined; with the small-budget rule's reason, or the round's), and
    ``engine_reason``, which engine ``auto`` took and why ("" where none)."""
    from bacon_bayes.model_choice import engine_words
    from bacon_bayes.surrogates import ALONE_BELOW, JUDGE_RIDGE, SMALL_BUDGET, in_means

    means_from = ""
    if cal.extras_:
        used = in_means(cal.surrogate_names_, cal.extras_)
        means_from = " + ".join(used)
        by_rule = cal.surrogates is None or SMALL_BUDGET in cal.surrogates
        if saved is not None:
            means_from += round_surrogates_note(cal)
        elif used == [JUDGE_RIDGE] and by_rule:
            means_from += (
                f" (the judges' leave-one-out ridge: fewer than {ALONE_BELOW:g} labels per "
                "model coefficient; --surrogates none for the model's)"
            )
    why = engine_words(cal) if saved is None else ""  # status's words, one function
    return {"means_from": means_from, "engine_reason": why}


def closing_notes(
    cal: Any,
    args: argparse.Namespace,
    means: list,
    groups: list | None,
    anytime: dict | None,
    compared: Any,
) -> dict[str, str]:
    """The notes under the estimates, in the words the text and ``--json`` share (the
    JSON's ``notes`` lost them: a user piping ``--json`` read less than the text):
    ``classical``, what the group table's classical column is where the AEE is shrunk
    (the text prints it under the table); ``range``, intervals reaching past the labels'
    range without a scale; ``early_look``, why an early alpha-spending look is wide
    (:func:`~bacon_bayes.report.text.early_look_note`, with the differences' widening
    where the groups were compared). "" where a note does not apply."""
    from bacon_bayes.report.text import classical_note, early_look_note, scale_note

    tables = list(groups or [])
    if compared is not None and anytime is not None and anytime.get("max_labels"):
        tables.append(
            cal.compare_groups(args.alpha, not args.pointwise, baseline=args.baseline, **anytime)
        )
    return {
        "classical": (classical_note(groups) if groups else None) or "",
        "range": scale_rerun(scale_note(cal, means, groups), args).strip().removeprefix("note: "),
        "early_look": early_look_note(means[0], tables) or "",
    }
