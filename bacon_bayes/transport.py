"""Does an old calibration still hold on a new pool? The transport check.

For a calibrator applied to a new pool (``Calibrator.apply``), the fresh labels' residuals
``r = y - f(x)`` under the frozen surrogate ``f`` measure how well the old calibration
transports: their design-weighted (Hajek) mean, overall and per group (per new system),
is the surrogate's bias on the new items. Each gets a ``1 - alpha`` interval (Student-t,
linearised variance) and a verdict against a tolerance ``tol`` on the label's scale. A
group's variance is moderated as the group means' are (:func:`bacon_bayes.estimate.
moderate.moderated_variance`: its own averaged with what all fresh labels predict for
its items, on the two worths' summed df), and never below its own: with a handful of
heavy-tailed residuals a group's own variance is small exactly when its mean missed the
tail, and the plain Student-t on ``n - 1`` df then covered 0.83-0.94 and flagged groups
whose calibration nearly holds 6-15% of the time (WMT22, 8 systems, 6 fresh labels each,
300 draws; moderated: coverage 0.95-0.997 for those, flagged 0-3.7%; the heavy-tailed
and truly biased M2M100 0.90, caught 7% instead of 4%):

* ``holds``: equivalence shown, the ``1 - 2 alpha`` interval lies inside ``[-tol, tol]``
  (two one-sided tests at level ``alpha``);
* ``drifted``: not shown equivalent and the ``1 - alpha`` interval excludes zero (the
  surrogate is biased here: a group whose calibration holds exactly is flagged at most at
  rate ``alpha``, each group on its own: the verdicts are pointwise, not adjusted for
  the number of groups, so of ``K`` groups that all hold about ``K alpha`` may read
  ``drifted``; :func:`pointwise_note`);
* ``not enough labels``: neither; ``labels_to_settle`` is the number of fresh labels of
  the group that would, were the estimate the truth, reach one of the two verdicts with
  probability ``POWER``;
* ``new``: a group the calibrator's round never had (:func:`bacon_bayes.frozen.
  new_groups`) whose interval excludes zero: the calibration does not carry to it,
  which is no drift (nothing of it was calibrated; a Bayesian group level gives it
  effect 0).

:func:`flag_rate` is the power analysis: the probability that a group with true residual
mean ``delta`` and standard error ``se`` is flagged ``drifted`` under the rule above (with
``df``, the Student-t rule on an estimated se, as the check applies it: on simulated rounds
it matches the observed rate within 0.03, where the normal approximation overstated a
shifted group's by up to 0.06 at 20-40 labels; VALIDATION.md, "The next round"). The
frozen AEE estimates stay valid whatever the verdict; the verdict says whether the old
calibration may be trusted where there are no fresh labels (a zero-label round, an
unlabeled group) and whether a refit is worth it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.core import residual_floor
from bacon_bayes.estimate.moderate import moderated_variance
from bacon_bayes.order import natural_sorted

__all__ = [
    "POWER",
    "TOLERANCE_SHARE",
    "flag_rate",
    "pointwise_note",
    "settle_text",
    "transport_check",
]

#: Default tolerance: this share of the old round's residual sd (the typical error of the
#: surrogate on one item).
TOLERANCE_SHARE = 0.25
#: Probability of a verdict that ``labels_to_settle`` aims at.
POWER = 0.8
#: Fewest fresh labels of a group for a verdict.
MIN_LABELS = 3
VERDICTS = ("holds", "drifted", "not enough labels")
#: The verdict of a group new to the calibrator whose interval excludes zero.
NEW = "new"
#: What :data:`NEW` means, said under every transport table that holds it.
NEW_NOTE = (
    "a group the calibrator never saw, its fresh residuals off zero: the old calibration "
    "does not carry to it (not a drift; the estimates hold, corrected by its labels)"
)
#: Quantiles of the estimated se's distribution that :func:`flag_rate` averages over.
GRID = 400


def flag_rate(
    delta: float, se: float, tol: float, alpha: float = 0.05, df: float | None = None
) -> float:
    """P(verdict ``drifted``): the interval excludes zero and equivalence within ``tol``
    is not shown, for a residual-mean estimate ~ N(``delta``, ``se``^2).

    Parameters
    ----------
    delta : float
        The group's true residual mean (the surrogate's bias on its items).
    se : float
        The true standard error of its estimate (residual sd / sqrt(labels)).
    tol : float
        The tolerance of the check.
    alpha : float
        Level of the tests.
    df : float, optional
        Degrees of freedom of the estimated standard error (``labels - 1``): the check's
        Student-t rule on an estimated se, ``se_hat^2 ~ se^2 chi2(df) / df`` independent
        of the estimate (normal residuals), integrated over the se's distribution. None
        (default): the normal approximation, the se known. With few labels the t rule
        flags a shifted group markedly less often than the normal approximation says
        (6 labels, ``delta = 2 se``, ``tol = se / 2``: 0.37 against 0.52).
    """
    if se <= 0:
        return float(abs(delta) > 0 and abs(delta) > tol)
    if df is None:
        z2 = float(special.ndtri(1 - alpha / 2))
        z1 = float(special.ndtri(1 - alpha))
        return float(_drift_prob(delta, se, np.array([se]), tol, z2, z1)[0])
    df = max(float(df), 1.0)
    t2 = float(special.stdtrit(df, 1 - alpha / 2))
    t1 = float(special.stdtrit(df, 1 - alpha))
    # the estimated se over the quantiles of its chi-square distribution (midpoints)
    probs = (np.arange(GRID) + 0.5) / GRID
    s_hat = se * np.sqrt(2 * special.gammaincinv(df / 2, probs) / df)  # chi2.ppf
    return float(np.mean(_drift_prob(delta, se, s_hat, tol, t2, t1)))


def _drift_prob(
    delta: float, se: float, s_hat: np.ndarray, tol: float, c2: float, c1: float
) -> np.ndarray:
    """P(drifted) given an estimated se ``s_hat`` (each entry): ``|est| > c2 s_hat`` and
    not ``|est| + c1 s_hat <= tol``, with ``est ~ N(delta, se^2)`` (scipy.special's
    functions: ``scipy.stats`` gave the same numbers at 20x the cost a call)."""

    def cdf(x: np.ndarray) -> np.ndarray:
        return special.ndtr((x - delta) / se)

    def sf(x: np.ndarray) -> np.ndarray:
        return special.ndtr(-((x - delta) / se))

    outside_zero = cdf(-c2 * s_hat) + sf(c2 * s_hat)
    # equivalent: |est| <= tol - c1 s_hat; of those, the ones that also exclude zero
    edge = tol - c1 * s_hat
    both = (cdf(edge) - cdf(c2 * s_hat)) + (cdf(-c2 * s_hat) - cdf(-edge))
    return outside_zero - np.where(edge > c2 * s_hat, both, 0.0)


def _settle(estimate: float, se: float, n: int, tol: float, alpha: float) -> int:
    """Fresh labels of the group (in all) that would reach a verdict with probability
    ``POWER`` were ``estimate`` the truth (the standard error shrinking as 1/sqrt(n))."""
    zb = special.ndtri(POWER)
    gaps = [
        (abs(estimate), special.ndtri(1 - alpha / 2)),  # excluding zero
        (tol - abs(estimate), special.ndtri(1 - alpha)),  # inside the tolerance
    ]
    need = [n * (se * (z + zb) / gap) ** 2 for gap, z in gaps if gap > 0]
    return max(math.ceil(min(need)), n + 1) if need else -1


def _own(r: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """The Hajek mean of residuals ``r`` with weights ``w`` and its linearised variance."""
    n = r.size
    mean = float(np.sum(w * r) / np.sum(w))
    return mean, float(n / (n - 1) * np.sum((w * (r - mean)) ** 2) / np.sum(w) ** 2)


def _row(
    r: np.ndarray,
    w: np.ndarray,
    tol: float,
    alpha: float,
    moderated: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """One row of the check; ``moderated``: the group's moderated variance and its df
    (:func:`_moderated`), None for the own variance on ``n - 1`` df."""
    n = r.size
    out: dict[str, Any] = {"n_labels": n}
    if n < MIN_LABELS:
        nan = math.nan
        out |= dict(estimate=nan, se=nan, df=nan, ci_low=nan, ci_high=nan, verdict=VERDICTS[2])
        out["labels_to_settle"] = MIN_LABELS
        return out
    mean, var = _own(r, w)
    df = float(n - 1)
    if moderated is not None:
        var, df = max(var, moderated[0]), moderated[1]
    se = math.sqrt(var)
    t = special.stdtrit(df, 1 - alpha / 2)
    t_eq = special.stdtrit(df, 1 - alpha)
    equivalent = abs(mean) + t_eq * se <= tol
    drifted = not equivalent and abs(mean) > t * se
    verdict = VERDICTS[0] if equivalent else VERDICTS[1] if drifted else VERDICTS[2]
    out |= dict(estimate=mean, se=se, df=df, ci_low=mean - t * se, ci_high=mean + t * se)
    out["verdict"] = verdict
    out["labels_to_settle"] = _settle(mean, se, n, tol, alpha) if verdict == VERDICTS[2] else 0
    return out


def transport_check(
    cal: Any, tolerance: float | None = None, alpha: float = 0.05
) -> tuple[pd.DataFrame, float]:
    """The transport check of a frozen calibrator (``Calibrator.apply``) on its pool.

    Parameters
    ----------
    cal : Calibrator
        A calibrator applied to a new pool (with fresh labels).
    tolerance : float, optional
        The largest residual mean (surrogate bias) on the label's scale that counts as
        the calibration holding; default :data:`TOLERANCE_SHARE` of the old round's
        residual sd.
    alpha : float
        Level of the tests (the intervals are ``1 - alpha``).

    Returns
    -------
    table : DataFrame
        One row for the pool (``group`` ``"(all)"``) and one per group (in natural order):
        ``n_items``, ``n_labels``,
        ``estimate`` (residual mean ``y - f``), ``se``, ``df`` (of its Student-t: ``n - 1``
        for the pool, the moderated variance's for a group), ``ci_low``, ``ci_high``,
        ``verdict``, ``labels_to_settle`` (0 when settled; fresh labels of the group in
        all otherwise).
    tolerance : float
        The tolerance used.
    """
    source = getattr(cal, "frozen_", None)
    if source is None:
        raise ValidationError(
            "the transport check needs a calibrator applied to a new pool "
            "(Calibrator.load(old).apply(new_pool), or --calibrator OLD.nc)"
        )
    if tolerance is None:
        tolerance = TOLERANCE_SHARE * float(np.std(source.residuals, ddof=1))
    if not tolerance > 0:
        raise ValidationError(f"tolerance={tolerance!r} must be positive (on the label's scale)")
    pool = cal.pool_
    lab = pool.labeled
    r = (pool.y - cal.surrogate_)[lab]
    pi = pool.inclusion.pi if pool.inclusion is not None else pool.propensity
    w = np.ones(r.size) if pi is None else 1.0 / np.asarray(pi, dtype=float)[lab]
    rows = [{"group": "(all)", "n_items": pool.n_items} | _row(r, w, tolerance, alpha, None)]
    if pool.groups is not None:
        from bacon_bayes.frozen import new_groups

        unseen = set((new_groups(cal) or {}).get("new", []))
        every = np.asarray(pool.groups).astype(str)
        names = natural_sorted(np.unique(every))  # M8 before M10, as every group table
        each = group_rows(r, w, cal.surrogate_[lab], every[lab], names, tolerance, alpha)
        for name in names:
            size = int(np.sum(every == name))
            row = {"group": name, "n_items": size} | each[name]
            if name in unseen and row["verdict"] == VERDICTS[1]:
                row["verdict"] = NEW
            rows.append(row)
    return pd.DataFrame(rows), tolerance


def group_rows(
    r: np.ndarray,
    w: np.ndarray,
    f: np.ndarray,
    groups: np.ndarray,
    names: Sequence[str],
    tol: float,
    alpha: float,
) -> dict[str, dict[str, Any]]:
    """The check's row of each group in ``names``: the fresh labels' residuals ``r``,
    design weights ``w``, frozen surrogate ``f`` and groups (str), each group's variance
    moderated (:func:`_moderated`)."""
    moderated = _moderated(r, w, f, groups, r + f)
    return {
        name: _row(r[groups == name], w[groups == name], tol, alpha, moderated.get(name))
        for name in names
    }


def _moderated(
    r: np.ndarray, w: np.ndarray, f: np.ndarray, groups: np.ndarray, y: np.ndarray
) -> dict[str, tuple[float, float]]:
    """Each group's (with :data:`MIN_LABELS` fresh labels or more) moderated variance of
    its residual mean and its df, as the group means moderate theirs: the own variance
    averaged with the one all fresh labels predict from the frozen surrogate ``f``, the
    residual floor of the labels ``y`` kept (empty with fewer than two such groups)."""
    names, codes = np.unique(groups, return_inverse=True)
    counts = np.bincount(codes, minlength=names.size)
    keep = counts[codes] >= MIN_LABELS
    names = names[counts >= MIN_LABELS]
    if names.size < 2:
        return {}
    r, w, f, codes = r[keep], w[keep], f[keep], np.unique(codes[keep], return_inverse=True)[1]
    own = np.array([_own(r[codes == k], w[codes == k])[1] for k in range(names.size)])
    weight = np.bincount(codes, weights=w, minlength=names.size)  # the Hajek denominators
    pi = 1.0 / w  # c = w^2: no finite-population correction, as the own variance
    var, df, _, _ = moderated_variance(
        own, r, f, pi, codes, weight, "superpopulation", floor=residual_floor(y[keep])
    )
    return {str(n): (float(v), float(d)) for n, v, d in zip(names, var, df, strict=True)}


def pointwise_note(table: pd.DataFrame, alpha: float) -> str:
    """The line under a transport table with several groups: each group's verdict is at
    level ``alpha`` on its own (not adjusted for the number of groups)."""
    k = int(np.sum(table["group"] != "(all)"))
    if k < 2:
        return ""
    return (
        f"each group's verdict is pointwise (level {alpha:g} on its own, not adjusted for the "
        f"{k} groups): were the calibration to hold on all of them, about {k * alpha:.1f} "
        "would still read 'drifted' by chance"
    )


def settle_text(labels: float, n_items: int, estimate: float) -> str:
    """A ``labels_to_settle`` cell in words: ``""`` when settled or not to be had,
    ``"N in all"``; ``"at least N"`` for a group with too few labels for an estimate;
    ``"more than its N items"`` when the group has not that many items (its verdict
    cannot be settled on this pool)."""
    if labels <= 0:
        return ""
    if labels > n_items:
        return f"more than its {n_items} items"
    if not np.isfinite(estimate):
        return f"at least {int(labels)} in all"
    return f"{int(labels)} in all"
