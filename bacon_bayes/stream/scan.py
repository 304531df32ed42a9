"""The first pass over a streamed pool: what the features, the baselines and (for ridge
fold models) the sums of predictions need from every item, as statistics of chunks that
merge in any order.

Per group: the item count, per judge the count and sum of its observed scores, the sum
of inclusion probabilities and the mean and sum of squared deviations of the raw judge
average (the naive baseline); per judge, its lowest and highest scores with their groups
(as many as the winsorising quantiles can reach), from which the exact quantiles,
clipped sums and imputation values of :func:`bacon_bayes.features.build_features`
follow; and the labeled rows themselves, which are few and are kept whole. One compiled
sweep per chunk (:mod:`.kernels`) reads the columns as they are stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.stream.ids import blank_id, id_hashes
from bacon_bayes.stream.source import RawChunk

#: per-group statistics of :attr:`Scan.stats` (``obs``, ``total``: groups x judges)
GROUP_STATS = ("n", "avg_mean", "avg_m2", "pi_sum", "pi_nan", "obs", "total")

#: rows of the first chunk that a :class:`Guess` of the extremes' cuts looks at
GUESS_ROWS = 250_000


@dataclass
class LabeledRows:
    """The labeled rows of a stream: global row, label, raw judge scores, propensity,
    group name and item id (the last three None when the column is not used)."""

    rows: np.ndarray
    y: np.ndarray
    scores: np.ndarray
    pi: np.ndarray | None
    groups: np.ndarray | None
    items: np.ndarray | None

    @classmethod
    def of(cls, chunk: RawChunk) -> LabeledRows:
        lab = np.flatnonzero(~np.isnan(chunk.y))
        scores = np.empty((lab.size, len(chunk.cols)))
        for j, col in enumerate(chunk.cols):
            scores[:, j] = col[lab]
        names = chunk.names
        return cls(
            chunk.start + lab.astype(np.int64),
            chunk.y[lab],
            scores,
            None if chunk.pi is None else chunk.pi[lab],
            None if chunk.codes is None or names is None else names[chunk.codes[lab]],
            chunk.items_at(lab),
        )

    def __len__(self) -> int:
        return int(self.rows.size)

    @classmethod
    def join(cls, parts: list[LabeledRows]) -> LabeledRows:
        """The rows of all parts, in global row order."""
        if len(parts) == 1:
            return parts[0]

        def cat(name: str) -> Any:
            got = [getattr(p, name) for p in parts]
            return None if any(a is None for a in got) else np.concatenate(got)

        rows = cat("rows")
        parts_ = [cat(k) for k in ("y", "scores", "pi", "groups", "items")]
        if rows.size and (np.diff(rows) < 0).any():
            order = np.argsort(rows, kind="stable")
            rows = rows[order]
            parts_ = [None if a is None else a[order] for a in parts_]
        y, scores, pi, groups, items = parts_
        return cls(rows, y, scores, pi, groups, items)


def _trim(
    values: np.ndarray, groups: np.ndarray, keep: int, lowest: bool
) -> tuple[np.ndarray, np.ndarray, float]:
    """The lowest (or highest) of ``values`` down (up) to the ``keep``-th, ties with it
    included, with their ``groups``, in no particular order, and the ``keep``-th value
    (all of them and an infinite one when there are fewer)."""
    n = values.size
    if n < keep:
        return values, groups, np.inf if lowest else -np.inf
    kth = keep - 1 if lowest else n - keep
    cut = float(np.partition(values, kth)[kth])
    inside = values <= cut if lowest else values >= cut
    return values[inside], groups[inside], cut


@dataclass
class Tail:
    """At least the ``keep`` lowest (or highest) scores of one judge seen so far (all of
    them when there are fewer) with their groups, in pieces that are joined and cut only
    when they hold twice ``keep`` (so a merge costs little); at least ``keep`` of them
    are at or below (above) ``cut``, so no score beyond it can be among the extremes any
    more (infinite: not known yet)."""

    keep: int
    lowest: bool
    values: list[np.ndarray]
    groups: list[np.ndarray]
    cut: float

    @classmethod
    def of(cls, values: np.ndarray, groups: np.ndarray, keep: int, lowest: bool) -> Tail:
        v, g, cut = _trim(values, groups, keep, lowest)
        return cls(keep, lowest, [v], [g], cut)

    @property
    def size(self) -> int:
        return sum(v.size for v in self.values)

    def merge(self, other: Tail, regroup: np.ndarray | None) -> Tail:
        """Both tails (``regroup``: new positions of ``other``'s groups; None: the same)."""
        theirs = other.groups if regroup is None else [regroup[g] for g in other.groups]
        pick = min if self.lowest else max
        both = Tail(
            self.keep,
            self.lowest,
            self.values + other.values,
            self.groups + theirs,
            pick(self.cut, other.cut),
        )
        return both.joined() if both.size > 2 * self.keep else both

    def joined(self) -> Tail:
        """One piece: the ``keep`` extremes and the scores tied with the last (or all),
        with the exact cut."""
        values, groups = np.concatenate(self.values), np.concatenate(self.groups)
        return Tail.of(values, groups, self.keep, self.lowest)

    def union(self) -> tuple[np.ndarray, np.ndarray]:
        """All kept scores with their groups, each in one array (pieces in the order they
        were merged). Beyond :attr:`cut` they hold every score of the stream, and at
        least ``keep`` are there: the ``keep`` lowest (highest) of them are the stream's,
        whatever else they hold."""
        if len(self.values) == 1:
            return self.values[0], self.groups[0]
        return np.concatenate(self.values), np.concatenate(self.groups)


@dataclass(frozen=True)
class Guess:
    """Cuts of the extremes guessed from a sample of the pool (per judge, a low and a
    high score, each with about twice the winsorising share beyond it): with them a
    pass gathers about ``2 * keep`` scores per judge and end from the start instead of
    cutting down what it gathered. The pass is exact when each judge has at least
    ``keep`` scores beyond each cut (:meth:`Scan.holds`); else it is run without."""

    low: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, chunk: RawChunk, keep: int, n_rows: int) -> Guess | None:
        """The guess from one chunk's scores (its first :data:`GUESS_ROWS` rows) for a
        pool of ``n_rows`` (None when the extremes are a large share of the pool, or the
        chunk has few scores)."""
        share = 2.0 * keep / n_rows
        if share > 0.25:
            return None
        low, high = [], []
        for col in chunk.cols:
            x = col[:GUESS_ROWS][~np.isnan(col[:GUESS_ROWS])]
            if x.size < 1000:
                return None
            lo, hi = np.quantile(x, [share, 1.0 - share])
            low.append(float(lo))
            high.append(float(hi))
        return cls(np.array(low), np.array(high))


@dataclass
class Scan:
    """Statistics of the first pass (see the module docstring); merge with :meth:`merge`.

    ``names``: the groups (``""`` without a group column); ``stats``: the arrays of
    :data:`GROUP_STATS` in that order of groups; ``low[j]``/``high[j]``: the lowest and
    highest scores of judge ``j`` with their groups (positions in ``names``).
    """

    n_rows: int
    keep: int
    names: np.ndarray
    stats: dict[str, np.ndarray]
    low: list[Tail]
    high: list[Tail]
    labeled_parts: list[LabeledRows]
    n_labeled: int = field(default=0)
    #: the smallest and largest propensity recorded (infinite: none)
    pi_range: tuple[float, float] = (np.inf, -np.inf)
    #: 64-bit hashes of every row's item id, one array per chunk (none without an id
    #: column), for :func:`~bacon_bayes.stream.ids.repeated_ids`
    id_hashes: list[np.ndarray] = field(default_factory=list)

    @classmethod
    def of(cls, chunk: RawChunk, keep: int, *cuts: Scan | None, guess: Guess | None = None) -> Scan:
        """Statistics of one chunk. ``keep``: how many extreme scores per judge and end to
        keep. ``cuts``: statistics of other rows; scores that cannot be among the extremes
        any more are skipped (same result, less sorting). ``guess``: gather no score
        beyond it either (see :meth:`holds`)."""
        from bacon_bayes.stream import kernels

        full = [c for c in cuts if c is not None]
        J = len(chunk.cols)
        lo_cut = np.array([min((c.low[j].cut for c in full), default=np.inf) for j in range(J)])
        hi_cut = np.array([max((c.high[j].cut for c in full), default=-np.inf) for j in range(J)])
        if guess is not None:
            lo_cut, hi_cut = np.minimum(lo_cut, guess.low), np.maximum(hi_cut, guess.high)
        G = len(chunk.group_names)
        n = chunk.y.size  # room for every score beyond a cut not yet known, else 1/16
        cap = n if np.isinf(lo_cut).any() or np.isinf(hi_cut).any() else n // 16 + 16
        out = kernels.sweep()(chunk.cols, chunk.group_codes, G, lo_cut, hi_cut, cap)
        bad, count, obs, total, avg_sum, m2, n_lo, n_hi = out[:8]
        labeled = LabeledRows.of(chunk)
        if bad or np.isinf(labeled.y).any():  # an infinite score or label
            chunk.fail()
        hashes = []
        if chunk.columns.item is not None:
            h, blank = id_hashes(chunk.frame, chunk.columns.item)
            if blank >= 0:
                raise blank_id(chunk.piece, chunk.start + blank, chunk.columns.item)
            hashes.append(h)
        if (n_lo > cap).any() or (n_hi > cap).any():
            lo_at, lo_val, lo_code, hi_at, hi_val, hi_code = kernels.gather()(
                chunk.cols, chunk.group_codes, lo_cut, hi_cut, n_lo, n_hi
            )
            lo = [(lo_val[a:b], lo_code[a:b]) for a, b in pairwise(lo_at)]
            hi = [(hi_val[a:b], hi_code[a:b]) for a, b in pairwise(hi_at)]
        else:
            lo = [(out[8][j, :c], out[9][j, :c]) for j, c in enumerate(n_lo)]
            hi = [(out[10][j, :c], out[11][j, :c]) for j, c in enumerate(n_hi)]
        present = np.flatnonzero(count)
        where = np.full(G, -1, dtype=np.int32)
        where[present] = np.arange(present.size, dtype=np.int32)
        low = [Tail.of(v, where[g], keep, True) for v, g in lo]
        high = [Tail.of(v, where[g], keep, False) for v, g in hi]
        stats = {
            "n": count[present],
            "avg_mean": avg_sum[present] / count[present],
            "avg_m2": m2[present],
            "pi_sum": np.zeros(present.size),
            "pi_nan": np.zeros(present.size),
            "obs": obs[present],
            "total": total[present],
        }
        pi_range = (np.inf, -np.inf)
        if chunk.pi is not None:
            codes = chunk.group_codes
            stats["pi_sum"] = np.bincount(codes, np.nan_to_num(chunk.pi), G)[present]
            stats["pi_nan"] = np.bincount(codes, np.isnan(chunk.pi), G)[present]
            known = chunk.pi[np.isfinite(chunk.pi)]
            if known.size:
                pi_range = (float(known.min()), float(known.max()))
        return cls(
            n_rows=int(chunk.y.size),
            keep=keep,
            names=chunk.group_names[present],
            stats=stats,
            low=low,
            high=high,
            labeled_parts=[labeled],
            n_labeled=len(labeled),
            pi_range=pi_range,
            id_hashes=hashes,
        )

    @property
    def labeled(self) -> LabeledRows:
        """The labeled rows (the parts joined once, in global row order)."""
        if len(self.labeled_parts) > 1:
            self.labeled_parts = [LabeledRows.join(self.labeled_parts)]
        return self.labeled_parts[0]

    def holds(self) -> bool:
        """Whether every judge's tails hold ``keep`` scores: with a :class:`Guess`, that
        is when the pass was exact (every score left out lay beyond the guessed cut,
        hence beyond ``keep`` gathered ones)."""
        return all(t.size >= self.keep for t in self.low + self.high)

    @property
    def n_obs(self) -> np.ndarray:
        """Observed scores per judge."""
        return self.stats["obs"].sum(axis=0)

    @property
    def total(self) -> np.ndarray:
        """Sum of the observed scores per judge."""
        return self.stats["total"].sum(axis=0)

    @property
    def groups(self) -> pd.DataFrame:
        """Per group (index: name): ``n``, ``avg_mean``, ``avg_m2``, ``pi_sum``,
        ``pi_nan``."""
        cols = {k: self.stats[k] for k in GROUP_STATS[:5]}
        return pd.DataFrame(cols, index=pd.Index(self.names, name="group"))

    def merge(self, other: Scan) -> Scan:
        """The statistics of both parts (exact for counts, extremes and labeled rows;
        sums to floating-point summation order)."""
        names, mine, theirs = _union(self.names, other.names)
        stats = merge_stats(self.stats, other.stats, names.size, mine, theirs)
        same = theirs.size == names.size and bool((theirs == np.arange(names.size)).all())
        regroup = None if same else theirs
        return Scan(
            n_rows=self.n_rows + other.n_rows,
            keep=self.keep,
            names=names,
            stats=stats,
            low=[a.merge(b, regroup) for a, b in zip(self.low, other.low, strict=True)],
            high=[a.merge(b, regroup) for a, b in zip(self.high, other.high, strict=True)],
            labeled_parts=self.labeled_parts + other.labeled_parts,
            n_labeled=self.n_labeled + other.n_labeled,
            pi_range=(
                min(self.pi_range[0], other.pi_range[0]),
                max(self.pi_range[1], other.pi_range[1]),
            ),
            id_hashes=self.id_hashes + other.id_hashes,
        )


def _union(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The names of ``a`` then those of ``b`` not in ``a``, and where each of ``a``'s and
    ``b``'s names went."""
    if a.size == b.size and (a == b).all():
        same = np.arange(a.size, dtype=np.int32)
        return a, same, same
    pos = {name: i for i, name in enumerate(a.tolist())}
    for name in b.tolist():
        pos.setdefault(name, len(pos))
    names = np.concatenate(
        [a, np.array([n for n in b.tolist() if pos[n] >= a.size], dtype=a.dtype)]
    )
    theirs = np.array([pos[n] for n in b.tolist()], dtype=np.int32)
    return names, np.arange(a.size, dtype=np.int32), theirs


def merge_stats(
    a: dict[str, np.ndarray], b: dict[str, np.ndarray], G: int, ia: np.ndarray, ib: np.ndarray
) -> dict[str, np.ndarray]:
    """Per-group statistics of two parts (groups at ``ia``/``ib`` of ``G``): counts and
    sums add, the judge average's mean and squared deviations combine by Chan's
    formula."""

    def spread(s: dict[str, np.ndarray], at: np.ndarray) -> dict[str, np.ndarray]:
        if at.size == G and (at == np.arange(G)).all():
            return s
        out = {}
        for k, v in s.items():
            full = np.zeros((G, *v.shape[1:]), dtype=v.dtype)
            full[at] = v
            out[k] = full
        return out

    x, y = spread(a, ia), spread(b, ib)
    out = {k: x[k] + y[k] for k in GROUP_STATS}
    n = out["n"]
    safe = np.where(n > 0, n, 1)
    delta = y["avg_mean"] - x["avg_mean"]
    out["avg_mean"] = x["avg_mean"] + delta * y["n"] / safe
    out["avg_m2"] = x["avg_m2"] + y["avg_m2"] + delta * delta * x["n"] * y["n"] / safe
    return out


def keep_count(n_rows: int, winsor: tuple[float, float]) -> int:
    """Extreme scores per judge and end that hold the winsorising quantiles of up to
    ``n_rows`` scores (``np.quantile``'s linear rule reads two neighbouring order
    statistics)."""
    reach = max(float(winsor[0]), 1.0 - float(winsor[1]))
    return int(np.floor((n_rows - 1) * reach)) + 3


def exact_quantile(tail: np.ndarray, n: int, q: float, lowest: bool) -> float:
    """``np.quantile(x, q)`` of ``n`` values ``x`` from the kept extreme ``tail`` (a
    :meth:`Tail.union`: its ``keep`` lowest values are those of ``x`` when ``lowest``,
    else its ``keep`` highest; ``q`` within the winsorising share), with numpy's own
    arithmetic."""
    v = (n - 1) * q
    prev = int(np.floor(v))
    nxt = min(prev + 1, n - 1)
    if v >= n - 1:
        prev = nxt = n - 1
    shift = 0 if lowest else n - tail.size  # tail holds order statistics shift, shift+1, ...
    s = np.partition(tail, sorted({prev - shift, nxt - shift}))
    a, b = s[prev - shift], s[nxt - shift]
    g = v - np.floor(v)
    diff = b - a
    return float(b - diff * (1 - g)) if g >= 0.5 else float(a + diff * g)
