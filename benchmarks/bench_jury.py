"""AI-jury throughput against a local chat-completions server that answers at once.

Reports, from one run:

- the server's own maximum rate: a minimal raw-socket client (pre-built request bytes,
  keep-alive, 32 connections) hammering the server, i.e. the ceiling any client on this
  machine can reach;
- ``run_jury`` calls/s at concurrency 32 (planning, HTTP, SQLite cache writes, parsing,
  logprob uncertainty and the output table included), as a ratio of that ceiling;
- cache look-ups/s (single-key ``get`` and batched ``get_many``) on a 20,000-call cache.

Run: ``python -m benchmarks.bench_jury`` (or ``make bench``). Targets: >= 200 calls/s
at concurrency 32, >= 10,000 cache look-ups/s.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from bacon_bayes.judges import CallCache, JudgeSpec, RetryPolicy, call_key, load_template, run_jury
from bacon_bayes.testing.fake_server import ServerProcess

CONCURRENCY = 32


async def _raw_rate(port: int, n_requests: int, concurrency: int) -> float:
    """Requests/s a minimal keep-alive client gets from the server."""
    template = load_template("essay")
    body = json.dumps(
        {
            "model": "m",
            "messages": template.render({"prompt_name": "p", "full_text": "raw load"}),
            "temperature": 0.0,
            "logprobs": True,
            "top_logprobs": 5,
        }
    ).encode()
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )
    per_conn = n_requests // concurrency

    async def conn() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(per_conn):
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            size = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(size)
        writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(conn() for _ in range(concurrency)))
    return per_conn * concurrency / (time.perf_counter() - start)


def _jury_rate(url: str, n_items: int, cache: Path) -> tuple[float, float]:
    items = pd.DataFrame(
        {
            "item": range(n_items),
            "prompt_name": "Phones and driving",
            "full_text": [f"Essay {i}: phones distract drivers." for i in range(n_items)],
        }
    )
    judges = [JudgeSpec("bench-model", base_url=url, api_key_env=None)]
    res = run_jury(
        items,
        judges,
        load_template("essay"),
        cache=cache,
        concurrency=CONCURRENCY,
        timeout=30,
        retry=RetryPolicy(max_attempts=3, base_delay=0.05),
    )
    s = res.summary
    if s.made != n_items or res.table["score"].isna().any():
        raise RuntimeError(f"benchmark run incomplete: {s}")
    # a second pass answers everything from the cache
    start = time.perf_counter()
    again = run_jury(items, judges, load_template("essay"), cache=cache)
    cached_elapsed = time.perf_counter() - start
    assert again.summary.cached == n_items
    return s.made / s.elapsed, n_items / cached_elapsed


def _cache_rates(path: Path, n: int = 20_000, lookups: int = 50_000) -> tuple[float, float]:
    body = {
        "choices": [
            {
                "message": {"content": "4"},
                "logprobs": {"content": [{"token": "4", "logprob": -0.1}]},
            }
        ]
    }
    keys = [
        call_key("m", [{"role": "user", "content": f"item {i}"}], {"run": 1}, "v") for i in range(n)
    ]
    with CallCache(path) as cache:
        for key in keys:
            cache.put(key, body, 0.1, model="m", template_version="v")
        rng = random.Random(0)
        probe = [rng.choice(keys) for _ in range(lookups)]
        start = time.perf_counter()
        hits = sum(cache.get(k) is not None for k in probe)
        single = lookups / (time.perf_counter() - start)
        start = time.perf_counter()
        found = cache.get_many(probe)
        batched = lookups / (time.perf_counter() - start)
    assert hits == lookups and len(found) == len(set(probe))
    return single, batched


def main(n_items: int = 3000) -> dict[str, float]:
    """Run the benchmark and print the figures; returns them."""
    with tempfile.TemporaryDirectory() as tmp, ServerProcess() as server:
        asyncio.run(_raw_rate(server.port, 640, CONCURRENCY))  # warm-up
        server_rate = asyncio.run(_raw_rate(server.port, n_items, CONCURRENCY))
        jury_rate, cached_rate = _jury_rate(server.url, n_items, Path(tmp) / "jury.sqlite")
        server_rate_after = asyncio.run(_raw_rate(server.port, n_items, CONCURRENCY))
        single, batched = _cache_rates(Path(tmp) / "lookup.sqlite")
    ceiling = max(server_rate, server_rate_after)
    out = {
        "server_max_calls_per_s": ceiling,
        "jury_calls_per_s": jury_rate,
        "jury_vs_server": jury_rate / ceiling,
        "jury_cached_calls_per_s": cached_rate,
        "cache_get_per_s": single,
        "cache_get_many_per_s": batched,
    }
    print(
        f"AI jury benchmark ({n_items} calls, concurrency {CONCURRENCY}, 1 judge, essay template)"
    )
    print(f"  server max rate (raw keep-alive client): {ceiling:9.0f} calls/s  (baseline)")
    print(
        f"  bacon run_jury, fresh cache:             {jury_rate:9.0f} calls/s  "
        f"= {jury_rate / ceiling:.2f} x server max   (target >= 200 calls/s)"
    )
    print(f"  bacon run_jury, all from cache:          {cached_rate:9.0f} calls/s")
    print(
        f"  cache get (one key per query):           {single:9.0f} look-ups/s  (target >= 10,000)"
    )
    print(f"  cache get_many (batched):                {batched:9.0f} look-ups/s")
    return out


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
