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
