"""Per-judge bias table and forest plot on the human scale.

A judge's bias is read from the measurement model: judge j gives
``offset_j + scale_j * q`` (plus noise of standard deviation ``noise_j``) to an
item whose human-scale quality is q. For the gaussian family q is the expected
human label given the latent quality and the mapping is exact. For the ordinal
family the latent z is mapped to the expected human score ``h(z) = E[y | z]``
by its least-squares line over the population distribution of z (per draw);
offset and scale are then per unit of expected human score. The hurdle family is
treated the same way with ``h(z) = E[y | z]``.
``noise_human = noise / |scale|`` is the judge's error in units of q (lower is
more reliable; never negative, also for a judge whose scale runs against the label's).

q is on the label's scale but is not the label: it is the part of the label that
the judges' shared latent quality predicts, and its spread, ``quality_sd`` (the sd of
q over the population, per draw), is smaller than the labels' sd by all that the
label holds beyond it (the raters' own noise, and what every judge misses). ``scale``
and ``noise_human`` are per unit of q, so they read against ``quality_sd``, not
against the labels' sd: ``quality_sd**2 / (quality_sd**2 + noise_human**2)`` is the
share of the judge's variance that follows q. The frequentist engine's line is on
the label itself (:func:`bacon_bayes.judge_bias.freq_judge_bias`); the two differ by
that much, on the SummEval example pool about fourfold (q's sd 0.32, labels' 0.75).

For the multinomial (Dawid-Skene) family a judge's bias is its confusion matrix
``theta_j[k, l] = P(judge says level l | true level k)`` (:func:`confusion_draws`):
for a binary outcome ``fpr = theta[0, 1]`` (says the second level when the truth is
the first) and ``fnr = theta[1, 0]``; with K > 2 levels ``acc_<level> = theta[k, k]``
(per-class accuracy, i.e. recall). Continuous judges of a categorical outcome get
their class means ``mean_<level>`` and ``noise`` on their own scale instead. A cell
that does not apply to a judge's type is NaN. The confusion matrix is relative to the
model's latent class (the class the judges' scores define); the rates against the human
label (``fpr_human``, ..., which differ when the judges err together) are design-based
AEE estimates of the Calibrator (:func:`bacon_bayes.judge_bias.human_rates`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.atomic import write_file
from bacon_bayes.errors import NotFittedError, ValidationError

__all__ = ["bias_draws", "forest_figure", "forest_plot", "judge_bias", "label_scale_judges"]

#: Name prefixes of the confusion rates against the human label (a Calibrator's table).
HUMAN_RATES = ("fpr_human", "fnr_human", "acc_human_")


def _weights_given_z(model: Any, post: dict[str, np.ndarray]):
    """Per draw, the link's judge-weight terms given z: ``N(A + B z, S)`` jointly over
    the link's parts, or None without judge weights.

    The terms are ``(B d_p)' l`` (B: the model's ``_weight_basis``) with the
    standardised judge scores ``l = a + c z + e``, ``e ~ N(0, diag(s^2))``: A and B
    are (d, P), S (d, P, P) for P parts.
    """
    names = model.judge_weight_names
    if names[0] not in post:
        return None
    basis = model._weight_basis()
    w = np.stack([post[n] @ basis.T for n in names], axis=1)  # (d, P, J)
    c, s2 = np.exp(post["log_scale"]), np.exp(2.0 * post["log_noise"])
    A = np.einsum("dpj,dj->dp", w, post["offset"])
    B = np.einsum("dpj,dj->dp", w, c)
    S = np.einsum("dpj,dqj,dj->dpq", w, w, s2)
    return A, B, S


def _human_line(model: Any, post: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per-draw (alpha, beta) with human-scale quality ~ alpha + beta * z_std."""
    n = next(iter(post.values())).shape[0]
    weights = _weights_given_z(model, post)
    if weights is None:
        weights = (np.zeros((n, 0)), np.zeros((n, 0)), np.zeros((n, 0, 0)))
    A, B, S = weights
    if model.family == "gaussian":
        c = model.constants_  # human quality = y_center + y_scale * (b0 + b1 z + A + B z)
        a0, b0 = A.sum(axis=1), B.sum(axis=1)
        return (
            c["y_center"] + c["y_scale"] * (post["intercept"] + a0),
            c["y_scale"] * (post["slope"] + b0),
        )
    if hasattr(model, "_expected_given_z"):
        nodes, weights_1d = np.polynomial.hermite_e.hermegauss(40)
        weights_1d = weights_1d / weights_1d.sum()
        spread = _latent_sd(post, n)
        z = spread[:, None] * nodes[None, :]
        h = np.zeros_like(z)  # E[y | z], averaging over the judge-weight terms' noise
        for u, weight in _normal_grid(S):
            off = tuple((A[:, p] + u[:, p])[:, None] + B[:, p, None] * z for p in range(A.shape[1]))
            h += weight * model._expected_given_z(post, z, off or None)
        zm = (z * weights_1d).sum(axis=1, keepdims=True)
        hm = (h * weights_1d).sum(axis=1, keepdims=True)
        dz = z - zm
        beta = (dz * (h - hm) * weights_1d).sum(axis=1) / (dz**2 * weights_1d).sum(axis=1)
        return (hm[:, 0] - beta * zm[:, 0]), beta
    raise ValidationError(f"judge bias is not defined for the {model.family} family")


def _latent_sd(post: dict[str, np.ndarray], n: int) -> np.ndarray:
    """Per draw, the sd of the latent z over the population (``N(q' theta, 1)`` with the
    embedding rows of unit variance: ``sqrt(1 + |theta|^2)``)."""
    return np.sqrt(1.0 + (post["theta"] ** 2).sum(axis=1)) if "theta" in post else np.ones(n)


def _normal_grid(S: np.ndarray, points: int = 12):
    """Gauss-Hermite nodes ``u`` (d, P) and weights of ``N(0, S_d)`` per draw, S (d, P, P)."""
    P = S.shape[1]
    if P == 0:
        yield np.zeros((S.shape[0], 0)), 1.0
        return
    nodes, weights = np.polynomial.hermite_e.hermegauss(points)
    weights = weights / weights.sum()
    chol = np.linalg.cholesky(S + 1e-12 * np.eye(P))
    for idx in np.ndindex(*(points,) * P):
        yield chol @ nodes[list(idx)], float(np.prod(weights[list(idx)]))


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
    """Posterior draws (d, J) of bias (judge minus human at the pool's typical item),
    offset, scale, noise and noise_human on the raw scales, and ``quality_sd``, the sd
    of the human-scale quality q the line is on (the same for every judge; see the
    module's note) (the multinomial family: :func:`confusion_draws`)."""
    if not hasattr(model, "posterior_"):
        raise NotFittedError("fit the model before asking for judge bias")
    if model.family == "multinomial":
        return confusion_draws(model)
    if model.family == "pairwise":
        raise ValidationError(
            "the pairwise judge model has no offset/scale/noise table: read its terms "
            "with bacon_bayes.bayes.pairwise.pairwise_judge_terms(calibrator)"
        )
    post = model.posterior_
    d = model.design_
    jc, js = d.judge_center[None, :], d.judge_scale[None, :]
    alpha, beta = _human_line(model, post)
    c = np.exp(post["log_scale"])
    scale = js * c / beta[:, None]
    offset = jc + js * post["offset"] - scale * alpha[:, None]
    noise = js * np.exp(post["log_noise"])
    # at the pool's typical item (z at its population mean 0) the judge expects
    # jc + js * offset_std and people alpha (the human line's value there, the mean of
    # E[y | z] over the population): their difference is the judge's bias
    bias = jc + js * post["offset"] - alpha[:, None]
    return {
        "bias": bias,
        "offset": offset,
        "scale": scale,
        "noise": noise,
        # per draw, a standard deviation: positive whichever way the judge's scale runs
        "noise_human": noise / np.abs(scale),
        # the sd of q = alpha + beta z over the population: what scale and noise_human
        # are per unit of (not the labels' sd, which also holds what q does not)
        "quality_sd": np.broadcast_to(
            (np.abs(beta) * _latent_sd(post, beta.shape[0]))[:, None], scale.shape
        ).copy(),
    }


def judge_bias(models: Any, level: float = 0.9) -> pd.DataFrame:
    """Per-judge bias table: posterior mean and central ``level`` interval.

    ``models`` is a fitted judge model or a list of them (e.g. the cross-fitting
    fold models; their draws are pooled). Columns: ``judge`` and, for each of
    offset, scale, noise and noise_human (multinomial: the :func:`confusion_draws`
    quantities, after a ``type`` column), the mean and
    ``*_low``/``*_high``; gaussian/ordinal/hurdle also ``bias`` (see
    :func:`bias_draws`).
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


def label_scale_judges(table: pd.DataFrame) -> np.ndarray:
    """bool per row of a judge-bias table: the judge scores on the label's scale, so its
    ``offset`` and ``scale`` are in the label's units and compare with the others'.

    Read from the table's ``same_scale`` column (``bacon_bayes.judge_bias``'s
    ``on_label_scale`` and ``freq_judge_bias``: False off the label's range, or for a
    judge that falls as the label rises), else from where ``bias`` is given; every judge
    without either (a table of :func:`judge_bias` alone, which assumes one scale).
    """
    if "same_scale" in table:
        return table["same_scale"].eq(True).to_numpy(dtype=bool)
    if "bias" in table:
        return table["bias"].notna().to_numpy(dtype=bool)
    return np.ones(len(table), dtype=bool)


def forest_plot(
    table: pd.DataFrame,
    path: str | Path,
    *,
    title: str | None = None,
    every_line: bool = False,
) -> Path:
    """Write a forest plot (one panel per quantity, one row per judge) as PNG.

    As :func:`forest_figure`: ``offset`` and ``scale`` only for the judges on the
    label's scale (``every_line``: for every judge).
    """
    import matplotlib.pyplot as plt

    fig = forest_figure(table, title=title, every_line=every_line)
    try:
        return write_file(path, lambda tmp: fig.savefig(tmp, dpi=120, format="png"))
    finally:
        plt.close(fig)


#: The panels of a judge's line, in the judge's units: drawn only for the judges on the
#: label's scale (:func:`label_scale_judges`).
LINE_PANELS = ("offset", "scale")


def line_judges(table: pd.DataFrame, every_line: bool = False) -> np.ndarray:
    """bool per judge: its ``offset`` and ``scale`` are drawn (on the label's scale, or
    ``every_line``)."""
    return np.ones(len(table), dtype=bool) if every_line else label_scale_judges(table)


def forest_panels(table: pd.DataFrame, every_line: bool = False) -> list[str]:
    """The quantities :func:`forest_figure` draws a panel of, in its order (no offset
    and scale where no judge is on the label's scale, unless ``every_line``)."""
    panels = [k for k in ("bias", "offset", "scale", "noise_human") if k in table]
    if "bias" in table and not table["bias"].notna().any():
        panels.remove("bias")  # no judge on the label's scale
    with_interval = [k for k in table if f"{k}_low" in table and f"{k}_high" in table]
    if not panels:  # multinomial: every quantity with an interval
        panels = with_interval
    else:  # the frequentist table of a categorical label: its rates against people too
        panels = panels + [k for k in with_interval if k.startswith(HUMAN_RATES)]
    if not line_judges(table, every_line).any():
        panels = [k for k in panels if k not in LINE_PANELS]
    return panels


def draws_intervals(table: pd.DataFrame) -> bool:
    """Whether :func:`forest_figure` draws an interval at all (the frequentist table of
    judges off the label's scale has none: no bias panel, and points only for offset,
    scale and noise)."""
    return any(
        f"{k}_low" in table and f"{k}_high" in table
        and bool(np.isfinite(table[[f"{k}_low", f"{k}_high"]].to_numpy(float)).all(1).any())
        for k in forest_panels(table)
    )  # fmt: skip


def forest_figure(
    table: pd.DataFrame, *, title: str | None = None, every_line: bool = False
) -> Any:
    """The forest plot as a matplotlib figure (one panel per quantity, a row per judge).

    ``offset`` and ``scale`` are in each judge's units: only the judges on the label's
    scale (:func:`label_scale_judges`) are drawn there, the
    panels titled "k of n judges" when some are left out and dropped when none is on it
    (``every_line``: every judge, as before); the other panels have every judge.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = forest_panels(table, every_line)
    labels = {
        "bias": "bias (judge - human, typical item)",
        "offset": "offset",
        "scale": "scale",
        "noise_human": "noise (human units)",
        "fpr": "false-positive rate",
        "fnr": "false-negative rate",
        "fpr_human": "false-positive rate (vs human)",
        "fnr_human": "false-negative rate (vs human)",
    }
    refs = {"bias": 0.0, "offset": 0.0, "scale": 1.0}
    n = len(table)
    drawn = line_judges(table, every_line)
    fig, axes = plt.subplots(  # the height by every judge: the noise panel has them all
        1, len(panels), figsize=(3.2 * len(panels), 0.9 + 0.35 * n), sharey=True
    )
    axes = np.atleast_1d(axes)
    ypos = np.arange(n)[::-1]
    for ax, k in zip(axes, panels, strict=True):
        rows = drawn if k in LINE_PANELS else np.ones(n, dtype=bool)
        mean = table[k].to_numpy(dtype=float)[rows]
        err = None  # points only where the table has no interval (frequentist offset/scale)
        if f"{k}_low" in table and f"{k}_high" in table:
            low, high = table[f"{k}_low"].to_numpy(float), table[f"{k}_high"].to_numpy(float)
            err = [mean - low[rows], high[rows] - mean]
        ax.errorbar(mean, ypos[rows], xerr=err, fmt="o", color="tab:blue", capsize=3)
        if k in refs:
            ax.axvline(refs[k], color="grey", lw=0.8, ls="--")
        if k in LINE_PANELS and not rows.all():
            ax.set_title(f"{int(rows.sum())} of {n} judges (on the label's scale)", fontsize=8)
        ax.set_xlabel(labels.get(k, k))
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(ypos, table["judge"].astype(str).tolist())
    fig.suptitle(title or "Judge bias (estimate, interval)")
    fig.tight_layout()
    return fig
