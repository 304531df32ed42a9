"""The group means and one pair's difference at each look of issue 41's harness
(:mod:`benchmarks.anytime_validation`), as the package's default ``pooling="auto"`` gives
them (:func:`bacon_bayes.estimate.shrink.choose_pooling`): while some group has fewer than
:data:`~bacon_bayes.estimate.shrink.MIN_SEPARATE_LABELS` labels (and at least
:data:`~bacon_bayes.estimate.shrink.MIN_SHRINK_GROUPS` groups have one), the shrunk means
with their robust EB intervals (:func:`~bacon_bayes.estimate.shrink.shrink_table`, the
pair by :func:`~bacon_bayes.estimate.shrink.shrunk_pair`); once every group has
:data:`~bacon_bayes.estimate.groups.MIN_BOOTSTRAP_LABELS`, the bootstrap branch; between
(``pooling="separate"``, or too few groups labeled), the moderated t.

Each look's interval is stored as the estimate, its se and the distances to the interval's
ends in se (``low``, ``high``: both the critical value where it is symmetric; a shrunk
interval holds the group's own interval as a floor, so it need not be), with the df of a
Student-t look (infinite for the rest, whose anytime interval scales both distances by
``c / z``, as :func:`bacon_bayes.estimate.anytime.anytime_table` does).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from bacon_bayes.estimate import anytime as at
from bacon_bayes.estimate.core import mean_core
from bacon_bayes.estimate.critical import bootstrap_t_critical_values, resample_moderation
from bacon_bayes.estimate.groups import MIN_BOOTSTRAP_LABELS
from bacon_bayes.estimate.moderate import moderated_variance
from bacon_bayes.estimate.shape import shrunk_skewness, skew_shift
from bacon_bayes.estimate.shrink import (
    Corrections,
    choose_pooling,
    group_corrections,
    shrink_table,
    shrunk_differences,
    shrunk_pair,
)
from bacon_bayes.grouping import MIN_GROUP_LABELS

ALPHA = 0.05
#: a group with fewer labels at a look has no separate interval there (the package's)
MIN_GROUP = MIN_GROUP_LABELS
#: the group outputs, axis 0 of :func:`group_looks`'s ``out``
FIELDS = (
    "estimate", "se", "df", "crit", "low", "high", "skew", "own ratio", "t df",
    # a shrunk row's own-interval floor: its own estimate, the moderated variance and df
    # the floor reads, its own (unmoderated) variance and its shrunk skewness (NaN
    # elsewhere; :mod:`benchmarks.anytime_shrunk_floor`'s rules read them)
    "own estimate", "floor var", "floor df", "own var", "shrunk skew",
)  # fmt: skip
POOLINGS = ("auto", "separate")
#: the bootstrap branch's skewed side reaches as :func:`bacon_bayes.estimate.shape.skew_join`
#: (``python -m benchmarks.anytime_validation --no-skew-reach``: not, as before it)
SKEW_REACH = True
#: a candidate, measured and not adopted (VALIDATION.md, 2026-12-03): an anytime look
#: reads the reach again at its own level (``--anytime-reach``); the package's (False)
#: scales the fixed reach by ``c / z`` with the rest of the interval
ANYTIME_REACH = False
#: an anytime look joins a shrunk row's interval with its own-interval floor read at the
#: look's own level, as the package's (:func:`bacon_bayes.estimate.anytime.anytime_table`);
#: ``--no-own-floor``: the floor scaled by ``c / z`` with the rest, as before 2026-12-03
OWN_FLOOR = True


def group_pi(
    pil: np.ndarray, gl: np.ndarray, pi_all: np.ndarray, g: np.ndarray, m: int
) -> np.ndarray:
    """The labels' inclusion probabilities (R, n) conditioned on each group's realised
    number of labels, as the package's group estimators take them (Hajek;
    :func:`bacon_bayes.estimate.core._conditional_pi`): scaled within a group so that its
    items' probabilities ``pi_all`` (R, N; the union of the waves) sum to its labels."""
    onehot = gl[..., None] == np.arange(m)
    n_lab = onehot.sum(axis=1)  # (R, m)
    expected = np.stack([pi_all[:, g == h].sum(axis=1) for h in range(m)], axis=1)
    scale = n_lab / np.maximum(expected, 1e-300)
    return np.minimum(pil * np.take_along_axis(scale, gl, axis=1), 1.0)


def _skew_reach(
    crit: np.ndarray, mod: np.ndarray, var: np.ndarray, own: np.ndarray, resid: np.ndarray,
    g: np.ndarray, w: np.ndarray, y: np.ndarray, est: np.ndarray, n: np.ndarray,
) -> tuple[np.ndarray, ...]:  # fmt: skip
    """The bootstrap interval's distances to its ends in se (low, high) with the package's
    skewed-side reach (:func:`bacon_bayes.estimate.shape.skew_join`, pointwise), and the
    skewness of the groups that may reach (0 elsewhere) and their own se over the se."""
    ratio = np.sqrt(own / np.maximum(var, 1e-300))
    if not SKEW_REACH:
        return crit, crit, np.zeros(n.size), ratio
    gamma = shrunk_skewness(resid, g, est, float(y.min()), float(y.max()), w)[0]
    gamma = np.where(own < mod, gamma, 0.0)
    low, high = reach_distances(crit, crit, stats.norm.isf(ALPHA / 2), n, gamma, ratio)
    return low, high, gamma, ratio


def reach_distances(
    low: np.ndarray, high: np.ndarray, c: np.ndarray | float, n: np.ndarray,
    gamma: np.ndarray, ratio: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Distances to the ends in se ``low, high`` joined, on a skewed group's skewed side,
    with the own-studentised end with Hall's term, Student-t on ``n - 1`` df at the
    nominal level of the normal boundary ``c`` (``z``: the fixed interval's), in units of
    the own se over the se (``ratio``; ``gamma`` 0 where a group does not reach): at ``z``
    :func:`bacon_bayes.estimate.shape.skew_join`'s reach, at an anytime look's ``c`` the
    candidate :data:`ANYTIME_REACH`."""
    own = at.studentised(c, np.maximum(np.asarray(n, float) - 1.0, 1.0))
    shift = skew_shift(gamma, n, own)
    with np.errstate(invalid="ignore"):
        up = np.where(gamma > 0, np.fmax(high, (own + shift) * ratio), high)
        down = np.where(gamma < 0, np.fmax(low, (own - shift) * ratio), low)
    return down, up


def _shrunk_floor(
    out: np.ndarray, corr: Corrections, own_var: np.ndarray, resid: np.ndarray,
    g: np.ndarray, pi: np.ndarray, y: np.ndarray, est: np.ndarray, ok: np.ndarray,
) -> None:  # fmt: skip
    """A shrunk look's rows (``ok``: with an interval) of the floor's parts (``out``,
    :data:`FIELDS` from ``"own estimate"``): its own estimate, moderated variance and df,
    the own variance (NaN under 2 labels) and the shrunk skewness
    (:func:`bacon_bayes.estimate.shape.shrunk_skewness`, as the bootstrap branch's)."""
    gamma = shrunk_skewness(resid, g, est, float(y.min()), float(y.max()), 1.0 / pi)[0]
    n = np.bincount(g, minlength=est.size)
    parts = (corr.surrogate_mean + corr.d, corr.var, corr.df, np.where(n >= 2, own_var, np.nan),
             gamma)  # fmt: skip
    for field, value in zip(out, parts, strict=True):
        field[ok] = np.asarray(value, float)[ok]


def own_floor(
    low: np.ndarray, high: np.ndarray, c2: np.ndarray, fields: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """A group's anytime distances ``low, high`` (in se, about the estimate) joined, at its
    shrunk looks, with its own-interval floor at the look's own level: its own estimate
    +- the Student-t on the floor's df at the nominal level of the boundary ``c2`` for
    ``2 alpha`` (:data:`OWN_FLOOR`; ``fields``: the group's :data:`FIELDS`, (R, K) each)."""
    return floor_distances(low, high, c2, fields) if OWN_FLOOR else (low, high)


def floor_distances(
    low: np.ndarray, high: np.ndarray, c2: np.ndarray, fields: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`own_floor`'s join, whatever :data:`OWN_FLOOR` says."""
    e, se, own, var, df = (fields[FIELDS.index(k)] for k in
                           ("estimate", "se", "own estimate", "floor var", "floor df"))  # fmt: skip
    return floor_join(low, high, c2, e, se, own, var, df)


def floor_join(
    low: np.ndarray, high: np.ndarray, c2: np.ndarray, e: np.ndarray, se: np.ndarray,
    own: np.ndarray, var: np.ndarray, df: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Distances ``low, high`` (in se ``se`` about ``e``) joined, where ``var`` is finite
    (a shrunk look), with the own interval ``own`` +- the Student-t on ``df`` at the
    nominal level of the boundary ``c2`` times ``sqrt(var)``."""
    shrunk = np.isfinite(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = at.studentised(c2, np.where(shrunk, df, np.nan)) * np.sqrt(var)
        lo = np.fmax(low, (e - own + half) / se)
        hi = np.fmax(high, (own + half - e) / se)
    return np.where(shrunk, lo, low), np.where(shrunk, hi, high)


def pair_floor(
    low: np.ndarray, high: np.ndarray, c2: np.ndarray, e: np.ndarray, se: np.ndarray,
    fa: list[np.ndarray], fb: list[np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """A shrunk difference ``a - b``'s anytime distances joined with its own-interval
    floor at the look's level, as :func:`own_floor` a group's: the own difference, the sum
    of the groups' floor variances and their smaller df (the fixed floor's parts,
    :func:`bacon_bayes.estimate.shrink.shrunk_pair`); ``fa, fb`` the groups' :data:`FIELDS`."""
    if not OWN_FLOOR:
        return low, high
    own, var, df = (FIELDS.index(k) for k in ("own estimate", "floor var", "floor df"))
    return floor_join(
        low, high, c2, e, se, fa[own] - fb[own], fa[var] + fb[var], np.fmin(fa[df], fb[df])
    )


def group_looks(
    yl: np.ndarray, fl: np.ndarray, pil: np.ndarray, gl: np.ndarray,
    f_sums: np.ndarray, n_g: np.ndarray, f_total: np.ndarray,
    out: np.ndarray, out_pair: np.ndarray, out_n: np.ndarray, k: int,
    pair: tuple[int, int], pooling: str = "auto", tuned: bool = True,
    items: np.ndarray | None = None, seeds: np.ndarray | None = None,
    out_pairs: np.ndarray | None = None,
) -> None:  # fmt: skip
    """Look ``k``'s group means (``out[:, :, :, k]``, :data:`FIELDS`), the pair's
    difference where shrunk (``out_pair[:, :, k]``: estimate, se, low, high distances;
    NaN elsewhere: the difference of the group rows) and the groups' labels.

    ``yl, fl, pil, gl`` (R, n_k): the labels so far, their cross-fitted surrogate,
    inclusion probability (conditioned on the groups' labels: :func:`group_pi`) and group;
    ``f_sums`` (R, m) each group's surrogate sum with its own labels' fold shares
    (:mod:`benchmarks.anytime_surrogate`) and ``f_total`` (R,) the pool's. The per-group
    AEE takes one weight for all groups, tuned on all labels when ``tuned``, else 1;
    ``items`` (R, n_k) the labels' item indices and ``seeds`` (R,) each sequence's
    calibrator seed: the bootstrap resamples the labels in item order with that seed, as
    the package does (default: the order given, seed 0); ``out_pairs[:, :, p, k]`` every
    pair's shrunk difference, as ``out_pair``'s (pairs ``a < b`` in order). Its
    variance is moderated by the package's
    :func:`~bacon_bayes.estimate.moderate.moderated_variance` (Smyth 2004, over the groups
    with two labels or more), Student-t on ``n_g - 1 + d0`` df; the bootstrap branch takes
    the larger of the own and the moderated variance, its studentised resamples' critical
    value never narrower than the moderated t's interval with normal residuals (on the
    larger of the moderated variance and the own one times its worth in labels over
    ``n_g - 1``)."""
    m = n_g.size
    reps = yl.shape[0]
    n = int(n_g.sum())
    lam = mean_core(yl, fl, pil, f_total, n)[2] if tuned else np.ones(reps)
    resid = np.zeros(yl.shape)
    own_var = np.full((reps, m), np.nan)
    cnts = np.zeros((reps, m))
    for h in range(m):
        mask = gl == h
        cnt = mask.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            tg, vg, _, _ = mean_core(yl, fl, pil, f_sums[:, h], int(n_g[h]), mask=mask, lam=lam)
            ws = np.where(mask, 1.0 / pil, 0.0)
            ybar = (ws * yl).sum(axis=1) / ws.sum(axis=1)
            fbar = (ws * fl).sum(axis=1) / ws.sum(axis=1)
        resid += np.where(mask, yl - ybar[:, None] - lam[:, None] * (fl - fbar[:, None]), 0.0)
        own_var[:, h], cnts[:, h] = vg, cnt
        out[0, :, h, k] = np.where(cnt >= MIN_GROUP, tg, np.nan)
    out_n[:, :, k] = cnts
    names = np.arange(m).astype(str)
    for r in range(reps):
        if choose_pooling(pooling, cnts[r]) == "shrink":
            corr = group_corrections(
                yl[r], fl[r], pil[r], gl[r], f_sums[r], f_total[r], n_g, n, power_tuning=tuned
            )
            tab = shrink_table(names, corr, cnts[r].astype(int), n_g, alpha=ALPHA)
            ok = np.isfinite(tab.ci_low)
            out[:, r, :, k] = np.nan
            out[0, r, ok, k], out[1, r, ok, k] = tab.estimate[ok], tab.se[ok]
            out[2, r, ok, k], out[3, r, ok, k] = np.inf, tab.critical_value[ok]
            out[4, r, ok, k] = (tab.estimate[ok] - tab.ci_low[ok]) / tab.se[ok]
            out[5, r, ok, k] = (tab.ci_high[ok] - tab.estimate[ok]) / tab.se[ok]
            _shrunk_floor(out[9:, r, :, k], corr, own_var[r], resid[r], gl[r], pil[r], yl[r],
                          tab.estimate, ok)  # fmt: skip
            a, b = pair
            if ok[a] and ok[b]:
                e, se, low, high = shrunk_pair(tab, a, b)
                out_pair[:, r, k] = e, se, (e - low) / se, (high - e) / se
            if out_pairs is not None:
                d = shrunk_differences(tab, simultaneous="none")
                with np.errstate(invalid="ignore"):
                    out_pairs[:, r, :, k] = (d.estimate, d.se, (d.estimate - d.ci_low) / d.se,
                                             (d.ci_high - d.estimate) / d.se)  # fmt: skip
                out_pairs[:, r, ~np.isfinite(d.ci_low), k] = np.nan
            continue
        ok = cnts[r] >= 2
        codes = np.cumsum(ok) - 1
        lab = ok[gl[r]]
        var, df, d0, _ = moderated_variance(
            own_var[r, ok], resid[r, lab], fl[r, lab], pil[r, lab], codes[gl[r, lab]],
            n_g[ok], "pool",
        )  # fmt: skip
        use = ok & (cnts[r] >= MIN_GROUP)
        if ok.all() and cnts[r].min() >= MIN_BOOTSTRAP_LABELS:  # the package's branch
            w = 1.0 / pil[r]
            ab = resample_moderation(own_var[r], var, df, d0, resid[r], w, gl[r])
            at = np.argsort(items[r]) if items is not None else slice(None)
            crit = bootstrap_t_critical_values(
                resid[r, at], w[at], gl[r, at], ALPHA, "none", moderation=ab,
                seed=0 if seeds is None else int(seeds[r]),
            )  # fmt: skip
            floor = stats.t.isf(ALPHA / 2, cnts[r] - 1.0 + d0)
            worth = np.clip((df - d0) / np.maximum(cnts[r] - 1.0, 1.0), 0.0, 1.0)
            floor_var = np.maximum(var, worth * own_var[r])
            mod, var = var, np.maximum(var, own_var[r])
            crit = np.maximum(crit, floor * np.sqrt(floor_var / np.maximum(var, 1e-300)))
            df = np.full(m, np.inf)
            # the df of the variance the interval takes: the moderated one's where it governs
            t_df = np.where(own_var[r] < mod, cnts[r] - 1.0 + d0, cnts[r] - 1.0)
            low, high, skew, ratio = _skew_reach(crit, mod, var, own_var[r], resid[r], gl[r],
                                                 w, yl[r], out[0, r, :, k], cnts[r])  # fmt: skip
        else:
            crit = stats.t.isf(ALPHA / 2, np.maximum(df, 1.0))
            low = high = crit
            skew, ratio = np.zeros(m), np.ones(m)
            t_df = np.full(m, np.nan)
            t_df[ok] = df
        out[1, r, use, k] = np.sqrt(np.maximum(var[use[ok]], 0.0))
        out[2, r, use, k] = df[use[ok]]
        out[3, r, use, k] = crit[use[ok]]
        out[4, r, use, k], out[5, r, use, k] = low[use[ok]], high[use[ok]]
        out[6, r, use, k], out[7, r, use, k] = skew[use], ratio[use]
        out[8, r, use, k] = t_df[use]
