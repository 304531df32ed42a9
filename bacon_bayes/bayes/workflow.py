"""From a pool to a fitted Bayesian judge model (``bacon judges``)."""

from __future__ import annotations

from typing import Any

from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.bayes.gaussian import GaussianJudgeModel
from bacon_bayes.bayes.hurdle import HurdleJudgeModel
from bacon_bayes.bayes.multinomial import MultinomialJudgeModel
from bacon_bayes.bayes.ordinal import OrdinalJudgeModel
from bacon_bayes.errors import ValidationError

__all__ = ["fit_pool"]

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
