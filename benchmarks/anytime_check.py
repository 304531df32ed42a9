"""Peeking at fixed intervals against the anytime intervals, on the shipped SummEval sample
(issue 41's baseline): expert relevance (the mean of three ratings, scale 1-5), its nine
relevance judges, 10 nested uniform waves of 2% (24 labels) up to 20%, the frequentist
calibrator refitted at every look as a user would. Per quantity (the pool mean, system
M14's mean, the difference M14 - M15; the calibrator's defaults, the group means and
differences pointwise: ``simultaneous=False``), the chance that
some look's interval misses the truth (the 1,200 items' expert mean), with its Monte Carlo
standard error, and the last look's width over the fixed interval's, for the fixed
intervals, alpha-spending up to 240 labels and the confidence sequence.

    python -m benchmarks.anytime_check [--reps 300] [--waves 10] [--seed 0]

On the known-truth simulator of :mod:`benchmarks.anytime_sim` instead: ``--coverage``
the time-uniform miss rates of the pool mean, a group mean and a difference over uniform
and adaptive waves; ``--simulated`` the full cross-fit at every look against per-wave
increments whose surrogate is fitted on earlier waves only.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool, sequential

DATA = Path(__file__).resolve().parents[1] / "bacon_bayes/data/summeval_sample.csv.gz"
LABEL = "expert_mean_relevance"
GROUP, PAIR = "M14", "M14 - M15"
KINDS = ("fixed", "alpha-spending", "confidence sequence")


def load() -> tuple[pd.DataFrame, list[str]]:
    frame = pd.read_csv(DATA)
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    return frame, judges


def one_sequence(
    frame: pd.DataFrame, judges: list[str], waves: int, per_wave: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Per quantity and kind, (waves, 3): lower end, upper end, width at each look."""
    order = rng.permutation(len(frame))
    wave_of = np.full(len(frame), np.nan)
    wave_of[order[: waves * per_wave]] = np.arange(waves * per_wave) // per_wave + 1
    out = {f"{q}|{k}": np.zeros((waves, 2)) for q in ("mean", "group", "pair") for k in KINDS}
    budget = waves * per_wave
    for look in range(1, waves + 1):
        seen = wave_of <= look
        data = frame.assign(
            label=np.where(seen, frame[LABEL], np.nan), wave=np.where(seen, wave_of, np.nan)
        )
        pool = EvalPool.from_frame(
            data, label="label", judges=judges, outcome="continuous", group="system",
            item="item", wave="wave",
        )  # fmt: skip
        cal = Calibrator(engine="freq", scale=(1, 5)).fit(pool)
        # the fixed results once, then each kind's intervals from them, as the Calibrator's
        # anytime=True does (estimate_mean(anytime=True, max_labels=...) and the like)
        mean = cal._mean(0.05, "aee")
        table, diffs = (
            cal.estimate_groups(simultaneous=False),
            cal.compare_groups(simultaneous=False),
        )
        lo, hi = cal.bounds_
        for kind in KINDS:
            m, g, d = mean, table, diffs
            if kind != "fixed":
                top = budget if kind == "alpha-spending" else None
                m = sequential.mean(cal, mean, top)
                g = sequential.groups(cal, table, top)
                d = sequential.differences(cal, table, diffs, top)
            rows = (
                ("mean", m.clip(lo, hi)),
                ("group", g.clip(lo, hi)[GROUP]),
                ("pair", d.clip(lo - hi, hi - lo)[PAIR]),
            )
            for q, e in rows:
                out[f"{q}|{kind}"][look - 1] = (e.ci_low, e.ci_high)
    return out


def summeval(reps: int, waves: int, seed: int) -> pd.DataFrame:
    frame, judges = load()
    truth = {
        "mean": frame[LABEL].mean(),
        "group": frame.loc[frame.system == GROUP, LABEL].mean(),
        "pair": frame.loc[frame.system == "M14", LABEL].mean()
        - frame.loc[frame.system == "M15", LABEL].mean(),
    }
    per_wave = round(0.02 * len(frame))
    rng = np.random.default_rng(seed)
    miss = {key: [] for key in (f"{q}|{k}" for q in truth for k in KINDS)}
    last_miss = {key: [] for key in miss}
    width = {key: [] for key in miss}
    for rep in range(reps):
        if rep and rep % 50 == 0:  # the table so far
            print(f"{rep} sequences\n{_table(miss, last_miss, width).to_string()}", flush=True)
        seq = one_sequence(frame, judges, waves, per_wave, rng)
        for key, ends in seq.items():
            t = truth[key.split("|")[0]]
            out = (ends[:, 0] > t) | (ends[:, 1] < t)
            miss[key].append(bool(out.any()))
            last_miss[key].append(bool(out[-1]))
            width[key].append(ends[-1, 1] - ends[-1, 0])
    return _table(miss, last_miss, width)


def _table(miss: dict, last_miss: dict, width: dict) -> pd.DataFrame:
    reps = len(miss["mean|fixed"])
    rows = []
    for key in miss:
        q, kind = key.split("|")
        p = float(np.mean(miss[key]))
        ratio = float(np.mean(width[key]) / np.mean(width[f"{q}|fixed"]))
        rows.append(
            {
                "quantity": {"mean": "pool mean", "group": f"{GROUP} mean", "pair": PAIR}[q],
                "interval": kind,
                "some look misses": p,
                "mc se": float(np.sqrt(p * (1 - p) / reps)),
                "last look misses": float(np.mean(last_miss[key])),
                "last width / fixed": ratio,
            }
        )
    return pd.DataFrame(rows)


def simulated(reps: int) -> pd.DataFrame:
    """Full cross-fit at every look against per-wave increments with earlier-wave
    surrogates, pool mean, on the known-truth simulator (uniform and adaptive waves)."""
    from benchmarks.anytime_sim import compare_surrogates

    return compare_surrogates(reps)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=300)
    p.add_argument("--waves", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--simulated", action="store_true", help="the surrogate comparison instead")
    p.add_argument("--coverage", action="store_true", help="the simulator's coverage table instead")
    args = p.parse_args()
    start = time.perf_counter()
    if args.coverage:
        from benchmarks.anytime_sim import coverage_table

        table = coverage_table(args.reps)
    elif args.simulated:
        table = simulated(args.reps)
    else:
        table = summeval(args.reps, args.waves, args.seed)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
