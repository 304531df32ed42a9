"""The bootstrap tail ratio the paired design's pool-mean interval will carry, predicted
from a pilot (:func:`expected_tail_ratio`, :func:`tail_ratio_at`).

The clustered estimators' intervals (designs that draw prompts) are Student-t on the
labeled prompts times a *tail ratio*: the bootstrap's ``|t|`` quantile over the same
bootstrap's on normal data (:mod:`bacon_bayes.estimate.cluster_boot`). With skewed
prompt sums (a binary label the judges predict well: mostly small residuals, a few
surprises shared by a prompt's items) and a few dozen labeled prompts it is well above 1:
on TriviaQA at 10% (40 prompts) the paired pool mean's critical value averaged 2.53
against Student's 2.02 (ratio 1.25); on WMT22 (187 prompts) 2.006 against 1.973.

The prediction runs the estimator's own ratio function on pseudo samples of the prompts
the design will label and averages :data:`TAIL_REPS` of them. A prompt's residual sum is
that of ``k`` of its ``k_p`` items, scaled by ``k_p / k``, where ``k = k_p / (1 + (k_p - 1)
rho)`` (the design effect: ``k_p`` items sharing a prompt are worth ``k`` independent
ones). Residuals: a binary label drawn from the pilot's surrogate, else the pilot's
standardised residuals resampled times the group's sd.

The pairwise differences' ratios are not predicted (Student-t, ratio 1): on TriviaQA the
pseudo samples gave pair ratios of 1.06-1.81 over four 3% pilots, mostly the pilot's noise,
and powers further from the simulated ones than without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bacon_bayes.estimate.cluster_boot import N_BOOT, tail_ratios

if TYPE_CHECKING:
    from bacon_bayes.planning.predict import PilotStatistics

__all__ = ["TAIL_REPS", "expected_tail_ratio", "tail_ratio_at"]

#: Pseudo samples averaged per prediction.
TAIL_REPS = 20
#: The ratios are simulated once per design at this share of the pool and scaled to
#: other budgets as ``1 + (ratio - 1) n_ref / n`` (the excess of a studentised statistic's
#: two-sided quantile shrinks like ``1 / n``), capped at :data:`MAX_TAIL_RATIO`.
REFERENCE_SHARE = 0.1
MAX_TAIL_RATIO = 3.0


def _residuals(st: PilotStatistics, items: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Pseudo residuals of ``items``: a binary label drawn from the surrogate, else the
    pilot's standardised residuals resampled times the item's group sd."""
    if st.two_levels is not None and st.surrogate is not None:
        lo, hi = st.two_levels
        f = st.surrogate[items]
        p = np.clip((f - lo) / (hi - lo), 0.0, 1.0)
        return np.where(rng.random(items.size) < p, hi, lo) - f
    z = st.zresid[np.isfinite(st.zresid)]
    return np.sqrt(st.sigma2[st.codes[items]]) * rng.choice(z, size=items.size)


def expected_tail_ratio(st: PilotStatistics, n: float, alpha: float, *, seed: int = 0) -> float:
    """Predicted tail ratio of the paired design's pool-mean interval at ``n`` labels
    (module docstring); 1 without prompts or pilot residuals."""
    if st.prompt_codes is None or st.surrogate is None or np.isfinite(st.zresid).sum() < 3:
        return 1.0
    rng = np.random.default_rng(seed)
    order = np.argsort(st.prompt_codes, kind="stable")
    starts = np.searchsorted(st.prompt_codes[order], np.arange(st.n_prompts + 1))
    n_p = min(max(round(n / st.per_prompt), 3), st.n_prompts)
    ratios = []
    for _ in range(TAIL_REPS):
        drawn = rng.choice(st.n_prompts, size=n_p, replace=False)
        S, W = np.zeros((n_p, 1)), np.zeros((n_p, 1))
        for row, p in enumerate(drawn):
            items = order[starts[p] : starts[p + 1]]
            k_p = items.size
            k = max(round(k_p / (1.0 + (k_p - 1.0) * max(st.rho, 0.0))), 1)
            chosen = rng.choice(items, size=min(k, k_p), replace=False)
            S[row, 0] = _residuals(st, chosen, rng).sum() * k_p / chosen.size
            W[row, 0] = k_p
        ratio = tail_ratios(S, W, alpha, n_boot=N_BOOT, seed=int(rng.integers(2**31)))
        ratios.append(float(ratio["groups"][0]))
    return float(np.mean(ratios))


def tail_ratio_at(st: PilotStatistics, n: float, alpha: float) -> float:
    """:func:`expected_tail_ratio` simulated once per ``alpha`` (cached on ``st``) at the
    reference budget, scaled to ``n`` labels."""
    n_ref = float(min(max(REFERENCE_SHARE * st.n_items, 3.0 * st.per_prompt), st.n_items))
    if alpha not in st.tail_cache:
        st.tail_cache[alpha] = expected_tail_ratio(st, n_ref, alpha)
    excess = (st.tail_cache[alpha] - 1.0) * n_ref / max(float(n), 1.0)
    return float(min(1.0 + excess, MAX_TAIL_RATIO))
