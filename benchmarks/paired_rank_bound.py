"""Why pairing cannot narrow SummEval's rank intervals at 10% labels (issue 32): the
narrowest valid simultaneous intervals of all pairwise differences from ``G`` labeled
prompts.

    PYTHONPATH=. .venv/bin/python -m benchmarks.paired_rank_bound [--groups 12] [--ratio 0.854]

Rank intervals come from the simultaneous intervals of the ``m (m - 1) / 2`` pairwise
differences (:func:`bacon_bayes.estimate.groups.rank_intervals`): a pair is ordered when its
interval excludes 0. Under a paired design every difference is estimated from the same
``G`` prompts, each with its own variance estimate on ``G - 1`` degrees of freedom. With
normal prompt totals (the most favourable case) the exact critical value is the 95%
quantile of ``max |t_ab|`` over the pairs, each ``t_ab`` the one-sample t statistic of
the ``G`` prompt-level differences of groups ``a`` and ``b`` (the prompt's common effect
cancels; the groups' residuals are exchangeable, so no correlation needs assuming). An
item-level design with many labels per group has the normal max-|t| over the pairs
instead (Tukey's; the item-level group variances are moderated, so their degrees of
freedom are many). The paired design's simultaneous half-widths are then at least
``ratio * c_paired(G) / c_normal`` of the uniform design's, ``ratio`` the paired/uniform
sd of a difference (0.854 on SummEval relevance at 10%: the median pairwise-difference
RMSE of the two designs under the frequentist default, 200 draws). Above 1 no valid
method narrows the rank intervals by pairing at that number of prompts.

Measured (12 groups, 66 pairs, 20,000 draws; seed 0): ``c_normal`` 3.27; ``c_paired``
4.89 at 10 prompts (the t quantile at the max-|t| level, which the estimators use, is
4.73: below the exact value, so the paired intervals are not over-wide), so the paired
half-widths are at least 1.28x uniform's at SummEval's 10 labeled prompts (1.10x at
15, 1.02x at 20, 0.98x at 25): pairing breaks even from about 22 prompts (a 22% budget of
SummEval's 100 articles). On WMT22 (187 prompts) and TriviaQA (40) at 10% the break-even
is passed, and there the paired rank intervals were narrower (EXPERIMENTS.md).
"""

from __future__ import annotations

import argparse

import numpy as np


def max_t_quantile(groups: int, prompts: int, draws: int = 20_000, seed: int = 0) -> float:
    """95% quantile of the largest |t| over all pairs from ``prompts`` normal prompt totals."""
    rng = np.random.default_rng(seed)
    a, b = np.triu_indices(groups, 1)
    out = np.empty(draws)
    for k in range(draws):
        d = (x := rng.normal(size=(prompts, groups)))[:, a] - x[:, b]
        out[k] = np.abs(d.mean(0) / (d.std(0, ddof=1) / np.sqrt(prompts))).max()
    return float(np.quantile(out, 0.95))


def normal_max_quantile(groups: int, draws: int = 200_000, seed: int = 1) -> float:
    """95% quantile of the largest |z| over all pairs of independent normal group means
    (each difference standardised): Tukey's studentised range over sqrt(2)."""
    z = np.random.default_rng(seed).normal(size=(draws, groups))
    return float(np.quantile(np.ptp(z, axis=1) / np.sqrt(2), 0.95))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--groups", type=int, default=12)
    p.add_argument("--ratio", type=float, default=0.854, help="paired/uniform sd of a difference")
    p.add_argument("--prompts", default="10,15,20,25,30,40", help="labeled prompts to show")
    args = p.parse_args()
    c_norm = normal_max_quantile(args.groups)
    print(f"{args.groups} groups: normal max-|t| over the pairs {c_norm:.3f}")
    print("| labeled prompts | exact paired critical value | paired / uniform half-width |")
    print("|---|---|---|")
    for g in (int(v) for v in args.prompts.split(",")):
        c = max_t_quantile(args.groups, g)
        print(f"| {g} | {c:.3f} | {args.ratio * c / c_norm:.3f} |")


if __name__ == "__main__":
    main()
