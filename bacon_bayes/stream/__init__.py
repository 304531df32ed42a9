"""Streaming estimates over pools larger than memory (Parquet datasets, CSV files).

Two passes over the data, in chunks of rows: the first (:mod:`.scan`) gathers what the
features and the baselines need from every item and keeps the labeled rows; the fold
models are fitted on those (:mod:`.fit`); the second pass predicts every item with the
first pass's feature statistics and sums what the estimands need (:mod:`.estimates`).
Memory grows with the chunk size and the number of labels, not with the pool. The
passes run here or on a Dask cluster (:mod:`.cluster`); :mod:`.source` reads and checks
the files. Entry point: :func:`estimate_stream`.
"""

from __future__ import annotations

from bacon_bayes.stream.runner import DEFAULT_CHUNK_ROWS, StreamResult, estimate_stream
from bacon_bayes.stream.source import is_stream_source

__all__ = ["DEFAULT_CHUNK_ROWS", "StreamResult", "estimate_stream", "is_stream_source"]
