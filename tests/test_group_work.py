"""Group work is done once (issue 40): ``bacon estimate --group`` computes each group
table and the groups' surrogate once, the plan's line reuses the fitted calibrator and
says when the systems cannot be told apart, and the closed forms behind it (the
adaptive wave's scale, the groups' codes) equal what they replace. No timings here:
``python -m benchmarks group_overhead`` measures them."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes import estimate as est
from bacon_bayes.cli import main
from bacon_bayes.crossfit import CrossFitResult
from bacon_bayes.errors import ValidationError
from bacon_bayes.order import natural_codes, unique_codes
from bacon_bayes.planning import resolution_note

adaptive = importlib.import_module("bacon_bayes.sampling.adaptive")

N_SYSTEMS, PER_SYSTEM = 6, 80


def frame(seed: int = 3, gap: float = 0.0) -> pd.DataFrame:
    """6 systems of equal true mean (``gap``: system s5 that much higher), 3 judges,
    40% labeled."""
    rng = np.random.default_rng(seed)
    n = N_SYSTEMS * PER_SYSTEM
    system = np.repeat(np.arange(N_SYSTEMS), PER_SYSTEM)
    y = rng.normal(0, 1, n) + gap * (system == N_SYSTEMS - 1)
    out = {"system": [f"s{g}" for g in system]}
    for j in range(3):
        out[f"judge_{j}"] = 0.5 * j + (0.8 + 0.1 * j) * y + rng.normal(0, 0.7, n)
    out["human"] = np.where(rng.random(n) < 0.4, y, np.nan)
    return pd.DataFrame(out)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "pool.csv"
    frame().to_csv(path, index=False)
    return path


def _count(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, calls: list) -> None:
    original = getattr(owner, name)

    def counted(*args, **kwargs):
        calls.append((name, args[1:2] if name == "surrogate" else ()))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


@pytest.mark.parametrize("json_out", [False, True])
def test_estimate_group_computes_each_group_table_once(table, monkeypatch, capsys, json_out):
    """The comparisons, the ranks, the printed tables (or the JSON summary) share one AEE
    table, one classical and one naive; the groups' surrogate is built once."""
    calls: list = []
    for name in ("aee_group_means", "classical_group_means", "naive_group_means"):
        _count(monkeypatch, est, name, calls)
    _count(monkeypatch, CrossFitResult, "surrogate", calls)
    args = ["estimate", str(table), "--label", "human", "--judge", "judge_*"]
    args += ["--group", "system", "--engine", "freq"] + (["--json"] if json_out else [])
    assert main(args) == 0
    out = capsys.readouterr().out
    assert ("comparisons" in json.loads(out)) if json_out else ("comparisons of" in out)
    names = [name for name, _ in calls]
    assert names.count("aee_group_means") == 1
    assert names.count("classical_group_means") == 1
    # the naive table: none when the judges are off the label's scale (it is left out,
    # and said: in the text, or the JSON summary's naive_left_out), else once
    left_out = "naive (raw judge avg) left out" in out or "naive_left_out" in out
    assert names.count("naive_group_means") == (0 if left_out else 1)
    by_group = [a for name, a in calls if name == "surrogate" and a and a[0] is not None]
    assert len(by_group) == 1


def _pool(df: pd.DataFrame) -> EvalPool:
    judges = ["judge_0", "judge_1", "judge_2"]
    return EvalPool.from_frame(df, label="human", judges=judges, group="system",
                               outcome="continuous")  # fmt: skip


def test_group_tables_are_kept_per_arguments_until_the_next_fit():
    cal = Calibrator(engine="freq").fit(_pool(frame()))
    first = cal.estimate_groups(0.05)
    assert cal.estimate_groups(alpha=0.05, simultaneous=True) is first  # same arguments
    assert cal.estimate_groups(0.1) is not first
    assert cal.estimate_groups(0.05, False) is not first
    assert cal.estimate_groups(0.05, True, "classical").method != first.method
    cal.fit(_pool(frame(seed=4)))
    again = cal.estimate_groups(0.05)
    assert again is not first and not np.allclose(again.estimate, first.estimate)


def test_plan_line_says_equal_systems_are_indistinguishable(table, capsys):
    """On systems whose true means are equal the plan's line does not ask for a label
    count computed from a gap that is noise (it asked for most of the pool)."""
    assert main(["estimate", str(table), "--label", "human", "--judge", "judge_*",
                 "--group", "system", "--engine", "freq"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "best system not clear" in out
    line = next(s for s in out.splitlines() if s.startswith("bacon plan"))
    assert "indistinguishable from zero" in line and "more labels (uniform)" in line
    assert "would resolve" not in line
    # the leader it names is the table's (about 32 labels a system: each group's own
    # mean, as the table above it), and it says so
    assert "in the pilot's group table as bacon estimate gives it (each group's own mean)" in line
    assert "the model's own surrogate" not in line  # the table's means take it too
    # a small budget: the table's means take the judges' ridge; the plan's leader and lead
    # are the table's (they were the model's own surrogate's, and named another leader:
    # tester T4 finding 3, tester A finding 2 of session 36)
    few = frame()
    few.loc[few.index[few["human"].notna()][30:], "human"] = np.nan
    few.to_csv(table, index=False)
    assert main(["estimate", str(table), "--label", "human", "--judge", "judge_*",
                 "--group", "system", "--engine", "freq"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    line = next(s for s in out.splitlines() if s.startswith("bacon plan"))
    assert "AEE means from judge_ridge" in out
    assert "as bacon estimate gives it (" in line
    assert "the model's own surrogate" not in line
    # finding A10: it said no number could be predicted while the `bacon plan --top` it
    # stands for gives one, with a caution; it now names that plan and what it assumes
    assert "`bacon plan --top` takes the pilot's lead as the truth" in line
    lines = out.splitlines()
    run = lines[lines.index(line) + 1].strip()
    assert run.startswith("run: bacon plan ") and run.endswith(" --top")


def test_plan_line_still_counts_labels_for_a_real_lead():
    pool = _pool(frame(gap=0.45))
    line = resolution_note(pool, 0.05, group_column="system")
    assert line is not None and "would resolve the top system" in line, line


def test_plan_line_on_a_large_pool_says_it_compared_fewer_designs(monkeypatch):
    """Past NOTE_ALL_DESIGNS_ITEMS the line compares uniform (and paired) only, for its
    cost, and says so; below, every design, as the `bacon plan --top` it prints."""
    from bacon_bayes.planning import note

    pool = _pool(frame(gap=0.45))
    full = resolution_note(pool, 0.05, group_column="system")
    assert full is not None and "compared on a pool this large" not in full
    monkeypatch.setattr(note, "NOTE_ALL_DESIGNS_ITEMS", pool.n_items - 1)
    line = resolution_note(pool, 0.05, group_column="system")
    assert line is not None
    assert "uniform design; only uniform compared on a pool this large)" in line


def test_plan_line_from_the_fitted_calibrator_equals_a_fresh_fit():
    for gap in (0.0, 0.45):
        pool = _pool(frame(gap=gap))
        fitted = Calibrator(engine="freq").fit(pool)
        fresh = resolution_note(pool, 0.05, group_column="system")
        assert resolution_note(pool, 0.05, group_column="system", calibrator=fitted) == fresh


def test_top_up_scale_is_exact_for_many_budgets():
    """The closed-form scale spends the budget exactly, and the groups' sums of ``v / pi``
    from prefix sums equal the direct sums, for zero, uniform and unequal priors."""
    rng = np.random.default_rng(0)
    n_items = 3000
    sd = rng.gamma(2.0, 1.0, n_items)
    codes = rng.integers(0, 4, n_items)
    v = sd**2
    for prior in (np.zeros(n_items), np.full(n_items, 0.02), rng.uniform(0, 0.3, n_items)):
        wave = adaptive.adaptive_wave(sd, prior)
        sums = wave.inverse_sums(v, codes, 4)
        for n in (3.5, 300.0, 1500.0, 0.999 * float(np.sum(1 - prior))):
            p = wave.probabilities(n)
            assert np.sum((1 - prior) * p) == pytest.approx(n, rel=1e-9)
            assert np.allclose(p, adaptive.adaptive_probabilities(sd, n, prior=prior))
            union = adaptive.combine_waves([prior, p])
            direct = np.bincount(codes, v / union, 4)
            assert np.allclose(sums(n), direct, rtol=1e-9)


def test_unique_codes_equal_numpy_unique():
    rng = np.random.default_rng(1)
    names = np.array([f"M{k}" for k in rng.integers(0, 12, 500)], dtype=object)
    for values in (names, names.astype(str), rng.integers(0, 5, 50), np.array([1.5, np.nan, 1.5])):
        want, inverse = np.unique(np.asarray(values).astype(str), return_inverse=True)
        got, codes = unique_codes(values)
        assert list(got) == list(want) and np.array_equal(codes, inverse.ravel())
    kept = names.copy()
    kept.setflags(write=False)
    assert unique_codes(kept)[1] is unique_codes(kept)[1]  # a pool's groups: once
    ordered, _ = natural_codes(kept)
    assert list(ordered[:3]) == ["M0", "M1", "M2"] and list(ordered[-2:]) == ["M10", "M11"]


def test_a_group_without_an_estimate_gets_no_rank():
    """The classical (labels-only) mean of a group without labels is NaN: it was ranked
    last (6 of 6), as if known to be the worst; it now has no rank and its interval spans
    every rank."""
    rng = np.random.default_rng(0)
    g = np.repeat(list("abcdef"), 100)
    y = rng.normal(size=g.size) + (g == "a")
    lab = (rng.random(g.size) < 0.1) & (g != "f")
    frame_ = pd.DataFrame(
        {"y": np.where(lab, y, np.nan), "j": y + rng.normal(0, 1, g.size), "g": g}
    )
    pool = EvalPool.from_frame(frame_, label="y", judges=["j"], outcome="continuous", group="g")
    ranks = Calibrator(engine="freq").fit(pool).rank_groups(method="classical")
    row = ranks.set_index("name").loc["f"]
    assert np.isnan(row["rank"]) and (row["rank_low"], row["rank_high"]) == (1, 6)
    assert ranks["rank"].dropna().tolist() == [1, 2, 3, 4, 5]


def test_each_missing_interval_says_its_own_reason():
    """The group table listed every group without an interval, then every reason, in one
    line (which reason was whose was lost), the UNVALIDATED means looked like any other,
    and a pair without an interval said nothing (text, JSON and report)."""
    from bacon_bayes.report.comparisons import comparisons
    from bacon_bayes.report.text import groups_table

    rng = np.random.default_rng(0)
    g = np.repeat(list("abcde"), 100)
    y = rng.normal(size=g.size)
    lab = (rng.random(g.size) < 0.2) & (g != "e")
    lab[(g == "d")] = False
    lab[np.flatnonzero(g == "d")[0]] = True  # d: one label; e: none
    frame_ = pd.DataFrame(
        {"y": np.where(lab, y, np.nan), "j": y + rng.normal(0, 1, g.size), "g": g}
    )
    pool = EvalPool.from_frame(frame_, label="y", judges=["j"], outcome="continuous", group="g")
    cal = Calibrator(engine="freq").fit(pool)
    text = groups_table([cal.estimate_groups(simultaneous=True, pooling="separate")])
    lines = [s for s in text.splitlines() if s.startswith("no interval for")]
    assert any(s.startswith("no interval for d: 1 label") for s in lines), lines
    assert any(s.startswith("no interval for e: no labels") and "UNVALIDATED" in s for s in lines)
    assert "UNVALIDATED" in next(s for s in text.splitlines() if s.strip().startswith("e "))
    notes = {d["pair"]: d.get("note") for d in comparisons(cal).to_dict()["differences"]}
    assert notes["a - b"] == "" and "e: no labels, UNVALIDATED" in notes["a - e"]


def test_too_many_groups_to_compare_are_said_not_a_memory_error(tmp_path, capsys):
    """400 groups (a prompt column taken as the group) built a 79,800 x 79,800 pair
    covariance and died with a MemoryError traceback (tester T4, finding 12): past
    MAX_COMPARED groups the comparisons are refused with the reason, and estimate says so."""
    from bacon_bayes.estimate.tables import MAX_COMPARED, all_pairs

    with pytest.raises(ValidationError, match="201 groups give 20,100 pairwise comparisons"):
        all_pairs(MAX_COMPARED + 1)
    rng = np.random.default_rng(0)
    n = 4 * (MAX_COMPARED + 1)
    y = rng.normal(size=n)
    frame = pd.DataFrame({"question": np.repeat(np.arange(MAX_COMPARED + 1), 4),
                          "j": y + rng.normal(size=n),
                          "y": np.where(np.arange(n) % 2 == 0, y, np.nan)})  # fmt: skip
    frame.to_csv(tmp_path / "q.csv", index=False)
    assert main(["estimate", str(tmp_path / "q.csv"), "--label", "y", "--judge", "j", "--group",
                 "question", "--engine", "freq"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "skipped, the group means kept: 201 groups give 20,100 pairwise comparisons" in out
    assert "pass it as --prompt instead" in out
    # tester D finding 10: the per-group means are printed all the same, streamed too
    assert "mean per 'question'" in out
    assert any(line.split()[:1] == ["200"] for line in out.splitlines())
    assert main(["estimate", str(tmp_path / "q.csv"), "--label", "y", "--judge", "j", "--group",
                 "question", "--engine", "freq", "--chunk-rows", "300", "--json"]) == 0  # fmt: skip
    streamed = json.loads(capsys.readouterr().out)
    assert len(streamed["groups"]["aee"]["rows"]) == MAX_COMPARED + 1
    assert "201 groups give 20,100 pairwise comparisons" in streamed["notes"][0]


def test_more_groups_than_compared_keep_their_bootstrap_means():
    """Tester D finding 10: groups of 10 or more labels each (the bootstrap branch)
    computed every pair's critical values with the means, so past MAX_COMPARED groups the
    means were refused too; the pairs are refused by compare alone."""
    from bacon_bayes.estimate.tables import MAX_COMPARED

    m = MAX_COMPARED + 1
    rng = np.random.default_rng(1)
    g = np.repeat(np.arange(m), 12)
    y = rng.normal(size=g.size) + 0.1 * g % 3
    f = y + rng.normal(size=g.size)
    table = est.aee_group_means(y, f, g.astype(str), np.arange(g.size) % 12 < 10)
    assert len(table) == m and np.isfinite(table.ci_low).all()
    with pytest.raises(ValidationError, match="201 groups give"):
        est.compare(table)


def test_tied_plan_line_stops_at_the_study_budget_and_says_whose_intervals():
    """I3 (s39): on a study of 320 labels with max_labels = 400 the line said "320 more
    labels (uniform) would narrow the intervals by about 44%", past the budget (bacon
    sample refuses it), a one-look figure on a page of alpha-spending intervals, and
    called the study "this pilot". Now: the labels left of the budget, said; the narrowing
    said to be one look's; "these labels", "the study's"."""
    import re

    pool = _pool(frame())
    n0 = pool.n_labeled
    free = resolution_note(pool, 0.05, group_column="system")
    assert free is not None and "indistinguishable from zero" in free
    assert f"{n0} more labels (uniform) would narrow the intervals" in free  # doubling
    study = resolution_note(pool, 0.05, group_column="system", anytime="bacon status s.study")
    assert study is not None and "this pilot" not in study, study
    assert f"{n0} more labels (uniform) would narrow one look's interval" in study
    line = resolution_note(pool, 0.05, group_column="system", anytime="bacon status s.study",
                           max_labels=n0 + 20)  # fmt: skip
    assert line is not None
    left = f"the 20 left of the study's budget, max_labels = {n0 + 20}"
    assert f"20 more labels (uniform; {left})" in line
    assert "would narrow one look's interval of the pool mean (bacon estimate --fixed" in line
    assert "this pilot" not in line and "the pilot's" not in line, line
    said = [int(p) for p in re.findall(r"by about (\d+)%", free + line)]
    assert said[1] < said[0]  # 20 labels narrow less than doubling
    spent = resolution_note(pool, 0.05, group_column="system", anytime="", max_labels=n0)
    assert spent is not None and "more labels" not in spent


def test_tied_plan_line_past_half_the_pool_says_the_rest_gives_the_means_exactly():
    """A study walk (SummEval coherence, 925 of 1,200 labeled, M22 and M23 tied): the
    line said "275 more labels (uniform) would narrow one look's interval ... by about
    100%". Labelling the rest of the pool gives its means exactly: said so."""
    rng = np.random.default_rng(3)
    system = np.repeat(np.arange(N_SYSTEMS), PER_SYSTEM)
    y = rng.normal(0, 1, system.size)
    df = pd.DataFrame({"system": [f"s{g}" for g in system]})
    for j in range(3):
        df[f"judge_{j}"] = y + rng.normal(0, 0.7, y.size)
    df["human"] = np.where(rng.random(y.size) < 0.7, y, np.nan)
    pool = _pool(df)
    line = resolution_note(pool, 0.05, group_column="system", anytime="")
    assert line is not None and "indistinguishable from zero" in line, line
    left = pool.n_items - pool.n_labeled
    assert f"Labelling the {left} items left (the whole pool) would give its means" in line
    assert "by about" not in line, line
