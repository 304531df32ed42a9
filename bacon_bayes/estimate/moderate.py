"""Moderated group variances for groups with a handful of labels (Smyth 2004): each
group's own variance averaged with the variance that all labels predict for its items,
the prior's worth in labels estimated from how much the groups' variances scatter.

For the labels alone (no surrogate) the prediction is a function of the group's mean:
labels on a bounded scale spread less near its ends, so the prior is
``phi (mu - lo)(hi - mu)`` (:class:`MeanVariance`), and the interval is the set of
means ``mu`` that the moderated t does not reject with the prior evaluated *at* ``mu``
(a score interval, as Wilson's for a proportion; :func:`score_bounds`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import special

from bacon_bayes.estimate.core import VARIANCE_FLOOR, Target, floor_note, variance_coefficients
from bacon_bayes.results import EstimateTable

#: Fewest labels' worth of the prior: where the groups' variances scatter more than
#: sampling alone explains (labels piled up at a bound of the scale), the prior still
#: counts as 4 labels, which keeps a group whose labels all sit at the bound honest.
MIN_PRIOR_LABELS = 4.0

#: ``details["interval"]`` of the labels alone when they take two values (:func:`two_valued`)
TWO_VALUED = "score (two-valued labels)"

#: A zero (or tiny) group variance enters the prior's fit as this fraction of its prior.
_ZERO_VARIANCE = 1e-5


def _within_group(resid: np.ndarray, g_lab: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Each group's label count and the residuals centred on their group's mean."""
    n_lab = np.bincount(g_lab, minlength=m).astype(float)
    centre = np.bincount(g_lab, weights=resid, minlength=m) / np.maximum(n_lab, 1.0)
    return n_lab, resid - centre[g_lab]


def variance_prior(
    resid: np.ndarray,
    f_lab: np.ndarray,
    c: np.ndarray,
    g_lab: np.ndarray,
    m: int,
    n_g: np.ndarray,
    floor: float = 0.0,
) -> np.ndarray:
    """Each group's residual variance as predicted from all labels (the moderation's prior).

    The squared within-group-centred residuals of every labeled item are regressed on
    the surrogate (``E[u^2 | f] = a + b f``, floored at a tenth of the pooled value), so a
    group whose few labels all sit at a bound of the scale still gets the spread that
    items with surrogates like its own show elsewhere. The prediction goes through the
    same design-based formula as the group's own variance (``sum c_i s^2(f_i) / N_g^2``).
    ``floor``: the least variance per label (:func:`~.core.residual_floor`).
    """
    u2 = _within_group(resid, g_lab, m)[1] ** 2 * resid.size / max(resid.size - m, 1)
    pooled = float(u2.mean())
    design = np.column_stack([np.ones_like(f_lab), f_lab])
    coef = np.linalg.lstsq(design, u2, rcond=None)[0]
    s2 = np.maximum(design @ coef, max(0.1 * pooled, floor))
    return np.bincount(g_lab, weights=c * s2, minlength=m) / n_g.astype(float) ** 2


@dataclass(frozen=True)
class MeanVariance:
    """A label's variance as a function of its mean, ``phi (mu - lo)(hi - mu)``, and each
    group's design factor ``sum_g c_i / N_g^2`` (so :meth:`prior` is a variance of the
    group's mean, on the scale of :func:`variance_prior`'s).

    ``lo``, ``hi``: the smallest and largest label seen, each pushed out by the range over
    the number of labels (a group whose labels all sit at a bound keeps some spread);
    ``phi``: the pooled within-group squared deviations over the pooled ``(m - lo)(hi - m)``
    at the groups' own (unweighted) means, both with the groups' degrees of freedom.
    """

    lo: float
    hi: float
    phi: float
    design: np.ndarray

    @classmethod
    def fit(
        cls, y_lab: np.ndarray, c: np.ndarray, g_lab: np.ndarray, m: int, n_g: np.ndarray
    ) -> MeanVariance:
        n_lab = np.bincount(g_lab, minlength=m).astype(float)
        mean = np.bincount(g_lab, weights=y_lab, minlength=m) / np.maximum(n_lab, 1.0)
        pad = float(np.ptp(y_lab)) / y_lab.size
        lo, hi = float(y_lab.min()) - pad, float(y_lab.max()) + pad
        dev2 = float(((y_lab - mean[g_lab]) ** 2).sum())
        spread = float((np.maximum(n_lab - 1.0, 0.0) * (mean - lo) * (hi - mean)).sum())
        phi = dev2 / spread if spread > 0 else 0.0
        return cls(lo, hi, phi, floor_variance(1.0, c, g_lab, n_g))

    def prior(self, mu: np.ndarray) -> np.ndarray:
        """Each group's prior variance of its mean if that mean were ``mu``."""
        q = np.maximum((mu - self.lo) * (self.hi - mu), 0.0)
        return np.maximum(self.design * self.phi * q, _ZERO_VARIANCE * self.design)


def score_bounds(
    est: np.ndarray,
    var: np.ndarray,
    own: np.ndarray,
    d0: float,
    mv: MeanVariance,
    crit: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The means ``mu`` with ``(est - mu)^2 <= crit^2 (d0 prior(mu) + own var) / (d0 + own)``.

    ``var``: each group's own variance of its mean, ``own`` its df; the prior is
    quadratic in ``mu``, so the ends are the roots of a quadratic, kept within the
    label range ``[lo, hi]``; the interval always holds ``est``. Near a bound of the
    scale it reaches further away from the bound than towards it, which is where a
    handful of labels misleads: ten labels that missed a group's few low ratings show a
    high mean *and* a small variance.
    """
    a = crit**2 / (d0 + own)
    b = a * d0 * mv.design * mv.phi
    q2 = 1.0 + b
    q1 = -2.0 * est - b * (mv.lo + mv.hi)
    q0 = est**2 + b * mv.lo * mv.hi - a * own * var
    root = np.sqrt(np.maximum(q1 * q1 - 4.0 * q2 * q0, 0.0))
    low, high = (-q1 - root) / (2.0 * q2), (-q1 + root) / (2.0 * q2)
    # a group's mean lies within the label range (pushed out by range / n, MeanVariance)
    return np.clip(low, mv.lo, est), np.clip(high, est, mv.hi)


def two_valued(
    est: np.ndarray, y_lab: np.ndarray, c: np.ndarray, g_lab: np.ndarray, n_g: np.ndarray
) -> tuple[np.ndarray, MeanVariance] | None:
    """Labels alone that take two values (a verdict: 0/1, correct/incorrect): each
    group's variance of its mean and the :class:`MeanVariance` of the binomial, or None
    for labels of more values.

    A two-valued label's variance is its mean's, ``(mu - lo)(hi - mu)``: nothing to
    estimate, so :func:`score_bounds` with the prior alone (no own variance) is Wilson's
    score interval at a normal critical value. The moderated score interval counted a
    group's own variance as worth its labels, and a group whose labels all read 1 (15 of
    TriviaQA's GPT-4 answers, right 85% of the time) has none: its simultaneous interval
    stopped at 0.87, and the classical simultaneous means of TriviaQA's 8 models covered
    0.82 at 5% labels (0.92 with the moderated score interval, 0.95 with this one). The
    variance returned (the differences', :func:`~.groups.compare`) is at the mean with
    one label of each value added (Agresti & Caffo 2000), never zero.
    """
    values = np.unique(y_lab)
    if values.size != 2:
        return None
    m = n_g.size
    n_lab = np.bincount(g_lab, minlength=m).astype(float)
    lo, hi = float(values[0]), float(values[1])
    mv = MeanVariance(lo, hi, 1.0, floor_variance(1.0, c, g_lab, n_g))
    return mv.prior((n_lab * est + lo + hi) / (n_lab + 2.0)), mv


def two_valued_differences(
    table: EstimateTable, diffs: EstimateTable, pairs: np.ndarray
) -> EstimateTable:
    """``diffs`` (the ``pairs`` of ``table``'s groups) with Newcombe's ends where
    ``table`` is the labels alone taking two values (:func:`two_valued`): each group's
    Wilson interval at the pair's critical value, the difference's ends the square root
    of the two distances on each side (the MOVER: Newcombe 1998, method 10). The Wald
    ends on the Agresti-Caffo variances covered TriviaQA's 28 pairs of 8 models 0.90 jointly
    at 3% labels. ``diffs`` unchanged for any other table."""
    if table.details.get("interval") != TWO_VALUED or not len(diffs):
        return diffs
    lo, hi = table.details["label_range"]
    design, est = np.asarray(table.details["design"]), table.estimate
    crit, (a, b) = diffs.critical_value, pairs.T
    zero = np.zeros(a.size)

    def ends(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return score_bounds(est[g], zero, zero, 1.0, MeanVariance(lo, hi, 1.0, design[g]), crit)

    (la, ua), (lb, ub) = ends(a), ends(b)
    d = est[a] - est[b]
    low = d - np.hypot(est[a] - la, ub - est[b])
    high = d + np.hypot(ua - est[a], est[b] - lb)
    keep = np.isfinite(diffs.ci_low)  # a pair withheld stays so
    low, high = np.where(keep, low, np.nan), np.where(keep, high, np.nan)
    return replace(diffs, ci_low=low, ci_high=high)


def own_labels(resid: np.ndarray, g_lab: np.ndarray, m: int) -> np.ndarray:
    """Each group's own variance's worth in labels: ``n_g - 1`` for normal residuals, less
    for heavy-tailed ones.

    ``var(s^2) = sigma^4 (2 / (n - 1) + (kappa - 3) / n)`` (``kappa`` the residuals'
    kurtosis within a group), which a ``chi^2_d / d`` variance matches with ``d = 2 / (2 /
    (n - 1) + (kappa - 3) / n)``. ``kappa`` is pooled over the groups as ``sum n_g m4_g /
    sum n_g m2_g^2`` (each group's central moments, so groups whose variances differ do
    not read as heavy tails: the prior's worth ``d0`` models that), rescaled so that normal
    residuals read 3 at these group sizes. A binary label that a good surrogate gets wrong
    on 4% of items has ``kappa`` near 25: 50 labels then tell a group's variance about as
    well as 4 normal ones (most draws show 0-3 of the group's errors; the estimate reads
    about 7), so the prior weighs in more. Never more than ``n_g - 1`` (light tails are not
    counted as more labels).
    """
    n_lab, u = _within_group(resid, g_lab, m)
    u2 = u * u
    ok = n_lab >= 2
    n = n_lab[ok]
    m2 = np.bincount(g_lab, weights=u2, minlength=m)[ok] / n
    m4 = np.bincount(g_lab, weights=u2 * u2, minlength=m)[ok] / n
    den = float(n @ (m2 * m2))
    excess = 0.0
    if den > 0:
        # normal residuals' E[n m4] / E[n m2^2], so that normal groups read kappa = 3
        normal = ((n - 1) * (n * n - 3 * n + 3) / n**2).sum() / ((n - 1) * (n + 1) / n).sum()
        excess = max(float(n @ m4) / den / float(normal) - 3.0, 0.0)
    d = n_lab - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        eff = 2.0 / (2.0 / d + excess / n_lab)
    return np.where(d > 0, np.minimum(eff, d), d)


def _trigamma_inverse(x: float) -> float:
    """``y`` with ``trigamma(y) = x`` (Newton's method from ``0.5 + 1/x``, Smyth 2004)."""
    y = 0.5 + 1.0 / x
    for _ in range(100):
        tri = float(special.polygamma(1, y))
        step = tri * (1.0 - tri / x) / float(special.polygamma(2, y))
        y += step
        if -step / y < 1e-10:
            break
    return y


def prior_labels(var: np.ndarray, own: np.ndarray, prior: np.ndarray, most: float) -> float:
    """The prior's worth in labels (degrees of freedom ``d0``), from the groups' scatter.

    Under the moderated t's model a group's variance ``s^2`` is ``sigma^2 chi^2_d / d``
    with ``d`` its worth in labels (:func:`own_labels`) and ``prior / sigma^2 ~ chi^2_d0 /
    d0``; then
    ``var(log(s^2 / prior)) = trigamma(d / 2) + trigamma(d0 / 2)``, which is solved for
    ``d0`` (Smyth's moment estimate; the prior's scale stays the regression's). Groups
    that scatter no more than sampling explains give ``most`` (the pooled residual
    variance's own df); the answer is kept in ``[MIN_PRIOR_LABELS, most]``.
    """
    most = max(float(most), MIN_PRIOR_LABELS)
    known = prior <= 0  # a wholly labeled group: its mean is known, nothing to moderate
    var, own, prior = var[~known], own[~known], prior[~known]
    if var.size < 3:
        return MIN_PRIOR_LABELS
    z = np.log(np.maximum(var, _ZERO_VARIANCE * prior) / prior)
    e = z - special.digamma(own / 2.0) + np.log(own / 2.0)
    excess = float(e.var(ddof=1) - np.mean(special.polygamma(1, own / 2.0)))
    if excess <= 0:
        return most
    return float(np.clip(2.0 * _trigamma_inverse(excess), MIN_PRIOR_LABELS, most))


def moderated_variance(
    var: np.ndarray,
    resid: np.ndarray,
    f_lab: np.ndarray,
    pi_lab: np.ndarray,
    g_lab: np.ndarray,
    n_g: np.ndarray,
    target: Target,
    est: np.ndarray | None = None,
    floor: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, float, MeanVariance | None]:
    """Each group's moderated variance, its Student-t df, the prior's worth ``d0`` and,
    for the labels alone, the mean-variance function of the prior.

    ``var``: the groups' own variances of the mean; ``resid``, ``f_lab``, ``pi_lab``,
    ``g_lab``: the labeled items' residuals, surrogates, inclusion probabilities and
    group codes. The moderated variance is ``(d0 prior + d var) / (d0 + d)`` with ``d +
    d0`` df, ``d`` the own variance's worth (:func:`own_labels`; ``n_g - 1`` for the labels
    alone, whose mean-variance prior already accounts for labels at a bound;
    :func:`variance_prior`, :func:`prior_labels`). With
    ``est`` (the groups' estimates from the labels alone, ``resid`` then the labels) the
    prior is :class:`MeanVariance`'s at ``est``, and :func:`score_bounds` gives the
    interval. ``floor``: the least variance per label (:func:`~.core.residual_floor`;
    surrogate residuals only), which the moderated variance keeps too.
    """
    m = n_g.size
    c = variance_coefficients(1.0 / pi_lab, pi_lab, target)
    mv = None
    if est is None:
        own = own_labels(resid, g_lab, m)
        prior = variance_prior(resid, f_lab, c, g_lab, m, n_g, floor)
    else:  # the score interval's prior at mu is what makes labels at a bound heavy-tailed
        own = np.bincount(g_lab, minlength=m).astype(float) - 1.0
        mv = MeanVariance.fit(resid, c, g_lab, m, n_g)
        prior = mv.prior(est)
    d0 = prior_labels(var, own, prior, most=g_lab.size - m)
    mod = np.maximum((d0 * prior + own * var) / (d0 + own), floor_variance(floor, c, g_lab, n_g))
    return mod, own + d0, d0, mv


#: A group table's details: per row, whether its variance sits at the residual floor.
FLOOR_ROWS = "variance_floor_rows"


def floor_details(
    var: np.ndarray,
    floor: float,
    c: np.ndarray,
    g_lab: np.ndarray,
    n_g: np.ndarray,
    names: np.ndarray,
) -> dict[str, Any]:
    """The group table's note where groups' variances ``var`` sit at their residual floor
    (``floor`` per label, :func:`floor_variance`), naming them, and which rows
    (:data:`FLOOR_ROWS`: an anytime look scales them by ``c / z``, as the pool mean's);
    empty otherwise."""
    floor_var = floor_variance(floor, c, g_lab, n_g)
    hit = (floor_var > 0) & (var <= floor_var * (1.0 + 1e-9))
    if not hit.any():
        return {}
    said = ["every group"] if hit.all() else [str(v) for v in names[hit]]
    return {VARIANCE_FLOOR: floor_note(g_lab.size, said), FLOOR_ROWS: [bool(h) for h in hit]}


def floor_variance(floor: float, c: np.ndarray, g_lab: np.ndarray, n_g: np.ndarray) -> np.ndarray:
    """Each group's variance of its mean at ``floor`` per label (the design formula
    ``sum c_i floor / N_g^2``; at ``floor`` 1 the group's design factor)."""
    return floor * np.bincount(g_lab, weights=c, minlength=n_g.size) / n_g.astype(float) ** 2
