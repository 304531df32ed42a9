"""The first labels of a table that has none yet: the pool's own empty column they go in
(:func:`empty_label`) and the ``bacon sample`` command that draws the items to label into
it with the roles ``bacon doctor`` found (:func:`sample_command`)."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import pandas as pd

from bacon_bayes.doctor.names import LABEL_HINT, aspect_ratings
from bacon_bayes.doctor.strings import several_words

if TYPE_CHECKING:
    from bacon_bayes.doctor.roles import Roles

#: doctor's reason for a numeric column with no value on any row
EMPTY = "empty (no value on any row)"
#: the share of the pool a first (uniform) pilot labels: bacon plan's advice without a
#: pilot (:func:`bacon_bayes.planning.prior.no_pilot`)
PILOT_SHARE = 0.03
#: the fewest labels of a first pilot: two per cross-fitting fold of bacon estimate's 5,
#: twice over
PILOT_MIN = 20
#: the names of the label a study collects for a pool with no label column
#: (:func:`new_label`), the first the pool does not use
NEW_LABELS = ("human", "human_label", "label")
#: a text column named like what the response answers, shown to labellers before it
ASKED = re.compile(r"source|src|article|input|prompt|question|context|document", re.I)
#: the formats ``bacon sample`` reads a pool from
SAMPLED_FORMATS = ("csv", "tsv", "parquet")


def empty_label(roles: Roles, frame: pd.DataFrame) -> str | None:
    """The pool's own label column with no label in it yet: the label taken (named with
    ``--label``) when it is empty, else the one numeric column with no value on any row
    (of several, the one named like a label or like an aspect the judges score); None
    otherwise."""
    if roles.label is not None:
        return None if frame[roles.label].notna().any() else roles.label
    empties = [c for c, why in roles.left_out.items() if why == EMPTY]
    if len(empties) > 1:
        rated = aspect_ratings([str(c) for c in frame.columns])
        empties = [c for c in empties if LABEL_HINT.search(c) or c in rated]
    return empties[0] if len(empties) == 1 else None


def pilot_size(n_items: int) -> int:
    """The items of a first uniform pilot of ``n_items``: :data:`PILOT_SHARE` of them,
    at least :data:`PILOT_MIN` (all of a smaller pool)."""
    return min(n_items, max(math.ceil(PILOT_SHARE * n_items), PILOT_MIN))


def judges_scale(judges: list[str], scales: dict[str, str]) -> str | None:
    """The scale every judge shares (``scales``: doctor's, ``-`` for none evident), or
    None."""
    shared = {scales.get(j, "-") for j in judges}
    return shared.pop() if len(shared) == 1 and "-" not in shared else None


def shown_columns(roles: Roles, frame: pd.DataFrame) -> list[str]:
    """The columns a labeller sees in the to-label file (``--show``), what was asked
    first: the prompt when it is text (a question, a source sentence: a translation or
    an answer cannot be judged without it; not a code such as a document id) and the
    texts named like it (:data:`ASKED`), then the response and the other texts doctor
    found."""
    prompt = roles.prompt
    asked = [prompt] if prompt is not None and several_words(frame[prompt]) else []
    asked += [t for t in roles.text if t != roles.response and ASKED.search(t)]
    return [*asked, *[t for t in roles.text if t != prompt and t not in asked]]


def sample_command(
    file: str,
    frame: pd.DataFrame,
    label: str,
    roles: Roles,
    columns: dict[str, list[str]],
    scale: str | None,
    n_items: int,
    unscored: bool,
) -> list[str]:
    """``bacon sample`` on the pool ``file`` (read as ``frame``): a uniform pilot of
    :func:`pilot_size` items to label into ``label``, with ``columns`` (option -> its
    words: the id, the judges as doctor's estimate command names them, the group and
    prompt it keeps), the prompt and response texts doctor found (``--show``,
    :func:`shown_columns`), the label's ``scale`` if known; ``--drop-unscored`` where rows
    have no judge score."""
    cmd = ["bacon", "sample", file, "--label", label]
    for words in columns.values():
        cmd += words
    if scale is not None:
        cmd += [f"--scale={scale}"] if scale.startswith("-") else ["--scale", scale]
    shown = [t for t in shown_columns(roles, frame) if "," not in t]
    cmd += ["--show", ",".join(shown)] if shown else []
    cmd += ["--drop-unscored"] if unscored else []
    return [*cmd, "--design", "uniform", "--budget", str(pilot_size(n_items))]


def new_label(columns: list[str]) -> str:
    """The name of the label a study collects for a pool with no label column: the first
    of :data:`NEW_LABELS` the pool does not use."""
    taken = {c.lower() for c in columns}
    return next((n for n in NEW_LABELS if n not in taken), NEW_LABELS[-1] + "_1")


def sample_note(label: str, command: list[str], judged_scale: bool, new: bool = False) -> str:
    """What doctor says of the labels to draw into the empty column ``label`` with
    ``command`` (:func:`sample_command`; ``judged_scale``: it passes the judges' scale;
    ``new``: the pool has no label column, the study adds ``label``)."""
    budget = command[command.index("--budget") + 1]
    scale = (
        "; its --scale is the judges' scale: change it if the labels are on another"
        if judged_scale
        else ""
    )
    where = (
        f"the pool has no label column, so label a sample of items into a new one, {label!r} "
        "(name it as you like with --label)"
        if new
        else f"column {label!r} is empty, so label a sample of items into it"
    )
    return (
        f"only the raw judge average (no human labels): {where}. The bacon sample command "
        "below starts a study and "
        f"writes the {budget} items of a uniform pilot to label ({PILOT_SHARE:.0%} of the "
        f"pool, at least {PILOT_MIN}){scale}; bacon label import brings the labels in, and "
        "bacon plan on the study then sizes the rest"
    )
