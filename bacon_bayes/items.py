"""Item-level scores: surrogate, interval, rank and a low-quality flag."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes.arguments import number
from bacon_bayes.errors import ValidationError
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.order import unique_codes

if TYPE_CHECKING:
    from bacon_bayes.pool import EvalPool


def conformal_quantile(
    scores: np.ndarray,
    level: float,
    weights: np.ndarray | None = None,
    test_weights: np.ndarray | None = None,
) -> np.ndarray:
    """Split-conformal threshold on out-of-fold scores, one per test item.

    Unweighted (``weights=None``): with ``n`` scores the ``ceil((n + 1) level)``-th
    smallest, so that ``score <= q`` holds for a new exchangeable item with probability
    at least ``level`` (and at most ``level + 1/(n+1)``), whatever the model; one value.

    Weighted (Tibshirani, Barber, Candes & Ramdas 2019, covariate shift with a known
    likelihood ratio): the calibration scores weighted by ``weights``, the test item by
    its own ``test_weights`` entry put at ``+inf``; each test item's threshold is the
    ``level`` quantile of that distribution (``inf`` where the calibration weights do not
    reach ``level``: an item far less likely to be labeled than those labeled). Equal
    weights give the unweighted threshold. Fewer than ``level / (1 - level)`` scores: an
    error.
    """
    s = np.asarray(scores, dtype=float)
    order = np.argsort(s, kind="stable")
    s = s[order]
    n = s.size
    k = int(np.ceil((n + 1) * level))
    if n < conformal_needed(level):
        raise TooFewForConformal(
            f"{n} labeled items are too few for a {level:.0%} conformal interval; "
            f"label at least {conformal_needed(level)} items or lower the level."
        )
    if weights is None:
        return np.array([s[k - 1]])
    w = np.asarray(weights, dtype=float)[order]
    unit = w.mean() if w.mean() > 0 else 1.0  # equal weights: cumulative counts, exact
    cum = np.cumsum(w / unit)
    need = level * (cum[-1] + np.asarray(test_weights, dtype=float) / unit)
    at = np.searchsorted(cum, need * (1 - 1e-12), side="left")
    return np.where(at < n, s[np.minimum(at, n - 1)], np.inf)


def conformal_halfwidth(oof_residuals: np.ndarray, level: float) -> float:
    """Split-conformal half-width from out-of-fold residuals (unweighted
    :func:`conformal_quantile` of ``|r|``): intervals ``f +- q``."""
    return float(conformal_quantile(np.abs(np.asarray(oof_residuals, dtype=float)), level)[0])


#: Labels' worth of the pooled residual spread in each group's scale of conformal item
#: intervals (:func:`group_scales`). With 4, measured at 0.9 over 20-30 label draws
#: (``benchmarks/item_group_coverage.py``), the lowest system's coverage rose from 0.82
#: to 0.86 on SummEval relevance (120 labels) and from 0.80 to 0.88 on WMT22 MQM (150),
#: the coverage over all items unchanged and the mean width up 3%; 10 and 25 moved it less.
GROUP_SCALE_PRIOR = 4.0


def group_scales(
    resid: np.ndarray, g_lab: np.ndarray, n_groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each group's residual scale for conformal item intervals, and each labeled
    residual's scale without itself.

    ``s_g^2 = (k m + sum_{i in g} r_i^2) / (k + n_g)``: the group's mean squared residual
    moderated toward ``m``, the mean over all labels, worth ``k`` =
    :data:`GROUP_SCALE_PRIOR` labels (a group with no label gets ``sqrt(m)``). The
    conformal score of a labeled item is ``|r_i| / s_{g,-i}``, its group's scale from the
    other labels (its own residual would shrink its score, and the threshold with it),
    and an item's interval is ``f +- q s_g``: every item scored against the labels of the
    others, so the coverage over all items stays that of split conformal while a group
    whose residuals spread more gets a wider interval.

    Parameters
    ----------
    resid : ndarray
        Out-of-fold residuals of the labeled items.
    g_lab : ndarray of int
        Their group codes in ``0 .. n_groups - 1``.
    n_groups : int
        Number of groups.

    Returns
    -------
    scale, own : ndarray
        ``scale[g]`` for every group; ``own[i]`` for every labeled item.
    """
    r2 = np.asarray(resid, dtype=float) ** 2
    m = max(float(r2.mean()), np.finfo(float).tiny)
    k = GROUP_SCALE_PRIOR
    n = np.bincount(g_lab, minlength=n_groups).astype(float)
    ss = np.bincount(g_lab, weights=r2, minlength=n_groups)
    scale = np.sqrt((k * m + ss) / (k + n))
    own = np.sqrt((k * m + ss[g_lab] - r2) / (k + n[g_lab] - 1.0))
    return scale, own


def design_weights(pool: EvalPool) -> tuple[np.ndarray, np.ndarray] | None:
    """The likelihood ratios of weighted conformal intervals: ``(1 - pi) / pi`` of the
    labeled items and of every item, or ``None`` where the labels were drawn with equal
    probabilities (the labeled and the unlabeled items are exchangeable).

    Labels drawn with inclusion probability ``pi(x)`` are distributed as ``pi(x) p(x)``
    and the unlabeled items as ``(1 - pi(x)) p(x)``, so ``(1 - pi) / pi`` reweighs the
    labeled items' scores to the unlabeled items'. An item without a recorded
    probability (an unlabeled row left empty) takes the smallest one recorded: its
    interval is as wide as the least likely drawn item's.
    """
    design = pool.design
    if design is None:
        return None
    pi = np.asarray(design.pi if isinstance(design, Inclusion) else design, dtype=float)
    known = pi[np.isfinite(pi)]
    if known.size == 0 or not unequal(float(known.min()), float(known.max())):
        return None
    ratio = likelihood_ratio(pi, float(known.min()))
    return ratio[pool.labeled], ratio


def likelihood_ratio(pi: np.ndarray, floor: float) -> np.ndarray:
    """``(1 - pi) / pi``, an unlabeled item's weight against a labeled one's
    (:func:`design_weights`), with ``floor`` for a probability not recorded (NaN) and
    ``inf`` for a probability 0."""
    pi = np.where(np.isfinite(pi), pi, floor)
    with np.errstate(divide="ignore"):
        return (1.0 - pi) / pi


def unequal(low: float, high: float) -> bool:
    """Whether propensities from ``low`` to ``high`` differ (beyond rounding): conformal
    intervals are then weighted (:func:`design_weights`)."""
    return bool(np.isfinite(low) and high - low > 1e-12 * high)


class TooFewForConformal(ValidationError):
    """Too few labeled items (residuals) for a conformal interval at the level asked:
    the report says so in place of its item intervals."""


def conformal_needed(level: float) -> int:
    """The fewest labeled residuals a split-conformal interval at ``level`` needs: the
    least ``n`` with ``ceil((n + 1) level) <= n``."""
    n = max(int(np.ceil(level / (1 - level))) - 1, 1)
    while np.ceil((n + 1) * level) > n:
        n += 1
    return n


def cdf_interval(
    cdf: np.ndarray, grid: np.ndarray, level: float, left: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Predictive interval per item from CDF values on a grid (generalised inverse).

    The lower end is the ``(1 - level) / 2`` quantile. Where the distribution has an
    atom at that end (``left``: the CDF's left limits at the grid points, e.g. 0 at a
    hurdle's zero or the CDF at the level below for an ordinal outcome), the mass of the
    lower tail the atom does not use is not thrown away: the upper end is the quantile
    at ``F(lower-) + level``, so ``[lower, upper]`` holds at least ``level`` and no more
    than it needs. Without atoms (``left=None``) this is the central interval.
    """
    lo_p, hi_p = (1 - level) / 2, 1 - (1 - level) / 2
    mono = np.maximum.accumulate(cdf, axis=1)
    last = grid.size - 1
    i_lo = np.minimum((mono < lo_p).sum(axis=1), last)
    target = np.full(mono.shape[0], hi_p)
    if left is not None:
        below = np.take_along_axis(left, i_lo[:, None], axis=1)[:, 0]
        target = np.minimum(target, below + level)
    i_hi = np.minimum((mono < target[:, None] - 1e-12).sum(axis=1), last)
    return grid[i_lo], grid[i_hi]


def left_limits(
    cdf: np.ndarray, grid: np.ndarray, discrete: bool, floor: float | None
) -> np.ndarray | None:
    """The CDF's left limits at the grid points (for ``cdf_interval``), or ``None``.

    ``discrete``: the grid holds every possible value, so ``F(g_k-) = F(g_{k-1})``.
    ``floor``: the least possible value (a hurdle's 0), below which there is no mass.
    Elsewhere the distribution is taken as continuous (``F(g-) = F(g)``).
    """
    mono = np.maximum.accumulate(cdf, axis=1)
    if discrete:
        return np.column_stack([np.zeros(mono.shape[0]), mono[:, :-1]])
    if floor is None:
        return None
    out = mono.copy()
    out[:, grid <= floor] = 0.0
    return out


def posterior_interval(
    cdf: np.ndarray, grid: np.ndarray, level: float, kind: str
) -> tuple[np.ndarray, np.ndarray]:
    """``cdf_interval`` with the atoms of an outcome of type ``kind`` (a pool's
    ``outcome.kind``): every level of a discrete outcome, a non-negative one's zero."""
    floor = 0.0 if kind == "nonnegative" else None
    left = left_limits(cdf, grid, kind in ("ordinal", "categorical"), floor)
    return cdf_interval(cdf, grid, level, left)


def randomize_upper(
    cdf: np.ndarray,
    levels: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    level: float,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Randomised sets of whole levels ``[lo, hi]`` whose predictive mass is ``level`` on average.

    A set of whole levels holds at least ``level`` of the predictive mass, usually more.
    Dropping its top level with probability ``1 - pi``, ``pi = (level - mass without
    it) / p(top level)``, makes the expected mass exactly ``level``, so a calibrated
    model covers ``level`` of the items (the randomised sets of conformal prediction).
    A set reduced to nothing has ``NaN`` ends.
    """
    lv = np.asarray(levels, dtype=float)
    mono = np.column_stack([np.zeros(cdf.shape[0]), np.maximum.accumulate(cdf, axis=1)])
    i_lo, i_hi = np.searchsorted(lv, lo), np.searchsorted(lv, hi)
    rows = np.arange(cdf.shape[0])
    mass = mono[rows, i_hi + 1] - mono[rows, i_lo]
    top = mono[rows, i_hi + 1] - mono[rows, i_hi]
    keep_top = rng.random(cdf.shape[0]) * top <= level - (mass - top)
    i_hi = np.where(keep_top, i_hi, i_hi - 1)
    empty = i_hi < i_lo
    lo_out = np.where(empty, np.nan, lv[i_lo])
    hi_out = np.where(empty, np.nan, lv[np.maximum(i_hi, 0)])
    return lo_out, hi_out


def snap_to_levels(
    lo: np.ndarray, hi: np.ndarray, levels: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Shrink real intervals to the levels they contain (prediction sets of ordinal labels)."""
    lv = np.asarray(levels, dtype=float)
    i_lo = np.clip(np.searchsorted(lv, lo - 1e-9, side="left"), 0, lv.size - 1)
    i_hi = np.clip(np.searchsorted(lv, hi + 1e-9, side="right") - 1, 0, lv.size - 1)
    i_hi = np.maximum(i_hi, i_lo)
    return lv[i_lo], lv[i_hi]


def class_probabilities(cdf_at_levels: np.ndarray) -> np.ndarray:
    """``P(Y = level_k | x)`` (n, K) from the CDF at the sorted levels."""
    cdf = np.maximum.accumulate(np.clip(cdf_at_levels, 0.0, 1.0), axis=1)
    cdf[:, -1] = 1.0
    return np.diff(cdf, axis=1, prepend=0.0)


def top_mass_sets(
    probs: np.ndarray, level: float, rng: np.random.Generator | None = None
) -> np.ndarray:
    """(n, K) bool: the most probable classes whose probabilities first reach ``level``.

    With ``rng`` the last class admitted is kept with the probability that makes the
    set's expected mass exactly ``level`` (see ``randomize_upper``); a set may be empty.
    """
    order = np.argsort(-probs, axis=1, kind="stable")
    ranked = np.take_along_axis(probs, order, axis=1)
    before = np.cumsum(ranked, axis=1) - ranked
    inside = before < level
    if rng is not None:
        last = inside.sum(axis=1) - 1
        rows = np.arange(probs.shape[0])
        p_last, b_last = ranked[rows, last], before[rows, last]
        inside[rows, last] = rng.random(probs.shape[0]) * p_last <= level - b_last
    keep = np.zeros(probs.shape, dtype=bool)
    np.put_along_axis(keep, order, inside, axis=1)
    return keep


def conformal_sets(
    probs: np.ndarray,
    oof_true_prob: np.ndarray,
    level: float,
    weights: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Split-conformal class sets (score ``1 - p(true class)``, out-of-fold), never empty.

    Every class whose score is within the conformal threshold of the labeled items'
    scores (:func:`conformal_quantile`; ``weights``: the labeled items' and every
    item's likelihood ratios, :func:`design_weights`) enters the set; a new item's
    label is in its set with probability at least ``level``, whatever the model.
    Where no class passes (the model is unsure of the item: a 0/1 label near
    ``P = 0.5`` when the model is right on more than ``level`` of the items), the
    set is every class: "cannot tell" in place of an empty set. Such a set always
    holds the label, so the sets cover ``level`` plus about the share of such items.
    """
    cal_w, test_w = (None, None) if weights is None else weights
    q = conformal_quantile(1.0 - np.asarray(oof_true_prob, dtype=float), level, cal_w, test_w)
    keep = (1.0 - probs) <= q[:, None] + 1e-12
    keep[~keep.any(axis=1)] = True
    return keep


def set_columns(
    probs: np.ndarray, keep: np.ndarray, lv: np.ndarray
) -> tuple[list[list[float]], np.ndarray, np.ndarray, np.ndarray]:
    """The class sets ``keep`` (n, K) of the sorted levels ``lv`` as an item table's
    columns: each set as a list, its model probability, its smallest and largest level
    (``NaN`` for an empty set); the in-memory and the streamed item tables alike."""
    sets = [lv[row].tolist() for row in keep]
    set_prob = (probs * keep).sum(axis=1)
    some = keep.any(axis=1)
    lo = np.where(some, np.where(keep, lv, np.inf).min(axis=1), np.nan)
    hi = np.where(some, np.where(keep, lv, -np.inf).max(axis=1), np.nan)
    return sets, set_prob, lo, hi


def _enough_with_old(fresh: int, old: int, level: float) -> None:
    """Refuse a conformal interval that the new pool's ``fresh`` labels and the saved
    calibrator's ``old`` residuals are too few for together, saying how many to add."""
    need = conformal_needed(level)
    if fresh + old < need:
        raise TooFewForConformal(
            f"{fresh} fresh labels in this pool and the calibrator's {old} saved residuals "
            f"(its own round's labels) are too few for a {level:.0%} conformal interval, "
            f"which needs {need} together; label {need - fresh - old} more items of this "
            "pool (they count with the saved ones) or lower the level."
        )


def check_level(level: Any) -> None:
    """Refuse an interval ``level`` (coverage: 0.9 for 90% intervals) that is no number
    in (0, 1), or below one half: a level of 0.05 is alpha written where the coverage is
    meant (the estimators take ``alpha``, item scores and judge bias the level)."""
    number(level, "level", "0.9", "(the intervals' coverage)")
    if not 0.0 < level < 1.0:
        raise ValidationError(f"level={level!r} must lie strictly between 0 and 1 (e.g. 0.9).")
    if level < 0.5:
        raise ValidationError(
            f"level={level!r} asks for {100 * level:g}% intervals: level is the share an "
            f"interval covers (level=0.9 for 90% intervals; level={1 - level:.3g} for the "
            "coverage you may have meant, if you wrote alpha)."
        )


def item_table(
    pool: EvalPool,
    surrogate: np.ndarray,
    cdf: Callable[[np.ndarray], np.ndarray],
    grid: Callable[[], np.ndarray],
    bounds: tuple[float, float],
    level: float,
    method: str,
    threshold: float | None = None,
    seed: int | None = None,
    frozen_residuals: np.ndarray | None = None,
) -> pd.DataFrame:
    """Calibrated score, interval, rank and flag for every item of ``pool``
    (:meth:`bacon_bayes.Calibrator.item_scores`, which documents the options).

    ``cdf``: each item's out-of-fold predictive CDF at given points; ``grid``: the points
    for posterior intervals; ``bounds``: the label range; ``seed``: randomised posterior
    sets under this seed (None: not randomised); ``frozen_residuals``: a saved
    calibrator's residuals, for conformal intervals on a pool without labels (or with too
    few for ``level``: then with them).
    """
    check_level(level)
    p = pool
    f = surrogate
    lab = p.labeled
    levels = None if p.outcome.levels is None else np.asarray(p.outcome.levels)
    sets = None
    rng = None if seed is None else np.random.default_rng(seed)
    if p.outcome.kind == "categorical" and method in ("conformal", "posterior"):
        assert levels is not None
        lv = np.sort(levels.astype(float))
        probs = class_probabilities(cdf(lv))
        if method == "posterior":
            keep = top_mass_sets(probs, level, rng)
        else:
            true = probs[lab, np.searchsorted(lv, p.y[lab])]
            keep = conformal_sets(probs, true, level, design_weights(p))
        sets, set_prob, lo, hi = set_columns(probs, keep, lv)
    elif method == "conformal":
        resid = p.y[lab] - f[lab]
        weights = design_weights(p)
        old_too = frozen_residuals is not None and resid.size < conformal_needed(level)
        if old_too:  # a new pool with no fresh labels, or too few for ``level``: the old ones
            assert frozen_residuals is not None
            _enough_with_old(resid.size, frozen_residuals.size, level)
            resid = np.concatenate([frozen_residuals, resid])
            weights = None
        scale, own = np.ones(f.size), np.ones(resid.size)
        if p.groups is not None and not old_too:  # a group's residuals' spread, its width
            g_all = unique_codes(p.groups)[1]
            by_group, own = group_scales(resid, g_all[lab], int(g_all.max()) + 1)
            scale = by_group[g_all]
        q = conformal_quantile(np.abs(resid) / own, level, *(weights or (None, None))) * scale
        lo, hi = f - q, f + q
        if levels is not None:
            lo, hi = snap_to_levels(lo, hi, levels)
    elif method == "posterior":
        at = grid()
        cdf_at = cdf(at)
        lo, hi = posterior_interval(cdf_at, at, level, p.outcome.kind)
        if rng is not None and levels is not None:
            lo, hi = randomize_upper(cdf_at, at, lo, hi, level, rng)
    else:
        raise ValidationError(f"method {method!r} must be 'conformal' or 'posterior'.")
    if sets is None:  # the label lies in its range, so the intersection keeps coverage
        lo, hi = np.clip(lo, *bounds), np.clip(hi, *bounds)
    score = f if sets is not None else np.clip(f, *bounds)  # in range too
    out = pd.DataFrame(
        {
            "item": p.ids,
            "score": score,
            "lower": lo,
            "upper": hi,  # rank of the score shown: items clipped to a bound tie
            "rank": pd.Series(-score).rank(method="min").astype(int).to_numpy(),
            "labeled": lab,
            "label": p.y,
        }
    )
    if sets is not None:
        out.insert(4, "set", sets)
        out.insert(5, "set_prob", set_prob)
    if p.groups is not None:
        out.insert(1, "group", p.groups)
    if threshold is not None:
        below = np.nextafter(number(threshold, "threshold", "3"), -np.inf)
        out["p_below"] = cdf(np.array([below]))[:, 0]
        out["flag"] = out["p_below"] > 0.5
    return out
