"""Streaming estimates over pools larger than memory (Parquet datasets, CSV files).

One or two passes over the data, in chunks of rows: the first (:mod:`.scan`, its
compiled sweep in :mod:`.kernels`) gathers what the features and the baselines need
from every item and keeps the labeled rows; the fold models are fitted on those
(:mod:`.fit`); ridge fold models' sums of predictions follow from the first pass
(:func:`.fit.first_pass_sums`), other models' (and quantiles, item scores) from a
second pass that predicts every item with the first pass's feature statistics; the
estimands come from the sums (:mod:`.estimates`).
Memory grows with the chunk size and the number of labels, not with the pool, but for
8 bytes a row with an item id column (:mod:`.ids`, the check for repeated ids). The
passes run here or on a Dask cluster (:mod:`.cluster`); :mod:`.source` reads and checks
the files. Entry point: :func:`estimate_stream`.
"""

from __future__ import annotations

from bacon_bayes.stream.runner import DEFAULT_CHUNK_ROWS, StreamResult, estimate_stream
from bacon_bayes.stream.source import is_stream_source

__all__ = ["DEFAULT_CHUNK_ROWS", "StreamResult", "estimate_stream", "is_stream_source"]
