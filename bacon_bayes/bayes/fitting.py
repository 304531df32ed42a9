"""Fitting the collapsed judge model: one posterior of everything (joint), or the
modular cut fit (judge stage once, every fold's label link in one run), alignment of
the latent scale between stage-1 draws, convergence checks."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import uuid
from typing import TYPE_CHECKING, Any

import numpy as np

from bacon_bayes.bayes.columns import Design
from bacon_bayes.bayes.diagnostics import (
    SHARED_STAGE,
    Diagnostics,
    check_convergence,
    merge_diagnostics,
    warn_if_poor,
)
from bacon_bayes.bayes.judge_density import judges_grad_density
from bacon_bayes.bayes.nuts import compile_sampler
from bacon_bayes.bayes.selection import consensus, prefers_judge_weights
from bacon_bayes.errors import ValidationError

if TYPE_CHECKING:
    from bacon_bayes.bayes.base import JudgeModel

from bacon_bayes.bayes.defaults import (
    CUT_SUMMARY_DRAWS,
    INFERENCE,
    JUDGE_PRIORS,
    MIN_GROUPS,
)
from bacon_bayes.bayes.posterior import (
    _combine,
    _fold_block,
    _fold_blocks,
    _line_fits,
    _thin,
    _thin_draws,
    _unlabeled_groups_zeroed,
    _unweighted,
)
from bacon_bayes.bayes.spec import JudgeModelSpec, _data

#: The judge stage sampled last in this process, ``{key: (idata, diagnostics)}`` (one
#: entry; see :meth:`JudgeModelFitting._fit_judges`).
_JUDGE_STAGE: dict[str, tuple[Any, Diagnostics]] = {}

#: ``target_accept`` of the judge stage's second run after divergent transitions.
RETRY_TARGET_ACCEPT = 0.95


def forget_judge_stage() -> None:
    """Drop the judge stage kept for reuse (frees its draws; the next fit samples again)."""
    _JUDGE_STAGE.clear()


class JudgeModelFitting:
    """Fitting (mixed into :class:`~bacon_bayes.bayes.base.JudgeModel`)."""

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

    def _group_effects(self) -> bool:
        """Whether the label link has group effects: forced, or with ``"auto"`` where the
        column spec names at least :data:`MIN_GROUPS` groups and the family takes them."""
        from bacon_bayes.bayes.groups import group_option_error

        option = self.group_effects
        if option not in (True, False, "auto"):
            raise ValidationError(group_option_error("value", option))
        spec = self.columns
        has = spec.group_col >= 0 and len(spec.groups) > 0
        if option is True:
            if not self.supports_group_effects:
                raise ValidationError(group_option_error("family", family=self.family))
            if not has:
                raise ValidationError(group_option_error("groups"))
            return True
        return (
            bool(option)
            and has
            and self.supports_group_effects
            and (len(spec.groups) >= MIN_GROUPS)
        )

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

        On nutpie-jax the judge stage samples its log density written out by hand in
        numba (:mod:`bacon_bayes.bayes.judge_density`, unless a subclass changes that
        model), the label stage of the families written in
        :mod:`bacon_bayes.bayes.label_density` their own (numba), and a family's joint
        model the one :meth:`_joint_density` gives."""
        build = {
            "joint": self._build_model,
            "judges": self._build_judges_model,
            "labels": self._build_label_model,
        }[kind]
        if kind == "judges":
            density = self._judges_density()
        elif kind == "labels":
            density = self._label_density()
        else:
            density = self._joint_density()
        return compile_sampler(build(arrays, labels), self.sampler, density=density)

    def _judges_density(self) -> Any:
        """The compiled log density of the judge stage, or None (PyTensor's translation):
        :mod:`~bacon_bayes.bayes.judge_density`'s unless a subclass changed that model."""
        hooks = ("_judge_terms", "_build_judges_model")  # the model the density writes out
        if all(getattr(type(self), h) is getattr(JudgeModelSpec, h) for h in hooks):
            return judges_grad_density(self.resolved_priors())
        return None

    def _label_density(self) -> Any:
        """The compiled log density of the label stage, or None (PyTensor's translation): the
        family's own (:meth:`_family_label_density`) unless a subclass changed the
        stage-2 model or its judge-weight terms."""
        fixed = ("_build_label_model", "_judge_offsets", "_group_offsets", "_link_offsets")
        if any(getattr(type(self), h) is not getattr(JudgeModelSpec, h) for h in fixed):
            return None
        return self._family_label_density()

    def _family_label_density(self) -> Any:
        """The family's label-stage log density written by hand
        (:mod:`bacon_bayes.bayes.label_density`), or None where it has none."""
        return None

    def _joint_density(self) -> Any:
        """The joint model's log density written by hand, or None (PyTensor's translation)."""
        return None

    @staticmethod
    def _restrict(labels: dict, rows: np.ndarray) -> dict:
        """Label data on ``rows`` only (the items labeled in any fold): the label
        likelihood then costs O(labeled) and its shape is the same for every fold."""
        return {"label_rows": rows, **{k: np.asarray(v)[rows] for k, v in labels.items()}}

    def _sample(
        self,
        compiled,
        data: dict,
        seed: int,
        draws: int | None = None,
        tune: int | None = None,
        target_accept: float | None = None,
        desc: str = "sampling",
    ) -> tuple[Any, float]:
        return self._sample_many(compiled, [data], [seed], draws, tune, target_accept, desc)[0]

    def _sample_many(
        self,
        compiled,
        datas: list[dict],
        seeds: list[int],
        draws: int | None = None,
        tune: int | None = None,
        target_accept: float | None = None,
        desc: str = "sampling",
    ) -> list[tuple[Any, float]]:
        """Sample each of ``datas`` with its seed, at once where the sampler allows
        (:meth:`~bacon_bayes.bayes.nuts.CompiledSampler.run_many`); ``desc`` names the
        run on the progress bar."""
        return compiled.run_many(
            datas,
            seeds,
            draws=self.draws if draws is None else draws,
            tune=self.tune if tune is None else tune,
            chains=self.chains,
            target_accept=self.target_accept if target_accept is None else target_accept,
            low_rank=self.low_rank,
            desc=desc,
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
            type(self).__module__, type(self).__qualname__,
            sorted((k, pr[k]) for k in JUDGE_PRIORS),
            self.sampler, self.draws, self.tune, self.chains, self.seed,
            self.target_accept, self.low_rank,
        )  # fmt: skip
        h.update(repr(settings).encode())
        return h.hexdigest()

    def _fit_judges(self, arrays: dict) -> tuple[Any, Diagnostics]:
        """Stage 1 of the cut fit (label-free; shared by every fold): posterior and
        convergence diagnostics.

        Kept for reuse (keyed by :meth:`_judges_key`) on the instance and, for the last
        one sampled in this process, module-wide: fitting a model with the same judge
        priors and sampler settings (seed included) on the same X with other labels
        (another pilot, another trial of a simulation study, another calibrator) skips
        stage 1 and reports the same diagnostics (seconds included) as the fit that
        sampled it. The draws are those a new run gives (same seed, same data);
        :func:`forget_judge_stage` frees the module's copy.
        """
        key = self._judges_key(arrays)
        kept = self.__dict__.get("_judges_kept_")
        if kept is not None and kept[0] == key:
            return kept[1]
        if key not in _JUDGE_STAGE:
            stage = self._sample_judges(arrays)
            _JUDGE_STAGE.clear()
            _JUDGE_STAGE[key] = stage
        self._judges_kept_ = (key, _JUDGE_STAGE[key])
        return _JUDGE_STAGE[key]

    def _sample_judges(self, arrays: dict) -> tuple[Any, Diagnostics]:
        """Sample stage 1; when it misses R-hat <= 1.01 or diverged, once more with
        twice the tuning and draws (and ``target_accept`` at least
        :data:`RETRY_TARGET_ACCEPT` after divergences), keeping that run whatever it
        gives (the label stage's rule, :meth:`_fit_cut`)."""
        compiled = self._compile("judges", arrays, {})
        data = _data(arrays, {})
        idata, secs = self._sample(compiled, data, self.seed, desc="judge model")
        engine = compiled.engine
        accept = self.target_accept
        diag = check_convergence(
            idata, sampler=engine, seconds=secs, warn=False, target_accept=accept
        )
        if not diag.ok:
            if diag.n_divergent:
                accept = max(accept, RETRY_TARGET_ACCEPT)
            idata, more = self._sample(
                compiled, data, self.seed + 1, 2 * self.draws, 2 * self.tune, accept,
                "judge model, longer",
            )  # fmt: skip
            diag = check_convergence(
                idata, sampler=engine, seconds=secs + more, warn=False, target_accept=accept
            )
        if not diag.ok:  # which stage, and the user's target_accept beside the retry's
            asked = self.target_accept if accept != self.target_accept else None
            diag = dataclasses.replace(diag, stage=SHARED_STAGE, asked_accept=asked)
        if self.warn:
            warn_if_poor(diag)
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
        self._check_settings()
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
        agreed = consensus(arrays["L"]) if self._weights_chosen_per_fit() else None
        group = self.design_.group_index(X) if self._group_effects() else None
        folds = []
        for k in range(n_folds):
            train = labeled & (fold_ids != k) if holdout else labeled
            labels, const = self._label_data(np.where(train, y, np.nan), train, scores)
            if self._judge_weights():
                const["judge_weights"] = float(self._weights_pay(arrays, y, train, agreed))
            if group is not None:
                self._add_groups(labels, const, group, train)
            folds.append((labels, const))
        self._weigh_folds(arrays, folds)
        folds = [(self._restrict(labels, rows), const) for labels, const in folds]
        if mode == "cut":
            return self._fit_cut(arrays, rows, folds)
        compiled = self._compile("joint", arrays, folds[0][0])
        datas = [_data(arrays, labels) for labels, _ in folds]
        seeds = [self.seed + k for k in range(len(folds))]
        runs = self._sample_many(compiled, datas, seeds, desc=f"{type(self).__name__}, folds")
        fits = []
        for (_, const), (idata, secs) in zip(folds, runs, strict=True):
            diag = self._diagnose(idata, secs, compiled.engine)
            idata = _unlabeled_groups_zeroed(_unweighted(idata, self, const), self, const)
            fits.append(copy.copy(self)._finish(idata, diag, const))
        return fits

    def _add_groups(self, labels: dict, const: dict, group: np.ndarray, train: np.ndarray) -> None:
        """Give a fit's labels the items' group one-hot design (``g``, (n, G); a row of
        zeros where an item has no group) and its constants the training labels per group
        (``group_labels``: the groups with none keep effect 0 in predictions)."""
        n_groups = len(self.columns.groups)
        onehot = np.zeros((group.size, n_groups))
        has = group >= 0
        onehot[np.flatnonzero(has), group[has]] = 1.0
        labels["g"] = onehot
        counts = np.bincount(group[has & train], minlength=n_groups)
        const["group_labels"] = counts.astype(float)

    def _weights_pay(self, arrays: dict, y: np.ndarray, train: np.ndarray, agreed) -> bool:
        """Judge weights for a fit on ``train``: forced, or chosen from its labels
        (``agreed``: every item's judge :func:`~bacon_bayes.bayes.selection.consensus`)."""
        if not self._weights_chosen_per_fit():
            return True
        return prefers_judge_weights(y[train], arrays["L"][train], agreed[train])

    def _weights_chosen_per_fit(self) -> bool:
        """Whether ``judge_weights="auto"`` leaves the choice to each fit's labels (the
        families with ``weights_by_default`` always weigh the judges)."""
        return (
            self._judge_weights() and self.judge_weights == "auto" and not self.weights_by_default
        )

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

        Stage 2 runs ``label_draws`` draws per chain (when a fold's block does not
        converge, once more with as many draws as stage 1 has; that run is kept); each
        fold's stored posterior pairs them with as many stage-1 draws, evenly thinned,
        and re-expresses each paired link draw on its stage-1 draw's latent scale
        (:meth:`_aligned`). Convergence is checked on each stage's own draws (stage 1 on
        all of them) and reported as the worst of both.
        """
        judges, judge_diag = self._fit_judges(arrays)
        engine = self._resolved_engine()
        items = self._latent_summary(arrays, judges.posterior, rows)
        if self._label_uses_embedding():
            items["q"] = arrays["Q"][rows]
        data = _fold_blocks(items, [labels for labels, _ in folds])
        compiled = self._compile("labels", arrays, data)
        longest = judges.posterior.sizes["draw"]
        draws = min(self.label_draws, longest)
        what = f"label links of {len(folds)} fold(s)"
        idata, secs = self._sample(compiled, data, self.seed + 1000, draws=draws, desc=what)
        blocks, links = self._link_blocks(idata, folds, secs, engine)
        if draws < longest and not all(d.ok for d in links):
            # a fold's link did not converge: run stage 2 once more, longer (as many
            # draws as stage 1), and keep that run whatever it gives
            idata, more = self._sample(
                compiled, data, self.seed + 1001, draws=longest, desc=f"{what}, longer"
            )
            secs += more
            blocks, links = self._link_blocks(idata, folds, secs, engine)
        judges = _thin_draws(judges, idata.posterior.sizes["draw"])
        shift, stretch = self._latent_alignment(arrays, judges.posterior, rows, items["m"])
        fits = []
        shared: dict = {}  # z's per-draw moments of the Xs predicted last: the same in every fold
        collapsed = "g" in data and self.collapses_groups
        for k, (block, link, (_, const)) in enumerate(zip(blocks, links, folds, strict=True)):
            if self.warn:
                warn_if_poor(link, where=f" in fold {k + 1} of {len(folds)}" * (len(folds) > 1))
            diag = merge_diagnostics([judge_diag, link])
            if collapsed:  # before the alignment: stage 2's own latent scale
                self._with_group_draws(block, data, k)
            block = _unlabeled_groups_zeroed(self._aligned(block, shift, stretch), self, const)
            fit = copy.copy(self)._finish(_combine(judges, block), diag, const)
            fit._latent_cache_ = shared
            fits.append(fit)
        return fits

    def _with_group_draws(self, block: Any, data: dict, k: int) -> None:
        """Add fold ``k``'s group effects to its block of a stage-2 run that integrated
        them out (``collapses_groups``): per draw, one draw from their conditional posterior
        (:meth:`_draw_group_effects`; seeded by the model's seed and the fold)."""
        post = block.posterior
        shape = (post.sizes["chain"], post.sizes["draw"])
        values = {
            str(n): np.asarray(da.values).reshape(-1, *da.shape[2:]) for n, da in post.items()
        }
        fold = {key: np.asarray(arr)[k] for key, arr in data.items()}
        rng = np.random.default_rng([self.seed, 2000 + k])
        name = self.group_effect_names[0]
        effects = self._draw_group_effects(values, fold, rng).reshape(*shape, -1)
        post[name] = (("chain", "draw", f"{name}_dim_0"), effects)

    def _draw_group_effects(self, post: dict, data: dict, rng: np.random.Generator) -> np.ndarray:
        """A family hook (``collapses_groups``): one fit's group effects (draws, G) drawn
        from their conditional posterior, given each draw's link parameters ``post``
        (draws, ...) and the fit's stage-2 data ``data`` (one fold's rows)."""
        raise NotImplementedError

    def _link_blocks(
        self, idata: Any, folds: list, secs: float, engine: str
    ) -> tuple[list[Any], list[Diagnostics]]:
        """Each fold's block of a stage-2 run and its convergence (not warned about)."""
        blocks = [_unweighted(_fold_block(idata, k), self, c) for k, (_, c) in enumerate(folds)]
        accept = self.target_accept
        diags = [
            check_convergence(b, sampler=engine, seconds=secs, warn=False, target_accept=accept)
            for b in blocks
        ]
        diags = [d if d.ok else dataclasses.replace(d, stage="label link") for d in diags]
        return blocks, diags

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
        return check_convergence(
            idata, sampler=engine, seconds=secs, warn=self.warn, target_accept=self.target_accept
        )
