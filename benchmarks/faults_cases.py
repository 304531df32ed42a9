"""The fault cases of issue 33 over :data:`benchmarks.faults_lib.COMMANDS`: each case
function ``(command, root)`` lays the command's inputs out in the empty folder ``root``,
injects one fault (an output path that is an input, a file of the user's at the output,
a read-only or full file system, a kill at a commit point, a second run at once), runs
the command and returns an :class:`~benchmarks.faults_lib.Outcome` (None where the case
does not apply to the command). :data:`CASES` names them all; :data:`EXPECT` holds the
words of each refusal."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd

from benchmarks.faults_lib import (
    FOREIGN,
    Command,
    Outcome,
    _ours,
    judge_outcome,
    kill,
    paused,
    prepare,
    run,
    snapshot,
)

#: what the message of a refusal says, by case
EXPECT = {
    "output = input": "never replaces an input",
    "output inside input folder": "is inside the input folder",
    "output holds input": "holds the input",
    "foreign file": "refusing to replace",
    "foreign name in folder, --force": "refusing to replace",
    "missing folder": "does not exist",
    "read-only": "read-only",
    "disk full": "no space left",
    "two runs at once": "another bacon process",
}
#: the arguments of "output inside input folder" and "output holds input", by command
INSIDE = {
    "report": "simdir/r.html",
    "estimate --items-out": "data/items.parquet",
}


def _argv(cmd: Command, out: str, force: bool = False) -> list[str]:
    return [*cmd.argv(out), *(["--force"] if force and cmd.force else [])]


def _finish(
    cmd: Command, root: Path, before: dict[str, bytes], out: str, code: int | None, err: str
) -> Outcome:
    """:func:`judge_outcome`, and an earlier output folder found whole where a kill
    between the two renames of a folder swap set it aside is "set aside"."""
    outcome = judge_outcome(cmd, root, before, out, code, err)
    if outcome.earlier == "LOST":
        target = root / out
        earlier = {k[len(out) + 1 :]: v for k, v in before.items() if k.startswith(out + "/")}
        for old in target.parent.glob(f".{target.name}.bacon-old-*"):
            if snapshot(old) == earlier:
                outcome.earlier = "set aside"
    return outcome


def rerun(cmd: Command, root: Path, outcome: Outcome, out: str | None = None) -> Outcome:
    """After a fault: run the command again (``--force`` not given); notes in
    ``outcome.note`` whether it succeeded and left no temp file of ours behind."""
    out = out or cmd.out
    code, err = run(cmd.argv(out), root)
    left = [r for r in snapshot(root) if _ours(r)]
    left += [p.name for p in root.iterdir() if _ours(p.name)]  # empty temp folders
    complete = (root / out).exists() and cmd.complete(root / out)
    if code == 0 and complete and not left:
        outcome.note = "rerun ok"
    else:
        last = err.strip().splitlines()[-1:] or [""]
        outcome.note = (
            f"RERUN: exit {code}, complete {complete}, left {sorted(set(left))} {last[0]}"
        )
    return outcome


def case_output_is_input(cmd: Command, root: Path) -> Outcome | None:
    if cmd.ledger is False or cmd.name == "report":
        return None  # library writers take any path; a report is .html, never an input
    prepare(cmd, root)
    before = snapshot(root)
    code, err = run(_argv(cmd, cmd.input, force=True), root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_inside_input(cmd: Command, root: Path) -> Outcome | None:
    if cmd.name not in INSIDE:
        return None
    argv = _argv(cmd, INSIDE[cmd.name], force=True)
    if cmd.name == "report":
        argv += ["--simulate", "simdir"]
    else:
        argv[1] = "data"
    prepare(cmd, root)
    before = snapshot(root)
    code, err = run(argv, root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_holds_input(cmd: Command, root: Path, how: str = ".") -> Outcome | None:
    """``simulate t.csv --out .`` (or ``--out ../ROOT``) run from the data's folder,
    beside a README of the user's."""
    if not cmd.folder:
        return None
    prepare(cmd, root)
    (root / "README.md").write_text("my notes about this data\n")
    before = snapshot(root)
    out = "." if how == "." else f"../{root.name}"
    code, err = run(_argv(cmd, out, force=True), root)
    return _finish(cmd, root, before, cmd.out, code, err)


def _spoil(cmd: Command, root: Path) -> None:
    """Make the earlier output one bacon did not write: a file of the user's there,
    labels filled into a to-label file, an edited summary.csv in an output folder."""
    target = root / cmd.out
    if cmd.folder:
        with open(target / "summary.csv", "a") as handle:
            handle.write("my,own,row\n")
    elif cmd.name == "sample":
        todo = pd.read_csv(target, dtype=str)
        todo[todo.columns[1]] = "3"
        todo.to_csv(target, index=False)
    else:
        target.write_bytes(FOREIGN)


def case_foreign(cmd: Command, root: Path, force: bool = False) -> Outcome | None:
    if not cmd.ledger:
        return None  # no ledger: a library writer or a study's own file
    prepare(cmd, root, earlier=True)
    _spoil(cmd, root)
    before = snapshot(root)
    code, err = run(_argv(cmd, cmd.out, force), root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_foreign_name(cmd: Command, root: Path) -> Outcome | None:
    """A file of another name in an output folder: refused even with ``--force``."""
    if not cmd.folder:
        return None
    prepare(cmd, root, earlier=True)
    (root / cmd.out / "notes.txt").write_bytes(FOREIGN)
    before = snapshot(root)
    code, err = run(_argv(cmd, cmd.out, force=True), root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_missing_folder(cmd: Command, root: Path) -> Outcome | None:
    if cmd.name == "label import":
        return None
    prepare(cmd, root)
    before = snapshot(root)
    out = f"nowhere/{cmd.out}"
    code, err = run(_argv(cmd, out), root)
    return _finish(cmd, root, before, out, code, err)


@contextlib.contextmanager
def tmpfs(root: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``root`` (needs root; unmounted on exit)."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(root)],
                   check=True, capture_output=True)  # fmt: skip
    try:
        yield root
    finally:
        subprocess.run(["umount", "-l", str(root)], check=False, capture_output=True)


def can_mount() -> str | None:
    """None when tmpfs can be mounted here, else why not."""
    if os.geteuid() != 0:
        return "not root: mounting a tmpfs (full disk, read-only place) needs root"
    probe = Path(tempfile.mkdtemp(prefix="bacon-mount-"))
    try:
        with tmpfs(probe, "64k"):
            pass
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"cannot mount a tmpfs here: {exc}"
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    return None


def fill_disk(folder: Path) -> None:
    """Fill the file system of ``folder`` to the last byte (``filler.bin``)."""
    with open(folder / "filler.bin", "wb", buffering=0) as handle:
        for size in (1 << 20, 1 << 12, 1):
            while True:
                try:
                    if not handle.write(b"\0" * size):
                        break
                except OSError:
                    break


def case_read_only(cmd: Command, root: Path) -> Outcome:
    """Inputs and an earlier output on a file system then made read-only."""
    with tmpfs(root, "16m"):
        prepare(cmd, root, earlier=True)
        subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)
        before = snapshot(root)
        code, err = run(_argv(cmd, cmd.out), root)
        return _finish(cmd, root, before, cmd.out, code, err)


def case_disk_full(cmd: Command, root: Path) -> Outcome:
    """Inputs and an earlier output on a small file system, then filled."""
    with tmpfs(root, "16m"):
        prepare(cmd, root, earlier=True)
        fill_disk(root)
        before = snapshot(root)
        code, err = run(_argv(cmd, cmd.out), root)
        return _finish(cmd, root, before, cmd.out, code, err)


def case_kill(cmd: Command, root: Path, stage: str) -> Outcome | None:
    """SIGKILL at ``stage`` over an earlier output; then a rerun."""
    if (stage == "swapped" and not cmd.folder) or (stage == "claimed" and not cmd.ledger):
        return None
    prepare(cmd, root, earlier=True)
    before = snapshot(root)
    proc = paused(cmd.argv(cmd.out), root, stage)
    kill(proc)
    outcome = _finish(cmd, root, before, cmd.out, proc.returncode, "killed (SIGKILL)")
    return rerun(cmd, root, outcome)


def case_concurrent(cmd: Command, root: Path, **env: str) -> Outcome:
    """A second run while a first holds the output (paused in a child process, with
    ``env`` added to its environment and ``--force`` when given one); the first is then
    killed, and the command run again."""
    prepare(cmd, root, earlier=True)
    before = snapshot(root)
    first = paused(_argv(cmd, cmd.out, force=bool(env)), root, cmd.hold, **env)
    try:
        code, err = run(cmd.argv(cmd.out), root)
    finally:
        kill(first)
    outcome = _finish(cmd, root, before, cmd.out, code, err)
    return rerun(cmd, root, outcome)


CASES: dict[str, Callable[[Command, Path], Outcome | None]] = {
    "output = input": case_output_is_input,
    "output inside input folder": case_inside_input,
    "output holds input (--out .)": case_holds_input,
    "output holds input (--out ../DIR)": lambda c, r: case_holds_input(c, r, "up"),
    "foreign file": case_foreign,
    "foreign file, --force": lambda c, r: case_foreign(c, r, force=True),
    "foreign name in folder, --force": case_foreign_name,
    "missing folder": case_missing_folder,
    "read-only": case_read_only,
    "disk full": case_disk_full,
    "kill -9 at claimed": lambda c, r: case_kill(c, r, "claimed"),
    "kill -9 at commit": lambda c, r: case_kill(c, r, "commit"),
    "kill -9 at swapped": lambda c, r: case_kill(c, r, "swapped"),
    "two runs at once": case_concurrent,
}

# issue 42's defects 2, 7, 10 and 12: crashes, tracebacks, formula injection, smaller faults
from benchmarks.faults_crash_cases import CASES as _CRASH_CASES  # noqa: E402

CASES.update(_CRASH_CASES)
