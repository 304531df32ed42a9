"""Writing outputs without losing anything a user has.

Every file or folder a ``bacon`` command writes goes through :func:`claim`, which is
called before the command's work starts and

1. checks the path: its folder exists and can be written, a file is not where a folder
   is expected (or the other way round), and it neither is nor holds nor lies inside one
   of the command's inputs;
2. takes a lock on the output (an ``fcntl`` lock in the state folder, released by the OS
   when the process dies), so a second run writing the same output is refused at once;
3. removes what an interrupted earlier write of this output left (temporary files named
   ``.<name>.bacon-tmp-<pid>-<n>``, and ``.<name>.tmp-<pid>`` of older versions) and puts
   back a folder whose replacement was cut short;
4. refuses to replace an existing output that bacon did not write, or that was changed
   since (a ``todo.csv`` with labels filled in), unless ``force``: a small ledger in the
   state folder records the SHA-256 of every file bacon writes. A folder output may only
   hold files bacon wrote; ``force`` lets it replace changed files of the names it
   writes, never remove a file of another name.

The writes themselves are atomic: into a temporary file beside the target, flushed and
fsynced, renamed into place, and the folder fsynced; a folder is filled under a temporary
name and swapped in. A failure (a full disk, a kill) leaves the earlier output as it
was and no file that reads as valid but is incomplete.

The state folder is ``$BACON_STATE_DIR``, else ``$XDG_STATE_HOME/bacon_bayes``, else
``~/.local/state/bacon_bayes``. Test hook: with ``BACON_PAUSE_BEFORE_COMMIT=FILE`` a write
creates FILE (holding the process id) and sleeps before its rename;
``BACON_PAUSE_STAGE`` picks the point instead: ``claimed`` (after the checks, before the
work), ``commit`` (the default), ``swapped`` (a folder moved aside, the new one not yet in
place).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import itertools
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from bacon_bayes.errors import ValidationError

__all__ = [
    "FORCE_HELP",
    "PAUSE_ENV",
    "Output",
    "atomic_write_text",
    "claim",
    "commit_file",
    "commit_folder",
    "fsync_dir",
    "is_temp_name",
    "oserror_message",
    "oserror_text",
    "temp_path",
    "write_file",
    "write_folder",
]

PAUSE_ENV = "BACON_PAUSE_BEFORE_COMMIT"
STAGE_ENV = "BACON_PAUSE_STAGE"
STATE_ENV = "BACON_STATE_DIR"
FORCE_HELP = (
    "replace an existing output that bacon did not write, or that was changed since it "
    "was (bacon refuses otherwise); inputs are never replaced"
)
TEMP_TAG = ".bacon-tmp-"
OLD_TAG = ".bacon-old-"
_counter = itertools.count()


# --- atomic primitives -------------------------------------------------------------------


def fsync_dir(directory: Path) -> None:
    """Flush a folder's entries (a rename in it) to disk."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def pause(stage: str) -> None:
    """The test hook: pause at ``stage`` when the environment asks for it."""
    marker = os.environ.get(PAUSE_ENV)
    if marker and os.environ.get(STAGE_ENV, "commit") == stage:
        Path(marker).write_text(str(os.getpid()))
        time.sleep(60)


def temp_path(path: Path) -> Path:
    """A temporary name beside ``path`` that :func:`remove_leftovers` recognises."""
    return path.with_name(f".{path.name}{TEMP_TAG}{os.getpid()}-{next(_counter)}")


def is_temp_name(name: str) -> bool:
    """Whether a file name is one of our temporary or set-aside names."""
    return name.startswith(".") and (TEMP_TAG in name or OLD_TAG in name or ".tmp-" in name)


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_tree(root: Path) -> None:
    for folder, _, files in os.walk(root):
        for name in files:
            _fsync_file(Path(folder) / name)
        fsync_dir(Path(folder))


def _discard(path: Path) -> None:
    """Remove a temporary file or folder; never raises (it runs while an error is being
    handled: on a read-only file system even removing a missing file fails)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def write_file(path: str | Path, fill: Callable[[Path], Any]) -> Path:
    """Write ``path`` atomically: ``fill(tmp)`` writes a temporary file beside it, which is
    fsynced and renamed onto ``path``. On any failure the temporary file is removed and
    ``path`` is as it was; an ``OSError`` becomes a :class:`ValidationError` naming the
    path."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        fill(tmp)
        commit_file(tmp, path)
    except BaseException as exc:
        _discard(tmp)
        if isinstance(exc, OSError):
            raise ValidationError(oserror_message(exc, path)) from exc
        raise
    remove_dead_temps(path)
    return path


def remove_dead_temps(path: Path) -> list[Path]:
    """Remove the temporary files of ``path`` left by processes that are gone (killed
    mid-write): what a library write (``Calibrator.save``), which holds no lock, can
    clean safely; :func:`claim` removes every leftover under its lock."""
    found = []
    for tmp in path.parent.glob(f".{_glob_escape(path.name)}{TEMP_TAG}*"):
        pid = tmp.name.rsplit(TEMP_TAG, 1)[1].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            _discard(tmp)
            found.append(tmp)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def commit_file(tmp: Path, path: Path) -> None:
    """Move the finished temporary file ``tmp`` onto ``path``: fsync, rename, fsync of
    the folder (for writers that stream into :func:`temp_path` themselves). On failure
    ``tmp`` is removed and an ``OSError`` becomes a :class:`ValidationError`."""
    try:
        _fsync_file(tmp)
        pause("commit")
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException as exc:
        _discard(tmp)
        if isinstance(exc, OSError):
            raise ValidationError(oserror_message(exc, path)) from exc
        raise


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Replace ``path`` by ``text`` atomically (see :func:`write_file`)."""

    def fill(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)

    return write_file(path, fill)


def write_folder(path: str | Path, fill: Callable[[Path], Any]) -> Path:
    """Write the folder ``path`` atomically: ``fill(tmp)`` fills a new temporary folder,
    which :func:`commit_folder` swaps in."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        tmp.mkdir()
        fill(tmp)
    except BaseException as exc:
        _discard(tmp)
        if isinstance(exc, OSError):
            raise ValidationError(oserror_message(exc, path)) from exc
        raise
    commit_folder(tmp, path)
    return path


def commit_folder(tmp: Path, path: Path, carry: bool = True) -> None:
    """Swap the finished folder ``tmp`` in at ``path``.

    With ``carry``, the files of the folder now at ``path`` that ``tmp`` lacks are copied
    over (an output folder holds only files bacon wrote, see :func:`claim`, and none is
    dropped; off for a folder whose files are one whole, e.g. the parts of a table); the old
    folder is set aside, ``tmp`` renamed onto ``path`` and the old one removed. Killed
    between the two renames, the old folder is put back by the next claim of ``path``; on
    an error here it is put back at once and ``tmp`` removed."""
    old = path.with_name(f".{path.name}{OLD_TAG}{os.getpid()}")
    try:
        if carry and path.is_dir():
            for file in sorted(path.rglob("*")):
                name = file.relative_to(path)
                if file.is_file() and not (tmp / name).exists():
                    (tmp / name).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(file, tmp / name)
        _fsync_tree(tmp)
        pause("commit")
        if path.exists():
            os.replace(path, old)
            pause("swapped")
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException as exc:
        _discard(tmp)
        if old.exists() and not path.exists():
            os.replace(old, path)
        if isinstance(exc, OSError):
            raise ValidationError(oserror_message(exc, path)) from exc
        raise
    shutil.rmtree(old, ignore_errors=True)


def remove_leftovers(path: Path) -> list[Path]:
    """Remove what interrupted writes of ``path`` left beside it (call under its lock):
    temporary files and folders, and a folder set aside by :func:`write_folder` (put back
    when ``path`` itself is missing)."""
    found = []
    parent, name = path.parent, path.name
    for old in sorted(parent.glob(f".{_glob_escape(name)}{OLD_TAG}*")):
        if not path.exists():
            os.replace(old, path)
        else:
            _discard(old)
        found.append(old)
    for pattern in (f".{_glob_escape(name)}{TEMP_TAG}*", f".{_glob_escape(name)}.tmp-*"):
        for tmp in sorted(parent.glob(pattern)):
            _discard(tmp)
            found.append(tmp)
    return found


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def oserror_message(exc: OSError, path: Path) -> str:
    """A message for a failed write of ``path``: what happened and what to do."""
    where = f"{str(path)!r}"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left" in str(exc):
        return (
            f"no space left on the device while writing {where}; nothing was replaced "
            "(the earlier file, if any, is intact). Free some space and run again."
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (
            f"cannot write {where}: {exc.strerror} (a read-only place?). Choose a path "
            "you can write to."
        )
    return f"cannot write {where}: {exc.strerror or exc}. Check the path and run again."


def oserror_text(exc: OSError) -> str:
    """A one-line message for an ``OSError`` that reached the command line (a path,
    permission or disk problem), naming the file."""
    if exc.filename is not None:
        return oserror_message(exc, Path(exc.filename)).replace("cannot write", "cannot use", 1)
    return f"{exc.strerror or exc} (a path, permission or disk problem). Check and run again."


# --- the ledger: which files bacon wrote -------------------------------------------------


def state_dir() -> Path:
    """The folder of the ledger and the output locks (created on first use)."""
    base = os.environ.get(STATE_ENV) or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"), "bacon_bayes"
    )
    path = Path(base)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only home: locks and the ledger go to the temp folder
        path = Path(tempfile.gettempdir()) / f"bacon_bayes-{os.getuid()}"
        path.mkdir(parents=True, exist_ok=True)
    return path


def _key(path: Path) -> str:
    return hashlib.sha256(str(path).encode()).hexdigest()[:40]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _entry(path: Path) -> Path:
    return state_dir() / "written" / f"{_key(path)}.json"


def record(path: Path) -> None:
    """Note in the ledger that bacon wrote the file ``path`` as it is now (every file of
    a folder)."""
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    folder = state_dir() / "written"
    try:
        folder.mkdir(exist_ok=True)
        for file in files:
            resolved = file.resolve()
            entry = {"path": str(resolved), "size": file.stat().st_size, "sha256": _sha256(file)}
            atomic_write_text(_entry(resolved), json.dumps(entry))
    except (OSError, ValidationError):  # the output itself is written; say what is lost
        print(
            f"note: could not record {path} in bacon's ledger ({folder}); a later run will "
            "need --force to replace it",
            flush=True,
        )


def written_by_bacon(path: Path) -> bool:
    """Whether the file ``path`` is, byte for byte, a file bacon wrote there."""
    resolved = path.resolve()
    try:
        entry = json.loads(_entry(resolved).read_text())
        return bool(
            entry["path"] == str(resolved)
            and entry["size"] == path.stat().st_size
            and entry["sha256"] == _sha256(path)
        )
    except (OSError, ValueError, KeyError):
        return False


# --- claiming an output ------------------------------------------------------------------


class Output:
    """An output path a command holds (see :func:`claim`): write it with :meth:`write` or
    :meth:`write_text`, or have a library function write ``path`` atomically (e.g.
    :func:`write_folder`) and call :meth:`written`."""

    def __init__(self, path: Path, option: str) -> None:
        self.given = path  # as the user wrote it, for messages
        self.path = path.resolve()  # through a symbolic link to the file it names
        self.option = option

    def write(self, fill: Callable[[Path], Any]) -> Path:
        """Write the file atomically with ``fill(tmp)`` (see :func:`write_file`)."""
        write_file(self.path, fill)
        return self.written()

    def write_text(self, text: str) -> Path:
        """Write ``text`` to the file atomically."""
        atomic_write_text(self.path, text)
        return self.written()

    def written(self) -> Path:
        """Record the output, written (atomically) by a library function, in the ledger."""
        record(self.path)
        return self.path


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_output(
    path: str | Path,
    *,
    option: str,
    inputs: Iterable[str | Path | None] = (),
    folder: bool = False,
) -> Path:
    """Check that ``path`` may be written (see :func:`claim`); returns it as a Path."""
    path = Path(path).expanduser()
    resolved = path.resolve()
    parent = resolved.parent
    shown = f"{option} {str(path)!r}"
    if not parent.exists():
        raise ValidationError(
            f"{shown}: the folder {str(path.parent)!r} does not exist; create it first "
            f"(mkdir -p {path.parent}) or choose another path"
        )
    if not parent.is_dir():
        raise ValidationError(f"{shown}: {str(path.parent)!r} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValidationError(
            f"{shown}: cannot write into {str(path.parent)!r} (permission denied or a "
            "read-only place); choose a path you can write to"
        )
    for given in inputs:
        if given is None:
            continue
        source = Path(given).expanduser().resolve()
        if resolved == source:
            relation = "is the input"
        elif _inside(resolved, source):
            relation = f"is inside the input folder {str(given)!r}"
        elif _inside(source, resolved):
            relation = f"holds the input {str(given)!r}"
        else:
            continue
        raise ValidationError(
            f"{shown} {relation}: an output never replaces an input; choose another path"
        )
    if folder and resolved.exists() and not resolved.is_dir():
        raise ValidationError(f"{shown} is a file; {option} names a folder to write into")
    if not folder and resolved.is_dir():
        raise ValidationError(f"{shown} is a folder; {option} names a file (give a file name)")
    return path


def _refuse_foreign(
    path: Path, option: str, folder: bool, force: bool, writes: set[str], given: Path
) -> None:
    shown = f"{option} {str(given)!r}"
    fix = f"pass --force to replace it, or choose another path for {option}"
    if not folder:
        if path.exists() and path.stat().st_size and not force and not written_by_bacon(path):
            raise ValidationError(
                f"{shown} exists and was not written by bacon, or was changed since it was: "
                f"refusing to replace it; {fix}"
            )
        return
    if not path.is_dir():
        return
    foreign = [
        p
        for p in sorted(path.rglob("*"))
        if (p.is_file() or p.is_symlink())
        and not (force and p.relative_to(path).as_posix() in writes)
        and not written_by_bacon(p)
    ]
    if foreign:
        names = ", ".join(str(p.relative_to(path)) for p in foreign[:5])
        more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        hint = (
            "choose a new or empty folder (an output folder of bacon holds only files bacon wrote)"
        )
        if not force and all(p.relative_to(path).as_posix() in writes for p in foreign):
            hint = f"pass --force to replace them, or {hint}"
        raise ValidationError(
            f"{shown} holds files bacon did not write, or that were changed since: "
            f"{names}{more}; refusing to replace them; {hint}"
        )


@contextlib.contextmanager
def _lock(path: Path, shown: str) -> Iterator[IO[str]]:
    locks = state_dir() / "locks"
    locks.mkdir(exist_ok=True)
    with open(locks / f"{_key(path)}.lock", "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise ValidationError(
                f"{shown} is being written by another bacon process; wait for it to end or "
                "choose another path"
            ) from exc
        try:
            yield handle
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def claim(
    path: str | Path,
    *,
    option: str = "--out",
    inputs: Iterable[str | Path | None] = (),
    folder: bool = False,
    force: bool = False,
    writes: Iterable[str] = (),
) -> Iterator[Output]:
    """Hold the output ``path`` for the duration of a command (see the module docstring).

    Parameters
    ----------
    path
        The file (or, with ``folder``, the folder) to write.
    option
        The command-line option that named it, for messages.
    inputs
        The command's input files and folders: the output may not be, hold or lie inside
        any of them.
    folder
        Whether the output is a folder.
    force
        Replace an existing output that bacon did not write (``--force``).
    writes
        For a folder: the file names the command writes into it (``force`` may replace
        those only).

    Raises
    ------
    ValidationError
        The path cannot or may not be written; the message says why and what to do.
    """
    path = check_output(path, option=option, inputs=inputs, folder=folder)
    resolved = path.resolve()
    with _lock(resolved, f"{option} {str(path)!r}"):
        remove_leftovers(resolved)
        _refuse_foreign(resolved, option, folder, force, set(writes), path)
        pause("claimed")
        yield Output(path, option)
