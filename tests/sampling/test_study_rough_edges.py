"""`bacon sample` on a pool file: an empty label column, labels already there, a second
run with other new-study options, and errors that name the pool as the user gave it."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.study import Study

from .conftest import bacon

NEW = ["--item", "id", "--label", "human", "--judges", "judge_a,judge_b", "--budget", "20"]


def _with_label(pool_file: Path, values) -> Path:
    frame = pd.read_csv(pool_file)
    frame["human"] = values
    frame.to_csv(pool_file, index=False)
    return pool_file


def test_an_empty_label_column_is_accepted(pool_file, tmp_path, capsys):
    _with_label(pool_file, float("nan"))  # the layout EvalPool and the README describe
    assert bacon("sample", str(pool_file), *NEW, "--out", str(tmp_path / "t.csv")) == 0
    study = Study.open(tmp_path / "pool.study")
    assert "human" not in study.pool.columns and study.n_items == 200


def test_labels_already_in_the_pool_are_a_first_wave_or_an_explicit_decision(
    pool_file, tmp_path, capsys
):
    frame = pd.read_csv(pool_file)
    _with_label(pool_file, frame["truth"].where(frame.index < 10))
    assert bacon("sample", str(pool_file), *NEW, "--study", str(tmp_path / "a"),
                 "--existing-labels", "error") == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "already has 10 labels in column 'human'" in err and "--existing-labels ignore" in err
    assert not (tmp_path / "a" / "manifest.csv").exists()
    # by default they are the study's first wave (uniform); a refused wave keeps nothing
    assert bacon("sample", str(pool_file), *NEW[:-1], "500", "--study", str(tmp_path / "c")) == 2
    assert "only 190 items are still unlabeled" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()
    assert bacon("sample", str(pool_file), *NEW, "--study", str(tmp_path / "c"),
                 "--out", str(tmp_path / "c.csv")) == 0  # fmt: skip
    study = Study.open(tmp_path / "c")
    assert len(study.labels) == 10 and study.wave_numbers == [1, 2]
    out = str(tmp_path / "t.csv")
    assert bacon("sample", str(pool_file), *NEW, "--study", str(tmp_path / "b"),
                 "--existing-labels", "ignore", "--out", out) == 0  # fmt: skip
    assert Study.open(tmp_path / "b").labels.empty, "pool labels are not used as study labels"


def test_a_pool_with_nothing_left_to_draw_says_why_and_the_ways_on(
    pool_file, tmp_path, capsys, monkeypatch
):
    """Tester B finding 21 (round 36): on a wholly labeled pool bacon sample said only
    "every pool item has already been selected". It names the cause (every row's label
    recorded as wave 1) and the ways on: --existing-labels ignore, bacon simulate and
    bacon estimate, whose printed commands run; a study whose waves took every item says
    so and what to do."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(pool_file)
    _with_label(pool_file, frame["truth"])
    assert bacon("sample", "pool.csv", *NEW) == 2
    err = capsys.readouterr().err
    assert (
        "every pool item has already been selected: all 200 rows of pool file pool.csv hold a "
        "label in column 'human', recorded as wave 1, so no item is left to draw" in err
    )
    assert "add --existing-labels ignore" in err and not Path("pool.study").exists()
    simulate, estimate = (shlex.split(code) for code in err.split("`")[1::2])
    assert simulate[:2] == ["bacon", "simulate"] and estimate[:2] == ["bacon", "estimate"]
    assert bacon(*estimate[1:], "--engine", "freq") == 0
    assert bacon("sample", "pool.csv", *NEW, "--existing-labels", "ignore") == 0
    # a study whose waves drew every item
    _with_label(pool_file, float("nan"))
    grow = ["--study", "s", "--out", "s1.csv"]
    assert bacon("sample", "pool.csv", *NEW[:-1], "200", *grow) == 0
    capsys.readouterr()
    assert bacon("sample", "s", "--budget", "10", "--out", "s2.csv") == 2
    err = capsys.readouterr().err
    assert "the 1 wave(s) of study s drew all 200 items (200 still without a label)" in err
    assert "bacon label import FILE --study s" in err and "bacon estimate s" in err


def test_a_second_run_says_what_it_did_and_refuses_conflicting_options(pool_file, tmp_path, capsys):
    out = ["--out", str(tmp_path / "t.csv")]
    assert bacon("sample", str(pool_file), *NEW, *out) == 0
    capsys.readouterr()
    assert bacon("sample", str(pool_file), *NEW, *out) == 0
    said = capsys.readouterr().out
    assert "exists" in said and "drawing its next wave" in said and "wave 2" in said
    other = [v if v != "human" else "other" for v in NEW]  # one --label, another column
    assert bacon("sample", str(pool_file), *other, *out) == 2
    err = capsys.readouterr().err
    assert "--label (study has 'human', given 'other')" in err and "--study NEW_FOLDER" in err


def test_errors_name_the_pool_file_as_given(pool_file, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert bacon("sample", "pool.csv", *NEW, "--out", "t.csv") == 0
    Path("pool.csv").write_text("name,judge_a\nx,1\n")  # the pool lost its id column
    with pytest.raises(Exception, match=r"pool file pool\.csv ") as info:
        Study.open("pool.study")
    assert "pool.study/.." not in str(info.value)


def test_a_pool_with_two_columns_of_one_name_is_refused(pool_file, tmp_path, capsys):
    """As every other reader refuses it (issue 43's walk: sample took it, and the study's
    pool then read the second column as 'judge_a.1')."""
    header, _, rest = pool_file.read_text().partition("\n")
    names = header.split(",")
    names[names.index("judge_b")] = "judge_a"
    pool_file.write_text(",".join(names) + "\n" + rest)
    assert bacon("sample", str(pool_file), *NEW[:4], "--budget", "20") == 2
    assert "are both named 'judge_a'" in capsys.readouterr().err
    assert not (tmp_path / "pool.study").exists()


def test_a_later_wave_with_the_same_seed_draws_at_its_recorded_probability(
    pool_file, tmp_path, capsys
):
    """Every wave drew with `--seed 0` by default, so a second Bernoulli wave reused the
    first one's uniforms: of the items left eligible (uniform above 0.2) it drew only those
    below 0.25, about 10 instead of the 40 its recorded probability 0.25 promises (and its
    estimates were weighted by that wrong probability). Each later wave has its own stream."""
    root = tmp_path / "b.study"
    common = ["--design", "bernoulli", "--force"]
    first = ["sample", str(pool_file), "--study", str(root), *NEW[:6], "--budget", "0.2"]
    assert bacon(*first, "--out", str(tmp_path / "w1.csv"), *common) == 0
    second = ["sample", str(root), "--budget", "40", "--out", str(tmp_path / "w2.csv")]
    assert bacon(*second, *common) == 0
    capsys.readouterr()
    study = Study.open(root)
    first_wave = study.first_wave()
    eligible = int((first_wave != 1).sum())
    drawn = int((first_wave == 2).sum())
    p = 40 / eligible
    sd = (eligible * p * (1 - p)) ** 0.5
    assert abs(drawn - 40) < 3.5 * sd, (drawn, eligible)
    manifest = study.manifest
    recorded = manifest.loc[manifest["wave"] == 2, "pi"].to_numpy()
    assert np.allclose(recorded[first_wave != 1], p)


def test_a_pool_read_again_is_the_same_frame_and_a_changed_pool_is_read_anew(tmp_path):
    """read_pool keeps the last pools by their bytes: the same bytes give an equal frame
    (its attrs too) that the caller may change without changing the next; one changed
    byte, even at the same size and time, is read from the file."""
    import os

    from bacon_bayes.study.folder import read_pool

    path = tmp_path / "pool.csv"
    path.write_text("id,judge\na,1\nb,2\n")
    first = read_pool(path, "id")
    first.loc[0, "judge"] = 99.0
    first.attrs["blank rows"] = "changed"
    again = read_pool(path, "id")
    assert again["judge"].tolist() == [1, 2] and again.attrs["blank rows"] != "changed"
    stat = path.stat()
    path.write_text("id,judge\na,1\nb,3\n")  # same size; the same time, as a fast rewrite
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert read_pool(path, "id")["judge"].tolist() == [1, 3]
