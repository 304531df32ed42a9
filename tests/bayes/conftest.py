"""Session-scoped real NUTS fits on small simulated data (shared by the fast tests)."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes.bayes import GaussianJudgeModel, OrdinalJudgeModel
from bacon_bayes.bayes.simulate import simulate_judges

N_LABELED = 250


@pytest.fixture(scope="session")
def gaussian_sim():
    return simulate_judges(900, 4, 3, family="gaussian", seed=11)


@pytest.fixture(scope="session")
def gaussian_folds(gaussian_sim):
    """Two cross-fitting folds of the gaussian model, compiled once."""
    sim = gaussian_sim
    y = sim.y.copy()
    y[N_LABELED:] = np.nan
    fold_ids = np.full(y.shape, -1)
    fold_ids[:N_LABELED] = np.arange(N_LABELED) % 2
    model = GaussianJudgeModel(sim.columns, draws=500, tune=500, chains=4, seed=3)
    return model.fit_folds(sim.X, y, fold_ids, 2), y, fold_ids


@pytest.fixture(scope="session")
def ordinal_fit():
    sim = simulate_judges(900, 4, 3, family="ordinal", seed=12)
    y = sim.y.copy()
    y[N_LABELED:] = np.nan
    model = OrdinalJudgeModel(sim.columns, levels=sim.levels, draws=500, tune=500, chains=4)
    return model.fit(sim.X, y), sim
