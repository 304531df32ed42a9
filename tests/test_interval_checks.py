"""The fast two-sided interval check of tests/interval_checks.py fails a widened, a
narrowed and a biased interval, on normal draws with a known standard error."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interval_checks import assert_two_sided, critical_value, width_check


def _draws(reps: int, k: int, rho: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    corr = np.full((k, k), rho) + (1 - rho) * np.eye(k)
    se = np.linspace(1.0, 2.0, k)
    est = rng.multivariate_normal(np.zeros(k), corr, size=reps) * se
    return est, se


@pytest.mark.parametrize("simultaneous", [False, True])
@pytest.mark.parametrize("scale", [1.0, 1.5, 0.6])
def test_the_check_fails_intervals_too_wide_or_too_narrow(simultaneous, scale) -> None:
    est, se = _draws(100, 6, 0.5)
    est0 = est[:, :1] if not simultaneous else est
    k = est0.shape[1]
    # the interval's own critical value, from the known correlation (not the draws')
    exact = _draws(50_000, 6, 0.5, seed=1)[0] if simultaneous else None
    crit = critical_value(exact, 0.1, True) if simultaneous else 1.6449
    half = scale * crit * se[:k]
    check = width_check(est0, est0 - half, est0 + half, 0.0, 0.1, simultaneous=simultaneous)
    assert abs(check.ratio / scale - 1) < 0.15, check
    failures = check.failures()
    if scale == 1.0:
        assert not failures
        assert_two_sided(est0, est0 - half, est0 + half, 0.0, 0.1, simultaneous=simultaneous)
    else:
        assert failures and ("too wide" if scale > 1 else "too narrow") in failures[0]


def test_the_check_fails_a_biased_estimate() -> None:
    est, se = _draws(100, 1, 0.0)
    half = 1.6449 * se[0]
    assert not width_check(est, est - half, est + half, 0.0, 0.1).failures()
    biased = width_check(est + 0.5, est + 0.5 - half, est + 0.5 + half, 0.0, 0.1)
    (failure,) = biased.failures()
    assert failure.startswith("biased: the estimates' mean is"), failure
