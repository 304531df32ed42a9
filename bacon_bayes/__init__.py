"""bacon_bayes: budgeted human calibration of multiple AI judges.

Public names are imported lazily, so that ``bacon`` sub-commands that need only
part of the library start fast.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names are, for type checkers (``py.typed``)
    from bacon_bayes.calibrator import Calibrator as Calibrator
    from bacon_bayes.errors import BaconError as BaconError
    from bacon_bayes.errors import NotFittedError as NotFittedError
    from bacon_bayes.errors import ValidationError as ValidationError
    from bacon_bayes.features import FeatureSet as FeatureSet
    from bacon_bayes.features import build_features as build_features
    from bacon_bayes.pool import EvalPool as EvalPool
    from bacon_bayes.pool import OutcomeSpec as OutcomeSpec
    from bacon_bayes.results import Estimate as Estimate
    from bacon_bayes.results import EstimateTable as EstimateTable

__version__ = "0.1.0"

# ArviZ (which PyMC and nutpie import) announces its coming refactor with a FutureWarning on
# its first import of the day; it concerns ArviZ's own API, which bacon_bayes's users do
# not call, so it only printed noise before every Bayesian fit.
warnings.filterwarnings(
    "ignore", r"\s*ArviZ is undergoing a major refactor", FutureWarning, "arviz"
)

_EXPORTS = {
    "BaconError": "bacon_bayes.errors",
    "Calibrator": "bacon_bayes.calibrator",
    "Estimate": "bacon_bayes.results",
    "EstimateTable": "bacon_bayes.results",
    "EvalPool": "bacon_bayes.pool",
    "FeatureSet": "bacon_bayes.features",
    "NotFittedError": "bacon_bayes.errors",
    "OutcomeSpec": "bacon_bayes.pool",
    "ValidationError": "bacon_bayes.errors",
    "build_features": "bacon_bayes.features",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'bacon_bayes' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
