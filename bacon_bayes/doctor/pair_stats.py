"""The interval statistics of the pairwise judge diagnostics
(:mod:`bacon_bayes.doctor.pairs`): Wilson intervals for shares, weighted (Hajek) means
with Wald intervals, Cohen's kappa with the Fleiss-Cohen-Everitt standard error, and
DeLong's AUC with its logit-scale interval, each optionally weighted by the inverse of the
votes' inclusion probabilities (intervals at Kish's effective size)."""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "auc_delong",
    "auc_interval",
    "cohen_kappa",
    "effective_n",
    "mean_interval",
    "wilson",
    "z_critical",
]


def z_critical(level: float) -> float:
    """The normal critical value of a two-sided interval at ``level``."""
    return float(stats.norm.ppf(0.5 + level / 2))


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a share ``k / n`` (NaN when n = 0)."""
    if n == 0:
        return float("nan"), float("nan")
    z = z_critical(level)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def effective_n(w: np.ndarray) -> float:
    """Kish's effective sample size of weights ``w``: ``(sum w)^2 / sum w^2``."""
    return float(w.sum() ** 2 / (w * w).sum()) if len(w) else 0.0


def mean_interval(
    d: np.ndarray, level: float = 0.95, w: np.ndarray | None = None
) -> tuple[float, float, float]:
    """Mean of ``d`` and its Wald interval (NaN below two values); ``w``: each value's
    weight (the inverse of its inclusion probability), the weighted (Hajek) mean with its
    linearised variance."""
    n = len(d)
    if n < 2:
        m = float(d.mean()) if n else float("nan")
        return m, float("nan"), float("nan")
    if w is None:
        m = float(d.mean())
        half = z_critical(level) * float(d.std(ddof=1)) / np.sqrt(n)
        return m, m - half, m + half
    wn = w / w.sum()
    m = float(wn @ d)
    half = z_critical(level) * float(np.sqrt(n / (n - 1) * np.sum(wn * wn * (d - m) ** 2)))
    return m, m - half, m + half


def cohen_kappa(
    x: np.ndarray, y: np.ndarray, k: int = 3, w: np.ndarray | None = None
) -> tuple[float, float, float]:
    """Unweighted Cohen's kappa of codes ``x`` and ``y`` (0..k-1), its large-sample
    standard error (Fleiss, Cohen and Everitt 1969) and the raw agreement; ``w``: each
    pair's weight (the inverse of its inclusion probability): the table of the weighted
    shares, the standard error at Kish's effective sample size."""
    if len(x) == 0:
        return float("nan"), float("nan"), float("nan")
    p = np.zeros((k, k))
    np.add.at(p, (x, y), 1.0 if w is None else w)
    p /= p.sum()
    n = float(len(x)) if w is None else effective_n(w)
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po = float(np.trace(p))
    pe = float(rows @ cols)
    if pe >= 1.0:
        return float("nan"), float("nan"), po
    kap = (po - pe) / (1 - pe)
    diag = np.diag(p)
    a = float(np.sum(diag * (1 - (rows + cols) * (1 - kap)) ** 2))
    off = p.copy()
    np.fill_diagonal(off, 0.0)
    b = (1 - kap) ** 2 * float(np.sum(off * (cols[:, None] + rows[None, :]) ** 2))
    c = (kap - pe * (1 - kap)) ** 2
    var = max(a + b - c, 0.0) / (n * (1 - pe) ** 2)
    return float(kap), float(np.sqrt(var)), po


def auc_delong(
    pos: np.ndarray,
    neg: np.ndarray,
    wpos: np.ndarray | None = None,
    wneg: np.ndarray | None = None,
) -> tuple[float, float]:
    """AUC of scores ``pos`` (positives) against ``neg`` (ties count one half) and
    DeLong's standard error (NaN when either side has fewer than two); ``wpos``, ``wneg``:
    each score's weight (the inverse of its inclusion probability), every pair weighed by
    the product, the standard error at Kish's effective sample sizes."""
    m, n = len(pos), len(neg)
    if m == 0 or n == 0:
        return float("nan"), float("nan")
    if wpos is not None and wneg is not None:
        return _weighted_auc(pos, neg, wpos, wneg)
    neg_sorted = np.sort(neg)
    pos_sorted = np.sort(pos)
    below = np.searchsorted(neg_sorted, pos, side="left")
    upto = np.searchsorted(neg_sorted, pos, side="right")
    v10 = (below + 0.5 * (upto - below)) / n  # each positive against the negatives
    above = m - np.searchsorted(pos_sorted, neg, side="right")
    same = np.searchsorted(pos_sorted, neg, side="right") - np.searchsorted(
        pos_sorted, neg, side="left"
    )
    v01 = (above + 0.5 * same) / m  # each negative against the positives
    auc = float(v10.mean())
    if m < 2 or n < 2:
        return auc, float("nan")
    return auc, float(np.sqrt(v10.var(ddof=1) / m + v01.var(ddof=1) / n))


def _weighted_auc(
    pos: np.ndarray, neg: np.ndarray, wpos: np.ndarray, wneg: np.ndarray
) -> tuple[float, float]:
    """:func:`auc_delong` with weights: each positive's weighted share of negatives
    below it (ties one half) and each negative's of positives above it."""

    def share_below(x: np.ndarray, ref: np.ndarray, wref: np.ndarray) -> np.ndarray:
        order = np.argsort(ref, kind="stable")
        r, cw = ref[order], np.concatenate([[0.0], np.cumsum(wref[order])])
        lo, hi = np.searchsorted(r, x, side="left"), np.searchsorted(r, x, side="right")
        return (cw[lo] + 0.5 * (cw[hi] - cw[lo])) / cw[-1]

    v10 = share_below(pos, neg, wneg)  # each positive against the negatives
    v01 = 1.0 - share_below(neg, pos, wpos)  # each negative against the positives
    a, b = wpos / wpos.sum(), wneg / wneg.sum()
    auc = float(a @ v10)
    if len(pos) < 2 or len(neg) < 2:
        return auc, float("nan")
    m, n = effective_n(wpos), effective_n(wneg)
    var10 = float(a @ (v10 - auc) ** 2) * m / max(m - 1, 1e-9)
    var01 = float(b @ (v01 - (b @ v01)) ** 2) * n / max(n - 1, 1e-9)
    return auc, float(np.sqrt(var10 / m + var01 / n))


def auc_interval(auc: float, se: float, level: float = 0.95) -> tuple[float, float]:
    """Interval for an AUC from its standard error, Wald on the logit scale (the plain Wald
    interval misses high near 0.8 at a few hundred pairs); NaN at 0 or 1."""
    if not 0 < auc < 1 or not np.isfinite(se):
        return float("nan"), float("nan")
    centre = np.log(auc / (1 - auc))
    half = z_critical(level) * se / (auc * (1 - auc))
    return float(1 / (1 + np.exp(half - centre))), float(1 / (1 + np.exp(-centre - half)))
