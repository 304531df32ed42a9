"""The means `bacon plan --top` takes as the truth: the pilot's own (unshrunk) means, its
shrunk means (:func:`bacon_bayes.planning.outlook.planning_basis`, the default), or the
true means (an oracle), each giving the plan's predicted power to resolve the top of 12
systems at 600 of 1,200 labels (uniform), averaged over pilots.

Twelve systems of 100 items, labels ``N(0, 1)`` with the first system ``gap`` higher, one
judge ``y + N(0, 1)``; pilots of 3% and 10% labels.

Usage::

    python -m benchmarks.plan_top_truth --pilots 20
"""

from __future__ import annotations

import argparse
import importlib

import numpy as np
import pandas as pd

from bacon_bayes import EvalPool
from bacon_bayes.planning import Goal, outlook
from bacon_bayes.planning.predict import pilot_statistics

plan_module = importlib.import_module("bacon_bayes.planning.search")


def pilot(seed: int, gap: float, share: float) -> tuple[object, np.ndarray]:
    rng = np.random.default_rng(seed)
    g = np.repeat([f"s{k:02d}" for k in range(12)], 100)
    y = rng.normal(size=g.size) + gap * (g == "s00")
    frame = pd.DataFrame({"y": np.where(rng.random(g.size) < share, y, np.nan),
                          "j": y + rng.normal(0, 1.0, g.size), "g": g})  # fmt: skip
    pool = EvalPool.from_frame(frame, label="y", judges=["j"], outcome="continuous", group="g")
    return pilot_statistics(pool), pd.Series(y).groupby(g).mean().to_numpy()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pilots", type=int, default=20)
    args = ap.parse_args()
    kept = plan_module.planning_basis
    print("| pilot | true gap | unshrunk | shrunk | true means |\n|---|---|---|---|---|")
    try:
        for share in (0.03, 0.10):
            for gap in (0.0, 0.5, 1.0):
                row = []
                for mode in ("unshrunk", "shrunk", "oracle"):
                    powers = []
                    for seed in range(args.pilots):
                        st, truth = pilot(seed, gap, share)
                        means = {
                            "unshrunk": lambda st, prior, pooling: st.estimated_means(),
                            "shrunk": outlook.planning_means,
                            "oracle": lambda st, prior, pooling, t=truth: t,
                        }[mode]
                        plan_module.planning_basis = lambda st, prior, pooling, m=means: (
                            m(st, prior, pooling),
                            kept(st, prior, pooling)[1],
                        )
                        ev = plan_module.Evaluator(st, Goal("top"), 0.05, False)
                        powers.append(ev.metric("uniform", 600))
                    row.append(f"{np.mean(powers):.3f}")
                print(f"| {share:.0%} | {gap:g} | " + " | ".join(row) + " |")
    finally:
        plan_module.planning_basis = kept


if __name__ == "__main__":
    main()
