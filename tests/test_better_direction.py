"""Which way a group mean is better (``better="lower"``: an error score such as MQM):
the best group, the plan's top group and a study's best-group question follow it, the
default (higher) is unchanged, a label that looks like an error score gets the hint, and
the report's data check orients the bias checks as ``bacon doctor`` does (tester A,
findings 1 and 11; tester C, finding 3)."""

from __future__ import annotations

import math
import shlex

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.errors import ValidationError

#: true mean error per system: A is the best (fewest errors), D the worst
TRUE = {"A": 1.0, "B": 2.0, "C": 3.0, "D": 6.0}


def _frame(seed: int = 0, n: int = 100) -> pd.DataFrame:
    """An MQM-like table: the label an error score (>= 0, lower is better), two judges
    scoring quality (falling as the error rises), every third item labeled."""
    rng = np.random.default_rng(seed)
    rows = []
    for g, mu in TRUE.items():
        err = rng.gamma(2.0, mu / 2.0, size=n)
        for k in range(n):
            rows.append(
                {
                    "id": f"{g}{k}",
                    "system": g,
                    "label": err[k] if k % 3 == 0 else np.nan,
                    "q1": -err[k] + rng.normal(0, 0.5),
                    "q2": -0.5 * err[k] + rng.normal(0, 0.5),
                }
            )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def fitted() -> Calibrator:
    pool = EvalPool.from_frame(
        _frame(), label="label", judges=["q1", "q2"], outcome="continuous", group="system",
        item="id",
    )  # fmt: skip
    return Calibrator(engine="freq", target="pool").fit(pool)


def test_best_group_follows_better(fitted):
    from bacon_bayes.report.comparisons import comparisons

    low = comparisons(fitted, better="lower")
    assert low.best == "A" and low.better == "lower"
    assert "best system (lowest mean)" in low.best_line()
    assert low.to_dict()["better"] == "lower"
    assert low.direction_note is None  # given: no hint
    high = comparisons(fitted)  # the default, unchanged: the highest mean ranks first
    assert high.best == "D"
    # an error score by the look of it: the line says "highest mean", not "best"
    assert high.best_line().startswith("system with the highest mean")
    assert "(lowest mean)" not in high.best_line()
    # not given on an error-score label: the hint to pass --better lower
    assert high.direction_note and "--better lower" in high.direction_note
    with pytest.raises(ValidationError, match=r"higher.*lower"):
        comparisons(fitted, better="down")


def test_plan_top_follows_better(fitted):
    from bacon_bayes.planning.outlook import weakest_lead
    from bacon_bayes.planning.plan import Goal
    from bacon_bayes.planning.predict import pilot_statistics

    st = pilot_statistics(fitted.pool_, fitted)
    names = list(st.names)
    top_low, _, lead_low, _ = weakest_lead(st, better="lower")
    top_high, _, lead_high, _ = weakest_lead(st)
    assert names[top_low] == "A" and lead_low > 0
    assert names[top_high] == "D" and lead_high > 0
    assert "lowest mean" in Goal("top", better="lower").describe()
    with pytest.raises(ValidationError, match="lower"):
        Goal("top", better="worse").check(tuple(names))


def test_plan_top_group_lower(fitted):
    from bacon_bayes.planning.plan import Goal, plan
    from bacon_bayes.planning.predict import pilot_statistics

    st = pilot_statistics(fitted.pool_, fitted)
    n = float(st.n_labeled)
    got = plan(fitted.pool_, Goal("top", better="lower"), pilot=st, designs=("uniform",),
               budgets=[n], ranges=False, group_column="system")  # fmt: skip
    assert got.top_group == "A"
    assert "top system in the pilot (lowest mean): A" in got.to_text()


def test_study_best_question_follows_better(fitted):
    from bacon_bayes.study.settled import _best_question

    means = fitted.estimate_groups(0.05, True)
    diffs = fitted.compare_groups(0.05)
    need = np.zeros(len(diffs.estimate))
    low = _best_question(means, diffs, need, "", "lower")
    assert low.name == "best group (lowest mean)" and low.answer.startswith("A")
    high = _best_question(means, diffs, need, "", "higher")
    assert high.name == "best group (highest mean)" and high.answer.startswith("D")


def test_study_records_better(tmp_path):
    from bacon_bayes.study.folder import CONFIG_FILE, StudyConfig

    cfg = StudyConfig(pool="p.csv", item="id", better="lower")
    assert 'better = "lower"' in cfg.to_toml()
    (tmp_path / CONFIG_FILE).write_text(cfg.to_toml(), encoding="utf-8")
    assert StudyConfig.read(tmp_path).better == "lower"
    assert "better" not in StudyConfig(pool="p.csv", item="id").to_toml()  # default unwritten
    with pytest.raises(ValidationError, match="better"):
        StudyConfig(pool="p.csv", item="id", better="down")


def test_cli_better_option():
    import argparse

    from bacon_bayes.cli import build_parser

    parser = build_parser()
    for cmd in (["estimate", "t.csv"], ["report", "t.csv", "--out", "r.html"], ["plan", "t.csv"]):
        assert parser.parse_args([*cmd, "--better", "lower"]).better == "lower"
    assert parser.parse_args(["status", "s.study", "--better", "lower"]).better == "lower"
    assert parser.parse_args(["sample", "t.csv", "--better", "lower"]).better == "lower"
    with pytest.raises(SystemExit):
        parser.parse_args(["estimate", "t.csv", "--better", "worse"])
    assert isinstance(parser, argparse.ArgumentParser)


def test_hint_by_name_or_falling_judges():
    from bacon_bayes.doctor.bias import better_lower_hint

    assert "--better lower" in better_lower_hint("mqm_score", False)
    assert "--better lower" in better_lower_hint("Error", False)
    assert "--better lower" in better_lower_hint("label", True)
    assert better_lower_hint("quality", False) == ""
    assert better_lower_hint("terrific", False) == ""  # not TER


def test_report_data_check_orients_as_doctor():
    """A11: on an error-score label the report's group-bias check runs on -label, as
    doctor's does, with the same tables (it said 'does not rise with the label')."""
    from bacon_bayes.doctor import profile
    from bacon_bayes.doctor.pooled import profile_pool
    from bacon_bayes.readers.meta import TableMeta

    frame = _frame()
    pool = EvalPool.from_frame(
        frame, label="label", judges=["q1", "q2"], outcome="nonnegative", group="system",
        item="id",
    )  # fmt: skip
    check = profile_pool(pool, bounds=(0.0, math.inf))
    assert "biases checked on -label" in check.bias_note
    assert all(not t.empty for t in check.groups.values()), {
        j: t.attrs.get("why") for j, t in check.groups.items()
    }
    full = profile(frame, TableMeta("csv"), "t.csv", label="label", judges=["q1", "q2"],
                   group="system", item="id")  # fmt: skip
    for j in ("q1", "q2"):
        pd.testing.assert_frame_equal(check.groups[j], full.groups[j])
    assert "--better lower" in " ".join(full.can)


def test_report_page_says_it(fitted, tmp_path):
    from bacon_bayes.report.html import render_report

    page = render_report(fitted, better="lower")
    assert "best system (lowest mean)" in page.replace("Best", "best")


def test_status_suggests_better_lower_on_an_error_score(tmp_path, capsys):
    """Checker of tester C's finding 3: estimate suggested --better lower on an error
    score, `bacon status` did not (its best group was the highest error); now it does,
    and not once the direction is given."""
    from bacon_bayes.cli import main

    table = tmp_path / "pool.csv"
    _frame().to_csv(table, index=False)
    study = tmp_path / "s.study"
    args = ["--label", "label", "--judge", "q1", "--judge", "q2", "--group", "system"]
    assert main(["sample", str(table), *args, "--item", "id", "--budget", "8",
                 "--study", str(study), "--scale", "0:inf"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["status", str(study), "--group", "system", "--engine", "freq"]) == 0
    assert "pass --better lower" in capsys.readouterr().out
    assert main(["status", str(study), "--group", "system", "--engine", "freq",
                 "--better", "lower"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "pass --better lower" not in out and "lowest mean" in out


def test_a_streamed_estimate_ranks_by_better(tmp_path, capsys):
    """Fixer A1's note: the streamed estimate (--chunk-rows) ranked the highest mean first
    whatever --better said; it follows it as the in-memory estimate does."""
    from bacon_bayes.cli import main

    table = tmp_path / "pool.csv"
    _frame().to_csv(table, index=False)
    args = ["estimate", str(table), "--label", "label", "--judge", "q1", "--judge", "q2",
            "--group", "system", "--item", "id", "--engine", "freq",
            "--better", "lower"]  # fmt: skip
    outs = []
    for extra in ([], ["--chunk-rows", "150"]):
        assert main([*args, *extra]) == 0
        outs.append(capsys.readouterr().out)
    for out in outs:
        assert "lowest mean" in out and "highest mean" not in out, out


def test_error_score_headline_is_not_best(fitted):
    """I2 (s39): on a label bacon itself reads as an error score, without --better, the
    page said "Best system: D (... clear)" for the system with the most errors, the hint
    a plain note after it; now the hint is a warning before a line that says "highest
    mean" and that this is the worst system unless higher is better (the text too)."""
    import re

    from bacon_bayes.report.comparisons import comparisons
    from bacon_bayes.report.html import _comparisons

    high = comparisons(fitted)
    assert high.best == "D"
    line = high.best_line()
    assert not line.lower().startswith("best") and "highest mean: D" in line, line
    assert "worst system unless higher is better" in line
    text = high.to_text()
    assert "warning: label 'label' looks like an error score" in text
    assert text.index("warning:") < text.index("highest mean: D"), text
    page = _comparisons(fitted, 0.05, None, {})
    assert "Best system" not in page and "best system" not in page
    warn = re.search(r"<p class='warn'>Warning: label .*?looks like an error score", page)
    assert warn and warn.start() < page.index("highest mean: D"), page
    # given either way: no warning, "best" as before
    for way, best in (("lower", "A"), ("higher", "D")):
        given = comparisons(fitted, better=way)
        assert given.best_line().startswith("best system") and f": {best} " in given.best_line()
        assert "warning" not in given.to_text()


def test_group_figure_says_lower_is_better(fitted):
    """I2 (s39): with --better lower the group figure was byte-identical to the one
    without it (the highest mean on top, nothing saying lower is better)."""
    import re

    from bacon_bayes.report.html import _groups

    def figure(better):
        page = _groups(fitted, 0.05, {}, better)
        return re.search(r'<img src="([^"]+)" alt="group means[^"]*">', page)[1]

    assert figure("lower") != figure("higher"), "the same figure either way"
    from bacon_bayes.report.html import _groups_axis

    assert "lower is better: the best at the bottom" in _groups_axis(fitted, "lower")
    assert "error score" in _groups_axis(fitted, None)  # the hint, on the figure too
    assert "better" not in _groups_axis(fitted, "higher")


def test_json_comparisons_say_best_by_and_the_warning(fitted):
    """The JSON of the comparisons lacked what the text says: which mean is "best" and
    the warning that the label looks like an error score (--better not given); both keys
    are always there, None where there is no warning."""
    from bacon_bayes.report.comparisons import comparisons

    high = comparisons(fitted).to_dict()
    assert high["best_by"] == "highest mean"
    assert high["warning"] and "--better lower" in high["warning"]
    for way in ("lower", "higher"):
        given = comparisons(fitted, better=way).to_dict()
        assert given["best_by"] == f"{'lowest' if way == 'lower' else 'highest'} mean"
        assert "warning" in given and given["warning"] is None


def test_a_streamed_estimate_warns_of_an_error_score_as_in_memory(tmp_path, capsys):
    """The streamed estimate (--chunk-rows) never warned that the label looks like an
    error score: it takes the hint from its labeled rows, in the text and the JSON, as
    the in-memory estimate does; with --better given, no warning."""
    import json

    from bacon_bayes.cli import main

    table = tmp_path / "pool.csv"
    _frame().rename(columns={"label": "score"}).to_csv(table, index=False)  # not by name
    args = ["estimate", str(table), "--label", "score", "--judge", "q1", "--judge", "q2",
            "--group", "system", "--item", "id", "--engine", "freq"]  # fmt: skip
    said = {}
    for extra in ([], ["--chunk-rows", "150"]):
        assert main([*args, *extra]) == 0
        text = capsys.readouterr().out
        assert "warning: label 'score' looks like an error score" in text, text
        assert "every judge falls as 'score' rises" in text
        assert main([*args, *extra, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)["comparisons"]
        assert out["best_by"] == "highest mean"
        said[bool(extra)] = out["warning"]
    hint = {k: v.split("; run: ")[0] for k, v in said.items()}  # each its own command
    assert hint[True] == hint[False] and "--better lower" in said[True]
    assert said[True].endswith("--chunk-rows 150 --json --better lower")
    assert main([*args, "--chunk-rows", "150", "--json", "--better", "higher"]) == 0
    out = json.loads(capsys.readouterr().out)["comparisons"]
    assert out["warning"] is None and out["best_by"] == "highest mean"


def test_better_lower_on_minus_a_penalty_is_warned():
    """Session 46 walk (WMT22 zh-en, a study of `mqm` as stored, minus the penalty, with
    `--better lower`): status, estimate and report ranked M2M100, the system with the
    most errors, best, without a word. `--better lower` on a label whose values are all
    at or below 0 while the judges rise with it is now warned of, naming --better higher;
    not where the judges fall as it rises, nor given higher."""
    from bacon_bayes.report.comparisons import comparisons

    frame = _frame().assign(mqm=lambda d: -d["label"])
    pool = EvalPool.from_frame(
        frame, label="mqm", judges=["q1", "q2"], outcome="continuous", group="system",
        item="id",
    )  # fmt: skip
    cal = Calibrator(engine="freq", target="pool").fit(pool)
    lower = comparisons(cal, better="lower")
    assert lower.best == "D" and lower.best_line().startswith("best system (lowest mean)")
    assert "warning: --better lower ranks the lowest mean first" in lower.to_text()
    assert "pass --better higher" in lower.to_text()
    assert comparisons(cal, better="higher").direction_note is None
    flipped = EvalPool.from_frame(  # judges falling as the label rises: not minus a penalty
        frame.assign(q1=-frame["q1"], q2=-frame["q2"]), label="mqm", judges=["q1", "q2"],
        outcome="continuous", group="system", item="id",
    )  # fmt: skip
    fit = Calibrator(engine="freq", target="pool").fit(flipped)
    assert comparisons(fit, better="lower").direction_note is None


#: WMT22 zh-en (generaltest2022), segments 1-14 of three systems in this order: MQM as a
#: penalty (minus the shipped `mqm`; every third row labeled), COMET-22 and BLEURT-20
#: against reference A
WMT_SYSTEMS = ["JDExploreAcademy", "M2M100_1.2B-B4", "Online-Y"]
WMT_PENALTY = [0.0, 1.0, 5.0, 0.0, 5.0, 1.0, 10.0, 5.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
WMT_COMET = [
    0.96, 0.79, -0.02, 0.43, -0.18, 0.61, 0.5, 0.81, 0.72, 0.72, 0.8, 0.58, 0.17, 0.8, 1.0,
    0.5, -0.01, -0.78, 0.06, 0.2, 0.56, 0.36, 0.69, 0.64, 0.75, 0.54, 0.04, 0.69, 0.97, 0.77,
    0.49, -0.46, 0.13, 0.63, 0.65, 0.66, 0.72, 0.7, 0.85, 0.66, 0.15, 0.71,
]  # fmt: skip
WMT_BLEURT = [
    0.81, 0.82, 0.57, 0.6, 0.59, 0.82, 0.6, 0.84, 0.72, 0.75, 0.78, 0.83, 0.55, 0.75, 0.96,
    0.73, 0.48, 0.32, 0.59, 0.72, 0.68, 0.67, 0.72, 0.65, 0.74, 0.78, 0.57, 0.73, 0.85, 0.77,
    0.7, 0.44, 0.62, 0.82, 0.7, 0.7, 0.73, 0.72, 0.8, 0.79, 0.57, 0.74,
]  # fmt: skip
#: SummEval, the first 20 documents of M11, M17 and M8 in this order: the experts' mean
#: coherence (1-5, every third row labeled), GPT-4's and Llama-2-70b's coherence scores
SUMMEVAL_EXPERT = [
    1.67, 1.67, 1.67, 2.33, 2.33, 2.67, 2.0, 3.33, 4.33, 4.0, 3.33, 5.0, 4.0, 4.33, 2.33, 3.0,
    3.67, 3.0, 1.33, 2.67,
]  # fmt: skip
SUMMEVAL_GPT4 = [
    3, 3, 2, 3, 3, 4, 3, 3, 5, 3, 1, 1, 3, 3, 3, 2, 1, 1, 3, 4, 5, 5, 5, 4, 5, 5, 5, 5, 5, 5,
    5, 5, 5, 5, 5, 4, 5, 5, 5, 5, 5, 4, 5, 5, 4, 5, 5, 4, 5, 5, 4, 5, 5, 5, 1, 1, 4, 4, 5, 5,
]  # fmt: skip
SUMMEVAL_LLAMA = [
    2, 2, 2, 3, 4, 4, 3, 4, 4, 3, 4, 4, 4, 2, 4, 2, 3, 1, 3, 4, 4, 5, 3, 4, 5, 5, 3, 5, 4, 3,
    4, 4, 4, 3, 4, 2, 5, 2, 5, 4, 2, 4, 2, 4, 4, 4, 4, 5, 4, 4, 4, 4, 5, 4, 2, 2, 4, 2, 5, 4,
]  # fmt: skip


def _every_third(values: list[float], n: int) -> np.ndarray:
    """``values`` on every third of ``n`` rows (the first, the fourth, ...), NaN between."""
    out = np.full(n, np.nan)
    out[::3] = values
    return out


def _wmt(label: str, sign: float) -> pd.DataFrame:
    """The WMT22 rows with the penalty times ``sign`` as the label ``label``."""
    return pd.DataFrame(
        {
            "seg": np.tile(np.arange(1, 15), 3),
            "system": np.repeat(WMT_SYSTEMS, 14),
            "COMET": WMT_COMET,
            "BLEURT": WMT_BLEURT,
            label: _every_third([sign * v + 0.0 for v in WMT_PENALTY], 42),
        }
    )


def _summeval(label: str, reversed_: bool) -> pd.DataFrame:
    """The SummEval rows with the experts' mean coherence, or 6 minus it, as ``label``."""
    y = [round(6 - v, 2) if reversed_ else v for v in SUMMEVAL_EXPERT]
    return pd.DataFrame(
        {
            "doc": np.tile([f"d{k}" for k in range(20)], 3),
            "system": np.repeat(["M11", "M17", "M8"], 20),
            "gpt4": SUMMEVAL_GPT4,
            "llama70b": SUMMEVAL_LLAMA,
            label: _every_third(y, 60),
        }
    )


@pytest.mark.parametrize(
    "frame, passed, hinted",
    [
        (_wmt("MQM penalty", 1.0), True, True),  # the name and the judges: lower is better
        (_wmt("mqm", -1.0), False, False),  # minus the penalty, judges rising: higher
        (_summeval("coherence errors", True), True, True),
        (_summeval("coherence", True), False, True),  # the judges alone: the warning only
        (_summeval("loss", False), False, True),  # the name alone: the warning only
    ],
    ids=["wmt-penalty", "wmt-minus-penalty", "summeval-errors", "summeval-judges", "name"],
)
def test_doctor_passes_better_lower_where_the_name_and_the_judges_agree(
    frame, passed, hinted, tmp_path, capsys, monkeypatch
):
    """Session 47 walk: on `MQM penalty` (positive, higher = worse) with every judge
    falling as it rises, doctor only warned; its printed `bacon estimate` had no
    `--better lower`, so the estimate's "best system" and its printed `plan --top` chased
    the most penalized system. Where both signs agree the command passes it (and runs:
    estimate ranks the lowest mean first and carries it into plan --top); a name alone or
    the judges alone keep the warning, and minus a penalty gets neither."""
    from bacon_bayes.cli import main

    monkeypatch.chdir(tmp_path)
    frame.to_csv("t.csv", index=False)
    assert main(["doctor", "t.csv"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    words = shlex.split(lines[lines.index("run:") + 1])
    assert ("--better" in words) is passed, out
    assert ("--better lower" in out) is hinted, out
    if not passed:
        return
    assert words[words.index("--better") + 1] == "lower"
    assert "the command passes --better lower" in out
    assert main([*words[1:], "--engine", "freq"]) == 0
    printed = capsys.readouterr().out
    assert "best system (lowest mean)" in printed, printed
    assert "looks like an error score" not in printed
    top = [ln for ln in printed.splitlines() if ln.strip().startswith("run: bacon plan ")]
    assert all(ln.endswith("--better lower --top") for ln in top), top  # where printed


def test_doctors_simulate_command_leaves_out_better():
    """bacon simulate takes no --better: the simulate command doctor builds from its
    estimate command leaves it out, as it does --scale and --wave."""
    from bacon_bayes.doctor.label import simulate_command

    words = simulate_command(
        ["bacon", "estimate", "t.csv", "--label", "y", "--better", "lower"], False, 200
    )
    assert words is not None and "--better" not in words and "lower" not in words
