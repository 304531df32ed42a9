"""Model presets: TOML files of priors and sampler settings, loadable by name.

The presets ship inside the package (``bacon_bayes/presets/*.toml``, also reachable
as ``models/`` at the top of the repository, a link to this folder), so they load
the same from a checkout and from an installed wheel. A preset has::

    family = "ordinal"           # judge-model family
    description = "..."
    [priors]                     # overrides of the family's default priors
    [sampler]                    # sampler, draws, tune, chains, target_accept
    [model]                      # model options: judge_weights, inference, label_draws,
                                 # positive_scale (hurdle)
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from bacon_bayes.bayes.settings import prior_problem, setting_problem
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import reading

__all__ = [
    "apply_preset",
    "available_presets",
    "calibrator_model",
    "load_preset",
    "model_from_preset",
    "preset_path",
    "prior_problem",
    "setting_problem",
]

SAMPLER_KEYS = {"sampler", "draws", "tune", "chains", "target_accept", "low_rank", "predict_draws"}
MODEL_KEYS = {"judge_weights", "inference", "label_draws", "positive_scale", "group_effects"}
#: The families a preset may name (``pairwise``: for a table of pairwise comparisons).
PRESET_FAMILIES = ("gaussian", "hurdle", "multinomial", "ordinal", "pairwise")


def preset_path(name: str) -> str:
    """Where the shipped preset ``name`` is, to copy it (a convergence advice's file)."""
    return str(resources.files(__name__).joinpath(f"{name}.toml"))


def available_presets() -> list[str]:
    """Names of the shipped presets."""
    return sorted(
        p.name.removesuffix(".toml")
        for p in resources.files(__name__).iterdir()
        if p.name.endswith(".toml")
    )


def load_preset(name: str) -> dict[str, Any]:
    """Read preset ``name``, or the TOML file at that path (a name ending in ``.toml``).

    Validated: a family, a priors table, known sampler keys.
    """
    path: Any = resources.files(__name__).joinpath(f"{name}.toml")
    if name.endswith(".toml"):
        path = Path(name)
        if not path.is_file():
            raise ValidationError(f"preset file {name!r} does not exist; check the path")
    elif not path.is_file():
        raise ValidationError(
            f"no preset named {name!r}; available: {', '.join(available_presets())} "
            "(or pass the path of a .toml file)"
        )
    fix = "pass a preset TOML file (see the shipped ones in bacon_bayes/presets/) or a preset name"
    with reading(name, "preset", fix):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    if "family" not in data:
        raise ValidationError(
            f"preset {name!r} has no 'family' (is it a preset file?); {fix}, with "
            'family = "ordinal" | "gaussian" | "hurdle" | "multinomial"'
        )
    if data["family"] not in PRESET_FAMILIES:
        raise ValidationError(
            f"preset {name!r}: family {data['family']!r} is not known; a preset's family is "
            'one of "gaussian", "hurdle", "multinomial", "ordinal" (or "pairwise" for a '
            "table of pairwise comparisons)"
        )
    for section, known in (("priors", None), ("sampler", SAMPLER_KEYS), ("model", MODEL_KEYS)):
        if not isinstance(data.get(section, {}), dict):
            raise ValidationError(
                f"preset {name!r}: {section!r} must be a table ([{section}]), got {data[section]!r}"
            )
        if known is None:
            continue
        unknown = set(data.get(section, {})) - known
        if unknown:
            raise ValidationError(
                f"preset {name!r}: unknown {section} settings {sorted(unknown)}; "
                f"known: {sorted(known)}"
            )
    for section, check in (("priors", prior_problem), ("sampler", setting_problem)):
        for key, value in data.get(section, {}).items():
            if (problem := check(key, value)) is not None:
                raise ValidationError(f"preset {name!r}: [{section}] {problem}; fix it in the file")
    if problem := setting_problem("label_draws", data.get("model", {}).get("label_draws", 1)):
        raise ValidationError(f"preset {name!r}: [model] {problem}; fix it in the file")
    data.setdefault("priors", {})
    data.setdefault("sampler", {})
    data.setdefault("model", {})
    data.setdefault("name", name)
    return data


def model_from_preset(name: str, columns: Any, **overrides: Any) -> Any:
    """Build an unfitted judge model from preset ``name`` (keyword overrides win)."""
    from bacon_bayes.bayes.io import FAMILIES

    preset = load_preset(name)
    cls = FAMILIES.get(preset["family"])
    if cls is None:
        raise ValidationError(
            f"preset {name!r} names family {preset['family']!r}; known: {sorted(FAMILIES)}"
        )
    kwargs = {**preset["sampler"], **preset["model"], "priors": dict(preset["priors"])}
    _check_options(name, cls, preset["model"])
    return cls(columns, **{**kwargs, **overrides})


def calibrator_model(name: str, model: Any, engine: str, pool: Any, features: Any) -> Any:
    """The unfitted judge model a Calibrator builds from preset ``name``, with the
    Calibrator's ``model`` and ``engine`` arguments (which must agree with a preset) and
    ``pool`` (whose outcome the preset's family must fit). Messages name the command
    line's options and Python's arguments."""
    from bacon_bayes.outcome import registry

    preset = load_preset(name)
    family = preset["family"]
    if model is not None and model != family:
        raise ValidationError(
            f"preset {name!r} is for the {family} model but --model {model} (model="
            f"{model!r}) was given; drop one of them"
        )
    if engine not in ("auto", "bayes"):
        raise ValidationError(
            f"presets configure the Bayesian engine, so --engine {engine} (engine="
            f"{engine!r}) cannot use preset {name!r}: use --engine bayes or auto "
            "(engine='bayes'), or drop --preset (preset=)"
        )
    kind = pool.outcome.kind
    if kind not in registry.KINDS_FOR_MODEL.get(family, ()):
        fits = [
            n for n in available_presets()
            if kind in registry.KINDS_FOR_MODEL.get(load_preset(n)["family"], ())
        ]  # fmt: skip
        instead = f"use --preset {' or '.join(fits)} (preset={fits[0]!r}), or " if fits else ""
        fitted = registry.KINDS_FOR_MODEL[family][0]
        raise ValidationError(
            f"preset {name!r} is for the {family} model, which does not fit label "
            f"{pool.label_name!r}: its labels are {kind}; {instead}if they are {fitted}, "
            f"say so (--outcome {fitted}; outcome={fitted!r} in EvalPool.from_frame)"
        )
    built = registry.make_model(family, "bayes", pool.outcome, features)
    return apply_preset(built, preset)


def _check_options(name: str, cls: Any, options: dict[str, Any]) -> None:
    """Model options the family does not have (e.g. positive_scale off the hurdle) fail."""
    foreign = set(options) - set(cls(None).get_params())
    if foreign:
        raise ValidationError(
            f"preset {name!r}: the {cls.family} model has no option {sorted(foreign)}"
        )


def apply_preset(model: Any, preset: dict[str, Any]) -> Any:
    """Set a loaded preset's priors, sampler settings and model options on an unfitted
    judge model.

    The model's family must be the preset's; prior names are checked against it.
    """
    if getattr(model, "family", None) != preset["family"]:
        raise ValidationError(
            f"the preset is for the {preset['family']!r} family, not "
            f"{getattr(model, 'family', type(model).__name__)!r}"
        )
    _check_options(preset.get("name", preset["family"]), type(model), preset["model"])
    for key, value in {**preset["sampler"], **preset["model"]}.items():
        setattr(model, key, value)
    model.priors = {**(model.priors or {}), **preset["priors"]}
    model.resolved_priors()  # unknown prior names fail here, before any sampling
    return model
