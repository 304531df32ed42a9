"""Closed forms of the collapsed judge model against numerical integration over z."""

from __future__ import annotations

import numpy as np
from scipy import integrate, stats

from bacon_bayes.bayes.closed_forms import collapse_judges, ordinal_probs

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
