"""Augmented estimating-equation (AEE) estimators as flat functions on arrays.

Notation: ``N`` items in the pool, ``S_i`` = 1 when item ``i`` carries a human
label ``y_i``, ``pi_i`` its inclusion probability, ``f_i`` the cross-fitted
surrogate (out-of-fold for labeled items, the fold-average model for the rest;
see :mod:`bacon_bayes.crossfit`).

Mean (power-tuned, Hajek form, the default)::

    theta = lambda * mean_i f_i + sum_S w_i (y_i - lambda f_i) / sum_S w_i,   w_i = 1 / pi_i

With equal ``pi_i = n / N`` this is exactly the finite-population regression
estimator ``(sum_S y_i + sum_U f_i + (N - n)/n * sum_S r_i) / N``. The
Horvitz-Thompson form replaces the normalised correction by
``sum_S w_i (y_i - lambda f_i) / N``.

Variance: design-based (the target is the pool itself, its labels fixed), the
linearised Poisson-sampling sandwich ``sum_S (1 - pi_i) / pi_i^2 r_i^2 / N^2``
with ``r_i`` the residual centred at its weighted mean for the Hajek form and a
degrees-of-freedom factor ``n / (n - 1)``. The factor ``1 - pi_i`` is the
finite-population correction; ``target="superpopulation"`` drops it and adds
the sampling variance of the pool itself (``s_y^2 / N``).

Power tuning: ``lambda`` minimises the estimated variance above in closed
form (a weighted regression slope of ``y`` on ``f``); ``lambda = 0`` is the
classical estimator and ``lambda = 1`` plain AEE, so tuning can only lower the
estimated variance. ``lambda`` is not clipped: a surrogate that runs opposite
to the label gets a negative weight instead of being thrown away. Several surrogates
(``f`` of shape ``(N, k)``) get a vector ``lambda``, the weighted regression of ``y`` on
them, and the variance of the multiple regression estimator (:mod:`.combine`).

Intervals of the pool mean use Student-t critical values on Satterthwaite's degrees of
freedom for the design-based variance, at most ``n - 1`` (``n - 1 - k`` with ``k`` tuned
weights; :func:`~bacon_bayes.estimate.core.satterthwaite_df`): residuals of even size
keep ``n - 1``, a few large squared residuals among many small ones (labels piled at one
end of the scale) lower it and widen the interval. Group means (a few dozen labels per
group) use a studentised bootstrap within groups by default
(:func:`bootstrap_t_critical_values`).

Every function accepts NaN in ``y`` for unlabeled items (``labeled`` then
defaults to ``~isnan(y)``).

Modules: :mod:`.core` (the shared pieces), :mod:`.combine` (several surrogates),
:mod:`.mean`, :mod:`.quantile`, :mod:`.ratio` (ratios of two pool means), :mod:`.groups`
(group means), :mod:`.differences` (their differences, all pairs or each group against a
baseline, and ranks), :mod:`.shrink` (group means shrunk toward the pool's
correction, robust empirical-Bayes intervals from :mod:`.robust_ebci`) and
:mod:`.critical` (simultaneous critical values, the studentised bootstrap) and :mod:`.anytime`
(intervals valid at every labelling wave: alpha-spending and confidence sequences).
"""

from __future__ import annotations

from bacon_bayes.arguments import named_keywords
from bacon_bayes.estimate.bradley_terry import (
    bradley_terry,
    bradley_terry_fit,
    win_probability,
)
from bacon_bayes.estimate.bt_ranks import rank_sets, set_aside, tiers
from bacon_bayes.estimate.clustered import use_clustered
from bacon_bayes.estimate.core import Target, mean_core
from bacon_bayes.estimate.critical import bootstrap_t_critical_values, simultaneous_critical_value
from bacon_bayes.estimate.groups import (
    MIN_BOOTSTRAP_LABELS,
    aee_group_means,
    classical_group_means,
    compare,
    naive_group_means,
    rank_intervals,
)
from bacon_bayes.estimate.mean import (
    aee_mean,
    at_range_end,
    classical_mean,
    effective_labels,
    naive_mean,
)
from bacon_bayes.estimate.quantile import (
    aee_cdf,
    aee_quantile,
    classical_quantile,
    label_atoms,
    naive_quantile,
)
from bacon_bayes.estimate.ratio import RatioEstimates, aee_ratio
from bacon_bayes.estimate.shrink import choose_pooling, shrunk_differences, shrunk_group_means
from bacon_bayes.estimate.tables import group_codes
from bacon_bayes.results import Estimate, EstimateTable

# the estimators a user calls refuse an unknown keyword naming the one meant
# (``aee_mean(level=0.95)``: "takes alpha ..."); the package calls the modules' own
aee_mean = named_keywords(aee_mean)
classical_mean = named_keywords(classical_mean)
naive_mean = named_keywords(naive_mean)
aee_quantile = named_keywords(aee_quantile)
classical_quantile = named_keywords(classical_quantile)
naive_quantile = named_keywords(naive_quantile)
aee_cdf = named_keywords(aee_cdf)
aee_ratio = named_keywords(aee_ratio)
aee_group_means = named_keywords(aee_group_means)
classical_group_means = named_keywords(classical_group_means)
naive_group_means = named_keywords(naive_group_means)
shrunk_group_means = named_keywords(shrunk_group_means)
compare = named_keywords(compare)
rank_intervals = named_keywords(rank_intervals)
bradley_terry = named_keywords(bradley_terry)

__all__ = [
    "MIN_BOOTSTRAP_LABELS",
    "Estimate",
    "EstimateTable",
    "RatioEstimates",
    "Target",
    "aee_cdf",
    "aee_group_means",
    "aee_mean",
    "aee_quantile",
    "aee_ratio",
    "at_range_end",
    "bootstrap_t_critical_values",
    "bradley_terry",
    "bradley_terry_fit",
    "choose_pooling",
    "classical_group_means",
    "classical_mean",
    "classical_quantile",
    "compare",
    "effective_labels",
    "group_codes",
    "label_atoms",
    "mean_core",
    "naive_group_means",
    "naive_mean",
    "naive_quantile",
    "rank_intervals",
    "rank_sets",
    "set_aside",
    "shrunk_differences",
    "shrunk_group_means",
    "simultaneous_critical_value",
    "tiers",
    "use_clustered",
    "win_probability",
]
