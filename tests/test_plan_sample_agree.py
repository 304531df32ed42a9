"""``bacon plan`` prices the adaptive wave that the ``bacon sample`` command it prints
draws (tester C findings 3 and 5), says how hopeful that price is (finding 6), and
without labels does not take the label's spread for the judges' average (finding 10)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import EvalPool
from bacon_bayes.cli import main
from bacon_bayes.planning import Goal, pilot_statistics, plan


def _heteroskedastic(n: int = 2400, seed: int = 0) -> pd.DataFrame:
    """Six systems, an error count (nonnegative: many zeros) whose spread grows with what
    the judges read, so a wave that follows the predicted sd gains; labels on 10%."""
    rng = np.random.default_rng(seed)
    system = np.array([f"s{k}" for k in range(6)])[rng.integers(0, 6, n)]
    q = rng.normal(0, 1, n)
    zero = rng.random(n) < 1 / (1 + np.exp(2 * q))
    y = np.where(zero, 0.0, np.exp(q) * rng.lognormal(0, 0.5, n))
    ids = [f"i{k}" for k in range(n)]
    frame = pd.DataFrame({"id": ids, "system": system, "j1": q + rng.normal(0, 0.3, n),
                          "j2": q + rng.normal(0, 0.5, n)})  # fmt: skip
    frame["y"] = np.where(rng.random(n) < 0.1, y, np.nan)
    return frame


def test_the_printed_adaptive_wave_is_the_one_the_plan_priced(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan priced the adaptive wave at the uniform share 0.2 and the freq engine;
    the `bacon sample` command it printed drew at 0.5 (a study with groups) with the
    engine `auto`, and predicted another ratio (WMT22: 0.734 against 0.894). The command
    now pins both, and the wave it draws predicts about the plan's ratio (WMT22: 0.780
    against 0.789; here the wave's residuals are a ridge's on the judges, the plan's the
    calibrator's, 0.52 against 0.62)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BACON_STATE_DIR", str(tmp_path / "state"))
    _heteroskedastic().to_csv("pool.csv", index=False)
    assert main(["plan", "pool.csv", "--label", "y", "--judge", "j1,j2", "--item", "id",
                 "--group", "system", "--outcome", "nonnegative", "--half-width", "0.05",
                 "--designs", "uniform,adaptive", "--json"]) == 0  # fmt: skip
    rows = {r["design"]: r for r in json.loads(capsys.readouterr().out)["designs"]}
    note = rows["adaptive"]["note"]
    assert "uniform share 0.5" in note, note
    planned = float(re.search(r"predicted variance ratio (\d\.\d+)", note)[1])
    command = rows["adaptive"]["command"]
    assert "--uniform-share 0.5" in command and "--engine freq" in command, command
    assert main(shlex.split(command)[1:]) == 0
    wave = json.loads(Path("pool.study/waves.json").read_text())[-1]
    assert wave["params"]["uniform_share"] == 0.5
    assert wave["params"]["expected_variance_ratio"] == pytest.approx(planned, abs=0.12)


def _binary_pool(groups: bool) -> EvalPool:
    rng = np.random.default_rng(3)
    n = 3000
    g = np.array([f"m{k}" for k in range(6)])[rng.integers(0, 6, n)]
    sure = rng.random(n) < 0.8  # the judges agree on most answers, not on the rest
    p = np.where(sure, np.where(rng.random(n) < 0.7, 0.97, 0.03), rng.uniform(0.3, 0.7, n))
    y = (rng.random(n) < p).astype(float)
    df = pd.DataFrame({"item": np.arange(n), "system": g, "j1": p + rng.normal(0, 0.05, n),
                       "j2": p + rng.normal(0, 0.05, n)})  # fmt: skip
    df["label"] = np.where(rng.random(n) < 0.05, y, np.nan)
    return EvalPool.from_frame(df, label="label", judges=["j1", "j2"], item="item",
                               group="system" if groups else None,
                               outcome="categorical")  # fmt: skip


def test_the_pool_mean_on_binary_labels_with_groups_is_not_planned_adaptive():
    """`bacon sample` warns on an adaptive wave on 0/1 labels with groups that it can
    leave the pool mean's interval wider than a uniform wave's; the plan recommended it
    for the pool mean there (a tester's TriviaQA plan). Without groups it still may."""
    result = plan(_binary_pool(groups=True), Goal("half-width", half_width=0.02))
    rows = {r.design: r for r in result.designs}
    assert rows["adaptive"].labels_needed < rows["uniform"].labels_needed
    assert result.recommended != "adaptive"
    assert rows["adaptive"].note.startswith("not recommended on 0/1 labels with groups")
    alone = plan(_binary_pool(groups=False), Goal("half-width", half_width=0.02))
    assert alone.recommended == "adaptive"


def test_the_plan_says_its_adaptive_ratio_is_an_optimistic_prediction():
    """The predicted ratio read 0.75 on WMT22 pilots where the intervals gave 0.93: the
    plan says it is a model's prediction, and how far off it was measured."""
    frame = _heteroskedastic()
    pool = EvalPool.from_frame(frame, label="y", judges=["j1", "j2"], item="id",
                               group="system", outcome="nonnegative")  # fmt: skip
    text = plan(pool, Goal("half-width", half_width=0.05)).to_text()
    assert "predicted variance ratio is a model's prediction" in text
    assert "predicted 0.75 on average where the intervals gave 0.93" in text


def test_without_labels_the_label_is_not_taken_to_vary_like_the_judges_average():
    """Judges that each read the label with noise of their own: their average varies far
    less than the label does. The plan without labels took the average's spread, assumed
    a residual variance a third of the real one and bought a third of the labels its
    goal needed (SummEval: 63 where 163); it now takes a single judge's."""
    rng = np.random.default_rng(7)
    n = 1200
    system = np.repeat([f"s{k}" for k in range(6)], n // 6)
    truth = rng.normal(0, 0.6, n)
    y = truth + rng.normal(0, 0.7, n)
    frame = pd.DataFrame({"system": system, "y": y})
    judges = [f"j{k}" for k in range(6)]
    for j in judges:
        frame[j] = truth + rng.normal(0, 0.7, n)
    full = EvalPool.from_frame(frame, label="y", judges=judges, group="system",
                               outcome="continuous")  # fmt: skip
    real = pilot_statistics(full).s2_pool
    blank = EvalPool.from_frame(frame.assign(y=np.nan), label="y", judges=judges,
                                group="system", outcome="continuous")  # fmt: skip
    st = pilot_statistics(blank)
    assert 0.6 * real < st.s2_pool < 1.5 * real, (st.s2_pool, real)
    text = plan(blank, Goal("half-width", half_width=0.05)).to_text()
    assert "NO PILOT" in text and "How rough" in text
    # no command without its pool in the note (a checker pasted `bacon sample --design
    # uniform --budget 0.03`: "the following arguments are required: pool")
    assert "`bacon sample --design" not in text and "--budget 0.03" in text
