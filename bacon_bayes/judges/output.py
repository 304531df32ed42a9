"""Write score and embedding tables (Parquet or CSV, by suffix)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.io import write_by_suffix


def write_table(df: pd.DataFrame, path: str | Path) -> Path:
    """Write a table as Parquet (``.parquet``) or CSV (``.csv``), atomically
    (:func:`bacon_bayes.io.write_by_suffix`, as a to-label file is written); returns the
    path."""
    path = Path(path)
    if path.suffix.lower() not in (".parquet", ".csv"):
        raise ValidationError(f"output {path}: use a .parquet or .csv file name")
    return write_by_suffix(df, path)
