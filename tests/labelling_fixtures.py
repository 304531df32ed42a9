"""Exports of Label Studio and Argilla, in the shapes those tools write, for reader tests
(neither runs offline here: both are servers).

- Label Studio 1.x ``JSON`` export: a list of tasks with ``id``, ``data``,
  ``annotations[]`` (``completed_by``, ``was_cancelled``, ``result[]`` of
  ``{"from_name", "to_name", "type", "value"}``), ``drafts``, ``predictions[]``
  (``model_version``, ``result[]``, ``score``), ``total_annotations``,
  ``cancelled_annotations``... and its ``JSON-MIN`` export (one flat object per
  annotation: ``id``, the data, ``relevance``, ``annotator``, ``annotation_id``,
  ``created_at``, ``updated_at``, ``lead_time``; an unannotated task as its data alone).
- Argilla 2.x ``rg.Dataset.records.to_list()`` (``id``, ``status``, ``_server_id``,
  ``fields``, ``metadata``, ``suggestions``, ``responses``, ``vectors``) and Argilla 1.x
  rows as pushed to the Hugging Face Hub (JSON Lines: the fields, ``relevance`` as a list
  of ``{"user_id", "value", "status"}``, ``relevance-suggestion``,
  ``relevance-suggestion-metadata``, ``external_id``, ``metadata`` as a JSON string).

Every file holds :data:`N` items (systems A, B, C; documents of 3 items each), the first
:data:`LABELED` labeled; :func:`truth` gives each item's known label (the mean of its
annotators' ratings), :func:`judge` the judge's known scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

N = 80
LABELED = 30
#: the labeled items rated by three annotators (the others by one)
SEVERAL = range(0, 30, 3)
#: the items with a cancelled annotation (rating 1, which must not count)
CANCELLED = (1, 4, 40)
TS = "2024-05-02T10:11:12.000000Z"


def _base(i: int) -> int:
    return int(np.random.default_rng(i).integers(1, 6))


def ratings(i: int) -> list[int]:
    """The annotators' ratings (1-5) of item ``i`` (none past :data:`LABELED`)."""
    if i >= LABELED:
        return []
    b = _base(i)
    if i in SEVERAL:
        return [b, min(b + 1, 5), max(b - 1, 1) if b > 2 else b]
    return [b]


def truth(i: int) -> float:
    """Item ``i``'s label as bacon should read it: its ratings' mean (NaN: none)."""
    r = ratings(i)
    return float(np.mean(r)) if r else float("nan")


def judge(i: int, k: int = 0) -> int:
    """Judge ``k``'s score (1-5) of item ``i``: near the base rating."""
    noise = int(np.random.default_rng(1000 * (k + 1) + i).integers(-1, 2))
    return int(np.clip(_base(i) + noise, 1, 5))


def _data(i: int) -> dict[str, Any]:
    words = " ".join(["word"] * (5 + i % 11))
    return {"summary": f"summary {i}: {words}", "system": "ABC"[i % 3], "doc_id": f"d{i // 3}"}


def _rating(control: str, value: dict[str, Any], kind: str = "rating") -> dict[str, Any]:
    return {
        "value": value,
        "id": f"r{control}",
        "from_name": control,
        "to_name": "summary",
        "type": kind,
        "origin": "manual",
    }


def _annotation(aid: int, user: int, task: int, result: list[Any], cancelled: bool = False) -> Any:
    return {
        "id": aid,
        "completed_by": user,
        "result": result,
        "was_cancelled": cancelled,
        "ground_truth": False,
        "created_at": TS,
        "updated_at": TS,
        "lead_time": 12.5,
        "prediction": {},
        "result_count": 0,
        "task": task,
        "project": 7,
        "parent_prediction": None,
        "parent_annotation": None,
    }


def write_label_studio(path: Path) -> Path:
    """A Label Studio JSON export: ``relevance`` ratings (and a ``comment`` text) by 1 or
    3 annotators, cancelled annotations on :data:`CANCELLED`, predictions of model
    versions ``judge-a`` and ``judge-b`` (:func:`judge` 0 and 1)."""
    tasks = []
    aid = 100
    for i in range(N):
        anns = []
        for user, v in enumerate(ratings(i), start=1):
            aid += 1
            result = [_rating("relevance", {"rating": v})]
            result.append(_rating("comment", {"text": ["fine"]}, "textarea"))
            anns.append(_annotation(aid, user, i + 1, result))
        if i in CANCELLED:
            aid += 1
            anns.append(_annotation(aid, 9, i + 1, [_rating("relevance", {"rating": 1})], True))
        predictions = [
            {
                "id": 10 * i + k,
                "model_version": version,
                "created_ago": "3 days",
                "result": [_rating("relevance", {"rating": judge(i, k)})],
                "score": 0.9,
                "cluster": None,
                "neighbors": None,
                "mislabeling": 0.0,
                "task": i + 1,
                "project": 7,
            }
            for k, version in enumerate(("judge-a", "judge-b"))
        ]
        tasks.append(
            {
                "id": i + 1,
                "data": _data(i),
                "annotations": anns,
                "drafts": [],
                "predictions": predictions,
                "meta": {},
                "created_at": TS,
                "updated_at": TS,
                "inner_id": i + 1,
                "total_annotations": len(anns),
                "cancelled_annotations": int(i in CANCELLED),
                "total_predictions": 2,
                "comment_count": 0,
                "unresolved_comment_count": 0,
                "last_comment_updated_at": None,
                "project": 7,
                "updated_by": None,
                "file_upload": "tasks.json",
                "comment_authors": [],
            }
        )
    path.write_text(json.dumps(tasks, indent=1))
    return path


def write_label_studio_min(path: Path) -> Path:
    """A Label Studio JSON-MIN export of the same tasks, the judges' scores imported with
    the data (``judge_a``, ``judge_b``)."""
    records = []
    for i in range(N):
        base = {**_data(i), "judge_a": judge(i, 0), "judge_b": judge(i, 1), "id": i + 1}
        if not ratings(i):
            records.append(base)
        for user, v in enumerate(ratings(i), start=1):
            records.append(
                {
                    **base,
                    "relevance": v,
                    "annotator": f"rater{user}@example.org",
                    "annotation_id": 1000 + len(records),
                    "created_at": TS,
                    "updated_at": TS,
                    "lead_time": 10.0 + user,
                }
            )
    path.write_text(json.dumps(records, indent=2))
    return path


#: Argilla responses left out: a discarded response (rating 1) on these items, a draft on
DISCARDED = (2, 5)
DRAFT = (7, 50)


def _responses(i: int) -> list[dict[str, Any]]:
    given = [
        {"value": v, "user_id": f"user-{u}", "status": "submitted"}
        for u, v in enumerate(ratings(i), start=1)
    ]
    if i in DISCARDED:
        given.append({"value": 1, "user_id": "user-9", "status": "discarded"})
    if i in DRAFT:
        given.append({"value": 1, "user_id": "user-8", "status": "draft"})
    return given


def write_argilla_v2(path: Path) -> Path:
    """Argilla 2.x records as ``to_list()`` gives them: ``relevance`` responses (discarded
    ones on :data:`DISCARDED`, drafts on :data:`DRAFT`), a suggestion of agent ``gpt-x``
    (:func:`judge` 0), metadata ``system``, ``doc_id`` and ``length``."""
    records = []
    for i in range(N):
        data = _data(i)
        responses = _responses(i)
        records.append(
            {
                "id": f"rec-{i:03d}",
                "status": "completed" if ratings(i) else "pending",
                "_server_id": f"00000000-0000-0000-0000-{i:012d}",
                "fields": {"summary": data["summary"]},
                "metadata": {"system": data["system"], "doc_id": data["doc_id"], "length": i},
                "suggestions": {"relevance": {"value": judge(i), "score": None, "agent": "gpt-x"}},
                "responses": {"relevance": responses} if responses else {},
                "vectors": {},
            }
        )
    path.write_text(json.dumps(records, indent=1))
    return path


def write_argilla_v1(path: Path) -> Path:
    """Argilla 1.x rows as on the Hugging Face Hub (JSON Lines, ``metadata`` a JSON
    string), the same answers as :func:`write_argilla_v2`."""
    lines = []
    for i in range(N):
        data = _data(i)
        lines.append(
            {
                "summary": data["summary"],
                "relevance": _responses(i),
                "relevance-suggestion": judge(i),
                "relevance-suggestion-metadata": {"type": None, "score": None, "agent": "gpt-x"},
                "external_id": f"ex-{i:03d}",
                "metadata": json.dumps({"system": data["system"], "doc_id": data["doc_id"]}),
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
