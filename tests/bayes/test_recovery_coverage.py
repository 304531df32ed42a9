"""Repeated-simulation coverage of the 90% posterior intervals of judge offsets and scales."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bacon_bayes.bayes import GaussianJudgeModel
from bacon_bayes.bayes.bias import judge_bias
from bacon_bayes.bayes.simulate import simulate_judges

REPS, JUDGES = 25, 4


@pytest.mark.slow
def test_offset_and_scale_intervals_cover_at_nominal_rate():
    hits = []
    for rep in range(REPS):
        sim = simulate_judges(800, JUDGES, 3, family="gaussian", seed=1000 + rep)
        y = sim.y.copy()
        y[200:] = np.nan
        fit = GaussianJudgeModel(sim.columns, draws=300, tune=400, seed=rep, warn=False)
        table = judge_bias(fit.fit(sim.X, y), level=0.9)
        for k, truth in (("offset", sim.offsets), ("scale", sim.scales)):
            hits.extend((table[f"{k}_low"] <= truth) & (truth <= table[f"{k}_high"]))
    n = len(hits)
    lo, hi = stats.binom.ppf([0.005, 0.995], n, 0.9) / n
    rate = float(np.mean(hits))
    assert lo <= rate <= hi, f"coverage {rate:.3f} outside [{lo:.3f}, {hi:.3f}] over {n} intervals"
