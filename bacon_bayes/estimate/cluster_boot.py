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
(pointwise, per group and per pair) and of ``max |t*|`` (simultaneous) measure how heavy
the statistics' tails are.

With a dozen prompts the bootstrap-t is conservative even for normal data (90% level, 15
prompts: 1.86 against Student's 1.76; a pool mean's 90% intervals covered 0.945). So the
quantiles are taken relative to the same bootstrap on normal prompt-level data with the
same covariance and weights (a reference run with the same resample counts), and the
critical value is the Student-t (or multivariate max-|t|) one on the labeled prompts
times that ratio: exactly the t interval for normal-looking data, wider where the tails
are heavy.
"""

from __future__ import annotations

import numpy as np

from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.estimate.tables import correlation

#: Resamples of the prompts (the critical values' Monte Carlo error is about 1%).
N_BOOT = 2000

#: Seed of the normal reference data (fixed: the ratio's reference is the same each run).
_REFERENCE_SEED = 20261127


def _studentised(est: np.ndarray, var: np.ndarray, centre: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(est - centre) / np.sqrt(var)
    return np.where(np.isfinite(t), t, np.inf)


def _quantiles(t: np.ndarray, m: int, level: float) -> dict[str, np.ndarray]:
    """Pointwise and max-|t| quantiles of statistics ``t`` (B, m + pairs): groups first."""

    def quantile(x: np.ndarray) -> np.ndarray:
        return np.quantile(x, level, axis=0, method="higher")

    out = {"groups": quantile(t[:, :m]), "groups_simultaneous": quantile(t[:, :m].max(axis=1))}
    if t.shape[1] > m:
        out["pairs"] = quantile(t[:, m:])
        out["pairs_simultaneous"] = quantile(t[:, m:].max(axis=1))
    return out


def _ratio_t(S: np.ndarray, W: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Studentised Hajek residual means of every group, then every pair (B, m + pairs)."""
    m = S.shape[1]
    w_tot = counts @ W  # (B, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        rbar = np.where(w_tot > 0, (counts @ S) / w_tot, np.nan)
        centre = S.sum(axis=0) / W.sum(axis=0)
        ss, sw, ww = counts @ S**2, counts @ (S * W), counts @ W**2
        var = (ss - 2.0 * rbar * sw + rbar**2 * ww) / w_tot**2
        a, b = np.triu_indices(m, k=1)
        # cross-products of the two groups of a pair on one prompt
        cross = counts @ (S[:, a] * S[:, b])
        cross -= rbar[:, b] * (counts @ (S[:, a] * W[:, b]))
        cross -= rbar[:, a] * (counts @ (W[:, a] * S[:, b]))
        cross += rbar[:, a] * rbar[:, b] * (counts @ (W[:, a] * W[:, b]))
        var_pairs = var[:, a] + var[:, b] - 2.0 * cross / (w_tot[:, a] * w_tot[:, b])
    t_groups = _studentised(rbar, var, centre)
    t_pairs = _studentised(rbar[:, a] - rbar[:, b], var_pairs, centre[a] - centre[b])
    return np.hstack([t_groups, t_pairs])


def _sum_t(psi: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Studentised resampled sums of independent influences, groups then pairs."""
    P, m = psi.shape
    a, b = np.triu_indices(m, k=1)
    cols = np.hstack([psi, psi[:, a] - psi[:, b]])
    total = counts @ cols
    var = (counts @ cols**2 - total**2 / P) * P / (P - 1.0)
    return _studentised(total, var, cols.sum(axis=0))


def _normal_like(dev: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Normal rows with the covariance of the rows of ``dev`` (centred deviations)."""
    cov = dev.T @ dev / max(dev.shape[0] - 1, 1)
    vals, vecs = np.linalg.eigh(0.5 * (cov + cov.T))
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    return rng.standard_normal(dev.shape) @ root.T


def tail_ratios(
    S: np.ndarray,
    W: np.ndarray,
    alpha: float,
    *,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """How much heavier than normal the studentised group means' and differences' tails
    are, as ratios of bootstrap quantiles (observed over normal reference; module
    docstring).

    Parameters
    ----------
    S, W : ndarray, shape (n_prompts, m)
        Per labeled prompt and group, the sum of ``w_i r_i`` and of ``w_i`` over the
        prompt's labeled items of the group (zeros where it has none).
    alpha : float
        One minus the level.

    Returns
    -------
    dict with ``groups`` (per group), ``groups_simultaneous`` (scalar), ``pairs`` (per pair
    ``(a, b)``, ``a < b``, row-major) and ``pairs_simultaneous`` (scalar).
    """
    n_p = S.shape[0]
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n_p, np.full(n_p, 1.0 / n_p), size=n_boot).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = np.where(W.sum(axis=0) > 0, S.sum(axis=0) / W.sum(axis=0), 0.0)
    dev = np.where(W > 0, S - centre * W, 0.0)
    ref = centre * W + np.where(
        W > 0, _normal_like(dev, np.random.default_rng(_REFERENCE_SEED)), 0.0
    )
    return _ratios(_ratio_t(S, W, counts), _ratio_t(ref, W, counts), S.shape[1], alpha)


def influence_tail_ratios(
    psi: np.ndarray, alpha: float, *, n_boot: int = N_BOOT, seed: int = 0
) -> dict[str, np.ndarray]:
    """:func:`tail_ratios` for the population target: every prompt of the pool resampled
    with its influence ``psi_p`` (shape (P, m); the judge-only part and the labels'
    correction), the statistics ``sum_p (c_p - 1) psi_p`` studentised by their resampled
    variance; the reference: normal influences with their covariance."""
    P = psi.shape[0]
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(P, np.full(P, 1.0 / P), size=n_boot).astype(float)
    dev = psi - psi.mean(axis=0)
    ref = _normal_like(dev, np.random.default_rng(_REFERENCE_SEED))
    return _ratios(_sum_t(psi, counts), _sum_t(ref, counts), psi.shape[1], alpha)


def _ratios(t_obs: np.ndarray, t_ref: np.ndarray, m: int, alpha: float) -> dict[str, np.ndarray]:
    obs, ref = _quantiles(t_obs, m, 1.0 - alpha), _quantiles(t_ref, m, 1.0 - alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        # never below the reference's own level: the t interval is the floor
        return {k: np.maximum(np.where(ref[k] > 0, obs[k] / ref[k], 1.0), 1.0) for k in obs}


def independent_tail_ratios(
    resid: np.ndarray,
    w: np.ndarray,
    g_lab: np.ndarray,
    m: int,
    alpha: float,
    *,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """:func:`tail_ratios` for groups labeled independently (item-level designs): the
    labeled items resampled within their group, the pairs' statistics
    ``(rbar*_a - rbar*_b) / sqrt(V*_a + V*_b)``; the reference: normal residuals with the
    group's weighted spread, on the same resamples."""
    rng = np.random.default_rng(seed)
    ref_rng = np.random.default_rng(_REFERENCE_SEED)
    stats_ = {k: (np.empty((n_boot, m)), np.empty((n_boot, m)), np.empty(m)) for k in "or"}
    for g in range(m):
        sel = g_lab == g
        r, wg = resid[sel], w[sel]
        n = r.size
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot).astype(float)
        centre = float(wg @ r / wg.sum())
        spread = float(np.sqrt(wg @ (r - centre) ** 2 / wg.sum()))
        reference = centre + spread * ref_rng.standard_normal(n)
        for key, data in (("o", r), ("r", reference)):
            S = wg * data
            w_tot = counts @ wg
            rbar = (counts @ S) / w_tot
            var = (counts @ (S * data) - rbar * (counts @ S)) / w_tot**2
            stats_[key][0][:, g], stats_[key][1][:, g] = rbar, np.maximum(var, 0.0)
            stats_[key][2][g] = float(S.sum() / wg.sum())
    a, b = np.triu_indices(m, k=1)
    t = {}
    for key, (rbar, var, centre_all) in stats_.items():
        t_groups = _studentised(rbar, var, centre_all)
        t_pairs = _studentised(
            rbar[:, a] - rbar[:, b], var[:, a] + var[:, b], centre_all[a] - centre_all[b]
        )
        t[key] = np.hstack([t_groups, t_pairs])
    return _ratios(t["o"], t["r"], m, alpha)


def critical_values(
    cov: np.ndarray, df: np.ndarray, ratio: dict[str, np.ndarray], alpha: float
) -> dict[str, np.ndarray]:
    """Student-t critical values of group means with covariance ``cov`` and degrees of
    freedom ``df`` (max-|t| over the joint correlation for the simultaneous ones), and of
    their pairwise differences (``df`` the smaller of the two), times the tail ratios."""
    m = df.size
    a, b = np.triu_indices(m, k=1)
    corr = correlation(cov)
    out = {
        "groups": simultaneous_critical_value(corr, alpha, "none", df) * ratio["groups"],
        "groups_simultaneous": simultaneous_critical_value(corr, alpha, "maxt", df)
        * ratio["groups_simultaneous"],
    }
    if a.size:
        contrast = np.zeros((a.size, m))
        contrast[np.arange(a.size), a], contrast[np.arange(a.size), b] = 1.0, -1.0
        pair_corr = correlation(contrast @ cov @ contrast.T)
        pair_df = np.minimum(df[a], df[b])
        out["pairs"] = (
            simultaneous_critical_value(pair_corr, alpha, "none", pair_df) * ratio["pairs"]
        )
        out["pairs_simultaneous"] = (
            simultaneous_critical_value(pair_corr, alpha, "maxt", pair_df)
            * ratio["pairs_simultaneous"]
        )
    return out


def pair_critical(crits: dict[str, np.ndarray]) -> dict[str, list[float]]:
    """The pairs' critical values as the group table's ``details["pair_critical"]`` (which
    :func:`~bacon_bayes.estimate.compare` uses), by simultaneity."""
    if "pairs" not in crits:
        return {}
    return {
        "none": [float(v) for v in crits["pairs"]],
        "maxt": [
            float(v) for v in np.broadcast_to(crits["pairs_simultaneous"], crits["pairs"].shape)
        ],
    }
