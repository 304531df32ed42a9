"""How long ``bacon doctor`` takes on a large table nobody prepared: the shipped SummEval
sample grown to 200,400 rows (each row copied with new ids, 30% labeled, the summary text
kept), against reading the same CSV with pandas in the same process (target: at most 200x).

Command: ``python -m benchmarks doctor_large`` (part of ``make bench``). Each of the two is
timed ``REPEATS`` times, interleaved; the figures are the medians and their ratio.
"""

from __future__ import annotations

import contextlib
import io
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.cli import main as bacon
from bacon_bayes.demo import load_summeval
from benchmarks import print_ratios

ROWS = 200_400
REPEATS = 3
TARGET = 200.0
JUDGES = {
    "judge:gpt-4-0314|rts|relevance": "gpt4_relevance",
    "judge:llama-2-70b-chat-hf|rts|relevance": "llama70b_relevance",
    "judge:gpt-3.5-turbo-0301|rts|relevance": "gpt35_relevance",
}


def table(rows: int = ROWS, seed: int = 0) -> pd.DataFrame:
    """The SummEval sample's relevance table copied to ``rows`` rows with new ids."""
    sample = load_summeval()
    base = sample.rename(columns={**JUDGES, "doc_id": "document"})
    base = base[["item", "document", "system", "summary", *JUDGES.values()]].copy()
    base["human_relevance"] = sample["expert_mean_relevance"]
    copies = -(-rows // len(base))
    big = pd.concat([base] * copies, ignore_index=True).iloc[:rows]
    big["item"] = [f"{i}/{k}" for k, i in enumerate(big["item"])]
    big["document"] = big["document"] + "/" + (np.arange(len(big)) // len(base)).astype(str)
    rng = np.random.default_rng(seed)
    big.loc[rng.random(len(big)) >= 0.3, "human_relevance"] = np.nan
    return big


def measure(path: Path, repeats: int = REPEATS) -> dict[str, float]:
    """Median seconds of ``pd.read_csv`` and of ``bacon doctor`` on ``path``."""
    times: dict[str, list[float]] = {"pd.read_csv": [], "bacon doctor": []}
    for _ in range(repeats):
        start = time.perf_counter()
        pd.read_csv(path)
        times["pd.read_csv"].append(time.perf_counter() - start)
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            assert bacon(["doctor", str(path)]) == 0
        times["bacon doctor"].append(time.perf_counter() - start)
    return {name: statistics.median(v) for name, v in times.items()}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        table().to_csv(path, index=False)
        medians = measure(path)
    print(f"{ROWS:,} rows, median of {REPEATS} runs each, ratio to pd.read_csv:")
    print_ratios(medians, "pd.read_csv", TARGET, lambda n, v, r: f"  {n:14s} {v:7.2f} s  {r:6.1f}x")


if __name__ == "__main__":
    main()
