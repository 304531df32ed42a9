"""Planning labels for Bradley-Terry strengths from a pilot of pairwise comparisons.

From a pilot (comparisons with some human votes, a surrogate ``E[y | judges]`` on every
row), :func:`plan_pairwise` predicts the strengths' covariance after a further wave under
each design of :mod:`bacon_bayes.sampling.pairwise` in closed form:

    V(n) = C [sum_pilot (1 / pi0_i) (1 - pi_i(n)) / pi_i(n) r_i^2 x_i x_i'] C' * n / (n - p)

``C`` the strength map at the pilot's strengths, ``r_i = (y - s) - lam (f - s)`` the
pilot's AEE residuals at its tuned ``lam``, ``pi0`` the pilot's inclusion probabilities,
``pi(n)`` the design's union probabilities with ``n`` labels in all and ``p = M - 1`` (the
estimator's HC1 factor), each strength scaled by the estimator's ``nu / (nu - 2)`` on its
effective labeled comparisons (``nu = (sum q)^2 / sum q^2``, ``q = (1 - pi) / pi^2 (C
x)^2`` over the labeled, predicted over the pilot): a Horvitz-Thompson estimate over the
pilot of the covariance the estimator will report. The labels a goal needs are found by
bisection on ``n`` (the variance falls as ``n`` grows). Goals: the strengths' half-width
(``"mean"`` over the models or ``"max"``), the half-width of the difference of two models
``A - B`` (``z sqrt(c' V c)``, as ``bacon estimate --difference A B`` reports it), or the
power to detect that difference.

That is the pool target's covariance (``target="pool"``, the default). For
``target="population"`` the plan predicts the population variance the estimator reports,
with ``u_i = lam (f_i - s_i) C x_i`` the surrogate term of every comparison and ``v_i =
r_i C x_i``. Comparisons whose prompts repeat are summed within prompts, as the estimator
does (:mod:`bacon_bayes.estimate.bradley_terry`): it reports ``B = P / (P - 1) sum_p
(Psi_p - Psibar)(Psi_p - Psibar)'``, ``Psi_p = sum_{i in p} (u_i + S_i v_i / pi_i)``,
times ``(n - 1) / (n - M)`` (CR1, the ``M - 1`` strengths and ``lam`` spent). The labels
of a prompt's comparisons are drawn independently (Poisson with the union ``pi``), so
``E[Psi_p] = T_p = sum_{i in p} (u_i + v_i)``, the prompt's full score, and
``Var(Psi_p) = sum_{i in p} (1 - pi_i) / pi_i v_i v_i'``; with the centring, ``E[B] = [P
/ (P - 1) sum_p (T_p - Tbar)(T_p - Tbar)' + sum_i (1 - pi_i) / pi_i v_i v_i'] (n - 1) /
(n - M)``. ``T_p T_p'`` holds the cross terms
``v_i v_j'`` of a prompt's comparisons that an independent prediction drops. Over the
pilot (Horvitz-Thompson, its labels drawn independently with ``pi0``), ``That_p =
sum_{i in p} u_i + sum_{i in p, labeled} v_i / pi0_i`` (the pilot's own prompt sums)
has ``E[That_p That_p'] = T_p T_p' + sum_{i in p} (1 - pi0_i) / pi0_i v_i v_i'``, so

    V(n) = [P / (P - 1) sum_p (That_p - Thatbar)(That_p - Thatbar)'
            + sum_pilot (1 / pi0_i) ((1 - pi_i) / pi_i - (1 - pi0_i) / pi0_i) v_i v_i']
           * (n - 1) / (n - M)

(at ``pi = pi0`` the pilot's own clustered meat), each strength scaled by ``nu / (nu -
2)`` with ``nu`` from the prompt sums of ``q = (C x_i)^2 / pi_i^2`` (:func:`effective_df` with
``clusters``), the estimator's. Without repeating prompts the population target adds
``sum_pilot (1 / pi0_i) g_i g_i'``, ``g_i = (y_i - s_i) C x_i`` (the full pool's score
variance), to the pool's ``V(n)``, with ``q = 1 / pi^2``.

A model the pilot gives no interval (no or too few labeled comparisons, all won or all
lost: :mod:`bacon_bayes.estimate.bt_guards`) has no residuals, or unrepresentative ones,
in the sums, which then predicted it the most precise model (0.04 logit where the others
had 0.3). Its comparisons enter the design sums instead each once (``1 / pi0 = 1``) with
the other labeled comparisons' weighted mean ``r^2`` (``PairwisePilot.imputed``, said
in the plan's ``variance`` line).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from scipy import stats

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.bradley_terry import (
    ELO,
    bradley_terry,
    effective_df,
    prompt_scatter,
    t_variance_factor,
)
from bacon_bayes.estimate.bt_guards import MIN_LABELED
from bacon_bayes.estimate.clustered import prompt_codes
from bacon_bayes.sampling.designs import wave_seed
from bacon_bayes.sampling.pairwise import (
    pairwise_adaptive,
    pairwise_stratified,
    pairwise_uniform,
    strength_map,
    wave_probabilities,
)

__all__ = [
    "PAIRWISE_DESIGNS",
    "PairwisePilot",
    "PairwisePlan",
    "draw_pairwise_wave",
    "pairwise_pilot",
    "pilot_from_calibrator",
    "plan_pairwise",
]

PAIRWISE_DESIGNS = ("uniform", "stratified", "adaptive")


@dataclass(frozen=True)
class PairwisePilot:
    """What the plan needs from a pilot: strengths, residuals, the strength map."""

    a: np.ndarray
    b: np.ndarray
    names: tuple[str, ...]
    theta: np.ndarray  # pilot strengths, natural log-odds, mean zero
    lam: float
    resid: np.ndarray  # (N,) AEE residual, NaN where unlabeled
    pi0: np.ndarray  # (N,) pilot inclusion probabilities
    sd: np.ndarray | None  # (N,) predictive residual sd given the judges (adaptive)
    cmap: np.ndarray  # (M, M - 1) strength map
    target: str = "pool"  # the estimate's target: "pool" or "population"
    surr: np.ndarray | None = None  # (N,) surrogate term lam (f - s) (population target)
    prompts: np.ndarray | None = None  # (N,) prompt codes when clustered by prompt
    #: models the pilot gives no interval (no, or too few, labeled comparisons; all won
    #: or all lost): their comparisons' residual variance is imputed (:meth:`covariance`)
    imputed: tuple[str, ...] = ()

    @property
    def n_labeled(self) -> int:
        return int(np.isfinite(self.resid).sum())

    @property
    def clustering(self) -> str:
        """How the predicted variance treats the comparisons (for a plan's summary)."""
        if self.prompts is None:
            return f"comparisons independent (target {self.target})"
        n_p = int(np.unique(self.prompts).size)
        return f"clustered by prompt (target population, {n_p} prompts)"

    @property
    def imputed_note(self) -> str:
        """What the plan assumed for the models the pilot's votes do not check ("" if none)."""
        if not self.imputed:
            return ""
        return (
            f"{', '.join(self.imputed)}: no interval in the pilot (too few labeled "
            "comparisons, or all won or all lost); their comparisons are predicted with the "
            "other labeled comparisons' mean squared residual, as if none were labeled yet"
        )

    @property
    def n_compared(self) -> np.ndarray:
        """Each model's comparisons in the table, labeled or not."""
        return _compared(self.a, self.b, self.theta.size)

    @property
    def never_checked(self) -> tuple[str, ...]:
        """The models with fewer comparisons in the table than the estimator needs labeled
        for an interval (``MIN_LABELED``): no wave gives them one."""
        return tuple(self.names[k] for k in np.flatnonzero(self.n_compared < MIN_LABELED))

    @cached_property
    def _rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows of the Horvitz-Thompson sums, their weights and squared residuals:
        the labeled comparisons, except those of an :attr:`imputed` model, whose every
        comparison enters once (weight 1) with the others' weighted mean squared
        residual (a model without a labeled comparison would else look exact)."""
        lab = np.flatnonzero(np.isfinite(self.resid))
        w = 1.0 / self.pi0[lab]
        r2 = self.resid[lab] ** 2
        if not self.imputed:
            return lab, w, r2
        odd = np.isin(np.arange(self.theta.size), [self.names.index(n) for n in self.imputed])
        thin = odd[self.a] | odd[self.b]
        keep = ~thin[lab]
        fill = float(np.average(r2[keep], weights=w[keep])) if keep.any() else 0.25
        extra = np.flatnonzero(thin)
        return (
            np.concatenate([lab[keep], extra]),
            np.concatenate([w[keep], np.ones(extra.size)]),
            np.concatenate([r2[keep], np.full(extra.size, fill)]),
        )

    @cached_property
    def _directions(self) -> np.ndarray:
        """``C x_i`` of every comparison, (M, N)."""
        cz = np.hstack([np.zeros((self.theta.size, 1)), self.cmap])
        return np.asarray(cz[:, self.a] - cz[:, self.b])

    @cached_property
    def _population(self) -> np.ndarray:
        """The part of the population meat that no label removes (module docstring):
        clustered, the pilot's prompt sums less their design variance at ``pi0``; else
        the Horvitz-Thompson ``sum (1 / pi0) g g'`` of the full pool's score."""
        assert self.surr is not None
        lab = np.flatnonzero(np.isfinite(self.resid))
        g = self._directions
        w = 1.0 / self.pi0[lab]
        r = self.resid[lab]
        if self.prompts is None:
            score = r + self.surr[lab]  # y - s
            return np.asarray((g[:, lab] * (w * score**2)) @ g[:, lab].T)
        term = self.surr.copy()
        term[lab] += w * r
        own = (g[:, lab] * (w * (1.0 - self.pi0[lab]) * w * r**2)) @ g[:, lab].T
        return np.asarray(prompt_scatter((g * term).T, self.prompts) - own)

    def contrast(self, pair: Sequence[str]) -> np.ndarray:
        """The contrast ``theta[A] - theta[B]`` of the models ``pair`` names."""
        missing = [p for p in pair if p not in self.names]
        if missing or len(pair) != 2 or pair[0] == pair[1]:
            raise ValidationError(
                f"{' - '.join(map(str, pair))}: name two different models of "
                f"{', '.join(self.names)}."
            )
        out = np.zeros(len(self.names))
        out[self.names.index(pair[0])], out[self.names.index(pair[1])] = 1.0, -1.0
        return out

    def design(
        self, name: str, contrast: np.ndarray | None = None
    ) -> Callable[[float], np.ndarray]:
        """The design's union probabilities as a function of the new labels' count."""
        prior = self.pi0
        if name == "uniform":
            return lambda n: pairwise_uniform(prior.size, n, prior=prior)
        if name == "stratified":
            return lambda n: pairwise_stratified(
                self.a, self.b, self.theta, self.resid, n, prior=prior,
                weights=1.0 / prior, contrast=contrast,
            )  # fmt: skip
        if name == "adaptive":
            if self.sd is None:
                raise ValidationError("the adaptive design needs sd= (vote_sd of the judges).")
            sd = self.sd
            return lambda n: pairwise_adaptive(
                self.a, self.b, self.theta, sd, n, prior=prior, contrast=contrast
            )
        raise ValidationError(f"design {name!r} is not known; use one of {PAIRWISE_DESIGNS}.")

    def covariance(self, pi: np.ndarray, n_total: float) -> np.ndarray:
        """Predicted covariance of the mean-zero strengths (log-odds) under union ``pi``
        with ``n_total`` labels, as the estimator of ``target`` reports it."""
        lab, w, r2 = self._rows
        m = self.theta.size
        g = self._directions[:, lab]  # (M, n0): C x_i
        p = pi[lab]
        # the estimator's t-variance inflation on each strength's effective labeled
        # comparisons, its sums predicted over the pilot (a row is labeled with chance p)
        c = w * (1.0 - p) / p * r2
        if self.prompts is not None:
            cr1 = (n_total - 1.0) / max(n_total - m, 1.0)
            meat = ((g * c) @ g.T + self._population) * cr1
            df = effective_df(g.T, 1.0 / p**2, weights=w * p, clusters=self.prompts[lab])
        else:
            hc1 = n_total / max(n_total - (m - 1), 1.0)
            meat = (g * c) @ g.T * hc1
            q = (1.0 - p) / p**2
            if self.target == "population":
                meat, q = meat + self._population, q + 1.0 / p
            df = effective_df(g.T, q, weights=w * p)
        inflate = t_variance_factor(df)
        return np.asarray(meat * np.outer(inflate, inflate))


def pairwise_pilot(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    surrogate: np.ndarray,
    pi: np.ndarray | None = None,
    *,
    probs: np.ndarray | None = None,
    var: np.ndarray | None = None,
    names: Sequence[str] | None = None,
    n_models: int | None = None,
    target: str = "pool",
    prompts: np.ndarray | None = None,
) -> PairwisePilot:
    """Fit the pilot (:func:`~bacon_bayes.estimate.bradley_terry.bradley_terry`) and keep
    what a plan needs. For the adaptive design's sd, ``probs`` (N, 3): the surrogate
    model's P(y = 0, 0.5, 1) (:func:`~bacon_bayes.sampling.pairwise.vote_sd`), or ``var``
    (N,): its predictive variance of the vote; the sd is then that of the AEE residual,
    ``sqrt(var + (1 - lam)^2 (f - s)^2)``. ``target`` and ``prompts`` as the estimate's:
    with ``target="population"`` and prompts that repeat, the plan predicts the variance
    clustered by prompt (module docstring)."""
    from bacon_bayes.sampling.pairwise import vote_sd

    a, b = np.asarray(a), np.asarray(b)
    y = np.asarray(y, dtype=float)
    f = np.asarray(surrogate, dtype=float)
    n_all = y.size
    lab = np.isfinite(y)
    pi0 = np.full(n_all, lab.sum() / n_all) if pi is None else np.asarray(pi, dtype=float)
    if not np.all(np.isfinite(pi0)):
        row = int(np.argmax(~np.isfinite(pi0)))
        raise ValidationError(
            f"the propensity is empty on comparison {row} (row {row + 1} of the table): a plan "
            "needs every comparison's inclusion probability of the votes so far, as bacon "
            "sample --pairwise writes it; fill it in, or leave --propensity out for uniform votes."
        )
    if target not in ("pool", "population"):
        raise ValidationError(f"target={target!r} is not known; use 'pool' or 'population'.")
    table = bradley_terry(
        a, b, y, f, None if pi is None else pi0, names=names, n_models=n_models,
        target=target, prompts=prompts,
    )  # fmt: skip
    theta = np.asarray(table.estimate, dtype=float)
    if not np.all(np.isfinite(theta)):
        raise ValidationError("the pilot's strengths are not all finite; label more comparisons.")
    lam = float(table.details.get("power_lambda", 0.0))
    s = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
    resid = np.where(lab, (y - s) - lam * (f - s), np.nan)
    if probs is not None:
        var = vote_sd(probs) ** 2
    sd = None
    if var is not None:
        var = np.clip(np.asarray(var, dtype=float), 0.0, None)
        if var.shape != f.shape or not np.all(np.isfinite(var)):
            raise ValidationError("var must hold one finite variance per comparison.")
        sd = np.sqrt(var + (1.0 - lam) ** 2 * (f - s) ** 2)
    clustered = table.details.get("clustered_by") == "prompt"  # as the estimator decides
    # anchored as the estimate is, on the models with an interval: those with fewer
    # comparisons than an interval needs never have one (their variance leaked into every
    # model's through a mean-zero anchor, 3.1 logits of half-width for 0.3)
    seen = _compared(a, b, theta.size)
    anchor = seen >= MIN_LABELED if (seen >= MIN_LABELED).sum() >= 2 else seen >= 0
    shift = np.eye(theta.size) - np.outer(np.ones(theta.size), anchor) / anchor.sum()
    return PairwisePilot(
        a.astype(np.intp), b.astype(np.intp), tuple(table.names), theta, lam, resid, pi0, sd,
        shift @ strength_map(a, b, theta), target,
        lam * (f - s) if target == "population" else None,
        prompt_codes(np.asarray(prompts)) if clustered else None,
        tuple(table.details.get("no_interval", {})),
    )  # fmt: skip


def pilot_from_calibrator(calibrator: Any) -> PairwisePilot:
    """:func:`pairwise_pilot` from a calibrator fitted on a pool of comparisons
    (:meth:`EvalPool.from_pairs`): its cross-fitted ``E[y]`` as the surrogate, its
    predictive variance for the adaptive design, the pool's propensities as ``pi``, its
    target and the pool's prompts (as
    :meth:`~bacon_bayes.calibrator.Calibrator.estimate_bradley_terry` takes them)."""
    pool = getattr(calibrator, "pool_", None)
    pairs = getattr(pool, "pairs", None)
    if pool is None or pairs is None:
        raise ValidationError(
            "plan_pairwise needs a calibrator fitted on a pool of comparisons "
            "(EvalPool.from_pairs(...)); fit it first."
        )
    f = np.clip(calibrator.surrogate_, 0.0, 1.0)
    target = "pool" if getattr(calibrator, "target", "pool") == "pool" else "population"
    return pairwise_pilot(
        pairs.a, pairs.b, pool.y, f, pool.propensity, var=calibrator.crossfit_.var(),
        names=pairs.names, target=target, prompts=getattr(pool, "prompts", None),
    )  # fmt: skip


@dataclass(frozen=True)
class PairwisePlan:
    """Labels needed per design (``None``: not reachable within the pool) and the metric
    predicted at each requested budget (half-width, or power for a difference)."""

    goal: str
    needed: dict[str, int | None]
    predicted: dict[str, dict[int, float]] = field(default_factory=dict)
    recommended: str | None = None
    variance: str = ""  # how the predicted variance treats the comparisons

    def summary(self) -> str:
        lines = [f"goal: {self.goal}"] + ([f"variance: {self.variance}"] if self.variance else [])
        for d, n in self.needed.items():
            mark = "  <- recommended" if d == self.recommended else ""
            lines.append(f"  {d:<11} {'not reachable' if n is None else f'{n} labels'}{mark}")
        return "\n".join(lines)


def _metric(
    cov: np.ndarray, kind: str, alpha: float, unit: float, contrast: np.ndarray | None,
    delta: float | None, keep: np.ndarray | None = None,
) -> float:  # fmt: skip
    z = float(stats.norm.isf(alpha / 2.0))
    if kind in ("mean", "max"):  # over the models ``keep`` (that can get an interval)
        half = z * unit * np.sqrt(np.clip(np.diag(cov), 0.0, None))
        half = half if keep is None else half[keep]
        return float(half.mean() if kind == "mean" else half.max())
    assert contrast is not None
    se = unit * float(np.sqrt(max(float(contrast @ cov @ contrast), 1e-300)))
    if kind == "difference":  # the half-width of A - B's interval
        return z * se
    assert delta is not None
    d = abs(delta) / se
    return float(stats.norm.cdf(d - z) + stats.norm.cdf(-d - z))


def plan_pairwise(
    pilot: PairwisePilot,
    *,
    half_width: float | None = None,
    over: str = "mean",
    pair: tuple[str, str] | None = None,
    delta: float | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    scale: str = "logit",
    designs: Sequence[str] = PAIRWISE_DESIGNS,
    budgets: Sequence[int] = (),
) -> PairwisePlan:
    """Labels (pilot included) each design needs for a goal (module docstring).

    Parameters
    ----------
    half_width : float, optional
        Target half-width of the strengths' intervals, the ``over="mean"`` of the models'
        or their ``"max"``; with ``pair`` (and no ``delta``), of the interval of
        ``pair[0] - pair[1]``.
    pair, delta, power : optional
        Or: power ``power`` to detect a difference ``delta`` between ``pair[0]`` and
        ``pair[1]`` (two-sided level ``alpha``). With ``pair``, the designs aim at that
        difference.
    scale : {"logit", "elo"}
        Units of ``half_width`` / ``delta``.
    budgets : sequence of int
        Total labels at which to report the predicted metric too.
    """
    if scale not in ("logit", "elo"):
        raise ValidationError(f"scale={scale!r} is not known; use 'logit' or 'elo'.")
    unit = ELO if scale == "elo" else 1.0
    contrast = None
    if (half_width is None) == (delta is None) or (delta is not None and pair is None):
        raise ValidationError(
            "give exactly one goal: half_width= (of the strengths, or of pair= A - B), or "
            "pair= with delta=."
        )
    if half_width is not None and not half_width > 0:
        raise ValidationError("half_width must be positive.")
    if delta is not None and not (np.isfinite(delta) and delta != 0):
        raise ValidationError(
            f"delta {delta:g} is no difference to detect: give the smallest difference "
            f"worth finding, e.g. --delta 0.3 (delta=0.3; {scale} units)."
        )
    if delta is not None and not 0 < power < 1:
        raise ValidationError(
            f"power {power:g} is not a probability; give one in (0, 1), e.g. 0.8."
        )
    if pair is not None:
        _check_pair(pilot, pair)
        contrast = pilot.contrast(pair)
    if pair is not None and half_width is not None:
        kind, goal = "difference", f"{pair[0]} - {pair[1]} half-width {half_width:g} ({scale})"
    elif half_width is not None:
        if over not in ("mean", "max"):
            raise ValidationError(f"over={over!r} is not known; use 'mean' or 'max'.")
        kind, goal = over, f"{over} strength half-width {half_width:g} ({scale})"
    else:
        assert pair is not None
        kind, goal = "power", f"power {power:g} for {pair[0]} - {pair[1]} = {delta:g} ({scale})"
    n0 = pilot.n_labeled
    room = float(np.sum(1.0 - pilot.pi0))
    n_pool = pilot.pi0.size

    # the models that can never get an interval count in no mean or max of half-widths
    compared = pilot.n_compared >= MIN_LABELED
    keep = compared if 2 <= compared.sum() < compared.size else None

    def value(rule: Callable[[float], np.ndarray], n_total: float) -> float:
        pi = rule(min(max(n_total - n0, 0.0), room))
        return _metric(pilot.covariance(pi, n_total), kind, alpha, unit, contrast, delta, keep)

    def reached(v: float) -> bool:
        return v >= power if kind == "power" else v <= half_width  # type: ignore[operator]

    needed: dict[str, int | None] = {}
    predicted: dict[str, dict[int, float]] = {}
    for name in designs:
        rule = pilot.design(name, contrast)
        predicted[name] = {int(n): value(rule, n) for n in budgets}
        if reached(value(rule, n0)):
            needed[name] = n0
            continue
        if not reached(value(rule, n_pool - 1e-9)):
            needed[name] = None
            continue
        lo, hi = float(n0), float(n_pool)
        while hi - lo > 1.0:
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if reached(value(rule, mid)) else (mid, hi)
        needed[name] = int(np.ceil(hi))
    ok = {d: n for d, n in needed.items() if n is not None}
    best = min(ok, key=lambda d: ok[d]) if ok else None
    how = pilot.clustering + (f"; {pilot.imputed_note}" if pilot.imputed else "")
    if keep is not None and kind in ("mean", "max"):
        how += (
            f"; left out of the {kind}: {', '.join(pilot.never_checked)}, with fewer than "
            f"{MIN_LABELED} comparisons in the table (no interval at any budget)"
        )
    return PairwisePlan(goal, needed, predicted, best, how)


def _compared(a: np.ndarray, b: np.ndarray, m: int) -> np.ndarray:
    """Each of ``m`` models' comparisons (as model A or B), labeled or not."""
    return np.bincount(a, minlength=m) + np.bincount(b, minlength=m)


def _check_pair(pilot: PairwisePilot, pair: Sequence[str]) -> None:
    """Refuse a pair with an unknown model, one model twice, or a model with fewer
    comparisons in the table than an interval needs labeled (tester A, findings 3, 5:
    certainty sampling of its one comparison promised a half-width of 1e-150)."""
    unknown = [p for p in pair if p not in pilot.names]
    if unknown:
        raise ValidationError(
            f"model {unknown[0]!r} is not in the table ({', '.join(pilot.names)})."
        )
    if len(pair) != 2 or pair[0] == pair[1]:
        raise ValidationError(f"{' '.join(pair)}: name two different models.")
    for p in pair:
        n = int(pilot.n_compared[pilot.names.index(p)])
        if n < MIN_LABELED:
            raise ValidationError(
                f"{p} has {n} comparison{'s' if n != 1 else ''} in the table, fewer than the "
                f"{MIN_LABELED} labeled ones a model needs for an interval: no wave reaches "
                f"this goal. Add comparisons of {p} (with the judges' verdicts) to the table "
                "first, or plan for another pair."
            )


def draw_pairwise_wave(
    design: str,
    n: float,
    *,
    labeled: np.ndarray,
    pilot: PairwisePilot | None = None,
    prior: np.ndarray | None = None,
    seed: int = 0,
    pair: Sequence[str] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw a wave of about ``n`` new comparisons by ``design`` (``PAIRWISE_DESIGNS``).

    ``labeled`` (N,) marks the comparisons with a human vote already; ``prior`` their
    inclusion probabilities (default ``pilot.pi0``, else uniform ``#labeled / N``). The
    stratified and adaptive designs need the ``pilot`` (:func:`pilot_from_calibrator`);
    uniform does not; ``pair`` (two model names) aims them at that difference, as
    :func:`plan_pairwise` with ``pair=`` sized them. Returns the union inclusion
    probabilities of every comparison (the ``pi`` / ``--propensity`` of the estimate once
    the wave is labeled) and the mask of the comparisons drawn (never one already labeled).
    """
    labeled = np.asarray(labeled, dtype=bool)
    n_rows = labeled.size
    if prior is None:
        prior = pilot.pi0 if pilot is not None else np.full(n_rows, labeled.mean())
    prior = np.asarray(prior, dtype=float)
    if design == "uniform":
        union = pairwise_uniform(n_rows, n, prior=prior)
    elif pilot is None:
        raise ValidationError(
            f"the {design} design needs a pilot: label some comparisons first (or draw "
            "this wave with --design uniform)."
        )
    else:
        union = pilot.design(design, None if pair is None else pilot.contrast(pair))(n)
    wave = wave_probabilities(union, prior)
    # the stream is keyed by which comparisons are voted on already: a further wave drawn
    # with the same seed on the written table must not reuse the uniforms that left these
    # comparisons undrawn (it would draw far fewer than ``wave`` says, and not with it)
    digest = hashlib.sha256(np.packbits(labeled).tobytes()).digest()
    rng = np.random.default_rng(wave_seed(seed, int.from_bytes(digest[:8], "little")))
    drawn = ~labeled & (rng.random(n_rows) < wave)
    return union, drawn


def pending_marks(frame: Any, label: str) -> np.ndarray:
    """The comparisons an earlier wave drew (``to_label`` = 1 in a table ``bacon sample
    --pairwise`` wrote; none in another table) whose vote has not come back. A next wave
    keeps them marked and draws none of them again: they are in the sample already, so
    each comparison's union inclusion probability holds (the voted ones lose their mark,
    as ``to_label`` marks the votes still to collect)."""
    from bacon_bayes.readers.pair_table import drawn_marks

    return drawn_marks(frame) & frame[label].isna().to_numpy()
