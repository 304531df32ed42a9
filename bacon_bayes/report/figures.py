"""Figures of the HTML report, as inline PNG data (``data:image/png;base64,...``)."""

from __future__ import annotations

import base64
import io
import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.order import cell_name
from bacon_bayes.results import Estimate, EstimateTable

METHOD_COLOR = {"aee": "tab:blue", "classical": "tab:orange", "naive": "tab:grey"}
#: Marker of each series of an interval plot (the first, second, third), so the series
#: differ by shape too, not by colour only (grey print, colour-blind readers).
SERIES_MARKERS = ("o", "s", "^")


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def data_uri(fig: Any, dpi: int = 100) -> str:
    """The figure as an inline PNG (closed afterwards). A name the font lacks glyphs for
    (华为 TSC) draws as boxes, without matplotlib's warning naming this file: the page's
    tables beside the figure spell it."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    _plt().close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def estimates_figure(estimates: Sequence[Estimate], truth: float | None = None) -> str:
    """Point estimates with their intervals, one row per method."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 0.6 + 0.5 * len(estimates)))
    for k, e in enumerate(estimates[::-1]):
        ax.errorbar(
            e.estimate,
            k,
            xerr=[[e.estimate - e.ci_low], [e.ci_high - e.estimate]],
            fmt=SERIES_MARKERS[(len(estimates) - 1 - k) % 3],
            capsize=4,
            color=METHOD_COLOR.get(e.method, "black"),
        )
    ax.set_yticks(range(len(estimates)), [e.method for e in estimates[::-1]])
    if truth is not None:
        ax.axvline(truth, color="green", ls="--", lw=1, label="truth")
        ax.legend(loc="best", fontsize=8)
    ax.set_xlabel(f"{estimates[0].estimand} ({100 * (1 - estimates[0].alpha):g}% CI)")
    ax.grid(axis="x", alpha=0.3)
    return data_uri(fig)


def group_rows(table: EstimateTable) -> np.ndarray:
    """Each group's row in :func:`groups_figure` (0 at the bottom): by ``table``'s
    estimate, the highest on top, groups without an estimate at the bottom (ties and
    those in the table's own, natural order)."""
    est = np.asarray(table.estimate, dtype=float)
    key = np.where(np.isfinite(est), -est, np.inf)
    order = np.argsort(key, kind="stable")  # top row first
    rows = np.empty(est.size, dtype=int)
    rows[order] = np.arange(est.size)[::-1]
    return rows


def groups_figure(
    tables: Sequence[EstimateTable],
    xlabel: str = "group mean (intervals as in the table; x: no interval)",
) -> str:
    """Per-group estimates with simultaneous intervals, one marker per method; the
    groups by the first table's estimate, the highest on top (:func:`group_rows`)."""
    plt = _plt()
    names = list(tables[0].names)
    fig, ax = plt.subplots(figsize=(6.5, 0.8 + 0.35 * len(names)))
    ypos = group_rows(tables[0])
    for k, t in enumerate(tables):
        shift = (k - (len(tables) - 1) / 2) * 0.22
        ok = np.isfinite(t.ci_low)
        ax.errorbar(
            t.estimate[ok],
            ypos[ok] + shift,
            xerr=[t.estimate[ok] - t.ci_low[ok], t.ci_high[ok] - t.estimate[ok]],
            fmt=SERIES_MARKERS[k % 3],
            ms=4,
            capsize=2,
            color=METHOD_COLOR.get(t.method, "black"),
            label=t.method,
        )
        ax.plot(t.estimate[~ok], ypos[~ok] + shift, "x", color=METHOD_COLOR.get(t.method))
    ax.set_yticks(ypos, [cell_name(n) for n in names])
    ax.legend(loc="best", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return data_uri(fig)


#: The mark of a model with a guessed strength on the win-probability heatmap's axes.
GUESS_MARK = " (guess)"


def win_labels(names: Sequence[Any], guessed: Sequence[str] = ()) -> list[str]:
    """The heatmap's axis labels of ``names``: each model as its cell shows it (``' M8'``
    quoted), those of ``guessed`` (a guessed strength) marked :data:`GUESS_MARK`."""
    marked = set(map(str, guessed))
    return [cell_name(n) + (GUESS_MARK if str(n) in marked else "") for n in names]


def win_matrix_figure(win: pd.DataFrame, guessed: Sequence[str] = ()) -> str:
    """Heatmap of ``P(row beats column)`` (rows and columns in the frame's order; the
    diagonal blank), each cell labelled with its value when the matrix is small; the
    models of ``guessed`` (a strength the virtual votes guessed, so their probabilities
    are guesses too) marked on both axes, their rows hatched."""
    plt = _plt()
    m = len(win)
    size = 1.6 + 0.42 * m
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    values = win.to_numpy(dtype=float)
    im = ax.imshow(values, cmap="RdBu", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(m), win_labels(win.columns, guessed), rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(m), win_labels(win.index, guessed), fontsize=8)
    marked = set(map(str, guessed))
    for i, name in enumerate(win.index):
        if str(name) in marked:
            ax.add_patch(
                plt.Rectangle((-0.5, i - 0.5), m, 1, fill=False, hatch="//", lw=0, alpha=0.5)
            )
    for k, name in enumerate(win.index):
        if str(name) in marked:
            ax.get_yticklabels()[k].set_color("dimgrey")
    for k, name in enumerate(win.columns):
        if str(name) in marked:
            ax.get_xticklabels()[k].set_color("dimgrey")
    if m <= 20:
        for i in range(m):
            for j in range(m):
                if np.isfinite(values[i, j]):
                    shade = "white" if abs(values[i, j] - 0.5) > 0.3 else "black"
                    ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center",
                            fontsize=6, color=shade)  # fmt: skip
    ax.set_xlabel("column model")
    ax.set_ylabel("row model")
    fig.colorbar(im, ax=ax, fraction=0.04, label="P(row beats column)")
    return data_uri(fig)


def calibration_bins(
    surrogate: np.ndarray, label: np.ndarray, bins: int = 10
) -> tuple[list[float], list[float], list[float]]:
    """The calibration figure's bins (quantiles of the surrogate, 2 items or more): the
    surrogate's mean, the label's mean and its standard error in each."""
    edges = np.unique(np.quantile(surrogate, np.linspace(0, 1, bins + 1)))
    which = np.clip(np.searchsorted(edges, surrogate, side="right") - 1, 0, len(edges) - 2)
    xs, ys, es = [], [], []
    for b in range(len(edges) - 1):
        inb = which == b
        if inb.sum() >= 2:
            xs.append(float(surrogate[inb].mean()))
            ys.append(float(label[inb].mean()))
            es.append(float(label[inb].std(ddof=1) / np.sqrt(inb.sum())))
    return xs, ys, es


def calibration_figure(surrogate: np.ndarray, label: np.ndarray, bins: int = 10) -> str:
    """Out-of-fold surrogate against the label on the labeled items: binned means with
    their standard errors, the items themselves, and the identity line."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 4.2))
    ax.scatter(surrogate, label, s=8, alpha=0.25, color="grey", label="labeled items")
    xs, ys, es = calibration_bins(surrogate, label, bins)
    ax.errorbar(xs, ys, yerr=es, fmt="o-", color="tab:blue", capsize=3, label="bin means")
    lo = float(min(np.min(surrogate), np.min(label)))
    hi = float(max(np.max(surrogate), np.max(label)))
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8, ls="--", label="identity")
    ax.set_xlabel("out-of-fold surrogate")
    ax.set_ylabel("human label")
    ax.legend(loc="best", fontsize=8)
    return data_uri(fig)


def distributions_figure(columns: dict[str, np.ndarray]) -> str:
    """Histograms of the labels, the surrogate and each judge (small multiples)."""
    plt = _plt()
    names = list(columns)
    ncol = min(4, len(names))
    nrow = int(np.ceil(len(names) / ncol))
    fig, axes = plt.subplots(
        nrow, ncol, figsize=(2.8 * ncol, 2.4 * nrow), squeeze=False, layout="constrained"
    )
    for k, (ax, name) in enumerate(zip(axes.ravel(), names, strict=False)):
        values = np.asarray(columns[name], dtype=float)
        values = values[np.isfinite(values)]
        ax.hist(values, bins=30, color="tab:blue" if name != "label" else "tab:green")
        ax.set_title(wrap_title(name), fontsize=8)
        ax.set_xlabel("score" if name not in ("label", "surrogate") else name, fontsize=7)
        if k % ncol == 0:
            ax.set_ylabel("items", fontsize=7)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(names) :]:
        ax.axis("off")
    return data_uri(fig)


def wrap_title(name: str, width: int = 26, lines: int = 3) -> str:
    """``name`` broken into lines of at most ``width`` characters (at ``|``, ``:``, ``/``,
    ``-``, ``_`` or spaces where it can), at most ``lines`` of them (then shortened with
    an ellipsis in the middle, so both ends stay readable)."""
    if len(name) > width * lines:
        keep = width * lines - 3
        name = name[: keep // 2] + "..." + name[-(keep - keep // 2) :]
    out, line = [], ""
    for piece in re.split(r"(?<=[|:/\-_ ])", name):
        while len(piece) > width:  # a piece without a break: cut it
            out.append(line + piece[: width - len(line)])
            piece, line = piece[width - len(line) :], ""
        if len(line) + len(piece) > width:
            out.append(line)
            line = ""
        line += piece
    out.append(line)
    return "\n".join(x for x in out if x)


#: Line style and marker of each design in the simulate plots (others cycle below).
DESIGN_STYLE = {
    "uniform": ("-", "o"),
    "adaptive": ("--", "s"),
    "stratified": (":", "^"),
    "paired": ("-.", "D"),
    "paired-subset": ((0, (5, 1, 1, 1)), "v"),
    "paired-adaptive": ((0, (3, 1, 1, 1, 1, 1)), "P"),
}
_OTHER_STYLES = [((0, (1, 1)), "X"), ((0, (4, 2)), "*"), ((0, (2, 2)), "h")]
PANEL_LABEL = {
    "rmse": "RMSE of the estimate",
    "width": "mean interval width",
    "coverage": "interval coverage",
}


def simulate_figure(summary: pd.DataFrame, alpha: float | None = None) -> str:
    """RMSE, mean interval width and coverage against the label budget, one line per
    design x method (a ``bacon simulate`` summary).

    Methods keep a colour, designs a line style and marker; the uniform design is drawn
    first and the others over it with hollow markers, so a design that stepped back to
    uniform (the same numbers) still shows. The coverage panel has the binomial band
    (translucent, once) and a line at ``1 - alpha``; the legend sits below the panels.
    """
    plt = _plt()
    panels = [c for c in ("rmse", "width", "coverage") if c in summary]
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.4), squeeze=False)
    keys = [c for c in ("design", "method", "engine") if c in summary]
    groups = list(summary.groupby(keys, sort=True)) if keys else [(("all",), summary)]
    groups.sort(key=lambda g: (_as_tuple(g[0])[0] != "uniform", _as_tuple(g[0])))
    methods = list(dict.fromkeys(str(_as_tuple(n)[1]) for n, _ in groups if len(_as_tuple(n)) > 1))
    designs = list(dict.fromkeys(str(_as_tuple(n)[0]) for n, _ in groups))
    others = iter(_OTHER_STYLES * (1 + len(designs)))
    styles = {d: DESIGN_STYLE.get(d) or next(others) for d in designs}
    for ax, col in zip(axes[0], panels, strict=True):
        if col == "coverage" and {"band_low", "band_high"} <= set(summary):
            band = summary.groupby("budget")[["band_low", "band_high"]].mean().sort_index()
            shade = {"color": "grey", "alpha": 0.12, "lw": 0, "label": "binomial band"}
            if len(band) > 1:
                ax.fill_between(band.index, band["band_low"], band["band_high"], **shade)
            else:  # one budget: the band across the panel
                ax.axhspan(band["band_low"].iloc[0], band["band_high"].iloc[0], **shade)
        if col == "coverage":
            level = 1 - (0.05 if alpha is None else alpha)
            ax.axhline(level, color="black", lw=0.8, ls=":", label=f"nominal {level:g}", zorder=1)
        for k, (name, rows) in enumerate(groups):
            parts = _as_tuple(name)
            rows = rows.sort_values("budget")
            ls, marker = styles[str(parts[0])]
            colour = f"C{methods.index(str(parts[1])) % 10}" if len(parts) > 1 else "C0"
            first = parts[0] == "uniform" or len(designs) == 1
            ax.plot(
                rows["budget"], rows[col], ls=ls, marker=marker, color=colour,
                mfc=colour if first else "none", ms=6 if first else 8, lw=1.4,
                label=" / ".join(map(str, parts)), zorder=2 + k,
            )  # fmt: skip
        ax.set_xlabel("label budget (share of the pool)")
        ax.set_ylabel(PANEL_LABEL.get(col, col))
        ax.set_title(PANEL_LABEL.get(col, col))
        ax.grid(alpha=0.3)
    handles, labels = [], []
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    ncol = max(1, min(len(labels), 2 * len(panels)))
    rows = -(-len(labels) // ncol)
    fig.tight_layout(rect=(0, min(0.5, 0.02 + 0.055 * rows), 1, 1))
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=7, frameon=False)
    return data_uri(fig)


def _as_tuple(name: Any) -> tuple:
    return name if isinstance(name, tuple) else (name,)


#: Most groups drawn beside the pool mean in the trend across rounds.
MAX_TREND_GROUPS = 6


def trend_figure(rounds: Sequence[dict[str, Any]]) -> str:
    """The pool mean of each round with its interval (history ledger records,
    :mod:`bacon_bayes.history`), the last round highlighted; groups seen in two rounds or
    more beside it when there are at most :data:`MAX_TREND_GROUPS` of them. A round
    without an interval (too few fresh labels) is an ``x``."""
    plt = _plt()
    names = [str(r["round"]) for r in rounds]
    x = np.arange(len(rounds), dtype=float)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.0 + 0.9 * len(rounds)), 3.4))
    seen: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for k, r in enumerate(rounds):
        for g in r.get("groups") or []:
            seen.setdefault(str(g["group"]), []).append((k, g))
    lines = {name: pts for name, pts in seen.items() if len(pts) >= 2}
    if len(lines) > MAX_TREND_GROUPS:
        lines = {}
    for n, (name, pts) in enumerate(sorted(lines.items())):
        shift = 0.05 * (n + 1)
        _trend_points(ax, [(x[k] + shift, g) for k, g in pts], f"C{n + 1}", name, 0.6)
    _trend_points(ax, [(x[k], r["mean"]) for k, r in enumerate(rounds)], "black", "pool mean", 1)
    last = rounds[-1]["mean"]
    if last.get("estimate") is not None:
        ax.plot([x[-1]], [last["estimate"]], "o", ms=11, mfc="none", color="tab:red")
    ax.set_xticks(x, [n if len(n) <= 18 else n[:16] + "..." for n in names], rotation=20)
    alpha = rounds[-1].get("alpha", 0.05)
    ax.set_ylabel(f"mean ({100 * (1 - alpha):g}% CI)")
    ax.set_xlabel("round (this round last, circled)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="best", fontsize=7)
    fig.tight_layout()
    return data_uri(fig)


def _trend_points(
    ax: Any, points: Sequence[tuple[float, dict[str, Any]]], color: str, label: str, alpha: float
) -> None:
    """One series of the trend: estimates joined by a line, intervals as error bars."""
    xs = np.array([p[0] for p in points])
    est = np.array([np.nan if p[1].get("estimate") is None else p[1]["estimate"] for p in points])
    low = np.array([p[1].get("ci_low") for p in points], dtype=float)
    high = np.array([p[1].get("ci_high") for p in points], dtype=float)
    ax.plot(xs, est, "-", color=color, alpha=0.4 * alpha, lw=1)
    ok = np.isfinite(low) & np.isfinite(high) & np.isfinite(est)
    ax.errorbar(
        xs[ok], est[ok], yerr=[est[ok] - low[ok], high[ok] - est[ok]], fmt="o", capsize=3,
        color=color, alpha=alpha, label=label,
    )  # fmt: skip
    if (~ok).any():
        ax.plot(xs[~ok], est[~ok], "x", color=color, alpha=alpha)


def sequence_figure(looks: pd.DataFrame, alpha: float = 0.05) -> str:
    """The pool mean at each look (wave) of a study with its anytime interval (the
    sequence) beside the fixed interval of that look alone (``looks``: the frame of
    :func:`bacon_bayes.study.looks.look_estimates`)."""
    plt = _plt()
    x = np.arange(len(looks), dtype=float)
    kind = str(looks["interval_kind"].iloc[-1])
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 + 0.7 * len(looks)), 3.4))
    est = looks["estimate"].to_numpy(float)
    for shift, lo, hi, color, name, marker in (
        (-0.08, "anytime_low", "anytime_high", "tab:blue", f"anytime ({kind})", "o"),
        (0.08, "fixed_low", "fixed_high", "tab:grey", "fixed (one look alone)", "s"),
    ):
        low, high = looks[lo].to_numpy(float), looks[hi].to_numpy(float)
        ax.errorbar(
            x + shift, est, yerr=[est - low, high - est], fmt=marker, ms=4, capsize=3,
            color=color, label=name,
        )  # fmt: skip
    ax.plot(x, est, "-", color="black", alpha=0.3, lw=1)
    ax.set_xticks(x, [f"{w}\n({n})" for w, n in zip(looks["wave"], looks["labels"], strict=True)])
    ax.set_xlabel("wave (labels so far)")
    ax.set_ylabel(f"pool mean ({100 * (1 - alpha):g}% CI)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="best", fontsize=7)
    fig.tight_layout()
    return data_uri(fig)


# ---------------------------------------------------------------- alt texts
# What each figure shows, in words, from the figure's own data (a screen reader, or a
# page whose images do not load, gets the numbers, not a one-word title).


def _g(value: float) -> str:
    """Three significant digits, whole numbers from 1,000 up (Elo points: 1267)."""
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def estimates_alt(estimates: Sequence[Estimate]) -> str:
    """The population-estimates figure in words."""
    level = f"{100 * (1 - estimates[0].alpha):g}%"
    rows = "; ".join(
        f"{e.method} {_g(e.estimate)} [{_g(e.ci_low)}, {_g(e.ci_high)}]" for e in estimates
    )
    return f"population estimates of the {estimates[0].estimand}, {level} intervals: {rows}"


def calibration_alt(surrogate: np.ndarray, label: np.ndarray) -> str:
    """The calibration figure in words: the bins' means against the identity."""
    xs, ys, _ = calibration_bins(surrogate, label)
    off = max((abs(y - x) for x, y in zip(xs, ys, strict=True)), default=float("nan"))
    return (
        f"calibration: out-of-fold surrogate against the label on {len(label)} labeled "
        f"items; {len(xs)} bin means, surrogate {_g(min(xs, default=np.nan))} to "
        f"{_g(max(xs, default=np.nan))}, label {_g(min(ys, default=np.nan))} to "
        f"{_g(max(ys, default=np.nan))}, at most {_g(off)} from the identity"
    )


def distributions_alt(columns: dict[str, np.ndarray]) -> str:
    """The distributions figure in words: each histogram's count, range and mean."""
    said = []
    for name, values in columns.items():
        v = np.asarray(values, dtype=float)
        v = v[np.isfinite(v)]
        if v.size:
            said.append(f"{name}: {v.size} values, {_g(v.min())} to {_g(v.max())}, "
                        f"mean {_g(v.mean())}")  # fmt: skip
    return "histograms of " + "; ".join(said)


def sequence_alt(looks: pd.DataFrame) -> str:
    """The study's waves figure in words: each wave's estimate, anytime and fixed interval."""
    rows = "; ".join(
        f"wave {r.wave} ({r.labels} labels) {_g(r.estimate)}, anytime [{_g(r.anytime_low)}, "
        f"{_g(r.anytime_high)}], fixed [{_g(r.fixed_low)}, {_g(r.fixed_high)}]"
        for r in looks.itertuples()
    )
    return f"pool mean at each wave: {rows}"


#: Most rows (groups, models) :func:`series_alt` names; the rest are counted.
MAX_ALT_ROWS = 10


def _row_of(t: EstimateTable, name: str) -> tuple[float, float, float]:
    """``name``'s estimate and interval in ``t`` (NaN where ``t`` lacks it)."""
    if name not in t.names:
        return float("nan"), float("nan"), float("nan")
    k = list(t.names).index(name)
    return float(t.estimate[k]), float(t.ci_low[k]), float(t.ci_high[k])


def _row_alt(t: EstimateTable, name: str) -> str:
    """One row of ``t`` in words: ``3.41 [3.2, 3.62]``, or without an interval."""
    est, low, high = _row_of(t, name)
    if not np.isfinite(est):
        return "no estimate"
    if np.isfinite(low) and np.isfinite(high):
        return f"{_g(est)} [{_g(low)}, {_g(high)}]"
    return f"{_g(est)} (no interval)"


def series_alt(what: str, tables: Sequence[EstimateTable]) -> str:
    """A figure of one row per name (groups, models; :func:`groups_figure`) in words:
    the rows as drawn, highest first, each with its estimate and interval per series
    (which marker is which series when there are several), the first
    :data:`MAX_ALT_ROWS` named and the rest counted, with how many of those lack an
    interval."""
    names = list(tables[0].names)
    order = np.argsort(-group_rows(tables[0]), kind="stable")  # the top row first
    head = f"{what} ({len(names)}), highest first, {100 * (1 - tables[0].alpha):g}% intervals"
    if len(tables) > 1:  # the markers as groups_figure draws them: by the table's place
        legend = " / ".join(f"{t.method} (marker {SERIES_MARKERS[k % 3]!r})"
                            for k, t in enumerate(tables))  # fmt: skip
        head += f", each as {legend}"
    rows = [
        f"{cell_name(names[i])} " + " / ".join(_row_alt(t, names[i]) for t in tables)
        for i in order[:MAX_ALT_ROWS]
    ]
    rest = [names[i] for i in order[MAX_ALT_ROWS:]]
    if rest:
        bare = sum(any(not np.isfinite(_row_of(t, n)[1:]).all() for t in tables) for n in rest)
        rows.append(f"and {len(rest)} more" + (f" ({bare} without an interval)" if bare else ""))
    return f"{head}: " + "; ".join(rows)
