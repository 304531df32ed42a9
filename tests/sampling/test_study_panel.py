"""A study's judge panel changing midway (tester G s38 findings 3-5): a judge retired from
the pool file is refused before a wave is drawn, with the fix; a judge rescored is refused
before a wave and said by every read; a change recorded with ``bacon sample STUDY
--change-judges`` is said by every read; ``estimate --judge`` with another panel says it
differs from the study's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

N = 80
NEW = ["--item", "id", "--label", "human", "--scale", "1:5", "--group", "system"]


def bacon(*argv: str) -> int:
    return main(list(argv))


@pytest.fixture
def study(tmp_path: Path) -> Path:
    """A study with judges a, b, c and one wave of 20 labels back."""
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, N).astype(float)
    frame = pd.DataFrame(
        {
            "id": [f"d{i:02d}" for i in range(N)],
            "system": rng.choice(["s1", "s2"], N),
            **{j: np.clip(truth + rng.normal(0, 0.8, N), 1, 5).round(1) for j in "abc"},
        }
    )
    frame.to_csv(tmp_path / "pool.csv", index=False)
    pd.DataFrame({"id": frame["id"], "truth": truth}).to_csv(tmp_path / "truth.csv", index=False)
    root = tmp_path / "pool.study"
    judges = ["--judge", "a", "--judge", "b", "--judge", "c"]
    assert bacon("sample", str(tmp_path / "pool.csv"), *NEW, *judges, "--budget", "20") == 0
    fill(root, 1)
    return root


def fill(root: Path, wave: int) -> None:
    truth = pd.read_csv(root.parent / "truth.csv", dtype={"id": str}).set_index("id")["truth"]
    todo = pd.read_csv(root / f"todo-wave{wave}.csv", dtype={"id": str})
    todo["human"] = todo["id"].map(truth)
    todo.to_csv(root / f"todo-wave{wave}.csv", index=False)
    assert bacon("label", "import", str(root / f"todo-wave{wave}.csv"), "--study", str(root)) == 0


def rewrite_pool(root: Path, change) -> None:
    path = root.parent / "pool.csv"
    frame = pd.read_csv(path, dtype={"id": str})
    change(frame).to_csv(path, index=False)


def waves(root: Path) -> list[int]:
    """The waves drawn (manifest.csv, their commit point)."""
    return sorted(int(w) for w in pd.read_csv(root / "manifest.csv")["wave"].unique())


def test_a_retired_judge_is_refused_before_the_wave_and_the_change_recorded(study, capsys):
    rewrite_pool(study, lambda f: f.drop(columns="c"))
    capsys.readouterr()
    assert bacon("sample", str(study), "--budget", "20") == 2  # was: drawn, then stuck
    err = capsys.readouterr().err
    assert "judge column c" in err and "study.toml" in err, err
    assert "--change-judges --judge a --judge b" in err, err
    assert waves(study) == [1]
    for command in ("estimate", "report"):  # the same error, naming study.toml, with the fix
        extra = ["--out", str(study.parent / "r.html")] if command == "report" else []
        assert bacon(command, str(study), "--engine", "freq", *extra) == 2
        err = capsys.readouterr().err
        assert "judge column c" in err and "--change-judges" in err, err
    assert bacon("status", str(study)) == 0
    assert "--change-judges" in capsys.readouterr().out
    entries = json.loads((study / "waves.json").read_text())  # an interrupted draw's entry
    stale = [*entries, {"wave": 2, "design": "uniform", "seed": 0, "params": {}}]
    (study / "waves.json").write_text(json.dumps(stale))
    # the documented way: record the judges from now on, then read and draw again
    assert bacon("sample", str(study), "--change-judges", "--judge", "a", "--judge", "b") == 0
    assert "c left" in capsys.readouterr().out
    assert 'judges = ["a", "b"]' in (study / "study.toml").read_text()
    assert waves(study) == [1]  # no --budget: nothing drawn
    assert bacon("estimate", str(study), "--engine", "freq") == 0
    out = capsys.readouterr().out
    assert "judges changed after wave 1 (c left" in out and "2 judges" in out, out
    assert bacon("status", str(study)) == 0
    assert "judges changed after wave 1 (c left" in capsys.readouterr().out
    html = study.parent / "r.html"  # the data notes and the recomputed looks say it
    assert bacon("report", str(study), "--engine", "freq", "--out", str(html)) == 0
    assert html.read_text().count("judges changed after wave 1 (c left") == 2
    assert bacon("sample", str(study), "--budget", "20") == 0
    assert waves(study) == [1, 2]
    first = json.loads((study / "waves.json").read_text())[0]  # kept on the drawn wave 1
    assert first["panel_changes"][0]["from_left"] == ["c"]


def test_a_rescored_judge_is_refused_before_the_wave_and_said_by_every_read(study, capsys):
    rewrite_pool(study, lambda f: f.assign(a=(6 - f["a"]).round(1)))  # a new version of a
    capsys.readouterr()
    assert bacon("sample", str(study), "--budget", "20") == 2  # was: mixed in silently
    err = capsys.readouterr().err
    assert "judge a's scores changed since wave 1 was drawn" in err, err
    assert f"bacon sample {study} --change-judges" in err, err
    assert waves(study) == [1]
    assert bacon("estimate", str(study), "--engine", "freq") == 0
    out = capsys.readouterr().out
    assert "judge a's scores changed since wave 1" in out and "recomputed" in out, out
    assert bacon("sample", str(study), "--change-judges") == 0
    assert "a rescored" in capsys.readouterr().out
    assert bacon("estimate", str(study), "--engine", "freq") == 0
    out = capsys.readouterr().out
    assert "judges changed after wave 1 (a rescored" in out and "scores changed" not in out
    assert bacon("sample", str(study), "--budget", "20") == 0
    assert waves(study) == [1, 2]
    assert bacon("sample", str(study), "--change-judges") == 0  # nothing changed since
    assert "nothing to change" in capsys.readouterr().out


def test_estimate_with_another_panel_says_it_differs_from_the_study(study, capsys):
    capsys.readouterr()
    assert bacon("estimate", str(study), "--engine", "freq", "--judge", "a", "--judge", "b") == 0
    out = capsys.readouterr().out
    assert "judges a, b differ from the study's (a, b, c" in out, out
    assert "fixed before the labels were read" in out
    assert bacon("estimate", str(study), "--engine", "freq", "--judge", "c,b,a") == 0
    assert "differ from the study's" not in capsys.readouterr().out  # the same panel
