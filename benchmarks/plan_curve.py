"""The judge model's learning curve in ``bacon plan`` (:mod:`bacon_bayes.planning.curve`):
from 3% pilots of the shipped SummEval sample (relevance, 36 labels), the residual
variance at 200 labels over the pilot's (fold models on 160 and 28.8 labels) as

* ``fold fit``: least squares ``a + b / m`` through the 2-, 3- and 5-fold and
  leave-one-prompt-out residual variances of the pilot (each over 3 fold seeds), ``b >= 0``;
* ``df curve``: the plan's (``b = a x`` the fold models' effective df);

and the truth: the 5-fold residual variance of the calibrator's model on uniform draws
of 36, 120 and 250 labels (``--truth`` draws each).

Usage: ``python -m benchmarks.plan_curve [--pilots 12] [--truth 20]``
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator
from bacon_bayes.crossfit import cross_fit
from bacon_bayes.planning.curve import learning_curve
from bacon_bayes.sampling.designs import uniform
from benchmarks.plan_check import spec_from_args, table_pool

TABLE = "bacon_bayes/data/summeval_sample.csv.gz"


def fold_points(cal: Calibrator, Ks: tuple[int, ...], seeds: int) -> np.ndarray:
    """(training labels, residual variance) of the pilot cross-fitted by prompt at each
    fold count (leave-one-prompt-out for a count above the prompts)."""
    fit, pool = cal.crossfit_, cal.pool_
    lab = pool.labeled
    _, pc = np.unique(np.asarray(pool.prompts)[lab], return_inverse=True)
    n_prompts = int(pc.max()) + 1
    out = []
    for K in Ks:
        K = min(K, n_prompts)
        for seed in range(seeds if K < n_prompts else 1):
            ids = np.full(pool.n_items, -1)
            ids[lab] = (np.random.default_rng(seed).permutation(n_prompts) % K)[pc]
            cf = cross_fit(cal.model_, fit.X, pool.y, fold_ids=ids, pi=pool.propensity)
            r = pool.y[lab] - cf.mean[lab]
            m = float(np.mean(lab.sum() - np.bincount(ids[lab])[ids[lab]]))
            out.append((m, float(np.mean((r - r.mean()) ** 2))))
    return np.array(out)


def fold_fit_ratio(points: np.ndarray, m: float, m0: float) -> float:
    A = np.column_stack([np.ones(len(points)), 1.0 / points[:, 0]])
    a, b = np.linalg.lstsq(A, points[:, 1], rcond=None)[0]
    if b < 0:
        a, b = points[:, 1].mean(), 0.0
    return float((a + b / m) / (a + b / m0))


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.plan_curve")
    p.add_argument("--pilots", type=int, default=12)
    p.add_argument("--truth", type=int, default=20)
    args = p.parse_args()
    frame = pd.read_csv(TABLE)
    ns = argparse.Namespace(label="expert_mean_relevance", judges="|relevance",
                            group="system", prompt="doc_id", alpha=0.05)  # fmt: skip
    s = spec_from_args(ns, frame)
    rows = []
    for k in range(args.pilots):
        pool = table_pool(frame, s, uniform(len(frame), 36, seed=12345 + k).selected, None)
        cal = Calibrator(engine="freq").fit(pool)
        curve, _ = learning_curve(cal.crossfit_, 1.0)
        assert curve is not None
        pts = fold_points(cal, (2, 3, 5, 1000), 3)
        rows.append({"pilot": k, "df": curve.df, "df curve": curve.ratio(200),
                     "fold fit": fold_fit_ratio(pts, 160.0, curve.m0)})  # fmt: skip
    out = pd.DataFrame(rows)
    print(out.round(3).to_string(index=False))
    print(out[["df curve", "fold fit"]].agg(["mean", "std", "min", "max"]).round(3).to_string())
    truth = {}
    for n in (36, 120, 250):
        v = []
        for k in range(args.truth):
            pool = table_pool(frame, s, uniform(len(frame), n, seed=999 + k).selected, None)
            cal = Calibrator(engine="freq").fit(pool)
            lab = pool.labeled
            r = pool.y[lab] - cal.surrogate_[lab]
            v.append(float(np.mean((r - r.mean()) ** 2)))
        truth[n] = (float(np.mean(v)), float(np.std(v, ddof=1) / np.sqrt(len(v))))
        print(f"truth: 5-fold residual variance at {n} labels {truth[n][0]:.3f} "
              f"(se {truth[n][1]:.3f}, {args.truth} draws)")  # fmt: skip
    print(f"truth ratio 250 / 36: {truth[250][0] / truth[36][0]:.3f}")


if __name__ == "__main__":
    main()
