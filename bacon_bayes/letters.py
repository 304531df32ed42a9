"""Judge scores written as letters (``A`` ... ``E``: a letter grade, or the option a
multiple-choice prompt's reply picked, as SummEval's ``mcq`` judges write them). No
reader takes them for numbers: which end is best is not in the letters (a grade's ``A``
is the best, a multiple-choice scale's ``A`` often its first and lowest option), so
``bacon doctor`` names such a column with the numbers that rise with the label, and
``bacon estimate`` with the map to write."""

from __future__ import annotations

import numpy as np
import pandas as pd

#: the letters read as grades or options, in order
LETTERS = "ABCDEF"
#: a column of letters holds at least this many of them (two are a verdict's two words)
MIN_LETTERS = 3
#: the labeled rows it takes to say which order of the letters rises with the label
MIN_LABELED = 10
#: a column of letters whose every letter fills this many rows or more, each in one block
#: of rows or all in blocks of one size, partitions the items (a group's names)
MIN_PART_ROWS = 5
#: how the reason of a column of letters begins (a column ``bacon doctor`` has placed)
LETTER_SCORES = "scores written as letters"
#: ... and of a sparse column of them, the labels (a person's grades)
LETTER_LABELS = "labels written as letters"


def letter_levels(column: pd.Series) -> list[str] | None:
    """The letters of ``column`` in order (``['A', 'B', 'C', 'D', 'E']``) when every
    filled cell is one letter of :data:`LETTERS` (any case, spaces around it) and at
    least :data:`MIN_LETTERS` are written; else None."""
    if not (pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)):
        return None
    try:
        cells = column.dropna().astype(str).str.strip().str.upper()
    except TypeError:  # lists or dicts in the cells (a JSON reader's)
        return None
    cells = cells[cells != ""]
    if cells.empty or not cells.str.fullmatch(f"[{LETTERS}]").all():
        return None
    seen = sorted(cells.unique())
    return seen if len(seen) >= MIN_LETTERS else None


def partition_like(column: pd.Series) -> bool:
    """Whether ``column``'s letters (:func:`letter_levels`) behave like a partition of the
    items, a group's names (systems or arms ``a``, ``b``, ``c``), not a judge's scores:
    written in lower case (a grade or an option is written ``A``), or each letter on
    :data:`MIN_PART_ROWS` rows or more and either in one block of rows (a table ordered by
    its groups) or every letter on as many rows (a design's equal groups). A judge's
    grades follow the items' quality: neither in blocks nor in equal numbers."""
    cells = column.dropna().astype(str).str.strip()
    cells = cells[cells != ""]
    if cells.empty:
        return False
    if bool((cells == cells.str.lower()).all()):
        return True
    upper = cells.str.upper().to_numpy()
    sizes = pd.Series(upper).value_counts()
    if int(sizes.min()) < MIN_PART_ROWS:
        return False
    blocks = 1 + int(np.count_nonzero(upper[1:] != upper[:-1]))
    return blocks == sizes.size or sizes.nunique() == 1


def letter_map(levels: list[str], rising: bool) -> dict[str, int]:
    """The numbers of ``levels`` (in order): 1, 2, ... from the first letter when
    ``rising`` (a multiple-choice scale's ``A`` = 1), else from the last (a grade's
    ``A`` the highest)."""
    k = len(levels)
    return {v: (i + 1 if rising else k - i) for i, v in enumerate(levels)}


def letters_rise(column: pd.Series, label: pd.Series) -> float | None:
    """The rank correlation of ``column``'s letters read as ``A`` = 1, ``B`` = 2 ... with
    ``label`` (numbers) on the rows holding both; None under :data:`MIN_LABELED` such
    rows or when either is constant there."""
    levels = letter_levels(column)
    if levels is None:
        return None
    x = column.astype(str).str.strip().str.upper().map(letter_map(levels, True))
    both = x.notna() & label.notna()
    if both.sum() < MIN_LABELED or x[both].nunique() < 2 or label[both].nunique() < 2:
        return None
    return float(np.corrcoef(x[both].rank(), label[both].rank())[0, 1])


def map_text(name: str, levels: list[str], rising: bool) -> str:
    """The pandas statement that writes ``df[name]``'s letters as the numbers of
    :func:`letter_map`."""
    mapping = ", ".join(f"{v!r}: {n}" for v, n in letter_map(levels, rising).items())
    return f"df[{name!r}] = df[{name!r}].str.strip().str.upper().map({{{mapping}}})"


def letters_fix(column: pd.Series) -> str | None:
    """What ``bacon estimate`` says of a judge or label ``column`` of letters (None for
    any other column): both readings, and the map of each."""
    levels = letter_levels(column)
    if levels is None:
        return None
    name = str(column.name)
    return (
        f"holds letters ({', '.join(map(repr, levels))}), which bacon does not read "
        "as numbers: which end is best is not in the letters. Write them as numbers, e.g. "
        f"in pandas: {map_text(name, levels, True)} (the options of a multiple-choice "
        f"scale, {levels[0]} the lowest), or {map_text(name, levels, False)} (grades, "
        f"{levels[0]} the best); bacon doctor says which rises with the label (the labels' "
        "letters: with the judges)"
    )
