"""Tester C's campaign (round 37): to-label and label files in the formats their names
say, label words said on import, and status / sample messages that fit the study."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.errors import PoolWarning

from .conftest import bacon, fill


def test_sample_out_parquet_writes_parquet_and_other_endings_are_refused(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """`bacon sample --out todo.parquet` wrote CSV text into the .parquet file ("Parquet
    magic bytes not found" in every Parquet reader after it)."""
    out = tmp_path / "w2.parquet"
    assert bacon("sample", str(study), "--budget", "10", "--out", str(out)) == 0
    todo = pd.read_parquet(out)
    assert list(todo.columns[:3]) == ["id", "human", "wave"] and len(todo) == 10
    assert todo["human"].isna().all() and (todo["wave"] == 2).all()
    capsys.readouterr()
    assert bacon("sample", str(study), "--budget", "5", "--out", str(tmp_path / "w3.txt")) == 2
    assert "use a .csv or .parquet file name" in capsys.readouterr().err
    assert not (tmp_path / "w3.txt").exists()
    assert bacon("status", str(study), "--no-questions", "--pending-out", str(out), "--force") == 0
    assert len(pd.read_parquet(out)) == 50  # wave 1's 40 and wave 2's 10, still pending


@pytest.mark.parametrize("kind", ["parquet", "json", "jsonl"])
def test_label_import_reads_parquet_and_json_label_files(
    kind: str, study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A Parquet label file failed with "'charmap' codec can't decode", a JSON one was
    split into junk columns (``'[{"id":"d005-M12"'``): both read as CSV."""
    back = pd.read_csv(fill(tmp_path / "todo.csv", pool_file, tmp_path / "b.csv"), dtype=str)
    back["human"] = back["human"].astype(float)
    path = tmp_path / f"back.{kind}"
    if kind == "parquet":
        back.to_parquet(path, index=False)
    else:
        back.to_json(path, orient="records", lines=kind == "jsonl")
    capsys.readouterr()
    assert bacon("label", "import", str(path), "--study", str(study)) == 0, capsys.readouterr()
    assert "40 labels added" in capsys.readouterr().out
    bad = back.assign(human=back["human"].where(back.index != 3, 9.0))  # off the 1-5 levels
    bad.to_parquet(tmp_path / "bad.parquet", index=False)
    assert bacon("label", "import", str(tmp_path / "bad.parquet"), "--study", str(study)) == 2
    err = capsys.readouterr().err
    assert f"row 3 (id='{back['id'][3]}', human='9.0')" in err, err  # no CSV line numbers


def test_label_import_says_how_label_words_were_read(tmp_path: Path, capsys) -> None:
    """yes / no (and correct / incorrect) were turned into 1 / 0 without a word: for a
    label such as "hallucinated" whose "yes" means 0, a silent yes = 1 is a wrong label."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 120)
    pool = pd.DataFrame(
        {"id": [f"q{i}" for i in range(120)], "j": np.clip(y + rng.normal(0, 0.4, 120), 0, 1)}
    )
    pool.to_csv(tmp_path / "pool.csv", index=False)
    root, todo = tmp_path / "s.study", tmp_path / "todo.csv"
    argv = ["sample", str(tmp_path / "pool.csv"), "--study", str(root), "--item", "id"]
    assert bacon(*argv, "--label", "y", "--judge", "j", "--budget", "20", "--out", str(todo)) == 0
    back = pd.read_csv(todo, dtype=str)
    truth = dict(zip(pool["id"], y, strict=True))
    back["y"] = ["yes" if truth[i] else "no" for i in back["id"]]
    back.to_csv(tmp_path / "back.csv", index=False)
    capsys.readouterr()
    assert bacon("label", "import", str(tmp_path / "back.csv"), "--study", str(root)) == 0
    out = capsys.readouterr().out
    assert "20 labels added" in out and "read from words, 'yes' = 1, 'no' = 0 (20 cells)" in out
    stored = pd.read_csv(root / "labels.csv", dtype={"item": str}).set_index("item")["y"]
    assert all(stored[i] == truth[i] for i in back["id"])
    back["y"] = [str(truth[i]) for i in back["id"]]  # numbers: nothing to say
    back.to_csv(tmp_path / "back2.csv", index=False)
    assert bacon("label", "import", str(tmp_path / "back2.csv"), "--study", str(root)) == 0
    assert "words" not in capsys.readouterr().out


def test_status_note_on_a_partly_returned_first_wave(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """With wave 1 partly back the note said "the questions wait at no wave and the 10
    labels back from the waves after it are not used": they are wave 1's own."""
    part = fill(tmp_path / "todo.csv", pool_file, tmp_path / "part.csv", slice(0, 10))
    assert bacon("label", "import", str(part), "--study", str(study)) == 0
    capsys.readouterr()
    assert bacon("status", str(study)) == 0
    out = capsys.readouterr().out
    assert "no question is answered yet and the 10 labels back so far are not used" in out
    assert "after it" not in out and "no wave" not in out.split("questions:")[0]


def test_until_with_budget_on_a_running_study_says_give_one(
    study: Path, capsys: pytest.CaptureFixture
) -> None:
    """On a study at wave 1 (or 7) the refusal spoke of drawing "the first wave"."""
    capsys.readouterr()
    assert bacon("sample", str(study), "--until", "half-width=0.3", "--budget", "10") == 2
    err = capsys.readouterr().err
    assert "--until and --budget both size the wave: give one" in err and "first" not in err


def test_status_on_rows_a_judge_re_run_left_unscored_is_a_clean_refusal(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A judge re-run that left 3 rows unscored: status printed the raw PoolWarning with
    the package's file path and source line. A started study now refuses such rows (they
    were imputed): one message naming the rows and the fix, no raw warning."""
    full = fill(tmp_path / "todo.csv", pool_file, tmp_path / "all.csv")
    assert bacon("label", "import", str(full), "--study", str(study)) == 0
    pool = pd.read_csv(pool_file)
    pool.loc[pool.index[-3:], ["judge_a", "judge_b"]] = np.nan
    pool.to_csv(pool_file, index=False)
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PoolWarning)  # a raw warning fails the command
        assert bacon("status", str(study), "--engine", "freq") == 2
    err = capsys.readouterr().err
    assert "3 row(s) of pool file" in err and "Restore their scores" in err, err
    assert "PoolWarning" not in err and ".py:" not in err
