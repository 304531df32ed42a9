"""The columns evaluation frameworks write beside their judges' scores, read for what
they are by ``bacon doctor``: Arize Phoenix evals' ``label`` / ``score`` /
``explanation`` (an LLM judge's verdict, the verdict as a number and its reasons; its
``label`` is no human label), MLflow ``evaluate``'s ``<metric>/v1/score`` and
``<metric>/v1/justification``, RAGAS's metric columns (``faithfulness``,
``context_recall``..., empty where a metric failed). None of them is ever the human
label, a group, a prompt or a response."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from shlex import quote
from typing import TYPE_CHECKING

import pandas as pd

from bacon_bayes.doctor.cells import is_str, numeric
from bacon_bayes.doctor.names import READABILITY
from bacon_bayes.words import level_map, mapping_text

if TYPE_CHECKING:
    from bacon_bayes.doctor.roles import Roles

#: how the reason of a column an LLM judge wrote (its verdict in words, its explanation)
#: begins: no group, prompt, text nor label candidate (:func:`~.strings.categorical`)
JUDGE_OWN = "the LLM judge's "
PHOENIX = "Arize Phoenix's evals: label, score, explanation"
#: how to take as a judge a numeric column doctor left out
ANYWAY = " (pass --judge to use it anyway)"
#: the parts of a Phoenix evaluation (``llm_classify``'s output, a ``SpanEvaluations``
#: frame), bare or with an eval's name around them (``eval.Relevance.label``)
_PART = re.compile(
    r"^(?P<pre>(?:.*[._ -])?)(?P<part>label|score|explanation|exceptions|execution_status"
    r"|execution_seconds)(?P<post>(?:[._ -].*)?)$",
    re.I,
)
#: beside a ``label``, these make it a Phoenix evaluation's verdict
_SIBLINGS = ("explanation", "exceptions", "execution_status", "execution_seconds")
#: a Phoenix rail's word that says the answer is good: 1 where a verdict of two words is
#: written as numbers (the other word 0)
GOOD_WORDS = frozenset(
    "relevant correct factual non-toxic readable good ok pass passed faithful grounded "
    "helpful safe accurate consistent".split()
)
#: MLflow ``evaluate``'s per-row metric columns: ``toxicity/v1/score``,
#: ``answer_relevance/v1/justification`` (a custom metric's ``name/score``)
_MLFLOW = re.compile(r"^(?P<metric>.+?)(?:/v\d+)?/(?P<part>score|justification)$", re.I)
#: RAGAS's metrics, as ``result.to_pandas()`` names their columns
_RAGAS = re.compile(
    r"^(faithfulness|answer_relevancy|response_relevancy|context_precision|context_recall"
    r"|context_entity_recall|context_relevancy|context_relevance|context_utilization"
    r"|answer_similarity|semantic_similarity|answer_correctness|factual_correctness"
    r"|noise_sensitivity\w*|harmfulness|maliciousness|coherence|correctness|conciseness"
    r"|answer_accuracy|response_groundedness|topic_adherence|tool_call_accuracy"
    r"|agent_goal_accuracy|summary_score|nv_\w+|(non_)?llm_context_(precision|recall)\w*)"
    r"(\(.*\))?$",
    re.I,
)

#: ``(what, code)`` -> the line that runs the pandas ``code`` on the table and doctor on
#: the file it writes (:func:`~bacon_bayes.doctor.cells.doctor_again`), or None
Again = Callable[[str, str], str] | None


@dataclass
class Verdict:
    """One Phoenix evaluation in a table: its ``label`` column (the LLM judge's verdict),
    the verdict as numbers (``score``: a column of the table, else the name Phoenix gives
    it) and its ``explanation`` (None: none)."""

    label: str
    score: str
    has_score: bool
    explanation: str | None
    #: every column of the evaluation (``execution_seconds``...), these included
    parts: tuple[str, ...] = ()
    #: False where only an ``explanation`` says it is a tool's (people explain their
    #: labels too): doctor says how to take it as the label
    sure: bool = True

    def said(self, what: str) -> str:
        """The reason's start: the judge's ``what`` (``verdict in words (...)``), never
        the human label, and where not :attr:`sure` how to take it as one anyway."""
        if self.sure:
            return f"{JUDGE_OWN}{what}: never the human label"
        anyway = f"--label {quote(self.label)} takes it, if people wrote it"
        return f"{JUDGE_OWN}{what}, by its explanation: not taken as the human label ({anyway})"


def phoenix_verdicts(frame: pd.DataFrame, given: str | None = None) -> list[Verdict]:
    """The Phoenix evaluations of ``frame``: a ``label`` beside an ``explanation`` (or
    ``llm_classify``'s ``exceptions``, ``execution_status``, ``execution_seconds``) of
    the same eval name; ``given`` (``--label``) is taken at its word, never one."""
    parts: dict[tuple[str, str], dict[str, str]] = {}
    for c in map(str, frame.columns):
        if m := _PART.match(c):
            key = (m["pre"].lower(), m["post"].lower())
            parts.setdefault(key, {})[m["part"].lower()] = c
    out = []
    for found in parts.values():
        label = found.get("label")
        if label is None or label == given or not any(s in found for s in _SIBLINGS):
            continue
        score = found.get("score")
        has = score is not None and score != given and numeric(frame[score]) is not None
        named = score if has else _score_name(label)
        sure = has or any(s in found for s in _SIBLINGS[1:])  # llm_classify's own columns
        explained = found.get("explanation")
        out.append(Verdict(label, str(named), has, explained, (*found.values(),), sure))
    return out


def _score_name(label: str) -> str:
    """The name of the score beside ``label`` of the same eval (``eval.Relevance.score``
    beside ``eval.Relevance.label``)."""
    m = _PART.match(label)
    return "score" if m is None else label[: m.start("part")] + "score" + label[m.end("part") :]


def _ragas(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` has RAGAS's columns (``user_input``, ``response`` or
    ``retrieved_contexts``; before 0.2 ``question`` and ``contexts``)."""
    names = {str(c).lower() for c in frame.columns}
    new = "user_input" in names and bool({"response", "retrieved_contexts"} & names)
    return new or {"question", "contexts"} <= names


def tool_metrics(frame: pd.DataFrame) -> dict[str, str]:
    """The numeric columns of ``frame`` that an evaluation tool's metric wrote (MLflow's
    ``<metric>/v1/score``, RAGAS's ``faithfulness`` in a RAGAS table, a Phoenix
    evaluation's ``score``), each with what it is: judges, never the human label.
    MLflow's readability statistics (``flesch_kincaid_grade_level/v1/score``) are none:
    no judges (:data:`~bacon_bayes.doctor.names.READABILITY`), never the label either
    (:func:`tool_columns`)."""
    out = {}
    for v in phoenix_verdicts(frame):
        if v.has_score:
            out[v.score] = f"{JUDGE_OWN}verdict {v.label!r} as a number (Arize Phoenix's evals)"
    ragas = _ragas(frame)
    for c in map(str, frame.columns):
        if (m := _MLFLOW.match(c)) and m["part"].lower() == "score" and not READABILITY.search(c):
            out[c] = "a metric's score (MLflow's evaluate)"
        elif ragas and _RAGAS.match(c):
            out[c] = "a metric's score (RAGAS's)"
    return {c: tool for c, tool in out.items() if numeric(frame[c]) is not None}


def tool_columns(frame: pd.DataFrame, given: str | None = None) -> set[str]:
    """Every column of ``frame`` an evaluation tool wrote as its judge's (verdicts in
    words or numbers, scores, explanations, justifications): never the human label
    (``given``, ``--label``, excepted)."""
    out = set(tool_metrics(frame))
    for v in phoenix_verdicts(frame, given):
        out |= set(v.parts)  # its execution_seconds too: no label
    out |= {str(c) for c in frame.columns if _MLFLOW.match(str(c))}
    return out - {given}


def verdict_map(column: pd.Series) -> dict[str, float] | None:
    """A judge's verdicts in words as numbers: of two words, 1 for the good one
    (:data:`GOOD_WORDS`: ``relevant``, ``factual``) and 0 for the other; else the
    levels' map (:func:`~bacon_bayes.words.level_map`); None when neither says."""
    words = column.dropna().astype(str).str.strip()
    kinds = sorted(set(words))
    good = [w for w in kinds if w.lower() in GOOD_WORDS]
    if len(kinds) == 2 and len(good) == 1:
        return {w: float(w in good) for w in kinds}
    found = level_map(column)
    return None if found is None else found[1]


def tool_texts(frame: pd.DataFrame, given: str | None, again: Again) -> dict[str, str]:
    """Why each string column an LLM judge wrote plays no part (its verdict in words, its
    explanation, MLflow's justification): the judge's, never the human label, a group, a
    prompt or the response's text. A verdict in words without its numbers comes with the
    line that writes them as the judge's column (``again``; else the pandas code)."""
    out = {}
    for v in phoenix_verdicts(frame, given):
        if v.explanation and is_str(frame[v.explanation]):
            out[v.explanation] = (
                f"{JUDGE_OWN}explanation of its verdict {v.label!r} ({PHOENIX}): no group, "
                "prompt or text"
            )
        if not is_str(frame[v.label]):
            continue  # read as numbers (correct / incorrect): the judge, by tool_judges
        kinds = frame[v.label].dropna().astype(str).value_counts()
        seen = ", ".join(f"{w!r} ({n})" for w, n in kinds.head(4).items())
        said = v.said(f"verdict in words ({seen}; {PHOENIX})")
        if v.has_score:
            out[v.label] = f"{said}, nor a group; its numbers are the judge {v.score!r}"
            continue
        values = verdict_map(frame[v.label])
        if values is None:
            out[v.label] = f"{said}, nor a group; write it as numbers to use it as a judge"
            continue
        code = f"df[{v.score!r}] = df[{v.label!r}].map({{{mapping_text(values)}}})"
        line = again("scores", code) if again else f"in pandas: {code}"
        out[v.label] = f"{said}, nor a group{_AS_NUMBERS}{v.score!r}: {line}"
    for c in map(str, frame.columns):
        m = _MLFLOW.match(c)
        if m and m["part"].lower() == "justification" and c != given and is_str(frame[c]):
            score = next((s for s in tool_metrics(frame) if s.startswith(m["metric"])), None)
            of = f" of its score {score!r}" if score else ""
            out[c] = f"{JUDGE_OWN}justification{of} (MLflow's evaluate): no group, prompt or text"
    return out


def tool_judges(frame: pd.DataFrame, roles: Roles, again: Again) -> None:
    """Say each judge column a tool wrote for what it is, once the judges are found: a
    Phoenix verdict read as numbers (``correct`` / ``incorrect``) is the judge where no
    ``score`` beside it is, a copy of that score where one is; a tool's metric left out as
    sparse and no label found is a judge that scored part of the rows (RAGAS's empty
    where it failed; Phoenix's on the spans evaluated, with the line keeping those)."""
    for v in phoenix_verdicts(frame, roles.label):
        if is_str(frame[v.label]) or v.label == roles.label:
            continue
        roles.judges = [j for j in roles.judges if j != v.label]
        roles.reasons.pop(f"judge:{v.label}", None)
        said = v.said(f"verdict ({PHOENIX})")
        if v.has_score:
            roles.left_out[v.label] = (
                f"{said}; read from words, the same verdicts as the judge {v.score!r}"
            )
        elif frame[v.label].notna().mean() >= 0.5:
            roles.left_out.pop(v.label, None)
            roles.judges.append(v.label)
            roles.reasons[f"judge:{v.label}"] = f"{said}, the judge's"
        else:
            roles.left_out[v.label] = f"{said}; {_evaluated(frame, v.label, again)}"
    for c, what in tool_metrics(frame).items():
        if f"judge:{c}" in roles.reasons:
            roles.reasons[f"judge:{c}"] += f"; {what}"
        elif roles.label is None and roles.left_out.get(c, "").startswith("numeric but sparse"):
            why = roles.left_out[c].removesuffix(ANYWAY)
            roles.left_out[c] = f"{why}: {what}, a judge, never the human label; " + (
                _evaluated(frame, c, again)
                if what.startswith(JUDGE_OWN)
                else "its empty cells are rows where the metric failed (a timeout, a reply "
                f"it could not parse){ANYWAY}"
            )


#: how :func:`_evaluated` begins: a judge run on part of the rows (:func:`evaluated_only`)
_SCORED = "the judge scored "
_KEEP = " (the spans evaluated?); to keep those: "
#: a verdict in words with the line writing it as the judge (:func:`tool_texts`)
_AS_NUMBERS = "; as numbers, the judge "


def _evaluated(frame: pd.DataFrame, column: str, again: Again) -> str:
    """The judge ``column`` scored part of the rows (the spans evaluated): how many, and
    the line that keeps those rows (``again``; else the pandas code)."""
    k, n = int(frame[column].notna().sum()), len(frame)
    code = f"df = df[df[{column!r}].notna()]"
    line = again("evaluated", code) if again else f"in pandas: {code}"
    return f"{_SCORED}{k} of {n} rows{_KEEP}{line}"


def evaluated_only(left_out: dict[str, str]) -> str | None:
    """What doctor's summary says of a table with no judge but an LLM judge's evaluations
    in words (Phoenix's ``label`` with no ``score``: the line that writes them as the
    judge, :func:`tool_texts`) or on part of its rows (Phoenix's on some spans,
    :func:`tool_judges`: the evaluations, on how many rows, and the line that keeps
    those rows); None when there are none."""
    for c, why in left_out.items():
        if _AS_NUMBERS in why:  # the verdict's words first; doctor on that file says more
            score, line = why.split(_AS_NUMBERS, 1)[1].split(": ", 1)
            return (
                f"nothing yet: Arize Phoenix's evaluations ({c!r}, the LLM judge's verdicts "
                f"in words, above) are the judge {score} once written as numbers: {line}"
            )
        if _SCORED in why and _KEEP in why:
            counts, line = why.split(_SCORED, 1)[1].split(_KEEP, 1)
            k, n = counts.removesuffix(" rows").split(" of ")
            return (
                f"nothing over all {n} rows yet: Arize Phoenix's evaluations ({c!r}, the LLM "
                f"judge's verdicts, above) are on {k} of the {n} spans, the others have no "
                f"judge score; keep the spans evaluated, and doctor takes {c!r} as the judge "
                f"there: {line}"
            )
    return None
