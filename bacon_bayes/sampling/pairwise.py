"""Which comparisons to send to humans for Bradley-Terry strengths (issue 44).

The strengths' sandwich covariance under Poisson-type sampling with union inclusion
probabilities ``pi`` is (``target="pool"``, linearised at the strengths ``theta``)

    V(pi) = sum_i (1 - pi_i) / pi_i * r_i^2 * (C x_i)(C x_i)',    C = J H^-1

with ``x_i = e_a - e_b``, ``H = sum_all s_i (1 - s_i) x_i x_i'`` (model 0's column
dropped), ``J`` the map to mean-zero strengths and ``r_i`` the AEE residual. Its trace
(the sum of the models' variances; or ``trace(L V L')`` for contrasts ``L``) is smallest
when ``pi_i`` is proportional to ``sd_i * ||L C x_i||`` (``sd_i`` the sd of ``r_i``), the
same rule as :func:`~bacon_bayes.sampling.adaptive.adaptive_probabilities` with the
direction norm as a factor of the score. The three designs here return the union of a
pilot (``prior``) and a top-up wave of ``n`` expected new comparisons, as the ``pi`` that
:func:`~bacon_bayes.estimate.bradley_terry.bradley_terry` takes:

* :func:`pairwise_uniform` every comparison at the same rate;
* :func:`pairwise_stratified` Neyman over the unordered model pairs: a pair's rate is
  proportional to its pilot residual sd (shrunk to the pooled sd by its few pilot labels)
  times its direction norm;
* :func:`pairwise_adaptive` proportional to each comparison's predictive sd given the
  judges (:func:`vote_sd`) times its direction norm, with a uniform share and caps
  (:func:`~bacon_bayes.sampling.adaptive.adaptive_wave`).

:func:`wave_probabilities` turns a union back into the wave's conditional probabilities
to draw from (only comparisons not yet labeled are drawn).
"""

from __future__ import annotations

import numpy as np

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.bradley_terry import comparison_hessian
from bacon_bayes.sampling.adaptive import DEFAULT_UNIFORM_SHARE, adaptive_wave

__all__ = [
    "PAIR_SHRINK_LABELS",
    "direction_norms",
    "pair_codes",
    "pairwise_adaptive",
    "pairwise_stratified",
    "pairwise_uniform",
    "strength_map",
    "vote_sd",
    "wave_probabilities",
]

#: A pair's pilot residual variance is shrunk to the pooled one as if the pooled value
#: were this many labels: ``(k s_h^2 + k0 s^2) / (k + k0)``.
PAIR_SHRINK_LABELS = 10.0


def _arrays(a: np.ndarray, b: np.ndarray, n_models: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValidationError("a and b must be 1-D arrays of model codes of the same length.")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n_models):
        raise ValidationError(f"model codes must lie in 0..{n_models - 1}.")
    if np.any(a == b):
        k = int(np.argmax(a == b))
        raise ValidationError(f"comparison {k} pits a model against itself; drop it.")
    return a.astype(np.intp), b.astype(np.intp)


def strength_map(
    a: np.ndarray, b: np.ndarray, theta: np.ndarray, *, weights: np.ndarray | None = None
) -> np.ndarray:
    """``C = J H^-1`` (``n_models x (n_models - 1)``): a comparison's score ``x (y - s)``
    (``x`` without model 0's column) moves the mean-zero strengths by ``C x (y - s)``.

    ``H = sum_i w_i s_i (1 - s_i) x_i x_i'`` over every comparison (``w`` default 1), at
    the strengths ``theta`` (e.g. a pilot's estimate, natural log-odds).
    """
    theta = np.asarray(theta, dtype=float)
    m = theta.size
    a, b = _arrays(a, b, m)
    s = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
    wt = s * (1.0 - s) * (1.0 if weights is None else np.asarray(weights, dtype=float))
    h = comparison_hessian(a, b, m, wt)
    jac = (np.eye(m) - 1.0 / m)[:, 1:]
    return jac @ np.linalg.pinv(h[1:, 1:])


def direction_norms(
    a: np.ndarray,
    b: np.ndarray,
    theta: np.ndarray,
    *,
    contrast: np.ndarray | None = None,
) -> np.ndarray:
    """``||L C x_i||`` per comparison (:func:`strength_map`): how much one unit of its
    residual moves the strengths (``L`` = identity, the sum of the models' variances) or
    the contrasts ``L`` (rows over models, e.g. ``e_A - e_B`` for one difference)."""
    c = strength_map(a, b, theta)
    m = c.shape[0]
    if contrast is not None:
        lc = np.atleast_2d(np.asarray(contrast, dtype=float))
        if lc.shape[1] != m:
            raise ValidationError(f"contrast must have {m} columns (one per model).")
        c = lc @ c
    # C x = column a minus column b of C padded with model 0's zero column
    cz = np.hstack([np.zeros((c.shape[0], 1)), c])
    a, b = _arrays(a, b, m)
    pair, inv = np.unique(a * m + b, return_inverse=True)
    norm = np.linalg.norm(cz[:, pair // m] - cz[:, pair % m], axis=0)
    return np.asarray(norm[inv], dtype=float)


def vote_sd(probs: np.ndarray, *, fitted: np.ndarray | None = None, lam: float = 1.0) -> np.ndarray:
    """Predictive sd of a comparison's AEE residual given the judges.

    ``probs`` (N, 3): the surrogate model's probabilities of the vote ``y = 0, 0.5, 1``.
    Without ``fitted``: ``sqrt(E[y^2] - E[y]^2)``, the sd of the vote. With the fitted
    win chance ``s`` and the surrogate weight ``lam``, the residual ``(y - s) - lam (f - s)``
    (``f = E[y]``) has ``E[r^2] = Var(y) + (1 - lam)^2 (f - s)^2``.
    """
    p = np.asarray(probs, dtype=float)
    if p.ndim != 2 or p.shape[1] != 3 or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValidationError("probs must be an (N, 3) array of P(y=0), P(y=0.5), P(y=1).")
    p = p / p.sum(axis=1, keepdims=True)
    levels = np.array([0.0, 0.5, 1.0])
    mean = p @ levels
    var = np.clip(p @ levels**2 - mean**2, 0.0, None)
    if fitted is not None:
        var = var + (1.0 - lam) ** 2 * (mean - np.asarray(fitted, dtype=float)) ** 2
    return np.asarray(np.sqrt(var), dtype=float)


def pair_codes(a: np.ndarray, b: np.ndarray, n_models: int) -> np.ndarray:
    """A code per unordered model pair (``min * n_models + max``)."""
    a, b = _arrays(a, b, n_models)
    return np.minimum(a, b) * n_models + np.maximum(a, b)


def _prior(prior: np.ndarray | float | None, n_rows: int) -> np.ndarray:
    if prior is None:
        return np.zeros(n_rows)
    p = np.broadcast_to(np.asarray(prior, dtype=float), (n_rows,)).copy()
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValidationError("prior must hold probabilities in [0, 1], one per comparison.")
    return p


def _union(score: np.ndarray, n: float, prior: np.ndarray, share: float) -> np.ndarray:
    return adaptive_wave(score, prior, uniform_share=share).target(n)


def pairwise_uniform(
    n_rows: int, n: float, *, prior: np.ndarray | float | None = None
) -> np.ndarray:
    """Union inclusion probabilities after a wave of ``n`` expected new comparisons drawn
    at one rate among those not yet labeled: ``prior + (1 - prior) n / sum(1 - prior)``."""
    p = _prior(prior, n_rows)
    room = float(np.sum(1.0 - p))
    if n < 0 or n > room * (1 + 1e-12):
        raise ValidationError(f"cannot draw {n:g} new comparisons: at most {room:g} are open.")
    return p + (1.0 - p) * (n / room if room > 0 else 0.0)


def pairwise_stratified(
    a: np.ndarray,
    b: np.ndarray,
    theta: np.ndarray,
    resid: np.ndarray,
    n: float,
    *,
    prior: np.ndarray | float | None = None,
    weights: np.ndarray | None = None,
    contrast: np.ndarray | None = None,
    shrink_labels: float = PAIR_SHRINK_LABELS,
) -> np.ndarray:
    """Neyman allocation over the unordered model pairs: union probabilities (capped at
    one, :class:`~bacon_bayes.sampling.adaptive.TopUp`) with a pair's rate proportional to
    ``S_h * ||L C x_h||``.

    ``resid`` (N,): the pilot's residual (e.g. ``(y - s) - lam (f - s)``), NaN where
    unlabeled; ``weights`` the labeled rows' design weights ``1 / pi`` (default equal).
    ``S_h^2 = (k_h v_h + k0 v) / (k_h + k0)``: the pair's weighted mean square over its
    ``k_h`` pilot labels shrunk to the pooled one ``v`` with ``k0 = shrink_labels``.
    """
    theta = np.asarray(theta, dtype=float)
    m = theta.size
    code = pair_codes(a, b, m)
    r = np.asarray(resid, dtype=float)
    if r.shape != code.shape:
        raise ValidationError("resid must hold one value per comparison (NaN if unlabeled).")
    lab = np.isfinite(r)
    if lab.sum() < 2:
        raise ValidationError("the pilot needs at least 2 labeled comparisons.")
    w = np.ones(r.size) if weights is None else np.asarray(weights, dtype=float)
    if shrink_labels < 0:
        raise ValidationError("shrink_labels must be >= 0.")
    r2 = np.where(lab, r, 0.0) ** 2
    wl = np.where(lab, w, 0.0)
    pooled = float(np.sum(wl * r2) / np.sum(wl))
    uniq, inv = np.unique(code, return_inverse=True)
    k = np.bincount(inv, weights=lab.astype(float), minlength=uniq.size)
    own = np.bincount(inv, weights=wl * r2, minlength=uniq.size) / np.maximum(
        np.bincount(inv, weights=wl, minlength=uniq.size), 1e-300
    )
    var_h = (k * own + shrink_labels * pooled) / np.maximum(k + shrink_labels, 1e-300)
    score = np.sqrt(var_h)[inv] * direction_norms(a, b, theta, contrast=contrast)
    return _union(score, n, _prior(prior, r.size), 0.0)


def pairwise_adaptive(
    a: np.ndarray,
    b: np.ndarray,
    theta: np.ndarray,
    sd: np.ndarray,
    n: float,
    *,
    prior: np.ndarray | float | None = None,
    contrast: np.ndarray | None = None,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
) -> np.ndarray:
    """Union probabilities with ``pi_i`` proportional to ``sd_i * ||L C x_i||`` mixed with
    a uniform share and capped at one (the package's adaptive rule,
    :func:`~bacon_bayes.sampling.adaptive.adaptive_wave`); ``sd`` from :func:`vote_sd`."""
    sd = np.asarray(sd, dtype=float)
    if sd.shape != np.shape(a):
        raise ValidationError("sd must hold one value per comparison.")
    score = sd * direction_norms(a, b, theta, contrast=contrast)
    return _union(score, n, _prior(prior, sd.size), uniform_share)


def wave_probabilities(union: np.ndarray, prior: np.ndarray | float | None) -> np.ndarray:
    """The wave's probability for a comparison not yet labeled, ``(union - prior) /
    (1 - prior)``, so that ``1 - (1 - prior)(1 - p)`` is the union."""
    union = np.asarray(union, dtype=float)
    p = _prior(prior, union.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(p < 1.0, (union - p) / (1.0 - p), 0.0)
    return np.clip(out, 0.0, 1.0)
