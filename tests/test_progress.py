"""Progress bars (bacon_bayes.progress): drawn on a terminal only, silent in pipes and
tests; nutpie's reports of several runs add up in one bar."""

from __future__ import annotations

import argparse
import io
import re
import shutil
from pathlib import Path

import pytest

from bacon_bayes import progress
from bacon_bayes.cli import main

ROOT = Path(__file__).resolve().parents[1]


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_quick_work_is_silent_off_a_terminal(capsys, monkeypatch):
    monkeypatch.delenv("BACON_PROGRESS", raising=False)
    with progress.bar(10, "work") as bar:
        assert isinstance(bar, progress.PlainProgress)
        bar.update(10)
    assert capsys.readouterr().err == ""
    for off in (progress.bar(10, "work", show=False), progress.Tally("t", show=False)):
        assert not isinstance(off, progress.PlainProgress) and not getattr(off, "plain", False)
    with progress.silenced():
        assert progress.bar(10, "work").disable


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_come_after_a_tenth_and_thirty_seconds_whichever_is_later(capsys):
    """Without a terminal (a log file in CI) a bar drew nothing for the whole run."""
    clock = _Clock()
    with progress.PlainProgress(100, "judging", "calls", clock=clock) as bar:
        for _ in range(100):
            clock.now += 5.0  # a tenth every 50 s: a line every 50 s
            bar.update(1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 10, lines
    assert lines[0] == "judging: 10/100 calls (10%), 50 s elapsed, about 8 min left"
    assert lines[-1] == "judging: 100/100 calls (100%), 8 min elapsed"
    clock.now = 0.0
    with progress.PlainProgress(100, "judging", "calls", clock=clock) as fast:
        for _ in range(100):
            clock.now += 1.0  # a tenth every 10 s: a line every 30 s
            fast.update(1)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(":")[1].split()[0] for line in lines[:3]] == ["30/100", "60/100", "90/100"]


def test_a_slow_plain_progress_still_says_it_is_alive(capsys):
    clock = _Clock()
    bar = progress.PlainProgress(1000, "scan", "rows", clock=clock)
    for _ in range(7):
        clock.now += 100.0  # 0.1% a step: a line every PLAIN_QUIET seconds
        bar.update(1)
    bar.set_postfix(divergences=2)
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "scan: 3/1,000 rows (0%), 5 min elapsed, about 27 h 41 min left"
    assert lines[1].startswith("scan: 6/1,000 rows")
    assert (
        lines[2] == "scan: 7/1,000 rows (1%), 12 min elapsed, about 27 h 35 min left, divergences 2"
    )


def test_a_bar_draws_on_a_terminal(monkeypatch):
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    with progress.bar(4, "work", unit="fold") as bar:
        assert not bar.disable
        bar.update(4)
    assert "work:" in term.getvalue() and "/4" in term.getvalue()


def test_sampling_progress_adds_up_the_runs_and_divergences():
    with progress.SamplingProgress("sampling", runs=2, total=400, show=True) as bars:
        bars.report(0, "100 200 2 0 0 ")
        bars.report(1, "50 200 2 1 2 ")
        bars.report(0, "200 200 0 0 0 ")
        assert bars.bar.n == 250
        assert bars.divergent == [0, 3]
        bars.report(1, "")  # an empty rendering is ignored
        assert bars.bar.n == 250


def test_nutpie_reports_only_on_a_terminal():
    from nutpie import _lib

    off = progress.SamplingProgress("sampling", runs=1, total=10, show=False)
    assert isinstance(off.progress_type(0, cores=2), _lib.ProgressType)
    assert not off.on
    on = progress.SamplingProgress("sampling", runs=1, total=10, show=True)
    assert isinstance(on.progress_type(0, cores=2), _lib.ProgressType)
    off.close()
    on.close()


def test_with_progress_hands_nutpie_its_progress_type():
    class Compiled:
        n_dim = 3

        def _make_sampler(self, settings, init_mean, cores, progress_type, store):
            return progress_type

    wrapped = progress.WithProgress(Compiled(), "mine")
    assert wrapped.n_dim == 3
    assert wrapped._make_sampler(None, None, 2, "nutpie's none", None) == "mine"


@pytest.mark.parametrize("terminal", [False, True])
def test_estimate_shows_cross_fitting_on_a_terminal_only(tmp_path, monkeypatch, terminal):
    shutil.copy(ROOT / "bacon_bayes/data/example_pool.csv", tmp_path / "pool.csv")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    err = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    pool = ["pool.csv", "--label", "human", "--judge", "gpt4,llama70b", "--item", "id"]
    code = main(["estimate", *pool, "--engine", "freq", "--surrogates", "none", "--json"])
    assert code == 0
    assert ("cross-fitting" in err.getvalue()) is terminal


def test_arviz_daily_warning_is_not_printed(tmp_path):
    import os
    import subprocess
    import sys

    # a fresh cache folder: ArviZ's daily FutureWarning on import is due
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "PYTHONWARNINGS": "default"}
    done = subprocess.run(
        [sys.executable, "-c", "import bacon_bayes, arviz"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    if not (tmp_path / "arviz" / "daily_warning").exists():
        pytest.skip("this arviz version has no daily warning")
    # ArviZ stamped the day: it issued the warning, and the filter kept it off stderr
    assert "ArviZ" not in done.stderr


def test_silenced_turns_the_bars_off_and_back(monkeypatch):
    monkeypatch.setattr("sys.stderr", _Terminal())
    monkeypatch.delenv("BACON_PROGRESS", raising=False)
    assert progress.shown()
    with progress.silenced():
        assert not progress.shown()
        assert progress.shown(True)  # an explicit request still draws
    assert progress.shown()


def test_one_progress_mechanism_simulate_and_judge_use_tqdm():
    """Issue 43: simulate drew a hand-made bar and judge a rich one; both are
    bacon_bayes.progress now, and nothing imports rich."""
    import bacon_bayes.simulation.montecarlo as montecarlo

    assert not hasattr(montecarlo, "stderr_progress")
    for path in (ROOT / "bacon_bayes").rglob("*.py"):
        assert not re.search(r"^\s*(from|import) rich\b", path.read_text(), re.M), path
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"rich' not in pyproject


def test_a_tally_draws_one_bar_decided_before_silencing(monkeypatch):
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    monkeypatch.delenv("BACON_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    tally = progress.Tally("trials")
    with progress.silenced():  # simulate silences the per-fit bars, not its own
        for done in range(1, 6):
            tally(done, 5)
    assert "trials:" in term.getvalue() and "/5" in term.getvalue()
    assert tally.bar.n == 5
    off = progress.Tally("trials", show=False)
    off(1, 2)
    assert off.bar.disable


def test_simulate_counts_its_trials_on_the_tally(monkeypatch):
    from bacon_bayes.cli import simulate

    seen = []
    monkeypatch.setattr(simulate, "_run", lambda args, tally: seen.append(tally) or 0)
    args = argparse.Namespace(ablation=None)
    assert simulate.run(args) == 0
    assert isinstance(seen[0], progress.Tally) and seen[0].desc == "trials"


def test_a_streamed_estimate_off_a_terminal_shows_plain_lines(tmp_path, monkeypatch, capsys):
    import numpy as np
    import pandas as pd

    from bacon_bayes import Calibrator
    from bacon_bayes.stream import estimate_stream

    monkeypatch.setattr(progress, "PLAIN_SECONDS", 0.0)
    monkeypatch.delenv("BACON_PROGRESS", raising=False)
    r = np.random.default_rng(0)
    y = r.standard_normal(4000)
    df = pd.DataFrame(
        {"j": y + r.standard_normal(4000), "label": np.where(r.random(4000) < 0.1, y, np.nan)}
    )
    df.to_parquet(tmp_path / "p.parquet", row_group_size=400)
    estimate_stream(tmp_path / "p.parquet", Calibrator(engine="freq"), label="label", judges=["j"],
                    chunk_rows=400, threads=1)  # fmt: skip
    lines = capsys.readouterr().err.splitlines()
    assert "scan: 400/4,000 rows (10%)" in lines[0], lines
