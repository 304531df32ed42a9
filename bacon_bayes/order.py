"""Natural order of names (``M8`` before ``M10``) for tables and plots, the order of
waves (:func:`wave_order`; a pool's wave codes, :func:`wave_codes`), and the distinct
names of a large array by hashing (:func:`unique_codes`)."""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.arguments import need_column
from bacon_bayes.errors import ValidationError

_DIGITS = re.compile(r"(\d+)")
#: dates whose order text cannot give: day or month first (20/11/2023, 11.20.23), or a
#: month's name (20 Nov 2023, Nov 20, 2023); ISO dates (2023-11-20) sort naturally
_UNORDERED_DATE = re.compile(
    r"^\s*\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b"
    r"|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(\s|,|-|/|$)",
    re.IGNORECASE,
)

#: marks that separate the names of a list in a message (:func:`name_text`)
_LIST_MARKS = re.compile(r"[,;]")
#: :func:`unique_codes` of read-only arrays, by id, while the array lives
_KEPT: dict[int, tuple[weakref.ref, np.ndarray, np.ndarray]] = {}


def natural_key(name: Any) -> tuple:
    """Sort key comparing the runs of digits in ``name`` as numbers (``M8`` < ``M10``);
    names without digits compare as plain strings.

    Parameters
    ----------
    name : object
        A name (converted with ``str``).

    Returns
    -------
    tuple
        Alternating text and number parts, comparable between any two names.
    """
    parts = _DIGITS.split(str(name))
    return tuple((0, int(p), "") if k % 2 else (1, 0, p) for k, p in enumerate(parts) if p != "")


def natural_sorted(names: Iterable[Any]) -> list:
    """``names`` in natural order (see :func:`natural_key`)."""
    return sorted(names, key=natural_key)


def wave_order(names: Iterable[str], column: str) -> list[str]:
    """The waves ``names`` (text) in natural order: ``wave9`` before ``wave10``, ISO dates
    (``2023-11-20``, with a time or not) in time order.

    Raises
    ------
    ValidationError
        A date written day or month first, or with a month's name, whose order its text
        does not give (``01/10/2024`` sorted before ``11/20/2023``): naming the column,
        the value and the fix.
    """
    names = list(names)
    dated = [v for v in names if _UNORDERED_DATE.search(v) and _DIGITS.search(v)]
    if dated:
        raise ValidationError(
            f"wave column {column!r} holds dates such as {dated[0]!r}, whose order its text "
            "does not give (day or month first, or a month's name: in text order "
            "01/10/2024 comes before 11/20/2023); write the waves as ISO dates "
            "(2023-11-20) or as wave numbers (1, 2, 3)."
        )
    return natural_sorted(names)


def natural_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``values`` (as strings) in natural order, and each value's
    index among them (as ``np.unique(..., return_inverse=True)``, naturally ordered).

    Parameters
    ----------
    values : numpy.ndarray
        Group (or other) names, one per item.

    Returns
    -------
    names : numpy.ndarray
        Distinct names, naturally sorted.
    codes : numpy.ndarray
        Index of each value's name in ``names``.
    """
    names, codes = unique_codes(values)
    order, rank = _natural_order(tuple(names.tolist()))
    return names[order], rank[codes]


@lru_cache(maxsize=32)  # few: a list of a pool's prompts may hold 100,000 names
def _natural_order(names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The natural order of ``names`` and each name's rank in it (read-only), kept: the
    estimators of a Monte Carlo ask for the same groups' and prompts' order every draw."""
    order = np.array(sorted(range(len(names)), key=lambda k: natural_key(names[k])), dtype=int)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    order.setflags(write=False)
    rank.setflags(write=False)
    return order, rank


def unique_codes(
    values: np.ndarray, factorized: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values.astype(str), return_inverse=True)`` (flattened), by hashing:
    the values are factorised first and only the distinct ones converted and sorted
    (sorting a million names as Python strings took seconds). For a read-only array
    that owns its data (a pool's groups) the answer is kept while the array lives and
    returned read-only: the estimators, the cross-fit shares and the plan ask for the
    same groups' codes. Returns the names (sorted as strings) and each value's index
    among them, as :func:`natural_codes` does in natural order. ``factorized``: the
    codes and distinct strings of ``values`` when already known (``pd.factorize``).
    """
    kept = isinstance(values, np.ndarray) and not values.flags.writeable and values.base is None
    if kept:
        held = _KEPT.get(id(values))
        if held is not None and held[0]() is values:
            return held[1], held[2]
    if factorized is not None:
        names, inverse = np.unique(np.asarray(factorized[1]).astype(str), return_inverse=True)
        codes = inverse.ravel()[factorized[0]]
    else:
        names, codes = _unique_codes(values)
    if kept:
        names.setflags(write=False)
        codes.setflags(write=False)
        key = id(values)
        _KEPT[key] = (weakref.ref(values, lambda _, key=key: _KEPT.pop(key, None)), names, codes)
    return names, codes


def _unique_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    flat = np.asarray(values).ravel()
    codes, distinct = pd.factorize(flat, use_na_sentinel=False)
    if pd.isna(distinct).any():  # factorize merges None and NaN; their strings differ
        names, inverse = np.unique(flat.astype(str), return_inverse=True)
        return names, inverse.ravel()
    names, inverse = np.unique(np.asarray(distinct).astype(str), return_inverse=True)
    return names, inverse.ravel()[codes]


def name_text(name: Any) -> str:
    """``name`` as a list of names shows it: as written, or quoted (``'Lan, Bridge'``)
    where it holds a comma or semicolon, is empty or has spaces around it, so that a
    list joined by ", " or "; " reads as the names it holds."""
    text = str(name)
    if not text or text != text.strip() or _LIST_MARKS.search(text):
        return repr(text)
    return text


def cell_name(name: Any) -> str:
    """``name`` as a table's cell shows it: as written, or quoted (``' M8'``) where it is
    empty or has spaces around it, which a right-aligned table would hide (``M8`` and
    ``' M8'`` two rows that read the same)."""
    text = str(name)
    return repr(text) if not text or text != text.strip() else text


def names_text(names: Iterable[Any], sep: str = ", ") -> str:
    """``names`` joined by ``sep``, each as :func:`name_text` shows it."""
    return sep.join(map(name_text, names))


def pair_text(a: object, b: object) -> str:
    """The pair ``a - b`` as the text shows it: a name holding " - " quoted (``'gpt-4o -
    2024' - base``), so the pair reads as its two groups, and one with spaces around it
    (``' M8' - M9``), so it reads apart from the name without them."""
    return " - ".join(
        repr(n) if " - " in n or n != n.strip() or not n else n for n in (str(a), str(b))
    )


#: the separators between a name's words that :func:`spelling_key` takes for one
#: another (``vicuna 13b``, ``vicuna-13b``, ``VICUNA_13B``); no backslash: the pandas line
#: that writes names one way (:func:`bacon_bayes.doctor.cells.one_spelling_line`) uses it
SEPARATORS = "[ _-]+"


def spelling_key(name: str) -> str:
    """``name`` with case, spaces around it and the separators between its words (space,
    ``-``, ``_``, :data:`SEPARATORS`) set aside: the names of one key are one name
    written several ways (``vicuna-13b``, ``Vicuna 13B``); ``gpt4`` and ``gpt-4`` stay
    apart."""
    return re.sub(SEPARATORS, "-", name.strip()).casefold()


def spelling_variants(names: Iterable[Any]) -> list[list[str]]:
    """Sets of ``names`` that differ only in case, in spaces around them or in the
    separators between their words (``['M10', 'm10', 'M10 ']``, ``['vicuna-13b', 'vicuna
    13b']``; :func:`spelling_key`), each in the order the names come, the sets in the
    natural order of the name they share: one model or group written several ways, which
    every table reads as several."""
    by_key: dict[str, list[str]] = {}
    for name in map(str, names):
        seen = by_key.setdefault(spelling_key(name), [])
        if name not in seen:
            seen.append(name)
    return [by_key[k] for k in natural_sorted(by_key) if len(by_key[k]) > 1]


def spellings_text(sets: list[list[str]], most: int) -> str:
    """The first ``most`` of :func:`spelling_variants`' ``sets`` as text (``'M10', 'm10';
    'M8 ', 'M8'``), with how many more."""
    shown = "; ".join(", ".join(map(repr, v)) for v in sets[:most])
    return shown + (f" and {len(sets) - most} more" if len(sets) > most else "")


def spellings_note(names: Iterable[Any], what: str, fix: str) -> str:
    """A note when ``names`` (of ``what``: models, groups) differ only in case, spaces
    around them or the separators between words (:func:`spelling_key`): every table reads
    them as different ``what`` (60 models where there were 20), with ``fix``, how to
    write each one way; "" otherwise. Said by a pool and by ``bacon doctor``."""
    many = spelling_variants(names)
    if not many:
        return ""
    return (
        f"{len(many)} {what[:-1]} name(s) are written several ways, read as different "
        f"{what} ({spellings_text(many, 3)}): {fix} if they are one"
    )


def group_spellings(names: Iterable[Any], column: str | None) -> str:
    """:func:`spellings_note` of the group names of ``column`` (estimate, report and plan
    by groups): 'M8', 'm8' and 'M8 ' are three groups, each with its own mean and
    interval."""
    col = repr(column or "group")
    fix = (
        f"write each group one way (e.g. df[{col}] = df[{col}].str.strip().str.upper()"
        ".str.replace('[ _-]+', '-', regex=True))"
    )
    return spellings_note(names, "groups", fix)


def wave_codes(
    df: pd.DataFrame, col: str, y: np.ndarray, rows: Callable[[int], str]
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each label's wave code (0..K-1 in the waves' order; -1 unlabeled) and the waves'
    names, from the wave column ``col`` of ``df`` (``y``: the labels; ``rows``: a row's
    place in words, for messages). Dates (a datetime column) are named as ISO dates
    (``2024-01-05``, with the time where one is not midnight)."""
    need_column(df, col, "wave")
    given = df[col].notna().to_numpy()
    labeled = ~np.isnan(y)
    for bad, what in ((labeled & ~given, "is empty at labeled"), (~labeled & given, "has a wave "
                      "at unlabeled")):  # fmt: skip
        if bad.any():
            pos = int(np.argmax(bad))
            raise ValidationError(
                f"wave column {col!r} {what} {rows(pos)}; every labeled row needs "
                "the wave its label came in, and an unlabeled row none (empty the cell or add "
                "the label)."
            )
    values = df[col][labeled]
    if pd.api.types.is_datetime64_any_dtype(values):  # dates, not their microseconds
        stamps = pd.DatetimeIndex(values)
        days = stamps.unique().sort_values()
        text = days.strftime("%Y-%m-%d") if (days == days.normalize()).all() else days.map(
            lambda t: t.isoformat()
        )  # fmt: skip
        return _codes(labeled, days.get_indexer(stamps)), tuple(str(t) for t in text)
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.notna().all():  # numbers: whole ones as integers (wave 2, not 2.0)
        whole = bool((numeric == np.round(numeric)).all())
        values = numeric.astype(np.int64) if whole else numeric
    try:
        uniq = pd.unique(values)  # text in natural order (wave9 before wave10), as groups
        names = wave_order(uniq, col) if all(isinstance(v, str) for v in uniq) else sorted(uniq)
    except TypeError as exc:
        raise ValidationError(
            f"wave column {col!r} mixes values that cannot be ordered (e.g. numbers and "
            "text); give every wave a number or a date."
        ) from exc
    plain = [v.item() if isinstance(v, np.generic) else v for v in names]
    return _codes(labeled, pd.Index(names).get_indexer(values)), tuple(map(str, plain))


def _codes(labeled: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The labeled rows' wave ``codes``, -1 at the others; read-only."""
    out = np.full(labeled.size, -1, dtype=np.intp)
    out[labeled] = codes
    out.setflags(write=False)
    return out


#: which way a group mean is better: the one word every "best", "top" and "leads" reads
#: (``bacon estimate/report/plan/status/sample --better``, a study's ``better``)
BETTER = ("higher", "lower")


def check_better(better: str | None) -> str:
    """``better`` (``"higher"``, the default for None, or ``"lower"``: an error score such
    as MQM, where the best group has the lowest mean), refused with the fix otherwise."""
    if better is None:
        return "higher"
    if better not in BETTER:
        raise ValidationError(
            f"better={better!r} is not a direction; give 'higher' (a higher mean is better, "
            "the default) or 'lower' (an error score such as MQM: the lowest mean is best)"
        )
    return better


def best_words(better: str | None) -> str:
    """What "best" means, for the lines that name the best or top group: ``"highest
    mean"`` or ``"lowest mean"``."""
    return f"{'lowest' if check_better(better) == 'lower' else 'highest'} mean"
