"""Adaptive waves (probabilities fitted on earlier waves' labels): the union-of-waves
weights ``1 - prod_w (1 - p_w)`` bias the pool mean; the wave-by-wave (martingale)
weights of :func:`bacon_bayes.inclusion.sequential_propensity` do not (issue 41)."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.core import mean_core
from bacon_bayes.inclusion import sequential_propensity


def adaptive_sequences(reps: int, n: int = 800, waves: int = 5, per: int = 30, seed: int = 0):
    """Known-truth pools of skewed binary labels and a fixed surrogate (no label enters
    it); the first wave uniform, each later one Poisson with probabilities proportional to
    ``0.8 sd / mean(sd) + 0.2``, ``sd`` the residual sd of the labels so far in quartile
    bins of the score (the package's adaptive rule with a binned sd model)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(reps, n))
    y = (rng.random((reps, n)) < 1 / (1 + np.exp(-(1.5 + 1.2 * x)))).astype(float)
    f = 1 / (1 + np.exp(-(1.2 + x)))
    bins = np.argsort(np.argsort(x, axis=1), axis=1) * 4 // n
    labeled = np.zeros((reps, n), dtype=bool)
    wave, drawn, keep = np.full((reps, n), -1), np.zeros((reps, n)), np.ones((reps, n))
    planned = np.zeros((reps, waves))
    for k in range(waves):
        score = np.ones((reps, n))
        if k:
            r2 = np.where(labeled, (y - f) ** 2, 0.0)
            sd = np.zeros((reps, n))
            for j in range(4):
                inb = bins == j
                s = np.sqrt((r2 * inb).sum(1) / np.maximum((labeled & inb).sum(1), 1))
                sd = np.where(inb, s[:, None], sd)
            score = 0.8 * sd / np.maximum(sd.mean(1, keepdims=True), 1e-12) + 0.2
        p = np.minimum(per * score / (score * ~labeled).sum(1, keepdims=True), 1.0)
        planned[:, k] = (p * ~labeled).sum(1)
        new = ~labeled & (rng.random((reps, n)) < p)
        keep *= 1 - p
        drawn, wave = np.where(new, p, drawn), np.where(new, k, wave)
        labeled |= new
    return y, f, labeled, wave, drawn, 1 - keep, planned


def test_sequential_weights_by_hand() -> None:
    # two waves with 2 and 1 labels (shares 2/3, 1/3): an item of wave 0 drawn with 0.1
    # weighs (2/3) / 0.1 + 1/3 = 7, one of wave 1 drawn with 0.25 weighs (1/3) / 0.25;
    # unlabeled items keep the union
    waves = np.array([0, 0, 1, -1])
    p = np.array([0.1, 0.1, 0.25, np.nan])
    union = np.array([0.3, 0.3, 0.3, 0.4])
    out = sequential_propensity(waves, p, union)
    assert np.allclose(out, [1 / 7, 1 / 7, 0.75, 0.4])
    # planned shares 3:1 instead of the realised 2:1
    out = sequential_propensity(waves, p, union, planned=np.array([3.0, 1.0]))
    assert np.allclose(out[:3], [1 / (0.75 / 0.1 + 0.25), 1 / (0.75 / 0.1 + 0.25), 1 / 1.0])
    # one wave: the wave's own probabilities
    one = sequential_propensity(np.array([0, 0, -1]), p[:3], union[:3])
    assert np.allclose(one, [0.1, 0.1, 0.3])
    with pytest.raises(ValidationError, match=r"\(0, 1\]"):
        sequential_propensity(waves, np.array([0.0, 0.1, 0.2, np.nan]), union)


def test_adaptive_waves_bias_the_union_weights_but_not_the_wave_by_wave_ones() -> None:
    reps = 3000
    y, f, labeled, wave, drawn, union, planned = adaptive_sequences(reps)
    truth, n = y.mean(axis=1), y.shape[1]
    seq = np.stack(
        [sequential_propensity(wave[r], drawn[r], union[r], planned[r]) for r in range(reps)]
    )
    errors, ses = {}, {}
    for name, pi in (("union", union), ("sequential", seq)):
        theta, var, _, _ = mean_core(y, f, np.where(labeled, pi, 1.0), f.sum(1), n, mask=labeled)
        errors[name], ses[name] = theta - truth, np.sqrt(var)
    mc = {k: e.std() / np.sqrt(reps) for k, e in errors.items()}
    # today's union weights: a bias of about a sixth of a standard error (7 Monte Carlo se)
    assert errors["union"].mean() > 4 * mc["union"]
    assert abs(errors["sequential"].mean()) < 3 * mc["sequential"]
    # the variance estimate holds (neither too small nor too large) ...
    ratio = ses["sequential"].mean() / errors["sequential"].std()
    assert 0.95 < ratio < 1.07
    # ... and the price over the (biased) union is small
    assert ses["sequential"].mean() < 1.10 * ses["union"].mean()
    miss = (np.abs(errors["sequential"]) > 1.96 * ses["sequential"]).mean()
    assert 0.035 < miss < 0.075
