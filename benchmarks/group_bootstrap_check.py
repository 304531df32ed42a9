"""Group means of the per-group AEE (``pooling="separate"``) on real tables, pointwise and
simultaneous, on ``bacon simulate``'s uniform draws (:func:`benchmarks.sparse_groups.draw`):
coverage of each system's full-label mean, the joint coverage of the simultaneous
intervals and their width; the same of the pairwise differences (``compare_groups``:
averaged over the pairs with an interval, joint, width). Made to check the bootstrap
branch's critical values (every group with at least 10 labels): run it at two commits and
compare with ``--compare``.

    PYTHONPATH=. .venv/bin/python -m benchmarks.group_bootstrap_check TRIALS OUT.csv \\
        trivia@0.05,summeval_relevance@0.2,wmt22@0.1 [--data /tmp/mc_data]
    PYTHONPATH=. .venv/bin/python -m benchmarks.group_bootstrap_check --compare OLD.csv NEW.csv

Tables and data as :mod:`benchmarks.sparse_groups` (TriviaQA and WMT22 from ``DATA``).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator
from bacon_bayes.errors import ValidationError
from bacon_bayes.simulation.montecarlo import _pool
from benchmarks.sparse_groups import cells, draw


def run(trials: int, specs: list[str], data: Path) -> pd.DataFrame:
    """One row per (cell, trial, pointwise or simultaneous): coverage of every group."""
    rows, start = [], time.perf_counter()
    for cell in specs:
        name, budget = cell.split("@")
        frame, spec, _ = cells(data, [name])[name]
        groups = frame[spec.group].astype(str).to_numpy()
        truth = pd.Series(frame[spec.label].to_numpy(float)).groupby(groups).mean()
        for trial in range(trials):
            labeled, seed = draw(frame, spec, float(budget), trial)
            pool = _pool(frame, spec, labeled, None)
            cal = Calibrator(engine="freq", seed=seed, pooling="separate").fit(pool)
            for sim in (False, True):
                try:
                    t = cal.estimate_groups(0.05, simultaneous=sim)
                    d = cal.compare_groups(0.05, simultaneous=sim)
                except ValidationError:
                    continue
                hit = (t.ci_low <= truth.loc[list(t.names)].to_numpy()) & (
                    truth.loc[list(t.names)].to_numpy() <= t.ci_high
                )
                gap = np.array([truth[a] - truth[b] for a, b in d.details["pairs"]])
                ok = np.isfinite(d.ci_low)
                d_hit = ((d.ci_low <= gap) & (gap <= d.ci_high))[ok]
                rows.append(
                    {"cell": cell, "trial": trial, "simultaneous": sim,
                     "interval": t.details.get("interval"), "all": bool(hit.all()),
                     "width": float(np.mean(t.ci_high - t.ci_low)),
                     "pairs_all": bool(d_hit.all()), "pairs_average": float(d_hit.mean()),
                     "pairs_width": float(np.mean((d.ci_high - d.ci_low)[ok])),
                     **{f"c_{n}": bool(h) for n, h in zip(t.names, hit, strict=True)}}
                )  # fmt: skip
        print(f"{cell}: {time.perf_counter() - start:.0f} s", flush=True)
    return pd.DataFrame(rows)


def summary(d: pd.DataFrame) -> pd.DataFrame:
    """Per cell and kind: draws, bootstrap share, coverage averaged over groups, the lowest
    group's, the joint coverage and the mean width; the pairs' average, joint coverage and
    mean width."""
    out = []
    for (cell, sim), g in d.groupby(["cell", "simultaneous"], sort=False):
        per = g[[c for c in g.columns if c.startswith("c_")]].dropna(axis=1, how="all").mean()
        out.append(
            {"cell": cell, "simultaneous": sim, "draws": len(g),
             "bootstrap": (g["interval"] == "bootstrap").mean(), "average": per.mean(),
             "lowest": per.min(), "lowest_group": per.idxmin()[2:], "joint": g["all"].mean(),
             "width": g["width"].mean(), "pairs_average": g["pairs_average"].mean(),
             "pairs_joint": g["pairs_all"].mean(), "pairs_width": g["pairs_width"].mean()}
        )  # fmt: skip
    return pd.DataFrame(out)


def main() -> None:
    warnings.filterwarnings("ignore")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trials", nargs="?", type=int)
    p.add_argument("out", nargs="?", type=Path)
    p.add_argument("cells", nargs="?", help="table@budget, comma-separated")
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = p.parse_args()
    if args.compare:
        old, new = (summary(pd.read_csv(f)) for f in args.compare)
        both = old.merge(new, on=["cell", "simultaneous"], suffixes=("_old", "_new"))
        both["width_ratio"] = both["width_new"] / both["width_old"]
        cols = [c for c in both.columns if c not in ("draws_new", "bootstrap_new")]
        print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
        for _, r in both[cols].iterrows():
            cells_ = (f"{v:.3f}" if isinstance(v, float) else str(v) for v in r)
            print("| " + " | ".join(cells_) + " |")
        return
    run(args.trials, args.cells.split(","), args.data).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
