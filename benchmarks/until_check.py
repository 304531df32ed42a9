"""How close ``bacon sample --until half-width=H`` lands (issue 41, point 3): on the shipped
SummEval sample (expert relevance, its nine relevance judges, the frequentist calibrator),
a uniform first wave of ``--first`` labels, then a second uniform wave of the size
:func:`bacon_bayes.study.settled.questions` predicts for the pool mean's anytime
half-width ``H`` (the confidence sequence, or alpha-spending up to ``--max-labels``). Per
sequence, the realised half-width after the second wave over ``H``; the mean, the spread
and the share that met ``H``.

    python -m benchmarks.until_check [--reps 20] [--first 60] [--half-width 0.08]
"""

from __future__ import annotations

import argparse

import numpy as np

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.study.settled import questions
from benchmarks.anytime_check import LABEL, load


def one(seed: int, first: int, h: float, max_labels: int | None) -> tuple[float, float]:
    """(labels predicted, realised half-width / h) of one sequence."""
    frame, judges = load()
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(frame))
    wave = np.full(len(frame), np.nan)

    def fit() -> Calibrator:
        data = frame.copy()
        data["w"] = wave
        data.loc[data["w"].isna(), LABEL] = np.nan
        pool = EvalPool.from_frame(
            data, label=LABEL, judges=judges, outcome="continuous", item="item", wave="w"
        )
        return Calibrator(engine="freq", scale=(1, 5)).fit(pool)

    wave[order[:first]] = 1
    q = questions(fit(), half_width=h, max_labels=max_labels)[0]
    m = int(q.more_labels or 0) if np.isfinite(q.more_labels or 0) else len(frame) - first
    wave[order[first : first + m]] = 2
    e = fit().estimate_mean(anytime=True, max_labels=max_labels)
    return float(m), 0.5 * (e.ci_high - e.ci_low) / h


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--first", type=int, default=60)
    parser.add_argument("--half-width", type=float, default=0.08)
    parser.add_argument("--max-labels", type=int)
    args = parser.parse_args()
    rows = np.array(
        [one(s, args.first, args.half_width, args.max_labels) for s in range(args.reps)]
    )
    m, ratio = rows[:, 0], rows[:, 1]
    print(
        f"first wave {args.first}, H={args.half_width:g}, max_labels={args.max_labels}, "
        f"{args.reps} sequences: predicted more labels mean {m.mean():.0f} "
        f"(range {m.min():.0f}-{m.max():.0f}); realised half-width / H mean {ratio.mean():.3f} "
        f"(sd {ratio.std(ddof=1):.3f}, range {ratio.min():.3f}-{ratio.max():.3f}); "
        f"met H in {np.mean(ratio <= 1):.2f} of them"
    )


if __name__ == "__main__":
    main()
