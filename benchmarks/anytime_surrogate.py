"""The AEE surrogate of issue 41's harness (:mod:`benchmarks.anytime_validation`) at one
look, vectorised over the sequences, as ``Calibrator(engine="freq")`` builds it
(:func:`bacon_bayes.surrogates.freq_default`):

* below :data:`~bacon_bayes.surrogates.ALONE_BELOW` labels per judge, the judges' ridge
  (:mod:`bacon_bayes.judge_ridge`: fixed penalty on the judges off their first principal
  component) cross-fitted leave-one-out in closed form, with the weight 1;
* from there on the model's surrogate with a power-tuned weight: the package's ridge
  (features standardised on the training labels, the penalty picked by leave-one-out)
  cross-fitted over the calibrator's five folds (:func:`package_folds`,
  :func:`model_ridge`).

Either way an unlabeled item of a group gets the average of the fold models with the
design-weight shares of that group's labels (the pool's for the pool mean and for a
group without labels: :meth:`bacon_bayes.crossfit.CrossFitResult.surrogate`), so each
group's surrogate sum is the package's ``surrogate_matrix(groups)`` one. With the
calibrator's seed the surrogates equal the package's to rounding
(:mod:`benchmarks.anytime_harness_check`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bacon_bayes import EvalPool
from bacon_bayes.features import build_features
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


def package_folds(order: np.ndarray, seeds: np.ndarray, folds: int) -> np.ndarray:
    """Each label's fold (R, n) as :func:`bacon_bayes.crossfit.make_folds` deals them with
    the calibrator's seed (``seeds`` (R,)): a seeded permutation of the labeled items in
    item order, the ``j``-th to fold ``j % folds``."""
    out = np.empty(order.shape, dtype=np.intp)
    for r, seed in enumerate(seeds):
        items = np.sort(order[r])
        perm = np.searchsorted(items, np.random.default_rng(int(seed)).permutation(items))
        fold_of = np.empty(items.size, dtype=np.intp)
        fold_of[perm] = np.arange(items.size) % folds
        out[r] = fold_of[np.searchsorted(items, order[r])]
    return out


def model_ridge(
    Fl: np.ndarray, yl: np.ndarray, folds: np.ndarray, n_folds: int, alphas: tuple[float, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """The package's ridge model (:class:`bacon_bayes.outcome.ridge.RidgeOutcome`) fitted
    on each fold's complement: features standardised on the training labels, the penalty
    of ``alphas`` with the least leave-one-out error
    (:func:`bacon_bayes.outcome.base.loo_alpha`). Returns each label's out-of-fold fit
    (R, n) and the fold models' coefficients on ``[1, features]`` (R, K, p + 1)."""
    T = (folds[:, None, :] != np.arange(n_folds)[None, :, None]).astype(float)  # (R, K, n)
    n_t = T.sum(axis=2)  # (R, K)
    mu = np.einsum("rkn,rnp->rkp", T, Fl) / n_t[..., None]
    dev = Fl[:, None] - mu[:, :, None]  # (R, K, n, p)
    sd = np.sqrt(np.einsum("rkn,rknp->rkp", T, dev * dev) / n_t[..., None])
    sd = np.where(sd > 0, sd, 1.0)  # StandardScaler's scale of a constant column
    Z = dev / sd[:, :, None]
    ybar = np.einsum("rkn,rn->rk", T, yl) / n_t
    yc = T * (yl[:, None] - ybar[..., None])
    Zt = Z * T[..., None]
    lam, V = np.linalg.eigh(np.einsum("rknp,rknq->rkpq", Zt, Zt))
    U = np.einsum("rknp,rkpq->rknq", Z, V)  # every label's, the training ones' in the fit
    Uy = np.einsum("rknq,rkn->rkq", U * T[..., None], yc)
    best = np.full(n_t.shape, np.inf)
    coef = np.zeros(lam.shape)
    for a in alphas:  # the first of equal errors, as loo_alpha's argmin
        D = 1.0 / (lam + a)
        fitted = np.einsum("rknq,rkq->rkn", U, D * Uy)
        lev = 1.0 / n_t[..., None] + np.einsum("rknq,rkq->rkn", U * U, D)
        loo = (yc - fitted) / (1.0 - lev)
        err = (T * loo * loo).sum(axis=2) / n_t
        better = err < best
        best = np.where(better, err, best)
        coef = np.where(better[..., None], D * Uy, coef)
    b = np.einsum("rkpq,rkq->rkp", V, coef) / sd  # on the raw features
    beta = np.concatenate([(ybar - (mu * b).sum(axis=2))[..., None], b], axis=2)
    rows = np.arange(yl.shape[0])[:, None]
    own = beta[rows, folds]  # (R, n, p + 1): each label's fold model
    fl = own[..., 0] + np.einsum("rnp,rnp->rn", Fl, own[..., 1:])
    return fl, beta


def package_features(frame: pd.DataFrame, judges: list[str]) -> np.ndarray:
    """The package's model features of the table's judges (no label is used)."""
    data = frame[judges].assign(_label=np.nan, _item=np.arange(len(frame)))
    data.loc[data.index[:2], "_label"] = 0.0, 1.0  # a pool needs labels; features ignore them
    pool = EvalPool.from_frame(
        data, label="_label", judges=judges, item="_item", outcome="continuous"
    )
    return build_features(pool).X
