"""Posterior bookkeeping of the cut fit: per-fold data blocks, splitting the
vectorised label stage into folds, pairing it with thinned stage-1 draws."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from bacon_bayes.bayes.base import JudgeModel


def _line_fits(m: np.ndarray, m_bar: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row d of ``m`` (draws, items), the least-squares ``m_d ~ shift_d + stretch_d m_bar``."""
    centred = m_bar - m_bar.mean()
    stretch = (m - m.mean(axis=1, keepdims=True)) @ centred / (centred @ centred)
    shift = m.mean(axis=1) - stretch * m_bar.mean()
    return shift, np.maximum(stretch, 1e-6)


def _fold_blocks(items: dict, folds: list[dict]) -> dict[str, np.ndarray]:
    """Stage-2 data, one row per fold holding only that fold's training items (padded
    with weight 0 to the largest fold): every per-item array of ``items`` (``m``, ``v``,
    embedding rows ``q``) and of each fold's labels (``yk``, ``w``, weighted judge
    scores ``r``, group one-hot rows ``g``), each (folds, n, ...)."""
    keep = [np.flatnonzero(labels["w"] > 0) for labels in folds]
    width = max(idx.size for idx in keep)
    out: dict[str, list] = {}
    for idx, labels in zip(keep, folds, strict=True):
        pad = width - idx.size
        own = [(name, labels[name]) for name in ("yk", "w", "r", "g") if name in labels]
        sources = [*items.items(), *own]
        for name, src in sources:
            fill = 1.0 if name == "v" else 0  # a valid variance / level index in the padding
            block = np.asarray(src)[idx]
            filler = np.full((pad, *block.shape[1:]), fill, dtype=block.dtype)
            out.setdefault(name, []).append(np.concatenate([block, filler]))
    return {k: np.stack(v) for k, v in out.items()}


def _unweighted(idata: Any, model: JudgeModel, const: dict) -> Any:
    """``idata`` without the judge-weight variables where this fit does without them
    (``constants_["judge_weights"] == 0``: they saw zero scores and kept their prior)."""
    if const.get("judge_weights", 1.0):
        return idata
    out = idata.copy()
    out.posterior = out.posterior.drop_vars(list(model.judge_weight_names))
    return out


def _unlabeled_groups_zeroed(idata: Any, model: JudgeModel, const: dict) -> Any:
    """``idata`` with the group effects of the groups without a training label in this fit
    (``constants_["group_labels"] == 0``) set to 0 in every draw: their posterior is the
    prior, whose mean is 0 (the draws would only add Monte Carlo noise to predictions);
    a group the model never saw predicts with 0 too. Changes ``idata`` in place."""
    if "group_labels" not in const:
        return idata
    empty = np.asarray(const["group_labels"]) == 0
    if not empty.any():
        return idata
    post = idata.posterior
    for name in model.group_effect_names:
        values = np.array(post[name].values)
        values[..., empty] = 0.0
        post[name] = (post[name].dims, values)
    return idata


def _fold_block(idata: Any, k: int) -> Any:
    """Fold k's parameter block of a stage-2 fit, named and shaped as in a joint fit."""
    import arviz as az
    import xarray as xr

    out = {}
    for name, da in idata.posterior.data_vars.items():
        block = da.isel({da.dims[2]: k}, drop=True)
        names = {d: f"{name}_dim_{i}" for i, d in enumerate(block.dims[2:])}
        out[name] = block.rename(names)
    return az.InferenceData(posterior=xr.Dataset(out), sample_stats=idata.sample_stats)


def _combine(judges: Any, labels: Any) -> Any:
    """One InferenceData of a cut fit: both stages' posteriors (draws paired by index);
    the label stage's sample stats plus the judge stage's per-draw ones as ``judges_*``."""
    import arviz as az
    import xarray as xr

    stats = labels.sample_stats.assign(
        {
            f"judges_{name}": da
            for name, da in judges.sample_stats.data_vars.items()
            if set(da.dims) <= {"chain", "draw"}
        }
    )
    posterior = xr.merge(
        [judges.posterior, labels.posterior], join="exact", combine_attrs="drop_conflicts"
    )
    return az.InferenceData(posterior=posterior, sample_stats=stats)


def _thin_draws(idata: Any, n: int) -> Any:
    """``idata`` (posterior and per-draw sample stats) evenly thinned to n draws per chain."""
    import arviz as az

    total = idata.posterior.sizes["draw"]
    if total <= n:
        return idata
    idx = np.linspace(0, total - 1, n).round().astype(int)
    keep = {"draw": idx}
    stats = idata.sample_stats
    stats = stats[[v for v, da in stats.data_vars.items() if "draw" in da.dims]]
    post = idata.posterior.isel(keep).assign_coords(draw=np.arange(n))
    return az.InferenceData(
        posterior=post, sample_stats=stats.isel(keep).assign_coords(draw=np.arange(n))
    )


def _thin(posterior: Any, n: int) -> dict[str, np.ndarray]:
    """Posterior as {name: (draws, ...)} over chains, evenly thinned to at most n draws."""
    out = {}
    for name, da in posterior.data_vars.items():
        arr = np.asarray(da.values)
        arr = arr.reshape(-1, *arr.shape[2:])
        if arr.shape[0] > n:
            idx = np.linspace(0, arr.shape[0] - 1, n).round().astype(int)
            arr = arr[idx]
        out[str(name)] = arr
    return out
