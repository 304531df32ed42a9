"""How close ``bacon sample --until half-width=H`` lands (issue 41, point 3): on the shipped
SummEval sample (expert relevance, its nine relevance judges, the frequentist calibrator),
a uniform first wave of ``--first`` labels, then a second uniform wave of the size
:func:`bacon_bayes.study.settled.questions` predicts for the pool mean's anytime
half-width ``H`` (the confidence sequence, or alpha-spending up to ``--max-labels``). Per
sequence, the realised half-width after the second wave over ``H``; the mean, the spread
and the share that met ``H``.

    python -m benchmarks.until_check [--reps 20] [--first 60] [--half-width 0.08]

``--needed``: the count against the labels a wave actually needed. After ``--look`` uniform
waves of ``--first`` labels, the projected count ``N`` (and its range, where one is said),
then the fewest labels of the next uniform wave (the sequence's next items) that bring the
half-width to ``H`` (a search, :func:`realised_need`). Printed: realised / projected (median,
10-90%), the share short by more than 25%, and the share inside the stated range, apart for
the looks whose variance sits at the residual floor (their range is the floor's).
``--table trivia``: TriviaQA (0/1 human verdicts, the judges GPT-4, Llama3-70B and Llama-70B;
the shared data, :func:`benchmarks.adaptive_experiment.find_shared_data`).

    python -m benchmarks.until_check --needed --reps 40 --look 1
    python -m benchmarks.until_check --needed --table trivia --first 96 --half-width 0.03
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from functools import cache

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.estimate.core import VARIANCE_FLOOR
from bacon_bayes.study import settled
from bacon_bayes.study.settled import questions
from benchmarks.adaptive_experiment import find_shared_data
from benchmarks.anytime_check import LABEL, load
from benchmarks.bench_bayes_multinomial import RELATIVE

TRIVIA_JUDGES = ["GPT-4", "Llama3-70B", "Llama-70B"]


@cache
def table(name: str) -> tuple[pd.DataFrame, list[str], str, tuple[float, float]]:
    """(frame, judges, label column, label scale) of ``summeval`` or ``trivia``."""
    if name == "summeval":
        frame, judges = load()
        return frame, judges, LABEL, (1.0, 5.0)
    path = find_shared_data(RELATIVE)
    if path is None:
        raise SystemExit(f"--table trivia: shared/data/{RELATIVE} is absent")
    df = pd.read_csv(path)
    df = df[df["Human-Eval"].notna()].reset_index(drop=True)
    frame = df[TRIVIA_JUDGES].astype(float)
    frame["y"] = df["Human-Eval"].astype(float)
    frame["item"] = np.arange(len(frame))
    return frame, TRIVIA_JUDGES, "y", (0.0, 1.0)


def fitter(name: str, wave: np.ndarray) -> Calibrator:
    frame, judges, label, scale = table(name)
    data = frame.copy()
    data["w"] = wave
    data.loc[data["w"].isna(), label] = np.nan
    pool = EvalPool.from_frame(
        data, label=label, judges=judges, outcome="continuous", item="item", wave="w"
    )
    return Calibrator(engine="freq", scale=scale).fit(pool)


def half_width(cal: Calibrator, max_labels: int | None) -> float:
    e = cal.estimate_mean(anytime=True, max_labels=max_labels)
    return 0.5 * (e.ci_high - e.ci_low)


def one(seed: int, first: int, h: float, max_labels: int | None) -> tuple[float, float]:
    """(labels predicted, realised half-width / h) of one sequence."""
    frame = table("summeval")[0]
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(frame))
    wave = np.full(len(frame), np.nan)
    wave[order[:first]] = 1
    q = questions(fitter("summeval", wave), half_width=h, max_labels=max_labels)[0]
    m = int(q.more_labels or 0) if np.isfinite(q.more_labels or 0) else len(frame) - first
    wave[order[first : first + m]] = 2
    return float(m), half_width(fitter("summeval", wave), max_labels) / h


def realised_need(met: Callable[[int], bool], start: int, cap: int) -> int:
    """The fewest more labels ``m`` (to ``cap``) with ``met(m)``, from ``start``: steps of
    1.5x to bracket it, then bisection to 2% (the half-width falls with the labels but for
    the new labels' noise; ``cap + 1`` where even ``cap`` does not)."""
    lo, hi = 0, max(1, min(start, cap))
    if met(hi):
        while hi > 1 and met(max(1, int(hi / 1.5))):
            hi = max(1, int(hi / 1.5))
        lo = 0 if hi == 1 else max(1, int(hi / 1.5))
    else:
        while not met(hi):
            if hi >= cap:
                return cap + 1
            lo, hi = hi, min(cap, int(np.ceil(hi * 1.5)))
    while hi - lo > max(1, 0.02 * hi):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if met(mid) else (mid, hi)
    return hi


def needed(
    name: str, seed: int, first: int, look: int, h: float, max_labels: int | None
) -> dict[str, float]:
    """The count (and range) after ``look`` waves of ``first`` labels, and the realised
    need of the next wave."""
    frame = table(name)[0]
    order = np.random.default_rng(seed).permutation(len(frame))
    wave = np.full(len(frame), np.nan)
    n = first * look
    wave[order[:n]] = np.arange(n) // first + 1
    cal = fitter(name, wave)
    q = questions(cal, half_width=h, max_labels=max_labels)[0]
    floor = bool(cal.estimate_mean(anytime=True, max_labels=max_labels).details.get(VARIANCE_FLOOR))
    m = float(q.more_labels or 0.0)
    lo, hi = m, m
    if found := re.search(r"between (\d+) and (\d+)\)? more", q.answer):
        lo, hi = float(found[1]), float(found[2])
    elif found := re.search(r"at least (\d+)\)? more", q.answer):
        lo, hi = float(found[1]), np.inf
    cap = (max_labels or len(frame)) - n

    def met(more: int) -> bool:
        grown = wave.copy()
        grown[order[n : n + more]] = look + 1
        return half_width(fitter(name, grown), max_labels) <= h

    start = int(m) if np.isfinite(m) and m > 0 else cap
    real = float(realised_need(met, start, cap)) if not q.settled else 0.0
    return {"projected": m, "low": lo, "high": hi, "real": real, "floor": float(floor)}


def needed_report(rows: list[dict[str, float]]) -> str:
    """realised / projected and the range's coverage, apart at the floor."""
    out = []
    for kind, keep in (("off the floor", 0.0), ("at the floor", 1.0)):
        sel = [r for r in rows if r["floor"] == keep and 0 < r["projected"] < np.inf]
        if not sel:
            continue
        real = np.array([r["real"] for r in sel])
        m = np.array([r["projected"] for r in sel])
        lo, hi = np.array([r["low"] for r in sel]), np.array([r["high"] for r in sel])
        ratio = real / m
        ranged = hi / np.maximum(lo, 1) > 1.0
        out.append(
            f"{kind}: {len(sel)} looks; projected median {np.median(m):.0f}, realised median "
            f"{np.median(real):.0f}; realised / projected median {np.median(ratio):.2f} "
            f"(10-90% {np.quantile(ratio, 0.1):.2f}-{np.quantile(ratio, 0.9):.2f}); short by "
            f"> 25%: {np.mean(ratio > 1.25):.2f}; over by > 25%: {np.mean(ratio < 0.8):.2f}; "
            f"a range said on {ranged.mean():.2f} (median high/low "
            f"{np.median(hi[ranged] / lo[ranged]) if ranged.any() else float('nan'):.2f}); "
            f"realised inside it {np.mean((real >= lo) & (real <= hi)):.2f} (below "
            f"{np.mean(real < lo):.2f}, above {np.mean(real > hi):.2f})"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--first", type=int, default=60)
    parser.add_argument("--half-width", type=float, default=0.08)
    parser.add_argument("--max-labels", type=int)
    parser.add_argument("--needed", action="store_true")
    parser.add_argument("--table", choices=("summeval", "trivia"), default="summeval")
    parser.add_argument("--look", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    seeds = range(args.seed, args.seed + args.reps)
    if args.needed:
        settled.RANGE_SPREAD = 1.0  # the range as computed, said or not
        rows = [
            needed(args.table, s, args.first, args.look, args.half_width, args.max_labels)
            for s in seeds
        ]
        print(
            f"{args.table}, look {args.look} (waves of {args.first}), H={args.half_width:g}, "
            f"max_labels={args.max_labels}, {args.reps} sequences:\n{needed_report(rows)}"
        )
        return
    rows_ = np.array([one(s, args.first, args.half_width, args.max_labels) for s in seeds])
    m, ratio = rows_[:, 0], rows_[:, 1]
    print(
        f"first wave {args.first}, H={args.half_width:g}, max_labels={args.max_labels}, "
        f"{args.reps} sequences: predicted more labels mean {m.mean():.0f} "
        f"(range {m.min():.0f}-{m.max():.0f}); realised half-width / H mean {ratio.mean():.3f} "
        f"(sd {ratio.std(ddof=1):.3f}, range {ratio.min():.3f}-{ratio.max():.3f}); "
        f"met H in {np.mean(ratio <= 1):.2f} of them"
    )


if __name__ == "__main__":
    main()
