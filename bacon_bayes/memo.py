"""A fitted object's results, kept while its state is unchanged (:func:`memoized`).

``bacon estimate --group`` asks the calibrator for the same group table several times
(the comparisons, the ranks, the printed tables, the JSON summary); each is computed
once. The memo is keyed by every argument of the call (bound to the signature, defaults
filled in, so ``f(0.05)`` and ``f(alpha=0.05)`` share an entry and arguments added
later are keyed too). It is dropped as soon as any attribute of the object has been
reassigned (``fit``, ``load``, ``apply``'s copy): the object's attributes are compared
by identity with those the memo was built under. Arrays and other unhashable arguments
are keyed by identity (the entry keeps them, so an id is never reused under it).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["memoized"]

F = TypeVar("F", bound=Callable[..., Any])

_ATTR = "_memo"


def _memo(obj: Any) -> dict[Any, Any]:
    """The object's memo, a fresh one when an attribute was reassigned since."""
    state = {k: v for k, v in vars(obj).items() if k != _ATTR}
    held = vars(obj).get(_ATTR)
    if held is not None:
        before, memo = held
        if before.keys() == state.keys() and all(before[k] is v for k, v in state.items()):
            return memo
    memo = {}
    vars(obj)[_ATTR] = (state, memo)
    return memo


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def memoized(method: F) -> F:
    """Keep ``method``'s result per argument values on the instance (module docstring).

    The result is shared by every caller with the same arguments: return values that
    callers do not modify (frozen dataclasses, arrays treated as read-only)."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = list(bound.arguments.values())[1:]
        by_id = [v for v in values if not _hashable(v)]
        key = (method.__name__, *((type(v), v) if _hashable(v) else id(v) for v in values))
        memo = _memo(self)
        held = memo.get(key)
        if held is not None and all(a is b for a, b in zip(held[0], by_id, strict=True)):
            return held[1]
        result = method(self, *args, **kwargs)
        memo[key] = (by_id, result)
        return result

    return wrapper  # type: ignore[return-value]
