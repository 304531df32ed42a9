"""Token-level uncertainty from chat-completions log-probabilities.

``logprobs.content`` is a list of ``{"token", "logprob", "top_logprobs": [...]}``.
Entropy of a token is computed over its top-k alternatives renormalised to sum to one
(the true distribution is truncated at k, so this is the entropy of the top-k
distribution); perplexity is ``exp(-mean chosen-token logprob)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


# Plain floats rather than numpy: k is small (<= 20) and this runs once per reply.
def _top_probs(tok: dict[str, Any]) -> list[float] | None:
    top = tok.get("top_logprobs") or []
    lps = [float(t["logprob"]) for t in top if t.get("logprob") is not None]
    if not lps:
        return None
    if tok.get("token") not in {t.get("token") for t in top} and tok.get("logprob") is not None:
        lps.append(float(tok["logprob"]))
    top_lp = max(lps)
    p = [math.exp(v - top_lp) for v in lps]
    total = sum(p)
    return [v / total for v in p]


def _entropy(p: Sequence[float]) -> float:
    return -sum(v * math.log(v) for v in p if v > 0)


def token_uncertainty(content: Sequence[dict[str, Any]] | None) -> tuple[float, float]:
    """Mean token entropy (nats, top-k renormalised) and perplexity; NaN without logprobs."""
    if not content:
        return math.nan, math.nan
    entropies = [_entropy(p) for p in map(_top_probs, content) if p is not None]
    chosen = [float(t["logprob"]) for t in content if t.get("logprob") is not None]
    entropy = math.fsum(entropies) / len(entropies) if entropies else math.nan
    perplexity = math.exp(-math.fsum(chosen) / len(chosen)) if chosen else math.nan
    return entropy, perplexity


@dataclass(frozen=True)
class LevelDistribution:
    """The judge's distribution over score levels at the score's token."""

    probs: dict[float, float]
    mass: float  # probability the top-k gave to any level, before renormalising

    @property
    def expected(self) -> float:
        return float(sum(v * p for v, p in self.probs.items()))

    @property
    def entropy(self) -> float:
        return _entropy(list(self.probs.values()))


def _as_level(text: str, levels: set[float]) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if value in levels else None


def level_distribution(
    content: Sequence[dict[str, Any]] | None,
    span: tuple[int, int] | None,
    levels: Sequence[float] | None,
) -> LevelDistribution | None:
    """Distribution over ``levels`` when the score at ``span`` is a single token.

    The score's token is the one whose characters cover ``span`` exactly (surrounding
    whitespace allowed). Its top-k alternatives that read as a level are summed per level
    and renormalised. Returns None when there are no logprobs, the score spans several
    tokens, or no alternative is a level.
    """
    if not content or span is None or not levels:
        return None
    level_set = {float(v) for v in levels}
    pos = 0
    for tok in content:
        text = str(tok.get("token", ""))
        start, end = pos, pos + len(text)
        pos = end
        if end <= span[0]:
            continue
        stripped_start = start + (len(text) - len(text.lstrip()))
        stripped_end = end - (len(text) - len(text.rstrip()))
        if (stripped_start, stripped_end) != span:
            return None
        alts = tok.get("top_logprobs") or [{"token": text, "logprob": tok.get("logprob")}]
        probs: dict[float, float] = {}
        for alt in alts:
            level = _as_level(str(alt.get("token", "")), level_set)
            if level is not None and alt.get("logprob") is not None:
                probs[level] = probs.get(level, 0.0) + math.exp(float(alt["logprob"]))
        mass = sum(probs.values())
        if mass <= 0:
            return None
        return LevelDistribution({k: v / mass for k, v in sorted(probs.items())}, mass)
    return None
