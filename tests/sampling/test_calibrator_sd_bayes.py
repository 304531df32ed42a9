"""``bacon sample --design adaptive --sd-model calibrator --engine bayes`` end to end.

The adaptive wave's probabilities follow the posterior predictive sd of the Bayesian
calibrator (issue 4). One small study (200 items, 40 pilot labels, 2 judges): the
posterior predictive sd is computed once by :func:`calibrator_sd`, then the command
line draws the wave with the same seed (NUTS is deterministic under its seed), and
the recorded probabilities must be exactly those of that sd.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.sampling import adaptive_probabilities
from bacon_bayes.study import Study
from bacon_bayes.study.waves import calibrator_sd

from .conftest import bacon
from .test_study_workflow import label_all_pending


@pytest.mark.slow  # two 5-fold NUTS cross-fits: 433 s niced at load 10 (too slow for make test)
def test_adaptive_wave_from_the_bayesian_posterior_predictive_sd(
    study: Path, pool_file: Path, tmp_path: Path
) -> None:
    label_all_pending(study, pool_file, tmp_path)
    s = Study.open(study)
    prior = s.inclusion_probability()  # of the pilot wave
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 40 labels: a convergence warning is not the point
        sd = calibrator_sd(s, None, "bayes", 5, 1)
        argv = ["--design", "adaptive", "--budget", "30", "--sd-model", "calibrator"]
        argv += ["--max-ratio", "inf"]  # follow the sd whatever its predicted gain
        argv += ["--engine", "bayes", "--seed", "1", "--out", str(tmp_path / "todo2.csv")]
        assert bacon("sample", str(study), *argv) == 0
    assert np.all(sd > 0) and sd.std() > 0.05 * sd.mean(), "posterior predictive sd varies"
    s = Study.open(study)
    wave = s.manifest[s.manifest["wave"] == 2].set_index("item").loc[s.ids]
    assert np.allclose(wave["pi"].to_numpy(), adaptive_probabilities(sd, 30, prior=prior))
    params = s.waves[-1]["params"]
    assert (params["sd_model"], params["engine"]) == ("calibrator", "bayes")
    todo = pd.read_csv(tmp_path / "todo2.csv")
    assert len(todo) == int(wave["selected"].sum()) > 0


def test_bayes_engine_without_a_model_name_uses_the_gaussian_family() -> None:
    """A continuous pool has no Bayesian ridge: engine="bayes" means the gaussian model."""
    from bacon_bayes.bayes import GaussianJudgeModel
    from bacon_bayes.features import build_features
    from bacon_bayes.model_choice import resolve_model

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    df["y"] = np.where(np.arange(40) < 20, df["a"] + rng.normal(size=40), np.nan)
    pool = EvalPool.from_frame(df, label="y", judges=["a", "b"], outcome="continuous")
    model, name, engine = resolve_model(Calibrator(engine="bayes"), pool, build_features(pool))
    assert (name, engine) == ("gaussian", "bayes") and isinstance(model, GaussianJudgeModel)
