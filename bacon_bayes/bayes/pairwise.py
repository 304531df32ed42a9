"""Per-judge terms of a pairwise pool read from the Bayesian judge model.

On a pool of comparisons (:meth:`EvalPool.from_pairs`) the label is the human score of
model A (1 / 0.5 / 0) and each judge's verdict is a score of A, so the engine's
measurement model (:mod:`bacon_bayes.bayes.bias`: judge ``= offset + scale * q + noise``
with q the human's expected score of A) reads as a pairwise judge model:

- ``position_bias = offset + 0.5 * scale - 0.5``: the judge's expected score of A on a
  comparison where people are even (q = 0.5); positive leans to the first-shown answer;
- ``discrimination = scale``: the change in the judge's expected score of A per unit of
  the human's (1 = as sharp as people, below 1 flatter);
- ``noise_human``: the judge's scatter in human units (:func:`bias_draws`).

The measurement model is Gaussian in the verdict: it has no per-judge tie term (no
judge cutpoints), so ``tie_rate`` is the share of the judge's verdicts that are ties in
the pool, with a Wilson interval, a description of the data and not a model parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.bayes.bias import bias_draws
from bacon_bayes.errors import NotFittedError, ValidationError

__all__ = ["pairwise_judge_terms"]


def _wilson(k: np.ndarray, n: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    z = stats.norm.ppf((1 + level) / 2)
    p = k / np.maximum(n, 1)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def pairwise_judge_terms(calibrator: Any, level: float = 0.9) -> pd.DataFrame:
    """Per-judge position bias, discrimination and noise (posterior mean and central
    ``level`` interval, the fold models' draws pooled) and tie rate (observed, Wilson
    interval) of a Bayesian calibrator fitted on a pairwise pool.

    Parameters
    ----------
    calibrator : a :class:`~bacon_bayes.calibrator.Calibrator` with ``engine="bayes"``
        fitted on :meth:`EvalPool.from_pairs`.
    level : coverage of the intervals.

    Returns
    -------
    DataFrame with ``judge`` and, for ``position_bias``, ``discrimination``,
    ``noise_human`` and ``tie_rate``, the estimate and ``*_low`` / ``*_high``.
    """
    if not 0 < level < 1:
        raise ValidationError(f"level must be between 0 and 1, got {level}")
    pool = getattr(calibrator, "pool_", None)
    if pool is None:
        raise NotFittedError("fit the calibrator before asking for pairwise judge terms.")
    if getattr(pool, "pairs", None) is None:
        raise ValidationError(
            "the pool has no pairs: build it with EvalPool.from_pairs(...) to read pairwise "
            "judge terms."
        )
    models = list(calibrator.crossfit_.models)
    if not all(getattr(m, "family", None) == "ordinal" for m in models):
        raise ValidationError(
            "pairwise judge terms come from the Bayesian ordinal judge model: fit "
            "Calibrator(engine='bayes') on the pairs pool."
        )
    draws = [bias_draws(m) for m in models]
    pooled = {k: np.concatenate([d[k] for d in draws]) for k in ("offset", "scale", "noise_human")}
    terms = {
        "position_bias": pooled["offset"] + 0.5 * pooled["scale"] - 0.5,
        "discrimination": pooled["scale"],
        "noise_human": pooled["noise_human"],
    }
    lo, hi = (1 - level) / 2, (1 + level) / 2
    table: dict[str, Any] = {"judge": list(models[0].columns.judges)}
    for name, d in terms.items():
        table[name] = d.mean(axis=0)
        table[f"{name}_low"] = np.quantile(d, lo, axis=0)
        table[f"{name}_high"] = np.quantile(d, hi, axis=0)
    scores = pool.judge_matrix().to_numpy(dtype=float)
    seen = np.isfinite(scores).sum(axis=0).astype(float)
    ties = (scores == 0.5).sum(axis=0).astype(float)
    table["tie_rate"] = ties / np.maximum(seen, 1)
    table["tie_rate_low"], table["tie_rate_high"] = _wilson(ties, seen, level)
    return pd.DataFrame(table)
