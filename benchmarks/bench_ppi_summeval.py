"""Against the peer on the same draws: our AEE CI vs ``ppi_py.ppi_mean_ci`` (PPI++).

SummEval (the shipped sample: 1,200 summaries, label = expert mean of one
dimension, judges = the 9 LLM-judge columns of that dimension). For each of 200
uniform draws of 10% labels, one cross-fit (ridge, 5 folds, seed = draw) gives
the surrogate; ours and ppi_py's interval are computed from the same
predictions (ppi_py gets out-of-fold predictions for the labeled items and the
fold-average predictions for the rest). Coverage of the full-data mean and mean
width are reported; 95% intervals.

Run: ``python -m benchmarks ppi_summeval``.
"""

from __future__ import annotations

import time

import numpy as np

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.demo import DIMENSIONS, summeval_pool

DRAWS = 200
FRACTION = 0.1
ALPHA = 0.05


def run(dimension: str, draws: int = DRAWS) -> dict[str, float]:
    from ppi_py import ppi_mean_ci

    cover = {"bacon": 0, "ppi_py": 0, "classical": 0}
    width = {"bacon": 0.0, "ppi_py": 0.0, "classical": 0.0}
    for d in range(draws):
        pool, truth = summeval_pool(dimension, FRACTION, seed=d)
        cal = Calibrator(engine="freq", seed=d).fit(pool)
        lab = pool.labeled
        f = cal.surrogate_
        ours = cal.estimate_mean(ALPHA)
        classical = cal.estimate_mean(ALPHA, "classical")
        lo, hi = ppi_mean_ci(pool.y[lab], f[lab], f[~lab], alpha=ALPHA)
        lo, hi = float(np.ravel(lo)[0]), float(np.ravel(hi)[0])
        for name, (a, b) in {
            "bacon": (ours.ci_low, ours.ci_high),
            "ppi_py": (lo, hi),
            "classical": (classical.ci_low, classical.ci_high),
        }.items():
            cover[name] += a <= truth <= b
            width[name] += b - a
    out = {f"{k}_coverage": cover[k] / draws for k in cover}
    out.update({f"{k}_width": width[k] / draws for k in width})
    return out


def main() -> None:
    z = 3.29 * np.sqrt(ALPHA * (1 - ALPHA) / DRAWS)
    print(
        f"{DRAWS} draws of {FRACTION:.0%} labels, 95% CIs; binomial band for coverage "
        f"{1 - ALPHA - z:.3f}-{min(1, 1 - ALPHA + z):.3f}"
    )
    print(
        "| dimension | bacon coverage | bacon width | ppi_py coverage | ppi_py width "
        "| width ratio bacon/ppi_py | classical coverage | classical width |"
    )
    print("|---|---|---|---|---|---|---|---|")
    t = time.perf_counter()
    for dim in DIMENSIONS:
        r = run(dim)
        print(
            f"| {dim} | {r['bacon_coverage']:.3f} | {r['bacon_width']:.4f} "
            f"| {r['ppi_py_coverage']:.3f} | {r['ppi_py_width']:.4f} "
            f"| {r['bacon_width'] / r['ppi_py_width']:.3f} "
            f"| {r['classical_coverage']:.3f} | {r['classical_width']:.4f} |",
            flush=True,
        )
    print(f"({time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
