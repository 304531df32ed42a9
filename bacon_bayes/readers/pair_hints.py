"""Tables of comparisons written without the model columns' usual names: their columns of
A / B / tie verdicts, the two columns of model names and the human votes
(:func:`comparison_columns`), and doctor's sentence that reads such a table as
comparisons (:func:`comparisons_hint`)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pandas as pd

from bacon_bayes.readers.pairwise import _WORDS, _all_verdicts

__all__ = ["comparison_columns", "comparisons_hint"]

#: the names of a column of human votes (:data:`bacon_bayes.readers.pair_table.LABEL_NAMES`)
LABEL_NAMES = ("label", "winner", "human_label")


def comparison_columns(
    frame: pd.DataFrame,
) -> tuple[list[str], tuple[str, str] | None, str | None]:
    """What makes ``frame`` look like a table of comparisons without the model columns'
    usual names: its columns of A / B / tie verdicts, the two columns of text that share
    their values (the models of each row; None when no two do) and the human votes (the
    sparsest verdict column with empty cells, where no column has a label's name; None
    else). No verdict column: ``([], None, None)``."""
    verdicts = [
        str(c) for c in frame.columns
        if _all_verdicts(frame[c].tolist())
        and {"A", "B"} <= {_WORDS.get(str(v).strip().lower()) for v in frame[c].dropna().unique()}
    ]  # fmt: skip
    if not verdicts:
        return [], None, None
    text = [
        str(c) for c in frame.columns
        if c not in verdicts and pd.api.types.is_string_dtype(frame[c])
        and 1 < frame[c].nunique() <= len(frame) / 2
    ]  # fmt: skip
    pair = next(
        (
            (a, b) for k, a in enumerate(text) for b in text[k + 1 :]
            if len(set(frame[a].dropna()) & set(frame[b].dropna()))
            >= 0.5 * len(set(frame[a].dropna()) | set(frame[b].dropna()))
        ),
        None,
    )  # fmt: skip
    gaps = {c: int(frame[c].isna().sum()) for c in verdicts}
    votes = max(verdicts, key=lambda c: gaps[c])  # the human votes: the sparsest column
    named = any(c in frame.columns for c in LABEL_NAMES)
    return verdicts, pair, votes if gaps[votes] and not named else None


def comparisons_hint(frame: pd.DataFrame, path: str | Path) -> str:
    """For ``bacon doctor`` without ``--pairwise``: a sentence saying that ``frame``'s
    columns of A / B / tie verdicts look like comparisons, with the ``--pairwise`` command
    (its two model columns when two columns of text share their names); "" when no column
    holds such verdicts."""
    verdicts, pair, votes = comparison_columns(frame)
    if not verdicts:
        return ""
    models = "--model-a COL --model-b COL" if pair is None else (
        f"--model-a {shlex.quote(pair[0])} --model-b {shlex.quote(pair[1])}"
    )  # fmt: skip
    if votes:
        models += f" --label {shlex.quote(votes)}"
    return (
        f"columns {', '.join(verdicts)} hold A / B / tie verdicts: if each row compares two "
        f"models, read the table as comparisons: bacon doctor {shlex.quote(str(path))} "
        f"--pairwise {models}"
    )
