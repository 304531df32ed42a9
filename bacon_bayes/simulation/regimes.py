"""Seeded, vectorised coverage simulations of the AEE estimators.

A *regime* is a fixed pool (judge scores, labels, groups, inclusion
probabilities) drawn once from a known data-generating process; each of ``R``
replications draws a new label sample from it, cross-fits a ridge surrogate
(vectorised over replications) and computes every estimand with the library's
own estimator functions. Coverage is of the pool's true value (the target is
the pool), so a correct interval covers at its nominal rate, no more, no less.

The vectorised ridge is the same estimator as ``RidgeOutcome(alpha=...)``
under ``cross_fit`` (tested), so these simulations exercise the library path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr

from bacon_bayes import estimate as est
from bacon_bayes.crossfit import make_folds
from bacon_bayes.estimate.core import _t_crit as t_crit
from bacon_bayes.estimate.tables import group_codes

N_ITEMS = 2000
N_LABELED = 200
N_GROUPS = 4
RIDGE_ALPHA = 1.0


@dataclass
class Regime:
    """A fixed pool to draw label samples from."""

    name: str
    X: np.ndarray  # judge features, (N, p)
    y: np.ndarray  # true labels of every item
    groups: np.ndarray  # group code per item
    pi: np.ndarray | None = None  # Poisson inclusion probabilities (None: fixed-size uniform)
    n_labeled: int = N_LABELED
    discrete: bool = False
    description: str = ""
    extra: dict = field(default_factory=dict)


def _judges(rng: np.random.Generator, latent: np.ndarray, kind: str) -> np.ndarray:
    n = latent.size
    if kind == "informative":
        cols = [
            0.5 + 0.9 * latent + rng.normal(0, 0.5, n),
            1.0 + 0.6 * latent + rng.normal(0, 0.7, n),
        ]
        cols.append(-0.3 + 1.2 * latent + rng.normal(0, 1.0, n))
    elif kind == "useless":
        cols = [rng.normal(3, 1, n) for _ in range(3)]
    elif kind == "adversarial":
        cols = [
            5.0 - 0.8 * latent + rng.normal(0, 0.8, n),
            2.0 - 0.5 * latent + rng.normal(0, 1, n),
        ]
        cols.append(rng.normal(4, 1, n))
    else:  # pragma: no cover - programming error
        raise ValueError(kind)
    return np.column_stack(cols)


def make_regime(name: str, seed: int = 0) -> Regime:
    """Build one of the named regimes (see ``REGIMES``)."""
    rng = np.random.default_rng(seed)
    n = N_ITEMS
    groups = rng.integers(0, N_GROUPS, n)
    group_effect = np.array([0.0, 0.3, -0.2, 0.5])[groups]
    latent = rng.normal(0, 1, n) + group_effect
    desc = REGIMES[name]
    judge_kind = {"useless": "useless", "adversarial": "adversarial"}.get(name, "informative")
    X = _judges(rng, latent, judge_kind)
    y = 3.0 + latent + rng.normal(0, 0.6, n)
    if name == "heavy_tailed":
        y = 3.0 + latent + 0.6 * rng.standard_t(3, n)
    elif name == "zero_inflated":
        p_pos = 1 / (1 + np.exp(-(0.3 + 1.2 * latent)))
        y = np.where(rng.random(n) < p_pos, np.exp(0.5 + 0.6 * latent + rng.normal(0, 0.5, n)), 0.0)
    elif name == "ordinal":
        z = latent + rng.logistic(0, 0.6, n)
        y = 1.0 + np.searchsorted([-1.2, -0.3, 0.5, 1.3], z).astype(float)
    pi = None
    n_lab = 30 if name == "labels_30" else N_LABELED
    if name == "unequal_pi":
        # label more where judges disagree with each other (a typical adaptive design)
        spread = np.abs(X[:, 0] - X[:, 1])
        pi = np.clip(0.04 + 0.2 * spread / spread.mean() * 0.5, 0.03, 0.6)
        pi *= N_LABELED / pi.sum()
    return Regime(name, X, y, groups, pi, n_lab, discrete=name == "ordinal", description=desc)


REGIMES: dict[str, str] = {
    "informative": "three judges linear in the latent quality (noise sd 0.5-1.0)",
    "useless": "three judges of pure independent noise",
    "adversarial": "judges biased and negatively correlated with the label",
    "labels_30": "informative judges, only 30 labels",
    "heavy_tailed": "label noise Student-t with 3 df",
    "zero_inflated": "about 40% zeros, lognormal positives",
    "ordinal": "labels on 1..5 from a latent logistic",
    "unequal_pi": "Poisson sampling, inclusion probabilities 0.03-0.6 tied to judge disagreement",
}


# ---------------------------------------------------------------------------
# vectorised sampling and cross-fitted ridge
# ---------------------------------------------------------------------------


def draw_samples(regime: Regime, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Label masks (R, N) and the inclusion probability of every item (R, N)."""
    rng = np.random.default_rng(seed)
    n = regime.y.size
    if regime.pi is None:
        keys = rng.random((reps, n))
        order = np.argsort(keys, axis=1)[:, : regime.n_labeled]
        mask = np.zeros((reps, n), dtype=bool)
        np.put_along_axis(mask, order, True, axis=1)
        pi = np.full((reps, n), regime.n_labeled / n)
    else:
        mask = rng.random((reps, n)) < regime.pi[None, :]
        pi = np.broadcast_to(regime.pi, (reps, n)).copy()
    return mask, pi


def batched_ridge_crossfit(
    X: np.ndarray,
    y: np.ndarray,
    mask: np.ndarray,
    *,
    folds: int = 5,
    seed: int = 0,
    alpha: float = RIDGE_ALPHA,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fold models of a cross-fitted ridge for each replication.

    Same rules as :func:`bacon_bayes.crossfit.cross_fit` with
    ``RidgeOutcome(alpha=alpha)`` (replication ``r`` uses fold seed ``seed + r``):
    fold ``k``'s model standardises on and fits to the labeled items outside
    fold ``k``. Returns every fold model's predictions (R, K, N), the fold ids
    (R, N; -1 unlabeled) and a residual sd per item (R, N), the fold fits' sds
    averaged with equal shares (used only for a Gaussian predictive CDF).
    """
    R, n = mask.shape
    p = X.shape[1]
    fold_ids = np.stack([make_folds(mask[r], folds, seed + r) for r in range(R)])
    preds = np.empty((R, folds, n))
    sd = np.zeros((R, n))
    for k in range(folds):
        train = (mask & (fold_ids != k)).astype(float)
        cnt = train.sum(axis=1, keepdims=True)
        mu = train @ X / cnt
        var = train @ (X**2) / cnt - mu**2
        scale = np.sqrt(np.maximum(var, 1e-12))
        Z = (X[None, :, :] - mu[:, None, :]) / scale[:, None, :]
        ybar = (train * y).sum(axis=1) / cnt[:, 0]
        gram = np.einsum("rn,rnp,rnq->rpq", train, Z, Z) + alpha * np.eye(p)
        rhs = np.einsum("rn,rnp,rn->rp", train, Z, y[None, :] - ybar[:, None])
        beta = np.linalg.solve(gram, rhs[..., None])[..., 0]
        preds[:, k] = ybar[:, None] + np.einsum("rnp,rp->rn", Z, beta)
        resid = np.where(train > 0, y[None, :] - preds[:, k], 0.0)
        s = np.sqrt((resid**2).sum(axis=1) / np.maximum(cnt[:, 0] - p - 1, 1))
        sd += s[:, None] / folds
    return preds, fold_ids, sd


def batched_surrogate(
    preds: np.ndarray,
    fold_ids: np.ndarray,
    weight: np.ndarray | None = None,
    domains: np.ndarray | None = None,
) -> np.ndarray:
    """Surrogate per replication and item, as :meth:`CrossFitResult.surrogate` builds it.

    Labeled items get their out-of-fold prediction; the others the fold models
    averaged with the share of the labels' design weight (``weight``, default 1)
    that each fold holds in the item's domain (default: the pool).
    """
    R, K, n = preds.shape
    w = np.ones((R, n)) if weight is None else weight
    codes = (
        np.zeros(n, dtype=int) if domains is None else np.unique(domains, return_inverse=True)[1]
    )
    m = int(codes.max()) + 1
    lab = fold_ids >= 0
    onehot_fold = (fold_ids[..., None] == np.arange(K)) & lab[..., None]  # (R, N, K)
    onehot_dom = codes[:, None] == np.arange(m)  # (N, m)
    mass = np.einsum("rnk,nd,rn->rdk", onehot_fold, onehot_dom, w)
    total = mass.sum(axis=2, keepdims=True)
    pooled = mass.sum(axis=1, keepdims=True) / total.sum(axis=1, keepdims=True)
    # a domain without labels falls back to the pool's shares (as the library does)
    shares = np.where(total > 0, mass / np.where(total > 0, total, 1.0), pooled)
    avg = np.einsum("rkn,rnk->rn", preds, shares[:, codes, :])
    oof = np.take_along_axis(preds, np.clip(fold_ids, 0, None)[:, None, :], axis=1)[:, 0]
    return np.where(lab, oof, avg)


# ---------------------------------------------------------------------------
# coverage study
# ---------------------------------------------------------------------------


@dataclass
class Draws:
    """Each replication's estimate, interval and truth (arrays ``(R,)`` or ``(R, K)``;
    ``truth`` a number, ``(K,)`` or each replication's ``(R, K)``) and, for a t interval,
    its degrees of freedom (``(R,)`` or ``(R, K)``): what a check of the intervals' width
    against their estimates' spread needs (``tests/interval_checks.py``)."""

    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    truth: np.ndarray
    df: np.ndarray | None = None


@dataclass
class Coverage:
    """Coverage of one estimand in one regime (``draws``: the replications it summarises,
    when the study kept them)."""

    regime: str
    estimand: str
    method: str
    alpha: float
    reps: int
    coverage: float
    mean_width: float
    bias: float
    bias_se: float
    draws: Draws | None = field(default=None, repr=False, compare=False)

    def band(self, z: float = 3.29) -> tuple[float, float]:
        """Binomial band around nominal coverage (``z = 3.29``: two-sided 99.9%)."""
        p = 1 - self.alpha
        half = z * np.sqrt(p * (1 - p) / self.reps)
        return p - half, p + half

    @property
    def in_band(self) -> bool:
        lo, hi = self.band()
        return lo <= self.coverage <= hi


def _summary(
    regime: str, estimand: str, method: str, alpha: float, est_: np.ndarray, lo, hi, truth
) -> Coverage:
    truth = np.asarray(truth)
    cover = (lo <= truth) & (truth <= hi)
    if cover.ndim > 1:  # simultaneous: all components at once
        cover = cover.all(axis=1)
    err = (est_ - truth).reshape(len(lo), -1).mean(axis=1)
    return Coverage(
        regime,
        estimand,
        method,
        alpha,
        len(lo),
        float(cover.mean()),
        float(np.mean(hi - lo)),
        float(err.mean()),
        float(err.std(ddof=1) / np.sqrt(err.size)),
        Draws(np.asarray(est_), np.asarray(lo), np.asarray(hi), truth),
    )


def study(
    regime: Regime,
    *,
    reps: int = 1000,
    alphas: tuple[float, ...] = (0.1, 0.05),
    estimands: tuple[str, ...] = ("mean", "quantile", "groups", "differences"),
    seed: int = 1,
    power_tuning: bool = True,
) -> list[Coverage]:
    """Run ``reps`` label draws on ``regime``; return coverage per estimand, method and alpha."""
    mask, pi = draw_samples(regime, reps, seed)
    preds, fold_ids, sd = batched_ridge_crossfit(regime.X, regime.y, mask, seed=seed)
    f = batched_surrogate(preds, fold_ids, 1.0 / pi)
    f_groups = batched_surrogate(preds, fold_ids, 1.0 / pi, regime.groups)
    # the Hajek variance conditions on the realised sample size (as the library does)
    pi_cond = np.minimum(pi * (mask.sum(axis=1) / pi.sum(axis=1))[:, None], 1.0)
    y = regime.y
    n_items = y.size
    out: list[Coverage] = []
    ysum_masked = np.where(mask, y[None, :], 0.0)
    quantiles = _quantile_cov(regime, mask, pi, f, sd, alphas) if "quantile" in estimands else {}
    for alpha in alphas:
        if "mean" in estimands:
            truth = y.mean()
            for method in ("aee", "classical"):
                ff = f if method == "aee" else np.zeros_like(f)
                theta, var, _, n = est.mean_core(
                    ysum_masked,
                    ff,
                    pi_cond,
                    ff.sum(axis=1),
                    n_items,
                    mask=mask,
                    power_tuning=power_tuning and method == "aee",
                )
                half = t_crit(alpha, n) * np.sqrt(var)
                out.append(
                    _summary(
                        regime.name, "mean", method, alpha, theta, theta - half, theta + half, truth
                    )
                )
        if "quantile" in estimands:
            out.append(quantiles[alpha])
        if "groups" in estimands or "differences" in estimands:
            out.extend(_group_cov(regime, mask, pi, f_groups, alpha, estimands))
    return out


def _quantile_cov(regime, mask, pi, f, sd, alphas) -> dict[float, Coverage]:
    """Median (continuous) or ``P(Y <= 3)`` (ordinal: a discrete quantile's interval is
    conservative by construction, so the CDF value that its estimating equation solves
    is what is checked), at each of ``alphas``: each replication's predictive CDF (the
    costly part) is computed once for all of them."""
    y = regime.y
    reps = mask.shape[0]
    rows: dict[float, tuple[list, list, list]] = {a: ([], [], []) for a in alphas}
    if regime.discrete:
        t = np.array([3.0])
        truth = float(np.mean(y <= 3.0))
        for r in range(reps):
            phi = ndtr((t[None, :] + 0.5 - f[r][:, None]) / sd[r][:, None])
            F, se, n = est.aee_cdf(np.where(mask[r], y, np.nan), phi, t, pi=pi[r])
            for alpha, (ests, los, his) in rows.items():
                h = float(t_crit(alpha, n)) * se[0]
                ests.append(F[0])
                los.append(F[0] - h)
                his.append(F[0] + h)
        name = "cdf(3)"
    else:
        q = 0.5
        truth = float(np.quantile(y, q, method="inverted_cdf"))
        grid = np.unique(np.quantile(y, np.linspace(0.0, 1.0, 301)))
        for r in range(reps):
            phi = ndtr((grid[None, :] - f[r][:, None]) / sd[r][:, None])
            y_r = np.where(mask[r], y, np.nan)
            for alpha, (ests, los, his) in rows.items():
                e = est.aee_quantile(y_r, phi, grid, q, pi=pi[r], alpha=alpha)
                ests.append(e.estimate)
                los.append(e.ci_low)
                his.append(e.ci_high)
        name = "quantile(0.5)"
    return {
        alpha: _summary(regime.name, name, "aee", alpha, *map(np.array, parts), truth)
        for alpha, parts in rows.items()
    }


def _group_cov(regime, mask, pi, f, alpha, estimands) -> list[Coverage]:
    y = regime.y
    names, codes = group_codes(regime.groups)  # the estimators' order of the groups
    truth = np.bincount(codes, weights=y) / np.bincount(codes)
    diffs_truth = np.array(
        [truth[a] - truth[b] for a in range(names.size) for b in range(a + 1, names.size)]
    )
    reps = mask.shape[0]
    rows: dict[str, list] = {k: [] for k in ("g_est", "g_lo", "g_hi", "d_est", "d_lo", "d_hi")}
    for r in range(reps):
        t = est.aee_group_means(
            np.where(mask[r], y, np.nan), f[r], regime.groups, pi=pi[r], alpha=alpha, seed=r
        )
        rows["g_est"].append(t.estimate)
        rows["g_lo"].append(t.ci_low)
        rows["g_hi"].append(t.ci_high)
        if "differences" not in estimands:
            continue  # (their bootstrap is most of a replication's time)
        d = est.compare(t)
        rows["d_est"].append(d.estimate)
        rows["d_lo"].append(d.ci_low)
        rows["d_hi"].append(d.ci_high)
    a = {k: np.array(v) for k, v in rows.items()}
    out = []
    if "groups" in estimands:
        out.append(
            _summary(
                regime.name,
                "groups (simultaneous)",
                "aee",
                alpha,
                a["g_est"],
                a["g_lo"],
                a["g_hi"],
                truth,
            )
        )
    if "differences" in estimands:
        out.append(
            _summary(
                regime.name,
                "differences (simultaneous)",
                "aee",
                alpha,
                a["d_est"],
                a["d_lo"],
                a["d_hi"],
                diffs_truth,
            )
        )
    return out


def coverage_table(results: list[Coverage]) -> str:
    """Markdown table of coverage results with the binomial band and a verdict."""
    lines = [
        "| regime | estimand | method | alpha | reps | coverage | band | mean width "
        "| bias (se) | ok |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in results:
        lo, hi = c.band()
        lines.append(
            f"| {c.regime} | {c.estimand} | {c.method} | {c.alpha:g} | {c.reps} "
            f"| {c.coverage:.3f} | "
            f"{lo:.3f}-{hi:.3f} | {c.mean_width:.4f} | {c.bias:+.4f} ({c.bias_se:.4f}) | "
            f"{'yes' if c.in_band else 'NO'} |"
        )
    return "\n".join(lines)


StudyFn = Callable[..., list[Coverage]]
