"""How fast the command line answers: ``bacon --version`` and ``bacon estimate --help``
against ``python -c "import numpy"``, each in a fresh interpreter (target: at most 4x).

Command: ``python -m benchmarks cli_startup`` (part of ``make bench``). The three commands
run in turn, ``REPEATS`` times (interleaved, so a busy machine slows them alike); the
figure is each one's median wall time and its ratio to numpy's median in the same run.
``bacon`` is run as its console script does (``from bacon_bayes.cli import main``).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from benchmarks import print_ratios

REPEATS = 15
TARGET = 4.0

_BACON = "import sys; from bacon_bayes.cli import main; sys.exit(main({}))"
COMMANDS = {
    'python -c "import numpy"': "import numpy",
    "bacon --version": _BACON.format(["--version"]),
    "bacon estimate --help": _BACON.format(["estimate", "--help"]),
}


def _seconds(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - start


def measure(repeats: int = REPEATS) -> dict[str, float]:
    """Median wall time (s) of each command over ``repeats`` interleaved runs."""
    for code in COMMANDS.values():  # warm the file cache and the .pyc files
        _seconds(code)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(repeats):
        for name, code in COMMANDS.items():
            times[name].append(_seconds(code))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    medians = measure()
    print(f"median of {REPEATS} runs each (fresh interpreter), ratio to import numpy:")
    print_ratios(
        medians,
        'python -c "import numpy"',
        TARGET,
        lambda n, v, r: f"  {n:28s} {v * 1000:7.0f} ms  {r:5.2f}x",
    )


if __name__ == "__main__":
    main()
