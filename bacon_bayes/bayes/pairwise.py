"""Per-judge terms of a pairwise pool read from the Bayesian judge model.

On a pool of comparisons (:meth:`EvalPool.from_pairs`) the label is the human score of
model A (1 / 0.5 / 0) and each judge's verdict is a score of A. The Bayesian engine fits
there the pairwise judge model (:mod:`bacon_bayes.bayes.pairwise_model`: ordered-probit
verdicts with per-judge offset ``a``, discrimination ``c`` and tie half-width ``h``), and
its terms are model parameters with posterior intervals, at the pool's typical
comparison (latent z = 0):

- ``position_bias = (P(A) - P(B)) / 2``: the judge's expected score of A minus 0.5;
  positive leans to the first-shown answer;
- ``discrimination = c``: the judge's probit slope on the latent human preference
  (whose sd over the pool is 1);
- ``tie_propensity = P(tie)``.

``tie_rate`` is the observed share of the judge's verdicts that are ties, with a Wilson
interval (a description of the data, beside the model's propensity).

With ``model="ordinal"`` (or verdicts given as probabilities) the engine fits the Gaussian
measurement model instead (:mod:`bacon_bayes.bayes.bias`: judge ``= offset + scale * q +
noise``, q the human's expected score of A): ``position_bias = offset + 0.5 * scale -
0.5`` (at q = 0.5), ``discrimination = scale`` and ``noise_human``; it has no tie term.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.bayes.bias import bias_draws
from bacon_bayes.bayes.pairwise_model import pairwise_term_draws
from bacon_bayes.errors import NotFittedError, ValidationError

__all__ = ["pairwise_judge_terms"]


def _wilson(k: np.ndarray, n: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    z = stats.norm.ppf((1 + level) / 2)
    p = k / np.maximum(n, 1)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _gaussian_terms(models: list) -> dict[str, np.ndarray]:
    """Position bias, discrimination and noise of the Gaussian measurement model's draws."""
    draws = [bias_draws(m) for m in models]
    pooled = {k: np.concatenate([d[k] for d in draws]) for k in ("offset", "scale", "noise_human")}
    return {
        "position_bias": pooled["offset"] + 0.5 * pooled["scale"] - 0.5,
        "discrimination": pooled["scale"],
        "noise_human": pooled["noise_human"],
    }


def pairwise_judge_terms(calibrator: Any, level: float = 0.9) -> pd.DataFrame:
    """Per-judge position bias, discrimination and tie propensity (posterior mean and
    central ``level`` interval, the fold models' draws pooled) and tie rate (observed,
    Wilson interval) of a Bayesian calibrator fitted on a pairwise pool.

    Parameters
    ----------
    calibrator : a :class:`~bacon_bayes.calibrator.Calibrator` with ``engine="bayes"``
        fitted on :meth:`EvalPool.from_pairs`.
    level : coverage of the intervals.

    Returns
    -------
    DataFrame with ``judge`` and, for ``position_bias``, ``discrimination``,
    ``tie_propensity`` (``noise_human`` in its place with ``model="ordinal"``) and
    ``tie_rate``, the estimate and ``*_low`` / ``*_high``.
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
    family = {getattr(m, "family", None) for m in models}
    if family == {"pairwise"}:
        draws = [pairwise_term_draws(m.posterior_) for m in models]
        terms = {k: np.concatenate([d[k] for d in draws]) for k in draws[0]}
    elif family == {"ordinal"}:
        terms = _gaussian_terms(models)
    else:
        raise ValidationError(
            "pairwise judge terms come from the Bayesian pairwise judge model: fit "
            "Calibrator(engine='bayes') on the pairs pool."
        )
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
