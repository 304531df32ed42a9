"""A fast two-sided check of an interval from few replications (``make test``).

A coverage study tells a 90% interval from a 95% one only with hundreds of replications
(``make validate``, ``@pytest.mark.slow``). The width of the intervals against the spread
of their estimates needs far fewer: with ``R`` replications the ratio

    mean half-width / (c * sd of the estimates' errors over the replications)

has a relative standard error of about ``1 / sqrt(2 R)`` (0.07 at 100), where ``c`` is the
normal critical value of the interval (for simultaneous intervals, the ``1 - alpha``
quantile of ``max |Z_j|``, ``Z`` normal with the estimates' correlation over the
replications). It is 1 for a valid interval, 1.5 for one 1.5 times too wide and 0.6 for
one too narrow, so the band ``[0.8, 1.25]`` fails both. With it, the mean of the
estimates against the truth: a bias beyond the 99.9% band of the replications' mean.

:func:`assert_two_sided` checks the intervals and shows that the check can fail: the same
intervals widened by 1.5 and narrowed to 0.6 about their estimates must each fail it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

#: the ratio of a valid interval: within about +-3 standard errors at 100 replications, and
#: a ratio between 0.84 and 1.25 puts the interval widened 1.5 times above it and the one
#: narrowed to 0.6 below it
RATIO_BAND = (0.8, 1.25)
#: the scalings of the half-widths that the check must reject
WIDENED, NARROWED = 1.5, 0.6


@dataclass(frozen=True)
class WidthCheck:
    """The ratio of the intervals' half-width to the estimates' spread, and the bias."""

    ratio: float
    bias_z: float
    reps: int

    def failures(self, band: tuple[float, float] = RATIO_BAND, bias_z: float = 3.29) -> list[str]:
        """What is wrong with the intervals (empty when nothing is)."""
        out = []
        if self.ratio < band[0]:
            out.append(f"too narrow: half-width / (c sd) = {self.ratio:.3f} < {band[0]}")
        if self.ratio > band[1]:
            out.append(f"too wide: half-width / (c sd) = {self.ratio:.3f} > {band[1]}")
        if abs(self.bias_z) > bias_z:
            out.append(f"biased: the estimates' mean is {self.bias_z:.2f} se from the truth")
        return out


def critical_value(estimates: np.ndarray, alpha: float, simultaneous: bool, df=None) -> float:
    """The critical value of an interval of level ``1 - alpha``: of each column alone, or
    of all columns at once (the ``1 - alpha`` quantile of ``max_j |T_j|``, 20,000 seeded
    draws): normal, or with ``df`` (a number, or one a column) a t whose columns share the
    estimates' correlation over the replications and each have its own variance's
    chi-square (the columns' variances estimated apart, as groups' are)."""
    k = estimates.shape[1]
    if not simultaneous or k == 1:
        if df is None:
            return float(stats.norm.isf(alpha / 2))
        return float(np.mean(stats.t.isf(alpha / 2, np.broadcast_to(df, k))))
    corr = np.atleast_2d(np.corrcoef(estimates, rowvar=False))
    rng = np.random.default_rng(0)
    z = rng.multivariate_normal(np.zeros(k), corr, size=20_000, method="eigh", check_valid="ignore")
    if df is not None:
        dfs = np.broadcast_to(np.asarray(df, dtype=float), k)
        z = z / np.sqrt(rng.chisquare(dfs, size=z.shape) / dfs)
    return float(np.quantile(np.abs(z).max(axis=1), 1 - alpha))


def width_check(
    estimates,
    low,
    high,
    truth,
    alpha: float,
    *,
    simultaneous: bool = False,
    scale: float = 1.0,
    df=None,
) -> WidthCheck:
    """The check of ``R`` replications' intervals (arrays ``(R,)`` or ``(R, K)``) of
    ``truth`` (fixed: a number or ``K``; or each replication's, ``(R, K)``: the spread
    is then the errors'), with the half-widths scaled by ``scale`` about the estimates (1:
    as given), and ``df`` the degrees of freedom of a t interval (:func:`critical_value`;
    its columns' mean over the replications where they vary: the ratio then checks the
    standard error, the t's critical value being that of its textbook distribution).

    ``ratio`` is the mean over the ``K`` columns of each column's mean half-width over
    ``c`` times its estimates' sd; ``bias_z`` the largest of the columns' standardised
    mean errors, divided by the normal quantile that Bonferroni gives ``K`` columns at
    99.9% and times 3.29, so that 3.29 is the bound for any ``K``."""
    est = np.asarray(estimates, dtype=float).reshape(len(estimates), -1)
    lo = np.asarray(low, dtype=float).reshape(est.shape)
    hi = np.asarray(high, dtype=float).reshape(est.shape)
    half = scale * (hi - lo) / 2
    target = np.asarray(truth, dtype=float)
    if target.size == est.size:  # each replication's truth
        target = target.reshape(est.shape)
    err = est - np.broadcast_to(target, est.shape)
    sd = err.std(axis=0, ddof=1)
    crit = critical_value(err, alpha, simultaneous, df)
    ratio = float(np.mean(half.mean(axis=0) / (crit * sd)))
    reps = est.shape[0]
    z = err.mean(axis=0) / (sd / np.sqrt(reps))
    worst = z[np.argmax(np.abs(z))]
    bonferroni = stats.norm.isf(0.0005 / est.shape[1]) / stats.norm.isf(0.0005)
    return WidthCheck(ratio, float(worst / bonferroni), reps)


def assert_two_sided(
    estimates, low, high, truth, alpha: float, *, what: str = "", band=RATIO_BAND, bias_z=3.29, **kw
) -> WidthCheck:
    """Assert the intervals pass :func:`width_check` (the ratio within ``band``, the bias
    within ``bias_z``), and that they fail it when widened 1.5 times and when narrowed to
    0.6 (so the check can fail both ways here). ``kw``: ``simultaneous`` and ``df`` of
    :func:`width_check`."""
    check = width_check(estimates, low, high, truth, alpha, **kw)
    assert not check.failures(band, bias_z), f"{what}: {check.failures(band, bias_z)}"
    for scale, word in ((WIDENED, "too wide"), (NARROWED, "too narrow")):
        scaled = width_check(estimates, low, high, truth, alpha, scale=scale, **kw)
        assert any(word in f for f in scaled.failures(band)), (
            f"{what}: the intervals scaled by {scale} pass (ratio {scaled.ratio:.3f})"
        )
    return check
