"""The scale of a column of labels or scores, inferred from its values, the codes that lie
outside it, and whether judges share the label's scale.

:func:`infer_scale` reads the values as integer levels (``1, 2, ..., 5``), as means of
``k`` integer ratings (multiples of ``1/k``: ``1.333`` and ``4.667`` are means of 3
ratings, so the ratings lie in ``1:5``) or as continuous values, and snaps the range to
the narrowest common rating scale (:data:`COMMON`) that the values cover at least half
of; it says how (:attr:`Scale.how`). :func:`sentinel_codes` finds failure codes (``-1``,
``0``, ``99``, ``999``...) outside the scale of a judge's other values.
:func:`naive_left_out` says why the raw judge average is no baseline for a label.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from bacon_bayes.pool import EvalPool, OutcomeSpec

__all__ = [
    "CODES",
    "COMMON",
    "ERROR_NAME",
    "Scale",
    "error_scale",
    "falls_with",
    "far_labels",
    "guess_outcome",
    "infer_scale",
    "label_codes",
    "listed_codes",
    "naive_left_out",
    "open_scale",
    "scale_args",
    "sentinel_codes",
    "wider_levels",
]

#: rating scales a range is snapped to (the narrowest holding the values, when they
#: cover at least half of it)
COMMON: tuple[tuple[int, int], ...] = (
    (0, 1),
    (1, 3),
    (1, 5),
    (0, 5),
    (1, 7),
    (1, 10),
    (0, 10),
    (0, 100),
)
#: values judges write for a failure (flagged only outside the scale of the other values)
CODES: tuple[float, ...] = (-1.0, 0.0, 99.0, 999.0, 9999.0, -99.0, -999.0)
#: how many times the median level's count a code next to the scale must have to count
SPIKE = 3
#: rare negative values count as codes only when this many distinct values at most, each
#: a whole number or repeated (``-2``, ``-0.5`` twice): many distinct continuous ones are
#: a metric's real scores below 0 (WMT22's KG-BERTScore), not failures
NEGATIVE_CODES = 5
#: largest number of ratings a mean is looked for over
MAX_RATINGS = 6
#: an error score (0 = no error, penalties on one side): at least this share of the
#: values, and :data:`ERROR_AT_ZERO_MIN` of them, at 0, and none across it
ERROR_AT_ZERO = 0.1
ERROR_AT_ZERO_MIN = 5
#: a 0 below levels from 1 starts a count (of errors), no failure code, when it is the
#: commonest value or more than this share, and 1 the others' commonest (:func:`_count_start`)
COUNT_ZERO = 0.25


@dataclass(frozen=True)
class Scale:
    """A scale ``low:high`` and how it was inferred.

    Attributes
    ----------
    low, high : float
        The ends of the scale.
    how : str
        How it was inferred, in words (e.g. ``"integer levels 1-5"``).
    ratings : int
        1 for integer levels, ``k`` for means of ``k`` integer ratings, 0 for
        continuous values.
    evident : bool
        Whether the values show the scale (False: the levels' range, on no common scale,
        which may be narrower than the scale).
    """

    low: float
    high: float
    how: str
    ratings: int = 1
    evident: bool = True

    @property
    def text(self) -> str:
        """``LOW:HIGH`` as ``--scale`` takes it."""
        return f"{self.low:g}:{self.high:g}"

    def holds(self, values: np.ndarray) -> bool:
        """Whether every finite value lies on the scale."""
        v = np.asarray(values, dtype=float)
        v = v[np.isfinite(v)]
        return bool(((v >= self.low - 1e-9) & (v <= self.high + 1e-9)).all())

    def covers(self, other: Scale | None) -> bool:
        """Whether ``other`` lies within this scale and spans at least half of it (a
        1-5 judge that never says 5 is on a 1-5 label's scale; a 0-1 metric is not)."""
        if other is None:
            return False
        inside = other.low >= self.low - 1e-9 and other.high <= self.high + 1e-9
        return inside and other.high - other.low >= 0.5 * (self.high - self.low)

    def same(self, other: Scale | None) -> bool:
        """Whether ``other`` has the same ends."""
        return other is not None and np.allclose([self.low, self.high], [other.low, other.high])


def _ratings(v: np.ndarray) -> int:
    """The fewest ``k`` (up to :data:`MAX_RATINGS`) making every value a multiple of
    ``1/k`` (within printing precision), 0 when none does."""
    for k in range(1, MAX_RATINGS + 1):
        r = v * k
        if np.abs(r - np.round(r)).max() <= 0.002 * k + 1e-9:
            return k
    return 0


def _snap(lo: float, hi: float) -> tuple[int, int] | None:
    """The narrowest common scale holding ``[lo, hi]`` that the range covers at least
    half of (None when there is none)."""
    fits = [c for c in COMMON if c[0] <= lo + 1e-9 and hi <= c[1] + 1e-9]
    if not fits:
        return None
    c = min(fits, key=lambda c: c[1] - c[0])
    return c if hi - lo >= 0.5 * (c[1] - c[0]) else None


def _span(lo: float, hi: float) -> str:
    return f"{lo:g}-{hi:g}"


def infer_scale(values: np.ndarray | pd.Series) -> Scale | None:
    """The scale of ``values`` (NaN ignored), or None when none is evident.

    Parameters
    ----------
    values : array-like of float
        Labels or scores.

    Returns
    -------
    Scale or None
        Integer levels: their range when it starts at 0 or 1 and every level up to 10
        is seen, else the common scale they cover at least half of, else the levels'
        range (not :attr:`~Scale.evident`). Means of ``k`` ratings: the ratings' range
        (the means' floor and ceiling), snapped likewise. Continuous values: the common
        scale they cover at least half of (e.g. ``0:1``), else None. None also for fewer
        than two distinct values.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0 or np.unique(v).size < 2:
        return None
    lo, hi = float(v.min()), float(v.max())
    k = _ratings(v)
    if k == 1:
        seen = f"integer levels {_span(lo, hi)}"
        levels = np.unique(v)
        if lo in (0.0, 1.0) and hi <= 10 and levels.size == hi - lo + 1:
            return Scale(lo, hi, f"{seen}, every level seen", 1)
        snap = _snap(lo, hi)
        if snap is None:
            return Scale(lo, hi, f"{seen} seen, on no common scale", 1, evident=False)
        if (lo, hi) == snap:
            return Scale(lo, hi, seen, 1)
        return Scale(*map(float, snap), f"{seen} seen, on the {_span(*snap)} scale", 1)
    if k > 1:
        rlo, rhi = float(np.floor(lo + 1e-9)), float(np.ceil(hi - 1e-9))
        snap = _snap(rlo, rhi) or (rlo, rhi)
        how = (
            f"means of {k} integer ratings (multiples of 1/{k}, {lo:.4g} to {hi:.4g}): "
            f"ratings on {_span(*snap)}"
        )
        return Scale(float(snap[0]), float(snap[1]), how, k)
    snap = _snap(lo, hi)
    if snap is None:
        return None
    how = f"continuous values from {lo:.4g} to {hi:.4g}, within {_span(*snap)}"
    return Scale(float(snap[0]), float(snap[1]), how, 0)


#: labels far outside the others (typos: 77 among 1-10 labels) are looked for beyond
#: these quantiles of the labels, among at least :data:`FAR_MIN` of them
FAR_SHARE = 0.02
FAR_MIN = 20
#: and beyond its ends by more than this share of its width
FAR_BEYOND = 0.01


def far_outside(values: np.ndarray | pd.Series) -> tuple[np.ndarray, Scale | None]:
    """Values far outside the scale of the others: typos, such as 77 among 1-10 labels
    or 250 and -5 among 0-100 ones.

    The others' scale is :func:`infer_scale` of the values between the
    :data:`FAR_SHARE` and ``1 - FAR_SHARE`` quantiles, when it is a common one
    (:data:`COMMON`; counts of 0-8 errors have no such bound) and one value lies beyond
    it by more than half its width (250 on 0:100, 77 on 1:10): the tails of labels with
    no bound (5.6 among values around 3) often lie a little past a common scale they
    happen to fit. Then every value outside it is far, but for ratings continuing it one
    step at a time (a rare 5 after levels 1-4), values within :data:`FAR_BEYOND` of its
    width (1.0005 on 0:1, a rounding), and codes for 'not rated' on several rows
    (:func:`sentinel_codes`: ``99`` three times), left to :func:`label_codes` (one
    ``-5`` is a typo).

    Parameters
    ----------
    values : array-like of float
        Labels (NaN where empty).

    Returns
    -------
    far : ndarray of bool
        Which values lie far outside (none among fewer than :data:`FAR_MIN` values).
    scale : Scale or None
        The scale of the other values when some are far outside it, else None.
    """
    v = np.asarray(values, dtype=float)
    none = np.zeros(v.shape, dtype=bool)
    f = v[np.isfinite(v)]
    if f.size < FAR_MIN:
        return none, None
    lo, hi = np.quantile(f, [FAR_SHARE, 1 - FAR_SHARE])
    scale = infer_scale(f[(f >= lo) & (f <= hi)])
    if scale is None or (scale.low, scale.high) not in COMMON:  # 0-8 errors: no bound
        return none, None
    low, high = scale.low, scale.high

    def seen(x: float) -> bool:
        return bool(np.isclose(f, x, rtol=0, atol=1e-3).any())

    while scale.ratings and seen(high) and (up := f[(f > high) & (f <= high + 1)]).size:
        high = float(up.max())  # the next rating seen: the scale goes on
    while scale.ratings and seen(low) and (down := f[(f < low) & (f >= low - 1)]).size:
        low = float(down.min())
    margin = FAR_BEYOND * (scale.high - scale.low)
    low, high = low - margin, high + margin
    codes = np.isin(v, [c for c, n in sentinel_codes(f)[0].items() if n > 1])
    far = np.isfinite(v) & ((v < low) | (v > high)) & ~codes
    width = scale.high - scale.low
    if not (np.abs(v[far] - np.clip(v[far], low, high)) > width / 2).any():
        return none, None  # tails past a scale they happen to fit: no bound
    clean = infer_scale(v[~far & ~codes]) if far.any() else None
    if clean is None or not clean.evident:
        return none, None
    far &= (v < clean.low - 1e-9) | (v > clean.high + 1e-9)
    return far, clean if far.any() else None


def far_labels(
    values: np.ndarray, name: str, place: Callable[[int], str]
) -> tuple[str, Scale | None]:
    """What to say of labels far outside the scale of the others (:func:`far_outside`):
    how many, the scale, each label and where it is, as a question; the caller adds
    the fix. ``("", None)`` when there are none.

    Parameters
    ----------
    values, name, place
        The labels (NaN where empty), the label column and where a row is, as
        :func:`label_codes` takes them.

    Returns
    -------
    said : str
        The labels far outside, or ``""``.
    scale : Scale or None
        The scale of the others.
    """
    v = np.asarray(values, dtype=float)
    far, scale = far_outside(v)
    if scale is None:
        return "", None
    rows = np.flatnonzero(far)
    shown = ", ".join(f"{v[k]:g} at {place(int(k))}" for k in rows[:5])
    shown += f" and {rows.size - 5} more" if rows.size > 5 else ""
    n = int(np.isfinite(v).sum()) - rows.size
    return (
        f"label {name!r} has {rows.size} value{'s' if rows.size > 1 else ''} far outside the "
        f"{scale.text} scale of its other {n} labels ({scale.how}): {shown}; typos?"
    ), scale


def error_scale(values: np.ndarray | pd.Series) -> Scale | None:
    """The one-sided scale of an error score: values all <= 0 (or all >= 0) with a mass
    at 0 (no error), like MQM (0 best, -25 or lower for a bad segment) or error counts.

    The bound 0 is known; the other end is not: the worst value seen need not be the
    worst possible, and an interval clipped at it could cut off the truth, while a bound
    too wide only leaves an interval as it is. So the other end is infinite.

    Parameters
    ----------
    values : array-like of float
        Labels (NaN ignored).

    Returns
    -------
    Scale or None
        ``-inf:0`` or ``0:inf``; None when the values are not of that kind.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    zero = int((v == 0).sum())
    if zero < ERROR_AT_ZERO_MIN or zero < ERROR_AT_ZERO * v.size:
        return None
    below = bool((v < 0).any())
    if below == bool((v > 0).any()):
        return None  # both sides (or 0 only): no bound at 0
    worst = float(v.min() if below else v.max())
    side = "<= 0" if below else ">= 0"
    how = (
        f"an error score (0 = no error): every value {side}, {zero / v.size:.0%} at 0; "
        f"bounded at 0, not at {worst:g}, the worst seen, which need not be the worst "
        "possible (a bound too wide only leaves intervals as they are, one too narrow "
        "would cut them wrongly)" + ("" if below else "; --outcome nonnegative fits it a hurdle")
    )
    return Scale(-np.inf, 0.0, how, 0) if below else Scale(0.0, np.inf, how, 0)


#: a label's name that reads as an error score (lower is better): MQM, error, loss...
ERROR_NAME = re.compile(r"mqm|error|loss|penalt|mistake|(^|[^a-z])(wer|ter|cer)([^a-z]|$)", re.I)
#: an error score's values reach the far end of a common scale when they come this close
#: to it (as a share of its width): human 0-100 ratings fill it, MQM penalties stop short
REACHED = 0.9


def open_scale(values: np.ndarray | pd.Series, scale: Scale | None, name: str = "") -> Scale | None:
    """The label's scale as the commands propose it: ``scale`` (:func:`infer_scale`'s,
    or doctor's), or the open one of an error score (:func:`error_scale`, ``0:inf`` or
    ``-inf:0``) where ``scale`` says nothing of a bound: none evident, or a common scale
    that a one-sided score with a mass at 0 happens to fit (MQM penalties of 0-56 within
    0-100), when ``name`` reads as an error (:data:`ERROR_NAME`: ``mqm_penalty``,
    ``errors``) or the values stop short of the scale's far end (:data:`REACHED`; but for
    the levels of a rating scale up to 10, where a pilot may not have reached the top).
    Kept: a scale the name states (``score_0_100``, ``pct``), or one the values fill.

    Parameters
    ----------
    values : array-like of float
        The labels (NaN where empty).
    scale : Scale or None
        The scale inferred from them.
    name : str
        The label column's name.

    Returns
    -------
    Scale or None
    """
    err = error_scale(values)
    if err is None or scale is None or not scale.evident:
        return err or scale
    numbers = re.findall(r"\d+(?:\.\d+)?", name)
    percent = scale.high == 100 and re.search(r"pct|percent|%", name, re.I)
    if f"{scale.high:g}" in numbers or percent:  # the name states the scale
        return scale
    v = np.asarray(values, dtype=float)
    worst = float(np.nanmax(np.abs(v)))
    far = max(abs(scale.low), abs(scale.high))
    rating = scale.ratings > 0 and far <= 10  # levels of a rating scale, 0-7 of 0-10
    return err if ERROR_NAME.search(name) or (worst < REACHED * far and not rating) else scale


def scale_args(scale: Scale) -> list[str]:
    """``--scale`` and the scale as command-line arguments: one, ``--scale=-inf:0``, when
    the scale starts with ``-`` (argparse would take ``-inf:0`` for an option)."""
    return [f"--scale={scale.text}"] if scale.text.startswith("-") else ["--scale", scale.text]


def sentinel_codes(values: np.ndarray | pd.Series) -> tuple[dict[float, int], Scale | None]:
    """Failure codes among a judge's scores: values of :data:`CODES` (and rare negative
    values that look like codes, under 5% of the scores: :func:`_negative_codes`)
    outside the scale of the other values. A code next
    to that scale (``0`` below levels ``1..10``: maybe a level of a ``0-10`` scale) counts
    only as a spike, at least :data:`SPIKE` times as frequent as the median level, and
    not as the start of a count (:func:`_count_start`: its scale then starts at 0).

    Parameters
    ----------
    values : array-like of float
        One judge's scores (NaN where it gave none).

    Returns
    -------
    codes : dict
        Code -> how many scores have it (empty when there is none, or the other values
        show no scale).
    scale : Scale or None
        The scale of the other values.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return {}, None
    suspect = np.isin(v, CODES) | _negative_codes(v)
    rest = v[~suspect]
    scale = infer_scale(rest)
    if scale is None:
        return {}, None
    out = v[suspect & ((v < scale.low) | (v > scale.high))]
    codes, counts = np.unique(out, return_counts=True)
    levels = np.unique(rest, return_counts=True)[1]
    if scale.ratings == 1 and not scale.evident:
        # integer levels on no common scale (an MQM-like -25..-2): codes continuing them
        # one step at a time (-1, then 0) are its top (or bottom) levels, not failures
        low, high, kept = scale.low, scale.high, set(codes.tolist())
        while high + 1 in kept or low - 1 in kept:
            step = high + 1 if high + 1 in kept else low - 1
            kept.discard(step)
            low, high = min(low, step), max(high, step)
        if (low, high) != (scale.low, scale.high):
            rest = v[~suspect | ((v >= low) & (v <= high))]
            scale = infer_scale(rest) or scale
            keep = np.isin(codes, sorted(kept))
            codes, counts = codes[keep], counts[keep]
            levels = np.unique(rest, return_counts=True)[1]
    found, start = {}, False
    for c, n in zip(codes, counts, strict=True):
        next_to = scale.ratings >= 1 and min(abs(c - scale.low), abs(c - scale.high)) <= 1
        if next_to and _count_start(float(c), int(n), v, rest):
            start = True  # its 0 joins its levels: one scale (0:6) said everywhere
        elif not next_to or n >= SPIKE * np.median(levels):
            found[float(c)] = int(n)
    if start:
        scale = infer_scale(np.r_[rest, v[v == 0]]) or scale
    return found, scale


def _count_start(code: float, n: int, v: np.ndarray, rest: np.ndarray) -> bool:
    """Whether ``code`` (``n`` of ``v``; ``rest``: the values no suspect code) starts a
    count (of errors, 0 = best) rather than being a failure code (see :data:`COUNT_ZERO`):
    the counts fall away from 0. A label's 0 on every unrated row (the labels peaking
    inside the scale) stays a code."""
    if code != 0 or rest.size == 0 or float(rest.min()) != 1.0:
        return False
    values, counts = np.unique(rest, return_counts=True)
    commonest = n >= counts.max() or n > COUNT_ZERO * v.size
    return bool(commonest and values[np.argmax(counts)] == 1.0)


def listed_codes(codes: dict[float, int], noun: str, shown: int = 5) -> str:
    """Codes and their counts, the most frequent first, as ``1017 scores of 0, 3 scores
    of 99`` (``noun``: ``score``), the first ``shown`` of them and how many more."""
    top = sorted(codes.items(), key=lambda cn: (-cn[1], cn[0]))[:shown]
    listed = ", ".join(f"{n} {noun}{'s' if n > 1 else ''} of {c:g}" for c, n in top)
    if len(codes) > shown:
        rest = len(codes) - shown
        listed += f" and {rest} more value{'s' if rest > 1 else ''}"
    return listed


def label_codes(values: np.ndarray, name: str, place: Callable[[int], str]) -> str:
    """What to say of codes for "not rated" in a label column (``0`` on every unrated
    row, ``-1``, ``99``...): :func:`sentinel_codes` of the labels, ``""`` when none.

    Parameters
    ----------
    values : ndarray
        The labels, one per row (NaN where empty).
    name : str
        The label column.
    place : callable
        A row's position (from 0) -> where it is, for the message (``line 3``).

    Returns
    -------
    str
        The codes, where the first is, the scale of the other labels and the fix.
    """
    v = np.asarray(values, dtype=float)
    codes, scale = sentinel_codes(v)
    far = v[far_outside(v)[0]]  # typos, said by far_labels
    codes = {c: n for c, n in codes.items() if c not in far}
    if not codes or scale is None:
        return ""
    first = int(np.flatnonzero(np.isin(v, list(codes)))[0])
    n = int(np.isfinite(v).sum())
    return (
        f"label {name!r} has {listed_codes(codes, 'label')} (of its {n} labels; the first: "
        f"{place(first)}), outside the {scale.text} scale of the others "
        f"({scale.how}): a code for 'not rated'? They enter the estimates as labels; if so, "
        "blank those cells (empty = not labeled) and run again"
    )


def _negative_codes(v: np.ndarray) -> np.ndarray:
    """Which of the finite values ``v`` are rare negative values that look like codes:
    under 5% of ``v``, at most :data:`NEGATIVE_CODES` distinct, each a whole number or
    repeated. None of them otherwise (real scores below 0 are many distinct values)."""
    negative = v < 0
    if not negative.any() or negative.mean() >= 0.05:
        return np.zeros(v.shape, dtype=bool)
    values, counts = np.unique(v[negative], return_counts=True)
    codes = values.size <= NEGATIVE_CODES and bool(((counts > 1) | (values % 1 == 0)).all())
    return negative if codes else np.zeros(v.shape, dtype=bool)


def naive_left_out(
    labels: np.ndarray,
    judges: pd.DataFrame,
    bounds: tuple[float, float] | None = None,
    rows: str = "",
) -> str:
    """Why the raw judge average is no baseline for the label ("" when it is one): every
    judge must be on the label's scale (every score inside it, and its inferred scale
    within it and spanning at least half of it: :meth:`Scale.covers`) and must not fall
    as the label rises (:func:`falls_with`: a rank with 1 = best averages against it).

    Parameters
    ----------
    labels : ndarray
        The labels, one per row of ``judges`` (NaN where unlabeled): a judge that falls
        as they rise (:func:`falls_with`) is no baseline either. (Labels of another
        length: only their scale is read.)
    judges : DataFrame
        One column per judge (its mean score per item).
    bounds : tuple of float, optional
        The label's range when given (``--scale`` or its levels); inferred from the
        labels otherwise.

    Returns
    -------
    str
        The reason, or ``""``.
    """
    label = None
    if bounds is not None and np.isfinite(bounds).all():
        label = Scale(float(bounds[0]), float(bounds[1]), "the label's range")
    elif bounds is not None and np.isfinite(bounds).any():  # one end open (-inf:0)
        return (
            f"the label's scale is open at one end ({bounds[0]:g}:{bounds[1]:g}): the raw "
            "judge average is not comparable to it"
        )
    else:
        label = infer_scale(labels)
    if label is None:
        return (
            "no evident scale for the label (continuous values): the raw judge average is "
            "not comparable to it"
        )
    off, falls = [], []
    for j in judges.columns:
        x = judges[j].to_numpy(dtype=float)
        own = infer_scale(x)
        if not label.holds(x) or not label.covers(own):
            what = "no evident scale" if own is None else own.text
            f = x[np.isfinite(x)]
            outside = int(((f < label.low - 1e-9) | (f > label.high + 1e-9)).sum())
            count = f"; {outside} scores outside{rows and ' on the ' + rows})"
            off.append(f"{j} ({what}" + (count if outside else ")"))
        elif len(labels) == len(x) and (rho := falls_with(labels, x)) is not None:
            falls.append(f"{j} (Spearman {rho:.2f})")
    said = []
    if off:
        shown = ", ".join(off[:4]) + (f" and {len(off) - 4} more" if len(off) > 4 else "")
        read = (  # the labels' own range, on no common scale: some level has no label?
            ""
            if label.evident
            else f" (the labels seen: {label.how}; if the label's scale is wider, "
            "--scale LOW:HIGH gives it)"
        )
        said.append(f"not every judge is on the label's scale {label.text}{read}: {shown}")
    if falls:
        said.append(
            f"{', '.join(falls)} {'falls' if len(falls) == 1 else 'fall'} as the label rises, "
            "a reversed scale (1 = best)? the calibrated estimate handles it, the raw judge "
            "average does not"
        )
    return "; ".join(said)


#: a judge falls with the label when its Spearman correlation's upper 95% bound (Fisher
#: z) is below 0, on at least this many labeled items
FALLS_MIN_N = 10


def falls_with(labels: np.ndarray, x: np.ndarray) -> float | None:
    """The Spearman correlation of a judge's scores ``x`` with ``labels`` (one per item,
    NaN where unlabeled) when the judge falls steadily as the label rises (its 95% upper
    bound below 0, Fisher z with the Bonett-Wright variance 1.06 / (n - 3)): a reversed
    scale (a rank, 1 = best; an error count) or a reversed label; None otherwise."""
    both = np.isfinite(labels) & np.isfinite(x)
    n = int(both.sum())
    if n < FALLS_MIN_N:
        return None
    a, b = pd.Series(labels[both]).rank(), pd.Series(x[both]).rank()
    if a.nunique() < 2 or b.nunique() < 2:
        return None
    rho = float(np.corrcoef(a, b)[0, 1])
    upper = np.arctanh(np.clip(rho, -0.999999, 0.999999)) + 1.96 * np.sqrt(1.06 / (n - 3))
    return rho if upper < 0 else None


def is_binary(values: np.ndarray) -> bool:
    """Whether ``values`` are 0 and 1 only, both seen (NaN ignored): a binary label."""
    v = np.unique(values[np.isfinite(values)])
    return bool(v.size == 2 and (v == [0.0, 1.0]).all())


def guess_outcome(df: pd.DataFrame, label: str) -> str:
    """The label's type when ``--outcome`` is not given: ``categorical`` for labels of 0
    and 1 only (both seen), else ``continuous``."""
    if label not in df.columns or not pd.api.types.is_numeric_dtype(df[label]):
        return "continuous"
    seen = df[label].dropna().to_numpy(dtype=float)
    return "categorical" if is_binary(seen) else "continuous"


#: the start of the pool's note of levels inferred from the labels (their list formatted in)
INFERRED_LEVELS = "levels {} inferred from the labels"


def settled_outcome(recorded: str, frame: pd.DataFrame, label: str) -> str:
    """The outcome of a study's label recorded as ``recorded`` once its labels (``frame``'s
    column ``label``) are in: ``continuous``, what a study records before any label when
    no --outcome is given, read as :func:`guess_outcome` reads a table's (categorical for
    labels of 0 and 1 only); any other as recorded. The one rule ``bacon estimate`` on a
    study and the study's ``study.toml`` follow."""
    return guess_outcome(frame, label) if recorded == "continuous" else recorded


def binary_note(label: str) -> str:
    """What to say where :func:`guess_outcome` read a label as binary unasked."""
    return (
        f"{label!r} takes only 0 and 1: estimated as a binary (categorical) label, levels "
        "0,1 (--outcome categorical --levels 0,1 says so; --outcome continuous estimates "
        "it as a number, with the ridge model)"
    )


def with_binary_note(notes: Sequence[str], label: str) -> tuple[str, ...]:
    """``notes`` (a pool's) with :func:`binary_note` in place of the note of the levels 0,1
    inferred from the labels: one note for one fact (both were printed, overlapping)."""
    levels = INFERRED_LEVELS.format("0,1")
    return (*(n for n in notes if not n.startswith(levels)), binary_note(label))


def label_bounds(outcome: OutcomeSpec, scale: tuple[float, float] | None) -> tuple[float, float]:
    """The label's range: the outcome's own (levels, a non-negative zero), narrowed to
    ``scale`` when given."""
    lo, hi = outcome.bounds
    if scale is not None:
        lo, hi = max(lo, float(scale[0])), min(hi, float(scale[1]))
    return lo, hi


def labels_outside(pool: EvalPool, low: float, high: float) -> str | None:
    """Where the labels of ``pool`` leave ``[low, high]``, in words (the first such row
    and how many), or None when all lie within it."""
    y = pool.y
    out = np.flatnonzero(pool.labeled & ((y < low) | (y > high)))
    if not out.size:
        return None
    item = pool.ids[out[0]]
    item = item.item() if isinstance(item, np.generic) else item  # 3, not np.int64(3)
    return (
        f"label {pool.label_name!r} is {y[out[0]]:g} for item {item!r}, outside the scale "
        f"{low:g}:{high:g} ({out.size} labels outside)"
    )


def wider_levels(levels: Sequence[float], judges: Sequence[np.ndarray]) -> tuple[float, ...] | None:
    """The whole-number levels of the judges' scale where it holds the labels' ``levels``
    (inferred from the labels seen) and more: some level has no label yet (helper W14:
    SummEval coherence labels of 4 and 5 only, judges on 1-5). ``judges``: each judge's
    scores. The scale is the one every judge on an evident scale of whole numbers (or
    means of them) of at most 11 levels shares (the others, e.g. a 0-1 metric, are not
    read); None where the levels are not whole numbers, no judge is on such a scale, the
    judges are on several, or on none wider than the levels."""
    lv = np.asarray(levels, dtype=float)
    if lv.size == 0 or not np.all(lv == np.round(lv)):
        return None
    ends = set()
    for scores in judges:
        own = infer_scale(scores)
        if own is not None and own.ratings >= 1 and own.evident and own.high - own.low <= 10:
            ends.add((own.low, own.high))
    if len(ends) != 1:
        return None
    low, high = ends.pop()
    if low > lv.min() or high < lv.max() or high - low + 1 <= lv.size:
        return None
    return tuple(float(v) for v in np.arange(low, high + 1))
