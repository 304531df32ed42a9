"""The robust empirical-Bayes critical value (Armstrong, Kolesár & Plagborg-Møller,
Econometrica 2022).

An estimate that shrinks toward a common target errs by noise plus a bias:
``(estimate - truth) / sd = Z + b`` with ``Z ~ N(0, 1)`` and ``b`` the normalised bias.
Over the groups (or pairs) the squared biases average ``t`` and their fourth moments at
most ``kappa t^2``. The interval ``estimate +- chi sd`` misses with probability
``r(b^2, chi) = Phi(-chi - |b|) + Phi(-chi + |b|)``; :func:`critical_value` is the
smallest ``chi`` for which the worst average of ``r`` over every distribution of ``b^2``
with those two moments is ``alpha``. The worst distribution puts mass on at most two
points (the paper's Proposition B.1), so the maximum is searched over two-point
distributions on a grid (:func:`max_noncoverage`), checked against a linear program in
the tests.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize, special

#: grid sizes of the two support points (below and above the mean of ``b^2``)
_N_LOW, _N_HIGH = 60, 200
#: :func:`critical_value` rounds ``t`` up to a grid this far apart (log scale: 1%)
_T_STEP = math.log(1.01)


def noncoverage(x: np.ndarray, chi: float) -> np.ndarray:
    """``P(|Z + b| > chi)`` for ``b^2 = x``."""
    b = np.sqrt(np.maximum(x, 0.0))
    return special.ndtr(-chi - b) + special.ndtr(b - chi)


@functools.lru_cache(maxsize=256)
def _support(t: float, kappa: float, chi_max: float) -> tuple[np.ndarray, ...]:
    """Two-point distributions of ``b^2`` with mean ``t`` and ``E b^4 <= kappa t^2``:
    support ``a <= t <= c`` on grids, masses, and which pairs are allowed."""
    top = max(4.0 * (chi_max + 1.0) ** 2, 4.0 * t)
    if math.isfinite(kappa):
        top = max(min(top, kappa * t), t)  # c p_c <= t and c^2 p_c <= kappa t^2
    low = t * np.linspace(0.0, 1.0, _N_LOW) ** 2
    high = (math.sqrt(t) + (math.sqrt(top) - math.sqrt(t)) * np.linspace(0.0, 1.0, _N_HIGH)) ** 2
    a, c = low[:, None], high[None, :]
    gap = c - a
    with np.errstate(invalid="ignore", divide="ignore"):
        p_a = np.where(gap > 0, (c - t) / gap, 1.0)
    fourth = p_a * a * a + (1.0 - p_a) * c * c
    ok = fourth <= kappa * t * t * (1.0 + 1e-9) if math.isfinite(kappa) else np.ones_like(gap, bool)
    return low, high, p_a, ok


def max_noncoverage(t: float, kappa: float, chi: float) -> float:
    """The largest average non-coverage of ``estimate +- chi sd`` over the distributions
    of ``b^2`` with mean ``t`` and fourth moment at most ``kappa t^2`` (``kappa=inf``: the
    second moment alone)."""
    if t <= 0:
        return float(noncoverage(np.array(0.0), chi))
    low, high, p_a, ok = _support(t, kappa, max(chi, 1.0))
    r_low, r_high = noncoverage(low, chi), noncoverage(high, chi)
    value = p_a * r_low[:, None] + (1.0 - p_a) * r_high[None, :]
    best = float(np.max(np.where(ok, value, -1.0)))
    return max(best, float(noncoverage(np.array(t), chi)))


@functools.lru_cache(maxsize=65536)
def _critical_value(t: float, kappa: float, alpha: float) -> float:
    z = float(special.ndtri(1.0 - alpha / 2.0))
    if t <= 0:
        return z
    # the bias alone at its largest: |b| <= sqrt(t / p) for mass p, so chi below
    # sqrt(t / alpha) + z covers the worst case; the normal value is the floor
    high = z + math.sqrt(t / alpha) + 1.0

    def excess(chi: float) -> float:
        return max_noncoverage(t, kappa, chi) - alpha

    if excess(z) <= 0:
        # a bias so small (t near 0: a group or pair whose noise all but vanishes) that
        # the normal value already covers; rounding can put the miss rate a hair under
        # alpha there, where no root is left to bracket
        return z
    return float(optimize.brentq(excess, z, high, xtol=1e-4))


def critical_value(t: float, kappa: float, alpha: float) -> float:
    """The robust EBCI critical value ``cva_alpha(t, kappa)``: ``estimate +- cva sd`` misses
    at most ``alpha`` on average over any distribution of the normalised biases whose
    second moment is ``t`` and kurtosis at most ``kappa`` (``inf``: not bounded).

    ``t`` is rounded up to the next point of a grid 1% apart and ``kappa`` up to the next
    quarter (the value only grows with either, so the interval only widens, by at most
    half a percent), so that groups and draws with nearly equal moments share one
    computation."""
    kappa = max(float(kappa), 1.0)
    if t <= 0:
        return _critical_value(0.0, 1.0, float(alpha))
    t_key = math.exp(math.ceil(math.log(float(t)) / _T_STEP) * _T_STEP)
    k_key = math.ceil(kappa * 4.0) / 4.0 if math.isfinite(kappa) else math.inf
    return _critical_value(t_key, k_key, float(alpha))
