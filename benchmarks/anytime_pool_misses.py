"""Issue 41: where the pool mean's alpha-spending misses are, and what Hall's term on the
skewed side does about them, on the sequences of :mod:`benchmarks.anytime_pool_corr` (the
same draws as ``anytime_validation``; uniform, stratified and adaptive waves).

    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_pool_misses [--reps 4000]
        [--tables summeval] [--designs uniform] [--looks 10] [--seed 101] [--data DIR]
        [--save STEM [--groups]] [--pair A,B]
    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_pool_misses --load STEM_T_D_K.npz
    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_pool_misses --summary STEM
    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_pool_misses --package 10
        --designs stratified,adaptive --seed 0

``--save STEM``: each cell's pool-mean arrays (``STEM_TABLE_DESIGN_K.npz``) and simulated
looks (``..._looks.npz``); a cell already there is read, not simulated again, so a run
can be stopped and resumed. ``--groups``: also the group and pair rows of
:func:`benchmarks.anytime_validation.evaluate` on the same sequences (``.groups.csv``:
the groups' own floor at the look's level and the pairs' df of
``estimate.differences.T_DF``, as the package's). ``--summary STEM``: one markdown table
of the cells saved (the pool mean by the package's rule, the canonical boundary's in
brackets; the groups' and pairs' alpha-spending rows). ``--package N``: the package
itself on N SummEval sequences a cell, against the harness's rule
(:func:`package_check`). Each look's boundary is on the looks' own correlation as the
package computes it at that look: every earlier look's residuals weighed by that look's
probabilities (:func:`benchmarks.anytime_pool_corr.latest_boundaries`; under adaptive
waves the wave-by-wave weights, which change as waves are added).

Per cell, under the rule before (``own corr``: the boundary on the looks' own
correlation, symmetric) and the package's (``package``: with Hall's term): the first look
at which a sequence's interval misses, its side (the truth above or below the interval),
the looks' labels and Satterthwaite df, whether the look's variance was at the residual
floor and whether its weight was tuned, against the share the spending function allots
that look; each look's single-look miss at its boundary, side by side, against the
boundary's nominal level, with the estimate's mean skewness. Then the rules, each paired
against ``own corr``: sequences rescued / newly missing, the chance that some look misses
(se) and the last look's half-width over the fixed one:

``canonical``   the boundary on the canonical correlation;
``package``     ``own corr`` with the end on the skewed side moved out by Hall's term at
                the look's normal boundary (:func:`bacon_bayes.estimate.shape.skew_reach`,
                the Poisson-design moments of
                :func:`~bacon_bayes.estimate.shape.skew_moments`);
``Hall's width, even``  the package's width at each look split evenly between the two
                ends (is it the direction, or only the width?);
``Hall, small fraction``  the same with the iid term ``gamma (2 c^2 + 1) / 6``;
``Hall, both ends``  the Cornish-Fisher shift of both ends (the other end pulled in);
``Hall at t``   the term read at the Student-t look's critical value instead of the
                normal boundary's (far larger at a first look of few labels);
``own corr + weight both``  the tuned weight's ``n - 2`` and delta-method variance at the
                tuned looks (:mod:`benchmarks.anytime_pool_corr`), in the anytime look only;
``package + weight both``.

The variance is raised to the residual floor where it binds, and such a look is scaled by
``c / z``, as the package's.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.estimate import anytime as at
from bacon_bayes.estimate import shape
from benchmarks import anytime_groups
from benchmarks import anytime_pool_corr as pc
from benchmarks import anytime_validation as v

RULES = (
    "canonical", "package", "Hall's width, even", "Hall, small fraction", "Hall, both ends",
    "Hall at t", "own corr + weight both", "package + weight both",
)  # fmt: skip


def record(
    t: v.Table, reps: int, looks: int, seed: int, design: str = "uniform", pis: bool = False
) -> tuple[dict[str, np.ndarray], v.Looks]:
    """The cell's arrays (R, K): estimates, se, df, the boundaries on the looks' own
    correlation (as the package computes each look's: :func:`~benchmarks.anytime_pool_corr.
    latest_boundaries`) and the canonical one, the se of ``weight both``, the moments of
    Hall's term, the residual floor's variance and where it binds, the tuned looks; and
    the simulated looks (groups and pairs for :func:`benchmarks.anytime_validation.
    evaluate`). ``pis``: also each look's probabilities of its labels (``"pi_looks"``, a
    list of (R, n_k) arrays, not saved)."""
    rec = pc.Recorder(v.mean_core)
    own = v.mean_core
    v.mean_core = rec
    try:
        sim = v.simulate(t, design, reps, looks, seed)
    finally:
        v.mean_core = own
    chunks = pc.looks_of(rec.calls, looks)
    e, se, df = sim.pool
    var, n, tuned = pc.field(chunks, "var"), pc.field(chunks, "n"), pc.field(chunks, "tuned")
    assert np.allclose(var, se**2, rtol=1e-10), "recorded fits are not the pool's"
    times = sim.labels / sim.labels[-1]
    info = np.broadcast_to(at.effective_labels(sim.labels, float(t.n)), e.shape)
    var_both = np.where(tuned, var * (n - 1.0) / (n - 2.0) + pc.field(chunks, "delta"), var)
    floor = pc.field(chunks, "floor_var")
    extra = {"pi_looks": [np.vstack([ch[k]["pi"] for ch in chunks]) for k in range(looks)]}
    return (extra if pis else {}) | {
        "e": e, "se": se, "df": df, "truth": np.array(t.y.mean()), "labels": sim.labels,
        "crit_own": pc.latest_boundaries(chunks, np.ascontiguousarray(info), times),
        "crit_today": np.broadcast_to(pc.boundaries(np.ascontiguousarray(info[:1]), times),
                                      e.shape),
        "se_both": np.sqrt(var_both), "gamma": pc.field(chunks, "gamma"),
        "rho": pc.field(chunks, "rho"), "floor_var": floor, "floor": floor > var,
        "tuned": tuned, "times": times,
    }, sim  # fmt: skip


def package_se(a: dict[str, np.ndarray]) -> np.ndarray:
    """The package's se: the variance raised to the residual floor where it binds."""
    return np.sqrt(np.maximum(a["se"] ** 2, a["floor_var"]))


def _anytime(a: dict[str, np.ndarray], tcrit: np.ndarray, crit: np.ndarray) -> np.ndarray:
    """The package's anytime distance in se: a look at the residual floor is its fixed
    interval scaled by ``c / z`` (no Student-t look on the raw residuals' df)."""
    h = v.anytime_half(tcrit, a["df"], crit)
    return np.where(a["floor"], tcrit * crit / stats.norm.isf(v.ALPHA / 2), h)


def halves(a: dict[str, np.ndarray], rule: str) -> tuple[np.ndarray, np.ndarray]:
    """The distances (in the package's se) to the lower and upper ends under ``rule``."""
    tcrit = v._t(a["df"])
    c = a["crit_today" if rule == "canonical" else "crit_own"]
    h = _anytime(a, tcrit, c)
    if rule.endswith("weight both"):
        both = np.sqrt(np.maximum(a["se_both"] ** 2, a["floor_var"])) / package_se(a)
        h = h * both
    if rule in ("canonical", "own corr", "own corr + weight both"):
        return h, h
    g, rho = np.where(a["floor"], 0.0, a["gamma"]), np.where(a["floor"], 0.0, a["rho"])
    if rule == "Hall, small fraction":
        extra = shape.skew_reach(c, g, g)
        return h + extra[0], h + extra[1]
    if rule == "Hall, both ends":
        delta = rho * c * c / 2.0 - g * (c * c - 1.0) / 6.0
        return np.maximum(h - delta, 0.0), np.maximum(h + delta, 0.0)
    if rule == "Hall at t":  # the term read at the Student-t look's critical value
        extra = shape.skew_reach(h, g, rho)
        return h + extra[0], h + extra[1]
    extra = shape.skew_reach(c, g, rho)  # the package's
    down, up = h + extra[0], h + extra[1]
    if rule == "Hall's width, even":
        return (down + up) / 2.0, (down + up) / 2.0
    return down, up


def misses(a: dict[str, np.ndarray], rule: str) -> np.ndarray:
    """(R, K): +1 where the look's interval lies below the truth (the truth above it), -1
    where above, 0 where it covers."""
    down, up = halves(a, rule)
    z = (a["e"] - a["truth"]) / package_se(a)
    return np.where(z < -up, 1, np.where(z > down, -1, 0))


def first_miss_table(a: dict[str, np.ndarray], rule: str) -> list[str]:
    """Markdown rows: per look, the sequences whose first miss is there, by side, the
    spending function's share, and the looks' labels, df, floor and tuned weight."""
    m = misses(a, rule)
    hit = m != 0
    reps, looks = hit.shape
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    spent = at.obf_spending(a["times"], v.ALPHA)
    allot = np.diff(spent, prepend=0.0) * reps
    rows = [
        "| look | labels | first misses | truth above / below the interval | spending allots"
        " | df of those looks (median, min) | at the floor | weight tuned |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for k in range(looks):
        who = first == k
        side = m[who, k]
        dfs = a["df"][who, k]
        med = f"{np.median(dfs):.0f}, {dfs.min():.0f}" if who.any() else "-"
        rows.append(
            f"| {k + 1} | {int(a['labels'][k])} | {int(who.sum())} | {int((side > 0).sum())} / "
            f"{int((side < 0).sum())} | {allot[k]:.1f} | {med} | "
            f"{int(a['floor'][who, k].sum())} | {'yes' if a['tuned'][0, k] else 'no'} |"
        )
    rows.append(f"| all | | {int(hit.any(axis=1).sum())} | "
                f"{int((m[np.arange(reps), np.maximum(first, 0)] > 0)[first >= 0].sum())} / "
                f"{int((m[np.arange(reps), np.maximum(first, 0)] < 0)[first >= 0].sum())} | "
                f"{spent[-1] * reps:.1f} | | | |")  # fmt: skip
    return rows


def tail_rows(a: dict[str, np.ndarray], rule: str) -> list[str]:
    """Per look: the boundary's nominal level a side (median over sequences), the
    single-look misses under ``rule`` side by side, and the estimate's mean skewness."""
    m = misses(a, rule)
    c = a["crit_own"]
    rows = [
        "| look | c (median) | nominal level per side | truth above | truth below"
        " | estimate's skewness, mean |",
        "|---|---|---|---|---|---|",
    ]
    for k in range(m.shape[1]):
        lvl = float(np.median(stats.norm.sf(c[:, k])))
        rows.append(
            f"| {k + 1} | {np.median(c[:, k]):.3f} | {lvl:.5f} | {(m[:, k] > 0).mean():.5f} | "
            f"{(m[:, k] < 0).mean():.5f} | {a['gamma'][:, k].mean():+.3f} |"
        )
    return rows


def compare(a: dict[str, np.ndarray], rules: tuple[str, ...]) -> list[str]:
    """Markdown rows: each rule against ``own corr``, paired."""
    base = (misses(a, "own corr") != 0).any(axis=1)
    fixed = v._t(a["df"])[:, -1]
    rows = [
        "| rule | some look misses (se) | rescued / newly missing | last look's width / fixed |",
        "|---|---|---|---|",
    ]
    for rule in ("own corr", *rules):
        some = (misses(a, rule) != 0).any(axis=1)
        p = float(some.mean())
        down, up = halves(a, rule)
        width = float(np.mean((down + up)[:, -1] / (2 * fixed)))
        rows.append(
            f"| {rule} | {p:.4f} ({np.sqrt(p * (1 - p) / some.size):.4f}) | "
            f"{int((base & ~some).sum())} / {int((~base & some).sum())} | {width:.3f} |"
        )
    return rows


def report(a: dict[str, np.ndarray]) -> None:
    for rule in ("own corr", "package"):
        print(f"{rule}:", *first_miss_table(a, rule), "", *tail_rows(a, rule), "", sep="\n")
    print("\n".join(compare(a, RULES)), flush=True)


def some_look(a: dict[str, np.ndarray], rule: str) -> tuple[float, float, float]:
    """Under ``rule``: the chance that some look misses, its Monte Carlo se and the last
    look's width over the fixed one (mean over sequences)."""
    some = (misses(a, rule) != 0).any(axis=1)
    p = float(some.mean())
    down, up = halves(a, rule)
    width = float(np.mean((down + up)[:, -1] / (2 * v._t(a["df"])[:, -1])))
    return p, float(np.sqrt(p * (1 - p) / some.size)), width


def package_ratios(
    t: v.Table, design: str, sequences: int, looks: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The package (``Calibrator(engine="freq")`` ``estimate_mean(anytime=True,
    max_labels)``, :func:`benchmarks.anytime_pool_corr.package_halves`, the looks'
    probabilities as its propensity) against the harness's rule ``package`` on the first
    ``sequences`` of a cell (SummEval), (R, K) each: the estimates' difference, the lower
    and the upper end's distance, package over harness; and the looks' labels (K)."""
    a, sim = record(t, sequences, looks, seed, design, pis=True)
    pis = a.pop("pi_looks")
    low, high, _, est = pc.package_halves(t, sim, sequences, None if design == "uniform" else pis)
    down, up = halves(a, "package")
    se = package_se(a)
    return est - a["e"], low / (down * se), high / (up * se), a["labels"]


def package_check(t: v.Table, design: str, sequences: int, looks: int, seed: int) -> str:
    """:func:`package_ratios` per look: the estimates' largest difference and the two
    ends' distances, package over harness (mean; min-max)."""
    diff, lo, hi, labels = package_ratios(t, design, sequences, looks, seed)
    rows = [
        f"{t.name} {design}, {sequences} sequences: package against the harness",
        "| look | labels | estimate: largest abs difference | lower end's distance: package / "
        "harness, mean (min-max) | upper end's |",
        "|---|---|---|---|---|",
    ]
    for k in range(looks):
        rows.append(
            f"| {k + 1} | {int(labels[k])} | {np.abs(diff[:, k]).max():.2e} | "
            f"{lo[:, k].mean():.4f} ({lo[:, k].min():.4f}-{lo[:, k].max():.4f}) | "
            f"{hi[:, k].mean():.4f} ({hi[:, k].min():.4f}-{hi[:, k].max():.4f}) |"
        )
    return "\n".join(rows)


def save_looks(path: Path, sim: v.Looks) -> None:
    """A cell's simulated looks (:class:`benchmarks.anytime_validation.Looks`)."""
    np.savez(path, pool=np.stack(sim.pool), group=np.stack(sim.group), group_n=sim.group_n,
             labels=sim.labels, order=sim.order, pair=np.stack(sim.pair),
             pairs=np.stack(sim.pairs) if sim.pairs else np.zeros(0))  # fmt: skip


def load_looks(path: Path) -> v.Looks:
    z = np.load(path)
    pairs = tuple(z["pairs"]) if "pairs" in z and z["pairs"].size else ()  # older files: none
    return v.Looks(tuple(z["pool"]), tuple(z["group"]), z["group_n"], z["labels"], z["order"],
                   tuple(z["pair"]), pairs)  # fmt: skip


def cell(
    t: v.Table, design: str, reps: int, looks: int, seed: int, stem: Path | None, groups: bool
) -> None:
    """One cell: the pool mean's rules (from ``stem``'s cache where it has them, else
    simulated and saved there) and, with ``groups``, the group and pair rows of
    :func:`benchmarks.anytime_validation.evaluate` on the same sequences (CSV)."""
    name = None if stem is None else stem.with_name(f"{stem.name}_{t.name}_{design}_{looks}")
    done = name is not None and name.with_suffix(".npz").exists()
    print(f"{t.name} {design} {looks} looks, {reps} sequences:", flush=True)
    if done:
        a, sim = dict(np.load(name.with_suffix(".npz"))), None
        print("  (pool mean from the cache)")
    else:
        a, sim = record(t, reps, looks, seed, design)
        if name is not None:
            np.savez(name.with_suffix(".npz"), **a)
            save_looks(name.with_name(name.name + "_looks.npz"), sim)
        report(a)
    tag = _floor_tag()
    if not groups or name is None or name.with_suffix(f".groups{tag}.csv").exists():
        return
    sim = sim or load_looks(name.with_name(name.name + "_looks.npz"))
    rows, stop = v.evaluate(t, sim)
    pd.DataFrame(rows).to_csv(name.with_suffix(f".groups{tag}.csv"), index=False)
    pd.DataFrame(stop).to_csv(name.with_suffix(f".stop{tag}.csv"), index=False)
    if tag:
        print(
            f"  shrunk group looks' alpha-spending width over the package's: {floor_cost(t, sim)}"
        )


def _floor_tag() -> str:
    """The group CSVs' suffix: none for the package's own-interval floor, ``_fx1`` for
    the candidate read at ``1 * alpha`` (:data:`benchmarks.anytime_validation.FLOOR_X`)."""
    return "" if v.FLOOR_X == 2.0 else f"_fx{v.FLOOR_X:g}"


def floor_cost(t: v.Table, sim: v.Looks) -> str:
    """Median, mean and 90th percentile over the shrunk group looks of the alpha-spending
    width with the own-interval floor at :data:`~benchmarks.anytime_validation.FLOOR_X`
    over the width with the package's (``2 alpha``)."""
    times = sim.labels / sim.labels[-1]
    widths = []
    for x in (v.FLOOR_X, 2.0):
        w = []
        for h in range(t.groups.size):
            info = at.effective_labels(sim.group_n[:, h], float((t.g == h).sum()))
            crit = v.critical(info, times)["alpha-spending"]
            floor = v.critical(info, times, x * v.ALPHA)["alpha-spending"]
            fields = [f[:, h] for f in sim.group]
            _e, se, df, tc, lo, hi, skew, ratio, _ = fields[:9]
            with np.errstate(invalid="ignore", divide="ignore"):
                f = v.anytime_half(tc, df, crit) / tc
                low, high = v._reach(f * lo, f * hi, crit, sim.group_n[:, h], skew, ratio)
                low, high = anytime_groups.floor_distances(low, high, floor, fields)
            w.append((low + high) * se)
        widths.append(np.stack(w, axis=1))
    shrunk = np.isfinite(sim.group[anytime_groups.FIELDS.index("floor var")])
    r = (widths[0] / widths[1])[shrunk]
    share = f"{shrunk.mean():.0%} of group looks"
    return (f"median {np.nanmedian(r):.3f}, mean {np.nanmean(r):.3f}, "
            f"90th percentile {np.nanquantile(r, 0.9):.3f} ({share})")  # fmt: skip


def pair_readings(t: v.Table, sim: v.Looks) -> list[str]:
    """Every pair's alpha-spending rows three ways on the same sequences: off the shrunk
    looks (the harness before 2026-12-04), shrunk looks scaled by ``c / z``, and with
    the own-interval floor at each look's level (the package's since 2026-12-04)."""
    times = sim.labels / sim.labels[-1]
    off = v.Looks(sim.pool, sim.group, sim.group_n, sim.labels, sim.order, sim.pair)
    lines = []
    for what, looks, floor in (("off the shrunk looks", off, True),
                               ("shrunk looks scaled by c / z", sim, False),
                               ("with their own floor (package)", sim, True)):  # fmt: skip
        anytime_groups.OWN_FLOOR = floor
        rows = [r for r in v.every_pair(t, looks, times) if r["interval"] == "alpha-spending"]
        cells = [f"{r['some look misses']:.3f} ({r['mc se']:.3f}) {r.get('group', '')}".strip()
                 for r in rows]  # fmt: skip
        lines.append(f"| {what} | " + " | ".join(cells) + " |")
    anytime_groups.OWN_FLOOR = True
    return lines


def summary(stem: Path) -> str:
    """The markdown table of every cell under ``stem``: the pool mean by the package's
    rule (and the canonical boundary's), the groups' and pairs' alpha-spending rows (with
    ``--floor-x``, the candidate floor's)."""
    lines = [
        "| table | design | looks | sequences | pool mean (canonical) | group, average | "
        "worst group | pair, average | worst pair | last width / fixed (pool) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(stem.parent.glob(f"{stem.name}_*.npz")):
        if path.name.endswith("_looks.npz"):
            continue
        a = dict(np.load(path))
        table, design, looks = path.stem[len(stem.name) + 1 :].rsplit("_", 2)
        p, se, width = some_look(a, "package")
        canon = some_look(a, "canonical")[0]
        row = [table, design, looks, f"{a['e'].shape[0]:,}", f"{p:.3f} ({se:.3f}) ({canon:.3f})"]
        groups = path.with_suffix(f".groups{_floor_tag()}.csv")
        if groups.exists():
            g = pd.read_csv(groups)
            g = g[g["interval"] == "alpha-spending"].set_index("quantity")
            for q in ("group mean, average over groups", "group mean, worst group",
                      "difference, average over pairs", "difference, worst pair"):  # fmt: skip
                r = g.loc[q]
                who = f" {r['group']}" if isinstance(r.get("group"), str) else ""
                row.append(f"{r['some look misses']:.3f} ({r['mc se']:.3f}){who}")
        else:
            row += ["-"] * 4
        lines.append("| " + " | ".join(row) + f" | {width:.3f} |")
    return "\n".join(lines)


def _pair(t: v.Table, names: str) -> tuple[int, int]:
    """The groups ``A,B`` by name."""
    a, b = names.split(",")
    return list(t.groups).index(a), list(t.groups).index(b)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=4000)
    p.add_argument("--looks", default="10")
    p.add_argument("--tables", default="summeval")
    p.add_argument("--designs", default="uniform")
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--seed", type=int, default=101)
    p.add_argument("--save", type=Path, default=None,
                   help="each cell's arrays and looks under this stem (a cell there is "
                        "read, not simulated again)")  # fmt: skip
    p.add_argument(
        "--groups",
        action="store_true",
        help="also the group and pair rows on the same sequences (with --save)",
    )
    p.add_argument("--load", type=Path, default=None, help="report on saved arrays")
    p.add_argument("--pair-readings", type=Path, default=None,
                   help="every pair's rows three ways (pair_readings) on saved looks "
                        "(a --save cell's _looks.npz; its table in --tables)")  # fmt: skip
    p.add_argument("--summary", type=Path, default=None, help="the table of a --save stem")
    p.add_argument(
        "--pair",
        default=None,
        help="the tracked pair's groups, A,B (default: the pilot's, power 0.8)",
    )
    p.add_argument("--package", type=int, default=0,
                   help="instead: the package against the harness on N sequences a cell "
                        "(SummEval)")  # fmt: skip
    p.add_argument("--floor-x", type=float, default=2.0,
                   help="a candidate: shrunk rows' own-interval floor at the boundary for "
                        "X * alpha (the package's: 2); its CSVs are suffixed _fxX")  # fmt: skip
    args = p.parse_args()
    v.FLOOR_X = args.floor_x
    if args.load is not None:
        report(dict(np.load(args.load)))
        return
    if args.summary is not None:
        print(summary(args.summary))
        return
    if args.pair_readings is not None:
        t = v.load_tables(args.data, (args.tables,))[0]
        print("\n".join(pair_readings(t, load_looks(args.pair_readings))))
        return
    start = time.perf_counter()
    for t in v.load_tables(args.data, tuple(args.tables.split(","))):
        t.pair = v.pick_pair(t, args.seed)[0] if not args.pair else _pair(t, args.pair)
        for k in (int(x) for x in args.looks.split(",")):
            for design in args.designs.split(","):
                if args.package:
                    print(package_check(t, design, args.package, k, args.seed), flush=True)
                    continue
                cell(t, design, args.reps, k, args.seed, args.save, args.groups)
                print(f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
