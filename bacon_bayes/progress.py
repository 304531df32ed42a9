"""Progress bars on long work (Bayesian sampling, cross-fitting folds, ``bacon simulate``'s
trials, ``bacon judge``'s calls, a streamed estimate's passes): tqdm on stderr, the
package's one progress mechanism, drawn when stderr is a terminal.

A bar appears only once its work has taken :data:`DELAY` seconds (tqdm's ``delay``): a
frequentist cross-fit done in a blink prints nothing even on a terminal. Without a
terminal (a log file in CI, a pipe) a bar is :class:`PlainProgress`: a plain line now and
then (after :data:`PLAIN_SHARE` of the work and :data:`PLAIN_SECONDS`, whichever comes
later; at least every :data:`PLAIN_QUIET` seconds), so work under 30 seconds, tests among
it, prints nothing. The environment variable ``BACON_PROGRESS=0`` turns both off
(:func:`silenced` sets it, for work whose own bar counts many fits, such as ``bacon
simulate``'s trials, in its worker processes too). Nutpie's sampling is drawn on a
terminal only.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

#: Seconds of work before a bar appears.
DELAY = 1.0
#: Without a terminal, a line after this share of the work and :data:`PLAIN_SECONDS`
#: since the last line, whichever comes later (a 10-minute run: a line a minute)
PLAIN_SHARE = 0.1
PLAIN_SECONDS = 30.0
#: ... and a line after this many seconds whatever the share (a slow run is seen alive)
PLAIN_QUIET = 300.0

#: What nutpie's progress template renders for :class:`SamplingProgress` (its template
#: language; ``chains`` per chain, the rest summed over the run's chains).
NUTPIE_TEMPLATE = (
    "{{ total_finished_draws }} {{ total_draws }} {{ running_chains }} "
    "{% for chain in chains %}{{ chain.divergences }} {% endfor %}"
)


def shown(show: bool | None = None) -> bool:
    """Whether to draw progress: ``show`` when given, else whether stderr is a terminal
    (and ``BACON_PROGRESS`` is not ``0``)."""
    if show is not None:
        return show
    if os.environ.get("BACON_PROGRESS") == "0":
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


def plain(show: bool | None = None) -> bool:
    """Whether progress goes as plain lines (:class:`PlainProgress`): ``show`` not given,
    stderr not a terminal and ``BACON_PROGRESS`` not ``0``."""
    if show is not None or os.environ.get("BACON_PROGRESS") == "0":
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    return not (isatty and isatty())


def _duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``2 h 05 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"


class PlainProgress:
    """Progress as plain lines on stderr, for a log file or a pipe (a tqdm bar there is
    one long line of carriage returns, or nothing): ``judging: 120/1,200 calls (10%),
    1 min elapsed, about 9 min left``. A line is written once :data:`PLAIN_SHARE` of the
    work is done and :data:`PLAIN_SECONDS` have passed since the last (both), or
    :data:`PLAIN_QUIET` seconds have; with an unknown total, every ``PLAIN_SECONDS``.
    :meth:`close` writes a last line when any was written. The part of tqdm's interface
    the package uses: ``update``, ``n``, ``total``, ``set_postfix``, ``close``, a context
    manager. ``clock``: seconds (``time.monotonic``)."""

    disable = False

    def __init__(self, total: int | None, desc: str, unit: str = "it", clock: Any = None):
        self.total, self.desc, self.unit = total, desc, unit
        self.clock = clock or time.monotonic
        self.start = self.last_t = self.clock()
        self.n = self.last_n = 0
        self.postfix = ""
        self.lines = 0
        self._lock = threading.Lock()

    def update(self, n: int = 1) -> None:
        with self._lock:
            self.n += n
            now = self.clock()
            quiet = now - self.last_t
            if self.total:
                share = (self.n - self.last_n) / self.total
                due = share >= PLAIN_SHARE and quiet >= PLAIN_SECONDS
            else:
                due = quiet >= PLAIN_SECONDS
            if (due or quiet >= PLAIN_QUIET) and (not self.total or self.n < self.total):
                self._write(now)

    def set_postfix(self, refresh: bool = False, **values: Any) -> None:
        self.postfix = ", ".join(f"{k} {v}" for k, v in values.items())

    def _write(self, now: float) -> None:
        spent = now - self.start
        text = f"{self.desc}: {self.n:,}"
        if self.total:
            text += f"/{self.total:,} {self.unit} ({100 * self.n / self.total:.0f}%)"
        else:
            text += f" {self.unit}"
        text += f", {_duration(spent)} elapsed"
        if self.total and 0 < self.n < self.total:
            text += f", about {_duration(spent * (self.total - self.n) / self.n)} left"
        print(text + (f", {self.postfix}" if self.postfix else ""), file=sys.stderr, flush=True)
        self.last_t, self.last_n = now, self.n
        self.lines += 1

    def close(self) -> None:
        """A last line (done, and the time it took) when any line was written."""
        with self._lock:
            if self.lines and self.last_n != self.n:
                self._write(self.clock())

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """No bars inside (``BACON_PROGRESS=0``, which processes started inside inherit)."""
    before = os.environ.get("BACON_PROGRESS")
    os.environ["BACON_PROGRESS"] = "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ["BACON_PROGRESS"]
        else:
            os.environ["BACON_PROGRESS"] = before


def bar(
    total: int | None,
    desc: str,
    unit: str = "it",
    show: bool | None = None,
    *,
    delay: float | None = None,
    leave: bool = False,
    unit_scale: bool = False,
) -> Any:
    """A tqdm bar on stderr when :func:`shown`; without a terminal a
    :class:`PlainProgress` (:func:`plain`); else a disabled bar, drawing nothing.

    Parameters
    ----------
    total : int or None
        The steps in all (None: unknown).
    desc : str
        What the bar counts, e.g. ``"cross-fitting"``.
    unit : str
        The unit of a step.
    show : bool, optional
        Force the bar on or off (default: on a terminal only).
    delay : float, optional
        Seconds before the bar appears (default :data:`DELAY`).
    leave : bool
        Keep the last frame on stderr when done (default: the bar is removed).
    unit_scale : bool
        Counts with SI prefixes (``1.2M rows``).

    Returns
    -------
    tqdm.tqdm or PlainProgress
        Use as a context manager, or call ``update`` and ``close``.
    """
    if plain(show):
        return PlainProgress(total, desc, unit)
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        disable=not shown(show),
        leave=leave,
        delay=DELAY if delay is None else delay,
        dynamic_ncols=True,
        unit_scale=unit_scale,
    )


class Tally:
    """A progress callback ``tally(done, total)`` (as :func:`bacon_bayes.simulation.simulate`
    and ``ablation`` call theirs) drawing one :func:`bar`, made at the first call.

    Parameters
    ----------
    desc : str
        What the bar counts, e.g. ``"trials"``.
    show : bool, optional
        Force the bar on or off (default: on a terminal, else plain lines; decided now, so
        a tally made before :func:`silenced` still draws inside it).
    """

    def __init__(self, desc: str, show: bool | None = None) -> None:
        self.desc = desc
        self.on = shown(show)
        self.plain = plain(show)
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = (
                PlainProgress(total, self.desc, unit=self.desc)
                if self.plain
                else bar(total, self.desc, unit=self.desc, show=self.on)
            )
        self.bar.update(done - self.bar.n)
        if done >= total:
            self.bar.close()


class SamplingProgress:
    """One bar over the draws of one or several nutpie runs sampled at once (all their
    chains, warm-up included), with the divergences so far.

    Each run reports through the progress type :meth:`progress_type` makes for it (a
    template callback of nutpie's progress machinery); nothing is made, and nutpie shows
    nothing, when the bar is not :func:`shown`.
    """

    def __init__(self, desc: str, runs: int, total: int, show: bool | None = None) -> None:
        self.on = shown(show)
        self.bar = bar(total, desc, unit="draws", show=self.on)
        self.done = [0] * runs
        self.divergent = [0] * runs
        self._lock = threading.Lock()

    def progress_type(self, run: int, cores: int, rate_ms: int = 250) -> Any:
        """nutpie's ``ProgressType`` feeding run ``run``'s progress into the bar."""
        from nutpie import _lib

        if not self.on:
            return _lib.ProgressType.none()
        return _lib.ProgressType.template_callback(
            rate_ms, NUTPIE_TEMPLATE, cores, lambda text: self.report(run, text)
        )

    def report(self, run: int, text: str) -> None:
        """Take a rendering of :data:`NUTPIE_TEMPLATE` for run ``run``."""
        words = text.split()
        if len(words) < 3:
            return
        with self._lock:
            self.done[run] = int(words[0])
            self.divergent[run] = sum(int(w) for w in words[3:])
            if sum(self.divergent):
                self.bar.set_postfix(divergences=sum(self.divergent), refresh=False)
            self.bar.update(sum(self.done) - self.bar.n)  # draws only once DELAY has passed

    def close(self) -> None:
        """Remove the bar."""
        self.bar.close()

    def __enter__(self) -> SamplingProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WithProgress:
    """A compiled nutpie model whose sampler reports to ``progress_type`` (nutpie itself
    only draws its own terminal bars, one per run, which several runs at once garble)."""

    def __init__(self, compiled: Any, progress_type: Any) -> None:
        self._compiled = compiled
        self._progress_type = progress_type

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compiled, name)

    def _make_sampler(self, settings: Any, init_mean: Any, cores: int, _: Any, store: Any) -> Any:
        return self._compiled._make_sampler(settings, init_mean, cores, self._progress_type, store)
