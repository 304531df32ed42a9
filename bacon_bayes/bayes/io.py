"""Save a fitted judge model to NetCDF and load it back (no pickle).

The file is an ``xarray.DataTree`` (HDF5/NetCDF via h5netcdf) with the ArviZ
groups ``posterior`` and ``sample_stats`` (all draws), ``constant_data`` (the
fitted standardisation of the inputs) and root attributes holding the
configuration (family, parameters, column spec, fit constants), the bacon_bayes
version and the fit id. A saved calibrator holds one such tree per fold.
Loading rebuilds the estimator; its predictions equal the saved model's exactly.
"""

from __future__ import annotations

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
from bacon_bayes.errors import NotFittedError, ValidationError
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
    params = dict(config["params"])
    params["columns"] = ColumnSpec.from_dict(params["columns"])
    model = FAMILIES[config["family"]](**params)
    design = Design(params["columns"])
    const = tree["constant_data"].to_dataset()
    for k in design.state():
        if k in const:  # files written before the judge basis have none
            setattr(design, k, np.asarray(const[k].values))
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
    model.diagnostics_ = Diagnostics(  # files before target_accept was kept: the model's
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
