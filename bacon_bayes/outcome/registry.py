"""Registry of outcome-model families: ``(name, engine) -> factory``.

A factory takes the pool's :class:`~bacon_bayes.pool.OutcomeSpec` and the
:class:`~bacon_bayes.features.FeatureSet` and returns an unfitted estimator.
The frequentist engine (``"freq"``) is registered here; the Bayesian engine
(``"bayes"``) registers its families when :mod:`bacon_bayes.bayes` is imported.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from bacon_bayes.errors import ValidationError
from bacon_bayes.features import FeatureSet
from bacon_bayes.outcome.hurdle import HurdleOutcome
from bacon_bayes.outcome.multinomial import MultinomialOutcome
from bacon_bayes.outcome.ordinal import OrdinalOutcome
from bacon_bayes.outcome.ridge import RidgeOutcome
from bacon_bayes.pool import OutcomeSpec

Factory = Callable[[OutcomeSpec, FeatureSet], Any]
_REGISTRY: dict[tuple[str, str], Factory] = {}
#: engines whose families register themselves when their module is imported (on demand,
#: so that the frequentist path never pays for importing PyMC)
_ENGINE_MODULES = {"bayes": "bacon_bayes.bayes"}


def _load(engine: str | None) -> None:
    for name, module in _ENGINE_MODULES.items():
        if engine in (None, name):
            importlib.import_module(module)


#: the family a user gets when they name only the outcome type
DEFAULT_FOR_KIND = {
    "continuous": "ridge",
    "nonnegative": "hurdle",
    "ordinal": "ordinal",
    "categorical": "multinomial",
}
#: which outcome kinds each family accepts
KINDS_FOR_MODEL = {
    "ridge": ("continuous", "nonnegative", "ordinal", "categorical"),
    "gaussian": ("continuous", "nonnegative", "ordinal", "categorical"),
    "hurdle": ("nonnegative",),
    "ordinal": ("ordinal",),
    "multinomial": ("categorical", "ordinal"),
    "pairwise": ("ordinal",),  # Bayesian only: judge verdicts of a pairs pool
}


def register(name: str, engine: str, factory: Factory) -> None:
    """Make ``factory`` the builder of family ``name`` under ``engine``."""
    _REGISTRY[(name, engine)] = factory


def available(engine: str | None = None) -> list[tuple[str, str]]:
    """Registered ``(name, engine)`` pairs."""
    _load(engine)
    return sorted(k for k in _REGISTRY if engine is None or k[1] == engine)


def freq_families(kind: str) -> list[str]:
    """The families the frequentist engine builds that fit a ``kind`` outcome, in
    :data:`KINDS_FOR_MODEL` order, without ``"gaussian"`` (its name for ridge there) and
    the Bayesian-only ones."""
    have = {name for name, _ in available("freq")}
    return [
        m for m, kinds in KINDS_FOR_MODEL.items() if kind in kinds and m in have and m != "gaussian"
    ]


def default_model(spec: OutcomeSpec) -> str:
    """The family used when the user names only the outcome type."""
    return DEFAULT_FOR_KIND[spec.kind]


def make_model(name: str, engine: str, spec: OutcomeSpec, features: FeatureSet) -> Any:
    """Build an unfitted estimator of family ``name`` for this outcome and these features."""
    if name not in KINDS_FOR_MODEL:
        raise ValidationError(
            f"model {name!r} is not known; use one of {', '.join(sorted(KINDS_FOR_MODEL))}."
        )
    if spec.kind not in KINDS_FOR_MODEL[name]:
        raise ValidationError(
            f"model {name!r} does not fit a {spec.kind} outcome; use "
            f"{DEFAULT_FOR_KIND[spec.kind]!r} (or declare the right outcome type)."
        )
    _load(engine)
    if (name, engine) not in _REGISTRY:
        have = ", ".join(e for (n, e) in _REGISTRY if n == name) or "none"
        raise ValidationError(
            f"model {name!r} has no {engine!r} engine (available engines: {have}); "
            "pick one of those with engine=."
        )
    return _REGISTRY[(name, engine)](spec, features)


register("ridge", "freq", lambda spec, fs: RidgeOutcome())
register("gaussian", "freq", lambda spec, fs: RidgeOutcome())
register("hurdle", "freq", lambda spec, fs: HurdleOutcome())
register("ordinal", "freq", lambda spec, fs: OrdinalOutcome(levels=spec.levels or ()))
register("multinomial", "freq", lambda spec, fs: MultinomialOutcome(levels=spec.levels or ()))
