"""Model options chosen from the data, per fit (per cross-fitting fold, from its training
labels only, so the surrogate of a fold never depends on that fold's labels).

* :func:`prefers_sqrt`: the hurdle's positive part on the log or square-root scale
  (``positive_scale="auto"``);
* :func:`prefers_judge_weights`: whether the label link also weighs the judges' scores
  itself (``judge_weights="auto"`` of the ordinal and hurdle families; the gaussian's
  are always on, ``JudgeModel.weights_by_default``).

Both are cheap least-squares proxies of the Bayesian link, measured against what the
Bayesian fits then gave (BENCHMARKS.md).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg, stats

from bacon_bayes.bayes.columns import judge_basis

__all__ = [
    "JUDGE_WEIGHT_GAIN",
    "SQRT_GAIN",
    "consensus",
    "one_factor_scores",
    "prefers_judge_weights",
    "prefers_sqrt",
]

#: judge weights: least relative drop of the leave-one-out error, and of its standard errors
JUDGE_WEIGHT_GAIN = (0.02, 2.0)
#: square-root scale: least relative drop of the squared error against the log scale, and
#: of its standard errors (one-sided 5%); the log scale stays unless the square root is
#: clearly better (simulated log-normal labels: at most 1.4 SE; squared-normal ones and
#: WMT22 MQM: at least 1.9 and 3.5 SE, in every fold)
SQRT_GAIN = (0.05, 1.645)
#: one factor's fit: sklearn's defaults (the log-likelihood of all items gains less than
#: ``FACTOR_TOL``, or ``FACTOR_MAX_ITER`` steps)
FACTOR_TOL, FACTOR_MAX_ITER = 1e-2, 1000
_SMALL = 1e-12


def _clearly_better(base: np.ndarray, other: np.ndarray, gain: tuple[float, float]) -> bool:
    """Whether per-item squared errors ``other`` beat ``base`` by at least ``gain[0]`` of
    its mean and ``gain[1]`` standard errors of the paired differences (heavy tails and
    few items make a chance gain count for little)."""
    d = base - other
    se = d.std(ddof=1) / np.sqrt(d.size)
    return bool(d.mean() >= gain[0] * base.mean() and d.mean() >= gain[1] * se)


def prefers_sqrt(y: np.ndarray, scores: np.ndarray) -> bool:
    """Whether the square-root scale predicts positive labels ``y`` better than the log scale.

    On each scale a linear regression of the transformed labels on ``scores`` (the
    judges' scores) with normal residuals implies a conditional mean of ``y``:
    ``exp(f + s^2/2)`` (log) or ``f^2 + s^2`` (square root). The square root is chosen
    when its mean's squared errors on ``y`` are clearly smaller (``SQRT_GAIN``): the
    surrogate is that mean, and the log-normal's overstates it when the log residuals
    are left-skewed (WMT22 MQM: 15-19% smaller errors). With fewer than
    ``10 + columns`` labels the log scale is kept.
    """
    y = np.asarray(y, dtype=float)
    scores = np.asarray(scores, dtype=float)
    # an intercept; constant score columns (e.g. a judge observed everywhere) add nothing
    design = np.column_stack([np.ones(y.size), scores[:, np.ptp(scores, axis=0) > 0]])
    if y.size < design.shape[1] + 11:
        return False

    def fitted(t: np.ndarray) -> tuple[np.ndarray, float]:
        f = design @ np.linalg.lstsq(design, t, rcond=None)[0]
        return f, float(np.mean((t - f) ** 2))

    f, s2 = fitted(np.log(y))
    err_log = (y - np.exp(f + s2 / 2)) ** 2
    f, s2 = fitted(np.sqrt(y))
    return _clearly_better(err_log, (y - (f * f + s2)) ** 2, SQRT_GAIN)


def _loo_errors(design: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Squared leave-one-out errors of least squares (hat-matrix identity)."""
    q, _ = np.linalg.qr(design)
    lev = np.minimum((q * q).sum(axis=1), 1.0 - 1e-9)
    resid = t - q @ (q.T @ t)
    return (resid / (1.0 - lev)) ** 2


def consensus(scores: np.ndarray) -> np.ndarray:
    """The judges' consensus per item: the score of one factor (factor analysis of the
    standardised judge scores of all items, labels unused), which weighs each judge by
    its reliability as the Bayesian latent quality does. One factor needs three judges
    to be identified: with fewer (or a degenerate fit) it is the first principal
    component."""
    if scores.shape[1] >= 3:
        agreed = one_factor_scores(scores)
        if agreed.std() > 1e-6:
            return agreed
    return scores @ judge_basis(scores)[:, -1]


def one_factor_scores(
    X: np.ndarray, tol: float = FACTOR_TOL, max_iter: int = FACTOR_MAX_ITER
) -> np.ndarray:
    """Posterior-mean scores of a one-factor model fitted by maximum likelihood.

    sklearn's ``FactorAnalysis(n_components=1)`` algorithm (Barber 2012, 21.2) run on the
    columns' covariance instead of the data: each step's singular value decomposition of
    the rescaled data is the top eigenpair of the rescaled covariance, so a step costs
    ``k^3``, not ``n k^2`` (WMT22's 30,000 items: 0.08 s against sklearn's 8 s,
    BENCHMARKS.md). Short of ``tol`` after ``max_iter`` steps the last step's fit is used,
    as sklearn's is. The factor is oriented so that its loadings sum to at least zero.
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    centred = X - X.mean(axis=0)
    cov = centred.T @ centred / n
    var = np.diag(cov).copy()
    psi = np.ones(k)
    old = -np.inf
    for _ in range(max_iter):
        root = np.sqrt(psi) + _SMALL
        scaled = cov / np.outer(root, root)
        top, vec = linalg.eigh(scaled, subset_by_index=[k - 1, k - 1])
        s = float(top[0])
        w = np.sqrt(max(s - 1.0, 0.0)) * vec[:, 0] * root
        ll = -n / 2 * (k * np.log(2 * np.pi) + 1 + np.log(s) + np.trace(scaled) - s)
        ll -= n / 2 * np.sum(np.log(psi))
        if ll - old < tol:
            break
        old = ll
        psi = np.maximum(var - w**2, _SMALL)
    if w.sum() < 0:
        w = -w
    wpsi = w / psi
    return centred @ wpsi / (1.0 + wpsi @ w)


def prefers_judge_weights(y: np.ndarray, scores: np.ndarray, agreed: np.ndarray) -> bool:
    """Whether the labels ``y`` ask for weights on the judges beyond their consensus.

    ``scores``: the labeled items' standardised judge scores; ``agreed``: their
    :func:`consensus`. Compared: the leave-one-out error of a linear regression of the
    labels' normal scores (ranks, so any outcome family and scale) on the consensus
    alone, and on every judge's score. Weights pay when the judges' own scores cut it
    clearly (``JUDGE_WEIGHT_GAIN``: by 2% and two standard errors of the paired per-item
    differences; the leave-one-out error charges the extra coefficients, and the
    standard error keeps a chance gain on few labels from counting). Measured (10%
    labels, 5 folds): WMT22 MQM, 10 metrics: gain 4.4-5.1%, 4.1-4.7 standard errors in
    every fold (on); SummEval, about 96 labels, 9 LLM judges: -2 to -8% (off); the
    Bayesian fits agree (BENCHMARKS.md).
    """
    y = np.asarray(y, dtype=float)
    n, k = scores.shape
    if n < k + 11:
        return False
    t = stats.norm.ppf((stats.rankdata(y) - 0.5) / n)
    ones = np.ones((n, 1))
    alone = _loo_errors(np.hstack([ones, np.asarray(agreed, dtype=float)[:, None]]), t)
    every = _loo_errors(np.hstack([ones, scores]), t)
    return _clearly_better(alone, every, JUDGE_WEIGHT_GAIN)
