"""The hurdle's automatic choice of the positive part's scale (log or square root)."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes.bayes import HurdleJudgeModel
from bacon_bayes.bayes.hurdle import prefers_sqrt
from bacon_bayes.errors import ValidationError

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
