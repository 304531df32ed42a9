"""Bradley-Terry strengths of models compared in pairs, with AEE intervals.

Ties by quasi-likelihood: the human score of model ``a`` in a comparison is ``y = 1``
(win), ``0.5`` (tie) or ``0`` (loss), and the strengths ``theta`` solve

    sum_i (y_i - sigma(theta_a - theta_b)) (e_a - e_b) = 0,   sum_m theta_m = 0

(the Bradley-Terry score equation, which a tie enters as half a win; the mean-zero
constraint identifies the strengths). The equation is linear in ``y``, so the AEE with
cross-fitted surrogates ``yhat`` of ``E[y | judges]`` and power-tuning weight ``lambda``
is exact:

    sum_all lambda (yhat_i - s_i) x_i
      + sum_labeled (1 / pi_i) [(y_i - s_i) - lambda (yhat_i - s_i)] x_i = 0,

``s_i = sigma(x_i' theta)``, ``x_i = e_a - e_b``, solved by Newton in the reduced
parametrisation (model 0's strength fixed at 0; mapped to mean zero by the Jacobian
``J``). ``lambda = 0`` is the labels alone: the inverse-probability-weighted Bradley-Terry
fit of the labeled rows (with uniform ``pi`` exactly the plain MLE on them). The
equation is the score of a weighted logistic fit with pseudo-outcomes, so it is concave
and Newton with step halving converges whenever a finite solution exists.

Variance: sandwich ``H^-1 B H^-1`` (``H`` the equation's Jacobian, ``B`` the design
variance of the labeled correction term ``sum_labeled (1/pi) r_i x_i``,
``r_i = (y_i - s_i) - lambda (yhat_i - s_i)``: centred, with the finite-population
correction, for a simple random sample (``pi=None``); Poisson-type ``(1 - pi) / pi^2``
for given ``pi``; times ``n / (n - p)`` for the ``p = M - 1`` fitted strengths, and
``lambda`` when tuned, as HC1), mapped by ``J``, and scaled by ``nu / (nu - 2)``, the
variance of a Student-t on each strength's effective number ``nu`` of labeled
comparisons (:func:`effective_df`, ``nu`` at least ``MIN_DF``): a model compared a
handful of times gets a wider interval, a well-compared one nearly the sandwich's.
``target="pool"`` estimates the fit on all ``N`` rows with human labels;
``"population"`` the superpopulation strengths, adding the variance of the full-pool
score (its Horvitz-Thompson estimate ``sum_labeled (1/pi) g g'``, ``g = (y - s) x``).
Comparisons on one prompt are correlated (a model good at a prompt wins all its
comparisons there), so under ``target="population"`` with ``prompts`` that repeat, the
meat is cluster-robust: each comparison's estimating-function term ``psi_i = lambda
(yhat_i - s_i) x_i + S_i (1/pi_i) r_i x_i`` (the surrogate term of every comparison and
the labeled correction) is summed within prompts, ``B = sum_p (Psi_p - Psibar)(Psi_p -
Psibar)'`` over the ``P`` prompts times CR1's ``P / (P - 1) (n - 1) / (n - p)``
(:mod:`bacon_bayes.estimate.clustered` sums by prompt the same way for means), and ``nu`` is the
Satterthwaite df of the prompt sums (:func:`effective_df` with ``clusters``); power
tuning then minimises this clustered trace. ``target="pool"`` holds the comparisons
fixed, and labels drawn one comparison at a time are independent: not clustered.
Power tuning picks the ``lambda`` in ``[0, 1]`` that minimises the trace of the
strengths' covariance (PPI++ for M-estimators, Angelopoulos, Duchi & Zrnic 2023);
several surrogate columns are averaged first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from scipy import stats
from scipy.special import expit

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.bt_guards import (
    MIN_LABELED,
    check_graph,
    floor_covariance,
    separated,
    vote_warnings,
    withhold_unvalidated,
)
from bacon_bayes.estimate.clustered import prompt_codes
from bacon_bayes.estimate.core import _check_alpha, variance_coefficients
from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.estimate.tables import correlation, group_table
from bacon_bayes.results import Estimate, EstimateTable

#: Elo points per natural log-odds unit, and the Elo scale's centre
ELO = 400.0 / np.log(10.0)
ELO_CENTRE = 1000.0
#: a strength beyond this many log-odds units from the mean counts as infinite
DIVERGED = 25.0
#: the smallest surrogate weight when some model has no labeled comparison
MIN_LAMBDA = 0.05
#: the fewest effective labeled comparisons in the variance inflation ``nu / (nu - 2)``
MIN_DF = 3.0
#: a surest vote the judges' prediction counts as in the fallback (0 or 1 has no root)
SURE = 0.01


def _codes(a: np.ndarray, b: np.ndarray, n_models: int | None, names) -> tuple:
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValidationError("a and b must be 1-D arrays of the same length (one per comparison).")
    if not (np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer)):
        raise ValidationError("a and b must be integer model codes 0..M-1.")
    m = n_models if n_models is not None else (len(names) if names is not None else None)
    if m is None:
        m = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
    names = [f"model{k}" for k in range(m)] if names is None else [str(n) for n in names]
    if len(names) != m:
        raise ValidationError(f"{len(names)} names for {m} models; pass one name per model.")
    if m < 2:
        raise ValidationError("Bradley-Terry needs at least two models.")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= m):
        raise ValidationError(f"model codes must lie in 0..{m - 1}.")
    same = np.flatnonzero(a == b)
    if same.size:
        raise ValidationError(
            f"comparison {int(same[0])} pits model {names[a[same[0]]]!r} against itself; "
            "drop it or fix model_a / model_b."
        )
    return a.astype(np.intp), b.astype(np.intp), m, names


def _by_pair(a, b, m, v, vz) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Weights ``v`` and ``v z`` summed per ordered pair (the fit needs only these)."""
    key = a * m + b
    uniq, inv = np.unique(key, return_inverse=True)
    return (
        uniq // m,
        uniq % m,
        np.bincount(inv, weights=v, minlength=uniq.size),
        np.bincount(inv, weights=vz, minlength=uniq.size),
    )


def comparison_hessian(a: np.ndarray, b: np.ndarray, m: int, wt: np.ndarray) -> np.ndarray:
    """``sum wt x x'`` over comparisons, full ``m x m`` (``x = e_a - e_b``): the strengths'
    Hessian with ``wt = s (1 - s)`` times the rows' weights (also the designs',
    :func:`bacon_bayes.sampling.pairwise.strength_map`)."""
    h = np.zeros((m, m))
    np.add.at(h, (a, a), wt)
    np.add.at(h, (b, b), wt)
    np.add.at(h, (a, b), -wt)
    np.add.at(h, (b, a), -wt)
    return h


def _newton(a, b, m, v, vz, start=None) -> tuple[np.ndarray, bool]:
    """Maximise ``sum v z eta - v log(1 + e^eta)``, ``eta = t_a - t_b``, ``t_0 = 0``.

    Returns the strengths (``t_0 = 0``) and whether they converged finite.
    """
    pa, pb, pv, pvz = _by_pair(a, b, m, v, vz)
    t = np.zeros(m) if start is None else start - start[0]

    def objective(t: np.ndarray) -> float:
        eta = t[pa] - t[pb]
        return float(pvz @ eta - pv @ np.logaddexp(0.0, eta))

    q = objective(t)
    for _ in range(200):
        s = expit(t[pa] - t[pb])
        r = pvz - pv * s
        g = np.bincount(pa, weights=r, minlength=m) - np.bincount(pb, weights=r, minlength=m)
        h = comparison_hessian(pa, pb, m, pv * s * (1.0 - s))[1:, 1:]
        step = np.zeros(m)
        step[1:] = np.linalg.lstsq(h, g[1:], rcond=None)[0]
        k = 1.0
        while k > 1e-8:
            t_new = t + k * step
            q_new = objective(t_new)
            if q_new >= q - 1e-12 * abs(q):
                break
            k /= 2.0
        t, q = t_new, q_new
        if np.abs(t - t.mean()).max() > 2 * DIVERGED:
            return t, False
        if np.abs(k * step).max() < 1e-10:
            return t, bool(np.abs(t - t.mean()).max() < DIVERGED)
    return t, False


def bradley_terry_fit(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    n_models: int,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Plain (weighted) Bradley-Terry strengths, ties as ``y = 0.5``, mean zero.

    Rows with a NaN ``y`` are skipped. This is the full-data target of
    :func:`bradley_terry` when called on every row with its human label.

    Returns
    -------
    ndarray, shape (n_models,)
        Natural log-odds strengths; ``inf``/``-inf`` entries are not produced: a fit
        that does not converge (a model winning all its comparisons) raises.
    """
    a, b, m, names = _codes(a, b, n_models, None)
    y = np.asarray(y, dtype=float)
    keep = np.isfinite(y)
    w = np.ones(y.size) if weights is None else np.asarray(weights, dtype=float)
    a, b, y, w = a[keep], b[keep], y[keep], w[keep]
    check_graph(a, b, m, names, "comparisons")
    t, ok = _newton(a, b, m, w, w * y)
    if not ok:
        raise ValidationError(
            "the Bradley-Terry fit does not converge: some model wins (or loses) all its "
            "comparisons, so its maximum-likelihood strength is infinite."
        )
    return t - t.mean()


def _design_meat(z: np.ndarray, c: np.ndarray, centre: bool) -> np.ndarray:
    """``sum c z z'`` (centred, times ``n / (n - 1)``, for a simple random sample)."""
    if centre:
        z = z - z.mean(axis=0)
        return (c[:, None] * z).T @ z * (z.shape[0] / max(z.shape[0] - 1, 1))
    return (c[:, None] * z).T @ z


def _xred(a: np.ndarray, b: np.ndarray, m: int) -> np.ndarray:
    """The comparisons' design rows ``e_a - e_b`` without model 0's column."""
    x = np.zeros((a.size, m))
    x[np.arange(a.size), a] = 1.0
    x[np.arange(a.size), b] = -1.0
    return x[:, 1:]


def _cluster_sums(z: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """The rows of ``z`` summed within each cluster code (one row per code present)."""
    _, inv = np.unique(clusters, return_inverse=True)
    out = np.zeros((int(inv.max(initial=-1)) + 1, z.shape[1]))
    np.add.at(out, inv, z)
    return out


def prompt_scatter(z: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """The rows of ``z`` (estimating-function terms) summed within prompts, centred:
    ``P / (P - 1) sum_p Z_p Z_p'`` (``P`` prompts)."""
    zp = _cluster_sums(z, clusters)
    n_p = zp.shape[0]
    zp = zp - zp.mean(axis=0)
    return zp.T @ zp * (n_p / max(n_p - 1, 1))


def _prompt_meat(z: np.ndarray, clusters: np.ndarray, n_lab: int, spent: int) -> np.ndarray:
    """Cluster-robust meat: :func:`prompt_scatter` times ``(n - 1) / (n - spent)`` (``n``
    labeled comparisons; with it the CR1 factor, which is the HC1 factor ``n / (n -
    spent)`` of the independent meat when no prompt repeats). ``P / (P - spent)``
    instead, HC1 with the prompts as units, over-covered: 0.960 and 0.972 at 40 and 25
    prompts of 5 models (300 draws of ``tests/test_bradley_terry.py``'s
    ``_prompt_draw``)."""
    return prompt_scatter(z, clusters) * (n_lab - 1) / max(n_lab - spent, 1)


def effective_df(
    influence: np.ndarray,
    coef: np.ndarray,
    weights: np.ndarray | None = None,
    clusters: np.ndarray | None = None,
) -> np.ndarray:
    """Each strength's degrees of freedom: the effective number of labeled comparisons in
    its sandwich variance.

    The variance of strength ``k`` is ``sum_i q_ik r_i^2`` over the labeled comparisons,
    ``q_ik = coef_i L_ik^2`` (``L_ik`` comparison ``i``'s influence on strength ``k``,
    ``coef_i`` its design coefficient). With residuals of equal variance it is a weighted
    sum of squares whose Satterthwaite df is ``(sum_i q_ik)^2 / sum_i q_ik^2`` (Bell &
    McCaffrey 2002's working model, without their projection): about the number of labeled
    comparisons of a model that has few, many more for a well-compared one (its variance
    also draws on the others' through the mean-zero anchor). :func:`bradley_terry` scales
    the variance by ``nu / (nu - 2)``, a Student-t's: the sandwich is a first-order
    variance, and a model with few labeled comparisons carries little information, so
    the logit's curvature adds a term of relative size about ``1 / nu`` that it misses.
    At 500 of arena_ppr's votes a model with 16 labeled comparisons had a sandwich
    variance 0.75 of its estimate's (0.72 even at the true strengths) and covered 0.907;
    a t critical value instead of the inflation fixes that model too, but over-covers
    the simultaneous intervals (their far tail; EXPERIMENTS.md).

    Parameters
    ----------
    influence : ndarray, shape (n, M)
        ``L``: each labeled comparison's coefficient on each strength.
    coef : ndarray, shape (n,)
        The comparisons' variance coefficients.
    weights : ndarray, shape (n,), optional
        Weights of the sums (a plan predicts a wave's sums over a pilot: each pilot row's
        chance to be labeled over its pilot probability); None: 1.
    clusters : ndarray of int, shape (n,), optional
        Each comparison's prompt code when the variance is clustered by prompt: the
        working model's variance is then a sum over prompts of squared prompt sums, and
        its Satterthwaite df is ``(sum_p Q_pk)^2 / sum_p Q_pk^2`` with ``Q_pk`` the
        prompt's sum of ``q_ik`` (at most the number of prompts).

    Returns
    -------
    ndarray, shape (M,)
        Degrees of freedom, at least 1.
    """
    q = np.asarray(coef, dtype=float)[:, None] * influence * influence
    w = np.ones(q.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    if clusters is not None:
        q = _cluster_sums(w[:, None] * q, clusters)
        w = np.ones(q.shape[0])
    tot, sq = w @ q, w @ (q * q)
    df = np.divide(tot * tot, sq, out=np.ones_like(tot), where=sq > 0)
    return np.maximum(df, 1.0)


def t_variance_factor(df: np.ndarray) -> np.ndarray:
    """``sqrt(nu / (nu - 2))`` with ``nu = max(df, MIN_DF)``: the factor by which each
    strength's standard error widens (:func:`effective_df`)."""
    nu = np.maximum(np.asarray(df, dtype=float), MIN_DF)
    return np.sqrt(nu / (nu - 2.0))


def _tune(t, a, b, m, idx, y_l, f, c, centre, jac, w, clusters=None) -> float:
    """The ``lambda`` in [0, 1] minimising the trace of the strengths' covariance.

    The trace is the sandwich the estimate reports, with the Hessian of the same
    ``lambda`` (all comparisons' share ``lambda``, the labeled ones' weighted ``1 -
    lambda``): minimised over a grid of 101 values, so the tuned estimate is never wider
    by its own variance than the labels alone (``lambda = 0``). With ``clusters`` (prompt
    codes of all comparisons) the meat is the prompt-clustered one of the population
    target: the terms ``psi_i = za_i - lambda zb_i`` over all comparisons, ``za`` the
    labeled ``w (y - s) x``, ``zb = (S w - 1) (yhat - s) x``, summed within prompts.
    """
    s = expit(t[a] - t[b])
    v = s * (1.0 - s)
    h_all = comparison_hessian(a, b, m, v)[1:, 1:]
    h_lab = comparison_hessian(a[idx], b[idx], m, w * v[idx])[1:, 1:]
    if clusters is None:
        x = _xred(a[idx], b[idx], m)
        za = (y_l - s[idx])[:, None] * x
        zb = (f[idx] - s[idx])[:, None] * x
        cab = _design_meat(np.hstack([za, zb]), c, centre)
    else:
        x = _xred(a, b, m)
        wl = np.zeros(a.size)
        wl[idx] = w
        za = np.zeros_like(x)
        za[idx] = (w * (y_l - s[idx]))[:, None] * x[idx]
        zb = ((wl - 1.0) * (f - s))[:, None] * x
        cab = prompt_scatter(np.hstack([za, zb]), clusters)
    k = x.shape[1]
    aa, ab, bb = cab[:k, :k], cab[:k, k:] + cab[k:, :k], cab[k:, k:]
    grid = np.linspace(0.0, 1.0, 101)
    g = grid[:, None, None]
    p = jac @ np.linalg.pinv(g * h_all + (1.0 - g) * h_lab)  # all 101 at once
    traces = np.einsum("gij,gjk,gik->g", p, aa - g * ab + g * g * bb, p)
    return float(grid[int(np.argmin(traces))])


def bradley_terry(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    surrogate: np.ndarray | None = None,
    pi: np.ndarray | None = None,
    *,
    names: Sequence[str] | None = None,
    n_models: int | None = None,
    alpha: float = 0.05,
    simultaneous: bool = False,
    power_tuning: bool = True,
    target: str = "pool",
    scale: str = "logit",
    lam: float | None = None,
    prompts: np.ndarray | None = None,
) -> EstimateTable:
    """Bradley-Terry strengths with AEE intervals (formulas: the module docstring).

    Parameters
    ----------
    a, b : ndarray of int, shape (N,)
        The two models of each comparison (codes ``0..M-1``; ``a`` is the left/"A" one).
    y : ndarray, shape (N,)
        Human score of model ``a``: 1 win, 0.5 tie, 0 loss; NaN where unlabeled.
    surrogate : ndarray, shape (N,) or (N, K), optional
        Cross-fitted predictions of ``E[y | judges]`` in [0, 1] (K columns are
        averaged); None: the labels alone.
    pi : ndarray, shape (N,), optional
        Each row's inclusion probability; None: a simple random sample (``n / N``,
        with the finite-population correction).
    names, n_models : optional
        The models' names (default ``model0..``) or their number.
    alpha : float
        One minus the confidence level.
    simultaneous : bool
        Max-|t| intervals holding jointly over all models.
    power_tuning : bool
        Tune ``lambda`` (else 1, or ``lam`` when given).
    target : {"pool", "population"}
        The fit on all N rows with human labels, or the superpopulation strengths.
    scale : {"logit", "elo"}
        Natural log-odds with mean zero, or Elo points ``400 / ln 10 * logit + 1000``.
    lam : float, optional
        A fixed surrogate weight (overrides ``power_tuning``).
    prompts : ndarray, shape (N,), optional
        Each comparison's prompt. With ``target="population"`` and a prompt shared by
        several comparisons, the variance is clustered by prompt (module docstring;
        ``details["clustered_by"] = "prompt"``). The pool target holds the comparisons
        fixed and the labels drawn one by one are independent: not clustered (the
        reason in ``details["clustering"]``).

    Returns
    -------
    EstimateTable
        One row per model (``estimand="strength"``), joint covariance in ``cov``;
        ``details``: scale, anchor, target, ``power_lambda``, ``converged``. A model
        whose labeled comparisons are all won or all lost has an infinite labels-alone
        strength. The AEE equation keeps it finite only when its surrogate part does:
        for a model winning all its labeled comparisons, when the weighted labeled sum
        of ``1 - yhat`` over its comparisons is below the pool's sum (else there is no
        finite root for any ``lambda``). When the tuned ``lambda`` leaves no finite root,
        the largest of ``lambda`` times 0.8, 0.6, ..., 0.05 with one is used
        (``details["power_lambda_reduced_from"]``). For a separated model (all won or all
        lost, whatever the root), or failing a root, each comparison of a separated or
        runaway model is counted once more with the surrogate's vote (kept within
        ``SURE`` of 0 and 1) in place of the human one (a tie without a surrogate), at
        its weight in the equation, so a lost vote puts it below what the
        judges alone give, at the surrogate weight where that has a root, else from the
        labels alone, and the runaway models get no interval. A model without labeled
        comparisons (AEE only; the labels alone refuse it) keeps the surrogate's estimate,
        ``lambda`` at least ``MIN_LAMBDA``, and gets no interval (UNVALIDATED).
        (``details["no_interval"]``, ``details["fallback"]``). So does a model with
        fewer than ``MIN_LABELED`` labeled comparisons or separated by its votes (all
        won or all lost, alone or as a group), its ``se`` NaN; each variance is at least
        the vote floor, and ``details["warnings"]`` says when every vote is a tie or the
        labeled comparisons fall apart into groups (:mod:`~.bt_guards`).
    """
    _check_alpha(alpha)
    if target not in ("pool", "population"):
        raise ValidationError(f"target={target!r} is not known; use 'pool' or 'population'.")
    if scale not in ("logit", "elo"):
        raise ValidationError(f"scale={scale!r} is not known; use 'logit' or 'elo'.")
    a, b, m, names = _codes(a, b, n_models, names)
    y = np.asarray(y, dtype=float)
    n_all = a.size
    if y.shape != (n_all,):
        raise ValidationError(f"y has shape {y.shape}; pass one score per comparison ({n_all}).")
    idx = np.flatnonzero(np.isfinite(y))
    y_l = y[idx]
    bad = ~np.isin(y_l, (0.0, 0.5, 1.0))
    if bad.any():
        raise ValidationError(
            f"label of comparison {int(idx[np.argmax(bad)])} is {y_l[np.argmax(bad)]!r}; "
            "use 1 (a wins), 0.5 (tie) or 0 (b wins), NaN if unlabeled."
        )
    if idx.size < 2:
        raise ValidationError(f"{idx.size} labeled comparison(s); label at least 2.")
    details: dict = {}
    f = None
    if surrogate is not None:
        f = np.asarray(surrogate, dtype=float)
        if f.ndim == 2:
            if f.shape[1] > 1:
                details["surrogate"] = f"average of {f.shape[1]} columns"
            f = f.mean(axis=1)
        if f.shape != (n_all,) or not np.isfinite(f).all() or f.min() < 0 or f.max() > 1:
            raise ValidationError(
                "surrogate must hold one finite prediction in [0, 1] per comparison "
                f"(shape ({n_all},) or ({n_all}, K)); got shape {np.shape(surrogate)}."
            )
    codes = None
    if prompts is not None:
        prompts = np.asarray(prompts)
        if prompts.shape != (n_all,):
            raise ValidationError(
                f"prompts has shape {prompts.shape}; pass one prompt per comparison ({n_all})."
            )
        codes = prompt_codes(prompts)
        if np.unique(codes).size == n_all:
            codes = None
            details["clustering"] = "every comparison has its own prompt"
        elif target == "pool":
            codes = None
            details["clustering"] = (
                "the pool target holds the comparisons fixed and the labels were drawn "
                "one by one; target population clusters by prompt"
            )
    if pi is None:
        pi_l = np.full(idx.size, idx.size / n_all)
        centre = True
    else:
        pi_l = np.asarray(pi, dtype=float)[idx]
        if not ((pi_l > 0) & (pi_l <= 1)).all():
            k = int(np.argmax(~((pi_l > 0) & (pi_l <= 1))))
            raise ValidationError(
                f"inclusion probability of labeled comparison {int(idx[k])} is {pi_l[k]!r}; "
                "it must lie in (0, 1]."
            )
        centre = False
    check_graph(a, b, m, names, "comparisons")
    if f is None:
        check_graph(a[idx], b[idx], m, names, "labeled comparisons")
    w = 1.0 / pi_l
    c = variance_coefficients(w, pi_l, "pool")
    jac = (np.eye(m) - 1.0 / m)[:, 1:]
    lab = np.zeros(n_all, dtype=bool)
    lab[idx] = True
    wl = np.zeros(n_all)
    wl[idx] = w
    yz = np.where(lab, y, 0.0)

    def solve(lam_: float, start=None, virtual: tuple | None = None):
        """The AEE root at ``lam_``; ``virtual``: comparisons added as ``(a, b, weight,
        vote)``, a NaN weight the surrogate's, ``lam_``."""
        fz = np.zeros(n_all) if f is None else f
        v = lam_ + wl * (1.0 - lam_)
        vz = lam_ * fz + wl * (yz - lam_ * fz)
        if virtual is None:
            return _newton(a, b, m, v, vz, start)
        va, vb, vw, vy = virtual
        vw = np.where(np.isnan(vw), lam_, vw)
        a2, b2 = np.concatenate([a, va]), np.concatenate([b, vb])
        return _newton(a2, b2, m, np.concatenate([v, vw]), np.concatenate([vz, vw * vy]))

    if f is None:
        lam_v = 0.0
    elif lam is not None:
        lam_v = float(lam)
    elif not power_tuning:
        lam_v = 1.0
    else:
        t0, _ = solve(1.0)
        lam_v = _tune(t0, a, b, m, idx, y_l, f, c, centre, jac, w, codes)
        t1, _ = solve(lam_v, t0)
        lam_v = _tune(t1, a, b, m, idx, y_l, f, c, centre, jac, w, codes)
    n_lab = np.bincount(a[idx], minlength=m) + np.bincount(b[idx], minlength=m)
    if (n_lab == 0).any() and lam_v < MIN_LAMBDA:
        # a model without labeled comparisons is identified by the surrogate part only
        lam_v = MIN_LAMBDA
        details["power_lambda_floor"] = MIN_LAMBDA
    t, ok = solve(lam_v)
    if not ok and lam_v > 0:
        # pseudo-outcomes beyond [0, 1] can leave the equation without a finite root: the
        # largest smaller weight with one (any fixed weight gives a valid estimate)
        for shrink in (0.8, 0.6, 0.4, 0.2, 0.1, 0.05):
            t, ok = solve(lam_v * shrink)
            if ok:
                details["power_lambda_reduced_from"] = lam_v
                lam_v *= shrink
                break
    withheld = np.zeros(m, dtype=bool)
    group = separated(a[idx], b[idx], y_l, m)  # all won / all lost (module bt_guards)
    if not ok or (group >= 0).any():
        # (the labels alone with a separated group: infinite, whatever Newton stopped at;
        # with judges the tuned equation can keep a finite root, but one that the few won
        # votes, each weighted 1 / pi, carry against the judges' comparisons at the small
        # tuned weight: 7.26 for a model with 14 of 14 votes won, truth 1.37, which moved
        # the others it met by up to 1.4; tester D finding 1)
        # infinite strengths: each comparison of a runaway or separated model counted
        # once more, at its weight, with the judges' vote (a tie without judges) kept off
        # 0 and 1. Not a virtual tie per pair: a tie pulls toward 1/2, so a lost vote
        # raised a model the judges put low (tester A finding 1); and not on every pair:
        # one new model with one lost comparison shrank a leaderboard 2.5x
        withheld = (np.abs(t - np.median(t)) > DIVERGED) | (group >= 0)
        mine = np.flatnonzero(withheld[a] | withheld[b])
        vote = np.full(mine.size, 0.5) if f is None else np.clip(f[mine], SURE, 1.0 - SURE)
        virtual = (a[mine], b[mine], np.where(lab[mine], wl[mine], np.nan), vote)
        if not mine.size:  # no runaway: a virtual tie on every compared pair
            pairs = np.unique(np.stack([a, b], axis=1), axis=0)
            tie = np.full(len(pairs), float(w.mean()))
            virtual = (pairs[:, 0], pairs[:, 1], tie, np.full(len(pairs), 0.5))
        for lam_try in dict.fromkeys((lam_v, 0.0)):
            t, ok = solve(lam_try, virtual=virtual)
            if ok:
                break
        lam_v = lam_try
        withheld |= np.abs(t - np.median(t)) > DIVERGED  # still runaway: no interval
        details["fallback"] = (
            "each comparison of a model whose labeled comparisons are all won or all lost "
            "(or whose strength ran away) counted once more with the judges' predicted vote"
            + (" (a tie without judges)" if f is None else "")
            + ("" if lam_v > 0 else ", the labels alone")
        )
    # the anchor: the models with an interval (not through a runaway or a guess the votes
    # do not check: one new model's judged strength moved every other; tester A finding 1)
    anchor = ~(withheld | (group >= 0) | (n_lab < MIN_LABELED))
    if anchor.sum() < 2:
        anchor[:] = True
    jac = (np.eye(m) - np.outer(np.ones(m), anchor) / anchor.sum())[:, 1:]
    s = expit(t[a] - t[b])
    wt = lam_v * s * (1.0 - s)
    wt[idx] += (1.0 - lam_v) * w * s[idx] * (1.0 - s[idx])
    h_inv = np.linalg.pinv(comparison_hessian(a, b, m, wt)[1:, 1:])
    x = _xred(a[idx], b[idx], m)
    f_l = np.zeros(idx.size) if f is None else f[idx]
    r = (y_l - s[idx]) - lam_v * (f_l - s[idx])
    # the residuals are fitted by the M - 1 strengths (and lambda): the small-sample
    # factor n / (n - p) of the sandwich (HC1), as a regression's residual variance.
    # lambda counts only where the tuning chose it inside (0, 1): at an end of the range
    # (0: the labels alone, the same estimate and interval) or moved off its optimum, it
    # did not fit the residuals
    tuned = f is not None and lam is None and power_tuning
    moved = "power_lambda_reduced_from" in details or "power_lambda_floor" in details
    spent = (m - 1) + (1 if tuned and not moved and 0.0 < lam_v < 1.0 else 0)
    meat = _design_meat(r[:, None] * x, c, centre) * idx.size / max(idx.size - spent, 1)
    q = c
    if target == "population" and codes is not None:
        # every comparison's estimating-function term, summed within prompts
        z = np.zeros((n_all, m - 1))
        if f is not None:
            z = (lam_v * (f - s))[:, None] * _xred(a, b, m)
        z[idx] += (w * r)[:, None] * x
        meat = _prompt_meat(z, codes, idx.size, spent)
        q = c + w
        details.update(clustered_by="prompt", n_prompts=int(np.unique(codes).size))
    elif target == "population":
        g = (y_l - s[idx])[:, None] * x
        meat = meat + (w[:, None] * g).T @ g
        q = c + w
    cov = jac @ h_inv @ meat @ h_inv.T @ jac.T
    # few labeled comparisons: the studentised error's variance nu / (nu - 2) (Student t)
    lab_codes = None if codes is None else codes[idx]
    df = effective_df(x @ h_inv.T @ jac.T, q, clusters=lab_codes)
    inflate = t_variance_factor(df)
    cov = cov * np.outer(inflate, inflate)
    # the least variance the votes establish (bt_guards.vote_floor): all ties, unanimity
    unit = jac @ h_inv @ ((q[:, None] * x).T @ x) @ h_inv.T @ jac.T
    unit *= np.outer(inflate, inflate) * idx.size / max(idx.size - spent, 1)
    cov, floor_details = floor_covariance(cov, unit, n_lab, names)
    details.update(floor_details)
    warn = vote_warnings(a[idx], b[idx], y_l, m, names)
    if warn:
        details["warnings"] = warn
    est = t - t[anchor].mean()
    if scale == "elo":
        est, cov = ELO * est + ELO_CENTRE, ELO * ELO * cov
    how = "maxt" if simultaneous else "none"
    crit = simultaneous_critical_value(correlation(cov), alpha, how)
    n_it = np.bincount(a, minlength=m) + np.bincount(b, minlength=m)
    table = group_table(
        "strength", "classical" if f is None else "aee", names, est, cov, n_lab, n_it,
        alpha, how, crit, scale=scale,
        anchor=("mean zero" if scale == "logit" else "mean 1000")
        + ("" if anchor.all() else " over the models with an interval"),
        ties="quasi-likelihood (tie = half a win)", target=target, power_lambda=lam_v,
        n_comparisons=n_all, n_labeled_comparisons=int(idx.size),
        effective_df=[float(v) for v in df], **details,
    )  # fmt: skip
    if withheld.any():
        cov0 = table.cov.copy()
        cov0[withheld, :] = 0.0
        cov0[:, withheld] = 0.0
        table = replace(table, cov=cov0)
    return withhold_unvalidated(table, n_lab, group, withheld)


def _to_logit(table: EstimateTable) -> float:
    return 1.0 / ELO if table.details.get("scale") == "elo" else 1.0


def win_probability(table: EstimateTable, i: str, j: str, alpha: float = 0.05) -> Estimate:
    """``P(i beats j) = sigma(theta_i - theta_j)`` (a tie counted as half a win).

    The standard error is the delta method's; the interval is the logit-scale Wald
    interval of the difference, mapped through ``sigma`` (so it stays in (0, 1)).
    """
    _check_alpha(alpha)
    for name in (i, j):
        if name not in table.names:
            raise ValidationError(f"model {name!r} is not in the table ({', '.join(table.names)}).")
    p, q = table.names.index(i), table.names.index(j)
    k = _to_logit(table)
    d = k * float(table.estimate[p] - table.estimate[q])
    var = k * k * float(table.cov[p, p] + table.cov[q, q] - 2.0 * table.cov[p, q])
    why = {n: r for n, r in table.details.get("no_interval", {}).items() if n in (i, j)}
    se_d = np.nan if why else float(np.sqrt(max(var, 0.0)))  # no interval where a model has none
    z = float(stats.norm.isf(alpha / 2.0))
    sig = expit(np.array([d, d - z * se_d, d + z * se_d]))
    return Estimate(
        estimand=f"P({i} beats {j})",
        method=table.method,
        estimate=float(sig[0]),
        se=float(sig[0] * (1.0 - sig[0]) * se_d),
        ci_low=float(sig[1]),
        ci_high=float(sig[2]),
        n_labeled=int(table.details.get("n_labeled_comparisons", 0)),
        n_items=int(table.details.get("n_comparisons", 0)),
        alpha=alpha,
        details={"logit_difference": d, "se_logit": se_d, **({"no_interval": why} if why else {})},
    )
