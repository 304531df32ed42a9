"""Write the two pools behind the report screenshots in docs/report/ (10% labels kept).

    python examples/make_report_inputs.py OUT_DIR [SHARED_DATA_DIR]

``OUT_DIR/summeval_relevance.csv``: the shipped SummEval sample, label = the first
expert's 1-5 relevance rating (ordinal). ``OUT_DIR/wmt22_mqm.csv``: the WMT22 zh-en MQM
table from the shared data folder (skipped with a message when absent), label = the MQM
error score (non-negative, zero-inflated), 10 automatic metrics as judges.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.demo import load_summeval

WMT_METRICS = [
    "COMET-22-refA", "BLEURT-20-refA", "metricx_xxl_MQM_2020-refA", "COMETKiwi-src",
    "UniTE-refA", "MS-COMET-22-refA", "BERTScore-refA", "chrF-refA", "BLEU-refA",
    "SEScore-refA",
]  # fmt: skip


def keep(n: int, seed: int = 0, fraction: float = 0.1) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    mask[np.random.default_rng(seed).permutation(n)[: round(fraction * n)]] = True
    return mask


def main(out: Path, shared: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    df = load_summeval()
    judges = [c for c in df.columns if c.startswith("judge:") and c.endswith("|relevance")]
    df["label"] = df["expert1_relevance"].where(keep(len(df)))
    df[["item", "system", "label", *judges]].to_csv(out / "summeval_relevance.csv", index=False)
    wmt = shared / "wmt22_zhen_mqm" / "wmt22_zhen_mqm_metrics.csv.gz"
    if not wmt.is_file():
        print(f"{wmt} not found: WMT22 pool skipped")
        return
    w = pd.read_csv(wmt, usecols=["system", "seg_id", "mqm", *WMT_METRICS])
    w = w[w["mqm"].notna()].reset_index(drop=True)
    w["item"] = w["system"].astype(str) + "/" + w["seg_id"].astype(str)
    w["label"] = (-w["mqm"]).where(keep(len(w)))  # MQM error magnitude, >= 0
    w[["item", "system", "label", *WMT_METRICS]].to_csv(out / "wmt22_mqm.csv", index=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2] if len(sys.argv) > 2 else "../shared/data"))
