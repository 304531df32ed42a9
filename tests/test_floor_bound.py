"""benchmarks/floor_bound.py's side-dependent floor (issue 40): the exact miss formula
against simulation, and the chosen ``(k_near, k_far)`` both ways: the worst truth is
covered at ``1 - level`` (within Monte Carlo error, not above it), and today's symmetric
floor is wider than it needs; and what the side adds over the least
symmetric floor with the same guarantee."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from benchmarks import floor_bound as fb

LEVEL = 0.10  # floor_alpha(0.05)
# (w, h): shrinkage weight and EB half-width in own sd, as the shrunk tables give them
TYPICAL = [(0.3, 0.9), (0.5, 1.2), (0.7, 1.6)]


def _simulate(delta, w, h, k_near, k_far, df=np.inf, n=200_000, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(n) if not np.isfinite(df) else rng.standard_t(df, n)
    o = delta + z
    k_up, k_down = np.where(o >= 0, k_far, k_near), np.where(o >= 0, k_near, k_far)
    low = np.minimum(w * o - h, o - k_down)
    high = np.maximum(w * o + h, o + k_up)
    return float(((delta < low) | (delta > high)).mean())


@pytest.mark.parametrize(
    ("delta", "w", "h", "kn", "kf", "df"),
    [(1.5, 0.5, 1.0, 0.5, 1.8, np.inf), (-0.7, 0.3, 0.8, 0.0, 2.0, np.inf),
     (3.0, 0.9, 1.6, 1.0, 1.5, 5.0), (0.0, 0.5, 1.0, 0.5, 1.8, 3.0)],
)  # fmt: skip
def test_side_miss_is_exact(delta, w, h, kn, kf, df):
    exact = float(fb.side_miss(delta, w, h, kn, kf, df))
    sim = _simulate(delta, w, h, kn, kf, df)
    assert abs(sim - exact) < 4.0 * np.sqrt(exact * (1 - exact) / 200_000) + 1e-4


@pytest.mark.parametrize(("w", "h"), TYPICAL)
@pytest.mark.parametrize("df", [np.inf, 6.0])
def test_side_floor_guarantee_both_ways(w, h, df):
    kn, kf = fb.side_floor(w, h, LEVEL, df)
    worst = fb.DELTAS[np.argmax(fb.side_miss(fb.DELTAS, w, h, kn, kf, df))]
    sim = _simulate(worst, w, h, kn, kf, df)
    tol = 4.0 * np.sqrt(LEVEL * (1 - LEVEL) / 200_000)
    assert sim <= LEVEL + tol  # the guarantee holds at the worst truth
    assert sim >= LEVEL - 0.01  # and the floor is not wider than it needs
    k_sym = float(stats.t.ppf(1 - LEVEL / 2, df)) if np.isfinite(df) else special.ndtri(0.95)
    assert kn + kf < 2.0 * k_sym - 0.3  # narrower than today's symmetric floor
    # today's floor holds the guarantee with room to spare at the same truth
    assert _simulate(worst, w, h, k_sym, k_sym, df) < LEVEL - 0.01


def test_most_of_the_gain_is_not_the_side():
    """The least symmetric floor with the same guarantee reaches about the one-sided
    quantile (far out only one side can miss: the shrunk interval lies toward the centre);
    the side-dependent one is narrower only where the shrunk interval covers the near side
    (``h / w`` large), and there it drops the near side."""
    z1 = special.ndtri(1 - LEVEL)
    for w, h in TYPICAL:
        k = fb.symmetric_floor(w, h, LEVEL)
        assert z1 <= k < z1 + 0.1
        assert fb.side_worst(w, h, k - 0.02, k - 0.02) > LEVEL  # the least
    kn, kf = fb.side_floor(0.7, 1.96, LEVEL)
    assert kn == 0.0 and kf == pytest.approx(z1, abs=0.01)
    kn, kf = fb.side_floor(0.3, 0.9, LEVEL)
    assert abs(kn + kf - 2.0 * fb.symmetric_floor(0.3, 0.9, LEVEL)) < 0.05


def test_side_floor_falls_back_to_symmetric():
    """A narrow EB part (little help anywhere) leaves today's symmetric floor."""
    kn, kf = fb.side_floor(0.5, 0.2, LEVEL)
    assert kn == kf == pytest.approx(special.ndtri(0.95))
