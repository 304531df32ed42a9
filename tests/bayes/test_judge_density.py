"""The judge stage's hand-written log density equals the PyMC model's (value and gradient)."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes.bayes import OrdinalJudgeModel
from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.bayes.judge_density import judges_grad_density
from bacon_bayes.bayes.nuts import (
    flat_layout,
    resolve_engine,
)

from .conftest import assert_density_equals_pymc

pytest.importorskip("jax")


def _design(n_unc: int, n_emb: int, missing: float, seed: int):
    """Raw X for 4 judges (+ uncertainty per judge, + embedding) with some scores NaN."""
    rng = np.random.default_rng(seed)
    n, J = 60, 4
    z = rng.normal(size=n)
    L = 1.0 + rng.uniform(0.5, 2.0, J) * z[:, None] + rng.normal(size=(n, J))
    L[rng.uniform(size=(n, J)) < missing] = np.nan
    L[:, 0] = np.where(np.isnan(L[:, 0]), 0.3, L[:, 0])  # every item keeps one judge
    parts = [L]
    if n_unc:
        parts.append(rng.gamma(2.0, 1.0, size=(n, J * n_unc)))
    if n_emb:
        parts.append(rng.normal(size=(n, n_emb)))
    return np.hstack(parts), ColumnSpec.simple(J, n_unc, n_emb)


@pytest.mark.parametrize(
    ("n_unc", "n_emb", "missing"), [(1, 3, 0.1), (0, 0, 0.0), (0, 2, 0.2), (2, 0, 0.1)]
)
def test_judge_density_equals_pymc(n_unc, n_emb, missing):
    X, columns = _design(n_unc, n_emb, missing, seed=n_unc + 10 * n_emb)
    priors = {"log_scale_sd": 0.4, "embedding_sd": 0.7}  # overrides reach both versions
    model = OrdinalJudgeModel(columns, priors=priors, levels=[0, 1])
    arrays = model._setup(X, np.full(X.shape[0], np.nan))
    assert (arrays["obs"] == 0).any() == (missing > 0)
    pm_model = model._build_judges_model(arrays, {})
    names = {name for name, _, _ in flat_layout(pm_model)}
    assert ("uncertainty" in names) == bool(n_unc) and ("theta" in names) == bool(n_emb)
    data = {k: v for k, v in arrays.items() if np.size(v)}
    density = judges_grad_density(model.resolved_priors())
    assert_density_equals_pymc(pm_model, density, data, (0.7,) * 4, seed=3, value_rtol=1e-9)


def test_cut_fit_samples_the_judge_density_with_pymc_names_and_dims(ordinal_fit):
    """The session fit's judge stage ran on this density (default engine nutpie-jax)
    and its posterior keeps PyMC's variables and dims."""
    assert resolve_engine("auto") == "nutpie-jax"
    fit, sim = ordinal_fit
    post = fit.idata_.posterior
    dims = {
        "offset": ("judge",),
        "log_scale": ("judge",),
        "log_noise": ("judge",),
        "theta": ("emb",),
        "log_scale_mu": (),
        "log_scale_sd": (),
        "log_noise_mu": (),
        "log_noise_sd": (),
    }
    if sim.columns.unc_kinds:
        dims["uncertainty"] = ("unc",)
    for name, want in dims.items():
        assert post[name].dims == ("chain", "draw", *want), name
    assert list(post["offset"].coords["judge"].values) == list(sim.columns.judges)
    assert fit.diagnostics_.ok
