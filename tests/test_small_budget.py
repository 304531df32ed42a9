"""The frequentist engine's small-budget default (issue 35): which surrogates the AEE
means use at which label counts, and that the default is not worse than the ridge alone
at 40 labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes import surrogates as sur

JUDGES = [f"j{k}" for k in range(9)]


@pytest.mark.parametrize(
    ("labels", "coefficients", "expected"),
    [
        (36, 9, ("judge_pc1", "no_model")),  # 4 labels per coefficient
        (71, 9, ("judge_pc1", "no_model")),  # 7.9
        (72, 9, ()),  # 8: the model's surrogate alone
        (180, 9, ()),
        (120, 18, ("judge_pc1", "no_model")),  # 6.7
    ],
)
def test_rule_by_labels_per_coefficient(labels, coefficients, expected):
    assert sur.freq_default(labels, coefficients) == expected
    assert sur.resolve(None, "ridge", "freq", labels=(labels, coefficients)) == expected


def test_rule_applies_to_the_frequentist_default_only():
    small = (36, 9)
    assert sur.resolve(None, "ridge", "freq") == ()  # no label count: no rule
    assert sur.resolve(None, "ridge", "freq", judge_mean=False, labels=small) == ()
    assert sur.resolve(None, "gaussian", "bayes", labels=small) == ("judge_mean",)
    assert sur.resolve([], "ridge", "freq", labels=small) == ()  # asked for: kept
    assert sur.resolve(["judge_mean"], "hurdle", "freq", labels=small) == ("judge_mean",)


def _table(rng: np.random.Generator, n: int = 1000) -> pd.DataFrame:
    """Judges of equal quality on a 1-5 scale (a shared bias, own noise), label = truth
    plus noise: the setting where a dozen labels per judge cannot learn the weights."""
    truth = rng.normal(3.0, 0.7, n)
    frame = pd.DataFrame({
        j: truth + rng.normal(0.2 * k / 8, 0.8, n) for k, j in enumerate(JUDGES)
    })  # fmt: skip
    frame["y"] = truth + rng.normal(0.0, 0.4, n)
    return frame


def test_default_is_not_worse_than_the_ridge_at_40_labels():
    """Over 100 draws of 40 labels from one simulated pool of 1,000 items, the default's
    AEE (the judges' first principal component alone here: 40 / 9 < 8 labels per
    coefficient) has an RMSE no larger than the cross-fitted ridge's alone, and its
    95% intervals cover in the binomial band."""
    rng = np.random.default_rng(35)
    frame = _table(rng)
    truth = float(frame["y"].mean())
    err = {"default": [], "ridge": []}
    cover = []
    for draw in range(100):
        data = frame.copy()
        hidden = np.ones(len(data), dtype=bool)
        hidden[rng.choice(len(data), 40, replace=False)] = False
        data.loc[hidden, "y"] = np.nan
        pool = EvalPool.from_frame(data, label="y", judges=JUDGES, outcome="continuous")
        cal = Calibrator(engine="freq", seed=draw).fit(pool)
        assert tuple(cal.extras_) == ("judge_pc1", "no_model")
        e = cal.estimate_mean()
        err["default"].append(e.estimate - truth)
        cover.append(e.ci_low <= truth <= e.ci_high)
        ridge = Calibrator(engine="freq", seed=draw, surrogates=[]).fit(pool)
        err["ridge"].append(ridge.estimate_mean().estimate - truth)
    rmse = {k: float(np.sqrt(np.mean(np.square(v)))) for k, v in err.items()}
    assert rmse["default"] <= rmse["ridge"], rmse
    assert 0.88 <= np.mean(cover) <= 1.0
