"""Excel workbooks (.xlsx) read as the table of their one sheet, by every command: a
table nobody prepared is often a workbook, which bacon refused ("save as CSV")."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import read_table

from .printed import run_python_line
from .test_doctor_tables import relevance_table

pytest.importorskip("openpyxl")

ARGS = [
    "--label", "relevance", "--item", "item", "--judge", "gpt4", "--judge", "gpt35",
    "--group", "system", "--engine", "freq",
]  # fmt: skip


def _out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def test_a_one_sheet_workbook_reads_as_its_csv(tmp_path, capsys, monkeypatch) -> None:
    """The same table as CSV and as a workbook: equal frames (numbers as numbers, ids as
    ids), and doctor and estimate say the same of both, but for the file's name."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    table.to_csv("t.csv", index=False)
    table.to_excel("t.xlsx", index=False)
    with pd.ExcelWriter("blank_sheet.xlsx") as w:  # Excel's default empty Sheet2
        table.to_excel(w, sheet_name="Sheet1", index=False)
        pd.DataFrame().to_excel(w, sheet_name="Sheet2")
    csv, book = read_table("t.csv"), read_table("t.xlsx")
    assert list(book.columns) == list(csv.columns)
    for c in csv.columns:
        if pd.api.types.is_numeric_dtype(csv[c]):
            np.testing.assert_array_equal(book[c].to_numpy(float), csv[c].to_numpy(float))
        else:
            assert book[c].equals(csv[c]), c
    assert book.attrs["sheet"] == "Sheet1"
    pd.testing.assert_frame_equal(read_table("blank_sheet.xlsx"), book)
    for command in (["doctor"], ["estimate", *ARGS]):
        said = _out([command[0], "t.csv", *command[1:]], capsys)
        said_book = _out([command[0], "t.xlsx", *command[1:]], capsys)
        first, rest = said.split("\n", 1)
        first_book, rest_book = said_book.split("\n", 1)
        assert rest_book == rest.replace("t.csv", "t.xlsx")
        assert first_book == first.replace(
            "t.csv (csv,", "t.xlsx (xlsx, sheet 'Sheet1' of an Excel workbook,"
        )


def test_a_workbook_s_sheet_of_notes_is_passed_over_and_said(tmp_path, capsys) -> None:
    """Walk of session 59: a README sheet before the table's sheet was refused ("2 sheets
    hold cells ... save the sheet of the table as CSV"). A sheet that is no table (text in
    one column, or a line or two) is passed over and said; the table's sheet is read."""
    path = tmp_path / "two.xlsx"
    with pd.ExcelWriter(path) as w:
        pd.DataFrame({"note": ["draft", "labels by 3 experts", "judges: gpt4"]}).to_excel(
            w, sheet_name="notes", index=False
        )
        relevance_table().to_excel(w, sheet_name="scores", index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "sheet 'scores' of an Excel workbook, sheets of notes passed over ('notes')" in first
    assert "\nrun:\n" in out


def test_a_workbook_of_several_tables_is_refused_with_the_lines_that_write_each(
    tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pd.ExcelWriter("two.xlsx") as w:
        relevance_table().to_excel(w, sheet_name="scores", index=False)
        relevance_table().head(40).to_excel(w, sheet_name="pilot run", index=False)
    assert main(["doctor", "two.xlsx"]) == 2
    err = capsys.readouterr().err
    assert "2 sheets hold cells ('scores', 'pilot run'), and bacon reads one table" in err
    assert "Save the sheet of the table as CSV" in err and "delete the other sheets" in err
    line = err.split("or write each as CSV: ", 1)[1]
    run_python_line(line)
    assert "to_csv('two_pilot_run.csv'" in line  # the second sheet's own line
    assert main(["doctor", "two_scores.csv"]) == 0
    assert "\nrun:\n" in capsys.readouterr().out


def test_two_columns_of_one_name_in_a_sheet_are_refused(tmp_path) -> None:
    """pandas reads the second 'gpt4' as 'gpt4.1'; --judge gpt4 would take the first."""
    path = tmp_path / "dup.xlsx"
    pd.DataFrame([[1, 2, 3], [4, 5, 6]], columns=["id", "gpt4", "gpt4"]).to_excel(path, index=False)
    with pytest.raises(ValidationError, match="columns 2 and 3 are both named 'gpt4'"):
        read_table(path)


def test_without_openpyxl_the_refusal_says_what_to_install(tmp_path, monkeypatch) -> None:
    path = tmp_path / "t.xlsx"
    relevance_table().head(20).to_excel(path, index=False)
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # import openpyxl fails
    with pytest.raises(ValidationError, match=r"pip install 'bacon_bayes\[excel\]'"):
        read_table(path)


def test_other_spreadsheets_keep_the_save_as_csv_refusal(tmp_path) -> None:
    path = tmp_path / "t.ods"
    path.write_bytes(b"PK\x03\x04 not a table bacon reads")
    with pytest.raises(ValidationError, match="Save the sheet as CSV"):
        read_table(path)


def test_a_filled_in_to_label_file_saved_as_a_workbook_is_imported(
    tmp_path, capsys, monkeypatch
) -> None:
    """The to-label file opened in Excel, filled in and saved as .xlsx (its ids now
    numbers): `bacon label import` takes it as its CSV."""
    monkeypatch.chdir(tmp_path)
    relevance_table().to_csv("pool.csv", index=False)
    argv = ["sample", "pool.csv", "--budget", "5", "--seed", "1", *ARGS[:6]]
    _out(argv, capsys)
    todo = pd.read_csv("pool.study/todo-wave2.csv")
    todo.assign(relevance=[1, 2, 3, 4, 5]).to_excel("filled.xlsx", index=False)
    said = _out(["label", "import", "filled.xlsx", "--study", "pool.study"], capsys)
    assert "5 labels added" in said
    # a study drawn from a workbook: the line that writes it as CSV, not over pool.csv
    relevance_table().to_excel("pool.xlsx", index=False)
    assert main(["sample", "pool.xlsx", "--budget", "5", *ARGS[:6]]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "to_csv('pool_table.csv', index=False)" in err
    run_python_line(err.split("write it out as CSV first (", 1)[1].split(") and run")[0])
    assert len(pd.read_csv("pool_table.csv")) == len(pd.read_csv("pool.csv"))


def test_doctor_s_line_for_a_workbook_reads_its_sheet(tmp_path, capsys, monkeypatch) -> None:
    """Rows pasted twice in a workbook: the fix doctor prints reads the workbook's sheet
    (pd.read_excel) and writes the table without them as CSV."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    with pd.ExcelWriter("copies.xlsx") as w:
        pd.concat([table, table.head(3)]).to_excel(w, sheet_name="export", index=False)
    out = " ".join(_out(["doctor", "copies.xlsx"], capsys).split())
    assert "pd.read_excel('copies.xlsx', sheet_name='export')" in out
    run_python_line(out)
    assert len(pd.read_csv(Path("copies_unique.csv"))) == len(table)


def test_a_title_above_the_header_is_skipped_as_in_a_csv(tmp_path, capsys, monkeypatch) -> None:
    """Walk of session 55: a sheet with a title row and a blank row above its header (an
    export's usual top) was refused as "columns 2 and 3 are both named ''". The header is
    found below them as in a CSV, said, rows are numbered as the sheet numbers them, and
    doctor's fix reads the sheet from that header."""
    import openpyxl

    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    with pd.ExcelWriter("titled.xlsx") as w:
        pd.concat([table, table.head(3)]).to_excel(w, sheet_name="run", index=False, startrow=2)
    book = openpyxl.load_workbook("titled.xlsx")
    book["run"]["A1"] = "judge run, exported 2026-11-30"
    book.save("titled.xlsx")
    frame = read_table("titled.xlsx")
    assert list(frame.columns) == list(table.columns) and len(frame) == len(table) + 3
    assert (
        frame.attrs["read as"]
        == "sheet 'run' of an Excel workbook, 2 row(s) above the header skipped"
    )
    assert frame.attrs["header line"] == 2  # row 4 of the sheet is the first row of data
    table.to_excel("indexed.xlsx")  # pandas' index: an empty first header cell, no title
    indexed = read_table("indexed.xlsx")
    assert indexed.attrs["header line"] == 0 and list(indexed.columns)[1:] == list(table.columns)
    out = " ".join(_out(["doctor", "titled.xlsx"], capsys).split())
    assert "pd.read_excel('titled.xlsx', sheet_name='run', header=2)" in out
    run_python_line(out)
    assert len(pd.read_csv(Path("titled_unique.csv"))) == len(table)
