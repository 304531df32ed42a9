"""The AEE surrogate of issue 41's harness (:mod:`benchmarks.anytime_validation`) at one
look, vectorised over the sequences, as ``Calibrator(engine="freq")`` builds it
(:func:`bacon_bayes.surrogates.freq_default`):

* below :data:`~bacon_bayes.surrogates.ALONE_BELOW` labels per judge, the judges' ridge
  (:mod:`bacon_bayes.judge_ridge`: fixed penalty on the judges off their first principal
  component) cross-fitted leave-one-out in closed form, with the weight 1;
* from there on a 5-fold cross-fitted ridge with a power-tuned weight (the package's
  model is a ridge whose penalty each fold picks by leave-one-out; here the same fixed
  penalty as the judges' ridge).

Either way an unlabeled item of a group gets the average of the fold models with the
design-weight shares of that group's labels (the pool's for the pool mean and for a
group without labels: :meth:`bacon_bayes.crossfit.CrossFitResult.surrogate`), so each
group's surrogate sum is the package's ``surrogate_matrix(groups)`` one.
"""

from __future__ import annotations

import numpy as np

from bacon_bayes.surrogates import ALONE_BELOW


def loo_alone(n_labels: int, n_judges: int) -> bool:
    """Whether the package's frequentist default uses the judges' leave-one-out ridge."""
    return n_labels / max(n_judges, 1) < ALONE_BELOW


def _sums(
    Xl: np.ndarray, fl: np.ndarray, gl: np.ndarray, coef: np.ndarray, xsum_g: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each group's and the pool's surrogate sum: the labeled items' cross-fits plus the
    unlabeled items' ``x @ coef`` with ``coef[..., h, :]`` (group ``h``'s fold shares; the
    last row the pool's)."""
    m = xsum_g.shape[0]
    onehot = gl[..., None] == np.arange(m)  # (R, n, m)
    xlab = np.einsum("rnh,rnj->rhj", onehot, Xl)  # labeled items' x sums per group
    flab = np.einsum("rnh,rn->rh", onehot, fl)
    f_sums = np.einsum("rhj,rhj->rh", xsum_g[None] - xlab, coef[:, :m]) + flab
    pool = np.einsum("rj,rj->r", xsum_g.sum(axis=0) - xlab.sum(axis=1), coef[:, m]) + fl.sum(1)
    return f_sums, pool


def _shares(gl: np.ndarray, w: np.ndarray, m: int) -> np.ndarray:
    """(R, n, m + 1): each labeled item's share of its group's design weight (column
    ``h``), and of the pool's (last column); a group without labels takes the pool's."""
    onehot = (gl[..., None] == np.arange(m)).astype(float) * w[..., None]
    mass = onehot.sum(axis=1, keepdims=True)  # (R, 1, m)
    pool = w / w.sum(axis=1, keepdims=True)
    share = np.where(mass > 0, onehot / np.where(mass > 0, mass, 1.0), pool[..., None])
    return np.concatenate([share, pool[..., None]], axis=2)


def loo_ridge(
    Xl: np.ndarray, yl: np.ndarray, pil: np.ndarray, gl: np.ndarray, pen: np.ndarray,
    xsum_g: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The judges' ridge's leave-one-out fits ``fl`` (R, n), each group's surrogate sum
    (R, m) and the pool's (R,) (:func:`bacon_bayes.judge_ridge.fit`: ``beta_(-i) = beta -
    M^-1 x_i r_i``, ``r_i = e_i / (1 - h_ii)``)."""
    Minv = np.linalg.pinv(np.einsum("rnj,rnk->rjk", Xl, Xl) + pen)
    beta = np.einsum("rjk,rnk,rn->rj", Minv, Xl, yl)
    e = yl - np.einsum("rnj,rj->rn", Xl, beta)
    h = np.einsum("rnj,rjk,rnk->rn", Xl, Minv, Xl)
    r = e / np.maximum(1.0 - h, 1e-9)
    fl = yl - r
    shares = _shares(gl, 1.0 / pil, xsum_g.shape[0])
    # sum_i s_hi beta_(-i) = beta - M^-1 sum_i s_hi x_i r_i
    coef = beta[:, None, :] - np.einsum("rjk,rnk,rn,rnh->rhj", Minv, Xl, r, shares)
    return (fl, *_sums(Xl, fl, gl, coef, xsum_g))


def fold_ridge(
    Xl: np.ndarray, fl: np.ndarray, pil: np.ndarray, gl: np.ndarray, folds: np.ndarray,
    beta: np.ndarray, xsum_g: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Each group's surrogate sum (R, m) and the pool's (R,) of a K-fold cross-fit
    (``beta`` (R, K, J+1) the fold models, ``folds`` (R, n) each label's fold, ``fl``
    its out-of-fold fit): fold shares of each group's labels' design weight."""
    shares = _shares(gl, 1.0 / pil, xsum_g.shape[0])  # (R, n, m + 1)
    infold = folds[..., None] == np.arange(beta.shape[1])  # (R, n, K)
    coef = np.einsum("rnh,rnk,rkj->rhj", shares, infold, beta)
    return _sums(Xl, fl, gl, coef, xsum_g)
