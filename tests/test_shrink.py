"""Group means shrunk toward the pool's correction (issue 40): the robust EB critical
value against a linear program, coverage of the shrunk intervals on known truth (too low
and too wide both fail), the per-group floor, and sparse groups that no longer block."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes import estimate as est
from bacon_bayes.cli import main
from bacon_bayes.estimate import robust_ebci, shrink


def _lp_noncoverage(t: float, kappa: float, chi: float) -> float:
    """The worst average non-coverage over distributions on a fine grid (linear program)."""
    top = max(4 * (chi + 1) ** 2, 4 * t, kappa * t if np.isfinite(kappa) else 0)
    xs = np.unique(np.concatenate([np.linspace(0, top, 3000), [t]]))
    r = robust_ebci.noncoverage(xs, chi)
    ub = ([xs**2], [kappa * t * t]) if np.isfinite(kappa) else (None, None)
    res = optimize.linprog(
        -r, A_ub=ub[0], b_ub=ub[1], A_eq=[np.ones_like(xs), xs], b_eq=[1, t], method="highs"
    )
    return -res.fun


@pytest.mark.parametrize(
    "t, kappa, chi",
    [(0.5, np.inf, 2.0), (4.0, np.inf, 3.0), (1.0, 3.0, 2.2), (0.2, 10.0, 2.0), (10.0, 2.0, 4.5)],
)
def test_worst_noncoverage_matches_a_linear_program(t, kappa, chi):
    assert robust_ebci.max_noncoverage(t, kappa, chi) == pytest.approx(
        _lp_noncoverage(t, kappa, chi), abs=2e-5
    )


def test_critical_value_solves_the_worst_case_and_grows_with_the_bias():
    z = stats.norm.isf(0.025)
    assert robust_ebci.critical_value(0.0, 3.0, 0.05) == pytest.approx(z)
    chi = robust_ebci.critical_value(2.0, 3.0, 0.05)
    # rounded up to the 1% grid of t: at most the level, and close to it
    assert 0.045 < robust_ebci.max_noncoverage(2.0, 3.0, chi) <= 0.05 + 1e-6
    assert z < robust_ebci.critical_value(1.0, 3.0, 0.05) < chi
    assert chi < robust_ebci.critical_value(2.0, 10.0, 0.05)


def _draw(rng, effects, n_items=80, frac=0.06, sd=1.0):
    m = effects.size
    g = np.repeat(np.arange(m), n_items)
    f = rng.normal(3.0, 1.0, g.size)
    y = f + 0.2 + effects[g] + rng.normal(0.0, sd, g.size)
    lab = rng.random(g.size) < frac
    return y, f, g, lab


def _coverage(effects, draws=200, seed=1):
    rng = np.random.default_rng(seed)
    m = effects.size
    cover, width, err, sep_err = np.zeros(m), [], [], []
    for _ in range(draws):
        y, f, g, lab = _draw(rng, effects)
        truth = np.bincount(g, weights=y) / np.bincount(g)
        names = np.array([f"S{k:02d}" for k in range(m)])[g]
        table = est.shrunk_group_means(np.where(lab, y, np.nan), f, names, pi=lab.mean())
        cover += (table.ci_low <= truth) & (truth <= table.ci_high)
        width.append(np.mean(table.ci_high - table.ci_low))
        own = np.array(table.details["own_estimate"], dtype=float)
        err.append(np.where(np.isnan(own), np.nan, table.estimate - truth))
        sep_err.append(own - truth)
    rmse = np.sqrt(np.nanmean(np.square(err)))
    return cover / draws, np.mean(width), rmse, np.sqrt(np.nanmean(np.square(sep_err))), err


def test_shrunk_intervals_cover_on_average_and_not_too_widely():
    """Ten groups of 80 items, 6% labels (about 5 a group; 1-2 in some draws), group
    effects of spread 0.3 against a residual sd of 1: over 200 draws the intervals cover
    0.95-0.99 on average (the robust EB average, made a little conservative by each
    group's own 90% interval), every group at least 0.90, and the shrunk means have a
    smaller error than the groups' own AEE means and no bias."""
    effects = np.linspace(-0.45, 0.45, 10)
    cover, _width, rmse, sep_rmse, err = _coverage(effects)
    assert 0.95 <= cover.mean() <= 0.99, cover
    assert cover.min() >= 0.90, cover
    assert rmse < 0.8 * sep_rmse
    # shrinkage pulls the extreme groups in; over the groups the error averages out
    assert abs(np.nanmean(err)) < 0.03


def test_an_outlying_group_keeps_its_own_floor():
    """One group 1.5 (five spreads) off the others: plain shrinkage would cover it rarely;
    the floor (its own AEE interval at 90%) keeps it near 0.9."""
    effects = np.r_[np.linspace(-0.2, 0.2, 9), 1.5]
    cover = _coverage(effects, draws=200, seed=2)[0]
    assert cover[-1] >= 0.86, cover
    saved = shrink.floor_alpha
    try:
        shrink.floor_alpha = lambda alpha: 0.999  # no floor: the outlier is missed
        assert _coverage(effects, draws=100, seed=2)[0][-1] < 0.7
    finally:
        shrink.floor_alpha = saved


def test_groups_whose_labels_agree_within_each_get_intervals():
    """0/1 labels, all 0 in two groups and all 1 in two others (a messy table's few
    labels, issue 43): no spread within any group; the labels-only means borrowed the
    spread of the residuals (it was 0, and brentq raised on a NaN)."""
    groups = np.repeat(np.array(["M1", "M2", "M3", "M4"]), 28)
    labeled = np.zeros(groups.size, bool)
    labeled[[0, 28, 29, 56, 57, 58, 59, 84, 85, 86]] = True
    y = np.where(labeled, (groups == "M3") | (groups == "M4"), np.nan).astype(float)
    table = shrink.shrunk_group_means(y, np.zeros(groups.size), groups, labeled)
    df = table.to_frame()
    assert np.isfinite(df[["ci_low", "ci_high"]].to_numpy()).all(), df
    assert ((df.ci_low <= df.estimate) & (df.estimate <= df.ci_high)).all(), df
    assert (df.ci_high - df.ci_low > 0.2).all(), df  # one to four equal labels: wide


def test_wholly_labeled_groups_beside_sparse_ones_shrink():
    """Two systems labeled whole (their means known: variance 0 for the pool) beside two
    with few labels, as a study reaches after a large wave (issue 43's walk): the spread's
    root finder met 1/0 and raised, and the prior's fit divided 0 by 0."""
    rng = np.random.default_rng(0)
    g = np.repeat(["A", "B", "C", "D"], 20)
    y = rng.random(80)
    j = y + rng.normal(0, 0.2, 80)
    lab = np.r_[np.ones(40, bool), rng.random(40) < 0.5]
    df = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": j, "k": j + rng.normal(0, 0.3, 80),
                       "g": g})  # fmt: skip
    pool = EvalPool.from_frame(df, label="y", judges=["j", "k"], group="g", outcome="continuous")
    cal = Calibrator(engine="freq", scale=(0, 1)).fit(pool)
    for method in ("aee", "classical"):
        table = cal.estimate_groups(0.05, True, method).to_frame().set_index("name")
        assert table.loc[["A", "B"], "estimate"].to_numpy() == pytest.approx(
            [y[:20].mean(), y[20:40].mean()]
        )
        assert (table.loc[["A", "B"], "ci_high"] - table.loc[["A", "B"], "ci_low"]).max() < 1e-9
        sparse = table.loc[["C", "D"]]
        assert ((sparse.ci_low < sparse.estimate) & (sparse.estimate < sparse.ci_high)).all()


def test_groups_without_labels_and_pairs_say_why():
    rng = np.random.default_rng(5)
    y, f, g, lab = _draw(rng, np.zeros(6), frac=0.1)
    lab &= g != 5  # group S05 has no label
    one = np.flatnonzero(g == 4)
    lab[one] = False
    lab[one[0]] = True  # group S04 has one
    names = np.array([f"S{k:02d}" for k in range(6)])[g]
    table = est.shrunk_group_means(np.where(lab, y, np.nan), f, names, pi=lab.mean())
    assert np.isnan(table.ci_low[5]) and "UNVALIDATED" in table.notes[5]
    assert np.isfinite(table.ci_low[:5]).all() and table.notes[4] == ""
    diffs = est.compare(table)
    assert diffs.details["guarantee"].startswith("on average over pairs")
    with_s05 = [k for k, p in enumerate(diffs.details["pairs"]) if "S05" in p]
    assert np.isnan(diffs.ci_low[with_s05]).all() and np.isfinite(diffs.estimate).all()
    # a withheld pair has no se, as its group without labels has none (the covariance
    # there is the groups' prior spread, kept in cov, not an se; tester A s36 finding 13)
    assert np.isnan(diffs.se[with_s05]).all() and np.isnan(table.se[5])
    assert np.isfinite(np.delete(diffs.se, with_s05)).all()
    assert np.isfinite(np.delete(diffs.ci_low, with_s05)).all()
    joint = est.shrunk_group_means(
        np.where(lab, y, np.nan), f, names, pi=lab.mean(), simultaneous="maxt"
    )
    wider = (joint.ci_high - joint.ci_low)[:5] > (table.ci_high - table.ci_low)[:5]
    assert wider.all() and joint.details["guarantee"].startswith("family-wise")
    # one pair alone (the anytime harness's) is the table's row
    for k, pair in enumerate(diffs.details["pairs"][:10]):
        if k in with_s05:
            continue
        a, b = (table.names.index(n) for n in pair)
        assert shrink.shrunk_pair(table, a, b) == pytest.approx(
            (diffs.estimate[k], diffs.se[k], diffs.ci_low[k], diffs.ci_high[k])
        )


@pytest.fixture(scope="module")
def sparse_frame():
    """The shipped SummEval sample at 2% labels: 24 labels over 12 systems, two with none."""
    frame = pd.read_csv("bacon_bayes/data/summeval_sample.csv.gz")
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    keep = frame[["item", "system", "expert_mean_relevance", *judges]].copy()
    lab = np.random.default_rng(3).random(len(keep)) < 0.02
    keep.loc[~lab, "expert_mean_relevance"] = np.nan
    return keep, judges


def test_calibrator_answers_every_group_with_a_label(sparse_frame):
    """Today's code raised ValidationError here (a system with 1 label)."""
    frame, judges = sparse_frame
    pool = EvalPool.from_frame(
        frame, label="expert_mean_relevance", judges=judges, group="system", outcome="continuous"
    )
    cal = Calibrator(engine="freq", scale=(1, 5)).fit(pool)
    assert cal.pooling_for() == "shrink"
    table = cal.estimate_groups(simultaneous=False)
    n_lab = table.n_labeled
    assert (n_lab == 0).sum() == 2 and (n_lab == 1).sum() >= 1
    assert np.isfinite(table.ci_low[n_lab > 0]).all()
    assert np.isnan(table.ci_low[n_lab == 0]).all()
    diffs = cal.compare_groups(simultaneous=False)
    answered = np.isfinite(diffs.ci_low).mean()
    assert answered == pytest.approx(45 / 66)  # pairs of the 10 systems with labels
    ranks = cal.rank_groups()
    assert len(ranks) == 12
    separate = cal.estimate_groups(pooling="separate")
    assert separate.details["guarantee"] == "family-wise, each on its own (all hold together)"
    # the two joint guarantees read apart (W9: both said "family-wise (...)" in auto's note)
    joint = cal.estimate_groups().details["guarantee"]
    assert joint.startswith("family-wise on average (") and "1 - 2 alpha/K" in joint
    assert len(separate) == 12
    # printed, a shrunk table says its rows' guarantee (not each row's alone) and interval
    assert "holding on average over groups" in str(table) and "robust EBCI" in str(table)
    assert "shrunk" not in str(separate)


def test_cli_estimate_and_report_keep_every_system(sparse_frame, tmp_path, capsys):
    """Today `bacon estimate` dropped every per-system row and `bacon report` exited 2."""
    frame, judges = sparse_frame
    path = tmp_path / "sparse.csv"
    frame.to_csv(path, index=False)
    args = ["--label", "expert_mean_relevance", "--group", "system", "--scale", "1:5"]
    args += [a for j in judges for a in ("--judge", j)]
    assert main(["estimate", str(path), *args, "--engine", "freq"]) == 0
    out = capsys.readouterr().out
    assert "skipped" not in out
    assert "valid on average over the groups" in out or "jointly valid" in out
    assert "M9" in out.split("mean per 'system'")[1] and "UNVALIDATED" in out
    page = tmp_path / "r.html"
    assert main(["report", str(path), *args, "--engine", "freq", "--out", str(page)]) == 0
    assert "robust empirical-Bayes" in page.read_text()


def test_pooling_is_saved_with_the_calibrator(sparse_frame, tmp_path):
    frame, judges = sparse_frame
    pool = EvalPool.from_frame(
        frame, label="expert_mean_relevance", judges=judges, group="system", outcome="continuous"
    )
    cal = Calibrator(engine="freq", scale=(1, 5), pooling="separate").fit(pool)
    back = Calibrator.load(cal.save(tmp_path / "c.nc"))
    assert back.pooling == "separate" and back.pooling_for() == "separate"
    a, b = cal.estimate_groups(), back.estimate_groups()
    np.testing.assert_array_equal(a.estimate, b.estimate)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)


def test_several_surrogates_shrink_like_their_combination():
    """With two surrogates (the Bayesian engine's posterior mean and the judge mean) the
    weights are tuned on all labels; fixing them gives the one-surrogate table of their
    weighted sum."""
    rng = np.random.default_rng(7)
    y, f, g, lab = _draw(rng, np.linspace(-0.3, 0.3, 8), frac=0.08)
    f2 = np.column_stack([f, f + rng.normal(0, 1, f.size)])
    names = np.array([f"S{k:02d}" for k in range(8)])[g]
    yy = np.where(lab, y, np.nan)
    two = est.shrunk_group_means(yy, f2, names, pi=lab.mean())
    lam = np.asarray(two.details["power_lambda"])
    one = est.shrunk_group_means(yy, f2 @ lam, names, pi=lab.mean(), power_tuning=False)
    np.testing.assert_allclose(two.estimate, one.estimate, rtol=1e-10)
    assert np.all(two.ci_high - two.ci_low >= (one.ci_high - one.ci_low) * 0.999)


def _two_never_labeled(rename: dict[str, str] | None = None) -> EvalPool:
    """12 systems of 100 items, s0 a point above the rest, 30% labeled but for s10 and s11,
    which no one labeled; ``rename``: systems given other names."""
    rng = np.random.default_rng(0)
    g = np.repeat([f"s{i}" for i in range(12)], 100)
    y = rng.normal(size=g.size) + (g == "s0")
    lab = (rng.random(g.size) < 0.3) & ~np.isin(g, ["s10", "s11"])
    frame = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": y + rng.normal(size=g.size), "g": g})
    frame["g"] = frame["g"].replace(rename or {})
    return EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous", group="g")


def test_every_separate_table_and_comparison_states_its_own_guarantee():
    """Finding A14: separate tables said "per group" also when simultaneous (family-wise),
    and separate comparisons said nothing (None)."""
    cal = Calibrator(engine="freq", pooling="separate").fit(_two_never_labeled())
    joint = "family-wise, each on its own (all hold together)"
    for sim, group, pair in ((True, joint, joint), (False, "per group", "per pair")):
        assert cal.estimate_groups(simultaneous=sim).details["guarantee"] == group
        assert cal.compare_groups(simultaneous=sim).details["guarantee"] == pair
        naive = cal.estimate_groups(simultaneous=sim, method="naive")
        assert naive.details["guarantee"] == group


def test_population_target_with_prompts_says_why_groups_stay_separate(tmp_path, capsys):
    """Finding A11: with --target population (intervals clustered by prompt) `auto` kept
    the groups separate without a word, 8 of 10 groups losing their intervals; an explicit
    --pooling shrink there ran silently. Both now say why, in the table and the text."""
    rng = np.random.default_rng(1)
    g = np.repeat([f"s{i}" for i in range(10)], 60)
    prompt = np.tile(np.arange(60), 10)
    y = rng.normal(size=60)[prompt] + rng.normal(size=g.size)
    lab = rng.random(g.size) < np.where(np.isin(g, ["s0", "s1"]), 0.5, 0.05)
    frame = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": y + rng.normal(size=g.size),
                          "g": g, "doc": prompt})  # fmt: skip
    pool = EvalPool.from_frame(
        frame, label="y", judges=["j"], outcome="continuous", group="g", prompt="doc"
    )
    # the pool target: auto's own choice said (tester A finding 9), not the clustering
    for target, note in (("pool", "pooling 'auto' chose 'shrink'"),
                         ("population", "kept each group's own mean")):  # fmt: skip
        table = Calibrator(engine="freq", target=target).fit(pool).estimate_groups()
        assert note in table.details["pooling_note"], target
    shrunk = Calibrator(engine="freq", target="population", pooling="shrink").fit(pool)
    assert "pooling 'shrink' asked for" in shrunk.estimate_groups().details["pooling_note"]
    frame.to_csv(tmp_path / "t.csv", index=False)
    read = ["--label", "y", "--judge", "j", "--group", "g", "--prompt", "doc"]
    assert main(["estimate", str(tmp_path / "t.csv"), *read, "--engine", "freq",
                 "--target", "population"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "note: pooling 'auto' kept each group's own mean (separate)" in out
    assert "the groups share prompts" in out and "--target pool" in out


def test_groups_without_labels_leave_the_others_separate():
    """WMT22 as shipped: six systems without a label beside 14 of 1,118 each. The groups
    without labels get no interval either way, yet `auto` shrank all 14 (each then held
    only on average over the groups); now it keeps them separate, each on its own."""
    assert shrink.choose_pooling("auto", np.array([0] * 6 + [1118] * 14)) == "separate"
    assert shrink.choose_pooling("auto", np.array([0, 3] + [40] * 10)) == "shrink"
    table = Calibrator(engine="freq").fit(_two_never_labeled()).estimate_groups(simultaneous=False)
    assert table.details["guarantee"] == "per group"
    assert np.isfinite(table.ci_low[:10]).all() and np.isnan(table.ci_low[10:]).all()


def test_a_group_without_labels_that_could_rank_first_is_marked(capsys):
    """`could rank first: s0, s11, s10` put two systems no human rated beside the leader, as
    if they were close: their rank intervals span every rank because nothing is known of
    them. They are marked."""
    from bacon_bayes.report.comparisons import comparisons

    line = comparisons(Calibrator(engine="freq").fit(_two_never_labeled()), 0.05, "g").best_line()
    assert "could rank first: s0, s1" in line and line.count("(no labels)") == 2, line


def test_could_rank_first_quotes_a_group_name_holding_a_comma():
    """Tester D finding 2: `could rank first: refA, Lan, Bridge, Online-Y` read as four
    systems where 'Lan, Bridge' is one. Names holding a comma or semicolon are quoted."""
    from bacon_bayes.report.comparisons import comparisons

    renamed = _two_never_labeled({"s0": "Lan, Bridge", "s11": "W;x"})
    line = comparisons(Calibrator(engine="freq").fit(renamed), 0.05, "g").best_line()
    assert "could rank first: 'Lan, Bridge', " in line, line
    assert "'W;x' (no labels)" in line, line


def test_the_labels_only_column_is_each_groups_own_labels_mean(tmp_path, capsys):
    """T1 finding 1: where 'auto' shrinks the AEE group means (a group under 10 labels),
    the classical (labels only) column was the labels shrunk toward the pool's label mean
    too (TriviaQA, mistral-7b-chat's 3 of 12 = 0.25 printed as 0.49). It is each group's
    own labels' mean now, the note under the table says so, and an explicit
    pooling='shrink' still shrinks it (said as well); the streamed estimate agrees."""
    rng = np.random.default_rng(3)
    y, f, g, lab = _draw(rng, np.array([-1.5, -0.5, 0.0, 0.5, 1.5]), frac=0.1)
    names = np.array([f"S{k}" for k in g])
    df = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": f, "g": names})
    own = df.groupby("g")["y"].mean()
    assert df.groupby("g")["y"].count().min() < 10  # auto shrinks the AEE
    pool = EvalPool.from_frame(df, label="y", judges=["j"], group="g", outcome="continuous")
    cal = Calibrator(engine="freq").fit(pool)
    assert cal.estimate_groups().details["pooling"] == "shrink"
    table = cal.estimate_groups(method="classical").to_frame().set_index("name")
    assert table["estimate"].to_numpy() == pytest.approx(own[table.index].to_numpy())
    shrunk = cal.estimate_groups(method="classical", pooling="shrink")
    assert shrunk.details["pooling"] == "shrink"
    assert np.abs(shrunk.estimate - own[list(shrunk.names)].to_numpy()).max() > 0.05
    path = tmp_path / "g.csv"
    df.to_csv(path, index=False)
    argv = ["estimate", str(path), "--label", "y", "--judge", "j", "--group", "g",
            "--engine", "freq"]  # fmt: skip
    for extra, said in (
        ((), "classical (labels only): each group's own labels' mean, not shrunk like the AEE"),
        (("--pooling", "shrink"), "classical (labels only): the groups' labels shrunk toward"),
    ):
        assert main([*argv, *extra]) == 0
        assert f"note: {said}" in capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["groups"]["classical"]["rows"]
    assert [r["estimate"] for r in rows] == pytest.approx(own[[r["name"] for r in rows]].to_list())
    folder = tmp_path / "ds"  # a dataset folder: streamed
    folder.mkdir()
    df.to_parquet(folder / "part-0.parquet")
    assert main(["estimate", str(folder), *argv[2:], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["streamed"] and out["groups"]["aee"]["details"]["pooling"] == "shrink"
    rows = out["groups"]["classical"]["rows"]
    assert [r["estimate"] for r in rows] == pytest.approx(own[[r["name"] for r in rows]].to_list())


def test_wholly_labeled_domain_is_drawn_with_probability_exactly_one():
    """Conditioning on each domain's labels rescaled 30/630 by 2/(60/630): 1 - 1e-16 for a
    two-item system labeled whole, which left its variance at 1e-17 instead of 0 (and the
    robust critical value's root finder without a root, finding 14)."""
    from bacon_bayes.estimate.core import _prepare

    codes = np.r_[np.repeat(np.arange(6), 100), np.repeat(np.arange(6, 12), 2)]
    labeled = np.zeros(codes.size, bool)
    for k in range(6):
        labeled[k * 100 : k * 100 + 3] = True
    labeled[600:] = True
    y = np.where(labeled, 3.0, np.nan)
    pi_lab = _prepare(y, None, None, None, True, codes)[2]
    assert (pi_lab[codes[labeled] >= 6] == 1.0).all()
    assert pi_lab[codes[labeled] < 6] == pytest.approx(0.03)


def test_critical_value_at_a_vanishing_bias_is_the_normal_one():
    """t = 3e-16 (a contrast whose noise all but vanishes): the miss rate at the normal
    value is alpha to rounding; brentq found no sign change and raised."""
    alpha = 0.05 / 12
    z = stats.norm.isf(alpha / 2)
    assert robust_ebci.critical_value(2.9363711385162047e-16, 9.03, alpha) == pytest.approx(z)


def test_small_systems_labeled_whole_beside_sparse_ones_get_exact_means():
    """Finding 14's design: six 100-item systems with 3 labels each beside six 2-item
    systems labeled whole. Every draw gives a table (pointwise, simultaneous and the
    comparisons), the whole systems their exact means with zero-width intervals, the sparse
    ones finite intervals around their estimates."""
    rng = np.random.default_rng(55)
    codes = np.r_[np.repeat(np.arange(6), 100), np.repeat(np.arange(6, 12), 2)]
    names = np.array([f"M{k}" for k in range(12)])[codes]
    for _ in range(8):
        f = rng.normal(3.5, 0.6, codes.size)
        y = np.clip(np.round(3 * (f + rng.normal(0, 0.5, codes.size))) / 3, 1, 5)
        labeled = codes >= 6
        for k in range(6):
            labeled[rng.choice(np.flatnonzero(codes == k), 3, replace=False)] = True
        ylab = np.where(labeled, y, np.nan)
        for how in ("none", "maxt"):
            table = shrink.shrunk_group_means(ylab, f, names, simultaneous=how)
            whole = np.arange(6, 12)
            exact = np.bincount(codes, weights=y)[whole] / 2
            assert table.estimate[whole] == pytest.approx(exact)
            assert (table.ci_high[whole] - table.ci_low[whole]).max() < 1e-9
            sparse = np.arange(6)
            assert (table.ci_low[sparse] < table.estimate[sparse]).all()
            assert (table.estimate[sparse] < table.ci_high[sparse]).all()
            diffs = shrink.shrunk_differences(table)
            assert np.isfinite(diffs.ci_low).all() and np.isfinite(diffs.ci_high).all()


@pytest.mark.parametrize("pooling", ["separate", "shrink"])
def test_groups_labeled_whole_have_their_exact_mean_in_every_column(pooling):
    """A 3-item and a 1-item system labeled whole beside sparse ones (finding 4): for the
    pool's items their label mean is their mean, width 0, in the AEE and the classical
    (labels-only) columns alike, not "fewer than 5 labels" or "1 label: no variance of its
    own"; their pairs compare. For a population they stay samples: no interval."""
    rng = np.random.default_rng(3)
    g = np.repeat(["A", "B", "C", "D", "E"], [40, 40, 40, 3, 1])
    j = rng.normal(3.0, 1.0, g.size)
    y = j + rng.normal(0, 0.5, g.size)
    lab = np.r_[rng.random(120) < 0.25, np.ones(4, bool)]
    df = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": j, "k": j + rng.normal(0, 0.4, g.size),
                       "g": g})  # fmt: skip
    pool = EvalPool.from_frame(df, label="y", judges=["j", "k"], group="g", outcome="continuous")
    for target in ("pool", "population"):
        cal = Calibrator(engine="freq", pooling=pooling, target=target).fit(pool)
        for method in ("aee", "classical"):
            table = cal.estimate_groups(0.05, False, method).to_frame().set_index("name")
            whole = table.loc[["D", "E"]]
            if target == "pool":
                assert whole.estimate.to_numpy() == pytest.approx([y[120:123].mean(), y[123]])
                assert (whole.ci_high - whole.ci_low).max() < 1e-9, table
                assert (whole.ci_low - whole.estimate).abs().max() < 1e-9, table
            elif pooling == "separate":
                assert whole.ci_low.isna().all(), table
        if target == "pool":
            diffs = cal.compare_groups(0.05, True).to_frame().set_index("name")
            assert diffs.loc["D - E", "estimate"] == pytest.approx(y[120:123].mean() - y[123])
            assert diffs.loc["D - E", "ci_high"] - diffs.loc["D - E", "ci_low"] < 1e-9
