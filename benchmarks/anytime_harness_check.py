"""Does issue 41's harness (:mod:`benchmarks.anytime_validation`) stand for the package?
On the harness's own uniform SummEval relevance sequences, each look's fixed group
intervals from ``Calibrator(engine="freq").estimate_groups(simultaneous=False)`` (a fit per
look) against the harness's, for ``pooling="separate"`` and ``"auto"``: per look, the
chance that a group's interval misses its full-label mean (averaged over the groups with
an interval), the paired difference with its Monte Carlo se, RMSE, median se and the
largest difference of an interval's end (the harness computes what the package does, so
it should be 0 up to rounding); and the same largest difference for the pair
``t.pair``'s fixed interval.

    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_harness_check [--sequences 100]
        [--looks 10] [--seed 11] [--cache /tmp/pkg.npz]

``--cache``: the package's intervals are read from (or, absent, written to) this file.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks import anytime_validation as v

POOLINGS = ("separate", "auto")


def package_intervals(t: v.Table, order: np.ndarray, labels: np.ndarray) -> dict:
    """Per pooling (4, R, m, K): the package's estimate, se, interval ends (NaN: none); and
    under ``"<pooling> pair"`` (4, R, K) the same of the table's pair's difference
    (``compare_groups(anytime=True)``'s fixed basis: ``compare(resampled=False)``)."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.estimate import compare

    frame = pd.read_csv(v.SUMMEVAL)
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    names = list(t.groups)
    reps, looks = order.shape[0], labels.size
    out = {p: np.full((4, reps, len(names), looks), np.nan) for p in POOLINGS}
    out |= {f"{p} pair": np.full((4, reps, looks), np.nan) for p in POOLINGS}
    a, b = t.pair
    for r in range(reps):
        for k in range(looks):
            lab = np.zeros(t.n, bool)
            lab[order[r, : int(labels[k])]] = True
            pool = EvalPool.from_frame(
                frame.assign(label=np.where(lab, t.y, np.nan)), label="label", judges=judges,
                outcome="continuous", group="system", item="item",
            )  # fmt: skip
            cal = Calibrator(engine="freq", seed=r).fit(pool)
            for p in POOLINGS:
                tab = cal.estimate_groups(simultaneous=False, pooling=p)
                for j, name in enumerate(tab.names):
                    if np.isfinite(tab.ci_low[j]):
                        out[p][:, r, names.index(name), k] = (
                            tab.estimate[j], tab.se[j], tab.ci_low[j], tab.ci_high[j]
                        )  # fmt: skip
                # the basis of compare_groups(anytime=True), which the harness computes
                lo, hi = cal.bounds_
                d = compare(tab, resampled=False).clip(lo - hi, hi - lo)
                key, flip = f"{names[a]} - {names[b]}", 1.0
                if key not in d.names:
                    key, flip = f"{names[b]} - {names[a]}", -1.0
                j = list(d.names).index(key)
                ends = sorted((flip * d.ci_low[j], flip * d.ci_high[j]))
                out[f"{p} pair"][:, r, k] = flip * d.estimate[j], d.se[j], *ends
    return out


def pair_end_diff(t: v.Table, sim: v.Looks, pkg_pair: np.ndarray) -> np.ndarray:
    """Per look, the largest difference of the pair's fixed interval ends between the
    package and the harness (:func:`benchmarks.anytime_validation.difference`; infinite
    where only one side has an interval)."""
    d_e, d_se, _df, _t, d_lo, d_hi = v.difference(t, sim)
    ours = np.stack([d_e - d_lo * d_se, d_e + d_hi * d_se])
    theirs = pkg_pair[2:]
    # no interval on both sides: agreement; on one side only: infinitely apart
    gap = np.where(np.isnan(ours) & np.isnan(theirs), 0.0, np.abs(ours - theirs))
    return np.where(np.isnan(gap), np.inf, gap).max(axis=(0, 1))


def compare(t: v.Table, sim: v.Looks, pkg: np.ndarray) -> pd.DataFrame:
    """One row per look: package and harness miss, paired difference, RMSE, median se."""
    truth = np.array([t.y[t.g == h].mean() for h in range(t.groups.size)])[None, :, None]
    pe, pse, plo, phi = pkg
    e, se, _df, _crit, lo, hi = sim.group[:6]
    with np.errstate(invalid="ignore", divide="ignore"):
        pm = np.where(np.isfinite(plo), (plo > truth) | (phi < truth), np.nan)
        err = (e - truth) / se
        hm = np.where(np.isfinite(err), (err > lo) | (-err > hi), np.nan)
    both = np.isfinite(pm) & np.isfinite(hm)
    ends = np.abs(np.stack([plo - (e - lo * se), phi - (e + hi * se)]))  # (2, R, m, K)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        paired = np.nanmean(np.where(both, pm - hm, np.nan), axis=1)  # (R, K)
        reps = np.isfinite(paired).sum(axis=0)

        def rmse(x: np.ndarray) -> np.ndarray:
            return np.sqrt(np.nanmean(np.where(both, (x - truth) ** 2, np.nan), axis=(0, 1)))

        return pd.DataFrame({
            "look": np.arange(1, sim.labels.size + 1), "labels": sim.labels.astype(int),
            "intervals package": np.isfinite(pm).sum(axis=(0, 1)),
            "intervals harness": np.isfinite(hm).sum(axis=(0, 1)),
            "miss package": np.nanmean(pm, axis=(0, 1)),
            "miss harness": np.nanmean(hm, axis=(0, 1)),
            "paired diff": np.nanmean(paired, axis=0),
            "mc se": np.nanstd(paired, axis=0) / np.sqrt(np.maximum(reps, 1)),
            "rmse package": rmse(pe), "rmse harness": rmse(e),
            "median se package": np.nanmedian(np.where(both, pse, np.nan), axis=(0, 1)),
            "median se harness": np.nanmedian(np.where(both, se, np.nan), axis=(0, 1)),
            "max end diff": np.nanmax(np.where(both, ends, np.nan), axis=(0, 1, 2)),
        })  # fmt: skip


def last_look(t: v.Table, sequences: int, seed: int) -> pd.DataFrame:
    """The last look of a few uniform sequences (10 looks): this estimate against
    ``Calibrator(engine="freq")`` with ``anytime=True, max_labels`` on the same labels."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.estimate import anytime as at

    sim = v.simulate(t, "uniform", sequences, 10, seed)
    frame = pd.read_csv(v.SUMMEVAL)
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    a, b = t.pair
    times = sim.labels / sim.labels[-1]
    info = at.effective_labels(sim.labels, float(t.n))
    c = at.sequential_critical_value(info, v.ALPHA, times=times)
    rows = []
    for r in range(sequences):
        wave = np.full(t.n, np.nan)
        bounds = np.concatenate([[0], sim.labels.astype(int)])
        for k in range(10):
            wave[sim.order[r, bounds[k] : bounds[k + 1]]] = k + 1
        data = frame.assign(label=np.where(np.isfinite(wave), t.y, np.nan), wave=wave)
        pool = EvalPool.from_frame(
            data, label="label", judges=judges, outcome="continuous", group="system",
            item="item", wave="wave",
        )  # fmt: skip
        cal = Calibrator(engine="freq", scale=(1, 5)).fit(pool)
        top = int(sim.labels[-1])
        m = cal.estimate_mean(anytime=True, max_labels=top)
        d = cal.compare_groups(simultaneous=False, anytime=True, max_labels=top)
        pair, flip = f"{t.groups[a]} - {t.groups[b]}", 1.0
        if pair not in d.names:
            pair, flip = f"{t.groups[b]} - {t.groups[a]}", -1.0
        tc = float(at.studentised(c, sim.pool[2][r, -1]))
        fast_d = sim.group[0][r, a, -1] - sim.group[0][r, b, -1]
        fast_sd = np.hypot(sim.group[1][r, a, -1], sim.group[1][r, b, -1])
        rows.append(
            {"sequence": r, "mean fast": sim.pool[0][r, -1], "mean calibrator": m.estimate,
             "half fast": tc * sim.pool[1][r, -1], "half calibrator": (m.ci_high - m.ci_low) / 2,
             "diff fast": fast_d, "diff calibrator": flip * float(d[pair].estimate),
             "diff se fast": fast_sd, "diff se calibrator": float(d[pair].se)}
        )  # fmt: skip
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sequences", type=int, default=100)
    ap.add_argument("--looks", type=int, default=10)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cache", type=Path)
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    t = v.load_tables(Path("/nonexistent"), ("summeval",))[0]
    sims = {p: v.simulate(t, "uniform", a.sequences, a.looks, a.seed, pooling=p) for p in POOLINGS}
    order, labels = sims["auto"].order, sims["auto"].labels
    if a.cache is not None and a.cache.exists():
        cached = np.load(a.cache)
        if not np.array_equal(cached["order"], order):
            raise SystemExit(f"{a.cache} holds other sequences; remove it or pick another path")
        if any(f"{p} pair" not in cached for p in POOLINGS):
            raise SystemExit(f"{a.cache} lacks the pair's intervals; remove it")
        pkg = {key: cached[key] for key in cached.files if key != "order"}
    else:
        pkg = package_intervals(t, order, labels)
        if a.cache is not None:
            np.savez(a.cache, order=order, **pkg)
    for p in POOLINGS:
        print(f"\npooling={p}, {a.sequences} sequences, seed {a.seed}")
        print(compare(t, sims[p], pkg[p]).to_string(index=False, float_format="%.3f"))
        pair = f"{t.groups[t.pair[0]]} - {t.groups[t.pair[1]]}"
        print(f"pair {pair}: max end diff per look", pair_end_diff(t, sims[p], pkg[f"{p} pair"]))


if __name__ == "__main__":
    main()
