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


def bias_draws(model: Any) -> dict[str, np.ndarray]:
    """Posterior draws (d, J) of offset, scale, noise and noise_human on the raw scales."""
    if not hasattr(model, "posterior_"):
        raise NotFittedError("fit the model before asking for judge bias")
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
    offset, scale, noise and noise_human, the mean and ``*_low``/``*_high``.
    """
    if not 0 < level < 1:
        raise ValidationError(f"level must be between 0 and 1, got {level}")
    models = list(models) if isinstance(models, Sequence) else [models]
    draws = [bias_draws(m) for m in models]
    pooled = {k: np.concatenate([d[k] for d in draws]) for k in QUANTITIES}
    lo, hi = (1 - level) / 2, (1 + level) / 2
    table: dict[str, Any] = {"judge": list(models[0].columns.judges)}
    for k in QUANTITIES:
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
    labels = {"offset": "offset", "scale": "scale", "noise_human": "noise (human units)"}
    refs = {"offset": 0.0, "scale": 1.0, "noise_human": None}
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
        if refs[k] is not None:
            ax.axvline(refs[k], color="grey", lw=0.8, ls="--")
        ax.set_xlabel(labels[k])
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(ypos, table["judge"].astype(str).tolist())
    fig.suptitle(title or "Judge bias (posterior mean, interval)")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
