"""Multinomial logistic regression for categorical labels (binary included)."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from bacon_bayes.outcome.base import BaseEstimator, DiscreteOutcomeMixin, level_index


class MultinomialOutcome(DiscreteOutcomeMixin, BaseEstimator):
    """Softmax regression on standardised features.

    Parameters
    ----------
    levels : sequence of float
        The category values (numeric; E[Y|x] is their probability-weighted sum).
    C : float
        Inverse L2 penalty.
    """

    def __init__(self, levels: tuple[float, ...] = (0.0, 1.0), C: float = 1.0) -> None:
        self.levels = levels
        self.C = C

    def fit(self, X: np.ndarray, y: np.ndarray) -> MultinomialOutcome:
        self.levels_ = np.asarray(self.levels, dtype=float)
        X = np.asarray(X, dtype=float)
        k = level_index(np.asarray(y, dtype=float), self.levels_)
        self.scaler_ = StandardScaler().fit(X)
        self.seen_ = np.unique(k)
        if self.seen_.size == 1:
            self.model_ = None
        else:
            self.model_ = LogisticRegression(C=self.C, max_iter=2000).fit(
                self.scaler_.transform(X), k
            )
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        n = np.shape(X)[0]
        out = np.zeros((n, self.levels_.size))
        if self.model_ is None:
            out[:, self.seen_[0]] = 1.0
        else:
            out[:, self.model_.classes_] = self.model_.predict_proba(self.scaler_.transform(X))
        return out
