"""The cut (two-stage) fit: shared judge stage, per-fold label blocks, refusals."""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np
import pytest

from bacon_bayes.bayes import ColumnSpec, GaussianJudgeModel, MultinomialJudgeModel
from bacon_bayes.bayes.base import CUT_SUMMARY_DRAWS, _fold_blocks, _thin
from bacon_bayes.errors import ValidationError


def test_folds_share_the_judge_stage_and_own_their_label_block(gaussian_folds):
    fits, _, _ = gaussian_folds
    a, b = fits[0].idata_.posterior, fits[1].idata_.posterior
    np.testing.assert_array_equal(a["offset"].values, b["offset"].values)
    assert not np.allclose(a["intercept"].values, b["intercept"].values)
    # a fold's label parameters are scalars, as in a joint fit
    assert a["intercept"].dims == ("chain", "draw")


def test_latent_summary_is_the_aligned_mixture_mean_and_total_variance(
    gaussian_folds, gaussian_sim
):
    fit = gaussian_folds[0][0]
    arrays = fit.design_.transform(gaussian_sim.X)
    rows = np.arange(40)
    got = fit._latent_summary(arrays, fit.idata_.posterior, rows)
    post = _thin(fit.idata_.posterior, CUT_SUMMARY_DRAWS)
    m, v = fit._collapse_arrays({k: x[rows] for k, x in arrays.items()}, post)
    lines = np.array([np.polyfit(m.mean(0), md, 1) for md in m])  # (stretch, shift) per draw
    z = (m - lines[:, 1:]) / lines[:, :1]
    np.testing.assert_allclose(got["m"], z.mean(0), rtol=1e-8)
    np.testing.assert_allclose(got["v"], (v / lines[:, :1] ** 2).mean(0) + z.var(0), rtol=1e-8)
    assert np.all(np.abs(lines[:, 0] - 1) < 0.2)  # draws differ by a small stretch only


def test_fold_blocks_keep_only_training_items_and_pad_with_zero_weight():
    latent = {"m": np.arange(5.0), "v": np.ones(5)}
    folds = [
        {"yk": np.array([0, 1, 2, 3, 4]), "w": np.array([1.0, 1.0, 0.0, 0.0, 1.0])},
        {"yk": np.array([0, 1, 2, 3, 4]), "w": np.array([0.0, 0.0, 1.0, 1.0, 0.0])},
    ]
    data = _fold_blocks(latent, folds)
    np.testing.assert_array_equal(data["m"], [[0, 1, 4], [2, 3, 0]])
    np.testing.assert_array_equal(data["yk"], [[0, 1, 4], [2, 3, 0]])
    np.testing.assert_array_equal(data["w"], [[1, 1, 1], [1, 1, 0]])


def test_unknown_or_unsupported_inference_is_refused():
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = np.where(np.arange(20) < 10, np.arange(20) % 2, np.nan)
    with pytest.raises(ValidationError, match="inference must be one of"):
        GaussianJudgeModel(ColumnSpec.simple(2), inference="fast").fit(X, y)
    with pytest.raises(ValidationError, match=r"no cut .* inference='joint'"):
        MultinomialJudgeModel(ColumnSpec.simple(2), inference="cut").fit(X, y)


def test_fold_models_share_z_moments_but_not_their_judge_weights(gaussian_folds, gaussian_sim):
    """The fold models of a cut fit share z's per-draw moments for the same X; a fold's
    own judge weights must still enter its predictions (they are not cached)."""
    fit = gaussian_folds[0][0]
    n_draws = next(iter(fit.posterior_.values())).shape[0]
    X = gaussian_sim.X[:50]
    shared: dict = {}
    models = []
    for weight in (0.0, 0.3):
        m = copy.copy(fit)
        m.posterior_ = {**fit.posterior_, "judge_weight": np.full((n_draws, 3), weight)}
        m._latent_cache_, m._moments_kept_ = shared, None
        models.append(m)
    cached = [m.predict(X) for m in models]
    for m, got in zip(models, cached, strict=True):
        m._latent_cache_, m._moments_kept_ = None, None
        np.testing.assert_allclose(got, m.predict(X), rtol=1e-12)
    assert not np.allclose(cached[0], cached[1])


def test_latent_cache_keeps_the_recent_xs_up_to_its_size(gaussian_folds, gaussian_sim, monkeypatch):
    """Fold models predicting their own items, then the unlabeled ones, in turn reuse z's
    moments of both Xs; an X beyond the cache's size is not kept."""
    from bacon_bayes.bayes import predict

    fits = [copy.copy(f) for f in gaussian_folds[0][:2]]
    shared: dict = {}
    calls = []
    for f in fits:
        f._latent_cache_, f._moments_kept_ = shared, None
        collapse = f._collapse_arrays
        monkeypatch.setattr(
            f, "_collapse_arrays", lambda a, p, c=collapse: calls.append(1) or c(a, p)
        )
    own, rest = gaussian_sim.X[:30], gaussian_sim.X[30:90]
    for f in fits:
        f.predict(own)
        f.predict(rest)
    first = len(calls)
    assert first > 0 and len(shared) == 2
    fits[1]._moments_kept_ = None
    fits[1].predict(own)
    assert len(calls) == first  # both Xs kept: no recomputation in the second fold
    n_draws = next(iter(fits[0].posterior_.values())).shape[0]
    monkeypatch.setattr(predict, "LATENT_CACHE_SIZE", 2 * n_draws * 60)
    fits[0]._moments_kept_ = None
    fits[0].predict(rest)  # fits alone: the older X is dropped
    assert len(shared) == 1


@pytest.mark.parametrize("converged", [True, False])
def test_a_link_that_did_not_converge_is_sampled_again_longer(
    gaussian_folds, gaussian_sim, monkeypatch, converged
):
    """Stage 2 runs ``label_draws``; when a fold's block misses R-hat <= 1.01 (or
    diverged) it runs once more with all of stage 1's draws, and that run is kept."""
    fits, y, fold_ids = gaussian_folds
    model = copy.copy(fits[0])  # keeps the sampled stage 1: only stage 2 runs here
    model.label_draws, model.warn = 100, False
    seen = []
    link_blocks = model._link_blocks

    def check(idata, folds, secs, engine):
        seen.append(idata.posterior.sizes["draw"])
        blocks, diags = link_blocks(idata, folds, secs, engine)
        if len(seen) == 1:  # the first run's links met R-hat, or missed it
            diags = [replace(d, max_rhat=1.0 if converged else 1.02, n_divergent=0) for d in diags]
        return blocks, diags

    monkeypatch.setattr(model, "_link_blocks", check)
    refit = model.fit_folds(gaussian_sim.X, y, fold_ids, 2)
    stage1 = fits[0].idata_.posterior.sizes["draw"]  # 500 per chain
    assert seen == ([100] if converged else [100, stage1])
    want = 100 if converged else stage1
    assert refit[0].idata_.posterior.sizes["draw"] == want
    assert refit[0].diagnostics_.n_draws == want  # the kept run's diagnostics


def test_another_model_on_the_same_judges_reuses_the_judge_stage(gaussian_sim):
    """A new instance with the same settings and X skips stage 1 (module-wide copy), and
    the kept draws are exactly those that sampling again gives."""
    from bacon_bayes.bayes import fitting

    sim = gaussian_sim
    X, y = sim.X[:120], sim.y[:120].copy()
    y[60:] = np.nan
    settings = {"draws": 50, "tune": 50, "chains": 2, "label_draws": 50, "warn": False}
    first = GaussianJudgeModel(sim.columns, seed=4, **settings).fit(X, y)
    y2 = sim.y[:120].copy()
    y2[:60] = np.nan  # other labels: stage 2 differs, stage 1 is the same
    again = GaussianJudgeModel(sim.columns, seed=4, **settings).fit(X, y2)
    (kept,) = fitting._JUDGE_STAGE.values()
    assert again._judges_kept_[1] is kept  # not sampled again
    stage = first.idata_.posterior["offset"].values
    np.testing.assert_array_equal(again.idata_.posterior["offset"].values, stage)
    fitting.forget_judge_stage()
    fresh = GaussianJudgeModel(sim.columns, seed=4, **settings).fit(X, y2)
    assert fresh._judges_kept_[1] is not kept  # sampled anew
    np.testing.assert_array_equal(fresh.idata_.posterior["offset"].values, stage)
    np.testing.assert_allclose(fresh.predict(X), again.predict(X), rtol=0, atol=0)


@pytest.mark.parametrize(
    "first, runs",
    [
        ({}, [(50, 50, 0.8)]),
        ({"max_rhat": 1.02}, [(50, 50, 0.8), (100, 100, 0.8)]),
        ({"n_divergent": 3}, [(50, 50, 0.8), (100, 100, 0.95)]),
    ],
)
def test_a_judge_stage_that_did_not_converge_is_sampled_again_longer(
    gaussian_sim, monkeypatch, first, runs
):
    """Stage 1 runs once; when it misses R-hat <= 1.01 or diverged, once more with twice
    the tuning and draws (after divergences with target_accept 0.95), and that run is
    kept and reported."""
    from bacon_bayes.bayes import fitting

    sim = gaussian_sim
    X, y = sim.X[:120], sim.y[:120].copy()
    y[60:] = np.nan
    fitting.forget_judge_stage()
    model = GaussianJudgeModel(
        sim.columns, draws=50, tune=50, chains=2, label_draws=50, warn=False, seed=5
    )
    seen, checked = [], []
    sample, check = model._sample, fitting.check_convergence

    def sampling(compiled, data, seed, draws=None, tune=None, target_accept=None, *a, **kw):
        if "label_rows" not in data and "yk" not in data:  # stage 1's data: judges only
            seen.append((draws or model.draws, tune or model.tune, target_accept or 0.8))
        return sample(compiled, data, seed, draws, tune, target_accept, *a, **kw)

    def checking(idata, **kw):
        diag = check(idata, **kw)
        if seen and not checked:  # the first check after stage 1's first run
            checked.append(diag)
            diag = replace(diag, **{"max_rhat": 1.0, "n_divergent": 0, **first})
        return diag

    monkeypatch.setattr(model, "_sample", sampling)
    monkeypatch.setattr(fitting, "check_convergence", checking)
    fit = model.fit(X, y)
    assert seen == runs
    stage = fit._judges_kept_[1]
    assert stage[0].posterior.sizes["draw"] == runs[-1][0]
    assert stage[1].n_draws == runs[-1][0]
    fitting.forget_judge_stage()
