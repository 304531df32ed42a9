"""Rebuild the shipped SummEval sample from ``../shared/data`` (run from the repo root).

python examples/make_sample.py
"""

from pathlib import Path

import pandas as pd

SRC = Path("../shared/data/summeval_llm_judges/summeval_llm_judges_wide.csv.gz")
OUT = Path("bacon_bayes/data/summeval_sample.csv.gz")


def main() -> None:
    df = pd.read_csv(SRC)
    keep = ["doc_id", "system", "summary"]
    keep += [c for c in df.columns if c.startswith(("expert", "judge:"))]
    out = df[keep].copy()
    out.insert(0, "item", out["doc_id"].astype(str) + "/" + out["system"].astype(str))
    out.to_csv(OUT, index=False, compression={"method": "gzip", "mtime": 0})
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e3:.0f} kB, {len(out)} rows)")


if __name__ == "__main__":
    main()
