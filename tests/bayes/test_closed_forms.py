"""Closed forms of the collapsed judge model against numerical integration over z."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special, stats

from bacon_bayes.bayes.closed_forms import collapse_judges, latent_posterior, ordinal_probs

RNG = np.random.default_rng(7)
A = np.array([0.3, -0.5, 1.2, 0.1])
C = np.array([0.8, 1.3, 0.6, 1.1])
S2 = np.array([[0.5, 0.9, 0.3, 1.4]]) ** 2
L = np.array([[1.1, -0.2, 2.0, 0.7]])
MU, TAU2 = np.array([0.4]), 1.7


def _joint(z, obs):
    dens = stats.norm.pdf(z, MU[0], np.sqrt(TAU2))
    for j in np.flatnonzero(obs):
        dens *= stats.norm.pdf(L[0, j], A[j] + C[j] * z, np.sqrt(S2[0, j]))
    return dens


def test_judge_marginal_matches_quadrature_with_missing_judges():
    for obs in (np.ones(4), np.array([1.0, 0.0, 1.0, 0.0])):
        logp, m, v = collapse_judges(L, obs[None], A, C, 0.5 * np.log(S2), MU, TAU2)
        total = integrate.quad(lambda z, o=obs: _joint(z, o), -30, 30, limit=200)[0]
        mean = integrate.quad(lambda z, o=obs: z * _joint(z, o), -30, 30, limit=200)[0] / total
        second = integrate.quad(lambda z, o=obs: z * z * _joint(z, o), -30, 30, limit=200)[0]
        np.testing.assert_allclose(logp[0], np.log(total), rtol=1e-7)
        np.testing.assert_allclose(m[0], mean, rtol=1e-7)
        np.testing.assert_allclose(v[0], second / total - mean**2, rtol=1e-6)


def test_judge_marginal_equals_dense_multivariate_normal():
    n, J = 6, 4
    Lr = RNG.normal(size=(n, J))
    mu = RNG.normal(size=n)
    logp, _, _ = collapse_judges(Lr, np.ones((n, J)), A, C, 0.5 * np.log(S2), mu, TAU2)
    cov = np.diag(S2[0]) + TAU2 * np.outer(C, C)
    dense = [stats.multivariate_normal(A + C * mu[i], cov).logpdf(Lr[i]) for i in range(n)]
    np.testing.assert_allclose(logp, dense, rtol=1e-9)


def test_ordinal_label_probability_matches_quadrature():
    _, m, v = collapse_judges(L, np.ones((1, 4)), A, C, 0.5 * np.log(S2), MU, TAU2)
    cut, sy = np.array([-1.0, 0.2, 0.9]), 0.7
    p = ordinal_probs(m[None], np.sqrt(sy**2 + v)[None], cut[None])[0, 0]
    edges = np.r_[-np.inf, cut, np.inf]
    post = stats.norm(m[0], np.sqrt(v[0]))
    for k in range(4):

        def integrand(z, k=k):
            lab = stats.norm.cdf((edges[k + 1] - z) / sy) - stats.norm.cdf((edges[k] - z) / sy)
            return lab * post.pdf(z)

        want = integrate.quad(integrand, -20, 20, limit=200)[0]
        np.testing.assert_allclose(p[k], want, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(p.sum(), 1.0, rtol=1e-12)


def test_ordinal_probs_accurate_in_far_tail():
    p = ordinal_probs(np.array([[40.0]]), np.array([[1.0]]), np.array([[0.0, 38.0]]))[0, 0]
    np.testing.assert_allclose(p[1], stats.norm.cdf(-2.0), rtol=1e-9)
    assert p[0] < 1e-300 + 1e-200


def _hurdle_joint(z, ly, g0, g1, h0, h1, s, m, v):
    return (
        stats.norm.cdf(g0 + g1 * z)
        * stats.norm.pdf(ly, h0 + h1 * z, s)
        * stats.norm.pdf(z, m, np.sqrt(v))
    )


def _log_phi(mu, sigma, x):
    """The normal log-CDF in the signature ``hurdle_label_logp`` takes."""
    return special.log_ndtr((x - mu) / sigma)


def _hurdle_post(g0, g1, h0, h1, s):
    """One posterior draw of the hurdle link (standardised scale = raw scale)."""
    names = ("zero_intercept", "zero_slope", "log_intercept", "log_slope", "log_noise_y")
    return {name: np.array([x]) for name, x in zip(names, (g0, g1, h0, h1, s), strict=True)}


def test_hurdle_closed_forms_match_quadrature():
    from bacon_bayes.bayes.hurdle import HurdleJudgeModel

    g0, g1, h0, h1, s, m, v = 0.4, 1.3, 0.2, 0.7, 0.6, 0.3, 0.5
    post = _hurdle_post(g0, g1, h0, h1, s)
    const = {"log_center": 0.0, "log_scale": 1.0}
    model = HurdleJudgeModel(None)
    M, V = np.array([[m]]), np.array([[v]])
    post_z = stats.norm(m, np.sqrt(v))

    def quad(f):
        return integrate.quad(f, -15, 15, limit=200)[0]

    mean, var = model._moments(post, const, M, V)
    e1 = quad(
        lambda z: stats.norm.cdf(g0 + g1 * z) * np.exp(h0 + h1 * z + s * s / 2) * post_z.pdf(z)
    )
    e2 = quad(
        lambda z: (
            stats.norm.cdf(g0 + g1 * z) * np.exp(2 * h0 + 2 * h1 * z + 2 * s * s) * post_z.pdf(z)
        )
    )
    np.testing.assert_allclose(mean[0, 0], e1, rtol=1e-7)
    np.testing.assert_allclose(var[0, 0], e2 - e1 * e1, rtol=1e-6)
    # cdf: P(y <= t) = P(y = 0) + P(0 < y <= t)
    t = np.array([0.0, 0.5, 2.0])
    cdf = model._cdf(post, const, M, V, t)[0, 0]
    p0 = quad(lambda z: stats.norm.cdf(-(g0 + g1 * z)) * post_z.pdf(z))
    for k, tk in enumerate(t):
        below = (
            0.0
            if tk == 0
            else quad(
                lambda z, tk=tk: (
                    stats.norm.cdf(g0 + g1 * z)
                    * stats.norm.cdf((np.log(tk) - h0 - h1 * z) / s)
                    * post_z.pdf(z)
                )
            )
        )
        np.testing.assert_allclose(cdf[k], p0 + below, rtol=1e-7)
    # the label likelihood given the judges (the function the model graph uses)
    from bacon_bayes.bayes.hurdle import hurdle_label_logp

    ly = 0.8
    got = hurdle_label_logp(
        np.array([1.0, 0.0]), np.array([ly, 0.0]), m, v, g0, g1, h0, h1, s, np, _log_phi
    )
    want_pos = quad(lambda z: _hurdle_joint(z, ly, g0, g1, h0, h1, s, m, v))
    np.testing.assert_allclose(got, np.log([want_pos, p0]), rtol=1e-7)


def test_log_normal_interval_is_accurate_in_both_tails():
    import pytensor
    import pytensor.tensor as pt

    from bacon_bayes.bayes.ordinal import log_normal_interval

    lo, hi = pt.dvectors("lo", "hi")
    fn = pytensor.function([lo, hi], log_normal_interval(lo, hi, pt))
    a = np.array([-np.inf, -3.0, -0.01, 0.5, 8.0, -40.0, -12.0, 25.0])
    b = np.array([-20.0, 1.0, 0.01, 0.6, 9.0, -39.0, -11.5, np.inf])
    with np.errstate(divide="ignore"):
        want = np.log(stats.norm.cdf(b) - stats.norm.cdf(a))
        lower = b <= 0  # lower tail: log-space difference of log-CDFs
        la, lb = stats.norm.logcdf(a[lower]), stats.norm.logcdf(b[lower])
        want[lower] = lb + np.log(-np.expm1(la - lb))
        upper = a > 0
        la, lb = stats.norm.logsf(b[upper]), stats.norm.logsf(a[upper])
        want[upper] = lb + np.log(-np.expm1(la - lb))
    got = fn(np.maximum(a, -1e3), np.minimum(b, 1e3))
    ok = a > -30  # beyond the clip the function saturates by design
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-9)


def test_latent_posterior_equals_the_collapse_with_missing_scores():
    rng = np.random.default_rng(5)
    d, n, J = 3, 7, 4
    L = rng.normal(size=(n, J))
    obs = (rng.random((n, J)) > 0.3).astype(float)
    L[obs == 0] = np.nan  # a missing score must not leak into the sums
    a, c = rng.normal(size=(d, J)), np.exp(rng.normal(size=(d, J)))
    log_sd, mu = rng.normal(0, 0.3, size=(d, n, J)), rng.normal(size=(d, n))
    _, m, v = collapse_judges(
        np.nan_to_num(L)[None], obs[None], a[:, None], c[:, None], log_sd, mu, 1.0
    )
    m2, v2 = latent_posterior(L, obs, a, c, log_sd, mu)
    np.testing.assert_allclose(m2, m, rtol=1e-12)
    np.testing.assert_allclose(v2, v, rtol=1e-12)


def test_hurdle_square_root_scale_matches_quadrature():
    """Squared-normal positive part: y = W^2, W | z ~ N(h0 + h1 z, s^2)."""
    from bacon_bayes.bayes.hurdle import HurdleJudgeModel, hurdle_label_logp

    g0, g1, h0, h1, s, m, v = 0.4, -1.1, 1.2, 0.7, 0.6, 0.3, 0.5
    post = _hurdle_post(g0, g1, h0, h1, s)
    const = {"log_center": 0.0, "log_scale": 1.0}
    model = HurdleJudgeModel(None, positive_scale="sqrt")
    post_z = stats.norm(m, np.sqrt(v))

    def quad(f):
        return integrate.quad(f, -15, 15, limit=200)[0]

    def gate(z):
        return stats.norm.cdf(g0 + g1 * z) * post_z.pdf(z)

    mean, var = model._moments(post, const, np.array([[m]]), np.array([[v]]))
    w = stats.norm(0.0, s)  # W - (h0 + h1 z)
    e1 = quad(lambda z: gate(z) * ((h0 + h1 * z) ** 2 + s * s))
    e2 = quad(lambda z: gate(z) * w.expect(lambda e, z=z: (h0 + h1 * z + e) ** 4))
    np.testing.assert_allclose(mean[0, 0], e1, rtol=1e-8)
    np.testing.assert_allclose(var[0, 0], e2 - e1 * e1, rtol=1e-6)
    t = np.array([0.0, 0.5, 2.0])
    cdf = model._cdf(post, const, np.array([[m]]), np.array([[v]]), t)[0, 0]
    p0 = quad(lambda z: stats.norm.cdf(-(g0 + g1 * z)) * post_z.pdf(z))
    for k, tk in enumerate(t):
        r = np.sqrt(tk)
        inside = quad(lambda z, r=r: gate(z) * (w.cdf(r - h0 - h1 * z) - w.cdf(-r - h0 - h1 * z)))
        np.testing.assert_allclose(cdf[k], p0 + inside, rtol=1e-7)

    # the label likelihood: W's density at sqrt y (the square root is the normal part)
    root = 1.3
    got = hurdle_label_logp(
        np.array([1.0, 0.0]), np.array([root, 0.0]), m, v, g0, g1, h0, h1, s, np, _log_phi
    )
    want = quad(lambda z: gate(z) * w.pdf(root - h0 - h1 * z))
    np.testing.assert_allclose(got, np.log([want, p0]), rtol=1e-7)


@pytest.mark.parametrize("anchor", [0, 1, 2, 3])
def test_anchored_ordered_transform_is_a_bijection_with_its_log_jacobian(anchor):
    """Cutpoints anchored at one element: increasing, invertible, and the log-Jacobian
    PyMC adds equals log |det dx/du| (so the posterior is that of ``ordered``)."""
    import pytensor
    import pytensor.tensor as pt

    from bacon_bayes.bayes.ordinal import anchored_ordered

    t = anchored_ordered(anchor)
    u = pt.dvector("u")
    x = t.backward(u)
    # the transform's math, not a backend, is checked: Python-implemented ops and a
    # vectorised Jacobian (a cold numba compilation of the Jacobian's scan took 13-27 s)
    f = pytensor.function([u], [x, t.forward(x), t.log_jac_det(u)], mode="FAST_COMPILE")
    jac = pytensor.function(
        [u], pytensor.gradient.jacobian(x, u, vectorize=True), mode="FAST_COMPILE"
    )
    uv = np.random.default_rng(anchor).normal(size=4)
    xv, back, logdet = f(uv)
    assert np.all(np.diff(xv) > 0) and xv[anchor] == uv[anchor]
    np.testing.assert_allclose(back, uv, atol=1e-12)
    np.testing.assert_allclose(logdet, np.log(abs(np.linalg.det(jac(uv)))), atol=1e-12)


def test_median_cut_is_the_cutpoint_nearest_the_labels_median():
    from bacon_bayes.bayes.ordinal import median_cut

    y = np.repeat([2.0, 3.0, 4.0, 5.0], [9, 32, 63, 16])  # SummEval relevance, 120 labels
    assert median_cut(y, np.arange(1.0, 6.0)) == 2  # between 3 and 4: 34% / 66%
    assert median_cut(np.repeat([1.0, 2.0], [90, 10]), np.array([1.0, 2.0])) == 0


def test_judge_marginal_is_exact_with_a_nearly_noiseless_judge():
    """One judge with noise sd exp(-17): the quadratic form must not be the difference
    of two numbers near 1e15 (the naive form lost up to ~3 nats per item, a false ridge
    that trapped a NUTS chain); checked against the naive form in exact rationals."""
    from fractions import Fraction

    rng = np.random.default_rng(4)
    n, J = 20, 5
    a, c = rng.normal(0, 0.5, J), np.exp(rng.normal(0, 0.3, J))
    log_sd = np.array([-0.8, -0.5, -1.2, -0.8, -17.0])
    L = rng.normal(size=(n, J))
    logp, m, _ = collapse_judges(L, np.ones((n, J)), a, c, log_sd, np.zeros(n), 1.0)
    r = L - a  # exact enough: the inputs below are these floats, taken exactly
    inv = [Fraction(float(w)) for w in np.exp(-2.0 * log_sd)]
    cf = [Fraction(float(x)) for x in c]
    s1 = sum(ci * ci * w for ci, w in zip(cf, inv, strict=True))
    for i in range(n):
        ri = [Fraction(float(x)) for x in r[i]]
        s2c = sum(x * ci * w for x, ci, w in zip(ri, cf, inv, strict=True))
        s0 = sum(x * x * w for x, w in zip(ri, inv, strict=True))
        quad = float(s0 - s2c * s2c / (1 + s1))
        exact = -0.5 * (J * np.log(2 * np.pi) + 2 * log_sd.sum() + np.log1p(float(s1)) + quad)
        assert logp[i] == pytest.approx(exact, abs=1e-6)
        assert m[i] == pytest.approx(float(s2c / (1 + s1)), rel=1e-12)


def test_hurdle_square_root_moments_broadcast_draws_and_items():
    """The compiled moments over (draws, items) with per-item offsets equal the moments
    of each draw and item on its own (the quadrature test checks one element's math)."""
    from bacon_bayes.bayes.hurdle import HurdleJudgeModel

    rng = np.random.default_rng(3)
    d, n = 3, 4
    names = ("zero_intercept", "zero_slope", "log_intercept", "log_slope", "log_noise_y")
    post = {k: rng.normal(0.5, 0.4, d) for k in names}
    post["log_noise_y"] = np.abs(post["log_noise_y"]) + 0.1
    const = {"log_center": 0.3, "log_scale": 1.7, "sqrt": True}
    m, v = rng.normal(size=(d, n)), rng.uniform(0.1, 1.0, (d, n))
    off = (rng.normal(size=(d, n)), rng.normal(size=(d, n)))
    model = HurdleJudgeModel(None)
    mean, var = model._moments(post, const, m, v, off=off)
    for i in range(d):
        one = {k: x[i : i + 1] for k, x in post.items()}
        for j in range(n):
            cell = (slice(i, i + 1), slice(j, j + 1))
            got = model._moments(one, const, m[cell], v[cell], off=(off[0][cell], off[1][cell]))
            np.testing.assert_allclose([mean[i, j], var[i, j]], [got[0][0, 0], got[1][0, 0]])
    assert np.all(var > 0) and np.all(mean > 0)
