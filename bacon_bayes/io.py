"""Reading tables from disk (CSV, gzipped CSV, Parquet) and NetCDF trees."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.errors import BaconError, ValidationError
from bacon_bayes.outputs import write_file


@contextmanager
def reading(path: str | Path, what: str, fix: str) -> Iterator[None]:
    """Turn any failure to read or decode the saved file ``path`` into a ValidationError
    that names the file and ``fix`` (what to do); errors of our own pass through.

    Covers empty, truncated and foreign files: h5py's ``OSError``s, decoding errors
    (``UnicodeDecodeError``, JSON/TOML/CSV parse errors are ``ValueError``s) and parts of a
    file that are missing (``KeyError``).
    """
    try:
        yield
    except BaconError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise ValidationError(
            f"{what} {str(path)!r} cannot be read: it is empty, truncated (a copy cut short, "
            f"a full disk?) or not the kind of file expected ({type(exc).__name__}: {detail}). "
            f"{fix}"
        ) from exc


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a CSV (optionally compressed) or Parquet file into a DataFrame."""
    path = Path(path)
    if not path.exists():
        raise ValidationError(f"file {str(path)!r} does not exist; check the path.")
    if path.is_dir():
        raise ValidationError(f"{str(path)!r} is a folder; pass a CSV or Parquet file.")
    name = path.name.lower()
    try:
        if name.endswith((".parquet", ".pq")):
            return pd.read_parquet(path)
        return pd.read_csv(path)
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise ValidationError(
            f"cannot read {str(path)!r} as {'Parquet' if 'parq' in name else 'CSV'}: {exc}. "
            "Pass a CSV (.csv, .csv.gz) or Parquet (.parquet) file."
        ) from exc


def write_tree(tree: Any, path: str | Path) -> Path:
    """Write an ``xarray.DataTree`` to a NetCDF file (h5netcdf), atomically (an earlier
    file at ``path`` stays whole if the write fails)."""
    # built in memory and then written: HDF5 writing into a file that fails (a full disk)
    # leaves h5py objects that crash the process when collected
    data = bytes(tree.to_netcdf(None, engine="h5netcdf"))
    return write_file(path, lambda tmp: tmp.write_bytes(data))


def read_tree(path: str | Path, what: str, fix: str) -> Any:
    """Read a whole ``xarray.DataTree`` from a NetCDF file into memory.

    ``what`` names the kind of file in errors and ``fix`` says what to do when it cannot be
    read (see :func:`reading`).
    """
    import xarray as xr

    path = Path(path)
    if not path.exists():
        raise ValidationError(f"{what} file {str(path)!r} does not exist.")
    with reading(path, f"{what} file", fix), xr.open_datatree(str(path), engine="h5netcdf") as t:
        return t.load()


#: Column names taken as the item id when ``--item`` is not given.
ITEM_COLUMNS = ("id", "item", "item_id")


def item_column(df: pd.DataFrame, judges: object = ()) -> str | None:
    """The item id column to use without ``--item``: the first of :data:`ITEM_COLUMNS`
    in the table that is not a judge and has unique, non-missing values (None: none).

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    judges : sequence of str
        The judge columns (never taken as ids).

    Returns
    -------
    str or None
        The column name, or None.
    """
    taken = set(judges) if isinstance(judges, list | tuple) else set()
    for name in ITEM_COLUMNS:
        if name in df.columns and name not in taken:
            col = df[name]
            if col.notna().all() and col.is_unique:
                return name
    return None
