"""Write the example tool logs the README's "From the tools you use" commands read, into
``examples/logs/`` (see its README.md)::

    python -m examples.make_tool_logs [OUT_DIR]

- ``run.eval``: an Inspect AI eval log written by inspect_ai itself, offline: 70 arithmetic
  questions answered by inspect's mock model and graded by ``model_graded_qa`` (a second
  mock model) and ``match`` (``tests/inspect_fixture.py``); ``labels.csv``: human labels
  (``id,human``) of 60 of them.
- ``samples_mytask_2026-01-01T00-00-00.jsonl``: an lm-evaluation-harness 0.4.x sample log
  of 80 documents with an ``exact_match`` metric and an LLM-judge metric ``llm_judge``
  (1-5) (``tests/tool_fixtures.py``); ``doc_labels.csv``: human labels (``doc_id,human``,
  1-5) of 60 of them.

Everything is synthetic and made by this project (no model, no data set, no network).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests.inspect_fixture import labels, make_log
from tests.tool_fixtures import labels_frame, lm_eval_truth, write_lm_eval

OUT = Path(__file__).resolve().parent / "logs"
LM_EVAL_LOG = "samples_mytask_2026-01-01T00-00-00.jsonl"
LM_EVAL_DOCS = 80
LABELED = 60


def lm_eval_labels():
    """The lm-eval log's human labels: its first 60 documents' truth."""
    return labels_frame(list(range(LABELED)), lm_eval_truth(LM_EVAL_DOCS)[:LABELED], "doc_id")


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # outside any git checkout: the log records no repository revision
        try:
            log = make_log(Path(tmp))
        finally:
            os.chdir(here)
        shutil.copy(log, out / "run.eval")
    labels(LABELED).to_csv(out / "labels.csv", index=False)
    write_lm_eval(out / LM_EVAL_LOG, n=LM_EVAL_DOCS)
    lm_eval_labels().to_csv(out / "doc_labels.csv", index=False)
    print(f"wrote run.eval, labels.csv, {LM_EVAL_LOG}, doc_labels.csv to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
