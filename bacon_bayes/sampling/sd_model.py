"""A frequentist heteroskedastic model of the outcome model's error sd.

It feeds the adaptive design when no Bayesian predictive variance is at hand:
fitted on the out-of-fold residuals of the labeled items (from
:func:`bacon_bayes.crossfit.cross_fit`), it models ``log r^2 ~ ridge(features)``
with a smearing correction so that the mean predicted variance equals the
mean squared residual.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from bacon_bayes.errors import NotFittedError, ValidationError

__all__ = ["HeteroskedasticSD", "cross_fitted_sd"]

_ALPHAS = np.logspace(-3, 3, 13)


class HeteroskedasticSD(BaseEstimator):
    """Per-item error sd from a ridge regression of log squared residuals.

    Features are standardised; the penalty is chosen among ``alphas`` by exact
    leave-one-out error (closed form from one SVD), so a fit costs well under a
    millisecond and cross-fitting the sd is cheap.

    Parameters
    ----------
    alphas : sequence of float
        Ridge penalties tried.
    floor : float
        Smallest squared residual used inside the log (relative to the mean).
    """

    def __init__(self, alphas: np.ndarray = _ALPHAS, floor: float = 1e-6) -> None:
        self.alphas = alphas
        self.floor = floor

    def fit(self, X: np.ndarray, residual: np.ndarray) -> HeteroskedasticSD:
        """Fit on features and (out-of-fold) residuals of labeled items."""
        X = np.asarray(X, dtype=float)
        r2 = np.asarray(residual, dtype=float) ** 2
        if X.ndim != 2 or X.shape[0] != r2.size or not np.all(np.isfinite(r2)):
            raise ValidationError("residuals must be finite, one per row of X")
        if not np.all(np.isfinite(X)):
            raise ValidationError("features of the sd model contain NaN or infinite values")
        scale = max(float(r2.mean()), np.finfo(float).tiny)
        target = np.log(np.maximum(r2, self.floor * scale))
        self.center_ = X.mean(axis=0)
        self.scale_ = X.std(axis=0)
        self.scale_[self.scale_ == 0] = 1.0
        Z = (X - self.center_) / self.scale_
        self.intercept_ = float(target.mean())
        t = target - self.intercept_
        u, sv, vt = np.linalg.svd(Z, full_matrices=False)
        ut = u.T @ t
        best = np.inf
        for alpha in np.asarray(self.alphas, dtype=float):
            shrink = sv**2 / (sv**2 + alpha)
            fitted = u @ (shrink * ut)
            leverage = 1.0 / t.size + (u**2) @ shrink
            loo = np.mean(((t - fitted) / np.maximum(1.0 - leverage, 1e-12)) ** 2)
            if loo < best:
                best, self.alpha_ = loo, float(alpha)
                self.coef_ = vt.T @ (sv / (sv**2 + alpha) * ut)
        self.smear_ = scale / float(np.mean(np.exp(self._log_var(X))))
        return self

    def _log_var(self, X: np.ndarray) -> np.ndarray:
        return (
            self.intercept_
            + ((np.asarray(X, dtype=float) - self.center_) / self.scale_) @ self.coef_
        )

    def predict_sd(self, X: np.ndarray) -> np.ndarray:
        """Predicted error sd of every row."""
        if not hasattr(self, "coef_"):
            raise NotFittedError("HeteroskedasticSD.predict_sd called before fit")
        return np.sqrt(self.smear_ * np.exp(self._log_var(X)))


def cross_fitted_sd(
    X: np.ndarray,
    residual: np.ndarray,
    labeled: np.ndarray,
    *,
    folds: int = 5,
    seed: int = 0,
) -> np.ndarray:
    """Error sd of every item for an adaptive wave after a pilot.

    Unlabeled items get the model fitted on all labeled residuals. A labeled
    item gets the model fitted without its fold: the sd it would have had if it
    had not been labeled, which is what its union-of-waves inclusion
    probability needs (a model that saw its residual would raise its sd, and
    its probability, exactly when its residual is large).

    Parameters
    ----------
    X : array, shape (N, p)
    residual : array, shape (N,)
        Out-of-fold residuals (only labeled entries are read).
    labeled : array of bool, shape (N,)
    folds, seed : int
        Fold split of the labeled items (``folds < 2``: no cross-fitting).
    """
    X = np.asarray(X, dtype=float)
    labeled = np.asarray(labeled, dtype=bool)
    r = np.asarray(residual, dtype=float)
    members = np.flatnonzero(labeled)
    sd = HeteroskedasticSD().fit(X[members], r[members]).predict_sd(X)
    if folds > 1 and members.size >= 2 * folds:
        fold_of = np.random.default_rng(seed).permutation(members.size) % folds
        for k in range(folds):
            train, held = members[fold_of != k], members[fold_of == k]
            sd[held] = HeteroskedasticSD().fit(X[train], r[train]).predict_sd(X[held])
    return sd
