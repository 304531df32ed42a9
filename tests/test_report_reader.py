"""The report page for every reader (tester I, session 39): printed on paper, sorted from
the keyboard, read by a screen reader, in grey print; the browser tests run a real
headless Chromium (skipped with a message when it is missing)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.report.html import _SCRIPT, _STYLE
from bacon_bayes.report.tables import scroll_table

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PDFTOTEXT = shutil.which("pdftotext")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu"]
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed: apt-get install chromium"
)


def _page(body: str) -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><style>{_STYLE}</style>"
        f"</head><body>{body}<script>{_SCRIPT}</script></body></html>"
    )


def _probe(tmp_path: Path, body: str, script: str) -> dict:
    """Run ``script`` (it sets ``window.probe``) after the page's own and read the
    result back from the DOM."""
    page = tmp_path / "probe.html"
    page.write_text(
        _page(body).replace(
            "</body>",
            f"<script>{script}document.documentElement.setAttribute('data-probe',"
            "JSON.stringify(window.probe));</script></body>",
        )
    )
    dom = subprocess.run(
        [str(CHROMIUM), *FLAGS, "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    found = re.search(r'data-probe="([^"]*)"', dom)
    assert found, re.search(r"<html[^>]*>", dom)
    return json.loads(html.unescape(found.group(1)))


def _column(col: int) -> str:
    return (
        "Array.prototype.map.call(t.tBodies[0].rows,function(r){"
        f"return r.cells[{col}].textContent.trim();}})"
    )


@needs_chromium
def test_a_column_with_infinite_bounds_sorts_in_numeric_order(tmp_path):
    """I10: the over-rating table's unbounded intervals print as -inf / inf; the sort kept
    them as text, and the mixed comparator scrambled the column (-inf x25, -27.6, -2.7,
    -2.4, -inf, -18.9, ...)."""
    low = [-2.659, -np.inf, -27.598, 1.5, -np.inf, -18.857, np.inf, -9.428, np.nan, -np.inf]
    body = scroll_table(pd.DataFrame({"judge": [f"j{k}" for k in range(10)], "low": low}))
    got = _probe(
        tmp_path,
        body,
        "var t=document.querySelector('table.sortable');var th=t.querySelectorAll('th')[1];"
        f"th.click();var up={_column(1)};th.click();var down={_column(1)};"
        "window.probe={up:up,down:down};",
    )
    assert got["up"] == ["-inf"] * 3 + ["-27.598", "-18.857", "-9.428", "-2.659", "1.500",
                                         "inf", ""]  # fmt: skip
    assert got["down"] == ["inf", "1.500", "-2.659", "-9.428", "-18.857", "-27.598"] + [
        "-inf"
    ] * 3 + [""]  # the empty cell last either way


@needs_chromium
def test_tables_sort_from_the_keyboard_and_say_their_order(tmp_path):
    """I5 (a): the headers sorted by mouse only and never said the order; now each is in
    the Tab order, Enter or Space sorts, and aria-sort names the sorted column."""
    frame = pd.DataFrame({"name": ["b", "a", "c"], "score": [2.0, 3.0, 1.0]})
    got = _probe(
        tmp_path,
        scroll_table(frame),
        "var t=document.querySelector('table.sortable');var ths=t.querySelectorAll('th');"
        "function press(el,k){el.dispatchEvent(new KeyboardEvent('keydown',"
        "{key:k,bubbles:true,cancelable:true}));}"
        "var tab=Array.prototype.map.call(ths,function(h){return h.tabIndex;});"
        f"press(ths[1],'Enter');var enter={_column(1)};var a1=ths[1].getAttribute('aria-sort');"
        f"press(ths[1],' ');var space={_column(1)};var a2=ths[1].getAttribute('aria-sort');"
        f"press(ths[0],'Enter');var names={_column(0)};"
        "window.probe={tab:tab,enter:enter,space:space,a1:a1,a2:a2,names:names,"
        "left:ths[1].getAttribute('aria-sort'),now:ths[0].getAttribute('aria-sort')};",
    )
    assert got["tab"] == [0, 0]
    assert got["enter"] == ["1.000", "2.000", "3.000"] and got["a1"] == "ascending"
    assert got["space"] == ["3.000", "2.000", "1.000"] and got["a2"] == "descending"
    assert got["names"] == ["a", "b", "c"] and got["now"] == "ascending"
    assert got["left"] is None  # one sorted column at a time


#: The Bayesian judge-bias table's headers (22 columns, as the page shows them).
BIAS_HEADERS = [
    "judge", "verdict", "bias", "bias low", "bias high", "noise (human units)",
    "noise (human units) low", "noise (human units) high", "signal", "same scale",
    "offset", "offset low", "offset high", "scale", "scale low", "scale high",
    "noise (judge units)", "noise (judge units) low", "noise (judge units) high",
    "quality sd", "quality sd low", "quality sd high",
]  # fmt: skip


@needs_chromium
@pytest.mark.skipif(PDFTOTEXT is None, reason="pdftotext is missing: apt-get install poppler-utils")
def test_printing_keeps_every_column_and_the_folded_rows(tmp_path):
    """I1: printed (or saved as PDF), the tables kept their scroll boxes: the judge-bias
    table lost its columns past "same scale" (12 of 22), the group table rank_high. Every
    cell of a 22-column table, and of a table folded in a <details>, is on paper now."""
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(
        {h: rng.uniform(-9, 9, 6).round(3) for h in BIAS_HEADERS[2:]}
    )  # every cell its own number, read back from the PDF's text
    wide.insert(0, "verdict", ["", "uninformative", "", "reversed", "", ""])
    wide.insert(0, "judge", [f"judge:model-{k}|rts|relevance" for k in range(6)])
    folded = pd.DataFrame({"judge": ["a", "b"], "over": [7.25, 8.125]})
    body = (
        "<section><h2>Judge bias</h2>" + scroll_table(wide, 3) + "</section>"
        "<details><summary>over-rating</summary>" + scroll_table(folded, 3) + "</details>"
    )
    page = tmp_path / "print.html"
    page.write_text(_page(body))
    pdf = tmp_path / "print.pdf"
    subprocess.run(
        [str(CHROMIUM), *FLAGS, "--no-pdf-header-footer", f"--print-to-pdf={pdf}",
         page.resolve().as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    text = subprocess.run(
        [str(PDFTOTEXT), str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    cells = [f"{v:.3f}" for v in wide.iloc[:, 2:].to_numpy().ravel()]
    missing = [c for c in cells if c not in text]
    assert not missing, f"{len(missing)} of {len(cells)} cells not printed: {missing[:5]}"
    words = {w for h in BIAS_HEADERS for w in h.split()}
    assert all(w in text for w in words), sorted(w for w in words if w not in text)
    assert "7.250" in text and "8.125" in text, "the folded table's rows"


def test_the_elo_page_gives_the_elo_win_probability_and_the_strengths_unit(tmp_path):
    """I12: with --elo the caption said P = sigmoid of the strength difference (gpt-4 -
    claude-v1 = 44.7 Elo points: sigmoid 1.000) beside a matrix of 0.564 =
    1/(1+10^(-44.7/400)); the strengths axis said no unit in either mode."""
    from importlib.resources import files

    from bacon_bayes.cli import main

    sample = str(files("bacon_bayes") / "data" / "arena_sample.csv.gz")
    pages = {}
    for mode in ("elo", "logit"):
        out = tmp_path / f"{mode}.html"
        extra = ["--elo"] if mode == "elo" else []
        assert main(["report", sample, "--pairwise", "--engine", "freq", *extra,
                     "--out", str(out)]) == 0  # fmt: skip
        pages[mode] = out.read_text()
    assert "sigmoid" not in pages["elo"]
    assert "1 / (1 + 10^(-d / 400)), d the row model&#x27;s strength" in pages["elo"]
    assert "in Elo points" in pages["elo"]
    assert "1 / (1 + exp(-d))" in pages["logit"] and "in log-odds" in pages["logit"]
    from bacon_bayes.report.pairwise import strength_axis

    assert "(Elo points;" in strength_axis("elo") and "(log-odds;" in strength_axis("logit")


def test_a_weak_reversed_judge_is_also_uninformative_and_the_plot_says_what_it_draws(
    monkeypatch,
):
    """I6 (WMT22 MQM): BLEU (signal 0.045) and chrF fall as the error score rises and were
    marked only "reversed", though the note says a signal below 0.05 is uninformative;
    the forest plot was titled "(90% intervals)" with no interval drawn (no judge on the
    label's scale), and did not mark the reversed judges."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.bayes import bias
    from bacon_bayes.report.html import _bias

    rng = np.random.default_rng(1)
    n = 1000
    q = rng.normal(3, 0.8, n)
    frame = pd.DataFrame(
        {
            "bleu": 60 - 8 * q + rng.normal(0, 35, n),  # 0-100, falls with the label, weakly
            "comet": 0.5 + 0.1 * q + rng.normal(0, 0.05, n),  # 0-1, rises
            "system": np.array(["A", "B", "C"])[np.arange(n) % 3],
            "y": np.where(rng.random(n) < 0.4, q + rng.normal(0, 0.3, n), np.nan),
        }
    )
    pool = EvalPool.from_frame(
        frame, label="y", judges=["bleu", "comet"], outcome="continuous", group="system"
    )
    cal = Calibrator(engine="freq").fit(pool)
    drawn = {}
    original = bias.forest_figure

    def keep(table, *, title=None):  # the figure as drawn, its names and title kept
        drawn.update(names=table["judge"].tolist(), title=title)
        return original(table, title=title)

    monkeypatch.setattr(bias, "forest_figure", keep)
    page = _bias(cal, 0.9)
    assert "<td>reversed, uninformative</td>" in page
    assert drawn["names"] == ["bleu (reversed, uninformative)", "comet"]
    assert drawn["title"] == "Judge bias (estimates, no intervals)"
    # a strong reversed judge stays "reversed"; a table with a bias interval says its level
    from bacon_bayes.judge_bias import informativeness

    strong = pd.DataFrame({"judge": ["r"], "noise_human": [0.1]})
    assert informativeness(strong, 1.0, falls=np.array([True]))["verdict"].item() == "reversed"
    same = pd.DataFrame({"judge": ["a"], "bias": [0.2], "bias_low": [0.1], "bias_high": [0.3]})
    assert bias.draws_intervals(same) and not bias.draws_intervals(same.drop(columns="bias_low"))


def test_the_page_text_nits(tmp_path):
    """I's minor text nits: ESS printed with 3 decimals (1874.108), the label range as a
    Python tuple "(1.0, 5.0)", alpha's source as "(krippendorff)" (read as a unit), the
    naive row under "alpha-spending: valid at every wave" though its interval is one
    look's, and a simulation table of all 34 summary.csv columns."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.doctor.agreement import alpha
    from bacon_bayes.report.html import _convergence, _estimates, _settings, _simulation

    fold = {"fold": 1, "max R-hat": 1.004, "min bulk ESS": 1874.108, "min tail ESS": 911.6,
            "divergences": 0, "sampler": "nuts", "seconds": 3.2, "converged": "yes"}  # fmt: skip
    shown = _convergence(pd.DataFrame([fold, {**fold, "fold": 2, "seconds": 4.1}]))
    assert "<td>1874</td>" in shown and "<td>912</td>" in shown and "1874.108" not in shown

    rng = np.random.default_rng(0)
    n = 600
    q = rng.normal(3, 0.8, n)
    frame = pd.DataFrame(
        {
            "j": np.clip(q + rng.normal(0, 0.5, n), 1, 5),
            "k": np.clip(q + rng.normal(0.3, 0.7, n), 1, 5),
            "y": np.where(rng.random(n) < 0.3, np.clip(q, 1, 5), np.nan),
        }
    )
    frame["wave"] = np.where(frame["y"].isna(), np.nan, np.where(np.arange(n) < 300, 1, 2))
    pool = EvalPool.from_frame(frame, label="y", judges=["j", "k"], outcome="continuous",
                               wave="wave")  # fmt: skip
    cal = Calibrator(engine="freq", scale=(1, 5)).fit(pool)
    assert "<th>label range</th><td>1 to 5</td>" in _settings(cal)
    caption = _estimates(cal, 0.05, None, {"anytime": True})
    assert "valid at every wave" in caption
    assert "naive: raw judge average (no labels, biased; its interval is one look's" in (caption)
    _, how = alpha(frame[["j", "k"]].to_numpy().T)
    assert how != "krippendorff" and "computed" in how

    summary = pd.DataFrame({c: [0.5] for c in ["design", "method", "engine", "budget", "by",
                            "trials", "bias", "sd", "rmse", "width", "coverage"]})  # fmt: skip
    summary = summary.assign(**{f"diff_{k}": 0.1 for k in range(23)})  # 34 columns
    page = _simulation(summary)
    assert page.count("<th>") == 9 and "<th>by</th>" not in page
    assert "25 more columns" in page and "summary.csv" in page


def test_figures_say_their_data_in_words_and_tell_series_apart_by_shape(monkeypatch):
    """I5 (b, c): alt texts were one word ("calibration", "distributions": figures whose
    content is in no table); the AEE and classical series (groups, strengths, population)
    and the anytime and fixed intervals (waves) differed by colour only, same round marker."""
    import html as html_text

    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.report import figures
    from bacon_bayes.report.html import _calibration, _estimates

    rng = np.random.default_rng(4)
    n = 600
    q = rng.normal(3, 0.8, n)
    frame = pd.DataFrame(
        {
            "j": q + rng.normal(0.3, 0.5, n),
            "system": np.array(["A", "B", "C"])[np.arange(n) % 3],
            "y": np.where(rng.random(n) < 0.3, q, np.nan),
        }
    )
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous",
                               group="system")  # fmt: skip
    cal = Calibrator(engine="freq").fit(pool)

    def alts(page: str) -> list[str]:
        return [html_text.unescape(a) for a in re.findall(r'alt="([^"]*)"', page)]

    aee = cal.estimate_mean(0.05, "aee")
    (estimates,) = alts(_estimates(cal, 0.05, None, {}))
    assert f"aee {aee.estimate:.3g} [{aee.ci_low:.3g}, {aee.ci_high:.3g}]" in estimates
    calibration, distributions = alts(_calibration(cal))
    assert f"on {pool.n_labeled} labeled items" in calibration and "bin means" in calibration
    assert "label: " in distributions and "j: 600 values" in distributions

    drawn = []
    monkeypatch.setattr(figures, "data_uri", lambda fig, dpi=100: drawn.append(fig) or "")

    def markers() -> set[str]:
        lines = [line for ax in drawn.pop().axes for line in ax.lines]
        return {line.get_marker() for line in lines if len(line.get_xdata())} - {
            "x",
            "None",
            "|",
            "_",
        }  # caps

    tables = [cal.estimate_groups(0.05, True, m) for m in ("aee", "classical")]
    figures.groups_figure(tables)
    assert markers() == {"o", "s"}
    assert "(marker 's')" in figures.series_alt("group means", tables)
    looks = pd.DataFrame(
        {"wave": [1, 2], "labels": [60, 180], "estimate": [3.1, 3.0], "anytime_low": [2.5, 2.8],
         "anytime_high": [3.7, 3.2], "fixed_low": [2.8, 2.9], "fixed_high": [3.4, 3.1],
         "interval_kind": "alpha-spending"}
    )  # fmt: skip
    figures.sequence_figure(looks)
    assert markers() == {"o", "s"}
    assert "wave 2 (180 labels) 3, anytime [2.8, 3.2], fixed [2.9, 3.1]" in figures.sequence_alt(
        looks
    )


def test_the_group_figure_alt_names_each_group_with_its_mean_and_interval():
    """The group means figure's alt text was "group means": it now names the groups as
    drawn (highest first) with each series' mean and interval, which marker is which
    series, which have no interval, and past ten groups counts the rest."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.report import figures
    from bacon_bayes.report.html import _groups

    rng = np.random.default_rng(7)
    k, n = 16, 1600
    names = np.array([f"M{i}" for i in range(k)])
    g = np.arange(n) % k
    q = rng.normal(0.1 * g, 0.8)
    labeled = (rng.random(n) < 0.3) & (g != 0)  # M0: no labels, no interval
    frame = pd.DataFrame({"j": q + rng.normal(0.3, 0.5, n), "system": names[g],
                          "y": np.where(labeled, q, np.nan)})  # fmt: skip
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous",
                               group="system")  # fmt: skip
    cal = Calibrator(engine="freq").fit(pool)
    (alt,) = [html.unescape(a) for a in re.findall(r'alt="([^"]*)"', _groups(cal, 0.05, {}))]
    aee = cal.estimate_groups(0.05, True, "aee")
    top = int(np.nanargmax(aee.estimate))
    g_ = figures._g
    said = f"{aee.names[top]} {g_(aee.estimate[top])} [{g_(aee.ci_low[top])}, "
    assert alt.startswith("group means (16), highest first, 95% intervals")
    assert "aee (marker 'o') / classical (marker 's')" in alt
    assert f": {said}" in alt  # the highest first
    assert alt.count("[") == 2 * figures.MAX_ALT_ROWS
    assert "; and 6 more" in alt
    assert len(alt) < 900
    listed = [n for n in aee.names if f"{n} " in alt.replace(";", " ")]
    assert len(listed) == figures.MAX_ALT_ROWS
    assert "; and 6 more (1 without an interval)" in alt  # M0: at the bottom, unnamed

    small = frame[frame["system"].isin(["M0", "M1", "M2", "M3"])]
    pool = EvalPool.from_frame(small, label="y", judges=["j"], outcome="continuous",
                               group="system")  # fmt: skip
    tables = [Calibrator(engine="freq").fit(pool).estimate_groups(0.05, True, m)
              for m in ("aee", "classical")]  # fmt: skip
    alt = figures.series_alt("group means", tables)
    assert "more" not in alt and alt.count("M") == 4
    assert re.search(r"M0 [-0-9.]+ (\[[^]]*\]|\(no interval\)) / no estimate", alt)
    assert "marker" not in figures.series_alt("group means", tables[:1])
