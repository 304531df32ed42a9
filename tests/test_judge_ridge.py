"""The judges' leave-one-out ridge (``surrogates=["judge_ridge"]``,
:mod:`bacon_bayes.judge_ridge`): exact leave-one-out fits, the crossfit rule for the
other items, and an unbiased AEE mean whose intervals cover, on simulated data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool, judge_ridge
from bacon_bayes import surrogates as sur
from bacon_bayes.estimate.mean import aee_mean

JUDGES = [f"j{k}" for k in range(5)]


def _table(rng: np.random.Generator, n: int = 600) -> pd.DataFrame:
    """Judges of unequal quality and scale (one nearly useless, one on another scale),
    a skewed label: the surrogate must not be calibrated by construction."""
    truth = rng.gamma(2.0, 0.5, n)
    frame = pd.DataFrame({
        "j0": truth + rng.normal(0.0, 0.3, n),
        "j1": 10 * truth + rng.normal(0.0, 6.0, n),
        "j2": truth**2 + rng.normal(0.0, 0.5, n),
        "j3": rng.normal(0.0, 1.0, n) + 0.1 * truth,
        "j4": np.round(truth + rng.normal(0.0, 0.5, n)),
    })  # fmt: skip
    frame["y"] = truth + rng.normal(0.0, 0.3, n)
    return frame


def _pool(frame: pd.DataFrame, labeled: np.ndarray, **kw) -> EvalPool:
    data = frame.copy()
    data.loc[~labeled, "y"] = np.nan
    return EvalPool.from_frame(data, label="y", judges=JUDGES, outcome="continuous", **kw)


def test_leave_one_out_fits_are_exact_and_the_others_get_their_average():
    rng = np.random.default_rng(0)
    frame = _table(rng, 200)
    labeled = np.zeros(200, dtype=bool)
    labeled[rng.choice(200, 25, replace=False)] = True
    pool = _pool(frame, labeled)
    fit = judge_ridge.fit(pool, sur.judge_pc1(pool))
    A, y = fit.X, pool.y
    pen = np.diag(np.r_[0.0, 0.0, np.ones(A.shape[1] - 2)]) * judge_ridge.PENALTY
    coefs = []
    for i in np.flatnonzero(labeled):  # refit without item i, by brute force
        train = labeled.copy()
        train[i] = False
        beta = np.linalg.solve(A[train].T @ A[train] + pen, A[train].T @ y[train])
        coefs.append(beta)
        assert fit.mean[i] == pytest.approx(A[i] @ beta, abs=1e-9)
    average = A @ np.mean(coefs, axis=0)
    np.testing.assert_allclose(fit.mean[~labeled], average[~labeled], atol=1e-9)
    # one domain: the pool's shares; two domains: each its own labels' average
    np.testing.assert_allclose(fit.surrogate(np.zeros(200)), fit.mean, atol=1e-12)
    half = np.arange(200) % 2
    inner = [k for k, i in enumerate(np.flatnonzero(labeled)) if half[i] == 0]
    own = A @ np.mean(np.array(coefs)[inner], axis=0)
    rows = (~labeled) & (half == 0)
    np.testing.assert_allclose(fit.surrogate(half)[rows], own[rows], atol=1e-9)


def test_the_aee_mean_with_it_is_unbiased_and_covers():
    """Over 300 draws of 40 labels from one simulated pool, the AEE mean with the judges'
    ridge alone (weight 1) has a bias within 0.15 of its sd and its 90% intervals cover
    in the 99% binomial band [0.845, 0.955]: neither short nor needlessly long; its RMSE
    is below the labels-alone mean's."""
    rng = np.random.default_rng(35)
    frame = _table(rng)
    truth = float(frame["y"].mean())
    err, cover, plain = [], [], []
    pc = sur.judge_pc1(_pool(frame, np.ones(len(frame), dtype=bool)))
    for _ in range(300):
        labeled = np.zeros(len(frame), dtype=bool)
        labeled[rng.choice(len(frame), 40, replace=False)] = True
        pool = _pool(frame, labeled)
        fit = judge_ridge.fit(pool, pc)
        e = aee_mean(pool.y, fit.mean, alpha=0.1, power_tuning=False)
        err.append(e.estimate - truth)
        cover.append(e.ci_low <= truth <= e.ci_high)
        plain.append(float(np.nanmean(pool.y)) - truth)
    err = np.array(err)
    assert abs(err.mean()) < 0.15 * err.std()
    assert 0.845 <= np.mean(cover) <= 0.955, np.mean(cover)
    assert np.sqrt(np.mean(err**2)) < 0.8 * np.sqrt(np.mean(np.square(plain)))


def test_calibrator_uses_it_with_the_weight_one_in_means_groups_and_the_next_round(tmp_path):
    rng = np.random.default_rng(1)
    frame = _table(rng, 400)
    frame["g"] = np.where(np.arange(400) % 2 == 0, "a", "b")
    labeled = np.zeros(400, dtype=bool)
    labeled[rng.choice(400, 60, replace=False)] = True
    pool = _pool(frame, labeled, group="g")
    cal = Calibrator(engine="freq", seed=0, surrogates=["judge_ridge", "no_model"]).fit(pool)
    assert sur.tuned(cal.extras_, True) is False
    e = cal.estimate_mean()
    assert e.details["power_lambda"] == 1.0
    assert e.details["surrogates"] == ["ridge (freq), not in the means", "judge_ridge"]
    fit = cal.extras_["judge_ridge"]
    expected = aee_mean(pool.y, fit.mean, power_tuning=False)
    assert e.estimate == pytest.approx(expected.estimate)
    table = cal.estimate_groups(simultaneous=False, interval="t")
    assert np.isfinite(np.asarray(table.estimate)).all()
    back = Calibrator.load(cal.save(tmp_path / "cal.nc"))  # refitted on load: the same
    assert back.estimate_mean().estimate == pytest.approx(e.estimate)
    # beside the model's surrogate the weights are tuned as usual
    both = Calibrator(engine="freq", seed=0, surrogates=["judge_ridge"]).fit(pool)
    assert sur.tuned(both.extras_, True) is True
    # the next round: refitted on the new pool's labels (leave-one-out there)
    new_lab = np.zeros(400, dtype=bool)
    new_lab[rng.choice(400, 30, replace=False)] = True
    nxt = cal.apply(_pool(_table(np.random.default_rng(2), 400).assign(g="a"), new_lab,
                          group="g"))  # fmt: skip
    assert nxt.extras_["judge_ridge"].labeled.sum() == 30
    assert np.isfinite(nxt.estimate_mean().estimate)


def test_with_prompts_it_leaves_one_prompt_out():
    """Items answering the same prompt share a fold: each labeled item's surrogate is the
    fit without every labeled item of its prompt (brute force)."""
    rng = np.random.default_rng(3)
    frame = _table(rng, 120)
    frame["prompt"] = np.arange(120) // 3
    labeled = np.zeros(120, dtype=bool)
    labeled[rng.choice(120, 30, replace=False)] = True
    pool = _pool(frame, labeled, prompt="prompt")
    fit = judge_ridge.fit(pool, sur.judge_pc1(pool))
    A, y = fit.X, pool.y
    pen = np.diag(np.r_[0.0, 0.0, np.ones(A.shape[1] - 2)]) * judge_ridge.PENALTY
    for i in np.flatnonzero(labeled):
        train = labeled & (frame["prompt"].to_numpy() != frame["prompt"].iloc[i])
        beta = np.linalg.solve(A[train].T @ A[train] + pen, A[train].T @ y[train])
        assert fit.mean[i] == pytest.approx(A[i] @ beta, abs=1e-9)
    assert len(np.unique(fit.fold_ids[labeled])) == len(set(frame["prompt"][labeled]))
