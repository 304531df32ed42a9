"""What the group estimator will do at a planned budget (issue 40): which pooling
:meth:`~bacon_bayes.calibrator.Calibrator.estimate_groups` takes, the chance that a
group's or a pair's interval is withheld, and the width and power of the shrunk
intervals, so that :func:`~bacon_bayes.planning.plan` predicts the estimator actually
used.

Pooling and withholding
-----------------------
``pooling="auto"`` (the estimator's default) shrinks when some group with labels has fewer
than :data:`~bacon_bayes.calibrator.MIN_SEPARATE_LABELS` and at least three groups have
labels, except for designs that draw prompts (clustered: ``paired``), which keep the
separate means. Separate means withhold the interval of a group with fewer than
:data:`~bacon_bayes.calibrator.MIN_GROUP_LABELS` labels; shrunk means only that of a group
with none; a pair is withheld with either of its groups. The group label counts ``n_g``
of a draw are hypergeometric for a uniform draw of items (``l_g`` pilot labels plus a
draw of the rest when the design tops up the pilot) and for the paired design's draw of
prompts (``n_g``: the drawn prompts with an item of ``g``), fixed for a stratified one;
the groups are taken as independent for item designs and as moving together for the
paired design (one draw of prompts labels every group). So under ``"auto"`` an item
design shrinks with probability ``P(min_g n_g < 10)`` and a pair ``(a, b)`` is withheld
with probability ``1 - (1 - P(n_a = 0))(1 - P(n_b = 0))`` (separate means need every
group at 10 or more, above the withholding rule's 5); the paired design withholds the
pair with probability ``max(P(n_a < 5), P(n_b < 5))``. A withheld pair has power 0; a
half-width is the expected one over the draws that give an interval. Under ``"auto"`` the
separate means are the estimator's bootstrap branch (every group at 10 or more), whose
pair interval takes its critical value from the groups' resamples; the plan prices it as
Student-t on the pair's fewer labels less one (at the groups' expected labels; the anytime
intervals' basis, and mostly at or above the resampled value), not on the moderated t's
pooled df it keeps for a group: priced so, the plan recommended stratified on SummEval's
M11 - M13 at 152 labels where it realised 0.104 below uniform (EXPERIMENTS.md, "Pairs of
the bootstrap branch from the groups' resamples").

The shrunk intervals
--------------------
:mod:`bacon_bayes.estimate.shrink` shrinks each group's correction ``d_g`` (variance
``sigma_g^2``: here the design's predicted variance of the group's AEE mean) toward the
precision-weighted centre with ``w_g = mu2 / (mu2 + sigma_g^2)``. The plan takes ``mu2``
from the pilot: the Paule-Mandel spread of the pilot's group corrections (each group's
mean residual, variance ``sigma_g^2 / l_g``) beyond their noise (:func:`shrink_prior`),
the estimator's own rule. A contrast ``c`` (a group, or ``a - b``) then has noise
variance ``c' A diag(sigma^2) A' c`` (``A = diag(w) + (1 - w) omega'``) and bias
coefficients ``(A - I)' c`` on the groups' deviations from the centre; its half-width is
``chi * sd`` with ``chi`` the robust EB critical value of :func:`~bacon_bayes.estimate.
shrink.contrast_chi`, Student-t scaled on the pooled residuals' df. ``mu2`` and the kurtosis in
``w`` and ``chi`` are what the estimator will estimate at the budget: the width and power
are averaged over the law of its estimates (:func:`estimated_spread`; its Paule-Mandel
estimate is floored and its kurtosis at least 3, so both read above the truth when the
groups' noise is of the spread's size: 0.082 and 6.1 on average for a true spread of
0.07 at 6 labels a group). The power to detect
``delta``: the estimate errs by its noise plus the bias ``(A - I)' c`` on the groups'
deviations from the centre. The surrogate's part of a difference is seen on every item
and kept; the rest, ``delta - (S_a - S_b)`` (``S``: the pilot's surrogate means), lies in
the two corrections and is pulled in by ``1 - w``: so the pair's deviations differ by
that, their common part and the other groups' deviations follow the pilot's
empirical-Bayes posterior (``w0_g (d_g - centre)``, variance ``mu2 (1 - w0_g)``, ``w0_g``
the pilot's shrinkage). The estimator's floor (each shrunk interval holds the contrast's
own AEE interval at ``1 - 2 alpha``, :func:`~bacon_bayes.estimate.shrink.floor_alpha`) is
taken as the wider of the two half-widths, and a difference is detected only where both
intervals exclude 0 (the smaller of the two powers: they move together). SummEval M11 -
M17 at 47 labels (4 a system): the judges see
0.52 of its 1.08, and the estimator's power is 0.51, not the 0.80 an unbiased interval
of that width would give.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from bacon_bayes.arguments import POOLINGS
from bacon_bayes.calibrator import MIN_GROUP_LABELS
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.shrink import (
    MIN_SEPARATE_LABELS,
    MIN_SHRINK_GROUPS,
    contrast_chi,
    floor_alpha,
    kurtosis,
    spread,
)
from bacon_bayes.planning.predict import PilotStatistics, Prediction, predict
from bacon_bayes.sampling.designs import allocate
from bacon_bayes.scale import is_binary

__all__ = [
    "POOLINGS",
    "Outlook",
    "ShrinkPrior",
    "contrast_metrics",
    "outlook",
    "power_t",
    "shrink_prior",
    "withheld_notes",
    "without_adaptive_on_binary",
]

#: Draws of the simulation of the estimator's own spread and kurtosis estimates.
SPREAD_DRAWS = 64
#: Of those, the draws the shrunk width and power are averaged over.
SPREAD_POINTS = 8


#: The adaptive row's note on 0/1 labels, for a group goal or the pool mean of a pool with
#: groups (``bacon sample`` warns of both on such a wave; tester C finding 3).
ADAPTIVE_BINARY_NOTE = (
    "not recommended on 0/1 labels{goal}: adaptive waves make group means miss more often "
    "than their intervals say, a wrong label where the judges agree entering with a large "
    "weight, and the same weights can leave the pool mean's interval wider than a uniform "
    "wave's whatever the variance predicted (TriviaQA: 4 of 7 adaptive waves of 120, up "
    "to 2.7 times; VALIDATION.md, 'Adaptive waves: the predicted variance ratio against "
    "the realised one')"
)


def without_adaptive_on_binary(candidates: list[Any], y: np.ndarray, group_goal: bool) -> list[Any]:
    """The plan's candidate rows (``.design``, ``.note``) less adaptive when the labels are
    0/1, its row noted why: the design ``bacon sample`` warns against on 0/1 labels with
    groups (for group means and for the pool mean) is never the one recommended."""
    if not is_binary(np.asarray(y, dtype=float)):
        return candidates
    goal = " for a group goal" if group_goal else " with groups"
    for r in candidates:
        if r.design == "adaptive":
            r.note = ADAPTIVE_BINARY_NOTE.format(goal=goal) + (f"; {r.note}" if r.note else "")
    return [r for r in candidates if r.design != "adaptive"]


def power_t(delta: float, se: float, df: float, alpha: float) -> float:
    """``P(|T| > t_crit)`` for a difference ``delta`` with standard error ``se``."""
    if se <= 0:
        return 1.0
    crit = stats.t.isf(alpha / 2.0, df)
    nc = delta / se
    power = float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))
    if not np.isfinite(power):  # far in the tail (scipy's nct gives NaN): the normal's
        power = float(stats.norm.sf(crit - abs(nc)) + stats.norm.cdf(-crit - abs(nc)))
    return power


@dataclass(frozen=True)
class ShrinkPrior:
    """The between-group spread ``mu2`` of the corrections, and each group's deviation
    from the centre as the pilot's empirical-Bayes posterior sees it (mean, variance)."""

    mu2: float
    deviation: np.ndarray
    deviation_var: np.ndarray
    centre: float = 0.0


def shrink_prior(st: PilotStatistics) -> ShrinkPrior | None:
    """The pilot's spread of the group corrections beyond their noise (the estimator's
    Paule-Mandel rule on the pilot's groups); None under :data:`MIN_SHRINK_GROUPS`
    groups with pilot labels (the spread cannot be read: the plan then predicts no
    borrowing)."""
    if st.corrections is None:
        return None
    lab = (st.labels > 0) & np.isfinite(st.corrections)
    if lab.sum() < MIN_SHRINK_GROUPS:
        return None
    d = st.corrections[lab]
    var = st.sigma2[lab] / st.labels[lab]
    mu2, om = spread(d, var)
    w0 = mu2 / (mu2 + var)
    dev = np.zeros(len(st.names))
    dvar = np.full(len(st.names), mu2)
    centre = float(om @ d)
    dev[lab] = w0 * (d - centre)
    dvar[lab] = mu2 * (1.0 - w0)
    return ShrinkPrior(mu2, dev, dvar, centre)


def planning_means(
    st: PilotStatistics, prior: ShrinkPrior | None, pooling: str = "auto"
) -> np.ndarray:
    """The group means a plan takes as the truth: the pilot's group table under
    ``pooling``, the means ``bacon estimate`` prints (:func:`planning_basis`)."""
    return planning_basis(st, prior, pooling)[0]


def planning_basis(
    st: PilotStatistics, prior: ShrinkPrior | None, pooling: str = "auto"
) -> tuple[np.ndarray, str]:
    """The group means a plan takes as the truth, and what they are (for its notes).

    They are the estimates of the pilot's group table under ``pooling``, the estimator
    whose power the plan predicts, as ``bacon estimate`` prints them: shrunk toward the
    pool's correction where it shrinks (a group whose one or two labels happened high is
    then not planned for as the clear leader: the winner's curse), each group's own mean
    where every labeled group has enough labels for the estimator to leave them separate.
    The plan's own empirical-Bayes means (each group's surrogate mean plus its correction
    shrunk by the pilot's spread) are no longer taken there: they shrank groups the
    estimator does not, and named another leader and lead than the table above them
    (WMT16 at 1%, 13-25 labels a system: M2M100 4.40 for the table's 6.89, a lead of 0.98
    for the table's 2.88 and a true 2.87; predicted power 0.0076 at 3,000 labels where
    the estimator's was 1.00). Without a fitted calibrator (or where the table cannot be
    made): those empirical-Bayes means, or the pilot's own where the spread cannot be
    read."""
    if st.table_means is not None:
        try:
            table, used = st.table_means(pooling)
        except ValidationError:  # e.g. pooling 'shrink' with under three groups labeled
            table, used = np.array([np.nan]), ""
        if np.isfinite(table).all():
            what = "shrunk means" if used == "shrink" else "each group's own mean"
            return table, f"the pilot's group table as bacon estimate gives it ({what})"
    if prior is None or st.surrogate_means is None:
        return st.estimated_means(), "the pilot's estimates"
    return st.surrogate_means + prior.centre + prior.deviation, "the pilot's shrunk means"


def _counts(st: PilotStatistics, design: str, n: float, from_scratch: bool) -> np.ndarray:
    """``P(n_g = k)`` for ``k = 0 .. MIN_SEPARATE_LABELS - 1`` (rows: groups)."""
    k = np.arange(MIN_SEPARATE_LABELS)[None, :]
    N = st.n_items
    have = (np.zeros(len(st.names)) if from_scratch else st.labels.astype(float))[:, None]
    n0 = 0.0 if from_scratch else float(st.n_labeled)
    if design == "stratified":  # the pilot's labels and the new ones as bacon sample
        open_g = (st.sizes - have[:, 0]).astype(int)  # allocates them over the open items
        new = min(max(round(n - n0), 0), int(open_g.sum()))
        count = have + allocate(open_g.astype(float), open_g, new)[:, None]
        return (k == count).astype(float)
    if design == "paired" and st.group_prompts is not None:
        shared = st.group_prompts[:, None]
        if from_scratch:
            return stats.hypergeom.pmf(k, st.n_prompts, shared, round(n / st.per_prompt))
        # prompts drawn among the open ones: about the items' rate
        rate = min(max((n - n0) / max(N - n0, 1.0), 0.0), 1.0)
        return stats.binom.pmf(k - have, shared - have, rate)
    new = max(round(n - n0), 0)
    return stats.hypergeom.pmf(k - have, round(N - n0), st.sizes[:, None] - have, new)


@dataclass(frozen=True)
class Outlook:
    """The estimator at one design and budget: the chance it shrinks, each group's
    chance of no label and of too few for a separate interval, and the shrunk
    contrasts' pieces."""

    design: str
    pooling: str
    p_shrink: float
    p_zero: np.ndarray
    p_few: np.ndarray
    comonotone: bool
    prior: ShrinkPrior | None
    var: np.ndarray
    df: float
    #: each group's chance of no label or of 10 or more (never a 1-9 that makes auto shrink)
    p_unshrunk: np.ndarray | None = None
    #: the estimator's spread and kurtosis estimates at this budget, on average

    def withheld(self, groups: list[int], shrunk: bool) -> float:
        """Chance that an interval needing every one of ``groups`` is withheld."""
        p = (self.p_zero if shrunk else self.p_few)[groups]
        if self.comonotone:
            return float(p.max())
        return float(1.0 - np.prod(1.0 - p))

    def branches(self, groups: list[int]) -> tuple[float, float]:
        """Chances of an interval from separate means and from shrunk ones."""
        if self.pooling == "separate":
            return 1.0 - self.withheld(groups, False), 0.0
        if self.pooling == "shrink":
            return 0.0, 1.0 - self.withheld(groups, True)
        # auto: separate when no group has 1-9 labels; a group there has none (its interval
        # withheld) or 10 or more, the first with chance p_zero / p_unshrunk. Either way
        # the interval is withheld only where a group of it has no label, so the shrunk
        # branch is the rest of the answered draws: P(every group labeled) - sep (it was
        # p_shrink - P(withheld), as if shrinking and the pair's counts were independent:
        # tester A finding 5, a withheld share of 0.745 where the estimator withheld 0.33)
        sep = 1.0 - self.p_shrink
        if self.p_unshrunk is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                zero = np.where(self.p_unshrunk > 0, self.p_zero / self.p_unshrunk, 0.0)
            sep *= float(np.prod(1.0 - zero[groups]))
        return sep, max(1.0 - self.withheld(groups, True) - sep, 0.0)


def outlook(
    st: PilotStatistics,
    p: Prediction,
    *,
    pooling: str = "auto",
    prior: ShrinkPrior | None = None,
    from_scratch: bool = False,
) -> Outlook:
    """What the group estimator does at the prediction's design and budget."""
    if pooling not in POOLINGS:
        raise ValidationError(f"pooling {pooling!r} is not known; use {', '.join(POOLINGS)}.")
    m = len(st.names)
    probs = _counts(st, p.design, p.n, from_scratch)
    p_zero = probs[:, 0]
    p_few = probs[:, :MIN_GROUP_LABELS].sum(axis=1)
    # P(n_g = 0 or n_g >= MIN_SEPARATE_LABELS): a group without labels shrinks no other
    enough = 1.0 - probs[:, 1:].sum(axis=1)
    # separate means for a study whose waves drew prompts: none at the pilot's own size
    clustered = p.design == "paired" and st.has_prompts and (from_scratch or p.n > st.n_labeled)
    if m < MIN_SHRINK_GROUPS or (pooling == "auto" and clustered):
        p_shrink = 0.0
        pooling = "separate" if pooling == "auto" else pooling
    elif clustered:
        p_shrink = 1.0 - float(enough.min())
    else:
        p_shrink = 1.0 - float(np.prod(enough))
    var = np.diag(p.cov).copy()
    return Outlook(
        design=p.design, pooling=pooling, p_shrink=p_shrink, p_zero=p_zero, p_few=p_few,
        comonotone=clustered, prior=prior, var=var, df=max(p.n - m, 1.0), p_unshrunk=enough,
    )  # fmt: skip


def estimated_spread(mu2: float, var: np.ndarray) -> np.ndarray:
    """The estimator's spread ``mu2`` and kurtosis estimates over draws of normal
    corrections of spread ``mu2`` and noise ``var`` (its Paule-Mandel estimate is floored
    and its kurtosis at least 3, so both read high on average when the noise is of the
    spread's size), as :data:`SPREAD_POINTS` rows: the draws at the middle of equal
    slices of ``mu2``'s law (fixed seed: the plan is deterministic). The width and power
    are averaged over them, not taken at their mean: a low spread estimate gives a small
    sd and a large critical value together (SummEval, 64 stratified labels: the pair's
    mean half-width 0.53, the product of the mean sd and critical value 0.60)."""
    z = np.random.default_rng(20261128).standard_normal((SPREAD_DRAWS, var.size))
    out = np.empty((SPREAD_DRAWS, 2))
    for k, d in enumerate(z * np.sqrt(mu2 + var)):
        m2, om = spread(d, var)
        out[k] = m2, kurtosis(d, var, float(om @ d), m2)
    out = out[np.argsort(out[:, 0])]
    pick = ((np.arange(SPREAD_POINTS) + 0.5) * SPREAD_DRAWS / SPREAD_POINTS).astype(int)
    return out[pick]


def _bias_law(
    o: Outlook, bias: np.ndarray, groups: list[int], implied: float | None
) -> tuple[float, float]:
    """Mean and variance of the bias ``bias' (D - centre)`` over the groups' deviations
    (the pilot's posterior); for a pair with ``implied``, the difference of its two
    deviations is fixed at it (the goal's difference less the surrogate's)."""
    assert o.prior is not None
    dev, dvar = o.prior.deviation.copy(), o.prior.deviation_var.copy()
    if implied is None or len(groups) < 2:
        return float(bias @ dev), float(bias**2 @ dvar)
    a, b = groups
    common, common_var = (dev[a] + dev[b]) / 2.0, (dvar[a] + dvar[b]) / 4.0
    dev[a], dev[b] = common + implied / 2.0, common - implied / 2.0
    rest = np.ones(dvar.size, dtype=bool)
    rest[[a, b]] = False
    var = float(bias[rest] ** 2 @ dvar[rest]) + (bias[a] + bias[b]) ** 2 * common_var
    return float(bias @ dev), var


def _shrunk(
    o: Outlook,
    c: np.ndarray,
    groups: list[int],
    delta: float,
    alpha: float,
    implied: float | None,
) -> tuple[float, float]:
    """Half-width and power (at ``delta``, signed as ``c``) of a shrunk contrast."""
    var = o.var
    if o.prior is None:  # no spread read from the pilot: no borrowing predicted
        se = float(np.sqrt(c * c @ var))
        return float(stats.t.isf(alpha / 2.0, o.df) * se), power_t(delta, se, o.df, alpha)
    halves, powers = [], []
    for mu2, kappa in estimated_spread(o.prior.mu2, var):
        w = mu2 / (mu2 + var)
        om = 1.0 / (var + mu2)
        om = om / om.sum()
        a_mat = np.diag(w) + np.outer(1.0 - w, om)
        noise = float(c @ (a_mat * var) @ a_mat.T @ c)
        bias = (a_mat - np.eye(var.size)).T @ c
        half = contrast_chi(noise, bias, mu2, kappa, alpha, o.df) * np.sqrt(noise)
        bias_mean, bias_var = _bias_law(o, bias, groups, implied)
        sd = np.sqrt(noise + bias_var)
        mean = delta + bias_mean
        halves.append(half)
        powers.append(stats.norm.sf((half - mean) / sd) + stats.norm.cdf((-half - mean) / sd))
    # the estimator's floor: each shrunk interval holds the contrast's own AEE interval
    # at 1 - 2 alpha; taken as the wider of the two, detected only where both exclude 0
    # (the two move together: the smaller power)
    own_se = float(np.sqrt(c * c @ var))
    level = floor_alpha(alpha)
    own_half = float(stats.t.isf(level / 2.0, o.df) * own_se)
    own_power = power_t(delta, own_se, o.df, level)
    half = float(np.mean(np.maximum(halves, own_half)))
    return half, float(min(np.mean(powers), own_power))


def contrast_metrics(
    o: Outlook,
    p: Prediction,
    groups: list[int],
    *,
    delta: float = 0.0,
    alpha: float = 0.05,
    surrogate_gap: float | None = None,
) -> dict[str, float]:
    """A group's mean (``groups=[g]``) or a difference ``a - b`` (``[a, b]``): the chance
    its interval is withheld, the expected half-width over the draws that give one, and
    the power to detect ``delta`` (withheld draws count as not detected). With
    ``surrogate_gap`` (the surrogate's ``a - b``, seen on every item) the part of
    ``delta`` left to the corrections is ``delta - surrogate_gap``, the part shrinkage
    pulls in."""
    c = np.zeros(len(o.var))
    c[groups[0]] = 1.0
    if len(groups) > 1:
        c[groups[1]] = -1.0
    sep, shr = o.branches(groups)
    half = power = 0.0
    if sep > 0:
        se = float(np.sqrt(max(c @ p.cov @ c, 0.0)))
        df = float(min(p.df[g] for g in groups))
        if o.pooling == "auto" and len(groups) > 1:
            # auto's separate means are its bootstrap branch (every group has 10 labels),
            # priced as Student-t on the pair's fewer labels less one (module docstring)
            df = max(float(min(p.labels[g] for g in groups)) - 1.0, 1.0)
        half += sep * float(stats.t.isf(alpha / 2.0, df) * se)
        power += sep * power_t(abs(delta), se, df, alpha)
    if shr > 0:
        implied = None if surrogate_gap is None else delta - surrogate_gap
        h, pw = _shrunk(o, c, groups, delta, alpha, implied)
        half += shr * h
        power += shr * pw
    answered = sep + shr
    return {
        "withheld": 1.0 - answered,
        "half_width": half / answered if answered > 0 else float("inf"),
        "power": power,
        "p_shrink": o.p_shrink if o.pooling != "separate" else 0.0,
    }


def labels_in_group_alone(
    st: PilotStatistics, group: int, half_width: float, alpha: float
) -> int | None:
    """The fewest labels in ``group`` for which its own AEE interval is within
    ``half_width`` when every new label goes to that group (the others kept at the
    pilot's): Student-t on the pooled residuals' df (the moderated t of a group with few
    labels), the finite group counted (a group whose every item is labeled is known
    exactly). None without a pilot. The plan's designs spread their labels over every
    group, as ``bacon sample`` draws them; this is what the group itself needs (tester A,
    session 36: 970 labels in all recommended, about 4 of them in a 5-item group, where 4
    labels in that group alone gave +-0.315 for a goal of 0.3)."""
    if st.n_labeled == 0 or not np.isfinite(st.sigma2[group]):
        return None
    size, have = int(st.sizes[group]), int(st.labels[group])
    n = np.arange(max(have, 2), size + 1, dtype=float)
    if n.size == 0:
        return size
    groups = int(np.count_nonzero(st.labels > 0)) + (have == 0)
    df = np.maximum(st.n_labeled + n - have - groups, 1.0)
    half = stats.t.isf(alpha / 2.0, df) * np.sqrt(np.maximum(1.0 / n - 1.0 / size, 0.0)
                                                  * st.sigma2[group])  # fmt: skip
    return int(n[int(np.argmax(half <= half_width))])  # the last, size, is exact


def weakest_lead(
    st: PilotStatistics, pooling: str = "auto", better: str = "higher"
) -> tuple[int, int, float, float] | None:
    """The top group on the plan's means (:func:`planning_means` under ``pooling``; the
    highest, or the lowest with ``better="lower"``), the group it leads by the fewest
    standard errors of the pilot (uniform design), that lead (positive: in the better
    direction) and its standard error; None without a pilot, or where every lead is exact
    (a wholly labeled pilot)."""
    if len(st.names) < 2 or st.n_labeled == 0 or not np.isfinite(st.means).any():
        return None
    p = predict(st, "uniform", st.n_labeled)
    means = planning_means(st, shrink_prior(st), pooling) * (-1.0 if better == "lower" else 1.0)
    top = int(np.nanargmax(means))
    worst: tuple[float, int, float, float] | None = None
    for k in np.flatnonzero(np.isfinite(means)):
        var = p.cov[top, top] + p.cov[k, k] - 2.0 * p.cov[top, k]
        if k == top or not var > 0:
            continue
        gap = float(means[top] - means[k])
        z = gap / math.sqrt(var)
        if worst is None or z < worst[0]:
            worst = (z, int(k), gap, math.sqrt(var))
    return None if worst is None else (top, worst[1], worst[2], worst[3])


def smallest_lead(
    st: PilotStatistics, pooling: str = "auto", better: str = "higher"
) -> float | None:
    """The top group's smallest lead in standard errors (:func:`weakest_lead`)."""
    lead = weakest_lead(st, pooling, better)
    return None if lead is None else lead[2] / lead[3]


def lead_note(st: PilotStatistics, pooling: str = "auto", better: str = "higher") -> str:
    """The top group's smallest lead in standard errors of the pilot, and what one
    standard error less would cost: the labels a lead needs grow as 1 / lead^2, so the
    range of the labels needed (the variance's alone) does not hold the gaps' error."""
    z = smallest_lead(st, pooling, better)
    if z is None:
        return ""
    cost = f"about {(z / (z - 1.0)) ** 2:.1f}x the labels" if z > 1.0 else "no finite number"
    return (
        f"; its smallest lead is {z:.1f} standard errors of the pilot: one less would need "
        f"{cost} (the range above is the residual variance's alone)"
    )


def withheld_notes(st: PilotStatistics, rows: list[Any], pooling: str) -> None:
    """An assumption line on the estimator the plan predicts, and where the plan's rows
    (``.design``, ``.at_budgets``) have intervals likely withheld."""
    if len(st.names) < 2:
        return
    st.assumptions.append(
        f"group estimator: pooling {pooling!r} (auto: shrunk toward the pool's correction "
        "while some group with labels has under 10, separate means for designs drawing "
        "prompts); "
        "an interval is withheld for a group without labels (shrunk) or under 5 (separate), "
        "and a withheld pair counts as not detected"
    )
    for r in rows:
        risky = [b for b in r.at_budgets if b.get("withheld", 0.0) > 0.01]
        if risky:
            st.assumptions.append(
                f"{r.design}: the goal's interval is withheld in "
                + ", ".join(f"{b['withheld']:.0%} of draws at {b['labels']:g}" for b in risky)
            )
