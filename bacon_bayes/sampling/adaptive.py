"""Adaptive allocation from per-item predictive standard deviations, and waves.

The variance of the AEE mean is smallest when the inclusion probability of an
item is proportional to the conditional sd of the outcome model's error
(paper, appendix "constrained weighting optimization"). :func:`adaptive` draws
a Poisson wave with

    pi_i = min(1, c * ((1 - s) * sd_i / mean(sd) + s))

over the items not labeled yet, where ``s`` is the *uniform share* and ``c``
is found by iterative capping so that the expected number of new items equals
the budget exactly (see "Waves" for what "expected" means after a pilot).

Default uniform share ``s = 0.2``: every eligible item keeps at least 20% of
the uniform rate, so if the sd model is wrong the inverse-probability weights
are at most 5 times the uniform ones (variance inflation bounded by 5x in the
worst case) while a correct model keeps most of its gain.

Waves
-----
A wave run after earlier waves draws only from the unlabeled items. Each wave
records, for *every* item, its conditional probability ``p_k(i)`` of being drawn
by wave k given it was not drawn before (already-labeled items get the value
the wave's rule gives them, e.g. ``min(1, c * score_i)``). The adaptive rule
fixes ``c`` by ``sum_i (1 - prior_i) p_k(i) = n`` over the whole pool, so it does
not depend on which items the earlier waves drew (the expected number of new
items is ``n`` over the design; given the realised pilot it is
``sum over unlabeled p_k(i)``, close to ``n``). The probability that item i is
in the union of waves is then

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
from bacon_bayes.sampling.designs import Design, poisson

__all__ = [
    "DEFAULT_UNIFORM_SHARE",
    "MAX_VARIANCE_RATIO",
    "adaptive",
    "adaptive_probabilities",
    "cap_probabilities",
    "combine_waves",
    "expected_variance_ratio",
]

DEFAULT_UNIFORM_SHARE = 0.2

#: A wave follows the predicted sd only when it is expected to lower the variance
#: against uniform sampling below this ratio (:func:`expected_variance_ratio`); else the
#: wave is uniform (adaptivity steps back where the data give no gain).
MAX_VARIANCE_RATIO = 0.95


def expected_variance_ratio(
    sd: np.ndarray,
    resid2: np.ndarray,
    labeled: np.ndarray,
    *,
    weights: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
) -> float:
    """Variance of a wave drawn with :func:`adaptive_probabilities` relative to a uniform
    wave of the same size, predicted from labels already in hand.

    Under Poisson sampling the linearised variance is ``sum_i e_i^2 / pi_i``; with
    ``pi_i`` proportional to the wave's score ``s_i`` the ratio to uniform sampling is
    ``mean(s) * mean(e^2 / s) / mean(e^2)``. ``mean(s)`` runs over the items not labeled
    yet (known), the other two over the labeled items' out-of-fold squared residuals
    ``resid2`` (aligned with the pool, used where ``labeled``), weighted by ``weights``
    (their design weights ``1 / pi``; default equal, i.e. a uniform pilot).
    """
    sd = np.asarray(sd, dtype=float)
    labeled = np.asarray(labeled, dtype=bool)
    open_ = ~labeled
    mean_sd = float(sd[open_].mean()) if open_.any() else float(sd.mean())
    score = (1.0 - uniform_share) * sd / max(mean_sd, 1e-300) + uniform_share
    w = np.ones(labeled.sum()) if weights is None else np.asarray(weights, dtype=float)[labeled]
    e2 = np.asarray(resid2, dtype=float)[labeled]
    mean_e2 = float(np.sum(w * e2) / np.sum(w))
    if mean_e2 <= 0:
        return 1.0
    spread = float(np.sum(w * e2 / score[labeled]) / np.sum(w))
    return float(score[open_].mean() * spread / mean_e2) if open_.any() else 1.0


def cap_probabilities(
    score: np.ndarray, n: float, *, weight: np.ndarray | None = None
) -> np.ndarray:
    """Probabilities ``min(1, c * score)`` with ``sum_i weight_i * pi_i = n`` exactly.

    ``weight_i`` is the chance that item i is still unlabeled (``1 - prior_i``;
    default 1), so ``n`` is the expected number of new items. Items whose
    scaled score would exceed one are capped at one and the remaining budget
    is spread over the others, repeated until nothing new is capped.
    """
    score = np.asarray(score, dtype=float)
    w = np.ones(score.size) if weight is None else np.asarray(weight, dtype=float)
    if np.any(~np.isfinite(score)) or np.any(score < 0):
        raise ValidationError("sampling scores must be finite and non-negative")
    if w.shape != score.shape or np.any(~np.isfinite(w)) or np.any((w < 0) | (w > 1)):
        raise ValidationError("weights must be probabilities, one per item")
    room = float(w[score > 0].sum())
    if n < 0 or n > room * (1 + 1e-12):
        raise ValidationError(
            f"cannot draw {n:g} new items in expectation: at most {room:g} are available; "
            "lower the budget"
        )
    if n == 0:
        return np.zeros(score.size)
    capped = np.zeros(score.size, dtype=bool)
    scale = 0.0
    for _ in range(score.size + 1):
        free = ~capped & (score > 0)
        scale = (n - w[capped].sum()) / float(np.sum(w[free] * score[free]))
        newly = free & (scale * score >= 1.0)
        if not newly.any():
            break
        capped |= newly
    pi = np.minimum(1.0, scale * score)
    pi[capped] = 1.0
    return pi


def adaptive_probabilities(
    sd: np.ndarray,
    n: float,
    *,
    prior: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
) -> np.ndarray:
    """Wave probabilities proportional to ``sd`` mixed with a uniform share.

    Parameters
    ----------
    sd : array, shape (N,)
        Predictive sd of the outcome model's error for every item.
    n : float
        Expected number of new items: ``sum_i (1 - prior_i) pi_i = n``.
    prior : array, shape (N,), optional
        Inclusion probability of every item in the earlier waves (default 0).
        The rule does not depend on which items the earlier waves drew, so
        :func:`combine_waves` is exact for it (given ``sd``).
    uniform_share : float in [0, 1]
        Weight of the uniform part (see module docstring; default 0.2).
    """
    sd = np.asarray(sd, dtype=float)
    if not 0 <= uniform_share <= 1:
        raise ValidationError(f"uniform_share must be in [0, 1], got {uniform_share}")
    bad = np.flatnonzero(~np.isfinite(sd) | (sd < 0))
    if bad.size:
        raise ValidationError(
            f"predictive sd of item at position {bad[0]} is {sd[bad[0]]!r}; "
            "it must be finite and >= 0"
        )
    weight = np.ones(sd.size) if prior is None else 1.0 - np.asarray(prior, dtype=float)
    if weight.shape != sd.shape:
        raise ValidationError("prior must give one probability per item")
    mean_sd = float(np.sum(weight * sd) / weight.sum()) if weight.sum() > 0 else 0.0
    relative = sd / mean_sd if mean_sd > 0 else np.ones_like(sd)
    score = (1.0 - uniform_share) * relative + uniform_share
    return cap_probabilities(score, n, weight=weight)


def adaptive(
    sd: np.ndarray,
    n: float,
    *,
    prior: np.ndarray | None = None,
    eligible: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
    seed: int | None = 0,
) -> Design:
    """A Poisson wave over the ``eligible`` items with :func:`adaptive_probabilities`.

    Pass ``prior`` (earlier waves' inclusion probabilities) together with
    ``eligible`` (items not labeled yet) for a second wave.
    """
    pi = adaptive_probabilities(sd, n, prior=prior, uniform_share=uniform_share)
    params = {"n": float(n), "uniform_share": float(uniform_share)}
    return poisson(pi, eligible=eligible, seed=seed, name="adaptive", params=params)


def combine_waves(waves: list[np.ndarray] | list[Design]) -> np.ndarray:
    """Inclusion probability of the union of independent waves, ``1 - prod(1 - p_k)``."""
    if not waves:
        raise ValidationError("combine_waves needs at least one wave")
    probs = [w.pi if isinstance(w, Design) else np.asarray(w, dtype=float) for w in waves]
    union = probs[0].copy()
    for p in probs[1:]:
        if p.shape != union.shape:
            raise ValidationError("all waves must give one probability per pool item")
        union = union + (1.0 - union) * p  # = 1 - prod(1 - p_k), exact for one wave
    return union
