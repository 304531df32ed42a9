"""The checks of a table's columns as ``EvalPool.from_frame`` reads them: numbers and
empty cells, labels, judge scores (wide, or a long table), propensities and embeddings,
each refusal naming the row (its line in a CSV file) and the fix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes.arguments import need_column, suggest
from bacon_bayes.errors import ValidationError
from bacon_bayes.letters import letters_fix
from bacon_bayes.words import (
    PACKED,
    as_numbers,
    cell_fix,
    id_text,
    packed_cells,
    says_missing,
    unread,
    word_levels,
)

if TYPE_CHECKING:
    from bacon_bayes.pool import OutcomeSpec

LONG_COLUMNS = ("item", "judge", "score")
UNCERTAINTY_COLUMNS = ("entropy", "perplexity")
#: largest label or judge score taken: beyond it, squares and sums of squares of a pool's
#: values overflow floating point (1e308) and the fits fail
MAX_ABS = 1e100


def python_scalar(value: Any) -> Any:
    """Python scalar for messages (``3``, not ``np.int64(3)``)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True)
class Rows:
    """Where a table's rows are, for messages: their item ids and, for a table read from
    a CSV file, their lines in it (:func:`bacon_bayes.io.csv_lines`)."""

    ids: np.ndarray
    lines: np.ndarray | None = None
    #: the frame's index (a Python frame's rows are found by it: ``df.loc[1042]``)
    index: pd.Index | None = None

    def at(self, pos: int) -> str:
        """``line 7`` of a CSV file, else ``row 5`` (from 0) under a plain index, else
        ``row 5 by position (index 1042)``."""
        if self.lines is not None:
            return f"line {int(self.lines[pos])}"
        return f"row {pos}" if self.index is None else _place(self.index, pos)

    def __call__(self, pos: int) -> str:
        """:meth:`at` with the row's item: ``row 5 by position (index 1042, item 'a')``."""
        place, item = self.at(pos), f"item {python_scalar(self.ids[pos])!r}"
        return f"{place[:-1]}, {item})" if place.endswith(")") else f"{place} ({item})"


def check_roles(label: str, judges: Sequence[str], roles: dict[str, str | None]) -> None:
    """Refuse a column named for another part (``group=``, ``prompt=``, ``item=`` ...) that
    is the label or a judge: ``group='human'`` read the labels as groups and said the
    group column was empty at the first unlabeled row."""
    taken = {str(j): "a judge" for j in judges} | {str(label): "the label"}
    for role, column in roles.items():
        if column is not None and str(column) in taken:
            raise ValidationError(
                f"{role}={column!r} names {taken[str(column)]} column: a column plays one "
                f"part; pass {role}= the column that holds the {role.replace('_', ' ')}, "
                f"or leave {role} out."
            )


def check_rows_are_items(
    df: pd.DataFrame, label: str, judges: Sequence[Any], *, pairs: bool = False
) -> None:
    """Without ``item=``, refuse a frame whose rows are items x judges: a column named
    like an id (``id``, ``item``, ``item_id``) whose values repeat on most rows, with
    each labeled id's label the same on its rows (a long table's copy). Each row would be
    an item, each label counted once a judge, and the intervals too narrow (a walk: se
    0.023 where the pivoted table gives 0.059). The command line refuses such a table
    too (:func:`bacon_bayes.doctor.long.long_table`). ``pairs``: a frame of comparisons
    (:meth:`EvalPool.from_pairs`), its pivot's recipe for verdicts."""
    from bacon_bayes.io import item_name

    if label not in df:
        return
    for c in df.columns:
        if not item_name(c) or c == label or c in judges or df[c].isna().any():
            continue
        if df[c].duplicated().mean() < 0.5 or df.duplicated().mean() >= 0.5:
            continue  # ids once each, or whole rows repeated (a frame joined with itself)
        labeled = df.loc[df[label].notna(), [c, label]]
        by = labeled.groupby(c, sort=False)[label]
        sizes = by.size()
        if not len(sizes) or (sizes > 1).mean() < 0.5 or (by.nunique() > 1).any():
            continue
        k = round(len(df) / max(df[c].nunique(), 1))
        values = repr(str(judges[0])) if len(judges) == 1 else "'SCORE_COLUMN'"
        if pairs:  # EvalPool.from_pairs: verdicts (words), pivoted, not averaged
            raise ValidationError(
                f"column {c!r} names the comparisons but repeats (about {k} rows each, "
                "every voted one with its vote repeated), and no item= was given: the frame "
                "looks long, one row per comparison and judge, each vote would count about "
                f"{k} times and the intervals come out too narrow. Pivot it to one row per "
                f"comparison, e.g. wide = df.pivot(index={c!r}, columns='JUDGE_COLUMN', "
                f"values={values}).join(df.groupby({c!r})[['model_a', 'model_b', "
                f"{label!r}]].first()).reset_index(), then from_pairs(wide, item={c!r}, "
                "judges=[...the judge names...], ...); if each row is a comparison after "
                "all, pass item= naming a column of unique ids"
            )
        raise ValidationError(
            f"column {c!r} names the items but repeats (about {k} rows each, every labeled "
            f"one with its label repeated), and no item= was given, so each row would be an "
            f"item: the frame looks long, one row per item and judge, each label would count "
            f"about {k} times and the intervals come out too narrow. Pivot it to one row per "
            f"item, e.g. wide = df.pivot_table(index={c!r}, columns='JUDGE_COLUMN', "
            f"values={values}).reset_index() with the label and other columns joined "
            f"back, then from_frame(wide, item={c!r}, ...); if each row is an item after all, "
            "pass item= naming a column of unique ids"
        )


def blank_cells(values: pd.Series | np.ndarray) -> np.ndarray:
    """Which cells of a column of names (ids, groups, prompts) name nothing: missing, or
    text of no character but spaces (``''``: a CSV's empty cell reads as missing, the same
    cell from Python as ``''``; both are empty, in every entry point)."""
    s = pd.Series(values, copy=False)
    blank = np.array(s.isna().to_numpy(), dtype=bool)
    if pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s):
        try:
            blank |= s.str.strip().eq("").fillna(False).to_numpy(dtype=bool)
        except TypeError:  # no text at all (bytes ids): only text can be blank
            blank |= np.array([isinstance(v, str) and not v.strip() for v in s], dtype=bool)
    return blank


def empty_cell_says(
    values: pd.Series | np.ndarray, pos: int, frame: pd.DataFrame
) -> tuple[str, str]:
    """What to add to "is empty" for the cell at ``pos``: ``" (spaces only)"`` where it
    holds spaces; where it is missing in a ``frame`` bacon did not read (Python's, not
    :func:`~bacon_bayes.io.read_table`'s, which keeps such names), a closing sentence:
    pandas reads the names NA, N/A, null, nan as missing, and how to keep them."""
    v = np.asarray(values, dtype=object)[pos]
    if isinstance(v, str):
        return (" (spaces only)" if v else ""), ""
    if "kept words" in frame.attrs:
        return "", ""
    return "", (
        " (if it held a name such as NA, N/A, null or nan: pandas.read_csv reads those as "
        "missing; read the file with keep_default_na=False to keep them as names)"
    )


def numeric_column(
    series: pd.Series, role: str, rows: Rows, notes: list[str] | None = None
) -> np.ndarray:
    """Convert to float (words as the readers take them, :func:`bacon_bayes.words.as_numbers`:
    ``yes`` / ``no`` as 1 / 0; blank strings and the words of ``MISSING_WORDS``, ``-``,
    ``n/a``, as empty cells, as ``bacon estimate`` reads them, said in ``notes``); any
    other stops with its row."""
    values = as_numbers(series).to_numpy(dtype=float)
    bad = unread(values, series)
    if bad.any() and (gone := bad & says_missing(series).to_numpy()).any():
        bad &= ~gone
        shown = ", ".join(repr(w) for w in pd.unique(series[gone])[:3])
        if notes is not None:
            notes.append(f"{role} column {series.name!r}: {shown} read as empty cells "
                         f"({int(gone.sum())} of them), as bacon estimate reads them")  # fmt: skip
    if bad.any():
        pos = int(np.argmax(bad))
        if (packed := packed_cells(series, str(series.name))) is not None:  # '{"score": 5}'
            what = packed.removeprefix(PACKED)
            raise ValidationError(
                f"{role} column {series.name!r} holds {PACKED} (every filled cell, the first "
                f"at {rows(pos)}){what}."
            )
        if (letters := letters_fix(series)) is not None:  # 'A' ... 'E'
            raise ValidationError(f"{role} column {series.name!r} {letters}.")
        if (levels := word_levels(series)) is not None:  # 'Partially' beside 'Yes' / 'No'
            raise ValidationError(
                f"{role} column {series.name!r} holds {levels[0]}, {series.iloc[pos]!r} at "
                f"{rows(pos)} among them: {levels[1]}, and run again."
            )
        raise ValidationError(
            f"{role} column {series.name!r} has a non-numeric value {series.iloc[pos]!r} at "
            f"{rows(pos)}. {cell_fix(series.iloc[pos])}"
        )
    return values


def _too_large(values: np.ndarray) -> tuple[int, str, str] | None:
    """The first of ``values`` beyond :data:`MAX_ABS`: its position, what it is and
    what to do (None for none)."""
    big = np.abs(values) > MAX_ABS
    if not big.any():
        return None
    pos = int(np.argmax(big))
    if np.isinf(values[pos]):
        return pos, "infinite", "use a finite value"
    fix = f"rescale the column (beyond +-{MAX_ABS:g}, squares and sums overflow floats)"
    return pos, f"{float(values[pos]):g}", fix


def check_labels(y: np.ndarray, spec: OutcomeSpec, rows: Rows, label: str) -> None:
    lab = ~np.isnan(y)
    bad = _too_large(y)
    if bad is not None:
        pos, what, fix = bad
        raise ValidationError(
            f"label column {label!r} is {what} at {rows(pos)}; "
            f"{fix}, or leave it empty (unlabeled)."
        )
    if spec.kind == "nonnegative" and (y[lab] < 0).any():
        pos = int(np.flatnonzero(lab & (np.nan_to_num(y) < 0))[0])
        raise ValidationError(
            f"label column {label!r} is {float(y[pos])!r} at {rows(pos)}, but a "
            "nonnegative outcome must be >= 0 (e.g. an error count); negate scores such as "
            "-MQM first."
        )
    if spec.levels is not None:
        ok = np.isin(y, spec.levels) | ~lab
        if not ok.all():
            pos = int(np.argmax(~ok))
            raise ValidationError(
                f"label column {label!r} is {float(y[pos])!r} at {rows(pos)}, which is "
                f"not one of the levels {list(spec.levels)}; fix the label, round it to a level, "
                "or declare the outcome continuous."
            )


def check_infinite(long: pd.DataFrame, rows: Rows) -> None:
    scores = long["score"].to_numpy(dtype=float)
    bad = _too_large(scores)
    if bad is not None:
        k, what, fix = bad
        score = "an infinite score" if what == "infinite" else f"a score of {what}"
        raise ValidationError(
            f"judge {long['judge'].iloc[k]!r} has {score} at "
            f"{rows(int(long['pos'].iloc[k]))}; {fix}, or leave it empty."
        )


def check_propensity(pi: np.ndarray, labeled: np.ndarray, rows: Rows, col: str) -> None:
    bad = labeled & ~((pi > 0) & (pi <= 1))
    if bad.any():
        pos = int(np.argmax(bad))
        raise ValidationError(
            f"propensity column {col!r} is {float(pi[pos])!r} at {rows(pos)}; an "
            "inclusion probability must lie in (0, 1] for every labeled item. Record the "
            "probability the sampling design gave that item."
        )
    bad = ~labeled & ~np.isnan(pi) & ~((pi > 0) & (pi <= 1))
    if bad.any():
        pos = int(np.argmax(bad))
        raise ValidationError(
            f"propensity column {col!r} is {float(pi[pos])!r} at {rows(pos)}; it must "
            "lie in (0, 1] (or be empty for an unlabeled item)."
        )


def embedding_matrix(df: pd.DataFrame, embedding: Sequence[str] | str, rows: Rows) -> np.ndarray:
    if isinstance(embedding, str):
        cols = [c for c in df.columns if str(c).startswith(embedding)]
        if not cols:
            raise ValidationError(
                f"no column starts with the embedding prefix {embedding!r}; pass the prefix "
                "of the embedding columns or a list of their names."
            )
    else:
        cols = list(embedding)
        for c in cols:
            need_column(df, c, "embedding")
    emb = np.column_stack([numeric_column(df[c], "embedding", rows) for c in cols])
    bad = ~np.isfinite(emb)
    if bad.any():
        pos, k = np.argwhere(bad)[0]
        raise ValidationError(
            f"embedding column {cols[k]!r} is missing or not finite at {rows(pos)}; "
            "every item needs a complete embedding (re-embed it or drop the embedding)."
        )
    return emb


def long_item_column(df: pd.DataFrame, long: pd.DataFrame) -> str | None:
    """The id column of ``df`` that a long judge table's ``item`` names, without
    ``--item``: the one :func:`~bacon_bayes.io.item_column` finds when it holds every
    scored item (``bacon judge``'s table of an items file keyed by ``item``), else None
    (the table's rows, by number).

    Parameters
    ----------
    df : pandas.DataFrame
        The pool's table.
    long : pandas.DataFrame
        The long judge table, with an ``item`` column.

    Returns
    -------
    str or None
        The column's name, or None.
    """
    from bacon_bayes.io import item_column

    column = item_column(df)
    if column is None or "item" not in long.columns:
        return None
    named = pd.Index(id_text(df[column]))
    return column if (named.get_indexer(id_text(long["item"])) >= 0).all() else None


def long_from_table(long: pd.DataFrame, ids: np.ndarray, notes: list[str]) -> pd.DataFrame:
    """Validate a long judge table and map its item ids to pool positions."""
    for col in LONG_COLUMNS:
        if col not in long.columns:
            raise ValidationError(
                f"long judge table needs column {col!r}.{suggest(col, long.columns)} "
                "Its columns must include item, judge, score (optional run, entropy, perplexity)."
            )
    pos = pd.Index(ids).get_indexer(long["item"].to_numpy())
    # ids as text in one table and numbers in the other ('0', 0): one id
    if (pos < 0).any() and (text := pd.Index(id_text(pd.Series(ids)))).is_unique:
        pos = text.get_indexer(id_text(long["item"]))
    if (pos < 0).any():
        k = int(np.argmax(pos < 0))
        raise ValidationError(
            f"long judge table {_row(long, k)} refers to item "
            f"{python_scalar(long['item'].iloc[k])!r}, which is not in the pool; remove the "
            "row or add the item."
        )
    ids_arr = np.asarray(ids)
    score = numeric_column(long["score"].rename("score"), "long-table", Rows(ids_arr[pos]))
    out = pd.DataFrame(
        {
            "pos": pos,
            "judge": long["judge"].astype(str).to_numpy(),
            "run": long["run"].to_numpy() if "run" in long.columns else 0,
            "score": score,
        }
    )
    for col in UNCERTAINTY_COLUMNS:
        if col in long.columns:
            out[col] = pd.to_numeric(long[col], errors="coerce").to_numpy(dtype=float)
    dup = out.duplicated(["pos", "judge", "run"])
    if dup.any():
        k = int(np.argmax(dup.to_numpy()))
        key = out.iloc[k][["pos", "judge", "run"]]
        first = int(np.argmax((out[["pos", "judge", "run"]] == key).all(axis=1).to_numpy()))
        more = int(dup.sum()) - 1
        also = f" (and {more} more repeated row{'s' * (more > 1)})" if more else ""
        raise ValidationError(
            f"long judge table {_row(long, k)} repeats {_row(long, first)}: item "
            f"{python_scalar(long['item'].iloc[k])!r}, judge {out['judge'].iloc[k]!r}, run "
            f"{python_scalar(out['run'].iloc[k])!r}{also}; "
            "give repeated runs distinct run numbers or drop the duplicates "
            "(judges.drop_duplicates(['item', 'judge']))."
        )
    # unparseable/failed calls arrive as NaN scores: they are missing scores, counted later
    for j, sub in out.groupby("judge", sort=False):
        if sub["score"].isna().all():
            raise ValidationError(
                f"judge {j!r} has no parseable score in the long table; drop it or re-run it."
            )
    n_na = int(out["score"].isna().sum())
    if n_na:
        notes.append(
            f"{n_na} judge score(s) in the long table are NA (failed or unparseable calls); "
            "they count as missing scores."
        )
    return out[out["score"].notna()].reset_index(drop=True)


def _row(table: pd.DataFrame, k: int) -> str:
    """Row ``k`` (a position) of a user's table as they find it: ``row 5`` under a plain
    index, else its position and index label (``row 5100 by position (index 21800)``)."""
    return _place(table.index, k)


def _place(index: pd.Index, k: int) -> str:
    if index.equals(pd.RangeIndex(len(index))):
        return f"row {k}"
    return f"row {k} by position (index {python_scalar(index[k])!r})"
