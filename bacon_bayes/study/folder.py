"""The study folder: configuration, sampling manifest and labels on disk.

Layout of a study folder::

    study.toml     configuration, written once by ``bacon sample``:
                     [study]
                     pool = "pool.csv"      # pool file, relative to the folder or absolute
                     item = "item"          # id column of the pool
                     label = "human"        # name of the human label
                     outcome = "continuous" # continuous | ordinal | nonnegative | categorical
                     levels = [1, 2, 3]     # optional: the allowed label values
                     scale = [1.0, 5.0]     # optional: smallest and largest allowed label
                     judges = ["judge:a"]   # judge score columns of the pool
                     features = ["judge:a"] # numeric columns used by adaptive designs
                     group = "system"       # optional group column
                     prompt = "seg_id"      # optional: the prompt each item answers
                                            # (set by the first wave given --prompt)
                     existing_labels = "ignore" # optional: the pool's own label column
                                            # holds labels that are not used (their
                                            # inclusion probabilities are unknown);
                                            # "wave": they were recorded as wave 1 (in
                                            # manifest.csv and labels.csv) when the
                                            # study was created
                     show = ["text"]        # optional: pool columns the to-label files
                                            # copy (set by `bacon sample --show`)
                     max_labels = 400       # optional: the labelling budget fixed from
                                            # the start (`bacon sample --max-labels`):
                                            # anytime intervals by alpha-spending
                     drop_unscored = true   # optional: the pool file's rows none of
                                            # the judges scored are not the study's
                                            # items (`bacon sample --drop-unscored`)
    manifest.csv   one row per (pool item, wave): item, wave, pi, selected, design, seed
                   (``--seed``; a wave after the first draws from the stream
                   ``sampling.wave_seed(seed, wave)``, never the uniforms of an earlier one).
                   ``pi`` is the probability that the wave draws the item given it was
                   not labeled before, recorded for *every* item (see
                   :mod:`bacon_bayes.sampling.adaptive`); ``selected`` is 1 for the items
                   the wave sent out for labeling. The inclusion probability of an item
                   in the union of waves is ``1 - prod_k (1 - pi_k)``.
                   Waves that draw prompts (``paired``, ``paired-subset``,
                   ``paired-adaptive``) also fill two optional columns: ``pi_prompt``,
                   the probability that the wave draws the item's prompt, and
                   ``prompt``, the item's prompt id when the wave was drawn (checked
                   against the pool on every later run). Both are empty for item-level
                   waves, and manifests without them (older studies) hold item-level
                   waves only; see :class:`bacon_bayes.inclusion.Inclusion`.
    waves.json     per-wave settings (design parameters, budget, time); a wave exists
                   only once its rows are in manifest.csv (manifest.csv is the commit point).
                   A wave ``bacon sample`` drew names its to-label file,
                   ``"to_label": {"path": ..., "written": false}``, marked written once the
                   file is (the file is written after the commit: a run killed in between
                   leaves ``false``, and later commands say so).
    labels.csv     item, <label>, wave, source, imported_at: one row per labeled item.

Ids are kept as strings everywhere. Every file is replaced atomically (temp file
in the folder, fsync, ``os.replace``, fsync of the folder) under an exclusive
``fcntl`` lock on ``.lock`` (released by the OS if the process dies), so an
interrupted ``bacon sample`` or ``bacon label import`` leaves the study as it was; the
next one removes the temporary files left, only those bacon's naming proves its own and
whose writer is gone (:func:`remove_stale_temp_files`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.atomic import PAUSE_ENV, atomic_write_text, remove_dead_temps_in
from bacon_bayes.csv_format import holding, table_header
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import file_line, keep_file_rows, read_table, reading
from bacon_bayes.order import BETTER

__all__ = [
    "CONFIG_FILE",
    "LABELS_FILE",
    "MANIFEST_COLUMNS",
    "MANIFEST_FILE",
    "PAUSE_ENV",
    "PROMPT_COLUMNS",
    "PROPENSITY_COLUMN",
    "TO_LABEL_KEY",
    "WAVES_FILE",
    "WAVE_COLUMN",
    "StudyConfig",
    "atomic_write_text",
    "check_max_labels",
    "labels_came_in",
    "pool_file",
    "read_pool",
    "read_study_pool",
    "read_waves",
    "record_max_labels",
    "record_to_label_written",
    "recorded_max_labels",
    "study_inputs",
    "study_lock",
    "unscored_rows",
    "unwritten_to_label",
    "write_waves",
]

CONFIG_FILE = "study.toml"
MANIFEST_FILE = "manifest.csv"
WAVES_FILE = "waves.json"
LABELS_FILE = "labels.csv"
LOCK_FILE = ".lock"
STUDY_FILES = (CONFIG_FILE, MANIFEST_FILE, WAVES_FILE, LABELS_FILE)
MANIFEST_COLUMNS = ["item", "wave", "pi", "selected", "design", "seed"]
#: Optional manifest columns of waves that draw prompts (empty for item-level waves).
PROMPT_COLUMNS = ["pi_prompt", "prompt"]
LABEL_META_COLUMNS = ["wave", "source", "imported_at"]
PROPENSITY_COLUMN = "inclusion_probability"
#: Designs that fit the study's outcome model on the labels of earlier waves: their
#: probabilities depend on earlier labels (the estimate then weights wave by wave).
MODEL_DESIGNS = ("adaptive", "two-stage", "paired-adaptive")
#: Column of the estimation frame holding each label's wave (the looks of anytime intervals).
WAVE_COLUMN = "label_wave"
OUTCOME_KINDS = ("continuous", "ordinal", "nonnegative", "categorical")
#: What to do when a file of a study folder cannot be read.
DAMAGED_FIX = (
    "The study folder's files are written only by `bacon sample` and `bacon label import`; "
    "restore this file from a backup or version control, or start a new study folder"
)


@dataclass(frozen=True)
class StudyConfig:
    """Contents of ``study.toml``."""

    pool: str
    item: str
    label: str = "label"
    outcome: str = "continuous"
    levels: list[float] | None = None
    scale: list[float] | None = None
    judges: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    group: str | None = None
    existing_labels: str | None = None
    prompt: str | None = None
    show: list[str] = field(default_factory=list)
    max_labels: int | None = None
    drop_unscored: bool = False
    #: which way a group mean is better: "higher" (default) or "lower" (an error score),
    #: read by bacon status's best group and bacon sample --until best
    better: str = "higher"

    def __post_init__(self) -> None:
        if self.max_labels is not None and not (
            isinstance(self.max_labels, int) and self.max_labels >= 1
        ):
            raise ValidationError(
                f"study.toml: max_labels must be a positive whole number, got {self.max_labels!r}"
            )
        if self.existing_labels not in (None, "ignore", "wave"):
            raise ValidationError(
                f'study.toml: existing_labels must be "ignore", "wave" or absent, got '
                f"{self.existing_labels!r}"
            )
        if self.outcome not in OUTCOME_KINDS:
            raise ValidationError(
                f"study.toml: outcome {self.outcome!r} is not one of {', '.join(OUTCOME_KINDS)}"
            )
        if self.scale is not None and (
            len(self.scale) != 2 or not float(self.scale[0]) < float(self.scale[1])
        ):
            raise ValidationError(
                f"study.toml: scale must be [smallest, largest] with smallest < largest, "
                f"got {self.scale}"
            )
        if self.better not in BETTER:
            raise ValidationError(
                f'study.toml: better must be "higher" or "lower", got {self.better!r}'
            )
        if self.label == self.item:
            raise ValidationError("study.toml: label and item must be different column names")

    @property
    def label_range(self) -> tuple[float, float] | None:
        """The recorded ``scale`` as ``(low, high)`` floats (None: none recorded)."""
        return None if self.scale is None else (float(self.scale[0]), float(self.scale[1]))

    def to_toml(self) -> str:
        """Render as TOML (only strings, numbers and lists of them occur)."""
        lines = ["[study]"]
        for key, value in self.__dict__.items():
            if value is None or (key in ("show", "drop_unscored") and not value):
                continue
            if key == "better" and value == "higher":  # the default: studies as before
                continue
            lines.append(f"{key} = {_toml_value(value)}")
        return "\n".join(lines) + "\n"

    @classmethod
    def read(cls, root: Path) -> StudyConfig:
        """Load ``study.toml`` of the study folder ``root``."""
        path = root / CONFIG_FILE
        if not path.is_file():
            raise ValidationError(
                pairwise_wave_note(root)
                or f"{root} is not a study folder (no {CONFIG_FILE}); create one with "
                "`bacon sample POOL_FILE --study DIR ...`"
            )
        with reading(path, "study settings", DAMAGED_FIX):
            data = tomllib.loads(path.read_text(encoding="utf-8")).get("study", {})
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValidationError(f"{path}: unknown keys {sorted(unknown)}")
        for key in ("pool", "item"):
            if key not in data:
                raise ValidationError(f"{path}: missing key {key!r} in [study]")
        return cls(**data)


#: what ends a file's name without naming it: compression, then the table's format
_COMPRESSIONS = (".gz", ".bz2", ".xz", ".zip", ".zst")


def file_stem(source: str | Path) -> str:
    """A file's name without its format's suffix (``pool`` for ``pool.csv`` and
    ``pool.csv.gz``), the rest whole: ``pool_p0.03`` for ``pool_p0.03.csv``, so files
    that differ after a dot never share the names made from them. A last suffix without a
    letter (``.03`` of ``pool_p0.03``) is part of the name, not a format."""
    name = Path(source).name
    low = name.lower()
    for ending in _COMPRESSIONS:
        if low.endswith(ending) and len(name) > len(ending):
            name = name[: -len(ending)]
            break
    suffix = Path(name).suffix
    if suffix and any(c.isalpha() for c in suffix) and len(name) > len(suffix):
        name = name[: -len(suffix)]
    return name


def study_beside(source: Path) -> Path:
    """The study folder ``bacon sample POOL`` starts beside a pool file (``pool.study``
    for ``pool.csv``, ``pool_p0.03.study`` for ``pool_p0.03.csv``: :func:`file_stem`)
    when no ``--study`` is given. A study started from this very file under the name
    earlier versions gave (the name cut at its first dot, ``pool_p0.study``) is kept."""
    root = source.with_name(file_stem(source) + ".study")
    older = source.with_name(source.name.split(".")[0] + ".study")
    if older == root or (root / CONFIG_FILE).is_file() or not (older / CONFIG_FILE).is_file():
        return root
    with contextlib.suppress(ValidationError, OSError):
        if pool_file(older, StudyConfig.read(older)).resolve() == source.resolve():
            return older
    return root


def refuse_missing(path: str | Path) -> None:
    """Refuse a table or study folder named on the command line that does not exist
    (a typo): said as such, and how a study folder is made when the name looks like one,
    rather than asking for options a table would need."""
    p = Path(path)
    if p.exists():
        return
    study = p.suffix.lower() == ".study" or p.name.lower() == "study"
    hint = (
        " (it is named like a study folder: bacon sample POOL_FILE starts one beside the "
        "pool file, POOL.study, or where --study DIR says)"
        if study
        else ""
    )
    what = "" if study else "file "  # as the readers say it of a table
    raise ValidationError(f"{what}{str(p)!r} does not exist; check the path{hint}.")


def check_max_labels(root: Path, max_labels: int) -> StudyConfig:
    """The study's settings; refused when ``study.toml`` records another labelling budget
    (alpha-spending's maximum is fixed once), or records none while labels have come in
    (a budget picked after the looks could be chosen from the estimates seen, and the
    looks taken were read with the confidence sequence). Writes nothing."""
    config = StudyConfig.read(root)
    if config.max_labels is not None and config.max_labels != max_labels:
        raise ValidationError(
            f"study {root} records max_labels = {config.max_labels}; the alpha-spending "
            f"plan's budget cannot change to {max_labels} once recorded (its intervals "
            f"would no longer hold). Drop --max-labels, or give {config.max_labels}"
        )
    if config.max_labels is None and labels_came_in(root):
        raise ValidationError(
            f"study {root} has labels already and records no labelling budget: one "
            f"recorded now (max_labels = {max_labels}) could be chosen from the estimates "
            "seen, and would void the alpha-spending intervals it gives (95% at every "
            "wave). Its intervals stay the confidence sequence, which needs no budget and "
            "holds whenever you stop; drop --max-labels. A budget is recorded only before "
            "the first labels come in"
        )
    return config


def labels_came_in(root: Path) -> bool:
    """Whether the study folder ``root`` holds any label (``labels.csv`` has a row)."""
    path = root / LABELS_FILE
    if not path.is_file():
        return False
    with path.open(encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip()) > 1


def record_max_labels(root: Path, max_labels: int) -> StudyConfig:
    """Record the labelling budget in ``study.toml`` (refused when another one is
    recorded, or labels have come in: :func:`check_max_labels`). A wave drawn with the
    budget records it itself (:func:`~bacon_bayes.study.waves.draw_wave`), and a refused
    one leaves none."""
    with study_lock(root):
        config = check_max_labels(root, max_labels)
        if config.max_labels == max_labels:
            return config
        config = replace(config, max_labels=int(max_labels))
        atomic_write_text(root / CONFIG_FILE, config.to_toml())
    return config


def recorded_max_labels(root: Path, given: int | None) -> int | None:
    """The budget of a study's alpha-spending intervals: the one ``study.toml`` records
    (None: none, the confidence sequence). A ``given`` one must be the recorded one: a
    budget picked when reading the estimates (several tried, the narrowest kept) would
    void the intervals, so it is recorded once, by ``bacon sample --max-labels`` before
    the first labels come in."""
    recorded = StudyConfig.read(root).max_labels
    if given is None or given == recorded:
        return recorded
    if recorded is not None:
        raise ValidationError(
            f"study {root} records max_labels = {recorded}; its alpha-spending intervals "
            f"use that budget, fixed once, not {given}. Drop --max-labels, or give {recorded}"
        )
    if labels_came_in(root):  # no command that records the budget just tried
        raise ValidationError(
            f"study {root} records no labelling budget, so its intervals are the "
            "confidence sequence (95% at every wave, no budget needed). A budget chosen "
            "while reading the estimates would void the alpha-spending intervals, so it "
            "can be recorded only before the first labels come in; drop --max-labels"
        )
    raise ValidationError(
        f"study {root} records no labelling budget, so its intervals are the confidence "
        f"sequence. Record the budget fixed from the start before any label comes in "
        f"(bacon sample {root} --max-labels {given}), or drop --max-labels"
    )


def show_notes(config: StudyConfig, show: list[str], given: bool = True) -> list[str]:
    """What ``--show`` columns ``show`` put before the labellers that they must not see
    (a judge's scores, the group: they anchor or unblind the labels the calibration takes
    as independent), and, ``given`` on ``bacon sample``, the study's remembered columns it
    replaces (tester C s37 finding 7: both happened without a word)."""
    notes = []
    judges = [c for c in show if c in config.judges]
    group = [c for c in show if c == config.group]
    if judges or group:
        what = " and ".join(
            part
            for part in (
                f"the judge score{'s' if len(judges) > 1 else ''} {', '.join(judges)}"
                if judges
                else "",
                f"the group column {group[0]}" if group else "",
            )
            if part
        )
        notes.append(
            f"warning: --show puts {what} in the labellers' file: labellers who see a "
            "judge's score anchor on it, and the group (system) unblinds them, so their "
            "labels are no longer independent of what the calibration takes them to check. "
            "Show the items' text (a response or prompt column) instead"
        )
    if given and config.show and list(show) != list(config.show):
        notes.append(
            f"note: the study's --show changes from {','.join(config.show)} to "
            f"{','.join(show)}: later waves' to-label files copy {','.join(show)} (give "
            f"--show {','.join(config.show)} on the next bacon sample to go back)"
        )
    return notes


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        if isinstance(value, float) and math.isnan(value):
            raise ValidationError(f"cannot store {value} in study.toml")
        if isinstance(value, float) and math.isinf(value):  # a scale's open end: TOML's inf
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def pool_file(root: Path, config: StudyConfig) -> Path:
    """The study's pool file as the user would name it (``data/pool.csv``, not
    ``data/pool.study/../pool.csv``): relative paths are resolved against the folder."""
    path = Path(config.pool)
    return path if path.is_absolute() else Path(os.path.normpath(root / path))


def study_inputs(root: Path) -> list[Path]:
    """The files of the study folder ``root`` (its lock too) and its pool file: what no
    output of a command may replace (the folder itself may hold outputs, e.g. the to-label
    files)."""
    files = [root / name for name in (*STUDY_FILES, LOCK_FILE)]
    if (root / CONFIG_FILE).is_file():
        files.append(pool_file(root, StudyConfig.read(root)))
    return files


#: the pools read last, by file, id column and content (:func:`read_pool`), and the
#: largest file kept so
_POOLS: dict[tuple[str, str, bytes], pd.DataFrame] = {}
_POOLS_KEPT, _POOL_BYTES_KEPT = 2, 64 << 20


def read_pool(path: Path, item: str) -> pd.DataFrame:
    """Read a pool table (CSV, optionally compressed, or Parquet) with string ids, as
    every command reads a table (:func:`bacon_bayes.io.read_table`: a spreadsheet's
    encoding, title lines and empty rows; verdict words and ``-`` / ``NA`` cells in a
    column of numbers), the id column ``item`` as written.

    A command opens its study several times (before and under its lock, then what it
    wrote): the last pools read (of at most 64 MB) are kept by their bytes' hash, and
    the same bytes give a copy of the same frame instead of a new read (a study's
    commands read their pool 12 times in the walk of tests/test_messy_walk.py); a pool
    not kept yet is parsed from the bytes hashed, the file read once."""
    if not path.is_file():
        raise ValidationError(f"pool file {path} does not exist")
    data = path.read_bytes() if path.stat().st_size <= _POOL_BYTES_KEPT else None
    key = (str(path.resolve()), item, hashlib.sha256(data).digest()) if data else None
    if key is not None and key in _POOLS:
        return _POOLS[key].copy()  # a deep copy, its attrs too: callers change theirs
    if data is None:
        frame = _read_pool(path, item)
    else:  # the bytes just hashed are parsed: a miss reads the file once
        with holding(path, data):
            frame = _read_pool(path, item)
    if key is not None:
        _POOLS[key] = frame.copy()
        while len(_POOLS) > _POOLS_KEPT:
            del _POOLS[next(iter(_POOLS))]
    return frame


def _read_pool(path: Path, item: str) -> pd.DataFrame:
    """:func:`read_pool`, read from the file."""
    frame = read_table(path, text=[item])
    if item in frame and not pd.api.types.is_string_dtype(frame[item]):  # Parquet's
        frame[item] = frame[item].astype(str).where(frame[item].notna())
    if item not in frame.columns:
        raise ValidationError(
            f"pool file {path} has no id column {item!r}; columns are "
            f"{', '.join(map(str, frame.columns[:10]))}...; pass --item COLUMN"
        )
    ids = frame[item]
    if ids.isna().any():
        row = int(np.flatnonzero(ids.isna().to_numpy())[0])
        raise ValidationError(
            f"pool file {path}: id column {item!r} is empty in row {file_line(frame, row)}"
        )
    dup = ids.duplicated()
    if dup.any():
        first = ids[dup].iloc[0]
        raise ValidationError(
            f"pool file {path}: id {first!r} appears more than once in column {item!r}; "
            "ids must be unique"
        )
    return frame.reset_index(drop=True)


def unscored_rows(frame: pd.DataFrame, config: StudyConfig) -> np.ndarray:
    """Which rows of the pool ``frame`` none of the study's judges scored (none without
    judges)."""
    judges = [j for j in config.judges if j in frame.columns]
    if not judges:
        return np.zeros(len(frame), dtype=bool)
    return frame[judges].isna().all(axis=1).to_numpy()


def read_study_pool(root: Path, config: StudyConfig) -> tuple[pd.DataFrame, int]:
    """The study's pool file (:func:`read_pool`), without the rows none of its judges
    scored when it records ``drop_unscored``; and how many rows were left out (the groups
    left out whole named in ``attrs["unscored groups"]``)."""
    from bacon_bayes.group_gaps import whole_groups_dropped

    path = pool_file(root, config)
    frame = read_pool(path, config.item)
    unscored = unscored_rows(frame, config)
    if unscored.any() and not config.drop_unscored and (root / CONFIG_FILE).is_file():
        first = int(unscored.argmax())  # a study started on scored rows (tester C s37 #10)
        raise ValidationError(
            f"{int(unscored.sum())} row(s) of pool file {path} have no score from any of "
            f"the study's judges ({', '.join(config.judges)}; the first at line "
            f"{file_line(frame, first)}, {config.item} {str(frame[config.item].iloc[first])!r}):"
            " the study started with every row scored (a judge re-run that left them "
            "unscored?), and it estimates every item of its pool. Restore their scores in "
            "the pool file, or score them again; a started study's items cannot be left out "
            "(--drop-unscored is for a new study)"
        )
    if not config.drop_unscored or not unscored.any():
        return frame, 0
    out = frame.loc[~unscored].reset_index(drop=True)
    keep_file_rows(frame, out, ~unscored)  # messages still name the file's lines
    out.attrs["unscored groups"] = whole_groups_dropped(frame, unscored, config.group)
    return out, int(unscored.sum())


def read_waves(root: Path) -> list[dict[str, Any]]:
    """The study's ``waves.json`` (each wave's settings, as drawn); ``[]`` before any."""
    path = root / WAVES_FILE
    if not path.is_file():
        return []
    with reading(path, "study waves", DAMAGED_FIX):
        return list(json.loads(path.read_text(encoding="utf-8")))


def write_waves(root: Path, waves: list[dict[str, Any]]) -> None:
    """Replace ``waves.json`` atomically (call under :func:`study_lock`)."""
    atomic_write_text(root / WAVES_FILE, json.dumps(waves, indent=1, default=float))


#: a wave's entry in waves.json: its to-label file, ``{"path": str, "written": bool}``
TO_LABEL_KEY = "to_label"


def unwritten_to_label(waves: list[dict[str, Any]]) -> dict[int, str]:
    """The waves whose to-label file is recorded as not written, and its path."""
    return {
        int(w["wave"]): str(w[TO_LABEL_KEY]["path"])
        for w in waves
        if isinstance(w.get(TO_LABEL_KEY), dict) and not w[TO_LABEL_KEY].get("written")
    }


def record_to_label_written(root: Path, waves: list[int] | None = None) -> None:
    """Mark the to-label files of ``waves`` (None: every wave) written in ``waves.json``
    (under :func:`study_lock`, waiting up to a minute for another writer)."""
    with study_lock(root, wait=60.0):
        entries = read_waves(root)
        unwritten = unwritten_to_label(entries)
        marked = [w for w in entries if int(w["wave"]) in unwritten]
        marked = [w for w in marked if waves is None or int(w["wave"]) in waves]
        for entry in marked:
            entry[TO_LABEL_KEY] = {**entry[TO_LABEL_KEY], "written": True}
        if marked:
            write_waves(root, entries)


def remove_stale_temp_files(root: Path) -> list[Path]:
    """Delete what interrupted writes left in the study folder (call under the lock):
    files and folders that bacon's naming proves temporary (``.NAME.bacon-tmp-PID-N``;
    ``.NAME.tmp-PID`` of older versions, for the study's own files) and whose writing
    process is gone. A user's file (``.notes.tmp-keep``), a running writer's temp and a
    folder set aside by a killed folder swap (``.NAME.bacon-old-PID``) are left."""
    return remove_dead_temps_in(root, legacy=STUDY_FILES)


def pairwise_wave_note(path: str | Path) -> str:
    """Why ``path`` takes no study command when it is the table ``bacon sample --pairwise``
    writes (a CSV or Parquet table with ``to_label`` and ``propensity``), and what to run
    instead; "" for any other path."""
    path = Path(path)
    try:
        header = table_header(path) if path.is_file() else []
    except (OSError, ValueError, UnicodeDecodeError, ImportError):
        return ""
    from bacon_bayes.readers.pair_table import WAVE_COLUMNS

    if not set(WAVE_COLUMNS) <= set(map(str, header)):
        return ""
    return (
        f"{path} is a table of comparisons bacon sample --pairwise wrote (columns to_label "
        "and propensity); comparisons keep no study folder: fill in the votes on its "
        f"to_label = 1 rows in the file itself (or merge a returned file of ids and votes "
        f"with `bacon label import VOTES --study {path}`), then run `bacon estimate {path} "
        "--pairwise` (its propensity column weights the votes)"
    )


@contextlib.contextmanager
def study_lock(root: Path, *, create: bool = False, wait: float = 0.0) -> Iterator[None]:
    """Hold an exclusive lock on the study folder (blocks other writers).

    ``create``: make the folder when it is missing (only when creating a study; else a
    missing folder is refused, so a mistyped ``--study`` creates nothing). ``wait``:
    seconds to wait for another writer before refusing (0: refuse at once).
    """
    if create:
        root.mkdir(parents=True, exist_ok=True)
    elif not (root / CONFIG_FILE).is_file():
        StudyConfig.read(root)  # refuses, naming the folder and how to create a study
    with open(root / LOCK_FILE, "a+") as handle:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError as exc:
                if time.monotonic() >= deadline:
                    raise ValidationError(
                        f"study {root} is being changed by another bacon process; retry when "
                        "it ends"
                    ) from exc
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


#: the words that mark :func:`pending_read_note`'s note among a pool's notes
PENDING_READ = "the alpha-spending plan counts a wave once, when all its labels are in,"


def pending_read_note(first: np.ndarray, pending: np.ndarray, max_labels: int | None) -> str | None:
    """The note of a read with waves partly returned (``--allow-pending``) under
    alpha-spending: the plan counts each wave once, at all its labels, so a read before
    its labels are all in is no look of it; stopping on it is not covered (tester C s36
    finding 7: looks [60, 90] read, [60, 113] once the wave was in). The confidence
    sequence holds at every count of labels: no note. None when nothing is pending."""
    partly = [
        int(w)
        for w in np.unique(first[pending])
        if (first == w).sum() > (first[pending] == w).sum()
    ]
    if not partly or max_labels is None:
        return None
    waves = ", ".join(
        f"wave {w} ({int((first == w).sum() - (first[pending] == w).sum())} of "
        f"{int((first == w).sum())} labels back)"
        for w in partly
    )
    return (
        f"read with {waves}, the rest missing at random: {PENDING_READ} so this read is "
        "no look of it and "
        "stopping on its interval is not covered by 'valid at every wave' (the alpha it "
        "would spend is set aside nowhere); read again once the labels are in. If they "
        "will never come, this is the wave's look"
    )


def no_label_back(path: str | Path, waves: str) -> str:
    """The error of a study none of whose selected items has a label yet: nothing to
    estimate, and ``--allow-pending`` cannot help (only ``bacon plan`` plans meanwhile, on
    stated assumptions, as on a table without labels)."""
    return (
        f"study {path}: no label yet ({waves} selected items labeled), so there is "
        f"nothing to estimate: import some with `bacon label import FILE --study {path}` "
        f"first (meanwhile `bacon plan {path} --allow-pending` plans without a pilot)"
    )
