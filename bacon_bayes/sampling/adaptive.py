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
    "SMALL_PILOT",
    "adaptive",
    "adaptive_probabilities",
    "cap_probabilities",
    "combine_waves",
    "expected_variance_ratio",
    "sd_wave_choice",
    "top_up_probabilities",
]

DEFAULT_UNIFORM_SHARE = 0.2

#: A wave follows the predicted sd only when it is expected to lower the variance
#: against uniform sampling below this ratio (:func:`expected_variance_ratio`); else the
#: wave is uniform (adaptivity steps back where the data give no gain).
MAX_VARIANCE_RATIO = 0.95

#: A wave follows the predicted sd only when the labels in hand number at least this
#: many per coefficient of the outcome model (its features plus the intercept). Below
#: it the sd model and the predicted ratio come from an over-fitted model and the
#: unequal weights that follow cost coverage (measured on TriviaQA, 9 binary judges:
#: a pilot of 48 labels, 4.8 per coefficient, gave the adaptive AEE 0.90-0.92 coverage
#: of 95% intervals over 1,000 trials; see EXPERIMENTS.md).
MIN_LABELS_PER_COEFFICIENT = 5.0

#: What :func:`sd_wave_choice` returns for a pilot below that many labels per coefficient.
SMALL_PILOT = "uniform (small pilot)"


def sd_wave_choice(
    ratio: float,
    n_labels: int,
    n_features: int,
    *,
    max_ratio: float = MAX_VARIANCE_RATIO,
) -> str:
    """``"adaptive"`` when a wave should follow the predicted sd, else why not.

    Returns :data:`SMALL_PILOT` (``"uniform (small pilot)"``) with fewer than
    :data:`MIN_LABELS_PER_COEFFICIENT` labels per coefficient of the outcome model
    (``n_features + 1``) and ``"uniform"`` when the predicted variance ratio is not
    below ``max_ratio`` (no gain expected).
    """
    if n_labels < MIN_LABELS_PER_COEFFICIENT * (n_features + 1):
        return SMALL_PILOT
    if not ratio < max_ratio:
        return "uniform"
    return "adaptive"


def expected_variance_ratio(
    sd: np.ndarray,
    resid2: np.ndarray,
    labeled: np.ndarray,
    *,
    weights: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
    prior: np.ndarray | None = None,
    n: float | None = None,
) -> float:
    """Variance of the estimate after an adaptive wave relative to a uniform wave of the
    same expected size, predicted from labels already in hand.

    Under Poisson sampling the linearised variance is ``sum_i e_i^2 (1 / pi_i - 1)``
    over the pool, with ``pi_i`` the union of all waves. Given ``prior`` (the earlier
    waves' inclusion probabilities) and ``n`` (the wave's expected new items), the
    ratio compares the union after :func:`adaptive_probabilities` with the union after
    a uniform wave, both estimated from the labeled items' out-of-fold squared
    residuals ``resid2`` (aligned with the pool, used where ``labeled``) weighted by
    ``weights`` (their design weights ``1 / pi``; default equal, i.e. a uniform pilot).
    Without ``prior`` and ``n`` it compares the wave alone with a uniform wave:
    ``mean(s) * mean(e^2 / s) / mean(e^2)`` for the wave's scores ``s``.
    """
    sd = np.asarray(sd, dtype=float)
    labeled = np.asarray(labeled, dtype=bool)
    open_ = ~labeled
    w = np.ones(labeled.sum()) if weights is None else np.asarray(weights, dtype=float)[labeled]
    e2 = np.asarray(resid2, dtype=float)[labeled]
    if np.sum(w * e2) <= 0 or not open_.any():
        return 1.0
    if prior is not None and n is not None:
        prior = np.asarray(prior, dtype=float)
        wave = adaptive_probabilities(sd, n, prior=prior, uniform_share=uniform_share)
        # a uniform wave of the same expected size: one rate for every item of the pool
        rate = min(1.0, n / max(float(np.sum(1.0 - prior)), 1e-300))
        flat_pi = prior[labeled] + (1.0 - prior[labeled]) * rate
        adapt_pi = combine_waves([prior, wave])[labeled]
        num = float(np.sum(w * e2 * (1.0 / adapt_pi - 1.0)))
        den = float(np.sum(w * e2 * (1.0 / flat_pi - 1.0)))
        return num / den if den > 0 else 1.0
    mean_sd = float(sd[open_].mean())
    score = (1.0 - uniform_share) * sd / max(mean_sd, 1e-300) + uniform_share
    mean_e2 = float(np.sum(w * e2) / np.sum(w))
    spread = float(np.sum(w * e2 / score[labeled]) / np.sum(w))
    return float(score[open_].mean() * spread / mean_e2)


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
    if prior is None:
        return cap_probabilities(score, n, weight=weight)
    return top_up_probabilities(score, n, np.asarray(prior, dtype=float))


def top_up_probabilities(score: np.ndarray, n: float, prior: np.ndarray) -> np.ndarray:
    """A wave that brings the union of waves as close as it can to ``min(1, c * score)``.

    Earlier waves already gave item ``i`` the probability ``prior_i``; a wave with
    conditional probability ``p_i = max(0, t_i - prior_i) / (1 - prior_i)`` makes the
    union ``max(prior_i, t_i)`` for the target ``t_i = min(1, c * score_i)``, with ``c``
    such that the expected number of new items ``sum_i (1 - prior_i) p_i`` is ``n``.
    A uniform pilot then counts toward the final allocation instead of diluting it:
    the wave's labels go where the pilot left the target short. Like
    :func:`cap_probabilities` the rule depends on ``prior`` and ``score`` only, not on
    which items the earlier waves drew.
    """
    score = np.asarray(score, dtype=float)
    room = float(np.sum(1.0 - prior))
    if n < 0 or n > room * (1 + 1e-12):
        raise ValidationError(
            f"cannot draw {n:g} new items in expectation: at most {room:g} are available; "
            "lower the budget"
        )

    def new_items(c: float) -> float:
        return float(np.sum(np.maximum(np.minimum(1.0, c * score) - prior, 0.0)))

    lo, hi = 0.0, 1.0
    while new_items(hi) < n and hi < 1e300:
        lo, hi = hi, hi * 2.0
    for _ in range(200):  # bisection on the monotone expected count
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if new_items(mid) < n else (lo, mid)
    target = np.minimum(1.0, hi * score)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(prior < 1.0, np.maximum(target - prior, 0.0) / (1.0 - prior), 0.0)
    return np.clip(p, 0.0, 1.0)


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
