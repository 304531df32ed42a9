"""``bacon simulate DATA --labels FILE``: the labels kept apart, joined by id (issue 35)."""

from __future__ import annotations

import pandas as pd

from bacon_bayes.cli import main

SAMPLE = "bacon_bayes/data/summeval_sample.csv.gz"


def test_simulate_joins_a_labels_file_by_id(tmp_path, capsys):
    frame = pd.read_csv(SAMPLE).head(300)
    frame.insert(0, "id", [f"s{i}" for i in range(len(frame))])
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    frame[["id", *judges[:3]]].to_csv(tmp_path / "scores.csv", index=False)
    labels = frame[["id", "expert_mean_relevance"]].rename(columns={"expert_mean_relevance": "y"})
    labels.sample(frac=1, random_state=0).to_csv(tmp_path / "labels.csv", index=False)
    args = ["simulate", str(tmp_path / "scores.csv"), "--labels", str(tmp_path / "labels.csv"),
            "--label", "y", "--judge", ",".join(judges[:3]), "--trials", "3",
            "--budgets", "0.2", "--out", str(tmp_path / "sim")]  # fmt: skip
    assert main(args) == 0, capsys.readouterr().err
    assert (tmp_path / "sim" / "summary.csv").is_file()
    labels.iloc[:-1].to_csv(tmp_path / "some.csv", index=False)  # one item without a label
    args[3] = str(tmp_path / "some.csv")
    args[-1] = str(tmp_path / "sim2")
    assert main(args) == 2
    assert not (tmp_path / "sim2").exists()


def test_simulate_refuses_a_long_table_with_the_pivot(tmp_path, capsys):
    """Tester B finding 20 (round 36): on a long table (a row per item and judge) simulate
    said only that labels were missing, and with --drop-unlabeled ran on 360 rows, each of
    the 120 labeled items (and its label) counted three times and three judges merged in
    one column. It refuses it now, as estimate does, with the pivot; --item lets it be."""
    from pathlib import Path

    import bacon_bayes

    wide = pd.read_csv(Path(bacon_bayes.__file__).parent / "data" / "example_pool.csv")
    keys, judges = ["id", "doc_id", "system", "human"], ["gpt4", "gpt35", "llama70b"]
    long = wide.melt(id_vars=keys, value_vars=judges, var_name="judge", value_name="score")
    long.to_csv(tmp_path / "long.csv", index=False)
    args = ["simulate", str(tmp_path / "long.csv"), "--label", "human", "--judge", "score",
            "--trials", "2", "--budgets", "0.2"]  # fmt: skip
    runs = [["--out", "a"], ["--drop-unlabeled", "--out", "b"], ["--ablation", "--out", "c"]]
    for *extra, out in runs:
        argv = [*args, *extra] if "--ablation" not in extra else [*args[:6], *extra]
        argv.append(str(tmp_path / out))
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "the table looks long, one row per item and judge" in err, err
        assert "wide = df.pivot(index='id', columns='judge', values='score')" in err
    assert not any((tmp_path / d).exists() for d in "abc")


def test_simulate_budgets_as_label_counts(tmp_path, capsys):
    """Session 42: ``--budgets 100,200`` (labels, as a user counts them) was refused as
    "must be a share of the table"; whole numbers above 1 are label counts, each read as
    its share of the rows (said), and the trials draw that many labels; a count past the
    table or a fraction above 1 is refused naming both readings."""
    frame = pd.read_csv(SAMPLE).head(300)
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    frame.to_csv(tmp_path / "t.csv", index=False)
    args = ["simulate", str(tmp_path / "t.csv"), "--label", "expert_mean_relevance",
            "--judge", ",".join(judges[:3]), "--trials", "2", "--methods", "classical"]  # fmt: skip
    assert main([*args, "--budgets", "60,0.4", "--out", str(tmp_path / "sim")]) == 0
    assert "label counts read as shares of the 300 rows (60 -> 0.2)" in capsys.readouterr().out
    summary = pd.read_csv(tmp_path / "sim" / "summary.csv")
    assert sorted(summary["budget"].round(6).unique()) == [0.2, 0.4]
    trials = pd.read_parquet(tmp_path / "sim" / "trials.parquet")
    assert set(trials.loc[trials["budget"].round(6) == 0.2, "n_labels"]) == {60}
    for bad in ("301", "2.5"):
        assert main([*args, "--budgets", bad, "--out", str(tmp_path / f"b{bad}")]) == 2
        assert "a whole number of labels up to its 300 rows" in capsys.readouterr().err


def test_simulate_on_a_pilot_of_few_labels_points_to_bacon_plan(tmp_path, capsys):
    """Session 46: on a table with labels on 3% of its rows (a pilot), simulate said to
    fill the labels in or pass --drop-unlabeled, which then failed ('budget 0.05 gives 1
    labels of 28 rows ... raise the budget'). It now says the table is a pilot, what
    --drop-unlabeled would do, and prints the bacon plan command, which runs."""
    import shlex

    import numpy as np

    frame = pd.read_csv(SAMPLE).head(300)
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    keep = np.random.default_rng(0).random(len(frame)) < 0.1
    frame["y"] = frame["expert_mean_relevance"].where(keep)
    frame[["system", "y", *judges[:2]]].to_csv(tmp_path / "t.csv", index=False)
    args = ["simulate", str(tmp_path / "t.csv"), "--label", "y", "--judge", "judge:*",
            "--group", "system", "--trials", "2", "--out", str(tmp_path / "sim")]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err.replace("\n", " ")
    assert f"has a value on {int(keep.sum())} of 300 rows" in err, err
    assert "--drop-unlabeled would simulate on those" in err
    plan = shlex.split(err.split("the labels each design needs: ", 1)[1])
    assert plan[:3] == ["bacon", "plan", str(tmp_path / "t.csv")] and "--top" in plan
    assert "'judge:*'" in err and not (tmp_path / "sim").exists()
    assert main([*plan[1:], "--engine", "freq"]) == 0


def test_simulate_reads_a_zero_one_label_as_binary_as_estimate_does(tmp_path, capsys):
    """Session 46: on TriviaQA's 0/1 verdicts, doctor's printed `bacon simulate` measured
    the ridge's AEE (simulate's default outcome was continuous) while `bacon estimate`
    runs the binary (categorical) model: label multipliers 6.6 against 7.2 at 5% labels.
    Simulate now guesses the outcome as estimate does, and says so."""
    import json

    import numpy as np

    rng = np.random.default_rng(0)
    truth = (rng.random(200) < 0.6).astype(float)
    frame = pd.DataFrame({"human": truth})
    for j, e in (("a", 0.1), ("b", 0.2)):
        frame[j] = np.abs(truth - (rng.random(200) < e))
    frame.to_csv(tmp_path / "t.csv", index=False)
    args = ["simulate", str(tmp_path / "t.csv"), "--label", "human", "--judge", "a,b",
            "--trials", "2", "--budgets", "0.3", "--methods", "aee"]  # fmt: skip
    assert main([*args, "--out", str(tmp_path / "sim")]) == 0
    assert "'human' takes only 0 and 1: estimated as a binary" in capsys.readouterr().out
    settings = json.loads((tmp_path / "sim" / "settings.json").read_text())
    assert settings["outcome"] == "categorical"
    assert main([*args, "--outcome", "continuous", "--out", str(tmp_path / "c")]) == 0
    assert "takes only 0 and 1" not in capsys.readouterr().out
