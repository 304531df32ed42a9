"""Build the README's example pool from the shipped SummEval sample (run from the repo root).

python -m benchmarks.make_example_pool

``bacon_bayes/data/example_pool.csv``: the 1,200 SummEval summaries with six LLM judges
of relevance under short names, the expert mean relevance (1-5) kept for 10% of the
items (a uniform draw, seed 0) in ``human`` and empty elsewhere, ``system``, ``doc_id``
and a short readable ``id`` (``d<document number>-<system>``).

``example_round1.csv`` and ``example_round2.csv``: the same rows split into two releases
for the README's next-round commands: round 1 the eight systems in :data:`ROUND1`
(800 rows), round 2 the four systems new in the next release (400 rows), each with
the labels the example pool keeps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SRC = Path("bacon_bayes/data/summeval_sample.csv.gz")
OUT = Path("bacon_bayes/data/example_pool.csv")
JUDGES = {
    "gpt4": "judge:gpt-4-0314|rts|relevance",
    "gpt35": "judge:gpt-3.5-turbo-0301|rts|relevance",
    "gpt35_mcq": "judge:gpt-3.5-turbo-0301|mcq|relevance",
    "llama70b": "judge:llama-2-70b-chat-hf|rts|relevance",
    "llama13b": "judge:llama-2-13b-chat-hf|rts|relevance",
    "llama7b": "judge:llama-2-7b-chat-hf|rts|relevance",
}
FRACTION = 0.1
SEED = 0
#: the systems of the first release (the other four are new in the second)
ROUND1 = ("M8", "M9", "M10", "M11", "M12", "M13", "M14", "M15")
ROUNDS = (Path("bacon_bayes/data/example_round1.csv"), Path("bacon_bayes/data/example_round2.csv"))


def build(sample: pd.DataFrame, fraction: float = FRACTION) -> pd.DataFrame:
    """The example pool from the SummEval sample's frame (deterministic).

    Parameters
    ----------
    sample : pandas.DataFrame
        ``summeval_sample.csv.gz`` as read by pandas.
    fraction : float
        Share of the expert labels kept (0.1; 1.0 keeps them all).

    Returns
    -------
    pandas.DataFrame
        One row per summary: ``id``, ``doc_id``, ``system``, ``human`` (10% kept) and
        the judge columns.
    """
    docs = {d: k for k, d in enumerate(sorted(sample["doc_id"].unique()))}
    ids = [f"d{docs[d]:03d}-{s}" for d, s in zip(sample["doc_id"], sample["system"], strict=True)]
    out = pd.DataFrame({"id": ids, "doc_id": sample["doc_id"], "system": sample["system"]})
    full = sample["expert_mean_relevance"].round(4)
    keep = np.random.default_rng(SEED).permutation(len(sample))[: round(fraction * len(sample))]
    human = pd.Series(np.nan, index=sample.index)
    human.iloc[keep] = full.iloc[keep]
    out["human"] = human
    for short, column in JUDGES.items():
        out[short] = sample[column]
    return out.sort_values(["doc_id", "system"], key=_natural_key).reset_index(drop=True)


def _natural_key(col: pd.Series) -> pd.Series:
    """Sort key putting M8 before M10 (numbers compared as numbers)."""
    if col.name != "system":
        return col
    return col.str.extract(r"(\d+)$")[0].astype(float).fillna(-1)


def main() -> None:
    """Write ``bacon_bayes/data/example_pool.csv`` and the two rounds."""
    out = build(pd.read_csv(SRC))
    first = out["system"].isin(ROUND1)
    for path, frame in ((OUT, out), (ROUNDS[0], out[first]), (ROUNDS[1], out[~first])):
        frame.to_csv(path, index=False)
        labeled = int(frame["human"].notna().sum())
        size = path.stat().st_size / 1e3
        print(f"wrote {path} ({size:.0f} kB, {len(frame)} rows, {labeled} labeled)")


if __name__ == "__main__":
    main()
