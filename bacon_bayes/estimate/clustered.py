"""AEE means and group means when items share prompts: variances clustered by prompt.

Systems that answer the same prompts are compared best on the same prompts: the paired
designs label every group's item of a drawn prompt (:mod:`bacon_bayes.sampling.paired`),
so group means become correlated through the prompts drawn, and a difference of two
groups' means loses the prompt's share of the variance. Two targets:

``target="pool"``: the finite pool of these items, design-based. The AEE estimate of
group ``g`` is ``lambda Fbar_g + rbar_g`` (Hajek; ``r = y - lambda f``), linear to first
order in the labeled items' influences ``u_i = (r_i - rbar_g) / N_g``. Its covariance is
the Horvitz-Thompson one over the labeled items, with the probabilities of single items
and of pairs of items of one prompt (:class:`bacon_bayes.inclusion.Inclusion`)::

    Cov = sum_i (1 - pi_i) / pi_i^2 u_i u_i'
        + sum_{i != j, same prompt} (pi_ij - pi_i pi_j) / (pi_ij pi_i pi_j) u_i u_j'

which is the finite-population correction over prompts for the paired design
(``(1 - b_p) / b_p^2 U_p U_p'`` with ``U_p`` the prompt's summed influences) and the
item-level formula of :mod:`bacon_bayes.estimate.core` for item-level waves (``pi_ij =
pi_i pi_j``). Hajek's ``n / (n - 1)`` uses the number ``n`` of labeled prompts.

``target="population"``: the prompts are a sample from a larger population, and the
estimand is the group means over that population. Prompts are independent, so each
estimate is a sum over prompts of independent terms ``psi_p = sum_{i in p}
[lambda (f_i - Fbar_g) + S_i w_i (r_i - rbar_g)] / N_g`` (the judge-only part and the
labels' correction), and ``Cov = P / (P - 1) sum_p psi_p psi_p'`` over the pool's ``P``
prompts. It holds for any design that draws prompts (or items) independently; a
fixed-size draw makes it slightly conservative (by at most the sampling fraction of the
correction's share).

Intervals are Student-t on the labeled prompts (Sidak's critical value over the groups
for simultaneous ones; for their differences, the max-|t| over the differences'
correlation once the labeled prompts are many enough to estimate it, Bonferroni's t on
the prompts' df below: :func:`contrast_critical_values`). Simultaneous intervals of the
differences need :func:`~bacon_bayes.estimate.critical.min_simultaneous_prompts` labeled
prompts (6 at 95%); below, they are withheld with the reason, the estimates and
pointwise intervals kept (:func:`withhold_few_prompts`).
Under the pool target each group's variance is at least what all labels predict
for its items (``_floor``), the correlations kept: a group's clustered variance from a
few dozen prompts is unreliable where the surrogate predicts a bounded label almost
perfectly.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import numpy as np

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.combine import combined_core
from bacon_bayes.estimate.core import (
    _check_alpha,
    _estimate,
    mean_core,
    residual_floor,
    variance_coefficients,
)
from bacon_bayes.estimate.critical import (
    min_simultaneous_prompts,
    prompt_contrast_critical_values,
    simultaneous_critical_value,
)
from bacon_bayes.estimate.moderate import (
    MeanVariance,
    floor_variance,
    score_bounds,
    variance_prior,
)
from bacon_bayes.estimate.tables import (
    ONE_LABEL,
    correlation,
    group_codes,
    group_table,
    unvalidated,
)
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.results import Estimate, EstimateTable

ClusterTarget = Literal["pool", "population"]

#: A group's clustered variance is at least this share of what all labels predict for
#: its items (``_floor``). Chosen among 0.25, 0.5, 0.75 and 1 on TriviaQA (paired, 10%,
#: 200 draws; simultaneous coverage of the 8 means / the 28 differences 0.955 / 0.925 at
#: 0.5, 0.965 / 0.935 at 0.75, 0.975 / 0.95 at 1) and on a binary simulation with rare
#: misses (6 groups, 30 prompts, 300 draws: 0.907 / 0.95, 0.933 / 0.967, 0.953 / 0.97,
#: 0.977 / 0.983); SummEval and WMT22 were not used to choose it.
FLOOR_SHARE = 0.75


def prompt_codes(prompts: np.ndarray) -> np.ndarray:
    """Integer code per item of its prompt."""
    return group_codes(prompts)[1]


def as_inclusion(pi: np.ndarray | float | Inclusion | None, n_items: int, n_lab: int) -> Inclusion:
    """The design of the labels: an :class:`Inclusion`, item probabilities or uniform."""
    if isinstance(pi, Inclusion):
        return pi
    if pi is None:
        return Inclusion.items(np.full(n_items, n_lab / n_items))
    if np.ndim(pi) == 0:
        return Inclusion.items(np.full(n_items, float(pi)))
    return Inclusion.items(np.asarray(pi, dtype=float))


def pair_index(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair ``(i, j)``, ``i != j``, of positions with the same code."""
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    sizes = np.diff(np.r_[starts, codes.size])
    left, right = [], []
    for size in np.unique(sizes[sizes > 1]):
        blocks = starts[sizes == size][:, None] + np.arange(size)  # (n_blocks, size)
        ii, jj = np.nonzero(~np.eye(size, dtype=bool))
        left.append(order[blocks[:, ii]].ravel())
        right.append(order[blocks[:, jj]].ravel())
    if not left:
        empty = np.empty(0, dtype=np.intp)
        return empty, empty
    return np.concatenate(left), np.concatenate(right)


def ht_covariance(
    U: np.ndarray, idx: np.ndarray, codes_lab: np.ndarray, inclusion: Inclusion
) -> np.ndarray:
    """Horvitz-Thompson covariance of ``sum_S U_i / pi_i`` (``U``: labeled items' influences,
    shape (n, m); ``idx``: their positions in the pool; ``codes_lab``: their prompts); for
    the wave-by-wave estimator, the sum of its waves' (:meth:`Inclusion.ht_terms`)."""
    i, j = pair_index(codes_lab)
    d, c = inclusion.ht_terms(idx, i, j)
    cov = (U * d[:, None]).T @ U
    if i.size:
        keep = np.abs(c) > 0
        if keep.any():
            i, j, c = i[keep], j[keep], c[keep]
            cov += (U[i] * c[:, None]).T @ U[j]
    return 0.5 * (cov + cov.T)


def condition_on_prompts(inclusion: Inclusion, codes: np.ndarray, labeled: np.ndarray) -> Inclusion:
    """The design given the realised number of labeled prompts: the prompt probabilities
    of the waves that draw prompts, scaled by one factor so that the expected number of
    labeled prompts equals the realised one (for one wave of equal probabilities: the
    simple random sample of that many prompts). A draw of fewer prompts than expected
    then gets the larger variance it has; without this, a Poisson draw of prompts
    understated it (coverage 0.93 of 95% intervals of the pool mean). The item-level
    analogue is :func:`bacon_bayes.estimate.core._conditional_pi`. Only where every wave
    draws prompts: beside waves of items (a study mixing uniform and paired waves) the
    realised count holds the prompts the item waves touched, the factor read the paired
    waves' prompts as near certain and their variance vanished (SummEval, waves
    alternating: one look's interval missed 0.16 for the pool mean, 0.04 unscaled;
    ``benchmarks.mixed_waves_check``). The wave-by-wave
    estimator (``inclusion.drawn`` set) is kept as drawn: the union's expected count is not
    its design's when later waves depend on earlier labels, and scaling it made its
    intervals too wide (se 1.17 times the sd of the estimate on simulated paired-adaptive
    waves, against 1.04 unscaled; ``tests/test_paired_sequential.py``)."""
    b, a = inclusion.prompt, inclusion.within
    drawing = np.isfinite(b).all(axis=1) & (b < 1.0).any(axis=1)
    if inclusion.drawn is not None or not drawing.all() or not np.isfinite(a).all():
        return inclusion
    P = int(codes.max()) + 1
    # per wave and prompt: its probability and that a drawn prompt gives a label
    first = np.unique(codes, return_index=True)[1]
    b_p = b[:, first]
    log_none = np.zeros((b.shape[0], P))
    for w in range(b.shape[0]):
        log_none[w] = np.bincount(
            codes, weights=np.log1p(-np.minimum(a[w], 1 - 1e-15)), minlength=P
        )
    h = 1.0 - np.exp(log_none)
    realised = float(np.unique(codes[labeled]).size)

    def expected(scale: float) -> float:
        bs = np.where(drawing[:, None], np.minimum(1.0, scale * b_p), b_p)
        return float(np.sum(1.0 - np.prod(1.0 - bs * h, axis=0)))

    if not 0 < realised < expected(1e12):
        return inclusion
    lo, hi = 0.0, 1.0
    while expected(hi) < realised:
        lo, hi = hi, 2.0 * hi
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if expected(mid) < realised else (lo, mid)
    scale = 0.5 * (lo + hi)
    return replace(inclusion, prompt=np.where(drawing[:, None], np.minimum(1.0, scale * b), b))


def clustered_fit(
    y: np.ndarray,
    f: np.ndarray,
    domains: np.ndarray,
    n_domains: int,
    prompts: np.ndarray,
    labeled: np.ndarray | None,
    pi: np.ndarray | float | Inclusion | None,
    *,
    power_tuning: bool = True,
    hajek: bool = True,
    target: ClusterTarget = "pool",
) -> dict[str, Any]:
    """Estimates, covariance and degrees of freedom of the AEE means of ``n_domains``
    disjoint domains (``domains``: a code per item) with variances clustered by prompt."""
    y = np.asarray(y, dtype=float)
    n_items = y.size
    labeled = ~np.isnan(y) if labeled is None else np.asarray(labeled, dtype=bool)
    idx = np.flatnonzero(labeled)
    if idx.size < 2:
        raise ValidationError(f"{idx.size} labeled item(s); at least 2 are needed. Label more.")
    prompts = np.asarray(prompts)
    if prompts.shape != (n_items,):
        raise ValidationError("prompts must give one prompt per item of the pool.")
    codes = prompt_codes(prompts)
    inclusion = as_inclusion(pi, n_items, idx.size)
    if inclusion.prompt.shape[1] != n_items:
        raise ValidationError("the design's probabilities must cover every item of the pool.")
    if hajek:
        inclusion = condition_on_prompts(inclusion, codes, labeled)
    pi_all = inclusion.pi
    pi_lab = pi_all[idx]
    bad = ~((pi_lab > 0) & (pi_lab <= 1))
    if bad.any():
        k = int(idx[np.argmax(bad)])
        raise ValidationError(
            f"inclusion probability of labeled item {k} is {float(pi_all[k])!r}; it must lie "
            "in (0, 1]. Record the probability the design used for that item."
        )
    f = np.asarray(f, dtype=float)
    F = f[:, None] if f.ndim == 1 else f
    if not np.isfinite(F).all():
        raise ValidationError("predictions contain NaN or infinite values; every item needs one.")
    y_lab, F_lab, g_lab = y[idx], F[idx], domains[idx]
    # one surrogate weight (vector) for all domains, tuned on all labels
    if F.shape[1] == 1:
        lam = np.atleast_1d(
            mean_core(
                y_lab, F_lab[:, 0], pi_lab, float(F[:, 0].sum()), n_items,
                power_tuning=power_tuning, hajek=hajek,
            )[2]
        )  # fmt: skip
    else:
        lam = np.atleast_1d(
            combined_core(
                y_lab, F_lab, pi_lab, F.sum(axis=0), n_items,
                power_tuning=power_tuning, hajek=hajek,
            )[2]
        )  # fmt: skip
    fit = F @ lam
    r = y_lab - fit[idx]
    w = 1.0 / pi_lab
    m = n_domains
    n_g = np.bincount(domains, minlength=m).astype(float)
    n_lab = np.bincount(g_lab, minlength=m)
    fbar = np.bincount(domains, weights=fit, minlength=m) / n_g
    # a domain of one label or none gets an estimate and no interval (the caller
    # withholds it); none: its surrogate mean plus the pool's mean residual
    if hajek:
        wsum = np.bincount(g_lab, weights=w, minlength=m)
        with np.errstate(invalid="ignore", divide="ignore"):
            rbar = np.bincount(g_lab, weights=w * r, minlength=m) / wsum
        rbar[n_lab == 0] = float(w @ r / w.sum())
        est = fbar + rbar
        u = (r - rbar[g_lab]) / n_g[g_lab]
    else:
        est = fbar + np.bincount(g_lab, weights=w * r, minlength=m) / n_g
        est[n_lab == 0] = fbar[n_lab == 0] + float(w @ r) / n_items
        u = r / n_g[g_lab]
    U = np.zeros((idx.size, m))
    U[np.arange(idx.size), g_lab] = u
    # labeled prompts per domain: the units the variance rests on
    pairs = np.unique(np.column_stack([g_lab, codes[idx]]), axis=0)
    n_prompts = np.bincount(pairs[:, 0], minlength=m).astype(float)
    if target == "pool":
        cov = ht_covariance(U, idx, codes[idx], inclusion)
    elif target == "population":
        P = int(codes.max()) + 1
        if P < 2:
            raise ValidationError("the population target needs at least 2 prompts in the pool.")
        psi = np.zeros((P, m))
        np.add.at(psi, (codes, domains), (fit - fbar[domains]) / n_g[domains])
        np.add.at(psi, (codes[idx], g_lab), w * u)
        cov = psi.T @ psi * P / (P - 1.0)
    else:
        raise ValidationError(f"target {target!r} must be 'pool' or 'population'.")
    if hajek:
        scale = np.sqrt(n_prompts / np.maximum(n_prompts - 1.0, 1.0))
        cov = cov * np.outer(scale, scale)
    df = np.maximum(n_prompts - 1.0, 1.0)
    if target == "population":  # a few prompts' influences can carry the variance
        df = satterthwaite_prompts(psi, df)
    if target == "pool":
        cov = _floor(cov, r, fit[idx], pi_lab, g_lab, n_g, residual_floor(y_lab))
    return {
        "estimate": est,
        "cov": cov,
        "df": df,
        "n_labeled": n_lab,
        "n_items": n_g,
        "n_prompts": n_prompts,
        "power_lambda": float(lam[0]) if lam.size == 1 else [float(v) for v in lam],
        "labeled": (y_lab, pi_lab, g_lab),
    }


def satterthwaite_prompts(parts: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Degrees of freedom of a variance that sums independent prompts' squared influences
    ``a_p = parts_p^2`` (per column): ``2 (sum a)^2 / sum (a - abar)^2``, at most ``cap``
    (the labeled prompts minus one) and at least 1, as
    :func:`~bacon_bayes.estimate.core.satterthwaite_df` does for items. Influences of
    even size keep the cap; a few prompts that carry most of the variance (a skewed label,
    such as MQM's rare large errors) lower it and widen the interval."""
    a = parts**2
    spread = ((a - a.mean(axis=0)) ** 2).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(spread > 0, 2.0 * a.sum(axis=0) ** 2 / spread, cap)
    return np.clip(df, 1.0, cap)


def _floor(
    cov: np.ndarray,
    r: np.ndarray,
    f_lab: np.ndarray,
    pi_lab: np.ndarray,
    g_lab: np.ndarray,
    n_g: np.ndarray,
    per_label: float,
) -> np.ndarray:
    """Each group's variance raised to at least what all labels predict for its items
    (:func:`~bacon_bayes.estimate.moderate.variance_prior`, with several groups) and to
    ``per_label`` through the design formula (:func:`~.core.residual_floor`), the
    correlations kept.

    A group whose few dozen labeled prompts the surrogate happens to predict almost
    perfectly (a bounded label near its bound: a rare miss not drawn) otherwise gets a
    tiny variance. On TriviaQA's 8 systems, 40 labeled prompts each (paired, 10% labels,
    200 draws): without the floor the 99th percentile of ``|t|`` was 9.6, simultaneous
    coverage of the 95% intervals of the means 0.785 and of the 28 differences 0.875;
    with it (:data:`FLOOR_SHARE`) 0.965 and 0.935 (moderating the variance as the
    item-level groups do gave 0.88 and 0.89: the miss-or-not scatter of binary residuals
    makes the prior worth only a few labels).
    """
    c = variance_coefficients(1.0 / pi_lab, pi_lab, "pool")
    floor = floor_variance(per_label, c, g_lab, n_g)
    if n_g.size > 1:
        prior = variance_prior(r, f_lab, c, g_lab, n_g.size, n_g, per_label)
        floor = np.maximum(floor, FLOOR_SHARE * prior)
    own = np.clip(np.diag(cov), 0.0, None)
    var = np.maximum(own, floor)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(own > 0, np.sqrt(var / own), 0.0)
    out = cov * np.outer(ratio, ratio)
    out[np.diag_indices_from(out)] = var
    return out


def clustered_group_means(
    y: np.ndarray,
    f: np.ndarray,
    groups: np.ndarray,
    prompts: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | Inclusion | None = None,
    *,
    alpha: float = 0.05,
    simultaneous: str = "maxt",
    power_tuning: bool = True,
    hajek: bool = True,
    target: ClusterTarget = "pool",
    method: str = "aee",
) -> EstimateTable:
    """Per-group AEE means with a covariance clustered by prompt and Student-t intervals
    (module docstring)."""
    _check_alpha(alpha)
    names, codes = group_codes(groups, np.shape(y)[0] if np.ndim(y) else None)
    try:
        fit = clustered_fit(
            y, f, codes, names.size, prompts, labeled, pi,
            power_tuning=power_tuning, hajek=hajek, target=target,
        )  # fmt: skip
    except ValidationError as exc:
        text = str(exc)
        for g, name in enumerate(names):
            text = text.replace(f"domain {g} ", f"group {str(name)!r} ")
        raise ValidationError(text) from None
    table = group_table(
        "mean", method, names, fit["estimate"], fit["cov"], fit["n_labeled"], fit["n_items"],
        alpha, simultaneous, _critical(fit, alpha, simultaneous), df=fit["df"],
        power_lambda=fit["power_lambda"],
        target=target, interval="t (clustered by prompt)",
        labeled_prompts=[int(v) for v in fit["n_prompts"]], clustered_by_prompt=True,
    )  # fmt: skip
    if not power_tuning and not np.any(f):  # the labels alone (classical_group_means)
        table = _labels_score(table, fit, target)
    n_lab = np.asarray(fit["n_labeled"])
    return unvalidated(table.withhold(n_lab == 1, ONE_LABEL), n_lab == 0)


def _labels_score(
    table: EstimateTable, fit: dict[str, Any], target: ClusterTarget
) -> EstimateTable:
    """The labels alone's intervals widened to hold the score interval: every mean ``mu``
    that the same critical value does not reject with the variance the labels' spread
    predicts *at* ``mu`` (:class:`~.moderate.MeanVariance`, as the item-level groups'
    score interval, :func:`~.moderate.score_bounds`). A group whose labels all sit at a
    bound of the scale (ten 0/1 labels all 1) has a clustered variance of zero, and its
    interval would be that one point; the score interval reaches away from the bound, as
    Wilson's does for a proportion (``details["interval"] == "score t (clustered by
    prompt)"``)."""
    y_lab, pi_lab, g_lab = fit["labeled"]
    n_g = np.asarray(fit["n_items"], dtype=float)
    c = variance_coefficients(1.0 / pi_lab, pi_lab, target)
    mv = MeanVariance.fit(y_lab, c, g_lab, n_g.size, n_g)
    crit = np.broadcast_to(np.asarray(table.critical_value, dtype=float), table.estimate.shape)
    zero = np.zeros_like(table.estimate)
    low, high = score_bounds(table.estimate, zero, zero, 1.0, mv, crit)
    details = {**table.details, "interval": "score t (clustered by prompt)"}
    details["label_range"] = [mv.lo, mv.hi]
    return replace(
        table,
        ci_low=np.fmin(table.ci_low, low),
        ci_high=np.fmax(table.ci_high, high),
        details=details,
    )


def _critical(fit: dict[str, Any], alpha: float, simultaneous: str) -> np.ndarray | None:
    """Simultaneous critical values of the group means as if their errors were
    independent (Sidak, Student-t per group; by Sidak's inequality never below the
    max-|t| over their estimated correlation, which comes from the prompts drawn and the
    floor: on WMT22, 16 systems and 187 prompts, the max-|t| over it covered 0.895), over
    the groups of 2 labels or more (the others get no interval)."""
    if simultaneous != "maxt":
        return None
    answered = np.asarray(fit["n_labeled"]) >= 2
    out = np.full(answered.size, np.nan)
    k = int(answered.sum())
    if k:
        out[answered] = simultaneous_critical_value(np.eye(k), alpha, "maxt", fit["df"][answered])
    return out


def use_clustered(
    prompts: np.ndarray | None, pi: np.ndarray | float | Inclusion | None, target: str
) -> bool:
    """Whether the clustered estimators apply: prompts given, and a design that draws
    prompts or the population target (item-level designs on the pool keep the
    item-level estimators, which they equal up to the conditioning on group sizes)."""
    if prompts is None:
        return False
    return (isinstance(pi, Inclusion) and pi.clustered) or cluster_target(target) == "population"


def cluster_target(target: str) -> ClusterTarget:
    """``"population"`` for either name of the larger-population target."""
    if target in ("population", "superpopulation"):
        return "population"
    if target != "pool":
        raise ValidationError(f"target {target!r} must be 'pool' or 'population'.")
    return "pool"


def item_pi(pi: np.ndarray | float | Inclusion | None, target: str) -> np.ndarray | float | None:
    """The items' inclusion probabilities for the item-level estimators (which take
    either name of the population target: they only tell ``"pool"`` from the rest);
    refuses an unknown ``target``."""
    cluster_target(target)
    return pi.pi if isinstance(pi, Inclusion) else pi


def residual_correlation(
    y: np.ndarray, f: np.ndarray, labeled: np.ndarray, codes: np.ndarray
) -> float:
    """The correlation of two labeled items' residuals (label on the surrogates, least
    squares) when they share a prompt, in [0, 1]; 0 without such a pair. What a wave of
    whole prompts loses to its prompts' shared errors
    (:meth:`~bacon_bayes.inclusion.Inclusion.precision_weighted`)."""
    F = np.asarray(f, dtype=float).reshape(np.shape(y)[0], -1)[labeled]
    X = np.column_stack([np.ones(len(F)), F])
    yl = np.asarray(y, dtype=float)[labeled]
    r = yl - X @ np.linalg.lstsq(X, yl, rcond=None)[0]
    c = codes[labeled]
    count = np.bincount(c).astype(float)
    pairs = float(np.sum(count * (count - 1.0)))
    s2 = float(np.mean(r * r))
    if pairs == 0 or s2 <= 0:
        return 0.0
    within = float(np.sum(np.bincount(c, r) ** 2 - np.bincount(c, r * r)))
    return float(np.clip(within / pairs / s2, 0.0, 1.0))


def _waves_df(weighted: Inclusion, labeled: np.ndarray, codes: np.ndarray) -> float:
    """Satterthwaite's degrees of freedom of a precision-weighted mean's variance, the sum
    of its waves' parts ``lam_w^2 V_w`` (in proportion ``lam_w``, as ``lam_w = 1 / V_w``),
    each resting on its own units: a wave of prompts on its labeled prompts (a paired wave
    of 10 prompts carries a variance known to 9 df, however many items the pool's other
    waves touched), a wave of items on its labels."""
    assert weighted.drawn is not None and weighted.shares is not None
    drawn, part = weighted.drawn, weighted.shares
    df = np.full(part.size, np.inf)
    for w in np.flatnonzero(part > 0):
        mine = labeled & (drawn == w)
        by_prompt = bool((weighted.prompt[w][mine] < 1.0).any())
        units = np.unique(codes[mine]).size if by_prompt else int(mine.sum())
        df[w] = max(units - 1.0, 1.0)
    used = part > 0
    return float(part[used].sum() ** 2 / np.sum(part[used] ** 2 / df[used]))


def clustered_mean(
    y: np.ndarray,
    f: np.ndarray,
    prompts: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | Inclusion | None = None,
    *,
    alpha: float = 0.05,
    power_tuning: bool = True,
    hajek: bool = True,
    target: ClusterTarget = "pool",
) -> Estimate:
    """The AEE mean of the pool with its variance clustered by prompt and a Student-t
    interval on the labeled prompts (module docstring)."""
    _check_alpha(alpha)
    n = np.shape(y)[0]
    df_waves = np.inf
    if isinstance(pi, Inclusion) and pi.selected is not None and pi.mixed and target == "pool":
        lab = ~np.isnan(np.asarray(y, float)) if labeled is None else np.asarray(labeled, bool)
        codes = prompt_codes(np.asarray(prompts))
        pi = pi.precision_weighted(lab, codes, residual_correlation(y, f, lab, codes))
        df_waves = _waves_df(pi, lab, codes)
    fit = clustered_fit(
        y, f, np.zeros(n, dtype=np.intp), 1, prompts, labeled, pi,
        power_tuning=power_tuning, hajek=hajek, target=target,
    )  # fmt: skip
    return _estimate(
        "mean", "aee", float(fit["estimate"][0]), float(fit["cov"][0, 0]),
        int(fit["n_labeled"][0]), n, alpha, df=min(float(fit["df"][0]), df_waves),
        power_lambda=fit["power_lambda"],
        target=target, interval="t (clustered by prompt)",
        labeled_prompts=int(fit["n_prompts"][0]), clustered_by_prompt=True,
    )  # fmt: skip


def contrast_critical_values(
    table: EstimateTable, contrast: np.ndarray, cov: np.ndarray, how: str, df: np.ndarray | None
) -> tuple[np.ndarray | None, dict[str, Any]]:
    """Critical values of contrasts (rows of ``contrast``, covariance ``cov``) of a group
    table clustered by prompt, and the rule in ``details["simultaneous_rule"]``
    (:func:`~bacon_bayes.estimate.critical.prompt_contrast_critical_values`); ``None``
    (the generic rule) for any other table."""
    if not table.details.get("clustered_by_prompt") or df is None:
        return None, {}
    rank = int(np.linalg.matrix_rank(contrast))
    crit, rule = prompt_contrast_critical_values(
        correlation(cov), table.alpha, how, np.asarray(df, dtype=float), rank
    )
    return crit, {"simultaneous_rule": rule}


def withhold_few_prompts(
    diffs: EstimateTable, table: EstimateTable, pairs: list[tuple[int, int]]
) -> EstimateTable:
    """``diffs`` (simultaneous intervals of the ``pairs`` of ``table``'s groups, clustered
    by prompt) without the intervals of pairs whose groups share fewer labeled prompts
    than :func:`~bacon_bayes.estimate.critical.min_simultaneous_prompts` at the table's
    level: none can be valid there without assuming normal prompt errors. The estimates
    stay, the reason is in ``details["no_interval"]`` and the note of ``to_frame()``;
    pointwise intervals (``simultaneous="none"``) are never withheld.

    Withheld rather than refused: a user comparing systems on a handful of prompts still
    gets every estimate, the group means and, asked pointwise, each pair's interval; a
    raise would take those away to say that one kind of interval is not available.
    Pairs of a table whose groups have at least the minimum keep the Bonferroni intervals
    over all pairs, which cover jointly. The group means keep their simultaneous
    intervals (Sidak's t on the same df, conservative here: 0.99-1.00 on SummEval
    relevance at 5-10 prompts, likely the variance floor); the rank intervals, built
    on the differences, then span every rank."""
    prompts = table.details.get("labeled_prompts")
    if diffs.simultaneous == "none" or prompts is None:
        return diffs
    need = min_simultaneous_prompts(table.alpha)
    shared = np.array([min(prompts[a], prompts[b]) for a, b in pairs])
    level = round(100 * (1 - table.alpha), 1)
    reason = (
        f"{int(shared.min())} labeled prompt(s): a simultaneous {level:g}% interval needs at "
        f"least {need} (with G prompts, symmetric prompt errors all share a sign with chance "
        "2^(1-G), above alpha); label more prompts, or ask for pointwise intervals "
        "(bacon estimate --pointwise; simultaneous='none' in Python)"
    )
    few = shared < need
    out = diffs.withhold(few, reason)
    if few.any():
        out.details["simultaneous_withheld"] = reason
    return out
