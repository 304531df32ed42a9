"""The smaller points of issue 43: what ``--save`` says, ``--tolerance`` with
``--refit``, ``--show`` kept by a study, a compact list of pairs, group plots by
estimate, one spelling of the id column, ``judges --outcome nonnegative``, and the
comparisons' JSON keys beside the group tables'."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import build_parser, main
from bacon_bayes.report.comparisons import Comparisons
from bacon_bayes.results import EstimateTable

from .test_printed_commands import READ, table


def test_save_says_what_it_saved_where(tmp_path, capsys):
    path = table(tmp_path)
    nc = tmp_path / "cal.nc"
    assert main(["estimate", str(path), *READ, "--engine", "freq", "--save", str(nc)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"saved the fitted calibrator to {str(nc)!r} (id ")
    assert "next round's --calibrator" in last and nc.is_file()
    # with --json the line goes to stderr: stdout stays JSON
    nc2 = tmp_path / "cal2.nc"
    assert main(["estimate", str(path), *READ, "--engine", "freq", "--json",
                 "--save", str(nc2)]) == 0  # fmt: skip
    out = capsys.readouterr()
    json.loads(out.out)
    assert "saved the fitted calibrator" in out.err
    # W12: saving over a calibrator (bacon's own, so allowed) names the one it replaced
    first = last.split("(id ")[1].split(")")[0]
    assert main(["estimate", str(path), *READ, "--engine", "freq", "--save", str(nc)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert f"; it replaced the calibrator saved there before, id {first})" in last


def test_tolerance_with_refit_is_refused(tmp_path, capsys):
    path = table(tmp_path)
    assert main(["estimate", str(path), *READ, "--calibrator", str(tmp_path / "old.nc"),
                 "--refit", "--tolerance", "0.1"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "--tolerance sets the transport check of a frozen calibrator" in err


def test_a_study_remembers_show_for_later_to_label_files(tmp_path, capsys):
    path = table(tmp_path)
    study = tmp_path / "pool.study"
    assert main(["sample", str(path), "--label", "human", "--budget", "20",
                 "--show", "doc,system"]) == 0  # fmt: skip
    assert main(["sample", str(study), "--budget", "20"]) == 0
    later = pd.read_csv(study / "todo-wave3.csv")
    assert list(later.columns) == ["id", "human", "wave", "doc", "system"]
    assert main(["status", str(study), "--pending-out", str(tmp_path / "p.csv")]) == 0
    assert list(pd.read_csv(tmp_path / "p.csv").columns)[-2:] == ["doc", "system"]


def _comparisons(m: int = 7) -> Comparisons:
    names = [f"M{k}" for k in range(m)]
    rows = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    diff = np.array([names.index(b) - names.index(a) for a, b in rows], dtype=float) * 0.1
    lo, hi = diff - 0.25, diff + 0.25
    differences = pd.DataFrame(
        {"pair": [f"{a} - {b}" for a, b in rows], "difference": diff, "ci_low": lo,
         "ci_high": hi, "resolved": (lo > 0) | (hi < 0)}
    )  # fmt: skip
    ranks = pd.DataFrame({"group": names[::-1], "estimate": np.arange(m)[::-1] * 0.1,
                          "rank": np.arange(1, m + 1), "rank_low": 1, "rank_high": m})  # fmt: skip
    return Comparisons("system", 0.05, "pool", "the items", False, differences, ranks)


def test_many_pairs_are_summarised_unless_all_are_asked_for():
    c = _comparisons()
    short, full = c.to_text(), c.to_text("all")
    assert len(c.differences) == 21
    shown = c.shown_pairs()
    assert set(shown["pair"]) == {
        p for p, r in zip(c.differences["pair"], c.differences["resolved"], strict=True)
        if "M6" in p.split(" - ") or r
    }  # fmt: skip
    assert len(shown) < 21 and "--pairs all for the other" in short
    assert all(p in full for p in c.differences["pair"]) and "--pairs all" not in full
    assert len(_comparisons(6).shown_pairs()) == 15  # up to 15 pairs: all of them


def test_comparisons_json_has_the_group_tables_keys():
    out = _comparisons().to_dict()
    first = out["differences"][0]
    assert first["name"] == first["pair"] and first["estimate"] == first["difference"]
    assert out["ranks"][0]["name"] == out["ranks"][0]["group"]


def test_group_plot_rows_follow_the_estimate():
    from bacon_bayes.report.figures import group_rows

    names = np.array(["M8", "M9", "M10", "M11"])
    est = np.array([0.2, np.nan, 0.9, 0.5])
    t = EstimateTable("mean", "aee", tuple(names), est, np.ones(4), est - 1, est + 1,
                      np.eye(4), np.full(4, 10), np.full(4, 100), 0.05, "maxt",
                      np.full(4, 2.5))  # fmt: skip
    rows = group_rows(t)  # 0 at the bottom
    assert [names[k] for k in np.argsort(-rows)] == ["M10", "M11", "M8", "M9"]


@pytest.mark.parametrize("command", ["judge", "embed"])
@pytest.mark.parametrize("flag", ["--item", "--id"])
def test_item_is_the_id_option_everywhere(command, flag):
    extra = ["--template", "essay"] if command == "judge" else []
    args = build_parser().parse_args([command, "x.csv", "--out", "o.csv", *extra, flag, "key"])
    assert args.id == "key"


def test_judges_take_a_nonnegative_label(monkeypatch):
    from bacon_bayes import EvalPool
    from bacon_bayes.bayes import workflow
    from bacon_bayes.bayes.hurdle import HurdleJudgeModel

    args = build_parser().parse_args(["judges", "t.csv", "--label", "y", "--judge", "j",
                                      "--outcome", "nonnegative"])  # fmt: skip
    assert args.outcome == "nonnegative"
    rng = np.random.default_rng(0)
    y = np.where(rng.random(60) < 0.3, 0.0, rng.gamma(2.0, 1.0, 60))
    frame = pd.DataFrame({"y": y, "j": y + rng.normal(0, 0.5, 60)})
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="nonnegative")
    monkeypatch.setattr(HurdleJudgeModel, "fit", lambda self, X, y: self)
    assert isinstance(workflow.fit_pool(pool), HurdleJudgeModel)


def test_labels_to_settle_never_reads_as_more_than_the_group_has():
    """Issue 43: the transport check asked for "480 in all" of a group of 100 items and
    "3 in all" of a group with no estimate."""
    from bacon_bayes.report.rounds import settle_cells

    frame = pd.DataFrame(
        {"labels_to_settle": [480, 3, 40, 0, -1], "n_items": [100, 100, 100, 100, 100],
         "estimate": [0.1, np.nan, 0.1, 0.0, 0.2]}
    )  # fmt: skip
    assert settle_cells(frame) == [
        "more than its 100 items", "at least 3 in all", "40 in all", "", ""
    ]  # fmt: skip


def test_the_transport_table_names_group_sizes_in_natural_order(tmp_path, capsys):
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.transport import transport_check

    rng = np.random.default_rng(2)
    names = np.repeat(["M10", "M8", "M9"], 60)
    y = rng.normal(0, 1, names.size)
    frame = pd.DataFrame({"g": names, "j": y + rng.normal(0, 0.5, names.size),
                          "y": np.where(rng.random(names.size) < 0.5, y, np.nan)})  # fmt: skip
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous", group="g")
    old = Calibrator(engine="freq").fit(pool)
    nc = tmp_path / "old.nc"
    old.save(nc)
    y2 = rng.normal(0, 1, names.size)  # a next round: its own items and labels
    fresh = pd.DataFrame({"g": names, "j": y2 + rng.normal(0, 0.5, names.size),
                          "y": np.where(rng.random(names.size) < 0.5, y2, np.nan)})  # fmt: skip
    new = EvalPool.from_frame(fresh, label="y", judges=["j"], outcome="continuous", group="g")
    table, _ = transport_check(Calibrator.load(nc).apply(new))
    assert list(table["group"]) == ["(all)", "M8", "M9", "M10"]
    assert list(table["n_items"]) == [180, 60, 60, 60]


@pytest.mark.parametrize("command", ["estimate", "plan", "report", "doctor", "simulate", "sample"])
def test_id_and_item_are_one_option_in_every_command_reading_a_table(command):
    parse = build_parser().parse_args
    extra = {"report": ["--out", "r.html"], "simulate": ["--label", "y", "--out", "o"]}
    extra = extra.get(command, [])
    assert parse([command, "x.csv", *extra, "--id", "key"]).item == "key"
    assert parse([command, "x.csv", *extra, "--item", "key"]).item == "key"


def test_plan_defaults_to_estimates_engine_and_says_what_auto_used(tmp_path, capsys):
    parse = build_parser().parse_args
    assert parse(["plan", "x.csv", "--top"]).engine == parse(["estimate", "x.csv"]).engine
    path = table(tmp_path)
    assert main(["plan", str(path), *READ, "--top"]) == 0
    out = capsys.readouterr().out
    assert "engine: freq (--engine auto, the default, means freq for a plan" in out
    assert main(["plan", str(path), *READ, "--top", "--engine", "freq", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["pilot"]["assumptions"][0]
    assert first == "engine: freq (as --engine asked)"


def test_plan_legend_says_the_range_is_the_pilot_variances_alone(tmp_path, capsys):
    path = table(tmp_path)
    assert main(["plan", str(path), *READ, "--top"]) == 0
    out = capsys.readouterr().out
    legend = out[: out.index("design ")]
    assert "only the pilot's residual variance is taken as uncertain" in legend
    assert "gaps between groups are taken as the pilot's" in legend


def test_a_difference_known_exactly_is_neither_resolved_nor_a_negative_zero():
    """Issue 43: two groups labeled whole with one mean printed "-0.0000 [-0.000, -0.000]"
    as resolved (float noise, -5.6e-17), and ranked one above the other."""
    from bacon_bayes.report.comparisons import comparisons_of

    est = np.array([0.3, 0.1 + 0.2, 0.9])  # A - B = -5.6e-17
    se = np.array([0.0, 0.0, 0.05])
    means = EstimateTable("mean", "aee", ("A", "B", "C"), est, se, est - 2.5 * se,
                          est + 2.5 * se, np.diag(se**2), np.array([50, 50, 10]),
                          np.array([50, 50, 100]), 0.05, "maxt", np.full(3, 2.5))  # fmt: skip
    c = comparisons_of(means, (0.0, 1.0), 0.05, "system", ("pool", "the items"))
    assert list(c.differences["resolved"]) == [False, True, True]
    ab = c.to_text().splitlines()[4]
    assert ab.split() == ["A", "-", "B", "0.0000", "[0.000,", "0.000]"]
    assert "-0.0" not in c.to_text()
    ranks = c.ranks.set_index("group")
    assert list(ranks.loc["A", ["rank_low", "rank_high"]]) == [2, 3]


@pytest.mark.parametrize(
    ("value", "text"),
    [(-1e-17, "0.000"), (-0.0, "0.000"), (-0.00042, "-0.00042"), (0.0004, "0.0004"),
     (-0.0123, "-0.012"), (float("nan"), "nan")],
)  # fmt: skip
def test_a_printed_bound_keeps_its_side_of_zero(value, text):
    from bacon_bayes.report.tables import fixed

    assert fixed(value, 3) == text


def test_report_items_of_a_binary_label_show_the_probability_and_a_label_set(tmp_path):
    """Issue 43: the item rows of a 0/1 label showed the prediction set's span
    (lower 0, upper 1) beside the score, as if it were an interval for the score."""
    import re

    path = table(tmp_path)
    frame = pd.read_csv(path)
    frame["human"] = np.where(frame["human"].isna(), np.nan, (frame["human"] > 0) * 1.0)
    frame.to_csv(path, index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(path), *READ, "--engine", "freq", "--out", str(out)]) == 0
    page = out.read_text()
    items = page[page.index('<section id="items">') :]
    items = items[: items.index("</section>")]
    head = re.findall(r"<th[^>]*>([^<]*)</th>", items)
    assert "P(label = 1)" in head and "label set" in head
    assert "lower" not in head and "upper" not in head and "score" not in head
    cells = set(re.findall(r"<td>(\{[^<]*\})</td>", items))
    assert cells and cells <= {"{0}", "{1}", "{0, 1}", "{}"}
    assert "not an interval for its probability" in items


def test_group_tables_print_no_negative_zero():
    from bacon_bayes.report.text import groups_table

    est, se = np.array([-1e-17, 0.5]), np.array([0.0, 0.1])
    n = np.array([5, 5])
    t = EstimateTable("mean", "aee", ("A", "B"), est, se, est - se, est + se, np.diag(se**2),
                      n, n + 4, 0.05, "maxt", np.full(2, 2.0))  # fmt: skip
    text = groups_table([t])
    assert "-0.0" not in text and "A 0.0000 [0.000, 0.000]" in text


def test_report_without_out_writes_the_file_s_name_and_report_html(tmp_path, monkeypatch):
    """Walk 60: `bacon report mt.study` refused with "the following arguments are
    required: --out". Without it the page is FILE's name and -report.html in the working
    folder; run again, bacon's own page is replaced, a user's file of that name is not."""
    path = table(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["report", str(path), *READ, "--engine", "freq"]
    assert main(args) == 0
    page = tmp_path / f"{path.name.split('.')[0]}-report.html"
    assert page.is_file() and "<html" in page.read_text()[:500].lower()
    assert main(args) == 0  # its own page: replaced
    page.unlink()
    page.write_text("a page of the user's")
    assert main(args) == 2 and page.read_text() == "a page of the user's"
