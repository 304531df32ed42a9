"""Proportional-odds (ordered logit) model for ordinal labels, fitted with scipy."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.preprocessing import StandardScaler

from bacon_bayes.outcome.base import BaseEstimator, DiscreteOutcomeMixin, level_index


class OrdinalOutcome(DiscreteOutcomeMixin, BaseEstimator):
    """Ordered logit: ``P(Y <= level_k | x) = sigmoid(theta_k - x'beta)``.

    Cutpoints are ``theta_0`` plus cumulative ``exp`` increments (always ordered).
    An L2 penalty ``alpha/2 |beta|^2`` on standardised features keeps collinear
    judges stable; a weak penalty on the log increments keeps the cutpoints of
    levels absent from the training labels finite.

    Parameters
    ----------
    levels : sequence of float
    alpha : float
    """

    def __init__(self, levels: tuple[float, ...] = (1, 2, 3, 4, 5), alpha: float = 1.0) -> None:
        self.levels = levels
        self.alpha = alpha

    def _unpack(self, params: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        beta, c0, d = params[:p], params[p], params[p + 1 :]
        inc = np.exp(d)
        theta = c0 + np.concatenate([[0.0], np.cumsum(inc)])
        return beta, theta, inc

    def _objective(
        self, params: np.ndarray, Z: np.ndarray, k: np.ndarray
    ) -> tuple[float, np.ndarray]:
        p = Z.shape[1]
        K = self.levels_.size
        beta, theta, inc = self._unpack(params, p)
        eta = Z @ beta
        big = 50.0
        th_ext = np.concatenate([[-big], theta, [big]])  # finite bounds keep gradients finite
        upper = th_ext[k + 1] - eta
        lower = th_ext[k] - eta
        Fu, Fl = expit(upper), expit(lower)
        prob = np.maximum(Fu - Fl, 1e-300)
        fu, fl = Fu * (1 - Fu), Fl * (1 - Fl)
        nll = (
            -np.sum(np.log(prob))
            + 0.5 * self.alpha * beta @ beta
            + 0.5e-2 * np.sum(params[p + 1 :] ** 2)
        )
        # gradients
        g_eta = (fu - fl) / prob  # d(-log p)/d eta
        g_beta = Z.T @ g_eta + self.alpha * beta
        # d(-log p)/d theta_j for j = 0..K-2
        g_theta = np.zeros(K - 1)
        np.add.at(g_theta, k[k < K - 1], -fu[k < K - 1] / prob[k < K - 1])
        np.add.at(g_theta, k[k > 0] - 1, fl[k > 0] / prob[k > 0])
        g_c0 = g_theta.sum()
        # theta_j = c0 + sum_{m < j} inc_m  =>  d/d d_m = inc_m * sum_{j > m} g_theta_j
        tail = np.cumsum(g_theta[::-1])[::-1]
        g_d = inc * tail[1:] + 1e-2 * params[p + 1 :]
        return float(nll), np.concatenate([g_beta, [g_c0], g_d])

    def fit(self, X: np.ndarray, y: np.ndarray) -> OrdinalOutcome:
        self.levels_ = np.asarray(self.levels, dtype=float)
        X = np.asarray(X, dtype=float)
        k = level_index(np.asarray(y, dtype=float), self.levels_)
        self.scaler_ = StandardScaler().fit(X)
        Z = self.scaler_.transform(X)
        K, p = self.levels_.size, Z.shape[1]
        # start: cutpoints at the logits of the empirical cumulative proportions
        cum = np.clip(np.cumsum(np.bincount(k, minlength=K))[:-1] / k.size, 0.02, 0.98)
        start_theta = np.log(cum / (1 - cum))
        start_theta = np.maximum.accumulate(start_theta + 1e-3 * np.arange(K - 1))
        d0 = np.log(np.maximum(np.diff(start_theta), 1e-2))
        x0 = np.concatenate([np.zeros(p), [start_theta[0]], d0])
        res = minimize(self._objective, x0, args=(Z, k), jac=True, method="L-BFGS-B")
        self.params_ = res.x
        self.converged_ = bool(res.success)
        self.beta_, self.cutpoints_, _ = self._unpack(res.x, p)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        eta = self.scaler_.transform(np.asarray(X, dtype=float)) @ self.beta_
        cum = expit(self.cutpoints_[None, :] - eta[:, None])
        cum = np.concatenate([np.zeros((eta.size, 1)), cum, np.ones((eta.size, 1))], axis=1)
        return np.clip(np.diff(cum, axis=1), 0.0, 1.0)
