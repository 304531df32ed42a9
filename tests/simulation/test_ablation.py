"""Oracle ablation (`bacon simulate --ablation`): on data with a known structure it ranks
the feature sets as that structure says, its metrics are the out-of-fold ones, and bad
input is refused with nothing written."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bacon_bayes.cli import main
from bacon_bayes.crossfit import make_folds
from bacon_bayes.features import build_features
from bacon_bayes.simulation.ablation import (
    AblationSpec,
    _runs,
    ablation,
    ablation_markdown,
    read_ablation,
)


def table(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """One informative judge, one pure-noise judge, and a 4-column embedding carrying a
    second signal that no judge sees."""
    rng = np.random.default_rng(seed)
    q, c = rng.normal(0, 1, n), rng.normal(0, 1, n)
    emb = np.column_stack([c + rng.normal(0, 0.3, n), rng.normal(0, 1, (n, 3))])
    frame = pd.DataFrame(
        {
            "item": [f"i{k}" for k in range(n)],
            "good": 2 * q + 3 + rng.normal(0, 0.5, n),
            "noise": rng.normal(3, 1, n),
            "y": q + 0.6 * c + rng.normal(0, 0.5, n),
        }
    )
    for k in range(emb.shape[1]):
        frame[f"emb_{k + 1}"] = emb[:, k]
    return frame


SPEC = AblationSpec(label="y", judges=("good", "noise"), item="item", embedding="emb_")


@pytest.fixture(scope="module")
def result() -> pd.DataFrame:
    return ablation(table(), SPEC).set_index("config")


def test_the_ablation_ranks_the_feature_sets_by_the_known_structure(result):
    r2 = result["r2"]
    assert r2["judge: good"] > 0.5
    assert -0.02 < r2["judge: noise"] < 0.01  # pure noise: ~0 out of fold, never a gain
    assert -0.02 < r2["intercept"] <= 0.0
    assert r2["judges"] >= max(r2["judge: good"], r2["judge: noise"]) - 0.01
    assert r2["embeddings"] > 0.15  # the embedding's own signal
    assert r2["judges + embeddings"] > r2["judges"] + 0.1  # ... which the judges lack
    assert r2["judge: good + embeddings"] > r2["judge: good"] + 0.1
    assert result.loc["raw judge: noise", "spearman"] == pytest.approx(0, abs=0.1)
    assert result.loc["judge: good", "spearman"] > 0.7
    # one judge: within a fold the fitted model is monotone in its score (winsorised)
    assert result.loc["judge: good", "spearman_in_fold"] == pytest.approx(
        result.loc["raw judge: good", "spearman_in_fold"], abs=0.01
    )
    assert (result["note"] == "").all()
    assert set(result.loc[result["type"] == "calibrated", "family"]) == {"ridge", "-"}


def test_metrics_are_the_out_of_fold_ones_on_every_item(result):
    frame = table()
    y = frame["y"].to_numpy()
    # raw judge average: the plain mean of the judge scores, no fitting
    avg = frame[["good", "noise"]].mean(axis=1).to_numpy()
    row = result.loc["raw judge average"]
    assert row["r2"] == pytest.approx(1 - np.sum((y - avg) ** 2) / np.sum((y - y.mean()) ** 2))
    assert row["rmse"] == pytest.approx(np.sqrt(np.mean((y - avg) ** 2)))
    assert row["spearman"] == pytest.approx(stats.spearmanr(avg, y).statistic)
    assert row["n_items"] == len(frame)
    # intercept: the mean of the labels outside the item's fold (same folds as the models)
    folds = make_folds(np.ones(len(y), dtype=bool), SPEC.folds, SPEC.seed)
    pred = np.array([y[folds != folds[i]].mean() for i in range(len(y))])
    assert result.loc["intercept", "rmse"] == pytest.approx(np.sqrt(np.mean((y - pred) ** 2)))


def test_no_embedding_gives_notes_not_a_failure_and_runs_are_deterministic():
    frame = table().filter(regex="^(?!emb_)")
    spec = AblationSpec(label="y", judges=("good", "noise"))
    out = ablation(frame, spec)
    skipped = out[out["note"] != ""]
    assert list(skipped["config"]) == [
        "judges + embeddings",
        "judge: each + embeddings",
        "embeddings",
    ]
    assert skipped["r2"].isna().all()
    assert out.loc[out["note"] == "", "r2"].notna().all()
    pd.testing.assert_frame_equal(out, ablation(frame, spec))
    assert "| judges | calibrated | ridge | freq |" in ablation_markdown(out)


def test_every_frequentist_family_of_the_outcome_type_gets_its_rows():
    frame = table(300)
    frame["y"] = np.exp(frame["y"] / 2) * (frame["y"] > -0.5)  # zero mass + skew
    out = ablation(frame, AblationSpec(label="y", judges=("good", "noise"), outcome="nonnegative"))
    fams = out.loc[out["config"] == "judges", "family"].tolist()
    assert fams == ["hurdle", "ridge"]
    assert out.loc[out["config"] == "judges", "r2"].gt(0.2).all()
    binary = table(300).assign(y=lambda f: (f["y"] > 0).astype(float))
    spec = AblationSpec(label="y", judges=("good", "noise"), outcome="categorical", levels=(0, 1))
    out = ablation(binary, spec)
    assert out.loc[out["config"] == "judges", "family"].tolist() == ["multinomial", "ridge"]
    only = ablation(binary, AblationSpec(**{**spec.__dict__, "models": ("multinomial",)}))
    assert set(only["family"]) == {"multinomial", "-"}
    # an ordinal label: the frequentist families only (not the Bayesian-only "pairwise")
    graded = table(300).assign(y=lambda f: np.digitize(f["y"], [-0.5, 0.5]).astype(float))
    spec = AblationSpec(label="y", judges=("good", "noise"), outcome="ordinal", levels=(0, 1, 2))
    fams = ablation(graded, spec).query("config == 'judges'")["family"].tolist()
    assert "pairwise" not in fams and fams[0] == "ordinal", fams


@pytest.fixture(scope="session")
def bayes_ablation() -> tuple[pd.DataFrame, AblationSpec]:
    """A small real Bayesian ablation: two informative judges, 150 items, 2 folds."""
    rng = np.random.default_rng(1)
    n = 150
    q = rng.normal(0, 1, n)
    frame = pd.DataFrame(
        {"a": q + rng.normal(0, 0.5, n), "b": 0.7 * q + rng.normal(0, 0.7, n),
         "y": q + rng.normal(0, 0.5, n)}
    )  # fmt: skip
    spec = AblationSpec(label="y", judges=("a", "b"), engines=("freq", "bayes"), folds=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings of a short fit
        return ablation(frame, spec), spec


def test_bayesian_rows_are_judges_only_by_default_and_close_to_the_ridge(bayes_ablation):
    out, _ = bayes_ablation
    bayes = out[out["engine"] == "bayes"].set_index("config")
    assert list(bayes.index) == ["judges + embeddings", "judges"]  # basic: no singles
    assert bayes.loc["judges + embeddings", "note"].startswith("no embedding")
    freq = out[out["engine"] == "freq"].set_index("config")
    assert bayes.loc["judges", "family"] == "gaussian"
    assert abs(bayes.loc["judges", "r2"] - freq.loc["judges", "r2"]) < 0.1
    assert bayes.loc["judges", "r2"] > 0.5


def test_full_gives_the_bayesian_engine_every_feature_set():
    frame = table(100)
    spec = AblationSpec(label="y", judges=("good", "noise"), embedding="emb_",
                        engines=("freq", "bayes"), bayes_sets="full")  # fmt: skip
    pool = spec.pool(frame)
    runs = _runs(spec, pool, build_features(pool))
    bayes = [(r[0], r[3]) for r in runs if r[4] == "bayes"]
    freq = [r[0] for r in runs if r[4] == "freq"]
    assert [c for c, _ in bayes] == freq  # the same feature sets as the ridge
    assert {f for _, f in bayes} == {"gaussian"}
    basic = AblationSpec(**{**spec.__dict__, "bayes_sets": "basic"})
    assert [r[0] for r in _runs(basic, pool, build_features(pool)) if r[4] == "bayes"] == [
        "judges + embeddings",
        "judges",
    ]


def test_a_judge_with_missing_scores_is_scored_where_it_scored():
    frame = table(300)
    frame.loc[[1, 5, 9], "good"] = np.nan
    out = ablation(frame, AblationSpec(label="y", judges=("good", "noise"))).set_index("config")
    raw = out.loc["raw judge: good"]
    assert raw["n_items"] == 297 and raw["note"] == "on the 297 items it scored"
    assert out.loc["judge: good", "n_items"] == 300  # imputed, with a missing flag
    assert out.loc["judge: good", "n_features"] == 2
    assert out.loc["raw judge average", "n_items"] == 300  # the other judge scored them


def test_cli_writes_the_table_and_keeps_it_beside_a_monte_carlo(tmp_path, capsys):
    path = tmp_path / "t.csv"
    table(300).to_csv(path, index=False)
    out = tmp_path / "sim"
    args = ["simulate", str(path), "--label", "y", "--judges", "good,noise",
            "--embedding", "emb_", "--ablation", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "| judges + embeddings | calibrated | ridge | freq |" in printed
    saved = read_ablation(out / "ablation.csv")
    direct = ablation(
        pd.read_csv(path),
        AblationSpec(label="y", judges=("good", "noise"), embedding="emb_"),
    )
    pd.testing.assert_frame_equal(saved, direct)  # round-trips exactly
    assert (out / "ablation.md").read_text() == ablation_markdown(direct)
    settings = json.loads((out / "ablation_settings.json").read_text())
    assert settings["embedding"] == "emb_" and settings["bayes_sets"] == "basic"
    mc = ["simulate", str(path), "--label", "y", "--judges", "good,noise", "--budgets", "0.2",
          "--trials", "1", "--out", str(out)]  # fmt: skip
    assert main(mc) == 0
    assert {"ablation.csv", "ablation.md", "ablation_settings.json", "summary.csv"} <= {
        p.name for p in out.iterdir()
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"--label": "nope"}, "column 'nope' is not in the table"),
        ({"--judges": "good,missing"}, "column 'missing' is not in the table"),
        ({"--embedding": "vec_"}, "no column starts with the embedding prefix 'vec_'"),
        ({"--models": "hurdle"}, "does not fit a continuous outcome"),
        ({"--models": "forest"}, "model 'forest' is not known"),
        ({"--trials": "10"}, "--trials belong to the Monte Carlo"),
        ({"--folds": "1"}, "at least 2 folds"),
        ({"--ablation": "everything"}, None),  # argparse refuses the choice
        ({"unlabeled": True}, "is empty at line 5"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(tmp_path, capsys, change, message):
    frame, change = table(100), dict(change)
    if change.pop("unlabeled", False):
        frame.loc[3, "y"] = np.nan
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    opts = {"--label": "y", "--judges": "good,noise", "--ablation": "basic"} | change
    args = ["simulate", str(path), "--out", str(tmp_path / "sim")]
    args += [v for kv in opts.items() for v in kv]
    if message is None:
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 2
    else:
        assert main(args) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [path]


def test_models_without_ablation_is_refused(tmp_path, capsys):
    path = tmp_path / "t.csv"
    table(100).to_csv(path, index=False)
    args = ["simulate", str(path), "--label", "y", "--judges", "good,noise", "--models",
            "ridge", "--out", str(tmp_path / "sim")]  # fmt: skip
    assert main(args) == 2
    assert "--models applies to --ablation only" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [path]


def test_rows_without_a_label_can_be_left_out(tmp_path, capsys):
    """TriviaQA as shipped: 400 rows of one model that no human rated stopped `bacon
    simulate` (it needs every label), with no option to leave them out. --drop-unlabeled
    leaves them out, counted, and the refusal names it."""
    frame = table(100)
    frame.loc[[3, 50], "y"] = np.nan
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    args = ["simulate", str(path), "--label", "y", "--judges", "good,noise", "--ablation", "basic"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 2
    assert "--drop-unlabeled" in capsys.readouterr().err
    assert main([*args, "--out", str(tmp_path / "b"), "--drop-unlabeled"]) == 0
    assert "--drop-unlabeled left out 2 row(s) without a label" in capsys.readouterr().out
