"""Multinomial (Dawid-Skene) judge model: closed forms, recovery, Calibrator wiring.

One module-scoped real NUTS fit (a 2-fold Calibrator on simulated binary data with
four categorical judges and one continuous judge, configured through a preset
file) serves every fitted-model test.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.bayes import ColumnSpec, MultinomialJudgeModel
from bacon_bayes.bayes.bias import judge_bias
from bacon_bayes.bayes.multinomial import class_log_joint, confusion_from_logits, label_link
from bacon_bayes.cli import main
from bacon_bayes.errors import ValidationError
from bacon_bayes.features import build_features
from bacon_bayes.model_choice import resolve_model
from bacon_bayes.simulation.categorical import simulate_categorical

N, N_LABELED, N_CAT = 700, 250, 4
JUDGES = ["j1", "j2", "j3", "j4", "c1"]
FAST_PRESET = """
family = "multinomial"
description = "test: few draws"
[priors]
offdiag_logit_mu = -1.5
[sampler]
draws = {draws}
tune = {tune}
chains = {chains}
"""
#: the fit's sampler: ``full`` (``make validate``) holds the convergence and recovery
#: checks; ``small`` (``make test``) runs the same path, 2 chains of 150 draws
SAMPLERS = {"full": (400, 500, 4), "small": (150, 200, 2)}


# ------------------------------------------------------------- closed forms
def _random_params(rng, n=6, Jc=3, Jn=2, K=3, d=2):
    lv = np.arange(K, dtype=float)
    said = rng.integers(0, K, size=(n, Jc))
    seen_c = rng.random((n, Jc)) > 0.25
    onehot = np.zeros((n, Jc, K))
    for i in range(n):
        for j in range(Jc):
            if seen_c[i, j]:
                onehot[i, j, said[i, j]] = 1.0
    L = rng.normal(size=(n, Jn))
    obs = (rng.random((n, Jn)) > 0.25).astype(float)
    return {
        "lv": lv,
        "said": said,
        "seen_c": seen_c,
        "onehot": onehot.reshape(n, -1),
        "L": L,
        "obs": obs,
        "free": rng.normal(-1, 1, size=(d, Jc, K, K - 1)),
        "log_prior": np.log(rng.dirichlet(np.ones(K), size=(d, n))),
        "mean": rng.normal(size=(d, Jn, K)),
        "log_sd": rng.normal(-0.3, 0.3, size=(d, n, Jn)),
    }


def test_confusion_rows_are_softmax_with_zero_diagonal_logit():
    rng = np.random.default_rng(0)
    free = rng.normal(size=(2, 3, 4, 3))
    log_conf = confusion_from_logits(free, 4)
    np.testing.assert_allclose(np.exp(log_conf).sum(-1), 1.0, rtol=1e-12)
    logit = log_conf - np.diagonal(log_conf, axis1=-2, axis2=-1)[..., None]
    for k in range(4):  # off-diagonal logits relative to the diagonal, in order
        np.testing.assert_allclose(np.delete(logit[..., k, :], k, axis=-1), free[..., k, :])


def test_class_log_joint_matches_brute_force_enumeration():
    rng = np.random.default_rng(1)
    p = _random_params(rng)
    log_conf = confusion_from_logits(p["free"], 3)
    got = class_log_joint(
        p["log_prior"], p["onehot"], log_conf, p["L"], p["obs"], p["mean"], p["log_sd"]
    )
    d, n, K = got.shape
    want = np.empty_like(got)
    for s in range(d):
        for i in range(n):
            for k in range(K):
                lp = p["log_prior"][s, i, k]
                for j in range(p["said"].shape[1]):
                    if p["seen_c"][i, j]:
                        lp += np.log(np.exp(log_conf[s, j, k, p["said"][i, j]]))
                for j in range(p["L"].shape[1]):
                    if p["obs"][i, j]:
                        sd = np.exp(p["log_sd"][s, i, j])
                        lp += stats.norm.logpdf(p["L"][i, j], p["mean"][s, j, k], sd)
                want[s, i, k] = lp
    np.testing.assert_allclose(got, want, rtol=1e-10)
    # the label link with weight 1 and no shift is the Dawid-Skene posterior
    post = got - special.logsumexp(got, axis=-1, keepdims=True)
    np.testing.assert_allclose(label_link(got, 1.0, np.zeros((d, 1, K - 1))), post)
    # otherwise softmax(c_k + w J_k), enumerated
    w, c = 0.4, np.array([0.3, -0.7])
    eta = w * got + np.array([0.0, *c])
    want_link = np.log(np.exp(eta) / np.exp(eta).sum(-1, keepdims=True))
    np.testing.assert_allclose(label_link(got, w, c), want_link, rtol=1e-10)


def test_pytensor_graph_equals_numpy():
    import pytensor
    import pytensor.tensor as pt

    rng = np.random.default_rng(2)
    p = _random_params(rng, d=1)
    free = pt.as_tensor(p["free"][0])
    sym = class_log_joint(
        pt.as_tensor(p["log_prior"][0]),
        pt.as_tensor(p["onehot"]),
        confusion_from_logits(free, 3, xp=pt),
        pt.as_tensor(p["L"]),
        pt.as_tensor(p["obs"]),
        pt.as_tensor(p["mean"][0]),
        pt.as_tensor(p["log_sd"][0]),
        xp=pt,
    )
    ref = class_log_joint(
        p["log_prior"],
        p["onehot"],
        confusion_from_logits(p["free"], 3),
        p["L"],
        p["obs"],
        p["mean"],
        p["log_sd"],
    )[0]
    shift = np.array([0.5, -0.2])
    sym_link = label_link(sym, pt.as_tensor(0.6), pt.as_tensor(shift), xp=pt)
    values = pytensor.function([], [sym, sym_link], mode="FAST_COMPILE")()  # no JIT wait
    np.testing.assert_allclose(values[0], ref, rtol=1e-10)
    np.testing.assert_allclose(values[1], label_link(ref, 0.6, shift), rtol=1e-10)


# ------------------------------------------------------ no-sampling checks
def test_judge_type_is_decided_from_the_data_and_overridable():
    sim = simulate_categorical(200, 2, 1, 0, levels=(0.0, 1.0, 2.0), seed=3)
    y = sim.y.copy()
    y[50:] = np.nan
    model = MultinomialJudgeModel(sim.columns)
    model._setup(sim.X, y)
    assert model.categorical_.tolist() == [True, True, False]
    assert model.levels_.tolist() == [0.0, 1.0, 2.0]
    forced = MultinomialJudgeModel(sim.columns, judge_types={"judge1": "continuous"})
    forced._setup(sim.X, y)
    assert forced.categorical_.tolist() == [False, True, False]
    with pytest.raises(ValidationError, match=r"judge 'judge3' gave score .* not an outcome"):
        MultinomialJudgeModel(sim.columns, judge_types={"judge3": "categorical"})._setup(sim.X, y)
    with pytest.raises(ValidationError, match="unknown judge"):
        MultinomialJudgeModel(sim.columns, judge_types={"nope": "continuous"})._setup(sim.X, y)
    with pytest.raises(
        ValidationError, match=r"label 5 is not one of the levels \[0.0, 1.0, 2.0\]"
    ):
        MultinomialJudgeModel(sim.columns, levels=[0, 1, 2])._setup(
            sim.X, np.where(np.arange(200) == 0, 5.0, y)
        )


def test_priors_are_documented_overridable_and_checked():
    model = MultinomialJudgeModel(ColumnSpec.simple(2), priors={"offdiag_logit_mu": -3.0})
    pr = model.resolved_priors()
    assert pr["offdiag_logit_mu"] == -3.0 and "offset_sd" not in pr
    with pytest.raises(ValidationError, match="do not apply to the multinomial"):
        MultinomialJudgeModel(ColumnSpec.simple(2), priors={"offset_sd": 2.0}).resolved_priors()
    with pytest.raises(ValidationError, match="unknown prior 'nope'"):
        MultinomialJudgeModel(ColumnSpec.simple(2), priors={"nope": 1.0}).resolved_priors()


def _frame(sim, n_labeled):
    df = pd.DataFrame(sim.X[:, : len(JUDGES)], columns=JUDGES)
    df["e1"], df["e2"] = sim.X[:, -2], sim.X[:, -1]
    df["y"] = np.where(np.arange(sim.y.size) < n_labeled, sim.y, np.nan)
    return df


def _pool(df):
    return EvalPool.from_frame(
        df, label="y", judges=JUDGES, outcome="categorical", embedding=["e1", "e2"]
    )


@pytest.fixture(scope="module")
def sim():
    return simulate_categorical(N, N_CAT, 1, 2, accuracy=(0.65, 0.9), seed=7)


def test_auto_engine_picks_the_logistic_for_categorical_and_presets_wire_up(sim, tmp_path):
    pool = _pool(_frame(sim, N_LABELED))
    cal = Calibrator()
    cal.features_ = build_features(pool)
    _, name, engine = resolve_model(cal, pool, cal.features_)
    assert (name, engine) == ("multinomial", "freq")  # the logistic predicts better
    model, name, engine = resolve_model(Calibrator(engine="bayes"), pool, cal.features_)
    assert (name, engine) == ("multinomial", "bayes")
    assert isinstance(model, MultinomialJudgeModel)
    assert model.levels == (0.0, 1.0)
    model, _, engine = resolve_model(Calibrator(preset="multinomial"), pool, cal.features_)
    assert engine == "bayes" and model.draws == 400 and model.priors["offdiag_logit_mu"] == -2.0
    with pytest.raises(ValidationError, match=r"--engine freq \(engine='freq'\) cannot use preset"):
        resolve_model(Calibrator(preset="multinomial", engine="freq"), pool, cal.features_)
    with pytest.raises(ValidationError, match=r"but --model ordinal \(model='ordinal'\)"):
        resolve_model(Calibrator("ordinal", preset="multinomial"), pool, cal.features_)


def test_cli_preset_argument_builds_the_calibrator():
    from bacon_bayes.cli import build_parser
    from bacon_bayes.cli.pool_args import calibrator_from_args

    args = build_parser().parse_args(["estimate", "t.csv", "--preset", "multinomial"])
    cal = calibrator_from_args(args)
    assert cal.preset == "multinomial" and cal.engine == "auto" and cal.model is None


def test_cli_unknown_preset_is_a_clean_error_listing_known_ones(tmp_path, capsys):
    code = main(["estimate", str(tmp_path / "t.csv"), "--label", "y", "--preset", "nope"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no preset named 'nope'" in err and "multinomial" in err and "ordinal" in err
    code = main(["estimate", "t.csv", "--label", "y", "--preset", str(tmp_path / "x.toml")])
    assert code == 2 and "does not exist" in capsys.readouterr().err


def test_freq_engine_gives_a_judge_bias_table_from_the_data(sim):
    cal = Calibrator(engine="freq", folds=2).fit(_pool(_frame(sim, N_LABELED)))
    table = cal.judge_bias()
    assert list(table["judge"]) == list(cal.pool_.judges)
    assert {"bias", "bias_low", "bias_high", "same_scale", "noise_human"} <= set(table)


# ------------------------------------------------------------- real NUTS
@pytest.fixture(scope="module", params=["small", pytest.param("full", marks=pytest.mark.slow)])
def fitted(request, sim, tmp_path_factory):
    draws, tune, chains = SAMPLERS[request.param]
    preset = tmp_path_factory.mktemp("preset") / "fast.toml"
    preset.write_text(FAST_PRESET.format(draws=draws, tune=tune, chains=chains))
    cal = Calibrator(folds=2, seed=1, preset=str(preset)).fit(_pool(_frame(sim, N_LABELED)))
    cal.sampler_kind = request.param  # type: ignore[attr-defined]
    return cal


def test_fit_converges_and_uses_the_preset(fitted):
    assert fitted.engine_ == "bayes" and fitted.model_name_ == "multinomial"
    for m in fitted.crossfit_.models:
        assert isinstance(m, MultinomialJudgeModel)
        assert m.draws == SAMPLERS[fitted.sampler_kind][0]
        assert m.resolved_priors()["offdiag_logit_mu"] == -1.5
        assert m.constants_["categorical"] == [True] * N_CAT + [False]
        d = m.diagnostics_
        if fitted.sampler_kind == "full":
            # at most 0.2% divergent transitions (measured: 0-1 of 1,600)
            assert d.n_divergent <= 3 and d.max_rhat < 1.02 and d.min_ess_bulk > 300, d


def test_recovers_confusion_matrices_and_class_means(fitted, sim):
    table = fitted.judge_bias(level=0.998)
    cat = table.iloc[:N_CAT]
    truth = {"fpr": sim.confusion[:, 0, 1], "fnr": sim.confusion[:, 1, 0]}
    for q, t in truth.items():
        assert np.all((cat[f"{q}_low"] <= t) & (t <= cat[f"{q}_high"])), (q, cat, t)
        assert np.abs(cat[q] - t).mean() < 0.06, (q, cat[q].to_numpy(), t)
        # judges independent given the class: the rates against the human labels agree
        assert np.abs(cat[f"{q}_human"] - t).mean() < 0.06, (q, cat[f"{q}_human"], t)
    cont = table.iloc[N_CAT]
    for k in (0, 1):
        lo, hi = cont[f"mean_{k}_low"], cont[f"mean_{k}_high"]
        assert lo <= sim.class_means[0, k] <= hi
    assert cont["noise_low"] <= sim.noise[0] <= cont["noise_high"]
    assert table["type"].tolist() == ["categorical"] * N_CAT + ["continuous"]
    assert np.isnan(cont["fpr"]) and np.isnan(cat["noise"]).all()


def test_predictions_follow_the_discrete_outcome_contract(fitted, sim):
    model = fitted.crossfit_.models[0]
    X = fitted.features_.X[N_LABELED:]
    y = sim.y[N_LABELED:]
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    mean = model.predict(X)
    np.testing.assert_allclose(mean, proba[:, 1])  # levels 0/1: E[Y|x] = P(y = 1 | x)
    np.testing.assert_allclose(model.predict_var(X), mean * (1 - mean))
    cdf = model.predict_cdf(X, np.array([-0.5, 0.0, 0.5, 1.0]))
    np.testing.assert_allclose(cdf, np.column_stack([0 * mean, 1 - mean, 1 - mean, 1 + 0 * mean]))
    # better than every single judge and than a majority vote of the categorical judges
    acc = np.mean((mean > 0.5) == (y == 1))
    votes = sim.X[N_LABELED:, :N_CAT]
    single = [np.nanmean(votes[:, j] == y) for j in range(N_CAT)]
    assert acc > max(single) + 0.02, (acc, single)
    # prediction sets: the top level, plus the other when it is needed for 90%
    sets = model.predict_sets(X, 0.9)
    np.testing.assert_array_equal(sets[:, 1], mean > 0.1)
    np.testing.assert_array_equal(sets[:, 0], mean < 0.9)
    covered = sets[np.arange(y.size), y.astype(int)].mean()
    assert 0.88 <= covered <= 0.99, covered
    # calibrated: predicted and observed positive rates agree in halves of the score
    for part in (mean < 0.5, mean >= 0.5):
        assert abs(mean[part].mean() - y[part].mean()) < 0.06


def test_save_load_round_trip_is_exact(fitted, tmp_path):
    from bacon_bayes.bayes.io import load_model, save_model

    model = fitted.crossfit_.models[1]
    back = load_model(save_model(model, tmp_path / "m.nc"))
    X = fitted.features_.X[:100]
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    assert back.fit_id_ == model.fit_id_


def test_saved_calibrator_gives_the_same_estimates_and_bias(fitted, tmp_path):
    back = Calibrator.load(fitted.save(tmp_path / "cal.nc"))
    assert back.preset == fitted.preset and back.engine_ == "bayes"
    np.testing.assert_array_equal(back.surrogate_, fitted.surrogate_)
    assert back.estimate_mean().to_dict() == fitted.estimate_mean().to_dict()
    pd.testing.assert_frame_equal(back.judge_bias(), fitted.judge_bias())


def test_estimate_and_judge_bias_plot(fitted, sim, tmp_path):
    est = fitted.estimate_mean(alpha=0.001)
    assert est.ci_low <= sim.y.mean() <= est.ci_high
    assert est.width < fitted.estimate_mean(alpha=0.001, method="classical").width
    plot = tmp_path / "bias.png"
    table = fitted.judge_bias(plot_path=str(plot))
    assert plot.stat().st_size > 1000
    assert list(table.columns[:2]) == ["judge", "type"] and "fnr_high" in table


# ------------------------------------------------------------------ slow
@pytest.mark.slow
def test_confusion_intervals_cover_at_nominal_rate():
    """Repeated simulations: 90% intervals of every judge's fpr and fnr."""
    hits = []
    for rep in range(20):
        sim = simulate_categorical(600, 4, 0, 2, accuracy=(0.65, 0.9), seed=2000 + rep)
        y = sim.y.copy()
        y[150:] = np.nan
        fit = MultinomialJudgeModel(sim.columns, draws=300, tune=400, seed=rep, warn=False)
        table = judge_bias(fit.fit(sim.X, y), level=0.9)
        for q, truth in (("fpr", sim.confusion[:, 0, 1]), ("fnr", sim.confusion[:, 1, 0])):
            hits.extend((table[f"{q}_low"] <= truth) & (truth <= table[f"{q}_high"]))
    n = len(hits)
    lo, hi = stats.binom.ppf([0.005, 0.995], n, 0.9) / n
    rate = float(np.mean(hits))
    assert lo <= rate <= hi, f"coverage {rate:.3f} outside [{lo:.3f}, {hi:.3f}] over {n} intervals"


@pytest.mark.slow
def test_cli_judges_and_estimate_preset_on_categorical_data(sim, tmp_path, capsys):
    df = _frame(sim, N_LABELED)
    df.to_csv(tmp_path / "t.csv", index=False)
    plot = tmp_path / "bias.png"
    base = [str(tmp_path / "t.csv"), "--label", "y"]
    opts = ["--outcome", "categorical", "--plot", str(plot), "--draws", "300"]
    code = main(["judges", *base, "--judges", *JUDGES, *opts])
    out = capsys.readouterr().out
    assert code == 0 and plot.exists()
    assert "fpr" in out and "fnr" in out and "categorical" in out and "continuous" in out
    assert "fpr_human_low" in out and "fnr_human_high" in out  # AEE rates against people
    judges = [a for j in JUDGES for a in ("--judge", j)]
    code = main(
        [
            "estimate",
            *base,
            *judges,
            "--outcome",
            "categorical",
            "--preset",
            "multinomial",
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    summary = json.loads(out)
    assert summary["engine"] == "bayes" and summary["preset"] == "multinomial"
    aee = summary["mean"]["aee"]
    assert aee["ci_low"] <= sim.y.mean() <= aee["ci_high"]
