"""Reading tables from disk (CSV, gzipped CSV, Parquet) and NetCDF trees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.errors import ValidationError


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
    """Write an ``xarray.DataTree`` to a NetCDF file (h5netcdf)."""
    path = Path(path)
    tree.to_netcdf(str(path), engine="h5netcdf")
    return path


def read_tree(path: str | Path, what: str) -> Any:
    """Read a whole ``xarray.DataTree`` from a NetCDF file into memory."""
    import xarray as xr

    path = Path(path)
    if not path.exists():
        raise ValidationError(f"{what} file {str(path)!r} does not exist.")
    with xr.open_datatree(str(path), engine="h5netcdf") as opened:
        return opened.load()
