"""Judges and one chat-completions call against an OpenAI-compatible endpoint.

HTTP goes through ``aiohttp`` (optional dependency, extra ``judge``): one pooled
keep-alive session serves every judge, with a total timeout per attempt and distinct
exception classes for timeouts and dropped connections. It was chosen over httpx after
measuring both against the local test server: at concurrency 32 aiohttp sustained about
4x the request rate of httpx on this 2-core machine (httpcore's pool costs O(connections)
per request), and the judge stage has to keep up with fast local endpoints.

The API key is read from an environment variable when the call is made; it lives only
in the request header, and :func:`redact` removes it from any text that is logged or
stored.
"""

from __future__ import annotations

import functools
import json
import os
import re
import time
import tomllib
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bacon_bayes.errors import ValidationError
from bacon_bayes.judges.retry import CallFailed, parse_retry_after

if TYPE_CHECKING:  # pragma: no cover
    import aiohttp

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


@dataclass(frozen=True)
class JudgeSpec:
    """One judge: a model behind an endpoint, with its sampling parameters.

    Parameters
    ----------
    name
        Label in the output table (defaults to the model).
    model
        Model name sent to the endpoint.
    base_url
        Endpoint root, e.g. ``http://localhost:8000/v1``; ``/chat/completions`` is appended.
    api_key_env
        Environment variable holding the API key; None or "" sends no key.
    temperature, max_tokens, top_logprobs
        Sampling parameters; ``top_logprobs=0`` asks for no logprobs.
    rate
        Maximum requests per second to this judge (None = unlimited).
    extra
        Further request-body fields (e.g. ``{"seed": 1}``); part of the cache key.
    """

    model: str
    name: str = ""
    base_url: str = DEFAULT_BASE_URL
    api_key_env: str | None = DEFAULT_KEY_ENV
    temperature: float = 0.0
    max_tokens: int | None = None
    top_logprobs: int = 5
    rate: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.model:
            raise ValidationError("a judge needs a model name")
        if not self.name:
            object.__setattr__(self, "name", self.model)
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValidationError(
                f"judge {self.name!r}: endpoint {self.base_url!r} must be an http:// or "
                "https:// URL with a host, e.g. http://localhost:8000/v1; fix it in --judge "
                "NAME=MODEL@URL, --base-url or the judges file's base_url"
            )
        if not 0 <= self.top_logprobs <= 20:
            raise ValidationError(
                f"judge {self.name!r}: top_logprobs must be in 0..20, got {self.top_logprobs}"
            )

    def params(self) -> dict[str, Any]:
        """Sampling parameters sent with every request (and hashed into the cache key)."""
        out: dict[str, Any] = {"temperature": self.temperature}
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        if self.top_logprobs > 0:
            out["logprobs"] = True
            out["top_logprobs"] = self.top_logprobs
        out.update(self.extra)
        return out

    def api_key(self) -> str | None:
        """The key from the environment; a clear error when the variable is unset."""
        if not self.api_key_env:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ValidationError(
                f"judge {self.name!r}: environment variable {self.api_key_env} is not set; "
                f"export it with your API key, or pass --api-key-env '' for an endpoint "
                "that needs none"
            )
        return key


def redact(text: str, secrets: list[str]) -> str:
    """``text`` with every secret replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


@dataclass(frozen=True)
class Reply:
    """A usable reply: the JSON body, its message text and the call's latency."""

    body: dict[str, Any]
    latency: float


def reply_text(body: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]] | None, str | None]:
    """Message content, logprobs content list and finish reason of a reply body."""
    choice = body["choices"][0]
    content = choice.get("message", {}).get("content")
    logprobs = (choice.get("logprobs") or {}).get("content")
    return ("" if content is None else str(content)), logprobs, choice.get("finish_reason")


def _check_body(body: Any) -> None:
    try:
        choice = body["choices"][0]
        content = choice["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise CallFailed(
            "malformed_response", "reply has no choices[0].message", retryable=True
        ) from exc
    if content is not None and not isinstance(content, str):
        raise CallFailed("malformed_response", "message content is not text", retryable=True)


_LOOPBACK = ("localhost", "127.", "::1", "[::1]")


@functools.lru_cache(maxsize=64)
def env_proxy(url: str) -> str | None:
    """Proxy for ``url`` from the environment (HTTPS_PROXY, NO_PROXY...), never for loopback.

    Looked up once per endpoint instead of per request.
    """
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if host.startswith(_LOOPBACK) or urllib.request.proxy_bypass(host):
        return None
    return urllib.request.getproxies().get(parts.scheme)


async def complete(
    session: aiohttp.ClientSession,
    judge: JudgeSpec,
    messages: list[dict[str, Any]],
    *,
    key: str | None,
    timeout: float,
) -> Reply:
    """POST one chat-completions request; raise :class:`CallFailed` on any failure."""
    import aiohttp

    payload = json.dumps({"model": judge.model, "messages": messages, **judge.params()})
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    url = judge.base_url.rstrip("/") + "/chat/completions"
    secrets = [key] if key else []
    start = time.perf_counter()
    try:
        async with session.post(
            url,
            data=payload,
            headers=headers,
            proxy=env_proxy(url),
            timeout=aiohttp.ClientTimeout(total=timeout),
        ) as response:
            raw = await response.read()
            status = response.status
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
    except TimeoutError:
        raise CallFailed("timeout", f"no reply within {timeout:g}s", retryable=True) from None
    except aiohttp.ClientError as exc:
        detail = redact(f"{type(exc).__name__}: {exc}", secrets)
        raise CallFailed("connection", detail, retryable=True) from None
    latency = time.perf_counter() - start
    if status != 200:
        text = raw[:200].decode("utf-8", "replace").replace("\n", " ")
        retryable = status in (408, 429) or status >= 500  # 408 = server-side timeout
        reason = f"http_{status}"
        if status == 429 and b"insufficient_quota" in raw:  # OpenAI: the account's credit
            reason, retryable = "insufficient_quota", False  # is used up: waiting cures nothing
        raise CallFailed(
            reason, redact(text, secrets), retryable=retryable, retry_after=retry_after
        )
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        snippet = redact(raw[:80].decode("utf-8", "replace"), secrets)
        raise CallFailed(
            "malformed_response", f"reply is not JSON: {snippet!r}", retryable=True
        ) from None
    _check_body(body)
    return Reply(body, latency)


_SPEC_FIELDS = {f for f in JudgeSpec.__dataclass_fields__}


#: ``MODEL@SCHEME://...``: the first ``@`` followed by a URL's scheme starts the endpoint
_WITH_URL = re.compile(r"(?P<spec>.*?)@(?P<url>[A-Za-z][A-Za-z0-9+.-]*://.*)", re.DOTALL)
#: ``MODEL@HOST:PORT`` or ``MODEL@HOST/PATH``: an endpoint written without its scheme
_NO_SCHEME = re.compile(r"[\w.-]+(:\d+)?(/\S*)?")


def parse_judge(text: str, **defaults: Any) -> JudgeSpec:
    """A judge from ``[NAME=]MODEL[@BASE_URL]``; ``defaults`` fill the other fields.

    The endpoint starts at the first ``@`` followed by a URL's scheme (a model name may
    hold ``@``, e.g. ``claude-3@20240229``); it must be http(s) with a host, checked by
    :class:`JudgeSpec`. An endpoint without its scheme (``m@localhost:8000/v1``) is
    refused: it was sent to the default endpoint as a model name.

    Raises
    ------
    ValidationError
        No model name, or an endpoint that is not an http(s) URL with a host, naming the
        judge and the fix.
    """
    found = _WITH_URL.fullmatch(text)
    spec = text
    if found:
        spec, defaults["base_url"] = found["spec"], found["url"]
    name, eq, model = spec.partition("=")
    if not eq:
        name, model = "", spec
    if not model.strip():
        raise ValidationError(
            f"--judge {text!r}: no model name; use MODEL, NAME=MODEL or NAME=MODEL@BASE_URL"
        )
    head, at, tail = model.rpartition("@")
    if not found and at and _NO_SCHEME.fullmatch(tail) and (":" in tail or "/" in tail):
        who, fixed = name.strip() or head.strip(), text.removesuffix(tail) + "http://" + tail
        raise ValidationError(
            f"judge {who!r}: endpoint {tail!r} must be an http:// or https:// URL with a "
            f"host, e.g. http://localhost:8000/v1; write --judge {fixed}"
        )
    return JudgeSpec(model=model.strip(), name=name.strip(), **defaults)


def load_judges(path: str | Path, **defaults: Any) -> list[JudgeSpec]:
    """Judges from a TOML file of ``[[judge]]`` tables (fields of :class:`JudgeSpec`)."""
    path = Path(path)
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValidationError(f"judges file {path}: cannot be read ({exc})") from exc
    tables = spec.get("judge")
    if not isinstance(tables, list) or not tables:
        raise ValidationError(f"judges file {path}: needs one or more [[judge]] tables")
    out = []
    for k, table in enumerate(tables, start=1):
        unknown = set(table) - _SPEC_FIELDS
        if unknown:
            raise ValidationError(
                f"judges file {path}, judge {k}: unknown field(s) {', '.join(sorted(unknown))}; "
                f"allowed: {', '.join(sorted(_SPEC_FIELDS))}"
            )
        out.append(JudgeSpec(**{**defaults, **table}))
    return out
