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

Two ways to fit (``inference=``):

* ``"cut"`` (default for these families): modular ("cut") Bayesian inference
  (Plummer 2015; Jacob et al. 2017). Stage 1 samples the measurement model from
  every item's judge scores alone (no label), once per calibrator: it is the same
  for every cross-fitting fold, so it cannot leak a fold's labels. Stage 2 samples
  the family's label link (cutpoints, label noise, ...) from the training labels
  given z's posterior from stage 1, summarised per labeled item by its mean and
  total variance over stage-1 draws (``m_bar``, ``v_bar + Var(m)``; the mixture of
  normals over draws is nearly normal with thousands of items per judge). The
  labels therefore do not feed back into the judge terms; the posterior is the
  product of the two stages' posteriors, draws paired by chain and draw index.
  Stage 2 has a handful of parameters and costs O(labeled items) per gradient,
  so each fold costs a second or two instead of a full fit.
* ``"joint"``: one posterior of all parameters given judges and labels (each fold
  a full NUTS fit).
"""

from __future__ import annotations

import copy
import hashlib
import uuid
from typing import Any, ClassVar

import numpy as np

from bacon_bayes.bayes import _backend

_backend.configure_pytensor()

from bacon_bayes.bayes.closed_forms import collapse_judges, latent_posterior  # noqa: E402
from bacon_bayes.bayes.columns import ColumnSpec, Design  # noqa: E402
from bacon_bayes.bayes.diagnostics import (  # noqa: E402
    Diagnostics,
    check_convergence,
    merge_diagnostics,
)
from bacon_bayes.bayes.judge_density import (  # noqa: E402
    judges_density,
    judges_grad_density,
)
from bacon_bayes.bayes.nuts import compile_sampler  # noqa: E402
from bacon_bayes.bayes.selection import consensus, prefers_judge_weights  # noqa: E402
from bacon_bayes.errors import NotFittedError, ValidationError  # noqa: E402

__all__ = ["INFERENCE", "JUDGE_PRIORS", "JudgeModel"]

#: How a model is fitted: ``"auto"`` = ``"cut"`` where the family supports it.
INFERENCE = ("auto", "cut", "joint")

#: Stage-1 posterior draws used to summarise z per labeled item for stage 2.
CUT_SUMMARY_DRAWS = 1000

#: Largest per-draw latent moments (numbers) the fold models of a cut fit share
#: between predictions of the same Xs (their stage-1 draws are the same): 32e6
#: numbers = 256 MB, enough for a WMT22-size cross-fit (27,000 unlabeled items x 500
#: draws x 2 moments; at the earlier 10e6 each of its five folds recomputed them).
LATENT_CACHE_SIZE = 32_000_000

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
    "judge_weight_sd": 0.5,  # d_j ~ N(0, .): label link's weight on standardised judge j
}

#: From how many judge scores (items x judges) the judge stage samples its log density
#: in numba with the gradient by hand (:func:`~bacon_bayes.bayes.judge_density.
#: judges_grad_density`) instead of the JAX one (:func:`~bacon_bayes.bayes.
#: judge_density.judges_density`). Measured (stage 1 alone, 2 chains, interleaved, load
#: 4-6): 30,000 items x 10 judges with an uncertainty feature each, numba 84-94 s vs JAX
#: 151-162 s; 5,000 x 8 with a 32-component embedding, numba 40 s vs JAX 33-40 s.
NUMBA_JUDGE_SCORES = 100_000

#: Sampler settings (overridable per model).
SAMPLER_DEFAULTS: dict[str, Any] = {
    "sampler": "auto",
    "draws": 1500,
    "tune": 300,
    "chains": 2,
    "target_accept": 0.8,
    "low_rank": True,
    "label_draws": 1000,
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
    inference : ``"cut"`` (two-stage modular fit, see the module docstring),
        ``"joint"`` (one posterior of everything) or ``"auto"`` (cut where the family
        supports it, else joint).
    judge_weights : let the label link also weigh the judges' scores itself: each part
        of the link (``judge_weight_names``: one, or the hurdle's zero and positive
        parts) adds ``r_i' d`` with ``r_i`` the item's standardised judge scores along
        their principal directions (:func:`~bacon_bayes.bayes.columns.judge_basis`)
        and weights ``d`` learnt from the labels (prior ``judge_weight_sd``). The
        latent factor weighs the judges by their agreement; the labels may know better.
        Families whose link has a slope on z leave out the first principal direction
        (the slope already scales the consensus; weighing it again made a ridge that
        did not converge: R-hat 1.84 on WMT22). ``"auto"`` (the default) turns them on
        per fit (per cross-fitting fold, from its training labels) where a linear
        regression on all directions predicts the labels better out of sample than
        one on the consensus alone
        (:func:`~bacon_bayes.bayes.selection.prefers_judge_weights`); the choice is
        kept in ``constants_["judge_weights"]``.
    label_draws : draws per chain of a cut fit's label stage (at most ``draws``; stage 2
        is cheap and mixes fast; its R-hat and ESS are checked like stage 1's).
    """

    semi_supervised: ClassVar[bool] = True
    supports_cut: ClassVar[bool] = True
    family: ClassVar[str] = ""
    family_priors: ClassVar[dict[str, float]] = {}
    #: The label link's judge-weight parameters (``judge_weights=True``), one per part
    #: of the link; the family hooks get their terms ``r @ d`` as ``off`` in this order.
    judge_weight_names: ClassVar[tuple[str, ...]] = ("judge_weight",)
    #: Whether the label link has its own slope on z (then the judge weights leave out
    #: the judges' first principal direction, which the slope already scales).
    link_has_slope: ClassVar[bool] = True

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
        inference: str = "auto",
        label_draws: int = SAMPLER_DEFAULTS["label_draws"],
        judge_weights: bool | str = "auto",
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
        self.inference = inference
        self.label_draws = label_draws
        self.judge_weights = judge_weights

    # ----------------------------------------------------------------- config
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        names = (
            "columns priors sampler draws tune chains target_accept low_rank seed "
            "predict_draws warn inference label_draws judge_weights"
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

    def _label_data(
        self, y: np.ndarray, train: np.ndarray, scores: np.ndarray | None = None
    ) -> tuple[dict, dict]:
        """Data containers for labels (``yk``, ``w``) and fit constants for this fit.

        ``scores``: the items' standardised judge scores (0 where missing) beside their
        observed flags, (n, 2J), for families that choose a transform from the data."""
        raise NotImplementedError

    def _label_logp(
        self,
        pm: Any,
        pt: Any,
        m: Any,
        v: Any,
        yk: Any,
        pr: dict,
        folds: int | None = None,
        q: Any = None,
        off: tuple | None = None,
    ) -> Any:
        """Per-item log p(label | judges) as a model term, (n,); with ``folds``, one
        parameter block per fold (see :func:`fold_shape`) and ``yk`` of shape (folds, n),
        returning (folds, n). ``q``: the items' QR embedding rows, (n, E) or
        (folds, n, E), given only when :meth:`_label_uses_embedding` is true. ``off``:
        the judge-weight terms (one per name in ``judge_weight_names``, each shaped
        like ``m``) to add to the link's parts, or None."""
        raise NotImplementedError

    def _label_uses_embedding(self) -> bool:
        """Whether the label link reads the items' embedding (``q`` of the hooks)."""
        return False

    def _moments(self, post: dict, const: dict, m: np.ndarray, v: np.ndarray, q=None, off=None):
        """Per-draw E[Y|x] and Var(Y|x) on the human scale, each (d, n); ``q`` (n, E):
        the items' QR embedding rows (families whose label link does not read it
        ignore it); ``off``: the judge-weight terms, each (d, n), or None."""
        raise NotImplementedError

    def _cdf(
        self, post: dict, const: dict, m: np.ndarray, v: np.ndarray, t: np.ndarray, q=None, off=None
    ):
        """Per-draw P(Y <= t_k | x), (d, n, len(t)); ``q``, ``off`` as in :meth:`_moments`."""
        raise NotImplementedError

    # ------------------------------------------------------------- the model
    def _coords(self, arrays: dict[str, np.ndarray]) -> dict[str, list[str]]:
        return {
            "judge": list(self.columns.judges),
            "unc": list(self.columns.unc_kinds),
            "emb": [f"q{k + 1}" for k in range(arrays["Q"].shape[1])],
        }

    def _judge_terms(self, pm: Any, pt: Any, arrays: dict, pr: dict) -> tuple[Any, Any]:
        """Add the measurement model to the current PyMC model; return z's posterior (m, v)."""
        L = pm.Data("L", arrays["L"])
        obs = pm.Data("obs", arrays["obs"])
        U = pm.Data("U", arrays["U"])
        Q = pm.Data("Q", arrays["Q"])
        a = pm.Normal("offset", 0.0, pr["offset_sd"], dims="judge")
        m_c = pm.Normal("log_scale_mu", pr["log_scale_mu"], pr["log_scale_mu_sd"])
        t_c = pm.Gamma("log_scale_sd", 2.0, 2.0 / pr["log_scale_sd"])
        log_c = pm.Normal("log_scale", m_c, t_c, dims="judge")
        m_s = pm.Normal("log_noise_mu", pr["log_noise_mu"], pr["log_noise_mu_sd"])
        t_s = pm.Gamma("log_noise_sd", 2.0, 2.0 / pr["log_noise_sd"])
        log_sd = pm.Normal("log_noise", m_s, t_s, dims="judge")
        if arrays["U"].shape[2]:
            g = pm.Normal("uncertainty", 0.0, pr["uncertainty_sd"], dims="unc")
            log_sd = log_sd + pt.sum(U * g, axis=2)
        mu = pt.zeros((Q.shape[0],))
        if arrays["Q"].shape[1]:
            theta = pm.Normal("theta", 0.0, pr["embedding_sd"], dims="emb")
            mu = pt.dot(Q, theta)
        logp_j, m, v = collapse_judges(L, obs, a, pt.exp(log_c), log_sd, mu, 1.0, xp=pt)
        pm.Potential("judges", pt.sum(logp_j))
        return m, v

    def _judge_offsets(self, pm: Any, pt: Any, r: Any, pr: dict, shape: tuple = ()) -> tuple:
        """The judge-weight terms ``r @ d_p`` of the link's parts: ``r`` (n, K) with
        ``shape=()`` or (folds, n, K) with ``shape=(folds,)``; one (..., K) weight vector
        ``d_p ~ N(0, judge_weight_sd)`` per name in ``judge_weight_names``."""
        K = self._weight_basis().shape[1]
        out = []
        for name in self.judge_weight_names:
            d = pm.Normal(name, 0.0, pr["judge_weight_sd"], shape=(*shape, K))
            out.append(pt.sum(r * pt.expand_dims(d, -2), axis=-1))
        return tuple(out)

    def _build_model(self, arrays: dict[str, np.ndarray], labels: dict[str, np.ndarray]):
        """The joint model: judges and training labels (``inference="joint"``)."""
        import pymc as pm
        import pytensor.tensor as pt

        pr = self.resolved_priors()
        with pm.Model(coords=self._coords(arrays)) as model:
            m, v = self._judge_terms(pm, pt, arrays, pr)
            idx = pm.Data("label_rows", labels["label_rows"])
            yk = pm.Data("yk", labels["yk"])
            w = pm.Data("w", labels["w"])
            off = None
            if "r" in labels:
                off = self._judge_offsets(pm, pt, pm.Data("r", labels["r"]), pr)
            q = model["Q"][idx] if self._label_uses_embedding() else None
            label_logp = self._label_logp(pm, pt, m[idx], v[idx], yk, pr, q=q, off=off)
            pm.Potential("labels", pt.sum(w * label_logp))
        return model

    def _build_judges_model(self, arrays: dict[str, np.ndarray], labels: dict) -> Any:
        """Stage 1 of the cut fit: the measurement model of every item's judge scores."""
        import pymc as pm
        import pytensor.tensor as pt

        with pm.Model(coords=self._coords(arrays)) as model:
            self._judge_terms(pm, pt, arrays, self.resolved_priors())
        return model

    def _build_label_model(self, arrays: dict, labels: dict[str, np.ndarray]) -> Any:
        """Stage 2 of the cut fit: the label link given z ~ N(m, v) per labeled item,
        one independent block of parameters per fold (``yk`` and ``w`` are (folds, n);
        ``q``, when the link reads the embedding, (folds, n, E); ``r``, with judge
        weights, the judge scores along the weights' directions (folds, n, K))."""
        import pymc as pm
        import pytensor.tensor as pt

        n_folds = np.shape(labels["w"])[0]
        pr = self.resolved_priors()
        with pm.Model() as model:
            m = pm.Data("m", labels["m"])
            v = pm.Data("v", labels["v"])
            yk = pm.Data("yk", labels["yk"])
            w = pm.Data("w", labels["w"])
            off = None
            if "r" in labels:
                off = self._judge_offsets(pm, pt, pm.Data("r", labels["r"]), pr, (n_folds,))
            q = pm.Data("q", labels["q"]) if "q" in labels else None
            label_logp = self._label_logp(pm, pt, m, v, yk, pr, n_folds, q=q, off=off)
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

    def _judge_weights(self) -> bool:
        """Whether the label link may weigh the judge scores (along any direction);
        with ``judge_weights="auto"`` each fit then decides (:meth:`_weights_pay`)."""
        if self.judge_weights not in (True, False, "auto"):
            raise ValidationError(
                f"judge_weights must be True, False or 'auto', got {self.judge_weights!r}"
            )
        return bool(self.judge_weights) and self._weight_basis().shape[1] > 0

    def _weight_basis(self) -> np.ndarray:
        """Directions of the standardised judge scores the judge weights act on (J, K)."""
        basis = self.design_.judge_basis
        return basis[:, :-1] if self.link_has_slope else basis

    def _inference(self) -> str:
        if self.inference not in INFERENCE:
            raise ValidationError(f"inference must be one of {INFERENCE}, got {self.inference!r}")
        if self.inference == "auto":
            return "cut" if self.supports_cut else "joint"
        if self.inference == "cut" and not self.supports_cut:
            raise ValidationError(
                f"the {self.family} model has no cut (two-stage) fit; use inference='joint'"
            )
        return self.inference

    def _compile(self, kind: str, arrays: dict, labels: dict):
        """Compiled sampler of the ``kind`` model (``"joint"``, ``"judges"`` or
        ``"labels"``) for data of these shapes. A hook: every fit sets all data
        containers, so a subclass may return one compiled earlier (simulation studies).

        On nutpie-jax the judge stage samples its log density written out by hand
        (:mod:`bacon_bayes.bayes.judge_density`, in numba from
        :data:`NUMBA_JUDGE_SCORES` judge scores on, else in JAX; unless a
        subclass changes that model; measured: about 0.55 times the time per gradient
        of PyTensor's translation in JAX, and numba with its hand-written gradient
        about half that again at WMT22 size, BENCHMARKS.md), and the label stage of
        the families written in :mod:`bacon_bayes.bayes.label_density` its JAX one."""
        build = {
            "joint": self._build_model,
            "judges": self._build_judges_model,
            "labels": self._build_label_model,
        }[kind]
        density = None
        hooks = ("_judge_terms", "_build_judges_model")  # the model the density writes out
        if kind == "judges" and all(
            getattr(type(self), h) is getattr(JudgeModel, h) for h in hooks
        ):
            big = np.size(arrays["L"]) >= NUMBA_JUDGE_SCORES
            density = (judges_grad_density if big else judges_density)(self.resolved_priors())
        elif kind == "labels":
            density = self._label_density()
        return compile_sampler(build(arrays, labels), self.sampler, density=density)

    def _label_density(self) -> Any:
        """The JAX log density of the label stage, or None (PyTensor's translation): the
        family's own (:meth:`_family_label_density`) unless a subclass changed the
        stage-2 model or its judge-weight terms."""
        fixed = ("_build_label_model", "_judge_offsets")
        if any(getattr(type(self), h) is not getattr(JudgeModel, h) for h in fixed):
            return None
        return self._family_label_density()

    def _family_label_density(self) -> Any:
        """The family's label-stage log density written in JAX
        (:mod:`bacon_bayes.bayes.label_density`), or None where it has none."""
        return None

    @staticmethod
    def _restrict(labels: dict, rows: np.ndarray) -> dict:
        """Label data on ``rows`` only (the items labeled in any fold): the label
        likelihood then costs O(labeled) and its shape is the same for every fold."""
        return {"label_rows": rows, **{k: np.asarray(v)[rows] for k, v in labels.items()}}

    def _sample(
        self, compiled, data: dict, seed: int, draws: int | None = None
    ) -> tuple[Any, float]:
        return compiled.run(
            data,
            draws=self.draws if draws is None else draws,
            tune=self.tune,
            chains=self.chains,
            seed=seed,
            target_accept=self.target_accept,
            low_rank=self.low_rank,
        )

    def _latent_summary(self, arrays: dict, posterior: Any, rows: np.ndarray) -> dict:
        """Per labeled item, z's mean and total variance over stage-1 draws (``m``, ``v``),
        each draw first mapped onto the common latent scale (see :meth:`_latent_alignment`):
        ``m = mean_d z_d``, ``v = mean_d v_d / stretch_d^2 + var_d z_d`` with
        ``z_d = (m_d - shift_d) / stretch_d``."""
        post = _thin(posterior, CUT_SUMMARY_DRAWS)
        m, v = self._latent_draws(arrays, post, rows)
        shift, stretch = _line_fits(m, m.mean(axis=0))
        aligned = (m - shift[:, None]) / stretch[:, None]
        scaled = v / stretch[:, None] ** 2
        return {"m": aligned.mean(axis=0), "v": scaled.mean(axis=0) + aligned.var(axis=0)}

    def _latent_draws(self, arrays: dict, post: dict, rows: np.ndarray):
        """Per-draw (m, v) of z on ``rows``, each (draws, rows)."""
        sub = {k: v[rows] for k, v in arrays.items()}
        n_draws = next(iter(post.values())).shape[0]
        parts = [
            self._collapse_arrays(sub, {k: val[sl] for k, val in post.items()})
            for sl in self._chunks(n_draws, rows.size)
        ]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def _judges_key(self, arrays: dict) -> str:
        """Hash of what stage 1 depends on: the design arrays, the judge priors and the
        sampler settings (labels and the label stage's settings do not enter)."""
        h = hashlib.blake2b(digest_size=16)
        for name in sorted(arrays):
            arr = np.ascontiguousarray(arrays[name], dtype=float)
            h.update(f"{name}{arr.shape}".encode())
            h.update(arr.tobytes())
        pr = self.resolved_priors()
        settings = (
            type(self).__name__,
            sorted((k, pr[k]) for k in JUDGE_PRIORS),
            self.sampler, self.draws, self.tune, self.chains, self.seed,
            self.target_accept, self.low_rank,
        )  # fmt: skip
        h.update(repr(settings).encode())
        return h.hexdigest()

    def _fit_judges(self, arrays: dict) -> tuple[Any, Diagnostics]:
        """Stage 1 of the cut fit (label-free; shared by every fold): posterior and
        convergence diagnostics.

        The result is kept on the instance (the last one only, keyed by
        :meth:`_judges_key`): refitting the same model on the same X with other labels
        (another pilot, another trial of a simulation study) skips stage 1 and reports
        the same diagnostics (seconds included) as the fit that sampled it.
        """
        key = self._judges_key(arrays)
        kept = self.__dict__.get("_judges_kept_")
        if kept is not None and kept[0] == key:
            return kept[1], kept[2]
        compiled = self._compile("judges", arrays, {})
        idata, secs = self._sample(compiled, _data(arrays, {}), self.seed)
        diag = self._diagnose(idata, secs, compiled.engine)
        self._judges_kept_ = (key, idata, diag)
        return idata, diag

    def _finish(self, idata: Any, diag: Diagnostics, const: dict) -> JudgeModel:
        self.idata_ = idata
        self.diagnostics_ = diag
        self.constants_ = const
        self.posterior_ = _thin(idata.posterior, self.predict_draws)
        self.fit_id_ = uuid.uuid4().hex
        self._latent_cache_ = None
        self._moments_kept_ = None
        return self

    def fit(self, X: np.ndarray, y: np.ndarray) -> JudgeModel:
        """Fit on all rows of X; labels y (NaN = not in the training set)."""
        y = self._check_y(X, y)
        train = np.isfinite(y)
        if train.sum() < 2:
            raise ValidationError("need at least 2 labeled items to fit a judge model")
        fitted = self._fit_many(X, y, np.where(train, 0, -1), 1, holdout=False)[0]
        self.__dict__.update(fitted.__dict__)
        return self

    def fit_folds(
        self, X: np.ndarray, y: np.ndarray, fold_ids: np.ndarray, n_folds: int
    ) -> list[JudgeModel]:
        """Fit fold k on every labeled item outside fold k, compiling the model once.

        ``fold_ids`` is -1 for unlabeled items; all items' judge scores count in
        every fold (with ``inference="cut"`` the judge model is sampled once and
        shared). Returns one fitted copy of this model per fold.
        """
        return self._fit_many(X, y, fold_ids, n_folds, holdout=True)

    def _fit_many(self, X, y, fold_ids, n_folds: int, holdout: bool) -> list[JudgeModel]:
        y = self._check_y(X, y)
        mode = self._inference()
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
        rows = np.flatnonzero(labeled)
        scores = np.column_stack([arrays["L"], arrays["obs"]])
        auto = self._judge_weights() and self.judge_weights == "auto"
        agreed = consensus(arrays["L"]) if auto else None
        folds = []
        for k in range(n_folds):
            train = labeled & (fold_ids != k) if holdout else labeled
            labels, const = self._label_data(np.where(train, y, np.nan), train, scores)
            if self._judge_weights():
                const["judge_weights"] = float(self._weights_pay(arrays, y, train, agreed))
            folds.append((labels, const))
        self._weigh_folds(arrays, folds)
        folds = [(self._restrict(labels, rows), const) for labels, const in folds]
        if mode == "cut":
            return self._fit_cut(arrays, rows, folds)
        fits = []
        compiled = None
        for k, (labels, const) in enumerate(folds):
            if compiled is None:
                compiled = self._compile("joint", arrays, labels)
            idata, secs = self._sample(compiled, _data(arrays, labels), self.seed + k)
            diag = self._diagnose(idata, secs, compiled.engine)
            fits.append(copy.copy(self)._finish(_unweighted(idata, self, const), diag, const))
        return fits

    def _weights_pay(self, arrays: dict, y: np.ndarray, train: np.ndarray, agreed) -> bool:
        """Judge weights for a fit on ``train``: forced, or chosen from its labels
        (``agreed``: every item's judge :func:`~bacon_bayes.bayes.selection.consensus`)."""
        if self.judge_weights != "auto":
            return True
        return prefers_judge_weights(y[train], arrays["L"][train], agreed[train])

    def _weigh_folds(self, arrays: dict, folds: list) -> None:
        """Give each fold's labels the judge scores its weights read (``r``): the scores
        along the weights' directions, zeros where the fold's fit does without weights
        (its weights then stay at their prior and are dropped from its posterior), none
        at all when no fold uses them."""
        if not any(const.get("judge_weights") for _, const in folds):
            for _, const in folds:
                const.pop("judge_weights", None)
            return
        weighted = arrays["L"] @ self._weight_basis()
        for labels, const in folds:
            labels["r"] = weighted * const["judge_weights"]

    def _fit_cut(self, arrays: dict, rows: np.ndarray, folds: list) -> list[JudgeModel]:
        """Stage 1 once, then every fold's label link as one block of a single stage-2
        model (the folds' parameters are independent, so each block's posterior is
        that fold's own; one run instead of one per fold).

        Stage 2 runs ``label_draws`` draws per chain; each fold's stored posterior pairs
        them with as many stage-1 draws, evenly thinned, and re-expresses each paired
        link draw on its stage-1 draw's latent scale (:meth:`_aligned`). Convergence is
        checked on each stage's own draws (stage 1 on all of them) and reported as the
        worst of both.
        """
        judges, judge_diag = self._fit_judges(arrays)
        engine = self._resolved_engine()
        items = self._latent_summary(arrays, judges.posterior, rows)
        if self._label_uses_embedding():
            items["q"] = arrays["Q"][rows]
        data = _fold_blocks(items, [labels for labels, _ in folds])
        compiled = self._compile("labels", arrays, data)
        draws = min(self.label_draws, judges.posterior.sizes["draw"])
        idata, secs = self._sample(compiled, data, self.seed + 1000, draws=draws)
        judges = _thin_draws(judges, idata.posterior.sizes["draw"])
        shift, stretch = self._latent_alignment(arrays, judges.posterior, rows, items["m"])
        fits = []
        shared: dict = {}  # z's per-draw moments of the Xs predicted last: the same in every fold
        for k, (_, const) in enumerate(folds):
            block = _unweighted(_fold_block(idata, k), self, const)
            diag = merge_diagnostics([judge_diag, self._diagnose(block, secs, engine)])
            block = self._aligned(block, shift, stretch)
            fit = copy.copy(self)._finish(_combine(judges, block), diag, const)
            fit._latent_cache_ = shared
            fits.append(fit)
        return fits

    def _latent_alignment(
        self, arrays: dict, posterior: Any, rows: np.ndarray, m_bar: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per stage-1 draw d, the least-squares line ``m_d ~ shift_d + stretch_d * m_bar``
        over the labeled items; both (chain, draw).

        Stage 2 learns the label link on the latent scale of ``m_bar`` (z's posterior
        mean over all stage-1 draws). A draw whose latent is shifted or stretched
        against it (the latent's location and scale are only weakly pinned down) needs
        the link shifted and stretched with it, as a joint posterior would couple them;
        pairing draws without this made the judges' human-scale intervals too wide
        (recovery coverage 0.99 at nominal 0.90).
        """
        shape = (posterior.sizes["chain"], posterior.sizes["draw"])
        post = {k: np.asarray(v.values).reshape(-1, *v.shape[2:]) for k, v in posterior.items()}
        m, _ = self._latent_draws(arrays, post, rows)
        shift, stretch = _line_fits(m, m_bar)
        return shift.reshape(shape), stretch.reshape(shape)

    def _aligned(self, block: Any, shift: np.ndarray, stretch: np.ndarray) -> Any:
        """A fold's link draws re-expressed on each paired stage-1 draw's latent scale."""
        post = block.posterior
        values = {k: np.asarray(v.values) for k, v in post.data_vars.items()}
        aligned = self._align_link(values, shift, stretch)
        for name, arr in aligned.items():
            post[name] = (post[name].dims, arr)
        return block

    def _align_link(self, post: dict, shift: np.ndarray, stretch: np.ndarray) -> dict:
        """Link parameters (arrays with leading chain, draw axes) for the latent
        ``shift + stretch * z`` in place of z (judge weights included where the link
        adds them on z's scale). A family hook."""
        raise NotImplementedError

    def _resolved_engine(self) -> str:
        from bacon_bayes.bayes.nuts import resolve_engine

        return resolve_engine(self.sampler)

    def _diagnose(self, idata: Any, secs: float, engine: str) -> Diagnostics:
        return check_convergence(idata, sampler=engine, seconds=secs, warn=self.warn)

    # -------------------------------------------------------------- predict
    def _check_fitted(self) -> None:
        if not hasattr(self, "posterior_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted; call fit first")

    def _collapse_arrays(self, arr: dict, post: dict) -> tuple[np.ndarray, np.ndarray]:
        """Per-draw posterior mean and variance of z given the judges, each (d, n)."""
        Q = arr["Q"]
        mu = post["theta"] @ Q.T if "theta" in post else np.zeros((1, Q.shape[0]))
        log_sd = post["log_noise"][:, None, :]
        for k in range(arr["U"].shape[2]):  # broadcasting: einsum here was 7x slower
            log_sd = log_sd + arr["U"][None, :, :, k] * post["uncertainty"][:, k, None, None]
        c = np.exp(post["log_scale"])
        return latent_posterior(arr["L"], arr["obs"], post["offset"], c, log_sd, mu)

    def _chunks(self, n_draws: int, n_items: int, width: int = 0):
        """Draw slices whose (draws, items, max(judges, width)) arrays hold ~4e6 numbers."""
        size = max(1, int(4e6 // max(n_items * max(self.columns.n_judges, width), 1)))
        for start in range(0, n_draws, size):
            yield slice(start, min(start + size, n_draws))

    def _per_draw(self, X: np.ndarray, fn, width: int = 0) -> list:
        """``fn(post, m, v, q, off)`` per chunk of draws: z's per-draw moments (d, n),
        the items' QR embedding rows ``q`` (n, E) and the link's judge-weight terms
        ``off`` (each (d, n); None without judge weights)."""
        self._check_fitted()
        X = np.asarray(X, dtype=float)
        arr = self.design_.transform(X)
        weighted = self.judge_weight_names[0] in self.posterior_
        r = arr["L"] @ self._weight_basis() if weighted else None
        n_draws = next(iter(self.posterior_.values())).shape[0]
        out = []
        cache = getattr(self, "_latent_cache_", None)
        chunks = None
        if cache is not None:
            chunks = _cache_entry(cache, _array_key(X), 2 * n_draws * X.shape[0])
        for sl in self._chunks(n_draws, X.shape[0], width):
            post = {k: v[sl] for k, v in self.posterior_.items()}
            if chunks is None:
                m, v = self._collapse_arrays(arr, post)
            else:
                if (sl.start, sl.stop) not in chunks:
                    chunks[sl.start, sl.stop] = self._collapse_arrays(arr, post)
                m, v = chunks[sl.start, sl.stop]
            off = None  # the link's own weights: this fold's, not cached
            if r is not None:
                off = tuple(post[name] @ r.T for name in self.judge_weight_names)
            out.append(fn(post, m, v, arr["Q"], off))
        return out

    def predict_moments(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean of E[Y|x] and posterior predictive Var(Y|x) (total variance).

        The last X's result is kept (``predict`` then ``predict_var`` of the same rows,
        as cross-fitting does, compute it once); copies are returned.
        """
        self._check_fitted()
        X = np.asarray(X, dtype=float)
        key = (_array_key(X), id(self.posterior_))  # a copy with other draws: recompute
        kept = self.__dict__.get("_moments_kept_")
        if kept is None or kept[0] != key:
            fn = lambda p, m, v, q, o: self._moments(p, self.constants_, m, v, q, o)  # noqa: E731
            parts = self._per_draw(X, fn)
            mean_d = np.concatenate([p[0] for p in parts])
            var_d = np.concatenate([p[1] for p in parts])
            kept = (key, mean_d.mean(axis=0), var_d.mean(axis=0) + mean_d.var(axis=0))
            self._moments_kept_ = kept
        return kept[1].copy(), kept[2].copy()

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

        def add(p, m, v, q, o) -> None:  # accumulate: one (n, len(t)) array whatever chunking
            np.add(total, self._cdf(p, self.constants_, m, v, t, q, o).sum(0), out=total)

        self._per_draw(X, add, width=t.size)
        n_draws = next(iter(self.posterior_.values())).shape[0]
        return np.clip(total / n_draws, 0.0, 1.0)


def _data(arrays: dict, labels: dict) -> dict:
    """Every data container's values (empty ones, e.g. no embedding, are not in the graph)."""
    return {**{k: v for k, v in arrays.items() if np.size(v)}, **labels}


def _cache_entry(cache: dict, key: Any, size: int) -> dict | None:
    """The chunks of z's moments kept for the X of ``key`` (``size`` numbers), or None
    when it exceeds :data:`LATENT_CACHE_SIZE`. The most recent Xs are kept up to that
    size (a cross-fit predicts each fold's own items and then the unlabeled ones: with
    only the last X kept, every fold recomputed the unlabeled items' moments)."""
    if size > LATENT_CACHE_SIZE:
        return None
    entry = cache.pop(key, None) or {"size": size, "chunks": {}}
    while cache and sum(e["size"] for e in cache.values()) + size > LATENT_CACHE_SIZE:
        cache.pop(next(iter(cache)))  # the least recently used X
    cache[key] = entry
    return entry["chunks"]


def _array_key(X: np.ndarray) -> tuple[str, tuple[int, ...]]:
    """A key identifying an array's contents and shape (for the prediction caches)."""
    return hashlib.blake2b(X.tobytes(), digest_size=16).hexdigest(), X.shape


def fold_shape(folds: int | None) -> tuple[tuple[int, ...], Any]:
    """Leading shape of a label parameter and how to broadcast it over items.

    ``folds=None`` (joint fit): scalars stay scalars. With ``folds``: a leading
    fold axis, and ``col(x)`` turns a (folds,) parameter into (folds, 1).
    """
    if folds is None:
        return (), lambda x: x
    return (folds,), lambda x: x[:, None]


def _line_fits(m: np.ndarray, m_bar: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row d of ``m`` (draws, items), the least-squares ``m_d ~ shift_d + stretch_d m_bar``."""
    centred = m_bar - m_bar.mean()
    stretch = (m - m.mean(axis=1, keepdims=True)) @ centred / (centred @ centred)
    shift = m.mean(axis=1) - stretch * m_bar.mean()
    return shift, np.maximum(stretch, 1e-6)


def _fold_blocks(items: dict, folds: list[dict]) -> dict[str, np.ndarray]:
    """Stage-2 data, one row per fold holding only that fold's training items (padded
    with weight 0 to the largest fold): every per-item array of ``items`` (``m``, ``v``,
    embedding rows ``q``) and of each fold's labels (``yk``, ``w``, weighted judge
    scores ``r``), each (folds, n, ...)."""
    keep = [np.flatnonzero(labels["w"] > 0) for labels in folds]
    width = max(idx.size for idx in keep)
    out: dict[str, list] = {}
    for idx, labels in zip(keep, folds, strict=True):
        pad = width - idx.size
        own = [(name, labels[name]) for name in ("yk", "w", "r") if name in labels]
        sources = [*items.items(), *own]
        for name, src in sources:
            fill = 1.0 if name == "v" else 0  # a valid variance / level index in the padding
            block = np.asarray(src)[idx]
            filler = np.full((pad, *block.shape[1:]), fill, dtype=block.dtype)
            out.setdefault(name, []).append(np.concatenate([block, filler]))
    return {k: np.stack(v) for k, v in out.items()}


def _unweighted(idata: Any, model: JudgeModel, const: dict) -> Any:
    """``idata`` without the judge-weight variables where this fit does without them
    (``constants_["judge_weights"] == 0``: they saw zero scores and kept their prior)."""
    if const.get("judge_weights", 1.0):
        return idata
    out = idata.copy()
    out.posterior = out.posterior.drop_vars(list(model.judge_weight_names))
    return out


def _fold_block(idata: Any, k: int) -> Any:
    """Fold k's parameter block of a stage-2 fit, named and shaped as in a joint fit."""
    import arviz as az
    import xarray as xr

    out = {}
    for name, da in idata.posterior.data_vars.items():
        block = da.isel({da.dims[2]: k}, drop=True)
        names = {d: f"{name}_dim_{i}" for i, d in enumerate(block.dims[2:])}
        out[name] = block.rename(names)
    return az.InferenceData(posterior=xr.Dataset(out), sample_stats=idata.sample_stats)


def _combine(judges: Any, labels: Any) -> Any:
    """One InferenceData of a cut fit: both stages' posteriors (draws paired by index);
    the label stage's sample stats plus the judge stage's per-draw ones as ``judges_*``."""
    import arviz as az
    import xarray as xr

    stats = labels.sample_stats.assign(
        {
            f"judges_{name}": da
            for name, da in judges.sample_stats.data_vars.items()
            if set(da.dims) <= {"chain", "draw"}
        }
    )
    posterior = xr.merge(
        [judges.posterior, labels.posterior], join="exact", combine_attrs="drop_conflicts"
    )
    return az.InferenceData(posterior=posterior, sample_stats=stats)


def _thin_draws(idata: Any, n: int) -> Any:
    """``idata`` (posterior and per-draw sample stats) evenly thinned to n draws per chain."""
    import arviz as az

    total = idata.posterior.sizes["draw"]
    if total <= n:
        return idata
    idx = np.linspace(0, total - 1, n).round().astype(int)
    keep = {"draw": idx}
    stats = idata.sample_stats
    stats = stats[[v for v, da in stats.data_vars.items() if "draw" in da.dims]]
    post = idata.posterior.isel(keep).assign_coords(draw=np.arange(n))
    return az.InferenceData(
        posterior=post, sample_stats=stats.isel(keep).assign_coords(draw=np.arange(n))
    )


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
