"""``Calibrator``: features, cross-fitted outcome model, and every estimand on top."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from bacon_bayes import estimands, grouping, sequential
from bacon_bayes import estimate as est
from bacon_bayes import pairs as pairs_mod
from bacon_bayes import surrogates as sur
from bacon_bayes.arguments import Settings, as_pair, check_settings, drawn_seed, flag
from bacon_bayes.crossfit import CrossFitResult, cross_fit
from bacon_bayes.errors import NotFittedError, PoolWarning, ValidationError
from bacon_bayes.estimate.critical import simultaneous_rule
from bacon_bayes.estimate.tables import implied_by_groups
from bacon_bayes.features import build_features
from bacon_bayes.frozen import grouped_features
from bacon_bayes.items import item_table
from bacon_bayes.memo import memoized
from bacon_bayes.model_choice import resolve_model
from bacon_bayes.pool import EvalPool
from bacon_bayes.results import Estimate, EstimateTable, RankTable
from bacon_bayes.scale import label_bounds, labels_outside

if TYPE_CHECKING:
    from bacon_bayes.outputs import Output

Method = Literal["aee", "classical", "naive"]
ItemMethod = Literal["conformal", "posterior"]
MIN_GROUP_LABELS = grouping.MIN_GROUP_LABELS
Pooling = Literal["auto", "shrink", "separate"]


def _read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``: what the calibrator hands out and keeps using."""
    view = a.view()
    view.flags.writeable = False
    return view


class Calibrator(Settings):
    """Calibrate AI-judge scores against a few human labels.

    Parameters
    ----------
    model : str, optional
        Outcome family: ``ridge``/``gaussian``, ``hurdle``, ``ordinal``,
        ``multinomial`` (default: by the pool's outcome type), or an unfitted
        estimator following the outcome-model protocol (:mod:`bacon_bayes.outcome`;
        a scikit-learn regressor with ``predict`` only: no quantiles, posterior or
        thresholded item scores, each refused naming the method it lacks).
    engine : {"auto", "bayes", "freq"}
        ``"bayes"``: hierarchical PyMC judge models; ``"freq"``: scikit-learn
        models; ``"auto"``: Bayesian where the family has one (gaussian, ordinal,
        hurdle), else frequentist; categorical labels take the frequentist multinomial
        logistic, which predicts better (:data:`~bacon_bayes.model_choice.AUTO_FREQUENTIST`).
    folds, seed : int
        Cross-fitting folds and seed (results are deterministic under the seed;
        ``seed=None`` draws a fresh one at each fit, so results then vary from run to run;
        the seed used is kept as ``seed_``, in :meth:`summary` and the saved file, so
        ``seed=cal.seed_`` redoes the fit).
        The folds are dealt to the labeled items by their position in the pool, not by
        their ids (:func:`bacon_bayes.crossfit.make_folds`): the same pool in another row
        order gives other folds and other estimates, as another seed would. Row order
        acts like the seed (with prompts, folds are dealt by prompt name instead).
    power_tuning : bool
        PPI++ weighting of the surrogate (can only lower the variance).
    hajek : bool
        Self-normalised correction (default) or Horvitz-Thompson.
    target : {"pool", "population"}
        The pool itself (finite-population correction, default) or the
        population the pool was drawn from (``"superpopulation"``: the same); with
        prompts in the pool, its prompts are the sample, and variances are clustered
        by prompt (:mod:`bacon_bayes.estimate.clustered`).
    winsor : (float, float)
        Quantiles at which judge features are clipped, ``0 <= lower < upper <= 1``
        (``(0, 1)``: no clipping).
    n_components : int, optional
        PCA components kept from the embedding.
    scale : (float, float), optional
        The label's allowed range (e.g. ``(1, 5)``), when the outcome type does not give
        it already. Every interval is intersected with the label's range (levels of an
        ordinal/categorical label, zero for a non-negative one, and ``scale``), which
        keeps its coverage.
    preset : str, optional
        A model preset (name of a shipped one, see
        :func:`bacon_bayes.presets.available_presets`, or a path to a ``.toml`` file):
        sets the family (``model``, when given, must match), the Bayesian engine
        (``engine`` must be ``"auto"`` or ``"bayes"``), the priors and sampler settings.
    surrogates : list of str, optional
        Extra surrogates combined with the model's own in the AEE mean (and group
        means) with the variance-minimising weights: ``"freq"`` (the frequentist model
        of the family, e.g. the ridge), a frequentist family (``"ridge"``, ``"hurdle"``,
        ``"ordinal"``, ``"multinomial"``) or ``"judge_mean"`` (the raw judge average);
        see :mod:`bacon_bayes.surrogates`. Default: ``["judge_mean"]`` when the
        Bayesian engine runs (its posterior mean combined with the judge mean: measured
        better than either, while the ridge added only noise; the multinomial: none);
        with the frequentist engine the small-budget rule (``"small-budget"``): below 20
        labels per model coefficient the judges' leave-one-out ridge in place of the
        model's surrogate (``["judge_ridge", "no_model"]``), none from there on; ``[]``
        for the model's surrogate alone. Quantiles and item scores use the model's own
        surrogate. :meth:`apply` puts the saved model back in the means.
    pooling : {"auto", "shrink", "separate"}
        How group means use the other groups' labels (the default of
        :meth:`estimate_groups`, :meth:`compare_groups` and :meth:`rank_groups`).
    group_effects : {"auto", True, False}
        Bayesian engine: the judge model's group level (``"auto"``: from 3 groups; an
        unseen group gets effect 0; :class:`~bacon_bayes.bayes.base.JudgeModel`). True
        is refused where it cannot apply (the frequentist engine, a pool without groups,
        the multinomial).
    """

    #: set by save/load: the id of the saved file; by apply: the round it came from
    save_id_: str | None
    #: set by fit (and load): the seed the fit used, ``seed`` or the one ``seed=None`` drew
    seed_: int
    frozen_: Any
    refit_: dict[str, Any]

    def __init__(
        self,
        model: str | Any | None = None,
        *,
        engine: str = "auto",
        folds: int = 5,
        seed: int = 0,
        power_tuning: bool = True,
        hajek: bool = True,
        target: est.Target = "pool",
        winsor: tuple[float, float] = (0.005, 0.995),
        n_components: int | None = None,
        scale: tuple[float, float] | None = None,
        preset: str | None = None,
        surrogates: list[str] | None = None,
        pooling: Pooling = "auto",
        group_effects: bool | str = "auto",
    ) -> None:
        self.model = model
        self.engine = engine
        self.folds = folds
        self.seed = seed
        self.power_tuning = power_tuning
        self.hajek = hajek
        self.target = target
        self.winsor = winsor
        self.n_components = n_components
        self.scale = scale
        self.preset = preset
        self.surrogates = surrogates
        self.pooling = pooling
        self.group_effects = group_effects

    # ------------------------------------------------------------------ fitting
    def _check_scale(self, pool: EvalPool) -> None:
        if (pair := as_pair(self.scale, "scale", "(1, 5)")) is None:
            return
        lo, hi = pair
        if not lo < hi:
            raise ValidationError(f"scale {self.scale!r} must be (low, high) with low < high.")
        if (where := labels_outside(pool, lo, hi)) is not None:
            raise ValidationError(f"{where}; fix the labels or the scale.")

    @property
    def bounds_(self) -> tuple[float, float]:
        """Range every interval is intersected with: the outcome's and ``scale``."""
        return label_bounds(self.pool_.outcome, self.scale)

    def fit(self, pool: EvalPool) -> Calibrator:
        """Build features, cross-fit the model; returns self (warns of :meth:`pool_warnings`)."""
        if not isinstance(pool, EvalPool):
            raise ValidationError(
                f"fit expects an EvalPool (build one with EvalPool.from_frame), got "
                f"{type(pool).__name__}."
            )
        check_settings(self, pool.embedding)
        self._check_scale(pool)
        self.pool_ = pool
        self.seed_ = drawn_seed(self.seed)  # seed=None: the one drawn, kept to redo the fit
        self.features_ = build_features(
            pool, winsor=self.winsor, n_components=self.n_components, seed=self.seed_
        )
        self.model_, self.model_name_, self.engine_ = resolve_model(self, pool, self.features_)
        X = grouped_features(self, pool)  # a judge model's X: with the pool's groups
        self.crossfit_: CrossFitResult = cross_fit(
            self.model_, X, pool.y, folds=self.folds, seed=self.seed_, pi=pool.propensity,
            clusters=pool.prompts,
        )  # fmt: skip
        scored = bool(pool.judge_matrix().notna().any(axis=1).all())
        size = (pool.n_labeled, self.features_.X.shape[1]) if self.power_tuning else None
        names = sur.resolve(self.surrogates, self.model_name_, self.engine_, scored, size)
        self.extras_ = sur.fit_extras(names, pool, self.features_, self.crossfit_)
        for note in self.pool_warnings():  # kept: the commands print them among their notes
            # 3: the user's line, past Settings' keyword check (arguments.named_keywords)
            warnings.warn(note, PoolWarning, stacklevel=3)
        return self

    @memoized
    def pool_warnings(self) -> tuple[str, ...]:
        """Unscored rows and unfit judges (:func:`bacon_bayes.doctor.pooled.judge_warnings`);
        applied to a new pool, its judges the saved models do not read."""
        from bacon_bayes.doctor.pooled import judge_warnings
        from bacon_bayes.frozen import unused_judges_note

        self._check_fitted()
        unused = unused_judges_note(self)
        return tuple(judge_warnings(self.pool_)) + ((unused,) if unused else ())

    def apply(
        self, pool: EvalPool, refit: bool = False, surrogates: list[str] | None = None
    ) -> Calibrator:
        """This calibration, frozen, on a new pool (the next round: new items, systems or
        model versions scored by the same judges): a calibrator of ``pool`` whose
        surrogate is this one's fold models (fitted on the old labels only), so every
        estimate uses ``pool``'s own labels for the correction and holds however the
        old calibration transports; at least ``MIN_FRESH_LABELS`` (10) are needed.
        ``refit``: models trained on the old labels and the new ones, cross-fitted over
        the new (see :mod:`bacon_bayes.frozen`). ``surrogates``: the AEE means' extra
        surrogates; default this calibrator's, with its model in the means (where the
        small-budget rule left it out of a fresh fit's) and the judges' ridge refitted
        on the fresh labels; ``[]`` for the frozen model alone
        (:func:`bacon_bayes.frozen.round_surrogates`)."""
        from bacon_bayes.frozen import freeze_calibrator, refit_calibrator, unused_judges_note

        new = (refit_calibrator if refit else freeze_calibrator)(self, pool, surrogates)
        if unused := unused_judges_note(new):  # the commands print it among their notes
            warnings.warn(unused, PoolWarning, stacklevel=3)
        return new

    def predict(
        self, pool: EvalPool, level: float = 0.9, method: ItemMethod = "conformal"
    ) -> pd.DataFrame:
        """Calibrated score and ``level`` interval of every item of a new pool
        (:meth:`item_scores` of :meth:`apply`; conformal intervals come from the new
        pool's labels, or without enough of them for ``level`` from these and this
        calibrator's own residuals)."""
        return self.apply(pool).item_scores(level, method)

    def save(self, path: str | Path | Output, *, overwrite: bool = False) -> Path:
        """Write the fitted calibrator to a NetCDF file (see :mod:`bacon_bayes.persist`).

        The commands' rules for outputs (:func:`bacon_bayes.outputs.write_output`): the
        name must end in ``.nc``, and an existing file is replaced only when bacon wrote
        it and it is unchanged since (a data table, a file of another program's or one
        edited since is refused) unless ``overwrite=True``."""
        from bacon_bayes.outputs import write_output
        from bacon_bayes.persist import save_calibrator

        if hasattr(self, "frozen_"):
            raise ValidationError(
                "this calibrator applies another one to a new pool (Calibrator.apply); save "
                "the calibrator it came from, or fit one on the new pool (--refit; "
                "apply(pool, refit=True) in Python)"
            )
        return write_output(
            path,
            lambda target: save_calibrator(self, target),
            option="Calibrator.save path",
            suffixes=(".nc",),
            overwrite=overwrite,
        )

    @classmethod
    def load(cls, path: str | Path) -> Calibrator:
        """Read a calibrator written by :meth:`save`; its estimates equal the saved ones."""
        from bacon_bayes.persist import load_calibrator

        return load_calibrator(path, cls)

    def _check_fitted(self) -> None:
        if not hasattr(self, "crossfit_"):
            raise NotFittedError("this Calibrator is not fitted yet; call fit(pool) first.")

    @property
    def surrogate_(self) -> np.ndarray:
        """Cross-fitted ``E[Y|x]`` per item (out-of-fold for labeled items); read-only, as
        ``pool_.y`` (an edit in place would change every later item score: copy it)."""
        self._check_fitted()
        return _read_only(self.crossfit_.mean)

    @property
    def surrogate_names_(self) -> tuple[str, ...]:
        """The surrogates the AEE mean combines: the model's own, then the extras."""
        self._check_fitted()
        return sur.names(f"{self.model_name_} ({self.engine_})", self.extras_)

    @memoized
    def surrogate_matrix(self, domains: np.ndarray | None = None) -> np.ndarray:
        """The model's surrogate (N,), or (N, 1 + k) with the extras, for the AEE means."""
        self._check_fitted()
        if not self.extras_:
            return _read_only(self.crossfit_.surrogate(domains))
        return _read_only(sur.matrix(self.crossfit_, self.extras_, self.pool_, domains))

    # ---------------------------------------------------------------- estimands
    def estimate_mean(
        self, alpha: float = 0.05, method: Method = "aee", anytime: bool = False,
        max_labels: int | None = None,
    ) -> Estimate:  # fmt: skip
        """Mean human label of the pool (``method``: aee, classical or naive baseline);
        the interval is intersected with the label's range (:attr:`bounds_`). ``anytime``:
        the interval of a sequence valid at every wave whatever the stopping rule (up to
        ``max_labels`` by alpha-spending, else a confidence sequence; :mod:`.sequential`).
        Alpha-spending with the frequentist engine refits each earlier wave's look (the
        calibrator's settings on the labels up to it) and puts the boundary on the looks'
        own correlation; the Bayesian engine keeps the canonical one
        (``details["anytime"]["correlation"]``; :mod:`.look_fits`).

        Returns
        -------
        Estimate
            ``estimate``, ``se`` and a ``1 - alpha`` interval ``ci_low``-``ci_high`` of the
            pool's mean label (``target="population"``: the population's), Student-t on
            Satterthwaite's degrees of freedom (``details["df"]``): approximately valid
            whatever the surrogate, which changes only its width; ``anytime``: at every wave.
        """
        sequential.check_max_labels(anytime, max_labels)
        e = estimands.mean(self, alpha, method)
        if anytime:
            return sequential.mean(self, e, max_labels).clip(*self.bounds_)
        p = self.pool_
        n = est.effective_labels(
            p.labeled, p.propensity, None if p.inclusion is None else p.prompts
        )
        return est.at_range_end(e.clip(*self.bounds_), p.y[p.labeled], *self.bounds_, n)

    def quantile_grid(self) -> np.ndarray:
        """Candidate values for quantiles: the levels, or labels and surrogate quantiles."""
        return estimands.quantile_grid(self)

    def estimate_quantile(self, q: float, alpha: float = 0.05, method: Method = "aee") -> Estimate:
        """Quantile ``q`` of the human labels over the pool.

        Returns
        -------
        Estimate
            The quantile and its ``1 - alpha`` Woodruff interval (the CDF's interval at the
            estimate inverted), intersected with the label's range.
        """
        return estimands.quantile(self, q, alpha, method).clip(*self.bounds_)

    def _groups(self) -> np.ndarray:
        if self._pairs():
            raise ValidationError(
                "a pool of comparisons (EvalPool.from_pairs) has no group per row: each row "
                "pairs two models. The models' values are Bradley-Terry strengths: "
                "cal.estimate_bradley_terry() (compare_groups and rank_groups give their "
                "differences and ranks)."
            )
        if self.pool_.groups is None:
            raise ValidationError(
                "the pool has no group column; build it with EvalPool.from_frame(..., group=COL)."
            )
        return self.pool_.groups

    @memoized
    def estimate_groups(
        self,
        alpha: float = 0.05,
        simultaneous: bool | str = True,
        method: Method = "aee",
        interval: Literal["bootstrap", "t"] = "bootstrap",
        pooling: Pooling | None = None,
        anytime: bool = False,
        max_labels: int | None = None,
    ) -> EstimateTable:
        """Mean per group with a joint covariance; simultaneous intervals by default
        (``anytime``, ``max_labels``: as in :meth:`estimate_mean`, each row's guarantee kept).

        ``pooling`` (default: the calibrator's): ``"shrink"`` borrows strength across
        groups: each group's correction is shrunk toward the pool's and its robust
        empirical-Bayes interval holds on average over the groups (and at least at
        ``1 - 2 alpha`` for each), or family-wise with ``simultaneous``
        (:func:`bacon_bayes.estimate.shrunk_group_means`); every group with a label gets
        an interval. ``"separate"`` is each group's own AEE mean, its interval valid for
        that group (:func:`bacon_bayes.estimate.aee_group_means`): a group with fewer
        than 5 labels gets no interval (NaN, with the reason in ``details["no_interval"]``
        and ``to_frame()``'s ``note``). ``"auto"`` (default)
        shrinks when some group has fewer than 10 labels and at least three groups have
        labels (:meth:`pooling_for`). Either way a group without labels keeps its
        surrogate's mean, marked UNVALIDATED, and never blocks the others;
        ``details["guarantee"]`` says which guarantee the intervals carry (and
        ``details["se"]`` that a shrunk mean's se is its noise alone). Where the
        intervals are clustered by prompt (``target="population"`` with prompts, or a
        design that drew prompts) ``"auto"`` keeps the groups separate (their means are
        correlated, which the shrinkage does not model): ``details["pooling_note"]`` says
        so where it would otherwise shrink, and warns on an explicit ``"shrink"``. The
        classical means are each group's own labels' mean unless ``"shrink"`` is asked for.

        ``simultaneous``: True/"maxt" (max-|t| of the joint distribution),
        "bonferroni", or False/"none" (pointwise). ``interval`` (separate): critical
        values from a studentised bootstrap within groups (seeded by ``seed``; needs 10
        labels per group, else Student-t) or from Student-t. Intervals are intersected
        with the label's range.

        Returns
        -------
        EstimateTable
            One row per group (``names``, ``estimate``, ``se``, ``ci_low``, ``ci_high``,
            ``n_labeled``, ``n_items``; ``cov`` their joint covariance; ``table[name]``
            one row, ``to_frame()`` all). Separate means' intervals hold jointly at
            ``1 - alpha`` with ``simultaneous``, each at ``1 - alpha`` without; shrunk
            ones as ``details["guarantee"]`` says (above).
        """
        sequential.check_max_labels(anytime, max_labels)
        how = simultaneous_rule(simultaneous)
        wanted = self.pooling if pooling is None else pooling
        table = grouping.group_means(
            self, alpha, how, method, interval, self.pooling_for(method, pooling), wanted
        )
        table = estimands.naive(self, table) if method == "naive" else table
        if anytime:
            table = sequential.groups(self, table, max_labels).clip(*self.bounds_)
        return table.read_only()  # kept and shared by every later call (memoized)

    def pooling_for(self, method: Method = "aee", pooling: Pooling | None = None) -> str:
        """The pooling ``estimate_groups`` uses for ``method`` (``pooling=None``: the
        calibrator's), by :func:`~bacon_bayes.estimate.shrink.choose_pooling` on the
        groups' labels. The naive average is never shrunk, and the classical means are
        each group's own labels' mean unless ``"shrink"`` is asked for: ``"auto"`` keeps
        them separate (the labels-only baseline a user computes by hand)."""
        if method == "naive":
            return "separate"
        self._check_fitted()
        wanted = self.pooling if pooling is None else pooling
        if method == "classical" and wanted == "auto":
            return "separate"
        return grouping.pooling(self, wanted)

    @memoized
    def compare_groups(
        self,
        alpha: float = 0.05,
        simultaneous: bool | str = True,
        method: Method = "aee",
        pooling: Pooling | None = None,
        anytime: bool = False,
        max_labels: int | None = None,
        baseline: str | None = None,
    ) -> EstimateTable:
        """All pairwise differences of group means, or with ``baseline`` (a group's name)
        every other group against it, with joint intervals (intersected with the range a
        difference of two labels' means can take); ``pooling`` as in
        :meth:`estimate_groups` (shrunk differences hold on average over the pairs, or
        family-wise with ``simultaneous``); ``anytime``, ``max_labels``: as there (and for
        :meth:`rank_groups`, whose rank intervals then come from all pairs' differences).
        On comparisons: differences of Bradley-Terry strengths (:mod:`bacon_bayes.pairs`).

        Against a baseline the joint intervals hold over its ``m - 1`` differences alone
        (Dunnett's max-|t| on their own correlation, or Bonferroni at ``alpha / (m - 1)``),
        narrower than all pairs' joint ones; pointwise, each row is all pairs' row of the
        same two groups (:func:`bacon_bayes.estimate.compare`).

        Returns
        -------
        EstimateTable
            One row per pair, named ``"A - B"`` (``A`` before ``B`` in the groups' order;
            ``details["pairs"]``; against a baseline ``"G - BASE"`` for every other group
            ``G`` in the groups' order, and ``details["baseline"]``), as
            :meth:`estimate_groups`'s table: the intervals hold jointly at ``1 - alpha``
            over the table's rows with ``simultaneous`` (shrunk: as ``details["guarantee"]``
            says); a pair with a group without an interval has none.
        """
        sequential.check_max_labels(anytime, max_labels)
        if self._pairs(anytime):  # kept and shared by every later call (memoized)
            return pairs_mod.strength_differences(
                self, alpha, simultaneous, method, baseline
            ).read_only()
        table = self.estimate_groups(alpha, simultaneous, method, pooling=pooling)
        lo, hi = self.bounds_
        if anytime:  # on the Student-t basis (est.compare's resampled)
            fixed = est.compare(table, resampled=False, baseline=baseline)
            diffs = sequential.differences(self, table, fixed, max_labels)
        else:  # the groups' joint intervals, where they imply narrower ones
            diffs = implied_by_groups(table, est.compare(table, baseline=baseline))
        return diffs.clip(lo - hi, hi - lo).read_only()

    def rank_groups(
        self,
        alpha: float = 0.05,
        method: Method = "aee",
        descending: bool = True,
        pooling: Pooling | None = None,
        anytime: bool = False,
        max_labels: int | None = None,
    ) -> RankTable:
        """Groups ranked by mean (1 = highest if ``descending``), simultaneous rank intervals
        beside the group means' intervals (``anytime``: both anytime); on comparisons,
        models ranked by strength.

        Returns
        -------
        RankTable
            A DataFrame, best first: :meth:`estimate_groups`'s simultaneous table
            (``name``, ``estimate``, ``se``, ``ci_low``, ``ci_high``, ``n_labeled``,
            ``n_items``) with ``rank``, ``rank_low`` and ``rank_high``; the rank intervals
            hold for all groups together at ``1 - alpha`` at least (from
            :meth:`compare_groups`'s simultaneous differences). It carries that group
            table (``.table``), ``.details`` (the guarantee of each) and ``.to_frame()``.
        """
        flag(descending, "descending")
        sequential.check_max_labels(anytime, max_labels)
        if self._pairs(anytime):
            return pairs_mod.strength_ranks(self, alpha, method, descending)
        table = self.estimate_groups(alpha, True, method, pooling=pooling, anytime=anytime,
                                     max_labels=max_labels)  # fmt: skip
        d = self.compare_groups(alpha, True, method, pooling, anytime, max_labels)
        ranks = est.rank_intervals(table, descending=descending, diffs=d)
        return RankTable.of(table, ranks, d, descending)

    def _pairs(self, anytime: bool = False) -> bool:
        """Whether the pool holds comparisons (``anytime`` refused for them)."""
        pairs = getattr(getattr(self, "pool_", None), "pairs", None) is not None
        if pairs and anytime:
            raise ValidationError("anytime intervals are not available for comparisons.")
        return pairs

    def estimate_bradley_terry(
        self, alpha: float = 0.05, simultaneous: bool = False, scale: str = "logit",
        method: Literal["aee", "labels"] = "aee",
    ) -> EstimateTable:  # fmt: skip
        """Bradley-Terry strengths of a pool of comparisons (:meth:`EvalPool.from_pairs`)
        with AEE intervals from the cross-fitted ``E[y]``, or the human labels alone
        (``method="labels"``); see :func:`bacon_bayes.estimate.bradley_terry.bradley_terry`.
        With ``target="population"`` and a pool prompt column that repeats, the
        intervals are clustered by prompt."""
        from bacon_bayes.pairs import bradley_terry_table

        return bradley_terry_table(
            self, alpha=alpha, simultaneous=simultaneous, scale=scale, method=method
        )

    def report(
        self,
        path: str | Path | Output,
        *,
        simulate: str | Path | None = None,
        overwrite: bool = False,
        **kwargs: Any,
    ) -> Path:
        """Write one self-contained HTML page of this calibrator's results to ``path``
        (settings and diagnostics, estimates, groups, judge bias, calibration, items;
        with ``simulate``, the curves of a ``bacon simulate`` output folder and its oracle
        ablation). Keyword arguments go to :func:`bacon_bayes.report.html.render_report`.
        The name must end in ``.html`` (or ``.htm``), and an existing file is replaced
        only when bacon wrote it and it is unchanged since, unless ``overwrite=True`` (as
        :meth:`save`)."""
        from bacon_bayes.outputs import write_output
        from bacon_bayes.report.html import write_report
        from bacon_bayes.report.simulate_folder import read_simulate_folder

        found = {} if simulate is None else read_simulate_folder(simulate)
        return write_output(
            path,
            lambda target: write_report(self, target, **found, **kwargs),
            option="Calibrator.report path",
            suffixes=(".html", ".htm"),
            overwrite=overwrite,
            inputs=[simulate],
        )

    # ------------------------------------------------------------- judge bias
    def judge_bias(self, level: float = 0.9, plot_path: str | None = None) -> pd.DataFrame:
        """Per-judge bias with central ``level`` intervals, for either engine.

        ``bias``: the judge's expected score minus the human label at the pool's typical
        item, on the label's scale, with ``bias_low``/``bias_high``; NaN (and
        ``same_scale`` False) for a judge that does not score on the label's scale (its
        scores against the range, and ``scale=`` when that range is the labels seen, said
        in a ``note`` column) or falls as the label rises (a reversed scale, said so), for
        which ``noise_human`` (its error once calibrated to the human scale) is the
        figure to read. Also offset, scale and noise of ``judge = offset + scale *
        human + noise``. Frequentist engine: ``human`` is the label, from the data
        (:mod:`bacon_bayes.judge_bias`; the interval of ``bias`` is the AEE interval of
        the human mean, reflected). Bayesian engine: ``human`` is the quality the
        judges share on the label's scale, ``E[label | latent]``, of sd ``quality_sd``
        (below the labels': ``scale`` and ``noise_human`` are per unit of it, read
        against it), posterior means and intervals of the measurement model
        (:mod:`bacon_bayes.bayes.bias`); multinomial: false-positive/false-negative
        rates (binary) or per-class accuracy relative to the model's latent class, and class
        means for continuous judges. The draws of the cross-fitting fold models are
        pooled: every fold model saw all items' judge scores and the labels outside its
        fold, so the interval is wider than a fit on all labels (``bacon judges``) gives,
        which errs on the honest side: on the example pool (6 judges, seed 0, no groups)
        gpt4's 90% bias interval is 0.26 wide against ``bacon judges``' 0.20. With groups
        in the pool the model fits group effects (``group_effects="auto"``; ``bacon
        judges`` fits none), the human mean at the typical item carries the uncertainty
        of the groups' mean effect, and the intervals are about twice ``bacon judges``'
        (``group="system"``: 0.39; ``group_effects=False``: 0.26 again), while
        ``quality_sd`` and ``noise_human`` come out smaller (0.32 and 0.40 against 0.37
        and 0.45: the group effects hold the systems' share of the quality). Applied to
        a new pool (:meth:`apply`), either engine: the new pool's table from the data,
        its fresh labels correcting (the fold models' posterior is the earlier round's).

        Categorical labels, either engine: a ``type`` column (categorical judges: every
        score an outcome level) and each categorical judge's rates against the human
        label over this pool, ``fpr_human``/``fnr_human`` (two levels) or
        ``acc_human_<level>``: AEE ratio estimates with the cross-fitted class
        probabilities as surrogates, their intervals valid whatever the model
        (:func:`bacon_bayes.judge_bias.human_rates`).
        ``plot_path``: also write the forest plot there (PNG).
        """
        from bacon_bayes.judge_bias import calibrator_judge_bias

        return calibrator_judge_bias(self, level, plot_path)

    # --------------------------------------------------------------- item level
    def item_scores(
        self,
        level: float = 0.9,
        method: ItemMethod = "conformal",
        threshold: float | None = None,
        randomize: bool = False,
    ) -> pd.DataFrame:
        """Calibrated score, interval, rank and flag for every item.

        The score is kept within the label's range (``scale``); ``rank`` is 1 for the
        highest score, and items whose scores were clipped to the same bound tie.

        Parameters
        ----------
        level : float
            Coverage of the item intervals.
        method : {"conformal", "posterior"}
            ``conformal``: split-conformal from out-of-fold residuals weighted by the
            labels' inclusion probabilities (holds without trusting the model, on
            average over the pool's items). With groups, each residual is scaled by its
            group's residual spread, moderated toward the pool's
            (:func:`bacon_bayes.items.group_scales`), so a group the judges score worse
            gets wider intervals; per group the coverage is close to ``level`` but not
            guaranteed (at 0.9, SummEval relevance at 120 labels: 0.902 over all items,
            0.862-0.930 per system, against 0.817-0.949 with one quantile for all;
            WMT22 MQM at 150 labels: 0.908, lowest system 0.884 against 0.797);
            ``posterior``: central interval of the model's predictive distribution
            (where it has an atom at its lower end, e.g. a hurdle's zero, the upper end
            moves down so the interval holds ``level``, not more). For a categorical
            outcome both give a class set (column ``set``, its model probability
            ``set_prob``; ``lower``/``upper``: its smallest and largest level): the most
            probable classes reaching ``level`` (posterior) or split-conformal sets, never
            empty: every class where the model cannot tell (``items.conformal_sets``).
        threshold : float, optional
            Adds ``p_below``, the model's predictive probability that the item's label
            lies below ``threshold``, and ``flag``, ``p_below > 0.5``. Unlike the
            intervals, ``p_below`` is the model's own probability, not calibrated on the
            labels: nothing guarantees it, and a model that fits badly can be
            overconfident. On SummEval coherence at 120 labels (six judges, threshold 3,
            the frequentist engine, 10 label draws) it was about right: of the unlabeled
            items put at 0.7 or more, 0.74 were below, and of the flagged ones 0.65
            (the Bayesian engine, 3 draws: 0.77 and 0.64). ``upper < threshold`` marks
            the items whose interval lies below it, the statement with a guarantee.
        randomize : bool
            Posterior sets of whole levels (ordinal, categorical) hold at least
            ``level`` of the predictive mass, often much more, so they cover more
            than ``level``. ``True`` drops each set's last level with the probability
            that makes its expected mass exactly ``level`` (randomised prediction
            sets, drawn under the fit's seed, ``seed_``: ``seed``, or the one drawn at
            fit for ``seed=None``); a set can then be empty (``NaN`` ends).
            No effect on continuous outcomes or conformal intervals.
        """
        self._check_fitted()
        frozen = self.frozen_.residuals if hasattr(self, "frozen_") else None
        return item_table(
            self.pool_, self.surrogate_, self.crossfit_.cdf, self.quantile_grid, self.bounds_,
            level, method, threshold=threshold, seed=self.seed_ if randomize else None,
            frozen_residuals=frozen,
        )  # fmt: skip

    # ---------------------------------------------------------------- reporting
    def summary(self, alpha: float = 0.05, quantiles: tuple[float, ...] = ()) -> dict[str, Any]:
        """Estimates beside the classical and naive baselines, and what was fitted.

        Returns
        -------
        Summary
            A ``dict`` (JSON-ready, the group tables' covariances included) that prints as
            a few lines: the fit, the mean (and ``quantiles``) by method, the group means.
            The naive baseline is left out where it is none (judges off the label's scale,
            rows no judge scored), the reason in ``naive_left_out``.
        """
        from bacon_bayes.report.text import calibrator_summary

        return calibrator_summary(self, alpha, quantiles)
