"""`bacon simulate`: deterministic trials wherever they run, the outputs, clear refusals,
and intervals whose coverage is in the binomial band (too low and too wide both fail)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.errors import ValidationError
from bacon_bayes.sampling import SMALL_PILOT
from bacon_bayes.simulation.montecarlo import SimulationSpec, simulate, summarise, trial_seed


def table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = rng.normal(3, 0.8, n)
    return pd.DataFrame(
        {
            "item": [f"i{k}" for k in range(n)],
            "j1": q + rng.normal(0.3, 0.6, n),
            "j2": 0.5 * q + rng.normal(0, 0.8, n),
            "system": np.array(["a", "b", "c", "d"])[np.arange(n) % 4],
            "y": q + rng.normal(0, 0.5, n) + 0.3 * (np.arange(n) % 4),
        }
    )


SPEC = SimulationSpec(
    label="y", judges=("j1", "j2"), group="system", item="item", budgets=(0.1, 0.2),
    trials=3, designs=("uniform", "stratified", "adaptive"), methods=("classical", "aee", "ppi"),
)  # fmt: skip


def test_trials_are_the_same_serial_in_processes_and_in_any_order():
    frame = table()
    serial = simulate(frame, SPEC)
    assert set(serial["method"]) == {"classical", "aee", "ppi-mean", "ppi-ridge"}
    assert len(serial) == 2 * 3 * (2 + 2) + 2 * 2 * 3 * 2  # ppi rows only under uniform
    pd.testing.assert_frame_equal(serial, simulate(frame, SPEC, workers=2))
    alone = simulate(frame, SimulationSpec(**{**SPEC.__dict__, "budgets": (0.2,)}))
    pd.testing.assert_frame_equal(
        alone, serial[serial["budget"] == 0.2].reset_index(drop=True), check_dtype=False
    )
    assert trial_seed(0, 0.1, 2).spawn_key != trial_seed(0, 0.2, 2).spawn_key
    same = serial[serial["method"].isin(["aee", "ppi-ridge"]) & (serial["design"] == "uniform")]
    assert same.groupby(["budget", "trial"])["n_labels"].nunique().eq(1).all()


def test_cli_writes_every_output_and_a_summary_with_bands(tmp_path, capsys):
    path = tmp_path / "t.csv"
    table().to_csv(path, index=False)
    out = tmp_path / "sim"
    args = ["simulate", str(path), "--label", "y", "--judges", "j1,j2", "--group", "system",
            "--budgets", "0.1,0.2", "--trials", "3", "--designs", "uniform,stratified",
            "--methods", "classical,aee,ppi", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    assert {p.name for p in out.iterdir()} == {
        "trials.parquet", "summary.csv", "settings.json", "rmse_width.png", "coverage.png"
    }  # fmt: skip
    summary = pd.read_csv(out / "summary.csv")
    for col in ("bias", "sd", "rmse", "width", "coverage", "band_low", "band_high",
                "label_multiplier", "simultaneous_coverage", "spearman", "kendall",
                "rank_mae", "rank_coverage", "oof_r2", "oof_rmse", "by"):  # fmt: skip
        assert col in summary, col
    base = summary[(summary["design"] == "uniform") & (summary["method"] == "classical")]
    assert np.allclose(base["label_multiplier"], 1.0)
    assert set(summary.loc[summary["method"].str.startswith("ppi"), "by"]) == {"ppi_py (PPI++)"}
    trials = pd.read_parquet(out / "trials.parquet")
    assert "group:a:estimate" in trials and "group:a:truth" in trials


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"budgets": "1.5"}, "a whole number of labels up to its"),
        ({"budgets": "0.01"}, "fewer than two per cross-fitting fold"),
        ({"designs": "snowball"}, "design 'snowball' is not known"),
        ({"methods": "magic"}, "method 'magic' is not known"),
        ({"label": "nope"}, "column 'nope' is not in the table"),
        ({"surrogates": "oracle"}, "surrogate 'oracle' is not known"),
        ({"surrogates": "hurdle"}, "does not fit a continuous label"),
        ({"surrogates": "ridge"}, "the calibrator's own model already"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(tmp_path, capsys, change, message):
    frame = table()
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    opts = {"label": "y", "judges": "j1,j2", "budgets": "0.1", "trials": "2",
            "designs": "uniform", "methods": "aee", **change}  # fmt: skip
    args = ["simulate", str(path), "--out", str(tmp_path / "sim")]
    for key, value in opts.items():
        args += [f"--{key}", value]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [path]


def test_extra_surrogates_reach_the_aee_rows_and_none_is_none(tmp_path, capsys):
    """``--surrogates judge_mean``: the AEE rows combine the model with the judge mean (as
    ``Calibrator(surrogates=...)`` on the same draw), the classical rows are unchanged,
    and the settings record it; ``none`` is the model alone (the default here)."""
    frame = table()
    spec = SimulationSpec(label="y", judges=("j1", "j2"), budgets=(0.2,), trials=2,
                          surrogates=("judge_mean",))  # fmt: skip
    both = simulate(frame, spec)
    alone = simulate(frame, SimulationSpec(**{**spec.__dict__, "surrogates": ()}))
    default = simulate(frame, SimulationSpec(**{**spec.__dict__, "surrogates": None}))
    pd.testing.assert_frame_equal(alone, default)
    aee = both["method"] == "aee"
    assert not np.allclose(both.loc[aee, "estimate"], alone.loc[aee, "estimate"])
    pd.testing.assert_frame_equal(both[~aee], alone[~aee])
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    args = [
        "simulate",
        str(path),
        "--label",
        "y",
        "--judges",
        "j1,j2",
        "--budgets",
        "0.2",
        "--trials",
        "2",
        "--surrogates",
        "judge_mean",
        "--out",
        str(tmp_path / "sim"),
    ]
    assert main(args) == 0
    cli = pd.read_parquet(tmp_path / "sim" / "trials.parquet")
    np.testing.assert_allclose(cli.loc[cli["method"] == "aee", "estimate"],
                               both.loc[aee, "estimate"])  # fmt: skip
    assert '"judge_mean"' in (tmp_path / "sim" / "settings.json").read_text()


def test_a_table_with_unlabeled_rows_is_refused_with_the_row():
    frame = table()
    frame.loc[7, "y"] = np.nan
    with pytest.raises(ValidationError, match=r"is empty at row 7"):
        simulate(frame, SPEC)


@pytest.mark.slow  # make test: tests/simulation/test_paired_simulate.py (simulate's pool
# mean in band, uniform and paired) and tests/test_coverage.py (the AEE mean: band, bias,
# width against the labels alone)
def test_aee_coverage_is_in_the_binomial_band():
    """400 uniform draws of 30 labels: the AEE and classical 90% intervals cover the
    table's mean at a rate inside the two-sided binomial band (fails if too narrow or too
    wide); the AEE is unbiased and more precise than the labels alone. (At 200 draws the
    first half alone covered 0.955 with the judges' ridge and 0.940 with the model's
    surrogate, on the band's edge for both: their mean se, 0.132, matches their sd.)"""
    frame = table(n=300, seed=5)
    spec = SimulationSpec(label="y", judges=("j1", "j2"), budgets=(0.1,), trials=400,
                          methods=("classical", "aee"), alpha=0.1)  # fmt: skip
    # in this process: the same rows as on a pool (test_trials_are_the_same_serial_...)
    # without spawning two interpreters that import bacon again
    summary = summarise(simulate(frame, spec), spec.alpha).set_index("method")
    assert summary["coverage_in_band"].all(), summary[["coverage", "band_low", "band_high"]]
    aee = summary.loc["aee"]
    assert abs(aee["bias"]) < 3 * aee["sd"] / np.sqrt(200)
    assert aee["rmse"] < summary.loc["classical", "rmse"]


def binary_table(n: int = 600, seed: int = 1) -> pd.DataFrame:
    """A binary label whose error variance p(1 - p) varies a lot with the judges."""
    rng = np.random.default_rng(seed)
    logit = rng.normal(0, 2.5, n)
    p = 1 / (1 + np.exp(-logit))
    return pd.DataFrame(
        {
            "j1": (logit + rng.normal(0, 0.7, n) > 0).astype(float),
            "j2": logit + rng.normal(0, 1.0, n),
            "y": (rng.random(n) < p).astype(float),
        }
    )


def test_adaptive_design_keeps_coverage_and_steps_back_when_no_gain():
    """Binary labels (error sd sqrt(p(1 - p)) varies): the pilot predicts a gain in some
    trials and the second wave then follows the predicted sd; either way the AEE's 90%
    intervals over 150 trials cover inside the binomial band. Homoskedastic continuous
    labels (ridge: constant predictive sd): it stays uniform."""
    spec = SimulationSpec(label="y", judges=("j1", "j2"), outcome="categorical", levels=(0, 1),
                          budgets=(0.15,), trials=150, designs=("adaptive",),
                          methods=("aee",), alpha=0.1)  # fmt: skip
    trials = simulate(binary_table(), spec)  # in this process: the same rows as on a pool
    chose = trials["adaptive_choice"] == "adaptive"
    assert 0.1 < chose.mean() and (trials.loc[chose, "expected_ratio"] < 0.95).all()
    summary = summarise(trials, spec.alpha).iloc[0]
    assert summary["coverage_in_band"], summary[["coverage", "band_low", "band_high"]]
    homo = SimulationSpec(label="y", judges=("j1", "j2"), budgets=(0.15,), trials=6,
                          designs=("adaptive", "uniform"), methods=("aee",))  # fmt: skip
    both = simulate(table(n=600, seed=2), homo)  # pilot of 27: 9 per coefficient
    back = both[both["design"] == "adaptive"]
    assert (back["adaptive_choice"] == "uniform").all()
    # common random numbers: a trial that steps back is exactly the uniform design's trial
    same = both[both["design"] == "uniform"]
    cols = ["estimate", "ci_low", "ci_high", "n_labels"]
    assert np.allclose(back[cols].to_numpy(), same[cols].to_numpy(), rtol=1e-12, atol=0)


def test_a_small_pilot_steps_back_whatever_the_predicted_gain():
    """Fewer than 5 pilot labels per coefficient of the outcome model: the second wave is
    uniform even where a larger pilot follows the sd (the same binary table), and the
    trial equals the uniform design's trial; the pilot is not fitted."""
    spec = SimulationSpec(label="y", judges=("j1", "j2"), outcome="categorical", levels=(0, 1),
                          budgets=(0.045,), trials=4, designs=("adaptive", "uniform"),
                          methods=("aee",))  # fmt: skip
    rows = simulate(binary_table(), spec)  # 27 labels, a pilot of 10 < 5 x 3
    back = rows[rows["design"] == "adaptive"]
    assert (back["adaptive_choice"] == SMALL_PILOT).all()
    assert back["expected_ratio"].isna().all()  # the small pilot was not fitted
    same = rows[rows["design"] == "uniform"]
    cols = ["estimate", "ci_low", "ci_high", "n_labels"]
    assert np.allclose(back[cols].to_numpy(), same[cols].to_numpy(), rtol=1e-12, atol=0)


def test_a_dask_cluster_on_loopback_gives_the_serial_rows(tmp_path, capsys):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    frame = table(n=200)
    spec = SimulationSpec(
        label="y", judges=("j1", "j2"), budgets=(0.2,), trials=4,
        designs=("uniform", "adaptive"), methods=("classical", "aee"),
    )  # fmt: skip
    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        on_dask = simulate(frame, spec, scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(on_dask, simulate(frame, spec))
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    args = ["simulate", str(path), "--label", "y", "--judges", "j1,j2", "--budgets", "0.2",
            "--trials", "2", "--out", str(tmp_path / "sim"),
            "--scheduler", "tcp://127.0.0.1:9"]  # fmt: skip
    assert main(args) == 2  # nothing listens on port 9
    assert "cannot reach a Dask scheduler" in capsys.readouterr().err
    assert not (tmp_path / "sim").exists()


_PRESSED: list[float] = []
_HANDLERS: list = []


def _slow_chunk(frame, spec, tasks):
    """A chunk long enough to be interrupted: Ctrl-C 0.2 s in (module-level, so the
    in-process worker runs this very function)."""
    import os
    import signal
    import threading
    import time

    _HANDLERS.append(signal.getsignal(signal.SIGINT))
    if not _PRESSED:
        _PRESSED.append(time.monotonic())
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    time.sleep(1.5)
    return []


def test_ctrl_c_ends_a_simulation_on_a_cluster(monkeypatch):
    """Ctrl-C while a cluster runs the trials ends the run at once (KeyboardInterrupt,
    the CLI's exit 130), not after the work: distributed's callbacks swallow a
    KeyboardInterrupt raised inside them, so the wait polls for it."""
    import signal
    import time

    pytest.importorskip("distributed")
    from distributed import LocalCluster

    from bacon_bayes.simulation import montecarlo

    _PRESSED.clear()
    _HANDLERS.clear()
    monkeypatch.setattr(montecarlo, "_run_chunk_on", _slow_chunk)
    spec = SimulationSpec(label="y", judges=("j1", "j2"), budgets=(0.2,), trials=8)
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
        protocol="tcp://", dashboard_address=None,
    ) as cluster:  # fmt: skip
        with pytest.raises(KeyboardInterrupt):
            simulate(table(n=200), spec, scheduler=cluster.scheduler_address)
        assert _PRESSED and time.monotonic() - _PRESSED[0] < 1.2  # not after the chunks
    # while the cluster works, Ctrl-C is noted (not raised inside distributed's code)
    assert _HANDLERS and signal.default_int_handler not in _HANDLERS
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_embedding_columns_are_features_of_the_monte_carlo_model():
    from tests.simulation.test_ablation import table as with_embedding

    frame = with_embedding(300)
    spec = SimulationSpec(label="y", judges=("good", "noise"), budgets=(0.5,), trials=2)
    plain = simulate(frame, spec)
    emb = simulate(frame, SimulationSpec(**{**spec.__dict__, "embedding": "emb_"}))
    r2 = [t.loc[t["method"] == "aee", "oof_r2"].to_numpy() for t in (plain, emb)]
    assert np.all(r2[1] > r2[0] + 0.1)  # the embedding's own signal reaches the surrogate
    with pytest.raises(ValidationError, match="embedding prefix 'vec_'"):
        simulate(frame, SimulationSpec(**{**spec.__dict__, "embedding": "vec_"}))


def test_bayesian_trials_share_the_judge_stage_and_record_convergence():
    """Two trials of the Bayesian engine (real NUTS): one judge stage for both (the
    module keeps it), each trial's worst fold R-hat in its AEE row, the worst in the
    summary."""
    from bacon_bayes.bayes import fitting

    rng = np.random.default_rng(1)
    q = rng.normal(size=200)
    judges = {f"j{k}": rng.normal(0, 0.3) + rng.uniform(0.6, 1.4) * q + rng.normal(0, 0.6, 200)
              for k in range(6)}  # fmt: skip
    frame = pd.DataFrame({"y": q + rng.normal(0, 0.5, 200), **judges})
    spec = SimulationSpec(
        label="y", judges=tuple(judges), budgets=(0.25,), trials=2, methods=("aee",),
        engine="bayes",
    )  # fmt: skip
    fitting.forget_judge_stage()
    sampled = []
    fit_judges = fitting.JudgeModelFitting._fit_judges

    def counting(self, arrays):
        sampled.append(self._judges_key(arrays) not in fitting._JUDGE_STAGE)
        return fit_judges(self, arrays)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fitting.JudgeModelFitting, "_fit_judges", counting)
        trials = simulate(frame, spec)
    assert sampled == [True, False]
    assert trials["max_rhat"].between(0.99, 1.01).all()
    assert summarise(trials)["max_rhat"].item() == trials["max_rhat"].max()


def _grouped_simulation(
    tmp_path: Path, systems: int, budget: str, trials: str, *extra: str
) -> list[str]:
    """`bacon simulate` arguments for a table of 240 items in ``systems`` systems (label
    ``y`` within 1..5), written to tmp_path/t.csv, out to tmp_path/sim."""
    frame = table(n=240)
    frame["system"] = np.array([f"s{k}" for k in range(systems)])[np.arange(240) % systems]
    frame["y"] = frame["y"].clip(1, 5)
    frame.to_csv(tmp_path / "t.csv", index=False)
    return ["simulate", str(tmp_path / "t.csv"), "--label", "y", "--judge", "j1,j2",
            "--group", "system", "--item", "item", "--budgets", budget, "--trials", trials,
            "--out", str(tmp_path / "sim"), *extra]  # fmt: skip


def test_scale_bounds_the_group_intervals_and_short_group_metrics_are_said(tmp_path, capsys):
    """Finding A5: `bacon simulate` took no --scale, so its group intervals on a bounded
    label reached past the scale (not the ones `bacon estimate --scale` reports); and a
    method whose group metrics rested on fewer trials (a group left without labels) said
    nothing on the console."""
    assert main(_grouped_simulation(tmp_path, 12, "0.05", "3", "--scale", "1:5")) == 0
    out = capsys.readouterr().out
    trials = pd.read_parquet(tmp_path / "sim" / "trials.parquet")
    ends = trials[[c for c in trials if c.startswith("group:") and c.endswith(("_low", "_high"))
                   and "rank" not in c]].to_numpy(float)  # fmt: skip
    assert np.nanmin(ends) >= 1 and np.nanmax(ends) <= 5
    summary = pd.read_csv(tmp_path / "sim" / "summary.csv").set_index("method")
    short = summary.loc["classical", "group_trials"]
    assert short < 3  # 12 labels over 12 systems: some system goes without in most draws
    assert "classical (uniform) at budget 0.05: its group metrics" in out
    assert f"rest on {int(short)} of 3 trials" in out and "aee (uniform)" not in out


def test_pool_only_peers_are_said_to_give_no_group_estimates(tmp_path, capsys):
    """Tester C finding 1: ppi-mean and ppi-ridge (pool mean only) were said to rest on
    0 of N trials because "the draw left some group without an estimate", with the advice
    to raise the budget, which never helps: they are said to give no group means."""
    assert main(_grouped_simulation(tmp_path, 3, "0.3", "2", "--methods", "classical,ppi")) == 0
    out = capsys.readouterr().out
    assert "ppi-mean, ppi-ridge estimate the pool mean only, not group means" in out, out
    assert "rest on 0 of" not in out and "raise the budget" not in out
    summary = pd.read_csv(tmp_path / "sim" / "summary.csv").set_index("method")
    assert summary.loc[["ppi-mean", "ppi-ridge"], "group_trials"].isna().all()
    assert summary.loc["classical", "group_trials"] == 2


def test_adaptive_trials_that_fall_back_equal_the_uniform_ones_exactly(tmp_path, capsys):
    """Tester C finding 9: "those trials equal the uniform design's" yet their group
    estimates differed in the last bits (the fallback's probabilities, n / N through two
    waves), which flipped tied ranks (kendall 0.6375 against 0.6406) and moved the
    simultaneous intervals: now every number of such a trial is the uniform one's."""
    args = _grouped_simulation(tmp_path, 3, "0.05", "3", "--designs", "uniform,adaptive")
    assert main(args) == 0
    assert "3 of 3 trials fell back to uniform" in capsys.readouterr().out
    trials = pd.read_parquet(tmp_path / "sim" / "trials.parquet")
    numbers = [c for c in trials if c.startswith(("estimate", "ci_", "group:", "diff:"))]
    assert any(c.startswith("diff:") and c.endswith("sim_low") for c in numbers)
    keys = ["method", "trial"]
    by = {d: t.set_index(keys)[numbers].sort_index() for d, t in trials.groupby("design")}
    pd.testing.assert_frame_equal(by["adaptive"], by["uniform"], check_exact=True)
