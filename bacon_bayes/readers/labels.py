"""``--labels FILE``: human labels kept apart from the scores, joined onto the table by id."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import RepeatedIdError, ValidationError
from bacon_bayes.io import item_name, plural_places, read_table, row_place
from bacon_bayes.outputs import unused_name
from bacon_bayes.readers import one_hot
from bacon_bayes.readers.jsonl import is_json_lines, json_records, read_jsonl
from bacon_bayes.readers.labelling import read_export
from bacon_bayes.readers.labels_unused import table_stem, unused_note
from bacon_bayes.readers.pairwise import _majority, to_verdict
from bacon_bayes.readers.phoenix import human_labels
from bacon_bayes.readers.surveys import refuse_labels
from bacon_bayes.words import as_numbers, bools_as_floats, id_text


def _few(values: list[str], n: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:n])
    return shown + (f" and {len(values) - n} more" if len(values) > n else "")


def read_labels(path: str | Path) -> pd.DataFrame:
    """The labels file ``path``: JSON Lines (``.jsonl``, ``.ndjson``, or any file of one
    object per line), a JSON array of records (``.json``), else CSV or Parquet; a JSON
    file's cells read as a table's (:func:`~bacon_bayes.words.bools_as_floats`); Arize
    Phoenix's annotations as their HUMAN rows' labels
    (:func:`~bacon_bayes.readers.phoenix.human_labels`)."""
    if str(path).lower().endswith((".jsonl", ".ndjson")) or is_json_lines(path):
        frame = read_jsonl(path)[0]
    elif str(path).lower().endswith(".json") and Path(path).is_file():
        form = 'write the labels as [{"id": ..., "label": ...}, ...] (one object per item)'
        frame = json_labels(Path(path), form + ", or JSON Lines")
    else:  # Phoenix's annotations: the HUMAN rows' labels
        return human_labels(read_table(path), path)
    # as a table's cells: true / false as 1 / 0, "N/A" and "-" as no label, said
    frame = bools_as_floats(frame, numbers=True, ids=[c for c in frame.columns if item_name(c)])
    return human_labels(frame, path)


def json_labels(path: Path, form: str) -> pd.DataFrame:
    """A JSON labels file as a table: a labelling tool's export read as such (Label
    Studio's, Argilla's: its labels, not the predictions it holds too), else its records
    (a list of objects, a W&B or pandas table); ``form`` ends a refusal."""
    records = json_records(path, form, columns=True)
    export = read_export(records, str(path))
    if export is None:
        return pd.DataFrame.from_records(records)
    frame = export[0].drop(columns=export[1].judges)
    frame.attrs["left out"] = [n for n in export[1].notes if "left out" in n]  # said at --label
    return frame


def _folded(name: Any) -> str:
    return str(name).strip().casefold()


def _named(columns: Sequence[Any], name: str) -> list[Any]:
    """The columns called ``name``: itself, else those that differ from it only by case or
    spaces around the name (``ID`` for ``id``)."""
    if name in columns:
        return [name]
    return [c for c in columns if _folded(c) == _folded(name)]


def _holding(frame: pd.DataFrame, ids: pd.Series, among: Sequence[Any] | None = None) -> list[str]:
    """The columns of ``frame`` (of ``among``) that name each row once and hold every id
    of ``ids`` (compared as text): where a labels file's id column of another name points."""
    wanted = set(id_text(ids.dropna()))
    if not wanted:
        return []
    found = []
    for c in frame.columns if among is None else among:
        column = frame[c]
        if isinstance(column, pd.Series) and column.notna().all() and column.is_unique:
            if wanted <= set(id_text(column)):
                found.append(str(c))
    return found


def _other_id(labels: pd.DataFrame, label: str) -> Any:
    """The labels file's one column besides ``label`` (None when it has several)."""
    rest = [c for c in labels.columns if c != label]
    return rest[0] if len(rest) == 1 else None


def _key_pairs(frame: pd.DataFrame, labels: pd.DataFrame, label: str) -> dict[Any, Any]:
    """The labels file's columns (not ``label``) that name a column of the table, each with
    that column: the same name, else the one name that differs from it only by case,
    else (a text or whole-number column) the one table column that holds every value of
    it (``QID`` for ``question_id``)."""
    pairs: dict[Any, Any] = {}
    for c in labels.columns:
        if c == label:
            continue
        named = _named(list(frame.columns), str(c))
        if len(named) == 1:
            pairs[c] = named[0]
    for c in labels.columns:
        if c == label or c in pairs or labels[c].dtype.kind == "f":
            continue
        wanted = set(id_text(labels[c].dropna()))
        held = [
            t
            for t in frame.columns
            if t not in pairs.values()
            and frame[t].dtype.kind != "f"
            and wanted
            and wanted <= set(id_text(frame[t].dropna()))
        ]
        if len(held) == 1:
            pairs[c] = held[0]
    return pairs


def _unique(column: pd.Series) -> bool:
    return isinstance(column, pd.Series) and bool(column.notna().all()) and column.is_unique


def key_column(
    frame: pd.DataFrame,
    labels: pd.DataFrame,
    item: str | None,
    label: str,
    paths: tuple[str | Path, str | Path] | None = None,
) -> str:
    """The id column the labels are joined on: ``item`` (``--item`` or the reader's id),
    else the column of the table a column of the labels file names (by name, else by the
    name but for case: ``ID`` in one file, ``id`` in the other, else by holding its values:
    ``item`` in the labels file, ``Item ID`` in the table), the one of them whose every
    value names one row of the table when it names several (``id`` beside ``system``).

    Raises
    ------
    ValidationError
        No such column, or several that key the rows together (a question and a model):
        the error gives the line that writes both files (``paths``: the table's, the labels
        file's) with one id column made of them, and what to pass then."""
    if item is not None:
        return item
    pairs = _key_pairs(frame, labels, label)
    ids = [t for t in pairs.values() if _unique(frame[t])]
    if len(ids) == 1 or len(pairs) == 1:
        return str(ids[0] if len(ids) == 1 else next(iter(pairs.values())))
    if len(pairs) > 1:
        raise ValidationError(_composite_key(frame, labels, pairs, label, paths))
    raise ValidationError(
        "cannot tell which column joins the labels file to the table (columns in both: none; "
        f"the labels file's: {', '.join(map(str, labels.columns[:12]))}); pass --item COLUMN, "
        "the table's id column, and give the labels file's id column that name."
    )


def _composite_key(
    frame: pd.DataFrame,
    labels: pd.DataFrame,
    pairs: dict[Any, Any],
    label: str,
    paths: tuple[str | Path, str | Path] | None,
) -> str:
    """The refusal of a labels file keyed by several columns together (``pairs``: its
    columns, each with the table's): rows of the table that repeat the key named (copies of
    another row dropped by the line), and the line that writes both files with one id
    column made of the key, with the command to run then."""
    from bacon_bayes.csv_format import pandas_command, pandas_read

    theirs, ours = list(pairs), list(pairs.values())
    named = ", ".join(map(str, theirs))
    same = theirs == ours
    both = named if same else f"{named} (the table's {', '.join(map(str, ours))})"
    said = f"the labels file's rows are keyed by {both} together, not by one column"
    repeats = frame.duplicated(ours, keep=False).to_numpy()
    copies = frame.duplicated().to_numpy()
    differ = repeats & ~frame.duplicated(keep=False).to_numpy()
    if copies.any():
        rows = copies.nonzero()[0]
        said += (
            f"; {rows.size} row(s) of the table are copies of another row "
            f"({_places(frame, rows[:5])}): each would count as an item, the line drops them"
        )
    if differ.any():
        rows = differ.nonzero()[0]
        return (
            f"{said}; the table has several different rows of one "
            f"{' and '.join(map(str, ours))} ({_places(frame, rows[:5])}): keep one row per "
            "item (or add the column that tells them apart to both files), then run again."
        )
    taken = {str(c) for c in (*frame.columns, *labels.columns)}
    new = next(n for n in ("item", "item_id", "key", "row_key") if n not in taken)
    if paths is None or not all(_tabular(p) for p in paths):
        line = f"df.insert(0, {new!r}, df[COLUMNS].astype(str).agg('|'.join, axis=1))"
        return (
            f"{said}: give both files one id column of them (in pandas, on each file read "
            f"as df, COLUMNS the file's {named if same else 'key columns'}: {line}), and pass "
            f"--item {new}."
        )
    table, labels_path = (Path(p) for p in paths)
    outs = [unused_name(f"{p.name.split('.')[0]}_keyed") for p in (table, labels_path)]
    code = (
        "key = lambda df, cols: df[cols].astype(str).agg('|'.join, axis=1); "
        f"t = {pandas_read(table)}"
        + (".drop_duplicates()" if copies.any() else "")
        + f"; t.insert(0, {new!r}, key(t, {[str(c) for c in ours]!r})); "
        f"t.to_csv({outs[0]!r}, index=False); lab = {pandas_read(labels_path)}; "
        f"lab.insert(0, {new!r}, key(lab, {[str(c) for c in theirs]!r})); "
        f"lab.to_csv({outs[1]!r}, index=False)"
    )
    run = shlex.join(
        ["bacon", "doctor", outs[0], "--labels", outs[1], "--label", label, "--item", new]
    )
    line = pandas_command(code)
    return f"{said}: write both files with one id column {new!r} of them: {line}, then run: {run}"


def _tabular(path: str | Path) -> bool:
    """Whether ``path`` is a file pandas reads as :func:`~csv_format.pandas_read` writes."""
    name = str(path).lower()
    return Path(path).is_file() and name.endswith((".csv", ".csv.gz", ".tsv", ".parquet", ".txt"))


#: an id written as a whole number with a decimal point (``181.0``, what a column of
#: integer ids becomes through pandas with a missing value)
WHOLE = r"^([-+]?\d+)\.0*$"


def file_id_column(
    frame: pd.DataFrame, item: str, label: str, pool_ids: pd.Index, path: Path
) -> str:
    """A returned label file's id column (``bacon label import``): ``item``, else the
    one column named like it but for case or spaces (``ID``), else the one column (not
    the label's) whose every filled cell is one of the study's ids ``pool_ids``
    (``item``, ``segment``: a labeller's own header)."""
    named = _named(list(frame.columns), item)
    if len(named) == 1:
        return str(named[0])
    known = set(pd.Series(np.asarray(pool_ids), dtype=object).astype(str))
    holding = []
    for c in frame.columns:
        if c in (label, "label", "wave"):
            continue
        cells = frame[c].astype(str).str.strip()
        cells = cells[cells != ""]
        whole = cells.str.replace(WHOLE, r"\1", regex=True)  # 181.0 as 181
        if len(cells) and (cells.isin(known) | whole.isin(known)).all():
            holding.append(str(c))
    if len(holding) == 1 and not named:
        return holding[0]
    example = str(pool_ids[0]) if len(pool_ids) else ""
    which = (
        f"several columns hold them ({', '.join(map(repr, named or holding))})"
        if len(named or holding) > 1
        else f"no column holds the study's ids, such as {example!r}"
    )
    raise ValidationError(
        f"label file {path} has no id column {item!r} (columns: {list(frame.columns)}; "
        f"{which}); name the column of the study's ids {item!r} (rename its header cell) "
        "and import again"
    )


def _id_columns(
    frame: pd.DataFrame, labels: pd.DataFrame, key: str, name: str, label: str | None = None
) -> tuple[str, Any]:
    """The table's and the labels file's column of the id ``key``: each its column of that
    name, else the one whose name differs only by case (``ID`` and ``id``); in the labels
    file, else (``label`` given, ``key`` a column of the table) its one column besides
    ``label`` when every id in it is one of the table's column ``key``."""
    found = []
    other = _other_id(labels, label) if label is not None else None
    for where, table in (("labels file " + repr(name), labels), ("the table", frame)):
        hits = _named(list(table.columns), key)
        if not hits and table is labels and other is not None and key in frame.columns:
            hits = [other] if _holding(frame, labels[other], [key]) else []
        if not hits and table is labels and label is not None and key in frame.columns:
            hits = [c for c, t in _key_pairs(frame, labels, label).items() if t == key]
        if len(hits) != 1:
            cols = ", ".join(map(str, table.columns[:12]))
            why = (
                f"several columns named like it ({', '.join(map(repr, hits))})"
                if hits
                else (f"its columns: {cols}")
            )
            raise ValidationError(
                f"{where} has no id column {key!r} ({why}); pass --item with the table's "
                "id column and give the labels file's id column that name (e.g. rename its "
                "header cell)."
            )
        found.append(hits[0])
    return str(found[1]), found[0]


def label_column(
    frame: pd.DataFrame, path: str | Path, item: str | None, table: str | Path | None = None
) -> str:
    """The label column of the labels file ``path`` when ``--label`` is not given: its
    one column besides the id (``item``, else the columns the table has too), or besides
    the id and the columns the table has too (the key columns an id was made of), or its
    one column of numbers among them (beside a rater's name, notes).

    Raises
    ------
    ValidationError
        No such column, or several: the error lists the labels file's columns. A survey
        tool's export (:func:`~bacon_bayes.readers.surveys.refuse_labels`: the line that
        writes each item's mean, and the doctor to run on ``table``, the table's file).
    """
    refuse_labels(path, frame, item, table)
    labels = read_labels(path)
    if item is not None:
        keys = set(_named(list(labels.columns), item))
    else:  # the columns both files have, by name, else by the name but for case
        keys = {c for c in labels.columns if c in frame.columns} or {
            c for c in labels.columns if _folded(c) in {_folded(t) for t in frame.columns}
        }
    rest = [str(c) for c in labels.columns if c not in keys]
    if len(rest) > 1:  # the key columns an id was made of (system, seg_id) are the table's
        own = [c for c in rest if c not in frame.columns]
        rest = own if len(own) == 1 else rest
    if len(rest) == 2 and not keys:  # an id column of another name: the one holding ids
        among = None if item is None or item not in frame.columns else [item]
        ids = [c for c in rest if _holding(frame, labels[c], among)]
        rest = [c for c in rest if c not in ids] if len(ids) == 1 else rest
    if len(rest) > 1:  # beside a rater's name and notes: the one column of numbers
        numbers = [c for c in rest if _numbers_mostly(labels[c]) and not item_name(c)]
        rest = numbers if len(numbers) == 1 else rest
    if len(rest) == 1:
        return rest[0]
    if (answer := one_hot.batch_label(labels)) is not None:  # an MTurk batch's one answer
        return answer
    shown = ", ".join(map(str, labels.columns[:12]))
    more = f" and {len(labels.columns) - 12} more" if len(labels.columns) > 12 else ""
    why = "several columns besides the id" if rest else "no column besides the id"
    raise ValidationError(
        f"--labels needs --label, the labels file's label column: {str(path)!r} has {why} "
        f"(its columns: {shown}{more}); pass --label with one of them."
    )


def _numbers_mostly(column: pd.Series) -> bool:
    """Whether most filled cells of ``column`` read as numbers (verdict words too)."""
    filled = int(column.notna().sum())
    return filled > 0 and int(as_numbers(column).notna().sum()) * 2 > filled


def join_labels(
    frame: pd.DataFrame,
    path: str | Path,
    label: str,
    item: str | None,
    *,
    verdicts: bool = False,
    table: str | Path | None = None,
) -> tuple[pd.DataFrame, str]:
    """Join the labels of ``path`` onto ``frame`` by id.

    Parameters
    ----------
    frame : DataFrame
        The table of scores (one row per item).
    path : str or Path
        CSV, Parquet, JSON Lines or JSON (an array of records) file with the id column and
        the label column.
    label : str
        Name of the label column (``--label``); it becomes a column of the result, empty
        where an item has no label.
    item : str, optional
        The id column (``--item``, or the reader's); found by name when None.
    verdicts : bool
        The labels are votes on comparisons: ``A`` / ``B`` / ``tie`` (any spelling
        :func:`~bacon_bayes.readers.pairwise.to_verdict` reads, 1 / 0 / 0.5 too), joined
        as ``A`` / ``B`` / ``tie``; otherwise numbers.
    table : str or Path, optional
        The file ``frame`` was read from: a refusal of labels keyed by several columns
        together prints the line that writes both files with one id column.

    Returns
    -------
    frame : DataFrame
        A copy with the label column.
    item : str
        The id column used.

    Raises
    ------
    ValidationError
        A missing column, duplicate ids in the labels file (votes on comparisons: several
        votes on one comparison give the majority, ``tie`` where they split evenly; their
        number in ``attrs["several votes"]``), ids that are not in the table on rows with
        a label (the first few named; rows without one are left out, said in
        ``attrs["labels note"]``), a label column the table already has; a survey tool's
        export, one row per respondent (:func:`~bacon_bayes.readers.surveys.refuse_labels`).
    """
    refuse_labels(path, frame, item, table)
    labels = read_labels(path)
    read_as = labels.attrs.get("verdicts", {}).get(label)  # words read as numbers
    read_note = labels.attrs.get("read note", "")  # Phoenix's annotations: the HUMAN rows
    name = str(path)
    hot = one_hot.group_of(labels, label)  # Answer.relevance.1 ... .5: one rating
    if label not in labels.columns and hot is None:
        raise ValidationError(
            f"labels file {name!r} has no column {label!r} (its columns: "
            f"{', '.join(map(str, labels.columns[:12]))}); pass --label with its label column"
            + "".join(
                f"; {n}" for n in labels.attrs.get("left out", []) if n.startswith(repr(label))
            )
            + "."
        )
    paths = None if table is None else (table, path)
    key = key_column(frame, labels, item, label, paths)
    key, theirs = _id_columns(frame, labels, key, name, label)
    if hot is not None:
        raise ValidationError(
            f"labels file {name!r}: {one_hot.one_hot_line(path, labels, str(theirs), *hot)}."
        )
    joined_by = ""
    if theirs != key:  # the labels file's ID for the table's id
        if key in labels.columns:
            raise ValidationError(
                f"labels file {name!r} has columns {theirs!r} and {key!r}; keep one id column "
                f"named {key!r} as the table's."
            )
        labels = labels.rename(columns={theirs: key})
        if _folded(theirs) != _folded(key):  # not just another case: say which it took
            joined_by = (
                f"labels file {name!r}: joined by its column {str(theirs)!r} to the table's "
                f"{key!r} (every id of it is one of the table's)"
            )
    if label in frame.columns:
        raise ValidationError(
            f"the table already has a column {label!r}; name the labels file's label column "
            "differently (and pass that name as --label), or drop --labels."
        )
    _no_blank_ids(labels[key], f"labels file {name!r}: its id column {key!r}")
    _no_blank_ids(frame[key], f"the table's id column {key!r}")
    ids, table_ids = id_text(labels[key]), id_text(frame[key])
    dup = ids[ids.duplicated()].unique().tolist()
    several = 0
    if dup and verdicts:  # several votes on a comparison: the majority, as MT-Bench's
        votes = _votes(labels[label], name)
        labels = pd.DataFrame({key: ids.to_numpy(), label: votes.to_numpy()})
        labels = labels.groupby(key, sort=False)[label].agg(
            lambda v: _majority([x for x in v if isinstance(x, str)])
        )
        labels = labels.reset_index()
        ids, several, dup = labels[key], len(dup), []
    if dup:
        raise ValidationError(
            f"labels file {name!r}: ids {_few(dup)} appear more than once in column "
            f"{str(theirs)!r}; keep one label per item (average repeated labels first"
            f"{_mean_line(path, str(theirs), label, labels)})."
        )
    if table_ids.duplicated().any():
        first = table_ids[table_ids.duplicated()].iloc[0]
        rows = (table_ids == first).to_numpy().nonzero()[0][:3]
        raise RepeatedIdError(
            f"the table's id column {key!r} repeats {first!r} (at {_places(frame, rows)}); "
            "labels can only be joined on an id that names one row: keep one row per id."
        )
    values = _votes(labels[label], name) if verdicts else _numbers(labels[label], name)
    known = ids.isin(set(table_ids)).to_numpy()
    labeled = values.notna().to_numpy()
    unknown = ids[~known & labeled].tolist()  # a row without a label places nothing
    if unknown:
        near = near_ids(unknown, table_ids)
        if near and table is not None:  # the line that writes them so
            near += _matched_ids_line(table, key, path, str(theirs), table_ids)
        raise ValidationError(
            f"labels file {name!r}: {len(unknown)} ids are not in the table's column {key!r}: "
            f"{_few(unknown)}; "
            + (near or "check that the labels belong to this file")
            + " (ids are compared as text, 1.0 as 1)"
            + (
                f"; the other {int(labeled.sum()) - len(unknown)} labels' ids are there: if "
                "these items were taken out of the table, delete their rows from the labels "
                "file"
                if not near and len(unknown) <= 0.1 * labeled.sum()
                else ""
            )
            + "."
        )
    out = frame.copy()
    idle = ids[~known].tolist()  # an export of every task: rows of other tasks, none labeled
    notes = (
        read_note,
        joined_by,
        f"labels file {name!r}: {len(idle)} row(s) without a label have ids not in the "
        f"table's column {key!r} ({_few(idle, 3)}): left out" * bool(idle),
        ""
        if verdicts
        else unused_note(frame, labels, ids, table_ids, (key, theirs), label, (path, table)),
    )
    if said := "; ".join(n for n in notes if n):
        out.attrs["labels note"] = said
    pairs = zip(ids[known], values[known], strict=True)
    out[label] = table_ids.map(dict(pairs)).to_numpy()
    if several:
        out.attrs["several votes"] = several
    if verdicts and (kept := values.attrs.get("vote words")):
        out.attrs["vote words"] = kept
    if read_as:
        out.attrs["verdicts"] = {**frame.attrs.get("verdicts", {}), label: read_as}
    return out, key


#: how an id may be written otherwise than the table writes it, each with the form that
#: ignores it (the last ignores them all)
_ID_FORMS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("spaces around them", str.strip),
    ("case", str.casefold),
    ("leading zeros", lambda s: s.lstrip("0") or "0"),
    ("spaces, case and leading zeros", lambda s: s.strip().casefold().lstrip("0") or "0"),
)


def near_ids(
    unknown: list[str],
    table_ids: pd.Series,
    whose: str = "the labels file's",
    table: str = "the table",
) -> str:
    """What the ids not in the table have in common with the table's: that most match
    one but for spaces around them, case or leading zeros, with an example and the fix
    (``""`` when they do not). ``whose``: the file the ids were read from, ``table``: where
    the ids should be, as the message names them (also used by ``bacon label import``)."""
    for what, form in _ID_FORMS:
        known = {form(t): t for t in table_ids}
        found = [(u, known[form(u)]) for u in unknown if form(u) in known]
        if len(found) * 2 >= len(unknown):  # most of them: the way they are written
            every = "all" if len(found) == len(unknown) else f"{len(found)}"
            u, t = found[0]
            zeros = (
                " (a spreadsheet drops leading zeros of ids it reads as numbers: format the "
                "id column as text before saving, or restore the zeros)"
                if "zeros" in what and len(u.strip()) < len(t.strip())  # zeros lost
                else ""
            )
            return (
                f"{every} of them match an id of {table} but for {what} (e.g. {u!r} is "
                f"{t!r}): write {whose} ids as the table does{zeros}"
            )
    return ""


def _matched_ids_line(
    table: str | Path, key: str, path: str | Path, theirs: str, table_ids: pd.Series
) -> str:
    """The shell line that writes the labels file at ``path`` with each id of its column
    ``theirs`` written as the table's ``key`` column writes it (matched but for spaces,
    case and leading zeros) into ``<stem>_ids.csv``, and what to pass then; ``""`` where
    two of the table's ids match one way or a file is not a CSV or Parquet table."""
    from bacon_bayes.csv_format import pandas_command, pandas_read

    form = _ID_FORMS[-1][1]
    stem = table_stem(path)
    if table_ids.map(form).duplicated().any() or stem is None or table_stem(table) is None:
        return ""
    out = unused_name(f"{stem}_ids")
    fold = "lambda s: s.astype(str).str.strip().str.casefold().str.lstrip('0').replace('', '0')"
    line = pandas_command(
        f"f = {fold}; t = {pandas_read(table, text=True)}; lab = {pandas_read(path)}; "
        f"m = dict(zip(f(t[{key!r}]), t[{key!r}])); "
        f"lab[{theirs!r}] = f(lab[{theirs!r}]).map(m).fillna(lab[{theirs!r}]); "
        f"lab.to_csv({out!r}, index=False)"
    )
    return f": {line}, then pass --labels {shlex.quote(out)}"


def _mean_line(path: str | Path, key: str, label: str, labels: pd.DataFrame) -> str:
    """The shell line that writes the labels file at ``path`` (CSV or Parquet; read as
    ``labels``) with one row per id of its column ``key``, the mean of its ``label``
    values (several raters'; an MTurk batch's rejected assignments left out, said), into
    ``<stem>_mean.csv``, and what to pass then: ``""`` for another format."""
    from bacon_bayes.csv_format import pandas_command, pandas_read

    if (stem := table_stem(path)) is None:
        return ""
    out = unused_name(f"{stem}_mean")
    line = pandas_command(
        f"lab = {pandas_read(path)}; {one_hot.keep_code(labels)}"
        f"lab.groupby({key!r}, as_index=False)[{label!r}].mean().to_csv({out!r}, index=False)"
    )
    said = one_hot.rejected_note(labels)
    return f", e.g. each item's mean{said}: {line}, then pass --labels {shlex.quote(out)}"


def restore_zeros(
    unknown: pd.Series, table_ids: pd.Series, path: str | Path, column: str, study: str | Path
) -> str:
    """The line that writes the label file at ``path`` (CSV) with the leading zeros a
    spreadsheet took off its ids (its ``column``) put back, where every id of
    ``table_ids`` is digits of one width and each of ``unknown`` is one of them so, with
    the ``bacon label import`` into ``study`` to run then; ``""`` otherwise."""
    from bacon_bayes.csv_format import pandas_command, pandas_read

    ids, lost = table_ids.astype(str), unknown.astype(str).str.strip()
    width = int(ids.str.len().max()) if len(ids) else 0
    known = set(ids)
    if not ids.str.fullmatch(r"\d+").all() or ids.str.len().nunique() != 1 or lost.empty:
        return ""
    if not lost.str.fullmatch(r"\d+").all() or not lost.str.zfill(width).isin(known).all():
        return ""
    name = Path(path).name
    ending = next((e for e in (".csv", ".csv.gz", ".tsv") if name.lower().endswith(e)), "")
    if not ending:
        return ""
    out = unused_name(str(Path(path).with_name(f"{name[: -len(ending)]}_ids")))
    line = pandas_command(
        f"df = {pandas_read(path, text=True)}; df[{column!r}] = "
        f"df[{column!r}].str.strip().str.zfill({width}); df.to_csv({out!r}, index=False)"
    )
    return (
        f"; every id of the pool is {width} digits, so this line puts the zeros back: {line}, "
        f"then bacon label import {shlex.quote(out)} --study {shlex.quote(str(study))}"
    )


def _no_blank_ids(ids: pd.Series, what: str) -> None:
    """Refuse empty cells in a column of ids (``what``: whose), naming where they are."""
    blank = ids.isna().to_numpy().nonzero()[0]
    if blank.size:
        more = f" and {blank.size - 5} more" if blank.size > 5 else ""
        raise ValidationError(
            f"{what} is empty at {_places(ids, blank[:5])}{more} ({blank.size} of {ids.size} "
            "rows have no id); labels are joined by id: give every row its id."
        )


def _places(frame: pd.DataFrame | pd.Series, rows: Sequence[int]) -> str:
    """Where the ``rows`` (positions) of ``frame`` are: ``lines 7, 8`` (``rows``
    outside a CSV file; :func:`~bacon_bayes.io.row_place`)."""
    return plural_places(row_place(frame, int(r)) for r in rows)


def _numbers(column: pd.Series, name: str) -> pd.Series:
    """A labels file's labels as floats (True/False: 1/0); refuses any other value, named
    with its line."""
    values = pd.to_numeric(column, errors="coerce").astype(float)
    bad = column.notna() & values.isna()
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise ValidationError(
            f"labels file {name!r} {row_place(column, row)}: label {column.iloc[row]!r} is "
            "not a number; labels must be numbers (empty = unlabeled; votes on comparisons, "
            "A / B / tie, with --pairwise)."
        )
    return values


def _votes(column: pd.Series, name: str) -> pd.Series:
    """A labels file's votes on comparisons as ``A`` / ``B`` / ``tie`` (NaN: no vote);
    a word that is no verdict is kept as written (the winning model's name, read against
    the comparison's models once joined: ``readers.pair_table``); refuses any other
    value, named with its line."""
    out: list[object] = []
    kept: dict[str, str] = {}
    for row, value in enumerate(column.tolist()):
        where = f"labels file {name!r} {row_place(column, row)}"
        try:
            out.append(to_verdict(value, where))
        except ValidationError:
            if not isinstance(value, str) or not value.strip():
                raise
            out.append(value.strip())
            kept.setdefault(value.strip(), where)  # where each such word is first
    votes = pd.Series(out, index=column.index, dtype=object)
    votes.attrs["vote words"] = kept
    return votes
