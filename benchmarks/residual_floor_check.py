"""The residual-variance floor (``estimate.core.residual_floor``) on TriviaQA at small
budgets: coverage of the pool mean and of the systems' means (pointwise, the package's
default pooling), overall and by the interval's width, with the floor's pseudo-count at
0 (no floor), 2 (Laplace's rule) and 4 (Agresti-Coull's plus-four, the package's), on
the same uniform draws in one process.

    PYTHONPATH=. python -m benchmarks.residual_floor_check [--trials 200]
        [--budgets 0.005,0.01,0.03] [--counts 0,2,4] [--data /tmp/mc_data]

A good judge's 0/1 verdicts agree with the human on all of a few dozen labels often
enough; without a floor the residuals then read no spread and the interval closes around
an estimate the undrawn misses moved. Written up in EXPERIMENTS.md, "A floor on the
residual variance".
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate import core
from benchmarks.small_budget import TRIVIA_JUDGES

BINS = (0.0, 0.1, 0.2, 0.4, np.inf)


def draw(frame: pd.DataFrame, budget: float, trial: int) -> pd.DataFrame:
    """Trial ``trial``'s uniform (Bernoulli) draw of labels at ``budget``."""
    rng = np.random.default_rng(1000 + trial)
    out = frame.copy()
    out["human"] = out["y"].where(rng.random(len(out)) < budget)
    return out


def rows(table: pd.DataFrame, truth: pd.Series) -> list[dict[str, object]]:
    """The pool mean's and each system's interval of one draw (none where refused)."""
    pool = EvalPool.from_frame(
        table, label="human", judges=list(TRIVIA_JUDGES), outcome="categorical",
        levels=[0.0, 1.0], group="model",
    )  # fmt: skip
    try:
        cal = Calibrator(engine="freq", seed=0).fit(pool)
        mean = cal.estimate_mean()
        groups = cal.estimate_groups(simultaneous=False).to_frame()
    except ValidationError:  # too few labels, or all alike: refused with the reason
        return []
    out: list[dict[str, object]] = [
        {"kind": "pool", "lo": mean.ci_low, "hi": mean.ci_high, "truth": truth["__pool__"]}
    ]
    for _, g in groups.iterrows():
        out.append(
            {"kind": "group", "lo": g["ci_low"], "hi": g["ci_high"], "truth": truth[g["name"]]}
        )
    return out


def summary(cells: pd.DataFrame) -> pd.DataFrame:
    """Coverage, its Monte Carlo se and the mean width, overall and by width bin."""
    cells = cells.dropna(subset=["lo"]).assign(
        width=lambda d: d["hi"] - d["lo"],
        covered=lambda d: (d["lo"] <= d["truth"]) & (d["truth"] <= d["hi"]),
    )
    out = []
    for (budget, count, kind), x in cells.groupby(["budget", "count", "kind"]):
        cov = float(x["covered"].mean())
        row = {
            "budget": budget, "count": count, "kind": kind, "intervals": len(x),
            "coverage": round(cov, 3), "se": round(float(np.sqrt(cov * (1 - cov) / len(x))), 3),
            "width": round(float(x["width"].mean()), 4),
        }  # fmt: skip
        for lo, hi in itertools.pairwise(BINS):
            sel = x[(x["width"] > lo) & (x["width"] <= hi)]
            cov_bin = f"{sel['covered'].mean():.2f}" if len(sel) else "-"
            row[f"w<={hi:g}"] = f"{cov_bin} ({len(sel)})"
        out.append(row)
    return pd.DataFrame(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--budgets", default="0.005,0.01,0.03")
    p.add_argument("--counts", default="0,2,4", help="the floor's pseudo-labels to compare")
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    args = p.parse_args()
    path = args.data / "trivia.csv"
    if not path.exists():
        print(f"skipped: {path} is absent (python -m benchmarks.comparison_data {args.data})")
        return
    warnings.filterwarnings("ignore")
    frame = pd.read_csv(path)
    truth = frame.groupby("model")["y"].mean()
    truth["__pool__"] = frame["y"].mean()
    saved, cells, t0 = core.FLOOR_PSEUDO_LABELS, [], time.time()
    try:
        for budget in (float(b) for b in args.budgets.split(",")):
            for trial in range(args.trials):
                table = draw(frame, budget, trial)
                for count in (float(c) for c in args.counts.split(",")):
                    core.FLOOR_PSEUDO_LABELS = count
                    for row in rows(table, truth):
                        cells.append({"budget": budget, "count": count, "trial": trial, **row})
    finally:
        core.FLOOR_PSEUDO_LABELS = saved
    print(summary(pd.DataFrame(cells)).to_string(index=False))
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
