"""``exp`` over an array in SIMD lanes, for the compiled log densities.

numba compiles ``np.exp`` of a scalar to a call of the C library's ``exp``, which LLVM
cannot vectorise without Intel's SVML (absent from PyPI's llvmlite): about 8 ns per
value on this project's machine, where numpy's own SIMD ``exp`` takes 1.5 ns. This is
the textbook construction, written so that LLVM vectorises it: ``x = k ln 2 + r`` with
``k`` the integer nearest ``x / ln 2`` (found by adding 1.5 * 2^52, which rounds it into
the low bits of the mantissa), ``|r| <= ln 2 / 2`` split into two parts of ``ln 2`` (Cody
and Waite) so ``r`` is exact, ``exp(r)`` by its Taylor series to ``r^13`` (remainder
below 2e-17 relative), and ``2^k`` added to the result's exponent bits. Relative error
at most 2 ulp (``tests/test_vector_exp.py``); arguments are clipped to [-700, 700], far
beyond what a log density's precisions reach. Only fused multiply-adds are allowed
(``fastmath={"contract"}``): full fast-math would reassociate the rounding trick away.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bacon_bayes.compiled import njit_cached

__all__ = ["exp_into"]

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 = _LN2_HI + _LN2_LO, _LN2_HI * k exact
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0  # 1.5 * 2^52: t + _ROUND - _ROUND rounds t to an integer
_ROUND_BITS = 0x4338000000000000  # the bits of _ROUND
_CLIP = 700.0
#: 1 / m! for m = 13 down to 0 (Horner's order)
_TAYLOR = tuple(1.0 / math.factorial(m) for m in range(13, -1, -1))


def _exp_into_py(x, out, scratch, m):  # pragma: no cover (compiled)
    """``out[:m] = exp(x[:m])`` (1-d float64 arrays; ``scratch``: m float64 of work space)."""
    for i in range(m):
        xi = min(max(x[i], -_CLIP), _CLIP)
        t = xi * _LOG2E + _ROUND
        k = t - _ROUND
        r = (xi - k * _LN2_HI) - k * _LN2_LO
        p = 0.0
        for coef in _TAYLOR:
            p = p * r + coef
        out[i] = p
        scratch[i] = t
    k_bits = scratch.view(np.int64)
    out_bits = out.view(np.int64)
    for i in range(m):
        out_bits[i] += (k_bits[i] - _ROUND_BITS) << 52


exp_into: Any = njit_cached(_exp_into_py, nogil=True, fastmath={"contract"})
