"""Files in the formats of lm-evaluation-harness and promptfoo, for reader tests (neither
tool runs offline here: both need a model).

- lm-eval 0.4.x sample log (``--log_samples``; layout of ``lm_eval/evaluator.py`` in
  0.4.3-0.4.8): one JSON object per line with ``doc_id``, ``doc``, ``target``,
  ``arguments`` (``{"gen_args_0": {"arg_0": context, "arg_1": gen_kwargs}}``), ``resps``,
  ``filtered_resps``, ``filter``, ``metrics``, the hashes, and one field per metric: here
  ``exact_match`` and a custom LLM-judge metric ``llm_judge`` (1-5).
- promptfoo 0.100-0.118 ``promptfoo eval -o results.json`` (results version 3):
  ``{"evalId", "results": {"version": 3, "timestamp", "prompts", "results": [...],
  "stats"}, "config", "shareableUrl"}``; each result has ``testIdx``, ``promptIdx``,
  ``vars``, ``provider``, ``prompt``, ``response``, ``success``, ``score`` and
  ``gradingResult.componentResults[]`` (an ``llm-rubric`` and a ``contains`` assertion).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd


def lm_eval_truth(n: int, seed: int = 0) -> np.ndarray:
    """The human labels (1-5) of the lm-eval fixture's documents."""
    return np.random.default_rng(seed).integers(1, 6, n).astype(float)


def write_lm_eval(path: Path, n: int = 80, seed: int = 0) -> Path:
    """An lm-eval sample log of ``n`` documents whose ``llm_judge`` tracks the truth."""
    rng = np.random.default_rng(seed + 1)
    truth = lm_eval_truth(n, seed)
    lines = []
    for i in range(n):
        judge = float(np.clip(np.round(truth[i] + rng.normal(0, 0.8)), 1, 5))
        answer = "answer " + "word " * int(rng.integers(1, 30))
        context = f"Question: item {i}?\nAnswer:"
        lines.append(
            {
                "doc_id": i,
                "doc": {"question": f"item {i}?", "answer": "answer"},
                "target": "answer",
                "arguments": {
                    "gen_args_0": {"arg_0": context, "arg_1": {"until": ["\n"], "do_sample": False}}
                },
                "resps": [[answer]],
                "filtered_resps": [answer],
                "filter": "none",
                "metrics": ["exact_match", "llm_judge"],
                "doc_hash": f"{i:064x}",
                "prompt_hash": f"{i + 1:064x}",
                "target_hash": f"{i + 2:064x}",
                "exact_match": float(truth[i] >= 4),
                "llm_judge": judge,
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def write_promptfoo(path: Path, n_tests: int = 30, providers: int = 2, seed: int = 0) -> Path:
    """A promptfoo result file: ``n_tests`` tests x ``providers`` providers, one prompt."""
    rng = np.random.default_rng(seed)
    results = []
    for p in range(providers):
        for t in range(n_tests):
            rubric = float(np.clip(rng.normal(0.6 + 0.1 * p, 0.2), 0, 1))
            contains = float(rng.random() < 0.7)
            results.append(
                {
                    "id": f"r{p}-{t}",
                    "promptIdx": 0,
                    "testIdx": t,
                    "testCase": {"vars": {"topic": f"topic {t}"}},
                    "promptId": "p0",
                    "provider": {"id": f"openai:model-{p}", "label": ""},
                    "prompt": {"raw": f"Write about topic {t}", "label": "prompt.txt"},
                    "vars": {"topic": f"topic {t}"},
                    "response": {"output": "text " * int(rng.integers(5, 50))},
                    "success": rubric > 0.5 and contains == 1.0,
                    "score": (rubric + contains) / 2,
                    "latencyMs": 100,
                    "namedScores": {},
                    "gradingResult": {
                        "pass": rubric > 0.5 and contains == 1.0,
                        "score": (rubric + contains) / 2,
                        "reason": "",
                        "namedScores": {},
                        "componentResults": [
                            {
                                "pass": rubric > 0.5,
                                "score": rubric,
                                "reason": "rubric",
                                "assertion": {"type": "llm-rubric", "value": "is on topic"},
                            },
                            {
                                "pass": contains == 1.0,
                                "score": contains,
                                "reason": "contains",
                                "assertion": {"type": "contains", "value": "text"},
                            },
                        ],
                    },
                    "failureReason": 0,
                }
            )
    doc = {
        "evalId": "eval-test",
        "results": {
            "version": 3,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "prompts": [{"raw": "Write about {{topic}}", "label": "prompt.txt"}],
            "results": results,
            "stats": {"successes": 0, "failures": 0},
        },
        "config": {},
        "shareableUrl": None,
    }
    path.write_text(json.dumps(doc))
    return path


def labels_frame(ids: list, values: np.ndarray, id_name: str = "id") -> pd.DataFrame:
    """A labels file's table: the ids and a ``human`` column."""
    return pd.DataFrame({id_name: ids, "human": values})
