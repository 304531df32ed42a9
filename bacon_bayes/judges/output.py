"""Write score and embedding tables (Parquet or CSV, by suffix)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bacon_bayes.errors import ValidationError


def write_table(df: pd.DataFrame, path: str | Path) -> Path:
    """Write a table as Parquet (``.parquet``) or CSV (``.csv``); returns the path."""
    path = Path(path)
    ext = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if ext == ".parquet":
        try:
            df.to_parquet(path, index=False)
        except ImportError as exc:
            raise ValidationError(
                "writing Parquet needs pyarrow: pip install 'bacon_bayes[parquet]', "
                "or write .csv instead"
            ) from exc
    elif ext == ".csv":
        df.to_csv(path, index=False)
    else:
        raise ValidationError(f"output {path}: use a .parquet or .csv file name")
    return path
