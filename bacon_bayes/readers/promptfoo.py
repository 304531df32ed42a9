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


def _components(result: dict[str, Any]) -> list[dict[str, Any]]:
    return list((result.get("gradingResult") or {}).get("componentResults") or [])


def _value(component: dict[str, Any]) -> str:
    """An assertion's value (a rubric's text) as one string, to tell assertions apart."""
    value = (component.get("assertion") or {}).get("value")
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 3] + "...")


def _column_names(
    results: list[dict[str, Any]],
) -> tuple[list[list[str]], dict[str, str], list[str]]:
    """Each result's assertions' column names, the rubric of each column, and notes.

    An assertion's column is its ``metric``, else its type. Two assertions of one type without
    a metric are told apart by their ``value`` (the rubric) when the tests share a few values
    (each test lists the same rubrics, in whatever order): the first value met is ``type``, the
    next ``type_2``... Where the values vary from test to test (each test its own rubric),
    they are told apart by position in the test, said in a note when a position then holds
    several rubrics.
    """
    values: dict[str, dict[str, None]] = {}
    most: dict[str, int] = {}
    for r in results:
        count: dict[str, int] = {}
        for c in _components(r):
            base = _judge_name(c)
            values.setdefault(base, {})[_value(c)] = None
            count[base] = count.get(base, 0) + 1
        for base, n in count.items():
            most[base] = max(most.get(base, 0), n)
    by_value = {b for b, v in values.items() if 1 < most[b] and len(v) <= most[b]}
    rank = {b: {v: i for i, v in enumerate(values[b])} for b in by_value}
    names: list[list[str]] = []
    held: dict[str, dict[str, None]] = {}
    base_of: dict[str, str] = {}
    for r in results:
        row: list[str] = []
        seen: dict[str, int] = {}
        for c in _components(r):
            base, value = _judge_name(c), _value(c)
            seen[base] = seen.get(base, 0) + 1
            n = rank[base][value] + 1 if base in by_value else seen[base]
            judge = base if n == 1 else f"{base}_{n}"
            while judge in row:  # the same rubric twice in one test: the next free column
                n += 1
                judge = f"{base}_{n}"
            row.append(judge)
            held.setdefault(judge, {})[value] = None
            base_of[judge] = base
        names.append(row)
    several = {j for j in held if most[base_of[j]] > 1}
    rubrics = {j: _short(next(iter(held[j]))) for j in several if len(held[j]) == 1}
    mixed = dict.fromkeys(base_of[j] for j in several if len(held[j]) > 1)
    notes = [
        f"{b}: {most[b]} assertions of this type per test without a metric, told apart by "
        "their position; their values differ between tests, so each column mixes rubrics "
        "(give each assertion a metric: in promptfoo to keep them apart)"
        for b in mixed
    ]
    return names, rubrics, notes


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
        its type; a second assertion of one type gets ``_2``, told apart by its value, the
        rubric, when the tests share their rubrics) with its score in [0, 1].
    meta : TableMeta
        ``provider`` as the group, ``test`` as the prompt, the assertions as judges
        (model-graded ones first).
    """
    results = doc["results"]["results"]
    if not results:
        raise ValidationError(f"{name!r} holds no results; run promptfoo eval first.")
    prompts = {r.get("promptIdx", 0) for r in results}
    names, rubrics, notes = _column_names(results)
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
        for c, judge in zip(_components(r), names[k], strict=True):
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
            j: ("a model-graded assertion" if j in graded else "a deterministic assertion")
            + (f" ({rubrics[j]})" if j in rubrics else "")
            for j in ordered
        },
    )
    return frame, meta
