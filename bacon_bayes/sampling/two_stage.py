"""The paper's two-stage design: pilot, residuals, constrained propensity, stage 2.

After a pilot wave with inclusion probability ``p1_i`` (``p1_i = pi`` for a
uniform pilot at rate pi) and an outcome model fitted on it, the stage-2
probability of item i is ``s_i = sigmoid(b + z_i' beta)`` so that its
inclusion probability in pilot-or-stage-2 is

    e_i = p1_i + (1 - p1_i) * s_i.

``(b, beta)`` minimise ``sum_{i in pilot} w_i r_i^2 / e_i`` subject to
``mean_i e_i <= eta`` over the whole pool, with ``r_i`` the pilot's
out-of-fold residuals and ``w_i = 1 / p1_i`` (so the sum estimates the
population sum; constant for a uniform pilot). The problem is solved by SLSQP
with analytic gradients from the feasible start ``beta = 0``; because the
objective decreases in every ``e_i`` the budget binds, and a final 1-D root
search on ``b`` (Brent) makes ``mean e = eta`` to ~1e-12. No randomness is
involved beyond a seeded fold split: the same inputs give the same
propensities, and the stage-2 draw is reproducible from its seed.

Which probability does a *pilot* item have? It is in the union of waves with
probability ``p1_i + (1 - p1_i) s_i``, where ``s_i`` is the stage-2 probability
it would have had outside the pilot - from a design fitted without its own
residual. Plugging in the design fitted *with* it ties ``s_i`` to ``r_i`` (large
residual, larger ``s_i``, smaller weight) and understates the variance, so
pilot items get ``s_i`` from the design refitted without their fold of the
pilot (K-fold cross-fitting, ``TwoStagePropensity.inclusion``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import expit, logit

from bacon_bayes.errors import ValidationError
from bacon_bayes.sampling.designs import Design, poisson

__all__ = ["TwoStagePropensity", "fit_two_stage_propensity", "two_stage"]


@dataclass(frozen=True)
class TwoStagePropensity:
    """Solution of the constrained weighting problem.

    Attributes
    ----------
    intercept, coef : float, ndarray
        ``b`` and ``beta`` on standardised features ``(z - center) / scale``.
    center, scale : ndarray
        Standardisation of the propensity features.
    stage2 : ndarray, shape (N,)
        Stage-2 probability ``s_i`` of every item under the fitted design.
    propensity : ndarray, shape (N,)
        ``e_i = p1_i + (1 - p1_i) s_i``; its mean is the budget.
    stage2_own : ndarray, shape (N,)
        ``s_i`` for non-pilot items; for a pilot item, the stage-2 probability
        it would have had if it had not been in the pilot, i.e. from the design
        fitted without its own residual (without its fold of the pilot).
    inclusion : ndarray, shape (N,)
        ``p1_i + (1 - p1_i) * stage2_own_i``: the inclusion probabilities to
        use in the estimator. With ``propensity`` instead, a pilot item with a
        large residual would get a propensity raised by its own residual, which
        understates its weight and the variance.
    objective : float
        ``sum w r^2 / e`` at the solution.
    mean_propensity : float
        ``mean(e)``; equals the budget within 1e-9.
    converged : bool
        SLSQP's success flag (the budget is enforced regardless).
    message : str
        SLSQP's message.
    """

    intercept: float
    coef: np.ndarray
    center: np.ndarray
    scale: np.ndarray
    stage2: np.ndarray
    propensity: np.ndarray
    stage2_own: np.ndarray
    inclusion: np.ndarray
    objective: float
    mean_propensity: float
    converged: bool
    message: str


def _validate(
    features: np.ndarray, residual_sq: np.ndarray, pilot: np.ndarray, pilot_pi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    z = np.asarray(features, dtype=float)
    if z.ndim == 1:
        z = z[:, None]
    n_total = z.shape[0]
    if not np.all(np.isfinite(z)):
        raise ValidationError("propensity features contain NaN or infinite values")
    pilot = np.asarray(pilot, dtype=bool)
    if pilot.shape != (n_total,):
        raise ValidationError(f"pilot mask has shape {pilot.shape}, expected ({n_total},)")
    r2 = np.asarray(residual_sq, dtype=float)
    if r2.shape == (int(pilot.sum()),):
        full = np.zeros(n_total)
        full[pilot] = r2
        r2 = full
    if r2.shape != (n_total,):
        raise ValidationError("residual_sq must hold one value per pilot item or one per pool item")
    if np.any(~np.isfinite(r2[pilot])) or np.any(r2[pilot] < 0):
        raise ValidationError("squared residuals of pilot items must be finite and >= 0")
    p1 = np.broadcast_to(np.asarray(pilot_pi, dtype=float), (n_total,)).copy()
    if np.any(~np.isfinite(p1)) or np.any(p1 < 0) or np.any(p1 > 1):
        raise ValidationError("pilot inclusion probabilities must lie in [0, 1]")
    if np.any(p1[pilot] <= 0):
        raise ValidationError("every pilot item needs a positive pilot inclusion probability")
    if pilot.sum() < 2:
        raise ValidationError("the pilot needs at least 2 labeled items")
    return z, r2, pilot, p1


def fit_two_stage_propensity(
    features: np.ndarray,
    residual_sq: np.ndarray,
    pilot: np.ndarray,
    pilot_pi: float | np.ndarray,
    budget: float,
    *,
    ridge: float = 1e-4,
    folds: int = 5,
    seed: int = 0,
    maxiter: int = 500,
) -> TwoStagePropensity:
    """Solve ``min sum r^2/e  s.t.  mean e <= budget`` for the stage-2 propensity.

    Parameters
    ----------
    features : array, shape (N, d)
        Propensity features of every pool item (e.g. the first embedding PCs).
    residual_sq : array, shape (n_pilot,) or (N,)
        Out-of-fold squared residuals of the outcome model on the pilot items.
    pilot : array of bool, shape (N,)
        Items labeled in the pilot.
    pilot_pi : float or array, shape (N,)
        Pilot inclusion probability of every item.
    budget : float
        Target mean inclusion probability ``eta`` over the pool, above ``mean(pilot_pi)``.
    ridge : float
        Penalty ``ridge * |beta|^2`` added to the normalised objective; keeps
        the solution bounded when the pilot is small.
    folds : int
        Cross-fitting of the pilot items' own probabilities (see
        ``TwoStagePropensity.inclusion``); 0 or 1 turns it off.
    seed : int
        Seed of the pilot's fold split.
    maxiter : int
        SLSQP iteration cap.
    """
    z, r2, pilot, p1 = _validate(features, residual_sq, pilot, pilot_pi)
    base = float(p1.mean())
    if not base < budget < 1:
        raise ValidationError(
            f"budget {budget} must exceed the pilot's mean inclusion probability "
            f"{base:.6g} and be below 1"
        )
    center = z.mean(axis=0)
    scale = z.std(axis=0)
    scale[scale == 0] = 1.0
    design = np.column_stack([np.ones(z.shape[0]), (z - center) / scale])
    raw_weight = np.where(pilot, r2 / p1, 0.0)
    solver = _Solver(design, p1, budget, ridge, maxiter)
    theta0 = np.zeros(design.shape[1])
    theta0[0] = logit((budget - base) / (1.0 - base))
    theta, result = solver.solve(raw_weight, theta0)
    s = expit(design @ theta)
    e = p1 + (1 - p1) * s
    s_own = s.copy()
    members = np.flatnonzero(pilot)
    if folds > 1 and members.size >= 2 * folds:
        fold_of = np.random.default_rng(seed).permutation(members.size) % folds
        for k in range(folds):
            held = members[fold_of == k]
            weight_k = raw_weight.copy()
            weight_k[held] = 0.0
            theta_k, _ = solver.solve(weight_k, theta)
            s_own[held] = expit(design[held] @ theta_k)
    return TwoStagePropensity(
        intercept=float(theta[0]),
        coef=theta[1:].copy(),
        center=center,
        scale=scale,
        stage2=s,
        propensity=e,
        stage2_own=s_own,
        inclusion=p1 + (1 - p1) * s_own,
        objective=float(np.sum(raw_weight / e)),
        mean_propensity=float(e.mean()),
        converged=bool(result.success),
        message=str(result.message),
    )


class _Solver:
    """SLSQP for one weighting of the pilot, then the exact-budget intercept."""

    def __init__(
        self, design: np.ndarray, p1: np.ndarray, budget: float, ridge: float, maxiter: int
    ) -> None:
        self.design, self.p1, self.budget, self.maxiter = design, p1, budget, maxiter
        self.room = 1.0 - p1
        self.penalty = np.r_[0.0, np.full(design.shape[1] - 1, ridge)]

    def solve(self, raw_weight: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, object]:
        design, room, penalty, budget = self.design, self.room, self.penalty, self.budget
        total = raw_weight.sum()
        if total > 0:
            weight = raw_weight / total
        else:
            weight = (raw_weight >= 0) / raw_weight.size

        def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
            s = expit(design @ theta)
            e = self.p1 + room * s
            value = np.sum(weight / e) + np.sum(penalty * theta**2)
            grad = -design.T @ (weight / e**2 * room * s * (1 - s)) + 2 * penalty * theta
            return float(value), grad

        def slack(theta: np.ndarray) -> float:
            return float(budget - np.mean(self.p1 + room * expit(design @ theta)))

        def slack_grad(theta: np.ndarray) -> np.ndarray:
            s = expit(design @ theta)
            return -(design.T @ (room * s * (1 - s))) / design.shape[0]

        result = minimize(
            objective,
            start,
            jac=True,
            method="SLSQP",
            constraints=[{"type": "ineq", "fun": slack, "jac": slack_grad}],
            options={"maxiter": self.maxiter, "ftol": 1e-12},
        )
        theta = np.asarray(result.x, dtype=float)
        if not np.all(np.isfinite(theta)):
            theta = start.copy()
        theta[0] = _solve_intercept(design[:, 1:] @ theta[1:], self.p1, budget)
        return theta, result


def _solve_intercept(linear: np.ndarray, p1: np.ndarray, budget: float) -> float:
    """The intercept b with ``mean(p1 + (1 - p1) sigmoid(b + linear)) = budget``."""

    def gap(b: float) -> float:
        return float(np.mean(p1 + (1 - p1) * expit(b + linear)) - budget)

    lo, hi = -1.0, 1.0
    while gap(lo) > 0:
        lo *= 2.0
    while gap(hi) < 0:
        hi *= 2.0
    return float(brentq(gap, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500))


def two_stage(
    features: np.ndarray,
    residual_sq: np.ndarray,
    pilot: np.ndarray,
    pilot_pi: float | np.ndarray,
    budget: float,
    *,
    seed: int | None = 0,
    ridge: float = 1e-4,
    folds: int = 5,
) -> tuple[Design, TwoStagePropensity]:
    """Stage 2 of the paper's design: a Poisson wave with probabilities ``s_i``.

    Returns the wave and the fitted propensity. The wave draws non-pilot items
    with ``s_i``; its ``pi`` is ``fit.stage2_own`` (``s_i`` for non-pilot items,
    the cross-fitted counterfactual for pilot items), so the inclusion
    probability of the union, ``combine_waves([pilot_pi, wave.pi])``, equals
    ``fit.inclusion``.
    """
    fit = fit_two_stage_propensity(
        features, residual_sq, pilot, pilot_pi, budget, ridge=ridge, folds=folds
    )
    params = {
        "budget": float(budget),
        "intercept": fit.intercept,
        "coef": [float(c) for c in fit.coef],
        "converged": fit.converged,
    }
    wave = poisson(
        fit.stage2_own,
        eligible=~np.asarray(pilot, dtype=bool),
        seed=seed,
        name="two-stage",
        params=params,
    )
    return wave, fit
