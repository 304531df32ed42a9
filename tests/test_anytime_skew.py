"""Hall's term on the skewed side of the pool mean's alpha-spending looks (issue 41): the
early looks read the studentised mean far in its tails, where a skewed pool's misses pile
up on one side (:func:`bacon_bayes.estimate.shape.skew_reach`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.estimate import anytime as at
from bacon_bayes.estimate import shape
from bacon_bayes.estimate.core import mean_core


def _looks(y: np.ndarray, reps: int, looks: int, wave: int, seed: int) -> dict[str, list]:
    """Nested uniform looks of ``wave`` labels each over ``reps`` sequences: per look the
    studentised error, the Student-t look's critical value at the boundary and the
    moments of Hall's term."""
    rng = np.random.default_rng(seed)
    N = y.size
    order = np.argsort(rng.random((reps, N)), axis=1)[:, : looks * wave]
    labels = wave * np.arange(1, looks + 1)
    info = at.effective_labels(labels.astype(float), float(N))
    c = at.spending_critical_values(info, at.obf_spending(labels / labels[-1], 0.05))
    out: dict[str, list] = {"z": [], "c": [], "h": [], "gamma": [], "rho": [], "t": []}
    for k, n in enumerate(labels):
        yl = y[order[:, :n]]
        pi = np.full(yl.shape, n / N)
        theta, var, _, _ = mean_core(yl, np.zeros_like(yl), pi, 0.0, N, lam=1.0)
        g, rho = shape.skew_moments(yl - yl.mean(axis=1, keepdims=True), pi)
        out["z"].append((theta - y.mean()) / np.sqrt(var))
        out["c"].append(c[k])
        out["h"].append(at.studentised(c[k], n - 1.0))
        out["gamma"].append(g)
        out["rho"].append(rho)
        out["t"].append(stats.t.isf(0.025, n - 1.0))
    return out


def test_hall_s_term_holds_a_skewed_pool_s_looks_that_the_symmetric_boundary_misses() -> None:
    # a pool of left-skewed labels (skewness -2.65: rare low ones), 10 looks of 30 labels
    y = 5.0 - np.random.default_rng(0).lognormal(0.0, 0.8, 2000)
    assert stats.skew(y) < -2.5
    s = _looks(y, reps=2000, looks=10, wave=30, seed=1)
    sym = hall = np.zeros(2000, dtype=bool)
    high = np.zeros(2000, dtype=bool)  # symmetric misses with the estimate too high
    for z, c, h, g, rho in zip(s["z"], s["c"], s["h"], s["gamma"], s["rho"], strict=True):
        down, up = shape.skew_reach(c, g, rho)
        sym, high = sym | (np.abs(z) > h), high | (z > h)
        hall = hall | (z > h + down) | (z < -h - up)
    # the symmetric boundary spends too much (0.074), most on the estimate-too-high side
    assert sym.mean() > 0.062
    assert high.mean() > 0.75 * sym.mean()
    # Hall's term: about alpha (0.045; 2,000 sequences: se 0.005), and not too wide (1.16)
    assert 0.035 < hall.mean() < 0.062
    down, up = shape.skew_reach(s["c"][-1], s["gamma"][-1], s["rho"][-1])
    assert np.mean(s["h"][-1] + (down + up) / 2) / s["t"][-1] < 1.25


def test_skew_moments_are_the_residuals_skewness_over_root_n_at_a_small_fraction() -> None:
    r = np.random.default_rng(2).gamma(2.0, size=400)
    r = r - r.mean()
    g, rho = shape.skew_moments(r, np.full(r.size, 1e-4))
    assert np.isclose(g, stats.skew(r) / np.sqrt(r.size), rtol=1e-3)
    assert np.isclose(rho, g, rtol=1e-3)
    # the finite-population factors: (1 - 2 pi) / sqrt(1 - pi) and sqrt(1 - pi)
    g2, rho2 = shape.skew_moments(r, np.full(r.size, 0.2))
    assert np.isclose(g2 / g, 0.6 / np.sqrt(0.8), rtol=1e-3)
    assert np.isclose(rho2 / g, np.sqrt(0.8), rtol=1e-3)
    # no skewness, no reach; the reach only ever moves one end, outward: Hall's
    # ``gamma (2 c^2 + 1) / 6`` at a small fraction
    assert shape.skew_reach(3.0, 0.0, 0.0) == (0.0, 0.0)
    down, up = shape.skew_reach(3.0, -0.05, -0.05)
    assert np.isclose(down, 0.05 * 19 / 6) and up == 0.0


def _skewed_pool(seed: int = 4, n: int = 900, waves: int = 6) -> EvalPool:
    rng = np.random.default_rng(seed)
    y = 5.0 - rng.lognormal(0.0, 0.7, n)
    wave = np.full(n, np.nan)
    wave[rng.permutation(n)[: 30 * waves]] = np.repeat(np.arange(1, waves + 1), 30)
    frame = pd.DataFrame(
        {
            "y": np.where(np.isfinite(wave), y, np.nan),
            "j1": y + rng.normal(0, 0.3, n) + 0.5 * (y < 2),
            "j2": y + rng.normal(0.2, 0.5, n),
            "wave": wave,
        }
    )
    return EvalPool.from_frame(
        frame, label="y", judges=["j1", "j2"], outcome="continuous", wave="wave"
    )


def test_the_calibrator_s_alpha_spending_mean_reaches_out_on_the_skewed_side_only() -> None:
    cal = Calibrator(engine="freq", seed=0).fit(_skewed_pool())
    e = cal.estimate_mean(anytime=True, max_labels=300)
    note = e.details["anytime"]
    assert note["correlation"] == at.OWN_CORRELATION
    skew = note["skew"]
    assert skew["skewness"] < 0 and skew["covariance"] < 0 and skew["reach"] > 0
    # the symmetric interval at the same boundary, and the reach down on top of it
    sym = at.anytime_estimate(
        cal.estimate_mean(), note["labels_at_looks"], cal.pool_.n_items, max_labels=300,
        info=None, cosines=np.asarray(note["cosines"]),
    )  # fmt: skip
    assert np.isclose(e.ci_high, sym.ci_high)
    assert np.isclose(sym.ci_low - e.ci_low, skew["reach"] * e.se)
    # the fixed interval keeps its own, and a confidence sequence takes no reach
    assert "anytime" not in cal.estimate_mean().details
    cs = cal.estimate_mean(anytime=True)
    assert "skew" not in cs.details["anytime"]
    assert np.isclose(cs.estimate - cs.ci_low, cs.ci_high - cs.estimate)
