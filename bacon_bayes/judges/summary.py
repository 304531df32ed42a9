"""What a jury run did (:class:`JurySummary`: calls made, cached, failed by cause, and
what to do about the failures), which failures stop a judge, and the warnings of failed
calls said once per distinct failure (:class:`FailureLog`)."""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: failures that say the endpoint, model or key is wrong (unknown host, no such model);
#: ``not_sent``: calls not made once a judge's calls failed so (:data:`REFUSALS_TO_STOP`)
_ACCESS_FAILURES = frozenset(
    {"connection", "http_401", "http_403", "http_404", "insufficient_quota", "not_sent"}
)
#: failures that no other call to the same judge can escape: the key or account refused,
#: no such model or path (404), an endpoint not reached after every attempt (nothing
#: listening, an unknown host)
_KEY_REFUSALS = frozenset({"http_401", "http_403", "http_404", "insufficient_quota", "connection"})
#: a judge whose calls failed so this many times in a row gets no more calls in the run:
#: a wrong key on a large panel would otherwise be sent every call (and a provider may
#: flag a key for it), and an endpoint that is down retried with backoff call by call
#: (200 items at a port nothing listens on took ten minutes)
REFUSALS_TO_STOP = 5
#: 4xx answers that a later attempt may cure (408 is a server-side timeout)
_TRANSIENT = frozenset({"http_408", "http_429"})


@dataclass
class JurySummary:
    """What a run did: calls made live, taken from the cache, failed (by reason), tokens."""

    calls: int = 0
    made: int = 0
    cached: int = 0
    requests: int = 0
    failed: Counter = field(default_factory=Counter)
    #: failed calls by reason and endpoint (``"connection (http://host/v1)"``)
    failed_at: Counter = field(default_factory=Counter)
    retried: Counter = field(default_factory=Counter)
    unparsed: Counter = field(default_factory=Counter)
    #: the server's message (redacted) of the first failed call of each reason
    failed_detail: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "made": self.made,
            "cached": self.cached,
            "requests": self.requests,
            "failed": dict(self.failed),
            "retried": dict(self.retried),
            "unparsed": dict(self.unparsed),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "elapsed": self.elapsed,
        }

    def failures(self) -> str:
        """The failed calls grouped by cause, most frequent first, e.g. ``"400 calls
        failed: 400 connection (http://127.0.0.1:9/v1)"``; ``""`` when none failed."""
        n = sum(self.failed.values())
        if not n:
            return ""
        causes = self.failed_at or self.failed
        shown = ", ".join(f"{count} {cause}" for cause, count in causes.most_common())
        return f"{n} call{'s' if n != 1 else ''} failed: {shown}"

    def advice(self, *, rerun: str) -> str:
        """What to do about the failed calls, by their kind (``""`` when none failed).

        ``rerun`` is what running the command again does (e.g. "run the same command
        again; it retries only them"); it is promised only for failures that a new attempt
        may cure, never for a request the server refused as sent.
        """
        kinds = set(self.failed)
        out = []
        access = sorted(k for k in kinds if k in _ACCESS_FAILURES)
        if access:
            out.append(
                f"{', '.join(access)}: fix the endpoint, model name or API key "
                f"(--judge MODEL@URL, --api-key-env)"
                + (", or add credit to the account" if "insufficient_quota" in kinds else "")
                + f", then {rerun}"
                + (
                    f" (not_sent: calls not made after {REFUSALS_TO_STOP} calls in a row to "
                    "the same judge were refused or could not reach it)"
                    if "not_sent" in kinds
                    else ""
                )
            )
        if "http_429" in kinds:
            out.append(
                "http_429: the server limits the request rate; lower --rate or "
                f"--concurrency, or raise --max-attempts, then {rerun}"
            )
        refused = sorted(k for k in kinds if refused_as_sent(k))
        for kind in refused:
            said = self.failed_detail.get(kind, "")
            out.append(
                f"{kind}: the server refused the request as sent"
                + (f" ({said})" if said else "")
                + "; sending it again gets the same answer, so change what is sent "
                "(the template, the item texts, --max-tokens, --top-logprobs) or the model"
            )
        transient = sorted(kinds - set(access) - set(refused) - {"http_429"})
        if transient:
            out.append(
                f"{', '.join(transient)}: the server or the network failed for now; {rerun} "
                "later (or raise --timeout or --max-attempts)"
            )
        return ". ".join(out)

    def __str__(self) -> str:
        def fmt(c: Counter) -> str:
            return ", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "none"

        rate = self.made / self.elapsed if self.elapsed > 0 else 0.0
        return "\n".join(
            [
                f"calls: {self.calls} ({self.made} made, {self.cached} from cache, "
                f"{sum(self.failed.values())} failed) in {self.elapsed:.1f}s "
                f"({rate:.1f} calls/s)",
                f"HTTP requests: {self.requests}; retried attempts: {fmt(self.retried)}",
                f"failed calls by reason: {fmt(self.failed)}",
                f"unparseable replies (NA, kept verbatim): {fmt(self.unparsed)}",
                f"tokens (this run): {self.prompt_tokens} prompt, "
                f"{self.completion_tokens} completion",
            ]
        )


def refused_as_sent(reason: str) -> bool:
    """Whether a failure ``reason`` is a 4xx answer to the request as sent (``http_400``,
    ``http_422``): neither a refused key or unknown model nor a transient 408/429, so
    sending the same request again gets the same answer."""
    return reason.startswith("http_4") and reason not in _ACCESS_FAILURES | _TRANSIENT


_NUMBERS = re.compile(r"\d+")


@dataclass
class _Failure:
    """The calls one distinct failure hit: the first one's words, every item."""

    judge: str
    reason: str
    detail: str
    why: str
    items: list[Any] = field(default_factory=list)


class FailureLog:
    """The warnings of failed calls, said once per distinct failure: a judge's failure
    reason with the server's message, its numbers aside (a context length refused item
    by item is one failure). The first call that fails so is said at once, the others
    at ``-v`` only; :meth:`close` says each failure that hit more than one call, with the
    count (200 items refused with one 400 gave 200 identical warnings)."""

    def __init__(self, log: logging.Logger) -> None:
        self.log = log
        self.seen: dict[tuple[str, str, str], _Failure] = {}

    def failed(self, judge: str, item: Any, run: int, reason: str, detail: str, why: str) -> None:
        """A call of ``judge`` on ``item`` (``run``) failed for good with ``reason``."""
        key = (judge, reason, _NUMBERS.sub("#", detail))
        known = self.seen.get(key)
        if known is None:
            self.seen[key] = _Failure(judge, reason, detail, why, [item])
            self.log.warning(
                "judge %s item %r run %d failed: %s (%s), %s; other calls that fail so are "
                "counted and said once at the end (-v: each)",
                judge, item, run, reason, detail, why,
            )  # fmt: skip
            return
        known.items.append(item)
        self.log.info("judge %s item %r run %d failed: %s, %s", judge, item, run, reason, why)

    def close(self) -> None:
        """Say each failure that hit more than one call: how many and which items."""
        for f in self.seen.values():
            n = len(f.items)
            if n < 2:
                continue
            shown = ", ".join(repr(i) for i in f.items[:3]) + (", ..." if n > 3 else "")
            self.log.warning(
                "judge %s: %d calls failed with %s (%s), %s (items %s)",
                f.judge, n, f.reason, f.detail, f.why, shown,
            )  # fmt: skip
