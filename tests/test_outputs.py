"""bacon_bayes.outputs, in-process: atomic files and folders, leftovers of interrupted
writes, the ledger of what bacon wrote, the path checks and the per-output lock.
(The commands under faults: tests/test_faults.py.)"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

from bacon_bayes import outputs
from bacon_bayes.atomic import commit_folder, write_file, write_folder
from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import claim, record


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root``, dot-files included: relative path -> bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def bacon_folder(path: Path, files: dict[str, bytes]) -> Path:
    """An output folder bacon wrote (atomically, recorded in the ledger)."""

    def fill(tmp: Path) -> None:
        for name, data in files.items():
            (tmp / name).write_bytes(data)

    write_folder(path, fill)
    record(path)
    return path


# --- atomic writes -----------------------------------------------------------------------


def test_a_failing_fill_keeps_the_old_file_and_leaves_no_temp(tmp_path):
    path = tmp_path / "out.csv"
    path.write_bytes(b"a,b\n1,2\n")

    def half(tmp: Path) -> None:
        tmp.write_bytes(b"a,b\n")  # a valid-looking start
        raise RuntimeError("killed half-way")

    with pytest.raises(RuntimeError, match="half-way"):
        write_file(path, half)
    assert tree(tmp_path) == {"out.csv": b"a,b\n1,2\n"}

    def full_disk(tmp: Path) -> None:
        tmp.write_bytes(b"a,")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(
        ValidationError, match=r"no space left on the device while writing '.*out\.csv'"
    ):
        write_file(path, full_disk)
    assert tree(tmp_path) == {"out.csv": b"a,b\n1,2\n"}
    write_file(path, lambda tmp: tmp.write_bytes(b"new\n"))
    assert tree(tmp_path) == {"out.csv": b"new\n"}


def test_a_read_only_place_is_a_message_even_when_the_temp_cannot_be_removed(tmp_path, monkeypatch):
    # on a read-only file system even unlink() of a missing temp file fails (EROFS):
    # that must not replace the message by a bare OSError
    def refuse(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "unlink", refuse)

    def fill(tmp: Path) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(tmp))

    with pytest.raises(ValidationError, match="read-only place"):
        write_file(tmp_path / "x.html", fill)


def test_a_folder_swap_keeps_the_earlier_files_and_a_failed_fill_the_old_folder(tmp_path):
    out = bacon_folder(tmp_path / "sim", {"summary.csv": b"old", "ablation.csv": b"abl"})

    def fail(tmp: Path) -> None:
        (tmp / "summary.csv").write_bytes(b"half")
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        write_folder(out, fail)
    assert tree(tmp_path) == {"sim/summary.csv": b"old", "sim/ablation.csv": b"abl"}

    write_folder(out, lambda tmp: (tmp / "summary.csv").write_bytes(b"new"))
    assert tree(tmp_path) == {"sim/summary.csv": b"new", "sim/ablation.csv": b"abl"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sim"]  # nothing set aside left


def test_an_error_between_the_two_renames_puts_the_old_folder_back(tmp_path, monkeypatch):
    out = bacon_folder(tmp_path / "sim", {"summary.csv": b"old"})
    tmp = tmp_path / ".sim.bacon-tmp-1-0"
    tmp.mkdir()
    (tmp / "summary.csv").write_bytes(b"new")
    real, calls = os.replace, []

    def second_fails(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(errno.EIO, "Input/output error", str(dst))
        return real(src, dst)

    monkeypatch.setattr(outputs.os, "replace", second_fails)
    with pytest.raises(ValidationError, match="Input/output error"):
        commit_folder(tmp, out)
    assert tree(tmp_path) == {"sim/summary.csv": b"old"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sim"]


# --- leftovers of interrupted writes -----------------------------------------------------


def test_the_next_claim_removes_leftover_temps_of_that_output_only(tmp_path):
    with claim(tmp_path / "out.csv") as out:
        out.write_text("")
    dead = _dead_pid()
    ours = [f".out.csv.bacon-tmp-{dead}-0", f".out.csv.tmp-{dead}"]
    # a user's own dot-file, and the temp of a writer still running, are not leftovers
    kept = [".out.csv.tmp-keep", f".out.csv.bacon-tmp-{os.getppid()}-0"]
    for name in [*ours, *kept, f".other.csv.bacon-tmp-{dead}-0", "notes.txt"]:
        (tmp_path / name).write_bytes(b"x,y\n")
    (tmp_path / f".out.csv.bacon-tmp-{dead}-1").mkdir()  # a Dask run's parts folder
    with claim(tmp_path / "out.csv"):
        pass
    assert sorted(tree(tmp_path)) == sorted(
        [*kept, f".other.csv.bacon-tmp-{dead}-0", "notes.txt", "out.csv"]
    )
    assert not (tmp_path / f".out.csv.bacon-tmp-{dead}-1").exists()


def _dead_pid() -> int:
    """The id of a process that has ended."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def test_a_folder_set_aside_by_a_killed_swap_is_put_back_by_the_next_claim(tmp_path):
    old = bacon_folder(tmp_path / "sim", {"summary.csv": b"old", "trials.parquet": b"P"})
    dead = _dead_pid()
    old.rename(tmp_path / f".sim.bacon-old-{dead}")  # killed between the two renames
    (tmp_path / f".sim.bacon-tmp-{dead}-0").mkdir()  # with its new folder complete beside
    (tmp_path / f".sim.bacon-tmp-{dead}-0" / "summary.csv").write_bytes(b"new")
    with claim(tmp_path / "sim", folder=True):  # held: its lock file beside it
        assert tree(tmp_path) == {
            "sim/summary.csv": b"old",
            "sim/trials.parquet": b"P",
            ".sim.bacon-lock": b"",
        }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sim"]  # the lock file removed
    # the old folder is bacon's as before: claimed again without --force
    with claim(tmp_path / "sim", folder=True):
        pass


def test_a_set_aside_folder_is_dropped_when_the_output_is_in_place(tmp_path):
    bacon_folder(tmp_path / "sim", {"summary.csv": b"new"})
    aside = tmp_path / ".sim.bacon-old-4242"
    aside.mkdir()
    (aside / "summary.csv").write_bytes(b"old")
    with claim(tmp_path / "sim", folder=True):
        pass
    assert tree(tmp_path) == {"sim/summary.csv": b"new"}


# --- the ledger --------------------------------------------------------------------------


def test_own_unchanged_output_is_reclaimed_a_changed_one_refused_unless_force(tmp_path):
    path = tmp_path / "todo.csv"
    with claim(path) as out:
        out.write_text("item,label\na,\n")
    with claim(path) as out:  # bacon's, unchanged: replaced without --force
        out.write_text("item,label\nb,\n")
    assert path.read_bytes() == b"item,label\nb,\n"
    path.write_text("item,label\nb,4\n")  # the user filled in a label
    with pytest.raises(ValidationError) as info, claim(path, option="--out"):
        pass
    assert "--out" in str(info.value) and "changed since" in str(info.value)
    assert "pass --force" in str(info.value)
    assert path.read_bytes() == b"item,label\nb,4\n"
    with claim(path, force=True) as out:
        out.write_text("item,label\nc,\n")
    assert path.read_bytes() == b"item,label\nc,\n"
    with claim(path):  # and it is bacon's again
        pass


def test_a_moved_output_is_still_bacons_while_unchanged(tmp_path):
    """``mv cal.nc models/``: bacon's ledger knew the file by its path only, so saving the
    next calibrator over the moved one (or appending to a moved --history ledger) needed
    --force. Its bytes say it is bacon's; a changed one is refused as before."""
    path = tmp_path / "cal.nc"
    with claim(path) as out:
        out.write_text("a calibrator")
    (tmp_path / "models").mkdir()
    moved = path.rename(tmp_path / "models" / "cal.nc")
    with claim(moved, option="--save") as out:
        out.write_text("the next calibrator")
    again = moved.rename(tmp_path / "again.nc")
    again.write_text("the next calibrator, edited")
    with pytest.raises(ValidationError, match="changed since"), claim(again, option="--save"):
        pass
    empty = tmp_path / "empty.txt"  # an empty file is never bacon's by its bytes
    with claim(empty) as out:
        out.write_text("")
    empty.rename(tmp_path / "lock")
    with pytest.raises(ValidationError, match="not written by bacon"), claim(tmp_path / "lock"):
        pass


def test_a_moved_output_recorded_by_path_only_is_still_bacons(tmp_path):
    """Ledgers written before content entries: the path entries' bytes are looked up."""
    path = tmp_path / "h.jsonl"
    with claim(path) as out:
        out.write_text('{"round": 1}\n')
    for entry in (outputs.state_dir() / "written" / "content").glob("*.json"):
        entry.unlink()
    moved = path.rename(tmp_path / "moved.jsonl")
    with claim(moved, option="--history", appends=True) as out:
        out.write_text('{"round": 1}\n{"round": 2}\n')


def test_a_foreign_file_is_refused_and_named_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("report.html").write_text("<p>mine</p>")
    with pytest.raises(ValidationError, match=r"--out 'report.html' exists and was not written"):
        with claim("report.html"):
            pass
    assert Path("report.html").read_text() == "<p>mine</p>"


def test_a_folder_with_a_foreign_file_is_refused_even_with_force_unless_it_writes_it(tmp_path):
    out = bacon_folder(tmp_path / "sim", {"summary.csv": b"s", "trials.parquet": b"t"})
    (out / "README.md").write_text("my notes")
    before = tree(tmp_path)
    for force in (False, True):
        with pytest.raises(ValidationError) as info:
            with claim(out, folder=True, force=force, writes=["summary.csv"]):
                pass
        assert "README.md" in str(info.value) and "choose a new or empty folder" in str(info.value)
        assert "pass --force" not in str(info.value)
    assert tree(tmp_path) == before
    # a changed file of a name the command writes: --force may replace it, not without
    (out / "README.md").unlink()
    (out / "summary.csv").write_bytes(b"edited")
    with pytest.raises(ValidationError, match=r"summary.csv.*pass --force"):
        with claim(out, folder=True, writes=["summary.csv"]):
            pass
    with claim(out, folder=True, force=True, writes=["summary.csv"]):
        pass


# --- path checks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("out", "inputs", "folder", "needle"),
    [
        ("t.parquet", ["t.parquet"], False, "'t.parquet' is the input"),
        ("data/items.parquet", ["data"], False, "is inside the input folder 'data'"),
        (".", ["t.csv"], True, "--out '.' holds the input 't.csv'"),
        ("../ws", ["t.csv"], True, "holds the input 't.csv'"),
        ("data", ["data/part-0.parquet"], True, "holds the input"),
    ],
)
def test_an_output_that_is_holds_or_lies_in_an_input_is_refused_even_with_force(
    tmp_path, monkeypatch, out, inputs, folder, needle
):
    root = tmp_path / "ws"
    (root / "data").mkdir(parents=True)
    for name in ("t.parquet", "t.csv", "README.md", "data/part-0.parquet"):
        (root / name).write_bytes(name.encode())
    monkeypatch.chdir(root)
    before = tree(root)
    with pytest.raises(ValidationError) as info:
        with claim(out, inputs=inputs, folder=folder, force=True):
            pytest.fail("claimed")
    assert needle in str(info.value) and "never replaces an input" in str(info.value)
    assert tree(root) == before


def test_paths_that_cannot_be_written(tmp_path):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    cases = [
        (tmp_path / "nowhere" / "o.csv", False, "the folder", "does not exist; create it first"),
        (tmp_path / "afile" / "o.csv", False, "afile", "is a file, not a folder"),
        (tmp_path / "afile", True, "afile", "is a file; --out names a folder"),
        (tmp_path / "adir", False, "adir", "is a folder; --out names a file"),
    ]
    for path, folder, where, needle in cases:
        with pytest.raises(ValidationError) as info:
            with claim(path, folder=folder):
                pass
        assert where in str(info.value) and needle in str(info.value)
    assert not (tmp_path / "nowhere").exists()
    assert tree(tmp_path) == {"afile": b"x"}


# --- the lock ----------------------------------------------------------------------------


def test_a_second_claim_of_a_held_output_is_refused_at_once(tmp_path):
    path = tmp_path / "items.parquet"
    held, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with claim(path, option="--items-out") as out:
                held.set()
                release.wait(30)
                out.write_text("first")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert held.wait(30)
        with pytest.raises(
            ValidationError, match=r"items.parquet' is being written by another bacon process"
        ):
            with claim(path, option="--items-out"):
                pass
        with claim(tmp_path / "other.parquet"):  # another output is not locked
            pass
    finally:
        release.set()
        thread.join(30)
    assert not errors and path.read_text() == "first"
    with claim(path) as out:  # released when the holder ended
        out.write_text("second")
    assert path.read_text() == "second"


def test_the_lock_is_released_when_the_command_fails(tmp_path):
    path = tmp_path / "r.html"
    with pytest.raises(RuntimeError), claim(path):
        raise RuntimeError("the fit failed")
    with claim(path):
        pass
    assert not path.exists()


def test_a_library_write_removes_the_temps_of_dead_writers_only(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    gone = tmp_path / f".cal.nc.bacon-tmp-{dead.stdout.strip()}-0"
    alive = tmp_path / f".cal.nc.bacon-tmp-{os.getppid()}-0"  # a live writer's
    for tmp in (gone, alive):
        tmp.write_bytes(b"CDF half")
    write_file(tmp_path / "cal.nc", lambda tmp: tmp.write_bytes(b"CDF whole"))
    assert tree(tmp_path) == {"cal.nc": b"CDF whole", alive.name: b"CDF half"}
