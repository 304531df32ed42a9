"""Running the two passes of a streaming estimate, here (chunk after chunk) or on a
Dask cluster (the same per-chunk work on ``dask.dataframe`` partitions, the statistics
reduced as a tree), and writing item scores.

Nothing is written before both passes are through: item scores go to a temporary path
that is renamed when the estimates are done, and is removed when anything fails.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.atomic import commit_file, commit_folder, oserror_message, temp_path
from bacon_bayes.calibrator import Calibrator
from bacon_bayes.errors import ValidationError
from bacon_bayes.features import check_winsor
from bacon_bayes.results import Estimate, EstimateTable
from bacon_bayes.stream import estimates as est
from bacon_bayes.stream.fit import StreamFit, Sums, first_pass_sums, fit_stream
from bacon_bayes.stream.ids import repeated_ids
from bacon_bayes.stream.passes import guess_cuts, predict_piece, scan_piece
from bacon_bayes.stream.scan import Guess, Scan, keep_count
from bacon_bayes.stream.source import (
    Columns,
    Piece,
    dataset_files,
    expand_columns,
    file_columns,
    plan,
    repeated_labeled_ids,
)
from bacon_bayes.workers import parse_scheduler

#: rows read, checked and predicted at once (a common Parquet row-group size)
DEFAULT_CHUNK_ROWS = 1_000_000


@dataclass
class StreamResult:
    """Estimates of a streamed pool, with the fit and the pass statistics behind them."""

    fit: StreamFit
    scan: Scan
    sums: Sums
    means: list[Estimate]
    quantiles: dict[float, list[Estimate]] = field(default_factory=dict)
    groups: list[EstimateTable] | None = None
    items_out: Path | None = None

    @property
    def n_items(self) -> int:
        return self.scan.n_rows

    def pool_report(self) -> dict[str, Any]:
        """:meth:`bacon_bayes.EvalPool.report`'s keys with what the stream knows: the
        counts over every row (missing scores from the first pass), the labeled rows'
        outcome, no prompts (a stream takes none)."""
        fit, outcome = self.fit, self.fit.pool.outcome
        groups = None
        if fit.labeled.groups is not None:
            groups = int(self.scan.groups.index.astype(str).nunique())
        return {
            "n_items": self.n_items,
            "n_labeled": len(fit.labeled),
            "outcome": outcome.kind,
            "levels": list(outcome.levels) if outcome.levels else None,
            "judges": list(fit.model.features.judges),
            "missing_judge_scores": fit.model.features.report()["missing"],
            "n_groups": groups,
            "n_prompts": None,
            "notes": list(fit.pool.notes),
        }


def resolve_columns(
    path: str | Path,
    *,
    label: str,
    judges: list[str],
    group: str | None = None,
    item: str | None = None,
    propensity: str | None = None,
) -> tuple[list[Path], Columns]:
    """The dataset's files and the columns to read (judge patterns expanded against the
    first file's columns; :func:`~bacon_bayes.stream.source.plan` checks every file)."""
    files = dataset_files(path)
    if not judges:
        raise ValidationError("no judges given; pass --judge COL (repeatable).")
    names = expand_columns(judges, file_columns(files[0]))
    if label in names:
        raise ValidationError(f"label column {label!r} is also listed as a judge.")
    return files, Columns(label, tuple(names), group, item, propensity)


class _Bar:
    """A progress bar over rows on stderr (:func:`bacon_bayes.progress.bar`: without a
    terminal, a plain line now and then)."""

    def __init__(self, total: int, desc: str, show: bool | None) -> None:
        from bacon_bayes.progress import bar

        self.bar = bar(total, desc, unit="rows", show=show, delay=0.0, unit_scale=True)

    def __call__(self, n: int) -> None:
        self.bar.update(n)

    def close(self) -> None:
        self.bar.close()


class ItemWriter:
    """Item scores written chunk by chunk to a temporary file (Parquet, or CSV for a
    ``.csv`` path), renamed onto ``path`` by :meth:`commit`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.tmp = temp_path(self.path)
        self.csv = self.path.name.lower().endswith(".csv")
        self.writer: Any = None
        self.rows = 0

    def __call__(self, frame: pd.DataFrame) -> None:
        try:
            self._write(frame)
        except OSError as exc:  # a full disk: say which file, not pyarrow's words alone
            raise ValidationError(oserror_message(exc, self.path)) from exc

    def _write(self, frame: pd.DataFrame) -> None:
        if self.csv:
            frame.to_csv(self.tmp, mode="a", header=self.rows == 0, index=False)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.tmp, table.schema)
            self.writer.write_table(table)
        self.rows += len(frame)

    def commit(self) -> Path:
        try:
            self.close()
        except OSError as exc:
            self.discard()
            raise ValidationError(oserror_message(exc, self.path)) from exc
        commit_file(self.tmp, self.path)
        return self.path

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def discard(self) -> None:
        self.close()
        self.tmp.unlink(missing_ok=True)


def _in_order(work: Callable[[Piece], Any], pieces: list[Piece], threads: int) -> Iterator[Any]:
    """``work(piece)`` for every piece on ``threads`` threads (numpy and pyarrow release
    the GIL), results in piece order, at most ``2 * threads`` pieces in flight."""
    if threads <= 1:
        yield from (work(p) for p in pieces)
        return
    with ThreadPoolExecutor(threads) as pool:
        pending: deque[Future[Any]] = deque()
        for piece in pieces:
            pending.append(pool.submit(work, piece))
            if len(pending) >= 2 * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def run_local(
    pieces: list[Piece],
    columns: Columns,
    keep: int,
    chunk_rows: int,
    fitter: Callable[[Scan], StreamFit],
    writer: ItemWriter | None,
    progress: bool | None,
    threads: int = 1,
) -> tuple[Scan, StreamFit, Sums]:
    """Both passes here, pieces on ``threads`` threads, statistics merged in piece order
    (the same result for any number of threads: a piece's statistics depend on its rows
    only; item scores are written in order by one thread)."""
    total = sum(p.n_rows for p in pieces)
    scan: Scan | None = None

    def first(piece: Piece, guess: Guess | None) -> Scan | None:
        return scan_piece(piece, columns, keep, chunk_rows, guess=guess, arrow_threads=threads <= 1)

    guess = guess_cuts(pieces, columns, keep, chunk_rows)
    for attempt in (guess, None) if guess is not None else (None,):
        bar, scan = _Bar(total, "scan", progress), None
        work = functools.partial(first, guess=attempt)
        for piece, part in zip(pieces, _in_order(work, pieces, threads), strict=True):
            scan = part if scan is None else (scan if part is None else scan.merge(part))
            bar(piece.n_rows)
        bar.close()
        assert scan is not None
        if attempt is None or scan.holds():
            break
    assert scan is not None
    fit = fitter(scan)
    sums = None if writer is not None else first_pass_sums(scan, fit.model)
    if sums is not None:  # linear fold models: the first pass had all it takes
        return scan, fit, sums
    bar = _Bar(total, "predict", progress)

    def second(piece: Piece) -> Sums | None:
        return predict_piece(piece, columns, fit.model, chunk_rows, write=writer)

    sums = None
    for piece, got in zip(pieces, _in_order(second, pieces, 1 if writer else threads), strict=True):
        sums = got if sums is None else (sums if got is None else sums.merge(got))
        bar(piece.n_rows)
    bar.close()
    assert sums is not None
    return scan, fit, sums


def refuse_parts_name(out: Path) -> None:
    """Refuse a file name of another format for the item scores of a Dask run, which are
    a folder of Parquet parts (``items.csv`` was such a folder, that no CSV reader opens).

    Raises
    ------
    ValidationError
        ``out`` ends in a suffix other than ``.parquet``.
    """
    if out.suffix and out.suffix.lower() != ".parquet":
        raise ValidationError(
            f"--items-out {str(out)!r}: with --scheduler the item scores are a folder of "
            f"Parquet parts, not a {out.suffix} file; name it {str(out.with_suffix(''))!r} "
            f"or {str(out.with_suffix('.parquet'))!r} (pd.read_parquet reads the folder as "
            f"one table), or drop --scheduler to write one {out.suffix} file."
        )


def estimate_stream(
    path: str | Path,
    calibrator: Calibrator,
    *,
    label: str,
    judges: list[str],
    outcome: str | None = "continuous",
    levels: Any = None,
    group: str | None = None,
    item: str | None = None,
    propensity: str | None = None,
    quantiles: Iterable[float] = (),
    alpha: float = 0.05,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    scheduler: Any = None,
    items_out: str | Path | None = None,
    item_level: float = 0.9,
    progress: bool | None = None,
    threads: int | None = None,
) -> StreamResult:
    """Estimate the pool mean (quantiles, group means) of a dataset too large for memory.

    Parameters
    ----------
    path : str or Path
        A Parquet file, or a folder of Parquet (or CSV) files with the same columns.
    calibrator : Calibrator
        Unfitted; its settings (model, engine, folds, seed, winsor, scale...) are used.
    label, judges, outcome, levels, group, item, propensity
        As for :meth:`bacon_bayes.EvalPool.from_frame` (wide judge columns; patterns like
        ``judge_*`` allowed). ``outcome=None``: guessed from the labels as ``bacon
        estimate`` does in memory (0 and 1 only: categorical, said in the notes).
    quantiles : floats
        Quantile levels to estimate (on a fixed grid, see :func:`fit_stream`).
    chunk_rows : int
        Rows converted and predicted at once; memory grows with it, not with the pool
        (but for 8 bytes a row with an ``item`` column: :mod:`~bacon_bayes.stream.ids`).
    scheduler : str or distributed.Client, optional
        Run on Dask: a scheduler address, ``"local:N"`` (a local cluster of N worker
        processes) or a ``Client``. Default: here, chunk after chunk.
    items_out : path, optional
        Also write every item's score and split-conformal ``item_level`` interval
        (a Parquet or CSV file; with ``scheduler``, a folder of Parquet parts).
    progress : bool, optional
        Progress bar over rows on stderr (default: on a terminal; else a plain line now
        and then, :class:`bacon_bayes.progress.PlainProgress`).
    threads : int, optional
        Pieces processed at once here (default: the machine's cores, at most 4); the
        result does not depend on it.
    """
    if chunk_rows < 1:
        raise ValidationError(f"--chunk-rows {chunk_rows} must be at least 1.")
    if calibrator.n_components is not None:
        raise ValidationError("embeddings are not streamed; drop n_components.")
    check_winsor(calibrator.winsor)
    if isinstance(scheduler, str):
        parse_scheduler(scheduler)  # local:0 (which waited for workers forever) refused
    if scheduler is not None and items_out is not None:
        refuse_parts_name(Path(items_out))
    files, columns = resolve_columns(
        path, label=label, judges=judges, group=group, item=item, propensity=propensity
    )
    pieces = plan(files, columns)
    keep = keep_count(sum(p.n_rows for p in pieces), calibrator.winsor)
    qs = [float(q) for q in quantiles]

    def fitter(scan: Scan) -> StreamFit:
        if scan.labeled.items is not None:  # the pool's check would name rows of no file
            repeated_labeled_ids(scan.labeled.items, scan.labeled.rows, pieces)
        repeated_ids(scan.id_hashes, pieces, columns, chunk_rows)  # every row's, unlabeled too
        return fit_stream(
            scan,
            columns,
            calibrator,
            outcome=outcome,
            levels=levels,
            quantiles=bool(qs),
            item_level=item_level if items_out is not None else None,
        )

    writer = None
    parts_dir = None  # item scores of a Dask run: a folder of parts, renamed at the end
    try:
        if scheduler is None:
            writer = None if items_out is None else ItemWriter(items_out)
            n = threads if threads is not None else min(4, os.cpu_count() or 1)
            scan, fit, sums = run_local(
                pieces, columns, keep, chunk_rows, fitter, writer, progress, n
            )
        else:
            from bacon_bayes.stream.cluster import run_dask

            if items_out is not None:
                out = Path(items_out)
                parts_dir = temp_path(out)
                parts_dir.mkdir()
            scan, fit, sums = run_dask(
                pieces, columns, keep, chunk_rows, fitter, scheduler, parts_dir
            )
        result = StreamResult(fit, scan, sums, est.mean_estimates(fit, scan, sums, alpha))
        result.quantiles = {q: est.quantile_estimates(fit, scan, sums, q, alpha) for q in qs}
        if group is not None:
            result.groups = est.group_estimates(fit, scan, sums, alpha)
    except BaseException:
        if writer is not None:
            writer.discard()
        if parts_dir is not None:
            shutil.rmtree(parts_dir, ignore_errors=True)
        raise
    if writer is not None:
        result.items_out = writer.commit()
    elif parts_dir is not None and items_out is not None:
        commit_folder(parts_dir, Path(items_out), carry=False)  # the parts are one table
        result.items_out = Path(items_out)
    return result
