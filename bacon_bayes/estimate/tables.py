"""The table every group estimator ends in: estimates, joint covariance, critical values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from bacon_bayes.arguments import suggest
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.core import _prepare, check_aligned
from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.order import cell_name, natural_codes
from bacon_bayes.results import EstimateTable

#: Why a group row has no interval (``EstimateTable.withhold``).
NO_LABELS = "no labels: the surrogate's mean plus the pool's correction, UNVALIDATED"
ONE_LABEL = (
    "1 label: no variance of its own (--pooling shrink, pooling='shrink' in Python, borrows "
    "one from the others)"
)
NO_OWN_LABELS = "no labels: no classical (labels-only) mean for the group"
#: ``details["guarantee"]`` of a table of each row's own intervals taken jointly.
JOINT = "family-wise, each on its own (all hold together)"


def known_exactly(n_labeled: np.ndarray, n_items: np.ndarray, target: object) -> np.ndarray:
    """Which groups' means are known exactly: every item labeled, for the pool's items
    (``target="pool"``; for a population they are a sample still). Their interval is the
    mean itself, width 0, whatever the number of labels: no variance is estimated, so
    neither "1 label: no variance of its own" nor "fewer than 5 labels" applies."""
    n_labeled, n_items = np.asarray(n_labeled), np.asarray(n_items)
    return (n_labeled > 0) & (n_labeled == n_items) & (target == "pool")


def own_guarantee(estimand: str, simultaneous: str) -> str:
    """``details["guarantee"]`` of a table of each group's (pair's, model's) own
    intervals, not shrunk: :data:`JOINT` when they are simultaneous, else per row."""
    if simultaneous != "none":
        return JOINT
    return {"difference": "per pair", "strength": "per model"}.get(estimand, "per group")


def labels_only(table: EstimateTable) -> EstimateTable:
    """A classical (labels-only) group table with no estimate, se or interval (NaN) for
    the groups without labels, the reason in its notes (it held the pool's labels' mean,
    or their shrinkage centre, there: not the group's); other tables as they are."""
    none = np.asarray(table.n_labeled) == 0
    if table.method != "classical" or not none.any():
        return table
    table = table.withhold(none, NO_OWN_LABELS)
    nan = np.where(none, np.nan, 0.0)
    return replace(table, estimate=table.estimate + nan, se=table.se + nan)


def unvalidated(table: EstimateTable, rows: np.ndarray) -> EstimateTable:
    """The ``rows`` (a group without labels) withheld with :data:`NO_LABELS` and no se
    (NaN): the judges' mean alone has no standard error of the group's mean (a shrunk
    table's covariance there is the groups' prior spread, kept in ``cov`` for the
    differences' estimates, not an se to build an interval from)."""
    rows = np.asarray(rows, dtype=bool)
    if not rows.any():
        return table
    return replace(table.withhold(rows, NO_LABELS), se=np.where(rows, np.nan, table.se))


#: ``details["implied_by_groups"]`` of differences read off the groups' joint intervals.
IMPLIED = (
    "each pair's interval is [low a - high b, high a - low b] from the groups' joint "
    "intervals (narrower in all than the pairs' own simultaneous ones, chosen for the "
    "whole table by their widths): they hold whenever the group intervals all do"
)


def implied_by_groups(table: EstimateTable, diffs: EstimateTable) -> EstimateTable:
    """``diffs``, or, where the intervals that ``table``'s joint group intervals imply
    for the differences (``[low_a - high_b, high_a - low_b]``, within the label's range as
    the groups' are) are narrower in all (their summed widths) than ``diffs``' own, those
    for every pair that has both: all hold whenever the group intervals all do, so they
    are a joint family at the groups' level (``details["implied_by_groups"]``).

    The whole table takes one family or the other, never pair by pair (a mix holds only at
    1 - 2 alpha). Both are simultaneous; the rule looks at widths, which depend on the
    standard errors, and on the estimates only where a group's interval is cut at the
    range's end. Measured on the tester's Monte Carlo draws (session 36, the groups' and
    pairs' simultaneous intervals of each draw): all pairs covered 1.00 / 1.00 (WMT22 48
    system x document groups, 100 and 80 draws, implied family chosen in 94% / 99%),
    0.985 (SummEval 3%, 200), 0.95 (SummEval consistency 3%, 200; pairs' own 0.96),
    1.00 / 0.995 (TriviaQA 0.5% / 1%), 0.98 / 0.993 (WMT22 16 systems, 1%). Only for
    simultaneous tables with a family-wise guarantee (``table`` and ``diffs``)."""
    if table.simultaneous == "none" or diffs.simultaneous == "none" or len(table) < 2:
        return diffs
    index = {name: k for k, name in enumerate(table.names)}
    pairs = diffs.details.get("pairs")
    if pairs is None:
        return diffs
    a = np.array([index[p[0]] for p in pairs], dtype=int)
    b = np.array([index[p[1]] for p in pairs], dtype=int)
    low = table.ci_low[a] - table.ci_high[b]
    high = table.ci_high[a] - table.ci_low[b]
    both = np.isfinite(low) & np.isfinite(high) & np.isfinite(diffs.ci_low)
    both &= np.isfinite(diffs.ci_high)
    if not both.any():
        return diffs
    if np.sum((high - low)[both]) >= np.sum((diffs.ci_high - diffs.ci_low)[both]):
        return diffs
    return replace(
        diffs,
        ci_low=np.where(both, low, diffs.ci_low),
        ci_high=np.where(both, high, diffs.ci_high),
        details={**diffs.details, "implied_by_groups": IMPLIED},
    )


def correlation(cov: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.clip(np.diag(cov), 1e-300, None))
    return cov / np.outer(sd, sd)


def pair_df(group_df: list[float | None] | None, pairs: list[tuple[int, int]]) -> np.ndarray | None:
    """Each pair's df, its groups' fewer; a group with none (a one-item group labeled
    whole: its mean known exactly, no variance estimated) leaves the other's, and a pair of
    two such groups (difference known exactly: any df) the table's most."""
    if group_df is None:
        return None
    known = [v for v in group_df if v is not None]
    most = max(known) if known else 1.0
    return np.array([
        min((v for v in (group_df[a], group_df[b]) if v is not None), default=most)
        for a, b in pairs
    ])  # fmt: skip


def group_table(
    estimand: str,
    method: str,
    names: Sequence[str] | np.ndarray,
    est: np.ndarray,
    cov: np.ndarray,
    n_lab: np.ndarray,
    n_items: np.ndarray,
    alpha: float,
    simultaneous: str,
    crit: np.ndarray | None = None,
    df: np.ndarray | None = None,
    n_df: np.ndarray | None = None,
    **details: object,
) -> EstimateTable:
    """A table of ``est`` with covariance ``cov``; without ``crit``, the critical values
    of ``simultaneous`` at ``df``, by default ``n - 1`` of the label counts ``n_df``
    (``n_lab`` when not given; a difference's: the smaller group's, :class:`Pairs`)."""
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    n_lab = np.asarray(n_lab)
    if crit is None:
        counts = n_lab if n_df is None else np.asarray(n_df)
        if df is None and not np.all(counts == 0):
            df = np.maximum(counts - 1, 1)
        crit = simultaneous_critical_value(correlation(cov), alpha, simultaneous, df)
    if df is not None:
        details["df"] = [float(v) for v in df]
    details.setdefault("guarantee", own_guarantee(estimand, simultaneous))
    return EstimateTable(
        estimand=estimand,
        method=method,
        names=tuple(str(n) for n in names),
        estimate=est,
        se=se,
        ci_low=est - crit * se,
        ci_high=est + crit * se,
        cov=cov,
        n_labeled=np.asarray(n_lab, dtype=int),
        n_items=np.asarray(n_items, dtype=int),
        alpha=alpha,
        simultaneous=simultaneous,
        critical_value=crit,
        details=dict(details),
    )


def group_codes(groups: np.ndarray, n_items: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct group names in natural order (``M8`` before ``M10``) and each item's
    index among them; with ``n_items``, ``groups`` is refused unless it holds one name
    per item (a 2-D array was flattened, one of another length failed in ``bincount``),
    none of them missing (NaN became a group named 'nan')."""
    if n_items is not None:
        shape = np.shape(groups)
        if len(shape) != 1:
            raise ValidationError(
                f"groups must be 1-D (one group name per item); got shape {shape}."
            )
        if shape[0] != n_items:
            raise ValidationError(
                f"groups have {shape[0]} entries but y has {n_items}; pass one group name "
                "per item of the pool, in the order of y."
            )
        missing = pd.isna(np.asarray(groups, dtype=object))
        if missing.any():  # else one more group, named 'nan', with those items
            raise ValidationError(
                f"groups is missing (NaN or None) for {int(missing.sum())} item(s), the first "
                f"at position {int(np.argmax(missing))}; give every item a group (e.g. "
                "'unknown') or leave those items out of every array."
            )
    return natural_codes(groups)


@dataclass(frozen=True)
class GroupArrays:
    """What every group estimator starts from: the groups' names and each item's code,
    the labeled items' indices, labels and (Hajek-conditioned) inclusion probabilities,
    the surrogate ((N,) or (N, k)), its sum over each group and the groups' sizes."""

    names: np.ndarray
    codes: np.ndarray
    idx: np.ndarray
    y_lab: np.ndarray
    pi_lab: np.ndarray
    n_items: int
    f: np.ndarray
    f_sums: np.ndarray
    n_g: np.ndarray

    @classmethod
    def of(
        cls,
        y: np.ndarray,
        f: np.ndarray,
        groups: np.ndarray,
        labeled: np.ndarray | None,
        pi: np.ndarray | float | None,
        hajek: bool,
    ) -> GroupArrays:
        check_aligned(y=y, f=f, groups=groups, labeled=labeled, pi=pi)
        names, codes = group_codes(groups, np.shape(y)[0] if np.ndim(y) else None)
        idx, y_lab, pi_lab, n_items = _prepare(y, f, labeled, pi, hajek, codes)
        f = np.asarray(f, dtype=float)
        if f.ndim == 2 and f.shape[1] == 1:
            f = f[:, 0]
        m = names.size
        return cls(
            names, codes, idx, y_lab, pi_lab, n_items, f, sums_by(codes, f, m),
            np.bincount(codes, minlength=m),
        )  # fmt: skip


def sums_by(codes: np.ndarray, f: np.ndarray, m: int) -> np.ndarray:
    """Sum of ``f`` (a value or a row of surrogates per item) over each group's items."""
    if f.ndim == 1:
        return np.bincount(codes, weights=f, minlength=m)
    return np.stack([np.bincount(codes, weights=col, minlength=m) for col in f.T], axis=1)


#: the most groups compared pair by pair: 200 give 19,900 pairs, whose covariance takes
#: 3.2 GB (400 groups: 47 GB, and a MemoryError where a message was due)
MAX_COMPARED = 200


def too_many_pairs(m: int) -> str | None:
    """Why ``m`` groups are not compared pair by pair (past :data:`MAX_COMPARED`), with
    the fix; None where they are."""
    if m <= MAX_COMPARED:
        return None
    return (
        f"{m} groups give {m * (m - 1) // 2:,} pairwise comparisons, too many to compare "
        f"at once (at most {MAX_COMPARED} groups); compare every group against one instead "
        f"({m - 1} comparisons, no ranks: --baseline NAME; baseline= in compare_groups), "
        "group by a coarser column, or, where the column names the prompt each item "
        "answers, pass it as --prompt instead (prompt= in EvalPool.from_frame)"
    )


def all_pairs(m: int) -> tuple[list[tuple[int, int]], np.ndarray]:
    """All pairs ``(a, b)``, ``a`` before ``b``, of ``m`` groups and the contrast matrix of
    the differences ``a - b`` (one row a pair); refused past :data:`MAX_COMPARED` groups."""
    too_many = too_many_pairs(m)
    if too_many:
        raise ValidationError(too_many)
    pairs = [(a, b) for a in range(m) for b in range(a + 1, m)]
    contrast = np.zeros((len(pairs), m))
    for k, (a, b) in enumerate(pairs):
        contrast[k, a], contrast[k, b] = 1.0, -1.0
    return pairs, contrast


def baseline_pairs(m: int, base: int) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The pairs ``(g, base)`` of every other group ``g`` of ``m``, in the groups' order,
    and the contrast matrix of the differences ``g - base`` (one row a pair): the ``m - 1``
    contrasts that share the baseline (Dunnett's family)."""
    pairs = [(g, base) for g in range(m) if g != base]
    contrast = np.zeros((len(pairs), m))
    for k, (a, b) in enumerate(pairs):
        contrast[k, a], contrast[k, b] = 1.0, -1.0
    return pairs, contrast


def baseline_index(names: Sequence[str], baseline: object) -> int:
    """The row of the group named ``baseline`` among ``names``; refused, naming the groups
    and the nearest names, where it is none of them."""
    names = [str(n) for n in names]
    if isinstance(baseline, str) and baseline in names:
        return names.index(baseline)
    shown = ", ".join(map(repr, names[:12])) + (", ..." if len(names) > 12 else "")
    raise ValidationError(
        f"baseline {baseline!r} is not one of the groups ({shown}).{suggest(str(baseline), names)}"
        " Pass one group's name exactly as the group table names it (bacon estimate "
        "--baseline NAME)."
    )


@dataclass(frozen=True)
class Pairs:
    """The pairs ``(a, b)`` of a group table's rows whose differences ``a - b`` are
    compared: all of them, ``a`` before ``b``, or (``baseline``) every other group against
    the baseline, ``(g, base)`` in the groups' order. Holds the contrast matrix of the
    differences, their names (``"a - b"``), label and item counts (both groups', the labels
    a difference rests on) and ``n_fewer``, the smaller group's label count (it sets a
    difference's Student-t df, ``n - 1``, where the groups give none)."""

    pairs: list[tuple[int, int]]
    contrast: np.ndarray
    names: tuple[str, ...]
    n_labeled: np.ndarray
    n_items: np.ndarray
    n_fewer: np.ndarray
    baseline: str | None = None

    @classmethod
    def of(cls, table: EstimateTable, baseline: str | None = None) -> Pairs:
        """All pairs of ``table``'s groups, or those against the group named ``baseline``
        (refused with the groups' names where it is none of them)."""
        if baseline is None:
            pairs, contrast = all_pairs(len(table))
        else:
            pairs, contrast = baseline_pairs(len(table), baseline_index(table.names, baseline))
        return cls(
            pairs,
            contrast,
            tuple(f"{table.names[a]} - {table.names[b]}" for a, b in pairs),
            np.array([table.n_labeled[a] + table.n_labeled[b] for a, b in pairs], dtype=int),
            np.array([table.n_items[a] + table.n_items[b] for a, b in pairs], dtype=int),
            np.array([min(table.n_labeled[a], table.n_labeled[b]) for a, b in pairs], dtype=int),
            baseline,
        )

    def named(self, table: EstimateTable) -> list[list[str]]:
        """The pairs by the groups' names (``details["pairs"]``)."""
        return [[table.names[a], table.names[b]] for a, b in self.pairs]


def pair_notes(means: EstimateTable, diffs: EstimateTable) -> list[str]:
    """Why a pair has no interval, short: its groups' reasons ("M1: 1 label"), and
    UNVALIDATED where a group's mean rests on the judges alone, or else the pair's own
    (:func:`pair_reasons`: "5 labeled prompt(s)"); "" for the others."""
    why = means.details.get("no_interval", {})
    own = pair_reasons(means, diffs)
    out = []
    for name, (a, b), lo in zip(diffs.names, diffs.details["pairs"], diffs.ci_low, strict=True):
        parts = [
            f"{cell_name(g)}: {why[g].split(':')[0]}"
            + (", UNVALIDATED" if "UNVALIDATED" in why[g] else "")
            for g in (a, b)
            if g in why
        ]
        if not parts and name in own:
            parts = [own[name].split(":")[0]]
        out.append("; ".join(parts) if np.isnan(lo) else "")
    return out


def pair_reasons(means: EstimateTable, diffs: EstimateTable) -> dict[str, str]:
    """The pairs withheld for a reason of their own (not their groups': too few labeled
    prompts for a simultaneous interval, :func:`~.clustered.withhold_few_prompts`), by
    name, with the whole reason."""
    why = means.details.get("no_interval", {})
    return {
        name: reason
        for name, (a, b) in zip(diffs.names, diffs.details["pairs"], strict=True)
        if (reason := diffs.details.get("no_interval", {}).get(name)) is not None
        and a not in why
        and b not in why
    }
