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
