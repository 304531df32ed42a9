"""What is wrong with a judge's scores themselves: failure codes outside its scale,
infinite scores, and a score that is the same on every item of a group.

:func:`score_flags` checks every judge: sentinel codes (``-1``, ``0``, ``99``, ``999``...)
outside the scale of its other scores (:func:`bacon_bayes.scale.sentinel_codes`), 0s
below a scale from 1 that the other judges place among its levels (failures written 0,
:func:`zeros_text`), and groups (of at least :data:`MIN_CONSTANT_ITEMS` scored
items) on which it gives one score while it varies elsewhere: a reference-based metric
scoring its own reference system 1.0, say, which says nothing about that group's items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bacon_bayes.doctor.cells import doctor_again
from bacon_bayes.doctor.label import DENSE
from bacon_bayes.doctor.names import BLOCK_NAME, JUDGE_NAME, SCORE_NAME
from bacon_bayes.io import row_place
from bacon_bayes.order import natural_key
from bacon_bayes.scale import infer_scale, listed_codes, sentinel_codes

__all__ = [
    "MIN_CONSTANT_ITEMS",
    "ScoreFlag",
    "absent_groups",
    "codes_text",
    "judge_scales",
    "row_blocks",
    "score_flags",
    "timestamp_like",
    "zeros_text",
]

#: fewest scored items of a group for a constant score to be flagged
MIN_CONSTANT_ITEMS = 3
#: the most frequent failure codes named; more are counted
SHOWN_CODES = 5


#: seconds since 1970 of the years 2000 to 2100, the span of a timestamp's values
EPOCH_SECONDS = (9.46e8, 4.11e9)
#: a timestamp's units, each with its count in a second
EPOCH_UNITS = {"seconds": 1.0, "milliseconds": 1e3, "microseconds": 1e6, "nanoseconds": 1e9}


def timestamp_like(values: pd.Series) -> str | None:
    """What a numeric column whose every value is a time since 1970 (years 2000 to
    2100, in one unit) is, in words (``values such as 1714000001: seconds since 1970, a
    timestamp``): an export's metadata, not a judge's scores. None for any other."""
    v = values.dropna().to_numpy(dtype=float)
    if v.size < 2 or np.unique(v).size < 2:
        return None
    lo, hi = EPOCH_SECONDS
    for unit, per in EPOCH_UNITS.items():
        if lo * per <= v.min() and v.max() <= hi * per:
            rising = " rising with the rows," if np.all(np.diff(v) >= 0) else ""
            return f"values such as {v[0]:.0f}:{rising} {unit} since 1970, a timestamp"
    return None


#: fewest blocks of a column in blocks along the rows whose name does not say so
MIN_BLOCKS = 5


def row_blocks(values: pd.Series, name: str) -> str | None:
    """What a column of whole numbers in blocks along the rows is, in words (``whole
    numbers in blocks along the rows (0 on the first 50 rows, 1 on the next 50, ...: 24
    blocks): a batch, chunk or page number``): bookkeeping, not a judge's scores, though
    it follows the label where the rows are sorted by system. None for any other column.

    Each value fills one run of rows (at least two rows but the last's), on every row;
    and the name says so (:data:`~bacon_bayes.doctor.names.BLOCK_NAME`: ``batch``,
    ``chunk_id``), or, for a name not of a score or judge, the values rise by 1 from
    block to block, at least :data:`MIN_BLOCKS` of them, and every block but the first
    and last has as many rows (the first and last no more): a judge's integer scores on
    rows sorted by them fill their runs unevenly."""
    v = values.to_numpy(dtype=float)
    if v.size < 4 or not np.isfinite(v).all() or (v != np.round(v)).any():
        return None
    starts = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    runs, firsts = np.diff(np.r_[starts, v.size]), v[starts]
    if firsts.size < 2 or np.unique(firsts).size < firsts.size or (runs[:-1] < 2).any():
        return None
    if not BLOCK_NAME.search(name):
        inner = runs[1:-1]
        even = inner.size > 0 and (inner == inner[0]).all() and max(runs[0], runs[-1]) <= inner[0]
        named = SCORE_NAME.search(name) or JUDGE_NAME.search(name)
        if named or firsts.size < MIN_BLOCKS or not even or (np.diff(firsts) != 1).any():
            return None
    more = ", ..." if firsts.size > 2 else ""
    return (
        f"whole numbers in blocks along the rows ({firsts[0]:g} on the first {runs[0]} rows, "
        f"{firsts[1]:g} on the next {runs[1]}{more}: {firsts.size} blocks): a batch, chunk or "
        "page number, not a judge's scores"
    )


@dataclass(frozen=True)
class ScoreFlag:
    """One finding on a judge's scores.

    Attributes
    ----------
    judge : str
        The judge column.
    kind : str
        ``"codes"`` (failure codes outside its scale), ``"infinite"`` (scores of
        ``-inf`` or ``inf``, which the command leaves out), ``"constant"`` (one score
        on every item of a group) or ``"scale"`` (scores far past the judge's range on
        most groups on a few: a scale that changes between groups).
    text : str
        What was found and what to do, in words.
    group : str
        The group of a ``"constant"`` finding ("" otherwise).
    """

    judge: str
    kind: str
    text: str
    group: str = ""


def codes_text(x: np.ndarray) -> str | None:
    """A judge's failure codes outside its scale, with the fix (``234 scores of -1,
    outside its 1:5 scale (...): failure codes? ...``); None when it has none. Said by
    doctor and, through :func:`~bacon_bayes.doctor.pooled.judge_warnings`, by the
    commands that fit (tester G finding 10)."""
    codes, scale = sentinel_codes(x)
    if not codes or scale is None:
        return None
    listed = listed_codes(codes, "score", SHOWN_CODES)
    return (
        f"{listed}, outside its {scale.text} scale ({scale.how}): failure codes? They enter "
        "the estimates as scores; blank those cells (empty = not scored) and run again"
    )


def absent_groups(scores: pd.DataFrame, groups: np.ndarray) -> list[str]:
    """Judges that score no item of whole groups while they score items elsewhere, those
    of one set of groups said once (``judges 'A-refA', 'B-refA' (2) score no item of
    refA (1875 rows)``): there the judge's missing-score indicator is a dummy of those
    groups, so their estimates rest on the other judges alone (tester G findings 11, 16).
    [] when every judge scores some item of every group."""
    g = pd.Series(np.asarray(groups, dtype=object)).astype(str).to_numpy()
    ok = pd.notna(np.asarray(groups, dtype=object))
    names = sorted(pd.unique(g[ok]), key=natural_key)
    by_set: dict[tuple[str, ...], list[str]] = {}
    for j in scores.columns:
        seen = np.isfinite(scores[j].to_numpy(dtype=float)) & ok
        if not seen.any():
            continue
        scored = set(g[seen])
        if none := tuple(n for n in names if n not in scored):
            by_set.setdefault(none, []).append(str(j))
    out = []
    for none, judges in by_set.items():
        rows = int(np.isin(g, none).sum())
        shown = ", ".join(repr(j) for j in judges[:SHOWN_CODES])
        who = (
            f"judge {shown} scores"
            if len(judges) == 1
            else f"judges {shown}{', ...' if len(judges) > SHOWN_CODES else ''} "
            f"({len(judges)}) score"
        )
        where = ", ".join(none[:10]) + (f", ... ({len(none)} groups)" if len(none) > 10 else "")
        out.append(
            f"{who} no item of {where} ({rows} rows): there the estimates rest on the other "
            "judges alone, so read those groups' intervals as approximate where they have "
            f"few labels (README, Groups: a small skewed group); score those items with "
            f"{'it' if len(judges) == 1 else 'them'} where it can be done (a reference-based "
            f"metric cannot score its own reference), or leave "
            f"{'it' if len(judges) == 1 else 'them'} out of the judges to compare every "
            "group on the same panel"
        )
    return out


def _blank_line(source: tuple[str, str] | None, judge: str, codes: list[float]) -> str:
    """``; blanked by: <the line that writes the table with ``judge``'s ``codes`` empty,
    then doctor on it>`` for the table ``source`` (its pandas read, its path); "" without
    one (labels joined: no file holds the table doctor read)."""
    if source is None:
        return ""
    code = f"s = df[{judge!r}]; df[{judge!r}] = s.mask(s.isin({sorted(codes)!r}))"
    return f"; blanked by: {doctor_again(*source, 'scores', code)}"


def _codes(judge: str, x: np.ndarray, source: tuple[str, str] | None) -> ScoreFlag | None:
    text = codes_text(x)
    if text is None:
        return None
    codes, _ = sentinel_codes(x)
    rest = int((np.isfinite(x) & ~np.isin(x, list(codes))).sum())
    if rest < DENSE * x.size:  # a sparse column of labels, with 0 for 'not rated'?
        text += (
            f"; without them {judge} has a value on {rest} of {x.size} rows: the human "
            "labels, with a code for 'not rated'? Blanked, doctor takes them as the label"
        )
    return ScoreFlag(judge, "codes", text + _blank_line(source, judge, list(codes)))


def _infinite(judge: str, scores: pd.DataFrame) -> ScoreFlag | None:
    """Infinite scores (a log-probability of 0 is ``-inf``): ``bacon estimate`` refuses
    them, so doctor's command leaves the judge out."""
    x = scores[judge].to_numpy(dtype=float)
    inf = np.flatnonzero(np.isinf(x))
    if not inf.size:
        return None
    kinds = " and ".join(f"{v:g}" for v in np.unique(x[inf]))
    return ScoreFlag(
        judge,
        "infinite",
        f"{inf.size} score{'s' * (inf.size > 1)} of {kinds} (the first at "
        f"{row_place(scores, int(inf[0]))}): bacon estimate refuses an infinite score, so the "
        f"command leaves {judge} out; leave those cells empty (not scored) or write a finite "
        "value, and run doctor again for the command with it",
    )


def _constant(judge: str, x: np.ndarray, groups: np.ndarray) -> list[ScoreFlag]:
    ok = np.isfinite(x) & pd.notna(groups)
    if np.unique(x[ok]).size < 2:
        return []
    frame = pd.DataFrame({"g": np.asarray(groups)[ok].astype(str), "x": x[ok]})
    stats = frame.groupby("g")["x"].agg(["size", "min", "max", "mean"])
    same = stats[(stats["size"] >= MIN_CONSTANT_ITEMS) & (stats["min"] == stats["max"])]
    out = []
    for g in sorted(same.index, key=natural_key):
        value = float(same.loc[g, "min"])
        rest = frame.loc[frame["g"] != g, "x"]
        out.append(
            ScoreFlag(
                judge,
                "constant",
                f"{value:g} on all {int(same.loc[g, 'size'])} items of {g} (mean "
                f"{rest.mean():.3g} elsewhere): it tells {g}'s items apart not at all (a "
                f"reference-based metric scoring its own reference?); its group-bias check "
                f"and its weight in {g}'s correction mean little",
                str(g),
            )
        )
    return out


#: fewest scored items of a group for its range to be compared with the others'
MIN_SCALE_ITEMS = 10
#: share of a group's scores past the other groups' typical range (by half its width)
#: from which the judge's scale is said to change there
SCALE_SHARE = 0.2


def _scale_change(judge: str, x: np.ndarray, groups: np.ndarray) -> ScoreFlag | None:
    """A judge whose scores on some groups run far past its range on most groups (a 1-5
    judge rescored 2-10 on the systems added later): on each group of at least
    :data:`MIN_SCALE_ITEMS` scores, the share beyond the groups' median range (the median
    of their lows to the median of their highs) by half its width; flagged from
    :data:`SCALE_SHARE`. Its scores there are on another scale, which no check of the
    whole column (its scale, failure codes) nor the group-bias check on a few labels
    per group sees."""
    ok = np.isfinite(x) & pd.notna(groups)
    frame = pd.DataFrame({"g": np.asarray(groups)[ok].astype(str), "x": x[ok]})
    stats = frame.groupby("g")["x"].agg(["size", "min", "max"])
    stats = stats[stats["size"] >= MIN_SCALE_ITEMS]
    if len(stats) < 3:
        return None
    low, high = float(stats["min"].median()), float(stats["max"].median())
    pad = (high - low) / 2
    if pad <= 0:
        return None
    past = frame.assign(out=(frame["x"] > high + pad) | (frame["x"] < low - pad))
    share = past.groupby("g")["out"].mean().reindex(stats.index)
    moved = sorted(share.index[share >= SCALE_SHARE], key=natural_key)
    if not moved or len(moved) > len(stats) / 2:
        return None
    spans = ", ".join(f"{g} {stats.loc[g, 'min']:g}-{stats.loc[g, 'max']:g}" for g in moved)
    rest = len(stats) - len(moved)
    return ScoreFlag(
        judge,
        "scale",
        f"scores {spans} but about {low:g}-{high:g} on the other {rest} groups (at least "
        f"{SCALE_SHARE:.0%} of those groups' scores past that range by half its width): a "
        "scale that changes between groups (a new judge version or rubric)? Its scores "
        "there are not comparable with the others', and the group comparisons take the "
        "change for quality: put them on one scale (or give those groups' scores their "
        "own judge column), and run again",
    )


#: fewest zeros (and share of a judge's scores) for :func:`zeros_text` to judge them
MIN_ZEROS, MIN_ZERO_SHARE = 10, 0.02
#: how far (in standard errors) the other columns must place a judge's 0s past its 1s
ZERO_Z = 4.0


def _oriented_ranks(x: np.ndarray, others: pd.DataFrame) -> np.ndarray:
    """Each row's mean percentile rank over the columns of ``others`` (the other judges,
    the label), each column turned to rise with ``x`` (its Spearman sign on the rows both
    scored); NaN where no column has a value."""
    ranks = others.rank(pct=True)
    ok = np.isfinite(x)
    signs = []
    for c in ranks.columns:
        r = ranks[c].to_numpy(dtype=float)
        both = ok & np.isfinite(r)
        rho = pd.Series(x[both]).corr(pd.Series(r[both]), method="spearman")
        signs.append(-1.0 if both.sum() > 2 and rho < 0 else 1.0)
    oriented = ranks.to_numpy(dtype=float) * np.array(signs) + (np.array(signs) < 0)
    with np.errstate(invalid="ignore"):
        return np.asarray(pd.DataFrame(oriented).mean(axis=1, skipna=True), dtype=float)


def zeros_text(judge: str, scores: pd.DataFrame, label: np.ndarray | None = None) -> str | None:
    """A judge on a scale from 1 whose 0s are failures, not its lowest level, in words
    (None for any other judge): on its 0-scored rows the other judges (and the label,
    where there is one) rank the items above where they rank its 1s (by :data:`ZERO_Z`
    standard errors, in the direction in which they follow its levels), where a true
    bottom level would sit below them. A 0
    next to the scale counts as a failure code only as a spike
    (:func:`~bacon_bayes.scale.sentinel_codes`), so a judge that fails on a tenth of the
    rows writing 0 was taken at its word, its failures as its worst score. Said by doctor
    and, on the judges alone, by the commands that fit
    (:func:`~bacon_bayes.doctor.pooled.judge_warnings`)."""
    x = scores[judge].to_numpy(dtype=float)
    zero = x == 0
    n0 = int(zero.sum())
    if not n0 or 0.0 in sentinel_codes(x)[0]:  # none, or said already as a failure code
        return None
    scale = infer_scale(x[np.isfinite(x) & ~zero])
    if scale is None or scale.low != 1 or scale.ratings != 1:
        return None
    if scale.high < 3 or n0 < max(MIN_ZEROS, MIN_ZERO_SHARE * np.isfinite(x).sum()):
        return None
    others = scores.drop(columns=[judge])
    if label is not None:
        others = others.assign(_label=label)
    if others.shape[1] == 0:
        return None
    ref = _oriented_ranks(np.where(zero, np.nan, x), others)
    levels = {v: ref[(x == v) & np.isfinite(ref)] for v in np.unique(x[np.isfinite(x)])}
    low, high = levels.get(0.0, np.array([])), levels.get(1.0, np.array([]))
    if low.size < MIN_ZEROS or high.size < 5:
        return None
    se = np.sqrt(low.var(ddof=1) / low.size + high.var(ddof=1) / high.size)
    if not se > 0 or (low.mean() - high.mean()) / se < ZERO_Z:
        return None
    means = {v: float(r.mean()) for v, r in levels.items() if v > 0 and r.size}
    like = min(means, key=lambda v: abs(means[v] - low.mean()))
    what = "judges and the label" if label is not None else "judges"
    return (
        f"{n0} scores of 0 ({n0 / np.isfinite(x).sum():.0%}) below its {scale.text} scale: on "
        f"those rows the other {what} rank the items like its {like:g}s (mean percentile "
        f"{low.mean():.2f}; its 1s {means[1.0]:.2f}, its {scale.high:g}s "
        f"{means.get(scale.high, float('nan')):.2f}), not below its 1s: failures written 0? "
        "They enter the estimates as its lowest score; blank those cells (empty = not "
        "scored) and run again"
    )


def score_flags(
    scores: pd.DataFrame,
    groups: np.ndarray | None = None,
    label: np.ndarray | None = None,
    source: tuple[str, str] | None = None,
) -> list[ScoreFlag]:
    """The findings on every judge column of ``scores`` (see the module docstring).

    Parameters
    ----------
    scores : DataFrame
        One column per judge.
    groups : ndarray, optional
        The items' groups.
    label : ndarray, optional
        The labels (NaN where none): with the other judges, what tells a judge's failures
        written 0 from its lowest level (:func:`zeros_text`).

    Returns
    -------
    list of ScoreFlag
        In the judges' order.
    """
    out: list[ScoreFlag] = []
    for j in scores.columns:
        x = scores[j].to_numpy(dtype=float)
        found = [_codes(str(j), x, source), _infinite(j, scores)]
        if zeros := zeros_text(str(j), scores, label):
            found.append(ScoreFlag(str(j), "zeros", zeros + _blank_line(source, str(j), [0.0])))
        out += [f for f in found if f is not None]
        if groups is not None:
            out += _constant(str(j), x, groups)
            out += [f for f in [_scale_change(str(j), x, groups)] if f is not None]
    return out


def judge_scales(scores: pd.DataFrame) -> dict[str, str]:
    """Each judge's scale as ``bacon doctor`` shows it (``1:5``, or ``-`` where none is
    evident), failure codes left out."""
    out = {}
    for j in scores.columns:
        codes, scale = sentinel_codes(scores[j].to_numpy(dtype=float))
        scale = scale if codes else infer_scale(scores[j].to_numpy(dtype=float))
        out[str(j)] = "-" if scale is None else scale.text
    return out
