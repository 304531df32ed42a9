"""Evaluation frameworks' result tables given to ``bacon doctor`` as a new user has them:
Arize Phoenix evals joined onto spans (its ``label`` is the LLM judge's verdict, never
the human label), MLflow ``evaluate``'s ``eval_results_table`` (``<metric>/v1/score``,
justifications, ``token_count``, ``latency``) and RAGAS's ``result.to_pandas()``
(metrics empty where they failed). Each printed line is run."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

from .printed import run_python_line
from .test_doctor_messy import found

N = 90


def _phoenix(
    human: bool = False,
    evaluated: float = 1.0,
    words: tuple[str, str] = ("relevant", "unrelated"),
    score: bool = True,
) -> pd.DataFrame:
    """Phoenix spans (``get_spans_dataframe``) joined with an ``llm_classify`` evaluation
    (``label``, ``score`` as Phoenix's ``SpanEvaluations`` take it, ``explanation``,
    ``exceptions``, ``execution_status``, ``execution_seconds``), on the share
    ``evaluated`` of the spans; ``human``: a sparse human verdict (1 relevant)."""
    rng = np.random.default_rng(4)
    quality = rng.uniform(0, 1, N)
    good = quality + rng.normal(0, 0.25, N) > 0.5
    start = pd.Timestamp("2025-03-01T10:00:00") + pd.to_timedelta(np.arange(N) * 7, unit="s")
    end = start + pd.to_timedelta(rng.uniform(0.5, 4, N), unit="s")
    prompt_tokens, completion_tokens = rng.integers(200, 900, N), rng.integers(20, 200, N)
    frame = pd.DataFrame(
        {
            "context.span_id": [f"{rng.integers(2**62, 2**63):016x}" for _ in range(N)],
            "context.trace_id": [f"{rng.integers(2**62, 2**63):032x}" for _ in range(N)],
            "name": "ChatCompletion",
            "span_kind": "LLM",
            "start_time": start.strftime("%Y-%m-%dT%H:%M:%S.%f+00:00"),
            "end_time": end.strftime("%Y-%m-%dT%H:%M:%S.%f+00:00"),
            "status_code": "OK",
            "attributes.llm.model_name": "gpt-4o-mini",
            "attributes.llm.token_count.prompt": prompt_tokens,
            "attributes.llm.token_count.completion": completion_tokens,
            "attributes.llm.token_count.total": prompt_tokens + completion_tokens,
            "attributes.input.value": [f"How do I change setting {i}?" for i in range(N)],
            "attributes.output.value": [
                f"To do that for case {i}, open Settings > Account and choose option {i % 7}."
                for i in range(N)
            ],
            "label": np.where(good, *words),
            "score": good.astype(int),
            "explanation": [
                f"The reference text {'discusses' if g else 'does not mention'} setting {i}, "
                f"so the answer is {words[0] if g else words[1]}."
                for i, g in enumerate(good)
            ],
            "exceptions": "[]",
            "execution_status": "COMPLETED",
            "execution_seconds": rng.uniform(0.8, 3.5, N).round(3),
        }
    )
    if not score:
        frame = frame.drop(columns="score")
    kept = rng.random(N) < evaluated
    for c in ("label", "score", "explanation", "exceptions", "execution_status"):
        if c in frame:
            frame[c] = frame[c].where(kept)
    frame["execution_seconds"] = frame["execution_seconds"].where(kept)
    if human:
        frame["human"] = np.where(rng.random(N) < 0.35, (quality > 0.5).astype(float), np.nan)
    return frame


def _doctor(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["doctor", *args]) == 0
    return capsys.readouterr().out


def _row(out: str, role: str, column: str) -> str:
    """Doctor's line of ``column`` in the role ``role`` of its columns found."""
    block = out.split("columns found:\n", 1)[1].split("\n\n", 1)[0]
    return next(x for x in block.splitlines() if x.startswith(f"  {role:<9} {column} "))


def _run(out: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Run doctor's printed ``bacon estimate`` (fast engine); its output."""
    lines = out.splitlines()
    words = shlex.split(lines[lines.index("run:") + 1])
    assert main([*words[words.index("estimate") :], "--engine", "freq"]) == 0
    return capsys.readouterr().out


def test_phoenix_s_label_is_the_judge_s_verdict_never_the_human_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the verdict words in ``label`` were "labels written as words" with the
    line mapping them and the doctor taking them as the human label; no judge. Now they
    are the judge's (its numbers the judge ``score``), ``explanation`` is no text or
    group, and the printed ``bacon sample`` draws a pilot for a new human column."""
    monkeypatch.chdir(tmp_path)
    _phoenix().to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv"], capsys)
    assert found(out, "label") == ["-"] and found(out, "judge") == ["score"]
    assert "its numbers are the judge 'score'" in _row(out, "left out", "label")
    assert "explanation of its verdict 'label'" in _row(out, "left out", "explanation")
    for bookkeeping in ("attributes.llm.token_count.total", "execution_seconds"):
        assert "named like a count, time or index" in _row(out, "left out", bookkeeping)
    lines = out.splitlines()
    sample = shlex.split(lines[lines.index("run, to draw the first items to label:") + 1])
    assert "--label" in sample and sample[sample.index("--label") + 1] == "human"
    assert main(sample[sample.index("sample") :]) == 0


def test_phoenix_evaluations_beside_human_labels_are_the_judge_not_the_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the verdict ``label`` (relevant / unrelated) was the group, a mean per
    verdict of the judge printed; a verdict read from words (correct / incorrect) with no
    ``score`` beside it was "named like a human rating" and no judge was left. Now the
    human column is the label, the verdict (or its score) the judge, and the command runs."""
    monkeypatch.chdir(tmp_path)
    _phoenix(human=True).to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv"], capsys)
    assert found(out, "label") == ["human"] and found(out, "group") == ["-"]
    assert found(out, "judge") == ["score"]
    assert "calibrated (AEE)" in _run(out, capsys)
    _phoenix(human=True, words=("correct", "incorrect"), score=False).to_csv("qa.csv", index=False)
    out = _doctor(["qa.csv"], capsys)
    assert found(out, "label") == ["human"] and found(out, "judge") == ["label"]
    assert "the LLM judge's verdict" in _row(out, "judge", "label")
    assert "calibrated (AEE)" in _run(out, capsys)


def test_phoenix_evaluations_on_some_spans_are_not_the_human_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Evaluations on 40% of the spans: before, their ``score`` (sparse) was taken for
    the human label and ``label`` for the group; the LLM's verdicts were the "labels".
    Now no label is taken, and the line that keeps the spans evaluated runs; doctor on
    its file takes ``score`` as the judge."""
    monkeypatch.chdir(tmp_path)
    _phoenix(evaluated=0.4).to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv"], capsys)
    assert found(out, "label") == ["-"] and found(out, "group") == ["-"]
    left = _row(out, "left out", "score")
    assert "never the human label" in left and "then bacon doctor spans_evaluated.csv" in left
    run_python_line(left, cwd=tmp_path)
    out = _doctor(["spans_evaluated.csv"], capsys)
    assert found(out, "label") == ["-"] and found(out, "judge") == ["score"]


def _summary(out: str) -> str:
    """Doctor's "what can be computed" lines."""
    return out.split("what can be computed:\n", 1)[1].split("\n\n", 1)[0].strip()


def test_the_summary_of_evaluations_on_some_spans_says_what_there_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Evaluations on 40% of the spans: before, the summary said "nothing yet: no judge
    column found; name one with --judge" though the columns found name them. Now it says
    the evaluations, on how many spans, and the line that keeps them (run: its doctor
    takes the judge); without ``score`` (verdict words), the line writing them as numbers
    first, whose doctor then says the spans evaluated."""
    for score in (True, False):
        (tmp_path / str(score)).mkdir()
        monkeypatch.chdir(tmp_path / str(score))
        _phoenix(evaluated=0.4, score=score).to_csv("spans.csv", index=False)
        said = _summary(_doctor(["spans.csv"], capsys))
        assert "no judge column found" not in said
        if not score:
            assert "('label', the LLM judge's verdicts in words" in said
            assert said.endswith("doctor spans_scores.csv"), said
            run_python_line(said)
            said = _summary(_doctor(["spans_scores.csv"], capsys))
        assert "Arize Phoenix's evaluations ('score'" in said and "35 of the 90 spans" in said
        assert said.endswith("_evaluated.csv"), said
        run_python_line(said)
        out = _doctor([said.rsplit(" ", 1)[1]], capsys)
        assert found(out, "judge") == ["score"]


def test_phoenix_verdict_words_alone_are_written_as_the_judge_with_the_labels_joined(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``llm_classify``'s output has no ``score``: its verdict words are written as the
    judge ``score`` by the printed line, whose doctor joins the ``--labels`` file too; the
    command that doctor prints runs with the human label."""
    monkeypatch.chdir(tmp_path)
    table = _phoenix(human=True, score=False)
    labels = table.loc[table["human"].notna(), ["context.span_id", "human"]]
    labels.to_csv("human.csv", index=False)
    table.drop(columns="human").to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv", "--labels", "human.csv"], capsys)
    assert found(out, "label") == ["human"] and found(out, "group") == ["-"]
    left = _row(out, "left out", "label")
    assert "{'relevant': 1, 'unrelated': 0}" in left
    assert left.endswith("spans_scores.csv --labels human.csv --label human"), left
    run_python_line(left, cwd=tmp_path)
    out = _doctor(["spans_scores.csv", "--labels", "human.csv", "--label", "human"], capsys)
    assert found(out, "judge") == ["score"]
    assert "calibrated (AEE)" in _run(out, capsys)


def test_a_label_beside_an_explanation_alone_says_how_to_take_it_as_the_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``label`` beside ``explanation`` alone (no ``score``, none of ``llm_classify``'s
    own columns) is read as Phoenix's verdict too, but people explain their labels as
    well: doctor says ``--label label`` takes it."""
    monkeypatch.chdir(tmp_path)
    own = ["score", "exceptions", "execution_status", "execution_seconds"]
    _phoenix(human=True).drop(columns=own).to_csv("spans.csv", index=False)
    out = _doctor(["spans.csv"], capsys)
    assert found(out, "label") == ["human"] and found(out, "group") == ["-"]
    assert "(--label label takes it, if people wrote it)" in _row(out, "left out", "label")


def _mlflow(human: bool = False, failed: float = 0.0) -> pd.DataFrame:
    """``mlflow.evaluate(...).tables["eval_results_table"]`` of a question-answering
    model: inputs, ground_truth, outputs, token_count, latency, toxicity, two LLM-judged
    metrics (1-5) with their justifications; ``failed``: the share of rows whose
    ``answer_relevance`` judge call failed (an empty score); ``human``: sparse 1-5 ratings."""
    rng = np.random.default_rng(6)
    quality = rng.uniform(0, 1, N)
    relevance = np.clip(np.round(1 + 4 * quality + rng.normal(0, 0.6, N)), 1, 5)
    faithful = np.clip(np.round(1 + 4 * quality + rng.normal(0, 0.8, N)), 1, 5)
    frame = pd.DataFrame(
        {
            "inputs": [f"What does MLflow feature {i} do?" for i in range(N)],
            "ground_truth": [f"Feature {i} tracks runs and their metrics." for i in range(N)],
            "outputs": [f"Feature {i} lets you " + "log runs " * (1 + i % 4) for i in range(N)],
            "token_count": rng.integers(10, 200, N),
            "latency": rng.uniform(0.5, 3, N).round(3),
            "toxicity/v1/score": rng.uniform(0, 0.01, N).round(5),
            "answer_relevance/v1/score": relevance,
            "answer_relevance/v1/justification": [
                f"The output answers question {i} with {'all' if r > 3 else 'some'} details."
                for i, r in enumerate(relevance)
            ],
            "faithfulness/v1/score": faithful,
            "faithfulness/v1/justification": [
                f"Claim {i} is {'supported' if f > 3 else 'not supported'} by the context."
                for i, f in enumerate(faithful)
            ],
        }
    )
    gone = rng.random(N) < failed
    for c in ("answer_relevance/v1/score", "answer_relevance/v1/justification"):
        frame[c] = frame[c].where(~gone)
    if human:
        frame["human"] = np.where(rng.random(N) < 0.3, np.round(1 + 4 * quality), np.nan)
    return frame


def test_mlflow_s_results_table_has_its_metrics_for_judges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: ``token_count`` was a judge (in the printed command), the justifications
    texts. Now the judges are the ``/v1/score`` columns, ``token_count`` and ``latency``
    bookkeeping, the justifications the judge's; the command (slashes in names) runs,
    with the labels in the table and from a ``--labels`` file joined on ``inputs``."""
    monkeypatch.chdir(tmp_path)
    table = _mlflow(human=True)
    table.to_csv("eval_results_table.csv", index=False)
    out = _doctor(["eval_results_table.csv"], capsys)
    metrics = ["toxicity/v1/score", "answer_relevance/v1/score", "faithfulness/v1/score"]
    assert found(out, "label") == ["human"] and found(out, "judge") == metrics
    assert "named like a count" in _row(out, "left out", "token_count")
    why = _row(out, "left out", "answer_relevance/v1/justification")
    assert "justification of its score 'answer_relevance/v1/score'" in why
    assert "calibrated (AEE)" in _run(out, capsys)
    table.loc[table["human"].notna(), ["inputs", "human"]].to_csv("human.csv", index=False)
    table.drop(columns="human").to_csv("table.csv", index=False)
    out = _doctor(["table.csv", "--labels", "human.csv", "--label", "human"], capsys)
    assert found(out, "judge") == metrics
    assert "calibrated (AEE)" in _run(out, capsys)


def test_a_metric_that_failed_on_most_rows_is_no_human_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """MLflow's ``answer_relevance/v1/score`` empty on 60% of rows (its judge calls
    failed) was the sparse column doctor took for the human label: ``--label
    answer_relevance/v1/score``, the other metrics calibrated on it. Now no label is
    taken and the metric is said to be one."""
    monkeypatch.chdir(tmp_path)
    _mlflow(failed=0.6).to_csv("eval_results_table.csv", index=False)
    out = _doctor(["eval_results_table.csv"], capsys)
    assert found(out, "label") == ["-"] and "--label answer_relevance" not in out
    why = _row(out, "left out", "answer_relevance/v1/score")
    assert "a metric's score (MLflow's evaluate), a judge, never the human label" in why


def test_mlflow_s_readability_grade_levels_are_no_judges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mlflow.evaluate(..., model_type="text")`` adds ``flesch_kincaid_grade_level/v1/score``
    and ``ari_grade_level/v1/score``: the school grade that reads the output, a formula of
    its word and sentence lengths. Before, both were judges (``--judge '*/v1/score'``).
    Now they are left out, named as readability statistics, and the printed command (the
    three judges named one by one) runs."""
    monkeypatch.chdir(tmp_path)
    table = _mlflow(human=True)
    rng = np.random.default_rng(3)
    table.insert(6, "flesch_kincaid_grade_level/v1/score", rng.normal(8, 2.5, N).round(1))
    table.insert(7, "ari_grade_level/v1/score", rng.normal(9, 3, N).round(1))
    table.to_csv("eval_results_table.csv", index=False)
    out = _doctor(["eval_results_table.csv"], capsys)
    metrics = ["toxicity/v1/score", "answer_relevance/v1/score", "faithfulness/v1/score"]
    assert found(out, "judge") == metrics
    for grade in ("flesch_kincaid_grade_level/v1/score", "ari_grade_level/v1/score"):
        assert "named like a readability statistic" in _row(out, "left out", grade)
    assert "grade_level" not in out.split("\nrun:", 1)[1]
    assert "calibrated (AEE)" in _run(out, capsys)


def _ragas(old_names: bool = False) -> pd.DataFrame:
    """RAGAS's ``result.to_pandas()``: the sample's columns (``user_input``,
    ``retrieved_contexts`` a list in a cell, ``response``, ``reference``; before 0.2
    ``question``, ``contexts``, ``answer``, ``ground_truth``) and four metrics in 0-1,
    ``faithfulness`` empty on two thirds of the rows (timeouts)."""
    rng = np.random.default_rng(8)
    quality = rng.uniform(0, 1, N)
    frame = pd.DataFrame(
        {
            "user_input": [f"Who founded company {i}?" for i in range(N)],
            "retrieved_contexts": [
                str([f"Company {i} was founded in 19{i % 90:02d}.", f"It is based in city {i}."])
                for i in range(N)
            ],
            "response": [f"Company {i} was founded by person {i}." for i in range(N)],
            "reference": [f"Person {i} founded company {i}." for i in range(N)],
            "faithfulness": np.clip(quality + rng.normal(0, 0.2, N), 0, 1).round(4),
            "answer_relevancy": np.clip(0.5 + 0.5 * quality + rng.normal(0, 0.1, N), 0, 1),
            "context_precision": np.clip(np.round(quality + rng.normal(0, 0.3, N)), 0, 1),
            "context_recall": np.clip(np.round(2 * quality + rng.normal(0, 0.5, N)) / 2, 0, 1),
        }
    )
    frame["faithfulness"] = frame["faithfulness"].where(rng.random(N) < 0.33)
    frame["human"] = np.where(rng.random(N) < 0.3, np.round(1 + 4 * quality), np.nan)
    if old_names:
        old = {"user_input": "question", "retrieved_contexts": "contexts", "response": "answer"}
        frame = frame.rename(columns={**old, "reference": "ground_truth"})
    return frame


@pytest.mark.parametrize("old_names", [False, True])
def test_a_ragas_metric_that_failed_is_a_judge_never_the_label(
    old_names: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``faithfulness`` scored on a third of the rows (RAGAS's timeouts): before, without
    human labels in the table, doctor printed ``--label faithfulness``. Now it is a
    metric, no label; with the labels joined from a file it is a judge that scored part of
    the rows, and the command runs."""
    monkeypatch.chdir(tmp_path)
    table = _ragas(old_names)
    item = "question" if old_names else "user_input"
    table.drop(columns="human").to_csv("ragas.csv", index=False)
    out = _doctor(["ragas.csv"], capsys)
    assert found(out, "label") == ["-"] and "--label faithfulness" not in out
    assert "a metric's score (RAGAS's)" in _row(out, "left out", "faithfulness")
    table.loc[table["human"].notna(), [item, "human"]].to_csv("human.csv", index=False)
    out = _doctor(["ragas.csv", "--labels", "human.csv"], capsys)
    assert found(out, "label") == ["human"]
    assert "faithfulness" in found(out, "judge")
    assert "calibrated (AEE)" in _run(out, capsys)
