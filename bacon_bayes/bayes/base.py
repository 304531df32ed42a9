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
    t_c, t_s ~ Gamma(k, k / prior mean), k = defaults.JUDGE_SD_SHAPE = 6  (zero-avoiding:
    few judges; at k = 2 four SummEval judges diverged in the funnel at t_s near 0.03).

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

from typing import ClassVar

from bacon_bayes.bayes import _backend

_backend.configure_pytensor()

from bacon_bayes.bayes.columns import ColumnSpec  # noqa: E402
from bacon_bayes.bayes.defaults import (  # noqa: E402
    CUT_SUMMARY_DRAWS,
    GROUP_PRIORS,
    INFERENCE,
    JUDGE_PRIORS,
    LATENT_CACHE_SIZE,
    SAMPLER_DEFAULTS,
)
from bacon_bayes.bayes.fitting import JudgeModelFitting  # noqa: E402
from bacon_bayes.bayes.posterior import _fold_blocks, _thin  # noqa: E402
from bacon_bayes.bayes.predict import JudgeModelPrediction  # noqa: E402
from bacon_bayes.bayes.spec import JudgeModelSpec, fold_shape  # noqa: E402

__all__ = [
    "CUT_SUMMARY_DRAWS",
    "GROUP_PRIORS",
    "INFERENCE",
    "JUDGE_PRIORS",
    "LATENT_CACHE_SIZE",
    "SAMPLER_DEFAULTS",
    "JudgeModel",
    "_fold_blocks",
    "_thin",
    "fold_shape",
]


class JudgeModel(JudgeModelSpec, JudgeModelFitting, JudgeModelPrediction):
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
        did not converge: R-hat 1.84 on WMT22). ``"auto"`` (the default) means on for
        the families that measured better with them (``weights_by_default``: the
        gaussian; BENCHMARKS.md "Judge weights always on"); for the others it turns
        them on per fit (per cross-fitting fold, from its training labels) where a
        linear regression on all directions predicts the labels better out of sample
        than one on the consensus alone
        (:func:`~bacon_bayes.bayes.selection.prefers_judge_weights`). The choice is
        kept in ``constants_["judge_weights"]``.
    group_effects : a group level in the label link (``True``, ``False`` or ``"auto"``,
        the default: on when the column spec names at least
        :data:`~bacon_bayes.bayes.defaults.MIN_GROUPS` groups and the family supports
        it). Each part of the link (``group_effect_names``) adds the item's group
        effect ``u_g``, beside the judge weights: ``u_g = tau eta_g``, ``eta_g ~ N(0, 1)``,
        ``tau ~ HalfNormal(group_effect_sd)``, one block per cross-fitting fold. The
        items' groups are codes in X's ``columns.group_col``
        (:func:`~bacon_bayes.bayes.groups.with_group_column`). A group without a training
        label in a fit (and a group the model never saw) predicts with effect 0: its
        posterior is the prior, of mean 0 (``constants_["group_labels"]``: the training
        labels per group).
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
    #: Whether ``judge_weights="auto"`` means on (the family's measured default) rather
    #: than a choice per fit from its labels.
    weights_by_default: ClassVar[bool] = False
    #: Whether the label link has its own slope on z (then the judge weights leave out
    #: the judges' first principal direction, which the slope already scales).
    link_has_slope: ClassVar[bool] = True
    #: The label link's group-effect parameters (``group_effects``), one per part of the
    #: link; their terms are added to the judge weights' in ``off``, in this order.
    group_effect_names: ClassVar[tuple[str, ...]] = ("group_effect",)
    #: Whether the family's label link takes group effects.
    supports_group_effects: ClassVar[bool] = True
    #: Whether the cut fit's label stage integrates the group effects out in closed form
    #: (sampling their scale alone; each fit's effects are then drawn from their normal
    #: conditional posterior per draw, :meth:`_draw_group_effects`) instead of sampling
    #: them (non-centred).
    collapses_groups: ClassVar[bool] = False

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
        group_effects: bool | str = "auto",
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
        self.group_effects = group_effects
