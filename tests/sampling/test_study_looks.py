"""What a study's past looks are: a read of partly returned waves under alpha-spending,
and the report's table of past waves (tester C, session 36, findings 6 and 7)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.study import import_labels

from .conftest import bacon, fill, record_budget
from .test_until_reach import _study


def _half_back(root: Path, pool: Path, tmp_path: Path) -> None:
    """Wave 2 of 20 drawn, 10 of its labels back."""
    assert bacon("sample", str(root), "--budget", "20", "--seed", "4") == 0
    todo = root / "todo-wave2.csv"
    filled = pd.read_csv(fill(todo, pool, tmp_path / "filled2.csv"))
    filled.iloc[:10].to_csv(half := tmp_path / "half2.csv", index=False)
    import_labels(root, half)


def test_a_read_of_a_partly_returned_wave_says_it_is_no_look_of_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Finding 7: under alpha-spending `--allow-pending` read wave 2 at 40 labels (looks
    [30, 40]); once its labels were in the plan counted [30, 50] and the read vanished,
    while the output said "valid at every wave". The read now says it is no look of the
    spending plan and that stopping on it is not covered."""
    root, pool = _study(tmp_path)
    record_budget(root, 120)
    _half_back(root, pool, tmp_path)
    capsys.readouterr()
    args = ("estimate", str(root), "--engine", "freq", "--allow-pending", "--json")
    assert bacon(*args) == 0
    out = json.loads(capsys.readouterr().out)
    notes = [n for n in out["notes"] if "no look of it" in n]
    assert len(notes) == 1 and "wave 2 (10 of 20 labels back)" in notes[0], out["notes"]
    assert "stopping on its interval is not covered" in notes[0]
    assert bacon("status", str(root), "--allow-pending") == 0
    assert "no look of it" in capsys.readouterr().out
    # the confidence sequence holds at every count of labels: no note
    record_budget(root, None)  # type: ignore[arg-type]
    assert bacon(*args) == 0
    assert not [n for n in json.loads(capsys.readouterr().out)["notes"] if "no look" in n]


def test_the_report_says_its_past_looks_are_recomputed(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Finding 6: the report's table of past waves refits each look with today's settings
    (a prompt column added at wave 4 split the folds by prompt), so its rows differed
    from what estimate and status printed then (3.7531 [3.1940, 4.3122] printed at wave
    1, 3.7601 [3.1933, 4.3269] in the report). The table now says so."""
    root, pool = _study(tmp_path)
    assert bacon("sample", str(root), "--budget", "20", "--seed", "4") == 0
    todo = root / "todo-wave2.csv"
    import_labels(root, fill(todo, pool, tmp_path / "filled2.csv"))
    out = tmp_path / "report.html"
    assert bacon("report", str(root), "--engine", "freq", "--out", str(out)) == 0
    section = out.read_text().split("Across the study", 1)[1].split("</section>", 1)[0]
    assert "row is recomputed now, with this report" in section, section[-1500:]
    assert "differ from what bacon estimate or bacon status printed at that wave" in section


def test_the_looks_refitted_for_the_report_warn_of_nothing(tmp_path: Path) -> None:
    """Session 46 walk (WMT22, reference-based metrics that cannot score refA): `bacon
    report STUDY` printed Python's raw `settled.py:678: PoolWarning: judges ... score no
    item of refA` with its source line, once per past look, beside a page whose own fit
    said it as a note. The looks' refits now warn of nothing."""
    import warnings

    from bacon_bayes import Calibrator
    from bacon_bayes.study import load_study
    from bacon_bayes.study.settled import look_estimates

    rng = np.random.default_rng(0)
    n = 200
    system = np.repeat(["a", "b", "ref"], [80, 80, 40])
    truth = rng.integers(1, 6, n).astype(float)
    frame = pd.DataFrame(
        {
            "id": [f"d{i:03d}" for i in range(n)],
            "judge_a": np.clip(truth + rng.normal(0, 1, n), 1, 5).round(2),
            "judge_b": np.where(system == "ref", np.nan, truth + rng.normal(0, 1, n)),
            "system": system,
            "truth": truth,
        }
    )
    frame.to_csv(pool := tmp_path / "pool.csv", index=False)
    root = tmp_path / "s.study"
    common = ("--budget", "30", "--out", str(tmp_path / "todo.csv"))
    assert bacon(
        "sample", str(pool), "--study", str(root), "--item", "id", "--label", "human",
        "--judge", "judge_a,judge_b", "--group", "system", *common,
    ) == 0  # fmt: skip
    import_labels(root, fill(tmp_path / "todo.csv", pool, tmp_path / "f1.csv"))
    (tmp_path / "todo.csv").unlink()
    assert bacon("sample", str(root), *common) == 0
    import_labels(root, fill(tmp_path / "todo.csv", pool, tmp_path / "f2.csv"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = Calibrator(engine="freq").fit(load_study(root).to_pool())
    assert cal.pool_warnings(), "the pool has a note to give"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        looks = look_estimates(root, cal)
    assert list(looks["wave"]) == [1, 2]
    assert not [str(w.message) for w in caught], [str(w.message) for w in caught]
