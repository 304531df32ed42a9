"""Judges' false-positive/false-negative rates against the human label on TriviaQA.

"Judging the Judges" TriviaQA (``../shared/data/judging_the_judges_triviaqa``, see
:mod:`benchmarks.bench_bayes_multinomial`): 3,200 answers, 9 binary judges. Per label
draw 10% of the items keep their label (uniform, seed = draw), the Calibrator is
cross-fitted (5 folds) and ``judge_bias(0.9)`` gives each judge's ``fpr_human`` and
``fnr_human`` with 90% intervals (AEE ratio estimates,
:func:`bacon_bayes.judge_bias.human_rates`). Their targets are the 18 rates computed
from all 3,200 human labels. Reported per engine: the mean over draws of the share of
the 18 rates covered, the pooled coverage, coverage per rate, mean absolute error and
mean interval width; the labels-only rates (no surrogate) of the same draws beside them.

Run: ``python -m benchmarks human_rates`` (``BENCH_REPS`` frequentist draws, default
50; ``BENCH_BAYES_REPS`` Bayesian draws, default 1, minutes each). Skips when the data
set is absent.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes import estimate as est
from bacon_bayes.judge_bias import PSEUDO_EVENTS
from benchmarks.bench_bayes_multinomial import FRACTION, JUDGES, empirical_rates, load_triviaqa

REPS = int(os.environ.get("BENCH_REPS", "50"))
BAYES_REPS = int(os.environ.get("BENCH_BAYES_REPS", "1"))
LEVEL = 0.9
RATES = ("fpr", "fnr")


def labels_only(pool: EvalPool) -> pd.DataFrame:
    """The same rates from the labels alone (no surrogate), for comparison."""
    y = np.nan_to_num(pool.y)
    said = pool.judge_matrix().to_numpy(dtype=float).T
    out: dict[str, np.ndarray] = {}
    for q, a, b in (("fpr", said * (1 - y), 1 - y), ("fnr", (1 - said) * y, y)):
        r = est.aee_ratio(
            a,
            b,
            0 * a,
            0 * a,
            pool.labeled,
            alpha=1 - LEVEL,
            power_tuning=False,
            pseudo=PSEUDO_EVENTS,
        )
        out.update(
            {f"{q}_human": r.estimate, f"{q}_human_low": r.ci_low, f"{q}_human_high": r.ci_high}
        )
    return pd.DataFrame(out).clip(0.0, 1.0)


def one_draw(df: pd.DataFrame, truth: pd.DataFrame, engine: str, seed: int) -> pd.DataFrame:
    """One label draw: per judge and rate, estimate, interval and whether it covers (the
    frequentist engine's draws also give the labels-only rates)."""
    rng = np.random.default_rng(seed)
    frame = df.copy()
    frame["y"] = frame["truth"].where(rng.random(len(frame)) < FRACTION)
    pool = EvalPool.from_frame(frame, label="y", judges=JUDGES, outcome="categorical")
    start = time.perf_counter()
    cal = Calibrator("multinomial", engine=engine, seed=seed).fit(pool)
    tables = {engine: cal.judge_bias(LEVEL)}
    secs = time.perf_counter() - start
    if engine == "freq":
        tables["labels only"] = labels_only(pool)
    rows = []
    for name, table in tables.items():
        for q in RATES:
            t = truth[f"{q}_all_labels"].to_numpy()
            lo, hi = table[f"{q}_human_low"].to_numpy(), table[f"{q}_human_high"].to_numpy()
            for j, judge in enumerate(JUDGES):
                rows.append(
                    {
                        "engine": name,
                        "draw": seed,
                        "rate": f"{q} {judge}",
                        "truth": t[j],
                        "estimate": table[f"{q}_human"].iloc[j],
                        "width": hi[j] - lo[j],
                        "covers": bool(lo[j] <= t[j] <= hi[j]),
                        "seconds": secs,
                    }
                )
    return pd.DataFrame(rows)


def summarise(runs: pd.DataFrame) -> None:
    """Print coverage per draw and pooled, per rate, errors and widths, per engine."""
    for engine, part in runs.groupby("engine", sort=False):
        per_draw = part.groupby("draw")["covers"].mean()
        err = (part["estimate"] - part["truth"]).abs()
        print(
            f"\n{engine}: {per_draw.size} draws; mean coverage per draw {per_draw.mean():.3f} "
            f"(min {per_draw.min():.3f}, max {per_draw.max():.3f}); pooled "
            f"{int(part['covers'].sum())}/{len(part)} = {part['covers'].mean():.3f}; "
            f"mean |error| {err.mean():.4f}, max {err.max():.4f}; mean width "
            f"{part['width'].mean():.4f}; {part.groupby('draw')['seconds'].first().mean():.1f} s "
            "per fit + table"
        )
        by_rate = part.groupby("rate", sort=False).agg(
            truth=("truth", "first"),
            mean_estimate=("estimate", "mean"),
            mean_width=("width", "mean"),
            coverage=("covers", "mean"),
        )
        print(by_rate.to_string(float_format=lambda v: f"{v:.4f}"))


def main() -> None:
    df = load_triviaqa()
    if df is None:
        return
    truth = empirical_rates(df)
    print(
        f"TriviaQA: {len(df)} items, {FRACTION:.0%} labels, {LEVEL:.0%} intervals of 18 "
        f"rates; freq {REPS} draws, bayes {BAYES_REPS}; load before {os.getloadavg()[0]:.2f}"
    )
    runs = [one_draw(df, truth, "freq", seed) for seed in range(REPS)]
    for seed in range(BAYES_REPS):
        runs.append(one_draw(df, truth, "bayes", seed))
        print(f"bayes draw {seed}: {runs[-1]['covers'].sum()}/18 covered", flush=True)
    summarise(pd.concat(runs, ignore_index=True))
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
