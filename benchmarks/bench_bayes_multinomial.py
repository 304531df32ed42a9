"""Bayesian multinomial (Dawid-Skene) vs the frequentist multinomial on TriviaQA.

"Judging the Judges" TriviaQA (``../shared/data/judging_the_judges_triviaqa``):
3,200 answers with a binary human judgement and 9 binary LLM judges. For each
repetition, 10% of the items keep their label (uniform draw, seed = repetition);
both engines are cross-fitted (5 folds) on the same pool. Reported per engine,
averaged over repetitions:

* surrogate quality on all 3,200 items against their true labels (out-of-fold
  for labeled items, fold average for the rest): log-loss, accuracy at 0.5 and
  R^2 of P(correct);
* the pool mean (share judged correct): AEE standard error and 95% CI width,
  beside the classical (labels only) and naive (judge average) intervals, and
  whether each CI covers the full-data share;
* Bayesian only: each judge's false-positive/false-negative rate (posterior
  mean, 90% interval pooled over folds) against the rates computed from all
  3,200 human labels, and the convergence of every fold fit.

Run: ``python -m benchmarks bayes_multinomial`` (``REPS`` repetitions; skips when
the data set is absent). Timings are reported with the machine load.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from benchmarks.adaptive_experiment import find_shared_data

RELATIVE = Path("judging_the_judges_triviaqa/TriviaQA_Judges_w_HumanJudgement_V2.csv.gz")
JUDGES = [
    "JudgeLM",
    "Gemma-2B",
    "Llama3-70B",
    "Llama-70B",
    "GPT-4",
    "Llama-7B",
    "Llama3-8B",
    "Llama-13B",
    "Mistral-7B",
]
FRACTION = 0.1
REPS = int(os.environ.get("BENCH_REPS", "3"))
ALPHA = 0.05


def load_frame(path: Path) -> pd.DataFrame:
    """The 3,200 labelled rows, judges and label as 0/1 floats."""
    df = pd.read_csv(path)
    df = df[df["Human-Eval"].notna()].reset_index(drop=True)
    out = df[JUDGES].astype(float)
    out["truth"] = df["Human-Eval"].astype(float)
    return out


def surrogate_quality(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Log-loss, accuracy and R^2 of probabilities ``p`` for 0/1 labels ``y``."""
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return {
        "logloss": float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q))),
        "accuracy": float(np.mean((p > 0.5) == (y == 1))),
        "r2": float(1 - np.mean((y - p) ** 2) / np.var(y)),
    }


def one_rep(df: pd.DataFrame, seed: int) -> tuple[list[dict], pd.DataFrame | None]:
    rng = np.random.default_rng(seed)
    frame = df.copy()
    frame["y"] = frame["truth"].where(rng.random(len(frame)) < FRACTION)
    pool = EvalPool.from_frame(frame, label="y", judges=JUDGES, outcome="categorical")
    truth = float(frame["truth"].mean())
    rows, bias = [], None
    for engine in ("bayes", "freq"):
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cal = Calibrator("multinomial", engine=engine, seed=seed).fit(pool)
        secs = time.perf_counter() - start
        row = {"rep": seed, "engine": engine, "n_labeled": pool.n_labeled, "seconds": secs}
        row.update(surrogate_quality(cal.surrogate_, frame["truth"].to_numpy()))
        methods = ("aee", "classical", "naive") if engine == "bayes" else ("aee",)
        for m in methods:
            e = cal.estimate_mean(ALPHA, m)
            name = "aee" if m == "aee" else m
            row[f"{name}_se"] = e.se
            row[f"{name}_width"] = e.width
            row[f"{name}_covers"] = bool(e.ci_low <= truth <= e.ci_high)
        if engine == "bayes":
            diags = [m.diagnostics_ for m in cal.crossfit_.models]
            row["max_rhat"] = max(d.max_rhat for d in diags)
            row["divergent"] = sum(d.n_divergent for d in diags)
            row["min_ess_bulk"] = min(d.min_ess_bulk for d in diags)
            row["warnings"] = len(caught)
            bias = cal.judge_bias(level=0.9)
        rows.append(row)
    return rows, bias


def empirical_rates(df: pd.DataFrame) -> pd.DataFrame:
    """False-positive and false-negative rate of each judge against all human labels."""
    y = df["truth"].to_numpy()
    return pd.DataFrame(
        {
            "judge": JUDGES,
            "fpr_all_labels": [float(df.loc[y == 0, j].mean()) for j in JUDGES],
            "fnr_all_labels": [float(1 - df.loc[y == 1, j].mean()) for j in JUDGES],
        }
    )


def load_triviaqa() -> pd.DataFrame | None:
    """The shared data set's frame (:func:`load_frame`), or None (said) when it is absent."""
    path = find_shared_data(RELATIVE)
    if path is None:
        print(f"skipped: shared/data/{RELATIVE} is absent (set BACON_SHARED_DATA)")
        return None
    return load_frame(path)


def main() -> None:
    df = load_triviaqa()
    if df is None:
        return
    print(
        f"TriviaQA: {len(df)} items, {len(JUDGES)} binary judges, {FRACTION:.0%} labels, "
        f"{REPS} repetitions; load before: {os.getloadavg()[0]:.2f}"
    )
    rows, first_bias = [], None
    for r in range(REPS):
        got, bias = one_rep(df, r)
        rows.extend(got)
        first_bias = first_bias if first_bias is not None else bias
        for g in got:
            print({k: round(v, 4) if isinstance(v, float) else v for k, v in g.items()}, flush=True)
    table = pd.DataFrame(rows)
    cols = ["logloss", "accuracy", "r2", "aee_se", "aee_width", "aee_covers", "seconds"]
    summary = table.groupby("engine")[cols].mean()
    base = table[table.engine == "bayes"][
        [
            "classical_se",
            "classical_width",
            "classical_covers",
            "naive_se",
            "naive_width",
            "naive_covers",
        ]
    ].mean()
    print("\nmean over repetitions:")
    print(summary.to_string(float_format=lambda v: f"{v:.4f}"))
    print(base.to_string(float_format=lambda v: f"{v:.4f}"))
    se, secs = summary["aee_se"], summary["seconds"]
    print(
        f"SE ratio bayes/freq: {se['bayes'] / se['freq']:.3f}; "
        f"time ratio bayes/freq: {secs['bayes'] / secs['freq']:.1f}"
    )
    conv = table[table.engine == "bayes"][["max_rhat", "divergent", "min_ess_bulk", "warnings"]]
    print("\nconvergence of the Bayesian cross-fits:\n" + conv.to_string())
    if first_bias is not None:
        merged = first_bias.merge(empirical_rates(df), on="judge")
        print("\njudge bias (rep 0, 90% intervals) vs rates from all labels:")
        for ref in ("", "_human"):
            cols = ["judge"] + [
                f"{q}{ref}{s}" for q in ("fpr", "fnr") for s in ("", "_low", "_high")
            ]
            print(
                merged[[*cols, "fpr_all_labels", "fnr_all_labels"]].to_string(
                    index=False, float_format=lambda v: f"{v:.3f}"
                )
            )
            inside = sum(
                int(
                    (
                        (merged[f"{q}{ref}_low"] <= merged[f"{q}_all_labels"])
                        & (merged[f"{q}_all_labels"] <= merged[f"{q}{ref}_high"])
                    ).sum()
                )
                for q in ("fpr", "fnr")
            )
            print(f"fpr/fnr{ref}: {inside} of {2 * len(merged)} inside their 90% interval")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
