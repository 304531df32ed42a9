"""Augmented estimating-equation (AEE) estimators as flat functions on arrays.

Notation: ``N`` items in the pool, ``S_i`` = 1 when item ``i`` carries a human
label ``y_i``, ``pi_i`` its inclusion probability, ``f_i`` the cross-fitted
surrogate (out-of-fold for labeled items, the fold-average model for the rest;
see :mod:`bacon_bayes.crossfit`).

Mean (power-tuned, Hajek form, the default)::

    theta = lambda * mean_i f_i + sum_S w_i (y_i - lambda f_i) / sum_S w_i,   w_i = 1 / pi_i

With equal ``pi_i = n / N`` this is exactly the finite-population regression
estimator ``(sum_S y_i + sum_U f_i + (N - n)/n * sum_S r_i) / N``. The
Horvitz-Thompson form replaces the normalised correction by
``sum_S w_i (y_i - lambda f_i) / N``.

Variance: design-based (the target is the pool itself, its labels fixed), the
linearised Poisson-sampling sandwich ``sum_S (1 - pi_i) / pi_i^2 r_i^2 / N^2``
with ``r_i`` the residual centred at its weighted mean for the Hajek form and a
degrees-of-freedom factor ``n / (n - 1)``. The factor ``1 - pi_i`` is the
finite-population correction; ``target="superpopulation"`` drops it and adds
the sampling variance of the pool itself (``s_y^2 / N``).

Power tuning: ``lambda`` minimises the estimated variance above in closed
form (a weighted regression slope of ``y`` on ``f``); ``lambda = 0`` is the
classical estimator and ``lambda = 1`` plain AEE, so tuning can only lower the
estimated variance. ``lambda`` is not clipped: a surrogate that runs opposite
to the label gets a negative weight instead of being thrown away.

Intervals use Student-t critical values with ``n - 1`` degrees of freedom; group
means (a few dozen labels per group) use a studentised bootstrap within groups
by default (:func:`bootstrap_t_critical_values`).

Every function accepts NaN in ``y`` for unlabeled items (``labeled`` then
defaults to ``~isnan(y)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import stats

from bacon_bayes.errors import ValidationError
from bacon_bayes.results import Estimate, EstimateTable

Target = Literal["pool", "superpopulation"]

#: Fewest labels per group for bootstrap critical values (below: Student-t).
MIN_BOOTSTRAP_LABELS = 10

__all__ = [
    "Estimate",
    "EstimateTable",
    "aee_cdf",
    "aee_group_means",
    "aee_mean",
    "aee_quantile",
    "bootstrap_t_critical_values",
    "classical_group_means",
    "classical_mean",
    "classical_quantile",
    "compare",
    "mean_core",
    "naive_group_means",
    "naive_mean",
    "naive_quantile",
    "rank_intervals",
    "simultaneous_critical_value",
]


# ---------------------------------------------------------------------------
# array core (vectorised over leading axes)
# ---------------------------------------------------------------------------


def mean_core(
    y_lab: np.ndarray,
    f_lab: np.ndarray,
    pi_lab: np.ndarray,
    f_sum: np.ndarray | float,
    n_items: int,
    *,
    mask: np.ndarray | None = None,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
    lam: np.ndarray | float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """AEE mean on the labeled items' arrays, vectorised over leading axes.

    Parameters
    ----------
    y_lab, f_lab, pi_lab : ndarray, shape (..., n)
        Labels, surrogates and inclusion probabilities of labeled items (or of all
        items, with ``mask`` marking the labeled ones).
    f_sum : ndarray or float, shape (...)
        Sum of the surrogate over all ``n_items`` items of the pool.
    n_items : int
        Pool size ``N``.
    mask : ndarray of bool, optional
        Which entries of the ``*_lab`` arrays are labeled (default: all).
    lam : float, optional
        A fixed surrogate weight (overrides ``power_tuning``).

    Returns
    -------
    theta, var, lam, n : ndarray, shape (...)
    """
    if mask is None:
        w = 1.0 / pi_lab
        ys, fs = y_lab, f_lab
        n = np.full(np.shape(y_lab)[:-1], np.shape(y_lab)[-1], dtype=float)
    else:
        w = np.where(mask, 1.0 / pi_lab, 0.0)
        ys = np.where(mask, y_lab, 0.0)
        fs = np.where(mask, f_lab, 0.0)
        n = mask.sum(axis=-1).astype(float)
    c = w * w * (1.0 - pi_lab) if target == "pool" else w * w
    if mask is not None:
        c = np.where(mask, c, 0.0)
    if hajek:
        wsum = w.sum(axis=-1)
        ybar = (w * ys).sum(axis=-1) / wsum
        fbar = (w * fs).sum(axis=-1) / wsum
        yc = ys - ybar[..., None]
        fc = fs - fbar[..., None]
    else:
        yc, fc = ys, fs
    if lam is not None:
        lam = np.broadcast_to(np.asarray(lam, dtype=float), np.shape(n))
    elif power_tuning:
        den = (c * fc * fc).sum(axis=-1)
        num = (c * yc * fc).sum(axis=-1)
        safe = den > 1e-300 * np.maximum(1.0, (c * yc * yc).sum(axis=-1))
        lam = np.where(safe, num / np.where(safe, den, 1.0), 1.0)
    else:
        lam = np.ones(np.shape(n))
    resid = yc - lam[..., None] * fc
    if mask is not None:
        resid = np.where(mask, resid, 0.0)
    var = (c * resid * resid).sum(axis=-1) / float(n_items) ** 2
    if hajek:
        theta = lam * np.asarray(f_sum) / n_items + ybar - lam * fbar
        var = var * n / np.maximum(n - 1.0, 1.0)
    else:
        theta = (lam * np.asarray(f_sum) + (w * (ys - lam[..., None] * fs)).sum(axis=-1)) / n_items
    if target == "superpopulation":
        wsum = w.sum(axis=-1)
        ym = (w * ys).sum(axis=-1) / wsum
        dev = ys - ym[..., None]
        if mask is not None:
            dev = np.where(mask, dev, 0.0)
        s2y = (w * dev * dev).sum(axis=-1) / wsum
        var = var + s2y / n_items
    return theta, var, lam, n


def _t_crit(alpha: float, n: np.ndarray | float) -> np.ndarray:
    df = np.maximum(np.asarray(n, dtype=float) - 1.0, 1.0)
    return stats.t.ppf(1.0 - alpha / 2.0, df)


# ---------------------------------------------------------------------------
# input checks shared by the flat functions
# ---------------------------------------------------------------------------


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValidationError(f"alpha={alpha!r} must lie strictly between 0 and 1 (e.g. 0.05).")


def _prepare(
    y: np.ndarray,
    f: np.ndarray | None,
    labeled: np.ndarray | None,
    pi: np.ndarray | float | None,
    hajek: bool = False,
    domains: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Validate 1-D inputs; return (index of labeled items, y, pi over labeled, N).

    With ``hajek``, the labeled items' probabilities are conditioned on the realised
    sample size of each domain (``domains``: a code per item; default one domain).
    """
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        raise ValidationError(f"y must be 1-D (one entry per item); got shape {y.shape}.")
    n_items = y.shape[0]
    if f is not None and np.shape(f)[0] != n_items:
        raise ValidationError(
            f"predictions have {np.shape(f)[0]} entries but y has {n_items}; "
            "pass one prediction per item of the pool."
        )
    if labeled is None:
        idx = np.flatnonzero(~np.isnan(y))
    else:
        labeled = np.asarray(labeled, dtype=bool)
        if labeled.shape != y.shape:
            raise ValidationError("labeled must be a boolean mask with one entry per item.")
        idx = np.flatnonzero(labeled)
    y_lab = y[idx]
    bad = ~np.isfinite(y_lab)
    if bad.any():
        raise ValidationError(
            f"label of item {int(idx[np.argmax(bad)])} is marked labeled but is not finite; "
            "set it to a number or mark the item unlabeled."
        )
    if idx.size < 2:
        raise ValidationError(
            f"{idx.size} labeled item(s); at least 2 are needed for a variance. Label more items."
        )
    if pi is None:
        pi_all = None
        pi_lab = np.full(idx.size, idx.size / n_items)
    elif np.ndim(pi) == 0:
        pi_all = np.full(n_items, float(pi))
        pi_lab = pi_all[idx]
    else:
        pi_all = np.asarray(pi, dtype=float)
        if pi_all.shape != y.shape:
            raise ValidationError("pi must be a scalar or hold one inclusion probability per item.")
        pi_lab = pi_all[idx]
    badp = ~((pi_lab > 0) & (pi_lab <= 1))
    if badp.any():
        k = int(np.argmax(badp))
        raise ValidationError(
            f"inclusion probability of labeled item {int(idx[k])} is {float(pi_lab[k])!r}; "
            "it must lie in (0, 1]. Record the probability the design used for that item."
        )
    if hajek:
        pi_lab = _conditional_pi(pi_all, pi_lab, idx, n_items, domains)
    return idx, y_lab, pi_lab, n_items


def _conditional_pi(
    pi_all: np.ndarray | None,
    pi_lab: np.ndarray,
    idx: np.ndarray,
    n_items: int,
    domains: np.ndarray | None,
) -> np.ndarray:
    """Inclusion probabilities conditioned on the realised sample size of each domain.

    The Hajek estimator of a domain mean is, given the number ``n_d`` of labels
    that fell in the domain, a ratio estimator whose variance follows from the
    design rescaled so that its probabilities sum to ``n_d`` over the domain
    (``n_d / N_d`` for equal probabilities). Without this a group that got fewer
    labels than expected would be given too small a variance. Probabilities
    unknown for some unlabeled items (NaN) are left as recorded.
    """
    codes = np.zeros(n_items, dtype=np.intp) if domains is None else domains
    n_dom = int(codes.max()) + 1
    sizes: np.ndarray = np.bincount(codes, minlength=n_dom).astype(float)
    n_lab = np.bincount(codes[idx], minlength=n_dom).astype(float)
    expected: np.ndarray
    if pi_all is None:
        expected = sizes * idx.size / n_items
    elif np.isfinite(pi_all).all():
        expected = np.bincount(codes, weights=pi_all, minlength=n_dom)
    else:
        return pi_lab
    scale = n_lab / np.maximum(expected, 1e-300)
    return np.minimum(pi_lab * scale[codes[idx]], 1.0)


def _estimate(
    estimand: str,
    method: str,
    theta: float,
    var: float,
    n: int,
    n_items: int,
    alpha: float,
    n_labeled: int | None = None,
    **details: object,
) -> Estimate:
    se = float(np.sqrt(max(var, 0.0)))
    crit = float(_t_crit(alpha, n))
    return Estimate(
        estimand=estimand,
        method=method,
        estimate=float(theta),
        se=se,
        ci_low=float(theta - crit * se),
        ci_high=float(theta + crit * se),
        n_labeled=int(n) if n_labeled is None else n_labeled,
        n_items=int(n_items),
        alpha=alpha,
        details={"df": int(n) - 1, **details},
    )


# ---------------------------------------------------------------------------
# mean
# ---------------------------------------------------------------------------


def aee_mean(
    y: np.ndarray,
    f: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    alpha: float = 0.05,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
) -> Estimate:
    """AEE (prediction-powered) estimate of the mean label of the pool.

    Parameters
    ----------
    y : array, shape (N,)
        Human labels; NaN (or anything, when ``labeled`` is given) for unlabeled items.
    f : array, shape (N,)
        Cross-fitted surrogate for every item.
    labeled : bool array, optional
        Which items are labeled; default ``~isnan(y)``.
    pi : float or array, optional
        Inclusion probabilities; default ``n / N`` (uniform sampling).
    alpha : float
        One minus the confidence level.
    power_tuning : bool
        Weight the surrogate by the variance-minimising lambda (PPI++).
    hajek : bool
        Self-normalised (Hajek) correction; ``False`` gives Horvitz-Thompson.
    target : {"pool", "superpopulation"}
        ``"pool"`` (finite-population correction) or an infinite superpopulation.
    """
    _check_alpha(alpha)
    idx, y_lab, pi_lab, n_items = _prepare(y, f, labeled, pi, hajek)
    f = np.asarray(f, dtype=float)
    if not np.isfinite(f_sum := float(f.sum())):
        raise ValidationError("predictions contain NaN or infinite values; every item needs one.")
    theta, var, lam, n = mean_core(
        y_lab,
        f[idx],
        pi_lab,
        f_sum,
        n_items,
        power_tuning=power_tuning,
        hajek=hajek,
        target=target,
    )
    return _estimate(
        "mean",
        "aee",
        float(theta),
        float(var),
        int(n),
        n_items,
        alpha,
        power_lambda=float(lam),
        target=target,
    )


def classical_mean(
    y: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    alpha: float = 0.05,
    hajek: bool = True,
    target: Target = "pool",
) -> Estimate:
    """Mean from the human labels alone (weighted by ``1/pi``, with the same variance rules)."""
    zeros = np.zeros(np.shape(y)[0])
    e = aee_mean(y, zeros, labeled, pi, alpha=alpha, power_tuning=False, hajek=hajek, target=target)
    return replace(e, method="classical", details={"df": e.details["df"], "target": target})


def naive_mean(judge_avg: np.ndarray, *, alpha: float = 0.05) -> Estimate:
    """Mean of the raw judge average over all items, as if the judges were humans.

    Its interval only reflects item-to-item spread: it says nothing about judge bias.
    """
    _check_alpha(alpha)
    a = np.asarray(judge_avg, dtype=float)
    n = a.size
    se = float(a.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return _estimate("mean", "naive", float(a.mean()), se * se, n, n, alpha, n_labeled=0)


# ---------------------------------------------------------------------------
# CDF and quantiles
# ---------------------------------------------------------------------------


def aee_cdf(
    y: np.ndarray,
    phi: np.ndarray,
    grid: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
) -> tuple[np.ndarray, np.ndarray, int]:
    """AEE estimate of the pool CDF ``F(t) = mean_i 1{y_i <= t}`` on a grid.

    ``phi[i, k] = P(Y_i <= grid[k] | x_i)`` from the cross-fitted predictive
    distribution (zeros give the classical estimate). Returns ``(F, se, n)``.
    """
    idx, y_lab, pi_lab, n_items = _prepare(y, phi, labeled, pi, hajek)
    grid = np.asarray(grid, dtype=float)
    phi = np.asarray(phi, dtype=float)
    ind = (y_lab[None, :] <= grid[:, None]).astype(float)
    theta, var, _, n = mean_core(
        ind,
        phi[idx].T,
        np.broadcast_to(pi_lab, ind.shape),
        phi.sum(axis=0),
        n_items,
        power_tuning=power_tuning,
        hajek=hajek,
        target=target,
    )
    return theta, np.sqrt(np.maximum(var, 0.0)), int(n[0])


def _invert(grid: np.ndarray, cdf: np.ndarray, p: float, discrete: bool) -> float:
    """Generalised inverse of a monotone CDF on a grid."""
    p = float(np.clip(p, 0.0, 1.0))
    k = int(np.searchsorted(cdf, p, side="left"))
    if k >= grid.size:
        return float(grid[-1])
    if discrete or k == 0 or cdf[k] == cdf[k - 1]:
        return float(grid[k])
    frac = (p - cdf[k - 1]) / (cdf[k] - cdf[k - 1])
    return float(grid[k - 1] + frac * (grid[k] - grid[k - 1]))


def _quantile_from_cdf(
    grid: np.ndarray,
    cdf: np.ndarray,
    se: np.ndarray,
    n: int,
    n_items: int,
    q: float,
    alpha: float,
    discrete: bool,
    method: str,
    **details: object,
) -> Estimate:
    """Woodruff interval: invert the CDF's own confidence band at level ``q``."""
    mono = np.maximum.accumulate(np.clip(cdf, 0.0, 1.0))
    theta = _invert(grid, mono, q, discrete)
    k = int(np.clip(np.searchsorted(grid, theta), 0, grid.size - 1))
    se_f = float(se[k])
    crit = float(_t_crit(alpha, n))
    lo = _invert(grid, mono, q - crit * se_f, discrete)
    hi = _invert(grid, mono, q + crit * se_f, discrete)
    zcrit = crit if crit > 0 else 1.0
    return Estimate(
        estimand=f"quantile({q:g})",
        method=method,
        estimate=theta,
        se=(hi - lo) / (2.0 * zcrit),
        ci_low=lo,
        ci_high=hi,
        n_labeled=n,
        n_items=n_items,
        alpha=alpha,
        details={"df": n - 1, "cdf_se": se_f, "interval": "woodruff", **details},
    )


def aee_quantile(
    y: np.ndarray,
    phi: np.ndarray,
    grid: np.ndarray,
    q: float,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    alpha: float = 0.05,
    discrete: bool = False,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
) -> Estimate:
    """AEE quantile by the augmented estimating equation ``F(theta) = q``.

    Parameters
    ----------
    phi : array, shape (N, T)
        ``P(Y_i <= grid[k] | x_i)`` from the cross-fitted predictive distribution.
    grid : array, shape (T,)
        Increasing candidate values (include every level for discrete outcomes).
    q : float
        Quantile level in (0, 1).
    discrete : bool
        Step inverse (ordinal/categorical labels) instead of linear interpolation.

    Notes
    -----
    The interval is Woodruff's: the ``1 - alpha`` band of ``F`` at the estimate,
    mapped back through the estimated CDF. Its implied standard error is the
    sandwich ``se(F) / density``, without a separate density estimate.
    """
    _check_alpha(alpha)
    if not 0.0 < q < 1.0:
        raise ValidationError(f"quantile level q={q!r} must lie strictly between 0 and 1.")
    grid = np.asarray(grid, dtype=float)
    if grid.ndim != 1 or np.any(np.diff(grid) <= 0):
        raise ValidationError("grid must be a strictly increasing 1-D array of candidate values.")
    cdf, se, n = aee_cdf(
        y, phi, grid, labeled, pi, power_tuning=power_tuning, hajek=hajek, target=target
    )
    return _quantile_from_cdf(
        grid, cdf, se, n, np.shape(y)[0], q, alpha, discrete, "aee", target=target
    )


def classical_quantile(
    y: np.ndarray,
    grid: np.ndarray,
    q: float,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    alpha: float = 0.05,
    discrete: bool = False,
    hajek: bool = True,
    target: Target = "pool",
) -> Estimate:
    """Quantile from the human labels alone (Woodruff interval)."""
    phi = np.zeros((np.shape(y)[0], np.size(grid)))
    e = aee_quantile(
        y,
        phi,
        grid,
        q,
        labeled,
        pi,
        alpha=alpha,
        discrete=discrete,
        power_tuning=False,
        hajek=hajek,
        target=target,
    )
    return replace(e, method="classical")


def naive_quantile(judge_avg: np.ndarray, q: float, *, alpha: float = 0.05) -> Estimate:
    """Quantile of the raw judge average over all items (no human labels)."""
    a = np.sort(np.asarray(judge_avg, dtype=float))
    n = a.size
    theta = float(np.quantile(a, q))
    # distribution-free order-statistic interval for the quantile of the judge average
    z = stats.norm.ppf(1 - alpha / 2)
    lo_k = int(np.clip(np.floor(n * q - z * np.sqrt(n * q * (1 - q))), 0, n - 1))
    hi_k = int(np.clip(np.ceil(n * q + z * np.sqrt(n * q * (1 - q))), 0, n - 1))
    lo, hi = float(a[lo_k]), float(a[hi_k])
    return Estimate(
        f"quantile({q:g})", "naive", theta, (hi - lo) / (2 * z), lo, hi, 0, n, alpha, {}
    )


# ---------------------------------------------------------------------------
# groups: joint covariance, simultaneous intervals, differences, ranks
# ---------------------------------------------------------------------------


def simultaneous_critical_value(
    corr: np.ndarray,
    alpha: float,
    method: str = "maxt",
    df: np.ndarray | None = None,
    draws: int = 100_000,
    seed: int = 20261122,
) -> np.ndarray:
    """Critical values ``c_k`` so that all ``|T_k| <= c_k`` hold jointly with ``1 - alpha``.

    ``method="maxt"`` finds ``c`` with ``P(max_k |Z_k| <= c) = 1 - alpha`` for
    ``Z ~ N(0, corr)`` (seeded simulation, so deterministic); ``"bonferroni"``
    uses level ``alpha / m``; ``"none"`` is pointwise. With degrees of freedom
    ``df`` (one per row), each row's critical value is the Student-t quantile at
    the same pointwise level, which keeps small groups honest.
    """
    m = corr.shape[0]
    if method not in ("maxt", "bonferroni", "none"):
        raise ValidationError(
            f"simultaneous={method!r} is not known; use 'maxt', 'bonferroni' or 'none'."
        )
    if method == "none" or m == 1:
        level = alpha
    elif method == "bonferroni":
        level = alpha / m
    elif np.allclose(corr, np.eye(m), atol=1e-10):
        # independent components (disjoint groups): the max-|Z| level is exact (Sidak)
        level = 1.0 - (1.0 - alpha) ** (1.0 / m)
    else:
        # eigen-decomposition tolerates singular correlations (e.g. of differences)
        vals, vecs = np.linalg.eigh(corr)
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))
        z = np.abs(_base_normals(draws, m, seed) @ root.T).max(axis=1)
        c = float(np.quantile(z, 1 - alpha))
        level = float(2.0 * stats.norm.sf(c))
    if df is None:
        return np.full(m, stats.norm.isf(level / 2.0))
    return stats.t.isf(level / 2.0, np.maximum(np.asarray(df, dtype=float), 1.0))


@lru_cache(maxsize=16)
def _base_normals(draws: int, m: int, seed: int) -> np.ndarray:
    """Seeded standard normal draws, generated once per shape and reused (read-only)."""
    z = np.random.default_rng(seed).standard_normal((draws, m))
    z.setflags(write=False)
    return z


def _corr(cov: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.clip(np.diag(cov), 1e-300, None))
    return cov / np.outer(sd, sd)


def _table(
    estimand: str,
    method: str,
    names: Sequence[str] | np.ndarray,
    est: np.ndarray,
    cov: np.ndarray,
    n_lab: np.ndarray,
    n_items: np.ndarray,
    alpha: float,
    simultaneous: str,
    crit: np.ndarray | None = None,
    **details: object,
) -> EstimateTable:
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    n_lab = np.asarray(n_lab)
    if crit is None:
        df = None if np.all(n_lab == 0) else np.maximum(n_lab - 1, 1)
        crit = simultaneous_critical_value(_corr(cov), alpha, simultaneous, df)
    return EstimateTable(
        estimand=estimand,
        method=method,
        names=tuple(str(n) for n in names),
        estimate=est,
        se=se,
        ci_low=est - crit * se,
        ci_high=est + crit * se,
        cov=cov,
        n_labeled=np.asarray(n_lab, dtype=int),
        n_items=np.asarray(n_items, dtype=int),
        alpha=alpha,
        simultaneous=simultaneous,
        critical_value=crit,
        details=dict(details),
    )


def bootstrap_t_critical_values(
    resid: np.ndarray,
    weight: np.ndarray,
    codes: np.ndarray,
    alpha: float,
    method: str = "maxt",
    *,
    hajek: bool = True,
    n_boot: int = 2000,
    seed: int = 0,
) -> np.ndarray:
    """Critical values for disjoint domain means from a studentised bootstrap.

    Each domain's labeled items (residuals ``resid = y - lambda f`` with design
    weights ``weight = 1 / pi``) are resampled with replacement within the domain,
    ``n_boot`` times, and the weighted mean of the resample is studentised by its
    own standard error: ``T*_g = (mean* - mean) / se*``. ``method="maxt"``
    returns the ``1 - alpha`` quantile of ``max_g |T*_g|`` for every domain
    (joint coverage of all domains, as Westfall-Young / Romano-Wolf max-T);
    ``"bonferroni"`` and ``"none"`` the per-domain quantiles of ``|T*_g|`` at
    ``1 - alpha / m`` and ``1 - alpha``.

    The t approximation behind the analytic intervals is short for domains with
    a few dozen skewed or unequally weighted labels (measured: simultaneous
    coverage 0.85 at nominal 0.90); the bootstrap learns the studentised
    statistic's real tails from the data. Only the shape comes from the
    bootstrap: the interval is ``estimate +- c_g * se_g`` with the design-based
    ``se_g`` (finite-population correction included), because a with-replacement
    resample knows nothing of the correction. Seeded, hence deterministic.
    """
    m = int(codes.max()) + 1
    order = np.argsort(codes, kind="stable")
    g = codes[order]
    size = np.bincount(g, minlength=m)
    if np.any(size < 2):
        raise ValidationError(
            f"domain code {int(np.argmax(size < 2))} has {int(size.min())} labeled item(s); "
            "every domain 0..m-1 needs at least 2 for a bootstrap."
        )
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    w = weight[order]
    if hajek:
        centre = np.bincount(g, weights=w * resid[order], minlength=m) / np.bincount(
            g, weights=w, minlength=m
        )
        # centred residuals: the resample's mean is then its deviation from the estimate
        u = resid[order] - centre[g]
    else:
        wu = w * resid[order]
        u = wu - (np.bincount(g, weights=wu, minlength=m) / size)[g]
    n = size.astype(float)
    rng = np.random.default_rng(seed)
    abs_t = np.empty((n_boot, m))
    step = max(1, int(4_000_000 // max(g.size, 1)))
    for lo in range(0, n_boot, step):
        hi = min(lo + step, n_boot)
        # resample within each group, all groups at once (group sizes kept)
        pick = start[g] + (rng.random((hi - lo, g.size)) * size[g]).astype(np.intp)
        us = u[pick]
        if hajek:
            ws = w[pick]
            s_w = np.add.reduceat(ws, start, axis=1)
            wu_s = ws * us
            mean = np.add.reduceat(wu_s, start, axis=1) / s_w
            # sum w^2 (u - mean)^2 from sums of w^2 u^2, w^2 u and w^2
            ss = (
                np.add.reduceat(wu_s * wu_s, start, axis=1)
                - 2.0 * mean * np.add.reduceat(wu_s * ws, start, axis=1)
                + mean * mean * np.add.reduceat(ws * ws, start, axis=1)
            )
            var = np.maximum(ss, 0.0) / (s_w * s_w)
        else:
            mean = np.add.reduceat(us, start, axis=1) / n
            var = np.maximum(np.add.reduceat(us * us, start, axis=1) / n - mean * mean, 0.0) / n
        se = np.sqrt(var * n / np.maximum(n - 1.0, 1.0))
        diff = np.abs(mean)
        # a resample of one repeated item has se 0: |T| is infinite unless it hits
        # the estimate exactly
        with np.errstate(divide="ignore", invalid="ignore"):
            abs_t[lo:hi] = np.where(se > 0, diff / se, np.where(diff > 1e-12, np.inf, 0.0))
    # "higher": no interpolation towards an infinite draw
    if method == "maxt" and m > 1:
        return np.full(m, np.quantile(abs_t.max(axis=1), 1.0 - alpha, method="higher"))
    level = 1.0 - (alpha / m if method == "bonferroni" else alpha)
    return np.quantile(abs_t, level, axis=0, method="higher")


def _group_codes(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    names, codes = np.unique(np.asarray(groups).astype(str), return_inverse=True)
    return names, codes


def aee_group_means(
    y: np.ndarray,
    f: np.ndarray,
    groups: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    alpha: float = 0.05,
    simultaneous: str = "maxt",
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
    interval: Literal["bootstrap", "t"] = "bootstrap",
    n_boot: int = 2000,
    seed: int = 0,
) -> EstimateTable:
    """Per-group AEE means with one joint covariance and simultaneous intervals.

    Each group's estimate is the AEE mean over its own items; the power-tuning
    weight is shared, tuned once on all labels.
    The joint covariance comes from the per-item linearisation: for labeled item
    ``i`` and group ``g`` the influence is ``1{i in g} w_i r_ig / N_g``, and
    ``Cov = sum_i (1 - pi_i) d_i d_i'`` (zero between disjoint groups under
    Poisson sampling, kept general so that overlapping estimands stay right).

    ``interval="bootstrap"`` (default) takes the critical values from a seeded
    studentised bootstrap within groups (:func:`bootstrap_t_critical_values`);
    it needs at least ``MIN_BOOTSTRAP_LABELS`` labels in every group and falls
    back to ``"t"`` (Student-t with ``n_g - 1`` df, max-|t| over the joint normal)
    otherwise; ``details["interval"]`` records which one was used.
    """
    _check_alpha(alpha)
    if interval not in ("bootstrap", "t"):
        raise ValidationError(f"interval={interval!r} is not known; use 'bootstrap' or 't'.")
    names, codes = _group_codes(groups)
    idx, y_lab, pi_lab, n_items = _prepare(y, f, labeled, pi, hajek, codes)
    f = np.asarray(f, dtype=float)
    g_lab = codes[idx]
    m = names.size
    est = np.empty(m)
    n_lab = np.zeros(m, dtype=int)
    n_g = np.bincount(codes, minlength=m)
    infl = np.zeros((idx.size, m))
    # one surrogate weight for all groups, tuned on all labels: per-group tuning on a
    # handful of labels would overfit and understate the variance
    _, _, lam_all, _ = mean_core(
        y_lab,
        f[idx],
        pi_lab,
        float(f.sum()),
        n_items,
        power_tuning=power_tuning,
        hajek=hajek,
        target=target,
    )
    for g in range(m):
        sel = g_lab == g
        n_lab[g] = int(sel.sum())
        if n_lab[g] < 2:
            raise ValidationError(
                f"group {str(names[g])!r} has {n_lab[g]} labeled item(s); each group needs at "
                "least 2 for a variance. Label more items in that group or merge groups."
            )
        theta, _, lam, n = mean_core(
            y_lab[sel],
            f[idx][sel],
            pi_lab[sel],
            float(f[codes == g].sum()),
            int(n_g[g]),
            hajek=hajek,
            target=target,
            lam=lam_all,
        )
        est[g] = theta
        # linearised influence of each labeled item on this group's estimate
        w = 1.0 / pi_lab[sel]
        ys, fs = y_lab[sel], f[idx][sel]
        if hajek:
            ys = ys - np.sum(w * ys) / np.sum(w)
            fs = fs - np.sum(w * fs) / np.sum(w)
        fac = np.sqrt(n / max(n - 1.0, 1.0)) if hajek else 1.0
        infl[sel, g] = fac * w * (ys - lam * fs) / n_g[g]
    scale = (1.0 - pi_lab) if target == "pool" else np.ones_like(pi_lab)
    cov = (infl * scale[:, None]).T @ infl
    if target == "superpopulation":
        for g in range(m):
            sel = g_lab == g
            w = 1.0 / pi_lab[sel]
            dev = y_lab[sel] - np.sum(w * y_lab[sel]) / np.sum(w)
            cov[g, g] += np.sum(w * dev * dev) / np.sum(w) / n_g[g]
    crit = None
    used = "t"
    if interval == "bootstrap" and n_lab.min() >= MIN_BOOTSTRAP_LABELS:
        used = "bootstrap"
        resid = y_lab - lam_all * f[idx]
        crit = bootstrap_t_critical_values(
            resid, 1.0 / pi_lab, g_lab, alpha, simultaneous, hajek=hajek, n_boot=n_boot, seed=seed
        )
    return _table(
        "mean",
        "aee",
        names,
        est,
        cov,
        n_lab,
        n_g,
        alpha,
        simultaneous,
        crit,
        power_lambda=float(lam_all),
        target=target,
        interval=used,
    )


def classical_group_means(
    y: np.ndarray,
    groups: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    alpha: float = 0.05,
    simultaneous: str = "maxt",
    hajek: bool = True,
    target: Target = "pool",
    interval: Literal["bootstrap", "t"] = "bootstrap",
    n_boot: int = 2000,
    seed: int = 0,
) -> EstimateTable:
    """Per-group means from the human labels alone, with the same joint machinery."""
    table = aee_group_means(
        y,
        np.zeros(np.shape(y)[0]),
        groups,
        labeled,
        pi,
        alpha=alpha,
        simultaneous=simultaneous,
        power_tuning=False,
        hajek=hajek,
        target=target,
        interval=interval,
        n_boot=n_boot,
        seed=seed,
    )
    return replace(table, method="classical")


def naive_group_means(
    judge_avg: np.ndarray, groups: np.ndarray, *, alpha: float = 0.05, simultaneous: str = "maxt"
) -> EstimateTable:
    """Per-group means of the raw judge average (no human labels)."""
    a = np.asarray(judge_avg, dtype=float)
    names, codes = _group_codes(groups)
    m = names.size
    n_g = np.bincount(codes, minlength=m)
    est = np.bincount(codes, weights=a, minlength=m) / n_g
    dev = a - est[codes]
    var = np.bincount(codes, weights=dev * dev, minlength=m) / np.maximum(n_g - 1, 1) / n_g
    table = _table("mean", "naive", names, est, np.diag(var), n_g, n_g, alpha, simultaneous)
    return replace(table, n_labeled=np.zeros(m, dtype=int))


def compare(table: EstimateTable, *, simultaneous: str | None = None) -> EstimateTable:
    """All pairwise differences ``a - b`` (for ``a`` before ``b``) with joint intervals."""
    m = len(table)
    pairs = [(a, b) for a in range(m) for b in range(a + 1, m)]
    if not pairs:
        raise ValidationError("comparisons need at least two groups.")
    contrast = np.zeros((len(pairs), m))
    for k, (a, b) in enumerate(pairs):
        contrast[k, a], contrast[k, b] = 1.0, -1.0
    names = [f"{table.names[a]} - {table.names[b]}" for a, b in pairs]
    n_lab = np.array([min(table.n_labeled[a], table.n_labeled[b]) for a, b in pairs])
    n_it = np.array([table.n_items[a] + table.n_items[b] for a, b in pairs])
    return _table(
        "difference",
        table.method,
        names,
        contrast @ table.estimate,
        contrast @ table.cov @ contrast.T,
        n_lab,
        n_it,
        table.alpha,
        simultaneous or table.simultaneous,
        pairs=[[table.names[a], table.names[b]] for a, b in pairs],
    )


def rank_intervals(table: EstimateTable, *, descending: bool = True) -> dict[str, np.ndarray]:
    """Ranks of the groups with simultaneous rank intervals.

    Group ``g``'s rank interval runs from ``1 + #{h: h surely above g}`` to
    ``m - #{h: h surely below g}``, where "surely" uses the simultaneous
    intervals of all pairwise differences; the intervals for all groups then
    hold jointly with at least the difference intervals' confidence.
    """
    diffs = compare(table)
    m = len(table)
    above = np.zeros((m, m), dtype=bool)  # above[a, b]: a surely larger than b
    for k, (a, b) in enumerate(diffs.details["pairs"]):
        ia, ib = table.names.index(a), table.names.index(b)
        if diffs.ci_low[k] > 0:
            above[ia, ib] = True
        elif diffs.ci_high[k] < 0:
            above[ib, ia] = True
    if not descending:
        above = above.T
    order = np.argsort(-table.estimate if descending else table.estimate, kind="stable")
    rank = np.empty(m, dtype=int)
    rank[order] = np.arange(1, m + 1)
    lower = 1 + above.sum(axis=0)  # groups surely better than g
    upper = m - above.sum(axis=1)  # groups surely worse than g
    return {"rank": rank, "rank_low": lower, "rank_high": upper}
