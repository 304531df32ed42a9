"""The difference of two Bradley-Terry strengths with its pointwise interval.

``bacon plan --pairwise --difference A B`` sizes a wave for the two-sided test of
``theta_A - theta_B`` at level ``alpha`` (``planning.pairwise.plan_pairwise`` with
``pair=``); :func:`strength_difference` is the estimate that test reads: the difference
of two rows of a strengths table (``bradley_terry.bradley_terry``), its standard error
from the joint covariance, the Wald interval, and ``P(A beats B)``
(``bradley_terry.win_probability``). Rank sets and tiers are
simultaneous over every pair of models, a far stricter level than this one pair's.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import stats

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.bradley_terry import ELO, win_probability
from bacon_bayes.results import Estimate, EstimateTable

__all__ = ["strength_difference"]


def strength_difference(table: EstimateTable, i: str, j: str, alpha: float = 0.05) -> Estimate:
    """``theta_i - theta_j`` on the table's scale (log-odds or Elo points), pointwise.

    Parameters
    ----------
    table : EstimateTable
        Bradley-Terry strengths with their joint covariance.
    i, j : str
        The two models.
    alpha : float
        One minus the confidence level of the interval (the plan's test level).

    Returns
    -------
    Estimate
        The difference, its standard error and ``1 - alpha`` Wald interval;
        ``details["win_probability"]``: ``P(i beats j)`` and its interval. When either
        model has no interval (no or too few labeled comparisons, separated votes) the
        difference has none either (NaN; ``details["no_interval"]`` names the model).
    """
    if i == j:
        raise ValidationError(f"--difference {i} {j} names one model twice; name two models.")
    win = win_probability(table, i, j, alpha)  # checks alpha and the names
    p, q = table.names.index(i), table.names.index(j)
    d = float(table.estimate[p] - table.estimate[q])
    se = float(win.details["se_logit"]) * (ELO if table.details.get("scale") == "elo" else 1.0)
    bare = [n for n, r in ((i, p), (j, q)) if not np.isfinite(table.ci_low[r])]
    details: dict = {"models": [i, j], "logit_difference": float(win.details["logit_difference"])}
    if bare:
        why = table.details.get("no_interval", {}).get(bare[0], "none in the strengths table")
        details["no_interval"] = f"{bare[0]} has no interval: {why}"
        nan = float("nan")
        details["win_probability"] = {"estimate": win.estimate, "ci_low": nan, "ci_high": nan}
        return replace(win, estimand=f"{i} - {j}", estimate=d, se=nan, ci_low=nan,
                       ci_high=nan, details=details)  # fmt: skip
    half = float(stats.norm.isf(alpha / 2.0)) * se
    details["win_probability"] = {"estimate": win.estimate, "ci_low": win.ci_low,
                                  "ci_high": win.ci_high}  # fmt: skip
    return replace(win, estimand=f"{i} - {j}", estimate=d, se=se, ci_low=d - half,
                   ci_high=d + half, details=details)  # fmt: skip
