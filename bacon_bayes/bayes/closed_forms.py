"""Closed forms of the collapsed judge measurement model.

Item i has a latent quality ``z_i ~ N(mu_i, tau^2)``; judge j reports
``l_ij = a_j + c_j z_i + e_ij`` with ``e_ij ~ N(0, s2_ij)``; ``obs_ij`` is 1 where
judge j scored item i and 0 where it did not (the entry of ``L`` is then ignored).
Integrating ``z_i`` out gives the judges' marginal density (matrix determinant
lemma and Sherman-Morrison on ``D_i + tau^2 c c'``) and the posterior of ``z_i``
given the judges, both in O(judges) per item.

Every function takes the array module ``xp`` (``numpy`` or ``pytensor.tensor``)
so one formula serves the sampled model and the numpy predictions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

__all__ = [
    "collapse_judges",
    "normal_interval_prob",
    "ordinal_probs",
]

LOG_2PI = float(np.log(2.0 * np.pi))


def collapse_judges(
    L: Any, obs: Any, a: Any, c: Any, log_sd: Any, mu: Any, tau2: Any, xp: Any = np
):
    """Marginal log density of each item's judge scores and the posterior of z.

    Parameters
    ----------
    L, obs : (n, J) judge scores (any value where missing) and 0/1 observed mask.
    a, c : (J,) or broadcastable judge offsets and scales.
    log_sd : (n, J) or broadcastable log noise standard deviations.
    mu : (n,) prior mean of z (or (d, n) with every other argument broadcast
        to (d, n, J)); tau2 : prior variance of z, broadcastable to ``mu``.
    xp : ``numpy`` or ``pytensor.tensor``.

    Returns
    -------
    logp : (n,) log p(l_i) over the observed judges.
    m, v : (n,) posterior mean and variance of z_i given the judges.
    """
    r = L - a - c * mu[..., None]
    inv = obs * xp.exp(-2.0 * log_sd)  # 1 / s2 where observed, 0 where missing
    cinv = c * inv
    s1 = xp.sum(c * cinv, axis=-1)
    s2c = xp.sum(r * cinv, axis=-1)
    s0 = xp.sum(r * r * inv, axis=-1)
    logdet_d = 2.0 * xp.sum(obs * log_sd, axis=-1)
    n_obs = xp.sum(obs, axis=-1)
    one_plus = 1.0 + tau2 * s1
    logp = -0.5 * (n_obs * LOG_2PI + logdet_d + xp.log(one_plus) + s0 - tau2 * s2c * s2c / one_plus)
    precision = 1.0 / tau2 + s1
    v = 1.0 / precision
    m = mu + s2c * v
    return logp, m, v


def normal_interval_prob(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """P(lo < Z <= hi) for standard normal Z, accurate in both tails."""
    upper = lo > 0  # both bounds in the upper tail: use the survival function
    return np.where(
        upper, special.ndtr(-lo) - special.ndtr(-hi), special.ndtr(hi) - special.ndtr(lo)
    )


def ordinal_probs(m: np.ndarray, sd: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """Ordered-probit level probabilities P(y = k) = Phi((k_k - m)/sd) - Phi((k_{k-1} - m)/sd).

    ``m`` and ``sd`` are (d, n) (one row per posterior draw) and ``cut`` is (d, K - 1)
    inner cutpoints (increasing; the outer ones are infinite). Returns (d, n, K).
    """
    cut = np.atleast_2d(np.asarray(cut, dtype=float))
    inf = np.full((cut.shape[0], 1), np.inf)
    edges = np.concatenate([-inf, cut, inf], axis=1)[:, None, :]
    z = (edges - np.asarray(m)[..., None]) / np.asarray(sd)[..., None]
    return np.clip(normal_interval_prob(z[..., :-1], z[..., 1:]), 0.0, 1.0)
