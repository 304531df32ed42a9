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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bacon_bayes.errors import ValidationError


@dataclass(frozen=True)
class Inclusion:
    """Per wave, every item's prompt probability ``b`` and within-prompt probability ``a``.

    Attributes
    ----------
    prompt, within : ndarray, shape (W, N)
        ``b_w`` of the item's prompt and ``a_w`` of the item, for each of ``W`` waves.
    """

    prompt: np.ndarray
    within: np.ndarray

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
    def pi(self) -> np.ndarray:
        """Inclusion probability of every item in the union of waves."""
        return 1.0 - np.prod(1.0 - self.prompt * self.within, axis=0)

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
