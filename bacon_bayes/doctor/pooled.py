"""``bacon doctor``'s diagnostics of a validated pool (for ``bacon report``'s data check).

:func:`profile_pool` runs the same checks as :func:`bacon_bayes.doctor.profile` (judge
coverage, agreement between judges and with the labels, length and group bias) on an
:class:`~bacon_bayes.pool.EvalPool`: the judges' mean scores per item
(``pool.judge_matrix()``), the labels ``pool.y``, the groups ``pool.groups`` and the
item text ``pool.text`` (or another text given), with no table to read and no model fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bacon_bayes.doctor import agreement, bias
from bacon_bayes.doctor.label import label_scale
from bacon_bayes.doctor.relation import (
    COPY_HARM,
    copy_of_label,
    could_copy,
    coverage_split,
    near_copy,
)
from bacon_bayes.doctor.scores import absent_groups, codes_text, judge_scales, zeros_text
from bacon_bayes.order import name_text
from bacon_bayes.scale import Scale, open_scale

if TYPE_CHECKING:
    from bacon_bayes.pool import EvalPool

__all__ = ["PoolCheck", "better_hint", "better_hint_of", "judge_warnings", "profile_pool"]

#: the label's column in the frame the agreement functions read (not a judge's name)
_LABEL = "\x00label"


@dataclass
class PoolCheck:
    """What :func:`profile_pool` found (the fields of :class:`~bacon_bayes.doctor.Profile`).

    Attributes
    ----------
    judges : list of str
        The pool's judges.
    coverage : dict
        Judge -> share of items it scored.
    with_label : DataFrame or None
        Each judge against the labels (:func:`~bacon_bayes.doctor.agreement.with_label`).
    between : DataFrame or None
        Spearman's rho of every pair of judges (two judges or more).
    judges_alpha : tuple or None
        Krippendorff's alpha of the judges on the labels' scale, how it was computed and
        which judges.
    length : list of LengthBias
        The length check of each judge (with a text).
    length_note : str
        Why there is no length check, when there is none.
    length_left_out : int
        Labeled items the length check left out for want of a text.
    groups : dict
        Judge -> its group-bias table (:func:`~bacon_bayes.doctor.bias.group_bias`).
    length_skipped : dict
        Judge -> why it has no length check.
    alpha : float
        1 - confidence level of the bias intervals.
    bias_note : str
        What the bias checks negated (an error-score label, a reversed judge), as
        ``bacon doctor`` says it.
    scale : Scale or None
        The label's scale as ``bacon doctor`` reads it from the labels (an error score's
        ``0:inf``, where no other is evident); None: none evident.
    """

    judges: list[str]
    coverage: dict[str, float]
    alpha: float
    with_label: pd.DataFrame | None = None
    between: pd.DataFrame | None = None
    judges_alpha: tuple[float, str, list[str]] | None = None
    length: list[bias.LengthBias] = field(default_factory=list)
    length_note: str = ""
    length_left_out: int = 0
    groups: dict[str, pd.DataFrame] = field(default_factory=dict)
    length_skipped: dict[str, str] = field(default_factory=dict)
    bias_note: str = ""
    scale: Scale | None = None


def _error_score(bounds: tuple[float, float] | None) -> bool:
    """A label whose range is open at one end (``0:inf``, ``-inf:0``): an error score, as
    ``bacon doctor`` reads an open scale."""
    return bounds is not None and not bool(np.isfinite(bounds).all())


def profile_pool(
    pool: EvalPool,
    alpha: float = 0.05,
    text: np.ndarray | pd.Series | None = None,
    bounds: tuple[float, float] | None = None,
) -> PoolCheck:
    """``bacon doctor``'s agreement and bias checks on a pool.

    Parameters
    ----------
    pool : EvalPool
        The pool (a fitted calibrator's ``pool_``).
    alpha : float
        1 - confidence level of the bias intervals.
    text : array-like of str, optional
        The response text of each item, aligned with the pool's items (default
        ``pool.text``); empty strings count as no text. Without one the length check is
        skipped (``length_note`` says so).
    bounds : tuple of float, optional
        The label's range (the calibrator's ``bounds_``): one open at one end is an error
        score, whose bias checks run on -label where every judge falls with it, as
        ``bacon doctor``'s (:func:`~bacon_bayes.doctor.bias.oriented_biases`).

    Returns
    -------
    PoolCheck
    """
    scores = pool.judge_matrix()
    judges = [str(j) for j in pool.judges]
    frame = pd.DataFrame(scores.to_numpy(dtype=float), columns=judges)
    y = np.asarray(pool.y, dtype=float)
    frame[_LABEL] = y
    check = PoolCheck(
        judges=judges,
        coverage={j: float(frame[j].notna().mean()) for j in judges},
        alpha=alpha,
    )
    labeled = np.isfinite(y)
    if labeled.sum() >= 2:
        check.with_label = agreement.with_label(frame, judges, _LABEL)
    if len(judges) > 1:
        check.between, check.judges_alpha = agreement.among_judges(frame, judges, y)
    if labeled.any():  # as doctor reads it (the far labels' message is doctor's own)
        place = lambda k: f"item {str(pool.ids[k])!r}"  # noqa: E731
        check.scale, far = label_scale(y, pool.label_name, place, judge_scales(frame[judges]))
        if not far:  # an error score: 0 at one end
            check.scale = open_scale(y, check.scale, pool.label_name)
    if labeled.sum() < 2:
        check.length_note = "fewer than 2 labels: no bias checks"
        return check
    text = pool.text if text is None else text
    length = None
    if text is not None:
        length = bias.words(pd.Series(np.asarray(text, dtype=object)).replace("", pd.NA))
    groups = None if pool.groups is None else np.asarray(pool.groups)
    how, check.length, check.groups, check.length_skipped = bias.oriented_biases(
        y, frame[judges], length, groups, pool.label_name, _error_score(bounds), alpha
    )
    check.bias_note = how.note
    check.length_left_out = bias.without_text(y, length)
    if length is None:
        check.length_note = "no response text (pass --text COLUMN): response length not checked"
    elif not check.length:
        check.length_note = f"too few labeled items (< {bias.MIN_LENGTH_N}) with a text"
    return check


def judge_warnings(pool: EvalPool) -> list[str]:
    """What makes the pool's judges unfit for its labels, said by ``Calibrator.fit`` (as
    warnings) and by ``bacon estimate`` and ``bacon report`` (as notes): rows no judge
    scored (each gets one made-up score and enters every estimate), a judge equal to the
    label on every labeled row (:func:`~bacon_bayes.doctor.relation.copy_of_label`) or
    nearly (:func:`~bacon_bayes.doctor.relation.near_copy`: the label rounded, or the label
    where there is one and another judge elsewhere), and a
    judge scored on a far larger share of the labeled rows than of the others, or the other
    way round (:func:`~bacon_bayes.doctor.relation.coverage_split`); failure codes outside
    a judge's scale (:func:`~bacon_bayes.doctor.scores.codes_text`), its failures written
    0 as the other judges rank them (:func:`~bacon_bayes.doctor.scores.zeros_text`: not the
    label, which changes with the draw) and judges that score
    no item of whole groups (:func:`~bacon_bayes.doctor.scores.absent_groups`). Notes
    that change with the rows labeled (a judge's missingness against the label:
    :func:`~bacon_bayes.doctor.relation.missingness_notes`) are not among them: ``fit``
    would warn of them anew at each simulated draw."""
    scores = pool.judge_matrix()
    labeled = pool.labeled
    notes = [unscored_note(pool, scores)]
    label = pd.Series(np.where(labeled, pool.y, np.nan))
    for judge in pool.judges:
        column = scores[judge].reset_index(drop=True)
        if why := coverage_split(column.notna().to_numpy(), labeled):
            notes.append(f"judge {judge!r} {why}")
        elif could_copy(column.to_numpy(dtype=float), label.to_numpy()) and (
            why := copy_of_label(column, label)
            or near_copy(column, label, scores.drop(columns=[judge]).reset_index(drop=True))
        ):
            notes.append(f"judge {judge!r} {why}; {COPY_HARM}: leave it out of the judges")
        if why := codes_text(column.to_numpy(dtype=float)) or zeros_text(judge, scores):
            notes.append(f"judge {judge!r}: {why}")
    if pool.groups is not None:
        notes += absent_groups(scores.reset_index(drop=True), np.asarray(pool.groups))
    return [n for n in notes if n]


def unscored_note(pool: EvalPool, scores: pd.DataFrame) -> str:
    """The rows no judge scored (per group, the first named), which the model gives one
    made-up score each and every estimate takes in; "" when every row has a score."""
    empty = scores.isna().all(axis=1).to_numpy()
    if not empty.any():
        return ""
    first = int(np.argmax(empty))
    where = f"the first item {str(pool.ids[first])!r}"
    if pool.groups is not None:
        counts = pd.Series(np.asarray(pool.groups)[empty]).value_counts()
        shown = ", ".join(f"{name_text(g)}: {n}" for g, n in counts.head(5).items())
        where = f"{shown}{', ...' if len(counts) > 5 else ''}; {where}"
    return (  # the same text whichever rows are labeled: said once over simulated draws
        f"{int(empty.sum())} of the {pool.n_items} rows have no judge score at all ({where})"
        ": each gets the same made-up score (the model at imputed judge scores) and "
        "enters every estimate; score them with a judge, or leave them out (drop them from "
        "the DataFrame; bacon estimate --drop-unscored)"
    )


def better_hint(
    pool: EvalPool, bounds: tuple[float, float] | None = None, better: str | None = None
) -> str | None:
    """The hint to pass ``--better lower`` where the pool's label looks like an error
    score, or against a ``better="lower"`` given on minus a penalty (:func:`better_hint_of`
    on the pool's labels and judges); None otherwise."""
    scores = pool.judge_matrix()
    frame = pd.DataFrame(scores.to_numpy(dtype=float), columns=[str(j) for j in pool.judges])
    return better_hint_of(pool.y, frame, pool.label_name, bounds, better)


def better_hint_of(
    y: np.ndarray,
    judges: pd.DataFrame,
    label_name: str,
    bounds: tuple[float, float] | None = None,
    better: str | None = None,
) -> str | None:
    """The hint to pass ``--better lower`` where a label looks like an error score
    (:func:`~bacon_bayes.doctor.bias.better_lower_hint`: its name, or every judge falling
    as it rises, as the bias checks orient it), ``better`` not given; given ``"lower"``
    where the label runs higher = better, the hint against it
    (:func:`~bacon_bayes.doctor.bias.better_higher_hint`); None otherwise.

    Parameters
    ----------
    y : ndarray
        The labels, one per row (NaN where unlabeled: only labeled rows count).
    judges : DataFrame
        The judges' scores, one column per judge, rows as ``y``.
    label_name : str
        The label's column name (a name such as ``mqm`` or ``error`` reads as one).
    bounds : tuple of float, optional
        The label's range: one open at one end is an error score's.
    better : {None, "higher", "lower"}
        The direction given (None: not given).
    """
    y = np.asarray(y, dtype=float)
    if np.isfinite(y).sum() < 2 or better == "higher":
        return None
    how = bias.orient(y, judges, label_name, _error_score(bounds))
    if better == "lower":  # the judges rising with it too: minus a penalty
        return None if how.label_negated else bias.better_higher_hint(label_name, y) or None
    return bias.better_lower_hint(label_name, how.label_negated, y) or None
