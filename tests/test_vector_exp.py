"""The SIMD exp of the compiled log densities equals numpy's to 2 ulp."""

from __future__ import annotations

import numpy as np

from bacon_bayes.vector_exp import exp_into


def _exp(x: np.ndarray, m: int | None = None) -> np.ndarray:
    out = np.full_like(x, -1.0)
    exp_into(x, out, np.empty_like(x), x.size if m is None else m)
    return out


def test_exp_into_matches_numpy_to_two_ulp():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            rng.normal(0.0, 3.0, 20_000),
            rng.uniform(-700.0, 700.0, 20_000),
            np.linspace(-0.5, 0.5, 1001) * np.log(2.0),  # the polynomial's whole range
            np.arange(-700, 701) * np.log(2.0) / 1.001,  # near the rounding's half-way points
            [0.0, -0.0, 1e-300, -1e-300, 1.0, -1.0, 700.0, -700.0],
        ]
    )
    got, want = _exp(x), np.exp(x)
    ulp = np.abs(got - want) / np.spacing(want)
    assert ulp.max() <= 2.0, x[np.argmax(ulp)]
    assert (got[x == 0.0] == 1.0).all()


def test_exp_into_clips_at_700_and_writes_only_m_values():
    x = np.array([-800.0, -700.0, 700.0, 750.0, 1.0])
    got = _exp(x, m=4)
    np.testing.assert_allclose(got[:4], np.exp([-700.0, -700.0, 700.0, 700.0]), rtol=1e-15)
    assert got[4] == -1.0  # beyond m: untouched
    assert np.isfinite(_exp(np.array([np.inf, -np.inf]))).all()
