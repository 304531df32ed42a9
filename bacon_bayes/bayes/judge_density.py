"""The judge stage's log density written directly in JAX (cut fit, stage 1).

The same density as the PyMC model of :meth:`JudgeModel._judge_terms` on the
sampler's unconstrained values (PyMC's parameterisation: the two Gamma hyper-sds
on the log scale with the log-Jacobian added, everything else as is): the
priors plus the collapsed judge likelihood of :func:`closed_forms.collapse_judges`
(the same formula on judge-major arrays).
nutpie samples it in place of the log density PyTensor translates to JAX
(:func:`bacon_bayes.bayes.nuts.compile_sampler`, ``density=``); the PyMC model
still supplies the initial points, the stored variables and their dims, so the
posterior is the same object either way. ``tests/bayes/test_judge_density.py``
checks value and gradient against PyMC's at random points.

The density is written twice: in JAX (:func:`judges_logp`, gradient by autodiff) and
in numba with the gradient by hand (:func:`judges_value_and_grad`, below: about half the
time per call at WMT22 size, no faster on the 5,000-item benchmark; the cut fit picks
by size, :data:`bacon_bayes.bayes.base.NUMBA_JUDGE_SCORES`). Both are tested against
PyMC's.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from bacon_bayes.bayes.closed_forms import LOG_2PI
from bacon_bayes.bayes.nuts import GradDensity, JaxDensity, jax_numpy
from bacon_bayes.compiled import numba_function_cache

__all__ = [
    "judges_density",
    "judges_grad_density",
    "judges_logp",
    "judges_value_and_grad",
    "prepare_judges",
]


def _normal(x: Any, mu: Any, sd: Any, jnp: Any) -> Any:
    z = (x - mu) / sd
    return jnp.sum(-0.5 * z * z - jnp.log(sd)) - 0.5 * LOG_2PI * jnp.size(x)


def _log_gamma(log_t: Any, alpha: float, beta: float, jnp: Any) -> Any:
    """Gamma(alpha, beta) log density of t = exp(log_t) plus the log-Jacobian log_t."""
    from math import lgamma

    const = alpha * np.log(beta) - lgamma(alpha)
    return const + alpha * log_t - beta * jnp.exp(log_t)


def prepare_judges(data: dict[str, Any]) -> dict[str, Any]:
    """The judge data judge-major, once per fit: ``Lt``, ``obst`` (J, n) and ``Ut``
    (K, J, n). Sums over a judge's items then run along contiguous memory (measured:
    0.55 instead of 0.8 times the time per gradient of PyTensor's translation)."""
    jnp = jax_numpy()

    out = {"Lt": jnp.asarray(data["L"]).T, "obst": jnp.asarray(data["obs"]).T}
    if "U" in data:
        out["Ut"] = jnp.transpose(jnp.asarray(data["U"]), (2, 1, 0))
    return out


def judges_logp(params: dict[str, Any], data: dict[str, Any], pr: dict[str, float]) -> Any:
    """Log density of the judge measurement model (a JAX scalar).

    Parameters
    ----------
    params : unconstrained values by PyMC's value-variable names: ``offset``,
        ``log_scale_mu``, ``log_scale_sd_log__``, ``log_scale``, ``log_noise_mu``,
        ``log_noise_sd_log__``, ``log_noise`` and, when the model has them,
        ``uncertainty`` and ``theta``.
    data : :func:`prepare_judges` of the model's data containers, and ``Q`` when the
        model has an embedding.
    pr : the judge priors (:meth:`JudgeModel.resolved_priors`).
    """
    import jax.numpy as jnp

    scalar = {k: jnp.reshape(params[k], ()) for k in ("log_scale_mu", "log_noise_mu")}
    lt_c, lt_s = params["log_scale_sd_log__"], params["log_noise_sd_log__"]
    a, log_c, log_n = params["offset"], params["log_scale"], params["log_noise"]
    out = _normal(a, 0.0, pr["offset_sd"], jnp)
    out += _normal(scalar["log_scale_mu"], pr["log_scale_mu"], pr["log_scale_mu_sd"], jnp)
    out += _log_gamma(lt_c, 2.0, 2.0 / pr["log_scale_sd"], jnp)
    out += _normal(log_c, scalar["log_scale_mu"], jnp.exp(lt_c), jnp)
    out += _normal(scalar["log_noise_mu"], pr["log_noise_mu"], pr["log_noise_mu_sd"], jnp)
    out += _log_gamma(lt_s, 2.0, 2.0 / pr["log_noise_sd"], jnp)
    out += _normal(log_n, scalar["log_noise_mu"], jnp.exp(lt_s), jnp)
    L, obs = data["Lt"], data["obst"]
    log_sd = log_n[:, None]
    if "uncertainty" in params:
        g = params["uncertainty"]
        out += _normal(g, 0.0, pr["uncertainty_sd"], jnp)
        log_sd = log_sd + jnp.tensordot(g, data["Ut"], 1)
    mu = jnp.zeros(L.shape[1])
    if "theta" in params:
        out += _normal(params["theta"], 0.0, pr["embedding_sd"], jnp)
        mu = data["Q"] @ params["theta"]
    # collapse_judges's marginal density, judge-major (L, obs, log_sd: (J, n))
    c = jnp.exp(log_c)
    r = L - a[:, None] - c[:, None] * mu
    inv = obs * jnp.exp(-2.0 * log_sd)
    cinv = c[:, None] * inv
    s1, s2c = c @ cinv, jnp.sum(r * cinv, axis=0)
    one_plus = 1.0 + s1
    shift = s2c / one_plus  # the stable sum of squares of collapse_judges
    fit = r - c[:, None] * shift
    logdet = jnp.sum(obs) * LOG_2PI + 2.0 * jnp.sum(obs * log_sd)
    quad = jnp.sum(jnp.log(one_plus) + jnp.sum(fit * fit * inv, axis=0) + shift * shift)
    return jnp.reshape(out, ()) - 0.5 * (logdet + quad)


def judges_density(pr: dict[str, float]) -> JaxDensity:
    """The judge stage's density for :func:`~bacon_bayes.bayes.nuts.compile_sampler`."""
    return JaxDensity(functools.partial(judges_logp, pr=pr), prepare_judges)


# ----------------------------------------------------------- numba version
#
# The same density with its gradient written by hand, in one fused numba loop over
# items that releases the GIL (nutpie's chains call it from their own threads).
# Measured on the WMT22-size hurdle data (30,000 items, 10 judges with an uncertainty
# feature each): 8.4 ms per value and gradient against 15 ms for the JAX version.
#
# Per item i, with r_ij = L_ij - a_j - c_j mu_i, w_ij = obs_ij exp(-2 s_ij) and
# S1 = sum_j c_j^2 w_ij, S2 = sum_j c_j r_ij w_ij, S0 = sum_j r_ij^2 w_ij, the
# log density adds -1/2 [sum_j obs_ij (log 2 pi + 2 s_ij) + log(1 + S1) + S0 - S2^2 / (1 + S1)].
# With mbar = S2 / (1 + S1), A = 1 / (1 + S1) + mbar^2 and B = -2 mbar (the partial
# derivatives of the bracket's last three terms in S1 and S2), the gradient is
#   d/ds_ij  = -obs_ij + (A c_j^2 + B c_j r_ij + r_ij^2) w_ij,
#   d/da_j  += (B c_j / 2 + r_ij) w_ij,
#   d/dc_j  += -(A c_j + B (r_ij - c_j mu_i) / 2 - r_ij mu_i) w_ij,
#   d/dmu_i  = sum_j (B c_j^2 / 2 + r_ij c_j) w_ij.


@functools.cache
def _numba_likelihood() -> Any:
    """The compiled likelihood loop, its machine code kept in the user cache directory
    (:func:`~bacon_bayes.compiled.numba_function_cache`): compiling it takes
    about 2 s in every fresh process otherwise."""
    import numba

    def likelihood(Lt, obst, Ut, a, c, log_n, g, mu, grad_a, grad_c, grad_n, grad_g, grad_mu):
        J, n = Lt.shape
        K = Ut.shape[0]
        total = 0.0
        w = np.empty(J)
        r = np.empty(J)
        for i in range(n):
            s1 = 0.0
            s2 = 0.0
            for j in range(J):
                o = obst[j, i]
                s = log_n[j]
                for k in range(K):
                    s += g[k] * Ut[k, j, i]
                wj = o * np.exp(-2.0 * s)
                rj = Lt[j, i] - a[j] - c[j] * mu[i]
                w[j] = wj
                r[j] = rj
                s1 += c[j] * c[j] * wj
                s2 += c[j] * rj * wj
                total += o * (LOG_2PI + 2.0 * s)
            one_plus = 1.0 + s1
            mbar = s2 / one_plus
            # the quadratic form as collapse_judges sums it: squares of the fits
            # r_j - c_j mbar (the difference s0 - s2 mbar cancels catastrophically
            # for a nearly noiseless judge); the gradient in the same terms
            quad = mbar * mbar
            for j in range(J):
                fj = r[j] - c[j] * mbar
                r[j] = fj  # from here on: the fit
                quad += fj * fj * w[j]
            total += np.log(one_plus) + quad
            d_mu = 0.0
            for j in range(J):
                wj = w[j]
                fj = r[j]
                cj = c[j]
                d_s = -obst[j, i] + (cj * cj / one_plus + fj * fj) * wj
                grad_n[j] += d_s
                for k in range(K):
                    grad_g[k] += d_s * Ut[k, j, i]
                grad_a[j] += fj * wj
                grad_c[j] -= (cj / one_plus - (mbar + mu[i]) * fj) * wj
                d_mu += cj * fj * wj
            grad_mu[i] = d_mu
        return -0.5 * total

    compiled = numba.njit(nogil=True)(likelihood)
    cache = numba_function_cache(likelihood)
    if cache is not None:
        compiled._cache = cache  # what numba's cache=True sets, in our directory
    return compiled


def _normal_grad(x: np.ndarray, mu: Any, sd: Any) -> tuple[float, np.ndarray]:
    """Normal log density summed over x and its gradient in x."""
    z = (x - mu) / sd
    return float(np.sum(-0.5 * z * z - np.log(sd)) - 0.5 * LOG_2PI * np.size(x)), -z / sd


def _hierarchy(
    x: np.ndarray, mu: float, log_t: float, alpha: float, beta: float
) -> tuple[float, np.ndarray, float, float]:
    """``N(x | mu, exp(log_t))`` plus the Gamma(alpha, beta) prior of exp(log_t) with its
    log-Jacobian: value and gradients in x, mu and log_t."""
    from math import lgamma

    t = np.exp(log_t)
    value, gx = _normal_grad(x, mu, t)
    z2 = float(np.sum(((x - mu) / t) ** 2))
    value += alpha * np.log(beta) - lgamma(alpha) + alpha * log_t - beta * t
    return value, gx, float(-np.sum(gx)), z2 - x.size + alpha - beta * t


def prepare_judges_numpy(data: dict[str, Any]) -> dict[str, Any]:
    """:func:`prepare_judges` as C-ordered numpy arrays (``Lt_np``, ``obst_np``, ``Ut_np``
    (K, J, n), ``Q_np``) for the numba version."""
    L = np.asarray(data["L"], dtype=float)
    U = np.asarray(data["U"], dtype=float) if "U" in data else np.zeros((*L.shape, 0))
    out = {
        "Lt_np": np.ascontiguousarray(L.T),
        "obst_np": np.ascontiguousarray(np.asarray(data["obs"], dtype=float).T),
        "Ut_np": np.ascontiguousarray(np.transpose(U, (2, 1, 0))),
    }
    if "Q" in data:
        out["Q_np"] = np.ascontiguousarray(np.asarray(data["Q"], dtype=float))
    return out


def judges_value_and_grad(
    params: dict[str, np.ndarray], data: dict[str, Any], pr: dict[str, float]
) -> tuple[float, dict[str, np.ndarray]]:
    """:func:`judges_logp` and its gradient by name, in numpy and numba (``data``:
    :func:`prepare_judges_numpy` of the data containers)."""
    a, log_c, log_n = params["offset"], params["log_scale"], params["log_noise"]
    grad: dict[str, Any] = {}
    value, grad["offset"] = _normal_grad(a, 0.0, pr["offset_sd"])
    for part in ("log_scale", "log_noise"):  # x_j ~ N(mu, t), mu ~ N(., .), t ~ Gamma
        mu = float(np.reshape(params[f"{part}_mu"], ()))
        log_t = float(np.reshape(params[f"{part}_sd_log__"], ()))
        v, g_mu = _normal_grad(np.float64(mu), pr[f"{part}_mu"], pr[f"{part}_mu_sd"])
        value += v
        v, grad[part], g_mu2, grad[f"{part}_sd_log__"] = _hierarchy(
            params[part], mu, log_t, 2.0, 2.0 / pr[f"{part}_sd"]
        )
        value += v
        grad[f"{part}_mu"] = g_mu + g_mu2
    Lt = data["Lt_np"]
    g = params.get("uncertainty", np.zeros(0))
    if "uncertainty" in params:
        v, grad["uncertainty"] = _normal_grad(g, 0.0, pr["uncertainty_sd"])
        value += v
    mu = np.zeros(Lt.shape[1])
    if "theta" in params:
        v, grad["theta"] = _normal_grad(params["theta"], 0.0, pr["embedding_sd"])
        value += v
        mu = data["Q_np"] @ params["theta"]
    c = np.exp(log_c)
    parts = [np.zeros(a.size), np.zeros(a.size), np.zeros(a.size), np.zeros(g.size)]
    grad_mu = np.empty(mu.size)
    value += _numba_likelihood()(
        Lt, data["obst_np"], data["Ut_np"], a, c, log_n, g, mu, *parts, grad_mu
    )
    grad["offset"] = grad["offset"] + parts[0]
    grad["log_scale"] = grad["log_scale"] + parts[1] * c
    grad["log_noise"] = grad["log_noise"] + parts[2]
    if "uncertainty" in params:
        grad["uncertainty"] = grad["uncertainty"] + parts[3]
    if "theta" in params:
        grad["theta"] = grad["theta"] + data["Q_np"].T @ grad_mu
    return value, grad


def judges_grad_density(pr: dict[str, float]) -> GradDensity:
    """The judge stage's density in numba with its gradient by hand (see above)."""
    return GradDensity(functools.partial(judges_value_and_grad, pr=pr), prepare_judges_numpy)
