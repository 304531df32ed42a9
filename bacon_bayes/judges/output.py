"""Write score and embedding tables (Parquet or CSV, by suffix)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bacon_bayes.atomic import write_file
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import people_csv


def write_table(df: pd.DataFrame, path: str | Path) -> Path:
    """Write a table as Parquet (``.parquet``) or CSV (``.csv``), atomically; returns the
    path."""
    path = Path(path)
    ext = path.suffix.lower()
    if ext == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise ValidationError(
                "writing Parquet needs pyarrow: pip install 'bacon_bayes[parquet]', "
                "or write .csv instead"
            ) from exc
        return write_file(path, lambda tmp: df.to_parquet(tmp, index=False))
    if ext == ".csv":
        return write_file(
            path, lambda tmp: tmp.write_text(people_csv(df), encoding="utf-8", newline="")
        )
    raise ValidationError(f"output {path}: use a .parquet or .csv file name")
