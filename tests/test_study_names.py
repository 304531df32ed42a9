"""The study folder a pool file gets (its whole name, ``pool_p0.03.study``), a study
created from another pool file refused by ``bacon sample``, and a table or study path
that does not exist said as such by estimate, report and plan."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.errors import ValidationError
from bacon_bayes.study import Study
from bacon_bayes.study.folder import study_beside

SAMPLE = ["--design", "uniform", "--budget", "10", "--item", "id", "--label", "label"]
SAMPLE += ["--judge", "j*", "--scale", "1:5"]


def pool(path: Path, labeled: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    n = 80
    y = rng.integers(1, 6, n).astype(float)
    frame = pd.DataFrame({"id": [f"i{k}" for k in range(n)], "j1": y, "j2": y + 0.5})
    frame["label"] = np.where(np.arange(n) < labeled, y, np.nan)
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("pool.csv", "pool"),
        ("pool.csv.gz", "pool"),
        ("pool.parquet", "pool"),
        ("summ_p0.03.csv", "summ_p0.03"),
        ("summ_p0.05.csv.gz", "summ_p0.05"),
        ("summ_p0.03", "summ_p0.03"),
        ("pool", "pool"),
    ],
)
def test_file_stem_keeps_the_whole_name(name, stem):
    from bacon_bayes.study.folder import file_stem

    assert file_stem(name) == stem
    assert study_beside(Path("d") / name) == Path("d") / f"{stem}.study"


def test_pools_differing_after_a_dot_get_their_own_studies(tmp_path, capsys, monkeypatch):
    """Finding A10: sx_p0.03.csv and sx_p0.05.csv both mapped to sx_p0.study, and the
    second file's wave was drawn into the first file's study ("created earlier from
    sx_p0.05.csv", which it was not)."""
    monkeypatch.chdir(tmp_path)
    pool(tmp_path / "sx_p0.03.csv", labeled=12)
    pool(tmp_path / "sx_p0.05.csv", labeled=20, seed=1)
    assert main(["sample", "sx_p0.03.csv", *SAMPLE]) == 0
    assert main(["sample", "sx_p0.05.csv", *SAMPLE]) == 0
    out = capsys.readouterr().out
    assert "created study sx_p0.03.study" in out and "created study sx_p0.05.study" in out
    assert not (tmp_path / "sx_p0.study").exists()
    assert len(Study.open(tmp_path / "sx_p0.03.study").labels) == 12
    assert len(Study.open(tmp_path / "sx_p0.05.study").labels) == 20
    # the next wave of the same file: the message names the file the study was made from
    assert main(["sample", "./sx_p0.03.csv", *SAMPLE]) == 0
    assert "created earlier from sx_p0.03.csv" in capsys.readouterr().out


def test_a_study_of_another_pool_file_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pool(tmp_path / "a.csv", labeled=12)
    pool(tmp_path / "b.csv", labeled=20, seed=1)
    assert main(["sample", "a.csv", *SAMPLE]) == 0
    capsys.readouterr()
    assert main(["sample", "b.csv", *SAMPLE, "--study", "a.study"]) == 2
    err = capsys.readouterr().err
    assert "created from the pool file a.csv, not b.csv" in err
    assert "--study NEW_FOLDER" in err and "bacon sample a.study" in err
    assert Study.open(tmp_path / "a.study").wave_numbers == [1, 2]  # nothing drawn


def test_a_study_under_the_older_name_is_kept(tmp_path, capsys, monkeypatch):
    """A study started before the whole name was kept (``sx_p0.study`` from
    ``sx_p0.03.csv``) still gets the file's next wave."""
    monkeypatch.chdir(tmp_path)
    pool(tmp_path / "sx_p0.03.csv", labeled=12)
    assert main(["sample", "sx_p0.03.csv", *SAMPLE, "--study", "sx_p0.study"]) == 0
    assert study_beside(Path("sx_p0.03.csv")) == Path("sx_p0.study")
    assert main(["sample", "sx_p0.03.csv", *SAMPLE]) == 0
    assert Study.open(tmp_path / "sx_p0.study").wave_numbers == [1, 2, 3]
    assert not (tmp_path / "sx_p0.03.study").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["estimate", "nonexist.study"],
        ["estimate", "nonexist.study", "--chunk-rows", "100"],
        ["report", "pool.study", "--out", "r.html"],
        ["plan", "nonexist.study", "--half-width", "0.05"],
    ],
)
def test_a_missing_study_path_is_said(tmp_path, capsys, monkeypatch, command):
    """Finding B13: a study path that does not exist got '--label is required for a
    table'."""
    monkeypatch.chdir(tmp_path)
    assert main(command) == 2
    err = capsys.readouterr().err
    assert f"'{command[1]}' does not exist; check the path" in err
    assert "named like a study folder" in err and "--label" not in err


def test_a_missing_table_is_said_without_the_study_hint(tmp_path):
    from bacon_bayes.study.folder import refuse_missing

    with pytest.raises(ValidationError, match=r"file '.*nope\.csv' does not exist") as info:
        refuse_missing(tmp_path / "nope.csv")
    assert "study" not in str(info.value)
