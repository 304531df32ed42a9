"""Rows of a table that are not one item each: a spreadsheet's summary rows at its end
(``Total``, ``mean``), ids that repeat (one row per annotator, rows pasted twice), and a
long table's rows (one per item and judge), with the recipe that pivots it. ``bacon
doctor`` names them, where they are and the fix, and prints no command that would take
them for items."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bacon_bayes.doctor.cells import _where as where_is
from bacon_bayes.doctor.cells import is_str
from bacon_bayes.doctor.names import ID_LIKE, ID_NAMES, JUDGE_NAME
from bacon_bayes.io import item_name, plural_places

if TYPE_CHECKING:
    from bacon_bayes.doctor.roles import Roles

#: the words a spreadsheet's summary row starts with (any case, a trailing colon ignored)
SUMMARY_WORDS = frozenset(
    {"total", "totals", "grand total", "subtotal", "sum", "mean", "means", "average", "avg"}
    | {"median", "std", "sd", "stdev", "min", "max", "count", "overall"}
)
#: summary rows are looked for among the table's last this many rows
SUMMARY_TAIL = 5
#: a column named like an id repeats a few ids (not a category) when at least this share
#: of its values are distinct
MOSTLY_DISTINCT = 0.5
#: the repeated ids :func:`repeated_ids` names
SHOWN_IDS = 3
#: a long table's key holds the items with a few rows repeated when at most this share
#: of its rows repeat an item and judge (:func:`pivot_recipe`)
REPEATED_SHARE = 0.05
#: the most judges a long table's judge column holds (:func:`long_table`)
LONG_JUDGES = 50


def _summary_word(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    word = value.strip().rstrip(":").strip().casefold()
    return value.strip() if word in SUMMARY_WORDS else None


def summary_rows(frame: pd.DataFrame, kind: str, command: bool = False) -> tuple[int, str]:
    """The table's trailing summary rows: rows among its last :data:`SUMMARY_TAIL` with a
    cell that is a summary word (``Total``, ``mean``) in a string column that has no such
    word on its other rows. Returns how many rows precede them (``len(frame)`` when there
    are none) and what to say (where they are and the fix; ``""`` for none): doctor's,
    or with ``command`` a command's refusal."""
    tail = frame.tail(SUMMARY_TAIL)
    found: dict[int, str] = {}
    for c in frame.columns:
        if not is_str(frame[c]):
            continue
        words = [_summary_word(v) for v in frame[c].tolist()]
        if sum(w is not None for w in words) > SUMMARY_TAIL:
            continue  # a column of such words is data (a statistic's name), not a footer
        for pos in range(len(frame) - len(tail), len(frame)):
            if (word := words[pos]) is not None:
                found.setdefault(pos, f"{word!r} in {c}")
    first = len(frame)
    while first - 1 in found:  # the summary rows end the table
        first -= 1
    if first == len(frame):
        return len(frame), ""
    places = lines(frame, list(frame.index[first:]), kind)
    rows = range(first, len(frame))
    said = "; ".join(found[k] for k in rows)
    them = "them" if len(rows) > 1 else "it"
    what = (
        f"{places} look{'s' if len(rows) == 1 else ''} like a spreadsheet's summary "
        f"row{'s' if len(rows) > 1 else ''} ({said}), not items"
    )
    if command:
        they = "they" if len(rows) > 1 else "it"
        return first, f"{what}: {they} would be read as items; delete {them} from the file."
    return first, (
        f"{what}: the profile leaves {them} out, bacon estimate would take {them} for "
        f"items; delete {them} from the file, and run doctor again for the command"
    )


def lines(frame: pd.DataFrame, rows: list[object], kind: str) -> str:
    """Where the ``rows`` (index labels) of ``frame`` are: ``lines 6, 7`` (``rows 6, 7``
    outside a CSV file)."""
    return plural_places(where_is(frame, r, kind) for r in rows)


def without_summary(frame: pd.DataFrame, kind: str) -> tuple[pd.DataFrame, str]:
    """``frame`` without its trailing summary rows (:func:`summary_rows`), columns they
    made strings read as numbers again (as the file would read without them), and what
    to say of them (``""`` for none)."""
    keep, said = summary_rows(frame, kind)
    if not said:
        return frame, ""
    out = frame.iloc[:keep].copy()
    for c in out.columns:
        if is_str(out[c]):
            num = pd.to_numeric(out[c], errors="coerce")
            if num.notna().sum() == out[c].notna().sum() > 0:
                out[c] = num
    return out, said


def id_with_repeats(frame: pd.DataFrame, taken: set[str]) -> str | None:
    """A column named like an id (:data:`ID_NAMES`) whose values are mostly distinct but
    some repeat or some cells are empty (None: none): the items' id, with rows repeated
    or without an id."""
    for c in map(str, frame.columns):
        s = frame[c]
        if c.lower() not in ID_NAMES or c in taken or (s.notna().all() and s.is_unique):
            continue
        if s.nunique() >= MOSTLY_DISTINCT * len(s):
            return c
    return None


def check_ids(frame: pd.DataFrame, roles: Roles, kind: str) -> str:
    """Take a column named like an id whose ids repeat for the id (none was found, as
    none is unique), or check the id taken: when ids repeat (and the table is not long),
    its reason says which and where, a rater column is named, and the fix is returned
    (``""`` when every id is once). A repeated id must not pass for a judge or be left
    out of the printed command, which then takes every row for an item."""
    if roles.long:
        return ""
    item = roles.item
    if item is None:
        taken = {roles.label, roles.group, roles.prompt, *roles.text}
        item = id_with_repeats(frame, {c for c in taken if c})
    if item is None or (frame[item].notna().all() and frame[item].is_unique):
        return ""
    what, fix, rater = repeated_ids(frame, item, roles.label, roles.judges, kind)
    blank = list(frame.index[frame[item].isna()])
    trouble = "repeat"
    if blank:  # the ids of the other rows checked all the same
        more = f" and {len(blank) - SHOWN_IDS} more" if len(blank) > SHOWN_IDS else ""
        said = f"{len(blank)} row(s) have no id ({lines(frame, blank[:SHOWN_IDS], kind)}{more})"
        repeats = what.removeprefix("named like an id, but ")
        what = f"named like an id, but {said}" + (f"; {repeats}" if repeats else "")
        trouble = "are missing on some rows" + (" and repeat" if repeats else "")
        fix = ": give every row its id" + (f";{fix[1:]}" if fix else ", and run doctor again")
    roles.item = item
    roles.reasons["id"] = what
    roles.left_out.pop(item, None)
    if item in roles.judges:
        roles.judges.remove(item)
        roles.reasons.pop(f"judge:{item}", None)
    if rater is not None:
        roles.left_out[rater] = f"names the rater of each row of an item (the {item} repeats)"
    return f"the ids of {item!r} {trouble} (see the id row above){fix}"


def repeated_ids(
    frame: pd.DataFrame, item: str, label: str | None, judges: list[str], kind: str
) -> tuple[str, str, str | None]:
    """What to say of the ids of ``frame[item]`` that occur on several rows: how many,
    the first few with their lines, those whose ``label`` differs between their rows; the
    fix (average the ratings per item when a column names the rater of each row, else
    keep one row per id); and that rater column (None: none)."""
    s = frame[item]
    ids = list(dict.fromkeys(s[s.notna() & s.duplicated(keep=False)].tolist()))  # not np.int64
    if not ids:  # empty cells only (:func:`check_ids` says where)
        return "", "", None
    shown = [f"{v!r} at {lines(frame, list(s.index[s == v][:3]), kind)}" for v in ids[:SHOWN_IDS]]
    more = f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else ""
    most = int(s.value_counts().max())
    text = (
        f"named like an id, but {len(ids)} ids occur on several rows (up to {most}): "
        f"{'; '.join(shown)}{more}"
    )
    rows = frame[s.isin(ids)]
    clash = pd.Series(dtype=float)
    if label is not None:
        labels = rows.groupby(item, sort=False)[label].nunique()
        clash = labels[labels > 1]
        if len(clash):
            one = clash.index.tolist()[0]
            first = rows.loc[rows[item] == one, label].dropna().unique()
            text += (
                f"; {len(clash)} of them with different labels ({one!r}: "
                f"{' and '.join(f'{v:g}' for v in first)})"
            )
    same = bool(judges) and bool((rows.groupby(item)[judges].nunique() <= 1).all().all())
    rater = next(
        (
            str(c)
            for c in frame.columns
            if c not in (item, label) and is_str(frame[c]) and JUDGE_NAME.search(str(c))
            and (rows.groupby(item)[c].nunique() > 1).all()
        ),
        None,
    )  # fmt: skip
    if rater is not None and label is not None:
        fix = (
            f": one row per rater ({rater!r}){', the judges the same on each' if same else ''}"
            ". Average the ratings per item first, e.g. in pandas: cols = {c: 'first' for c "
            f"in df.columns if c not in ({item!r}, {rater!r})}}; cols[{label!r}] = 'mean'; "
            f"df = df.groupby({item!r}, as_index=False, sort=False).agg(cols); then run "
            "doctor on that table"
        )
    elif len(clash) or not rows.astype(str).duplicated(keep=False).all():
        fix = (
            ": bacon estimate refuses repeated ids (--item), or takes each row for an item "
            f"without it; settle {'the labels of ' if len(clash) else ''}each repeated id "
            f"and keep one row per id (e.g. df.drop_duplicates({item!r}) once they agree, "
            "or average the labels per id), and run doctor again"
        )
    else:
        fix = ": those rows repeat whole (pasted twice?): df.drop_duplicates(), and run again"
    return text, fix, rater


#: a column numbering a judge's repeated runs on an item (bacon judge's ``run``)
RUN_NAME = re.compile(r"^(runs?|epochs?|repeats?|trials?|run_id|sample_idx)$", re.IGNORECASE)


def scores_table(frame: pd.DataFrame, roles: Roles) -> bool:
    """Whether ``frame`` is the long item x judge x run table ``bacon judge`` writes
    (columns ``item``, ``judge``, ``run``, ``score``, one row per item, judge and run),
    which ``bacon estimate --scores`` reads beside the items table; if so, ``roles`` says
    so: ``long`` what to do, the item column, and every other column's part."""
    core = ["item", "judge", "run", "score"]
    if not set(core) <= set(map(str, frame.columns)):
        return False
    if frame.duplicated(core[:3]).any() or not frame["item"].duplicated().any():
        return False
    items, k, runs = (int(frame[c].nunique()) for c in core[:3])
    roles.item, roles.reasons["id"] = "item", f"the items bacon judge scored ({items})"
    roles.reasons["long"], roles.long_key = "judge", ["item"]
    roles.left_out = {str(c): "a column of bacon judge's table (below)" for c in frame.columns}
    for c in ("item", "judge"):
        del roles.left_out[c]
    roles.long = (
        f"the long item x judge x run table bacon judge writes ({items} items, {k} judges, "
        f"{runs} run(s)): bacon estimate reads it as --scores beside the table of the items "
        "and their labels, e.g. bacon estimate ITEMS.csv --label COL --item ID --scores "
        "FILE (each judge's mean over runs, and their spread, as features); to look at "
        "it here, pivot it to one row per item, e.g. in pandas: wide = "
        "df.pivot_table(index='item', columns='judge', values='score', "
        "aggfunc='mean').reset_index(); wide.to_csv('wide.csv', index=False) (the mean of "
        "each judge's runs), and run bacon doctor on wide.csv"
    )
    return True


def _run_column(frame: pd.DataFrame, others: list[str], judge: list[str]) -> str | None:
    """The column numbering runs (:data:`RUN_NAME`) under which the rows of a long table
    repeat an item and judge; None when there is none."""
    return next(
        (c for c in others if RUN_NAME.match(c) and frame.duplicated([*judge, c]).any()), None
    )


def pivot_recipe(
    frame: pd.DataFrame,
    judge: list[str],
    score: str,
    label: str | None,
    keys: list[str],
    kind: str = "csv",
) -> tuple[str, list[str]]:
    """How to pivot a long table (the ``judge`` columns name the judge of each row, e.g.
    model and method; ``score`` holds its score) to one row per item: keyed by the column
    holding one row per item and judge (an id named so first), else by ``keys`` when
    those do; the columns with one value per item (group, prompt, the label, which may
    sit on one of its rows only) joined back; ``pivot``, which refuses an item scored
    twice by a judge, where ``pivot_table`` averaged every item of a group into one row.
    A key that holds a few items twice for a judge (rows pasted twice, a judge run
    again: under :data:`REPEATED_SHARE` of the rows) still keys them: the repeated rows
    are named (``kind``: where, as :func:`lines` says) and the recipe drops them first.
    Keyed by several columns, the pivoted table gets an ``id`` of them (:func:`keyed_id`).
    Returns the recipe and the columns that key the items (none: it says to add one)."""
    others = [str(c) for c in frame.columns if c not in (*judge, score)]
    run = _run_column(frame, others, judge)  # repeated runs: averaged by the pivot
    if run is not None:
        others.remove(run)
        frame = frame.drop_duplicates(
            [c for c in frame.columns if c not in (run, score)]
        )  # an item's rows of one judge: one per run, alike but for the run and score
    one = [
        c
        for c in others
        if c != label
        and frame[c].notna().all()
        and frame[c].nunique() < len(frame)
        and not frame.duplicated([c, *judge]).any()
    ]
    one.sort(key=lambda c: c.lower() not in ID_NAMES)
    key = one[:1] or (keys if keys and not frame.duplicated([*keys, *judge]).any() else [])
    repeats, first = "", ""
    if not key:  # a key but for a few repeated rows: an id named so, else ``keys``
        near = [
            [c]
            for c in others
            if c.lower() in ID_NAMES and c != label and frame[c].nunique() < len(frame)
        ] + [keys]  # an id numbering the rows keys no item
        near = [k for k in near if k and not frame[k].isna().any().any()]
        key = next((k for k in near if frame.duplicated([*k, *judge]).mean() <= REPEATED_SHARE), [])
        if key:
            repeats, first = _repeated_rows(frame, [*key, *judge], kind)
    columns = repr(judge[0]) if len(judge) == 1 else repr(judge)
    if not key:
        return (
            f"no column keys the items (one row per item and judge), so the rows cannot "
            f"be told apart: add the item's id to each row, then pivot with pandas' pivot "
            f"(index the id, columns {columns}, values {score!r})"
        ), []
    index = repr(key[0]) if len(key) == 1 else repr(key)
    by = frame.groupby(key, sort=False)
    per = [c for c in others if c not in key and bool((by[c].nunique() <= 1).all())]
    clash = label is not None and label not in per
    recipe = (
        first
        + (
            f"wide = df.pivot(index={index}, columns={columns}, values={score!r}); "
            if run is None
            else f"wide = df.pivot_table(index={index}, columns={columns}, values={score!r}, "
            "aggfunc='mean'); "
        )
        + (
            "wide.columns = ['|'.join(map(str, c)) for c in wide.columns]; "
            if len(judge) > 1
            else ""
        )
        + (f"wide = df.groupby({index})[{per!r}].first().join(wide); " if per else "")
        + "wide = wide.reset_index(); "
        + (f"{keyed_id(key, 'wide')}; " if len(key) > 1 and "id" not in others else "")
        + "wide.to_csv('wide.csv', index=False)"
    )
    return (
        f"{index} keys the items (one row per item and judge"
        + (f" in each run of {run!r}" if run else "")
        + f"){repeats}. Pivot it, e.g. in "
        "pandas: "
        f"{recipe} "
        + (
            "(pivot refuses an item a judge scored twice, where pivot_table would average them), "
            if run is None
            else f"(each judge's mean over its runs, numbered in {run!r}), "
        )
        + (
            f"settle the label {label!r}, which differs between rows of one item, "
            if clash
            else "add the labels, "
            if label is None
            else ""
        )
        + "and run bacon doctor on wide.csv"
    ), key


def keyed_id(key: list[str], table: str) -> str:
    """The pandas statement that gives ``table`` (a frame's name in a recipe) an ``id``
    column of the items' ``key`` columns joined (``M10|doc7``): the one column a study
    records the items by, and a labels file is joined on (``--item id``)."""
    return f"{table}.insert(0, 'id', {table}[{key!r}].astype(str).agg('|'.join, axis=1))"


def _repeated_rows(frame: pd.DataFrame, key: list[str], kind: str) -> tuple[str, str]:
    """What to say of the rows of a long table that repeat an item and judge (``key``):
    how many, how many are exact copies of another row, one that differs from another of
    its item and judge with its lines; and the pandas that drops them (the copies, then
    all but the first row of each item and judge)."""
    extra = int(frame.duplicated(key).sum())
    copies = int(frame.duplicated().sum())
    drop = "df = df.drop_duplicates(); "
    if copies == extra:
        return f", but {extra} rows repeat another whole (pasted twice?): drop them first", drop
    rest = frame.drop_duplicates()
    differ = rest[rest.duplicated(key, keep=False)]
    one = differ.iloc[0]
    same = differ.index[(differ[key] == one[key]).all(axis=1)]
    example = ", ".join(f"{c} {one[c]!r}" for c in key)
    said = (
        f", but {extra} rows repeat an item and judge ({copies} of them exact copies of "
        f"another row; {extra - copies} differ{'s' if extra - copies == 1 else ''} from "
        "another row of their item and judge, "
        f"e.g. {example} at {lines(frame, list(same[:3]), kind)}): drop the copies and "
        "settle the others (the recipe keeps the first row of each; average them instead "
        "if they are repeated runs of the judge)"
    )
    return said, f"{drop}df = df.drop_duplicates({key!r}); "


def repeated_item_note(
    df: pd.DataFrame, label: str, judges: object = (), group: str | None = None
) -> str:
    """What to say when no id column is given and one named like the id (:func:`item_name`),
    or one named like an id within ``group`` (WMT's ``system`` and ``seg_id``, the label the
    same on its rows), repeats: each row is read as an item, so an item on several rows (a
    long table's) counts several times, its label too; with the fix. ``""``: none does."""
    taken = set(judges) if isinstance(judges, list | tuple) else set()
    for column in df.columns:
        if column in taken or column == label or column == group:
            continue
        within = group is not None and ID_LIKE.search(str(column)) is not None
        if not (key := [column] if item_name(column) else [group, column] if within else []):
            continue
        if not (repeats := df.duplicated(key, keep=False)).any():
            continue
        by = df.groupby(key, sort=False)
        if len(key) > 1 and (by[label].nunique() > 1).any():
            continue  # its rows differ in their label: items of their own (several answers)
        counts = by.size()
        first = counts.index.to_list()[int(np.argmax(counts.to_numpy() > 1))]  # no np.int64
        first = repr(first) if len(key) == 1 else " / ".join(map(str, first))
        rows, many = int((repeats & df[label].notna()).sum()), int((counts > 1).sum())
        labels = f", {rows} labeled rows among them" if rows else ""
        what = (
            f"column {column!r} is named like the item id but {many} of its ids are"
            if len(key) == 1
            else f"columns {group!r} and {column!r} name an item, but {many} of them are"
        )
        return (
            f"{what} on several rows (up to {int(counts.max())}, e.g. {first}){labels}: each "
            "row is read as an item, so an item on several rows counts as several, its label "
            "too, and the intervals come out too narrow; keep one row per item (a long "
            "table, one row per item and judge: pivot it; bacon doctor says how)"
            + (f" and pass --item {column}" if len(key) == 1 else "")
        )
    return ""


def long_table(frame: pd.DataFrame, label: str, judges: list[str], kind: str = "csv") -> str | None:
    """Why ``frame``, read with one row per item, is a long table (one row per item and
    judge), and the recipe that pivots it; None where it is not.

    Parameters
    ----------
    frame : DataFrame
        The table as ``bacon estimate`` reads it, no item column given.
    label, judges : str, list of str
        The label column and the judge score columns.
    kind : str
        The file's format (``csv``: rows named by their line).

    Returns
    -------
    str or None
        Long: a column of a few repeated strings (at most :data:`LONG_JUDGES`) tells
        apart the rows of items keyed by the other columns (each item on several rows,
        those rows not repeating a value of it but for :data:`REPEATED_SHARE`), while it
        is named like a judge (the item's score differing between its rows) or most
        labeled items' label repeats on their rows.
    """
    if label not in frame or not frame[label].notna().any() or not judges:
        return None
    # an id column numbering the rows (one printed fix adds one) names no item of a long
    # table: its rows are told apart by the other columns, as without it
    row_numbers = [x for x in frame.columns if item_name(x) and frame[x].is_unique]
    for c in frame.columns:
        col = frame[c]
        if c == label or c in judges or not is_str(col) or col.isna().any():
            continue
        k = int(col.nunique())
        key = [x for x in frame.columns if x not in (c, label, *judges, *row_numbers)]
        if not 2 <= k <= LONG_JUDGES or not key or frame.duplicated(key).mean() < 0.5:
            continue
        if frame.duplicated([*key, c]).mean() > REPEATED_SHARE:
            continue  # the column does not tell an item's rows apart
        by = frame.groupby(key, dropna=False, sort=False)
        counts = by[label].count()
        counts = counts[counts > 0]  # the labeled items' labeled rows
        repeated = bool((counts > 1).mean() >= 0.5 and (by[label].nunique() <= 1).all())
        varied = (by[judges[0]].nunique() > 1).mean() >= 0.25  # scores differ by judge
        if not (repeated or (JUDGE_NAME.search(str(c)) and varied)):
            continue
        recipe, _ = pivot_recipe(frame, [str(c)], judges[0], label, key, kind)
        labels = (
            f", and the label {label!r} repeats on the rows of {int((counts > 1).sum())} "
            "labeled items"
            if repeated
            else ""
        )
        return (
            f"the table looks long, one row per item and judge: column {c!r} names the "
            f"judge of each row ({k} values, about {len(frame) // k} rows each), {key!r} "
            f"the item{labels}. bacon reads one row per item, so each item and its label "
            f"would count about {k} times and the intervals come out too narrow. {recipe}, "
            "then pass its judge columns to --judge (if each row is an item after all, "
            "give each an id and pass --item)"
        )
    return None
