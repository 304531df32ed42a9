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
worst case) while a correct model keeps most of its gain. A study with groups
draws with 0.5 (:data:`GROUP_UNIFORM_SHARE`): a group
mean rests on few labels, and weights up to 5x broke group means on real tables.

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
come from a model fitted on earlier labels (adaptive, two-stage), a later
wave's ``p_k(i)`` of an item labeled earlier depends on that item's own label
(through the model fitted on it), and weights from the union are biased (on
binary labels by a sixth to a quarter of a standard error): the union serves
the design (each wave's ``prior``); the estimate from a study with such waves
weights wave by wave (:func:`bacon_bayes.inclusion.sequential_propensity`; for waves that
draw prompts, :func:`bacon_bayes.inclusion.sequential_inclusion`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bacon_bayes.arguments import number
from bacon_bayes.errors import ValidationError
from bacon_bayes.sampling.designs import Design, poisson

__all__ = [
    "DEFAULT_UNIFORM_SHARE",
    "GROUP_UNIFORM_SHARE",
    "MAX_VARIANCE_RATIO",
    "OPTIMISTIC_RATIO",
    "SMALL_PILOT",
    "TopUp",
    "adaptive",
    "adaptive_probabilities",
    "adaptive_wave",
    "cap_probabilities",
    "combine_waves",
    "default_uniform_share",
    "expected_variance_ratio",
    "sd_wave_choice",
    "top_up_probabilities",
]

DEFAULT_UNIFORM_SHARE = 0.2

#: An adaptive wave's ``uniform_share`` on a study with groups, unless given: no weight
#: past twice a uniform wave's. Group means rest on a few labels each, and heavier weights
#: broke them (TriviaQA, 150 sequences of 10 waves: some look missed 0.077 on average over
#: 8 models and 0.240 for one at 0.2; at 0.5 over 1,000 sequences 0.028, the worst three
#: 0.062-0.066; VALIDATION.md), while the
#: pool mean's predicted gain is the same (variance ratio against uniform at 0.2 / 0.5:
#: TriviaQA 1.018 / 0.898, WMT22 0.750 / 0.744, SummEval 0.961 / 0.966). Over 20 waves
#: TriviaQA's worst model still missed 0.167 at 0.5: a wave on 0/1 labels with groups says
#: to draw uniform or stratified waves for group means, at any share.
GROUP_UNIFORM_SHARE = 0.5


def default_uniform_share(groups: bool) -> float:
    """The adaptive wave's uniform share unless one is given: :data:`GROUP_UNIFORM_SHARE`
    with groups (``bacon sample`` on a study with a group column, and ``bacon plan``
    pricing the wave it prints), else :data:`DEFAULT_UNIFORM_SHARE`."""
    return GROUP_UNIFORM_SHARE if groups else DEFAULT_UNIFORM_SHARE


#: What the predicted variance ratio of an adaptive wave is worth, said wherever it is
#: printed (``bacon sample``, ``bacon plan``; tester C finding 6): the pilot's sd model
#: over-fits most where it promises most.
OPTIMISTIC_RATIO = (
    "a model's prediction from the labels so far, and optimistic: on WMT22 (15 uniform "
    "pilots of 150, each followed by an adaptive and a uniform wave of 150) it predicted "
    "0.75 on average where the intervals gave 0.93 (squared width ratio), the waves "
    "promising most gaining least, some with an interval wider than the uniform wave's "
    "(VALIDATION.md, 'Adaptive waves: the predicted variance ratio against the realised "
    "one')"
)

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
    (:meth:`TopUp.variance_ratio`). Without ``prior`` and ``n`` it compares the wave
    alone with a uniform wave:
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
        wave = adaptive_wave(sd, prior, uniform_share=uniform_share)
        return wave.variance_ratio(n, np.flatnonzero(labeled), w * e2)
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
    if prior is None:
        score = _score(sd, None, uniform_share)
        return cap_probabilities(score, n, weight=np.ones(score.size))
    return adaptive_wave(sd, prior, uniform_share=uniform_share).probabilities(n)


def adaptive_wave(
    sd: np.ndarray, prior: np.ndarray, *, uniform_share: float = DEFAULT_UNIFORM_SHARE
) -> TopUp:
    """The wave of :func:`adaptive_probabilities` after earlier waves (``prior``) for any
    budget: ``adaptive_wave(sd, prior).probabilities(n)`` equals
    ``adaptive_probabilities(sd, n, prior=prior)``, and a plan that tries many budgets
    sorts the items once (:class:`TopUp`)."""
    prior = np.asarray(prior, dtype=float)
    return TopUp(_score(sd, prior, uniform_share), prior)


def _score(sd: np.ndarray, prior: np.ndarray | None, uniform_share: float) -> np.ndarray:
    """``(1 - s) * sd / mean(sd) + s``, the mean over the items still unlabeled."""
    sd = np.asarray(sd, dtype=float)
    number(uniform_share, "uniform_share", "0.2", "in [0, 1]")
    if not 0 <= uniform_share <= 1:
        raise ValidationError(f"uniform_share must be in [0, 1], got {uniform_share}")
    if sd.ndim != 1:
        raise ValidationError(f"sd must be 1-D (one per item); got shape {sd.shape}")
    bad = np.flatnonzero(~np.isfinite(sd) | (sd < 0))
    if bad.size:
        raise ValidationError(
            f"predictive sd of item at position {bad[0]} is {sd[bad[0]]!r}; "
            "it must be finite and >= 0"
        )
    if prior is not None:
        prior = np.asarray(prior, dtype=float)
        if prior.shape != sd.shape:
            raise ValidationError(
                f"prior must give one probability per item: {prior.size} for {sd.size}"
            )
        off = np.flatnonzero(~((prior >= 0) & (prior <= 1)))
        if off.size:
            raise ValidationError(
                f"prior probability of item at position {off[0]} is {float(prior[off[0]])!r}; "
                "the earlier waves' inclusion probabilities (combine_waves) lie in [0, 1]"
            )
    weight = np.ones(sd.size) if prior is None else 1.0 - prior
    mean_sd = float(np.sum(weight * sd) / weight.sum()) if weight.sum() > 0 else 0.0
    relative = sd / mean_sd if mean_sd > 0 else np.ones_like(sd)
    return (1.0 - uniform_share) * relative + uniform_share


def top_up_probabilities(score: np.ndarray, n: float, prior: np.ndarray) -> np.ndarray:
    """A wave that brings the union of waves as close as it can to ``min(1, c * score)``.

    Earlier waves already gave item ``i`` the probability ``prior_i``; a wave with
    conditional probability ``p_i = max(0, t_i - prior_i) / (1 - prior_i)`` makes the
    union ``max(prior_i, t_i)`` for the target ``t_i = min(1, c * score_i)``, with ``c``
    such that the expected number of new items ``sum_i (1 - prior_i) p_i`` is ``n``.
    A uniform pilot then counts toward the final allocation instead of diluting it:
    the wave's labels go where the pilot left the target short. Like
    :func:`cap_probabilities` the rule depends on ``prior`` and ``score`` only, not on
    which items the earlier waves drew. ``c`` in closed form: :class:`TopUp`.
    """
    return TopUp(score, prior).probabilities(n)


class TopUp:
    """The top-up wave of :func:`top_up_probabilities` for any budget ``n``, in closed
    form.

    The expected number of new items at scale ``c`` is ``f(c) = sum_i max(min(1, c
    s_i) - prior_i, 0)``, continuous, piecewise linear and increasing. Item ``i`` starts
    to count at ``a_i = prior_i / s_i`` and is capped at ``b_i = 1 / s_i``, so ``f(c) =
    c S_a(c) - P_a(c) - c S_b(c) + B(c)`` with ``S_a, P_a`` the sums of ``s`` and
    ``prior`` over ``a_i < c`` and ``S_b, B`` the sum of ``s`` and the count over ``b_i <
    c``: sorted once, each ``f(c)`` is two binary searches, and ``c`` is found by
    bisection on ``c`` down to one linear piece, then solved exactly. Many budgets (a
    plan's search) cost one sort.
    """

    def __init__(self, score: np.ndarray, prior: np.ndarray) -> None:
        self.score = np.asarray(score, dtype=float)
        self.prior = np.asarray(prior, dtype=float)
        if self.prior.shape != self.score.shape:
            raise ValidationError("prior must give one probability per item")
        s, p = self.score, self.prior
        live = s > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            self.start = np.where(live, p / s, np.inf)  # a_i
            self.cap = np.where(live, 1.0 / s, np.inf)  # b_i
        if p.size and np.ptp(p) == 0:  # one prior: both points fall as the score rises
            order_a = order_b = np.argsort(-s)
        else:
            order_a, order_b = np.argsort(self.start), np.argsort(self.cap)
        self.order_a, self.order_b = order_a, order_b
        self._a, self._b = self.start[order_a], self.cap[order_b]
        zero = np.zeros(1)
        self._sa = np.concatenate([zero, np.cumsum(np.where(live, s, 0.0)[order_a])])
        self._pa = np.concatenate([zero, np.cumsum(p[order_a])])
        self._sb = np.concatenate([zero, np.cumsum(np.where(live, s, 0.0)[order_b])])
        self.room = float(np.sum(1.0 - p))

    def _parts(self, c: float) -> tuple[int, int]:
        return (
            int(np.searchsorted(self._a, c, side="left")),
            int(np.searchsorted(self._b, c, side="left")),
        )

    def _line(self, ka: int, kb: int) -> tuple[float, float]:
        """``f(c) = slope * c + offset`` while the items below ``c`` are ``ka`` and ``kb``."""
        return float(self._sa[ka] - self._sb[kb]), float(kb - self._pa[ka])

    def new_items(self, c: float) -> float:
        """Expected new items at scale ``c``: ``sum_i max(min(1, c s_i) - prior_i, 0)``."""
        slope, offset = self._line(*self._parts(c))
        return max(slope * c + offset, 0.0)

    def scale(self, n: float) -> float:
        """The ``c`` with ``n`` new items in expectation."""
        if n < 0 or n > self.room * (1 + 1e-12):
            raise ValidationError(
                f"cannot draw {n:g} new items in expectation: at most {self.room:g} are "
                "available; lower the budget"
            )
        lo, hi = 0.0, 1.0
        while self.new_items(hi) < n and hi < 1e300:
            lo, hi = hi, hi * 2.0
        for _ in range(200):  # down to one linear piece of f, then exact
            parts = self._parts(hi)
            if parts == self._parts(lo) or parts == self._parts(np.nextafter(lo, np.inf)):
                slope, offset = self._line(*parts)
                if slope > 0:
                    return float(min(max((n - offset) / slope, lo), hi))
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            lo, hi = (mid, hi) if self.new_items(mid) < n else (lo, mid)
        return hi

    def inverse_sums(
        self, v: np.ndarray, codes: np.ndarray, m: int
    ) -> Callable[[float], np.ndarray]:
        """A function of the budget ``n``: for each code ``k < m``, ``sum_i v_i /
        union_i`` over its items (``union = max(prior, min(1, c s))``, the variance
        weights of a Horvitz-Thompson sum), from prefix sums by code along the two sorted
        orders: ``sum v / prior`` over the items not reached, ``sum v / (c s)`` over those
        topped up and ``sum v`` over those capped."""
        v = np.asarray(v, dtype=float)
        s, p = self.score, self.prior
        # items without a prior are topped up at any c > 0: their v / prior never counts
        by_prior = np.where((p <= 0) & (s > 0), 0.0, v / np.maximum(p, 1e-12))
        with np.errstate(divide="ignore", invalid="ignore"):
            by_score = np.where(s > 0, v / s, 0.0)
        total = np.bincount(codes, by_prior, m)
        ends = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=m))])
        # each order regrouped by code (a stable sort keeps the order within a code)
        ia = self.order_a[np.argsort(codes[self.order_a], kind="stable")]
        same = self.order_b is self.order_a
        ib = ia if same else self.order_b[np.argsort(codes[self.order_b], kind="stable")]
        a, b = self.start[ia], self.cap[ib]
        a_prior, a_score = _prefix(by_prior[ia]), _prefix(by_score[ia])
        b_score, b_v = _prefix(by_score[ib]), _prefix(v[ib])

        def at(n: float) -> np.ndarray:
            c = self.scale(n)
            out = total.copy()
            if not c > 0:  # no new item: every union is the prior
                return out
            for k in range(m):
                lo, hi = ends[k], ends[k + 1]
                ka = lo + int(np.searchsorted(a[lo:hi], c, side="left"))
                kb = lo + int(np.searchsorted(b[lo:hi], c, side="left"))
                reached = a_score[ka] - a_score[lo] - (b_score[kb] - b_score[lo])
                out[k] += b_v[kb] - b_v[lo] - (a_prior[ka] - a_prior[lo]) + reached / c
            return out

        return at

    def variance_ratio(self, n: float, rows: np.ndarray, we2: np.ndarray) -> float:
        """:func:`expected_variance_ratio` after this wave of ``n`` new items, from the
        labeled ``rows`` and their design-weighted squared residuals ``we2``: ``sum we2
        (1 / pi - 1)`` for the union of the waves over the same for a uniform wave."""
        prior = self.prior[rows]
        # a uniform wave of the same expected size: one rate for every item of the pool
        rate = min(1.0, n / max(self.room, 1e-300))
        flat_pi = prior + (1.0 - prior) * rate
        # the union of the waves, max(prior, min(1, c * score)), on the labeled items
        adapt_pi = np.maximum(prior, np.minimum(1.0, self.scale(n) * self.score[rows]))
        num = float(np.sum(we2 * (1.0 / adapt_pi - 1.0)))
        den = float(np.sum(we2 * (1.0 / flat_pi - 1.0)))
        return num / den if den > 0 else 1.0

    def target(self, n: float) -> np.ndarray:
        """The union of the earlier waves and this one, ``max(prior_i, min(1, c s_i))``."""
        return np.maximum(self.prior, np.minimum(1.0, self.scale(n) * self.score))

    def probabilities(self, n: float) -> np.ndarray:
        """The wave's conditional probabilities (:func:`top_up_probabilities`)."""
        target = np.minimum(1.0, self.scale(n) * self.score)
        prior = self.prior
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(prior < 1.0, np.maximum(target - prior, 0.0) / (1.0 - prior), 0.0)
        return np.clip(p, 0.0, 1.0)


def _prefix(x: np.ndarray) -> np.ndarray:
    return np.concatenate([np.zeros(1), np.cumsum(x)])


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
    for k, p in enumerate(probs):
        if p.shape != probs[0].shape:
            raise ValidationError("all waves must give one probability per pool item")
        if (bad := ~((p >= 0) & (p <= 1))).any():  # NaN too
            i = int(np.flatnonzero(bad)[0])
            raise ValidationError(
                f"wave {k + 1} gives item {i} the probability {p[i]}: each must lie in "
                f"[0, 1] ({int(bad.sum())} do not); pass the probabilities the wave drew with."
            )
    union = probs[0].copy()
    for p in probs[1:]:
        union = union + (1.0 - union) * p  # = 1 - prod(1 - p_k), exact for one wave
    return union
