"""Markdown table of `bacon simulate --group --prompt` folders: designs x methods, the
pairwise differences of group means first (issue 32), as in EXPERIMENTS.md.

    python -m benchmarks.comparison_tables DIR [DIR ...]

One row per (folder, design, method) of DIR/summary.csv: the differences' RMSE (median
over pairs) and its ratio to the uniform AEE's, pointwise coverage (mean and worst pair)
and simultaneous coverage of the differences, the share of pairs resolved, the group
means' simultaneous coverage, Kendall's tau of the ranking, the mean rank-interval width,
and the pool mean's RMSE with its ratio to the uniform AEE's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

COLUMNS = (
    "data", "design", "method", "diff RMSE (median)", "/ uniform AEE", "diff cov (worst)",
    "diff simult. cov", "resolved", "groups simult. cov", "Kendall", "rank width",
    "pool-mean RMSE", "/ uniform AEE ",
)  # fmt: skip


def _f(v: object, digits: int = 3) -> str:
    return "-" if pd.isna(v) else f"{v:.{digits}f}"  # type: ignore[str-format]


def rows(folder: Path) -> list[list[str]]:
    s = pd.read_csv(folder / "summary.csv")
    base = s[(s["design"] == "uniform") & (s["method"] == "aee")].iloc[0]
    out = []
    for _, r in s.sort_values(["design", "method"]).iterrows():
        if r["method"].startswith("ppi"):
            continue
        pool = r["method"] != "cje"
        out.append(
            [
                folder.name, r["design"], r["method"], _f(r["diff_rmse_median"], 4),
                _f(r["diff_rmse_median"] / base["diff_rmse_median"]),
                f"{_f(r['diff_coverage'])} ({_f(r['diff_coverage_min'])})",
                _f(r.get("diff_simultaneous_coverage")), _f(r.get("diff_resolved")),
                _f(r.get("simultaneous_coverage")), _f(r["kendall"]), _f(r.get("rank_width"), 2),
                _f(r["rmse"], 4) if pool else "-",
                _f(r["rmse"] / base["rmse"]) if pool else "-",
            ]
        )  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> None:
    folders = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for folder in folders:
        for row in rows(folder):
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
