"""Pool means of labels piled at one end of the scale: the t interval's degrees of freedom
come from the design-based variance's own uncertainty (Satterthwaite), so a few dozen
labels from a skewed pool still cover at the nominal rate (too low and too wide both fail).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bacon_bayes.estimate import aee_mean, classical_mean
from bacon_bayes.estimate.core import satterthwaite_df

N, N_LABELED, REPS = 1200, 60, 2000


def skewed_pool() -> np.ndarray:
    """Expert-mean-like labels on 1..5: 77% at 5.0, the rest trailing down (skew -2.8),
    like SummEval's consistency and fluency."""
    rng = np.random.default_rng(7)
    tail = np.round(3 * np.clip(5 - rng.gamma(1.5, 1.0, N), 1, 4.67)) / 3
    return np.where(rng.random(N) < 0.77, 5.0, tail)


def band(level: float = 0.95, reps: int = REPS) -> tuple[float, float]:
    return (stats.binom.ppf(0.0005, reps, level) / reps,
            stats.binom.ppf(0.9995, reps, level) / reps)  # fmt: skip


def test_skewed_labels_cover_with_satterthwaite_df_and_not_without():
    """2,000 simple random samples of 60 labels: the classical and the AEE (a noisy judge
    as surrogate, weight 1) 95% intervals cover inside the 99.9% band; the classical
    interval on n - 1 degrees of freedom falls below it (so this test can fail). With the
    power-tuned weight the AEE covers 0.924 here (0.9165 on n - 1): estimating the weight
    from 60 skewed labels costs coverage of its own, which the df does not repair (on
    SummEval's consistency and fluency at 5% the tuned AEE is in band; EXPERIMENTS.md)."""
    y = skewed_pool()
    judge = y + np.random.default_rng(3).normal(0, 0.8, N)
    truth, rng = y.mean(), np.random.default_rng(0)
    lo, hi = band()
    t = stats.t.ppf(0.975, N_LABELED - 1)
    hits: dict[str, list[bool]] = {k: [] for k in ("classical", "aee", "classical n-1",
                                                   "tuned", "tuned n-1")}  # fmt: skip
    for _ in range(REPS):
        lab = np.zeros(N, dtype=bool)
        lab[rng.choice(N, N_LABELED, replace=False)] = True
        y_obs = np.where(lab, y, np.nan)
        c = classical_mean(y_obs)
        a = aee_mean(y_obs, judge, power_tuning=False)
        tuned = aee_mean(y_obs, judge)
        for key, e in (("classical", c), ("aee", a), ("tuned", tuned)):
            hits[key].append(e.ci_low <= truth <= e.ci_high)
            assert e.details["df"] <= N_LABELED - 1
        hits["classical n-1"].append(abs(c.estimate - truth) <= t * c.se)
        hits["tuned n-1"].append(abs(tuned.estimate - truth) <= t * tuned.se)
    cover = {k: float(np.mean(v)) for k, v in hits.items()}
    assert lo <= cover["classical"] <= hi, cover
    assert lo <= cover["aee"] <= hi, cover
    assert cover["classical n-1"] < lo, cover
    assert cover["tuned"] >= cover["tuned n-1"], cover


def test_even_residuals_keep_n_minus_1_and_one_outlier_lowers_it():
    """Residuals of even size reach the cap (nothing changes for well-behaved labels);
    one large residual among small ones makes the variance estimate uncertain and the df
    small; weights, the Hajek centring and the superpopulation target are accepted."""
    n = 50
    pi = np.full(n, 0.1)
    even = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    assert satterthwaite_df(even, np.zeros(n), pi, 0.0, n - 1.0) == n - 1.0
    normal = np.random.default_rng(0).normal(size=n)
    assert satterthwaite_df(normal, np.zeros(n), pi, 0.0, n - 1.0) > 0.6 * (n - 1)
    outlier = np.r_[np.zeros(n - 1), 10.0]
    assert satterthwaite_df(outlier, np.zeros(n), pi, 0.0, n - 1.0) < 3.0
    uneven = np.linspace(0.05, 0.5, n)
    for target in ("pool", "superpopulation"):
        df = satterthwaite_df(normal, normal * 0.5, uneven, 1.0, n - 2.0, target=target)
        assert 1.0 <= df <= n - 2.0


@pytest.mark.parametrize("method", ["aee", "classical"])
def test_the_interval_uses_the_recorded_df(method):
    y = skewed_pool()
    lab = np.zeros(N, dtype=bool)
    lab[np.random.default_rng(5).choice(N, N_LABELED, replace=False)] = True
    y_obs = np.where(lab, y, np.nan)
    e = aee_mean(y_obs, y + 0.5) if method == "aee" else classical_mean(y_obs)
    half = stats.t.ppf(0.975, e.details["df"]) * e.se
    np.testing.assert_allclose([e.ci_low, e.ci_high], [e.estimate - half, e.estimate + half])
