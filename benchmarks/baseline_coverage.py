"""Joint coverage of every SummEval system against one baseline (``compare(table,
baseline=)``, Dunnett's family of the ``m - 1`` differences), beside all pairs' critical
value put on the same rows and each row's pointwise interval: uniform label draws, the
judges' mean as a fixed surrogate (not cross-fitted), the truth each system's mean of all
its labels (VALIDATION.md, "Each group against a baseline").

    PYTHONPATH=. .venv/bin/python -m benchmarks.baseline_coverage relevance 0.2 400 bootstrap
    PYTHONPATH=. .venv/bin/python -m benchmarks.baseline_coverage coherence 0.1 400 t
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bacon_bayes import estimate as est
from bacon_bayes.demo import load_summeval
from bacon_bayes.simulation.montecarlo import coverage_band


def coverage(
    label: str, fraction: float, reps: int, interval: str, baseline: str = "M11", seed: int = 11
) -> dict[str, float]:
    """Shares of ``reps`` draws (each group with an interval) whose baseline differences
    all hold the truth: Dunnett's (``baseline``), all pairs' critical value, pointwise."""
    df = load_summeval()
    y = df[f"expert_mean_{label}"].to_numpy(float)
    judges = [c for c in df if c.startswith("judge:") and c.endswith(f"|{label}")]
    f = df[judges].mean(axis=1).to_numpy(float)
    names = df["system"].astype(str).to_numpy()
    rng = np.random.default_rng(seed)
    hits = {"baseline": 0, "all_pairs": 0, "pointwise": 0}
    done = 0
    while done < reps:
        lab = rng.random(y.size) < fraction
        table = est.aee_group_means(np.where(lab, y, np.nan), f, names, interval=interval)
        if not np.isfinite(table.ci_low).all():
            continue
        truth = {n: y[names == n].mean() for n in table.names}
        base = est.compare(table, baseline=baseline)
        want = np.array([truth[a] - truth[b] for a, b in base.details["pairs"]])
        every = est.compare(table)
        rows = [
            every.names.index(f"{a} - {b}" if f"{a} - {b}" in every.names else f"{b} - {a}")
            for a, b in base.details["pairs"]
        ]
        alone = est.compare(table, baseline=baseline, simultaneous="none")
        hits["baseline"] += bool(np.all((base.ci_low <= want) & (want <= base.ci_high)))
        wide = every.critical_value[rows] * base.se
        hits["all_pairs"] += bool(np.all(np.abs(base.estimate - want) <= wide))
        hits["pointwise"] += bool(np.all((alone.ci_low <= want) & (want <= alone.ci_high)))
        done += 1
    return {k: v / reps for k, v in hits.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("label", choices=("relevance", "coherence", "fluency", "consistency"))
    p.add_argument("fraction", type=float)
    p.add_argument("reps", type=int)
    p.add_argument("interval", choices=("bootstrap", "t"))
    args = p.parse_args()
    start = time.time()
    out = coverage(args.label, args.fraction, args.reps, args.interval)
    low, high = coverage_band(args.reps, 0.95, conf=0.99)
    print(f"{args.label} {args.fraction:g} {args.interval}: {out}; 99% band {low:.3f}-{high:.3f}")
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
