"""The first pass over a streamed pool: what the features and the baselines need from
every item, as statistics of chunks that merge in any order.

Per judge: the count and sum of its scores and its lowest and highest scores (as many
as the winsorising quantiles can reach), from which the exact quantiles, clipped means
and imputation values of :func:`bacon_bayes.features.build_features` follow; per group:
the item count, the sum of inclusion probabilities and the mean and sum of squared
deviations of the raw judge average (the naive baseline); and the labeled rows
themselves, which are few and are kept whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bacon_bayes.stream.source import Chunk

GROUP_STATS = ("n", "avg_mean", "avg_m2", "pi_sum", "pi_nan")


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
    def of(cls, chunk: Chunk) -> LabeledRows:
        lab = np.flatnonzero(~np.isnan(chunk.y))
        names = chunk.names
        return cls(
            chunk.rows[lab],
            chunk.y[lab],
            chunk.scores[lab],
            None if chunk.pi is None else chunk.pi[lab],
            None if chunk.codes is None or names is None else names[chunk.codes[lab]],
            None if chunk.items is None else chunk.items[lab],
        )

    def __len__(self) -> int:
        return int(self.rows.size)

    def merge(self, other: LabeledRows) -> LabeledRows:
        """Both sets of rows, in global row order."""

        def cat(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
            return None if a is None or b is None else np.concatenate([a, b])

        rows = np.concatenate([self.rows, other.rows])
        order = np.argsort(rows, kind="stable")
        parts = [
            cat(self.y, other.y),
            cat(self.scores, other.scores),
            cat(self.pi, other.pi),
            cat(self.groups, other.groups),
            cat(self.items, other.items),
        ]
        y, scores, pi, groups, items = (None if p is None else p[order] for p in parts)
        assert y is not None and scores is not None
        return LabeledRows(rows[order], y, scores, pi, groups, items)


def group_table(
    codes: np.ndarray | None, names: np.ndarray | None, n_rows: int, values: dict[str, np.ndarray]
) -> pd.DataFrame:
    """Sums of ``values`` (arrays over rows) per group name; one row ``""`` without groups.
    Groups that have no row in the chunk are left out."""
    if codes is None or names is None:
        codes, names = np.zeros(n_rows, dtype=np.intp), np.array([""])
    m = len(names)
    out = {k: np.bincount(codes, weights=v, minlength=m) for k, v in values.items()}
    frame = pd.DataFrame(out, index=pd.Index(names, name="group"))
    frame["n"] = np.bincount(codes, minlength=m)
    frame = frame[frame["n"] > 0]
    return frame.groupby(level=0, sort=False).sum() if frame.index.has_duplicates else frame


def _tail(values: np.ndarray, keep: int, lowest: bool, slack: float = 1.0) -> np.ndarray:
    """The ``keep`` lowest (or highest) of ``values``, in no particular order; with
    ``slack`` > 1 the values are left as they are until there are ``slack * keep`` of them
    (fewer partitions while merging)."""
    if values.size <= keep * slack:
        return values
    if lowest:
        return np.partition(values, keep - 1)[:keep]
    return np.partition(values, values.size - keep)[values.size - keep :]


@dataclass
class Scan:
    """Statistics of the first pass (see the module docstring); merge with :meth:`merge`.

    ``low[j]``/``high[j]`` hold at least the ``keep`` lowest/highest scores of judge ``j``
    (all of them when there are fewer), possibly more; :meth:`extremes` cuts them.
    """

    n_rows: int
    keep: int
    n_obs: np.ndarray
    total: np.ndarray
    low: list[np.ndarray]
    high: list[np.ndarray]
    groups: pd.DataFrame
    labeled: LabeledRows
    n_labeled: int = field(default=0)

    @classmethod
    def of(cls, chunk: Chunk, keep: int, *cuts: Scan | None) -> Scan:
        """Statistics of one chunk. ``keep``: how many extreme scores per judge and end to
        keep. ``cuts``: statistics of other rows; scores that cannot be among the extremes
        any more are skipped (same result, less sorting)."""
        scores = chunk.scores
        obs = ~np.isnan(scores)
        low, high = [], []
        full = [c for c in cuts if c is not None]
        for j in range(scores.shape[1]):
            col = scores[:, j]
            los = [c.low[j].max() for c in full if c.low[j].size >= keep]
            his = [c.high[j].min() for c in full if c.high[j].size >= keep]
            v = None if los and his else col[obs[:, j]]
            # NaN compares False: a cut also drops the missing scores
            vlo = col[col <= min(los)] if los else v
            vhi = col[col >= max(his)] if his else v
            assert vlo is not None and vhi is not None
            low.append(_tail(vlo, keep, True))
            high.append(_tail(vhi, keep, False))
        avg = np.sum(scores, axis=1, where=obs) / obs.sum(axis=1)
        labeled = LabeledRows.of(chunk)
        values = {"avg_sum": avg}
        if chunk.pi is not None:
            values["pi_sum"] = np.nan_to_num(chunk.pi)
            values["pi_nan"] = np.isnan(chunk.pi).astype(float)
        table = group_table(chunk.codes, chunk.names, chunk.rows.size, values)
        codes = np.zeros(chunk.rows.size, dtype=np.intp) if chunk.codes is None else chunk.codes
        mean_by_code = np.bincount(codes, weights=avg) / np.maximum(np.bincount(codes), 1)
        dev = avg - mean_by_code[codes]
        m2 = np.bincount(codes, weights=dev * dev, minlength=mean_by_code.size)
        names = np.array([""]) if chunk.names is None else chunk.names
        m2_by_name = pd.Series(m2, index=names).groupby(level=0, sort=False).sum()
        table["avg_mean"] = table.pop("avg_sum") / table["n"]
        table["avg_m2"] = m2_by_name.reindex(table.index).to_numpy()
        for stat in GROUP_STATS:
            if stat not in table:
                table[stat] = 0.0
        return cls(
            n_rows=int(chunk.rows.size),
            keep=keep,
            n_obs=obs.sum(axis=0),
            total=np.sum(scores, axis=0, where=obs),
            low=low,
            high=high,
            groups=table[list(GROUP_STATS)],
            labeled=labeled,
            n_labeled=len(labeled),
        )

    def extremes(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Exactly the ``keep`` lowest and highest scores of judge ``j`` (or all)."""
        return _tail(self.low[j], self.keep, True), _tail(self.high[j], self.keep, False)

    def merge(self, other: Scan) -> Scan:
        """The statistics of both parts (exact for counts, extremes and labeled rows;
        sums to floating-point summation order)."""

        def pairs(mine: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
            theirs = other.low if mine is self.low else other.high
            return list(zip(mine, theirs, strict=True))

        return Scan(
            n_rows=self.n_rows + other.n_rows,
            keep=self.keep,
            n_obs=self.n_obs + other.n_obs,
            total=self.total + other.total,
            low=[_tail(np.concatenate(ab), self.keep, True, 2.0) for ab in pairs(self.low)],
            high=[_tail(np.concatenate(ab), self.keep, False, 2.0) for ab in pairs(self.high)],
            groups=merge_groups(self.groups, other.groups),
            labeled=self.labeled.merge(other.labeled),
            n_labeled=self.n_labeled + other.n_labeled,
        )


def merge_groups(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Per-group statistics of two parts: counts and sums add, the judge average's mean
    and squared deviations combine by Chan's formula."""
    index = a.index.union(b.index, sort=False)
    x = a.reindex(index, fill_value=0.0)
    y = b.reindex(index, fill_value=0.0)
    n = x["n"] + y["n"]
    delta = y["avg_mean"] - x["avg_mean"]
    out = x + y
    safe = n.where(n > 0, 1)
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
    """``np.quantile(x, q)`` of ``n`` values ``x`` from the kept extreme ``tail`` (its
    lowest values when ``lowest``, else its highest), with numpy's own arithmetic."""
    s = np.sort(tail)
    v = (n - 1) * q
    prev = int(np.floor(v))
    nxt = min(prev + 1, n - 1)
    if v >= n - 1:
        prev = nxt = n - 1
    shift = 0 if lowest else n - s.size  # tail holds order statistics shift, shift+1, ...
    a, b = s[prev - shift], s[nxt - shift]
    g = v - np.floor(v)
    diff = b - a
    return float(b - diff * (1 - g)) if g >= 0.5 else float(a + diff * g)
