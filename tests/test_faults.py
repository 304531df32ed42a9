"""Issue 33, "nothing a user has is ever lost": every writing command under faults.

Each case (see benchmarks/faults_cases.py, shared with ``python -m
benchmarks.fault_matrix``) lays a command's inputs out in a fresh folder, snapshots every
file's bytes, injects one fault, runs the command and compares: (a) a refusal is exit 2
with a message and no traceback; (b) every input, and an earlier output, is byte for
byte as it was; (c) no file is left that reads as valid but is incomplete (the output is
absent, the earlier bytes or a complete new one; other new files are only our dot-named
temps, which the next run removes). Commands run in this process where nothing is
killed; a child process where one is (the pause hook of bacon_bayes.outputs).

``bacon judges --plot`` fits NUTS (too slow here): its writer, ``forest_plot``, is
covered at library level. The read-only and full-disk cases mount a tmpfs (root only;
skipped otherwise).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.testing.fake_server import FakeChatServer
from benchmarks.faults_cases import CASES, EXPECT, can_mount
from benchmarks.faults_lib import COMMANDS, Outcome

FILE_COMMANDS = ["report", "estimate --items-out", "embed", "judge", "status --pending-out"]
NO_MOUNT = can_mount()
mounts = pytest.mark.skipif(NO_MOUNT is not None, reason=str(NO_MOUNT))


@pytest.fixture(scope="module", autouse=True)
def judge_server():
    """The scripted chat-completions server ``bacon judge`` calls."""
    server = FakeChatServer().start()
    before = os.environ.get("FAULTS_JUDGE_URL")
    os.environ["FAULTS_JUDGE_URL"] = server.url
    yield server
    server.stop()
    if before is None:
        os.environ.pop("FAULTS_JUDGE_URL", None)
    else:
        os.environ["FAULTS_JUDGE_URL"] = before


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def fault(case: str, command: str, root: Path) -> Outcome:
    outcome = CASES[case](COMMANDS[command], root)
    assert outcome is not None, f"{case!r} does not apply to {command!r}"
    return outcome


def refused(outcome: Outcome, needle: str) -> None:
    """Exit 2, the message, no traceback, nothing changed or left behind."""
    assert outcome.code == 2, outcome.err
    assert needle in outcome.err and "Traceback" not in outcome.err, outcome.err
    assert outcome.inputs_same, "an input changed"
    assert outcome.earlier in ("n/a", "kept"), outcome.earlier
    assert outcome.output in ("absent", "old"), outcome.output
    assert not outcome.partial and not outcome.leftovers, (outcome.partial, outcome.leftovers)


# --- the output is, holds or lies in an input --------------------------------------------


@pytest.mark.parametrize(
    "command",
    ["estimate --items-out", "judge", "embed", "simulate", "sample", "status --pending-out"],
)
def test_an_output_that_is_the_input_is_refused_even_with_force(command, root):
    # e.g. `bacon estimate t.parquet --items-out t.parquet --force`
    refused(fault("output = input", command, root), "is the input: an output never replaces")


@pytest.mark.parametrize(
    "how", ["output holds input (--out .)", "output holds input (--out ../DIR)"]
)
def test_simulate_into_the_folder_of_its_data_is_refused_and_deletes_nothing(how, root):
    # `bacon simulate t.csv --out .` from the data's folder used to replace that folder
    # (the data and a README with it)
    outcome = fault(how, "simulate", root)
    refused(outcome, "holds the input 't.csv'")
    assert (root / "README.md").read_text() == "my notes about this data\n"


@pytest.mark.parametrize("command", ["report", "estimate --items-out"])
def test_an_output_inside_an_input_folder_is_refused(command, root):
    refused(fault("output inside input folder", command, root), "is inside the input folder")


# --- an existing file bacon did not write ------------------------------------------------


@pytest.mark.parametrize("command", [*FILE_COMMANDS, "simulate"])
def test_a_foreign_output_is_refused_and_force_replaces_it(command, root, tmp_path):
    refused(fault("foreign file", command, root), "refusing to replace")
    again = tmp_path / "again"
    again.mkdir()
    outcome = fault("foreign file, --force", command, again)
    assert outcome.code == 0, outcome.err
    assert outcome.inputs_same and outcome.output == "new" and outcome.earlier == "replaced"
    assert not outcome.partial and not outcome.leftovers


def test_sample_refuses_a_to_label_file_with_labels_filled_in_and_draws_no_wave(root):
    outcome = fault("foreign file", "sample", root)
    refused(outcome, "--out todo.csv holds 20 label(s) the study has not imported yet")  # unchanged
    assert set(pd.read_csv(root / "todo.csv")["human"]) == {3}
    assert len(pd.read_csv(root / "study" / "manifest.csv")) == 120
    waves = json.loads((root / "study" / "waves.json").read_text())
    assert [w["wave"] for w in waves] == [1]


def test_a_file_of_another_name_in_an_output_folder_is_refused_even_with_force(root):
    outcome = fault("foreign name in folder, --force", "simulate", root)
    refused(outcome, "notes.txt; refusing to replace")
    assert (root / "sim" / "notes.txt").read_bytes() == b"my own notes, not bacon's\n"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "label import"])
def test_a_missing_output_folder_is_refused_and_not_created(command, root):
    needle = "does not exist" if COMMANDS[command].ledger else "No such file or directory"
    refused(fault("missing folder", command, root), needle)
    assert not (root / "nowhere").exists()


# --- read-only and full file systems -----------------------------------------------------


@mounts
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_read_only_place_is_refused_with_a_message(command, root):
    outcome = fault("read-only", command, root)
    needle = {"label import": "Read-only file system"}
    refused(outcome, needle.get(command, "read-only"))


@mounts
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_full_disk_keeps_the_earlier_output_whole(command, root):
    outcome = fault("disk full", command, root)
    refused(outcome, "no space left")
    assert outcome.earlier == "kept"


# --- kill -9 at the commit point ---------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "stage"),
    [
        ("report", "commit"),
        ("simulate", "commit"),
        ("simulate", "swapped"),
        ("estimate --items-out", "commit"),
        ("estimate --history", "commit"),
        ("Calibrator.save", "commit"),
    ],
)
def test_a_kill_at_the_commit_point_loses_nothing_and_a_rerun_cleans_up(command, stage, root):
    outcome = fault(f"kill -9 at {stage}", command, root)
    assert outcome.code == -9
    assert outcome.inputs_same and not outcome.partial
    # the earlier output is in place; killed between the two renames of a folder swap,
    # it is whole under its set-aside name, and the next run puts it back
    assert outcome.earlier == ("set aside" if stage == "swapped" else "kept")
    assert outcome.leftovers, "the kill came after the temp file was written"
    assert outcome.note == "rerun ok", outcome.note


# --- two runs at once --------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", ["simulate", "estimate --items-out", "estimate --history", "label import"]
)
def test_a_second_run_on_a_held_output_is_refused_at_once(command, root):
    outcome = fault("two runs at once", command, root)
    needle = "being changed by another" if command == "label import" else "another bacon process"
    assert outcome.code == 2 and needle in outcome.err and "Traceback" not in outcome.err
    assert outcome.inputs_same and outcome.earlier == "kept" and not outcome.partial
    assert outcome.note == "rerun ok", outcome.note


def test_the_cases_and_their_words_agree():
    assert set(EXPECT) - {"output holds input", "foreign name in folder, --force"} <= set(CASES)
