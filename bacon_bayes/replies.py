"""Scores in an LLM judge's replies kept in a table's cells: a cell that is the score as a
reply writes it (``Score: 4/5``, ``[[3]]``, ``Rating: 7 out of 10``), or a whole reply
whose score is marked in it (MT-Bench's ``... Rating: [[8]]``, G-Eval's ``... Score: 4``),
read as the score written; :func:`bacon_bayes.words.word_numbers` reads a column through
:func:`reply_scores`."""

from __future__ import annotations

import re

import pandas as pd

#: a score as an LLM judge's reply writes it (``Score: 4/5``, ``Rating: 7 out of 10``,
#: MT-Bench's ``[[3]]``, ``4 out of 5``, ``Final score = 4``), read as the score written
#: (groups: the word before it, the score in double brackets, the score, its top)
_REPLY = (
    r"^\s*(?:((?:(?:final|overall|total)\s+)?(?:score|rating|grade)|overall|verdict)\s*[:=]\s*)?"
    r"(?:\[\[\s*(\d+(?:\.\d+)?)\s*\]\]|(\d+(?:\.\d+)?)(?:\s*(?:/|out\s+of)\s*(\d+))?)"
    r"\s*\.?\s*$"
)
_REPLY_RE = re.compile(_REPLY, re.IGNORECASE)
_OUT_OF = re.compile(r"out\s+of", re.IGNORECASE)
#: a score marked inside a longer reply: MT-Bench's double brackets, Prometheus'
#: ``[RESULT] 4``, or the word score, rating or grade, a colon, ``=`` or ``is``
#: (markdown's ``**`` around either), then the score and its top if written (groups: the
#: score in brackets, after ``[RESULT]``, after its word; its top)
_IN_TEXT = re.compile(
    r"\[\[\s*(\d+(?:\.\d+)?)\s*\]\]"
    r"|\[RESULT\]\s*(\d+(?:\.\d+)?)(?!\.?\d)"
    r"|\b(?:score|rating|grade)\b[\s*_]*(?::|=|\bis\b)[\s*_]*(\d+(?:\.\d+)?)(?!\.?\d)"
    r"(?:\s*(?:/|out\s+of)\s*(\d+))?",
    re.IGNORECASE,
)
#: a column named as a score's reasons (DeepEval's ``... reason``: "The score is 0.80
#: because ..."): the score is in a column of its own, and the reasons are not read
_RATIONALE = re.compile(r"reason|rationale|explanation|justification", re.IGNORECASE)
#: the first filled cells a column's replies are screened on for marked scores
_SCREEN = 256


def reply_scores(column: pd.Series, head: list[str]) -> tuple[pd.Series, str] | None:
    """The scores in ``column``'s cells written as an LLM judge's replies, and how they
    were read; None when most of its first filled cells (``head``, as text) are not such.

    A cell that is only the score (:data:`_REPLY`: ``Score: 4/5``, ``[[3]]``, ``Rating: 7
    out of 10``; each with its word, brackets or ``out of``, one word and one top in every
    cell, none above it) reads as the score written (4). Else a column whose cells are
    replies with the score marked in them (:data:`_IN_TEXT`) reads each as the last score
    marked (a reply's verdict comes last), with one top at most and none above it; a
    reply that marks none reads as NaN (a judge's failure: the readers name the cell). A
    column named as reasons (:data:`_RATIONALE`) is not read so."""
    if _most_replies(head):
        return _replies(column)
    screen = head[:_SCREEN]
    if _RATIONALE.search(str(column.name)):  # a score's reasons, beside the score's column
        return None
    if screen and sum(_IN_TEXT.search(v) is not None for v in screen) > 0.5 * len(screen):
        return _in_text(column)
    return None


def _most_replies(head: list[str]) -> bool:
    """Whether more than half of ``head`` are a score with its word, brackets or ``out
    of``, as :func:`_replies` counts them."""

    def marked_score(v: str) -> bool:
        m = _REPLY_RE.search(v)
        if m is None or (m[2] is None and m[3] is None):
            return False
        return m[1] is not None or m[2] is not None or _OUT_OF.search(v) is not None

    return bool(head) and sum(map(marked_score, head)) > 0.5 * len(head)


def _replies(column: pd.Series) -> tuple[pd.Series, str] | None:
    """The cells that are a score as a reply writes it (:func:`reply_scores`)."""
    text = column.astype(str).where(column.notna())
    parts = text.str.extract(_REPLY, flags=re.IGNORECASE)
    score = parts[1].fillna(parts[2]).astype(float)
    words = parts[0].dropna().str.lower().str.split().str.join(" ").unique()
    tops = parts[3].dropna().astype(float).unique()
    if len(words) > 1 or len(tops) > 1:  # 'Score: 4' beside 'Rating: 4', '4/5' beside '7/10'
        return None
    if len(tops) and (tops[0] < 2 or (score > tops[0]).any()):
        return None
    if len(tops) and parts[3].isna()[score.notna()].any():  # 'Score: 4/5' beside 'Score: 4'
        return None
    first = score.first_valid_index()
    said = f"{str(column[first]).strip()!r} = {score[first]:g}"
    return score, f"read as numbers from a judge's replies ({said})"


def _in_text(column: pd.Series) -> tuple[pd.Series, str] | None:
    """The last score marked in each reply (:func:`reply_scores`)."""
    found = {k: _last(v) for k, v in column.items() if isinstance(v, str)}
    marks = {k: m for k, m in found.items() if m is not None}
    tops = {float(m[4]) for m in marks.values() if m[4] is not None}
    score = pd.Series(
        {k: float(m[1] or m[2] or m[3]) for k, m in marks.items()}, index=column.index, dtype=float
    )
    if not marks or len(tops) > 1 or (tops and (min(tops) < 2 or score.max() > min(tops))):
        return None
    k, m = next(iter(marks.items()))
    said = f"{m[0].strip()!r} in reply {column.index.get_loc(k) + 1} = {score[k]:g}"
    return score, f"read as numbers from the score marked in a judge's replies ({said})"


def _last(reply: str) -> re.Match[str] | None:
    """The last score :data:`_IN_TEXT` finds in ``reply``."""
    last = None
    for last in _IN_TEXT.finditer(reply):  # noqa: B007 (the loop keeps the last)
        pass
    return last


#: a verdict marked in a pair judge's reply: MT-Bench's ``[[A]]`` / ``[[B]]`` / ``[[C]]``,
#: Arena-Hard's ``[[A>>B]]``
_MARKED = re.compile(r"\[\[[^\[\]\n]{1,8}\]\]")


def marked_verdicts(column: pd.Series, words: dict[str, str]) -> tuple[pd.Series, str] | None:
    """A pair judge's column of whole replies, each read as the last verdict it marks in
    double brackets (``words``: the verdict words, lower case, as who wins: ``[[a]]`` ->
    ``A``), and a note of how it was read (the replies that mark none, NaN, counted);
    None unless every filled cell is text and more than half of them mark a verdict."""
    filled = column.dropna()
    if filled.empty or not all(isinstance(v, str) for v in filled):
        return None

    def last(reply: str) -> str | None:
        marks = [words.get(re.sub(r"\s+", "", m.lower())) for m in _MARKED.findall(reply)]
        return next((m for m in reversed(marks) if m is not None), None)

    read = column.map(last, na_action="ignore")
    if read.notna().sum() <= 0.5 * len(filled):
        return None
    marks = "[[A]] / [[B]] / [[C]]"
    note = f"column {str(column.name)!r}: the verdict each judge reply marks last ({marks})"
    note += " read as A / B / tie"
    if unmarked := int(len(filled) - read.notna().sum()):
        some = f"{unmarked} repl{'y marks' if unmarked == 1 else 'ies mark'}"
        note += f"; {some} none: no verdict there"
    return read, note
