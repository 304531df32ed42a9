"""Fault injection for bacon's writing commands (issue 33, "nothing a user has is lost").

Shared by ``tests/test_faults.py`` and ``benchmarks/fault_matrix.py``. A :class:`Command`
knows how to lay out its inputs in a workspace folder, the argument list that writes its
output there, and how to tell a complete output from a partial one. :func:`run` runs a
command in this process (fast) and :func:`start` in a child process (to be killed);
:func:`judge_outcome` compares the workspace with a snapshot taken before and says what
was lost. The case runners (``case_*``) set one fault up, run the command and return an
:class:`Outcome`; each leaves the workspace for the caller to inspect.

Library writers (``Calibrator.save``, ``forest_plot``) run through the small dispatcher
:func:`dispatch` (``python -m benchmarks.faults_lib save ROOT OUT``), which maps a
:class:`~bacon_bayes.errors.BaconError` to exit 2 and a message as the command line does.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SUMMEVAL_JUDGES = ("judge:gpt-4-0314|rts|relevance", "judge:llama-2-70b-chat-hf|rts|relevance")
FOREIGN = b"my own notes, not bacon's\n"


# --- inputs ------------------------------------------------------------------------------


def summeval_pool(path: Path, n: int = 300) -> None:
    """A SummEval pool with a label on every fifth item (``report``, ``save``)."""
    from bacon_bayes.demo import load_summeval

    frame = load_summeval().head(n).copy()
    frame = frame[["item", "system", *SUMMEVAL_JUDGES, "expert_mean_relevance"]]
    frame["y"] = frame["expert_mean_relevance"].where(np.arange(len(frame)) % 5 == 0)
    frame.drop(columns="expert_mean_relevance").to_csv(path, index=False)


def sim_table(path: Path, n: int = 400) -> None:
    """The Monte Carlo's small table of tests/simulation/test_montecarlo.py."""
    rng = np.random.default_rng(0)
    q = rng.normal(3, 0.8, n)
    pd.DataFrame(
        {
            "item": [f"i{k}" for k in range(n)],
            "j1": q + rng.normal(0.3, 0.6, n),
            "j2": 0.5 * q + rng.normal(0, 0.8, n),
            "system": np.array(["a", "b", "c", "d"])[np.arange(n) % 4],
            "y": q + rng.normal(0, 0.5, n) + 0.3 * (np.arange(n) % 4),
        }
    ).to_csv(path, index=False)


def stream_table(root: Path, n: int = 3000) -> None:
    """A pool of judge scores with 10% labels, as Parquet (streamed by ``estimate``):
    ``t.parquet``, and the same in a dataset folder ``data``."""
    rng = np.random.default_rng(1)
    y = rng.normal(size=n)
    frame = pd.DataFrame({f"j{k}": y + rng.normal(0, 0.5 + k, n) for k in range(2)})
    frame["label"] = np.where(rng.random(n) < 0.1, y, np.nan)
    frame.to_parquet(root / "t.parquet", index=False)
    (root / "data").mkdir()
    frame.to_parquet(root / "data" / "part-0.parquet", index=False)


def _report_inputs(root: Path) -> None:
    """``pool.csv`` and a ``bacon simulate`` folder ``simdir`` (for ``--simulate``)."""
    summeval_pool(root / "pool.csv")
    sim_table(root / "t.csv")
    code, err = run(["simulate", "t.csv", *SIM_ARGS, "--out", "simdir"], root)
    assert code == 0, err


def essays(path: Path, n: int = 12) -> None:
    """Items for ``judge`` (the essay template) and ``embed``."""
    pd.DataFrame(
        {
            "item": [f"e{i:03d}" for i in range(n)],
            "prompt_name": "Phones and driving",
            "full_text": [f"Essay number {i} about phones and {i % 3} cars." for i in range(n)],
        }
    ).to_csv(path, index=False)


def small_pool(path: Path, n: int = 120) -> None:
    """The pool of a study (``sample``, ``status``, ``label import``)."""
    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, n)
    pd.DataFrame(
        {
            "id": [f"doc{i:03d}" for i in range(n)],
            "judge_a": np.clip(truth + rng.normal(0, 0.7, n), 1, 5).round(2),
            "judge_b": np.clip(truth + rng.normal(0.5, 1.0, n), 1, 5).round(2),
            "truth": truth,
        }
    ).to_csv(path, index=False)


def new_study(root: Path) -> None:
    """pool.csv and a study of one wave of 20 items, its to-label file ``todo.csv``."""
    small_pool(root / "pool.csv")
    code, err = run(
        ["sample", "pool.csv", "--study", "study", "--budget", "20", "--item", "id",
         "--label", "human", "--levels", "1,2,3,4,5", "--outcome", "ordinal",
         "--judges", "judge_a,judge_b", "--out", "todo.csv"],
        root,
    )  # fmt: skip
    assert code == 0, err


def labels_file(root: Path) -> None:
    """A study whose first 10 labels are imported, and ``filled.csv``: its first wave's
    20 items with their true labels."""
    new_study(root)
    todo = pd.read_csv(root / "todo.csv", dtype=str)
    truth = pd.read_csv(root / "pool.csv", dtype={"id": str}).set_index("id")["truth"]
    todo["human"] = truth.loc[todo["id"]].to_numpy()
    todo.to_csv(root / "filled.csv", index=False)
    todo.head(10).to_csv(root / "first.csv", index=False)
    code, err = run(["label", "import", "first.csv", "--study", "study"], root)
    assert code == 0, err


# --- the library writers, as commands ----------------------------------------------------


def _save(root: str, out: str) -> int:
    from bacon_bayes import Calibrator, EvalPool

    frame = pd.read_csv(Path(root) / "pool.csv")
    pool = EvalPool.from_frame(
        frame, label="y", judges=list(SUMMEVAL_JUDGES), outcome="continuous", group="system"
    )
    Calibrator(engine="freq", seed=0).fit(pool).save(out)
    return 0


def _forest(root: str, out: str) -> int:
    from bacon_bayes.bayes.bias import forest_plot

    table = pd.DataFrame(
        {"judge": ["a", "b"], "bias": [0.1, -0.2], "bias_low": [0.0, -0.4], "bias_high": [0.3, 0.0]}
    )
    forest_plot(table, out)
    return 0


LIBRARY = {"save": _save, "forest_plot": _forest}


def dispatch(argv: list[str]) -> int:
    """``bacon ARGS``, or a library writer: ``save ROOT OUT`` / ``forest_plot ROOT OUT``
    (a BaconError is exit 2 and a message on stderr, as at the command line)."""
    from bacon_bayes.errors import BaconError

    if argv and argv[0] in LIBRARY:
        try:
            return LIBRARY[argv[0]](*argv[1:])
        except BaconError as exc:
            print(f"{argv[0]}: error: {exc}", file=sys.stderr)
            return 2
    from bacon_bayes.cli import main

    return main(argv)


# --- commands ----------------------------------------------------------------------------


def _readable_table(path: Path, rows: int | None = None) -> bool:
    try:
        frame = pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)
    except Exception:
        return False
    return rows is None or len(frame) == rows


def _complete_html(path: Path) -> bool:
    return path.read_bytes().rstrip().endswith(b"</html>")


def _complete_ledger(path: Path) -> bool:
    """A history ledger whose every line is a whole record."""
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.history import read_history

    try:
        return bool(read_history(path))
    except ValidationError:
        return False


def _complete_png(path: Path) -> bool:
    return path.read_bytes().endswith(b"IEND\xaeB`\x82")


def _complete_sim(path: Path) -> bool:
    from bacon_bayes.simulation.montecarlo import FILES

    return all((path / f).is_file() for f in FILES) and _readable_table(path / FILES[0])


def _complete_nc(path: Path) -> bool:
    try:
        from bacon_bayes import Calibrator

        Calibrator.load(path)
    except Exception:
        return False
    return True


@dataclass
class Command:
    """A writing command: ``make(root)`` lays its inputs out in ``root``; ``argv(out)``
    writes ``out`` (a path relative to ``root``, the working folder); ``complete(path)``
    tells a whole output from a partial one."""

    name: str
    make: Callable[[Path], None]
    argv: Callable[[str], list[str]]
    out: str
    complete: Callable[[Path], bool]
    input: str  # the main input, relative to root (for "output = input")
    folder: bool = False
    changes: tuple[str, ...] = ()  # other paths a run may change (a study's files)
    side: tuple[str, ...] = ()  # files a run may leave even when refused (judge's cache)
    hold: str = "claimed"  # the pause stage at which a run holds its output
    force: bool = True  # whether the command has --force
    ledger: bool = True  # whether it refuses foreign files (library writers do not)
    server: bool = False  # needs the fake chat server (its URL in $FAULTS_JUDGE_URL)


def _judge_argv(out: str) -> list[str]:
    url = os.environ.get("FAULTS_JUDGE_URL", "http://127.0.0.1:9/v1")
    return ["judge", "items.csv", "--judge", f"a=judge-a@{url}", "--template", "essay",
            "--out", out, "--api-key-env", "", "--backoff-base", "0.01",
            "--no-progress"]  # fmt: skip


REPORT_ARGS = ["--label", "y", "--judge", SUMMEVAL_JUDGES[0], "--judge", SUMMEVAL_JUDGES[1],
               "--group", "system", "--engine", "freq", "--scale", "1:5"]  # fmt: skip
SIM_ARGS = ["--label", "y", "--judges", "j1,j2", "--budgets", "0.2", "--trials", "2",
            "--designs", "uniform", "--methods", "aee"]  # fmt: skip
ESTIMATE_ARGS = ["--label", "label", "--judge", "j*", "--engine", "freq"]
STUDY = ("study/manifest.csv", "study/waves.json", "study/labels.csv")

COMMANDS = {
    c.name: c
    for c in [
        Command(
            "report",
            _report_inputs,
            lambda o: ["report", "pool.csv", *REPORT_ARGS, "--out", o],
            "r.html",
            _complete_html,
            "pool.csv",
        ),
        Command(
            "simulate",
            lambda r: sim_table(r / "t.csv"),
            lambda o: ["simulate", "t.csv", *SIM_ARGS, "--out", o],
            "sim",
            _complete_sim,
            "t.csv",
            folder=True,
        ),
        Command(
            "estimate --items-out",
            stream_table,
            lambda o: ["estimate", "t.parquet", *ESTIMATE_ARGS, "--items-out", o],
            "items.parquet",
            lambda p: _readable_table(p, 3000),
            "t.parquet",
        ),
        Command(
            "estimate --history",
            lambda r: summeval_pool(r / "pool.csv"),
            lambda o: ["estimate", "pool.csv", *REPORT_ARGS, "--history", o],
            "history.jsonl",
            _complete_ledger,
            "pool.csv",
        ),
        Command(
            "embed",
            lambda r: essays(r / "items.csv"),
            lambda o: ["embed", "items.csv", "--text", "full_text", "--dim", "3", "--out", o],
            "emb.parquet",
            lambda p: _readable_table(p, 12),
            "items.csv",
        ),
        Command(
            "judge",
            lambda r: essays(r / "items.csv"),
            _judge_argv,
            "scores.csv",
            lambda p: _readable_table(p, 12),
            "items.csv",
            side=("scores.csv.cache.sqlite",),
            server=True,
        ),
        Command(
            "sample",
            new_study,
            lambda o: ["sample", "study", "--budget", "10", "--seed", "2", "--out", o],
            "todo.csv",
            lambda p: _readable_table(p, 10),
            "study/manifest.csv",
            changes=STUDY,
        ),
        Command(
            "status --pending-out",
            new_study,
            lambda o: ["status", "study", "--pending-out", o],
            "pending.csv",
            lambda p: _readable_table(p, 20),
            "study/manifest.csv",
        ),
        Command(
            "label import",
            labels_file,
            lambda o: ["label", "import", "filled.csv", "--study", "study"],
            "study/labels.csv",
            lambda p: _readable_table(p, 20),
            "filled.csv",
            changes=STUDY,
            hold="commit",
            force=False,
            ledger=False,
        ),
        Command(
            "Calibrator.save",
            lambda r: summeval_pool(r / "pool.csv"),
            lambda o: ["save", ".", o],
            "cal.nc",
            _complete_nc,
            "pool.csv",
            hold="commit",
            force=False,
            ledger=True,  # as the commands' outputs since session 38 (outputs.write_output)
        ),
        Command(
            "forest_plot",
            lambda r: None,
            lambda o: ["forest_plot", ".", o],
            "bias.png",
            _complete_png,
            "",
            hold="commit",
            force=False,
            ledger=False,
        ),
    ]
}


# --- running -----------------------------------------------------------------------------


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``argv`` (see :func:`dispatch`) in this process from ``cwd``: (exit code,
    stderr); an exception that escapes is code 1 with its traceback in stderr."""
    err = io.StringIO()
    with chdir(cwd), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = dispatch(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
    return code, err.getvalue()


def child_env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def default_sigint() -> None:
    """A child's ``preexec_fn``: a run started in the background of a non-interactive shell
    ignores SIGINT and a child inherits that; give the command the Ctrl-C a terminal user
    has (the faults children, the jury CLI tests)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(argv: list[str], cwd: Path, **env: str) -> subprocess.Popen:
    """Run ``argv`` in a child process (stderr to a pipe; SIGINT as on a terminal)."""
    return subprocess.Popen(
        [sys.executable, "-m", "benchmarks.faults_lib", *argv],
        cwd=cwd,
        env=child_env(**env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )


def paused(
    argv: list[str], cwd: Path, stage: str, timeout: float = 60, **env: str
) -> subprocess.Popen:
    """Start ``argv`` in a child process (with ``env`` added to its environment) that
    pauses at ``stage`` (see :mod:`bacon_bayes.outputs`); returns once it is there."""
    marker = Path(tempfile.mkdtemp(prefix="bacon-pause-")) / "paused"
    proc = start(argv, cwd, BACON_PAUSE_BEFORE_COMMIT=str(marker), BACON_PAUSE_STAGE=stage, **env)
    deadline = time.monotonic() + timeout
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            err = proc.communicate()[1]
            raise RuntimeError(f"{argv[0]} never paused at {stage!r} (exit {proc.returncode}):"
                               f"\n{err}")  # fmt: skip
        time.sleep(0.02)
    shutil.rmtree(marker.parent, ignore_errors=True)
    return proc


def kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)


# --- judging the workspace ---------------------------------------------------------------


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes); symbolic links as their
    target's name."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            files[rel] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            files[rel] = path.read_bytes()
    return files


def _ours(rel: str) -> bool:
    from bacon_bayes.atomic import is_temp_name

    return any(is_temp_name(part) for part in rel.split("/"))


def _under(rel: str, prefix: str) -> bool:
    return rel == prefix or rel.startswith(prefix.rstrip("/") + "/")


@dataclass
class Outcome:
    """What a faulty run did: its exit code and message, and what it left."""

    code: int | None
    err: str
    inputs_same: bool = True
    earlier: str = "n/a"  # n/a (none), kept, replaced (by a whole new one), LOST
    partial: list[str] = field(default_factory=list)  # valid-looking, incomplete files
    leftovers: list[str] = field(default_factory=list)  # our dot-named temp files
    output: str = "absent"  # absent | old | new | other
    note: str = ""

    @property
    def traceback(self) -> bool:
        return "Traceback" in self.err

    @property
    def message(self) -> str:
        lines = [ln for ln in self.err.strip().splitlines() if ln.strip()]
        if self.traceback:
            return "TRACEBACK: " + (lines[-1] if lines else "")
        errors = [ln for ln in lines if "error:" in ln]
        return (errors or lines or [""])[-1].strip()

    @property
    def lost(self) -> bool:
        return not self.inputs_same or self.earlier == "LOST" or bool(self.partial)


def judge_outcome(
    cmd: Command, root: Path, before: dict[str, bytes], out: str, code: int | None, err: str
) -> Outcome:
    """Compare ``root`` with ``before``: inputs (everything but the output ``out`` and,
    after a run that was not refused, the command's ``changes``) byte for byte; the
    output absent, the earlier one, or complete; no other new file but our temp names."""
    after = snapshot(root)
    outcome = Outcome(code, err)
    may_change = [out, *(cmd.changes if code != 2 else ())]
    for rel, data in before.items():
        if not any(_under(rel, p) for p in may_change) and after.get(rel) != data:
            outcome.inputs_same = False
    earlier = {k: v for k, v in before.items() if _under(k, out)}
    now = {k: v for k, v in after.items() if _under(k, out)}
    target = root / out
    if earlier and now == earlier:
        outcome.output = "old"
    elif now and cmd.complete(target):
        outcome.output = "new"
    elif now:
        outcome.output = "other"
        outcome.partial.append(out)
    if earlier:
        replaced = code == 0 and outcome.output == "new"
        outcome.earlier = "kept" if now == earlier else "replaced" if replaced else "LOST"
    for rel in after:
        if rel in before or any(_under(rel, p) for p in may_change):
            continue
        if any(rel.startswith(p) for p in cmd.side):
            continue
        if _ours(rel):
            outcome.leftovers.append(rel)
        else:
            outcome.partial.append(rel)
            outcome.inputs_same = False
    return outcome


def prepare(cmd: Command, root: Path, earlier: bool = False) -> None:
    """Lay the command's inputs out in ``root`` (copied from a cache built once per
    process), with an earlier output bacon wrote at ``cmd.out`` when ``earlier``."""
    template = _template(cmd)
    for item in template.iterdir():
        if item.name == "__output__" or (not earlier and item.name == Path(cmd.out).name):
            continue
        dest = root / item.name
        shutil.copytree(item, dest, symlinks=True) if item.is_dir() else shutil.copy2(item, dest)
    if earlier:
        out = root / cmd.out
        if not out.exists():
            src = template / "__output__"
            shutil.copytree(src, out) if src.is_dir() else shutil.copy2(src, out)
        if cmd.ledger:
            from bacon_bayes.outputs import record

            record(out)


_TEMPLATES: dict[str, Path] = {}


def _template(cmd: Command) -> Path:
    """The command's inputs and one output of it (``__output__``), made once."""
    if cmd.name in _TEMPLATES:
        return _TEMPLATES[cmd.name]
    root = Path(tempfile.mkdtemp(prefix="bacon-faults-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)  # lives as long as this process
    cmd.make(root)
    if cmd.changes and (root / cmd.out).exists():
        pass  # a study command: a first output is part of the layout already
    else:
        code, err = run(cmd.argv(cmd.out), root)
        if code != 0:
            raise RuntimeError(f"{cmd.name} failed on its template:\n{err}")
        src = root / cmd.out
        dest = root / "__output__"
        shutil.copytree(src, dest) if src.is_dir() else shutil.copy2(src, dest)
        shutil.rmtree(src) if src.is_dir() else src.unlink()
        for side in cmd.side:  # judge's call cache: no part of the layout
            for extra in root.glob(side + "*"):
                extra.unlink()
    _TEMPLATES[cmd.name] = root
    return root


if __name__ == "__main__":
    sys.exit(dispatch(sys.argv[1:]))
