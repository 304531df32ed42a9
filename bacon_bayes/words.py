"""Numbers written as words in a table's cells: verdict words (``yes`` / ``no``) as 1 / 0,
the answers of a Likert agreement item as 1-5, percentages (``85%``) as the number
written; every reader of a user's table reads its columns through these. Scores packed in
text (JSON objects, lists of runs, scores a spreadsheet turned into dates:
:func:`packed_cells`), named with their fix by ``bacon doctor`` and ``bacon estimate``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.replies import reply_scores

#: two-word verdicts read as 1 / 0 (any case, spaces around ignored): a person's or a
#: judge's yes-or-no answer written as words
VERDICT_WORDS = {
    "yes": "no", "y": "n", "true": "false", "correct": "incorrect", "right": "wrong",
    "pass": "fail", "passed": "failed", "accept": "reject", "accepted": "rejected",
    "good": "bad", "valid": "invalid", "\U0001f44d": "\U0001f44e", "thumbs up": "thumbs down",
}  # fmt: skip
_VERDICT = {**dict.fromkeys(VERDICT_WORDS, 1.0), **dict.fromkeys(VERDICT_WORDS.values(), 0.0)}
#: the five answers of a Likert agreement item, read as 1-5 in this order (any case; the
#: middle one written several ways)
LIKERT = (
    ("strongly disagree",),
    ("disagree",),
    ("neither agree nor disagree", "neither agree or disagree", "neutral", "undecided"),
    ("agree",),
    ("strongly agree",),
)
_LIKERT = {w: k + 1.0 for k, words in enumerate(LIKERT) for w in words}
#: the five levels of a quality rating, read as 1-5 in this order (any case) when at
#: least :data:`_QUALITY_SEEN` of them are written (fewer do not tell the scale)
QUALITY = ("poor", "fair", "good", "very good", "excellent")
_QUALITY = {w: k + 1.0 for k, w in enumerate(QUALITY)}
_QUALITY_SEEN = 4
#: a number written with its level's name (``3 - Good``, ``4: Very good``, ``5) Excellent``),
#: as labelling tools export a rating, read as the number (3)
_NAMED = r"^\s*([-+]?\d+(?:\.\d+)?)\s*[-\u2013\u2014:.)=]\s*([^\W\d_][^\n]*?)\s*$"
#: a word that is a level of a label (:func:`word_levels`) is on at least this share of
#: its filled cells: rarer, it is a failure or a typo
LEVEL_SHARE = 0.05
#: ... and a column of labels written as words has at most this many levels
MOST_LEVELS = 10
#: a number written as a percentage (``85%``), read as the number written (85)
_PERCENT = r"^\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*%\s*$"
#: a score written out of its top (``4/5``, ``3.5 / 5``), read as the score written (4)
_FRACTION = r"^\s*(\d+(?:\.\d+)?)\s*/\s*(\d+)\s*$"
#: inspect_ai's grade letters (``inspect_ai.scorer.CORRECT`` ...), read as its
#: ``value_to_float`` reads them: correct 1, incorrect 0, partial credit 0.5, no answer 0
GRADES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}

_NEGATIVE = {no: yes for yes, no in VERDICT_WORDS.items()}
#: pairs that are one verdict (``correct`` / ``wrong``, ``right`` / ``incorrect``)
_SAME_PAIR = {"right": "correct"}
#: a column of more distinct values than this is no column of verdict words ...
_MOST_WORDINGS = 64
#: ... and one with more of them in its first this many rows is turned away unread
_PEEK = 4096


def word_numbers(column: pd.Series) -> tuple[pd.Series, str] | None:
    """The cells of ``column`` written as words or percentages, as floats (NaN in every
    other cell), and how they were read, in words: one pair of :data:`VERDICT_WORDS` as
    1 / 0 (``read from words, 'correct' = 1, 'incorrect' = 0``), the :data:`LIKERT`
    answers as 1-5 (3 of them at least), percentages as the number written (``'85%'`` as
    85). None when the column is not strings or no reading covers most of its filled
    cells."""
    if not (pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)):
        return None
    try:  # a column of ids or texts is turned away by its first rows, unread
        head = column.iloc[:_PEEK].dropna().astype(str).tolist()
        if _most(head, _STAR_START) and (stars := _stars(column)) is not None:
            return stars
        if _most(head, _PERCENT_RE) and (percent := _percents(column)) is not None:
            return percent
        if _most(head, _FRACTION_RE) and (fraction := _fractions(column)) is not None:
            return fraction
        if (reply := reply_scores(column, head)) is not None:
            return reply
        if _most(head, _NAMED_RE) and (named := _named_levels(column)) is not None:
            return named
        if len(pd.unique(column.iloc[:_PEEK].dropna())) > _MOST_WORDINGS:
            return None
        filled = column.dropna()
        distinct = pd.unique(filled)
    except TypeError:  # lists or dicts in the cells (a JSON reader's)
        return None
    if filled.empty or len(distinct) > _MOST_WORDINGS:
        return None
    if (graded := _grades(column, distinct)) is not None:
        return graded
    word = {v: _spoken(v) for v in distinct if isinstance(v, str)}
    likert = {v: _LIKERT[w] for v, w in word.items() if w in _LIKERT}
    if len(set(likert.values())) >= 3 and filled.isin(list(likert)).mean() > 0.5:
        said = ", ".join(f"{v.strip()!r} = {k:g}" for v, k in sorted(likert.items(), key=_second))
        return column.map(likert).astype(float), f"read from words, Likert answers as {said}"
    quality = {v: _QUALITY[w] for v, w in word.items() if w in _QUALITY}
    if len(set(quality.values())) >= _QUALITY_SEEN and filled.isin(list(quality)).mean() > 0.5:
        said = ", ".join(f"{v.strip()!r} = {k:g}" for v, k in sorted(quality.items(), key=_second))
        return column.map(quality).astype(float), f"read from words, quality levels as {said}"
    if not any(w in _VERDICT for w in word.values()):
        return None
    pair = filled.map({v: _pair_of(w) for v, w in word.items()})
    top = pair.value_counts()
    if top.empty or top.iloc[0] < len(filled):  # not one pair: several ways, or other text
        if (mixed := _mixed_verdicts(column, distinct, word)) is not None:
            return mixed
    if top.empty or top.iloc[0] <= len(filled) / 2:
        return None
    yes = str(top.index[0])
    ours = {v: _VERDICT[w] for v, w in word.items() if _pair_of(w) == yes}
    seen = set(word[v] for v in ours)
    pos = [w for w in sorted(seen) if _VERDICT[w] == 1.0]  # as written; a word missing:
    neg = [w for w in sorted(seen) if _VERDICT[w] == 0.0]  # its partner's
    pos, neg = pos or [_NEGATIVE[w] for w in neg], neg or [VERDICT_WORDS[w] for w in pos]
    said = f"read from words, {' / '.join(map(repr, pos))} = 1, {' / '.join(map(repr, neg))} = 0"
    return column.map(ours).astype(float), said


_PERCENT_RE, _FRACTION_RE, _NAMED_RE = map(re.compile, (_PERCENT, _FRACTION, _NAMED))
#: a rating written as stars, filled then empty (``★★★★☆``, ``⭐⭐⭐``), read as the filled
_STARS_RE = re.compile("\\s*(?:[\u2605\u2b50]\ufe0f?)*\u2606*\\s*")
_FILLED = re.compile("[\u2605\u2b50]")
_STAR_START = re.compile("\\s*[\u2605\u2b50\u2606]")  # the screen: a star first


def _stars(column: pd.Series) -> tuple[pd.Series, str] | None:
    """:func:`word_numbers` of a column of ratings written as stars (every filled cell
    filled stars then empty ones, one star at least), read as the number of filled stars;
    else None."""
    text = column.dropna().astype(str)
    if text.empty or not all(_STARS_RE.fullmatch(v) and v.strip() for v in text):
        return None
    number = column.map(lambda v: float(len(_FILLED.findall(v))) if isinstance(v, str) else v)
    first = number.first_valid_index()
    top = max(len(re.findall("[\u2605\u2b50\u2606]", v)) for v in text)
    said = f"{str(column[first]).strip()!r} = {number[first]:g}, of {top} stars"
    return number.astype(float), f"read as numbers, the filled stars counted ({said})"


def _most(head: list[str], pattern: re.Pattern[str]) -> bool:
    """Whether more than half of ``head`` (the first filled cells as text) match
    ``pattern``: the test each of :func:`_percents`, :func:`_fractions` and
    :func:`_named_levels` starts with (pandas' ``str.match`` runs these patterns with
    Python's ``re``), done once on a list instead of by pandas for each, so that a
    column of ids or texts is turned away at a fraction of the cost."""
    return bool(head) and sum(pattern.match(v) is not None for v in head) > 0.5 * len(head)


def _grades(column: pd.Series, distinct: np.ndarray) -> tuple[pd.Series, str] | None:
    """:func:`word_numbers` of a column of inspect_ai's grade letters (every filled cell
    one of :data:`GRADES`, upper case, ``C`` and ``I`` both seen), read as inspect_ai
    reads them; else None."""
    letters = {v: v.strip() for v in distinct if isinstance(v, str)}
    if len(letters) < len(distinct) or not {"C", "I"} <= set(letters.values()) <= set(GRADES):
        return None
    seen = [g for g in GRADES if g in letters.values()]
    said = ", ".join(f"{g!r} = {GRADES[g]:g}" for g in seen).replace("'N' =", "'N' (no answer) =")
    return (
        column.map({v: GRADES[g] for v, g in letters.items()}).astype(float),
        f"read as inspect_ai's grades, {said}",
    )


def _pair_of(w: str) -> str | None:
    """The verdict pair a word belongs to (its positive word, :data:`_SAME_PAIR` merged),
    None for a word of none."""
    yes = w if w in VERDICT_WORDS else _NEGATIVE.get(w)
    return None if yes is None else _SAME_PAIR.get(yes, yes)


def _mixed_verdicts(
    column: pd.Series, distinct: np.ndarray, word: dict[Any, str]
) -> tuple[pd.Series, str] | None:
    """:func:`word_numbers` of a column of verdicts written several ways (two annotators'
    habits: ``Yes`` / ``No`` and ``1`` / ``0``, or ``yes`` and ``True``): every filled cell
    a word of one pair of :data:`VERDICT_WORDS`, a bool's spelling (``True`` / ``False``)
    or the number 1 or 0, read as 1 / 0 with each way named; else None (two pairs of
    words, ``yes`` and ``correct``, are words of a category)."""
    ours: dict[Any, float] = {}
    for v in distinct:
        if v in word and word[v] in _VERDICT:
            ours[v] = _VERDICT[word[v]]
        elif (k := pd.to_numeric(pd.Series([v]), errors="coerce").iloc[0]) in (0, 1):
            ours[v] = float(k)
        else:
            return None
    ways = {_NEGATIVE.get(w, w) if (w := word.get(v, "")) in _VERDICT else "1" for v in ours}
    if len(ways - {"1", "true"}) > 1:
        return None
    shown = ", ".join(f"{w!r} / {VERDICT_WORDS.get(w, '0')!r}" for w in sorted(ways))
    said = f"read from verdicts written {len(ways)} ways ({shown}) as 1 / 0: write them one way"
    return column.map(ours).astype(float), said


def _spoken(cell: str) -> str:
    """A word cell as :func:`word_numbers` compares it: spaces folded, lower case, a full
    stop or an exclamation mark after it dropped (an LLM judge's ``Yes.``)."""
    return " ".join(cell.split()).lower().rstrip(".!").rstrip()


def _second(pair: tuple[Any, float]) -> float:
    return pair[1]


def _percents(column: pd.Series) -> tuple[pd.Series, str] | None:
    """:func:`word_numbers` of a column of percentages (most of its first filled cells
    such), else None."""
    head = column.iloc[:_PEEK].dropna()
    if head.empty or head.astype(str).str.match(_PERCENT).mean() <= 0.5:
        return None
    number = column.astype(str).str.extract(_PERCENT)[0].astype(float).where(column.notna())
    first = number.first_valid_index()
    said = f"{str(column[first]).strip()!r} = {number[first]:g}"
    return number, f"read as numbers, the percent sign dropped ({said})"


def _fractions(column: pd.Series) -> tuple[pd.Series, str] | None:
    """:func:`word_numbers` of a column of scores written out of one top (``4/5``, most of
    its first filled cells such, every one out of the same top, none above it), read as
    the score written (4); else None."""
    head = column.iloc[:_PEEK].dropna()
    if head.empty or head.astype(str).str.match(_FRACTION).mean() <= 0.5:
        return None
    parts = column.astype(str).str.extract(_FRACTION).astype(float)
    score, top = parts[0].where(column.notna()), parts[1].where(column.notna())
    tops = top.dropna().unique()
    if len(tops) != 1 or tops[0] < 2 or (score > tops[0]).any() or (score < 0).any():
        return None
    first = score.first_valid_index()
    said = f"{str(column[first]).strip()!r} = {score[first]:g}"
    return score, f"read as numbers, the top '/{tops[0]:g}' dropped ({said})"


def _named_levels(column: pd.Series) -> tuple[pd.Series, str] | None:
    """:func:`word_numbers` of a column of ratings written with their level's name
    (``3 - Good``: every filled cell such, each number with one name and each name with
    one number, 2 numbers at least), read as the number; else None."""
    head = column.iloc[:_PEEK].dropna()
    if head.empty or head.astype(str).str.match(_NAMED).mean() <= 0.5:
        return None
    filled = column.dropna().astype(str)
    parts = filled.str.extract(_NAMED)
    if parts[0].isna().any():
        return None
    names = parts[1].str.casefold().str.split().str.join(" ")
    pairs = pd.DataFrame({"number": parts[0].astype(float), "name": names}).drop_duplicates()
    if pairs["number"].nunique() < 2 or pairs["number"].duplicated().any():
        return None
    if pairs["name"].duplicated().any():
        return None
    number = parts[0].astype(float).reindex(column.index)
    first = number.first_valid_index()
    said = f"{str(column[first]).strip()!r} = {number[first]:g}"
    return number, f"read as numbers, the level names after them dropped ({said})"


def level_map(
    column: pd.Series, read: tuple[pd.Series, str] | None = None, known: bool = False
) -> tuple[pd.Series, dict[str, float], str] | None:
    """A column of labels written as 2 to :data:`MOST_LEVELS` words (not numbers) that
    are not all read as numbers (a third level beside ``Yes`` / ``No``: ``Partially``;
    ``good`` / ``ok`` / ``bad``), each on at least :data:`LEVEL_SHARE` of its filled
    cells: the levels' counts, a map of them to numbers and what the numbers follow
    (:func:`word_levels` says them). None for any other column. ``read`` (``known``):
    the column's :func:`word_numbers` (None: no reading), where the caller has it, not
    read again."""
    if not (pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)):
        return None
    try:
        text = _filled(column)
    except TypeError:
        return None
    text = text[~says_missing(text) & ~text.str.fullmatch(r"[^\w\s]+")]
    if text.empty or pd.to_numeric(text, errors="coerce").notna().any():
        return None
    if text.str.match(r"\s*[\[{]").any():  # lists or objects packed in cells: no words
        return None
    counts = text.value_counts()
    if not 2 <= len(counts) <= MOST_LEVELS or counts.iloc[-1] < LEVEL_SHARE * len(text):
        return None
    read = read if known else word_numbers(column.loc[text.index])
    if read is not None and read[0].reindex(text.index).notna().all():
        return None
    word = {w: " ".join(w.split()).lower() for w in counts.index}
    if any(w in _VERDICT for w in word.values()):
        values = {w: _VERDICT.get(k, 0.5) for w, k in word.items()}
        hint = (
            "the numbers your question needs: the middle level 0.5, or 1 or 0"
            if 0.5 in values.values()
            else "1 for each word that says yes, 0 for each that says no"
        )
    elif any(w in _QUALITY for w in word.values()):
        values = {w: _QUALITY.get(k, 0.0) for w, k in word.items()}
        hint = "the numbers of your scale's levels"
    else:
        order = sorted(counts.index, key=lambda w: _hedged(word[w]))
        values = {w: float(k + 1) for k, w in enumerate(order)}
        hint = "in your scale's order"
    return counts, values, hint


#: a level's first word that says it is not (``Not relevant``) or partly (``Partially
#: relevant``) what the level without it says
_NOT_WORD = re.compile(r"^(not|non|no|never|none)\b")
_PART_WORD = re.compile(r"^(partially|partly|somewhat|slightly|mostly|moderately|fairly|half)\b")


def _hedged(word: str) -> int:
    """Where a level written ``word`` goes in a scale read from its words alone: a level
    that says not (0), then one that says partly (1), then the rest (2) in their order."""
    return 0 if _NOT_WORD.match(word) else 1 if _PART_WORD.match(word) else 2


def word_levels(
    column: pd.Series, line: Callable[[str], str] | None = None
) -> tuple[str, str] | None:
    """A column of labels written as words (:func:`level_map`): the levels with their
    counts (``'Yes' (152), 'No' (120), 'Partially' (48)``) and how to map them to numbers
    (a pandas line). None for any other column: a rare word among verdicts is a failure
    (``error``), which the cells' check names. Emptying a level's cells would delete real
    labels, all of one kind, and bias the estimate. ``line``: the shell line that runs
    the pandas code given on the file read and writes it (doctor's), else the code alone
    is shown."""
    found = level_map(column)
    if found is None:
        return None
    counts, values, hint = found
    shown = ", ".join(f"{w!r} ({n})" for w, n in counts.items())
    name = column.name
    code = f"df[{name!r}] = df[{name!r}].map({{{mapping_text(values)}}})"
    fix = (
        "levels, not failures (emptying a level's cells would leave out labels all of one "
        f"kind and bias the estimate): map them to numbers ({hint}), e.g. "
        + (f"with: {line(code)}" if line else f"in pandas: {code}")
    )
    return f"{len(counts)} words ({shown})", fix


def mapping_text(values: dict[str, float]) -> str:
    """A map of words to numbers as the inside of a Python dict, the highest first."""
    return ", ".join(f"{w!r}: {v:g}" for w, v in sorted(values.items(), key=_second, reverse=True))


def fraction_fix(value: object) -> str:
    """How to write a score written as a fraction that was not read (``'5/10'`` in a
    column whose cells have several tops), a sentence: as one number on one scale
    (``Write each ... (e.g. 0.5 for '5/10')``); ``""`` for a value that is no fraction."""
    parts = re.match(_FRACTION, str(value))
    if parts is None or float(parts[2]) == 0:
        return ""
    share = float(parts[1]) / float(parts[2])
    return f"Write each as one number on one scale (e.g. {share:g} for {str(value).strip()!r})"


def cell_fix(value: object) -> str:
    """What to do with a cell ``value`` of a column of numbers that reads as none, a
    sentence (a fraction: :func:`fraction_fix`)."""
    return f"{fraction_fix(value) or 'Fix the value'}, or leave the cell empty if it is missing."


def as_numbers(column: pd.Series) -> pd.Series:
    """``column`` as floats: numbers, and the words or percentages :func:`word_numbers`
    reads (the verdict words of its pair as 1 / 0 ...), or the scores written out of a top
    among them (:func:`fractions_among_numbers`); NaN in the empty cells and in any
    other."""
    return read_numbers(column)[0]


def read_numbers(column: pd.Series) -> tuple[pd.Series, tuple[pd.Series, str] | None]:
    """:func:`as_numbers` of ``column``, and how its cells were read, :func:`word_numbers`'
    reading of them (or :func:`fractions_among_numbers`'; None: numbers alone), from one
    reading."""
    values = pd.to_numeric(column, errors="coerce")
    read = word_numbers(column)
    if read is None and (read := fractions_among_numbers(column, values)) is not None:
        return read[0], read
    return (values, None) if read is None else (values.fillna(read[0]), read)


def fractions_among_numbers(column: pd.Series, values: pd.Series) -> tuple[pd.Series, str] | None:
    """``values`` (``column``'s cells read as numbers) with the cells of ``column`` written
    as a score out of one top (``4/5`` beside ``4`` and ``3``: a judge's reply kept as
    written on some rows) read as the score written (4), and how, in words; None when no
    cell is such, their tops differ, a score passes its top, or the numbers do not sit on
    that scale (all within 0 and the top; where they are most of the cells, the largest
    above 1: on 0-1 shares, ``4/5`` may mean 0.8)."""
    if not (pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)):
        return None
    rest = column[values.isna() & column.notna()]
    if rest.empty:
        return None
    try:
        parts = rest.astype(str).str.extract(_FRACTION).dropna().astype(float)
    except TypeError:  # lists or dicts in the cells (a JSON reader's)
        return None
    numbers = values.dropna()
    tops = parts[1].unique()
    if parts.empty or numbers.empty or len(tops) != 1 or tops[0] < 2:
        return None
    top = tops[0]
    shares = numbers.max() <= 1 and len(parts) <= len(numbers)  # most cells 0-1 numbers
    if (parts[0] > top).any() or numbers.min() < 0 or numbers.max() > top or shares:
        return None
    out = values.copy()
    out[parts.index] = parts[0]
    first = parts.index[0]
    said = (
        f"{len(parts)} cell(s) written out of {top:g} read as the score written "
        f"({str(column[first]).strip()!r} = {parts.loc[first, 0]:g})"
    )
    return out, said


def unread(values: np.ndarray, column: pd.Series) -> np.ndarray:
    """Which cells of ``column`` hold something that did not read as a number (NaN in
    ``values``, its numbers): neither missing nor blank (``""`` or spaces only, empty as a
    CSV's empty cell is)."""
    bad = np.isnan(values) & column.notna().to_numpy()
    if bad.any():
        bad[bad] = [not (isinstance(v, str) and not v.strip()) for v in column.to_numpy()[bad]]
    return bad


#: cells that say "no value" in a column of numbers, any case: the words a CSV reader
#: (pandas) reads as empty, kept as text by a Parquet or JSON file, and the dashes a
#: spreadsheet writes in an empty cell
MISSING_WORDS = frozenset(
    {"na", "n/a", "nan", "null", "none", "<na>", "#n/a", "#na", "-", "--", "\u2013", "\u2014"}
)
#: a number written with leading zeros (``0042``): an id, kept as text
_PADDED = r"^\s*[-+]?0\d"


#: a number's sign written with the minus sign U+2212 (a spreadsheet of a Swedish, Finnish
#: or Norwegian locale writes '−0,5'), the small or the full-width one, in a cell that is
#: a number and nothing else (a text that starts so is left as written): read as '-'
_MINUS = r"^\s*[\u2212\ufe63\uff0d]\s*[.,]?\d[\d.,\u00a0\u202f ]*(?:[eE][-+]?\d+)?\s*%?\s*$"
#: how the file's minus signs were read, as the reader says it
MINUS_READ = "the minus sign U+2212 ('\u2212') read as '-'"


def minus_signs(frame: pd.DataFrame) -> str:
    """In place, the cells of ``frame``'s text columns that are a number signed with another
    minus sign than ``-`` (:data:`_MINUS`) written with ``-``, so that they read as numbers
    (before decimal commas are read); what to say of it (``""``: none had one)."""
    found = False
    for c in frame.columns:
        s = frame[c]
        if not (pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s)):
            continue
        try:
            signed = s.str.contains(_MINUS, na=False)
        except (TypeError, AttributeError):  # lists or dicts in the cells
            continue
        if signed.any():
            sign = s.str.replace(r"[\u2212\ufe63\uff0d]", "-", n=1, regex=True)  # the first
            frame[c] = s.where(~signed, sign)
            found = True
    return MINUS_READ if found else ""


def blank_cells(column: pd.Series) -> pd.Series:
    """Which cells of ``column`` are empty: missing, or text of spaces only (not the
    words of :func:`says_missing`)."""
    return column.isna() | column.astype(str).str.strip().eq("")


def says_missing(column: pd.Series) -> pd.Series:
    """Which cells of ``column`` say "no value" (:data:`MISSING_WORDS`, any case, spaces
    around): empty cells of a column of numbers, in memory (:func:`text_numbers`) and
    streamed alike."""
    return column.notna() & column.astype(str).str.strip().str.casefold().isin(MISSING_WORDS)


def text_numbers(column: pd.Series) -> tuple[pd.Series, str] | None:
    """A string column of numbers (or of what :func:`word_numbers` reads) but for cells of
    :data:`MISSING_WORDS`, as floats with those cells empty, and how it was read, in words
    (``read as numbers from text; 'n/a', 'NA' as empty cells``): what a Parquet or JSON
    file that stores scores as text holds, and a CSV column of numbers with ``-`` in its
    empty cells. None for any other column (ids written with leading zeros among them)."""
    if not (pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)):
        return None
    try:  # a column of texts or names is turned away by its first cells, unread
        head = _filled(column.iloc[:_PEEK])
        head = head[~says_missing(head)]
        numbers = pd.to_numeric(head, errors="coerce").notna() | head.str.match(_FRACTION)
        if len(head) and numbers.mean() <= 0.5:
            if word_numbers(column.loc[head.index]) is None:
                return None
        text = _filled(column)
    except TypeError:  # lists or dicts in the cells (a JSON reader's)
        return None
    gone = says_missing(text)
    rest = text[~gone]
    if rest.empty:
        return None
    values, how = None, "read as numbers"
    numbers = pd.to_numeric(rest, errors="coerce")
    if numbers.iloc[:_PEEK].notna().mean() > 0.5:
        if rest.str.match(_PADDED).any():
            return None
        values = numbers
    if numbers.isna().any() and (read := fractions_among_numbers(rest, numbers)) is not None:
        values, how = read[0], f"read as numbers, {read[1]}"
    if values is None or values.isna().any():  # words, or a column of texts or names
        read = word_numbers(column.loc[rest.index])
        if read is None or read[0].isna().any():
            return None
        values, how = read
    if gone.any():
        shown = ", ".join(repr(w) for w in pd.unique(text[gone])[:3])
        how += f", {shown} as empty cells ({int(gone.sum())} of them)"
    elif how == "read as numbers":
        how += " (written as text)"
    return values.reindex(column.index), how


def _filled(column: pd.Series) -> pd.Series:
    """The filled cells of ``column`` as stripped strings (blank ones left out)."""
    text = column[column.notna()].astype(str).str.strip()
    return text[text != ""]


def bools_as_floats(
    frame: pd.DataFrame, numbers: bool = False, ids: Iterable[object] = ()
) -> pd.DataFrame:
    """Columns of True/False with empty cells (read as objects: a CSV's blanks, JSON's
    nulls) as 1.0 / 0.0 / NaN, like a column of True/False without blanks, which reads as
    numbers everywhere (a human verdict recorded for some rows only, a judge that skipped
    some); so are columns whose every filled cell :func:`word_numbers` reads (one pair of
    :data:`VERDICT_WORDS` such as ``yes`` / ``no``, the :data:`LIKERT` answers,
    percentages), and with ``numbers`` the columns :func:`text_numbers` reads (not the
    ``ids`` columns), each recorded with how it was read in ``frame.attrs["verdicts"]``
    for doctor to say."""
    swap, said = {}, {}
    keep = set(ids)
    for col, s in frame.items():
        if not pd.api.types.is_object_dtype(s) and not pd.api.types.is_string_dtype(s):
            continue
        if s.isna().any() and pd.api.types.infer_dtype(s, skipna=True) == "boolean":
            swap[col] = s.astype(float)  # compiled, not per cell
        elif (marked := _bools_and_marks(s)) is not None:  # JSON's true / false, and "N/A"
            swap[col], said[col] = marked
        elif (read := word_numbers(s)) is not None and read[0].notna().sum() == s.notna().sum():
            swap[col], said[col] = read
        elif numbers and col not in keep and (read := text_numbers(s)) is not None:
            swap[col], said[col] = read
    if not swap:
        return frame
    out = frame.copy()
    for col, values in swap.items():  # not assign(**swap): a column name need not be a str
        out[col] = values
    out.attrs["verdicts"] = {**frame.attrs.get("verdicts", {}), **said}
    return out


def _bools_and_marks(column: pd.Series) -> tuple[pd.Series, str] | None:
    """A column of booleans (a JSON file's ``true`` / ``false``) with blank cells or cells
    that say "no value" (``"N/A"``, ``"-"``: :func:`says_missing`) on its other rows, as
    1.0 / 0.0 / NaN, and how it was read; None for any other column."""
    if pd.api.types.infer_dtype(column, skipna=True) != "mixed":
        return None
    text = column.astype(str).str.strip()
    empty = column.isna() | (text == "") | says_missing(column)
    rest = column[~empty]
    if rest.empty or not all(isinstance(v, (bool, np.bool_)) for v in rest):
        return None
    marks = ", ".join(repr(str(v)) for v in pd.unique(column[empty & column.notna()])[:3])
    values = rest.astype(float).reindex(column.index)
    return values, f"True / False read as 1 / 0, {marks} as empty cells"


def id_text(ids: pd.Series) -> pd.Series:
    """Ids as the text they are compared by: whole numbers read as floats (``1.0``, what
    pandas writes for a column of integers with a missing value) as ``1``, so that a
    table's ``1.0`` and a labels file's ``1`` are one id."""
    if pd.api.types.is_float_dtype(ids) and bool((ids.dropna() % 1 == 0).all()):
        return ids.astype("Int64").astype(str)
    return ids.astype(str)


#: how the reason of a column of scores packed in JSON, in lists or turned into dates begins
PACKED = "scores packed in text"
#: a date as a spreadsheet writes it (``04/05/2025``, ``2025-05-04``, ``4-May``)
_DATE = re.compile(
    r"^\s*(?:(\d{1,2})[/.-](\d{1,2})[/.-]\d{2,4}|\d{4}-(\d{1,2})-(\d{1,2})"
    r"|(\d{1,2})[-\s]([A-Za-z]{3,9}))\s*$"
)
_MONTHS = {m: k for k, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}


def _json_cells(v: pd.Series) -> list[object] | None:
    """The cells of ``v`` read as JSON when every one is an object or a list, else None."""
    if not v.str.match(r"^\s*[\[{]").all():
        return None
    try:
        return [json.loads(s) for s in v]
    except ValueError:
        return None


def _is_number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _date_parts(s: str) -> tuple[int, int] | None:
    m = _DATE.match(s)
    if m is None:
        return None
    a, b, c, d, e, f = m.groups()
    if a is not None:
        return int(a), int(b)
    if c is not None:
        return int(c), int(d)
    month = _MONTHS.get(f[:3].lower())
    return None if month is None else (int(e), month)


def packed_cells(
    s: pd.Series, column: str, again: Callable[[str, str], str] | None = None, label: bool = False
) -> str | None:
    """What a column of strings that are a judge's scores in another form holds, and the
    fix: JSON objects with a numeric key (``{"score": 5, "reason": "ok"}``), lists of
    numbers (``[5, 5, 4]``: several runs in one cell), or dates that are scores out of a
    top a spreadsheet read as day and month (``4/5`` saved as ``04/05/2025``). None for
    any other column (real dates on many days, names, texts). ``again``: the line that
    writes the table with pandas code run on it, and the doctor after it
    (:func:`~bacon_bayes.doctor.cells.doctor_again` on the file); else the pandas.
    ``label``: the column is the labels' (lists: several raters' ratings of an item)."""
    unpacked = f"df[{column!r}].dropna().map(lambda s: json.loads(s) if isinstance(s, str) else s)"

    def fix(how: str, take: str) -> str:
        code = f"import json; df[{column!r}] = {unpacked}.map({take})"
        return f"{how}: {again('scores', code)}" if again else f"{how} (in pandas: {code})"

    v = s.dropna().astype(str)
    v = v[v.str.strip() != ""]
    if len(v) < 5:
        return None
    first = f"e.g. {v.iloc[0]!r}"
    cells = _json_cells(v)
    objects = [c for c in cells or () if isinstance(c, dict)]
    if cells is not None and len(objects) == len(cells):
        keys = [k for k in objects[0] if all(_is_number(c.get(k)) for c in objects)]
        if not keys:
            return None
        key = next((k for k in keys if "score" in str(k).lower()), keys[0])
        return (
            f"{PACKED}: JSON objects ({first}) whose key {key!r} is a number on every row; "
            + fix("take it out", f"lambda v: v[{key!r}]")
            + " and run again" * (again is None)
        )
    if cells is not None and all(
        isinstance(c, list) and c and all(_is_number(x) for x in c) for c in cells
    ):
        sizes = sorted({len(c) for c in cells})  # type: ignore[arg-type]
        runs = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
        several = "several raters' ratings of an item" if label else "several runs of a judge"
        return (
            f"{PACKED}: lists of numbers ({first}, {runs} to a cell), {several} in one cell; "
            + fix("take their mean", "lambda v: sum(v) / len(v)")
            + (
                ""
                if label
                else " (or write the long table bacon reads, one row per item, judge and run: "
                "bacon doctor says how to pivot it)"
            )
            + ", and run again" * (again is None)
        )
    parts = [_date_parts(x) for x in v.unique()]
    if not parts or any(p is None for p in parts):
        return None
    for top, score in ((1, 0), (0, 1)):  # the top is the part that never changes
        tops = {p[top] for p in parts if p is not None}
        if len(tops) == 1 and all(p[score] <= p[top] for p in parts if p is not None):
            (t,) = tops
            return (
                f"{PACKED}: dates ({first}) whose day or month is {t} in every cell: "
                f"scores out of {t} (4/{t}) a spreadsheet turned into dates; write them again "
                "as numbers (format the column as text before pasting or typing 4/5, or as "
                "the score alone) and run again"
            )
    return None
