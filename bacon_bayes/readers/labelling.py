"""Exports of the labelling tools Label Studio and Argilla: one row per task (record), the
human answers to each question as a label column (the mean over the task's annotators),
the model's answers (Label Studio predictions, Argilla suggestions) as judge columns.

Followed: Label Studio 1.x exports ``JSON`` (a list of tasks: ``id``, ``data``,
``annotations[]`` with ``result[]`` of ``{"from_name", "type", "value": {"rating": 4}}``
and ``was_cancelled``, ``predictions[]`` with ``model_version`` and ``result[]``) and
``JSON-MIN`` (one flat object per annotation: the task's ``id`` and data, ``annotator``,
``annotation_id``, each control's answer under its name; unannotated tasks without them);
Argilla 2.x records (``rg.Dataset.records.to_list()`` / ``to_json``: ``fields``,
``metadata``, ``responses`` ``{question: [{"value", "user_id", "status"}]}``,
``suggestions`` ``{question: {"value", "score", "agent"}}``; with ``flatten=True``:
``question.responses``, ``question.responses.status``, ``question.suggestion``,
``question.suggestion.agent``) and Argilla 1.x rows as pushed to the Hugging Face Hub
(``question: [{"user_id", "value", "status"}]``, ``question-suggestion``,
``question-suggestion-metadata``, ``metadata`` as a JSON string).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.readers.jsonl import flatten, is_json_lines
from bacon_bayes.readers.meta import TableMeta, id_column
from bacon_bayes.words import level_map, mapping_text, read_numbers

#: JSON-MIN's keys of an annotation that are no answer (who, when, how long)
MIN_BOOKKEEPING = ("annotator", "annotation_id", "created_at", "updated_at", "lead_time")
#: the keys of a Label Studio result's value that hold a number or a choice
LS_VALUES = ("rating", "number", "choices")
#: records looked at to tell a format (the first ones: an export's records are alike)
PEEK = 50


@dataclass
class _Answers:
    """The answers read from an export, before they are numbers: per column, the rows
    (tasks) and their raw values; the question each column answers (a label's and its
    judges' answers are read as numbers one way), and counts for the notes."""

    human: dict[str, list[tuple[int, Any]]] = field(default_factory=dict)
    judge: dict[str, list[tuple[int, Any]]] = field(default_factory=dict)
    question: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    unread: dict[str, str] = field(default_factory=dict)  # question -> the type not read
    raters: set[str] = field(default_factory=set)
    answers: int = 0
    left_out: dict[str, int] = field(default_factory=dict)  # why -> how many

    def add(self, human: bool, column: str, question: str, row: int, value: Any) -> None:
        """One answer to ``question`` on ``row``, a human's (a label) or a model's."""
        (self.human if human else self.judge).setdefault(column, []).append((row, value))
        self.question[column] = question

    def skip(self, why: str) -> None:
        """One annotation (response) left out, and why (``cancelled``, ``a draft``)."""
        self.left_out[why] = self.left_out.get(why, 0) + 1


def _scalar(value: Any) -> Any:
    """An answer as one number or word: a one-item list as its item, a Label Studio value
    (``{"rating": 4}``, ``{"choices": ["4 - Relevant"]}``) as its answer; several choices,
    texts and other shapes as None (no number)."""
    if isinstance(value, Mapping):
        key = next((k for k in LS_VALUES if k in value), None)
        return None if key is None else _scalar(value[key])
    if isinstance(value, list):
        return _scalar(value[0]) if len(value) == 1 else None
    if isinstance(value, bool):
        return float(value)
    return value if isinstance(value, int | float | str) else None


#: a question's words as levels no reader knows: their counts, a map to numbers, and
#: what the numbers follow (:func:`~bacon_bayes.words.level_map`)
Levels = tuple[pd.Series, dict[str, float], str] | None


def _as_numbers(values: list[Any]) -> tuple[pd.Series, str, Levels]:
    """Answers as floats (NaN where not a number): numbers as they are, words as a table's
    cells are read (:func:`~bacon_bayes.words.read_numbers`, one reading: ``'4 - Relevant'``
    as 4, yes / no as 1 / 0), how words were read (``""``: no words), and the words'
    levels where they are a scale no reader knows, not all read (``Relevant`` / ``Partially
    relevant`` / ``Not relevant``; ``Okay`` beside ``Good`` / ``Bad``:
    :func:`~bacon_bayes.words.level_map`; None otherwise)."""
    cells = pd.Series([_scalar(v) for v in values], dtype=object)
    words = cells.map(lambda v: isinstance(v, str))
    out = pd.to_numeric(cells.where(~words), errors="coerce").astype(float)
    if not words.any():
        return out, "", None
    numbers, read = read_numbers(cells[words])
    out[words] = numbers.astype(float)
    if out.isna().any() and not pd.to_numeric(cells[~words], errors="coerce").notna().any():
        if (levels := level_map(cells[words], read, known=True)) is not None:
            return out, "", levels
    return out, read[1] if read else "", None


def _columns(
    answers: _Answers, rows: int, name: str
) -> tuple[dict[str, pd.Series], dict[str, pd.Series], list[str], dict[str, str], set[int]]:
    """The label and judge columns (floats, one per row: the mean of a row's answers),
    notes on what was left out (a question answered in words no reader knows, with the
    line that writes the export ``name`` with them as numbers), how words were read per
    column, and the rows whose label is the mean of several annotators' numbers."""
    several: set[int] = set()
    labels: dict[str, pd.Series] = {}
    judges: dict[str, pd.Series] = {}
    notes: list[str] = []
    said: dict[str, str] = {}
    columns = {**answers.human, **answers.judge}
    for q in dict.fromkeys(answers.question.values()):
        mine = [c for c in columns if answers.question[c] == q]
        cells = [(c, r, v) for c in mine for r, v in columns[c]]
        numbers, how, levels = _as_numbers([v for _, _, v in cells])
        if levels is not None:  # Relevant / Partially relevant / Not relevant: said, mapped
            notes.append(_levels_note(q, levels, name))
            continue
        long = pd.DataFrame({"column": [c for c, _, _ in cells], "row": [r for _, r, _ in cells]})
        long["value"] = numbers.to_numpy()
        if long["value"].isna().all():
            example = next((_scalar(v) for _, _, v in cells if _scalar(v) is not None), None)
            what = f" (e.g. {example!r})" if example is not None else ""
            notes.append(f"{q!r}: its answers are no numbers{what}, left out")
            continue
        unread = int(long["value"].isna().sum())
        if unread:
            notes.append(
                f"{q!r}: {unread} answer(s) not a number (several choices, a text) left out"
            )
        kept = long.dropna()
        means = kept.groupby(["column", "row"])["value"].mean()
        sizes = kept[kept["column"].isin(answers.human)].groupby(["column", "row"]).size()
        several |= {int(r) for (_, r), n in sizes.items() if n > 1}
        for c in mine:
            if c not in means.index.get_level_values(0):
                continue
            series = means.loc[c].reindex(range(rows)).astype(float)
            (labels if c in answers.human else judges)[c] = series
            if how:
                said[c] = how
    for q, kind in answers.unread.items():
        if q not in answers.question.values():
            notes.append(f"{q!r} ({kind}): no number, left out")
    return labels, judges, notes, said, several


def _levels_note(question: str, levels: Levels, name: str) -> str:
    """Why ``question``, answered in words no reader knows as numbers, is left out, and the
    shell line that writes the export ``name`` with them as the numbers of ``levels`` (a
    JSON or JSON Lines file of the same records), with the doctor to run on it."""
    from bacon_bayes.csv_format import python_command
    from bacon_bayes.outputs import unused_name

    assert levels is not None
    counts, values, hint = levels
    shown = ", ".join(f"{w!r} ({n})" for w, n in counts.items())
    said = (
        f"{question!r}: its answers are {len(counts)} words ({shown}), levels of a scale "
        "bacon does not read as numbers: left out"
    )
    path = Path(name)
    lines = name.lower().endswith((".jsonl", ".ndjson")) or (path.is_file() and is_json_lines(path))
    ending = ".jsonl" if lines else ".json"
    if not path.is_file() or not path.name.lower().endswith((".json", ".jsonl", ".ndjson")):
        return f"{said}; map them to numbers ({hint}) and export again"
    out = unused_name(path.name.rsplit(".", 1)[0] + "_numbers", ending)
    walk = (  # every string under the question's answers (and predictions) mapped
        "f = lambda x, on: {k: f(v, on or k == q or str(k).startswith((q + '.', q + '-')) "
        "or x.get('from_name') == q) for k, v in x.items()} if isinstance(x, dict) else "
        "[f(v, on) for v in x] if isinstance(x, list) else m.get(x.strip(), x) "
        "if on and isinstance(x, str) else x"
    )
    read, write = (
        (
            f"d = [json.loads(t) for t in open({name!r}, encoding='utf-8') if t.strip()]",
            f"open({out!r}, 'w', encoding='utf-8').write(''.join(json.dumps(f(r, False)) + "
            "chr(10) for r in d))",
        )
        if lines
        else (
            f"d = json.load(open({name!r}, encoding='utf-8'))",
            f"json.dump(f(d, False), open({out!r}, 'w', encoding='utf-8'))",
        )
    )
    line = python_command(
        f"import json; m = {{{mapping_text(values)}}}; q = {question!r}; {walk}; {read}; {write}"
    )
    run = shlex.join(["bacon", "doctor", out])
    also = f"or --labels {shlex.quote(out)} beside a table of judge scores"
    return f"{said}; map them to numbers ({hint}), e.g. with: {line}, then {run} ({also})"


def _table(
    ids: list[Any],
    parts: list[dict[str, dict[str, Any]]],
    answers: _Answers,
    fmt: str,
    what: str,
    name: str,
) -> tuple[pd.DataFrame, TableMeta]:
    """The table of one row per task: ``id``, the task's own fields (each part's: data;
    fields, metadata) without prefix unless two share a name or one is a label's or a
    judge's (then ``part.name``), the label columns, the judge columns; and its meta
    (``name``: the export's file)."""
    labels, judges, notes, said, averaged = _columns(answers, len(ids), name)
    taken = {"id", *labels, *judges}
    owners: dict[str, set[str]] = {}
    for row in parts:
        for p, part in row.items():
            for k in part:
                owners.setdefault(k, set()).add(p)
    records = []
    for i, row in zip(ids, parts, strict=True):
        rec: dict[str, Any] = {"id": i}
        for p, part in row.items():
            for k, v in part.items():
                rec[k if k not in taken and len(owners[k]) == 1 else f"{p}.{k}"] = v
        records.append(rec)
    frame = pd.DataFrame(records)
    for name, column in {**labels, **judges}.items():
        frame[name] = column.to_numpy()
    if said:
        frame.attrs["verdicts"] = said
    several = len(averaged)
    labeled = int(pd.concat(labels.values(), axis=1).notna().any(axis=1).sum()) if labels else 0
    raters = f" by {len(answers.raters)} annotators" if answers.raters else ""
    read = [f"one row per {what}: {answers.answers} annotations{raters} on {labeled} {what}s"]
    if several:
        read.append(f"{several} of them averaged")
    read += [f"{n} {why} left out" for why, n in answers.left_out.items()]
    frame.attrs["read as"] = ", ".join(read)
    shown = ", ".join(map(repr, labels)) or "none"
    head = [
        f"label column(s) {shown}: the mean of each {what}'s annotations"
        + (f" ({several} {what}s annotated by several annotators)" if several else "")
        + (f"; judge column(s) {', '.join(map(repr, judges))}" if judges else "")
    ]
    head += [f"{n} {why} annotation(s) left out" for why, n in answers.left_out.items()]
    meta = TableMeta(
        format=fmt,
        item=id_column(frame, ("id",)),
        judges=list(judges),
        notes=head + notes,
        judge_kinds={j: answers.kinds.get(j, "a model's answer") for j in judges},
    )
    return frame, meta


def _records(doc: Any) -> list[dict[str, Any]]:
    """The first records of ``doc`` when it is a list of objects, else none."""
    if not isinstance(doc, list) or not doc or not all(isinstance(r, dict) for r in doc[:PEEK]):
        return []
    return doc[:PEEK]


def read_export(doc: Any, name: str) -> tuple[pd.DataFrame, TableMeta] | None:
    """``doc`` (a JSON file's content, named ``name``) read as a labelling tool's export
    (Label Studio's JSON or JSON-MIN, Argilla's records), else None."""
    if is_label_studio(doc):
        return read_label_studio(doc, name)
    if is_argilla(doc):
        return read_argilla(doc, name)
    if is_label_studio_min(doc):
        return read_label_studio_min(doc, name)
    return None


def is_label_studio(doc: Any) -> bool:
    """Whether parsed JSON is a Label Studio JSON export (tasks with ``data`` and
    ``annotations`` or ``predictions`` lists)."""
    head = _records(doc)
    return bool(head) and all(
        isinstance(t.get("data"), dict)
        and (isinstance(t.get("annotations"), list) or isinstance(t.get("predictions"), list))
        for t in head
    )


def is_label_studio_min(doc: Any) -> bool:
    """Whether parsed JSON is a Label Studio JSON-MIN export (flat objects with ``id``;
    the annotated ones with ``annotator`` and ``annotation_id``)."""
    if not _records(doc) or not all(isinstance(r, dict) and "id" in r for r in doc):
        return False
    return any("annotation_id" in r and "annotator" in r for r in doc)


def read_label_studio(doc: list[dict[str, Any]], name: str) -> tuple[pd.DataFrame, TableMeta]:
    """Read a Label Studio JSON export (a list of tasks).

    Parameters
    ----------
    doc : list of dict
        The parsed export.
    name : str
        The file name (for messages).

    Returns
    -------
    frame : DataFrame
        One row per task: ``id``, the ``data`` fields (``data.x`` where ``x`` is also a
        label's or a judge's name), one label column per control (``from_name``) with the
        mean of the task's annotations that are not cancelled (ratings, numbers, choices
        read as numbers: ``'4 - Relevant'`` as 4, yes / no as 1 / 0; NaN where none), one
        judge column per prediction ``model_version.from_name``.
    meta : TableMeta
        ``id`` as the item, the predictions as judges, what was read in ``notes``.
    """
    answers = _Answers()
    ids, parts = [], []
    for k, task in enumerate(doc):
        ids.append(task.get("id", k + 1))
        data = task.get("data")
        parts.append({"data": flatten(data if isinstance(data, dict) else {})})
        for a in task.get("annotations") or []:
            if a.get("was_cancelled"):
                answers.skip("cancelled (skipped task)")
                continue
            answers.answers += 1
            if a.get("completed_by") is not None:
                answers.raters.add(str(a["completed_by"]))
            for r in a.get("result") or []:
                _ls_result(answers, r, k, None)
        answers.left_out["draft (not submitted)"] = answers.left_out.get(
            "draft (not submitted)", 0
        ) + len(task.get("drafts") or [])
        for p in task.get("predictions") or []:
            version = str(p.get("model_version") or "prediction")
            for r in p.get("result") or []:
                _ls_result(answers, r, k, version)
    answers.left_out = {w: n for w, n in answers.left_out.items() if n}
    if not answers.human and not answers.judge and not answers.unread:
        raise ValidationError(
            f"{name!r} is a Label Studio export without annotations or predictions; "
            "annotate tasks (or import predictions) and export again."
        )
    return _table(ids, parts, answers, "label-studio", "task", name)


def _ls_result(answers: _Answers, result: dict[str, Any], row: int, version: str | None) -> None:
    """One Label Studio result (a control's answer) on ``row``: an annotation's
    (``version`` None) or a prediction's of that model version."""
    control = str(result.get("from_name") or result.get("type") or "label")
    value = result.get("value")
    if not isinstance(value, dict) or not any(k in value for k in LS_VALUES):
        answers.unread[control] = str(result.get("type") or "no value")
        return
    if version is None:
        answers.add(True, control, control, row, value)
        return
    column = f"{version}.{control}"
    answers.add(False, column, control, row, value)
    answers.kinds[column] = f"the predictions of model version {version!r}"


def read_label_studio_min(doc: list[dict[str, Any]], name: str) -> tuple[pd.DataFrame, TableMeta]:
    """Read a Label Studio JSON-MIN export (one flat object per annotation).

    The answers are the keys the annotated objects hold that the unannotated ones do not
    (when every task is annotated: the keys whose value differs between two annotations of
    a task); the annotation's bookkeeping (:data:`MIN_BOOKKEEPING`) is dropped.

    Returns
    -------
    frame, meta
        As :func:`read_label_studio` (no judges: scores imported with the tasks are
        columns like the rest of the data).
    """
    annotated = [r for r in doc if "annotation_id" in r]
    bare = [r for r in doc if "annotation_id" not in r]
    keys = dict.fromkeys(k for r in annotated for k in r if k not in MIN_BOOKKEEPING and k != "id")
    if bare:
        data = set().union(*(set(r) for r in bare))
        asked = [k for k in keys if k not in data]
    else:
        first: dict[Any, dict[str, Any]] = {}
        varies: set[str] = set()
        for r in annotated:
            seen = first.setdefault(_key(r["id"]), r)
            varies |= {k for k in keys if json.dumps(seen.get(k)) != json.dumps(r.get(k))}
        asked = [k for k in keys if k in varies]
    answers = _Answers()
    rows: dict[Any, int] = {}
    parts: list[dict[str, dict[str, Any]]] = []
    ids: list[Any] = []
    for r in doc:
        key = _key(r["id"])
        if key not in rows:
            rows[key] = len(ids)
            ids.append(r["id"])
            parts.append({"data": {k: v for k, v in r.items() if k in keys and k not in asked}})
        if "annotation_id" not in r:
            continue
        answers.answers += 1
        if r.get("annotator") is not None:
            answers.raters.add(str(r["annotator"]))
        for k in asked:
            if k in r:
                answers.add(True, k, k, rows[key], r[k])
    for part in parts:
        part["data"] = flatten(part["data"])
    return _table(ids, parts, answers, "label-studio-min", "task", name)


def _key(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, list | dict) else value


def is_argilla(records: Any) -> bool:
    """Whether a list of parsed records is an Argilla export (2.x records, flattened or
    not; 1.x rows as on the Hugging Face Hub)."""
    head = _records(records)
    return bool(head) and all(_argilla_kind(r) is not None for r in head)


def _argilla_kind(rec: dict[str, Any]) -> str | None:
    if isinstance(rec.get("fields"), dict) and (
        isinstance(rec.get("responses"), dict) or isinstance(rec.get("suggestions"), dict)
    ):
        return "v2"
    if any(k.endswith(".responses") and f"{k}.status" in rec for k in rec):
        return "flat"
    if any(k.endswith("-suggestion-metadata") for k in rec) or any(
        isinstance(v, list) and v and all(_is_response(x) for x in v) for v in rec.values()
    ):
        return "v1"
    return None


def _is_response(x: Any) -> bool:
    return isinstance(x, dict) and "value" in x and "user_id" in x


def _metadata(value: Any) -> dict[str, Any]:
    """An Argilla record's metadata: a dict, or a JSON string of one (1.x rows)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"metadata": value}
    return flatten(value) if isinstance(value, dict) else {}


def _argilla_record(rec: dict[str, Any]) -> tuple[Any, dict[str, dict[str, Any]], dict[str, Any]]:
    """An Argilla record as its id, its parts (``fields``, ``metadata``: name -> value),
    and its questions' responses and suggestion: ``{q: ([responses], suggestion)}``."""
    kind = _argilla_kind(rec)
    asked: dict[str, Any] = {}
    if kind == "v2":
        fields = flatten(rec.get("fields") or {})
        for q, given in (rec.get("responses") or {}).items():
            asked[q] = (list(given or []), None)
        for q, s in (rec.get("suggestions") or {}).items():
            asked[q] = (asked.get(q, ([], None))[0], s)
        parts = {"fields": fields, "metadata": _metadata(rec.get("metadata"))}
        return rec.get("id"), parts, asked
    skip = {"id", "_server_id", "status", "vectors", "external_id", "metadata"}
    if kind == "flat":
        questions = [k[: -len(".responses")] for k in rec if k.endswith(".responses")]
        questions += [k[: -len(".suggestion")] for k in rec if k.endswith(".suggestion")]
        for q in dict.fromkeys(questions):
            values = rec.get(f"{q}.responses") or []
            status = rec.get(f"{q}.responses.status") or []
            users = rec.get(f"{q}.responses.users") or []
            rows = zip(values, _padded(status, values), _padded(users, values), strict=True)
            given = [{"value": v, "status": s, "user_id": u} for v, s, u in rows]
            agent = rec.get(f"{q}.suggestion.agent")
            suggested = {"value": rec.get(f"{q}.suggestion"), "agent": agent}
            asked[q] = (given, suggested if f"{q}.suggestion" in rec else None)
            skip |= {f"{q}.{k}" for k in ("responses", "responses.status", "responses.users")}
            skip |= {f"{q}.{k}" for k in ("suggestion", "suggestion.agent", "suggestion.score")}
    else:
        for k, v in rec.items():
            if k.endswith("-suggestion-metadata") or k.endswith("-suggestion"):
                continue
            if isinstance(v, list) and (not v or all(_is_response(x) for x in v)):
                meta = rec.get(f"{k}-suggestion-metadata") or {}
                suggestion = (
                    {"value": rec[f"{k}-suggestion"], "agent": meta.get("agent")}
                    if f"{k}-suggestion" in rec
                    else None
                )
                asked[k] = (v, suggestion)
        skip |= {k for k in rec if k.endswith(("-suggestion", "-suggestion-metadata"))}
    rest = {k: v for k, v in rec.items() if k not in skip and k not in asked}
    ident = rec.get("external_id", rec.get("id"))
    return ident, {"fields": flatten(rest), "metadata": _metadata(rec.get("metadata"))}, asked


def _padded(values: list[Any], like: list[Any]) -> list[Any]:
    return (list(values) + [None] * len(like))[: len(like)]


def read_argilla(records: list[dict[str, Any]], name: str) -> tuple[pd.DataFrame, TableMeta]:
    """Read an Argilla export (see the module's formats).

    Parameters
    ----------
    records : list of dict
        The parsed records (a JSON array, or a JSON Lines file's lines).
    name : str
        The file name (for messages).

    Returns
    -------
    frame : DataFrame
        One row per record: ``id`` (1.x: ``external_id``; the row's number where those
        are missing or repeat), the fields and the metadata (``fields.x`` / ``metadata.x``
        where names clash), one label column per question with the mean of its submitted
        responses (discarded ones and drafts left out), one judge column per question and
        suggesting agent (``agent.question``; ``question.suggestion`` without an agent).
    meta : TableMeta
        ``id`` as the item, the suggestions as judges, what was read in ``notes``.
    """
    answers = _Answers()
    ids, parts = [], []
    for k, rec in enumerate(records):
        ident, part, asked = _argilla_record(rec)
        ids.append(ident)
        parts.append(part)
        for q, (given, suggestion) in asked.items():
            for resp in given:
                status = str(resp.get("status") or "submitted") if isinstance(resp, dict) else ""
                if status != "submitted":
                    answers.skip(f"{status or 'malformed'} (not submitted)")
                    continue
                answers.answers += 1
                if resp.get("user_id") is not None:
                    answers.raters.add(str(resp["user_id"]))
                answers.add(True, q, q, k, resp.get("value"))
            if isinstance(suggestion, dict) and suggestion.get("value") is not None:
                agent = suggestion.get("agent")
                column = f"{agent}.{q}" if agent else f"{q}.suggestion"
                answers.add(False, column, q, k, suggestion["value"])
                answers.kinds[column] = "the suggestions" + (
                    f" of agent {agent!r}" if agent else ""
                )
    if not answers.human and not answers.judge:
        raise ValidationError(
            f"{name!r} is an Argilla export without responses or suggestions; "
            "annotate records (or add suggestions) and export again."
        )
    unique = all(i is not None for i in ids) and len(set(map(_key, ids))) == len(ids)
    if not unique:
        ids = list(range(1, len(ids) + 1))
    frame, meta = _table(ids, parts, answers, "argilla", "record", name)
    if not unique:
        meta.notes.append("the records' ids are missing or repeat: 'id' is the record's number")
    return frame, meta


__all__ = [
    "is_argilla",
    "is_label_studio",
    "is_label_studio_min",
    "read_argilla",
    "read_label_studio",
    "read_label_studio_min",
]
