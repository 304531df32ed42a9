"""`bacon simulate --prompt` with the paired designs: pairing beats item-level draws for the
differences of systems on shared prompts, intervals cover in band through the Calibrator
(cross-fitting split by prompt), and bad input is refused before any trial."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.simulation.montecarlo import SimulationSpec, simulate, summarise
from tests.interval_checks import assert_two_sided


def shared_prompts(n_prompts: int = 150, seed: int = 0) -> pd.DataFrame:
    """Five systems answer the same prompts; a prompt's difficulty moves every system's
    label and the judges see only part of it."""
    rng = np.random.default_rng(seed)
    systems = np.array(["s1", "s2", "s3", "s4", "s5"])
    prompt = np.repeat(np.arange(n_prompts), systems.size)
    system = np.tile(np.arange(systems.size), n_prompts)
    hard = rng.normal(0, 0.9, n_prompts)[prompt]
    q = 3 + 0.15 * system + hard + rng.normal(0, 0.6, prompt.size)
    return pd.DataFrame(
        {
            "j1": q - 0.6 * hard + rng.normal(0.3, 0.5, q.size),
            "j2": 0.5 * q + rng.normal(0, 0.6, q.size),
            "system": systems[system],
            "prompt": [f"p{k}" for k in prompt],
            "y": q + rng.normal(0, 0.4, q.size),
        }
    )


SPEC = SimulationSpec(
    label="y", judges=("j1", "j2"), group="system", prompt="prompt", budgets=(0.1,),
    trials=200, designs=("uniform", "paired"), methods=("aee",), alpha=0.05,
)  # fmt: skip


@pytest.fixture(scope="module")
def summary() -> pd.DataFrame:
    # in this process: the same rows as on a pool of workers (tests/simulation/
    # test_montecarlo.py), without spawning interpreters that import bacon again
    return summarise(simulate(shared_prompts(300), SPEC), SPEC.alpha).set_index("design")


@pytest.mark.slow
def test_paired_differences_are_more_precise_and_cover_in_band(summary):
    """200 draws of 150 labels (30 prompts x 5 systems, or 150 items): the paired design's
    pairwise differences have a smaller RMSE (median over pairs) than uniform's; the pool
    mean and each pair's pointwise 95% intervals cover in band under both designs."""
    paired, uniform = summary.loc["paired"], summary.loc["uniform"]
    assert paired["diff_rmse_median"] < 0.85 * uniform["diff_rmse_median"]
    for row in (paired, uniform):
        assert row["coverage_in_band"], row[["coverage", "band_low", "band_high"]]
        assert abs(row["diff_coverage"] - 0.95) < 0.025, row["diff_coverage"]
    # simultaneous over the 10 pairs: at least nominal, not far beyond it
    assert 0.92 <= paired["diff_simultaneous_coverage"] <= 0.985
    assert paired["kendall"] >= uniform["kendall"] - 0.05


def test_paired_and_uniform_intervals_are_neither_too_wide_nor_too_narrow():
    """The fast check of the study above (``make validate``): 60 draws per design, the pool
    mean's interval and the pairwise differences' pointwise and simultaneous intervals
    against the spread of their estimates (tests/interval_checks.py: fails when the
    intervals are 1.5 times too wide or 0.6 times too narrow, or the estimates biased)."""
    spec = replace(SPEC, trials=60)
    trials = simulate(shared_prompts(300), spec)
    pairs = [c[5:-9] for c in trials if c.startswith("diff:") and c.endswith(":estimate")]
    assert len(pairs) == 10
    for design, t in trials.groupby("design"):
        assert len(t) == 60
        assert_two_sided(t["estimate"], t["ci_low"], t["ci_high"], t["truth"].iloc[0],
                         SPEC.alpha, what=f"{design} mean")  # fmt: skip
        truth = [t[f"group:{a}:truth"].iloc[0] - t[f"group:{b}:truth"].iloc[0]
                 for a, b in (p.split(" - ") for p in pairs)]  # fmt: skip
        est = t[[f"diff:{p}:estimate" for p in pairs]]
        for low, high in (("ci_low", "ci_high"), ("sim_low", "sim_high")):
            lo, hi = (t[[f"diff:{p}:{part}" for p in pairs]] for part in (low, high))
            simultaneous = low == "sim_low"
            assert_two_sided(est, lo, hi, truth, SPEC.alpha, simultaneous=simultaneous,
                             what=f"{design} differences ({low})")  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"designs": "paired", "prompt": None}, "draws prompts: pass --prompt COL"),
        ({"designs": "paired", "budgets": "0.02"}, "fewer than one per cross-fitting fold"),
        ({"designs": "paired", "prompt": "nope"}, "column 'nope' is not in the table"),
        ({"methods": "cje", "prompt": None}, "pass --group and --prompt"),
    ],
)
def test_bad_prompt_input_is_refused_and_nothing_is_written(tmp_path, capsys, change, message):
    path = tmp_path / "t.csv"
    shared_prompts(60).to_csv(path, index=False)
    opts = {"label": "y", "judges": "j1,j2", "group": "system", "prompt": "prompt",
            "budgets": "0.2", "trials": "2", "designs": "uniform", "methods": "aee",
            **change}  # fmt: skip
    args = ["simulate", str(path), "--out", str(tmp_path / "sim")]
    for key, value in opts.items():
        if value is not None:
            args += [f"--{key}", value]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [path]


def test_an_item_level_design_with_prompts_runs_below_one_prompt_per_fold(tmp_path):
    """15 labels of 300 rows (5 per prompt): a paired draw would label 3 prompts, fewer than
    the 5 folds, and is refused (above); a uniform draw spreads its 15 labels over about 13
    prompts and runs."""
    path = tmp_path / "t.csv"
    shared_prompts(60).to_csv(path, index=False)
    args = ["simulate", str(path), "--label", "y", "--judges", "j1,j2", "--group", "system",
            "--prompt", "prompt", "--budgets", "0.05", "--trials", "2", "--designs", "uniform",
            "--methods", "aee", "--out", str(tmp_path / "sim")]  # fmt: skip
    assert main(args) == 0
    assert (tmp_path / "sim").is_dir()


def test_missing_prompt_ids_are_refused_with_the_row(tmp_path, capsys):
    frame = shared_prompts(60)
    frame.loc[11, "prompt"] = None
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    args = ["simulate", str(path), "--label", "y", "--judges", "j1,j2", "--group", "system",
            "--prompt", "prompt", "--designs", "paired", "--budgets", "0.2", "--trials", "2",
            "--out", str(tmp_path / "sim")]  # fmt: skip
    assert main(args) == 2
    assert "prompt column 'prompt' is empty in row 11" in capsys.readouterr().err


def test_paired_designs_write_difference_columns(tmp_path, capsys):
    path = tmp_path / "t.csv"
    shared_prompts(80).to_csv(path, index=False)
    out = tmp_path / "sim"
    args = ["simulate", str(path), "--label", "y", "--judges", "j1,j2", "--group", "system",
            "--prompt", "prompt", "--designs", "paired,paired-subset,paired-adaptive",
            "--budgets", "0.25", "--trials", "2", "--methods", "aee",
            "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "pairwise differences of group means" in printed
    trials = pd.read_parquet(out / "trials.parquet")
    assert set(trials["design"]) == {"paired", "paired-subset", "paired-adaptive"}
    for part in ("estimate", "ci_low", "ci_high", "sim_low", "sim_high"):
        assert trials[f"diff:s1 - s2:{part}"].notna().all()
    paired = trials[trials["design"] == "paired"]
    assert (paired["n_labels"] == 20 * 5).all()  # 20 whole prompts of 80
    # its pilot of 6 prompts is too few for the sd: paired-adaptive steps back to the
    # paired design's own draw, and says so
    assert "paired-adaptive at budget 0.25: 2 of 2 trials fell back to paired" in printed
    adaptive = trials[trials["design"] == "paired-adaptive"]
    assert (adaptive["adaptive_choice"] == "paired (small pilot)").all()
    np.testing.assert_allclose(
        adaptive["diff:s1 - s2:estimate"].to_numpy(), paired["diff:s1 - s2:estimate"].to_numpy()
    )
