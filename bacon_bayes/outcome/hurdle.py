"""Hurdle model for nonnegative, zero-inflated labels (e.g. MQM error scores)."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from bacon_bayes.outcome.base import BaseEstimator, empirical_cdf, fit_ridge_loo, ridge_predict


class HurdleOutcome(BaseEstimator):
    """Logistic gate for ``P(y > 0)`` times ridge on ``log y`` for the positives.

    ``E[y | x] = P(y > 0 | x) * exp(m(x)) * mean_j exp(e_j)`` (Duan's smearing
    over leave-one-out log residuals ``e_j``, so no normality is assumed).

    The positive part is an exponential of a linear predictor, so an overfitted one
    extrapolates by orders of magnitude (a WMT22 MQM fold with 18 positive labels and
    18 features once put an item at 331,284 on a 0-25 scale). Two guards keep it where
    the labels and judges make it plausible:

    * its ridge penalty is chosen by leave-one-out among the penalties whose effective
      degrees of freedom are at most ``n_positive / positives_per_df`` (a few at tens of
      positive labels; no limit once the positives are many times the features);
    * its log-centre ``m(x)`` is clipped to the range of the positive labels' logs
      widened by ``log(widen)`` on each side: the positive part's median stays within
      ``[min / widen, max * widen]`` of the positive labels seen (with the default
      ``widen=2``, between half the smallest and twice the largest). The mean, variance
      and CDF all use the clipped centre.

    Parameters
    ----------
    C : float
        Inverse L2 penalty of the gate (on standardised features).
    positives_per_df : float or None
        Positive labels per effective degree of freedom of the positive part's ridge
        (None: no limit, as releases before session 38 fitted).
    widen : float or None
        Factor (> 1) by which the positive part's median may leave the positive labels'
        range (None: not clipped, as releases before session 38 fitted).
    """

    #: the settings earlier releases fitted with: a calibrator they saved reloads with them
    #: (:func:`bacon_bayes.persist.load_calibrator` refits its fold models)
    EARLIER_RELEASES = ({"positives_per_df": None, "widen": None},)

    def __init__(
        self, C: float = 1.0, positives_per_df: float | None = 10.0, widen: float | None = 2.0
    ) -> None:
        self.C = C
        self.positives_per_df = positives_per_df
        self.widen = widen

    def fit(self, X: np.ndarray, y: np.ndarray) -> HurdleOutcome:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        pos = y > 0
        self.scaler_ = StandardScaler().fit(X)
        if pos.all() or not pos.any():
            self.gate_ = None
            self.p_const_ = float(pos.mean())
        else:
            self.gate_ = LogisticRegression(C=self.C, max_iter=1000).fit(
                self.scaler_.transform(X), pos.astype(int)
            )
        if pos.sum() >= 3:
            per_df = self.positives_per_df
            self.pos_scaler_, self.pos_ridge_, self.resid_ = fit_ridge_loo(
                X[pos], np.log(y[pos]), max_df=None if per_df is None else pos.sum() / per_df
            )
            logs = np.log(y[pos])
            pad = np.inf if self.widen is None else float(np.log(self.widen))
            self.log_range_ = (float(logs.min()) - pad, float(logs.max()) + pad)
        else:  # too few positives for a regression: constant log-mean
            self.pos_ridge_ = None
            logs = np.log(y[pos]) if pos.any() else np.zeros(1)
            self.log_mean_ = float(logs.mean())
            self.resid_ = np.sort(logs - logs.mean())
        return self

    def predict_positive_prob(self, X: np.ndarray) -> np.ndarray:
        if self.gate_ is None:
            return np.full(np.shape(X)[0], self.p_const_)
        return self.gate_.predict_proba(self.scaler_.transform(X))[:, 1]

    def _log_center(self, X: np.ndarray) -> np.ndarray:
        if self.pos_ridge_ is None:
            return np.full(np.shape(X)[0], self.log_mean_)
        lo, hi = getattr(self, "log_range_", (-np.inf, np.inf))  # fitted before the bound
        return np.clip(ridge_predict(self.pos_scaler_, self.pos_ridge_, X), lo, hi)

    def predict(self, X: np.ndarray) -> np.ndarray:
        smear = float(np.mean(np.exp(self.resid_)))
        return self.predict_positive_prob(X) * np.exp(self._log_center(X)) * smear

    def predict_var(self, X: np.ndarray) -> np.ndarray:
        p = self.predict_positive_prob(X)
        m = self._log_center(X)
        m1 = np.exp(m) * float(np.mean(np.exp(self.resid_)))
        m2 = np.exp(2 * m) * float(np.mean(np.exp(2 * self.resid_)))
        return np.clip(p * m2 - (p * m1) ** 2, 0.0, None)

    def predict_cdf(self, X: np.ndarray, t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        p = self.predict_positive_prob(X)
        logt = np.log(np.where(t > 0, t, 1.0))
        pos_cdf = empirical_cdf(self._log_center(X), self.resid_, logt)
        pos_cdf[:, t <= 0] = 0.0
        cdf = (1.0 - p)[:, None] + p[:, None] * pos_cdf
        cdf[:, t < 0] = 0.0
        return cdf
