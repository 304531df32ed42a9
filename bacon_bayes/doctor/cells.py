"""Cells of other text in a column of scores or labels: a judge that wrote ``error``
where it failed, a human who wrote ``unsure``, ``?`` on every unlabeled row (``-`` and
``n/a`` are read as empty cells, :func:`bacon_bayes.words.text_numbers`). Read as
strings, such a column would pass for a group, a prompt or a category; ``bacon doctor``
names it, its cells and the fix instead."""

from __future__ import annotations

import re
import shlex

import pandas as pd

from bacon_bayes.io import file_line, plural_places
from bacon_bayes.order import (
    SEPARATORS,
    natural_sorted,
    spelling_key,
    spelling_variants,
    spellings_text,
)
from bacon_bayes.outputs import unused_name
from bacon_bayes.words import as_numbers, fraction_fix, says_missing, word_levels

#: a string column is numbers with a few text cells (a judge's failures) from this share
NUMBERS_SHARE = 0.9
#: the first rows that tell a column of text from one of scores, in a long table
SCREEN = 2000
#: a cell of punctuation only (``-``, ``?``, ``--``): a mark for a missing value
MARK = r"\s*[^\w\s]+\s*"
#: how the reason of such a column begins
FAILED = "scores but for"
#: what to do with a few text cells in a judge's column, and in the label's
JUDGE_CELLS_FIX = "empty those cells (an empty cell is an item the judge did not score)"
LABEL_CELLS_FIX = "empty those cells (an item nobody labeled) or write each item's label in them"
#: how the reason of a column of labels written as words of 3 levels or more begins
#: (:func:`bacon_bayes.words.word_levels`)
WORDS = "labels written as"
#: the cells :func:`listed_cells` names; more are counted
SHOWN_CELLS = 3
#: a number written with a unit (``4 stars``, ``3 pts``) or out of a top (``4/5``)
UNIT_CELL = re.compile(r"^\s*[-+]?\d+([.,]\d+)?\s*([^\W\d_]+\.?|/\s*\d+)\s*$")
#: how the reason of a column of labels written with a unit begins, and of scores
UNITS = "labels written as text"
SCORE_UNITS = "scores written as text"
#: a number written with a decimal comma (``3,5``), or a whole one
DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+(,\d+)?\s*$")
#: how the reason of a column of numbers written with a decimal comma begins, and the fix
COMMAS = "numbers written with a decimal comma"
COMMAS_FIX = "save it with a decimal point (or as a semicolon-separated CSV)"
#: ... and in a semicolon-separated file whose other numbers have decimal points
POINTS_FIX = (
    "if they are decimals, write them with a decimal point, as the file's other numbers are"
)
#: a column of letters ranked with the label under this is taken for names, not scores
UNRELATED_LETTERS = 0.1
#: a column named so holds names, never a judge's letters (systems or arms A, B, C ...)
_NAMES_LETTERS = re.compile(
    r"system|model|provider|group|policy|agent|variant|condition|arm|treatment|version|team"
    r"|site|batch|split|cohort|class|categor|type|kind|grp",
    re.I,
)
#: ... and a column named so a long table's judges (``judge``: ``a``, ``b``, ``c``)
_JUDGE_NAMES = re.compile(
    r"^(judge|grader|evaluator|scorer|rater|annotator|llm|metric|model)s?([ _.-]?(name|id))?$",
    re.I,
)
#: the spellings :func:`case_variants` shows
SHOWN_SPELLINGS = 2
#: what to do with names written several ways
SPELLING_FIX = (
    "write each name one way, in one case and without spaces around it (e.g. in pandas "
    "df[col] = df[col].str.strip().str.upper()), and run again"
)


def is_str(s: pd.Series) -> bool:
    """Whether ``s`` holds strings (object, string or categorical dtype)."""
    return bool(
        pd.api.types.is_string_dtype(s)
        or pd.api.types.is_object_dtype(s)
        or isinstance(s.dtype, pd.CategoricalDtype)
    )


def numeric(s: pd.Series) -> pd.Series | None:
    """The column as floats, or None when it is not numeric (bools count)."""
    if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
        return s.astype(float)
    return None


def _where(frame: pd.DataFrame, label: object, kind: str) -> str:
    """Where the row ``label`` of ``frame`` is: its line in a CSV file
    (:func:`bacon_bayes.io.file_line`), else its row number from 0, as ``bacon estimate``
    counts it (and pandas' ``iloc``; :func:`from_zero` says so); an Excel sheet's row as
    the sheet numbers it."""
    pos = int(frame.index.get_loc(label))
    if kind == "xlsx":
        return f"row {file_line(frame, pos)}"
    return f"line {file_line(frame, pos)}" if kind in ("csv", "tsv") else f"row {pos}"


def from_zero(kind: str) -> str:
    """What to say after rows numbered by :func:`_where` in a file of format ``kind``:
    that they count from 0 (``""`` for a CSV file, whose lines are said)."""
    return "" if kind in ("csv", "tsv", "xlsx") else " (rows counted from 0)"


def _other(s: pd.Series) -> tuple[pd.Series, pd.Series]:
    """The filled cells of ``s`` read as numbers, and the filled cells that are none. The
    cells that say "no value" (``-``, ``n/a``: :func:`bacon_bayes.words.says_missing`)
    are empty ones, and the other cells of punctuation only (:data:`MARK`, ``?`` on every
    unlabeled row) are set aside first: the others may be words read only when they are
    most of the cells (``correct`` / ``incorrect``)."""
    filled = s[s.notna() & (s.astype(str).str.strip() != "") & ~says_missing(s)]
    marks = filled.astype(str).str.fullmatch(MARK)
    num = as_numbers(filled[~marks]).reindex(filled.index)
    return num, filled[num.isna()]


def text_cells(frame: pd.DataFrame, column: str, kind: str) -> str | None:
    """A string column of scores (numbers, or verdict words such as ``yes`` / ``no``) but
    for a few cells of other text (a judge that wrote ``error`` where it failed), or but
    for one short placeholder of a missing value (``?`` on every unlabeled row): those
    cells of ``frame[column]``, counted, with where the first one is (``kind``: the
    file's format, :func:`_where`); None for any other column. At least
    :data:`NUMBERS_SHARE` of the filled cells must be scores. A frequent word beside
    verdict words (``Partially`` beside ``Yes`` / ``No``) is a level, not a failure
    (:func:`bacon_bayes.words.word_levels`): None."""
    s = frame[column]
    if not is_str(s):
        return None
    head = _other(s.iloc[:SCREEN])[0] if len(s) > SCREEN else None
    if head is not None and len(head) and head.notna().mean() < 0.5:
        return None  # text, by its first rows (a long table's texts read once, not whole)
    if numeric(s) is not None or word_levels(s) is not None:
        return None
    num, bad = _other(s)
    if num.empty or bad.empty or num.nunique() < 2:
        return None
    # a few text cells among scores, or short placeholders for a missing one ('-', '?')
    marks = bad.astype(str).str.fullmatch(MARK).all()
    placeholder = marks or (
        bad.astype(str).str.strip().nunique() == 1 and len(str(bad.iloc[0])) <= 12
    )
    if num.notna().mean() < NUMBERS_SHARE and not placeholder:
        return None
    words = ", ".join(repr(str(v)) for v in bad.astype(str).unique()[:3])
    where = _where(frame, bad.index[0], kind)
    return f"{len(bad)} cell(s) of other text ({words}; the first at {where}{from_zero(kind)})"


def unit_cells(s: pd.Series) -> str | None:
    """A few cells of a string column of numbers written with a unit or out of a top,
    and the fix (``('4 stars', '3 stars'): write them as numbers only (4, not '4
    stars')``): at least :data:`NUMBERS_SHARE` of its filled cells such, and at least two
    numbers; None for any other column."""
    filled = s.dropna().astype(str)
    filled = filled[filled.str.strip() != ""]
    if not is_str(s) or filled.empty or filled.str.match(UNIT_CELL).mean() < NUMBERS_SHARE:
        return None
    numbers = filled.str.extract(r"([-+]?\d+(?:[.,]\d+)?)")[0]
    if numbers.nunique() < 2:
        return None
    shown = ", ".join(repr(v) for v in filled.unique()[:SHOWN_CELLS])
    first = filled.iloc[0]
    if fix := fraction_fix(first):
        tops = natural_sorted(filled.str.extract(r"/\s*(\d+)")[0].dropna().unique())
        return f"({shown}), as fractions out of {' and '.join(tops)}: {fix[0].lower()}{fix[1:]}"
    return f"({shown}): write them as numbers only ({numbers.iloc[0]}, not {first!r})"


def decimal_commas(s: pd.Series, points: bool = False) -> str | None:
    """A string column of numbers written with a decimal comma (``4,00``), which a file
    whose cells are separated by commas reads as text: an example and why it is text
    (``(e.g. '4,00'), in a file whose cells are not separated by semicolons``; with
    ``points``, a semicolon-separated file read with decimal points, most of its numbers
    written so: ``in a file whose other numbers are written with a decimal point``); at
    least :data:`NUMBERS_SHARE` of its filled cells such, one with a comma at least. None
    for any other column."""
    if not is_str(s):
        return None
    filled = s.dropna().astype(str)
    commas = filled[filled.str.contains(",", regex=False)]
    if commas.empty or filled.str.match(DECIMAL_COMMA).mean() < NUMBERS_SHARE:
        return None
    if not points:
        return f"(e.g. {commas.iloc[0]!r}), in a file whose cells are not separated by semicolons"
    shown = commas.iloc[0].strip()
    grouped = commas.str.match(r"^\s*[-+]?\d{1,3}(,\d{3})+\s*$").all()
    why = (
        f", each with three digits after the comma as a thousands separator writes them "
        f"({shown!r}: {shown.replace(',', '.')} or {shown.replace(',', '')}?)"
        if grouped
        else ""
    )
    return f"(e.g. {shown!r}), in a file whose other numbers are written with a decimal point{why}"


def points_line(read: str | None, path: str | None, column: str) -> str | None:
    """A shell line that writes the table ``read`` (the pandas call) reads from ``path``
    with ``column``'s decimal commas written as points (``3,5`` as 3.5) into
    ``<stem>_points.csv`` in the working folder, then the doctor to run on it; None
    without a file to read."""
    if read is None or path is None:
        return None
    code = f"df[{column!r}] = pd.to_numeric(df[{column!r}].str.replace(',', '.'))"
    return doctor_again(read, path, "points", code)


def without_groups_line(
    read: str, path: str, column: str, names: list[str], label: str | None = None
) -> str:
    """A shell line that writes the table ``read`` reads from ``path`` without the rows of
    the groups ``names`` of ``column`` into ``<stem>_labeled_groups.csv``, then the doctor
    to run on it, given the ``label`` column (most of the rows kept are labeled: no sparse
    column for doctor to find)."""
    code = f"df = df[~df[{column!r}].astype(str).isin({[str(n) for n in names]!r})]"
    after = "" if label is None else f" --label {shlex.quote(label)}"
    return doctor_again(read, path, "labeled_groups", code, after)


def listed_cells(frame: pd.DataFrame, column: str, kind: str) -> str:
    """The cells of ``frame[column]`` that are no score, each with where it is (the first
    :data:`SHOWN_CELLS`, then how many more): ``'unsure' at line 218, 'unsure' at line
    241``."""
    _, bad = _other(frame[column])
    shown = [f"{str(v)!r} at {_where(frame, i, kind)}" for i, v in bad.head(SHOWN_CELLS).items()]
    more = f" and {len(bad) - SHOWN_CELLS} more" if len(bad) > SHOWN_CELLS else ""
    return ", ".join(shown) + more + from_zero(kind)


def empty_cells(frame: pd.DataFrame, column: str, kind: str) -> str | None:
    """Where ``frame[column]`` is empty (the first :data:`SHOWN_CELLS` places, then how
    many more), or None when no cell is: ``empty at lines 2, 3, 7 and 1 more (4 of 90
    rows)``."""
    empty = frame[column].isna().to_numpy()
    if not empty.any():
        return None
    rows = frame.index[empty]
    shown = plural_places(_where(frame, i, kind) for i in rows[:SHOWN_CELLS])
    more = f" and {len(rows) - SHOWN_CELLS} more" if len(rows) > SHOWN_CELLS else ""
    return f"empty at {shown}{more}{from_zero(kind)} ({len(rows)} of {len(frame)} rows)"


def case_variants(s: pd.Series) -> str | None:
    """Names of ``s`` that differ only in case, spaces around them or the separators
    between their words (:func:`~bacon_bayes.order.spelling_key`), the first
    :data:`SHOWN_SPELLINGS` sets (``'M10', 'm10'; 'M8 ', 'M8'``), or None."""
    many = spelling_variants(s.dropna().astype(str).unique())
    if not many:
        return None
    return spellings_text(many, SHOWN_SPELLINGS)


def one_spelling_line(path: str, columns: list[str], what: str) -> str:
    """A shell line that writes the table at ``path`` with each name of ``columns``
    written one way (the most frequent of its spellings, spaces around it taken off; the
    spellings :func:`~bacon_bayes.order.spelling_key` takes for one) into
    ``<stem>_<what>.csv`` in the working folder, and the doctor to run on it."""
    from bacon_bayes.csv_format import pandas_read

    code = (
        f"cols = {columns!r}; key = lambda s: s.str.strip().str.replace("
        f"{SEPARATORS!r}, '-', regex=True).str.casefold(); "
        "names = pd.concat([df[c] for c in cols]).str.strip(); "
        "one = names.groupby(key(names)).agg(lambda v: v.mode()[0]); "
        "df[cols] = df[cols].apply(lambda s: key(s).map(one))"
    )
    return f"its most frequent spelling: {doctor_again(pandas_read(path), path, what, code)}"


def doctor_again(read: str, path: str, what: str, code: str, after: str = "") -> str:
    """A shell line that reads the table at ``path`` as ``df`` (``read``, the pandas call),
    runs the pandas ``code`` on it and writes it into ``<stem>_<what>.csv`` in the working
    folder (``<stem>_<what>2.csv``... where that file exists: nothing there is replaced),
    then the doctor to run on that file (with the options ``after``: the labels file
    joined onto it)."""
    from bacon_bayes.csv_format import pandas_command
    from bacon_bayes.study.folder import file_stem

    out = unused_name(f"{file_stem(path)}_{what}")
    line = pandas_command(f"{read_line(read)}; {code}; df.to_csv({out!r}, index=False)")
    return f"{line}, then bacon doctor {shlex.quote(out)}{after}"


def read_line(read: str) -> str:
    """The statement that reads the table as ``df`` by ``read`` (a pandas call, or bacon's
    ``read_any(...)[0]`` for a file pandas does not read as bacon does, with its import)."""
    via = "from bacon_bayes.readers import read_any; " * read.startswith("read_any(")
    return f"{via}df = {read}"


#: the most distinct failure texts :func:`emptied_line` lists in the line it prints
MOST_FAILURES = 20


def failure_texts(s: pd.Series) -> list[str]:
    """The distinct cells of a column of scores that are no score (:func:`text_cells`),
    as written, spaces around them taken off."""
    return sorted(set(_other(s)[1].astype(str).str.strip()))


def emptied_line(read: str, path: str, cells: dict[str, list[str]]) -> str | None:
    """A shell line that writes the table ``read`` (the pandas call) reads from ``path``
    with the cells ``cells`` names empty (column -> its failure texts, ``error``) into
    ``<stem>_scores.csv`` in the working folder, then the doctor to run on it; None for
    more than :data:`MOST_FAILURES` texts in a column (the line would be unreadable)."""
    if any(len(v) > MOST_FAILURES for v in cells.values()):
        return None
    masks = "; ".join(
        f"s = df[{c!r}]; df[{c!r}] = s.mask(s.astype(str).str.strip().isin({v!r}))"
        for c, v in cells.items()
    )
    return doctor_again(read, path, "scores", masks)


def unused_strings(filled: pd.Series, max_groups: int) -> str:
    """Why a column of strings (its ``filled`` cells) plays no part: names of at most
    ``max_groups`` groups written several ways (:func:`case_variants`), else its distinct
    strings."""
    k = filled.nunique()
    names = filled.map(spelling_key).nunique()
    if 2 <= names < k and names <= max_groups:
        return (
            f"{k} distinct strings, but {names} names once case and spaces (around them, "
            f"or - and _ between words) are set aside ({case_variants(filled)}): "
            f"{SPELLING_FIX} for a group"
        )
    parts = filled.str.extract(_WRAPPED)  # 'Score: 4': one number, the same text around it
    said = parts[0].str.cat(parts[2].astype(str), sep=" ")
    if parts[1].notna().all() and said.nunique() == 1 and _SCORE_WORD.search(said.iloc[0]):
        name = filled.name
        return (
            f"numbers written with text around them (e.g. {filled.iloc[0]!r}), "
            f"{parts[1].nunique()} distinct: a judge's scores? Write the numbers alone (e.g. in "
            f"pandas: df[{name!r}] = df[{name!r}].str.extract(r'{_NUMBER}', "
            "expand=False).astype(float)) and run again"
        )
    return f"{k} distinct string(s) (e.g. {filled.iloc[0]!r}): no group, prompt or text"


#: what the text around a score says (``Score: 4``, ``4 stars``), unlike a ``batch 35``
_SCORE_WORD = re.compile(r"score|rating|rated|grade|stars?\b|points?\b", re.I)
#: a number in a cell, and a cell of one number with text around it (``Score: 4``)
_NUMBER = r"([-+]?\d*\.?\d+)"
_WRAPPED = rf"^(\D*?)\s*{_NUMBER}\s*(\D*)$"


def letter_columns(
    frame: pd.DataFrame, label: str | None, skip: list[str], file: str | None, read: str | None
) -> dict[str, str]:
    """The columns of ``frame`` (but ``skip``) written as letters
    (:func:`bacon_bayes.letters.letter_levels`; not named like a group or prompt, nor
    unrelated to the label): dense ones a judge's scores, and without a ``label`` a sparse
    one the labels. Each with why it plays no part yet and the fix: the numbers that rise
    with the label (a judge's) or with the judges (the labels'; grades, ``A`` the best,
    where neither tells), and a shell line writing every such column so into
    ``<stem>_numbers.csv`` with the doctor to run on it (``file`` read by ``read``; else
    the pandas to run)."""
    from bacon_bayes.doctor.names import PROMPT_HINT
    from bacon_bayes.letters import (
        LETTER_LABELS,
        LETTER_SCORES,
        letter_levels,
        letters_rise,
        map_text,
        partition_like,
    )

    found: dict[str, tuple[list[str], str, bool]] = {}
    for c in map(str, frame.columns):
        dense = bool(frame[c].notna().mean() >= 0.5)
        named = _NAMES_LETTERS.search(c) or _JUDGE_NAMES.match(c)
        if c in skip or c == label or (label and not dense) or named:
            continue  # systems (arms, versions) named A, B, C ...
        if PROMPT_HINT.search(c) or (levels := letter_levels(frame[c])) is None:
            continue
        if dense and partition_like(frame[c]):
            continue  # a group's names (a, b, c; in blocks of rows, or groups of one size)
        against = as_numbers(frame[label]) if label and dense else None
        if not dense:  # the labels: against the judges' (dense numeric columns') mean rank
            judges = [j for j in frame.columns if j not in skip and numeric(frame[j]) is not None]
            ranks = [frame[j].rank(pct=True) for j in judges if frame[j].notna().mean() >= 0.5]
            against = pd.concat(ranks, axis=1).mean(axis=1) if ranks else None
        r = None if against is None else letters_rise(frame[c], against)
        if r is not None and abs(r) < UNRELATED_LETTERS:
            continue  # names, more likely than a judge's scores
        first, last, what = levels[0], levels[-1], "the label" if dense else "the judges"
        if r is None:
            said = (
                f"nothing tells which end is best: as grades, {first} the best ({first} = "
                f"{len(levels)}; where {first} is a scale's first and lowest option, {first} = 1)"
            )
        else:
            up, down = (first, last) if r >= 0 else (last, first)
            said = (
                f"{up} = 1 ... {down} = {len(levels)} rises with {what} (Spearman "
                f"{abs(r):.2f}; the other way {-abs(r):.2f})"
            )
        found[c] = (levels, map_text(c, levels, r is not None and r >= 0) + "; " + said, dense)
    if not found:
        return {}
    code = "; ".join(how.split("; ")[0] for _, how, _ in found.values())
    if file is not None and read is not None:
        fix = doctor_again(read, file, "numbers", code)
    else:
        fix = f"e.g. in pandas: {code}"
    return {
        c: (
            f"{LETTER_SCORES} ({', '.join(map(repr, levels))}): a judge's scores? Not taken as "
            "a judge until written as numbers"
            if dense
            else f"{LETTER_LABELS} ({', '.join(map(repr, levels))}): not taken as the label "
            "until written as numbers"
        )
        + f"; {how.split('; ', 1)[1]}: {fix}"
        for c, (levels, how, dense) in found.items()
    }
