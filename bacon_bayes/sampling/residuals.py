"""Out-of-fold residuals and a frequentist heteroskedastic sd model.

These feed the adaptive designs when no Bayesian calibrator is at hand: the
outcome model is a ridge regression (``RidgeCV``) cross-fitted over K folds,
and the error sd is modelled as ``log r^2 ~ ridge(features)`` with a smearing
correction so that the mean predicted variance equals the mean squared
out-of-fold residual on the labeled items.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import KFold

from bacon_bayes.errors import NotFittedError, ValidationError

__all__ = ["HeteroskedasticSD", "out_of_fold_predictions"]

_ALPHAS = np.logspace(-3, 3, 13)


def out_of_fold_predictions(
    X: np.ndarray,
    y: np.ndarray,
    labeled: np.ndarray,
    *,
    folds: int = 5,
    seed: int = 0,
    model: BaseEstimator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Cross-fitted predictions of ``y`` from ``X``.

    Returns ``(oof, full)``: ``oof`` holds, for labeled items, the prediction of
    the model fitted without the item's fold (NaN elsewhere); ``full`` holds,
    for every item, the average of the K fold models' predictions (the
    function whose residual ``oof`` corrects, up to fold variation).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    labeled = np.asarray(labeled, dtype=bool)
    idx = np.flatnonzero(labeled)
    if idx.size < max(folds, 2):
        raise ValidationError(
            f"{idx.size} labeled items cannot be split into {folds} folds; label more items"
        )
    if np.any(~np.isfinite(y[idx])):
        raise ValidationError("labeled items have missing or infinite labels")
    base = model if model is not None else RidgeCV(alphas=_ALPHAS)
    oof = np.full(y.size, np.nan)
    full = np.zeros(y.size)
    for train, test in KFold(folds, shuffle=True, random_state=seed).split(idx):
        fitted = clone(base).fit(X[idx[train]], y[idx[train]])
        oof[idx[test]] = fitted.predict(X[idx[test]])
        full += fitted.predict(X) / folds
    return oof, full


class HeteroskedasticSD(BaseEstimator):
    """Per-item error sd from a ridge regression of log squared residuals.

    Parameters
    ----------
    alphas : sequence of float
        Ridge penalties tried by ``RidgeCV``.
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
        if X.shape[0] != r2.size or not np.all(np.isfinite(r2)):
            raise ValidationError("residuals must be finite, one per row of X")
        scale = max(float(r2.mean()), np.finfo(float).tiny)
        target = np.log(np.maximum(r2, self.floor * scale))
        self.model_ = RidgeCV(alphas=self.alphas).fit(X, target)
        self.smear_ = scale / float(np.mean(np.exp(self.model_.predict(X))))
        return self

    def predict_sd(self, X: np.ndarray) -> np.ndarray:
        """Predicted error sd of every row."""
        if not hasattr(self, "model_"):
            raise NotFittedError("HeteroskedasticSD.predict_sd called before fit")
        return np.sqrt(self.smear_ * np.exp(self.model_.predict(np.asarray(X, dtype=float))))
