"""The pool mean's looks, each with its own fit: the alpha-spending boundary on the looks'
own correlation (:func:`bacon_bayes.estimate.anytime.look_cosines`).

The boundary of :mod:`bacon_bayes.estimate.anytime` assumes the canonical correlation
``sqrt(I_j / I_k)`` of the looks' estimates. Refitting the surrogate (and its weight)
between looks makes them less correlated, so that boundary spends more than ``alpha``
(SummEval relevance, 10 uniform looks: some look misses 0.0558, EXPERIMENTS.md). Here each
earlier look is refitted as it stood, the calibrator's settings on the labels of the waves
up to it (:func:`pool_after_wave`), and the cosines of adjacent looks' residuals on the
labels they share give the correlation (canonical times cosine). The residuals of every
look are weighed by the latest pool's inclusion probabilities, conditioned on the look's
labels (Hajek): the probabilities then under uniform and stratified waves; under
adaptive ones the latest pool's stand in for them (the cosine reads only their relative
sizes within a look).

Where it applies: the frequentist engine's AEE mean on an item-level design with the pool
as target. Elsewhere the boundary keeps the canonical correlation and says why
(``details["anytime"]["correlation_note"]``): the Bayesian engine (a NUTS fit per look),
a calibrator applied to a new round (its surrogate is not refitted), the classical
estimate (no surrogate), waves that drew prompts (the variance is clustered by prompt)
and the population target. A look that cannot be refitted (fewer labels than folds)
keeps the canonical correlation with its neighbours.

A study's looks are fitted once: :func:`bacon_bayes.study.looks.look_estimates` hands
each look the fits of the looks before it (:func:`hand_over`), so the report's sequence
and ``bacon estimate`` give the same intervals without fitting a look twice.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from bacon_bayes import surrogates as sur
from bacon_bayes.errors import BaconError, ValidationError
from bacon_bayes.estimate import anytime, shape
from bacon_bayes.estimate.mean import aee_residuals
from bacon_bayes.pool import EvalPool
from bacon_bayes.results import Estimate

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

__all__ = [
    "LookFit",
    "earlier_fits",
    "fit_look",
    "hand_over",
    "look_fit",
    "mean_cosines",
    "mean_shape",
    "pool_after_wave",
]

#: where a calibrator keeps its earlier looks' fits (with the cross-fit they belong to)
_HELD = "_look_fits"


@dataclass(frozen=True)
class LookFit:
    """What the boundary needs of a look's fit: its labeled items (N,), its AEE mean's
    surrogates on them (n, k: out of fold) and whether their weights are tuned."""

    labeled: np.ndarray
    surrogates: np.ndarray
    tuned: bool


def look_fit(cal: Calibrator) -> LookFit:
    """The :class:`LookFit` of a fitted calibrator (its pool is the look)."""
    lab = cal.pool_.labeled
    f = np.asarray(cal.surrogate_matrix(), dtype=float).reshape(lab.size, -1)
    return LookFit(lab.copy(), f[lab].copy(), sur.tuned(cal.extras_, cal.power_tuning))


def pool_after_wave(pool: EvalPool, wave: int) -> EvalPool:
    """The pool as it stood after its wave ``wave`` (a code 0..K-1 of ``pool.waves``): the
    labels of the waves up to it, the later ones' items unlabeled, the inclusion
    probabilities as the pool records them (a study's as they stood then come from
    ``load_study(path, up_to_wave=...)``)."""
    if pool.waves is None or pool.wave_names is None:
        raise ValidationError(
            "the pool records no waves: build it with EvalPool.from_frame(..., wave=COLUMN)"
        )
    keep = (pool.waves >= 0) & (pool.waves <= wave)
    return replace(
        pool,
        y=np.where(keep, pool.y, np.nan),
        waves=np.where(keep, pool.waves, -1),
        wave_names=pool.wave_names[: wave + 1],
    )


def hand_over(cal: Calibrator, fits: Sequence[LookFit]) -> None:
    """Give ``cal`` fits of its earlier looks made elsewhere (a study's looks, fitted on
    the study as it stood): :func:`earlier_fits` takes the one whose labels are a look's
    instead of refitting it."""
    vars(cal)[_HELD] = (cal.crossfit_, {_key(f.labeled): f for f in fits})


def _key(labeled: np.ndarray) -> bytes:
    return np.packbits(labeled).tobytes() + labeled.size.to_bytes(8, "little")


def fit_look(cal: Calibrator, pool: EvalPool) -> Calibrator:
    """A calibrator fitted on ``pool`` (an earlier look) as ``cal`` was: ``cal``'s settings
    with the seed and engine its fit used (a seed drawn for ``seed=None``, ``auto``
    resolved). Its warnings are not given: a look's notes are those of ``cal``'s fit (its
    PoolWarning, ConvergenceWarning). The one place a look's calibrator is built, for
    :func:`_refit` and :func:`bacon_bayes.study.looks.look_estimates`."""
    params = cal.get_params() | {"seed": cal.seed_, "engine": cal.engine_}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return type(cal)(**params).fit(pool)


def _refit(cal: Calibrator, wave: int) -> LookFit | None:
    """The look after ``wave`` refitted with ``cal``'s settings (None: it cannot be)."""
    try:
        return look_fit(fit_look(cal, pool_after_wave(cal.pool_, wave)))
    except BaconError:  # fewer labels than folds, a judge without labels yet
        return None


def earlier_fits(cal: Calibrator) -> list[LookFit | None]:
    """The fits of the looks before the latest (None: a look that cannot be fitted), each
    made once: handed over (:func:`hand_over`) or refitted (:func:`_refit`)."""
    waves = np.asarray(cal.pool_.waves)
    held = vars(cal).get(_HELD)
    if held is None or held[0] is not cal.crossfit_:
        # set once per fit: a reassigned attribute would drop the calibrator's memo
        held = vars(cal)[_HELD] = (cal.crossfit_, {})
    fits = held[1]
    out: list[LookFit | None] = []
    for k in range(int(waves.max())):
        key = _key((waves >= 0) & (waves <= k))
        if key not in fits:
            fits[key] = _refit(cal, k)
        out.append(fits[key])
    return out


def _canonical_reason(cal: Calibrator, e: Estimate) -> str:
    """Why the pool mean's boundary keeps the canonical correlation ("" where not)."""
    p = cal.pool_
    if p.waves is None or int(np.max(p.waves)) < 1:
        return ""  # one look: no correlation
    if e.method != "aee":
        return f"the {e.method} estimate has no surrogate refitted between looks"
    if cal.engine_ != "freq":
        return (
            "the Bayesian engine's looks are not refitted (a NUTS fit each); the "
            "frequentist engine's boundary is on the looks' own correlation"
        )
    if hasattr(cal, "frozen_"):
        return "a calibrator applied to a new round: its surrogate is not refitted per look"
    if p.inclusion is not None or (p.prompts is not None and cal.target != "pool"):
        return "the variance is clustered by prompt (the looks' own correlation is item-level)"
    if cal.target != "pool":
        return "the population target (the looks' own correlation is the pool's)"
    return ""


def mean_cosines(cal: Calibrator, e: Estimate) -> tuple[np.ndarray | None, str]:
    """The cosines of adjacent looks' residuals of the pool mean ``e`` (shape (K - 1,)),
    or None with the reason the boundary keeps the canonical correlation; the second
    item also names looks that could not be refitted (canonical beside them)."""
    if why := _canonical_reason(cal, e):
        return None, why
    p = cal.pool_
    waves = np.asarray(p.waves)
    K = int(waves.max()) + 1
    if K < 2:
        return None, ""
    order = np.argsort(np.where(waves >= 0, waves, K), kind="stable")  # looks as prefixes
    fits = [*earlier_fits(cal), look_fit(cal)]
    cos, unfit, before = np.ones(K - 1), [], None
    for k, fit in enumerate(fits):
        now = None if fit is None else _residuals(cal, fit, order)
        if now is None:
            unfit.append(k + 1)
        elif k and before is not None:
            pair = anytime.look_cosines([before[0], now[0]], [before[1], now[1]])
            cos[k - 1] = float(pair[0])
        before = now
    note = ""
    if unfit:
        which = ", ".join(map(str, unfit))
        note = (
            f"look{'s' if len(unfit) > 1 else ''} {which} could not be refitted (its fit "
            "refused, e.g. fewer labels than folds): the canonical correlation beside "
            f"{'them' if len(unfit) > 1 else 'it'}"
        )
    return cos, note


def mean_shape(cal: Calibrator, e: Estimate) -> tuple[float, float] | None:
    """The latest look's skewness and covariance of the pool mean ``e`` for Hall's term
    (:func:`bacon_bayes.estimate.shape.skew_moments`, from its AEE residuals) where its
    boundary is on the looks' own fits (a first look too); None elsewhere."""
    if _canonical_reason(cal, e):
        return None
    out = _look_residuals(cal, look_fit(cal))
    if out is None:
        return None
    gamma, rho = shape.skew_moments(out[1], out[2], cal.target)
    return float(gamma), float(rho)


def _look_residuals(
    cal: Calibrator, fit: LookFit
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A look's labeled items, their AEE residuals and inclusion probabilities."""
    p = cal.pool_
    f = np.zeros((p.n_items, fit.surrogates.shape[1]))
    f[fit.labeled] = fit.surrogates
    try:
        return aee_residuals(
            p.y, f, fit.labeled, p.propensity,
            power_tuning=fit.tuned, hajek=cal.hajek, target=cal.target,
        )  # fmt: skip
    except BaconError:
        return None


def _residuals(
    cal: Calibrator, fit: LookFit, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """A look's residuals and inclusion probabilities in the pool's wave ``order``."""
    p = cal.pool_
    out = _look_residuals(cal, fit)
    if out is None:
        return None
    idx, r, pi = out
    full_r, full_pi = np.zeros(p.n_items), np.ones(p.n_items)
    full_r[idx], full_pi[idx] = r, pi
    n = int(fit.labeled.sum())
    return full_r[order[:n]], full_pi[order[:n]]
