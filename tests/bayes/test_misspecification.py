"""Validity of AEE intervals when the Bayesian surrogate is deliberately wrong (``make validate``).

The AEE estimator corrects the surrogate with out-of-fold residuals, so its pool-mean
interval should hold at the nominal rate whatever the judge model gets wrong. Three
fixed pools (drawn once, as in :mod:`bacon_bayes.simulation.regimes`), each with a model that
does not match how the data were made:

* ``nonlinear_bias``: Gaussian model; judges see the quality through a cubic, a
  sigmoid, a threshold and a U-shaped (non-monotone) bias.
* ``zero_inflated_as_gaussian``: Gaussian model on hurdle labels (about 40% zeros,
  log-normal positives): wrong family.
* ``ordinal_rounded``: ordered-probit model on labels that are a skewed continuous
  quality (exponential of the latent plus logistic noise) rounded to 1..5 at uneven
  cut points, judged with Student-t noise: wrong link and wrong noise.
* ``ordinal_group_bias``: ordered-probit model on labels 1..5 from four groups of
  items, judged by judges whose bias differs by group (the model has one bias per
  judge): a judge bias the model cannot express.

Every replicate draws a new label sample and runs the whole library path
(``EvalPool`` -> ``Calibrator`` -> 5-fold NUTS cross-fit -> ``estimate_mean``) with
the models' default sampler settings, as users get them, and every fold's R-hat must
be at most 1.01 (converged). The model is compiled once per family and shape and
reused (``JudgeModel._compile`` hook), and its seed is fixed per pool: the judge
model's stage 1 sees the judge scores only, which every draw of a pool shares, so it
is sampled once per pool and each draw refits the label link (stage 2), as a user
refitting a pool with other labels would. The four pools run in two processes
(joblib). Coverage is held to the two-sided 99.9% binomial band around nominal per
pool and over the pooled replicates; the bias to the known pool mean must lie within
3.29 Monte Carlo SEs. Writes its table to ``VALIDATION.md`` (own section).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from joblib import Parallel, delayed

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.bayes import GaussianJudgeModel, OrdinalJudgeModel
from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.features import build_features
from bacon_bayes.simulation import regimes as sim

from .conftest import write_section

pytestmark = pytest.mark.slow

N_ITEMS, N_LABELED, N_EMB = 400, 80, 2
REPS = 200  # per pool; each replicate is a 5-fold NUTS cross-fit
ALPHAS = (0.1, 0.05)
RHAT_MAX = 1.01  # every fold of every draw
LEVELS = [1.0, 2.0, 3.0, 4.0, 5.0]
N_GROUPS = 4
#: judge x group bias of ``ordinal_group_bias`` (on the latent scale, sd about 1.1)
GROUP_BIAS = np.array(
    [[0.8, 0.0, -0.5, 0.2], [-0.6, 0.4, 0.0, 0.6], [0.0, -0.8, 0.8, 0.0], [0.5, 0.5, -0.5, -0.5]]
)
NOTES = (
    "Reading: with 200 draws per pool a row fails when its coverage leaves the 99.9% band "
    "in either direction; the pooled rows (800 draws) have the narrowest bands. This study "
    "replaces earlier runs (70 draws per pool, short unconverged chains: median fold R-hat "
    "about 1.05). Its first run at default settings (2026-11-26, before a fold whose label "
    "link missed R-hat <= 1.01 was sampled again) had every coverage row in band (pooled "
    "0.885 at alpha 0.1, 0.943 at 0.05) but 11 of 4,000 folds at R-hat 1.0105-1.0139; the "
    "longer second run of the label stage is what the library now does by default."
)
SECTION = "## Bayesian surrogate under misspecification"


def shared_sampler(cls: type) -> type:
    """``cls`` with one compiled sampler per data shape, reused by every later fit."""
    cache: dict = {}

    class Shared(cls):
        def _compile(self, kind, arrays, labels):
            shapes = tuple((k, np.shape(v)) for k, v in sorted({**arrays, **labels}.items()))
            key = (kind, shapes)
            if key not in cache:
                cache[key] = super()._compile(kind, arrays, labels)
            return cache[key]

    Shared.__name__ = f"Shared{cls.__name__}"
    return Shared


SharedGaussian = shared_sampler(GaussianJudgeModel)
SharedOrdinal = shared_sampler(OrdinalJudgeModel)


def _latent(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    E = rng.normal(size=(n, N_EMB))
    return E, E @ np.array([0.4, -0.3]) + 0.9 * rng.normal(size=n)


def make_pool(name: str, seed: int = 0) -> sim.Regime:
    """One of the misspecified pools (``X`` = 4 judge columns, then the embedding)."""
    rng = np.random.default_rng(seed)
    n = N_ITEMS
    E, z = _latent(rng, n)
    if name == "nonlinear_bias":
        y = 3.0 + z + rng.normal(0, 0.5, n)
        judges = [
            1.0 + 0.4 * z**3 + rng.normal(0, 0.5, n),
            5.0 / (1.0 + np.exp(-2.5 * (z - 0.3))) + rng.normal(0, 0.4, n),
            2.0 + 2.0 * (z > 0.5) + rng.normal(0, 0.6, n),
            0.5 * z + 0.5 * z**2 + rng.normal(0, 0.5, n),
        ]
    elif name == "zero_inflated_as_gaussian":
        positive = rng.random(n) < 1.0 / (1.0 + np.exp(-(0.3 + 1.2 * z)))
        y = np.where(positive, np.exp(0.5 + 0.6 * z + rng.normal(0, 0.5, n)), 0.0)
        judges = [a + b * z + rng.normal(0, s, n) for a, b, s in _LINEAR]
    elif name == "ordinal_rounded":
        quality = np.exp(0.6 * z) + rng.logistic(0, 0.25, n)
        y = 1.0 + np.searchsorted([0.6, 0.9, 1.6, 2.8], quality).astype(float)
        judges = [a + b * z + s * rng.standard_t(3, n) for a, b, s in _LINEAR]
    elif name == "ordinal_group_bias":
        g = np.arange(n) % N_GROUPS
        quality = z + 0.3 * (g - 1.5) + rng.logistic(0, 0.3, n)
        y = 1.0 + np.searchsorted([-1.2, -0.4, 0.4, 1.2], quality).astype(float)
        judges = [
            a + b * z + GROUP_BIAS[j, g] + rng.normal(0, s, n)
            for j, (a, b, s) in enumerate(_LINEAR)
        ]
        X = np.column_stack([*judges, E])
        return sim.Regime(name, X, y, g, n_labeled=N_LABELED)
    else:  # pragma: no cover - programming error
        raise ValueError(name)
    X = np.column_stack([*judges, E])
    return sim.Regime(name, X, y, np.zeros(n, dtype=int), n_labeled=N_LABELED)


_LINEAR = [(0.5, 0.9, 0.5), (1.0, 0.6, 0.7), (-0.3, 1.2, 1.0), (4.0, -0.8, 0.8)]
POOLS = {
    "nonlinear_bias": ("continuous", SharedGaussian),
    "zero_inflated_as_gaussian": ("continuous", SharedGaussian),
    "ordinal_rounded": ("ordinal", SharedOrdinal),
    "ordinal_group_bias": ("ordinal", SharedOrdinal),
}


def _frame(regime: sim.Regime, mask: np.ndarray) -> pd.DataFrame:
    df = pd.DataFrame(regime.X[:, :4], columns=[f"j{k + 1}" for k in range(4)])
    for k in range(N_EMB):
        df[f"e{k + 1}"] = regime.X[:, 4 + k]
    df["y"] = np.where(mask, regime.y, np.nan)
    return df


def pool_coverage(name: str, reps: int = REPS) -> tuple[list[sim.Coverage], dict]:
    """Coverage of the AEE (and classical) pool-mean interval over ``reps`` label draws."""
    kind, model_cls = POOLS[name]
    regime = make_pool(name)
    mask, _ = sim.draw_samples(regime, reps, seed=7)
    levels = LEVELS if kind == "ordinal" else None
    rows: dict = {(a, m): [] for a in ALPHAS for m in ("aee", "classical")}
    rhat, start = [], time.perf_counter()
    model = None
    for r in range(reps):
        pool = EvalPool.from_frame(
            _frame(regime, mask[r]),
            label="y",
            judges=[f"j{k + 1}" for k in range(4)],
            outcome=kind,
            levels=levels,
            embedding=[f"e{k + 1}" for k in range(N_EMB)],
        )
        if model is None:  # features do not depend on labels: one spec for every draw
            spec = ColumnSpec.from_features(build_features(pool, n_components=N_EMB))
            extra = {"levels": levels} if kind == "ordinal" else {}
            model = model_cls(spec, seed=1000, **extra)  # default sampler settings
        cal = Calibrator(model, seed=r, n_components=N_EMB).fit(pool)
        rhat.extend(m.diagnostics_.max_rhat for m in cal.crossfit_.models)
        for (alpha, method), vals in rows.items():
            e = cal.estimate_mean(alpha, method)
            vals.append((e.estimate, e.ci_low, e.ci_high))
        if (r + 1) % 10 == 0:  # progress (shown with pytest -s)
            print(f"{name}: {r + 1}/{reps} draws, {time.perf_counter() - start:.0f} s", flush=True)
    out = []
    for (alpha, method), vals in rows.items():
        a = np.array(vals)
        out.append(
            sim._summary(name, "mean", method, alpha, a[:, 0], a[:, 1], a[:, 2], regime.y.mean())
        )
    info = {
        "seconds": time.perf_counter() - start,
        "rhat": np.array(rhat),
        "raw": rows,
        "truth": regime.y.mean(),
    }
    return out, info


def pooled(infos: dict, alpha: float) -> sim.Coverage:
    """Coverage over all pools' replicates together (each against its own truth)."""
    est, lo, hi = [], [], []
    for info in infos.values():
        a = np.array(info["raw"][(alpha, "aee")])
        est.append(a[:, 0] - info["truth"])
        lo.append(a[:, 1] - info["truth"])
        hi.append(a[:, 2] - info["truth"])
    cat = [np.concatenate(v) for v in (est, lo, hi)]
    return sim._summary("all pools", "mean", "aee", alpha, *cat, 0.0)


def _write_section(results: list[sim.Coverage], infos: dict, seconds: float) -> None:
    lines = [
        SECTION,
        "",
        "Produced by `make validate` (tests/bayes/test_misspecification.py); "
        f"took {seconds:.0f} s on two processes. Pools of {N_ITEMS} items drawn once, "
        f"{N_LABELED} labels per draw, {REPS} draws per pool; Bayesian surrogate "
        "(`Calibrator` with the judge model at its default sampler settings, 5-fold "
        "cross-fit; stage 1, which sees the judge scores only, sampled once per pool, "
        "the label link refitted on every draw; one compiled sampler per family reused). "
        f"Every fold of every draw converged (R-hat <= {RHAT_MAX}, asserted). `ok` = inside "
        "the two-sided 99.9% binomial band around nominal. Classical rows: the labels "
        "alone, for width.",
        "",
        "Pools (the model is wrong on purpose):",
        "- `nonlinear_bias` (gaussian model): judges cubic, sigmoid, threshold and "
        "U-shaped in the quality.",
        "- `zero_inflated_as_gaussian` (gaussian model): about 40% zeros, log-normal positives.",
        "- `ordinal_rounded` (ordinal model): exp(latent) + logistic noise rounded to 1..5 "
        "at uneven cut points; judges with Student-t(3) noise.",
        f"- `ordinal_group_bias` (ordinal model): labels 1..5 from {N_GROUPS} groups of "
        "items; each judge's bias differs by group (up to 1.6 latent units between groups), "
        "the model has one bias per judge.",
        "",
        sim.coverage_table(results),
        "",
        "| pool | seconds | median fold R-hat | largest fold R-hat | folds with R-hat "
        f"> {RHAT_MAX} |",
        "|---|---|---|---|---|",
    ]
    for name, info in infos.items():
        rhat = info["rhat"]
        lines.append(
            f"| {name} | {info['seconds']:.0f} | {np.median(rhat):.4f} | {rhat.max():.4f} "
            f"| {int((rhat > RHAT_MAX).sum())} of {rhat.size} |"
        )
    write_section(SECTION, "\n".join([*lines[2:], "", NOTES]))


def _pool_quietly(name: str) -> tuple[list[sim.Coverage], dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence is asserted below, not warned about
        return pool_coverage(name)


def test_aee_with_misspecified_bayesian_surrogate_keeps_coverage():
    start = time.perf_counter()
    done = Parallel(n_jobs=2)(delayed(_pool_quietly)(name) for name in POOLS)
    results: list[sim.Coverage] = [row for rows, _ in done for row in rows]
    infos = {name: info for name, (_, info) in zip(POOLS, done, strict=True)}
    results.extend(pooled(infos, alpha) for alpha in ALPHAS)
    _write_section(results, infos, time.perf_counter() - start)
    for name, info in infos.items():
        assert info["rhat"].max() <= RHAT_MAX, (name, info["rhat"].max())
    aee = [r for r in results if r.method == "aee"]
    bad = [r for r in aee if not r.in_band]
    assert not bad, sim.coverage_table(bad)
    for r in aee:
        assert abs(r.bias) <= 3.29 * r.bias_se, r
