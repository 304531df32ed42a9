"""Group means with one joint covariance and simultaneous intervals (their pairwise
differences and rank intervals: :mod:`.differences`, re-exported here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate import moderate
from bacon_bayes.estimate.clustered import (
    cluster_target,
    clustered_group_means,
    item_pi,
    use_clustered,
)
from bacon_bayes.estimate.combine import check_surrogates, combined_core, inflation
from bacon_bayes.estimate.core import (
    Target,
    _check_alpha,
    mean_core,
    residual_floor,
    variance_coefficients,
)
from bacon_bayes.estimate.critical import (
    bootstrap_resamples,
    resample_critical_values,
    resample_moderation,
    simultaneous_critical_value,
)
from bacon_bayes.estimate.differences import compare as compare  # re-exported
from bacon_bayes.estimate.differences import pair_bootstrap
from bacon_bayes.estimate.differences import rank_intervals as rank_intervals  # re-exported
from bacon_bayes.estimate.moderate import floor_details, moderated_variance, score_bounds
from bacon_bayes.estimate.shape import skew_join
from bacon_bayes.estimate.tables import (
    MAX_COMPARED,
    ONE_LABEL,
    GroupArrays,
    group_codes,
    group_table,
    known_exactly,
    own_guarantee,
    unvalidated,
)
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.results import EstimateTable

#: Fewest labels per group for bootstrap critical values (below: moderated Student-t).
MIN_BOOTSTRAP_LABELS = 10


def check_interval(interval: str) -> None:
    """Refuse an ``interval`` other than ``"bootstrap"`` or ``"t"`` (whatever the pooling)."""
    if interval not in ("bootstrap", "t"):
        raise ValidationError(f"interval={interval!r} is not known; use 'bootstrap' or 't'.")


def aee_group_means(
    y: np.ndarray,
    f: np.ndarray,
    groups: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | Inclusion | None = None,
    *,
    alpha: float = 0.05,
    simultaneous: str = "maxt",
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
    interval: Literal["bootstrap", "t"] = "bootstrap",
    n_boot: int = 2000,
    seed: int = 0,
    prompts: np.ndarray | None = None,
) -> EstimateTable:
    """Per-group AEE means with one joint covariance and simultaneous intervals.

    Each group's estimate is the AEE mean over its own items; the power-tuning
    weight is shared, tuned once on all labels.
    The joint covariance comes from the per-item linearisation: for labeled item
    ``i`` and group ``g`` the influence is ``1{i in g} w_i r_ig / N_g``, and
    ``Cov = sum_i (1 - pi_i) d_i d_i'``: zero between disjoint groups under Poisson
    sampling, so it is diagonal with each group's variance from :func:`mean_core`.

    ``interval="bootstrap"`` (default) takes the critical values from a seeded
    studentised bootstrap within groups (:func:`bootstrap_t_critical_values`);
    it needs at least ``MIN_BOOTSTRAP_LABELS`` labels in every group and falls
    back to ``"t"`` otherwise; ``details["interval"]`` records which one was used.

    With ``prompts`` (the prompt of every item) and a design that draws prompts
    (``pi`` an :class:`~bacon_bayes.inclusion.Inclusion` with prompt-level waves), or
    with ``target="population"``, the covariance is clustered by prompt and the
    intervals are Student-t on the labeled prompts (:mod:`.clustered`).

    ``"t"`` is a moderated t (Smyth 2004): a group's variance from a handful of
    labels is unreliable exactly where it matters (labels at a bound of the scale,
    e.g. ten expert ratings of 5 whose true mean is 4.9, give a variance near zero),
    so each group's variance is the average of its own, worth ``n_g - 1`` labels
    for normal residuals and fewer for heavy-tailed ones (a judge's rare errors on
    binary labels; :func:`~bacon_bayes.estimate.moderate.own_labels`), and the
    variance that all labels predict for its items, worth ``d0`` labels
    (:func:`~bacon_bayes.estimate.moderate.moderated_variance`); the Student-t
    critical value has the two worths summed as df. ``d0`` is estimated from how much the
    groups' own variances scatter around their predictions, between 4 (scatter
    beyond sampling: labels piled up at a bound) and the pooled residuals' df
    (``details["prior_labels"]``). Measured on SummEval's 12 systems (1,000 draws of
    10% labels, about 10 per system, nominal 0.95, band 0.936-0.964): simultaneous
    coverage 0.970 / 0.959 / 0.952 / 0.963 on consistency / fluency / coherence /
    relevance; ``d0`` fixed at 4 gave 0.970 / 0.962 / 0.970 / 0.976 and the
    unmoderated t 0.800 / 0.810 / 0.915 / 0.965 (200 draws).
    """
    _check_alpha(alpha)
    check_interval(interval)
    if prompts is not None and use_clustered(prompts, pi, target):
        return clustered_group_means(
            y, f, groups, prompts, labeled, pi, alpha=alpha, simultaneous=simultaneous,
            power_tuning=power_tuning, hajek=hajek, target=cluster_target(target),
        )  # fmt: skip
    a = GroupArrays.of(y, f, groups, labeled, item_pi(pi, target), hajek)
    if a.f.ndim == 2:
        check_surrogates(a.f, a.f.shape[0], a.idx.size, power_tuning)
    return group_means_from_sums(
        a.y_lab,
        a.f[a.idx],
        a.pi_lab,
        a.codes[a.idx],
        a.names,
        a.f_sums,
        a.f.sum(axis=0),
        a.n_g,
        a.n_items,
        alpha=alpha,
        simultaneous=simultaneous,
        power_tuning=power_tuning,
        hajek=hajek,
        target=target,
        interval=interval,
        n_boot=n_boot,
        seed=seed,
    )


def group_means_from_sums(
    y_lab: np.ndarray,
    f_lab: np.ndarray,
    pi_lab: np.ndarray,
    g_lab: np.ndarray,
    names: np.ndarray,
    f_sums: np.ndarray,
    f_total: np.ndarray | float,
    n_g: np.ndarray,
    n_items: int,
    *,
    alpha: float = 0.05,
    simultaneous: str = "maxt",
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
    interval: Literal["bootstrap", "t"] = "bootstrap",
    n_boot: int = 2000,
    seed: int = 0,
    skew: bool = True,
) -> EstimateTable:
    """:func:`aee_group_means` from the labeled items and sums over the pool.

    ``y_lab, f_lab, pi_lab, g_lab``: the labeled items' labels, surrogates (shape (n,)
    or (n, k)), inclusion probabilities and group codes (indices into ``names``);
    ``f_sums``: each group's surrogate sum over all its items (shape (m,) or (m, k));
    ``f_total``: the pool's; ``n_g``: each group's number of items; ``n_items``: the
    pool's. The streaming estimate (:mod:`bacon_bayes.stream`) calls it with sums
    reduced chunk by chunk (through :func:`group_tables_from_sums`). ``skew=False``: the
    bootstrap intervals without the skewed side's reach (:func:`.shape.skew_join`).
    """
    return group_tables_from_sums(
        y_lab, pi_lab, g_lab, names, [(f_lab, f_sums, f_total, power_tuning)], n_g, n_items,
        alpha=alpha, simultaneous=simultaneous, hajek=hajek, target=target,
        interval=interval, n_boot=n_boot, seed=seed, skew=skew,
    )[0]  # fmt: skip


#: one surrogate of :func:`group_tables_from_sums`: labeled items' values, sums per
#: group and over the pool, and whether its weight is tuned
SurrogateSums = tuple[np.ndarray, np.ndarray, "np.ndarray | float", bool]


def group_tables_from_sums(
    y_lab: np.ndarray,
    pi_lab: np.ndarray,
    g_lab: np.ndarray,
    names: np.ndarray,
    surrogates: Sequence[SurrogateSums],
    n_g: np.ndarray,
    n_items: int,
    *,
    alpha: float = 0.05,
    simultaneous: str = "maxt",
    hajek: bool = True,
    target: Target = "pool",
    interval: Literal["bootstrap", "t"] = "bootstrap",
    n_boot: int = 2000,
    seed: int = 0,
    skew: bool = True,
) -> list[EstimateTable]:
    """:func:`group_means_from_sums` for several surrogates of the same labels (e.g. a
    model's and none: the classical means), one table each; their studentised
    bootstraps run on the same resamples, drawn once (each table equals its own call).

    On the bootstrap branch a skewed group whose own variance is below its moderated one
    reaches further on its skewed side (:func:`.shape.skew_join`; ``skew=False``: not).
    """
    m = names.size
    n_lab = np.bincount(g_lab, minlength=m)
    if n_lab.min() < 2:
        return _without_sparse(
            y_lab, pi_lab, g_lab, names, surrogates, n_g, n_items, alpha=alpha,
            simultaneous=simultaneous, hajek=hajek, target=target, interval=interval,
            n_boot=n_boot, seed=seed, skew=skew,
        )  # fmt: skip
    kw: dict[str, Any] = {"hajek": hajek, "target": target}
    fits = [
        _group_fit(y_lab, np.asarray(f), pi_lab, g_lab, sums, total, n_g, n_items, tuned, kw)
        for f, sums, total, tuned in surrogates
    ]
    # groups are disjoint: under Poisson sampling their estimates are uncorrelated, and
    # each one's variance is the mean's (its labeled items' linearised influence)
    boot = interval == "bootstrap" and n_lab.min() >= MIN_BOOTSTRAP_LABELS
    # the labels alone (a surrogate that is zero everywhere, untuned): the moderation's
    # prior is a function of the group's mean, and the interval a score interval
    alone = [not sur[3] and not np.any(sur[0]) for sur in surrogates]
    floor_each = residual_floor(y_lab)
    coef = variance_coefficients(1.0 / pi_lab, pi_lab, target)  # for floor_details
    if boot:
        # the bootstrap learns the tails' shape, not the variance a few labels missed: a
        # group whose labels showed none of the pool's rare large residuals (binary
        # labels, a good surrogate) has a tiny own variance; at least the moderated one,
        # in the interval and in every resample's studentisation alike
        mods = [
            moderated_variance(
                var, resid, y_lab - resid, pi_lab, g_lab, n_g, target, est if alone[i] else None,
                0.0 if alone[i] else floor_each,
            )
            for i, (est, var, resid, _) in enumerate(fits)
        ]  # fmt: skip
        ab = [
            resample_moderation(fit[1], *mod[:3], fit[2], 1.0 / pi_lab, g_lab, hajek)
            for fit, mod in zip(fits, mods, strict=True)
        ]
        devs, ses = bootstrap_resamples(
            np.column_stack([fit[2] for fit in fits]), 1.0 / pi_lab, g_lab,
            hajek=hajek, n_boot=n_boot, seed=seed,
            moderation=(np.array([a for a, _ in ab]), np.array([b for _, b in ab])),
        )  # fmt: skip
    tables = []
    for i, (est, var, resid, lam_out) in enumerate(fits):
        crit = df = score = None
        moderation: dict[str, Any] = {}
        binary = moderate.two_valued(est, y_lab, coef, g_lab, n_g) if alone[i] else None
        if binary is not None:  # a verdict's variance is its mean's: Wilson's interval
            var, df = binary[0], np.full(m, np.inf)
            score = (np.zeros(m), np.zeros(m), 1.0, binary[1])
        elif boot:
            # never narrower than the moderated t's interval with normal residuals (n_g - 1
            # + d0 df) on the larger of the moderated variance and the own one as far as
            # the own is worth its labels (own_labels: all of it for normal residuals,
            # little for heavy-tailed ones): the resamples cannot show the tails the labels
            # missed, only those they showed. A floor on the critical value alone (times
            # the interval's variance, the larger of the two) made heavy-tailed groups'
            # intervals too wide: 0.927 at nominal 0.90 (VALIDATION.md)
            mod, worth = mods[i][0], (mods[i][1] - mods[i][2]) / np.maximum(n_lab - 1.0, 1.0)
            own_var = var
            floor_var = np.maximum(mod, np.clip(worth, 0.0, 1.0) * var)
            var = np.maximum(var, mod)
            normal_df = n_lab - 1.0 + mods[i][2]
            floor = simultaneous_critical_value(np.eye(m), alpha, simultaneous, normal_df)
            crit = np.maximum(
                resample_critical_values(devs[i], ses[i], alpha, simultaneous),
                floor * np.sqrt(floor_var / np.maximum(var, 1e-300)),
            )
            if m <= MAX_COMPARED:  # past it compare refuses the pairs (tables.all_pairs)
                moderation["pair_bootstrap"] = pair_bootstrap(
                    devs[i],
                    ses[i],
                    var,
                    floor_var,
                    normal_df,
                    names,
                    alpha,
                    simultaneous,
                    # the t basis (anytime): the df of the variance each interval takes
                    t_df=np.where(own_var < mod, normal_df, n_lab - 1.0),
                )
        else:
            own_var = var
            var, df, d0, mv = moderated_variance(
                var,
                resid,
                y_lab - resid,
                pi_lab,
                g_lab,
                n_g,
                target,
                est if alone[i] else None,
                0.0 if alone[i] else floor_each,
            )
            moderation["prior_labels"] = d0
            if mv is not None:
                score = (own_var, np.asarray(df - d0), d0, mv)
        if not alone[i]:
            moderation.update(floor_details(var, floor_each, coef, g_lab, n_g, names))
        table = group_table(
            "mean", "aee", names, est, np.diag(var), n_lab, n_g, alpha, simultaneous, crit, df,
            power_lambda=lam_out, target=target,
            interval="bootstrap" if boot and binary is None else "t",
            **moderation,
        )  # fmt: skip
        if boot and binary is None and skew:
            table = skew_join(table, own_var, mods[i][0], resid, g_lab, 1.0 / pi_lab, y_lab)
        if score is not None:
            low, high = score_bounds(est, *score, table.critical_value)
            details = {
                **table.details,
                "interval": "score t" if binary is None else moderate.TWO_VALUED,
                "label_range": [score[3].lo, score[3].hi],
            }
            if binary is not None:  # for the differences' Wilson ends (compare)
                details["design"] = [float(v) for v in binary[1].design]
            table = replace(table, ci_low=low, ci_high=high, details=details)
        tables.append(table)
    return tables


def _without_sparse(
    y_lab: np.ndarray,
    pi_lab: np.ndarray,
    g_lab: np.ndarray,
    names: np.ndarray,
    surrogates: Sequence[SurrogateSums],
    n_g: np.ndarray,
    n_items: int,
    **kw: Any,
) -> list[EstimateTable]:
    """:func:`group_tables_from_sums` when some groups have fewer than 2 labels: the others
    as usual, and those rows with an estimate and no interval (one label: the group's
    surrogate mean plus its label's residual; none: plus the pool's mean residual,
    UNVALIDATED; no se either: NaN, their covariance rows 0)."""
    m = names.size
    n_lab = np.bincount(g_lab, minlength=m)
    keep = np.flatnonzero(n_lab >= 2)
    remap = np.full(m, -1)
    remap[keep] = np.arange(keep.size)
    rows = remap[g_lab] >= 0
    subs: list[EstimateTable | None] = [None] * len(surrogates)
    if keep.size:
        subs = list(
            group_tables_from_sums(
                y_lab[rows], pi_lab[rows], remap[g_lab[rows]], names[keep],
                [(np.asarray(f)[rows], np.asarray(s)[keep], t, tu) for f, s, t, tu in surrogates],
                n_g[keep], n_items, **kw,
            )
        )  # fmt: skip
    tables = []
    for (f, sums, _total, tuned), sub in zip(surrogates, subs, strict=True):
        f = np.asarray(f, dtype=float)
        lam = (
            sub.details.get("power_lambda", 0.0)
            if sub is not None
            else (1.0 if tuned or np.any(f) else 0.0)
        )
        lam_v = np.atleast_1d(np.asarray(lam, dtype=float))
        fitted = (f if f.ndim == 2 else f[:, None]) @ lam_v
        s_mean = (np.asarray(sums, float).reshape(m, -1) @ lam_v) / n_g
        w = 1.0 / pi_lab
        resid = y_lab - fitted
        d = np.bincount(g_lab, weights=w * resid, minlength=m) / np.maximum(
            np.bincount(g_lab, weights=w, minlength=m), 1e-300
        )
        d[n_lab == 0] = float(w @ resid / w.sum())
        est = s_mean + d
        cov = np.zeros((m, m))
        crit, low, high = (np.full(m, np.nan) for _ in range(3))
        if sub is not None:
            est[keep] = sub.estimate
            cov[np.ix_(keep, keep)] = sub.cov
            crit, low, high = (
                _put(v, keep, m) for v in (sub.critical_value, sub.ci_low, sub.ci_high)
            )
        table = EstimateTable(
            estimand="mean", method="aee", names=tuple(str(n) for n in names), estimate=est,
            se=np.where(n_lab >= 2, np.sqrt(np.diag(cov)), np.nan), ci_low=low, ci_high=high,
            cov=cov, n_labeled=n_lab, n_items=np.asarray(n_g, dtype=int),
            alpha=float(kw["alpha"]), simultaneous=str(kw["simultaneous"]),
            critical_value=crit,
            details={"guarantee": own_guarantee("mean", str(kw["simultaneous"]))}
            if sub is None
            else _full_details(sub.details, keep, m),
        )  # fmt: skip
        drawn = np.bincount(g_lab, weights=pi_lab < 1.0, minlength=m) == 0  # each for sure
        exact = (n_lab == 1) & drawn & known_exactly(n_lab, n_g, kw["target"])
        if exact.any():  # one item, labeled: its label is the group's mean (the pool's)
            low, high = np.where(exact, est, low), np.where(exact, est, high)
            table = replace(table, se=np.where(exact, 0.0, table.se), ci_low=low, ci_high=high)
        table = table.withhold((n_lab == 1) & ~exact, ONE_LABEL)
        tables.append(unvalidated(table, n_lab == 0))
    return tables


def _put(values: np.ndarray, keep: np.ndarray, m: int) -> np.ndarray:
    out = np.full(m, np.nan)
    out[keep] = values
    return out


def _full_details(details: dict[str, Any], keep: np.ndarray, m: int) -> dict[str, Any]:
    """A sub-table's details over all ``m`` groups (per-group lists get None elsewhere)."""
    out = dict(details)
    for key, val in details.items():
        if isinstance(val, list) and len(val) == keep.size and key != "power_lambda":
            full: list[Any] = [None] * m
            for i, g in enumerate(keep):
                full[g] = val[i]
            out[key] = full
    return out


def _group_fit(
    y_lab: np.ndarray,
    f_lab: np.ndarray,
    pi_lab: np.ndarray,
    g_lab: np.ndarray,
    f_sums: np.ndarray,
    f_total: np.ndarray | float,
    n_g: np.ndarray,
    n_items: int,
    power_tuning: bool,
    kw: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float | list[float]]:
    """Per-group estimates and variances, the residuals ``y - lambda f`` and the
    surrogate weight(s) ``lambda`` of one surrogate."""
    m = n_g.size
    if f_lab.ndim == 1:
        # one surrogate weight for all groups, tuned on all labels: per-group tuning on a
        # handful of labels would overfit and understate the variance
        lam_all = mean_core(
            y_lab, f_lab, pi_lab, float(f_total), n_items, power_tuning=power_tuning, **kw
        )[2]
        fits = [
            mean_core(
                y_lab[g_lab == g],
                f_lab[g_lab == g],
                pi_lab[g_lab == g],
                float(f_sums[g]),
                int(n_g[g]),
                lam=lam_all,
                **kw,
            )
            for g in range(m)
        ]
        est, var = np.array([r[0] for r in fits]), np.array([r[1] for r in fits])
        return est, var, y_lab - lam_all * f_lab, float(lam_all)
    # k surrogates: one weight vector tuned on all labels; each group's variance is the
    # fixed-weight one, times the price of tuning the k weights on all n (combine.inflation)
    lam = combined_core(
        y_lab, f_lab, pi_lab, np.asarray(f_total), n_items, power_tuning=power_tuning, **kw
    )[2]
    k = f_lab.shape[1] if power_tuning else 0
    price = float(inflation(g_lab.size, k) / inflation(g_lab.size, 0))
    est, var = np.empty(m), np.empty(m)
    for g in range(m):
        sel = g_lab == g
        est[g], var[g] = combined_core(
            y_lab[sel], f_lab[sel], pi_lab[sel], f_sums[g], int(n_g[g]), lam=lam, **kw
        )[:2]
    return est, var * price, y_lab - f_lab @ lam, [float(v) for v in lam]


def classical_group_means(
    y: np.ndarray,
    groups: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | Inclusion | None = None,
    *,
    alpha: float = 0.05,
    simultaneous: str = "maxt",
    hajek: bool = True,
    target: Target = "pool",
    interval: Literal["bootstrap", "t"] = "bootstrap",
    n_boot: int = 2000,
    seed: int = 0,
    prompts: np.ndarray | None = None,
) -> EstimateTable:
    """Per-group means from the human labels alone, with the same joint machinery.

    On the moderated-t path (a group under ``MIN_BOOTSTRAP_LABELS`` labels, or
    ``interval="t"``) the prior variance is a function of the group's mean and the
    interval a score interval (:func:`~bacon_bayes.estimate.moderate.score_bounds`;
    ``details["interval"] == "score t"``): SummEval's 12 systems at 10% labels, 1,000
    draws, simultaneous coverage 0.959 / 0.974 / 0.955 / 0.969 (fluency / consistency /
    coherence / relevance; the symmetric t 0.909 / 0.930 / 0.948 / 0.962).
    """
    table = aee_group_means(
        y,
        np.zeros(np.shape(y)[0]),
        groups,
        labeled,
        pi,
        alpha=alpha,
        simultaneous=simultaneous,
        power_tuning=False,
        hajek=hajek,
        target=target,
        interval=interval,
        n_boot=n_boot,
        seed=seed,
        prompts=prompts,
    )
    return replace(table, method="classical")


def naive_group_means(
    judge_avg: np.ndarray, groups: np.ndarray, *, alpha: float = 0.05, simultaneous: str = "maxt"
) -> EstimateTable:
    """Per-group means of the raw judge average (no human labels)."""
    a = np.asarray(judge_avg, dtype=float)
    names, codes = group_codes(groups, a.shape[0] if a.ndim else None)
    m = names.size
    n_g = np.bincount(codes, minlength=m)
    est = np.bincount(codes, weights=a, minlength=m) / n_g
    dev = a - est[codes]
    var = np.bincount(codes, weights=dev * dev, minlength=m) / np.maximum(n_g - 1, 1) / n_g
    table = group_table("mean", "naive", names, est, np.diag(var), n_g, n_g, alpha, simultaneous)
    return replace(table, n_labeled=np.zeros(m, dtype=int))
