"""Calibrator with the Bayesian engine, end to end on the shipped SummEval sample."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes import Calibrator
from bacon_bayes.demo import summeval_pool


@pytest.mark.slow
def test_bayes_engine_is_valid_and_at_least_as_precise_as_freq():
    pool, truth = summeval_pool("relevance", 0.2, seed=3)
    bayes = Calibrator(model="gaussian", engine="bayes", seed=0).fit(pool)
    freq = Calibrator(model="gaussian", engine="freq", seed=0).fit(pool)
    assert bayes.engine_ == "bayes" and freq.engine_ == "freq"
    mb, mf = bayes.estimate_mean(), freq.estimate_mean()
    assert mb.ci_low <= truth <= mb.ci_high
    assert mb.se <= 1.05 * mf.se
    lab = pool.labeled
    r2 = {}
    for name, cal in (("bayes", bayes), ("freq", freq)):
        pred = cal.crossfit_.mean[lab]
        r2[name] = 1 - np.mean((pool.y[lab] - pred) ** 2) / np.var(pool.y[lab])
    assert r2["bayes"] >= r2["freq"] - 0.02, r2
    for fit in bayes.crossfit_.models:
        assert fit.diagnostics_.ok, fit.diagnostics_
