"""Compiled per-chunk loops of the first pass (numba, machine code kept in the user cache
directory, :func:`bacon_bayes.compiled.njit_cached`).

One sweep over a chunk's rows reads the judges' columns as they were read (float32
stays float32, no copies) and computes, per group code, the item count, each judge's
count and sum of observed scores and the sum and squared deviations of the raw judge
average (both in the same pass: the deviations from the group's first row, then from
their mean); it also finds whether a value is unusable (an infinite score, an item
without any score) and gathers the scores at or beyond the cuts of the extremes
with their group codes (a second sweep gathers them when there are more than expected).
It runs row by row, over the judges in a loop of fixed length: a row's sums do not wait
for another row's, and only rows with a score beyond a cut take the gathering branch.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import literal_unroll

from bacon_bayes.compiled import njit_cached


def _sweep(cols, codes, G, lo_cut, hi_cut, cap):  # pragma: no cover (compiled)
    J = len(cols)  # a tuple of one dtype: the judge loop below has a fixed length
    n = codes.size
    missing = np.zeros((G, J), np.int64)
    total = np.zeros((G, J))
    count = np.zeros(G, np.int64)
    avg_sum = np.zeros(G)
    shift = np.zeros(G)  # per group, its first row's average
    dev_sum = np.zeros(G)
    dev_sq = np.zeros(G)
    n_lo = np.zeros(J, np.int64)
    n_hi = np.zeros(J, np.int64)
    lo_val = np.empty((J, cap))
    lo_code = np.empty((J, cap), np.int32)
    hi_val = np.empty((J, cap))
    hi_code = np.empty((J, cap), np.int32)
    bad = False
    for i in range(n):  # row by row: the judges' sums of a row are independent of others
        g = codes[i]
        row_sum = 0.0
        k = 0
        beyond = False
        for j in range(J):
            x = np.float64(cols[j][i])
            if x == x:
                total[g, j] += x
                row_sum += x
                k += 1
                beyond |= (x <= lo_cut[j]) | (x >= hi_cut[j])
            else:  # missing scores are few: count those
                missing[g, j] += 1
        if beyond:  # a score at or beyond a cut (infinite ones are): gather the row's
            for j in range(J):
                x = np.float64(cols[j][i])
                if x <= lo_cut[j]:
                    if x - x != 0.0:
                        bad = True
                    a = n_lo[j]
                    if a < cap:
                        lo_val[j, a] = x
                        lo_code[j, a] = g
                    n_lo[j] = a + 1
                if x >= hi_cut[j]:
                    if x - x != 0.0:
                        bad = True
                    c = n_hi[j]
                    if c < cap:
                        hi_val[j, c] = x
                        hi_code[j, c] = g
                    n_hi[j] = c + 1
        if k == 0:  # no score at all
            bad = True
            k = 1
        mean_i = row_sum / k
        if count[g] == 0:
            shift[g] = mean_i
        d = mean_i - shift[g]
        dev_sum[g] += d
        dev_sq[g] += d * d
        count[g] += 1
        avg_sum[g] += mean_i
    # squared deviations from the group mean, from those from a value near it (one pass)
    m2 = np.maximum(dev_sq - dev_sum * dev_sum / np.maximum(count, 1), 0.0)
    obs = count[:, None] - missing
    return (
        bad, count, obs, total, avg_sum, m2, n_lo, n_hi, lo_val, lo_code, hi_val, hi_code,
    )  # fmt: skip


def _gather(cols, codes, lo_cut, hi_cut, n_lo, n_hi):  # pragma: no cover (compiled)
    J = len(cols)
    lo_start = np.zeros(J + 1, np.int64)
    hi_start = np.zeros(J + 1, np.int64)
    for j in range(J):
        lo_start[j + 1] = lo_start[j] + n_lo[j]
        hi_start[j + 1] = hi_start[j] + n_hi[j]
    lo_val = np.empty(lo_start[J] + 1)  # one spare place: writes are unconditional
    lo_code = np.empty(lo_start[J] + 1, np.int32)
    hi_val = np.empty(hi_start[J] + 1)
    hi_code = np.empty(hi_start[J] + 1, np.int32)
    j = 0
    for col in literal_unroll(cols):
        lo, hi = lo_cut[j], hi_cut[j]
        a, b = lo_start[j], hi_start[j]
        for i in range(col.size):
            x = np.float64(col[i])
            g = codes[i]
            lo_val[a] = x
            lo_code[a] = g
            a += x <= lo
            hi_val[b] = x
            hi_code[b] = g
            b += x >= hi
        j += 1
    return lo_start, lo_val, lo_code, hi_start, hi_val, hi_code


@functools.cache
def sweep() -> Any:
    """The compiled sweep of ``(cols, codes, G, lo_cut, hi_cut, cap)``: ``(bad,
    count, obs, total, avg_sum, avg_m2, n_lo, n_hi, lo_val, lo_code, hi_val, hi_code)``,
    where ``cols`` is a tuple of one array per judge (one dtype, read-only), ``codes``
    the group code per row (< G); the first ``min(n_lo[j], cap)`` scores at or below
    ``lo_cut[j]`` are in ``lo_val[j]`` with their codes (likewise above ``hi_cut``)."""
    return njit_cached(_sweep, nogil=True)  # nogil: chunks run on threads


@functools.cache
def gather() -> Any:
    """The compiled gathering of all scores beyond the cuts, for when more than ``cap``
    were: per judge (slices ``start[j]:start[j+1]``), the scores at or below
    ``lo_cut[j]`` and at or above ``hi_cut[j]`` with their group codes."""
    return njit_cached(_gather, nogil=True)


def column_tuple(columns: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Judge columns as one tuple type for the kernels: one dtype (float32 when all are,
    else float64), contiguous and read-only (so zero-copy Arrow buffers and copies mix)."""
    dtype = np.float32 if all(c.dtype == np.float32 for c in columns) else np.float64
    out = []
    for c in columns:
        a = np.ascontiguousarray(c, dtype=dtype)
        if a.flags.writeable:
            a = a.view()
            a.flags.writeable = False
        out.append(a)
    return tuple(out)
