"""The streaming estimate on a Dask cluster: each piece of the dataset (a Parquet row
group, a CSV file) is a ``dask.dataframe`` partition; the per-chunk work of
:mod:`bacon_bayes.stream.runner` runs on the workers and the statistics are reduced as a
tree. The fitted model (arrays and scikit-learn/PyMC fold models of this package, no
user code) is sent to every worker once (``Client.scatter(..., broadcast=True)``); the
workers need bacon_bayes installed and must see the dataset's paths.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.stream.fit import StreamFit, StreamModel, Sums, first_pass_sums
from bacon_bayes.stream.passes import guess_cuts, predict_piece, scan_piece
from bacon_bayes.stream.scan import Guess, Scan
from bacon_bayes.stream.source import Columns, Piece, read_frames
from bacon_bayes.workers import close_dask, connect_dask


def _read_piece(piece: Piece, spec: Columns) -> pd.DataFrame:
    """A whole piece as one DataFrame (a partition)."""
    frames = [
        f if isinstance(f, pd.DataFrame) else f.to_pandas()
        for _, f in read_frames(piece, spec, max(piece.n_rows, 1))
    ]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _scan_part(
    frame: pd.DataFrame,
    piece: Piece,
    columns: Columns,
    keep: int,
    chunk_rows: int,
    guess: Guess | None,
) -> Scan | None:
    return scan_piece(piece, columns, keep, chunk_rows, frame=frame, guess=guess)


def _predict_part(
    frame: pd.DataFrame,
    piece: Piece,
    columns: Columns,
    model: StreamModel,
    chunk_rows: int,
    items_dir: str | None,
    index: int,
) -> Sums | None:
    write = None
    if items_dir is not None:
        count = [0]

        def write(items: pd.DataFrame) -> None:
            items.to_parquet(Path(items_dir) / f"part-{index:06d}-{count[0]:04d}.parquet")
            count[0] += 1

    return predict_piece(piece, columns, model, chunk_rows, frame=frame, write=write)


def _merge(a: Any, b: Any) -> Any:
    return b if a is None else (a if b is None else a.merge(b))


def _tree(parts: list[Any]) -> Any:
    """Pairwise reduction of delayed statistics (depth log2 of the number of pieces)."""
    from dask import delayed

    while len(parts) > 1:
        nxt = [delayed(_merge)(a, b) for a, b in zip(parts[::2], parts[1::2], strict=False)]
        if len(parts) % 2:
            nxt.append(parts[-1])
        parts = nxt
    return parts[0]


def connect(scheduler: Any) -> tuple[Any, Any]:
    """``(client, cluster)`` for a ``Client``, ``"local:N"`` (N worker processes on this
    machine, on loopback, ending with this process) or a scheduler address
    (``tcp://host:8786``): :func:`bacon_bayes.workers.connect_dask`, which refuses a bad
    value, an unreachable scheduler and a missing ``dask`` extra."""
    return connect_dask(scheduler)


def run_dask(
    pieces: list[Piece],
    columns: Columns,
    keep: int,
    chunk_rows: int,
    fitter: Callable[[Scan], StreamFit],
    scheduler: Any,
    items_dir: Path | None,
) -> tuple[Scan, StreamFit, Sums]:
    """Both passes on the cluster; the fit runs here, between them."""
    client, cluster = connect(scheduler)  # first: checks that dask is installed
    try:
        import dask.dataframe as dd
        from dask import delayed

        meta = _read_piece(pieces[0], columns).iloc[:0]
        frame = dd.from_map(_read_piece, pieces, args=[columns], meta=meta, enforce_metadata=False)
        parts = frame.to_delayed()
        guess = guess_cuts(pieces, columns, keep, chunk_rows)
        for attempt in (guess, None) if guess is not None else (None,):
            scans = [
                delayed(_scan_part)(part, piece, columns, keep, chunk_rows, attempt)
                for part, piece in zip(parts, pieces, strict=True)
            ]
            scan = client.compute(_tree(scans)).result()
            if attempt is None or scan.holds():
                break
        fit = fitter(scan)
        first = None if items_dir is not None else first_pass_sums(scan, fit.model)
        if first is not None:  # linear fold models: no second pass
            return scan, fit, first
        model = client.scatter(fit.model, broadcast=True)
        where = None if items_dir is None else str(items_dir)
        sums = [
            delayed(_predict_part)(part, piece, columns, model, chunk_rows, where, i)
            for i, (part, piece) in enumerate(zip(parts, pieces, strict=True))
        ]
        return scan, fit, client.compute(_tree(sums)).result()
    finally:
        close_dask(scheduler, client, cluster)
