"""A skewed group's interval (issues 40 and 41, :mod:`bacon_bayes.estimate.shape`):
Hall's term moves the studentised mean's quantiles as simulation does, bounded labels
borrow the shape of groups at a like mean, a right-skewed group whose labels missed its
tail reaches further up, and groups of symmetric residuals keep their intervals."""

from __future__ import annotations

import numpy as np
from scipy import stats

from bacon_bayes.estimate import aee_group_means, classical_group_means
from bacon_bayes.estimate import shape as gs
from bacon_bayes.estimate.core import _t_crit
from bacon_bayes.estimate.groups import group_means_from_sums


def test_hall_term_matches_the_studentised_mean_of_a_skewed_sample():
    """Exponential residuals (skewness 2), 15 labels: the t interval misses on the high
    side (0.084); Hall's term with the true skewness brings that side near its 2.5%
    (0.038), and overshoots on the other (0.005 -> 0.068: one Cornish-Fisher term at
    ``gamma / sqrt(n)`` = 0.5), which is why the benchmark joins it to today's interval."""
    rng = np.random.default_rng(0)
    n, reps = 15, 40_000
    x = rng.exponential(size=(reps, n))
    est, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(n)
    crit = _t_crit(0.05, np.array([n]))
    t_low, t_high = (1.0 < est - crit * se).mean(), (1.0 > est + crit * se).mean()
    lo, hi = gs.corrected_ends(est, se, crit, np.full(reps, 2.0), np.full(reps, n))
    low, high = (1.0 < lo).mean(), (1.0 > hi).mean()
    assert t_high > 0.075 and t_low < 0.01
    assert 0.03 < high < 0.045 and low > 0.06
    joined = t_low + high  # the t interval's low end, the corrected high end
    assert abs(joined - 0.05) < 0.01 < abs(t_low + t_high - 0.05)


def test_symmetric_groups_keep_the_t_interval():
    """Every group's residuals mirrored about their mean: skewness 0, ends unchanged."""
    rng = np.random.default_rng(1)
    half = rng.normal(size=(6, 8)) * np.arange(1, 7)[:, None]
    resid = np.concatenate([np.concatenate([h, -h]) + 3.0 * g for g, h in enumerate(half)])
    g_lab = np.repeat(np.arange(6), 16)
    shrunk, own, prior = gs.shrunk_skewness(resid, g_lab, np.linspace(1, 5, 6), 0.0, 6.0)
    assert np.allclose(own, 0.0) and np.allclose(prior, 0.0) and np.allclose(shrunk, 0.0)
    est, se, crit = np.arange(6.0), np.full(6, 0.5), _t_crit(0.05, np.full(6, 16))
    lo, hi = gs.corrected_ends(est, se, crit, shrunk, np.full(6, 16.0))
    assert np.allclose(lo, est - crit * se) and np.allclose(hi, est + crit * se)


def test_bounded_labels_borrow_the_shape_at_a_like_mean():
    """0/1 labels of eight groups at 10%-90%: a group's prediction from the others follows
    the 0/1 skewness at its mean (positive near 0, negative near 1), not the pool's 0."""
    rng = np.random.default_rng(2)
    p = np.linspace(0.1, 0.9, 8)
    y = (rng.random((8, 400)) < p[:, None]).astype(float)
    g_lab = np.repeat(np.arange(8), 400)
    _, own, prior = gs.shrunk_skewness(y.ravel() - p.repeat(400), g_lab, p, 0.0, 1.0)
    bernoulli = stats.bernoulli(p).stats(moments="s")
    assert prior[0] > 1.5 and prior[-1] < -1.5
    assert np.all(np.abs(prior - bernoulli) < 0.5)
    assert np.corrcoef(prior, own)[0, 1] > 0.95


def _skewed_pool(seed: int = 0, m: int = 8, size: int = 200):
    """``m`` groups whose residuals are right-skewed (lognormal, skewness about 3), 15
    labels a group drawn uniformly."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(m), size)
    f = rng.normal(size=g.size)
    e = rng.lognormal(0.0, 0.8, g.size)
    y = 2.0 + f + e - e.mean()
    labeled = np.zeros(g.size, bool)
    for k in range(m):
        labeled[rng.choice(np.flatnonzero(g == k), 15, replace=False)] = True
    return np.where(labeled, y, np.nan), f, g


def test_skewed_groups_whose_labels_missed_the_tail_reach_further_up():
    """On the bootstrap branch, the intervals of right-skewed groups whose own variance
    is below their moderated one (here 3 of 8) reach further up than down, by Hall's
    term at the shrunk skewness; the other ends are as without it. Before, every interval
    was symmetric about its estimate."""
    y, f, g = _skewed_pool(seed=1)
    table = aee_group_means(y, f, g, pi=15 / 200, simultaneous="none", n_boot=500)
    up, down = table.ci_high - table.estimate, table.estimate - table.ci_low
    assert table.details["interval"] == "bootstrap"
    moved = np.isin(np.array(table.names), table.details["skew_reach"])
    assert moved.sum() >= 2 and np.all(up[moved] > 1.04 * down[moved])
    assert all(v > 0.5 for v in table.details["skewness"])
    lab = ~np.isnan(y)
    plain = group_means_from_sums(
        y[lab], f[lab], np.full(lab.sum(), 15 / 200), g[lab], np.arange(8).astype(str),
        np.bincount(g, weights=f), f.sum(), np.bincount(g), g.size,
        simultaneous="none", n_boot=500, skew=False,
    )  # fmt: skip
    assert np.allclose(plain.ci_low, table.ci_low)
    assert np.allclose(plain.ci_high[~moved], table.ci_high[~moved])
    assert np.all(table.ci_high[moved] > plain.ci_high[moved] + 1e-9)
    assert np.allclose(plain.ci_high - plain.estimate, plain.estimate - plain.ci_low)


def test_groups_of_symmetric_residuals_keep_their_intervals():
    """Every group's labeled residuals symmetric about their mean: skewness 0 everywhere,
    each interval symmetric and as without the skew reach (AEE and labels alone)."""
    rng = np.random.default_rng(3)
    m, n = 6, 16
    half = rng.normal(size=(m, n // 2)) * rng.uniform(0.5, 2.0, (m, 1))
    resid = np.concatenate([np.concatenate([h, -h]) for h in half])
    g = np.repeat(np.arange(m), n)
    f = np.linspace(1.0, 4.0, m)[g]
    args = (resid + f, f, 0.1 * np.ones(m * n), g, np.arange(m).astype(str))
    sums = np.bincount(g, weights=f * 10)
    kw = {"simultaneous": "none", "n_boot": 500, "power_tuning": False}
    for skew in (True, False):
        t = group_means_from_sums(*args, sums, sums.sum(), np.full(m, 160), 960, skew=skew, **kw)
        if skew:
            table = t
        else:
            assert np.allclose(t.ci_low, table.ci_low) and np.allclose(t.ci_high, table.ci_high)
    assert np.allclose(table.details["skewness"], 0.0) and "skew_reach" not in table.details
    assert np.allclose(table.ci_high - table.estimate, table.estimate - table.ci_low)
    alone = classical_group_means(resid + 3.0, g, pi=0.1, simultaneous="none", n_boot=500)
    assert np.allclose(alone.details["skewness"], 0.0)
    assert np.allclose(alone.ci_high - alone.estimate, alone.estimate - alone.ci_low)
