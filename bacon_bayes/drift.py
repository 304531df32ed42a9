"""Judge drift on an anchor set: how far a new version of a judge moved, on the human scale.

An *anchor set* is a set of items scored by both versions of a judge (two model versions,
two prompt versions, the same judge on two dates); it needs no labels. For each judge
``j`` with old scores ``a_i`` and new scores ``b_i`` on the ``n`` anchor items where both
are present:

* ``shift_judge`` is the mean paired difference ``d = mean(b_i - a_i)`` on the judge's own
  scale, with the paired Student-t interval ``d +/- t(n-1) sd(b - a) / sqrt(n)``; it needs
  no calibrator.
* ``shift_human`` is that shift **on the human scale**: ``d / s``, with ``s`` the judge's
  ``scale`` against the human label, the slope of the design-weighted regression
  ``judge = offset + scale * label + noise`` on the calibrator's labeled items (the
  ``scale`` column of :meth:`bacon_bayes.Calibrator.judge_bias` of a frequentist
  calibrator, not of a Bayesian one, whose table's slope is against the latent quality:
  :func:`judge_scales`, :func:`scale_words`). It is the change of the human label that
  would move the judge's expected score as much as the new version moved it;
  equivalently, the mean change of the judge's reading on the human scale,
  ``(score - offset) / scale``, between the two versions. A judge that scores 0.3
  higher on a 1-5 scale with ``scale`` 0.6 has ``shift_human`` 0.5: the new version
  reads half a label point higher. Its interval is
  Fieller's interval for the ratio of the two independent estimates ``d`` (anchor items)
  and ``s`` (the calibrator's labels, sandwich standard error), with the Student-t
  quantile of the smaller of their degrees of freedom; it is finite only when ``s`` is
  clearly away from 0 (a judge that does not track the label has no human-scale shift,
  ``note`` says so).

The old version must be one of the calibrator's judges (its scale is measured on the
calibrator's labels); the new version is any column of the anchor table. The two versions'
noises may differ; only their means matter here. Anchor items need not be items of the
calibrator's pool.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.errors import ValidationError
from bacon_bayes.judge_bias import posterior_table
from bacon_bayes.pool import EvalPool

__all__ = [
    "MIN_ANCHOR_ITEMS", "judge_drift", "judge_scales", "parse_versions", "ratio_interval",
    "scale_words",
]  # fmt: skip

#: Fewest anchor items scored by both versions for a drift estimate.
MIN_ANCHOR_ITEMS = 3

COLUMNS = (
    "judge", "new", "n_anchor", "shift_judge", "shift_judge_low", "shift_judge_high",
    "scale", "scale_se", "shift_human", "shift_low", "shift_high", "note",
)  # fmt: skip


def scale_words(cal: Any) -> str:
    """What drift's ``scale`` is, for a reader of ``cal``'s judge-bias table: the same
    figure as its ``scale`` (frequentist table), or not (a Bayesian calibrator's table
    has the slope against the latent quality, larger where the labels are noisy)."""
    words = "the judge's slope against the labels themselves, on the calibrator's labeled items"
    if posterior_table(cal):
        return (
            f"{words}; not the scale of this Bayesian calibrator's judge-bias table, which is "
            "against the quality the judges share on the label's scale (what the label "
            "holds beyond it left out: the raters' noise and what every judge misses) "
            "and so differs"
        )
    return f"{words}, the scale of its judge-bias table"


def judge_scales(pool: EvalPool) -> pd.DataFrame:
    """Each judge's ``offset`` and ``scale`` against the human label, with the scale's
    standard error.

    The design-weighted (inverse inclusion probability) least-squares line
    ``judge = offset + scale * label`` on the labeled items the judge scored (as
    :func:`bacon_bayes.judge_bias.freq_judge_bias`), and the linearised (sandwich)
    standard error of ``scale``.

    Returns
    -------
    DataFrame
        ``judge``, ``offset``, ``scale``, ``scale_se``, ``n_labeled``.
    """
    scores = pool.judge_matrix().to_numpy(dtype=float)
    lab = pool.labeled
    pi = (
        np.ones(pool.n_items)
        if pool.propensity is None
        else np.asarray(pool.propensity, dtype=float)
    )
    rows = []
    for j, judge in enumerate(pool.judges):
        keep = lab & np.isfinite(scores[:, j])
        x, y, w = pool.y[keep], scores[keep, j], 1.0 / pi[keep]
        n = int(keep.sum())
        offset = scale = se = math.nan
        if n >= 3:
            w = w / w.sum()
            xc = x - w @ x
            sxx = float(w @ xc**2)
            if sxx > 0:
                scale = float(w @ (xc * (y - w @ y)) / sxx)
                offset = float(w @ y - scale * (w @ x))
                e = y - offset - scale * x
                se = float(np.sqrt(n / (n - 2) * np.sum((w * xc * e) ** 2)) / sxx)
        rows.append(
            {"judge": judge, "offset": offset, "scale": scale, "scale_se": se, "n_labeled": n}
        )
    return pd.DataFrame(rows)


def ratio_interval(
    num: float, num_se: float, den: float, den_se: float, t: float
) -> tuple[float, float]:
    """Fieller's interval for ``num / den`` from two independent normal estimates: the
    ``rho`` with ``(num - rho den)^2 <= t^2 (num_se^2 + rho^2 den_se^2)``. ``(nan, nan)``
    when ``den`` is not clearly away from zero (``|den| <= t den_se``): the set is then
    unbounded."""
    a = den**2 - (t * den_se) ** 2
    if not a > 0:
        return math.nan, math.nan
    b = num * den
    c = num**2 - (t * num_se) ** 2
    root = math.sqrt(max(b * b - a * c, 0.0))
    return (b - root) / a, (b + root) / a


def parse_versions(pairs: Sequence[str]) -> list[tuple[str, str]]:
    """``["OLD=NEW", ...]`` (``--judge-version``) as ``[(old, new), ...]``."""
    out = []
    for text in pairs:
        old, sep, new = text.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise ValidationError(
                f"--judge-version {text!r} must be OLD=NEW: the old version's column (a judge "
                "of the calibrator) and the new version's column of the anchor table"
            )
        out.append((old.strip(), new.strip()))
    return out


def judge_drift(
    anchor: pd.DataFrame,
    versions: Sequence[tuple[str, str]],
    cal: Any,
    alpha: float = 0.05,
    *,
    source: str = "the anchor table",
) -> pd.DataFrame:
    """Per-judge shift of a new judge version on an anchor set (see the module docstring).

    Parameters
    ----------
    anchor : DataFrame
        One row per anchor item, with the old and the new version's score columns.
    versions : sequence of (str, str)
        ``(old, new)`` column pairs; ``old`` is a judge of ``cal`` (its name in the
        calibrator's pool), ``new`` a column of ``anchor``.
    cal : Calibrator
        A fitted calibrator (or one applied to a new pool): its labeled items give each
        judge's scale against the human label.
    alpha : float
        The intervals are ``1 - alpha``.
    source : str
        How messages name ``anchor`` (its file name).

    Returns
    -------
    DataFrame
        One row per pair: ``judge`` (old column), ``new``, ``n_anchor`` (items scored by
        both), ``shift_judge`` with ``shift_judge_low``/``_high`` (judge's scale),
        ``scale``, ``scale_se``, ``shift_human`` with ``shift_low``/``shift_high`` (label's
        scale) and ``note``.
    """
    if not 0 < alpha < 1:
        raise ValidationError(f"alpha must be between 0 and 1, got {alpha}")
    if not versions:
        raise ValidationError(
            "no judge versions given; pass --judge-version OLD=NEW (old and new score columns)"
        )
    cal._check_fitted()
    scales = judge_scales(cal.pool_).set_index("judge")
    known = [str(j) for j in scales.index]
    rows = []
    for old, new in versions:
        for col in (old, new):
            if col not in anchor.columns:
                raise ValidationError(
                    f"{source} has no column {col!r}; its columns: "
                    f"{', '.join(map(str, anchor.columns[:12]))}"
                    f"{' ...' if len(anchor.columns) > 12 else ''}. Fix --judge-version OLD=NEW"
                )
        if old not in scales.index:
            raise ValidationError(
                f"{old!r} is not a judge of the calibrator (its judges: {', '.join(known[:8])}"
                f"{' ...' if len(known) > 8 else ''}): the OLD of --judge-version OLD=NEW must "
                "be the judge the calibrator was fitted with, so that its scale against the "
                "human label is known"
            )
        rows.append(_row(anchor, old, new, scales.loc[old], alpha, source))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _numeric(anchor: pd.DataFrame, col: str, source: str) -> np.ndarray:
    values = pd.to_numeric(anchor[col], errors="coerce")
    bad = values.isna() & anchor[col].notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValidationError(
            f"{source}, column {col!r}, row {row + 1}: {anchor[col].iloc[row]!r} is not a "
            "number; judge scores must be numbers (empty = not scored)"
        )
    return values.to_numpy(dtype=float)


def _row(
    anchor: pd.DataFrame, old: str, new: str, scale: pd.Series, alpha: float, source: str
) -> dict[str, Any]:
    a, b = _numeric(anchor, old, source), _numeric(anchor, new, source)
    both = np.isfinite(a) & np.isfinite(b)
    d = b[both] - a[both]
    n = int(d.size)
    nan = math.nan
    out: dict[str, Any] = {"judge": old, "new": new, "n_anchor": n}
    out |= {"scale": float(scale["scale"]), "scale_se": float(scale["scale_se"])}
    left = _left_out(both, old, new)
    if n < MIN_ANCHOR_ITEMS:
        out |= dict.fromkeys(COLUMNS[3:6] + COLUMNS[8:11], nan)
        out["note"] = _note(left, f"fewer than {MIN_ANCHOR_ITEMS} anchor items scored by both")
        return out
    mean = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n))
    t = float(stats.t.ppf(1 - alpha / 2, n - 1))
    out |= {
        "shift_judge": mean,
        "shift_judge_low": mean - t * se,
        "shift_judge_high": mean + t * se,
    }
    s, s_se = out["scale"], out["scale_se"]
    df = min(n - 1, int(scale["n_labeled"]) - 2)
    if not (math.isfinite(s) and math.isfinite(s_se)) or df < 1:
        out |= {"shift_human": nan, "shift_low": nan, "shift_high": nan}
        out["note"] = _note(left, "too few labeled items scored by the judge for its scale")
        return out
    t_ratio = float(stats.t.ppf(1 - alpha / 2, df))
    low, high = ratio_interval(mean, se, s, s_se, t_ratio)
    out |= {"shift_human": mean / s if s != 0 else nan, "shift_low": low, "shift_high": high}
    out["note"] = _note(
        left,
        ""
        if math.isfinite(low)
        else "the judge's scale against the label is not clearly away from 0: no "
        "human-scale interval (read shift_judge)",
    )
    return out


def _left_out(both: np.ndarray, old: str, new: str) -> str:
    """The note's words for anchor rows without both versions' scores ("" when none)."""
    missing = np.flatnonzero(~both)
    if missing.size == 0:
        return ""
    rows = ", ".join(str(r + 1) for r in missing[:5]) + (" ..." if missing.size > 5 else "")
    return (
        f"{missing.size} anchor row(s) without both {old!r} and {new!r} left out (row "
        f"{rows}: an empty score is not scored)"
    )


def _note(*parts: str) -> str:
    return "; ".join(p for p in parts if p)
