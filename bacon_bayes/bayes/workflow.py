"""From a pool to a fitted Bayesian judge model (``bacon judges``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.bayes.gaussian import GaussianJudgeModel
from bacon_bayes.bayes.hurdle import HurdleJudgeModel
from bacon_bayes.bayes.multinomial import MultinomialJudgeModel
from bacon_bayes.bayes.ordinal import OrdinalJudgeModel
from bacon_bayes.errors import ValidationError
from bacon_bayes.scale import is_binary

__all__ = ["fit_pool", "guess_kind", "model_line"]

#: Most distinct whole-number labels read as ordinal levels by :func:`guess_kind`.
MAX_ORDINAL_LEVELS = 10
#: Least share of zeros among non-negative labels read as a hurdle outcome (MQM error
#: scores: most segments have no error) by :func:`guess_kind`.
MIN_ZERO_SHARE = 0.2

FAMILY_FOR_KIND = {
    "ordinal": "ordinal",
    "continuous": "gaussian",
    "nonnegative": "hurdle",
    "categorical": "multinomial",
}


def fit_pool(pool: Any, *, family: str | None = None, **kwargs: Any):
    """Fit the Bayesian judge model of ``family`` on every labeled item of ``pool``."""
    from bacon_bayes.features import build_features

    family = family or FAMILY_FOR_KIND.get(pool.outcome.kind)
    if family not in ("ordinal", "gaussian", "hurdle", "multinomial"):
        raise ValidationError(
            f"no Bayesian judge model for a {pool.outcome.kind} outcome yet; "
            "use outcome ordinal, continuous, nonnegative or categorical"
        )
    features = build_features(pool)
    spec = ColumnSpec.from_features(features)
    if family == "ordinal":
        model = OrdinalJudgeModel(spec, levels=pool.outcome.levels, **kwargs)
    elif family == "multinomial":
        model = MultinomialJudgeModel(spec, levels=pool.outcome.levels, **kwargs)
    elif family == "hurdle":
        model = HurdleJudgeModel(spec, **kwargs)
    else:
        model = GaussianJudgeModel(spec, **kwargs)
    return model.fit(features.X, pool.y)


def guess_kind(df: pd.DataFrame, label: str, levels: str | None = None) -> tuple[str, str]:
    """The outcome type of the labels ``df[label]`` when none is given, and why, in words.

    ``levels`` given (``--levels``): ordinal; 0 and 1 only: categorical (the multinomial
    model); whole numbers with at most :data:`MAX_ORDINAL_LEVELS` values: ordinal, a
    level per value; non-negative with at least :data:`MIN_ZERO_SHARE` zeros: nonnegative
    (the hurdle model); else continuous (the gaussian model). NaN (unlabeled) is ignored.
    """
    if label not in df:  # the pool names the missing column
        return "continuous", ""
    y = pd.to_numeric(df[label], errors="coerce").to_numpy(dtype=float)
    y = y[np.isfinite(y)]
    values = np.unique(y)
    if levels:
        return "ordinal", "--levels given"
    if is_binary(values):
        return "categorical", "the labels are 0 and 1 only"
    if 1 < values.size <= MAX_ORDINAL_LEVELS and np.all(values == np.round(values)):
        return "ordinal", f"the labels are whole numbers with {values.size} values"
    if y.size and y.min() == 0 and np.mean(y == 0) >= MIN_ZERO_SHARE:
        return "nonnegative", f"the labels are non-negative, {np.mean(y == 0):.0%} of them 0"
    return "continuous", f"the labels take {values.size} values, not a few whole numbers"


def model_line(pool: Any, why: str) -> str:
    """The line naming the model :func:`fit_pool` fits to ``pool`` and its levels; ``why``:
    how the outcome type was chosen (:func:`guess_kind`; empty: it was given)."""
    kind, levels = pool.outcome.kind, pool.outcome.levels
    shown = ""
    if levels is not None:
        listed = ", ".join(f"{float(v):g}" for v in levels[:12])
        shown = f", {len(levels)} levels: {listed}{' ...' if len(levels) > 12 else ''}"
    head = f"{FAMILY_FOR_KIND.get(kind, kind)} model ({kind} label {pool.label_name!r}{shown})"
    if not why:
        return f"{head}, as --outcome says"
    return f"{head}: {why}; pass --outcome (and --levels) to choose another"
