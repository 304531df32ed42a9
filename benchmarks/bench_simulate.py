"""`bacon simulate` on WMT22 (30,000 items): the sweep's wall time as a ratio to one trial.

Usage: ``python -m benchmarks.bench_simulate [--trials 200] [--workers 2]``. Runs 200
trials x 3 budgets x 2 designs (uniform, adaptive) x {classical, aee (frequentist)},
first one trial alone (the baseline, in the same process), then the sweep with
``--workers`` local processes, then the same sweep on a dask LocalCluster with as many
workers, and checks that both summaries are equal byte for byte. Needs the shared data
(``../shared/data``); skips with a message otherwise.
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

import pandas as pd

from bacon_bayes.simulation.montecarlo import SimulationSpec, run_trial, simulate, summarise
from benchmarks.adaptive_experiment import find_shared_data

WMT_FILE = Path("wmt22_zhen_mqm/wmt22_zhen_mqm_metrics.csv.gz")
METRICS = (
    "COMET-22-refA", "BLEURT-20-refA", "metricx_xxl_MQM_2020-refA", "COMETKiwi-src",
    "UniTE-refA", "MS-COMET-22-refA", "BERTScore-refA", "chrF-refA", "BLEU-refA",
    "SEScore-refA",
)  # fmt: skip


def wmt22(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path, usecols=["system", "mqm", *METRICS])
    frame = frame[frame["mqm"].notna()].reset_index(drop=True)
    frame["y"] = -frame["mqm"]  # MQM error magnitude, >= 0
    return frame.drop(columns="mqm")


def _csv(summary: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    summary.to_csv(buf, index=False)
    return buf.getvalue().encode()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_simulate")
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv or [])
    path = find_shared_data(WMT_FILE)
    if path is None:
        print(f"skipped: {WMT_FILE} not found (set BACON_SHARED_DATA)")
        return
    frame = wmt22(path)
    spec = SimulationSpec(
        label="y", judges=METRICS, outcome="nonnegative", budgets=(0.05, 0.1, 0.2),
        trials=args.trials, designs=("uniform", "adaptive"), methods=("classical", "aee"),
    )  # fmt: skip
    start = time.perf_counter()
    for design in spec.designs:
        run_trial(frame, spec, (0.1, design, 0))
    one = (time.perf_counter() - start) / len(spec.designs)
    start = time.perf_counter()
    local = simulate(frame, spec, workers=args.workers)
    wall = time.perf_counter() - start
    start = time.perf_counter()
    dask = simulate(frame, spec, scheduler=f"local:{args.workers}")
    wall_dask = time.perf_counter() - start
    n = len(spec.budgets) * len(spec.designs) * spec.trials
    same = _csv(summarise(local, spec.alpha)) == _csv(summarise(dask, spec.alpha))
    print(f"one trial (mean of uniform and adaptive at 10%): {one:.2f} s")
    print(
        f"{n} trials, {args.workers} local processes: {wall:.1f} s = {wall / one:.0f} trials' time "
        f"(ratio {wall / (n * one):.2f} of {n} serial trials)"
    )
    print(
        f"same on a dask LocalCluster ({args.workers} workers): {wall_dask:.1f} s "
        f"(ratio {wall_dask / (n * one):.2f}); summaries equal byte for byte: {same}"
    )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])  # (make bench calls main() with the defaults)
