"""Anytime intervals of a pool mean whose variance sits at the residual floor
(``estimate.core.residual_floor``): the package's rule (such a look scaled by ``c / z``)
against the Student-t look of the raw residuals' df (the rule before 2026-12-03), on the
same simulated sequences.

    PYTHONPATH=. python -m benchmarks.floor_anytime [--reps 400]

A pool of 3,200 items with 0/1 labels; the judges' side of each item is right but for a
share ``q`` of misses (1%, 3%, 6%), the surrogate 0.97 / 0.03 plus a little noise; 10
nested uniform looks of 32 or 64 labels; the confidence sequence (no maximum) and
alpha-spending to the last look. Printed per cell: the share of looks at the floor, the
chance that some look misses the pool's mean under each rule (Monte Carlo se), and the
median ratio of the old rule's width to the new one's at the floor-bound looks (and its
90th percentile). Written up in VALIDATION.md, "Anytime looks at the residual floor".
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from dataclasses import replace

import numpy as np

from bacon_bayes.estimate import anytime
from bacon_bayes.estimate.core import VARIANCE_FLOOR
from bacon_bayes.estimate.mean import aee_mean

N_ITEMS = 3200
LOOKS = 10


def _cell(q: float, wave: int, spend: bool, reps: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    max_labels = LOOKS * wave if spend else None
    missed = {"new": 0, "old": 0}
    ratios: list[float] = []
    floored = 0
    for _ in range(reps):
        side = rng.random(N_ITEMS) < 0.65
        y = (rng.random(N_ITEMS) < np.where(side, 1 - q, q)).astype(float)
        f = np.where(side, 0.97, 0.03) + rng.normal(0, 0.01, N_ITEMS)
        truth, order = y.mean(), rng.permutation(N_ITEMS)
        bad = {"new": False, "old": False}
        for k in range(1, LOOKS + 1):
            labeled = np.zeros(N_ITEMS, bool)
            labeled[order[: k * wave]] = True
            e = aee_mean(np.where(labeled, y, np.nan), f, labeled, k * wave / N_ITEMS)
            looks = np.arange(1, k + 1) * wave
            new = anytime.anytime_estimate(e, looks, N_ITEMS, max_labels=max_labels)
            if e.details.get(VARIANCE_FLOOR):
                floored += 1
                raw = {a: b for a, b in e.details.items() if a != VARIANCE_FLOOR}
                bare = replace(e, details=raw)
                old = anytime.anytime_estimate(bare, looks, N_ITEMS, max_labels=max_labels)
                ratios.append((old.ci_high - old.ci_low) / (new.ci_high - new.ci_low))
            else:
                old = new
            bad["new"] |= not new.ci_low <= truth <= new.ci_high
            bad["old"] |= not old.ci_low <= truth <= old.ci_high
        for rule in missed:
            missed[rule] += bad[rule]
    out = {"floor share": floored / (reps * LOOKS)}
    for rule, m in missed.items():
        out[f"{rule} misses"] = m / reps
    out["se"] = float(np.sqrt(max(out["new misses"], 1 / reps) * (1 - out["new misses"]) / reps))
    out["width old/new median"] = float(np.median(ratios)) if ratios else float("nan")
    out["width old/new p90"] = float(np.quantile(ratios, 0.9)) if ratios else float("nan")
    return out


def reps_option(argv: list[str] | None, default: int) -> int:
    """``--reps`` from the command line (``argv``), the sequences a cell."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=default)
    return int(parser.parse_args(argv).reps)


def cells(
    qs: tuple[float, ...], waves: tuple[int, ...], cell: Callable[..., dict[str, float]], reps: int
) -> Iterator[tuple[float, int, str, dict[str, float]]]:
    """Each cell of the grid, ``q``, wave, kind (the confidence sequence, then
    alpha-spending) and ``cell(q, wave, spend, reps, seed)``'s figures, seeded by ``q``
    and the wave."""
    for q in qs:
        for wave in waves:
            for spend in (False, True):
                r = cell(q, wave, spend, reps, seed=int(q * 1000) * 100 + wave)
                yield q, wave, "alpha-spending" if spend else "confidence sequence", r


def main(argv: list[str] | None = None) -> None:
    reps = reps_option(argv, 400)
    print(
        "| q | wave | kind | looks at the floor | some look misses, new (se) | old | "
        "old / new width at the floor: median, p90 |"
    )
    print("|---|---|---|---|---|---|---|")
    for q, wave, kind, r in cells((0.01, 0.03, 0.06), (32, 64), _cell, reps):
        print(
            f"| {q} | {wave} | {kind} | {r['floor share']:.2f} | "
            f"{r['new misses']:.3f} ({r['se']:.3f}) | {r['old misses']:.3f} | "
            f"{r['width old/new median']:.2f}, {r['width old/new p90']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
