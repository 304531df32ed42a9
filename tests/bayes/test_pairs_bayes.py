"""The Bayesian engine as the surrogate of a pairwise pool (issue 44): Bradley-Terry
intervals from its cross-fitted E[y], and the per-judge pairwise terms it implies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator
from bacon_bayes.bayes.pairwise import pairwise_judge_terms
from bacon_bayes.errors import ValidationError
from bacon_bayes.pool import EvalPool

SAMPLE = Path(__file__).resolve().parents[2] / "bacon_bayes" / "data" / "arena_sample.csv.gz"
JUDGES = ["gpt4", "claude3_opus", "gpt35"]


@pytest.fixture(scope="session")
def arena_pool() -> EvalPool:
    df = pd.read_csv(SAMPLE)  # 3,000 comparisons of 20 models, 400 human votes
    # a uniform 1,200 of them (about 160 votes, as drawn): a small NUTS fit for make test
    df = df.sample(1200, random_state=0)
    return EvalPool.from_pairs(df, model_a="model_a", model_b="model_b", label="label",
                               judges=JUDGES)  # fmt: skip


@pytest.fixture(scope="session")
def pairs_bayes(arena_pool: EvalPool) -> Calibrator:
    """One real fit of the Bayesian engine on the shipped pairs sample (NUTS)."""
    return Calibrator(engine="bayes", seed=0, folds=2).fit(arena_pool)


def test_bayes_surrogate_gives_bradley_terry_intervals(pairs_bayes, arena_pool) -> None:
    assert pairs_bayes.engine_ == "bayes"
    f = pairs_bayes.surrogate_
    assert f.shape == arena_pool.y.shape and np.all((f >= 0) & (f <= 1))
    aee = pairs_bayes.estimate_bradley_terry()
    alone = pairs_bayes.estimate_bradley_terry(method="labels")
    assert aee.method == "aee" and len(aee.estimate) == 20
    assert np.all(np.isfinite(aee.ci_low)) and np.all(aee.ci_low < aee.estimate)
    assert np.all(aee.estimate < aee.ci_high)
    # the surrogate carries information: narrower than the labels alone, not collapsed
    ratio = np.mean(aee.ci_high - aee.ci_low) / np.mean(alone.ci_high - alone.ci_low)
    assert 0.7 < ratio < 1.0, ratio
    sim = pairs_bayes.estimate_bradley_terry(simultaneous=True)
    assert np.all(sim.ci_high - sim.ci_low > aee.ci_high - aee.ci_low)


def test_pairwise_judge_terms(pairs_bayes, arena_pool) -> None:
    t = pairwise_judge_terms(pairs_bayes, level=0.9).set_index("judge")
    assert list(t.index) == JUDGES
    assert {m.family for m in pairs_bayes.crossfit_.models} == {"pairwise"}
    for k in ("position_bias", "discrimination", "tie_propensity", "tie_rate"):
        assert np.all(t[f"{k}_low"] <= t[k]) and np.all(t[k] <= t[f"{k}_high"]), k
    # GPT-3.5 says "A" on most comparisons: the largest lean to the first answer, and
    # clearly above GPT-4's
    assert t["position_bias"].idxmax() == "gpt35"
    assert t.loc["gpt35", "position_bias_low"] > t.loc["gpt4", "position_bias_high"]
    assert np.all(t["discrimination"] > 0)
    ties = (arena_pool.judge_matrix().to_numpy() == 0.5).mean(axis=0)
    np.testing.assert_allclose(t["tie_rate"].to_numpy(), ties)
    # GPT-3.5 almost never says tie: the model's tie propensity (a parameter, at the
    # typical comparison) is clearly the lowest, as its observed tie rate is
    assert t["tie_rate"].idxmin() == t["tie_propensity"].idxmin() == "gpt35"
    assert t.loc["gpt35", "tie_propensity_high"] < t["tie_propensity_low"].drop("gpt35").min()


def test_pairwise_judge_terms_need_the_bayesian_engine_on_pairs(arena_pool) -> None:
    freq = Calibrator(engine="freq", folds=2).fit(arena_pool)
    with pytest.raises(ValidationError, match="engine='bayes'"):
        pairwise_judge_terms(freq)
    with pytest.raises(ValidationError, match="level"):
        pairwise_judge_terms(freq, level=1.5)
