"""Reading tables from disk (CSV, gzipped CSV, Parquet)."""

from __future__ import annotations

from pathlib import Path

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
