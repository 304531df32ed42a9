"""Item intervals and sets from known predictive distributions: coverage in both directions.

Each item gets its own distribution (known exactly), its label is drawn from it, and the
interval is computed from the exact CDF: coverage must be the nominal 90% within 4
binomial sd (20,000 items: sd 0.002), so a conservative (too wide) interval fails as
much as a short one.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bacon_bayes.items import (
    cdf_interval,
    class_probabilities,
    left_limits,
    randomize_upper,
    top_mass_sets,
)

N, LEVEL = 20_000, 0.9
TOL = 4 * np.sqrt(LEVEL * (1 - LEVEL) / N)


def _hurdle_items(rng):
    """Zero with probability p0 (0.01-0.6), else log-normal: labels and CDF on a fine grid."""
    p0 = rng.uniform(0.01, 0.6, N)
    mu, s = rng.normal(1.0, 0.5, N), rng.uniform(0.3, 1.0, N)
    zero = rng.random(N) < p0
    y = np.where(zero, 0.0, np.exp(mu + s * rng.normal(size=N)))
    grid = np.concatenate([[0.0], np.exp(np.linspace(-4, 6, 1000))])
    pos = stats.norm.cdf((np.log(np.maximum(grid, 1e-300))[None, :] - mu[:, None]) / s[:, None])
    cdf = p0[:, None] + (1 - p0[:, None]) * np.where(grid > 0, pos, 0.0)
    return y, grid, cdf


def _ordinal_items(rng, k=5):
    """Ordered-probit items with random location: labels in 1..k and their exact CDF."""
    mu = rng.normal(0, 1.5, N)
    cuts = np.linspace(-1.5, 1.5, k - 1)
    cdf = np.column_stack([stats.norm.cdf(cuts[None, :] - mu[:, None]), np.ones(N)])
    probs = class_probabilities(cdf)
    u = rng.random(N)[:, None]
    y = 1.0 + (u > np.cumsum(probs, axis=1)).sum(axis=1)
    return y, np.arange(1.0, k + 1), cdf


def _covered(y, lo, hi):
    return np.mean((lo <= y) & (y <= hi))


def test_atom_at_zero_interval_holds_the_level_not_more():
    y, grid, cdf = _hurdle_items(np.random.default_rng(0))
    lo, hi = cdf_interval(cdf, grid, LEVEL, left_limits(cdf, grid, False, 0.0))
    assert abs(_covered(y, lo, hi) - LEVEL) <= TOL
    # the central interval ignores the atom: where p0 > 5% it holds 95%
    lo_c, hi_c = cdf_interval(cdf, grid, LEVEL)
    assert _covered(y, lo_c, hi_c) > LEVEL + TOL
    assert np.all(hi <= hi_c) and np.all(lo == lo_c)


def test_continuous_interval_unchanged_without_atoms():
    rng = np.random.default_rng(1)
    mu = rng.normal(size=N)
    y = mu + rng.normal(size=N)
    grid = np.linspace(-8, 8, 1601)
    cdf = stats.norm.cdf(grid[None, :] - mu[:, None])
    assert left_limits(cdf, grid, False, None) is None
    lo, hi = cdf_interval(cdf, grid, LEVEL)
    assert abs(_covered(y, lo, hi) - LEVEL) <= TOL
    np.testing.assert_allclose(hi - lo, 2 * stats.norm.ppf(0.95), atol=0.01)


def test_ordinal_sets_conservative_and_randomised():
    rng = np.random.default_rng(2)
    y, levels, cdf = _ordinal_items(rng)
    lo, hi = cdf_interval(cdf, levels, LEVEL, left_limits(cdf, levels, True, None))
    padded = np.column_stack([np.zeros(N), cdf])
    i_lo, i_hi = np.searchsorted(levels, lo), np.searchsorted(levels, hi)
    mass = padded[np.arange(N), i_hi + 1] - padded[np.arange(N), i_lo]
    assert np.all(mass >= LEVEL - 1e-12)
    assert abs(_covered(y, lo, hi) - mass.mean()) <= TOL  # whole levels: coverage = mass
    assert _covered(y, lo, hi) > LEVEL + TOL  # ... which is more than 90%
    rlo, rhi = randomize_upper(cdf, levels, lo, hi, LEVEL, np.random.default_rng(3))
    assert abs(_covered(y, rlo, rhi) - LEVEL) <= TOL
    kept = ~np.isnan(rlo)
    assert np.all(rlo[kept] == lo[kept]) and np.all(rhi[kept] <= hi[kept])
    assert np.isnan(rhi[~kept]).all()


@pytest.mark.parametrize("randomised", [False, True])
def test_categorical_top_mass_sets(randomised):
    rng = np.random.default_rng(4)
    logits = rng.normal(0, 1.5, (N, 4))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = (rng.random(N)[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)
    keep = top_mass_sets(probs, LEVEL, np.random.default_rng(5) if randomised else None)
    cover = keep[np.arange(N), y].mean()
    if randomised:
        assert abs(cover - LEVEL) <= TOL
    else:
        claimed = (probs * keep).sum(axis=1)
        assert np.all(claimed >= LEVEL - 1e-12)
        assert abs(cover - claimed.mean()) <= TOL and cover > LEVEL + TOL
