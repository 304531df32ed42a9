"""Issue 35's report details: uninformative judges, natural group order, the item id
default, the scale note, the per-fold time, the simulate plots and console note."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.cli.simulate import adaptive_notes
from bacon_bayes.estimate.tables import group_codes
from bacon_bayes.io import item_column as default_item
from bacon_bayes.judge_bias import informativeness
from bacon_bayes.order import natural_sorted
from bacon_bayes.report.figures import simulate_figure, wrap_title
from bacon_bayes.report.html import _bias_columns, _convergence
from bacon_bayes.report.text import naive_note, scale_note


def _pool(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = rng.normal(3, 0.8, n)
    return pd.DataFrame(
        {
            "id": [f"i{k}" for k in range(n)],
            "good": q + rng.normal(0, 0.3, n),
            "noise": rng.normal(3, 1, n),
            "system": np.array(["M8", "M10", "M9", "M11"])[np.arange(n) % 4],
            "y": np.where(rng.random(n) < 0.3, q, np.nan),
        }
    )


def test_a_judge_without_signal_is_marked_uninformative():
    frame = _pool()
    pool = EvalPool.from_frame(
        frame, label="y", judges=["good", "noise"], outcome="continuous", group="system"
    )
    cal = Calibrator(engine="freq").fit(pool)
    table = informativeness(cal.judge_bias(0.9), float(np.nanstd(frame["y"])))
    verdict = dict(zip(table["judge"], table["verdict"], strict=True))
    assert verdict == {"good": "", "noise": "uninformative"}
    assert table.loc[table["judge"] == "good", "signal"].item() > 0.5
    shown = _bias_columns(table)
    assert list(shown.columns[:4]) == ["judge", "verdict", "bias", "bias low"]
    assert "noise (human units)" in shown and "noise (judge units)" in shown
    # a scale interval that includes 0 is uninformative whatever the noise
    flat = pd.DataFrame({"judge": ["a"], "noise_human": [0.1], "scale_low": [-0.1],
                         "scale_high": [0.5]})  # fmt: skip
    assert informativeness(flat, 1.0)["verdict"].item() == "uninformative"


def test_groups_come_in_natural_order():
    assert natural_sorted(["M10", "M8", "M9", "b", "a"]) == ["M8", "M9", "M10", "a", "b"]
    names, codes = group_codes(np.array(["M10", "M8", "M9", "M8"]))
    assert list(names) == ["M8", "M9", "M10"] and list(codes) == [2, 0, 1, 0]
    pool = EvalPool.from_frame(
        _pool(), label="y", judges=["good"], outcome="continuous", group="system"
    )
    cal = Calibrator(engine="freq").fit(pool)
    assert list(cal.estimate_groups().names) == ["M8", "M9", "M10", "M11"]
    assert cal.compare_groups().names[0] == "M8 - M9"


def test_the_item_id_defaults_to_an_id_column():
    frame = _pool(20)
    assert default_item(frame, ["good"]) == "id"
    assert default_item(frame.assign(id="same"), ["good"]) is None  # not unique
    assert default_item(frame.drop(columns="id"), ["good"]) is None


def test_a_note_asks_for_the_scale_when_an_interval_leaves_the_labels_range():
    pool = SimpleNamespace(
        outcome=SimpleNamespace(kind="continuous"), n_labeled=3,
        y=np.array([1.0, 5.0, 4.0]), labeled=np.ones(3, bool), label_name="rating",
    )  # fmt: skip
    cal = SimpleNamespace(pool_=pool, bounds_=np.array([-np.inf, np.inf]))
    inside = [SimpleNamespace(ci_low=3.0, ci_high=4.5)]
    assert scale_note(cal, inside, None) == ""  # type: ignore[arg-type]
    past = SimpleNamespace(ci_low=np.array([4.2]), ci_high=np.array([5.3]))
    assert "--scale 1:5" in scale_note(cal, inside, [past])  # type: ignore[arg-type]


def test_one_sampling_time_for_every_fold_is_said_once():
    frame = pd.DataFrame({"fold": [0, 1], "max R-hat": [1.0, 1.0], "seconds": [12.5, 12.5]})
    html = _convergence(frame)
    assert "<th>seconds</th>" not in html and "12.5 s in all" in html
    html = _convergence(frame.assign(seconds=[10.0, 14.0]))
    assert "<th>seconds</th>" in html


def test_simulate_plot_and_the_note_on_adaptive_stepping_back():
    summary = pd.DataFrame(
        {
            "design": ["uniform"] * 2 + ["adaptive"] * 2,
            "method": "aee",
            "engine": "freq",
            "budget": [0.05, 0.1] * 2,
            "coverage": [0.95, 0.94] * 2,
            "band_low": 0.92,
            "band_high": 0.975,
        }
    )
    assert simulate_figure(summary, alpha=0.1).startswith("data:image/png;base64,")
    trials = pd.DataFrame(
        {
            "design": ["adaptive"] * 3 + ["uniform"],
            "budget": [0.05, 0.05, 0.1, 0.05],
            "trial": [0, 1, 0, 0],
            "adaptive_choice": ["uniform (small pilot)", "adaptive", "adaptive", None],
        }
    )
    lines = adaptive_notes(trials)
    assert len(lines) == 2 and "1 of 2 trials fell back to uniform" in lines[1]
    assert "pilot too small" in lines[1]
    assert adaptive_notes(trials[trials["budget"] == 0.1]) == []


def test_long_histogram_titles_wrap_instead_of_being_cut():
    title = wrap_title("judge:gpt-3.5-turbo-0301|altmcq|relevance")
    assert title.replace("\n", "") == "judge:gpt-3.5-turbo-0301|altmcq|relevance"
    assert max(map(len, title.split("\n"))) <= 26


def test_a_name_the_font_lacks_draws_without_a_raw_warning() -> None:
    """Checker V2: a group named 华为 TSC made `bacon report` print matplotlib's raw
    'Glyph ... missing from font(s)' UserWarning with this package's file path."""
    import warnings

    from bacon_bayes.report.figures import _plt, data_uri

    plt = _plt()
    fig, ax = plt.subplots()
    ax.set_title("华为 TSC")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert data_uri(fig).startswith("data:image/png;base64,")


def test_the_group_figure_says_why_a_group_has_no_interval():
    """I4 (s39): sparse groups: the figure drew the classical means of M8 (1 label) and
    M9 (2) as a bare x, the page gave no reason (``details["no_interval"]``) and the
    classical means are in no table; the caption under the figure names each group and
    why, by column."""
    from bacon_bayes.report.html import _groups

    frame = _pool()
    labeled = frame.index[frame["y"].notna()]
    m8 = labeled[frame.loc[labeled, "system"] == "M8"]
    m9 = labeled[frame.loc[labeled, "system"] == "M9"]
    frame.loc[m8[1:], "y"] = np.nan  # M8 keeps 1 label, M9 2
    frame.loc[m9[2:], "y"] = np.nan
    pool = EvalPool.from_frame(
        frame, label="y", judges=["good"], outcome="continuous", group="system"
    )
    cal = Calibrator(engine="freq").fit(pool)
    classical = cal.estimate_groups(0.05, True, "classical").details["no_interval"]
    assert set(classical) == {"M8", "M9"}, classical
    page = _groups(cal, 0.05, {})
    caption = page[page.index('alt="group means') : page.index("<table")]
    assert "classical: no interval for M8: 1 label: no variance of its own" in caption
    assert f"classical: no interval for M9: {classical['M9']}" in caption, caption


def test_many_pairs_show_the_best_groups_and_the_resolved_ones_then_all_folded():
    """Session 42, WMT22 with 20 systems: the page listed all 190 pairs in one table where
    the text shows the best system's pairs and the resolved ones; the page shows those
    first, then every pair folded. Few pairs: one table, as before."""
    from bacon_bayes.report.html import _comparisons

    frame = _pool(n=700)
    frame["system"] = np.array([f"M{k}" for k in range(7)])[np.arange(700) % 7]
    pool = EvalPool.from_frame(frame, label="y", judges=["good"], outcome="continuous",
                               group="system")  # fmt: skip
    page = _comparisons(Calibrator(engine="freq").fit(pool), 0.05, None, {})
    assert "<details><summary>All 21 pairs</summary>" in page
    shown = page[page.index("<p>Shown: ") : page.index("<details>")]
    assert shown.count("<tr") - 1 < 21 and "every pair in the folded table below" in shown
    few = EvalPool.from_frame(_pool(), label="y", judges=["good"], outcome="continuous",
                              group="system")  # fmt: skip
    assert "<details>" not in _comparisons(Calibrator(engine="freq").fit(few), 0.05, None, {})


def test_the_naive_note_names_a_numeric_item_as_written():
    """A walk's finding: rows no judge scored were named 'item np.int64(800)'."""
    frame = pd.DataFrame(
        {"id": [700, 800, 900], "label": [1.0, np.nan, 0.0], "j": [0.9, np.nan, 0.2]}
    )
    pool = EvalPool.from_frame(frame, item="id", label="label", judges=["j"], outcome="continuous")
    note = naive_note(pool, (0.0, 1.0))
    assert "(row 1, item '800', the first)" in note, note
