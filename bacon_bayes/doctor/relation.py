"""How a numeric column relates to the labels, for ``bacon doctor``'s choice of judges:
its Spearman correlation on the labeled rows, or why the labels cannot calibrate it."""

from __future__ import annotations

import pandas as pd
from scipy import stats

#: judges with |Spearman| below this against the labels are left out
MIN_RHO = 0.1


def flat_on_labels(x: pd.Series, label: pd.Series | None) -> str | None:
    """Why a judge that varies over the table is no judge for these labels: it gives the
    same score (or none) on every labeled item, so the labels cannot calibrate it (no
    correlation, no slope; the estimator would extrapolate its other values blind). None
    with fewer than 5 labels or when its scores vary on the labeled items."""
    if label is None or int(label.notna().sum()) < 5:
        return None
    on = x[label.notna()].dropna()
    if on.nunique() >= 2:
        return None
    n = int(label.notna().sum())
    what = "no score on any" if on.empty else f"the same score ({on.iloc[0]:g}) on every"
    return f"{what} one of the {n} labeled items: the labels cannot calibrate it"


def label_rho(x: pd.Series, label: pd.Series | None) -> float | None:
    """Spearman correlation on the rows with both (None without 5 such rows, or where
    either is constant on them: no correlation is defined)."""
    if label is None:
        return None
    both = x.notna() & label.notna()
    if both.sum() < 5 or x[both].nunique() < 2 or label[both].nunique() < 2:
        return None
    return float(stats.spearmanr(x[both], label[both]).statistic)
