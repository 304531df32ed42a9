"""Worker processes: local process pools and Dask clusters, checked before use, and
ending with the process that started them.

* :func:`parse_scheduler` and :func:`connect_dask`: the one way ``bacon simulate`` and
  the streaming ``bacon estimate`` read ``--scheduler`` (``local:N`` or an address) and
  connect: a bad value, a scheduler that cannot be reached within
  :data:`CONNECT_TIMEOUT` seconds, or the ``dask`` extra not installed is a
  :class:`~bacon_bayes.errors.ValidationError` naming the fix, never a hang or a
  traceback. :func:`close_dask` closes what it opened, a local cluster without its
  nannies' warnings about killing a worker process slow to exit.
* :func:`die_with_parent`: run in every worker process, it ends the worker when the
  process that started it dies, even by SIGKILL (which runs no clean-up of the
  parent): on Linux the kernel sends the worker SIGKILL (``PR_SET_PDEATHSIG``), and on
  every platform a daemon thread polls the parent every :data:`WATCH_INTERVAL` seconds
  and exits when it is gone. :func:`process_pool` starts local workers with it.
  The worker processes of a ``local:N`` cluster need nothing more: their nannies run in
  this process, and ``distributed`` gives each worker process a pipe from it and exits
  the worker at once when that pipe closes (``AsyncProcess._immediate_exit_when_closed``),
  which the kernel does when this process dies, SIGKILL included
  (``tests/test_worker_lifetime.py`` checks both).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bacon_bayes.errors import ValidationError

__all__ = [
    "CONNECT_TIMEOUT",
    "MIN_WORKER_MEMORY",
    "WATCH_INTERVAL",
    "Interrupts",
    "close_dask",
    "connect_dask",
    "die_with_parent",
    "parse_scheduler",
    "process_pool",
    "usable_cores",
    "usable_memory",
]

#: Seconds to wait for a remote Dask scheduler before giving up.
CONNECT_TIMEOUT = 5.0
#: Memory a worker process of a ``local:N`` cluster needs at least (its imports alone
#: take about 300 MiB; Dask pauses and restarts a worker past 80-95% of its share)
MIN_WORKER_MEMORY = 2**30
#: Seconds an interrupted run gives its client and local cluster to close
CLOSE_TIMEOUT = 5.0
#: Seconds between two looks of a worker's watchdog at its parent.
WATCH_INTERVAL = 0.5
_PR_SET_PDEATHSIG = 1
_SIGKILL = 9
_INSTALL = "pip install 'bacon_bayes[dask]'"


def parse_scheduler(scheduler: str) -> int | None:
    """The N of ``local:N`` (a whole number >= 1), or None for a scheduler address.

    Raises
    ------
    ValidationError
        For ``local:0``, ``local:-1``, ``local:x`` or an empty value, naming the fix.
    """
    text = str(scheduler).strip()
    if not text:
        raise ValidationError(
            "--scheduler is empty; pass local:N (N worker processes here) or the "
            "address of a Dask scheduler (tcp://host:8786)"
        )
    if not text.startswith("local:"):
        return None
    value = text.split(":", 1)[1]
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise ValidationError(
            f"--scheduler {text!r}: local:N needs a whole number of worker processes of at "
            "least 1, e.g. local:2"
        )
    cores, memory = usable_cores(), usable_memory()
    fits = max(1, min(cores, memory // MIN_WORKER_MEMORY))
    if n > cores:
        raise ValidationError(
            f"--scheduler {text!r}: this machine has {cores} core{'s' if cores != 1 else ''}, "
            f"and local:N runs N single-threaded worker processes side by side: more than the "
            f"cores only slows them down and splits the memory between them. Use "
            f"local:{fits} (or a Dask scheduler's address for more machines)"
        )
    if memory // n < MIN_WORKER_MEMORY:
        raise ValidationError(
            f"--scheduler {text!r}: the machine's {memory / 2**30:.1f} GiB split {n} ways "
            f"leaves each worker {memory / n / 2**20:.0f} MiB, under the "
            f"{MIN_WORKER_MEMORY / 2**30:g} GiB one needs (Dask pauses and restarts a worker "
            f"that runs out of its share). Use local:{fits}"
        )
    return n


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform says)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def usable_memory() -> int:
    """Bytes of memory a local cluster splits between its workers: the machine's, or a
    container's limit (cgroups) when lower, as Dask reads it."""
    try:
        from distributed.system import MEMORY_LIMIT

        return int(MEMORY_LIMIT)
    except ImportError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - no sysconf
        return 2**62


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise ValidationError(
            f"--scheduler needs dask.distributed, which is not installed: {_INSTALL} (or "
            "drop --scheduler; bacon simulate also takes --workers N)"
        ) from exc
    return distributed


def connect_dask(
    scheduler: Any, *, config: dict[str, Any] | None = None, timeout: float = CONNECT_TIMEOUT
) -> tuple[Any, Any]:
    """``(client, cluster)`` for ``scheduler``: a ``distributed.Client`` (used as it is,
    cluster None), ``"local:N"`` (a LocalCluster of N single-threaded worker processes
    on loopback, which end with this one) or a scheduler address.

    ``config``: dask settings while the local cluster starts. A scheduler that does not
    answer within ``timeout`` seconds, a bad ``local:N`` or a missing ``dask`` extra
    raise :class:`ValidationError`.
    """
    distributed = _import_distributed()
    if isinstance(scheduler, distributed.Client):
        return scheduler, None
    text = str(scheduler).strip()
    n = parse_scheduler(text)
    if n is not None:
        import dask

        with dask.config.set(config or {}):
            cluster = distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
            )
        try:
            return distributed.Client(cluster), cluster
        except BaseException:
            cluster.close()
            raise
    try:
        return distributed.Client(text, timeout=f"{timeout:g}s"), None
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise ValidationError(
            f"--scheduler {text!r}: cannot reach a Dask scheduler there within {timeout:g} s "
            f"({detail}); start one (`dask scheduler`, then `dask worker ADDRESS`), check "
            "the address, or use local:N"
        ) from exc


#: the logger of the nannies of a local cluster: on closing, a worker process slow to
#: exit (a loaded machine; numba and PyTensor to tear down) is killed with a warning that
#: reads like a failure ("Worker process still alive after 4.0 seconds, killing")
_NANNY_LOGGER = "distributed.nanny"


def close_dask(scheduler: Any, client: Any, cluster: Any, *, hurry: bool = False) -> None:
    """Close what :func:`connect_dask` opened for ``scheduler``: the client (not a client
    handed in as ``scheduler``: its owner closes it), and the local cluster when this
    process started one (``cluster`` not None), its nannies' warnings about killing a
    worker process slow to exit kept out of the command's output (the cluster's work is
    done; its workers end either way).

    ``hurry`` (an interrupted or failed run): each close gets :data:`CLOSE_TIMEOUT`
    seconds and its errors are dropped (a scheduler that is gone cannot be told); a
    local cluster's workers still end with this process.
    """
    nanny = logging.getLogger(_NANNY_LOGGER)
    level = nanny.level
    if cluster is not None or hurry:
        nanny.setLevel(logging.CRITICAL if hurry else logging.ERROR)
    quiet = [logging.getLogger(n) for n in ("distributed", "tornado")] if hurry else []
    levels = [q.level for q in quiet]
    for q in quiet:  # the lost connection's errors, already said in one line
        q.setLevel(logging.CRITICAL)
    try:
        timeout = {"timeout": CLOSE_TIMEOUT} if hurry else {}
        for closing, do in ((client, client is not scheduler), (cluster, cluster is not None)):
            if not do:
                continue
            try:
                closing.close(**timeout)
            except Exception:
                if not hurry:
                    raise
    finally:
        nanny.setLevel(level)
        for q, was in zip(quiet, levels, strict=True):
            q.setLevel(was)


class Interrupts:
    """Ctrl-C while waiting on Dask, kept for the caller to act on.

    Inside the ``with`` block, SIGINT only sets :attr:`hit` (in the main thread; other
    threads cannot take signals and get no handler): a KeyboardInterrupt raised at a random
    point of ``distributed``'s code can land in one of its callbacks (a gc callback, an
    event-loop task), which swallows it, and the run goes on as if nothing was pressed.
    The waits poll :attr:`hit` instead and raise KeyboardInterrupt themselves
    (:meth:`check`); leaving the block puts the previous handler back, and raises
    KeyboardInterrupt if Ctrl-C was pressed meanwhile.
    """

    def __init__(self) -> None:
        self.hit = threading.Event()
        self._old: Any = None
        self._raise = False

    def _handler(self, *_: Any) -> None:
        self.hit.set()
        if self._raise:
            raise KeyboardInterrupt

    def __enter__(self) -> Interrupts:
        import signal

        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, kind: Any, *rest: Any) -> None:
        import signal

        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None
        if kind is None:
            self.check()

    def check(self) -> None:
        """KeyboardInterrupt if Ctrl-C was pressed."""
        if self.hit.is_set():
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def raising(self) -> Iterator[None]:
        """Work of this process (not a wait on the cluster): Ctrl-C raises
        KeyboardInterrupt at once, and is noted too, for :meth:`check`, should a callback
        swallow it."""
        self.check()
        self._raise = True
        try:
            yield
        finally:
            self._raise = False
        self.check()

    def wait(self, future: Any, poll: float = 0.2) -> Any:
        """``future.result()``, returning early by KeyboardInterrupt on Ctrl-C (closing
        the client then drops the work).

        Polls ``future.done()`` between waits on :attr:`hit`, then takes the result
        without a timeout: ``distributed``'s ``result(timeout=...)`` can lose a result that
        arrives as its timeout fires (its ``sync`` then raises UnboundLocalError)."""
        while not future.done():
            if self.hit.wait(poll):
                raise KeyboardInterrupt
        return future.result()


# -- ending with the parent --------------------------------------------------------


def die_with_parent(parent: int | None = None) -> None:
    """End this process when ``parent`` (default: the current parent process) dies.

    Sets ``PR_SET_PDEATHSIG`` to SIGKILL on Linux (it fires when the *thread* that
    started this process ends, so it is backed by the watchdog) and starts a daemon
    thread that checks every :data:`WATCH_INTERVAL` seconds whether the parent is still
    there and calls ``os._exit(1)`` when it is not. Safe to call more than once.
    """
    watched = os.getppid() if parent is None else int(parent)
    if parent is None and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread only
            pass
        if os.getppid() != watched:  # the parent died before prctl took effect
            os._exit(1)
    name = f"bacon-watch-{watched}"
    if any(t.name == name for t in threading.enumerate()):
        return
    threading.Thread(target=_watch, args=(watched, parent is None), name=name, daemon=True).start()


def _watch(watched: int, is_parent: bool) -> None:
    while True:
        time.sleep(WATCH_INTERVAL)
        if is_parent:
            gone = os.getppid() != watched
        else:
            try:
                os.kill(watched, 0)
                gone = False
            except ProcessLookupError:
                gone = True
            except PermissionError:  # pragma: no cover - alive, another user's now
                gone = False
        if gone:
            os._exit(1)


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes that end with this process.

    Spawned, not forked: a parent that imported JAX or PyTensor runs threads, and a
    forked child of a multithreaded process can deadlock.
    """
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=die_with_parent)
