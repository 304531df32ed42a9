"""Model options chosen per fit from its training labels: the hurdle's positive scale
(log or square root) and the label link's own judge weights."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes.bayes import GaussianJudgeModel, HurdleJudgeModel
from bacon_bayes.bayes.io import load_model, save_model
from bacon_bayes.bayes.selection import (
    consensus,
    one_factor_scores,
    prefers_judge_weights,
    prefers_sqrt,
)
from bacon_bayes.errors import ValidationError
from bacon_bayes.simulation.judges import simulate_judges

N = 1500
BETA = np.array([0.5, 0.3, 0.1])


def _scores(seed: int) -> tuple[np.random.Generator, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng, rng.normal(size=(N, 3))


@pytest.mark.parametrize("sd", [0.3, 0.6, 1.0])
def test_log_normal_labels_keep_the_log_scale(sd):
    rng, x = _scores(int(sd * 10))
    y = np.exp(0.5 + x @ BETA + sd * rng.normal(size=N))
    assert not prefers_sqrt(y, x)


@pytest.mark.parametrize("centre", [1.0, 2.0, 3.0])
def test_squared_normal_labels_choose_the_square_root(centre):
    rng, x = _scores(int(centre))
    w = centre + x @ BETA + 0.6 * rng.normal(size=N)
    keep = w > 0
    assert prefers_sqrt(w[keep] ** 2, x[keep])


def test_few_labels_keep_the_log_scale():
    rng, x = _scores(5)
    w = 2 + x[:12] @ BETA + 0.3 * rng.normal(size=12)
    assert not prefers_sqrt(w**2, x[:12])


def test_auto_choice_is_made_per_fit_from_its_training_labels():
    rng, x = _scores(6)
    w = 2 + x @ BETA + 0.6 * rng.normal(size=N)
    y = np.where(rng.random(N) < 0.3, 0.0, np.maximum(w, 0.01) ** 2)
    model = HurdleJudgeModel(None)
    assert model.positive_scale == "auto"
    train = np.arange(N) < N // 2
    _, const = model._label_data(np.where(train, y, np.nan), train, x)
    assert const["sqrt"] == 1.0
    ly = np.sqrt(y[train & (y > 0)])
    assert const["log_center"] == pytest.approx(ly.mean())
    # the explicit scales override the data; without scores "auto" keeps the log scale
    _, const = HurdleJudgeModel(None, positive_scale="log")._label_data(y, np.ones(N, bool), x)
    assert const["sqrt"] == 0.0
    assert model._label_data(y, np.ones(N, bool))[1]["sqrt"] == 0.0
    with pytest.raises(ValidationError, match="positive_scale must be one of"):
        HurdleJudgeModel(None, positive_scale="cube")._label_data(y, np.ones(N, bool), x)


def _judges(seed: int, n: int, own: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Four judges measuring z with independent errors of different sizes; the label is
    z plus ``own`` times judge 2's error (what the humans see beyond the consensus)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    err = rng.normal(size=(n, 4))
    L = z[:, None] + err * [0.5, 0.7, 0.9, 1.2]
    L = (L - L.mean(0)) / L.std(0)
    y = z + own * err[:, 2] + 0.5 * rng.normal(size=n)
    return L, y, consensus(L)


@pytest.mark.parametrize("family", ["gaussian", "ordinal", "hurdle"])
def test_judge_weights_chosen_when_labels_follow_one_judge_beyond_the_consensus(family):
    L, y, agreed = _judges(1, 800, own=0.8)
    cut = {"gaussian": y, "ordinal": np.digitize(y, [-1, 0, 1]), "hurdle": np.maximum(y, 0)}
    assert prefers_judge_weights(cut[family], L, agreed)


@pytest.mark.parametrize("seed", range(5))
def test_no_judge_weights_when_the_consensus_carries_it(seed):
    L, y, agreed = _judges(seed, 800, own=0.0)
    assert not prefers_judge_weights(y, L, agreed)


@pytest.mark.parametrize("n_judges", [1, 2])
def test_consensus_of_one_or_two_judges_is_their_first_component(n_judges):
    L, y, _ = _judges(3, 500, own=0.0)
    L = L[:, :n_judges]
    agreed = consensus(L)
    assert abs(np.corrcoef(agreed, L.sum(axis=1))[0, 1]) > 0.99
    if n_judges == 1:  # the judge itself: weights on it add nothing
        assert not prefers_judge_weights(y, L, agreed)


def test_no_judge_weights_from_few_labels():
    L, y, agreed = _judges(2, 14, own=2.0)
    assert not prefers_judge_weights(y, L, agreed)


class _ChosenPerFit(GaussianJudgeModel):
    """The gaussian model with ``judge_weights="auto"`` left to each fit's labels."""

    weights_by_default = False


class _EveryOtherFold(GaussianJudgeModel):
    """Judge weights in the folds whose training labels include row 0 only."""

    def _weights_pay(self, arrays, y, train, agreed):
        return bool(train[0])


def test_folds_choose_judge_weights_each_for_itself(tmp_path):
    """A fold fitted without weights has none in its posterior (they saw zero scores and
    kept their prior) and predicts like an unweighted model; one with weights has them;
    with no fold choosing them the label model has none at all."""
    sim = simulate_judges(600, 3, 0, family="gaussian", seed=8)
    y = sim.y.copy()
    y[300:] = np.nan
    folds = np.where(np.isfinite(y), np.arange(600) % 2, -1)
    kw = {"draws": 100, "tune": 100, "seed": 3, "warn": False}
    fits = _EveryOtherFold(sim.columns, **kw).fit_folds(sim.X, y, folds, 2)
    assert [f.constants_["judge_weights"] for f in fits] == [0.0, 1.0]  # row 0 is in fold 0
    assert "judge_weight" not in fits[0].posterior_ and "judge_weight" in fits[1].posterior_
    for k, fit in enumerate(fits):
        pred = fit.predict(sim.X[300:])
        assert 1 - np.mean((pred - sim.y[300:]) ** 2) / np.var(sim.y[300:]) > 0.5
        save_model(fit, tmp_path / f"fold{k}.nc")  # the choice travels with the fit
        back = load_model(tmp_path / f"fold{k}.nc")
        np.testing.assert_array_equal(back.predict(sim.X[300:]), pred)
    none = _ChosenPerFit(sim.columns, **kw).fit_folds(sim.X, y, folds, 2)
    assert all("judge_weights" not in f.constants_ for f in none)  # consensus data: auto off
    assert all("judge_weight" not in f.posterior_ for f in none)
    always = GaussianJudgeModel(sim.columns, **kw).fit_folds(sim.X, y, folds, 2)
    assert [f.constants_["judge_weights"] for f in always] == [1.0, 1.0]  # the default


@pytest.mark.parametrize("case", ["converges", "short of its tolerance"])
def test_consensus_is_sklearns_factor_analysis_on_the_covariance(case):
    """The one-factor fit on the columns' covariance is sklearn's ``FactorAnalysis`` fit on
    the data (exact SVD), step for step, also where it stops short of its tolerance; and
    nothing is printed (session 46 walk: sklearn's raw "did not converge" reached users).
    """
    import warnings

    from sklearn.decomposition import FactorAnalysis
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    z = rng.normal(size=400)
    scores = np.column_stack([z + rng.normal(0, s, 400) for s in (0.1, 0.3, 0.5, 0.8, 1.2)])
    scores[:100, 1:] = 0.0  # four metrics missing on a quarter, filled (WMT22's refA)
    steps = 1000 if case == "converges" else 5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agreed = consensus(scores) if case == "converges" else one_factor_scores(scores, max_iter=5)
    assert not caught, [str(w.message) for w in caught]
    fa = FactorAnalysis(n_components=1, svd_method="lapack", max_iter=steps)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        expected = fa.fit_transform(scores)[:, 0]
    short = any(issubclass(w.category, ConvergenceWarning) for w in theirs)
    assert short == (case != "converges")
    expected *= np.sign(fa.components_.sum())  # loadings summing to at least zero
    np.testing.assert_allclose(agreed, expected, atol=1e-6 * np.abs(expected).max())
