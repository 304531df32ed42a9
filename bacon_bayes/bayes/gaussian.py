"""Continuous outcome: collapsed Gaussian judge model.

On the standardised label scale (centre and scale of the training labels):
``z ~ N(q' theta, 1)``, ``y = b0 + b1 z + N(0, sigma_y^2 exp(2 q' gamma))``; given
the judges ``y ~ N(b0 + b1 m, b1^2 v + sigma_y^2 exp(2 q' gamma))`` in closed form
(``judge_weights=True`` adds ``r' d`` to the mean).

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
from bacon_bayes.bayes.label_density import gaussian_density
from bacon_bayes.bayes.nuts import GradDensity
from bacon_bayes.errors import ValidationError

__all__ = ["GaussianJudgeModel"]


class GaussianJudgeModel(JudgeModel):
    """Bayesian Gaussian model of continuous human labels given several judges."""

    family: ClassVar[str] = "gaussian"
    #: SummEval at 3/5/10% labels: narrower AEE intervals in 12 of 12 cells, lower RMSE
    #: in 9; the misspecification study in band with them (BENCHMARKS.md)
    weights_by_default: ClassVar[bool] = True
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
        if not scale > 0:
            raise ValidationError(
                "all training labels are equal; a continuous model needs varying labels"
            )
        ys = np.where(train, (np.nan_to_num(y) - center) / scale, 0.0)
        return {"yk": ys, "w": train.astype(float)}, {"y_center": center, "y_scale": scale}

    def _family_label_density(self) -> GradDensity | None:
        """Stage 2 in numba (:func:`~bacon_bayes.bayes.label_density.gaussian_density`),
        unless a subclass changed the label link."""
        if type(self)._label_logp is not GaussianJudgeModel._label_logp:
            return None
        return gaussian_density(self.resolved_priors())

    def _label_logp(self, pm, pt, m, v, yk, pr, folds=None, q=None, off=None):
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
        return -0.5 * (np.log(2 * np.pi) + pt.log(var) + (yk - mean) ** 2 / var)

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
