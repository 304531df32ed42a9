"""Continuous outcome: collapsed Gaussian judge model.

On the standardised label scale (centre and scale of the training labels):
``z ~ N(q' theta, 1)``, ``y = b0 + b1 z + N(0, sigma_y^2)``; given the judges
``y ~ N(b0 + b1 m, b1^2 v + sigma_y^2)`` in closed form. The latent has unit
variance so that the judges alone identify their offsets and scales on it; the
label link (b0, b1) carries the human scale (this removes the ridge between the
judges' scales and a free latent variance, which made NUTS diverge).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy import special

from bacon_bayes.bayes.base import JudgeModel, fold_shape
from bacon_bayes.errors import ValidationError

__all__ = ["GaussianJudgeModel"]


class GaussianJudgeModel(JudgeModel):
    """Bayesian Gaussian model of continuous human labels given several judges."""

    family: ClassVar[str] = "gaussian"
    family_priors: ClassVar[dict[str, float]] = {
        "intercept_sd": 1.0,  # b0 ~ N(0, .)
        "slope_sd": 1.0,  # b1 ~ HalfNormal(.)
        "label_noise_sd": 1.0,  # sigma_y ~ HalfNormal(.)
    }

    def _label_data(self, y, train):
        yt = y[train]
        center, scale = float(yt.mean()), float(yt.std())
        if not scale > 0:
            raise ValidationError(
                "all training labels are equal; a continuous model needs varying labels"
            )
        ys = np.where(train, (np.nan_to_num(y) - center) / scale, 0.0)
        return {"yk": ys, "w": train.astype(float)}, {"y_center": center, "y_scale": scale}

    def _label_logp(self, pm, pt, m, v, yk, pr, folds=None):
        shape, col = fold_shape(folds)
        b0 = col(pm.Normal("intercept", 0.0, pr["intercept_sd"], shape=shape))
        b1 = col(pm.HalfNormal("slope", pr["slope_sd"], shape=shape))
        sy = col(pm.HalfNormal("label_noise", pr["label_noise_sd"], shape=shape))
        var = b1 * b1 * v + sy * sy
        return -0.5 * (np.log(2 * np.pi) + pt.log(var) + (yk - b0 - b1 * m) ** 2 / var)

    def _align_link(self, post, shift, stretch):
        slope = post["slope"] / stretch  # b0 + b1 z = b0' + b1' (shift + stretch z)
        return {"intercept": post["intercept"] - slope * shift, "slope": slope}

    def _moments(self, post, const, m, v):
        s = const["y_scale"]
        b0, b1 = post["intercept"][:, None], post["slope"][:, None]
        var = b1 * b1 * v + post["label_noise"][:, None] ** 2
        return const["y_center"] + s * (b0 + b1 * m), s * s * var

    def _cdf(self, post, const, m, v, t):
        mean, var = self._moments(post, const, m, v)
        return special.ndtr((t - mean[..., None]) / np.sqrt(var)[..., None])
