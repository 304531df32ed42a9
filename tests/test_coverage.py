"""Coverage in both directions, bias and efficiency of the AEE estimators.

``make test`` checks every interval of the regimes' plan on 80 replications
(tests/interval_checks.py): its half-width against the spread of its estimates, in a band
that intervals widened 1.5 times and narrowed to 0.6 each fail, and its bias. The coverage
study (400 replications: each coverage in the two-sided 99.9% binomial band around
nominal, below (too narrow) or above (too wide)) runs under ``make validate``, and so does
the full grid of regimes (tests/test_validation_grid.py, which writes VALIDATION.md).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from bacon_bayes.simulation import regimes as sim
from tests.interval_checks import assert_two_sided

#: replications of the coverage study (``make validate``) and of the fast check
REPS, FAST_REPS = 400, 80


#: the estimands each regime is studied for (one Monte Carlo per regime, alpha and number
#: of replications, computed when a test first asks for it)
PLAN = {
    "informative": ("mean", "quantile", "groups", "differences"),
    "useless": ("mean",),
    "adversarial": ("mean",),
    "unequal_pi": ("mean", "groups"),
    "ordinal": ("mean", "quantile"),
    "zero_inflated": ("groups",),
}
#: the estimand a row names -> the estimand sim.study computes it under
KIND = {"quantile(0.5)": "quantile", "cdf(3)": "quantile",
        "groups (simultaneous)": "groups", "differences (simultaneous)": "differences"}  # fmt: skip


@functools.cache
def _study(regime: str, estimands: tuple[str, ...], alpha: float, reps: int) -> list[sim.Coverage]:
    return sim.study(sim.make_regime(regime), reps=reps, estimands=estimands, alphas=(alpha,))


def _results(reps: int):
    """``row(regime, estimand, method, alpha)``: the coverage row of ``reps``
    replications. At alpha 0.1 a regime's whole plan runs once; a 0.05 row runs its
    estimand alone. The draws, folds and bootstrap seeds depend on neither."""

    def row(regime: str, estimand: str, method: str = "aee", alpha: float = 0.1):
        kinds = PLAN[regime] if alpha == 0.1 else (KIND.get(estimand, estimand),)
        return pick(_study(regime, kinds, alpha, reps), estimand, method, alpha)

    return row


@pytest.fixture(scope="module")
def results():
    """The coverage study's rows (400 replications, ``make validate``)."""
    return _results(REPS)


@pytest.fixture(scope="module")
def fast():
    """The fast check's rows (80 replications, ``make test``)."""
    return _results(FAST_REPS)


def pick(rows, estimand, method="aee", alpha=0.1):
    (row,) = [r for r in rows if r.estimand == estimand and r.method == method and r.alpha == alpha]
    return row


CELLS = [
    ("informative", "mean"),
    ("informative", "quantile(0.5)"),
    ("informative", "groups (simultaneous)"),
    ("informative", "differences (simultaneous)"),
    ("useless", "mean"),
    ("adversarial", "mean"),
    ("unequal_pi", "mean"),
    ("unequal_pi", "groups (simultaneous)"),
    ("zero_inflated", "groups (simultaneous)"),
    ("ordinal", "mean"),
    ("ordinal", "cdf(3)"),
]


@pytest.mark.parametrize(
    ("regime", "estimand", "alpha"),
    [(*cell, 0.1) for cell in CELLS] + [("informative", "mean", 0.05)],
)
def test_intervals_are_neither_too_wide_nor_too_narrow(fast, regime, estimand, alpha):
    """Every interval of the coverage study below at 90% (and the mean at 95%), on 80
    replications: the mean half-width over the critical value times the estimates' sd
    (simultaneous: the quantile of their max-|z|) in [0.8, 1.25], no bias beyond 3.29 se;
    widened 1.5 times and narrowed to 0.6 the same intervals fail."""
    d = fast(regime, estimand, alpha=alpha).draws
    simultaneous = "simultaneous" in estimand
    what = f"{regime} {estimand} at {1 - alpha:.0%}"
    kw = {"simultaneous": simultaneous, "what": what}
    assert_two_sided(d.estimate, d.ci_low, d.ci_high, d.truth, alpha, **kw)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("regime", "estimand", "alpha"), [(*cell, alpha) for alpha in (0.1, 0.05) for cell in CELLS]
)
def test_coverage_in_band(results, regime, estimand, alpha):
    row = results(regime, estimand, alpha=alpha)
    lo, hi = row.band()
    assert lo <= row.coverage, f"{regime} {estimand}: coverage {row.coverage:.3f} below {lo:.3f}"
    assert row.coverage <= hi, f"{regime} {estimand}: coverage {row.coverage:.3f} above {hi:.3f}"


@pytest.mark.slow
@pytest.mark.parametrize("regime", ["informative", "adversarial", "unequal_pi", "ordinal"])
def test_mean_is_unbiased(results, regime):
    row = results(regime, "mean")
    assert abs(row.bias) <= 3.29 * row.bias_se + 1e-12, (row.bias, row.bias_se)


def test_informative_judge_narrows_the_interval(fast):
    aee = fast("informative", "mean")
    classical = fast("informative", "mean", method="classical")
    assert aee.mean_width < 0.7 * classical.mean_width


def test_useless_judge_costs_at_most_two_percent(fast):
    aee = fast("useless", "mean")
    classical = fast("useless", "mean", method="classical")
    assert aee.mean_width <= 1.02 * classical.mean_width


def test_band_detects_too_wide_and_too_narrow():
    """The band itself must reject intervals that are too wide or too narrow."""
    row = sim.Coverage("x", "mean", "aee", 0.1, REPS, 0.95, 1.0, 0.0, 1.0)
    assert not row.in_band
    row = sim.Coverage("x", "mean", "aee", 0.1, REPS, 0.85, 1.0, 0.0, 1.0)
    assert not row.in_band
    assert sim.Coverage("x", "mean", "aee", 0.1, REPS, 0.9, 1.0, 0.0, 1.0).in_band


@pytest.mark.slow
def test_inflated_interval_fails_the_check():
    """Scaling a correct interval by 1.3 pushes coverage above the band (test can fail)."""
    regime = sim.make_regime("informative")
    mask, pi = sim.draw_samples(regime, REPS, 7)
    preds, fold_ids, _ = sim.batched_ridge_crossfit(regime.X, regime.y, mask, seed=7)
    f = sim.batched_surrogate(preds, fold_ids)
    from bacon_bayes.estimate.core import _t_crit, mean_core

    ym = np.where(mask, regime.y, 0.0)
    theta, var, _, n = mean_core(ym, f, pi, f.sum(axis=1), regime.y.size, mask=mask)
    half = _t_crit(0.1, n) * np.sqrt(var)
    truth = regime.y.mean()
    good = np.mean(np.abs(theta - truth) <= half)
    wide = np.mean(np.abs(theta - truth) <= 1.3 * half)
    narrow = np.mean(np.abs(theta - truth) <= 0.75 * half)
    lo, hi = sim.Coverage("x", "m", "aee", 0.1, REPS, good, 0, 0, 1).band()
    assert lo <= good <= hi
    assert wide > hi and narrow < lo


@pytest.mark.parametrize("regime_name", ["informative", "unequal_pi"])
def test_vectorised_crossfit_is_the_library_crossfit(regime_name):
    """The simulations run the library's estimator: batched ridge == cross_fit(RidgeOutcome)."""
    from bacon_bayes.crossfit import cross_fit
    from bacon_bayes.outcome import RidgeOutcome

    regime = sim.make_regime(regime_name)
    mask, pi = sim.draw_samples(regime, 3, 5)
    preds, fold_ids, _ = sim.batched_ridge_crossfit(regime.X, regime.y, mask, seed=5)
    pooled = sim.batched_surrogate(preds, fold_ids, 1.0 / pi)
    by_group = sim.batched_surrogate(preds, fold_ids, 1.0 / pi, regime.groups)
    for r in range(3):
        y = np.where(mask[r], regime.y, np.nan)
        pi_r = None if regime.pi is None else pi[r]
        cf = cross_fit(RidgeOutcome(alpha=sim.RIDGE_ALPHA), regime.X, y, seed=5 + r, pi=pi_r)
        assert np.allclose(cf.mean, pooled[r], atol=1e-10)
        assert np.allclose(cf.surrogate(regime.groups), by_group[r], atol=1e-10)
