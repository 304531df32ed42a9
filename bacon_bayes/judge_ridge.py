"""The judges' ridge, cross-fitted leave-one-out in closed form: the surrogate
``"judge_ridge"`` (:mod:`bacon_bayes.surrogates`).

The linear regression of the label on the judges' scores: an intercept and the judges'
first principal component (:func:`bacon_bayes.surrogates.judge_pc1`, standardised),
both unpenalised, and every judge's score standardised by its spread over the whole pool
(winsorised at the 0.5% and 99.5% quantiles, a missing score at its judge's mean; nothing
here depends on the labels), ridge-penalised with the fixed penalty :data:`PENALTY`. With
the penalty fixed, each labeled item's leave-one-out fit is exact in closed form
(Sherman-Morrison): ``beta_(-i) = beta - M^-1 a_i r_i`` with ``r_i = e_i / (1 - h_ii)``
the leave-one-out residual, and its prediction is ``y_i - r_i``. So every labeled item's
surrogate comes from a model that never saw its label (``n`` folds of one item each),
and every other item gets the design-weighted average of the ``n`` leave-one-out models
(:mod:`bacon_bayes.crossfit`'s rule, per domain for group estimands).

Why leave-one-out: at 36-160 labels a 5-fold cross-fit trains each fold model on 80% of
them, and the fold models' disagreement is noise the AEE mean carries; with ``n`` folds
each model sees ``n - 1`` labels. The AEE uses this surrogate with the weight 1 (the fit
already calibrates it; a power-tuned weight added noise: RMSE 1.014x against 0.996x
ppi-aipw's at a penalty of ``n / 2``). Why the pool's spread: a judge nearly constant on
the few labeled items blew a prototype standardised by them up to 1e13.

Why a fixed penalty: chosen per draw by leave-one-out error, the penalty was noisy at 36
labels (RMSE 1.004x ppi-aipw's with the weight 1, max 1.037x); a fixed penalty of 18-32
(a prior worth that many labels on each standardised judge's deviation from the
component) gave 0.989-0.991x over the 12 tables of ``benchmarks/small_budget.py`` (both
seeds, 400 draws a table), ``24`` 0.989x, max 1.004x, coverage 0.935-0.968 (band
0.922-0.978). The penalty was chosen on those 12 tables (EXPERIMENTS.md "Small budgets").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bacon_bayes.crossfit import CrossFitResult, _design_weight
from bacon_bayes.order import unique_codes
from bacon_bayes.pool import EvalPool

#: the ridge penalty on the pool-standardised judges (see the module docstring)
PENALTY = 24.0


def standardised_judges(
    pool: EvalPool, winsor: tuple[float, float] = (0.005, 0.995)
) -> tuple[np.ndarray, np.ndarray]:
    """(N, p) the judges' scores over the pool, a missing score at its judge's mean,
    clipped at the ``winsor`` quantiles and standardised (a constant judge: zeros); and
    each judge's sd after clipping. No label is used."""
    X = pool.judge_matrix().to_numpy(float)
    X = np.where(np.isfinite(X), X, np.nanmean(X, axis=0))
    lo, hi = np.quantile(X, winsor, axis=0)
    X = np.clip(X, lo, hi)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, np.inf), sd


def design(pool: EvalPool, pc: np.ndarray) -> np.ndarray:
    """(N, 2 + p): an intercept, the judges' first principal component ``pc`` standardised,
    each judge's winsorised score standardised over the pool (a constant judge: zeros)."""
    Z, _ = standardised_judges(pool)
    spread = pc.std()
    pcz = (pc - pc.mean()) / spread if spread > 0 else np.zeros_like(pc)
    return np.column_stack([np.ones(len(pc)), pcz, Z])


@dataclass
class LooFit(CrossFitResult):
    """A linear model's leave-one-out fits: the model without fold ``k`` (one labeled
    item, or one prompt's labeled items) has coefficients ``coefs[k]``; ``X`` is the
    design. ``models`` is empty: the fold models are the rows of ``coefs``, averaged
    linearly (:meth:`surrogate`)."""

    coefs: np.ndarray

    def surrogate(self, domains: np.ndarray | None = None) -> np.ndarray:
        """Leave-one-out predictions for labeled items; elsewhere the average of the
        leave-one-out models with the design-weight shares of the item's domain's
        labels (the pool's, when ``domains`` is None or a domain has no label)."""
        if domains is None:
            return self.mean
        names, codes = unique_codes(domains)
        lab = self.labeled
        mass = np.zeros((names.size, self.coefs.shape[0]))
        np.add.at(mass, (codes[lab], self.fold_ids[lab]), self.design_weight[lab])
        total = mass.sum(axis=1, keepdims=True)
        shares = np.where(total > 0, mass / np.where(total > 0, total, 1.0), self.weights)
        out = np.einsum("ij,ij->i", self.X, (shares @ self.coefs)[codes])
        out[lab] = self.mean[lab]
        return out


def fit(pool: EvalPool, pc: np.ndarray, penalty: float = PENALTY) -> LooFit:
    """The judges' ridge on ``pool``'s labels, with its leave-one-out fits (see the
    module docstring); ``pc``: the judges' first principal component per item. With
    prompts (``pool.prompts``) each fold is one prompt's labeled items (leave one prompt
    out, as :func:`~bacon_bayes.crossfit.make_folds` splits folds by prompt):
    ``r_g = (I - H_gg)^-1 e_g``, ``beta_(-g) = beta - M^-1 A_g' r_g``."""
    A = design(pool, pc)
    lab = pool.labeled
    y = pool.y[lab]
    As = A[lab]
    pen = np.r_[0.0, 0.0, np.ones(A.shape[1] - 2)]
    Minv = np.linalg.pinv(As.T @ As + penalty * np.diag(pen))
    beta = Minv @ (As.T @ y)
    e = y - As @ beta
    if pool.prompts is None:
        folds = np.arange(y.size)
        h = np.einsum("ij,jk,ik->i", As, Minv, As)
        r = e / np.maximum(1.0 - h, 1e-9)
        coefs = beta[None, :] - (As @ Minv) * r[:, None]  # row j: the fit without item j
    else:
        _, folds = np.unique(np.asarray(pool.prompts)[lab].astype(str), return_inverse=True)
        r = np.empty_like(e)
        coefs = np.empty((int(folds.max()) + 1, A.shape[1]))
        for g in range(coefs.shape[0]):
            rows = folds == g
            Ag = As[rows]
            r[rows] = np.linalg.solve(np.eye(Ag.shape[0]) - Ag @ Minv @ Ag.T, e[rows])
            coefs[g] = beta - Minv @ (Ag.T @ r[rows])
    fold_ids = np.full(pool.n_items, -1)
    fold_ids[lab] = folds
    dw = _design_weight(lab, pool.propensity)
    mass = np.bincount(folds, weights=dw[lab], minlength=coefs.shape[0])
    weights = mass / mass.sum()
    mean = A @ (weights @ coefs)
    mean[lab] = y - r  # the fit without the item's fold
    return LooFit(fold_ids, [], weights, A, mean, dw, coefs)
