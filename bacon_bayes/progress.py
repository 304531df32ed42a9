"""Progress bars on long work (Bayesian sampling, cross-fitting folds, ``bacon simulate``'s
trials, ``bacon judge``'s calls): tqdm on stderr, the package's one progress mechanism,
shown only when stderr is a terminal, so pipes, log files and tests stay silent.

A bar appears only once its work has taken :data:`DELAY` seconds (tqdm's ``delay``): a
frequentist cross-fit done in a blink prints nothing even on a terminal. The environment
variable ``BACON_PROGRESS=0`` turns the bars off (:func:`silenced` sets it, for work whose
own bar counts many fits, such as ``bacon simulate``'s trials, in its worker processes too).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

#: Seconds of work before a bar appears.
DELAY = 1.0

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
) -> Any:
    """A tqdm bar on stderr (disabled, drawing nothing, unless :func:`shown`).

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

    Returns
    -------
    tqdm.tqdm
        Use as a context manager, or call ``update`` and ``close``.
    """
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
    )


class Tally:
    """A progress callback ``tally(done, total)`` (as :func:`bacon_bayes.simulation.simulate`
    and ``ablation`` call theirs) drawing one :func:`bar`, made at the first call.

    Parameters
    ----------
    desc : str
        What the bar counts, e.g. ``"trials"``.
    show : bool, optional
        Force the bar on or off (default: on a terminal only, decided now, so a tally made
        before :func:`silenced` still draws inside it).
    """

    def __init__(self, desc: str, show: bool | None = None) -> None:
        self.desc = desc
        self.on = shown(show)
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = bar(total, self.desc, unit=self.desc, show=self.on)
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
