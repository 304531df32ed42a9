"""Every group against one baseline (``compare(..., baseline=)``, ``bacon estimate
--baseline``): Dunnett's joint intervals over the ``m - 1`` differences that share the
baseline, narrower than all pairs', in the Monte Carlo band; every branch of ``compare``
works with a baseline or refuses it with the reason."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool, ValidationError
from bacon_bayes import estimate as est
from bacon_bayes.cli import main
from bacon_bayes.estimate.differences import RESAMPLED, T_BASIS, T_DF_BASIS
from bacon_bayes.estimate.shrink import shrunk_group_means
from bacon_bayes.results import EstimateTable
from bacon_bayes.simulation.montecarlo import coverage_band
from tests.interval_checks import assert_two_sided
from tests.test_anytime import _kw as anytime_kw
from tests.test_anytime import _pool as anytime_pool
from tests.test_bradley_terry import _frame as pairs_frame
from tests.test_calibrator import write_summeval

M, PER, LABELS = 8, 150, 30
NAMES = np.array([f"S{k}" for k in range(M)])


def _world(seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Eight systems of 150 items: labels with heavy-ish tails, a judge that sees them with
    noise; returns each item's system name and code, its label and its judge score."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(M), PER)
    y = np.linspace(3.0, 3.7, M)[g] + rng.normal(0, 1.0, g.size) + 0.3 * rng.standard_t(4, g.size)
    return NAMES[g], g, y, y + rng.normal(0, 0.8, g.size)


def _draw(rng: np.random.Generator, g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The labels of 30 items drawn from each system (NaN elsewhere)."""
    lab = np.zeros(y.size, dtype=bool)
    for k in range(M):
        lab[rng.choice(np.flatnonzero(g == k), LABELS, replace=False)] = True
    return np.where(lab, y, np.nan)


def _rows_of_all_pairs(base: EstimateTable, every: EstimateTable) -> tuple[np.ndarray, np.ndarray]:
    """For each baseline row ``g - B``: its row among all pairs and the sign (``-1`` where
    the all-pairs row is ``B - g``)."""
    rows, signs = [], []
    for a, b in base.details["pairs"]:
        same = f"{a} - {b}" in every.names
        rows.append(every.names.index(f"{a} - {b}" if same else f"{b} - {a}"))
        signs.append(1.0 if same else -1.0)
    return np.array(rows), np.array(signs)


def _assert_pointwise_rows_are_all_pairs(table: EstimateTable, baseline: str) -> None:
    """Pointwise, each baseline row is all pairs' row of its two groups (negated where the
    baseline comes first)."""
    base = est.compare(table, simultaneous="none", baseline=baseline)
    every = est.compare(table, simultaneous="none")
    rows, sign = _rows_of_all_pairs(base, every)
    np.testing.assert_allclose(base.estimate, sign * every.estimate[rows], rtol=1e-12)
    low = np.where(sign > 0, every.ci_low[rows], -every.ci_high[rows])
    high = np.where(sign > 0, every.ci_high[rows], -every.ci_low[rows])
    np.testing.assert_allclose(base.ci_low, low, rtol=1e-10, equal_nan=True)
    np.testing.assert_allclose(base.ci_high, high, rtol=1e-10, equal_nan=True)


def _baseline_draws(reps: int):
    """``reps`` draws of 30 labels per system, the default (bootstrap) branch: each draw's
    differences from S1 (Dunnett's), all pairs' table and the pointwise differences from
    S1, with the true differences from S1."""
    names, g, y, f = _world()
    truth = np.bincount(g, weights=y) / PER
    want = np.array([truth[k] - truth[1] for k in range(M) if k != 1])
    rng = np.random.default_rng(7)
    for _ in range(reps):
        table = est.aee_group_means(_draw(rng, g, y), f, names)
        base = est.compare(table, baseline="S1")
        assert base.details["critical_basis"] == RESAMPLED
        alone = est.compare(table, simultaneous="none", baseline="S1")
        yield base, est.compare(table), alone, want


@pytest.mark.slow
def test_joint_coverage_of_the_baseline_differences_is_in_the_band() -> None:
    """600 draws of ``_baseline_draws``: the 7 differences from S1 cover jointly inside the
    99% binomial band of 0.95 (0.925-0.972). The test fails both ways: all pairs' critical
    value on the same rows (joint over 28) covers above the band, each row's pointwise
    interval below it."""
    reps = 600
    dunnett = all_pairs = pointwise = 0
    for base, every, alone, want in _baseline_draws(reps):
        dunnett += bool(np.all((base.ci_low <= want) & (want <= base.ci_high)))
        rows, _ = _rows_of_all_pairs(base, every)
        assert np.all(base.critical_value < every.critical_value[rows])
        wide = every.critical_value[rows] * base.se  # all pairs' critical value, these rows
        all_pairs += bool(np.all(np.abs(base.estimate - want) <= wide))
        pointwise += bool(np.all((alone.ci_low <= want) & (want <= alone.ci_high)))
    low, high = coverage_band(reps, 0.95, conf=0.99)
    assert low <= dunnett / reps <= high, (dunnett / reps, low, high)
    assert all_pairs / reps > high, all_pairs / reps  # too wide for this family
    assert pointwise / reps < low, pointwise / reps  # too narrow jointly


def test_baseline_differences_are_neither_too_wide_nor_too_narrow() -> None:
    """The fast check of the study above (``make validate``): 80 draws, Dunnett's joint
    intervals and each row's pointwise one (tests/interval_checks.py)."""
    got = list(_baseline_draws(80))
    want = got[0][3]
    for k, simultaneous in ((0, True), (2, False)):
        est_, lo, hi = (
            np.array([getattr(r[k], a) for r in got]) for a in ("estimate", "ci_low", "ci_high")
        )
        assert_two_sided(
            est_, lo, hi, want, 0.05, simultaneous=simultaneous, what=f"{simultaneous}"
        )


@pytest.mark.parametrize("interval", ["t", "bootstrap"])
def test_baseline_critical_value_is_below_all_pairs_and_pointwise_rows_are_the_same(
    interval: str,
) -> None:
    names, g, y, f = _world()
    table = est.aee_group_means(_draw(np.random.default_rng(1), g, y), f, names, interval=interval)
    assert table.details["interval"] == interval
    every = est.compare(table)
    for baseline in ("S0", "S3", "S7"):  # first, inside, last: the signs flip
        base = est.compare(table, baseline=baseline)
        others = [n for n in NAMES if n != baseline]
        assert base.names == tuple(f"{n} - {baseline}" for n in others)
        assert base.details["pairs"] == [[n, baseline] for n in others]
        assert base.details["baseline"] == baseline
        rows, sign = _rows_of_all_pairs(base, every)
        np.testing.assert_allclose(base.estimate, sign * every.estimate[rows], rtol=1e-12)
        np.testing.assert_allclose(base.se, every.se[rows], rtol=1e-12)
        assert np.all(base.critical_value < every.critical_value[rows])
        assert np.all(base.ci_high - base.ci_low < (every.ci_high - every.ci_low)[rows])
        _assert_pointwise_rows_are_all_pairs(table, baseline)
        # Bonferroni over the m - 1 rows: alpha / 7, not alpha / 28
        bonf = est.compare(table, baseline=baseline, simultaneous="bonferroni")
        assert np.all(bonf.critical_value < est.compare(table, simultaneous="bonferroni")
                      .critical_value[rows])  # fmt: skip
    basis = est.compare(table, baseline="S2").details.get("critical_basis")
    assert basis == (RESAMPLED if interval == "bootstrap" else None)


def test_bootstrap_branch_says_when_it_falls_back_to_the_t_basis() -> None:
    """The resamples hold the table's rule (max-|t|) and pointwise; Bonferroni asked of a
    max-|t| table, or resampled=False (anytime's basis), takes the Student-t and says so
    (the anytime basis on the df of the groups' variances, T_DF_BASIS)."""
    names, g, y, f = _world()
    table = est.aee_group_means(_draw(np.random.default_rng(2), g, y), f, names)
    assert est.compare(table, baseline="S1").details["critical_basis"] == RESAMPLED
    assert (
        est.compare(table, baseline="S1", simultaneous="none").details["critical_basis"]
        == RESAMPLED
    )
    for kw, said in (({"simultaneous": "bonferroni"}, T_BASIS), ({"resampled": False}, T_DF_BASIS)):
        diffs = est.compare(table, baseline="S1", **kw)
        assert diffs.details["critical_basis"] == said, kw
        assert np.isfinite(diffs.ci_low).all()


def test_an_unknown_baseline_is_refused_naming_the_groups_and_a_near_one() -> None:
    names, g, y, f = _world()
    table = est.aee_group_means(_draw(np.random.default_rng(1), g, y), f, names, interval="t")
    with pytest.raises(ValidationError, match=r"baseline 's3' is not one of the groups \('S0', "):
        est.compare(table, baseline="s3")
    with pytest.raises(ValidationError, match=r"Did you mean 'S3'\?"):
        est.compare(table, baseline="s3")
    shrunk = shrunk_group_means(_draw(np.random.default_rng(1), g, y), f, names)
    with pytest.raises(ValidationError, match="is not one of the groups"):
        est.compare(shrunk, baseline="nope")
    with pytest.raises(ValidationError, match="is not one of the groups"):
        est.compare(table, baseline=3)  # type: ignore[arg-type]


def test_groups_without_an_interval_block_nothing_and_a_bare_baseline_gives_none() -> None:
    """One system with a single label and one with none: their pairs keep the difference
    without an interval; the others' family is the answered groups' (here 5 rows against
    S1, not 7). A baseline without an interval leaves every row without one."""
    names, g, y, f = _world()
    yy = _draw(np.random.default_rng(4), g, y)
    yy[(g == 6) & np.isfinite(yy)] = np.nan  # S6: no labels
    first = np.flatnonzero((g == 7) & np.isfinite(yy))
    yy[first[1:]] = np.nan  # S7: one label
    table = est.aee_group_means(yy, f, names, interval="t")
    assert np.isnan(table.ci_low[6:]).all()
    base = est.compare(table, baseline="S1")
    assert base.names == tuple(f"S{k} - S1" for k in (0, 2, 3, 4, 5, 6, 7))
    assert np.isfinite(base.ci_low[:5]).all() and np.isnan(base.ci_low[5:]).all()
    assert np.isfinite(base.estimate).all()
    assert base.notes[5] == "a group of the pair has no interval"
    sub = est.compare(table.take(np.arange(6)), baseline="S1")
    assert len(sub) == 5
    np.testing.assert_allclose(base.ci_low[:5], sub.ci_low, rtol=1e-12)
    # joint over the 5 answered rows: below the 7 rows' of a table where all answer
    whole = est.compare(est.aee_group_means(_draw(np.random.default_rng(4), g, y), f, names,
                                            interval="t"), baseline="S1")  # fmt: skip
    assert base.critical_value[0] < whole.critical_value[0]
    assert base.details["baseline"] == "S1"
    bare = est.compare(table, baseline="S6")
    assert np.isnan(bare.ci_low).all() and np.isfinite(bare.estimate).all()
    assert bare.names[0] == "S0 - S6"


def test_shrunk_pooling_takes_the_family_of_the_baseline_comparisons() -> None:
    names, g, y, f = _world()
    table = shrunk_group_means(_draw(np.random.default_rng(5), g, y), f, names, simultaneous="maxt")
    base = est.compare(table, baseline="S2")
    every = est.compare(table)
    assert len(base) == M - 1 and base.details["pooling"] == "shrink"
    assert "the 7 against 'S2'" in base.details["guarantee"]
    assert "family-wise" in base.details["guarantee"]
    rows, sign = _rows_of_all_pairs(base, every)
    np.testing.assert_allclose(base.estimate, sign * every.estimate[rows], rtol=1e-12)
    # alpha / 7 each instead of alpha / 28: narrower
    assert np.all(base.ci_high - base.ci_low < (every.ci_high - every.ci_low)[rows])
    _assert_pointwise_rows_are_all_pairs(table, "S2")


def test_clustered_by_prompt_paired_design_compares_against_a_baseline() -> None:
    """Systems that answer the same prompts, target population: the covariance is
    clustered by prompt (correlated groups) and the prompts' rule is kept."""
    rng = np.random.default_rng(6)
    prompts, m = 60, 5
    prompt = np.repeat(np.arange(prompts), m)
    system = np.tile(np.arange(m), prompts)
    y = 0.2 * system + rng.normal(0, 1, prompts)[prompt] + rng.normal(0, 0.7, prompt.size)
    f = y + rng.normal(0, 0.6, y.size)
    lab = np.isin(prompt, rng.choice(prompts, 30, replace=False))
    yy = np.where(lab, y, np.nan)
    names = np.array([f"m{k}" for k in range(m)])[system]
    table = est.aee_group_means(yy, f, names, prompts=prompt, target="population")
    assert table.details.get("clustered_by_prompt")
    base = est.compare(table, baseline="m0")
    every = est.compare(table)
    assert "simultaneous_rule" in base.details and base.details["clustered_by_prompt"]
    rows, _ = _rows_of_all_pairs(base, every)
    assert np.all(base.critical_value < every.critical_value[rows])
    _assert_pointwise_rows_are_all_pairs(table, "m0")


def test_calibrator_anytime_and_classical_compare_against_a_baseline() -> None:
    pool = EvalPool.from_frame(anytime_pool(), wave="wave", **anytime_kw())
    cal = Calibrator(engine="freq").fit(pool)
    fixed = cal.compare_groups(baseline="A")
    assert fixed.names == ("B - A", "C - A") and fixed.details["baseline"] == "A"
    seq = cal.compare_groups(anytime=True, baseline="A")
    every = cal.compare_groups(anytime=True)
    assert seq.details["interval_kind"] == "confidence sequence"
    assert seq.names == fixed.names
    assert np.all(seq.ci_high - seq.ci_low > fixed.ci_high - fixed.ci_low)
    rows, _ = _rows_of_all_pairs(seq, every)
    assert np.all(seq.ci_high - seq.ci_low < (every.ci_high - every.ci_low)[rows])
    alone = cal.compare_groups(method="classical", baseline="C")
    assert alone.names == ("A - C", "B - C") and alone.method == "classical"
    shrunk = cal.compare_groups(pooling="shrink", baseline="B")
    assert "against 'B'" in shrunk.details["guarantee"]
    with pytest.raises(ValidationError, match=r"baseline 'a' is not one of the groups.*'A'"):
        cal.compare_groups(baseline="a")


def test_a_pool_of_comparisons_compares_strengths_against_a_baseline() -> None:
    df = pairs_frame(np.random.default_rng(4))
    kw = {"model_a": "left", "model_b": "right", "label": "vote", "judges": ["j1", "j2"]}
    pool = EvalPool.from_pairs(df, **kw)
    cal = Calibrator(engine="freq").fit(pool)
    base = cal.compare_groups(baseline="model3")
    every = cal.compare_groups()
    assert base.details["baseline"] == "model3" and len(base) == len(pool.pairs.names) - 1
    assert all(n.endswith(" - model3") for n in base.names)
    rows, sign = _rows_of_all_pairs(base, every)
    np.testing.assert_allclose(base.estimate, sign * every.estimate[rows], rtol=1e-12)
    assert np.all(base.critical_value < every.critical_value[rows])
    point = cal.compare_groups(simultaneous=False, baseline="model3")
    point_all = cal.compare_groups(simultaneous=False)
    low = np.where(sign > 0, point_all.ci_low[rows], -point_all.ci_high[rows])
    np.testing.assert_allclose(point.ci_low, low, rtol=1e-10)


def _cli_args(path) -> list[str]:
    return ["estimate", str(path), "--label", "label", "--judge", "judge:*|relevance",
            "--group", "system", "--item", "item", "--engine", "freq"]  # fmt: skip


def test_cli_estimate_baseline_prints_and_writes_the_baseline_comparisons(tmp_path, capsys):
    path, _ = write_summeval(tmp_path)
    systems = sorted(pd.read_csv(path)["system"].astype(str).unique())
    baseline = systems[0]
    assert main([*_cli_args(path), "--baseline", baseline, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["comparisons"]
    assert out["baseline"] == baseline and out["n_pairs"] == len(systems) - 1
    assert all(d["groups"][1] == baseline for d in out["differences"])
    assert f"over the {len(systems) - 1} comparisons with {baseline}" in out["family"]
    assert main([*_cli_args(path), "--json"]) == 0
    every = json.loads(capsys.readouterr().out)["comparisons"]
    assert every["baseline"] is None and every["n_pairs"] == len(systems) * (len(systems) - 1) // 2
    width = {d["name"]: d["ci_high"] - d["ci_low"] for d in every["differences"]}
    for d in out["differences"]:
        a, b = d["groups"]
        assert d["ci_high"] - d["ci_low"] < width.get(f"{a} - {b}", width.get(f"{b} - {a}"))
    assert main([*_cli_args(path), "--baseline", baseline]) == 0
    text = capsys.readouterr().out
    assert f"comparisons of 'system' against {baseline}" in text
    assert "the joint intervals hold together over the 11 comparisons with" in text
    assert f"comparisons with {baseline} resolved" in text


def test_cli_estimate_refuses_an_unknown_baseline_with_the_fix(tmp_path, capsys):
    path, _ = write_summeval(tmp_path)
    systems = sorted(pd.read_csv(path)["system"].astype(str).unique())
    assert main([*_cli_args(path), "--baseline", systems[0].lower()]) == 2
    err = capsys.readouterr().err
    assert "--baseline" in err and "is not a 'system' of the table" in err
    assert "Did you mean" in err and "Traceback" not in err
    # the example to pass is the name meant, not the first group (session 51's walk:
    # 'Online A (b)' was told "e.g. --baseline AISP-SJTU")
    assert f"e.g. --baseline {systems[0]}" in err, err
    args = [a for a in _cli_args(path) if a not in ("--group", "system")]
    assert main([*args, "--baseline", systems[0]]) == 2
    assert "pass --group COLUMN too" in capsys.readouterr().err
    assert main([*_cli_args(path), "--baseline", systems[0], "--chunk-rows", "500"]) == 2
    assert "--baseline is not streamed yet" in capsys.readouterr().err


def test_the_report_page_and_its_command_take_the_baseline(tmp_path, capsys):
    from bacon_bayes.report.html import render_report

    pool = EvalPool.from_frame(anytime_pool(), **anytime_kw())
    cal = Calibrator(engine="freq").fit(pool)
    page = render_report(cal, baseline="B")
    assert "Against B: the joint intervals hold together over the 2 comparisons with B" in page
    assert "of 2 comparisons with B resolved" in page and "A - B" in page
    assert "Against B:" not in render_report(cal)
    path, _ = write_summeval(tmp_path)
    out = tmp_path / "page.html"
    assert main(["report", *_cli_args(path)[1:], "--baseline", "M99", "--out", str(out)]) == 2
    assert "--baseline 'M99' is not a 'system'" in capsys.readouterr().err
    assert not out.exists()


def test_pairwise_baseline_refusal_gives_each_command_a_command_that_runs(tmp_path, capsys):
    """H1 item 2: ``--pairwise --baseline`` was refused with one hint for estimate and
    report alike, "here --difference A B gives one pair", no command to run. Now each
    command's refusal holds a whole command of its own on the user's file (the report's
    with its --out) that runs, the Python call for every model at once, and a baseline
    that is no model is named as such, with the nearest name."""
    import shlex
    from importlib.resources import files

    sample = str(files("bacon_bayes") / "data" / "arena_sample.csv.gz")
    page = str(tmp_path / "p.html")
    for command, extra in (("estimate", []), ("report", ["--out", page])):
        args = [command, sample, "--pairwise", "--baseline", "gpt-4", "--engine", "freq"]
        assert main([*args, *extra]) == 2
        err = capsys.readouterr().err
        assert "--baseline does not apply to --pairwise" in err
        assert "Calibrator.compare_groups(baseline='gpt-4')" in err
        run = err.split(": bacon ", 1)[1].split(";", 1)[0]
        words = shlex.split(run)
        assert words[0] == command and "--difference" in words and words[-1 if command ==
            "estimate" else -3] == "gpt-4"  # fmt: skip
        assert main(words) == 0
        out = capsys.readouterr().out
        assert "- gpt-4:" in out if command == "estimate" else "report written" in out
    assert main(["estimate", sample, "--pairwise", "--baseline", "gpt4"]) == 2
    err = capsys.readouterr().err
    assert "nor is 'gpt4' one of the 20 models" in err and "Did you mean 'gpt-4'?" in err


def _many_groups(tmp_path) -> str:
    """A table of MAX_COMPARED + 1 questions (the group), four items each, two labeled."""
    from bacon_bayes.estimate.tables import MAX_COMPARED

    rng = np.random.default_rng(0)
    n = 4 * (MAX_COMPARED + 1)
    y = rng.normal(size=n)
    frame = pd.DataFrame({"question": [f"q{k}" for k in np.repeat(np.arange(MAX_COMPARED + 1), 4)],
                          "j": y + rng.normal(size=n),
                          "y": np.where(np.arange(n) % 2 == 0, y, np.nan)})  # fmt: skip
    frame.to_csv(tmp_path / "q.csv", index=False)
    return str(tmp_path / "q.csv")


def test_past_200_groups_the_baseline_is_honoured_not_silently_dropped(tmp_path, capsys):
    """H1 item 1: past MAX_COMPARED groups ``bacon estimate --baseline`` printed the means,
    "comparisons skipped: too many pairs" and never used the baseline; its m - 1
    comparisons need no all-pairs covariance. Now they are made, the ranks (which need
    every pair) skipped with the reason; the report page takes them too, and without a
    baseline says the comparisons are skipped instead of refusing the whole page."""
    path = _many_groups(tmp_path)
    args = ["estimate", path, "--label", "y", "--judge", "j", "--group", "question",
            "--engine", "freq"]  # fmt: skip
    assert main([*args, "--baseline", "q7"]) == 0
    text = capsys.readouterr().out
    assert "comparisons of 'question' against q7" in text and "skipped, the group" not in text
    assert "over the 200 comparisons with q7 alone" in text
    assert "ranks of 'question' skipped: 201 groups are too many to rank" in text
    assert main([*args, "--baseline", "q7", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["comparisons"]
    assert out["baseline"] == "q7" and out["n_pairs"] == 200 and out["ranks"] == []
    assert out["best"] is None and "too many to rank" in out["ranks_skipped"]
    assert main(args) == 0  # no baseline: skipped as before, the fix named
    assert "compare every group against one instead (200 comparisons, no ranks: --baseline" in (
        capsys.readouterr().out
    )
    page = tmp_path / "page.html"
    assert main(["report", *args[1:], "--baseline", "q7", "--out", str(page)]) == 0
    html = page.read_text()
    assert "of 200 comparisons with q7 resolved" in html and "Rank intervals skipped" in html
    assert main(["report", *args[1:], "--out", str(page), "--force"]) == 0
    assert "(differences and rank intervals) skipped, the group means kept" in page.read_text()


def test_a_misspelt_baseline_is_refused_on_a_round_too_few_labels_to_check(tmp_path, capsys):
    """H1 item 3: with a saved --calibrator on a round of fewer than 10 fresh labels,
    ``bacon estimate`` printed the unvalidated means and returned before --baseline was
    read, so a misspelt one passed silently (exit 0). Now it is refused on every path."""
    from importlib.resources import files

    data = files("bacon_bayes") / "data"
    cal = tmp_path / "cal.nc"
    assert main(["estimate", str(data / "example_round1.csv"), "--label", "human", "--judge",
                 "gpt*", "--judge", "llama*", "--group", "system", "--item", "id", "--engine",
                 "freq", "--save", str(cal)]) == 0  # fmt: skip
    frame = pd.read_csv(data / "example_round2.csv")
    frame.loc[frame.index[frame["human"].notna()][5:], "human"] = np.nan  # 5 fresh labels
    frame.to_csv(tmp_path / "r2.csv", index=False)
    capsys.readouterr()
    args = ["estimate", str(tmp_path / "r2.csv"), "--calibrator", str(cal), "--group", "system"]
    assert main(args) == 0 and "UNVALIDATED" in capsys.readouterr().out
    for extra in ([], ["--json"]):
        assert main([*args, "--baseline", "m17", *extra]) == 2
        err = capsys.readouterr().err
        assert "--baseline 'm17' is not a 'system' of the table" in err, err
        assert "Did you mean 'M17'?" in err
