"""Reading a study folder's files: its pool (the judges' scores, refused where no judge
scored a row or a judge holds text), its manifest of drawn items and its labels, each
refusal naming the file, the row and the fix (:class:`bacon_bayes.study.core.Study` opens
them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.io import file_line, reading
from bacon_bayes.study.folder import (
    CONFIG_FILE,
    DAMAGED_FIX,
    LABEL_META_COLUMNS,
    MANIFEST_COLUMNS,
    PROMPT_COLUMNS,
    StudyConfig,
    pool_file,
    read_study_pool,
    unscored_rows,
)

__all__ = [
    "read_labels",
    "read_manifest",
    "refuse_text_judges",
    "refuse_unscored",
    "study_pool_frame",
]


def study_pool_frame(root: Path, config: StudyConfig) -> tuple[pd.DataFrame, int]:
    """The study's pool without its label column (refusing labels already in it unless
    the study ignores them), and the rows left out as no judge scored them."""
    pool_path = pool_file(root, config)
    if not pool_path.is_file():  # a study folder moved without its pool file
        raise ValidationError(
            f"pool file {pool_path} does not exist: {root / CONFIG_FILE} names it as "
            f"pool = {config.pool!r}, relative to the study folder. Move the pool file "
            "there, or write its path (absolute, or relative to the folder) into that line"
        )
    pool, unscored = read_study_pool(root, config)
    if pool.empty and unscored:
        raise ValidationError(
            f"no row of pool file {pool_path} has a score from any of the judges "
            f"{', '.join(config.judges)}; check the --judge columns"
        )
    if config.label in pool.columns:
        given = int(pool[config.label].notna().sum())
        if given and config.existing_labels not in ("ignore", "wave"):
            raise ValidationError(
                f"pool file {pool_path} already has {given} labels in column "
                f"{config.label!r}; a design-based estimate needs their inclusion "
                "probabilities. Start the study with `--existing-labels wave` (the "
                "default: recorded as a first wave, drawn uniformly unless --prior-design "
                "says otherwise) or `--existing-labels ignore` (they stay in the pool "
                "file, unused), or empty or rename that column; labels of the study live "
                "in labels.csv"
            )
        # empty, set aside by the user, or recorded as wave 1 (labels.csv holds them)
        pool = pool.drop(columns=config.label)
    return pool, unscored


def refuse_text_judges(frame: pd.DataFrame, config: StudyConfig, path: Path) -> None:
    """Refuse a judge column holding text that reads as no number (verdicts A / B / tie of
    a table of comparisons): the study's first estimate would stop on it, after the
    labelling. Before the study is made, naming the line and the fix."""
    from bacon_bayes.readers.pair_table import pairwise_hint
    from bacon_bayes.words import as_numbers, cell_fix, says_missing, unread

    for judge in config.judges:
        column = frame[judge] if judge in frame else None
        if column is None:
            continue
        bad = unread(as_numbers(column).to_numpy(dtype=float), column)
        bad &= ~says_missing(column).to_numpy()
        if bad.any():
            pos = int(bad.argmax())
            value = column.iloc[pos]
            raise ValidationError(
                f"judge column {judge!r} of pool file {path} has a non-numeric value "
                f"{value!r} at line {file_line(frame, pos)} ({int(bad.sum())} such cells): a "
                "study's estimates need the judges' scores as numbers."
                + (pairwise_hint(path) or f" {cell_fix(value)}")
            )


def read_manifest(path: Path | None) -> pd.DataFrame:
    if path is None or not path.is_file():
        columns = [*MANIFEST_COLUMNS, *PROMPT_COLUMNS]
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns}).astype(
            {"wave": int, "pi": float, "selected": int, "pi_prompt": float}
        )
    with reading(path, "study manifest", DAMAGED_FIX):
        frame = pd.read_csv(
            path, dtype={"item": str, "design": str, "prompt": str}, keep_default_na=False
        )
    missing = set(MANIFEST_COLUMNS) - set(frame.columns)
    if missing:
        raise ValidationError(f"{path} lacks columns {sorted(missing)}; the manifest is damaged")
    pi = pd.to_numeric(frame["pi"], errors="coerce")
    if pi.isna().any() or (pi < 0).any() or (pi > 1).any():
        raise ValidationError(f"{path}: column pi must hold probabilities in [0, 1]")
    # waves that drew prompts (absent in older studies: item-level waves only)
    raw = frame["pi_prompt"] if "pi_prompt" in frame else pd.Series("", index=frame.index)
    b = pd.to_numeric(raw.replace("", np.nan), errors="coerce")
    if (b.isna() & (raw != "")).any() or (b < 0).any() or (b > 1).any() or (b < pi).any():
        raise ValidationError(
            f"{path}: column pi_prompt must be empty or hold probabilities in [pi, 1]"
        )
    frame["pi_prompt"] = b.astype(float)
    frame["prompt"] = frame["prompt"].astype(str) if "prompt" in frame else ""
    return frame


#: ``imported_at`` as written by :func:`import_labels` (ISO 8601 with seconds and offset).
_TIMESTAMP = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)"


def read_labels(path: Path | None, label: str) -> pd.DataFrame:
    columns = ["item", label, *LABEL_META_COLUMNS]
    if path is None or not path.is_file():
        empty = pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
        return empty.astype({label: float})
    with reading(path, "study labels", DAMAGED_FIX):
        frame = pd.read_csv(path, dtype={"item": str, "source": str, "imported_at": str})
    if list(frame.columns) != columns:
        raise ValidationError(f"{path} should have columns {columns}, has {list(frame.columns)}")
    stamp = frame["imported_at"].astype(str).str.fullmatch(_TIMESTAMP)
    wave = pd.to_numeric(frame["wave"], errors="coerce")
    incomplete = (frame[["item", "source"]].isna().any(axis=1) | ~stamp | wave.isna()).to_numpy()
    if incomplete.any():  # a row cut short: the file was truncated or edited by hand
        row = int(incomplete.argmax())
        raise ValidationError(
            f"study labels {str(path)!r}: row {row + 2} (line of the file) is incomplete "
            f"(item, wave, source and imported_at must be filled). {DAMAGED_FIX}"
        )
    return frame


def refuse_unscored(frame: pd.DataFrame, config: StudyConfig, path: Path) -> None:
    """Refuse a pool whose rows none of the study's judges scored, unless the study leaves
    them out (``drop_unscored``): a study estimates every item of its pool, and such rows
    would stop its first estimate."""
    unscored = unscored_rows(frame, config)
    if unscored.any() and not config.drop_unscored:
        first = int(unscored.argmax())
        raise ValidationError(
            f"{int(unscored.sum())} row(s) of pool file {path} have no score from any judge "
            f"(the first at line {file_line(frame, first)}): a study estimates every item of "
            "its pool, and such rows would stop its first estimate. Pass --drop-unscored to "
            "leave them out of the study (study.toml records it), or leave them out of the "
            "pool file (or score them), then start the study"
        )
