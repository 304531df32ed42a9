"""Rebuild the pairwise sample files beside this script (see README.md).

    PYTHONPATH=. python tests/data/pairwise/make_samples.py

``arena_votes.csv`` is derived from the shared arena_ppr copy (skipped when absent); the
other files are synthetic, drawn with a fixed seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent
ARENA_PPR = Path("/work/shared/data/arena_ppr/arena_ppr.csv.gz")
JUDGES = {
    "judge_gpt4_0125_label": "gpt4",
    "judge_claude3_opus_label": "claude3_opus",
    "judge_gpt35_turbo_label": "gpt35",
}


def arena_csv() -> None:
    if not ARENA_PPR.exists():
        print(f"{ARENA_PPR} absent: arena_votes.csv not rebuilt")
        return
    src = pd.read_csv(ARENA_PPR).sample(40, random_state=44).sort_values("row_id")
    out = pd.DataFrame(
        {
            "question_id": src["prompt_id"],
            "model_a": src["model_a"],
            "model_b": src["model_b"],
            "winner": src["human_winner_raw"],
        }
    )
    for col, name in JUDGES.items():
        out[name] = src[col].to_numpy()
    out.loc[out.index[-10:], "winner"] = np.nan  # the last 10 have no human vote
    out.to_csv(HERE / "arena_votes.csv", index=False)


def arena_jsonl(rng: np.random.Generator) -> None:
    models = ["vicuna-13b", "koala-13b", "alpaca-13b", "chatglm-6b", "oasst-pythia-12b"]
    winners = ["model_a", "model_b", "tie", "tie (bothbad)"]
    with open(HERE / "arena_conversations.jsonl", "w") as fh:
        for i in range(30):
            a, b = rng.choice(models, 2, replace=False)
            q = f"question {i}: explain topic {i} briefly"
            rec = {
                "question_id": f"{rng.integers(16**12):012x}{i:04d}",
                "model_a": str(a),
                "model_b": str(b),
                "winner": str(rng.choice(winners, p=[0.35, 0.35, 0.1, 0.2])),
                "judge": f"arena_user_{rng.integers(1000, 9999)}",
                "conversation_a": [
                    {"content": q, "role": "user"},
                    {"content": f"answer of {a}", "role": "assistant"},
                ],
                "conversation_b": [
                    {"content": q, "role": "user"},
                    {"content": f"answer of {b}", "role": "assistant"},
                ],
                "turn": 1,
                "anony": True,
                "language": "English",
                "tstamp": 1682351591.1322 + 3600 * i,
            }
            fh.write(json.dumps(rec) + "\n")


def alpacaeval(rng: np.random.Generator) -> None:
    """30 instructions: gpt4_1106_preview (reference, output_1) vs one of three models,
    a weighted annotator (preference in [1, 2]), a discrete one (1/2, one 1.5 tie, one
    legacy 0) and a human on 12; the human's records of 3 instructions list the pair
    swapped (generator_1 = the model), so their preference is flipped on reading."""
    models = ["claude-3-opus-20240229", "Meta-Llama-3-70B-Instruct", "Mixtral-8x7B-Instruct-v0.1"]
    records = []
    for i in range(30):
        inst = f"Instruction {i}: write a short answer about subject {i}."
        other = models[i % 3]
        skill = rng.normal(0.0, 1.0)
        p2 = float(1 / (1 + np.exp(-skill)))  # P(output_2 wins) as the weighted judge sees it
        base = {
            "instruction": inst,
            "output_1": f"reference answer {i}",
            "generator_1": "gpt4_1106_preview",
            "dataset": "helpful_base",
            "output_2": f"answer {i} of {other}",
            "generator_2": other,
        }
        records.append(
            base
            | {
                "annotator": "weighted_alpaca_eval_gpt4_turbo",
                "preference": 1 + round(p2, 6),
                "price_per_example": 0.0009,
                "time_per_example": 0.8,
                "raw_completion": "m",
            }
        )
        pref: float | None = 2.0 if rng.random() < p2 else 1.0
        if i == 4:
            pref = 1.5
        if i == 7:
            pref = 0
        if i == 9:
            pref = None  # the annotator failed
        records.append(base | {"annotator": "alpaca_eval_gpt4_turbo_fn", "preference": pref})
        if i < 12:
            h = 2.0 if rng.random() < p2 else 1.0
            if i < 3:  # swapped orientation
                swapped = base | {
                    "output_1": base["output_2"],
                    "generator_1": other,
                    "output_2": base["output_1"],
                    "generator_2": "gpt4_1106_preview",
                }
                records.append(swapped | {"annotator": "human", "preference": 3.0 - h})
            else:
                records.append(base | {"annotator": "human", "preference": h})
    (HERE / "alpacaeval_annotations.json").write_text(json.dumps(records, indent=2))


def mt_bench(rng: np.random.Generator) -> None:
    """gpt-4 pair judgments on 15 questions x 2 turns (30 comparisons) of 6 models, and
    human judgments on 10 of them (authors and experts, some twice, some swapped)."""
    models = ["gpt-4", "claude-v1", "gpt-3.5-turbo", "vicuna-13b-v1.2", "alpaca-13b", "llama-13b"]
    strength = dict(zip(models, [1.5, 1.0, 0.8, 0.3, -0.8, -1.2], strict=True))
    judged, human = [], []
    for k in range(15):
        qid = 81 + k * 5
        a, b = (str(m) for m in rng.choice(models, 2, replace=False))
        for turn in (1, 2):
            p = 1 / (1 + np.exp(strength[b] - strength[a]))

            def game(p: float = p) -> str:
                u = rng.random()
                return "model_1" if u < p - 0.1 else "tie" if u < p + 0.1 else "model_2"

            g1, g2 = game(), game()
            if k == 2 and turn == 1:
                g1 = "error"
            prompt = "pair-v2" if turn == 1 else "pair-v2-multi-turn"
            judged.append(
                {
                    "question_id": qid,
                    "model_1": a,
                    "model_2": b,
                    "g1_winner": g1,
                    "g2_winner": g2,
                    "judge": ["gpt-4", prompt],
                    "g1_user_prompt": "[User Question] ...",
                    "g1_judgment": "[[A]]",
                    "g2_user_prompt": "[User Question] ...",
                    "g2_judgment": "[[B]]",
                    "turn": turn,
                    "tstamp": 1687221000.0 + 60 * len(judged),
                }
            )
            if k < 5:
                for n in range(1 + (k % 2)):  # odd k: two votes
                    win = "model_a" if rng.random() < p else "model_b"
                    ma, mb = (a, b) if k != 3 else (b, a)  # question 96: swapped
                    if k == 3:
                        win = {"model_a": "model_b", "model_b": "model_a"}[win]
                    if k == 0 and turn == 2:
                        win = "tie"
                    human.append(
                        {
                            "question_id": qid,
                            "model_a": ma,
                            "model_b": mb,
                            "winner": win,
                            "judge": f"{'expert' if n else 'author'}_{k}",
                            "conversation_a": [],
                            "conversation_b": [],
                            "turn": turn,
                        }
                    )
    with open(HERE / "mt_bench_gpt-4_pair.jsonl", "w") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in judged)
    (HERE / "mt_bench_human_judgments.json").write_text(json.dumps(human, indent=1))


if __name__ == "__main__":
    arena_csv()
    arena_jsonl(np.random.default_rng(1))
    alpacaeval(np.random.default_rng(2))
    mt_bench(np.random.default_rng(3))
