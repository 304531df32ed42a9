"""Simultaneous coverage of 12 group means from about 10 labels each (the moderated t,
SummEval-like): in the two-sided band, and out of it when the moderation is mis-set."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bacon_bayes import estimate as est
from bacon_bayes.demo import load_summeval
from bacon_bayes.estimate import groups, moderate
from bacon_bayes.simulation.regimes import Coverage
from benchmarks.group_score_interval import coverage, score_tables
from tests.interval_checks import assert_two_sided

M, PER, LABELS = 12, 100, 120


def _world(kind: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels, a fixed surrogate (not fitted on the draw) and groups of 12 x 100 items.

    ``saturated``: 1..5 labels piled up at 5 in most groups; ``midscale``: the mean of
    three 1..5 ratings around the middle of the scale (SummEval relevance-like)."""
    groups = np.repeat(np.arange(M), PER)
    if kind == "saturated":
        latent = np.linspace(3.0, 6.5, M)[groups] + rng.normal(0, 1.0, M * PER)
        y = np.clip(np.round(latent + rng.normal(0, 0.7, M * PER)), 1, 5)
        return y, np.clip(latent, 1, 5), groups
    latent = np.linspace(2.5, 4.0, M)[groups] + rng.normal(0, 0.6, M * PER)
    ratings = np.round(latent[:, None] + rng.normal(0, 0.6, (M * PER, 3)))
    y = np.clip(ratings, 1, 5).mean(axis=1)
    return y, latent + rng.normal(0, 0.4, M * PER), groups


def _tables(kind: str, reps: int, method: str = "aee", seed: int = 11):
    """``reps`` uniform draws of 120 labels (each group at least 2): each draw's table of
    95% simultaneous intervals (max-|t| over the 12 groups) and the groups' true means in
    its order."""
    rng = np.random.default_rng(seed)
    y, f, groups = _world(kind, rng)
    truth = np.bincount(groups, weights=y) / PER
    done = 0
    while done < reps:
        lab = np.zeros(y.size, dtype=bool)
        lab[rng.choice(y.size, LABELS, replace=False)] = True
        if np.bincount(groups[lab], minlength=M).min() < 2:
            continue
        yy = np.where(lab, y, np.nan)
        if method == "aee":
            t = est.aee_group_means(yy, f, groups)
        else:
            t = est.classical_group_means(yy, groups)
        assert t.details["interval"] in ("t", "score t")  # under 10 labels in some group
        yield t, truth[[int(name) for name in t.names]]  # names sort as strings
        done += 1


def _coverage(kind: str, reps: int, method: str = "aee", seed: int = 11) -> float:
    """Share of the ``_tables`` draws whose 12 intervals all hold the true means."""
    hits = [
        np.all((t.ci_low <= tt) & (tt <= t.ci_high)) for t, tt in _tables(kind, reps, method, seed)
    ]
    return float(np.mean(hits))


def _assert_two_sided(kind: str, reps: int, method: str, seed: int = 11) -> None:
    """The fast check of ``reps`` draws' simultaneous intervals of ``_tables``."""
    tables, truths = zip(*_tables(kind, reps, method, seed), strict=True)
    _assert_tables_two_sided(tables, truths, f"{kind} {method}")


def _assert_tables_two_sided(tables, truths, what: str, df: bool = True, bias_z=3.29) -> None:
    """The fast check (tests/interval_checks.py) of simultaneous intervals at 95%: the
    tables of the replications and their truths (the first's; ``df``: the tables' t)."""
    est_, lo, hi = (
        np.array([getattr(t, k) for t in tables]) for k in ("estimate", "ci_low", "ci_high")
    )
    dfs = None
    if df:
        dfs = np.mean([np.broadcast_to(t.details["df"], len(t.names)) for t in tables], axis=0)
    kw = {"simultaneous": True, "what": what, "df": dfs, "bias_z": bias_z}
    assert_two_sided(est_, lo, hi, truths[0], 0.05, **kw)


def _band(reps: int) -> tuple[float, float]:
    return Coverage("groups", "groups", "aee", 0.05, reps, 0, 0, 0, 1).band()


@pytest.mark.parametrize("kind", ["saturated", "midscale"])
@pytest.mark.parametrize("method", ["aee", "classical"])
def test_group_intervals_are_neither_too_wide_nor_too_narrow(kind, method):
    """The fast check of the two studies below (``make validate``): 80 draws of each
    world's 12 simultaneous intervals against the spread of their estimates."""
    _assert_two_sided(kind, 80, method, seed=11 if kind == "saturated" else 3)


@pytest.mark.slow
def test_groups_with_labels_at_the_bound_keep_simultaneous_coverage(monkeypatch):
    """Ten labels of a group mostly at the scale's top: the moderated t holds the
    simultaneous coverage in band; the group's own variance alone falls below it, and so
    does the classical mean when the prior may count for fewer than 4 labels, and the
    AEE's when neither the prior nor the residual floor keeps it."""
    band = _band(400)
    for method in ("aee", "classical"):
        cov = _coverage("saturated", 400, method)
        assert band[0] <= cov <= band[1], f"{method}: coverage {cov:.3f} outside {band}"
    monkeypatch.setattr(moderate, "MIN_PRIOR_LABELS", 0.0)
    assert _coverage("saturated", 400, "classical") < band[0]
    monkeypatch.setattr(moderate, "prior_labels", lambda *a, **k: 0.0)
    assert band[0] <= _coverage("saturated", 100)  # the residual floor alone holds it
    monkeypatch.setattr(groups, "residual_floor", lambda y: 0.0)
    assert _coverage("saturated", 100) < band[0]  # 0.26 (400 draws)


@pytest.mark.slow
def test_summeval_like_groups_cover_in_band_and_a_fixed_prior_worth_is_too_wide(monkeypatch):
    """Mid-scale ordinal-ish labels, about 10 per group: with the prior's worth estimated
    from the groups' scatter the 12 intervals hold jointly at the nominal rate (2,000
    draws, band +-0.016); the prior fixed at 4 labels' worth (the first version) is too
    wide (0.976), as on SummEval relevance (0.990 in 200 trials)."""
    band = _band(2000)
    for method in ("aee", "classical"):
        cov = _coverage("midscale", 2000, method, seed=3)
        assert band[0] <= cov <= band[1], f"{method}: coverage {cov:.3f} outside {band}"
    monkeypatch.setattr(moderate, "prior_labels", lambda *a, **k: 4.0)
    assert _coverage("midscale", 2000, seed=3) > band[1]


def test_prior_worth_follows_the_groups_scatter():
    """Variances that scatter as sampling alone predicts: the prior counts as all the
    pooled df; variances far apart: the floor of 4 labels."""
    rng = np.random.default_rng(0)
    own = np.full(12, 9.0)
    prior = np.full(12, 2.0)
    same = prior * rng.chisquare(9, (200, 12)) / 9
    worth = np.array([moderate.prior_labels(v, own, prior, most=108) for v in same])
    assert np.median(worth) > 30
    spread = prior * np.exp(rng.normal(0, 1.5, 12))
    assert moderate.prior_labels(spread, own, prior, most=108) == moderate.MIN_PRIOR_LABELS
    assert moderate.prior_labels(spread[:2], own[:2], prior[:2], most=108) == 4.0
    assert moderate._trigamma_inverse(1.0) == pytest.approx(1.4263, abs=1e-3)


#: relevance in ``make validate`` only: the same interval on the same systems, and the one
#: aspect the symmetric moderated t already covered in band (fluency and consistency,
#: where it fell below, run in ``make test``)
@pytest.mark.slow
@pytest.mark.parametrize("dim", ["fluency", "consistency", "relevance"])
def test_summeval_system_means_from_labels_alone_cover_in_band(dim):  # make validate
    """About 10 labels per system piled at the top of the scale: a draw that misses a
    system's few low ratings shows a high mean and a small variance. The score interval
    (the prior's variance taken at the mean tested) holds the 12 intervals jointly in
    the band (99.9%) with narrower intervals than the symmetric moderated t with the pooled
    prior (the first version), which fell below the band on fluency and consistency
    (0.897 / 0.894 / 0.946; 0.925 / 0.911 / 0.938 once a group's own variance counts by
    its residuals' kurtosis, :func:`~bacon_bayes.estimate.moderate.own_labels`). Over
    these 1,000 draws the score interval covers 0.952 / 0.970 / 0.957.
    """
    band = _band(1000)
    df = load_summeval()
    y, groups = df[f"expert_mean_{dim}"].to_numpy(float), df["system"].to_numpy()
    score, _, width = coverage(y, groups, LABELS, 1000)
    assert band[0] <= score <= band[1], f"score interval: {score:.3f} outside {band}"
    assert width < 0.95


@pytest.mark.parametrize("dim", ["fluency", "consistency", "relevance"])
def test_summeval_system_means_from_labels_alone_are_neither_too_wide_nor_too_narrow(dim):
    """The fast check of the study above: 80 draws of the score intervals."""
    df = load_summeval()
    y, groups = df[f"expert_mean_{dim}"].to_numpy(float), df["system"].to_numpy()
    tables, _, truths = zip(*score_tables(y, groups, LABELS, 80), strict=True)
    # a system's mean of ten labels piled at the top is skewed (to -4.5 on consistency):
    # the t of 80 such means' average reaches 4.5 where 400 draws give 1.8, so its bound
    # is 5 (the sample mean of a uniform draw is unbiased by design)
    _assert_tables_two_sided(tables, truths, dim, bias_z=5.0)


def test_own_variance_counts_as_fewer_labels_when_residuals_are_heavy_tailed():
    """Normal residuals: a group's own variance is worth about its ``n_g - 1`` labels
    (less by the kurtosis estimate's noise: 39.6 of 49 here). Rare large residuals (a judge
    wrong on 4% of binary labels): ``var(s^2)`` is that of about ``2 n p`` normal labels
    (4.4 simulated), and the worth falls to a few labels (6.8 from 160 groups of 50: the
    within-group kurtosis reads low, as a group's variance rises with its errors; 6-12
    from 8 groups). Groups whose variances differ but are each normal keep their labels
    (the prior's worth ``d0`` is what models that spread)."""
    rng = np.random.default_rng(3)
    g = np.repeat(np.arange(8), 50)
    normal = moderate.own_labels(rng.normal(size=g.size), g, 8)
    assert np.all(normal <= 49.0) and np.all(normal > 35.0)
    spread = moderate.own_labels(rng.normal(size=g.size) * np.exp(g / 2.0), g, 8)
    assert np.all(spread > 35.0), spread
    rare = lambda size: np.where(rng.random(size) < 0.04, 0.9, 0.0)  # noqa: E731
    worth = moderate.own_labels(rare(8000), np.repeat(np.arange(160), 50), 160)
    s2 = rare((20_000, 50)).var(axis=1, ddof=1)
    implied = 2.0 * s2.mean() ** 2 / s2.var()  # chi^2_d / d has variance 2 / d
    assert 3.5 < implied < 5.5
    assert np.allclose(worth, worth[0]) and implied < worth[0] < 2.0 * implied, (worth, implied)
    assert np.all(moderate.own_labels(rare(g.size), g, 8) < 15.0)


def test_score_interval_solves_its_equation_and_leans_away_from_the_bound():
    """The ends make the moderated t equal its critical value with the prior taken at
    the end (or are the label range's); near the top of the scale the interval reaches
    further down than up; ten labels all at the top still get an interval below it."""
    y = np.array([5, 5, 5, 5, 4, 5, 5, 5, 5, 3, 2, 4, 3, 3, 4, 2, 5, 5, 5, 5, 5, 5, 5, 5], float)
    g = np.repeat(np.arange(3), 8)
    n_g = np.full(3, 80)
    c = np.full(y.size, 0.9 / 0.1**2)
    mv = moderate.MeanVariance.fit(y, c, g, 3, n_g)
    mean = np.bincount(g, weights=y) / 8
    own_var = np.bincount(g, weights=c * (y - mean[g]) ** 2) / n_g**2
    own, d0, crit = np.full(3, 7.0), 4.0, np.full(3, 2.9)
    low, high = moderate.score_bounds(mean, own_var, own, d0, mv, crit)
    for end in (low, high):
        inside = (mv.lo < end) & (end < mv.hi)  # else the end is the range's
        var = (d0 * mv.prior(end) + own * own_var) / (d0 + own)
        np.testing.assert_allclose((mean - end)[inside] ** 2, (crit**2 * var)[inside], rtol=1e-9)
    assert high[0] == mv.hi  # the quadratic's root lies beyond the range
    assert mean[0] - low[0] > high[0] - mean[0] > 0  # mean 4.875: leans down
    assert low[2] < mean[2] == 5.0 <= high[2]  # all at 5
    assert mv.lo < 2.0 and mv.hi > 5.0


def _binary_tables(reps: int, per: int, simultaneous: str, seed: int = 5):
    """8 groups x 400 binary labels (shares 0.5-0.9), a judge wrong on 4% of items, ``per``
    labels a group (the bootstrap branch from 10): ``reps`` draws' tables of 95%
    intervals, each with the groups' true means."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(8), 400)
    y = (rng.random(g.size) < np.linspace(0.5, 0.9, 8)[g]).astype(float)
    f = np.where(rng.random(g.size) < 0.04, 1.0 - y, y) * 0.9 + 0.05
    truth = np.bincount(g, weights=y) / 400
    for r in range(reps):
        lab = np.zeros(g.size, dtype=bool)
        for h in range(8):
            lab[rng.choice(np.flatnonzero(g == h), per, replace=False)] = True
        t = est.aee_group_means(
            np.where(lab, y, np.nan), f, g.astype(str), lab, 0.05, simultaneous=simultaneous,
            n_boot=1000, seed=r,
        )  # fmt: skip
        assert t.details["interval"] == "bootstrap"
        yield t, truth


def _binary_groups(
    reps: int, per: int, simultaneous: str, seed: int = 5
) -> tuple[np.ndarray, float, float]:
    """Over ``reps`` draws of ``_binary_tables`` each group's coverage, the joint coverage
    of the 95% intervals and their largest half-width."""
    hits, half = [], 0.0
    for t, truth in _binary_tables(reps, per, simultaneous, seed):
        hits.append((t.ci_low <= truth) & (truth <= t.ci_high))
        half = max(half, float(np.max(t.ci_high - t.ci_low)) / 2)
    return np.mean(hits, axis=0), float(np.mean(np.all(hits, axis=1))), half


@pytest.mark.parametrize(("per", "simultaneous"), [(20, "maxt"), (50, "none")])
def test_binary_groups_bootstrap_intervals_are_neither_too_wide_nor_too_narrow(per, simultaneous):
    """The fast check of the two studies below (``make validate``): 60 draws, every
    half-width finite."""
    tables, truths = zip(*_binary_tables(60, per, simultaneous), strict=True)
    assert all(np.all(np.isfinite(t.ci_high - t.ci_low)) for t in tables)
    est_, lo, hi = (
        np.array([getattr(t, k) for t in tables]) for k in ("estimate", "ci_low", "ci_high")
    )
    kw = {"simultaneous": simultaneous == "maxt", "what": f"{per} a group"}
    assert_two_sided(est_, lo, hi, truths[0], 0.05, **kw)


@pytest.mark.slow
def test_binary_groups_bootstrap_is_studentised_like_the_interval():
    """The bootstrap branch's interval takes the larger of a group's own and moderated
    variance; its resamples were studentised by their own variance alone, which is near 0
    whenever a resample misses the group's few judge errors: critical values of 6-12
    (TriviaQA at 13-23 labels a model), up to 1e8 here (infinite half-widths). Studentised
    the same way as the interval (and never below the normal-theory moderated t) every
    half-width is finite and the joint coverage holds (0.990 over 300 draws, at a mean
    half-width of 0.128; 0.973 at 0.154 before the kurtosis below)."""
    _, joint, half = _binary_groups(300, 20, "maxt")
    assert np.isfinite(half) and half < 0.5
    assert joint >= 0.918, (joint, half)


@pytest.mark.slow
def test_binary_groups_with_rare_judge_errors_cover_each_group():
    """50 labels a group show 0-4 of its judge errors (4%): a group whose labels showed
    none has an own variance near 0, so its interval was short exactly when its estimate
    was off (the three worst groups covered 0.84-0.89, the average 0.928). The own
    variance now counts as the few labels its kurtosis says it is worth
    (:func:`~bacon_bayes.estimate.moderate.own_labels`), so the pool's variance weighs in:
    the average is in the two-sided band (0.959) and no group is below 0.91 (300 draws)."""
    cover, _, _ = _binary_groups(300, 50, "none")
    band = Coverage("groups", "groups", "aee", 0.05, 300, 0, 0, 0, 1).band()
    assert band[0] <= cover.mean() <= band[1], (cover, band)
    assert cover.min() >= 0.88, cover


def _skewed_pair_tables(reps: int, m: int = 6, per: int = 200, labels: int = 20):
    """The 95% simultaneous differences of ``m`` groups' AEE means from ``labels`` labels a
    group (the bootstrap branch) over ``reps`` stratified draws, each with the true
    differences: labels with gamma (skewed) noise, a fixed surrogate that sees the label's
    signal, not its noise."""
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(m), per)
    x = rng.normal(size=g.size)
    y = 3.0 + 0.3 * rng.normal(size=m)[g] + x + rng.gamma(2.0, 0.5, g.size)
    f = x + 0.3 * rng.normal(size=g.size)
    truth = np.bincount(g, weights=y) / per
    diff = np.array([truth[a] - truth[b] for a in range(m) for b in range(a + 1, m)])
    for r in range(reps):
        lab = np.zeros(g.size, dtype=bool)
        for h in range(m):
            lab[h * per + rng.choice(per, labels, replace=False)] = True
        t = est.aee_group_means(np.where(lab, y, np.nan), f, g, pi=labels / per, seed=r)
        assert t.details["interval"] == "bootstrap"
        yield est.compare(t), diff


def _skewed_pairs(reps: int) -> float:
    """Joint coverage of ``_skewed_pair_tables``' differences."""
    hits = [
        np.all((d.ci_low <= diff) & (diff <= d.ci_high)) for d, diff in _skewed_pair_tables(reps)
    ]
    return float(np.mean(hits))


def test_bootstrap_branch_differences_are_neither_too_wide_nor_too_narrow():
    """The fast check of the study below (``make validate``): 80 draws."""
    tables, truths = zip(*_skewed_pair_tables(80), strict=True)
    _assert_tables_two_sided(tables, truths, "bootstrap differences", df=False)


@pytest.mark.slow
def test_bootstrap_branch_differences_are_not_too_wide():
    """The bootstrap branch's differences took Student-t on the pair's fewer labels less
    one, on the groups' variances raised to the moderated ones: jointly 0.992 at nominal
    0.95 here (500 draws; 0.987-1.000 on SummEval, TriviaQA and WMT22, and 0.926-0.948 at
    nominal 0.90 in VALIDATION.md's grid). Their critical values now come from the groups'
    resamples, studentised as the groups are (0.956)."""
    joint = _skewed_pairs(500)
    band = _band(500)
    assert band[0] <= joint <= band[1], (joint, band)


def test_the_anytime_basis_of_a_bootstrap_pair_is_the_student_t():
    """``compare(resampled=False)`` (what ``compare_groups(anytime=True)`` scales) keeps
    Student-t: the alpha-spending boundary reads a critical value's level far into the
    tail, past what the resamples show. Its df is the smaller of the pair's groups' df of
    the variances their intervals take: ``n - 1 + d0`` where the moderated variance
    governs (the own one below it), ``n - 1`` where the own one does. Before, always the
    fewer labels less one, which read at an early look's level (``t_11`` at 1e-9) made a
    WMT22 study's first-wave pairs 4.5-7.7 times the fixed width where the moderated
    variance, on 81-87 df, governed. Pointwise (``simultaneous="none"``) a maxt table's
    pairs are resampled too."""
    rng = np.random.default_rng(3)
    g = np.repeat(np.arange(4), 100)
    y = rng.gamma(2.0, 0.5, g.size) + 0.2 * g
    lab = np.zeros(g.size, dtype=bool)
    lab[rng.choice(g.size, 80, replace=False)] = True
    t = est.aee_group_means(np.where(lab, y, np.nan), np.zeros(g.size), g, alpha=0.05)
    assert t.details["interval"] == "bootstrap"
    basis = est.compare(t, resampled=False)
    corr = basis.cov / np.outer(basis.se, basis.se)
    df = np.asarray(basis.details["df"])
    pairs = basis.details["pairs"]
    boot = t.details["pair_bootstrap"]
    own_df = np.asarray(boot["t_df"])
    n, normal = t.n_labeled.astype(float), np.asarray(boot["normal_df"])
    assert np.all((own_df == n - 1.0) | (own_df == normal))
    assert np.any(own_df == normal) and np.all(normal > n - 1.0)
    assert np.array_equal(df, [min(own_df[int(a)], own_df[int(b)]) for a, b in pairs])
    fewer = [min(t.n_labeled[int(a)], t.n_labeled[int(b)]) for a, b in pairs]
    assert np.any(df > np.asarray(fewer) - 1.0)  # before: the fewer labels less one
    assert np.allclose(
        basis.critical_value, est.simultaneous_critical_value(corr, 0.05, "maxt", df)
    )
    resampled = est.compare(t)
    assert not np.allclose(resampled.critical_value, basis.critical_value)
    pointwise = est.compare(t, simultaneous="none")
    stored = t.details["pair_bootstrap"]["critical_value"]
    assert np.allclose(pointwise.critical_value, stored["none"])
    assert np.all(pointwise.critical_value < resampled.critical_value)


def _two_valued_tables(reps: int):
    """TriviaQA-like 0/1 verdicts (8 models right 48-85% of the time, 160 labels of 3,200):
    ``reps`` draws' classical group tables and their differences, each with the truths."""
    rng = np.random.default_rng(3)
    m, per, n = 8, 400, 160
    g = np.repeat(np.arange(m), per)
    y = (rng.random(m * per) < np.linspace(0.48, 0.85, m)[g]).astype(float)
    truth = np.bincount(g, weights=y) / per
    a, b = np.triu_indices(m, 1)
    for _ in range(reps):
        lab = np.zeros(y.size, dtype=bool)
        lab[rng.choice(y.size, n, replace=False)] = True
        table = est.classical_group_means(np.where(lab, y, np.nan), g, lab, n / y.size)
        assert table.details["interval"] == moderate.TWO_VALUED
        tt = truth[[int(g) for g in table.names]]
        d = (tt[:, None] - tt[None, :])[a, b]  # the pairs in compare's order
        yield table, tt, groups.compare(table), d


@pytest.mark.slow
def test_two_valued_labels_alone_cover_jointly_in_band_groups_and_differences():
    """The labels alone of 0/1 verdicts (``_two_valued_tables``): each group's interval is
    Wilson's and each difference's Newcombe's, both with the max-|t| critical value. The
    bootstrap branch covered the 8 means jointly 0.815 (all-1 draws of the 85% model read
    a variance near 0) and the 28 differences 0.91; now both in the 99% band of 300
    draws, which fails too wide too."""
    reps = 300
    joint = {"groups": 0, "differences": 0}
    for table, tt, diffs, d in _two_valued_tables(reps):
        joint["groups"] += bool(np.all((table.ci_low <= tt) & (tt <= table.ci_high)))
        joint["differences"] += bool(np.all((diffs.ci_low <= d) & (d <= diffs.ci_high)))
    band = stats.binom.ppf([0.005, 0.995], reps, 0.95) / reps
    for what, hits in joint.items():
        assert band[0] <= hits / reps <= band[1], (what, hits / reps, band)


def test_two_valued_labels_alone_are_neither_too_wide_nor_too_narrow():
    """The fast check of the study above: 80 draws, the groups' and the differences'."""
    got = list(_two_valued_tables(80))
    _assert_tables_two_sided([r[0] for r in got], [r[1] for r in got], "groups", df=False)
    _assert_tables_two_sided([r[2] for r in got], [r[3] for r in got], "differences", df=False)
