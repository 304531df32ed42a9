"""Plain-text rendering of results for the command line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.core import VARIANCE_FLOOR
from bacon_bayes.estimate.tables import ONE_LABEL
from bacon_bayes.order import cell_name, names_text
from bacon_bayes.report.tables import fixed
from bacon_bayes.results import RANGE_END, Estimate, EstimateTable

#: :data:`~.estimate.tables.ONE_LABEL` said of the classical column beside shrunk AEE means.
ONE_LABEL_SHRUNK = (
    "1 label: no variance of its own (the aee column's shrunk means borrow one from the "
    "other groups; the classical mean has none)"
)

_Result = TypeVar("_Result", Estimate, EstimateTable)

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator, Method
    from bacon_bayes.pool import EvalPool

METHOD_LABEL = {
    "aee": "calibrated (AEE)",
    "classical": "classical (labels only)",
    "naive": "naive (raw judge avg)",
}


def estimates_frame(estimates: Sequence[Estimate]) -> pd.DataFrame:
    """One row per estimate of one estimand (e.g. AEE vs baselines), methods spelled out."""
    return pd.DataFrame(
        [
            {
                "method": METHOD_LABEL.get(e.method, e.method),
                "estimate": e.estimate,
                "se": np.nan if RANGE_END in e.details else e.se,  # a bound, no se
                "ci_low": e.ci_low,
                "ci_high": e.ci_high,
                "width": e.width,
                "labels used": e.n_labeled,
            }
            for e in estimates
        ]
    )


def estimates_table(estimates: Sequence[Estimate]) -> str:
    """Side-by-side rows of estimates of one estimand (e.g. AEE vs baselines); ``-`` for
    the se of an interval that is a bound (every label at the range's end)."""
    frame = estimates_frame(estimates)
    frame["se"] = [fixed(v, 4) if np.isfinite(v) else "-" for v in frame["se"]]
    return frame.to_string(index=False, float_format=lambda v: fixed(v, 4))


def groups_table(tables: Sequence[EstimateTable]) -> str:
    """Per-group estimates: one column block per method."""
    frame = pd.DataFrame({"group": [cell_name(n) for n in tables[0].names]})  # ' M8' vs M8
    for t in tables:
        short = t.method
        frame[f"{short}"] = t.estimate
        why = t.details.get("no_interval", {})
        frame[f"{short} CI"] = [
            ("UNVALIDATED" if "UNVALIDATED" in why.get(n, "") else "no interval")
            if np.isnan(lo)
            else f"[{fixed(lo, 3)}, {fixed(hi, 3)}]"
            for n, lo, hi in zip(t.names, t.ci_low, t.ci_high, strict=True)
        ]
    frame["labels"] = tables[0].n_labeled
    text = frame.to_string(index=False, float_format=lambda v: fixed(v, 4))
    return text + "".join(f"\n{line}" for line in withheld_lines(tables))


def withheld_lines(tables: Sequence[EstimateTable]) -> list[str]:
    """One line per reason a group has no interval, with its groups, prefixed with the
    column it concerns (``classical: no interval for ...``) when several columns use
    labels and the reason is not every such column's (the classical means withhold
    intervals the shrunk AEE means give)."""
    used = [t.method for t in tables if t.method != "naive"]
    shrunk = any(t.details.get("pooling") == "shrink" for t in tables if t.method == "aee")
    by_reason: dict[str, dict[str, list[str]]] = {}
    for t in tables:
        for name, reason in t.details.get("no_interval", {}).items():
            by_reason.setdefault(reason, {}).setdefault(str(name), []).append(t.method)
    # the groups of one reason, split by the columns they lack an interval in
    lines: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for reason, groups in by_reason.items():
        for name in (str(n) for n in tables[0].names):
            if name in groups:
                lines.setdefault((reason, tuple(groups[name])), []).append(name)
    out = []
    for (reason, methods), names in lines.items():
        prefix = ""
        if len(used) > 1 and sorted(set(methods)) != sorted(used):
            prefix = f"{' and '.join(dict.fromkeys(methods))}: "
            if reason == ONE_LABEL and shrunk and "aee" not in methods:
                reason = ONE_LABEL_SHRUNK
        out.append(f"{prefix}no interval for {names_text(names)}: {reason}")
    return out


def estimate_output(
    header: str,
    notes: Sequence[str],
    missing: dict[str, int],
    label: str,
    alpha: float,
    means: Sequence[Estimate],
    quantiles: dict[float, Sequence[Estimate]],
    groups: Sequence[EstimateTable] | None,
    group: str | None,
    quantile_note: str = "",
) -> str:
    """What ``bacon estimate`` prints (in memory or streamed): the settings line, notes,
    the mean, quantiles (``quantile_note`` after the level) and group tables."""
    level = f"{100 * (1 - alpha):g}%"
    lines = [header, *(f"note: {n}" for n in notes)]
    missing = {j: n for j, n in missing.items() if n}
    if missing:
        listed = ", ".join(f"{j}: {n}" for j, n in missing.items())
        lines.append(f"note: missing judge scores imputed with a missing-score indicator: {listed}")
    kind = next((m.details["interval_kind"] for m in means if "interval_kind" in m.details), "")
    kind = f" {kind} CI, valid at every wave whatever the stopping rule" if kind else " CI"
    lines += [f"\nmean of {label!r} over the pool ({level}{kind}):", estimates_table(means)]
    # how a zero-width interval was replaced (estimate.mean.at_range_end), said once
    for key in (RANGE_END, VARIANCE_FLOOR):
        lines += [f"note: {n}" for n in dict.fromkeys(m.details.get(key) for m in means) if n]
    for q, ests in quantiles.items():
        lines += [f"\nquantile {q:g} ({level} CI{quantile_note}):", estimates_table(ests)]
    if groups:
        lines += [
            f"\nmean per {group!r} ({level} CIs, {guarantee_note(groups[0])}):",
            groups_table(groups),
        ]
        keys = ("pooling_note", VARIANCE_FLOOR)
        notes = dict.fromkeys(t.details.get(k) for t in groups for k in keys)
        lines += [f"note: {n}" for n in (*notes, classical_note(groups)) if n]
    return "\n".join(lines)


def classical_note(tables: Sequence[EstimateTable]) -> str | None:
    """What the classical (labels-only) column of group tables shrunk by the AEE is: each
    group's own labels' mean (``pooling="auto"``), or shrunk too (``"shrink"`` asked for);
    None when the AEE is not shrunk (the header's guarantee is every column's)."""
    by = {t.method: t for t in tables}
    aee, classical = by.get("aee"), by.get("classical")
    if aee is None or classical is None or aee.details.get("pooling") != "shrink":
        return None
    if classical.details.get("pooling") == "shrink":
        return (
            "classical (labels only): the groups' labels shrunk toward the pool's label "
            "mean as well (pooling 'shrink'); --pooling auto gives each group's own labels' "
            "mean"
        )
    return (
        "classical (labels only): each group's own labels' mean, not shrunk like the AEE "
        f"column ({guarantee_note(classical)})"
    )


def guarantee_note(table: EstimateTable) -> str:
    """Which guarantee a group table's intervals carry, in words: per group (each group's
    own AEE) or on average over the groups (shrunk toward the pool's correction), and
    whether they hold jointly; an anytime table's kind, valid at every wave."""
    kind = table.details.get("interval_kind")
    if kind:
        plain = replace(
            table, details={k: v for k, v in table.details.items() if k != "interval_kind"}
        )
        return f"{guarantee_note(plain)}; {kind}: valid at every wave, whatever the stopping rule"
    joint = table.simultaneous != "none"
    if table.details.get("implied_by_groups"):
        return (
            "jointly valid, read off the groups' joint intervals: [low a - high b, high a "
            "- low b], narrower in all than the pairs' own here; they hold whenever the "
            "group intervals all do"
        )
    if table.details.get("pooling") == "shrink":
        what = "pairs" if table.estimand == "difference" else "groups"
        floor = f"{100 * (1 - 2 * table.alpha):g}%"
        if joint:  # Bonferroni over intervals valid on average: all hold at 1 - alpha
            own = f"{100 * (1 - 2 * table.alpha / len(table)):.3g}%"
            return (
                f"shrunk toward the pool's correction; jointly valid: robust empirical-Bayes "
                f"intervals at alpha/{len(table)}, each valid on average over the {what}, so "
                f"all hold together at {100 * (1 - table.alpha):g}%, and each at least {own} "
                "for its own"
            )
        return (
            f"shrunk toward the pool's correction; robust empirical-Bayes intervals, valid on "
            f"average over the {what}, and each at least {floor} for its own"
        )
    kind = {"maxt": "simultaneous, max-|t|", "bonferroni": "simultaneous, Bonferroni"}
    if joint:
        return f"{kind.get(table.simultaneous, table.simultaneous)}: all hold together"
    return "pointwise: each valid on its own"


def scale_note(cal: Calibrator, means: list, groups: list | None) -> str:
    """A note when an interval of a continuous label without a scale reaches past the
    range of the labels seen (a bounded rating needs ``--scale``), else ``""``; it
    suggests the scale inferred from the labels (:func:`bacon_bayes.scale.infer_scale`),
    and says how it was inferred.

    Parameters
    ----------
    cal : Calibrator
        The fitted calibrator.
    means : list of Estimate
        The pool means printed.
    groups : list of EstimateTable or None
        The group tables printed.

    Returns
    -------
    str
        The note (starting with a newline) or an empty string.
    """
    pool = cal.pool_
    if pool.outcome.kind != "continuous" or np.isfinite(cal.bounds_).any() or pool.n_labeled < 2:
        return ""
    y = pool.y[pool.labeled]
    lo, hi = float(np.min(y)) + 0.0, float(np.max(y)) + 0.0  # + 0.0: -0.0 (MQM) prints 0
    ends = [(m.ci_low, m.ci_high) for m in means]
    ends += [(a, b) for t in groups or [] for a, b in zip(t.ci_low, t.ci_high, strict=True)]
    if not any(a < lo or b > hi for a, b in ends if np.isfinite(a) and np.isfinite(b)):
        return ""
    from bacon_bayes.scale import infer_scale, open_scale, scale_args

    scale = open_scale(y, infer_scale(y), pool.label_name)
    if scale is not None and not scale.evident:  # the levels' range is no scale to clip at
        scale = None
    if scale is None:
        return (
            f"\nnote: some intervals reach past the labels' range [{lo:g}, {hi:g}]; if the "
            "label is bounded (a rating scale), pass --scale LOW:HIGH, its scale, to keep "
            "them inside it"
        )
    return (
        f"\nnote: some intervals reach past the labels' range [{lo:g}, {hi:g}]; the labels "
        f"look like {scale.how}: pass {' '.join(scale_args(scale))} to keep them inside "
        "that scale"
    )


def pool_notes(cal: Calibrator) -> list[str]:
    """What the calibrator's pool says of its table (how its labels were drawn, judge
    scores imputed...), as the estimate and the report show it: the note that the labels
    look drawn by prompt only for the pool target (the population's intervals are
    clustered by prompt)."""
    from bacon_bayes.doctor.relation import missingness_notes
    from bacon_bayes.inclusion import BY_PROMPT
    from bacon_bayes.scale import far_labels, label_codes

    pool = cal.pool_
    notes = [n for n in pool.notes if cal.target == "pool" or not n.startswith(BY_PROMPT)]
    notes += [imputed_note(cal)]
    if pool.outcome.kind != "categorical":  # 0 for 'not rated' (a 0/1 label has no codes)
        y = np.where(pool.labeled, pool.y, np.nan)

        def place(k: int) -> str:
            return f"item {str(pool.ids[k])!r}"

        notes += [label_codes(y, pool.label_name, place)]
        far, scale = far_labels(y, pool.label_name, place)
        if scale is not None and not np.isfinite(cal.bounds_).any():  # --scale refuses them
            notes += [
                f"{far} They enter the estimates as labels: fix them (or empty those cells: "
                f"not labeled) and run again with --scale {scale.text}"
            ]
    notes = [n for n in notes if n]  # an empty note (nothing imputed) is no line
    notes += list(cal.pool_warnings())  # what fit warns of: unscored rows, unfit judges
    notes += missingness_notes(  # a judge failing more on low (or high) labels
        pool.judge_matrix().reset_index(drop=True),
        np.where(pool.labeled, pool.y, np.nan),
        None if pool.groups is None else np.asarray(pool.groups),
    )
    return notes + [n for n in [convergence(cal)] if n]


def imputed_note(cal: Calibrator) -> str:
    """What became of the judge scores missing in the calibrator's pool, as that engine
    and path treat them (tester G finding 12): the frequentist model fills them with its
    pool's mean beside a missing-score indicator; a saved calibrator applied to this pool
    has no indicator for a judge that scored every item of its own pool (the old pool's
    mean, nothing more); the Bayesian judge model leaves them out of its likelihood. ""
    when no score is missing. Said by ``bacon estimate`` and the report (finding 15)."""
    report = cal.features_.report
    missing = {j: n for j, n in report.get("missing", {}).items() if n}
    if not missing:
        return ""
    if cal.engine_ == "bayes":
        listed = ", ".join(f"{j}: {n}" for j, n in missing.items())
        return (
            f"missing judge scores left out of the Bayesian judge model (treated as "
            f"unobserved, nothing imputed): {listed}"
        )
    bare = report.get("imputed_without_indicator", {})
    flagged = ", ".join(f"{j}: {n}" for j, n in missing.items() if j not in bare)
    parts = [f"imputed with a missing-score indicator: {flagged}"] if flagged else []
    if bare:
        listed = ", ".join(f"{j}: {n}" for j, n in bare.items())
        parts.append(
            f"filled with the saved calibrator's pool mean, with no indicator (that pool "
            f"had no missing score from them): {listed}"
        )
    return f"missing judge scores {'; '.join(parts)}"


def convergence(cal: Calibrator) -> str:
    """That the calibrator's Bayesian fits did not converge, in which folds and what to
    try through a preset (``bacon estimate`` and ``bacon report`` set the sampler so);
    "" when they did, or for the frequentist engine."""
    models = getattr(getattr(cal, "crossfit_", None), "models", [])
    diags = [getattr(m, "diagnostics_", None) for m in models]
    if all(d is None for d in diags):
        return ""
    from bacon_bayes.bayes.diagnostics import (
        BARELY_VARIES,
        PRESET_SETTINGS,
        convergence_note,
        preset_file,
    )

    note = convergence_note(diags, PRESET_SETTINGS)
    pool = getattr(cal, "pool_", None)  # a calibrator loaded without its pool: none
    if BARELY_VARIES in note and pool is not None and (flat := constant_judges(pool)):
        note = note.replace(BARELY_VARIES, f"{BARELY_VARIES} ({flat})", 1)
    if "--preset FILE" not in note:
        return note
    preset = getattr(cal, "preset", None)
    if preset is not None and not str(preset).endswith(".toml"):
        from bacon_bayes.presets import preset_path

        preset = f"{preset} ({preset_path(preset)})"
    return f"{note}; {preset_file(cal.model_name_, note, preset)}"


def constant_judges(pool: EvalPool) -> str:
    """The judges ``bacon doctor`` flags for one score on every item of a group
    (:func:`~bacon_bayes.doctor.scores.score_flags`, a reference-based metric on its own
    reference), in words for the convergence note's "a judge that barely varies"; ""
    when none is."""
    from bacon_bayes.doctor.scores import score_flags

    if pool.groups is None:
        return ""
    scores = pool.judge_matrix().reset_index(drop=True)
    flags = score_flags(scores, np.asarray(pool.groups))
    where: dict[str, list[str]] = {}
    for f in flags:
        if f.kind == "constant":
            where.setdefault(f.judge, []).append(f.group)
    if not where:
        return ""
    named = "; ".join(f"{j!r} on {', '.join(g)}" for j, g in where.items())
    return f"bacon doctor flags one score on every item of a group: {named}"


def naive_noted(e: _Result, pool: EvalPool, bounds: tuple[float, float], rows: str = "") -> _Result:
    """The naive estimate (or table) ``e`` with why it is none of the label's
    (:func:`naive_note`) in ``details["not_comparable"]``, which it prints."""
    why = naive_note(pool, bounds, rows)
    return replace(e, details={**e.details, "not_comparable": why}) if why else e


def naive_note(pool: EvalPool, bounds: tuple[float, float], rows: str = "") -> str:
    """Why the naive baseline (the raw judge average) is left out, "" when it is shown
    (:func:`bacon_bayes.scale.naive_left_out` on the pool's labels and judges; ``bounds``:
    the label's range; ``rows``: which rows the pool holds, when not the whole table).
    Rows no judge scored leave it undefined, which is said first."""
    from bacon_bayes.scale import naive_left_out

    judges = pool.judge_matrix()
    empty = np.flatnonzero(judges.isna().all(axis=1).to_numpy())
    if empty.size:
        return (
            f"{empty.size} row(s) have no judge score at all (row {empty[0]}, item "
            f"{str(pool.ids[empty[0]])!r}, the first), so the raw judge average is undefined for "
            "them (bacon estimate --drop-unscored leaves those rows out; in Python, drop them "
            "from the DataFrame)"
        )
    return naive_left_out(np.asarray(pool.y, dtype=float), judges, bounds, rows)


class Summary(dict[str, Any]):
    """:meth:`Calibrator.summary`'s dictionary (JSON-ready: ``json.dumps`` takes it as it
    is, covariances included) that prints as a few readable lines: what was fitted, the
    mean's and quantiles' estimates beside their baselines, and the group table (a
    notebook showed the dictionary, thousands of characters of covariances)."""

    def __repr__(self) -> str:
        level = f"{100 * (1 - self['alpha']):g}%"
        lines = [
            f"Calibrator summary: {self['model']} ({self['engine']}), {self['n_labeled']} "
            f"labeled of {self['n_items']} items, {self['folds']} folds, seed {self['seed']}",
            f"surrogates: {', '.join(self['surrogates'])}",
            f"\nmean ({level} CI):",
            _rows([Estimate.from_dict(e) for e in self["mean"].values()]),
        ]
        for q, by_method in self["quantiles"].items():
            lines += [f"\nquantile {q} ({level} CI):"]
            lines += [_rows([Estimate.from_dict(e) for e in by_method.values()])]
        if groups := self.get("groups"):
            lines += ["", _groups_text(groups, level)]
        if "naive_left_out" in self:
            lines += [f"\nnaive left out: {self['naive_left_out']}"]
        lines += [
            "\n(a dict: summary['mean']['aee'], summary['groups']['aee']['cov'] and the rest; "
            "json.dumps(summary) writes all of it)"
        ]
        return "\n".join(lines)

    __str__ = __repr__


def _groups_text(groups: dict[str, Any], level: str) -> str:
    """The group means of every method side by side, with the AEE intervals' guarantee."""
    if "error" in groups:
        return f"groups: {groups['error']}"
    tables = {m: EstimateTable.from_dict(t) for m, t in groups.items()}
    aee = tables["aee"]
    frame = pd.DataFrame({"name": aee.names, "n_labeled": aee.n_labeled})
    for method, t in tables.items():
        frame[method] = [
            f"{e:.4f} [{lo:.4f}, {hi:.4f}]" if np.isfinite(lo) and np.isfinite(hi)
            else f"{e:.4f} (no interval)"
            for e, lo, hi in zip(t.estimate, t.ci_low, t.ci_high, strict=True)
        ]  # fmt: skip
    head = f"group means ({level} CI, simultaneous: {aee.simultaneous})"
    if aee.details.get("pooling") == "shrink":
        head += f"; aee shrunk, holding {aee.details.get('guarantee')}"
    return f"{head}:\n{frame.to_string(index=False)}"


def _rows(estimates: list[Estimate]) -> str:
    """One line per method: estimate, se and interval."""
    frame = pd.concat([e.to_frame() for e in estimates], ignore_index=True)
    frame = frame.drop(columns=["name", "note"], errors="ignore")
    return frame.to_string(index=False, float_format="%.4f")


def calibrator_summary(
    cal: Calibrator, alpha: float = 0.05, quantiles: tuple[float, ...] = ()
) -> Summary:
    """``Calibrator.summary``: the estimates beside the classical and naive baselines, and
    what was fitted (JSON-ready, printed readably: :class:`Summary`); the naive baseline
    left out where it is none, the reason in ``naive_left_out``."""
    cal._check_fitted()
    left_out = naive_note(cal.pool_, cal.bounds_)
    methods: tuple[Method, ...] = ("aee", "classical") + (() if left_out else ("naive",))
    out: dict[str, Any] = {
        "n_items": cal.pool_.n_items,
        "n_labeled": cal.pool_.n_labeled,
        "model": cal.model_name_,
        "engine": cal.engine_,
        "surrogates": list(cal.surrogate_names_),
        "preset": cal.preset,
        "folds": cal.folds,
        "seed": cal.seed_,  # the one used: drawn at fit for seed=None
        "alpha": alpha,
        "frozen": _frozen_dict(cal),
        "pool": cal.pool_.report(),
        "features": cal.features_.report,
        "mean": {m: cal.estimate_mean(alpha, m).to_dict() for m in methods},
        "quantiles": {
            str(q): {m: cal.estimate_quantile(q, alpha, m).to_dict() for m in methods}
            for q in quantiles
        },
    }
    if cal.pool_.groups is not None:
        try:
            out["groups"] = {m: cal.estimate_groups(alpha, True, m).to_dict() for m in methods}
        except ValidationError as exc:  # a group with fewer than 2 labels
            out["groups"] = {"error": str(exc)}
    if left_out:
        out["naive_left_out"] = left_out
    return Summary(out)


def _frozen_dict(cal: Calibrator) -> dict[str, Any] | None:
    """The round a frozen calibrator came from, with the groups new to it and gone
    (:func:`bacon_bayes.frozen.new_groups`); None for a calibrator of its own pool."""
    if not hasattr(cal, "frozen_"):
        return None
    from bacon_bayes.frozen import new_groups

    return {**cal.frozen_.to_dict(), "groups": new_groups(cal)}


def range_text(bounds: tuple[float, float]) -> str:
    """The label's range as the settings table says it (``1 to 5``, ``at least 0``; it
    printed the Python tuple ``(1.0, 5.0)``)."""
    low, high = (float(b) for b in bounds)
    if np.isfinite(low) and np.isfinite(high):
        return f"{low:g} to {high:g}"
    if np.isfinite(low) or np.isfinite(high):
        return f"at least {low:g}" if np.isfinite(low) else f"at most {high:g}"
    return "unbounded"


def rates_note(table: pd.DataFrame, level: float) -> str:
    """The report's note under a categorical label's judge-bias table: rates, not lines
    (the note of bias, noise and signal said nothing of ``fpr`` beside ``fpr_human``, which
    differ: Llama3-70B on TriviaQA 0.006 against 0.156, helper W14); "" for a table of
    no such rates."""
    if not any(str(c).startswith(("fpr_human", "acc_human")) for c in table):
        return ""
    said = [
        "Categorical label: each categorical judge's rates. fpr_human and fnr_human "
        "(acc_human_<level> for more than two levels): against the human label over the "
        "pool (how often the judge says the second level where people give the first, the "
        "first where they give the second; how often it says a level where people do), "
        "each a ratio of pool counts estimated as the mean is, so its interval holds "
        "whatever the model: the figures to read"
    ]
    model = [c for c in table if c in ("fpr", "fnr") or str(c).startswith("acc_")]
    if any(not str(c).startswith("acc_human") for c in model):
        said.append(
            "fpr and fnr (acc_<level>): against the Bayesian judge model's latent class, "
            "which follows the judges' consensus, so where the judges err together "
            "(questions that fool most of them) they understate what people would count"
        )
    if any(str(c).startswith("mean_") for c in table):
        said.append(
            "a judge whose scores are not all levels has its class means (mean_<level>) "
            "and noise on its own scale instead"
        )
    return f"{'. '.join(said)}. low - high: {level:.0%} intervals, each judge's on its own."


def early_look_note(mean: Estimate, tables: Sequence[EstimateTable] = ()) -> str | None:
    """Why an early alpha-spending look's intervals are wide, in plain words (None past
    half the budget, or for other intervals): the error spent so far by the O'Brien-
    Fleming boundary, how many times one look's width that makes the pool mean's and the
    ``tables``' (group means, differences) intervals, and that ``--fixed`` gives this
    wave's alone. A user's WMT22 study (75 of 375 labels, 12-18 a system) saw pair
    intervals 4.5-7.7 times the fixed ones at wave 1 and asked why (VALIDATION.md, "Anytime
    group looks", point 3)."""
    note = mean.details.get("anytime") or {}
    most = note.get("max_labels")
    if note.get("kind") != "alpha-spending" or not most:
        return None
    labels = int(note["labels_at_looks"][-1])
    if labels >= 0.5 * most:
        return None
    boundary = float(note["widening"])
    widen = [boundary]
    for t in tables:
        w = np.asarray((t.details.get("anytime") or {}).get("widening", []), dtype=float)
        widen += [float(v) for v in w[np.isfinite(w) & (w > 0)]]
    lo, hi = min(widen), max(widen)
    span = f"{lo:.1f} times" if hi < 1.05 * lo else f"{lo:.1f}-{hi:.1f} times"
    tail = (
        "; the widest are intervals on few degrees of freedom (a Student-t read at the "
        "boundary's far level)"
        if hi > 1.25 * boundary
        else ""
    )
    return (
        f"alpha-spending at {labels} of the {most} labels budgeted ({100 * labels / most:.0f}%) "
        f"has spent {float(note['alpha_spent']):.2g} of its {mean.alpha:g}: the O'Brien-Fleming "
        "boundary keeps almost all of it for the last waves, so early intervals are wide by "
        f"design, here {span} one look's{tail}. They narrow as the labels near the budget "
        "(about 1.1 times at it). --fixed gives this wave's intervals alone, valid for a "
        "decision made at this wave and no other."
    )
