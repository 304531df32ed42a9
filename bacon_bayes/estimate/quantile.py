"""The pool CDF and quantiles by the augmented estimating equation ``F(theta) = q``
(Woodruff intervals), with the classical and naive baselines."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.core import (
    Target,
    _check_alpha,
    _prepare,
    _t_crit,
    mean_core,
    residual_floor,
    variance_coefficients,
)
from bacon_bayes.results import Estimate

if TYPE_CHECKING:
    from bacon_bayes.pool import OutcomeSpec

#: Candidate values of a quantile: half of them quantiles of the labels, half of the
#: surrogate (:func:`quantile_grid`).
GRID_SIZE = 400


def aee_cdf(
    y: np.ndarray,
    phi: np.ndarray,
    grid: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
    phi_total: np.ndarray | None = None,
    floor: bool = True,
) -> tuple[np.ndarray, np.ndarray, int]:
    """AEE estimate of the pool CDF ``F(t) = mean_i 1{y_i <= t}`` on a grid.

    ``phi[i, k] = P(Y_i <= grid[k] | x_i)`` from the cross-fitted predictive
    distribution (zeros give the classical estimate). With ``phi_total`` (its column sums
    over all items, :meth:`~bacon_bayes.crossfit.CrossFitResult.cdf_parts`), ``phi`` holds
    the labeled items' rows only, in item order: no (N, T) array. ``floor``: each point's
    variance at least the residual floor of its 0/1 indicator (:func:`cdf_floor`, as the
    pool mean's; off for the labels alone). Returns ``(F, se, n)``.
    """
    grid = np.asarray(grid, dtype=float)
    phi = np.asarray(phi, dtype=float)
    idx, y_lab, pi_lab, n_items = _prepare(
        y, None if phi_total is not None else phi, labeled, pi, hajek
    )
    if phi_total is None:
        phi_lab, total = phi[idx], phi.sum(axis=0)
    elif phi.shape != (idx.size, grid.size) or np.shape(phi_total) != (grid.size,):
        raise ValidationError(
            f"with phi_total, phi must hold the {idx.size} labeled items' rows on the "
            f"{grid.size} grid points and phi_total one sum per grid point; got "
            f"{phi.shape} and {np.shape(phi_total)}."
        )
    else:
        phi_lab, total = phi, np.asarray(phi_total, dtype=float)
    ind = (y_lab[None, :] <= grid[:, None]).astype(float)
    theta, var, _, n = mean_core(
        ind,
        phi_lab.T,
        np.broadcast_to(pi_lab, ind.shape),
        total,
        n_items,
        power_tuning=power_tuning,
        hajek=hajek,
        target=target,
    )
    if floor:
        var = cdf_floor(var, ind, pi_lab, n_items, target)
    return theta, np.sqrt(np.maximum(var, 0.0)), int(n[0])


def cdf_floor(
    var: np.ndarray, ind: np.ndarray, pi_lab: np.ndarray, n_items: int, target: Target
) -> np.ndarray:
    """``var``, the CDF's variance per grid point, raised to at least what the residual
    floor (:func:`~bacon_bayes.estimate.core.residual_floor`) of that point's 0/1 indicator
    ``ind[k]`` gives through the design formula, as for the pool mean: at a tail point a
    few events among the labels, with a weight tuned on them, otherwise read a variance
    near 0 (H2: SummEval relevance, 24 labels, q=0.1 covered 0.888)."""
    n = ind.shape[-1]
    if n < 2:
        return var
    one_step = residual_floor(np.r_[0.0, np.ones(n - 1)])  # 0/1 indicator: a step of 1
    both = (ind.min(axis=-1) < ind.max(axis=-1)).astype(float)
    c = variance_coefficients(1.0 / pi_lab, pi_lab, target)
    design = np.asarray(c, dtype=float).sum(axis=-1) / float(n_items) ** 2
    return np.maximum(var, both * one_step * design)


def label_atoms(y_lab: np.ndarray) -> np.ndarray:
    """The values more than one label takes: where a continuous label's CDF jumps (means of
    a few ratings, scores on a coarse scale). The quantile there is the value itself, not an
    interpolation toward the grid point below (which no label takes)."""
    values, counts = np.unique(np.asarray(y_lab, dtype=float), return_counts=True)
    return values[(counts > 1) & np.isfinite(values)]


def _invert(
    grid: np.ndarray, cdf: np.ndarray, p: float, discrete: bool, atoms: np.ndarray | None = None
) -> float:
    """Generalised inverse of a monotone CDF on a grid: linear between grid points, a step
    at an atom (``atoms``: a mask of the grid) and everywhere when ``discrete``. ``p`` at
    1 or above (a band past ``F = 1``) is the grid's top: an estimated ``F`` of 1 at a
    lower point does not rule out labels above it."""
    if p >= 1.0:
        return float(grid[-1])
    p = max(float(p), 0.0)
    k = int(np.searchsorted(cdf, p, side="left"))
    if k >= grid.size:
        return float(grid[-1])
    step = atoms is not None and bool(atoms[k])
    if discrete or step or k == 0 or cdf[k] == cdf[k - 1]:
        return float(grid[k])
    frac = (p - cdf[k - 1]) / (cdf[k] - cdf[k - 1])
    return float(grid[k - 1] + frac * (grid[k] - grid[k - 1]))


def _quantile_from_cdf(
    grid: np.ndarray,
    cdf: np.ndarray,
    se: np.ndarray,
    n: int,
    n_items: int,
    q: float,
    alpha: float,
    discrete: bool,
    method: str,
    atoms: np.ndarray | None = None,
    **details: object,
) -> Estimate:
    """Woodruff interval: invert the CDF's own confidence band at level ``q`` (``atoms``:
    the grid's mask of values labels take more than once, steps of the inverse).

    The band's se is the CDF's at the estimate (Woodruff's), except where the estimate's
    point reads ``F = 1`` or se 0 (above every label: its indicator never varies, so its se
    says nothing): there it is the se at the grid point below, where ``F`` crosses ``q``.
    Before, such an interval collapsed to a point (H1: SummEval relevance, 24 labels,
    q=0.98 covered 0.39)."""
    mono = np.maximum.accumulate(np.clip(cdf, 0.0, 1.0))
    theta = _invert(grid, mono, q, discrete, atoms)
    k = int(np.clip(np.searchsorted(grid, theta), 0, grid.size - 1))
    se_f = float(se[k])
    if (mono[k] >= 1.0 or se_f == 0.0) and k > 0:
        se_f = max(se_f, float(se[k - 1]))
    crit = float(_t_crit(alpha, n))
    lo = _invert(grid, mono, q - crit * se_f, discrete, atoms)
    hi = _invert(grid, mono, q + crit * se_f, discrete, atoms)
    zcrit = crit if crit > 0 else 1.0
    return Estimate(
        estimand=f"quantile({q:g})",
        method=method,
        estimate=theta,
        se=(hi - lo) / (2.0 * zcrit),
        ci_low=lo,
        ci_high=hi,
        n_labeled=n,
        n_items=n_items,
        alpha=alpha,
        details={"df": n - 1, "cdf_se": se_f, "interval": "woodruff", **details},
    )


def aee_quantile(
    y: np.ndarray,
    phi: np.ndarray,
    grid: np.ndarray,
    q: float,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    alpha: float = 0.05,
    discrete: bool = False,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
    phi_total: np.ndarray | None = None,
    floor: bool = True,
) -> Estimate:
    """AEE quantile by the augmented estimating equation ``F(theta) = q``.

    Parameters
    ----------
    phi : array, shape (N, T)
        ``P(Y_i <= grid[k] | x_i)`` from the cross-fitted predictive distribution; with
        ``phi_total``, the labeled items' rows only (n_labeled, T).
    grid : array, shape (T,)
        Increasing candidate values (include every level for discrete outcomes).
    q : float
        Quantile level in (0, 1).
    discrete : bool
        Step inverse (ordinal/categorical labels) instead of linear interpolation; a
        continuous label's values that several labels take are steps too
        (:func:`label_atoms`: include them in ``grid``).
    phi_total : array, shape (T,), optional
        ``phi``'s column sums over all N items, when ``phi`` holds the labeled rows only.
    floor : bool
        The CDF's variance at least its indicators' residual floor (:func:`cdf_floor`).

    Notes
    -----
    The interval is Woodruff's: the ``1 - alpha`` band of ``F`` at the estimate,
    mapped back through the estimated CDF. Its implied standard error is the
    sandwich ``se(F) / density``, without a separate density estimate.
    """
    _check_alpha(alpha)
    if not isinstance(q, (int, float, np.number)) or not 0.0 < q < 1.0:
        raise ValidationError(
            f"quantile level q={q!r} must be one number strictly between 0 and 1"
            + ("; call once per level." if np.ndim(q) else ".")
        )
    grid = np.asarray(grid, dtype=float)
    if grid.ndim != 1 or np.any(np.diff(grid) <= 0):
        raise ValidationError("grid must be a strictly increasing 1-D array of candidate values.")
    cdf, se, n = aee_cdf(
        y,
        phi,
        grid,
        labeled,
        pi,
        power_tuning=power_tuning,
        hajek=hajek,
        target=target,
        phi_total=phi_total,
        floor=floor,
    )
    y = np.asarray(y, dtype=float)
    seen = y[np.isfinite(y)] if labeled is None else y[np.asarray(labeled, dtype=bool)]
    atoms = np.isin(grid, label_atoms(seen))
    return _quantile_from_cdf(
        grid, cdf, se, n, np.shape(y)[0], q, alpha, discrete, "aee", atoms, target=target
    )


def classical_quantile(
    y: np.ndarray,
    grid: np.ndarray,
    q: float,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | None = None,
    *,
    alpha: float = 0.05,
    discrete: bool = False,
    hajek: bool = True,
    target: Target = "pool",
) -> Estimate:
    """Quantile from the human labels alone (Woodruff interval)."""
    y = np.asarray(y, dtype=float)
    n_lab = int(np.sum(~np.isnan(y)) if labeled is None else np.sum(np.asarray(labeled, bool)))
    e = aee_quantile(
        y,
        np.zeros((n_lab, np.size(grid))),  # the labeled rows only: no (N, T) zeros
        grid,
        q,
        labeled,
        pi,
        alpha=alpha,
        discrete=discrete,
        power_tuning=False,
        hajek=hajek,
        target=target,
        phi_total=np.zeros(np.size(grid)),
        floor=False,
    )
    return replace(e, method="classical")


def naive_quantile(judge_avg: np.ndarray, q: float, *, alpha: float = 0.05) -> Estimate:
    """Quantile of the raw judge average over all items (no human labels)."""
    a = np.sort(np.asarray(judge_avg, dtype=float))
    n = a.size
    theta = float(np.quantile(a, q))
    # distribution-free order-statistic interval for the quantile of the judge average
    z = stats.norm.ppf(1 - alpha / 2)
    lo_k = int(np.clip(np.floor(n * q - z * np.sqrt(n * q * (1 - q))), 0, n - 1))
    hi_k = int(np.clip(np.ceil(n * q + z * np.sqrt(n * q * (1 - q))), 0, n - 1))
    lo, hi = float(a[lo_k]), float(a[hi_k])
    return Estimate(
        f"quantile({q:g})", "naive", theta, (hi - lo) / (2 * z), lo, hi, 0, n, alpha, {}
    )


def quantile_grid(
    outcome: OutcomeSpec,
    labels: np.ndarray,
    surrogate: np.ndarray,
    bounds: tuple[float, float] = (-np.inf, np.inf),
) -> np.ndarray:
    """Candidate values for quantiles: the outcome's levels, or ``GRID_SIZE // 2``
    quantiles each of the labels and of the surrogate, every label value seen more than once
    (an atom, where the CDF jumps: means of a few ratings; :func:`~bacon_bayes.estimate.
    quantile.label_atoms`), zero for a non-negative label and the finite ends of the
    label's range ``bounds`` (``scale``), so that an interval can reach them."""
    if outcome.levels is not None:
        return np.asarray(outcome.levels, dtype=float)
    probs = np.linspace(0, 1, GRID_SIZE // 2)
    pts = [np.quantile(labels, probs), np.quantile(surrogate, probs), label_atoms(labels)]
    if outcome.kind == "nonnegative":
        pts.append(np.zeros(1))
    ends = np.asarray(bounds, dtype=float)
    pts.append(ends[np.isfinite(ends)])
    return np.unique(np.concatenate(pts))
