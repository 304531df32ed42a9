"""Writing outputs without losing anything a user has.

Every file or folder a ``bacon`` command writes goes through :func:`claim`, which is
called before the command's work starts and

1. checks the path: its folder exists and can be written, a file is not where a folder
   is expected (or the other way round), it neither is nor holds nor lies inside an
   input, it is no device, FIFO or socket (never replaced nor opened, even with
   ``force``), its name leaves room for a temporary name, its suffix can be written, and
   the state folder can be used;
2. takes a lock on the output: an ``fcntl`` lock on ``.<name>.bacon-lock`` beside it
   (released by the OS when the process dies, the file removed when the command ends), so
   a second run writing the same output is refused at once, whoever runs it and whatever
   its state folder;
3. removes what an interrupted earlier write of this output left (temporary files named
   ``.<name>.bacon-tmp-<pid>-<n>``, and ``.<name>.tmp-<pid>`` of older versions, whose
   writing process is gone) and puts back a folder whose replacement was cut short;
4. refuses to replace an existing output that bacon did not write, or that was changed
   since (a ``todo.csv`` with labels filled in), unless ``force``: a small ledger in the
   state folder records the SHA-256 of every file bacon writes, by path and by content,
   so a file moved (``mv cal.nc models/``) is still bacon's while its bytes are the ones
   bacon wrote (an empty file never is). A folder output may only
   hold files bacon wrote; ``force`` lets it replace changed files of the names it
   writes, never remove a file of another name.

The writes themselves are atomic (:mod:`bacon_bayes.atomic`): into a temporary file
beside the target, flushed and fsynced, renamed into place, and the folder fsynced; a
folder is filled under a temporary name and swapped in. A failure (a full disk, a kill)
leaves the earlier output as it was and no file that reads as valid but is incomplete.

The state folder is ``$BACON_STATE_DIR``, else ``$XDG_STATE_HOME/bacon_bayes``, else
``~/.local/state/bacon_bayes`` (created with mode 0700). One that cannot be used (a file, a
read-only place) is refused, naming it; only when the default one cannot be created in a
read-only home does bacon fall back to ``$TMPDIR/bacon_bayes-<uid>``, and only to a folder
owned by the user with mode 0700. Test hook: with ``BACON_PAUSE_BEFORE_COMMIT=FILE`` a write
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
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bacon_bayes.atomic import (
    LOCK_TAG,
    TEMP_ROOM,
    atomic_write_text,
    node_kind,
    pause,
    remove_leftovers,
    write_file,
)
from bacon_bayes.errors import ValidationError

__all__ = [
    "FORCE_HELP",
    "Output",
    "claim",
    "output_lock",
    "write_output",
]

STATE_ENV = "BACON_STATE_DIR"
FORCE_HELP = (
    "replace an existing output that bacon did not write, or that was changed since it "
    "was (bacon refuses otherwise); inputs are never replaced"
)


# --- the ledger: which files bacon wrote -------------------------------------------------


def state_dir() -> Path:
    """The folder of the ledger of written files (created on first use, mode 0700).

    Raises
    ------
    ValidationError
        It cannot be used (a file where it should be, a read-only place), naming it and
        ``BACON_STATE_DIR``; or the default one cannot be created and the fallback in the
        temp folder is not a private folder of the user's (see the module docstring).
    """
    given = os.environ.get(STATE_ENV)
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(given or os.path.join(xdg or os.path.expanduser("~/.local/state"), "bacon_bayes"))
    where = f"${STATE_ENV}" if given else "$XDG_STATE_HOME/bacon_bayes" if xdg else "the default"
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise ValidationError(_state_refused(base, where, "it is a file, not a folder")) from exc
    except OSError as exc:
        if given or exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise ValidationError(_state_refused(base, where, exc.strerror or str(exc))) from exc
        return _private_fallback(base, exc)
    if not os.access(base, os.W_OK | os.X_OK):
        raise ValidationError(_state_refused(base, where, "it cannot be written (read-only)"))
    return base


def _state_refused(base: Path, where: str, why: str) -> str:
    return (
        f"bacon's state folder {str(base)!r} ({where}), where it records the files it "
        f"writes, cannot be used: {why}. Nothing was written. Make it a folder you can "
        f"write, or set {STATE_ENV} to one"
    )


def _private_fallback(base: Path, exc: OSError) -> Path:
    """``$TMPDIR/bacon_bayes-<uid>`` when it is (or is made) a folder of the user's with
    mode 0700, a real folder, not a link; refused otherwise (another user could plant
    ledger entries there)."""
    path = Path(tempfile.gettempdir()) / f"bacon_bayes-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ValidationError(
            _state_refused(base, "the default", exc.strerror or str(exc))
            + f" (the fallback {str(path)!r} is not a folder of yours with mode 0700)"
        )
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


def _content_entry(sha256: str) -> Path:
    """The ledger's entry of a file's content, wherever the file is now."""
    return state_dir() / "written" / "content" / f"{sha256}.json"


def _wrote_content(size: int, sha256: str) -> bool:
    """Whether bacon wrote a file of these bytes, at any path: its content entry, or (a
    file recorded before content entries were kept) a path entry of the same bytes."""
    if size == 0:  # an empty file may be another program's (a lock)
        return False
    try:
        entry = json.loads(_content_entry(sha256).read_text())
        return bool(entry["size"] == size and entry["sha256"] == sha256)
    except (OSError, ValueError, KeyError):
        pass
    for old in (state_dir() / "written").glob("*.json"):  # only on the way to a refusal
        with contextlib.suppress(OSError, ValueError, KeyError):
            entry = json.loads(old.read_text())
            if entry["size"] == size and entry["sha256"] == sha256:
                return True
    return False


def record(path: Path) -> None:
    """Note in the ledger that bacon wrote the file ``path`` as it is now (every file of
    a folder)."""
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    folder = state_dir() / "written"
    try:
        (folder / "content").mkdir(parents=True, exist_ok=True)
        for file in files:
            resolved = file.resolve()
            entry = {"path": str(resolved), "size": file.stat().st_size, "sha256": _sha256(file)}
            atomic_write_text(_entry(resolved), json.dumps(entry))
            content = {"size": entry["size"], "sha256": entry["sha256"]}
            atomic_write_text(_content_entry(entry["sha256"]), json.dumps(content))
    except (OSError, ValidationError):  # the output itself is written; say what is lost
        print(
            f"note: could not record {path} in bacon's ledger ({folder}); a later run will "
            "need --force to replace it",
            flush=True,
        )


def written_by_bacon(path: Path) -> bool:
    """Whether the file ``path`` is, byte for byte, a file bacon wrote, there or elsewhere
    (moved since; a regular file: a FIFO or a device is never opened)."""
    resolved = path.resolve()
    try:
        if not stat.S_ISREG(os.stat(resolved).st_mode):
            return False
        size, sha256 = path.stat().st_size, _sha256(path)
    except OSError:
        return False
    try:
        entry = json.loads(_entry(resolved).read_text())
        if entry["path"] == str(resolved) and entry["size"] == size and entry["sha256"] == sha256:
            return True
    except (OSError, ValueError, KeyError):
        pass
    return _wrote_content(size, sha256)


# --- claiming an output ------------------------------------------------------------------


class Output:
    """An output path a command holds (see :func:`claim`): write it with :meth:`write` or
    :meth:`write_text`, or have a library function write ``path`` atomically (e.g.
    :func:`~bacon_bayes.atomic.write_folder`) and call :meth:`written`."""

    def __init__(self, path: Path, option: str) -> None:
        self.given = path  # as the user wrote it, for messages
        self.path = path.resolve()  # through a symbolic link to the file it names
        self.option = option

    def write(self, fill: Callable[[Path], Any]) -> Path:
        """Write the file atomically with ``fill(tmp)`` (see
        :func:`~bacon_bayes.atomic.write_file`)."""
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
    suffixes: Sequence[str] = (),
) -> Path:
    """Check that ``path`` may be written (see :func:`claim`); returns it as a Path.

    ``suffixes``: the file endings the command can write (``.csv``, ...), checked here,
    before any work."""
    path = Path(path).expanduser()
    shown = f"{option} {str(path)!r}"
    if suffixes and path.suffix.lower() not in suffixes:
        raise ValidationError(f"{shown}: use a {' or '.join(suffixes)} file name")
    resolved = path.resolve()
    parent = resolved.parent
    if not parent.exists():
        raise ValidationError(
            f"{shown}: the folder {str(path.parent)!r} does not exist; create it first "
            f"(mkdir -p {path.parent}) or choose another path"
        )
    if not parent.is_dir():
        raise ValidationError(f"{shown}: {str(path.parent)!r} is a file, not a folder")
    _check_name(resolved, shown)
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
    if (kind := node_kind(resolved)) is not None:
        raise ValidationError(
            f"{shown} is {kind}, not a regular file: bacon never replaces nor opens one, "
            "even with --force; choose another path"
        )
    if folder and resolved.exists() and not resolved.is_dir():
        raise ValidationError(f"{shown} is a file; {option} names a folder to write into")
    if not folder and resolved.is_dir():
        raise ValidationError(f"{shown} is a folder; {option} names a file (give a file name)")
    return path


def _check_name(resolved: Path, shown: str) -> None:
    """Refuse a name whose temporary name (:data:`TEMP_ROOM` bytes longer) the file system
    cannot hold: found now, not after the work."""
    try:
        limit = os.pathconf(resolved.parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    size = len(os.fsencode(resolved.name))
    if size + TEMP_ROOM > limit:
        raise ValidationError(
            f"{shown}: the name is {size} bytes long; bacon writes through a temporary "
            f"name beside it, {TEMP_ROOM} bytes longer, and this file system allows {limit}: "
            f"choose a name of at most {limit - TEMP_ROOM} bytes"
        )


def _refuse_foreign(
    path: Path,
    option: str,
    folder: bool,
    force: bool,
    writes: set[str],
    given: Path,
    appends: bool,
    force_name: str = "--force",
) -> None:
    shown = f"{option} {str(given)!r}"
    verb = "append to" if appends else "replace"  # a ledger: --force appends to it as it is
    fix = (
        f"pass {force_name} to {verb} it{' as it is' * appends}, or choose another path "
        f"for {option}"
    )
    if not folder:  # an empty file too: it may be another program's (a lock)
        if path.exists() and not force and not written_by_bacon(path):
            raise ValidationError(
                f"{shown} exists and was not written by bacon, or was changed since it was: "
                f"refusing to {verb} it; {fix}"
            )
        return
    if not path.is_dir():
        return
    foreign = [
        p
        for p in sorted(path.rglob("*"))
        if (p.is_symlink() or not p.is_dir())  # a FIFO or device too: never bacon's
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
            hint = f"pass {force_name} to replace them, or {hint}"
        raise ValidationError(
            f"{shown} holds files bacon did not write, or that were changed since: "
            f"{names}{more}; refusing to replace them; {hint}"
        )


@contextlib.contextmanager
def output_lock(path: str | Path, shown: str | None = None) -> Iterator[None]:
    """Hold the lock of the output ``path``: an ``fcntl`` lock on ``.NAME.bacon-lock``
    beside it, so every writer of ``path`` sees it (another user, another state folder,
    another host on shared storage with working ``flock``). Refused at once when held;
    the lock file is removed when released (and checked to be the one locked, so a
    writer that opened a file being removed tries again).

    Raises
    ------
    ValidationError
        Another process holds it, or the lock file cannot be made.
    """
    path = Path(path)
    shown = shown or str(path)
    lock = path.with_name(f".{path.name}{LOCK_TAG}")
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    while True:
        try:
            fd = os.open(lock, flags, 0o600)
        except OSError as exc:
            raise ValidationError(
                f"{shown}: cannot make its lock file {str(lock)!r} ({exc.strerror}); "
                "remove what is there or choose another path"
            ) from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ValidationError(f"{shown}: its lock file {str(lock)!r} is not a file")
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise ValidationError(
                f"{shown} is being written by another bacon process; wait for it to end or "
                "choose another path"
            ) from exc
        except BaseException:
            os.close(fd)
            raise
        try:
            current = os.stat(lock, follow_symlinks=False)
        except FileNotFoundError:
            current = None
        if current is not None and os.path.samestat(current, os.fstat(fd)):
            break
        os.close(fd)  # removed by the holder that just ended: lock the new one
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)


@contextlib.contextmanager
def claim(
    path: str | Path,
    *,
    option: str = "--out",
    inputs: Iterable[str | Path | None] = (),
    folder: bool = False,
    force: bool = False,
    writes: Iterable[str] = (),
    suffixes: Sequence[str] = (),
    appends: bool = False,
    force_name: str = "--force",
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
        Replace an existing output that bacon did not write (``--force``); with ``appends``
        (a ledger the command appends to), append to it as it is.
    writes
        For a folder: the file names the command writes into it (``force`` may replace
        those only).
    suffixes
        The file endings the command can write (checked before any work).
    force_name
        How the caller spells ``force`` in the refusal's fix (``overwrite=True`` in Python).

    Raises
    ------
    ValidationError
        The path cannot or may not be written; the message says why and what to do.
    """
    path = check_output(path, option=option, inputs=inputs, folder=folder, suffixes=suffixes)
    resolved = path.resolve()
    state_dir()  # a state folder that cannot be used: refused before any work
    with output_lock(resolved, f"{option} {str(path)!r}"):
        remove_leftovers(resolved)
        _refuse_foreign(resolved, option, folder, force, set(writes), path, appends, force_name)
        pause("claimed")
        yield Output(path, option)


def write_output(
    path: str | Path | Output,
    write: Callable[[Path], Any],
    *,
    option: str,
    suffixes: Sequence[str],
    overwrite: bool = False,
    inputs: Iterable[str | Path | None] = (),
) -> Path:
    """Write one file from the Python API under the commands' rules (:func:`claim`: the
    suffix checked, no input replaced, an existing file replaced only when bacon wrote
    it as it is, or with ``overwrite``), with ``write(path)`` writing it atomically;
    returns the path. An :class:`Output` a command already holds (its :func:`claim`,
    which did these checks before the work) is written as it is."""
    if isinstance(path, Output):
        write(path.path)
        return path.written()
    with claim(
        path,
        option=option,
        inputs=inputs,
        force=overwrite,
        suffixes=suffixes,
        force_name="overwrite=True",
    ) as out:
        write(out.path)
        return out.written()


def unused_name(stem: str, ending: str = ".csv") -> str:
    """``<stem><ending>``, or ``<stem>2<ending>``... where that file exists (``stem`` read
    from the working folder): the file a line bacon prints writes never replaces one the
    user has."""
    names = (f"{stem}{k}{ending}" for k in ["", *range(2, 1000)])
    return next(n for n in names if not Path(n).exists())
