"""The table every group estimator ends in: estimates, joint covariance, critical values."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.order import natural_codes
from bacon_bayes.results import EstimateTable


def correlation(cov: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.clip(np.diag(cov), 1e-300, None))
    return cov / np.outer(sd, sd)


def group_table(
    estimand: str,
    method: str,
    names: Sequence[str] | np.ndarray,
    est: np.ndarray,
    cov: np.ndarray,
    n_lab: np.ndarray,
    n_items: np.ndarray,
    alpha: float,
    simultaneous: str,
    crit: np.ndarray | None = None,
    df: np.ndarray | None = None,
    **details: object,
) -> EstimateTable:
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    n_lab = np.asarray(n_lab)
    if crit is None:
        if df is None and not np.all(n_lab == 0):
            df = np.maximum(n_lab - 1, 1)
        crit = simultaneous_critical_value(correlation(cov), alpha, simultaneous, df)
    if df is not None:
        details["df"] = [float(v) for v in df]
    return EstimateTable(
        estimand=estimand,
        method=method,
        names=tuple(str(n) for n in names),
        estimate=est,
        se=se,
        ci_low=est - crit * se,
        ci_high=est + crit * se,
        cov=cov,
        n_labeled=np.asarray(n_lab, dtype=int),
        n_items=np.asarray(n_items, dtype=int),
        alpha=alpha,
        simultaneous=simultaneous,
        critical_value=crit,
        details=dict(details),
    )


def group_codes(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct group names in natural order (``M8`` before ``M10``) and each item's
    index among them."""
    return natural_codes(groups)
