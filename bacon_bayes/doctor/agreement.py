"""Agreement between judges and with the labels: weighted Cohen's kappa (ordinal or
categorical scores), Krippendorff's alpha (interval) and Spearman's rho (continuous)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.scale import infer_scale

#: scores with at most this many distinct values, all multiples of 0.5, count as ordinal
MAX_LEVELS = 11
#: most distinct values handed to the ``krippendorff`` package (its memory grows with
#: their square times the units: 1,061 values of 1,056 units asked for 8.9 GB)
MAX_PACKAGE_VALUES = 100


def is_ordinal(x: np.ndarray) -> bool:
    """Few distinct values, all multiples of 0.5 (a rating scale or pass/fail)."""
    v = np.unique(x[np.isfinite(x)])
    return bool(0 < v.size <= MAX_LEVELS and np.allclose(v * 2, np.round(v * 2)))


def interval_alpha(data: np.ndarray) -> float:
    """Krippendorff's alpha with the interval metric, missing values allowed.

    Parameters
    ----------
    data : ndarray, shape (raters, units)
        NaN where a rater did not score a unit.

    Returns
    -------
    float
        ``1 - D_o / D_e``; NaN when fewer than two units have two values or all values
        are equal. Written out here (closed form of the coincidence sums) to check the
        ``krippendorff`` package and to stand in when it is not installed.
    """
    x = np.asarray(data, dtype=float)
    ok = np.isfinite(x)
    m = ok.sum(axis=0)
    pair = m >= 2
    v = np.where(ok, x, 0.0)[:, pair]
    m = m[pair]
    n = m.sum()
    if n < 2 or pair.sum() < 2:
        return float("nan")
    s1, s2 = v.sum(axis=0), (v**2).sum(axis=0)
    within = (2 * (m * s2 - s1**2) / (m - 1)).sum()
    total = 2 * (n * s2.sum() - s1.sum() ** 2)
    if total <= 0:
        return float("nan")
    return float(1 - (n - 1) * within / total)


#: How the alpha was computed, when by the package (the report printed "(krippendorff)",
#: read as a unit or a variant of the method).
PACKAGE = "computed with the krippendorff package"


def alpha(data: np.ndarray) -> tuple[float, str]:
    """Krippendorff's interval alpha of ``data`` (raters x units) and where it came from:
    the ``krippendorff`` package when installed, else :func:`interval_alpha`."""
    try:
        import krippendorff
    except ImportError:
        return interval_alpha(data), "computed by bacon: krippendorff not installed"
    x = np.asarray(data, dtype=float)
    x = x[:, np.isfinite(x).sum(axis=0) >= 2]  # a unit of one rating pairs with none
    distinct = np.unique(x[np.isfinite(x)]).size
    if x.shape[1] < 2 or distinct < 2:
        return float("nan"), PACKAGE
    if distinct > MAX_PACKAGE_VALUES:  # the package builds units x values x values arrays
        return interval_alpha(data), f"computed by bacon: {distinct} distinct values"
    x_alpha = krippendorff.alpha(reliability_data=x, level_of_measurement="interval")
    return float(x_alpha), PACKAGE


def kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa with quadratic weights (scikit-learn) on the pairs both scored, for
    scores in steps of 0.5: coded as integers with every step between the lowest and the
    highest value a level, so the weights are the squared distances on the scale."""
    from sklearn.metrics import cohen_kappa_score

    both = np.isfinite(a) & np.isfinite(b)
    if both.sum() < 2 or np.unique(np.r_[a[both], b[both]]).size < 2:
        return float("nan")
    ca, cb = (np.round(v[both] * 2).astype(int) for v in (a, b))
    levels = np.arange(min(ca.min(), cb.min()), max(ca.max(), cb.max()) + 1)
    return float(cohen_kappa_score(ca, cb, labels=levels, weights="quadratic"))


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rho on the pairs both scored (NaN with fewer than 3, or a constant)."""
    both = np.isfinite(a) & np.isfinite(b)
    if both.sum() < 3 or np.ptp(a[both]) == 0 or np.ptp(b[both]) == 0:
        return float("nan")
    return float(stats.spearmanr(a[both], b[both]).statistic)


def same_scale(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` are on one scale (kappa and alpha compare values, so they
    mean something only on one scale): the same inferred scale
    (:func:`bacon_bayes.scale.infer_scale`) holding both, or, where neither shows one,
    ``a``'s values within ``b``'s range."""
    fa, fb = a[np.isfinite(a)], b[np.isfinite(b)]
    if fa.size == 0 or fb.size == 0:
        return False
    sa, sb = infer_scale(fa), infer_scale(fb)
    if sa is not None or sb is not None:
        return bool(sa is not None and sa.same(sb) and sa.holds(fb) and sa.holds(fa))
    span = max(float(np.ptp(fb)), 1e-9)
    return bool(fa.min() >= fb.min() - 0.05 * span and fa.max() <= fb.max() + 0.05 * span)


def one_scale(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` share a scale both ways (:func:`same_scale` each within the
    other: a judge on 0.1-1.1 lies within an error score's -27-0 but is not on its scale)."""
    return same_scale(a, b) and same_scale(b, a)


def with_label(frame: pd.DataFrame, judges: list[str], label: str) -> pd.DataFrame:
    """Each judge against the labels: ``n`` pairs, Spearman, weighted kappa (both ordinal,
    one scale) and interval alpha (one scale); NaN where it does not apply."""
    y = frame[label].to_numpy(dtype=float)
    rows = []
    for j in judges:
        x = frame[j].to_numpy(dtype=float)
        both = np.isfinite(x) & np.isfinite(y)
        scale = one_scale(x, y)
        k = kappa(x, y) if scale and is_ordinal(x) and is_ordinal(y) else float("nan")
        a = alpha(np.vstack([x, y]))[0] if scale else float("nan")
        rows.append(
            {"judge": j, "n": int(both.sum()), "spearman": spearman(x, y), "kappa_w": k, "alpha": a}
        )
    return pd.DataFrame(rows)


def between_judges(frame: pd.DataFrame, judges: list[str]) -> pd.DataFrame:
    """Spearman's rho of every pair of judges (a square table)."""
    x = frame[judges].to_numpy(dtype=float)
    out = np.eye(len(judges))
    for i in range(len(judges)):
        for k in range(i + 1, len(judges)):
            out[i, k] = out[k, i] = spearman(x[:, i], x[:, k])
    return pd.DataFrame(out, index=judges, columns=judges)


def stated_reference(
    frame: pd.DataFrame, judges: list[str], scales: dict[str, str]
) -> np.ndarray | None:
    """Without labels, the scores of the judges' reference for :func:`among_judges`: the
    first judge on the stated scale (``scales``: doctor's, ``-`` for none evident) that
    the most judges share, two at least; None when no two judges state one. A judge with
    no stated scale is no reference: the others lying within its range (COMET-22 and
    COMETKiwi, both about 0-1) is no shared scale, and alpha compares values."""
    stated = [scales.get(j, "-") for j in judges]
    counts = pd.Series([s for s in stated if s != "-"], dtype=object).value_counts()
    if counts.empty or counts.iloc[0] < 2:
        return None
    first = judges[stated.index(counts.index[0])]
    return frame[first].to_numpy(dtype=float)


def among_judges(
    frame: pd.DataFrame, judges: list[str], ref: np.ndarray | None
) -> tuple[pd.DataFrame, tuple[float, str, list[str]] | None]:
    """Spearman's rho of every pair of judges (:func:`between_judges`), and Krippendorff's
    alpha of the judges on the scale of ``ref`` (the labels, or a judge's,
    :func:`stated_reference`; None: no alpha), how it was computed and which judges (None
    with fewer than two on that scale)."""
    if ref is None:
        return between_judges(frame, judges), None
    on = [j for j in judges if one_scale(frame[j].to_numpy(dtype=float), ref)]
    if len(on) < 2:
        return between_judges(frame, judges), None
    value, how = alpha(frame[on].to_numpy(dtype=float).T)
    return between_judges(frame, judges), (value, how, on)
