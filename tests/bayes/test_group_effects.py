"""The judge models' group level (``group_effects``): the label stage's density with group
effects equals PyMC's, predictions add the item's group effect (0 for a group without
labels or never seen), the option's rule, and a calibrator's save/load and ``apply``
(fits replaced by fixed posteriors: no sampling here)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.bayes import GaussianJudgeModel, MultinomialJudgeModel, OrdinalJudgeModel
from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.bayes.diagnostics import Diagnostics
from bacon_bayes.bayes.groups import attach_groups, with_group_column
from bacon_bayes.bayes.io import model_from_tree, model_to_tree
from bacon_bayes.bayes.label_density import label_density
from bacon_bayes.bayes.posterior import _unlabeled_groups_zeroed
from bacon_bayes.errors import ValidationError

from .conftest import assert_density_equals_pymc
from .test_label_density import FOLDS, _stage2

GROUPS = ("a", "b", "c", "d")


@pytest.mark.parametrize(
    ("family", "judge_weights"),
    [("ordinal", False), ("hurdle", True), ("gaussian", True)],
)
def test_label_density_with_groups_equals_pymc(family, judge_weights):
    pytest.importorskip("jax")
    model, arrays, data = _stage2(family, judge_weights, seed=7 + len(family))
    rng = np.random.default_rng(3)
    n = data["m"].shape[1]
    group = rng.integers(-1, len(GROUPS), (FOLDS, n))  # -1: an item of no group
    data["g"] = (group[..., None] == np.arange(len(GROUPS))).astype(float)
    pm_model = model._build_label_model(arrays, data)
    names = set(pm_model.named_vars)
    for name in model.group_effect_names:
        sd = name.replace("effect", "sd")
        sampled = {name, f"{name}_z"}  # the gaussian integrates the effects out
        assert sd in names and (sampled <= names) != model.collapses_groups
    density = label_density(model)
    assert density is not None
    assert_density_equals_pymc(pm_model, density, data, (0.3, 1.0, 2.5), seed=2, value_rtol=1e-8)


def _spec(n_judges: int = 3, groups: tuple[str, ...] = GROUPS) -> ColumnSpec:
    return dataclasses.replace(ColumnSpec.simple(n_judges), group_col=n_judges, groups=groups)


def _fixed_fit(model, X, y, effects, draws: int = 40, seed: int = 0):
    """``model`` set up on X and given a fixed posterior (a gaussian link; ``effects``:
    each group's effect, the same in every draw) instead of a fit."""
    import arviz as az

    rng = np.random.default_rng(seed)
    model._setup(X, y)
    J = model.columns.n_judges
    post = {
        "offset": rng.normal(0, 0.05, (draws, J)),
        "log_scale": np.log(0.8) + rng.normal(0, 0.05, (draws, J)),
        "log_noise": np.log(0.5) + rng.normal(0, 0.05, (draws, J)),
        "intercept": rng.normal(0, 0.05, draws),
        "slope": 0.9 + rng.normal(0, 0.02, draws),
        "label_noise": np.full(draws, 0.5),
        "group_effect": np.tile(np.asarray(effects, dtype=float), (draws, 1)),
        "group_sd": np.full(draws, 0.3),
    }
    idata = az.from_dict(
        posterior={k: v[None] for k, v in post.items()},
        sample_stats={"diverging": np.zeros((1, draws), bool)},
    )
    diag = Diagnostics(1.0, "", 400.0, 400.0, "", 0, draws, 1, "fixed", 0.0)
    const = {"y_center": 3.0, "y_scale": 2.0, "group_labels": np.ones(len(effects))}
    return model._finish(idata, diag, const)


def _X(n: int, codes, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    L = z[:, None] * 0.8 + rng.normal(0, 0.5, (n, 3))
    return np.column_stack([L, codes])


def test_the_group_effect_shifts_the_prediction_and_an_unseen_group_gets_none():
    n = 40
    codes = np.arange(n) % len(GROUPS)
    X = _X(n, codes)
    y = np.where(np.arange(n) < 20, X[:, 0], np.nan)
    effects = [0.25, -0.5, 0.0, 0.1]
    model = _fixed_fit(GaussianJudgeModel(_spec()), X, y, effects)
    pred = model.predict(X)
    unseen = X.copy()
    unseen[:, 3] = np.nan  # no group / a group the model never saw
    base = model.predict(unseen)
    # the gaussian adds the effect on the standardised scale: y_scale (2) times it
    np.testing.assert_allclose(pred - base, 2.0 * np.asarray(effects)[codes], atol=1e-12)
    out_of_range = X.copy()
    out_of_range[:, 3] = len(GROUPS) + 3  # a code past the model's groups: also none
    np.testing.assert_allclose(model.predict(out_of_range), base, atol=1e-12)


def test_groups_without_labels_in_a_fit_keep_effect_0():
    import arviz as az

    model = OrdinalJudgeModel(_spec())
    n = 12
    group = np.array([0, 1, 3, -1] * 3)
    train = np.zeros(n, bool)
    train[:6] = True  # groups 0, 1 and 3 labeled (group 2 has no item, -1 none)
    labels, const = {}, {}
    model._add_groups(labels, const, group, train)
    assert labels["g"].shape == (n, len(GROUPS))
    assert labels["g"][group < 0].sum() == 0
    np.testing.assert_array_equal(const["group_labels"], [2, 2, 0, 1])
    draws = np.random.default_rng(0).normal(size=(2, 30, len(GROUPS)))
    idata = az.from_dict(posterior={"group_effect": draws.copy()})
    out = _unlabeled_groups_zeroed(idata, model, const).posterior["group_effect"].values
    assert np.all(out[..., 2] == 0)
    np.testing.assert_array_equal(out[..., [0, 1, 3]], draws[..., [0, 1, 3]])


def test_group_effects_option():
    spec = _spec()
    assert GaussianJudgeModel(spec)._group_effects()  # auto, 4 groups
    assert not GaussianJudgeModel(spec, group_effects=False)._group_effects()
    two = _spec(groups=("a", "b"))
    assert not GaussianJudgeModel(two)._group_effects()  # auto: fewer than 3 groups
    assert GaussianJudgeModel(two, group_effects=True)._group_effects()
    assert not GaussianJudgeModel(ColumnSpec.simple(3))._group_effects()  # no group column
    with pytest.raises(ValidationError, match="needs the items' groups"):
        GaussianJudgeModel(ColumnSpec.simple(3), group_effects=True)._group_effects()
    with pytest.raises(ValidationError, match="True, False or 'auto'"):
        GaussianJudgeModel(spec, group_effects="yes")._group_effects()
    assert not MultinomialJudgeModel(spec)._group_effects()
    with pytest.raises(ValidationError, match="no group effects"):
        MultinomialJudgeModel(spec, group_effects=True)._group_effects()
    assert "group_effects" in GaussianJudgeModel(spec).get_params()
    assert GaussianJudgeModel(spec).resolved_priors()["group_effect_sd"] == 0.5


def test_group_columns():
    model = GaussianJudgeModel(ColumnSpec.simple(3))
    X = np.zeros((5, 3))
    groups = np.array(["M2", "M10", "M2", "M1", "M10"])
    same, X_same = attach_groups(model, X, groups, False)
    assert same is model and X_same is X
    out, Xg = attach_groups(model, X, groups, "auto")
    assert out is not model and model.columns.group_col == -1
    assert out.columns.group_col == 3 and out.columns.groups == ("M1", "M2", "M10")
    np.testing.assert_array_equal(Xg[:, 3], [1, 2, 1, 0, 2])
    new = with_group_column(out, X[:3], np.array(["M10", "M99", "M1"]))
    np.testing.assert_array_equal(new[:, 3], [2, np.nan, 0])
    assert np.isnan(with_group_column(out, X[:2], None)[:, 3]).all()
    assert with_group_column(model, X, groups) is X  # a model without groups


def test_a_saved_model_with_group_effects_predicts_the_same():
    n = 30
    X = _X(n, np.arange(n) % len(GROUPS))
    y = np.where(np.arange(n) < 15, X[:, 0], np.nan)
    model = _fixed_fit(GaussianJudgeModel(_spec()), X, y, [0.2, -0.1, 0.0, 0.4])
    loaded = model_from_tree(model_to_tree(model))
    assert loaded.columns == model.columns and loaded.group_effects == "auto"
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def _pool(n_per: int, systems, labeled: float, seed: int):
    from bacon_bayes.pool import EvalPool

    rng = np.random.default_rng(seed)
    n = n_per * len(systems)
    q = rng.normal(3, 0.7, n)
    df = pd.DataFrame(
        {"id": [f"i{seed}-{k}" for k in range(n)], "system": np.repeat(systems, n_per)}
    )
    for j in range(3):
        df[f"j{j}"] = q + rng.normal(0, 0.5, n)
    df["human"] = np.where(rng.uniform(size=n) < labeled, q + rng.normal(0, 0.3, n), np.nan)
    judges = ["j0", "j1", "j2"]
    return EvalPool.from_frame(
        df, label="human", judges=judges, outcome="continuous", group="system", item="id"
    )


def test_a_calibrator_saves_its_group_effects_and_applies_them_to_new_groups(monkeypatch, tmp_path):
    from bacon_bayes import Calibrator

    effects = {"S1": 0.3, "S2": -0.2, "S3": 0.1, "S4": 0.0}
    seen_by_fit = []

    def fixed_folds(self, X, y, fold_ids, n_folds):
        seen_by_fit.append((self.columns.group_col, self._group_effects(), X.shape[1]))
        values = [effects[g] for g in self.columns.groups] or [0.0]
        return [_fixed_fit(self.__class__(**self.get_params()), X, y, values, seed=k)
                for k in range(n_folds)]  # fmt: skip

    monkeypatch.setattr(GaussianJudgeModel, "fit_folds", fixed_folds)
    pool = _pool(30, list(effects), 0.3, seed=0)
    cal = Calibrator(engine="bayes", model="gaussian", folds=2, surrogates=[]).fit(pool)
    p = cal.features_.X.shape[1]
    assert seen_by_fit == [(p, True, p + 1)]
    spec = cal.model_.columns
    assert spec.groups == ("S1", "S2", "S3", "S4")
    loaded = Calibrator.load(cal.save(tmp_path / "cal.nc"))
    assert loaded.group_effects == "auto" and loaded.model_.columns == spec
    np.testing.assert_array_equal(loaded.surrogate_, cal.surrogate_)
    # a new round: S1 again, S9 never seen (effect 0)
    new = _pool(20, ["S1", "S9"], 0.8, seed=1)
    X = loaded.apply(new).crossfit_.X
    model = loaded.crossfit_.models[0]
    without = X.copy()
    without[:, spec.group_col] = np.nan
    shift = model.predict(X) - model.predict(without)
    seen = np.asarray(new.groups) == "S1"
    np.testing.assert_allclose(shift[seen], model.constants_["y_scale"] * 0.3)
    assert np.all(shift[~seen] == 0)
    refit = loaded.apply(new, refit=True)  # old and new labels train; the same codes
    assert refit.crossfit_.X.shape[1] == p + 1 and refit.refit_["X_old"].shape[1] == p + 1
    again = Calibrator.load(refit.save(tmp_path / "refit.nc"))
    np.testing.assert_array_equal(again.surrogate_, refit.surrogate_)
    off = Calibrator(engine="bayes", model="gaussian", folds=2, surrogates=[], group_effects=False)
    off.fit(pool)
    assert seen_by_fit[-1] == (-1, False, p)


def test_collapsed_groups_match_quadrature():
    from scipy import integrate, stats

    from bacon_bayes.bayes.closed_forms import collapse_groups

    rng = np.random.default_rng(4)
    n, t2 = 7, 0.3
    e, var = rng.normal(0.4, 1.0, n), rng.uniform(0.2, 1.5, n)
    w = np.array([1, 1, 1, 0, 1, 1, 1.0])  # item 3 unlabeled
    group = np.array([0, 0, 1, 0, 1, -1, 0])  # group 2 has no item; item 5 no group
    g = (group[:, None] == np.arange(3)).astype(float)
    term, mean, spread = collapse_groups(e, var, w, g, t2)
    for k in range(3):
        rows = (group == k) & (w > 0)

        def joint(u, rows=rows):
            own = stats.norm.pdf(e[rows], u, np.sqrt(var[rows])).prod()
            return own * stats.norm.pdf(u, 0.0, np.sqrt(t2))

        mass = integrate.quad(joint, -8, 8, epsabs=1e-14)[0]
        first = integrate.quad(lambda u: u * joint(u), -8, 8, epsabs=1e-14)[0] / mass
        second = integrate.quad(lambda u: u * u * joint(u), -8, 8, epsabs=1e-14)[0] / mass
        own = stats.norm.logpdf(e[rows], 0.0, np.sqrt(var[rows])).sum()
        np.testing.assert_allclose(own + term[k], np.log(mass), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(mean[k], first, atol=1e-9)
        np.testing.assert_allclose(spread[k], second - first**2, rtol=1e-7)
    assert term[2] == 0 and mean[2] == 0 and spread[2] == t2  # no label: the prior


def test_gaussian_group_draws_follow_their_conditional_posterior():
    model = GaussianJudgeModel(_spec())
    rng = np.random.default_rng(0)
    n, draws = 60, 4000
    group = np.arange(n) % 4
    group[group == 3] = -1  # group 3 unlabeled: its draws are the prior's
    data = {
        "m": rng.normal(size=n), "v": np.full(n, 0.1), "w": np.ones(n),
        "g": (group[:, None] == np.arange(4)).astype(float),
    }  # fmt: skip
    truth = np.array([0.5, -0.3, 0.0])
    data["yk"] = 0.2 + 0.9 * data["m"] + np.where(group >= 0, truth[group % 3], 0.0)
    data["yk"] = data["yk"] + rng.normal(0, 0.3, n)
    post = {
        "intercept": np.full(draws, 0.2), "slope": np.full(draws, 0.9),
        "label_noise": np.full(draws, 0.3), "group_sd": np.full(draws, 0.5),
    }  # fmt: skip
    u = model._draw_group_effects(post, data, np.random.default_rng(1))
    assert u.shape == (draws, 4)
    np.testing.assert_allclose(u[:, :3].mean(0), truth, atol=0.08)
    assert abs(u[:, 3].mean()) < 0.05 and abs(u[:, 3].std() - 0.5) < 0.03


def test_group_effects_messages_name_the_option_and_the_argument(tmp_path, capsys):
    """Every refusal of the group level names the command line's `--group-effects` and
    Python's `group_effects`; `--group-effects on` that cannot apply (the frequentist
    engine, no --group, a model with no group level) is refused instead of ignored."""
    from bacon_bayes import Calibrator
    from bacon_bayes.cli import main

    spec = _spec()
    refusals = [
        lambda: GaussianJudgeModel(spec, group_effects="yes")._group_effects(),
        lambda: GaussianJudgeModel(ColumnSpec.simple(3), group_effects=True)._group_effects(),
        lambda: MultinomialJudgeModel(spec, group_effects=True)._group_effects(),
    ]
    pool = _pool(10, ["S1", "S2", "S3"], 0.5, seed=0)
    refusals.append(lambda: Calibrator(engine="freq", group_effects=True).fit(pool))
    refusals.append(lambda: Calibrator(engine="freq", group_effects="on").fit(pool))
    ungrouped = dataclasses.replace(pool, groups=None)
    refusals.append(lambda: Calibrator(engine="bayes", group_effects=True).fit(ungrouped))
    for refuse in refusals:
        with pytest.raises(ValidationError) as info:
            refuse()
        assert "--group-effects" in str(info.value) and "group_effects" in str(info.value)
    table = tmp_path / "pool.csv"
    frame = pd.DataFrame({"id": pool.ids, "system": pool.groups, "human": pool.y})
    frame = frame.join(pool.judge_matrix().set_axis(list(pool.judges), axis=1))
    frame.to_csv(table, index=False)
    argv = ["estimate", str(table), "--label", "human", "--judge", "j*", "--item", "id",
            "--engine", "freq", "--group", "system", "--group-effects", "on"]  # fmt: skip
    assert main(argv) == 2
    assert "--group-effects on (group_effects=True" in capsys.readouterr().err
