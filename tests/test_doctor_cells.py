"""How doctor (and estimate, which reads the same cells) reads cell values of tables
nobody prepared (tester T1's findings, session 32): decimal commas beside '-', scores
written as fractions, numbers stored as text in Parquet, 'NA' / 'n/a' / '-' as empty
cells in every format, one row numbering, export metadata that is no judge, the count
of labels, and a wholly labeled table without --label."""

from __future__ import annotations

import numpy as np

from bacon_bayes.cli import main

from .test_doctor_messy import doctor, estimate_json, section
from .test_doctor_values import _line, _table


def _estimate(path, judge: str, capsys) -> dict:
    return estimate_json([str(path), "--label", "human", "--judge", judge], capsys)["mean"]


def test_the_labels_line_counts_the_labels(tmp_path, capsys) -> None:
    """Finding 2: "labels: N of M items" printed the most labeled items one judge scored
    (0 with no judge), not the number of labels."""
    frame = _table().drop(columns=["system", "prompt"])  # no group: the labels line
    labeled = np.flatnonzero(frame["human"].notna())
    for k, judge in enumerate(["llm_a", "llm_b", "llm_c"]):
        frame.loc[labeled[k], judge] = np.nan  # each judge misses one labeled item
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert f"labels: {labeled.size} of {len(frame)} items" in out, out


def test_doctor_and_estimate_number_a_parquet_row_alike(tmp_path, capsys) -> None:
    """Finding 9: doctor said "row 116" (from 1) where estimate said "row 115" (from 0)
    for the same cell of a Parquet file. Both count from 0, and doctor says so."""
    frame = _table()
    frame["llm_c"] = frame["llm_c"].map(lambda v: f"{v:g}")  # text, as Parquet keeps it
    frame.loc[frame.index[[115, 300]], "llm_c"] = "error"
    path = tmp_path / "t.parquet"
    frame.attrs = {}
    frame.to_parquet(path)
    assert main(["doctor", str(path)]) == 0
    left = _line(capsys.readouterr().out, "left out", "llm_c")
    assert "the first at row 115 (rows counted from 0)" in left, left
    assert main(["estimate", str(path), "--label", "human", "--judge", "llm_c"]) == 2
    assert f"at row 115 (item {frame['id'][115]!r})" in capsys.readouterr().err


def test_export_metadata_is_never_a_judge(tmp_path, capsys) -> None:
    """Finding 10: on a pilot (about 30 labels, too few to call a column unrelated) a
    Unix timestamp `created_at`, `duration_ms` and `n_words` went into the command as
    judges. Named like metadata, or holding times since 1970 whatever the name, they are
    left out with why and how to use one anyway."""
    frame = _table(labeled=0.03)
    q = frame.attrs["quality"]
    rng = np.random.default_rng(1)
    n = len(frame)
    frame["created_at"] = 1_714_000_000 + np.cumsum(rng.integers(1, 900, n))
    frame["duration_ms"] = (3000 - 1500 * q + rng.normal(0, 200, n)).round()
    frame["n_words"] = (40 + 60 * q + rng.normal(0, 5, n)).round()
    frame["finished"] = 1000 * frame["created_at"] + frame["duration_ms"] + 200 * q
    path = tmp_path / "pilot.csv"
    frame.to_csv(path, index=False)
    out, cmd = doctor([str(path)], capsys)
    judges = [cmd[k + 1] for k, a in enumerate(cmd) if a == "--judge"]
    assert judges == ["llm_*"] or set(judges) == {"llm_a", "llm_b", "llm_c"}, cmd
    for c in ["created_at", "duration_ms", "n_words", "finished"]:
        assert "(pass --judge to use it anyway)" in _line(out, "left out", c), c
    assert "milliseconds since 1970, a timestamp" in _line(out, "left out", "finished")


def test_a_wholly_labeled_table_without_label_points_to_it(tmp_path, capsys) -> None:
    """Finding 12: every row labeled, no --label: doctor ended with "only the raw judge
    average (no human labels): label a sample of items". It names the full label column,
    the doctor command with --label and bacon simulate."""
    frame = _table(labeled=1.0)
    path = tmp_path / "full.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    can = section(capsys.readouterr().out, "what can be computed")
    assert "no human labels" not in can and "bacon sample" not in can, can
    assert f"bacon doctor {path} --label human gives the command" in can
    assert f"bacon simulate {path} --label human --out DIR" in can
    assert "every item is labeled" in can
