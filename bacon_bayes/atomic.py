"""Atomic writes of files and folders (a temporary file beside the target, fsynced and
renamed into place; a folder filled under a temporary name and swapped in), the clean-up
of what interrupted writes left, and the test hook that pauses a write
(``BACON_PAUSE_BEFORE_COMMIT``, ``BACON_PAUSE_STAGE``; see :mod:`bacon_bayes.outputs`)."""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import shutil
import stat
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from bacon_bayes.errors import ValidationError

__all__ = [
    "PAUSE_ENV",
    "atomic_write_text",
    "commit_file",
    "commit_folder",
    "fsync_dir",
    "is_temp_name",
    "oserror_message",
    "oserror_text",
    "remove_dead_temps_in",
    "temp_path",
    "write_file",
    "write_folder",
]

PAUSE_ENV = "BACON_PAUSE_BEFORE_COMMIT"
STAGE_ENV = "BACON_PAUSE_STAGE"
TEMP_TAG = ".bacon-tmp-"
OLD_TAG = ".bacon-old-"
LOCK_TAG = ".bacon-lock"
_counter = itertools.count()
#: bytes a temporary name adds to an output's name: ``.`` + TEMP_TAG + pid + ``-`` + counter
TEMP_ROOM = len(f".{TEMP_TAG}4194304-999999")
_TEMP = re.compile(rf"\.(?P<name>.+){re.escape(TEMP_TAG)}(?P<pid>\d+)-\d+")
_OLD = re.compile(rf"\.(?P<name>.+){re.escape(OLD_TAG)}(?P<pid>\d+)")
_LEGACY = re.compile(r"\.(?P<name>.+)\.tmp-(?P<pid>\d+)")  # temps of older versions
_LOCK = re.compile(rf"\.(?P<name>.+){re.escape(LOCK_TAG)}")


_KINDS = {stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket"}  # fmt: skip


def node_kind(path: Path) -> str | None:
    """What ``path`` is when it is neither a regular file, a folder nor missing."""
    try:
        return _KINDS.get(stat.S_IFMT(os.stat(path).st_mode))
    except OSError:
        return None


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
    """Whether a name is bacon's: temporary, set-aside or lock (``.NAME.bacon-tmp-PID-N``,
    ``.NAME.bacon-old-PID``, ``.NAME.tmp-PID``, ``.NAME.bacon-lock``)."""
    return any(p.fullmatch(name) for p in (_TEMP, _OLD, _LEGACY, _LOCK))


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
    """Remove the temporary files and folders of ``path`` left by processes that are gone
    (killed mid-write); a live writer's are left alone."""
    return remove_dead_temps_in(path.parent, names={path.name}, legacy={path.name})


def remove_dead_temps_in(
    folder: Path, *, names: Collection[str] | None = None, legacy: Collection[str] = ()
) -> list[Path]:
    """Remove the temporary files and folders in ``folder`` that bacon's naming proves its
    own and whose writing process is gone.

    Parameters
    ----------
    folder
        Where to look.
    names
        Only the temps of these output names (default: of any name).
    legacy
        The names whose ``.NAME.tmp-PID`` temps (older versions' spelling) are bacon's.

    Returns
    -------
    list of Path
        What was removed. Anything else (a user's ``.notes.tmp-keep``, a live writer's
        temp, a folder set aside by a folder swap) is left.
    """
    found = []
    for entry in sorted(folder.iterdir()):
        match = _TEMP.fullmatch(entry.name)
        if match is None and (match := _LEGACY.fullmatch(entry.name)) is not None:
            match = match if match["name"] in legacy else None
        if match is None or (names is not None and match["name"] not in names):
            continue
        pid = int(match["pid"])
        if pid != os.getpid() and not _alive(pid):
            _discard(entry)
            found.append(entry)
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
        if (kind := node_kind(path)) is not None:  # a library writer's target too
            raise ValidationError(f"cannot write {str(path)!r}: {kind}, not a regular file")
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

    With ``carry``, the files of the folder now at ``path`` that ``tmp`` lacks are
    copied over (an output folder holds only files bacon wrote, see
    :func:`~bacon_bayes.outputs.claim`, and none is dropped; off for a folder whose
    files are one whole, e.g. the parts of a table); the old folder is set aside,
    ``tmp`` renamed onto ``path`` and the old one removed. Killed between the two
    renames, the old folder is put back by the next claim of ``path``; on an error here
    it is put back at once and ``tmp`` removed."""
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
    temporary files and folders of writers that are gone, and a folder set aside by
    :func:`write_folder` (put back when ``path`` itself is missing)."""
    found = []
    for old in sorted(path.parent.iterdir()):
        if (match := _OLD.fullmatch(old.name)) is None or match["name"] != path.name:
            continue
        if not path.exists():
            os.replace(old, path)
        else:
            _discard(old)
        found.append(old)
    return found + remove_dead_temps(path)


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
