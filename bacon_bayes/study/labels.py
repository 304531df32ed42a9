"""Merge a file of returned human labels into a study, refusing anything doubtful.

A label file is a CSV (or the ``todo.csv`` written by ``bacon sample``, filled
in) with the study's id column and a label column (the study's label name, or
``label``). Labels are numbers (code categories as the numbers listed in
``levels``). Rows with an empty label are still pending and are counted, not
imported. The whole file is refused - nothing is written - when any row has

* an id that is not in the pool, or an id no sampling wave selected;
* a label that is not a number, or is outside the study's ``scale`` / ``levels``;
* a duplicate id with a different label in the same file;
* a label that differs from the one already stored (unless ``replace=True``).

Accepted labels are written to ``labels.csv`` atomically under the study lock,
so existing labels are never lost and an interrupted import changes nothing. A
refused import leaves every file of the study as it was (and a missing study
folder is not created).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.io import restored
from bacon_bayes.study.core import Study
from bacon_bayes.study.folder import remove_stale_temp_files, study_lock

__all__ = ["ImportSummary", "import_labels"]

_SHOW = 5


@dataclass(frozen=True)
class ImportSummary:
    """Counts of one import."""

    added: int
    replaced: int
    unchanged: int
    blank: int
    labeled_total: int

    def __str__(self) -> str:
        return (
            f"{self.added} labels added, {self.replaced} replaced, {self.unchanged} already "
            f"stored, {self.blank} rows without a label left pending; "
            f"{self.labeled_total} items labeled in total"
        )


def _rows(mask: np.ndarray, frame: pd.DataFrame, item: str, values: pd.Series) -> str:
    lines = np.flatnonzero(mask)
    shown = ", ".join(
        f"line {i + 2} ({item}={frame[item].iloc[i]!r}, label={values.iloc[i]!r})"
        for i in lines[:_SHOW]
    )
    more = f" and {lines.size - _SHOW} more" if lines.size > _SHOW else ""
    return shown + more


def _read_label_file(path: Path, item: str, label: str) -> tuple[pd.DataFrame, str]:
    if not path.is_file():
        raise ValidationError(f"label file {path} does not exist")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValidationError(f"label file {path} is not a readable CSV: {exc}") from exc
    frame = restored(frame)  # ids a to-label file quoted against spreadsheet formulas
    if item not in frame.columns:
        raise ValidationError(
            f"label file {path} has no id column {item!r} (columns: {list(frame.columns)})"
        )
    column = label if label in frame.columns else "label" if "label" in frame.columns else None
    if column is None:
        raise ValidationError(
            f"label file {path} has no label column {label!r} (or 'label'); "
            f"columns: {list(frame.columns)}"
        )
    return frame, column


def _check_scale(
    study: Study, numeric: pd.Series, raw: pd.Series, path: Path, frame: pd.DataFrame
) -> None:
    cfg = study.config
    values = numeric.to_numpy(dtype=float)
    present = ~np.isnan(values)
    bad = np.zeros(values.size, dtype=bool)
    rule = ""
    if cfg.scale is not None:
        lo, hi = map(float, cfg.scale)
        bad |= present & ((values < lo) | (values > hi))
        rule = f"between {lo:g} and {hi:g}"
    if cfg.levels is not None:
        levels = np.asarray(cfg.levels, dtype=float)
        off = np.min(np.abs(values[:, None] - levels[None, :]), axis=1) > 1e-9
        bad |= present & off
        rule = f"one of {', '.join(f'{v:g}' for v in levels)}"
    if cfg.outcome == "nonnegative":
        bad |= present & (values < 0)
        rule = rule or "non-negative"
    if bad.any():
        raise ValidationError(
            f"label file {path}: labels outside the study's scale (must be {rule}) at "
            f"{_rows(bad, frame, cfg.item, raw)}; fix those rows and import again"
        )


def import_labels(root: str | Path, path: str | Path, *, replace: bool = False) -> ImportSummary:
    """Merge the labels in ``path`` into the study folder ``root``.

    Parameters
    ----------
    root : path
        Study folder.
    path : path
        CSV file with the study's id column and a label column.
    replace : bool
        Allow a label to overwrite a different stored label (a correction).

    Returns
    -------
    ImportSummary
        What was added, replaced, already stored, or left pending.
    """
    root, path = Path(root), Path(path)
    with study_lock(root):  # refuses a missing study folder (creates nothing)
        study = Study.open(root)
        cfg = study.config
        frame, column = _read_label_file(path, cfg.item, cfg.label)
        ids = frame[cfg.item].str.strip()
        raw = frame[column].str.strip()
        blank = raw == ""
        empty = (ids == "").to_numpy()
        if empty.any():
            raise ValidationError(
                f"label file {path}: empty id at {_rows(empty, frame, cfg.item, raw)}"
            )
        position = study.index.get_indexer(ids)
        unknown = position < 0
        if unknown.any():
            raise ValidationError(
                f"label file {path}: ids not in the pool at "
                f"{_rows(unknown, frame, cfg.item, raw)}; check the id column"
            )
        first = pd.Series(study.first_wave(), index=study.index)
        outside = (first.to_numpy()[position] < 0) & ~blank.to_numpy()
        if outside.any():
            raise ValidationError(
                f"label file {path}: items that no sampling wave selected at "
                f"{_rows(outside, frame, cfg.item, raw)}; their inclusion probability is "
                "unknown, so their labels would bias the estimates - remove them"
            )
        numeric = pd.to_numeric(raw.where(~blank), errors="coerce")
        not_number = (numeric.isna() & ~blank) | ~np.isfinite(numeric.fillna(0.0))
        if not_number.any():
            raise ValidationError(
                f"label file {path}: labels that are not numbers at "
                f"{_rows(not_number.to_numpy(), frame, cfg.item, raw)}"
            )
        _check_scale(study, numeric, raw, path, frame)
        filled = pd.DataFrame({"item": ids[~blank], "value": numeric[~blank]})
        spread = filled.groupby("item")["value"].nunique()
        conflicting = ids.isin(spread.index[spread > 1]) & ~blank
        if conflicting.any():
            raise ValidationError(
                f"label file {path}: the same id has different labels at "
                f"{_rows(conflicting.to_numpy(), frame, cfg.item, raw)}; keep one label per id"
            )
        new = filled.drop_duplicates("item").set_index("item")["value"]
        stored = study.labels.set_index("item")[cfg.label]
        both = new.index.intersection(stored.index)
        differs = both[~np.isclose(new[both].to_numpy(float), stored[both].to_numpy(float))]
        if len(differs) and not replace:
            shown = ", ".join(
                f"{i!r}: stored {stored[i]:g}, file {new[i]:g}" for i in differs[:_SHOW]
            )
            raise ValidationError(
                f"label file {path} changes {len(differs)} stored labels ({shown}); "
                "nothing was imported - fix the file, or import with --replace to correct them"
            )
        added = new.index.difference(stored.index)
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        fresh = pd.DataFrame(
            {
                "item": added,
                cfg.label: new[added].to_numpy(float),
                "wave": first[added].to_numpy(),
                "source": path.name,
                "imported_at": now,
            }
        )
        labels = study.labels.copy()
        if len(differs):
            at = labels["item"].isin(differs)
            labels.loc[at, cfg.label] = new[labels.loc[at, "item"]].to_numpy(float)
            labels.loc[at, "source"] = path.name
            labels.loc[at, "imported_at"] = now
        if len(fresh):
            labels = pd.concat([labels, fresh], ignore_index=True) if len(labels) else fresh
        if len(fresh) or len(differs):  # every row was checked: the first write
            remove_stale_temp_files(root)
            study.write_labels(labels)
        return ImportSummary(
            added=len(added),
            replaced=len(differs),
            unchanged=len(both) - len(differs),
            blank=int(blank.sum()),
            labeled_total=len(labels),
        )
