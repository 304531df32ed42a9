"""The groups' degrees of freedom a design gives at a budget, as the estimator reads them:
``n_g - 1``, plus the pooled residuals' while some group has under
:data:`~bacon_bayes.estimate.groups.MIN_BOOTSTRAP_LABELS` labels (its moderated t);
:func:`~bacon_bayes.planning.predict.predict` takes them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from bacon_bayes.estimate.groups import MIN_BOOTSTRAP_LABELS

if TYPE_CHECKING:
    from bacon_bayes.planning.predict import PilotStatistics


def moderated_share(st: PilotStatistics, design: str, pi: float) -> float:
    """Probability that a draw at rate ``pi`` leaves some group under
    :data:`~bacon_bayes.estimate.groups.MIN_BOOTSTRAP_LABELS` labels, so that the group
    intervals take the moderated t (Binomial group counts; fixed ones when stratified)."""
    if len(st.names) < 2:
        return 0.0
    if design == "stratified":
        return float(np.any(np.round(pi * st.sizes) < MIN_BOOTSTRAP_LABELS))
    enough = stats.binom.sf(MIN_BOOTSTRAP_LABELS - 1, st.sizes.astype(int), pi)
    return float(1.0 - np.prod(enough))


#: Budgets from the pilot's to the whole pool over which the groups' df are kept.
DF_GRID = 512


def raw_df(st: PilotStatistics, design: str, m: np.ndarray) -> np.ndarray:
    """(len(m), G) df of the groups at the budgets ``m``: ``n_g - 1``, plus the pooled
    residuals' ``n - G`` in the proportion of draws that leave some group under
    :data:`~bacon_bayes.estimate.groups.MIN_BOOTSTRAP_LABELS` labels (the estimator's
    moderated t, whose prior is the variance all labels predict)."""
    pi = m / st.n_items
    df = np.maximum(np.outer(pi, st.sizes) - 1.0, 1.0)
    if design != "paired" and len(st.names) >= 2:
        if design == "stratified":
            share = np.any(np.round(np.outer(pi, st.sizes)) < MIN_BOOTSTRAP_LABELS, axis=1)
        else:  # moderated_share at every budget at once
            sizes = st.sizes.astype(int)[None, :]
            enough = stats.binom.sf(MIN_BOOTSTRAP_LABELS - 1, sizes, pi[:, None])
            share = 1.0 - np.prod(enough, axis=1)
        df = df + (share * np.maximum(m - len(st.names), 0.0))[:, None]
    return df


def group_df(st: PilotStatistics, design: str, n: float, low: float) -> np.ndarray:
    """The groups' df at ``n`` labels (:func:`raw_df`), the most of any budget from
    ``low`` to ``n``: the estimator's moderated t gives its pooled df up once every group
    has 10 labels (a step of its interval rule, not of what the labels tell), which made
    the power to resolve the top group fall from 121 labels to 240 on SummEval (issue
    43); a plan never predicts less for more labels. The budgets are a fixed grid of
    :data:`DF_GRID` from ``low`` to the pool (kept in ``st.cache``), and ``n``."""
    key = ("group_df", design, float(low))
    if key not in st.cache:
        grid = np.linspace(low, st.n_items, DF_GRID)
        st.cache[key] = (grid, np.maximum.accumulate(raw_df(st, design, grid), axis=0))
    grid, best = st.cache[key]
    own = raw_df(st, design, np.array([float(n)]))[0]
    k = int(np.searchsorted(grid, n, side="right")) - 1
    return own if k < 0 else np.maximum(own, best[k])
