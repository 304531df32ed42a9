"""Reading a pool and a calibrator from the command line: the options that describe a
table (or study folder) and a Calibrator, shared by ``estimate``, ``report``, ``plan``,
``simulate`` and the pairwise commands, and what builds them from those options."""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bacon_bayes.cli.judge_args import OneLabel, add_judge_argument, judge_columns
from bacon_bayes.cli.rounds import add_round_arguments, apply_saved, load_saved
from bacon_bayes.errors import (
    ConvergenceWarning,
    PoolWarning,
    RepeatedIdError,
    ValidationError,
)

if TYPE_CHECKING:  # the parser is built without the library (a quick --help)
    import numpy as np
    import pandas as pd

    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.pool import EvalPool

#: The label types, as ``bacon_bayes.pool.KINDS`` (tests/test_cli_startup.py checks).
KINDS = ("continuous", "ordinal", "nonnegative", "categorical")


def add_anytime_arguments(p: argparse.ArgumentParser) -> None:
    """``--anytime``, ``--fixed``, ``--wave`` and ``--max-labels``."""
    p.add_argument(
        "--anytime",
        action="store_true",
        help="intervals valid at every labelling wave whatever the stopping rule (the "
        "default on a study folder): alpha-spending with --max-labels, else a confidence "
        "sequence; the label's waves come from --wave or the study",
    )
    p.add_argument(
        "--fixed",
        action="store_true",
        help="one look's fixed intervals (a study folder, or a table with --wave)",
    )
    p.add_argument(
        "--wave",
        help="column of the wave each label came in (tables; numbers or ISO dates): gives "
        "the --anytime intervals (--fixed: one look's)",
    )
    p.add_argument(
        "--max-labels",
        type=int,
        metavar="N",
        help="the labelling budget fixed from the start: --anytime intervals by "
        "alpha-spending (O'Brien-Fleming type) up to N labels: narrower than a confidence "
        "sequence near N (about 1.1 times the fixed width at the last wave), wider at the "
        "first looks (about 3 times the fixed width at an eighth of N, more for a "
        "calibrated mean resting on few labels); a study folder's default: the one "
        "`bacon sample --max-labels` recorded, and no other",
    )


def anytime_from_args(args: argparse.Namespace) -> dict[str, Any] | None:
    """``anytime=True`` and ``max_labels`` for the estimates (None: fixed intervals):
    ``--anytime``, ``--max-labels`` or a table's ``--wave``, or a study folder without
    ``--fixed``."""
    from bacon_bayes.study.folder import CONFIG_FILE

    study = (Path(args.file) / CONFIG_FILE).is_file()
    wanted = getattr(args, "anytime", False) or getattr(args, "max_labels", None) is not None
    if getattr(args, "fixed", False):
        if wanted:
            raise ValidationError("--fixed gives one look's intervals; drop --anytime/--max-labels")
        return None
    wanted = wanted or bool(getattr(args, "wave", None))  # a table's waves: read at each
    if not (wanted or study):
        return None
    if not study and not getattr(args, "wave", None):
        raise ValidationError(
            "--anytime needs the wave each label came in: pass --wave COLUMN (or estimate "
            "from a study folder, which records its waves)"
        )
    max_labels = args.max_labels
    if study:  # the budget the study recorded (bacon sample --max-labels), and no other
        from bacon_bayes.study.folder import recorded_max_labels

        max_labels = recorded_max_labels(Path(args.file), max_labels)
    return {"anytime": True, "max_labels": max_labels}


def budget_spent(anytime: dict[str, Any] | None, n_labeled: int) -> str | None:
    """The line that replaces the plan's where the labelling budget of alpha-spending
    intervals is spent: no wave may follow (tester T3, finding 7: "400 more labels would
    narrow the intervals" on a study whose budget was spent)."""
    most = (anytime or {}).get("max_labels")
    if most is None or n_labeled < most:
        return None
    return (
        f"the labelling budget (max_labels = {most}) is spent: these alpha-spending "
        "intervals are the study's last; labels past it get one look's intervals only "
        "(bacon estimate --fixed)"
    )


def plan_budget(args: argparse.Namespace, anytime: dict[str, Any] | None) -> int | None:
    """``resolution_note``'s ``max_labels``: the anytime intervals' budget, or under
    ``--fixed`` the one a study folder records (``bacon sample`` refuses a wave past it
    either way); None without one."""
    from bacon_bayes.study.folder import CONFIG_FILE, StudyConfig

    if anytime is not None:
        return anytime.get("max_labels")
    root = Path(args.file)
    return StudyConfig.read(root).max_labels if (root / CONFIG_FILE).is_file() else None


def plan_note_anytime(
    args: argparse.Namespace, anytime: dict[str, Any] | None, engine: str = "freq"
) -> str | None:
    """``resolution_note``'s ``anytime``: None for fixed intervals, else the command that
    projects the anytime intervals' labels (``bacon status STUDY`` with the settings of
    this command's fit, :func:`~bacon_bayes.cli.printed.status_command`; empty on a
    table). ``engine``: the one that fitted the intervals."""
    from bacon_bayes.cli.printed import status_command
    from bacon_bayes.study.folder import CONFIG_FILE

    if anytime is None:
        return None
    study = (Path(args.file) / CONFIG_FILE).is_file()
    return status_command(args, engine, study_pool_words(args)) if study else ""


SURROGATES_HELP = (
    "extra surrogates combined with the model's in the AEE means, comma-separated: freq, "
    "ridge, hurdle, ordinal, multinomial, judge_mean, judge_pc1, judge_ridge (the judges' "
    "leave-one-out ridge), no_model (leave the model's out), small-budget (frequentist: "
    "judge_ridge,no_model below 20 labels per model coefficient), or none (the model "
    "alone; default: judge_mean with the Bayesian engine, small-budget with the "
    "frequentist one); "
    "e.g. ridge beside the hurdle model"
)


def parse_surrogates(text: str | None) -> list[str] | None:
    """``--surrogates a,b``: the names; ``none``: the model alone; not given: None (the
    calibrator's default)."""
    if text is None:
        return None
    names = [v.strip() for v in text.split(",") if v.strip()]
    return [] if names == ["none"] else names


def add_calibrator_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of the Calibrator and the confidence level (shared by commands)."""
    p.add_argument("--model", help="outcome family: ridge, gaussian, hurdle, ordinal, multinomial")
    p.add_argument(
        "--engine",
        default="auto",
        choices=("auto", "bayes", "freq"),
        help="auto (default: the Bayesian judge model when the family has one), bayes, or freq "
        "(the fast frequentist model). Either gives valid intervals; the Bayesian one "
        "narrows the pool mean's a little with few labels (0.93-0.96x on SummEval), not "
        "the group means' (1.00-1.07x as wide as freq's; README)",
    )
    p.add_argument("--surrogates", help=SURROGATES_HELP)
    p.add_argument(
        "--preset",
        help="Bayesian model preset: a shipped name (e.g. ordinal, multinomial) or a .toml "
        "path; sets the model family, engine bayes, priors and sampler settings",
    )
    add_fit_arguments(p)
    p.add_argument(
        "--target",
        choices=("pool", "population"),
        default="pool",
        help="what the intervals are for: pool (the finite pool of these items, "
        "design-based; default) or population (the prompts, or items, are a sample of a "
        "larger population; with --prompt the variance is clustered by prompt)",
    )
    add_pooling_argument(p)
    add_better_argument(p)
    p.add_argument(
        "--group-effects",
        choices=("auto", "on", "off"),
        default="auto",
        help="Bayesian engine: the judge model's group level (a random intercept per group "
        "on the label link; auto: with 3 or more groups). It improves the surrogate (less "
        "between-group residual spread), not the group means: their intervals moved a few "
        "percent either way with it on (coherence 2-4%% wider, relevance 0-12%% narrower; "
        "README)",
    )
    add_round_arguments(p)


def add_pooling_argument(p: argparse._ActionsContainer) -> None:
    """``--pooling auto|shrink|separate``: the group means' pooling (estimate, report,
    plan, status)."""
    p.add_argument(
        "--pooling",
        choices=("auto", "shrink", "separate"),
        default="auto",
        help="group means: shrink (each group's correction shrunk toward the pool's; "
        "robust empirical-Bayes intervals valid on average over the groups; every group "
        "with a label gets one), separate (each group's own AEE, valid per group; none "
        "under 5 labels) or auto (default: shrink when a group with labels has fewer than "
        "10, unless the intervals are clustered by prompt)",
    )


def add_better_argument(p: argparse.ArgumentParser, study: bool = True) -> None:
    """``--better higher|lower``: which way a group mean is better, read by every "best",
    "top" and "leads" (estimate, report, plan, status, sample; ``study``: the command
    reads study folders, whose recorded direction is the default)."""
    p.add_argument(
        "--better",
        choices=("higher", "lower"),
        help="which way a group's mean is better: higher (the default) or lower (an error "
        "score such as MQM: the best group is the lowest mean); the best group, plan "
        "--top and --until best follow it"
        + (" (a study's own, recorded by bacon sample, is used when not given)" if study else ""),
    )


def better_from_args(args: argparse.Namespace) -> str | None:
    """``--better``, else the direction a study folder records when it is ``lower``;
    None when neither says (higher, with the hint where the label looks like an error
    score)."""
    from bacon_bayes.study.folder import CONFIG_FILE, StudyConfig

    given = getattr(args, "better", None)
    if given is None and (Path(args.file) / CONFIG_FILE).is_file():
        recorded = StudyConfig.read(Path(args.file)).better
        given = recorded if recorded == "lower" else None
    return given


def add_scale_argument(p: argparse.ArgumentParser, study: bool = True) -> None:
    """``--scale LOW:HIGH``, the label's allowed range (estimate, report, plan, simulate;
    ``study``: the command reads study folders, whose own scale is the default)."""
    p.add_argument(
        "--scale",
        help="allowed label range LOW:HIGH (e.g. 1:5; -inf:0 as --scale=-inf:0); intervals "
        "never extend past it" + (" (a study's own scale is used when not given)" if study else ""),
    )


def add_fit_arguments(p: argparse.ArgumentParser) -> None:
    """``--alpha``, ``--folds`` and ``--seed`` of a calibrator's fit (estimate, report,
    plan)."""
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level (0.05)")
    p.add_argument("--folds", type=int, default=5, help="cross-fitting folds (5)")
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the fold split (0); the split follows "
        "the rows' order too, so a reordered table (sorted, another tool's Parquet) acts "
        "like another seed",
    )


def add_pool_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments that describe how to read a table into an EvalPool (shared by commands)."""
    p.add_argument(
        "file",
        help="table of judge scores: CSV, Parquet, an Inspect AI log (.eval/.json), an "
        "lm-eval-harness sample log (samples_*.jsonl), promptfoo results (.json), an OpenAI "
        "evals log (.jsonl), a W&B or pandas JSON table or JSON Lines; or a study folder "
        "(bacon sample)",
    )
    p.add_argument(
        "--label",
        action=OneLabel,
        help="column of human labels (empty = unlabeled); tables only (with --labels, "
        "default: the labels file's one column besides the id)",
    )
    p.add_argument(
        "--labels",
        metavar="FILE",
        help="CSV or Parquet file of human labels (an id column and the label column), "
        "joined onto FILE by id (--item, or the id the format has, e.g. an Inspect sample id)",
    )
    add_judge_argument(p)
    p.add_argument(
        "--scores",
        help="long judge table (item, judge, run, score...) instead; its id column is 'item' "
        "or the --item column's name",
    )
    p.add_argument(
        "--outcome",
        choices=KINDS,
        help="type of the label (default: continuous, or categorical for a label of 0 and 1 "
        "only; with --calibrator, the saved calibrator's)",
    )
    p.add_argument("--levels", help="comma-separated levels of an ordinal/categorical label")
    p.add_argument(
        "--group", help="group column (e.g. system; default: a promptfoo file's provider)"
    )
    p.add_argument(
        "--item",
        "--id",
        help="item id column (default: the format's id, e.g. an Inspect sample id; else a "
        "column named id, item or item_id whose values are unique; else the row number; "
        "--id is the same option)",
    )
    p.add_argument("--propensity", help="inclusion-probability column of the label sample")
    p.add_argument(
        "--prompt",
        help="prompt column (question, source segment, document) the groups answer in "
        "common: folds split by prompt, and intervals of designs that drew prompts (or of "
        "--target population) are clustered by prompt",
    )
    p.add_argument(
        "--prompt-propensity",
        help="with --propensity and --prompt: column of the probability that the label "
        "sample drew the item's prompt (labels drawn by prompt outside `bacon sample`)",
    )
    p.add_argument("--embedding", help="prefix of embedding columns")
    p.add_argument(
        "--text",
        help="item text column (bacon report: the data check measures response length from "
        "it, and finds one itself when not given)",
    )
    add_scale_argument(p)
    p.add_argument(
        "--allow-pending",
        action="store_true",
        help="study: treat items sent out but not yet labeled as missing at random",
    )
    p.add_argument(
        "--drop-unscored",
        action="store_true",
        help="leave out the rows no judge scored (e.g. items no judge was run on, a "
        "reference system reference-based metrics cannot score), their labels too; the "
        "estimates are then over the other rows, and the counts are printed",
    )


def parse_levels(text: str | None) -> list[float] | None:
    """``--levels 1,2,3`` as numbers (None when not given)."""
    if not text:
        return None
    try:
        return [float(v) for v in text.split(",")]
    except ValueError as exc:
        raise ValidationError(f"--levels {text!r} must be numbers like 1,2,3") from exc


def parse_scale(text: str | None) -> tuple[float, float] | None:
    """``--scale 1:5`` as ``(1.0, 5.0)`` (None when not given)."""
    if not text:
        return None
    parts = text.replace(",", ":").split(":")
    try:
        lo, hi = (float(v) for v in parts)
    except ValueError as exc:
        raise ValidationError(f"--scale {text!r} must be LOW:HIGH, e.g. 1:5") from exc
    if not lo < hi:
        raise ValidationError(f"--scale {text!r}: LOW must be smaller than HIGH")
    return lo, hi


def scale_from_args(args: argparse.Namespace) -> tuple[float, float] | None:
    """``--scale``, else the scale recorded in a study folder's settings."""
    from bacon_bayes.study.folder import CONFIG_FILE, StudyConfig

    scale = parse_scale(getattr(args, "scale", None))
    if scale is None and (Path(args.file) / CONFIG_FILE).is_file():
        scale = StudyConfig.read(Path(args.file)).label_range
    return scale


def pool_from_args(args: argparse.Namespace) -> EvalPool:
    """Read the table (or study folder) named on the command line into a validated pool.

    A study folder brings its own labels and the inclusion probabilities its
    waves recorded; those are always used.
    """
    from bacon_bayes.readers.mturk import raters_hint
    from bacon_bayes.readers.pair_table import pairwise_hint
    from bacon_bayes.study import load_study
    from bacon_bayes.study.folder import CONFIG_FILE, refuse_missing

    refuse_missing(args.file)  # a typo: said, not answered with a table's options
    if (Path(args.file) / CONFIG_FILE).is_file():
        for flag in ("propensity", "prompt_propensity", "wave"):
            if getattr(args, flag, None):
                name = "--" + flag.replace("_", "-")
                raise ValidationError(
                    f"{name} cannot be given for a study: the inclusion probabilities "
                    f"and waves recorded by its sampling are used. Drop {name}."
                )
        if getattr(args, "drop_unscored", False):
            raise ValidationError(
                "--drop-unscored is for a table: a study's items are the ones its sampling "
                "drew from. Drop --drop-unscored, or score the study's unscored items."
            )
        wave, look = None, ""  # estimate, report: the last complete look, as status reads
        if not args.allow_pending and getattr(args, "command", None) in ("estimate", "report"):
            from bacon_bayes.study.looks import complete_look

            wave, look = complete_look(args.file)
        data = load_study(args.file, allow_pending=args.allow_pending, up_to_wave=wave)
        if look:  # the printed plan reads the pending items as plan takes them
            data, args.pending_look = dataclasses.replace(data, pending_note=look), wave
        if (
            data.n_pending
            and data.frame[data.label].isna().all()
            and getattr(args, "command", None) != "plan"
        ):
            from bacon_bayes.study.folder import no_label_back

            waves = f"0 of {data.n_pending}"  # estimate, report: no pilot is no estimate
            raise ValidationError(no_label_back(args.file, waves))
        judges = judge_columns(args.judge or [], list(data.frame.columns), required=False) or None
        # the study's judges, refused with the fix when one left the pool file
        known = {"judges": data.panel(judges)[0], "group": args.group or data.group}
        find_response(args, data.frame, None, label=data.label, item=data.item, **known)
        return data.to_pool(judges=judges, **study_pool_options(args))
    if not args.label and not getattr(args, "labels", None):  # --labels: its one column
        hint = pairwise_hint(args.file) or raters_hint(args.file)  # MTurk's, a survey's
        raise ValidationError(f"--label is required for a table; name the column of labels.{hint}")
    try:
        return _table_pool(args)
    except ValidationError as exc:  # a table of comparisons read without --pairwise
        hint = "" if "--pairwise" in str(exc) else pairwise_hint(args.file)
        if not hint:
            raise
        text = str(exc).rstrip()
        raise ValidationError(f"{text}{'' if text.endswith('.') else '.'}{hint}") from exc


#: the options that read a study folder into a pool besides its judges, as
#: ``StudyData.to_pool`` names them (estimate, report, plan, status, sample --until)
STUDY_POOL_OPTIONS = ("group", "embedding", "text", "prompt", "outcome", "levels")


def study_pool_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options that read a study folder into a pool besides its judges
    (:data:`STUDY_POOL_OPTIONS`; None: the study's own), as ``StudyData.to_pool`` takes
    them: the one place a command's options become the study's pool, for the command's
    fit, for every look of it the report refits
    (:func:`bacon_bayes.study.looks.look_estimates`), so its latest look is the command's
    own (the report's looks were fitted without ``--embedding``), and for the fit of
    ``bacon status`` and ``bacon sample --until`` (:func:`bacon_bayes.study.looks.fit_study`),
    which answered from another fit than ``bacon estimate --embedding``'s."""
    options = {name: getattr(args, name, None) for name in STUDY_POOL_OPTIONS}
    return options | {"levels": parse_levels(options["levels"])}


def study_pool_words(args: argparse.Namespace) -> list[tuple[str, str]]:
    """:func:`study_pool_options` as the command took them (``--levels 1,2,3`` as
    written), for the ``bacon status`` it prints (:func:`~.printed.status_command`)."""
    given = ((name, getattr(args, name, None)) for name in STUDY_POOL_OPTIONS)
    return [(f"--{name}", str(value)) for name, value in given if value]


#: what the item column of a table without ids holds, said where items are listed (the
#: report's item table, estimate's --items-out)
ROW_ITEMS = (
    "item: the table's row, counted from 0 as bacon estimate counts rows (the table has no "
    "id column; --item COL names one)"
)


def _table_pool(args: argparse.Namespace) -> EvalPool:
    """:func:`pool_from_args` on a table."""
    from bacon_bayes.doctor.rows import copied_rows, rater_rows, repeated_item_note
    from bacon_bayes.io import item_column, without_unscored
    from bacon_bayes.pool import EvalPool
    from bacon_bayes.pool_checks import long_item_column

    df, judges = table_from_args(args)
    blank = str(df.attrs.get("blank rows", ""))  # rows of empty cells, which are no items
    idle = str(df.attrs.get("labels note", ""))  # --labels rows of other ids, no label
    dropped = ""
    if getattr(args, "drop_unscored", False):
        df, judges, dropped = without_unscored(df, judges, args.label, args.item, args.group)
    from bacon_bayes.scale import guess_outcome, with_binary_note

    repeated = not (args.item or args.scores)
    if repeated and (raters := rater_rows(df, args.label, judges, args.group)):
        raise ValidationError(raters)  # a mean over ratings, not items
    levels = parse_levels(args.levels)
    outcome = args.outcome or guess_outcome(df, args.label)
    item = args.item or (long_item_column(df, judges) if args.scores else item_column(df, judges))
    args.row_items = item is None  # the items' ids are their rows: said where listed
    try:
        pool = EvalPool.from_frame(
            df,
            label=args.label,
            judges=judges,
            outcome=outcome,
            levels=levels,
            group=args.group,
            item=item,
            propensity=args.propensity,
            embedding=args.embedding,
            text=args.text,
            prompt=args.prompt,
            prompt_propensity=args.prompt_propensity,
            wave=getattr(args, "wave", None),
        )
    except RepeatedIdError as exc:  # doctor prints the line that writes it without them
        raise exc.doctor_fixes(args.file) from None
    notes = []
    if outcome != (args.outcome or "continuous"):  # one note with the levels' (0,1)
        pool = dataclasses.replace(pool, notes=with_binary_note(pool.notes, args.label))
    repeats = repeated_item_note(df, args.label, judges, args.group) if repeated else ""
    copied = copied_rows(df, args.label, args.file) if item is None and not args.scores else ""
    notes += [note for note in (repeats, copied, blank, idle, dropped) if note]
    said = df.attrs.get("verdicts", {})  # words read as numbers: words.bools_as_floats
    notes += [f"column {c!r}: {said[c]}" for c in (args.label, *judges) if c in said]
    kept = df.attrs.get("kept words", {})  # NA, None, null in a text column: io.read_table
    used = dict.fromkeys((item, args.group, args.prompt))
    notes += [f"column {c!r}: {kept[c]}" for c in used if c in kept]
    return dataclasses.replace(pool, notes=(*pool.notes, *notes)) if notes else pool


def table_from_args(args: argparse.Namespace) -> tuple[pd.DataFrame, list[str] | pd.DataFrame]:
    """Read FILE in any format the readers take, join ``--labels``, and pick the judges:
    ``--scores``, else ``--judge``, else the ones the file's format names (Inspect AI's
    model-graded scorers, with its epochs as runs; lm-eval's metrics; promptfoo's
    assertions). The item, group and prompt columns the format names fill ``--item``,
    ``--group`` and ``--prompt`` when not given (``args`` is updated); with
    ``args.find_text`` (the report's data check), the response column ``bacon doctor``
    finds fills ``--text``."""
    from bacon_bayes.arguments import need_column
    from bacon_bayes.io import read_table
    from bacon_bayes.readers import TABLES, join_labels, read_any
    from bacon_bayes.readers.labels import label_column
    from bacon_bayes.readers.pair_table import pairwise_hint

    named = (args.item, getattr(args, "group", None), getattr(args, "prompt", None))
    df, meta = read_any(args.file, names=[c for c in named if isinstance(c, str)])
    if meta.format in TABLES:  # a spreadsheet's 'Total' rows: no items
        from bacon_bayes.doctor.rows import summary_rows

        footer = summary_rows(df, meta.format, command=True, path=str(args.file))[1]
        if footer:
            raise ValidationError(footer)
    args.item = args.item or meta.item
    if meta.format not in ("csv", "parquet", "xlsx"):
        args.group = args.group or meta.group
        args.prompt = args.prompt or meta.prompt
    if getattr(args, "labels", None):
        args.label = args.label or label_column(df, args.labels, args.item, table=args.file)
        try:
            df, args.item = join_labels(df, args.labels, args.label, args.item, table=args.file)
        except RepeatedIdError as exc:  # rows pasted twice, a long table: doctor's line
            raise exc.doctor_fixes(args.file) from None
    label = args.label if args.label in df.columns else None
    find_response(args, df, meta, label=label, item=args.item if args.item in df else None)
    if args.scores:
        if args.judge:
            raise ValidationError("pass either --judge columns or --scores, not both.")
        scores = read_table(args.scores)
        if "item" not in scores.columns and args.item in scores.columns:  # named as --item
            scores = scores.rename(columns={args.item: "item"})
        return df, scores
    if args.judge:
        if calibrator := getattr(args, "judges_of", None):  # the saved calibrator's judges
            from bacon_bayes.features import absent_judges_text

            if absent := [j for j in args.judge if j not in df.columns]:
                where = f"the table {args.file!r}"
                text = absent_judges_text(absent, df.columns, where)
                mine = f"the calibrator {calibrator!r}"
                raise ValidationError(text.replace("the calibrator", mine, 1))
        judges = judge_columns(args.judge, list(df.columns), required=False)
        for judge in judges:  # before the checks below read them
            need_column(df, judge, "judge")
        if not args.item and label and meta.format in TABLES:
            from bacon_bayes.doctor.long import long_table, read_call  # rows that are no items

            read = read_call(args.file, meta.format)
            if long := long_table(df, label, judges, meta.format, read):
                raise ValidationError(long)
        return df, judges
    if meta.judges:
        return df, meta.scores if meta.scores is not None else list(meta.judges)
    found = f" ({'; '.join(meta.notes)})" if meta.notes else ""
    found += pairwise_hint(args.file, [str(c) for c in df.columns])
    joined = ["--labels", str(args.labels)] if getattr(args, "labels", None) else []
    doctor = shlex.join(["bacon", "doctor", str(args.file), *joined])
    found = found or f" {doctor} finds the judge columns and prints the command with them."
    raise ValidationError(f"no judges given; pass --judge COL (repeatable) or --scores.{found}")


def find_response(args: argparse.Namespace, df: pd.DataFrame, meta: Any, **known: Any) -> None:
    """With ``args.find_text`` (the report's data check) and no ``--text``, fill ``--text``
    with the response column ``bacon doctor`` finds in ``df`` (a table's or a study's pool;
    ``known``: the roles already known, as ``find_roles`` takes them)."""
    if getattr(args, "find_text", False) and not args.text:
        from bacon_bayes.doctor.roles import response_column

        args.text = response_column(df, meta, **known)


def group_name(args: argparse.Namespace) -> str | None:
    """``--group``, else the group column recorded in a study folder's settings."""
    from bacon_bayes.study.folder import CONFIG_FILE, StudyConfig

    if args.group or not (Path(args.file) / CONFIG_FILE).is_file():
        return args.group
    return StudyConfig.read(Path(args.file)).group


def calibrator_from_args(args: argparse.Namespace) -> Calibrator:
    """The unfitted Calibrator the command-line options describe."""
    from bacon_bayes.calibrator import Calibrator

    preset = getattr(args, "preset", None)
    if preset is not None:
        from bacon_bayes.presets import load_preset

        load_preset(preset)  # an unknown name fails before the table is read
    return Calibrator(
        args.model,
        engine=args.engine,
        folds=args.folds,
        seed=args.seed,
        preset=preset,
        scale=scale_from_args(args),
        surrogates=parse_surrogates(args.surrogates),
        target=getattr(args, "target", "pool"),
        pooling=getattr(args, "pooling", "auto"),
        group_effects={"on": True, "off": False}.get(
            getattr(args, "group_effects", "auto"), "auto"
        ),
    )


def target_line(cal: Calibrator) -> str:
    """``target: pool (the N items of this pool)`` and the like."""
    from bacon_bayes.report.comparisons import target_description

    target, note = target_description(cal)
    return f"target: {target} ({note})"


def fit_from_args(args: argparse.Namespace) -> tuple[Calibrator, Calibrator | None]:
    """The calibrator the options describe, fitted on the pool they read, or the saved
    one of ``--calibrator`` applied to it; and the saved one (None without it)."""
    saved = load_saved(args, parse_scale(getattr(args, "scale", None)))
    fresh = calibrator_from_args(args) if saved is None else None  # a bad preset: first
    pool = pool_from_args(args)
    if fresh is not None:
        return fit_noted(fresh, pool), None
    assert saved is not None
    surrogates = parse_surrogates(getattr(args, "surrogates", None))
    return apply_saved(saved, pool, args, surrogates), saved


def fit_noted(cal: Calibrator, pool: EvalPool) -> Calibrator:
    """``cal.fit(pool)`` without its :class:`~bacon_bayes.errors.PoolWarning` and
    :class:`~bacon_bayes.errors.ConvergenceWarning`: the commands print those among their
    notes (:func:`bacon_bayes.report.text.pool_notes`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PoolWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        return cal.fit(pool)


def read_files(args: argparse.Namespace) -> list[str | None]:
    """The files ``estimate`` (and ``report``) read: no output may be one of them."""
    preset = getattr(args, "preset", None)
    preset = preset if preset and str(preset).endswith(".toml") else None
    return [args.file, args.scores, args.labels, args.calibrator, preset]


def check_baseline(args: argparse.Namespace, groups: np.ndarray | None, group: str | None) -> None:
    """Refuse ``--baseline`` without groups, or naming none of them (the groups and the
    nearest names said)."""
    if args.baseline is None:
        return
    if groups is None or group is None:
        raise ValidationError(
            "--baseline NAME compares every group against one; pass --group COLUMN too"
        )
    import difflib

    from bacon_bayes.arguments import suggest
    from bacon_bayes.order import natural_sorted, unique_codes

    names = natural_sorted(str(n) for n in unique_codes(groups)[0])  # as the tables order them
    if args.baseline not in names:  # the example: the nearest name (case aside), else the first
        near = [n for n in names if n.casefold() == args.baseline.casefold()]
        near += difflib.get_close_matches(args.baseline, names, n=1) + names
        shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        raise ValidationError(
            f"--baseline {args.baseline!r} is not a {group!r} of the table (its "
            f"{len(names)}: {shown}).{suggest(args.baseline, names)} Pass one of them as "
            "written there, e.g. --baseline " + shlex.quote(near[0])
        )
