"""From a pool (or a table on disk) to a fitted judge model and its bias table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.bayes.bias import judge_bias
from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.bayes.gaussian import GaussianJudgeModel
from bacon_bayes.bayes.multinomial import MultinomialJudgeModel
from bacon_bayes.bayes.ordinal import OrdinalJudgeModel
from bacon_bayes.errors import ValidationError

__all__ = ["fit_pool", "judge_bias_from_table"]

FAMILY_FOR_KIND = {"ordinal": "ordinal", "continuous": "gaussian", "categorical": "multinomial"}


def fit_pool(pool: Any, *, family: str | None = None, **kwargs: Any):
    """Fit the Bayesian judge model of ``family`` on every labeled item of ``pool``."""
    from bacon_bayes.features import build_features

    family = family or FAMILY_FOR_KIND.get(pool.outcome.kind)
    if family not in ("ordinal", "gaussian", "multinomial"):
        raise ValidationError(
            f"no Bayesian judge model for a {pool.outcome.kind} outcome yet; "
            "use outcome ordinal, continuous or categorical"
        )
    features = build_features(pool)
    spec = ColumnSpec.from_features(features)
    if family == "ordinal":
        model = OrdinalJudgeModel(spec, levels=pool.outcome.levels, **kwargs)
    elif family == "multinomial":
        model = MultinomialJudgeModel(spec, levels=pool.outcome.levels, **kwargs)
    else:
        model = GaussianJudgeModel(spec, **kwargs)
    return model.fit(features.X, pool.y)


def judge_bias_from_table(
    path: str | Path,
    *,
    label: str,
    judges: list[str],
    outcome: str = "ordinal",
    level: float = 0.9,
    levels: list[float] | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """Read a table, fit the judge model on its labeled rows, return the bias table."""
    from bacon_bayes.io import read_table
    from bacon_bayes.pool import EvalPool

    df = read_table(path)
    pool = EvalPool.from_frame(df, label=label, judges=judges, outcome=outcome, levels=levels)
    from bacon_bayes.features import build_features

    model = fit_pool(pool, **kwargs)
    # the pool's features again (deterministic): multinomial rates against the labels
    return judge_bias(model, level=level, X=build_features(pool).X, y=pool.y)
