"""Run every item past every judge ``runs`` times: concurrency, retries, cache, output table."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.judges.cache import CachedCall, CallCache, call_key, normalize_endpoint
from bacon_bayes.judges.client import JudgeSpec, complete, redact, reply_text
from bacon_bayes.judges.parsing import parse_reply
from bacon_bayes.judges.preflight import check_inputs, ready_to_send
from bacon_bayes.judges.retry import CallFailed, RateLimiter, RetryPolicy
from bacon_bayes.judges.summary import (
    _KEY_REFUSALS,
    REFUSALS_TO_STOP,
    FailureLog,
    JurySummary,
    refused_as_sent,
)
from bacon_bayes.judges.templates import Template
from bacon_bayes.judges.uncertainty import level_distribution, token_uncertainty
from bacon_bayes.progress import bar

log = logging.getLogger("bacon_bayes.judges")

#: Columns of the output table, in order.
COLUMNS = (
    "item",
    "judge",
    "run",
    "score",
    "entropy",
    "perplexity",
    "latency",
    "raw",
    "reason",
    "expected_score",
    "level_entropy",
    "level_probs",
    "dimension",
    "model",
    "prompt_tokens",
    "completion_tokens",
)


@dataclass(frozen=True)
class _Call:
    index: int
    item: Any
    judge: JudgeSpec
    run: int
    key: str
    legacy_key: str  # the key of caches written before the endpoint was part of it
    messages: list[dict[str, Any]] | None  # None for image templates: rendered when sent
    record: dict[str, Any]


@dataclass(frozen=True)
class JuryResult:
    """The long score table (item x judge x run) and the run's summary."""

    table: pd.DataFrame
    summary: JurySummary


def plan_calls(
    items: pd.DataFrame,
    judges: Sequence[JudgeSpec],
    template: Template,
    *,
    id_col: str = "item",
    runs: int = 1,
) -> list[_Call]:
    """Every (item, judge, run) call with its messages and cache key, in output order.

    Calls of one item share one rendered message list; with an image template the
    messages (base64 images) are not kept but rendered again when the call is sent.
    """
    calls: list[_Call] = []
    keep = template.image is None
    for record in items.to_dict("records"):
        item = record[id_col]
        messages = template.render(record, row=item)
        for judge in judges:
            params = judge.params()
            for run in range(1, runs + 1):
                inputs = (judge.model, messages, {**params, "run": run}, template.version)
                calls.append(
                    _Call(
                        len(calls),
                        item,
                        judge,
                        run,
                        call_key(*inputs, judge.base_url),
                        call_key(*inputs, None),
                        messages if keep else None,
                        record,
                    )
                )
    return calls


def _lookup(
    store: CallCache, calls: list[_Call], template: Template, *, claim: bool
) -> dict[int, CachedCall]:
    """Cached answers by call index: entries under the call's key, then entries of the
    older key format for models this run asks at one endpoint only (see
    :mod:`bacon_bayes.judges.cache`); ``claim`` records the adoption in the cache."""
    found = store.get_many(c.key for c in calls)
    done = {c.index: found[c.key] for c in calls if c.key in found}
    endpoints: dict[str, set[str]] = {}
    for c in calls:
        endpoints.setdefault(c.judge.model, set()).add(normalize_endpoint(c.judge.base_url))
    for model, urls in endpoints.items():
        missing = [c for c in calls if c.index not in done and c.judge.model == model]
        if not missing:
            continue
        if len(urls) > 1:
            log.warning(
                "model %r is asked at %d endpoints (%s): entries of caches written before "
                "endpoints were recorded are not used for it",
                model,
                len(urls),
                ", ".join(sorted(urls)),
            )
            continue
        (url,) = urls
        old = store.legacy({c.key: c.legacy_key for c in missing}, url, model)
        if not old:
            continue
        if claim:
            store.claim(old, url, model=model, template_version=template.version)
        done.update({c.index: old[c.key] for c in missing if c.key in old})
    return done


@dataclass(frozen=True)
class JuryPlan:
    """What a run would do: calls planned, already cached, and the first prompt to send."""

    calls: int
    cached: int
    first_messages: list[dict[str, Any]] | None

    def __str__(self) -> str:
        lines = [
            f"{self.calls} calls planned, {self.cached} already in the cache, "
            f"{self.calls - self.cached} to make"
        ]
        if self.first_messages is not None:
            lines.append("first request's messages:")
            for msg in self.first_messages:
                content = msg["content"]
                if isinstance(content, list):  # text + image parts
                    content = " ".join(p.get("text", "<image>") for p in content)
                lines.append(f"[{msg['role']}]\n{content}")
        return "\n".join(lines)


def plan_jury(
    items: pd.DataFrame,
    judges: Sequence[JudgeSpec],
    template: Template,
    *,
    id_col: str = "item",
    runs: int = 1,
    cache: str | Path | None = None,
) -> JuryPlan:
    """Validate the inputs and count what :func:`run_jury` would send, without sending."""
    check_inputs(items, judges, id_col, runs, 1)
    calls = plan_calls(items, judges, template, id_col=id_col, runs=runs)
    done: dict[int, CachedCall] = {}
    if cache is not None and Path(cache).exists():
        with CallCache(cache) as store:
            done = _lookup(store, calls, template, claim=False)
    pending = [c for c in calls if c.index not in done]
    first = None
    if pending:
        first = pending[0].messages or template.render(pending[0].record, row=pending[0].item)
    return JuryPlan(len(calls), len(calls) - len(pending), first)


async def _execute(
    pending: list[_Call],
    *,
    cache: CallCache,
    template: Template,
    concurrency: int,
    timeout: float,
    policy: RetryPolicy,
    summary: JurySummary,
    done: dict[int, CachedCall],
    failed: dict[int, CallFailed],
    progress: Any,
    seed: int | None,
    answered: set[str],
) -> None:
    """Send the ``pending`` calls. ``answered``: judges with an answer (from the cache, then
    this run's), whose calls a refusal of the request as sent does not stop."""
    import aiohttp  # checked by ready_to_send before the cache opened

    judges = {c.judge.name: c.judge for c in pending}
    keys = {name: judge.api_key() for name, judge in judges.items()}
    secrets = [k for k in keys.values() if k]
    limiters = {name: RateLimiter(judge.rate) for name, judge in judges.items()}
    rng = random.Random(seed)
    refused: Counter = Counter()  # the judge's refusals (or unreached endpoint) in a row
    stopped: dict[str, str] = {}  # judge -> why its remaining calls are not sent
    long_waits: set[str] = set()  # judges whose long Retry-After was said at warning level
    failures = FailureLog(log)  # one warning per distinct failure, not one per call

    def fail(call: _Call, exc: CallFailed, detail: str, why: str = "") -> None:
        full = f"{detail}; {why}".strip("; ")
        failed[call.index] = CallFailed(exc.reason, full, retryable=exc.retryable)
        summary.failed[exc.reason] += 1
        summary.failed_detail.setdefault(exc.reason, detail)
        summary.failed_at[f"{exc.reason} ({call.judge.base_url})"] += 1

    def refusal(call: _Call, exc: CallFailed, detail: str) -> None:
        """Count a refusal or an unreached endpoint; stop the judge after REFUSALS_TO_STOP
        in a row."""
        name = call.judge.name
        refused[name] += 1
        if refused[name] < REFUSALS_TO_STOP or name in stopped:
            return
        how = "could not reach the endpoint" if exc.reason == "connection" else "were refused"
        fix = "fix the endpoint, model name or API key (--judge MODEL@URL, --api-key-env)"
        if refused_as_sent(exc.reason):  # no call of the judge answered: not the items
            how = "were refused as sent and none of its calls was answered"
            fix = (
                "check the model name (--judge MODEL@URL) and what is sent (--max-tokens, "
                "--temperature, --top-logprobs: some endpoints take no logprobs; the template)"
            )
        stopped[name] = (
            f"not sent: {refused[name]} calls in a row to judge {name!r} at "
            f"{call.judge.base_url} {how} ({exc.reason}: {detail}); {fix}, then run the "
            "same command again"
        )
        log.warning(
            "judge %s: %d calls in a row %s (%s: %s); its other calls are not sent. "
            "%s, then run the same command again",
            name, refused[name], how, exc.reason, detail, fix[0].upper() + fix[1:],
        )  # fmt: skip

    def say_wait(call: _Call, exc: CallFailed, wait: float) -> None:
        """A server's Retry-After longer than --backoff-max, said without -v (once a judge)."""
        name = call.judge.name
        if exc.retry_after is None or wait <= policy.max_delay or name in long_waits:
            return
        long_waits.add(name)
        capped = (
            f"; bacon waits at most {policy.max_retry_after:g}s (--max-retry-after)"
            if exc.retry_after > policy.max_retry_after
            else ""
        )
        log.warning(
            "judge %s: %s, the server asked to wait %gs (Retry-After) before retrying, longer "
            "than --backoff-max %gs%s; waiting %.0fs. Lower --max-retry-after to wait less "
            "(further calls that wait are logged with -v)",
            name,
            exc.reason,
            exc.retry_after,
            policy.max_delay,
            capped,
            wait,
        )

    async def attempt_call(http: aiohttp.ClientSession, call: _Call) -> None:
        name = call.judge.name
        if name in stopped:
            fail(call, CallFailed("not_sent", retryable=True), stopped[name])
            return
        for attempt in range(1, policy.max_attempts + 1):
            await limiters[name].acquire()
            summary.requests += 1
            try:
                messages = call.messages or template.render(call.record, row=call.item)
                reply = await complete(http, call.judge, messages, key=keys[name], timeout=timeout)
            except CallFailed as err:
                exc = err
            else:
                cache.put(
                    call.key,
                    reply.body,
                    reply.latency,
                    model=call.judge.model,
                    template_version=template.version,
                    endpoint=call.judge.base_url,
                )
                done[call.index] = CachedCall(reply.body, reply.latency)
                refused[name] = 0
                answered.add(name)
                summary.made += 1
                usage = reply.body.get("usage") or {}
                summary.prompt_tokens += int(usage.get("prompt_tokens") or 0)
                summary.completion_tokens += int(usage.get("completion_tokens") or 0)
                return
            detail = redact(exc.detail, secrets)
            if exc.retryable and attempt < policy.max_attempts:
                wait = policy.delay(attempt, exc.retry_after, rng)
                summary.retried[exc.reason] += 1
                say_wait(call, exc, wait)
                log.info(
                    "judge %s item %r run %d: %s (%s); retry %d/%d in %.2fs",
                    name,
                    call.item,
                    call.run,
                    exc.reason,
                    detail,
                    attempt,
                    policy.max_attempts - 1,
                    wait,
                )
                await asyncio.sleep(wait)
                continue
            why = "not retryable" if not exc.retryable else f"after {attempt} attempts"
            failures.failed(name, call.item, call.run, exc.reason, detail, why)
            fail(call, exc, detail, why)
            # a success in between resets the count; a request refused as sent (400 on
            # every call: a wrong model name, a parameter the endpoint takes not) stops
            # the judge only while none of its calls was answered
            if exc.reason in _KEY_REFUSALS or (
                refused_as_sent(exc.reason) and name not in answered
            ):
                refusal(call, exc, detail)
            return

    queue = iter(pending)
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=0)
    async with aiohttp.ClientSession(connector=connector) as http:

        async def worker() -> None:
            for call in queue:
                await attempt_call(http, call)
                progress.update(1)

        try:
            await asyncio.gather(*(worker() for _ in range(min(concurrency, len(pending)))))
        finally:
            failures.close()


def _rows(
    call: _Call, got: CachedCall | None, err: CallFailed | None, template: Template
) -> list[dict[str, Any]]:
    dims = list(template.dimensions) or [""]
    base = {"item": call.item, "run": call.run, "model": call.judge.model}

    def judge_name(dim: str) -> str:
        return f"{call.judge.name}:{dim}" if dim else call.judge.name

    if got is None:
        reason = f"call failed: {err}" if err is not None else "call not made"
        return [
            {**base, "judge": judge_name(d), "dimension": d or None, "reason": reason} for d in dims
        ]
    text, logprobs, finish = reply_text(got.body)
    entropy, perplexity = token_uncertainty(logprobs)
    usage = got.body.get("usage") or {}
    common = {
        **base,
        "entropy": entropy,
        "perplexity": perplexity,
        "latency": got.latency,
        "raw": text,
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
    }
    rows = []
    for parsed in parse_reply(text, template):
        reason = parsed.reason
        if reason is not None and not text.strip():
            reason = f"empty reply (finish_reason={finish})"
        elif reason is not None and finish == "length":  # the score was to come later
            reason = f"reply cut at the token limit (finish_reason=length); {reason}"
        row = {
            **common,
            "judge": judge_name(parsed.dimension),
            "dimension": parsed.dimension or None,
            "score": parsed.score,
            "reason": reason,
        }
        dist = (
            None
            if math.isnan(parsed.score)
            else level_distribution(logprobs, parsed.span, template.levels)
        )
        if dist is not None:
            row["expected_score"] = dist.expected
            row["level_entropy"] = dist.entropy
            row["level_probs"] = json.dumps({f"{k:g}": round(v, 12) for k, v in dist.probs.items()})
        rows.append(row)
    return rows


def _table(rows: list[dict[str, Any]], id_dtype: Any) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df["item"] = df["item"].astype(id_dtype)
    df["run"] = df["run"].astype("int64")
    for col in ("score", "entropy", "perplexity", "latency", "expected_score", "level_entropy"):
        df[col] = df[col].astype("float64")
    for col in ("prompt_tokens", "completion_tokens"):
        df[col] = df[col].astype("Int64")
    return df


def _run_coroutine(coro: Any) -> None:
    """``asyncio.run``, or in a worker thread when a loop already runs (e.g. Jupyter)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coro)
        return
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coro).result()


def run_jury(
    items: pd.DataFrame,
    judges: Sequence[JudgeSpec],
    template: Template,
    *,
    id_col: str = "item",
    runs: int = 1,
    cache: str | Path | CallCache | None = None,
    concurrency: int = 8,
    timeout: float = 60.0,
    retry: RetryPolicy | None = None,
    progress: bool | None = False,
    seed: int | None = None,
) -> JuryResult:
    """Score every item with every judge ``runs`` times.

    Parameters
    ----------
    items
        One row per item; ``id_col`` holds unique ids, other columns fill the template.
    judges
        The panel (:class:`JudgeSpec`), each with its endpoint, model and rate limit.
    template
        The prompt and parser (:func:`bacon_bayes.judges.templates.load_template`).
    runs
        Repeated calls per item and judge (run 1..R is part of the cache key).
    cache
        SQLite file of completed calls (resume point); None keeps it in memory.
    concurrency
        Calls in flight at once, over all judges.
    timeout
        Seconds allowed for one HTTP attempt.
    retry
        Backoff policy; default :class:`RetryPolicy`.
    progress
        Show a progress bar with ETA on stderr (:func:`bacon_bayes.progress.bar`; None: on
        a terminal only).
    seed
        Seed of the backoff jitter.

    Returns
    -------
    JuryResult
        ``table`` has one row per item x judge x run (x dimension for multi-dimension
        templates, whose judge is named ``<judge>:<dimension>``), with columns
        :data:`COLUMNS`; NA scores carry a ``reason``. Rows keep item, judge, run order.

    Raises
    ------
    ValidationError
        Inputs or settings a run cannot use (:func:`~bacon_bayes.judges.preflight.check_inputs`),
        or calls to send without aiohttp or a judge's API key
        (:func:`~bacon_bayes.judges.preflight.ready_to_send`): refused before a new
        cache file is made; a cache holding every call needs neither.
    """
    check_inputs(items, judges, id_col, runs, concurrency, timeout)
    policy = retry or RetryPolicy()
    start = time.perf_counter()
    calls = plan_calls(items, judges, template, id_col=id_col, runs=runs)
    owns = not isinstance(cache, CallCache)
    if owns and (cache is None or not Path(cache).exists()):  # every call is to send:
        ready_to_send(judges)  # refused before the cache file is made
    store = CallCache(":memory:" if cache is None else cache) if owns else cache
    summary = JurySummary(calls=len(calls))
    try:
        done = _lookup(store, calls, template, claim=True)
        summary.cached = len(done)
        pending = [c for c in calls if c.index not in done]
        if pending:  # a cache holding every call needs neither aiohttp nor a key
            ready_to_send(list({c.judge.name: c.judge for c in pending}.values()))
        failed: dict[int, CallFailed] = {}
        # asked for (True): drawn at once; None: on a terminal, after DELAY; the last
        # frame stays (calls done, time taken)
        now = 0.0 if progress else None
        with bar(len(calls), "judging", "calls", progress, delay=now, leave=True) as shown_bar:
            shown_bar.update(len(done))
            if pending:
                _run_coroutine(
                    _execute(
                        pending,
                        cache=store,
                        template=template,
                        concurrency=concurrency,
                        timeout=timeout,
                        policy=policy,
                        summary=summary,
                        done=done,
                        failed=failed,
                        progress=shown_bar,
                        seed=seed,
                        answered={c.judge.name for c in calls if c.index in done},
                    )
                )
    finally:
        if owns:
            store.close()
    rows: list[dict[str, Any]] = []
    for call in calls:
        for row in _rows(call, done.get(call.index), failed.get(call.index), template):
            rows.append(row)
            if call.index in done and row["reason"] is not None:
                summary.unparsed[row["reason"].split(";")[0][:60]] += 1
    summary.elapsed = time.perf_counter() - start
    return JuryResult(_table(rows, items[id_col].dtype), summary)
