"""Build the shipped pairwise sample from the shared arena_ppr copy (run from the repo root).

python -m benchmarks.make_arena_sample

``bacon_bayes/data/arena_sample.csv.gz``: a uniform draw (seed 44) of :data:`N_ROWS` of
arena_ppr's 26,919 Chatbot Arena comparisons of 20 models, with ``id`` (the source's
``row_id``), ``prompt`` (the Arena question id), ``model_a``, ``model_b``, the three
judges' verdicts (``gpt4`` = gpt-4-0125-preview, ``claude3_opus``, ``gpt35`` =
gpt-3.5-turbo; A/B/tie, A = model_a won), the human vote kept as ``label`` on a uniform
:data:`N_LABELED` of the rows (empty elsewhere) and the full human vote in ``human_full``
(for checking; "tie (bothbad)" is a tie in both).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

SRC = Path("/work/shared/data/arena_ppr/arena_ppr.csv.gz")
OUT = Path("bacon_bayes/data/arena_sample.csv.gz")
JUDGES = {
    "gpt4": "judge_gpt4_0125_label",
    "claude3_opus": "judge_claude3_opus_label",
    "gpt35": "judge_gpt35_turbo_label",
}
N_ROWS = 3000
N_LABELED = 400
SEED = 44


def build(src: pd.DataFrame) -> pd.DataFrame:
    """The sample of ``src`` (arena_ppr's columns)."""
    rows = src.sample(N_ROWS, random_state=SEED).sort_values("row_id")
    out = pd.DataFrame(
        {
            "id": rows["row_id"].astype(int),
            "prompt": rows["prompt_id"],
            "model_a": rows["model_a"],
            "model_b": rows["model_b"],
        }
    )
    labeled = out.sample(N_LABELED, random_state=SEED).index
    out["label"] = rows["human_label"].where(out.index.isin(labeled))
    for name, col in JUDGES.items():
        out[name] = rows[col]
    out["human_full"] = rows["human_label"]
    return out.reset_index(drop=True)


def main() -> None:
    if not SRC.exists():
        raise SystemExit(f"{SRC} is absent: the shared arena_ppr copy is needed to rebuild.")
    out = build(pd.read_csv(SRC))
    models = pd.concat([out["model_a"], out["model_b"]]).nunique()
    out.to_csv(OUT, index=False, compression={"method": "gzip", "mtime": 0})
    print(f"{OUT}: {len(out)} rows, {models} models, {int(out['label'].notna().sum())} labeled")


if __name__ == "__main__":
    main()
