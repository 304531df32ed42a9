"""Features for the outcome models, built from the whole pool and never from labels.

Per judge: the mean score over runs (winsorised, on the judge's own scale);
with repeated runs, the sd over runs encoded as sqrt-variance plus a
has-variance flag (a log-variance would put the many zero-variance items on a
cliff far from the rest); token uncertainty (entropy, perplexity) when given;
a missing-score indicator with mean imputation when a judge skipped items.
Embeddings are reduced by PCA fitted on all items. Everything is unsupervised,
so using all items (labeled or not) does not leak labels into cross-fitting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.decomposition import PCA

from bacon_bayes.pool import UNCERTAINTY_COLUMNS, EvalPool


@dataclass(frozen=True)
class FeatureSet:
    """Design matrix of one pool with the meaning of its columns.

    Attributes
    ----------
    X : ndarray, shape (N, p)
        Features, no NaN.
    names : list of str
        ``judge:<name>:mean|sd|has_var|entropy|perplexity|missing`` and ``emb:pc<k>``.
    blocks : dict
        Column indices per block: ``judge`` (one mean per judge, in ``judges`` order),
        ``uncertainty``, ``missing``, ``embedding``.
    judges : tuple of str
    judge_missing : ndarray of bool, shape (N, J)
        True where the judge gave no score (``X`` holds the imputed mean there).
    report : dict
        Counts of what was imputed or clipped.
    """

    X: np.ndarray
    names: list[str]
    blocks: dict[str, list[int]]
    judges: tuple[str, ...]
    judge_missing: np.ndarray
    report: dict[str, Any] = field(default_factory=dict)

    def judge_block(self) -> np.ndarray:
        """Judge mean scores, items x judges (imputed where missing)."""
        return self.X[:, self.blocks["judge"]]


def _winsorise(x: np.ndarray, limits: tuple[float, float]) -> tuple[np.ndarray, int]:
    obs = x[~np.isnan(x)]
    if obs.size == 0 or limits == (0.0, 1.0):
        return x, 0
    lo, hi = np.quantile(obs, limits)
    clipped = np.clip(x, lo, hi)
    n = int(np.sum((x < lo) | (x > hi)))
    return clipped, n


def build_features(
    pool: EvalPool,
    *,
    winsor: tuple[float, float] = (0.005, 0.995),
    n_components: int | None = None,
    uncertainty: bool = True,
    seed: int = 0,
) -> FeatureSet:
    """Build the feature matrix of a pool.

    Parameters
    ----------
    pool : EvalPool
    winsor : (lower, upper)
        Quantiles at which judge features are clipped (``(0, 1)`` turns it off).
    n_components : int, optional
        PCA components of the embedding (default ``min(32, dim, N - 1)``).
    uncertainty : bool
        Include run-sd and token-uncertainty features when available.
    seed : int
        Seed of the randomised PCA solver.
    """
    cols: list[np.ndarray] = []
    names: list[str] = []
    blocks: dict[str, list[int]] = {"judge": [], "uncertainty": [], "missing": [], "embedding": []}
    report: dict[str, Any] = {"missing": {}, "winsorised": {}}

    def add(values: np.ndarray, name: str, block: str) -> None:
        blocks[block].append(len(names))
        cols.append(values.astype(float))
        names.append(name)

    means = pool.judge_matrix("mean").to_numpy(dtype=float)
    missing = np.isnan(means)
    multi_run = pool.max_runs() > 1
    sds = pool.judge_matrix("std").to_numpy(dtype=float) if multi_run and uncertainty else None
    extra = {
        c: pool.judge_scores.groupby(["pos", "judge"], sort=False)[c]
        .mean()
        .unstack("judge")
        .reindex(index=np.arange(pool.n_items), columns=list(pool.judges))
        .to_numpy(dtype=float)
        for c in UNCERTAINTY_COLUMNS
        if uncertainty and c in pool.judge_scores.columns
    }
    for j, judge in enumerate(pool.judges):
        m, n_clip = _winsorise(means[:, j], winsor)
        report["winsorised"][judge] = n_clip
        fill = float(np.nanmean(m))
        add(np.where(missing[:, j], fill, m), f"judge:{judge}:mean", "judge")
    for j, judge in enumerate(pool.judges):
        if sds is not None:
            sd = np.where(np.isnan(sds[:, j]), 0.0, sds[:, j])
            sd, _ = _winsorise(sd, winsor)
            add(sd, f"judge:{judge}:sd", "uncertainty")
            add((sd > 0).astype(float), f"judge:{judge}:has_var", "uncertainty")
        for c, mat in extra.items():
            v = mat[:, j]
            if np.isnan(v).all():
                continue
            v, _ = _winsorise(v, winsor)
            add(np.where(np.isnan(v), np.nanmean(v), v), f"judge:{judge}:{c}", "uncertainty")
        n_miss = int(missing[:, j].sum())
        report["missing"][judge] = n_miss
        if n_miss:
            add(missing[:, j].astype(float), f"judge:{judge}:missing", "missing")
    if pool.embedding is not None:
        emb = pool.embedding
        k = n_components if n_components is not None else min(32, emb.shape[1], pool.n_items - 1)
        if k < emb.shape[1]:
            pcs = PCA(n_components=k, random_state=seed).fit_transform(emb)
        else:
            pcs = emb - emb.mean(axis=0)
        for k_pc in range(pcs.shape[1]):
            add(pcs[:, k_pc], f"emb:pc{k_pc + 1}", "embedding")
        report["embedding_components"] = int(pcs.shape[1])
    X = np.column_stack(cols)
    return FeatureSet(
        X=X,
        names=names,
        blocks=blocks,
        judges=tuple(pool.judges),
        judge_missing=missing,
        report=report,
    )
