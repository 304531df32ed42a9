"""Rank sets and tiers of Bradley-Terry strengths, over the models with an interval.

A model without an interval (:mod:`~bacon_bayes.estimate.bt_guards`: no or too few
labeled comparisons, votes all won or all lost) has a strength its votes do not check: it
is set aside (:func:`set_aside`), not ranked and in no tier. Ranked beside the others, its
difference to every model has no interval, so it is "not distinguishable" from any: one
new model with one labeled win led tier 1 and pulled all 20 others into it (tester A,
finding 2).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from bacon_bayes.estimate.groups import compare, rank_intervals
from bacon_bayes.results import EstimateTable

__all__ = ["rank_sets", "set_aside", "tiers"]


def _answered(table: EstimateTable) -> np.ndarray:
    return np.isfinite(table.ci_low) & np.isfinite(table.ci_high)


def set_aside(table: EstimateTable) -> list[str]:
    """The models without an interval, strongest first: neither ranked nor in a tier
    (their reasons in ``details["no_interval"]``)."""
    answered = _answered(table)
    order = np.argsort(-table.estimate, kind="stable")
    return [table.names[k] for k in order if not answered[k]]


def _simultaneous_diffs(table: EstimateTable, alpha: float) -> EstimateTable:
    return compare(replace(table, alpha=alpha), simultaneous="maxt")


def rank_sets(table: EstimateTable, alpha: float = 0.05) -> pd.DataFrame:
    """Each model's rank (1 = strongest) and a rank set ``[rank_low, rank_high]``
    holding for all models jointly with ``1 - alpha`` (from the simultaneous max-|t|
    intervals of all pairwise differences; :func:`~bacon_bayes.estimate.groups.rank_intervals`),
    among the models with an interval (the others: :func:`set_aside`)."""
    sub = table.take(np.flatnonzero(_answered(table)))
    columns = ["name", "estimate", "rank", "rank_low", "rank_high"]
    if len(sub) < 2:
        one = {"rank": 1, "rank_low": 1, "rank_high": 1} if len(sub) else {}
        return pd.DataFrame({"name": list(sub.names), "estimate": sub.estimate, **one},
                            columns=columns)  # fmt: skip
    ranks = rank_intervals(sub, diffs=_simultaneous_diffs(sub, alpha))
    frame = pd.DataFrame({"name": list(sub.names), "estimate": sub.estimate, **ranks})
    return frame.sort_values("rank", kind="stable").reset_index(drop=True)


def tiers(table: EstimateTable, alpha: float = 0.05) -> list[list[str]]:
    """Models in tiers, strongest first: going down the estimates, a model joins the
    first tier whose leader it is not distinguishable from at joint level ``1 - alpha``
    (simultaneous intervals of the differences), else opens a tier. A model below tier 1
    is resolved below the leaders above it; one whose rank set holds 1 is in tier 1.
    Only the models with an interval (the others: :func:`set_aside`)."""
    sub = table.take(np.flatnonzero(_answered(table)))
    if len(sub) < 2:
        return [list(sub.names)] if len(sub) else []
    diffs = _simultaneous_diffs(sub, alpha)
    sure = set()
    for k, (p, q) in enumerate(diffs.details["pairs"]):
        if diffs.ci_low[k] > 0 or diffs.ci_high[k] < 0:
            sure.add((p, q))
            sure.add((q, p))
    order = [sub.names[k] for k in np.argsort(-sub.estimate, kind="stable")]
    out: list[list[str]] = []
    for name in order:
        tier = next((t for t in out if (t[0], name) not in sure), None)
        out.append([name]) if tier is None else tier.append(name)
    return out


def tier_order_notes(table: EstimateTable, tiered: list[list[str]]) -> list[str]:
    """Where the ``tiered`` models (:func:`tiers`) are not in the order of their
    strengths: a tier's leader above models of an earlier tier, which stayed there because
    their wide intervals do not tell them from that tier's leader (tester D finding 2:
    koala-13b, 8th, in tier 2 below mpt-7b-chat, 10th, in tier 1). One line per tier."""
    est = dict(zip(table.names, np.asarray(table.estimate, dtype=float), strict=True))
    out = []
    for k, tier in enumerate(tiered[1:], start=2):
        lead = tier[0]
        below = [n for t in tiered[: k - 1] for n in t if est[n] < est[lead]]
        if below:
            out.append(
                f"tier {k}'s leader {lead} has a higher strength than {', '.join(below)} "
                f"of {'tier 1' if k == 2 else 'the tiers above'}: tiers are not in the order "
                "of the strengths: a model joins the first tier whose leader it is not "
                "distinguishable from, which a wide interval (few votes) allows, and is "
                "not resolved above the tiers below"
            )
    return out
