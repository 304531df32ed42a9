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

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.decomposition import PCA

from bacon_bayes.errors import ValidationError
from bacon_bayes.pool import EvalPool
from bacon_bayes.pool_checks import UNCERTAINTY_COLUMNS


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
    params, embedding
        What was learnt from the pool (clipping limits, fills, the embedding's PCA), for
        :func:`apply_features`.
    """

    X: np.ndarray
    names: list[str]
    blocks: dict[str, list[int]]
    judges: tuple[str, ...]
    judge_missing: np.ndarray
    report: dict[str, Any] = field(default_factory=dict)
    #: per column: the clipping limits and the fill of missing values learnt from the pool
    #: (NaN where none), so that :func:`apply_features` builds the same columns elsewhere
    params: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    #: the fitted PCA of the embedding, or its mean (centering only), or None
    embedding: Any = None

    def judge_block(self) -> np.ndarray:
        """Judge mean scores, items x judges (imputed where missing)."""
        return self.X[:, self.blocks["judge"]]


def check_winsor(winsor: Any) -> tuple[float, float]:
    """``winsor`` as two floats, refused unless quantiles ``0 <= lower < upper <= 1`` (a
    reversed or equal pair would clip every judge to a constant)."""
    try:
        lo, hi = (float(v) for v in winsor)
        ok = 0.0 <= lo < hi <= 1.0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValidationError(
            f"winsor {winsor!r} must be (lower, upper) quantiles at which judge scores are "
            "clipped, with 0 <= lower < upper <= 1: e.g. (0.005, 0.995), the default, or "
            "(0, 1) for no clipping."
        )
    return lo, hi


def _limits(x: np.ndarray, limits: tuple[float, float]) -> tuple[float, float]:
    obs = x[~np.isnan(x)]
    if obs.size == 0 or limits == (0.0, 1.0):
        return math.nan, math.nan
    lo, hi = np.quantile(obs, limits)
    return float(lo), float(hi)


def _clip(x: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, int]:
    if math.isnan(lo):
        return x, 0
    return np.clip(x, lo, hi), int(np.sum((x < lo) | (x > hi)))


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
        Quantiles at which judge features are clipped, ``0 <= lower < upper <= 1``
        (``(0, 1)`` turns it off; :func:`check_winsor`).
    n_components : int, optional
        PCA components of the embedding (default ``min(32, dim, N - 1)``).
    uncertainty : bool
        Include run-sd and token-uncertainty features when available.
    seed : int
        Seed of the randomised PCA solver.
    """
    return _build(pool, check_winsor(winsor), n_components, uncertainty, seed, None)


def apply_features(pool: EvalPool, like: FeatureSet) -> FeatureSet:
    """The columns of ``like``, a feature set built on another pool, for ``pool``: judge
    scores clipped at the limits and filled with the values learnt there, the
    embedding projected on its components, so that models fitted on ``like.X`` predict
    ``pool``'s items (a frozen surrogate).

    Raises
    ------
    ValidationError
        ``pool`` lacks a judge of ``like``, or its embedding where ``like`` has one.
    """
    absent = [j for j in like.judges if j not in pool.judges]
    if absent:
        raise ValidationError(absent_judges_text(absent, pool.judges))
    if like.embedding is not None and (
        pool.embedding is None or pool.embedding.shape[1] != _embedding_dim(like.embedding)
    ):
        raise ValidationError(
            f"the calibrator uses a {_embedding_dim(like.embedding)}-dimensional embedding; "
            "give the new pool the same embedding columns (--embedding PREFIX; embedding= in "
            "EvalPool.from_frame)"
        )
    return _build(pool, (0.0, 1.0), None, True, 0, like)


def absent_judges_text(absent: list[str], columns: Any, where: str = "the new pool") -> str:
    """Why a calibrator cannot score ``where``, which lacks its judges ``absent`` (its
    judges or columns: ``columns``): a column that is one of them spelled otherwise
    (``gpt-4`` for ``gpt4``) is named with the rename; no other judge is offered in its
    place, since the models learnt each judge's own scores."""
    names = [str(c) for c in columns]
    renames = [f"{c!r} for {j!r}" for j in absent for c in names if c != j and _key(c) == _key(j)]
    hint = (
        f"; spelled otherwise here: {', '.join(renames)} (if it is the same judge, rename "
        "the column to the calibrator's name)"
        if renames
        else ""
    )
    shown = ", ".join(map(repr, names[:12])) + (", ..." if len(names) > 12 else "")
    return (
        f"the calibrator was fitted with judge(s) {', '.join(map(repr, absent))} that "
        f"{where} does not have (it has {shown}){hint}; judges must match by name, and a "
        "judge cannot be left out of a saved calibrator: score the new items with the same "
        "judges, or fit a new calibrator"
    )


def _key(name: str) -> str:
    """A judge's name without case, spaces or punctuation (``GPT-4`` and ``gpt4`` alike)."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _embedding_dim(embedding: Any) -> int:
    return int(_projection(embedding)[0].size)


def _projection(embedding: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """An embedding transform as (mean, components or None: centering only)."""
    if isinstance(embedding, PCA):
        return embedding.mean_, embedding.components_
    if isinstance(embedding, tuple):
        return embedding
    return np.asarray(embedding), None


def feature_arrays(fs: FeatureSet) -> dict[str, np.ndarray]:
    """What :func:`apply_features` needs of ``fs``, as arrays (for saving)."""
    lo, hi, fill = (
        np.array([fs.params.get(n, (np.nan,) * 3)[i] for n in fs.names]) for i in range(3)
    )
    out = {"names": np.asarray(fs.names, dtype=str), "lo": lo, "hi": hi, "fill": fill}
    out["judges"] = np.asarray(fs.judges, dtype=str)
    if fs.embedding is not None:
        mean, comps = _projection(fs.embedding)
        out["embedding_mean"] = mean
        if comps is not None:
            out["embedding_components"] = comps
    return out


def from_arrays(arrays: dict[str, np.ndarray]) -> FeatureSet:
    """A feature set to :func:`apply_features` from :func:`feature_arrays`' output (its
    matrix is empty)."""
    names = [str(n) for n in arrays["names"]]
    params = {
        n: (float(lo), float(hi), float(f))
        for n, lo, hi, f in zip(names, arrays["lo"], arrays["hi"], arrays["fill"], strict=True)
    }
    embedding = None
    if "embedding_mean" in arrays:
        embedding = (arrays["embedding_mean"], arrays.get("embedding_components"))
    judges = tuple(str(j) for j in arrays["judges"])
    empty = np.zeros((0, len(names)))
    return FeatureSet(
        empty, names, {}, judges, np.zeros((0, len(judges)), bool), {}, params, embedding
    )


def _build(
    pool: EvalPool,
    winsor: tuple[float, float],
    n_components: int | None,
    uncertainty: bool,
    seed: int,
    like: FeatureSet | None,
) -> FeatureSet:
    cols: list[np.ndarray] = []
    names: list[str] = []
    blocks: dict[str, list[int]] = {"judge": [], "uncertainty": [], "missing": [], "embedding": []}
    report: dict[str, Any] = {"missing": {}, "winsorised": {}}
    params: dict[str, tuple[float, float, float]] = {}
    judges = tuple(pool.judges) if like is None else like.judges

    def add(values: np.ndarray, name: str, block: str) -> None:
        blocks[block].append(len(names))
        cols.append(values.astype(float))
        names.append(name)

    def wanted(name: str, present: bool) -> bool:
        return present if like is None else name in like.names

    def clipped(x: np.ndarray, name: str, fill: bool) -> tuple[np.ndarray, int]:
        """``x`` clipped (and its NaN filled) as learnt from this pool, or from ``like``'s."""
        if like is not None:
            lo, hi, value = like.params[name]
            v, n = _clip(x, lo, hi)
        else:
            lo, hi = _limits(x, winsor)
            v, n = _clip(x, lo, hi)
            value = float(np.nanmean(v)) if fill and not np.isnan(v).all() else math.nan
        params[name] = (lo, hi, value)
        return (np.where(np.isnan(v), value, v) if fill else v), n

    matrix = pool.judge_matrix("mean")
    means = matrix[list(judges)].to_numpy(dtype=float)
    missing = np.isnan(means)
    multi_run = pool.max_runs() > 1
    sds = (
        pool.judge_matrix("std")[list(judges)].to_numpy(dtype=float)
        if multi_run and uncertainty
        else np.full_like(means, np.nan)
    )
    extra = {
        c: pool.judge_scores.groupby(["pos", "judge"], sort=False)[c]
        .mean()
        .unstack("judge")
        .reindex(index=np.arange(pool.n_items), columns=list(judges))
        .to_numpy(dtype=float)
        if c in pool.judge_scores.columns
        else np.full_like(means, np.nan)
        for c in UNCERTAINTY_COLUMNS
        if uncertainty
    }
    for j, judge in enumerate(judges):
        m, n_clip = clipped(means[:, j], f"judge:{judge}:mean", fill=True)
        report["winsorised"][judge] = n_clip
        add(m, f"judge:{judge}:mean", "judge")
    for j, judge in enumerate(judges):
        name = f"judge:{judge}:sd"
        if wanted(name, multi_run and uncertainty):
            sd, _ = clipped(np.where(np.isnan(sds[:, j]), 0.0, sds[:, j]), name, fill=False)
            add(sd, name, "uncertainty")
            add((sd > 0).astype(float), f"judge:{judge}:has_var", "uncertainty")
        for c, mat in extra.items():
            name = f"judge:{judge}:{c}"
            if wanted(name, not np.isnan(mat[:, j]).all()):
                add(clipped(mat[:, j], name, fill=True)[0], name, "uncertainty")
        n_miss = int(missing[:, j].sum())
        report["missing"][judge] = n_miss
        if wanted(f"judge:{judge}:missing", n_miss > 0):
            add(missing[:, j].astype(float), f"judge:{judge}:missing", "missing")
        elif n_miss:  # scored by the judge everywhere in the calibrator's pool
            report.setdefault("imputed_without_indicator", {})[judge] = n_miss
    embedding = None
    if (pool.embedding is not None and like is None) or (like and like.embedding is not None):
        emb = pool.embedding
        assert emb is not None
        k = min(32, emb.shape[1], pool.n_items - 1) if n_components is None else n_components
        if like is not None:
            embedding = like.embedding
            mean, comps = _projection(embedding)
            pcs = emb - mean if comps is None else (emb - mean) @ comps.T
        elif k < emb.shape[1]:
            embedding = PCA(n_components=k, random_state=seed)
            pcs = embedding.fit_transform(emb)
        else:
            embedding = emb.mean(axis=0)
            pcs = emb - embedding
        for k_pc in range(pcs.shape[1]):
            add(pcs[:, k_pc], f"emb:pc{k_pc + 1}", "embedding")
        report["embedding_components"] = int(pcs.shape[1])
    return FeatureSet(
        X=np.column_stack(cols),
        names=names,
        blocks=blocks,
        judges=judges,
        judge_missing=missing,
        report=report,
        params=params,
        embedding=embedding,
    )
