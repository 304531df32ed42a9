"""benchmarks/plan_bound.py (issue 40 point 4): the share of pilots whose realised power
misses the plan's by more than the band, for the most favourable planner, against
simulation both ways, and the pilot size it names."""

from __future__ import annotations

import pytest

from benchmarks import plan_bound as pb


@pytest.mark.parametrize("d", [35, 119])
def test_exact_share_matches_simulation(d):
    exact = pb.outside_share(d)
    sim = pb.simulated_share(d, 0.8, 0.05, 0.07, reps=100_000, seed=d)
    se = (exact * (1 - exact) / 100_000) ** 0.5
    assert abs(exact - sim) < 4 * se


def test_a_three_percent_pilot_cannot_hold_the_band():
    """36 labels: close to half the pilots miss by more than 0.07 even for a planner that
    knows everything but the variance; the share falls with the pilot, to 0 in the limit."""
    shares = [pb.outside_share(n - 1) for n in (36, 120, 480, 10_000)]
    assert shares[0] == pytest.approx(0.45, abs=0.01)
    assert shares == sorted(shares, reverse=True) and shares[-1] < 1e-6
    need = pb.pilot_needed(0.1, 0.8, 0.05, 0.07)
    assert pb.outside_share(need - 1) <= 0.1 < pb.outside_share(need - 2)
