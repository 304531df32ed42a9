"""The paper's constrained weighting optimisation: budget, determinism, optimality."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from bacon_bayes.errors import ValidationError
from bacon_bayes.sampling import combine_waves, fit_two_stage_propensity, two_stage, uniform

N = 1500


def problem(seed: int, n_pilot: int = 225, d: int = 4, lam: float = 2.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(N, d))
    pilot = uniform(N, n_pilot, seed=seed)
    resid = np.sqrt(0.1 * np.exp(lam * z[:, 0])) * rng.normal(size=N)
    return z, resid[pilot.selected] ** 2, pilot


@pytest.mark.parametrize(("seed", "eta", "n_pilot"), [(0, 0.4, 225), (1, 0.2, 75), (2, 0.6, 300)])
def test_budget_met_within_1e6(seed: int, eta: float, n_pilot: int) -> None:
    z, r2, pilot = problem(seed, n_pilot)
    for ridge in (0.0, 1e-4):
        fit = fit_two_stage_propensity(z, r2, pilot.selected, pilot.pi, eta, ridge=ridge)
        assert abs(fit.propensity.mean() - eta) <= 1e-6
        assert abs(fit.mean_propensity - eta) <= 1e-6
        assert np.all(fit.propensity >= pilot.pi - 1e-15)
        assert np.all(fit.propensity <= 1.0)


def test_same_inputs_same_design() -> None:
    z, r2, pilot = problem(3)
    a_wave, a = two_stage(z, r2, pilot.selected, pilot.pi, 0.4, seed=11)
    b_wave, b = two_stage(z, r2, pilot.selected, pilot.pi, 0.4, seed=11)
    assert np.array_equal(a.propensity, b.propensity)
    assert np.array_equal(a_wave.selected, b_wave.selected)
    c_wave, _ = two_stage(z, r2, pilot.selected, pilot.pi, 0.4, seed=12)
    assert not np.array_equal(a_wave.selected, c_wave.selected)
    assert not np.any(a_wave.selected & pilot.selected), "stage 2 draws outside the pilot"
    assert np.allclose(combine_waves([pilot, a_wave]), a.inclusion)


def test_pilot_items_get_the_probability_of_a_design_without_them() -> None:
    z, r2, pilot = problem(7)
    fit = fit_two_stage_propensity(z, r2, pilot.selected, pilot.pi, 0.4)
    off = ~pilot.selected
    assert np.array_equal(fit.inclusion[off], fit.propensity[off])
    assert not np.allclose(fit.inclusion[pilot.selected], fit.propensity[pilot.selected])
    # Own residual pushes the propensity up: large-residual pilot items lose it.
    big = r2 > np.quantile(r2, 0.9)
    shift = fit.inclusion[pilot.selected] - fit.propensity[pilot.selected]
    assert shift[big].mean() < 0
    plain = fit_two_stage_propensity(z, r2, pilot.selected, pilot.pi, 0.4, folds=0)
    assert np.array_equal(plain.inclusion, plain.propensity)


def test_solution_is_optimal_and_follows_the_noise() -> None:
    z, r2, pilot = problem(4)
    p1 = pilot.pi[0]
    fit = fit_two_stage_propensity(z, r2, pilot.selected, p1, 0.4, ridge=0.0)
    assert fit.converged
    assert fit.coef[0] > 0.5 and np.all(np.abs(fit.coef[1:]) < 0.5 * fit.coef[0])
    flat = np.sum(r2 / p1 / 0.4)  # weights 1/p1 estimate the population sum
    assert fit.objective < 0.8 * flat, "adapting beats the uniform design on its own objective"

    zs = (z - fit.center) / fit.scale
    design = np.column_stack([np.ones(N), zs])
    rows = design[pilot.selected]

    def objective(theta: np.ndarray) -> float:
        return float(np.sum(r2 / p1 / (p1 + (1 - p1) * expit(rows @ theta))))

    def budget_left(theta: np.ndarray) -> float:
        return 0.4 - float(np.mean(p1 + (1 - p1) * expit(design @ theta)))

    # An independent derivative-free solver from another start finds nothing better.
    other = minimize(
        objective,
        np.r_[-2.0, 0, 0.3, -0.3, 0],
        method="COBYLA",
        constraints=[{"type": "ineq", "fun": budget_left}],
        options={"maxiter": 20000, "rhobeg": 0.5, "tol": 1e-10},
    )
    assert budget_left(other.x) >= -1e-6
    assert fit.objective <= other.fun * (1 + 1e-5)
    assert fit.objective >= other.fun * (1 - 1e-3), "the two solvers agree"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"budget": 0.1}, "must exceed"),
        ({"budget": 1.0}, "below 1"),
        ({"pilot_pi": 0.0}, "positive pilot inclusion"),
    ],
)
def test_bad_two_stage_input_is_refused(kwargs: dict, message: str) -> None:
    z, r2, pilot = problem(5)
    args = {"pilot_pi": pilot.pi, "budget": 0.4} | kwargs
    with pytest.raises(ValidationError, match=message):
        fit_two_stage_propensity(z, r2, pilot.selected, args["pilot_pi"], args["budget"])


def test_residuals_must_match_the_pilot() -> None:
    z, r2, pilot = problem(6)
    with pytest.raises(ValidationError, match="one value per pilot item"):
        fit_two_stage_propensity(z, r2[:-1], pilot.selected, pilot.pi, 0.4)
