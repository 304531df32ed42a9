"""A study whose waves do not all come back (tester C s37, findings 4-8, 10): a wave never
labelled does not block ``--until`` or eat the labelling budget for good, a late return
or a correction says which looks it rewrites, estimate and report read at the last
complete wave as status does, a judge re-run leaving rows unscored is refused as README
says, and ``--show`` of a judge's scores warns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.study import Study, import_labels

from .conftest import bacon, grouped_study, label_wave, record_budget


@pytest.fixture
def grouped(tmp_path: Path) -> tuple[Path, Path]:
    """A study of three systems with one labeled uniform wave of 40 items (the doc id
    shown to the labellers); returns (study, pool file)."""
    return grouped_study(tmp_path, doc=True)


def test_a_wave_never_labelled_does_not_block_until_or_eat_the_budget(
    grouped: tuple[Path, Path], capsys: pytest.CaptureFixture
) -> None:
    """Findings 5 and 6: wave 2 never came back, wave 3 did. `sample --until` was refused
    for good (sample had no --allow-pending) while the budget refusal offered `--until
    GOAL` as the way on; and wave 2's items counted against max_labels forever. Now
    `--allow-pending` sizes the wave as `status --allow-pending` reads the study, the
    advice printed runs, and the budget says what wave 2 holds and how to release it."""
    root, pool = grouped
    record_budget(root, 150)
    assert bacon("sample", str(root), "--budget", "20") == 0  # wave 2: never labelled
    assert bacon("sample", str(root), "--budget", "30") == 0  # wave 3: labelled
    label_wave(root, pool, 3)
    capsys.readouterr()
    until = ("sample", str(root), "--engine", "freq", "--until", "half-width=0.1")
    assert bacon(*until) == 2
    err = capsys.readouterr().err
    assert "add --allow-pending" in err
    # 90 selected of 150: a wave of 80 is past the budget unless wave 2 is not drawn
    assert bacon("sample", str(root), "--budget", "80") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--until GOAL --allow-pending" in err
    assert "The items of wave 2 (20 items), none of whose labels came back" in err
    assert "leaving 80" in err
    assert bacon(*until, "--allow-pending") == 0
    out = capsys.readouterr().out
    assert "wave 2 (20 items) pending: missing at random" in out
    assert "next wave:" in out and Study.open(root).wave_numbers == [1, 2, 3, 4]
    counted = Study.open(root).n_selected - 20
    assert counted <= 150


def test_a_budget_released_by_allow_pending_draws_the_wave(
    grouped: tuple[Path, Path], capsys: pytest.CaptureFixture
) -> None:
    """Finding 6: with wave 2 never back, `--allow-pending` counts it as not drawn against
    max_labels (as the estimates read with it do): 70 counted of 150, a wave of 80 fits."""
    root, pool = grouped
    record_budget(root, 150)
    assert bacon("sample", str(root), "--budget", "20") == 0  # wave 2: never labelled
    assert bacon("sample", str(root), "--budget", "30") == 0
    label_wave(root, pool, 3)
    assert bacon("sample", str(root), "--budget", "81", "--allow-pending") == 2
    assert bacon("sample", str(root), "--budget", "80", "--allow-pending") == 0
    assert Study.open(root).wave_numbers == [1, 2, 3, 4]


def test_a_wave_past_the_budget_with_waves_not_back_says_what_their_return_does(
    grouped: tuple[Path, Path], capsys: pytest.CaptureFixture
) -> None:
    """A study walk (WMT22, max_labels = 400): `--allow-pending` drew uniform waves of fixed
    size with an earlier wave not back counted as not drawn, taking the study to 411 and
    then 421 items, and each said "this wave's size is random ... no wave can follow it":
    neither was so. The note now says which waves the wave was sized without, and what
    their labels coming back would do to the alpha-spending intervals."""
    root, _ = grouped
    record_budget(root, 150)
    assert bacon("sample", str(root), "--budget", "20") == 0  # wave 2: never labelled
    capsys.readouterr()
    assert bacon("sample", str(root), "--budget", "100", "--allow-pending") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "size is random" not in out and "no wave can follow" not in out, out
    assert "waves now hold 160 items, 10 past its labelling budget (max_labels = 150)" in out
    assert "with wave 2 (20 items), no label back, as not drawn" in out
    assert "used up at the look that reaches 150 labels" in out


def test_late_labels_and_replaced_ones_say_which_looks_they_rewrite(
    grouped: tuple[Path, Path],
) -> None:
    """Findings 4 and 6: a wave's labels back after a later wave's silently moved the
    looks ([60, 140, 200, 259] to [60, 140, 200, 260, 319]); a correction (--replace) of
    wave-1 labels silently rewrote the report's rows of waves 1-4, whose caveat named only
    changed settings. Now the import says both, and the report's sequence names the rows
    whose labels were replaced after their look."""
    from bacon_bayes import Calibrator
    from bacon_bayes.study import load_study
    from bacon_bayes.study.settled import look_estimates

    root, pool = grouped
    record_budget(root, 150)
    assert bacon("sample", str(root), "--budget", "20") == 0  # wave 2: back late
    assert bacon("sample", str(root), "--budget", "30") == 0
    assert "note:" not in label_wave(root, pool, 3)
    late = label_wave(root, pool, 2)
    assert "labels of wave 2 came back after those of wave 3" in late
    assert "move from [40, 70] labels to [40, 60, 90]" in late
    assert "alpha-spending plan" in late
    todo = pd.read_csv(root.parent / "filled1.csv", dtype={"id": str})
    fix = todo.iloc[:2].assign(human=lambda t: np.where(t["human"] == 5, 4, 5))
    fix.to_csv(corr := root.parent / "corr.csv", index=False)
    out = str(import_labels(root, corr, replace=True))
    assert "labels replaced (2 of wave 1) after the looks at waves 1, 2, 3" in out
    cal = Calibrator(engine="freq").fit(load_study(root).to_pool())
    looks = look_estimates(root, cal, max_labels=150)
    changed = looks.attrs["changed"]
    assert len(changed) == 1 and "2 labels of wave 1 replaced on" in changed[0]
    assert "(corr.csv), after the looks at waves 1, 2, 3" in changed[0]
    from bacon_bayes.report.rounds import sequence_html

    assert "2 labels of wave 1 replaced on" in sequence_html(looks)


def test_estimate_and_report_read_the_last_complete_wave_as_status_does(
    grouped: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Finding 8: the next wave drawn (none back yet), `bacon estimate` and `bacon report`
    refused the study, their way out worded as a missing-at-random assumption, while
    `bacon status` answered at the last complete wave. Now they read that look and say so;
    its numbers are those of `--allow-pending` (a wave with none back is not drawn)."""
    root, pool = grouped
    assert bacon("sample", str(root), "--budget", "30") == 0
    label_wave(root, pool, 2)
    assert bacon("sample", str(root), "--budget", "30") == 0  # wave 3: sent out
    capsys.readouterr()
    est = ("estimate", str(root), "--engine", "freq", "--fixed")
    assert bacon(*est) == 0
    out = capsys.readouterr().out
    assert "read as of wave 2, the study's latest wave with every label in" in out
    assert "wave 3 (30 items) still without labels" in out
    assert bacon(*est, "--allow-pending") == 0
    pending = capsys.readouterr().out
    mean = [line for line in out.splitlines() if "calibrated (AEE)" in line]
    assert mean and mean == [line for line in pending.splitlines() if "calibrated (AEE)" in line]
    from bacon_bayes.cli import build_parser
    from bacon_bayes.cli.pool_args import pool_from_args
    from bacon_bayes.cli.printed import plan_command

    args = build_parser().parse_args(list(est))
    plan = plan_command(args, pool_from_args(args))  # the plan it prints runs on the study
    assert "--allow-pending" in plan, plan
    report = tmp_path / "r.html"
    assert bacon("report", str(root), "--engine", "freq", "--out", str(report)) == 0
    assert "read as of wave 2" in report.read_text(encoding="utf-8")


def test_a_judge_re_run_leaving_rows_unscored_is_refused_naming_them(
    grouped: tuple[Path, Path], capsys: pytest.CaptureFixture
) -> None:
    """Finding 10: blanking the judges on 3 rows of a running study's pool, estimate went
    on with a made-up score for them and advised --drop-unscored (refused on a study),
    and sample drew a wave without a word; README says such rows are refused. Now every
    command on the study refuses, naming the rows and the fix that works."""
    root, pool = grouped
    frame = pd.read_csv(pool, dtype={"id": str})
    frame.loc[[5, 9, 17], ["judge_a", "judge_b"]] = np.nan
    frame.to_csv(pool, index=False)
    capsys.readouterr()
    for argv in (
        ("estimate", str(root), "--engine", "freq"),
        ("sample", str(root), "--budget", "10"),
        ("status", str(root)),
    ):
        assert bacon(*argv) == 2, argv
        err = " ".join(capsys.readouterr().err.split())
        assert "3 row(s) of pool file" in err and "line 7, id 'doc005'" in err, err
        assert "Restore their scores in the pool file, or score them again" in err


def test_show_of_a_judge_or_the_group_warns_and_a_replaced_show_is_said(
    grouped: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Finding 7: `sample STUDY --show judge,group` put a judge's scores and the group in
    the labellers' file without a word, and replaced the study's remembered --show (doc)
    silently. Now both are said; `status --pending-out --show` warns alike."""
    root, _ = grouped
    capsys.readouterr()
    assert bacon("sample", str(root), "--budget", "12", "--show", "judge_a,system") == 0
    out, err = capsys.readouterr()
    err = " ".join(err.split())
    assert "warning: --show puts the judge score judge_a and the group column system" in err
    assert "the study's --show changes from doc to judge_a,system" in " ".join(out.split())
    assert bacon("sample", str(root), "--budget", "12", "--show", "doc") == 0
    out, err = capsys.readouterr()
    assert "warning" not in err and "changes from judge_a,system to doc" in out
    pending = tmp_path / "pending.csv"
    assert bacon("status", str(root), "--no-questions", "--pending-out", str(pending),
                 "--show", "judge_b") == 0  # fmt: skip
    assert "the judge score judge_b" in capsys.readouterr().err


#: ``bacon sample`` killed (kill -9) after its wave's commit, before the to-label file
KILLED_SAMPLE = """
import os, sys
import bacon_bayes.io
bacon_bayes.io.write_people_table = lambda *a, **k: os._exit(137)
from bacon_bayes.cli import main
main(sys.argv[1:])
"""


def test_a_wave_whose_to_label_file_was_never_written_is_named_with_its_fix(
    grouped: tuple[Path, Path], capsys: pytest.CaptureFixture
) -> None:
    """Tester J s39 finding 2: a `bacon sample` killed between the wave's commit and its
    to-label file left 30 items in no file; status said nothing, the same command drew
    another wave (uniform) or said "import them" (adaptive), estimate's note only called
    them pending. Now each names the wave and the command that writes it (sample refuses
    until then), and once it is written the study goes on as before."""
    import os
    import subprocess
    import sys

    root, _ = grouped
    out = root.parent / "w2.csv"
    repo = str(Path(__file__).resolve().parents[2])
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_SAMPLE, "sample", str(root), "--budget", "30",
         "--out", str(out)],
        env={**os.environ, "PYTHONPATH": repo}, capture_output=True, text=True,
    )  # fmt: skip
    assert killed.returncode == 137, killed.stderr
    assert not out.exists() and Study.open(root).wave_numbers == [1, 2]
    fix = f"bacon status {root} --pending-out {out}"
    assert bacon("status", str(root), "--no-questions") == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "wave 2 (30 items" in said and "never written" in said and fix in said
    for design in ("uniform", "adaptive"):
        assert bacon("sample", str(root), "--budget", "30", "--design", design) == 2
        said = " ".join(capsys.readouterr().err.split())
        assert "never written" in said and fix in said and "import them" not in said
    assert Study.open(root).wave_numbers == [1, 2]  # no wave drawn over it
    assert bacon("estimate", str(root), "--engine", "freq") == 0  # at wave 1, as status
    assert fix in " ".join(capsys.readouterr().out.split())
    assert bacon("status", str(root), "--no-questions", "--pending-out", str(out)) == 0
    assert len(pd.read_csv(out)) == 30 and "never written" not in capsys.readouterr().out
    assert bacon("sample", str(root), "--budget", "20") == 0  # wave 3, its file written
    assert bacon("status", str(root), "--no-questions") == 0
    assert "never written" not in capsys.readouterr().out
