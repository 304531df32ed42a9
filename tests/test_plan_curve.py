"""The judge model's learning curve in ``bacon plan`` (:mod:`bacon_bayes.planning.curve`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bacon_bayes.crossfit import cross_fit
from bacon_bayes.outcome.ridge import RidgeOutcome
from bacon_bayes.planning import Goal, pilot_statistics, plan, predict
from bacon_bayes.planning.curve import learning_curve

from .test_plan import pilot_pool, synthetic

P = 8  # features of the synthetic linear table


def _linear(n_items: int = 4000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_items, P))
    beta = np.linspace(1.0, 0.2, P)
    return X, X @ beta + rng.normal(size=n_items)  # residual variance a = 1


def _oof_variance(X: np.ndarray, y: np.ndarray, n: int, seed: int) -> float:
    """5-fold out-of-fold residual variance of a ridge on ``n`` random labels."""
    rng = np.random.default_rng(seed)
    yy = np.full(y.size, np.nan)
    idx = rng.choice(y.size, n, replace=False)
    yy[idx] = y[idx]
    fit = cross_fit(RidgeOutcome(), X, yy, folds=5, seed=seed)
    return float(np.mean((y[idx] - fit.mean[idx]) ** 2))


def test_curve_recovers_a_plus_b_over_m():
    """Linear labels, 8 features, unit noise: the 5-fold out-of-fold variance of a ridge
    (Monte Carlo, 60 draws a budget) is 1.41 at 40 labels, 1.20 at 80, 1.13 at 200, 1.07
    at 400, about ``a + b / m`` with ``a`` near 1 and ``b`` near 11 (``m``: 4/5 of the
    labels). From 40-label pilots the curve's ``a`` is within 20% of 1 and, averaged over
    60 pilots, its variance at 80, 200 and 400 labels makes between 40% and 100% of the
    true drop from 40 labels: it moves toward the truth and never past it (it falls short
    where the penalty chosen at 40 labels relaxes with more: the df grows with the
    budget). A flat plan (today's) makes 0%, an overshoot more than 100%."""
    X, y = _linear()
    rng = np.random.default_rng(1)
    pred: dict[int, list[float]] = {n: [] for n in (80, 200, 400)}
    a, levels = [], []
    for k in range(60):
        idx = rng.choice(y.size, 40, replace=False)
        yy = np.full(y.size, np.nan)
        yy[idx] = y[idx]
        fit = cross_fit(RidgeOutcome(), X, yy, folds=5, seed=k)
        level = float(np.mean((y[idx] - fit.mean[idx]) ** 2))
        curve, why = learning_curve(fit, level)
        assert curve is not None, why
        assert curve.m0 == pytest.approx(32.0)
        a.append(curve.a)
        levels.append(level)
        for n in pred:
            pred[n].append(level * curve.ratio(n))
    truth = {n: np.mean([_oof_variance(X, y, n, 100 + k) for k in range(60)]) for n in (40, *pred)}
    assert truth[400] < 0.8 * truth[40]  # the model does improve
    for n in pred:
        share = (np.mean(levels) - np.mean(pred[n])) / (truth[40] - truth[n])
        assert 0.4 < share < 1.0, (n, share)
    assert np.mean(a) == pytest.approx(1.0, abs=0.2)


def test_ratio_never_inflates_below_the_pilot_size():
    X, y = _linear()
    yy = np.where(np.arange(y.size) < 60, y, np.nan)
    curve, _ = learning_curve(cross_fit(RidgeOutcome(), X, yy, folds=5, seed=0), 1.0)
    assert curve is not None
    assert curve.ratio(30) == 1.0 and curve.ratio(60) == pytest.approx(1.0)
    assert curve.ratio(120) < curve.ratio(80) < 1.0


def test_a_tiny_pilot_falls_back_to_its_own_variance():
    """10 labels (fold models on 8, under MIN_TRAIN_LABELS): no curve, the plan says so,
    and its predictions are today's (the pilot's variance at every budget)."""
    frame = synthetic(prompts=50, seed=6)
    pool = pilot_pool(frame, 10 / len(frame), prompt=False)
    st = pilot_statistics(pool)
    assert st.curve is None
    assert any("no learning curve" in a and "effective df" in a for a in st.assumptions)
    assert st.to_dict()["residual_variance_curve"] is None
    res = plan(pool, Goal("half-width", half_width=0.2), designs=("uniform",))
    assert res.recommended == "uniform"
    p = predict(st, "uniform", 100)
    assert p.var_pool == pytest.approx((1 - 100 / st.n_items) / 100 * st.s2_pool)


def test_a_model_without_a_known_df_falls_back():
    class Mean:
        def fit(self, X, y):
            self.m_ = float(np.mean(y))
            return self

        def predict(self, X):
            return np.full(len(X), self.m_)

        def get_params(self, deep=True):
            return {}

    X, y = _linear()
    yy = np.where(np.arange(y.size) < 60, y, np.nan)
    curve, why = learning_curve(cross_fit(Mean(), X, yy, folds=5, seed=0), 1.0)
    assert curve is None and "Mean" in why


def test_the_plan_scales_variances_by_the_curve_and_says_so():
    """A 10% pilot: the prediction at 3x its labels is the pilot's variance times the
    curve's ratio (below 1), the assumption and the JSON name the curve."""
    frame = synthetic(prompts=100, seed=2)
    pool = pilot_pool(frame, 0.1, prompt=False)
    st = pilot_statistics(pool)
    assert st.curve is not None
    n = 3 * st.n_labeled
    flat = replace(st, curve=None, cache={})
    ratio = st.curve.ratio(n)
    assert 0.5 < ratio < 1.0
    for design in ("uniform", "stratified"):
        p, q = predict(st, design, n), predict(flat, design, n)
        assert p.var_pool == pytest.approx(ratio * q.var_pool)
        assert np.allclose(p.cov, ratio * q.cov)
    assert st.to_dict()["residual_variance_curve"]["df"] == pytest.approx(st.curve.df)
    res = plan(pool, Goal("half-width", half_width=0.1), designs=("uniform",))
    assert any("learning curve" in a and "recommended" in a for a in res.pilot.assumptions)
