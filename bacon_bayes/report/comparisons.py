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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes.order import unique_codes
from bacon_bayes.report.text import guarantee_note

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

__all__ = ["Comparisons", "comparisons", "target_description"]


def target_description(cal: Calibrator) -> tuple[str, str]:
    """The target of the calibrator's intervals (``"pool"`` or ``"population"``) and a
    sentence saying what it means for this pool."""
    pool = cal.pool_
    if cal.target == "pool":
        return "pool", f"the {pool.n_items:,} items of this pool"
    if pool.prompts is not None:
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
        ``resolved`` (the simultaneous interval excludes 0).
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

    @property
    def n_resolved(self) -> int:
        """Pairs whose interval excludes 0."""
        return int(self.differences["resolved"].sum())

    @property
    def best(self) -> str:
        """The group ranked first by its estimate."""
        return str(self.ranks["group"].iloc[0])

    @property
    def best_clear(self) -> bool:
        """Whether the top group's rank interval is ``[1, 1]``."""
        top = self.ranks.iloc[0]
        return bool(top["rank_low"] == 1 and top["rank_high"] == 1)

    @property
    def could_be_first(self) -> list[str]:
        """Groups whose rank interval reaches 1."""
        return [str(g) for g in self.ranks.loc[self.ranks["rank_low"] == 1, "group"]]

    def pairing_note(self) -> str:
        """Whether the intervals are paired, in words."""
        if self.paired:
            column = f" (column {self.prompt!r})" if self.prompt else ""
            return f"paired: intervals clustered by prompt{column}; the groups share prompts"
        if self.n_prompts:
            column = f" (column {self.prompt_column!r})" if self.prompt_column else ""
            return (
                f"not paired: the pool has {self.n_prompts} prompts{column}, but the labels "
                "were not drawn by prompt and the target is this pool, so items are "
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
            "n_pairs": len(self.differences),
            "n_resolved": self.n_resolved,
            "best": self.best,
            "best_clear": self.best_clear,
            "could_be_first": self.could_be_first,
            "differences": _records(self.differences),
            "ranks": _records(self.ranks),
            "plan": self.plan_note,
        }

    def to_text(self) -> str:
        """The "Comparisons" block of ``bacon estimate`` (with the plan's line when the
        best group is not clear)."""
        level = f"{100 * (1 - self.alpha):g}%"
        shown = self.differences.assign(
            CI=[_ci(lo, hi) for lo, hi in zip(self.differences["ci_low"],
                                              self.differences["ci_high"], strict=True)],
            resolved=np.where(self.differences["resolved"], "yes", ""),
        )[["pair", "difference", "CI", "resolved"]]  # fmt: skip
        lines = [
            f"\ncomparisons of {self.group!r} (AEE differences, {level} CIs, "
            f"{self.guarantee}; target: {self.target}):",
            f"{self.pairing_note()}",
            shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"),
            f"{self.n_resolved} of {len(self.differences)} pairs resolved (interval excludes 0)",
            self.best_line(),
        ]
        if self.plan_note and not self.best_clear:
            lines.append(self.plan_note)
        return "\n".join(lines)

    def best_line(self) -> str:
        """Whether the best group is clear, in words."""
        top = self.ranks.iloc[0]
        if self.best_clear:
            return f"best {self.group}: {self.best} (rank interval [1, 1]: clear)"
        return (
            f"best {self.group} not clear: {self.best} ranks first by estimate (rank "
            f"interval [{int(top['rank_low'])}, {int(top['rank_high'])}]); could rank first: "
            f"{', '.join(self.could_be_first)}"
        )


def _ci(lo: float, hi: float) -> str:
    return "no interval" if np.isnan(lo) else f"[{lo:.3f}, {hi:.3f}]"


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    for row in frame.to_dict(orient="records"):
        out.append(
            {
                str(k): (None if isinstance(v, float) and np.isnan(v) else _plain(v))
                for k, v in row.items()
            }
        )
    return out


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def comparisons(
    cal: Calibrator,
    alpha: float = 0.05,
    group: str | None = None,
    plan_note: str | None = None,
    anytime: dict[str, Any] | None = None,
) -> Comparisons:
    """The comparisons of a fitted calibrator's groups (at least two groups); ``group``:
    the grouping's name (default: the pool's group column, else ``"group"``);
    ``plan_note``: the plan's line on the labels that would resolve the rest; ``anytime``:
    ``compare_groups``'s ``anytime`` and ``max_labels`` for the differences and the ranks."""
    diffs = cal.compare_groups(alpha, **(anytime or {}))
    means = cal.estimate_groups(alpha, True)
    ranks = cal.rank_groups(alpha, **(anytime or {}))
    resolved = (diffs.ci_low > 0) | (diffs.ci_high < 0)
    differences = pd.DataFrame(
        {
            "pair": list(diffs.names),
            "difference": diffs.estimate,
            "ci_low": diffs.ci_low,
            "ci_high": diffs.ci_high,
            "resolved": resolved,
        }
    )
    ranked = pd.DataFrame(
        {
            "group": ranks["name"].astype(str),
            "estimate": ranks["estimate"],
            "rank": ranks["rank"].astype(int),
            "rank_low": ranks["rank_low"].astype(int),
            "rank_high": ranks["rank_high"].astype(int),
        }
    )
    target, note = target_description(cal)
    paired = _paired(means.details)
    pool = cal.pool_
    return Comparisons(
        group or pool.group_name or "group", alpha, target, note, paired, differences, ranked,
        plan_note, pool.prompt_name if paired else None, guarantee_note(diffs),
        0 if pool.prompts is None else int(unique_codes(pool.prompts)[0].size),
        pool.prompt_name,
    )  # fmt: skip
