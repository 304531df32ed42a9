"""Cross-fitting engine that works with any outcome model.

The labeled items are split into ``K`` folds (seeded permutation, sizes
differing by at most one). Fold model ``k`` is fitted without fold ``k``.

* A labeled item in fold ``k`` gets the prediction of model ``k`` (out of fold).
* Every other item gets ``fbar = sum_k s_k f_k``, an average of the fold models
  with ``s_k`` the share of the labels' design weight (``1 / pi``) that sits in
  fold ``k``: ``n_k / n`` under uniform sampling.

Why the average and not one extra fit on all labels: the residual correction
of the AEE estimator is the weighted mean of out-of-fold residuals, and fold
``k``'s residuals estimate model ``k``'s mean residual with exactly the weight
``s_k``; so the correction targets ``fbar`` and nothing else. Predicting
unlabeled items with a different function (a full fit) would leave a correction
that targets another model. For an estimand restricted to a domain (a group)
the shares are those of the domain's own labels (:meth:`CrossFitResult.surrogate`):
with pool-level shares, the random fold make-up of a group's few labels would
add an error common to all groups that no variance formula sees. The same rule
holds for the predictive CDF used by quantiles (the fold CDFs are averaged,
which is linear) and for the predictive variance (of the fold mixture).

Models with ``semi_supervised = True`` receive all items, with the labels
outside the training folds set to NaN, so that unlabeled judge scores inform
them; models with a ``fit_folds`` method fit every fold at once.
"""

from __future__ import annotations

import numbers
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone

from bacon_bayes.errors import ValidationError
from bacon_bayes.order import natural_codes, unique_codes
from bacon_bayes.progress import bar


def make_folds(
    labeled: np.ndarray, folds: int, seed: int, clusters: np.ndarray | None = None
) -> np.ndarray:
    """Fold id per item: ``-1`` for unlabeled, ``0..K-1`` for labeled (seeded, balanced).

    Items are dealt by their position in ``labeled``, not by any id: the same items in
    another order get other folds under the same seed, so a pool's row order acts like
    the seed (its estimates move as another seed's would). Tables validated so far rely
    on this deal, so it is kept; keep a file's row order to reproduce a result.

    With ``clusters`` (the prompt of every item), every labeled item of a prompt falls in
    the same fold: no fold model predicts an item from labels of its own prompt. Prompts
    are dealt to the folds in a seeded order, each to the fold with the fewest labels so
    far (fold sizes then differ by at most one prompt's labels).
    """
    labeled = np.asarray(labeled, dtype=bool)
    n = int(labeled.sum())
    if isinstance(folds, bool) or not isinstance(folds, numbers.Integral) or folds < 2:
        raise ValidationError(
            f"folds={folds!r}; cross-fitting needs a whole number of at least 2 folds (default 5)."
        )
    if clusters is not None:
        return _cluster_folds(labeled, folds, seed, np.asarray(clusters))
    if n < 2 * folds:
        raise ValidationError(
            f"{n} labeled item(s) are too few for {folds} folds (each fold model needs "
            f"training data and each fold at least 2 items): label at least {2 * folds} items "
            "or lower --folds (folds= in Python)."
        )
    ids = np.full(labeled.size, -1, dtype=int)
    perm = np.random.default_rng(seed).permutation(np.flatnonzero(labeled))
    ids[perm] = np.arange(n) % folds
    return ids


#: the fewest folds a command bacon prints lowers ``--folds`` to (8 labels at least): with
#: 2 or 3, each fold model trains on a half or two thirds of a pilot already too small
#: for the default, and bacon prints no command
FEWEST_LOWERED_FOLDS = 4


def most_folds(
    labeled: np.ndarray, folds: int, seed: int, clusters: np.ndarray | None = None
) -> int | None:
    """The most cross-fitting folds, under ``folds``, that :func:`make_folds` deals the
    labels into (at least 2 labeled items per fold); None when not even
    :data:`FEWEST_LOWERED_FOLDS` work. For the commands bacon prints on a pilot too small
    for the default folds."""
    for k in range(int(folds) - 1, FEWEST_LOWERED_FOLDS - 1, -1):
        try:
            make_folds(labeled, k, seed, clusters)
        except ValidationError:
            continue
        return k
    return None


def _cluster_folds(labeled: np.ndarray, folds: int, seed: int, clusters: np.ndarray) -> np.ndarray:
    # prompt numbers in numeric order, so the seeded deal is the same whether a file gave
    # them as numbers (1, 2, 10) or as text ('00001', '00002', '00010'): CSV vs Parquet or
    # JSON; other prompt names in string order, as ever (the folds of every table whose
    # prompts are not all numbers stay as they were)
    text = clusters.astype(str)
    if all(s.strip().isdigit() for s in np.unique(text)):
        names, codes = natural_codes(clusters)
    else:
        names, codes = np.unique(text, return_inverse=True)
    lab_codes = codes[labeled]
    present = np.unique(lab_codes)
    if present.size < folds:
        raise ValidationError(
            f"the labels cover {present.size} prompt(s), fewer than the {folds} cross-fitting "
            f"folds (folds split by prompt, at least one prompt each): label items of at "
            f"least {folds} prompts or lower --folds (folds= in Python)."
        )
    sizes = np.bincount(lab_codes, minlength=names.size)
    order = np.random.default_rng(seed).permutation(present)
    # largest prompts first (in the seeded order among equals), each to the emptiest fold
    order = order[np.argsort(-sizes[order], kind="stable")]
    load = np.zeros(folds)
    fold_of = np.full(names.size, -1)
    for c in order:
        k = int(np.argmin(load))
        fold_of[c] = k
        load[k] += sizes[c]
    if load.min() < 2:
        raise ValidationError(
            f"a cross-fitting fold gets {int(load.min())} labeled item(s) when folds split by "
            "prompt; label more items or lower --folds (folds= in Python; each fold needs at "
            "least 2)."
        )
    ids = np.full(labeled.size, -1, dtype=int)
    ids[labeled] = fold_of[lab_codes]
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
        Share ``s_k`` of the labels' design weight in fold ``k``.
    mean : ndarray
        Surrogate ``E[Y|x]`` per item (out-of-fold for labeled items).
    design_weight : ndarray
        ``1 / pi`` per item (ones for uniform sampling).
    """

    fold_ids: np.ndarray
    models: list[Any]
    weights: np.ndarray
    X: np.ndarray
    mean: np.ndarray
    design_weight: np.ndarray

    @property
    def labeled(self) -> np.ndarray:
        return self.fold_ids >= 0

    def fold_predictions(self) -> list[np.ndarray]:
        """Each fold model's ``predict`` on every item of ``X``, computed once (the
        surrogate of the pool, of its groups and the predictive variance all use them)."""
        held = self.__dict__.get("_predictions")
        if held is None or held[0] is not self.X or held[1] is not self.models:
            preds = [np.asarray(m.predict(self.X), dtype=float) for m in self.models]
            held = (self.X, self.models, preds)
            self.__dict__["_predictions"] = held
        return held[2]

    def _combine(self, per_model: list[np.ndarray], shares: np.ndarray | None = None) -> np.ndarray:
        """Out-of-fold rows for labeled items, share-weighted fold average elsewhere.

        ``shares`` is (K,) or per item (N, K); default the pool-level ``weights``.
        """
        s = self.weights if shares is None else shares
        if s.ndim == 1:
            out = sum(w * p for w, p in zip(s, per_model, strict=True))
        else:
            out = sum(
                s[:, k].reshape((-1,) + (1,) * (p.ndim - 1)) * p for k, p in enumerate(per_model)
            )
        for k, p in enumerate(per_model):
            rows = self.fold_ids == k
            out[rows] = p[rows]
        return out

    def shares(self, domains: np.ndarray) -> np.ndarray:
        """Per item (N, K): fold shares of the design weight of the labels in its domain."""
        names, codes = unique_codes(domains)
        K = len(self.models)
        lab = self.labeled
        mass = np.zeros((names.size, K))
        np.add.at(mass, (codes[lab], self.fold_ids[lab]), self.design_weight[lab])
        total = mass.sum(axis=1, keepdims=True)
        per_domain = np.where(total > 0, mass / np.where(total > 0, total, 1.0), self.weights)
        return per_domain[codes]

    def surrogate(self, domains: np.ndarray | None = None) -> np.ndarray:
        """``E[Y|x]`` per item, with fold shares of each item's domain (default: the pool)."""
        if domains is None:
            return self.mean
        return self._combine(self.fold_predictions(), self.shares(domains))

    def var(self) -> np.ndarray:
        """Predictive variance of ``Y`` per item (of the fold mixture for unlabeled items)."""
        _need(
            self.models,
            "predict_var",
            "the predictive variance (adaptive designs, plans, simulations)",
        )
        means = self.fold_predictions()
        second = [
            np.asarray(m.predict_var(self.X), dtype=float) + mu**2
            for m, mu in zip(self.models, means, strict=True)
        ]
        # self.mean is the same combination of the same predictions
        return np.clip(self._combine(second) - self.mean**2, 0.0, None)

    def cdf(self, t: np.ndarray) -> np.ndarray:
        """``P(Y_i <= t_k | x_i)``, shape (N, len(t))."""
        _need(
            self.models,
            "predict_cdf",
            "quantiles, item_scores(threshold=...) and item_scores(method='posterior'), "
            "the rates of categorical judges",
        )
        t = np.asarray(t, dtype=float)
        return self._combine(
            [np.asarray(m.predict_cdf(self.X, t), dtype=float) for m in self.models]
        )

    def cdf_parts(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What the AEE quantile needs of :meth:`cdf` without its (N, T) array: the labeled
        items' rows (out of fold, in item order) and the column sums over all N items,
        the unlabeled items' by :func:`summed_cdf` (memory of a block, not of the pool)."""
        _need(self.models, "predict_cdf", "quantiles")
        t = np.asarray(t, dtype=float)
        lab = self.labeled
        rows = np.flatnonzero(lab)
        folds = self.fold_ids[rows]
        averaged = rows[folds < 0]  # labeled rows no fold model left out (a frozen fit's)
        phi_lab = np.zeros((rows.size, t.size))
        for k, (w, m) in enumerate(zip(self.weights, self.models, strict=True)):
            own = folds == k
            if own.any():
                phi_lab[own] = np.asarray(m.predict_cdf(self.X[rows[own]], t), dtype=float)
            if averaged.size:
                phi_lab[folds < 0] += w * np.asarray(
                    m.predict_cdf(self.X[averaged], t), dtype=float
                )
        X_unl = self.X[~lab]
        total = phi_lab.sum(axis=0)
        for w, m in zip(self.weights, self.models, strict=True):
            total = total + w * summed_cdf(m, X_unl, t)
        return phi_lab, total


#: numbers in one block of predictive CDFs (items x grid points) summed by :func:`summed_cdf`
CDF_BLOCK = 2_000_000


def summed_cdf(model: Any, X: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``model.predict_cdf(X, t).sum(axis=0)``: by the model's ``predict_cdf_sum`` when it
    has one (the ridge: grid x residuals work), else over blocks of rows of ``CDF_BLOCK``
    numbers, so the (rows, T) array is never whole."""
    t = np.asarray(t, dtype=float)
    if callable(getattr(model, "predict_cdf_sum", None)):
        return np.asarray(model.predict_cdf_sum(X, t), dtype=float)
    out = np.zeros(t.size)
    step = max(1, CDF_BLOCK // max(t.size, 1))
    for start in range(0, X.shape[0], step):
        out += np.asarray(model.predict_cdf(X[start : start + step], t), dtype=float).sum(0)
    return out


#: What the outcome-model protocol (:mod:`bacon_bayes.outcome`) asks of each method.
_PROTOCOL = {
    "predict_var": "predict_var(X), the conditional variance of Y per item, shape (n,)",
    "predict_cdf": "predict_cdf(X, t), P(Y <= t_k | x_i), shape (n, len(t))",
}


def _need(models: list[Any], method: str, purpose: str) -> None:
    """Refuse ``purpose`` when the fold models lack ``method`` of the outcome-model
    protocol (a plain scikit-learn regressor has ``predict`` only), naming what works."""
    if all(callable(getattr(m, method, None)) for m in models):
        return
    name = type(models[0]).__name__
    raise ValidationError(
        f"the outcome model {name} has no {method}: {purpose} need the model's "
        f"{_PROTOCOL[method]}. Add that method to the model, or use a built-in model "
        "(model=None, or 'ridge', 'ordinal', 'hurdle', 'multinomial'); the mean, group "
        "tables, conformal item_scores() and judge_bias() work with fit and predict alone."
    )


def check_protocol(model: Any) -> None:
    """Refuse an outcome model without ``fit`` and ``predict`` (the least the
    cross-fitting needs), naming the protocol."""
    missing = [m for m in ("fit", "predict") if not callable(getattr(model, m, None))]
    if missing:
        raise ValidationError(
            f"model={type(model).__name__} has no {' or '.join(missing)}: an outcome model "
            "is an unfitted scikit-learn style estimator with fit(X, y) and predict(X) "
            "(and, for quantiles and posterior item scores, "
            f"{_PROTOCOL['predict_cdf']}; for designs, {_PROTOCOL['predict_var']}). "
            "Pass a model name ('ridge', ...) or such an estimator."
        )


def cross_fit(
    model: Any,
    X: np.ndarray,
    y: np.ndarray,
    *,
    folds: int = 5,
    seed: int = 0,
    fold_ids: np.ndarray | None = None,
    pi: np.ndarray | None = None,
    threads: int = 1,
    clusters: np.ndarray | None = None,
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
    pi : ndarray, optional
        Inclusion probabilities of the labels (default uniform); they set the fold
        shares of the average that predicts unlabeled items.
    clusters : ndarray, optional
        The prompt of every item: folds split by prompt (:func:`make_folds`).
    threads : int
        Fold models fitted at once (on threads: for models whose fit releases the GIL,
        e.g. ridge's linear algebra); the models do not depend on it.
    """
    check_protocol(model)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if fold_ids is None:
        fold_ids = make_folds(~np.isnan(y), folds, seed, clusters)
    models = _fit_folds(model, X, y, fold_ids, int(fold_ids.max()) + 1, threads)
    return _result(fold_ids, models, X, y, pi)


def _fit_folds(
    model: Any, X: np.ndarray, y: np.ndarray, fold_ids: np.ndarray, K: int, threads: int = 1
) -> list[Any]:
    """Fold model ``k`` of ``K`` fitted on the labeled rows outside fold ``k`` (a fold id
    of ``K`` or more is in every fold's training)."""
    if hasattr(model, "fit_folds"):  # its sampler shows its own progress
        return list(model.fit_folds(X, y, fold_ids, K))
    labeled = ~np.isnan(y)
    progress = bar(K, f"cross-fitting {type(model).__name__}", unit="fold")

    def fit(k: int) -> Any:
        train = labeled & (fold_ids != k)
        m = clone(model)
        if getattr(model, "semi_supervised", False):
            m.fit(X, np.where(train, y, np.nan))
        else:
            m.fit(X[train], y[train])
        progress.update(1)
        return m

    with progress:
        if threads > 1 and K > 1:
            with ThreadPoolExecutor(min(threads, K)) as pool:
                return list(pool.map(fit, range(K)))
        return [fit(k) for k in range(K)]


def _design_weight(labeled: np.ndarray, pi: np.ndarray | None) -> np.ndarray:
    """``1 / pi`` for labeled items, ones elsewhere (and for uniform sampling)."""
    design_weight = np.ones(labeled.size)
    if pi is not None:
        design_weight[labeled] = 1.0 / np.asarray(pi, dtype=float)[labeled]
    return design_weight


def _result(
    fold_ids: np.ndarray, models: list[Any], X: np.ndarray, y: np.ndarray, pi: np.ndarray | None
) -> CrossFitResult:
    """The cross-fit of a pool: fold shares of its labels' design weight, predictions."""
    labeled = ~np.isnan(y)
    design_weight = _design_weight(labeled, pi)
    K = len(models)
    mass = np.bincount(fold_ids[labeled], weights=design_weight[labeled], minlength=K)
    result = CrossFitResult(fold_ids, models, mass / mass.sum(), X, np.empty(0), design_weight)
    result.mean = result._combine(result.fold_predictions())
    return result


@dataclass
class FrozenFit(CrossFitResult):
    """Fold models fitted on another pool (an earlier round), applied to this one's
    features ``X``: every item, labeled or not, gets the share-weighted fold average,
    since no fold model saw any of this pool's labels. ``fold_ids`` are all ``-1``;
    ``labels`` marks this pool's labeled items."""

    labels: np.ndarray

    @property
    def labeled(self) -> np.ndarray:
        return self.labels

    def _combine(self, per_model: list[np.ndarray], shares: np.ndarray | None = None) -> np.ndarray:
        return sum(w * p for w, p in zip(self.weights, per_model, strict=True))

    def shares(self, domains: np.ndarray) -> np.ndarray:
        return np.tile(self.weights, (len(domains), 1))


def freeze(fit: CrossFitResult, X: np.ndarray, y: np.ndarray, pi: np.ndarray | None) -> FrozenFit:
    """``fit``'s fold models applied to the features ``X`` of another pool with labels
    ``y`` (NaN: unlabeled) drawn with inclusion probabilities ``pi``."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    labeled = ~np.isnan(y)
    design_weight = _design_weight(labeled, pi)
    ids = np.full(y.size, -1)
    out = FrozenFit(ids, fit.models, fit.weights, X, np.empty(0), design_weight, labeled)
    out.mean = out._combine(out.fold_predictions())
    return out


def cross_fit_with(
    model: Any,
    X: np.ndarray,
    y: np.ndarray,
    X_old: np.ndarray,
    y_old: np.ndarray,
    *,
    folds: int = 5,
    seed: int = 0,
    pi: np.ndarray | None = None,
    clusters: np.ndarray | None = None,
    fold_ids: np.ndarray | None = None,
) -> CrossFitResult:
    """Cross-fit ``model`` over the labels ``y`` of a pool with the labeled rows of
    another one (``X_old``, ``y_old``: an earlier round) in every fold's training: fold
    model ``k`` trains on the old labels and on the new ones outside fold ``k``. The
    result describes the new pool alone (out-of-fold predictions for its labeled items,
    fold shares of its labels' design weight), so the AEE correction rests on the new
    labels only. Semi-supervised models also see the old pool's unlabeled judge scores."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    X_old, y_old = np.asarray(X_old, dtype=float), np.asarray(y_old, dtype=float)
    ids = make_folds(~np.isnan(y), folds, seed, clusters) if fold_ids is None else fold_ids
    K = int(ids.max()) + 1
    # the old labels sit in fold K, which no fold holds out
    all_ids = np.concatenate([np.where(np.isnan(y_old), -1, K), ids])
    models = _fit_folds(model, np.vstack([X_old, X]), np.concatenate([y_old, y]), all_ids, K)
    return _result(ids, models, X, y, pi)
