"""Convergence checks: a real sampler on a deliberately bad geometry must warn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bacon_bayes.bayes.diagnostics import ConvergenceWarning, check_convergence
from bacon_bayes.bayes.nuts import compile_sampler


def test_funnel_geometry_warns_with_advice():
    """Neal's funnel (centred, scale prior wide) makes NUTS diverge and mix badly."""
    import pymc as pm

    with pm.Model() as funnel:
        pm.Data("unused", np.zeros(1))
        log_sd = pm.Normal("log_sd", 0.0, 3.0)
        pm.Normal("x", 0.0, pm.math.exp(log_sd), shape=9)
    sampler = compile_sampler(funnel, "auto")
    idata, secs = sampler.run({}, draws=200, tune=100, chains=2, seed=1, low_rank=False)
    with pytest.warns(ConvergenceWarning, match="R-hat .* run more tuning"):
        diag = check_convergence(idata, sampler=sampler.engine, seconds=secs)
    assert diag.max_rhat > 1.01 and not diag.ok
    assert diag.to_dict()["ok"] is False


def test_good_fit_is_silent(gaussian_folds):
    fit = gaussian_folds[0][0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        diag = check_convergence(fit.idata_, sampler=fit.diagnostics_.sampler, seconds=1.0)
    assert diag.ok and diag.max_rhat <= 1.01
