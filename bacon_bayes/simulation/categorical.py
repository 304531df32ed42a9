"""Simulated categorical labels and judges with known confusion matrices (Dawid-Skene)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bacon_bayes.bayes.columns import ColumnSpec

__all__ = ["SimulatedCategorical", "simulate_categorical"]


@dataclass
class SimulatedCategorical:
    """X in ``ColumnSpec.simple`` layout (judges | embedding), all labels y, the truth.

    ``confusion`` is (Jc, K, K) for the first Jc (categorical) judges, row = true
    class; ``class_means`` (Jn, K) and ``noise`` (Jn,) for the continuous judges after
    them; ``prior`` (n, K) is the true class prior given the embedding.
    """

    X: np.ndarray
    y: np.ndarray
    levels: np.ndarray
    confusion: np.ndarray
    class_means: np.ndarray
    noise: np.ndarray
    prior: np.ndarray
    columns: ColumnSpec


def simulate_categorical(
    n: int = 1000,
    n_categorical: int = 4,
    n_continuous: int = 0,
    n_emb: int = 2,
    *,
    levels: tuple[float, ...] = (0.0, 1.0),
    accuracy: tuple[float, float] = (0.6, 0.9),
    missing: float = 0.05,
    seed: int = 0,
) -> SimulatedCategorical:
    """Draw true classes from a softmax of the embedding, then judge scores given the class.

    Categorical judge j says the true class with probability drawn per (judge, class)
    from ``Uniform(*accuracy)`` and otherwise a wrong level uniformly; continuous judge
    j scores ``N(class_means[j, k], noise[j])``. ``missing`` is the share of missing
    scores (every item keeps at least one).
    """
    rng = np.random.default_rng(seed)
    lv = np.asarray(levels, dtype=float)
    K = lv.size
    E = rng.normal(size=(n, n_emb))
    B = rng.normal(0, 0.6, size=(n_emb, K))
    eta = E @ B + rng.normal(0, 0.3, size=K)
    prior = np.exp(eta - eta.max(axis=1, keepdims=True))
    prior /= prior.sum(axis=1, keepdims=True)
    k_true = (rng.random((n, 1)) > prior.cumsum(axis=1)).sum(axis=1)
    conf = np.empty((n_categorical, K, K))
    for j in range(n_categorical):
        acc = rng.uniform(*accuracy, size=K)
        for k in range(K):
            w = rng.dirichlet(np.ones(K - 1)) if K > 2 else np.ones(1)
            conf[j, k] = np.insert(w * (1 - acc[k]), k, acc[k])
    cols = []
    for j in range(n_categorical):
        u = rng.random(n)
        said = (u[:, None] > conf[j, k_true].cumsum(axis=1)).sum(axis=1)
        cols.append(lv[np.minimum(said, K - 1)])
    means = np.sort(rng.normal(0, 1.5, size=(n_continuous, K)), axis=1) + rng.normal(
        3, 1, size=(n_continuous, 1)
    )
    noise = rng.uniform(0.6, 1.2, size=n_continuous)
    for j in range(n_continuous):
        cols.append(means[j, k_true] + noise[j] * rng.normal(size=n))
    Lm = np.column_stack(cols)
    drop = rng.random(Lm.shape) < missing
    drop[drop.all(axis=1), 0] = False
    Lm[drop] = np.nan
    J = n_categorical + n_continuous
    return SimulatedCategorical(
        X=np.column_stack([Lm, E]),
        y=lv[k_true],
        levels=lv,
        confusion=conf,
        class_means=means,
        noise=noise,
        prior=prior,
        columns=ColumnSpec.simple(J, 0, n_emb),
    )
