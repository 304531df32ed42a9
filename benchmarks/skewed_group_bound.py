"""What no interval can do for WMT22's M2M100_1.2B-B4 (issue 41): a two-point (Le Cam)
bound on its own residuals, on the anytime harness's uniform sequences.

    PYTHONPATH=. python -m benchmarks.skewed_group_bound --data /tmp/h2_data \\
        --cache /tmp/h2_sims [--reps 500] [--looks 10]

WMT22's MQM is open above (``0:inf``): Bahadur & Savage (1956) showed that no interval of
finite width covers the mean of every distribution on an unbounded range. Here it is made
concrete on the group's own table. ``F`` is the table as it is. ``F'_k`` is the same
table, every item and judge score unchanged, but the labels of the group's ``k`` items of
largest residual (a ridge of the label on all judges fitted on the whole table) lowered
to what the judges predict plus the mean residual of the group's other items (at least 0):
its true mean falls by ``Delta_k``. A sequence whose labels have not met those ``k``
items (event ``E_k``, the same chance under both: the waves are uniform) sees data of
the same law under ``F`` and ``F'_k``, look after look. So for any procedure whose
interval at look ``j`` is narrower than ``Delta_k`` (it cannot hold both means):

    P_F(some look misses) >= P(some look j: E_kj and width_j < Delta_k) - P_F'(some look misses)

and a procedure that holds at ``alpha`` on both needs ``P(some look j: E_kj and width_j <
Delta_k) <= 2 alpha`` (Le Cam's two-point method; the event's law is what both share).
The script reads the package's widths at each look from the harness's simulation
(:mod:`benchmarks.anytime_shrunk_floor`'s cache, ``pooling="auto"``: the same 500
sequences as issue 41's figures, the package's own floor at the shrunk looks included)
and prints, per ``k``, the event's chance
at the package's widths, the least miss of any procedure no wider than the package at
every look that holds at 0.05 for ``F'_k`` (the chance less 0.05), and the least factor
``s`` by which every look's interval would have to exceed the package's before the event's
chance is ``2 alpha`` or less (below 1: the package is already wider than the bound asks);
per look, for one ``k``, the package's median width on ``E_k`` against ``Delta_k``. Then
Bahadur and Savage's direction: the group's item of largest residual, its label *raised*
by ``M``; on an open scale ``M`` has no end, and the script prints the largest ``M``
against which any procedure no wider than the package can hold on both tables.

What it proves: a floor on the miss of any procedure that is valid for both tables and
no wider than the package, whatever it borrows from the other groups, the judges or the
skewness (their data are the same under ``F`` and ``F'_k``); and that no procedure of
finite width is valid for every table on ``0:inf`` (one unseen label raised far enough).
What it does not: that the package reaches the floor, or that another family of
alternatives would not give a higher one. Measured (EXPERIMENTS.md, "The worst single
group across looks"): the floor is 0 at every ``k``, the package is 3-10 times wider than
``Delta_k`` where the event is likely, and only a raise of one label by 500-800 MQM
(the table's largest label: 50) defeats its widths: M2M100's misses are the place of
its intervals (low, where the labels have not met its tail), not their width.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.estimate import anytime as at
from benchmarks import anytime_validation as v
from benchmarks.anytime_groups import own_floor
from benchmarks.anytime_shrunk_floor import load_or_simulate

ALPHA = v.ALPHA
GROUP = "M2M100_1.2B-B4"
TOPS = (1, 3, 8, 16, 30, 50)
#: the ``k`` of the per-look rows
LOOK_K = 16


def lowered(t: v.Table, h: int, k: int) -> tuple[np.ndarray, float]:
    """Group ``h``'s ``k`` items of largest residual (indices into the table) and
    ``Delta_k``, the fall of its true mean when their labels are lowered (module
    docstring)."""
    beta = np.linalg.lstsq(t.X, t.y, rcond=None)[0]
    fit = t.X @ beta
    rows = np.flatnonzero(t.g == h)
    resid = t.y[rows] - fit[rows]
    top = rows[np.argsort(-resid)[:k]]
    rest = np.setdiff1d(rows, top)
    new = np.maximum(fit[top] + (t.y[rest] - fit[rest]).mean(), 0.0)
    return top, float((t.y[top] - new).sum() / rows.size)


def widths(t: v.Table, sim: v.Looks, h: int) -> dict[str, np.ndarray]:
    """Group ``h``'s interval width at each look (R, K) per kind, as the harness reads
    it (:func:`benchmarks.anytime_validation.every_group`, the package's own floor at
    shrunk looks included; NaN: no interval)."""
    times = sim.labels / sim.labels[-1]
    fields = [x[:, h] for x in sim.group]
    _, se, df, tc, lo, hi = fields[:6]
    info = at.effective_labels(sim.group_n[:, h], float((t.g == h).sum()))
    crit, floor = v.critical(info, times), v.critical(info, times, 2 * ALPHA)
    out = {}
    for kind in v.KINDS:
        with np.errstate(invalid="ignore", divide="ignore"):
            if kind == "fixed":
                out[kind] = (lo + hi) * se
                continue
            f = v.anytime_half(tc, df, crit[kind]) / tc
            low, high = own_floor(f * lo, f * hi, floor[kind], fields)
            out[kind] = (low + high) * se
    return out


def unmet(sim: v.Looks, top: np.ndarray) -> np.ndarray:
    """(R, K): the sequence's labels up to look ``j`` include none of ``top``."""
    hit = np.isin(sim.order, top)
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), sim.order.shape[1])
    return first[:, None] >= sim.labels[None, :]


def bound_rows(t: v.Table, sim: v.Looks, h: int) -> pd.DataFrame:
    """Per kind and ``k``: ``Delta_k``, the chance that the first look has not met the
    ``k`` items, the shared event's chance at the package's widths over the looks, the
    least miss it implies and the least factor ``s`` (module docstring)."""
    wid = widths(t, sim, h)
    rows = []
    for k in TOPS:
        top, delta = lowered(t, h, k)
        e_k = unmet(sim, top)
        for kind, w in wid.items():
            with np.errstate(invalid="ignore", divide="ignore"):
                narrow = e_k & (w < delta)  # NaN width: no interval, cannot miss
                ratio = np.where(e_k & np.isfinite(w), delta / w, 0.0)
            event = float(narrow.any(axis=1).mean())
            rows.append({
                "kind": kind, "k": k, "delta": delta, "P(E_k), look 1": float(e_k[:, 0].mean()),
                "P(E_k), look 5": float(e_k[:, min(4, e_k.shape[1] - 1)].mean()),
                "event at the package's widths": event, "least miss": max(event - ALPHA, 0.0),
                "least factor s": float(np.quantile(ratio.max(axis=1), 1.0 - 2 * ALPHA)),
            })  # fmt: skip
    return pd.DataFrame(rows)


def raised(t: v.Table, sim: v.Looks, h: int) -> pd.DataFrame:
    """Bahadur and Savage's direction: the group's item of largest residual, its label
    raised by ``M`` (the true mean up by ``M / N_g``). Per kind, the largest ``M`` against
    which a procedure no wider than the package at every look can hold at ``alpha`` on
    both tables (the ``2 alpha`` quantile of the narrowest width at the looks that have
    not met the item, times ``N_g``), beside the item's label and the table's largest."""
    top, _ = lowered(t, h, 1)
    e_1 = unmet(sim, top)
    size = int((t.g == h).sum())
    rows = []
    for kind, w in widths(t, sim, h).items():
        narrowest = np.where(e_1 & np.isfinite(w), w, np.inf).min(axis=1)
        delta = float(np.quantile(narrowest, 2 * ALPHA))
        rows.append({
            "kind": kind, "P(item unmet), look 1": float(e_1[:, 0].mean()),
            "P(item unmet), last look": float(e_1[:, -1].mean()),
            "largest raise M": delta * size, "mean up by": delta,
            "the item's label": float(t.y[top[0]]), "the table's largest label": float(t.y.max()),
        })  # fmt: skip
    return pd.DataFrame(rows)


def look_rows(t: v.Table, sim: v.Looks, h: int, k: int) -> pd.DataFrame:
    """Per look, for ``k``: the group's labels (median), ``P(E_k)`` and the package's
    median width on ``E_k`` per kind, against ``Delta_k``."""
    top, delta = lowered(t, h, k)
    e_k = unmet(sim, top)
    out = pd.DataFrame({"look": np.arange(1, e_k.shape[1] + 1),
                        "labels of the group (median)": np.median(sim.group_n[:, h], axis=0),
                        "P(E_k)": e_k.mean(axis=0), "delta_k": delta})  # fmt: skip
    for kind, w in widths(t, sim, h).items():
        with np.errstate(invalid="ignore"):
            out[f"median width on E_k, {kind}"] = np.nanmedian(np.where(e_k, w, np.nan), axis=0)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=500)
    p.add_argument("--looks", type=int, default=10)
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--cache", type=Path, default=None)
    p.add_argument("--group", default=GROUP)
    args = p.parse_args()
    tables = v.load_tables(args.data, ("wmt22",))
    if not tables:
        return
    t = tables[0]
    t.pair, _ = v.pick_pair(t, 0)
    sim = load_or_simulate(t, args.reps, args.looks, "auto", args.cache)
    h = list(t.groups).index(args.group)
    truth = t.y[t.g == h]
    print(f"{args.group}: {truth.size} items, mean {truth.mean():.3f}")
    fmt = {"float_format": lambda x: f"{x:.3f}", "index": False}
    print(bound_rows(t, sim, h).to_string(**fmt))
    print(f"\nper look, k = {LOOK_K}:")
    print(look_rows(t, sim, h, LOOK_K).to_string(**fmt))
    print("\none unseen label raised (Bahadur and Savage):")
    print(raised(t, sim, h).to_string(**fmt))


if __name__ == "__main__":
    main()
