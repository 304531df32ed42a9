"""Planning a label budget (``bacon plan``): how many labels each design needs for a goal.

From the pool's judge scores and the labels in hand (a *pilot*, with the inclusion
probabilities its design recorded) :func:`plan` predicts, for each design, the precision
the AEE estimators will report at a number of labels, and searches the fewest labels that
reach a goal: a CI half-width of the pool mean or of a group's mean, a power ``1 - beta``
to detect a difference ``delta`` between two named groups, or a power to resolve the top
group from every other one (its simultaneous difference intervals all exclude 0).

The statistics (:func:`pilot_statistics`)
-----------------------------------------
The Calibrator is fitted on the pilot; its cross-fitted out-of-fold residuals
``r_i = y_i - lambda f_i`` on the labeled items (``lambda`` the shared power-tuning weight),
weighted by ``1 / pi_i``, give

* ``sigma_g^2``: each group's residual variance, moderated toward what the model's
  predictive variance says for the group's items (scaled to the residuals' mean level),
  worth :data:`PRIOR_LABELS` labels: a group's own variance from a dozen labels is too
  noisy to plan on;
  The residuals' mean square around the group means counts the groups' degrees of
  freedom (36 labels in SummEval's 12 systems keep 24);
* ``S^2``: the residual variance over the pool (around its mean), for the pool mean,
  moderated toward the model's predictive variance the same way. Not the groups'
  variances plus the spread of their residual means: with about 3 labels per group (a
  3% pilot of SummEval) that spread is mostly noise, and it had put the predicted
  pool-mean half-width 1.36x the simulated one on average;
* ``rho``: the within-prompt residual correlation between items of different groups (the
  prompt's shared part). A 3% item-level pilot has few pairs of labeled items of one
  prompt (TriviaQA: about 14, WMT22: about 200), and their estimate ``rho_hat = sum w z_i
  z_j / sum w (z_i^2 + z_j^2) / 2`` of the group-centred, standardised residuals (each
  pair weighted ``w = 1 / pi_ij``; self-normalised: the plain mean of the products is
  skewed low under heavy tails) swings widely (sd over pilots 0.11 on WMT22's 200 pairs).
  So ``rho`` is the precision-weighted mean of ``rho_hat`` (linearised sampling variance,
  summed by prompt, at least ``1 / n_pairs``) and a prior from the judges, who score every
  item: :data:`JUDGE_ICC_SHARE` times the judges' own within-prompt correlation
  (:func:`judge_prompt_correlation`), with sd :data:`ICC_PRIOR_SD`. The share is an
  empirical ratio (residual over judge correlation with every label known: 0.56
  TriviaQA, 0.48 WMT22, 0.49 SummEval relevance), not a law; below
  :data:`ROUGH_WEIGHT` on the pairs the paired rows are marked rough, and a paired pilot
  (whose pairs measure it) is the remedy. Within-prompt covariance ``C_ab = rho sigma_a
  sigma_b``, one ``rho`` for every pair of groups: the pairs' own correlations vary (WMT22:
  0.16-0.55 over its 120 pairs of systems) and the judges' pairwise correlations track
  them on WMT22 (0.81) but not on TriviaQA (-0.03), so the plan does not share ``rho``
  out by pair. Without prompts, 0.

A model fitted on more labels predicts a little better; the plan ignores it (on TriviaQA
the out-of-fold error at 10% of the pool equals the 3% pilot model's predictive variance).

Closed forms (:func:`predict`)
------------------------------
With ``n`` labels in all (the pilot's included) every design below gives each item
``pi = n / N``; ``D`` is the excess joint probability ``pi_ij / (pi_i pi_j) - 1`` of two
items of one prompt (0 for item-level designs). The Horvitz-Thompson covariance of the
group means, in expectation over the residuals, is::

    Var(theta_g)        = (1 - pi) / pi * sigma_g^2 / N_g * (1 + 1 / n_g)    (uniform, adaptive)
    Cov(theta_a, theta_b) = D * P_ab * C_ab / (N_a N_b)

(``P_ab``: prompts with items of both groups; ``1 + 1 / n_g``: a random group size).

* ``uniform``: items drawn at random; ``D = 0``, pool mean ``(1 - pi) / pi * S^2 / N``.
* ``stratified``: by group, proportional allocation (``bacon sample --design stratified
  --strata GROUP``): fixed group sizes; the pool mean's interval is the same (the
  estimator does not use the strata).
* ``paired``: prompts drawn, every open item of a drawn prompt labeled. After an
  item-level pilot at rate ``p0`` the prompt wave at rate ``b`` gives ``pi = 1 - (1 - p0)
  (1 - b)`` and ``pi_ij = 1 - 2 q + (1 - p0) q`` (``q = 1 - pi``); from scratch ``D = (1 -
  pi) / pi``. A difference of two groups then loses ``2 D P_ab C_ab / (N_a N_b)``; from
  scratch the pool mean gains ``D sum_{a != b} P_ab C_ab / N^2``: **paired is worse for the
  pool mean whenever the within-prompt covariance is positive** (by ``1 + (G - 1) rho`` for
  ``G`` groups of equal variance), and :func:`plan` never recommends it there. After a
  pilot a study weighs the waves by precision (:meth:`~bacon_bayes.inclusion.Inclusion.
  precision_weighted`): ``1 / (1 / V_0 + 1 / V_b)``, ``V_0`` the pilot's (``(1 - p0) / p0
  s^2 / N``, or the study's estimate now where its waves mix items and prompts) and ``V_b =
  (1 - b) / b (s^2 (1 - p0) + S (1 - p0)^2 / N) / N`` the wave's (``S = 0`` for items).
* ``adaptive``: a wave with probabilities following the predictive sd
  (:func:`~bacon_bayes.sampling.adaptive.adaptive_probabilities`, topping up the pilot).
  Each variance is the uniform one times ``R = sum v_i (1 / pi_i - 1) / sum v_i (1 / pi_u
  - 1)`` over the group's items (``v``: predictive variances; ``pi_u = n / N``), calibrated
  by the ratio the pilot's residuals give for the pool
  (:func:`~bacon_bayes.sampling.adaptive.expected_variance_ratio`); when the pilot is too
  small or predicts no gain (:func:`~bacon_bayes.sampling.adaptive.sd_wave_choice`) the
  adaptive wave steps back to uniform, and so does the prediction.

Intervals: half-width ``t(1 - alpha / 2, df) * se`` with ``df`` the labeled units minus one
(items of the group, or prompts for the paired pool mean). Where a draw likely leaves
some group under :data:`~bacon_bayes.estimate.groups.MIN_BOOTSTRAP_LABELS` labels (item
designs; :func:`moderated_share`, Binomial group counts) the group intervals are the
estimator's moderated t, whose prior adds up to the pooled residuals' ``n - G`` df; the
plan adds them in that proportion (SummEval at 10%: about 10 labels per system, the
estimator's prior at its cap in most draws, df about 117 instead of 9). Power
of a difference ``delta``: ``P(|T| > t_crit)`` under the noncentral t. Resolving the top
group: the probability that all its differences with the others clear the simultaneous
(max-|t| over all pairs) critical value, by simulation from their predicted joint normal
law, at the pilot's estimated gaps (which flatter the top group a little: it was picked
as the largest).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.crossfit import make_folds, most_folds
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.clustered import pair_index, prompt_codes
from bacon_bayes.frozen import applied
from bacon_bayes.inclusion import Inclusion, paired_excess
from bacon_bayes.order import unique_codes
from bacon_bayes.planning.degrees import group_df
from bacon_bayes.planning.prior import JUDGE_ICC_SHARE, judge_prompt_correlation, no_pilot
from bacon_bayes.pool import EvalPool
from bacon_bayes.sampling import DEFAULT_UNIFORM_SHARE, sd_wave_choice
from bacon_bayes.sampling.adaptive import adaptive_wave, default_uniform_share

__all__ = [
    "DESIGNS",
    "PilotStatistics",
    "Prediction",
    "pilot_statistics",
    "predict",
]

#: The designs :func:`plan` compares, in the order ties are broken (simplest first).
DESIGNS = ("uniform", "stratified", "paired", "adaptive")
#: Labels a group's moderated residual variance gives the model's prediction for it.
PRIOR_LABELS = 20.0
#: Prior sd of the within-prompt residual correlation around the judges' prior.
ICC_PRIOR_SD = 0.1
#: Below this weight on the pilot's pairs the paired rows are marked rough.
ROUGH_WEIGHT = 0.5
#: Adaptive design from scratch (the comparison with ``bacon simulate``): the share of
#: the budget its uniform pilot takes (``simulation.montecarlo.PILOT_SHARE``).
SCRATCH_PILOT_SHARE = 0.3
#: Draws of the simulation behind the top group's power.
POWER_DRAWS = 8000


@dataclass
class PilotStatistics:
    """What a pilot says about the residuals (module docstring, "The statistics")."""

    n_items: int
    n_labeled: int
    names: tuple[str, ...]
    codes: np.ndarray  # group code per item
    sizes: np.ndarray  # N_g
    labels: np.ndarray  # pilot labels per group
    sigma2: np.ndarray  # moderated residual variance per group
    s2_pool: float
    rho: float
    rho_raw: float
    n_pairs: int
    rho_weight: float
    means: np.ndarray  # pilot estimate of each group's mean
    shared: np.ndarray  # P_ab: prompts with items of both groups (diagonal: N_g)
    n_prompts: int
    per_prompt: float
    pilot_pi: np.ndarray
    pred_var: np.ndarray | None  # predictive variance per item (None without a pilot)
    resid2: np.ndarray  # squared residual (NaN where unlabeled)
    n_features: int
    folds: int
    assumptions: list[str] = field(default_factory=list)
    #: each group's mean residual ``y - lambda f`` in the pilot (its AEE correction; NaN
    #: without labels): the between-group spread the shrinkage estimator will use
    corrections: np.ndarray | None = None
    #: sd of ``rho`` (the prior's and the pairs' precision combined)
    rho_sd: float = ICC_PRIOR_SD
    #: prompts with an item of each group (the paired design's group label counts)
    group_prompts: np.ndarray | None = None
    #: each group's surrogate mean ``lambda mean(f)`` over all its items (the judges' part
    #: of its mean, which shrinkage keeps)
    surrogate_means: np.ndarray | None = None
    #: labels the residual variance is worth (its effective number and the model's
    #: prior): the df of its chi-square interval (inf: no pilot, no interval)
    variance_df: float = math.inf
    #: the pool mean's variance as estimated now where a study's waves mix items and prompts
    var_now: float | None = None
    #: the adaptive wave's uniform share, as ``bacon sample`` draws it on this pool
    uniform_share: float = DEFAULT_UNIFORM_SHARE
    #: what :func:`predict` keeps between budgets (the adaptive wave's sorted items)
    cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    #: the group table's estimates under a pooling, in ``names``' order, and the pooling
    #: the estimator takes: the means ``bacon estimate`` prints for the pilot (None
    #: without a fitted calibrator)
    table_means: Callable[[str], tuple[np.ndarray, str]] | None = field(
        default=None, repr=False, compare=False
    )

    def estimated_means(self) -> np.ndarray:
        """Each group's mean in the pilot; a group without pilot labels gets what the
        estimator gives it (its surrogate's mean plus the pool's mean correction,
        UNVALIDATED), not 0: on labels near 5 a 0 made the top lead it by 5 and resolve it
        in every draw."""
        missing = ~np.isfinite(self.means)
        if not missing.any() or self.surrogate_means is None or self.corrections is None:
            return np.nan_to_num(self.means)
        has = self.labels > 0
        pooled = (
            float(np.average(self.corrections[has], weights=self.labels[has])) if has.any() else 0.0
        )
        return np.where(missing, self.surrogate_means + pooled, self.means)

    @property
    def has_prompts(self) -> bool:
        return self.n_prompts > 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_items": self.n_items,
            "n_labeled": self.n_labeled,
            "groups": list(self.names),
            "labels_per_group": [int(v) for v in self.labels],
            "residual_sd_per_group": [float(v) for v in np.sqrt(self.sigma2)],
            "residual_sd_pool": math.sqrt(self.s2_pool),
            "within_prompt_correlation": self.rho,
            "within_prompt_correlation_raw": self.rho_raw,
            "prompt_pairs": self.n_pairs,
            "weight_on_pairs": self.rho_weight,
            "n_prompts": self.n_prompts,
            "assumptions": list(self.assumptions),
        }


def _pilot_pi(pool: EvalPool) -> np.ndarray:
    design = pool.design
    if isinstance(design, Inclusion):
        return design.pi
    if design is None:
        return np.full(pool.n_items, pool.n_labeled / pool.n_items)
    return np.asarray(design, dtype=float)


def _weighted_var(x: np.ndarray, w: np.ndarray) -> float:
    if x.size < 2:
        return math.nan
    m = float(np.sum(w * x) / np.sum(w))
    return float(np.sum(w * (x - m) ** 2) / np.sum(w) * x.size / (x.size - 1))


def _effective(e: np.ndarray, w: np.ndarray) -> float:
    """Effective number of labels behind a weighted mean square: ``(sum w e^2)^2 / sum
    (w e^2)^2``."""
    q = w * e * e
    return float(q.sum() ** 2 / np.sum(q * q)) if np.sum(q * q) > 0 else 0.0


def _shared_prompts(codes: np.ndarray, prompts: np.ndarray | None, m: int) -> np.ndarray:
    if prompts is None:
        return np.diag(np.bincount(codes, minlength=m).astype(float))
    p = prompt_codes(prompts)
    has = np.zeros((int(p.max()) + 1, m))
    has[p, codes] = 1.0
    shared = has.T @ has
    np.fill_diagonal(shared, np.bincount(codes, minlength=m))
    return shared


def pilot_folds(pool: EvalPool, folds: int, seed: int) -> int | None:
    """The cross-fitting folds a plan on ``pool``'s pilot takes when its labels are too
    few for ``folds`` (the most they carry, :func:`bacon_bayes.crossfit.most_folds`); None
    when ``folds`` work, or when there is no pilot or too few labels for any."""
    lab = pool.labeled
    if not lab.any():
        return None
    try:
        make_folds(lab, folds, seed, pool.prompts)
    except ValidationError:
        return most_folds(lab, folds, seed, pool.prompts)
    return None


def pilot_statistics(
    pool: EvalPool, calibrator: Calibrator | None = None, *, engine: str = "freq"
) -> PilotStatistics:
    """Fit the Calibrator on the pool's labels and summarise the residuals (module
    docstring); with no labels, the stated assumptions of a plan without a pilot.
    ``calibrator`` already fitted on ``pool`` is used as it is."""
    n_items = pool.n_items
    if pool.groups is None:
        names: tuple[str, ...] = ("(pool)",)
        codes = np.zeros(n_items, dtype=np.intp)
    else:
        uniq, codes = unique_codes(pool.groups)
        names = tuple(str(v) for v in uniq)
    m = len(names)
    sizes = np.bincount(codes, minlength=m).astype(float)
    prompts = pool.prompts
    shared = np.diag(sizes) if prompts is None else _shared_prompts(codes, prompts, m)
    n_prompts = 0 if prompts is None else int(np.unique(prompts).size)
    per_prompt = n_items / n_prompts if n_prompts else 1.0
    lab = pool.labeled
    n0 = int(lab.sum())
    if n0 == 0:
        return _no_pilot(pool, names, codes, sizes, shared, n_prompts, per_prompt)
    if n0 > 1 and np.ptp(pool.y[lab]) == 0:
        raise ValidationError(
            f"all {n0} pilot labels (column {pool.label_name!r}) are {pool.y[lab][0]:g}: "
            "with no spread in the labels there are no variances to predict from; label "
            "more items (bacon sample), or plan without a pilot (its --label column empty)."
        )
    cal = calibrator or Calibrator(engine=engine)
    # a calibrator fitted on this pool (not a saved one applied to it) is not fitted again
    fitted = getattr(cal, "pool_", None) is pool
    if not fitted or applied(cal):
        try:
            make_folds(lab, cal.folds, cal.seed, prompts)
        except ValidationError as exc:
            k = most_folds(lab, cal.folds, cal.seed, prompts)
            fewer = f" --folds {k} is the most these labels carry." if k else ""
            raise ValidationError(
                f"too few pilot labels for cross-fitting: {exc}{fewer} Or plan without a "
                f"pilot: on a copy of the table with the label column ({pool.label_name!r}) "
                "emptied."
            ) from None
        cal.fit(pool)
    pi0 = _pilot_pi(pool)
    y, f = pool.y, cal.surrogate_
    w = 1.0 / pi0[lab]
    yl, fl = y[lab], f[lab]
    fc = fl - np.sum(w * fl) / w.sum()
    yc = yl - np.sum(w * yl) / w.sum()
    c = w * w * (1.0 - pi0[lab])
    den = float(np.sum(c * fc * fc))
    lam = float(np.sum(c * yc * fc) / den) if den > 0 else 1.0
    r = yl - lam * fl
    g = codes[lab]
    labels = np.bincount(g, minlength=m)
    rbar = np.array(
        [np.sum(w[g == k] * r[g == k]) / np.sum(w[g == k]) if labels[k] else 0.0 for k in range(m)]
    )
    e = r - rbar[g]
    own = np.array([_weighted_var(e[g == k], w[g == k]) for k in range(m)])
    v = cal.crossfit_.var()
    v_lab = v[lab]
    # the residuals' mean square is worth its effective number of labels (few when a
    # handful of surprises carry it, as with binary labels and good judges); the model's
    # predictive variance fills in the rest, worth PRIOR_LABELS
    # (with the groups' degrees of freedom: 36 labels in 12 groups keep 24)
    g_lab = int(np.sum(labels > 0))
    emp = float(np.sum(w * e * e) / w.sum()) * n0 / max(n0 - g_lab, 1)
    n_eff = _effective(e, w)
    model = float(np.sum(w * v_lab) / w.sum())
    level = (n_eff * emp + PRIOR_LABELS * model) / (n_eff + PRIOR_LABELS)
    scale = level / model if model > 0 else 1.0
    prior = scale * np.bincount(codes, v, m) / np.maximum(sizes, 1.0)
    if not np.all(np.isfinite(prior) & (prior > 0)):
        prior = np.full(m, emp)
    d_own = np.array([max(_effective(e[g == k], w[g == k]) - 1.0, 0.0) for k in range(m)])
    sigma2 = (PRIOR_LABELS * prior + d_own * np.nan_to_num(own)) / (PRIOR_LABELS + d_own)
    # the pool mean's: the residuals around their overall mean, moderated the same way
    # (not the groups' variances plus their means' spread: with a few labels per group
    # that spread is mostly noise)
    r_pool = r - np.sum(w * r) / w.sum()
    n_eff_pool = _effective(r_pool, w)
    emp_pool = _weighted_var(r, w)
    s2_pool = (n_eff_pool * emp_pool + PRIOR_LABELS * model) / (n_eff_pool + PRIOR_LABELS)
    notes = [
        f"pilot: {n0} labels; residual variance per group from the residuals, worth their "
        f"effective number ({n_eff:.0f} in all), and the model's predictive variance, worth "
        f"{PRIOR_LABELS:g} labels; the pool mean's ({s2_pool:.4g}) from the residuals "
        "around their overall mean, moderated the same way",
    ]
    per_group = n0 / max(g_lab, 1)
    if m > 1 and per_group < PRIOR_LABELS:
        notes.append(
            f"about {per_group:.1f} pilot labels per group: each group's residual variance is "
            "mostly the pooled one (the model's predictive variance for its items, scaled to "
            "the pilot's residuals); a group whose residuals are truly tighter or wider than "
            "the rest is not seen, so a named pair's power is rough"
        )
    rho, rho_raw, n_pairs, rho_weight, rho_sd = 0.0, 0.0, 0, 0.0, ICC_PRIOR_SD
    if prompts is not None:
        rho_prior = JUDGE_ICC_SHARE * judge_prompt_correlation(pool, codes)
        rho_raw, raw_var, n_pairs = _prompt_correlation(pool, lab, e / np.sqrt(sigma2[g]), codes)
        rho_weight = _data_weight(raw_var, n_pairs)
        rho = rho_prior + rho_weight * (rho_raw - rho_prior)
        rho_sd = ICC_PRIOR_SD * math.sqrt(1.0 - rho_weight)  # posterior sd: prior and pairs
        rho = float(np.clip(rho, -1.0 / max(per_prompt - 1.0, 1.0), 0.95))
        notes.append(
            f"within-prompt residual correlation {rho:.3f}: the judges' prior {rho_prior:.3f} "
            f"({JUDGE_ICC_SHARE:g} x their own within-prompt correlation, sd "
            f"{ICC_PRIOR_SD:g}) and {rho_raw:.3f} from {n_pairs} pairs of labeled items of "
            f"one prompt (weight {rho_weight:.2f} on the pairs)"
            + (
                "; ROUGH for the paired design: few pairs, the prior carries it; a paired "
                "pilot (bacon sample --design paired) measures it"
                if rho_weight < ROUGH_WEIGHT
                else ""
            )
        )
    else:
        notes.append("no prompts in the pool: items taken as unrelated (no paired design)")
    resid2 = np.full(n_items, np.nan)
    resid2[lab] = (r - np.sum(w * r) / w.sum()) ** 2
    f_means = np.bincount(codes, f, m) / np.maximum(sizes, 1.0)
    surrogate = lam * f_means
    means = np.where(labels > 0, surrogate + rbar, np.nan)
    inc = pool.inclusion  # a study mixing waves: its estimate now (T5, finding 2: +-0.035
    mixed = inc is not None and inc.selected is not None and inc.mixed  # read for 0.055)
    return PilotStatistics(
        n_items=n_items, n_labeled=n0, names=names, codes=codes, sizes=sizes, labels=labels,
        sigma2=sigma2, s2_pool=s2_pool, rho=rho, rho_raw=rho_raw, n_pairs=n_pairs,
        rho_weight=rho_weight, means=means, shared=shared, n_prompts=n_prompts,
        per_prompt=per_prompt, pilot_pi=pi0,
        pred_var=v, resid2=resid2, n_features=int(cal.features_.X.shape[1]), folds=cal.folds,
        assumptions=notes, corrections=np.where(labels > 0, rbar, np.nan), rho_sd=rho_sd,
        surrogate_means=surrogate, variance_df=n_eff + PRIOR_LABELS,
        group_prompts=_group_prompts(codes, prompts, m),
        uniform_share=default_uniform_share(pool.groups is not None),
        var_now=float(cal.estimate_mean().se ** 2) if mixed else None,
        table_means=None if pool.groups is None else _table_means(cal, names),
    )  # fmt: skip


def _table_means(
    cal: Calibrator, names: tuple[str, ...]
) -> Callable[[str], tuple[np.ndarray, str]]:
    """The fitted calibrator's group estimates under a pooling, NaN for a group it lacks,
    and the pooling it takes (``"auto"`` decided). The points do not depend on the
    intervals: the table is asked for as ``bacon estimate``'s comparisons ask for it (its
    defaults), so that it is computed once."""

    def means(pooling: str) -> tuple[np.ndarray, str]:
        how: Any = None if pooling == cal.pooling else pooling
        t = cal.estimate_groups(pooling=how)
        at = {str(n): float(v) for n, v in zip(t.names, t.estimate, strict=True)}
        return np.array([at.get(n, math.nan) for n in names]), cal.pooling_for("aee", how)

    return means


def _prompt_correlation(
    pool: EvalPool, lab: np.ndarray, z: np.ndarray, codes: np.ndarray
) -> tuple[float, float, int]:
    """Within-prompt correlation of standardised residuals ``z`` (labeled items) from the
    pairs of labeled items of one prompt and different groups (each weighted ``w = 1 /
    pi_ij``), self-normalised: ``sum w z_i z_j / sum w (z_i^2 + z_j^2) / 2``; its sampling
    variance (linearised, the terms summed by prompt as pairs of one prompt share items;
    at least ``1 / n_pairs``) and the number of pairs.

    The plain mean of the products ``z_i z_j`` is unbiased but, with heavy-tailed
    residuals, skewed: most pilots miss the rare large products and read the correlation
    low (WMT22, residuals of every item, 400 draws of 3% of the items: mean 0.377, median
    0.325, sd 0.227 against 0.370; the self-normalised estimate: mean 0.356, median 0.356,
    sd 0.124)."""
    idx = np.flatnonzero(lab)
    assert pool.prompts is not None
    prompt_lab = prompt_codes(pool.prompts)[idx]
    i, j = pair_index(prompt_lab)
    keep = (i < j) & (codes[idx][i] != codes[idx][j])
    i, j = i[keep], j[keep]
    if not i.size:
        return 0.0, math.inf, 0
    design = pool.design
    inc = design if isinstance(design, Inclusion) else Inclusion.items(_pilot_pi(pool))
    wij = 1.0 / np.clip(inc.joint(idx[i], idx[j]), 1e-12, None)
    prod = z[i] * z[j]
    square = 0.5 * (z[i] ** 2 + z[j] ** 2)
    den = float(np.sum(wij * square))
    if not den > 0:
        return 0.0, math.inf, int(i.size)
    raw = float(np.sum(wij * prod) / den)
    terms = np.bincount(prompt_lab[i], wij * (prod - raw * square))
    var = float(np.sum(terms**2) / den**2) if i.size > 1 else math.inf
    # never below a normal pair's 1 / n_pairs: a few heavy-tailed products look steady
    return raw, max(var, 1.0 / i.size), int(i.size)


def _group_prompts(codes: np.ndarray, prompts: np.ndarray | None, m: int) -> np.ndarray | None:
    if prompts is None:
        return None
    has = np.zeros((int(prompt_codes(prompts).max()) + 1, m), dtype=bool)
    has[prompt_codes(prompts), codes] = True
    return has.sum(axis=0).astype(float)


def _data_weight(raw_var: float, n_pairs: int) -> float:
    """Weight of the pairs' correlation against the judges' prior (sd ICC_PRIOR_SD)."""
    if n_pairs < 2 or not math.isfinite(raw_var):
        return 0.0
    tau2 = ICC_PRIOR_SD**2
    return tau2 / (tau2 + raw_var)


def _no_pilot(
    pool: EvalPool,
    names: tuple[str, ...],
    codes: np.ndarray,
    sizes: np.ndarray,
    shared: np.ndarray,
    n_prompts: int,
    per_prompt: float,
) -> PilotStatistics:
    m = len(names)
    sigma2, fallback, rho, notes = no_pilot(pool, codes, sizes)
    avg = pool.judge_average()
    return PilotStatistics(
        n_items=pool.n_items, n_labeled=0, names=names, codes=codes, sizes=sizes,
        labels=np.zeros(m, dtype=int), sigma2=sigma2, s2_pool=fallback, rho=rho, rho_raw=0.0,
        n_pairs=0, rho_weight=0.0, means=np.array([avg[codes == k].mean() for k in range(m)]),
        shared=shared,
        n_prompts=n_prompts, per_prompt=per_prompt, pilot_pi=np.zeros(pool.n_items),
        pred_var=None, resid2=np.full(pool.n_items, np.nan), n_features=0, folds=5,
        assumptions=notes, group_prompts=_group_prompts(codes, pool.prompts, m),
    )  # fmt: skip


@dataclass(frozen=True)
class Prediction:
    """Predicted covariance of the group means and variance of the pool mean at ``n``."""

    design: str
    n: float
    cov: np.ndarray
    var_pool: float
    df: np.ndarray  # per group
    df_pool: float
    labels: np.ndarray  # each group's expected labels at ``n``
    note: str = ""


def _adaptive_ratios(
    st: PilotStatistics, n: float, from_scratch: bool
) -> tuple[np.ndarray, float, str]:
    """Per-group and pool variance ratios of the adaptive design against uniform.

    On the pilot (not ``from_scratch``) the wave's scale at each budget and the groups'
    sums of ``v / pi`` come from one sort of the items (:class:`~bacon_bayes.sampling.
    adaptive.TopUp`), kept in ``st`` for the plan's search over budgets."""
    m = len(st.names)
    N = st.n_items
    if st.pred_var is None:
        return np.ones(m), 1.0, "needs a pilot"
    n0 = SCRATCH_PILOT_SHARE * n if from_scratch else float(st.n_labeled)
    choice = sd_wave_choice(0.0, round(n0), st.n_features)
    if n <= n0 + 1:
        return np.ones(m), 1.0, "no wave to draw: the pilot's labels suffice"
    if choice != "adaptive":
        return np.ones(m), 1.0, "steps back to uniform: pilot too small for the sd model"
    prior = np.full(N, n0 / N) if from_scratch else st.pilot_pi
    if np.ptp(st.pred_var) == 0 and np.ptp(prior) == 0:  # one sd, one prior: uniform exactly
        return np.ones(m), 1.0, "steps back to uniform: predicted ratio 1.000"
    key = ("adaptive", n0 if from_scratch else None)
    # bacon simulate draws at the default share; bacon sample at the pool's (0.5 with groups)
    share = DEFAULT_UNIFORM_SHARE if from_scratch else st.uniform_share
    if key not in st.cache:
        wave = adaptive_wave(np.sqrt(st.pred_var), prior, uniform_share=share)
        v_g = np.bincount(st.codes, st.pred_var, m)
        inverse = wave.inverse_sums(st.pred_var, st.codes, m)
        rows = np.flatnonzero(np.isfinite(st.resid2))
        we2 = st.resid2[rows] / st.pilot_pi[rows]  # as expected_variance_ratio weighs them
        flat = not np.sum(we2) > 0 or rows.size == N  # no residual, or nothing left to draw
        st.cache.clear()  # one entry: from scratch, each budget has its own pilot
        st.cache[key] = (wave, v_g, inverse, rows, we2, flat)
    wave, v_g, inverse, rows, we2, flat = st.cache[key]
    # sum v (1 / pi - 1) per group, pi the union with the wave; a wave topped up over earlier
    # ones draws at most its room in expectation (the plan's search reaches every open item)
    new = min(n - n0, wave.room)
    gain = inverse(new) - v_g
    # against the union with a uniform wave of the same size (the earlier waves kept: after
    # targeted waves a uniform design from scratch is no reference)
    rate = min(1.0, (n - n0) / max(wave.room, 1e-300))
    if np.ptp(prior) == 0:  # one prior (a uniform pilot): the sums in closed form
        uniform_sums = v_g * (1.0 / (prior[0] + (1.0 - prior[0]) * rate) - 1.0)
    else:
        union = prior + (1.0 - prior) * rate
        uniform_sums = np.bincount(st.codes, st.pred_var * (1.0 / union - 1.0), m)
    model_pool = float(gain.sum() / uniform_sums.sum()) if uniform_sums.sum() > 0 else 1.0
    # the smaller gain of two: the pilot's residuals (a Horvitz-Thompson sum over the few
    # labeled items the wave would raise, noisy and, after targeted waves, far too
    # hopeful: TriviaQA's pilot read 0.63 for a wave of 3 labels, where the model over
    # the whole pool reads 0.964 and bacon sample's own check 0.977) and the model's
    # predictive variance over the whole pool
    emp = max(1.0 if flat else wave.variance_ratio(new, rows, we2), model_pool)
    if sd_wave_choice(emp, round(n0), st.n_features) != "adaptive":
        return np.ones(m), 1.0, f"steps back to uniform: predicted ratio {emp:.3f}"
    calib = emp / model_pool if model_pool > 0 else 1.0
    per_group = gain / np.maximum(uniform_sums, 1e-300)
    say = f"predicted variance ratio {emp:.3f} against uniform (uniform share {share:g})"
    return per_group * calib, emp, say


def _harmonic(a: float, b: float) -> float:
    """``1 / (1 / a + 1 / b)``: two independent estimates' variances weighed by precision."""
    return a * b / (a + b) if a > 0 and b > 0 and np.isfinite(a + b) else min(a, b)


def group_labels(
    st: PilotStatistics, design: str, n: float, from_scratch: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Each group's expected labels at ``n`` in all and the variance of the draw's part
    (0 for stratified, whose allocation is fixed): from scratch ``n N_g / N``; topping up
    the pilot its own labels ``l_g`` plus the new ones, which ``bacon sample`` spreads
    over the open items (every design about the open items' share)."""
    have = np.zeros(len(st.names)) if from_scratch else st.labels.astype(float)
    new = max(n - (0.0 if from_scratch else st.n_labeled), 0.0)
    share = (st.sizes - have) / max(float((st.sizes - have).sum()), 1.0)
    spread = np.zeros_like(have) if design == "stratified" else new * share * (1.0 - share)
    return have + new * share, spread


def predict(
    st: PilotStatistics, design: str, n: float, *, from_scratch: bool = False
) -> Prediction:
    """The closed forms of the module docstring at ``n`` labels in all (at least the
    pilot's).

    ``from_scratch``: the design draws all ``n`` labels itself (as ``bacon simulate``
    does), instead of adding to the pilot's labels.
    """
    N = st.n_items
    n = float(min(max(n, 2.0 if from_scratch else max(st.n_labeled, 2.0)), N))
    pi = n / N
    sig2 = st.sigma2
    if design not in DESIGNS:
        raise ValidationError(f"design {design!r} is not known; use {', '.join(DESIGNS)}.")
    n_g, spread = group_labels(st, design, n, from_scratch)
    if not from_scratch and n <= st.n_labeled and design != "adaptive":  # no new label:
        design, kind = "uniform", design  # the pilot (tester B finding 16: 0.053 vs 0.146)
    else:
        kind = design
    fpc = (1.0 - pi) / pi
    # a group's labels as Hajek's: (1/n_g - 1/N_g) sigma_g^2 (a pilot group without a label
    # as if it had its share of the pilot, or one: its interval is withheld anyway)
    floor = np.minimum(pi * st.sizes, 1.0)
    var_g = sig2 * np.maximum(1.0 / np.maximum(n_g, floor) - 1.0 / st.sizes, 0.0)
    if design in ("uniform", "adaptive"):  # random group sizes
        var_g = var_g * (1.0 + spread / np.maximum(n_g, 1.0) ** 2)
    cov = np.diag(var_g)
    var_pool = fpc * st.s2_pool / N
    df = group_df(st, design, n, 2.0 if from_scratch else max(st.n_labeled, 2.0))
    df_pool = max(n - 1.0, 1.0)
    note = ""
    if design == "paired":
        if not st.has_prompts:
            raise ValidationError(
                "the paired design needs prompts: pass --prompt COL (the prompt each item "
                "answers), or leave paired out of --designs."
            )
        p0 = 0.0 if from_scratch else st.n_labeled / N
        D = paired_excess(np.array([pi]), p0)[0]
        sd = np.sqrt(st.sigma2)
        C = st.rho * np.outer(sd, sd)
        off = D * st.shared * C / np.outer(st.sizes, st.sizes)
        np.fill_diagonal(off, 0.0)
        cov = cov + off
        shared_sum = float((st.shared * C).sum() - np.trace(st.shared * C))
        b = (pi - p0) / (1.0 - p0)
        if p0 > 0 and b > 0:  # a study weighs the pilot and the paired wave by precision
            own = st.var_now if st.var_now is not None else (1.0 - p0) / p0 * st.s2_pool / N
            wave = (1.0 - b) / b * (st.s2_pool * (1.0 - p0) + shared_sum * (1.0 - p0) ** 2 / N)
            var_pool = _harmonic(own, wave / N)
        else:  # from scratch: one paired draw, the union
            var_pool = var_pool + D * shared_sum / N**2
        labeled_prompts = st.n_prompts * (1.0 - (1.0 - b) * (1.0 - p0) ** st.per_prompt)
        df_pool = max(labeled_prompts - 1.0, 1.0)
        note = f"{n / st.per_prompt:.0f} prompts' worth of labels"
    elif design not in ("uniform", "stratified", "adaptive"):
        raise ValidationError(f"design {design!r} is not known; use {', '.join(DESIGNS)}.")
    else:  # a study mixing waves: its estimate now and the new wave's, by precision
        ratio_g, ratio_pool, note = (
            _adaptive_ratios(st, n, from_scratch) if design == "adaptive" else (1.0, 1.0, "")
        )
        cov, var_pool = np.diag(var_g * ratio_g), var_pool * ratio_pool
        if st.var_now is not None and not from_scratch:
            b, p0 = (n - st.n_labeled) / max(N - st.n_labeled, 1.0), st.n_labeled / N
            wave = (1.0 - b) / b * st.s2_pool * (1.0 - p0) / N if b > 0 else np.inf
            var_pool = _harmonic(st.var_now, wave * ratio_pool)
    return Prediction(kind, n, cov, var_pool, df, df_pool, n_g, note)
