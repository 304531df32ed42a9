"""An Inspect AI eval log written by inspect_ai itself, offline: a tiny arithmetic task
answered by ``mockllm/model`` and graded by ``model_graded_qa()`` with a second
``mockllm/model`` as the grader (plus the rule-based ``match()``), and its human labels.

The mock models are deterministic functions of the prompt (inspect runs samples
concurrently, so no shared random stream): sample ``i`` is answered correctly unless
``i % 5 == 0``; the answer has ``i % 9`` filler words; the grader says C for a correct
answer and I for a wrong one, wrong on samples with ``i % 7 == 3`` (it then says P).
The human label is 1 for a correct answer, 0 otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

N_SAMPLES = 70


def correct(i: int) -> bool:
    """Whether the solver answers sample ``i`` correctly."""
    return i % 5 != 0


def make_log(log_dir: Path, n: int = N_SAMPLES, epochs: int = 1) -> Path:
    """Run the task with inspect_ai and return the path of its ``.eval`` log."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match, model_graded_qa
    from inspect_ai.solver import generate

    def output(text: str) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", text)
        # usage given, so mockllm does not count tokens (tiktoken would download a file)
        out.usage = ModelUsage(input_tokens=10, output_tokens=len(text.split()), total_tokens=20)
        return out

    def answer(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        i = int(re.search(r"What is (\d+)\+", messages[-1].text).group(1))  # type: ignore[union-attr]
        value = 2 * i if correct(i) else 2 * i + 1
        return output(f"The answer is {value}" + " indeed" * (i % 9))

    def grade(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        text = messages[-1].text
        i = int(re.search(r"What is (\d+)\+", text).group(1))  # type: ignore[union-attr]
        if i % 7 == 3:
            return output("GRADE: P")
        return output("GRADE: C" if correct(i) else "GRADE: I")

    samples = [
        Sample(id=f"q{i:03d}", input=f"What is {i}+{i}?", target=str(2 * i)) for i in range(n)
    ]
    grader = get_model("mockllm/model", custom_outputs=grade, memoize=False)
    task = Task(
        dataset=samples,
        solver=generate(),
        scorer=[model_graded_qa(model=grader, partial_credit=True), match()],
        epochs=epochs,
    )
    solver = get_model("mockllm/model", custom_outputs=answer, memoize=False)
    (log,) = inspect_eval(task, model=solver, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return Path(log.location)


def labels(n_labeled: int = 60) -> pd.DataFrame:
    """Human labels of the first ``n_labeled`` samples: column ``id`` and ``human``."""
    ids = range(n_labeled)
    return pd.DataFrame(
        {"id": [f"q{i:03d}" for i in ids], "human": [float(correct(i)) for i in ids]}
    )
