"""Rows of a table that are not one item each: a spreadsheet's summary rows at its end
(``Total``, ``mean``), ids that repeat (one row per annotator, rows pasted twice), an id
repeated without ``--item`` (:func:`repeated_item_note`; a long table's rows, one per item
and judge, and the recipe that pivots it: :mod:`.long`). ``bacon doctor`` names them,
where they are and the fix, and prints no command that would take them for items."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bacon_bayes.doctor.cells import _where as where_is
from bacon_bayes.doctor.cells import doctor_again, is_str
from bacon_bayes.doctor.names import ID_LIKE, ID_NAMES, JUDGE_NAME
from bacon_bayes.io import file_line, item_name, keep_file_rows, plural_places, row_place
from bacon_bayes.outputs import unused_name
from bacon_bayes.words import blank_cells

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bacon_bayes.doctor.roles import Roles

#: the words a spreadsheet's summary row starts with (any case, a trailing colon ignored):
#: English, and the languages of the spreadsheets whose CSV conventions bacon reads (";",
#: decimal commas): German, French, Spanish, Italian, Dutch, Portuguese
SUMMARY_WORDS = frozenset(
    {"total", "totals", "grand total", "subtotal", "sum", "mean", "means", "average", "avg"}
    | {"median", "std", "sd", "stdev", "min", "max", "count", "overall"}
    | {"summe", "gesamt", "gesamtsumme", "gesamtergebnis", "zwischensumme", "insgesamt"}
    | {"mittelwert", "durchschnitt", "anzahl", "standardabweichung"}
    | {"somme", "moyenne", "sous-total", "total général", "médiane", "écart-type"}
    | {"suma", "promedio", "media", "mediana", "recuento", "total general"}
    | {"totale", "somma", "totale complessivo", "conteggio"}
    | {"totaal", "som", "eindtotaal", "subtotaal", "gemiddelde", "gemiddeld", "aantal"}
    | {"soma", "média", "contagem", "total geral"}
)
#: a note under a table (``Source: ...``, ``Note: human = mean of 3 experts``): words,
#: not a number, alone on its row
_NOTE = re.compile(r"^\s*\S.*\s\S")
#: summary rows are looked for among the table's last this many rows (and this many named)
SUMMARY_TAIL = 5
_WORDS = "|".join(map(re.escape, sorted(SUMMARY_WORDS, key=len, reverse=True)))
#: a subtotal's cell: a summary word, a whole word, before or after a name (``M10 Total``,
#: ``Total: M10``, ``Subtotal``; not ``total-recall``), a trailing colon ignored
_SUBTOTAL = re.compile(
    rf"^(?:(?:{_WORDS})(?![\w-])[\s:]*(?P<after>.*?)|(?P<before>.*?)(?<![\w-])(?:{_WORDS})):?$",
    re.IGNORECASE,
)
#: a cell that holds a summary word somewhere (a quick look before :data:`_SUBTOTAL`)
_ANY_WORD = f"(?i)(?:{_WORDS})"
#: the longest cell read as a subtotal's
SHORT_CELL = 60
#: a column named like an id repeats a few ids (not a category) when at least this share
#: of its values are distinct
MOSTLY_DISTINCT = 0.5
#: the repeated ids :func:`repeated_ids` names
SHOWN_IDS = 3


def _summary_word(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    word = value.strip().rstrip(":").strip().casefold()
    return value.strip() if word in SUMMARY_WORDS else None


def _notes(frame: pd.DataFrame) -> dict[int, str]:
    """The rows among the last :data:`SUMMARY_TAIL` of a table of at least 3 columns
    whose few filled cells (at most half as many as its other rows have, and a comma in
    a sentence makes two) are words, the first a phrase (:data:`_NOTE`), no number:
    notes under the table (``Source: ...``)."""
    if frame.shape[1] < 3 or len(frame) <= SUMMARY_TAIL:
        return {}
    filled = frame.notna().sum(axis=1).to_numpy()
    most = max(1, int(np.median(filled[:-SUMMARY_TAIL]) // 2))
    if most < 1 or np.median(filled[:-SUMMARY_TAIL]) < 2:
        return {}
    found = {}
    for pos in range(len(frame) - SUMMARY_TAIL, len(frame)):
        if not 1 <= filled[pos] <= most:
            continue
        cells = frame.iloc[pos][frame.iloc[pos].notna()].tolist()
        value = cells[0]
        words = all(isinstance(v, str) and _number(v) is None for v in cells)
        if words and _NOTE.match(value):
            shown = value if len(value) <= 40 else value[:37] + "..."
            found[pos] = f"{shown!r} on a row of its own"
    return found


def _number(value: str) -> float | None:
    try:
        return float(value.replace(",", "."))
    except ValueError:
        return None


def _subtotals(frame: pd.DataFrame) -> dict[int, str]:
    """Rows anywhere in ``frame`` that are a spreadsheet's subtotals (Excel's ``M10 Total``
    after each system's rows): a short cell of a string column that is a summary word
    (:data:`SUMMARY_WORDS`) as a whole word, alone or beside a name (:data:`_SUBTOTAL`;
    ``total-recall`` is none), on a row without an id (empty in a column named like one
    that is filled on most rows), or beside the name of a group of that column that is on
    at least 2 rows more than the cell (a system's ``M10``; the cell on 2 rows at most).
    A column where such rows are more than :data:`MOSTLY_DISTINCT` of the rows holds
    data. Returns what each such row (by position) holds (``'M10 Total' in system``)."""
    named = [c for c in frame.columns if item_name(c) or str(c).lower() in ID_NAMES]
    missing = pd.DataFrame({c: blank_cells(frame[c]) for c in named}, index=frame.index)
    ids = [c for c in named if missing[c].mean() < 1 - MOSTLY_DISTINCT]  # filled on most
    no_id = missing[ids].any(axis=1).to_numpy() if ids else np.zeros(len(frame), dtype=bool)
    found: dict[int, str] = {}
    for c in frame.columns:
        if not is_str(frame[c]):
            continue
        cells = frame[c].reset_index(drop=True).dropna().astype(str)
        cells = cells[cells.str.len() <= SHORT_CELL].str.strip()  # not a response's text
        worded = cells.str.contains(_ANY_WORD, regex=True)  # vectorized: ids have none
        if not worded.any():
            continue
        counts = cells.value_counts()
        rows: dict[int, str] = {}
        for value, n in cells[worded].value_counts().items():
            if (hit := _SUBTOTAL.match(str(value))) is None:
                continue
            name = (hit["after"] or hit["before"] or "").strip(" :")
            group = bool(name) and n <= 2 and counts.get(name, 0) >= n + 2
            for pos in cells.index[cells == value].tolist():
                if group or no_id[pos]:
                    rows[int(pos)] = f"{value!r} in {c}"
        if rows and len(rows) <= MOSTLY_DISTINCT * len(frame):
            for pos, said in rows.items():
                found.setdefault(pos, said)
    return found


def summary_rows(
    frame: pd.DataFrame, kind: str, command: bool = False, path: str | None = None
) -> tuple[list[int], str]:
    """The table's summary rows: rows among its last :data:`SUMMARY_TAIL` with a cell that
    is a summary word (``Total``, ``Summe``, ``mean``) in a string column that has no
    such word on its other rows, or a note alone on its row (:func:`_notes`: ``Source:
    ...``), which end the table; and subtotals anywhere (:func:`_subtotals`: ``M10
    Total`` after each system's rows). Returns their positions (``[]`` when there are
    none) and what to say (where they are and the fix; ``""`` for none): doctor's, or
    with ``command`` a command's refusal. With ``path`` (the file ``frame`` was read
    from), the fix is the line that writes the table without them
    (:func:`without_footer_line`)."""
    tail = frame.tail(SUMMARY_TAIL)
    notes = _notes(frame)
    found: dict[int, str] = dict(notes)
    start = len(frame) - len(tail)
    for c in frame.columns:
        if not is_str(frame[c]):
            continue
        ending = [_summary_word(v) for v in tail[c].tolist()]
        if all(w is None for w in ending):
            continue  # the whole column is read only where its tail holds such a word
        if sum(_summary_word(v) is not None for v in frame[c].tolist()) > SUMMARY_TAIL:
            continue  # a column of such words is data (a statistic's name), not a footer
        for pos, word in enumerate(ending, start):
            if word is not None:
                found.setdefault(pos, f"{word!r} in {c}")
    first = len(frame)
    while first - 1 in found:  # the summary rows end the table
        first -= 1
    found = _subtotals(frame) | {k: v for k, v in found.items() if k >= first}
    if not found:
        return [], ""
    rows = sorted(found)
    more = len(rows) - SUMMARY_TAIL
    places = lines(frame, list(frame.index[rows[:SUMMARY_TAIL]]), kind)
    places += f" and {more} more" if more > 0 else ""
    said = "; ".join(found[k] for k in rows[:SUMMARY_TAIL]) + ("; ..." if more > 0 else "")
    them = "them" if len(rows) > 1 else "it"
    kinds = {k in notes for k in rows}
    rs = "s" if len(rows) > 1 else ""
    like = {
        frozenset({False}): f"a spreadsheet's summary row{rs}",
        frozenset({True}): f"{'notes' if rs else 'a note'} under the table",
        frozenset({False, True}): "a spreadsheet's summary rows and notes under the table",
    }[frozenset(kinds)]
    what = f"{places} look{'s' if len(rows) == 1 else ''} like {like} ({said}), not items"
    line = without_footer_line(path, file_rows(frame, rows), kind) if path is not None else None
    if command:
        they = "they" if len(rows) > 1 else "it"
        fix = (
            f"write the table without {them}, {line[0]} and run on {line[1]}"
            if line
            else f"delete {them} from the file"
        )
        return rows, f"{what}: {they} would be read as items; {fix}."
    if line:
        fix = f"write the table without {them}, {line[0]} and run doctor on {line[1]}"
    else:
        fix = f"delete {them} from the file, and run doctor again"
    return rows, (
        f"{what}: the profile leaves {them} out, bacon estimate would take {them} for "
        f"items; {fix} for the command"
    )


def file_rows(frame: pd.DataFrame, rows: Sequence[int]) -> list[int]:
    """The rows (from 0) of the file ``frame`` was read from that hold its rows at the
    positions ``rows``: past the rows of empty cells its reader left out
    (``frame.attrs["file rows"]``)."""
    kept = frame.attrs.get("file rows")
    return [int(r if kept is None else kept.rows[r]) for r in rows]


def without_footer_line(path: str, rows: Sequence[int], kind: str) -> tuple[str, str] | None:
    """The shell line that writes the table at ``path`` without its rows ``rows`` (from 0,
    as pandas reads the file: a spreadsheet's summary rows, :func:`summary_rows`), every
    other cell as written (read as text, an empty cell left empty: an id ``7`` stays
    ``7``, not ``7.0``; the file's separator kept, so decimal commas stay numbers), and
    the file it writes; None for a format other than a CSV or Parquet file."""
    from bacon_bayes.csv_format import csv_options, pandas_command, read_csv_call
    from bacon_bayes.study.folder import file_stem

    drop = f".drop(index={list(rows)!r})"
    if kind == "parquet":
        out = unused_name(file_stem(path) + "_no_summary", ".parquet")
        code = (
            f"pd.read_parquet({str(path)!r}).reset_index(drop=True){drop}"
            f".to_parquet({out!r}, index=False)"
        )
        return pandas_command(code), out
    if kind not in ("csv", "tsv"):
        return None
    how = csv_options(path)
    sep = how.get("sep", ",")
    out = unused_name(file_stem(path) + "_no_summary", ".tsv" if sep == "\t" else ".csv")
    code = (
        read_csv_call(path, how, ", dtype=str, keep_default_na=False")
        + f"{drop}.to_csv({out!r}, index=False{f', sep={sep!r}' * (sep != ',')})"
    )
    return pandas_command(code), out


def lines(frame: pd.DataFrame, rows: list[object], kind: str) -> str:
    """Where the ``rows`` (index labels) of ``frame`` are: ``lines 6, 7`` (``rows 6, 7``
    outside a CSV file)."""
    return plural_places(where_is(frame, r, kind) for r in rows)


def without_summary(
    frame: pd.DataFrame, kind: str, path: str | None = None
) -> tuple[pd.DataFrame, str]:
    """``frame`` without its summary rows (:func:`summary_rows`), columns they made
    strings read as numbers again (as the file would read without them), and what to say
    of them (``""`` for none; with ``path``, the line that writes the file without
    them)."""
    rows, said = summary_rows(frame, kind, path=path)
    return (without_rows(frame, rows), said) if said else (frame, "")


def without_rows(frame: pd.DataFrame, rows: Sequence[int]) -> pd.DataFrame:
    """``frame`` without its rows at the positions ``rows`` (a spreadsheet's summary rows,
    a units row), renumbered from 0, each row still knowing its line in the file
    (:func:`~bacon_bayes.io.keep_file_rows`), and the string columns whose every other
    cell is a number read as numbers (as the file would read without those rows)."""
    keep = np.ones(len(frame), dtype=bool)
    keep[list(rows)] = False
    out = frame.iloc[keep].reset_index(drop=True)
    keep_file_rows(frame, out, keep)
    for c in out.columns:
        if is_str(out[c]):
            num = pd.to_numeric(out[c], errors="coerce")
            if num.notna().sum() == out[c].notna().sum() > 0:
                out[c] = num
    return out


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


def check_ids(
    frame: pd.DataFrame, roles: Roles, kind: str, read: str | None = None, file: str | None = None
) -> str:
    """Take a column named like an id whose ids repeat for the id (none was found, as
    none is unique), or check the id taken: when ids repeat (and the table is not long),
    its reason says which and where, a rater column is named, and the fix is returned
    (``""`` when every id is once; a shell line where ``read``, the pandas call of the
    table's ``file``, is given: :func:`repeated_ids`). A repeated id must not pass for a
    judge or be left out of the printed command, which then takes every row for an item."""
    if roles.long:
        return ""
    item = roles.item
    if item is None:
        taken = {roles.label, roles.group, roles.prompt, *roles.text}
        item = id_with_repeats(frame, {c for c in taken if c})
    if item is None or (frame[item].notna().all() and frame[item].is_unique):
        return ""
    what, fix, rater = repeated_ids(frame, item, roles.label, roles.judges, kind, read, file)
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
    frame: pd.DataFrame,
    item: str,
    label: str | None,
    judges: list[str],
    kind: str,
    read: str | None = None,
    file: str | None = None,
) -> tuple[str, str, str | None]:
    """What to say of the ids of ``frame[item]`` that occur on several rows: how many,
    the first few with their lines, those whose ``label`` differs between their rows; the
    fix (average the ratings per item when a column names the rater of each row, else
    keep one row per id); and that rater column (None: none). With the pandas call
    ``read`` of the table's ``file``, the averaging and the removal of copied rows are
    shell lines that write the fixed table and run doctor on it
    (:func:`~bacon_bayes.doctor.cells.doctor_again`); without, pandas code."""
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
    runnable = read is not None and file is not None
    if rater is not None and label is not None:
        said = label in frame.attrs.get("verdicts", {})  # read from words when the file was
        words = said or not pd.api.types.is_numeric_dtype(frame[label])  # '4 - Relevant'
        code = (
            f"from bacon_bayes.words import as_numbers; df[{label!r}] = as_numbers(df[{label!r}]); "
            * words
            + f"cols = {{c: 'first' for c in df.columns if c not in ({item!r}, {rater!r})}}; "
            f"cols[{label!r}] = 'mean'; "
            f"df = df.groupby({item!r}, as_index=False, sort=False).agg(cols)"
        )
        how = (
            doctor_again(str(read), str(file), "per_item", code)
            if runnable
            else f"e.g. in pandas: {code}; then run doctor on that table"
        )
        fix = (
            f": one row per rater ({rater!r}){', the judges the same on each' if same else ''}"
            f". Average the ratings per item first{':' if runnable else ','} {how}"
        )
    elif len(clash) or not rows.astype(str).duplicated(keep=False).all():
        fix = (
            ": bacon estimate refuses repeated ids (--item), or takes each row for an item "
            f"without it; settle {'the labels of ' if len(clash) else ''}each repeated id "
            f"and keep one row per id (e.g. df.drop_duplicates({item!r}) once they agree, "
            "or average the labels per id), and run doctor again"
        )
    elif runnable:
        line = doctor_again(str(read), str(file), "unique", "df = df.drop_duplicates()")
        fix = f": those rows repeat whole (pasted twice?): {line}"
    else:
        fix = ": those rows repeat whole (pasted twice?): df.drop_duplicates(), and run again"
    return text, fix, rater


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
        repeats = df.duplicated(key, keep=False) & df[key].notna().all(axis=1)  # no blank
        if not repeats.any():
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


def rater_rows(df: pd.DataFrame, label: str, judges: object = (), group: str | None = None) -> str:
    """Why ``bacon estimate`` without ``--item`` refuses a table of one row per item and
    rater: a column named like the item id repeats, its rows carrying different labels and
    the same judge scores (three raters of an item, the judges once). Each row would be
    read as an item, so the estimate would be a mean over ratings, not items (the items
    rated several times weigh several times) and of single ratings, not of each item's
    mean: another quantity, whatever the intervals. The fix is the ratings' mean per item
    (:func:`repeated_ids`' recipe). ``""``: no such column."""
    if not isinstance(judges, list | tuple) or not judges:
        return ""
    for column in df.columns:
        if column in judges or column in (label, group) or not item_name(column):
            continue
        s = df[column]
        rows = df[s.notna() & s.duplicated(keep=False)]
        if rows.empty:
            continue
        by = rows.groupby(column, sort=False)
        clash = by[label].nunique()
        clash = clash[clash > 1]
        if clash.empty or not bool((by[list(judges)].nunique() <= 1).all().all()):
            continue
        _, fix, rater = repeated_ids(df, str(column), label, list(judges), "parquet")
        one = clash.index.tolist()[0]
        first = " and ".join(f"{v:g}" for v in rows.loc[rows[column] == one, label].dropna())
        who = f" ({rater!r} names who)" if rater else ""
        fix = fix.split(". ", 1)[1] if rater else "Average the ratings per item first"
        return (
            f"column {str(column)!r} is named like the item id, but {len(clash)} of its ids "
            f"are on several rows with different labels and the same judge scores (e.g. "
            f"{one!r}: {first}): one row per item and rater{who}. Read without --item, each "
            "row would be an item, so the estimate would be the mean over ratings, not over "
            "items (an item rated 3 times weighs 3 times), of single ratings rather than "
            f"each item's mean rating. {fix.removesuffix('then run doctor on that table')}"
            f"then run bacon estimate on that table with --item {column}"
        )
    return ""


def copied_rows(
    frame: pd.DataFrame,
    label: str | None = None,
    path: str | None = None,
    shown: int = 5,
    keys: Sequence[str] = (),
) -> str:
    """What to say of rows equal to an earlier row on every cell (a row pasted twice, an
    export that repeated rows), where they are and the fix (with ``path``, the file read:
    the line that writes it without them); ``""`` when there are none, or when no column
    tells items apart (at least :data:`MOSTLY_DISTINCT` of its values distinct: a text,
    an id, a continuous score) nor do ``keys`` together (a prompt and a system: every row
    but the copies one of each pair): rows of a few whole scores alone can be items that
    scored alike. Each copy is read as an item of its own, so a copied item counts twice, its
    label too."""
    try:
        copies = frame.duplicated(keep="first").to_numpy()
    except TypeError:  # lists or dicts in the cells (a log's reader): compared as text
        frame = frame.astype({c: str for c in frame.columns if frame[c].dtype == object})
        copies = frame.duplicated(keep="first").to_numpy()
    keyed = bool(keys) and not frame[~copies].duplicated(list(keys)).any()
    if not copies.any() or not (
        keyed or any(frame[c].nunique() >= MOSTLY_DISTINCT * len(frame) for c in frame.columns)
    ):
        return ""
    row_hash = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    first: dict[int, int] = {}
    for pos, h in enumerate(row_hash.tolist()):
        first.setdefault(h, pos)
    at = np.flatnonzero(copies)
    where = plural_places(row_place(frame, int(p)) for p in at[:shown])
    of = plural_places(row_place(frame, first[int(row_hash[p])]) for p in at[:shown])
    more = f", and {at.size - shown} more" if at.size > shown else ""
    labeled = 0 if label is None or label not in frame else int(frame[label].iloc[at].notna().sum())
    what = f"{at.size} rows are copies" if at.size > 1 else "1 row is a copy"
    fix = "in pandas: df = df.drop_duplicates(), and run bacon on that table"
    if path is not None:
        from bacon_bayes.csv_format import python_command
        from bacon_bayes.study.folder import file_stem

        out = unused_name(file_stem(path) + "_unique")
        line = python_command(
            "from bacon_bayes.readers import read_any; "
            f"read_any({str(path)!r})[0].drop_duplicates().to_csv({out!r}, index=False)"
        )
        fix = f"{line}, and run bacon on {out}"
    return (
        f"{what} of an earlier row, every cell the same ({where}: copies of {of}{more})"
        + (f", {labeled} of them labeled" if labeled else "")
        + ": each is read as an item of its own, so a copied item counts twice (its label "
        f"too) and the intervals come out too narrow; if they are one item exported twice, "
        f"drop the copies ({fix}); if they are distinct items, give each row an id (a "
        "column of unique ids, --item)"
    )


def units_row(frame: pd.DataFrame, kind: str, path: str | None = None) -> str:
    """What to say of a second header row under the header (a spreadsheet's units or
    scales: ``Punkte``, ``Note (1 = sehr gut)``): the first row holds text, no number, in
    at least two columns whose other cells are numbers, so each of them reads as text
    and the row as an item. With ``path`` (a CSV), the line that writes the table without
    it; ``""`` when the first row is no such row."""
    from bacon_bayes.doctor.cells import NUMBERS_SHARE, SCREEN, _other

    if kind not in ("csv", "tsv") or len(frame) < 3:
        return ""
    texts = []
    for c in frame.columns:
        if not is_str(frame[c]):
            continue
        read, first = _other(frame[c].iloc[:1])  # '-', 'n/a': an empty cell, not text
        if read.notna().any():
            return ""  # a number in the first row: an item's
        if first.empty:
            continue
        num = _other(frame[c].iloc[1 : SCREEN + 1])[0]  # the next rows tell numbers from text
        if num.empty:
            continue
        if num.notna().mean() < NUMBERS_SHARE:
            continue  # a text column (a name, a system)
        texts.append(str(first.iloc[0]).strip())
    if len(texts) < 2:
        return ""
    line = file_line(frame, 0)
    fix = "delete that line (keep the header) and run doctor again for the command"
    if path is not None and str(path).lower().endswith((".csv", ".tsv", ".txt", ".csv.gz")):
        from bacon_bayes.csv_format import csv_options, pandas_command, read_csv_call
        from bacon_bayes.study.folder import file_stem

        how = csv_options(path)
        skip = int(how.pop("skiprows", 0))
        out = unused_name(file_stem(path) + "_no_units")
        code = (
            read_csv_call(path, how, f", skiprows={[*range(skip), skip + 1]!r}")
            + f".to_csv({out!r}, index=False)"
        )
        fix = (
            f"write the table without it, {pandas_command(code)} and run doctor on {out} "
            "for the command"
        )
    shown = ", ".join(map(repr, texts[:4])) + (" ..." if len(texts) > 4 else "")
    return (
        f"line {line} looks like a second header row (units or scales under the header: "
        f"{shown}): bacon estimate would read it as an item, and each column of numbers "
        f"under it as text (no label or judge in them); the profile leaves it out; {fix}"
    )


def without_units(
    frame: pd.DataFrame, kind: str, path: str | None = None
) -> tuple[pd.DataFrame, str]:
    """``frame`` without a second header row under its header (:func:`units_row`), its
    columns of numbers read as numbers, and what to say of it (``""`` for none): the
    profile is of the items, and the row's fix alone is said, not each column's text
    cell, nor its empty id, group and prompt."""
    said = units_row(frame, kind, path)
    return (without_rows(frame, [0]), said) if said else (frame, "")
