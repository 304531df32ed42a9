"""Extra surrogates a :class:`~bacon_bayes.calibrator.Calibrator` combines with its own
model's in one AEE mean (:mod:`bacon_bayes.estimate.combine`).

An extra surrogate is one of

* ``"freq"``: the frequentist model of the calibrator's family (the ridge for a
  continuous label, the ordinal logistic for an ordinal one, ...);
* a frequentist family by name: ``"ridge"``, ``"hurdle"``, ``"ordinal"``,
  ``"multinomial"``;
* ``"judge_mean"``: the raw average of the judges' scores (nothing fitted; it needs no
  cross-fitting, being no function of the labels);
* ``"judge_pc1"``: the first principal component of the judges' standardised scores over
  all items (:func:`judge_pc1`; no function of the labels either);
* ``"judge_ridge"``: the judges' ridge (the label on the judges' first component and
  their pool-standardised scores, fixed penalty), cross-fitted leave-one-out in closed
  form (:mod:`bacon_bayes.judge_ridge`); alone (with ``no_model``) the AEE gives it the
  weight 1 (:func:`tuned`);
* ``"no_model"``: not a surrogate but a switch: the model's own surrogate is left out of
  the AEE means, which then use the other extras alone (the model still serves the
  quantiles and the adaptive design's predictive sd). With one other extra this is
  PPI++ with that surrogate.

Fitted extras are cross-fitted on the calibrator's own fold assignment, so every
surrogate of a labeled item is out of fold, and the combination's weights are tuned
on the same labels.

Default (``surrogates=None``): a calibrator whose Bayesian engine runs adds the judge
mean (:data:`BAYES_DEFAULT`; when every item has a judge score), except for categorical
labels (:data:`MODEL_ALONE`); the frequentist engine follows the small-budget rule by
the number of labels per coefficient of the model (:func:`freq_default`, below; the
name ``"small-budget"`` asks for it explicitly, ``surrogates=[]`` for the model alone).
Without power tuning, and in the streamed fit, the frequentist default is the model's
surrogate alone (the stream notes where the rule would have chosen otherwise, and refuses
the rule asked for by name there: ``bacon_bayes.stream.fit``).

Measured on SummEval relevance over 40 label draws (BENCHMARKS.md), the Bayesian
posterior mean with the judge mean had RMSE 0.869x / mean SE 0.968x the ridge's at 3%
labels (the posterior mean alone: 0.891x / 0.988x) and 0.938x / 0.983x at 10% (alone:
0.942x / 1.009x); with the ridge instead it was worse than alone at both budgets (0.931x
/ 1.024x and 0.968x / 1.008x): the ridge and the posterior mean are nearly the same
function of the judges, so the ridge adds estimation noise and a tuned weight. The
Bayesian multinomial's posterior mean is already a calibrated function of the judges'
votes: on TriviaQA (40 draws of 10% labels) the judge mean beside it made every interval
wider (paired width ratio 1.0097, the price of a second tuned weight) for no gain in
RMSE, so that family keeps its own surrogate alone by default.

Frequentist small-budget rule (issue 35, the frequentist default;
``benchmarks/small_budget.py``, EXPERIMENTS.md "Small budgets"): with ``L`` labels per
coefficient of the model (its feature count), ``L < 20``: the judges' leave-one-out ridge
alone (``judge_ridge``, ``no_model``, weight 1; :mod:`bacon_bayes.judge_ridge`); ``L >=
20``: the model's surrogate alone. At 10% and 15% labels of the same six tables (L 12-40)
it matched or beat the model's surrogate wherever it applied (RMSE 0.990-1.010x ppi-aipw's
where the model's was 1.017-1.040x; coverage 0.950-0.975).
On 12 tables (SummEval's 4 dimensions at 36 and 60 labels, L 3.6-6.7; WMT22, 150 source
segments, 72 and 120 labels, L 4-6.7; TriviaQA at 96 and 160 labels, L 10.7 and 17.8),
uniform draws, against ppi-aipw 0.2.2's ``prognostic_linear`` on the same draws: RMSE
0.989x ppi-aipw's (geometric mean; paired-bootstrap 95% interval 0.980-0.998, max 1.003x)
at ``--seed 0``, 0.989x (max 1.010x) at ``--seed 1``, 0.985x (max 1.026x) on the held-out
``--seed 2``; the model's surrogate alone 1.05-1.07x. Coverage 0.910-0.980 per seed, in
band on every table, 0.927-0.963 over the 600 draws of the three (band 0.927-0.973;
SummEval fluency at 36 labels at the edge). Mean width 1.17x ppi-aipw's, whose
intervals undercover (0.840-0.915 on 7 tables over 400 draws) and are narrower than any
valid interval from a linear surrogate of the judges can be on 10 of the 12 tables
(``benchmarks/small_budget_bound.py``); at equal coverage the rule's are 0.957x as wide
(600 draws). The penalty (24) was chosen on seeds 0 and 1 of these tables. Before (the
judges' first principal component alone below L 8): RMSE 1.010x, and SummEval fluency
at 36 labels covered 0.915 over 400 draws, below the band; the component beside the
model at L 8-20 was no better than the model alone and over-covered with 30 labels and
2 judges (``tests/simulation/test_montecarlo.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bacon_bayes import judge_ridge
from bacon_bayes.crossfit import CrossFitResult, cross_fit
from bacon_bayes.errors import ValidationError
from bacon_bayes.features import FeatureSet
from bacon_bayes.outcome import registry
from bacon_bayes.pool import EvalPool

JUDGE_MEAN = "judge_mean"
JUDGE_PC1 = "judge_pc1"
JUDGE_RIDGE = "judge_ridge"
NO_MODEL = "no_model"
#: asks for the frequentist small-budget rule (:func:`freq_default`; the frequentist default)
SMALL_BUDGET = "small-budget"
FREQ = "freq"
#: extras computed from the judges' scores alone (nothing fitted, no labels used)
UNFITTED = frozenset({JUDGE_MEAN, JUDGE_PC1, NO_MODEL})
#: extras of the judges' scores alone, for any label kind (the unfitted ones and the
#: judges' leave-one-out ridge, :mod:`bacon_bayes.judge_ridge`)
JUDGE_BASED = UNFITTED | {JUDGE_RIDGE}
#: small-budget rule: the judges' first principal component alone below this many
#: labels per coefficient of the model (see the module docstring)
ALONE_BELOW = 20.0
#: extras added by default when the Bayesian engine runs (see the module docstring)
BAYES_DEFAULT = (JUDGE_MEAN,)
#: Bayesian families whose default is their own surrogate alone (see the module docstring)
MODEL_ALONE = frozenset({"multinomial"})
#: the frequentist family named for a Bayesian one
_FREQ_FAMILY = {"gaussian": "ridge"}
Extras = dict[str, CrossFitResult | None]


def resolve(
    requested: Sequence[str] | None,
    model_name: str,
    engine: str,
    judge_mean: bool = True,
    labels: tuple[int, int] | None = None,
) -> tuple[str, ...]:
    """Names of the extra surrogates for a calibrator of ``model_name`` under ``engine``.

    ``judge_mean``: whether every item has a judge score; ``labels``: ``(labels,
    coefficients)`` of the fit, for the frequentist engine's small-budget rule, its
    default or asked for by the name :data:`SMALL_BUDGET` (:func:`freq_default`; None: no
    rule, e.g. without power tuning or when streamed: the model's surrogate alone).
    """
    if requested is None and engine == "freq":
        requested = (SMALL_BUDGET,)
    elif requested is None:
        default = BAYES_DEFAULT if engine == "bayes" and model_name not in MODEL_ALONE else ()
        requested = tuple(n for n in default if judge_mean or n not in UNFITTED)
    if not isinstance(requested, str) and SMALL_BUDGET in requested:
        rule = freq_default(*labels) if labels is not None and engine == "freq" else ()
        rest = tuple(n for n in requested if n != SMALL_BUDGET)
        requested = rest + tuple(n for n in rule if judge_mean and n not in rest)
    if isinstance(requested, str):
        raise ValidationError(
            f"surrogates={requested!r} must be a list of names, e.g. surrogates=['freq']."
        )
    own = _FREQ_FAMILY.get(model_name, model_name) if engine == "freq" else None
    known = sorted({n for n, e in registry.available("freq")} - {"gaussian"})
    out: list[str] = []
    for name in requested:
        if name == FREQ:
            if engine == "custom":
                raise ValidationError(
                    "surrogates=['freq'] needs a named model family; name the family "
                    "(e.g. 'ridge') instead."
                )
            name = _FREQ_FAMILY.get(model_name, model_name)
        if name not in JUDGE_BASED and name not in known:
            raise ValidationError(
                f"surrogate {name!r} is not known; use 'freq', {JUDGE_MEAN!r}, {JUDGE_PC1!r}, "
                f"{JUDGE_RIDGE!r}, {NO_MODEL!r} or one of {', '.join(known)}."
            )
        if name == own:
            raise ValidationError(
                f"surrogate {name!r} is the calibrator's own model already; drop it from "
                "surrogates (or pick engine='bayes' to combine the Bayesian and frequentist fits)."
            )
        if name in out:
            raise ValidationError(f"surrogate {name!r} is listed twice; list it once.")
        out.append(name)
    if NO_MODEL in out and len(out) < 2:
        raise ValidationError(
            f"surrogates=[{NO_MODEL!r}] leaves the AEE mean without a surrogate; name the one "
            f"to use instead of the model's, e.g. [{JUDGE_PC1!r}, {NO_MODEL!r}]."
        )
    return tuple(out)


def freq_default(n_labels: int, n_coefficients: int) -> tuple[str, ...]:
    """The frequentist small-budget rule's extras by labels per coefficient of the model:
    below :data:`ALONE_BELOW`, the AEE means use the judges' leave-one-out ridge alone
    (``judge_ridge``, ``no_model``, with the weight 1: :func:`tuned`); from there on,
    the model's surrogate alone (see the module docstring for the figures)."""
    if n_labels / max(n_coefficients, 1) < ALONE_BELOW:
        return (JUDGE_RIDGE, NO_MODEL)
    return ()


def tuned(extras: Extras, power_tuning: bool) -> bool:
    """Whether the AEE means power-tune their weights: not when they use the judges'
    ridge alone (its leave-one-out fit is calibrated already; a tuned weight adds
    noise: :mod:`bacon_bayes.judge_ridge`), else ``power_tuning``."""
    return power_tuning and set(extras) != {JUDGE_RIDGE, NO_MODEL}


def fit_extras(
    names: Sequence[str], pool: EvalPool, features: FeatureSet, primary: CrossFitResult
) -> Extras:
    """Cross-fit each named extra on ``primary``'s folds (``None`` for the judge mean)."""
    extras: Extras = {}
    for name in names:
        if name in JUDGE_BASED:
            pool.judge_average()  # a clear error for an item without any judge score
            extras[name] = judge_ridge.fit(pool, judge_pc1(pool)) if name == JUDGE_RIDGE else None
            continue
        model = registry.make_model(name, "freq", pool.outcome, features)
        extras[name] = cross_fit(
            model, features.X, pool.y, fold_ids=primary.fold_ids, pi=pool.propensity
        )
    return extras


def matrix(
    primary: CrossFitResult, extras: Extras, pool: EvalPool, domains: np.ndarray | None = None
) -> np.ndarray:
    """(N, 1 + k): the model's surrogate, then each extra's (with ``domains``' fold shares);
    without the model's column under ``no_model``."""
    cols = [] if NO_MODEL in extras else [primary.surrogate(domains)]
    for name, cf in extras.items():
        if name == NO_MODEL:
            continue
        if cf is not None:
            cols.append(cf.surrogate(domains))
        else:
            cols.append(judge_pc1(pool) if name == JUDGE_PC1 else pool.judge_average())
    return np.column_stack(cols)


def names(model: str, extras: Extras) -> tuple[str, ...]:
    """The surrogates of the AEE means by name: the model's (marked when ``no_model``
    leaves it out), then the extras."""
    if NO_MODEL in extras:
        model = f"{model}, not in the means"
    return (model, *(n for n in extras if n != NO_MODEL))


def in_means(surrogate_names: Sequence[str], extras: Extras) -> list[str]:
    """Of :func:`names`' list, the surrogates the AEE means use (the model's left out
    under ``no_model``)."""
    return list(surrogate_names[1:] if NO_MODEL in extras else surrogate_names)


def judge_pc1(pool: EvalPool, winsor: tuple[float, float] = (0.005, 0.995)) -> np.ndarray:
    """The first principal component of the judges' scores, on the judge mean's scale.

    Each judge's scores (an item without one: that judge's mean) are clipped at the
    ``winsor`` quantiles and standardised (a constant judge drops out); the component's
    sign is that of its correlation with the mean z-score, and it is rescaled to the
    mean and sd of the raw judge average, so that with one judge, or judges on the
    label's scale, it reads in the label's units. No label is used.
    """
    avg = pool.judge_average()
    Z, sd = judge_ridge.standardised_judges(pool, winsor)
    if Z.shape[1] == 1 or not np.any(sd > 0):
        pc = Z[:, 0]
    else:
        u, _, _ = np.linalg.svd(Z, full_matrices=False)
        pc = u[:, 0]
        zmean = Z.mean(axis=1)
        if float(np.dot(pc - pc.mean(), zmean - zmean.mean())) < 0:
            pc = -pc
    spread = pc.std()
    if not spread > 0:
        return avg
    return avg.mean() + avg.std() * (pc - pc.mean()) / spread


def predictions(extras: Extras) -> dict[str, Any]:
    """The fitted extras' surrogates, by name (what a saved calibrator stores)."""
    return {name: cf.mean for name, cf in extras.items() if cf is not None}
