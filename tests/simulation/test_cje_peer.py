"""The cje-eval peer (`simulation.peers.cje_pairwise_rows`) on paired label draws: a row for
every pair and group, estimates near the table's true differences, intervals around them,
hidden labels never reach cje, and a rough coverage figure (not asserted tightly: a peer)."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.errors import ValidationError
from bacon_bayes.simulation.peers import cje_pairwise_rows, judge_score

pytest.importorskip("cje")

GROUPS = ("a", "b", "c", "d")


def table(prompts: int = 60, seed: int = 0) -> pd.DataFrame:
    """4 systems x ``prompts`` prompts, label in [0, 1] with a prompt effect, 3 judges."""
    rng = np.random.default_rng(seed)
    p = np.repeat(np.arange(prompts), len(GROUPS))
    g = np.tile(np.arange(len(GROUPS)), prompts)
    difficulty = rng.normal(0, 0.12, prompts)[p]
    q = 0.55 + np.array([0.0, 0.05, 0.1, -0.05])[g] + difficulty + rng.normal(0, 0.1, len(p))
    y = np.clip(q + rng.normal(0, 0.05, len(p)), 0, 1)
    return pd.DataFrame({
        "prompt": [f"p{k}" for k in p],
        "system": np.array(GROUPS)[g],
        "y": y,
        "j1": q + rng.normal(0, 0.08, len(p)),
        "j2": 10 * q + rng.normal(0, 1.2, len(p)),  # another scale
        "j3": 0.5 * q + rng.normal(0.2, 0.08, len(p)),
    })  # fmt: skip


def paired_draw(frame: pd.DataFrame, share: float, seed: int) -> np.ndarray:
    """Label every group's row of a uniform sample of the prompts."""
    prompts = frame["prompt"].unique()
    rng = np.random.default_rng(seed)
    chosen = rng.choice(prompts, round(share * len(prompts)), replace=False)
    return frame["prompt"].isin(chosen).to_numpy()


def run(frame, labeled, seed=0, alpha=0.1):
    return cje_pairwise_rows(
        frame, "y", ("j1", "j2", "j3"), "system", "prompt", labeled, alpha, seed
    )


def truth(frame: pd.DataFrame) -> pd.Series:
    return frame.groupby("system")["y"].mean()


def test_a_row_for_every_pair_and_group_near_the_true_differences():
    frame = table()
    labeled = paired_draw(frame, 0.3, 1)
    rows = run(frame, labeled)
    pairs = [r for r in rows if "pair" in r]
    groups = [r for r in rows if "group" in r]
    expected = [f"{a} - {b}" for a, b in itertools.combinations(GROUPS, 2)]
    assert [r["pair"] for r in pairs] == expected
    assert [r["group"] for r in groups] == list(GROUPS)
    mean = truth(frame)
    for r in pairs:
        a, b = r["pair"].split(" - ")
        assert r["ci_low"] < r["estimate"] < r["ci_high"]
        assert abs(r["estimate"] - (mean[a] - mean[b])) < 0.08  # loose: 18 labeled prompts
        assert r["ci_high"] - r["ci_low"] < 0.3
    for r in groups:
        assert r["ci_low"] < r["estimate"] < r["ci_high"]
        assert abs(r["estimate"] - mean[r["group"]]) < 0.1
    est = {r["group"]: r["estimate"] for r in groups}
    assert pairs[0]["estimate"] == pytest.approx(est["a"] - est["b"])


def test_hidden_labels_never_reach_cje():
    frame = table()
    labeled = paired_draw(frame, 0.3, 2)
    scrambled = frame.copy()
    scrambled.loc[~labeled, "y"] = np.nan  # unlabeled rows' labels: anything at all
    assert run(frame, labeled) == run(scrambled, labeled)


def test_group_names_sort_as_strings_and_one_judge_works():
    frame = table(prompts=30)
    frame["system"] = frame["system"].map({"a": 10, "b": 2, "c": 33, "d": 4})
    labeled = paired_draw(frame, 0.5, 3)
    rows = cje_pairwise_rows(frame, "y", ("j2",), "system", "prompt", labeled, 0.05, 0)
    assert [r["pair"] for r in rows if "pair" in r][:3] == ["10 - 2", "10 - 33", "10 - 4"]


def test_too_few_labeled_prompts_gives_nan_rows_and_bad_input_is_refused():
    frame = table(prompts=30)
    labeled = paired_draw(frame, 0.1, 4)  # 3 prompts: below cje's 4-prompt calibration floor
    rows = run(frame, labeled)
    assert len(rows) == 6 + 4 and all(np.isnan(r["estimate"]) for r in rows)
    with pytest.raises(ValidationError, match="not in the table"):
        cje_pairwise_rows(frame, "y", ("nope",), "system", "prompt", labeled, 0.05, 0)
    with pytest.raises(ValidationError, match="one flag per row"):
        run(frame, labeled[:-1])


def test_known_propensities_and_no_prompt_column():
    frame = table()
    labeled = paired_draw(frame, 0.3, 6)
    plain = run(frame, labeled)
    weighted = cje_pairwise_rows(
        frame, "y", ("j1", "j2", "j3"), "system", "prompt", labeled, 0.1, 0,
        propensity=np.full(len(frame), 0.3),
    )  # fmt: skip
    for p, w in zip(plain, weighted, strict=True):
        assert w["ci_low"] < w["estimate"] < w["ci_high"]
        assert abs(p["estimate"] - w["estimate"]) < 0.05  # HT vs Hajek residual mean
    unpaired = cje_pairwise_rows(frame, "y", ("j1",), "system", None, labeled, 0.1, 0)
    width = [r["ci_high"] - r["ci_low"] for r in unpaired if "pair" in r]
    paired = cje_pairwise_rows(frame, "y", ("j1",), "system", "prompt", labeled, 0.1, 0)
    assert np.median(width) > np.median([r["ci_high"] - r["ci_low"] for r in paired if "pair" in r])


def test_missing_cje_is_a_validation_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "cje", None)
    frame = table(prompts=10)
    with pytest.raises(ValidationError, match=r"pip install 'cje-eval"):
        run(frame, paired_draw(frame, 0.5, 0))


def test_judge_score_standardises_each_judge_and_fills_gaps():
    frame = pd.DataFrame({"j1": [0.0, 1.0, np.nan, 2.0], "j2": [10.0, 30.0, 20.0, np.nan]})
    s = judge_score(frame, ("j1", "j2"))
    z1 = (np.array([0, 1, 1, 2]) - 1) / np.std([0, 1, 2])
    z2 = (np.array([10, 30, 20, 20]) - 20) / np.std([10, 30, 20])
    np.testing.assert_allclose(s, (z1 + z2) / 2)


def test_coverage_of_the_pairwise_differences_over_draws():
    """Per-pair coverage of the true (pool) differences at 90%, 50 paired draws at 30%:
    reported, loosely bounded (cje's intervals target the population of prompts)."""
    frame = table(seed=5)
    mean = truth(frame)
    hits, n = 0, 0
    for t in range(50):
        for r in run(frame, paired_draw(frame, 0.3, 100 + t), seed=t, alpha=0.1):
            if "pair" in r:
                a, b = r["pair"].split(" - ")
                hits += r["ci_low"] <= mean[a] - mean[b] <= r["ci_high"]
                n += 1
    coverage = hits / n
    print(f"cje pairwise coverage at 90%: {coverage:.3f} over {n} intervals")
    assert 0.75 <= coverage <= 1.0
