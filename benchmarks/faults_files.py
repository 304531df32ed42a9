"""The fault cases of issue 42 about files (round two of "nothing lost"), over
:data:`benchmarks.faults_lib.COMMANDS`, in the form of :mod:`benchmarks.faults_cases`:
each function ``(command, root)`` lays the inputs out in ``root``, injects one fault, runs
the command and returns an :class:`~benchmarks.faults_lib.Outcome` (None where the case
does not apply). :data:`FILE_CASES` names them; ``python -m benchmarks.fault_matrix``
runs them with the cases of issue 33.

The faults: a device, FIFO or socket at an output path; an empty file of the user's
there; a name too long for its temporary name; a second run with another state folder
while a first holds the output; a state folder that is a file or read-only; the study
folder's clean-up meeting a user's dot-file or a dead writer's temp folder; the study's
own lock as an output; ``judge --cache`` naming a database of the user's, ``--log`` naming
the template, and an ``--out`` suffix it cannot write.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from benchmarks.faults_cases import _argv, _finish, case_concurrent, tmpfs
from benchmarks.faults_lib import FOREIGN, Command, Outcome, prepare, run, snapshot

#: what the message of a refusal says, by case
FILE_EXPECT = {
    "FIFO at output": "not a regular file",
    "device at output": "not a regular file",
    "socket at output": "not a regular file",
    "empty file at output": "refusing to replace",
    "name of 250 bytes": "bytes long",
    "another state folder holds it": "another bacon process",
    "state folder is a file": "state folder",
    "read-only state folder": "state folder",
    "study's lock as output": "never replaces an input",
    "judge --cache is a user's database": "not a cache bacon made",
    "judge --log is the template": "is the input",
    "suffix it cannot write": "use a .parquet or .csv file name",
}
TEMPLATE = 'version = "1"\nuser = "Rate this essay: {full_text}"\nparser = "number"\n'


def run_timed(argv: list[str], root: Path, seconds: int = 120) -> tuple[int, str]:
    """:func:`~benchmarks.faults_lib.run` stopped by SIGALRM after ``seconds`` (a read
    of a FIFO blocks for ever): then exit 1 and a traceback of the TimeoutError."""

    def stop(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer in {seconds} s: blocked (on a FIFO?)")

    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        return run(argv, root)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def _file_output(cmd: Command) -> bool:
    return not cmd.folder and cmd.name != "label import"


def _kind(path: Path) -> int:
    return stat.S_IFMT(os.lstat(path).st_mode) if os.path.lexists(path) else 0


def make_node(path: Path, kind: str) -> contextlib.AbstractContextManager:
    """A FIFO, a character device like /dev/null (root only) or a listening socket at
    ``path``; the socket's is closed on exit."""
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "device":
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:
        sock = socket.socket(socket.AF_UNIX)
        here = os.getcwd()
        os.chdir(path.parent)  # a short relative name: the socket path limit is 108 bytes
        try:
            sock.bind(path.name)
        finally:
            os.chdir(here)
        return contextlib.closing(sock)
    return contextlib.nullcontext()


def case_node(cmd: Command, root: Path, kind: str) -> Outcome | None:
    """A FIFO, device or socket at a file output (``--force`` given): refused, the node
    kept, nothing opened (a blocked open is stopped by :func:`run_timed`)."""
    if not _file_output(cmd) or (kind == "device" and os.geteuid() != 0):
        return None
    prepare(cmd, root)
    target = root / cmd.out
    with make_node(target, kind):
        mode = _kind(target)
        before = snapshot(root)
        code, err = run_timed(_argv(cmd, cmd.out, force=True), root)
        outcome = _finish(cmd, root, before, cmd.out, code, err)
        outcome.earlier = "kept" if _kind(target) == mode else "LOST"
    return outcome


def case_empty(cmd: Command, root: Path) -> Outcome | None:
    """An empty file of the user's at the output (a lock, a marker): like any foreign
    file, refused without ``--force``."""
    if not cmd.ledger or cmd.folder:
        return None
    prepare(cmd, root)
    (root / cmd.out).write_bytes(b"")
    before = snapshot(root)
    code, err = run(_argv(cmd, cmd.out), root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_long_name(cmd: Command, root: Path) -> Outcome | None:
    """An output name of 250 bytes (a file system allows 255): its temporary name cannot
    be, so it is refused before the work."""
    if not cmd.ledger:
        return None
    prepare(cmd, root)
    suffix = Path(cmd.out).suffix
    out = "n" * (250 - len(suffix)) + suffix
    before = snapshot(root)
    code, err = run(_argv(cmd, out), root)
    return _finish(cmd, root, before, out, code, err)


def case_other_state(cmd: Command, root: Path) -> Outcome | None:
    """A first run holds the output with another ``BACON_STATE_DIR`` (another user, sudo,
    another host): a second run is refused at once; the first is killed and the command
    run again."""
    if not cmd.ledger:
        return None
    return case_concurrent(cmd, root, BACON_STATE_DIR=tempfile.mkdtemp(prefix="bacon-state-"))


@contextlib.contextmanager
def state_folder(path: Path) -> Iterator[None]:
    """``BACON_STATE_DIR`` set to ``path`` for the duration."""
    before = os.environ.get("BACON_STATE_DIR")
    os.environ["BACON_STATE_DIR"] = str(path)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("BACON_STATE_DIR", None)
        else:
            os.environ["BACON_STATE_DIR"] = before


def case_state_file(cmd: Command, root: Path) -> Outcome | None:
    """``BACON_STATE_DIR`` names a file: refused, naming it (no silent fallback)."""
    if not cmd.ledger:
        return None
    prepare(cmd, root)
    state = Path(tempfile.mkdtemp(prefix="bacon-state-file-")) / "state"
    state.write_text("not a folder\n")
    before = snapshot(root)
    with state_folder(state):
        code, err = run(_argv(cmd, cmd.out), root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_state_read_only(cmd: Command, root: Path) -> Outcome | None:
    """``BACON_STATE_DIR`` on a read-only file system (root: a tmpfs remounted read-only):
    refused, naming the state folder, before any work."""
    if not cmd.ledger:
        return None
    prepare(cmd, root)
    before = snapshot(root)
    place = Path(tempfile.mkdtemp(prefix="bacon-ro-state-"))
    with tmpfs(place, "1m"):
        (place / "state").mkdir()
        subprocess.run(["mount", "-o", "remount,ro", str(place)], check=True)
        with state_folder(place / "state"):
            code, err = run(_argv(cmd, cmd.out), root)
    shutil.rmtree(place, ignore_errors=True)  # the mount point, left after unmounting
    return _finish(cmd, root, before, cmd.out, code, err)


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def case_study_dotfile(cmd: Command, root: Path) -> Outcome | None:
    """A user's ``.notes.tmp-keep`` in the study folder: the study's clean-up of
    interrupted writes leaves it (it is not bacon's)."""
    if not cmd.changes:
        return None
    prepare(cmd, root)
    (root / "study" / ".notes.tmp-keep").write_bytes(FOREIGN)
    before = snapshot(root)
    code, err = run(cmd.argv(cmd.out), root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_study_dead_temp(cmd: Command, root: Path) -> Outcome | None:
    """A killed ``bacon simulate --out study/sim`` left its temp folder
    ``.sim.bacon-tmp-PID-0/`` in the study: the next study write removes it (its writer
    is gone) instead of failing on it; a live writer's temp is left."""
    if not cmd.changes:
        return None
    prepare(cmd, root)
    before = snapshot(root)
    dead = root / "study" / f".sim.bacon-tmp-{_dead_pid()}-0"
    dead.mkdir()
    (dead / "summary.csv").write_text("a,b\n1,2\n")
    live = root / "study" / f".sim.bacon-tmp-{os.getppid()}-7"  # a running writer's
    live.write_text("being written\n")
    code, err = run(cmd.argv(cmd.out), root)
    kept = live.exists()
    live.unlink(missing_ok=True)
    outcome = _finish(cmd, root, before, cmd.out, code, err)
    outcome.inputs_same = outcome.inputs_same and kept
    if dead.exists() or not kept:
        left = "left" if dead.exists() else "removed"
        outcome.note = f"CLEAN-UP: dead temp {left}, live temp {'kept' if kept else 'REMOVED'}"
    return outcome


def case_study_lock(cmd: Command, root: Path) -> Outcome | None:
    """``--out study/.lock`` (``--force``): the study's own lock is never an output."""
    if cmd.name not in ("sample", "status --pending-out"):
        return None
    prepare(cmd, root)
    (root / "study" / ".lock").touch()
    before = snapshot(root)
    code, err = run(_argv(cmd, "study/.lock", force=True), root)
    return _finish(cmd, root, before, cmd.out, code, err)


def user_database(path: Path) -> None:
    """A SQLite database of the user's (a table ``people``)."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE people (name TEXT)")
        db.execute("INSERT INTO people VALUES ('ada')")
        db.commit()


def case_judge_cache(cmd: Command, root: Path) -> Outcome | None:
    """``judge --cache mydata.db``, a database of the user's: refused (bacon would add
    its tables), the database byte for byte as it was."""
    if cmd.name != "judge":
        return None
    prepare(cmd, root)
    user_database(root / "mydata.db")
    before = snapshot(root)
    code, err = run([*cmd.argv(cmd.out), "--cache", "mydata.db"], root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_judge_log(cmd: Command, root: Path) -> Outcome | None:
    """``judge --template tpl.toml --log tpl.toml``: the log would be appended to the
    template; refused, the template unchanged."""
    if cmd.name != "judge":
        return None
    prepare(cmd, root)
    (root / "tpl.toml").write_text(TEMPLATE)
    argv = [*cmd.argv(cmd.out), "--log", "tpl.toml"]
    argv[argv.index("--template") + 1] = "tpl.toml"
    before = snapshot(root)
    code, err = run_timed(argv, root)
    return _finish(cmd, root, before, cmd.out, code, err)


def case_suffix(cmd: Command, root: Path) -> Outcome | None:
    """``--out scores.json``: a suffix the command cannot write, refused before any work
    (``judge``: before any call, and no cache left)."""
    if cmd.name not in ("judge", "embed"):
        return None
    prepare(cmd, root)
    before = snapshot(root)
    code, err = run(_argv(cmd, "out.json"), root)
    return _finish(cmd, root, before, "out.json", code, err)


FILE_CASES: dict[str, Callable[[Command, Path], Outcome | None]] = {
    "FIFO at output": lambda c, r: case_node(c, r, "FIFO"),
    "device at output": lambda c, r: case_node(c, r, "device"),
    "socket at output": lambda c, r: case_node(c, r, "socket"),
    "empty file at output": case_empty,
    "name of 250 bytes": case_long_name,
    "another state folder holds it": case_other_state,
    "state folder is a file": case_state_file,
    "read-only state folder": case_state_read_only,
    "user's dot-file in the study": case_study_dotfile,
    "dead writer's temp folder in the study": case_study_dead_temp,
    "study's lock as output": case_study_lock,
    "judge --cache is a user's database": case_judge_cache,
    "judge --log is the template": case_judge_log,
    "suffix it cannot write": case_suffix,
}
#: the cases that mount a tmpfs (root only)
MOUNTS = ("read-only state folder",)
