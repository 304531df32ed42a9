"""The search behind a plan: the goal's metric of a design at a budget
(:class:`Evaluator`: a half-width, or the power of a difference or of the top group) and
the fewest labels that reach it, again with the pilot's residual variance at the ends of
its interval (:func:`labels_range`) and with a lower within-prompt correlation for paired
(:func:`paired_beyond_error`)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from bacon_bayes.estimate.core import variance_range
from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.planning.outlook import (
    Outlook,
    contrast_metrics,
    outlook,
    planning_basis,
    shrink_prior,
)
from bacon_bayes.planning.predict import POWER_DRAWS, PilotStatistics, Prediction, predict

if TYPE_CHECKING:
    from bacon_bayes.planning.plan import DesignPlan, Goal

#: sd of a named pair's own within-prompt correlation around the pool's average one (WMT22:
#: 0.16-0.55 over its 120 pairs of systems): the plan's error on paired's gain for a pair.
PAIR_RHO_SD = 0.1
#: The paired design is recommended only when it still needs fewer labels than the
#: best other design with the within-prompt correlation this many sds below the plan's.
PAIRED_MARGIN_SDS = 1.0
#: Growth factor of the budgets scanned for the first that reaches the goal.
SCAN_STEP = 1.15
#: A half-width goal of a group or a pair counts as reached only where its interval is
#: withheld in at most this share of draws.
MAX_WITHHELD = 0.05


def _pairs_level(cov: np.ndarray, alpha: float) -> float:
    """Pointwise level of the max-|t| critical value over all pairwise differences."""
    m = cov.shape[0]
    rows = [(a, b) for a in range(m) for b in range(a + 1, m)]
    L = np.zeros((len(rows), m))
    for k, (a, b) in enumerate(rows):
        L[k, a], L[k, b] = 1.0, -1.0
    dcov = L @ cov @ L.T
    sd = np.sqrt(np.clip(np.diag(dcov), 1e-300, None))
    crit = simultaneous_critical_value(dcov / np.outer(sd, sd), alpha, "maxt", draws=20_000)
    return float(2.0 * stats.norm.sf(crit[0]))


class Evaluator:
    """The goal's metric (half-width, or power) of a design at ``n`` labels."""

    def __init__(
        self,
        st: PilotStatistics,
        goal: Goal,
        alpha: float,
        from_scratch: bool,
        pooling: str = "auto",
    ):
        self.st, self.goal, self.alpha, self.from_scratch = st, goal, alpha, from_scratch
        self.pooling = pooling
        #: The fewest labels a plan considers (the pilot's, or two per fold from scratch).
        self.low = 2 * st.folds if from_scratch or st.n_labeled == 0 else st.n_labeled
        self.prior = shrink_prior(st)
        self.names = st.names
        #: the group means taken as the truth: the pilot's table, as the estimator gives it
        self.truth, self.basis = planning_basis(st, self.prior, pooling)
        # the estimator's leader, a group without pilot labels too (by its surrogate)
        #: +1: the top is the highest mean; -1: the lowest (``better="lower"``)
        self.sign = -1.0 if goal.better == "lower" else 1.0
        self.top = int(np.nanargmax(self.sign * self.truth)) if goal.kind == "top" else None
        self._levels: dict[str, float] = {}
        self._details: dict[tuple[str, float], dict[str, float]] = {}
        self._powers: dict[tuple[float, bytes, bytes], float] = {}  # by level, cov, df
        self._z = np.random.default_rng(20261127).standard_normal((POWER_DRAWS, len(st.names)))

    def groups(self) -> list[int]:
        """The goal's groups (none: the pool mean or the top group's)."""
        g = self.goal
        if g.pair is not None:
            return [self.names.index(v) for v in g.pair]
        return [self.names.index(g.group)] if g.group is not None else []

    def details(self, design: str, n: float) -> dict[str, float]:
        """The goal's group or pair at ``n``: withheld chance, half-width, power, and the
        chance the estimator shrinks (:func:`~bacon_bayes.planning.outlook.contrast_metrics`)."""
        key = (design, float(n))
        if key in self._details:
            return self._details[key]
        p = predict(self.st, design, n, from_scratch=self.from_scratch)
        o = outlook(
            self.st, p, pooling=self.pooling, prior=self.prior, from_scratch=self.from_scratch
        )
        self._details[key] = self._contrast(o, p)
        return self._details[key]

    def _contrast(self, o: Outlook, p: Prediction) -> dict[str, float]:
        groups = self.groups()
        if not groups:  # the top group: every group needs its interval
            every = list(range(len(self.names)))
            sep, shr = o.branches(every)
            return {"withheld": 1.0 - sep - shr, "p_shrink": o.p_shrink}
        delta = float(self.goal.delta or 0.0)
        surrogate_gap = None
        if len(groups) == 2:
            a, b = groups
            gap = self.st.means[a] - self.st.means[b]
            delta = -delta if np.isfinite(gap) and gap < 0 else delta  # as the pilot sees it
            if self.st.surrogate_means is not None and self.st.n_labeled > 0:
                surrogate_gap = float(self.st.surrogate_means[a] - self.st.surrogate_means[b])
        return contrast_metrics(
            o, p, groups, delta=delta, alpha=self.alpha, surrogate_gap=surrogate_gap
        )

    def metric(self, design: str, n: float) -> float:
        g = self.goal
        if g.kind == "half-width" and g.group is None and g.pair is None:
            p = predict(self.st, design, n, from_scratch=self.from_scratch)
            crit = stats.t.isf(self.alpha / 2.0, p.df_pool)
            return float(crit * math.sqrt(p.var_pool))
        if g.kind == "half-width":
            d = self.details(design, n)
            return d["half_width"] if d["withheld"] <= MAX_WITHHELD else math.inf
        if g.kind == "difference":
            return self.details(design, n)["power"]
        p = predict(self.st, design, n, from_scratch=self.from_scratch)
        return self._top_power(design, p) * (1.0 - self.details(design, n)["withheld"])

    def _top_power(self, design: str, p: Prediction) -> float:
        t = self.top
        assert t is not None
        # a design that predicts what another did at this budget (adaptive stepping
        # back to uniform) has its power: the draws are the same
        if design not in self._levels:
            self._levels[design] = _pairs_level(p.cov, self.alpha)
        level = self._levels[design]
        key = (level, p.cov.tobytes(), p.df.tobytes())
        if key not in self._powers:
            self._powers[key] = self._draw_power(p, t, level)
        return self._powers[key]

    def _draw_power(self, p: Prediction, t: int, level: float) -> float:
        others = [k for k in range(len(self.names)) if k != t]
        L = np.zeros((len(others), len(self.names)))
        L[np.arange(len(others)), others] = -1.0
        L[:, t] = 1.0
        dcov = L @ p.cov @ L.T
        gaps = L @ (self.sign * self.truth)  # the top's leads, in the better direction
        vals, vecs = np.linalg.eigh(dcov)
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))
        # einsum, not BLAS: 8000 x 9 by 9 x 9 took 40 ms with two BLAS threads on a busy
        # machine (1.6 ms with one), and the search calls it about 25 times per design
        draws = gaps + np.einsum("dk,jk->dj", self._z[:, : len(others)], root)
        se = np.sqrt(np.clip(np.diag(dcov), 1e-300, None))
        df = np.minimum(p.df[t], p.df[others])
        crit = stats.t.isf(level / 2.0, df)
        return float(np.mean(np.all(draws / se > crit, axis=1)))

    def reached(self, value: float) -> bool:
        if self.goal.kind == "half-width":
            return value <= float(self.goal.half_width or 0.0)
        return value >= self.goal.power

    def labels_needed(self, design: str, low: int) -> int | None:
        """Fewest labels in all (at least ``low``) that reach the goal; None: none short
        of the whole pool (its means exact: no plan). The metric need not be monotone in
        ``n`` (the estimator stops shrinking once every group has 10 labels, and its
        separate intervals can be the wider ones): budgets grow by :data:`SCAN_STEP` to
        the first that reaches the goal, then bisection below it."""
        N = self.st.n_items - 1  # the largest budget that leaves an item to the judges
        if low > N or self.reached(self.metric(design, low)):
            return low if low <= N else None
        lo = low
        while lo < N:
            hi = min(N, max(lo + 1, math.ceil(lo * SCAN_STEP)))
            if self.reached(self.metric(design, hi)):
                break
            lo = hi
        else:
            return None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if self.reached(self.metric(design, mid)) else (mid, hi)
        return hi


def labels_range(ev: Evaluator, design: str, point: int) -> tuple[int | None, int | None]:
    """Labels needed in all with the pilot's residual variances at the ends of their
    :data:`~bacon_bayes.estimate.core.RANGE_LEVEL` chi-square interval (``variance_df``
    labels; :func:`~bacon_bayes.estimate.core.variance_range`), low to high and holding
    ``point`` (near the whole pool the metric need not fall with the variance)."""
    st, df = ev.st, ev.st.variance_df
    out = []
    for f in map(float, variance_range(df)):
        scaled = replace(st, sigma2=st.sigma2 * f, s2_pool=st.s2_pool * f, cache={})
        other = Evaluator(scaled, ev.goal, ev.alpha, ev.from_scratch, ev.pooling)
        out.append(other.labels_needed(design, ev.low))
    found = [point, *(v for v in out if v is not None)]
    return min(found), None if None in out else max(found)


def paired_beyond_error(ev: Evaluator, candidates: list[DesignPlan], low: int) -> list[DesignPlan]:
    """Drop paired unless it needs fewer labels than every other candidate even with the
    within-prompt correlation :data:`PAIRED_MARGIN_SDS` sds lower (the plan's own error on
    its gain; a named pair adds :data:`PAIR_RHO_SD` for its own correlation)."""
    paired_row = next((r for r in candidates if r.design == "paired"), None)
    others = [r.labels_needed for r in candidates if r.design != "paired" and r.labels_needed]
    if paired_row is None or not others:
        return candidates
    st = ev.st
    sd = math.hypot(st.rho_sd, PAIR_RHO_SD if ev.goal.pair is not None else 0.0)
    low_rho = max(st.rho - PAIRED_MARGIN_SDS * sd, 0.0)
    pessimistic = Evaluator(
        replace(st, rho=low_rho), ev.goal, ev.alpha, ev.from_scratch, ev.pooling
    )
    need = pessimistic.labels_needed("paired", low)
    best_other, mine = min(others), paired_row.labels_needed or 0
    ratio, more = abs(mine - best_other) / best_other, "more" if mine > best_other else "fewer"
    than = f"{ratio:.0%} {more} labels than" if ratio >= 0.005 else "about as many labels as"
    kept = need is not None and need < best_other
    paired_row.note = (
        f"paired needs {than} the best other design ({mine} against {best_other}); with "
        f"rho {low_rho:.2f} "
        f"({PAIRED_MARGIN_SDS:g} sd below): {need if need is not None else '-'} labels"
        + ("" if kept else ", within the plan's error: not recommended")
        + (f"; {paired_row.note}" if paired_row.note else "")
    )
    return candidates if kept else [r for r in candidates if r.design != "paired"]
