"""promptfoo result files (``promptfoo eval -o results.json``).

Followed: promptfoo 0.100-0.118 (results ``version`` 3): the file holds ``results`` with
``results[]``, one per test case x prompt x provider: ``testIdx``, ``promptIdx``,
``vars``, ``provider`` (``{"id", "label"}``), ``prompt`` (``{"raw", "label"}``),
``response`` (``{"output"}``), ``score``, ``success`` and ``gradingResult`` with
``componentResults[]`` (one per assertion: ``pass``, ``score`` in [0, 1], ``reason``,
``assertion`` (``{"type", "value", "metric"}``)).
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.readers.meta import TableMeta

# assertion types graded by a model (the rest are deterministic checks)
MODEL_GRADED = {
    "llm-rubric",
    "model-graded-closedqa",
    "model-graded-factuality",
    "factuality",
    "g-eval",
    "answer-relevance",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "select-best",
    "search-rubric",
    "pi",
}


def looks_like(doc: Any) -> bool:
    """Whether parsed JSON is a promptfoo result file."""
    inner = doc.get("results") if isinstance(doc, dict) else None
    return isinstance(inner, dict) and isinstance(inner.get("results"), list)


def _judge_name(component: dict[str, Any]) -> str:
    assertion = component.get("assertion") or {}
    return str(assertion.get("metric") or assertion.get("type") or "assertion")


def _provider(row: dict[str, Any]) -> str:
    p = row.get("provider")
    if isinstance(p, dict):
        return str(p.get("label") or p.get("id") or "provider")
    return str(p) if p else "provider"


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def read_promptfoo(doc: dict[str, Any], name: str) -> tuple[pd.DataFrame, TableMeta]:
    """Turn a parsed promptfoo result file into a table.

    Parameters
    ----------
    doc : dict
        The parsed ``results.json``.
    name : str
        The file name (for messages).

    Returns
    -------
    frame : DataFrame
        One row per test case x prompt x provider: ``id`` (``test<testIdx>`` with the
        prompt index when there are several, and the provider), ``test``, ``provider``,
        ``vars.*``, ``prompt``, ``output``, one column per assertion (its ``metric``, else
        its type; a second assertion of one type gets ``_2``) with its score in [0, 1].
    meta : TableMeta
        ``provider`` as the group, ``test`` as the prompt, the assertions as judges
        (model-graded ones first).
    """
    results = doc["results"]["results"]
    if not results:
        raise ValidationError(f"{name!r} holds no results; run promptfoo eval first.")
    prompts = {r.get("promptIdx", 0) for r in results}
    rows = []
    judges: list[str] = []
    graded: set[str] = set()
    for k, r in enumerate(results):
        test = r.get("testIdx", k)
        provider = _provider(r)
        pid = f"test{test}" + (f"-p{r.get('promptIdx', 0)}" if len(prompts) > 1 else "")
        row: dict[str, Any] = {"id": f"{pid}:{provider}", "test": pid, "provider": provider}
        for key, value in (r.get("vars") or {}).items():
            row[f"vars.{key}"] = _text(value)
        prompt = r.get("prompt")
        row["prompt"] = _text(prompt.get("raw") if isinstance(prompt, dict) else prompt)
        response = r.get("response") or {}
        row["output"] = _text(response.get("output") if isinstance(response, dict) else None)
        seen: dict[str, int] = {}
        components = (r.get("gradingResult") or {}).get("componentResults") or []
        for c in components:
            base = _judge_name(c)
            seen[base] = seen.get(base, 0) + 1
            judge = base if seen[base] == 1 else f"{base}_{seen[base]}"
            score = c.get("score")
            row[judge] = float(score) if isinstance(score, int | float) else float("nan")
            if judge not in judges:
                judges.append(judge)
            if str((c.get("assertion") or {}).get("type", "")) in MODEL_GRADED:
                graded.add(judge)
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame["id"].duplicated().any():
        dup = frame["id"][frame["id"].duplicated()].iloc[0]
        raise ValidationError(f"{name!r}: result {dup!r} appears twice; is it two evals merged?")
    if not judges:
        raise ValidationError(
            f"{name!r} has no gradingResult.componentResults: the tests have no assertions "
            "to use as judges; add assert: entries (e.g. llm-rubric) and run promptfoo again."
        )
    ordered = [j for j in judges if j in graded] + [j for j in judges if j not in graded]
    notes = []
    if not graded:
        notes.append("no model-graded assertion (llm-rubric, g-eval...): all are used as judges")
    meta = TableMeta(
        format="promptfoo",
        item="id",
        judges=ordered,
        group="provider" if frame["provider"].nunique() > 1 else None,
        prompt="test" if frame["provider"].nunique() > 1 else None,
        text=["output", "prompt"],
        response="output",
        notes=notes,
        judge_kinds={
            j: "a model-graded assertion" if j in graded else "a deterministic assertion"
            for j in ordered
        },
    )
    return frame, meta
