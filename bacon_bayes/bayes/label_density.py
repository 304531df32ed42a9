"""The label stage's log densities written directly in JAX (cut fit, stage 2).

Stage 2 of a cut fit (:meth:`JudgeModel._build_label_model`) is one PyMC model with an
independent block of label-link parameters per cross-fitting fold. For the ordinal,
hurdle and gaussian families its log density is also written here in JAX, on the
sampler's unconstrained values (PyMC's parameterisation: ``anchored_ordered`` cutpoints
as their median cutpoint and log gaps towards it, half-normal scales on the log scale, each
with its log-Jacobian), from the same per-item formulas the PyMC models use
(:func:`~bacon_bayes.bayes.hurdle.hurdle_label_logp` evaluated with ``jax.numpy``; the
ordinal interval probability in an equivalent form with fewer special functions,
:func:`log_normal_interval`).
nutpie samples it in place of PyTensor's JAX translation
(:func:`~bacon_bayes.bayes.nuts.compile_sampler`, ``density=``); the PyMC model
still gives the initial points, stored variables and dims.
``tests/bayes/test_label_density.py`` checks value and gradient against PyMC's at
random points for each family, with and without judge weights.
"""

from __future__ import annotations

from math import log, pi
from typing import Any

import numpy as np

from bacon_bayes.bayes.closed_forms import LOG_2PI, hurdle_label_logp
from bacon_bayes.bayes.nuts import JaxDensity, jax_numpy

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


def log_normal_interval(lo: Any, hi: Any, clip: float) -> Any:
    """:func:`bacon_bayes.bayes.ordinal.log_normal_interval` (``log(Phi(hi) - Phi(lo))``,
    the interval reflected into the lower tail) with two ``erfc`` and one log instead of
    two ``erfc``, three logs and an exponential: ``log(P_b - P_a)`` directly, floored at
    ``1e-12 P_b`` as that one's ``log1mexp`` is (measured: 0.72 vs 0.98 ms per value and
    gradient of 5 x 800 terms). Equal to it to rounding (``tests/bayes/test_label_density.py``)."""
    from jax.scipy.special import erfc

    jnp = jax_numpy()
    lo = jnp.clip(lo, -clip, clip)
    hi = jnp.clip(hi, -clip, clip)
    flip = lo > 0
    a = jnp.where(flip, -hi, lo)
    b = jnp.where(flip, -lo, hi)
    p_a = erfc(-a / np.sqrt(2.0))  # 2 Phi(a)
    p_b = erfc(-b / np.sqrt(2.0))
    return jnp.log(0.5 * jnp.maximum(p_b - p_a, 1e-12 * p_b))


def ordinal_logp(params: dict, data: dict, pr: dict, outer: float, clip: float, anchor: int) -> Any:
    """Stage 2 of the ordinal family (:meth:`OrdinalJudgeModel._label_logp`, folds)."""
    jnp = jax_numpy()
    # (folds, K - 1): cutpoint ``anchor`` and log gaps towards it (``anchored_ordered``)
    x = params["cutpoints_anchored_ordered__"]
    mid = x[:, anchor : anchor + 1]
    up = jnp.cumsum(jnp.exp(x[:, anchor + 1 :]), axis=1)
    down = jnp.cumsum(jnp.exp(x[:, :anchor][:, ::-1]), axis=1)[:, ::-1]
    cut = jnp.concatenate([mid - down, mid, mid + up], axis=1)
    log_sy = params["log_label_noise"]
    out = _normal(cut, 0.0, pr["cutpoint_sd"], jnp) + jnp.sum(x) - jnp.sum(mid)
    out += _normal(log_sy, pr["log_label_noise_mu"], pr["log_label_noise_sd"], jnp)
    prior, off = _offsets(params, data, ("judge_weight",), pr, jnp)
    m, v, yk = data["m"], data["v"], data["yk"]
    if off is not None:
        m = m + off[0]
    ends = jnp.full((cut.shape[0], 1), outer)
    edges = jnp.concatenate([-ends, cut, ends], axis=1)
    sd = jnp.sqrt(jnp.exp(2.0 * log_sy)[:, None] + v)
    lo = jnp.take_along_axis(edges, yk, axis=1)
    hi = jnp.take_along_axis(edges, yk + 1, axis=1)
    terms = log_normal_interval((lo - m) / sd, (hi - m) / sd, clip)
    return out + prior + jnp.sum(data["w"] * terms)


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
