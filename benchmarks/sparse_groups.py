"""Many systems, few labels each (issue 40): group means and their pairwise differences
per system, pointwise, from today's per-group AEE, the empirical-Bayes group means
(``pooling="shrink"``, when the calibrator has it) and ppi_py's per-system PPI++, on the
same uniform label draws.

    PYTHONPATH=. .venv/bin/python -m benchmarks.sparse_groups [--trials 400] [--workers 1]
        [--data /tmp/data] [--tables summeval_fluency,...] [--methods separate,shrink,ppi_py]
        [--out raw.csv.gz] [--summary summary.csv] [--seed 0]
        [--pooled raw0.csv.gz,raw1.csv.gz]   # summarise earlier --out files as one run

Tables (:func:`benchmarks.small_budget.tables`): SummEval's four dimensions (the shipped
sample, 12 systems of 100 summaries, ``system``) at 2%, 3%, 5% and 10% labels; TriviaQA
(``DATA/trivia.csv``, 8 models of 400 answers, ``model``) and WMT22 zh-en (``DATA/
wmt22.parquet``, small_budget's 150 source segments: 16 systems of 150 rows, ``system``)
at 3%; both written by ``python -m benchmarks.comparison_data DATA`` (skipped with a
message when absent). Every draw is ``bacon simulate --seed SEED``'s uniform draw of that
(budget, trial) (:func:`draw`: :func:`~bacon_bayes.simulation.montecarlo.trial_seed`, as in
:func:`~bacon_bayes.simulation.montecarlo.run_trial`), fitted once by
``Calibrator(engine="freq", seed=...)`` (the frequentist default); every method sees the
same labeled items. Truth: each system's mean of the full labels.

Methods: ``separate`` (``estimate_groups`` / ``compare_groups`` with
``simultaneous=False``: today's per-group AEE; a draw in which it raises
``ValidationError`` is refused), ``shrink`` (the same with ``pooling="shrink"``; skipped
with a message while the keyword does not exist), ``ppi_py`` (per system,
``ppi_mean_ci`` (PPI++, ``lam`` tuned) on that system's labeled and unlabeled items with
the surrogate the calibrator's group means use, ``cal.surrogate_matrix(groups)``; a
system with fewer than 2 labels gets no interval: ppi_py's would have zero width; pairs:
difference of the estimates, normal interval with ``sqrt(se_a^2 + se_b^2)``, ``se`` the
half-width over z).

Metrics per (table, budget, method) (:func:`summarise`): draws refused; group (pair)
intervals withheld among groups (pairs) with at least 1 label, in the draws answered;
coverage averaged over groups and the lowest group's (with the draws in which it had an
interval); pair coverage averaged over pairs; mean group width, the share of zero-width
group intervals (ppi_py's when a system's labeled items all agree), and the mean width on
the cells where ``separate`` gives an interval (with the ratio to ``separate``'s on the
same cells); group RMSE averaged over groups and its ratio to
``separate``'s on the same cells; the 99% Monte Carlo band of a coverage; the normal-prior
oracle's RMSE ratio (:func:`oracle_ratio`). Measured in EXPERIMENTS.md, "Many systems,
few labels (issue 40)".
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.linear_model import RidgeCV
from threadpoolctl import threadpool_limits

from bacon_bayes.crossfit import make_folds
from bacon_bayes.errors import ValidationError
from bacon_bayes.order import natural_sorted
from bacon_bayes.simulation.montecarlo import SimulationSpec, _draw, _pool, trial_seed
from bacon_bayes.workers import process_pool
from benchmarks.small_budget import band, tables

SUMMEVAL_BUDGETS = (0.02, 0.03, 0.05, 0.10)
OTHER_BUDGETS = (0.03,)
GROUP_COLUMN = {"trivia": "model", "wmt22": "system"}  # SummEval's: "system"
METHODS = ("separate", "shrink", "auto", "ppi_py")
ALPHA = 0.05
#: ppi_py's interval needs this many labels in a system (at 1 its width is 0)
PPI_MIN_LABELS = 2
#: methods found missing in this process (skipped, said once)
_MISSING: set[str] = set()
#: seeds of the oracle's system-held-out folds (their tau^2 and sigma^2 averaged)
ORACLE_SEEDS = 20


def cells(
    data: Path, names: list[str] | None = None, budgets: tuple[float, ...] | None = None
) -> dict[str, tuple[pd.DataFrame, SimulationSpec, tuple[float, ...]]]:
    """Each table with its spec (group column set) and budgets."""
    out = {}
    for name, (frame, spec) in tables(data).items():
        if names is not None and name not in names:
            continue
        spec = replace(spec, group=GROUP_COLUMN.get(name, "system"), alpha=ALPHA)
        own = SUMMEVAL_BUDGETS if name.startswith("summeval") else OTHER_BUDGETS
        out[name] = (frame, spec, own if budgets is None else budgets)
    return out


def draw(
    frame: pd.DataFrame, spec: SimulationSpec, budget: float, trial: int
) -> tuple[np.ndarray, int]:
    """The labeled items and the calibrator's seed of one trial: ``run_trial``'s uniform
    draw and fold seed (``bacon simulate --seed spec.seed``)."""
    ss = trial_seed(spec.seed, budget, trial)
    draw_seed, fold_seed = (int(v) for v in ss.generate_state(2))
    n = round(budget * len(frame))
    groups = frame[spec.group].astype(str).to_numpy()
    labeled, _, _ = _draw(frame, spec, "uniform", n, groups, draw_seed)
    return labeled, fold_seed % 2**31


def _ours(cal: Any, alpha: float, pooling: str | None) -> tuple[Any, Any]:
    kw = {} if pooling is None else {"pooling": pooling}
    g = cal.estimate_groups(alpha, simultaneous=False, **kw)
    return g, cal.compare_groups(alpha, simultaneous=False, **kw)


def _table_cells(table: Any) -> dict[str, tuple[float, float, float]]:
    return {
        str(n): (float(e), float(lo), float(hi))
        for n, e, lo, hi in zip(
            table.names, table.estimate, table.ci_low, table.ci_high, strict=True
        )
    }


def ppi_cells(
    y: np.ndarray,
    S: np.ndarray,
    groups: np.ndarray,
    labeled: np.ndarray,
    names: list[str],
    alpha: float,
) -> dict[str, tuple[float, float, float]]:
    """ppi_py's PPI++ per system, then the pairs ``a - b`` (normal, independent systems)."""
    from ppi_py import ppi_mean_ci

    z = float(stats.norm.ppf(1 - alpha / 2))
    out: dict[str, tuple[float, float, float]] = {}
    se: dict[str, float] = {}
    for g in names:
        lab, unl = labeled & (groups == g), ~labeled & (groups == g)
        if not lab.any() or not unl.any():
            out[g], se[g] = (math.nan, math.nan, math.nan), math.nan
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            lo, hi = (
                float(np.ravel(v)[0]) for v in ppi_mean_ci(y[lab], S[lab], S[unl], alpha=alpha)
            )
        est = (lo + hi) / 2  # ppi_py's interval is centred on its point estimate
        if lab.sum() < PPI_MIN_LABELS or not (np.isfinite(lo) and np.isfinite(hi)):
            lo = hi = math.nan
        out[g], se[g] = (est, lo, hi), (hi - lo) / (2 * z)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            est = out[a][0] - out[b][0]
            half = z * math.sqrt(se[a] ** 2 + se[b] ** 2)
            out[f"{a} - {b}"] = (est, est - half, est + half)
    return out


def one_trial(
    frame: pd.DataFrame,
    spec: SimulationSpec,
    budget: float,
    trial: int,
    methods: tuple[str, ...],
    skip: set[str],
) -> list[dict[str, Any]]:
    """Every method's group and pair cells on one draw (``skip``: methods found missing,
    filled in place)."""
    labeled, seed = draw(frame, spec, budget, trial)
    groups = frame[spec.group].astype(str).to_numpy()
    y = frame[spec.label].to_numpy(float)
    names = natural_sorted(np.unique(groups))
    truth = {g: float(y[groups == g].mean()) for g in names}
    n_lab = {g: int((labeled & (groups == g)).sum()) for g in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    for a, b in pairs:
        truth[f"{a} - {b}"] = truth[a] - truth[b]
        n_lab[f"{a} - {b}"] = min(n_lab[a], n_lab[b])
    cal = spec.calibrator(seed).fit(_pool(frame, spec, labeled, None))
    rows: list[dict[str, Any]] = []

    def emit(method: str, got: dict | None) -> None:
        for key in truth:
            e, lo, hi = (math.nan,) * 3 if got is None else got.get(key, (math.nan,) * 3)
            rows.append(
                {
                    "method": method,
                    "kind": "pair" if " - " in key else "group",
                    "name": key,
                    "estimate": e,
                    "ci_low": lo,
                    "ci_high": hi,
                    "truth": truth[key],
                    "n_labeled": n_lab[key],
                    "refused": got is None,
                    "withheld": got is not None and not (np.isfinite(lo) and np.isfinite(hi)),
                }
            )

    for method in methods:
        if method in skip:
            continue
        if method == "ppi_py":
            S = cal.surrogate_matrix(cal._groups())
            if S.ndim == 2:  # the freq default's group means use one surrogate
                assert S.shape[1] == 1, "ppi_py's row needs the calibrator's single surrogate"
                S = S[:, 0]
            emit(method, ppi_cells(y, S, groups, labeled, names, spec.alpha))
            continue
        pooling = method  # "separate", "shrink" or "auto"
        try:
            g, d = _ours(cal, spec.alpha, pooling)
            got: dict | None = {**_table_cells(g), **_table_cells(d)}
        except ValidationError:
            got = None
        except TypeError as exc:
            if "pooling" not in str(exc):
                raise
            print(f"skipped {method}: estimate_groups has no pooling= yet ({exc})", file=sys.stderr)
            skip.add(method)
            continue
        emit(method, got)
    for r in rows:
        r.update({"budget": budget, "trial": trial, "n_labels": int(labeled.sum())})
    return rows


def _chunk(args: tuple) -> tuple[list[dict[str, Any]], float]:
    frame, spec, budget, trials, methods = args
    t0, skip, rows = time.time(), _MISSING, []
    with threadpool_limits(limits=1):
        for t in trials:
            rows.extend(one_trial(frame, spec, budget, t, methods, skip))
    return rows, time.time() - t0


# ------------------------------------------------------------------------ metrics
def _covers(t: pd.DataFrame) -> pd.Series:
    return (t["ci_low"] <= t["truth"]) & (t["truth"] <= t["ci_high"])


def summarise(rows: pd.DataFrame, reference: str = "separate") -> pd.DataFrame:
    """The metrics of every method of one (table, budget) (see the module docstring)."""
    rows = rows[rows["kind"] != "check"]  # --out files of earlier runs hold check rows
    answered = np.isfinite(rows["ci_low"]) & np.isfinite(rows["ci_high"])
    rows = rows.assign(
        answered=answered,
        width=rows["ci_high"] - rows["ci_low"],
        err2=(rows["estimate"] - rows["truth"]) ** 2,
        cover=_covers(rows),
    )
    key = ["trial", "kind", "name"]
    ref = rows[rows["method"] == reference].set_index(key)
    out = []
    for method, t in rows.groupby("method", sort=False):
        trials = t["trial"].nunique()
        g, p = t[t["kind"] == "group"], t[t["kind"] == "pair"]
        ok_g, ok_p = (
            g[~g["refused"] & (g["n_labeled"] >= 1)],
            p[~p["refused"] & (p["n_labeled"] >= 1)],
        )
        ag, ap = g[g["answered"]], p[p["answered"]]
        cov_g = ag.groupby("name")["cover"].mean()
        row = {
            "method": method,
            "trials": trials,
            "labels": float(t["n_labels"].mean()),
            "refused": float(t.groupby("trial")["refused"].any().mean()),
            "withheld_groups": float(ok_g["withheld"].mean()) if len(ok_g) else math.nan,
            "withheld_pairs": float(ok_p["withheld"].mean()) if len(ok_p) else math.nan,
            "coverage": float(cov_g.mean()) if len(cov_g) else math.nan,
            "min_coverage": float(cov_g.min()) if len(cov_g) else math.nan,
            "min_group": str(cov_g.idxmin()) if len(cov_g) else "",
            "min_answered": int((ag["name"] == cov_g.idxmin()).sum()) if len(cov_g) else 0,
            "pair_coverage": float(ap.groupby("name")["cover"].mean().mean())
            if len(ap)
            else math.nan,
            "width": float(ag["width"].mean()) if len(ag) else math.nan,
            "zero_width": float((ag["width"] <= 1e-12).mean()) if len(ag) else math.nan,
            "rmse": float(np.sqrt(g[np.isfinite(g["err2"])].groupby("name")["err2"].mean()).mean()),
        }
        if len(ref):
            both = g.merge(ref.reset_index(), on=key, suffixes=("", "_ref")).set_index(key)
            same = both[both["answered"] & both["answered_ref"]]
            row["width_on_ref"] = float(same["width"].mean()) if len(same) else math.nan
            row["width_ratio"] = row["width_on_ref"] / float(same["width_ref"].mean())
            est = both[np.isfinite(both["err2"]) & np.isfinite(both["err2_ref"])]
            by = est.groupby(level="name")
            rm, rr = np.sqrt(by["err2"].mean()).mean(), np.sqrt(by["err2_ref"].mean()).mean()
            row["rmse_ratio"] = float(rm / rr) if len(est) else math.nan
        lo, hi = band(trials)
        row.update({"band_low": lo, "band_high": hi})
        out.append(row)
    return pd.DataFrame(out)


def oracle_parts(
    frame: pd.DataFrame, spec: SimulationSpec, by_group: bool = True
) -> tuple[float, float]:
    """``(tau^2, sigma^2)`` of the normal-prior oracle (:func:`oracle_ratio`): the
    between-group variance of the residuals' group means and their within-group variance,
    residuals of a 5-fold cross-fitted ridge of the label on the judges fitted on all
    labels. ``by_group``: folds hold out whole groups (``make_folds`` with the groups as
    clusters), both averaged over :data:`ORACLE_SEEDS` fold seeds; this reproduces issue
    40's SummEval figures. Else one item-level 5-fold split (seed 0)."""
    X = frame[list(spec.judges)].to_numpy(float)
    X = np.where(np.isfinite(X), X, np.nanmean(X, axis=0))
    y = frame[spec.label].to_numpy(float)
    groups = frame[spec.group].astype(str).to_numpy()
    taus, sigmas = [], []
    for seed in range(ORACLE_SEEDS if by_group else 1):
        folds = make_folds(np.ones(len(y), bool), 5, seed, groups if by_group else None)
        oof = np.zeros(len(y))
        for k in range(5):
            fit = RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(X[folds != k], y[folds != k])
            oof[folds == k] = fit.predict(X[folds == k])
        r = pd.Series(y - oof).groupby(groups)
        taus.append(float(r.mean().var(ddof=1)))
        sigmas.append(float(r.var(ddof=1).mean()))
    return float(np.mean(taus)), float(np.mean(sigmas))


def oracle_ratio(tau2: float, sigma2: float, n: float) -> float:
    """The normal-prior oracle's RMSE ratio of shrunk to separate group means with ``n``
    labels a group: ``sqrt(tau^2 / (tau^2 + sigma^2 / n))``."""
    return math.sqrt(tau2 / (tau2 + sigma2 / n))


# ------------------------------------------------------------------------ report
COLUMNS = (
    "table",
    "budget",
    "labels",
    "method",
    "trials",
    "refused",
    "withheld_groups",
    "withheld_pairs",
    "coverage",
    "min_coverage",
    "min_group",
    "min_answered",
    "pair_coverage",
    "width",
    "zero_width",
    "width_on_ref",
    "width_ratio",
    "rmse",
    "rmse_ratio",
    "band_low",
    "band_high",
    "oracle",
    "oracle_items",
)


def report(results: dict[tuple[str, float], pd.DataFrame], chosen: dict) -> pd.DataFrame:
    """Print one compact table per (table, budget) and return the summary frame."""
    out, parts = [], {}
    for (name, budget), rows in results.items():
        s = summarise(rows)
        if name in chosen:
            frame, spec, _ = chosen[name]
            n = budget * len(frame) / frame[spec.group].nunique()
            if name not in parts:
                parts[name] = (oracle_parts(frame, spec), oracle_parts(frame, spec, False))
            s["oracle"] = oracle_ratio(*parts[name][0], n)
            s["oracle_items"] = oracle_ratio(*parts[name][1], n)
        s.insert(0, "budget", budget)
        s.insert(0, "table", name)
        out.append(s)
        lo, hi = s["band_low"].iloc[0], s["band_high"].iloc[0]
        print(
            f"\n{name} at {budget:.0%} ({s['labels'].iloc[0]:.0f} labels, "
            f"{s['trials'].iloc[0]} draws; coverage band [{lo:.3f}, {hi:.3f}]; oracle RMSE "
            f"ratio {s.get('oracle', pd.Series([math.nan])).iloc[0]:.3f}, item folds "
            f"{s.get('oracle_items', pd.Series([math.nan])).iloc[0]:.3f})"
        )
        print(
            "method    refused  withheld g/p  cover  min (group, draws)   pairs  width  "
            "w=0    w/sep  RMSE    RMSE/sep"
        )
        for _, r in s.iterrows():
            print(
                f"{r['method']:<9} {r['refused']:>6.3f}  {r['withheld_groups']:.3f}/"
                f"{r['withheld_pairs']:.3f}  {r['coverage']:.3f}  {r['min_coverage']:.3f} "
                f"({r['min_group']:<8.8} {r['min_answered']:>4}) {r['pair_coverage']:.3f}  "
                f"{r['width']:.3f}  {r['zero_width']:.3f}  "
                f"{r.get('width_ratio', math.nan):.3f}  {r['rmse']:.4f} "
                f"{r.get('rmse_ratio', math.nan):.3f}"
            )
    frame = pd.concat(out, ignore_index=True) if out else pd.DataFrame()
    return frame[[c for c in COLUMNS if c in frame.columns]]


def pooled(paths: list[str]) -> dict[tuple[str, float], pd.DataFrame]:
    """Rows of several ``--out`` files as one run (trial numbers made distinct per file)."""
    frames = [
        pd.read_csv(p).assign(trial=lambda d, i=i: d["trial"] + 100_000 * i)
        for i, p in enumerate(paths)
    ]
    t = pd.concat(frames, ignore_index=True)
    return {
        (str(n), float(b)): g.drop(columns="table")
        for (n, b), g in t.groupby(["table", "budget"], sort=False)
    }


def main(argv: list[str] | None = None) -> pd.DataFrame:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=400)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--data", type=Path, default=Path("/tmp/data"))
    p.add_argument("--tables", default=None, help="comma-separated table names (all)")
    p.add_argument("--budgets", default=None, help="comma-separated shares (each table's own)")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--seed", type=int, default=0, help="the trial seeds (bacon simulate --seed)")
    p.add_argument("--out", type=Path, default=None, help="every cell of every draw (csv[.gz])")
    p.add_argument("--summary", type=Path, default=None, help="the summary table (csv)")
    p.add_argument("--pooled", default=None, help="summarise earlier --out files pooled (a,b)")
    p.add_argument("--engine", default="freq", choices=("freq", "bayes"), help="the AEE's engine")
    args = p.parse_args(argv)
    methods = tuple(args.methods.split(","))
    budgets = None if args.budgets is None else tuple(float(b) for b in args.budgets.split(","))
    chosen = cells(args.data, args.tables.split(",") if args.tables else None, budgets)
    if args.pooled:
        summary = report(pooled(args.pooled.split(",")), chosen)
    else:
        summary = run(chosen, methods, args.trials, args.seed, args.workers, args.out, args.engine)
    if args.summary is not None:
        summary.to_csv(args.summary, index=False, float_format="%.5g")
        print(f"wrote {args.summary}")
    return summary


class _Inline:
    """One worker: the chunks run here, in this process, when their result is asked for."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(self, fn: Any, job: Any) -> Any:
        return type("Lazy", (), {"result": lambda _self: fn(job)})()


def run(
    chosen: dict,
    methods: tuple[str, ...],
    trials: int,
    seed: int,
    workers: int,
    out: Path | None,
    engine: str = "freq",
) -> pd.DataFrame:
    _MISSING.clear()  # a keyword added since the last run in this process is tried again
    jobs = []
    for name, (frame, spec, budgets) in chosen.items():
        spec = replace(spec, seed=seed, engine=engine)
        for b in budgets:
            per = max(1, min(25, trials // (4 * workers)))
            for start in range(0, trials, per):
                job = (frame, spec, b, range(start, min(start + per, trials)), methods)
                jobs.append((name, b, job))
    t0 = time.time()
    results: dict[tuple[str, float], list[pd.DataFrame]] = {}
    seconds: dict[tuple[str, float], float] = {}
    with process_pool(workers) if workers > 1 else _Inline() as pool:
        futures = [(name, b, pool.submit(_chunk, job)) for name, b, job in jobs]
        for i, (name, b, f) in enumerate(futures, 1):
            rows, took = f.result()
            results.setdefault((name, b), []).append(pd.DataFrame(rows))
            seconds[(name, b)] = seconds.get((name, b), 0.0) + took
            if i % max(1, len(futures) // 20) == 0 or i == len(futures):
                print(f"  {i}/{len(futures)} chunks, {time.time() - t0:.0f} s", file=sys.stderr)
    merged = {k: pd.concat(v, ignore_index=True) for k, v in results.items()}
    for (name, b), s in seconds.items():
        print(f"{name} at {b:.0%}: {s / trials:.3f} s a trial ({', '.join(methods)})")
    summary = report(merged, chosen)
    if out is not None:
        frames = [v.assign(table=n) for (n, _), v in merged.items()]
        pd.concat(frames, ignore_index=True).to_csv(out, index=False, float_format="%.6g")
        print(f"wrote {out}")
    return summary


if __name__ == "__main__":
    main()
