"""How far an adaptive design can go on TriviaQA and WMT22 at 10% labels: the linearised
RMSE of the AEE mean under a few designs, every label of the table known.

    python -m benchmarks.design_bound [--budget 0.1] [--pilots 10]

Every item's squared error ``e_i^2`` is that of the frequentist calibrator's surrogate
cross-fitted on all labels (5 folds, out of fold), so each design is scored on the
same errors. Under Poisson sampling of a finite pool the variance of the AEE mean is
``sum_i (1 / pi_i - 1) e_i^2 / N^2`` (bacon_bayes' ``target="pool"``); the table gives
its square root for:

* ``uniform``: ``pi_i = n / N``; with a cross-fitted ridge's errors this is the
  ppi_py PPI++ row of ``bacon simulate`` (the denominator of every ratio below);
* ``Neyman, all-label sd``: ``pi_i`` proportional to the predictive sd of the
  calibrator fitted on all labels, capped at 1, no pilot and no uniform share: the
  optimal allocation (``pi`` proportional to ``sd(Y | X)`` minimises
  ``sum (1 / pi - 1) Var(Y | X)`` at a fixed budget) with the best sd a model of the
  judges gets from every label. No design that is a function of the judges can be
  expected to beat it by more than that sd's own estimation error;
* ``rule, all-label sd``: bacon_bayes' rule (a uniform pilot of 30% of the budget, a
  top-up wave proportional to the calibrator's predictive sd with a 20% uniform
  share) with the predictive sd of the calibrator fitted on all labels;
* ``rule, pilot sd``: the same rule with the sd fitted on the pilot's labels only, as
  ``bacon simulate --designs adaptive`` does (mean of the variances over ``--pilots``
  pilot draws).

Data: ``../shared/data`` (skipped with a message when absent).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.sampling.adaptive import adaptive_probabilities, cap_probabilities, combine_waves
from bacon_bayes.simulation.montecarlo import PILOT_SHARE
from benchmarks import bench_bayes_multinomial as multinomial
from benchmarks import bench_simulate as simulate
from benchmarks.adaptive_experiment import find_shared_data


def _tables() -> dict[str, tuple[pd.DataFrame, list[str], dict]]:
    """The shared TriviaQA and WMT22 tables (label ``y``), their judges and outcome."""
    out = {}
    path = find_shared_data(multinomial.RELATIVE)
    if path is not None:
        t = multinomial.load_frame(path).rename(columns={"truth": "y"})
        out["TriviaQA"] = (t, multinomial.JUDGES, {"outcome": "categorical", "levels": [0, 1]})
    path = find_shared_data(simulate.WMT_FILE)
    if path is not None:
        out["WMT22"] = (simulate.wmt22(path), list(simulate.METRICS), {"outcome": "nonnegative"})
    return out


def _calibrator(frame: pd.DataFrame, judges: list[str], kind: dict, labeled: np.ndarray):
    data = frame[["y", *judges]].copy()
    data["y"] = np.where(labeled, data["y"], np.nan)
    pool = EvalPool.from_frame(data, label="y", judges=judges, **kind)
    return Calibrator(engine="freq", seed=0).fit(pool)


def _rmse(pi: np.ndarray, e2: np.ndarray) -> float:
    return float(np.sqrt(np.sum((1.0 / pi - 1.0) * e2)) / e2.size)


def _rule(sd: np.ndarray, n: int, n_pilot: int) -> np.ndarray:
    prior = np.full(sd.size, n_pilot / sd.size)
    return combine_waves([prior, adaptive_probabilities(sd, n - n_pilot, prior=prior)])


def study(frame, judges, kind, budget: float, pilots: int) -> dict[str, float]:
    """Linearised RMSE of each design (see the module docstring)."""
    y = frame["y"].to_numpy(float)
    N = y.size
    n = round(budget * N)
    n_pilot = round(PILOT_SHARE * n)
    cal = _calibrator(frame, judges, kind, np.ones(N, dtype=bool))
    e2 = (y - cal.surrogate_) ** 2
    ridge = _calibrator(frame, judges, {"outcome": "continuous"}, np.ones(N, dtype=bool))
    e2_ridge = (y - ridge.surrogate_) ** 2
    sd = np.sqrt(cal.crossfit_.var())
    out = {
        "uniform, ridge (ppi-ridge)": _rmse(np.full(N, n / N), e2_ridge),
        "uniform, calibrator": _rmse(np.full(N, n / N), e2),
        "Neyman, all-label sd": _rmse(cap_probabilities(sd, n), e2),
        "rule, all-label sd": _rmse(_rule(sd, n, n_pilot), e2),
    }
    rng = np.random.default_rng(0)
    variances = []
    for _ in range(pilots):
        lab = np.zeros(N, dtype=bool)
        lab[rng.choice(N, n_pilot, replace=False)] = True
        sd_pilot = np.sqrt(_calibrator(frame, judges, kind, lab).crossfit_.var())
        variances.append(_rmse(_rule(sd_pilot, n, n_pilot), e2) ** 2)
    out["rule, pilot sd"] = float(np.sqrt(np.mean(variances)))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=0.1)
    p.add_argument("--pilots", type=int, default=10)
    args = p.parse_args(argv)
    tables = _tables()
    if not tables:
        print("skipped: ../shared/data (TriviaQA, WMT22) not found; set BACON_SHARED_DATA")
        return
    print(f"{args.budget:.0%} labels; linearised RMSE of the AEE mean, and / ppi-ridge's")
    print("| data | design | RMSE | / ppi-ridge | / uniform calibrator |")
    print("|---|---|---|---|---|")
    for name, (frame, judges, kind) in tables.items():
        r = study(frame, judges, kind, args.budget, args.pilots)
        base, unif = r["uniform, ridge (ppi-ridge)"], r["uniform, calibrator"]
        for design, v in r.items():
            print(f"| {name} | {design} | {v:.5f} | {v / base:.3f} | {v / unif:.3f} |", flush=True)


if __name__ == "__main__":
    main()
