"""Per-judge bias table and forest plot on the human scale.

A judge's bias is read from the measurement model: judge j gives
``offset_j + scale_j * q`` (plus noise of standard deviation ``noise_j``) to an
item whose human-scale quality is q. For the gaussian family q is the expected
human label given the latent quality and the mapping is exact. For the ordinal
family the latent z is mapped to the expected human score ``h(z) = E[y | z]``
by its least-squares line over the population distribution of z (per draw);
offset and scale are then per unit of expected human score. The hurdle family is
treated the same way with ``h(z) = E[y | z]``.
``noise_human = noise / scale`` is the judge's error in human units (lower is
more reliable).

For the multinomial (Dawid-Skene) family a judge's bias is its confusion matrix
``theta_j[k, l] = P(judge says level l | true level k)`` (:func:`confusion_draws`):
for a binary outcome ``fpr = theta[0, 1]`` (says the second level when the truth is
the first) and ``fnr = theta[1, 0]``; with K > 2 levels ``acc_<level> = theta[k, k]``
(per-class accuracy, i.e. recall). Continuous judges of a categorical outcome get
their class means ``mean_<level>`` and ``noise`` on their own scale instead. A cell
that does not apply to a judge's type is NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import NotFittedError, ValidationError

__all__ = ["bias_draws", "forest_plot", "judge_bias"]

QUANTITIES = ("offset", "scale", "noise", "noise_human")


def _human_line(model: Any, post: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per-draw (alpha, beta) with human-scale quality ~ alpha + beta * z_std."""
    if model.family == "gaussian":
        c = model.constants_  # human quality = y_center + y_scale * (b0 + b1 z)
        return (
            c["y_center"] + c["y_scale"] * post["intercept"],
            c["y_scale"] * post["slope"],
        )
    if hasattr(model, "_expected_given_z"):
        nodes, weights = np.polynomial.hermite_e.hermegauss(40)
        weights = weights / weights.sum()
        n = next(iter(post.values())).shape[0]
        spread = np.sqrt(1.0 + (post["theta"] ** 2).sum(axis=1)) if "theta" in post else np.ones(n)
        z = spread[:, None] * nodes[None, :]
        h = model._expected_given_z(post, z)
        zm = (z * weights).sum(axis=1, keepdims=True)
        hm = (h * weights).sum(axis=1, keepdims=True)
        beta = ((z - zm) * (h - hm) * weights).sum(axis=1) / ((z - zm) ** 2 * weights).sum(axis=1)
        return (hm[:, 0] - beta * zm[:, 0]), beta
    raise ValidationError(f"judge bias is not defined for the {model.family} family")


def confusion_draws(model: Any) -> dict[str, np.ndarray]:
    """Posterior draws (d, J) of the multinomial family's per-judge bias quantities.

    Categorical judges: ``fpr`` and ``fnr`` (binary) or ``acc_<level>`` (K levels);
    continuous judges: ``mean_<level>`` (raw score scale) and ``noise``; NaN elsewhere.
    """
    from bacon_bayes.bayes.multinomial import confusion_from_logits

    post, const = model.posterior_, model.constants_
    levels = np.asarray(const["levels"], dtype=float)
    cat = np.asarray(const["categorical"], dtype=bool)
    K, n = levels.size, next(iter(post.values())).shape[0]
    out: dict[str, np.ndarray] = {}

    def put(name: str, cols: np.ndarray, values: np.ndarray) -> None:
        out[name] = np.full((n, cat.size), np.nan)
        out[name][:, cols] = values

    if cat.any():
        conf = np.exp(confusion_from_logits(post["confusion"], K))
        if K == 2:
            put("fpr", cat, conf[:, :, 0, 1])
            put("fnr", cat, conf[:, :, 1, 0])
        else:
            for k, lv in enumerate(levels):
                put(f"acc_{lv:g}", cat, conf[:, :, k, k])
    if (~cat).any():
        center = model.design_.judge_center[~cat]
        scale = model.design_.judge_scale[~cat]
        for k, lv in enumerate(levels):
            put(f"mean_{lv:g}", ~cat, center + scale * post["class_mean"][:, :, k])
        put("noise", ~cat, scale * np.exp(post["log_noise"]))
    return out


def bias_draws(model: Any) -> dict[str, np.ndarray]:
    """Posterior draws (d, J) of offset, scale, noise and noise_human on the raw scales
    (the multinomial family: :func:`confusion_draws`)."""
    if not hasattr(model, "posterior_"):
        raise NotFittedError("fit the model before asking for judge bias")
    if model.family == "multinomial":
        return confusion_draws(model)
    post = model.posterior_
    d = model.design_
    jc, js = d.judge_center[None, :], d.judge_scale[None, :]
    alpha, beta = _human_line(model, post)
    c = np.exp(post["log_scale"])
    scale = js * c / beta[:, None]
    offset = jc + js * post["offset"] - scale * alpha[:, None]
    noise = js * np.exp(post["log_noise"])
    return {"offset": offset, "scale": scale, "noise": noise, "noise_human": noise / scale}


def judge_bias(models: Any, level: float = 0.9) -> pd.DataFrame:
    """Per-judge bias table: posterior mean and central ``level`` interval.

    ``models`` is a fitted judge model or a list of them (e.g. the cross-fitting
    fold models; their draws are pooled). Columns: ``judge`` and, for each of
    offset, scale, noise and noise_human (multinomial: the :func:`confusion_draws`
    quantities, after a ``type`` column), the mean and ``*_low``/``*_high``.
    """
    if not 0 < level < 1:
        raise ValidationError(f"level must be between 0 and 1, got {level}")
    models = list(models) if isinstance(models, Sequence) else [models]
    draws = [bias_draws(m) for m in models]
    pooled = {k: np.concatenate([d[k] for d in draws]) for k in draws[0]}
    lo, hi = (1 - level) / 2, (1 + level) / 2
    table: dict[str, Any] = {"judge": list(models[0].columns.judges)}
    if models[0].family == "multinomial":
        cat = np.asarray(models[0].constants_["categorical"], dtype=bool)
        table["type"] = np.where(cat, "categorical", "continuous")
    for k in pooled:
        table[k] = pooled[k].mean(axis=0)
        table[f"{k}_low"] = np.quantile(pooled[k], lo, axis=0)
        table[f"{k}_high"] = np.quantile(pooled[k], hi, axis=0)
    return pd.DataFrame(table)


def forest_plot(table: pd.DataFrame, path: str | Path, *, title: str | None = None) -> Path:
    """Write a forest plot (one panel per quantity, one row per judge) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [k for k in ("offset", "scale", "noise_human") if k in table]
    if not panels:  # multinomial: every quantity with an interval
        panels = [k for k in table if f"{k}_low" in table and f"{k}_high" in table]
    labels = {
        "offset": "offset",
        "scale": "scale",
        "noise_human": "noise (human units)",
        "fpr": "false-positive rate",
        "fnr": "false-negative rate",
    }
    refs = {"offset": 0.0, "scale": 1.0}
    n = len(table)
    fig, axes = plt.subplots(
        1, len(panels), figsize=(3.2 * len(panels), 0.9 + 0.35 * n), sharey=True
    )
    axes = np.atleast_1d(axes)
    ypos = np.arange(n)[::-1]
    for ax, k in zip(axes, panels, strict=True):
        mean = table[k].to_numpy()
        err = [mean - table[f"{k}_low"].to_numpy(), table[f"{k}_high"].to_numpy() - mean]
        ax.errorbar(mean, ypos, xerr=err, fmt="o", color="tab:blue", capsize=3)
        if k in refs:
            ax.axvline(refs[k], color="grey", lw=0.8, ls="--")
        ax.set_xlabel(labels.get(k, k))
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(ypos, table["judge"].astype(str).tolist())
    fig.suptitle(title or "Judge bias (posterior mean, interval)")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
