"""The frequentist engine's small-budget rule (issue 35, the frequentist default; ``surrogates=
["small-budget"]``): which surrogates the AEE means use at which label counts, and that
it is not worse than the ridge alone at 40 labels."""

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
        (36, 9, ("judge_ridge", "no_model")),  # 4 labels per coefficient
        (179, 9, ("judge_ridge", "no_model")),  # 19.9
        (180, 9, ()),  # 20: the model's surrogate alone
        (400, 9, ()),
        (120, 18, ("judge_ridge", "no_model")),  # 6.7
    ],
)
def test_rule_by_labels_per_coefficient(labels, coefficients, expected):
    assert sur.freq_default(labels, coefficients) == expected
    asked = sur.resolve(["small-budget"], "ridge", "freq", labels=(labels, coefficients))
    assert asked == expected
    # the frequentist default (see the surrogates module docstring)
    assert sur.resolve(None, "ridge", "freq", labels=(labels, coefficients)) == expected


def test_rule_applies_to_the_frequentist_engine_only():
    small = (36, 9)
    rule = ["small-budget"]
    assert sur.resolve(rule, "ridge", "freq") == ()  # no label count: no rule
    assert sur.resolve(rule, "ridge", "freq", judge_mean=False, labels=small) == ()
    assert sur.resolve(rule, "gaussian", "bayes", labels=small) == ()
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


def test_the_rule_is_not_worse_than_the_ridge_at_40_labels():
    """Over 100 draws of 40 labels from one simulated pool of 1,000 items, the rule's
    AEE (the judges' leave-one-out ridge alone here: 40 / 9 < 20 labels per
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
        cal = Calibrator(engine="freq", seed=draw, surrogates=["small-budget"]).fit(pool)
        assert tuple(cal.extras_) == ("judge_ridge", "no_model")
        e = cal.estimate_mean()
        err["default"].append(e.estimate - truth)
        cover.append(e.ci_low <= truth <= e.ci_high)
        ridge = Calibrator(engine="freq", seed=draw, surrogates=[]).fit(pool)
        err["ridge"].append(ridge.estimate_mean().estimate - truth)
    rmse = {k: float(np.sqrt(np.mean(np.square(v)))) for k, v in err.items()}
    assert rmse["default"] <= rmse["ridge"], rmse
    assert 0.88 <= np.mean(cover) <= 1.0


def test_ppi_aipw_peer_rows_run_on_the_same_draws():
    """``bacon simulate --methods ppi-aipw``: ppi-aipw's two settings as rows beside ours,
    on the same labeled items (same trial, same n_labels), with their author named."""
    pytest.importorskip("ppi_aipw")
    from bacon_bayes.simulation.montecarlo import SimulationSpec, simulate, summarise

    frame = _table(np.random.default_rng(1), n=400)
    spec = SimulationSpec(label="y", judges=tuple(JUDGES), budgets=(0.1,), trials=3,
                          methods=("aee", "ppi-aipw"))  # fmt: skip
    trials = simulate(frame, spec, workers=1)
    assert set(trials["method"]) == {"aee", "ppi-aipw", "ppi-aipw-spline"}
    assert (trials.groupby("trial")["n_labels"].nunique() == 1).all()
    assert set(trials.loc[trials["method"] != "aee", "engine"]) == {"ppi-aipw"}
    assert np.isfinite(trials[["estimate", "ci_low", "ci_high"]].to_numpy()).all()
    summary = summarise(trials, spec.alpha).set_index("method")
    assert summary.loc["ppi-aipw", "by"].startswith("ppi-aipw")


def test_bacon_estimate_says_which_surrogate_the_means_use(capsys):
    """41 labels and 6 judges: the default rule's judges' ridge, named in the header;
    --surrogates none: the model's surrogate, nothing named."""
    from pathlib import Path

    from bacon_bayes.cli import main

    data = Path(__file__).resolve().parents[1] / "bacon_bayes/data/example_round2.csv"
    args = ["estimate", str(data), "--label", "human", "--judge", "gpt*", "--judge", "llama*",
            "--scale", "1:5", "--engine", "freq"]  # fmt: skip
    assert main(args) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "AEE means from judge_ridge (the judges' leave-one-out ridge: fewer than 20" in head
    assert main([*args, "--surrogates", "none"]) == 0
    assert "AEE means from" not in capsys.readouterr().out.splitlines()[0]
