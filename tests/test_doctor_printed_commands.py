"""The commands ``bacon doctor`` prints run as printed on the tables it is shown
(tester B, session 36): the shipped tool logs, a small pilot, bacon judge's own long
table and a table with a column of label waves."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from bacon_bayes.cli import main

LOGS = Path(__file__).resolve().parents[1] / "examples" / "logs"


def _simulate_line(out: str) -> list[str]:
    line = next(ln for ln in out.splitlines() if "bacon simulate measures" in ln)
    return shlex.split(line.split("draws samples of them): ", 1)[1])


@pytest.mark.parametrize(
    "log, labels",
    [("run.eval", "labels.csv"), ("samples_mytask_2026-01-01T00-00-00.jsonl", "doc_labels.csv")],
)
def test_the_simulate_command_doctor_prints_on_a_tool_log_runs(
    log, labels, tmp_path, capsys, monkeypatch
):
    """B F1/F2: on the README's Inspect AI and lm-eval logs (60 labels), doctor's
    `bacon simulate` command failed as printed: simulate read the Inspect zip as a CSV
    for its judges ('cannot be read ... Replace or remove it'), refused the lm-eval log
    ('no judges given') although estimate takes the format's judges, and its default
    budget 0.05 gives 3 labels, fewer than two per fold. Now simulate takes the format's
    judges and doctor names budgets the labeled rows carry."""
    monkeypatch.chdir(tmp_path)
    for name in (log, labels):
        shutil.copy(LOGS / name, name)
    assert main(["doctor", log, "--labels", labels, "--label", "human"]) == 0
    words = _simulate_line(capsys.readouterr().out)
    assert words[:3] == ["bacon", "simulate", log] and "--judge" not in words
    assert words[words.index("--budgets") + 1] == "0.2,0.3,0.5"
    assert main([*words[1:], "--trials", "2"]) == 0
    assert (tmp_path / "simulation" / "summary.csv").is_file()


POOL = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "example_pool.csv"


def _few(folder: Path) -> Path:
    """The example pool with its first 8 labels kept (6 prompts: 4 folds, not 5)."""
    import pandas as pd

    frame = pd.read_csv(POOL)
    frame.loc[frame.index[frame["human"].notna()][8:], "human"] = float("nan")
    path = folder / "few.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_pilot_too_small_for_five_folds_gets_commands_that_run(tmp_path, capsys, monkeypatch):
    """B F6: with 8 labels, doctor said 'lower --folds' (it has no --folds) and printed no
    command; plan's goal-less example `bacon plan few.csv ... --half-width 0.42` was refused
    (too few for 5 folds) and the refusal's 'plan without a pilot' named no way. Now
    doctor's command and plan's example carry --folds 4, the most the labels carry, and
    the refusal says how to plan without the pilot."""
    monkeypatch.chdir(tmp_path)
    _few(tmp_path)
    assert main(["doctor", "few.csv"]) == 0
    out = capsys.readouterr().out
    assert "the command takes --folds 4, the most they carry" in out
    lines = out.splitlines()
    estimate = shlex.split(lines[lines.index("run:") + 1])
    assert estimate[:3] == ["bacon", "estimate", "few.csv"] and estimate[-2:] == ["--folds", "4"]
    assert main([*estimate[1:], "--engine", "freq", "--json"]) == 0
    capsys.readouterr()
    read = ["--label", "human", "--judge", "gpt*"]
    assert main(["plan", "few.csv", *read]) == 2
    example = capsys.readouterr().err.split("for example:\n", 1)[1].splitlines()[0]
    words = shlex.split(example)
    assert words[-2:] == ["--folds", "4"]
    assert main(words[1:]) == 0
    assert "recommended:" in capsys.readouterr().out
    assert main(["plan", "few.csv", *read, "--half-width", "0.4"]) == 2
    said = capsys.readouterr().err.replace("\n", " ")
    assert "--folds 4 is the most these labels carry" in said
    assert "plan without a pilot: on a copy of the table with the label column" in said
