"""What a judge seems biased by: the length of the response, and the group.

Both checks take the human label as the truth and the judge as its measurement, on the
labeled items: ``judge ~ label + covariate``. A judge that over-rates long responses
scores them higher than their labels warrant; a judge that favours a group scores its
items higher than items of other groups with the same label. The shift is divided by the
judge's slope on the label, so it is in label points. (The other regression, ``label ~
judge + covariate``, flags a fair but noisy judge whenever the covariate predicts the
label: groups of unequal quality, or longer responses being better. Measured: a fair
judge of noise sd 0.5 over 4 groups whose means differ by up to 1.5 was flagged in 36% of
samples of 50 labels per group that way, in 5% this way.)

Length check
------------
The coefficient of length (per 100 words, or per 10 or 1 for shorter texts:
:func:`length_unit`) in ``judge ~ 1 + label + length`` over the
coefficient of the label, with a heteroscedasticity-robust (HC3) delta-method standard
error and a Student-t interval on ``n - 3`` degrees of freedom (``over-rating`` > 0: the
judge rates longer responses higher than their labels warrant), flagged when the
interval excludes 0. A judge whose score does not rise with the label gets no check.

Power (``tests/test_doctor.py`` verifies it over 400 simulations): labels with sd 1, a
judge equal to the label plus noise of sd 0.6, responses of 20-400 words (uniform), a
planted bias of 0.3 label points per 100 words: the check flags it with power >= 0.8 at
:data:`POWER_N` = 60 labeled items (measured 0.978 over 2,000 simulations; 0.926 at 50,
0.871 at 40: VALIDATION.md, "Doctor's bias checks"); without the bias it flags 4-5% of
the time (nominal 5%), also when length tracks the label (correlation 0.8). Where it
does, a planted bias is harder to tell from quality (power 0.30 at 60 labels there).

Group check
-----------
See :func:`group_bias`: a level per group in ``judge ~ label + group``, each against the
average level; simultaneous (Sidak) Fieller intervals over the groups, each on its own
group's degrees of freedom, covering 0.964-0.965 at 25 labels a group (1,000 simulations,
VALIDATION.md; asserted in ``tests/test_doctor.py``). At 3 labels a group (36 labels
over 12 SummEval systems, weak llama-2 judges) they cover the full-table over-ratings
0.98-1.00 (the delta method's intervals on the fit's degrees of freedom covered
0.70-0.81, most of their flags of the wrong sign); a group with 2-4 labels then seldom
gets a flag: its level rests on 1-3 degrees of freedom.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.order import natural_key
from bacon_bayes.results import NUMERICAL_ZERO, sure_sign
from bacon_bayes.scale import ERROR_NAME

#: labeled items at which the length check finds the documented planted bias with power
#: >= 0.8 (see the module docstring)
POWER_N = 60
#: fewest labeled items (with a response text) for the length check
MIN_LENGTH_N = 8


def words(text: pd.Series) -> np.ndarray:
    """Length of each text in words (NaN where there is none: a missing text is of
    unknown length, and the length check leaves its item out)."""
    out = text.astype("string").str.split().str.len()
    return out.astype("Float64").to_numpy(dtype=float, na_value=np.nan)


def without_text(label: np.ndarray, length: np.ndarray | None) -> int:
    """How many labeled items the length check leaves out for want of a text."""
    if length is None:
        return 0
    return int((np.isfinite(label) & ~np.isfinite(length)).sum())


def left_out_note(count: int) -> str:
    """What the length check left out: ``"N labeled items with no text left out: length
    unknown"``, empty for none."""
    if not count:
        return ""
    items = f"{count} labeled item{'s' if count > 1 else ''}"
    return f"{items} with no text left out: length unknown"


def ols_hc3(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least squares with the HC3 covariance, over a batch of problems.

    Parameters
    ----------
    x : ndarray, shape (..., n, p)
        Designs (with the intercept column, or a full set of group dummies).
    y : ndarray, shape (..., n)
        Responses.

    Returns
    -------
    coef : ndarray, shape (..., p)
    cov : ndarray, shape (..., p, p)
    """
    xtx_inv = np.linalg.inv(np.swapaxes(x, -1, -2) @ x)
    coef = (xtx_inv @ np.swapaxes(x, -1, -2) @ y[..., None])[..., 0]
    resid = y - (x @ coef[..., None])[..., 0]
    lev = np.einsum("...ij,...jk,...ik->...i", x, xtx_inv, x)
    w = resid**2 / np.clip(1 - lev, 1e-12, None) ** 2
    meat = np.swapaxes(x, -1, -2) @ (x * w[..., None])
    return coef, xtx_inv @ meat @ xtx_inv


def _ratio(
    num: np.ndarray, b: np.ndarray, var_num: np.ndarray, var_b: np.ndarray, cov: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``num / b`` and its delta-method standard error (NaN where ``b <= 0``: a judge that
    does not rise with the label has no bias in label units)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(b > 0, num / b, np.nan)
        var = (var_num - 2 * r * cov + r**2 * var_b) / b**2
    return r, np.sqrt(np.clip(var, 0, None))


def fieller(
    num: np.ndarray,
    b: float,
    var_num: np.ndarray,
    var_b: float,
    cov: np.ndarray,
    crit: float | np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Fieller's interval for ``num / b`` at critical value ``crit``: the ratios ``r``
    with ``(num - r b)^2 <= crit^2 var(num - r b)``. Unbounded (``-inf, inf``) where the
    slope ``b`` is not clearly above 0 at that level (``b^2 <= crit^2 var_b``): the ratio
    is then not bounded by the data, where the delta method's symmetric interval is too
    narrow (it covered full-table values 0.70-0.81 at 36 labels, a slope of 0.21)."""
    num, var_num, cov = (np.asarray(v, dtype=float) for v in (num, var_num, cov))
    c2 = np.asarray(crit, dtype=float) ** 2
    a = b**2 - c2 * var_b
    half_b = num * b - c2 * cov  # the quadratic a r^2 - 2 half_b r + c = 0
    c = num**2 - c2 * var_num
    disc = half_b**2 - a * c
    bounded = (a > 0) & (disc >= 0)
    root = np.sqrt(np.clip(disc, 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(bounded, (half_b - root) / a, -np.inf)
        high = np.where(bounded, (half_b + root) / a, np.inf)
    return low, high


def length_unit(length: np.ndarray) -> float:
    """The words the length check is quoted per: the power of ten at or below the median
    length (1 for answers of a few words, 10 for paragraphs, 100 for pages), at most 100."""
    v = np.asarray(length, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return 100.0
    return float(10 ** min(2, max(0, int(np.floor(np.log10(np.median(v)))))))


def unit_words(per: float) -> str:
    """``word``, ``10 words``, ``100 words``: the unit of :func:`length_unit` in words."""
    return "word" if per == 1 else f"{per:g} words"


def length_flags(
    label: np.ndarray,
    judge: np.ndarray,
    length: np.ndarray,
    alpha: float = 0.05,
    per: float = 100.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The length check over a batch of complete samples (no missing values).

    Parameters
    ----------
    label, judge, length : ndarray, shape (..., n)
        Labels, judge scores and response lengths in words.
    alpha : float
        1 - confidence level.
    per : float
        Words the over-rating is quoted per (:func:`length_unit`).

    Returns
    -------
    over, half, flagged : ndarray, shape (...)
        Over-rating in label points per ``per`` words, the interval's half-width, and whether
        the interval excludes 0 (NaN, NaN, False where the judge does not rise with the
        label).
    """
    ones = np.ones_like(label)
    x = np.stack([ones, label, length / per], axis=-1)
    coef, cov = ols_hc3(x, judge)
    over, se = _ratio(coef[..., 2], coef[..., 1], cov[..., 2, 2], cov[..., 1, 1], cov[..., 1, 2])
    n = label.shape[-1]
    half = stats.t.ppf(1 - alpha / 2, n - 3) * se
    sure = np.abs(over) > np.maximum(half, NUMERICAL_ZERO)  # not a rounding error of 0
    return over, half, np.nan_to_num(sure, nan=False).astype(bool)


@dataclass
class LengthBias:
    """The length check of one judge: over-rating per ``per`` words and its interval."""

    judge: str
    n: int
    over: float
    low: float
    high: float
    flagged: bool
    per: float = 100.0


def length_bias(
    label: np.ndarray,
    judge: np.ndarray,
    length: np.ndarray,
    name: str,
    alpha: float = 0.05,
    per: float = 100.0,
) -> LengthBias | str:
    """The length check on the items with a label, a score and a length, or why there is
    none (fewer than :data:`MIN_LENGTH_N` such items, no spread in the score or the
    length, or a score that does not rise with the label)."""
    ok = np.isfinite(label) & np.isfinite(judge) & np.isfinite(length)
    if ok.sum() < MIN_LENGTH_N:
        return f"{int(ok.sum())} labeled items with a score and a text (< {MIN_LENGTH_N})"
    if np.ptp(judge[ok]) == 0 or np.ptp(length[ok]) == 0:
        return "the same score, or length, on every labeled item"
    try:
        over, half, flag = length_flags(label[ok], judge[ok], length[ok], alpha, per)
    except np.linalg.LinAlgError:
        return "its fit is singular"
    o, h = float(over), float(half)
    if not np.isfinite(o):
        return _FLAT
    x = np.column_stack([np.ones(int(ok.sum())), label[ok], length[ok] / per])
    weak = too_weak(label[ok], o, float(np.linalg.lstsq(x, judge[ok], rcond=None)[0][1]))
    if weak:
        return weak
    return LengthBias(name, int(ok.sum()), o, o - h, o + h, bool(flag), per)


#: why a judge whose score does not rise with the label gets no bias check
_FLAT = "its score does not rise with the label: no bias in label points"


def too_weak(label: np.ndarray, over: np.ndarray | float, slope: float) -> str | None:
    """Why a judge's bias cannot be put in label points, or None: its over-rating, a shift
    in its own units divided by its slope on the label, lies past the labels' whole range
    (a judge that barely tracks the label: TriviaQA's JudgeLM over-rated a model by 3.68
    on a 0/1 label, WMT22's BLEU a system by 116 on a 0-100 label)."""
    span = float(np.ptp(label))
    worst = float(np.nanmax(np.abs(over)))
    if worst <= span:
        return None
    return (
        f"its score tracks the label too weakly for a bias in label points (slope {slope:.3g} "
        f"per label point: a shift reads {worst:.3g} label points, past the labels' range "
        f"{span:g})"
    )


def _empty(why: str) -> pd.DataFrame:
    out = pd.DataFrame(columns=["group", "n", "over", "low", "high", "flagged"])
    out.attrs["why"] = why
    return out


def group_bias(
    label: np.ndarray, judge: np.ndarray, groups: np.ndarray, alpha: float = 0.05
) -> pd.DataFrame:
    """Over-rating of each group, in label points: the judge's shift for the group in
    ``judge ~ label + group`` (one slope, a level per group) against the
    size-weighted average level, divided by the slope; per group with at least 2 labels,
    HC3 variances and Fieller's interval for the ratio (:func:`fieller`: unbounded where
    the slope is not clearly above 0), simultaneous (Sidak) over the groups, each with a t
    on its own labels less one degrees of freedom (its HC3 variance rests on its own
    residuals). The over-ratings are relative: a judge that favours one group shows the
    others slightly under-rated.

    Returns
    -------
    DataFrame
        ``group``, ``n``, ``over``, ``low``, ``high``, ``flagged`` (empty with fewer than
        2 groups of 2 labels, too few labels for the fit, or a judge that does not rise
        with the label; ``attrs["why"]`` says which); ``attrs["left_out"]``: the groups
        with fewer than 2 labeled items, not checked (``attrs["left_out_n"]``: their
        labeled items with a score, by group); ``attrs["wide"]``: the groups
        whose interval excludes 0 but reaches past the labels' range (too weak to say,
        not flagged); ``attrs["unbounded"]``: the groups whose interval is unbounded.
    """
    ok = np.isfinite(label) & np.isfinite(judge) & pd.notna(groups)
    names, codes, sizes = np.unique(
        np.asarray(groups[ok]).astype(str), return_inverse=True, return_counts=True
    )
    keep = sizes[codes] >= 2
    names, codes = np.unique(names[codes[keep]], return_inverse=True)
    k, n = names.size, int(keep.sum())
    if k < 2:
        return _empty(f"only {k} group(s) with 2 or more labeled items (2 needed)")
    if n < k + 3:
        return _empty(f"{n} labeled items for {k} groups (fewer than {k + 3})")
    y, j = label[ok][keep], judge[ok][keep]
    x = np.column_stack([y, np.eye(k)[codes]])
    try:
        coef, cov = ols_hc3(x, j)
    except np.linalg.LinAlgError:
        return _empty("its fit is singular")
    size = np.bincount(codes, minlength=k)
    contrast = np.eye(k) - size / n  # each level against the size-weighted average level
    shift = contrast @ coef[1:]
    var_shift = np.einsum("gi,ij,gj->g", contrast, cov[1:, 1:], contrast)
    over, _ = _ratio(shift, coef[0], var_shift, cov[0, 0], contrast @ cov[1:, 0])
    if not np.isfinite(over).all():
        return _empty(_FLAT)
    weak = too_weak(y, over, float(coef[0]))
    if weak:
        return _empty(weak)
    level = (1 - alpha) ** (1 / k)
    # each group's level rests on its own residuals (HC3): a t on its own n - 1 degrees
    # of freedom, not the fit's n - k - 1 (which covered 0.75 with 3 labels per group)
    crit = stats.t.ppf(0.5 + level / 2, np.maximum(size - 1, 1))
    low, high = fieller(shift, coef[0], var_shift, cov[0, 0], contrast @ cov[1:, 0], crit)
    out = pd.DataFrame({"group": names, "n": size, "over": over, "low": low, "high": high})
    # sure_sign: a judge that equals the labels has intervals of width 0 about a rounding
    # error (-0.00 [-0.00, -0.00]), which flagged a perfect judge
    out["flagged"] = sure_sign(out["low"], out["high"]) != 0
    # an interval wider than the labels' whole range says nothing of the shift's size,
    # as a point estimate past it says nothing (too_weak): WMT22's MEE-refB over-rated
    # refA by +29.57 [+9.71, +178.75] on an MQM label of range 36.1, listed beside
    # meaningful flags (SEScore-refA's +28.71 [+20.48, +45.14] on its own reference stays)
    wide = out["flagged"] & (out["high"] - out["low"] > float(np.ptp(y)))
    out.loc[wide, "flagged"] = False
    out["wide"] = wide
    out["unbounded"] = ~(np.isfinite(out["low"]) & np.isfinite(out["high"]))
    order = sorted(range(k), key=lambda i: natural_key(names[i]))
    out = out.iloc[order].reset_index(drop=True)  # M8 before M10, as everywhere
    seen = np.unique(np.asarray(groups[pd.notna(groups)]).astype(str))
    out.attrs["left_out"] = [str(g) for g in seen if g not in set(names)]  # under 2 labels
    labeled = pd.Series(np.asarray(groups[ok]).astype(str)).value_counts()
    out.attrs["left_out_n"] = {g: int(labeled.get(g, 0)) for g in out.attrs["left_out"]}
    # unbounded: the slope is not clearly above 0 at the group's few labels, so no shift
    # there can be told from none
    for key in ("wide", "unbounded"):
        out.attrs[key] = [str(g) for g in out.loc[out[key], "group"]]
    return out.drop(columns=["wide", "unbounded"])


@dataclass
class Orientation:
    """How the bias checks take the label and the judges: a judge that falls steadily as
    the label rises (:func:`~bacon_bayes.scale.falls_with`) negated, or the label when it
    is an error score that every such judge falls with (see :func:`orient`)."""

    label: np.ndarray
    scores: pd.DataFrame
    #: the judges negated, each with its Spearman correlation with the label
    reversed: dict[str, float]
    #: what was negated, for the text ("" when nothing was)
    note: str = ""
    #: whether the label was negated (an error score: a lower label is better)
    label_negated: bool = False


def orient(label: np.ndarray, scores: pd.DataFrame, name: str, error_score: bool) -> Orientation:
    """The label and judges for :func:`judge_biases`, so that a judge scoring an item
    better than its label warrants shows a positive over-rating, whichever way the scales
    run: a label that every judge falls with (none rising), when it is an error score
    (``error_score``; MQM as a penalty, higher = worse) or when several judges fall, is
    negated (the judges rate quality, the usual WMT setup); else each judge that falls as
    the label rises (a rank, 1 = best) is. A judge that falls has a negative slope on the
    label, which left it unchecked, and the text read "no bias"."""
    from bacon_bayes.scale import falls_with

    falls, rises = {}, []
    for j in map(str, scores.columns):
        x = scores[j].to_numpy(dtype=float)
        if (rho := falls_with(label, x)) is not None:
            falls[j] = rho
        elif falls_with(-label, x) is not None:
            rises.append(j)
    if not falls:
        return Orientation(label, scores, {})
    if not rises and (error_score or len(falls) > 1):  # the label runs the other way
        what = " (an error score: higher = worse)" if error_score else " (higher = worse?)"
        return Orientation(
            -label,
            scores,
            {},
            f"every judge falls as {name} rises{what}: biases checked on -{name}, so an "
            "over-rating is an item rated better than its label warrants",
            True,
        )
    flipped = scores.copy()
    for j in falls:
        flipped[j] = -flipped[j]
    verb = "falls" if len(falls) == 1 else "fall"
    return Orientation(
        label,
        flipped,
        falls,
        f"{', '.join(falls)} {verb} as the label rises (a reversed scale?): checked on minus "
        "its score, so an over-rating is a score better than the label warrants",
    )


def oriented_biases(
    label: np.ndarray,
    scores: pd.DataFrame,
    length: np.ndarray | None,
    groups: np.ndarray | None,
    name: str,
    error_score: bool,
    alpha: float = 0.05,
) -> tuple[Orientation, list[LengthBias], dict[str, pd.DataFrame], dict[str, str]]:
    """:func:`judge_biases` on the label and judges as :func:`orient` takes them: the one
    place ``bacon doctor`` (on a table) and ``bacon report``'s data check (on a pool)
    orient the checks, so that both check an error-score label on -label alike."""
    how = orient(label, scores, name, error_score)
    found, by_group, skipped = judge_biases(how.label, how.scores, length, groups, alpha)
    return how, found, by_group, skipped


def error_named(name: str, label: np.ndarray | None = None) -> bool:
    """Whether the label's ``name`` reads as an error score (MQM, error, loss, penalty,
    WER/TER) and its values are not minus a penalty (:func:`_stored_negated`: WMT's MQM
    as stored, 0 no error and below 0 worse, already runs higher = better)."""
    return bool(ERROR_NAME.search(name)) and not _stored_negated(label)


def lower_is_better(name: str, label_negated: bool, label: np.ndarray | None = None) -> bool:
    """Whether both signs of an error score agree: the name reads as one
    (:func:`error_named`) and every judge falls as it rises (``label_negated``, as
    :func:`orient` found). Doctor's printed command then passes ``--better lower``; one
    sign alone only gets :func:`better_lower_hint`."""
    return label_negated and error_named(name, label)


def better_lower_hint(name: str, label_negated: bool, label: np.ndarray | None = None) -> str:
    """The hint to pass ``--better lower`` where the label looks like an error score:
    its name reads as one (MQM, error, loss, penalty, WER/TER), or every judge falls as it
    rises (:func:`orient` negated it); "" otherwise. Without it "best" and "top" mean the
    highest mean, the worst group of an error score.

    A ``label`` whose values are all at or below 0 (some below) is an error score stored
    as minus the penalty (WMT's MQM: 0 no error, -25 the worst), already higher = better:
    its name gives no hint."""
    named = error_named(name, label)
    if not (named or label_negated):
        return ""
    why = f"its name {name!r} reads as one" if named else f"every judge falls as {name!r} rises"
    return (
        f"label {name!r} looks like an error score, where lower is better ({why}): 'best' "
        "and 'top' here mean the highest mean; pass --better lower to rank the lowest mean "
        "first (bacon estimate, report, plan --top, status, sample --until best)"
    )


def better_lower_passed(name: str) -> str:
    """What doctor says where its printed command passes ``--better lower``
    (:func:`lower_is_better`: the name and the judges both say lower is better)."""
    return (
        f"label {name!r} is an error score, where lower is better (its name reads as one and "
        "every judge falls as it rises): the command passes --better lower, so 'best' and "
        "'top' mean the lowest mean (the bacon plan --top that estimate prints carries it; "
        "pass it to bacon report, status and sample --until best too); drop it if higher is "
        "better"
    )


def better_higher_hint(name: str, label: np.ndarray) -> str:
    """The hint against ``--better lower`` where the label is an error score stored as
    minus its penalty (:func:`_stored_negated`: WMT's MQM, 0 no error), which already runs
    higher = better: there the lowest mean is the most penalized; "" otherwise."""
    if not _stored_negated(label):
        return ""
    return (
        f"--better lower ranks the lowest mean first, but every label of {name!r} is at or "
        "below 0: an error score stored as minus its penalty (WMT's MQM: 0 no error) runs "
        "higher = better, so the lowest mean is the most penalized; if so, pass --better "
        "higher (bacon estimate, report, plan --top, status, sample --until best)"
    )


def _stored_negated(label: np.ndarray | None) -> bool:
    """Whether ``label``'s known values are all <= 0 with some below (minus a penalty)."""
    if label is None:
        return False
    y = np.asarray(label, dtype=float)
    y = y[np.isfinite(y)]
    return bool(y.size) and bool((y <= 0).all() and (y < 0).any())


def judge_biases(
    label: np.ndarray,
    scores: pd.DataFrame,
    length: np.ndarray | None,
    groups: np.ndarray | None,
    alpha: float = 0.05,
) -> tuple[list[LengthBias], dict[str, pd.DataFrame], dict[str, str]]:
    """The length check (:func:`length_bias`, per :func:`length_unit` words of the
    labeled items' texts) and the group table (:func:`group_bias`) of every judge column
    of ``scores``; none of either without ``length`` or ``groups``.

    Returns
    -------
    length : list of LengthBias
        The judges with a length check.
    groups : dict
        Judge -> its group table (empty, with ``attrs["why"]``, where there is none).
    skipped : dict
        Judge -> why it has no length check.
    """
    columns = {str(j): scores[j].to_numpy(dtype=float) for j in scores.columns}
    found: list[LengthBias] = []
    skipped: dict[str, str] = {}
    if length is not None:
        per = length_unit(length[np.isfinite(label)])
        for j, x in columns.items():
            got = length_bias(label, x, length, j, alpha, per)
            if isinstance(got, str):
                skipped[j] = got
            else:
                found.append(got)
    by_group = (
        {}
        if groups is None
        else {j: group_bias(label, x, groups, alpha) for j, x in columns.items()}
    )
    return found, by_group, skipped


def simulate_length(
    n: int, sims: int, bias: float, seed: int = 0, noise: float = 0.6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw the power study's samples: labels N(0, 1), lengths U(20, 400) words, a judge
    = label + ``bias`` x length / 100 + N(0, ``noise``); arrays of shape (sims, n)."""
    rng = np.random.default_rng(seed)
    label = rng.normal(size=(sims, n))
    length = rng.uniform(20, 400, size=(sims, n))
    judge = label + bias * length / 100 + rng.normal(scale=noise, size=(sims, n))
    return label, judge, length
