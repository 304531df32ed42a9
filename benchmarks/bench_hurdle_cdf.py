"""The Bayesian hurdle's predictive CDF: closed form (compiled) vs Gauss-Hermite quadrature.

``HurdleJudgeModel._cdf`` (behind posterior item intervals, quantile estimates and the
streaming CDF) gives ``P(y <= t)`` per posterior draw, item and threshold. Until the
eleventh session it was a Python loop over the thresholds of 40-point Gauss-Hermite
quadrature over the latent z (numpy); it is now a bivariate normal CDF in closed form,
compiled (:func:`bacon_bayes.bayes.hurdle.hurdle_cdf`). Both run here on the same
simulated draws x items (latent moments and link parameters of WMT22's order, square-root
scale, 30 thresholds), the old one as the baseline in this process; printed: seconds,
the ratio, nanoseconds per (draw, item, threshold) and the largest difference.

Run: ``python -m benchmarks hurdle_cdf`` (``make bench``).
"""

from __future__ import annotations

import time

import numpy as np
from scipy import special

from bacon_bayes.bayes.hurdle import hurdle_cdf

DRAWS, ITEMS, THRESHOLDS = 200, 500, 30


def gauss_hermite_cdf(m, v, g0, g1, h0, h1, s, t, sqrt):
    """The earlier implementation: 40-point Gauss-Hermite over z, a loop over ``t``."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    weights = weights / weights.sum()
    z = m[..., None] + np.sqrt(v)[..., None] * nodes
    p_pos = special.ndtr(g0[..., None] + g1[..., None] * z)
    out = np.empty((*m.shape, t.size))
    with np.errstate(divide="ignore"):
        lt = np.sqrt(np.maximum(t, 0.0)) if sqrt else np.log(np.maximum(t, 0.0))
    for k, (tk, ltk) in enumerate(zip(t, lt, strict=True)):
        if tk < 0:
            out[..., k] = 0.0
            continue
        centre = h0[..., None] + h1[..., None] * z
        below = special.ndtr((ltk - centre) / s[..., None])
        if sqrt:
            below = below - special.ndtr((-ltk - centre) / s[..., None])
        out[..., k] = ((1 - p_pos) + p_pos * below) @ weights
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    shape = (DRAWS, ITEMS)
    m = rng.normal(0, 1, shape)
    v = rng.uniform(0.05, 0.4, shape)

    def per_draw(lo, hi):
        return np.broadcast_to(rng.uniform(lo, hi, (DRAWS, 1)), shape).copy()

    g0, g1, h0, h1, s = (
        per_draw(-0.5, 0.5), per_draw(0.8, 1.2), per_draw(1.0, 2.0),
        per_draw(0.4, 0.8), per_draw(0.6, 1.0),
    )  # fmt: skip
    t = np.concatenate([[-1.0, 0.0], np.quantile(rng.gamma(1.5, 4.0, 5000), np.linspace(0, 1, 28))])
    args = (m, v, g0, g1, h0, h1, s, t, True)
    hurdle_cdf(*(a[:1, :1] for a in args[:7]), t, True)  # compile (or load) it first
    start = time.perf_counter()
    old = gauss_hermite_cdf(*args)
    base = time.perf_counter() - start
    start = time.perf_counter()
    new = hurdle_cdf(*args)
    secs = time.perf_counter() - start
    per = 1e9 / (DRAWS * ITEMS * t.size)
    print(
        f"{DRAWS} draws x {ITEMS} items x {t.size} thresholds (square-root scale): "
        f"Gauss-Hermite (baseline) {base:.2f} s = {base * per:.0f} ns each; closed form "
        f"{secs:.3f} s = {secs * per:.0f} ns each; ratio {secs / base:.3f} "
        f"({base / secs:.0f}x faster); largest difference {np.abs(new - old).max():.1e}"
    )


if __name__ == "__main__":
    main()
