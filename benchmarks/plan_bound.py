"""How close any plan's predicted power can be to the realised one, pilot by pilot, when
the plan's only uncertain input is a variance read from a pilot (issue 40 point 4).

    python -m benchmarks.plan_bound [--power 0.8] [--alpha 0.05] [--band 0.07]
                                    [--pilots 36,60,120,240,480]

The most favourable planner: it knows the true gap, the estimator's exact variance
formula and its critical value, and reads only the residual variance ``sigma^2`` from
``n`` pilot labels with the efficient unbiased estimate (normal residuals: ``s^2 ~ sigma^2
chi^2_d / d`` with ``d = n - 1``, the most degrees of freedom ``n`` labels give; the package
fits judges and groups, so it has fewer). It asks the labels ``m = m* s^2 / sigma^2`` that
give the target power at its ``s^2`` (``m*``: those at the true ``sigma^2``), and it
realises ``Phi(sqrt(m / m*) (z_{1-alpha/2} + z_power) - z_{1-alpha/2})`` (the test's far
tail left out; it is below 1e-4 here). The share of pilots whose realised power is more
than ``band`` from the predicted ``power`` is then a property of ``d`` alone:

    P(s^2 / sigma^2 < r_low) + P(s^2 / sigma^2 > r_high),   r = ((z + Phi^-1(p)) / (z + z_power))^2

at ``p = power -/+ band``. A plan whose inputs are noisier (the package's: a ridge on the
judges, groups, a shrinkage switch) can only spread more, unless it brings information the
pilot does not hold (a prior on ``sigma^2`` that happens to be right). No wall clock; exact
(chi-square), checked by simulation (``--check``).
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats


def outside_share(d: float, power: float = 0.8, alpha: float = 0.05, band: float = 0.07) -> float:
    """The share of pilots (a variance on ``d`` df) whose realised power misses ``power`` by
    more than ``band``, for the most favourable planner (module docstring)."""
    z = stats.norm.ppf(1.0 - alpha / 2.0)
    full = z + stats.norm.ppf(power)
    lo = ((z + stats.norm.ppf(power - band)) / full) ** 2
    hi = ((z + stats.norm.ppf(power + band)) / full) ** 2
    chi = stats.chi2(d)
    return float(chi.cdf(lo * d) + chi.sf(hi * d))


def simulated_share(
    d: int, power: float, alpha: float, band: float, reps: int = 200_000, seed: int = 0
) -> float:
    """The same share by simulating the pilots' variances and the realised powers."""
    rng = np.random.default_rng(seed)
    ratio = rng.chisquare(d, reps) / d
    z = stats.norm.ppf(1.0 - alpha / 2.0)
    real = stats.norm.cdf(np.sqrt(ratio) * (z + stats.norm.ppf(power)) - z)
    return float(np.mean(np.abs(real - power) > band))


def pilot_needed(share: float, power: float, alpha: float, band: float) -> int:
    """The fewest pilot labels at which at most ``share`` of pilots fall outside the band."""
    n = 2
    while outside_share(n - 1, power, alpha, band) > share:
        n = int(n * 1.1) + 1
    lo = max(2, int(n / 1.1) - 1)
    return next(k for k in range(lo, n + 1) if outside_share(k - 1, power, alpha, band) <= share)


def main(argv: list[str] | None = None) -> list[tuple[int, float]]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--power", type=float, default=0.8)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--band", type=float, default=0.07)
    ap.add_argument("--pilots", default="36,60,120,240,480", help="pilot labels")
    ap.add_argument("--check", action="store_true", help="also simulate each share")
    args = ap.parse_args(argv)
    rows = []
    print(
        f"power {args.power}, two-sided alpha {args.alpha}: share of pilots whose realised "
        f"power is more than {args.band} from the predicted, most favourable planner"
    )
    print("| pilot labels | df | share outside | simulated |")
    print("|---|---|---|---|")
    for n in (int(v) for v in args.pilots.split(",")):
        share = outside_share(n - 1, args.power, args.alpha, args.band)
        sim = simulated_share(n - 1, args.power, args.alpha, args.band) if args.check else None
        print(f"| {n} | {n - 1} | {share:.3f} | {'' if sim is None else f'{sim:.3f}'} |")
        rows.append((n, share))
    for share in (0.5, 0.2, 0.1):
        need = pilot_needed(share, args.power, args.alpha, args.band)
        print(f"at most {share:.0%} of pilots outside needs a pilot of {need} labels")
    return rows


if __name__ == "__main__":
    main()
