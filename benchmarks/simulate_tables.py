"""Markdown tables of `bacon simulate` output folders, as in EXPERIMENTS.md.

    python -m benchmarks.simulate_tables DIR [DIR ...]
    python -m benchmarks.simulate_tables --pool DIR [DIR ...]

Each row is one design x method x budget of DIR/summary.csv, with RMSE and width as
ratios to ppi_py's PPI++ on a cross-fitted ridge (``ppi-ridge``, uniform design) and to
our uniform AEE, on the same trials. ``--pool``: one table of the trials of several runs
of the same table and settings with other ``--seed`` values (new draws), with a 95%
paired bootstrap interval (2,000 resamples of the draws) of each row's RMSE ratio to
ppi-ridge.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.simulation.montecarlo import coverage_band


def _fmt(value: object) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def table(folder: Path) -> str:
    summary = pd.read_csv(folder / "summary.csv")
    rows = []
    for budget, part in summary.groupby("budget"):
        idx = part.set_index(["design", "method"])
        ref = idx.loc[("uniform", "ppi-ridge")] if ("uniform", "ppi-ridge") in idx.index else None
        ours = idx.loc[("uniform", "aee")]
        for (design, method), r in idx.iterrows():
            band = f"[{r['band_low']:.3f}, {r['band_high']:.3f}]"
            row = {
                "budget": budget, "design": design, "method": method, "by": r["by"],
                "trials": int(r["trials"]), "bias": r["bias"], "rmse": r["rmse"],
                "width": r["width"],
                "coverage [band]": f"{r['coverage']:.3f} {band}"
                + ("" if r["coverage_in_band"] else " **out**"),
                "RMSE / ppi-ridge": r["rmse"] / ref["rmse"] if ref is not None else np.nan,
                "RMSE / uniform aee": r["rmse"] / ours["rmse"],
                "width / ppi-ridge": r["width"] / ref["width"] if ref is not None else np.nan,
            }  # fmt: skip
            if "group_trials" in r and pd.notna(r["group_trials"]) and r["group_trials"] > 0:
                row["groups: simult. cov / Spearman / rank MAE / rank cov (trials)"] = (
                    f"{r['simultaneous_coverage']:.3f} / {r['spearman']:.3f} / "
                    f"{r['rank_mae']:.2f} / {r['rank_coverage']:.3f} ({int(r['group_trials'])})"
                )
            rows.append(row)
    frame = pd.DataFrame(rows)
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(_fmt(v) for v in r) + " |" for r in frame.itertuples(index=False)]
    return "\n".join(lines)


def pooled(folders: list[Path], reps: int = 2000, seed: int = 0) -> str:
    """One table over the trials of several runs (draws told apart by run and trial)."""
    parts = []
    for k, folder in enumerate(folders):
        t = pd.read_parquet(folder / "trials.parquet")
        parts.append(t.assign(draw=k * 1_000_000 + t["trial"]))
    trials = pd.concat(parts, ignore_index=True)
    lines = ["| budget | design | method | trials | rmse | width | coverage [band] | "
             "RMSE / ppi-ridge [95% paired bootstrap] | RMSE / uniform aee | width / ppi-ridge |",
             "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    rng = np.random.default_rng(seed)
    for budget, part in trials.groupby("budget"):
        err = part.assign(e2=(part["estimate"] - part["truth"]) ** 2)
        sq = err.pivot_table(index="draw", columns=["design", "method"], values="e2")
        width = (part["ci_high"] - part["ci_low"]).groupby([part["design"], part["method"]]).mean()
        inside = (part["ci_low"] <= part["truth"]) & (part["truth"] <= part["ci_high"])
        cover = inside.groupby([part["design"], part["method"]]).agg(["mean", "size"])
        picks = rng.integers(0, len(sq), size=(reps, len(sq)))
        ref, ours = ("uniform", "ppi-ridge"), ("uniform", "aee")
        for key in sq.columns:
            col = sq[key].to_numpy()
            rmse = float(np.sqrt(np.nanmean(col)))
            ratio, ci = np.nan, ""
            if ref in sq:
                base = sq[ref].to_numpy()
                ratio = rmse / float(np.sqrt(np.nanmean(base)))
                boot = np.sqrt(np.nanmean(col[picks], axis=1) / np.nanmean(base[picks], axis=1))
                ci = f" [{np.quantile(boot, 0.025):.3f}, {np.quantile(boot, 0.975):.3f}]"
            n = int(cover.loc[key, "size"])
            lo, hi = coverage_band(n, 0.95)
            c = float(cover.loc[key, "mean"])
            flag = "" if lo <= c <= hi else " **out**"
            ref_w = width.get(ref, np.nan)
            lines.append(
                f"| {budget:.2f} | {key[0]} | {key[1]} | {n} | {rmse:.4f} | {width[key]:.4f} | "
                f"{c:.3f} [{lo:.3f}, {hi:.3f}]{flag} | {ratio:.3f}{ci} | "
                f"{rmse / np.sqrt(np.nanmean(sq[ours])):.3f} | {width[key] / ref_w:.3f} |"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--pool":
        print(pooled([Path(f) for f in argv[1:]]))
        return
    for folder in argv:
        print(f"\n### {Path(folder).name}\n\n{table(Path(folder))}")


if __name__ == "__main__":
    main(sys.argv[1:])
