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

from bacon_bayes.errors import ValidationError
from bacon_bayes.stream.fit import StreamFit, StreamModel, Sums, first_pass_sums
from bacon_bayes.stream.passes import guess_cuts, predict_piece, scan_piece
from bacon_bayes.stream.scan import Guess, Scan
from bacon_bayes.stream.source import Columns, Piece, read_frames
from bacon_bayes.workers import Interrupts, close_dask, connect_dask


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
    """Both passes on the cluster; the fit runs here, between them.

    Ctrl-C while the cluster works ends the run (KeyboardInterrupt) and its local cluster
    (:class:`bacon_bayes.workers.Interrupts`); a scheduler lost mid-run, or workers that
    keep dying, end it with a :class:`ValidationError` naming the scheduler and the fix
    (:func:`cluster_failure`).
    """
    with Interrupts() as stop:  # Ctrl-C noted, acted on at the waits (see its doc)
        return _run(pieces, columns, keep, chunk_rows, fitter, scheduler, items_dir, stop)


def _run(
    pieces: list[Piece],
    columns: Columns,
    keep: int,
    chunk_rows: int,
    fitter: Callable[[Scan], StreamFit],
    scheduler: Any,
    items_dir: Path | None,
    stop: Interrupts,
) -> tuple[Scan, StreamFit, Sums]:
    client, cluster = connect(scheduler)  # first: checks that dask is installed
    address = _address(client, scheduler)  # while connected
    stage = "the first pass"
    hurry = False
    try:
        stop.check()  # pressed while the cluster started
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
            scan = stop.wait(client.compute(_tree(scans)))
            if attempt is None or scan.holds():
                break
        stage = "the fit between the passes"
        with stop.raising():  # work here: Ctrl-C raises at once
            fit = fitter(scan)
        first = None if items_dir is not None else first_pass_sums(scan, fit.model)
        if first is not None:  # linear fold models: no second pass
            return scan, fit, first
        stage = "the second pass"
        model = client.scatter(fit.model, broadcast=True)
        stop.check()
        where = None if items_dir is None else str(items_dir)
        sums = [
            delayed(_predict_part)(part, piece, columns, model, chunk_rows, where, i)
            for i, (part, piece) in enumerate(zip(parts, pieces, strict=True))
        ]
        return scan, fit, stop.wait(client.compute(_tree(sums)))
    except BaseException as exc:
        why = cluster_failure(exc, client, scheduler, stage, address)
        hurry = why is not None or isinstance(exc, KeyboardInterrupt)
        if why is None:
            raise
        raise ValidationError(why) from None
    finally:
        close_dask(scheduler, client, cluster, hurry=hurry or stop.hit.is_set())


def cluster_failure(
    exc: BaseException, client: Any, scheduler: Any, stage: str, address: str
) -> str | None:
    """What to tell the user when ``exc`` says the cluster failed under the run (the
    scheduler lost, workers that keep dying), or None for any other error (a bad cell,
    an interrupt), which goes on as it is."""
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError

    local = isinstance(scheduler, str) and scheduler.strip().startswith("local:")
    where = (
        f"the local Dask cluster ({scheduler.strip()})"
        if local
        else f"the Dask scheduler at {address}"
    )
    written = "nothing was written (outputs are written whole or not at all)"
    if isinstance(exc, KilledWorker):
        return (
            f"the workers of {where} kept dying during {stage} (one task of the run was on "
            f"every worker that died, several in turn, most often for want of memory); "
            f"{written}. Give each worker more memory: fewer workers (local:N), a smaller "
            "--chunk-rows, or larger machines"
        )
    lost = isinstance(exc, CommClosedError) or (
        isinstance(exc, FutureCancelledError | OSError | TimeoutError)
        and getattr(client, "status", "running") != "running"
    )
    if isinstance(exc, FutureCancelledError) and "connection-lost" in str(exc):
        lost = True
    if not lost:
        return None
    fix = (
        "Run the same command again"
        if local
        else "Run the same command again when it is back, or use --scheduler local:N"
    )
    return f"lost {where} during {stage}; {written}. {fix}"


def _address(client: Any, scheduler: Any) -> str:
    try:
        return str(client.scheduler.address)
    except AttributeError:  # not a distributed Client (a stand-in of the tests)
        return str(scheduler)
