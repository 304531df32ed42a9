"""Hurdle judge model fitted by NUTS on simulated zero-inflated data (slow)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bacon_bayes.bayes import HurdleJudgeModel
from bacon_bayes.simulation.judges import simulate_judges


@pytest.mark.slow
def test_hurdle_fit_converges_and_predicts_zeros_and_means():
    sim = simulate_judges(1500, 5, 3, family="hurdle", seed=21)
    y = sim.y.copy()
    y[400:] = np.nan
    fit = HurdleJudgeModel(sim.columns, draws=800, seed=1).fit(sim.X, y)
    assert fit.diagnostics_.ok, fit.diagnostics_
    X, truth = sim.X[400:], sim.y[400:]
    mean, var = fit.predict_moments(X)
    assert stats.spearmanr(mean, truth)[0] > 0.6
    # calibrated zero probability and mean, over the held-out items
    p0 = fit.predict_cdf(X, [0.0])[:, 0]
    n0 = np.sum(truth == 0)
    assert abs(n0 - p0.sum()) < 4 * np.sqrt(p0.sum()) + 5
    assert abs(truth.mean() - mean.mean()) < 4 * np.sqrt(var.mean() / truth.size)
