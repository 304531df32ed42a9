"""Label sampling designs that report the inclusion probability of every item.

Every design is one *wave*: it draws from the items that are still eligible
(not labeled yet) and returns a :class:`Design` holding

* ``selected``: boolean mask over the whole pool, True for the items this wave
  picks (always a subset of the eligible items);
* ``pi``: for **every** item of the pool, the probability that this wave would
  pick it if it were eligible (its conditional inclusion probability given the
  earlier waves). Items that are already labeled get the value they would have
  had, so that :func:`bacon_bayes.sampling.combine_waves` can compute the
  inclusion probability of the union of waves for every item.

All draws use ``numpy.random.default_rng(seed)``: the same inputs and seed give
the same selection. A later wave drawn with the seed of an earlier one would reuse its
uniforms, so the items left eligible (those whose uniform was above the earlier
probability) would be drawn far less often than ``pi`` says: a wave with items not
eligible draws from a stream keyed by which items are (:func:`wave_seed`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.arguments import number
from bacon_bayes.errors import ValidationError

__all__ = [
    "Design",
    "allocate",
    "bernoulli",
    "bin_feature",
    "poisson",
    "resolve_budget",
    "stratified",
    "uniform",
    "wave_seed",
]


def wave_seed(seed: int, *key: int) -> int:
    """The seed that draws a later wave: a stream of its own for each ``key`` (the wave's
    number, or a digest of which items are labeled already), so that the same ``--seed``
    at every wave never repeats an earlier wave's uniforms. No key: ``seed`` itself."""
    if not key:
        return int(seed)
    state = np.random.SeedSequence([int(k) % 2**64 for k in (seed, *key)]).generate_state(2)
    return int(state[0]) << 32 | int(state[1])


@dataclass(frozen=True)
class Design:
    """One sampling wave: the chosen items and every item's inclusion probability.

    Attributes
    ----------
    selected : ndarray of bool, shape (N,)
        Items drawn by this wave.
    pi : ndarray of float, shape (N,)
        Probability that this wave draws the item given that it is not labeled yet.
    name : str
        Design name (``uniform``, ``bernoulli``, ``stratified``, ``poisson``,
        ``adaptive``, ``two-stage``).
    seed : int or None
        Seed of the random draw.
    params : dict
        Design settings worth recording (budget, allocation, share, ...).
    pi_prompt : ndarray of float, shape (N,), optional
        For designs that draw prompts (:mod:`bacon_bayes.sampling.paired`): the
        probability that this wave draws the item's prompt; ``pi / pi_prompt`` is then
        the item's probability given a drawn prompt. None: items are drawn on their own.
    random_size : bool
        Whether each item is drawn on its own (a Poisson draw: bernoulli, poisson,
        adaptive, two-stage), so the wave's size varies around its expected size
        ``pi[eligible].sum()`` rather than equalling the budget.
    """

    selected: np.ndarray
    pi: np.ndarray
    name: str
    seed: int | None
    params: dict[str, Any] = field(default_factory=dict)
    pi_prompt: np.ndarray | None = None
    random_size: bool = False

    @property
    def indices(self) -> np.ndarray:
        """Positions of the selected items."""
        return np.flatnonzero(self.selected)

    @property
    def n_selected(self) -> int:
        """Number of items drawn."""
        return int(self.selected.sum())

    def __repr__(self) -> str:
        """One line: the design, what it drew, its probabilities' range, its settings
        (not its arrays)."""
        pi = self.pi[self.pi > 0]
        lo, hi = (f"{pi.min():.3g}", f"{pi.max():.3g}") if pi.size else ("none", "none")
        spread = lo if lo == hi else f"{lo}-{hi}"
        prompts = "; draws prompts" if self.pi_prompt is not None else ""
        settings = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return (
            f"Design({self.name!r}: {self.n_selected} of {self.selected.size} items drawn, "
            f"probabilities {spread}{prompts}; seed={self.seed}{settings})"
        )


def resolve_budget(budget: float, n_total: int) -> float:
    """Turn a user budget into an expected number of items.

    A value in (0, 1) is a fraction of the pool (``0.1`` = 10% of ``n_total``);
    a value >= 1 is a count of items.
    """
    budget = float(budget)
    if not np.isfinite(budget) or budget <= 0:
        raise ValidationError(
            f"budget must be a fraction in (0, 1) or a count >= 1, got {budget!r}"
        )
    return budget * n_total if budget < 1 else budget


def _eligible_mask(n_total: int, eligible: np.ndarray | None) -> np.ndarray:
    if eligible is None:
        return np.ones(n_total, dtype=bool)
    mask = np.asarray(eligible, dtype=bool)
    if mask.shape != (n_total,):
        raise ValidationError(f"eligible mask has shape {mask.shape}, expected ({n_total},)")
    return mask


def _rng(seed: int | None, mask: np.ndarray) -> np.random.Generator:
    """The wave's generator: with items not eligible (a later wave) its stream is keyed by
    which items are (:func:`wave_seed`), so a later wave drawn with an earlier wave's seed
    never reuses its uniforms (it drew 2 items of 100 expected). A first wave: ``seed``."""
    if seed is None or mask.all():
        return np.random.default_rng(seed)
    digest = hashlib.blake2b(np.packbits(mask).tobytes(), digest_size=8).digest()
    return np.random.default_rng(wave_seed(seed, int.from_bytes(digest, "little")))


def _check_size(n: float, n_eligible: int, *, integer: bool) -> float:
    if not np.isfinite(number(n, "n", "10", "(the items to draw)")):
        raise ValidationError(f"n={n!r}: the number of items to draw must be finite")
    if integer and (float(n) != int(n)):
        raise ValidationError(f"a fixed-size design needs a whole number of items, got {n}")
    if n < 0:
        raise ValidationError(
            f"cannot draw {n:g} items: the number of items to draw must be at least 0"
        )
    if n > n_eligible:
        raise ValidationError(
            f"cannot draw {n:g} items: only {n_eligible} items are still unlabeled; "
            "lower the budget"
        )
    return float(n)


def uniform(
    n_total: int, n: int, *, eligible: np.ndarray | None = None, seed: int | None = 0
) -> Design:
    """Simple random sample of exactly ``n`` eligible items (without replacement).

    Every item gets ``pi = n / n_eligible``.
    """
    mask = _eligible_mask(n_total, eligible)
    pool = np.flatnonzero(mask)
    n = int(_check_size(n, pool.size, integer=True))
    rng = _rng(seed, mask)
    chosen = rng.choice(pool, size=n, replace=False) if n else np.empty(0, dtype=int)
    selected = np.zeros(n_total, dtype=bool)
    selected[chosen] = True
    rate = n / pool.size if pool.size else 0.0
    return Design(selected, np.full(n_total, rate), "uniform", seed, {"n": n})


def bernoulli(
    n_total: int, rate: float, *, eligible: np.ndarray | None = None, seed: int | None = 0
) -> Design:
    """Each eligible item is drawn independently with probability ``rate``."""
    number(rate, "rate", "0.1", "in [0, 1]")
    if not 0 <= rate <= 1:
        raise ValidationError(f"Bernoulli rate must be in [0, 1], got {rate}")
    design = poisson(np.full(n_total, float(rate)), eligible=eligible, seed=seed)
    return Design(
        design.selected, design.pi, "bernoulli", seed, {"rate": float(rate)}, random_size=True
    )


def poisson(
    pi: np.ndarray,
    *,
    eligible: np.ndarray | None = None,
    seed: int | None = 0,
    name: str = "poisson",
    params: dict[str, Any] | None = None,
) -> Design:
    """Poisson sampling: item i is drawn independently with probability ``pi[i]``."""
    pi = np.asarray(pi, dtype=float)
    if pi.ndim != 1:
        raise ValidationError("inclusion probabilities must be a 1-D array")
    bad = np.flatnonzero(~np.isfinite(pi) | (pi < 0) | (pi > 1))
    if bad.size:
        raise ValidationError(
            f"inclusion probability of item at position {bad[0]} is {pi[bad[0]]!r}; "
            "every probability must be in [0, 1]"
        )
    mask = _eligible_mask(pi.size, eligible)
    rng = _rng(seed, mask)
    draws = rng.random(pi.size)
    selected = mask & (draws < pi)
    return Design(selected, pi.copy(), name, seed, dict(params or {}), random_size=True)


def bin_feature(x: np.ndarray, n_bins: int = 5) -> np.ndarray:
    """Quantile bins of a numeric feature, as integer stratum labels 0..n_bins-1."""
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValidationError("cannot bin a feature with missing or infinite values")
    if n_bins < 1:
        raise ValidationError(f"n_bins must be >= 1, got {n_bins}")
    edges = np.unique(np.quantile(x, np.linspace(0, 1, n_bins + 1)[1:-1]))
    return np.searchsorted(edges, x, side="right")


def allocate(weights: np.ndarray, sizes: np.ndarray, n: int) -> np.ndarray:
    """Split ``n`` draws over strata in proportion to ``weights``.

    Each stratum gets at most its size and, when ``n`` allows it, at least one
    draw (so every item keeps a positive inclusion probability). The exact
    shares ``min(N_h, max(floor_h, c * w_h))`` (with ``c`` solving
    ``sum = n``) are rounded by the largest-remainder rule, ties broken by
    stratum order, so the result is deterministic.
    """
    weights = np.asarray(weights, dtype=float)
    sizes = np.asarray(sizes, dtype=int)
    if n > sizes.sum():
        raise ValidationError(f"cannot draw {n} items from {sizes.sum()} eligible items")
    nonempty = sizes > 0
    low = np.where(nonempty & (n >= nonempty.sum()), 1.0, 0.0)
    w = np.where(nonempty, np.maximum(weights, 0.0), 0.0)
    # A stratum with zero weight still takes draws once all others are full.
    w = w + 1e-12 * sizes * max(w.max(), 1.0)

    def share(c: float) -> np.ndarray:
        return np.minimum(sizes, np.maximum(low, c * w))

    # share(c).sum() is piecewise linear in c: locate the piece that reaches n.
    breaks = np.unique(np.r_[0.0, low[w > 0] / w[w > 0], sizes[w > 0] / w[w > 0]])
    totals = np.array([share(c).sum() for c in breaks])
    k = int(np.searchsorted(totals, n))
    if k == 0:
        exact = share(0.0)
    else:
        c0, c1 = breaks[k - 1], breaks[min(k, breaks.size - 1)]
        mid = 0.5 * (c0 + c1)
        slope = np.sum(w[(low < mid * w) & (mid * w < sizes)])
        exact = share(c0 + (n - totals[k - 1]) / slope if slope > 0 else c1)
    alloc = np.floor(exact + 1e-9).astype(int)
    extra = n - int(alloc.sum())
    if extra > 0:
        remainder = np.where(alloc < sizes, exact - alloc, -np.inf)
        order = np.argsort(-remainder, kind="stable")[:extra]
        alloc[order] += 1
    elif extra < 0:
        remainder = np.where(alloc > low, exact - alloc, np.inf)
        order = np.argsort(remainder, kind="stable")[:-extra]
        alloc[order] -= 1
    return alloc


def stratified(
    strata: np.ndarray,
    n: int,
    *,
    allocation: str = "proportional",
    sd: np.ndarray | None = None,
    proxy: np.ndarray | None = None,
    eligible: np.ndarray | None = None,
    seed: int | None = 0,
) -> Design:
    """Stratified simple random sample of ``n`` eligible items.

    Parameters
    ----------
    strata : array, shape (N,)
        Stratum of every item (a group column, or :func:`bin_feature` of a score).
    n : int
        Total number of items to draw.
    allocation : {"proportional", "neyman"}
        Proportional: ``n_h`` proportional to the eligible count ``N_h``.
        Neyman: ``n_h`` proportional to ``N_h * S_h``, the within-stratum
        standard deviation ``S_h`` taken from ``sd`` or ``proxy``.
    sd : array, shape (N,), optional
        Per-item predictive standard deviations; ``S_h`` is their root mean square.
    proxy : array, shape (N,), optional
        A per-item variable correlated with the outcome (e.g. a judge score);
        ``S_h`` is its standard deviation within the stratum.
    eligible : array of bool, optional
        Items that may be drawn (default: all).
    seed : int or None
        Seed of the draw.

    Every item of stratum h gets ``pi = n_h / N_h`` (``N_h`` counts eligible items).
    """
    strata = np.asarray(strata)
    n_total = strata.size
    mask = _eligible_mask(n_total, eligible)
    n = int(_check_size(n, int(mask.sum()), integer=True))
    levels, codes = _strata_codes(strata)
    sizes = np.bincount(codes[mask], minlength=levels.size)
    if allocation == "proportional":
        weights = sizes.astype(float)
    elif allocation == "neyman":
        weights = sizes * _stratum_spread(codes, levels.size, mask, sd=sd, proxy=proxy)
    else:
        raise ValidationError(f"unknown allocation {allocation!r}; use 'proportional' or 'neyman'")
    alloc = allocate(weights, sizes, n)
    rng = _rng(seed, mask)
    selected = np.zeros(n_total, dtype=bool)
    rates = np.divide(alloc, sizes, out=np.zeros(levels.size), where=sizes > 0)
    for h in range(levels.size):
        if alloc[h]:
            members = np.flatnonzero(mask & (codes == h))
            selected[rng.choice(members, size=alloc[h], replace=False)] = True
    params = {
        "n": n,
        "allocation": allocation,
        "strata": {str(level): int(a) for level, a in zip(levels, alloc, strict=True)},
    }
    return Design(selected, rates[codes], "stratified", seed, params)


def _strata_codes(strata: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct strata (sorted) and each item's index among them; a missing stratum
    or names of mixed kinds (numbers beside text) refused with the fix, not numpy's
    TypeError."""
    if strata.ndim != 1:
        raise ValidationError(f"strata must be 1-D (one per item); got shape {strata.shape}.")
    missing = np.flatnonzero(pd.isna(strata))
    if missing.size:
        raise ValidationError(
            f"stratum of item at position {missing[0]} is missing ({missing.size} item(s) "
            "without one); give every item a stratum (e.g. 'unknown')."
        )
    try:
        levels, codes = np.unique(strata, return_inverse=True)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in strata.tolist()})
        raise ValidationError(
            f"strata mix kinds of names ({', '.join(kinds)}), which do not sort together; "
            "give them one kind, e.g. strata.astype(str)."
        ) from None
    return levels, codes.ravel()


def _stratum_spread(
    codes: np.ndarray,
    n_strata: int,
    mask: np.ndarray,
    *,
    sd: np.ndarray | None,
    proxy: np.ndarray | None,
) -> np.ndarray:
    if (sd is None) == (proxy is None):
        raise ValidationError(
            "Neyman allocation needs exactly one of sd= (per-item predictive sd) or "
            "proxy= (a per-item variable whose spread stands in for the outcome's)"
        )
    values = np.asarray(sd if sd is not None else proxy, dtype=float)
    if values.shape != codes.shape or not np.all(np.isfinite(values)):
        raise ValidationError("Neyman allocation values must be finite, one per item")
    if sd is not None and np.any(values < 0):
        raise ValidationError("predictive standard deviations cannot be negative")
    spread = np.zeros(n_strata)
    for h in range(n_strata):
        vals = values[mask & (codes == h)]
        if vals.size:
            spread[h] = np.sqrt(np.mean(vals**2)) if sd is not None else vals.std()
    return spread
