"""Issue 41: Student-t looks read at the boundary's nominal level (the package's
significance level approach, :func:`bacon_bayes.estimate.anytime.studentised`) against
the earlier rule, the fixed t interval scaled by ``c / z``, on the same simulated
sequences of :mod:`benchmarks.anytime_validation` (one simulation per cell, evaluated both
ways; bootstrap-t looks are scaled by ``c / z`` in both).

    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_t_looks [--reps 1000]
        [--tables trivia] [--designs stratified,adaptive,uniform] [--looks 10,20]
        [--data /tmp/mc_data] [--seed 0] [--out stem] [--markdown stem] [--misses]
        [--pool-misses] [--pooling auto|separate] [--uniform-share 0.5]

``--misses``: instead, per cell, where the group mean's alpha-spending interval first
misses (the rule of the package): the look's branch (t or bootstrap-t), the error's sign,
and the look's se over the median se of all sequences at that look. ``--pool-misses``:
the pool mean's per-look misses (alpha-spending and fixed) and the looks of the first.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.estimate import anytime as at
from benchmarks import anytime_validation as v
from benchmarks.anytime_groups import POOLINGS


def scaled_half(tcrit: np.ndarray, df: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The earlier rule: every look's fixed critical value scaled by ``c / z``."""
    return tcrit * np.broadcast_to(c, tcrit.shape) / stats.norm.isf(v.ALPHA / 2)


def both(t: v.Table, sim: v.Looks) -> tuple[list[dict], list[dict]]:
    """The miss and stopping rows of one cell, per rule (``rule``: before / after)."""
    new_rows, new_stop = v.evaluate(t, sim)
    own = v.anytime_half
    v.anytime_half = scaled_half
    try:
        old_rows, old_stop = v.evaluate(t, sim)
    finally:
        v.anytime_half = own
    tag = lambda rows, rule: [{"rule": rule, **r} for r in rows]  # noqa: E731
    return (
        tag(old_rows, "before") + tag(new_rows, "after"),
        tag(old_stop, "before") + tag(new_stop, "after"),
    )


def first_misses(t: v.Table, sim: v.Looks) -> dict:
    """The group mean's (group ``t.pair[0]``) first alpha-spending miss per sequence."""
    a = t.pair[0]
    info = at.effective_labels(sim.group_n[:, a], float((t.g == a).sum()))
    crit = v.critical(info, sim.labels / sim.labels[-1])["alpha-spending"]
    e, se, df, tc, lo, hi = (x[:, a] for x in sim.group[:6])  # anytime_groups.FIELDS
    truth = t.y[t.g == a].mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        f = v.anytime_half(tc, df, crit) / tc
        miss = np.nan_to_num(((e - truth) / se > f * lo) | ((truth - e) / se > f * hi))
    rows = np.flatnonzero(miss.any(axis=1))
    k = miss[rows].argmax(axis=1)
    rel = se[rows, k] / np.nanmedian(se, axis=0)[k]
    no_df = ~np.isfinite(df[rows, k])  # shrunk (some group under 10 labels) or bootstrap-t
    few = sim.group_n[rows, :, k].min(axis=1) < v.SETTLED_GROUP
    return {
        "some look misses": rows.size / e.shape[0],
        "at shrunk looks": float(np.mean(no_df & few)),
        "at bootstrap-t looks": float(np.mean(no_df & ~few)),
        "estimate above truth": float(np.mean(e[rows, k] > truth)),
        "median se / look's median se": float(np.median(rel)),
        "share with se < half the look's median": float(np.mean(rel < 0.5)),
        "median labels of the group": float(np.median(sim.group_n[rows, a, k])),
    }


def pool_misses(t: v.Table, sim: v.Looks) -> dict:
    """Where the pool mean's alpha-spending interval misses: per look, its miss rate and
    the fixed interval's, and at which look each sequence first misses."""
    times = sim.labels / sim.labels[-1]
    info = np.broadcast_to(at.effective_labels(sim.labels, float(t.n)), sim.pool[0].shape)
    crit = v.critical(info, times)["alpha-spending"]
    e, se, df = sim.pool
    err = np.abs(e - t.y.mean()) / se
    miss = err > v.anytime_half(v._t(df), df, crit)
    first = miss[miss.any(axis=1)].argmax(axis=1)
    return {
        "some look misses": float(miss.any(axis=1).mean()),
        "per look": miss.mean(axis=0).round(3).tolist(),
        "fixed, per look": (err > v._t(df)).mean(axis=0).round(3).tolist(),
        "first misses by look": np.bincount(first, minlength=times.size).tolist(),
    }


def run(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows: list[dict] = []
    stops: list[dict] = []
    for t in v.load_tables(args.data, tuple(args.tables.split(","))):
        t.pair, _ = v.pick_pair(t, args.seed)
        for design in args.designs.split(","):
            for k in (int(x) for x in args.looks.split(",")):
                start = time.perf_counter()
                sim = v.simulate(t, design, args.reps, k, args.seed, pooling=args.pooling,
                                 uniform_share=args.uniform_share)  # fmt: skip
                if args.misses or args.pool_misses:
                    where = pool_misses if args.pool_misses else first_misses
                    print(f"{t.name} {design} {k} looks:", where(t, sim), flush=True)
                    continue
                r, s = both(t, sim)
                cell = {"table": t.name, "design": design, "looks": k, "reps": args.reps}
                rows += [{**cell, **x} for x in r]
                stops += [{**cell, **x} for x in s]
                print(f"  {t.name} {design} {k} looks: {time.perf_counter() - start:.0f} s",
                      flush=True)  # fmt: skip
                if args.out is not None:  # each cell as it ends
                    pd.DataFrame(rows).to_csv(v.stem_csv(args.out, "miss"), index=False)
                    pd.DataFrame(stops).to_csv(v.stem_csv(args.out, "stop"), index=False)
    return pd.DataFrame(rows), pd.DataFrame(stops)


def markdown(miss: pd.DataFrame, stop: pd.DataFrame) -> str:
    """Per cell and quantity: before / after for alpha-spending and the confidence
    sequence (some look misses, mc se) and alpha-spending's last width over the fixed;
    then alpha-spending's stopping rows."""

    def cell(r: pd.Series) -> str:
        return f"{r['some look misses']:.3f} ({r['mc se']:.3f})"

    lines = [
        "| table | design | looks | n | quantity | fixed (peeking) | alpha-spending before | "
        "after | confidence sequence before | after | last width spending before | after |",
        "|" + "---|" * 12,
    ]
    keys = ["table", "design", "looks", "reps", "quantity"]
    for key, grp in miss.groupby(keys, sort=False):
        by = {(r["rule"], r["interval"]): r for _, r in grp.iterrows()}
        sp, cs = "alpha-spending", "confidence sequence"
        cells = [cell(by["after", "fixed"])]
        cells += [cell(by[rule, kind]) for kind in (sp, cs) for rule in ("before", "after")]
        cells += [f"{by[rule, sp]['last width / fixed']:.3f}" for rule in ("before", "after")]
        lines.append("| " + " | ".join(str(k) for k in key) + " | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| table | design | looks | alpha-spending stopping | realised power | "
        "mean labels used % |",
        "|" + "---|" * 6,
    ]
    for _, r in stop[stop["interval"] == "alpha-spending"].iterrows():
        lines.append(
            f"| {r['table']} | {r['design']} | {r['looks']} | {r['rule']} | "
            f"{r['realised power']:.3f} ({r['mc se power']:.3f}) | "
            f"{r['mean labels used %']:.1f} ({r['mc se labels %']:.1f}) |"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=1000)
    p.add_argument("--looks", default="10,20")
    p.add_argument("--designs", default="stratified,adaptive,uniform")
    p.add_argument("--tables", default="trivia")
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=None, help="write the rows as CSV (stem)")
    p.add_argument("--markdown", type=Path, default=None, help="print an earlier run's CSVs")
    p.add_argument("--misses", action="store_true", help="where the group mean misses")
    p.add_argument("--pool-misses", action="store_true", help="where the pool mean misses")
    p.add_argument("--pooling", choices=POOLINGS, default="auto", help="the group means'")
    v.add_share_option(p)
    args = p.parse_args()
    if args.markdown:
        stem = args.markdown
        miss = pd.read_csv(v.stem_csv(stem, "miss"))
        print(markdown(miss, pd.read_csv(v.stem_csv(stem, "stop"))))
        return
    start = time.perf_counter()
    miss, stop = run(args)
    if not (args.misses or args.pool_misses):
        print(markdown(miss, stop))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
