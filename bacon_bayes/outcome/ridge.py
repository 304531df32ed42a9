"""Ridge regression outcome model for continuous labels."""

from __future__ import annotations

import numpy as np

from bacon_bayes.outcome.base import (
    BaseEstimator,
    empirical_cdf,
    empirical_cdf_sum,
    fit_ridge_loo,
    ridge_predict,
)


class RidgeOutcome(BaseEstimator):
    """Ridge on standardised features.

    The predictive distribution is the fitted mean plus an error drawn from the
    leave-one-out residuals (no normality assumed, so heavy tails are kept).

    Parameters
    ----------
    alpha : float, optional
        Penalty; by default chosen by efficient leave-one-out.
    """

    def __init__(self, alpha: float | None = None) -> None:
        self.alpha = alpha

    def fit(self, X: np.ndarray, y: np.ndarray) -> RidgeOutcome:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        self.scaler_, self.ridge_, self.resid_ = fit_ridge_loo(X, y, self.alpha)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return ridge_predict(self.scaler_, self.ridge_, X)

    def predict_var(self, X: np.ndarray) -> np.ndarray:
        return np.full(np.shape(X)[0], float(np.mean(self.resid_**2)))

    def predict_cdf(self, X: np.ndarray, t: np.ndarray) -> np.ndarray:
        return empirical_cdf(self.predict(X), self.resid_, t)

    def predict_cdf_sum(self, X: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``predict_cdf(X, t).sum(axis=0)`` in T x (labels) work and memory, not n x T."""
        return empirical_cdf_sum(self.predict(X), self.resid_, t)
