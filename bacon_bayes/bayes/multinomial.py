"""Categorical outcome (binary included): collapsed Dawid-Skene judge model.

Item i has a latent class ``z_i`` in the K outcome levels with prior
``P(z_i = k) = softmax_k(b_k + q_i' B_k)`` (q: QR-decomposed, centred embedding;
the first level is the reference, ``b_1 = B_1 = 0``). Given the class, the
judges' scores are independent:

* a **categorical judge** (every score it gave is one of the outcome levels) says
  level l with probability ``theta_j[k, l]`` (its confusion matrix, row = true
  class). Rows are softmaxes of logits relative to the diagonal,
  ``logit theta_j[k, l] = C_j[k, l]`` for ``l != k`` and 0 on the diagonal, with a
  centred hierarchical (Dawid-Skene) prior across judges::

      C_j[k, l] ~ N(A[k, l], t),  A[k, l] ~ N(offdiag_logit_mu, offdiag_logit_sd),
      t ~ Gamma(4, 4 / judge_deviation_sd)   (prior mean judge_deviation_sd)

  Parameterisation, measured on 700 items, 4 categorical judges (2 folds, 4 x 400
  draws, target_accept 0.9): a scale per cell t[k, l] made a funnel (21-51
  divergences centred; non-centred 2-4, R-hat 1.03); one shared t non-centred was
  worse (76 divergences, R-hat 1.33); one shared t, centred, with the zero-avoiding
  Gamma(4, .) prior: 0-1 divergences, R-hat <= 1.007.

  ``offdiag_logit_mu < 0`` favours the diagonal (a judge is right more often than
  not: for a binary outcome -2 means 88% accuracy a priori), which also fixes the
  labelling of the latent classes where labels are few.
* a **continuous judge** (any other score) gives ``l_ij | z = k ~ N(a_jk, s_ij)`` on
  its standardised scale, ``a_jk ~ N(0, class_mean_sd)``,
  ``s_ij = s_j exp(g' u_ij)``, ``log s_j ~ N(log_noise_mu, log_noise_mu_sd)``
  independently: thousands of scores pin each judge's noise down, and a hierarchy
  over the few continuous judges a categorical task usually has made a funnel
  (measured: 48 divergences with one continuous judge).

The judge type is decided per judge from the data (all observed scores among the
outcome levels -> categorical); ``judge_types`` overrides it. A judge whose score
is the mean of several runs that disagreed is therefore continuous.

The latent class is summed out: ``log p(l_i) = logsumexp_k J_ik`` with
``J_ik = log P(z_i = k) + log p(l_i | z_i = k)`` costs O(items x judges x K) and no per-item
parameter is sampled. Every item adds ``log p(l_i)``; an item whose label is in the
training set adds ``log P(y_i | l_i)`` (one compiled model serves every cross-fitting
fold through the 0/1 label weights), with the label link

    P(y = k | l_i) = softmax_k(c_k + w V_ik),  w ~ LogNormal(0, evidence_weight_sd),
    c_k ~ N(0, label_shift_sd) (c = 0 for the first level),

where the evidence ``V_ik`` is ``J_ik`` with judge j's log-likelihood term weighed by
``exp(d_j)``, ``d_j ~ N(0, judge_evidence_sd)`` (``judge_evidence_sd = 0``: one weight
``w`` for every judge, ``V = J``). ``w = 1, c = 0, d = 0`` is the Dawid-Skene posterior.
The link is there because LLM judges err together (hard items fool most of them), which
the conditional independence of Dawid-Skene ignores: it multiplies correlated evidence
and becomes overconfident (measured on TriviaQA, 9 judges, 10% labels: log-loss 0.57 and
accuracy 0.918 without the link against 0.15 and 0.948 for the frequentist logistic
regression). ``w < 1`` discounts correlated evidence and ``c`` recentres it, learnt from
the labels; ``d_j`` lets the labels weigh the judges one by one, between the
Dawid-Skene weights (the prior's centre) and a logistic regression on the judges'
log-likelihood terms (same draw: log-loss 0.169 with one ``w``, 0.158 / 0.156 / 0.155
with ``judge_evidence_sd`` 0.5 / 1 / 2, the logistic's 0.155).
Consequently the latent class is the class the judges' scores define, tied to the
human labels through the link; the confusion matrices are relative to it.

Predictions are posterior means over draws of ``P(y = k | l_i, e_i)`` (the link);
``predict``, ``predict_var`` and ``predict_cdf`` follow from these class
probabilities exactly as in the frequentist
:class:`~bacon_bayes.outcome.MultinomialOutcome` (E[Y|x] = sum_k p_k v_k over the
numeric levels v; for 0/1 that is P(y = 1 | x)).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from scipy import special

from bacon_bayes.bayes.base import JUDGE_PRIORS, JudgeModel
from bacon_bayes.bayes.columns import Design
from bacon_bayes.bayes.multinomial_density import distinct_items, multinomial_density
from bacon_bayes.bayes.nuts import GradDensity
from bacon_bayes.errors import ValidationError
from bacon_bayes.items import top_mass_sets
from bacon_bayes.outcome.base import DiscreteOutcomeMixin, level_index

__all__ = ["MultinomialJudgeModel", "class_log_joint", "confusion_from_logits", "label_link"]

#: the shared judge priors this family uses (continuous judges' noise, embedding)
SHARED_PRIORS = ("log_noise_mu", "log_noise_mu_sd", "uncertainty_sd", "embedding_sd")
LOG_2PI = float(np.log(2.0 * np.pi))
JUDGE_TYPES = ("categorical", "continuous")
#: default NUTS acceptance target: the judge-deviation scale is learnt from a few
#: judges; at 0.8 a few transitions diverged (measured: 2 per 1,200 draws); with the
#: per-judge evidence weights 0.9 left 1-3 divergent transitions in 4-5 of 100 TriviaQA
#: fold fits (0.95: 1 of 100, BENCHMARKS.md)
TARGET_ACCEPT = 0.95


def _offdiag_index(K: int) -> np.ndarray:
    """Flat index into ``[free (K-1 per row) | 0]`` that rebuilds a K x K logit matrix."""
    idx = np.empty((K, K), dtype="int64")
    for k in range(K):
        for col in range(K):
            idx[k, col] = K * (K - 1) if col == k else k * (K - 1) + col - (col > k)
    return idx.ravel()


def confusion_from_logits(free: Any, K: int, xp: Any = np) -> Any:
    """Log confusion matrices (..., J, K, K) from off-diagonal logits (..., J, K, K - 1).

    Row k is ``log softmax`` of the logits with 0 on the diagonal.
    """
    lead = tuple(free.shape[i] for i in range(free.ndim - 2))
    flat = xp.reshape(free, (*lead, K * (K - 1)))
    zero = xp.zeros((*lead, 1))
    full = xp.reshape(xp.concatenate([flat, zero], axis=-1)[..., _offdiag_index(K)], (*lead, K, K))
    if xp is np:
        return full - special.logsumexp(full, axis=-1, keepdims=True)
    return full - xp.logsumexp(full, axis=-1, keepdims=True)


def class_log_joint(
    log_prior: Any,
    onehot: Any,
    log_conf: Any,
    L: Any,
    obs: Any,
    class_mean: Any,
    log_sd: Any,
    xp: Any = np,
    scale: Any = None,
) -> Any:
    """``log P(y = k) + log p(judge scores | y = k)`` per item and class.

    Parameters
    ----------
    log_prior : (..., n, K) log class prior.
    onehot : (n, Jc * K) 0/1, judge-major: 1 where categorical judge j said level l
        (all 0 where it gave no score); None without categorical judges.
    log_conf : (..., Jc, K, K) log confusion matrices (row = true class).
    L, obs : (n, Jn) standardised continuous scores (any value where missing) and
        the 0/1 observed mask; None without continuous judges.
    class_mean : (..., Jn, K) class means; log_sd : (..., n, Jn) log noise sd.
    xp : ``numpy`` or ``pytensor.tensor``; leading ``...`` (posterior draws) numpy only.
    scale : (..., Jc + Jn) optional factor on each judge's log-likelihood term
        (categorical judges first): the label link's per-judge evidence weights.
    """
    out = log_prior
    Jc = 0 if log_conf is None else log_conf.shape[-3]
    if onehot is not None:
        if scale is not None:
            log_conf = log_conf * scale[..., :Jc, None, None]
        lead = tuple(log_conf.shape[i] for i in range(log_conf.ndim - 3))
        jk = log_conf.shape[-3] * log_conf.shape[-1]
        M = xp.reshape(xp.swapaxes(log_conf, -1, -2), (*lead, jk, log_conf.shape[-1]))
        out = out + xp.matmul(onehot, M)
    if L is not None:
        r = L[..., None] - xp.expand_dims(class_mean, -3)  # (..., n, Jn, K)
        inv = xp.exp(-2.0 * log_sd)[..., None]
        ll = -0.5 * LOG_2PI - log_sd[..., None] - 0.5 * r * r * inv
        if scale is not None:
            ll = ll * xp.expand_dims(scale[..., Jc:], -2)[..., None]
        out = out + xp.sum(obs[..., None] * ll, axis=-2)
    return out


def label_link(joint: Any, weight: Any, shift: Any, xp: Any = np) -> Any:
    """log P(human label = k | judges): ``log softmax_k(shift_k + weight * joint_k)``.

    ``joint`` (..., n, K) from :func:`class_log_joint`; ``shift`` (..., K - 1) is 0 for
    the first level. ``weight = 1, shift = 0`` is the Dawid-Skene posterior itself.
    """
    lead = tuple(joint.shape[i] for i in range(joint.ndim - 1))
    eta = weight * joint + xp.concatenate([xp.zeros((*lead, 1)), shift + xp.zeros((*lead, 1))], -1)
    if xp is np:
        return eta - special.logsumexp(eta, axis=-1, keepdims=True)
    return eta - xp.logsumexp(eta, axis=-1, keepdims=True)


class MultinomialJudgeModel(DiscreteOutcomeMixin, JudgeModel):
    """Bayesian Dawid-Skene model of categorical human labels given several judges.

    Parameters
    ----------
    columns : :class:`~bacon_bayes.bayes.columns.ColumnSpec`.
    levels : the outcome levels (numbers); default: the distinct labels seen.
    judge_types : optional ``{judge name: "categorical" | "continuous"}`` overriding
        the type decided from the data.
    **kwargs : see :class:`~bacon_bayes.bayes.base.JudgeModel`.
    """

    family: ClassVar[str] = "multinomial"
    supports_cut: ClassVar[bool] = False  # the label link reads the class joint, not z
    supports_group_effects: ClassVar[bool] = False  # no location to shift
    family_priors: ClassVar[dict[str, float]] = {
        "class_intercept_sd": 2.0,  # b_k ~ N(0, .) (log-odds against the first level)
        "offdiag_logit_mu": -2.0,  # A[k, l] ~ N(., offdiag_logit_sd): favours the diagonal
        "offdiag_logit_sd": 1.5,
        "judge_deviation_sd": 0.5,  # t ~ Gamma(4, 4 / .)  (prior mean .)
        "class_mean_sd": 1.5,  # a_jk ~ N(0, .) on standardised scores (continuous judges)
        "evidence_weight_sd": 0.5,  # w ~ LogNormal(0, .): label link weight (1 = plain DS)
        "label_shift_sd": 1.0,  # c_k ~ N(0, .): label link shift against the first level
        # d_j ~ N(0, .): judge j's evidence weighs w exp(d_j) in the label link (0: one w)
        "judge_evidence_sd": 1.0,
    }

    def _judge_weights(self) -> bool:
        if self.judge_weights and self.judge_weights != "auto":  # "auto": never here
            raise ValidationError(
                "the multinomial model has no judge_weights option (its label link reads "
                "the judges' class posterior); use judge_weights=False"
            )
        return False

    def __init__(self, columns, *, levels=None, judge_types=None, **kwargs: Any) -> None:
        kwargs.setdefault("target_accept", TARGET_ACCEPT)
        super().__init__(columns, **kwargs)
        self.levels = levels
        self.judge_types = judge_types

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {**super().get_params(deep), "levels": self.levels, "judge_types": self.judge_types}

    def resolved_priors(self) -> dict[str, float]:
        """Family priors plus the shared ones it uses; other shared names are rejected."""
        unused = (set(JUDGE_PRIORS) - set(SHARED_PRIORS)) & set(self.priors or {})
        if unused:
            raise ValidationError(
                f"prior(s) {sorted(unused)} do not apply to the multinomial model; known: "
                f"{sorted([*SHARED_PRIORS, *self.family_priors])}"
            )
        out = super().resolved_priors()
        return {k: v for k, v in out.items() if k in SHARED_PRIORS or k in self.family_priors}

    # ------------------------------------------------------------- data
    def _prepare_labels(self, y: np.ndarray) -> None:
        levels = np.unique(y) if self.levels is None else np.asarray(self.levels, dtype=float)
        levels = np.asarray(levels, dtype=float)
        if levels.size < 2 or np.unique(levels).size != levels.size:
            raise ValidationError(
                f"a categorical outcome needs at least 2 distinct levels, got {levels.tolist()}; "
                "pass --levels 0,1 (levels=[0, 1] in Python), for example"
            )
        self.levels_ = np.sort(levels)
        bad = ~np.isin(y, self.levels_)
        if bad.any():
            raise ValidationError(
                f"label {float(y[bad][0]):g} is not one of the levels {self.levels_.tolist()}; "
                "pass --levels (levels= in Python) or fix the label"
            )

    def _judge_kinds(self, L: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """True for categorical judges: every observed score is an outcome level."""
        names = list(self.columns.judges)
        forced = dict(self.judge_types or {})
        unknown = set(forced) - set(names)
        if unknown:
            raise ValidationError(f"judge_types names unknown judge(s) {sorted(unknown)}")
        cat = np.empty(len(names), dtype=bool)
        for j, name in enumerate(names):
            in_levels = bool(np.isin(L[obs[:, j], j], self.levels_).all())
            kind = forced.get(name, "categorical" if in_levels else "continuous")
            if kind not in JUDGE_TYPES:
                raise ValidationError(
                    f"judge_types[{name!r}] = {kind!r}; use 'categorical' or 'continuous'"
                )
            if kind == "categorical" and not in_levels:
                bad = L[obs[:, j], j][~np.isin(L[obs[:, j], j], self.levels_)][0]
                raise ValidationError(
                    f"judge {name!r} gave score {bad} which is not an outcome level "
                    f"{self.levels_.tolist()}; it cannot be a categorical judge"
                )
            cat[j] = kind == "categorical"
        return cat

    def _setup(self, X: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
        self.design_ = Design(self.columns).fit(X)
        self._prepare_labels(y[np.isfinite(y)])
        L, obs, _, _ = self.design_._raw(X)
        self.categorical_ = self._judge_kinds(L, obs)
        return self._arrays(X, self.categorical_, self.levels_)

    def _arrays(self, X: np.ndarray, cat: np.ndarray, levels: np.ndarray) -> dict[str, np.ndarray]:
        """Model inputs: one-hot categorical scores and standardised continuous ones."""
        raw, obs_raw, _, _ = self.design_._raw(X)
        arr = self.design_.transform(X)
        K = levels.size
        onehot = np.zeros((raw.shape[0], int(cat.sum()), K))
        for c, j in enumerate(np.flatnonzero(cat)):
            seen = obs_raw[:, j]
            pos = np.searchsorted(levels, raw[seen, j])
            ok = (pos < K) & (levels[np.minimum(pos, K - 1)] == raw[seen, j])
            if not ok.all():
                row = int(np.flatnonzero(seen)[np.argmax(~ok)])
                raise ValidationError(
                    f"row {row}: categorical judge {self.columns.judges[j]!r} gave "
                    f"{raw[row, j]}, not one of the levels {levels.tolist()}"
                )
            onehot[np.flatnonzero(seen), c, pos] = 1.0
        cont = ~cat
        return {
            "C": onehot.reshape(raw.shape[0], -1),
            "L": arr["L"][:, cont],
            "obs": arr["obs"][:, cont],
            "U": arr["U"][:, cont],
            "Q": arr["Q"],
        }

    def _label_data(self, y, train, scores=None):
        idx = np.zeros(y.shape[0], dtype="int64")
        idx[train] = level_index(y[train], self.levels_)
        const = {"levels": self.levels_, "categorical": [bool(c) for c in self.categorical_]}
        return {"yk": idx, "w": train.astype(float)}, const

    # ------------------------------------------------------------ model
    def _build_model(self, arrays: dict[str, np.ndarray], labels: dict[str, np.ndarray]):
        import pymc as pm
        import pytensor.tensor as pt

        pr = self.resolved_priors()
        K = self.levels_.size
        cat = self.categorical_
        names = np.asarray(self.columns.judges)
        n_unc = arrays["U"].shape[2]
        coords = {
            "cat_judge": names[cat].tolist(),
            "cont_judge": names[~cat].tolist(),
            "class": [f"{v:g}" for v in self.levels_],
            "class_free": [f"{v:g}" for v in self.levels_[1:]],
            "offdiag": [f"other{i + 1}" for i in range(K - 1)],
            "unc": list(self.columns.unc_kinds),
            "emb": [f"q{k + 1}" for k in range(arrays["Q"].shape[1])],
            "evidence_judge": [*names[cat].tolist(), *names[~cat].tolist()],
        }
        with pm.Model(coords=coords) as model:
            Q = pm.Data("Q", arrays["Q"])
            idx = pm.Data("label_rows", labels["label_rows"])
            yk = pm.Data("yk", labels["yk"])
            w = pm.Data("w", labels["w"])
            b = pm.Normal("class_intercept", 0.0, pr["class_intercept_sd"], dims="class_free")
            eta = pt.zeros((Q.shape[0], K - 1)) + b
            if arrays["Q"].shape[1]:
                B = pm.Normal("theta", 0.0, pr["embedding_sd"], dims=("emb", "class_free"))
                eta = eta + pt.dot(Q, B)
            eta = pt.concatenate([pt.zeros((Q.shape[0], 1)), eta], axis=1)
            log_prior = eta - pt.logsumexp(eta, axis=1, keepdims=True)
            onehot = log_conf = L = obs = a = log_sd = None
            if cat.any():
                onehot = pm.Data("C", arrays["C"])
                A = pm.Normal(
                    "confusion_mu",
                    pr["offdiag_logit_mu"],
                    pr["offdiag_logit_sd"],
                    dims=("class", "offdiag"),
                )
                t = pm.Gamma("confusion_sd", 4.0, 4.0 / pr["judge_deviation_sd"])
                free = pm.Normal("confusion", A, t, dims=("cat_judge", "class", "offdiag"))
                log_conf = confusion_from_logits(free, K, xp=pt)
            if (~cat).any():
                L = pm.Data("L", arrays["L"])
                obs = pm.Data("obs", arrays["obs"])
                a = pm.Normal(
                    "class_mean",
                    0.0,
                    pr["class_mean_sd"],
                    dims=("cont_judge", "class"),
                    initval=np.tile(np.linspace(-1.0, 1.0, K), (int((~cat).sum()), 1)),
                )
                log_sd = pm.Normal(
                    "log_noise", pr["log_noise_mu"], pr["log_noise_mu_sd"], dims="cont_judge"
                )
                log_sd = pt.zeros_like(L) + log_sd
                if n_unc:
                    U = pm.Data("U", arrays["U"])
                    g = pm.Normal("uncertainty", 0.0, pr["uncertainty_sd"], dims="unc")
                    log_sd = log_sd + pt.tensordot(U, g, axes=[[2], [0]])
            joint = class_log_joint(log_prior, onehot, log_conf, L, obs, a, log_sd, xp=pt)
            pm.Potential("judges", pt.sum(pt.logsumexp(joint, axis=1)))
            weight = pm.LogNormal("evidence_weight", 0.0, pr["evidence_weight_sd"])
            shift = pm.Normal("label_shift", 0.0, pr["label_shift_sd"], dims="class_free")
            evidence = joint[idx]
            if pr["judge_evidence_sd"] > 0:  # log(w exp(d_j)), centred on log w
                u = pm.Normal(
                    "judge_evidence", pt.log(weight), pr["judge_evidence_sd"], dims="evidence_judge"
                )

                def rows(v):
                    return None if v is None else v[idx]

                evidence = class_log_joint(
                    log_prior[idx], rows(onehot), log_conf, rows(L), rows(obs), a,
                    rows(log_sd), xp=pt, scale=pt.exp(u) / weight,
                )  # fmt: skip
            link = label_link(evidence, weight, shift, xp=pt)
            chosen = pt.eq(yk[:, None], np.arange(K)[None, :])  # one-hot of the label
            pm.Potential("labels", pt.sum(w[:, None] * chosen * link))
        return model

    def _joint_density(self) -> GradDensity | None:
        """The joint density in numba (:mod:`~bacon_bayes.bayes.multinomial_density`),
        unless a subclass changed the PyMC model it writes out."""
        if type(self)._build_model is not MultinomialJudgeModel._build_model:
            return None
        return multinomial_density(self.resolved_priors(), self.levels_.size)

    # ---------------------------------------------------------- predict
    def _class_logp(self, post: dict, arrays: dict) -> np.ndarray:
        """Per draw log P(y = k | judges, embedding), (d, n, K)."""
        K = self.levels_.size
        d = next(iter(post.values())).shape[0]
        eta = np.zeros((d, arrays["Q"].shape[0], K))
        eta[..., 1:] = post["class_intercept"][:, None, :]
        if "theta" in post:
            eta[..., 1:] += np.einsum("ne,dek->dnk", arrays["Q"], post["theta"])
        log_prior = eta - special.logsumexp(eta, axis=-1, keepdims=True)
        has_cat, has_cont = "confusion" in post, "class_mean" in post
        log_conf = confusion_from_logits(post["confusion"], K) if has_cat else None
        log_sd = None
        if has_cont:
            log_sd = np.broadcast_to(post["log_noise"][:, None, :], (d, *arrays["L"].shape))
            if "uncertainty" in post:
                log_sd = log_sd + np.einsum("njk,dk->dnj", arrays["U"], post["uncertainty"])
        scale = None
        if "judge_evidence" in post:  # log(w exp(d_j)): each judge's weight w exp(d_j)
            scale = np.exp(post["judge_evidence"]) / post["evidence_weight"][:, None]
        joint = class_log_joint(
            log_prior,
            arrays["C"] if has_cat else None,
            log_conf,
            arrays["L"] if has_cont else None,
            arrays["obs"] if has_cont else None,
            post.get("class_mean"),
            log_sd,
            scale=scale,
        )
        weight = post["evidence_weight"][:, None, None]
        return label_link(joint, weight, post["label_shift"][:, None, :])

    def _proba_chunks(self, X: np.ndarray):
        """Per-draw class probabilities ``P(y = k | x)`` of the distinct items of ``X``
        (items alike in every input share them), one (d_chunk, n_distinct, K) block at a
        time, and every row's distinct-item index."""
        self._check_fitted()
        const = self.constants_
        cat = np.asarray(const["categorical"], dtype=bool)
        arrays = self._arrays(np.asarray(X, dtype=float), cat, np.asarray(const["levels"]))
        first, inverse, _ = distinct_items(*arrays.values())
        arrays = {k: v[first] for k, v in arrays.items()}
        n_draws = next(iter(self.posterior_.values())).shape[0]

        def blocks():
            for sl in self._chunks(n_draws, first.size * self.levels_.size):
                post = {k: v[sl] for k, v in self.posterior_.items()}
                yield np.exp(self._class_logp(post, arrays))

        return blocks(), inverse

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Posterior mean of ``P(y = level_k | x)``, shape (n, K)."""
        blocks, inverse = self._proba_chunks(X)
        total = np.sum([p.sum(axis=0) for p in blocks], axis=0)
        return total[inverse] / next(iter(self.posterior_.values())).shape[0]

    def predict_sets(self, X: np.ndarray, level: float = 0.9) -> np.ndarray:
        """Prediction sets, (n, K) bool: the most probable levels whose posterior
        predictive probabilities first sum to at least ``level``."""
        if not 0 < level < 1:
            raise ValidationError(f"level must be between 0 and 1, got {level}")
        return top_mass_sets(self.predict_proba(X), level)

    def proba_draws(self, X: np.ndarray) -> np.ndarray:
        """``P(y = level_k | x)`` for every posterior draw, shape (d, n, K)."""
        blocks, inverse = self._proba_chunks(X)
        return np.concatenate(list(blocks))[:, inverse]

    def predict_moments(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean of E[Y|x] and posterior predictive Var(Y|x)."""
        return self.predict(X), self.predict_var(X)
