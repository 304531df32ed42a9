"""Comparisons of groups (systems) for the command line, ``--json`` and the HTML report:
pairwise differences with simultaneous intervals, which pairs are resolved, whether the
best group is clear, whether the intervals are paired (clustered by prompt), and the
target every interval is for.

The differences come from :meth:`~bacon_bayes.calibrator.Calibrator.compare_groups` and
the ranks from :meth:`~bacon_bayes.calibrator.Calibrator.rank_groups` (both AEE, at the
same level, simultaneous over all pairs). A pair is *resolved* when its interval
excludes 0; the best group is *clear* when its rank interval is ``[1, 1]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes.estimate.tables import (
    MAX_COMPARED,
    implied_by_groups,
    pair_notes,
    pair_reasons,
    too_many_pairs,
)
from bacon_bayes.order import (
    best_words,
    check_better,
    name_text,
    names_text,
    pair_text,
    unique_codes,
)
from bacon_bayes.report.tables import fixed
from bacon_bayes.report.text import guarantee_note
from bacon_bayes.results import _plain, sure_sign

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.results import EstimateTable

__all__ = [
    "Comparisons",
    "comparisons",
    "comparisons_of",
    "target_description",
    "target_text",
    "uncompared",
]


#: What the header adds to pointwise pair intervals (``bacon estimate --pointwise``).
POINTWISE_NOTE = (
    " (the interval bacon plan --difference sizes{}; the rank intervals below stay simultaneous)"
)

#: More pairs than this: the text shows the best group's and the resolved ones.
SUMMARY_PAIRS = 15


def target_description(cal: Calibrator) -> tuple[str, str]:
    """The target of the calibrator's intervals (``"pool"`` or ``"population"``) and a
    sentence saying what it means for this pool."""
    pool = cal.pool_
    target, note = target_text(cal.target, pool.n_items, pool.prompts is not None)
    if target == "pool" and pool.n_labeled == pool.n_items:
        note += (
            "; every one is labeled, so its means are exact (intervals of width 0) and the "
            "judges add nothing to them: --target population for a population beyond these "
            "items, bacon simulate to measure what the judges would save at a budget"
        )
    return target, note


def target_text(target: str, n_items: int, prompts: bool = False) -> tuple[str, str]:
    """:func:`target_description` from the target, the pool's size and whether it has
    prompts (a streamed pool has no calibrator fitted on it)."""
    if target == "pool":
        return "pool", f"the {n_items:,} items of this pool"
    if prompts:
        return "population", (
            "prompts sampled from a larger population; variance clustered by prompt"
        )
    return "population", "items sampled from a larger population"


def _paired(details: dict[str, Any]) -> bool:
    return bool(details.get("clustered_by_prompt", False))


@dataclass(frozen=True)
class Comparisons:
    """What the comparisons of the groups say.

    Attributes
    ----------
    group : str
        Name of the grouping (e.g. the column, ``"system"``).
    alpha : float
        1 - the joint confidence level of the differences and ranks.
    target, target_note : str
        The target of the intervals and what it means for the pool.
    paired : bool
        Whether the intervals are clustered by prompt (a design that drew prompts, or
        the population target with prompts), so that what a prompt does to both groups
        cancels in their difference.
    differences : DataFrame
        One row per pair: ``pair``, ``difference``, ``ci_low``, ``ci_high``,
        ``resolved`` (the interval excludes 0; simultaneous unless ``pointwise``),
        ``group_a``, ``group_b`` (the pair's groups: ``pair`` is ``"a - b"``).
    ranks : DataFrame
        ``group``, ``estimate``, ``rank``, ``rank_low``, ``rank_high``, best first.
    plan_note : str, optional
        The labels that ``bacon plan`` says would resolve the rest
        (:func:`bacon_bayes.planning.resolution_note`, given by the caller).
    prompt : str, optional
        The column of the prompts the intervals are clustered by, named in the note.
    guarantee : str
        Which guarantee the differences' intervals carry (:func:`~.text.guarantee_note`).
    n_prompts : int
        Prompts the pool has (0: none), paired or not.
    prompt_column : str, optional
        Their column.
    pointwise : bool
        Whether each pair's interval is at its own level (``bacon estimate --pointwise``:
        the interval ``bacon plan --difference`` sizes); the ranks stay simultaneous.
    withheld : dict
        The pairs withheld for a reason of their own (too few labeled prompts for a
        simultaneous interval), by name, with the whole reason (the ``note`` column has
        its first words); a pair withheld for its groups is said by the group table.
    better : str
        Which way a mean is better (``"higher"`` or ``"lower"``: an error score), which
        the ranks, "best" and the shown pairs follow.
    direction_note : str, optional
        Where ``better`` was not given and the label looks like an error score: the hint
        to pass ``--better lower``.
    baseline : str, optional
        The group every other is compared against (``bacon estimate --baseline``): the
        differences are ``g - baseline``, their joint intervals over those alone.
    ranks_skipped : str, optional
        Why there are no ranks (``ranks`` empty): past
        :data:`~bacon_bayes.estimate.tables.MAX_COMPARED` groups against a baseline, the
        ``m - 1`` comparisons are made but the ranks would need every pair.
    """

    group: str
    alpha: float
    target: str
    target_note: str
    paired: bool
    differences: pd.DataFrame
    ranks: pd.DataFrame
    plan_note: str | None = None
    prompt: str | None = None
    guarantee: str = "simultaneous, max-|t|: all hold together"
    n_prompts: int = 0
    prompt_column: str | None = None
    pointwise: bool = False
    withheld: dict[str, str] = field(default_factory=dict)
    better: str = "higher"
    direction_note: str | None = None
    baseline: str | None = None
    ranks_skipped: str | None = None

    @property
    def n_resolved(self) -> int:
        """Pairs whose interval excludes 0."""
        return int(self.differences["resolved"].sum())

    @property
    def best(self) -> str | None:
        """The group ranked first by its estimate (None where the ranks were skipped)."""
        return None if self.ranks.empty else str(self.ranks["group"].iloc[0])

    @property
    def shown_best(self) -> str | None:
        """The group whose pairs a summary shows: :attr:`best`, or where that group has no
        labels (UNVALIDATED, its pairs without an interval) the first ranked with labels."""
        if self.ranks.empty or "n_labeled" not in self.ranks:
            return self.best
        labeled = self.ranks.loc[self.ranks["n_labeled"] > 0, "group"]
        return str(labeled.iloc[0]) if len(labeled) else self.best

    @property
    def best_clear(self) -> bool:
        """Whether the top group's rank interval is ``[1, 1]`` (False without ranks)."""
        if self.ranks.empty:
            return False
        top = self.ranks.iloc[0]
        return bool(top["rank_low"] == 1 and top["rank_high"] == 1)

    @property
    def could_be_first(self) -> list[str]:
        """Groups whose rank interval reaches 1."""
        return [str(g) for g in self.ranks.loc[self.ranks["rank_low"] == 1, "group"]]

    def _could_be_first_text(self) -> str:
        """:attr:`could_be_first`, a group without labels marked (its rank interval spans
        every rank because nothing is known of it, not because it is close)."""
        first = self.ranks.loc[self.ranks["rank_low"] == 1]
        counts = first["n_labeled"] if "n_labeled" in first else [1] * len(first)
        return ", ".join(
            f"{name_text(g)} (no labels)" if n == 0 else name_text(g)
            for g, n in zip(first["group"], counts, strict=True)
        )

    def pairing_note(self) -> str:
        """Whether the intervals are paired, in words."""
        if self.paired:
            column = f" (column {self.prompt!r})" if self.prompt else ""
            return f"paired: intervals clustered by prompt{column}; the groups share prompts"
        if self.n_prompts:
            column = f" (column {self.prompt_column!r})" if self.prompt_column else ""
            return (
                f"not paired: the pool has {self.n_prompts} prompts{column}, but records no "
                "design that drew prompts and the target is this pool, so items are "
                "treated as independent (folds are split by prompt); --target population "
                "clusters the intervals by prompt"
            )
        return "not paired: items treated as independent (no prompts)"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "group": self.group,
            "alpha": self.alpha,
            "target": self.target,
            "target_note": self.target_note,
            "paired": self.paired,
            "prompt": self.prompt,
            "guarantee": self.guarantee,
            "pointwise": self.pointwise,
            "n_pairs": len(self.differences),
            "n_resolved": self.n_resolved,
            "best": self.best,
            "best_clear": self.best_clear,
            "better": self.better,
            # "best" as the text's best line reads it, and its warning (the label looks
            # like an error score and --better was not given), None where there is none
            "best_by": best_words(self.better),
            "warning": self.direction_note,
            "could_be_first": self.could_be_first,
            # "name" and "estimate" as in every group table's rows (the older "pair",
            # "difference" and "group" are kept)
            # "groups": the pair's two groups, a before b (its name "a - b" cannot be
            # split back where a group's name holds " - ")
            "differences": [
                {**row, "groups": [a, b]}
                for row, a, b in zip(
                    _records(
                        self.differences.assign(
                            name=self.differences["pair"],
                            estimate=self.differences["difference"],
                        )
                    ),
                    *_sides(self.differences),
                    strict=True,
                )
            ],
            "ranks": _records(self.ranks.assign(name=self.ranks["group"])),
            "plan": self.plan_note,
            "no_interval": dict(self.withheld),
            "baseline": self.baseline,
            "ranks_skipped": self.ranks_skipped,
            "family": self.family_line(),
        }

    def shown_pairs(self, pairs: str = "summary") -> pd.DataFrame:
        """The pairs the text shows: ``"all"``, or (``"summary"``) the pairs of the best
        group with labels (:attr:`shown_best`) and the other resolved ones, when there are
        more than :data:`SUMMARY_PAIRS`."""
        frame = self.differences
        if pairs == "all" or len(frame) <= SUMMARY_PAIRS or self.baseline is not None:
            return frame
        a, b = _sides(frame)
        best = (a == self.shown_best) | (b == self.shown_best)
        return frame[best | frame["resolved"].to_numpy()]

    def to_text(self, pairs: str = "summary") -> str:
        """The "Comparisons" block of ``bacon estimate`` (with the plan's line when the
        best group is not clear); ``pairs``: ``"summary"`` (the best group's pairs and the
        other resolved ones, when there are many) or ``"all"``."""
        level = f"{100 * (1 - self.alpha):g}%"
        chosen = self.shown_pairs(pairs)
        columns = ["pair", "difference", "CI", "resolved"] + (["note"] if "note" in chosen else [])
        shown = chosen.assign(
            pair=[pair_text(a, b) for a, b in zip(*_sides(chosen), strict=True)],
            CI=[_ci(lo, hi) for lo, hi in zip(chosen["ci_low"], chosen["ci_high"], strict=True)],
            resolved=np.where(chosen["resolved"], "yes", ""),
        )[columns]
        left = len(self.differences) - len(chosen)
        more = (
            f" (shown: {name_text(self.shown_best)}'s pairs and the resolved ones; --pairs all for "
            f"the other {left})"
            if left
            else ""
        )
        against = "" if self.baseline is None else f" against {name_text(self.baseline)}"
        lines = [
            f"\ncomparisons of {self.group!r}{against} (AEE differences, {level} CIs, "
            f"{self.guarantee}{self._pointwise_note()}; target: {self.target}):",
            *([self.family_line()] if self.baseline is not None else []),
            f"{self.pairing_note()}",
            shown.to_string(index=False, float_format=lambda v: fixed(v, 4)),
            *self.withheld_lines(chosen["pair"]),
            f"{self.n_resolved} of {len(self.differences)} {self.what_resolved()} resolved "
            f"(interval excludes 0){more}",
            *([f"warning: {self.direction_note}"] if self.direction_note else []),
            self.best_line(),
        ]
        if self.plan_note and not self.best_clear and self.ranks_skipped is None:
            lines.append(self.plan_note)
        return "\n".join(lines)

    def what_resolved(self) -> str:
        """What the rows are: "pairs", or the comparisons with the baseline."""
        if self.baseline is None:
            return "pairs"
        return f"comparisons with {name_text(self.baseline)}"

    def family_line(self) -> str:
        """What the joint intervals hold over, in words: all pairs, or (against a
        baseline) its ``m - 1`` comparisons alone; each on its own where pointwise."""
        k = len(self.differences)
        if self.baseline is None:
            return (
                "each pair on its own (pointwise)"
                if self.pointwise
                else (f"the joint intervals hold together over all {k} pairs")
            )
        base = name_text(self.baseline)
        if self.pointwise:
            return f"each of the {k} comparisons with {base} on its own (pointwise)"
        return (
            f"the joint intervals hold together over the {k} comparisons with {base} alone, "
            f"not over all {(k + 1) * k // 2} pairs: narrower than the all-pairs intervals"
        )

    def withheld_lines(self, shown: pd.Series | None = None) -> list[str]:
        """One line per reason of :attr:`withheld`: "no interval for <pairs>: <reason>",
        naming the ``shown`` pairs (default: all) and counting the others."""
        names = set(self.differences["pair"] if shown is None else shown)
        by_reason: dict[str, list[str]] = {}
        for pair, reason in self.withheld.items():
            by_reason.setdefault(reason, []).append(pair)
        shown_as = {  # ' M8' - M9 as the table shows it; a name with a comma quoted whole
            p: pair_text(a, b)
            for p, a, b in zip(self.differences["pair"], *_sides(self.differences), strict=True)
        }
        lines = []
        for reason, pairs in by_reason.items():
            named = [p for p in pairs if p in names]
            rest = f"{len(pairs) - len(named)} pair(s) not shown"
            if named:
                listed = ", ".join(
                    shown_as[p] if p in shown_as and not re.search("[,;]", p) else names_text([p])
                    for p in named
                )
                listed += f" and {rest}" if len(named) < len(pairs) else ""
            else:
                listed = rest
            lines.append(f"no interval for {listed}: {reason}")
        return lines

    def _pointwise_note(self) -> str:
        """:data:`POINTWISE_NOTE` for pointwise pairs (anytime ones: the plan's is one
        look's, ``--fixed``); "" for simultaneous ones."""
        if not self.pointwise:
            return ""
        anytime = "every wave" in self.guarantee
        return POINTWISE_NOTE.format(", at one look: --fixed" if anytime else "")

    def best_line(self) -> str:
        """Whether the best group is clear, in words (best: the highest mean, or the
        lowest where :attr:`better` is ``"lower"``, said); without ranks, why."""
        if self.ranks_skipped is not None or self.ranks.empty:
            return f"ranks of {self.group!r} skipped: {self.ranks_skipped or 'no groups'}"
        top = self.ranks.iloc[0]
        best = f"best {self.group}" + (
            f" ({best_words(self.better)})" if self.better == "lower" else ""
        )
        hinted = self.direction_note and self.better != "lower"  # --better not given
        if hinted:  # looks like an error score
            best = f"{self.group} with the highest mean"
        if self.best_clear:
            line = f"{best}: {name_text(self.best)} (rank interval [1, 1]: clear)"
        else:
            line = (
                f"{best} not clear: {name_text(self.best)} ranks first by estimate (rank "
                f"interval [{int(top['rank_low'])}, {int(top['rank_high'])}]); could rank "
                f"first: {self._could_be_first_text()}"
            )
        if self.shown_best != self.best:
            line += (
                f"; {name_text(self.best)} has no labels (UNVALIDATED: the judges' mean with "
                f"the pool's correction), the first with labels is {name_text(self.shown_best)}"
            )
        if hinted:
            line += (
                f"; the label looks like an error score: the highest mean is the worst "
                f"{self.group} unless higher is better (--better lower ranks the lowest first)"
            )
        return line


def _sides(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The two groups of each pair of ``frame``: its ``group_a`` and ``group_b`` columns
    (a frame built without them: its ``pair`` names split at the first " - ")."""
    if "group_a" in frame and "group_b" in frame:
        return frame["group_a"].astype(str).to_numpy(), frame["group_b"].astype(str).to_numpy()
    sides = [[*str(p).split(" - ", 1), ""] for p in frame["pair"]]
    return np.array([s[0] for s in sides], dtype=object), np.array(
        [s[1] for s in sides], dtype=object
    )


def _ci(lo: float, hi: float) -> str:
    return "no interval" if np.isnan(lo) else f"[{fixed(lo, 3)}, {fixed(hi, 3)}]"


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [_plain(row) for row in frame.to_dict(orient="records")]


def uncompared(n_groups: int, group: str) -> str | None:
    """The note of ``bacon estimate`` where its ``n_groups`` groups are too many to
    compare pair by pair: their means are printed, their differences and ranks skipped
    (why, and the fix); None where they are compared."""
    why = too_many_pairs(n_groups)
    if why is None:
        return None
    return (
        f"comparisons of {group!r} (differences and rank intervals) skipped, the group means "
        f"kept: {why}"
    )


def comparisons(
    cal: Calibrator,
    alpha: float = 0.05,
    group: str | None = None,
    plan_note: str | None = None,
    anytime: dict[str, Any] | None = None,
    simultaneous: bool = True,
    better: str | None = None,
    baseline: str | None = None,
) -> Comparisons:
    """The comparisons of a fitted calibrator's groups (at least two groups); ``group``:
    the grouping's name (default: the pool's group column, else ``"group"``);
    ``plan_note``: the plan's line on the labels that would resolve the rest; ``anytime``:
    ``compare_groups``'s ``anytime`` and ``max_labels`` for the differences and the ranks;
    ``simultaneous=False``: each pair's interval at its own level (the one ``bacon plan
    --difference`` sizes), the ranks still from the simultaneous ones; ``better``: which
    way a mean is better (``"higher"``, the default, or ``"lower"``), which the ranks
    follow; not given, a label that looks like an error score gets the hint to give it,
    and ``"lower"`` on an error score stored as minus its penalty the hint against it
    (:func:`~bacon_bayes.doctor.pooled.better_hint`); ``baseline``: a group's name, the
    differences every other group's against it, joint over those alone (the ranks still
    from all pairs)."""
    from bacon_bayes.doctor.pooled import better_hint

    pool = cal.pool_
    way = check_better(better)
    target, note = target_description(cal)
    n_prompts = 0 if pool.prompts is None else int(unique_codes(pool.prompts)[0].size)
    n_groups = 0 if pool.groups is None else int(unique_codes(pool.groups)[0].size)
    ranked = baseline is None or too_many_pairs(n_groups) is None
    return comparisons_of(
        cal.estimate_groups(alpha, True), cal.bounds_, alpha, group or pool.group_name or
        "group", (target, note), plan_note=plan_note, prompt=pool.prompt_name,
        n_prompts=n_prompts,
        diffs=cal.compare_groups(alpha, simultaneous, baseline=baseline, **(anytime or {})),
        ranks=(
            cal.rank_groups(alpha, descending=way == "higher", **(anytime or {}))
            if ranked
            else None
        ),
        better=way,
        direction_note=better_hint(pool, cal.bounds_, better), baseline=baseline,
    )  # fmt: skip


def comparisons_of(
    means: EstimateTable,
    bounds: tuple[float, float],
    alpha: float,
    group: str,
    target: tuple[str, str],
    *,
    plan_note: str | None = None,
    prompt: str | None = None,
    n_prompts: int = 0,
    diffs: EstimateTable | None = None,
    ranks: pd.DataFrame | None = None,
    better: str = "higher",
    direction_note: str | None = None,
    baseline: str | None = None,
) -> Comparisons:
    """The comparisons of the AEE group table ``means`` (simultaneous intervals, at
    least two groups), as :meth:`~bacon_bayes.calibrator.Calibrator.compare_groups` and
    :meth:`~bacon_bayes.calibrator.Calibrator.rank_groups` give them: in memory from a
    calibrator, or from a streamed pool's table. ``bounds``: the label's range (a
    difference lies within ``hi - lo``); ``target``: the target and its sentence;
    ``prompt``: the prompt column, named when the intervals are clustered by it;
    ``n_prompts``: the prompts the pool has; ``diffs``, ``ranks``: the differences and
    ranks when the caller has them (the calibrator's, anytime ones included); ``better``:
    which way a mean is better (the ranks, "best"); ``direction_note``: the hint to give
    it; ``baseline``: a group's name, every other group compared against it alone (past
    :data:`~bacon_bayes.estimate.tables.MAX_COMPARED` groups too: the ``m - 1``
    comparisons, the ranks skipped, which would need every pair)."""
    from bacon_bayes import estimate as est

    lo, hi = bounds
    if diffs is None:  # the groups' joint intervals where they imply narrower ones
        diffs = implied_by_groups(means, est.compare(means, baseline=baseline))
        diffs = diffs.clip(lo - hi, hi - lo)
    too_many = too_many_pairs(len(means)) if baseline is not None else None
    skipped = None
    if too_many is not None:  # every group against the baseline: no ranks
        m = len(means)
        skipped = (
            f"{m} groups are too many to rank (rank intervals need all {m * (m - 1) // 2:,} "
            f"pairwise comparisons; at most {MAX_COMPARED} groups); the {m - 1} comparisons "
            f"with {name_text(str(baseline))} need only their own"
        )
        ranks = means.to_frame().assign(rank=0, rank_low=0, rank_high=0).iloc[:0]
    elif ranks is None:
        frame = means.to_frame()
        descending = check_better(better) == "higher"
        for k, v in est.rank_intervals(means, descending=descending, diffs=diffs).items():
            frame[k] = v
        ranks = frame.sort_values("rank").reset_index(drop=True)
    resolved = sure_sign(diffs.ci_low, diffs.ci_high) != 0
    sides = [(str(a), str(b)) for a, b in diffs.details["pairs"]]
    differences = pd.DataFrame(
        {
            "pair": list(diffs.names),
            "difference": diffs.estimate,
            "ci_low": diffs.ci_low,
            "ci_high": diffs.ci_high,
            "resolved": resolved,
            "group_a": [a for a, _ in sides],
            "group_b": [b for _, b in sides],
        }
    )
    notes = pair_notes(means, diffs)
    if any(notes):
        differences["note"] = notes
    ranked = pd.DataFrame(
        {
            "group": ranks["name"].astype(str),
            "estimate": ranks["estimate"],
            "rank": ranks["rank"].astype("Int64"),
            "rank_low": ranks["rank_low"].astype(int),
            "rank_high": ranks["rank_high"].astype(int),
            "n_labeled": ranks["n_labeled"].astype(int),
        }
    )
    paired = _paired(means.details)
    return Comparisons(
        group, alpha, target[0], target[1], paired, differences, ranked, plan_note,
        prompt if paired else None, guarantee_note(diffs), n_prompts, prompt,
        diffs.simultaneous == "none", pair_reasons(means, diffs), check_better(better),
        direction_note, baseline, skipped,
    )  # fmt: skip
