"""A fitted calibrator's group tables: which pooling the groups get, and which estimator
of :mod:`bacon_bayes.estimate` makes the table (the Calibrator's group methods hand over
here)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from bacon_bayes import estimands
from bacon_bayes import estimate as est
from bacon_bayes import surrogates as sur
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.groups import check_interval
from bacon_bayes.estimate.shrink import MIN_SEPARATE_LABELS, MIN_SHRINK_GROUPS
from bacon_bayes.estimate.tables import known_exactly, labels_only, own_guarantee
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.order import name_text
from bacon_bayes.results import EstimateTable

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

#: Fewest labels for which a separate group mean gets an interval (fewer: NaN and a note).
MIN_GROUP_LABELS = 5


def pooling(cal: Calibrator, wanted: str) -> str:
    """The pooling of ``cal``'s group means when ``wanted`` (``"auto"`` decided by
    :func:`~bacon_bayes.estimate.choose_pooling` on each group's labels; the groups of a
    design that drew prompts share them, and stay separate)."""
    return est.choose_pooling(wanted, *_labels_and_clustering(cal))


def _labels_and_clustering(cal: Calibrator) -> tuple[np.ndarray, bool]:
    """Each group's labels, and whether the intervals are clustered by prompt."""
    names, codes = est.group_codes(cal._groups())
    n_lab = np.bincount(codes[cal.pool_.labeled], minlength=names.size)
    p = cal.pool_
    return n_lab, p.prompts is not None and est.use_clustered(p.prompts, p.design, cal.target)


def pooling_note(cal: Calibrator, wanted: str) -> str | None:
    """Why the groups are not shrunk where ``"auto"`` would shrink them but for the
    intervals being clustered by prompt (and what that costs the groups with few labels),
    or a warning on an explicit ``"shrink"`` there; None otherwise (``details
    ["pooling_note"]`` of the group tables, printed by ``bacon estimate``)."""
    n_lab, clustered = _labels_and_clustering(cal)
    if not clustered or est.choose_pooling("auto", n_lab, False) != "shrink":
        return None
    drawn = isinstance(cal.pool_.design, Inclusion) and cal.pool_.design.clustered
    why = "the design drew prompts" if drawn else "the target is the population of prompts"
    shared = (
        f"{why}, so the intervals are clustered by prompt, and the groups share prompts: "
        "their means are correlated, which the shrinkage does not model"
    )
    if wanted == "shrink":
        return (
            f"pooling 'shrink' asked for, but {shared}; the shrunk intervals are not "
            "clustered by prompt, and their guarantee (on average over the groups) is not "
            "measured here; pooling 'auto' keeps the groups separate here"
        )
    if wanted != "auto":
        return None
    few = int(np.count_nonzero((n_lab > 0) & (n_lab < MIN_GROUP_LABELS)))
    fix = "" if drawn else ", or --target pool (this pool's items), where they are shrunk"
    return (
        f"pooling 'auto' kept each group's own mean (separate), not shrunk: {shared}. "
        f"A group with fewer than {MIN_GROUP_LABELS} labels ({few} here) gets no interval: "
        f"label those groups to {MIN_GROUP_LABELS} or more{fix}"
    )


def group_means(
    cal: Calibrator,
    alpha: float,
    how: str,
    method: str,
    interval: str,
    pooled: str,
    wanted: str | None = None,
) -> EstimateTable:
    """The group table of ``method`` under pooling ``pooled`` (``how``: the simultaneous
    rule), :func:`finished`; refused when every label is the same (no spread: the
    groups' variances, and so their intervals and comparisons, are all zero); ``interval``
    is checked whatever the pooling; ``wanted``: the pooling asked for, whose
    :func:`pooling_note` goes in ``details["pooling_note"]``."""
    check_interval(interval)
    if method != "naive":
        _check_spread(cal)
    table = finished(_table(cal, alpha, how, method, interval, pooled), cal.bounds_)
    note = None if method == "naive" or wanted is None else pooling_note(cal, wanted)
    if note is None and wanted == "auto" and method == "aee":
        choice = auto_choice(cal, table, alpha, how, interval)
        if choice is not None:
            details = {**table.details, "pooling_note": choice["note"], "pooling_auto": choice}
            return replace(table, details=details)
    if note is None:
        return table
    return replace(table, details={**table.details, "pooling_note": note})


def auto_choice(
    cal: Calibrator, table: EstimateTable, alpha: float, how: str, interval: str
) -> dict[str, Any] | None:
    """Why ``pooling="auto"`` chose the pooling of ``table`` (the AEE group table it made)
    and what the other choice gives: its intervals' width beside these (paired geometric
    mean over the groups with an interval in both) and its guarantee (tester A finding 9:
    one more label in the smallest group, 9 -> 10, flipped auto from shrink to separate and
    widened every interval by 8% with nothing saying why). ``details["pooling_auto"]``,
    its ``note`` printed; None where the groups are clustered by prompt
    (:func:`pooling_note` says why there) or there are fewer than two groups."""
    n_lab, clustered = _labels_and_clustering(cal)
    if clustered:
        return None
    return auto_outcome(
        table,
        n_lab,
        lambda other: finished(_table(cal, alpha, how, "aee", interval, other), cal.bounds_),
    )


def auto_outcome(
    table: EstimateTable, n_lab: np.ndarray, other_table: Callable[[str], EstimateTable]
) -> dict[str, Any] | None:
    """:func:`auto_choice` given each group's labels ``n_lab`` and ``other_table``, which
    makes the AEE group table under the other pooling (``"shrink"`` or ``"separate"``,
    :func:`finished`); the in-memory and the streamed estimates (``bacon estimate
    --chunk-rows``) share it. None with fewer than two groups."""
    chose = table.details.get("pooling", "separate")
    if n_lab.size < 2 or chose not in ("shrink", "separate"):
        return None
    labeled = n_lab[n_lab > 0]
    cut, least = MIN_SEPARATE_LABELS, MIN_SHRINK_GROUPS
    names = [str(v) for v in table.names]
    if chose == "shrink":
        few = [f"{name_text(n)}: {k}" for n, k in zip(names, n_lab, strict=True) if 0 < k < cut]
        shown = ", ".join(few[:6]) + (f" and {len(few) - 6} more" if len(few) > 6 else "")
        why = f"{_count(len(few), 'labeled group')} under {cut} labels ({shown})"
    elif labeled.size < least:
        why = f"{_count(labeled.size, 'group')} with labels; shrinkage needs {least}"
    else:
        why = f"every labeled group has {cut} labels or more (fewest: {int(labeled.min())})"
    other = "separate" if chose == "shrink" else "shrink"
    out: dict[str, Any] = {"chose": chose, "why": why, "other": other}
    head = f"pooling 'auto' chose '{chose}': {why}. "
    if chose == "separate" and labeled.size < least:
        out["note"] = head + "--pooling shrink is not available here"
        return out
    try:
        alt = other_table(other)
    except (ValidationError, ArithmeticError, ValueError) as exc:  # said, not hidden
        out["note"] = head + f"--pooling {other} cannot be computed here ({exc})"
        return out
    w0 = np.asarray(table.ci_high) - np.asarray(table.ci_low)
    w1 = np.asarray(alt.ci_high) - np.asarray(alt.ci_low)
    both = np.isfinite(w0) & np.isfinite(w1) & (w0 > 0) & (w1 > 0)
    ratio = float(np.exp(np.mean(np.log(w1[both] / w0[both])))) if both.any() else None
    withheld = int(np.count_nonzero((n_lab > 0) & ~np.isfinite(np.asarray(alt.ci_low))))
    out |= {"other_width_ratio": ratio, "other_guarantee": alt.details.get("guarantee")}
    out["other_withheld"] = withheld
    size = "" if ratio is None else f"intervals {ratio:.2f}x as wide (geometric mean), "
    none = (
        f", none for {_count(withheld, 'labeled group')} under {MIN_GROUP_LABELS} labels"
        if withheld
        else ""
    )
    rule = "while some labeled group has" if chose == "shrink" else "only while a group has"
    gives = f"{size}guaranteed {alt.details.get('guarantee', '?')}{none}, against these: "
    if withheld and withheld == labeled.size:  # "would give guaranteed ..., none for 7 of 7"
        gives = f"no interval ({_count(withheld, 'labeled group')}, each under "
        gives += f"{MIN_GROUP_LABELS} labels), against these: "
    out["note"] = (
        head + f"--pooling {other} would give {gives}"
        f"{table.details.get('guarantee', '?')}. auto shrinks {rule} fewer than {cut} labels"
    )
    return out


def _check_spread(cal: Calibrator) -> None:
    y = cal.pool_.y[cal.pool_.labeled]
    if y.size > 1 and np.ptp(y) == 0:
        raise ValidationError(
            f"all {y.size} labels of {cal.pool_.label_name!r} are {y[0]:g}: with no spread "
            "in the labels, group means have no variance to build intervals or comparisons "
            "from; label more items (or check the label column)"
        )


def finished(table: EstimateTable, bounds: tuple[float, float]) -> EstimateTable:
    """A group table intersected with the label's range ``bounds``; separate means of the
    labels withhold intervals under :data:`MIN_GROUP_LABELS` labels, and the classical
    means have none for a group without labels (:func:`~.estimate.tables.labels_only`);
    in memory and streamed alike."""
    table = labels_only(table.clip(*bounds))
    if table.method == "naive" or table.details.get("pooling") == "shrink":
        return table  # the raw judge average uses no labels
    if "guarantee" not in table.details:
        guarantee = own_guarantee(table.estimand, table.simultaneous)
        table = replace(table, details={**table.details, "guarantee": guarantee})
    few = (np.asarray(table.n_labeled) < MIN_GROUP_LABELS) & np.isfinite(table.ci_low)
    # a group labeled whole has its mean exactly (the pool's items): no interval to doubt
    exact = known_exactly(table.n_labeled, table.n_items, table.details.get("target"))
    few &= ~(exact & (np.abs(table.se) <= 1e-12 * (1.0 + np.abs(table.estimate))))
    return table.withhold(
        few, f"fewer than {MIN_GROUP_LABELS} labels in the group: no useful interval"
    )


def _table(
    cal: Calibrator, alpha: float, how: str, method: str, interval: str, pooled: str
) -> EstimateTable:
    p = cal.pool_
    groups = cal._groups()
    aee = method == "aee"
    if method not in ("aee", "classical", "naive"):
        raise ValidationError(f"method {method!r} must be 'aee', 'classical' or 'naive'.")
    if method == "naive":
        return est.naive_group_means(p.judge_average(), groups, alpha=alpha, simultaneous=how)
    f = cal.surrogate_matrix(groups) if aee else np.zeros(p.n_items)
    tuned = sur.tuned(cal.extras_, cal.power_tuning) if aee else False
    common: dict[str, Any] = {"pi": p.design, "alpha": alpha, "simultaneous": how}
    if pooled == "shrink":
        table = est.shrunk_group_means(
            p.y, f, groups, power_tuning=tuned, **common, **estimands.settings(cal, prompts=False)
        )
        return estimands.note_surrogates(cal, table) if aee else replace(table, method="classical")
    boot: dict[str, Any] = {"interval": interval, "seed": cal.seed_, **estimands.settings(cal)}
    if aee:
        table = est.aee_group_means(p.y, f, groups, power_tuning=tuned, **common, **boot)
        return estimands.note_surrogates(cal, table)
    return est.classical_group_means(p.y, groups, **common, **boot)


def _count(n: int, what: str) -> str:
    """``n`` ``what`` with its plural."""
    return f"{n} {what}{'' if n == 1 else 's'}"
