"""The pool mean: AEE (power-tuned, Hajek or Horvitz-Thompson), the classical
labels-only estimator and the naive judge average."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.clustered import (
    cluster_target,
    clustered_mean,
    item_pi,
    use_clustered,
)
from bacon_bayes.estimate.combine import check_surrogates, combined_core
from bacon_bayes.estimate.core import (
    Target,
    _check_alpha,
    _estimate,
    _prepare,
    floored_variance,
    mean_core,
    residuals,
    satterthwaite_df,
)
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.results import RANGE_END, Estimate


def aee_mean(
    y: np.ndarray,
    f: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | Inclusion | None = None,
    *,
    alpha: float = 0.05,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
    prompts: np.ndarray | None = None,
    label_range: tuple[float, float] | None = None,
) -> Estimate:
    """AEE (prediction-powered) estimate of the mean label of the pool.

    Parameters
    ----------
    y : array, shape (N,)
        Human labels; NaN (or anything, when ``labeled`` is given) for unlabeled items.
    f : array, shape (N,) or (N, k)
        Cross-fitted surrogate for every item; with ``k > 1`` columns, several
        surrogates combined with the variance-minimising weights
        (:mod:`bacon_bayes.estimate.combine`; ``details["power_lambda"]`` is then a
        list). One column is exactly the one-surrogate estimator.
    labeled : bool array, optional
        Which items are labeled; default ``~isnan(y)``.
    pi : float or array, optional
        Inclusion probabilities; default ``n / N`` (uniform sampling).
    alpha : float
        One minus the confidence level.
    power_tuning : bool
        Weight the surrogate by the variance-minimising lambda (PPI++).
    hajek : bool
        Self-normalised (Hajek) correction; ``False`` gives Horvitz-Thompson.
    target : {"pool", "population"}
        ``"pool"`` (finite-population correction) or the population the pool's items
        (with ``prompts``: its prompts) were drawn from (``"superpopulation"``: the same).
    prompts : array, shape (N,), optional
        The prompt of every item. With a design that draws prompts (``pi`` an
        :class:`~bacon_bayes.inclusion.Inclusion`) or the population target, the variance
        is clustered by prompt (:mod:`bacon_bayes.estimate.clustered`).
    label_range : (float, float), optional
        The label's range ``(low, high)``: the interval is clipped to it, and where every
        label sits at one end (the labels show no spread, so the interval would have
        width 0) it is Clopper-Pearson's bound (:func:`at_range_end`). Labels all equal
        otherwise get no interval (NaN), with the reason in ``details``.
    """
    _check_alpha(alpha)
    if prompts is not None and use_clustered(prompts, pi, target):
        e = clustered_mean(
            y, f, prompts, labeled, pi, alpha=alpha, power_tuning=power_tuning, hajek=hajek,
            target=cluster_target(target),
        )  # fmt: skip
        return _labels_all_equal(e, y, labeled, item_pi(pi, target), prompts, label_range)
    pi = item_pi(pi, target)
    idx, y_lab, pi_lab, n_items = _prepare(y, f, labeled, pi, hajek)
    f = np.asarray(f, dtype=float)
    if f.ndim == 2 and f.shape[1] == 1:
        f = f[:, 0]
    kw: dict[str, Any] = {"power_tuning": power_tuning, "hajek": hajek, "target": target}
    lam_out: float | list[float]
    if f.ndim == 1:
        if not np.isfinite(f_sum := float(f.sum())):
            raise ValidationError(
                "predictions contain NaN or infinite values; every item needs one."
            )
        theta, var, lam, n = mean_core(y_lab, f[idx], pi_lab, f_sum, n_items, **kw)
        df, lam_out = n - 1.0, float(lam)
    else:
        check_surrogates(f, n_items, idx.size, power_tuning)
        theta, var, lam, n, df = combined_core(y_lab, f[idx], pi_lab, f.sum(axis=0), n_items, **kw)
        lam_out = [float(v) for v in lam]
    t_df = satterthwaite_df(y_lab, f[idx], pi_lab, lam, float(df), hajek=hajek, target=target)
    v, floor = floored_variance(float(var), y_lab, pi_lab, n_items, target)
    e = _estimate(
        "mean",
        "aee",
        float(theta),
        v,
        int(n),
        n_items,
        alpha,
        df=t_df,
        power_lambda=lam_out,
        target=target,
        **floor,
    )
    return _labels_all_equal(e, y, labeled, pi, prompts, label_range)


def aee_residuals(
    y: np.ndarray,
    f: np.ndarray,
    labeled: np.ndarray,
    pi: np.ndarray | float | None = None,
    *,
    power_tuning: bool = True,
    hajek: bool = True,
    target: Target = "pool",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The item-level AEE mean's residuals on its labels (:func:`aee_mean`'s weights,
    tuned on these labels; :func:`~bacon_bayes.estimate.core.residuals`): the index of
    the labeled items, their residuals and their inclusion probabilities (conditioned on
    the labels' number with ``hajek``). Only the labeled rows of ``f`` (shape (N,) or
    (N, k)) are read. The looks' own correlation of the anytime boundary compares these
    across looks (:func:`bacon_bayes.estimate.anytime.look_cosines`)."""
    idx, y_lab, pi_lab, n_items = _prepare(y, None, labeled, item_pi(pi, target), hajek)
    F = np.asarray(f, dtype=float).reshape(np.shape(y)[0], -1)[idx]
    kw: dict[str, Any] = {"power_tuning": power_tuning, "hajek": hajek, "target": target}
    lam = combined_core(y_lab, F, pi_lab, F.sum(axis=0), n_items, **kw)[2]
    return idx, residuals(y_lab, F, pi_lab, lam, hajek=hajek), pi_lab


def _labels_all_equal(
    e: Estimate,
    y: np.ndarray,
    labeled: np.ndarray | None,
    pi: np.ndarray | float | None,
    prompts: np.ndarray | None,
    label_range: tuple[float, float] | None,
) -> Estimate:
    """``e`` clipped to ``label_range`` and with :func:`at_range_end`'s interval where the
    labels show no spread (their effective number under the design)."""
    y = np.asarray(y, dtype=float)
    lab = ~np.isnan(y) if labeled is None else np.asarray(labeled, dtype=bool)
    n_eff = effective_labels(lab, None if pi is None else np.asarray(pi, dtype=float), prompts)
    if label_range is None:
        return at_range_end(e, y[lab], -np.inf, np.inf, n_eff)
    low, high = float(label_range[0]), float(label_range[1])
    return at_range_end(e.clip(low, high), y[lab], low, high, n_eff)


def classical_mean(
    y: np.ndarray,
    labeled: np.ndarray | None = None,
    pi: np.ndarray | float | Inclusion | None = None,
    *,
    alpha: float = 0.05,
    hajek: bool = True,
    target: Target = "pool",
    prompts: np.ndarray | None = None,
    label_range: tuple[float, float] | None = None,
) -> Estimate:
    """Mean from the human labels alone (weighted by ``1/pi``, with the same variance
    rules; ``label_range`` as in :func:`aee_mean`)."""
    zeros = np.zeros(np.shape(y)[0])
    e = aee_mean(
        y, zeros, labeled, pi, alpha=alpha, power_tuning=False, hajek=hajek, target=target,
        prompts=prompts, label_range=label_range,
    )  # fmt: skip
    details = {k: v for k, v in e.details.items() if k != "power_lambda"}
    return replace(e, method="classical", details=details)


def naive_mean(judge_avg: np.ndarray, *, alpha: float = 0.05) -> Estimate:
    """Mean of the raw judge average over all items, as if the judges were humans.

    Its interval only reflects item-to-item spread: it says nothing about judge bias.
    """
    _check_alpha(alpha)
    a = np.asarray(judge_avg, dtype=float)
    if a.ndim != 1 or a.size == 0:
        raise ValidationError(
            f"judge_avg has shape {a.shape}: pass one judge average per item (a 1-D array "
            "with an entry for every item)."
        )
    if not np.isfinite(a).all():
        k = int(np.flatnonzero(~np.isfinite(a))[0])
        raise ValidationError(
            f"judge_avg is {a[k]} at position {k} ({int((~np.isfinite(a)).sum())} entries "
            "not finite): every item needs its judges' average; leave out the items no "
            "judge scored, or average the judges that did."
        )
    n = a.size
    se = float(a.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return _estimate("mean", "naive", float(a.mean()), se * se, n, n, alpha, n_labeled=0)


def at_range_end(
    e: Estimate, y_lab: np.ndarray, low: float, high: float, n_eff: float | None = None
) -> Estimate:
    """``e`` with an interval where every label sits at one end of the label's range
    ``[low, high]`` (a 0/1 label all 1, ratings all 5): the t interval then has width 0,
    the labels showing no spread, though the pool's mean may lie below the end.

    Markov's inequality gives ``P(Y = high) <= (mu - low) / (high - low)``, so ``n``
    independent labels all at ``high`` have chance at most ``((mu - low) / (high -
    low))^n``; the mean is at least ``high - (high - low)(1 - (alpha / 2)^(1 / n))`` with
    ``1 - alpha / 2`` (Clopper-Pearson's bound for a proportion with every draw a success).
    ``n`` is ``n_eff``, the labels' effective number under the design (default their
    count; :func:`effective_labels`). Labels all equal elsewhere (inside the range, or
    with the range open) bound nothing: the interval is withheld (NaN) with the reason,
    not the t interval's width 0. Returned unchanged otherwise, or when every item is
    labeled."""
    y_lab = np.asarray(y_lab, dtype=float)
    zero_width = not e.ci_high - e.ci_low > 1e-9 * max(1.0, abs(e.estimate))
    if not zero_width or y_lab.size == 0 or e.n_labeled >= e.n_items:
        return e
    top = bool((y_lab == high).all())
    if not (np.isfinite(low) and np.isfinite(high)) or not (top or (y_lab == low).all()):
        if np.ptp(y_lab) > 0:
            return e
        why = (
            f"every label is {y_lab[0]:g}: no spread to estimate a variance from, and no "
            "interval holds without one"
            + (
                ""
                if np.isfinite(low) and np.isfinite(high)
                else "; with the label's range known (--scale LOW:HIGH, scale=(LOW, HIGH) in "
                "Python, or a 0/1 label read as categorical) labels all at its end get a bound"
            )
        )
        return replace(e, ci_low=np.nan, ci_high=np.nan, details={**e.details, RANGE_END: why})
    n = float(y_lab.size if n_eff is None else n_eff)
    reach = (high - low) * (1.0 - (e.alpha / 2.0) ** (1.0 / n))
    lo, hi = (high - reach, high) if top else (low, low + reach)
    note = "every label at the range's end: Clopper-Pearson's bound"
    return replace(e, ci_low=lo, ci_high=hi, details={**e.details, RANGE_END: note})


def effective_labels(
    labeled: np.ndarray, pi: np.ndarray | None, prompts: np.ndarray | None
) -> float:
    """The labels' effective number for :func:`at_range_end`: the labeled prompts when the
    design drew prompts (``prompts``), else Kish's ``(sum w)^2 / sum w^2`` of the labeled
    items' weights ``w = 1 / pi`` (their count under a uniform design)."""
    if prompts is not None:
        return float(np.unique(np.asarray(prompts)[labeled]).size)
    if pi is None:
        return float(np.count_nonzero(labeled))
    w = 1.0 / np.broadcast_to(np.asarray(pi, dtype=float), labeled.shape)[labeled]
    return float(w.sum() ** 2 / (w**2).sum())
