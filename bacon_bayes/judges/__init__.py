"""Stage 1b, the AI jury: score items with LLM judges through OpenAI-compatible endpoints.

``run_jury(items, judges, template)`` returns a long table item x judge x run
(``score``, ``entropy``, ``perplexity``, ``latency``, ``raw``, ``reason``...) that
``EvalPool.from_frame(..., judges=table)`` reads directly.
"""

from __future__ import annotations

from bacon_bayes.judges.cache import CallCache, call_key
from bacon_bayes.judges.client import JudgeSpec
from bacon_bayes.judges.parsing import mqm_score, parse_reply
from bacon_bayes.judges.retry import RetryPolicy
from bacon_bayes.judges.runner import (
    COLUMNS,
    JuryPlan,
    JuryResult,
    JurySummary,
    plan_jury,
    run_jury,
)
from bacon_bayes.judges.templates import BUILTIN, Template, load_template

__all__ = [
    "BUILTIN",
    "COLUMNS",
    "CallCache",
    "JudgeSpec",
    "JuryPlan",
    "JuryResult",
    "JurySummary",
    "RetryPolicy",
    "Template",
    "call_key",
    "load_template",
    "mqm_score",
    "parse_reply",
    "plan_jury",
    "run_jury",
]
