"""Exact properties of the flat estimator functions (identities, edge cases, errors)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bacon_bayes import ValidationError
from bacon_bayes import estimate as est


@pytest.fixture
def pool():
    rng = np.random.default_rng(3)
    n_items, n = 500, 60
    x = rng.normal(size=n_items)
    y = 1.0 + x + rng.normal(0, 0.5, n_items)
    lab = np.zeros(n_items, bool)
    lab[rng.choice(n_items, n, replace=False)] = True
    f = 0.9 + 0.8 * x
    return y, f, lab


def test_uniform_aee_equals_finite_population_regression_form(pool):
    y, f, lab = pool
    n_items, n = y.size, lab.sum()
    e = est.aee_mean(np.where(lab, y, np.nan), f, power_tuning=False)
    r = y[lab] - f[lab]
    manual = (y[lab].sum() + f[~lab].sum() + (n_items - n) / n * r.sum()) / n_items
    assert e.estimate == pytest.approx(manual, rel=1e-12)
    var = (1 - n / n_items) * r.var(ddof=1) / n
    assert e.se == pytest.approx(np.sqrt(var), rel=1e-12)
    ht = est.aee_mean(np.where(lab, y, np.nan), f, power_tuning=False, hajek=False)
    assert ht.estimate == pytest.approx(e.estimate, rel=1e-12)


def test_classical_is_the_sample_mean_with_fpc(pool):
    y, _, lab = pool
    c = est.classical_mean(np.where(lab, y, np.nan))
    n, n_items = lab.sum(), y.size
    assert c.estimate == pytest.approx(y[lab].mean())
    assert c.se == pytest.approx(np.sqrt((1 - n / n_items) * y[lab].var(ddof=1) / n))
    half = stats.t.ppf(0.975, n - 1) * c.se
    assert c.ci_high - c.estimate == pytest.approx(half)
    sup = est.classical_mean(np.where(lab, y, np.nan), target="superpopulation")
    assert sup.se > c.se


def test_census_has_zero_variance_and_the_true_mean(pool):
    y, f, _ = pool
    e = est.aee_mean(y, f)
    assert e.estimate == pytest.approx(y.mean()) and e.se == pytest.approx(0.0, abs=1e-12)


def test_power_tuning_weights_a_reversed_surrogate_negatively(pool):
    y, f, lab = pool
    e = est.aee_mean(np.where(lab, y, np.nan), -f)
    assert e.details["power_lambda"] < 0
    plain = est.aee_mean(np.where(lab, y, np.nan), -f, power_tuning=False)
    assert e.se < plain.se


def test_power_tuning_never_raises_the_estimated_variance(pool):
    y, f, lab = pool
    rng = np.random.default_rng(0)
    for g in (f, rng.normal(size=y.size), 5 - 2 * f, f + rng.normal(0, 3, y.size)):
        tuned = est.aee_mean(np.where(lab, y, np.nan), g)
        plain = est.aee_mean(np.where(lab, y, np.nan), g, power_tuning=False)
        classical = est.classical_mean(np.where(lab, y, np.nan))
        assert tuned.se <= plain.se + 1e-12 and tuned.se <= classical.se + 1e-12


def test_quantile_with_zero_adjustment_is_classical(pool):
    y, _f, lab = pool
    grid = np.sort(np.unique(np.concatenate([y[lab], np.linspace(-3, 5, 50)])))
    phi = np.zeros((y.size, grid.size))
    a = est.aee_quantile(np.where(lab, y, np.nan), phi, grid, 0.5, power_tuning=False)
    c = est.classical_quantile(np.where(lab, y, np.nan), grid, 0.5)
    assert a.estimate == pytest.approx(c.estimate) and a.ci_low == pytest.approx(c.ci_low)
    assert a.ci_low <= a.estimate <= a.ci_high


def test_discrete_quantile_is_a_level():
    rng = np.random.default_rng(1)
    y = rng.integers(1, 6, 300).astype(float)
    y[100:] = np.nan
    levels = np.arange(1.0, 6.0)
    q = est.classical_quantile(y, levels, 0.5, discrete=True)
    assert q.estimate in levels and q.ci_low in levels and q.ci_high in levels


def test_a_continuous_label_with_atoms_has_its_own_quantile_and_covers():
    """Means of three 1-5 ratings: the 0.9 quantile of the fully labeled pool came back as
    4.52 with a zero-width interval where it is 5.0 (the inverse interpolated across the
    CDF's jump at the atom below). At an atom the inverse is a step now; at 10% labels the
    Woodruff interval covers the pool's quantile (conservatively, as on any atom) and stays
    within about an atom's step."""
    from bacon_bayes.estimate.quantile import quantile_grid
    from bacon_bayes.pool import OutcomeSpec

    rng = np.random.default_rng(0)
    n = 2000
    y = np.round(rng.normal(3.5, 0.8, (n, 3)).clip(1, 5)).mean(axis=1)
    spec = OutcomeSpec("continuous")
    grid = quantile_grid(spec, y, y + rng.normal(0, 0.2, n))
    for q in (0.5, 0.8, 0.9, 0.95):
        e = est.classical_quantile(y, grid, q)
        truth = np.quantile(y, q, method="inverted_cdf")
        assert e.estimate == pytest.approx(truth) and e.ci_low == e.ci_high == e.estimate
    reps, cover, width = 200, {0.5: 0, 0.9: 0}, []
    for _ in range(reps):
        lab = rng.random(n) < 0.1
        grid = quantile_grid(spec, y[lab], y + rng.normal(0, 0.2, n))
        for q in cover:
            e = est.classical_quantile(np.where(lab, y, np.nan), grid, q)
            cover[q] += e.ci_low <= np.quantile(y, q, method="inverted_cdf") <= e.ci_high
            width.append(e.ci_high - e.ci_low)
    assert all(c / reps >= 0.93 for c in cover.values()), cover
    assert np.mean(width) <= 0.5  # an atom's step is 1/3


def test_every_label_at_the_range_end_gets_clopper_pearson_s_bound():
    """87 labels all 'yes' gave the AEE and classical means 1.0000 [1.0000, 1.0000]: the t
    interval shows no spread. With the label's range known the mean is at least
    ``1 - (1 - 0.025^(1/87))`` (Clopper-Pearson for 87 of 87); it covers a pool at 0.97,
    where the t interval of width 0 does not; labels that vary keep theirs."""
    from bacon_bayes import Calibrator, EvalPool

    rng = np.random.default_rng(4)
    n = 3000
    truth = (rng.random(n) < 0.97).astype(float)
    lab = np.flatnonzero(truth == 1)[rng.permutation(int(truth.sum()))[:87]]
    y = np.full(n, np.nan)
    y[lab] = 1.0
    frame = pd.DataFrame({"y": y, "j": truth + rng.normal(0, 0.3, n)})
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous")
    cal = Calibrator(engine="freq", scale=(0, 1)).fit(pool)
    for method in ("aee", "classical"):
        e = cal.estimate_mean(method=method)
        assert e.ci_low == pytest.approx(0.025 ** (1 / 87)) and e.ci_high == 1.0
        assert e.ci_low <= truth.mean() <= e.ci_high
    # the flat function as well, given the range (it gave width 0 whatever it was told)
    flat = est.classical_mean(y, label_range=(0.0, 1.0))
    assert (flat.ci_low, flat.ci_high) == (e.ci_low, e.ci_high)
    plain = est.classical_mean(np.where(rng.random(n) < 0.05, truth, np.nan))
    assert est.at_range_end(plain, truth[:5], 0.0, 1.0) == plain  # labels vary: unchanged
    assert (
        est.classical_mean(
            np.where(rng.random(n) < 0.05, truth, np.nan), label_range=(0, 1)
        ).ci_high
        <= 1.0
    )
    # the bound has no se: the text printed "se 0.0000" beside it (tester T2's finding 3)
    from bacon_bayes.report.text import estimates_table

    row = estimates_table([cal.estimate_mean()]).splitlines()[1].split()
    assert row[3] == "-", row


def test_labels_all_equal_without_a_bound_get_no_interval():
    """13 TriviaQA labels all 1, read as continuous with no scale (doctor's command): the
    AEE and classical means were 1.0000 [1.0000, 1.0000], width 0, where the pool's mean
    is 0.64. Without the range (or inside it) constant labels bound nothing: the interval
    is withheld with the reason."""
    from bacon_bayes import Calibrator, EvalPool

    rng = np.random.default_rng(5)
    n = 3000
    truth = (rng.random(n) < 0.64).astype(float)
    lab = np.flatnonzero(truth == 1)[:13]
    y = np.full(n, np.nan)
    y[lab] = 1.0
    frame = pd.DataFrame({"y": y, "j": truth + rng.normal(0, 0.3, n)})
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous")
    for scale in (None, (0, 2)):  # no range; a range whose end the labels are not at
        cal = Calibrator(engine="freq", scale=scale).fit(pool)
        for method in ("aee", "classical"):
            e = cal.estimate_mean(method=method)
            assert np.isnan(e.ci_low) and np.isnan(e.ci_high), (scale, method, e)
            assert "every label is 1" in e.details[est.mean.RANGE_END]
    for label_range in (None, (0.0, 2.0)):  # the flat functions withhold it too
        for e in (
            est.classical_mean(y, label_range=label_range),
            est.aee_mean(y, frame["j"].to_numpy(), label_range=label_range),  # lambda 0
        ):
            assert np.isnan(e.ci_low) and "every label is 1" in e.details[est.mean.RANGE_END]
    flat = est.aee_mean(y, frame["j"].to_numpy(), label_range=(0.0, 1.0))
    assert flat.ci_low == pytest.approx(0.025 ** (1 / 13)) and flat.ci_high == 1.0


def test_naive_mean_refuses_what_is_no_judge_average():
    """Helper W6's walk: a NaN judge average gave NaN without a word, an empty one numpy's
    warnings, a 2-D one was flattened (200 items counted as 400)."""
    ok = est.naive_mean(np.array([1.0, 2.0, 3.0]))
    assert ok.estimate == 2.0 and ok.n_items == 3
    for bad, needle in (
        (np.array([1.0, np.nan, 3.0]), "judge_avg is nan at position 1"),
        (np.array([]), "judge_avg has shape (0,)"),
        (np.ones((200, 2)), "judge_avg has shape (200, 2)"),
    ):
        with pytest.raises(ValidationError, match=re.escape(needle)):
            est.naive_mean(bad)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda y, f: est.aee_mean(y, f, alpha=1.5), "alpha=1.5 must lie strictly between"),
        (lambda y, f: est.aee_mean(y, f[:-1]), "predictions have 499 entries"),
        (lambda y, f: est.aee_mean(np.full_like(y, np.nan), f), "0 labeled item(s)"),
        (lambda y, f: est.aee_mean(y, np.where(np.isnan(y), np.nan, f)), "NaN or infinite"),
        (lambda y, f: est.aee_mean(y, f, pi=np.zeros_like(y)), "must lie in (0, 1]"),
        (lambda y, f: est.aee_mean(y, f, pi=np.ones(3)), "one inclusion probability per item"),
        (
            lambda y, f: est.aee_quantile(y, np.zeros((y.size, 2)), np.array([1.0, 0.0]), 0.5),
            "strictly increasing",
        ),
        (
            lambda y, f: est.aee_quantile(y, np.zeros((y.size, 1)), np.zeros(1), 1.0),
            "quantile level q=1.0",
        ),
    ],
)
def test_bad_estimator_input(pool, call, needle):
    y, f, lab = pool
    with pytest.raises(ValidationError) as err:
        call(np.where(lab, y, np.nan), f)
    assert needle in str(err.value)


def test_group_with_one_label_never_blocks_the_others(pool):
    """Issue 40: a group with one label (or none) used to raise for every group; now
    its row has an estimate and no interval, and the others are as without it."""
    y, f, lab = pool
    first = np.flatnonzero(lab)[0]
    groups = np.where(np.arange(y.size) == first, "tiny", "big").astype(object)
    groups[~lab & (np.arange(y.size) < 5)] = "tiny"
    groups[~lab & (np.arange(y.size) >= y.size - 3)] = "empty"
    yy = np.where(lab, y, np.nan)
    table = est.aee_group_means(yy, f, groups)
    assert table.names == ("big", "empty", "tiny")
    assert np.isfinite(table.ci_low[0]) and np.isnan(table.ci_low[1:]).all()
    assert "1 label" in table.notes[2] and "UNVALIDATED" in table.notes[1]
    assert np.isfinite(table.estimate).all()
    big = groups == "big"
    alone = est.aee_group_means(yy[big], f[big], groups[big])
    assert table.estimate[0] == pytest.approx(alone.estimate[0], rel=0.02)
    diffs = est.compare(table)
    assert diffs.notes == ["a group of the pair has no interval"] * 3


def test_simultaneous_critical_values():
    eye = np.eye(4)
    sidak = est.simultaneous_critical_value(eye, 0.05, "maxt")
    assert sidak[0] == pytest.approx(stats.norm.isf((1 - 0.95 ** (1 / 4)) / 2))
    bonf = est.simultaneous_critical_value(eye, 0.05, "bonferroni")
    assert bonf[0] == pytest.approx(stats.norm.isf(0.05 / 8)) and bonf[0] > sidak[0]
    corr = np.full((4, 4), 0.9) + 0.1 * eye
    dependent = est.simultaneous_critical_value(corr, 0.05, "maxt")
    assert stats.norm.isf(0.025) < dependent[0] < sidak[0]
    # simulation agrees with the exact value for independent components
    near_eye = eye + 1e-6 * (np.ones((4, 4)) - eye)
    simulated = est.simultaneous_critical_value(near_eye, 0.05, "maxt")
    assert simulated[0] == pytest.approx(sidak[0], abs=0.02)
    t = est.simultaneous_critical_value(eye, 0.05, "maxt", df=np.array([5, 5, 50, 50]))
    assert t[0] > t[2] > sidak[0]
    with pytest.raises(ValidationError, match="simultaneous='holm' is not known"):
        est.simultaneous_critical_value(eye, 0.05, "holm")


def test_critical_values_are_scipys_without_its_distribution_objects(monkeypatch):
    """Every group table asks for critical values: they come from scipy.special (the
    functions stats.t.isf and stats.norm.isf call, 0.1 ms less a call), the same numbers
    to the bit; the check for independent rows is np.allclose's to the identity."""
    from bacon_bayes.estimate import critical

    rng = np.random.default_rng(3)
    corr = np.full((5, 5), 0.5) + 0.5 * np.eye(5)
    df = np.array([1.0, 2.5, 9.0, 40.0, np.inf])
    cases = [(np.eye(5), a, rule, d) for a in (0.1, 0.05, 0.01)
             for rule in ("maxt", "bonferroni", "none") for d in (None, df)]  # fmt: skip
    cases += [(corr, 0.05, "maxt", None), (corr, 0.1, "maxt", df)]
    want = []
    for c, a, rule, d in cases:
        level = {"none": a, "bonferroni": a / 5, "maxt": 1 - (1 - a) ** 0.2}[rule]
        if c is corr:  # the simulated max-|Z| quantile's level
            level = 2 * stats.norm.sf(critical._maxt_quantile(c, 1 - a, 100_000, 20261122))
        want.append(stats.norm.isf(level / 2) * np.ones(5) if d is None
                    else stats.t.isf(level / 2, np.maximum(d, 1.0)))  # fmt: skip

    def refuse(*args, **kwargs):
        raise AssertionError("a scipy.stats distribution was asked")

    for dist in (stats.t, stats.norm):
        for name in ("isf", "sf", "ppf"):
            monkeypatch.setattr(dist, name, refuse)
    for (c, a, rule, d), w in zip(cases, want, strict=True):
        assert np.array_equal(critical.simultaneous_critical_value(c, a, rule, d), w)
    # the identity check is np.allclose(corr, I, atol=1e-10) (rtol 1e-5 on the diagonal)
    for bump, diag in [(0.0, 0.0), (9e-11, 0.0), (1.1e-10, 0.0), (0.0, 9e-6), (0.0, 2e-5),
                       (np.nan, 0.0), (0.0, np.inf)]:  # fmt: skip
        c = np.eye(4) + bump * (1 - np.eye(4)) + diag * np.eye(4) * rng.uniform(0.5, 1)
        assert critical._is_identity(c) == np.allclose(c, np.eye(4), atol=1e-10), (bump, diag)


def test_a_repeated_max_t_question_is_not_simulated_again(monkeypatch):
    """The max-|t| simulation (100,000 draws; 0.14 s for the 190 differences of 20 models)
    runs once per correlation, level, draws and seed: a ranking's rank sets and tiers ask
    it twice, as do the commands of one session on one table. The same numbers."""
    from bacon_bayes.estimate import critical

    calls = []
    real = critical.upper_quantile

    def counted(z, q):
        calls.append(q)
        return real(z, q)

    monkeypatch.setattr(critical, "upper_quantile", counted)
    monkeypatch.setattr(critical, "_MAXT_SEEN", type(critical._MAXT_SEEN)())
    corr = np.full((6, 6), 0.3) + 0.7 * np.eye(6)
    first = critical.simultaneous_critical_value(corr, 0.05, "maxt")
    again = critical.simultaneous_critical_value(corr.copy(), 0.05, "maxt", np.full(6, 7.0))
    assert len(calls) == 1
    assert np.array_equal(again, stats.t.isf(2 * stats.norm.sf(first[0]) / 2, 7.0) * np.ones(6))
    critical.simultaneous_critical_value(corr, 0.1, "maxt")  # another level: simulated
    critical.simultaneous_critical_value(corr, 0.05, "maxt", seed=5)  # another seed
    nearby = corr.copy()
    nearby[0, 1] = nearby[1, 0] = 0.3 + 1e-12  # another correlation, however close
    critical.simultaneous_critical_value(nearby, 0.05, "maxt")
    assert len(calls) == 4
    monkeypatch.setattr(critical, "_MAXT_SEEN", type(critical._MAXT_SEEN)())
    assert np.array_equal(critical.simultaneous_critical_value(corr, 0.05, "maxt"), first)
    assert len(calls) == 5
    for k in range(critical._MAXT_KEEP + 3):  # the cache keeps the latest questions only
        critical.simultaneous_critical_value(corr, 0.05, "maxt", draws=1000 + k)
    assert len(critical._MAXT_SEEN) == critical._MAXT_KEEP


def test_upper_quantile_is_numpys():
    """The max-|t| simulation's quantile partitions only the upper values: the same
    number as np.quantile, to the bit (ties, small arrays, every level)."""
    from bacon_bayes.estimate.critical import upper_quantile

    rng = np.random.default_rng(1)
    for t in range(600):
        n = 100_000 if t % 3 == 0 else int(rng.integers(1, 5000))
        z = np.abs(rng.normal(size=n)) if t % 2 else np.round(np.abs(rng.standard_t(3, n)), 1)
        q = float(rng.choice([0.0, 0.01, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0, rng.uniform()]))
        assert upper_quantile(z, q) == float(np.quantile(z, q)), (n, q)


def test_groups_differences_and_ranks(pool):
    y, f, lab = pool
    groups = np.array(["a", "b", "c"])[np.arange(y.size) % 3]
    y = y + np.array([0.0, 1.5, 3.0])[np.arange(y.size) % 3]
    f = f + np.array([0.0, 1.5, 3.0])[np.arange(y.size) % 3]
    table = est.aee_group_means(np.where(lab, y, np.nan), f, groups, alpha=0.05)
    assert table.names == ("a", "b", "c")
    assert np.allclose(table.cov, np.diag(np.diag(table.cov)))  # disjoint groups
    diffs = est.compare(table)
    assert diffs.names == ("a - b", "a - c", "b - c")
    assert np.allclose(
        diffs.estimate,
        [
            table.estimate[0] - table.estimate[1],
            table.estimate[0] - table.estimate[2],
            table.estimate[1] - table.estimate[2],
        ],
    )
    ranks = est.rank_intervals(table)
    assert ranks["rank"].tolist() == [3, 2, 1]
    assert ranks["rank_low"].tolist() == [3, 2, 1] and ranks["rank_high"].tolist() == [3, 2, 1]
    d = table.to_dict()
    assert d["rows"][0]["name"] == "a" and len(d["cov"]) == 3
    assert table["b"].estimate == pytest.approx(table.estimate[1])


def test_bootstrap_critical_values_match_normal_theory_on_large_normal_groups():
    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(4), 400)
    resid = rng.normal(size=codes.size)
    w = np.ones(codes.size)
    c = est.bootstrap_t_critical_values(resid, w, codes, 0.05, "maxt", n_boot=4000, seed=1)
    sidak = est.simultaneous_critical_value(np.eye(4), 0.05, "maxt")
    assert np.ptp(c) == 0 and c[0] == pytest.approx(sidak[0], abs=0.12)
    point = est.bootstrap_t_critical_values(resid, w, codes, 0.05, "none", n_boot=4000, seed=1)
    assert np.allclose(point, 1.96, atol=0.12)
    bonf = est.bootstrap_t_critical_values(resid, w, codes, 0.05, "bonferroni", n_boot=4000)
    assert np.all(bonf > point)
    # same seed, same answer; Horvitz-Thompson form too
    again = est.bootstrap_t_critical_values(resid, w, codes, 0.05, "maxt", n_boot=4000, seed=1)
    assert np.array_equal(c, again)
    ht = est.bootstrap_t_critical_values(resid, w, codes, 0.05, hajek=False, n_boot=4000)
    assert ht[0] == pytest.approx(sidak[0], abs=0.12)
    # the Hajek statistic ignores a common weight scale; unequal weights stay near normal
    scaled = est.bootstrap_t_critical_values(resid, 10 * w, codes, 0.05, n_boot=4000, seed=1)
    np.testing.assert_allclose(scaled, c, rtol=1e-9)
    uneven = rng.uniform(1, 4, codes.size)
    cu = est.bootstrap_t_critical_values(resid, uneven, codes, 0.05, n_boot=4000, seed=1)
    assert cu[0] == pytest.approx(sidak[0], abs=0.15)
    with pytest.raises(ValidationError, match="domain code 1 has 0 labeled"):
        est.bootstrap_t_critical_values(resid[:10], w[:10], np.array([0] * 5 + [2] * 5), 0.05)


@pytest.mark.parametrize("hajek", [True, False])
def test_bootstrap_of_several_residual_vectors_equals_separate_calls(hajek):
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 5, 900)
    r1, r2 = rng.standard_t(3, codes.size), rng.exponential(size=codes.size)
    w = rng.uniform(1, 4, codes.size)
    for method in ("maxt", "none", "bonferroni"):
        alone = [
            est.bootstrap_t_critical_values(r, w, codes, 0.05, method, hajek=hajek, n_boot=300)
            for r in (r1, r2, r1)
        ]
        both = est.bootstrap_t_critical_values(
            np.column_stack([r1, r2, r1]), w, codes, 0.05, method, hajek=hajek, n_boot=300
        )
        assert both.shape == (3, 5)
        for row, ref in zip(both, alone, strict=True):
            assert np.array_equal(row, ref)


def test_small_bootstraps_run_in_the_calling_thread(monkeypatch):
    """A bootstrap of a few hundred labels (every group table of a coverage study) runs
    in the calling thread, not on threads started for it; a large one on threads gives
    the same resamples as one thread (the picks do not depend on the split)."""
    from bacon_bayes.estimate import critical

    rng = np.random.default_rng(11)
    small = rng.integers(0, 4, 200)
    r_small = rng.normal(size=(small.size, 2))
    w_small = rng.uniform(1, 3, small.size)
    first = critical.bootstrap_resamples(r_small, w_small, small, n_boot=2000, seed=4)
    large = rng.integers(0, 6, 3000)
    r_large, w_large = rng.normal(size=large.size), rng.uniform(1, 3, large.size)
    threaded = critical.bootstrap_resamples(r_large, w_large, large, n_boot=2000, seed=4)

    class NoThreads:
        def __init__(self, *args, **kwargs):
            raise AssertionError("threads started for a small bootstrap")

    monkeypatch.setattr(critical, "ThreadPoolExecutor", NoThreads)
    again = critical.bootstrap_resamples(r_small, w_small, small, n_boot=2000, seed=4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    monkeypatch.setattr(critical.os, "cpu_count", lambda: 1)
    alone = critical.bootstrap_resamples(r_large, w_large, large, n_boot=2000, seed=4)
    assert all(np.array_equal(a, b) for a, b in zip(threaded, alone, strict=True))


def test_group_tables_from_sums_equal_one_call_per_surrogate():
    from bacon_bayes.estimate.groups import group_means_from_sums, group_tables_from_sums

    rng = np.random.default_rng(8)
    n, m = 600, 3
    g = rng.integers(0, m, n)
    y = 0.5 * g + rng.normal(size=n)
    f = y + rng.normal(scale=0.5, size=n)
    pi = np.full(n, 0.1)
    names = np.array(["a", "b", "c"])
    n_g = 10 * np.bincount(g, minlength=m)
    sums = np.array([10 * f[g == k].sum() for k in range(m)])
    variants = [(f, sums, sums.sum(), True), (np.zeros(n), np.zeros(m), 0.0, False)]
    both = group_tables_from_sums(y, pi, g, names, variants, n_g, int(n_g.sum()), n_boot=300)
    for table, (fl, fs, ft, tuned) in zip(both, variants, strict=True):
        ref = group_means_from_sums(
            y, fl, pi, g, names, fs, ft, n_g, int(n_g.sum()), power_tuning=tuned, n_boot=300
        )
        assert np.array_equal(table.estimate, ref.estimate)
        assert np.array_equal(table.critical_value, ref.critical_value)
        assert table.details["interval"] == ref.details["interval"] == "bootstrap"


def test_skewed_groups_count_fewer_labels_and_fall_back_to_t_when_small():
    rng = np.random.default_rng(5)
    n = 2000
    groups = np.arange(n) % 4
    y = np.where(rng.random(n) < 0.5, rng.lognormal(0.0, 1.2, n), 0.0)
    lab = np.zeros(n, dtype=bool)
    lab[rng.choice(n, 160, replace=False)] = True
    yy = np.where(lab, y, np.nan)
    boot = est.aee_group_means(yy, np.zeros(n), groups, alpha=0.1)
    tee = est.aee_group_means(yy, np.zeros(n), groups, alpha=0.1, interval="t")
    assert boot.details["interval"] == "bootstrap" and tee.details["interval"] == "t"
    assert np.allclose(boot.estimate, tee.estimate)
    # the t path moderates each group's variance toward the pooled one (all groups here
    # share one distribution): the standard errors move closer together
    assert np.ptp(tee.se) < np.ptp(boot.se)
    # df: the prior's worth plus the own variance's, fewer than n_g - 1 labels here (the
    # residuals' kurtosis, moderate.own_labels)
    own = np.array(tee.details["df"]) - tee.details["prior_labels"]
    assert np.all((0 < own) & (own < tee.n_labeled - 1)), own
    few = lab & (rng.random(n) < 0.15)  # about 6 labels per group
    small = est.aee_group_means(np.where(few, y, np.nan), np.zeros(n), groups)
    assert small.details["interval"] == "t"
    with pytest.raises(ValidationError, match="interval='normal' is not known"):
        est.aee_group_means(yy, np.zeros(n), groups, interval="normal")


def test_rank_intervals_widen_when_groups_overlap(pool):
    y, f, lab = pool
    groups = np.array(["a", "b"])[np.arange(y.size) % 2]
    table = est.aee_group_means(np.where(lab, y, np.nan), f, groups)
    ranks = est.rank_intervals(table)
    assert ranks["rank_low"].tolist() == [1, 1] and ranks["rank_high"].tolist() == [2, 2]


def test_estimate_to_dict_is_json_ready(pool):
    import json

    y, f, lab = pool
    e = est.aee_mean(np.where(lab, y, np.nan), f)
    d = json.loads(json.dumps(e.to_dict()))
    for key in ("estimate", "se", "ci_low", "ci_high", "n_labeled", "n_items"):
        assert d[key] == getattr(e, key)
    assert "aee mean" in str(e)
    assert est.Estimate.from_dict(d) == e  # saved results round-trip exactly
    # an error score's open scale end: standard JSON (no Infinity), read back exactly
    clipped = e.clip(-np.inf, 0.0)
    text = json.dumps(clipped.to_dict(), allow_nan=False)
    assert est.Estimate.from_dict(json.loads(text)) == clipped


def test_arrays_of_the_wrong_shape_are_refused_naming_the_argument(pool):
    """A scalar surrogate raised IndexError from ``np.shape(f)[0]``, and groups one short
    of the items a ValueError from ``np.bincount``: neither said which argument."""
    y, f, lab = pool
    y = np.where(lab, y, np.nan)
    groups = np.arange(y.size) % 4
    with pytest.raises(ValidationError, match=r"predictions must hold one value per item.*scalar"):
        est.aee_mean(y, 3.0)
    with pytest.raises(
        ValidationError, match=r"predictions must hold one value per item.*\(1, 2, 250\)"
    ):
        est.aee_mean(y, f.reshape(1, 2, -1))
    with pytest.raises(ValidationError, match=r"groups have 499 entries but y has 500"):
        est.aee_group_means(y, f, groups[:-1])
    with pytest.raises(ValidationError, match=r"groups have 499 entries but y has 500"):
        est.classical_group_means(y, groups[:-1])
    with pytest.raises(ValidationError, match=r"groups must be 1-D"):
        est.aee_group_means(y, f, groups.reshape(-1, 1))


@pytest.mark.parametrize("missing", [np.nan, None])
def test_a_missing_group_name_is_refused_not_made_a_group_named_nan(pool, missing):
    """A group column with empty cells (a Series read from a CSV) made one more group
    named 'nan' of those items, with an interval of its own, in every flat group
    function; the pool refuses it, and so do they now, naming the first item."""
    y, f, lab = pool
    y = np.where(lab, y, np.nan)
    groups = pd.Series(np.array(["a", "b", "c", "d"], dtype=object)[np.arange(y.size) % 4])
    groups.iloc[[7, 9]] = missing
    calls = (
        lambda: est.aee_group_means(y, f, groups),
        lambda: est.shrunk_group_means(y, f, groups),
        lambda: est.classical_group_means(y, groups),
        lambda: est.naive_group_means(f, groups),
    )
    said = r"missing .* for 2 item\(s\), the first at position 7"
    for call in calls:
        with pytest.raises(ValidationError, match=said):
            call()
    numbers = pd.Series(np.where(np.arange(y.size) % 5 == 0, np.nan, np.arange(y.size) % 3))
    with pytest.raises(ValidationError, match="groups is missing"):
        est.aee_group_means(y, f, numbers)


def test_pandas_arguments_in_another_order_are_refused_not_paired_by_position(pool):
    """``aee_mean(df.human, other.f)`` with ``other`` sorted differently paired each label
    with another item's prediction (numpy reads position; pandas users expect the index)
    and gave an estimate without a word; Series of one index still pass."""
    y, f, lab = pool
    ys = pd.Series(np.where(lab, y, np.nan))
    fs = pd.Series(f).sample(frac=1, random_state=0)
    groups = pd.Series(np.arange(y.size) % 4)
    with pytest.raises(ValidationError, match=r"y and f are pandas objects whose indexes differ"):
        est.aee_mean(ys, fs)
    with pytest.raises(ValidationError, match=r"f.reindex\(y.index\)"):
        est.shrunk_group_means(ys, fs, groups)
    with pytest.raises(ValidationError, match=r"y and groups .* indexes differ"):
        est.aee_group_means(ys, f, groups.sample(frac=1, random_state=0))
    aligned = est.aee_mean(ys, fs.reindex(ys.index))
    assert aligned.estimate == est.aee_mean(ys.to_numpy(), f).estimate
