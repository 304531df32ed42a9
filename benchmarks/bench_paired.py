"""What pairing costs in time: one `bacon simulate` trial per design on WMT22 (30,000
items, 16 systems x 1,875 segments, 10% labels, frequentist engine, AEE with the group
means, ranks and pairwise differences), as ratios to the uniform design's trial in the
same process.

Usage: ``python -m benchmarks.bench_paired [--trials 3]``. Each design's trials are timed
after one warm-up trial; the uniform design is the baseline. Needs the shared data
(``../shared/data``); skips with a message otherwise.
"""

from __future__ import annotations

import argparse
import time

from bacon_bayes.simulation.montecarlo import SimulationSpec, run_trial
from benchmarks.adaptive_experiment import find_shared_data
from benchmarks.bench_simulate import METRICS, WMT_FILE
from benchmarks.comparison_data import wmt22

DESIGNS = ("uniform", "paired", "paired-subset", "paired-adaptive")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_paired")
    p.add_argument("--trials", type=int, default=3)
    args = p.parse_args(argv or [])
    path = find_shared_data(WMT_FILE)
    if path is None:
        print(f"skipped: {WMT_FILE} not found (set BACON_SHARED_DATA)")
        return
    frame = wmt22(path)
    spec = SimulationSpec(
        label="y", judges=METRICS, outcome="nonnegative", group="system", prompt="seg_id",
        budgets=(0.1,), trials=args.trials, designs=DESIGNS, methods=("aee",),
    )  # fmt: skip
    seconds = {}
    for design in DESIGNS:
        run_trial(frame, spec, (0.1, design, 999))  # warm-up
        start = time.perf_counter()
        for t in range(args.trials):
            run_trial(frame, spec, (0.1, design, t))
        seconds[design] = (time.perf_counter() - start) / args.trials
    base = seconds["uniform"]
    print(f"WMT22, 10% labels, {args.trials} trials per design (s per trial, ratio to uniform)")
    for design, s in seconds.items():
        print(f"  {design:<16} {s:7.2f} s   {s / base:5.2f}x")


if __name__ == "__main__":
    main()
