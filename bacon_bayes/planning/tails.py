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

The pairwise differences take their groups' widening (each group's critical value over
its Student-t one, averaged in squares with the groups' variances as weights:
:func:`bacon_bayes.estimate.groups._pair_critical_values`); :func:`group_ratios_at`
predicts each group's: the clustered tail ratio per group on pseudo prompt sums (paired:
one item per group and prompt), or the within-group studentised bootstrap's
(:func:`~bacon_bayes.estimate.critical.bootstrap_t_critical_values`) over Student-t on
``n_g`` pseudo residuals per group (item-level designs; 1 below
:data:`~bacon_bayes.estimate.groups.MIN_BOOTSTRAP_LABELS` labels, the moderated t).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from bacon_bayes.estimate.cluster_boot import N_BOOT, tail_ratios
from bacon_bayes.estimate.critical import bootstrap_t_critical_values
from bacon_bayes.estimate.groups import MIN_BOOTSTRAP_LABELS

if TYPE_CHECKING:
    from bacon_bayes.planning.predict import PilotStatistics

__all__ = [
    "TAIL_REPS",
    "expected_group_ratios",
    "expected_tail_ratio",
    "group_ratios_at",
    "pair_widening",
    "tail_ratio_at",
]

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
    order, starts = _prompt_index(st)
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
    key = ("pool", "paired", alpha)
    if key not in st.tail_cache:
        st.tail_cache[key] = expected_tail_ratio(st, n_ref, alpha)
    excess = (float(st.tail_cache[key]) - 1.0) * n_ref / max(float(n), 1.0)
    return float(min(1.0 + excess, MAX_TAIL_RATIO))


def _prompt_index(st: PilotStatistics) -> tuple[np.ndarray, np.ndarray]:
    assert st.prompt_codes is not None
    order = np.argsort(st.prompt_codes, kind="stable")
    return order, np.searchsorted(st.prompt_codes[order], np.arange(st.n_prompts + 1))


def expected_group_ratios(
    st: PilotStatistics, design: str, n: float, alpha: float, *, seed: int = 1
) -> np.ndarray:
    """Predicted ratio of each group's pointwise critical value to Student-t's at ``n``
    labels (module docstring); ones without pilot residuals."""
    m = len(st.names)
    if st.surrogate is None or np.isfinite(st.zresid).sum() < 3:
        return np.ones(m)
    rng = np.random.default_rng(seed)
    out = []
    if design == "paired" and st.prompt_codes is not None:
        order, starts = _prompt_index(st)
        n_p = min(max(round(n / st.per_prompt), 3), st.n_prompts)
        for _ in range(TAIL_REPS):
            S, W = np.zeros((n_p, m)), np.zeros((n_p, m))
            for row, p in enumerate(rng.choice(st.n_prompts, size=n_p, replace=False)):
                items = order[starts[p] : starts[p + 1]]
                np.add.at(S[row], st.codes[items], _residuals(st, items, rng))
                np.add.at(W[row], st.codes[items], 1.0)
            ratio = tail_ratios(S, W, alpha, n_boot=N_BOOT, seed=int(rng.integers(2**31)))
            out.append(ratio["groups"])
        return np.mean(out, axis=0)
    n_g = np.minimum(np.maximum(np.round(n / st.n_items * st.sizes), 2), st.sizes).astype(int)
    if n_g.min() < MIN_BOOTSTRAP_LABELS:
        return np.ones(m)
    t_crit = stats.t.isf(alpha / 2.0, n_g - 1.0)
    members = [np.flatnonzero(st.codes == g) for g in range(m)]
    for _ in range(TAIL_REPS):
        items = np.concatenate(
            [rng.choice(members[g], size=n_g[g], replace=False) for g in range(m)]
        )
        crit = bootstrap_t_critical_values(
            _residuals(st, items, rng), np.ones(items.size), st.codes[items], alpha, "none",
            n_boot=N_BOOT, seed=int(rng.integers(2**31)),
        )  # fmt: skip
        out.append(np.maximum(np.ravel(crit) / t_crit, 1.0))
    return np.mean(out, axis=0)


def group_ratios_at(st: PilotStatistics, design: str, n: float, alpha: float) -> np.ndarray:
    """:func:`expected_group_ratios` simulated once per design and ``alpha`` (cached on
    ``st``) at the reference budget, scaled to ``n`` labels."""
    n_ref = float(min(max(REFERENCE_SHARE * st.n_items, 3.0 * st.per_prompt), st.n_items))
    key = ("groups", design if design == "paired" else "items", alpha)
    if key not in st.tail_cache:
        st.tail_cache[key] = expected_group_ratios(st, design, n_ref, alpha)
    excess = (np.asarray(st.tail_cache[key]) - 1.0) * n_ref / max(float(n), 1.0)
    return np.minimum(1.0 + excess, MAX_TAIL_RATIO)


def pair_widening(ratios: np.ndarray, cov: np.ndarray, a: int, b: int) -> float:
    """The widening a difference takes over from its groups: their ratios averaged in
    squares with weights their variances (as the estimators do)."""
    va, vb = max(cov[a, a], 0.0), max(cov[b, b], 0.0)
    if va + vb <= 0:
        return float(max(ratios[a], ratios[b]))
    return float(np.sqrt((ratios[a] ** 2 * va + ratios[b] ** 2 * vb) / (va + vb)))
