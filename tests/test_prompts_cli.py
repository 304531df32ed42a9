"""``--prompt``, ``--prompt-propensity`` and ``--target`` on ``bacon estimate`` and
``bacon report``: real runs in-process on a small pool of systems sharing prompts, the
target named for every interval, the Comparisons block, and the refusals (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

N_SYSTEMS, N_PROMPTS, N_LABELED_PROMPTS = 4, 80, 20
N = N_SYSTEMS * N_PROMPTS
FREQ = ("--engine", "freq")


def frame(seed: int = 5) -> pd.DataFrame:
    """4 systems x 80 prompts with a prompt effect the judges see and one they miss (it
    stays in the residuals, shared by the systems); the labels of every system on 20
    drawn prompts (a paired sample: pi = pi_prompt = 20 / 80)."""
    rng = np.random.default_rng(seed)
    system = np.repeat(np.arange(N_SYSTEMS), N_PROMPTS)
    prompt = np.tile(np.arange(N_PROMPTS), N_SYSTEMS)
    effect = np.array([0.0, 0.1, 0.3, 1.6])[system]
    seen = 3 + effect + rng.normal(0, 1, N_PROMPTS)[prompt] + rng.normal(0, 0.4, N)
    y = seen + rng.normal(0, 0.8, N_PROMPTS)[prompt]
    drawn = np.isin(prompt, rng.choice(N_PROMPTS, N_LABELED_PROMPTS, replace=False))
    return pd.DataFrame(
        {
            "system": [f"s{g}" for g in system],
            "seg": [f"p{p:02d}" for p in prompt],
            "judge_a": seen + rng.normal(0, 0.5, N),
            "judge_b": seen + rng.normal(0.4, 0.9, N),
            "human": np.where(drawn, y, np.nan),
            "pi": N_LABELED_PROMPTS / N_PROMPTS,
            "pi_prompt": N_LABELED_PROMPTS / N_PROMPTS,
        }
    )


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "pool.csv"
    frame().to_csv(path, index=False)
    return path


def estimate(table: Path, *extra: str) -> list[str]:
    return ["estimate", str(table), "--label", "human", "--judge", "judge_*",
            "--group", "system", *FREQ, *extra]  # fmt: skip


def test_population_target_is_said_and_clustered_by_prompt(table, capsys):
    assert main(estimate(table, "--prompt", "seg", "--target", "population")) == 0
    out = capsys.readouterr().out
    assert f"{N} items, {N_PROMPTS} prompts" in out and "cross-fitting split by prompt" in out
    assert (
        "target: population (prompts sampled from a larger population; variance clustered "
        "by prompt)" in out
    )
    assert "comparisons of 'system' (AEE differences, 95% CIs, simultaneous, max-|t|: all " in out
    assert "hold together; target: " in out
    assert "paired: intervals clustered by prompt (column 'seg')" in out
    assert "best system: s3 (rank interval [1, 1]: clear)" in out  # s3 leads by 1.3


def test_pool_target_without_a_design_of_prompts_is_not_paired(table, capsys):
    assert main(estimate(table)) == 0
    out = capsys.readouterr().out
    assert f"target: pool (the {N} items of this pool)" in out
    assert "not paired: items treated as independent" in out


def test_json_names_the_target_and_the_comparisons(table, capsys):
    argv = estimate(table, "--prompt", "seg", "--propensity", "pi", "--prompt-propensity",
                    "pi_prompt", "--json")  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["target"] == {"target": "pool", "note": f"the {N} items of this pool"}
    assert out["n_prompts"] == N_PROMPTS
    assert out["mean"]["aee"]["details"]["target"] == "pool"
    assert out["mean"]["aee"]["details"]["clustered_by_prompt"] is True
    assert out["groups"]["aee"]["details"]["target"] == "pool"
    c = out["comparisons"]
    assert c["paired"] is True and c["target"] == "pool" and c["group"] == "system"
    assert c["prompt"] == "seg"
    assert c["n_pairs"] == 6 == len(c["differences"])
    resolved = [d["ci_low"] > 0 or d["ci_high"] < 0 for d in c["differences"]]
    assert c["n_resolved"] == sum(resolved) == sum(d["resolved"] for d in c["differences"])
    top = c["ranks"][0]
    assert c["best"] == top["group"] == "s3"
    assert c["best_clear"] == (top["rank_low"] == top["rank_high"] == 1)


def test_pairing_narrows_the_differences_of_systems_on_shared_prompts(table, capsys):
    """The same paired labels, analysed as a draw of prompts (clustered) and as independent
    items: the differences of systems that share a prompt effect are narrower paired."""
    widths = {}
    for name, extra in (
        ("paired", ("--propensity", "pi", "--prompt", "seg", "--prompt-propensity", "pi_prompt")),
        ("items", ("--propensity", "pi")),
    ):
        assert main(estimate(table, *extra, "--json")) == 0
        c = json.loads(capsys.readouterr().out)["comparisons"]
        widths[name] = np.median([d["ci_high"] - d["ci_low"] for d in c["differences"]])
    assert widths["paired"] < 0.8 * widths["items"]


def test_report_has_a_comparisons_section(table, tmp_path, capsys):
    out = tmp_path / "r.html"
    argv = ["report", str(table), "--label", "human", "--judge", "judge_a", "--judge",
            "judge_b", "--group", "system", "--prompt", "seg", "--target", "population",
            *FREQ, "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    page = out.read_text()
    assert '<section id="comparisons"><h2>Comparisons of groups</h2>' in page
    assert "paired: intervals clustered by prompt (column &#x27;seg&#x27;)" in page
    assert "Best system: s3" in page  # the group column's name, not "group"
    assert "<b>target</b>: population" in page
    assert "rank interval [1, 1]: clear" in page


def test_missing_prompt_ids_are_refused(table, tmp_path, capsys):
    data = frame()
    data.loc[11, "seg"] = np.nan
    holes = tmp_path / "holes.csv"
    data.to_csv(holes, index=False)
    assert main(estimate(holes, "--prompt", "seg")) == 2
    err = capsys.readouterr().err
    assert err.startswith("bacon estimate: error: prompt column 'seg' is empty")
    assert main(estimate(table, "--prompt", "nope")) == 2
    assert "nope" in capsys.readouterr().err


def test_labels_on_fewer_prompts_than_folds_are_refused(tmp_path, capsys):
    data = frame()
    data["human"] = data["judge_a"].where(data["seg"].isin(["p00", "p01", "p02"]))
    path = tmp_path / "few.csv"
    data.to_csv(path, index=False)
    assert main(estimate(path, "--prompt", "seg")) == 2
    assert "fewer than the 5 cross-fitting folds" in capsys.readouterr().err


def test_prompt_options_that_cannot_apply_are_refused(table, capsys):
    assert main(estimate(table, "--prompt", "seg", "--chunk-rows", "100")) == 2
    assert "--prompt is not supported when streaming" in capsys.readouterr().err
    assert main(estimate(table, "--prompt", "seg", "--prompt-propensity", "pi_prompt")) == 2
    assert "prompt_propensity needs propensity" in capsys.readouterr().err


def test_pairs_withheld_for_few_prompts_say_why_in_text_json_and_report(tmp_path, capsys):
    """T1 finding 5: a system labeled on 5 prompts under --target population gets its own
    interval, but its pairs' simultaneous intervals are withheld (6 prompts at 95%); the
    text printed "no interval" with no note, --json ci_low null with no reason, and the
    report a blank cell. Now each says why: the note column and a "no interval for"
    line, the differences' note and "no_interval" in --json, the line on the page."""
    data = frame()
    s0 = data["system"] == "s0"
    first = sorted(data.loc[s0 & data["human"].notna(), "seg"])[:5]
    data.loc[s0 & ~data["seg"].isin(first), "human"] = np.nan
    path = tmp_path / "few.csv"
    data.to_csv(path, index=False)
    argv = estimate(path, "--prompt", "seg", "--target", "population")
    assert main(argv) == 0
    out = capsys.readouterr().out
    row = next(x for x in out.splitlines() if x.startswith("s0 - s1 "))
    assert "no interval" in row and row.endswith("5 labeled prompt(s)")
    line = next(x for x in out.splitlines() if x.startswith("no interval for s0 - s1"))
    assert "s0 - s1, s0 - s2, s0 - s3: 5 labeled prompt(s): a simultaneous 95%" in line
    assert "label more prompts, or ask for pointwise intervals (bacon estimate --pointwise" in line
    assert main([*argv, "--json"]) == 0
    c = json.loads(capsys.readouterr().out)["comparisons"]
    withheld = [d for d in c["differences"] if d["ci_low"] is None]
    assert [d["pair"] for d in withheld] == ["s0 - s1", "s0 - s2", "s0 - s3"]
    assert {d["note"] for d in withheld} == {"5 labeled prompt(s)"}
    assert set(c["no_interval"]) == {"s0 - s1", "s0 - s2", "s0 - s3"}
    assert "needs at least 6" in c["no_interval"]["s0 - s1"]
    page = tmp_path / "few.html"
    assert main(["report", *argv[1:], "--out", str(page)]) == 0
    text = page.read_text()
    assert "no interval for s0 - s1, s0 - s2, s0 - s3: 5 labeled prompt(s)" in text
