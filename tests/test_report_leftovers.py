"""Leftovers of session 37's fixers (E1): the HTML report quotes group names with spaces
around them as the text tables do, colours the transport verdict 'new' and says what it
means, marks the models with a guessed strength on the win-probability heatmap, and the
streamed estimates print the --pooling auto note the in-memory ones print."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool

JUDGES = ["j1", "j2"]


class _Cells(HTMLParser):
    """The text of every <td>, with its class."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str]] = []
        self._cls: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "td":
            self._cls = dict(attrs).get("class") or ""
            self.cells.append((self._cls, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cls = None

    def handle_data(self, data: str) -> None:
        if self._cls is not None:
            cls, text = self.cells[-1]
            self.cells[-1] = (cls, text + data)


def _cells(page: str) -> list[tuple[str, str]]:
    parser = _Cells()
    parser.feed(page)
    return parser.cells


def _frame(n: int, seed: int, systems: tuple[str, ...], labeled: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.normal(3.0, 1.0, n)
    frame = pd.DataFrame({"item": [f"{seed}-{i}" for i in range(n)], "y": y})
    for k, j in enumerate(JUDGES):
        frame[j] = 0.5 + (0.8 + 0.1 * k) * y + rng.normal(0, 0.6, n)
    frame["system"] = np.repeat(systems, n // len(systems))
    keep = np.zeros(n, bool)
    for name in systems:  # the first `labeled` items of each system
        keep[np.flatnonzero(frame["system"].to_numpy() == name)[:labeled]] = True
    frame.loc[~keep, "y"] = np.nan
    return frame


def _pool(frame: pd.DataFrame) -> EvalPool:
    return EvalPool.from_frame(
        frame, label="y", judges=JUDGES, outcome="continuous", group="system", item="item"
    )


def test_report_quotes_group_names_with_spaces_around_as_the_text_does() -> None:
    """Finding 1: ' M8' and M8 (two groups) read the same in the report's group table,
    comparisons, items and the pooling note; they are quoted there as in the text."""
    from bacon_bayes.report.html import _comparisons, _groups, _items

    frame = _frame(240, 0, (" M8", "M8", "M9"), labeled=7)  # under 10: auto shrinks
    cal = Calibrator(engine="freq", target="pool").fit(_pool(frame))
    groups = _groups(cal, 0.05, {})
    names = [t for _, t in _cells(groups)][:: len(_cells(groups)) // 3]
    assert {"' M8'", "M8", "M9"} <= set(names), names
    assert "(&#x27; M8&#x27;: 7, M8: 7, M9: 7)" in groups  # the pooling auto note
    pairs = {t for _, t in _cells(_comparisons(cal, 0.05, None, {}))}
    assert "' M8' - M8" in pairs and "' M8' - M9" in pairs
    assert "' M8'" in {t for _, t in _cells(_items(cal, 0.9))}


@pytest.fixture(scope="module")
def frozen() -> Calibrator:
    """Round 1 on systems a, b; round 2 adds c, whose labels sit 1.5 above the judges."""
    old = Calibrator(engine="freq").fit(_pool(_frame(200, 0, ("a", "b"), labeled=30)))
    new = _frame(300, 7, ("a", "b", "c"), labeled=20)
    new.loc[new["system"] == "c", "y"] += 1.5
    return old.apply(_pool(new))


def test_report_colours_the_transport_verdict_new_and_says_it(frozen) -> None:
    """Finding 2: the verdict 'new' had no colour of its own and no legend line."""
    from bacon_bayes.report.html import _STYLE
    from bacon_bayes.report.rounds import _transport
    from bacon_bayes.transport import NEW_NOTE

    body = _transport(frozen, None, 0.05)
    assert ("new", "new") in _cells(body)  # the cell <td class="new">new</td>
    assert "<b class='new'>new</b>: " + NEW_NOTE.replace("'", "&#x27;") in body
    assert re.search(r"\.new\{color:#[0-9a-f]{6}\}", _STYLE)


def test_heatmap_marks_the_models_with_a_guessed_strength() -> None:
    """Finding 3: a model that won every voted comparison (strength a guess of the
    virtual votes) looked like any other on the win-probability heatmap."""
    from bacon_bayes.estimate.bradley_terry import bradley_terry
    from bacon_bayes.estimate.bt_guards import guessed
    from bacon_bayes.estimate.bt_ranks import rank_sets, tiers
    from bacon_bayes.report import figures
    from bacon_bayes.report.pairwise import PairSummary, _strengths_html, win_matrix

    rng = np.random.default_rng(3)
    m, n = 5, 1200
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    y = (rng.random(n) < 1 / (1 + np.exp(-(a - b) / 4))).astype(float)
    y[a == 4], y[b == 4] = 1.0, 0.0  # model 4 wins every vote
    f = 0.25 + 0.5 * np.where(rng.random(n) < 0.6, y, rng.random(n))
    voted = np.where(rng.random(n) < 0.3, y, np.nan)
    table = bradley_terry(a, b, voted, f, np.full(n, 0.3), n_models=m)
    assert guessed(table) == [table.names[4]]
    assert figures.win_labels([" M8", table.names[4]], guessed(table)) == [
        "' M8'",
        f"{table.names[4]} (guess)",
    ]
    seen: list = []
    real = figures.win_matrix_figure

    def spy(win, guesses=()):
        seen.append(list(guesses))
        return real(win, guesses)

    summary = PairSummary(
        strengths=table, labels=None, labels_error="", ranks=rank_sets(table),
        tiers=tiers(table), win=win_matrix(table), alpha=0.05, fitted="",
    )  # fmt: skip
    figures.win_matrix_figure = spy
    try:
        page = _strengths_html(summary)
    finally:
        figures.win_matrix_figure = real
    assert seen == [[table.names[4]]]
    legend = page.split("<h3>Win probabilities</h3>", 1)[1].split("<h3>", 1)[0]
    assert f"<b>(guess)</b>, hatched rows: {table.names[4]}: " in legend


def test_streamed_estimates_print_the_pooling_auto_note(tmp_path, capsys) -> None:
    """Finding 4: bacon estimate --chunk-rows said nothing of why --pooling auto shrank
    (or kept separate) the groups; it prints the in-memory path's note."""
    from bacon_bayes.cli import main

    path = tmp_path / "pool.csv"
    _frame(600, 1, ("M8", "M9", "M10", "M11"), labeled=7).to_csv(path, index=False)
    args = ["estimate", str(path), "--label", "y", "--judge", "j1,j2", "--group", "system",
            "--item", "item", "--engine", "freq", "--outcome", "continuous"]  # fmt: skip
    said = []
    for extra in ([], ["--chunk-rows", "200"]):
        assert main([*args, *extra]) == 0
        out = capsys.readouterr().out
        said.append([ln for ln in out.splitlines() if "pooling 'auto' chose" in ln])
    assert len(said[0]) == 1 and "4 labeled groups under 10 labels" in said[0][0]
    # word for word but the width ratio: the streamed fit's surrogate is not the
    # in-memory one (its AEE means differ in the third decimal here, --pooling separate too)
    ratios = [float(re.search(r"(\d\.\d\d)x as wide", s[0])[1]) for s in said]
    assert re.sub(r"\d\.\d\dx", "", said[1][0]) == re.sub(r"\d\.\d\dx", "", said[0][0])
    assert abs(ratios[1] - ratios[0]) < 0.05, ratios


def test_report_group_table_says_what_a_shrunk_se_is() -> None:
    """New user, round 3 (SummEval, 80 labels over 12 systems): the report's group
    table printed se 0.097 for a system of 2 labels beside its interval [1.02, 4.25]
    with no word that a shrunk mean's se is its noise only; the text's note says so."""
    import html

    from bacon_bayes.estimate.shrink import SE_NOTE
    from bacon_bayes.report.html import _groups

    frame = _frame(240, 0, ("a", "b", "c"), labeled=7)  # under 10: auto shrinks
    cal = Calibrator(engine="freq", target="pool").fit(_pool(frame))
    assert cal.estimate_groups(0.05, True).details.get("pooling") == "shrink"
    groups = _groups(cal, 0.05, {})
    assert "<b>se</b> is the noise part of each shrunk estimate" in groups
    assert html.escape(SE_NOTE.split(":")[0][3:]) in groups
    separate = Calibrator(engine="freq", target="pool").fit(
        _pool(_frame(240, 0, ("a", "b", "c"), labeled=12))
    )
    assert "se is the noise part" not in _groups(separate, 0.05, {})
