"""Shared machinery of the collapsed Bayesian judge models.

Every family shares the measurement model of the judges (see
:mod:`bacon_bayes.bayes.closed_forms`): on standardised judge scores,
``l_ij = a_j + c_j z_i + e_ij``, ``e_ij ~ N(0, s_ij^2)``,
``s_ij = s_j exp(g' u_ij)`` (u: the judge's own uncertainty features),
``z_i ~ N(mu_i, 1)`` with ``mu_i = q_i' theta`` (q: QR-decomposed, centred
embedding; the latent's location and scale are fixed so the judges alone
identify their offsets and scales on it, and each family's label link carries
the human scale) and centred hierarchical priors across judges on the
reliability terms::

    a_j ~ N(0, 1),  log c_j ~ N(m_c, t_c),  log s_j ~ N(m_s, t_s),
    t_c, t_s ~ Gamma(2, 2 / prior mean)  (zero-avoiding: few judges).

Each judge's scores are standardised over all items before fitting, which makes
every offset about 0: a hierarchy on the offsets would then collapse its scale
to 0 and create a funnel (measured: divergences, R-hat 1.1), so the offsets get
independent priors. Centred (not non-centred) judge terms: thousands of items per
judge dominate their prior (the non-centred version hit the maximum tree depth).

z is integrated out analytically, so no per-item parameter is sampled. All items
contribute their judge scores; items whose label is in the training set add the
family's likelihood of the label given the judges (a 0/1 data mask, so one
compiled model serves every cross-fitting fold).
"""

from __future__ import annotations

import copy
import uuid
from typing import Any, ClassVar

import numpy as np

from bacon_bayes.bayes import _backend

_backend.configure_pytensor()

from bacon_bayes.bayes.closed_forms import collapse_judges  # noqa: E402
from bacon_bayes.bayes.columns import ColumnSpec, Design  # noqa: E402
from bacon_bayes.bayes.diagnostics import Diagnostics, check_convergence  # noqa: E402
from bacon_bayes.bayes.sampling import compile_sampler  # noqa: E402
from bacon_bayes.errors import NotFittedError, ValidationError  # noqa: E402

__all__ = ["JUDGE_PRIORS", "JudgeModel"]

#: Priors of the judge measurement part, on standardised judge scores (each
#: judge centred and scaled over all items) and the family's latent scale.
JUDGE_PRIORS: dict[str, float] = {
    "offset_sd": 1.0,  # a_j ~ N(0, .)
    "log_scale_mu": -0.5,  # m_c ~ N(., log_scale_mu_sd)
    "log_scale_mu_sd": 1.0,
    "log_scale_sd": 0.3,  # t_c ~ Gamma(2, 2 / .)  (prior mean .)
    "log_noise_mu": -0.5,  # m_s ~ N(., log_noise_mu_sd)
    "log_noise_mu_sd": 1.0,
    "log_noise_sd": 0.3,  # t_s ~ Gamma(2, 2 / .)
    "uncertainty_sd": 0.5,  # g_k ~ N(0, .)
    "embedding_sd": 0.5,  # theta_k ~ N(0, .) on QR components with unit variance
}

#: Sampler settings (overridable per model).
SAMPLER_DEFAULTS: dict[str, Any] = {
    "sampler": "auto",
    "draws": 1500,
    "tune": 300,
    "chains": 2,
    "target_accept": 0.8,
    "low_rank": True,
}


class JudgeModel:
    """Base class: scikit-learn-style estimator over a feature matrix.

    Parameters
    ----------
    columns : which columns of X hold judge scores, missing flags, uncertainty
        features and embedding components (:class:`ColumnSpec`).
    priors : overrides of :data:`JUDGE_PRIORS` and the family's own priors.
    sampler : ``"auto"`` (default: nutpie on JAX when installed, else on numba),
        ``"nutpie"``, ``"nutpie-jax"``, ``"pymc"`` or ``"numpyro"``.
    draws, tune, chains, target_accept : NUTS settings.
    low_rank : adapt a low-rank-modified mass matrix (nutpie only; faster mixing).
    seed : random seed.
    predict_draws : posterior draws used for predictions (evenly thinned).
    warn : warn (``ConvergenceWarning``) after a fit that did not converge.
    """

    semi_supervised: ClassVar[bool] = True
    family: ClassVar[str] = ""
    family_priors: ClassVar[dict[str, float]] = {}

    def __init__(
        self,
        columns: ColumnSpec,
        *,
        priors: dict[str, float] | None = None,
        sampler: str = SAMPLER_DEFAULTS["sampler"],
        draws: int = SAMPLER_DEFAULTS["draws"],
        tune: int = SAMPLER_DEFAULTS["tune"],
        chains: int = SAMPLER_DEFAULTS["chains"],
        target_accept: float = SAMPLER_DEFAULTS["target_accept"],
        low_rank: bool = SAMPLER_DEFAULTS["low_rank"],
        seed: int = 0,
        predict_draws: int = 500,
        warn: bool = True,
    ) -> None:
        self.columns = columns
        self.priors = priors
        self.sampler = sampler
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.target_accept = target_accept
        self.low_rank = low_rank
        self.seed = seed
        self.predict_draws = predict_draws
        self.warn = warn

    # ----------------------------------------------------------------- config
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        names = (
            "columns priors sampler draws tune chains target_accept low_rank seed "
            "predict_draws warn"
        ).split()
        return {n: getattr(self, n) for n in names}

    def resolved_priors(self) -> dict[str, float]:
        """Default priors updated with the user's overrides (unknown names rejected)."""
        out = {**JUDGE_PRIORS, **self.family_priors}
        for key, val in (self.priors or {}).items():
            if key not in out:
                raise ValidationError(
                    f"unknown prior {key!r} for the {self.family} model; known: {sorted(out)}"
                )
            out[key] = float(val)
        return out

    # ---------------------------------------------------------- family hooks
    def _prepare_labels(self, y: np.ndarray) -> None:
        """Learn label-independent outcome facts (levels) from the labels given."""

    def _label_data(self, y: np.ndarray, train: np.ndarray) -> tuple[dict, dict]:
        """Data containers for labels (``yk``, ``w``) and fit constants for this fit."""
        raise NotImplementedError

    def _label_logp(self, pm: Any, pt: Any, m: Any, v: Any, yk: Any, pr: dict) -> Any:
        """Per-item log p(label | judges) as a model term."""
        raise NotImplementedError

    def _moments(self, post: dict, const: dict, m: np.ndarray, v: np.ndarray):
        """Per-draw E[Y|x] and Var(Y|x) on the human scale, each (d, n)."""
        raise NotImplementedError

    def _cdf(self, post: dict, const: dict, m: np.ndarray, v: np.ndarray, t: np.ndarray):
        """Per-draw P(Y <= t_k | x), (d, n, len(t))."""
        raise NotImplementedError

    # ------------------------------------------------------------- the model
    def _build_model(self, arrays: dict[str, np.ndarray], labels: dict[str, np.ndarray]):
        import pymc as pm
        import pytensor.tensor as pt

        pr = self.resolved_priors()
        K = arrays["U"].shape[2]
        coords = {"judge": list(self.columns.judges), "unc": list(self.columns.unc_kinds)}
        coords["emb"] = [f"q{k + 1}" for k in range(arrays["Q"].shape[1])]
        with pm.Model(coords=coords) as model:
            L = pm.Data("L", arrays["L"])
            obs = pm.Data("obs", arrays["obs"])
            U = pm.Data("U", arrays["U"])
            Q = pm.Data("Q", arrays["Q"])
            idx = pm.Data("label_rows", labels["label_rows"])
            yk = pm.Data("yk", labels["yk"])
            w = pm.Data("w", labels["w"])
            a = pm.Normal("offset", 0.0, pr["offset_sd"], dims="judge")
            m_c = pm.Normal("log_scale_mu", pr["log_scale_mu"], pr["log_scale_mu_sd"])
            t_c = pm.Gamma("log_scale_sd", 2.0, 2.0 / pr["log_scale_sd"])
            log_c = pm.Normal("log_scale", m_c, t_c, dims="judge")
            m_s = pm.Normal("log_noise_mu", pr["log_noise_mu"], pr["log_noise_mu_sd"])
            t_s = pm.Gamma("log_noise_sd", 2.0, 2.0 / pr["log_noise_sd"])
            log_s = pm.Normal("log_noise", m_s, t_s, dims="judge")
            log_sd = log_s
            if K:
                g = pm.Normal("uncertainty", 0.0, pr["uncertainty_sd"], dims="unc")
                log_sd = log_sd + pt.tensordot(U, g, axes=[[2], [0]])
            mu = pt.zeros((Q.shape[0],))
            if arrays["Q"].shape[1]:
                theta = pm.Normal("theta", 0.0, pr["embedding_sd"], dims="emb")
                mu = pt.dot(Q, theta)
            logp_j, m, v = collapse_judges(L, obs, a, pt.exp(log_c), log_sd, mu, 1.0, xp=pt)
            pm.Potential("judges", pt.sum(logp_j))
            label_logp = self._label_logp(pm, pt, m[idx], v[idx], yk, pr)
            pm.Potential("labels", pt.sum(w * label_logp))
        return model

    # ------------------------------------------------------------------- fit
    def _check_y(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        y = np.asarray(y, dtype=float).ravel()
        if y.shape[0] != np.shape(X)[0]:
            raise ValidationError(
                f"y has {y.shape[0]} values but X has {np.shape(X)[0]} rows; pass one "
                "label (NaN = unlabeled) per row of X"
            )
        if np.isinf(y).any():
            raise ValidationError(
                f"y has an infinite value at row {np.flatnonzero(np.isinf(y))[0]}"
            )
        return y

    def _setup(self, X: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
        self.design_ = Design(self.columns).fit(X)
        arrays = self.design_.transform(X)
        self._prepare_labels(y[np.isfinite(y)])
        return arrays

    def _compile(self, arrays: dict, labels: dict):
        """Compiled sampler for data of these shapes. A hook: every fit sets all data
        containers, so a subclass may return one compiled earlier (simulation studies)."""
        return compile_sampler(self._build_model(arrays, labels), self.sampler)

    @staticmethod
    def _restrict(labels: dict, rows: np.ndarray) -> dict:
        """Label data on ``rows`` only (the items labeled in any fold): the label
        likelihood then costs O(labeled) and its shape is the same for every fold."""
        return {"label_rows": rows, **{k: np.asarray(v)[rows] for k, v in labels.items()}}

    def _sample(self, compiled, labels: dict, seed: int) -> tuple[Any, Diagnostics]:
        idata, secs = compiled.run(
            labels,
            draws=self.draws,
            tune=self.tune,
            chains=self.chains,
            seed=seed,
            target_accept=self.target_accept,
            low_rank=self.low_rank,
        )
        diag = check_convergence(idata, sampler=compiled.engine, seconds=secs, warn=self.warn)
        return idata, diag

    def _finish(self, idata: Any, diag: Diagnostics, const: dict) -> JudgeModel:
        self.idata_ = idata
        self.diagnostics_ = diag
        self.constants_ = const
        self.posterior_ = _thin(idata.posterior, self.predict_draws)
        self.fit_id_ = uuid.uuid4().hex
        return self

    def fit(self, X: np.ndarray, y: np.ndarray) -> JudgeModel:
        """Fit on all rows of X; labels y (NaN = not in the training set)."""
        y = self._check_y(X, y)
        train = np.isfinite(y)
        if train.sum() < 2:
            raise ValidationError("need at least 2 labeled items to fit a judge model")
        arrays = self._setup(X, y)
        labels, const = self._label_data(y, train)
        labels = self._restrict(labels, np.flatnonzero(train))
        compiled = self._compile(arrays, labels)
        idata, diag = self._sample(compiled, _data(arrays, labels), self.seed)
        return self._finish(idata, diag, const)

    def fit_folds(
        self, X: np.ndarray, y: np.ndarray, fold_ids: np.ndarray, n_folds: int
    ) -> list[JudgeModel]:
        """Fit fold k on every labeled item outside fold k, compiling the model once.

        ``fold_ids`` is -1 for unlabeled items; all items' judge scores count in
        every fold. Returns one fitted copy of this model per fold.
        """
        y = self._check_y(X, y)
        fold_ids = np.asarray(fold_ids).ravel()
        if fold_ids.shape != y.shape:
            raise ValidationError("fold_ids must have one entry per row of X")
        labeled = np.isfinite(y)
        if np.any((fold_ids >= 0) != labeled):
            raise ValidationError(
                "fold_ids must be -1 exactly where y is NaN (unlabeled) and a fold "
                "number 0..n_folds-1 where y is labeled"
            )
        arrays = self._setup(X, y)
        fits = []
        compiled = None
        for k in range(n_folds):
            train = labeled & (fold_ids != k)
            labels, const = self._label_data(np.where(train, y, np.nan), train)
            labels = self._restrict(labels, np.flatnonzero(labeled))
            if compiled is None:
                compiled = self._compile(arrays, labels)
            idata, diag = self._sample(compiled, _data(arrays, labels), self.seed + k)
            fits.append(copy.copy(self)._finish(idata, diag, const))
        return fits

    # -------------------------------------------------------------- predict
    def _check_fitted(self) -> None:
        if not hasattr(self, "posterior_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted; call fit first")

    def _collapsed(self, X: np.ndarray, post: dict) -> tuple[np.ndarray, np.ndarray]:
        arr = self.design_.transform(X)
        Q = arr["Q"]
        mu = post["theta"] @ Q.T if "theta" in post else np.zeros((1, Q.shape[0]))
        log_sd = post["log_noise"][:, None, :]
        if arr["U"].shape[2]:
            log_sd = log_sd + np.einsum("njk,dk->dnj", arr["U"], post["uncertainty"])
        _, m, v = collapse_judges(
            arr["L"][None],
            arr["obs"][None],
            post["offset"][:, None, :],
            np.exp(post["log_scale"])[:, None, :],
            log_sd,
            mu,
            1.0,
        )
        return m, v

    def _chunks(self, n_draws: int, n_items: int, width: int = 0):
        """Draw slices whose (draws, items, max(judges, width)) arrays hold ~4e6 numbers."""
        size = max(1, int(4e6 // max(n_items * max(self.columns.n_judges, width), 1)))
        for start in range(0, n_draws, size):
            yield slice(start, min(start + size, n_draws))

    def _per_draw(self, X: np.ndarray, fn, width: int = 0) -> list:
        self._check_fitted()
        X = np.asarray(X, dtype=float)
        n_draws = next(iter(self.posterior_.values())).shape[0]
        out = []
        for sl in self._chunks(n_draws, X.shape[0], width):
            post = {k: v[sl] for k, v in self.posterior_.items()}
            m, v = self._collapsed(X, post)
            out.append(fn(post, m, v))
        return out

    def predict_moments(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean of E[Y|x] and posterior predictive Var(Y|x) (total variance)."""
        parts = self._per_draw(X, lambda p, m, v: self._moments(p, self.constants_, m, v))
        mean_d = np.concatenate([p[0] for p in parts])
        var_d = np.concatenate([p[1] for p in parts])
        mean = mean_d.mean(axis=0)
        return mean, var_d.mean(axis=0) + mean_d.var(axis=0)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Posterior mean over draws of E[Y | judges, embedding] for each row."""
        return self.predict_moments(X)[0]

    def predict_var(self, X: np.ndarray) -> np.ndarray:
        """Posterior predictive variance of Y for each row (law of total variance)."""
        return self.predict_moments(X)[1]

    def predict_cdf(self, X: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Posterior predictive P(Y <= t_k | x_i), shape (n, len(t))."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        total = np.zeros((np.shape(X)[0], t.size))

        def add(p, m, v) -> None:  # accumulate: one (n, len(t)) array whatever the chunking
            np.add(total, self._cdf(p, self.constants_, m, v, t).sum(0), out=total)

        self._per_draw(X, add, width=t.size)
        n_draws = next(iter(self.posterior_.values())).shape[0]
        return np.clip(total / n_draws, 0.0, 1.0)


def _data(arrays: dict, labels: dict) -> dict:
    """Every data container's values (empty ones, e.g. no embedding, are not in the graph)."""
    return {**{k: v for k, v in arrays.items() if np.size(v)}, **labels}


def _thin(posterior: Any, n: int) -> dict[str, np.ndarray]:
    """Posterior as {name: (draws, ...)} over chains, evenly thinned to at most n draws."""
    out = {}
    for name, da in posterior.data_vars.items():
        arr = np.asarray(da.values)
        arr = arr.reshape(-1, *arr.shape[2:])
        if arr.shape[0] > n:
            idx = np.linspace(0, arr.shape[0] - 1, n).round().astype(int)
            arr = arr[idx]
        out[str(name)] = arr
    return out
