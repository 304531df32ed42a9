"""The harness of issue 41's validation (benchmarks/anytime_validation.py) on tiny
configurations, so it cannot rot; a moderate run behind ``slow``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bacon_bayes.estimate import anytime as at
from benchmarks import anytime_validation as v


@pytest.fixture(scope="module")
def summeval() -> v.Table:
    table = v.load_tables(Path("/nonexistent"), ("summeval",))[0]
    names = list(table.groups)  # in the package's natural order
    table.pair = (names.index("M10"), names.index("M11"))
    return table


def test_critical_values_are_the_package_s_at_each_look() -> None:
    """One pass per sequence gives what the package computes at each look from the looks
    up to it, including looks that add no labels to a group (they merge)."""
    rng = np.random.default_rng(1)
    counts = np.cumsum(rng.integers(0, 3, (6, 8)), axis=1).astype(float)
    info = at.effective_labels(counts, 100.0)
    times = np.arange(1, 9) / 8
    c = v.critical(info, times)
    for r in range(6):
        for k in range(8):
            if info[r, k] <= 0:
                assert np.isnan(c["alpha-spending"][r, k])
                continue
            ref = at.sequential_critical_value(info[r, : k + 1], 0.05, times=times[: k + 1])
            seq = at.sequential_critical_value(info[r, : k + 1], 0.05)
            assert c["alpha-spending"][r, k] == pytest.approx(ref, rel=1e-9)
            assert c["confidence sequence"][r, k] == pytest.approx(seq, rel=1e-9)


@pytest.mark.parametrize("design", ["uniform", "stratified", "adaptive"])
def test_harness_runs_on_a_few_sequences(summeval: v.Table, design: str) -> None:
    sim = v.simulate(summeval, design, reps=6, looks=4, seed=0)
    assert sim.labels.tolist() == [60.0, 120.0, 180.0, 240.0]  # 20% of 1,200 in 4 waves
    assert np.all(np.diff(sim.order, axis=1) != 0)
    assert all(len(set(row)) == 240 for row in sim.order)  # no item labeled twice
    assert np.isfinite(sim.pool[1]).all() and (sim.pool[1] > 0).all()
    rows, stop = v.evaluate(summeval, sim)
    width = {(r["quantity"], r["interval"]): r["last width / fixed"] for r in rows}
    assert width[("pool mean", "fixed")] == 1.0
    assert 1.0 < width[("pool mean", "alpha-spending")] < 1.35
    assert width[("pool mean", "confidence sequence")] > width[("pool mean", "alpha-spending")]
    assert all(0.0 <= r["some look misses"] <= 1.0 for r in rows)
    assert {s["interval"] for s in stop} == set(v.KINDS)
    assert all(0.0 < s["mean labels used %"] <= 20.0 for s in stop)


def test_stratified_waves_draw_each_group_s_count_as_the_package_s(summeval: v.Table) -> None:
    """A stratified wave of the harness drew its items by PPS over the whole table (the
    groups' counts random) and gave the allocation's remainders to the first groups at
    every wave (their sizes, not their unlabeled items): at 16 groups and waves of 1.5 a
    group, half of WMT22's systems got twice the others' labels. Each wave now draws
    exactly the package's allocation (``sampling.designs.stratified`` on the unlabeled
    items), which spreads the remainders."""
    from bacon_bayes.sampling.designs import stratified

    sim = v.simulate(summeval, "stratified", reps=3, looks=16, seed=0)  # 15 a wave, 12 groups
    for r in range(3):
        labeled = np.zeros(summeval.n, dtype=bool)
        for k, end in enumerate(sim.labels.astype(int)):
            drawn = sim.order[r, int(sim.labels[k - 1]) if k else 0 : end]
            design = stratified(summeval.g, drawn.size, eligible=~labeled)
            expect = list(design.params["strata"].values())
            assert np.bincount(summeval.g[drawn], minlength=12).tolist() == expect
            labeled[drawn] = True
    assert sim.group_n[:, :, -1].min() == sim.group_n[:, :, -1].max() == 20


def test_fast_estimate_agrees_with_the_calibrator(summeval: v.Table) -> None:
    """The last look's pool mean and its alpha-spending half-width against
    ``Calibrator(engine="freq")`` on the same labels (surrogate and folds differ)."""
    from benchmarks.anytime_harness_check import last_look

    out = last_look(summeval, 1, seed=3)
    row = out.iloc[0]
    assert abs(row["mean fast"] - row["mean calibrator"]) < 0.03
    assert row["half fast"] == pytest.approx(row["half calibrator"], rel=0.15)
    assert abs(row["diff fast"] - row["diff calibrator"]) < 0.15


@pytest.mark.parametrize("pooling", ["separate", "auto"])
def test_group_intervals_are_the_calibrator_s(summeval: v.Table, pooling: str) -> None:
    """Every look's group estimates and interval ends equal ``Calibrator(engine="freq")``'s
    on the same labels: the leave-one-out judges' ridge (looks 1-2, below 20 labels per
    coefficient), the model's ridge (3-4), moderated t, bootstrap-t and shrunk means; and
    the pair's difference as ``compare_groups`` gives it."""
    from benchmarks.anytime_harness_check import compare, package_intervals, pair_end_diff

    sim = v.simulate(summeval, "uniform", reps=1, looks=4, seed=2, pooling=pooling)
    both = package_intervals(summeval, sim.order, sim.labels)
    out = compare(summeval, sim, both[pooling])
    assert (out["intervals package"] == out["intervals harness"]).all()
    assert (out["intervals package"] > 0).all()
    assert out["max end diff"].max() < 1e-8
    np.testing.assert_allclose(out["rmse harness"], out["rmse package"], rtol=1e-9)
    assert pair_end_diff(summeval, sim, both[f"{pooling} pair"]).max() < 1e-8  # the pair's


def test_peeking_at_fixed_intervals_misses_more_than_alpha_spending(summeval: v.Table) -> None:
    """A sequence built from fixed intervals misses more often than alpha-spending on the
    same sequences (the harness can tell the two apart)."""
    sim = v.simulate(summeval, "uniform", reps=40, looks=10, seed=5)
    rows, _ = v.evaluate(summeval, sim)
    miss = {(r["quantity"], r["interval"]): r["some look misses"] for r in rows}
    assert miss[("pool mean", "fixed")] > miss[("pool mean", "alpha-spending")]
    assert miss[("pool mean", "fixed")] > 0.08


@pytest.fixture(scope="module")
def summeval_run(summeval: v.Table) -> dict[str, dict]:
    """300 sequences of 10 looks, uniform and adaptive: each design's rows by key."""
    out = {}
    for design in ("uniform", "adaptive"):
        sim = v.simulate(summeval, design, reps=300, looks=10, seed=11)
        rows, _ = v.evaluate(summeval, sim)
        out[design] = {(r["quantity"], r["interval"]): r for r in rows}
    return out


@pytest.mark.slow
@pytest.mark.parametrize("design", ["uniform", "adaptive"])
@pytest.mark.parametrize(
    "quantity",
    [
        "pool mean",
        "difference",
        "difference (>=10)",
        "group mean (>=10)",
        "group mean, average over groups",
    ],
)
def test_alpha_spending_holds_on_summeval(
    summeval_run: dict[str, dict], design: str, quantity: str
) -> None:
    """300 sequences of 10 looks: alpha-spending's chance that some look misses is at most
    0.05 + 3 Monte Carlo se, the fixed intervals' (peeking) above it, and the last look at
    most 1.35 times the fixed width. Uniform / adaptive (at the default uniform share of
    a study with groups, 0.5; at 0.2 in brackets): the pool mean misses 0.067 / 0.067
    (0.040); every look's difference M10 - M11 0.040 / 0.040 (0.027); a group at some look
    0.045 / 0.040 (0.042) averaged over the 12 (the shrunk means' guarantee). The group
    mean M10 from 10 labels a group misses 0.060 / 0.047 (0.070; 0.083 / 0.083 before the
    harness's group inclusion probabilities and surrogate were the package's, and an
    expected failure at 0.103 / 0.113 until it mirrored the package's bootstrap branch)."""
    by = summeval_run[design]
    bound = 0.05 + 3 * np.sqrt(0.05 * 0.95 / 300)
    assert by[(quantity, "alpha-spending")]["some look misses"] <= bound
    assert (
        by[(quantity, "fixed")]["some look misses"]
        > by[(quantity, "alpha-spending")]["some look misses"]
    )
    width = by[(quantity, "alpha-spending")]["last width / fixed"]
    assert width <= 1.35  # averaged over the groups for their row


def test_package_check_reads_per_group_misses_against_monte_carlo_noise() -> None:
    """Groups that each miss at exactly 0.05 put about half their estimates above 0.05,
    and a worst of 12 over 300 sequences near 0.07: figures that noise alone gives are
    not read as failing groups (the summary prints them beside the observed ones)."""
    from benchmarks.anytime_package_check import _noise

    above, worst = _noise(0.05, 300, 12)
    assert 0.40 < above < 0.55 and 0.065 < worst < 0.08, (above, worst)
    above, worst = _noise(0.02, 1000, 12)
    assert above < 1e-6 and worst < 0.03


def test_anytime_shrunk_rows_are_the_package_s(summeval: v.Table) -> None:
    """At a shrunk look, the harness's anytime group ends (the fixed ones scaled by
    ``c / z``, joined with the own-interval floor read at the look's level:
    :func:`benchmarks.anytime_groups.own_floor`) equal
    :func:`bacon_bayes.estimate.anytime.anytime_table`'s on the Calibrator's table, and
    so do every pair's (:func:`benchmarks.anytime_groups.pair_floor`) on its differences."""
    import itertools

    import pandas as pd
    from scipy import stats

    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.estimate.shrink import shrunk_differences
    from benchmarks import anytime_groups as ag

    sim = v.simulate(summeval, "uniform", reps=1, looks=4, seed=2)
    k = 1  # 120 labels of 12 systems: shrunk
    frame = pd.read_csv(v.SUMMEVAL)
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    lab = np.zeros(summeval.n, bool)
    lab[sim.order[0, : int(sim.labels[k])]] = True
    pool = EvalPool.from_frame(
        frame.assign(label=np.where(lab, summeval.y, np.nan)), label="label", judges=judges,
        outcome="continuous", group="system", item="item",
    )  # fmt: skip
    tab = Calibrator(engine="freq", seed=0).fit(pool).estimate_groups(simultaneous=False)
    assert tab.details["pooling"] == "shrink"
    names = list(summeval.groups)
    rows = [names.index(n) for n in tab.names]
    sizes = np.bincount(summeval.g).astype(float)[rows]
    counts = sim.group_n[0][rows][:, : k + 1]
    info = at.effective_labels(counts, sizes[:, None])
    budget = int(sim.labels[-1])
    times = sim.labels / sim.labels[-1]
    for kind, most in (("alpha-spending", budget), ("confidence sequence", None)):
        pkg = at.anytime_table(tab, info, sim.labels[: k + 1], max_labels=most)
        assert pkg.details["anytime"]["own_floor"]  # the floor moved some end
        for i, h in enumerate(rows):
            fields = [x[:, h] for x in sim.group]
            e, se, df, tc, lo, hi = fields[:6]
            every = at.effective_labels(sim.group_n[:, h], float(sizes[i]))
            c = v.critical(every, times)[kind]
            c2 = v.critical(every, times, 2 * v.ALPHA)[kind]
            f = v.anytime_half(tc, df, c) / tc
            low, high = ag.own_floor(f * lo, f * hi, c2, fields)
            assert e[0, k] - low[0, k] * se[0, k] == pytest.approx(pkg.ci_low[i], abs=1e-8)
            assert e[0, k] + high[0, k] * se[0, k] == pytest.approx(pkg.ci_high[i], abs=1e-8)
    # the differences: the harness's every pair (Looks.pairs, its own floor by
    # anytime_groups.pair_floor) against anytime_table on the shrunk differences
    diffs = shrunk_differences(tab, simultaneous="none")
    pairs = [(rows.index(names.index(x)), rows.index(names.index(y))) for x, y in
             (name.split(" - ") for name in diffs.names)]  # fmt: skip
    every = list(itertools.combinations(range(len(names)), 2))
    kind, most = "alpha-spending", budget
    pkg = at.anytime_table(diffs, at.pair_information(info, pairs), sim.labels[: k + 1],
                           max_labels=most)  # fmt: skip
    assert pkg.details["anytime"]["own_floor"]
    for r, (i, j) in enumerate(pairs):
        ha, hb = rows[i], rows[j]
        p = every.index((min(ha, hb), max(ha, hb)))
        e, se, lo, hi = (x[:, p] for x in sim.pairs)
        if ha > hb:  # the harness holds b - a
            e, lo, hi = -e, hi, lo
        d_info = 1 / (1 / at.effective_labels(sim.group_n[:, ha], float(sizes[i]))
                      + 1 / at.effective_labels(sim.group_n[:, hb], float(sizes[j])))  # fmt: skip
        f = v.critical(d_info, times)[kind] / stats.norm.isf(v.ALPHA / 2)
        low, high = ag.pair_floor(f * lo, f * hi, v.critical(d_info, times, 2 * v.ALPHA)[kind],
                                  e, se, [x[:, ha] for x in sim.group],
                                  [x[:, hb] for x in sim.group])  # fmt: skip
        assert e[0, k] - low[0, k] * se[0, k] == pytest.approx(pkg.ci_low[r], abs=1e-8)
        assert e[0, k] + high[0, k] * se[0, k] == pytest.approx(pkg.ci_high[r], abs=1e-8)


@pytest.mark.parametrize("design", ["stratified", "adaptive"])
def test_pool_mean_rule_is_the_package_s_under_drifting_probabilities(
    summeval: v.Table, design: str
) -> None:
    """Under stratified and adaptive waves each look's boundary is on the looks' own
    correlation as the package reads it at that look (every earlier look's residuals
    weighed by the latest probabilities): the harness's pool-mean ends are the package's
    from look 3 on (at looks 1-2 the two fixed intervals may differ by up to 2.5%). The
    canonical boundary is 0.45% off here; the looks' cosines unweighted by the latest
    probabilities are within 1e-4, too close for this test to tell."""
    from benchmarks import anytime_pool_misses as pm

    diff, lo, hi, _ = pm.package_ratios(summeval, design, sequences=1, looks=5, seed=0)
    assert np.abs(diff).max() < 1e-10
    for ratio in (lo, hi):
        assert np.abs(ratio[:, 2:] - 1).max() < 1e-3, ratio
        assert np.abs(ratio[:, :2] - 1).max() < 0.03, ratio
