"""The label stage's hand-written log densities equal the PyMC models' (value and gradient)."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes.bayes import GaussianJudgeModel, HurdleJudgeModel, OrdinalJudgeModel
from bacon_bayes.bayes.base import _fold_blocks
from bacon_bayes.bayes.label_density import label_density
from bacon_bayes.bayes.nuts import flat_layout
from bacon_bayes.simulation.judges import simulate_judges

from .conftest import assert_density_equals_pymc

pytest.importorskip("jax")

FOLDS = 3


def _stage2(family: str, judge_weights: bool, seed: int, **kw):
    """A model set up on simulated data and its stage-2 data (3 folds, random z moments)."""
    sim = simulate_judges(90, 4, 2, seed=seed, family=family)
    cls = {"ordinal": OrdinalJudgeModel, "hurdle": HurdleJudgeModel}.get(family, GaussianJudgeModel)
    model = cls(sim.columns, judge_weights=judge_weights, **kw)
    rng = np.random.default_rng(seed)
    y = np.where(rng.uniform(size=sim.y.size) < 0.5, sim.y, np.nan)
    arrays = model._setup(sim.X, y)
    rows = np.flatnonzero(np.isfinite(y))
    fold_ids = rng.integers(0, FOLDS, rows.size)
    folds = []
    for k in range(FOLDS):
        train = np.zeros(y.size, bool)
        train[rows[fold_ids != k]] = True
        labels, _ = model._label_data(np.where(train, y, np.nan), train)
        folds.append(model._restrict(labels, rows))
    items = {"m": rng.normal(size=rows.size), "v": rng.uniform(0.05, 0.6, rows.size)}
    if model._judge_weights():
        items["r"] = (arrays["L"] @ model._weight_basis())[rows]
    if model._label_uses_embedding():
        items["q"] = arrays["Q"][rows]
    return model, arrays, _fold_blocks(items, folds)


CASES = [
    ("ordinal", False, {}),
    ("ordinal", True, {}),
    ("hurdle", False, {}),
    ("hurdle", True, {}),
    ("hurdle", True, {"positive_scale": "sqrt"}),
    ("gaussian", False, {}),
    ("gaussian", True, {}),
    ("gaussian", True, {"priors": {"label_noise_embedding_sd": 0.0}}),
]


@pytest.mark.parametrize(("family", "judge_weights", "kw"), CASES)
def test_label_density_equals_pymc(family, judge_weights, kw):
    model, arrays, data = _stage2(family, judge_weights, seed=len(family), **kw)
    pm_model = model._build_label_model(arrays, data)
    layout = flat_layout(pm_model)
    names = {name for name, _, _ in layout}
    weight = model.judge_weight_names[0]
    assert (weight in names) == judge_weights
    if family == "gaussian":
        assert ("label_noise_embedding" in names) == ("priors" not in kw)
    density = label_density(model)
    assert density is not None
    # 2.5, 4: tails of the probit terms, clipped ones
    assert_density_equals_pymc(
        pm_model, density, data, (0.3, 1.0, 2.5, 4.0), seed=5, value_rtol=1e-8
    )


def test_a_changed_label_link_keeps_pytensor():
    class Custom(OrdinalJudgeModel):
        def _label_logp(self, *args, **kwargs):
            return super()._label_logp(*args, **kwargs)

    sim = simulate_judges(20, 2, 0, seed=0, family="ordinal")
    custom, own = Custom(sim.columns), OrdinalJudgeModel(sim.columns)
    for model in (custom, own):
        model._prepare_labels(sim.y)  # levels and the cutpoints' anchor, as a fit does
    assert label_density(custom) is None
    assert label_density(own) is not None
