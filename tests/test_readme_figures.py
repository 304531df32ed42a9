"""The figures the README quotes from its own commands' output are what those commands
print today (the frequentist ones: a few seconds each). Each check reads both sides: the
README still says it, and the command still prints it, so neither drifts alone.
"""

from __future__ import annotations

import re
import shutil
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bacon_bayes" / "data"
README = " ".join((ROOT / "README.md").read_text().split())
NUMBER = r"-?\d+(?:\.\d+)?"


def says(text: str) -> None:
    """The README says ``text`` (whitespace as one space)."""
    assert text in README, f"the README no longer says {text!r}"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    return out


def r2(printed: str | float) -> str:
    """A printed number to two decimals as the README rounds it (half up: 0.705 is 0.71)."""
    return str(Decimal(str(printed)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def intervals(line: str) -> list[tuple[str, str, str]]:
    """Every ``estimate [low, high]`` of a printed row, as printed."""
    return re.findall(rf"({NUMBER}) \[({NUMBER}), ({NUMBER})\]", line)


def row(out: str, first: str) -> str:
    (line,) = [x for x in out.splitlines() if x.split()[:1] == [first]]
    return line


def judge_rows(out: str, judge: str) -> list[tuple[str, str, str]]:
    """A judge's intervals in doctor's two judges-on-pairs tables, in order: position bias
    and tie rate (how it votes), then excess over human, kappa and AUC (against the
    humans)."""
    lines = [x for x in out.splitlines() if x.split()[:1] == [judge]]
    assert len(lines) == 2, lines
    return [iv for line in lines for iv in intervals(line)]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BACON_STATE_DIR", str(tmp_path / ".state"))
    return tmp_path


def test_the_arena_figures(folder, capsys):
    shutil.copy(DATA / "arena_sample.csv.gz", folder)
    out = run(["doctor", "arena_sample.csv.gz"], capsys)
    bias, _, _, kappa, auc = judge_rows(out, "gpt35")
    says("GPT-3.5 says A far more than B (position bias 0.73 [0.71, 0.75], kappa 0.08)")
    assert [r2(v) for v in bias] == ["0.73", "0.71", "0.75"]
    assert r2(kappa[0]) == "0.08"
    _, _, _, kappa, auc = judge_rows(out, "gpt4")
    says("GPT-4 agrees best with the humans (kappa 0.36, AUC 0.83)")
    assert (r2(kappa[0]), r2(auc[0])) == ("0.36", "0.83")

    out = run(["estimate", "arena_sample.csv.gz", "--pairwise", "--engine", "freq"], capsys)
    says("the judges make the intervals 0.89 times as wide as Bradley-Terry")
    assert "width ratio 0.89" in out

    out = run(
        ["sample", "arena_sample.csv.gz", "--pairwise", "--design", "stratified", "--budget",
         "358", "--engine", "freq"],
        capsys,
    )  # fmt: skip
    says("the stratified wave of 358 below draws 365")
    assert "365 comparisons to label (358 expected" in out


def test_the_next_round_figures(folder, capsys):
    for k in (1, 2):
        shutil.copy(DATA / f"example_round{k}.csv", folder / f"round{k}.csv")
    base = ["--label", "human", "--group", "system"]
    judges = ["--judge", "gpt4", "--judge", "gpt35", "--judge", "llama70b"]
    run(["estimate", "round1.csv", *base, *judges, "--scale", "1:5", "--save", "round1.nc"],
        capsys)  # fmt: skip
    out = run(["estimate", "round2.csv", *base, "--calibrator", "round1.nc"], capsys)
    table = out[out.index("Transport check") :]
    says("the fresh labels sit 0.25 above the frozen surrogate, 0.58 for M23")
    everything, m23 = row(table, "(all)").split(), row(table, "M23").split()
    assert (r2(everything[3]), r2(m23[3])) == ("0.25", "0.58")
    assert "drifted" in everything and "new" in m23
    out = run(["drift", "round1.csv", "--calibrator", "round1.nc", "--judge-version",
               "gpt35=gpt35_mcq"], capsys)  # fmt: skip
    says("The prompt change moves gpt35 up by 0.73 on its scale")
    assert r2(row(out, "gpt35").split()[3]) == "0.73"


def test_the_frequentist_judge_bias_figures():
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.judge_bias import informativeness

    frame = pd.read_csv(DATA / "example_pool.csv")
    judges = ["gpt4", "gpt35", "gpt35_mcq", "llama70b", "llama13b", "llama7b"]
    pool = EvalPool.from_frame(
        frame, label="human", judges=judges, outcome="continuous", group="system", item="id"
    )
    table = Calibrator(engine="freq", seed=0).fit(pool).judge_bias()
    table = informativeness(table, float(frame["human"].std())).set_index("judge")
    says("gpt4's noise in human units is 1.82 (frequentist)")
    says("its signal 0.14 and 0.39")
    assert r2(round(table.loc["gpt4", "noise_human"], 3)) == "1.82"
    assert r2(round(table.loc["gpt4", "signal"], 3)) == "0.14"
    says("the frequentist table marks the three Llama judges uninformative")
    marked = table.index[table["verdict"] == "uninformative"].tolist()
    assert marked == ["llama70b", "llama13b", "llama7b"]
