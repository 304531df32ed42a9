"""The goals of a plan, the search for the labels each design needs, and the result
(:func:`plan`; the statistics behind it: :mod:`bacon_bayes.planning.predict`)."""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
from scipy import stats

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.estimate.groups import MIN_BOOTSTRAP_LABELS
from bacon_bayes.order import best_words, check_better, names_text, pair_text, unique_codes
from bacon_bayes.planning.budgets import budget_labels
from bacon_bayes.planning.degrees import moderated_share
from bacon_bayes.planning.outlook import (
    POOLINGS,
    Outlook,
    contrast_metrics,
    labels_in_group_alone,
    lead_note,
    outlook,
    planning_basis,
    shrink_prior,
    smallest_lead,
    withheld_notes,
    without_adaptive_on_binary,
)
from bacon_bayes.planning.predict import (
    DESIGNS,
    POWER_DRAWS,
    ROUGH_WEIGHT,
    PilotStatistics,
    Prediction,
    pilot_statistics,
    predict,
)
from bacon_bayes.pool import EvalPool
from bacon_bayes.sampling import OPTIMISTIC_RATIO

__all__ = ["DesignPlan", "Goal", "PlanResult", "plan"]

#: The interval a pair's goal sizes and the option that prints it (default: simultaneous)
OWN_PAIR = "the pair's own interval: estimate --pointwise"
#: sd of a named pair's own within-prompt correlation around the pool's average one (WMT22:
#: 0.16-0.55 over its 120 pairs of systems): the plan's error on paired's gain for a pair.
PAIR_RHO_SD = 0.1
#: The paired design is recommended only when it still needs fewer labels than the
#: best other design with the within-prompt correlation this many sds below the plan's.
PAIRED_MARGIN_SDS = 1.0
#: Growth factor of the budgets scanned for the first that reaches the goal.
SCAN_STEP = 1.15
#: A half-width goal of a group or a pair counts as reached only where its interval is
#: withheld in at most this share of draws.
MAX_WITHHELD = 0.05
#: Level of the range of the recommended design's labels needed (the pilot residual
#: variance's chi-square interval on its effective labels).
RANGE_LEVEL = 0.8

GoalKind = Literal["half-width", "difference", "top"]


@dataclass(frozen=True)
class Goal:
    """What the labels are for.

    ``kind="half-width"``: CI half-width ``half_width`` of the pool mean, of ``group``'s
    mean, or of the difference ``pair[0] - pair[1]``; ``"difference"``: power ``power``
    to detect ``delta`` between ``pair[0]`` and ``pair[1]``; ``"top"``: power ``power``
    that the top group's simultaneous difference intervals against every other group
    all exclude 0, the top being the highest mean, or the lowest with ``better="lower"``
    (an error score such as MQM).
    """

    kind: GoalKind
    half_width: float | None = None
    group: str | None = None
    pair: tuple[str, str] | None = None
    delta: float | None = None
    power: float = 0.8
    better: str = "higher"

    def check(self, names: tuple[str, ...]) -> None:
        """Refuse a goal that cannot be planned (the message names the fix)."""
        if self.kind not in ("half-width", "difference", "top"):
            raise ValidationError(
                f"goal {self.kind!r} is not known; use 'half-width', 'difference' or 'top'."
            )
        check_better(self.better)
        if self.kind == "half-width" and not (self.half_width or 0) > 0:
            raise ValidationError(f"half-width {self.half_width!r} must be > 0 (e.g. 0.05).")
        if self.kind != "half-width" and not 0 < self.power < 1:
            raise ValidationError(f"power {self.power!r} must lie in (0, 1) (e.g. 0.8).")
        if self.kind == "difference" and not (self.delta or 0) > 0:
            raise ValidationError(
                f"delta {self.delta!r} must be > 0: the smallest difference worth detecting."
            )
        wanted = [self.group] if self.group else []
        wanted += list(self.pair or ())
        if (wanted or self.kind == "top") and not names:
            raise ValidationError("the goal names groups but the pool has none; pass --group COL.")
        for name in wanted:
            if name not in names:
                raise ValidationError(
                    f"group {name!r} is not in the pool; its groups are {names_text(names)}."
                )
        if self.kind == "difference" and (self.pair is None or self.pair[0] == self.pair[1]):
            raise ValidationError("a difference needs two different groups: --difference A B.")
        if self.kind == "half-width" and self.pair is not None:
            if self.group is not None:
                raise ValidationError("a half-width is of a group's mean or of a difference.")
            if self.pair[0] == self.pair[1]:
                raise ValidationError("a difference needs two different groups: --difference A B.")
        if self.kind == "top" and len(names) < 2:
            raise ValidationError("resolving the top group needs at least two groups.")

    def describe(self) -> str:
        if self.kind == "half-width":
            what = "the pool mean"
            if self.group:
                what = f"the mean of group {self.group!r} (its own interval: estimate --pointwise)"
            if self.pair is not None:
                what = f"the difference {pair_text(*self.pair)} ({OWN_PAIR})"
            return f"CI half-width <= {self.half_width:g} for {what}"
        if self.kind == "difference":
            a, b = self.pair or ("", "")
            return f"power {self.power:g} to detect {pair_text(a, b)} = {self.delta:g} ({OWN_PAIR})"
        top = "its simultaneous difference intervals, as estimate prints them by default"
        return (
            f"power {self.power:g} that the top group ({best_words(self.better)}) is resolved "
            f"from every other ({top})"
        )


@dataclass
class DesignPlan:
    """One design's row of a plan."""

    design: str
    labels_needed: int | None
    new_labels: int | None
    at_budgets: list[dict[str, float]]
    command: str | None
    note: str = ""
    #: labels needed in all at the ends of the pilot variance's RANGE_LEVEL interval
    #: (None: not computed, or the end is beyond the pool)
    labels_range: tuple[int | None, int | None] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": self.design,
            "labels_needed": self.labels_needed,
            "labels_needed_range": None if self.labels_range is None else list(self.labels_range),
            "new_labels": self.new_labels,
            "at_budgets": self.at_budgets,
            "command": self.command,
            "note": self.note,
        }


@dataclass
class PlanResult:
    """Every design's labels needed and predicted precision, and the recommendation."""

    goal: Goal
    designs: list[DesignPlan]
    recommended: str | None
    pilot: PilotStatistics
    alpha: float
    top_group: str | None = None
    pooling: str = "auto"
    #: labels drawn by each design from none (``from_scratch``), not added to the pilot's
    from_scratch: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": {**self.goal.__dict__, "description": self.goal.describe()},
            "alpha": self.alpha,
            "pooling": self.pooling,
            "top_group": self.top_group,
            "recommended": self.recommended,
            "designs": [d.to_dict() for d in self.designs],
            "pilot": self.pilot.to_dict(),
        }

    def to_text(self) -> str:
        metric = "half-width" if self.goal.kind == "half-width" else "power"
        lines = [f"goal: {self.goal.describe()} (alpha {self.alpha:g})"]
        if self.top_group is not None:
            best = best_words(self.goal.better)
            lines.append(f"top group in the pilot ({best}): {self.top_group}")
        budgets = [b["labels"] for b in self.designs[0].at_budgets] if self.designs else []
        head = f"{'design':<12}{'labels needed':>15}{'new':>8}" + "".join(
            f"{f'{metric} @{b:g}':>18}" for b in budgets
        )
        at = f"{metric} @B: the goal's predicted {metric} with B labels in all"
        needed = (
            "labels needed: each design's, drawn from no labels (--from-scratch: the "
            f"pilot's {self.pilot.n_labeled} only inform the plan); {at}"
            if self.from_scratch
            else "labels needed: in all (the pilot's included) to reach the goal; new: beyond "
            f"the pilot's {self.pilot.n_labeled}; {at}"
        )
        lines += ["", needed, head]
        if any(d.labels_range is not None for d in self.designs):
            gaps = "judge model and the gaps between groups are"
            fixed = "judge model is" if self.goal.kind == "half-width" else gaps
            lines.insert(-1, f"{RANGE_LEVEL:.0%} range: only the pilot's residual variance is "
                         f"taken as uncertain (its chi-square interval); the {fixed} taken "
                         "as the pilot's, so the true spread is wider")  # fmt: skip
        for d in self.designs:
            need = "-" if d.labels_needed is None else str(d.labels_needed)
            new = "-" if d.new_labels is None else str(d.new_labels)
            cells = "".join(f"{b[metric]:>18.4g}" for b in d.at_budgets)
            lines.append(f"{d.design:<12}{need:>15}{new:>8}{cells}  {d.note}")
        lines.append("")
        best = next((d for d in self.designs if d.design == self.recommended), None)
        if best is None:
            lines.append("recommendation: no design reaches the goal short of labeling all.")
        else:
            lines.append(
                f"recommended: {best.design} ({best.labels_needed} labels in all, "
                f"{best.new_labels} more{self._group_share(best)}){self._range(best)}"
            )
            if best.command:
                lines.append(f"  run: {best.command}")
            lines += self._group_alone(best)
        lead = (
            smallest_lead(self.pilot, self.pooling, self.goal.better)
            if self.goal.kind == "top"
            else None
        )
        if lead is not None and lead < 1.0:  # as bacon estimate's line says of it
            lines.append(
                f"  caution: the top group's lead in the pilot is {lead:.1f} standard errors, "
                "under one: this plan takes it as the truth, and if the groups are equal no "
                "number of labels resolves the top"
            )
        lines += ["", "assumptions:", *(f"  - {a}" for a in self.pilot.assumptions)]
        return "\n".join(lines)

    def _group_share(self, best: DesignPlan) -> str:
        """How many of the labels fall in the goal's group(s) (a count in all, over every
        group, reads like one for the group)."""
        st, names = self.pilot, [self.goal.group] if self.goal.group else list(self.goal.pair or ())
        if not names or best.labels_needed is None:
            return ""
        share = best.labels_needed / st.n_items
        parts = [
            f"about {share * st.sizes[st.names.index(v)]:.0f} in {v!r} (of its "
            f"{int(st.sizes[st.names.index(v)])} items)"
            for v in names
        ]
        return "; " + ", ".join(parts)

    def _group_alone(self, best: DesignPlan) -> list[str]:
        """The labels the goal's group needs when they all go to it, where that is far
        fewer than the recommended design's new labels (which it spreads over every group:
        bacon sample draws no wave in one group alone)."""
        g, st = self.goal.group, self.pilot
        if g is None or self.goal.half_width is None or not best.new_labels:
            return []
        k = st.names.index(g)
        alone = labels_in_group_alone(st, k, self.goal.half_width, self.alpha)
        have = int(st.labels[k])
        if alone is None or 2 * (alone - have) > best.new_labels:
            return []
        return [
            f"  {g!r} alone: about {alone} labels in it ({alone - have} more, of its "
            f"{int(st.sizes[k])} items) would reach the goal (its own AEE interval, the "
            "finite group counted), but bacon sample draws no wave in one group alone: "
            f"every design above spreads its labels over every group, {best.design}'s "
            f"{best.new_labels} more mostly elsewhere"
        ]

    def _range(self, best: DesignPlan) -> str:
        if best.labels_range is None:
            return ""
        lo, hi = (str(v) if v is not None else "more than the pool" for v in best.labels_range)
        return (
            f"\n  {RANGE_LEVEL:.0%} range: {lo} to {hi} labels in all, from the chi-square "
            f"interval of the pilot's residual variance (worth {self.pilot.variance_df:.0f} "
            "labels) alone"
        )


def _pairs_level(cov: np.ndarray, alpha: float) -> float:
    """Pointwise level of the max-|t| critical value over all pairwise differences."""
    m = cov.shape[0]
    rows = [(a, b) for a in range(m) for b in range(a + 1, m)]
    L = np.zeros((len(rows), m))
    for k, (a, b) in enumerate(rows):
        L[k, a], L[k, b] = 1.0, -1.0
    dcov = L @ cov @ L.T
    sd = np.sqrt(np.clip(np.diag(dcov), 1e-300, None))
    crit = simultaneous_critical_value(dcov / np.outer(sd, sd), alpha, "maxt", draws=20_000)
    return float(2.0 * stats.norm.sf(crit[0]))


class _Evaluator:
    """The goal's metric (half-width, or power) of a design at ``n`` labels."""

    def __init__(
        self,
        st: PilotStatistics,
        goal: Goal,
        alpha: float,
        from_scratch: bool,
        pooling: str = "auto",
    ):
        self.st, self.goal, self.alpha, self.from_scratch = st, goal, alpha, from_scratch
        self.pooling = pooling
        #: The fewest labels a plan considers (the pilot's, or two per fold from scratch).
        self.low = 2 * st.folds if from_scratch or st.n_labeled == 0 else st.n_labeled
        self.prior = shrink_prior(st)
        self.names = st.names
        #: the group means taken as the truth: the pilot's table, as the estimator gives it
        self.truth, self.basis = planning_basis(st, self.prior, pooling)
        # the estimator's leader, a group without pilot labels too (by its surrogate)
        #: +1: the top is the highest mean; -1: the lowest (``better="lower"``)
        self.sign = -1.0 if goal.better == "lower" else 1.0
        self.top = int(np.nanargmax(self.sign * self.truth)) if goal.kind == "top" else None
        self._levels: dict[str, float] = {}
        self._details: dict[tuple[str, float], dict[str, float]] = {}
        self._powers: dict[tuple[float, bytes, bytes], float] = {}  # by level, cov, df
        self._z = np.random.default_rng(20261127).standard_normal((POWER_DRAWS, len(st.names)))

    def groups(self) -> list[int]:
        """The goal's groups (none: the pool mean or the top group's)."""
        g = self.goal
        if g.pair is not None:
            return [self.names.index(v) for v in g.pair]
        return [self.names.index(g.group)] if g.group is not None else []

    def details(self, design: str, n: float) -> dict[str, float]:
        """The goal's group or pair at ``n``: withheld chance, half-width, power, and the
        chance the estimator shrinks (:func:`~bacon_bayes.planning.outlook.contrast_metrics`)."""
        key = (design, float(n))
        if key in self._details:
            return self._details[key]
        p = predict(self.st, design, n, from_scratch=self.from_scratch)
        o = outlook(
            self.st, p, pooling=self.pooling, prior=self.prior, from_scratch=self.from_scratch
        )
        self._details[key] = self._contrast(o, p)
        return self._details[key]

    def _contrast(self, o: Outlook, p: Prediction) -> dict[str, float]:
        groups = self.groups()
        if not groups:  # the top group: every group needs its interval
            every = list(range(len(self.names)))
            sep, shr = o.branches(every)
            return {"withheld": 1.0 - sep - shr, "p_shrink": o.p_shrink}
        delta = float(self.goal.delta or 0.0)
        surrogate_gap = None
        if len(groups) == 2:
            a, b = groups
            gap = self.st.means[a] - self.st.means[b]
            delta = -delta if np.isfinite(gap) and gap < 0 else delta  # as the pilot sees it
            if self.st.surrogate_means is not None and self.st.n_labeled > 0:
                surrogate_gap = float(self.st.surrogate_means[a] - self.st.surrogate_means[b])
        return contrast_metrics(
            o, p, groups, delta=delta, alpha=self.alpha, surrogate_gap=surrogate_gap
        )

    def metric(self, design: str, n: float) -> float:
        g = self.goal
        if g.kind == "half-width" and g.group is None and g.pair is None:
            p = predict(self.st, design, n, from_scratch=self.from_scratch)
            crit = stats.t.isf(self.alpha / 2.0, p.df_pool)
            return float(crit * math.sqrt(p.var_pool))
        if g.kind == "half-width":
            d = self.details(design, n)
            return d["half_width"] if d["withheld"] <= MAX_WITHHELD else math.inf
        if g.kind == "difference":
            return self.details(design, n)["power"]
        p = predict(self.st, design, n, from_scratch=self.from_scratch)
        return self._top_power(design, p) * (1.0 - self.details(design, n)["withheld"])

    def _top_power(self, design: str, p: Prediction) -> float:
        t = self.top
        assert t is not None
        # a design that predicts what another did at this budget (adaptive stepping
        # back to uniform) has its power: the draws are the same
        if design not in self._levels:
            self._levels[design] = _pairs_level(p.cov, self.alpha)
        level = self._levels[design]
        key = (level, p.cov.tobytes(), p.df.tobytes())
        if key not in self._powers:
            self._powers[key] = self._draw_power(p, t, level)
        return self._powers[key]

    def _draw_power(self, p: Prediction, t: int, level: float) -> float:
        others = [k for k in range(len(self.names)) if k != t]
        L = np.zeros((len(others), len(self.names)))
        L[np.arange(len(others)), others] = -1.0
        L[:, t] = 1.0
        dcov = L @ p.cov @ L.T
        gaps = L @ (self.sign * self.truth)  # the top's leads, in the better direction
        vals, vecs = np.linalg.eigh(dcov)
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))
        # einsum, not BLAS: 8000 x 9 by 9 x 9 took 40 ms with two BLAS threads on a busy
        # machine (1.6 ms with one), and the search calls it about 25 times per design
        draws = gaps + np.einsum("dk,jk->dj", self._z[:, : len(others)], root)
        se = np.sqrt(np.clip(np.diag(dcov), 1e-300, None))
        df = np.minimum(p.df[t], p.df[others])
        crit = stats.t.isf(level / 2.0, df)
        return float(np.mean(np.all(draws / se > crit, axis=1)))

    def reached(self, value: float) -> bool:
        if self.goal.kind == "half-width":
            return value <= float(self.goal.half_width or 0.0)
        return value >= self.goal.power

    def labels_needed(self, design: str, low: int) -> int | None:
        """Fewest labels in all (at least ``low``) that reach the goal; None: none short
        of the whole pool (its means exact: no plan). The metric need not be monotone in
        ``n`` (the estimator stops shrinking once every group has 10 labels, and its
        separate intervals can be the wider ones): budgets grow by :data:`SCAN_STEP` to
        the first that reaches the goal, then bisection below it."""
        N = self.st.n_items - 1  # the largest budget that leaves an item to the judges
        if low > N or self.reached(self.metric(design, low)):
            return low if low <= N else None
        lo = low
        while lo < N:
            hi = min(N, max(lo + 1, math.ceil(lo * SCAN_STEP)))
            if self.reached(self.metric(design, hi)):
                break
            lo = hi
        else:
            return None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if self.reached(self.metric(design, mid)) else (mid, hi)
        return hi


def _command(
    design: str, new: int, group_col: str | None, pool_arg: str, sample_args: str = "",
    adaptive: str = " --sd-model calibrator",
) -> str | None:  # fmt: skip
    if new <= 0:
        return None
    strata = f" --strata {shlex.quote(group_col or 'GROUP')}"
    extra = {"stratified": strata, "adaptive": adaptive}.get(design, "")
    tail = f" {sample_args}" if sample_args else ""
    return f"bacon sample {pool_arg} --design {design} --budget {new}{extra}{tail}"


def _adaptive_options(cal: Calibrator, st: PilotStatistics) -> str:
    """The printed adaptive wave's options: the sd of the judge model the plan priced it
    with (its engine and family) and the uniform share it took (tester C finding 5: a
    plan at 0.2 and engine freq priced 0.734, the wave drawn predicted 0.894)."""
    model = f" --model {shlex.quote(cal.model)}" if isinstance(cal.model, str) else ""
    return (
        f" --sd-model calibrator --engine {cal.engine}{model} --uniform-share {st.uniform_share:g}"
    )


def plan(
    pool: EvalPool,
    goal: Goal,
    *,
    budgets: list[float] | None = None,
    designs: tuple[str, ...] | None = None,
    alpha: float = 0.05,
    engine: str = "freq",
    calibrator: Calibrator | None = None,
    from_scratch: bool = False,
    group_column: str | None = None,
    pool_arg: str = "STUDY",
    pooling: str = "auto",
    pilot: PilotStatistics | None = None,
    sample_args: str = "",
    ranges: bool = True,
) -> PlanResult:
    """Labels each design needs to reach ``goal``, and its precision at ``budgets``.

    Parameters
    ----------
    pool : EvalPool
        Judge scores of every item and the labels so far (the pilot; none: a rough plan
        on stated assumptions), with the inclusion probabilities its design recorded.
    goal : Goal
        The half-width, difference or top-group goal.
    budgets : list of float, optional
        Labels in all at which to report the goal's metric: shares of the pool (< 1) or
        counts (default 5%, 10% and 20% of the pool past the pilot, or its multiples).
    designs : tuple of str, optional
        Designs to compare (default: every one the pool allows: stratified needs groups,
        paired needs prompts, adaptive a pilot).
    alpha : float
        1 - confidence level of the intervals and the tests.
    engine : str
        Engine of the Calibrator fitted on the pilot (``"freq"``: fast), unless
        ``calibrator`` (unfitted) is given.
    from_scratch : bool
        Predict designs that draw every label themselves (how ``bacon simulate`` runs
        them) instead of adding to the pilot.
    group_column, pool_arg : str
        Names used in the ``bacon sample`` command printed for the recommendation.
    sample_args : str
        The rest of that command (how to read the pool as a study: ``--label``,
        ``--judge``, ``--prompt``...), shell-quoted.
    ranges : bool
        Give the recommended design's labels needed a :data:`RANGE_LEVEL` range from the
        pilot residual variance's chi-square interval (two more searches).
    pooling : str
        The group estimator's pooling the plan predicts (``"auto"``, the estimator's
        default; ``"shrink"``; ``"separate"``; :mod:`bacon_bayes.planning.outlook`): which
        intervals are withheld at a budget, and the shrunk intervals' widths.
    pilot : PilotStatistics, optional
        :func:`~bacon_bayes.planning.predict.pilot_statistics` of ``pool``, when already
        computed (``engine`` and ``calibrator`` are then not used).

    Returns
    -------
    PlanResult
        One :class:`DesignPlan` per design (labels needed in all and new, the metric at
        each budget, the command), the recommended design (fewest labels; ties go to the
        simpler design; paired never for the pool mean where it loses) and the pilot's
        statistics with every assumption made. Paired is recommended for a group goal only
        where it still needs fewer labels with the within-prompt correlation
        :data:`PAIRED_MARGIN_SDS` sds below the plan's (its gain beyond the plan's error:
        the correlation's posterior sd, and :data:`PAIR_RHO_SD` for a named pair).
    """
    if pooling not in POOLINGS:
        raise ValidationError(f"pooling {pooling!r} is not known; use {', '.join(POOLINGS)}.")
    if not 0 < alpha < 1:
        raise ValidationError(f"alpha {alpha!r} must lie in (0, 1) (e.g. 0.05).")
    if pool.n_labeled >= pool.n_items and not from_scratch:
        raise ValidationError(
            f"every item of the pool is labeled ({pool.n_labeled} of {pool.n_items}): its "
            "means are known exactly and nothing is left to label. To plan the labelling of "
            "a table like this one from no labels (as bacon simulate draws it), pass "
            "--from-scratch (from_scratch=True)"
        )
    names = () if pool.groups is None else tuple(unique_codes(pool.groups)[0].tolist())
    goal.check(names)
    if designs is None:
        designs = tuple(
            d
            for d in DESIGNS
            if (d != "stratified" or pool.groups is not None)
            and (d != "paired" or pool.prompts is not None)
            and (d != "adaptive" or pool.n_labeled > 0)
        )
    for d in designs:
        if d not in DESIGNS:
            raise ValidationError(f"design {d!r} is not known; use {', '.join(DESIGNS)}.")
        if d == "paired" and pool.prompts is None:
            raise ValidationError(
                "the paired design needs prompts: pass --prompt COL (the prompt each item "
                "answers), or leave paired out of --designs."
            )
        if d == "stratified" and pool.groups is None:
            raise ValidationError("the stratified design needs groups: pass --group COL.")
    st = pilot if pilot is not None else pilot_statistics(pool, calibrator, engine=engine)
    ev = _Evaluator(st, goal, alpha, from_scratch, pooling)
    N, n0 = st.n_items, st.n_labeled
    low = ev.low
    at = budget_labels(budgets, N, 0 if from_scratch else n0, st.assumptions)
    wave = _adaptive_options(calibrator or Calibrator(engine=engine), st)
    metric_name = "half-width" if goal.kind == "half-width" else "power"
    rows = []
    for d in designs:
        if d == "adaptive" and n0 == 0:
            continue
        need = ev.labels_needed(d, low)
        new = None if need is None else need - (0 if from_scratch else n0)
        cells = [_cell(ev, d, b, metric_name) for b in at]
        # the design's note at its labels needed (at the last budget when it cannot reach
        # the goal): a note of a budget below them said an adaptive wave steps back while
        # its row priced the wave that follows the sd (TriviaQA: 202 labels, "too small")
        where = need if need is not None else (at[-1] if at else N)
        note = predict(st, d, where, from_scratch=from_scratch).note
        if d == "paired" and st.rho_weight < ROUGH_WEIGHT:
            note = f"ROUGH (within-prompt correlation mostly the judges' prior); {note}"
        cmd = None if new is None else _command(d, new, group_column, pool_arg, sample_args, wave)
        rows.append(DesignPlan(d, need, new, cells, cmd, note))
    if any("predicted variance ratio" in r.note for r in rows if r.design == "adaptive"):
        st.assumptions.append(f"adaptive: its predicted variance ratio is {OPTIMISTIC_RATIO}")
    candidates = [r for r in rows if r.labels_needed is not None]
    group_goal = goal.kind != "half-width" or goal.group is not None or goal.pair is not None
    if not group_goal:  # the pool mean: paired is never better unless prompts share negatively
        uni = next((r.labels_needed for r in rows if r.design == "uniform"), None)
        if uni is not None:
            candidates = [
                c for c in candidates if c.design != "paired" or (c.labels_needed or 0) < uni
            ]
    if group_goal or pool.groups is not None:  # bacon sample warns on 0/1 labels with groups
        candidates = without_adaptive_on_binary(candidates, pool.y, group_goal)
    if group_goal:  # paired against the designs that may be recommended
        candidates = _paired_beyond_error(ev, candidates, low)
    best = min(candidates, key=lambda r: (r.labels_needed, DESIGNS.index(r.design)), default=None)
    if best is not None and ranges and math.isfinite(st.variance_df):
        best.labels_range = _labels_range(ev, best.design, best.labels_needed)
    top = None if ev.top is None else st.names[ev.top]
    last_share = moderated_share(st, "uniform", at[-1] / N) if at and len(names) > 1 else 0.0
    if pooling == "separate" and last_share > 0.5:
        st.assumptions.append(
            f"at {at[-1]} labels a group likely has under {MIN_BOOTSTRAP_LABELS}: its interval "
            "is then the estimator's moderated t, taken with its prior (the variance all "
            "labels predict) at full weight, df up to the pooled residuals'"
        )
    if goal.kind == "top":
        st.assumptions.append(
            f"top group and gaps from {ev.basis}"
            + (
                ": each group's correction pulled toward the others' as far as their spread "
                "beyond noise allows, so a group whose few labels happened high is not taken "
                "as the clear leader"
                if "shrunk" in ev.basis
                else ": the top one was picked as the "
                f"{'smallest' if goal.better == 'lower' else 'largest'}, so its gaps are a "
                "little optimistic"
            )
            + lead_note(st, pooling, goal.better)
        )
    withheld_notes(st, rows, pooling)
    st.assumptions.append(ONE_LOOK)
    return PlanResult(
        goal, rows, None if best is None else best.design, st, alpha, top, pooling, from_scratch
    )


#: what the plan's intervals are, beside the ones a study folder reports by default
ONE_LOOK = (
    "intervals of one look, as bacon estimate gives them on a table: on a study folder "
    "(bacon sample starts one) it gives intervals valid at every wave by default, about "
    "1.7 times as wide (a confidence sequence; about 1.1 times with the budget it records "
    "from the start, bacon sample --max-labels), and this plan's with --fixed"
)


def _labels_range(ev: _Evaluator, design: str, point: int) -> tuple[int | None, int | None]:
    """Labels needed in all with the pilot's residual variances at the ends of their
    :data:`RANGE_LEVEL` chi-square interval (``variance_df`` labels), low to high and
    holding ``point`` (near the whole pool the metric need not fall with the variance)."""
    st, df = ev.st, ev.st.variance_df
    out = []
    for q in ((1.0 + RANGE_LEVEL) / 2.0, (1.0 - RANGE_LEVEL) / 2.0):
        f = df / stats.chi2.ppf(q, df)
        scaled = replace(st, sigma2=st.sigma2 * f, s2_pool=st.s2_pool * f, cache={})
        other = _Evaluator(scaled, ev.goal, ev.alpha, ev.from_scratch, ev.pooling)
        out.append(other.labels_needed(design, ev.low))
    found = [point, *(v for v in out if v is not None)]
    return min(found), None if None in out else max(found)


def _cell(ev: _Evaluator, design: str, n: int, metric_name: str) -> dict[str, float]:
    """One budget's figures: the goal's metric, and for a group or pair goal the chance
    its interval is withheld and that the estimator shrinks."""
    cell = {"labels": float(n), metric_name: ev.metric(design, n)}
    if ev.goal.kind != "half-width" or ev.goal.group or ev.goal.pair:
        d = ev.details(design, n)
        if metric_name == "half-width":
            cell[metric_name] = d["half_width"]
        cell["withheld"] = d["withheld"]
        cell["p_shrink"] = d["p_shrink"]
    return cell


def _paired_beyond_error(
    ev: _Evaluator, candidates: list[DesignPlan], low: int
) -> list[DesignPlan]:
    """Drop paired unless it needs fewer labels than every other candidate even with the
    within-prompt correlation :data:`PAIRED_MARGIN_SDS` sds lower (the plan's own error on
    its gain; a named pair adds :data:`PAIR_RHO_SD` for its own correlation)."""
    paired_row = next((r for r in candidates if r.design == "paired"), None)
    others = [r.labels_needed for r in candidates if r.design != "paired" and r.labels_needed]
    if paired_row is None or not others:
        return candidates
    st = ev.st
    sd = math.hypot(st.rho_sd, PAIR_RHO_SD if ev.goal.pair is not None else 0.0)
    low_rho = max(st.rho - PAIRED_MARGIN_SDS * sd, 0.0)
    pessimistic = _Evaluator(
        replace(st, rho=low_rho), ev.goal, ev.alpha, ev.from_scratch, ev.pooling
    )
    need = pessimistic.labels_needed("paired", low)
    best_other, mine = min(others), paired_row.labels_needed or 0
    ratio, more = abs(mine - best_other) / best_other, "more" if mine > best_other else "fewer"
    than = f"{ratio:.0%} {more} labels than" if ratio >= 0.005 else "about as many labels as"
    kept = need is not None and need < best_other
    paired_row.note = (
        f"paired needs {than} the best other design ({mine} against {best_other}); with "
        f"rho {low_rho:.2f} "
        f"({PAIRED_MARGIN_SDS:g} sd below): {need if need is not None else '-'} labels"
        + ("" if kept else ", within the plan's error: not recommended")
        + (f"; {paired_row.note}" if paired_row.note else "")
    )
    return candidates if kept else [r for r in candidates if r.design != "paired"]
