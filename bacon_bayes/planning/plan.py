"""The goals of a plan, its designs' rows, the recommendation and the result (:func:`plan`;
the search for the labels each design needs: :mod:`bacon_bayes.planning.search`; the
statistics behind it: :mod:`bacon_bayes.planning.predict`)."""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from typing import Any, Literal

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.core import RANGE_LEVEL
from bacon_bayes.estimate.groups import MIN_BOOTSTRAP_LABELS
from bacon_bayes.order import best_words, check_better, names_text, pair_text, unique_codes
from bacon_bayes.planning.budgets import budget_labels
from bacon_bayes.planning.degrees import moderated_share
from bacon_bayes.planning.outlook import (
    POOLINGS,
    labels_in_group_alone,
    lead_note,
    smallest_lead,
    withheld_notes,
    without_adaptive_on_binary,
)
from bacon_bayes.planning.predict import (
    DESIGNS,
    ROUGH_WEIGHT,
    PilotStatistics,
    pilot_statistics,
    predict,
)
from bacon_bayes.planning.search import (
    Evaluator,
    labels_range,
    paired_beyond_error,
)
from bacon_bayes.pool import EvalPool
from bacon_bayes.sampling import OPTIMISTIC_RATIO

__all__ = ["DesignPlan", "Goal", "PlanResult", "plan"]

#: The interval a pair's goal sizes and the option that prints it (default: simultaneous)
OWN_PAIR = "the pair's own interval: estimate --pointwise"

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

    def describe(self, group: str = "group") -> str:
        """The goal in words; ``group``: what a group is called (the group column's name,
        e.g. "top system")."""
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
            f"power {self.power:g} that the top {group} ({best_words(self.better)}) is resolved "
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
    #: what a group is called in the text: the group column's name (e.g. "top system")
    group: str = "group"

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": {**self.goal.__dict__, "description": self.goal.describe(self.group)},
            "alpha": self.alpha,
            "pooling": self.pooling,
            "top_group": self.top_group,
            "recommended": self.recommended,
            "designs": [d.to_dict() for d in self.designs],
            "pilot": self.pilot.to_dict(),
        }

    def to_text(self) -> str:
        metric = "half-width" if self.goal.kind == "half-width" else "power"
        lines = [f"goal: {self.goal.describe(self.group)} (alpha {self.alpha:g})"]
        if self.top_group is not None:
            best = best_words(self.goal.better)
            lines.append(f"top {self.group} in the pilot ({best}): {names_text([self.top_group])}")
        budgets = [b["labels"] for b in self.designs[0].at_budgets] if self.designs else []
        table = [
            [
                "design",
                "labels needed",
                "new",
                *(f"{metric} @{int(b) if float(b).is_integer() else f'{b:g}'}" for b in budgets),
            ],
            *(
                [
                    d.design,
                    "-" if d.labels_needed is None else str(d.labels_needed),
                    "-" if d.new_labels is None else str(d.new_labels),
                    *(_figure(b[metric], metric) for b in d.at_budgets),
                ]
                for d in self.designs
            ),
        ]
        widths = [max(len(row[k]) for row in table if k < len(row)) for k in range(len(table[0]))]

        def row_text(row: list[str]) -> str:  # columns two spaces apart, numbers right
            cells = [row[0].ljust(widths[0])]
            cells += [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=False)]
            return "  ".join(cells)

        head = row_text(table[0]).rstrip()
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
        for d, row in zip(self.designs, table[1:], strict=True):
            lines.append(f"{row_text(row)}  {d.note}".rstrip())
        lines.append("")
        chosen = next((d for d in self.designs if d.design == self.recommended), None)
        if chosen is None:
            lines.append("recommendation: no design reaches the goal short of labeling all.")
        else:
            lines.append(
                f"recommended: {chosen.design} ({chosen.labels_needed} labels in all, "
                f"{chosen.new_labels} more{self._group_share(chosen)}){self._range(chosen)}"
            )
            if chosen.command:
                lines.append(f"  run: {chosen.command}")
            lines += self._group_alone(chosen)
        lead = (
            smallest_lead(self.pilot, self.pooling, self.goal.better)
            if self.goal.kind == "top"
            else None
        )
        if lead is not None and lead < 1.0:  # as bacon estimate's line says of it
            lines.append(
                f"  caution: the top {self.group}'s lead in the pilot is {lead:.1f} standard "
                f"errors, under one: this plan takes it as the truth, and if the {self.group} "
                "means are equal no number of labels resolves the top"
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


def _figure(value: float, metric: str) -> str:
    """A plan table's cell: a power to 3 decimals (``<0.001`` below), a half-width to 4
    significant figures."""
    if metric != "power":
        return f"{value:.4g}"
    return "<0.001" if 0 < value < 0.0005 else f"{value:.3f}"


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
    pending: int = 0,
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
    pending : int
        Items a study's waves selected that have no label yet (a study read with
        ``--allow-pending``): they are among the new labels, so each ``bacon sample``
        command draws that many fewer and a design they already cover gets none; said in
        the assumptions.
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
        :data:`~bacon_bayes.planning.search.PAIRED_MARGIN_SDS` sds below the plan's (its
        gain beyond the plan's error: the correlation's posterior sd, and
        :data:`~bacon_bayes.planning.search.PAIR_RHO_SD` for a named pair).
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
    ev = Evaluator(st, goal, alpha, from_scratch, pooling)
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
        draw = None if new is None else new - pending  # the pending items come as well
        cmd = None if draw is None else _command(d, draw, group_column, pool_arg, sample_args, wave)
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
        candidates = paired_beyond_error(ev, candidates, low)
    best = min(candidates, key=lambda r: (r.labels_needed, DESIGNS.index(r.design)), default=None)
    if (
        best is not None
        and best.labels_needed is not None
        and ranges
        and math.isfinite(st.variance_df)
    ):
        best.labels_range = labels_range(ev, best.design, best.labels_needed)
    top = None if ev.top is None else st.names[ev.top]
    last_share = moderated_share(st, "uniform", at[-1] / N) if at and len(names) > 1 else 0.0
    if pooling == "separate" and last_share > 0.5:
        st.assumptions.append(
            f"at {at[-1]} labels a group likely has under {MIN_BOOTSTRAP_LABELS}: its interval "
            "is then the estimator's moderated t, taken with its prior (the variance all "
            "labels predict) at full weight, df up to the pooled residuals'"
        )
    word = group_column or pool.group_name or "group"  # "top system"
    if goal.kind == "top":
        st.assumptions.append(
            f"top {word} and gaps from {ev.basis}"
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
    if pending:
        st.assumptions.append(
            f"{pending} items the study's waves selected have no label yet: they are counted "
            f"among the new labels, so each bacon sample command draws {pending} fewer (a "
            "design they already cover gets none); label them and bacon label import them"
        )
    return PlanResult(
        goal, rows, None if best is None else best.design, st, alpha, top, pooling, from_scratch,
        word,
    )  # fmt: skip


#: what the plan's intervals are, beside the ones a study folder reports by default
ONE_LOOK = (
    "intervals of one look, as bacon estimate gives them on a table: on a study folder "
    "(bacon sample starts one) it gives intervals valid at every wave by default, about "
    "1.7 times as wide (a confidence sequence; about 1.1 times with the budget it records "
    "from the start, bacon sample --max-labels), and this plan's with --fixed"
)


def _cell(ev: Evaluator, design: str, n: int, metric_name: str) -> dict[str, float]:
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
