"""A fitted calibrator's pool mean and quantiles: which estimator of
:mod:`bacon_bayes.estimate` makes them, with the settings and notes every estimate shares
(the Calibrator's ``estimate_mean``, ``estimate_quantile`` and ``quantile_grid`` hand over
here)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from bacon_bayes import estimate as est
from bacon_bayes import surrogates as sur
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.quantile import GRID_SIZE
from bacon_bayes.estimate.quantile import quantile_grid as _quantile_grid
from bacon_bayes.results import Estimate, EstimateTable

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

_Result = TypeVar("_Result", Estimate, EstimateTable)


def settings(cal: Calibrator, prompts: bool = True) -> dict[str, Any]:
    """Settings of the estimators (quantiles take item-level designs only: no prompts);
    every estimate asks for them, so a frozen calibrator refuses here when its pool
    has too few fresh labels."""
    if hasattr(cal, "frozen_"):
        from bacon_bayes.frozen import MIN_FRESH_LABELS

        if cal.pool_.n_labeled < MIN_FRESH_LABELS:
            raise ValidationError(
                f"{cal.pool_.n_labeled} fresh label(s) in the new pool; an estimate with "
                f"the saved calibrator needs at least {MIN_FRESH_LABELS} (its correction "
                "and its width come from them): label more items of the new pool"
            )
    kw: dict[str, Any] = {"hajek": cal.hajek, "target": cal.target}
    return {**kw, "prompts": cal.pool_.prompts} if prompts else kw


def mean(cal: Calibrator, alpha: float, method: str) -> Estimate:
    """The pool mean of ``method`` (aee, classical or naive), not yet clipped."""
    cal._check_fitted()
    p = cal.pool_
    if method == "aee":
        e = est.aee_mean(
            p.y,
            cal.surrogate_matrix(),
            pi=p.design,
            alpha=alpha,
            power_tuning=sur.tuned(cal.extras_, cal.power_tuning),
            **settings(cal),
        )
        return note_surrogates(cal, e)
    if method == "classical":
        return est.classical_mean(p.y, pi=p.design, alpha=alpha, **settings(cal))
    if method == "naive":
        return naive(cal, est.naive_mean(p.judge_average(), alpha=alpha))
    raise ValidationError(f"method {method!r} must be 'aee', 'classical' or 'naive'.")


def naive(cal: Calibrator, e: _Result) -> _Result:
    """A naive estimate with why it is none of the label's (``details["not_comparable"]``)."""
    from bacon_bayes.report.text import naive_noted

    return naive_noted(e, cal.pool_, cal.bounds_)


def note_surrogates(cal: Calibrator, e: _Result, combined: bool = True) -> _Result:
    """Name the surrogates behind an AEE estimate (nothing to add for a single one)."""
    if not cal.extras_:
        return e
    names = list(cal.surrogate_names_ if combined else cal.surrogate_names_[:1])
    note: dict[str, Any] = {"surrogates": names}
    if not combined:
        note["surrogates_note"] = "quantiles use the model's own surrogate only"
    return replace(e, details={**e.details, **note})


def quantile_grid(cal: Calibrator) -> np.ndarray:
    """Candidate values for quantiles: the levels, or labels and surrogate quantiles and the
    label's range ends (``bounds_``)."""
    cal._check_fitted()
    p, labels = cal.pool_, cal.pool_.y[cal.pool_.labeled]
    if not labels.size and hasattr(cal, "frozen_"):  # a new pool without labels: the
        probs = np.linspace(0, 1, GRID_SIZE // 2)  # labels the old residuals spread to
        r = np.quantile(cal.frozen_.residuals, probs)
        labels = np.add.outer(np.quantile(cal.surrogate_, probs), r).ravel()
    return _quantile_grid(p.outcome, labels, cal.surrogate_, cal.bounds_)


def quantile(cal: Calibrator, q: float, alpha: float, method: str) -> Estimate:
    """Quantile ``q`` of the labels by ``method`` (aee, classical or naive), not yet clipped."""
    cal._check_fitted()
    p = cal.pool_
    grid = cal.quantile_grid()
    discrete = p.outcome.discrete
    if method == "aee":
        phi_lab, phi_total = cal.crossfit_.cdf_parts(grid)  # no (N, grid) array
        e = est.aee_quantile(
            p.y,
            phi_lab,
            grid,
            q,
            phi_total=phi_total,
            pi=p.propensity,
            alpha=alpha,
            discrete=discrete,
            power_tuning=cal.power_tuning,
            **settings(cal, prompts=False),
        )
        return note_surrogates(cal, e, combined=False)
    if method == "classical":
        return est.classical_quantile(
            p.y,
            grid,
            q,
            pi=p.propensity,
            alpha=alpha,
            discrete=discrete,
            **settings(cal, prompts=False),
        )
    if method == "naive":
        return naive(cal, est.naive_quantile(p.judge_average(), q, alpha=alpha))
    raise ValidationError(f"method {method!r} must be 'aee', 'classical' or 'naive'.")
