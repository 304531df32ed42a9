"""How narrow can shrunk group intervals of today's form be while every group keeps 0.90
(issue 40)? An oracle on ``benchmarks.sparse_groups``' draws.

    python -m benchmarks.floor_bound [--trials 400] [--data /tmp/mc_data]
        [--tables summeval_fluency,...] [--budgets 0.05] [--objective ratio|average]
        [--rule oracle|side|engines]

Each draw (``sparse_groups.draw``: ``bacon simulate --seed 0``'s uniform draw) is fitted
once, and its shrunk table (``pooling="shrink"``) gives per group the robust EB interval
``est +- chi se``, the group's own AEE estimate ``own`` and its moderated sd ``sd``; the
per-group AEE (``pooling="separate"``) gives the width that issue 40's ratio divides by.
The family searched is the procedure's form with every constant chosen by an oracle that
knows the truth of these very draws:

    [min(est - c chi se, own - k_lo sd), max(est + c chi se, own + k_hi sd)]

* ``symmetric``: one ``c`` and one ``k = k_lo = k_hi`` for all groups (today's floor is
  ``c = 1``, ``k`` the Student-t quantile at 90%);
* ``one-sided``: ``c`` and ``(k_lo, k_hi)`` free, one pair for all groups (any skewness
  correction of the floor whose shift is the same for every group of a draw).

For each, the narrowest mean width (over the (draw, group) cells where ``separate``
answers, divided by ``separate``'s) among the members whose every group covers at least
0.90 and whose coverage averaged over groups is at least 0.95, over the 400 draws. No
procedure of that form, whatever rule sets its constants, can be narrower on these draws
while every group keeps 0.90 (its constants are fixed in advance, the oracle's fitted to
the answer). Measured in EXPERIMENTS.md, "Many systems, few labels (issue 40)".

``--rule side`` instead compares, on the same draws, today's hull with two floors fixed
in advance that keep each group's miss at most ``2 alpha`` whatever its truth, in units
of its own sd (:func:`side_miss`: own estimate normal or Student-t on its df, shrunk
estimate ``w o +- h``, the centre taken as known): the side-dependent floor of least
total reach (:func:`side_floor`: ``k_far`` on the side away from the centre the group
is shrunk toward, ``k_near`` toward it) and the least symmetric one
(:func:`symmetric_floor`). Measured in EXPERIMENTS.md, "A floor fixed in advance that
reaches further away from the centre".

``--rule engines`` asks issue 40's "the Bayesian engine's group intervals at least 10%
narrower than the frequentist engine's, with the same coverage; otherwise show with an
oracle that no valid interval could be": on the same draws, each engine's shrunk table
today, and the oracle search above run on the Bayesian engine's fits (its surrogate, its
shrinkage, its group level), every width over the frequentist engine's today on the
same (draw, group) cells, and the same oracle on the frequentist fits. The Bayesian
oracle over the frequentist one is what the engine itself can buy: above 0.90, no
interval of the procedure's form built on the Bayesian surrogate, whatever constants it
chose, is 10% narrower than the frequentist engine's best of that form while every group
keeps 0.90 and the average 0.95 on these draws. Measured in EXPERIMENTS.md, "The
Bayesian engine's group intervals against an oracle".
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy import special, stats
from threadpoolctl import threadpool_limits

from bacon_bayes.errors import ValidationError
from bacon_bayes.simulation.montecarlo import _pool
from benchmarks.sparse_groups import cells, draw

#: every group at least this often
GROUP_LEVEL = 0.90
#: coverage averaged over groups at least this
AVERAGE_LEVEL = 0.95
K_GRID = np.round(np.arange(0.0, 4.0001, 0.05), 2)
C_GRID = np.round(np.arange(0.0, 2.0001, 0.1), 2)


def cell_arrays(frame, spec, budget: float, trials: int) -> dict[str, np.ndarray]:
    """Per draw and group: the EB estimate and half-width, own estimate and sd, truth,
    whether ``separate`` answers and its width, the shrinkage weight, the own df and
    today's interval (arrays of shape (trials, groups))."""
    groups = frame[spec.group].astype(str).to_numpy()
    y = frame[spec.label].to_numpy(float)
    keys = ("est", "half", "own", "sd", "truth", "sw", "w", "df", "low", "high")
    rows: dict[str, list] = {k: [] for k in keys}
    failed = []
    with threadpool_limits(limits=1):
        for t in range(trials):
            labeled, seed = draw(frame, spec, budget, t)
            try:
                cal = spec.calibrator(seed).fit(_pool(frame, spec, labeled, None))
            except ValidationError as exc:  # the Bayesian engine on a fold of equal labels
                failed.append(t)
                print(f"trial {t}: {str(exc)[:80]}; left out", file=sys.stderr)
                continue
            g = cal.estimate_groups(spec.alpha, simultaneous=False, pooling="shrink")
            s = cal.estimate_groups(spec.alpha, simultaneous=False, pooling="separate")
            det = g.details
            rows["est"].append(g.estimate)
            rows["half"].append(g.critical_value * g.se)
            rows["own"].append(np.array(det["own_estimate"], dtype=float))
            rows["sd"].append(np.sqrt(np.array(det["noise_var"], dtype=float)))
            rows["truth"].append(np.array([y[groups == n].mean() for n in g.names]))
            rows["sw"].append(s.ci_high - s.ci_low)
            rows["w"].append(np.array(det["shrinkage"], dtype=float))
            rows["df"].append(np.array(det["df"], dtype=float))
            rows["low"].append(g.ci_low)
            rows["high"].append(g.ci_high)
    out = {k: np.array(v) for k, v in rows.items()}
    for t in failed:  # a row of NaN: no cell of that draw counts
        out = {k: np.insert(v, t, np.nan, axis=0) for k, v in out.items()}
    return out


def search(
    a: dict[str, np.ndarray], one_sided: bool, objective: str = "ratio"
) -> dict[str, float] | None:
    """The narrowest member of the family (module docstring) that keeps every group at
    :data:`GROUP_LEVEL` and the average at :data:`AVERAGE_LEVEL` (``objective="average"``:
    the one with the lowest coverage averaged over groups, which says whether issue 40's
    "average in the band" and "no group below 0.90" can hold together in this family)."""
    lab = np.isfinite(a["sd"])
    sd = np.where(lab, a["sd"], 0.0)
    ok = lab & np.isfinite(a["sw"])
    ref = float(a["sw"][ok].mean())
    best = None
    for c in C_GRID:
        lo0, hi0 = a["est"] - c * a["half"], a["est"] + c * a["half"]
        for k_lo in K_GRID if one_sided else [None]:
            low_fixed = None if k_lo is None else np.minimum(lo0, a["own"] - k_lo * sd)
            for k_hi in K_GRID:
                low = np.minimum(lo0, a["own"] - k_hi * sd) if low_fixed is None else low_fixed
                high = np.maximum(hi0, a["own"] + k_hi * sd)
                hit = np.where(lab, (low <= a["truth"]) & (a["truth"] <= high), np.nan)
                cov = np.nanmean(hit, axis=0)
                if cov.min() >= GROUP_LEVEL:
                    break
            if cov.min() < GROUP_LEVEL or cov.mean() < AVERAGE_LEVEL:
                continue
            ratio = float((high - low)[ok].mean()) / ref
            key = ratio if objective == "ratio" else float(cov.mean())
            if best is None or key < best[objective]:
                k_lo_ = k_hi if k_lo is None else k_lo
                best = {"ratio": ratio, "c": c, "k_lo": k_lo_, "k_hi": k_hi}
                best.update({"average": float(cov.mean()), "lowest": float(cov.min())})
    return best


#: the truth's standardised distances from the centre searched for the worst (``>= 0``:
#: the miss is symmetric in it)
DELTAS = np.concatenate([np.arange(0.0, 12.0, 0.02), np.geomspace(12.0, 1e4, 60)])


def side_miss(
    delta: np.ndarray | float,
    w: float,
    h: float,
    k_near: np.ndarray | float,
    k_far: np.ndarray | float,
    df: float = np.inf,
) -> np.ndarray:
    """P(the hull misses | delta), exactly, in units of the group's own sd: own estimate
    ``o = delta + z`` (``z`` Student-t on ``df``, normal when infinite; ``delta`` the
    truth's distance from the centre), shrunk ``w o +- h``, floor ``[o - k_down, o + k_up]``
    with ``(k_up, k_down) = (k_far, k_near)`` when ``o >= 0``, else ``(k_near, k_far)``.
    Both ends of the hull rise with ``o`` (a step up at 0), so it misses high exactly when
    ``o`` is below the point where the upper end reaches ``delta``, and low when above the
    point where the lower end leaves it."""
    d = np.asarray(delta, float)
    cdf = special.ndtr if not np.isfinite(df) else (lambda x: special.stdtr(df, x))
    a_neg = np.minimum((d - h) / w, d - k_near)
    o_high = np.where(a_neg < 0, a_neg, np.maximum(0.0, np.minimum((d - h) / w, d - k_far)))
    b_pos = np.maximum((d + h) / w, d + k_near)
    o_low = np.where(b_pos >= 0, b_pos, np.minimum(0.0, np.maximum((d + h) / w, d + k_far)))
    return cdf(o_high - d) + cdf(d - o_low)


def side_worst(w: float, h: float, k_near, k_far, df: float = np.inf) -> np.ndarray:
    """The largest miss over ``delta`` (:data:`DELTAS`) of :func:`side_miss`."""
    kn = np.asarray(k_near, float)[..., None]
    kf = np.asarray(k_far, float)[..., None]
    return side_miss(DELTAS, w, h, kn, kf, df).max(axis=-1)


def side_floor(
    w: float, h: float, level: float, df: float = np.inf, step: float = 0.05
) -> tuple[float, float]:
    """``(k_near, k_far)`` of least sum whose worst miss (:func:`side_worst`) is at most
    ``level``: for each ``k_near`` on a grid of ``step`` up to the symmetric floor's
    quantile, the least ``k_far`` by bisection; the symmetric floor when nothing is
    narrower."""
    k_sym = float(stats.t.ppf(1.0 - level / 2.0, df)) if np.isfinite(df) else 0.0
    k_sym = k_sym or float(special.ndtri(1.0 - level / 2.0))
    kn = np.arange(0.0, k_sym + 1e-9, step)
    lo, hi = np.zeros_like(kn), np.full_like(kn, 2.0 * k_sym + 1.0)
    for _ in range(12):
        mid = 0.5 * (lo + hi)
        ok = side_worst(w, h, kn, mid, df) <= level
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
    i = int(np.argmin(kn + hi))
    return (k_sym, k_sym) if kn[i] + hi[i] >= 2.0 * k_sym else (float(kn[i]), float(hi[i]))


def symmetric_floor(w: float, h: float, level: float, df: float = np.inf) -> float:
    """The least symmetric reach ``k`` (``k_near = k_far``) whose worst miss is at most
    ``level`` (bisection to 1e-3): the same guarantee without the side."""
    lo, hi = 0.0, 2.0 * float(special.ndtri(1.0 - level / 2.0)) + (10.0 if df < 5 else 1.0)
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if side_worst(w, h, mid, mid, df) <= level else (mid, hi)
    return hi


def side_bounds(
    a: dict[str, np.ndarray], level: float, symmetric: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The hull with the side-dependent floor (:func:`side_floor` per draw and group, on
    its own ``w``, ``h = half / sd`` rounded down to 0.02 (the miss falls as ``h``
    grows), ``w`` to 0.01 and ``df`` down to 0.1 (cached)); ``symmetric``: the least
    symmetric reach with the same guarantee (:func:`symmetric_floor`) instead."""
    lab = np.isfinite(a["sd"]) & (a["sd"] > 0)
    low, high = np.full(a["sd"].shape, np.nan), np.full(a["sd"].shape, np.nan)
    cache: dict[tuple[float, float, float], tuple[float, float]] = {}
    for t, g in zip(*np.nonzero(lab), strict=True):
        sd, own, est, half = (a[k][t, g] for k in ("sd", "own", "est", "half"))
        w = max(round(float(a["w"][t, g]), 2), 0.01)
        df = float(min(np.floor(float(a["df"][t, g]) * 10.0) / 10.0, 1000.0))
        key = (w, np.floor(half / sd / 0.02) * 0.02, max(df, 1.0))
        if key not in cache and symmetric:
            k = symmetric_floor(key[0], key[1], level, key[2])
            cache[key] = (k, k)
        elif key not in cache:
            cache[key] = side_floor(key[0], key[1], level, key[2])
        kn, kf = cache[key]
        k_up, k_down = (kf, kn) if own >= est else (kn, kf)
        low[t, g] = min(est - half, own - k_down * sd)
        high[t, g] = max(est + half, own + k_up * sd)
    return low, high


def compare(a: dict[str, np.ndarray], level: float) -> dict[str, dict[str, float]]:
    """Today's hull, the side-dependent floor's and the least symmetric floor's with the
    same guarantee, on the same draws: coverage averaged
    over groups, the lowest group's, and mean width over separate's (cells where both
    answer)."""
    out = {}
    rules = {
        "today": (a["low"], a["high"]),
        "side": side_bounds(a, level),
        "symmetric": side_bounds(a, level, symmetric=True),
    }
    for rule, (low, high) in rules.items():
        lab = np.isfinite(low) & np.isfinite(high)
        hit = np.where(lab, (low <= a["truth"]) & (a["truth"] <= high), np.nan)
        cov = np.nanmean(hit, axis=0)
        ok = lab & np.isfinite(a["sw"])
        ratio = float((high - low)[ok].mean() / a["sw"][ok].mean())
        out[rule] = {"average": float(np.nanmean(cov)), "lowest": float(np.nanmin(cov))}
        out[rule]["ratio"] = ratio
    return out


def side_table(chosen: dict, budgets: str, trials: int) -> None:
    """Print :func:`compare` per (table, budget)."""
    print("| table | budget | rule | average | lowest | width / separate |")
    print("|---|---|---|---|---|---|")
    for name, (frame, spec, _) in chosen.items():
        spec = replace(spec, seed=0)
        for b in (float(v) for v in budgets.split(",")):
            a = cell_arrays(frame, spec, b, trials)
            for rule, r in compare(a, 2.0 * spec.alpha).items():
                print(
                    f"| {name} | {b:.0%} | {rule} | {r['average']:.3f} | {r['lowest']:.3f} | "
                    f"{r['ratio']:.3f} |",
                    flush=True,
                )


def _mean_width(low: np.ndarray, high: np.ndarray, ok: np.ndarray) -> float:
    return float((high - low)[ok].mean())


def engines_table(chosen: dict, budgets: str, trials: int) -> None:
    """Print, per (table, budget), each engine's shrunk intervals today and the oracle on
    the Bayesian fits, widths over the frequentist engine's today (module docstring)."""
    head = "| table | budget | intervals | width / freq today | c | k_lo | k_hi | average |"
    print(head + " lowest |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (frame, spec, _) in chosen.items():
        for b in (float(v) for v in budgets.split(",")):
            f = cell_arrays(frame, replace(spec, seed=0, engine="freq"), b, trials)
            a = cell_arrays(frame, replace(spec, seed=0, engine="bayes"), b, trials)
            gone = np.isnan(a["truth"]).all(axis=1)  # draws the Bayesian fit refused
            f = {k: np.where(gone[:, None], np.nan, v) for k, v in f.items()}
            ok = np.isfinite(f["sd"]) & np.isfinite(a["sd"]) & np.isfinite(f["sw"])
            ref = _mean_width(f["low"], f["high"], ok)
            rows = []
            for engine, arr in (("freq", f), ("bayes", a)):
                hit = np.where(np.isfinite(arr["sd"]), (arr["low"] <= arr["truth"])
                               & (arr["truth"] <= arr["high"]), np.nan)  # fmt: skip
                cov = np.nanmean(hit, axis=0)
                width = _mean_width(arr["low"], arr["high"], ok) / ref
                rows.append((f"{engine}, today", width, None, cov))
            # each oracle's ratio is over its fits' own separate width: brought to the
            # frequentist engine's today through the separate widths
            for engine, arr in (("freq", f), ("bayes", a)):
                scale = float(arr["sw"][ok].mean()) / ref
                for one_sided in (False, True):
                    r = search(arr, one_sided)
                    fam = f"oracle on {engine}, {'one-sided' if one_sided else 'symmetric'}"
                    rows.append((fam, None if r is None else r["ratio"] * scale, r, None))
            for label, width, r, cov in rows:
                if width is None:
                    print(f"| {name} | {b:.0%} | {label} | none in the grid | | | | | |")
                elif r is None:
                    print(
                        f"| {name} | {b:.0%} | {label} | {width:.3f} | | | | "
                        f"{np.nanmean(cov):.3f} | {np.nanmin(cov):.3f} |"
                    )
                else:
                    print(
                        f"| {name} | {b:.0%} | {label} | {width:.3f} | {r['c']:.1f} | "
                        f"{r['k_lo']:.2f} | {r['k_hi']:.2f} | {r['average']:.3f} | "
                        f"{r['lowest']:.3f} |"
                    )
            print(flush=True, end="")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=400)
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--tables", default="summeval_fluency,summeval_consistency,summeval_relevance")
    p.add_argument("--budgets", default="0.05")
    p.add_argument(
        "--objective",
        choices=("ratio", "average"),
        default="ratio",
        help="narrowest width (ratio), or lowest average coverage, with every group >= 0.90",
    )
    p.add_argument(
        "--rule",
        choices=("oracle", "side", "engines"),
        default="oracle",
        help="the oracle search, today's floor against the side-dependent one, or the "
        "oracle on the Bayesian engine's fits against the frequentist engine today",
    )
    args = p.parse_args(argv)
    chosen = cells(args.data, args.tables.split(","))
    if args.rule == "side":
        side_table(chosen, args.budgets, args.trials)
        return
    if args.rule == "engines":
        engines_table(chosen, args.budgets, args.trials)
        return
    print("| table | budget | family | width / separate | c | k_lo | k_hi | average | lowest |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (frame, spec, _) in chosen.items():
        spec = replace(spec, seed=0)
        for b in (float(v) for v in args.budgets.split(",")):
            a = cell_arrays(frame, spec, b, args.trials)
            for one_sided in (False, True):
                r = search(a, one_sided, args.objective)
                fam = "one-sided" if one_sided else "symmetric"
                if r is None:
                    print(f"| {name} | {b:.0%} | {fam} | none in the grid | | | | | |")
                    continue
                print(
                    f"| {name} | {b:.0%} | {fam} | {r['ratio']:.3f} | {r['c']:.1f} | "
                    f"{r['k_lo']:.2f} | {r['k_hi']:.2f} | {r['average']:.3f} | "
                    f"{r['lowest']:.3f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
