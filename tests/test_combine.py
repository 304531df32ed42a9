"""Several surrogates in one AEE mean: exact identities, coverage in both directions at
small label budgets, and the efficiency of combining complementary surrogates."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes import ValidationError
from bacon_bayes import estimate as est
from bacon_bayes.estimate import combine
from bacon_bayes.estimate.combine import combined_core, inflation
from bacon_bayes.estimate.core import _t_crit, mean_core
from bacon_bayes.simulation import regimes as sim
from tests.interval_checks import assert_two_sided

N_ITEMS = 2000
#: replications of the coverage studies (``make validate``) and of the fast checks
REPS, FAST_REPS = 1000, 150


@pytest.fixture(scope="module")
def world():
    """A pool whose label has a linear and a quadratic part in a latent quality.

    Surrogates: a cross-fitted ridge on three noisy linear judges, the judges' mean
    (both see the linear part, strongly correlated), a judge of the quadratic part
    (complementary) and a useless one (pure noise).
    """
    rng = np.random.default_rng(21)
    z = rng.normal(size=N_ITEMS)
    y = 3.0 + z + 0.5 * (z**2 - 1.0) + rng.normal(0, 0.6, N_ITEMS)
    X = np.column_stack([z + rng.normal(0, s, N_ITEMS) for s in (0.6, 0.8, 1.0)])
    fixed = np.column_stack(
        [X.mean(axis=1), z**2 + rng.normal(0, 0.5, N_ITEMS), rng.normal(size=N_ITEMS)]
    )
    return X, y, fixed


def draw(world, n_lab, seed, poisson=False, reps=REPS):
    """Label masks, design and conditioned probabilities, and the (R, N, 4) surrogates of
    ``reps`` replications (those of fewer are the first of more)."""
    X, y, fixed = world
    rng = np.random.default_rng(seed)
    if poisson:  # more labels where the first judge is high
        pi = np.clip(0.5 + X[:, 0] - X[:, 0].min(), 0, None)
        pi = np.broadcast_to(pi * n_lab / pi.sum(), (reps, N_ITEMS))
        mask = rng.random((reps, N_ITEMS)) < pi
    else:
        order = np.argsort(rng.random((reps, N_ITEMS)), axis=1)[:, :n_lab]
        mask = np.zeros((reps, N_ITEMS), dtype=bool)
        np.put_along_axis(mask, order, True, axis=1)
        pi = np.full((reps, N_ITEMS), n_lab / N_ITEMS)
    preds, fold_ids, _ = sim.batched_ridge_crossfit(X, y, mask, seed=seed)
    ridge = sim.batched_surrogate(preds, fold_ids, 1.0 / pi)
    F = np.concatenate([ridge[..., None], np.broadcast_to(fixed, (reps, *fixed.shape))], axis=2)
    # the Hajek variance conditions on the realised sample size (as the library does)
    pi_cond = np.minimum(pi * (mask.sum(axis=1) / pi.sum(axis=1))[:, None], 1.0)
    return mask, pi_cond, F


def run(world, mask, pi, F, **kw):
    _, y, _ = world
    ym = np.where(mask, y, 0.0)
    return combined_core(ym, F, pi, F.sum(axis=1), N_ITEMS, mask=mask, **kw)


def coverage(theta, var, df, truth, alpha, scale=1.0):
    half = scale * _t_crit(alpha, df + 1) * np.sqrt(var)
    return float(np.mean(np.abs(theta - truth) <= half))


# --------------------------------------------------------------------------- identities


def test_one_surrogate_reproduces_the_power_tuning_weight_exactly():
    rng = np.random.default_rng(3)
    n_items, n = 500, 60
    x = rng.normal(size=n_items)
    y = 1.0 + x + rng.normal(0, 0.5, n_items)
    f = 0.9 + 0.8 * x
    lab = np.zeros(n_items, bool)
    lab[rng.choice(n_items, n, replace=False)] = True
    pi = rng.uniform(0.05, 0.3, n)
    for hajek in (True, False):
        for target in ("pool", "superpopulation"):
            kw = {"hajek": hajek, "target": target}
            t1, v1, l1, _ = mean_core(y[lab], f[lab], pi, f.sum(), n_items, **kw)
            t2, v2, l2, _, df = combined_core(
                y[lab], f[lab][:, None], pi, f.sum(keepdims=True), n_items, **kw
            )
            assert l2[0] == pytest.approx(float(l1), rel=1e-12)
            assert float(t2) == pytest.approx(float(t1), rel=1e-12)
            assert df == n - 2
            if target == "pool":  # only the price of the tuned weight differs
                ratio = inflation(n, 1) / (inflation(n, 0) if hajek else 1.0)
                assert float(v2) == pytest.approx(float(v1) * ratio, rel=1e-12)
    # the public function with one column is the one-surrogate estimator, bit for bit
    yy = np.where(lab, y, np.nan)
    assert est.aee_mean(yy, f[:, None]).to_dict() == est.aee_mean(yy, f).to_dict()
    groups = np.arange(n_items) % 3
    a = est.aee_group_means(yy, f[:, None], groups, interval="t")
    b = est.aee_group_means(yy, f, groups, interval="t")
    assert np.array_equal(a.estimate, b.estimate) and np.array_equal(a.cov, b.cov)


def test_the_unshrunk_weights_minimise_the_fitted_residual_variance(world, monkeypatch):
    """Without shrinkage the weights are the exact minimiser: the fitted residual part of
    the variance is at most each single surrogate's."""
    monkeypatch.setattr(combine, "SHRINK", 0.0)
    mask, pi, F = draw(world, 40, 5)
    _, y, _ = world
    ym = np.where(mask, y, 0.0)
    _, _, lam, _, _ = run(world, mask, pi, F)
    _, v_all, _, _, _ = run(world, mask, pi, F, lam=lam)  # fixed weights: no price
    for j in range(F.shape[2]):
        _, v_j, _, _ = mean_core(ym, F[..., j], pi, F[..., j].sum(axis=1), N_ITEMS, mask=mask)
        assert np.all(v_all <= v_j * (1 + 1e-9))


def test_shrinkage_vanishes_with_many_labels():
    rng = np.random.default_rng(0)
    a = np.array([[2.0, 1.9], [1.9, 2.1]])
    b = rng.normal(size=2)
    exact = np.linalg.solve(a, b)
    assert np.allclose(combine.tuned_weights(a, b, np.array(1e9)), exact, rtol=1e-6)
    assert not np.allclose(combine.tuned_weights(a, b, np.array(40.0)), exact, rtol=1e-2)


def test_collinear_and_duplicate_surrogates_are_handled():
    rng = np.random.default_rng(1)
    n_items = 400
    x = rng.normal(size=n_items)
    y = np.where(rng.random(n_items) < 0.2, 2 + x + rng.normal(0, 0.5, n_items), np.nan)
    single = est.aee_mean(y, x)
    double = est.aee_mean(y, np.column_stack([x, x]))
    assert double.estimate == pytest.approx(single.estimate, rel=1e-9)
    assert sum(double.details["power_lambda"]) == pytest.approx(
        single.details["power_lambda"], rel=1e-9
    )


def test_combination_does_not_depend_on_the_surrogates_scales():
    """A judge on a 0-100 scale beside one on 1-5: rescaling or shifting a surrogate
    leaves the estimate and its interval unchanged (the shrinkage target standardises)."""
    rng = np.random.default_rng(4)
    n_items = 600
    z = rng.normal(size=n_items)
    y = np.where(rng.random(n_items) < 0.08, 3 + z + rng.normal(0, 0.7, n_items), np.nan)
    F = np.column_stack([z + rng.normal(0, 0.8, n_items), z**2, rng.normal(size=n_items)])
    a = est.aee_mean(y, F)
    b = est.aee_mean(y, F * np.array([25.0, 0.1, 3.0]) + np.array([50.0, 1.0, -2.0]))
    assert b.estimate == pytest.approx(a.estimate, rel=1e-10)
    assert b.se == pytest.approx(a.se, rel=1e-10)


def test_bad_surrogate_matrices_are_refused():
    y = np.array([1.0, 2.0, np.nan, 3.0, np.nan, 2.5, 1.5, np.nan])
    F = np.column_stack([np.arange(8.0), np.arange(8.0) ** 2, np.ones(8)])
    with pytest.raises(ValidationError, match="too few to tune the weights of 3 surrogates"):
        est.aee_mean(y, F)
    F[2, 1] = np.nan
    with pytest.raises(ValidationError, match="surrogate 1 is not finite at item 2"):
        est.aee_mean(y, F, power_tuning=False)


# --------------------------------------------------------------------------- coverage


SMALL_BUDGETS = pytest.mark.parametrize(
    ("n_lab", "poisson", "cols"),
    [(40, False, [0, 1, 2, 3]), (60, True, [0, 1, 2, 3]), (40, False, [0, 1])],
)


@SMALL_BUDGETS
def test_combined_interval_is_neither_too_wide_nor_too_narrow_at_small_budgets(
    world, n_lab, poisson, cols
):
    """The cells of the coverage study below on 150 replications: the fast check
    (tests/interval_checks.py, the t on the interval's df) at 90% and 95%, which the
    intervals fail widened 1.5 times or narrowed to 0.6."""
    mask, pi, F = draw(world, n_lab, 11 + n_lab, poisson, reps=FAST_REPS)
    theta, var, _, n, df = run(world, mask, pi, F[..., cols])
    assert np.all(df == n - 1 - len(cols))
    for alpha in (0.1, 0.05):
        half = _t_crit(alpha, df + 1) * np.sqrt(var)
        kw = {"df": float(np.mean(df)), "what": f"{n_lab} labels, surrogates {cols}, alpha {alpha}"}
        assert_two_sided(theta, theta - half, theta + half, world[1].mean(), alpha, **kw)


@pytest.mark.slow
@SMALL_BUDGETS
def test_combined_interval_covers_in_band_at_small_budgets(world, n_lab, poisson, cols):
    """Four correlated surrogates (one useless) on 40-60 labels, and the nearly collinear
    pair ridge + judge mean on 40: coverage in the two-sided 99.9% band at 90% and 95%;
    the same interval 1.3x wider rises above it."""
    mask, pi, F = draw(world, n_lab, 11 + n_lab, poisson)
    truth = world[1].mean()
    theta, var, _, n, df = run(world, mask, pi, F[..., cols])
    assert np.all(df == n - 1 - len(cols))
    for alpha in (0.1, 0.05):
        cov = coverage(theta, var, df, truth, alpha)
        lo, hi = sim.Coverage("x", "m", "aee", alpha, REPS, cov, 0, 0, 0).band()
        assert lo <= cov <= hi, (n_lab, alpha, cov, lo, hi)
        assert coverage(theta, var, df, truth, alpha, 1.3) > hi


@pytest.mark.slow
def test_unshrunk_unpriced_weights_undercover(world, monkeypatch):
    """The coverage band can fail: the plain in-sample weights without shrinkage and
    without the price of tuning them cover the collinear pair below it at 40 labels."""
    monkeypatch.setattr(combine, "SHRINK", 0.0)
    mask, pi, F = draw(world, 40, 51)
    truth = world[1].mean()
    theta, var, _, n, _ = run(world, mask, pi, F[..., [0, 1]])
    plain = var / inflation(n, 2) * inflation(n, 0)
    lo, _ = sim.Coverage("x", "m", "aee", 0.1, REPS, 0, 0, 0, 0).band()
    assert coverage(theta, plain, n - 1, truth, 0.1) < lo


def test_combined_mean_is_unbiased_at_moderate_budgets(world):
    """At 120 labels the bias is within 3.29 Monte Carlo standard errors. (The tuned
    weights bring an O(1/n) bias, as every regression estimator, the one-surrogate one
    included: at 40 labels it was -0.009 (0.07 sd) for the four surrogates and -0.022
    (0.15 sd) for the pair ridge + judge mean; the judge mean alone had -0.024.)"""
    mask, pi, F = draw(world, 120, 4)
    theta = run(world, mask, pi, F)[0]
    err = theta - world[1].mean()
    assert abs(err.mean()) <= 3.29 * err.std() / np.sqrt(REPS)


def _group_tables(world, reps: int):
    """``reps`` draws of 200 labels: the four groups' true means and the Student-t max-|t|
    tables of their combined means at 90%."""
    _, y, _ = world
    mask, pi, F = draw(world, 200, 3, reps=reps)
    groups = np.arange(N_ITEMS) % 4
    truth = np.array([y[groups == g].mean() for g in range(4)])
    tables = [
        est.aee_group_means(
            np.where(mask[r], y, np.nan), F[r], groups, pi=pi[r, 0], interval="t", alpha=0.1
        )
        for r in range(reps)
    ]
    return truth, tables


def test_combined_group_means_are_neither_too_wide_nor_too_narrow(world):
    """Group means share one weight vector tuned on all labels: 80 draws of the four
    groups' simultaneous intervals pass the fast check (the max-|t| on their df), which
    they fail widened 1.5 times or narrowed to 0.6."""
    truth, tables = _group_tables(world, 80)
    est_, lo, hi = (
        np.array([getattr(t, k) for t in tables]) for k in ("estimate", "ci_low", "ci_high")
    )
    df = np.mean([np.broadcast_to(t.details["df"], 4) for t in tables], axis=0)
    kw = {"simultaneous": True, "df": df, "what": "combined group means"}
    assert_two_sided(est_, lo, hi, truth, 0.1, **kw)


@pytest.mark.slow
def test_combined_group_means_cover_in_band(world):
    """Group means share one weight vector tuned on all labels; simultaneous coverage
    of the four groups' true means in the band (Student-t max-|t| intervals)."""
    truth, tables = _group_tables(world, 400)
    hits = np.array([np.all((t.ci_low <= truth) & (truth <= t.ci_high)) for t in tables])
    lo, hi = sim.Coverage("x", "m", "aee", 0.1, hits.size, 0, 0, 0, 0).band()
    assert lo <= hits.mean() <= hi, hits.mean()


# --------------------------------------------------------------------------- efficiency


def test_complementary_surrogates_beat_the_best_single_one(world):
    """Each of two surrogates sees one part of the label: their combination's true
    error and mean standard error are clearly below the best single surrogate's."""
    mask, pi, F = draw(world, 300, 8)
    truth = world[1].mean()
    pair = F[..., [0, 2]]  # the ridge (linear part) and the quadratic judge
    theta, var, *_ = run(world, mask, pi, pair)
    single = [run(world, mask, pi, F[..., [j]]) for j in (0, 2)]
    rmse = np.sqrt(np.mean((theta - truth) ** 2))
    best_rmse = min(np.sqrt(np.mean((s[0] - truth) ** 2)) for s in single)
    best_se = min(np.mean(np.sqrt(s[1])) for s in single)
    assert np.mean(np.sqrt(var)) < 0.85 * best_se
    assert rmse < 0.9 * best_rmse
