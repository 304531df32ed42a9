"""Group means that borrow strength across groups: each group's AEE correction shrunk
toward the pool's, with robust empirical-Bayes intervals.

A group's AEE mean is its surrogate mean ``S_g`` (every item of the group) plus the
correction ``d_g``, the mean residual ``y - lambda f`` of its labeled items. With a
handful of labels ``d_g`` is noisy (variance ``sigma_g^2``), but the corrections of
different groups are alike when the judges are equally biased for every system. Taking
the groups' true corrections as draws around a common centre ``delta`` with spread
``mu2``, the empirical-Bayes estimate is

    theta_g = S_g + delta + w_g (d_g - delta),   w_g = mu2 / (mu2 + sigma_g^2),

with ``delta`` the precision-weighted mean of the ``d_g`` and ``mu2`` the Paule-Mandel
estimate (the between-group spread beyond sampling noise, with the groups' degrees of
freedom). ``sigma_g^2`` is the moderated variance of :mod:`.moderate` (the group's own
spread averaged with what all labels predict; a group with one label has the
prediction alone), so a group with one label gets an honest interval.

The interval is the robust EBCI of Armstrong, Kolesár & Plagborg-Møller (Econometrica
2022): the estimate errs by noise (variance ``v_g``, which counts ``delta``'s own noise)
plus a bias ``(w_g - 1)(d_g^true - delta)``; ``estimate +- chi v_g^(1/2)`` with ``chi``
from :func:`~.robust_ebci.critical_value` covers **on average over the groups**, for any
set of true group corrections whose spread is ``mu2`` and whose kurtosis is at most
``kappa`` (the data's, at least a normal's 3). That alone is not a per-group guarantee: a group
whose correction sits far from the others' (SummEval's system M11 on fluency, 3.2 spreads
below the rest) would be covered less often and the typical group more often. So every
interval also holds the group's own AEE interval at ``1 - 2 alpha`` (its own estimate
with the moderated variance; 90% for a 95% interval, :func:`floor_alpha`): each group is
covered at least that often whatever the others do, and on average over the groups at
least ``1 - alpha``. Differences of two groups get the same treatment (on average over
pairs, with each pair's own difference at ``1 - 2 alpha`` as the floor).
With ``simultaneous`` the level is ``alpha / K`` over the ``K`` intervals: their average
miss rate is then at most ``alpha / K``, so the expected number of misses, and with it the
chance of any miss, is at most ``alpha`` (a family-wise guarantee for the given groups).
Student-t quantiles on the moderated variances' df replace the normal's in ``chi``.

A group with no label keeps ``S_g + delta`` without an interval (UNVALIDATED: nothing
checks its surrogate there).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import optimize, special

from bacon_bayes.arguments import POOLINGS
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.clustered import item_pi
from bacon_bayes.estimate.combine import combined_core, inflation
from bacon_bayes.estimate.core import (
    Target,
    _check_alpha,
    mean_core,
    residual_floor,
    variance_coefficients,
)
from bacon_bayes.estimate.critical import simultaneous_rule
from bacon_bayes.estimate.moderate import (
    floor_details,
    floor_variance,
    own_labels,
    prior_labels,
    variance_prior,
)
from bacon_bayes.estimate.robust_ebci import critical_value
from bacon_bayes.estimate.tables import GroupArrays, Pairs, unvalidated
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.results import EstimateTable

#: Fewest groups with labels for shrinkage (fewer: the spread cannot be estimated).
MIN_SHRINK_GROUPS = 3
#: ``pooling="auto"`` shrinks group means when some group has fewer labels than this.
MIN_SEPARATE_LABELS = 10
#: Kurtosis assumed at least (a normal's): heavier tails only where the groups show them.
MIN_KURTOSIS = 3.0
AVERAGE = "on average over groups; each group at least 1 - 2 alpha"
AVERAGE_PAIRS = "on average over pairs; each pair at least 1 - 2 alpha"
FAMILY = (
    "family-wise on average (each interval at alpha/K on average over the K, each at least "
    "1 - 2 alpha/K)"
)
#: what a shrunk table's ``se`` is (``details["se"]``, said by its text): not the error of
#: the estimate, whose shrinkage bias the interval allows for beside the noise
SE_NOTE = (
    "se is the noise part of each shrunk estimate's error only, not its shrinkage bias: "
    "the interval is estimate +- critical_value * se, widened to the row's own interval "
    "where that is wider, so it is wider than estimate +- 1.96 se (the more so the fewer "
    "its labels); use ci_low and ci_high, not se, for its uncertainty"
)


def choose_pooling(pooling: str, n_lab: np.ndarray, clustered: bool = False) -> str:
    """The pooling of group means: ``"auto"`` shrinks when some group with labels has
    fewer than :data:`MIN_SEPARATE_LABELS` and at least :data:`MIN_SHRINK_GROUPS` groups
    have labels, unless the groups share prompts drawn by the design (``clustered``: their
    means are correlated, which the shrinkage does not model); ``n_lab``: each group's
    labels. A group without labels has no interval either way, so it does not take the
    per-group guarantee from the others (WMT22's six unlabeled systems beside 14 of
    1,118 labels each)."""
    if pooling not in POOLINGS:
        raise ValidationError(
            f"pooling={pooling!r} is not known; use 'auto', 'shrink' or 'separate'."
        )
    if pooling != "auto":
        return pooling
    n_lab = np.asarray(n_lab)
    sparse = np.any((n_lab > 0) & (n_lab < MIN_SEPARATE_LABELS))
    enough = np.count_nonzero(n_lab) >= MIN_SHRINK_GROUPS
    return "shrink" if sparse and enough and not clustered else "separate"


@dataclass(frozen=True)
class Corrections:
    """The labeled groups' corrections ``d``, their variances and df, and each group's
    surrogate mean ``S`` (all groups)."""

    d: np.ndarray
    var: np.ndarray
    df: np.ndarray
    surrogate_mean: np.ndarray
    labeled: np.ndarray  # which groups have at least one label
    lam: Any
    floor: tuple[np.ndarray, float, np.ndarray, np.ndarray, np.ndarray] | None = None


def group_corrections(
    y_lab: np.ndarray,
    f_lab: np.ndarray,
    pi_lab: np.ndarray,
    g_lab: np.ndarray,
    f_sums: np.ndarray,
    f_total: np.ndarray | float,
    n_g: np.ndarray,
    n_items: int,
    *,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
) -> Corrections:
    """Each group's AEE correction and its moderated variance, from the labeled items and
    the surrogate sums (one weight ``lambda``, or a vector, tuned on all labels)."""
    m = n_g.size
    kw: dict[str, Any] = {"hajek": hajek, "target": target}
    n_lab = np.bincount(g_lab, minlength=m)
    if f_lab.ndim == 1:
        lam: Any = float(
            mean_core(
                y_lab, f_lab, pi_lab, float(f_total), n_items, power_tuning=power_tuning, **kw
            )[2]
        )
        fitted = lam * f_lab
        s_mean = lam * np.asarray(f_sums, float) / n_g
        price = 1.0
    else:
        lam = combined_core(
            y_lab, f_lab, pi_lab, np.asarray(f_total), n_items, power_tuning=power_tuning, **kw
        )[2]
        fitted = f_lab @ lam
        s_mean = np.asarray(f_sums, float) @ lam / n_g
        k = f_lab.shape[1] if power_tuning else 0
        price = float(inflation(g_lab.size, k) / inflation(g_lab.size, 0))
    resid = y_lab - fitted
    w = 1.0 / pi_lab
    wsum = np.bincount(g_lab, weights=w, minlength=m)
    if hajek:
        d = np.bincount(g_lab, weights=w * resid, minlength=m) / np.maximum(wsum, 1e-300)
    else:
        d = np.bincount(g_lab, weights=w * resid, minlength=m) / n_g
    own_var = np.zeros(m)
    core = mean_core if f_lab.ndim == 1 else combined_core
    for g in np.flatnonzero(n_lab >= 2):
        sel = g_lab == g
        theta, var = core(
            y_lab[sel], f_lab[sel], pi_lab[sel], np.asarray(f_sums)[g], int(n_g[g]), lam=lam, **kw
        )[:2]
        own_var[g] = float(var)
        d[g] = float(theta) - s_mean[g]
    c = variance_coefficients(w, pi_lab, target)
    floor = residual_floor(y_lab)
    prior = variance_prior(resid, fitted, c, g_lab, m, n_g, floor)
    if g_lab.size - np.count_nonzero(n_lab) < 2 or not prior.any():
        # no spread within any group (too few labels, or each group's labels all equal:
        # 0/1 labels of few items): the residuals' spread around their mean stands in
        # (it holds the groups' differences too, so it errs wide)
        s2 = max(float(np.var(resid, ddof=1)) if resid.size > 1 else 0.0, floor)
        prior = np.bincount(g_lab, weights=c * s2, minlength=m) / n_g.astype(float) ** 2
    own = own_labels(resid, g_lab, m)
    several = n_lab >= 2
    d0 = prior_labels(own_var[several], own[several], prior[several], most=g_lab.size - m)
    mod = np.where(
        several, (d0 * prior + np.maximum(own, 0) * own_var) / (d0 + np.maximum(own, 0)), prior
    )
    mod = np.maximum(mod, floor_variance(floor, c, g_lab, n_g))
    noted = (mod, floor, c, g_lab, n_g)
    return Corrections(d, mod * price, np.maximum(own, 0) + d0, s_mean, n_lab >= 1, lam, noted)


def spread(d: np.ndarray, var: np.ndarray) -> tuple[float, np.ndarray]:
    """The between-group variance ``mu2`` of the true corrections (Paule-Mandel: the
    weighted squares around the weighted mean equal their df, ``m - 1``), floored at
    ``2 sum sigma^4 / (m sum sigma^2)`` (so no group is pulled all the way in on a
    noisy estimate of zero), and the centre's weights."""
    m = d.size

    def excess(mu2: float) -> float:
        om = 1.0 / (var + mu2)
        centre = om @ d / om.sum()
        return float(om @ (d - centre) ** 2) - (m - 1)

    top = float(np.ptp(d)) ** 2 + float(var.max()) + 1e-12
    low = 1e-12 * top if (var <= 0).any() else 0.0  # a group known exactly (wholly labeled)
    mu2 = low if excess(low) <= 0 else float(optimize.brentq(excess, low, top * 4.0, xtol=1e-14))
    floor = 2.0 * float((var**2).sum()) / (m * float(var.sum())) if var.sum() > 0 else 0.0
    mu2 = max(mu2, floor, 1e-300)
    om = 1.0 / (var + mu2)
    return mu2, om / om.sum()


def kurtosis(d: np.ndarray, var: np.ndarray, centre: float, mu2: float) -> float:
    """The true corrections' kurtosis from the deconvolved fourth moment, at least
    :data:`MIN_KURTOSIS`."""
    e = d - centre
    fourth = float(np.mean(e**4 - 6.0 * var * e**2 + 3.0 * var**2))
    return max(MIN_KURTOSIS, fourth / mu2**2)


def contrast_chi(
    noise: float, bias: np.ndarray, mu2: float, kappa: float, alpha: float, df: float
) -> float:
    """The robust critical value of one contrast: noise variance, bias coefficients on
    the groups' deviations (each of spread ``mu2``, kurtosis ``kappa``), Student-t
    scaled on ``df``."""
    b2 = float(bias @ bias)
    t = mu2 * b2 / noise if noise > 0 else 0.0
    kap = MIN_KURTOSIS
    if b2 > 0:
        kap = max(1.0, 3.0 + (kappa - 3.0) * float((bias**4).sum()) / b2**2)
    chi = critical_value(t, kap, alpha)
    z = float(special.ndtri(1.0 - alpha / 2.0))
    return chi * float(special.stdtrit(max(df, 1.0), 1.0 - alpha / 2.0)) / z  # stats.t.ppf


def floor_alpha(alpha: float) -> float:
    """The level of the per-group floor: every shrunk interval holds the group's own AEE
    interval at ``1 - 2 alpha`` (90% for a 95% interval)."""
    return min(2.0 * alpha, 0.5)


def _own_crit(alpha: float, df: np.ndarray) -> np.ndarray:
    return special.stdtrit(np.maximum(df, 1.0), 1.0 - alpha / 2.0)  # stats.t.ppf


def shrink_table(
    names: np.ndarray,
    corr: Corrections,
    n_lab: np.ndarray,
    n_g: np.ndarray,
    *,
    alpha: float = 0.05,
    simultaneous: str = "none",
    kurtosis_bound: float | None = None,
    **details: object,
) -> EstimateTable:
    """The shrunk group means and their robust intervals from :func:`group_corrections`
    (groups without labels: ``S_g + delta``, no interval)."""
    simultaneous = simultaneous_rule(simultaneous)
    lab = np.flatnonzero(corr.labeled)
    if lab.size < MIN_SHRINK_GROUPS:
        raise ValidationError(
            f"{lab.size} group(s) have labels; shrinkage needs at least {MIN_SHRINK_GROUPS}. "
            "Label items in more groups, or use separate means (pooling='separate'; "
            "--pooling separate on the command line)."
        )
    d, var, df = corr.d[lab], corr.var[lab], corr.df[lab]
    mu2, om = spread(d, var)
    centre = float(om @ d)
    kappa = kurtosis(d, var, centre, mu2) if kurtosis_bound is None else float(kurtosis_bound)
    w = mu2 / (mu2 + var)
    a_mat, noise, bias = _propagation(w, om, var)
    m = names.size
    est = corr.surrogate_mean + centre
    est[lab] = corr.surrogate_mean[lab] + a_mat @ d
    k = lab.size if simultaneous != "none" else 1
    level = alpha / k
    chi = np.full(m, np.nan)
    for i, g in enumerate(lab):
        chi[g] = contrast_chi(float(noise[i, i]), bias[i], mu2, kappa, level, float(df[i]))
    own_est = corr.surrogate_mean[lab] + d
    own_half = _own_crit(floor_alpha(level), df) * np.sqrt(var)
    cov = np.zeros((m, m))
    cov[np.ix_(lab, lab)] = noise
    unl = np.flatnonzero(~corr.labeled)
    cov[unl, unl] = mu2 + float(om @ noise @ om)  # a new group's spread (no interval given)
    se = np.sqrt(np.diag(cov))
    low, high = est - chi * se, est + chi * se
    low[lab] = np.minimum(low[lab], own_est - own_half)
    high[lab] = np.maximum(high[lab], own_est + own_half)
    full = np.full(m, np.nan)
    full[lab] = w
    table = EstimateTable(
        estimand="mean",
        method="aee",
        names=tuple(str(n) for n in names),
        estimate=est,
        se=se,
        ci_low=low,
        ci_high=high,
        cov=cov,
        n_labeled=np.asarray(n_lab, dtype=int),
        n_items=np.asarray(n_g, dtype=int),
        alpha=alpha,
        simultaneous=simultaneous,
        critical_value=chi,
        details={
            "pooling": "shrink",
            "interval": "robust EBCI",
            "guarantee": AVERAGE if simultaneous == "none" else FAMILY,
            "se": SE_NOTE,
            "prior_sd": float(np.sqrt(mu2)),
            "kurtosis": kappa,
            "centre": centre,
            "shrinkage": [None if np.isnan(v) else float(v) for v in full],
            "centre_weights": _spread_full(om, lab, m),
            "noise_var": _spread_full(var, lab, m),
            "own_estimate": _spread_full(own_est, lab, m),
            "df": _spread_full(df, lab, m),
            "power_lambda": corr.lam if np.ndim(corr.lam) == 0 else [float(v) for v in corr.lam],
            **details,
        },
    )
    if corr.floor is not None and (note := floor_details(*corr.floor, names)):
        table = replace(table, details={**table.details, **note})
    return unvalidated(table, ~corr.labeled)


def _propagation(
    w: np.ndarray, om: np.ndarray, var: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How the labeled groups' corrections ``d`` reach the shrunk means, ``S + A d`` with
    ``A = diag(w) + (1 - w) om'``: ``A``, the noise covariance ``A diag(var) A'`` and the
    bias coefficients ``A - I`` on the true corrections."""
    a_mat = np.diag(w) + np.outer(1.0 - w, om)
    return a_mat, (a_mat * var) @ a_mat.T, a_mat - np.eye(w.size)


def _spread_full(values: np.ndarray, lab: np.ndarray, m: int) -> list[float | None]:
    out: list[float | None] = [None] * m
    for i, g in enumerate(lab):
        out[g] = float(values[i])
    return out


@dataclass(frozen=True)
class _Shrinkage:
    """What a pair's interval needs from a shrunk table's details."""

    pos: dict[int, int]  # a labeled group's row -> its index among the labeled
    noise: np.ndarray
    bias: np.ndarray
    var: np.ndarray
    df: np.ndarray
    own_est: np.ndarray
    mu2: float
    kappa: float

    @classmethod
    def of(cls, table: EstimateTable) -> _Shrinkage:
        det = table.details
        lab = [i for i in range(len(table)) if det["shrinkage"][i] is not None]
        w, om, var, df, own = (
            np.array([det[k][g] for g in lab])
            for k in ("shrinkage", "centre_weights", "noise_var", "df", "own_estimate")
        )
        _, noise, bias = _propagation(w, om, var)
        mu2, kappa = det["prior_sd"] ** 2, float(det["kurtosis"])
        return cls({g: i for i, g in enumerate(lab)}, noise, bias, var, df, own, mu2, kappa)

    def interval(self, a: int, b: int, level: float) -> tuple[float, float, float, float]:
        """Groups ``a`` and ``b``'s difference (rows of the table): its se, robust
        critical value, own difference and the own interval's half-width (the floor)."""
        i, j = self.pos[a], self.pos[b]
        c = np.zeros(self.var.size)
        c[i], c[j] = 1.0, -1.0
        v = float(c @ self.noise @ c)
        own, var, df = self.own_parts(a, b)
        chi = contrast_chi(v, self.bias.T @ c, self.mu2, self.kappa, level, df)
        half = _own_crit(floor_alpha(level), np.array(df)) * np.sqrt(var)
        return float(np.sqrt(v)), chi, own, float(half)

    def own_parts(self, a: int, b: int) -> tuple[float, float, float]:
        """The floor of ``a - b``: its own difference, variance and df (the smaller)."""
        i, j = self.pos[a], self.pos[b]
        own = float(self.own_est[i] - self.own_est[j])
        return own, float(self.var[i] + self.var[j]), float(min(self.df[i], self.df[j]))


def shrunk_pair(
    table: EstimateTable, a: int, b: int, alpha: float | None = None
) -> tuple[float, float, float, float]:
    """One difference ``a - b`` (rows of a shrunk table, both labeled) as
    :func:`shrunk_differences` gives it with ``simultaneous="none"``: estimate, se, low
    and high; ``alpha`` the pair's level (default the table's)."""
    se, chi, own, half = _Shrinkage.of(table).interval(a, b, alpha or table.alpha)
    est = float(table.estimate[a] - table.estimate[b])
    return est, se, min(est - chi * se, own - half), max(est + chi * se, own + half)


def shrunk_differences(
    table: EstimateTable, simultaneous: str | None = None, baseline: str | None = None
) -> EstimateTable:
    """All pairwise differences ``a - b`` of a shrunk table (``a`` before ``b``), or with
    ``baseline`` every other group's ``g - baseline``, with robust intervals on average
    over the ``K`` pairs (``alpha / K`` each with ``simultaneous``; against a baseline
    ``K`` counts its ``m - 1`` comparisons alone, which ``details["guarantee"]`` says);
    pairs with a group without labels keep their difference without an interval.

    Returns
    -------
    EstimateTable
        One row per pair, ``details["guarantee"]``: on average over the pairs (each at
        least ``1 - 2 alpha``), or family-wise on average with ``simultaneous``."""
    det = table.details
    parts = _Shrinkage.of(table)
    pp = Pairs.of(table, baseline)
    pairs, contrast = pp.pairs, pp.contrast
    if not pairs:
        raise ValidationError("comparisons need at least two groups.")
    how = simultaneous_rule(simultaneous or table.simultaneous)
    answered = [(a, b) for a, b in pairs if a in parts.pos and b in parts.pos]
    level = table.alpha / (len(answered) if how != "none" and answered else 1)
    est, se, chi = np.empty(len(pairs)), np.full(len(pairs), np.nan), np.full(len(pairs), np.nan)
    withheld = np.zeros(len(pairs), dtype=bool)
    own, own_half = np.full(len(pairs), np.nan), np.full(len(pairs), np.nan)
    floor: dict[str, list[float | None]] = {"estimate": [], "var": [], "df": []}
    for k, (a, b) in enumerate(pairs):
        est[k] = table.estimate[a] - table.estimate[b]
        if a not in parts.pos or b not in parts.pos:
            withheld[k] = True
            for key in floor:
                floor[key].append(None)
            continue
        se[k], chi[k], own[k], own_half[k] = parts.interval(a, b, level)
        for key, value in zip(floor, parts.own_parts(a, b), strict=True):
            floor[key].append(value)
    cov = contrast @ table.cov @ contrast.T  # a withheld pair keeps no se, as its group
    low = np.fmin(est - chi * se, own - own_half)
    high = np.fmax(est + chi * se, own + own_half)
    out = EstimateTable(
        estimand="difference",
        method=table.method,
        names=pp.names,
        estimate=est,
        se=se,
        ci_low=low,
        ci_high=high,
        cov=cov,
        n_labeled=pp.n_labeled,
        n_items=pp.n_items,
        alpha=table.alpha,
        simultaneous=how,
        critical_value=chi,
        details={
            "pairs": pp.named(table),
            "pooling": "shrink",
            "interval": "robust EBCI",
            "guarantee": (AVERAGE_PAIRS if how == "none" else FAMILY)
            + ("" if baseline is None else f"; the pairs: the {len(pairs)} against {baseline!r}"),
            "se": SE_NOTE,
            # each pair's own-interval floor: an anytime look reads it at its own level
            "own_floor": floor,
            **{k: det[k] for k in ("target", "range") if k in det},
            **({} if baseline is None else {"baseline": baseline}),
        },
    )
    return out.withhold(withheld, "a group of the pair has no labels")


def shrunk_group_means(
    y: np.ndarray,
    f: np.ndarray,
    groups: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | Inclusion | None = None,
    *,
    alpha: float = 0.05,
    simultaneous: str = "none",
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
    kurtosis_bound: float | None = None,
) -> EstimateTable:
    """Per-group AEE means shrunk toward the pool's correction (module docstring), with
    robust EB intervals: on average over groups, or family-wise with ``simultaneous``
    (``"maxt"`` and ``"bonferroni"`` both take ``alpha / K``).

    ``f``: the surrogate (N,) or several (N, k); ``kurtosis_bound``: the kurtosis the
    intervals allow the true group corrections (default: estimated, at least 3).
    """
    _check_alpha(alpha)
    a = GroupArrays.of(y, f, groups, labeled, item_pi(pi, target), hajek)
    g_lab = a.codes[a.idx]
    corr = group_corrections(
        a.y_lab, a.f[a.idx], a.pi_lab, g_lab, a.f_sums, a.f.sum(axis=0), a.n_g, a.n_items,
        power_tuning=power_tuning, hajek=hajek, target=target,
    )  # fmt: skip
    return shrink_table(
        a.names, corr, np.bincount(g_lab, minlength=a.names.size), a.n_g, alpha=alpha,
        simultaneous=simultaneous, kurtosis_bound=kurtosis_bound, target=target,
    )  # fmt: skip
