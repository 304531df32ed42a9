"""Session-scoped real NUTS fits on small simulated data (shared by the fast tests)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bacon_bayes.bayes import GaussianJudgeModel, OrdinalJudgeModel
from bacon_bayes.simulation.judges import simulate_judges

N_LABELED = 250
VALIDATION = Path(__file__).resolve().parents[2] / "VALIDATION.md"


def write_section(heading: str, body: str, path: Path = VALIDATION) -> None:
    """Replace (or append) the section ``heading`` of a Markdown file, keeping the others."""
    text = path.read_text() if path.exists() else ""
    start = text.find(heading)
    if start < 0:
        head, tail = text.rstrip(), ""
    else:
        end = text.find("\n## ", start + len(heading))
        head, tail = text[:start].rstrip(), ("" if end < 0 else text[end:])
    path.write_text(f"{head}\n\n{heading}\n\n{body.strip()}\n{tail}")


def assert_density_equals_pymc(
    pm_model, density, data: dict, scales, *, seed: int, mode="FAST_COMPILE", value_rtol: float,
    grad_rtol: float = 1e-7,
) -> None:  # fmt: skip
    """A hand-written :class:`~bacon_bayes.bayes.nuts.GradDensity` gives PyMC's log density
    and gradient of ``pm_model`` (data containers ``data``) at one random point of nutpie's
    flat vector per entry of ``scales`` (normal, that sd, drawn with ``seed``)."""
    from bacon_bayes.bayes.nuts import flat_layout, grad_value_and_grad

    layout = flat_layout(pm_model)
    logp = pm_model.compile_logp(mode=mode)
    dlogp = pm_model.compile_dlogp(mode=mode)
    value_and_grad = grad_value_and_grad(pm_model, density)
    data = {**data, **density.prepare(data)}
    rng = np.random.default_rng(seed)
    size = layout[-1][1].stop
    for scale in scales:
        x = rng.normal(0.0, scale, size)
        point = {name: x[sl].reshape(shape) for name, sl, shape in layout}
        value, grad = value_and_grad(x, data)
        np.testing.assert_allclose(float(value), logp(point), rtol=value_rtol)
        np.testing.assert_allclose(np.asarray(grad), dlogp(point), rtol=grad_rtol, atol=1e-7)


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
    model = GaussianJudgeModel(
        sim.columns, draws=500, tune=500, chains=4, seed=3, target_accept=0.9
    )
    return model.fit_folds(sim.X, y, fold_ids, 2), y, fold_ids


@pytest.fixture(scope="session")
def ordinal_fit():
    sim = simulate_judges(900, 4, 3, family="ordinal", seed=12)
    y = sim.y.copy()
    y[N_LABELED:] = np.nan
    model = OrdinalJudgeModel(
        sim.columns, levels=sim.levels, draws=500, tune=800, chains=4, target_accept=0.9
    )
    return model.fit(sim.X, y), sim
