"""About how many more labels bring an anytime interval to a goal (``bacon status``,
``bacon sample --until``; :mod:`bacon_bayes.study.settled` asks the questions): the
projection the module docstring of :mod:`~bacon_bayes.study.settled` describes, for one
row (:func:`labels_needed`) and for the pairs of groups (:func:`pair_needs`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from bacon_bayes.estimate import anytime
from bacon_bayes.estimate.core import RANGE_LEVEL, variance_range

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.results import EstimateTable

__all__ = ["labels_needed", "levels", "needed_range", "pair_needs", "separate_needs"]

#: Candidate totals (geometric, from ``n + 1`` to the cap) on which ``c(n + m)`` is computed.
CANDIDATES = 24


def levels(note: dict[str, Any]) -> np.ndarray:
    """Each row's pointwise level (recorded; in older notes, from the sequential critical
    value and widening)."""
    if "level" in note:
        return np.atleast_1d(np.asarray(note["level"], float))
    z = np.atleast_1d(np.asarray(note["critical_value"], float))
    z = z / np.atleast_1d(np.asarray(note["widening"], float))
    return 2.0 * stats.norm.sf(z)


def labels_needed(
    looks: np.ndarray,
    info: np.ndarray,
    levels: np.ndarray,
    half: np.ndarray,
    target: np.ndarray,
    *,
    grow: Callable[[float], np.ndarray],
    max_labels: int | None,
    cap: float,
    df: np.ndarray | None = None,
    cosines: np.ndarray | None = None,
) -> np.ndarray:
    """About how many more labels bring each row's anytime half-width to its target.

    Parameters
    ----------
    looks : array, shape (K,)
        The pool's labels at the looks so far.
    info : array, shape (R, K)
        Each row's information at the looks.
    levels : array, shape (R,)
        Each row's pointwise level.
    half, target : array, shape (R,)
        The anytime half-width now, and the one wanted.
    grow : callable
        Each row's information (shape (R,)) when the pool has ``total`` labels.
    max_labels : int, optional
        Alpha-spending's maximum (None: the confidence sequence).
    cap : float
        The most labels that may still come: the pool's unlabeled items (a count past
        ``max_labels`` is the projection itself, its boundary spending what is left at
        that look; the caller says it is past the budget).
    df : array, shape (R,), optional
        Each row's Student-t df now (NaN: none; :func:`~bacon_bayes.estimate.anytime.
        studentised`), taken to grow with the labels: a row's critical value falls from
        its own at few df toward the normal boundary's. Kept at the few df of a small
        pilot (10 labels a group, df 9: 6.8 where the normal boundary was 4.0), it
        asked 3-4 times the labels that settled a sign (TriviaQA: 1,406 where 400-500
        did).
    cosines : array, shape (K - 1,), optional
        Alpha-spending: the adjacent looks' cosines the intervals' boundary is on (the
        looks' own correlation, ``details["anytime"]["cosines"]``,
        :func:`~bacon_bayes.estimate.anytime.correlated_information`); the look to come is
        assumed to meet the latest as the latest met the one before (the last cosine
        again: the surrogate refitted as much once more). Without, or all 1: the
        canonical correlation. Only the critical values read them; the width narrows with
        the information itself.

    Returns
    -------
    ndarray, shape (R,)
        0 where already met, ``inf`` where not within ``cap`` (or no information).
    """
    looks = np.asarray(looks, float)
    info = np.atleast_2d(np.asarray(info, float))
    half, target = np.asarray(half, float), np.asarray(target, float)
    n = float(looks[-1])
    out = np.where(half <= target, 0.0, np.inf)
    todo = (out > 0) & np.isfinite(half) & (target > 0) & np.isfinite(info[:, -1])
    if cap < 1 or not todo.any():
        return out
    times = anytime.spending_times(looks, max_labels)
    dfs = np.full(half.shape, np.nan) if df is None else np.asarray(df, float)
    dfs = dfs[todo]

    def scale(c: np.ndarray, total: float, rows: np.ndarray) -> np.ndarray:  # own t scale
        return anytime.studentised(c, dfs[rows] * total / n)

    own = times is not None and cosines is not None and np.size(cosines) > 0
    cos = np.asarray(cosines if own else [], float)

    def boundary(grown: np.ndarray, more: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
        """The critical values at the last look of ``grown`` (the ``rows`` to do), on the
        looks' own correlation where known (the next look's cosine: the last one again)."""
        if own:
            steps = cos if grown.shape[1] == cos.size + 1 else np.append(cos, cos[-1])
            grown = anytime.correlated_information(grown, steps)
        return anytime.sequential_critical_values(grown, levels[todo][rows], times=more)

    every_row = np.arange(int(todo.sum()))
    now = scale(boundary(info[todo], times, every_row), n, every_row)
    base, h, goal = info[todo, -1], half[todo], target[todo]

    def shrink(total: float) -> np.ndarray:  # sqrt(I_now / I_total), 0 once exact
        with np.errstate(divide="ignore"):
            return np.sqrt(base / np.asarray(grow(total), float)[todo])

    def ratio_at(total: float, rows: np.ndarray) -> np.ndarray:
        """c(total) / c(n) of the ``rows`` (of the rows to do), one more look at ``total``
        labels; past ``max_labels`` the look spends what is left, as an overrun does."""
        grown = np.column_stack([info[todo][rows], np.asarray(grow(total), float)[todo][rows]])
        more = None
        if max_labels is not None:
            more = np.minimum(np.append(looks, total) / float(max_labels), 1.0)
        c = boundary(grown, more, rows)
        return np.where(c == 0, 0.0, scale(c, total, rows) / now[rows])

    totals = np.geomspace(n + 1, n + cap, CANDIDATES)
    if max_labels is not None and n < max_labels < n + cap:  # the budget's own look
        totals = np.append(totals, max_labels)
    totals = np.unique(np.round(totals))
    ratio = np.column_stack([ratio_at(total, every_row) for total in totals])  # c(total) / c(n)
    widths = h[:, None] * np.column_stack([shrink(t) for t in totals]) * ratio
    ok = widths <= goal[:, None]
    need = np.full(base.size, np.inf)
    for r in np.flatnonzero(ok.any(axis=1)):
        j = int(ok[r].argmax())
        # between two candidates, the critical value at each count tried (the larger of
        # the two candidates' put a goal met between the last two at the cap: "about 240
        # more labels" wherever 219-240 were needed, the budget left)
        lo, hi = (n if j == 0 else totals[j - 1]), totals[j]
        while hi - lo > 1:  # the width falls with the labels
            mid = math.floor(0.5 * (lo + hi))
            width = h[r] * shrink(mid)[r] * ratio_at(mid, np.array([r]))[0]
            lo, hi = (mid, hi) if width > goal[r] else (lo, mid)
        need[r] = hi - n
    out[todo] = need
    return out


def needed_range(
    needed: Callable[[np.ndarray], np.ndarray],
    half: np.ndarray,
    df: np.ndarray,
    level: float = RANGE_LEVEL,
) -> tuple[np.ndarray, np.ndarray]:
    """The count ``needed(half)`` (:func:`labels_needed` of the rows' half-widths) at the
    ends of each row's ``level`` range of its residual variance: the chi-square interval
    on the row's df (:func:`~bacon_bayes.estimate.core.variance_range`), the half-width
    scaled by its square root, the critical value read at the row's own df as before;
    low to high (the count itself where ``df`` is NaN). The count holds today's variance
    as if known; early on it rests on few labels, and this is the spread its error alone
    gives the count.
    """
    half = np.asarray(half, float)
    low, high = (
        needed(half * np.sqrt(f))
        for f in np.nan_to_num(variance_range(np.asarray(df, float), level), nan=1.0)
    )
    return low, high


def pair_needs(
    cal: Calibrator, means: EstimateTable, diffs: EstimateTable, max_labels: int | None, cap: float
) -> np.ndarray:
    from bacon_bayes import sequential
    from bacon_bayes.estimate.tables import Pairs

    note = diffs.details["anytime"]
    looks = np.asarray(note["labels_at_looks"], float)
    labels, n_items = sequential.group_counts(cal, means.names, items=True)
    pairs = Pairs.of(means).pairs
    info = sequential.group_information(cal, means.names)
    with np.errstate(divide="ignore", invalid="ignore"):
        now = anytime.effective_labels(labels[:, -1], n_items)

    def grow(total: float) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):  # a group without labels
            later = anytime.effective_labels(group_labels(total), n_items)
            ratio = np.where(np.isinf(now), 1.0, np.where(now > 0, later / now, 0.0))
            # a pair of wholly labeled groups is known exactly (infinite information;
            # ``pair_information`` says 0 there, its fixed interval's convention)
            inv = 1.0 / (info[:, -1] * ratio)
            return np.array([1.0 / (inv[a] + inv[b]) for a, b in pairs])

    def group_labels(total: float) -> np.ndarray:
        """Each group's labels when the pool has ``total``: the labels to come spread as a
        uniform wave over the open items spreads them, so that labelling the whole pool
        labels every group wholly (scaled with the pool's labels, a group under-sampled so
        far never reached its items: "not within the pool's unlabeled items" for a sign
        that labelling the pool settles for certain); the labels so far scaled with the
        pool's where the target is the population (no items to run out of)."""
        if n_items is None:
            return labels[:, -1] * total / looks[-1]
        open_ = np.maximum(n_items - labels[:, -1], 0.0)
        share = open_ / open_.sum() if open_.sum() > 0 else np.zeros_like(open_)
        return labels[:, -1] + max(total - looks[-1], 0.0) * share

    # the estimate held, its interval's reach toward 0 must fall below |estimate| (a shrunk
    # interval need not be centred on the estimate: its centre may lie far from it)
    d = diffs.estimate
    reach = np.where(d < 0, diffs.ci_high - d, d - diffs.ci_low)
    return labels_needed(
        looks, anytime.pair_information(info, pairs), levels(note), reach, np.abs(d),
        grow=grow, max_labels=max_labels, cap=cap, df=_row_dfs(diffs),
    )  # fmt: skip


def separate_needs(
    cal: Calibrator,
    alpha: float,
    max_labels: int | None,
    cap: float,
    shrunk: np.ndarray,
    shrunk_pairs: list[tuple[str, str]],
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs' "more labels" while the intervals are shrunk (some group under
    :data:`~bacon_bayes.estimate.shrink.MIN_SEPARATE_LABELS` labels): once every labeled
    group has that many the pairs get their own intervals, so where the projected labels
    bring every group there the count is the separate intervals' projection (their few df
    growing with the labels); below, the shrunk one. Projected from the shrunk intervals,
    whose robust critical values carry a bias allowance the later ones do not, the count
    stayed 2-3 times what settled the sign (TriviaQA pilots of 100: 984 and 990 asked, the
    signs settled with lower bounds 0.094 and 0.137).

    Also returns each pair's own standard error (NaN where a group has no variance of its
    own): the shrunk table's is the shrunk estimate's, smaller by the shrinkage, so beside
    it a lead that is noise reads as more than one standard error (SummEval relevance at
    36 labels: M23 over M22 by 0.224, shrunk se 0.16, own 0.72)."""
    from bacon_bayes.estimate.shrink import MIN_SEPARATE_LABELS

    means = cal.estimate_groups(alpha, True, pooling="separate")
    diffs = cal.compare_groups(alpha, anytime=True, max_labels=max_labels, pooling="separate")
    if diffs.details["pairs"] != shrunk_pairs:
        return shrunk, np.full(len(shrunk), np.nan)
    own = pair_needs(cal, means, diffs, max_labels, cap)
    labels = np.asarray(means.n_labeled, float)
    fewest = float(labels[labels > 0].min()) if (labels > 0).any() else 0.0
    n = float(cal.pool_.n_labeled)
    grown = fewest * (n + own) / n >= MIN_SEPARATE_LABELS
    return np.where(grown & np.isfinite(own), own, shrunk), np.asarray(diffs.se, float)


def _row_dfs(table: EstimateTable) -> np.ndarray:
    """Each row's Student-t df, as :func:`~bacon_bayes.estimate.anytime.anytime_table`
    reads it (NaN: a shrunk table, or a row without one)."""
    dfs = table.details.get("df")
    if table.details.get("pooling") == "shrink" or not dfs:
        return np.full(len(table), np.nan)
    return np.array([np.nan if v is None else max(float(v), 1.0) for v in dfs])
