"""The Bayesian judge model's group level (``group_effects``): its cost and what it buys.

1. Fit time, with and without group effects, of the Bayesian calibrator on the shipped
   example pool (``bacon_bayes/data/example_pool.csv``: 1,200 SummEval summaries, 12
   systems, 120 expert labels, the six judges, ``group="system"``, continuous label, so
   the gaussian family; ``Calibrator(engine="bayes", seed=0, scale=(1, 5))``, default
   settings otherwise). Both in one process, after one untimed warm-up fit (imports,
   compilation); the judge stage kept for reuse is dropped before every fit
   (``forget_judge_stage``), so each timed fit samples both stages as a first fit does.
   The fits alternate (without, with, without, with, ...).
2. On the shipped SummEval sample (every item labeled), per seed a uniform draw of 5%
   of the labels (:func:`bacon_bayes.demo.summeval_pool`), fitted with and without group
   effects: ``tau^2``, the between-system variance of the residual means ``y - f`` over
   ALL items (``f``: the calibrator's cross-fitted surrogate, out of fold for the labeled
   ones; ``y``: every item's true label) minus their sampling noise
   (``var_g(mean_g) - mean_g(s_g^2 / n_g)``), and the AEE pool-mean SE
   (``estimate_mean().se``).

Run: ``python -m benchmarks bayes_groups``; ``python -m benchmarks.bench_bayes_groups``
takes ``--reps=N`` (timed fits per arm, default 2), ``--seeds=N`` (SummEval draws,
default 4), ``--dimension=NAME`` (default relevance), ``--fraction=F`` (default 0.05),
``--group-sd=S`` (the prior ``group_effect_sd``, default 0.5), ``--with-only`` (the SummEval
draws fitted with group effects only), ``--no-time``, ``--no-tau``.
"""

from __future__ import annotations

import os
import sys
import time
from importlib import resources

import numpy as np

JUDGES = ["gpt4", "gpt35", "gpt35_mcq", "llama70b", "llama13b", "llama7b"]


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def example_pool():
    """The shipped example pool with all six judges, systems as groups."""
    import pandas as pd

    from bacon_bayes.pool import EvalPool

    with resources.as_file(resources.files("bacon_bayes") / "data/example_pool.csv") as p:
        df = pd.read_csv(p)
    return EvalPool.from_frame(
        df, label="human", judges=JUDGES, outcome="continuous", group="system", item="id"
    )


def fit(pool, group_effects: bool | str, seed: int = 0):
    """A Bayesian calibrator of ``pool``; (calibrator, seconds) with stage 1 sampled anew."""
    from bacon_bayes.bayes.fitting import forget_judge_stage
    from bacon_bayes.calibrator import Calibrator

    forget_judge_stage()
    start = time.perf_counter()
    cal = Calibrator(engine="bayes", seed=seed, scale=(1, 5), group_effects=group_effects)
    cal.fit(pool)
    return cal, time.perf_counter() - start


def _diag(cal) -> str:
    d = [m.diagnostics_ for m in cal.crossfit_.models]
    return (
        f"max R-hat {max(x.max_rhat for x in d):.3f}, min bulk ESS "
        f"{min(x.min_ess_bulk for x in d):.0f}, divergences {max(x.n_divergent for x in d)}"
    )


def fit_times(reps: int) -> None:
    pool = example_pool()
    fit(pool, False)  # warm-up: imports, JAX/numba compilation
    fit(pool, True)
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(reps):
        for on in (False, True):
            load = _load()
            cal, secs = fit(pool, on)
            times[on].append(secs)
            has = "group_effect" in cal.crossfit_.models[0].posterior_
            print(
                f"example pool, group_effects={on} (in posterior: {has}): {secs:.1f} s "
                f"(load {load}); {_diag(cal)}; AEE SE {cal.estimate_mean().se:.4f}",
                flush=True,
            )
    off, on = np.median(times[False]), np.median(times[True])
    print(f"median fit time: without {off:.1f} s, with {on:.1f} s; ratio {on / off:.2f}")


def residual_tau2(y: np.ndarray, f: np.ndarray, groups: np.ndarray) -> float:
    """Between-group variance of the residual means minus their sampling noise."""
    e = y - f
    names = np.unique(groups)
    means = np.array([e[groups == g].mean() for g in names])
    noise = np.array([e[groups == g].var(ddof=1) / np.sum(groups == g) for g in names])
    return float(means.var(ddof=1) - noise.mean())


def tau_table(seeds: int, dimension: str, fraction: float, arms=(False, True)) -> None:
    from bacon_bayes.demo import load_summeval, summeval_pool

    truth = load_summeval()[f"expert_mean_{dimension}"].to_numpy(dtype=float)
    rows = []
    for seed in range(seeds):
        pool, _ = summeval_pool(dimension, fraction, seed)
        groups = np.asarray(pool.groups).astype(str)
        row = []
        for on in arms:
            cal, secs = fit(pool, on, seed)
            tau2 = residual_tau2(truth, cal.surrogate_, groups)
            se = cal.estimate_mean().se
            row.append((tau2, se, secs))
            print(
                f"SummEval {dimension} {fraction:.0%} seed {seed} group_effects={on}: "
                f"tau^2 {tau2:.5f}, AEE SE {se:.4f}, {secs:.1f} s; {_diag(cal)}",
                flush=True,
            )
        rows.append(row)
    arr = np.array(rows)  # (seeds, arm, [tau2, se, secs])
    for k, on in enumerate(arms):
        print(
            f"group_effects={on}: mean tau^2 {arr[:, k, 0].mean():.5f} "
            f"(per seed {np.round(arr[:, k, 0], 5).tolist()}), mean AEE SE "
            f"{arr[:, k, 1].mean():.4f}, mean fit {arr[:, k, 2].mean():.1f} s"
        )
        print(f"  median tau^2 {np.median(arr[:, k, 0]):.5f}")
    if len(arms) == 2:
        print(
            f"tau^2 with / without: {arr[:, 1, 0].mean() / arr[:, 0, 0].mean():.2f} "
            f"(lower in {int(np.sum(arr[:, 1, 0] < arr[:, 0, 0]))} of {seeds} draws)"
        )


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    import bacon_bayes.bayes  # noqa: F401  (configures PyTensor first)
    from bacon_bayes.bayes.defaults import GROUP_PRIORS

    if "group-sd" in opts:
        GROUP_PRIORS["group_effect_sd"] = float(opts["group-sd"])
        print(f"prior group_effect_sd = {GROUP_PRIORS['group_effect_sd']}")

    if "--no-time" not in argv:
        fit_times(int(opts.get("reps", 2)))
    if "--no-tau" not in argv:
        tau_table(
            int(opts.get("seeds", 4)),
            opts.get("dimension", "relevance"),
            float(opts.get("fraction", 0.05)),
            (True,) if "--with-only" in argv else (False, True),
        )


if __name__ == "__main__":
    main()
