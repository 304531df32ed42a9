"""Register the Bayesian families with the outcome-model registry (engine "bayes")."""

from __future__ import annotations

from typing import Any

from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.bayes.gaussian import GaussianJudgeModel
from bacon_bayes.bayes.hurdle import HurdleJudgeModel
from bacon_bayes.bayes.multinomial import MultinomialJudgeModel
from bacon_bayes.bayes.ordinal import OrdinalJudgeModel
from bacon_bayes.bayes.pairwise_model import PairwiseJudgeModel

__all__ = ["register_bayes"]


def _ordinal(spec: Any, features: Any) -> OrdinalJudgeModel:
    levels = getattr(spec, "levels", None)
    return OrdinalJudgeModel(ColumnSpec.from_features(features), levels=levels)


def _pairwise(spec: Any, features: Any) -> PairwiseJudgeModel:
    levels = getattr(spec, "levels", None)
    return PairwiseJudgeModel(ColumnSpec.from_features(features), levels=levels)


def _gaussian(spec: Any, features: Any) -> GaussianJudgeModel:
    return GaussianJudgeModel(ColumnSpec.from_features(features))


def _hurdle(spec: Any, features: Any) -> HurdleJudgeModel:
    return HurdleJudgeModel(ColumnSpec.from_features(features))


def _multinomial(spec: Any, features: Any) -> MultinomialJudgeModel:
    levels = getattr(spec, "levels", None)
    return MultinomialJudgeModel(ColumnSpec.from_features(features), levels=levels)


def register_bayes() -> None:
    """Add the Bayesian families to :mod:`bacon_bayes.outcome.registry`."""
    from bacon_bayes.outcome import registry

    registry.register("ordinal", "bayes", _ordinal)
    registry.register("pairwise", "bayes", _pairwise)
    registry.register("gaussian", "bayes", _gaussian)
    registry.register("hurdle", "bayes", _hurdle)
    registry.register("multinomial", "bayes", _multinomial)
