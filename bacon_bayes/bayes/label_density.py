"""The label stage's log densities written by hand (cut fit, stage 2).

Stage 2 of a cut fit (:meth:`JudgeModel._build_label_model`) is one PyMC model with an
independent block of label-link parameters per cross-fitting fold. For the hurdle and
gaussian families its log density is also written here in JAX, for the ordinal family
in numba with its gradient by hand, on the sampler's unconstrained values (PyMC's
parameterisation: ``anchored_ordered`` cutpoints as their median cutpoint and log gaps
towards it, half-normal scales on the log scale, each with its log-Jacobian), from the
same per-item formulas the PyMC models use
(:func:`~bacon_bayes.bayes.closed_forms.hurdle_label_logp` evaluated with
``jax.numpy``; the ordinal interval probability reflected into the lower tail as
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

from bacon_bayes.bayes.closed_forms import LOG_2PI, hurdle_label_logp
from bacon_bayes.bayes.nuts import GradDensity, JaxDensity, flat_call, jax_numpy
from bacon_bayes.compiled import njit_cached

__all__ = ["label_density"]

LOG_HALF_NORMAL = 0.5 * log(2.0 / pi)  # log of the half-normal's density factor at sd 1


def _normal(x: Any, mu: Any, sd: Any, jnp: Any) -> Any:
    z = (x - mu) / sd
    return jnp.sum(-0.5 * z * z - jnp.log(sd)) - 0.5 * LOG_2PI * jnp.size(x)


def _half_normal(log_x: Any, sd: float, jnp: Any) -> Any:
    """HalfNormal(sd) log density of x = exp(log_x) plus the log-Jacobian log_x."""
    x = jnp.exp(log_x)
    return jnp.sum(LOG_HALF_NORMAL - np.log(sd) - 0.5 * (x / sd) ** 2 + log_x)


def _offsets(params: dict, data: dict, names: tuple, pr: dict, jnp: Any) -> tuple[Any, tuple]:
    """Prior of the judge weights ``d`` (folds, K) of each part and the terms ``r @ d``
    (folds, n); (0, None) without judge weights."""
    if names[0] not in params:
        return 0.0, None
    prior = sum(_normal(params[n], 0.0, pr["judge_weight_sd"], jnp) for n in names)
    return prior, tuple(jnp.einsum("fnk,fk->fn", data["r"], params[n]) for n in names)


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
_ORDINAL_PARAMS = ("cutpoints_anchored_ordered__", "log_label_noise", "judge_weight")
#: The priors, in the order of its ``pr``.
_ORDINAL_PRIORS = ("cutpoint_sd", "log_label_noise_mu", "log_label_noise_sd", "judge_weight_sd")
_SQRT_2PI = float(np.sqrt(2.0 * np.pi))


def _ordinal_flat_py(x, start, pr, n_cut, outer, clip, anchor, m0, v, yk, w, r, grad):
    """Log density at the flat vector ``x`` (``start``: each of :data:`_ORDINAL_PARAMS`'
    first index, -1 when absent; ``pr``: :data:`_ORDINAL_PRIORS`' values; ``m0``, ``v``,
    ``w`` (folds, n), ``yk`` (folds, n) integers, ``r`` (folds, n, K)); the gradient is
    written into ``grad``."""
    F, n = m0.shape
    K = r.shape[2]
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
        for i in range(n):
            wi = w[f, i]
            if wi == 0.0:
                continue
            m = m0[f, i]
            for k in range(K):
                m += r[f, i, k] * jw[k]
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
    return total


@functools.cache
def _ordinal_flat() -> Any:
    """:func:`_ordinal_flat_py` compiled, its machine code kept in the user cache directory."""
    return njit_cached(_ordinal_flat_py, nogil=True)


def _stage2_numpy(data: dict[str, Any]) -> dict[str, Any]:
    """The stage-2 containers as C-ordered numpy arrays for a numba density (``*_np``;
    ``r_np`` (folds, n, 0) without judge weights)."""
    m = np.ascontiguousarray(np.asarray(data["m"], dtype=float))
    r = data.get("r")
    r = np.zeros((*m.shape, 0)) if r is None or not np.size(r) else np.asarray(r, dtype=float)
    return {
        "m_np": m,
        "v_np": np.ascontiguousarray(np.asarray(data["v"], dtype=float)),
        "yk_np": np.ascontiguousarray(np.asarray(data["yk"], dtype=np.int64)),
        "w_np": np.ascontiguousarray(np.asarray(data["w"], dtype=float)),
        "r_np": np.ascontiguousarray(r),
    }


def ordinal_flat_value_and_grad(
    layout: list, pr: dict[str, float], outer: float, clip: float, anchor: int
) -> Callable[[np.ndarray, dict], tuple[float, np.ndarray]]:
    """``(x, data) -> (logp, gradient)`` of the ordinal label stage on nutpie's flat
    vector laid out as ``layout``, in numba (``data``: :func:`_stage2_numpy` of the
    containers)."""
    shapes = {name: shape for name, _, shape in layout}
    n_cut = int(shapes[_ORDINAL_PARAMS[0]][-1])
    prior = np.array([pr[name] for name in _ORDINAL_PRIORS], dtype=float)
    args = (prior, n_cut, outer, clip, anchor)
    keys = ("m_np", "v_np", "yk_np", "w_np", "r_np")
    return flat_call(_ordinal_flat(), layout, _ORDINAL_PARAMS, args, keys)


def ordinal_density(pr: dict[str, float], outer: float, clip: float, anchor: int) -> GradDensity:
    """The ordinal label stage's density for :func:`~bacon_bayes.bayes.nuts.compile_sampler`."""
    flat = functools.partial(
        ordinal_flat_value_and_grad, pr=pr, outer=outer, clip=clip, anchor=anchor
    )
    return GradDensity(flat, _stage2_numpy)


def hurdle_logp(params: dict, data: dict, pr: dict, clip: float) -> Any:
    """Stage 2 of the hurdle family (:meth:`HurdleJudgeModel._label_logp`, folds)."""
    from jax.scipy.special import erfc

    jnp = jax_numpy()
    names = ("zero_intercept", "zero_slope", "log_intercept", "log_slope")
    sds = ("zero_intercept_sd", "zero_slope_sd", "log_intercept_sd", "log_slope_sd")
    out = sum(_normal(params[n], 0.0, pr[s], jnp) for n, s in zip(names, sds, strict=True))
    out += _half_normal(params["log_noise_y_log__"], pr["log_noise_sd_prior"], jnp)
    g0, g1, h0, h1 = (params[n][:, None] for n in names)
    s = jnp.exp(params["log_noise_y_log__"])[:, None]
    prior, off = _offsets(params, data, ("zero_judge_weight", "log_judge_weight"), pr, jnp)
    if off is not None:
        g0, h0 = g0 + off[0], h0 + off[1]

    def log_phi(mu, sigma, x):  # as the PyMC model's: erfc of the clipped argument
        z = jnp.clip((x - mu) / sigma, -clip, clip)
        return jnp.log(0.5 * erfc(-z / np.sqrt(2.0)))

    yk = data["yk"]
    terms = hurdle_label_logp(
        yk[..., 0], yk[..., 1], data["m"], data["v"], g0, g1, h0, h1, s, jnp, log_phi
    )
    return out + prior + jnp.sum(data["w"] * terms)


def gaussian_logp(params: dict, data: dict, pr: dict) -> Any:
    """Stage 2 of the gaussian family (:meth:`GaussianJudgeModel._label_logp`, folds)."""
    jnp = jax_numpy()
    b0 = params["intercept"]
    out = _normal(b0, 0.0, pr["intercept_sd"], jnp)
    out += _half_normal(params["slope_log__"], pr["slope_sd"], jnp)
    out += _half_normal(params["label_noise_log__"], pr["label_noise_sd"], jnp)
    b1 = jnp.exp(params["slope_log__"])[:, None]
    noise = jnp.exp(2.0 * params["label_noise_log__"])[:, None]
    if "label_noise_embedding" in params:
        gamma = params["label_noise_embedding"]  # (folds, E)
        out += _normal(gamma, 0.0, pr["label_noise_embedding_sd"], jnp)
        noise = noise * jnp.exp(2.0 * jnp.einsum("fne,fe->fn", data["q"], gamma))
    prior, off = _offsets(params, data, ("judge_weight",), pr, jnp)
    var = b1 * b1 * data["v"] + noise
    mean = b0[:, None] + b1 * data["m"] + (0.0 if off is None else off[0])
    terms = -0.5 * (np.log(2 * np.pi) + jnp.log(var) + (data["yk"] - mean) ** 2 / var)
    return out + prior + jnp.sum(data["w"] * terms)


def label_density(model: Any) -> JaxDensity | None:
    """The JAX log density of ``model``'s label stage (its stage-2 PyMC model), or None
    when its family's label link is not one written here (a subclass that changes the
    link or the stage-2 model keeps PyTensor's translation). Each family says which of
    the log densities above is its own (``JudgeModel._label_density``), so this module
    knows no family."""
    return model._label_density()
