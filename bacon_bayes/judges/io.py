"""Read and write item / score tables by file suffix (CSV, Parquet, JSON lines)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bacon_bayes.errors import ValidationError

_READABLE = ".csv, .csv.gz, .tsv, .parquet, .jsonl, .json"


def _suffix(path: Path) -> str:
    name = path.name.lower()
    for ext in (".csv.gz", ".tsv.gz", ".jsonl.gz"):
        if name.endswith(ext):
            return ext.removesuffix(".gz")
    return path.suffix.lower()


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a table; the format follows the suffix."""
    path = Path(path)
    if not path.is_file():
        raise ValidationError(f"file {path} does not exist; check the path")
    ext = _suffix(path)
    try:
        if ext == ".csv":
            return pd.read_csv(path)
        if ext == ".tsv":
            return pd.read_csv(path, sep="\t")
        if ext == ".parquet":
            return pd.read_parquet(path)
        if ext == ".jsonl":
            return pd.read_json(path, lines=True)
        if ext == ".json":
            return pd.read_json(path)
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise ValidationError(f"file {path}: cannot be read as {ext} ({exc})") from exc
    raise ValidationError(f"file {path}: unknown format {ext!r}; use one of {_READABLE}")


def write_table(df: pd.DataFrame, path: str | Path) -> Path:
    """Write a table as Parquet (``.parquet``) or CSV (``.csv``); returns the path."""
    path = Path(path)
    ext = _suffix(path)
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
