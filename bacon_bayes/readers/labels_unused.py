"""What a ``--labels`` file holds besides its ids and its labels: the columns the join
leaves unused, said (never dropped silently), a column the table has too whose values
differ on the joined ids (the table's are used), and the line that merges numeric columns
that look like judge scores into the table."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.outputs import unused_name
from bacon_bayes.words import as_numbers

#: the endings of a CSV or Parquet file, which pandas reads as bacon does
TABLE_ENDINGS = (".csv", ".csv.gz", ".tsv", ".parquet")
#: a column named like an id, a row number, a time or a date: no judge scores
_NOT_SCORES = re.compile(
    r"(^|[_ .-])(id|ids|idx|index|no|nr|row|time|seconds|secs|ms|duration|date|timestamp)$"
    r"|^unnamed|^(id|item|index)$",
    re.IGNORECASE,
)
#: a column named like people's ratings: another label, not a judge
_RATING = re.compile(r"human|label|gold|expert|rating|annot|rater|turker|crowd", re.IGNORECASE)
#: columns named at most in a note
SHOWN = 6


def table_stem(path: str | Path) -> str | None:
    """The name of the file at ``path`` without its ending, for a CSV or Parquet file
    (:data:`TABLE_ENDINGS`, any case); None for another format."""
    name = Path(path).name
    ending = next((e for e in TABLE_ENDINGS if name.lower().endswith(e)), None)
    return None if ending is None else name[: len(name) - len(ending)]


def _names(columns: list[Any]) -> str:
    shown = ", ".join(repr(str(c)) for c in columns[:SHOWN])
    return shown + (f" and {len(columns) - SHOWN} more" if len(columns) > SHOWN else "")


def _cell(value: Any) -> Any:
    """A cell as Python writes it (``3``, not ``np.int64(3)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _differ(theirs: pd.Series, ours: pd.Series) -> np.ndarray:
    """Where two columns of values (aligned by position) differ: as numbers where both
    are, else as text (spaces around ignored); two empty cells agree."""
    a, b = theirs.reset_index(drop=True), ours.reset_index(drop=True)
    empty = a.isna().to_numpy() & b.isna().to_numpy()
    x, y = pd.to_numeric(a, errors="coerce"), pd.to_numeric(b, errors="coerce")
    if x.notna().sum() == a.notna().sum() and y.notna().sum() == b.notna().sum():
        same = np.isclose(x.to_numpy(dtype=float), y.to_numpy(dtype=float), equal_nan=True)
    else:
        same = (a.astype(str).str.strip() == b.astype(str).str.strip()).to_numpy()
    return ~(same | empty)


def _scores(column: pd.Series, name: str) -> bool:
    """Whether a labels file's unused column looks like judge scores: most filled cells
    numbers, two values at least, not named like an id, a time or a rating."""
    if _NOT_SCORES.search(name) or _RATING.search(name):
        return False
    values = as_numbers(column)
    filled = int(column.notna().sum())
    return filled > 0 and 2 * int(values.notna().sum()) > filled and values.nunique() >= 2


def unused_note(
    frame: pd.DataFrame,
    labels: pd.DataFrame,
    ids: pd.Series,
    table_ids: pd.Series,
    keys: tuple[str, Any],
    label: str,
    paths: tuple[str | Path, str | Path | None],
) -> str:
    """What the join of ``labels`` (the labels file, its id column renamed to the table's)
    onto ``frame`` leaves out, in one note (``""``: nothing).

    Parameters
    ----------
    frame : DataFrame
        The table.
    labels : DataFrame
        The labels file, its id column named ``keys[0]``.
    ids, table_ids : Series
        The labels file's ids and the table's, as text (the table's unique).
    keys : tuple
        The table's id column and the labels file's, as written in its file.
    label : str
        The label column joined.
    paths : tuple
        The labels file's path and the table's (None: not a file).

    Returns
    -------
    str
        The labels file's columns not used; a column the table has too whose values
        differ on the joined ids, with how many and that the table's are used; numeric
        columns that look like judge scores, with the line that merges them into the table
        and the doctor to run on it (a CSV or Parquet table and labels file), else how.
    """
    key, theirs = keys
    path, table = paths
    rest = [c for c in labels.columns if c not in (key, label)]
    if not rest:
        return ""
    known = ids.isin(set(table_ids)).to_numpy()
    where = pd.Series(np.arange(len(frame)), index=table_ids.to_numpy())
    rows = where.reindex(ids[known].to_numpy()).to_numpy()
    unused = [c for c in rest if c not in frame.columns]
    said = []
    if unused:
        said.append(f"its column(s) {_names(unused)} not used (only {label!r} is joined)")
    for c in (c for c in rest if c in frame.columns):
        differ = _differ(labels[c][known], frame[c].iloc[rows])
        if differ.any():
            first = int(differ.nonzero()[0][0])
            here, there = (
                _cell(s.iloc[i]) for s, i in ((labels[c][known], first), (frame[c], rows[first]))
            )
            said.append(
                f"{str(c)!r} differs from the table's on {int(differ.sum())} of {known.sum()} "
                f"joined ids (e.g. {ids[known].iloc[first]!r}: {here!r} in the labels file, "
                f"{there!r} in the table): the table's {str(c)!r} is used"
            )
    judges = [str(c) for c in unused if _scores(labels[c], str(c))]
    if judges:
        k = int(known.sum())
        cover = f" on {k} of the table's {len(frame)} items" * (k < len(frame))
        said.append(_merge(judges, key, str(theirs), label, path, table, cover))
    return f"labels file {str(path)!r}: " + "; ".join(said) if said else ""


def _merge(
    judges: list[str],
    key: str,
    theirs: str,
    label: str,
    path: str | Path,
    table: Any,
    cover: str,
) -> str:
    """How to use a labels file's ``judges`` (numeric columns) as judges: the shell line
    that merges them into the table by id (its ``key``, the labels file's ``theirs``) and
    the doctor to run on the file it writes, where both are CSV or Parquet files;
    ``cover``: on how many items."""
    from bacon_bayes.csv_format import pandas_command, pandas_read

    one = len(judges) == 1
    what = f"{_names(judges)} hold{'s' * one} numbers{cover} (judge scores?): to use "
    what += "it as a judge" if one else "them as judges"
    stem = None if table is None else table_stem(table)
    if stem is None or table_stem(path) is None:
        return f"{what}, add {'it' if one else 'them'} to the table by its id {key!r}"
    out = unused_name(f"{stem}_merged")
    rename = f".rename(columns={{{theirs!r}: {key!r}}})" if theirs != key else ""
    line = pandas_command(
        f"t = {pandas_read(table, text=True)}; lab = {pandas_read(path, text=True)}; "
        f"t.merge(lab[{[theirs, *judges]!r}]{rename}, on={key!r}, how='left')"
        f".to_csv({out!r}, index=False)"
    )
    run = shlex.join(
        ["bacon", "doctor", out, "--labels", str(path), "--label", label, "--item", key]
    )
    return f"{what}, merge {'it' if one else 'them'} into the table: {line}, then {run}"
