"""Save a fitted judge model to NetCDF and load it back (no pickle).

The file is an ``xarray.DataTree`` (HDF5/NetCDF via h5netcdf) with the ArviZ
groups ``posterior`` and ``sample_stats`` (all draws), ``constant_data`` (the
fitted standardisation of the inputs) and root attributes holding the
configuration (family, parameters, column spec, fit constants), the bacon_bayes
version and the fit id. A saved calibrator holds one such tree per fold.
Loading rebuilds the estimator; its predictions equal the saved model's exactly.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from bacon_bayes.bayes.base import JudgeModel
from bacon_bayes.bayes.columns import ColumnSpec, Design
from bacon_bayes.bayes.diagnostics import Diagnostics
from bacon_bayes.bayes.gaussian import GaussianJudgeModel
from bacon_bayes.bayes.hurdle import HurdleJudgeModel
from bacon_bayes.bayes.multinomial import MultinomialJudgeModel
from bacon_bayes.bayes.ordinal import OrdinalJudgeModel
from bacon_bayes.bayes.pairwise_model import PairwiseJudgeModel
from bacon_bayes.bayes.posterior import _thin
from bacon_bayes.errors import NotFittedError, ValidationError, missing_key
from bacon_bayes.io import read_tree, reading, write_tree

__all__ = ["load_model", "model_from_tree", "model_to_tree", "save_model"]

FAMILIES: dict[str, type[JudgeModel]] = {
    "gaussian": GaussianJudgeModel,
    "hurdle": HurdleJudgeModel,
    "multinomial": MultinomialJudgeModel,
    "ordinal": OrdinalJudgeModel,
    "pairwise": PairwiseJudgeModel,
}
FORMAT = "bacon_bayes.judge_model/1"
#: the layout of a saved judge model (its configuration's ``layout``): a file carrying it
#: holds every parameter, constant and diagnostic this release writes (one missing is
#: refused); a file without it was saved by an earlier release, whose missing keys take
#: the values that release used, each said in an
#: :class:`~bacon_bayes.errors.OlderFileWarning` (as a saved calibrator's,
#: :data:`bacon_bayes.persist.LAYOUT`)
LAYOUT = 2
_FIX = "Pass a file written by save_model(), or fit the model again and save it."


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, ColumnSpec):
        return value.to_dict()
    return value


def model_to_tree(model: JudgeModel) -> xr.DataTree:
    """A fitted judge model as a DataTree: ``posterior``, ``sample_stats``,
    ``constant_data``; configuration, version and fit id in the root attributes."""
    from bacon_bayes import __version__

    if not hasattr(model, "posterior_"):
        raise NotFittedError("fit the model before saving it")
    params = {k: _jsonable(v) for k, v in model.get_params().items()}
    config = {
        "format": FORMAT,
        "layout": LAYOUT,
        "family": model.family,
        "params": params,
        "constants": {k: _jsonable(v) for k, v in model.constants_.items()},
        "diagnostics": model.diagnostics_.to_dict(),
    }
    const = xr.Dataset(
        {
            k: (tuple(f"{k}_dim{i}" for i in range(v.ndim)), v)
            for k, v in model.design_.state().items()
        }
    )
    tree = xr.DataTree.from_dict(
        {
            "posterior": model.idata_.posterior,
            "sample_stats": model.idata_.sample_stats,
            "constant_data": const,
        }
    )
    tree.attrs.update(
        {
            "bacon_bayes_config": json.dumps(config),
            "bacon_bayes_version": __version__,
            "fit_id": model.fit_id_,
        }
    )
    return tree


def _defaults(cls: type[JudgeModel]) -> dict[str, Any]:
    """Every parameter of ``cls``'s constructor with its default, the base classes' too
    (a family's ``__init__`` hands ``**kwargs`` on to :class:`JudgeModel`'s)."""
    out: dict[str, Any] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        for key, param in inspect.signature(init).parameters.items():
            if param.default is not param.empty and param.kind is not param.VAR_KEYWORD:
                out.setdefault(key, param.default)
    return out


def model_from_tree(tree: xr.DataTree, source: str = "the file") -> JudgeModel:
    """Rebuild a fitted judge model from :func:`model_to_tree`'s tree."""
    import arviz as az

    attrs = tree.attrs
    if "bacon_bayes_config" not in attrs:
        raise ValidationError(f"{source} is not a bacon_bayes judge model. {_FIX}")
    config = json.loads(attrs["bacon_bayes_config"])
    if config.get("format") != FORMAT:
        raise ValidationError(
            f"{source} has unknown format {config.get('format')!r} (this version reads "
            f"{FORMAT!r}); save the model again with this version"
        )
    current = int(config.get("layout", 1)) >= LAYOUT

    def absent(what: str, assumed: str) -> None:
        missing_key(current, f"judge model {source}", what, assumed, _FIX)

    cls = FAMILIES[config["family"]]
    params = dict(config["params"])
    for key, default in _defaults(cls).items():
        if key not in params:
            absent(f"parameter {key!r}", f"{key}={default!r}")
    params["columns"] = ColumnSpec.from_dict(params["columns"])
    model = cls(**params)
    design = Design(params["columns"])
    const = tree["constant_data"].to_dataset()
    for k in design.state():
        if k in const:
            setattr(design, k, np.asarray(const[k].values))
        else:  # files written before the judge basis have none
            absent(f"constant {k!r}", "none (empty)")
    model.design_ = design
    constants = dict(config["constants"])
    if "levels" in constants:
        constants["levels"] = np.asarray(constants["levels"], dtype=float)
        model.levels_ = constants["levels"]
    model.constants_ = constants
    model.idata_ = az.InferenceData(
        posterior=tree["posterior"].to_dataset(), sample_stats=tree["sample_stats"].to_dataset()
    )
    model.posterior_ = _thin(model.idata_.posterior, model.predict_draws)
    if "target_accept" not in config["diagnostics"]:  # files before it was kept
        absent("diagnostic 'target_accept'", f"the model's, {model.target_accept!r}")
    model.diagnostics_ = Diagnostics(
        **{"target_accept": model.target_accept}
        | {k: v for k, v in config["diagnostics"].items() if k != "ok"}
    )
    model.fit_id_ = str(attrs["fit_id"])
    return model


def save_model(model: JudgeModel, path: str | Path) -> Path:
    """Write a fitted judge model to ``path`` (NetCDF)."""
    return write_tree(model_to_tree(model), path)


def load_model(path: str | Path) -> JudgeModel:
    """Read a judge model written by :func:`save_model`."""
    tree = read_tree(path, "model", _FIX)
    with reading(path, "model file", _FIX):
        return model_from_tree(tree, repr(str(path)))
