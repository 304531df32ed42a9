"""The hurdle model's predictive CDF (closed form through the bivariate normal CDF)
equals the expectation over z computed by adaptive quadrature."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special

from bacon_bayes.bayes.hurdle import hurdle_cdf


def _by_quadrature(m, v, g0, g1, h0, h1, s, t, sqrt):
    if t < 0:
        return 0.0
    lt = np.sqrt(t) if sqrt else (np.log(t) if t > 0 else -np.inf)

    def integrand(z):
        gate = special.ndtr(g0 + g1 * z)
        below = special.ndtr((lt - h0 - h1 * z) / s)
        if sqrt:
            below -= special.ndtr((-lt - h0 - h1 * z) / s)
        return np.exp(-0.5 * (z - m) ** 2 / v) / np.sqrt(2 * np.pi * v) * (1 - gate + gate * below)

    sd = np.sqrt(v)
    return integrate.quad(
        integrand, m - 12 * sd, m + 12 * sd, epsabs=1e-13, epsrel=1e-12, limit=200
    )[0]


@pytest.mark.parametrize("sqrt", [False, True])
def test_hurdle_cdf_equals_quadrature_over_z(sqrt):
    """Random links and latent moments whose correlation r covers all three Legendre rules
    and the panels beyond |r| = 0.925 (up to 0.9999), thresholds below, at and above 0."""
    rng = np.random.default_rng(5)
    n = 40
    v = np.exp(rng.uniform(np.log(0.01), np.log(3000.0), n))
    params = {
        "m": rng.normal(0, 1, n), "v": v, "g0": rng.normal(0, 1, n),
        "g1": rng.choice([-1, 1], n) * rng.uniform(0.1, 2.0, n), "h0": rng.normal(1, 1, n),
        "h1": rng.uniform(-2.0, 2.0, n), "s": rng.uniform(0.1, 1.5, n),
    }  # fmt: skip
    va = 1 + params["g1"] ** 2 * v
    vb = params["s"] ** 2 + params["h1"] ** 2 * v
    r = np.abs(params["g1"] * params["h1"] * v / np.sqrt(va * vb))
    assert (r < 0.3).any() and ((r > 0.3) & (r < 0.75)).any() and (r > 0.999).any()
    t = np.array([-1.0, 0.0, 0.05, 0.7, 2.0, 9.0, 60.0])
    names = ("m", "v", "g0", "g1", "h0", "h1", "s")
    got = hurdle_cdf(*(params[k][None, :] for k in names), t, sqrt)[0]
    want = np.array(
        [[_by_quadrature(*(params[k][i] for k in params), tk, sqrt) for tk in t] for i in range(n)]
    )
    np.testing.assert_allclose(got, want, atol=1e-11)
    assert (got[:, 0] == 0).all()
    assert np.all(np.diff(got, axis=1) >= -1e-12)  # a CDF never decreases
