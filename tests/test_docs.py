"""The README's figures are the ones BENCHMARKS.md measured (no drift between the two)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_timing_in_the_readme_is_in_benchmarks():
    readme = (ROOT / "README.md").read_text()
    benchmarks = (ROOT / "BENCHMARKS.md").read_text()
    timings = re.findall(r"\b\d[\d,]*(?:\.\d+)? s\b", readme)
    assert timings, "the README quotes its speed figures from BENCHMARKS.md"
    missing = [t for t in timings if t not in benchmarks]
    assert not missing, f"README timings not in BENCHMARKS.md: {missing}"
