"""Save a fitted :class:`~bacon_bayes.calibrator.Calibrator` to NetCDF and load it back.

One ``xarray.DataTree`` file (h5netcdf), no pickle:

* root attributes: format, the layout (:data:`LAYOUT`: a file with it holds every key
  below, one missing is refused; an earlier release's file without it loads its missing
  keys with the values that release used, each said), bacon_bayes version, an id of this save, the
  calibrator's configuration (JSON), the seed its fit used (``seed_used``: the one
  drawn where the configuration's seed is null), the resolved model name and engine;
* ``/pool``: the evaluation pool (ids, labels, groups, text, embedding,
  inclusion probabilities; outcome, judges and notes in its attributes) and
  ``/pool/judge_scores``, the long judge table;
* ``/crossfit``: fold of every item, fold shares, design weights, the feature
  matrix and the surrogate (``predictions``);
* ``/surrogates``: the extra surrogates' cross-fitted predictions, one variable per
  fitted extra (root attribute ``surrogates`` lists every extra, in order; files saved
  before extra surrogates existed have neither and load as model-only calibrators);
* ``/fold_<k>``: for the Bayesian engine, fold ``k``'s model with the ArviZ
  groups ``posterior``, ``sample_stats`` and ``constant_data``
  (:func:`bacon_bayes.bayes.io.model_to_tree`).

Loading rebuilds the calibrator without fitting anything for the Bayesian
engine; every estimate and item score then equals the saved calibrator's
exactly. Frequentist fold models (and the extra surrogates, always frequentist)
are refitted on the saved features and fold assignment (deterministic), and the
refit is checked against the saved surrogate.
"""

from __future__ import annotations

import inspect
import json
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from bacon_bayes import surrogates as sur
from bacon_bayes.arguments import POOLINGS, drawn_seed
from bacon_bayes.crossfit import CrossFitResult, cross_fit, cross_fit_with
from bacon_bayes.errors import NotFittedError, ValidationError, missing_key
from bacon_bayes.features import apply_features, build_features, feature_arrays, from_arrays
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.io import read_tree, reading, write_tree
from bacon_bayes.model_choice import resolve_model
from bacon_bayes.pairs import Pairs
from bacon_bayes.pool import EvalPool, OutcomeSpec
from bacon_bayes.scale import labels_outside

__all__ = ["constructor_args", "load_calibrator", "save_calibrator", "saved_id"]

if TYPE_CHECKING:  # the calibrator calls this module, never the other way round
    from bacon_bayes.calibrator import Calibrator

FORMAT = "bacon_bayes.calibrator/1"
#: the layout of a save: a file carrying ``layout`` >= this holds every key this release
#: writes (a key missing from it is refused); a file without it was saved by an earlier
#: release, whose missing keys take the values it used, each said in an
#: :class:`~bacon_bayes.errors.OlderFileWarning`
LAYOUT = 2
_FIX = "Pass a file written by Calibrator.save(), or fit the calibrator again and save it."
_OPTIONAL = ("groups", "text", "propensity", "prompts", "waves")


def constructor_args(cal: Calibrator) -> dict[str, Any]:
    """The calibrator's constructor arguments (an unfitted copy is ``type(cal)(**them)``)."""
    names = [p for p in inspect.signature(type(cal).__init__).parameters if p != "self"]
    return {n: getattr(cal, n) for n in names}


def _config(cal: Calibrator) -> dict[str, Any]:
    """The calibrator's constructor arguments, JSON-ready (custom models refused)."""
    config = constructor_args(cal)
    model = config["model"]
    if model is not None and not isinstance(model, str):
        if not _is_judge_model(model):
            raise ValidationError(
                f"cannot save a calibrator built with a custom {type(model).__name__} "
                "(restoring it would need pickle); build it with a model name instead, "
                "e.g. Calibrator(model='ridge')."
            )
        config["model"] = None  # rebuilt from the saved fold models
    for key in ("winsor", "scale"):
        if isinstance(config.get(key), tuple):
            config[key] = [float(v) for v in config[key]]
    try:
        json.dumps(config)
    except TypeError as err:
        raise ValidationError(f"the calibrator's settings cannot be saved as JSON: {err}") from err
    return config


def _feature_names(cal: Calibrator, X: np.ndarray) -> list[str]:
    """The names of the model's X columns: the features', then the judge model's group
    codes when it reads them (:mod:`bacon_bayes.bayes.groups`)."""
    names = list(cal.features_.names)
    return names + ["group:code"] * (np.shape(X)[1] - len(names))


def _is_judge_model(model: Any) -> bool:
    return type(model).__module__.startswith("bacon_bayes.bayes.")


def _column(values: np.ndarray, name: str = "ids") -> tuple[np.ndarray, str]:
    """An array netCDF can hold, and the dtype to restore: an object array of text as
    text; one of other values (ids that mix numbers and text, tz-aware timestamps,
    bytes, tuples of a MultiIndex) as one typed JSON cell per value (:func:`_encode`),
    so that each comes back as it was, not as text."""
    values = np.asarray(values)
    if values.dtype.kind != "O":
        return values, values.dtype.str
    if all(type(v) is str for v in values.flat):
        return values.astype(str), "object"
    return np.array([json.dumps(_encode(v, name)) for v in values], dtype=str), "json"


def _encode(value: Any, name: str) -> Any:
    """One cell as JSON with its type (:func:`_decode` reverses it); a type it cannot
    keep is refused, naming the column and the fix."""
    if value is None or value is pd.NA or value is pd.NaT:
        return ["none"]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, (bool, np.bool_)):
        return ["bool", bool(value)]
    if isinstance(value, (int, np.integer)):
        return ["int", int(value)]
    if isinstance(value, (float, np.floating)):
        return ["float", float(value)]
    if isinstance(value, (bytes, np.bytes_)):
        return ["bytes", bytes(value).hex()]
    if isinstance(value, (pd.Timestamp, np.datetime64)) or type(value).__name__ == "datetime":
        ts = pd.Timestamp(value)
        return ["time", int(ts.value), None if ts.tz is None else str(ts.tz)]
    if isinstance(value, (pd.Timedelta, np.timedelta64)):
        return ["delta", int(pd.Timedelta(value).value)]
    if isinstance(value, tuple):
        return ["tuple", [_encode(v, name) for v in value]]
    raise ValidationError(
        f"cannot save the pool's {name}: a value {value!r} of type {type(value).__name__} "
        "(text, numbers, bytes, timestamps and tuples of them are kept). Convert the "
        f"column to text (df[col].astype(str)) before EvalPool.from_frame, then fit and save."
    )


def _decode(cell: Any) -> Any:
    """A value of :func:`_encode`'s JSON, with its type."""
    kind, rest = cell[0], cell[1:]
    if kind == "none":
        return None
    if kind == "bytes":
        return bytes.fromhex(rest[0])
    if kind == "time":
        return (
            pd.Timestamp(rest[0], tz="UTC").tz_convert(rest[1])
            if rest[1]
            else pd.Timestamp(rest[0])
        )
    if kind == "delta":
        return pd.Timedelta(rest[0])
    if kind == "tuple":
        return tuple(_decode(v) for v in rest[0])
    return rest[0]  # str, bool, int, float: JSON keeps them


def _pool_tree(pool: EvalPool) -> dict[str, xr.Dataset]:
    data: dict[str, Any] = {}
    dtypes: dict[str, str] = {}
    for name in ("ids", "y", *_OPTIONAL):
        value = getattr(pool, name)
        if value is not None:
            arr, dtypes[name] = _column(value, name)
            data[name] = (("item",), arr)
    if pool.embedding is not None:
        data["embedding"] = (("item", "embedding_dim"), np.asarray(pool.embedding))
    if pool.inclusion is not None:  # the label waves of a design that drew prompts
        data["wave_prompt_pi"] = (("wave", "item"), pool.inclusion.prompt)
        data["wave_within_pi"] = (("wave", "item"), pool.inclusion.within)
        if pool.inclusion.drawn is not None:  # the wave-by-wave estimator's waves
            data["wave_drawn"] = (("item",), np.asarray(pool.inclusion.drawn, dtype=np.int64))
            data["wave_share"] = (("wave",), np.asarray(pool.inclusion.shares))
        if pool.inclusion.selected is not None:  # the pool mean's waves by precision
            data["wave_selected"] = (("item",), np.asarray(pool.inclusion.selected, np.int64))
    if pool.pairs is not None:  # a pool of comparisons: the two models' codes and names
        data["pair_a"] = (("item",), np.asarray(pool.pairs.a, dtype=np.int64))
        data["pair_b"] = (("item",), np.asarray(pool.pairs.b, dtype=np.int64))
    attrs = {
        "outcome_kind": pool.outcome.kind,
        "outcome_levels": json.dumps(
            None if pool.outcome.levels is None else list(pool.outcome.levels)
        ),
        "judges": json.dumps(list(pool.judges)),
        "label_name": pool.label_name,
        "column_names": json.dumps({"group": pool.group_name, "prompt": pool.prompt_name}),
        "notes": json.dumps(list(pool.notes)),
        "wave_names": json.dumps(None if pool.wave_names is None else list(pool.wave_names)),
        "pair_names": json.dumps(None if pool.pairs is None else list(pool.pairs.names)),
        "dtypes": json.dumps(dtypes),
    }
    scores = pool.judge_scores
    score_dtypes = {}
    score_data = {}
    for col in scores.columns:
        arr, score_dtypes[col] = _column(scores[col].to_numpy(), f"judge scores' {col}")
        score_data[col] = (("score_row",), arr)
    judge_scores = xr.Dataset(
        score_data,
        attrs={"columns": json.dumps(list(scores.columns)), "dtypes": json.dumps(score_dtypes)},
    )
    return {"pool": xr.Dataset(data, attrs=attrs), "pool/judge_scores": judge_scores}


def _restore(arr: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "json":  # values of several types, each kept (:func:`_column`)
        out = np.empty(arr.shape, dtype=object)
        for i, cell in enumerate(arr.flat):
            out.flat[i] = _decode(json.loads(str(cell)))
        return out
    return arr.astype(object) if dtype == "object" else arr.astype(np.dtype(dtype))


def _pool_from_tree(tree: xr.DataTree) -> EvalPool:
    ds = tree["pool"].to_dataset()
    dtypes = json.loads(ds.attrs["dtypes"])
    get = {
        name: _restore(ds[name].values, dtypes[name]) if name in ds else None
        for name in ("ids", "y", *_OPTIONAL)
    }
    levels = json.loads(ds.attrs["outcome_levels"])
    js = tree["pool/judge_scores"].to_dataset()
    sdt = json.loads(js.attrs["dtypes"])
    scores = pd.DataFrame(
        {c: _restore(js[c].values, sdt[c]) for c in json.loads(js.attrs["columns"])}
    )
    ids, y = get["ids"], get["y"]
    assert ids is not None and y is not None  # always saved
    names = json.loads(ds.attrs["column_names"])  # these three: filled in by _settings
    wave_names = json.loads(ds.attrs["wave_names"])  # the labels' waves
    pair_names = json.loads(ds.attrs["pair_names"])  # a pool of comparisons
    pairs = (
        None
        if pair_names is None
        else Pairs(
            a=ds["pair_a"].values.astype(np.intp),
            b=ds["pair_b"].values.astype(np.intp),
            names=tuple(str(n) for n in pair_names),
        )
    )
    return EvalPool(
        ids=ids,
        y=y,
        outcome=OutcomeSpec(ds.attrs["outcome_kind"], None if levels is None else tuple(levels)),
        judge_scores=scores,
        judges=tuple(json.loads(ds.attrs["judges"])),
        groups=get["groups"],
        text=get["text"],
        embedding=ds["embedding"].values if "embedding" in ds else None,
        propensity=get["propensity"],
        label_name=str(ds.attrs["label_name"]),
        notes=tuple(json.loads(ds.attrs["notes"])),
        prompts=get["prompts"],
        inclusion=Inclusion(
            ds["wave_prompt_pi"].values,
            ds["wave_within_pi"].values,
            ds["wave_drawn"].values if "wave_drawn" in ds else None,
            ds["wave_share"].values if "wave_share" in ds else None,
            ds["wave_selected"].values if "wave_selected" in ds else None,
        )
        if "wave_prompt_pi" in ds
        else None,
        group_name=names.get("group"),
        prompt_name=names.get("prompt"),
        waves=get["waves"],
        wave_names=None if wave_names is None else tuple(wave_names),
        pairs=pairs,
    )


def save_calibrator(cal: Calibrator, path: str | Path) -> Path:
    """Write a fitted calibrator to ``path`` (NetCDF); see the module docstring."""
    from bacon_bayes import __version__

    if not hasattr(cal, "crossfit_"):
        raise NotFittedError("fit the calibrator before saving it.")
    cf = cal.crossfit_
    save_id = uuid.uuid4().hex
    nodes: dict[str, xr.Dataset | xr.DataTree] = {
        "/": xr.Dataset(
            attrs={
                "format": FORMAT,
                "layout": LAYOUT,
                "bacon_bayes_version": __version__,
                "save_id": save_id,
                "config": json.dumps(_config(cal)),
                "seed_used": int(cal.seed_),  # seed=None: the one drawn at fit
                "model_name": cal.model_name_,
                "engine": cal.engine_,
                "surrogates": json.dumps(list(cal.extras_)),
            }
        ),
        **_pool_tree(cal.pool_),
        "crossfit": xr.Dataset(
            {
                "fold_ids": (("item",), cf.fold_ids),
                "weights": (("fold",), cf.weights),
                "design_weight": (("item",), cf.design_weight),
                "X": (("item", "feature"), cf.X),
                "predictions": (("item",), cf.mean),
            },
            coords={"feature": np.asarray(_feature_names(cal, cf.X), dtype=str)},
        ),
    }
    refit = getattr(cal, "refit_", None)
    if refit is not None:  # trained on an earlier round's labels too (Calibrator.apply)
        nodes["refit"] = xr.Dataset(
            {"X": (("old_item", "feature"), refit["X_old"]), "y": (("old_item",), refit["y_old"])},
            attrs={"calibrator_id": str(refit["calibrator_id"])},
        )
        # its features follow the earlier round's clipping and fills, not its own pool's
        arrays = feature_arrays(cal.features_)
        nodes["features"] = xr.Dataset(
            {k: (tuple(f"{k}_{i}" for i in range(v.ndim)), v) for k, v in arrays.items()}
        )  # fmt: skip
    extra = sur.predictions(cal.extras_)
    if extra:
        nodes["surrogates"] = xr.Dataset({k: (("item",), v) for k, v in extra.items()})
    tree = xr.DataTree.from_dict(nodes)
    if all(_is_judge_model(m) for m in cf.models):
        from bacon_bayes.bayes.io import model_to_tree

        for k, model in enumerate(cf.models):
            tree[f"fold_{k}"] = model_to_tree(model)
    path = write_tree(tree, path)
    cal.save_id_ = save_id
    return path


def saved_id(path: str | Path) -> str | None:
    """The id of the calibrator saved at ``path`` (None: no file, or not a calibrator)."""
    import h5netcdf

    try:
        with h5netcdf.File(path, "r") as f:
            if f.attrs.get("format") in (FORMAT, FORMAT.encode()):
                value = f.attrs.get("save_id")
                return None if value is None else str(np.asarray(value).astype(str))
    except (OSError, ValueError):
        pass
    return None


def _refit_folds(
    cal: Calibrator, model: Any, X: np.ndarray, fold_ids: np.ndarray, old: xr.Dataset | None
) -> CrossFitResult:
    """The frequentist fold models of a saved calibrator fitted again (with an earlier
    round's labels too when it was refit: ``old``)."""
    if old is not None:
        return cross_fit_with(
            model, X, cal.pool_.y, old["X"].values, old["y"].values,
            fold_ids=fold_ids, pi=cal.pool_.propensity,
        )  # fmt: skip
    return cross_fit(model, X, cal.pool_.y, fold_ids=fold_ids, pi=cal.pool_.propensity)


def load_calibrator(path: str | Path, cls: type[Calibrator]) -> Calibrator:
    """Read a calibrator written by :func:`save_calibrator` as an instance of ``cls``
    (:class:`~bacon_bayes.calibrator.Calibrator`), ready for every estimate."""
    tree = read_tree(path, "calibrator", _FIX)
    if tree.attrs.get("format") != FORMAT:
        raise ValidationError(
            f"{str(path)!r} is not a saved bacon_bayes calibrator (format "
            f"{tree.attrs.get('format')!r}; expected {FORMAT!r}). {_FIX}"
        )
    _check_parts(tree, path)
    with reading(path, "calibrator file", _FIX):
        return _calibrator_from_tree(tree, path, cls)


#: the root attributes and groups every saved calibrator has had
_REQUIRED_ATTRS = ("save_id", "config", "model_name", "engine")
_REQUIRED_PARTS = ("pool", "pool/judge_scores", "crossfit")


def _saved_by(tree: Any) -> str:
    """`` (saved by bacon_bayes X; this is Y)`` when the file names another version."""
    from bacon_bayes import __version__

    version = tree.attrs.get("bacon_bayes_version")
    if version is None or str(version) == __version__:
        return ""
    return f" (saved by bacon_bayes {version}; this is {__version__})"


def _check_parts(tree: Any, path: str | Path) -> None:
    """Refuse a calibrator file that lacks a part every save writes, naming the part: a
    file edited or rewritten by another program, not one cut short."""
    missing = [f"attribute {a!r}" for a in _REQUIRED_ATTRS if a not in tree.attrs]
    for part in _REQUIRED_PARTS:
        node = tree
        for name in part.split("/"):
            node = node.children.get(name) if node is not None else None
        if node is None:
            missing.append(f"group '/{part}'")
    if missing:
        raise ValidationError(
            f"calibrator file {str(path)!r}{_saved_by(tree)} has no {', no '.join(missing)}, "
            "which every saved calibrator has: it was changed after saving (an attribute or "
            f"group removed, or rewritten by another program). {_FIX}"
        )


def _pair(value: Any, low: float, high: float) -> bool:
    """Whether ``value`` is ``[a, b]`` with ``low <= a < b <= high``."""
    ok = isinstance(value, list) and len(value) == 2
    ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    return ok and low <= value[0] < value[1] <= high


def _whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


#: what each saved setting must be: a test and the words for it
_SETTINGS: dict[str, tuple[Any, str]] = {
    "model": (lambda v: v is None or isinstance(v, str), "a model name or null"),
    "engine": (lambda v: v in ("auto", "bayes", "freq"), "'auto', 'bayes' or 'freq'"),
    "folds": (lambda v: _whole(v, 2), "a whole number >= 2"),
    "seed": (lambda v: v is None or _whole(v, 0), "null or a whole number >= 0"),
    "power_tuning": (lambda v: isinstance(v, bool), "true or false"),
    "hajek": (lambda v: isinstance(v, bool), "true or false"),
    "target": (lambda v: v in ("pool", "population", "superpopulation"), "'pool' or 'population'"),
    "winsor": (lambda v: _pair(v, 0.0, 1.0), "two quantiles [low, high], 0 <= low < high <= 1"),
    "n_components": (lambda v: v is None or _whole(v, 1), "null or a whole number >= 1"),
    "scale": (lambda v: v is None or _pair(v, -np.inf, np.inf), "null or [low, high], low < high"),
    "preset": (lambda v: v is None or isinstance(v, str), "null or a preset name"),
    "surrogates": (
        lambda v: v is None or (isinstance(v, list) and all(isinstance(x, str) for x in v)),
        "null or a list of names",
    ),
    "pooling": (lambda v: v in POOLINGS, "'auto', 'shrink' or 'separate'"),
    "group_effects": (lambda v: isinstance(v, bool) or v == "auto", "'auto', true or false"),
}


def _checked_config(text: Any, path: str | Path, version: str = "") -> dict[str, Any]:
    """The saved ``config`` attribute, parsed and checked setting by setting (a changed
    or damaged file is refused here, not accepted to fail, or run oddly, later)."""
    config = json.loads(str(text))
    where = f"calibrator file {str(path)!r}"
    if not isinstance(config, dict):
        raise ValidationError(
            f"{where}: its settings (config) are a JSON {type(config).__name__}, not an "
            f"object of settings; the file was changed or damaged. {_FIX}"
        )
    for key, value in config.items():
        test, words = _SETTINGS.get(key, (None, ""))
        if test is None:
            raise ValidationError(
                f"{where}{version}: unknown saved setting {key!r} (a newer bacon_bayes's, or "
                f"the file was changed). {_FIX}"
            )
        if not test(value):
            raise ValidationError(
                f"{where}: the saved setting {key}={json.dumps(value)} must be {words}; the "
                f"file was changed or damaged. {_FIX}"
            )
    return config


def _absent(tree: Any, path: str | Path, what: str, assumed: Any) -> None:
    """A key missing from a saved file: said, with the value assumed, when an earlier
    release saved the file (no ``layout`` attribute); refused when this release did
    (:func:`~bacon_bayes.errors.missing_key`)."""
    where = f"calibrator file {str(path)!r}{_saved_by(tree)}"
    missing_key(int(tree.attrs.get("layout", 1)) >= LAYOUT, where, what, str(assumed), _FIX)


#: the pool's attributes added after the first release, and the value before them
_POOL_ADDED = {"column_names": "{}", "wave_names": "null", "pair_names": "null"}


def _settings(tree: Any, path: str | Path, cls: type[Calibrator]) -> dict[str, Any]:
    """The saved settings, every one the constructor takes: one an earlier release did
    not save takes its default (said); one missing from a file of this release is
    refused (:func:`_absent`). The attributes added since the first release, likewise."""
    config = _checked_config(tree.attrs["config"], path, _saved_by(tree))
    if "surrogates" not in tree.attrs:  # saved before extra surrogates existed
        _absent(tree, path, "attribute 'surrogates'", "no extra surrogates (surrogates=[])")
        config["surrogates"] = []
        tree.attrs["surrogates"] = "[]"
    defaults = inspect.signature(cls.__init__).parameters
    for key, param in defaults.items():
        if key != "self" and key not in config and key in _SETTINGS:
            config[key] = param.default
            _absent(tree, path, f"the setting {key!r}", f"{key}={param.default!r}")
    pool = tree["pool"]
    for key, before in _POOL_ADDED.items():
        if key not in pool.attrs:
            _absent(tree, path, f"pool attribute {key!r}", f"{key}={before}")
            pool.attrs[key] = before
    for key in ("winsor", "scale"):
        if isinstance(config.get(key), list):
            config[key] = tuple(config[key])
    return config


def _calibrator_from_tree(tree: Any, path: str | Path, cls: type[Calibrator]) -> Calibrator:
    cal = cls(**_settings(tree, path, cls))
    cal.pool_ = _pool_from_tree(tree)
    if "seed_used" in tree.attrs:  # the seed the saved fit used
        cal.seed_ = int(tree.attrs["seed_used"])
    else:  # saved before it was kept: the setting, or for seed=None a fresh one, as drawn
        cal.seed_ = drawn_seed(cal.seed)
        _absent(tree, path, "attribute 'seed_used'", f"seed {cal.seed_} (its setting)")
    scale = cal.scale  # fit refuses labels outside the scale; so does loading
    if scale is not None and (where := labels_outside(cal.pool_, *scale)) is not None:
        raise ValidationError(
            f"calibrator file {str(path)!r}: its saved scale does not hold its saved labels: "
            f"{where}; the file was changed or damaged. {_FIX}"
        )
    if "features" in tree.children:  # a refit: the features of an earlier round's pool
        arrays = {k: v.values for k, v in tree["features"].to_dataset().data_vars.items()}
        cal.features_ = apply_features(cal.pool_, from_arrays(arrays))
    else:
        cal.features_ = build_features(
            cal.pool_, winsor=cal.winsor, n_components=cal.n_components, seed=cal.seed_
        )
    cfd = tree["crossfit"].to_dataset()
    X = cfd["X"].values
    if not np.array_equal(cal.features_.X, X[:, : cal.features_.X.shape[1]]):
        raise ValidationError(
            f"{str(path)!r}: this version of bacon_bayes builds different features from the "
            "saved pool than the one that saved it; refit the calibrator."
        )
    cal.engine_ = str(tree.attrs["engine"])
    cal.model_name_ = str(tree.attrs["model_name"])
    fold_ids = cfd["fold_ids"].values
    saved = cfd["predictions"].values
    if "fold_0" in tree.children:
        from bacon_bayes.bayes.io import model_from_tree

        models = [
            model_from_tree(tree.children[f"fold_{k}"], f"{str(path)!r} fold {k}")
            for k in range(cfd.sizes["fold"])
        ]
        template = models[0]
        cal.model_ = type(template)(**template.get_params())
        if cal.engine_ == "custom":  # built from a judge-model instance
            cal.model = cal.model_
        cal.crossfit_ = CrossFitResult(
            fold_ids, models, cfd["weights"].values, X, saved, cfd["design_weight"].values
        )
    else:
        cal.model_, cal.model_name_, cal.engine_ = resolve_model(cal, cal.pool_, cal.features_)
        old = tree["refit"].to_dataset() if "refit" in tree.children else None
        cal.crossfit_ = _refit_folds(cal, cal.model_, X, fold_ids, old)
        for earlier in getattr(cal.model_, "EARLIER_RELEASES", ()):
            if np.allclose(cal.crossfit_.mean, saved, rtol=1e-9, atol=1e-12):
                break
            # saved by an earlier release: its fold models refitted with its settings
            model = type(cal.model_)(**{**cal.model_.get_params(), **earlier})
            crossfit = _refit_folds(cal, model, X, fold_ids, old)
            if np.allclose(crossfit.mean, saved, rtol=1e-9, atol=1e-12):
                cal.model_, cal.crossfit_ = model, crossfit
        if not np.allclose(cal.crossfit_.mean, saved, rtol=1e-9, atol=1e-12):
            raise ValidationError(
                f"{str(path)!r}: refitting the frequentist fold models did not reproduce the "
                "saved surrogate; refit the calibrator with this version."
            )
        cal.crossfit_.mean = saved
    cal.extras_ = _extras_from_tree(tree, path, cal)
    cal.save_id_ = str(tree.attrs["save_id"])
    if "refit" in tree.children:
        old = tree["refit"].to_dataset()
        cal.refit_ = {
            "n_old_labels": int(np.sum(~np.isnan(old["y"].values))),
            "calibrator_id": old.attrs.get("calibrator_id"),
            "X_old": old["X"].values,
            "y_old": old["y"].values,
        }
    return cal


def _extras_from_tree(tree: Any, path: str | Path, cal: Calibrator) -> sur.Extras:
    """Refit the extra surrogates on the saved folds; check them against the saved ones."""
    names = json.loads(tree.attrs["surrogates"])  # filled in by _settings for older files
    extras = sur.fit_extras(names, cal.pool_, cal.features_, cal.crossfit_)
    saved = tree["surrogates"].to_dataset() if "surrogates" in tree.children else {}
    for name, cf in extras.items():
        if cf is None:
            continue
        if name not in saved or not np.allclose(cf.mean, saved[name].values, rtol=1e-9, atol=1e-12):
            raise ValidationError(
                f"{str(path)!r}: refitting the extra surrogate {name!r} did not reproduce the "
                "saved one; refit the calibrator with this version."
            )
        cf.mean = saved[name].values
    return extras
