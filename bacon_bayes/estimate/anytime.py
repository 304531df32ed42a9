"""Anytime-valid intervals across labelling waves: every look's interval may be read, and
labelling stopped on any rule, and the intervals of all looks hold together with
``1 - alpha``.

A *look* is the estimate after a wave of labels, from all labels of that wave and the
earlier ones. The interval of the latest look is the fixed interval with its critical value
replaced by a sequential one. Two kinds, named in every result
(``details["interval_kind"]``):

``"alpha-spending"`` (group-sequential; when a maximum budget ``max_labels`` is given)
    Lan & DeMets (1983) spending with the O'Brien-Fleming-type function
    ``alpha(t) = 2 - 2 Phi(z_{1 - alpha/2} / sqrt(t))`` over the spending time ``t_k = n_k /
    max_labels`` (``n_k`` the labels at look ``k``). The critical values ``c_1..c_K`` of
    the looks so far solve ``P(|Z_1| < c_1, ..., |Z_{k-1}| < c_{k-1}, |Z_k| >= c_k) =
    alpha(t_k) - alpha(t_{k-1})`` under the canonical joint distribution of the looks'
    Z statistics (``corr(Z_j, Z_k) = sqrt(I_j / I_k)``), by recursive numerical
    integration of the score process on a grid (Armitage, McPherson & Rowe 1969;
    Jennison & Turnbull 2000, ch. 19). Valid at whatever look the user stops, up to the
    maximum; at the last look a little wider than the fixed interval (10 equal looks: 2.12
    against 1.96; 5 looks: 2.06). A last look past ``max_labels`` (a wave of random
    size that overran it) spends what is left of ``alpha`` there, its spending time taken
    as 1 and its correlations from the labels it has (overrunning, Jennison & Turnbull
    2000, 7.2.2); a look after one that reached the maximum refuses: the budget is spent.
``"confidence sequence"`` (no maximum)
    The asymptotic confidence sequence of Waudby-Smith, Arnold, Wu, Ramdas & Howard (Ann.
    Statist. 2024, Thm 2.2): Robbins' two-sided normal mixture on the estimate's running
    sum with its variance process, ``c_k = sqrt((1 + 1/u_k) (log(1 + u_k) + 2 log(1 /
    alpha)))`` with ``u_k = rho^2 I_k``. ``rho`` makes the boundary tightest at a planned
    look: ``u* = 2 log(1/alpha) + log(1 + u*)`` (the exact optimum; the paper's closed form
    is its first iteration) at ``plan_labels``, by default the first look's labels (a
    number the design fixes before any label is seen). Planning small costs little later
    (ten times the planned labels: ``c`` 3.24 against 3.03 at the plan) while planning
    large costs much earlier (a tenth: 3.85), hence the default. Valid at every look with
    no end; about 1.55-1.7 times the fixed width (``z = 1.96``) where the plan's
    neighbourhood lies. It depends on the latest look alone, so it needs no record of the
    earlier looks.

Information. ``I_k`` is counted in effective labels: ``n_k`` for the population target,
``1 / (1/n_k - 1/N)`` for the pool (the finite-population correction: nested samples of a
finite pool have exactly the canonical covariance, ``Cov(theta_j, theta_k) =
Var(theta_k)``, with it). A group mean counts its own labels and items; a difference of two
groups ``1 / (1/I_a + 1/I_b)``. Counting labels, not estimated variances, keeps the
information free of the outcomes, as the spending function needs.

Student-t looks (the significance level approach; Jennison & Turnbull 2000, sec. 3.8).
The boundary ``c_k`` above is on the normal scale. A look whose fixed interval is
Student-t with ``df_k`` keeps the boundary's nominal level ``p_k = 2 (1 - Phi(c_k))`` and
reads its critical value from its own reference distribution, ``t_{df_k}^{-1}(1 - p_k /
2)``: with few labels (small df) that is wider than the normal boundary scaled by the
fixed interval's ``t / z`` (df 4, ``c = 2.5``: 4.32 against 3.54). Without a df (normal or
bootstrap-t intervals, whose bootstrap distribution the table does not keep) the fixed
interval is scaled by ``c_k / z``, as below. So is a look whose variance was raised to the
residual floor (:func:`bacon_bayes.estimate.core.residual_floor`: 0/1 labels that the
judges rarely miss). Its fixed interval keeps the Student-t of the raw residuals' df (a
handful of misses: df near 2), but the floor is a bound that the labels could not
establish, not an estimate with those degrees of freedom, and ``t_2`` read at a
boundary's level is far in its polynomial tail. On TriviaQA's first study wave (96
labels, 3 judges, df 2.2) the confidence sequence was 4.15 times the fixed width and
wider than the labels-only one (critical value 16.3); scaled by ``c / z``, it is 1.55
times (6.1). In 400 simulated sequences per cell (0/1 labels, judges missing 1-6% of
items, 10 looks of 32 or 64 labels) the two rules missed at some look in the same
sequences (``benchmarks/floor_anytime.py``; VALIDATION.md).

Tables. A group table's rows keep their own guarantee (per group, simultaneous max-|t|,
Bonferroni, shrunk on average over groups) at every look: ``c_seq`` is taken at
``alpha_r``, the pointwise level the fixed table gives that row (from its critical value
and df; the nominal level, or ``alpha / K`` when simultaneous, for shrunk tables, whose
robust empirical-Bayes critical values carry a bias allowance). A row with a df (not
shrunk) gets the Student-t critical value at ``c_seq``'s nominal level, as above; any
other row's interval is the fixed one scaled about the estimate by ``c_seq(alpha_r) /
z(alpha_r)``, which keeps a bootstrap correction of the fixed interval. For shrunk group
means this is the sequential critical value in place of the fixed one; their guarantee
stays the shrunk one (on average over the groups) and holds at every look only as far as
the normal approximation of each row does. A shrunk mean's fixed interval holds the
group's own Student-t interval at ``1 - 2 alpha_r`` (the floor that keeps each group at
least that often, :mod:`.shrink`); at an anytime look that floor is read at the look's own
level as any Student-t row (the boundary for ``2 alpha_r``, the t on the floor's df at its
nominal level), not scaled with the robust part (:func:`_own_floor`).

Why the estimate at each look may use the full cross-fit. At look ``k`` the calibrator is
fitted on every label so far and cross-fitted (each label's surrogate fitted on the other
folds, which hold later waves' labels too). The guarantee rests on the asymptotic
equivalence of the cross-fitted AEE to ``theta + sum_i S_i / pi_i (y_i - f_bar(x_i)) / N``
with a fixed limiting surrogate ``f_bar`` (the error of a cross-fitted surrogate enters at
second order): under Poisson waves the Horvitz-Thompson sums of nested label sets have the
canonical covariance above, and under adaptive waves (probabilities fitted on earlier
waves) the weights are the wave-by-wave ones of
:func:`bacon_bayes.inclusion.sequential_propensity` (a study folder uses them, at the
prompt level for paired-adaptive waves: :func:`bacon_bayes.inclusion.sequential_inclusion`;
the union ``1 - prod_w (1 - p_w)`` is biased there), whose waves' terms are martingale increments
given the earlier ones, so the looks' statistics converge to the same canonical process.
The alternative, per-wave increments
whose surrogate is fitted on earlier waves only (each wave's estimate conditionally
unbiased given the earlier ones, combined with predictable inverse-variance weights), is an
exact martingale but pays at every look for the early waves' weak surrogates (the first
has none). Measured on the known-truth simulator (``benchmarks/anytime_sim.py``: 10 waves
of 30 labels to 25% of a 1,200-item pool, 1,000 sequences, pool mean; EXPERIMENTS.md),
both hold: the chance that some look misses is 0.043 (uniform) / 0.040 (adaptive) for the
full cross-fit with alpha-spending against 0.041 / 0.017 for the increments (Monte Carlo
se 0.006), and the last look's width over the fixed interval is 1.10 / 1.10 against
1.18 / 1.35 (confidence sequence: 1.68 / 1.68 against 1.82 / 2.08). The full
cross-fit is used: it holds as well and is narrower, and its latest look is exactly the
fixed estimate.

The looks' own correlation. A surrogate refitted between looks makes them less
correlated than canonical (SummEval, looks 8 and 9: 0.921 against 0.932), and the
canonical boundary then spends more than ``alpha``. :func:`look_cosines` estimates each
adjacent pair's correlation as the canonical one times the cosine of the two looks'
residuals on their shared labels, and :func:`correlated_information` turns it into the
information ``J`` of a canonical process with that correlation (``anytime_estimate(...,
cosines=...)``); cosines of 1 give the canonical boundary. It needs each earlier look's
own fit: the Calibrator's frequentist pool mean refits them (:mod:`bacon_bayes.look_fits`;
the Bayesian engine keeps the canonical boundary and says so in
``details["anytime"]["correlation_note"]``). EXPERIMENTS.md, "The pool mean's boundary on
the looks' own correlation": SummEval's some-look miss 0.0558 to 0.0530 at 1% more width.

A skewed pool mean's looks (Hall's term). Early looks read the studentised estimate far
in its tails (10 looks: a nominal 0.0009 a side at look 4). The draws that miss a
left-skewed pool's rare low labels give a high estimate and a small standard error
together, so that side misses more than its share. The studentised Hajek mean has
``P(T <= x) = Phi(x) + phi(x) delta(x)`` under the Poisson design, ``delta(x) = rho x^2 /
2 - gamma (x^2 - 1) / 6`` (Hall 1992's expansion; ``shape.skew_moments``), so the end on
the skewed side reaches out by ``|delta(c)|`` standard errors at the look's normal
boundary ``c`` (a Student-t look: its own critical value plus that), the other end kept
(``shape.skew_reach``; ``anytime_estimate(..., shape=...)``, on the looks' own
correlation); the fixed interval keeps its own. SummEval relevance (skewness -0.40):
some look misses 0.0532 -> 0.0480, 1% wider (EXPERIMENTS.md "Where the pool mean's misses are").

Libraries. ``confseq`` (Howard et al.) gives the normal-mixture boundary, a closed form of
two lines here, and no group-sequential spending; ``expectation`` gives e-processes and
betting sequences for bounded observations, not Lan-DeMets boundaries on the canonical
joint distribution of a weighted estimator. Neither is used.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special, stats

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.core import VARIANCE_FLOOR
from bacon_bayes.estimate.shape import skew_reach
from bacon_bayes.results import Estimate, EstimateTable

Kind = Literal["alpha-spending", "confidence sequence"]
ALPHA_SPENDING: Kind = "alpha-spending"
CONFIDENCE_SEQUENCE: Kind = "confidence sequence"
#: Fewest and most grid points of the recursive integration (odd: Simpson's rule); between
#: them, a spacing of the smallest increment's standard deviation over a grid of ``SPAN``
#: standard deviations of the score (Simpson's rule on Gaussian kernels is then accurate to
#: about 1e-8; checked against finer grids and simulation in tests/test_anytime.py).
GRID = 101
MAX_GRID = 801
SPAN = 12.0
#: Looks whose information grows by less than this share of the previous one merge.
MIN_GROWTH = 1e-3
#: The least cosine of two looks' influence values (:func:`look_cosines`) taken as such.
MIN_COSINE = 0.05
#: Cosines within this of 1 are 1 (rounding of the same residuals' sums).
EXACT = 1e-12
#: ``details["anytime"]["correlation"]`` of an alpha-spending interval: the looks'
#: correlation its boundary is on
OWN_CORRELATION = "looks' own"
CANONICAL = "canonical"


def obf_spending(t: np.ndarray | float, alpha: float) -> np.ndarray:
    """Lan-DeMets O'Brien-Fleming-type alpha spent by information time ``t`` in [0, 1]."""
    t = np.clip(np.asarray(t, dtype=float), 0.0, 1.0)
    z = stats.norm.isf(alpha / 2.0)
    with np.errstate(divide="ignore"):
        return np.where(t > 0, 2.0 * stats.norm.sf(z / np.sqrt(np.maximum(t, 1e-300))), 0.0)


def _simpson(n: int) -> np.ndarray:
    w = np.ones(n)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return w / 3.0


def _exit(
    c: np.ndarray, x: np.ndarray, mass: np.ndarray, sd: np.ndarray, root: np.ndarray
) -> np.ndarray:
    """Per row, the chance to cross ``+-c`` first at the next look (information up by
    ``sd^2``, to ``root^2``) from the score's sub-density ``mass`` on the grid ``x``."""
    b = (c * root)[:, None]
    s = sd[:, None]
    return (mass * (special.ndtr((-b - x) / s) + special.ndtr((x - b) / s))).sum(axis=1)


def spending_critical_values(info: np.ndarray, spent: np.ndarray) -> np.ndarray:
    """Two-sided critical values of looks with information ``info`` (increasing along the
    last axis) that spend the cumulative error ``spent`` (non-decreasing), under the
    canonical joint distribution: recursive integration of the score process on a grid,
    the boundaries by bisection, vectorised over rows (shape (K,) or (R, K))."""
    one = np.ndim(info) == 1
    info = np.atleast_2d(np.asarray(info, dtype=float))
    info = info / info[:, -1:]
    spent = np.broadcast_to(np.asarray(spent, dtype=float), info.shape)
    # grid points: see GRID; rows that need alike grids run together
    steps = np.sqrt(np.diff(info, axis=1, prepend=0.0)).min(axis=1)
    points = np.clip(SPAN / np.maximum(steps, 1e-9), GRID, MAX_GRID)
    sizes = 2 * (2 ** np.ceil(np.log2(points / GRID)) * GRID // 2).astype(int) + 1
    c = np.empty(info.shape)
    for size in np.unique(sizes):
        rows = sizes == size
        c[rows] = _spending_block(info[rows], spent[rows], int(min(size, MAX_GRID)))
    return c[0] if one else c


def _spending_block(info: np.ndarray, spent: np.ndarray, size: int) -> np.ndarray:
    """:func:`spending_critical_values` of rows on one grid of ``size`` points."""
    rows, looks = info.shape
    c = np.full(info.shape, np.inf)
    c[:, 0] = np.where(spent[:, 0] > 0, stats.norm.isf(np.maximum(spent[:, 0], 1e-300) / 2), np.inf)
    simpson, unit = _simpson(size), np.linspace(-1.0, 1.0, size)
    # sub-density of the score S_1 = Z_1 sqrt(I_1) where no boundary was crossed
    half = np.where(np.isfinite(c[:, 0]), c[:, 0], 9.0) * np.sqrt(info[:, 0])
    x = half[:, None] * unit
    var0 = info[:, :1]
    mass = (
        np.exp(-0.5 * x * x / var0) / np.sqrt(2 * np.pi * var0) * simpson * (x[:, 1:2] - x[:, :1])
    )
    for k in range(1, looks):
        sd, root = np.sqrt(info[:, k] - info[:, k - 1]), np.sqrt(info[:, k])
        target = spent[:, k] - spent[:, k - 1]
        lo, hi = np.zeros(rows), np.full(rows, 60.0)
        for _ in range(40):  # bisection: the exit chance falls as the boundary rises
            mid = 0.5 * (lo + hi)
            over = _exit(mid, x, mass, sd, root) > target
            lo, hi = np.where(over, mid, lo), np.where(over, hi, mid)
        c[:, k] = np.where(target > 1e-15, hi, np.inf)
        half = np.where(np.isfinite(c[:, k]), c[:, k] * root, x.max(axis=1) + 9.0 * sd)
        y = half[:, None] * unit
        kernel = np.exp(-0.5 * ((y[:, :, None] - x[:, None, :]) / sd[:, None, None]) ** 2)
        dens = np.einsum("rgh,rh->rg", kernel, mass) / (sd[:, None] * np.sqrt(2 * np.pi))
        x, mass = y, dens * simpson * (y[:, 1:2] - y[:, :1])
    return c


def mixture_tuning(alpha: float) -> float:
    """``u* = rho^2 I*``, where the normal-mixture boundary is tightest: the root of
    ``u = 2 log(1/alpha) + log(1 + u)``."""
    big = 2.0 * np.log(1.0 / alpha)
    u = big
    for _ in range(50):
        u = big + np.log1p(u)
    return float(u)


def mixture_critical_value(u: np.ndarray | float, alpha: float) -> np.ndarray:
    """Robbins' two-sided normal-mixture boundary in units of the standard error at
    ``u = rho^2 I``: ``sqrt((1 + 1/u) (log(1 + u) + 2 log(1/alpha)))``."""
    u = np.asarray(u, dtype=float)
    return np.sqrt((1.0 + 1.0 / u) * (np.log1p(u) + 2.0 * np.log(1.0 / alpha)))


def effective_labels(
    n: np.ndarray | float, n_items: np.ndarray | float | None = None
) -> np.ndarray:
    """Information in labels: ``n``, or ``1 / (1/n - 1/N)`` with the pool's (or group's)
    ``N`` items (the finite-population correction); 0 where ``n`` is 0, ``inf`` at ``n >= N``."""
    n = np.asarray(n, dtype=float)
    if n_items is None:
        return n
    big = np.broadcast_to(np.asarray(n_items, dtype=float), n.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(n < big, 1.0 / (1.0 / n - 1.0 / big), np.inf)
    return np.where(n > 0, out, 0.0)


def pair_information(info: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Information of the differences ``a - b`` from the groups' (rows ``(m, K)``); 0
    where both groups are wholly labeled (infinite information: the difference is known,
    its fixed interval has width 0, which no factor widens)."""
    info = np.asarray(info, dtype=float)
    with np.errstate(divide="ignore"):
        inv = 1.0 / info
        out = np.array([1.0 / (inv[a] + inv[b]) for a, b in pairs])
    return np.where(np.isfinite(out), out, 0.0).reshape(len(pairs), info.shape[1])


def _usable(info: np.ndarray) -> np.ndarray:
    """Looks that carry new information (a first look with some, then growth above
    :data:`MIN_GROWTH`; a look that adds nothing merges into the next, which is valid: its
    statistic is the same, and the merged look spends what both would)."""
    keep = np.zeros(info.size, dtype=bool)
    last = 0.0
    for k in range(info.size - 1, -1, -1):  # from the latest look back
        if info[k] > 0 and (not keep.any() or info[k] < last * (1 - MIN_GROWTH)):
            keep[k], last = True, info[k]
    return keep


def look_cosines(resid: list[np.ndarray], pi: list[np.ndarray]) -> np.ndarray:
    """The cosine of adjacent looks' influence values on the labels they share.

    ``resid[k]`` holds look ``k``'s residuals (its own surrogate and weight) of its labels,
    in an order where look ``k - 1``'s labels come first; ``pi[k]`` their inclusion
    probabilities then (leading axes: several sequences). With the Poisson-design
    covariance ``Cov(theta_j, theta_k) = sum_{S_j} w_j w_k (1 - pi_k) r_j r_k`` (nested
    labels), ``corr(theta_j, theta_k)`` is the canonical ``sqrt(I_j / I_k)`` times the
    cosine ``sum q r_j r_k / sqrt(sum q r_j^2 sum q r_k^2)`` over ``S_j``, ``q = w_j w_k
    (1 - pi_k)`` (exact for equal probabilities within a look), each look's residuals
    centred at their ``q``-weighted mean over ``S_j`` (as a variance estimate centres
    them: the later look's residuals are centred over its own labels, and their mean over
    the earlier look's is noise). 1 where neither the surrogate nor its weight changed
    (or the later look labels everything); shape ``(..., K - 1)``."""
    out = []
    for k in range(1, len(resid)):
        n = np.shape(resid[k - 1])[-1]
        rj, rk = np.asarray(resid[k - 1], float), np.asarray(resid[k], float)[..., :n]
        pj, pk = np.asarray(pi[k - 1], float), np.asarray(pi[k], float)[..., :n]
        q = (1.0 - pk) / (pj * pk)
        total = q.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            rj = rj - np.where(total > 0, (q * rj).sum(axis=-1, keepdims=True) / total, 0.0)
            rk = rk - np.where(total > 0, (q * rk).sum(axis=-1, keepdims=True) / total, 0.0)
        num = (q * rj * rk).sum(axis=-1)
        den = np.sqrt((q * rj * rj).sum(axis=-1) * (q * rk * rk).sum(axis=-1))
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)
        cos = np.where(cos > 1.0 - EXACT, 1.0, cos)  # the same residuals: exactly 1
        out.append(np.clip(cos, MIN_COSINE, 1.0))
    return np.stack(out, axis=-1) if out else np.ones((*np.shape(resid[0])[:-1], 0))


def correlated_information(info: np.ndarray, cosines: np.ndarray) -> np.ndarray:
    """The information ``J`` whose canonical correlation ``sqrt(J_j / J_k)`` is that of
    looks with information ``info`` whose adjacent looks' influence values have the
    cosines ``cosines`` (:func:`look_cosines`): ``J_1 = I_1``, ``J_k = J_{k-1} (I_k /
    I_{k-1}) / cos_{k-1,k}^2``, i.e. ``I_k`` over the product of the squared cosines up to
    look ``k`` (a Markov process: the correlation of distant looks the
    product of the adjacent ones'). All cosines 1 give ``info`` itself (the canonical
    case); lower ones, looks less correlated than canonical (a surrogate refitted between
    them), and so a higher boundary. Looks along the last axis; a row with a look of
    information 0 or infinite is returned as it is."""
    info = np.asarray(info, dtype=float)
    cos = np.clip(np.asarray(cosines, dtype=float), MIN_COSINE, 1.0)
    shrink = np.cumprod(cos**2, axis=-1)  # J_k = I_k / prod_{i<k} cos_i^2
    shrink = np.concatenate([np.ones((*shrink.shape[:-1], 1)), shrink], axis=-1)
    good = ((info > 0) & np.isfinite(info)).all(axis=-1, keepdims=True)
    return np.where(good, info / shrink, info)


def sequential_critical_values(
    info: np.ndarray,
    levels: np.ndarray | float,
    *,
    times: np.ndarray | None = None,
    plans: np.ndarray | None = None,
) -> np.ndarray:
    """The critical values at the latest look of several quantities.

    Parameters
    ----------
    info : array, shape (R, K)
        Each quantity's information (effective labels) at the looks so far, latest last.
    levels : float or array, shape (R,)
        Error allowed over all looks, per quantity.
    times : array, shape (K,), optional
        Spending times ``n_k / max_labels`` in [0, 1]: alpha-spending. Without: the
        confidence sequence.
    plans : array, shape (R,), optional
        Confidence sequence: the information at which each is tightest (default, or NaN:
        its first look's).

    Returns
    -------
    ndarray, shape (R,)
        NaN where a quantity has no information, 0 where it is known exactly.
    """
    info = np.atleast_2d(np.asarray(info, dtype=float))
    rows = info.shape[0]
    levels = np.broadcast_to(np.asarray(levels, dtype=float), (rows,))
    out = np.full(rows, np.nan)
    last = info[:, -1]
    out[np.isinf(last)] = 0.0  # every item labeled: the estimate is exact
    todo = np.flatnonzero((last > 0) & np.isfinite(last) & (levels > 0))
    keeps = {r: _usable(info[r]) for r in todo}
    if times is None:
        for r in todo:
            base = info[r][keeps[r]][0]
            if plans is not None and np.isfinite(plans[r]) and plans[r] > 0:
                base = plans[r]
            out[r] = mixture_critical_value(mixture_tuning(levels[r]) * last[r] / base, levels[r])
        return out
    t = np.asarray(times, dtype=float)
    spent = np.stack([obf_spending(t, a) for a in levels])
    # a look that adds nothing merges into the next (which spends what both would)
    patterns: dict[tuple[bool, ...], list[int]] = {}
    for r in todo:
        patterns.setdefault(tuple(keeps[r].tolist()), []).append(int(r))
    for pattern, members in patterns.items():
        keep = np.array(pattern)
        c = spending_critical_values(info[members][:, keep], spent[members][:, keep])
        out[members] = c[:, -1]
    return out


def sequential_critical_value(
    info: np.ndarray,
    alpha: float,
    *,
    times: np.ndarray | None = None,
    plan: float | None = None,
) -> float:
    """:func:`sequential_critical_values` of one quantity (``info`` of shape (K,))."""
    plans = None if plan is None else np.array([plan], dtype=float)
    return float(sequential_critical_values(info, alpha, times=times, plans=plans)[0])


def _kind(max_labels: int | None) -> Kind:
    return CONFIDENCE_SEQUENCE if max_labels is None else ALPHA_SPENDING


def spending_times(looks: np.ndarray, max_labels: int | None) -> np.ndarray | None:
    """``n_k / max_labels`` of the pool's labels at the looks, at most 1 (None: no
    maximum); refuses when the labels reached the maximum before the latest look (its
    alpha is spent)."""
    if max_labels is None:
        return None
    looks = np.asarray(looks, dtype=float)
    if not max_labels >= 1:
        raise ValidationError(f"max_labels={max_labels!r} must be a positive number of labels.")
    over = np.flatnonzero(looks >= max_labels)
    if over.size and over[0] < looks.size - 1:
        raise ValidationError(
            f"{int(looks[over[0]])} labels at look {int(over[0]) + 1} already reached "
            f"max_labels={max_labels}, and later waves came after it: the alpha-spending plan "
            "is used up. On a table (--wave), give max_labels the budget planned from the "
            "start, or none (the confidence sequence); a study records its budget for good "
            "(bacon sample refuses another), so its labels past it get one look's intervals "
            "only (bacon estimate STUDY --fixed)."
        )
    return np.minimum(looks / float(max_labels), 1.0)  # an overrun: the rest spent at it


def _row_level(crit: float, df: float | None) -> float:
    """The pointwise level a fixed critical value gives a row."""
    if not np.isfinite(crit):
        return float("nan")
    if df is None:
        return float(2.0 * stats.norm.sf(crit))
    return float(2.0 * stats.t.sf(crit, max(float(df), 1.0)))


def studentised(c: np.ndarray | float, df: np.ndarray | float | None) -> np.ndarray:
    """The critical value of a Student-t look with ``df`` at the nominal level ``2 (1 -
    Phi(c))`` of the normal boundary ``c`` (the significance level approach); ``c`` itself
    where ``df`` is None, NaN or infinite."""
    c = np.asarray(c, dtype=float)
    if df is None:
        return c
    c, df = np.broadcast_arrays(c, np.asarray(df, dtype=float))
    with np.errstate(invalid="ignore"):
        t = stats.t.isf(stats.norm.sf(c), np.maximum(np.nan_to_num(df, nan=1.0), 1.0))
    return np.where(np.isfinite(df), t, c)


def inflation(
    info: np.ndarray,
    level: float,
    *,
    times: np.ndarray | None = None,
    plan: float | None = None,
) -> tuple[float, float]:
    """The factor ``c_seq / z`` by which a fixed interval at pointwise ``level`` widens, and
    ``c_seq``."""
    c = sequential_critical_value(info, level, times=times, plan=plan)
    return c / float(stats.norm.isf(level / 2.0)), c


def anytime_estimate(
    e: Estimate,
    looks: np.ndarray,
    n_items: int | None = None,
    *,
    info: np.ndarray | None = None,
    max_labels: int | None = None,
    plan_labels: int | None = None,
    cosines: np.ndarray | None = None,
    shape: tuple[float, float] | None = None,
) -> Estimate:
    """The anytime interval at the latest look of a pool-level estimate ``e`` (the fixed
    interval of all labels so far).

    Parameters
    ----------
    e : Estimate
        The fixed estimate at the latest look (its ``details["df"]``, when present, is the
        Student-t df of its critical value).
    looks : array, shape (K,)
        The labels at each look, the latest last.
    n_items : int, optional
        The pool's size for the finite-population correction (None: population target).
    info : array, shape (K,), optional
        The information at the looks when it is not ``effective_labels(looks, n_items)``
        (e.g. labeled prompts when the variance is clustered by prompt).
    max_labels : int, optional
        The maximum budget: alpha-spending; without, the confidence sequence.
    plan_labels : int, optional
        Confidence sequence: the labels where it is tightest (default: the first look's).
    cosines : array, shape (K - 1,), optional
        Alpha-spending: the adjacent looks' cosines (:func:`look_cosines`, from each look's
        own fit); the boundary is then on the looks' own correlation
        (:func:`correlated_information`) instead of the canonical one (all 1: the same).
    shape : (float, float), optional
        Alpha-spending: the estimate's skewness and covariance (``shape.skew_moments``);
        the end on the skewed side reaches out by Hall's term at the look's critical value
        (``shape.skew_reach``; not at a look whose variance is at the residual floor).
    """
    looks = np.asarray(looks, dtype=float)
    times = spending_times(looks, max_labels)
    info = effective_labels(looks, n_items) if info is None else np.asarray(info, dtype=float)
    if cosines is not None and times is not None:
        info = correlated_information(info, cosines)
    plan = None
    if plan_labels is not None and np.isfinite(info[-1]):
        plan = float(info[-1]) * plan_labels / float(looks[-1])
    df = e.details.get("df")
    crit = float(stats.t.isf(e.alpha / 2.0, df)) if df else float(stats.norm.isf(e.alpha / 2))
    level = _row_level(crit, df)
    factor, c = inflation(info, level, times=times, plan=plan)
    if df and not e.details.get(VARIANCE_FLOOR):
        # the Student-t look's own critical value at the boundary's nominal level; a
        # variance raised to the residual floor is no estimate with ``df`` degrees of
        # freedom, so that look is scaled by c / z (module docstring)
        factor = float(studentised(c, float(df))) / crit
    lo = e.estimate - factor * (e.estimate - e.ci_low)
    hi = e.estimate + factor * (e.ci_high - e.estimate)
    kind = _kind(max_labels)
    note: dict[str, Any] = {"kind": kind, "looks": int(looks.size)}
    note["labels_at_looks"] = [int(v) for v in looks]
    if times is not None:  # the boundary's correlation of the looks (module docstring)
        note["correlation"] = CANONICAL if cosines is None else OWN_CORRELATION
        note["cosines"] = None if cosines is None else [float(v) for v in np.ravel(cosines)]
    if times is not None and shape is not None and not e.details.get(VARIANCE_FLOOR):
        # Hall's term on the skewed side, at this look's boundary (module docstring)
        down, up = skew_reach(c, *shape)
        lo, hi = lo - float(down) * e.se, hi + float(up) * e.se
        note["skew"] = {"skewness": float(shape[0]), "covariance": float(shape[1])}
        note["skew"] |= {"reach": float(max(down, up))}
    note |= {"critical_value": c, "fixed_critical_value": crit, "widening": factor}
    note |= {"level": level, "anytime_critical_value": factor * crit}
    note |= _budget(looks, max_labels, e.alpha, plan_labels)
    details = {**e.details, "interval_kind": kind, "anytime": note}
    return replace(e, ci_low=float(lo), ci_high=float(hi), details=details)


def _budget(
    looks: np.ndarray, max_labels: int | None, alpha: float, plan: int | None
) -> dict[str, Any]:
    if max_labels is None:
        return {"plan_labels": int(looks[0] if plan is None else plan)}
    spent = float(obf_spending(looks[-1] / max_labels, alpha))
    return {"max_labels": int(max_labels), "alpha_spent": spent}


def anytime_table(
    table: EstimateTable,
    info: np.ndarray,
    looks: np.ndarray,
    *,
    max_labels: int | None = None,
    plan_labels: int | None = None,
) -> EstimateTable:
    """The anytime intervals at the latest look of a group table (means or differences).

    Parameters
    ----------
    table : EstimateTable
        The fixed table at the latest look.
    info : array, shape (rows, K)
        Each row's information (effective labels) at the looks (:func:`effective_labels`,
        :func:`pair_information`).
    looks : array, shape (K,)
        The pool's labels at the looks (the spending time, and the plan's scale).
    max_labels, plan_labels : int, optional
        As in :func:`anytime_estimate` (``plan_labels`` scaled to each row by its share of
        the information at the latest look).
    """
    looks = np.asarray(looks, dtype=float)
    info = np.asarray(info, dtype=float).reshape(len(table), looks.size)
    times = spending_times(looks, max_labels)
    shrunk = table.details.get("pooling") == "shrink"
    dfs = table.details.get("df")
    levels, plans = np.full(len(table), np.nan), np.full(len(table), np.nan)
    row_df = np.full(len(table), np.nan)  # NaN: no Student-t look (scaled by c / z)
    for r in range(len(table)):
        if shrunk:
            levels[r] = table.alpha / (len(table) if table.simultaneous != "none" else 1)
        else:
            df = None if not dfs or dfs[r] is None else float(dfs[r])
            levels[r] = _row_level(float(table.critical_value[r]), df)
            row_df[r] = np.nan if df is None else max(df, 1.0)
        if plan_labels is not None and np.isfinite(info[r, -1]):
            plans[r] = float(info[r, -1]) * plan_labels / float(looks[-1])
    levels = np.where(np.isfinite(levels), levels, 0.0)
    crit_seq = sequential_critical_values(info, levels, times=times, plans=plans)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = crit_seq / stats.norm.isf(levels / 2.0)
        # a Student-t row: its own critical value at the boundary's nominal level
        t_rows = np.isfinite(row_df) & np.isfinite(crit_seq) & (crit_seq > 0)
        own = studentised(crit_seq, row_df) / table.critical_value
        factor = np.where(t_rows, own, factor)
    f = np.where(np.isfinite(factor), factor, 1.0)
    est = table.estimate
    low, high = est - f * (est - table.ci_low), est + f * (table.ci_high - est)
    kind = _kind(max_labels)
    note: dict[str, Any] = {"kind": kind, "looks": int(looks.size)}
    note["labels_at_looks"] = [int(v) for v in looks]
    note |= {"critical_value": crit_seq, "widening": factor, "level": levels}
    note |= _budget(looks, max_labels, table.alpha, plan_labels)
    parts = _own_parts(table) if shrunk else None
    if parts is not None:  # shrunk group means and their differences
        low, high, held = _own_floor(table, parts, info, levels, times, plans, low, high)
        note["own_floor"] = held
        with np.errstate(divide="ignore", invalid="ignore"):  # width over the fixed width
            moved = np.isin(np.asarray(table.names, dtype=str), held)
            note["widening"] = np.where(
                moved, (high - low) / (table.ci_high - table.ci_low), factor
            )
    return replace(
        table,
        ci_low=low,
        ci_high=high,
        critical_value=table.critical_value * f,
        details={**table.details, "interval_kind": kind, "anytime": note},
    )


def _own_parts(table: EstimateTable) -> tuple[np.ndarray, ...] | None:
    """A shrunk table's rows' own-interval floors, their own estimates, variances and df
    (NaN where none): a group table's own columns, a difference table's ``own_floor``."""
    det = table.details
    group = "own_estimate" in det
    src: dict[str, Any] | None = det if group else det.get("own_floor")
    keys = ("own_estimate", "noise_var", "df") if group else ("estimate", "var", "df")
    if src is None:
        return None
    return tuple(np.array([np.nan if v is None else float(v) for v in src[k]]) for k in keys)


def _own_floor(
    table: EstimateTable,
    parts: tuple[np.ndarray, ...],
    info: np.ndarray,
    levels: np.ndarray,
    times: np.ndarray | None,
    plans: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A shrunk table's anytime ends ``low, high`` joined with each row's own-interval
    floor (``parts``) read at the look's own level, as any Student-t row's look: own
    estimate +- the t on its df at the nominal level of the boundary for ``1 - 2 alpha_r``
    (:func:`~.shrink.floor_alpha`); and the rows it moved. Scaled by ``c / z`` instead, a
    floor on few df is under-widened (EXPERIMENTS.md, "The worst single group across
    looks"; VALIDATION.md, 2026-12-04, for the differences)."""
    own, var, df = parts
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(own) & np.isfinite(var) & np.isfinite(table.ci_low) & (df > 0)
    floor_levels = np.where(ok, np.minimum(2.0 * levels, 0.5), 0.0)
    c = sequential_critical_values(info, floor_levels, times=times, plans=plans)
    with np.errstate(invalid="ignore"):
        half = studentised(c, np.where(ok, df, np.nan)) * np.sqrt(var)
        ok &= np.isfinite(half)
        new_low = np.where(ok, np.fmin(low, own - half), low)
        new_high = np.where(ok, np.fmax(high, own + half), high)
    moved = (new_low < low) | (new_high > high)
    return new_low, new_high, [str(table.names[k]) for k in np.flatnonzero(moved)]


def look_counts(
    waves: np.ndarray,
    codes: np.ndarray | None = None,
    m: int = 1,
    prompts: np.ndarray | None = None,
) -> np.ndarray:
    """Labels at each look: ``waves`` holds each item's wave code (0..K-1; -1 unlabeled);
    returns shape (K,) for the pool, or (m, K) by group ``codes`` (with ``prompts``: the
    labeled prompts instead of labeled items)."""
    waves = np.asarray(waves)
    n_looks = int(waves.max()) + 1 if waves.size and waves.max() >= 0 else 0
    lab = waves >= 0
    g = np.zeros(int(lab.sum()), dtype=np.intp) if codes is None else np.asarray(codes)[lab]
    w = waves[lab].astype(np.intp)
    if prompts is not None:  # a prompt counts once (per group), at the wave of its first label
        first = pd.DataFrame({"g": g, "p": np.asarray(prompts)[lab], "w": w})
        first = first.groupby(["g", "p"], sort=False)["w"].min().reset_index()
        g, w = first["g"].to_numpy(np.intp), first["w"].to_numpy(np.intp)
    out = np.zeros((m if codes is not None else 1, n_looks))
    np.add.at(out, (g, w), 1.0)
    out = np.cumsum(out, axis=1)
    return out if codes is not None else out[0]
