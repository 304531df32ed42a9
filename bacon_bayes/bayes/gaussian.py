"""Continuous outcome: collapsed Gaussian judge model.

On the standardised label scale (centre and scale of the training labels):
``z ~ N(q' theta, 1)``, ``y = b0 + b1 z + N(0, sigma_y^2 exp(2 q' gamma))``; given
the judges ``y ~ N(b0 + b1 m, b1^2 v + sigma_y^2 exp(2 q' gamma))`` in closed form
(``judge_weights=True`` adds ``r' d`` to the mean; group effects ``u_g``, on this
standardised scale, too: integrated out in closed form in the cut fit's label stage).

The label noise is heteroskedastic on the embedding: q are the model's QR
embedding components (unit variance) and ``gamma_k ~ N(0, label_noise_embedding_sd)``
shifts the log noise sd, so items in regions where humans disagree with the judges
more get wider predictive intervals and a larger posterior predictive variance (what
adaptive sampling allocates labels by). ``priors={"label_noise_embedding_sd": 0}``
(or no embedding) gives the homoskedastic model. The latent has unit
variance so that the judges alone identify their offsets and scales on it; the
label link (b0, b1) carries the human scale (this removes the ridge between the
judges' scales and a free latent variance, which made NUTS diverge).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy import special

from bacon_bayes.bayes.base import JudgeModel, fold_shape
from bacon_bayes.bayes.closed_forms import collapse_groups
from bacon_bayes.bayes.label_density import gaussian_density
from bacon_bayes.bayes.nuts import GradDensity
from bacon_bayes.bayes.spec import group_sd_name
from bacon_bayes.errors import ValidationError

__all__ = ["GaussianJudgeModel"]


class GaussianJudgeModel(JudgeModel):
    """Bayesian Gaussian model of continuous human labels given several judges."""

    family: ClassVar[str] = "gaussian"
    #: SummEval at 3/5/10% labels: narrower AEE intervals in 12 of 12 cells, lower RMSE
    #: in 9; the misspecification study in band with them (BENCHMARKS.md)
    weights_by_default: ClassVar[bool] = True
    #: the group effects are integrated out of the cut fit's label stage (normal in the
    #: link's mean): on the example pool sampling them non-centred doubled the label
    #: stage's leapfrog steps (15 instead of 7 per draw; BENCHMARKS.md)
    collapses_groups: ClassVar[bool] = True
    family_priors: ClassVar[dict[str, float]] = {
        "intercept_sd": 1.0,  # b0 ~ N(0, .)
        "slope_sd": 1.0,  # b1 ~ HalfNormal(.)
        "label_noise_sd": 1.0,  # sigma_y ~ HalfNormal(.)
        "label_noise_embedding_sd": 0.5,  # gamma_k ~ N(0, .); 0 = homoskedastic
    }

    def _label_uses_embedding(self) -> bool:
        return (
            bool(self.columns.emb_cols) and self.resolved_priors()["label_noise_embedding_sd"] > 0
        )

    def _label_data(self, y, train, scores=None):
        yt = y[train]
        center, scale = float(yt.mean()), float(yt.std())
        if not scale > 0:  # a fold's: skewed labels (80% at 5) can leave one all equal
            raise ValidationError(
                f"the {int(train.sum())} training labels of a cross-fitting fold are all "
                f"{center:g} (the other values fell in the held-out fold): the Bayesian "
                "continuous model needs varying labels to fit. Use fewer folds (folds=2, "
                "--folds 2), the frequentist engine (engine='freq', --engine freq), or more "
                "labels"
            )
        ys = np.where(train, (np.nan_to_num(y) - center) / scale, 0.0)
        return {"yk": ys, "w": train.astype(float)}, {"y_center": center, "y_scale": scale}

    def _family_label_density(self) -> GradDensity | None:
        """Stage 2 in numba (:func:`~bacon_bayes.bayes.label_density.gaussian_density`),
        unless a subclass changed the label link."""
        if type(self)._label_logp is not GaussianJudgeModel._label_logp:
            return None
        return gaussian_density(self.resolved_priors())

    def _label_logp(self, pm, pt, m, v, yk, pr, folds=None, q=None, off=None, groups=None):
        """As the base's; with ``groups=(g, w)`` (the cut fit's group one-hot design and
        label weights) the group effects are integrated out
        (:func:`~bacon_bayes.bayes.closed_forms.collapse_groups`, their scale ``group_sd``
        sampled) and the groups' term is returned beside the per-item terms."""
        shape, col = fold_shape(folds)
        b0 = col(pm.Normal("intercept", 0.0, pr["intercept_sd"], shape=shape))
        b1 = col(pm.HalfNormal("slope", pr["slope_sd"], shape=shape))
        sy = col(pm.HalfNormal("label_noise", pr["label_noise_sd"], shape=shape))
        noise = sy * sy
        if q is not None:
            gamma = pm.Normal(
                "label_noise_embedding",
                0.0,
                pr["label_noise_embedding_sd"],
                shape=(*shape, len(self.columns.emb_cols)),
            )
            noise = noise * pt.exp(2.0 * pt.sum(q * pt.expand_dims(gamma, -2), axis=-1))
        var = b1 * b1 * v + noise
        mean = b0 + b1 * m + (0.0 if off is None else off[0])
        items = -0.5 * (np.log(2 * np.pi) + pt.log(var) + (yk - mean) ** 2 / var)
        if groups is None:
            return items
        g, w = groups
        tau = pm.HalfNormal(
            group_sd_name(self.group_effect_names[0]), pr["group_effect_sd"], shape=shape
        )
        term, _, _ = collapse_groups(yk - mean, var, w, g, col(tau) ** 2, pt)
        return items, pt.sum(term)

    def _draw_group_effects(self, post: dict, data: dict, rng: np.random.Generator) -> np.ndarray:
        """One fit's group effects (draws, G), each draw from its normal conditional
        posterior given that draw's link parameters and the fit's stage-2 data (``data``:
        one fold's ``m``, ``v``, ``yk``, ``w``, ``g`` and ``r``, ``q`` when present)."""
        b0, b1 = post["intercept"][:, None], post["slope"][:, None]
        noise = post["label_noise"][:, None] ** 2
        if "label_noise_embedding" in post:
            noise = noise * np.exp(2.0 * (post["label_noise_embedding"] @ data["q"].T))
        mean = b0 + b1 * data["m"]
        if self.judge_weight_names[0] in post:
            mean = mean + post[self.judge_weight_names[0]] @ data["r"].T
        var = b1 * b1 * data["v"] + noise
        t2 = post[group_sd_name(self.group_effect_names[0])][:, None] ** 2
        _, centre, spread = collapse_groups(data["yk"] - mean, var, data["w"], data["g"], t2)
        return centre + np.sqrt(spread) * rng.standard_normal(centre.shape)

    def _align_link(self, post, shift, stretch):
        slope = post["slope"] / stretch  # b0 + b1 z = b0' + b1' (shift + stretch z)
        return {"intercept": post["intercept"] - slope * shift, "slope": slope}

    def _moments(self, post, const, m, v, q=None, off=None):
        s = const["y_scale"]
        b0, b1 = post["intercept"][:, None], post["slope"][:, None]
        noise = post["label_noise"][:, None] ** 2
        if "label_noise_embedding" in post:
            if q is None:
                raise ValidationError(
                    "this gaussian model's label noise depends on the embedding; pass the "
                    "items' embedding rows q"
                )
            noise = noise * np.exp(2.0 * (post["label_noise_embedding"] @ q.T))
        var = b1 * b1 * v + noise
        mean = b0 + b1 * m + (0.0 if off is None else off[0])
        return const["y_center"] + s * mean, s * s * var

    def _cdf(self, post, const, m, v, t, q=None, off=None):
        mean, var = self._moments(post, const, m, v, q, off)
        return special.ndtr((t - mean[..., None]) / np.sqrt(var)[..., None])
