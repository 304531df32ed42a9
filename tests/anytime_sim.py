"""A known-truth simulator of labelling waves for the anytime intervals' tests: one fixed
pool (three groups, a judge score ``x``, labels heteroskedastic in ``x``), ``R`` sequences
of ``K`` waves drawn from it, each wave exactly ``per_group`` labels per group, either
uniform or adaptive (each wave's probabilities proportional to the residual sd the earlier
waves' labels show in bins of ``x``, systematic PPS within the group). At every look the
AEE is refitted as a user would: a linear surrogate cross-fitted over two folds of the
labels so far, the Hajek AEE with the union-of-waves inclusion probabilities, the
surrogate's weight tuned on all labels and shared by the groups, as the package's group
means do (vectorised over the sequences with :func:`bacon_bayes.estimate.core.mean_core`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from bacon_bayes.estimate.core import mean_core

GROUPS = 3


@dataclass(frozen=True)
class Looks:
    """Per quantity (pool mean, group 0's mean, group 0 - group 1): estimates and standard
    errors (R, K), df of the fixed t interval (R, K), and the truth."""

    estimate: dict[str, np.ndarray]
    se: dict[str, np.ndarray]
    df: dict[str, np.ndarray]
    truth: dict[str, float]
    labels: np.ndarray  # (K,) pool labels at each look
    group_labels: np.ndarray  # (K,) labels of one group at each look
    n_items: int
    group_items: int


def make_pool(n_items: int = 1200, seed: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(GROUPS), n_items // GROUPS)
    x = rng.standard_normal(g.size)
    sd = 0.3 + 0.9 * (x > 0.5)  # the labels are noisy where the judge scores high
    y = 2.0 + 0.25 * g + 0.8 * x + sd * rng.standard_normal(g.size)
    return x, y, g


def _pps(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Systematic PPS along a random order: exactly ``round(sum p)`` picks per row, item
    ``i`` with probability ``p_i`` (rows of ``p`` (R, n) sum to an integer, each <= 1)."""
    order = np.argsort(rng.random(p.shape), axis=1)
    ps = np.take_along_axis(p, order, axis=1)
    cum = np.cumsum(ps, axis=1)
    u = rng.random((p.shape[0], 1))
    hit = np.floor(cum - u) > np.floor(cum - ps - u)
    out = np.zeros(p.shape, dtype=bool)
    np.put_along_axis(out, order, hit, axis=1)
    return out


def _fit(x: np.ndarray, y: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least squares ``y ~ a + b x`` on the rows' masked items: (a, b) of shape (R,)."""
    n = m.sum(axis=1)
    sx, sy = (m * x).sum(axis=1), np.where(m, y, 0.0).sum(axis=1)
    sxx, sxy = (m * x * x).sum(axis=1), np.where(m, x * y, 0.0).sum(axis=1)
    # a ridge slope (penalty of two labels' worth), as a regularised surrogate would
    b = (n * sxy - sx * sy) / np.maximum(n * sxx - sx * sx + 2.0 * n, 1e-12)
    return (sy - b * sx) / np.maximum(n, 1), b


def simulate(
    design: str, reps: int = 400, looks: int = 10, per_group: int = 10, seed: int = 0
) -> Looks:
    x, y, g = make_pool()
    rng = np.random.default_rng(seed)
    n_items = x.size
    X, Y = np.broadcast_to(x, (reps, n_items)), np.broadcast_to(y, (reps, n_items))
    labeled = np.zeros((reps, n_items), dtype=bool)
    keep_out = np.ones((reps, n_items))  # prod of (1 - p_w): not drawn by any wave so far
    fold = rng.random((reps, n_items)) < 0.5
    bins = np.digitize(x, np.quantile(x, [0.25, 0.5, 0.75]))
    names = ("mean", "group", "difference")
    est = {k: np.zeros((reps, looks)) for k in names}
    se = {k: np.zeros((reps, looks)) for k in names}
    df = {k: np.zeros((reps, looks)) for k in names}
    for k in range(looks):
        score = np.ones((reps, n_items))
        if design == "adaptive" and k > 0:  # residual sd by bin of x, from the labels so far
            a, b = _fit(X, Y, labeled)
            r2 = np.where(labeled, (Y - a[:, None] - b[:, None] * X) ** 2, 0.0)
            for j in range(4):
                inb = labeled & (bins == j)
                s = np.sqrt(r2[:, bins == j].sum(axis=1) / np.maximum(inb.sum(axis=1), 1))
                score[:, bins == j] = np.maximum(s, 0.05)[:, None]
        p = np.zeros((reps, n_items))
        for h in range(GROUPS):
            cols = g == h
            free = ~labeled[:, cols]
            s = score[:, cols]
            ph = per_group * s / (s * free).sum(axis=1, keepdims=True)
            for _ in range(5):  # cap at 1 and spread the excess
                ph = np.minimum(ph, 1.0)
                ph *= per_group / (ph * free).sum(axis=1, keepdims=True)
            p[:, cols] = np.minimum(ph, 1.0)
            labeled[:, cols] |= free & _pps(np.where(free, p[:, cols], 0.0), rng)
        keep_out *= 1.0 - p
        pi = 1.0 - keep_out
        # the surrogate, cross-fitted over two folds of the labels so far
        f = np.zeros((reps, n_items))
        fits = [_fit(X, Y, labeled & (fold == side)) for side in (False, True)]
        for side, (a, b) in zip((True, False), fits, strict=True):  # fold trained on the other
            f = np.where(fold == side, a[:, None] + b[:, None] * X, f)
        mean_fit = 0.5 * sum(a[:, None] + b[:, None] * X for a, b in fits)
        f = np.where(labeled, f, mean_fit)
        yl = np.where(labeled, Y, 0.0)
        th, v, lam, n = mean_core(yl, f, pi, f.sum(axis=1), n_items, mask=labeled)
        est["mean"][:, k], se["mean"][:, k], df["mean"][:, k] = th, np.sqrt(v), n - 1
        parts = []
        for h in (0, 1):
            cols = g == h
            m = labeled[:, cols]
            sums = f[:, cols].sum(axis=1)
            fit = mean_core(
                yl[:, cols], f[:, cols], pi[:, cols], sums, int(cols.sum()), mask=m, lam=lam
            )
            parts.append(fit)
        est["group"][:, k], se["group"][:, k] = parts[0][0], np.sqrt(parts[0][1])
        df["group"][:, k] = parts[0][3] - 1
        est["difference"][:, k] = parts[0][0] - parts[1][0]
        se["difference"][:, k] = np.sqrt(parts[0][1] + parts[1][1])
        df["difference"][:, k] = np.minimum(parts[0][3], parts[1][3]) - 1
    truth = {
        "mean": float(y.mean()),
        "group": float(y[g == 0].mean()),
        "difference": float(y[g == 0].mean() - y[g == 1].mean()),
    }
    steps = np.arange(1, looks + 1)
    return Looks(
        est, se, df, truth, steps * per_group * GROUPS, steps * per_group, n_items,
        n_items // GROUPS,
    )  # fmt: skip


def fixed_critical(df: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    return stats.t.isf(alpha / 2.0, np.maximum(df, 1.0))
