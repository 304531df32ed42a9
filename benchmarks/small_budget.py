"""Small budgets: the frequentist small-budget rule's AEE against ppi-aipw on the same draws
(issue 35).

    PYTHONPATH=. .venv/bin/python -m benchmarks.small_budget [--trials 200] [--workers 2]
        [--data /tmp/data] [--variants small-budget,model] [--out small_budget.csv]
        [--pooled run0.csv,run1.csv]   # report earlier runs pooled (400 draws a table)

Tables: SummEval's four dimensions (the shipped ``bacon_bayes/data/summeval_sample.csv.gz``,
1,200 rows, label ``expert_mean_<dim>``, the 9 ``judge:*|<dim>`` columns), TriviaQA
(``DATA/trivia.csv``, 3,200 rows, binary label, 9 judges) and WMT22 zh-en
(``DATA/wmt22.parquet``, a fixed subsample of :data:`WMT_SEGMENTS` source segments with
all their systems' rows, label -MQM, 10 metrics), both written by ``python -m
benchmarks.comparison_data DATA``. Budgets 3% and 5% of each table, uniform draws. Every
trial's draw and folds are those of ``bacon simulate --seed 0`` (:func:`run_trial`), and
every row of a trial (our AEE with each surrogate variant, ppi-aipw's settings) sees the
same labeled items.

Variants of our AEE (``Calibrator(engine="freq", surrogates=...)``): ``small-budget``
(the opt-in rule ``surrogates=["small-budget"]``: :func:`bacon_bayes.surrogates.freq_default`),
``model`` (the model's surrogate alone, the default), ``judge_mean`` and ``pc1``
(the judge mean or the judges' first principal component beside the model's),
``pc1_alone`` and ``jm_alone`` (either alone, ``no_model``: PPI++ with it),
``judge_ridge`` (the judges' leave-one-out ridge alone, :mod:`bacon_bayes.judge_ridge`).

Prints, per table, RMSE, mean width and coverage of each row, its RMSE, width and
equal-coverage width (:func:`equal_coverage_width`) over ppi-aipw's (``prognostic_linear``),
then their geometric means over the tables with paired-bootstrap intervals. Measured in
EXPERIMENTS.md, "Small budgets" (2 min for ``--variants small-budget,model`` on 2 cores).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from bacon_bayes.simulation.montecarlo import SimulationSpec, run_trial
from bacon_bayes.workers import process_pool

SUMMEVAL = Path(__file__).resolve().parents[1] / "bacon_bayes/data/summeval_sample.csv.gz"
DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
TRIVIA_JUDGES = (
    "JudgeLM", "Gemma-2B", "Llama3-70B", "Llama-70B", "GPT-4", "Llama-7B", "Llama3-8B",
    "Llama-13B", "Mistral-7B",
)  # fmt: skip
WMT_METRICS = (
    "COMET-22-refA", "BLEURT-20-refA", "metricx_xxl_MQM_2020-refA", "COMETKiwi-src", "UniTE-refA",
    "MS-COMET-22-refA", "BERTScore-refA", "chrF-refA", "BLEU-refA", "SEScore-refA",
)  # fmt: skip
#: WMT22's subsample: this many source segments (seed 0), with every system's row of each
WMT_SEGMENTS = 150
BUDGETS = (0.03, 0.05)
VARIANTS: dict[str, tuple[str, ...] | None] = {
    "small-budget": ("small-budget",),
    "model": (),
    "judge_mean": ("judge_mean",),
    "pc1": ("judge_pc1",),
    "pc1_alone": ("judge_pc1", "no_model"),
    "jm_alone": ("judge_mean", "no_model"),
    "judge_ridge": ("judge_ridge", "no_model"),
}
PEER = "ppi-aipw"


def tables(data: Path) -> dict[str, tuple[pd.DataFrame, SimulationSpec]]:
    """The six tables with their base specs (label, judges, outcome)."""
    out: dict[str, tuple[pd.DataFrame, SimulationSpec]] = {}
    summeval = pd.read_csv(SUMMEVAL)
    for dim in DIMENSIONS:
        judges = tuple(
            c for c in summeval.columns if c.startswith("judge:") and c.endswith(f"|{dim}")
        )
        out[f"summeval_{dim}"] = (
            summeval,
            SimulationSpec(label=f"expert_mean_{dim}", judges=judges),
        )
    trivia = data / "trivia.csv"
    if trivia.exists():
        frame = pd.read_csv(trivia)
        spec = SimulationSpec(
            label="y", judges=TRIVIA_JUDGES, outcome="categorical", levels=(0.0, 1.0)
        )
        out["trivia"] = (frame, spec)
    else:
        print(f"skipped trivia: {trivia} is absent (python -m benchmarks.comparison_data {data})")
    wmt = data / "wmt22.parquet"
    if wmt.exists():
        frame = pd.read_parquet(wmt)
        segs = np.sort(frame["seg_id"].unique())
        keep = np.random.default_rng(0).choice(segs, WMT_SEGMENTS, replace=False)
        frame = frame[frame["seg_id"].isin(keep)].reset_index(drop=True)
        out["wmt22"] = (frame, SimulationSpec(label="y", judges=WMT_METRICS, outcome="nonnegative"))
    else:
        print(f"skipped wmt22: {wmt} is absent (python -m benchmarks.comparison_data {data})")
    return out


def one_trial(frame: pd.DataFrame, spec: SimulationSpec, budget: float, trial: int,
              variants: dict[str, tuple[str, ...] | None]) -> list[dict[str, Any]]:  # fmt: skip
    """Every row of one draw: each AEE variant, then ppi-aipw's settings."""
    rows: list[dict[str, Any]] = []
    for name, extras in variants.items():
        v = replace(spec, methods=("aee",), surrogates=extras, budgets=(budget,))
        for r in run_trial(frame, v, (budget, "uniform", trial)):
            rows.append({**r, "method": name})
    # the same labeled items: run_trial's draw, rebuilt from its seed
    v = replace(spec, methods=("ppi-aipw",), budgets=(budget,))
    for r in run_trial(frame, v, (budget, "uniform", trial)):
        rows.append(r)
    return rows


def _chunk(args: tuple) -> list[dict[str, Any]]:
    frame, spec, budget, trials, variants = args
    with threadpool_limits(limits=1):
        return [r for t in trials for r in one_trial(frame, spec, budget, t, variants)]


def summarise(trials: pd.DataFrame, truth: float) -> pd.DataFrame:
    """RMSE, mean width, coverage and trials per method."""
    t = trials.assign(err=trials["estimate"] - truth, width=trials["ci_high"] - trials["ci_low"])
    t["cover"] = (t["ci_low"] <= truth) & (truth <= t["ci_high"])
    g = t.groupby("method", sort=False)
    return pd.DataFrame({
        "rmse": g["err"].apply(lambda e: math.sqrt(float(np.mean(e**2)))),
        "width": g["width"].mean(),
        "coverage": g["cover"].mean(),
        "trials": g.size(),
    })  # fmt: skip


def band(trials: int, level: float = 0.95) -> tuple[float, float]:
    """The 99% binomial band of the coverage of ``trials`` draws at ``level``."""
    half = 2.576 * math.sqrt(level * (1 - level) / trials)
    return level - half, level + half


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--data", type=Path, default=Path("/tmp/data"))
    p.add_argument("--variants", default="small-budget,model")
    p.add_argument("--tables", default=None, help="comma-separated table names (all)")
    p.add_argument("--budgets", default=",".join(str(b) for b in BUDGETS))
    p.add_argument("--out", type=Path, default=None, help="write every trial's row here (csv)")
    p.add_argument("--seed", type=int, default=0, help="the trial seeds (bacon simulate --seed)")
    p.add_argument("--pooled", default=None, help="report earlier --out CSVs pooled (a,b)")
    args = p.parse_args(argv)
    variants = {k: VARIANTS[k] for k in args.variants.split(",")}
    budgets = tuple(float(b) for b in args.budgets.split(","))
    chosen = tables(args.data)
    if args.tables:
        chosen = {k: chosen[k] for k in args.tables.split(",")}
    if args.pooled:
        report(pooled(args.pooled.split(","), variants), chosen, args.out)
        return
    jobs = []
    for name, (frame, spec) in chosen.items():
        spec = replace(spec, seed=args.seed)
        for b in budgets:
            per = max(1, args.trials // (4 * args.workers))
            for start in range(0, args.trials, per):
                trials = range(start, min(start + per, args.trials))
                jobs.append((name, b, (frame, spec, b, trials, variants)))
    t0 = time.time()
    results: dict[tuple[str, float], list[dict[str, Any]]] = {}
    with process_pool(args.workers) as pool:
        futures = [(name, b, pool.submit(_chunk, job)) for name, b, job in jobs]
        for i, (name, b, f) in enumerate(futures, 1):
            results.setdefault((name, b), []).extend(f.result())
            if i % max(1, len(futures) // 20) == 0 or i == len(futures):
                print(f"  {i}/{len(futures)} chunks, {time.time() - t0:.0f} s", file=sys.stderr)
    report(results, chosen, args.out)


def pooled(paths: list[str], variants: dict) -> dict[tuple[str, float], list[dict[str, Any]]]:
    """Rows of several ``--out`` CSVs (e.g. ``--seed 0`` and ``--seed 1``) as one run:
    the ``variants`` and the peers, trial numbers made distinct per file."""
    frames = [pd.read_csv(p).assign(trial=lambda d, i=i: d["trial"] + 100_000 * i)
              for i, p in enumerate(paths)]  # fmt: skip
    t = pd.concat(frames, ignore_index=True)
    t = t[t["method"].isin([*variants, PEER, f"{PEER}-spline"])]
    return {
        (str(name), float(b)): g.drop(columns="table").to_dict("records")
        for (name, b), g in t.groupby(["table", "budget"], sort=False)
    }


def equal_coverage_width(trials: pd.DataFrame, truth: float) -> float:
    """Mean width after scaling every interval of a row by one factor so that 95% of the
    draws cover (the 95th percentile of |error| / half-width): widths compared at equal
    coverage, whatever each row's own coverage."""
    half = (trials["ci_high"] - trials["ci_low"]).to_numpy(float) / 2
    factor = np.quantile(np.abs(trials["estimate"].to_numpy(float) - truth) / half, 0.95)
    return float(factor * 2 * half.mean())


def _arrays(t: pd.DataFrame, truth: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per row: its errors and widths, in trial order."""
    out = {}
    for m, g in t.groupby("method"):
        g = g.sort_values("trial")
        out[str(m)] = (
            g["estimate"].to_numpy(float) - truth,
            (g["ci_high"] - g["ci_low"]).to_numpy(float),
        )
    return out


def _ratios(arr: dict, method: str, idx: np.ndarray | None = None) -> tuple[float, float]:
    """RMSE and mean width of ``method`` over ppi-aipw's on the trials ``idx`` (all: None)."""
    (ea, wa), (eb, wb) = arr[method], arr[PEER]
    if idx is not None:
        ea, wa, eb, wb = ea[idx], wa[idx], eb[idx], wb[idx]
    return float(np.sqrt(np.mean(ea**2) / np.mean(eb**2))), float(wa.mean() / wb.mean())


def report(results: dict, chosen: dict, out: Path | None, boot: int = 1000) -> None:
    """Print the per-table rows, then per row of ours the geometric means over the tables
    of its RMSE, width and equal-coverage width over ppi-aipw's, with 95% intervals from a
    paired bootstrap of the draws (the same draws resampled for both rows)."""
    head = (
        "| table | budget | labels | row | RMSE | width | coverage | RMSE / peer | width / peer |"
    )
    print(head + " equal-coverage width / peer |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    frames, per_table = [], []
    for (name, b), rows in results.items():
        frame, spec = chosen[name]
        truth = float(frame[spec.label].mean())
        t = pd.DataFrame(rows)
        frames.append(t.assign(table=name))
        s = summarise(t, truth)
        eq = {m: equal_coverage_width(t[t["method"] == m], truth) for m in s.index}
        arr = _arrays(t, truth)
        for method, r in s.iterrows():
            rr, rw = _ratios(arr, str(method))
            print(
                f"| {name} | {b:.0%} | {int(t['n_labels'].iloc[0])} | {method} | {r['rmse']:.4f} "
                f"| {r['width']:.4f} | {r['coverage']:.3f} | {rr:.3f} | {rw:.3f} "
                f"| {eq[method] / eq[PEER]:.3f} |"
            )
        per_table.append((arr, s, eq))
    print()
    rng = np.random.default_rng(0)
    ours = [m for m in per_table[0][1].index if m != PEER]
    for m in ours:
        point = np.array([_ratios(arr, m) for arr, _, _ in per_table])
        eqw = np.array([eq[m] / eq[PEER] for _, _, eq in per_table])
        draws = []
        for _ in range(boot):
            r = []
            for arr, _, _ in per_table:
                k = len(arr[PEER][0])
                r.append(_ratios(arr, m, rng.integers(0, k, k)))
            draws.append(np.exp(np.log(np.array(r)).mean(axis=0)))
        lo, hi = np.quantile(np.array(draws), [0.025, 0.975], axis=0)
        geo = np.exp(np.log(point).mean(axis=0))
        print(
            f"{m} / {PEER} over {len(point)} tables: RMSE geometric mean {geo[0]:.3f} "
            f"[{lo[0]:.3f}, {hi[0]:.3f}], max {point[:, 0].max():.3f}; width {geo[1]:.3f} "
            f"[{lo[1]:.3f}, {hi[1]:.3f}], max {point[:, 1].max():.3f}; equal-coverage width "
            f"{np.exp(np.log(eqw).mean()):.3f}, max {eqw.max():.3f}"
        )
    trials = len(per_table[0][0][PEER][0])
    lo, hi = band(trials)
    print(f"coverage band (99% of {trials} draws at 0.95): [{lo:.3f}, {hi:.3f}]")
    if out is not None:
        pd.concat(frames).to_csv(out, index=False)
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
