"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1.

For tests, benchmarks and offline dry runs of ``bacon judge``: it speaks HTTP/1.1 with
keep-alive, answers ``POST /v1/chat/completions``, and lets a *script* decide each
reply (a score with logprobs, a status such as 429 with Retry-After, a hang, a dropped
connection, a malformed body). It records every request so a test can count calls.
It never listens beyond the loopback interface.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any


@dataclass(frozen=True)
class Request:
    """A request as the server saw it; ``attempt`` counts earlier identical requests."""

    model: str
    messages: list[dict[str, Any]]
    body: dict[str, Any]
    headers: dict[str, str]
    attempt: int
    time: float

    @property
    def user_text(self) -> str:
        for msg in reversed(self.messages):
            if msg.get("role") == "user":
                content = msg.get("content")
                if isinstance(content, list):
                    return " ".join(str(p.get("text", "")) for p in content)
                return str(content)
        return ""

    @property
    def system_text(self) -> str:
        return " ".join(str(m.get("content")) for m in self.messages if m.get("role") == "system")


@dataclass(frozen=True)
class Reply:
    """A 200 reply with message ``content`` and optional logprobs content list."""

    content: str
    logprobs: list[dict[str, Any]] | None = None
    delay: float = 0.0
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Status:
    """A non-200 status (e.g. 429 with ``{"Retry-After": "1"}``)."""

    code: int
    body: str = '{"error": {"message": "scripted error"}}'
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    """Wait ``seconds`` before answering (the client should time out first)."""

    seconds: float
    then: Reply | None = None


@dataclass(frozen=True)
class Drop:
    """Close the connection without any reply."""


@dataclass(frozen=True)
class Raw:
    """A 200 reply whose body is the given bytes (e.g. not JSON)."""

    body: bytes


Action = Reply | Status | Hang | Drop | Raw
Script = Callable[[Request], Action]


def token_logprobs(
    tokens: Sequence[tuple[str, dict[str, float]]],
) -> list[dict[str, Any]]:
    """Logprobs content list from ``(token, {alternative: probability})`` pairs.

    The chosen token's probability is looked up among its alternatives.
    """
    out = []
    for token, alts in tokens:
        top = [{"token": t, "logprob": math.log(p)} for t, p in alts.items()]
        out.append({"token": token, "logprob": math.log(alts[token]), "top_logprobs": top})
    return out


def stable_level(text: str, levels: Sequence[int]) -> int:
    """A level chosen by a hash of ``text`` (same text, same level, in any process)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return levels[int.from_bytes(digest[:8], "big") % len(levels)]


def numeric_reply(text: str, levels: Sequence[int] = (1, 2, 3, 4, 5, 6)) -> Reply:
    """A single-token score reply with logprobs: 0.6 on the chosen level, rest spread."""
    level = stable_level(text, levels)
    others = [v for v in levels if v != level][:4]
    alts = {str(level): 0.6, **{str(v): 0.1 for v in others}}
    return Reply(str(level), token_logprobs([(str(level), alts)]))


def default_script(request: Request) -> Action:
    """Score 1-6 derived from the user message, with logprobs."""
    return numeric_reply(request.user_text)


class FakeChatServer:
    """A chat-completions server running in a background thread.

    Parameters
    ----------
    script
        Maps each :class:`Request` to an action; default :func:`default_script`.
    port
        Port on 127.0.0.1 (0 = any free port).

    Use as a context manager; ``url`` is the base URL to give a judge.
    """

    def __init__(self, script: Script | None = None, port: int = 0) -> None:
        self.script = script or default_script
        self.port = port
        self.requests: list[Request] = []
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeChatServer:
        self._thread = threading.Thread(target=self._serve, name="fake-chat-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fake chat server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def count(self, predicate: Callable[[Request], bool] | None = None) -> int:
        """Number of requests received (matching ``predicate`` when given)."""
        with self._lock:
            reqs = list(self.requests)
        return len(reqs) if predicate is None else sum(map(predicate, reqs))

    def _serve(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._main())
        self._loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=512)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> Request:
        fingerprint = hashlib.sha256(
            json.dumps([body.get("model"), body.get("messages")], sort_keys=True).encode()
        ).hexdigest()
        with self._lock:
            attempt = self._seen.get(fingerprint, 0)
            self._seen[fingerprint] = attempt + 1
            req = Request(
                str(body.get("model")),
                list(body.get("messages") or []),
                body,
                headers,
                attempt,
                time.monotonic(),
            )
            self.requests.append(req)
        return req

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                size = int(headers.get("content-length", "0"))
                raw = await reader.readexactly(size) if size else b""
                if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
                    await self._send(writer, 404, b'{"error": {"message": "not found"}}')
                    continue
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    await self._send(writer, 400, b'{"error": {"message": "bad json"}}')
                    continue
                req = self._record(body, headers)
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                try:
                    if not await self._act(writer, req, self.script(req)):
                        return
                finally:
                    self.in_flight -= 1
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            writer.close()

    async def _act(self, writer: asyncio.StreamWriter, req: Request, action: Action) -> bool:
        """Carry out one action; False when the connection is to be closed."""
        if isinstance(action, Hang):
            await asyncio.sleep(action.seconds)
            if action.then is None:
                return False
            action = action.then
        if isinstance(action, Drop):
            return False
        if isinstance(action, Status):
            await self._send(writer, action.code, action.body.encode(), action.headers)
        elif isinstance(action, Raw):
            await self._send(writer, 200, action.body)
        else:
            if action.delay:
                await asyncio.sleep(action.delay)
            await self._send(writer, 200, self._completion(req, action))
        return True

    @staticmethod
    def _completion(req: Request, reply: Reply) -> bytes:
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": reply.content},
            "finish_reason": reply.finish_reason,
        }
        if req.body.get("logprobs") and reply.logprobs is not None:
            k = int(req.body.get("top_logprobs") or 0)
            choice["logprobs"] = {
                "content": [{**t, "top_logprobs": t["top_logprobs"][:k]} for t in reply.logprobs]
            }
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in req.messages)
        out = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": req.model,
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": max(1, len(reply.logprobs or [])),
                "total_tokens": prompt_tokens + max(1, len(reply.logprobs or [])),
            },
        }
        return json.dumps(out).encode()

    @staticmethod
    async def _send(
        writer: asyncio.StreamWriter,
        code: int,
        payload: bytes,
        headers: dict[str, str] | None = None,
    ) -> None:
        phrase = HTTPStatus(code).phrase if code in HTTPStatus._value2member_map_ else "Status"
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        writer.write(
            (
                f"HTTP/1.1 {code} {phrase}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\n{extra}\r\n"
            ).encode("latin-1")
            + payload
        )
        await writer.drain()


def serve_stdio() -> None:  # pragma: no cover - runs in a child process
    """Serve with the default script; print the port, stop when stdin closes."""
    import sys

    with FakeChatServer() as srv:
        print(srv.port, flush=True)
        sys.stdin.read()


class ServerProcess:
    """A :class:`FakeChatServer` with the default script in a child process (own core/GIL).

    Used by the benchmark so that the server does not share the client's interpreter.
    """

    def __enter__(self) -> ServerProcess:
        import subprocess
        import sys

        code = "from bacon_bayes.testing.fake_server import serve_stdio; serve_stdio()"
        self._proc = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        line = self._proc.stdout.readline()
        if not line.strip().isdigit():
            self._proc.kill()
            raise RuntimeError("fake chat server process did not start")
        self.port = int(line)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc: object) -> None:
        self._proc.stdin.close()
        try:
            self._proc.wait(10)
        except Exception:
            self._proc.kill()
            raise
