"""Bradley-Terry strengths with AEE intervals: simulated comparisons with known
strengths, ties and two position-biased, noisy judges (engine="freq", no NUTS)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.bradley_terry import (
    ELO,
    bradley_terry,
    bradley_terry_fit,
    win_probability,
)
from bacon_bayes.estimate.bt_ranks import rank_sets, set_aside, tiers
from bacon_bayes.estimate.groups import compare, rank_intervals
from bacon_bayes.pool import EvalPool
from bacon_bayes.report.pairwise import win_matrix
from tests.interval_checks import assert_two_sided, width_check

M = 8
STRENGTH = np.linspace(-1.0, 1.0, M)
VERDICT = np.array(["B", "tie", "A"])


def simulate(rng: np.random.Generator, n: int = 2000) -> dict[str, np.ndarray]:
    """Comparisons of ``M`` models (30% ties) and two judges' verdicts: each judge sees
    the true log-odds, the human vote, a position bias towards A and noise."""
    a = rng.integers(0, M, n)
    b = (a + rng.integers(1, M, n)) % M
    logit = STRENGTH[a] - STRENGTH[b]
    p = 1.0 / (1.0 + np.exp(-logit))
    y = np.where(rng.random(n) < 0.3, 0.5, (rng.random(n) < p).astype(float))
    judges = []
    for bias, noise, signal in ((0.6, 0.8, 2.0), (-0.3, 1.0, 1.5)):
        z = logit + bias + rng.normal(0.0, noise, n) + signal * (y - 0.5)
        judges.append(np.digitize(z, [-0.5, 0.5]))  # 0 = B, 1 = tie, 2 = A
    return {"a": a, "b": b, "y": y, "judges": np.column_stack(judges)}


def _masked(y: np.ndarray, n_lab: int, rng: np.random.Generator) -> np.ndarray:
    out = np.full(y.size, np.nan)
    lab = rng.choice(y.size, n_lab, replace=False)
    out[lab] = y[lab]
    return out


def _band(p: float, n: int, level: float = 0.999) -> tuple[float, float]:
    lo, hi = stats.binom.interval(level, n, p)
    return lo / n, hi / n


@pytest.fixture(scope="module")
def draws() -> dict[str, np.ndarray]:
    """300 simulated pools (``make validate``)."""
    return _draws(300)


def _draws(reps: int) -> dict[str, np.ndarray]:
    """``reps`` simulated pools, 300 labels each: estimates, standard errors, intervals and
    the finite-pool target (the BT fit on all rows with their human labels)."""
    rng = np.random.default_rng(44)
    out: dict[str, list] = {k: [] for k in ("full", "est", "se", "lo", "hi", "c_est", "c_lo")}
    out.update(c_hi=[], c_se=[], width=[], c_width=[], p_lo=[], p_hi=[], win=[])
    out.update(p_est=[], w_est=[], w_lo=[], w_hi=[], w_pool=[])
    crit_sim = None
    for r in range(reps):
        d = simulate(rng)
        full = bradley_terry_fit(d["a"], d["b"], d["y"], M)
        y = _masked(d["y"], 300, rng)
        f = d["judges"] / 2.0  # verdicts as scores of A: (N, 2) surrogates, averaged
        t = bradley_terry(d["a"], d["b"], y, f, n_models=M, simultaneous=r == 0)
        if r == 0:
            # the correlation of the strengths depends on the design only: the max-|t|
            # critical value of the first draw serves all (saves 300 simulations)
            crit_sim = float(t.critical_value[0])
            t = bradley_terry(d["a"], d["b"], y, f, n_models=M)
        c = bradley_terry(d["a"], d["b"], y, None, n_models=M)
        pop = bradley_terry(d["a"], d["b"], y, f, n_models=M, target="population")
        # P(model i+1 beats model i): each adjacent pair's interval and the pool's value
        wins = [win_probability(t, f"model{i + 1}", f"model{i}") for i in range(M - 1)]
        pool_win = 1.0 / (1.0 + np.exp(-(full[1:] - full[:-1])))
        out["win"].append(
            [(w.ci_low <= v <= w.ci_high) for w, v in zip(wins, pool_win, strict=True)]
        )
        out["p_lo"].append(pop.ci_low)
        out["p_hi"].append(pop.ci_high)
        out["p_est"].append(pop.estimate)
        out["w_pool"].append(pool_win)
        for k, attr in (("w_est", "estimate"), ("w_lo", "ci_low"), ("w_hi", "ci_high")):
            out[k].append([getattr(w, attr) for w in wins])
        for k, v in (("full", full), ("est", t.estimate), ("se", t.se), ("lo", t.ci_low),
                     ("hi", t.ci_high), ("c_est", c.estimate), ("c_se", c.se),
                     ("c_lo", c.ci_low), ("c_hi", c.ci_high)):  # fmt: skip
            out[k].append(v)
        out["width"].append(np.mean(t.ci_high - t.ci_low))
        out["c_width"].append(np.mean(c.ci_high - c.ci_low))
    arrays = {k: np.array(v) for k, v in out.items()}
    arrays["crit_sim"] = np.array(crit_sim)
    return arrays


@pytest.mark.slow
def test_unbiased_for_the_pool_fit(draws: dict[str, np.ndarray]) -> None:
    """Bias against the pool fit, in standard deviations of the error: a maximum-
    likelihood fit on 300 labels spreads the strengths a little (about 0.19 sd for the
    strongest model, the labels alone 0.16); the AEE may not add to it."""
    bias = {}
    for p in ("", "c_"):
        err = draws[f"{p}est"] - draws["full"]
        bias[p] = np.abs(err.mean(axis=0)) / err.std(axis=0, ddof=1)
    assert bias[""].max() < 0.25 and bias["c_"].max() < 0.25, bias
    assert (bias[""] < bias["c_"] + 0.1).all(), bias


@pytest.mark.slow
@pytest.mark.parametrize("which", ["aee", "labels"])
def test_coverage_both_ways(draws: dict[str, np.ndarray], which: str) -> None:
    p = "" if which == "aee" else "c_"
    full = draws["full"]
    covered = (draws[f"{p}lo"] <= full) & (full <= draws[f"{p}hi"])
    lo, hi = _band(0.95, covered.size)  # 2,400 model-draws (strengths nearly independent)
    assert lo <= covered.mean() <= hi, covered.mean(0)
    lo1, hi1 = _band(0.95, covered.shape[0])
    assert (covered.mean(axis=0) >= lo1).all() and (covered.mean(axis=0) <= hi1).all()
    # too wide fails here: the standard error against the spread of the estimates
    ratio = draws[f"{p}se"].mean(axis=0) / (draws[f"{p}est"] - full).std(axis=0)
    assert (ratio > 0.85).all() and (ratio < 1.15).all(), ratio


@pytest.mark.slow
def test_win_probability_coverage_both_ways(draws: dict[str, np.ndarray]) -> None:
    """``win_probability``'s interval covers the pool's P(i+1 beats i) at 95%: not less
    and not more (2,100 pair-draws, adjacent pairs, the band at 0.999)."""
    covered = draws["win"]
    lo, hi = _band(0.95, covered.size)
    assert lo <= covered.mean() <= hi, covered.mean(axis=0)


@pytest.mark.slow
def test_simultaneous_coverage_both_ways(draws: dict[str, np.ndarray]) -> None:
    crit = float(draws["crit_sim"])
    assert crit > stats.norm.isf(0.025) + 0.3
    t = np.abs(draws["est"] - draws["full"]) / draws["se"]
    joint = (t <= crit).all(axis=1)
    lo, hi = _band(0.95, joint.size)
    assert lo <= joint.mean() <= hi, joint.mean()
    # and not wider than needed: the pointwise critical value covers jointly far less
    assert (t <= stats.norm.isf(0.025)).all(axis=1).mean() < 0.85


@pytest.mark.slow
def test_population_coverage(draws: dict[str, np.ndarray]) -> None:
    """``target="population"``: the superpopulation strengths (the fit on 400,000
    simulated comparisons stands in for them; the pool intervals cover them only ~0.91)."""
    d = simulate(np.random.default_rng(440), 400_000)
    truth = bradley_terry_fit(d["a"], d["b"], d["y"], M)
    covered = (draws["p_lo"] <= truth) & (truth <= draws["p_hi"])
    lo, hi = _band(0.95, covered.size)
    assert lo <= covered.mean() <= hi, covered.mean(0)


def test_strength_intervals_are_neither_too_wide_nor_too_narrow() -> None:
    """The fast check of the studies above (``make validate``: 300 pools) on 80 pools
    (tests/interval_checks.py): the AEE's and the labels' strengths against the pool fit,
    their max-|t| intervals, the win probabilities of adjacent models and the population
    target's strengths (against the fit on 400,000 comparisons); and the AEE narrower."""
    d = _draws(80)
    for p in ("", "c_"):
        est, lo, hi = d[f"{p}est"], d[f"{p}lo"], d[f"{p}hi"]
        assert_two_sided(est, lo, hi, d["full"], 0.05, what=f"{p}strengths")
    half = float(d["crit_sim"]) * d["se"]
    kw = {"simultaneous": True, "what": "max-|t|"}
    assert_two_sided(d["est"], d["est"] - half, d["est"] + half, d["full"], 0.05, **kw)
    assert_two_sided(d["w_est"], d["w_lo"], d["w_hi"], d["w_pool"], 0.05, what="win")
    big = simulate(np.random.default_rng(440), 400_000)
    truth = bradley_terry_fit(big["a"], big["b"], big["y"], M)
    assert_two_sided(d["p_est"], d["p_lo"], d["p_hi"], truth, 0.05, what="population")
    assert d["width"].mean() / d["c_width"].mean() < 0.9


def _rare_runs(reps: int):
    """``reps`` draws where model0 is in one of 8 of its comparisons' usual share (about 8
    of the 200 labeled comparisons): the AEE's and the labels' tables and the pool fit,
    leaving out a draw where model0 won or lost all its labeled comparisons (no interval)."""
    rng = np.random.default_rng(0)
    for _ in range(reps):
        d = simulate(rng, 3000)
        rare = ((d["a"] == 0) | (d["b"] == 0)) & (rng.random(d["a"].size) > 0.12)
        d = {k: v[~rare] for k, v in d.items()}
        full = bradley_terry_fit(d["a"], d["b"], d["y"], M)
        y = _masked(d["y"], 200, rng)
        t = bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, n_models=M)
        c = bradley_terry(d["a"], d["b"], y, None, n_models=M)
        if np.isfinite(t.se).all() and np.isfinite(c.se).all():
            yield t, c, full


@pytest.mark.slow
def test_rarely_compared_model_coverage_both_ways() -> None:
    """``_rare_runs``: the plain sandwich covered model0 0.88 (AEE, 291 draws); scaled by
    the t variance ``nu / (nu - 2)`` on its effective number of labeled comparisons
    (``details["effective_df"]``) it covers at 95%, not more."""
    covered, covered_c, df = [], [], []
    for t, c, full in _rare_runs(300):
        covered.append((t.ci_low <= full) & (full <= t.ci_high))
        covered_c.append((c.ci_low <= full) & (full <= c.ci_high))
        df.append(t.details["effective_df"])
    covered, covered_c = np.array(covered), np.array(covered_c)
    lo, hi = _band(0.95, covered.shape[0])
    assert lo <= covered[:, 0].mean() <= hi, covered.mean(axis=0)
    assert np.median(np.array(df)[:, 0]) < 15 < np.median(np.array(df)[:, 1:])
    for cov in (covered, covered_c):
        lo, hi = _band(0.95, cov.size)
        assert lo <= cov.mean() <= hi, cov.mean(axis=0)


def test_rarely_compared_model_intervals_are_neither_too_wide_nor_too_narrow() -> None:
    """The fast check of the study above on 80 draws: model0's interval alone, and every
    model's, of the AEE and of the labels."""
    runs = list(_rare_runs(80))
    full = np.array([r[2] for r in runs])
    for k, what in ((0, "aee"), (1, "labels")):
        est, lo, hi = (
            np.array([getattr(r[k], a) for r in runs]) for a in ("estimate", "ci_low", "ci_high")
        )
        assert_two_sided(est[:, 0], lo[:, 0], hi[:, 0], full[:, 0], 0.05, what=f"{what} model0")
        assert_two_sided(est, lo, hi, full, 0.05, what=what)


def _prompt_draw(
    rng: np.random.Generator, theta: np.ndarray, n_prompts: int = 30, n_lab: int = 150
) -> tuple[np.ndarray, ...]:
    """30 prompts x every pair of 5 models (sides at random), 20% ties, 150 of the 300
    comparisons labeled. A model is good or bad at a prompt (``z_pm``): the vote's latent
    ``v = 0.95 (z_pa - z_pb) / sqrt(2) + 0.31 e`` is standard normal, so with ``A`` when
    ``Phi(v) > 1 - P(A)`` the expected score of A is exactly ``sigma(theta_a - theta_b)``
    (the strengths are the population's), while a prompt's comparisons are strongly
    correlated. The judge sees ``v`` with noise; the surrogate is E[score | judge]."""
    from scipy.special import expit, ndtr, ndtri

    m, rho, tie, tau = theta.size, 0.95, 0.2, 0.7
    pairs = np.array([(i, j) for i in range(m) for j in range(i + 1, m)])
    a, b = np.tile(pairs[:, 0], n_prompts), np.tile(pairs[:, 1], n_prompts)
    swap = rng.random(a.size) < 0.5
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    prompt = np.repeat(np.arange(n_prompts), len(pairs))
    z = rng.standard_normal((n_prompts, m))
    v = rho * (z[prompt, a] - z[prompt, b]) / np.sqrt(2.0)
    v = v + np.sqrt(1.0 - rho**2) * rng.standard_normal(a.size)
    s = expit(theta[a] - theta[b])
    p_a, p_b = s - tie / 2.0, 1.0 - s - tie / 2.0
    y = np.where(ndtr(v) > 1.0 - p_a, 1.0, np.where(ndtr(v) < p_b, 0.0, 0.5))
    seen = v + tau * rng.standard_normal(a.size)
    mu, sd = seen / (1.0 + tau**2), tau / np.sqrt(1.0 + tau**2)
    j_a, j_b = ndtr((mu - ndtri(1.0 - p_a)) / sd), ndtr((ndtri(p_b) - mu) / sd)
    return a, b, _masked(y, n_lab, rng), j_a + 0.5 * (1.0 - j_a - j_b), prompt


def _prompt_runs(reps: int):
    """``reps`` draws of ``_prompt_draw``: the population table clustered by prompt, the
    one that treats the comparisons as independent, and the draw."""
    theta = np.array([-0.8, -0.3, 0.0, 0.4, 0.7])
    rng = np.random.default_rng(0)
    for _ in range(reps):
        a, b, y, f, prompt = _prompt_draw(rng, theta)
        t = bradley_terry(a, b, y, f, n_models=5, target="population", prompts=prompt)
        plain = bradley_terry(a, b, y, f, n_models=5, target="population")
        yield t, plain, (a, b, y, f, prompt), theta


@pytest.mark.slow
def test_prompt_clustered_population_coverage_both_ways() -> None:
    """Comparisons sharing a prompt (``_prompt_draw``): the population intervals
    clustered by prompt cover the strengths at 95% (1,500 model-draws, the 99% band of
    their Monte Carlo error; the 5 strengths of a draw were checked to be nearly
    independent); treating the comparisons as independent covers about 0.87, twice the
    clustered width about 1.0: both outside the band."""
    clustered, independent, double = [], [], []
    runs = list(_prompt_runs(300))
    for t, plain, _, theta in runs:
        clustered.append((t.ci_low <= theta) & (theta <= t.ci_high))
        independent.append((plain.ci_low <= theta) & (theta <= plain.ci_high))
        double.append(np.abs(t.estimate - theta) <= 2.0 * (t.ci_high - t.estimate))
    assert t.details["clustered_by"] == "prompt" and t.details["n_prompts"] == 30
    assert max(t.details["effective_df"]) <= 30  # the prompts bound the df
    lo, hi = _band(0.95, 1500, level=0.99)
    assert lo <= np.mean(clustered) <= hi, np.mean(clustered, axis=0)
    assert np.mean(independent) < lo, np.mean(independent)
    assert np.mean(double) > hi, np.mean(double)
    a, b, y, f, prompt = runs[-1][2]
    pool = bradley_terry(a, b, y, f, n_models=5, prompts=prompt)  # labels drawn one by one
    assert "clustered_by" not in pool.details and "pool target" in pool.details["clustering"]
    np.testing.assert_allclose(pool.cov, bradley_terry(a, b, y, f, n_models=5).cov)


def test_prompt_clustered_population_intervals_are_neither_too_wide_nor_too_narrow() -> None:
    """The fast check of the study above on 80 draws: the clustered intervals pass, the
    ones that treat the comparisons as independent are too narrow."""
    runs = list(_prompt_runs(80))
    theta = runs[0][3]
    for k, word in ((0, None), (1, "too narrow")):
        est, lo, hi = (
            np.array([getattr(r[k], a) for r in runs]) for a in ("estimate", "ci_low", "ci_high")
        )
        if word is None:
            assert_two_sided(est, lo, hi, theta, 0.05, what="clustered")
        else:
            assert word in str(width_check(est, lo, hi, theta, 0.05).failures())


def _unequal_runs(reps: int):
    """Poisson sampling with probabilities by model and by a judge's verdict (``pi``
    given: Horvitz-Thompson weights, variance ``(1 - pi) / pi^2``): ``reps`` tables, each
    with its pool fit."""
    rng = np.random.default_rng(8)
    for _ in range(reps):
        d = simulate(rng)
        full = bradley_terry_fit(d["a"], d["b"], d["y"], M)
        pi = np.where((d["a"] < 2) | (d["b"] < 2), 0.3, 0.1)
        pi = pi * np.where(d["judges"][:, 0] == 1, 1.5, 1.0)
        y = np.where(rng.random(pi.size) < pi, d["y"], np.nan)
        yield bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, pi, n_models=M), full


@pytest.mark.slow
def test_unequal_probabilities_coverage() -> None:
    """``_unequal_runs``: 200 draws cover in the band."""
    covered = [(t.ci_low <= full) & (full <= t.ci_high) for t, full in _unequal_runs(200)]
    lo, hi = _band(0.95, np.size(covered))
    assert lo <= np.mean(covered) <= hi, np.mean(covered, axis=0)


def test_unequal_probabilities_intervals_are_neither_too_wide_nor_too_narrow() -> None:
    """The fast check of the study above on 80 draws."""
    runs = list(_unequal_runs(80))
    est, lo, hi = (
        np.array([getattr(t, a) for t, _ in runs]) for a in ("estimate", "ci_low", "ci_high")
    )
    assert_two_sided(est, lo, hi, np.array([full for _, full in runs]), 0.05, what="unequal pi")


@pytest.mark.slow
def test_aee_narrower_than_labels(draws: dict[str, np.ndarray]) -> None:
    ratio = draws["width"].mean() / draws["c_width"].mean()
    assert ratio < 0.9, ratio


def test_labels_alone_is_the_mle() -> None:
    rng = np.random.default_rng(1)
    d = simulate(rng, 1500)
    y = _masked(d["y"], 400, rng)
    lab = np.isfinite(y)
    table = bradley_terry(d["a"], d["b"], y, n_models=M)
    mle = bradley_terry_fit(d["a"][lab], d["b"][lab], d["y"][lab], M)
    np.testing.assert_allclose(table.estimate, mle, atol=1e-9)
    assert abs(table.estimate.sum()) < 1e-9 and table.method == "classical"
    # lambda = 0 through the surrogate path is the same fit
    same = bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, n_models=M, lam=0.0)
    np.testing.assert_allclose(same.estimate, mle, atol=1e-9)
    elo = bradley_terry(d["a"], d["b"], y, n_models=M, scale="elo")
    np.testing.assert_allclose(elo.estimate, ELO * mle + 1000.0, atol=1e-6)
    p1 = win_probability(table, "model7", "model0")
    p2 = win_probability(elo, "model7", "model0")
    assert p1.ci_low < p1.estimate < p1.ci_high and abs(p1.estimate - p2.estimate) < 1e-9
    assert abs(p1.ci_low - p2.ci_low) < 1e-9


def test_tuned_to_zero_is_the_labels_alone_interval() -> None:
    """A surrogate that points the wrong way, tuned to lambda = 0: the estimate is the
    labels alone's, and so is its interval (the tuned weight counted as a fitted
    parameter made it sqrt((n - M + 1) / (n - M)) wider: 6% on AlpacaEval's 12 votes of
    4 models)."""
    rng = np.random.default_rng(5)
    d = simulate(rng, 600)
    y = _masked(d["y"], 40, rng)
    alone = bradley_terry(d["a"], d["b"], y, n_models=M)
    wrong = bradley_terry(d["a"], d["b"], y, 1.0 - d["judges"][:, 0] / 2.0, n_models=M)
    assert wrong.details["power_lambda"] == 0.0
    np.testing.assert_allclose(wrong.estimate, alone.estimate, atol=1e-9)
    np.testing.assert_allclose(wrong.ci_high - wrong.ci_low, alone.ci_high - alone.ci_low)
    judged = bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, n_models=M)
    assert 0.0 < judged.details["power_lambda"] < 1.0  # counted where it fits the residuals


def test_tables_work_with_groups_tools() -> None:
    rng = np.random.default_rng(2)
    d = simulate(rng, 3000)
    y = _masked(d["y"], 600, rng)
    table = bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, n_models=M, simultaneous=True)
    assert table.simultaneous == "maxt" and len(compare(table)) == M * (M - 1) // 2
    ranks = rank_sets(table)
    assert (ranks["rank_low"] <= ranks["rank"]).all()
    assert (ranks["rank"] <= ranks["rank_high"]).all()
    assert set(rank_intervals(table)) == {"rank", "rank_low", "rank_high"}
    groups = tiers(table)
    assert sorted(n for g in groups for n in g) == sorted(table.names) and len(groups) >= 2
    assert groups[0][0] == "model7"


def test_infinite_mle_is_withheld_not_crashed() -> None:
    rng = np.random.default_rng(3)
    d = simulate(rng, 1500)
    y = _masked(d["y"], 200, rng)
    top = (d["a"] == 7) | (d["b"] == 7)
    y[top & np.isfinite(y)] = np.where(d["a"][top & np.isfinite(y)] == 7, 1.0, 0.0)
    alone = bradley_terry(d["a"], d["b"], y, n_models=M)
    assert np.isnan(alone.ci_low[7]) and "infinity" in alone.notes[7]
    assert np.isfinite(alone.ci_low[:7]).all() and np.isfinite(alone.estimate).all()
    # here the labeled sum of 1 - yhat over model7's comparisons (weighted) exceeds the
    # pool's: the AEE equation has no finite root either, and falls back the same way
    aee = bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, n_models=M)
    assert "fallback" in aee.details and np.isnan(aee.ci_low[7])
    assert np.isfinite(aee.ci_low[:7]).all() and np.isfinite(aee.estimate).all()
    assert len(rank_sets(aee)) == M - 1 and sum(map(len, tiers(aee))) == M - 1
    assert set_aside(aee) == ["model7"]  # no interval: neither ranked nor in a tier
    # ordinary labels (model7 loses some): everything finite
    y2 = _masked(d["y"], 200, np.random.default_rng(9))
    aee2 = bradley_terry(d["a"], d["b"], y2, d["judges"] / 2.0, n_models=M)
    assert np.isfinite(aee2.ci_low).all()


def test_model_without_labels_gets_no_interval() -> None:
    rng = np.random.default_rng(6)
    d = simulate(rng, 1500)
    y = _masked(d["y"], 300, rng)
    y[(d["a"] == 3) | (d["b"] == 3)] = np.nan
    table = bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, n_models=M)
    assert np.isnan(table.ci_low[3]) and "UNVALIDATED" in table.notes[3]
    assert np.isfinite(table.ci_low[[0, 1, 2, 4, 5, 6, 7]]).all()
    assert np.isfinite(table.estimate).all() and table.n_labeled[3] == 0
    with pytest.raises(ValidationError, match="model3"):
        bradley_terry(d["a"], d["b"], y, n_models=M)


def test_bad_arrays_refused() -> None:
    a, b = np.array([0, 1, 0]), np.array([1, 0, 1])
    y = np.array([1.0, 0.5, 0.0])
    with pytest.raises(ValidationError, match="model2"):
        bradley_terry(a, b, y, n_models=3)
    with pytest.raises(ValidationError, match="fall apart"):
        bradley_terry(np.array([0, 2, 0]), np.array([1, 3, 1]), np.array([1, 0, 0.5]))
    with pytest.raises(ValidationError, match="itself"):
        bradley_terry(np.array([0, 1]), np.array([0, 0]), np.array([1.0, 0.0]))


def _frame(rng: np.random.Generator, n: int = 1200, n_lab: int = 300) -> pd.DataFrame:
    d = simulate(rng, n)
    y = _masked(d["y"], n_lab, rng)
    label = np.where(np.isnan(y), None, VERDICT[np.nan_to_num(y * 2).astype(int)])
    return pd.DataFrame(
        {
            "left": [f"model{k}" for k in d["a"]],
            "right": [f"model{k}" for k in d["b"]],
            "vote": label,
            "j1": VERDICT[d["judges"][:, 0]],
            "j2": d["judges"][:, 1] / 2.0,
        }
    )


def test_pool_from_pairs_and_calibrator() -> None:
    df = _frame(np.random.default_rng(4))
    df.loc[df.index[:50], "vote"] = df["vote"][:50].str.lower()
    kw = {"model_a": "left", "model_b": "right", "label": "vote"}
    pool = EvalPool.from_pairs(df, **kw, judges=["j1", "j2"])
    assert pool.pairs is not None and pool.pairs.names[-1] == "model7"
    assert set(np.unique(pool.y[pool.labeled])) <= {0.0, 0.5, 1.0}
    cal = Calibrator(engine="freq").fit(pool)
    aee = cal.estimate_bradley_terry()
    alone = cal.estimate_bradley_terry(method="labels")
    assert cal.estimate_bradley_terry(simultaneous=True).simultaneous == "maxt"
    assert aee.method == "aee" and alone.method == "classical"
    assert np.mean(aee.ci_high - aee.ci_low) < np.mean(alone.ci_high - alone.ci_low)
    plain = EvalPool.from_frame(
        pd.DataFrame({"y": [0, 1, np.nan, 1] * 3, "j": [0.1, 0.9, 0.5, 0.7] * 3}),
        label="y", judges=["j"], outcome="ordinal",
    )  # fmt: skip
    with pytest.raises(ValidationError, match="no pairs"):
        Calibrator(engine="freq", folds=2).fit(plain).estimate_bradley_terry()


def test_from_pairs_bad_input() -> None:
    df = _frame(np.random.default_rng(5), n=60, n_lab=30)
    kw = {"model_a": "left", "model_b": "right", "label": "vote", "judges": ["j1", "j2"]}
    bad = df.copy()
    bad.loc[7, "right"] = bad.loc[7, "left"]
    with pytest.raises(ValidationError, match=r"compare a model with itself \(row 7;"):
        EvalPool.from_pairs(bad, **kw)
    bad = df.copy()
    lab = bad.index[bad["vote"].notna()][0]
    bad.loc[lab, "vote"] = "left wins"
    with pytest.raises(ValidationError, match=rf"'vote' has 'left wins' at row {lab}"):
        EvalPool.from_pairs(bad, **kw)
    bad = df.copy()
    bad["j1"] = bad["j1"].astype(object)
    bad.loc[3, "j1"] = 1.7
    with pytest.raises(ValidationError, match="'j1'"):
        EvalPool.from_pairs(bad, **kw)
    with pytest.raises(ValidationError, match="'winner'"):
        EvalPool.from_pairs(df, **{**kw, "label": "winner"})
    bad = df.copy()
    bad.loc[2, "left"] = None
    with pytest.raises(ValidationError, match=r"empty model cell in 'left' or 'right' \(row 2\)"):
        EvalPool.from_pairs(bad, **kw)


def test_one_new_model_that_lost_its_one_comparison_leaves_the_others_alone() -> None:
    """A ninth model compared once, and losing: its strength is infinite. The fallback gave
    every compared pair a virtual tie, which pulled every strength toward 0 (a 20-model
    arena leaderboard shrank 2.5x and intervals missed), dropped the judges (lambda 0), and
    its variance entered every strength through the mean-zero anchor. Now only its labeled
    comparison counts twice, the surrogate weight is kept, and the anchor is the others'
    mean."""
    rng = np.random.default_rng(4)
    d = simulate(rng, 2000)
    y = _masked(d["y"], 400, rng)
    base = bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, n_models=M)
    a, b = np.append(d["a"], M), np.append(d["b"], M - 1)  # the new model vs the best
    y2, judges = np.append(y, 0.0), np.vstack([d["judges"], [[0, 0]]]) / 2.0
    more = bradley_terry(a, b, y2, judges, n_models=M + 1)
    assert np.isnan(more.ci_low[M]) and "fallback" in more.details
    assert more.details["power_lambda"] > 0.2
    np.testing.assert_allclose(more.estimate[:M], base.estimate, atol=0.05)
    width = (more.ci_high - more.ci_low)[:M] / (base.ci_high - base.ci_low)
    assert np.all((width > 0.9) & (width < 1.15)), width


@pytest.mark.parametrize("verdicts", [[0, 1], [1, 1], [2, 1]])
def test_a_new_models_lost_vote_never_raises_its_strength(verdicts) -> None:
    """Tester A, finding 1: a new model's one comparison, labeled a loss, put it above its
    unlabeled (judges-only) strength: the fallback's virtual tie pulled it toward 1/2,
    above the judges' 1/4. Now the loss puts it below the judges' value, a win above,
    and the others' tiers and rank sets leave it aside (finding 2: one labeled win put
    all models in tier 1)."""
    rng = np.random.default_rng(4)
    d = simulate(rng, 2000)
    y = _masked(d["y"], 400, rng)
    base = bradley_terry(d["a"], d["b"], y, d["judges"] / 2.0, n_models=M)
    a, b = np.append(d["a"], M), np.append(d["b"], M - 1)  # the new model vs the best
    judges = np.vstack([d["judges"], [verdicts]]) / 2.0
    tables = {v: bradley_terry(a, b, np.append(y, v), judges, n_models=M + 1)
              for v in (np.nan, 0.0, 1.0)}  # fmt: skip
    est = {v: t.estimate[M] - t.estimate[M - 1] for v, t in tables.items()}
    assert est[0.0] < est[np.nan] < est[1.0], est
    for t in tables.values():
        assert np.isnan(t.ci_low[M]) and set_aside(t) == [f"model{M}"]
    for v in (0.0, 1.0):  # (finding 5: not "label 2 more of its comparisons")
        assert "only 1 comparison in the table: add 2 more" in tables[v].notes[M]
        assert len(rank_sets(t)) == M and tiers(t) == tiers(base)
        assert list(win_matrix(t).index)[-1] == f"model{M}"  # last, however strong
