"""Tables as spreadsheets and labelling tools export them (tester B, round 37): line
numbers past blank lines and cells of several lines, thousands separators in a file of
decimal commas, summary rows in other languages, notes under the table, labels written
as words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main


def _table(n: int = 120, seed: int = 1) -> pd.DataFrame:
    """Integer ids, a group, two judges, a label on every fourth row."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n).astype(float)
    return pd.DataFrame(
        {"id": np.arange(1, n + 1), "system": np.where(np.arange(n) % 3, "M1", "M2"),
         "judge_a": np.clip(np.round(truth + rng.normal(0, 0.6, n)), 1, 5),
         "judge_b": np.clip(np.round(truth + rng.normal(0, 0.9, n)), 1, 5),
         "human": np.where(np.arange(n) % 4 == 0, truth, np.nan)}
    )  # fmt: skip


def test_lines_are_the_files_past_blank_lines_and_cells_of_several_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Findings 1 and 14: 'line N' was the row's number + 2, not the file's line, once
    the file had blank lines (skipped by pandas) or a quoted cell holding line breaks (an
    LLM's reply): the user was sent to the wrong line. Messages name the line the
    record starts on."""
    from bacon_bayes.io import csv_lines, file_line, read_table

    frame = _table()
    frame["reply"] = [f"first sentence {k}.\nsecond sentence.\nthird." for k in range(len(frame))]
    frame["judge_b"] = frame["judge_b"].astype(object)
    frame.loc[50, "judge_b"] = "timeout"
    body = frame.to_csv(index=False).splitlines()
    path = tmp_path / "replies.csv"
    # 3 lines per record, 2 blank lines after the 5th record (at lines 17, 18)
    path.write_text("\n".join([*body[:16], "", "", *body[16:]]) + "\n")
    read = read_table(path)
    assert file_line(read, 0) == 2 and file_line(read, 50) == 4 + 3 * 50
    assert list(csv_lines(read)[3:7]) == [11, 14, 19, 22]
    argv = ["estimate", str(path), "--label", "human", "--item", "id", "--judge", "judge_*"]
    assert main([*argv, "--engine", "freq"]) == 2
    assert "'timeout' at line 154 (item 51)" in capsys.readouterr().err
    assert main(["doctor", str(path)]) == 0
    assert "the first at line 154" in capsys.readouterr().out

    plain = _table()  # a summary row past blank lines (finding 1)
    lines = plain.to_csv(index=False, sep=";", decimal=",").splitlines()
    total = "Total;;" + ";".join(["4,2", "4,1", "3,9"])
    path = tmp_path / "excel.csv"
    path.write_text("\n".join([*lines[:10], "", "", *lines[10:], "", total]) + "\n")
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"line {len(lines) + 4} looks like a spreadsheet's summary row" in out
    assert path.read_text().splitlines()[len(lines) + 3].startswith("Total")
