"""What a new user met walking many systems with few labels each (WMT22 zh-en, 16
systems at 2% labels; TriviaQA, 8 models at 3%; SummEval, 12 systems at 2%) through
doctor, sample, label import, estimate, status, report and plan: each test fails on the
code before its fix."""

from __future__ import annotations

import shlex
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.bayes.diagnostics import Diagnostics
from bacon_bayes.cli import main
from bacon_bayes.report.text import scale_note


def _diverged() -> Diagnostics:
    """A sampler run's record of 4 divergent transitions at target_accept 0.8."""
    return Diagnostics(
        max_rhat=1.0, worst_rhat="offset", min_ess_bulk=900.0, min_ess_tail=900.0,
        worst_ess="offset", n_divergent=4, n_draws=500, n_chains=2, sampler="nutpie",
        seconds=1.0, target_accept=0.8,
    )  # fmt: skip


EXAMPLE_POOL = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "example_pool.csv"


def test_the_scale_note_prints_no_negative_zero():
    """WMT22's MQM labels are stored as minus the penalty, the best as -0.0: the note
    read "past the labels' range [-15, -0]"."""
    y = np.array([-15.0, -3.0, -0.0, -0.0, -1.0])
    pool = SimpleNamespace(
        outcome=SimpleNamespace(kind="continuous"), n_labeled=5, y=y,
        labeled=np.ones(5, bool), label_name="mqm",
    )  # fmt: skip
    cal = SimpleNamespace(pool_=pool, bounds_=np.array([-np.inf, np.inf]))
    past = SimpleNamespace(ci_low=np.array([-4.0]), ci_high=np.array([2.0]))
    note = scale_note(cal, [], [past])  # type: ignore[arg-type]
    assert "[-15, 0]" in note and "-0]" not in note


def _unlabeled_systems(tmp_path: Path) -> Path:
    """A pool with no label yet, as a new user brings it: 4 systems x 30 questions
    (the prompt, text), a response each, two metrics on no stated scale (COMET-like
    0.3-1.08, a QE metric 0.32-1.06: within each other's range) and two on 0-100."""
    rng = np.random.default_rng(0)
    systems, k = np.repeat(["sysA", "sysB", "sysC", "sysD"], 30), np.tile(np.arange(30), 4)
    n = len(systems)
    frame = pd.DataFrame(
        {
            "id": [f"{s}-{q}" for s, q in zip(systems, k, strict=True)],
            "system": systems,
            "question": [f"What is the name of thing number {q} in the list?" for q in k],
            "response": [f"I think the answer is {w} of them all" for w in rng.integers(0, 99, n)],
            "comet": rng.uniform(0.3, 1.08, n),
            "kiwi": rng.uniform(0.32, 1.06, n),
            "chrf": rng.uniform(3, 97, n).round(1),
            "bleu": rng.uniform(2, 95, n).round(1),
        }
    )
    path = tmp_path / "pool.csv"
    frame.to_csv(path, index=False)
    return path


def test_doctor_takes_no_two_judges_without_a_stated_scale_for_one_scale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """WMT22 zh-en without labels: doctor gave "Krippendorff's alpha (interval) of the 2
    judges on one scale (COMET-22-refA, COMETKiwi-src)", two metrics with no stated
    scale (the first judge's range taken for one), and passed over chrF and BLEU, both
    on 0-100."""
    path = _unlabeled_systems(tmp_path)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "Krippendorff" in ln)
    assert "(chrf, bleu)" in line and "comet" not in line and "kiwi" not in line


def test_doctors_first_sample_shows_labellers_the_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """TriviaQA without labels: doctor found the question as the prompt, and its
    ``bacon sample`` command showed labellers ``--show references`` alone; WMT22's gave
    the source after the translation. Whoever labels an answer or a translation needs
    what was asked, first."""
    path = _unlabeled_systems(tmp_path)
    assert main(["doctor", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    command = shlex.split(lines[lines.index("run, to draw the first items to label:") + 1])
    assert command[command.index("--show") + 1] == "question,response"
    monkeypatch.chdir(tmp_path)
    assert main(command[1:]) == 0
    todo = pd.read_csv(tmp_path / "pool.study" / "todo-wave1.csv")
    assert list(todo.columns[-2:]) == ["question", "response"]


def test_estimates_direction_warning_gives_the_command_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error score without ``--better``: estimate's warning said only "pass --better
    lower", the rest of the command left to the user (doctor's carried it). It now gives
    the command as run with it, which runs without the warning."""
    rng = np.random.default_rng(3)
    n = 240
    system = np.repeat(["M1", "M2", "M3", "M4"], n // 4)
    errors = rng.poisson(np.repeat([1.0, 2.0, 3.0, 4.0], n // 4)).astype(float)
    frame = pd.DataFrame(
        {
            "id": [f"i{k}" for k in range(n)],
            "system": system,
            "judge_a": errors + rng.normal(0, 1, n),
            "judge_b": errors + rng.normal(0, 1.5, n),
            "errors": np.where(rng.random(n) < 0.4, errors, np.nan),
        }
    )
    path = tmp_path / "pool.csv"
    frame.to_csv(path, index=False)
    argv = ["estimate", str(path), "--label", "errors", "--judge", "judge_a,judge_b",
            "--group", "system", "--engine", "freq"]  # fmt: skip
    assert main(argv) == 0
    warning = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("warning"))
    command = shlex.split(warning.split("; run: ", 1)[1])
    assert command == ["bacon", *argv, "--better", "lower"]
    assert main(command[1:]) == 0
    assert "pass --better" not in capsys.readouterr().out


def test_the_reports_items_of_a_table_without_ids_say_they_are_rows(tmp_path: Path) -> None:
    """A table with no id column: the report's item table listed items as 441, 321, ...
    (the rows, counted from 0), under the header "item", without saying so."""
    frame = pd.read_csv(EXAMPLE_POOL).drop(columns=["id"])
    path = tmp_path / "pool.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.html"
    argv = ["report", str(path), "--label", "human", "--judge", "gpt4,gpt35,llama70b",
            "--group", "system", "--scale", "1:5", "--engine", "freq",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    items = out.read_text(encoding="utf-8").split('<section id="items">', 1)[1]
    assert "item: the table&#x27;s row, counted from 0" in items.split("</table>", 1)[0]


def test_the_convergence_note_names_the_judge_doctor_flags_constant_on_a_group() -> None:
    """The Bayesian fit's note said "check for a judge that barely varies" while bacon
    doctor had flagged one by name (a metric scoring its own reference system 100 on
    every item); the note now names it and the group."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.report.text import convergence

    rng = np.random.default_rng(5)
    n = 200
    system = np.repeat(["sysA", "sysB", "ref"], [80, 80, 40])
    q = rng.normal(3.0, 1.0, n)
    bleu = np.where(system == "ref", 100.0, 40 + 10 * q + rng.normal(0, 5, n))
    frame = pd.DataFrame(
        {
            "system": system,
            "comet": q + rng.normal(0, 0.5, n),
            "bleu": bleu,
            "y": np.where(rng.random(n) < 0.3, q + rng.normal(0, 0.3, n), np.nan),
        }
    )
    pool = EvalPool.from_frame(
        frame, label="y", judges=["comet", "bleu"], outcome="continuous", group="system"
    )
    cal = Calibrator(engine="freq", folds=2).fit(pool)
    diverged = _diverged()
    for model in cal.crossfit_.models:  # the sampler's record, as a Bayesian fold keeps it
        model.diagnostics_ = diverged
    note = convergence(cal)
    assert "4 divergent transitions" in note
    said = "barely varies (bacon doctor flags one score on every item of a group: 'bleu' on ref)"
    assert said in note


def test_a_one_label_group_under_separate_pooling_names_the_option_of_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SummEval at 2% with ``bacon estimate --pooling separate``: "no interval for M12,
    M15: 1 label: no variance of its own (pooling='shrink' borrows one from the others)",
    the Python keyword where the command line takes --pooling shrink."""
    frame = pd.read_csv(EXAMPLE_POOL)
    labeled = frame["human"].notna()
    one = frame.index[labeled & (frame["system"] == "M8")][1:]  # M8 keeps one label
    frame.loc[one, "human"] = np.nan
    path = tmp_path / "pool.csv"
    frame.to_csv(path, index=False)
    argv = ["estimate", str(path), "--label", "human", "--judge", "gpt4,gpt35,llama70b",
            "--group", "system", "--item", "id", "--scale", "1:5", "--engine", "freq",
            "--pooling", "separate"]  # fmt: skip
    assert main(argv) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "for M8: 1 label" in ln)
    assert "--pooling shrink" in line


def test_a_command_says_the_same_convergence_warning_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``bacon plan --engine bayes`` on SummEval at 2%: the same "did not converge (in the
    label link)" line five times, once per cross-fitting fold."""
    import argparse

    from bacon_bayes.cli import _shown
    from bacon_bayes.errors import ConvergenceWarning

    shown = _shown(argparse.Namespace(preset=None), "bacon plan", print)
    for _ in range(5):
        warning = ConvergenceWarning("did not converge")
        warning.diagnostics = _diverged()  # type: ignore[attr-defined]
        shown(warning, ConvergenceWarning, "fitting.py", 1)
    err = capsys.readouterr().err
    assert err.count("bacon plan: warning: the Bayesian fit did not converge") == 1


def test_the_joint_shrunk_header_states_each_groups_own_floor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pointwise shrunk header said "valid on average over the groups, and each at
    least 90% for its own"; the simultaneous one (the command line's default) only "each
    valid on average over the groups", its floor (1 - 2 alpha/K) said in a note below
    alone, as "family-wise on average"."""
    argv = ["estimate", str(EXAMPLE_POOL), "--label", "human", "--judge", "gpt4,gpt35",
            "--group", "system", "--item", "id", "--scale", "1:5", "--engine", "freq",
            "--pooling", "shrink"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    header = next(ln for ln in out.splitlines() if ln.startswith("mean per 'system'"))
    assert "so all hold together at 95%, and each at least 99.2% for its own" in header


def test_plans_example_goal_for_a_group_is_about_half_its_interval_now() -> None:
    """WMT22's 16 systems at 140 labels: ``bacon plan`` without a goal offered
    "--half-width 0.58 --group-mean AISP-SJTU" where the pool mean's example was 0.29,
    twice the pool mean's goal whatever the number of groups: a group's interval is about
    sqrt(16) = 4 times the pool mean's, so that example asked each system for 16 times its
    labels, where the pool mean's asked for 4."""
    from bacon_bayes import EvalPool
    from bacon_bayes.planning.note import goal_examples

    rng = np.random.default_rng(2)
    n = 1600
    q = rng.normal(0, 1, n)
    frame = pd.DataFrame(
        {
            "system": np.repeat([f"s{k}" for k in range(16)], n // 16),
            "j": q + rng.normal(0, 0.5, n),
            "y": np.where(rng.random(n) < 0.1, q, np.nan),
        }
    )
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous", group="system")
    examples = dict(goal_examples(pool, now=0.2))
    assert "--half-width 0.1" in examples
    group = next(g for g in examples if "--group-mean" in g)
    assert group.startswith("--half-width 0.4 ")
