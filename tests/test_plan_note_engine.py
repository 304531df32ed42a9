"""The comparisons' plan line of a Bayesian run quotes the table just printed and its
``bacon plan`` command carries ``--engine bayes`` (tester A finding 1: a Bayesian run's
line quoted the frequentist engine's lead, M22 over M23 by 0.0921 under a table giving
0.1091, and on TriviaQA named another leader; the printed command planned on freq).
No NUTS here: the fitted calibrator is a frequentist one that says it is Bayesian."""

from __future__ import annotations

import argparse

import bacon_bayes.cli.estimate as cli_estimate
import bacon_bayes.planning as planning
from bacon_bayes.cli import main
from bacon_bayes.cli.printed import plan_command
from tests.test_printed_commands import READ, table


def test_a_bayesian_run_plans_on_its_own_calibrator_and_says_the_engine(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    table(tmp_path, gap=0.0)
    fitted = []
    real_fit = cli_estimate.fit_from_args

    def fit(args: argparse.Namespace):
        cal, saved = real_fit(args)
        cal.engine_ = "bayes"  # as a Bayesian fit would set it
        fitted.append(cal)
        return cal, saved

    seen: dict = {}
    real_note = planning.resolution_note

    def note(pool, *a, **kw):
        seen.update(kw)
        return real_note(pool, *a, **kw)

    monkeypatch.setattr(cli_estimate, "fit_from_args", fit)
    monkeypatch.setattr(planning, "resolution_note", note)
    assert main(["estimate", "pool.csv", *READ]) == 0
    out = capsys.readouterr().out
    assert seen, out  # the plan's line was asked for
    # the pilot is the calibrator whose table was printed, not a fresh frequentist fit
    assert seen["calibrator"] is fitted[0]
    assert "--engine bayes" in seen["plan_command"]
    run = [line for line in out.splitlines() if line.strip().startswith("run: bacon plan")]
    assert run and "--engine bayes" in run[0], out


def test_a_frequentist_plan_command_names_no_engine():
    args = argparse.Namespace(
        alpha=0.05, model=None, pooling="auto", better=None, file="pool.csv", item=None,
        label="human", labels=None, scores=None, group="system", prompt=None, outcome=None,
        levels=None, scale=None, propensity=None, embedding=None, prompt_propensity=None,
        folds=5, seed=0, judge=None, drop_unscored=False,
    )  # fmt: skip

    class Pool:
        judges = ("a",)

    assert "--engine" not in plan_command(args, Pool(), "freq")  # type: ignore[arg-type]
    assert "--engine bayes" in plan_command(args, Pool(), "bayes")  # type: ignore[arg-type]


def test_a_preset_run_s_plan_command_carries_the_preset(tmp_path, capsys):
    """Helper W14: WMT22 with `bacon estimate ... --preset hurdle_mqm` quoted the preset
    fit's lead and printed `run: bacon plan ... --outcome nonnegative --engine bayes
    --top`, with no preset (bacon plan had no --preset): the command planned on the
    hurdle model's default options, not the square root and judge weights just fitted.
    The command carries --preset, which bacon plan now takes (engine auto: bayes)."""
    import shlex

    from bacon_bayes.cli import build_parser
    from bacon_bayes.cli.plan import _engine
    from bacon_bayes.cli.pool_args import calibrator_from_args, pool_from_args

    path = table(tmp_path)
    argv = ["estimate", str(path), *READ, "--preset", "hurdle_mqm"]
    args = build_parser().parse_args(argv)
    words = shlex.split(plan_command(args, pool_from_args(args), "bayes"))
    assert words[words.index("--preset") + 1] == "hurdle_mqm" and "--engine" in words
    plan = build_parser().parse_args(words[1:])  # runs as printed: plan takes --preset
    assert plan.preset == "hurdle_mqm" and calibrator_from_args(plan).preset == "hurdle_mqm"
    auto = build_parser().parse_args([w for w in words[1:] if w not in ("--engine", "bayes")])
    assert _engine(auto) == "engine: bayes (--preset hurdle_mqm)" and auto.engine == "bayes"
