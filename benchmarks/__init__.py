"""Benchmarks: each ``bench_*.py`` module exposes ``main()``; ``python -m benchmarks`` runs all."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    """Fastest wall time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def print_ratios(
    medians: dict[str, float], base: str, target: float, row: Callable[[str, float, float], str]
) -> None:
    """Each of ``medians`` (name -> seconds) against ``base``'s, printed as ``row(name,
    seconds, ratio)`` gives it, ``ok`` at most ``target`` times the base, else ``SLOW``
    (nothing on the base's own row)."""
    for name, value in medians.items():
        ratio = value / medians[base]
        verdict = "" if name == base else ("  ok" if ratio <= target else "  SLOW")
        print(row(name, value, ratio) + verdict)
