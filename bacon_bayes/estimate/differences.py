"""Differences of group means with joint intervals: all pairs, or every group against one
baseline (Dunnett's family: the max-|t| over the ``m - 1`` contrasts that share it), the
bootstrap branch's critical values of those differences, and rank intervals."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate import moderate
from bacon_bayes.estimate.clustered import contrast_critical_values, withhold_few_prompts
from bacon_bayes.estimate.critical import (
    bootstrap_pair_critical_values,
    simultaneous_critical_value,
)
from bacon_bayes.estimate.shrink import shrunk_differences
from bacon_bayes.estimate.tables import (
    MAX_COMPARED,
    Pairs,
    all_pairs,
    baseline_index,
    baseline_pairs,
    correlation,
    group_table,
    own_guarantee,
    pair_df,
)
from bacon_bayes.results import EstimateTable, sure_sign

#: ``pair_bootstrap``'s key of each group's df on the Student-t basis (:func:`compare`)
T_DF = "t_df"

#: ``details["critical_basis"]`` of differences against a baseline of the bootstrap
#: branch's groups: whence their critical values
RESAMPLED = "bootstrap: the groups' own resamples, max-|t| over the comparisons with the baseline"
T_BASIS = (
    "t: Student-t on each pair's fewer labels less one (the groups' resamples hold no "
    f"critical values for this rule, nor any past {MAX_COMPARED} groups, or the comparisons "
    "leave out groups without an interval)"
)
T_DF_BASIS = (
    "t: Student-t on the smaller df of each pair's groups' variances (n - 1 + the "
    "moderation's prior labels where the moderated variance governs), the anytime basis"
)


def pair_bootstrap(
    dev: np.ndarray,
    se: np.ndarray,
    var: np.ndarray,
    floor_var: np.ndarray,
    normal_df: np.ndarray,
    names: np.ndarray,
    alpha: float,
    simultaneous: str,
    t_df: np.ndarray | None = None,
) -> dict[str, Any]:
    """The critical values of the pairwise differences of the bootstrap branch's groups,
    for :func:`compare`: ``{"groups": names, "critical_value": {rule: values}, "baseline":
    {rule: per baseline, its m - 1 pairs' values}, "floor_var", "normal_df"}``, for the
    table's rule (``simultaneous``) and pointwise (``"none"``; a baseline's pointwise
    values are all pairs' own).

    From the groups' own resamples
    (:func:`~bacon_bayes.estimate.critical.bootstrap_pair_critical_values`), never narrower
    than the moderated t's interval of the pair (the groups' ``floor_var`` summed, df the
    smaller ``normal_df``), as each group's (``t_df``: each group's df on the Student-t
    basis of :func:`compare`'s ``resampled=False``, kept as :data:`T_DF`); a baseline's
    floor is computed by :func:`compare` from ``floor_var`` and ``normal_df`` (one max-|t|
    simulation per baseline asked, not per group). ``var``: the groups' interval variances
    (the larger of their own and moderated ones). Measured (VALIDATION.md, "Differences of
    the bootstrap branch's groups"): the Student-t on the pair's fewer labels less one that
    :func:`compare` took before covered 0.926-0.948 at nominal 0.90 on the simulated regimes
    and 0.987-1.000 jointly at 0.95 on SummEval, TriviaQA and WMT22."""
    m = names.size
    pairs, contrast = all_pairs(m)
    out: dict[str, list[float]] = {}
    by_base: dict[str, list[list[float]]] = {}
    if pairs:
        a, b = contrast.argmax(axis=1), contrast.argmin(axis=1)
        corr = correlation(contrast @ np.diag(var) @ contrast.T)
        df = np.minimum(normal_df[a], normal_df[b])
        scale = np.sqrt((floor_var[a] + floor_var[b]) / np.maximum(var[a] + var[b], 1e-300))
        for rule in dict.fromkeys([simultaneous, "none"]):
            crit = np.maximum(
                bootstrap_pair_critical_values(dev, se, pairs, alpha, rule),
                simultaneous_critical_value(corr, alpha, rule, df) * scale,
            )
            out[rule] = [float(c) for c in crit]
        if simultaneous != "none":
            by_base[simultaneous] = [
                [float(c) for c in bootstrap_pair_critical_values(
                    dev, se, baseline_pairs(m, j)[0], alpha, simultaneous
                )]
                for j in range(m)
            ]  # fmt: skip
    return {
        "groups": [str(n) for n in names],
        "critical_value": out,
        "baseline": by_base,
        "floor_var": [float(v) for v in floor_var],
        "normal_df": [float(v) for v in normal_df],
        **({} if t_df is None else {T_DF: [float(v) for v in t_df]}),
    }


def _resampled(
    boot: dict[str, Any], pp: Pairs, how: str, table: EstimateTable
) -> np.ndarray | None:
    """The bootstrap branch's critical values of ``pp``'s differences under rule ``how``
    (:func:`pair_bootstrap`), None where the resamples hold none for it. Against a
    baseline: pointwise, all pairs' own (the same pairs, the same values); joint, the
    max-|t| (or Bonferroni at ``alpha / (m - 1)``) over its ``m - 1`` pairs, never below
    the moderated t's max-|t| on their own correlation."""
    if pp.baseline is None:
        vals = boot["critical_value"].get(how)
        return None if vals is None else np.asarray(vals, dtype=float)
    m = len(table)
    a, b = np.array(pp.pairs).T
    if how == "none":
        first, second = np.minimum(a, b), np.maximum(a, b)  # the row of all_pairs' order
        row = first * m - first * (first + 1) // 2 + second - first - 1
        return np.asarray(boot["critical_value"]["none"], dtype=float)[row]
    vals = boot.get("baseline", {}).get(how)
    if vals is None or "floor_var" not in boot:
        return None
    var = np.diag(table.cov)
    floor_var, normal_df = np.asarray(boot["floor_var"]), np.asarray(boot["normal_df"])
    corr = correlation(pp.contrast @ np.diag(var) @ pp.contrast.T)
    scale = np.sqrt((floor_var[a] + floor_var[b]) / np.maximum(var[a] + var[b], 1e-300))
    df = np.minimum(normal_df[a], normal_df[b])
    floor = simultaneous_critical_value(corr, table.alpha, how, df) * scale
    return np.maximum(np.asarray(vals[int(b[0])], dtype=float), floor)


def compare(
    table: EstimateTable,
    *,
    simultaneous: str | None = None,
    resampled: bool = True,
    baseline: str | None = None,
) -> EstimateTable:
    """Pairwise differences of a group table's means with joint intervals: all pairs
    ``a - b`` (for ``a`` before ``b``), or with ``baseline`` (a group's name) every other
    group against it, ``g - baseline`` in the groups' order (a shrunk table's:
    :func:`~bacon_bayes.estimate.shrink.shrunk_differences`).

    Against a baseline the joint intervals hold over its ``m - 1`` differences alone
    (Dunnett's family): the max-|t| on those contrasts' own correlation (for disjoint
    groups, one factor, the baseline's variance), Bonferroni at ``alpha / (m - 1)``;
    narrower than all pairs' joint intervals, whose family is ``m (m - 1) / 2``. Pointwise
    (``simultaneous="none"``) each row is all pairs' row of the same two groups (negated
    where the baseline comes first). Measured (tests/test_baseline_comparisons.py): 8
    groups of 30 labels, 600 draws, the 7 differences from one baseline covered 0.950
    jointly at nominal 0.95 on the bootstrap branch (0.952 on the t), all pairs' critical
    value on the same rows 0.987 (0.987), their pointwise intervals 0.773 (0.760).

    On the bootstrap branch (``details["pair_bootstrap"]``) the critical values come from
    the groups' own resamples, studentised as the groups are, for the table's rule and
    pointwise (another ``simultaneous``: as ``resampled=False``; against a baseline
    ``details["critical_basis"]`` says which); ``resampled=False`` takes Student-t on each
    pair's smaller df of the variances its groups' intervals take (:data:`T_DF`: ``n - 1 +
    d0`` where the moderated variance governs, ``n - 1`` where the group's own does; the
    fewer labels less one before session 52, which, read far in ``t_11``'s tail, made a
    WMT22 study's first-wave pairs 4.5-7.7 times their fixed width) instead, the basis of
    the anytime intervals
    (:mod:`bacon_bayes.sequential`), whose boundary reads a critical value's level far
    into the tail (at the early looks 0.001-0.01), past what a few dozen labels'
    resamples show: on SummEval relevance the resampled basis missed at some look in 0.042
    of sequences on average over the pairs, 15 of 66 pairs above 0.05 (0.027 and 3 of 66
    with the t; 200 sequences, ``benchmarks.anytime_package_check``).

    Returns
    -------
    EstimateTable
        One row per difference, named ``"a - b"`` (``details["pairs"]``: ``[a, b]``;
        against a baseline ``[g, baseline]``, and ``details["baseline"]``); the intervals
        hold jointly at ``1 - alpha`` over the table's rows with a simultaneous rule
        (``details["guarantee"]``); a pair with a group without an interval keeps its
        difference and has none.
    """
    if baseline is not None:
        baseline_index(table.names, baseline)  # refused first, whatever the branch
    if table.details.get("pooling") == "shrink":
        return shrunk_differences(table, simultaneous, baseline)
    answered = np.isfinite(table.ci_low) & np.isfinite(table.ci_high)
    if not answered.all() and len(table) > 1:
        return _compare_answered(table, answered, simultaneous, resampled, baseline)
    if len(table) < 2:
        raise ValidationError("comparisons need at least two groups.")
    pp = Pairs.of(table, baseline)
    pairs, contrast = pp.pairs, pp.contrast
    names, n_lab, n_it = pp.names, pp.n_labeled, pp.n_items
    df = pair_df(table.details.get("df"), pairs)
    boot_all = table.details.get("pair_bootstrap") or {}
    t_basis = T_BASIS
    if not resampled and df is None and T_DF in boot_all:
        if boot_all["groups"] == list(table.names):  # the bootstrap branch's t basis
            df, t_basis = pair_df(boot_all[T_DF], pairs), T_DF_BASIS
    how = simultaneous or table.simultaneous
    keys = ("target", "interval", "clustered_by_prompt")
    extra = {k: table.details[k] for k in keys if k in table.details}
    if baseline is not None:
        extra["baseline"] = baseline
    cov = contrast @ table.cov @ contrast.T
    # clustered by prompt: the prompts' rule and minimum (clustered.contrast_critical_values)
    crit, rule = contrast_critical_values(table, contrast, cov, how, df)
    boot = table.details.get("pair_bootstrap") if resampled else None
    found = None
    if boot and boot["groups"] == list(table.names):
        found = _resampled(boot, pp, how, table)
    if found is not None:  # the groups' own resamples (bootstrap branch)
        crit, df = found, None
    if baseline is not None and table.details.get("interval") == "bootstrap":
        extra["critical_basis"] = t_basis if found is None else RESAMPLED
    diffs = group_table(
        "difference", table.method, names, contrast @ table.estimate, cov, n_lab, n_it,
        table.alpha, how, crit, df=df, n_df=pp.n_fewer, pairs=pp.named(table), **extra, **rule,
    )  # fmt: skip
    diffs = moderate.two_valued_differences(table, diffs, np.array(pairs))
    return withhold_few_prompts(diffs, table, pairs) if rule else diffs


def _compare_answered(
    table: EstimateTable,
    answered: np.ndarray,
    simultaneous: str | None,
    resampled: bool,
    baseline: str | None = None,
) -> EstimateTable:
    """:func:`compare` over the groups with an interval (one family); a pair with a group
    without one keeps its difference and gets no interval (all of them where the baseline
    has none)."""
    keep = np.flatnonzero(answered)
    pp = Pairs.of(table, baseline)
    pairs = pp.pairs
    sub = None
    base_ok = baseline is None or bool(answered[baseline_index(table.names, baseline)])
    if keep.size >= 2 and base_ok:
        sub = compare(
            table.take(keep), simultaneous=simultaneous, resampled=resampled, baseline=baseline
        )
    index = {name: g for g, name in enumerate(table.names)}
    sub_pairs = {
        (index[a], index[b]): k for k, (a, b) in enumerate(sub.details["pairs"] if sub else [])
    }
    a, b = np.array(pairs).T  # per pair: a group without an estimate (NaN) spoils no other
    est = table.estimate[a] - table.estimate[b]
    cov = pp.contrast @ table.cov @ pp.contrast.T
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    se[np.isnan(table.se[a] + table.se[b])] = np.nan
    crit = np.full(len(pairs), np.nan)
    low, high = np.full(len(pairs), np.nan), np.full(len(pairs), np.nan)
    for k, pair in enumerate(pairs):
        if sub is not None and pair in sub_pairs:
            j = sub_pairs[pair]
            se[k], crit[k], low[k], high[k] = (
                sub.se[j],
                sub.critical_value[j],
                sub.ci_low[j],
                sub.ci_high[j],
            )
    keys = ("target", "interval", "clustered_by_prompt", "range")
    out = EstimateTable(
        estimand="difference", method=table.method,
        names=pp.names, estimate=est, se=se, ci_low=low, ci_high=high, cov=cov,
        n_labeled=pp.n_labeled, n_items=pp.n_items,
        alpha=table.alpha, simultaneous=simultaneous or table.simultaneous,
        critical_value=crit,
        details={
            "pairs": pp.named(table),
            **{k: table.details[k] for k in keys if k in table.details},
            **{k: sub.details[k] for k in ("critical_basis",) if sub and k in sub.details},
            **({"baseline": baseline} if baseline is not None else {}),
            "guarantee": own_guarantee("difference", simultaneous or table.simultaneous),
        },
    )  # fmt: skip
    out = out.withhold(~answered[a] | ~answered[b], "a group of the pair has no interval")
    # pairs of answered groups withheld in their own family: its reasons (too few prompts)
    said = ("no_interval", "simultaneous_withheld")
    own = {k: v for k, v in (sub.details if sub else {}).items() if k in said}
    reasons = {**own.get("no_interval", {}), **out.details["no_interval"]}
    return replace(out, details={**out.details, **own, "no_interval": reasons})


def rank_intervals(
    table: EstimateTable, *, descending: bool = True, diffs: EstimateTable | None = None
) -> dict[str, np.ndarray]:
    """Ranks of the groups with simultaneous rank intervals.

    Group ``g``'s rank interval runs from ``1 + #{h: h surely above g}`` to
    ``m - #{h: h surely below g}``, where "surely" uses the simultaneous
    intervals of all pairwise differences (``diffs``, default :func:`compare` of
    ``table``; e.g. anytime ones); the intervals for all groups then hold jointly with
    at least the difference intervals' confidence. A group without an estimate (the
    classical mean of a group without labels) has no rank (NaN; its interval spans all).
    """
    diffs = compare(table) if diffs is None else diffs
    m = len(table)
    above = np.zeros((m, m), dtype=bool)  # above[a, b]: a surely larger than b
    sign = sure_sign(diffs.ci_low, diffs.ci_high)
    for k, (a, b) in enumerate(diffs.details["pairs"]):
        ia, ib = table.names.index(a), table.names.index(b)
        if sign[k] > 0:
            above[ia, ib] = True
        elif sign[k] < 0:
            above[ib, ia] = True
    if not descending:
        above = above.T
    order = np.argsort(-table.estimate if descending else table.estimate, kind="stable")
    known = int(np.isfinite(table.estimate).sum())  # a group with no estimate: no rank
    rank = np.full(m, np.nan)
    rank[order[:known]] = np.arange(1, known + 1)  # argsort puts NaN last
    lower = 1 + above.sum(axis=0)  # groups surely better than g
    upper = m - above.sum(axis=1)  # groups surely worse than g
    return {"rank": rank.astype(int) if known == m else rank, "rank_low": lower, "rank_high": upper}
