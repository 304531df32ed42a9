"""Speed of the sampling designs and of the study workflow, as ratios to baselines.

* two-stage optimiser (SLSQP with analytic gradients) against the same solve
  with finite-difference gradients; the cost of the 5 pilot-fold refits; and
  one solve against a plain uniform draw;
* adaptive probabilities with iterative capping against a Bernoulli draw;
* ``import_labels`` of 10,000 labels into a 100,000-item study against
  reading the pool CSV with pandas (the floor of any import).

Run: ``python -m benchmarks sampling`` (part of ``make bench``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit

from bacon_bayes.sampling import adaptive_probabilities, bernoulli, two_stage, uniform
from bacon_bayes.study import StudyConfig, create_study, draw_wave, import_labels
from benchmarks import best_of


def bench_two_stage(n: int = 20_000, d: int = 5) -> dict[str, float]:
    rng = np.random.default_rng(0)
    z = rng.normal(size=(n, d))
    pilot = uniform(n, n // 7, seed=1)
    r2 = (np.exp(z[:, 0]) * rng.normal(size=n))[pilot.selected] ** 2
    ours = best_of(lambda: two_stage(z, r2, pilot.selected, pilot.pi, 0.4, folds=0))
    crossfitted = best_of(lambda: two_stage(z, r2, pilot.selected, pilot.pi, 0.4))
    design = np.column_stack([np.ones(n), (z - z.mean(0)) / z.std(0)])
    rows, p1 = design[pilot.selected], pilot.pi[0]
    cons = {"type": "ineq", "fun": lambda t: 0.4 - np.mean(p1 + (1 - p1) * expit(design @ t))}
    start = np.r_[np.log((0.4 - p1) / (1 - 0.4)), np.zeros(d)]

    def numeric() -> None:
        minimize(
            lambda t: np.sum(r2 / (p1 + (1 - p1) * expit(rows @ t))) / r2.sum(),
            start,
            method="SLSQP",
            constraints=[cons],
            options={"maxiter": 500, "ftol": 1e-12},
        )

    baseline = best_of(numeric)
    draw = best_of(lambda: uniform(n, n // 5, seed=2))
    return {"one solve (s)": ours, "vs numeric-gradient SLSQP": ours / baseline,
            "with 5-fold pilot refits vs one solve": crossfitted / ours,
            "one solve vs uniform draw": ours / draw}  # fmt: skip


def bench_adaptive(n: int = 1_000_000) -> dict[str, float]:
    sd = np.exp(np.random.default_rng(0).normal(size=n))
    ours = best_of(lambda: adaptive_probabilities(sd, n / 10))
    draw = best_of(lambda: bernoulli(n, 0.1, seed=0))
    return {"adaptive probabilities (s)": ours, "vs Bernoulli draw": ours / draw}


def bench_import(n: int = 100_000, n_labels: int = 10_000) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rng = np.random.default_rng(0)
        pool = pd.DataFrame({"id": [f"i{k}" for k in range(n)], "j": rng.normal(size=n)})
        pool.to_csv(root / "pool.csv", index=False)
        create_study(root / "s", StudyConfig(pool=str(root / "pool.csv"), item="id"))
        _, wave = draw_wave(root / "s", "uniform", n_labels)
        labels = pd.DataFrame({"id": pool["id"][wave.selected], "label": 1.0})
        labels.to_csv(root / "labels.csv", index=False)

        def fresh_import() -> None:
            (root / "s" / "labels.csv").unlink(missing_ok=True)
            import_labels(root / "s", root / "labels.csv")

        ours = best_of(fresh_import, repeat=3)
        read = best_of(lambda: pd.read_csv(root / "pool.csv", dtype={"id": str}), repeat=3)
    return {"label import (s)": ours, "vs reading the pool CSV": ours / read}


def main() -> None:
    """Print every figure (seconds and ratios to the in-process baselines)."""
    for name, bench in (
        ("two-stage optimiser, N=20,000, d=5", bench_two_stage),
        ("adaptive capping, N=1,000,000", bench_adaptive),
        ("label import, 10,000 labels, pool of 100,000", bench_import),
    ):
        figures = bench()
        shown = ", ".join(f"{k} {v:.3g}" for k, v in figures.items())
        print(f"{name}: {shown}")


if __name__ == "__main__":
    main()
