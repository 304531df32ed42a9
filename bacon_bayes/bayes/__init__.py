"""Bayesian hierarchical judge models (collapsed measurement model, PyMC).

Importing this package configures PyTensor's BLAS/backend first (see
:mod:`bacon_bayes.bayes._backend`).
"""

from __future__ import annotations

from bacon_bayes.bayes import _backend

_backend.configure_pytensor()

from bacon_bayes.bayes.columns import ColumnSpec  # noqa: E402
from bacon_bayes.bayes.diagnostics import ConvergenceWarning, Diagnostics  # noqa: E402
from bacon_bayes.bayes.gaussian import GaussianJudgeModel  # noqa: E402
from bacon_bayes.bayes.hurdle import HurdleJudgeModel  # noqa: E402
from bacon_bayes.bayes.multinomial import MultinomialJudgeModel  # noqa: E402
from bacon_bayes.bayes.ordinal import OrdinalJudgeModel  # noqa: E402
from bacon_bayes.bayes.pairwise_model import PairwiseJudgeModel  # noqa: E402
from bacon_bayes.bayes.registration import register_bayes  # noqa: E402

register_bayes()

__all__ = [
    "ColumnSpec",
    "ConvergenceWarning",
    "Diagnostics",
    "GaussianJudgeModel",
    "HurdleJudgeModel",
    "MultinomialJudgeModel",
    "OrdinalJudgeModel",
    "PairwiseJudgeModel",
    "register_bayes",
]
