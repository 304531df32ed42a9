"""The per-piece work of both passes (the same here and on Dask workers): the piece's
rows in chunks of ``chunk_rows``, each chunk's statistics merged into the piece's."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pandas as pd

from bacon_bayes.stream.fit import StreamModel, Sums, predict_chunk
from bacon_bayes.stream.scan import Guess, Scan
from bacon_bayes.stream.source import Columns, Frame, Piece, raw_chunk, read_frames, to_chunk


def _frames(
    piece: Piece,
    columns: Columns,
    chunk_rows: int,
    frame: pd.DataFrame | None,
    arrow_threads: bool = True,
) -> Iterator[tuple[int, Frame]]:
    """Frames of at most ``chunk_rows`` rows of a piece (read here, or a partition), each
    with its first global row."""
    if frame is None:
        yield from read_frames(piece, columns, chunk_rows, arrow_threads)
        return
    for start in range(0, len(frame), chunk_rows):
        yield piece.start + start, frame.iloc[start : start + chunk_rows]


def scan_piece(
    piece: Piece,
    columns: Columns,
    keep: int,
    chunk_rows: int,
    frame: pd.DataFrame | None = None,
    acc: Scan | None = None,
    tick: Callable[[int], None] | None = None,
    guess: Guess | None = None,
    arrow_threads: bool = True,
) -> Scan | None:
    """First-pass statistics of one piece, merged into ``acc`` (whose extremes bound
    what can still be extreme); ``guess``: see :class:`~bacon_bayes.stream.scan.Guess`;
    ``arrow_threads``: see :func:`~bacon_bayes.stream.source.read_frames`."""
    for start, df in _frames(piece, columns, chunk_rows, frame, arrow_threads):
        part = Scan.of(raw_chunk(df, start, piece, columns), keep, acc, guess=guess)
        acc = part if acc is None else acc.merge(part)
        if tick is not None:
            tick(len(df))
    return acc


def predict_piece(
    piece: Piece,
    columns: Columns,
    model: StreamModel,
    chunk_rows: int,
    frame: pd.DataFrame | None = None,
    write: Callable[[pd.DataFrame], None] | None = None,
    tick: Callable[[int], None] | None = None,
) -> Sums | None:
    """Second-pass statistics of one piece (item scores handed to ``write``)."""
    acc = None
    for start, df in _frames(piece, columns, chunk_rows, frame):
        chunk = to_chunk(df, start, piece, columns)
        part, items = predict_chunk(chunk, model, items=write is not None)
        if write is not None and items is not None:
            write(items)
        acc = part if acc is None else acc.merge(part)
        if tick is not None:
            tick(len(df))
    return acc


def guess_cuts(pieces: list[Piece], columns: Columns, keep: int, chunk_rows: int) -> Guess | None:
    """The :class:`~bacon_bayes.stream.scan.Guess` of a pass, from the first chunk."""
    piece = pieces[0]
    start, df = next(_frames(piece, columns, chunk_rows, None))
    return Guess.of(raw_chunk(df, start, piece, columns), keep, sum(p.n_rows for p in pieces))
