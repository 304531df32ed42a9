"""Per-judge bias a person can read, for either engine.

``bias`` answers "does this judge score higher or lower than people do, and by how
much, at a typical item?": the judge's expected score minus the expected human label
over the pool (the pool's typical item), on the label's scale. It is only reported when
the judge scores on the label's scale (:func:`same_scale`); otherwise ``bias`` is NaN and
``noise_human`` (the judge's error once calibrated to the human scale) tells how good
the judge is.

Frequentist engine (:func:`freq_judge_bias`): the judge's pool mean is known exactly
(every item has its score), so ``bias = mean(judge) - theta`` with ``theta`` the AEE
estimate of the mean human label over the items the judge scored; its interval is the
AEE interval reflected, so it holds its level whenever the AEE interval does (design-
based, valid with any surrogate). ``offset``, ``scale`` and ``noise`` come from a
design-weighted linear regression of the judge's scores on the labels
(``judge = offset + scale * label + noise``), ``noise_human = noise / |scale|``.
The Bayesian engine's version is in :mod:`bacon_bayes.bayes.bias`: its line is on the
human-scale quality the judges share (``E[label | latent]``), whose sd, its table's
``quality_sd``, is smaller than the labels', so its ``scale`` is larger and its
``noise_human`` smaller than this table's, per unit of that quality.

Categorical labels, either engine (:func:`human_rates`): each categorical judge (every
score it gave is an outcome level) gets its confusion rates against the human label over
the pool, ``P(judge says l | human label k)``: ``fpr_human`` (says the second level when
people give the first) and ``fnr_human`` for two levels, ``acc_human_<level>`` (recall
of that level) for more. Each rate is a ratio of two pool means, e.g.
``sum_i J_i (1 - Y_i) / sum_i (1 - Y_i)``, estimated by :func:`bacon_bayes.estimate.aee_ratio`
with the calibrator's cross-fitted class probabilities as surrogates (``J_i P(Y = 0 |
x_i)`` and ``P(Y = 0 | x_i)``) corrected by the labeled items: the interval (spanning
the delta method's and Wilson's score form, which keeps its level when few events are
labeled) holds whatever the model
(its errors only widen it), for the pool as the other estimates do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes import estimate as est
from bacon_bayes.items import check_level, class_probabilities

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.pool import EvalPool

__all__ = [
    "categorical_judges",
    "freq_judge_bias",
    "human_rates",
    "label_range",
    "on_label_scale",
    "same_scale",
]

#: Share of the label's range by which a judge's scores may overshoot it and still be
#: read as "on the label's scale" (judges that average runs stray a little).
SCALE_SLACK = 0.1
#: Labeled events and non-events added to the variance of a confusion rate against the
#: human label (:func:`bacon_bayes.estimate.aee_ratio`'s ``pseudo``): rare cells whose
#: few events missed the labeled sample keep an interval.
PSEUDO_EVENTS = 1.0


def label_range(cal: Calibrator) -> tuple[float, float]:
    """The label's range: its bounds (levels, ``scale``) where finite, else the labels'."""
    return _pool_range(cal.pool_, cal.bounds_)


def _pool_range(pool: EvalPool, bounds: tuple[float, float]) -> tuple[float, float]:
    """``bounds`` where finite, else the pool's labels' lowest and highest."""
    lo, hi = bounds
    y = pool.y[pool.labeled]
    return (lo if np.isfinite(lo) else float(y.min()), hi if np.isfinite(hi) else float(y.max()))


def same_scale(scores: np.ndarray, low: float, high: float) -> bool:
    """Whether a judge scores on the label's scale: its 1st-99th percentile of scores
    lies within ``[low, high]`` widened by :data:`SCALE_SLACK` of its width, and spans at
    least a quarter of it (a 0-1 probability is not on a 1-5 scale)."""
    s = scores[np.isfinite(scores)]
    if s.size == 0 or not high > low:
        return False
    q1, q99 = np.quantile(s, [0.01, 0.99])
    slack = SCALE_SLACK * (high - low)
    return bool(q1 >= low - slack and q99 <= high + slack and q99 - q1 >= 0.25 * (high - low))


def off_scale_note(scores: np.ndarray, low: float, high: float, bounds: tuple[float, float]) -> str:
    """Why a judge not on the label's scale (:func:`same_scale`) gets no bias: where its
    scores lie against ``[low, high]``, the label's range (read off the labels seen at an
    end ``bounds`` leaves open, so a judge on the label's full scale may fall outside it)."""
    s = scores[np.isfinite(scores)]
    if s.size == 0:
        return "no scores: no bias"
    q1, q99 = np.quantile(s, [0.01, 0.99])
    given = int(np.isfinite(bounds).sum())
    where = (
        "its levels or --scale (scale= in Python)"  # "its scale" named neither (helper W14)
        if given == 2
        else (
            "the labels seen, no scale given"
            if given == 0
            else "the labels seen at the end the scale leaves open"
        )
        + ": if the judge scores on the label's scale, give it as --scale LOW:HIGH "
        "(scale=(LOW, HIGH) in Python)"
    )
    return (
        f"no bias: its scores ({q1:.4g} to {q99:.4g}, 1st-99th percentile) are not on the "
        f"label's range {low:.4g}:{high:.4g} ({where}); offset and scale relate them"
    )


def _weighted_line(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """Weighted least squares ``y = a + b x``: (a, b, residual sd)."""
    w = w / w.sum()
    xm, ym = w @ x, w @ y
    b = float(w @ ((x - xm) * (y - ym)) / max(w @ (x - xm) ** 2, 1e-300))
    a = float(ym - b * xm)
    return a, b, float(np.sqrt(w @ (y - a - b * x) ** 2))


def freq_judge_bias(cal: Calibrator, level: float = 0.9) -> pd.DataFrame:
    """Per-judge bias table of a fitted Calibrator from the data (either engine).

    Columns: ``judge``, ``same_scale``, ``bias`` with ``bias_low``/``bias_high`` (the
    central ``level`` interval; NaN when the judge is not on the label's scale),
    ``judge_mean``, ``human_mean``, ``offset``, ``scale``, ``noise``, ``noise_human``
    and ``n_labeled`` (labeled items the judge scored). A judge that scored fewer than 2
    labeled items has its ``judge_mean`` only, and a ``note`` saying so (the column is
    there only then).
    """
    pool = cal.pool_
    low, high = label_range(cal)
    scores = pool.judge_matrix().to_numpy(dtype=float)
    y, lab = pool.y, pool.labeled
    pi = (
        np.full(pool.n_items, lab.sum() / pool.n_items)
        if pool.propensity is None
        else np.asarray(pool.propensity, dtype=float)
    )
    f = cal.surrogate_
    rows = []
    for j, judge in enumerate(pool.judges):
        s = scores[:, j]
        seen = np.isfinite(s)
        fit = lab & seen
        on_scale = same_scale(s, low, high)
        if fit.sum() < 2:  # no variance of the human mean, no line: the others still
            rows.append(_too_few_labeled(judge, on_scale, s[seen], int(fit.sum())))
            continue
        human = est.aee_mean(
            np.where(lab, y, np.nan)[seen],
            f[seen],
            pi=pi[seen],
            alpha=1 - level,
            power_tuning=cal.power_tuning,
            hajek=cal.hajek,
            target=cal.target,
        )
        mean_s = float(s[seen].mean())
        offset, scale, noise = _weighted_line(y[fit], s[fit], 1.0 / pi[fit])
        rows.append(
            {
                "judge": judge,
                "same_scale": on_scale,
                "bias": mean_s - human.estimate if on_scale else np.nan,
                "bias_low": mean_s - human.ci_high if on_scale else np.nan,
                "bias_high": mean_s - human.ci_low if on_scale else np.nan,
                "judge_mean": mean_s,
                "human_mean": human.estimate,
                "offset": offset,
                "scale": scale,
                "noise": noise,
                "noise_human": noise / abs(scale) if scale != 0 else np.inf,
                "n_labeled": int(fit.sum()),
                "note": "" if on_scale else off_scale_note(s, low, high, cal.bounds_),
            }
        )
    table = pd.DataFrame(rows)
    return table if table["note"].any() else table.drop(columns="note")


def _too_few_labeled(judge: str, on_scale: bool, scores: np.ndarray, n: int) -> dict[str, Any]:
    """The bias row of a judge that scored fewer than 2 labeled items: its mean only."""
    nan = float("nan")
    return {
        "judge": judge,
        "same_scale": on_scale,
        **dict.fromkeys(["bias", "bias_low", "bias_high"], nan),
        "judge_mean": float(scores.mean()),
        **dict.fromkeys(["human_mean", "offset", "scale", "noise", "noise_human"], nan),
        "n_labeled": n,
        "note": f"judge {judge!r} scored {n} labeled item(s); its bias and line need at "
        "least 2: have it score labeled items, or label items it scored.",
    }


def categorical_judges(cal: Calibrator) -> np.ndarray:
    """(J,) bool: the judges read as categorical, the fold models' own choice when they
    make one (the Bayesian multinomial model), else every score an outcome level."""
    const = getattr(cal.crossfit_.models[0], "constants_", None)
    if isinstance(const, dict) and "categorical" in const:
        return np.asarray(const["categorical"], dtype=bool)
    levels = np.asarray(cal.pool_.outcome.levels, dtype=float)
    scores = cal.pool_.judge_matrix().to_numpy(dtype=float)
    seen = np.isfinite(scores)
    return np.array([np.isin(s[o], levels).all() for s, o in zip(scores.T, seen.T, strict=True)])


def human_rates(cal: Calibrator, level: float = 0.9) -> pd.DataFrame:
    """Categorical judges' confusion rates against the human label, AEE ratio estimates.

    One row per judge; columns ``fpr_human``/``fnr_human`` (two levels) or
    ``acc_human_<level>`` (more), each with ``*_low``/``*_high`` (central ``level``
    interval, within [0, 1]); NaN for a judge that is not categorical.
    """
    pool = cal.pool_
    lv = np.sort(np.asarray(pool.outcome.levels, dtype=float))
    probs = class_probabilities(cal.crossfit_.cdf(lv))  # (N, K), cross-fitted
    lab = pool.labeled
    truth = (np.where(lab, pool.y, np.nan)[:, None] == lv[None, :]).astype(float)
    scores = pool.judge_matrix().to_numpy(dtype=float)
    cat = categorical_judges(cal)
    if lv.size == 2:  # (name, human level k, judge's level l): P(judge says l | human k)
        cells = [("fpr_human", 0, 1), ("fnr_human", 1, 0)]
    else:
        cells = [(f"acc_human_{v:g}", k, k) for k, v in enumerate(lv)]
    # a[j, c, i] = judge j scored item i, said level l_c and people gave k_c; b: the latter
    cols = np.flatnonzero(cat)
    said = np.isfinite(scores[:, cols, None]) & (scores[:, cols, None] == lv)  # (N, Jc, K)
    seen = np.isfinite(scores[:, cols]).T[:, None, :].astype(float)  # (Jc, 1, N)
    ks = [k for _, k, _ in cells]
    says = np.stack([said[:, :, v].T for _, _, v in cells], axis=1)  # (Jc, C, N)
    r = est.aee_ratio(
        says * truth[:, ks].T,
        seen * truth[:, ks].T,
        says * probs[:, ks].T,
        seen * probs[:, ks].T,
        lab,
        pool.propensity,
        alpha=1 - level,
        power_tuning=cal.power_tuning,
        hajek=cal.hajek,
        target=cal.target,
        pseudo=PSEUDO_EVENTS,
        wilson=True,
    )
    table: dict[str, object] = {"judge": list(pool.judges)}
    for c, (name, _, _) in enumerate(cells):
        for suffix, values in (("", r.estimate), ("_low", r.ci_low), ("_high", r.ci_high)):
            col = np.full(cat.size, np.nan)
            col[cols] = np.clip(values[:, c], 0.0, 1.0)
            table[name + suffix] = col
    return pd.DataFrame(table)


#: Below this share of signal (see :func:`informativeness`) a judge is "uninformative".
MIN_SIGNAL = 0.05


def informativeness(
    table: pd.DataFrame,
    label_sd: float,
    min_signal: float = MIN_SIGNAL,
    falls: np.ndarray | None = None,
) -> pd.DataFrame:
    """How much of each judge follows the label: ``signal`` and ``verdict`` columns.

    ``signal = sd**2 / (sd**2 + noise_human**2)`` with ``sd`` the standard deviation of
    what the judge's line is on: the labels' (frequentist table), or the human-scale
    quality's, ``quality_sd`` (the Bayesian table, whose ``noise_human`` is per unit of
    that quality, :mod:`bacon_bayes.bayes.bias`): the share of a calibrated judge's
    variance that follows it (the squared correlation the judge's linear model
    implies). A judge is
    ``"uninformative"`` when its signal is below ``min_signal`` or, where the table has
    an interval for ``scale``, when that interval includes 0 (its scores may not move
    with the label at all).

    Parameters
    ----------
    table : pandas.DataFrame
        A judge-bias table (``Calibrator.judge_bias``, either engine) with
        ``noise_human``; returned unchanged without it (categorical labels).
    label_sd : float
        Standard deviation of the human labels (used where the table has no
        ``quality_sd``).
    min_signal : float
        Threshold of the ``signal`` share (0.05).
    falls : ndarray of bool, optional
        Per judge: it falls as the label rises (:func:`reversed_judges`). Its verdict is
        ``"reversed"``, and ``"reversed, uninformative"`` where its line is as weak as
        an uninformative judge's. In the Bayesian table the judges' scales on the latent
        are positive by the model: where a reversed judge's ``scale`` on the label's
        scale is not wholly below 0, the model fitted it as noise, its line does not
        describe it, and its ``signal`` is NaN rather than the 0 of a judge fitted as
        noise (tester G finding 7), its verdict ``"reversed"``; where the whole ``scale``
        interval is below 0 (the label runs against the latent the judges share, e.g.
        every metric against MQM errors) the line is the judge's, read as any other.

    Returns
    -------
    pandas.DataFrame
        ``table`` with ``signal`` and ``verdict`` (``"uninformative"``, ``"reversed"``,
        ``"reversed, uninformative"`` or ``""``).
    """
    if "noise_human" not in table:
        return table
    noise = np.abs(table["noise_human"].to_numpy(dtype=float))
    sd = table["quality_sd"].to_numpy(float) if "quality_sd" in table else float(label_sd)
    var = np.asarray(sd, dtype=float) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        signal = np.where(np.isfinite(noise), var / (var + noise**2), 0.0)
    signal[np.isnan(noise)] = np.nan  # no line (too few labeled scores): no verdict
    flat = np.zeros(len(table), dtype=bool)
    if {"scale_low", "scale_high"} <= set(table):
        flat = (table["scale_low"].to_numpy(float) <= 0) & (
            table["scale_high"].to_numpy(float) >= 0
        )
    out = table.copy()
    out["signal"] = signal
    verdict = np.where((signal < min_signal) | flat, "uninformative", "")
    if falls is not None:
        falls = np.asarray(falls, dtype=bool)
        said = np.where(verdict == "uninformative", "reversed, uninformative", "reversed")
        if "quality_sd" in table:  # the judge model's scale is positive: fitted as noise
            # ... unless the label link runs against the latent (every judge reversed, as
            # metrics against MQM errors): then a scale wholly below 0 is the judge's line
            # and its signal reads as any judge's (helper W14: COMET-22 on WMT22 had NaN)
            fitted = (
                table["scale_high"].to_numpy(float) < 0
                if "scale_high" in table
                else np.zeros(len(table), dtype=bool)
            )
            verdict = np.where(falls, np.where(fitted, said, "reversed"), verdict)
            signal = np.where(falls & ~fitted, np.nan, signal)
        else:  # its own line, read as any judge's (BLEU on MQM errors: signal 0.045)
            verdict = np.where(falls, said, verdict)
    out["signal"] = signal
    out["verdict"] = verdict
    return out


def reversed_judges(pool: EvalPool) -> np.ndarray:
    """bool per judge of ``pool``: its scores fall as the label rises on the labeled rows
    (:func:`~bacon_bayes.scale.falls_with`, the check of the naive baseline's note)."""
    from bacon_bayes.scale import falls_with

    labels = np.where(pool.labeled, pool.y, np.nan)
    scores = pool.judge_matrix().to_numpy(dtype=float)
    return np.array([falls_with(labels, scores[:, j]) is not None for j in range(scores.shape[1])])


def _without_reversed(pool: EvalPool, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with no bias for a judge that falls as the label rises (a reversed scale,
    1 = best: :func:`~bacon_bayes.scale.falls_with`, the check the naive baseline's note
    makes): its mean minus the label's mean says nothing of over- or under-rating. Its
    ``same_scale`` is False and a ``note`` column names the reversal."""
    from bacon_bayes.scale import falls_with

    if "bias" not in table:
        return table
    labels = np.where(pool.labeled, pool.y, np.nan)
    scores = pool.judge_matrix().to_numpy(dtype=float)
    rho = [falls_with(labels, scores[:, j]) for j in range(scores.shape[1])]
    if all(r is None for r in rho):
        return table
    falls = np.array([r is not None for r in rho])
    table = table.copy()
    for k in ("bias", "bias_low", "bias_high"):
        table[k] = table[k].where(~falls)
    table["same_scale"] = table["same_scale"] & ~falls
    kept = table["note"] if "note" in table else [""] * len(table)
    table["note"] = [
        old
        if r is None
        else f"falls as the label rises (Spearman {r:.2f}): a reversed scale "
        "(1 = best)? No bias on the label's scale; score it as high - score to read one"
        for r, old in zip(rho, kept, strict=True)
    ]
    return table


def on_label_scale(
    table: pd.DataFrame, pool: EvalPool, bounds: tuple[float, float]
) -> pd.DataFrame:
    """The Bayesian engine's bias table with ``bias`` only for judges on the label's scale.

    Parameters
    ----------
    table : DataFrame
        :func:`bacon_bayes.bayes.bias.judge_bias`'s table, one row per judge of ``pool``.
    pool : EvalPool
        The pool the judge model was fitted to.
    bounds : tuple of float
        The label's range (infinite ends: the labels' own).

    Returns
    -------
    DataFrame
        ``table`` with a ``same_scale`` column, and ``bias``, ``bias_low``, ``bias_high``
        NaN where a judge does not score on the label's scale (:func:`same_scale`) or
        falls as the label rises (said in a ``note`` column).
    """
    if "bias" not in table:
        return table
    low, high = _pool_range(pool, bounds)
    scores = pool.judge_matrix().to_numpy(dtype=float)
    on = np.array([same_scale(scores[:, j], low, high) for j in range(len(table))])
    table = table.copy()
    table.insert(1, "same_scale", on)
    for k in ("bias", "bias_low", "bias_high"):
        table[k] = table[k].where(on)
    if not on.all():
        notes = [off_scale_note(scores[:, j], low, high, bounds) for j in range(len(table))]
        table["note"] = np.where(on, "", notes)
    return _without_reversed(pool, table)


def posterior_table(cal: Calibrator) -> bool:
    """Whether ``cal``'s judge-bias table is its Bayesian fold models' posterior one: a
    Bayesian calibrator fitted on its pool. One applied to a new pool (``apply``, frozen
    or refit) gets the new pool's table from its fresh labels (:func:`freq_judge_bias`),
    as the frequentist engine does: its fold models' posterior is the earlier round's."""
    from bacon_bayes.frozen import applied

    models = cal.crossfit_.models
    bayes = all(hasattr(m, "posterior_") and hasattr(m, "family") for m in models)
    return bayes and not applied(cal)


def calibrator_judge_bias(cal: Calibrator, level: float, plot_path: str | None) -> pd.DataFrame:
    """:meth:`Calibrator.judge_bias` (documented there): the Bayesian engine's posterior
    table or :func:`freq_judge_bias`, with the categorical rates and the forest plot."""
    cal._check_fitted()
    check_level(level)
    from bacon_bayes.bayes.bias import forest_plot, judge_bias

    if posterior_table(cal):
        table = judge_bias(cal.crossfit_.models, level=level)
        table = on_label_scale(table, cal.pool_, cal.bounds_)
    else:
        table = _without_reversed(cal.pool_, freq_judge_bias(cal, level))
    if cal.pool_.outcome.kind == "categorical":
        if "type" not in table:
            kind = np.where(categorical_judges(cal), "categorical", "continuous")
            table.insert(1, "type", kind)
        rates = human_rates(cal, level).drop(columns="judge")
        table = pd.concat([table, rates], axis=1)
    if plot_path is not None:
        forest_plot(table, plot_path, title=f"Judge bias ({cal.model_name_} model)")
    return table
