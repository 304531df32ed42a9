"""Non-negative, zero-inflated outcome (e.g. MQM error scores): collapsed hurdle model.

With the latent ``z ~ N(q' theta, 1)``: ``P(y > 0 | z) = Phi(g0 + g1 z)`` and
``log y | y > 0, z ~ N(h0 + h1 z, s^2)`` (log y standardised over the positive
training labels). Given the judges, ``z ~ N(m, v)`` and, in closed form,

* ``P(y > 0 | l) = Phi((g0 + g1 m) / sqrt(1 + g1^2 v))``;
* for y > 0, ``p(log y, y > 0 | l) = N(log y | h0 + h1 m, s^2 + h1^2 v)
  * Phi((g0 + g1 m*) / sqrt(1 + g1^2 v*))`` with (m*, v*) the posterior of z after
  also seeing log y;
* ``judge_weights=True`` adds ``r' d_zero`` to g0 and ``r' d_log`` to h0 per item (each
  part weighs the judge scores its own way);
* ``E[y | l] = exp(h0 + s^2/2 + h1 m + h1^2 v/2) Phi((g0 + g1 (m + h1 v)) / sqrt(1 + g1^2 v))``
  (on the raw scale after undoing the standardisation), and ``E[y^2 | l]`` alike.

``predict_cdf`` integrates the two probit/normal factors over z by 40-point
Gauss-Hermite quadrature.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy import special

from bacon_bayes.bayes.base import JudgeModel, fold_shape
from bacon_bayes.bayes.ordinal import CLIP
from bacon_bayes.errors import ValidationError

__all__ = ["HurdleJudgeModel", "hurdle_label_logp"]


def hurdle_label_logp(pos, ly, m, v, g0, g1, h0, h1, s, xp, log_phi):
    """log p(label | judges): ``pos`` 1/0 for y > 0 / y = 0, ``ly`` = standardised log y.

    ``xp`` is numpy or pytensor.tensor; ``log_phi(mu, sigma, x)`` the normal log-CDF.
    """
    zero = log_phi(0.0, 1.0, -(g0 + g1 * m) / xp.sqrt(1.0 + g1 * g1 * v))
    var = s * s + h1 * h1 * v
    dens = -0.5 * (np.log(2 * np.pi) + xp.log(var) + (ly - h0 - h1 * m) ** 2 / var)
    v_star = 1.0 / (1.0 / v + h1 * h1 / (s * s))
    m_star = v_star * (m / v + h1 * (ly - h0) / (s * s))
    hurdle = log_phi(0.0, 1.0, (g0 + g1 * m_star) / xp.sqrt(1.0 + g1 * g1 * v_star))
    return pos * (dens + hurdle) + (1.0 - pos) * zero


class HurdleJudgeModel(JudgeModel):
    """Bayesian hurdle (probit zero part, log-normal positive part) judge model."""

    family: ClassVar[str] = "hurdle"
    judge_weight_names: ClassVar[tuple[str, ...]] = ("zero_judge_weight", "log_judge_weight")
    family_priors: ClassVar[dict[str, float]] = {
        "zero_intercept_sd": 2.0,  # g0 ~ N(0, .)
        "zero_slope_sd": 1.0,  # g1 ~ N(0, .)
        "log_intercept_sd": 1.0,  # h0 ~ N(0, .)
        "log_slope_sd": 1.0,  # h1 ~ N(0, .)
        "log_noise_sd_prior": 1.0,  # s ~ HalfNormal(.)
    }

    def _label_data(self, y, train):
        if np.any(y[train] < 0):
            row = int(np.flatnonzero(train & (np.nan_to_num(y) < 0))[0])
            raise ValidationError(
                f"label at row {row} is negative ({y[row]}); the hurdle model needs "
                "non-negative outcomes (negate scores where lower is better, or shift them)"
            )
        pos = train & (np.nan_to_num(y) > 0)
        if pos.sum() < 2 or (train & ~pos).sum() < 1:
            raise ValidationError(
                "the hurdle model needs at least one zero and two positive training labels; "
                "use the gaussian model for outcomes without zeros"
            )
        logy = np.log(y[pos])
        center, scale = float(logy.mean()), float(logy.std()) or 1.0
        ly = np.zeros(y.shape[0])
        ly[pos] = (logy - center) / scale
        yk = np.column_stack([pos.astype(float), ly])
        return {"yk": yk, "w": train.astype(float)}, {"log_center": center, "log_scale": scale}

    def _label_logp(self, pm, pt, m, v, yk, pr, folds=None, q=None, off=None):
        shape, col = fold_shape(folds)
        g0 = col(pm.Normal("zero_intercept", 0.0, pr["zero_intercept_sd"], shape=shape))
        g1 = col(pm.Normal("zero_slope", 0.0, pr["zero_slope_sd"], shape=shape))
        h0 = col(pm.Normal("log_intercept", 0.0, pr["log_intercept_sd"], shape=shape))
        h1 = col(pm.Normal("log_slope", 0.0, pr["log_slope_sd"], shape=shape))
        s = col(pm.HalfNormal("log_noise_y", pr["log_noise_sd_prior"], shape=shape))
        if off is not None:  # per-item intercepts: each part weighs the judges its own way
            g0, h0 = g0 + off[0], h0 + off[1]

        def log_phi(mu, sigma, x):  # erfc only: compiles on every backend incl. JAX
            z = pt.clip((x - mu) / sigma, -CLIP, CLIP)
            return pt.log(0.5 * pt.erfc(-z / np.sqrt(2.0)))

        return hurdle_label_logp(yk[..., 0], yk[..., 1], m, v, g0, g1, h0, h1, s, pt, log_phi)

    def _align_link(self, post, shift, stretch):
        g1, h1 = post["zero_slope"] / stretch, post["log_slope"] / stretch
        return {
            "zero_intercept": post["zero_intercept"] - g1 * shift,
            "zero_slope": g1,
            "log_intercept": post["log_intercept"] - h1 * shift,
            "log_slope": h1,
        }

    def _parts(self, post, const, off=None):
        sc, ce = const["log_scale"], const["log_center"]
        g0, g1 = post["zero_intercept"][:, None], post["zero_slope"][:, None]
        # log y = ce + sc * (h0 + h1 z + s e): raw-scale coefficients
        h0 = ce + sc * post["log_intercept"][:, None]
        if off is not None:
            g0, h0 = g0 + off[0], h0 + sc * off[1]
        h1 = sc * post["log_slope"][:, None]
        s = sc * post["log_noise_y"][:, None]
        return g0, g1, h0, h1, s

    def _raw_moment(self, post, const, m, v, k, off=None):
        g0, g1, h0, h1, s = self._parts(post, const, off)
        scale = np.exp(k * h0 + 0.5 * k * k * s * s + k * h1 * m + 0.5 * k * k * h1 * h1 * v)
        return scale * special.ndtr((g0 + g1 * (m + k * h1 * v)) / np.sqrt(1 + g1 * g1 * v))

    def _moments(self, post, const, m, v, q=None, off=None):
        mean = self._raw_moment(post, const, m, v, 1, off)
        second = self._raw_moment(post, const, m, v, 2, off)
        return mean, np.maximum(second - mean * mean, 0.0)

    def _cdf(self, post, const, m, v, t, q=None, off=None):
        g0, g1, h0, h1, s = self._parts(post, const, off)
        nodes, weights = np.polynomial.hermite_e.hermegauss(40)
        weights = weights / weights.sum()
        z = m[..., None] + np.sqrt(v)[..., None] * nodes  # (d, n, G)
        p_pos = special.ndtr(g0[..., None] + g1[..., None] * z)
        out = np.empty((*m.shape, t.size))
        with np.errstate(divide="ignore"):
            logt = np.log(np.maximum(t, 0.0))
        for k, (tk, lt) in enumerate(zip(t, logt, strict=True)):
            if tk < 0:
                out[..., k] = 0.0
                continue
            below = special.ndtr((lt - h0[..., None] - h1[..., None] * z) / s[..., None])
            out[..., k] = ((1 - p_pos) + p_pos * below) @ weights
        return out

    def _expected_given_z(self, post, z, off=None):
        g0, g1, h0, h1, s = self._parts(post, self.constants_, off)
        return special.ndtr(g0 + g1 * z) * np.exp(h0 + h1 * z + 0.5 * s * s)
