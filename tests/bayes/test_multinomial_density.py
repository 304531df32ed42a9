"""The multinomial model's hand-written joint log density equals the PyMC model's
(value and gradient), and the fit samples it."""

from __future__ import annotations

import numpy as np
import pytest
from pytensor.compile.mode import get_mode

from bacon_bayes.bayes import ColumnSpec, MultinomialJudgeModel
from bacon_bayes.bayes.nuts import flat_layout
from bacon_bayes.simulation.categorical import simulate_categorical

from .conftest import assert_density_equals_pymc

pytest.importorskip("jax")

#: quick to compile, but with the rewrites that keep logsumexp finite far in the tails
STABLE = get_mode("FAST_COMPILE").including("canonicalize", "stabilize")


def _model(n_cat, n_cont, n_emb, n_unc, levels: tuple, seed: int, priors=None):
    """A set-up model, its arrays and one fold's label data (half the items labeled)."""
    sim = simulate_categorical(80, n_cat, n_cont, n_emb, levels=levels, seed=seed)
    rng = np.random.default_rng(seed)
    J = n_cat + n_cont
    unc = rng.normal(size=(sim.X.shape[0], J * n_unc))
    X = np.column_stack([sim.X[:, :J], unc, sim.X[:, J:]])
    model = MultinomialJudgeModel(ColumnSpec.simple(J, n_unc, n_emb), priors=priors)
    y = np.where(rng.uniform(size=sim.y.size) < 0.5, sim.y, np.nan)
    arrays = model._setup(X, y)
    train = np.isfinite(y) & (rng.uniform(size=y.size) < 0.8)
    labels, _ = model._label_data(np.where(train, y, np.nan), train)
    return model, arrays, model._restrict(labels, np.flatnonzero(np.isfinite(y)))


ONE_WEIGHT = {"judge_evidence_sd": 0.0}  # one evidence weight for every judge
CASES = [
    (4, 0, 0, 0, (0.0, 1.0), None),  # binary, categorical judges, no embedding: items merge
    (4, 0, 2, 0, (0.0, 1.0), None),  # binary, categorical judges only (TriviaQA's shape)
    (3, 2, 2, 0, (0.0, 1.0, 2.0), None),  # three classes, continuous judges too
    (2, 2, 0, 1, (0.0, 1.0, 2.0), None),  # no embedding; the continuous judges' uncertainty
    (0, 3, 1, 2, (0.0, 1.0), None),  # continuous judges only
    (3, 1, 1, 1, (0.0, 1.0, 2.0), ONE_WEIGHT),
]


@pytest.mark.parametrize(("n_cat", "n_cont", "n_emb", "n_unc", "levels", "priors"), CASES)
def test_multinomial_density_equals_pymc(n_cat, n_cont, n_emb, n_unc, levels, priors):
    seed = n_cat + n_cont
    model, arrays, labels = _model(n_cat, n_cont, n_emb, n_unc, levels, seed, priors)
    pm_model = model._build_model(arrays, labels)
    layout = flat_layout(pm_model)
    names = {name for name, _, _ in layout}
    assert ("confusion" in names) == (n_cat > 0)
    assert ("uncertainty" in names) == (n_unc > 0)
    assert ("judge_evidence" in names) == (priors is None)
    density = model._joint_density()
    assert density is not None
    # grad_rtol 1e-6: far out (gradients ~1e12) PyTensor's derivative in log w cancels the
    # judges' exp(u_j) / w * w terms and loses digits that ours never computes
    assert_density_equals_pymc(
        pm_model, density, {**arrays, **labels}, (0.3, 1.0, 2.5), seed=5, mode=STABLE,
        value_rtol=1e-9, grad_rtol=1e-6,
    )  # fmt: skip


def test_subclass_with_its_own_model_keeps_pytensor():
    class Changed(MultinomialJudgeModel):
        def _build_model(self, arrays, labels):
            return super()._build_model(arrays, labels)

    model, _, _ = _model(2, 0, 1, 0, (0.0, 1.0), seed=1)
    assert model._joint_density() is not None
    changed = Changed(model.columns)
    changed.levels_ = model.levels_
    assert changed._joint_density() is None
