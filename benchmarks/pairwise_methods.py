"""The methods of the pairwise study (issue 44), each on one label draw of a table of
comparisons: the harness's reference Bradley-Terry fits, the surrogates, and the peers.

Strengths are log-odds on the "ties as 0.5" (quasi-likelihood) scale with mean zero. The
target is the pool fit: the Bradley-Terry fit on every row of the table with its human
vote, so the only randomness is which rows are labeled (a simple random sample of ``n`` of
``N`` rows): the sandwich variances carry the finite population correction ``1 - n/N``.

* :func:`bt_fit` plain Bradley-Terry (the target); :func:`bt_human` the labeled votes
  alone; :func:`bt_aee` the augmented estimating equation with a fixed surrogate ``f``
  (``E[y | judges]``) on every row and a power-tuned weight ``lam``:
  ``U = lam/N sum_all x (f - p) + 1/n sum_lab x [(y - p) - lam (f - p)]``.
* :func:`crossfit_surrogate` 5-fold cross-fitted multinomial logit of the human vote
  (A / B / tie) on the three judges' verdicts one-hot, predicting ``E[y]``.
* :func:`ppi_py_contrasts` ppi_py's ``ppi_logistic_ci`` on the decisive votes.
* :func:`ppr_rank_sets` Prediction-Powered Ranking (Chatzi et al. 2024), written from the
  paper's method (win rates, prediction-powered means, chi-square ellipsoid rank sets).
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.estimate.tables import correlation

CRIT_DRAWS = 20_000


def design(a: np.ndarray, b: np.ndarray, m: int) -> np.ndarray:
    """Rows ``e_a - e_b`` without the last model's column (its strength is fixed at 0)."""
    x = np.zeros((a.size, m))
    rows = np.arange(a.size)
    x[rows, a] += 1.0
    x[rows, b] -= 1.0
    return x[:, :-1]


def _center(m: int) -> np.ndarray:
    """Map from the (m-1) free strengths (last fixed at 0) to mean-zero strengths."""
    e = np.vstack([np.eye(m - 1), np.zeros((1, m - 1))])
    return (np.eye(m) - 1.0 / m) @ e


def _solve(x: np.ndarray, r: np.ndarray, w: np.ndarray, iters: int = 100) -> np.ndarray:
    """Root of ``sum_i x_i (r_i - w_i expit(x_i phi))`` by damped Newton (concave objective)."""
    phi = np.zeros(x.shape[1])

    def obj(p: np.ndarray) -> float:
        eta = x @ p
        return float(r @ eta - w @ np.logaddexp(0.0, eta))

    cur = obj(phi)
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(x @ phi)))
        grad = x.T @ (r - w * p)
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + 1e-10 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-6:
            new = obj(phi + t * step)
            if new >= cur - 1e-12:
                break
            t /= 2
        phi, done = phi + t * step, abs(new - cur) < 1e-12 and np.abs(grad).max() < 1e-8
        cur = new
        if done:
            break
    return phi


def bt_fit(
    a: np.ndarray, b: np.ndarray, y: np.ndarray, m: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """Plain Bradley-Terry strengths (ties as 0.5, quasi-likelihood), mean zero."""
    w = np.ones(a.size) if weights is None else np.asarray(weights, float)
    phi = _solve(design(a, b, m), w * y, w)
    return _center(m) @ phi


def _table(phi: np.ndarray, cov_phi: np.ndarray, m: int) -> dict[str, np.ndarray]:
    c = _center(m)
    return {"estimate": c @ phi, "cov": c @ cov_phi @ c.T}


def _sandwich(x: np.ndarray, g: np.ndarray, hess: np.ndarray, n: int, n_pool: int) -> np.ndarray:
    """Covariance of the root of ``H^-1`` times the labeled mean of ``g`` (FPC included)."""
    meat = np.cov(g, rowvar=False, ddof=1) * (1.0 - n / n_pool) / n
    hinv = np.linalg.inv(hess)
    return hinv @ meat @ hinv


def bt_human(
    a: np.ndarray, b: np.ndarray, y: np.ndarray, lab: np.ndarray, m: int
) -> dict[str, np.ndarray]:
    """Bradley-Terry on the labeled votes alone, sandwich covariance with the FPC."""
    x = design(a[lab], b[lab], m)
    phi = _solve(x, y[lab], np.ones(lab.size))
    p = 1.0 / (1.0 + np.exp(-(x @ phi)))
    hess = (x * (p * (1 - p))[:, None]).T @ x / lab.size
    g = x * (y[lab] - p)[:, None]
    return _table(phi, _sandwich(x, g, hess, lab.size, a.size), m)


def bt_aee(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    lab: np.ndarray,
    f: np.ndarray,
    m: int,
    lam: float | None = None,
) -> dict[str, np.ndarray]:
    """Augmented estimating equation for the pool Bradley-Terry fit with surrogate ``f``.

    ``lam=None`` tunes the weight (fit at ``lam=1``, then the ``lam`` in [0, 1] that
    minimises the trace of the sandwich covariance, then refit)."""
    n, big = lab.size, a.size
    x = design(a, b, m)
    is_lab = np.zeros(big, bool)
    is_lab[lab] = True

    def fit(lm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        w = lm / big + (1 - lm) / n * is_lab
        r = lm * f / big + is_lab * (np.nan_to_num(y) - lm * f) / n
        phi = _solve(x, r, w)
        p = 1.0 / (1.0 + np.exp(-(x @ phi)))
        hess = (x * (w * p * (1 - p))[:, None]).T @ x
        gy = x[lab] * (y[lab] - p[lab])[:, None]
        gf = x[lab] * (f[lab] - p[lab])[:, None]
        return phi, hess, gy, gf

    tuned = lam
    if tuned is None:
        _, hess, gy, gf = fit(1.0)
        hinv = _center(m) @ np.linalg.inv(hess)  # the trace over mean-zero strengths
        cyf = np.cov(gy.T, gf.T)
        d = gy.shape[1]
        num = np.trace(hinv @ (cyf[:d, d:] + cyf[d:, :d]) / 2 @ hinv.T)
        den = np.trace(hinv @ cyf[d:, d:] @ hinv.T)
        tuned = float(np.clip(num / den, 0.0, 1.0)) if den > 0 else 0.0
    phi, hess, gy, gf = fit(tuned)
    out = _table(phi, _sandwich(x[lab], gy - tuned * gf, hess, n, big), m)
    out["lam"] = np.array(tuned)
    return out


def intervals(est: np.ndarray, cov: np.ndarray, alpha: float) -> dict[str, np.ndarray]:
    """Pointwise and max-|t| simultaneous half-widths of ``est``."""
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    c_sim = simultaneous_critical_value(correlation(cov), alpha, draws=CRIT_DRAWS)[0]
    return {"se": se, "half": stats.norm.isf(alpha / 2) * se, "sim_half": c_sim * se}


def pair_index(m: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(m, 1)


def rank_sets_maxt(est: np.ndarray, cov: np.ndarray, alpha: float) -> np.ndarray:
    """Simultaneous rank sets (rank 1 = strongest): every pairwise difference tested at the
    max-|t| critical value over all ``m(m-1)/2`` differences; model i's set runs from 1 +
    the models significantly above it to m - the models significantly below. Shape (m, 2)."""
    m = est.size
    i, j = pair_index(m)
    c = np.zeros((i.size, m))
    c[np.arange(i.size), i], c[np.arange(i.size), j] = 1.0, -1.0
    dcov = c @ cov @ c.T
    se = np.sqrt(np.clip(np.diag(dcov), 1e-300, None))
    crit = simultaneous_critical_value(correlation(dcov), alpha, draws=CRIT_DRAWS)[0]
    return _sets_from_tests(m, i, j, (est[i] - est[j]) / se, crit)


def _sets_from_tests(
    m: int, i: np.ndarray, j: np.ndarray, t: np.ndarray, crit: float
) -> np.ndarray:
    above = np.zeros(m, int)  # models significantly stronger than this one
    below = np.zeros(m, int)
    sig_i, sig_j = t > crit, t < -crit
    np.add.at(below, i[sig_i], 1)
    np.add.at(above, j[sig_i], 1)
    np.add.at(below, j[sig_j], 1)
    np.add.at(above, i[sig_j], 1)
    return np.column_stack([1 + above, m - below])


def true_ranks(strength: np.ndarray) -> np.ndarray:
    """Rank 1 = strongest."""
    return np.argsort(np.argsort(-strength)) + 1


def _onehot(verdicts: np.ndarray) -> np.ndarray:
    """(N, K) verdicts in {0, 0.5, 1} -> (N, 3K) indicators."""
    return np.hstack([(verdicts == v).astype(float) for v in (0.0, 0.5, 1.0)])


def crossfit_surrogate(
    verdicts: np.ndarray, y: np.ndarray, lab: np.ndarray, seed: int
) -> np.ndarray:
    """Cross-fitted ``E[y | judges]`` for every row: 5 folds over ``lab``; labeled rows get
    their fold's out-of-fold prediction, the others the folds' average. On decisive rows
    only (``y`` in {0, 1}) this is a binary logit of "A won"."""
    z = _onehot(verdicts)
    cls = np.round(y[lab] * 2).astype(int)  # 0 = B, 1 = tie, 2 = A
    out = np.zeros(y.size)
    rest = np.setdiff1d(np.arange(y.size), lab)
    for train, test in KFold(5, shuffle=True, random_state=seed).split(lab):
        model = LogisticRegression(C=1.0, solver="newton-cholesky", max_iter=100).fit(
            z[lab[train]], cls[train]
        )
        value = np.array([0.0, 0.5, 1.0])[model.classes_]
        out[lab[test]] = model.predict_proba(z[lab[test]]) @ value
        out[rest] += model.predict_proba(z[rest]) @ value / 5
    return out


def oracle_surrogate(verdicts: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``E[y | verdict cell]`` over ALL rows (the 27 cells of three 3-way verdicts): the best
    function of the judges, which no method that sees only a draw's labels can know."""
    cell = np.round(verdicts * 2).astype(int) @ (3 ** np.arange(verdicts.shape[1]))
    sums = np.bincount(cell, weights=y, minlength=cell.max() + 1)
    counts = np.bincount(cell, minlength=cell.max() + 1)
    return (sums / np.maximum(counts, 1))[cell]


def ppi_py_contrasts(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    verdicts: np.ndarray,
    lab: np.ndarray,
    m: int,
    ref: int,
    alpha: float,
    seed: int,
) -> dict[str, np.ndarray]:
    """ppi_py's PPI++ logistic CI on the decisive votes (ties dropped; the only case
    ``ppi_logistic_ci`` supports): x = e_a - e_b without model ``ref`` (its strength 0), no
    intercept; Yhat = a cross-fitted logit of "A won" on the judges' one-hot verdicts (the
    same information as our surrogate). Labeled part: the draw's decisive labeled rows;
    unlabeled part: the decisive unlabeled rows -- chosen with the true human vote, which a
    user would not know (generous to the peer). Returns the contrasts ``theta_k - theta_ref``
    for ``k != ref``: lower, upper (length m - 1, model order without ``ref``)."""
    from ppi_py import ppi_logistic_ci

    dec = y != 0.5
    is_lab = np.zeros(a.size, bool)
    is_lab[lab] = True
    lab_d = np.flatnonzero(is_lab & dec)
    unl_d = np.flatnonzero(~is_lab & dec)
    keep = np.array([k for k in range(m) if k != ref])
    x = np.zeros((a.size, m))
    x[np.arange(a.size), a] += 1.0
    x[np.arange(a.size), b] -= 1.0
    x = x[:, keep]
    yhat = crossfit_surrogate(verdicts, y, lab_d, seed)
    lo, hi = ppi_logistic_ci(x[lab_d], y[lab_d], yhat[lab_d], x[unl_d], yhat[unl_d], alpha=alpha)
    return {"low": np.asarray(lo), "high": np.asarray(hi), "n_decisive": np.array(lab_d.size)}


def win_indicators(a: np.ndarray, b: np.ndarray, y: np.ndarray, m: int) -> np.ndarray:
    """(N, m) PPR's per-row outcome of each model: 1 if it won, 0 if it lost or tied, NaN if
    it did not play (ties count as a loss for both, the paper's ``ignore_ties=0``)."""
    w = np.full((a.size, m), np.nan)
    rows = np.arange(a.size)
    w[rows, a] = (y == 1.0).astype(float)
    w[rows, b] = (y == 0.0).astype(float)
    return w


def _mean_and_cov(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column means over the rows where a column is observed, and their covariance from
    the influence functions ``1[played] (v - mean) / n_played`` (rows independent)."""
    played = ~np.isnan(v)
    cnt = played.sum(axis=0)
    mean = np.nansum(v, axis=0) / np.maximum(cnt, 1)
    psi = np.where(played, v - mean, 0.0) / np.maximum(cnt, 1)
    return mean, psi.T @ psi


def ppr_rank_sets(
    win_h: np.ndarray, win_j: np.ndarray, lab: np.ndarray, alpha: float
) -> dict[str, np.ndarray]:
    """Prediction-Powered Ranking (Chatzi, Straitouri, Thejaswi, Gomez-Rodriguez, NeurIPS 2024).

    Per model the win rate ``theta_m`` (share of its comparisons it won; ties lose); the
    prediction-powered estimate ``mean_lab(h) + lam (mean_unl(g) - mean_lab(g))`` with ``g``
    one judge's verdicts, labeled = the draw, unlabeled = the rest, ``lam`` in [0, 1]
    minimising the covariance's trace; rank sets from the projection of the chi-square
    (``m`` df) ellipsoid on each difference: ``i`` is above ``j`` when ``|d_ij| >
    sqrt(var(d_ij) chi2_m(1 - alpha))``. Covariances are each mean's influence-function
    covariance (no finite population correction, as in the paper)."""
    m = win_h.shape[1]
    unl = np.setdiff1d(np.arange(win_h.shape[0]), lab)
    h, g = win_h[lab], win_j[lab]
    _, v_gn = _mean_and_cov(win_j[unl])
    mh, v_h = _mean_and_cov(h)
    mg, v_g = _mean_and_cov(g)
    played = ~np.isnan(h)
    cnt = np.maximum(played.sum(axis=0), 1)
    psi_h = np.where(played, h - mh, 0.0) / cnt
    psi_g = np.where(played, g - mg, 0.0) / cnt
    c_hg = psi_h.T @ psi_g
    den = np.trace(v_g) + np.trace(v_gn)
    lam = float(np.clip(np.trace(c_hg) / den, 0.0, 1.0)) if den > 0 else 0.0
    mu_n = np.nanmean(win_j[unl], axis=0)
    est = mh + lam * (mu_n - mg)
    cov = v_h - lam * (c_hg + c_hg.T) + lam**2 * (v_g + v_gn)
    i, j = pair_index(m)
    var_d = cov[i, i] + cov[j, j] - 2 * cov[i, j]
    t = (est[i] - est[j]) / np.sqrt(np.clip(var_d, 1e-300, None))
    crit = float(np.sqrt(stats.chi2.ppf(1 - alpha, m)))
    return {"sets": _sets_from_tests(m, i, j, t, crit), "estimate": est, "lam": np.array(lam)}
