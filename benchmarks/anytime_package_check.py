"""The package's own anytime group means on TriviaQA, WMT22 (issue 41; WMT22: the
harness's 150 segments x 16 systems) or SummEval relevance (the shipped sample, 12
systems, the judges' relevance scores): ``Calibrator(engine="freq")``
``estimate_groups(simultaneous=False, anytime=True, max_labels)`` at every look of nested
uniform waves up to 20% (a fit per look, so a few hundred sequences at most), per model the
chance that some look's interval misses the model's full-label mean.

    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_package_check SEQUENCES [LOOKS]
        [--data /tmp/mc_data] [--out stem] [--table trivia|wmt22|summeval]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from benchmarks.small_budget import SUMMEVAL, TRIVIA_JUDGES, WMT_METRICS, WMT_SEGMENTS

#: each table's file, judges and pool arguments (the harness's, benchmarks.anytime_validation)
TABLES = {
    "trivia": ("trivia.csv", TRIVIA_JUDGES,
               {"outcome": "categorical", "levels": (0.0, 1.0), "group": "model"}),
    "wmt22": ("wmt22.parquet", WMT_METRICS, {"outcome": "continuous", "group": "system"}),
    "summeval": (None, None, {"outcome": "continuous", "group": "system"}),
}  # fmt: skip


def load(table: str, data: Path) -> tuple[pd.DataFrame, list[str]]:
    """The table as the harness reads it (label column ``y``) and its judges."""
    if table == "summeval":
        frame = pd.read_csv(SUMMEVAL)
        judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
        return frame.assign(y=frame["expert_mean_relevance"]), judges
    name, judges, _ = TABLES[table]
    path = data / name
    frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    if table == "wmt22":  # the harness's subsample (benchmarks.anytime_validation)
        segs = np.sort(frame["seg_id"].unique())
        keep = np.random.default_rng(0).choice(segs, WMT_SEGMENTS, replace=False)
        frame = frame[frame["seg_id"].isin(keep)].reset_index(drop=True)
    return frame, list(judges)


def run(
    frame: pd.DataFrame, judges: list[str], sequences: int, looks: int, table: str = "trivia"
) -> pd.DataFrame:
    """One row per sequence, look and model: estimate, interval, truth, labels."""
    n = len(frame)
    total = round(0.2 * n)
    sizes = np.diff(np.round(np.linspace(0, total, looks + 1)).astype(int))
    kw = TABLES[table][2]
    truth = frame.groupby(kw["group"])["y"].mean()
    rows, start = [], time.perf_counter()
    for r in range(sequences):
        perm = np.random.default_rng(r).permutation(n)
        wave = np.full(n, np.nan)
        wave[perm[:total]] = np.repeat(np.arange(1, looks + 1), sizes)
        for k in range(1, looks + 1):
            lab = wave <= k
            data = frame.assign(label=frame["y"].where(lab), wave=np.where(lab, wave, np.nan))
            pool = EvalPool.from_frame(data, label="label", judges=list(judges), wave="wave", **kw)
            cal = Calibrator(engine="freq", seed=r).fit(pool)
            tab = cal.estimate_groups(simultaneous=False, anytime=True, max_labels=total)
            n_lab = frame.loc[lab, kw["group"]].value_counts()
            for j, name in enumerate(tab.names):
                rows.append(
                    {"sequence": r, "look": k, "group": name, "estimate": tab.estimate[j],
                     "low": tab.ci_low[j], "high": tab.ci_high[j], "truth": truth[name],
                     "labels": int(n_lab.get(name, 0)), "interval": tab.details.get("interval")}
                )  # fmt: skip
        if (r + 1) % 10 == 0:
            print(f"{r + 1} sequences: {time.perf_counter() - start:.0f} s", flush=True)
    return pd.DataFrame(rows)


def summary(out: pd.DataFrame) -> str:
    miss = (out["low"] > out["truth"]) | (out["high"] < out["truth"])
    some = miss.groupby([out["sequence"], out["group"]]).any()
    by_seq = some.groupby(level="sequence").mean()
    last = out[out["look"] == out["look"].max()]
    return (
        f"some look misses, per model: {some.groupby(level='group').mean().round(3).to_dict()}\n"
        f"mean over models {some.mean():.3f} (se {by_seq.std() / np.sqrt(by_seq.size):.3f}, "
        f"{by_seq.size} sequences); per look {miss.groupby(out['look']).mean().round(3).tolist()}"
        f"; last look's half-width {((last['high'] - last['low']) / 2).mean():.4f}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sequences", type=int)
    p.add_argument("looks", type=int, nargs="?", default=10)
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--table", choices=tuple(TABLES), default="trivia")
    args = p.parse_args()
    warnings.filterwarnings("ignore")
    frame, judges = load(args.table, args.data)
    out = run(frame, judges, args.sequences, args.looks, args.table)
    if args.out:
        out.to_csv(args.out.with_suffix(".csv"), index=False)
    print(summary(out))


if __name__ == "__main__":
    main()
