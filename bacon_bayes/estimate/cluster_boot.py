"""Critical values of the clustered group means: Student-t widened by a studentised
bootstrap over prompts where the tails are heavier than normal.

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
``c_p`` the resample counts. The quantiles of ``|t*|`` (per group) and of ``max |t*|``
(simultaneous) measure how heavy the statistics' tails are. The pairwise differences
take their groups' widening in proportion to their variances
(:func:`bacon_bayes.estimate.groups.compare`): with one of them the bootstrap of the
differences themselves made TriviaQA's 95% difference intervals cover 0.98.

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


def _ratio_t(S: np.ndarray, W: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Studentised resampled Hajek residual means of every group (B, m)."""
    w_tot = counts @ W
    with np.errstate(divide="ignore", invalid="ignore"):
        rbar = np.where(w_tot > 0, (counts @ S) / w_tot, np.nan)
        centre = S.sum(axis=0) / W.sum(axis=0)
        ss, sw, ww = counts @ S**2, counts @ (S * W), counts @ W**2
        var = (ss - 2.0 * rbar * sw + rbar**2 * ww) / w_tot**2
    return _studentised(rbar, var, centre)


def _sum_t(psi: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Studentised resampled sums of independent influences (B, m)."""
    P = psi.shape[0]
    total = counts @ psi
    var = (counts @ psi**2 - total**2 / P) * P / (P - 1.0)
    return _studentised(total, var, psi.sum(axis=0))


def _normal_like(dev: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Normal rows with the covariance of the rows of ``dev`` (centred deviations)."""
    cov = dev.T @ dev / max(dev.shape[0] - 1, 1)
    vals, vecs = np.linalg.eigh(0.5 * (cov + cov.T))
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    return rng.standard_normal(dev.shape) @ root.T


def _ratios(t_obs: np.ndarray, t_ref: np.ndarray, alpha: float) -> dict[str, np.ndarray]:
    """Observed over reference quantiles of ``|t*|`` (per group) and ``max |t*|``, never
    below one (the Student-t interval is the floor)."""
    level = 1.0 - alpha

    def quantiles(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = np.quantile(t, level, axis=0, method="higher")
        return q, np.quantile(t.max(axis=1), level, method="higher")

    (obs, obs_max), (ref, ref_max) = quantiles(t_obs), quantiles(t_ref)
    with np.errstate(divide="ignore", invalid="ignore"):
        point = np.where(ref > 0, obs / ref, 1.0)
        joint = obs_max / ref_max if ref_max > 0 else 1.0
    return {
        "groups": np.maximum(np.where(np.isfinite(point), point, 1.0), 1.0),
        "groups_simultaneous": np.full(point.size, max(float(np.nan_to_num(joint, nan=1.0)), 1.0)),
    }


def tail_ratios(
    S: np.ndarray, W: np.ndarray, alpha: float, *, n_boot: int = N_BOOT, seed: int = 0
) -> dict[str, np.ndarray]:
    """How much heavier than normal the studentised group means' tails are, as ratios of
    bootstrap quantiles (observed over a normal reference on the same resamples).

    Parameters
    ----------
    S, W : ndarray, shape (n_prompts, m)
        Per labeled prompt and group, the sum of ``w_i r_i`` and of ``w_i`` over the
        prompt's labeled items of the group (zeros where it has none).
    alpha : float
        One minus the level.

    Returns
    -------
    dict with ``groups`` and ``groups_simultaneous`` (per group).
    """
    n_p = S.shape[0]
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n_p, np.full(n_p, 1.0 / n_p), size=n_boot).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = np.where(W.sum(axis=0) > 0, S.sum(axis=0) / W.sum(axis=0), 0.0)
    dev = np.where(W > 0, S - centre * W, 0.0)
    noise = _normal_like(dev, np.random.default_rng(_REFERENCE_SEED))
    ref = centre * W + np.where(W > 0, noise, 0.0)
    return _ratios(_ratio_t(S, W, counts), _ratio_t(ref, W, counts), alpha)


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
    ref = _normal_like(psi - psi.mean(axis=0), np.random.default_rng(_REFERENCE_SEED))
    return _ratios(_sum_t(psi, counts), _sum_t(ref, counts), alpha)


def critical_values(
    cov: np.ndarray, df: np.ndarray, ratio: dict[str, np.ndarray], alpha: float
) -> dict[str, np.ndarray]:
    """Student-t critical values of group means with covariance ``cov`` and degrees of
    freedom ``df`` (max-|t| over the joint correlation for the simultaneous ones), times
    the tail ratios."""
    corr = correlation(cov)
    return {
        "groups": simultaneous_critical_value(corr, alpha, "none", df) * ratio["groups"],
        "groups_simultaneous": simultaneous_critical_value(corr, alpha, "maxt", df)
        * ratio["groups_simultaneous"],
    }
