"""Several surrogates in one AEE mean vs each alone, on the same label draws.

SummEval (the shipped sample: all 1,200 summaries, the same items and judge scores as
``shared/data/summeval_llm_judges``; label = expert mean of a dimension, judges = that
dimension's 9 LLM-judge columns). For each uniform draw of labels (seed = draw), one
frequentist calibrator is fitted (ridge, 5 folds) and the pool mean is estimated with
the ridge alone, the raw judge mean alone, and both combined
(``Calibrator(surrogates=["judge_mean"])``: the variance-minimising weights and the
interval's price for tuning them). Reported: RMSE of the estimate against the full-data
mean, the mean standard error, the coverage of 95% intervals, and RMSE and mean SE as
ratios to the ridge alone.

``--bayes N``: also N draws (relevance, 3% and 10% labels) of the Bayesian engine
(gaussian, default sampler settings): the Bayesian posterior mean alone, with the ridge,
with the judge mean (the default), and with both; ``--bayes-only`` skips the
frequentist table.

Run: ``python -m benchmarks surrogates`` (``python -m benchmarks.bench_surrogates
--draws 40 --bayes 3``).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from bacon_bayes import estimate as est
from bacon_bayes.calibrator import Calibrator
from bacon_bayes.demo import DIMENSIONS, summeval_pool

ALPHA = 0.05
FRACTIONS = (0.1, 0.05, 0.03)
DRAWS = 40


def _row(values: dict[str, list[tuple[float, float, bool]]], truth_label: str) -> list[str]:
    lines = []
    base = values["ridge"]
    base_rmse = np.sqrt(np.mean([e**2 for e, _, _ in base]))
    base_se = np.mean([s for _, s, _ in base])
    for name, rows in values.items():
        err = np.array([e for e, _, _ in rows])
        se = np.array([s for _, s, _ in rows])
        cov = np.mean([c for _, _, c in rows])
        rmse = float(np.sqrt(np.mean(err**2)))
        lines.append(
            f"| {truth_label} | {name} | {rmse:.4f} | {se.mean():.4f} | {cov:.3f} | "
            f"{rmse / base_rmse:.3f} | {se.mean() / base_se:.3f} |"
        )
    return lines


def _record(out: dict, name: str, e: est.Estimate, truth: float) -> None:
    out.setdefault(name, []).append(
        (e.estimate - truth, e.se, bool(e.ci_low <= truth <= e.ci_high))
    )


def frequentist(draws: int = DRAWS) -> list[str]:
    lines = []
    for frac in FRACTIONS:
        for dim in DIMENSIONS:
            vals: dict[str, list] = {}
            for d in range(draws):
                pool, truth = summeval_pool(dim, frac, seed=d)
                cal = Calibrator(engine="freq", seed=d, surrogates=["judge_mean"]).fit(pool)
                F = cal.surrogate_matrix()
                _record(vals, "ridge", est.aee_mean(pool.y, F[:, 0], alpha=ALPHA), truth)
                _record(vals, "judge mean", est.aee_mean(pool.y, F[:, 1], alpha=ALPHA), truth)
                _record(vals, "ridge + judge mean", cal.estimate_mean(ALPHA), truth)
                _record(vals, "classical", cal.estimate_mean(ALPHA, "classical"), truth)
            lines += _row(vals, f"{dim} {frac:.0%}")
    return lines


def bayesian(draws: int, frac: float = 0.03, dim: str = "relevance") -> list[str]:
    vals: dict[str, list] = {}
    t0 = time.perf_counter()
    for d in range(draws):
        pool, truth = summeval_pool(dim, frac, seed=d)
        cal = Calibrator(
            model="gaussian", engine="bayes", seed=d, surrogates=["freq", "judge_mean"]
        ).fit(pool)
        F = cal.surrogate_matrix()
        y = pool.y
        _record(vals, "ridge", est.aee_mean(y, F[:, 1], alpha=ALPHA), truth)
        _record(vals, "bayes", est.aee_mean(y, F[:, 0], alpha=ALPHA), truth)
        _record(vals, "bayes + ridge", est.aee_mean(y, F[:, :2], alpha=ALPHA), truth)
        _record(vals, "bayes + judge mean", est.aee_mean(y, F[:, [0, 2]], alpha=ALPHA), truth)
        _record(vals, "bayes + ridge + judge mean", cal.estimate_mean(ALPHA), truth)
    print(f"({draws} Bayesian fits at {frac:.0%} in {time.perf_counter() - t0:.0f} s)")
    return _row(vals, f"{dim} {frac:.0%} (bayes)")


HEADER = [
    "| data, labels | surrogates | RMSE | mean SE | 95% coverage | RMSE / ridge | SE / ridge |",
    "|---|---|---|---|---|---|---|",
]


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    draws = int(argv[argv.index("--draws") + 1]) if "--draws" in argv else DRAWS
    n_bayes = int(argv[argv.index("--bayes") + 1]) if "--bayes" in argv else 0
    if "--bayes-only" not in argv:
        t0 = time.perf_counter()
        lines = frequentist(draws)
        print(f"{draws} draws per row, frequentist fits in {time.perf_counter() - t0:.0f} s")
        print("\n".join(HEADER + lines))
    if n_bayes:
        lines = bayesian(n_bayes, 0.03) + bayesian(n_bayes, 0.1)
        print("\n".join(HEADER + lines))


if __name__ == "__main__":
    main()
