"""Issue 42, "nothing lost, round two": the file faults past the first round.

Each case (benchmarks/faults_files.py, shared with ``python -m benchmarks.fault_matrix``)
lays a command's inputs out in a fresh folder, injects one fault and runs the command:
a device, FIFO or socket at an output; an empty file of the user's; a name of 250 bytes;
a first run holding the output with another state folder; a state folder that is a file
or read-only; the study's clean-up meeting a user's dot-file or a dead writer's temp
folder; the study's own lock as an output; ``judge --cache`` naming a database of the
user's, ``--log`` the template, ``--out`` a suffix it cannot write. A FIFO read blocks
for ever: those runs are stopped by an alarm (a failure, never a hang).
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bacon_bayes import outputs
from bacon_bayes.errors import ValidationError
from benchmarks.faults_cases import can_mount
from benchmarks.faults_files import FILE_CASES, FILE_EXPECT, make_node, run_timed
from benchmarks.faults_lib import COMMANDS, SUMMEVAL_JUDGES, Outcome, prepare, run, start
from tests import test_faults

# the fake chat server (module-wide), the workspace folder and the refusal check of
# tests/test_faults.py
judge_server, root, refused = test_faults.judge_server, test_faults.root, test_faults.refused
ROOT = os.geteuid() == 0
NO_MOUNT = can_mount()


def fault(case: str, command: str, root: Path) -> Outcome:
    outcome = FILE_CASES[case](COMMANDS[command], root)
    assert outcome is not None, f"{case!r} does not apply to {command!r}"
    return outcome


# --- 1. devices, FIFOs and sockets at an output ------------------------------------------


@pytest.mark.parametrize(
    ("kind", "command"),
    [
        ("FIFO", "estimate --history"),  # the read of the ledger blocked for ever
        ("FIFO", "judge"),
        ("FIFO", "Calibrator.save"),  # a library writer, no claim: still refused
        ("socket", "status --pending-out"),
        ("device", "estimate --history"),  # as root, replaced by a regular file
        ("device", "report"),
    ],
)
def test_a_node_at_an_output_is_refused_and_kept_even_with_force(kind, command, root):
    if kind == "device" and not ROOT:
        pytest.skip("making a character device (mknod) needs root")
    outcome = fault(f"{kind} at output", command, root)
    refused(outcome, "not a regular file")
    assert outcome.earlier == "kept", "the node was replaced"


@pytest.mark.skipif(not ROOT, reason="making a character device (mknod) needs root")
def test_a_link_to_a_device_is_refused_and_the_device_kept(root):
    prepare(COMMANDS["status --pending-out"], root)
    make_node(root / "mynull", "device")
    (root / "p.csv").symlink_to("mynull")
    code, err = run(["status", "study", "--pending-out", "p.csv", "--force"], root)
    assert code == 2 and "is a character device, not a regular file" in err, err
    assert stat.S_ISCHR(os.stat(root / "mynull").st_mode)


def test_a_fifo_as_the_judge_log_is_refused_without_opening_it(root):
    cmd = COMMANDS["judge"]
    prepare(cmd, root)
    os.mkfifo(root / "log.fifo")
    code, err = run_timed([*cmd.argv(cmd.out), "--log", "log.fifo"], root, seconds=30)
    assert code == 2 and "--log 'log.fifo' is a FIFO (named pipe)" in err, err
    assert stat.S_ISFIFO(os.stat(root / "log.fifo").st_mode)
    assert not (root / cmd.out).exists()


def test_a_fifo_in_an_output_folder_is_a_file_bacon_did_not_write(root):
    cmd = COMMANDS["simulate"]
    prepare(cmd, root, earlier=True)
    os.mkfifo(root / "sim" / "pipe")
    code, err = run([*cmd.argv(cmd.out), "--force"], root)
    assert code == 2 and "pipe; refusing to replace" in err, err
    assert stat.S_ISFIFO(os.stat(root / "sim" / "pipe").st_mode)


# --- 3. the study folder's clean-up ------------------------------------------------------


@pytest.mark.parametrize("command", ["sample", "label import"])
def test_the_study_clean_up_leaves_a_users_dot_file(command, root):
    outcome = fault("user's dot-file in the study", command, root)
    assert outcome.code == 0, outcome.err
    assert (root / "study" / ".notes.tmp-keep").read_bytes() == b"my own notes, not bacon's\n"
    assert outcome.inputs_same and not outcome.partial


@pytest.mark.parametrize("command", ["sample", "label import"])
def test_the_study_clean_up_removes_a_dead_writers_temp_folder_and_keeps_a_live_ones(command, root):
    # a killed `bacon simulate --out study/sim` left `.sim.bacon-tmp-PID-0/`: every later
    # `bacon sample` used to stop on it ("Is a directory")
    outcome = fault("dead writer's temp folder in the study", command, root)
    assert outcome.code == 0, outcome.err
    assert outcome.note == "", outcome.note
    assert outcome.inputs_same and not outcome.partial


def test_the_study_clean_up_leaves_a_folder_set_aside_by_a_killed_swap(root):
    cmd = COMMANDS["sample"]
    prepare(cmd, root)
    dead = _dead_pid()
    aside = root / "study" / f".sim.bacon-old-{dead}"  # the user's earlier output folder
    aside.mkdir()
    (aside / "summary.csv").write_text("a,b\n1,2\n")
    code, err = run(cmd.argv(cmd.out), root)
    assert code == 0, err
    assert (aside / "summary.csv").read_text() == "a,b\n1,2\n"


# --- 4, 5, 8. bacon judge: the cache, the log, the suffix ------------------------------


def test_judge_refuses_a_users_database_as_its_cache_unless_force(root):
    outcome = fault("judge --cache is a user's database", "judge", root)
    refused(outcome, "exists and is a SQLite database with table(s) people")
    cmd = COMMANDS["judge"]
    code, err = run([*cmd.argv(cmd.out), "--cache", "mydata.db", "--dry-run"], root)
    assert code == 2 and "not a cache bacon made" in err, err  # a dry run writes it too
    code, err = run([*cmd.argv(cmd.out), "--cache", "mydata.db", "--force"], root)
    assert code == 0, err


def test_judge_refuses_a_file_that_is_not_a_database_as_its_cache(root):
    cmd = COMMANDS["judge"]
    prepare(cmd, root)
    (root / "notes.txt").write_text("mine\n")
    code, err = run([*cmd.argv(cmd.out), "--cache", "notes.txt"], root)
    assert code == 2 and "'notes.txt' exists and is not a SQLite database" in err, err
    assert (root / "notes.txt").read_text() == "mine\n"


def test_judge_reuses_its_own_cache(root, judge_server):
    cmd = COMMANDS["judge"]
    prepare(cmd, root)
    code, err = run([*cmd.argv(cmd.out), "--cache", "calls.sqlite"], root)
    assert code == 0, err
    calls = judge_server.count()
    code, err = run([*cmd.argv("again.csv"), "--cache", "calls.sqlite"], root)
    assert code == 0, err
    assert judge_server.count() == calls  # every call from the cache


@pytest.mark.parametrize("option", ["--log", "--out"])
def test_judge_log_or_out_may_not_be_its_template(option, root, judge_server):
    if option == "--log":
        refused(fault("judge --log is the template", "judge", root), "is the input")
        return
    cmd = COMMANDS["judge"]
    prepare(cmd, root)
    template = '{"user": "Rate {full_text}", "parser": "number"}'
    (root / "tpl.json").write_text(template)
    argv = cmd.argv("tpl.json")
    argv[argv.index("--template") + 1] = "tpl.json"
    calls = judge_server.count()
    code, err = run([*argv, "--force"], root)
    assert code == 2 and "--out 'tpl.json': use a .parquet or .csv file name" in err, err
    assert judge_server.count() == calls, "calls were made (and paid for) first"
    assert (root / "tpl.json").read_text() == template
    assert not (root / "tpl.json.cache.sqlite").exists()


def test_judge_log_may_not_be_its_judges_file(root):
    cmd = COMMANDS["judge"]
    prepare(cmd, root)
    url = os.environ["FAULTS_JUDGE_URL"]
    (root / "judges.toml").write_text(f'[[judge]]\nname = "a"\nmodel = "m"\nbase_url = "{url}"\n')
    argv = [a for a in cmd.argv(cmd.out) if a != "--judge" and not a.startswith("a=")]
    code, err = run([*argv, "--judges-file", "judges.toml", "--log", "judges.toml"], root)
    assert code == 2 and "--log 'judges.toml' is the input" in err, err


@pytest.mark.parametrize("command", ["judge", "embed"])
def test_an_out_suffix_that_cannot_be_written_is_refused_before_any_work(
    command, root, tmp_path, judge_server, monkeypatch
):
    (tmp_path / "warm").mkdir()
    prepare(COMMANDS[command], tmp_path / "warm")  # the inputs' layout, made once
    calls = judge_server.count()
    import bacon_bayes.embed

    def no_work(*args, **kwargs):
        raise AssertionError("the embedding was computed before the suffix was checked")

    monkeypatch.setattr(bacon_bayes.embed, "embed_items", no_work)
    outcome = fault("suffix it cannot write", command, root)
    refused(outcome, "--out 'out.json': use a .parquet or .csv file name")
    assert judge_server.count() == calls, "calls were made (and paid for) first"
    assert not (root / "out.json.cache.sqlite").exists()


# --- 6. the lock beside the output -------------------------------------------------------


def test_a_run_with_another_state_folder_is_refused_while_the_first_holds_the_ledger(root):
    outcome = fault("another state folder holds it", "estimate --history", root)
    assert outcome.code == 2 and "another bacon process" in outcome.err, outcome.err
    assert outcome.inputs_same and outcome.earlier == "kept" and not outcome.partial
    assert outcome.note == "rerun ok", outcome.note


def test_two_runs_with_their_own_state_folders_keep_every_round_they_report(root, tmp_path):
    cmd = COMMANDS["estimate --history"]
    prepare(cmd, root)
    args = ["estimate", "pool.csv", "--label", "y", "--judge", SUMMEVAL_JUDGES[0],
            "--judge", SUMMEVAL_JUDGES[1], "--engine", "freq", "--history", "h.jsonl",
            "--force"]  # fmt: skip
    procs = []
    for k in range(2):
        state = tmp_path / f"state{k}"
        state.mkdir()
        procs.append(start([*args, "--round", f"r{k}"], root, BACON_STATE_DIR=str(state)))
    done = {}
    for k, proc in enumerate(procs):
        err = proc.communicate(timeout=300)[1]
        assert proc.returncode in (0, 2) and "Traceback" not in err, err
        if proc.returncode == 2:
            assert "another bacon process" in err, err
        done[f"r{k}"] = proc.returncode == 0
    from bacon_bayes.history import read_history

    rounds = [r["round"] for r in read_history(root / "h.jsonl")]
    assert sorted(rounds) == sorted(k for k, ok in done.items() if ok)
    assert [p.name for p in root.iterdir() if p.name.startswith(".")] == []


def test_the_library_append_holds_the_ledger_lock(tmp_path):
    from bacon_bayes.history import append_history

    path = tmp_path / "h.jsonl"
    with outputs.output_lock(path):
        with pytest.raises(ValidationError, match="another bacon process"):
            append_history(path, {"project": {}})
    assert not path.exists()


# --- 8. names too long for their temporary name ------------------------------------------


@pytest.mark.parametrize("command", ["estimate --history", "simulate", "status --pending-out"])
def test_a_name_of_250_bytes_is_refused_before_the_work(command, root):
    refused(fault("name of 250 bytes", command, root), "at most 229 bytes")


def test_a_name_that_fits_with_its_temporary_name_is_written(root):
    cmd = COMMANDS["status --pending-out"]
    prepare(cmd, root)
    name = "n" * 225 + ".csv"  # 229 bytes
    code, err = run(cmd.argv(name), root)
    assert code == 0, err
    assert (root / name).is_file()


# --- 9. an empty file of the user's, the study's own lock --------------------------------


@pytest.mark.parametrize("command", ["status --pending-out", "estimate --history", "sample"])
def test_an_empty_file_of_the_users_is_refused_like_any_other(command, root):
    # --history appends to its ledger: its refusal says so (tester B, s36, finding 17)
    verb = "append" if "--history" in command else "replace"
    refused(fault("empty file at output", command, root), f"refusing to {verb}")
    assert (root / COMMANDS[command].out).read_bytes() == b""


@pytest.mark.parametrize("command", ["sample", "status --pending-out"])
def test_the_studys_own_lock_is_never_an_output_even_with_force(command, root):
    refused(fault("study's lock as output", command, root), "'study/.lock' is the input")


# --- 11. the state folder ----------------------------------------------------------------


def test_a_state_folder_that_is_a_file_is_refused_naming_it(root):
    outcome = fault("state folder is a file", "status --pending-out", root)
    refused(outcome, "state folder")
    assert "BACON_STATE_DIR" in outcome.err and "it is a file, not a folder" in outcome.err


@pytest.mark.skipif(NO_MOUNT is not None, reason=str(NO_MOUNT))
@pytest.mark.parametrize("command", ["status --pending-out", "estimate --history"])
def test_a_read_only_state_folder_is_refused_naming_it(command, root):
    outcome = fault("read-only state folder", command, root)
    refused(outcome, "state folder")
    assert "BACON_STATE_DIR" in outcome.err and "read-only" in outcome.err


@pytest.fixture
def default_state_read_only(tmp_path, monkeypatch):
    """No BACON_STATE_DIR; the default state folder cannot be created (a read-only home);
    the temp folder is ``tmp_path/t``. Returns the fallback's path."""
    xdg = tmp_path / "xdg"
    monkeypatch.delenv("BACON_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(xdg))
    real = Path.mkdir

    def read_only(self, *args, **kwargs):
        if self == xdg or xdg in self.parents:
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", read_only)
    (tmp_path / "t").mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "t"))
    return tmp_path / "t" / f"bacon_bayes-{os.getuid()}"


def test_the_fallback_state_folder_is_made_private(default_state_read_only):
    assert outputs.state_dir() == default_state_read_only
    assert stat.S_IMODE(os.lstat(default_state_read_only).st_mode) == 0o700


@pytest.mark.parametrize("how", ["shared mode", "a link", "another owner"])
def test_a_fallback_state_folder_others_could_write_is_refused(how, default_state_read_only):
    fallback = default_state_read_only
    if how == "a link":
        (fallback.parent / "elsewhere").mkdir(mode=0o700)
        fallback.symlink_to("elsewhere")
    else:
        fallback.mkdir()
        os.chmod(fallback, 0o777 if how == "shared mode" else 0o700)
        if how == "another owner":
            if not ROOT:
                pytest.skip("giving a folder to another user needs root")
            os.chown(fallback, 65534, 65534)
    with pytest.raises(ValidationError, match="is not a folder of yours with mode 0700"):
        outputs.state_dir()


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def test_the_cases_and_their_words_agree():
    assert set(FILE_EXPECT) <= set(FILE_CASES)
