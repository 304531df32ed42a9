"""bacon_bayes: budgeted human calibration of multiple AI judges."""

from __future__ import annotations

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.errors import BaconError, NotFittedError, ValidationError
from bacon_bayes.features import FeatureSet, build_features
from bacon_bayes.pool import EvalPool, OutcomeSpec
from bacon_bayes.results import Estimate, EstimateTable

__version__ = "0.1.0"

__all__ = [
    "BaconError",
    "Calibrator",
    "Estimate",
    "EstimateTable",
    "EvalPool",
    "FeatureSet",
    "NotFittedError",
    "OutcomeSpec",
    "ValidationError",
    "__version__",
    "build_features",
]
