"""Repeated and empty item ids in a streamed pool, unlabeled rows included, refused as
the in-memory pool refuses them (EvalPool.from_frame: "item id column 'id' has a
duplicate id ... ids must be unique"); the check keeps 64-bit hashes, not the ids."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, ValidationError
from bacon_bayes.cli import main
from bacon_bayes.stream import estimate_stream
from bacon_bayes.stream import ids as stream_ids
from bacon_bayes.stream import scan as stream_scan
from tests.test_stream import frame, write_dataset


def _pool(n: int = 1200) -> pd.DataFrame:
    df = frame(n, seed=3)
    df.insert(0, "id", [f"it{i:05d}" for i in range(len(df))])
    return df


def _run(path, chunk_rows: int = 250, **kw):
    return estimate_stream(
        path, Calibrator(engine="freq", seed=1), label="label", judges=["j*"], item="id",
        chunk_rows=chunk_rows, progress=False, threads=1, **kw,
    )  # fmt: skip


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_unlabeled_rows_copied_into_another_file_are_refused(tmp_path, capsys, fmt):
    """A file holding unlabeled rows already in the dataset was read as more items: the
    pool counted 1,500 items for 1,200 and the intervals came out too narrow."""
    df = _pool()
    unlabeled = df[df["label"].isna()].iloc[:300]
    folder = tmp_path / fmt
    if fmt == "parquet":
        write_dataset(df, folder, parts=2, row_group=300)
        unlabeled.to_parquet(folder / "part-2.parquet", index=False)
    else:
        folder.mkdir()
        df.to_csv(folder / "a.csv", index=False)
        unlabeled.to_csv(folder / "b.csv", index=False)
    args = ["estimate", str(folder), "--label", "label", "--judge", "j*", "--item", "id",
            "--engine", "freq", "--chunk-rows", "250"]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    first = unlabeled.index[0]
    name = f"it{first:05d}"
    assert f"item id column 'id' has a duplicate id '{name}' at file " in err, err
    if fmt == "parquet":
        assert f"part-0.parquet', row {first} and file " in err
        assert "part-2.parquet', row 0 (and 299 more repeated ids)" in err
    else:
        assert f"a.csv', line {first + 2} and file " in err
        assert "b.csv', line 2 (and 299 more repeated ids)" in err
    assert "ids must be unique" in err and "Remove the copies" in err
    assert "Traceback" not in err


def test_the_first_repeat_in_row_order_is_named_within_and_across_chunks(tmp_path):
    df = _pool(600)
    lab = df["label"].notna().to_numpy()
    u = np.flatnonzero(~lab)
    df.loc[u[400], "id"] = df.loc[u[390], "id"]  # one chunk (of 250 rows) apart or none
    df.loc[u[300], "id"] = df.loc[u[10], "id"]
    path = tmp_path / "pool.parquet"
    df.to_parquet(path, index=False, row_group_size=250)
    for chunk_rows in (100, 250, 1000):
        with pytest.raises(ValidationError) as err:
            _run(path, chunk_rows=chunk_rows)
        first, second = sorted([(u[300], u[10]), (u[400], u[390])])[0][::-1]
        assert f"duplicate id 'it{first:05d}' at file " in str(err.value)
        assert f"row {first} and file " in str(err.value)
        assert f"row {second} (and 1 more repeated id)" in str(err.value)


REAL = stream_ids.id_hashes


def _coarse(frame, col):
    """A hash that collides for every two ids of one length (it00001, it00002, ...)."""
    _, blank = REAL(frame, col)
    lengths = stream_ids._text(frame, col).to_pandas().str.len().to_numpy()
    return lengths.astype(np.uint64), blank


def test_ids_whose_hashes_collide_are_compared_as_text(tmp_path, monkeypatch):
    """Distinct ids with one hash pass; a real repeat among them is still found."""
    monkeypatch.setattr(stream_scan, "id_hashes", _coarse)
    monkeypatch.setattr(stream_ids, "id_hashes", _coarse)
    df = _pool(600)
    path = tmp_path / "pool.parquet"
    df.to_parquet(path, index=False, row_group_size=250)
    res = _run(path)  # every id has the same (coarse) hash, and none repeats
    assert res.n_items == 600
    u = np.flatnonzero(df["label"].isna().to_numpy())
    df.loc[u[500], "id"] = df.loc[u[200], "id"]
    df.to_parquet(path, index=False, row_group_size=250)
    with pytest.raises(ValidationError, match=rf"row {u[200]} and file .*row {u[500]}; ids"):
        _run(path)


@pytest.mark.parametrize("value", [None, "", "   "])
def test_an_empty_id_is_refused_with_its_place(tmp_path, value):
    df = _pool(600)
    u = np.flatnonzero(df["label"].isna().to_numpy())
    df["id"] = df["id"].astype(object)
    df.loc[u[333], "id"] = value
    path = tmp_path / "pool.parquet"
    df.to_parquet(path, index=False, row_group_size=250)
    with pytest.raises(ValidationError, match=rf"row {u[333]}, column 'id': the item id is empty"):
        _run(path)


def test_unique_ids_pass_and_the_hashes_are_freed(tmp_path):
    df = _pool(600)
    path = tmp_path / "pool.parquet"
    df.to_parquet(path, index=False, row_group_size=250)
    res = _run(path, chunk_rows=100)
    assert res.n_items == 600 and res.scan.id_hashes == []  # emptied by the check


def test_dask_stream_refuses_repeated_unlabeled_ids(tmp_path):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    df = _pool()
    folder = write_dataset(df, tmp_path / "pool", parts=2, row_group=300)
    df[df["label"].isna()].iloc[:5].to_parquet(folder / "part-2.parquet", index=False)
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
        as cluster,
        Client(cluster) as client,
        pytest.raises(ValidationError, match=r"duplicate id .* \(and 4 more repeated ids\)"),
    ):  # fmt: skip
        _run(folder, scheduler=client)
