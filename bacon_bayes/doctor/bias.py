"""What a judge seems biased by: the length of the response, and the group.

Both checks look at the residual of the labels regressed on the judge's score, on the
labeled items: a judge that over-rates long responses leaves labels below its prediction
as responses get longer; a judge that favours a group leaves that group's labels below
its prediction.

Length check
------------
The coefficient of length (per 100 words) in ``label ~ 1 + judge + length``, which by
Frisch-Waugh-Lovell is the slope of the residual of ``label ~ judge`` on the part of the
length the judge does not explain; heteroscedasticity-robust (HC3) standard error, a
Student-t interval with ``n - 3`` degrees of freedom; reported with the sign flipped
(``over-rating`` > 0: the judge rates longer responses higher than the humans do), flagged
when the interval excludes 0.

Power (``tests/test_doctor.py`` verifies it over 400 simulations): labels with sd 1, a
judge equal to the label plus noise of sd 0.6, responses of 20-400 words (uniform), a
planted bias of 0.3 label points per 100 words: the check flags it with power >= 0.8 at
:data:`POWER_N` = 60 labeled items (measured 0.91 over 2,000 simulations; 0.85 at 50,
0.75 at 40); without the bias it flags 4-5% of the time (nominal 5%).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.order import natural_key

#: labeled items at which the length check finds the documented planted bias with power
#: >= 0.8 (see the module docstring)
POWER_N = 60
#: fewest labeled items (with a response text) for the length check
MIN_LENGTH_N = 8


def words(text: pd.Series) -> np.ndarray:
    """Length of each text in words (NaN where there is none)."""
    out = text.astype("string").str.split().str.len()
    return out.astype(float).to_numpy()


def ols_hc3(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least squares with HC3 standard errors, over a batch of problems.

    Parameters
    ----------
    x : ndarray, shape (..., n, p)
        Designs (with the intercept column).
    y : ndarray, shape (..., n)
        Responses.

    Returns
    -------
    coef, se : ndarray, shape (..., p)
    """
    xtx_inv = np.linalg.inv(np.swapaxes(x, -1, -2) @ x)
    coef = (xtx_inv @ np.swapaxes(x, -1, -2) @ y[..., None])[..., 0]
    resid = y - (x @ coef[..., None])[..., 0]
    lev = np.einsum("...ij,...jk,...ik->...i", x, xtx_inv, x)
    w = resid**2 / np.clip(1 - lev, 1e-12, None) ** 2
    meat = np.swapaxes(x, -1, -2) @ (x * w[..., None])
    cov = xtx_inv @ meat @ xtx_inv
    return coef, np.sqrt(np.clip(np.diagonal(cov, axis1=-2, axis2=-1), 0, None))


def length_flags(
    label: np.ndarray, judge: np.ndarray, length: np.ndarray, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The length check over a batch of complete samples (no missing values).

    Parameters
    ----------
    label, judge, length : ndarray, shape (..., n)
        Labels, judge scores and response lengths in words.
    alpha : float
        1 - confidence level.

    Returns
    -------
    over, half, flagged : ndarray, shape (...)
        Over-rating per 100 words, the interval's half-width, and whether the interval
        excludes 0.
    """
    ones = np.ones_like(label)
    x = np.stack([ones, judge, length / 100.0], axis=-1)
    coef, se = ols_hc3(x, label)
    n = label.shape[-1]
    half = stats.t.ppf(1 - alpha / 2, n - 3) * se[..., 2]
    over = -coef[..., 2]
    return over, half, np.abs(over) > half


@dataclass
class LengthBias:
    """The length check of one judge: over-rating per 100 words and its interval."""

    judge: str
    n: int
    over: float
    low: float
    high: float
    flagged: bool


def length_bias(
    label: np.ndarray, judge: np.ndarray, length: np.ndarray, name: str, alpha: float = 0.05
) -> LengthBias | None:
    """The length check on the items with a label, a score and a length (None with
    fewer than :data:`MIN_LENGTH_N`, or no spread in the score or the length)."""
    ok = np.isfinite(label) & np.isfinite(judge) & np.isfinite(length)
    if ok.sum() < MIN_LENGTH_N or np.ptp(judge[ok]) == 0 or np.ptp(length[ok]) == 0:
        return None
    try:
        over, half, flag = length_flags(label[ok], judge[ok], length[ok], alpha)
    except np.linalg.LinAlgError:
        return None
    o, h = float(over), float(half)
    return LengthBias(name, int(ok.sum()), o, o - h, o + h, bool(flag))


def group_bias(
    label: np.ndarray, judge: np.ndarray, groups: np.ndarray, alpha: float = 0.05
) -> pd.DataFrame:
    """Over-rating of each group: the mean residual of ``label ~ judge`` with its sign
    flipped, per group with at least 2 labels, in simultaneous (Sidak) t intervals over
    the groups. The fit is pooled over the groups, so the over-ratings are relative: a
    judge that favours one group shows the others slightly under-rated.

    Returns
    -------
    DataFrame
        ``group``, ``n``, ``over``, ``low``, ``high``, ``flagged`` (empty with fewer than
        3 labeled items or 2 groups).
    """
    ok = np.isfinite(label) & np.isfinite(judge) & pd.notna(groups)
    cols = ["group", "n", "over", "low", "high", "flagged"]
    if ok.sum() < 3 or np.ptp(judge[ok]) == 0:
        return pd.DataFrame(columns=cols)
    x = np.column_stack([np.ones(ok.sum()), judge[ok]])
    coef = np.linalg.lstsq(x, label[ok], rcond=None)[0]
    over = -(label[ok] - x @ coef)
    frame = pd.DataFrame({"group": groups[ok], "over": over})
    stat = frame.groupby("group", observed=True)["over"].agg(["size", "mean", "std"])
    stat = stat[stat["size"] >= 2]
    if len(stat) < 2:
        return pd.DataFrame(columns=cols)
    level = (1 - alpha) ** (1 / len(stat))
    crit = stats.t.ppf(0.5 + level / 2, stat["size"] - 1)
    half = crit * stat["std"].to_numpy() / np.sqrt(stat["size"].to_numpy())
    out = pd.DataFrame(
        {
            "group": stat.index.astype(str),
            "n": stat["size"].to_numpy(),
            "over": stat["mean"].to_numpy(),
            "low": stat["mean"].to_numpy() - half,
            "high": stat["mean"].to_numpy() + half,
        }
    )
    out["flagged"] = (out["low"] > 0) | (out["high"] < 0)
    order = sorted(range(len(out)), key=lambda i: natural_key(out["group"].iloc[i]))
    return out.iloc[order].reset_index(drop=True)  # M8 before M10, as everywhere


def simulate_length(
    n: int, sims: int, bias: float, seed: int = 0, noise: float = 0.6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw the power study's samples: labels N(0, 1), lengths U(20, 400) words, a judge
    = label + ``bias`` x length / 100 + N(0, ``noise``); arrays of shape (sims, n)."""
    rng = np.random.default_rng(seed)
    label = rng.normal(size=(sims, n))
    length = rng.uniform(20, 400, size=(sims, n))
    judge = label + bias * length / 100 + rng.normal(scale=noise, size=(sims, n))
    return label, judge, length
