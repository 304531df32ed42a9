"""What a reader found in a file besides the table: the roles of its columns."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class TableMeta:
    """The columns a reader knows the role of (None or empty where it does not).

    Attributes
    ----------
    format : str
        ``csv``, ``parquet``, ``inspect``, ``lm-eval``, ``promptfoo``, ``openai-evals``,
        ``label-studio``, ``label-studio-min``, ``argilla``, ``json`` or ``jsonl``; for
        pairwise files (:mod:`bacon_bayes.readers.pairwise`) ``arena``, ``alpacaeval`` or
        ``mt-bench``.
    item : str or None
        Column of item ids (the key ``--labels`` files are joined on).
    judges : list of str
        Judge score columns (model-graded scores, or per-sample metrics).
    group, prompt : str or None
        Column of the group (e.g. the model or provider) and of the prompt the groups
        answer in common.
    text : list of str
        Text columns (input, output), the response first.
    response : str or None
        The column holding the response text (its length is what ``bacon doctor`` checks
        judges against).
    scores : DataFrame or None
        Long judge table (``item``, ``judge``, ``run``, ``score``) when the file holds
        repeated runs (Inspect AI epochs); the wide judge columns are then their means.
    other_scores : list of str
        Score columns that are not judges by default (Inspect AI scorers that are not
        model-graded); ``--judge NAME`` uses them.
    notes : list of str
        What the reader did that a user should know.
    judge_kinds : dict
        Judge -> what it is in the file (``bacon doctor`` gives it as the reason).
    pairwise : bool
        Whether each row is a comparison of two models' answers (then ``model_a``,
        ``model_b`` and ``label`` name the columns, and judges hold verdicts A/B/tie).
    model_a, model_b, label : str or None
        Pairwise files: the columns of the two models and of the human verdict.
    """

    format: str
    item: str | None = None
    judges: list[str] = field(default_factory=list)
    group: str | None = None
    prompt: str | None = None
    text: list[str] = field(default_factory=list)
    response: str | None = None
    scores: pd.DataFrame | None = None
    other_scores: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    judge_kinds: dict[str, str] = field(default_factory=dict)
    pairwise: bool = False
    model_a: str | None = None
    model_b: str | None = None
    label: str | None = None


def id_column(frame: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    """The first column of ``names`` in ``frame`` whose values are all there and distinct:
    the items' id. A column named like an id whose values repeat (SummEval's ``doc_id``,
    one document summarized by every system) is no id, whatever the file's format: the
    prompt the groups answer in common, perhaps.

    Parameters
    ----------
    frame : DataFrame
        The table read.
    names : tuple of str
        Column names taken as an id, in order of preference.

    Returns
    -------
    str or None
        The id column, or None when no such column is unique.
    """
    for c in names:
        if c in frame.columns and frame[c].notna().all() and frame[c].is_unique:
            return c
    return None
