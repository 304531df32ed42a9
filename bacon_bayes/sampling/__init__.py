"""Label sampling designs with recorded inclusion probabilities.

* :mod:`~bacon_bayes.sampling.designs`: uniform (fixed size), Bernoulli,
  stratified (proportional / Neyman), Poisson.
* :mod:`~bacon_bayes.sampling.adaptive`: probabilities proportional to a
  predictive sd mixed with a uniform share, capped at one; combining waves.
* :mod:`~bacon_bayes.sampling.two_stage`: the paper's pilot + constrained
  weighting optimisation.
* :mod:`~bacon_bayes.sampling.pairwise`: which comparisons of a pairwise pool to send
  to humans for Bradley-Terry strengths (uniform, stratified by model pair, adaptive).
* :mod:`~bacon_bayes.sampling.sd_model`: a heteroskedastic sd model of the
  outcome model's error for the adaptive design.
"""

from __future__ import annotations

from bacon_bayes.sampling.adaptive import (
    DEFAULT_UNIFORM_SHARE,
    GROUP_UNIFORM_SHARE,
    MAX_VARIANCE_RATIO,
    MIN_LABELS_PER_COEFFICIENT,
    OPTIMISTIC_RATIO,
    SMALL_PILOT,
    adaptive,
    adaptive_probabilities,
    cap_probabilities,
    combine_waves,
    expected_variance_ratio,
    sd_wave_choice,
    top_up_probabilities,
)
from bacon_bayes.sampling.designs import (
    Design,
    allocate,
    bernoulli,
    bin_feature,
    poisson,
    resolve_budget,
    stratified,
    uniform,
    wave_seed,
)
from bacon_bayes.sampling.sd_model import HeteroskedasticSD, cross_fitted_sd
from bacon_bayes.sampling.two_stage import (
    TwoStagePropensity,
    fit_two_stage_propensity,
    two_stage,
)

__all__ = [
    "DEFAULT_UNIFORM_SHARE",
    "GROUP_UNIFORM_SHARE",
    "MAX_VARIANCE_RATIO",
    "MIN_LABELS_PER_COEFFICIENT",
    "OPTIMISTIC_RATIO",
    "SMALL_PILOT",
    "Design",
    "HeteroskedasticSD",
    "TwoStagePropensity",
    "adaptive",
    "adaptive_probabilities",
    "allocate",
    "bernoulli",
    "bin_feature",
    "cap_probabilities",
    "combine_waves",
    "cross_fitted_sd",
    "expected_variance_ratio",
    "fit_two_stage_propensity",
    "poisson",
    "resolve_budget",
    "sd_wave_choice",
    "stratified",
    "top_up_probabilities",
    "two_stage",
    "uniform",
    "wave_seed",
]
