"""Retry policy (exponential backoff with jitter, Retry-After) and a per-judge rate limit."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from dataclasses import dataclass

from bacon_bayes.errors import ValidationError


class CallFailed(Exception):
    """A judge call that did not return a usable reply.

    ``reason`` is a short label (``timeout``, ``connection``, ``http_429``, ``http_500``,
    ``http_400``, ``malformed_response``...), ``detail`` a redacted explanation,
    ``retryable`` whether another attempt may succeed, ``retry_after`` the server's
    requested wait in seconds (or None).
    """

    def __init__(
        self, reason: str, detail: str = "", *, retryable: bool, retry_after: float | None = None
    ) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
        self.retryable = retryable
        self.retry_after = retry_after


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait between attempts.

    The wait before attempt ``k + 1`` (k = 1, 2, ...) is "equal jitter" backoff:
    ``d/2 + U(0, d/2)`` with ``d = min(max_delay, base_delay * 2**(k-1))``; when the server
    sent Retry-After the wait is at least that, capped at ``max_retry_after``: a server's
    Retry-After may ask for longer than ``max_delay`` (the runner then says so at warning
    level, not only with ``-v``).
    """

    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_retry_after: float = 600.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValidationError("max_attempts must be at least 1 (1 = no retries)")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ValidationError("retry delays must be non-negative")

    def delay(
        self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None
    ) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        rng = rng or random
        cap = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        wait = cap / 2 + rng.uniform(0, cap / 2)
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_retry_after))
        return wait


class RateLimiter:
    """Spaces requests at most ``rate`` per second (None = unlimited), for one judge."""

    def __init__(self, rate: float | None) -> None:
        if rate is not None and rate <= 0:
            raise ValidationError(f"rate limit must be positive requests/second, got {rate}")
        self.rate = rate
        self._next = 0.0

    async def acquire(self) -> None:
        if self.rate is None:
            return
        now = time.monotonic()
        slot = max(self._next, now)
        self._next = slot + 1.0 / self.rate
        if slot > now:
            await asyncio.sleep(slot - now)
