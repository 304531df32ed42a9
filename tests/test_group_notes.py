"""What a group table says of rows without an interval (tester A, session 36): the
classical column's reasons named as the classical column's, no se on a group whose
mean has no labels (UNVALIDATED), and pairs given by their two groups' names in JSON."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool


@pytest.fixture(scope="module")
def cal() -> Calibrator:
    """Six groups: three with 8 labels, one with 3, one with 1 and one with none, so the
    AEE means are shrunk (every labeled group gets an interval) and the classical ones
    withhold theirs."""
    rng = np.random.default_rng(5)
    names = ["a", "b", "c", "d", "e", "f"]
    g = np.repeat(names, 60)
    y = rng.normal(size=g.size) + np.repeat(np.arange(6) * 0.2, 60)
    take = {"a": 8, "b": 8, "c": 8, "d": 3, "e": 1, "f": 0}
    lab = np.zeros(g.size, dtype=bool)
    for k, name in enumerate(names):
        lab[k * 60 : k * 60 + take[name]] = True
    judge = y + rng.normal(0, 0.7, g.size)
    frame = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": judge, "g": g})
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous", group="g")
    return Calibrator(engine="freq", pooling="shrink").fit(pool)


def test_classical_reasons_name_the_classical_column(cal):
    """The notes under the group table read as the AEE column's: "no interval for e: 1
    label: no variance of its own (pooling='shrink' borrows one ...)" beside an AEE
    interval for e, which contradicts itself."""
    from bacon_bayes.report.text import groups_table

    tables = [
        cal.estimate_groups(0.05, True, "aee"),
        cal.estimate_groups(0.05, True, "classical", pooling="separate"),
        cal.estimate_groups(0.05, True, "naive"),
    ]
    assert np.isfinite(tables[0].ci_low[4])  # e: the shrunk AEE mean has an interval
    lines = [s for s in groups_table(tables).splitlines() if "no interval for" in s]
    one = next(s for s in lines if "1 label" in s)
    assert one.startswith("classical: no interval for e: 1 label"), lines
    assert "pooling='shrink' borrows" not in one and "classical mean has none" in one
    few = next(s for s in lines if "fewer than" in s)
    assert few.startswith("classical: no interval for d"), lines
    assert any(s.startswith("aee: no interval for f: no labels") for s in lines), lines
    assert any(s.startswith("classical: no interval for f: no labels") for s in lines), lines
    assert not any(s.startswith("no interval for") for s in lines), lines


@pytest.mark.parametrize("pooling", ["shrink", "separate"])
def test_a_group_without_labels_has_no_se(cal, pooling):
    """A shrunk table gave the UNVALIDATED group a numeric se (the groups' prior spread,
    the same for a group of 5 items and one of 100) beside "no interval", in --json and
    the report: estimate +- 1.96 se was the interval the tool refuses to give."""
    table = cal.estimate_groups(0.05, True, "aee", pooling=pooling)
    frame = table.to_frame().set_index("name")
    assert np.isnan(frame.loc["f", "se"]) and np.isnan(frame.loc["f", "ci_low"])
    assert "UNVALIDATED" in frame.loc["f", "note"]
    assert np.isfinite(frame.loc["f", "estimate"])
    assert np.isfinite(frame.loc[["a", "b", "c", "d"], "se"]).all()
    assert table.to_dict()["rows"][5]["se"] is None


def test_pairs_carry_their_two_groups_when_names_hold_the_separator():
    """A pair was only the string "a - b" (also in --json): with groups named
    "llama2 - 7b" and "llama2 - 7b - chat" it could not be split back into its groups."""
    from bacon_bayes.report.comparisons import comparisons

    rng = np.random.default_rng(1)
    names = ["llama2 - 7b", "llama2 - 7b - chat", "gpt"]
    g = np.repeat(names, 40)
    y = rng.normal(size=g.size) + np.repeat([0.0, 0.3, 2.0], 40)
    lab = np.tile(np.arange(40) < 20, 3)
    frame = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": y + rng.normal(0, 0.5, g.size)})
    frame["g"] = g
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous", group="g")
    c = comparisons(Calibrator(engine="freq").fit(pool))
    rows = {tuple(r["groups"]): r for r in c.to_dict()["differences"]}
    want = {frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1 :]}
    assert set(map(frozenset, rows)) == want
    assert all(r["pair"] == f"{a} - {b}" for (a, b), r in rows.items())
    # the text quotes a name that holds " - ", so each pair reads as its two groups
    assert "'llama2 - 7b' - 'llama2 - 7b - chat'" in c.to_text("all")


def test_pairs_take_the_groups_joint_intervals_where_those_are_narrower():
    """With many sparse groups on a label bounded below (MQM error >= 0), the groups'
    joint intervals, cut at 0, implied pair intervals 1.8x narrower than the pairs' own
    simultaneous ones (WMT22, 48 groups): -114 was printed as a possible difference of
    two means each printed as at most 43. The table now takes the implied family when it
    is narrower in all (one family for every pair, so the joint guarantee holds)."""
    from bacon_bayes.estimate.tables import implied_by_groups
    from bacon_bayes.report.text import guarantee_note
    from bacon_bayes.results import EstimateTable

    names = ("a", "b", "c")
    low, high = np.zeros(3), np.array([4.0, 5.0, 6.0])
    groups = EstimateTable(
        "mean", "aee", names, np.array([1.0, 2.0, 3.0]), np.ones(3), low, high, np.eye(3),
        np.full(3, 3), np.full(3, 50), 0.05, "maxt", np.full(3, 3.0),
    )  # fmt: skip
    wide = EstimateTable(
        "difference", "aee", ("a - b", "a - c", "b - c"), np.array([-1.0, -2.0, -1.0]),
        np.ones(3), np.full(3, -12.0), np.full(3, 10.0), np.eye(3), np.full(3, 6),
        np.full(3, 100), 0.05, "maxt", np.full(3, 5.0),
        details={"pairs": [["a", "b"], ["a", "c"], ["b", "c"]]},
    )  # fmt: skip
    got = implied_by_groups(groups, wide)
    assert list(got.ci_low) == [-5.0, -6.0, -6.0] and list(got.ci_high) == [4.0, 4.0, 5.0]
    assert "read off the groups' joint intervals" in guarantee_note(got)
    narrow = replace_ci(wide, -2.0, 1.0)
    assert implied_by_groups(groups, narrow) is narrow  # the pairs' own: narrower, kept
    pointwise = replace_ci(wide, -12.0, 10.0, simultaneous="none")
    assert implied_by_groups(groups, pointwise) is pointwise  # never pair by pair


def replace_ci(table, low, high, **kw):
    from dataclasses import replace

    n = len(table)
    return replace(table, ci_low=np.full(n, low), ci_high=np.full(n, high), **kw)


def test_compare_groups_and_ranks_use_the_narrower_family(cal):
    diffs = cal.compare_groups()
    table = cal.estimate_groups()
    if diffs.details.get("implied_by_groups"):
        k = diffs.details["pairs"].index(["a", "b"])
        assert diffs.ci_low[k] == pytest.approx(table.ci_low[0] - table.ci_high[1])
    ranks = cal.rank_groups()
    assert {"rank_low", "rank_high"} <= set(ranks.columns)


def test_the_pairs_shown_are_the_first_labeled_groups_not_an_unvalidated_ones():
    """Finding H2-5: WMT22 by document (50 documents, 0-2 labels each): the group ranked
    first by estimate had no labels (UNVALIDATED), and the summary showed its 49 pairs,
    every one "no interval" (and the resolved ones, none). The summary now shows the
    pairs of the first group with labels, and the best line says why."""
    from bacon_bayes.report.comparisons import comparisons

    rng = np.random.default_rng(3)
    names = [f"g{k}" for k in range(8)]
    g = np.repeat(names, 40)
    y = rng.normal(size=g.size) + np.repeat([0, 0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 4.0], 40)
    lab = (np.arange(g.size) % 40 < 6) & (g != "g7")  # the best group, g7, has none
    frame = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": y + rng.normal(0, 0.5, g.size)})
    frame["g"] = g
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous", group="g")
    c = comparisons(Calibrator(engine="freq").fit(pool))
    assert c.best == "g7"
    shown = c.shown_pairs()  # before: g7's pairs, every one without an interval
    assert np.isfinite(shown.loc[~shown["resolved"], "ci_low"]).any()
    assert c.shown_best != "g7"
    text = c.to_text()
    assert f"(shown: {c.shown_best}'s pairs" in text
    assert (
        "g7 has no labels (UNVALIDATED: the judges' mean with the pool's correction), "
        f"the first with labels is {c.shown_best}" in text
    )
