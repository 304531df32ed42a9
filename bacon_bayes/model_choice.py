"""Which outcome model a calibrator fits: the family and engine from its settings, a
preset's, or the estimator it was given (``Calibrator.fit`` hands over here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bacon_bayes import pairs as pairs_mod
from bacon_bayes.errors import ValidationError
from bacon_bayes.features import FeatureSet
from bacon_bayes.outcome import registry
from bacon_bayes.pool import EvalPool

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

#: Families for which ``engine="auto"`` takes the frequentist model although a Bayesian
#: one exists: the Bayesian multinomial (Dawid-Skene) model predicts TriviaQA's binary
#: verdicts no better than the multinomial logistic (log-loss 0.1558 vs 0.1548, AEE SE
#: 0.0099 vs 0.0096) at ~280x the time (BENCHMARKS.md, "Bayesian multinomial on
#: TriviaQA"); ``engine="bayes"`` still fits it.
AUTO_FREQUENTIST = frozenset({"multinomial"})


def auto_engine(name: str) -> str:
    """The engine ``engine="auto"`` takes for the family ``name``: ``"bayes"`` where a
    Bayesian one is registered (and not in :data:`AUTO_FREQUENTIST`), else ``"freq"``."""
    bayes = (name, "bayes") in registry.available("bayes") and name not in AUTO_FREQUENTIST
    return "bayes" if bayes else "freq"


def resolve_model(cal: Calibrator, pool: EvalPool, features: FeatureSet) -> tuple[Any, str, str]:
    """The unfitted outcome model of ``cal`` on ``pool``, its family's name and engine."""
    if cal.preset is not None:
        return _preset_model(cal, pool, features)
    if cal.model is not None and not isinstance(cal.model, str):
        return cal.model, type(cal.model).__name__, "custom"
    name = cal.model or registry.default_model(pool.outcome)
    engine = cal.engine
    if engine == "auto":
        engine = auto_engine(name)
    elif engine not in ("bayes", "freq"):
        raise ValidationError(f"engine {engine!r} is not known; use 'auto', 'bayes' or 'freq'.")
    if engine == "bayes" and cal.model is None and name == "ridge":
        name = "gaussian"  # continuous outcomes: the Bayesian family is the gaussian one
    if engine == "bayes" and cal.model is None:
        name = pairs_mod.bayes_family(pool, name)
    return registry.make_model(name, engine, pool.outcome, features), name, engine


def _preset_model(cal: Calibrator, pool: EvalPool, features: FeatureSet) -> tuple[Any, str, str]:
    from bacon_bayes.presets import calibrator_model

    model = calibrator_model(str(cal.preset), cal.model, cal.engine, pool, features)
    return model, model.family, "bayes"


def auto_reason(cal: Calibrator) -> str:
    """Why ``engine="auto"`` (the default) fitted the engine it did, with the option that
    takes the other one; "" where the engine, a preset or a model object was given."""
    if cal.engine != "auto" or cal.preset is not None:
        return ""
    if cal.model is not None and not isinstance(cal.model, str):
        return ""
    name, engine = cal.model_name_, cal.engine_
    if engine == "bayes":
        return (
            "--engine auto, the default: the Bayesian judge model where the family has one; "
            "--engine freq fits the frequentist model in seconds"
        )
    if name in AUTO_FREQUENTIST:
        return (
            f"--engine auto, the default: the Bayesian {name} model predicts no better, at "
            "~280x the time (README); --engine bayes fits it"
        )
    if name == "ridge" and cal.model is None:
        return (
            "--engine auto, the default: ridge, a continuous label's default model, has no "
            "Bayesian form; --engine bayes fits the gaussian judge model"
        )
    return f"--engine auto, the default: the {name} model has no Bayesian form"


def engine_words(cal: Calibrator, default: str = "auto") -> str:
    """Which engine fitted ``cal`` and why, in the words ``bacon estimate`` and ``bacon
    status`` both print ("" where nothing needs saying). ``default``: the command's own
    default engine: ``"auto"`` (estimate; status's ``--engine auto``): :func:`auto_reason`;
    ``"freq"`` (status's default, fast after every wave): where ``bacon estimate``'s
    default (auto) fits the other engine, that its estimates differ and the flag that
    gives these (WMT22's MQM: status said "refB leads", estimate "refA ranks first")."""
    if cal.engine == "auto" or default == "auto":
        return auto_reason(cal)
    same = auto_engine(cal.model_name_) == cal.engine_  # estimate's default fits this one
    if cal.engine != default or cal.preset is not None or same:
        return ""
    other = "Bayesian" if cal.engine_ == "freq" else "frequentist"
    return (
        f"not bacon estimate's {other} one (engine auto): its estimates differ; bacon "
        f"estimate --engine {cal.engine_} gives these, --engine auto here gives estimate's"
    )
