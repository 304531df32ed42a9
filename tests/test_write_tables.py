"""The two writers of tables by their name's ending share one core
(:func:`bacon_bayes.io.write_by_suffix`): ``bacon judge`` / ``bacon embed``'s score and
embedding tables (:func:`bacon_bayes.judges.output.write_table`) and a to-label file
(:func:`bacon_bayes.io.write_people_table`), each keeping its own refusal of an ending."""

from __future__ import annotations

import pandas as pd
import pytest

from bacon_bayes.errors import ValidationError
from bacon_bayes.io import write_people_table
from bacon_bayes.judges.output import write_table


def test_score_tables_and_to_label_files_are_written_by_one_core(tmp_path) -> None:
    """write_table was a near-copy of write_people_table: a column Arrow cannot hold (a
    judge's replies, numbers and text mixed) stopped ``bacon judge`` with pyarrow's
    traceback, where a to-label file was refused with the fix."""
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"id": ["a", "b"], "score": [4.0, 5.0], "=cmd": ["=1+1", "ok"]})
    one, two = write_table(frame, tmp_path / "s.csv"), write_people_table(frame, tmp_path / "p.csv")
    assert one.read_bytes() == two.read_bytes()  # formulas neutralised by both
    assert pd.read_parquet(write_table(frame, tmp_path / "s.parquet")).equals(frame)
    mixed = frame.assign(reply=[1, "error"])
    refused = r"cannot be written as Parquet.*as \.csv instead"
    for write in (write_table, write_people_table):
        with pytest.raises(ValidationError, match=refused):
            write(mixed, tmp_path / f"{write.__name__}.parquet")
    with pytest.raises(ValidationError, match=r"^output .*s\.json: use a \.parquet or \.csv file"):
        write_table(frame, tmp_path / "s.json")
    with pytest.raises(ValidationError, match=r"--out '.*p\.json': use a \.csv or \.parquet file"):
        write_people_table(frame, tmp_path / "p.json", "--out")
