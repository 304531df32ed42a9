"""A fitted calibrator's anytime-valid intervals: the looks of its pool's labelling waves,
counted per quantity, handed to :mod:`bacon_bayes.estimate.anytime` (the Calibrator's
``anytime=True`` hands over here; the statistics and their guarantee are documented there).

The looks are the pool's waves (``EvalPool.waves``: ``from_frame(wave=COLUMN)``, or a study
folder's). Information is counted in labels, or in labeled prompts when the design drew
prompts (the variance is then clustered by prompt); with the pool as target each count has
the finite-population correction of the pool's (or group's) items, or prompts.
The earlier looks' own estimates (e.g. to plot the sequence) come from the pool as it stood
then: a study's ``load_study(path, up_to_wave=K)``, or the labels of waves up to ``K``
(:func:`bacon_bayes.look_fits.pool_after_wave`). The pool mean's alpha-spending boundary
is on the looks' own correlation where the frequentist engine can refit each earlier look
(:mod:`bacon_bayes.look_fits`); ``details["anytime"]["correlation"]`` says which
correlation it used, ``"cosines"`` the adjacent looks' cosines.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from bacon_bayes import estimate as est
from bacon_bayes import look_fits
from bacon_bayes.arguments import whole
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate import anytime
from bacon_bayes.estimate.clustered import prompt_codes, residual_correlation
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.results import Estimate, EstimateTable

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

__all__ = [
    "check_max_labels",
    "differences",
    "group_counts",
    "group_information",
    "groups",
    "mean",
    "mean_counts",
    "pool_looks",
    "uniform_wave_gain",
]


def check_max_labels(anytime: bool, max_labels: int | None) -> None:
    """Refuse ``max_labels`` without ``anytime``: it is the anytime intervals' horizon,
    which one look's intervals would silently ignore."""
    if max_labels is not None and not anytime:
        raise ValidationError(
            f"max_labels={max_labels!r} goes with anytime=True (it is the label budget the "
            "anytime intervals spend alpha over); pass anytime=True, or drop max_labels for "
            "one look's intervals."
        )
    whole(max_labels, "max_labels", 1, "None: no budget, a confidence sequence", none_ok=True)


def _waves(cal: Calibrator) -> np.ndarray:
    waves = cal.pool_.waves
    if waves is None:
        raise ValidationError(
            "anytime intervals need the wave each label came in: build the pool with "
            "EvalPool.from_frame(..., wave=COLUMN) (bacon estimate --wave COLUMN), or "
            "estimate from the study folder, which records its waves."
        )
    return np.asarray(waves)


def _prompts(cal: Calibrator) -> np.ndarray | None:
    """The prompts when the variance is clustered by them (information counts prompts)."""
    p = cal.pool_
    clustered = p.prompts is not None and est.use_clustered(p.prompts, p.design, cal.target)
    return p.prompts if clustered else None


def pool_looks(cal: Calibrator) -> np.ndarray:
    """The pool's labels at each look (wave), the latest last."""
    return anytime.look_counts(_waves(cal))


def mean_counts(cal: Calibrator, items: bool = False) -> tuple[np.ndarray, float | None]:
    """The pool mean's labels (or labeled prompts) at each look, and the pool's items (or
    prompts) for the finite-population correction (None: the population target);
    ``items``: labels and items even where the variance is clustered by prompt."""
    waves, prompts = _waves(cal), None if items else _prompts(cal)
    if prompts is None:
        counts, size = anytime.look_counts(waves), float(cal.pool_.n_items)
    else:  # spending time counts labels, information labeled prompts
        counts, size = anytime.look_counts(waves, prompts=prompts), float(np.unique(prompts).size)
    return counts, (size if cal.target == "pool" else None)


def information(
    counts: np.ndarray, labels: np.ndarray, n_items: np.ndarray | float | None, prompts: bool
) -> np.ndarray:
    """Information at the looks: the labels with the finite-population correction over
    ``n_items`` (:func:`~bacon_bayes.estimate.anytime.effective_labels`), or, where the
    variance is clustered by prompt, the labeled prompts ``counts`` with the same
    correction, the items' (``n / (1 - labels / N)``): infinite only once every item is
    labeled. (Corrected over the prompts, a prompt with one of its 12 items labeled counted
    as exhausted, and once every prompt had a label the anytime interval had width 0.)"""
    if not prompts:
        return anytime.effective_labels(labels, n_items)
    if n_items is None:
        return np.asarray(counts, dtype=float)
    share = np.asarray(labels, dtype=float) / n_items
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(share < 1, counts / (1.0 - share), np.inf)
    return np.where(np.asarray(counts) > 0, out, 0.0)


def mean_information(cal: Calibrator) -> np.ndarray:
    """The pool mean's information at each look (:func:`information`)."""
    counts, _ = mean_counts(cal)
    labels, n_items = mean_counts(cal, items=True)
    return information(counts, labels, n_items, _prompts(cal) is not None)


def uniform_wave_gain(cal: Calibrator) -> Callable[[float], float] | None:
    """How much a uniform wave of ``m`` more labels multiplies the pool mean's information
    (its variance now over its variance after), where the estimator weighs mixed waves of
    items and of prompts by their predicted precision
    (:meth:`~bacon_bayes.inclusion.Inclusion.precision_weighted`); None where it does not.

    The weighted mean's variance is ``s^2 / N^2 / sum_w 1 / V_w``; a uniform wave of ``m``
    of the ``U`` items no wave selected adds ``1 / V_u``, ``V_u = U (U - m) / m``. Grown in
    proportion to the labels instead, the information kept the past waves' worth per
    label, which an adaptive wave and a paired one (its labels sharing their prompts'
    errors) make low: on a TriviaQA study (uniform 80, stratified 80, adaptive 112,
    paired 87 labels, worth about 233 uniform ones) "about 295 more labels" for a
    half-width of 0.03, which uniform waves of 150-200 reached."""
    p = cal.pool_
    design = p.design
    if not (
        _prompts(cal) is not None
        and isinstance(design, Inclusion)
        and design.selected is not None
        and design.mixed
        and cal.target == "pool"
    ):
        return None
    codes = prompt_codes(np.asarray(p.prompts))
    rho = residual_correlation(p.y, cal.surrogate_matrix(), p.labeled, codes)
    var = design.wave_variances(codes, rho)
    sel = design.selected
    used = np.unique(sel[p.labeled & (sel >= 0)])
    precision = float(np.sum(1.0 / np.maximum(var[used], 1e-12)))
    open_items = float(np.sum(sel < 0))

    def gain(m: float) -> float:
        if m <= 0 or precision <= 0:
            return 1.0
        if m >= open_items:
            return math.inf
        return 1.0 + m / (open_items * (open_items - m)) / precision

    return gain


def mean(cal: Calibrator, e: Estimate, max_labels: int | None) -> Estimate:
    """The pool mean ``e`` (fixed, at the latest look) with its anytime interval; by
    alpha-spending, on the looks' own correlation where :func:`mean_cosines` has it, and
    there with Hall's term on the skewed side (:func:`~bacon_bayes.look_fits.mean_shape`)."""
    if e.method == "naive":
        return e  # no labels: nothing is looked at twice
    info = mean_information(cal)
    cosines, why = (None, "") if max_labels is None else look_fits.mean_cosines(cal, e)
    # Hall's term on the skewed side where the looks are the pool's own item-level fits
    shape = None if max_labels is None else look_fits.mean_shape(cal, e)
    out = anytime.anytime_estimate(
        e, pool_looks(cal), info=info, max_labels=max_labels, cosines=cosines, shape=shape
    )
    if why:  # the canonical correlation, and why
        out.details["anytime"]["correlation_note"] = why
    return out


def group_counts(
    cal: Calibrator, names: tuple[str, ...], items: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """Each group's labels (or labeled prompts) at each look, rows in the order of
    ``names``, and the group's items (or prompts) for the finite-population correction
    (None: the population target); ``items`` as in :func:`mean_counts`."""
    waves, prompts = _waves(cal), None if items else _prompts(cal)
    all_names, codes = est.group_codes(cal._groups())
    m = all_names.size
    counts = anytime.look_counts(waves, codes, m, prompts)
    if prompts is None:
        sizes = np.bincount(codes, minlength=m).astype(float)
    else:  # the group's prompts
        pairs = np.unique(
            np.column_stack([codes, np.unique(prompts, return_inverse=True)[1]]), axis=0
        )
        sizes = np.bincount(pairs[:, 0], minlength=m).astype(float)
    order = {str(n): k for k, n in enumerate(all_names)}
    rows = [order[n] for n in names]
    return counts[rows], (sizes[rows] if cal.target == "pool" else None)


def group_information(cal: Calibrator, names: tuple[str, ...]) -> np.ndarray:
    """Each group's information (:func:`information`) at each look, rows in the order of
    ``names``."""
    counts, _ = group_counts(cal, names)
    labels, n_items = group_counts(cal, names, items=True)
    size = None if n_items is None else n_items[:, None]
    return information(counts, labels, size, _prompts(cal) is not None)


def groups(cal: Calibrator, table: EstimateTable, max_labels: int | None) -> EstimateTable:
    """A group-mean table (fixed, at the latest look) with its anytime intervals."""
    if table.method == "naive":
        return table
    info = group_information(cal, table.names)
    return anytime.anytime_table(table, info, pool_looks(cal), max_labels=max_labels)


def differences(
    cal: Calibrator, means: EstimateTable, diffs: EstimateTable, max_labels: int | None
) -> EstimateTable:
    """The differences ``diffs`` of the group table ``means`` (all pairs, or those against
    a baseline: ``diffs.details["pairs"]``) with anytime intervals."""
    if diffs.method == "naive":
        return diffs
    index = {name: g for g, name in enumerate(means.names)}
    pairs = [(index[a], index[b]) for a, b in diffs.details["pairs"]]
    info = anytime.pair_information(group_information(cal, means.names), pairs)
    return anytime.anytime_table(diffs, info, pool_looks(cal), max_labels=max_labels)
