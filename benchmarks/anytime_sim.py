"""A known-truth simulator of labelling waves for the anytime intervals' tests: one fixed
pool (three groups, a judge score ``x``, labels heteroskedastic in ``x``), ``R`` sequences
of ``K`` waves drawn from it, each wave exactly ``per_group`` labels per group, either
uniform or adaptive (each wave's probabilities proportional to the residual sd the earlier
waves' labels show in bins of ``x``, systematic PPS within the group). At every look the
AEE is refitted as a user would: a linear surrogate cross-fitted over five folds of the
labels so far, the Hajek AEE with the union-of-waves inclusion probabilities, the
surrogate's weight tuned on all labels and shared by the groups, as the package's group
means do (vectorised over the sequences with :func:`bacon_bayes.estimate.core.mean_core`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.estimate.core import mean_core

GROUPS = 3
FOLDS = 5


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


def _pps(p: np.ndarray, rng: np.random.Generator, strata: np.ndarray | None = None) -> np.ndarray:
    """Systematic PPS along a random order: exactly ``round(sum p)`` picks per row, item
    ``i`` with probability ``p_i`` (rows of ``p`` (R, n) sum to an integer, each <= 1).
    With ``strata`` (n,), the order runs stratum by stratum: a stratum whose ``p`` sum to an
    integer gets exactly that many picks (a stratified simple random sample)."""
    key = rng.random(p.shape)
    if strata is None:
        order = np.argsort(key, axis=1)
    else:
        order = np.lexsort((key, np.broadcast_to(strata, p.shape)))
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
    design: str,
    reps: int = 400,
    looks: int = 10,
    per_group: int = 10,
    seed: int = 0,
    increments: bool = False,
) -> Looks:
    """``increments``: also the pool mean as a martingale of per-wave increments whose
    surrogate is fitted on earlier waves only (:func:`_increment`), ``"increments"``."""
    x, y, g = make_pool()
    rng = np.random.default_rng(seed)
    n_items = x.size
    X, Y = np.broadcast_to(x, (reps, n_items)), np.broadcast_to(y, (reps, n_items))
    labeled = np.zeros((reps, n_items), dtype=bool)
    keep_out = np.ones((reps, n_items))  # prod of (1 - p_w): not drawn by any wave so far
    fold = rng.integers(0, FOLDS, (reps, n_items))
    bins = np.digitize(x, np.quantile(x, [0.25, 0.5, 0.75]))
    names = ("mean", "group", "difference") + (("increments",) if increments else ())
    acc = np.zeros((3, reps))  # increments: sums of weights, weighted estimates, variances
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
        before = labeled.copy()
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
        if increments:
            wave = _increment(
                X, Y, before, labeled & ~before, p, float(np.var(x)) if k == 0 else None
            )
            acc += np.stack([1.0 / wave[2], wave[0] / wave[2], wave[1] / wave[2] ** 2])
            est["increments"][:, k] = acc[1] / acc[0]
            se["increments"][:, k] = np.sqrt(acc[2]) / acc[0]
            df["increments"][:, k] = labeled.sum(axis=1) - 1
        pi = 1.0 - keep_out
        # the surrogate, cross-fitted over FOLDS folds of the labels so far
        f = np.zeros((reps, n_items))
        mean_fit = np.zeros((reps, n_items))
        for side in range(FOLDS):  # fold `side` predicted by the model of the others
            a, b = _fit(X, Y, labeled & (fold != side))
            fit = a[:, None] + b[:, None] * X
            f = np.where(fold == side, fit, f)
            mean_fit += fit / FOLDS
        f = np.where(labeled, f, mean_fit)
        yl = np.where(labeled, Y, 0.0)
        th, v, lam, _ = mean_core(yl, f, pi, f.sum(axis=1), n_items, mask=labeled)
        est["mean"][:, k], se["mean"][:, k] = th, np.sqrt(v)
        df["mean"][:, k] = _satterthwaite(yl, f, pi, labeled, lam)
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
        dfs = [_satterthwaite(yl, f, pi, labeled & (g == h), lam) for h in (0, 1)]
        df["group"][:, k] = dfs[0]
        est["difference"][:, k] = parts[0][0] - parts[1][0]
        se["difference"][:, k] = np.sqrt(parts[0][1] + parts[1][1])
        df["difference"][:, k] = np.minimum(dfs[0], dfs[1])
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


def _satterthwaite(
    y: np.ndarray, f: np.ndarray, pi: np.ndarray, mask: np.ndarray, lam: np.ndarray
) -> np.ndarray:
    """The package's Satterthwaite df of the Hajek AEE variance
    (:func:`bacon_bayes.estimate.core.satterthwaite_df`), vectorised over rows."""
    w = np.where(mask, 1.0 / pi, 0.0)
    ybar = (w * y).sum(axis=1, keepdims=True) / w.sum(axis=1, keepdims=True)
    fbar = (w * f).sum(axis=1, keepdims=True) / w.sum(axis=1, keepdims=True)
    r = np.where(mask, (y - ybar) - lam[:, None] * (f - fbar), 0.0)
    a = w * w * (1.0 - pi) * r * r
    q = np.where(mask, 1.0 - pi, 0.0)
    abar = (q * a).sum(axis=1, keepdims=True) / q.sum(axis=1, keepdims=True)
    spread = (q * np.where(mask, a - abar, 0.0) ** 2).sum(axis=1)
    cap = mask.sum(axis=1) - 2.0  # n - 1 - one tuned weight
    return np.clip(2.0 * a.sum(axis=1) ** 2 / np.maximum(spread, 1e-300), 1.0, cap)


def _increment(
    X: np.ndarray,
    Y: np.ndarray,
    before: np.ndarray,
    new: np.ndarray,
    p: np.ndarray,
    prior_var: float | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One wave's estimate of the pool mean given the earlier waves, its variance and its
    predicted variance (the weight's inverse, fixed before the wave's labels are seen).

    The surrogate ``f`` is fitted on the earlier waves' labels (none for the first wave:
    ``f = 0``); the estimate is ``(sum_all f + sum_earlier (y - f) + |U| rbar) / N`` with
    ``rbar`` the wave's Hajek mean of ``y - f`` over the unlabeled items ``U`` it drew
    from, conditionally unbiased given the earlier waves (to first order). The predicted
    variance uses the earlier labels' residual variance (``prior_var`` for the first)."""
    n_items = X.shape[1]
    if prior_var is None:
        a, b = _fit(X, Y, before)
        f = a[:, None] + b[:, None] * X
    else:
        f = np.zeros_like(X)
    r = Y - f
    w = np.where(new, 1.0 / np.maximum(p, 1e-12), 0.0)
    rbar = (w * r).sum(axis=1) / w.sum(axis=1)
    free = ~before
    psi = f.sum(axis=1) + np.where(before, r, 0.0).sum(axis=1) + free.sum(axis=1) * rbar
    d = np.where(new, r - rbar[:, None], 0.0)
    m = new.sum(axis=1)
    var = ((1.0 - p) * w * w * d * d).sum(axis=1) / n_items**2 * m / np.maximum(m - 1, 1)
    if prior_var is None:
        cnt = before.sum(axis=1)
        mu = np.where(before, r, 0.0).sum(axis=1) / cnt
        s2 = (np.where(before, r - mu[:, None], 0.0) ** 2).sum(axis=1) / np.maximum(cnt - 1, 1)
    else:
        s2 = np.full(X.shape[0], prior_var)
    pf = np.maximum(p, 1e-12)
    pred = (np.where(free, (1.0 - pf) / pf, 0.0)).sum(axis=1) * s2 / n_items**2
    return psi / n_items, var, pred


def compare_surrogates(reps: int = 1000, alpha: float = 0.05) -> pd.DataFrame:
    """Pool mean, uniform and adaptive waves: the chance that some look misses and the
    last look's width over the fixed cross-fitted interval's, for the full cross-fit at
    every look (information counted in labels, as the package does) and for per-wave
    increments with earlier-wave surrogates (information from their estimated variances,
    kept increasing)."""
    from bacon_bayes.estimate import anytime as at

    rows = []
    for design in ("uniform", "adaptive"):
        sim = simulate(design, reps=reps, increments=True)
        times = sim.labels / sim.labels[-1]
        fixed = fixed_critical(sim.df["mean"], alpha)
        z = stats.norm.isf(alpha / 2)
        for name in ("mean", "increments"):
            if name == "mean":
                info = np.broadcast_to(at.effective_labels(sim.labels, sim.n_items), fixed.shape)
            else:
                info = np.maximum.accumulate(1.0 / sim.se[name] ** 2, axis=1)
                info = info * (1.0 + 0.02 * np.arange(info.shape[1]))  # strictly increasing
            t_crit = stats.t.isf(alpha / 2, np.maximum(sim.df[name], 1))
            spend = at.spending_critical_values(info, at.obf_spending(times, alpha))
            cs = at.mixture_critical_value(at.mixture_tuning(alpha) * info / info[:, :1], alpha)
            err = np.abs(sim.estimate[name] - sim.truth["mean"]) / sim.se[name]
            for kind, c in (("fixed", z), ("alpha-spending", spend), ("confidence sequence", cs)):
                crit = t_crit * c / z
                p_miss = float((err > crit).any(axis=1).mean())
                width = crit[:, -1] * sim.se[name][:, -1] / (fixed[:, -1] * sim.se["mean"][:, -1])
                rows.append(
                    {
                        "design": design,
                        "estimate": "full cross-fit" if name == "mean" else "per-wave increments",
                        "interval": kind,
                        "some look misses": p_miss,
                        "mc se": float(np.sqrt(p_miss * (1 - p_miss) / reps)),
                        "last width / fixed cross-fit": float(np.mean(width)),
                    }
                )
    return pd.DataFrame(rows)


def coverage_table(reps: int = 1000, alpha: float = 0.05) -> pd.DataFrame:
    """Per design and quantity: the chance that some look's fixed interval misses, its worst
    and its last single look, the same for alpha-spending (up to the last look's labels)
    and the confidence sequence, and their last width over the fixed one."""
    from bacon_bayes.estimate import anytime as at

    rows = []
    for design in ("uniform", "adaptive"):
        sim = simulate(design, reps=reps)
        group = at.effective_labels(sim.group_labels, sim.group_items)
        info = {
            "pool mean": at.effective_labels(sim.labels, sim.n_items),
            "group 0 mean": group,
            "group 0 - group 1": at.pair_information(np.vstack([group, group]), [(0, 1)])[0],
        }
        keys = {"pool mean": "mean", "group 0 mean": "group", "group 0 - group 1": "difference"}
        times = sim.labels / sim.labels[-1]
        for name, inf in info.items():
            q = keys[name]
            fixed = fixed_critical(sim.df[q], alpha)
            df = np.maximum(sim.df[q], 1.0)  # a Student-t look: its t at c's nominal level
            err = np.abs(sim.estimate[q] - sim.truth[q]) / sim.se[q]
            # each look's boundary from the looks up to it, as the package computes it then
            looks = range(inf.size)
            spend = np.array(
                [at.sequential_critical_value(inf[: k + 1], alpha, times=times[: k + 1])
                 for k in looks]
            )  # fmt: skip
            cs = np.array([at.sequential_critical_value(inf[: k + 1], alpha) for k in looks])
            rows.append(
                {
                    "design": design,
                    "quantity": name,
                    "fixed: some look": (err > fixed).any(axis=1).mean(),
                    "worst look": (err > fixed).mean(axis=0).max(),
                    "last look": (err[:, -1] > fixed[:, -1]).mean(),
                    "spending: some look": (err > at.studentised(spend, df)).any(axis=1).mean(),
                    "sequence: some look": (err > at.studentised(cs, df)).any(axis=1).mean(),
                    "last width spending": float(
                        np.mean(at.studentised(spend[-1], df[:, -1]) / fixed[:, -1])
                    ),
                    "sequence": float(np.mean(at.studentised(cs[-1], df[:, -1]) / fixed[:, -1])),
                }
            )
    return pd.DataFrame(rows)


def fixed_critical(df: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    return stats.t.isf(alpha / 2.0, np.maximum(df, 1.0))
