"""Ordinal outcome (K ordered levels): collapsed ordered-probit judge model.

Latent quality ``z ~ N(q' theta, 1)`` (location and scale fixed; the cutpoints
float); the human label is level k when ``kappa_{k-1} < z + sigma_y eps <= kappa_k``
(``judge_weights=True``: ``z + r' d`` in place of z; group effects: ``+ u_g``).
Given the judges, ``z ~ N(m, v)`` (closed form), so
``P(y <= k | judges) = Phi((kappa_k - m) / sqrt(sigma_y^2 + v))``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from scipy import special

from bacon_bayes.bayes.base import JudgeModel, fold_shape
from bacon_bayes.bayes.closed_forms import ordinal_probs
from bacon_bayes.bayes.label_density import ordinal_density
from bacon_bayes.bayes.nuts import GradDensity
from bacon_bayes.errors import ValidationError

__all__ = ["OrdinalJudgeModel", "anchored_ordered", "log_normal_interval"]

OUTER = 50.0  # finite outer cutpoints: infinities give NaN gradients
CLIP = 30.0  # standardised bounds beyond +-30 carry probability < 1e-197


def log_normal_interval(lo, hi, pt):
    """``log(Phi(hi) - Phi(lo))`` for ``lo < hi``, accurate in both tails.

    Built from ``erfc`` and ``log1mexp`` only, so every PyTensor backend (C, numba,
    JAX) compiles it: the interval is reflected into the lower tail, where
    ``log Phi`` is computed as ``log(erfc(-x / sqrt 2) / 2)`` (exact down to -30).
    """
    lo = pt.clip(lo, -CLIP, CLIP)
    hi = pt.clip(hi, -CLIP, CLIP)
    flip = lo > 0
    a = pt.switch(flip, -hi, lo)
    b = pt.switch(flip, -lo, hi)
    log_a = pt.log(0.5 * pt.erfc(-a / np.sqrt(2.0)))
    log_b = pt.log(0.5 * pt.erfc(-b / np.sqrt(2.0)))
    return log_b + pt.log1mexp(pt.minimum(log_a - log_b, -1e-12))


def anchored_ordered(anchor: int) -> Any:
    """PyMC transform to increasing vectors, anchored at element ``anchor``.

    The unconstrained ``u`` holds ``x[anchor]`` itself and, for every other element,
    the log gap to its neighbour towards the anchor: ``x[i] = x[i-1] + exp(u[i])``
    above it, ``x[i] = x[i+1] - exp(u[i])`` below. PyMC's ``ordered`` is the case
    ``anchor=0``: every cutpoint then hangs off the lowest, so a level without labels
    (its cutpoint pinned only by the prior) bends the well-identified ones into a curved
    ridge; anchored at a cutpoint the labels pin down, the poorly identified outer gaps
    vary alone. Same prior, same posterior, better geometry.
    """
    import pytensor.tensor as pt
    from pymc.logprob.transforms import Transform

    a = int(anchor)

    class AnchoredOrdered(Transform):
        name = "anchored_ordered"

        def backward(self, value, *inputs):
            mid = value[..., a][..., None]  # broadcastable against empty sides
            up = pt.cumsum(pt.exp(value[..., a + 1 :]), axis=-1)
            down = pt.cumsum(pt.exp(value[..., :a][..., ::-1]), axis=-1)[..., ::-1]
            return pt.concatenate([mid - down, mid, mid + up], axis=-1)

        def forward(self, value, *inputs):
            gaps = pt.log(value[..., 1:] - value[..., :-1])
            mid = value[..., a][..., None]
            return pt.concatenate([gaps[..., :a], mid, gaps[..., a:]], axis=-1)

        def log_jac_det(self, value, *inputs):
            return pt.sum(value, axis=-1) - value[..., a]

    return AnchoredOrdered()


def median_cut(y: np.ndarray, levels: np.ndarray) -> int:
    """Index of the cutpoint nearest the labels' median (the best pinned down)."""
    share = np.searchsorted(np.sort(y), levels[:-1], side="right") / max(y.size, 1)
    return int(np.argmin(np.abs(share - 0.5)))


class OrdinalJudgeModel(JudgeModel):
    """Bayesian ordinal (ordered-probit) model of human labels given several judges.

    Parameters
    ----------
    columns : :class:`~bacon_bayes.bayes.columns.ColumnSpec`.
    levels : the ordered outcome levels (numbers); default: the distinct labels seen.
    **kwargs : see :class:`~bacon_bayes.bayes.base.JudgeModel`.
    """

    family: ClassVar[str] = "ordinal"
    link_has_slope: ClassVar[bool] = False  # z's scale against the cutpoints is fixed
    family_priors: ClassVar[dict[str, float]] = {
        "cutpoint_sd": 2.5,  # kappa_k ~ N(0, .), ordered
        "log_label_noise_mu": 0.0,  # log sigma_y ~ N(., log_label_noise_sd)
        "log_label_noise_sd": 0.5,
    }

    def __init__(self, columns, *, levels=None, **kwargs: Any) -> None:
        super().__init__(columns, **kwargs)
        self.levels = levels

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {**super().get_params(deep), "levels": self.levels}

    def _prepare_labels(self, y: np.ndarray) -> None:
        if self.levels is not None:
            levels = np.asarray(self.levels, dtype=float)
        else:
            levels = np.unique(y)
        if levels.size < 2 or np.any(np.diff(levels) <= 0):
            raise ValidationError(
                f"ordinal levels must be at least 2 increasing numbers, got {levels.tolist()}"
            )
        bad = ~np.isin(y, levels)
        if bad.any():
            raise ValidationError(
                f"label {y[bad][0]} is not one of the ordinal levels {levels.tolist()}; "
                "pass --levels (levels= in Python) or fix the label"
            )
        self.levels_ = levels
        self.anchor_ = median_cut(y, levels)

    def _anchor(self) -> int:
        """The cutpoint the sampler's transform hangs the others off (``anchored_ordered``)."""
        return getattr(self, "anchor_", (self.levels_.size - 1) // 2)

    def _label_data(self, y, train, scores=None):
        idx = np.zeros(y.shape[0], dtype="int64")
        idx[train] = np.searchsorted(self.levels_, y[train])
        return {"yk": idx, "w": train.astype(float)}, {"levels": self.levels_}

    def _family_label_density(self) -> GradDensity | None:
        """Stage 2 in numba with its gradient by hand
        (:func:`~bacon_bayes.bayes.label_density.ordinal_density`), unless a subclass
        changed the label link."""
        if type(self)._label_logp is not OrdinalJudgeModel._label_logp:
            return None
        return ordinal_density(self.resolved_priors(), OUTER, CLIP, self._anchor())

    def _label_logp(self, pm, pt, m, v, yk, pr, folds=None, q=None, off=None):
        K = self.levels_.size
        shape, col = fold_shape(folds)
        cut = pm.Normal(
            "cutpoints",
            0.0,
            pr["cutpoint_sd"],
            shape=(*shape, K - 1),
            transform=anchored_ordered(self._anchor()),
            initval=np.broadcast_to(np.linspace(-1.5, 1.5, K - 1), (*shape, K - 1)),
        )
        log_sy = pm.Normal(
            "log_label_noise", pr["log_label_noise_mu"], pr["log_label_noise_sd"], shape=shape
        )
        outer = np.full((*shape, 1), OUTER)
        edges = pt.concatenate([-outer, cut, outer], axis=-1)
        sd = pt.sqrt(pt.exp(2.0 * col(log_sy)) + v)
        lo = pt.take_along_axis(edges, yk, axis=-1)
        hi = pt.take_along_axis(edges, yk + 1, axis=-1)
        if off is not None:
            m = m + off[0]
        return log_normal_interval((lo - m) / sd, (hi - m) / sd, pt)

    def _align_link(self, post, shift, stretch):
        # Phi((k - z) / sd) = Phi((shift + stretch k - z') / (stretch sd)), z' = shift + stretch z
        out = {
            "cutpoints": shift[..., None] + stretch[..., None] * post["cutpoints"],
            "log_label_noise": post["log_label_noise"] + np.log(stretch),
        }
        if "judge_weight" in post:  # added to z on its scale: stretches with it
            out["judge_weight"] = stretch[..., None] * post["judge_weight"]
        if "group_effect" in post:  # likewise (eta = u / tau is scale-free)
            out["group_effect"] = stretch[..., None] * post["group_effect"]
            out["group_sd"] = stretch * post["group_sd"]
        return out

    def _probs(self, post, m, v, off=None):
        sd = np.sqrt(np.exp(2.0 * post["log_label_noise"])[:, None] + v)
        return ordinal_probs(m if off is None else m + off[0], sd, post["cutpoints"])

    def _moments(self, post, const, m, v, q=None, off=None):
        # E[g(y)] = g(l_0) + sum_k (g(l_k) - g(l_{k-1})) P(y >= l_k): one normal tail
        # per inner cutpoint instead of two per level
        lv = const["levels"]
        if off is not None:
            m = m + off[0]
        sd = np.sqrt(np.exp(2.0 * post["log_label_noise"])[:, None] + v)
        above = special.ndtr((m[..., None] - post["cutpoints"][:, None, :]) / sd[..., None])
        mean = lv[0] + above @ np.diff(lv)
        second = lv[0] ** 2 + above @ np.diff(lv * lv)
        return mean, np.maximum(second - mean * mean, 0.0)

    def _cdf(self, post, const, m, v, t, q=None, off=None):
        cum = np.cumsum(self._probs(post, m, v, off), axis=-1)
        idx = np.searchsorted(const["levels"], t, side="right") - 1
        out = cum[..., np.maximum(idx, 0)]
        out[..., idx < 0] = 0.0
        return out

    def _expected_given_z(self, post, z, off=None):
        """E[y | z] on a (d, G) grid of latent values (``off``: judge-weight terms)."""
        sd = np.exp(post["log_label_noise"])[:, None] * np.ones_like(z)
        eta = z if off is None else z + off[0]
        return ordinal_probs(eta, sd, post["cutpoints"]) @ self.constants_["levels"]
