"""Issue 41's worst single group across looks: each pooling's per-group reading, and rules
for the misses at shrunk looks, on the sequences of :mod:`benchmarks.anytime_validation`.

    PYTHONPATH=. python -m benchmarks.anytime_shrunk_floor --tables wmt22 \\
        --data /tmp/h2_data [--reps 500] [--looks 10] [--cache /tmp/h2_sims]

For each table: one simulation of uniform sequences under the package's default pooling
(``auto``) and one under ``pooling="separate"`` (the same seed, so the same labels: the
harness draws the waves before it estimates), each evaluated as the harness does
(:func:`benchmarks.anytime_validation.every_group`, ``every_pair``): every group's chance
that some look's interval misses, the average over the groups and the worst, the share of
group looks withheld (no interval although the group has a label), and the last look's
width over the fixed. Under ``auto`` the anytime group rows at the shrunk looks are also
read under each rule of :data:`RULES` (anytime only: the fixed intervals, the bootstrap
branch and the pairs are the package's), with each rule's width at the shrunk looks over
the package's. ``--cache DIR`` keeps each simulation as ``.npz`` and reads it back.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.estimate import anytime as at
from bacon_bayes.estimate.shape import skew_shift
from benchmarks import anytime_groups as ag
from benchmarks import anytime_validation as v

ALPHA = v.ALPHA
Z = float(stats.norm.isf(ALPHA / 2))
#: the anytime kinds a rule changes
ANYTIME = ("alpha-spending", "confidence sequence")


def load_or_simulate(
    t: v.Table, reps: int, looks: int, pooling: str, cache: Path | None
) -> v.Looks:
    """The harness's uniform sequences (seed 0, as ``anytime_validation``'s default),
    from ``cache`` when there."""
    path = None if cache is None else cache / f"{t.name}_{pooling}_{reps}_{looks}.npz"
    if path is not None and path.exists():
        z = np.load(path)
        return v.Looks(
            tuple(z["pool"]), tuple(z["group"]), z["group_n"], z["labels"], z["order"],
            tuple(z["pair"]),
        )  # fmt: skip
    sim = v.simulate(t, "uniform", reps, looks, 0, pooling=pooling)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            path, pool=np.stack(sim.pool), group=np.stack(sim.group), group_n=sim.group_n,
            labels=sim.labels, order=sim.order, pair=np.stack(sim.pair),
        )  # fmt: skip
    return sim


#: a rule: (fields of one group (R, K) by name, the anytime boundary c at alpha, at
#: 2 alpha, the package's anytime distances low, high) -> the rule's distances
Rule = Callable[[dict, np.ndarray, np.ndarray, np.ndarray, np.ndarray], tuple]


def _shrunk(f: dict) -> np.ndarray:
    return np.isfinite(f["floor var"])


def before(f: dict, c: np.ndarray, c2: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple:
    """The package's before 2026-12-03: the fixed ends scaled about the estimate by ``c /
    z``."""
    return low, high


def floor_at_level(
    f: dict, c: np.ndarray, c2: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple:
    """The robust part scaled by ``c / z``, the own-interval floor read at the look's own
    level: its own estimate +- its moderated t at the boundary for ``2 alpha``'s nominal
    level (``studentised(c2, df)``), instead of the floor scaled about the shrunk estimate."""
    s = _shrunk(f)
    e, se, chi = f["estimate"], f["se"], f["crit"]
    with np.errstate(invalid="ignore", divide="ignore"):
        half = at.studentised(c2, f["floor df"]) * np.sqrt(f["floor var"])
        lo = np.fmax(c / Z * chi, (e - f["own estimate"] + half) / se)
        hi = np.fmax(c / Z * chi, (f["own estimate"] + half - e) / se)
    return np.where(s, lo, low), np.where(s, hi, high)


def floor_at_level_joined(
    f: dict, c: np.ndarray, c2: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple:
    """:func:`floor_at_level` joined with the ends before (never narrower): the package's
    rule (:func:`benchmarks.anytime_groups.own_floor`)."""
    return ag.floor_distances(low, high, c2, [f[k] for k in ag.FIELDS])


def _own_ends(f: dict, crit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The own-studentised interval's distances from the shrunk estimate, in its se,
    with Hall's term at the shrunk skewness (Student-t ``crit`` on ``n - 1`` df), and
    where it may reach (a shrunk row whose own variance is below its moderated one)."""
    e, se, n = f["estimate"], f["se"], f["n"]
    sd = np.sqrt(f["own var"])
    gamma = np.nan_to_num(f["shrunk skew"])
    shift = skew_shift(gamma, n, crit)
    with np.errstate(invalid="ignore", divide="ignore"):
        up = (f["own estimate"] + (crit + shift) * sd - e) / se
        down = (e - f["own estimate"] + (crit - shift) * sd) / se
        short = _shrunk(f) & (f["own var"] < f["floor var"]) & (n >= 3)
    return down, up, short


def reach_scaled(
    f: dict, c: np.ndarray, c2: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple:
    """The bootstrap branch's skewed-side reach (:func:`bacon_bayes.estimate.shape.
    skew_join`: own-studentised, Student-t on ``n - 1`` df at the fixed level, Hall's term
    at the shrunk skewness, where the own variance is below the moderated one) joined to a
    shrunk row's fixed interval, and scaled by ``c / z`` with the rest."""
    tcrit = stats.t.isf(ALPHA / 2, np.maximum(f["n"] - 1.0, 1.0))
    down, up, short = _own_ends(f, tcrit)
    gamma = np.nan_to_num(f["shrunk skew"])
    k = c / Z
    with np.errstate(invalid="ignore"):
        hi = np.where(short & (gamma > 0), np.fmax(high, k * up), high)
        lo = np.where(short & (gamma < 0), np.fmax(low, k * down), low)
    return lo, hi


def reach_at_level(
    f: dict, c: np.ndarray, c2: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple:
    """The same reach read at the look's own level (Student-t on ``n - 1`` df at the
    boundary's nominal level, Hall's term there), not scaled."""
    tcrit = at.studentised(c, np.maximum(f["n"] - 1.0, 1.0))
    down, up, short = _own_ends(f, tcrit)
    gamma = np.nan_to_num(f["shrunk skew"])
    with np.errstate(invalid="ignore"):
        hi = np.where(short & (gamma > 0), np.fmax(high, up), high)
        lo = np.where(short & (gamma < 0), np.fmax(low, down), low)
    return lo, hi


def own_t_scaled(
    f: dict, c: np.ndarray, c2: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple:
    """Both ends joined with the own Student-t interval (own variance, ``n - 1`` df, no
    skewness) at the fixed level, scaled by ``c / z``, where the own variance is below the
    moderated one."""
    tcrit = stats.t.isf(ALPHA / 2, np.maximum(f["n"] - 1.0, 1.0))
    g = dict(f, **{"shrunk skew": np.zeros_like(f["own var"])})
    down, up, short = _own_ends(g, tcrit)
    k = c / Z
    with np.errstate(invalid="ignore"):
        return (np.where(short, np.fmax(low, k * down), low),
                np.where(short, np.fmax(high, k * up), high))  # fmt: skip


RULES: dict[str, Rule] = {
    "before (scaled by c / z)": before,
    "floor at the look's level": floor_at_level,
    "floor at the look's level, joined": floor_at_level_joined,
    "skew reach, scaled": reach_scaled,
    "skew reach at the look's level": reach_at_level,
    "own t, scaled": own_t_scaled,
}


def group_fields(sim: v.Looks, h: int) -> dict:
    """Group ``h``'s fields (R, K) by name (:data:`benchmarks.anytime_groups.FIELDS`)."""
    out = {name: x[:, h] for name, x in zip(ag.FIELDS, sim.group, strict=True)}
    out["n"] = sim.group_n[:, h]
    return out


def every_group_rules(t: v.Table, sim: v.Looks, rules: dict[str, Rule]) -> pd.DataFrame:
    """Per rule, kind and group: the chance that some look misses, the side of the first
    miss and whether its look was shrunk, the last look's width over the fixed, the
    shrunk looks' width over the package's (median), and the looks withheld."""
    times = sim.labels / sim.labels[-1]
    rows = []
    for h in range(t.groups.size):
        f = group_fields(sim, h)
        truth = t.y[t.g == h].mean()
        info = at.effective_labels(f["n"], float((t.g == h).sum()))
        crit, crit2 = v.critical(info, times), v.critical(info, times, 2 * ALPHA)
        e, se, df, tc, lo, hi = (f[k] for k in ag.FIELDS[:6])
        with np.errstate(invalid="ignore", divide="ignore"):
            err = (e - truth) / se
        labeled = f["n"] >= 1
        held = float((np.isnan(lo) & labeled).sum() / max(labeled.sum(), 1))
        shrunk = _shrunk(f)
        for kind in v.KINDS:
            with np.errstate(invalid="ignore", divide="ignore"):
                k = 1.0 if kind == "fixed" else v.anytime_half(tc, df, crit[kind]) / tc
            base_lo, base_hi = k * lo, k * hi
            for rule, fn in rules.items():
                if kind == "fixed" and rule != next(iter(rules)):
                    continue
                low, high = base_lo, base_hi
                if kind != "fixed":
                    low, high = fn(f, crit[kind], crit2[kind], base_lo, base_hi)
                with np.errstate(invalid="ignore"):
                    missed = (err > low) | (-err > high)
                    ratio = (low + high) / (base_lo + base_hi)
                miss = missed.any(axis=1)
                first = np.argmax(missed, axis=1)
                r = np.flatnonzero(miss)
                at_shrunk = shrunk[r, first[r]]
                with np.errstate(invalid="ignore"):
                    width = np.nanmean((low + high)[:, -1] / (lo + hi)[:, -1])
                sel = ratio[shrunk & np.isfinite(ratio)]
                rows.append({
                    "table": t.name, "rule": rule, "interval": kind, "group": str(t.groups[h]),
                    "some look misses": float(miss.mean()),
                    "first misses at shrunk looks": int(at_shrunk.sum()),
                    "first misses high": int((err[r, first[r]] < 0).sum()),
                    "first misses": int(r.size),
                    "last width / fixed": float(width),
                    "shrunk width / package (median)": float(np.median(sel)) if sel.size else 1.0,
                    "shrunk width / package (p90)": (
                        float(np.quantile(sel, 0.9)) if sel.size else 1.0
                    ),
                    "looks withheld": held,
                })  # fmt: skip
    return pd.DataFrame(rows)


def summary(per: pd.DataFrame, reps: int) -> pd.DataFrame:
    """Per table, rule and kind: the average over groups and the worst group."""
    out = []
    for key, g in per.groupby(["table", "rule", "interval"], sort=False):
        r = g["some look misses"].to_numpy()
        w = int(r.argmax())
        worst = g.iloc[w]
        out.append({
            "table": key[0], "rule": key[1], "interval": key[2],
            "average": float(r.mean()), "mc se avg": float(np.sqrt((r * (1 - r)).mean() / reps)),
            "worst": float(r[w]), "mc se worst": float(np.sqrt(r[w] * (1 - r[w]) / reps)),
            "worst group": worst["group"],
            "worst: at shrunk / high / first": (
                f"{worst['first misses at shrunk looks']}/{worst['first misses high']}"
                f"/{worst['first misses']}"
            ),
            "last width avg": float(g["last width / fixed"].mean()),
            "last width worst": float(worst["last width / fixed"]),
            "shrunk width avg": float(g["shrunk width / package (median)"].mean()),
            "shrunk width worst (median, p90)": (
                f"{worst['shrunk width / package (median)']:.2f}, "
                f"{worst['shrunk width / package (p90)']:.2f}"
            ),
            "looks withheld avg": float(g["looks withheld"].mean()),
            "looks withheld max": float(g["looks withheld"].max()),
        })  # fmt: skip
    return pd.DataFrame(out)


def rises(per: pd.DataFrame, reps: int) -> pd.DataFrame:
    """Per table, rule and kind: each group's miss against the package's on the same
    sequences, the largest rise and the largest fall (in Monte Carlo se of the package's)."""
    base = per[per["rule"] == next(iter(RULES))].set_index(["table", "interval", "group"])
    out = []
    for key, g in per[per["rule"] != next(iter(RULES))].groupby(["table", "rule", "interval"]):
        old = base.loc[[(key[0], key[2], x) for x in g["group"]], "some look misses"].to_numpy()
        new = g["some look misses"].to_numpy()
        se = np.sqrt(np.maximum(old * (1 - old), 1.0 / reps) / reps)
        d = (new - old) / se
        up, down = int(d.argmax()), int(d.argmin())
        out.append({
            "table": key[0], "rule": key[1], "interval": key[2],
            "largest rise (se)": float(d.max()), "group rising": g["group"].iloc[up],
            "largest fall (se)": float(-d.min()), "group falling": g["group"].iloc[down],
            "groups up": int((new > old).sum()), "groups down": int((new < old).sum()),
        })  # fmt: skip
    return pd.DataFrame(out)


def pairs(t: v.Table, sim: v.Looks) -> pd.DataFrame:
    """The harness's every-pair rows (the rules change no pair)."""
    rows = v.every_pair(t, sim, sim.labels / sim.labels[-1])
    return pd.DataFrame([{"table": t.name, **r} for r in rows])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=500)
    p.add_argument("--looks", type=int, default=10)
    p.add_argument("--tables", default="summeval,wmt22")
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--poolings", default="auto,separate")
    p.add_argument("--cache", type=Path, default=None)
    p.add_argument("--out", type=Path, default=None, help="CSV stem of the per-group rows")
    p.add_argument("--skip-pairs", action="store_true", help="no pair rows (no rule moves them)")
    args = p.parse_args()
    fmt = {"float_format": lambda x: f"{x:.3f}", "index": False}
    per_all = []
    for t in v.load_tables(args.data, tuple(args.tables.split(","))):
        t.pair, _ = v.pick_pair(t, 0)  # as the harness's run, so the same sequences
        for pooling in args.poolings.split(","):
            start = time.process_time()
            sim = load_or_simulate(t, args.reps, args.looks, pooling, args.cache)
            rules = RULES if pooling == "auto" else {"before (scaled by c / z)": before}
            per = every_group_rules(t, sim, rules).assign(pooling=pooling)
            per_all.append(per)
            print(f"\n{t.name}, pooling={pooling} ({time.process_time() - start:.0f} s CPU)")
            print(summary(per, args.reps).to_string(**fmt))
            if pooling == "auto":
                print(rises(per, args.reps).to_string(**fmt))
            if not args.skip_pairs:
                print(pairs(t, sim).to_string(**fmt), flush=True)
            if args.out is not None:
                pd.concat(per_all).to_csv(args.out.with_name(args.out.name + ".csv"), index=False)


if __name__ == "__main__":
    main()
