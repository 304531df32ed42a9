"""Paired designs: draw prompts, label the items of a drawn prompt together.

When several systems (groups) answer the same prompts, a comparison of two systems is
most precise on the same prompts: what a prompt makes easy or hard for both cancels in
their difference. Every design here draws *prompts* and records, for every item, the
wave's probability of drawing its prompt (``Design.pi_prompt``) and of drawing the item
(``Design.pi``), so that the estimators can use the probabilities of pairs of items of
one prompt (:class:`bacon_bayes.inclusion.Inclusion`, :func:`design_inclusion`).

* :func:`paired`: a simple random sample of prompts; every unlabeled item of a drawn
  prompt is labeled.
* :func:`paired_subset`: prompts at a higher rate, and in each drawn prompt each item
  (system) with probability ``k / size`` (about ``k`` per prompt), independently: more
  prompts for the same labels, less pairing.
* :func:`paired_adaptive`: a Poisson draw of prompts with probabilities following the
  predicted sd of the prompt's residuals (:func:`prompt_sd`), mixed with a uniform
  share and topped up over earlier waves, as :mod:`bacon_bayes.sampling.adaptive` does
  for items. With fewer than :data:`MIN_PILOT_PROMPTS` labeled prompts to fit the sd
  on, a paired-adaptive wave steps back to :func:`paired` (:func:`adaptive_choice`).
  Its probabilities depend on earlier labels, so a study estimates with the
  wave-by-wave weights at the prompt level
  (:func:`bacon_bayes.inclusion.sequential_inclusion`), not the union of the waves
  (:func:`design_inclusion`, which serves the draw's top-up).

A pool whose prompts have unequal numbers of items is fine; the budget of a paired
design is counted in prompts (:func:`prompts_for_budget`; a paired-adaptive wave's in
expected items, :func:`adaptive_prompts_for_budget`).
"""

from __future__ import annotations

import numpy as np

from bacon_bayes.errors import ValidationError
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.sampling.adaptive import DEFAULT_UNIFORM_SHARE, adaptive_probabilities
from bacon_bayes.sampling.designs import Design, _eligible_mask, _rng

__all__ = [
    "MIN_PILOT_PROMPTS",
    "PAIRED_DESIGNS",
    "adaptive_choice",
    "adaptive_prompts_for_budget",
    "design_inclusion",
    "paired",
    "paired_adaptive",
    "paired_subset",
    "prompt_sd",
    "prompts_for_budget",
]

#: the designs of this module, by the name ``--design`` takes
PAIRED_DESIGNS = ("paired", "paired-subset", "paired-adaptive")
#: fewest labeled prompts a paired-adaptive wave fits its sd on; below, it steps back
#: to ``paired``. On SummEval at 10% (10 prompts: a pilot of 5, then a Poisson draw of
#: about 5) the adaptive wave's simultaneous intervals of the 66 differences covered
#: 0.885 over 200 draws (paired: 0.945); TriviaQA's pilot holds 12 prompts, WMT22's 56.
MIN_PILOT_PROMPTS = 10
#: a paired-adaptive wave's choice when it steps back (:func:`adaptive_choice`)
SMALL_PROMPT_PILOT = "paired (small pilot)"


def adaptive_choice(labeled_prompts: int) -> str:
    """``"adaptive"`` when a paired-adaptive wave may follow the predicted sd fitted on
    ``labeled_prompts`` prompts, else :data:`SMALL_PROMPT_PILOT` (draw ``paired``)."""
    return "adaptive" if labeled_prompts >= MIN_PILOT_PROMPTS else SMALL_PROMPT_PILOT


def _codes(prompts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    prompts = np.asarray(prompts)
    if prompts.ndim != 1:
        raise ValidationError("prompts must give one prompt per item (a 1-D array).")
    if prompts.size and np.any(np.asarray(prompts == None) | (prompts != prompts)):  # noqa: E711
        raise ValidationError("a prompt id is missing; give every item the prompt it answers.")
    return np.unique(prompts.astype(str), return_inverse=True)


def prompts_for_budget(
    prompts: np.ndarray,
    n_items: float,
    eligible: np.ndarray | None = None,
    most: float | None = None,
) -> int:
    """Prompts a paired design draws for about ``n_items`` labels (at least one); with
    ``most``, no more than keep the expected labels within it (rounded down)."""
    names, codes = _codes(prompts)
    mask = _eligible_mask(codes.size, eligible)
    open_items = np.bincount(codes[mask], minlength=names.size)
    per_prompt = float(open_items[open_items > 0].mean()) if (open_items > 0).any() else 1.0
    k = max(1, round(n_items / per_prompt))
    if most is not None and k * per_prompt > most:
        k = max(1, int(most // per_prompt))
    return k


def paired(
    prompts: np.ndarray,
    n_prompts: int,
    *,
    eligible: np.ndarray | None = None,
    seed: int | None = 0,
) -> Design:
    """A simple random sample of ``n_prompts`` prompts among those with an unlabeled item;
    every unlabeled item of a drawn prompt is selected. ``pi = pi_prompt = n_prompts /
    P_open`` for every item (``P_open``: prompts with an unlabeled item)."""
    codes = _codes(prompts)[1]
    mask = _eligible_mask(codes.size, eligible)
    open_prompts = np.unique(codes[mask])
    if float(n_prompts) != int(n_prompts) or not 1 <= n_prompts <= open_prompts.size:
        raise ValidationError(
            f"cannot draw {n_prompts} prompt(s): {open_prompts.size} prompt(s) have unlabeled "
            "items; the budget must give between one prompt and all of them."
        )
    rng = _rng(seed, mask)
    drawn = rng.choice(open_prompts, size=int(n_prompts), replace=False)
    selected = mask & np.isin(codes, drawn)
    rate = np.full(codes.size, int(n_prompts) / open_prompts.size)
    params = {"n_prompts": int(n_prompts), "open_prompts": int(open_prompts.size)}
    return Design(selected, rate.copy(), "paired", seed, params, pi_prompt=rate)


def paired_subset(
    prompts: np.ndarray,
    n_items: float,
    per_prompt: float,
    *,
    eligible: np.ndarray | None = None,
    seed: int | None = 0,
) -> Design:
    """Prompts drawn independently (Poisson) at the rate that gives about ``n_items``
    labels when each drawn prompt labels each of its unlabeled items with probability
    ``min(1, per_prompt / size)`` (``size``: the prompt's unlabeled items)."""
    names, codes = _codes(prompts)
    mask = _eligible_mask(codes.size, eligible)
    size = np.bincount(codes[mask], minlength=names.size).astype(float)
    if not per_prompt >= 1:
        raise ValidationError(f"per_prompt={per_prompt!r}: label at least one item per prompt.")
    within_p = np.minimum(1.0, per_prompt / np.maximum(size, 1.0))
    expected_per_prompt = float(np.sum(size * within_p))
    if not 0 < n_items <= expected_per_prompt:
        raise ValidationError(
            f"cannot draw {n_items:g} items with {per_prompt:g} per prompt: at most "
            f"{expected_per_prompt:g} in expectation; lower the budget or raise per_prompt."
        )
    rate = n_items / expected_per_prompt
    rng = _rng(seed, mask)
    drawn = rng.random(names.size) < rate
    within = within_p[codes]
    selected = mask & drawn[codes] & (rng.random(codes.size) < within)
    b = np.full(codes.size, rate)
    params = {"n": float(n_items), "per_prompt": float(per_prompt), "prompt_rate": rate}
    return Design(selected, b * within, "paired-subset", seed, params, pi_prompt=b)


def prompt_sd(prompts: np.ndarray, var: np.ndarray) -> np.ndarray:
    """Per item, the predicted sd of its prompt's residuals: ``sqrt`` of the mean of the
    prompt's predictive variances. A difference of two systems on the prompt has residual
    variance ``v_g + v_h``; summed over all pairs, ``(G - 1) sum_g v_g``: the allocation
    that minimises the variance of the pairwise differences draws prompts in proportion to
    its square root."""
    names, codes = _codes(prompts)
    var = np.asarray(var, dtype=float)
    if var.shape != codes.shape or not np.all(np.isfinite(var) & (var >= 0)):
        raise ValidationError("predictive variances must be finite, >= 0, one per item.")
    mean_var = np.bincount(codes, weights=var, minlength=names.size) / np.bincount(
        codes, minlength=names.size
    )
    return np.sqrt(mean_var)[codes]


def _per_prompt(
    prompts: np.ndarray, sd: np.ndarray, prior: np.ndarray | None, eligible: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Prompt names, every item's prompt code, the eligible items, and per prompt its sd
    (its first item's) and prior (the mean over its eligible items, else its first item's)."""
    names, codes = _codes(prompts)
    mask = _eligible_mask(codes.size, eligible)
    sd = np.asarray(sd, dtype=float)
    if sd.shape != codes.shape:
        raise ValidationError("give one predicted sd per item.")
    first = np.unique(codes, return_index=True)[1]
    prior_p = None
    if prior is not None:
        prior = np.asarray(prior, dtype=float)
        count = np.bincount(codes[mask], minlength=names.size)
        total = np.bincount(codes[mask], weights=prior[mask], minlength=names.size)
        prior_p = np.where(count > 0, total / np.maximum(count, 1), prior[first])
    return names, codes, mask, sd[first], prior_p


def paired_adaptive(
    prompts: np.ndarray,
    sd: np.ndarray,
    n_prompts: float,
    *,
    prior: np.ndarray | None = None,
    eligible: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
    seed: int | None = 0,
) -> Design:
    """A Poisson draw of prompts with probabilities following ``sd`` (one value per item,
    equal within a prompt: :func:`prompt_sd`), about ``n_prompts`` new prompts; every
    unlabeled item of a drawn prompt is selected.

    ``prior``: per item, the probability that earlier prompt-level waves drew its prompt
    (the new wave tops the union up to the target, as
    :func:`~bacon_bayes.sampling.adaptive.top_up_probabilities` does for items).
    """
    names, codes, mask, sd_p, prior_p = _per_prompt(prompts, sd, prior, eligible)
    b_p = adaptive_probabilities(sd_p, float(n_prompts), prior=prior_p, uniform_share=uniform_share)
    rng = _rng(seed, mask)
    drawn = rng.random(names.size) < b_p
    b = b_p[codes]
    selected = mask & drawn[codes]
    params = {"n_prompts": float(n_prompts), "uniform_share": float(uniform_share)}
    return Design(selected, b.copy(), "paired-adaptive", seed, params, pi_prompt=b)


def adaptive_prompts_for_budget(
    prompts: np.ndarray,
    sd: np.ndarray,
    n_items: float,
    *,
    prior: np.ndarray | None = None,
    eligible: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
) -> float:
    """The ``n_prompts`` of :func:`paired_adaptive` whose wave selects ``n_items`` items in
    expectation (``sum_p b_p x open items of p``; at most every prompt it can draw).

    The probabilities favour prompts of a high predicted sd, which are often those with
    many open items: sized by the mean open items per prompt (:func:`prompts_for_budget`),
    a wave expected 20-33% more items than its budget (TriviaQA)."""
    names, codes, mask, sd_p, prior_p = _per_prompt(prompts, sd, prior, eligible)
    open_p = np.bincount(codes[mask], minlength=names.size).astype(float)
    weight = np.ones(names.size) if prior_p is None else 1.0 - prior_p

    def items(m: float) -> float:
        b_p = adaptive_probabilities(sd_p, m, prior=prior_p, uniform_share=uniform_share)
        return float(np.sum(b_p * open_p))

    live = (sd_p > 0) | (uniform_share > 0)
    low, high = 0.0, float(weight[live].sum())
    if high <= 0 or float(open_p[live].sum()) <= n_items:  # every prompt it can draw
        return high
    for _ in range(60):  # the expected items rise with n_prompts
        mid = 0.5 * (low + high)
        low, high = (mid, high) if items(mid) < n_items else (low, mid)
    return high


def design_inclusion(waves: list[Design]) -> Inclusion:
    """The :class:`~bacon_bayes.inclusion.Inclusion` of the union of waves (in order)."""
    if not waves:
        raise ValidationError("design_inclusion needs at least one wave.")
    parts = [
        Inclusion.items(w.pi) if w.pi_prompt is None else Inclusion.from_prompt(w.pi, w.pi_prompt)
        for w in waves
    ]
    return Inclusion.union(parts)
