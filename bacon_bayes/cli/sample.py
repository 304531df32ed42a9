"""``bacon sample``: draw a wave of items to label and record it in the study."""

from __future__ import annotations

import argparse
import shlex
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bacon_bayes.cli.judge_args import OneLabel, add_judge_argument
from bacon_bayes.cli.pairwise import add_model_columns
from bacon_bayes.cli.pool_args import add_pooling_argument, study_pool_options
from bacon_bayes.cli.study_args import (
    add_study_pool_arguments,
    labels_join_hint,
    names_option,
    numbers_option,
    refuse_unimported,
    remove_new_study,
    study_root,
)
from bacon_bayes.errors import BaconError, PoolWarning, ValidationError
from bacon_bayes.outputs import FORCE_HELP, claim

if TYPE_CHECKING:  # the parser is built without the library (a quick --help)
    from bacon_bayes.study import StudyConfig

#: As ``bacon_bayes.study.DESIGNS``, ``bacon_bayes.sampling.DEFAULT_UNIFORM_SHARE`` and
#: ``MIN_LABELS_PER_COEFFICIENT``, ``bacon_bayes.sampling.GROUP_UNIFORM_SHARE``,
#: ``bacon_bayes.study.prompts.DEFAULT_PER_PROMPT`` (the parser is built without the
#: library; tests/test_cli_startup.py checks).
DESIGNS = (
    "uniform",
    "bernoulli",
    "stratified",
    "poisson",
    "adaptive",
    "two-stage",
    "paired",
    "paired-subset",
    "paired-adaptive",
)
DEFAULT_UNIFORM_SHARE = 0.2
GROUP_UNIFORM_SHARE = 0.5
MIN_LABELS_PER_COEFFICIENT = 5.0
DEFAULT_PER_PROMPT = 2.0
#: As ``bacon_bayes.study.labels.PRIOR_DESIGNS``.
PRIOR_DESIGNS = "uniform (default), stratified:COLUMN, or a column of inclusion probabilities"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``bacon sample``."""
    p = subparsers.add_parser(
        "sample",
        help="choose items to label (a sampling wave) and record their probabilities",
        description="Draw the next sampling wave. POOL is a study folder, or a pool file "
        "(CSV/Parquet) from which a new study folder is created (--study).",
    )
    p.add_argument("pool", help="study folder, or pool file to start a study from")
    p.add_argument(
        "--budget",
        type=float,
        help="new items this wave: fraction of the pool if < 1, else a count. With "
        "--design adaptive, bernoulli or two-stage, a paired design or --pairwise it is the "
        "expected count: each item, prompt or comparison is drawn on its own, so the count "
        "drawn varies around it",
    )
    p.add_argument(
        "--design",
        choices=DESIGNS,
        default="uniform",
        help="how to draw the wave (default uniform); paired, paired-subset and "
        "paired-adaptive draw prompts (--prompt) and label their items together, so "
        "systems are compared on the same prompts",
    )
    p.add_argument(
        "--prompt",
        help="pool column of the prompt (question, source segment, document) each item "
        "answers; needed by the paired designs, recorded in the study",
    )
    p.add_argument(
        "--until",
        metavar="GOAL",
        help="size the wave for a goal (instead of --budget): half-width=H (the pool mean), "
        "sign=A,B (a pair of groups), or best; draws nothing when it is settled",
    )
    add_pooling_argument(p)  # --until's group means, as bacon estimate and status pool them
    add_study_pool_arguments(p, "embedding", "text")  # --until's fit, as estimate's
    p.add_argument(
        "--better",
        choices=("higher", "lower"),
        help="which way a group's mean is better, for --until best: higher or lower (an "
        "error score such as MQM); a new study records it (bacon status reads it), an "
        "existing one's is the default",
    )
    p.add_argument(
        "--max-labels",
        type=int,
        metavar="N",
        help="the labelling budget fixed from the start, recorded in the study with the "
        "wave drawn (refused once labels have come in): its anytime intervals are "
        "alpha-spending (narrower than a confidence sequence near N, wider at the first "
        "waves), and --until waves stop at it",
    )
    p.add_argument(
        "--allow-pending",
        action="store_true",
        help="a wave whose labels will never come does not block the study: --until "
        "decides after the latest wave, its items without a label missing at random (as "
        "bacon status --allow-pending answers), and a wave with no label back counts as not "
        "drawn, against --max-labels too (its items are not drawn again)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the draw (0)")
    p.add_argument(
        "--out",
        type=Path,
        help="file of the items to label, .csv or .parquet (default: todo-waveK.csv)",
    )
    p.add_argument("--study", type=Path, help="study folder to create (default: POOL.study)")
    p.add_argument(
        "--show",
        default="",
        help="pool columns to copy into the to-label file, comma-separated (remembered by "
        "the study for later waves)",
    )
    p.add_argument("--force", action="store_true", help="--out: " + FORCE_HELP)
    p.add_argument(
        "--change-judges",
        action="store_true",
        help="an existing study: record its judges from now on, the --judge columns given "
        "(a judge retired or added), else the recorded ones with their current scores (a "
        "judge rescored); every look, the earlier ones too, is then computed with them and "
        "every read says so. With --budget it then draws the wave",
    )
    new = p.add_argument_group("new study (only with a pool file)")
    new.add_argument(
        "--item",
        "--id",
        help="id column of the pool (default: a column named id, item or item_id with "
        "unique values, as bacon estimate finds it)",
    )
    new.add_argument("--label", default="label", action=OneLabel, help="name of the human label")
    new.add_argument(
        "--outcome",
        help="type of the label: continuous (default; categorical when the labels already "
        "in the pool are 0/1, as bacon estimate takes them), ordinal, nonnegative or "
        "categorical",
    )
    new.add_argument("--scale", help="allowed label range, e.g. 1:5")
    new.add_argument("--levels", help="allowed label values, e.g. 1,2,3,4,5")
    add_judge_argument(new, legacy="commas")
    new.add_argument("--features", default="", help="comma-separated feature columns")
    new.add_argument("--group", help="group column")
    new.add_argument(
        "--drop-unscored",
        action="store_true",
        help="leave out the pool's rows no judge scored, their labels too (as bacon "
        "estimate --drop-unscored does; the study records it and counts them)",
    )
    new.add_argument(
        "--existing-labels",
        choices=("wave", "error", "ignore"),
        default="wave",
        help="labels already in the pool's label column (a pilot): record them as the "
        "study's first wave (default; drawn as --prior-design says), refuse, or ignore them "
        "(they stay in the pool file, unused)",
    )
    new.add_argument(
        "--prior-design",
        default="uniform",
        help=f"how the labels already in the pool were drawn: {PRIOR_DESIGNS}",
    )
    opt = p.add_argument_group("design options")
    opt.add_argument(
        "--strata",
        help="stratified: group column or numeric column to bin (default: the study's group "
        "column)",
    )
    opt.add_argument("--bins", type=int, default=5, help="stratified: bins of a numeric column")
    opt.add_argument(
        "--allocation",
        choices=("proportional", "neyman"),
        default="proportional",
        help="stratified: labels per stratum in proportion to its size (default) or to "
        "size x sd (neyman)",
    )
    opt.add_argument("--pi-column", help="poisson: pool column with inclusion probabilities")
    opt.add_argument(
        "--uniform-share",
        type=float,
        default=None,
        help=f"adaptive: share of the probability spread uniformly ({DEFAULT_UNIFORM_SHARE:g}; "
        f"{GROUP_UNIFORM_SHARE:g} on a study with groups, whose means need bounded weights)",
    )
    opt.add_argument(
        "--per-prompt",
        type=float,
        default=DEFAULT_PER_PROMPT,
        help=f"paired-subset: items labeled per drawn prompt ({DEFAULT_PER_PROMPT:g})",
    )
    opt.add_argument(
        "--folds",
        type=int,
        default=5,
        help="adaptive: cross-fitting folds; paired: the labels must cover at least one "
        "prompt per fold",
    )
    opt.add_argument(
        "--sd-model",
        choices=("heteroskedastic", "calibrator"),
        default="heteroskedastic",
        help="adaptive: error sd from a ridge model of log squared residuals, or the "
        "predictive sd of the calibrator (--model, --engine)",
    )
    opt.add_argument(
        "--max-ratio",
        type=float,
        default=0.95,
        help="adaptive: follow the predicted sd only when the labels so far predict a "
        "variance ratio against uniform below this (else draw uniformly); inf: always, "
        f"given at least {MIN_LABELS_PER_COEFFICIENT:g} labels per model coefficient",
    )
    opt.add_argument(
        "--model", help="adaptive, paired-adaptive with --sd-model calibrator: outcome family"
    )
    opt.add_argument(
        "--engine",
        default="auto",
        choices=("auto", "bayes", "freq"),
        help="adaptive: engine of the outcome model that predicts the sd (auto)",
    )
    pw = p.add_argument_group("pairwise comparisons (--pairwise; no study folder)")
    pw.add_argument(
        "--pairwise",
        action="store_true",
        help="POOL holds comparisons (as bacon estimate --pairwise reads them): draw "
        "--budget of them by --design uniform, stratified (by model pair) or adaptive, and "
        "write the whole table with columns to_label and propensity to --out (default "
        "POOL-wave.csv), for bacon estimate --pairwise --propensity propensity",
    )
    add_model_columns(pw)
    pw.add_argument(
        "--labels",
        metavar="FILE",
        help="the human votes in another file, as bacon estimate --pairwise reads them (a "
        "CSV/Parquet joined by id, --label its column; MT-Bench: FastChat's human "
        "judgments); the table written holds them in its label column",
    )
    pw.add_argument(
        "--target",
        choices=("pool", "population"),
        default="pool",
        help="the estimate's target, as bacon estimate --target: the pilot that guides "
        "--design stratified and adaptive is fitted for it, and the printed bacon estimate "
        "command estimates it (population: clustered by prompt when prompts repeat)",
    )
    pw.add_argument(
        "--difference",
        nargs=2,
        metavar=("A", "B"),
        help="--design stratified or adaptive: aim the wave at the difference of models A "
        "and B (as bacon plan --pairwise --difference A B sized it), not the mean strength",
    )
    p.set_defaults(func=run)


def _default_strata(args: argparse.Namespace, root: Path, config: StudyConfig | None) -> str:
    """``--design stratified`` without ``--strata`` on a study with a group column: by the
    groups (``args.strata`` set), and the line saying so; else "" (a study without one
    is refused by the wave's checks, naming --strata)."""
    from bacon_bayes.study.folder import CONFIG_FILE, StudyConfig

    if args.design != "stratified" or args.strata:
        return ""
    if config is None and (root / CONFIG_FILE).is_file():
        config = StudyConfig.read(root)
    if config is None or not config.group:
        return ""
    args.strata = config.group
    return f"strata: the study's group column {config.group!r} (--strata COLUMN for another)"


def _wave_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "strata": args.strata,
        "bins": args.bins,
        "allocation": args.allocation,
        "pi_column": args.pi_column,
        "uniform_share": args.uniform_share,
        "folds": args.folds,
        "sd_model": args.sd_model,
        "max_ratio": args.max_ratio,
        "model": args.model,
        "engine": args.engine,
        "prompt": args.prompt,
        "per_prompt": args.per_prompt,
        "allow_pending": args.allow_pending,
    }


def _until(args: argparse.Namespace, root: Path, config: StudyConfig | None) -> StudyConfig | None:
    """Check ``--max-labels`` (recorded now only when no wave is drawn: a wave records it,
    and a refused one leaves none; refused once labels have come in) and size the wave for
    ``--until`` (``args.budget``; None when the goal is settled). Returns the settings of a
    study this run creates."""
    from dataclasses import replace

    from bacon_bayes.study.folder import check_max_labels, record_max_labels
    from bacon_bayes.study.settled import until_budget

    if args.until and args.budget is not None:
        first = (
            " (this study is new: draw its first wave with --budget, then size the next "
            "ones with --until)"
            if config is not None
            else ""
        )
        raise ValidationError(f"--until and --budget both size the wave: give one{first}")
    if args.until and config is not None:
        raise ValidationError(
            "--until sizes the next wave from the labels of the waves so far, and this study "
            "is new: draw its first wave with --budget N, then --until"
        )
    if args.max_labels is not None:
        if config is not None and config.existing_labels == "wave":
            raise ValidationError(
                f"the pool file {args.pool} holds labels already (recorded as wave 1): a "
                f"labelling budget recorded with them (--max-labels {args.max_labels}) "
                "could be chosen from their estimates, and would void the alpha-spending "
                "intervals it gives (95% at every wave). Drop --max-labels (the study's "
                "intervals are then the confidence sequence, which needs no budget), or "
                "start the study without the pool's labels (--existing-labels ignore)"
            )
        if config is not None:
            return replace(config, max_labels=args.max_labels)
        if check_max_labels(root, args.max_labels).max_labels is None:
            if not args.until and args.budget is None:
                record_max_labels(root, args.max_labels)
                print(f"study {root} records max_labels = {args.max_labels}; draw with --until")
    if args.until:
        fit = {"engine": args.engine, "model": args.model, "folds": args.folds}
        fit["pooling"] = args.pooling  # the pairs and best group as status answers them
        fit["pool_options"] = study_pool_options(args)  # the study read as estimate reads it
        with warnings.catch_warnings(record=True) as caught:  # printed as notes, as
            warnings.simplefilter("always", PoolWarning)  # bacon estimate prints them
            args.budget, line = until_budget(
                root, args.until, max_labels=args.max_labels, better=args.better,
                allow_pending=args.allow_pending, **fit,
            )  # fmt: skip
        for w in caught:
            if issubclass(w.category, PoolWarning):
                print(f"note: {w.message}")
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        print(line)
    return config


def run(args: argparse.Namespace) -> int:
    """Draw the wave, write the to-label file and print a summary.

    Every option is checked before the study folder is created or a wave is
    committed (:func:`~bacon_bayes.study.wave_options.validate_wave_options`), and the
    to-label file is claimed (:func:`bacon_bayes.outputs.claim`) before the wave is
    drawn, so a refused command leaves no study behind and an existing study unchanged.
    """
    from bacon_bayes.io import check_people_suffix, write_people_table
    from bacon_bayes.order import name_text
    from bacon_bayes.sampling import OPTIMISTIC_RATIO, SMALL_PILOT
    from bacon_bayes.study import Study, create_study, draw_wave, pending_items
    from bacon_bayes.study.core import record_scale
    from bacon_bayes.study.folder import (
        LOCK_FILE,
        read_waves,
        record_to_label_written,
        show_notes,
        study_inputs,
        unwritten_to_label,
    )
    from bacon_bayes.study.labels import pool_label_wave, record_pool_labels
    from bacon_bayes.study.wave_options import overrun_note, validate_wave_options

    if args.pairwise:
        from bacon_bayes.cli.pairwise_design import run_sample

        return run_sample(args)
    if args.labels:
        raise ValidationError(labels_join_hint(args))
    if (args.embedding or args.text) and not args.until:  # not recorded: said, not ignored
        flag = "--embedding" if args.embedding else "--text"
        raise ValidationError(
            f"{flag} reads the study for --until's fit (as bacon estimate {flag} reads it); "
            "a wave sized by --budget does not use it: drop it, or size the wave with --until"
        )
    if args.target != "pool" or args.difference:
        flag = "--target population" if args.target != "pool" else "--difference"
        raise ValidationError(f"{flag} applies to --pairwise samples; drop it.")
    root, config = study_root(args)
    if config is None and unwritten_to_label(read_waves(root)):  # before any draw
        if lost := Study.open(root).unwritten_note():
            raise ValidationError(
                f"study {root}: {lost}; then run this again for the next wave (it is "
                "refused until then: a new wave would leave those items in no file)"
            )
    if config is None and args.scale:  # the study's recorded scale (or the same again)
        print(record_scale(root, numbers_option(args.scale, "scale") or []))
        if args.budget is None and not args.until and args.max_labels is None:
            return 0
    if args.change_judges:
        if _change_judges(args, root, config):
            return 0
    if config is None and args.show and args.budget is None and not args.until:
        _refuse_show_alone(root, args.show)
    if args.until or args.max_labels is not None:
        config = _until(args, root, config)
        if args.budget is None and config is None:  # settled, or only the budget recorded
            return 0
    show = names_option(args.show)
    strata_note = _default_strata(args, root, config)
    options = _wave_options(args)
    recorded = 0  # labels of the pool recorded as wave 1
    if config is not None:
        new = Study.new(root, config)
        if config.existing_labels == "wave":  # refused before anything is written; the
            # wave is checked by draw_wave once they are recorded (a refusal removes them)
            pool_label_wave(new, args.prior_design)
        else:
            validate_wave_options(new, args.design, args.budget, show=show, **options)
        existed, lock_existed = root.exists(), (root / LOCK_FILE).exists()
        create_study(root, config)
    wave = 0  # no wave committed yet
    try:
        if config is not None and config.existing_labels == "wave":
            recorded = record_pool_labels(root, args.prior_design)
        study = Study.open(root)
        shown = show_notes(study.config, show) if show else []  # said before the draw
        show = show or study.config.show
        out_path = args.out or root / f"todo-wave{max(study.wave_numbers, default=0) + 1}.csv"
        refuse_unimported(study, Path(out_path), root)
        with claim(out_path, inputs=study_inputs(root), force=args.force) as out:
            check_people_suffix(out.given, "--out")  # before the wave is drawn
            wave, design = draw_wave(
                root,
                args.design,
                args.budget,
                seed=args.seed,
                show=show,
                max_labels=args.max_labels,
                to_label=Path(out.given).absolute(),
                **options,
            )
            after = Study.open(root)  # the study with this wave (its pool read once)
            todo = pending_items(after, wave, show)
            try:
                write_people_table(todo, out.path)  # CSV, or Parquet for a .parquet name
                out.written()
            except KeyboardInterrupt:  # after the wave's commit: running again draws another
                print(
                    f"wave {wave} is recorded in the study, its to-label file not written: "
                    f"write it with `bacon status {root} --pending-out {out.given}` (the same "
                    "command is refused until it is written)",
                    file=sys.stderr,
                )
                raise
            except BaconError as exc:
                raise ValidationError(
                    f"{exc} Wave {wave} is recorded in the study: write its to-label file "
                    f"with `bacon status {root} --pending-out FILE`"
                ) from exc
            record_to_label_written(root, [wave])  # a kill before leaves it unwritten
    except BaconError:
        if config is not None and not wave:  # a refused first wave leaves no study behind
            remove_new_study(root, existed, lock_existed)
        raise
    if config is not None:
        print(f"created study {root}")
        if read := study.pool.attrs.get("read as"):  # as doctor and estimate read it
            print(f"pool file {args.pool} read as: {read}")
        if args.max_labels is None and not recorded:  # a budget is recorded only now
            print(
                "no labelling budget recorded: the study's intervals across waves are a "
                "confidence sequence (valid whatever the stopping rule, about 1.7 times one "
                "look's width). A budget fixed in advance gives alpha-spending intervals, about "
                "1.1-1.2 times one look's width near it: record it before the first labels "
                f"come in, with `bacon sample {shlex.quote(str(root))} --max-labels N`"
            )
    if config is not None and study.unscored:
        print(
            f"--drop-unscored left out {study.unscored} row(s) of {args.pool} that no judge "
            f"scored, with any labels they hold: the study's pool is the other {study.n_items} "
            f"(study.toml records drop_unscored = true)"
            f"{study.pool.attrs.get('unscored groups', '')}"
        )
    if recorded:
        how = "uniformly" if args.prior_design == "uniform" else f"by {args.prior_design}"
        print(
            f"wave 1 (existing): the {recorded} labels already in column {args.label!r} "
            f"recorded as a first wave drawn {how} (--prior-design says how they were "
            "drawn; --existing-labels ignore leaves them out)"
        )
    if design.params.get("requested") == "adaptive":
        ratio = design.params["expected_variance_ratio"]
        why = (
            f"fewer than {MIN_LABELS_PER_COEFFICIENT:g} labels per coefficient of the outcome "
            f"model to trust its sd (predicted variance ratio {ratio:.3f})"
            if design.params["choice"] == SMALL_PILOT
            else f"the labels so far predict a variance ratio of {ratio:.3f} against uniform "
            f"sampling (>= {args.max_ratio:g})"
        )
        print(f"adaptive wave not worth it: {why}; drawing this wave uniformly")
    elif design.name == "adaptive" and "expected_variance_ratio" in design.params:
        print(
            "adaptive wave: it follows the predicted sd, the labels so far predicting a "
            f"variance {design.params['expected_variance_ratio']:.3f} times a uniform wave's "
            f"(below --max-ratio {args.max_ratio:g}); uniform share "
            f"{design.params.get('uniform_share', DEFAULT_UNIFORM_SHARE):g}. That ratio is "
            f"{OPTIMISTIC_RATIO}"
        )
    share = design.params.get("uniform_share", DEFAULT_UNIFORM_SHARE)  # the notes' wave's
    if design.params.get("few_labels"):
        few = design.params["few_labels"]
        listed = ", ".join(f"{name_text(g)} {a:g} (uniform {u:g})" for g, a, u in few[:4])
        more = f" and {len(few) - 4} more" if len(few) > 4 else ""
        print(
            f"note: the adaptive wave expects few labels in {len(few)} group(s), against a "
            f"uniform wave of the same size: {listed}{more}. Their means rest on few heavily "
            "weighted labels and miss more often than the interval says where their labels "
            f"are skewed; a larger --uniform-share (this wave's: {share:g}) or --design "
            "stratified keeps them labeled"
        )
    if design.params.get("binary_group_means"):
        print(
            "note: on 0/1 labels adaptive waves make group means miss more often than their "
            "intervals say: a wrong label where the judges agree enters with a large weight "
            "(TriviaQA, some wave's miss for the worst of 8 models: 0.24 over 10 waves at "
            "--uniform-share 0.2; at 0.5, 0.066 over 10 waves but 0.167 over 20; "
            f"VALIDATION.md). This wave's share is {share:g}. For group means draw uniform "
            "or stratified waves. The same weights can leave the pool mean's interval wider "
            "than a uniform wave's, whatever the variance predicted above (TriviaQA: 4 of 7 "
            "adaptive waves of 120, up to 2.7 times; VALIDATION.md, 'Adaptive waves: the "
            "predicted variance ratio against the realised one')"
        )
    if design.pi_prompt is not None:
        drawn = int(np.unique(after.prompts()[design.selected]).size)
        expected = float(after.waves[-1]["expected"])
        print(
            f"wave {wave} draws prompts: {drawn} prompt(s), their unlabeled items "
            f"({design.n_selected}; about {expected:.0f} expected: whole prompts are drawn "
            "at random, so the size varies)"
        )
    elif design.random_size:
        expected = float(after.waves[-1]["expected"])
        budget = "" if args.budget is None else "--budget is its expected size: "
        print(
            f"wave {wave} draws each item on its own: {design.n_selected} items, about "
            f"{expected:.0f} expected ({budget}the count drawn varies around it)"
        )
    print(
        f"wave {wave} ({design.name}, seed {args.seed}): {design.n_selected} items to label "
        f"written to {out.given}; fill in column {todo.columns[1]!r} and run "
        f"`bacon label import {out.given} --study {root}`"
    )
    over = overrun_note(after, args.allow_pending)
    if over:
        print(over)
    if strata_note:
        print(strata_note)
    for note in shown:  # judge scores or the group shown; the remembered --show replaced
        print(note, file=sys.stderr if note.startswith("warning") else sys.stdout)
    if not show:
        print(_show_hint(after, root, out.given))
    return 0


def _change_judges(args: argparse.Namespace, root: Path, config: StudyConfig | None) -> bool:
    """``--change-judges``: record the study's judges from now on; True when no wave is to
    be drawn (no --budget nor --until)."""
    from bacon_bayes.study.panel import change_panel

    if config is not None:
        raise ValidationError(
            "--change-judges changes the judges of an existing study; a new study records "
            "its --judge columns as they are: drop --change-judges"
        )
    print(change_panel(root, [j for v in args.judge for j in names_option(str(v))] or None))
    return args.budget is None and not args.until


def _refuse_show_alone(root: Path, show: str) -> None:
    """``bacon sample STUDY --show COL`` without a budget draws nothing: name the command
    that rewrites the pending to-label file with those columns."""

    from bacon_bayes.study import Study

    waves = Study.open(root).wave_numbers
    todo = root / f"todo-wave{max(waves, default=1)}.csv"
    raise ValidationError(
        f"--show without --budget draws no wave. To rewrite the pending items' to-label file "
        f"with {show}: {_rewrite_command(root, todo, shlex.quote(show))}; to draw the next "
        "wave with them (the study keeps them for later waves), add --budget N."
    )


def _item_content(pool: Any, cfg: Any, roles: Any) -> list[str]:
    """The pool columns holding the items' content a labeller may see: the prompt column
    and the text columns ``bacon doctor`` finds (the prompt first), that vary. Never the
    id, a label, a judge's scores (taken or not), the group or another numeric column:
    they would unblind or anchor the labels."""
    import pandas as pd

    taken = {cfg.item, cfg.label, cfg.group, *cfg.judges}
    if roles is not None:
        taken |= {roles.item, roles.label, roles.group, *roles.judges}
    prompt = cfg.prompt or (roles.prompt if roles is not None else None)
    text = [c for c in (roles.text if roles is not None else []) if c != prompt]
    shown = []
    for c in [prompt, *text]:
        if c is None or c in taken or c not in pool or pool[c].nunique() < 2:
            continue
        if c != prompt and pd.api.types.is_numeric_dtype(pool[c]):
            continue  # a number is no text (a score or a code)
        shown.append(str(c))
    return shown


def _rewrite_command(root: Path, todo: Any, column: str) -> str:
    """The ``bacon status`` command that rewrites the pending items' to-label file ``todo``
    with the pool columns ``column`` (already quoted for the shell, or a placeholder)."""

    return (
        f"bacon status {shlex.quote(str(root))} --pending-out {shlex.quote(str(todo))} "
        f"--show {column}"
    )


def _show_hint(study: Any, root: Path, todo: Any) -> str:
    """Without ``--show`` (none recorded): what the to-label file ``todo`` lacks, the
    ``bacon status`` command that rewrites it with the pool's response text (the column
    ``bacon doctor`` finds; else the prompt or other text it finds, :func:`_item_content`,
    never a score, label or group; else that the pool has none) and the option that keeps
    it in later waves' files."""

    from bacon_bayes.doctor.roles import find_roles
    from bacon_bayes.readers import TableMeta

    cfg, pool = study.config, study.pool
    known = {"group": cfg.group, "prompt": cfg.prompt, "judges": list(cfg.judges) or None}
    known = {k: v for k, v in known.items() if v and set(np.atleast_1d(v)) <= set(pool)}
    label = cfg.label if cfg.label in pool else None
    try:
        roles = find_roles(pool, TableMeta("csv"), label=label, item=cfg.item, **known)
    except BaconError:
        roles = None
    found = roles.response if roles is not None else None
    what = "the pool's response text (the column bacon doctor finds)"
    if found is None:  # no response text: the item's prompt or other text, never a score
        shown = _item_content(pool, cfg, roles)
        if not shown:
            return (
                "the to-label file holds ids only, and bacon doctor finds no text of the "
                "items to show the labellers (a response, prompt or other text column): add the "
                "items' text to the pool and pass --show COLUMN on the next bacon sample. "
                "Never show them the judges' scores, other labels or the group (system): "
                "they would anchor or unblind the labels the calibration takes as independent"
            )
        found, rest = shown[0], ", ".join(shown[1:6]) + (" ..." if len(shown) > 6 else "")
        what = f"{found}" + (f" (other text columns: {rest})" if rest else "")
    column = shlex.quote(found)
    return (
        "the to-label file holds ids only: the labellers see nothing to judge unless they "
        f"look the ids up; `{_rewrite_command(root, todo, column)}` rewrites it (every "
        f"pending item) with {what}, and --show {column} on the next bacon sample keeps it "
        "in later waves' files"
    )
