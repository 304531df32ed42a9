"""Every pilot's ``bacon plan`` recommendation against the estimator's realised power
(issue 40 point 4, "Done when": within 0.07 of the predicted power at the recommended
budget; never more than 0.03 below uniform's realised power).

Realised power of a (design, budget) does not depend on the pilot (each trial draws its
labels from scratch), so instead of one set of cells per pilot:

``plans``  every pilot's plan (``benchmarks.plan_check estimator``'s pilots and goal):
           recommended design, its labels needed, the predicted power there, and
           uniform's predicted power at that budget; one csv row per (pair, pilot).
``curve``  the estimator's realised power (``plan_check.realised``, same seeds) of one
           design on a grid of budgets; one csv row per cell, appended as it finishes.
``details`` one pilot's predicted power, half-width and chance of shrinking beside the
           grid's realised ones.
``critical`` the pair's se and critical value: the estimator's against the plan's.
``report`` the realised power at each pilot's budget, interpolated linearly in labels
           between grid points (a budget outside the grid is an error; rows of one
           cell run with other ``--seed-offset`` are pooled), for the
           recommendation and for uniform; per pair (a) predicted - realised and (b) the
           recommendation's realised power minus uniform's, with Monte Carlo errors from a
           parametric bootstrap of the grid cells (binomial redraws of each cell);
           ``--own``: each design at its own labels needed, over all pilots; ``--fit
           probit``: the binomial fit ``Phi(a + b sqrt(labels))`` instead of linear.

Usage (SummEval sample, relevance; see EXPERIMENTS.md)::

    python -m benchmarks.plan_pilots plans --out /tmp/plans.csv
    python -m benchmarks.plan_pilots curve --pair "M11 - M17" --design stratified \\
        --labels 50,60,70 --trials 300 --out /tmp/curves.csv
    python -m benchmarks.plan_pilots report /tmp/plans.csv /tmp/curves.csv
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize, stats

from bacon_bayes.planning import Goal, plan
from bacon_bayes.planning.search import Evaluator
from benchmarks.plan_check import pilot_draw, realised, spec_from_args, table_pool

PAIRS = ("M11 - M17", "M11 - M13", "M15 - M23")
DESIGNS = ("uniform", "stratified", "paired")
POWER_TOL, BELOW_UNIFORM = 0.07, 0.03
DEFAULT_TABLE = Path("bacon_bayes/data/summeval_sample.csv.gz")


def _frame(args: argparse.Namespace) -> tuple[pd.DataFrame, dict]:
    frame = pd.read_csv(args.table)
    return frame, spec_from_args(args, frame)


def _goal(frame: pd.DataFrame, s: dict, pair: str, power: float) -> Goal:
    a, b = pair.split(" - ")
    y, g = frame[s["label"]].to_numpy(float), frame[s["group"]].astype(str)
    delta = abs(float(y[g == a].mean() - y[g == b].mean()))
    return Goal("difference", pair=(a, b), delta=delta, power=power)


def plans(args: argparse.Namespace) -> pd.DataFrame:
    """One row per (pair, pilot): the recommendation and the predicted powers."""
    frame, s = _frame(args)
    rows = []
    for pair in args.pairs.split(","):
        goal = _goal(frame, s, pair, args.power)
        for k in range(args.pilots):
            labeled, d = pilot_draw(frame, s, args.pilot_share, "uniform", args.seed + k)
            res = plan(table_pool(frame, s, labeled, d), goal, designs=DESIGNS,
                       from_scratch=True, alpha=args.alpha)  # fmt: skip
            ev = Evaluator(res.pilot, goal, args.alpha, True)
            need = {r.design: r.labels_needed for r in res.designs}
            rec = res.recommended
            n = need.get(rec) if rec else None
            row = {"pair": pair, "pilot": k, "recommended": rec, "labels": n,
                   **{f"need_{d}": need.get(d) for d in DESIGNS}}  # fmt: skip
            if n is not None:
                row["pred_power"] = ev.details(rec, n)["power"]
                row["pred_power_uniform"] = ev.details("uniform", n)["power"]
            for d in DESIGNS:  # each design at its own labels needed
                if need.get(d) is not None:
                    row[f"pred_{d}"] = ev.details(d, need[d])["power"]
            rows.append(row)
            print(row, flush=True)
    return pd.DataFrame(rows)


def details(args: argparse.Namespace) -> pd.DataFrame:
    """One pilot's predicted power, pair half-width and chance of shrinking per design at
    each budget, beside the grid's realised figures (the cell's first row)."""
    frame, s = _frame(args)
    goal = _goal(frame, s, args.pair, args.power)
    labeled, d = pilot_draw(frame, s, args.pilot_share, "uniform", args.seed + args.pilot)
    res = plan(table_pool(frame, s, labeled, d), goal, designs=DESIGNS, from_scratch=True,
               alpha=args.alpha)  # fmt: skip
    ev = Evaluator(res.pilot, goal, args.alpha, True)
    c = pd.read_csv(args.curves).drop_duplicates(["pair", "design", "labels"])
    c = c[c["pair"] == args.pair].set_index(["design", "labels"])
    rows = []
    for design in args.designs.split(","):
        for n in (int(v) for v in args.labels.split(",")):
            p = ev.details(design, n)
            r = c.loc[(design, n)]
            rows.append({"design": design, "labels": n, "pred_power": p["power"],
                         "real_power": r["power"], "pred_half_width": p["half_width"],
                         "real_half_width": r["half_width"], "pred_shrink": p["p_shrink"],
                         "real_shrunk": r["shrunk"]})  # fmt: skip
    return pd.DataFrame(rows)


def critical(args: argparse.Namespace) -> None:
    """The pair's standard error and critical value: the estimator's over ``--trials``
    draws at one budget (curve's seeds) against each listed pilot's plan (its ``predict``
    covariance and the t critical value at the pair's smaller group df)."""
    from scipy import stats as st_

    from bacon_bayes import Calibrator
    from bacon_bayes.planning import predict
    from benchmarks.plan_check import draw, trial_pool

    frame, s = _frame(args)
    n, pair = args.labels, args.pair
    crit, se, hw, t_own = [], [], [], []
    groups = frame[s["group"]].astype(str).to_numpy()
    for t in range(args.trials):
        labeled, d = draw(frame, s, args.design, n, 7_000_000 + n + t)
        own = min(int((labeled & (groups == g)).sum()) for g in pair.split(" - "))
        t_own.append(float(st_.t.isf(s["alpha"] / 2, max(own - 1, 1))))
        table = Calibrator(engine="freq").fit(trial_pool(frame, s, labeled, d))
        table = table.compare_groups(s["alpha"], False)
        k = table.names.index(pair)
        c = np.atleast_1d(table.critical_value)
        crit.append(float(c[k] if c.size > 1 else c[0]))
        se.append(float(table.se[k]))
        hw.append(float(table.ci_high[k] - table.ci_low[k]) / 2)
    print(f"estimator, {args.design} @{n}, {args.trials} draws: critical value "
          f"{np.mean(crit):.3f}, se {np.mean(se):.3f}, "
          f"half-width {np.nanmean(hw):.3f}; t at the pair's fewer labels - 1 df "
          f"{np.mean(t_own):.3f}")  # fmt: skip
    goal = _goal(frame, s, pair, args.power)
    for k in (int(v) for v in args.pilots.split(",")):
        labeled, d = pilot_draw(frame, s, args.pilot_share, "uniform", args.seed + k)
        res = plan(table_pool(frame, s, labeled, d), goal, designs=DESIGNS,
                   from_scratch=True, alpha=args.alpha)  # fmt: skip
        p = predict(res.pilot, args.design, n, from_scratch=True)
        a, b = (res.pilot.names.index(v) for v in pair.split(" - "))
        se_d = float(np.sqrt(p.cov[a, a] + p.cov[b, b] - 2 * p.cov[a, b]))
        df = float(min(p.df[a], p.df[b]))
        c = float(st_.t.isf(args.alpha / 2, df))
        print(f"pilot {k} plan (separate means): se {se_d:.3f}, df {df:.1f}, "
              f"critical value {c:.3f}, half-width {se_d * c:.3f}")  # fmt: skip


def curve(args: argparse.Namespace) -> None:
    """Realised power of one design at each budget, appended to ``--out`` per cell."""
    frame, s = _frame(args)
    for n in (int(v) for v in args.labels.split(",")):
        seed = 7_000_000 + args.seed_offset + n  # plan_check's cells at offset 0
        sim = realised(frame, s, args.design, n, args.pair, args.trials, seed)
        row = pd.DataFrame([{"pair": args.pair, "design": args.design, "labels": n,
                             "trials": args.trials, **sim}])  # fmt: skip
        row.to_csv(args.out, mode="a", header=not args.out.exists(), index=False)
        print(row.to_dict("records")[0], flush=True)


def interpolate(
    grid: pd.DataFrame, power: np.ndarray, at: np.ndarray, fit: str = "linear"
) -> np.ndarray:
    """Power at ``at`` labels: linear in labels between the grid's cells, or (``probit``)
    the binomial maximum-likelihood fit ``Phi(a + b sqrt(labels))`` through them."""
    x = grid["labels"].to_numpy(float)
    if at.size and (at.min() < x.min() or at.max() > x.max()):
        raise ValueError(f"budgets {at.min()}-{at.max()} outside the grid {x.min()}-{x.max()}")
    if fit == "linear" or len(x) < 3:
        return np.interp(at, x, power)
    m = grid["trials"].to_numpy(float)
    k = np.clip(power, 0.5 / m, 1 - 0.5 / m) * m

    def nll(ab: np.ndarray) -> float:
        q = stats.norm.cdf(ab[0] + ab[1] * np.sqrt(x)).clip(1e-9, 1 - 1e-9)
        return -float(np.sum(k * np.log(q) + (m - k) * np.log1p(-q)))

    ab = optimize.minimize(nll, np.array([-1.0, 0.1]), method="Nelder-Mead").x
    return stats.norm.cdf(ab[0] + ab[1] * np.sqrt(at))


def _statistics(p: pd.DataFrame, real: np.ndarray, uni: np.ndarray) -> dict[str, dict]:
    """(a) and (b) over all pilots of a pair and over those recommending each design."""
    diff, gain = p["pred_power"].to_numpy() - real, real - uni
    out = {}
    for subset in ("all", *sorted(p["recommended"].unique())):
        m = np.ones(len(p), bool) if subset == "all" else (p["recommended"] == subset).to_numpy()
        d, g = diff[m], gain[m]
        out[subset] = {
            "real_mean": real[m].mean(),
            "pred_minus_real_mean": d.mean(),
            "pred_minus_real_sd": d.std(ddof=1) if d.size > 1 else 0.0,
            "pred_minus_real_worst": d[np.argmax(abs(d))],
            "outside_007": float((abs(d) > POWER_TOL).sum()),
            "rec_minus_uniform_worst": g.min(), "below_003": float((g < -BELOW_UNIFORM).sum()),
        }  # fmt: skip
    return out


def report(
    plans_csv: Path, curves_csv: Path, draws: int = 2000, seed: int = 1, fit: str = "linear"
) -> pd.DataFrame:
    """Per pair (and per recommended design): (a) predicted - realised and (b) the
    recommendation's realised power minus uniform's, over the pilots, with the bootstrap
    sd of each figure (binomial redraws of the grid cells)."""
    p_all, c_all = pd.read_csv(plans_csv), _pooled_curves(curves_csv)
    rng = np.random.default_rng(seed)
    rows = []
    for pair, p in p_all.groupby("pair", sort=False):
        p = p[p["labels"].notna()]
        c = c_all[c_all["pair"] == pair]
        grids = {d: g.sort_values("labels") for d, g in c.groupby("design")}
        at = p["labels"].to_numpy(float)

        def realise(powers: dict[str, np.ndarray], p=p, at=at, grids=grids):
            real, uni = np.empty(len(p)), interpolate(grids["uniform"], powers["uniform"], at, fit)
            for d in p["recommended"].unique():
                m = (p["recommended"] == d).to_numpy()
                real[m] = interpolate(grids[d], powers[d], at[m], fit)
            return real, uni

        point = {d: g["power"].to_numpy() for d, g in grids.items()}
        for d, g in grids.items():
            pairs = zip(g["labels"], point[d], strict=True)
            cells = ", ".join(f"{n:.0f}: {v:.3f}" for n, v in pairs)
            print(f"{pair} {d} ({'/'.join(str(int(t)) for t in g['trials'])} trials) {cells}")
        real, uni = realise(point)
        stat = _statistics(p, real, uni)
        boot: dict[str, list] = {k: [] for k in stat}
        for _ in range(draws):
            redraw = {d: rng.binomial(g["trials"].to_numpy(), point[d]) / g["trials"].to_numpy()
                      for d, g in grids.items()}  # fmt: skip
            for k, v in _statistics(p, *realise(redraw)).items():
                boot[k].append(v)
        for k, v in stat.items():
            m = (p["recommended"] == k if k != "all" else p["recommended"].notna()).to_numpy()
            sd = pd.DataFrame(boot[k]).std()
            rows.append({"pair": pair, "recommended": k, "pilots": int(m.sum()),
                         "labels": f"{int(at[m].min())}-{int(at[m].max())}",
                         **{n: x for n, x in v.items()},
                         **{f"{n}_sd": sd[n] for n in v}})  # fmt: skip
        per = p.assign(real=real, uniform_real=uni, pred_minus_real=p["pred_power"] - real,
                       rec_minus_uniform=real - uni)  # fmt: skip
        cols = ["pilot", "recommended", "labels", "pred_power", "real", "pred_minus_real",
                "pred_power_uniform", "uniform_real", "rec_minus_uniform"]  # fmt: skip
        print(f"{pair}:\n{per[cols].round(3).to_string(index=False)}")
    return pd.DataFrame(rows)


def _pooled_curves(curves_csv: Path) -> pd.DataFrame:
    c = pd.read_csv(curves_csv)
    c["hits"] = c["power"] * c["trials"]  # rows of one cell (more seeds) pooled
    c = c.groupby(["pair", "design", "labels"], as_index=False)[["hits", "trials"]].sum()
    c["power"] = c["hits"] / c["trials"]
    return c


def report_own(
    plans_csv: Path, curves_csv: Path, draws: int = 2000, seed: int = 1, fit: str = "linear"
) -> pd.DataFrame:
    """Each design at its own labels needed (every pilot, recommended or not): predicted
    - realised power over the pilots, with bootstrap sds as in :func:`report`."""
    p_all, c_all = pd.read_csv(plans_csv), _pooled_curves(curves_csv)
    rng = np.random.default_rng(seed)
    rows = []
    for (pair, d), g in c_all.groupby(["pair", "design"], sort=False):
        g = g.sort_values("labels")
        p = p_all[(p_all["pair"] == pair) & p_all[f"need_{d}"].notna()]
        at, pred = p[f"need_{d}"].to_numpy(float), p[f"pred_{d}"].to_numpy()
        m = g["trials"].to_numpy()

        def stat(power: np.ndarray, g=g, at=at, pred=pred) -> dict[str, float]:
            diff = pred - interpolate(g, power, at, fit)
            return {"pred_minus_real_mean": diff.mean(), "pred_minus_real_sd": diff.std(ddof=1),
                    "pred_minus_real_worst": diff[np.argmax(abs(diff))],
                    "outside_007": float((abs(diff) > POWER_TOL).sum())}  # fmt: skip

        point = stat(g["power"].to_numpy())
        sd = pd.DataFrame([stat(rng.binomial(m, g["power"].to_numpy()) / m)
                           for _ in range(draws)]).std()  # fmt: skip
        rows.append({"pair": pair, "design": d, "pilots": len(p),
                     "labels": f"{int(at.min())}-{int(at.max())}", **point,
                     **{f"{k}_sd": sd[k] for k in point}})  # fmt: skip
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.plan_pilots")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("plans", "curve", "details", "critical"):
        q = sub.add_parser(name)
        q.add_argument("--table", type=Path, default=DEFAULT_TABLE)
        q.add_argument("--label", default="expert_mean_relevance")
        q.add_argument("--judges", default="|relevance", help="judge columns end with this")
        q.add_argument("--group", default="system")
        q.add_argument("--prompt", default="doc_id")
        q.add_argument("--alpha", type=float, default=0.05)
        if name in ("plans", "curve"):
            q.add_argument("--out", type=Path, required=True)
        if name != "curve":
            q.add_argument("--power", type=float, default=0.8)
            q.add_argument("--pilot-share", type=float, default=0.03)
            q.add_argument("--seed", type=int, default=12345)
    q = sub.choices["plans"]
    q.add_argument("--pairs", default=",".join(PAIRS))
    q.add_argument("--pilots", type=int, default=20)
    q = sub.choices["details"]
    q.add_argument("--pair", required=True)
    q.add_argument("--pilot", type=int, required=True, help="0-based, as in plans")
    q.add_argument("--designs", default="stratified,uniform")
    q.add_argument("--labels", required=True, help="budgets on the grid, comma-separated")
    q.add_argument("--curves", type=Path, required=True, help="the curve csv")
    q = sub.choices["curve"]
    q.add_argument("--pair", required=True)
    q.add_argument("--design", choices=DESIGNS, required=True)
    q.add_argument("--labels", required=True, help="budgets, comma-separated")
    q.add_argument("--trials", type=int, default=300)
    q.add_argument("--seed-offset", type=int, default=0, help="more trials of a cell: 10000")
    q = sub.choices["critical"]
    q.add_argument("--pair", required=True)
    q.add_argument("--design", choices=DESIGNS, required=True)
    q.add_argument("--labels", type=int, required=True)
    q.add_argument("--trials", type=int, default=40)
    q.add_argument("--pilots", default="0", help="pilot numbers, comma-separated")
    q = sub.add_parser("report")
    q.add_argument("plans_csv", type=Path)
    q.add_argument("curves_csv", type=Path)
    q.add_argument("--draws", type=int, default=2000)
    q.add_argument("--fit", choices=("linear", "probit"), default="linear")
    q.add_argument("--own", action="store_true", help="each design at its own labels needed")
    args = p.parse_args(argv)
    if args.cmd == "plans":
        out = plans(args)
        out.to_csv(args.out, index=False)
        print(out.groupby("pair", sort=False)["recommended"].value_counts().to_string())
    elif args.cmd == "curve":
        curve(args)
    elif args.cmd == "critical":
        critical(args)
    elif args.cmd == "details":
        print(details(args).round(3).to_string(index=False))
    else:
        if args.own:
            own = report_own(args.plans_csv, args.curves_csv, args.draws, fit=args.fit)
            print(markdown_own(own))
            return
        res = report(args.plans_csv, args.curves_csv, args.draws, fit=args.fit)
        print(markdown(res))


def _f(r: pd.Series, k: str, fmt: str = "{:+.3f}") -> str:
    return f"{fmt.format(r[k])} ({r[k + '_sd']:.3f})"


def markdown_own(res: pd.DataFrame) -> str:
    """:func:`report_own` as a markdown table, each figure with its bootstrap sd."""
    lines = [
        "| pair | design | pilots | labels needed | pred - real: mean | sd over pilots "
        "| worst | outside 0.07 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in res.iterrows():
        cells = [r["pair"], r["design"], str(r["pilots"]), r["labels"],
                 _f(r, "pred_minus_real_mean"), f"{r['pred_minus_real_sd']:.3f}",
                 _f(r, "pred_minus_real_worst"), _f(r, "outside_007", "{:.0f}")]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown(res: pd.DataFrame) -> str:
    """The report as a markdown table, each figure with its bootstrap sd."""
    f = _f

    lines = [
        "| pair | recommended | pilots | labels | realised: mean | (a) pred - real: mean "
        "| sd over pilots "
        "| worst | outside 0.07 | (b) rec - uniform: worst | below -0.03 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in res.iterrows():
        cells = [r["pair"], r["recommended"], str(r["pilots"]), r["labels"],
                 f(r, "real_mean", "{:.3f}"),
                 f(r, "pred_minus_real_mean"), f"{r['pred_minus_real_sd']:.3f}",
                 f(r, "pred_minus_real_worst"), f(r, "outside_007", "{:.0f}"),
                 f(r, "rec_minus_uniform_worst"), f(r, "below_003", "{:.0f}")]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
