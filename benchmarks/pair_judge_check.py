"""The pairwise judge diagnostics on arena_ppr against its SOURCE.txt (run from the repo root).

python -m benchmarks.pair_judge_check

Prints a markdown table per data set: the full arena_ppr copy (every row has a human
vote; skipped when absent) and the shipped ``bacon_bayes/data/arena_sample.csv.gz``
(3,000 rows, 400 human votes). SOURCE.txt says: GPT-3.5 says A 86% of the time; 3-way
agreement / kappa 0.555 / 0.33 (GPT-4), 0.475 / 0.21 (Claude 3 Opus), 0.400 / 0.07
(GPT-3.5).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bacon_bayes.doctor.pairs import pair_judge_diagnostics
from bacon_bayes.readers.pairwise import read_arena
from benchmarks.make_arena_sample import JUDGES as SAMPLE_JUDGES
from benchmarks.make_arena_sample import SRC as FULL

SAMPLE = Path("bacon_bayes/data/arena_sample.csv.gz")
#: arena_ppr's judge column -> the sample's short name
JUDGES = {col: name for name, col in SAMPLE_JUDGES.items()}


def table(diag: pd.DataFrame) -> str:
    """The diagnostics as a markdown table, each estimate with its 95% interval."""

    def ci(row: pd.Series, est: str, lo: str, hi: str) -> str:
        if pd.isna(row[est]):
            return ""
        return f"{row[est]:.3f} [{row[lo]:.3f}, {row[hi]:.3f}]"

    lines = [
        "| judge | n | P(A) | P(B) | tie rate | position bias P(A)-P(B) | excess over human "
        "| agreement | kappa | AUC |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for _, r in diag.iterrows():
        agree = "" if pd.isna(r["agreement"]) else f"{r['agreement']:.3f}"
        lines.append(
            f"| {r['judge']} | {r['n']} | {r['p_a']:.3f} | {r['p_b']:.3f} "
            f"| {ci(r, 'tie_rate', 'tie_lo', 'tie_hi')} "
            f"| {ci(r, 'position_bias', 'position_lo', 'position_hi')} "
            f"| {ci(r, 'excess_position_bias', 'excess_lo', 'excess_hi')} | {agree} "
            f"| {ci(r, 'kappa', 'kappa_lo', 'kappa_hi')} | {ci(r, 'auc', 'auc_lo', 'auc_hi')} |"
        )
    return "\n".join(lines)


def main() -> None:
    if FULL.exists():
        df, _ = read_arena(FULL, judges=list(JUDGES))
        df = df.rename(columns=JUDGES)
        print(f"arena_ppr, all {len(df)} comparisons (label = human_label):\n")
        print(table(pair_judge_diagnostics(df, "label", list(JUDGES.values()))))
    else:
        print(f"{FULL} absent: the full table is skipped")
    df, meta = read_arena(SAMPLE)
    print(f"\n{SAMPLE}, {len(df)} comparisons, {int(df['label'].notna().sum())} labeled:\n")
    print(table(pair_judge_diagnostics(df, "label", meta.judges)))


if __name__ == "__main__":
    main()
