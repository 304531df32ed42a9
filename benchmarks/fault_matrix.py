"""Fault injection over every writing command (issues 33 and 42): a markdown table of
case x command x outcome.

For each case of :data:`benchmarks.faults_cases.CASES` and
:data:`benchmarks.faults_files.FILE_CASES` (devices, FIFOs and sockets at an output, an
empty file of the user's, long names, another state folder, the study's clean-up, the
judge's cache and log) and each command of
:data:`benchmarks.faults_lib.COMMANDS` (where the case applies) the command is run with
the fault injected in a fresh folder, and the table records the exit code (-9: killed),
the message (``TRACEBACK`` when an exception escaped), whether every input is byte for
byte unchanged, what became of an earlier output (kept / replaced by a whole new one /
set aside by a kill between the two renames of a folder swap, put back by the next run /
LOST), whether a file that reads as valid but is incomplete was left, and after a kill
or a refused second run whether running again succeeded with no temp file left.

Run: ``PYTHONPATH=. .venv/bin/python -m benchmarks.fault_matrix [CASE_SUBSTRING ...]``
(as root, for the read-only and full-disk cases: they mount a tmpfs; else they are
skipped). Not part of ``make bench`` (which runs the ``bench_*`` modules only).
Ledger and locks go to a temporary ``$BACON_STATE_DIR``. Exit 1 when a cell shows a loss
or a traceback.
"""

from __future__ import annotations

import datetime
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    state = tempfile.mkdtemp(prefix="bacon-faults-state-")
    os.environ["BACON_STATE_DIR"] = state  # before bacon_bayes reads it
    from bacon_bayes.testing.fake_server import FakeChatServer
    from benchmarks.faults_cases import CASES, can_mount
    from benchmarks.faults_files import FILE_CASES, MOUNTS
    from benchmarks.faults_lib import COMMANDS

    no_mount = can_mount()
    server = FakeChatServer().start()
    os.environ["FAULTS_JUDGE_URL"] = server.url
    rows, bad = [], 0
    started = time.perf_counter()
    try:
        for case, runner in {**CASES, **FILE_CASES}.items():
            if argv and not any(a in case for a in argv):
                continue
            for name, cmd in COMMANDS.items():
                if no_mount and case in ("read-only", "disk full", *MOUNTS):
                    continue
                base = Path(tempfile.mkdtemp(prefix="bacon-fault-"))
                root = base / "ws"
                root.mkdir()
                try:
                    outcome = runner(cmd, root)
                except Exception as exc:  # the harness itself: report, go on
                    rows.append([case, name, "-", f"HARNESS: {type(exc).__name__}: {exc}"[:120]])
                    rows[-1] += ["-"] * 4
                    bad += 1
                    continue
                finally:
                    shutil.rmtree(base, ignore_errors=True)
                if outcome is None:
                    continue
                bad += (
                    outcome.lost or outcome.traceback or outcome.note.startswith(("RERUN", "FAIL"))
                )
                rows.append(_row(case, name, outcome))
                print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    finally:
        server.stop()
        shutil.rmtree(state, ignore_errors=True)
    print(table(rows))
    print(f"\n{len(rows)} runs in {time.perf_counter() - started:.0f} s; {bad} with a problem.")
    if no_mount:
        print(f"read-only and full-disk cases skipped: {no_mount}")
    print(f"{datetime.date.today()}: python -m benchmarks.fault_matrix {' '.join(argv)}".strip())
    return 1 if bad else 0


def _row(case: str, name: str, outcome) -> list[str]:
    message = outcome.message.replace("|", "\\|")
    if len(message) > 110:
        message = message[:107] + "..."
    if outcome.code == -9:
        message = "(killed)"
    partial = ", ".join(outcome.partial) or "no"
    return [
        case,
        name,
        str(outcome.code),
        message or "(none)",
        "yes" if outcome.inputs_same else "**NO**",
        outcome.earlier if outcome.earlier != "LOST" else "**LOST**",
        partial if partial == "no" else f"**{partial}**",
        outcome.note or "-",
    ]


def table(rows: list[list[str]]) -> str:
    head = ["case", "command", "exit", "message", "inputs unchanged", "earlier output",
            "partial valid-looking file", "then"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
