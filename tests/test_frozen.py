"""A saved calibrator applied to a new pool (issue 34): frozen surrogate, refit, checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.errors import ValidationError
from bacon_bayes.frozen import MIN_FRESH_LABELS
from tests.interval_checks import assert_two_sided

JUDGES = ["j1", "j2", "j3"]


def table(n: int, seed: int, shift: float = 0.0, systems: tuple[str, ...] = ("a", "b")):
    rng = np.random.default_rng(seed)
    y = rng.normal(3.0, 1.0, n)
    frame = pd.DataFrame({"item": [f"{seed}-{i}" for i in range(n)], "y": y})
    for k, j in enumerate(JUDGES):
        frame[j] = 0.5 + (0.8 + 0.1 * k) * y + shift + rng.normal(0, 0.6 + 0.2 * k, n)
    frame["system"] = rng.choice(systems, n)
    return frame


def pool(frame: pd.DataFrame, labeled: np.ndarray | None = None) -> EvalPool:
    frame = frame.copy()
    if labeled is not None:
        frame.loc[~labeled, "y"] = np.nan
    return EvalPool.from_frame(
        frame, label="y", judges=JUDGES, outcome="continuous", group="system", item="item"
    )


@pytest.fixture(scope="module")
def old() -> Calibrator:
    frame = table(600, 0)
    labeled = np.random.default_rng(1).random(600) < 0.25
    return Calibrator(engine="freq").fit(pool(frame, labeled))


def test_the_frozen_surrogate_is_the_old_fold_average(old):
    # applied to its own pool's unlabeled items, it reproduces their surrogate exactly
    unlabeled = ~old.pool_.labeled
    again = old.apply(pool(table(600, 0), np.zeros(600, bool)))
    np.testing.assert_allclose(again.surrogate_[unlabeled], old.surrogate_[unlabeled])
    assert again.frozen_.n_labeled == old.pool_.n_labeled


def _shifted_rounds(old, rounds: int) -> tuple[float, np.ndarray, np.ndarray]:
    """``rounds`` draws of 40 fresh labels of a new round where every judge reads 0.4
    higher: the truth, the frozen AEE's (estimate, ci_low, ci_high) at 90% and the widths
    of a calibrator fitted on the fresh labels alone."""
    new = table(800, 7, shift=0.4)
    rng = np.random.default_rng(3)
    rows, alone = [], []
    for _ in range(rounds):
        labeled = np.zeros(800, bool)
        labeled[rng.choice(800, 40, replace=False)] = True
        e = old.apply(pool(new, labeled)).estimate_mean(0.1)
        rows.append((e.estimate, e.ci_low, e.ci_high))
        alone.append(Calibrator(engine="freq").fit(pool(new, labeled)).estimate_mean(0.1).width)
    return float(new["y"].mean()), np.array(rows), np.array(alone)


def test_frozen_aee_on_a_shifted_new_round_is_neither_too_wide_nor_too_narrow(old):
    """80 rounds: the frozen AEE's interval passes the fast check (tests/interval_checks.py:
    the fresh labels correct the old surrogate, no bias), which it fails widened 1.5 times
    or narrowed to 0.6, and it is narrower than the fresh labels' alone."""
    truth, rows, alone = _shifted_rounds(old, 80)
    assert_two_sided(*rows.T, truth, 0.1, what="frozen AEE, judges 0.4 higher")
    assert np.mean(rows[:, 2] - rows[:, 1]) < np.mean(alone)  # the old labels' model is worth it


@pytest.mark.slow
def test_frozen_aee_covers_a_shifted_new_round_and_beats_labels_alone(old):
    """Coverage both ways (a coarse band over 200 rounds) and bias near zero when every
    judge reads 0.4 higher in the new round: the fresh labels correct the old surrogate."""
    truth, rows, alone = _shifted_rounds(old, 200)
    est_, low, high = rows.T
    assert 0.84 <= np.mean((low <= truth) & (truth <= high)) <= 0.96  # 0.90 nominal
    assert abs(np.mean(est_ - truth)) < 0.03
    assert np.mean(high - low) < np.mean(alone)  # the old labels' model is worth having


def test_refit_uses_the_old_labels_and_round_trips(old, tmp_path):
    new = table(400, 9, shift=0.2)
    labeled = np.zeros(400, bool)
    labeled[::10] = True
    refit = old.apply(pool(new, labeled), refit=True)
    assert refit.refit_["n_old_labels"] == old.pool_.n_labeled
    assert not hasattr(refit, "frozen_")
    path = refit.save(tmp_path / "refit.nc")
    back = Calibrator.load(path)
    assert back.estimate_mean().to_dict() == refit.estimate_mean().to_dict()
    assert back.refit_["n_old_labels"] == old.pool_.n_labeled


def test_too_few_fresh_labels_mismatched_judges_scales_and_saving_are_refused(old, tmp_path):
    new = table(300, 11)
    labeled = np.zeros(300, bool)
    labeled[: MIN_FRESH_LABELS - 1] = True
    few = old.apply(pool(new, labeled))
    with pytest.raises(ValidationError, match="fresh label"):
        few.estimate_mean()
    assert few.predict(pool(new)).shape[0] == 300  # item scores need no fresh label
    with pytest.raises(ValidationError, match="save the calibrator it came from"):
        few.save(tmp_path / "x.nc")
    assert not (tmp_path / "x.nc").exists()
    other = new.drop(columns="j3")
    with pytest.raises(ValidationError, match="'j3'"):
        old.apply(EvalPool.from_frame(other, label="y", judges=JUDGES[:2], outcome="continuous"))
    rescaled = new.assign(j1=new["j1"] * 20)
    with pytest.raises(ValidationError, match="changed scale"):
        old.apply(pool(rescaled))
    ordinal = new.assign(y=np.nan)
    with pytest.raises(ValidationError, match="ordinal"):
        old.apply(
            EvalPool.from_frame(
                ordinal, label="y", judges=JUDGES, outcome="ordinal", levels=[1, 2, 3, 4, 5]
            )
        )


def test_the_round_budget_predicts_the_half_width_it_promises(old):
    """`bacon plan --calibrator`: the fresh labels it asks for give about the half-width
    asked (the mean over draws within 15%), from the old residuals when they transport."""
    from bacon_bayes.frozen import fresh_labels_for

    new = table(1000, 13)
    plan = fresh_labels_for(old.apply(pool(new)), half_width=0.05)
    n = plan["from_old_round"]
    assert 100 < n < 1000
    rng = np.random.default_rng(5)
    halves = []
    for _ in range(40):
        labeled = np.zeros(1000, bool)
        labeled[rng.choice(1000, n, replace=False)] = True
        halves.append(old.apply(pool(new, labeled)).estimate_mean(0.05).width / 2)
    assert 0.0425 < np.mean(halves) < 0.0575


def test_a_group_without_fresh_labels_blocks_neither_the_pool_nor_the_others(old, tmp_path, capsys):
    """Issue 40: a group without labels used to skip every group's mean; now it alone
    has no interval."""
    from bacon_bayes.cli import main

    saved = old.save(tmp_path / "old.nc")
    new = table(300, 17, systems=("a", "b", "c"))
    new.loc[(new["system"] == "c") | (np.arange(300) % 10 != 0), "y"] = np.nan
    new.to_csv(tmp_path / "new.csv", index=False)
    args = ["estimate", str(tmp_path / "new.csv"), "--label", "y", "--item", "item"]
    assert main([*args, "--group", "system", "--calibrator", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "calibrated (AEE)" in out
    assert "skipped" not in out
    assert "no interval for c: no labels" in out and "a - b " in out


def test_a_judge_missing_only_in_the_new_round_is_named(old, tmp_path, capsys):
    from bacon_bayes.cli import main

    saved = old.save(tmp_path / "old.nc")
    new = table(300, 19)
    new.loc[np.arange(300) % 10 != 0, "y"] = np.nan
    new.loc[new["system"] == "b", "j2"] = np.nan  # j2 scored every item of the old round
    new.to_csv(tmp_path / "new.csv", index=False)
    args = ["estimate", str(tmp_path / "new.csv"), "--label", "y", "--item", "item"]
    assert main([*args, "--calibrator", str(saved)]) == 0
    assert "note: 'j2' (" in capsys.readouterr().out


def test_posterior_item_intervals_of_a_new_pool_without_labels(old):
    """Finding T4-5: ``predict(new, method="posterior")`` on an unlabeled pool built its
    grid from the new pool's labels (none) and crashed with an IndexError; its grid now
    spreads the old residuals around the new surrogate, and the intervals cover."""
    new = table(2000, 12)
    items = old.predict(pool(new, np.zeros(2000, bool)), method="posterior")
    inside = (items["lower"] <= new["y"]) & (new["y"] <= items["upper"])
    assert 0.85 <= inside.mean() <= 0.95
    width = (items["upper"] - items["lower"]).mean()
    conformal = old.predict(pool(new, np.zeros(2000, bool)))
    assert abs(width / (conformal["upper"] - conformal["lower"]).mean() - 1) < 0.15


def test_a_few_fresh_labels_do_not_block_conformal_item_intervals(old):
    """Finding T4-11: with 1-8 fresh labels (too few for a 90% conformal interval of their
    own) predict refused, though it worked with none; the old residuals join them."""
    new = table(300, 13)
    none = old.predict(pool(new, np.zeros(300, bool)), level=0.9)
    labeled = np.zeros(300, bool)
    labeled[:3] = True
    few = old.predict(pool(new, labeled), level=0.9)
    width = few["upper"] - few["lower"]
    assert (
        width.notna().all() and abs(width.mean() / (none["upper"] - none["lower"]).mean() - 1) < 0.1
    )


def test_too_few_labels_for_item_intervals_of_a_new_pool_counts_old_and_fresh(old):
    """Tester B finding 13: the refusal counted the old round's residuals as "labeled
    items" and asked for labels without saying that the new pool's count with them."""
    n_old = old.pool_.n_labeled  # 150 or so: a 99.5% interval needs 199
    labeled = np.zeros(300, bool)
    labeled[:5] = True
    with pytest.raises(ValidationError) as caught:
        old.predict(pool(table(300, 14), labeled), level=0.995)
    message = str(caught.value)
    assert f"5 fresh labels in this pool and the calibrator's {n_old} saved residuals" in message
    assert f"needs 199 together; label {199 - 5 - n_old} more items of this pool" in message


def test_an_applied_bayesian_calibrators_judge_bias_is_the_new_pools(old):
    """Tester B finding 5: applied to a new pool, a Bayesian calibrator's judge-bias table
    was its fold models' posterior, the earlier round's biases, printed as this pool's;
    the frequentist engine measures them on the new pool. Both now do the latter. (The
    fold models here stand in for Bayesian ones: any use of their posterior fails.)"""
    import types

    from bacon_bayes.judge_bias import freq_judge_bias, posterior_table

    new = table(800, 15, shift=0.3)
    labeled = np.random.default_rng(5).random(800) < 0.1
    applied = old.apply(pool(new, labeled))
    applied.crossfit_.models = [
        types.SimpleNamespace(posterior_={}, family="gaussian") for _ in applied.crossfit_.models
    ]
    assert not posterior_table(applied)
    got = applied.judge_bias(0.9)
    pd.testing.assert_frame_equal(got, freq_judge_bias(applied, 0.9))
    truth = new[JUDGES].mean().to_numpy() - new["y"].mean()  # j1 is on the label's scale
    assert got["bias_low"][0] <= truth[0] <= got["bias_high"][0]


def test_a_judge_added_in_the_new_round_is_said_to_be_unused(old, tmp_path, capsys):
    """W12: a judge the saved calibrator never had (added in the next release) was taken
    without a word ("4 judges" in the header) and read by nothing but the naive average."""
    from bacon_bayes.cli import main
    from bacon_bayes.errors import PoolWarning

    new = table(300, 23)
    new["j4"] = new["j1"] + 0.1
    new.loc[np.arange(300) % 10 != 0, "y"] = np.nan
    four = EvalPool.from_frame(
        new, label="y", judges=[*JUDGES, "j4"], outcome="continuous", item="item"
    )
    with pytest.warns(PoolWarning, match="'j4' of this pool are not among"):
        applied = old.apply(four)
    assert any("'j4'" in note for note in applied.pool_warnings())
    assert not old.pool_warnings()  # the fitted calibrator itself says nothing of it
    saved = old.save(tmp_path / "old.nc")
    new.to_csv(tmp_path / "new.csv", index=False)
    args = ["estimate", str(tmp_path / "new.csv"), "--label", "y", "--item", "item",
            "--calibrator", str(saved), *[f"--judge={j}" for j in [*JUDGES, "j4"]]]  # fmt: skip
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "note: judge(s) 'j4' of this pool are not among" in captured.out
    assert "PoolWarning" not in captured.err


def test_labels_on_another_scale_are_refused_without_a_declared_scale(old):
    """W12: a calibrator fitted without `scale=` took a next round's labels on 0-100
    (its own 1-5) without a word: the transport check then read 'drifted' by 75 points,
    and `refit` trained one model on both scales. Labels mostly outside the calibrator's
    labels' range are refused now, as a judge's scores are; a shifted round is not."""
    new = table(300, 29)
    labeled = np.arange(300) % 10 == 0
    with pytest.raises(ValidationError, match=r"100% of this pool's 30 labels fall outside"):
        old.apply(pool(new.assign(y=new["y"] * 20), labeled))
    with pytest.raises(ValidationError, match="labels on another scale"):
        old.apply(pool(new.assign(y=new["y"] * 20), labeled), refit=True)
    assert old.apply(pool(new.assign(y=new["y"] + 0.5), labeled)).pool_.n_labeled == 30
