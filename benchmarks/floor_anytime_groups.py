"""Anytime intervals of group means whose variance sits at the residual floor
(``estimate.moderate.floor_details``, its rows :data:`~bacon_bayes.estimate.moderate.FLOOR_ROWS`):
such rows scaled by ``c / z`` as the pool mean's (:mod:`benchmarks.floor_anytime`; "new",
a candidate rule, applied here by giving those rows no df) against their moderated
Student-t look (the package's; "old"), on the same simulated sequences. Measured and not
adopted (VALIDATION.md, "Anytime group looks ...", 2026-12-03).

    PYTHONPATH=. python -m benchmarks.floor_anytime_groups [--reps 200]

8 groups of 400 items with 0/1 labels, each group right on a share of 55-90% of its
items; the judges' side of each item is right but for a share ``q`` of misses (1%, 3%),
the surrogate 0.97 / 0.03 plus a little noise; 10 nested uniform looks of 48 or 96 labels
over the pool; per-group AEE means with moderated-t intervals (``interval="t"``, each
group pointwise): the branch whose rows carry a df. Printed per cell: the share of group
rows at the floor, the chance that some look misses a group's mean, averaged over the 8
and the worst group's, under each rule (Monte Carlo se of the average), and the median
ratio of the old rule's width to the new one's at the floor-bound rows.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import stats

from bacon_bayes.estimate import aee_group_means, anytime
from bacon_bayes.estimate.moderate import FLOOR_ROWS
from bacon_bayes.results import EstimateTable
from benchmarks.floor_anytime import cells, reps_option

N_GROUP, M, LOOKS = 400, 8, 10


def _cell(q: float, wave: int, spend: bool, reps: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    n = N_GROUP * M
    g = np.repeat(np.arange(M), N_GROUP)
    rate = np.linspace(0.55, 0.9, M)[g]
    max_labels = LOOKS * wave if spend else None
    missed = {"new": np.zeros(M), "old": np.zeros(M)}
    ratios: list[float] = []
    floored = rows = 0
    for _ in range(reps):
        side = rng.random(n) < rate
        y = (rng.random(n) < np.where(side, 1 - q, q)).astype(float)
        f = np.where(side, 0.97, 0.03) + rng.normal(0, 0.01, n)
        truth = np.bincount(g, weights=y) / N_GROUP
        order = rng.permutation(n)
        bad = {"new": np.zeros(M, bool), "old": np.zeros(M, bool)}
        counts = np.zeros((M, LOOKS))
        for k in range(LOOKS):
            labeled = np.zeros(n, bool)
            labeled[order[: (k + 1) * wave]] = True
            counts[:, k] = np.bincount(g[labeled], minlength=M)
            t = aee_group_means(
                np.where(labeled, y, np.nan), f, g, pi=(k + 1) * wave / n,
                interval="t", simultaneous="none",
            )  # fmt: skip
            info = anytime.effective_labels(counts[:, : k + 1], float(N_GROUP))
            looks = np.arange(1, k + 2) * float(wave)
            old = anytime.anytime_table(t, info, looks, max_labels=max_labels)
            flags = np.asarray(t.details.get(FLOOR_ROWS, [False] * M), bool)
            rows += M
            if flags.any():
                floored += int(flags.sum())
                new = _scaled_at_floor(t, old, flags, info, looks, max_labels)
                ok = flags & np.isfinite(new.ci_low)
                ratios += list((old.ci_high - old.ci_low)[ok] / (new.ci_high - new.ci_low)[ok])
            else:
                new = old
            for rule, tab in (("new", new), ("old", old)):
                with np.errstate(invalid="ignore"):
                    bad[rule] |= (tab.ci_low > truth) | (tab.ci_high < truth)
        for rule in missed:
            missed[rule] += bad[rule]
    out = {"floor share": floored / max(rows, 1)}
    for rule, m in missed.items():
        out[f"{rule} average"] = float(m.mean() / reps)
        out[f"{rule} worst"] = float(m.max() / reps)
    r = np.asarray(missed["new"]) / reps
    out["se"] = float(np.sqrt((r * (1 - r)).mean() / reps))
    out["width old/new median"] = float(np.median(ratios)) if ratios else float("nan")
    return out


def _scaled_at_floor(
    t: EstimateTable, old: EstimateTable, flags: np.ndarray, info: np.ndarray,
    looks: np.ndarray, max_labels: int | None,
) -> EstimateTable:  # fmt: skip
    """The candidate rule: rows at the floor take their fixed interval scaled by ``c / z``
    at the row's level (its Student-t critical value's), as ``anytime_estimate`` does for
    the pool mean at the floor; the other rows as the package's ``old``."""
    df = np.asarray(t.details["df"], dtype=float)
    level = 2.0 * stats.t.sf(t.critical_value, np.maximum(df, 1.0))
    times = anytime.spending_times(looks, max_labels)
    c = anytime.sequential_critical_values(info, level, times=times)
    f = c / stats.norm.isf(level / 2.0)
    est = t.estimate
    low = np.where(flags, est - f * (est - t.ci_low), old.ci_low)
    high = np.where(flags, est + f * (t.ci_high - est), old.ci_high)
    return replace(old, ci_low=low, ci_high=high)


def main(argv: list[str] | None = None) -> None:
    reps = reps_option(argv, 200)
    print(
        "| q | wave | kind | group rows at the floor | some look misses, average: new (se) "
        "| old | worst group: new | old | old / new width at the floor (median) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for q, wave, kind, r in cells((0.01, 0.03), (48, 96), _cell, reps):
        print(
            f"| {q} | {wave} | {kind} | {r['floor share']:.2f} | "
            f"{r['new average']:.3f} ({r['se']:.3f}) | {r['old average']:.3f} | "
            f"{r['new worst']:.3f} | {r['old worst']:.3f} | {r['width old/new median']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
