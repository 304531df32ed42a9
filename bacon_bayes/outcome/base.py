"""Shared pieces of the frequentist outcome models."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

RIDGE_ALPHAS = tuple(np.logspace(-3, 4, 15))


def empirical_cdf(center: np.ndarray, resid_sorted: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``P(center_i + e <= t_k)`` with ``e`` drawn from sorted residuals: shape (n, T)."""
    shift = np.asarray(t, dtype=float)[None, :] - np.asarray(center, dtype=float)[:, None]
    counts = np.searchsorted(resid_sorted, shift.ravel(), side="right")
    return counts.reshape(shift.shape) / resid_sorted.size


def _pair_counts_py(c, e, t, out):  # pragma: no cover (compiled)
    """``out[k]``: the pairs ``(i, j)`` with ``e[j] <= t[k] - c[i]`` (``c``, ``e`` sorted
    ascending): the centres that qualify are a prefix of ``c`` (``t - c`` does not grow
    with ``c``, rounding included), no longer for a larger residual, so one merge per grid
    point."""
    n = c.size
    for k in range(t.size):
        tk = t[k]
        p = n
        total = 0
        for j in range(e.size):
            ej = e[j]
            while p > 0 and not (ej <= tk - c[p - 1]):
                p -= 1
            total += p
        out[k] = total


def empirical_cdf_sum(center: np.ndarray, resid_sorted: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``empirical_cdf(center, resid_sorted, t).sum(axis=0)`` without the (n, T) array: the
    pairs ``(i, j)`` with ``resid_j <= t_k - center_i`` counted by one merge of the sorted
    centres and residuals per grid point (compiled; T x (n + m) steps instead of n x T
    searches). The count is exact: the same comparison as the per-item search, so the
    result equals the per-item sum whatever the rounding."""
    from bacon_bayes.compiled import compiled_nogil

    c = np.sort(np.asarray(center, dtype=float))
    e = np.ascontiguousarray(resid_sorted, dtype=float)
    t = np.ascontiguousarray(t, dtype=float)
    counts = np.zeros(t.size, dtype=np.int64)
    if c.size and e.size:
        compiled_nogil(_pair_counts_py)(c, e, t, counts)
    return counts / max(e.size, 1)


def loo_alpha(Z: np.ndarray, y: np.ndarray, alphas: tuple[float, ...]) -> float:
    """The penalty of ``alphas`` with the least mean squared leave-one-out error of a
    ridge with intercept on ``Z`` (``RidgeCV``'s choice, the first on ties), from one
    eigendecomposition of the centred Gram matrix: for penalty ``a`` the fitted values
    are ``U diag(1 / (lam + a)) U'y`` and the leverages ``1/n + U^2 (1 / (lam + a))``
    with ``U = Zc V``, ``Zc' Zc = V diag(lam) V'``."""
    n = Z.shape[0]
    Zc = Z - Z.mean(axis=0)
    yc = y - y.mean()
    lam, V = np.linalg.eigh(Zc.T @ Zc)
    U = Zc @ V
    D = 1.0 / (lam[:, None] + np.asarray(alphas)[None, :])  # features x penalties
    fitted = U @ (D * (U.T @ yc)[:, None])
    loo = (yc[:, None] - fitted) / (1.0 - (1.0 / n + (U * U) @ D))
    return float(alphas[int(np.argmin(np.mean(loo * loo, axis=0)))])


def ridge_df(Z: np.ndarray, alphas: tuple[float, ...]) -> np.ndarray:
    """The effective degrees of freedom of a ridge with intercept on ``Z`` at each
    penalty of ``alphas`` (the intercept not counted): ``sum_j lam_j / (lam_j + a)``
    over the eigenvalues ``lam_j`` of the centred Gram matrix."""
    Zc = Z - Z.mean(axis=0)
    lam = np.clip(np.linalg.eigvalsh(Zc.T @ Zc), 0.0, None)
    return np.sum(lam[:, None] / (lam[:, None] + np.asarray(alphas)[None, :]), axis=0)


def _fitted_scaler(X: np.ndarray) -> StandardScaler:
    """``StandardScaler().fit(X)`` for a finite 2-D float array, its fitted attributes
    computed here (sklearn's validation costs more than the arithmetic on the small
    matrices of a cross-fitting fold): the mean, the variance with sklearn's correction
    term, and scale 1 for a constant column (sklearn's rule)."""
    n = X.shape[0]
    mean = X.sum(axis=0) / n
    dev = X - mean
    var = ((dev**2).sum(axis=0) - dev.sum(axis=0) ** 2 / n) / n
    eps = np.finfo(np.float64).eps
    constant = var <= n * eps * var + (n * mean * eps) ** 2
    scale = np.sqrt(var)
    scale[constant | (scale < 10 * eps)] = 1.0
    scaler = StandardScaler()
    scaler.mean_, scaler.var_, scaler.scale_ = mean, var, scale
    scaler.n_samples_seen_ = n
    scaler.n_features_in_ = X.shape[1]
    return scaler


def _fitted_ridge(Z: np.ndarray, y: np.ndarray, alpha: float) -> tuple[Ridge, np.ndarray]:
    """``Ridge(alpha).fit(Z, y)`` (its Cholesky solve on centred data, as sklearn's for a
    dense Z) and the leverages ``1/n + diag(Zc (Zc'Zc + alpha I)^-1 Zc')`` from the same
    solve."""
    n, p = Z.shape
    z_mean, y_mean = Z.mean(axis=0), y.mean()
    Zc = Z - z_mean
    gram = Zc.T @ Zc + alpha * np.eye(p)
    sol = np.linalg.solve(gram, np.column_stack([Zc.T, Zc.T @ (y - y_mean)]))
    coef = sol[:, n]
    ridge = Ridge(alpha=alpha)
    ridge.coef_ = coef
    ridge.intercept_ = float(y_mean - z_mean @ coef)
    ridge.n_features_in_ = p
    ridge.n_iter_ = None
    ridge.solver_ = "cholesky"
    leverage = 1.0 / n + np.einsum("ij,ji->i", Zc, sol[:, :n])
    return ridge, leverage


def ridge_predict(scaler: StandardScaler, ridge: Ridge, X: Any) -> np.ndarray:
    """``ridge.predict(scaler.transform(X))``, in numpy for a finite 2-D numeric array of
    the fitted width (sklearn's validation cost more than the product); anything else
    (a DataFrame, NaN, the wrong width) goes through sklearn, which warns or refuses as
    it does."""
    coef = getattr(ridge, "coef_", None)
    if (
        isinstance(X, np.ndarray)
        and X.ndim == 2
        and X.dtype.kind in "fiu"
        and np.ndim(coef) == 1
        and X.shape[1] == getattr(scaler, "n_features_in_", -1) == np.size(coef)
        and getattr(scaler, "with_mean", False)
        and getattr(scaler, "with_std", False)
        and np.isfinite(X).all()
    ):
        return ((X - scaler.mean_) / scaler.scale_) @ coef + ridge.intercept_
    return ridge.predict(scaler.transform(X))


def fit_ridge_loo(
    X: np.ndarray, y: np.ndarray, alpha: float | None = None, max_df: float | None = None
) -> tuple[StandardScaler, Ridge, np.ndarray]:
    """Standardise and fit ridge (penalty ``alpha``, or chosen by efficient
    leave-one-out when None); return the sorted leave-one-out residuals.

    ``max_df``: when the penalty is chosen, only penalties whose effective degrees of
    freedom (:func:`ridge_df`) are at most ``max_df`` are candidates (the largest of
    :data:`RIDGE_ALPHAS` when none is): leave-one-out on about as many rows as features
    picks a near-interpolating fit whose leverages hide its error.

    The scaler and the ridge are sklearn's, their fitted attributes computed in numpy
    (:func:`_fitted_scaler`, :func:`_fitted_ridge`: 1.3 ms a fit through sklearn's
    validation on 200 x 5, 0.1 ms here; the same numbers to rounding); input sklearn
    would refuse (not finite, not 2-D) goes through sklearn, which refuses it."""
    X_arr, y_arr = np.asarray(X), np.asarray(y)
    plain = (
        X_arr.ndim == 2
        and y_arr.ndim == 1
        and X_arr.shape[0] == y_arr.shape[0] > 0
        and X_arr.shape[1] > 0
        and X_arr.dtype.kind in "fiu"
        and y_arr.dtype.kind in "fiu"
    )
    if plain:
        X_arr, y_arr = X_arr.astype(float, copy=False), y_arr.astype(float, copy=False)
        plain = bool(np.isfinite(X_arr).all() and np.isfinite(y_arr).all())
    if plain:
        scaler = _fitted_scaler(X_arr)
        Z = (X_arr - scaler.mean_) / scaler.scale_
    else:
        scaler = StandardScaler().fit(X)
        Z = scaler.transform(X)
    if alpha is None:
        alphas = RIDGE_ALPHAS
        if max_df is not None:
            ok = ridge_df(Z, alphas) <= max_df
            alphas = tuple(a for a, keep in zip(alphas, ok, strict=True) if keep) or alphas[-1:]
        alpha = loo_alpha(Z, y, alphas)
    if plain:
        ridge, leverage = _fitted_ridge(Z, y_arr, alpha)
        fitted = Z @ ridge.coef_ + ridge.intercept_
    else:  # sklearn validates (and refuses) the input; the leverages are the same solve's
        ridge = Ridge(alpha=alpha).fit(Z, y)
        leverage = _fitted_ridge(np.asarray(Z, dtype=float), np.asarray(y, dtype=float), alpha)[1]
        fitted = ridge.predict(Z)
    loo = (y - fitted) / np.maximum(1.0 - leverage, 1e-12)
    return scaler, ridge, np.sort(loo)


class DiscreteOutcomeMixin:
    """Mean, variance and CDF of a discrete outcome from ``predict_proba`` over ``levels_``."""

    levels_: np.ndarray

    def predict_proba(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.predict_proba(X) @ self.levels_

    def predict_var(self, X: np.ndarray) -> np.ndarray:
        p = self.predict_proba(X)
        mean = p @ self.levels_
        return np.clip(p @ self.levels_**2 - mean**2, 0.0, None)

    def predict_cdf(self, X: np.ndarray, t: np.ndarray) -> np.ndarray:
        cum = np.cumsum(self.predict_proba(X), axis=1)
        k = np.searchsorted(self.levels_, np.asarray(t, dtype=float), side="right")
        padded = np.concatenate([np.zeros((cum.shape[0], 1)), cum], axis=1)
        return np.clip(padded[:, k], 0.0, 1.0)


def level_index(y: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Map label values to positions in ``levels`` (labels are validated upstream)."""
    idx = np.searchsorted(levels, y)
    if np.any(idx >= levels.size) or np.any(levels[np.minimum(idx, levels.size - 1)] != y):
        bad = y[(idx >= levels.size) | (levels[np.minimum(idx, levels.size - 1)] != y)][0]
        raise ValueError(f"label {bad!r} is not one of the levels {levels.tolist()}")
    return idx


__all__ = [
    "RIDGE_ALPHAS",
    "BaseEstimator",
    "DiscreteOutcomeMixin",
    "empirical_cdf",
    "empirical_cdf_sum",
    "fit_ridge_loo",
    "level_index",
    "loo_alpha",
    "ridge_df",
    "ridge_predict",
]
