"""Merge a file of returned human votes into the table of comparisons ``bacon sample
--pairwise`` wrote (its columns ``to_label`` and ``propensity``; ``bacon label import
VOTES --study WAVE.csv``).

The returned file is read as :func:`~bacon_bayes.study.import_labels` reads a study's
(CSV or TSV, a spreadsheet's re-save of the wave table, Parquet, JSON): the wave's id
column (or the one column holding its ids) and its vote column (the wave's name for it,
``label``, or the file's one column besides the id: ``id, vote``). Votes are A / B / tie
in any spelling :func:`~bacon_bayes.readers.pairwise.to_verdict` reads, or the winning
model's name (the row's ``model_a`` or ``model_b``, case aside); empty cells are still
pending. The wave table is CSV or Parquet, and is written back in its own format. The
whole file is refused - the wave table is left as it was - when any row has

* an empty id, or an id that is not in the wave table;
* a vote that is not a verdict (the accepted spellings listed), or names a model that is
  neither of its comparison's;
* an id repeated on several rows with a vote (one vote per comparison: its propensity
  counts one);
* a vote on a comparison no wave drew (``to_label`` not 1 and no vote stored);
* models that are not the wave's for its id (the ids point to other comparisons);
* a vote that differs from the one stored (unless ``replace=True``).

The accepted votes are written, as ``A`` / ``B`` / ``tie``, into the wave table's vote
column atomically under its lock; every other cell keeps its text.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.csv_format import csv_options, write_like
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import people_csv, read_table, restored, write_by_suffix
from bacon_bayes.outputs import output_lock
from bacon_bayes.readers import sniff
from bacon_bayes.readers.labels import near_ids
from bacon_bayes.readers.pair_table import WAVE_COLUMNS, drawn_marks
from bacon_bayes.readers.pairwise import VERDICT_HELP, to_verdict
from bacon_bayes.study.folder import pairwise_wave_note
from bacon_bayes.study.label_file import read_label_file
from bacon_bayes.study.labels import (
    ImportSummary,
    _marked,
    _positions,
    _rows,
    import_labels,
)
from bacon_bayes.words import says_missing

__all__ = ["import_returned", "import_votes"]


def import_returned(
    target: str | Path, path: str | Path, *, replace: bool = False
) -> ImportSummary:
    """Merge the returned file ``path`` into ``target``: a study folder
    (:func:`~bacon_bayes.study.import_labels`) or a table of comparisons ``bacon sample
    --pairwise`` wrote (:func:`import_votes`)."""
    if Path(target).is_file() and pairwise_wave_note(target):
        return import_votes(target, path, replace=replace)
    return import_labels(target, path, replace=replace)


def _verdicts(
    raw: pd.Series, model_a: np.ndarray | None = None, model_b: np.ndarray | None = None
) -> pd.Series:
    """Each cell's verdict (A / B / tie), ``""`` where it says no value ('', 'NA', '-'),
    None where it is no verdict. ``model_a``, ``model_b``: each row's two models, a cell
    naming one of them (case aside) is its side (the winner written by its name)."""
    read: dict[str, str | None] = {}
    for value in pd.unique(raw):
        try:
            verdict = to_verdict(value)
        except ValidationError:
            read[value] = None
            continue
        read[value] = verdict if isinstance(verdict, str) else ""
    out = raw.map(read).where(~says_missing(raw), "")
    if model_a is not None and model_b is not None:
        cells = raw.str.casefold().to_numpy()
        for side, models in (("A", model_a), ("B", model_b)):
            out = out.mask(
                out.isna() & (cells == pd.Series(models).str.casefold().to_numpy()), side
            )
    return out


def _names_a_model(raw: pd.Series, table: pd.DataFrame, *columns: str) -> np.ndarray:
    """Whether each cell is the name of a model of the wave table (case aside)."""
    names = {str(v).strip().casefold() for c in columns for v in table[c]} - {""}
    return raw.str.casefold().isin(names).to_numpy()


def _pairs_of(mask: np.ndarray, pair: list[np.ndarray]) -> str:
    """The first rows' comparisons, ``a vs b``, for the refusal of a model's name."""
    shown = dict.fromkeys(f"{a} vs {b}" for a, b in zip(*(p[mask] for p in pair), strict=True))
    return ", ".join(list(shown)[:3]) + (" ..." if len(shown) > 3 else "")


def _wave_table(wave: Path) -> tuple[pd.DataFrame | None, pd.DataFrame]:
    """The wave table as written (Parquet: its typed frame; CSV: None) and as text, every
    cell a string (``""`` for an empty one), the form the merge compares."""
    if sniff(wave) == "parquet":
        typed = read_table(wave)
        text = typed.astype(object).where(typed.notna(), "").astype(str)
        return typed, text.map(lambda v: v.removesuffix(".0") if _whole_text(v) else v)
    return None, restored(pd.read_csv(wave, dtype=str, keep_default_na=False, **csv_options(wave)))


def _whole_text(value: str) -> bool:  # a whole number Parquet kept as a float: 1.0 is 1
    return value.endswith(".0") and value[:-2].lstrip("-").isdigit()


def _write_wave(wave: Path, typed: pd.DataFrame | None, table: pd.DataFrame, label: str) -> None:
    """Write the votes back in the wave table's own format, every other cell as read."""
    if typed is None:
        write_like(wave, people_csv(table), csv_options(wave))
        return
    out = typed.copy()
    out[label] = table[label].where(table[label] != "", None).astype(object)
    write_by_suffix(out, wave)


def import_votes(wave: str | Path, path: str | Path, *, replace: bool = False) -> ImportSummary:
    """Merge the human votes in ``path`` into the wave table ``wave``.

    Parameters
    ----------
    wave : path
        The table of comparisons ``bacon sample --pairwise`` wrote (CSV or Parquet;
        ``to_label``, ``propensity``), with an id column.
    path : path
        The returned votes: CSV (or TSV), Parquet or JSON with the wave's id column and
        a vote column (A / B / tie, or the winning model's name).
    replace : bool
        Let the file correct votes already in the wave table.

    Returns
    -------
    ImportSummary
        Votes added, replaced, already stored or left pending (``unit`` "comparisons").

    Raises
    ------
    ValidationError
        Any row the module docstring lists, naming its line and the fix; nothing is
        written.
    """
    from bacon_bayes.readers.pair_table import read_pair_table

    wave, path = Path(wave), Path(path)
    if not (wave.is_file() and pairwise_wave_note(wave)):
        raise ValidationError(
            f"{wave} is not a table of comparisons bacon sample --pairwise wrote (a CSV "
            f"or Parquet table with columns {' and '.join(WAVE_COLUMNS)}); pass the table it wrote"
        )
    roles = read_pair_table(wave)[1]
    label, item = roles.label, roles.item
    if item is None:
        raise ValidationError(
            f"{wave} has no id column (id, item_id, ... with one value per comparison), so "
            "returned votes cannot be matched to its comparisons; fill in the votes in its "
            f"column {label!r} itself, or give it a column 'id' of unique ids before "
            "sending it out"
        )
    with output_lock(wave.resolve(), str(wave)):
        typed, table = _wave_table(wave)
        index = pd.Index(table[item].str.strip())
        frame, column = read_label_file(path, item, label, index, other=True)
        ids = frame[item].str.strip()
        raw = frame[column].str.strip()
        missing = says_missing(raw)

        def refuse(mask: np.ndarray, what: str, fix: str) -> None:
            if mask.any():
                where = _rows(mask, frame, item, raw)
                raise ValidationError(f"returned votes {path}: {what} at {where}; {fix}")

        refuse((ids == "").to_numpy(), "empty id", "give every row its comparison's id")
        position = _positions(index, ids)
        unknown = position < 0
        if unknown.any():
            near = near_ids(ids[unknown].tolist(), pd.Series(index), "the file's", str(wave))
            refuse(unknown, f"ids not in {wave}", near or "check the id column")
        pair = [table[m].str.strip().to_numpy()[position] for m in (roles.model_a, roles.model_b)]
        votes = _verdicts(raw, *pair)
        blank = votes.eq("")
        empty = "or leave the cell empty where nobody voted, and import again"
        named = votes.isna().to_numpy() & _names_a_model(raw, table, roles.model_a, roles.model_b)
        refuse(
            named,
            f"votes naming a model that is neither of the comparison's ({_pairs_of(named, pair)})",
            f"write the winner as A, B or tie, or as {roles.model_a!r} or {roles.model_b!r} "
            "of that row; check the id column",
        )
        refuse(votes.isna().to_numpy(), "votes that are not a verdict", f"{VERDICT_HELP}; {empty}")
        voted = ~blank.to_numpy()
        repeated = pd.Series(position).where(voted).duplicated(keep=False).to_numpy() & voted
        refuse(
            repeated,
            "the same comparison voted on more than once",
            "keep one vote per id (its propensity counts one vote; for several raters, "
            "write their majority)",
        )
        for model in (roles.model_a, roles.model_b):
            if model in frame.columns:
                theirs = table[model].str.strip().to_numpy()[position]
                other = (frame[model].str.strip().to_numpy() != theirs) & voted
                refuse(
                    other,
                    f"column {model!r} differs from {wave}'s for the same id",
                    "the ids point to other comparisons: check the id column",
                )
        stored = _verdicts(table[label].str.strip())
        had = stored.ne("").to_numpy()  # a cell that is no verdict counts as a vote stored
        drawn = drawn_marks(table)
        refuse(
            voted & ~drawn[position] & ~had[position],
            f"votes on comparisons no wave drew ({WAVE_COLUMNS[0]} is not 1 and no vote is stored)",
            f"their inclusion probability is not what {WAVE_COLUMNS[1]!r} says, so their "
            "votes would bias the strengths - remove those rows",
        )
        old = stored.to_numpy(dtype=object)[position]
        new = votes.to_numpy(dtype=object)
        differs = voted & had[position] & (old != new)
        if differs.any() and not replace:
            refuse(
                differs,
                f"votes that differ from those stored in {wave} (stored: "
                f"{', '.join(map(str, old[differs][:5]))})",
                "nothing was imported - fix the file, or import with --replace to correct them",
            )
        added = voted & ~had[position]
        cells = table[label].to_numpy(dtype=object)
        cells[position[added | differs]] = new[added | differs]
        table[label] = cells
        if (added | differs).any():
            _write_wave(wave, typed, table, label)
    now = had.copy()
    now[position[added]] = True
    pending = int((drawn & ~now).sum())
    command = f"bacon estimate {shlex.quote(str(wave))} --pairwise --propensity {WAVE_COLUMNS[1]}"
    step = (
        f"every drawn comparison has a vote: run `{command}`"
        if not pending
        else f"the estimate refuses until the {pending} drawn comparisons still pending have "
        "their votes (import them when they come back)"
    )
    note = frame.attrs.get("id note", "").replace("the study's", "the wave's")
    return ImportSummary(
        added=int(added.sum()),
        replaced=int(differs.sum()),
        unchanged=int((voted & had[position] & ~differs).sum()),
        blank=int(blank.sum()),
        labeled_total=int(now.sum()),
        blank_kept=int((~voted & had[position]).sum()),
        pending=pending,
        marked=_marked(raw[missing]),
        notes=(*([note] if note else []), step),
        unit="comparisons",
    )
