"""Outcome models: E[Y | x] and a predictive distribution for every item.

Every model is a scikit-learn estimator with ``fit(X, y)``, ``predict(X)``
(conditional mean), ``predict_var(X)`` (conditional variance) and
``predict_cdf(X, t)`` (``P(Y <= t_k | x_i)``, shape ``(n, len(t))``).
"""

from bacon_bayes.outcome.hurdle import HurdleOutcome
from bacon_bayes.outcome.multinomial import MultinomialOutcome
from bacon_bayes.outcome.ordinal import OrdinalOutcome
from bacon_bayes.outcome.registry import default_model, make_model, register
from bacon_bayes.outcome.ridge import RidgeOutcome

__all__ = [
    "HurdleOutcome",
    "MultinomialOutcome",
    "OrdinalOutcome",
    "RidgeOutcome",
    "default_model",
    "make_model",
    "register",
]
