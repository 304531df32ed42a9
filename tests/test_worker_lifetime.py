"""Worker processes end with their parent: SIGKILL a ``bacon simulate --workers 2`` (or
``--scheduler local:2``) run and none of its worker processes is left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process table in /proc"
)


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (from /proc)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, ...
        if fields[0] != "Z":  # zombies are gone, only not reaped yet
            out[int(entry.name)] = int(fields[1])
    return out


def _descendants(pid: int) -> set[int]:
    parents = _parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _alive(pids: set[int]) -> set[int]:
    running = set(_parents())
    return pids & running


def _table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    y = rng.integers(1, 6, 80).astype(float)
    path = tmp_path / "table.csv"
    pd.DataFrame({"y": y, "j": y + rng.normal(0, 1, y.size)}).to_csv(path, index=False)
    return path


def _start(tmp_path: Path, *parallel: str) -> subprocess.Popen:
    code = "import sys; from bacon_bayes.cli import main; sys.exit(main())"
    argv = [sys.executable, "-c", code, "simulate", str(_table(tmp_path)), "--label", "y",
            "--judges", "j", "--budgets", "0.5", "--trials", "100000", *parallel,
            "--out", str(tmp_path / "out")]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )


def _wait_for_workers(proc: subprocess.Popen, least: int, timeout: float = 90.0) -> set[int]:
    """The run's worker processes once at least ``least`` exist and have run a while."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        workers = _descendants(proc.pid)
        if len(workers) >= least:
            time.sleep(3.0)  # let them start their trials (and their watchdogs)
            return _descendants(proc.pid)
        time.sleep(0.2)
    raise AssertionError(f"no {least} worker processes within {timeout} s")


def _kill_and_check(proc: subprocess.Popen, workers: set[int]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    end = time.monotonic() + 10.0
    while _alive(workers) and time.monotonic() < end:
        time.sleep(0.2)
    left = _alive(workers)
    for pid in left:  # leave nothing behind, whatever the outcome
        os.kill(pid, signal.SIGKILL)
    assert not left, f"worker processes {sorted(left)} outlived their killed parent"


def test_local_workers_die_with_their_parent(tmp_path):
    proc = _start(tmp_path, "--workers", "2")
    workers = _wait_for_workers(proc, 2)
    _kill_and_check(proc, workers)


def test_local_dask_workers_die_with_their_parent(tmp_path):
    pytest.importorskip("distributed")
    proc = _start(tmp_path, "--scheduler", "local:2")
    workers = _wait_for_workers(proc, 2)
    _kill_and_check(proc, workers)
