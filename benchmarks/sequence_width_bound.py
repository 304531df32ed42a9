"""How narrow a sequence of intervals with no maximum budget can be at the looks (issue 41's
"at most 1.35x the fixed width at the last look").

    python -m benchmarks.sequence_width_bound [--alpha 0.05] [--looks 10,20]

A confidence sequence without a maximum does not know which look is the last: the user
stops where they like. For its interval to be at most ``r`` times the fixed width at the
last look whatever the stopping rule, it must be so at every look, so its critical values
are all at most ``r z_{1 - alpha/2}``. Among boundaries bounded by a constant ``c``, the
constant boundary itself crosses most rarely (it is the largest), so such a sequence holds
``1 - alpha`` over ``K`` looks only if ``P(max_k |Z_k| >= c) <= alpha``, with the looks'
canonical joint distribution ``corr(Z_j, Z_k) = sqrt(I_j / I_k)``. The smallest such ``c``
is Pocock's constant; ``c_Pocock / z`` is therefore a floor under the widest-look ratio of
any valid sequence over those looks, before it spends anything on looks after them (which
a sequence with no end must also do). Looks: ``K`` equal increments of information (the
validation study's waves of equal size; its finite-population correction makes the later
increments a little larger, which changes the constants by less than 0.01).

The crossing chance is carried by numerical integration over the looks (written here
apart from the package's own recursion; it gives Pocock's tabulated 2.178, 2.413 and 2.555
for 2, 5 and 10 looks), solved for ``c`` by bisection. For
reference: Robbins' normal mixture (the package's confidence sequence) at its best plan,
and the O'Brien-Fleming alpha-spending interval's last look (``bacon_bayes.estimate.anytime``).
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

from bacon_bayes.estimate.anytime import (
    mixture_critical_value,
    mixture_tuning,
    obf_spending,
    spending_critical_values,
)


def crossing_chance(c: float, info: np.ndarray, points: int = 1201) -> float:
    """``P(max_k |Z_k| >= c)`` for the canonical looks with information ``info``: the
    score ``S_k = Z_k sqrt(I_k)`` has independent normal increments; its density where no
    look crossed is carried from look to look on a grid (trapezoid rule)."""
    x = np.linspace(-c, c, points) * np.sqrt(info[0])
    dens = stats.norm.pdf(x, scale=np.sqrt(info[0]))
    for k in range(1, info.size):
        y = np.linspace(-c, c, points) * np.sqrt(info[k])
        step = np.sqrt(info[k] - info[k - 1])
        kernel = stats.norm.pdf((y[:, None] - x[None, :]) / step) / step
        dens, x = np.trapezoid(kernel * dens[None, :], x, axis=1), y
    return float(1.0 - np.trapezoid(dens, x))


def pocock_constant(info: np.ndarray, alpha: float) -> float:
    """The smallest constant boundary that crosses with chance at most ``alpha``."""
    lo, hi = float(stats.norm.isf(alpha / 2)), 5.0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if crossing_chance(mid, info) > alpha else (lo, mid)
    return hi


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--looks", default="10,20")
    args = parser.parse_args(argv)
    z = float(stats.norm.isf(args.alpha / 2))
    mixture = float(mixture_critical_value(mixture_tuning(args.alpha), args.alpha))
    print(f"alpha = {args.alpha}; fixed z = {z:.3f}")
    print("| looks | Pocock c | floor: c / z | Robbins mixture at its plan / z | OBF last / z |")
    print("|---|---|---|---|---|")
    for k in (int(v) for v in args.looks.split(",")):
        info = np.arange(1.0, k + 1.0)
        c = pocock_constant(info, args.alpha)
        obf = spending_critical_values(info, obf_spending(info / info[-1], args.alpha))[-1]
        print(f"| {k} | {c:.3f} | {c / z:.3f} | {mixture / z:.3f} | {obf / z:.3f} |")


if __name__ == "__main__":
    main()
