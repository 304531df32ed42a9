"""``Calibrator(surrogates=[...])``: extra surrogates in the AEE means, their defaults,
errors and persistence."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bacon_bayes import Calibrator, EvalPool, ValidationError, estimands
from bacon_bayes import estimate as est
from bacon_bayes import surrogates as sur
from bacon_bayes.demo import summeval_pool
from bacon_bayes.errors import OlderFileWarning
from bacon_bayes.io import write_tree
from bacon_bayes.model_choice import resolve_model


@pytest.fixture(scope="module")
def pool():
    return summeval_pool("relevance", 0.1, seed=3)[0]


@pytest.fixture(scope="module")
def combined(pool):
    return Calibrator(engine="freq", seed=0, surrogates=["judge_mean"]).fit(pool)


def test_extra_surrogates_enter_the_mean_and_group_means(pool, combined):
    single = Calibrator(engine="freq", seed=0, surrogates=[]).fit(pool)
    assert single.extras_ == {} and single.surrogate_names_ == ("ridge (freq)",)
    assert combined.surrogate_names_ == ("ridge (freq)", "judge_mean")
    F = combined.surrogate_matrix()
    np.testing.assert_array_equal(F[:, 0], single.surrogate_)
    np.testing.assert_array_equal(F[:, 1], pool.judge_average())
    e = combined.estimate_mean()
    direct = est.aee_mean(pool.y, F, pi=pool.propensity)
    assert e.estimate == direct.estimate and e.se == direct.se
    assert len(e.details["power_lambda"]) == 2
    assert e.details["surrogates"] == ["ridge (freq)", "judge_mean"]
    assert e.details["df"] == pool.n_labeled - 3
    g = combined.estimate_groups()
    assert len(g.details["power_lambda"]) == 2 and np.all(np.isfinite(g.se))
    q = combined.estimate_quantile(0.5)
    assert q.to_dict()["estimate"] == single.estimate_quantile(0.5).estimate
    assert q.details["surrogates"] == ["ridge (freq)"]
    assert combined.summary()["surrogates"] == ["ridge (freq)", "judge_mean"]
    # the single-surrogate calibrator is the one it always was
    assert (
        single.estimate_mean().to_dict()
        == estimands.mean(single, 0.05, "aee").clip(*single.bounds_).to_dict()
    )
    assert "surrogates" not in single.estimate_mean().details


def test_defaults_and_names(pool):
    from bacon_bayes.features import build_features

    # what fit() resolves for engine="bayes" on a continuous label: gaussian + judge mean
    _, name, engine = resolve_model(Calibrator(engine="bayes"), pool, build_features(pool))
    assert sur.resolve(None, name, engine) == ("judge_mean",)
    assert sur.resolve(None, "gaussian", "bayes", judge_mean=False) == ()
    # categorical labels: the multinomial's posterior mean alone (the judge mean only widens)
    assert sur.resolve(None, "multinomial", "bayes") == ()
    assert sur.resolve(None, "ordinal", "bayes") == ("judge_mean",)
    assert sur.resolve(["judge_mean"], "multinomial", "bayes") == ("judge_mean",)
    assert sur.resolve(["freq"], "gaussian", "bayes") == ("ridge",)
    assert sur.resolve(["freq"], "ordinal", "bayes") == ("ordinal",)
    assert sur.resolve(None, "ridge", "freq") == ()
    assert sur.resolve(None, "GaussianJudgeModel", "custom") == ()
    assert sur.resolve(["freq", "judge_mean"], "hurdle", "bayes") == ("hurdle", "judge_mean")
    assert sur.resolve([], "gaussian", "bayes") == ()


@pytest.mark.parametrize(
    ("names", "engine", "match"),
    [
        (["lasso"], "freq", "surrogate 'lasso' is not known"),
        (["ridge"], "freq", "is the calibrator's own model already"),
        (["freq"], "freq", "is the calibrator's own model already"),
        (["judge_mean", "judge_mean"], "freq", "listed twice"),
        ("judge_mean", "freq", "must be a list of names"),
        (["freq"], "custom", "needs a named model family"),
    ],
)
def test_bad_surrogate_names_are_refused(names, engine, match):
    with pytest.raises(ValidationError, match=match):
        sur.resolve(names, "ridge", engine)


def test_calibrator_refuses_an_unknown_surrogate(pool):
    with pytest.raises(ValidationError, match="not known"):
        Calibrator(engine="freq", surrogates=["nope"]).fit(pool)


def test_saved_combination_round_trips(pool, combined, tmp_path):
    cal = Calibrator(engine="freq", seed=1, folds=4, surrogates=["judge_mean"]).fit(pool)
    back = Calibrator.load(cal.save(tmp_path / "c.nc"))
    assert back.surrogate_names_ == cal.surrogate_names_
    assert back.estimate_mean().to_dict() == cal.estimate_mean().to_dict()
    ga, gb = cal.estimate_groups(), back.estimate_groups()
    assert np.array_equal(ga.ci_low, gb.ci_low) and np.array_equal(ga.cov, gb.cov)


def test_saved_fitted_extra_round_trips_and_is_checked(tmp_path):
    rng = np.random.default_rng(2)
    n = 400
    z = rng.normal(size=n)
    df = pd.DataFrame({f"j{k}": z + rng.normal(0, 0.7, n) for k in range(3)})
    label = 1.0 + np.searchsorted([-1.0, 0.0, 1.0], z + rng.logistic(0, 0.5, n))
    df["human"] = np.where(rng.random(n) < 0.3, label, np.nan)
    pool = EvalPool.from_frame(df, label="human", judges=["j0", "j1", "j2"], outcome="ordinal")
    cal = Calibrator(engine="freq", seed=0, surrogates=["ridge", "judge_mean"]).fit(pool)
    assert cal.surrogate_names_ == ("ordinal (freq)", "ridge", "judge_mean")
    path = cal.save(tmp_path / "o.nc")
    back = Calibrator.load(path)
    assert back.estimate_mean().to_dict() == cal.estimate_mean().to_dict()
    tree = xr.open_datatree(path, engine="h5netcdf").load()
    tree.close()
    name = "ridge"
    ds = tree["surrogates"].to_dataset()
    ds[name] = ds[name] + 0.5
    tree["surrogates"] = xr.DataTree(ds)
    write_tree(tree, tmp_path / "bad.nc")
    with pytest.raises(ValidationError, match=f"extra surrogate {name!r} did not reproduce"):
        Calibrator.load(tmp_path / "bad.nc")


def test_files_saved_before_extra_surrogates_load_as_model_only(pool, tmp_path):
    """A file without the ``surrogates`` attribute (written by an earlier version) loads
    with the model's surrogate alone, the estimate it was saved with."""
    cal = Calibrator(engine="freq", seed=0, surrogates=[]).fit(pool)
    path = cal.save(tmp_path / "new.nc")
    tree = xr.open_datatree(path, engine="h5netcdf").load()
    tree.close()
    attrs = dict(tree.attrs)
    del attrs["surrogates"], attrs["layout"]  # as an earlier release saved it
    config = json.loads(attrs["config"])
    del config["surrogates"]
    attrs["config"] = json.dumps(config)
    tree.attrs = attrs
    write_tree(tree, tmp_path / "old.nc")
    with pytest.warns(OlderFileWarning, match=r"without attribute 'surrogates'.*surrogates=\[\]"):
        back = Calibrator.load(tmp_path / "old.nc")
    assert back.surrogates == [] and back.extras_ == {}
    assert back.estimate_mean().to_dict() == cal.estimate_mean().to_dict()


def test_bayesian_calibrator_with_extras_round_trips(tmp_path):
    """A Bayesian model's posterior mean combined with the ridge and the judge mean: the
    saved file gives the same estimates back (fold posteriors kept, extras refitted)."""
    from bacon_bayes.bayes import GaussianJudgeModel
    from bacon_bayes.bayes.columns import ColumnSpec
    from bacon_bayes.features import build_features

    pool = summeval_pool("relevance", 0.1, seed=5)[0]
    spec = ColumnSpec.from_features(build_features(pool))
    model = GaussianJudgeModel(spec, draws=40, tune=50, chains=2, seed=1, warn=False)
    cal = Calibrator(model, folds=2, seed=1, surrogates=["ridge", "judge_mean"]).fit(pool)
    assert cal.surrogate_names_[1:] == ("ridge", "judge_mean")
    back = Calibrator.load(cal.save(tmp_path / "b.nc"))
    assert back.surrogate_names_ == cal.surrogate_names_
    np.testing.assert_array_equal(back.surrogate_matrix(), cal.surrogate_matrix())
    assert back.estimate_mean().to_dict() == cal.estimate_mean().to_dict()
    assert len(back.estimate_mean().details["power_lambda"]) == 3
