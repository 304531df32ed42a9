"""Planning a label budget (``bacon plan``): the labels each design needs for a goal.

:func:`plan` takes a pool (judge scores, the labels so far) and a :class:`Goal` (a CI
half-width of the pool mean, of a group's mean or of a difference of two groups; the
power to detect a difference between two groups; the power to resolve the top group) and
returns a :class:`PlanResult`: for each design (uniform, stratified by group, paired by
prompt, adaptive) the labels needed and the predicted precision at given budgets, with a
recommendation. The statistics and closed forms: :mod:`bacon_bayes.planning.predict`;
what the group estimator does at a budget (pooling, withheld intervals, shrunk widths):
:mod:`bacon_bayes.planning.outlook`; the comparisons' line on the labels that would resolve the
top group: :mod:`bacon_bayes.planning.note`.
"""

from __future__ import annotations

from bacon_bayes.planning.note import resolution_note
from bacon_bayes.planning.plan import DesignPlan, Goal, PlanResult, plan
from bacon_bayes.planning.predict import (
    DESIGNS,
    PilotStatistics,
    Prediction,
    pilot_statistics,
    predict,
)

__all__ = [
    "DESIGNS",
    "DesignPlan",
    "Goal",
    "PilotStatistics",
    "PlanResult",
    "Prediction",
    "pilot_statistics",
    "plan",
    "predict",
    "resolution_note",
]
