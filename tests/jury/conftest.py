"""Fixtures of the AI-jury tests: a scripted chat-completions server on 127.0.0.1."""

from __future__ import annotations

import pandas as pd
import pytest

from bacon_bayes.judges import JudgeSpec, RetryPolicy
from bacon_bayes.testing.fake_server import FakeChatServer

#: Short backoff so retry tests take milliseconds.
FAST_RETRY = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05)


@pytest.fixture
def serve():
    """Start a FakeChatServer with a given script; stopped after the test."""
    servers: list[FakeChatServer] = []

    def start(script=None) -> FakeChatServer:
        srv = FakeChatServer(script).start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.stop()


def judge(srv: FakeChatServer, model: str = "judge-a", **kw) -> JudgeSpec:
    kw.setdefault("api_key_env", None)
    return JudgeSpec(model=model, base_url=srv.url, **kw)


def essays(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": [f"e{i:03d}" for i in range(n)],
            "prompt_name": "Phones and driving",
            "full_text": [f"Essay number {i} about phones." for i in range(n)],
        }
    )
