"""The pairwise judge model's stage 1 log density with its gradient written by hand.

The same density as the PyMC model of :meth:`PairwiseJudgeModel._judge_terms
<bacon_bayes.bayes.pairwise_model.PairwiseJudgeModel._judge_terms>` on the sampler's
unconstrained values (PyMC's parameterisation: the two Gamma hyper-sds on the log scale
with the log-Jacobian added, everything else as is), in one numba function of nutpie's
flat vector that releases the GIL: nutpie samples it in place of the log density
PyTensor translates to JAX (:func:`bacon_bayes.bayes.nuts.compile_sampler`,
``density=``), and several pools at once natively (:mod:`~bacon_bayes.bayes.native`);
the PyMC model still supplies the initial points, the stored variables and their dims.
``tests/bayes/test_pairwise_model.py`` checks value and gradient against PyMC's at random
points. Measured on 27 verdict patterns of 3 judges (the test's pools, 2 chains x 600
draws): 5.5 s a pool through JAX, one pool after another; ten pools natively at once in
about the time of two.

Per pattern p (count n_p) and quadrature node g (z_g = x_g + mu_p, weight w_g), with
``u = a_j + c_j z_g`` and judge j's verdict interval (lo, hi) (``(-outer, -h_j)`` for B,
``(-h_j, h_j)`` a tie, ``(h_j, outer)`` A), the pattern adds
``n_p logsumexp_g (log w_g + sum_j log(Phi(hi - u) - Phi(lo - u)))``; each interval term
is clipped and reflected into the lower tail as :func:`~bacon_bayes.bayes.ordinal.
log_normal_interval` computes it (and as the ordinal label stage's numba version,
:mod:`~bacon_bayes.bayes.label_density`). Its gradient weighs each node's derivatives by
the node's posterior weight (the softmax over g) times n_p.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from bacon_bayes.bayes.closed_forms import LOG_2PI
from bacon_bayes.bayes.nuts import GradDensity, flat_call
from bacon_bayes.compiled import compiled_nogil

__all__ = ["pairwise_density", "prepare_pairwise_numpy"]

#: The flat vector's parameters, in the order of :func:`_pairwise_flat_py`'s ``start``.
_PARAMS = (
    "offset", "log_scale_mu", "log_scale_sd_log__", "log_scale",
    "log_tie_width_mu", "log_tie_width_sd_log__", "log_tie_width", "theta",
)  # fmt: skip
#: The priors, in the order of its ``pr``.
_PRIORS = (
    "offset_sd", "log_scale_mu", "log_scale_mu_sd", "log_scale_sd",
    "log_tie_width_mu", "log_tie_width_mu_sd", "log_tie_width_sd", "embedding_sd",
)  # fmt: skip
#: The Gamma shape of the hyper-sds (``PairwiseJudgeModel._hier``).
SD_SHAPE = 2.0
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_KEYS = ("pw_codes_np", "pw_count_np", "pw_Q_np")


def _pairwise_flat_py(x, start, pr, nodes, log_w, outer, clip, codes, count, Q, grad):
    """Log density at the flat vector ``x`` (``start``: each of :data:`_PARAMS`' first
    index, -1 when absent; ``pr``: :data:`_PRIORS`' values; ``nodes``, ``log_w``: the
    quadrature's; ``codes`` (p, J) verdict codes, -1 missing; ``count`` (p,); ``Q`` (p, E));
    the gradient is written into ``grad``."""
    P, J = codes.shape
    E = Q.shape[1] if start[7] >= 0 else 0
    G = nodes.shape[0]
    grad[:] = 0.0
    total = 0.0
    ia, ic, ih, ith = start[0], start[3], start[6], start[7]
    # priors: a_j ~ N(0, sd); theta_e ~ N(0, sd)
    for first, n_par, sd in ((ia, J, pr[0]), (ith, E, pr[7])):
        if first < 0:
            continue
        for t in range(n_par):
            z = x[first + t] / sd
            total += -0.5 * z * z - np.log(sd) - 0.5 * LOG_2PI
            grad[first + t] = -z / sd
    # x_j ~ N(m, t), m ~ N(m0, s0), t ~ Gamma(2, 2 / prior mean) with the log-Jacobian
    shape = SD_SHAPE
    for part in range(2):
        imu, it, ix = start[1 + 3 * part], start[2 + 3 * part], start[3 + 3 * part]
        m0, s0, beta = pr[1 + 3 * part], pr[2 + 3 * part], shape / pr[3 + 3 * part]
        mu, log_t = x[imu], x[it]
        tau = np.exp(log_t)
        z = (mu - m0) / s0
        total += -0.5 * z * z - np.log(s0) - 0.5 * LOG_2PI
        grad[imu] = -z / s0
        total += shape * np.log(beta) - math.lgamma(shape) + shape * log_t - beta * tau
        grad[it] = shape - beta * tau
        for j in range(J):
            z = (x[ix + j] - mu) / tau
            total += -0.5 * z * z - log_t - 0.5 * LOG_2PI
            grad[ix + j] = -z / tau
            grad[imu] += z / tau
            grad[it] += z * z - 1.0
    # the verdicts' likelihood
    a = x[ia : ia + J].copy()
    c = np.exp(x[ic : ic + J])
    h = np.exp(x[ih : ih + J])
    theta = np.zeros(E)
    for e in range(E):
        theta[e] = x[ith + e]
    g_a = np.zeros(J)
    g_c = np.zeros(J)  # d/dc_j
    g_h = np.zeros(J)  # d/dh_j
    lp = np.empty(G)
    # per judge j, verdict k and node g: the interval term and its derivatives in the
    # interval's ends, computed when first needed; without an embedding every pattern
    # has mu = 0 and shares them (J x 3 x G terms instead of patterns x J x G)
    term = np.empty((J, 3, G))
    d_lo = np.empty((J, 3, G))
    d_hi = np.empty((J, 3, G))
    filled = np.zeros((J, 3), dtype=np.bool_)
    kind = np.empty(J, dtype=np.int64)
    rt2 = np.sqrt(2.0)
    # the clipped ends' values, as the formulas give them there
    phi_lo, phi_hi = 0.5 * math.erfc(clip / rt2), 0.5 * math.erfc(-clip / rt2)
    dens_clip = np.exp(-0.5 * clip * clip) / _SQRT_2PI
    for p in range(P):
        if count[p] == 0.0:
            continue
        mu = 0.0
        if E > 0:
            for e in range(E):
                mu += Q[p, e] * theta[e]
            filled[:, :] = False
        for g in range(G):
            lp[g] = log_w[g]
        for j in range(J):
            code = codes[p, j]
            if code < 0.0:
                kind[j] = -1
                continue
            k = 0 if code < 0.5 else (1 if code < 1.5 else 2)
            kind[j] = k
            if not filled[j, k]:
                filled[j, k] = True
                lo0 = -outer if k == 0 else (-h[j] if k == 1 else h[j])
                hi0 = -h[j] if k == 0 else (h[j] if k == 1 else outer)
                aj, cj = a[j], c[j]
                for g in range(G):
                    u = aj + cj * (nodes[g] + mu)
                    za = lo0 - u
                    zb = hi0 - u
                    ca = min(max(za, -clip), clip)
                    cb = min(max(zb, -clip), clip)
                    flip = ca > 0.0
                    lo = -cb if flip else ca
                    hi = -ca if flip else cb
                    if lo <= -clip:
                        pa, dens_a = phi_lo, dens_clip
                    else:
                        pa, dens_a = 0.5 * math.erfc(-lo / rt2), np.exp(-0.5 * lo * lo) / _SQRT_2PI
                    if hi >= clip:
                        pb, dens_b = phi_hi, dens_clip
                    else:
                        pb, dens_b = 0.5 * math.erfc(-hi / rt2), np.exp(-0.5 * hi * hi) / _SQRT_2PI
                    diff = pb - pa
                    if diff > 1e-12 * pb:
                        term[j, k, g] = np.log(diff)
                        dd_hi = dens_b / diff
                        dd_lo = -dens_a / diff
                    else:
                        term[j, k, g] = np.log(1e-12 * pb)
                        dd_hi = dens_b / pb
                        dd_lo = 0.0
                    d_ca = -dd_hi if flip else dd_lo
                    d_cb = -dd_lo if flip else dd_hi
                    d_lo[j, k, g] = d_ca if -clip < za < clip else 0.0
                    d_hi[j, k, g] = d_cb if -clip < zb < clip else 0.0
            for g in range(G):
                lp[g] += term[j, k, g]
        top = lp[0]
        for g in range(1, G):
            top = max(top, lp[g])
        s = 0.0
        for g in range(G):
            lp[g] = np.exp(lp[g] - top)
            s += lp[g]
        total += count[p] * (top + np.log(s))
        g_mu = 0.0
        for g in range(G):
            wg = count[p] * lp[g] / s
            zg = nodes[g] + mu
            for j in range(J):
                k = kind[j]
                if k < 0:
                    continue
                dl = d_lo[j, k, g] * wg
                dh = d_hi[j, k, g] * wg
                du = -(dl + dh)
                g_a[j] += du
                g_c[j] += du * zg
                g_mu += du * c[j]
                if k == 0:
                    g_h[j] -= dh
                elif k == 1:
                    g_h[j] += dh - dl
                else:
                    g_h[j] += dl
        for e in range(E):
            grad[ith + e] += g_mu * Q[p, e]
    for j in range(J):
        grad[ia + j] += g_a[j]
        grad[ic + j] += g_c[j] * c[j]  # d/d log c_j
        grad[ih + j] += g_h[j] * h[j]  # d/d log h_j
    return total


def prepare_pairwise_numpy(data: dict[str, Any]) -> dict[str, Any]:
    """The patterns as C-ordered numpy arrays for the numba version: ``pw_codes_np``
    (p, J), ``pw_count_np`` (p,) and ``pw_Q_np`` (p, E) (empty without an embedding)."""
    codes = np.ascontiguousarray(np.asarray(data["codes"], dtype=float))
    Q = np.asarray(data["Q"], dtype=float) if "Q" in data else np.zeros((codes.shape[0], 0))
    return {
        "pw_codes_np": codes,
        "pw_count_np": np.ascontiguousarray(np.asarray(data["count"], dtype=float)),
        "pw_Q_np": np.ascontiguousarray(Q),
    }


def _flat_value_and_grad(
    layout: list[tuple[str, slice, tuple[int, ...]]], args: tuple
) -> Callable[[np.ndarray, dict], tuple[float, np.ndarray]]:
    return flat_call(compiled_nogil(_pairwise_flat_py), layout, _PARAMS, args, _KEYS)


def pairwise_density(
    pr: dict[str, float], nodes: np.ndarray, log_w: np.ndarray, outer: float, clip: float
) -> GradDensity:
    """The pairwise judge stage's density for :func:`~bacon_bayes.bayes.nuts.compile_sampler`
    (``nodes``, ``log_w``: the quadrature over z; ``outer``, ``clip``: the ordinal
    family's outer cutpoint and clip)."""
    prior = np.array([pr[name] for name in _PRIORS], dtype=float)
    args = (
        prior,
        np.ascontiguousarray(nodes, dtype=float),
        np.ascontiguousarray(log_w, dtype=float),
        float(outer),
        float(clip),
    )
    return GradDensity(functools.partial(_flat_value_and_grad, args=args), prepare_pairwise_numpy)
