"""Critical values of the clustered intervals from a studentised bootstrap over prompts.

With a few dozen labeled prompts per group, a group's clustered variance is itself
uncertain exactly where it matters: a binary label that the surrogate predicts almost
perfectly on the drawn prompts gives a tiny standard error, and ``t`` statistics with
heavy tails (on TriviaQA's 8 systems, 40 labeled prompts each: the 99th percentile of
``|t|`` was 9.6, pointwise coverage of nominal 95% intervals 0.87-0.95). As the
item-level estimators do within groups (:func:`bootstrap_t_critical_values`), the
critical values come from the bootstrap distribution of the studentised statistics,
here resampling whole labeled prompts with replacement (so the pairing is kept):

    rbar*_g = sum_p c_p S_pg / sum_p c_p W_pg,
    V*_g = sum_p c_p (S_pg - rbar*_g W_pg)^2 / (sum_p c_p W_pg)^2,

with ``S_pg``, ``W_pg`` the prompt's weighted residual sum and weight in group ``g`` and
``c_p`` the resample counts; the same for every pairwise difference, whose variance
includes the cross-products of the two groups on one prompt. The quantiles of ``|t*|``
(pointwise, per group and per pair) and of ``max |t*|`` (simultaneous) are the critical
values, applied to the design-based standard errors of :mod:`.clustered`.
"""

from __future__ import annotations

import numpy as np

#: Resamples of the prompts (the critical values' Monte Carlo error is about 1%).
N_BOOT = 2000


def _studentised(est: np.ndarray, var: np.ndarray, centre: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(est - centre) / np.sqrt(var)
    return np.where(np.isfinite(t), t, np.inf)


def cluster_bootstrap_critical_values(
    S: np.ndarray,
    W: np.ndarray,
    alpha: float,
    *,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Critical values for group means and their pairwise differences.

    Parameters
    ----------
    S, W : ndarray, shape (n_prompts, m)
        Per labeled prompt and group, the sum of ``w_i r_i`` and of ``w_i`` over the
        prompt's labeled items of the group (zeros where it has none).
    alpha : float
        One minus the level.

    Returns
    -------
    dict with ``groups`` and ``groups_simultaneous`` (per group), ``pairs`` and
    ``pairs_simultaneous`` (per pair ``(a, b)``, ``a < b``, in row-major order).
    """
    n_p, m = S.shape
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n_p, np.full(n_p, 1.0 / n_p), size=n_boot).astype(float)
    w_tot = counts @ W  # (B, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        rbar = np.where(w_tot > 0, (counts @ S) / w_tot, np.nan)
    centre = S.sum(axis=0) / W.sum(axis=0)
    ss, sw, ww = counts @ S**2, counts @ (S * W), counts @ W**2
    with np.errstate(divide="ignore", invalid="ignore"):
        var = (ss - 2.0 * rbar * sw + rbar**2 * ww) / w_tot**2
    t_groups = _studentised(rbar, var, centre)
    a, b = np.triu_indices(m, k=1)
    # cross-products of the two groups of a pair on one prompt
    cross = counts @ (S[:, a] * S[:, b])
    cross -= rbar[:, b] * (counts @ (S[:, a] * W[:, b]))
    cross -= rbar[:, a] * (counts @ (W[:, a] * S[:, b]))
    cross += rbar[:, a] * rbar[:, b] * (counts @ (W[:, a] * W[:, b]))
    with np.errstate(divide="ignore", invalid="ignore"):
        cov_ab = cross / (w_tot[:, a] * w_tot[:, b])
    var_pairs = var[:, a] + var[:, b] - 2.0 * cov_ab
    t_pairs = _studentised(rbar[:, a] - rbar[:, b], var_pairs, centre[a] - centre[b])
    level = 1.0 - alpha

    def quantile(t: np.ndarray) -> np.ndarray:
        return np.quantile(t, level, axis=0, method="higher")

    out = {
        "groups": quantile(t_groups),
        "groups_simultaneous": np.full(m, quantile(t_groups.max(axis=1))),
    }
    if a.size:
        out["pairs"] = quantile(t_pairs)
        out["pairs_simultaneous"] = np.full(a.size, quantile(t_pairs.max(axis=1)))
    return out


def influence_bootstrap_critical_values(
    psi: np.ndarray, alpha: float, *, n_boot: int = N_BOOT, seed: int = 0
) -> dict[str, np.ndarray]:
    """:func:`cluster_bootstrap_critical_values` for the population target: every prompt of
    the pool resampled with its influence ``psi_p`` (shape (P, m); the judge-only part
    and the labels' correction), the statistics ``sum_p (c_p - 1) psi_p`` studentised by
    their resampled variance ``P / (P - 1) sum_p c_p (psi_p - psibar*)^2``."""
    P, m = psi.shape
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(P, np.full(P, 1.0 / P), size=n_boot).astype(float)
    a, b = np.triu_indices(m, k=1)
    cols = np.hstack([psi, psi[:, a] - psi[:, b]])  # groups, then pairs

    total = counts @ cols
    mean = total / P
    var = (counts @ cols**2 - P * mean**2) * P / (P - 1.0)
    t = _studentised(total, var, cols.sum(axis=0))
    level = 1.0 - alpha

    def quantile(x: np.ndarray) -> np.ndarray:
        return np.quantile(x, level, axis=0, method="higher")

    t_groups, t_pairs = t[:, :m], t[:, m:]
    out = {
        "groups": quantile(t_groups),
        "groups_simultaneous": np.full(m, quantile(t_groups.max(axis=1))),
    }
    if a.size:
        out["pairs"] = quantile(t_pairs)
        out["pairs_simultaneous"] = np.full(a.size, quantile(t_pairs.max(axis=1)))
    return out
