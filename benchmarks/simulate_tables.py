"""Markdown tables of `bacon simulate` output folders, as in EXPERIMENTS.md.

    python -m benchmarks.simulate_tables DIR [DIR ...]

Each row is one design x method x budget of DIR/summary.csv, with RMSE and width as
ratios to ppi_py's PPI++ on a cross-fitted ridge (``ppi-ridge``, uniform design) and to
our uniform AEE, on the same trials.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd


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


def main(argv: list[str]) -> None:
    for folder in argv:
        print(f"\n### {Path(folder).name}\n\n{table(Path(folder))}")


if __name__ == "__main__":
    main(sys.argv[1:])
