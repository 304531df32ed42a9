"""Gaussian label noise that grows along the embedding (``label_noise_embedding``)."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes.bayes import GaussianJudgeModel
from bacon_bayes.bayes.base import _fold_blocks
from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.simulation.judges import simulate_judges

LEVEL = 0.9


def _posterior(rng: np.random.Generator, draws: int, n_emb: int) -> dict[str, np.ndarray]:
    return {
        "intercept": rng.normal(0, 0.3, draws),
        "slope": np.abs(rng.normal(1, 0.2, draws)),
        "label_noise": np.abs(rng.normal(0.5, 0.1, draws)),
        "label_noise_embedding": rng.normal(0, 0.4, (draws, n_emb)),
    }


def test_predictive_variance_closed_form() -> None:
    """Var(y | judges) = s^2 (b1^2 v + sigma_y^2 exp(2 q'gamma)) per draw, checked against
    simulated labels; the mean does not depend on q."""
    rng = np.random.default_rng(0)
    model = GaussianJudgeModel(ColumnSpec.simple(2, 0, 3))
    post = _posterior(rng, 3, 3)
    const = {"y_center": 2.0, "y_scale": 1.5}
    m, v = rng.normal(size=(3, 4)), rng.uniform(0.1, 0.6, (3, 4))
    q = rng.normal(size=(4, 3))
    mean, var = model._moments(post, const, m, v, q)
    n = 200_000
    for d in range(3):
        for i in range(4):
            z = rng.normal(m[d, i], np.sqrt(v[d, i]), n)
            sd_y = post["label_noise"][d] * np.exp(q[i] @ post["label_noise_embedding"][d])
            y = 2.0 + 1.5 * (
                post["intercept"][d] + post["slope"][d] * z + sd_y * rng.normal(size=n)
            )
            assert mean[d, i] == pytest.approx(y.mean(), abs=5 * y.std() / np.sqrt(n))
            assert var[d, i] == pytest.approx(y.var(), rel=0.02)
    homo = {k: v for k, v in post.items() if k != "label_noise_embedding"}
    mean0, var0 = model._moments(homo, const, m, v, q)
    np.testing.assert_allclose(mean0, mean)
    assert not np.allclose(var0, var), "the embedding term must change the variance"
    with pytest.raises(Exception, match="embedding"):
        model._moments(post, const, m, v)


def _stage2_potential(model, arrays: dict, data: dict, point: dict) -> float:
    """The label potential of the cut stage-2 model at ``point`` (untransformed values)."""
    pm_model = model._build_label_model(arrays, data)
    ip = pm_model.initial_point()
    for name, val in point.items():
        key = name if name in ip else f"{name}_log__"
        ip[key] = val if name in ip else np.log(val)
    return _at_point(pm_model, ip)


def _at_point(pm_model, point: dict) -> float:
    """The model's ``labels`` potential with every random variable set to ``point``."""
    (pot,) = pm_model.replace_rvs_by_values([pm_model["labels"]])
    fn = pm_model.compile_fn(pot, inputs=pm_model.value_vars, on_unused_input="ignore")
    return float(fn(point))


def test_both_inference_modes_read_the_embedding_rows() -> None:
    """The joint model (Q[label_rows]) and the cut stage-2 block ((folds, n, E) of Q rows)
    give the closed-form label log-likelihood at a fixed parameter point."""
    rng = np.random.default_rng(1)
    sim = simulate_judges(60, 3, 2, family="gaussian", seed=2)
    model = GaussianJudgeModel(sim.columns)
    y = sim.y.copy()
    y[40:] = np.nan
    arrays = model._setup(sim.X, y)
    rows = np.flatnonzero(np.isfinite(y))
    labels, _ = model._label_data(y, np.isfinite(y))
    point = {
        "intercept": np.array(0.1),
        "slope": np.array(0.8),
        "label_noise": np.array(0.6),
        "label_noise_embedding": np.array([0.5, -0.3]),
    }
    m, v = rng.normal(size=rows.size), rng.uniform(0.1, 0.5, rows.size)
    q = arrays["Q"][rows]
    var = 0.64 * v + 0.36 * np.exp(2 * q @ point["label_noise_embedding"])
    yk = labels["yk"][rows]
    expect = float(np.sum(-0.5 * (np.log(2 * np.pi * var) + (yk - 0.1 - 0.8 * m) ** 2 / var)))
    latent = {"m": m, "v": v, "q": q}
    data = _fold_blocks(latent, [model._restrict(labels, rows)] * 2)
    assert data["q"].shape == (2, rows.size, 2)
    stage2 = {k: np.stack([val, val]) for k, val in point.items()}
    got = _stage2_potential(model, arrays, data, stage2)
    assert got == pytest.approx(2 * expect, rel=1e-9)
    # joint: the label rows' moments come from the judge terms at the same point
    joint = model._build_model(arrays, model._restrict(labels, rows))
    ip = joint.initial_point()
    ip.update(intercept=0.1, slope_log__=np.log(0.8), label_noise_log__=np.log(0.6))
    ip["label_noise_embedding"] = point["label_noise_embedding"]
    judge_terms = ("offset", "log_scale", "log_noise", "uncertainty", "theta")
    post = {name: np.asarray(ip[name])[None] for name in judge_terms}
    mj, vj = model._collapse_arrays({k: a[rows] for k, a in arrays.items()}, post)
    varj = 0.64 * vj[0] + 0.36 * np.exp(2 * q @ point["label_noise_embedding"])
    expect_j = np.sum(-0.5 * (np.log(2 * np.pi * varj) + (yk - 0.1 - 0.8 * mj[0]) ** 2 / varj))
    got_j = _at_point(joint, ip)
    assert got_j == pytest.approx(float(expect_j), rel=1e-8)


@pytest.mark.slow
def test_intervals_cover_within_bins_of_the_noisy_component() -> None:
    """Label noise sd = 0.4 exp(0.6 e1): 90% posterior predictive intervals cover ~90%
    in each tercile of e1; the homoskedastic model (prior sd 0) does not (control)."""
    sim = simulate_judges(3000, 4, 3, family="gaussian", seed=21)
    rng = np.random.default_rng(22)
    e1 = sim.X[:, -3]
    y_all = sim.quality + 0.4 * np.exp(0.6 * e1) * rng.normal(size=e1.size)
    train = np.zeros(e1.size, dtype=bool)
    train[:500] = True
    y = np.where(train, y_all, np.nan)
    held = np.flatnonzero(~train)
    bins = np.digitize(e1[held], np.quantile(e1[held], [1 / 3, 2 / 3]))
    half = 3 * np.sqrt(LEVEL * (1 - LEVEL) / np.bincount(bins).min())
    model = GaussianJudgeModel(sim.columns, draws=600, tune=400, chains=2, seed=4, warn=False)

    def bin_coverage() -> np.ndarray:
        model.fit(sim.X, y)
        pit = np.diagonal(model.predict_cdf(sim.X[held], y_all[held]))
        inside = (pit > (1 - LEVEL) / 2) & (pit < (1 + LEVEL) / 2)
        return np.array([inside[bins == b].mean() for b in range(3)])

    cov = bin_coverage()
    assert np.all(np.abs(cov - LEVEL) <= half), f"coverage by tercile {cov}, band +-{half:.3f}"
    gamma = model.posterior_["label_noise_embedding"].mean(axis=0)
    assert abs(gamma[0]) > 0.3 and np.all(np.abs(gamma[1:]) < 0.15), gamma
    model.priors = {"label_noise_embedding_sd": 0.0}  # stage 1 is reused (same X)
    cov0 = bin_coverage()
    assert "label_noise_embedding" not in model.posterior_
    assert cov0[0] > LEVEL + half and cov0[2] < LEVEL - half, f"control {cov0}"
