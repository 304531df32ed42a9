"""The judge model's learning curve: how the pilot's residual variance shrinks when the
estimator's model is fitted on more labels (:func:`learning_curve`, used by
:func:`~bacon_bayes.planning.predict.predict`).

The pilot's cross-fitted residuals come from fold models trained on ``m0`` labels (about
``n0 (K - 1) / K``); at a budget of ``n`` labels the estimator's fold models train on
``m = n (K - 1) / K``. A linear smoother with ``d`` effective degrees of freedom has
out-of-sample error ``sigma2(m) = a + b / m`` with ``b = a d`` (``a (1 + d / m)``,
Akaike's final prediction error), so the plan scales every residual variance by
``(1 + d / m) / (1 + d / m0)`` beyond the pilot's size. ``d`` is the trace of the fold
models' hat matrices (ridge: ``1 + sum lam / (lam + alpha)``), averaged over the folds;
``a`` is fitted through the pilot's own residual variance at ``m0``.

Why the model's df and not a curve read off the pilot's residuals at several fold
counts: on SummEval relevance (36-label pilots, 12 of them) the least-squares ``a + b / m``
through the 2-, 3- and 5-fold and leave-one-prompt-out residual variances (each fold
count over 3 fold seeds) put the variance at 200 labels between 0.03x and 1.0x the
pilot's (the points span 18-35 training labels; their differences are mostly the fold
split's and the penalty choice's noise), while the df curve gives 0.81-0.90x (mean
0.87x; the pool's 5-fold residual variance is 0.483 at 250 labels against 0.556 at 36,
0.87x). EXPERIMENTS.md, "learning curve".

Only for fold models whose df is known (the ridge outcome model); otherwise, or when
the pilot is small (``m0`` under :data:`MIN_TRAIN_LABELS` or ``MIN_TRAIN_PER_DF * d``),
the plan keeps the pilot's variance at every budget, as before, and says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from bacon_bayes.crossfit import CrossFitResult

__all__ = ["LearningCurve", "effective_df", "learning_curve"]

#: The curve is used only where the pilot's fold models train on at least this many
#: labels per effective degree of freedom (below it the pilot is too small to say)
MIN_TRAIN_PER_DF = 2.0
#: and on at least this many labels (below, the penalty chosen on them, so the df, is
#: mostly noise).
MIN_TRAIN_LABELS = 20.0


@dataclass(frozen=True)
class LearningCurve:
    """``sigma2(m) = a + b / m`` in training labels ``m``; the pilot's fold models trained
    on ``m0``; the estimator's train on ``(folds - 1) / folds`` of its labels."""

    a: float
    b: float
    m0: float
    folds: int
    df: float

    def ratio(self, n: float) -> float:
        """Residual variance at ``n`` labels in all over the pilot's (at most 1: below the
        pilot's size the pilot's variance is kept)."""
        m = max(n * (self.folds - 1) / self.folds, self.m0)
        return (self.a + self.b / m) / (self.a + self.b / self.m0)

    def to_dict(self) -> dict[str, float]:
        return {"a": self.a, "b": self.b, "pilot_training_labels": self.m0, "df": self.df}

    def describe(self, budgets: list[float]) -> str:
        """The assumption line: the curve, and the scale at ``budgets`` (labels in all)."""
        at = ", ".join(f"x{self.ratio(n):.3f} at {n:.0f}" for n in budgets)
        return (
            f"the judge model improves with more labels: residual variance a + b / m in "
            f"training labels m ({self.folds}-fold: m = (K - 1) / K of the labels; b = a x "
            f"its {self.df:.1f} effective df, through the pilot's variance at m = "
            f"{self.m0:.1f}); the pilot's variances are scaled by it: {at} labels"
        )


def effective_df(model: Any, X: np.ndarray) -> float | None:
    """Trace of a fitted ridge's hat matrix on its training rows ``X`` (intercept
    included); None for a model whose df is not known."""
    scaler, ridge = getattr(model, "scaler_", None), getattr(model, "ridge_", None)
    alpha = getattr(ridge, "alpha", None)
    if scaler is None or alpha is None or not float(alpha) > 0 or X.shape[0] < 2:
        return None
    Z = scaler.transform(X)
    Zc = Z - Z.mean(axis=0)
    lam = np.clip(np.linalg.eigvalsh(Zc.T @ Zc), 0.0, None)
    return float(1.0 + np.sum(lam / (lam + float(alpha))))


def learning_curve(fit: CrossFitResult, level: float) -> tuple[LearningCurve | None, str]:
    """The curve through the pilot's residual variance ``level`` from the calibrator's
    cross-fit ``fit`` (its fold models' df), or None and why (the plan then keeps the
    pilot's variance at every budget)."""
    lab = fit.labeled
    ids = fit.fold_ids[lab]
    K = len(fit.models)
    if K < 2 or not lab.any() or np.any(ids < 0) or not (level > 0 and math.isfinite(level)):
        return None, "no cross-fit of the pilot's labels to read it from"
    sizes = np.bincount(ids, minlength=K)
    m0 = float(np.mean(lab.sum() - sizes[ids]))  # each labeled item's model's training size
    dfs = []
    for k, model in enumerate(fit.models):
        d = effective_df(model, fit.X[lab & (fit.fold_ids != k)])
        if d is None:
            return None, f"the judge model ({type(model).__name__}) has no known df"
        dfs.append(d)
    df = float(np.mean(dfs))
    if m0 < max(MIN_TRAIN_PER_DF * df, MIN_TRAIN_LABELS):
        return None, (
            f"the pilot's fold models train on {m0:.0f} labels, under {MIN_TRAIN_LABELS:g} or "
            f"{MIN_TRAIN_PER_DF:g} x the model's {df:.1f} effective df: too few to read a curve"
        )
    a = level / (1.0 + df / m0)
    return LearningCurve(a=a, b=a * df, m0=m0, folds=K, df=df), ""
