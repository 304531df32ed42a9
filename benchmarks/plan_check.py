"""Does ``bacon plan`` predict what ``bacon simulate`` measures? (issue 32, Done-when 2)

Reads one or more ``bacon simulate`` output folders of a table (``trials.parquet`` and
``settings.json``; the table's label, judges, outcome, groups and prompts are taken from
the settings) and, for each design they hold that the plan lists, compares

* the plan's predicted CI half-width of the pool mean at the simulated budget (designs
  drawing every label themselves: ``from_scratch``) with the simulated mean half-width,
  ``mean((ci_high - ci_low) / 2)`` of the ``aee`` rows;
* the plan's predicted power for a named pair (default: the pair whose simulated uniform
  power is nearest 0.5) at its true difference with the simulated power, the share of
  trials whose pointwise ``diff:<a - b>`` interval excludes 0.

The plan is made from ``--pilots`` pilots of ``--pilot-share`` of the table (3%), each a
uniform draw of items (``--pilot-design uniform``) or of prompts (``paired``). Printed per
design: the first pilot's ratio (the check as stated) and, over the pilots, the mean and sd
of the predicted/simulated half-width ratio and of the power difference, and the share of
pilots meeting the check (ratio within 10% of 1, power within 0.07).

Usage::

    python -m benchmarks.plan_check /tmp/data/trivia.csv /tmp/runs/trivia \\
        /tmp/runs-plan/trivia [--pilots 20] [--pair "A - B"] [--pilot-design paired]

Tables: ``python -m benchmarks.comparison_data /tmp/data``; runs: the commands in
EXPERIMENTS.md (``--trials 200 --budgets 0.1``).

``python -m benchmarks.plan_check estimator TABLE [--pair "A - B"] [--trials 1000]
[--cells uniform:24]`` (issue 40 point 4): no simulate folders; the plan's difference goal
(the pair at its true gap, power 0.8) from ``--pilots`` uniform pilots, and at the first
pilot's labels needed per design (uniform, stratified, paired; plus uniform at the
recommended design's budget, and ``--cells``) the estimator itself over ``--trials``
draws from scratch (``Calibrator`` defaults, ``compare_groups`` pointwise, pooling auto):
realised power (a withheld interval counts as not detected), the pair's mean half-width
where given, the share withheld and the share of shrunk tables, beside the plan's
predictions (first pilot, and mean and sd over the pilots) and today's closed form
(separate means, nothing withheld). Defaults: the shipped SummEval sample, relevance.

Measured (20 uniform 3% pilots; estimators of main d9290e9): TriviaQA (96 pilot labels,
about 11 pairs of one prompt), named pair llama2-13b-base - llama2-13b-chat: pool-mean
half-width predicted/simulated uniform 1.05 +- 0.15, stratified 1.03 +- 0.15, paired
0.96 +- 0.14 (0.67 +- 0.13 when the within-prompt correlation is shrunk to 0 instead of
toward the judges' prior), adaptive 1.00 +- 0.25; power predicted - simulated uniform
-0.04 +- 0.11, stratified +0.06 +- 0.11, paired +0.06 +- 0.12, adaptive +0.03 +- 0.20. The spread is
the pilot's: its pool residual variance has a coefficient of variation of 0.30 over
pilots (a few effective surprises among 96 binary labels), so about 0.15 on a
half-width, and a single 3% pilot meets the 10% / 0.07 check only by luck (20-30% of
pilots). WMT22 (900 pilot labels; 10 pilots): stratified 1.03 +- 0.07, adaptive 1.04 +-
0.07 (pilot residual variance cv 0.12).

After the self-normalised within-prompt correlation (the runs of EXPERIMENTS.md, uniform
and paired reproduced on 10 trials by this code), first pilot (mean +- sd over pilots):
WMT22, named pair HuaweiTSC - Online-W, half-width uniform 0.97 (1.03 +- 0.07), paired
0.88 (0.97 +- 0.10); power uniform -0.04 (-0.07 +- 0.06), paired -0.10 (-0.10 +- 0.10).
TriviaQA (20 pilots): paired 0.87 (0.98 +- 0.15), power +0.16 (+0.07 +- 0.13). Paired
misses on WMT22: the pilot's correlation has sd 0.05-0.08 over pilots and the named
pair's own correlation (0.47) is above the average one (0.37) with nothing in a 3% pilot
to tell (EXPERIMENTS.md, issue 32).

SummEval relevance (12 systems x 100 articles; 3% pilot: 36 labels, about 3 per system),
named pair M14 - M22, 20 pilots, runs of 200 trials at 10% (uniform,paired and
stratified,adaptive; adaptive falls back to uniform in every trial, as the plan predicts):
first pilot (mean +- sd) half-width uniform 1.00 (1.02 +- 0.13), stratified 1.00 (1.01 +-
0.13), paired 1.02 (1.03 +- 0.14), adaptive 1.00 (1.02 +- 0.13); power uniform -0.05
(-0.05 +- 0.12), stratified -0.08 (-0.08 +- 0.11), paired -0.05 (-0.05 +- 0.12),
adaptive -0.05. Before the pool's residual variance was taken around its overall mean
(it was the groups' variances plus the spread of their residual means, 3 noisy labels
each) and the group df followed the estimator's moderated t: uniform 1.28 (1.36 +-
0.36), power -0.10 (-0.09 +- 0.11). A 36-label pilot cannot do better than about +-0.12
on a half-width: the pilot's pool residual variance has a coefficient of variation of
0.235 over 40 pilots (a sample variance of 36 normal labels has sqrt(2 / 35) = 0.24), so
the predicted half-width's is about 0.12, and an unbiased plan falls within 10% in about
3 pilots of 5 (2 Phi(0.10 / 0.12) - 1 = 0.59); the pair's variance has cv 0.25, the
predicted power's sd is 0.10 (within 0.07 about half the time), before the simulated
power's own binomial sd (0.035). The pair's residuals are tighter than the average
system's (M14 0.40, M22 0.31 against 0.45, all labels), which 3 labels each cannot show:
the power leans low (-0.05).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.planning import DESIGNS, Goal, pilot_statistics, plan, predict
from bacon_bayes.planning.outlook import power_t as _power_t
from bacon_bayes.planning.search import Evaluator
from bacon_bayes.sampling.designs import stratified, uniform
from bacon_bayes.sampling.paired import paired, prompts_for_budget

HALF_WIDTH_TOL, POWER_TOL = 0.10, 0.07


def load_runs(folders: list[Path]) -> tuple[dict[str, Any], pd.DataFrame]:
    """The first folder's settings and the ``aee`` rows of every folder's trials."""
    settings = json.loads((folders[0] / "settings.json").read_text())
    frames = [pd.read_parquet(f / "trials.parquet") for f in folders]
    trials = pd.concat(frames, ignore_index=True, sort=False)
    return settings, trials[trials["method"] == "aee"]


def simulated(trials: pd.DataFrame, pair: str) -> pd.DataFrame:
    """Per design: trials, mean pool-mean half-width, and the pair's power (pointwise
    interval excludes 0, over the trials that have the pair)."""
    rows = []
    for design, t in trials.groupby("design"):
        lo, hi = t[f"diff:{pair}:ci_low"], t[f"diff:{pair}:ci_high"]
        ok = lo.notna() & hi.notna()
        rows.append({
            "design": design, "trials": len(t), "budget": float(t["budget"].iloc[0]),
            "half_width": float(((t["ci_high"] - t["ci_low"]) / 2).mean()),
            "power": float(((lo[ok] > 0) | (hi[ok] < 0)).mean()), "pair_trials": int(ok.sum()),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("design")


def default_pair(trials: pd.DataFrame) -> str:
    """The pair whose simulated uniform power (else the first design's) is nearest 0.5."""
    design = "uniform" if (trials["design"] == "uniform").any() else trials["design"].iloc[0]
    t = trials[trials["design"] == design]
    names = [c[5:-7] for c in t.columns if c.startswith("diff:") and c.endswith(":ci_low")]
    power = {n: float(((t[f"diff:{n}:ci_low"] > 0) | (t[f"diff:{n}:ci_high"] < 0)).mean())
             for n in names}  # fmt: skip
    return min(names, key=lambda n: abs(power[n] - 0.5))


def table_pool(
    frame: pd.DataFrame, s: dict[str, Any], labeled: np.ndarray, design: Any
) -> EvalPool:
    data = frame.copy()
    data[s["label"]] = np.where(labeled, frame[s["label"]].to_numpy(float), np.nan)
    extra: dict[str, Any] = {}
    if design is not None:
        data["_pi"], data["_b"] = design.pi, design.pi_prompt
        extra = {"propensity": "_pi", "prompt_propensity": "_b"}
    return EvalPool.from_frame(
        data, label=s["label"], judges=list(s["judges"]), outcome=s["outcome"],
        levels=s["levels"], group=s["group"], prompt=s["prompt"], **extra,
    )  # fmt: skip


def pilot_draw(frame: pd.DataFrame, s: dict[str, Any], share: float, how: str, seed: int):
    """A pilot of ``share`` of the table: items (uniform) or prompts (paired)."""
    n = round(share * len(frame))
    if how == "uniform":
        return uniform(len(frame), n, seed=seed).selected, None
    prompts = frame[s["prompt"]].astype(str).to_numpy()
    d = paired(prompts, prompts_for_budget(prompts, n), seed=seed)
    return d.selected, d


def predictions(
    frame: pd.DataFrame, s: dict[str, Any], designs: list[str], budget: float, pair: str,
    share: float, how: str, seed: int,
) -> dict[str, dict[str, float]]:  # fmt: skip
    """One pilot's predicted pool-mean half-width and power of ``pair`` per design."""
    labeled, design = pilot_draw(frame, s, share, how, seed)
    st = pilot_statistics(table_pool(frame, s, labeled, design))
    a_name, b_name = pair.split(" - ")
    a, b = st.names.index(a_name), st.names.index(b_name)
    y, g = frame[s["label"]].to_numpy(float), frame[s["group"]].astype(str)
    delta = abs(float(y[g == a_name].mean() - y[g == b_name].mean()))
    alpha = float(s.get("alpha", 0.05))
    out = {}
    for d in designs:
        p = predict(st, d, budget * len(frame), from_scratch=True)
        se_d = math.sqrt(max(p.cov[a, a] + p.cov[b, b] - 2 * p.cov[a, b], 0.0))
        crit = float(stats.t.isf(alpha / 2, p.df_pool))
        out[d] = {
            "half_width": crit * math.sqrt(p.var_pool),
            "power": _power_t(delta, se_d, float(min(p.df[a], p.df[b])), alpha),
            "rho": st.rho,
            "rho_raw": st.rho_raw,
            "n_pairs": st.n_pairs,
        }
    return out


def check(
    table: Path, runs: list[Path], *, pilots: int = 20, share: float = 0.03,
    how: str = "uniform", pair: str | None = None, seed: int = 12345,
) -> pd.DataFrame:  # fmt: skip
    """Predicted against simulated, per design and pilot (one row each)."""
    s, trials = load_runs(runs)
    frame = pd.read_parquet(table) if table.suffix == ".parquet" else pd.read_csv(table)
    pair = pair or default_pair(trials)
    sim = simulated(trials, pair)
    designs = [d for d in DESIGNS if d in sim.index]
    budget = float(sim["budget"].iloc[0])
    rows = []
    for k in range(pilots):
        pred = predictions(frame, s, designs, budget, pair, share, how, seed + k)
        for d in designs:
            rows.append({
                "pilot": k, "design": d, "pair": pair,
                **{f"pred_{m}": v for m, v in pred[d].items()},
                **{f"sim_{m}": sim.loc[d, m] for m in ("half_width", "power", "trials")},
            })  # fmt: skip
    out = pd.DataFrame(rows)
    out["ratio"] = out["pred_half_width"] / out["sim_half_width"]
    out["power_diff"] = out["pred_power"] - out["sim_power"]
    out["met"] = ((out["ratio"] - 1).abs() <= HALF_WIDTH_TOL) & (
        out["power_diff"].abs() <= POWER_TOL
    )
    return out


def summary(out: pd.DataFrame) -> pd.DataFrame:
    """Per design: the first pilot's figures and the spread over pilots."""
    first = out[out["pilot"] == out["pilot"].min()].set_index("design")
    agg = out.groupby("design", sort=False).agg(
        ratio_mean=("ratio", "mean"), ratio_sd=("ratio", "std"),
        power_diff_mean=("power_diff", "mean"), power_diff_sd=("power_diff", "std"),
        met_share=("met", "mean"), rho_mean=("pred_rho", "mean"), rho_sd=("pred_rho", "std"),
    )  # fmt: skip
    res = pd.concat([first[["sim_trials", "sim_half_width", "pred_half_width", "ratio",
                            "sim_power", "pred_power", "power_diff"]], agg], axis=1)  # fmt: skip
    return res


# --- bacon plan models the estimator (issue 40 point 4) --------------------------------


def spec_from_args(args: argparse.Namespace, frame: pd.DataFrame) -> dict[str, Any]:
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith(args.judges)]
    return {
        "label": args.label, "judges": judges, "outcome": "continuous", "levels": None,
        "group": args.group, "prompt": args.prompt, "alpha": args.alpha,
    }  # fmt: skip


def draw(frame: pd.DataFrame, s: dict[str, Any], design: str, n: int, seed: int):
    """One trial's labels and design (None: uniform items) drawn from scratch."""
    if design == "uniform":
        return uniform(len(frame), n, seed=seed).selected, None
    if design == "stratified":
        d = stratified(frame[s["group"]].astype(str).to_numpy(), n, seed=seed)
        return d.selected, d.pi
    prompts = frame[s["prompt"]].astype(str).to_numpy()
    d = paired(prompts, prompts_for_budget(prompts, n), seed=seed)
    return d.selected, d


def trial_pool(frame: pd.DataFrame, s: dict[str, Any], labeled: np.ndarray, design: Any):
    if design is None or hasattr(design, "pi_prompt"):
        return table_pool(frame, s, labeled, design)
    data = frame.assign(**{s["label"]: np.where(labeled, frame[s["label"]], np.nan)})
    data["_pi"] = design
    return EvalPool.from_frame(
        data, label=s["label"], judges=list(s["judges"]), outcome=s["outcome"],
        group=s["group"], prompt=s["prompt"], propensity="_pi",
    )  # fmt: skip


def realised(
    frame: pd.DataFrame, s: dict[str, Any], design: str, n: int, pair: str, trials: int,
    seed: int,
) -> dict[str, float]:  # fmt: skip
    """The estimator (Calibrator defaults, ``compare_groups`` pointwise, pooling auto) over
    ``trials`` draws: the pair's power (a withheld interval counts as not detected), its
    mean half-width where given, the share withheld and the share of shrunk tables."""
    reject = answered = shrunk = 0
    widths = []
    for t in range(trials):
        labeled, d = draw(frame, s, design, n, seed + t)
        cal = Calibrator(engine="freq").fit(trial_pool(frame, s, labeled, d))
        table = cal.compare_groups(s["alpha"], False)
        k = table.names.index(pair)
        lo, hi = float(table.ci_low[k]), float(table.ci_high[k])
        shrunk += table.details.get("pooling") == "shrink"
        if np.isfinite(lo) and np.isfinite(hi):
            answered += 1
            widths.append((hi - lo) / 2.0)
            reject += lo > 0 or hi < 0
    power = reject / trials
    return {
        "power": power, "power_se": math.sqrt(max(power * (1 - power), 1e-4) / trials),
        "half_width": float(np.mean(widths)) if widths else math.nan,
        "withheld": 1.0 - answered / trials, "shrunk": shrunk / trials,
    }  # fmt: skip


def estimator_check(args: argparse.Namespace) -> pd.DataFrame:
    """Plans from ``--pilots`` uniform pilots (difference goal: the named pair at its true
    gap, power ``--power``); the first pilot's labels needed per design are the cells
    (plus uniform at the recommended design's budget), simulated ``--trials`` times."""
    frame = (
        pd.read_csv(args.table) if args.table.suffix != ".parquet" else pd.read_parquet(args.table)
    )
    s = spec_from_args(args, frame)
    a_name, b_name = args.pair.split(" - ")
    y, g = frame[s["label"]].to_numpy(float), frame[s["group"]].astype(str)
    delta = abs(float(y[g == a_name].mean() - y[g == b_name].mean()))
    goal = Goal("difference", pair=(a_name, b_name), delta=delta, power=args.power)
    designs = ("uniform", "stratified", "paired")
    plans, evs = [], []
    for k in range(args.pilots):
        labeled, d = pilot_draw(frame, s, args.pilot_share, "uniform", args.seed + k)
        pool = table_pool(frame, s, labeled, d)
        res = plan(pool, goal, designs=designs, from_scratch=True, alpha=args.alpha)
        plans.append(res)
        evs.append(Evaluator(res.pilot, goal, args.alpha, True))
    first = plans[0]
    need = {r.design: r.labels_needed for r in first.designs}
    cells = [(d, need[d]) for d in designs if need[d] is not None]
    rec = first.recommended
    if rec not in (None, "uniform") and need[rec] != need["uniform"]:
        cells.append(("uniform", need[rec]))
    for cell in (args.cells or "").split(","):  # e.g. uniform:24 (a budget that withholds)
        if cell:
            design, n_text = cell.split(":")
            cells.append((design, int(n_text)))
    rows = []
    for design, n in cells:
        pred = [ev.details(design, n) for ev in evs]
        # today's closed form (before issue 40): separate means, nothing withheld
        pt = predict(evs[0].st, design, n, from_scratch=True)
        a, b = (evs[0].names.index(v) for v in (a_name, b_name))
        se_d = math.sqrt(max(pt.cov[a, a] + pt.cov[b, b] - 2 * pt.cov[a, b], 0.0))
        old = _power_t(delta, se_d, float(min(pt.df[a], pt.df[b])), args.alpha)
        sim = realised(frame, s, design, n, args.pair, args.trials, 7_000_000 + n)
        rows.append({
            "design": design, "labels": n,
            "recommended": rec == design and n == need[design],
            "pred_power": pred[0]["power"],
            "pred_power_mean": float(np.mean([p["power"] for p in pred])),
            "pred_power_sd": float(np.std([p["power"] for p in pred], ddof=1)),
            "old_pred_power": old,
            "sim_power": sim["power"], "sim_power_se": sim["power_se"],
            "power_diff": pred[0]["power"] - sim["power"],
            "pred_half_width": pred[0]["half_width"],
            "pred_half_width_mean": float(np.mean([p["half_width"] for p in pred])),
            "sim_half_width": sim["half_width"],
            "hw_ratio": pred[0]["half_width"] / sim["half_width"],
            "pred_withheld": pred[0]["withheld"], "sim_withheld": sim["withheld"],
            "pred_shrink": pred[0]["p_shrink"], "sim_shrunk": sim["shrunk"],
        })  # fmt: skip
        print(rows[-1], flush=True)
    out = pd.DataFrame(rows)
    out.attrs["recommended"] = [r.recommended for r in plans]
    return out


def estimator_main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.plan_check estimator")
    p.add_argument("table", type=Path)
    p.add_argument("--label", default="expert_mean_relevance")
    p.add_argument("--judges", default="|relevance", help="judge columns end with this")
    p.add_argument("--group", default="system")
    p.add_argument("--prompt", default="doc_id")
    p.add_argument("--pair", default="M15 - M23")
    p.add_argument("--power", type=float, default=0.8)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--pilots", type=int, default=20)
    p.add_argument("--pilot-share", type=float, default=0.03)
    p.add_argument("--trials", type=int, default=400)
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--cells", help="more cells, design:labels comma-separated (uniform:24)")
    args = p.parse_args(argv)
    out = estimator_check(args)
    recs = pd.Series(out.attrs["recommended"]).value_counts().to_dict()
    print(f"{args.table.name}: pair {args.pair}, {args.pilots} uniform pilots of "
          f"{args.pilot_share:.0%}, {args.trials} trials per cell; recommended {recs}")  # fmt: skip
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(out.round(4).to_string())


def main(argv: list[str] | None = None) -> None:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "estimator":
        estimator_main(argv[1:])
        return
    p = argparse.ArgumentParser(prog="python -m benchmarks.plan_check")
    p.add_argument("table", type=Path, help="the table the runs simulated (csv or parquet)")
    p.add_argument("runs", type=Path, nargs="+", help="`bacon simulate` output folders")
    p.add_argument("--pilots", type=int, default=20)
    p.add_argument("--pilot-share", type=float, default=0.03)
    p.add_argument("--pilot-design", choices=("uniform", "paired"), default="uniform")
    p.add_argument("--pair", help="the named pair, 'A - B' as in the trials' diff: columns")
    args = p.parse_args(argv)
    out = check(args.table, args.runs, pilots=args.pilots, share=args.pilot_share,
                how=args.pilot_design, pair=args.pair)  # fmt: skip
    print(f"{args.table.name}: pair {out['pair'].iloc[0]}, {args.pilots} {args.pilot_design} "
          f"pilots of {args.pilot_share:.0%}")  # fmt: skip
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(summary(out).round(4).to_string())


if __name__ == "__main__":
    main()
