"""The label link's own judge weights (``judge_weights=True``): the residual basis they
act on, the bias table, the hurdle's two parts weighing the judges each their own way."""

from __future__ import annotations

import numpy as np
from scipy import special

from bacon_bayes.bayes import GaussianJudgeModel, HurdleJudgeModel
from bacon_bayes.bayes.bias import judge_bias
from bacon_bayes.bayes.columns import judge_basis
from bacon_bayes.bayes.io import load_model, save_model
from bacon_bayes.simulation.judges import simulate_judges


def test_judge_basis_is_the_principal_directions_first_component_last():
    rng = np.random.default_rng(0)
    n = 2000
    z = rng.normal(size=n)
    L = z[:, None] * [1.0, 0.8, 0.5, 1.2] + rng.normal(size=(n, 4)) * [0.5, 0.7, 1.0, 0.4]
    L = (L - L.mean(0)) / L.std(0)
    basis = judge_basis(L)
    vals, vecs = np.linalg.eigh(L.T @ L / n)
    np.testing.assert_allclose(basis.T @ basis, np.eye(4), atol=1e-12)  # orthonormal
    np.testing.assert_allclose((L @ basis).T @ (L @ basis) / n, np.diag(vals), atol=1e-10)
    np.testing.assert_allclose(np.abs(basis[:, -1]), np.abs(vecs[:, -1]), atol=1e-12)
    # a repeated judge adds no direction
    assert judge_basis(np.column_stack([L, L[:, 0]])).shape == (5, 4)
    # families with a slope on z weigh every direction but the first component
    model = GaussianJudgeModel(None)
    model.design_ = type("D", (), {"judge_basis": basis})()
    np.testing.assert_array_equal(model._weight_basis(), basis[:, :3])


def test_judge_weights_keep_the_bias_table_on_the_human_scale():
    """With the label link's own judge weights, human-scale scales are still recovered
    (the bias table integrates the weighted judges' noise given z)."""
    sim = simulate_judges(700, 3, 2, family="gaussian", seed=21)
    y = sim.y.copy()
    y[250:] = np.nan
    fit = GaussianJudgeModel(
        sim.columns, draws=400, tune=400, seed=2, judge_weights=True, warn=False
    ).fit(sim.X, y)
    assert fit.posterior_["judge_weight"].shape[1:] == (2,)  # 3 judges: 2 residual directions
    table = judge_bias(fit)
    np.testing.assert_allclose(table["scale"], sim.scales, rtol=0.2)
    r2 = 1 - np.mean((fit.predict(sim.X[250:]) - sim.quality[250:]) ** 2) / np.var(sim.quality)
    assert r2 > 0.7


def test_hurdle_parts_each_weigh_the_judge_they_follow(tmp_path):
    """Humans' zero/non-zero call follows judge 1 beyond the judges' consensus and their
    error size follows judge 0: each part of the link finds its own judge (square-root
    scale; saved and loaded with it)."""
    sim = simulate_judges(900, 4, 0, family="hurdle", missing=0.0, seed=5)
    rng = np.random.default_rng(6)
    z = sim.quality
    err = sim.X[:, :4] - sim.offsets - sim.scales * z[:, None]
    err /= err.std(axis=0)
    positive = rng.random(z.size) < special.ndtr(0.3 + z + 1.2 * err[:, 1])
    log_y = 0.5 + 0.5 * z + 0.8 * err[:, 0] + 0.3 * rng.normal(size=z.size)
    y = np.where(positive, np.exp(log_y), 0.0)
    y[500:] = np.nan
    fit = HurdleJudgeModel(
        sim.columns,
        draws=400,
        tune=400,
        seed=3,
        judge_weights=True,
        warn=False,
        positive_scale="sqrt",
    ).fit(sim.X, y)
    basis = fit._weight_basis()
    on_judges = {
        part: fit.posterior_[f"{part}_judge_weight"].mean(axis=0) @ basis.T
        for part in ("zero", "log")
    }
    assert np.argmax(on_judges["zero"]) == 1, on_judges
    assert np.argmax(on_judges["log"]) == 0, on_judges
    table = judge_bias(fit)  # the two parts' weighted noise integrated jointly
    assert np.isfinite(table.drop(columns="judge").to_numpy(float)).all()
    assert (table["scale"] > 0).all()
    back = load_model(save_model(fit, tmp_path / "hurdle.nc"))
    assert back.positive_scale == "sqrt"
    np.testing.assert_array_equal(back.predict(sim.X[500:]), fit.predict(sim.X[500:]))
