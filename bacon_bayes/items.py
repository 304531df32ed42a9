"""Item-level scores: surrogate, interval, rank and a low-quality flag."""

from __future__ import annotations

import numpy as np

from bacon_bayes.errors import ValidationError


def conformal_halfwidth(oof_residuals: np.ndarray, level: float) -> float:
    """Split-conformal half-width from out-of-fold absolute residuals.

    With ``n`` residuals the ``ceil((n + 1) level) / n`` empirical quantile of
    ``|r|`` gives intervals ``f +- q`` that cover a new exchangeable item with
    probability at least ``level`` (and at most ``level + 1/(n+1)``), whatever
    the model.
    """
    r = np.sort(np.abs(np.asarray(oof_residuals, dtype=float)))
    n = r.size
    k = int(np.ceil((n + 1) * level))
    if k > n:
        raise ValidationError(
            f"{n} labeled items are too few for a {level:.0%} conformal interval; "
            f"label at least {int(np.ceil(level / (1 - level)))} items or lower the level."
        )
    return float(r[k - 1])


def cdf_interval(cdf: np.ndarray, grid: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Central predictive interval per item from CDF values on a grid (generalised inverse)."""
    lo_p, hi_p = (1 - level) / 2, 1 - (1 - level) / 2
    mono = np.maximum.accumulate(cdf, axis=1)
    lo = grid[np.minimum((mono < lo_p).sum(axis=1), grid.size - 1)]
    hi = grid[np.minimum((mono < hi_p).sum(axis=1), grid.size - 1)]
    return lo, hi


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


def top_mass_sets(probs: np.ndarray, level: float) -> np.ndarray:
    """(n, K) bool: the most probable classes whose probabilities first reach ``level``."""
    order = np.argsort(-probs, axis=1, kind="stable")
    ranked = np.take_along_axis(probs, order, axis=1)
    before = np.cumsum(ranked, axis=1) - ranked
    keep = np.zeros(probs.shape, dtype=bool)
    np.put_along_axis(keep, order, before < level, axis=1)
    return keep


def conformal_sets(probs: np.ndarray, oof_true_prob: np.ndarray, level: float) -> np.ndarray:
    """Split-conformal class sets (score ``1 - p(true class)``, out-of-fold).

    Every class whose score is within the ``ceil((n + 1) level) / n`` quantile of
    the labeled items' scores enters the set; a new exchangeable item's label is
    in its set with probability at least ``level``, whatever the model.
    """
    q = conformal_halfwidth(1.0 - np.asarray(oof_true_prob, dtype=float), level)
    return (1.0 - probs) <= q + 1e-12
