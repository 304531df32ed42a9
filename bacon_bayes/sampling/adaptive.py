"""Adaptive allocation from per-item predictive standard deviations, and waves.

The variance of the AEE mean is smallest when the inclusion probability of an
item is proportional to the conditional sd of the outcome model's error
(paper, appendix "constrained weighting optimization"). :func:`adaptive` draws
a Poisson wave with

    pi_i = min(1, c * ((1 - s) * sd_i / mean(sd) + s))

over the items not labeled yet, where ``s`` is the *uniform share* and ``c``
is found by iterative capping so that the expected number of new items equals
the budget exactly.

Default uniform share ``s = 0.2``: every eligible item keeps at least 20% of
the uniform rate, so if the sd model is wrong the inverse-probability weights
are at most 5 times the uniform ones (variance inflation bounded by 5x in the
worst case) while a correct model keeps most of its gain.

Waves
-----
A wave run after earlier waves draws only from the unlabeled items. Each wave
records, for *every* item, its conditional probability ``p_k(i)`` of being drawn
by wave k given it was not drawn before (already-labeled items get the value
the wave's rule gives them, e.g. ``min(1, c * score_i)``). The probability that
item i is in the union of waves is then

    pi_i = 1 - prod_k (1 - p_k(i))        (:func:`combine_waves`)

This is exact when each wave's rule for a not-yet-labeled item does not depend
on which other items earlier waves drew: Bernoulli / Poisson waves with fixed
probabilities, and a fixed-size simple random wave of ``n_k`` among the
``N - n_1 - ...`` unlabeled items after fixed-size waves (then
``1 - (1 - n1/N)(1 - n2/(N - n1)) = (n1 + n2)/N``). When a wave's probabilities
come from a model fitted on earlier labels (adaptive, two-stage), ``p_k`` is
treated as fixed given those labels, which is exact conditionally on the
fitted model and ignores the O(1/n) influence of an item's own label on it.
"""

from __future__ import annotations

import numpy as np

from bacon_bayes.errors import ValidationError
from bacon_bayes.sampling.designs import Design, _eligible_mask, poisson

__all__ = [
    "DEFAULT_UNIFORM_SHARE",
    "adaptive",
    "adaptive_probabilities",
    "cap_probabilities",
    "combine_waves",
]

DEFAULT_UNIFORM_SHARE = 0.2


def cap_probabilities(
    score: np.ndarray, n: float, *, eligible: np.ndarray | None = None
) -> np.ndarray:
    """Probabilities ``min(1, c * score)`` with ``sum over eligible = n`` exactly.

    Items whose scaled score would exceed one are capped at one and the
    remaining budget is spread over the others (repeated until nothing new is
    capped, at most N rounds). The same ``c`` is applied to non-eligible items.
    """
    score = np.asarray(score, dtype=float)
    mask = _eligible_mask(score.size, eligible)
    if np.any(~np.isfinite(score)) or np.any(score < 0):
        raise ValidationError("sampling scores must be finite and non-negative")
    n_eligible = int(mask.sum())
    if n < 0 or n > n_eligible + 1e-9:
        raise ValidationError(
            f"cannot draw {n:g} items in expectation from {n_eligible} unlabeled items; "
            "lower the budget"
        )
    if n == 0:
        return np.zeros(score.size)
    positive = mask & (score > 0)
    if n > positive.sum():
        raise ValidationError(
            f"only {int(positive.sum())} unlabeled items have a positive score, cannot "
            f"draw {n:g}; use a uniform share > 0"
        )
    capped = np.zeros(score.size, dtype=bool)
    scale = 0.0
    for _ in range(score.size + 1):
        free = mask & ~capped
        scale = (n - (mask & capped).sum()) / score[free].sum()
        newly = free & (scale * score >= 1.0)
        if not newly.any():
            break
        capped |= newly
    pi = np.minimum(1.0, scale * score)
    pi[capped & mask] = 1.0
    return pi


def adaptive_probabilities(
    sd: np.ndarray,
    n: float,
    *,
    eligible: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
) -> np.ndarray:
    """Inclusion probabilities proportional to ``sd`` mixed with a uniform share.

    Parameters
    ----------
    sd : array, shape (N,)
        Predictive sd of the outcome model's error for every item.
    n : float
        Expected number of items to draw among the eligible ones.
    eligible : array of bool, optional
        Items not labeled yet (default: all).
    uniform_share : float in [0, 1]
        Weight of the uniform part (see module docstring; default 0.2).
    """
    sd = np.asarray(sd, dtype=float)
    mask = _eligible_mask(sd.size, eligible)
    if not 0 <= uniform_share <= 1:
        raise ValidationError(f"uniform_share must be in [0, 1], got {uniform_share}")
    bad = np.flatnonzero(~np.isfinite(sd) | (sd < 0))
    if bad.size:
        raise ValidationError(
            f"predictive sd of item at position {bad[0]} is {sd[bad[0]]!r}; "
            "it must be finite and >= 0"
        )
    mean_sd = sd[mask].mean() if mask.any() else 0.0
    relative = sd / mean_sd if mean_sd > 0 else np.ones_like(sd)
    score = (1.0 - uniform_share) * relative + uniform_share
    return cap_probabilities(score, n, eligible=mask)


def adaptive(
    sd: np.ndarray,
    n: float,
    *,
    eligible: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
    seed: int | None = 0,
) -> Design:
    """A Poisson wave with :func:`adaptive_probabilities` (expected size ``n``)."""
    pi = adaptive_probabilities(sd, n, eligible=eligible, uniform_share=uniform_share)
    params = {"n": float(n), "uniform_share": float(uniform_share)}
    return poisson(pi, eligible=eligible, seed=seed, name="adaptive", params=params)


def combine_waves(waves: list[np.ndarray] | list[Design]) -> np.ndarray:
    """Inclusion probability of the union of independent waves, ``1 - prod(1 - p_k)``."""
    if not waves:
        raise ValidationError("combine_waves needs at least one wave")
    probs = [w.pi if isinstance(w, Design) else np.asarray(w, dtype=float) for w in waves]
    stay_out = np.ones_like(probs[0])
    for p in probs:
        if p.shape != stay_out.shape:
            raise ValidationError("all waves must give one probability per pool item")
        stay_out = stay_out * (1.0 - p)
    return 1.0 - stay_out
