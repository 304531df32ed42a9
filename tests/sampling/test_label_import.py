"""``bacon label import``: every refusal, idempotence, and a SIGKILL mid-import."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.atomic import is_temp_name
from bacon_bayes.errors import ValidationError
from bacon_bayes.study import Study, import_labels
from bacon_bayes.study.folder import PAUSE_ENV, study_lock

from .conftest import bacon, fill


def snapshot(root: Path) -> dict[str, bytes]:
    """The study's files (temp files left by a killed writer are not part of it)."""
    return {
        p.name: p.read_bytes()
        for p in sorted(root.iterdir())
        if p.is_file() and not is_temp_name(p.name)
    }


@pytest.fixture
def labeled_study(study: Path, pool_file: Path, tmp_path: Path) -> Path:
    """The study with the first 10 of its 40 selected items labeled."""
    first = fill(tmp_path / "todo.csv", pool_file, tmp_path / "first.csv", slice(0, 10))
    assert bacon("label", "import", str(first), "--study", str(study)) == 0
    return study


def write(tmp_path: Path, rows: list[tuple[str, str]], name: str = "in.csv") -> Path:
    path = tmp_path / name
    pd.DataFrame(rows, columns=["id", "human"]).to_csv(path, index=False)
    return path


def selected_ids(study: Path) -> list[str]:
    s = Study.open(study)
    return list(s.ids[s.first_wave() >= 0])


def unselected_id(study: Path) -> str:
    s = Study.open(study)
    return str(s.ids[s.first_wave() < 0][0])


REFUSALS = {
    "unknown id": (lambda ids, out: [(ids[20], "3"), ("no-such-doc", "2")], "not in the pool"),
    "unsampled id": (lambda ids, out: [(out, "3")], "no sampling wave selected"),
    "not a number": (lambda ids, out: [(ids[20], "three")], "not numbers"),
    "off the levels": (lambda ids, out: [(ids[20], "2.5")], r"one of 1, 2, 3, 4, 5"),
    "above the scale": (
        lambda ids, out: [(ids[20], "6")],
        r"outside the study's scale .*, human='6'\).*--scale LOW:HIGH",
    ),
    "conflicting duplicate": (
        lambda ids, out: [(ids[20], "2"), (ids[21], "4"), (ids[20], "3")],
        "same id has different labels",
    ),
    "infinite": (lambda ids, out: [(ids[20], "inf")], "not numbers"),
    "empty id": (lambda ids, out: [("", "3")], "empty id"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusal_leaves_study_untouched(
    case: str, labeled_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    make_rows, message = REFUSALS[case]
    ids = selected_ids(labeled_study)
    path = write(tmp_path, make_rows(ids, unselected_id(labeled_study)))
    before = snapshot(labeled_study)
    assert bacon("label", "import", str(path), "--study", str(labeled_study)) == 2
    out = capsys.readouterr().err
    assert "error:" in out
    assert pd.Series([out]).str.contains(message).all(), out
    assert snapshot(labeled_study) == before


def test_conflict_with_stored_label_is_refused_unless_replace(
    labeled_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    s = Study.open(labeled_study)
    stored = s.labels.iloc[0]
    changed = 1 if stored["human"] != 1 else 2
    path = write(tmp_path, [(stored["item"], str(changed))])
    before = snapshot(labeled_study)
    assert bacon("label", "import", str(path), "--study", str(labeled_study)) == 2
    assert "changes 1 stored labels" in capsys.readouterr().err
    assert snapshot(labeled_study) == before
    assert bacon("label", "import", str(path), "--study", str(labeled_study), "--replace") == 0
    after = Study.open(labeled_study).labels.set_index("item")["human"]
    assert after[stored["item"]] == changed
    assert len(after) == 10, "a correction does not lose or add labels"


@pytest.mark.parametrize(
    ("columns", "message"),
    [(["doc", "human"], "no id column 'id'"), (["id", "score"], "no label column")],
)
def test_file_without_needed_columns_is_refused(
    labeled_study: Path, tmp_path: Path, columns: list[str], message: str
) -> None:
    path = tmp_path / "cols.csv"
    pd.DataFrame([["no-such-doc", "3"]], columns=columns).to_csv(path, index=False)
    with pytest.raises(ValidationError, match=message):
        import_labels(labeled_study, path)
    with pytest.raises(ValidationError, match="does not exist"):
        import_labels(labeled_study, tmp_path / "missing.csv")


@pytest.mark.parametrize("header", ["ID", "item", "segment"])
def test_a_file_whose_id_column_has_another_name_is_read_and_said(
    labeled_study: Path, tmp_path: Path, header: str
) -> None:
    """Session 46 walk: a labeller returned WMT labels with the ids under ``item`` (or
    ``ID``), and import refused with "has no id column 'id'" and no fix. The one column
    holding the study's ids is read as the id, and the import says so; a column of ids
    the study does not have is refused naming one of its ids and the rename."""
    ids = selected_ids(labeled_study)[10:13]
    path = tmp_path / "renamed.csv"
    pd.DataFrame({header: ids, "human": ["3", "4", "2"]}).to_csv(path, index=False)
    summary = import_labels(labeled_study, path)
    assert summary.added == 3
    assert f"ids read from column {header!r}" in str(summary)
    # the label's column named but for case (a walk's JSON Lines: `Correct`), said too
    cased = tmp_path / "cased.csv"
    pd.DataFrame({"Id": selected_ids(labeled_study)[13:15], "Human": ["1", "5"]}).to_csv(
        cased, index=False
    )
    summary = import_labels(labeled_study, cased)
    assert summary.added == 2
    assert "ids read from column 'Id' and labels read from column 'Human'" in str(summary)
    other = tmp_path / "other.csv"
    pd.DataFrame({"segment": ["x1", "x2"], "human": ["3", "4"]}).to_csv(other, index=False)
    with pytest.raises(ValidationError, match=r"such as '.+'\); name the column .* 'id'"):
        import_labels(labeled_study, other)


def test_a_file_of_raters_columns_is_told_to_write_their_mean_in_the_label(
    labeled_study: Path, tmp_path: Path
) -> None:
    """Walk of new table shapes: three experts filled in the to-label file, one column
    each, and import said only "has no label column 'human' (or 'label')"; on a study
    whose label is named ``label`` it said "no label column 'label' (or 'label')". It
    names the columns that look like ratings and the line that writes their mean; a
    single other column of numbers is to be renamed."""
    ids = selected_ids(labeled_study)[10:13]
    path = tmp_path / "raters.csv"
    frame = pd.DataFrame({"id": ids, "wave": "1", "expert1": ["3", "4", "2"],
                          "expert2": ["4", "4", "1"], "expert3": ["3", "5", ""]})  # fmt: skip
    frame.to_csv(path, index=False)
    with pytest.raises(ValidationError) as err:
        import_labels(labeled_study, path)
    said = str(err.value)
    assert "(or 'label')" in said and "'expert1', 'expert2', 'expert3'" in said, said
    assert "df['human'] = df[['expert1', 'expert2', 'expert3']].mean(axis=1)" in said, said
    frame[["id", "expert1"]].to_csv(path, index=False)
    with pytest.raises(ValidationError, match="rename column 'expert1' to 'human'"):
        import_labels(labeled_study, path)


def test_a_missing_label_column_lists_the_files_headers_as_written(
    labeled_study: Path, tmp_path: Path
) -> None:
    """Session 47 walk: a returned file whose id header is `ID` (read as the study's `id`)
    and whose labels are under `Bewertung` was refused with "columns: ['id', 'Bewertung',
    'wave']", a header the file does not have. The refusal lists the headers as the file
    writes them."""
    ids = selected_ids(labeled_study)[10:13]
    path = tmp_path / "returned.csv"
    pd.DataFrame({"ID": ids, "Bewertung": ["3", "4", "2"], "wave": "1"}).to_csv(path, index=False)
    with pytest.raises(ValidationError) as err:
        import_labels(labeled_study, path)
    said = str(err.value)
    assert "columns: ['ID', 'Bewertung', 'wave']" in said, said
    assert "rename column 'Bewertung' to 'human'" in said, said


def test_scale_of_a_continuous_study(tmp_path: Path, pool_file: Path) -> None:
    root = tmp_path / "cont"
    assert bacon("sample", str(pool_file), "--study", str(root), "--budget", "0.1",
                 "--item", "id", "--scale", "1:5", "--label", "human",
                 "--out", str(tmp_path / "t.csv")) == 0  # fmt: skip
    item = selected_ids(root)[0]
    with pytest.raises(ValidationError, match="between 1 and 5"):
        import_labels(root, write(tmp_path, [(item, "0.5")]))
    summary = import_labels(root, write(tmp_path, [(item, "4.7")]))
    assert summary.added == 1
    assert Study.open(root).labels["human"].tolist() == [4.7], "labels round-trip exactly"


def test_categorical_study_without_levels_refuses_a_new_level(
    tmp_path: Path, pool_file: Path
) -> None:
    """Finding 3 (s31 B): a 0/1 study created without --levels took a label 2 or 0.5
    (a typo) as a new category, silently, and every mean moved; refused now, naming the
    row and the study's levels, until the levels are declared in study.toml."""
    root = tmp_path / "cat"
    assert bacon("sample", str(pool_file), "--study", str(root), "--budget", "0.2",
                 "--item", "id", "--outcome", "categorical", "--label", "human",
                 "--out", str(tmp_path / "t.csv")) == 0  # fmt: skip
    items = selected_ids(root)
    with pytest.raises(ValidationError, match=r"whole numbers"):
        import_labels(root, write(tmp_path, [(items[0], "0.5")]))
    import_labels(root, write(tmp_path, [(i, str(k % 2)) for k, i in enumerate(items[:10])]))
    for typo, replace in (("2", True), ("0.5", True), ("2", False)):
        item = items[0] if replace else items[20]
        before = snapshot(root)
        with pytest.raises(ValidationError, match=rf"{item}', human='{typo}'.*levels so far "
                           r"are 0, 1.*add levels = \[0, .*study.toml"):  # fmt: skip
            import_labels(root, write(tmp_path, [(item, typo)]), replace=replace)
        assert snapshot(root) == before
    config = root / "study.toml"
    config.write_text(config.read_text() + "levels = [0, 1, 2]\n")
    assert import_labels(root, write(tmp_path, [(items[20], "2")])).added == 1


def test_partial_files_blank_rows_and_reimport(
    labeled_study: Path, pool_file: Path, tmp_path: Path
) -> None:
    full = fill(tmp_path / "todo.csv", pool_file, tmp_path / "all.csv")
    items = pd.read_csv(full, dtype=str)
    items.loc[30:, "human"] = ""
    items.to_csv(full, index=False)
    summary = import_labels(labeled_study, full)
    assert (summary.added, summary.unchanged, summary.blank) == (20, 10, 10)
    again = import_labels(labeled_study, full)
    assert (again.added, again.unchanged, again.labeled_total) == (0, 30, 30)
    assert (summary.blank_kept, summary.pending) == (0, 10) and "10 selected items still" in str(
        summary
    )
    # blank cells of items labeled before: kept, not "left pending"
    items.loc[:30, "human"] = ""
    items.to_csv(full, index=False)
    blanks = import_labels(labeled_study, full)
    assert (blanks.blank, blanks.blank_kept, blanks.pending) == (40, 30, 10)
    assert "(30 of them labeled before: kept)" in str(blanks)
    status = Study.open(labeled_study).status()
    assert status[["selected", "labeled", "pending"]].iloc[0].tolist() == [40, 30, 10]


def test_import_waits_for_no_one_but_refuses_concurrent_writer(
    labeled_study: Path, pool_file: Path, tmp_path: Path
) -> None:
    path = fill(tmp_path / "todo.csv", pool_file, tmp_path / "all.csv")
    with study_lock(labeled_study), pytest.raises(ValidationError, match="another bacon"):
        import_labels(labeled_study, path)


def kill_at_commit(call: str, root: Path, marker: Path) -> None:
    """Run ``call`` (library code) in a subprocess and SIGKILL it just before its commit.

    The pause hook makes the writer stop after its temp file is complete and
    fsynced, right before ``os.replace``: the worst moment to die.
    """
    env = os.environ | {PAUSE_ENV: str(marker)}
    module, _, _ = call.partition("(")
    code = f"from bacon_bayes.study import {module}; {call}"
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    deadline = time.monotonic() + 60
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the writer never reached its commit point")
        time.sleep(0.05)
    assert any(is_temp_name(p.name) for p in root.iterdir()), "a complete temp file is waiting"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL


def test_sigkill_mid_import_leaves_study_intact(
    labeled_study: Path, pool_file: Path, tmp_path: Path
) -> None:
    path = fill(tmp_path / "todo.csv", pool_file, tmp_path / "all.csv")
    before = snapshot(labeled_study)
    call = f"import_labels({str(labeled_study)!r}, {str(path)!r})"
    kill_at_commit(call, labeled_study, tmp_path / "paused")
    assert snapshot(labeled_study) == before, "the study is exactly as before the import"
    assert len(Study.open(labeled_study).labels) == 10
    # The lock died with the process: importing again works and keeps the old labels.
    summary = import_labels(labeled_study, path)
    assert (summary.added, summary.unchanged, summary.labeled_total) == (30, 10, 40)
    assert not any(is_temp_name(p.name) for p in labeled_study.iterdir())


def test_sigkill_mid_sample_leaves_study_intact(labeled_study: Path, tmp_path: Path) -> None:
    before = snapshot(labeled_study)
    call = f"draw_wave({str(labeled_study)!r}, 'uniform', 20, seed=1)"
    kill_at_commit(call, labeled_study, tmp_path / "paused")
    assert snapshot(labeled_study) == before
    assert bacon("status", str(labeled_study)) == 0
    assert Study.open(labeled_study).wave_numbers == [1]


def test_negative_label_of_a_nonnegative_outcome(tmp_path: Path, pool_file: Path) -> None:
    root = tmp_path / "nonneg"
    assert bacon("sample", str(pool_file), "--study", str(root), "--budget", "0.1",
                 "--item", "id", "--outcome", "nonnegative", "--label", "human",
                 "--out", str(tmp_path / "t.csv")) == 0  # fmt: skip
    item = selected_ids(root)[0]
    with pytest.raises(ValidationError, match="must be non-negative"):
        import_labels(root, write(tmp_path, [(item, "-0.5")]))
    assert import_labels(root, write(tmp_path, [(item, "0")])).added == 1


def test_unreadable_label_file(labeled_study: Path, tmp_path: Path) -> None:
    """A workbook bacon does not read (.ods), and an .xlsx that is no workbook, are
    refused with the CSV fix; the study is left as it was."""
    before = snapshot(labeled_study)
    for name, says in [
        ("labels.ods", "is a spreadsheet workbook"),
        ("labels.xlsx", "cannot read .* as an Excel workbook"),
    ]:
        path = tmp_path / name
        path.write_bytes(b"PK\x03\x04\x00\xff\xfe binary \x00\x81\x82")
        with pytest.raises(ValidationError, match=rf"{says}.*Save the sheet as CSV"):
            import_labels(labeled_study, path)
    assert snapshot(labeled_study) == before


def test_cells_that_say_no_value_are_left_pending(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Finding 10 (s34 T2): '-', 'NA' and 'n/a' written by labellers for items they
    skipped were refused as "labels that are not numbers", with no fix, though every
    other reader takes them as empty cells. They are left pending, said; a label that is
    no number is refused with the fix."""
    ids = selected_ids(study)
    rows = [(ids[0], "-"), (ids[1], "NA"), (ids[2], "n/a"), (ids[3], "3")]
    summary = import_labels(study, write(tmp_path, rows))
    assert (summary.added, summary.blank, summary.pending) == (1, 3, 39)
    assert "3 rows without a label left pending ('-', 'NA', 'n/a' read as empty cells (3 " in (
        str(summary)
    )
    with pytest.raises(ValidationError, match="or leave the cell empty for an item not labeled"):
        import_labels(study, write(tmp_path, [(ids[4], "maybe")]))


def _study_of_ids(
    tmp_path: Path, pool_file: Path, make_id: Callable[[int], object]
) -> tuple[Path, list[str]]:
    """A study of 10 items drawn from the pool with its ids rewritten by ``make_id`` (of
    the row number); returns the study and the ids it selected."""
    frame = pd.read_csv(pool_file)
    frame["id"] = [make_id(i) for i in range(len(frame))]
    frame.to_csv(pool_file, index=False)
    root = tmp_path / "ids"
    assert bacon("sample", str(pool_file), "--study", str(root), "--budget", "10", "--item",
                 "id", "--label", "human", "--scale", "1:5", "--judges", "judge_a,judge_b",
                 "--out", str(tmp_path / "t.csv")) == 0  # fmt: skip
    return root, selected_ids(root)


def test_ids_written_with_a_decimal_point_are_the_pool_ids(tmp_path: Path, pool_file: Path) -> None:
    """Finding 16 (s34 T2): a to-label file filled in through pandas has its integer ids
    written 181.0; label import said "ids not in the pool" though the --labels join takes
    1.0 as 1. They are the pool's ids now, compared as text (an id of 17 digits, past
    2^53, keeps every digit); the labels are stored under the pool's ids."""
    root, ids = _study_of_ids(tmp_path, pool_file, lambda i: 9007199254740993 + 2 * i)
    summary = import_labels(root, write(tmp_path, [(f"{i}.0", "3") for i in ids]))
    assert summary.added == len(ids) == 10
    assert sorted(Study.open(root).labels["item"].astype(str)) == sorted(ids)
    with pytest.raises(ValidationError, match="ids not in the pool"):  # another id
        import_labels(root, write(tmp_path, [(f"{ids[0]}.5", "3")]))


def test_ids_that_lost_their_leading_zeros_are_named(tmp_path: Path, pool_file: Path) -> None:
    """Finding 13 (s37 B): a to-label file saved by a spreadsheet has ids 0034 written 34;
    label import says so (as the --labels join does) and gives the fix."""
    root, ids = _study_of_ids(tmp_path, pool_file, lambda i: f"{i + 1:04d}")
    before = snapshot(root)
    path = write(tmp_path, [(str(int(i)), "3") for i in ids])
    with pytest.raises(ValidationError) as err:
        import_labels(root, path)
    message = str(err.value)
    assert f"all of them match an id of the pool but for leading zeros (e.g. '{int(ids[0])}'" in (
        message
    )
    assert "format the id column as text before saving" in message
    assert snapshot(root) == before


@pytest.mark.parametrize("sep", [",", ";"])
def test_ids_that_lost_their_leading_zeros_get_the_line_that_puts_them_back(
    tmp_path: Path, pool_file: Path, monkeypatch: pytest.MonkeyPatch, sep: str
) -> None:
    """Finding H2-9 (WMT22, ids 000023 ... of one width, the to-label file saved by a
    spreadsheet): label import named the lost zeros, but gave no way to put them back
    but by hand. It now prints the line that does, and the import it runs then; the line
    reads the file as the import did (a European spreadsheet's semicolons: the line read
    it as one column and failed)."""
    from ..printed import run_python_line

    root, ids = _study_of_ids(tmp_path, pool_file, lambda i: f"{i + 1:06d}")
    monkeypatch.chdir(tmp_path)
    rows = [(str(int(i)), "3") for i in ids]
    pd.DataFrame(rows, columns=["id", "human"]).to_csv(
        tmp_path / "filled.csv", index=False, sep=sep
    )
    assert bacon("label", "import", "filled.csv", "--study", str(root)) == 2
    with pytest.raises(ValidationError) as err:
        import_labels(root, "filled.csv")
    message = str(err.value)
    assert "every id of the pool is 6 digits, so this line puts the zeros back" in message
    run_python_line(message)
    then = message.rsplit("then bacon ", 1)[1].split()
    assert then[:2] == ["label", "import"] and bacon(*then) == 0
    assert sorted(Study.open(root).labels["item"].astype(str)) == sorted(ids)


def test_a_typo_among_verdicts_is_refused_on_a_study_without_a_scale(tmp_path: Path) -> None:
    """Session 46 walk (TriviaQA, a study of a new label `correct` started without
    --scale, its first 40 labels true / false): a wave's `2` among its 0s and 1s was
    imported silently, and the study's estimates switched from a binary model to a
    continuous one. Once the stored labels are all 0 or 1, a label other than those is
    refused, naming its row."""
    import numpy as np

    rng = np.random.default_rng(0)
    n = 120
    truth = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {"id": [f"q{i}" for i in range(n)], "judge": truth + rng.normal(0, 0.4, n),
         "truth": truth}
    )  # fmt: skip
    frame.to_csv(pool := tmp_path / "pool.csv", index=False)
    root, todo = tmp_path / "s.study", tmp_path / "todo.csv"
    assert bacon(
        "sample", str(pool), "--study", str(root), "--item", "id", "--label", "correct",
        "--judge", "judge", "--budget", "20", "--out", str(todo),
    ) == 0  # fmt: skip
    drawn = pd.read_csv(todo)
    answers = frame.set_index("id").loc[drawn["id"], "truth"].to_numpy()
    drawn.assign(correct=answers).iloc[:12].to_csv(first := tmp_path / "first.csv", index=False)
    assert import_labels(root, first).added == 12
    rest = drawn.assign(correct=answers).iloc[12:].astype({"correct": object})
    rest.iloc[2, rest.columns.get_loc("correct")] = 2
    rest.to_csv(typo := tmp_path / "typo.csv", index=False)
    # the first 0/1 labels recorded the outcome as categorical (H1 item 7): the typo is
    # refused as none of the study's categories so far, 0 and 1
    with pytest.raises(ValidationError, match=r"not one of the study's categories at line 4"):
        import_labels(root, typo)
    rest.iloc[2, rest.columns.get_loc("correct")] = 1
    rest.to_csv(typo, index=False)
    assert import_labels(root, typo).added == 8


def test_a_spreadsheet_return_with_empty_rows_and_a_scale_in_the_header(
    labeled_study: Path, tmp_path: Path
) -> None:
    """Walk of tables nobody prepared (a study, session 51): the to-label file came back
    from a European spreadsheet with its columns reordered, a date and a notes column,
    two rows emptied (``;;;;``) and the label headed ``Human (1-5)``. Import refused it
    ("empty id at line 4 (id='', human='')"), and then ("no label column 'human'") the
    header with its scale. Empty rows are skipped and said, the header read and said."""
    ids = selected_ids(labeled_study)[10:16]
    lines = ["\ufeffDate;Notes;Human (1-5);ID"]
    lines += [f"03.04.2024;;{k},0;{i}" for k, i in enumerate(ids[:2], 2)]
    lines += [";;;"]
    lines += [f"03.04.2024;checked twice;{k},0;{i}" for k, i in enumerate(ids[2:5], 1)]
    lines += [f"03.04.2024;;;{ids[5]}", ";;;"]
    path = tmp_path / "back.csv"
    path.write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
    summary = import_labels(labeled_study, path)
    assert summary.added == 5 and "1 rows without a label left pending" in str(summary)
    said = str(summary)
    assert "labels read from column 'Human (1-5)'" in said, said
    assert "2 empty row(s) skipped (every cell empty, line(s) 4, 9)" in said, said
    stored = pd.read_csv(labeled_study / "labels.csv", dtype={"item": str}).set_index("item")
    assert stored.loc[ids[0], "human"] == 2.0 and stored.loc[ids[2], "human"] == 1.0


def test_an_import_that_completes_the_waves_names_the_commands_that_read_them(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """New user, round 3 (WMT22 study): `bacon label import` said "75 labels added ...
    0 selected items still pending" and nothing of what to run next; the README's loop
    goes on with bacon status and bacon estimate. Once every drawn item is labeled the
    import names them, on the study as given, and they run as printed."""
    import shlex

    part = fill(tmp_path / "todo.csv", pool_file, tmp_path / "part.csv", slice(0, 10))
    assert bacon("label", "import", str(part), "--study", str(study)) == 0
    assert "next:" not in capsys.readouterr().out  # 30 still pending
    rest = fill(tmp_path / "todo.csv", pool_file, tmp_path / "rest.csv")
    assert bacon("label", "import", str(rest), "--study", str(study)) == 0
    out = capsys.readouterr().out
    line = next(s for s in out.splitlines() if s.startswith("next: "))
    commands = [shlex.split(c) for c in line.split("`")[1::2]]
    assert [c[:3] for c in commands] == [
        ["bacon", "status", str(study)], ["bacon", "estimate", str(study)],
        ["bacon", "report", str(study)],
    ], line  # fmt: skip
    assert bacon(*commands[0][1:], "--engine", "freq") == 0
