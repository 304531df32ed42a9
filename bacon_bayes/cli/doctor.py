"""``bacon doctor FILE``: what is in a table of judge scores and what to run on it."""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING

from bacon_bayes.cli.judge_args import OneLabel, add_judge_argument, judge_columns
from bacon_bayes.cli.pairwise import run_doctor

if TYPE_CHECKING:
    import pandas as pd

    from bacon_bayes.readers import TableMeta


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="profile a table of judge scores: columns, labels, agreement, biases, command",
        description="Find the id, label, judge, group, prompt and text columns of FILE (any "
        "format bacon reads), count the labels per group, measure each judge's coverage and "
        "agreement (between judges and with the labels), check what each judge seems biased "
        "by (response length, group), flag failure codes and scores constant within a group, "
        "infer the label's scale, and print the `bacon estimate` command to run. --label, "
        "--item, --judge, --group and --prompt override what it finds (and go into the "
        "printed command).",
    )
    p.add_argument(
        "file",
        help="CSV, Parquet, an Inspect AI log, an lm-eval sample log, promptfoo results, an "
        "OpenAI evals log, a W&B or pandas JSON table or JSON Lines",
    )
    p.add_argument("--labels", metavar="FILE", help="CSV or Parquet of human labels joined by id")
    p.add_argument(
        "--label",
        action=OneLabel,
        help="the label column (default: found; with --labels, the labels file's one column "
        "besides the id)",
    )
    p.add_argument("--item", "--id", help="the id column (default: found; --id is the same)")
    add_judge_argument(
        p, help="a judge column (repeatable; patterns like 'judge:*' allowed; default: found)"
    )
    p.add_argument("--group", help="the group column, e.g. system (default: found)")
    p.add_argument(
        "--prompt", help="the prompt column the groups answer in common (default: found)"
    )
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level (0.05)")
    p.add_argument(
        "--pairwise",
        action="store_true",
        help="FILE holds comparisons (found by itself for Arena, AlpacaEval and MT-Bench "
        "files and for tables with model_a and model_b columns): per-judge position bias, "
        "tie rate, kappa and AUC, and the `bacon estimate --pairwise` command",
    )
    p.add_argument(
        "--model-a", help="pairwise: column of model A (default: model_a; implies --pairwise)"
    )
    p.add_argument(
        "--model-b", help="pairwise: column of model B (default: model_b; implies --pairwise)"
    )
    p.add_argument(
        "--baseline-model",
        metavar="NAME",
        help="Arena-Hard judgments (model_judgment/<judge>/): the baseline every model was "
        "judged against (gpt-4-0314 in arena-hard-v0.1), which no line names",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.doctor import profile
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.readers import arena_hard, join_labels, label_column, preferences, read_any
    from bacon_bayes.readers.mturk import batch_text
    from bacon_bayes.readers.pair_hints import comparison_columns, comparisons_hint
    from bacon_bayes.readers.pair_table import looks_pairwise
    from bacon_bayes.readers.surveys import survey_text

    if not 0 < args.alpha < 1:
        raise ValidationError(f"--alpha must be between 0 and 1, got {args.alpha}")
    if arena_hard.is_arena_hard(args.file):  # a file or a folder of them
        return _arena_hard(args)
    if args.baseline_model:
        raise ValidationError(
            f"--baseline-model names Arena-Hard's baseline; {args.file!r} holds no Arena-Hard "
            "judgments (model, games): drop --baseline-model."
        )
    if not args.labels and not args.judge and (survey := survey_text(args.file)):
        print(survey)  # raters' answers, one row per respondent: the labels, not judges
        return 0
    if args.pairwise or args.model_a or args.model_b or looks_pairwise(args.file):
        return run_doctor(args)  # --model-a / --model-b name comparisons' columns
    frame, meta = read_any(args.file)
    if preferences.looks_like(frame.columns) and not args.pairwise:  # chosen / rejected
        print(preferences.doctor_text(frame, args.file))
        return 0
    if looks_pairwise(args.file, list(frame.columns)):
        return run_doctor(args)
    verdicts, models, _ = comparison_columns(frame)
    if models is not None:  # columns of verdicts and two of model names: comparisons
        args.model_a, args.model_b = models
        print(
            f"columns {', '.join(verdicts)} hold A / B / tie verdicts and columns "
            f"{models[0]!r} and {models[1]!r} share their names: read as comparisons "
            f"(--pairwise --model-a {shlex.quote(models[0])} --model-b "
            f"{shlex.quote(models[1])})\n"
        )
        return run_doctor(args)
    if not args.labels and not args.judge and (batch := batch_text(frame, args.file)):
        print(batch)  # raters' answers, one row per assignment: the labels, not judges
        return 0
    item = args.item
    if args.labels:
        item = args.item or meta.item
        args.label = args.label or label_column(frame, args.labels, item, table=args.file)
        try:
            frame, item = join_labels(
                frame, args.labels, args.label, args.item or meta.item, table=args.file
            )
        except ValidationError as exc:  # a long table's ids repeat: its pivot comes first
            if not _long_before_labels(frame, meta, args, exc):
                raise
            return 0
    elif args.item and args.item not in frame.columns:
        raise ValidationError(
            f"--item {args.item!r} is not a column of {args.file!r} (columns: "
            f"{', '.join(map(str, frame.columns[:12]))}); pass --item with the table's id column."
        )
    elif args.label and args.label not in frame.columns:
        raise ValidationError(
            f"--label {args.label!r} is not a column of {args.file!r} (columns: "
            f"{', '.join(map(str, frame.columns[:12]))}); pass --labels FILE if the labels "
            "are in another file."
        )
    found = profile(
        frame,
        meta,
        args.file,
        label=args.label,
        item=item if item != meta.item else None,
        item_joined=bool(args.labels) and not args.item,
        labels=args.labels,
        alpha=args.alpha,
        judges=judge_columns(args.judge, list(frame.columns)) if args.judge else None,
        group=args.group,
        prompt=args.prompt,
    )
    print(found.to_text())
    if idle := frame.attrs.get("labels note"):  # --labels rows of other ids, no label
        print(f"\nnote: {idle}")
    hint = comparisons_hint(frame, args.file)  # verdict columns: comparisons, read without
    if hint:
        print(f"\nnote: {hint}")
    return 0


def _arena_hard(args: argparse.Namespace) -> int:
    """``bacon doctor`` on Arena-Hard judgments: what was read (or what is missing to read
    it: the baseline), each judge's games' position bias and ties, and where the human
    votes go (the line that writes the comparisons as a table, for ``--labels``)."""
    from bacon_bayes.doctor.pairs import pair_doctor_text
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.readers.arena_hard import flatten_line, read_arena_hard
    from bacon_bayes.readers.pair_table import PairRoles

    frame, meta = read_arena_hard(args.file, baseline=args.baseline_model)
    if args.labels:
        line, out = flatten_line(args.file, args.baseline_model)
        raise ValidationError(
            "--labels joins votes onto a table of comparisons by id, and Arena-Hard's "
            f"judgment lines are none yet: write them as one: {line}; then: bacon doctor "
            f"{shlex.quote(out)} --labels {shlex.quote(args.labels)} --label COL (the votes' "
            "column, named other than label: the table's own is empty)."
        )
    roles = PairRoles(
        "model_a", "model_b", "label", list(meta.judges), "prompt", "id", meta.format,
        list(meta.notes),
    )  # fmt: skip
    print(pair_doctor_text(frame, roles, args.file, alpha=args.alpha))
    return 0


def _long_before_labels(
    frame: pd.DataFrame, meta: TableMeta, args: argparse.Namespace, exc: Exception
) -> bool:
    """When the labels cannot be joined onto ``frame`` (``exc``) because it is a long
    table (one row per item and judge), print doctor's profile of it without the labels,
    its pivot recipe, and how to add the labels once pivoted; False when it is no long
    table (the join's error stands)."""
    import shlex

    from bacon_bayes.doctor import profile
    from bacon_bayes.outputs import unused_name

    if args.item is not None and args.item not in frame.columns:
        return False  # an id column the table lacks: the join's error says so
    found = profile(
        frame,
        meta,
        args.file,
        item=args.item,
        alpha=args.alpha,
        group=args.group,
        prompt=args.prompt,
    )
    if not found.roles.long:
        return False
    labels, item, first = args.labels, [], "once it is pivoted"
    if line := _labels_with_id(args.labels, found.roles.long_key):
        labels, item = line[1], ["--item", "id"]
        first = f"once it is pivoted and the labels have its id ({line[0]})"
    wide = unused_name("wide")  # the file the pivot recipe above writes
    then = shlex.join(["bacon", "doctor", wide, "--labels", labels, "--label", args.label])
    print(found.to_text())
    print(
        f"\nnote: the labels of {args.labels!r} are joined onto one row per item, so not "
        f"before the pivot ({str(exc).rstrip('.')}); {first}, add them with: "
        + shlex.join([*shlex.split(then), *item])
    )
    return True


def _labels_with_id(path: str, key: list[str]) -> tuple[str, str] | None:
    """A shell line that writes the labels file ``path`` with the ``id`` column the long
    table's pivot recipe gives items keyed by several columns (``key``), and the file it
    writes; None when the key is one column or the labels file lacks one of them (a
    CSV or Parquet file: others are left to the user)."""
    from pathlib import Path

    from bacon_bayes.csv_format import pandas_command, pandas_read
    from bacon_bayes.doctor.long import keyed_id
    from bacon_bayes.outputs import unused_name
    from bacon_bayes.readers.labels import read_labels
    from bacon_bayes.study.folder import file_stem

    source = Path(path)
    name = "".join(source.suffixes).lower()
    if len(key) < 2 or not set(key) <= set(read_labels(source).columns):
        return None
    if not name.endswith((".parquet", ".csv", ".tsv", ".txt", ".csv.gz")):
        return None
    out = unused_name(file_stem(source) + "_id")  # here, beside the pivoted table
    write = f"{keyed_id(key, 'lab')}; lab.to_csv('{out}', index=False)"
    return pandas_command(f"lab = {pandas_read(path)}; {write}"), out
