"""How every item came to be labeled, when items share prompts: the inclusion
probabilities of single items and of pairs of items of the same prompt.

A label wave ``w`` draws a prompt with probability ``b_w`` (the same for every item of
the prompt) and, given its prompt, an item with probability ``a_w`` independently of the
prompt's other items. Item-level designs (uniform, stratified, adaptive) have
``b_w = 1`` and ``a_w = pi``; the paired design (every item of a drawn prompt) has
``a_w = 1`` and ``b_w`` the prompt's probability; a paired design that labels a subset of
a prompt's groups has both below one. Waves are independent given the earlier ones
(each draws from the items still unlabeled, as :func:`bacon_bayes.sampling.combine_waves`
assumes), so an item is labeled with probability ``pi_i = 1 - prod_w (1 - b_w a_wi)``
and two items ``i, j`` of one prompt together with

    pi_ij = 1 - q_i - q_j + prod_w (1 - b_w (a_wi + a_wj - a_wi a_wj)),   q_i = 1 - pi_i.

These give the Horvitz-Thompson variance of any linear estimator under any mix of
item-level and prompt-level waves (:mod:`bacon_bayes.estimate.clustered`).

When a wave's probabilities were fitted on earlier waves' labels (adaptive,
paired-adaptive), the union is not an inclusion probability: :func:`sequential_inclusion`
gives the same waves with the wave-by-wave (martingale) weights of
:func:`sequential_propensity` and their variance, clustered by prompt within a wave.

A pool read without its design is taken as labeled item by item at random from every
item. Three checks say when its labels plainly were not: whole groups never labeled where
such draws would have reached them (:func:`groups_never_drawn`), the items of a
prompt labeled together (:func:`labeled_by_prompt`), and labels picked by the judges'
scores (:func:`labeled_by_score`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from bacon_bayes.errors import ValidationError
from bacon_bayes.order import names_text, natural_codes


@dataclass(frozen=True)
class Inclusion:
    """Per wave, every item's prompt probability ``b`` and within-prompt probability ``a``.

    Attributes
    ----------
    prompt, within : ndarray, shape (W, N)
        ``b_w`` of the item's prompt and ``a_w`` of the item, for each of ``W`` waves.
    drawn, shares : ndarray, optional
        The wave-by-wave estimator (:func:`sequential_inclusion`): the wave (0..W-1) that
        drew each labeled item (-1: unlabeled) and each wave's planned share of the
        labels. None: the union of the waves (independent of earlier labels).
    selected : ndarray, optional
        The wave (0..W-1) that selected each item (-1: none), recorded where waves of
        items and waves of prompts mix: the pool mean then weighs its waves by their
        precision (:meth:`precision_weighted`). It changes no other estimate.
    """

    prompt: np.ndarray
    within: np.ndarray
    drawn: np.ndarray | None = None
    shares: np.ndarray | None = None
    selected: np.ndarray | None = None

    def __post_init__(self) -> None:
        b = np.atleast_2d(np.asarray(self.prompt, dtype=float))
        a = np.atleast_2d(np.asarray(self.within, dtype=float))
        if b.shape != a.shape:
            raise ValidationError("prompt and within-prompt probabilities need the same shape.")
        for name, v in (("prompt", b), ("within-prompt", a)):
            finite = v[np.isfinite(v)]
            if ((finite < 0) | (finite > 1)).any():
                raise ValidationError(f"a {name} inclusion probability lies outside [0, 1].")
        object.__setattr__(self, "prompt", b)
        object.__setattr__(self, "within", a)
        if (self.drawn is None) != (self.shares is None):
            raise ValidationError("give both the drawing waves and the waves' shares, or neither.")
        if self.drawn is not None:
            k = np.asarray(self.drawn, dtype=np.intp)
            lam = np.asarray(self.shares, dtype=float)
            if k.shape != (b.shape[1],) or lam.shape != (b.shape[0],) or (k >= lam.size).any():
                raise ValidationError("give one drawing wave per item and one share per wave.")
            if not (np.isfinite(lam).all() and (lam >= 0).all() and lam.sum() > 0):
                raise ValidationError("the waves' shares must be finite, >= 0, not all 0.")
            object.__setattr__(self, "drawn", k)
            object.__setattr__(self, "shares", lam / lam.sum())
        if self.selected is not None:
            sel = np.asarray(self.selected, dtype=np.intp)
            if sel.shape != (b.shape[1],) or (sel >= b.shape[0]).any():
                raise ValidationError("give one selecting wave per item (-1: none).")
            object.__setattr__(self, "selected", sel)

    @classmethod
    def items(cls, pi: np.ndarray) -> Inclusion:
        """One item-level wave (items drawn independently with ``pi``)."""
        pi = np.asarray(pi, dtype=float)
        return cls(np.ones((1, pi.size)), pi[None, :])

    @classmethod
    def from_prompt(cls, pi: np.ndarray, pi_prompt: np.ndarray) -> Inclusion:
        """One wave with item probabilities ``pi`` and prompt probabilities ``pi_prompt``
        (``pi <= pi_prompt``; ``pi == pi_prompt`` labels every item of a drawn prompt)."""
        pi = np.asarray(pi, dtype=float)
        b = np.asarray(pi_prompt, dtype=float)
        if b.shape != pi.shape:
            raise ValidationError("give one prompt probability per item.")
        both = np.isfinite(pi) & np.isfinite(b)
        bad = both & (pi > b * (1 + 1e-9))
        if bad.any():
            k = int(np.argmax(bad))
            raise ValidationError(
                f"item at position {k} has inclusion probability {pi[k]!r} but its prompt "
                f"{b[k]!r}; an item cannot be drawn more often than its prompt."
            )
        # a prompt the wave never draws (b = 0): its items' within-prompt probability is moot
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(
                both, np.where(b > 0, np.minimum(pi / np.where(b > 0, b, 1.0), 1.0), 1.0), np.nan
            )
        return cls(np.where(np.isfinite(b), b, np.nan)[None, :], a[None, :])

    @staticmethod
    def union(waves: list[Inclusion]) -> Inclusion:
        """The waves of several records, in order."""
        if not waves:
            raise ValidationError("union needs at least one wave.")
        return Inclusion(np.vstack([w.prompt for w in waves]), np.vstack([w.within for w in waves]))

    @property
    def union_pi(self) -> np.ndarray:
        """Inclusion probability of every item in the union of waves."""
        return 1.0 - np.prod(1.0 - self.prompt * self.within, axis=0)

    @property
    def pi(self) -> np.ndarray:
        """The probabilities the estimators weight by: the union of waves, or for the
        wave-by-wave estimator its effective ones (:func:`sequential_propensity`) for the
        labeled items."""
        union = self.union_pi
        if self.drawn is None or self.shares is None:
            return union
        out = union.copy()
        lab = self.drawn >= 0
        out[lab] = 1.0 / _wave_weight(self.drawn[lab], self._drawing_pi(lab), self.shares)
        return out

    def _drawing_pi(self, where: np.ndarray) -> np.ndarray:
        """Each item's probability (``b a``) in the wave that drew it."""
        assert self.drawn is not None
        cols = np.flatnonzero(where) if where.dtype == bool else where
        k = self.drawn[cols]
        return self.prompt[k, cols] * self.within[k, cols]

    def ht_terms(
        self, idx: np.ndarray, i: np.ndarray, j: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Coefficients of the variance of ``sum_S u_k / pi_k`` over the labeled items
        ``idx`` (``sum_k d_k u_k^2 + sum_{(i, j)} c_ij u_i u_j``, pairs ``(idx[i], idx[j])``
        of one prompt): Horvitz-Thompson's ``d = (1 - pi) / pi^2`` and ``c = (pi_ij - pi_i
        pi_j) / (pi_ij pi_i pi_j)`` for the union; for the wave-by-wave estimator the sum
        over waves of ``lam_w^2`` times wave ``w``'s own terms on the items it drew (its
        martingale increments are uncorrelated): ``d = lam^2 (1 - p) / p^2`` with ``p =
        b a``, and ``c = lam^2 (1 - b) / (b^2 a_i a_j)`` for two items one wave drew from
        one prompt (the prompt's draw; items independent within it), else 0."""
        if self.drawn is None or self.shares is None:
            pi = self.pi[idx]
            if not i.size:
                return (1.0 - pi) / pi**2, np.zeros(0)
            pij = self.joint(idx[i], idx[j])
            return (1.0 - pi) / pi**2, (pij - pi[i] * pi[j]) / (pij * pi[i] * pi[j])
        k = self.drawn[idx]
        if (k < 0).any():
            raise ValidationError("every labeled item needs the wave that drew it.")
        lam2 = self.shares[k] ** 2
        p = self._drawing_pi(idx)
        diag = lam2 * (1.0 - p) / p**2
        if not i.size:
            return diag, np.zeros(0)
        b = self.prompt[k[i], idx[i]]
        a_i, a_j = self.within[k[i], idx[i]], self.within[k[j], idx[j]]
        pair = np.where(k[i] == k[j], lam2[i] * (1.0 - b) / (b**2 * a_i * a_j), 0.0)
        return diag, pair

    @property
    def mixed(self) -> bool:
        """Whether some waves draw items (``b = 1``) and some draw prompts (``b < 1``)."""
        b = np.where(np.isfinite(self.prompt), self.prompt, 1.0)
        return bool((b >= 1.0).all(axis=1).any() and (b < 1.0).any())

    def precision_weighted(self, labeled: np.ndarray, codes: np.ndarray, rho: float) -> Inclusion:
        """The wave-by-wave estimator of the pool mean with each wave's share its
        predicted precision, where waves of items and of prompts mix (``selected``).

        The union weighs every label alike, so a wave of whole prompts, whose labels
        share their prompt's error, counted as many independent labels and widened the
        pool mean's interval (WMT22: 0.239 to 0.314 after 773 paired labels more). Each
        wave's total ``T_w`` (:func:`sequential_propensity`) has, for residuals of common
        variance ``s^2`` and correlation ``rho`` between two items of one prompt, the
        variance ``s^2 (sum_{U_w} (1 - p) / p + rho sum_k (1 - b_k) / b_k m_k (m_k - 1))``
        over the items ``U_w`` no earlier wave selected (``m_k`` of prompt ``k``): a
        function of the design and of ``rho`` only, not of the wave's own residuals. The
        shares ``1 / V_w`` (normalised) minimise the variance of ``sum_w lam_w T_w``; its
        increments stay uncorrelated, as for the planned shares. With ``rho = 0`` and equal
        probabilities within each wave they give every label the union's weight.
        ``labeled``: the items with a label; ``codes``: every item's prompt code."""
        var = self.wave_variances(codes, rho)
        sel = self.selected
        assert sel is not None
        used = np.unique(sel[labeled & (sel >= 0)])
        shares = np.zeros(var.size)
        shares[used] = 1.0 / np.maximum(var[used], 1e-12)
        drawn = np.where(labeled, sel, -1)
        return Inclusion(self.prompt, self.within, drawn, shares, self.selected)

    def wave_variances(self, codes: np.ndarray, rho: float) -> np.ndarray:
        """Each wave's predicted variance of its total over ``s^2`` (the residuals' common
        variance), :meth:`precision_weighted`'s ``V_w``."""
        if self.selected is None:
            raise ValidationError("precision weights need the wave that selected each item.")
        sel, waves = self.selected, self.prompt.shape[0]
        var = np.zeros(waves)
        for w in range(waves):
            b, a = self.prompt[w], self.within[w]
            p = b * a
            free = np.isfinite(p) & (p > 0) & ((sel < 0) | (sel >= w))
            var[w] = float(np.sum((1.0 - p[free]) / p[free]))
            by_prompt = free & (b < 1.0)
            if by_prompt.any() and rho > 0:
                m = np.bincount(codes[by_prompt]).astype(float)
                bk = np.zeros(m.size)
                bk[codes[by_prompt]] = b[by_prompt]
                k = m > 1
                var[w] += rho * float(np.sum((1.0 - bk[k]) / bk[k] * m[k] * (m[k] - 1.0)))
        return var

    @property
    def clustered(self) -> bool:
        """Whether some wave draws prompts (``b < 1``): items of a prompt are then labeled
        together, and their estimates are correlated through the draw."""
        b = self.prompt[np.isfinite(self.prompt)]
        return bool((b < 1.0).any())

    def joint(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """``pi_ij`` of item pairs ``(i[k], j[k])`` of the same prompt (``i != j``)."""
        b, a = self.prompt, self.within
        qi = np.prod(1.0 - b[:, i] * a[:, i], axis=0)
        qj = np.prod(1.0 - b[:, j] * a[:, j], axis=0)
        ai, aj = a[:, i], a[:, j]
        neither = np.prod(1.0 - b[:, i] * (ai + aj - ai * aj), axis=0)
        return 1.0 - qi - qj + neither


def sequential_propensity(
    waves: np.ndarray,
    wave_pi: np.ndarray,
    union: np.ndarray,
    planned: np.ndarray | None = None,
) -> np.ndarray:
    """Effective inclusion probabilities of the wave-by-wave (martingale) estimator, for
    waves whose probabilities were fitted on earlier waves' labels (adaptive, two-stage).

    The union ``1 - prod_w (1 - p_w)`` is the inclusion probability only when no wave's
    probabilities depend on earlier labels. When they do, later waves' ``p_w(i)`` of an
    item labeled earlier depend on its own label (through the model fitted on it), and
    Horvitz-Thompson / Hajek weights from the union are biased (measured: a quarter of a
    standard error on binary labels; VALIDATION.md, issue 41). Each wave ``w`` instead gives
    an estimate of the pool total conditionally unbiased given the earlier waves: the
    labels of earlier waves, the surrogate on the still-unlabeled items, and the wave's
    Horvitz-Thompson correction with the probabilities it was drawn with (``U_w`` the items
    no earlier wave drew, ``S_w`` those wave ``w`` drew),

        T_w = sum_{labeled before w} y_i + sum_{U_w} f_i + sum_{S_w} (y_i - f_i) / p_w(i)

    ``sum_w lam_w (T_w - T)`` is a martingale when ``lam_w``, the wave's share of the labels,
    is fixed before the wave is drawn (its expected new labels, ``planned``), and
    ``sum_w lam_w T_w`` is the AEE with item weights ``1/pi~_i = lam_k / p_k(i) + sum_{w > k}
    lam_w`` (``k`` the wave that drew ``i``): what this returns, for the labeled items
    (capped at 1: a wave share smaller than its probability; unlabeled items keep
    ``union``). Only the drawing wave's probability of each labeled item enters.

    Parameters
    ----------
    waves : array of int, shape (N,)
        The wave code (0..K-1, in order) that drew each labeled item; -1 unlabeled.
    wave_pi : array, shape (N,)
        Each labeled item's probability in the wave that drew it (conditional on the
        earlier waves).
    union : array, shape (N,)
        The union-of-waves probabilities (kept for unlabeled items).
    planned : array, shape (K,), optional
        Each wave's expected new labels, ``sum_{i in U_w} p_w(i)`` (known before its draw).
        Default: the labels each wave brought, exact for fixed-size waves; for Poisson
        waves their random counts make the shares depend on the draw, a bias of order
        ``1 / n`` (measured on a simulated adaptive pool: a tenth of a standard error).
    """
    waves = np.asarray(waves)
    lab = waves >= 0
    out = np.asarray(union, dtype=float).copy()
    if not lab.any():
        return out
    p = np.asarray(wave_pi, dtype=float)[lab]
    k = waves[lab].astype(np.intp)
    counts = np.bincount(k, minlength=int(k.max()) + 1).astype(float)
    if planned is not None:
        counts = np.asarray(planned, dtype=float)[: counts.size]
    out[lab] = 1.0 / _wave_weight(k, p, counts / counts.sum())
    return out


def _wave_weight(k: np.ndarray, p: np.ndarray, share: np.ndarray) -> np.ndarray:
    """``lam_k / p + sum_{w > k} lam_w`` of items drawn in waves ``k`` with probability
    ``p`` (at least 1: a wave share smaller than its probability)."""
    if not ((p > 0) & (p <= 1)).all():
        raise ValidationError("a labeled item's probability in its wave must lie in (0, 1].")
    later = share[::-1].cumsum()[::-1] - share  # sum of the later waves' shares
    return np.maximum(share[k] / p + later[k], 1.0)


def sequential_inclusion(
    inclusion: Inclusion, waves: np.ndarray, planned: np.ndarray | None = None
) -> Inclusion:
    """The waves of ``inclusion`` with the wave-by-wave (martingale) estimator of
    :func:`sequential_propensity`, for waves that draw prompts (paired-adaptive) or mix
    prompt-level and item-level waves whose probabilities were fitted on earlier labels.

    The item is the unit of the weights: an item drawn in wave ``k`` with probability
    ``p_k(i) = b_k a_k(i)`` (its prompt's probability given the earlier waves, times the
    within-prompt probability where the wave labels a subset of the prompt's items) weighs
    ``lam_k / p_k(i) + sum_{w > k} lam_w``. The variance (:meth:`Inclusion.ht_terms`) sums
    each wave's own Horvitz-Thompson variance, clustered by prompt, times ``lam_w^2``.

    Parameters
    ----------
    inclusion : Inclusion
        The waves' prompt and within-prompt probabilities (each conditional on the
        earlier waves).
    waves : array of int, shape (N,)
        The wave (0..W-1) that drew each labeled item; -1 unlabeled.
    planned : array, shape (W,), optional
        Each wave's expected new labels, fixed before its draw (default: the labels each
        wave brought; :func:`sequential_propensity`).
    """
    waves = np.asarray(waves, dtype=np.intp)
    n_waves = inclusion.prompt.shape[0]
    if planned is None:
        planned = np.bincount(waves[waves >= 0], minlength=n_waves).astype(float)
    planned = np.asarray(planned, dtype=float)
    out = Inclusion(inclusion.prompt, inclusion.within, waves, planned, inclusion.selected)
    _ = out.pi  # refuses a labeled item whose drawing wave gave it no probability
    return out


def paired_excess(pi: np.ndarray, p0: float) -> np.ndarray:
    """``pi_ij / pi^2 - 1`` of two items of one prompt when a paired wave brings an
    item-level pilot's share ``p0`` of the labels to ``pi`` (``bacon plan``'s paired rows)."""
    q = 1.0 - pi
    return (1.0 - 2.0 * q + (1.0 - p0) * q) / (pi * pi) - 1.0


def planned_labels(selected: np.ndarray, wave_pi: np.ndarray) -> np.ndarray:
    """Each wave's expected new labels, known before its draw: the sum of its
    probabilities over the items no earlier wave selected (the ``planned`` shares of
    :func:`sequential_propensity` and :func:`sequential_inclusion`).

    Parameters
    ----------
    selected : array of int, shape (N,)
        The wave (0..K-1) that selected each item; -1 never selected.
    wave_pi : array, shape (N, K)
        Every item's probability in every wave (NaN counts as 0).
    """
    wave_pi = np.asarray(wave_pi, dtype=float)
    n_waves = wave_pi.shape[1]
    chosen = np.where(np.asarray(selected) >= 0, selected, n_waves)
    free = chosen[:, None] >= np.arange(n_waves)
    return np.where(free, np.nan_to_num(wave_pi), 0.0).sum(axis=0)


#: Below this chance a random draw of the labels leaves as many groups without any: the
#: labels were not drawn from every item (:func:`groups_never_drawn`).
NEVER_DRAWN = 1e-3
NOT_DRAWN = "the labels were not drawn from those items"  # groups_never_drawn's finding


def empty_groups_chance(sizes: np.ndarray, n: int, k: int) -> float:
    """An upper bound on the chance that ``n`` labels drawn without replacement from the
    items leave ``k`` or more of the groups (any of them, of ``sizes`` items each) without
    a label.

    With ``K`` the number of empty groups and ``p_g = C(N - s_g, n) / C(N, n)`` the chance
    that group ``g`` gets no label, for every ``j <= k`` Markov's inequality on ``C(K, j)``
    gives ``P(K >= k) <= E[C(K, j)] / C(k, j)``; ``E[C(K, j)]``, the sum over sets of ``j``
    groups of the chance that all are empty, is at most the sum of products of their
    ``p_g`` (drawn without replacement, one group empty makes another less likely to be),
    which is at most ``lam^j / j!``, ``lam = sum_g p_g`` (the expected empty groups). The
    bound is the least over ``j`` of ``lam^j (k - j)! / k!``.

    Parameters
    ----------
    sizes : array of int
        Every group's number of items.
    n : int
        The labels drawn.
    k : int
        The empty groups seen (at least 1).

    Returns
    -------
    float
        The bound, at most 1.
    """
    log_lam = _log_expected_empty(sizes, n)
    j = np.arange(1, k + 1)
    log_bound = j * log_lam + special.gammaln(k - j + 1) - special.gammaln(k + 1)
    return float(min(1.0, np.exp(log_bound.min())))


def _log_expected_empty(sizes: np.ndarray, n: int) -> float:
    """The log of the groups ``n`` labels drawn without replacement leave empty, expected:
    ``sum_g C(N - s_g, n) / C(N, n)``."""
    sizes = np.asarray(sizes, dtype=float)
    big = float(sizes.sum())
    rest = big - sizes
    log_p = np.full(sizes.size, -np.inf)
    ok = rest >= n
    log_p[ok] = (
        special.gammaln(rest[ok] + 1) - special.gammaln(rest[ok] - n + 1)
        - special.gammaln(big + 1) + special.gammaln(big - n + 1)
    )  # fmt: skip
    return float(special.logsumexp(log_p)) if ok.any() else -np.inf


#: Draws of :func:`empty_groups_probability`'s Monte Carlo (seeded: the same every run).
EMPTY_DRAWS = 20_000
#: The most groups x draws it runs (about 0.4 s); past it, the bound alone.
EMPTY_WORK = 2_000_000


def empty_groups_probability(sizes: np.ndarray, n: int, k: int) -> float:
    """The chance that ``n`` labels drawn without replacement from the items leave ``k``
    or more of the groups without a label, at most: :func:`empty_groups_chance`'s bound
    where it is under :data:`NEVER_DRAWN` or where ``k`` is no more than the groups
    expected empty, else the 95% upper end (Clopper-Pearson) of a seeded Monte Carlo of
    the draw (the groups' counts, hypergeometric one group after another), where its
    :data:`EMPTY_DRAWS` draws cost at most :data:`EMPTY_WORK`. The bound alone is loose
    by orders of magnitude at a few labels: 27 of 1,200 items leaving 6 of 12 groups of
    100 empty has chance 1e-5 and a bound of 0.0024. ``sizes``, ``n``, ``k``: as
    :func:`empty_groups_chance` takes them."""
    bound = empty_groups_chance(sizes, n, k)
    sizes = np.asarray(sizes, dtype=np.int64)
    draws = min(EMPTY_DRAWS, EMPTY_WORK // max(sizes.size, 1))
    if bound < NEVER_DRAWN or k <= np.exp(_log_expected_empty(sizes, n)):
        return bound
    if draws * NEVER_DRAWN < 3:  # too few draws to tell a chance under NEVER_DRAWN
        return bound
    rng = np.random.default_rng(0)
    left = np.full(draws, n, dtype=np.int64)
    empty = np.zeros(draws, dtype=np.int64)
    rest = int(sizes.sum())
    for size in sizes:
        rest -= int(size)
        got = left.copy() if rest == 0 else rng.hypergeometric(int(size), rest, left)
        empty += got == 0
        left -= got
    hits = int((empty >= k).sum())
    upper = 1.0 if hits == draws else float(stats.beta.ppf(0.95, hits + 1, draws - hits))
    return min(bound, upper)


def groups_never_drawn(
    y: np.ndarray,
    codes: np.ndarray,
    names: np.ndarray,
    column: str | None,
    leave_out: Callable[[str, list[str]], str] | None = None,
) -> str | None:
    """A note when whole groups have no label where labels drawn at random from every item
    (what an AEE without ``propensity`` assumes) would almost surely have reached them: the
    chance that ``n`` labels drawn without replacement from the ``N`` items leave as many
    groups (any groups, not those seen empty) without a label is under
    :data:`NEVER_DRAWN` (:func:`empty_groups_probability`; WMT22 as shipped: 6 of 20 systems,
    11,250 of 37,500 items, under 15,652 labels). ``codes``: each item's group among
    ``names``; ``leave_out``: the shell line that writes the table without the groups
    named (column, names), where a file can be read (doctor's), else a pandas line."""
    labeled = ~np.isnan(y)
    n, big = int(labeled.sum()), y.size
    empty = np.bincount(codes, weights=labeled, minlength=names.size) == 0
    if n == 0 or not empty.any():
        return None
    m = int(np.isin(codes, np.flatnonzero(empty)).sum())
    k = int(empty.sum())
    chance = empty_groups_probability(np.bincount(codes, minlength=names.size), n, k)
    if chance >= NEVER_DRAWN:
        return None
    unlabeled = natural_codes(np.asarray(names[empty]))[0]  # in the tables' order
    shown = names_text(unlabeled[:5]) + (f" and {k - 5} more" if k > 5 else "")
    what = f"{column!r} groups" if column else "groups"
    return (
        f"{k} of {names.size} {what} ({m} of {big} items) have no label ({shown}), where "
        f"{n} labels drawn at random from every item would leave {k} or more groups without "
        f"one with chance {_at_most(chance)}: {NOT_DRAWN}. "
        "The pool mean and the comparisons assume they were, so over those groups they rest "
        "on the judges alone; estimate over the labeled groups (leave the others' rows out"
        f"{_leave_out(column, unlabeled, leave_out)}), or give the design's inclusion "
        "probabilities (--propensity)"
    )


def _leave_out(
    column: str | None, names: list[str], line: Callable[[str, list[str]], str] | None
) -> str:
    """The pandas line that leaves the groups ``names`` out (up to 8), or the shell line
    ``line`` makes; "" with no column to name or a list too long for a line."""
    if not column or len(names) > 8:
        return ""
    if line is not None:
        return f": {line(column, [str(n) for n in names])}"
    return f"; in pandas: df = df[~df[{column!r}].astype(str).isin({[str(n) for n in names]!r})]"


def _at_most(chance: float) -> str:
    """ "at most 3e-05"; "under 1e-300" for a chance that underflows to 0 (WMT22 as shipped
    printed "at most 0")."""
    return f"at most {chance:.1g}" if chance >= 1e-300 else "under 1e-300"


#: An intra-prompt correlation of being labeled above this, with a dispersion test under
#: NEVER_DRAWN, says the labels were drawn by prompt (:func:`labeled_by_prompt`). Draws
#: of single items, at any rates, are no more spread than binomial (a Poisson binomial
#: is less), so the test alone rules them out; the floor keeps a faint clustering (whose
#: variance cost is small) unsaid. WMT22 without its group column (19 systems a segment,
#: 14 of them labeled on 1,118 segments and none on the rest) reads 0.44.
LABELED_TOGETHER = 0.2
#: how :func:`labeled_by_prompt`'s note begins (a population target's intervals, clustered
#: by prompt, need it not)
BY_PROMPT = "the labels look drawn by prompt"


def labeled_by_prompt(y: np.ndarray, prompts: np.ndarray, codes: np.ndarray | None) -> str | None:
    """A note when the labels were evidently drawn by prompt (the items of a prompt
    labeled together) while the pool records no prompt-level design: its intervals then
    take the items as drawn one by one, and can be far too narrow (WMT22 as shipped: every
    labeled system on the same 1,118 of 1,875 segments; the pool mean's se 0.064 item by
    item, 0.147 clustered by segment: VALIDATION.md). Over the groups with labels, the
    prompts' labeled counts are tested for more spread than independent draws give
    (Pearson's dispersion, chi-square on P - 1 df), and the intra-prompt correlation of
    being labeled is estimated from it. ``codes``: each item's group (None: no groups).
    Only for a pool read without its design (no inclusion probabilities): one whose design
    is recorded (a study's) is estimated by it."""
    labeled = ~np.isnan(y)
    if codes is not None:  # a group never labeled is no evidence on how labels were drawn
        keep = (np.bincount(codes, weights=labeled) > 0)[codes]
        labeled, prompts = labeled[keep], prompts[keep]
    n, big = int(labeled.sum()), labeled.size
    if n < 2 or n == big:
        return None
    rate = n / big  # in (0, 1): some labeled, some not
    pcodes = pd.factorize(prompts)[0]
    size = np.bincount(pcodes).astype(float)
    count = np.bincount(pcodes, weights=labeled)
    many = size >= 2
    if many.sum() < 10:
        return None
    pearson = float((((count - size * rate) ** 2) / (size * rate * (1.0 - rate)))[many].sum())
    df = int(many.sum()) - 1
    mean_size = float(size[many].mean())
    icc = (pearson / df - 1.0) / max(mean_size - 1.0, 1e-9)
    if icc < LABELED_TOGETHER or stats.chi2.sf(pearson, df) >= NEVER_DRAWN:
        return None
    whole = int(((count == size) & many).sum())
    return (
        f"{BY_PROMPT}: the items of a prompt are labeled together "
        f"(correlation {min(icc, 1.0):.2f} over {df + 1} prompts; {whole} wholly labeled), "
        "but the pool records no prompt-level design, so its intervals take the items as "
        "drawn one by one and can be far too narrow. Give the design's probabilities "
        "(--propensity with --prompt-propensity; propensity= with prompt_propensity= in "
        "Python), or use --target population (Calibrator(target='population')), whose "
        "intervals are clustered by prompt"
    )


def added_propensity(
    pi: np.ndarray | None,
    inclusion: Inclusion | None,
    pos: np.ndarray,
    given: Sequence[float] | None,
) -> np.ndarray | None:
    """The inclusion probabilities of a pool given labels at ``pos`` (``with_labels``):
    ``given`` for those items; a pool that records none takes none, one that does needs
    them for every item it did not have labeled."""
    fresh = pos[np.isnan(pi[pos])] if pi is not None else pos
    if inclusion is not None and fresh.size:
        raise ValidationError(
            "this pool's labels were drawn by prompt (prompt_propensity); new labels need "
            "their prompts' probabilities: rebuild it with EvalPool.from_frame(..., "
            "propensity=COLUMN, prompt_propensity=COLUMN)."
        )
    if pi is None:
        if given is not None:
            raise ValidationError(
                "this pool has no inclusion probabilities (no propensity column), so "
                "with_labels takes none: drop propensity=, or rebuild the pool with "
                "EvalPool.from_frame(..., propensity=COLUMN)."
            )
        return None
    out = pi.copy()
    if given is not None:
        if np.ndim(given) != 1 or len(given) != pos.size:
            raise ValidationError(
                f"with_labels got {pos.size} id(s) and propensity of length {np.size(given)}; "
                "give one inclusion probability per id."
            )
        out[pos] = np.asarray(given, dtype=float)
    elif fresh.size:
        raise ValidationError(
            f"{fresh.size} item(s) labeled here have no inclusion probability, which this "
            "pool records for every labeled item (propensity column); give them: "
            "with_labels(ids, values, propensity=[...]), the probability the design gave "
            "each item."
        )
    return out


#: A labeled set whose judges' scores sit at least this many sds from the unlabeled
#: items', with a rank test under :data:`NEVER_DRAWN`, says the labels were picked by
#: score (:func:`labeled_by_score`); random draws of 30 labels reach 0.6 sd once in a
#: thousand, of 300 labels 0.2 sd.
PICKED_SHIFT = 0.25
#: At most this many unlabeled items are compared with the labeled (a seeded sample).
SCORE_SAMPLE = 20_000


def labeled_by_score(
    y: np.ndarray, scores: np.ndarray, codes: np.ndarray | None = None
) -> str | None:
    """A note when the labeled items' judge scores plainly differ from the unlabeled
    items' (within each group, with ``codes``): labels picked by score (a review queue of
    the lowest-scored answers) while the pool records no design. Uniform labels make the
    two sets exchangeable, so a rank test of each item's mean standardised score
    (``scores``: items x judges, NaN where a judge gave none) labeled against unlabeled
    is exact up to its normal approximation; said when its chance is under
    :data:`NEVER_DRAWN` and the shift at least :data:`PICKED_SHIFT` sds. The AEE stays
    unbiased where labels depend on the scores only and the model is right; picked from
    one end, its correction is read there alone, and the judges' agreement with the label
    is cut by the range (a walk: the 150 lowest-scored of 1,200 SummEval summaries, AEE
    3.29 [3.17, 3.42] where the mean is 3.72). ``codes``: each item's group; groups never
    labeled are left out (:func:`groups_never_drawn` says those)."""
    labeled = ~np.isnan(y)
    if labeled.sum() < 5 or (~labeled).sum() < 5:
        return None
    scores = np.asarray(scores, float).reshape(y.size, -1)
    if codes is not None:  # a group never labeled is no evidence on how labels were drawn
        labeled_group = (np.bincount(codes, weights=labeled) > 0)[codes]
    else:
        labeled_group = np.ones(y.size, bool)
    others = np.flatnonzero(~labeled & labeled_group)
    if others.size > SCORE_SAMPLE:  # a seeded sample of the unlabeled: the test's power is
        # the labeled side's, and a 1M-item pool read in 0.15 s more
        others = np.random.default_rng(0).choice(others, SCORE_SAMPLE, replace=False)
    rows = np.sort(np.concatenate([np.flatnonzero(labeled & labeled_group), others]))
    labeled, scores = labeled[rows], scores[rows]
    scores = np.where(np.isfinite(scores), scores, np.nan)  # -inf log-probabilities: none
    scores = scores[:, np.isfinite(scores).sum(axis=0) > 1]  # a judge with scores to scale
    if labeled.sum() < 5 or (~labeled).sum() < 5 or not scores.shape[1]:
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.nanstd(scores, axis=0)
        z = (scores - np.nanmean(scores, axis=0)) / np.where(sd > 0, sd, np.nan)
        hits = np.isfinite(z).sum(axis=1)
        item = np.where(hits > 0, np.nansum(z, axis=1) / np.maximum(hits, 1), np.nan)
    keep = hits > 0
    if codes is not None:  # within each group: labels drawn by group (equal counts from
        # groups of unequal sizes) are no evidence of labels picked by score
        g = pd.factorize(np.asarray(codes)[rows])[0]
        sums = np.bincount(g[keep], weights=item[keep], minlength=g.max() + 1)
        item = item - sums[g] / np.maximum(np.bincount(g[keep], minlength=g.max() + 1), 1)[g]
    a, b = item[keep & labeled], item[keep & ~labeled]
    if a.size < 5 or b.size < 5:
        return None
    spread = float(item[keep].std())
    shift = (float(a.mean()) - float(b.mean())) / spread if spread > 0 else 0.0
    if abs(shift) < PICKED_SHIFT:
        return None
    chance = float(stats.mannwhitneyu(a, b, method="asymptotic").pvalue)
    if chance >= NEVER_DRAWN:
        return None
    where = "below" if shift < 0 else "above"
    return (
        f"the labels look picked by the judges' scores: the {a.size} labeled items score "
        f"{abs(shift):.2g} sd {where} the others on the judges' mean (a rank test "
        f"gives chance {_at_most(chance)} if the labels were drawn at random from every "
        "item). The estimates and their intervals assume each item had the same chance of a "
        "label (or the --propensity given); with labels picked from one end of the scores "
        "they need not hold. Give the probabilities the labels were drawn with "
        "(--propensity; propensity= in Python), or label a random sample (bacon sample "
        "--design uniform)"
    )
