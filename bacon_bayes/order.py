"""Natural order of names (``M8`` before ``M10``) for tables and plots."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: Any) -> tuple:
    """Sort key comparing the runs of digits in ``name`` as numbers (``M8`` < ``M10``);
    names without digits compare as plain strings.

    Parameters
    ----------
    name : object
        A name (converted with ``str``).

    Returns
    -------
    tuple
        Alternating text and number parts, comparable between any two names.
    """
    parts = _DIGITS.split(str(name))
    return tuple((0, int(p), "") if k % 2 else (1, 0, p) for k, p in enumerate(parts) if p != "")


def natural_sorted(names: Iterable[Any]) -> list:
    """``names`` in natural order (see :func:`natural_key`)."""
    return sorted(names, key=natural_key)


def natural_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``values`` (as strings) in natural order, and each value's
    index among them (as ``np.unique(..., return_inverse=True)``, naturally ordered).

    Parameters
    ----------
    values : numpy.ndarray
        Group (or other) names, one per item.

    Returns
    -------
    names : numpy.ndarray
        Distinct names, naturally sorted.
    codes : numpy.ndarray
        Index of each value's name in ``names``.
    """
    names, codes = np.unique(np.asarray(values).astype(str), return_inverse=True)
    order = np.array(sorted(range(names.size), key=lambda k: natural_key(names[k])), dtype=int)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return names[order], rank[codes.ravel()]
