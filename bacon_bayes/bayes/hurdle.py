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

``positive_scale="sqrt"`` models the positive part on the square-root scale instead:
``sqrt(y) = W = h0 + h1 z + s e`` (standardised over the positive training labels'
square roots; the likelihood is the closed form above with ``sqrt y`` for ``log y``)
and predictions take ``y = W^2``: ``E[y^k | l]`` (k = 1, 2) are polynomials in z up to
degree 4 times the probit gate, whose expectations over ``z ~ N(m, v)`` follow exactly
from Stein's identity. The normal W puts a little mass below 0 that the likelihood
ignores (WMT22: the positive labels' square roots average 1.97 sd above 0); summing
both roots of ``y = W^2`` in the likelihood instead made a second, V-shaped mode (W
centred at 0, ``y ~ z^2``) that trapped chains (R-hat 1.83 on WMT22). The square root
stabilises the variance of count-like scores: on WMT22 MQM the log residuals given the
metrics are left-skewed (skewness -0.97), so a log-normal overstates E[y | x] (by 14%
there), while the square-root residuals are nearly symmetric (0.27). The default,
``positive_scale="auto"``, picks the scale per fit from its training labels
(:func:`prefers_sqrt`; the square root on every WMT22 fold, the log on log-normal data).

``predict_cdf`` takes the expectation over z of the two probit/normal factors in closed
form, a bivariate normal CDF (:func:`_hurdle_cdf_py`, compiled).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from scipy import special

from bacon_bayes.bayes.base import JudgeModel, fold_shape
from bacon_bayes.bayes.closed_forms import hurdle_label_logp
from bacon_bayes.bayes.label_density import hurdle_density
from bacon_bayes.bayes.nuts import GradDensity
from bacon_bayes.bayes.ordinal import CLIP
from bacon_bayes.bayes.selection import prefers_sqrt
from bacon_bayes.compiled import compiled_nogil
from bacon_bayes.errors import ValidationError
from bacon_bayes.vector_exp import exp_into

__all__ = ["POSITIVE_SCALES", "HurdleJudgeModel", "hurdle_cdf", "hurdle_label_logp"]

#: Scales of the hurdle's positive part: chosen from the training labels, log-normal or
#: squared normal.
POSITIVE_SCALES = ("auto", "log", "sqrt")


def _squared_moments_py(m, v, g0, g1, a, b, s2, mean, var):  # pragma: no cover - numba
    """Per element of the (draws, items) arrays: ``E[y | l]`` and ``Var(y | l)`` of
    ``y = W^2``, ``W | z ~ N(a + b z, s2)``, gated by ``Phi(g0 + g1 z)``, ``z ~ N(m, v)``,
    in one pass. ``e_k = E[z^k Phi(g0 + g1 z)]`` by Stein's identity,
    ``e_(k+1) = m e_k + v (k e_(k-1) + g1 E[z^k phi(g0 + g1 z)])``, where
    ``phi(g0 + g1 z) N(z; m, v) = c N(z; mt, vt)`` gives the last term from the tilted
    normal's raw moments; then ``E[W^2 | z]`` and ``E[W^4 | z]`` (polynomials in z of
    degree 2 and 4) are summed against them."""
    inv_sqrt_2pi = 1.0 / math.sqrt(2.0 * math.pi)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            mi, vi, g0i, g1i = m[i, j], v[i, j], g0[i, j], g1[i, j]
            ai, bi, s2i = a[i, j], b[i, j], s2[i, j]
            den = 1.0 + g1i * g1i * vi
            root = math.sqrt(den)
            kappa = (g0i + g1i * mi) / root
            c = g1i * math.exp(-0.5 * kappa * kappa) * inv_sqrt_2pi / root
            vt = vi / den
            mt = (mi - g1i * g0i * vi) / den
            e0 = 0.5 * math.erfc(-kappa / math.sqrt(2.0))
            e1 = mi * e0 + vi * c
            e2 = mi * e1 + vi * (e0 + c * mt)
            e3 = mi * e2 + vi * (2.0 * e1 + c * (mt * mt + vt))
            e4 = mi * e3 + vi * (3.0 * e2 + c * (mt * mt * mt + 3.0 * mt * vt))
            first = (ai * ai + s2i) * e0 + 2.0 * ai * bi * e1 + bi * bi * e2
            a2, b2 = ai * ai, bi * bi
            second = (
                a2 * a2 * e0 + 4.0 * a2 * ai * bi * e1 + 6.0 * a2 * b2 * e2
                + 4.0 * ai * b2 * bi * e3 + b2 * b2 * e4 + 6.0 * s2i * first - 3.0 * s2i * s2i * e0
            )  # fmt: skip
            mean[i, j] = first
            var[i, j] = max(second - first * first, 0.0)


#: Gauss-Legendre rules (nodes, weights; rows of 6, 12 and 20 points, zero-padded) for
#: the bivariate normal CDF's integral over the correlation, by |correlation| below 0.3,
#: 0.75 and 0.925 (Genz 2004's choice, double precision); beyond, where the integrand
#: steepens towards |sin u| = 1, the 20-point rule on each of ``_PANELS`` equal panels.
_GL_LIMITS = (0.3, 0.75, 0.925)
_GL_SIZES = (6, 12, 20)
_PANELS = 16


def _quadrature_rules() -> tuple[np.ndarray, ...]:
    """Legendre nodes and weights on [-1, 1] (rows of :data:`_GL_SIZES` points) and the sizes."""
    gl_x, gl_w = np.zeros((3, 20)), np.zeros((3, 20))
    for row, size in enumerate(_GL_SIZES):
        gl_x[row, :size], gl_w[row, :size] = np.polynomial.legendre.leggauss(size)
    return gl_x, gl_w, np.array(_GL_SIZES)


def _hurdle_cdf_py(
    m, v, g0, g1, h0, h1, s, lt, sqrt, gl_x, gl_w, gl_n, out
):  # pragma: no cover - numba
    """``out[d, i, k] = P(y <= t_k)`` per element of the (draws, items) arrays, ``z ~ N(m,
    v)``, ``P(y > 0 | z) = Phi(g0 + g1 z)``, the positive part ``W = h0 + h1 z + s e``
    with ``y = exp(W)`` (``lt = log t``) or ``y = W^2`` (``sqrt``; ``lt = sqrt t``);
    ``lt`` NaN where ``t < 0``.

    ``E[Phi(g0 + g1 z)] = Phi(a)`` and ``E[Phi(g0 + g1 z) Phi((q - h0 - h1 z) / s)]`` is
    the bivariate normal CDF ``Phi2(a, b; r)``: ``a = (g0 + g1 m) / sqrt(1 + g1^2 v)``,
    ``b = (q - h0 - h1 m) / sqrt(s^2 + h1^2 v)``, ``r = -g1 h1 v / sqrt((1 + g1^2 v)(s^2 +
    h1^2 v))``, computed as ``Phi(a) Phi(b) + 1 / (2 pi) int_0^asin(r) exp(-(a^2 + b^2 - 2
    a b sin u) / (2 cos^2 u)) du`` (the derivative of ``Phi2`` in ``r`` is the bivariate
    density) by Gauss-Legendre quadrature."""
    D, N = m.shape
    T = lt.size
    rt2 = math.sqrt(2.0)
    most = _PANELS * gl_x.shape[1]
    sn, inv_den, wq = np.empty(most), np.empty(most), np.empty(most)
    two_sides = 2 if sqrt else 1
    bs = np.empty(2 * T)
    arg = np.empty(2 * T * most)  # every exp of one item and draw, taken in SIMD lanes
    ex = np.empty(2 * T * most)
    scratch = np.empty(2 * T * most)
    for d in range(D):
        for i in range(N):
            mi, vi, c0, c1 = m[d, i], v[d, i], g0[d, i], g1[d, i]
            e0, e1, si = h0[d, i], h1[d, i], s[d, i]
            va = 1.0 + c1 * c1 * vi
            vb = si * si + e1 * e1 * vi
            a = (c0 + c1 * mi) / math.sqrt(va)
            p_pos = 0.5 * math.erfc(-a / rt2)
            sb = math.sqrt(vb)
            r = -c1 * e1 * vi / math.sqrt(va * vb)
            centre = e0 + e1 * mi
            row, panels = 2, _PANELS
            if abs(r) <= _GL_LIMITS[2]:
                row = 0 if abs(r) < _GL_LIMITS[0] else (1 if abs(r) < _GL_LIMITS[1] else 2)
                panels = 1
            size = gl_n[row]
            step = math.asin(r) / panels  # each panel's width in u
            nodes = 0
            for p in range(panels):
                for node in range(size):
                    u = step * (p + 0.5 * (gl_x[row, node] + 1.0))
                    sn[nodes] = math.sin(u)
                    inv_den[nodes] = 1.0 / (1.0 - sn[nodes] * sn[nodes])
                    wq[nodes] = gl_w[row, node] * step / (4.0 * math.pi)
                    nodes += 1
            used = 0
            for k in range(T):
                for side in range(two_sides):
                    b = ((lt[k] if side == 0 else -lt[k]) - centre) / sb
                    bs[2 * k + side] = b
                    if math.isfinite(b):
                        hs = 0.5 * (a * a + b * b)
                        hk = a * b
                        for q in range(nodes):
                            arg[used + q] = (sn[q] * hk - hs) * inv_den[q]
                        used += nodes
            exp_into(arg, ex, scratch, used)
            used = 0
            for k in range(T):
                if math.isnan(lt[k]):
                    out[d, i, k] = 0.0
                    continue
                total = 1.0 - p_pos
                for side in range(two_sides):
                    b = bs[2 * k + side]
                    if b == -math.inf:
                        continue
                    both = p_pos * 0.5 * math.erfc(-b / rt2)
                    if b != math.inf:
                        for q in range(nodes):
                            both += wq[q] * ex[used + q]
                        used += nodes
                    total += both if side == 0 else -both
                out[d, i, k] = total


_RULES = _quadrature_rules()


def _broadcast(*parts) -> list[np.ndarray]:
    """``parts`` as float arrays of one broadcast shape (read-only views, no copies)."""
    arrays = [np.asarray(p, dtype=float) for p in parts]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [np.broadcast_to(a, shape) for a in arrays]


def hurdle_cdf(m, v, g0, g1, h0, h1, s, t, sqrt: bool) -> np.ndarray:
    """``P(y <= t_k)`` of the hurdle (:func:`_hurdle_cdf_py`) for thresholds ``t``; the
    other arguments broadcast to one (draws, items) shape; the result is (draws, items,
    len(t))."""
    t = np.asarray(t, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        lt = np.sqrt(t) if sqrt else np.log(t)
    lt = np.where(t < 0, np.nan, lt)
    parts = _broadcast(m, v, g0, g1, h0, h1, s)
    out = np.empty((*parts[0].shape, t.size))
    compiled_nogil(_hurdle_cdf_py)(*parts, lt, sqrt, *_RULES, out)
    return out


class HurdleJudgeModel(JudgeModel):
    """Bayesian hurdle (probit zero part, log-normal or squared-normal positive part)
    judge model.

    Parameters
    ----------
    columns : :class:`~bacon_bayes.bayes.columns.ColumnSpec`.
    positive_scale : ``"auto"`` (default), ``"log"`` (log-normal positive part) or
        ``"sqrt"`` (y = W^2 with W normal: for count-like scores such as MQM, see the
        module docstring). ``"auto"`` picks per fit (per cross-fitting fold, from its
        training labels only) the square root where a linear regression on the judge
        scores predicts the positive labels clearly better on it
        (:func:`~bacon_bayes.bayes.selection.prefers_sqrt`), else the log; the choice
        is kept in ``constants_["sqrt"]``.
    **kwargs : see :class:`~bacon_bayes.bayes.base.JudgeModel`.
    """

    family: ClassVar[str] = "hurdle"
    judge_weight_names: ClassVar[tuple[str, ...]] = ("zero_judge_weight", "log_judge_weight")
    group_effect_names: ClassVar[tuple[str, ...]] = ("zero_group_effect", "log_group_effect")
    family_priors: ClassVar[dict[str, float]] = {
        "zero_intercept_sd": 2.0,  # g0 ~ N(0, .)
        "zero_slope_sd": 1.0,  # g1 ~ N(0, .)
        "log_intercept_sd": 1.0,  # h0 ~ N(0, .)
        "log_slope_sd": 1.0,  # h1 ~ N(0, .)
        "log_noise_sd_prior": 1.0,  # s ~ HalfNormal(.)
    }

    def __init__(self, columns, *, positive_scale: str = "auto", **kwargs: Any) -> None:
        super().__init__(columns, **kwargs)
        self.positive_scale = positive_scale

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {**super().get_params(deep), "positive_scale": self.positive_scale}

    def _sqrt(self, const: dict) -> bool:
        """Whether the fit with constants ``const`` uses the square-root scale."""
        if "sqrt" in const:
            return bool(const["sqrt"])
        return self.positive_scale == "sqrt"  # saved before "auto" existed

    def _label_data(self, y, train, scores=None):
        if self.positive_scale not in POSITIVE_SCALES:
            raise ValidationError(
                f"positive_scale must be one of {POSITIVE_SCALES}, got {self.positive_scale!r}"
            )
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
        sqrt = self.positive_scale == "sqrt"
        if self.positive_scale == "auto":
            sqrt = scores is not None and prefers_sqrt(y[pos], scores[pos])
        # log_center/log_scale: centre and scale of the transformed positive labels
        ty = np.sqrt(y[pos]) if sqrt else np.log(y[pos])
        center, scale = float(ty.mean()), float(ty.std()) or 1.0
        ly = np.zeros(y.shape[0])
        ly[pos] = (ty - center) / scale
        yk = np.column_stack([pos.astype(float), ly])
        const = {"log_center": center, "log_scale": scale, "sqrt": float(sqrt)}
        return {"yk": yk, "w": train.astype(float)}, const

    def _family_label_density(self) -> GradDensity | None:
        """Stage 2 in numba (:func:`~bacon_bayes.bayes.label_density.hurdle_density`),
        unless a subclass changed the label link."""
        if type(self)._label_logp is not HurdleJudgeModel._label_logp:
            return None
        return hurdle_density(self.resolved_priors(), CLIP)

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
        # log y (or sqrt y) = ce + sc * (h0 + h1 z + s e): raw-scale coefficients
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

    def _squared_moments(self, post, const, m, v, off=None):
        """E[y | l] and Var(y | l) of the square-root scale: y = W^2, W | z normal
        (compiled, one pass over draws x items: :func:`_squared_moments_py`)."""
        g0, g1, h0, h1, s = self._parts(post, const, off)
        # W | z ~ N(h0 + h1 z, s^2)
        parts = _broadcast(m, v, g0, g1, h0, h1, s * s)
        mean, var = np.empty(parts[0].shape), np.empty(parts[0].shape)
        compiled_nogil(_squared_moments_py)(*parts, mean, var)
        return mean, var

    def _moments(self, post, const, m, v, q=None, off=None):
        if self._sqrt(const):
            return self._squared_moments(post, const, m, v, off)
        mean = self._raw_moment(post, const, m, v, 1, off)
        second = self._raw_moment(post, const, m, v, 2, off)
        return mean, np.maximum(second - mean * mean, 0.0)

    def _cdf(self, post, const, m, v, t, q=None, off=None):
        return hurdle_cdf(m, v, *self._parts(post, const, off), t, self._sqrt(const))

    def _expected_given_z(self, post, z, off=None):
        g0, g1, h0, h1, s = self._parts(post, self.constants_, off)
        if self._sqrt(self.constants_):
            return special.ndtr(g0 + g1 * z) * ((h0 + h1 * z) ** 2 + s * s)
        return special.ndtr(g0 + g1 * z) * np.exp(h0 + h1 * z + 0.5 * s * s)
