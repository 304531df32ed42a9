"""Specification of the collapsed judge model: settings, priors, the family hooks
and the PyMC models (joint, judge stage, label stage) that the fitting code samples."""

from __future__ import annotations

from typing import Any

import numpy as np

from bacon_bayes.bayes import defaults
from bacon_bayes.bayes.closed_forms import collapse_judges
from bacon_bayes.bayes.defaults import GROUP_PRIORS, JUDGE_PRIORS
from bacon_bayes.bayes.settings import COUNTS, prior_problem, setting_problem
from bacon_bayes.errors import ValidationError


class JudgeModelSpec:
    """The model's specification (mixed into :class:`~bacon_bayes.bayes.base.JudgeModel`)."""

    # ----------------------------------------------------------------- config
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        names = (
            "columns priors sampler draws tune chains target_accept low_rank seed "
            "predict_draws warn inference label_draws judge_weights group_effects"
        ).split()
        return {n: getattr(self, n) for n in names}

    def resolved_priors(self) -> dict[str, float]:
        """Default priors updated with the user's overrides (unknown names rejected)."""
        out = {**JUDGE_PRIORS, **GROUP_PRIORS, **self.family_priors}
        for key, val in (self.priors or {}).items():
            if key not in out:
                raise ValidationError(
                    f"unknown prior {key!r} for the {self.family} model; known: {sorted(out)}"
                )
            if (problem := prior_problem(key, val)) is not None:
                raise ValidationError(problem)
            out[key] = float(val)
        return out

    def _check_settings(self) -> None:
        """Refuse sampler settings the sampler cannot run with (``draws=0``,
        ``target_accept=1.5``, a sampler whose packages are not installed), before any
        sampling."""
        for name in (*COUNTS, "target_accept", "low_rank", "sampler"):
            if (problem := setting_problem(name, getattr(self, name, 1))) is not None:
                raise ValidationError(problem)

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
        # float64: a whole-number shape given as a Python float becomes a float32 constant,
        # and its gammaln a float32 one (1.5e-7 off at 6)
        k = np.float64(defaults.JUDGE_SD_SHAPE)
        t_c = pm.Gamma("log_scale_sd", k, k / pr["log_scale_sd"])
        log_c = pm.Normal("log_scale", m_c, t_c, dims="judge")
        m_s = pm.Normal("log_noise_mu", pr["log_noise_mu"], pr["log_noise_mu_sd"])
        t_s = pm.Gamma("log_noise_sd", k, k / pr["log_noise_sd"])
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

    def _group_offsets(
        self, pm: Any, pt: Any, g: Any, pr: dict, shape: tuple, n_groups: int
    ) -> tuple:
        """The group-effect terms ``g @ u_p`` of the link's parts: ``g`` the items' group
        one-hot design (n, G) with ``shape=()`` or (folds, n, G) with ``shape=(folds,)``
        (a row of zeros: no group); per name in ``group_effect_names``, ``u_p = tau_p *
        eta_p`` (stored as the name; ``eta_p ~ N(0, 1)`` as ``<name>_z``, ``tau_p ~
        HalfNormal(group_effect_sd)`` as :func:`group_sd_name`), one (..., G) block per fold."""
        out = []
        for name in self.group_effect_names:
            tau = pm.HalfNormal(group_sd_name(name), pr["group_effect_sd"], shape=shape)
            eta = pm.Normal(f"{name}_z", 0.0, 1.0, shape=(*shape, n_groups))
            u = pm.Deterministic(name, pt.expand_dims(tau, -1) * eta)
            out.append(pt.sum(g * pt.expand_dims(u, -2), axis=-1))
        return tuple(out)

    def _link_offsets(
        self, pm: Any, pt: Any, labels: dict, pr: dict, shape: tuple = (), collapse: bool = False
    ):
        """The additive terms of the link's parts (``off`` of the family hooks): the judge
        weights' (``r`` in ``labels``) plus the group effects' (``g``; not with
        ``collapse``: the family integrates them out), or None."""
        parts = []
        if "r" in labels:
            parts.append(self._judge_offsets(pm, pt, pm.Data("r", labels["r"]), pr, shape))
        if "g" in labels and not collapse:
            g = pm.Data("g", labels["g"])
            parts.append(self._group_offsets(pm, pt, g, pr, shape, np.shape(labels["g"])[-1]))
        if not parts:
            return None
        return tuple(sum(terms[1:], terms[0]) for terms in zip(*parts, strict=True))

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
            off = self._link_offsets(pm, pt, labels, pr)
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
        weights, the judge scores along the weights' directions (folds, n, K); ``g``,
        with group effects, the items' group one-hot design (folds, n, G)). A family with
        ``collapses_groups`` integrates the group effects out here (its ``_label_logp``
        takes ``groups=(g, w)`` and returns the per-item terms and the groups' term); the
        joint model samples them as every family does."""
        import pymc as pm
        import pytensor.tensor as pt

        n_folds = np.shape(labels["w"])[0]
        pr = self.resolved_priors()
        with pm.Model() as model:
            m = pm.Data("m", labels["m"])
            v = pm.Data("v", labels["v"])
            yk = pm.Data("yk", labels["yk"])
            w = pm.Data("w", labels["w"])
            collapse = "g" in labels and self.collapses_groups
            off = self._link_offsets(pm, pt, labels, pr, (n_folds,), collapse)
            q = pm.Data("q", labels["q"]) if "q" in labels else None
            if collapse:  # the family integrates the group effects out
                groups = (pm.Data("g", labels["g"]), w)
                label_logp, group_logp = self._label_logp(
                    pm, pt, m, v, yk, pr, n_folds, q=q, off=off, groups=groups
                )
                pm.Potential("groups", group_logp)
            else:
                label_logp = self._label_logp(pm, pt, m, v, yk, pr, n_folds, q=q, off=off)
            pm.Potential("labels", pt.sum(w * label_logp))
        return model


def _data(arrays: dict, labels: dict) -> dict:
    """Every data container's values (empty ones, e.g. no embedding, are not in the graph)."""
    return {**{k: v for k, v in arrays.items() if np.size(v)}, **labels}


def group_sd_name(effect: str) -> str:
    """The scale parameter of the group effects named ``effect`` (``group_effect`` ->
    ``group_sd``, ``zero_group_effect`` -> ``zero_group_sd``)."""
    return effect.replace("group_effect", "group_sd")


def fold_shape(folds: int | None) -> tuple[tuple[int, ...], Any]:
    """Leading shape of a label parameter and how to broadcast it over items.

    ``folds=None`` (joint fit): scalars stay scalars. With ``folds``: a leading
    fold axis, and ``col(x)`` turns a (folds,) parameter into (folds, 1).
    """
    if folds is None:
        return (), lambda x: x
    return (folds,), lambda x: x[:, None]
