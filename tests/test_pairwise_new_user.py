"""Tables of comparisons a new user brings, nobody having prepared them (helper W13): a
long table (one row per comparison and judge), ...; each said with the column or row and
the fix, every printed command running as printed."""

from __future__ import annotations

import shlex

import pandas as pd

from .test_pairwise_cli import FREQ, SAMPLE, _run


def _long(tmp_path) -> str:
    """The shipped sample as a long table: one row per comparison and judge."""
    wide = pd.read_csv(SAMPLE).drop(columns="human_full")
    long = wide.melt(
        id_vars=["id", "prompt", "model_a", "model_b", "label"],
        value_vars=["gpt4", "claude3_opus", "gpt35"], var_name="judge", value_name="verdict",
    )  # fmt: skip
    path = tmp_path / "long.csv"
    long.sort_values(["id", "judge"]).to_csv(path, index=False)
    return str(path)


def test_a_long_table_of_comparisons_is_refused_with_its_pivot(capsys, tmp_path):
    """A long table (one row per comparison and judge: columns judge and verdict) was
    read as 9,000 comparisons with one judge 'verdict' mixing three, each human vote
    counted three times: doctor printed a command, and estimate ran, with intervals too
    narrow by about sqrt(3). Every command now refuses it naming the judge column, with
    the pivot that makes one row per comparison, which runs as printed."""
    path = _long(tmp_path)
    for argv in (
        ["doctor", path, "--pairwise", "--label", "label"],
        ["estimate", path, "--pairwise", "--label", "label", *FREQ],
        ["plan", path, "--pairwise", "--label", "label", "--half-width", "0.3"],
    ):
        code, out, err = _run(argv, capsys)
        assert code == 2, (argv, out)
        assert "column 'judge' names the judge of each row" in err, err
        assert "wide.csv" in err
    recipe = err[err.index(" -c ") + 4 :].split(" (pivot refuses")[0]
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", shlex.split(recipe)[0]], cwd=tmp_path, check=True)
    wide = pd.read_csv(tmp_path / "wide.csv")
    assert len(wide) == 3000 and {"gpt4", "claude3_opus", "gpt35"} <= set(wide.columns)
    code, out, err = _run(["doctor", str(tmp_path / "wide.csv")], capsys)
    assert code == 0 and "3000 rows" in out, err


def test_models_written_with_a_space_for_a_dash_are_said_and_written_one_way(capsys, tmp_path):
    """'vicuna 13b' beside 'vicuna-13b' (and 'VICUNA_13B') were read as three models, and
    doctor said nothing: its note and the line that writes each model one way took only
    case and spaces around a name. Names differing in the separators between their words
    (space, '-', '_') are now said too, and the printed line writes them one way: doctor
    on its output finds the 20 models."""
    frame = pd.read_csv(SAMPLE)
    frame.loc[::3, "model_a"] = frame.loc[::3, "model_a"].str.replace("-", " ")
    frame.loc[1::5, "model_b"] = frame.loc[1::5, "model_b"].str.replace("-", "_").str.upper()
    path = tmp_path / "spelled.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0, err
    assert "model name(s) are written several ways" in out, out
    assert "'ALPACA_13B', 'alpaca 13b', 'alpaca-13b'" in out, out
    line = out[out.index("-c ") + 3 :].split(", then bacon doctor")[0]
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", shlex.split(line)[0]], cwd=tmp_path, check=True)
    code, out, err = _run(["doctor", str(tmp_path / "spelled_models.csv")], capsys)
    assert code == 0 and "20 models" in out.splitlines()[0], out


def test_a_wave_table_with_a_vote_column_of_its_own_name_runs_as_status_prints(
    capsys, tmp_path, monkeypatch
):
    """`bacon sample --pairwise --label my_vote` wrote the wave table; once its votes
    were filled in, `bacon status` on it said to run `bacon estimate WAVE --pairwise`,
    which refused: "has no column of human votes (label, winner or human_label)". The
    wave table's one column of votes (verdicts, empty where nobody voted) is now read
    as its vote column, said in a note, so the printed command runs."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(SAMPLE).rename(columns={"label": "my_vote"})
    truth = frame.pop("human_full")
    frame.to_csv("arena.csv", index=False)
    code, out, err = _run(
        ["sample", "arena.csv", "--pairwise", "--label", "my_vote", "--design", "uniform",
         "--budget", "100", "--seed", "1"], capsys,
    )  # fmt: skip
    assert code == 0, err
    wave = pd.read_csv("arena-wave.csv")
    drawn = wave["to_label"].eq(1)
    wave.loc[drawn, "my_vote"] = truth[drawn]
    wave.to_csv("arena-wave.csv", index=False)
    code, out, err = _run(["status", "arena-wave.csv"], capsys)
    assert code == 2
    printed = err[err.index("`bacon estimate") + 1 :].split("`")[0]
    argv = shlex.split(printed)[1:]
    code, out, err = _run([*argv, *FREQ], capsys)
    assert code == 0, err
    import re

    assert re.search(r"3000 comparisons of 20 models, 4\d\d with a human vote", out), out
    assert "column 'my_vote'" in out


def test_labels_alone_beside_a_model_nobody_voted_on(capsys, tmp_path):
    """A model in 4 comparisons, none voted on, took away the labels-alone comparison:
    "labels alone: no Bradley-Terry fit (model(s) 'newbie-7b' have no labeled
    comparisons ... drop them from the names)", no width ratio, and a fix (names=) the
    command line has no option for. The labels alone are now fitted on the comparisons
    of the models with a vote, the ratio given over them and the model without votes
    named."""
    frame = pd.read_csv(SAMPLE)
    extra = frame.iloc[:4].copy()
    extra["model_b"], extra["label"], extra["id"] = "newbie-7b", None, range(90000, 90004)
    path = tmp_path / "newbie.csv"
    pd.concat([frame, extra]).to_csv(path, index=False)
    code, out, err = _run(["estimate", str(path), "--pairwise", *FREQ], capsys)
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("labels alone"))
    assert "no Bradley-Terry fit" not in line, line
    assert "width ratio 0.8" in line or "width ratio 0.9" in line, line
    assert "newbie-7b" in line and "no human vote" in line, line
    code, out, err = _run(["estimate", str(path), "--pairwise", *FREQ, "--json"], capsys)
    import json

    doc = json.loads(out)
    assert 0.8 < doc["width_ratio"] < 1.0
    assert len(doc["labels_alone"]) == 21


def test_judges_on_pairs_weigh_votes_drawn_with_unequal_probabilities(capsys, tmp_path):
    """On a wave table (`to_label`, `propensity`), doctor's and the report's "judges on
    pairs" took the votes as a uniform draw: on the Arena subset after a stratified
    wave, the humans' tie rate read 0.253 [0.224, 0.284] where the table's is 0.298,
    and Claude's kappa 0.290 [0.239, 0.341] where all 26,919 votes give 0.211. The votes
    are now weighed by 1 / propensity (Hajek shares, Kish's effective size for the
    intervals): 0.294 [0.249, 0.344] and 0.185 [0.109, 0.262] there. Here: ties drawn
    ten times as often as the rest."""
    import re

    import numpy as np

    from bacon_bayes import EvalPool
    from bacon_bayes.doctor.pairs import pool_pair_diagnostics

    frame = pd.read_csv(SAMPLE)
    truth = frame.pop("human_full")
    tie = truth.eq("tie").to_numpy()
    pi = np.where(tie, 0.5, 0.05)
    drawn = np.random.default_rng(3).random(len(frame)) < pi
    frame["label"] = truth.where(drawn)
    frame["to_label"], frame["propensity"] = drawn.astype(int), pi
    path = tmp_path / "wave.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0, err
    row = next(x for x in out.splitlines() if "(human)" in x)
    rate, lo, hi = map(float, re.findall(r"(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]", row)[-1])
    assert lo <= tie.mean() <= hi, (row, tie.mean())
    assert "weighed by 1 / propensity" in out
    pool = EvalPool.from_pairs(
        frame, model_a="model_a", model_b="model_b", label="label",
        judges=["gpt4", "claude3_opus", "gpt35"], propensity="propensity",
    )  # fmt: skip
    diag = pool_pair_diagnostics(pool)
    human = diag.iloc[0]
    assert human.tie_lo <= tie.mean() <= human.tie_hi and abs(human.tie_rate - rate) < 1e-3
    page = tmp_path / "r.html"
    code, _, err = _run(["report", str(path), "--pairwise", *FREQ, "--out", str(page)], capsys)
    assert code == 0, err
    assert "The human votes are weighed by the inverse" in page.read_text()


def test_a_count_column_is_not_offered_as_a_judge_of_probabilities(capsys, tmp_path):
    """The Arena file's `n_votes_same_item` (1, or 2 on 18 rows) got doctor's note
    "holds numbers from 0 to 1 but for 18 cell(s) ... if it is a judge's probability
    that A wins, clip those cells to [0, 1]" and a --judge list with it: a count is no
    probability. Whole numbers past 1 are left unsaid; a probability past 1 still is."""
    frame = pd.read_csv(SAMPLE)
    frame["n_votes_same_item"] = 1
    frame.loc[::200, "n_votes_same_item"] = 2
    frame["p_judge"] = 0.3
    frame.loc[5, "p_judge"], frame.loc[9, "p_judge"] = 0.8, 1.02
    path = tmp_path / "counts.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0, err
    said = [ln for ln in out.splitlines() if "n_votes_same_item" in ln]
    assert len(said) == 1 and said[0].startswith("  not used: "), said  # only named unused
    assert "column 'p_judge' holds numbers from 0 to 1 but for 1 cell(s)" in out


def test_from_pairs_refuses_a_long_frame_with_its_pivot():
    """`EvalPool.from_pairs` on a long frame (one row per comparison and judge, the
    judges in one column `verdict`) built a pool of 9,000 comparisons, each vote three
    times. It refuses it, naming the repeated id column, with a pivot that runs."""
    import pytest

    from bacon_bayes import EvalPool
    from bacon_bayes.errors import ValidationError

    wide = pd.read_csv(SAMPLE).drop(columns="human_full")
    df = wide.melt(
        id_vars=["id", "prompt", "model_a", "model_b", "label"],
        value_vars=["gpt4", "claude3_opus", "gpt35"], var_name="judge", value_name="verdict",
    )  # fmt: skip
    kw = {"model_a": "model_a", "model_b": "model_b", "label": "label"}
    with pytest.raises(ValidationError, match="column 'id' names the comparisons") as exc:
        EvalPool.from_pairs(df, **kw, judges=["verdict"])
    recipe = str(exc.value).split("e.g. ")[1].split(", then from_pairs")[0]
    scope = {"df": df}
    exec(recipe.replace("'JUDGE_COLUMN'", "'judge'"), scope)
    pool = EvalPool.from_pairs(
        scope["wide"], **kw, judges=["gpt4", "claude3_opus", "gpt35"], item="id"
    )
    assert pool.n_items == 3000 and pool.n_labeled == 400
