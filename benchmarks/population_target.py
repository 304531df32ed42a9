"""``--target population`` on real data: WMT22's 1,875 source segments as the population.

    python -m benchmarks.population_target [--trials 200] [--prompts 300] [--workers 2]

Each trial draws a pool of ``--prompts`` segments (16 systems each) from the 1,875, labels
10% of the pool with the paired design (whole segments) or the uniform design (items),
fits ``Calibrator(engine="freq", target="population")`` and compares its intervals with
the truth of the *population*: the mean and the system means over all 30,000 MQM-rated
translations. Coverage of 95% intervals: the pool mean, the 16 system means (pointwise),
the 120 pairwise differences (pointwise, and simultaneously), with the binomial band of
the trials. For contrast, ``target="pool"`` intervals on the same draws (they aim at the
pool's own means, so against the population they should cover too rarely).
Needs the shared data (``../shared/data``); skips with a message otherwise.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.pool import EvalPool
from bacon_bayes.sampling.designs import uniform
from bacon_bayes.sampling.paired import design_inclusion, paired
from bacon_bayes.simulation.montecarlo import coverage_band
from benchmarks.adaptive_experiment import find_shared_data
from benchmarks.bench_simulate import METRICS, WMT_FILE
from benchmarks.comparison_data import wmt22

BUDGET = 0.1


def _trial(args: tuple[pd.DataFrame, int, int, str]) -> dict[str, Any]:
    frame, n_prompts, trial, design = args
    rng = np.random.default_rng([trial, 7])
    segments = rng.choice(frame["seg_id"].unique(), n_prompts, replace=False)
    pool_frame = frame[frame["seg_id"].isin(segments)].reset_index(drop=True)
    prompts = pool_frame["seg_id"].astype(str).to_numpy()
    n = len(pool_frame)
    if design == "paired":
        d = paired(prompts, round(BUDGET * n_prompts), seed=trial)
    else:
        d = uniform(n, round(BUDGET * n), seed=trial)
    data = pool_frame.assign(y=np.where(d.selected, pool_frame["y"], np.nan), pi=d.pi)
    pool = EvalPool.from_frame(
        data, label="y", judges=list(METRICS), outcome="nonnegative", group="system",
        prompt="seg_id", propensity="pi",
    )  # fmt: skip
    if design == "paired":
        pool = replace(pool, inclusion=design_inclusion([d]))
    out: dict[str, Any] = {"design": design, "trial": trial}
    with threadpool_limits(1):
        for target in ("population", "pool"):
            cal = Calibrator(engine="freq", target=target, seed=trial).fit(pool)
            mean = cal.estimate_mean()
            groups = cal.estimate_groups(simultaneous=False)
            point = cal.compare_groups(simultaneous=False)
            sim = cal.compare_groups(simultaneous=True)
            out[f"{target}:mean"] = (mean.estimate, mean.ci_low, mean.ci_high)
            out[f"{target}:groups"] = (groups.names, groups.ci_low, groups.ci_high)
            out[f"{target}:diffs"] = (point.names, point.ci_low, point.ci_high)
            out[f"{target}:sim"] = (sim.ci_low, sim.ci_high)
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.population_target")
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--prompts", type=int, default=300)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    path = find_shared_data(WMT_FILE)
    if path is None:
        print(f"skipped: shared/data/{WMT_FILE} is absent (set BACON_SHARED_DATA)")
        return
    frame = wmt22(path)
    truth_mean = float(frame["y"].mean())
    truth_groups = frame.groupby(frame["system"].astype(str))["y"].mean()
    start = time.perf_counter()
    tasks = [(frame, args.prompts, t, d) for d in ("paired", "uniform") for t in range(args.trials)]
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as ex:
        results = list(ex.map(_trial, tasks, chunksize=4))
    lo, hi = coverage_band(args.trials, 0.95)
    print(f"{args.trials} pools of {args.prompts} WMT22 segments, 10% labels, 95% intervals "
          f"(band for the mean and the simultaneous rows [{lo:.3f}, {hi:.3f}]); "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    print("| design | target | mean | system means (pointwise) | differences (pointwise) | "
          "differences (simultaneous) | mean half-width |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for design in ("paired", "uniform"):
        rows = [r for r in results if r["design"] == design]
        for target in ("population", "pool"):
            mean = np.array([r[f"{target}:mean"] for r in rows])
            cover_mean = np.mean((mean[:, 1] <= truth_mean) & (truth_mean <= mean[:, 2]))
            g_cov, d_cov, s_cov = [], [], []
            for r in rows:
                names, glo, ghi = r[f"{target}:groups"]
                t = truth_groups.loc[list(names)].to_numpy()
                g_cov.append(np.mean((glo <= t) & (t <= ghi)))
                dnames, dlo, dhi = r[f"{target}:diffs"]
                td = np.array([truth_groups[a] - truth_groups[b]
                               for a, b in (n.split(" - ") for n in dnames)])  # fmt: skip
                d_cov.append(np.mean((dlo <= td) & (td <= dhi)))
                slo, shi = r[f"{target}:sim"]
                s_cov.append(np.all((slo <= td) & (td <= shi)))
            half = float(np.mean(mean[:, 2] - mean[:, 1]) / 2)
            print(f"| {design} | {target} | {cover_mean:.3f} | {np.mean(g_cov):.3f} | "
                  f"{np.mean(d_cov):.3f} | {np.mean(s_cov):.3f} | {half:.4f} |")  # fmt: skip


if __name__ == "__main__":
    main()
