"""Merge a file of returned human labels into a study, refusing anything doubtful.

A label file is a CSV (or the ``todo.csv`` written by ``bacon sample``, filled
in), a TSV, a Parquet file or JSON (records or JSON Lines), told by its ending or
its first bytes, with the study's id column (or the one column holding its ids) and
a label column (the study's label name, as written or but for case, or ``label``).
Labels are numbers (code categories as the numbers listed in ``levels``). Rows with an
empty label are still pending and are counted, not imported. The whole file is refused
- nothing is written - when any row has

* an id that is not in the pool, or an id no sampling wave selected;
* a label that is not a number, or is outside the study's ``scale`` / ``levels``
  (without either: other than 0 or 1 where every stored label is 0 or 1);
* in a categorical study without ``levels``: a label none of its stored labels has;
* a duplicate id with a different label in the same file;
* a label that differs from the one already stored (unless ``replace=True``).

Accepted labels are written to ``labels.csv`` atomically under the study lock,
so existing labels are never lost and an interrupted import changes nothing. A
refused import leaves every file of the study as it was (and a missing study
folder is not created).
"""

from __future__ import annotations

import datetime as dt
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.inclusion import NOT_DRAWN
from bacon_bayes.io import file_line, row_place
from bacon_bayes.readers.labels import WHOLE as _WHOLE
from bacon_bayes.readers.labels import near_ids, restore_zeros
from bacon_bayes.study.core import Study
from bacon_bayes.study.folder import (
    CONFIG_FILE,
    pairwise_wave_note,
    pool_file,
    read_study_pool,
    remove_stale_temp_files,
    study_lock,
)
from bacon_bayes.study.label_file import read_label_file
from bacon_bayes.words import as_numbers, minus_signs, says_missing, word_numbers

__all__ = [
    "PRIOR_DESIGNS",
    "ImportSummary",
    "import_labels",
    "pool_label_wave",
    "record_pool_labels",
]

#: How the labels already in a pool file were drawn (``--prior-design``): uniform, or
#: stratified by a column, or a column of inclusion probabilities.
PRIOR_DESIGNS = "uniform (default), stratified:COLUMN, or a column of inclusion probabilities"

_SHOW = 5


@dataclass(frozen=True)
class ImportSummary:
    """Counts of one import."""

    added: int
    replaced: int
    unchanged: int
    blank: int
    labeled_total: int
    #: blank rows of items labeled before (their label is kept, nothing pends)
    blank_kept: int = 0
    #: items of the study's waves still without a label after the import
    pending: int = 0
    #: how cells that say "no value" were read (``"'-', 'NA' read as empty cells (3 of
    #: them)"``; ``""``: none)
    marked: str = ""
    #: how labels written as words were read (``"read from words, 'yes' = 1, 'no' = 0
    #: (20 cells)"``; ``""``: none)
    words: str = ""
    #: the looks this import rewrote: labels replaced, or come back after a later wave's
    #: (:func:`rewritten_looks`)
    notes: tuple[str, ...] = ()
    #: what was labeled: "items" of a study, "comparisons" of a pairwise wave
    unit: str = "items"
    #: the commands that read the study once every drawn item is labeled (``""``: none)
    next: str = ""

    def __str__(self) -> str:
        kept = f" ({self.blank_kept} of them labeled before: kept)" if self.blank_kept else ""
        kept += f" ({self.marked})" if self.marked else ""
        words = (
            f"; labels {self.words}: check that mapping fits the label, and write the "
            "numbers in the file if it does not"
            if self.words
            else ""
        )
        return (
            f"{self.added} labels added, {self.replaced} replaced, {self.unchanged} already "
            f"stored, {self.blank} rows without a label left pending{kept}; "
            f"{self.labeled_total} {self.unit} labeled in total, {self.pending} selected "
            f"{self.unit} still pending{words}"
        ) + "".join(
            [f"\nnote: {n}" for n in self.notes] + [f"\nnext: {self.next}"] * bool(self.next)
        )


def _looks(first: np.ndarray, labeled: np.ndarray) -> list[int]:
    """The labels at each look of a study read after its latest wave (``--allow-pending``:
    a wave with no label back not drawn): cumulative counts over its waves with labels."""
    waves, counts = np.unique(first[labeled & (first >= 0)], return_counts=True)
    return [int(c) for c in np.cumsum(counts)] if waves.size else []


def rewritten_looks(
    study: Study, before: np.ndarray, after: np.ndarray, replaced: list[str], source: str
) -> tuple[list[str], list[dict]]:
    """What an import changes in the looks already read (tester C s37, findings 4 and 6):
    labels ``replaced`` (ids) rewrite every look from their wave on; labels of a wave coming
    back after a later wave's change the looks of reads with ``--allow-pending`` (which
    counted a wave with none back as not drawn). Returns the notes, and the waves.json
    entries recording the replacements per wave (``{"wave", "at", "labels", "source",
    "looks"}``), which the report's wave sequence names. ``before``/``after``: which items
    hold a label."""
    first = study.first_wave()
    read = [int(w) for w in np.unique(first[before & (first >= 0)])]  # waves read before
    notes: list[str] = []
    records: list[dict[str, Any]] = []
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    if replaced:
        waves = first[study.index.get_indexer(replaced)]
        for w in np.unique(waves):
            looks = [k for k in read if k >= w]
            records.append(
                {"wave": int(w), "at": now, "labels": int((waves == w).sum()),
                 "source": source, "looks": looks}
            )  # fmt: skip
        shown = ", ".join(f"{r['labels']} of wave {r['wave']}" for r in records)
        at = sorted({k for r in records for k in r["looks"]})
        notes.append(
            f"labels replaced ({shown}) after the look{'s' if len(at) > 1 else ''} at wave"
            f"{'s' if len(at) > 1 else ''} {', '.join(map(str, at))}: the estimates of those "
            "looks change, and bacon report's wave sequence (recomputed on today's labels) "
            "now differs from what bacon estimate and status printed then; the study "
            "records the replacement (waves.json) and the report names it"
        )
    late = [
        int(w) for w in np.unique(first[after & ~before & (first >= 0)])
        if any(k > w for k in read)
    ]  # fmt: skip
    old, new = _looks(first, before), _looks(first, after)
    if late and old != new[: len(old)]:
        later = sorted(k for k in read if k > min(late))
        notes.append(
            f"labels of wave{'s' if len(late) > 1 else ''} {', '.join(map(str, late))} came "
            f"back after those of wave{'s' if len(later) > 1 else ''} "
            f"{', '.join(map(str, later))}: reads after those waves with --allow-pending "
            "(a wave with no label back counted as not drawn, one partly back at its rate) "
            f"are no longer the study's looks, which move from {old} labels to {new}"
            + (
                "; the alpha-spending plan counts these looks, so a stop decided on those "
                "reads is not covered"
                if study.config.max_labels
                else ""
            )
        )
    return notes, records


def _rows(mask: np.ndarray, frame: pd.DataFrame, item: str, values: pd.Series) -> str:
    lines = np.flatnonzero(mask)
    label = values.name if isinstance(values.name, str) else "label"  # the file's column
    shown = ", ".join(
        f"{row_place(frame, i)} ({item}={frame[item].iloc[i]!r}, {label}={values.iloc[i]!r})"
        for i in lines[:_SHOW]
    )
    more = f" and {lines.size - _SHOW} more" if lines.size > _SHOW else ""
    return shown + more


def _check_scale(
    study: Study, numeric: pd.Series, raw: pd.Series, path: Path, frame: pd.DataFrame
) -> None:
    cfg = study.config
    values = numeric.to_numpy(dtype=float)
    present = ~np.isnan(values)
    bad = np.zeros(values.size, dtype=bool)
    rule = ""
    fix = "fix those rows and import again"
    if cfg.label_range is not None:
        lo, hi = cfg.label_range
        bad |= present & ((values < lo) | (values > hi))
        rule = f"between {lo:g} and {hi:g}"
        if not np.isfinite(hi) or not np.isfinite(lo):  # an error score's open scale
            rule = f"{lo:g} or more" if np.isfinite(lo) else f"{hi:g} or less"
            sign = 1.0 if np.isfinite(lo) else -1.0  # the labels' side of the 0 end
            if bad.any() and (sign * values[present] <= 0).all():  # all on the other side
                fix = (
                    f"every label of the file is {'0 or less' if sign > 0 else '0 or more'}: "
                    "an error score written with the other sign (WMT's MQM is written "
                    "negative, 0 = no error); write them negated and import again"
                )
    if cfg.levels is not None:
        levels = np.asarray(cfg.levels, dtype=float)
        off = np.min(np.abs(values[:, None] - levels[None, :]), axis=1) > 1e-9
        bad |= present & off
        rule = f"one of {', '.join(f'{v:g}' for v in levels)}"
    if cfg.outcome == "nonnegative":
        bad |= present & (values < 0)
        rule = rule or "non-negative"
    if cfg.outcome == "categorical" and cfg.levels is None:
        _check_new_levels(study, values, raw, path, frame)
    elif not rule:  # no scale, no levels: verdicts so far are kept to 0 and 1
        stored = study.labels[cfg.label].to_numpy(dtype=float)
        if stored.size >= 10 and set(np.unique(stored[np.isfinite(stored)])) == {0.0, 1.0}:
            bad |= present & (values != 0) & (values != 1)
            rule = f"0 or 1, as all {stored.size} labels stored so far are: a verdict"
    if bad.any():
        raise ValidationError(
            f"label file {path}: labels outside the study's scale (must be {rule}) at "
            f"{_rows(bad, frame, cfg.item, raw)}; {fix} (a study "
            "keeps the --scale it was created with: if that is too narrow, start a new one "
            "with the label's whole scale, bacon sample POOL --study NEW --scale LOW:HIGH)"
        )


def _check_new_levels(
    study: Study, values: np.ndarray, raw: pd.Series, path: Path, frame: pd.DataFrame
) -> None:
    """A categorical study without ``levels``: its levels are those of its stored labels
    (whole numbers while none is stored); a label off them is refused, not taken as a
    new category (a typo 2 or 0.5 in 0/1 labels made the outcome three-level)."""
    cfg = study.config
    seen = np.unique(study.labels[cfg.label].to_numpy(dtype=float))
    seen = seen[~np.isnan(seen)]
    present = ~np.isnan(values)
    if seen.size:
        bad = present & (np.min(np.abs(values[:, None] - seen[None, :]), axis=1) > 1e-9)
        listed = ", ".join(f"{v:g}" for v in seen)
        known = f"the study's levels so far are {listed}, those of its stored labels"
    else:
        bad = present & (values != np.round(values))
        known = "a categorical label codes its categories as whole numbers"
    if bad.any():
        new = np.unique(values[bad])
        levels = ", ".join(f"{v:g}" for v in np.union1d(seen, new))
        raise ValidationError(
            f"label file {path}: labels that are not one of the study's categories at "
            f"{_rows(bad, frame, cfg.item, raw)} ({known}; the study records no levels); "
            "fix those rows and import again, or, if they are real categories, declare "
            f"every level first: add levels = [{levels}] under [study] in "
            f"{study.root / CONFIG_FILE}"
        )


def unimported_labels(study: Study, path: Path) -> int:
    """How many labels the file ``path`` (a filled-in to-label file) holds for items the
    study drew but has no label of yet; 0 for a file that is not one."""
    try:
        frame, column = read_label_file(path, study.config.item, study.config.label, study.index)
    except ValidationError:
        return 0
    filled = frame.loc[frame[column].str.strip() != "", study.config.item].str.strip()
    position = study.index.get_indexer(filled)
    known = position >= 0
    drawn = study.first_wave()[position[known]] >= 0
    new = ~filled[known][drawn].isin(study.labels["item"])
    return int(new.sum())


def import_labels(root: str | Path, path: str | Path, *, replace: bool = False) -> ImportSummary:
    """Merge the labels in ``path`` into the study folder ``root``.

    Parameters
    ----------
    root : path
        Study folder.
    path : path
        CSV (or TSV), Parquet or JSON file (records or JSON Lines) with the study's
        id column and a label column.
    replace : bool
        Allow a label to overwrite a different stored label (a correction).

    Returns
    -------
    ImportSummary
        What was added, replaced, already stored, or left pending.
    """
    root, path = Path(root), Path(path)
    if note := pairwise_wave_note(path):
        raise ValidationError(note)
    with study_lock(root):  # refuses a missing study folder (creates nothing)
        study = Study.open(root)
        cfg = study.config
        frame, column = read_label_file(path, cfg.item, cfg.label, study.index)
        ids = frame[cfg.item].str.strip()
        raw = frame[column].str.strip()
        missing = says_missing(raw)  # '-', 'NA', 'n/a': empty cells, as every reader's
        blank = (raw == "") | missing
        empty = (ids == "").to_numpy()
        if empty.any():
            raise ValidationError(
                f"label file {path}: empty id at {_rows(empty, frame, cfg.item, raw)}"
            )
        position = _positions(study.index, ids)
        unknown = position < 0
        if unknown.any():
            pool_ids = pd.Series(np.asarray(study.index), dtype=object).astype(str)
            near = near_ids(ids[unknown].tolist(), pool_ids, "the label file's", "the pool")
            near += restore_zeros(ids[unknown], pool_ids, path, cfg.item, root)
            raise ValidationError(
                f"label file {path}: ids not in the pool at "
                f"{_rows(unknown, frame, cfg.item, raw)}; {near or 'check the id column'}"
            )
        ids = pd.Series(np.asarray(study.index)[position], index=ids.index)  # 181.0 as 181
        first = pd.Series(study.first_wave(), index=study.index)
        outside = (first.to_numpy()[position] < 0) & ~blank.to_numpy()
        if outside.any():
            raise ValidationError(
                f"label file {path}: items that no sampling wave selected at "
                f"{_rows(outside, frame, cfg.item, raw)}; their inclusion probability is "
                "unknown, so their labels would bias the estimates - remove them"
            )
        numeric, words = _numbers(raw.where(~blank))
        not_number = (numeric.isna() & ~blank) | ~np.isfinite(numeric.fillna(0.0))
        if not_number.any():
            raise ValidationError(
                f"label file {path}: labels that are not numbers at "
                f"{_rows(not_number.to_numpy(), frame, cfg.item, raw)}; write each label as "
                "a number (or a verdict word such as yes / no), or leave the cell empty for "
                "an item not labeled, and import again"
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
        held = study.index.isin(study.labels["item"])
        notes, records = rewritten_looks(
            study, held, study.index.isin(labels["item"]), list(differs), path.name
        )
        if len(fresh) or len(differs):  # every row was checked: the first write
            remove_stale_temp_files(root)
            if said := study.write_labels(labels):  # a binary outcome recorded
                notes.append(said)
            if records:  # after the labels: a write cut between them records no phantom
                _record_replaced(study, records)
        return ImportSummary(
            added=len(added),
            replaced=len(differs),
            unchanged=len(both) - len(differs),
            blank=int(blank.sum()),
            labeled_total=len(labels),
            blank_kept=int(ids[blank].drop_duplicates().isin(labels["item"]).sum()),
            pending=int((first >= 0).sum()) - len(labels),
            marked=_marked(raw[missing]),
            words=words,
            notes=tuple(
                [frame.attrs[k] for k in ("id note", "blank rows") if frame.attrs.get(k)] + notes
            ),
            next=_next(root, int((first >= 0).sum()) - len(labels), bool(blank.any())),
        )


def _next(root: str | Path, pending: int, skipped: bool) -> str:
    """What to run once every item the study's waves drew is labeled, or while
    ``pending`` of them are not after a file that ``skipped`` some (rows left blank:
    labellers who could not label them); ``""`` while they are pending otherwise (a part
    of the labels imported, the rest to come)."""
    study = shlex.quote(str(root))
    if pending and not skipped:
        return ""
    if pending:
        return (
            f"import the labels of the {pending} items still pending when they come back "
            f"(`bacon status {study} --pending-out pending.csv` writes those items for the "
            f"labellers); if they never will, `bacon estimate {study} --allow-pending` "
            "estimates with them missing at random (right only if whether a label comes "
            "back has nothing to do with its value)"
        )
    return (
        f"every drawn item is labeled: `bacon status {study}` says which questions are "
        f"settled (and about how many more labels the rest need), `bacon estimate {study}` "
        f"gives the estimates, `bacon report {study} --out report.html` the report"
    )


def _record_replaced(study: Study, records: list[dict]) -> None:
    """Add the replacements to their waves' entries of waves.json (``"replaced"``)."""
    waves = [dict(w) for w in study.waves]
    for record in records:
        wave = record.pop("wave")
        entry = next((w for w in waves if int(w["wave"]) == wave), None)
        if entry is None:
            waves.append(entry := {"wave": wave})
        entry["replaced"] = [*entry.get("replaced", []), record]
    study.write_waves(sorted(waves, key=lambda w: int(w["wave"])))


def _positions(index: pd.Index, ids: pd.Series) -> np.ndarray:
    """Each id's position among the pool's ids (-1 where none): an id written ``181.0``
    is the pool's ``181``, as the ``--labels`` join compares them (1.0 as 1); by the
    text, so an id of 17 digits loses none."""
    position = index.get_indexer(ids)
    off = position < 0
    if off.any():
        position[off] = index.get_indexer(ids[off].str.replace(_WHOLE, r"\1", regex=True))
    return position


def _marked(cells: pd.Series) -> str:
    """How the cells that say "no value" were read, ``""`` for none."""
    if cells.empty:
        return ""
    shown = ", ".join(repr(w) for w in pd.unique(cells)[:3])
    return f"{shown} read as empty cells ({len(cells)} of them)"


#: How :func:`bacon_bayes.inclusion.groups_never_drawn`'s note goes on past its finding.


def _refuse_uniform(
    frame: pd.DataFrame,
    labeled: np.ndarray,
    values: np.ndarray,
    group: str | None,
    label: str,
    path: Path,
) -> None:
    """Refuse to record the pool's labels as a uniform first wave where whole groups have
    none that a uniform draw would almost surely have reached (the check ``bacon
    estimate`` notes; tester B finding 8: recorded silently, every later estimate gave
    those groups' items a first-wave probability they never had)."""
    from bacon_bayes.inclusion import groups_never_drawn

    if group is None or group not in frame.columns:
        return
    names, codes = np.unique(frame[group].astype(str).to_numpy(), return_inverse=True)
    note = groups_never_drawn(values, codes, names, group)
    if note is None:
        return
    found = note.split(f": {NOT_DRAWN}", 1)[0]
    raise ValidationError(
        f"pool file {path}: the {int(labeled.sum())} labels already in column {label!r} "
        f"cannot be recorded as drawn uniformly: {found}. Say how "
        f"they were drawn with --prior-design stratified:{group} (each {group!r} group at "
        "its own rate) or --prior-design COLUMN (a column of inclusion probabilities), or "
        "leave them out with --existing-labels ignore"
    )


def pool_label_wave(
    study: Study, prior: str = "uniform"
) -> tuple[np.ndarray, np.ndarray, str] | None:
    """The labels already in the study's pool file as a first wave: every item's
    inclusion probability under ``prior`` (how they were drawn), the labels (NaN where
    none) and the wave's design name; None when the column holds no label.

    Parameters
    ----------
    study : Study
        The study (opened, or :meth:`Study.new`; no wave yet).
    prior : str
        ``"uniform"`` (each item with probability n / N), ``"stratified:COLUMN"``
        (n_g / N_g within each value of the pool's COLUMN) or a pool column holding
        every item's inclusion probability.

    Raises
    ------
    ValidationError
        A label that is not a number or is off the study's scale, an unknown column, or
        probabilities that cannot have drawn the labels (naming the row and the fix).
    """
    cfg = study.config
    path = pool_file(study.root, cfg)
    frame = read_study_pool(study.root, cfg)[0]  # the study's rows (drop_unscored)
    if cfg.label not in frame.columns or not frame[cfg.label].notna().any():
        return None
    raw = frame[cfg.label].astype(str).where(frame[cfg.label].notna(), "").str.strip()
    numeric = _numbers(raw.where(raw != ""))[0]
    bad = (numeric.isna() & (raw != "")).to_numpy()
    if bad.any():
        from bacon_bayes.readers.pair_table import pairwise_hint

        hint = pairwise_hint(path)  # votes A / B / tie: --pairwise, never ignore them
        raise ValidationError(
            f"pool file {path}: labels that are not numbers in column {cfg.label!r} at "
            f"{_rows(bad, frame, cfg.item, raw)}; "
            + (hint.strip() if hint else "fix them or start with --existing-labels ignore")
        )
    _check_scale(study, numeric, raw, path, frame)
    values = numeric.to_numpy(dtype=float)
    labeled = ~np.isnan(values)
    if prior == "uniform":
        _refuse_uniform(frame, labeled, values, cfg.group, cfg.label, path)
        pi = np.full(values.size, labeled.mean())
    elif prior.startswith("stratified:"):
        column = _prior_column(frame, prior.split(":", 1)[1], path)
        strata = frame[column].astype(str).where(frame[column].notna(), "")
        pi = pd.Series(labeled).groupby(strata.to_numpy()).transform("mean").to_numpy()
    else:
        column = _prior_column(frame, prior, path)
        pi = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
        off = ~np.isfinite(pi) | (pi < 0) | (pi > 1) | (labeled & (pi <= 0))
        if off.any():
            row = int(np.flatnonzero(off)[0])
            raise ValidationError(
                f"--prior-design {prior!r}: row {file_line(frame, row)} of {path} holds "
                f"{frame[column].iloc[row]!r}; every item needs the probability that the "
                "labels already there drew it (in [0, 1], above 0 where labeled)"
            )
    return pi, values, "existing-" + ("uniform" if prior == "uniform" else prior)


def _prior_column(frame: pd.DataFrame, column: str, path: Path) -> str:
    if column not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:12]))
        raise ValidationError(
            f"--prior-design names column {column!r}, which is not in {path} (columns: "
            f"{shown}); pass {PRIOR_DESIGNS}"
        )
    return column


def record_pool_labels(root: str | Path, prior: str = "uniform") -> int:
    """Record the labels already in a new study's pool file as its wave 1, drawn by
    ``prior`` (:func:`pool_label_wave`): the manifest gets every item's probability,
    labels.csv the labels. Returns how many labels were recorded (0: none, nothing
    written). The study must have no wave yet and ``existing_labels = "wave"``."""
    root = Path(root)
    with study_lock(root):
        study = Study.open(root)
        if study.wave_numbers:
            raise ValidationError(
                f"study {root} already has waves; the pool's labels can only be its first"
            )
        found = pool_label_wave(study, prior)
        if found is None:
            return 0
        pi, values, design = found
        labeled = ~np.isnan(values)
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        remove_stale_temp_files(root)
        study.write_waves(
            [
                {
                    "wave": 1,
                    "design": design,
                    "seed": 0,
                    "budget": int(labeled.sum()),
                    "expected": float(pi.sum()),
                    "params": {"existing_labels": study.config.label, "prior_design": prior},
                    "created": now,
                }
            ]
        )
        rows = {"item": study.ids, "wave": 1, "pi": pi, "selected": labeled.astype(int)}
        rows |= {"design": design, "seed": 0, "pi_prompt": np.nan, "prompt": ""}
        study.write_manifest(pd.DataFrame(rows))  # the commit point of the wave
        labels = pd.DataFrame(
            {
                "item": study.ids[labeled],
                study.config.label: values[labeled],
                "wave": 1,
                "source": pool_file(root, study.config).name,
                "imported_at": now,
            }
        )
        study.write_labels(labels)
        return int(labeled.sum())


def _numbers(raw: pd.Series) -> tuple[pd.Series, str]:
    """Labels written as text as numbers (NaN where not one): True/False and the other
    verdict words (any case, :func:`bacon_bayes.words.as_numbers`) as 1/0, as every reader
    takes them; and how the cells written as words were read (``"read from words, 'yes' =
    1, 'no' = 0 (20 cells)"``; ``""``: none), for the import's summary: a label such as
    "hallucinated" whose ``yes`` means 0 must not be turned into 1 unsaid."""
    signs = raw.to_frame()
    if minus_signs(signs):  # '−2': a spreadsheet's minus sign
        raw = signs.iloc[:, 0]
    numbers = as_numbers(raw)
    read = word_numbers(raw)
    if read is None:
        return numbers, ""
    words = int((read[0].notna() & pd.to_numeric(raw, errors="coerce").isna()).sum())
    return numbers, f"{read[1]} ({words} cells)" if words else ""
