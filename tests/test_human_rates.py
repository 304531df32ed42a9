"""Judges' confusion rates against the human label (``fpr_human``, ...): AEE ratio
estimates whose intervals hold when the outcome model is wrong (judges that err together)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes import estimate as est
from bacon_bayes.errors import ValidationError
from tests.interval_checks import assert_two_sided

#: Per judge, the log-odds of a right verdict on a negative and on a positive item; the
#: last judge rarely calls a negative positive (a rare cell: ~7 false positives per pool).
SKILL = np.array([[2.0, 1.0], [1.0, 2.5], [1.5, 1.5], [4.5, 0.5]])
HARD = 1.5  # how much an item's difficulty fools every judge at once


def err_together(
    seed: int, n: int = 600, share: float = 0.2, levels: int = 2, weighted: bool = False
):
    """A pool of 0/1 (or 0..K-1) labels, 4 categorical judges whose errors share each
    item's difficulty (so a model of the votes is misspecified) and one continuous judge;
    returns the pool and the pool's true confusion ``P(judge says l | label k)``.
    ``weighted``: Poisson sampling of the labels, 3.5 times likelier where the judges
    disagree (recorded in a propensity column)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, n) if levels > 2 else (rng.random(n) < 0.6).astype(int)
    hard = rng.normal(size=n)
    skill = SKILL[:, np.minimum(y, 1)].T  # (n, 4)
    right = rng.random((n, 4)) < 1 / (1 + np.exp(-(skill - HARD * hard[:, None])))
    wrong = (y[:, None] + rng.integers(1, levels, (n, 4))) % levels
    said = np.where(right, y[:, None], wrong).astype(float)
    said[rng.random(said.shape) < 0.05] = np.nan  # some judges skip some items
    names = [f"j{k}" for k in range(4)]
    frame = pd.DataFrame(said, columns=names)
    frame["score"] = y + 0.8 * rng.normal(size=n) - 0.5 * hard  # not a level: continuous
    # judges that disagree: frame[names].nunique(axis=1) > 1 (NaN skipped), without
    # pandas' row-by-row apply (half of this file's time)
    split = np.fmax.reduce(said, axis=1) > np.fmin.reduce(said, axis=1)
    pi = np.where(split, 0.35, 0.1) if weighted else np.full(n, share)
    frame["pi"] = pi
    frame["y"] = np.where(rng.random(n) < pi, y, np.nan)
    conf = np.array(
        [
            [
                [np.mean(s[(y == k) & ~np.isnan(s)] == v) for v in range(levels)]
                for k in range(levels)
            ]
            for s in said.T
        ]
    )
    pool = EvalPool.from_frame(
        frame,
        label="y",
        judges=[*names, "score"],
        outcome="categorical",
        propensity="pi" if weighted else None,
    )
    return pool, conf


def _binary_rates(pools: int, level: float = 0.9, weighted: bool = False):
    est_, low, high, truth = [], [], [], []
    for seed in range(pools):
        pool, conf = err_together(seed, weighted=weighted)
        table = Calibrator(engine="freq", seed=seed).fit(pool).judge_bias(level)
        cat = table.iloc[:4]
        truth.append(np.r_[conf[:, 0, 1], conf[:, 1, 0]])
        est_.append(np.r_[cat["fpr_human"], cat["fnr_human"]])
        low.append(np.r_[cat["fpr_human_low"], cat["fnr_human_low"]])
        high.append(np.r_[cat["fpr_human_high"], cat["fnr_human_high"]])
    return tuple(np.array(v) for v in (est_, low, high, truth))


#: ``make validate`` only (uniform, and the weighted draws: labels 3.5 times likelier where
#: the judges disagree); ``make test`` runs the fast check below on 60 weighted pools
@pytest.fixture(
    scope="module",
    params=[
        pytest.param(False, marks=pytest.mark.slow),
        pytest.param(True, marks=pytest.mark.slow),
    ],
    ids=["uniform", "weighted"],
)
def binary_rates(request):
    return _binary_rates(150, weighted=request.param)


def test_rates_against_people_cover_both_ways(binary_rates):
    """90% intervals of 8 rates per pool over 150 pools (measured 2026-11-25, Wald form,
    uniform: 0.903, each rate 0.88-0.94, without the add-one variance 0.855 and the rare
    false-positive rate of the last judge 0.71, which the per-rate floor catches;
    weighted: 0.911, each rate 0.85-0.98, without it 0.853. Spanning Wilson's form too,
    2026-12-01: uniform 0.939, each rate 0.90-0.99; weighted 0.952, each 0.91-0.99)."""
    _, low, high, truth = binary_rates
    covered = (low <= truth) & (truth <= high)
    # a pool's 8 intervals share its label draw: the per-pool share, a Bernoulli at most
    # as variable, is tested against the binomial band of 150 independent pools
    pools = covered.shape[0]
    lo, hi = stats.binom.ppf([0.005, 0.995], pools, 0.9) / pools
    rate = float(covered.mean())
    assert lo <= rate <= hi, (rate, lo, hi, covered.mean(axis=0))
    assert covered.mean(axis=0).min() >= 0.8, covered.mean(axis=0)


def test_rates_against_people_are_unbiased(binary_rates):
    estimate, _, _, truth = binary_rates
    err = estimate - truth
    se = err.std(axis=0, ddof=1) / np.sqrt(err.shape[0])
    assert np.all(np.abs(err.mean(axis=0)) <= 3.5 * se + 0.003), (err.mean(axis=0), se)


def test_rates_against_people_are_neither_too_wide_nor_too_narrow():
    """The fast check of the two studies above (tests/interval_checks.py): 60 weighted
    pools' 8 rates against the pools' own confusion rates."""
    estimate, low, high, truth = _binary_rates(60, weighted=True)
    assert_two_sided(estimate, low, high, truth, 0.1, what="rates against people")


def test_table_marks_judge_types_and_accuracy_for_more_levels():
    pool, conf = err_together(3, n=1500, share=0.3, levels=3)
    table = Calibrator(engine="freq").fit(pool).judge_bias(0.9)
    assert table["type"].tolist() == ["categorical"] * 4 + ["continuous"]
    cols = [f"acc_human_{k}" for k in range(3)]
    assert set(cols) <= set(table) and "fpr_human" not in table
    assert table.loc[4, cols].isna().all()  # the continuous judge has no confusion
    acc = np.array([np.diag(c) for c in conf])
    got = table.loc[:3, cols].to_numpy()
    assert np.abs(got - acc).max() < 0.06, (got, acc)
    lo, hi = (table.loc[:3, [f"{c}{s}" for c in cols]].to_numpy() for s in ("_low", "_high"))
    assert np.all((lo <= got) & (got <= hi) & (lo >= 0) & (hi <= 1))


def _accuracy(pools: int):
    """Three levels: each judge's ``acc_human_<level>`` over ``pools`` pools of 600 items
    (estimates, ends, the pools' own accuracies; 4 judges x 3 levels each)."""
    cols = [f"acc_human_{k}" for k in range(3)]
    out = []
    for seed in range(pools):
        pool, conf = err_together(seed, n=600, share=0.25, levels=3)
        table = Calibrator(engine="freq", seed=seed).fit(pool).judge_bias(0.9).iloc[:4]
        acc = np.array([np.diag(c) for c in conf])
        parts = (table[[f"{c}{s}" for c in cols]].to_numpy() for s in ("", "_low", "_high"))
        out.append([p.ravel() for p in (*parts, acc)])
    return tuple(np.array(v) for v in zip(*out, strict=True))


@pytest.mark.slow
def test_accuracy_per_level_covers_both_ways():
    """``_accuracy`` over 100 pools (measured 2026-11-25 on 120 pools of 900 items:
    0.906, each of the 12 rates 0.86-0.94)."""
    _, lo, hi, acc = _accuracy(100)
    covered = (lo <= acc) & (acc <= hi)
    pools = len(covered)
    lo, hi = stats.binom.ppf([0.005, 0.995], pools, 0.9) / pools
    assert lo <= float(np.mean(covered)) <= hi, np.mean(covered, axis=0)


def test_accuracy_per_level_is_neither_too_wide_nor_too_narrow():
    """The fast check of the study above on 60 pools (tests/interval_checks.py)."""
    assert_two_sided(*_accuracy(60), 0.1, what="accuracy per level")


def test_ratio_with_unit_denominator_is_the_aee_mean():
    rng = np.random.default_rng(1)
    n = 400
    y = (rng.random(n) < 0.3).astype(float)
    f = np.clip(y * 0.6 + rng.random(n) * 0.4, 0, 1)
    lab = rng.random(n) < 0.25
    pi = np.where(rng.random(n) < 0.5, 0.2, 0.3)
    one = np.ones(n)
    r = est.aee_ratio(y, one, f, one, lab, pi, alpha=0.1)
    m = est.aee_mean(np.where(lab, y, np.nan), f, pi=pi, alpha=0.1)
    np.testing.assert_allclose([r.estimate, r.se], [m.estimate, m.se], rtol=1e-12)
    np.testing.assert_allclose([r.ci_low, r.ci_high], [m.ci_low, m.ci_high], rtol=1e-12)


def test_ratio_of_fully_labeled_pool_is_exact_and_pseudo_events_widen_it():
    rng = np.random.default_rng(2)
    n = 300
    a, b = (rng.random((2, n)) < [[0.2], [0.6]]).astype(float)
    a *= b
    lab = np.ones(n, dtype=bool)
    r = est.aee_ratio(a, b, 0.5 * b, b, lab, 1.0)
    assert r.estimate == pytest.approx(a.sum() / b.sum()) and r.se == pytest.approx(0.0)
    part = rng.random(n) < 0.3
    plain = est.aee_ratio(a, b, 0.1 * b, b, part)
    wide = est.aee_ratio(a, b, 0.1 * b, b, part, pseudo=1.0)
    assert wide.estimate == plain.estimate and wide.se > plain.se
    none = est.aee_ratio(0 * a, b, 0 * a, b, part, pseudo=1.0)  # no event labeled or not
    assert none.estimate == 0 and none.ci_high > 0


def test_forest_plot_of_the_frequentist_table_shows_the_rates_against_people():
    from bacon_bayes.bayes.bias import forest_figure

    pool, _ = err_together(0)
    fig = forest_figure(Calibrator(engine="freq").fit(pool).judge_bias())
    names = [ax.get_xlabel() for ax in fig.axes]
    assert "bias (judge - human, typical item)" in names
    assert {"false-positive rate (vs human)", "false-negative rate (vs human)"} <= set(names)


def test_ratio_rejects_mismatched_or_missing_surrogates():
    lab = np.array([True, True, False, True])
    with pytest.raises(ValidationError, match="pool has 4 items"):
        est.aee_ratio(np.ones(3), np.ones(3), np.ones(3), np.ones(3), lab)
    with pytest.raises(ValidationError, match="NaN"):
        est.aee_ratio(np.ones(4), np.ones(4), np.array([0, np.nan, 0, 0]), np.ones(4), lab)


@pytest.mark.parametrize("rate", [0.02, 0.05])
def test_rate_with_few_labeled_events_keeps_its_upper_end(rate):
    """A judge's miss rate (about 0.8 * ``rate``) over ~100 labeled positives of 1,000
    items, 2,000 pools, 90% intervals: the delta method's Wald interval (with the add-one
    variance) covered 0.92 and 0.90 but missed high in 0.075 and 0.085 of pools (low in
    0.004 and 0.014; measured 2026-12-01); spanning Wilson's score form too: 0.995 and
    0.96, high misses 0.002 and 0.024."""
    rng = np.random.default_rng(11)
    pools, n = 2000, 1000
    p = 1 / (1 + np.exp(-rng.normal(size=(pools, n))))  # P(label 1 | x), the surrogate
    y = (rng.random((pools, n)) < p).astype(float)
    miss_p = rate * 2 * (1 - p)  # the judge misses more of the doubtful positives
    a = (rng.random((pools, n)) < miss_p) * y
    lab = np.zeros(n, dtype=bool)
    lab[rng.choice(n, 200, replace=False)] = True
    r = est.aee_ratio(a, y, miss_p * p, p, lab, alpha=0.1, pseudo=1.0, wilson=True)
    truth = a.sum(axis=1) / y.sum(axis=1)
    low, high = np.clip(r.ci_low, 0, 1), np.clip(r.ci_high, 0, 1)
    assert np.isfinite(high).all()
    lo = stats.binom.ppf(0.001, pools, 0.9) / pools
    assert lo <= np.mean((low <= truth) & (truth <= high))
    # each end misses at most 5% (plus 1.5 Monte Carlo se): Wald 0.075, 0.085 high
    assert np.mean(truth > high) <= 0.058, np.mean(truth > high)
    assert np.mean(truth < low) <= 0.058, np.mean(truth < low)


def test_wilson_rate_without_surrogate_spans_wilsons_and_walds_intervals():
    rng = np.random.default_rng(3)
    n = 500
    b = (rng.random(n) < 0.5).astype(float)
    a = b * (rng.random(n) < 0.1)
    lab = rng.random(n) < 0.3
    r = est.aee_ratio(a, b, 0 * a, 0 * b, lab, alpha=0.1, power_tuning=False, wilson=True,
                      hajek=False)  # fmt: skip
    # Wilson's interval from k events in m labeled, with the pool's finite-population
    # correction (m / (1 - n / N) draws' worth) and the t quantile the ratio uses
    k, m = a[lab].sum(), b[lab].sum()
    m_eff = m / (1 - lab.mean())
    t = stats.t.ppf(0.95, lab.sum() - 1)
    phat = k / m
    centre = (phat + t * t / (2 * m_eff)) / (1 + t * t / m_eff)
    half = t * np.sqrt(phat * (1 - phat) / m_eff + t * t / (4 * m_eff**2)) / (1 + t * t / m_eff)
    assert r.estimate == pytest.approx(phat)
    wald = phat + np.array([-1, 1]) * t * r.se
    np.testing.assert_allclose(r.se, np.sqrt(phat * (1 - phat) / m_eff), rtol=1e-9)
    np.testing.assert_allclose(
        [r.ci_low, r.ci_high],
        [min(centre - half, wald[0]), max(centre + half, wald[1])],
        rtol=1e-9,
    )
