"""The commands bacon prints run as printed where ``bacon`` is not on the ``PATH``: run as
``python -m bacon_bayes`` (a ``pip install --user`` whose scripts folder is off the
``PATH``) or as ``.venv/bin/bacon``, every ``bacon COMMAND`` it prints is written the way
it was run (``/path/python -m bacon_bayes estimate ...``), and pasting it runs."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bacon_bayes.cli import COMMANDS
from bacon_bayes.cli.printed import AsRun, command_words

ROOT = Path(__file__).resolve().parents[1]
POOL = ROOT / "bacon_bayes" / "data" / "example_pool.csv"
PROGRAM = f"{shlex.quote(sys.executable)} -m bacon_bayes"


def _as_run(text: str, words: str = PROGRAM) -> str:
    out = io.StringIO()
    AsRun(out, words, command_words(COMMANDS)).write(text)
    return out.getvalue()


def test_commands_are_written_as_run_and_speakers_and_paths_are_not():
    text = (
        "bacon doctor: pool.csv (csv, 1200 rows)\n"
        "bacon label: error: label file x.csv: ...\n"
        "  run: bacon estimate pool.csv --label human\n"
        "fill in column 'human' and run `bacon label import todo.csv --study s`\n"
        "call .venv/bin/bacon estimate or bacon_bayes estimate; bacon planning"
    )
    got = _as_run(text).splitlines()
    assert got[0] == "bacon doctor: pool.csv (csv, 1200 rows)"
    assert got[1] == "bacon label: error: label file x.csv: ..."
    assert got[2] == f"  run: {PROGRAM} estimate pool.csv --label human"
    assert got[3].endswith(f"`{PROGRAM} label import todo.csv --study s`")
    assert got[4] == "call .venv/bin/bacon estimate or bacon_bayes estimate; bacon planning"


_WORD = st.lists(
    st.sampled_from([*"ab '\"=`(-./", "bacon report", "bacon ", "estimate"]), max_size=12
).map("".join)


@settings(max_examples=300, deadline=None)
@given(command=st.sampled_from(COMMANDS), words=st.lists(_WORD, max_size=6))
def test_a_printed_command_splits_into_the_program_and_its_own_words(command, words):
    """Whatever the arguments hold (a file named ``bacon report.html``, quotes), the
    command as run splits into the program's words, then the command's own, unchanged."""
    line = shlex.join(["bacon", command, *words])
    assert shlex.split(_as_run(line)) == [*shlex.split(PROGRAM), command, *words]
    assert _as_run(line, "bacon") == line


def test_doctor_run_as_a_module_prints_a_command_that_runs_as_printed(tmp_path):
    """Fails before: doctor printed ``bacon estimate ...``, which is no command where
    ``bacon`` is not on the ``PATH``."""
    pool = tmp_path / "pool.csv"
    pool.write_bytes(POOL.read_bytes())
    env = dict(os.environ, PATH=str(tmp_path), PYTHONPATH=str(ROOT))  # no bacon, no python
    doctor = subprocess.run(
        [sys.executable, "-m", "bacon_bayes", "doctor", "pool.csv"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = doctor.stdout.splitlines()
    command = lines[lines.index("run:") + 1].strip()
    assert command.startswith(f"{PROGRAM} estimate pool.csv ")
    done = subprocess.run(
        shlex.split(command), cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "mean of 'human' over the pool" in done.stdout
