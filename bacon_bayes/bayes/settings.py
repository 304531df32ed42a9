"""Allowed values of the judge models' sampler settings and priors, checked where a
preset is read (:mod:`bacon_bayes.presets`), where a model is fitted
(:class:`~bacon_bayes.bayes.spec.JudgeModelSpec`) and where a sampler is compiled
(:func:`~bacon_bayes.bayes.nuts.compile_sampler`), with the message that names them."""

from __future__ import annotations

import math
import numbers
from importlib.util import find_spec
from typing import Any

import numpy as np

#: Sampler settings that count draws or chains: positive integers.
COUNTS = ("draws", "tune", "chains", "predict_draws", "label_draws")
#: The samplers (:mod:`bacon_bayes.bayes.nuts`; ``"auto"`` is ``"nutpie-jax"``) and the
#: packages each imports beyond numba's nutpie, PyMC's own NUTS.
SAMPLERS: dict[str, tuple[str, ...]] = {
    "auto": ("jax",),
    "nutpie": (),
    "nutpie-jax": ("jax",),
    "pymc": (),
    "numpyro": ("jax", "numpyro"),
}
#: How to install each package a sampler needs.
INSTALL = {"jax": "'bacon_bayes[jax]'", "numpyro": "numpyro"}
#: Prior scales for which 0 means "off" (a homoskedastic label noise, one evidence weight).
ZERO_OFF_PRIORS = frozenset({"label_noise_embedding_sd", "judge_evidence_sd"})


def setting_problem(name: str, value: Any) -> str | None:
    """What is wrong with the sampler setting ``name`` = ``value`` (its allowed values
    named), or None when it is fine (or not a setting checked here)."""
    if name == "sampler":
        return sampler_problem(value)
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if name in COUNTS and not (whole and value >= 1):
        return f"{name} must be a positive whole number (e.g. 1000), got {value!r}"
    if name == "target_accept" and not (_number(value) and 0 < value < 1):
        return (
            "target_accept must be a number between 0 and 1, both excluded (e.g. 0.95), "
            f"got {value!r}"
        )
    if name == "low_rank" and not isinstance(value, bool | np.bool_):
        return f"low_rank must be true or false, got {value!r}"
    return None


def sampler_problem(value: Any) -> str | None:
    """What is wrong with the sampler ``value``: not a known one, or one whose packages
    are not installed (named, with the command that installs them); None when fine."""
    if not isinstance(value, str) or value not in SAMPLERS:
        return f"sampler must be one of {', '.join(map(repr, SAMPLERS))}, got {value!r}"
    missing = [name for name in SAMPLERS[value] if find_spec(name) is None]
    if not missing:
        return None
    what = f"{value!r} (nutpie-jax)" if value == "auto" else repr(value)
    verb = "is" if len(missing) == 1 else "are"
    install = " ".join(dict.fromkeys(INSTALL[name] for name in missing))
    return (
        f"sampler {what} needs {' and '.join(missing)}, which {verb} not installed: "
        f'pip install {install}; or use sampler = "nutpie" (numba, no JAX: slower, and '
        "other draws than the default's)"
    )


def prior_problem(name: str, value: Any) -> str | None:
    """What is wrong with the prior ``name`` = ``value``, None when it is fine: a finite
    number; a location (``..._mu``) any, a scale positive (0 allowed where it turns the
    term off, :data:`ZERO_OFF_PRIORS`)."""
    if not _number(value):
        return f"prior {name!r} must be a finite number, got {value!r}"
    if name.endswith("_mu"):
        return None
    if name in ZERO_OFF_PRIORS and value < 0:
        return f"prior {name!r} is a scale: it must be 0 (off) or positive, got {value!r}"
    if name not in ZERO_OFF_PRIORS and value <= 0:
        return f"prior {name!r} is a scale: it must be a positive number (e.g. 1.0), got {value!r}"
    return None


def _number(value: Any) -> bool:
    """Whether ``value`` is a finite real number (not a bool, not a string)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
