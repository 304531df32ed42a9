"""Moderated group variances for groups with a handful of labels (Smyth 2004): each
group's own variance averaged with the variance that all labels predict for its items,
the prior's worth in labels estimated from how much the groups' variances scatter."""

from __future__ import annotations

import numpy as np
from scipy import special

from bacon_bayes.estimate.core import Target, variance_coefficients

#: Fewest labels' worth of the prior: where the groups' variances scatter more than
#: sampling alone explains (labels piled up at a bound of the scale), the prior still
#: counts as 4 labels, which keeps a group whose labels all sit at the bound honest.
MIN_PRIOR_LABELS = 4.0

#: A zero (or tiny) group variance enters the prior's fit as this fraction of its prior.
_ZERO_VARIANCE = 1e-5


def variance_prior(
    resid: np.ndarray, f_lab: np.ndarray, c: np.ndarray, g_lab: np.ndarray, m: int, n_g: np.ndarray
) -> np.ndarray:
    """Each group's residual variance as predicted from all labels (the moderation's prior).

    The squared within-group-centred residuals of every labeled item are regressed on
    the surrogate (``E[u^2 | f] = a + b f``, floored at a tenth of the pooled value), so a
    group whose few labels all sit at a bound of the scale still gets the spread that
    items with surrogates like its own show elsewhere. The prediction goes through the
    same design-based formula as the group's own variance (``sum c_i s^2(f_i) / N_g^2``).
    """
    n_lab = np.bincount(g_lab, minlength=m).astype(float)
    centre = np.bincount(g_lab, weights=resid, minlength=m) / np.maximum(n_lab, 1.0)
    u2 = (resid - centre[g_lab]) ** 2 * resid.size / max(resid.size - m, 1)
    pooled = float(u2.mean())
    design = np.column_stack([np.ones_like(f_lab), f_lab])
    coef = np.linalg.lstsq(design, u2, rcond=None)[0]
    s2 = np.maximum(design @ coef, 0.1 * pooled)
    return np.bincount(g_lab, weights=c * s2, minlength=m) / n_g.astype(float) ** 2


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
    with ``d = n_g - 1`` and ``prior / sigma^2 ~ chi^2_d0 / d0``; then
    ``var(log(s^2 / prior)) = trigamma(d / 2) + trigamma(d0 / 2)``, which is solved for
    ``d0`` (Smyth's moment estimate; the prior's scale stays the regression's). Groups
    that scatter no more than sampling explains give ``most`` (the pooled residual
    variance's own df); the answer is kept in ``[MIN_PRIOR_LABELS, most]``.
    """
    most = max(float(most), MIN_PRIOR_LABELS)
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
) -> tuple[np.ndarray, np.ndarray, float]:
    """Each group's moderated variance, its Student-t df and the prior's worth ``d0``.

    ``var``: the groups' own variances of the mean; ``resid``, ``f_lab``, ``pi_lab``,
    ``g_lab``: the labeled items' residuals, surrogates, inclusion probabilities and
    group codes. The moderated variance is ``(d0 prior + (n_g - 1) var) / (d0 + n_g - 1)``
    with ``n_g - 1 + d0`` df (:func:`variance_prior`, :func:`prior_labels`).
    """
    m = n_g.size
    own = np.bincount(g_lab, minlength=m).astype(float) - 1.0
    c = variance_coefficients(1.0 / pi_lab, pi_lab, target)
    prior = variance_prior(resid, f_lab, c, g_lab, m, n_g)
    d0 = prior_labels(var, own, prior, most=g_lab.size - m)
    return (d0 * prior + own * var) / (d0 + own), own + d0, d0
