"""Cross-fitting engine that works with any outcome model.

The labeled items are split into ``K`` folds (seeded permutation, sizes
differing by at most one). Fold model ``k`` is fitted without fold ``k``.

* A labeled item in fold ``k`` gets the prediction of model ``k`` (out of fold).
* Every other item gets ``fbar = sum_k (n_k / n) f_k``, the fold-size-weighted
  average of the fold models.

Why the average and not one extra fit on all labels: the residual correction
of the AEE estimator averages out-of-fold residuals, i.e. it estimates the
pool-mean residual of exactly ``fbar`` (fold ``k``'s residuals estimate model
``k``'s, with weight ``n_k / n``). Predicting unlabeled items with a different
function (a full fit) would leave a correction that targets another model. It
also saves a fit. The same rule holds for the predictive CDF used by quantiles
(the fold CDFs are averaged, which is linear) and for the predictive variance
(the variance of the fold mixture).

Models with ``semi_supervised = True`` receive all items, with the labels
outside the training folds set to NaN, so that unlabeled judge scores inform
them; models with a ``fit_folds`` method fit every fold at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone

from bacon_bayes.errors import ValidationError


def make_folds(labeled: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """Fold id per item: ``-1`` for unlabeled, ``0..K-1`` for labeled (seeded, balanced)."""
    labeled = np.asarray(labeled, dtype=bool)
    n = int(labeled.sum())
    if folds < 2:
        raise ValidationError(f"folds={folds}; cross-fitting needs at least 2 folds (default 5).")
    if n < 2 * folds:
        raise ValidationError(
            f"{n} labeled item(s) are too few for {folds} folds (each fold model needs "
            f"training data and each fold at least 2 items): label at least {2 * folds} items "
            "or lower --folds."
        )
    ids = np.full(labeled.size, -1, dtype=int)
    perm = np.random.default_rng(seed).permutation(np.flatnonzero(labeled))
    ids[perm] = np.arange(n) % folds
    return ids


@dataclass
class CrossFitResult:
    """Fold models and the predictions the estimators use.

    Attributes
    ----------
    fold_ids : ndarray of int
        ``-1`` for unlabeled items, otherwise the item's fold.
    models : list
        Fitted fold models (model ``k`` never saw fold ``k``'s labels).
    weights : ndarray
        ``n_k / n`` per fold.
    mean : ndarray
        Surrogate ``E[Y|x]`` per item (out-of-fold for labeled items).
    """

    fold_ids: np.ndarray
    models: list[Any]
    weights: np.ndarray
    X: np.ndarray
    mean: np.ndarray

    @property
    def labeled(self) -> np.ndarray:
        return self.fold_ids >= 0

    def _combine(self, per_model: list[np.ndarray]) -> np.ndarray:
        """Out-of-fold rows for labeled items, weighted fold average elsewhere."""
        out = sum(w * p for w, p in zip(self.weights, per_model, strict=True))
        for k, p in enumerate(per_model):
            rows = self.fold_ids == k
            out[rows] = p[rows]
        return out

    def var(self) -> np.ndarray:
        """Predictive variance of ``Y`` per item (of the fold mixture for unlabeled items)."""
        means = [np.asarray(m.predict(self.X), dtype=float) for m in self.models]
        second = [
            np.asarray(m.predict_var(self.X), dtype=float) + mu**2
            for m, mu in zip(self.models, means, strict=True)
        ]
        return np.clip(self._combine(second) - self._combine(means) ** 2, 0.0, None)

    def cdf(self, t: np.ndarray) -> np.ndarray:
        """``P(Y_i <= t_k | x_i)``, shape (N, len(t))."""
        t = np.asarray(t, dtype=float)
        return self._combine(
            [np.asarray(m.predict_cdf(self.X, t), dtype=float) for m in self.models]
        )


def cross_fit(
    model: Any,
    X: np.ndarray,
    y: np.ndarray,
    *,
    folds: int = 5,
    seed: int = 0,
    fold_ids: np.ndarray | None = None,
) -> CrossFitResult:
    """Cross-fit ``model`` on the labeled items (``~isnan(y)``) and predict every item.

    Parameters
    ----------
    model : estimator
        Unfitted outcome model (cloned per fold).
    X : ndarray, shape (N, p)
    y : ndarray, shape (N,)
        Labels, NaN for unlabeled items.
    folds, seed : int
        Number of folds and the seed of the fold assignment.
    fold_ids : ndarray, optional
        A fold assignment to reuse (``-1`` = unlabeled).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    labeled = ~np.isnan(y)
    if fold_ids is None:
        fold_ids = make_folds(labeled, folds, seed)
    K = int(fold_ids.max()) + 1
    if hasattr(model, "fit_folds"):
        models = list(model.fit_folds(X, y, fold_ids, K))
    else:
        models = []
        for k in range(K):
            train = labeled & (fold_ids != k)
            m = clone(model)
            if getattr(model, "semi_supervised", False):
                m.fit(X, np.where(train, y, np.nan))
            else:
                m.fit(X[train], y[train])
            models.append(m)
    sizes = np.bincount(fold_ids[labeled], minlength=K).astype(float)
    result = CrossFitResult(fold_ids, models, sizes / sizes.sum(), X, np.empty(0))
    result.mean = result._combine([np.asarray(m.predict(X), dtype=float) for m in models])
    return result
