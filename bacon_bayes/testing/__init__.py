"""Testing aids for users: a scripted OpenAI-compatible chat-completions server on
127.0.0.1 (:mod:`.fake_server`), to try one's own judge templates and parsers with
``bacon judge`` / :func:`bacon_bayes.judges.run_jury` without paying for calls."""

from bacon_bayes.testing.fake_server import (
    FakeChatServer,
    Raw,
    Reply,
    Request,
    ServerProcess,
    Status,
    numeric_reply,
    token_logprobs,
)

__all__ = [
    "FakeChatServer",
    "Raw",
    "Reply",
    "Request",
    "ServerProcess",
    "Status",
    "numeric_reply",
    "token_logprobs",
]
