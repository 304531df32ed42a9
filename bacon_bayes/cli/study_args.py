"""The study a ``bacon sample`` run draws in: its folder, the settings of a study the run
creates from a pool file (``--item``, ``--label``, ``--judge``...), and the checks that such
options agree with an existing study's."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from bacon_bayes.cli.judge_args import file_judge_columns
from bacon_bayes.csv_format import pandas_command, pandas_read
from bacon_bayes.errors import ValidationError

if TYPE_CHECKING:
    import pandas as pd

    from bacon_bayes.study import Study, StudyConfig


def numbers_option(text: str | None, what: str) -> list[float] | None:
    if not text:
        return None
    try:
        return [float(v) for v in text.replace(":", ",").split(",") if v.strip()]
    except ValueError as exc:
        raise ValidationError(f"--{what} must be numbers, got {text!r}") from exc


def names_option(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


def study_root(args: argparse.Namespace) -> tuple[Path, StudyConfig | None]:
    """The study folder, and the settings of the study this run is to create (None: the
    study exists). Nothing is written."""
    from bacon_bayes.study.folder import CONFIG_FILE, study_beside

    source = Path(args.pool)
    if source.is_dir() and (source / CONFIG_FILE).is_file():
        _check_folder_options(source, args)
        return source, None
    if source.is_dir():
        raise ValidationError(f"{source} is a folder without {CONFIG_FILE}; pass a pool file")
    if source.is_file():
        from bacon_bayes.io import refuse_workbook

        refuse_workbook(source)
    root = args.study or study_beside(source)
    config = _new_config(args, source, root)
    if (root / CONFIG_FILE).is_file():
        recorded = _check_same_pool(root, source)
        _check_same_study(root, config, args)
        print(f"study {root} exists (created earlier from {recorded}): drawing its next wave")
        return root, None
    _check_new_study(config, source)
    return root, config


def _check_same_pool(root: Path, source: Path) -> Path:
    """The pool file the study at ``root`` was created from; refused when it is not
    ``source`` (another file whose study folder name is the same, or ``--study`` naming
    another pool's study): its wave would draw from the recorded pool, not ``source``."""
    from bacon_bayes.study import StudyConfig
    from bacon_bayes.study.folder import pool_file

    recorded = pool_file(root, StudyConfig.read(root))
    if recorded.resolve() != source.resolve():
        raise ValidationError(
            f"study {root} was created from the pool file {recorded}, not {source}: its next "
            f"wave would draw from {recorded}. To start a study of {source}, pass --study "
            f"NEW_FOLDER; to draw the next wave of {root}, run bacon sample {root}"
        )
    return recorded


def _check_new_study(config: StudyConfig, source: Path) -> None:
    """A new study without judges is said (estimate and the adaptive designs need them);
    rows no judge scored are refused by :func:`~bacon_bayes.study.create_study`."""
    if not config.judges:
        print(
            "note: no --judge given, so the study records no judges; bacon estimate and the "
            "adaptive designs need them: start it with --judge COLUMN to use them"
        )


def remove_new_study(root: Path, existed: bool, lock_existed: bool) -> None:
    """Undo a study this run created when its first wave was refused after all (nothing
    else was written into it: the settings, the pool's labels recorded as wave 1, and the
    lock file if it was not there)."""
    from bacon_bayes.study.folder import (
        CONFIG_FILE,
        LABELS_FILE,
        LOCK_FILE,
        MANIFEST_FILE,
        WAVES_FILE,
    )

    for name in (MANIFEST_FILE, WAVES_FILE, LABELS_FILE, CONFIG_FILE):
        (root / name).unlink(missing_ok=True)
    if not lock_existed:
        (root / LOCK_FILE).unlink(missing_ok=True)
    if not existed and not any(root.iterdir()):
        root.rmdir()


def add_study_pool_arguments(p: argparse._ActionsContainer, *names: str) -> None:
    """The options ``names`` of :data:`~bacon_bayes.cli.pool_args.STUDY_POOL_OPTIONS`
    (``embedding``...) on a command that answers from a fit of a study folder (``bacon
    status``, ``bacon sample --until``), so it reads the study as ``bacon estimate`` did."""
    from bacon_bayes.cli.pool_args import KINDS

    helps = {
        "embedding": "prefix of embedding columns",
        "text": "item text column",
        "prompt": "prompt column",
        "outcome": "type of the label",
        "levels": "comma-separated levels of an ordinal/categorical label",
    }
    for name in names:
        kw = {"choices": KINDS} if name == "outcome" else {}
        what = f"{helps[name]}: the study read as bacon estimate --{name} reads it"
        p.add_argument(f"--{name}", help=what, **kw)  # type: ignore[arg-type]


#: New-study options, their argparse defaults, and the StudyConfig field each sets.
_NEW_STUDY_OPTIONS = {
    "item": None,
    "label": "label",
    "outcome": None,
    "levels": None,
    "scale": None,
    "judges": [],
    "features": "",
    "group": None,
    "existing_labels": "wave",
    "drop_unscored": False,
}


def _flag(name: str) -> str:
    """The option that sets the study setting ``name``, as the user writes it: ``--judge``
    for ``judges`` (``--judges`` is only its old spelling), ``--drop-unscored``..."""
    return "--judge" if name == "judges" else f"--{name.replace('_', '-')}"


def _check_same_study(root: Path, wanted: StudyConfig, args: argparse.Namespace) -> None:
    """Refuse new-study options given on the command line that differ from the study's."""
    from bacon_bayes.study import StudyConfig

    recorded = StudyConfig.read(root)
    clashes = [
        f"{_flag(name)} (study has {getattr(recorded, name)!r}, given {getattr(wanted, name)!r})"
        for name, default in _NEW_STUDY_OPTIONS.items()
        if getattr(args, "judge" if name == "judges" else name) != default
        and getattr(recorded, name) != getattr(wanted, name)
        and not (name == "judges" and getattr(args, "change_judges", False))
    ]
    if clashes:
        raise ValidationError(
            f"study {root} already exists and these new-study options differ from its "
            f"settings: {'; '.join(clashes)}. Drop them to draw the next wave of that study, "
            "or pass --study NEW_FOLDER to start another study"
        )


def _check_folder_options(root: Path, args: argparse.Namespace) -> None:
    """``bacon sample STUDY`` with new-study options (``--label``, ``--scale``, ``--judge``,
    ``--group``...) that differ from the study's: refused, not silently ignored."""
    from bacon_bayes.study import StudyConfig

    recorded = StudyConfig.read(root)
    given = {
        "item": args.item, "label": args.label, "outcome": args.outcome,
        "levels": numbers_option(args.levels, "levels"),
        "scale": numbers_option(args.scale, "scale"),
        "judges": [j for v in args.judge for j in names_option(str(v))],
        "features": args.features, "group": args.group,
        "existing_labels": args.existing_labels,
        "drop_unscored": args.drop_unscored,
    }  # fmt: skip
    clashes = []
    for name, default in _NEW_STUDY_OPTIONS.items():
        value, have = given[name], getattr(recorded, name)
        if value == default or value in (None, "", []) or name == "existing_labels":
            continue
        if name == "scale" and have is None:  # recorded now (study.core.record_scale)
            continue
        if name == "judges" and getattr(args, "change_judges", False):
            continue  # the study's judges from now on, recorded (study.panel.change_panel)
        if name == "features":
            value = names_option(str(value))
        same = set(value) == set(have or []) if name in ("judges", "features") else value == have
        if not same:
            clashes.append(f"{_flag(name)} {value!r} (the study has {have!r})")
    if clashes:
        raise ValidationError(
            f"study {root} records its own settings; these options set a new study's and "
            f"differ: {'; '.join(clashes)}. Drop them to draw its next wave (another group "
            f"for the questions: bacon status {root} --group COL), or start another study "
            "from the pool file with --study NEW_FOLDER"
        )


def pool_item(args: argparse.Namespace, source: Path, frame: pd.DataFrame | None = None) -> str:
    """``--item``, else the id column ``bacon estimate`` would find in the pool file (read
    as it reads it: a spreadsheet's empty rows are no items; ``frame``: the file read)."""
    from bacon_bayes.io import ITEM_COLUMNS, item_column, item_name

    if args.item:
        return str(args.item)
    frame = _pool_table(source) if frame is None else frame
    found = item_column(frame[[c for c in frame.columns if item_name(c)]])
    if found is None:
        from bacon_bayes.doctor.long import long_table, read_call
        from bacon_bayes.readers.pair_table import pairwise_hint

        judges = [str(j) for j in file_judge_columns(args.judge, source, required=False)]
        kind = "parquet" if "".join(source.suffixes).lower().endswith(".parquet") else "csv"
        read = read_call(source, kind)
        if args.label in frame and (long := long_table(frame, args.label, judges, kind, read)):
            raise ValidationError(long)  # rows of items and judges: pivot, not ids
        if pairs := pairwise_hint(source):  # comparisons: --pairwise first, not an id column
            raise ValidationError(f"pool file {source} has no id column.{pairs}")
        raise ValidationError(
            f"pool file {source} has no id column with unique values named "
            f"{', '.join(ITEM_COLUMNS)}; pass --item COLUMN (a study records the items each "
            f"wave draws by their id), or add one: {_add_ids(args, source)}."
        )
    return found


def labels_join_line(
    pool: str | Path, labels_file: str | Path, label: str | None, item: str | None
) -> tuple[str, str, str] | None:
    """The shell line (``python -c ...``) that joins the labels of ``labels_file`` onto the
    pool file ``pool`` by id and writes ``POOL_labeled.csv`` (``POOL_labeled2.csv``...
    where that file exists), with that file's name and the label column; None where it
    cannot be written (a study folder, a file that is no CSV or Parquet table, the label
    column already in the pool, no id column found)."""
    from bacon_bayes.io import read_table
    from bacon_bayes.outputs import unused_name
    from bacon_bayes.readers.labels import _id_columns, key_column, label_column, read_labels
    from bacon_bayes.study.folder import file_stem

    source, path = Path(pool), Path(labels_file)
    try:
        frame, labels = read_table(source), read_labels(path)
        # --label defaults to 'label': the labels file's one other column otherwise
        label = label if label in labels.columns else label_column(frame, path, item)
        key, theirs = _id_columns(frame, labels, key_column(frame, labels, item, label), "", label)
    except (ValidationError, OSError, ValueError):
        return None
    if label in frame.columns or label not in labels.columns or source.is_dir():
        return None
    out = unused_name(file_stem(source) + "_labeled")  # never a file the user has
    rename = f".rename(columns={{{theirs!r}: {key!r}}})" if theirs != key else ""
    line = pandas_command(
        f"df = {pandas_read(source)}; lab = {pandas_read(path)}{rename}[[{key!r}, {label!r}]]; "
        f"df = df.merge(lab, on={key!r}, how='left'); df.to_csv('{out}', index=False)"
    )
    return line, out, label


def labels_join_hint(args: argparse.Namespace) -> str:
    """Why ``bacon sample POOL --labels L`` (a sample of items) is refused, and the line
    that joins the labels onto the pool, whose label column a new study records as its
    first wave; only the first part where the join cannot be written (a study folder, a
    file that is no CSV or Parquet table, the label column already in the pool)."""
    import shlex

    said = (
        "--labels applies to --pairwise samples: a study of items reads the labels already "
        "in the pool file's label column (recorded as its first wave)"
    )
    joined = labels_join_line(args.pool, args.labels, args.label, args.item)
    if joined is None:
        return said + "; join the labels onto the pool and drop --labels."
    line, out, label = joined
    return (
        f"{said}; join them onto the pool: {line} "
        f"and sample {shlex.quote(out)} --label {shlex.quote(label)} (the same options, "
        "without --labels; --prior-design says how those labels were drawn, uniformly by "
        "default)"
    )


def _add_ids(args: argparse.Namespace, source: Path) -> str:
    """A line of Python that writes the pool with an id column: the group and prompt
    joined when they name each row once (WMT22's system and seg_id), else the row number."""
    from bacon_bayes.io import ITEM_COLUMNS, read_table
    from bacon_bayes.outputs import unused_name
    from bacon_bayes.study.folder import file_stem

    pair = [c for c in (args.group, getattr(args, "prompt", None)) if c]
    frame = read_table(source)
    joined = len(pair) == 2 and set(pair) <= set(frame.columns)
    if joined and not frame.duplicated(pair).any():
        ids = f"df[{pair[0]!r}].astype(str) + ':' + df[{pair[1]!r}].astype(str)"
    else:
        ids = "range(len(df))"
    # rows no judge scored would be refused by the study: the line leaves them out
    judges = [str(j) for j in file_judge_columns(args.judge, source, required=False)]
    unscored = bool(judges) and bool(frame[judges].isna().all(axis=1).any())
    drop = f"df = df.dropna(subset={judges!r}, how='all'); " if unscored else ""
    out = Path(unused_name(file_stem(source) + "_ids"))  # here: a data folder may be shared
    # a name the table does not hold (its `id` may repeat), found by sample as the id
    name = next((c for c in ITEM_COLUMNS if c not in frame.columns), "row_id")
    item = "" if name in ITEM_COLUMNS else f" --item {name}"
    line = pandas_command(
        f"df = {pandas_read(source)}; {drop}df.insert(0, '{name}', {ids}); "
        f"df.to_csv('{out}', index=False)"
    )
    return f"{line} and sample {out}{item}" + (
        " (the line leaves out the rows no judge scored)" if unscored else ""
    )


def _pool_table(source: Path) -> pd.DataFrame:
    """The pool file read as every command reads a table (refused when it is missing)."""
    from bacon_bayes.io import read_table
    from bacon_bayes.readers import csv_recipe, sniff

    if not source.is_file():
        raise ValidationError(f"pool file {source} does not exist; check the path")
    if (kind := sniff(source)) not in ("csv", "parquet"):
        line, out = csv_recipe(source)
        raise ValidationError(
            f"bacon sample draws from a CSV or Parquet table (or a study folder), not "
            f"{str(source)!r} ({kind}): write it out as CSV first ({line}) and run bacon "
            f"sample on {out}"
        )
    return read_table(source)


def _existing_labels(args: argparse.Namespace, table: pd.DataFrame) -> str | None:
    """The study's ``existing_labels``: ``wave`` only when the pool (``table``) has labels
    (read as every command reads them: ``-`` or ``NA`` is no label)."""
    if args.existing_labels != "wave":
        return "ignore" if args.existing_labels == "ignore" else None
    return "wave" if args.label in table.columns and table[args.label].notna().any() else None


def _new_config(args: argparse.Namespace, source: Path, root: Path) -> StudyConfig:
    from bacon_bayes.scale import guess_outcome
    from bacon_bayes.study import StudyConfig

    table = _pool_table(source)  # read once for the id column, the labels' type and count
    item = pool_item(args, source, table)
    return StudyConfig(
        pool=os.path.relpath(source.resolve(), root.resolve()),
        item=item,
        label=args.label,
        # as bacon estimate guesses it: categorical for labels of 0 and 1, else continuous
        outcome=args.outcome or guess_outcome(table, args.label),
        levels=numbers_option(args.levels, "levels"),
        scale=numbers_option(args.scale, "scale"),
        judges=list(file_judge_columns(args.judge, source, required=False)),
        features=names_option(args.features),
        group=args.group,
        existing_labels=_existing_labels(args, table),
        prompt=args.prompt,
        show=names_option(args.show),
        drop_unscored=args.drop_unscored,
        better=getattr(args, "better", None) or "higher",
    )


def refuse_unimported(study: Study, out: Path, root: str | Path, option: str = "--out") -> None:
    """Refuse to write a to-label file (``option``: ``--out``, or status's
    ``--pending-out``) over one holding labels not imported yet, even with ``--force``,
    which would drop them (a labeller's filled-in pending file)."""
    import shlex

    from bacon_bayes.study.labels import unimported_labels

    if out.is_file() and (n := unimported_labels(study, out)):
        command = f"bacon label import {shlex.quote(str(out))} --study {shlex.quote(str(root))}"
        raise ValidationError(
            f"{option} {out} holds {n} label(s) the study has not imported yet; import them "
            f"first ({command}) and run again, or write elsewhere ({option} OTHER.csv); "
            "--force does not replace it (move the file away if those labels are to be "
            "dropped)"
        )
