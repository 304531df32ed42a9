"""Why WMT22's M2M100_1.2B-B4 misses (issue 41): the coverage of one group's mean from ``n``
labels of a strongly skewed residual distribution, by four intervals on the same samples.

The group: M2M100_1.2B-B4 of the anytime harness's WMT22 table (150 segments; its mean
MQM 7.3 against 1.3-4.1 for the other 15 systems), residuals of a ridge of the label on
all judges fitted on the whole table (a stand-in for the surrogate's). Per ``n``, samples of
``n`` of its 150 residuals without replacement; the truth is their mean. Intervals:
Student-t on ``n - 1``; the studentised bootstrap of the sample, symmetric (the package's
group intervals: ``|T*|``) and equal-tailed (``T*`` quantiles at ``alpha / 2`` and ``1 -
alpha / 2``); and the equal-tailed interval whose ``T`` quantiles come from the pooled
shape, every system's residuals standardised within the system (the table's population:
an oracle for a method that would borrow the tail from the other groups' labels).

    PYTHONPATH=. python -m benchmarks.skewed_group_check [--reps 1500] [--data /tmp/mc_data]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from benchmarks import anytime_validation as v

ALPHA = 0.05
GROUP = "M2M100_1.2B-B4"


def misses(res: np.ndarray, shape: np.ndarray, n: int, reps: int, rng) -> dict[str, str]:
    """Each interval's miss rate, low side + high side, over ``reps`` samples of ``n``."""
    truth = res.mean()
    zb = shape[rng.integers(0, shape.size, (20_000, n))]
    tz = zb.mean(1) / (zb.std(1, ddof=1) / np.sqrt(n))
    pooled = np.quantile(tz, [ALPHA / 2, 1 - ALPHA / 2])
    tc = stats.t.isf(ALPHA / 2, n - 1)
    out = np.zeros((4, 2))
    for _ in range(reps):
        x = rng.choice(res, n, replace=False)
        m, s = x.mean(), x.std(ddof=1) / np.sqrt(n)
        xb = x[rng.integers(0, n, (999, n))]
        tb = (xb.mean(1) - m) / np.maximum(xb.std(1, ddof=1) / np.sqrt(n), 1e-12)
        sym = np.quantile(np.abs(tb), 1 - ALPHA)
        q = np.quantile(tb, [ALPHA / 2, 1 - ALPHA / 2])
        for k, (lo, hi) in enumerate(
            [(tc, tc), (sym, sym), (q[1], -q[0]), (pooled[1], -pooled[0])]
        ):
            out[k] += truth < m - lo * s, truth > m + hi * s
    out /= reps
    names = ("t", "bootstrap-t, symmetric", "bootstrap-t, equal-tailed",
             "pooled shape, equal-tailed")  # fmt: skip
    return {k: f"{r.sum():.3f} ({r[0]:.3f} + {r[1]:.3f})" for k, r in zip(names, out, strict=True)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=1500)
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    args = p.parse_args()
    tables = v.load_tables(args.data, ("wmt22",))
    if not tables:
        return
    t = tables[0]
    beta = np.linalg.lstsq(t.X, t.y, rcond=None)[0]
    r_all = t.y - t.X @ beta
    res = r_all[t.g == list(t.groups).index(GROUP)]
    shape = np.concatenate(
        [(r - r.mean()) / r.std() for r in (r_all[t.g == k] for k in range(t.groups.size))]
    )
    s = pd.Series(res)
    print(f"{GROUP}: {res.size} residuals, skewness {s.skew():.2f}, excess kurtosis "
          f"{s.kurt():.2f}; pooled shape skewness {pd.Series(shape).skew():.2f}")  # fmt: skip
    rng = np.random.default_rng(0)
    rows = [{"labels": n, **misses(res, shape, n, args.reps, rng)} for n in (10, 15, 20, 30)]
    print("miss rate, total (low side + high side):")
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
