"""A study's pool file read once on a cache miss (``study.folder.read_pool``): its bytes
are hashed, then parsed from those bytes, not read from disk again; the frame is the
one a read from disk gives."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.study import folder

#: the paths whose opens are counted while a test runs (an audit hook cannot be removed)
_WATCHED: dict[str, int] = {}


def _count(event: str, args: tuple) -> None:
    if event == "open" and _WATCHED and isinstance(args[0], str | Path):
        name = str(Path(args[0]).resolve()) if str(args[0]) else ""
        if name in _WATCHED:
            _WATCHED[name] += 1


sys.addaudithook(_count)

#: a spreadsheet's CSV: a title line, semicolons, decimal commas, a quoted cell of two
#: lines (record lines), an 'NA' group kept as written
_TEXT = 'Scores of the run;;;\nid;system;judge;note\n1;A;0,5;"two\nlines"\n2;NA;1,5;x\n3;B;2,25;y\n'


@pytest.mark.parametrize("name", ["pool.csv", "pool.csv.gz"])
def test_a_pool_not_kept_is_read_from_disk_once(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    data = _TEXT.encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    from_disk = folder._read_pool(path, "id")  # the reads as before: from the file
    folder._POOLS.clear()
    _WATCHED[str(path.resolve())] = 0
    try:
        frame = folder.read_pool(path, "id")
        opened = _WATCHED[str(path.resolve())]
    finally:
        _WATCHED.clear()
    assert opened == 1  # it was 8 (10 compressed): hashed, sniffed, header, parsed, lines...
    pd.testing.assert_frame_equal(frame, from_disk)
    assert frame.attrs.keys() == from_disk.attrs.keys() and "record lines" in frame.attrs
    for key, value in frame.attrs.items():  # the file's lines of the rows too
        same = getattr(from_disk.attrs[key], "rows", from_disk.attrs[key])
        assert str(getattr(value, "rows", value)) == str(same), key
    assert list(frame["system"]) == ["A", "NA", "B"] and frame["judge"].iloc[2] == 2.25


def test_a_parquet_pool_read_from_its_bytes_is_the_same(tmp_path: Path) -> None:
    path = tmp_path / "pool.parquet"
    pd.DataFrame({"id": ["1", "2"], "judge": [0.5, 1.0]}).to_parquet(path)
    from_disk = folder._read_pool(path, "id")
    folder._POOLS.clear()
    pd.testing.assert_frame_equal(folder.read_pool(path, "id"), from_disk)
