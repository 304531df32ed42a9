"""Simultaneous group coverage of `bacon simulate --group` folders, in all trials and in
the first ``--head`` (200 by default), with the mean width of the group intervals.

    python -m benchmarks.group_coverage_table DIR [DIR ...] [--head 200]

A withheld group interval (fewer labels than ``Calibrator`` gives an interval for)
counts as covering, as in the summary's ``simultaneous_coverage``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.simulation.montecarlo import coverage_band


def _cell(hits: np.ndarray) -> str:
    low, high = coverage_band(hits.size, 0.95)
    cov = float(hits.mean())
    out = "" if low <= cov <= high else " **out**"
    return f"{cov:.3f} [{low:.3f}, {high:.3f}]{out} ({hits.size})"


def rows(folder: Path, head: int) -> list[str]:
    """One table row per method of ``folder``'s trials."""
    t = pd.read_parquet(folder / "trials.parquet")
    groups = sorted({c.split(":")[1] for c in t if c.startswith("group:") and c.endswith(":truth")})
    out = []
    for method, s in t.groupby("method", sort=True):
        cols = [f"group:{g}:estimate" for g in groups]
        s = s[s[cols].notna().all(axis=1)]
        if s.empty:
            continue
        low = s[[f"group:{g}:ci_low" for g in groups]].to_numpy(float)
        high = s[[f"group:{g}:ci_high" for g in groups]].to_numpy(float)
        truth = s[[f"group:{g}:truth" for g in groups]].iloc[0].to_numpy(float)
        shown = np.isfinite(low)
        hits = np.all(((low <= truth) & (truth <= high)) | ~shown, axis=1)
        first = hits[s["trial"].to_numpy() < head]
        width = float(np.mean((high - low)[shown]))
        out.append(f"| {folder.name} | {method} | {_cell(hits)} | {_cell(first)} | {width:.3f} |")
    return out


def main(argv: list[str]) -> None:
    head = 200
    if "--head" in argv:
        at = argv.index("--head")
        head = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    print(
        f"| run | method | simult. coverage, all trials | simult. coverage, trials 0-{head - 1}"
        " | mean group CI width |\n|---|---|---|---|---|"
    )
    for folder in argv:
        print("\n".join(rows(Path(folder), head)))


if __name__ == "__main__":
    main(sys.argv[1:])
