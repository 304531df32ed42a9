"""The label stage's log densities written by hand (cut fit, stage 2).

Stage 2 of a cut fit (:meth:`JudgeModel._build_label_model`) is one PyMC model with an
independent block of label-link parameters per cross-fitting fold. For the ordinal,
hurdle and gaussian families its log density and gradient are also written here, each
one numba function of nutpie's flat vector that releases the GIL (the chains run in
parallel), on the sampler's unconstrained values (PyMC's parameterisation:
``anchored_ordered`` cutpoints as their median cutpoint and log gaps towards it,
half-normal scales on the log scale, each with its log-Jacobian), from the same
per-item formulas the PyMC models use
(:func:`~bacon_bayes.bayes.closed_forms.hurdle_label_logp`; the ordinal interval
probability reflected into the lower tail as
:func:`bacon_bayes.bayes.ordinal.log_normal_interval` computes it).
nutpie samples it in place of PyTensor's JAX translation
(:func:`~bacon_bayes.bayes.nuts.compile_sampler`, ``density=``); the PyMC model
still gives the initial points, stored variables and dims.
``tests/bayes/test_label_density.py`` checks value and gradient against PyMC's at
random points for each family, with and without judge weights.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from math import log, pi
from typing import Any

import numpy as np

from bacon_bayes.bayes.closed_forms import LOG_2PI
from bacon_bayes.bayes.nuts import GradDensity, flat_call
from bacon_bayes.compiled import compiled_nogil

__all__ = ["label_density"]

LOG_HALF_NORMAL = 0.5 * log(2.0 / pi)  # log of the half-normal's density factor at sd 1


# ------------------------------------------------- the ordinal link in numba
#
# The ordinal family's stage 2 with its gradient written by hand, one compiled function
# of nutpie's flat vector that releases the GIL (the two chains run in parallel); the
# same density as the PyMC model's (tested against it at random points). Per labeled item
# with z_a = (lo - m) / sd and z_b = (hi - m) / sd (clipped at +-clip, reflected into the
# lower tail when z_a > 0), the term log(Phi(z_b) - Phi(z_a)) has derivatives
# phi(z_b) / P and -phi(z_a) / P, or phi(z_b) / Phi(z_b) and 0 where P is floored at
# 1e-12 Phi(z_b).

#: The flat vector's parameters, in the order of :func:`_ordinal_flat_py`'s ``start``.
_ORDINAL_PARAMS = (
    "cutpoints_anchored_ordered__", "log_label_noise", "judge_weight",
    "group_effect_z", "group_sd_log__",
)  # fmt: skip
#: The priors, in the order of its ``pr``.
_ORDINAL_PRIORS = (
    "cutpoint_sd", "log_label_noise_mu", "log_label_noise_sd", "judge_weight_sd",
    "group_effect_sd",
)  # fmt: skip
_SQRT_2PI = float(np.sqrt(2.0 * np.pi))


def _ordinal_flat_py(
    x, start, n_cut, pr, outer, clip, anchor, m0, v, yk, w, r, q, g, gix, grad
):  # fmt: skip
    """Log density at the flat vector ``x`` (``start``: each of :data:`_ORDINAL_PARAMS`'
    first index, -1 when absent; ``pr``: :data:`_ORDINAL_PRIORS`' values; ``m0``, ``v``,
    ``w`` (folds, n), ``yk`` (folds, n) integers, ``r`` (folds, n, K); ``q`` unused; ``g``
    (folds, n, G) the group one-hot rows, ``gix`` (folds, n) their index, -1: none); the
    gradient is written into ``grad``."""
    F, n = m0.shape
    K = r.shape[2]
    G = g.shape[2] if start[3] >= 0 else 0
    ie, it, gsd = start[3], start[4], pr[4]
    u = np.zeros(G)
    gu = np.zeros(G)
    C = n_cut
    ic, il, iw = start[0], start[1], start[2]
    csd, lmu, lsd, wsd = pr[0], pr[1], pr[2], pr[3]
    grad[:] = 0.0
    total = 0.0
    cut = np.empty(C)
    gcut = np.empty(C)
    jw = np.zeros(K)
    gjw = np.zeros(K)
    rt2 = np.sqrt(2.0)
    for f in range(F):
        u0 = ic + f * C
        cut[anchor] = x[u0 + anchor]
        for c in range(anchor + 1, C):
            cut[c] = cut[c - 1] + np.exp(x[u0 + c])
        for c in range(anchor - 1, -1, -1):
            cut[c] = cut[c + 1] - np.exp(x[u0 + c])
        for c in range(C):
            z = cut[c] / csd
            total += -0.5 * z * z - np.log(csd) - 0.5 * LOG_2PI
            gcut[c] = -z / csd
            if c != anchor:
                total += x[u0 + c]  # log-Jacobian of the gap
        log_sy = x[il + f]
        z = (log_sy - lmu) / lsd
        total += -0.5 * z * z - np.log(lsd) - 0.5 * LOG_2PI
        g_lsy = -z / lsd
        s2 = np.exp(2.0 * log_sy)
        for k in range(K):
            jw[k] = x[iw + f * K + k]
            z = jw[k] / wsd
            total += -0.5 * z * z - np.log(wsd) - 0.5 * LOG_2PI
            gjw[k] = -z / wsd
        tau, g_lt = 0.0, 0.0
        if G > 0:  # u = tau eta, eta ~ N(0, 1), tau ~ HalfNormal(gsd) on the log scale
            tau = np.exp(x[it + f])
            total += LOG_HALF_NORMAL - np.log(gsd) - 0.5 * (tau / gsd) ** 2 + x[it + f]
            g_lt = 1.0 - (tau / gsd) ** 2
            for k in range(G):
                e = x[ie + f * G + k]
                u[k] = tau * e
                gu[k] = 0.0
                total += -0.5 * e * e - 0.5 * LOG_2PI
        for i in range(n):
            wi = w[f, i]
            if wi == 0.0:
                continue
            m = m0[f, i]
            for k in range(K):
                m += r[f, i, k] * jw[k]
            gk = gix[f, i]
            if gk >= 0:
                m += u[gk]
            sd = np.sqrt(s2 + v[f, i])
            level = yk[f, i]
            lo = cut[level - 1] if level >= 1 else -outer
            hi = cut[level] if level < C else outer
            za = (lo - m) / sd
            zb = (hi - m) / sd
            ca = min(max(za, -clip), clip)
            cb = min(max(zb, -clip), clip)
            flip = ca > 0.0
            a = -cb if flip else ca
            b = -ca if flip else cb
            pa = 0.5 * math.erfc(-a / rt2)
            pb = 0.5 * math.erfc(-b / rt2)
            diff = pb - pa
            if diff > 1e-12 * pb:
                total += wi * np.log(diff)
                d_b = np.exp(-0.5 * b * b) / _SQRT_2PI / diff
                d_a = -np.exp(-0.5 * a * a) / _SQRT_2PI / diff
            else:
                total += wi * np.log(1e-12 * pb)
                d_b = np.exp(-0.5 * b * b) / _SQRT_2PI / pb
                d_a = 0.0
            d_ca = -d_b if flip else d_a
            d_cb = -d_a if flip else d_b
            d_za = wi * d_ca if -clip < za < clip else 0.0
            d_zb = wi * d_cb if -clip < zb < clip else 0.0
            if level >= 1:
                gcut[level - 1] += d_za / sd
            if level < C:
                gcut[level] += d_zb / sd
            g_m = -(d_za + d_zb) / sd
            g_lsy += -(d_za * za + d_zb * zb) / sd * s2 / sd
            for k in range(K):
                gjw[k] += g_m * r[f, i, k]
            if gk >= 0:
                gu[gk] += g_m
        # back through the anchored-ordered transform
        acc = 0.0
        for c in range(C - 1, anchor, -1):
            acc += gcut[c]
            grad[u0 + c] = acc * np.exp(x[u0 + c]) + 1.0
        acc = 0.0
        for c in range(anchor):
            acc += gcut[c]
            grad[u0 + c] = -acc * np.exp(x[u0 + c]) + 1.0
        tot = 0.0
        for c in range(C):
            tot += gcut[c]
        grad[u0 + anchor] = tot
        grad[il + f] = g_lsy
        for k in range(K):
            grad[iw + f * K + k] = gjw[k]
        for k in range(G):
            grad[ie + f * G + k] = tau * gu[k] - x[ie + f * G + k]
            g_lt += gu[k] * u[k]
        if G > 0:
            grad[it + f] = g_lt
    return total


def _items_matrix(a: Any, shape: tuple) -> np.ndarray:
    """A (folds, n, k) container as a C-ordered float array; (folds, n, 0) when absent."""
    if a is None or not np.size(a):
        return np.zeros((*shape, 0))
    return np.ascontiguousarray(np.asarray(a, dtype=float))


def _stage2_numpy(data: dict[str, Any], labels: type) -> dict[str, Any]:
    """The stage-2 containers as C-ordered numpy arrays for a numba density (``*_np``;
    ``yk_np`` of dtype ``labels``; ``r_np`` (folds, n, 0) without judge weights, ``g_np``
    (folds, n, 0) without group effects; ``gix_np``: each item's group index, -1: none)."""
    m = np.ascontiguousarray(np.asarray(data["m"], dtype=float))
    g = _items_matrix(data.get("g"), m.shape)
    has = g.sum(axis=2) > 0
    return {
        "m_np": m,
        "v_np": np.ascontiguousarray(np.asarray(data["v"], dtype=float)),
        "yk_np": np.ascontiguousarray(np.asarray(data["yk"], dtype=labels)),
        "w_np": np.ascontiguousarray(np.asarray(data["w"], dtype=float)),
        "r_np": _items_matrix(data.get("r"), m.shape),
        "q_np": _items_matrix(data.get("q"), m.shape),
        "g_np": g,
        "gix_np": np.where(has, np.argmax(g, axis=2) if g.shape[2] else 0, -1).astype(np.int64),
    }


#: The stage-2 arrays every label density reads, in its arguments' order.
_KEYS = ("m_np", "v_np", "yk_np", "w_np", "r_np", "q_np", "g_np", "gix_np")


def _flat_value_and_grad(
    layout: list, py_func: Callable, params: tuple, args: tuple, from_layout: Callable | None
) -> Callable[[np.ndarray, dict], tuple[float, np.ndarray]]:
    """``(x, data) -> (logp, gradient)`` of ``py_func`` compiled, on nutpie's flat vector
    laid out as ``layout`` (``from_layout(layout)``: arguments read off it, put first)."""
    if from_layout is not None:
        args = (*from_layout(layout), *args)
    return flat_call(compiled_nogil(py_func), layout, params, args, _KEYS)


def _flat_density(
    py_func: Callable,
    params: tuple,
    priors: tuple,
    pr: dict[str, float],
    args: tuple = (),
    labels: type = float,
    from_layout: Callable | None = None,
) -> GradDensity:
    """A label stage's :class:`GradDensity`: ``py_func(x, start, prior, *args, m, v, yk,
    w, r, q, g, gix, grad)`` (each reads the arrays it needs) with ``start`` from ``params``,
    ``prior`` the values of ``priors``, and ``yk`` of dtype ``labels``."""
    prior = np.array([pr[name] for name in priors], dtype=float)
    flat = functools.partial(
        _flat_value_and_grad,
        py_func=py_func,
        params=params,
        args=(prior, *args),
        from_layout=from_layout,
    )
    return GradDensity(flat, functools.partial(_stage2_numpy, labels=labels))


def _cut_count(layout: list) -> tuple[int]:
    """The ordinal's number of cutpoints, from its flat vector's layout."""
    shapes = {name: shape for name, _, shape in layout}
    return (int(shapes[_ORDINAL_PARAMS[0]][-1]),)


def ordinal_density(pr: dict[str, float], outer: float, clip: float, anchor: int) -> GradDensity:
    """The ordinal label stage's density for :func:`~bacon_bayes.bayes.nuts.compile_sampler`."""
    return _flat_density(
        _ordinal_flat_py,
        _ORDINAL_PARAMS,
        _ORDINAL_PRIORS,
        pr,
        (outer, clip, anchor),
        np.int64,
        _cut_count,
    )


# -------------------------------------------------- the hurdle link in numba
#
# The hurdle family's stage 2 (:func:`~bacon_bayes.bayes.closed_forms.hurdle_label_logp`
# per labeled item) with its gradient by hand, as the ordinal's above. With
# ``a = g0 + g1 m`` and ``D = sqrt(1 + g1^2 v)`` a zero label adds ``log Phi(-a / D)``;
# a positive one adds the normal density of ``ly`` (mean ``h0 + h1 m``, variance
# ``var = s^2 + h1^2 v``) and ``log Phi(b / E)`` with ``b = g0 + g1 m*``,
# ``E = sqrt(1 + g1^2 v*)``, ``v* = v s^2 / var`` and
# ``m* = (s^2 m + h1 v (ly - h0)) / var``. Each ``log Phi`` has its argument clipped at
# +-clip (zero gradient beyond), as the PyMC model's.

#: The flat vector's parameters, in the order of :func:`_hurdle_flat_py`'s ``start``.
_HURDLE_PARAMS = (
    "zero_intercept", "zero_slope", "log_intercept", "log_slope", "log_noise_y_log__",
    "zero_judge_weight", "log_judge_weight",
    "zero_group_effect_z", "log_group_effect_z", "zero_group_sd_log__", "log_group_sd_log__",
)  # fmt: skip
#: The priors, in the order of its ``pr``.
_HURDLE_PRIORS = (
    "zero_intercept_sd", "zero_slope_sd", "log_intercept_sd", "log_slope_sd",
    "log_noise_sd_prior", "judge_weight_sd", "group_effect_sd",
)  # fmt: skip


def _hurdle_flat_py(x, start, pr, clip, m0, v, yk, w, r, q, g, gix, grad):
    """Log density at the flat vector ``x`` (``start``: each of :data:`_HURDLE_PARAMS`'
    first index, -1 when absent; ``pr``: :data:`_HURDLE_PRIORS`' values; ``m0``, ``v``,
    ``w`` (folds, n), ``yk`` (folds, n, 2): the positive indicator and the standardised
    transformed label, ``r`` (folds, n, K); ``q`` unused; ``g``, ``gix`` the groups as in
    :func:`_ordinal_flat_py`, one effect per part: ``u[0]`` on g0, ``u[1]`` on h0); the
    gradient is written into ``grad``."""
    F, n = m0.shape
    K = r.shape[2]
    G = g.shape[2] if start[7] >= 0 else 0
    gsd = pr[6]
    u = np.zeros((2, G))
    gu = np.zeros((2, G))
    tau = np.zeros(2)
    g_lt = np.zeros(2)
    grad[:] = 0.0
    total = 0.0
    theta = np.empty(4)
    gth = np.empty(4)
    dz = np.zeros(K)
    dl = np.zeros(K)
    gdz = np.zeros(K)
    gdl = np.zeros(K)
    for f in range(F):
        for j in range(4):  # g0, g1, h0, h1 ~ N(0, sd)
            theta[j] = x[start[j] + f]
            z = theta[j] / pr[j]
            total += -0.5 * z * z - np.log(pr[j]) - 0.5 * LOG_2PI
            gth[j] = -z / pr[j]
        ls = x[start[4] + f]  # s ~ HalfNormal(sd) on the log scale
        s2 = np.exp(2.0 * ls)
        total += LOG_HALF_NORMAL - np.log(pr[4]) - 0.5 * s2 / (pr[4] * pr[4]) + ls
        g_ls = -s2 / (pr[4] * pr[4]) + 1.0
        g_s2 = 0.0
        for k in range(K):
            dz[k] = x[start[5] + f * K + k]
            dl[k] = x[start[6] + f * K + k]
            total += -0.5 * (dz[k] ** 2 + dl[k] ** 2) / pr[5] ** 2
            total -= 2.0 * (np.log(pr[5]) + 0.5 * LOG_2PI)
            gdz[k] = -dz[k] / pr[5] ** 2
            gdl[k] = -dl[k] / pr[5] ** 2
        if G > 0:  # per part: u = tau eta, eta ~ N(0, 1), tau ~ HalfNormal(gsd), log scale
            for p in range(2):
                lt = x[start[9 + p] + f]
                tau[p] = np.exp(lt)
                total += LOG_HALF_NORMAL - np.log(gsd) - 0.5 * (tau[p] / gsd) ** 2 + lt
                g_lt[p] = 1.0 - (tau[p] / gsd) ** 2
                for k in range(G):
                    e = x[start[7 + p] + f * G + k]
                    u[p, k] = tau[p] * e
                    gu[p, k] = 0.0
                    total += -0.5 * e * e - 0.5 * LOG_2PI
        g1, h1 = theta[1], theta[3]
        for i in range(n):
            wi = w[f, i]
            if wi == 0.0:
                continue
            m, vi = m0[f, i], v[f, i]
            g0, h0 = theta[0], theta[2]
            for k in range(K):
                g0 += r[f, i, k] * dz[k]
                h0 += r[f, i, k] * dl[k]
            gk = gix[f, i]
            if gk >= 0:
                g0 += u[0, gk]
                h0 += u[1, gk]
            # the probit term's argument t and its partial derivatives (t_*); the
            # normal density's derivatives (d_*) for a positive label
            d_h0 = d_h1 = d_s2 = t_h0 = t_h1 = t_s2 = 0.0
            if yk[f, i, 0] == 0.0:
                a = g0 + g1 * m
                dd = np.sqrt(1.0 + g1 * g1 * vi)
                t = -a / dd
                t_g0 = -1.0 / dd
                t_g1 = -m / dd + a * g1 * vi / dd**3
            else:
                ly = yk[f, i, 1]
                var = s2 + h1 * h1 * vi
                e = ly - h0 - h1 * m
                total += wi * -0.5 * (LOG_2PI + np.log(var) + e * e / var)
                d_h0 = e / var
                d_h1 = e * m / var - h1 * vi / var + e * e * h1 * vi / (var * var)
                d_s2 = -0.5 / var + 0.5 * e * e / (var * var)
                top = s2 * m + h1 * vi * (ly - h0)
                ms = top / var
                vs = vi * s2 / var
                b = g0 + g1 * ms
                ee = np.sqrt(1.0 + g1 * g1 * vs)
                t = b / ee
                t_g0 = 1.0 / ee
                t_g1 = ms / ee - b * g1 * vs / ee**3
                t_ms = g1 / ee
                t_vs = -0.5 * b * g1 * g1 / ee**3
                t_h0 = t_ms * (-h1 * vi / var)
                t_h1 = t_ms * (vi * (ly - h0) / var - 2.0 * top * h1 * vi / (var * var))
                t_h1 += t_vs * (-2.0 * vi * s2 * h1 * vi / (var * var))
                t_s2 = t_ms * (m / var - top / (var * var)) + t_vs * (
                    vi * h1 * h1 * vi / (var * var)
                )
            c = min(max(t, -clip), clip)
            cdf = 0.5 * math.erfc(-c / np.sqrt(2.0))
            total += wi * np.log(cdf)
            lam = np.exp(-0.5 * c * c) / _SQRT_2PI / cdf if -clip < t < clip else 0.0
            d_g0 = lam * t_g0
            d_g1 = lam * t_g1
            d_h0 += lam * t_h0
            d_h1 += lam * t_h1
            g_s2 += wi * (d_s2 + lam * t_s2)
            gth[0] += wi * d_g0
            gth[1] += wi * d_g1
            gth[2] += wi * d_h0
            gth[3] += wi * d_h1
            for k in range(K):
                gdz[k] += wi * d_g0 * r[f, i, k]
                gdl[k] += wi * d_h0 * r[f, i, k]
            if gk >= 0:
                gu[0, gk] += wi * d_g0
                gu[1, gk] += wi * d_h0
        for j in range(4):
            grad[start[j] + f] = gth[j]
        grad[start[4] + f] = g_ls + g_s2 * 2.0 * s2
        for k in range(K):
            grad[start[5] + f * K + k] = gdz[k]
            grad[start[6] + f * K + k] = gdl[k]
        for p in range(2 if G > 0 else 0):
            for k in range(G):
                at = start[7 + p] + f * G + k
                grad[at] = tau[p] * gu[p, k] - x[at]
                g_lt[p] += gu[p, k] * u[p, k]
            grad[start[9 + p] + f] = g_lt[p]
    return total


def hurdle_density(pr: dict[str, float], clip: float) -> GradDensity:
    """The hurdle label stage's density for :func:`~bacon_bayes.bayes.nuts.compile_sampler`."""
    return _flat_density(_hurdle_flat_py, _HURDLE_PARAMS, _HURDLE_PRIORS, pr, (clip,))


# ------------------------------------------------ the gaussian link in numba
#
# Per labeled item: ``y ~ N(b0 + b1 m + r' d, b1^2 v + sy^2 exp(2 q' gamma))``; with group
# effects, ``+ u_g`` integrated out in closed form per group
# (:func:`~bacon_bayes.bayes.closed_forms.collapse_groups`): with ``A = sum w / var``,
# ``B = sum w e / var``, ``D = 1 + tau^2 A`` and ``k = tau^2 B / D`` (u's conditional mean),
# the group adds ``C = -log(D) / 2 + tau^2 B^2 / (2 D)``, whose derivatives are
# ``dC/de_i = k w_i / var_i``, ``dC/dvar_i = w_i / var_i^2 (tau^2 / (2 D) + k^2 / 2 - k e_i)``
# and ``dC/dlog tau = tau^2 (B^2 / D^2 - A / D)``.

#: The flat vector's parameters, in the order of :func:`_gaussian_flat_py`'s ``start``.
_GAUSSIAN_PARAMS = (
    "intercept", "slope_log__", "label_noise_log__", "label_noise_embedding", "judge_weight",
    "group_sd_log__",
)  # fmt: skip
#: The priors, in the order of its ``pr``.
_GAUSSIAN_PRIORS = (
    "intercept_sd", "slope_sd", "label_noise_sd", "label_noise_embedding_sd", "judge_weight_sd",
    "group_effect_sd",
)  # fmt: skip


def _gaussian_flat_py(x, start, pr, m0, v, yk, w, r, q, g, gix, grad):
    """Log density at the flat vector ``x`` (``start``: each of :data:`_GAUSSIAN_PARAMS`'
    first index, -1 when absent; ``pr``: :data:`_GAUSSIAN_PRIORS`' values; ``m0``, ``v``,
    ``yk``, ``w`` (folds, n), ``r`` (folds, n, K), ``q`` (folds, n, E), E = 0 when the
    label noise does not depend on the embedding; ``g`` (folds, n, G) the group one-hot
    rows, ``gix`` (folds, n) their index, -1: none; the group effects are integrated
    out, their scale is ``group_sd``); the gradient is written into ``grad``."""
    F, n = m0.shape
    K = r.shape[2]
    E = q.shape[2] if start[3] >= 0 else 0
    G = g.shape[2] if start[5] >= 0 else 0
    it, gsd = start[5], pr[5]
    grad[:] = 0.0
    total = 0.0
    d = np.zeros(K)
    gd = np.zeros(K)
    gam = np.zeros(E)
    ggam = np.zeros(E)
    err = np.zeros(n)
    var = np.zeros(n)
    noise = np.zeros(n)
    sa = np.zeros(G)
    sb = np.zeros(G)
    kap = np.zeros(G)
    half = np.zeros(G)
    for f in range(F):
        b0 = x[start[0] + f]
        z = b0 / pr[0]
        total += -0.5 * z * z - np.log(pr[0]) - 0.5 * LOG_2PI
        g_b0 = -z / pr[0]
        sl, ln = x[start[1] + f], x[start[2] + f]  # HalfNormal slope and noise, log scale
        b1, sy2 = np.exp(sl), np.exp(2.0 * ln)
        total += LOG_HALF_NORMAL - np.log(pr[1]) - 0.5 * (b1 / pr[1]) ** 2 + sl
        total += LOG_HALF_NORMAL - np.log(pr[2]) - 0.5 * sy2 / pr[2] ** 2 + ln
        g_b1 = -b1 / pr[1] ** 2  # in b1; the log-Jacobian's 1 is added at the end
        g_ln = -sy2 / pr[2] ** 2 + 1.0
        for e in range(E):
            gam[e] = x[start[3] + f * E + e]
            total += -0.5 * (gam[e] / pr[3]) ** 2 - np.log(pr[3]) - 0.5 * LOG_2PI
            ggam[e] = -gam[e] / pr[3] ** 2
        for k in range(K):
            d[k] = x[start[4] + f * K + k]
            total += -0.5 * (d[k] / pr[4]) ** 2 - np.log(pr[4]) - 0.5 * LOG_2PI
            gd[k] = -d[k] / pr[4] ** 2
        t2 = 0.0
        if G > 0:  # tau ~ HalfNormal(gsd) on the log scale
            t2 = np.exp(2.0 * x[it + f])
            total += LOG_HALF_NORMAL - np.log(gsd) - 0.5 * t2 / (gsd * gsd) + x[it + f]
            grad[it + f] = 1.0 - t2 / (gsd * gsd)
            for k in range(G):
                sa[k] = 0.0
                sb[k] = 0.0
        for i in range(n):  # the items' own terms; the groups' sums
            wi = w[f, i]
            if wi == 0.0:
                continue
            noise[i] = sy2
            if E > 0:
                qg = 0.0
                for e in range(E):
                    qg += q[f, i, e] * gam[e]
                noise[i] *= np.exp(2.0 * qg)
            mean = b0 + b1 * m0[f, i]
            for k in range(K):
                mean += r[f, i, k] * d[k]
            var[i] = b1 * b1 * v[f, i] + noise[i]
            err[i] = yk[f, i] - mean
            total += wi * -0.5 * (LOG_2PI + np.log(var[i]) + err[i] * err[i] / var[i])
            gk = gix[f, i]
            if G > 0 and gk >= 0:
                sa[gk] += wi / var[i]
                sb[gk] += wi * err[i] / var[i]
        for k in range(G):  # each group's effect integrated out
            dd = 1.0 + t2 * sa[k]
            kap[k] = t2 * sb[k] / dd
            half[k] = 0.5 * t2 / dd + 0.5 * kap[k] * kap[k]
            total += -0.5 * np.log(dd) + 0.5 * t2 * sb[k] * sb[k] / dd
            grad[it + f] += t2 * (sb[k] * sb[k] / (dd * dd) - sa[k] / dd)
        for i in range(n):
            wi = w[f, i]
            if wi == 0.0:
                continue
            d_mean = wi * err[i] / var[i]
            d_var = wi * 0.5 * (err[i] * err[i] / var[i] - 1.0) / var[i]
            gk = gix[f, i]
            if G > 0 and gk >= 0:
                d_mean -= kap[gk] * wi / var[i]
                d_var += wi / (var[i] * var[i]) * (half[gk] - kap[gk] * err[i])
            g_b0 += d_mean
            g_b1 += d_mean * m0[f, i] + d_var * 2.0 * b1 * v[f, i]
            g_ln += d_var * 2.0 * noise[i]
            for e in range(E):
                ggam[e] += d_var * 2.0 * noise[i] * q[f, i, e]
            for k in range(K):
                gd[k] += d_mean * r[f, i, k]
        grad[start[0] + f] = g_b0
        grad[start[1] + f] = g_b1 * b1 + 1.0
        grad[start[2] + f] = g_ln
        for e in range(E):
            grad[start[3] + f * E + e] = ggam[e]
        for k in range(K):
            grad[start[4] + f * K + k] = gd[k]
    return total


def gaussian_density(pr: dict[str, float]) -> GradDensity:
    """The gaussian label stage's density for :func:`~bacon_bayes.bayes.nuts.compile_sampler`."""
    return _flat_density(_gaussian_flat_py, _GAUSSIAN_PARAMS, _GAUSSIAN_PRIORS, pr)


def label_density(model: Any) -> GradDensity | None:
    """The compiled log density of ``model``'s label stage (its stage-2 PyMC model), or None
    when its family's label link is not one written here (a subclass that changes the
    link or the stage-2 model keeps PyTensor's translation). Each family says which of
    the log densities above is its own (``JudgeModel._label_density``), so this module
    knows no family."""
    return model._label_density()
