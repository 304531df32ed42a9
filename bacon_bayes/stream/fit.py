"""Fitting on the labeled rows of a stream, and the second pass: features with the
statistics of the first pass, fold-model predictions and their sums per group (for
ridge fold models, the same sums from the first pass alone: :func:`first_pass_sums`).

The fit equals the in-memory one (:meth:`bacon_bayes.Calibrator.fit`) on the same pool:
the features use the same winsorising bounds, imputation values and missing-score
indicators (learnt over all items in the first pass), the folds are the same (the seeded
permutation of the labeled items, in row order) and each fold model is trained on the
same rows. An unlabeled item's surrogate is the same share-weighted average of the fold
models (:mod:`bacon_bayes.crossfit`); a labeled item's is its out-of-fold prediction.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from bacon_bayes import surrogates as sur
from bacon_bayes.arguments import drawn_seed
from bacon_bayes.calibrator import Calibrator
from bacon_bayes.crossfit import CrossFitResult, cross_fit, make_folds, summed_cdf
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.quantile import quantile_grid
from bacon_bayes.features import FeatureSet
from bacon_bayes.items import (
    class_probabilities,
    conformal_halfwidth,
    conformal_quantile,
    conformal_sets,
    group_scales,
    likelihood_ratio,
    set_columns,
    snap_to_levels,
    unequal,
)
from bacon_bayes.model_choice import resolve_model
from bacon_bayes.outcome.ridge import RidgeOutcome
from bacon_bayes.pool import EvalPool
from bacon_bayes.scale import is_binary, label_bounds, with_binary_note
from bacon_bayes.stream.scan import LabeledRows, Scan, exact_quantile
from bacon_bayes.stream.source import Chunk, Columns

#: fold models fitted at once (threads; one BLAS thread each)
THREADS = min(4, os.cpu_count() or 1)


@dataclass(frozen=True)
class FeatureStats:
    """Per judge: winsorising bounds, imputation value and missing count, learnt over all
    items; :meth:`transform` builds the rows of :func:`~bacon_bayes.features.build_features`
    (wide judge columns, one run each, no embedding)."""

    judges: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray
    fill: np.ndarray
    missing: np.ndarray
    winsorised: np.ndarray
    #: per group of the first pass (``Scan.names``), the sum of each judge's clipped
    #: observed scores (groups x judges)
    clipped: np.ndarray | None = None

    @classmethod
    def from_scan(cls, scan: Scan, judges: tuple[str, ...], winsor: tuple[float, float]):
        J, G = len(judges), scan.names.size
        low, high = np.full(J, -np.inf), np.full(J, np.inf)
        clipped, count = np.array(scan.stats["total"], dtype=float), np.zeros(J, dtype=int)
        n_obs = np.asarray(scan.n_obs, dtype=int)
        for j, judge in enumerate(judges):
            n = int(n_obs[j])
            if n == 0:
                raise ValidationError(
                    f"judge column {judge!r} has no score at all; drop it from the judges."
                )
            if tuple(winsor) != (0.0, 1.0):
                ends = ((scan.low[j], winsor[0], low), (scan.high[j], winsor[1], high))
                for tail, q, bounds in ends:
                    v, g = tail.union()  # every score beyond the bound is in it
                    bound = bounds[j] = exact_quantile(v, n, q, lowest=tail.lowest)
                    out = np.flatnonzero(v < bound if tail.lowest else v > bound)
                    # clip(x) = x + (bound - x) beyond the bound
                    clipped[:, j] += np.bincount(g[out], bound - v[out], minlength=G)
                    count[j] += out.size
        fill = clipped.sum(axis=0) / n_obs
        missing = scan.n_rows - n_obs
        return cls(tuple(judges), low, high, fill, missing, count, clipped)

    @property
    def names(self) -> list[str]:
        miss = [f"judge:{j}:missing" for j, n in zip(self.judges, self.missing, strict=True) if n]
        return [f"judge:{j}:mean" for j in self.judges] + miss

    def transform(self, scores: np.ndarray) -> np.ndarray:
        """Feature rows of raw judge scores (rows x judges, NaN = missing), column-major."""
        absent = np.isnan(scores)
        J, miss = len(self.judges), np.flatnonzero(self.missing)
        X = np.empty((scores.shape[0], J + miss.size), order="F")
        np.clip(scores, self.low, self.high, out=X[:, :J])
        np.copyto(X[:, :J], self.fill, where=absent)
        X[:, J:] = absent[:, miss]
        return X

    def feature_set(self, scores: np.ndarray) -> FeatureSet:
        J = len(self.judges)
        n_miss = int((self.missing > 0).sum())
        return FeatureSet(
            X=self.transform(scores),
            names=self.names,
            blocks={
                "judge": list(range(J)),
                "uncertainty": [],
                "missing": list(range(J, J + n_miss)),
                "embedding": [],
            },
            judges=self.judges,
            judge_missing=np.isnan(scores),
            report=self.report(),
        )

    def report(self) -> dict[str, Any]:
        return {
            "missing": {j: int(n) for j, n in zip(self.judges, self.missing, strict=True)},
            "winsorised": {j: int(n) for j, n in zip(self.judges, self.winsorised, strict=True)},
        }


@dataclass
class StreamModel:
    """What every chunk of the second pass needs (shipped once to Dask workers): feature
    statistics, fold models, pool-level fold shares, the quantile grid, and the labeled
    rows' folds and out-of-fold surrogates (for written item scores)."""

    features: FeatureStats
    models: list[Any]
    weights: np.ndarray
    grid: np.ndarray | None
    lab_rows: np.ndarray
    lab_score: np.ndarray
    halfwidth: float | None = None
    levels: np.ndarray | None = None
    #: the label's range, which written item intervals are intersected with
    bounds: tuple[float, float] = (-np.inf, np.inf)
    #: weighted conformal intervals (labels drawn with unequal propensities): the labeled
    #: rows' absolute out-of-fold residuals and ``(1 - pi) / pi``, the level, and the
    #: propensity of a row without one (the smallest recorded), as in memory
    weighted: tuple[np.ndarray, np.ndarray, float, float] | None = None
    #: a categorical label's split-conformal class sets, as in memory
    #: (:func:`~bacon_bayes.items.conformal_sets`): the sorted levels, the labeled rows'
    #: out-of-fold class probabilities and those of their own class, the level
    class_sets: tuple[np.ndarray, np.ndarray, np.ndarray, float] | None = None
    #: conformal intervals with each group's residual scale
    #: (:func:`~bacon_bayes.items.group_scales`): the labeled groups' names, their scales,
    #: and the scale of a group without labels; ``halfwidth``/``weighted`` are then of the
    #: scaled residuals
    item_scale: tuple[pd.Index, np.ndarray, float] | None = None

    linear: tuple[np.ndarray, np.ndarray] | None = None

    def predictions(self, X: np.ndarray) -> list[np.ndarray]:
        """Each fold model's prediction of the rows ``X``."""
        if self.linear is not None:
            W, b = self.linear
            both = X @ W + b
            return [both[:, k] for k in range(W.shape[1])]
        return [np.asarray(m.predict(X), dtype=float) for m in self.models]

    def surrogate(self, X: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """Fold-average surrogate (pool shares) and each fold model's prediction."""
        preds = self.predictions(X)
        return sum(w * p for w, p in zip(self.weights, preds, strict=True)), preds


def linear_form(models: list[Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """``(W, b)`` with ``X @ W[:, k] + b[k]`` the prediction of fold model ``k`` when all
    are ridge models on standardised features (sums of predictions over many rows then
    follow from column sums of ``X``); None otherwise."""
    if not models or not all(isinstance(m, RidgeOutcome) for m in models):
        return None
    cols, consts = [], []
    for m in models:
        scaler, ridge = m.scaler_, m.ridge_
        if np.ndim(ridge.coef_) != 1 or not (scaler.with_mean and scaler.with_std):
            return None
        w = ridge.coef_ / scaler.scale_
        cols.append(w)
        consts.append(float(ridge.intercept_) - float(scaler.mean_ @ w))
    return np.column_stack(cols), np.array(consts)


@dataclass
class Sums:
    """Second-pass statistics: per group, the unlabeled items' count and each fold
    model's summed prediction (columns ``p0..``); the fold models' summed predictive CDF
    on the grid over unlabeled items (K x T) when quantiles are asked."""

    groups: pd.DataFrame
    cdf: np.ndarray | None = None
    n_rows: int = 0

    def merge(self, other: Sums) -> Sums:
        groups = self.groups.add(other.groups, fill_value=0.0)
        cdf = None if self.cdf is None or other.cdf is None else self.cdf + other.cdf
        return Sums(groups, cdf, self.n_rows + other.n_rows)


def first_pass_sums(scan: Scan, model: StreamModel) -> Sums | None:
    """The second pass's :class:`Sums` from the first pass alone, when the fold models
    are linear (ridge) and no predictive CDF is needed (None otherwise).

    A linear model's summed predictions over a group's unlabeled items follow from the
    group's column sums of the features: the clipped scores' sums
    (:attr:`FeatureStats.clipped`), the imputation value times the missing scores, the
    missing indicators' counts, less the labeled rows' own features."""
    feats = model.features
    if model.linear is None or model.grid is not None or feats.clipped is None:
        return None
    st, G = scan.stats, scan.names.size
    missing = st["n"][:, None] - st["obs"]
    S = np.hstack([feats.clipped + missing * feats.fill, missing[:, feats.missing > 0]])
    lab = scan.labeled
    codes = (
        np.zeros(len(lab), dtype=np.intp)
        if lab.groups is None
        else pd.Index(scan.names).get_indexer(lab.groups)
    )
    S -= _column_sums(codes, feats.transform(lab.scores), G)
    n_unl = st["n"] - np.bincount(codes, minlength=G)
    W, b = model.linear
    table = pd.DataFrame(
        S @ W + n_unl[:, None] * b,
        index=pd.Index(scan.names, name="group"),
        columns=[f"p{k}" for k in range(W.shape[1])],
    )
    table["n_unlabeled"] = n_unl.astype(float)
    return Sums(table, None, scan.n_rows)


def _column_sums(codes: np.ndarray, X: np.ndarray, G: int) -> np.ndarray:
    """Per group, the sum of each column of ``X`` (G x columns)."""
    return np.column_stack(
        [np.bincount(codes, weights=X[:, c], minlength=G) for c in range(X.shape[1])]
    )


def predict_chunk(
    chunk: Chunk, model: StreamModel, items: bool = False
) -> tuple[Sums, pd.DataFrame | None]:
    """Second-pass statistics of one chunk, and its item scores when ``items``."""
    X = model.features.transform(chunk.scores)
    unl = np.isnan(chunk.y)
    lab = ~unl
    codes = np.zeros(unl.size, dtype=np.intp) if chunk.codes is None else chunk.codes
    names = np.array([""]) if chunk.names is None else chunk.names
    G, K = names.size, len(model.models)
    n_unl = np.bincount(codes, weights=unl, minlength=G)
    if model.linear is not None and not items:
        W, b = model.linear  # sums of linear predictions: from column sums of X
        S = _column_sums(codes, X, G)
        if lab.any():
            S -= _column_sums(codes[lab], X[lab], G)
        P = S @ W + n_unl[:, None] * b
        score = preds = None
    else:
        score, preds = model.surrogate(X)
        P = np.column_stack(
            [np.bincount(codes, weights=np.where(unl, p, 0.0), minlength=G) for p in preds]
        )
    table = pd.DataFrame(
        P, index=pd.Index(names, name="group"), columns=[f"p{k}" for k in range(K)]
    )
    table["n_unlabeled"] = n_unl
    table = table[np.bincount(codes, minlength=G) > 0]
    if table.index.has_duplicates:
        table = table.groupby(level=0, sort=False).sum()
    cdf = None
    if model.grid is not None:
        Xu = X[unl]
        cdf = np.array([summed_cdf(m, Xu, model.grid) for m in model.models])
    sums = Sums(table, cdf, int(chunk.rows.size))
    if not items or score is None:
        return sums, None
    lab = ~unl
    if lab.any():
        pos = np.searchsorted(model.lab_rows, chunk.rows[lab])
        score[lab] = model.lab_score[pos]
    out = pd.DataFrame({"item": chunk.rows if chunk.items is None else chunk.items})
    groups = chunk.group_of_rows()
    if groups is not None:
        out["group"] = groups
    out["score"] = score
    if model.class_sets is not None:
        _write_class_sets(out, chunk, model, X, lab)
    elif model.halfwidth is not None or model.weighted is not None:
        half: Any = model.halfwidth
        if model.weighted is not None:
            resid, weights, level, floor = model.weighted
            pi = np.full(score.size, np.nan) if chunk.pi is None else chunk.pi
            half = conformal_quantile(resid, level, weights, likelihood_ratio(pi, floor))
        if model.item_scale is not None:
            names, by_group, other = model.item_scale
            at = names.get_indexer(np.asarray(groups).astype(str))
            half = half * np.where(at >= 0, by_group[np.maximum(at, 0)], other)
        lo, hi = score - half, score + half
        if model.levels is not None:
            lo, hi = snap_to_levels(lo, hi, model.levels)
        out["lower"], out["upper"] = np.clip(lo, *model.bounds), np.clip(hi, *model.bounds)
        out["score"] = np.clip(score, *model.bounds)  # within the label's range, as in memory
    out["labeled"] = lab
    out["label"] = chunk.y
    return sums, out


def _write_class_sets(
    out: pd.DataFrame, chunk: Chunk, model: StreamModel, X: np.ndarray, lab: np.ndarray
) -> None:
    """A categorical label's class sets of one chunk's items into ``out`` (``lower``,
    ``upper``, ``set``, ``set_prob``), as ``Calibrator.item_scores`` gives them: labeled
    rows from their out-of-fold class probabilities, the others from the fold models'
    share-weighted predictive CDF, weighted by the propensities where they differ."""
    assert model.class_sets is not None
    lv, lab_probs, lab_true, level = model.class_sets
    cdf = sum(
        w * np.asarray(m.predict_cdf(X, lv), dtype=float)
        for w, m in zip(model.weights, model.models, strict=True)
    )
    probs = class_probabilities(np.asarray(cdf))
    if lab.any():
        probs[lab] = lab_probs[np.searchsorted(model.lab_rows, chunk.rows[lab])]
    weights = None
    if model.weighted is not None:
        _, ratio, _, floor = model.weighted
        pi = np.full(lab.size, np.nan) if chunk.pi is None else chunk.pi
        weights = (ratio, likelihood_ratio(pi, floor))
    keep = conformal_sets(probs, lab_true, level, weights)
    sets, set_prob, out["lower"], out["upper"] = set_columns(probs, keep, lv)
    out["set"], out["set_prob"] = sets, set_prob


@dataclass
class StreamFit:
    """The fitted stream: the shipped :class:`StreamModel`, the labeled pool (its
    outcome type and the labeled rows' arrays), the cross-fit on the labeled rows and
    the calibrator settings the estimates use."""

    model: StreamModel
    pool: EvalPool
    labeled: LabeledRows
    crossfit: CrossFitResult
    calibrator: Calibrator
    model_name: str
    engine: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: extra surrogates combined with the model's (:mod:`bacon_bayes.surrogates`; the
    #: judge mean only: its sums over the pool come from the first pass)
    extras: tuple[str, ...] = ()
    #: the seed of the folds and the bootstrap: the calibrator's, or the one its
    #: ``seed=None`` drew (as ``Calibrator.seed_``)
    seed: int = 0

    @property
    def surrogate_names(self) -> tuple[str, ...]:
        """The surrogates the AEE means combine (as ``Calibrator.surrogate_names_``)."""
        return (f"{self.model_name} ({self.engine})", *self.extras)

    def labeled_surrogates(self) -> np.ndarray:
        """The labeled rows' surrogates: the out-of-fold model's (n,), or (n, 1 + k)
        with the extras (the judge mean: the raw average of the row's scores)."""
        if not self.extras:
            return self.crossfit.mean
        return np.column_stack([self.crossfit.mean, np.nanmean(self.labeled.scores, axis=1)])

    @property
    def bounds(self) -> tuple[float, float]:
        return label_bounds(self.pool.outcome, self.calibrator.scale)


def labeled_pool(lab: LabeledRows, columns: Columns, outcome: str, levels: Any) -> EvalPool:
    """The labeled rows as a validated pool (ids: the item column or the global row)."""
    if len(lab) == 0:
        raise ValidationError(
            f"no row of the dataset has a label in column {columns.label!r}; label some items."
        )
    frame = pd.DataFrame(lab.scores, columns=list(columns.judges))
    frame["__label"] = lab.y
    frame.index = pd.Index(lab.rows if lab.items is None else lab.items)
    if lab.groups is not None:
        frame["__group"] = lab.groups
    if lab.pi is not None:
        frame["__pi"] = lab.pi
    return EvalPool.from_frame(
        frame,
        label="__label",
        judges=list(columns.judges),
        outcome=outcome,
        levels=levels,
        group="__group" if lab.groups is not None else None,
        propensity="__pi" if lab.pi is not None else None,
    )


def fit_stream(
    scan: Scan,
    columns: Columns,
    calibrator: Calibrator,
    *,
    outcome: str | None,
    levels: Any = None,
    quantiles: bool = False,
    item_level: float | None = None,
) -> StreamFit:
    """Fit the fold models on the labeled rows with the first pass's feature statistics.

    ``outcome`` None: guessed from the labels as in memory (0 and 1 only: binary,
    categorical, said in the notes; else continuous). ``quantiles``: fix the grid of the
    predictive CDF (the levels, or quantiles of the labels and of the labeled items'
    out-of-fold surrogates). ``item_level``: the coverage of written item intervals
    (split-conformal half-width).
    """
    lab = scan.labeled
    guessed = outcome is None and is_binary(lab.y)  # as scale.guess_outcome in memory
    outcome = "categorical" if guessed else outcome or "continuous"
    with ThreadPoolExecutor(1) as side:  # the pool's checks beside the feature statistics
        pool_job = side.submit(labeled_pool, lab, columns, outcome, levels)
        feats = FeatureStats.from_scan(scan, columns.judges, calibrator.winsor)
        pool = replace(pool_job.result(), label_name=columns.label)
    calibrator._check_scale(pool)
    fs = feats.feature_set(lab.scores)
    model, name, engine = resolve_model(calibrator, pool, fs)
    extras = sur.resolve(calibrator.surrogates, name, engine)
    for extra in extras:
        if extra != sur.JUDGE_MEAN:
            raise ValidationError(
                f"surrogate {extra!r} is not streamed (only {sur.JUDGE_MEAN!r}); drop it "
                "from surrogates or estimate in memory."
            )
    budget_note = _small_budget(calibrator, engine, len(lab), fs.X.shape[1])
    seed = drawn_seed(calibrator.seed)  # seed=None: drawn here, kept as the fit's seed
    fold_ids = make_folds(np.ones(len(lab), dtype=bool), calibrator.folds, seed)
    with threadpool_limits(1, user_api="blas"):  # small problems: threads cost more
        cf = cross_fit(model, fs.X, lab.y, fold_ids=fold_ids, pi=lab.pi, threads=THREADS)
    levels_arr = None if pool.outcome.levels is None else np.asarray(pool.outcome.levels)
    bounds = label_bounds(pool.outcome, calibrator.scale)  # the range's ends, as in memory
    grid = quantile_grid(pool.outcome, lab.y, cf.mean, bounds) if quantiles else None
    half, weighted, item_scale = None, None, None
    resid = lab.y - cf.mean
    if item_level is not None and lab.groups is not None:  # each group's scale, as in memory
        names, g_lab = np.unique(lab.groups.astype(str), return_inverse=True)
        by_group, own = group_scales(resid, g_lab, names.size)
        item_scale = (pd.Index(names), by_group, float(np.sqrt(np.mean(resid**2))))
        resid = resid / own
    if item_level is not None and lab.pi is not None and unequal(*scan.pi_range):
        floor = scan.pi_range[0]
        ratio = likelihood_ratio(lab.pi, floor)
        weighted = (np.abs(resid), ratio, item_level, floor)
        conformal_quantile(weighted[0], item_level)  # too few labels: refused here
    elif item_level is not None:
        half = conformal_halfwidth(resid, item_level)
    class_sets = None
    if item_level is not None and pool.outcome.kind == "categorical":
        assert levels_arr is not None
        lv = np.sort(levels_arr.astype(float))
        probs = class_probabilities(cf.cdf(lv))
        true = probs[np.arange(len(lab)), np.searchsorted(lv, lab.y)]
        conformal_quantile(1.0 - true, item_level)  # too few labels: refused here
        class_sets = (lv, probs, true, item_level)
    shipped = StreamModel(
        features=feats,
        models=list(cf.models),
        weights=cf.weights,
        grid=grid,
        lab_rows=lab.rows,
        lab_score=cf.mean,
        halfwidth=half,
        weighted=weighted,
        item_scale=item_scale,
        class_sets=class_sets,
        levels=levels_arr,
        bounds=bounds,
        linear=linear_form(list(cf.models)),
    )
    notes = with_binary_note(pool.notes, columns.label) if guessed else pool.notes
    notes = (*notes, budget_note) if budget_note else notes
    return StreamFit(shipped, pool, lab, cf, calibrator, name, engine, notes, extras, seed)


def _small_budget(calibrator: Calibrator, engine: str, n_labels: int, n_coef: int) -> str | None:
    """Where the frequentist small-budget rule (:func:`bacon_bayes.surrogates.freq_default`)
    would give the in-memory estimate the judges' leave-one-out ridge, which is not
    streamed: refused when asked for by name (``surrogates=["small-budget"]``), else the
    note that says the streamed AEE means use the model's surrogate instead. None when
    the rule would keep the model's surrogate (the two estimates then agree)."""
    asked = calibrator.surrogates is not None and sur.SMALL_BUDGET in calibrator.surrogates
    by_rule = calibrator.surrogates is None or asked
    if engine != "freq" or not calibrator.power_tuning or not by_rule:
        return None
    if not sur.freq_default(n_labels, n_coef):
        return None
    why = (
        f"{n_labels} labels are {n_labels / max(n_coef, 1):.1f} per model coefficient, "
        f"below {sur.ALONE_BELOW:g}, where the small-budget rule uses the judges' "
        f"leave-one-out ridge ({sur.JUDGE_RIDGE}) alone, which is not streamed"
    )
    if asked:
        raise ValidationError(
            f"surrogates {sur.SMALL_BUDGET!r} (--surrogates {sur.SMALL_BUDGET}): {why}. "
            "Estimate in memory (one table, without --chunk-rows/--scheduler) "
            "for that rule, or pass --surrogates none for the model's surrogate alone."
        )
    return (
        f"AEE means from the model's surrogate alone: {why} (the in-memory estimate of "
        "this table would use it: one table, without --chunk-rows/--scheduler; "
        "--surrogates none gives this one in memory)"
    )
