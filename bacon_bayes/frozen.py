"""A calibrator fitted on earlier rounds, applied to a new pool (the next round).

A surrogate fitted on earlier labels is a fixed function of a new pool's judge scores: no
label of the new pool trained it. The AEE on the new pool's own (fresh) labels, with
their inclusion probabilities, is then valid without cross-fitting: its correction is
the design-weighted mean of the fresh residuals ``y - f(x)``, and its width depends on
how well the old calibration still predicts, which the fresh labels themselves measure.
For the pool mean (and a group's mean with its own variance, 10 fresh labels or more)
nothing rests on the new round resembling the old one; a calibration that drifted only
costs width. Not so for a group with fewer than 10 fresh labels: its variance is
moderated (:func:`bacon_bayes.estimate.moderate.variance_prior`) toward the one that the
squared residuals predict from the surrogate, and a group whose judges drifted has a
frozen surrogate that is off, so it borrows the spread of other items. WMT22 zh-en, 8
systems, 6 fresh labels each, one system's COMETKiwi and BLEURT raised by 1 sd (its
MQM unchanged; ridge alone, 200 draws): that system's pointwise 95% interval covered
0.920 (separate) / 0.890 (shrunk) frozen, against 0.975 / 0.930 from a fresh fit, and
was 20% narrower, its misses on the drift's side (the 400 draws of the tester: refit
0.912 / 0.892); the seven others 0.955-0.995 in every mode. A prior flat in the
surrogate held it (0.985 / 0.990) but dropped the heavy-tailed M2M100 from 0.875 to
0.825, so it was not adopted. Read the transport check's per-group verdicts before
trusting a small group's interval from a frozen calibrator.

:func:`freeze_calibrator` builds that calibrator (see ``Calibrator.apply``): the new
pool's features are built with what was learnt on the old pool (clipping limits, fills,
the embedding's components; :func:`bacon_bayes.features.apply_features`), and every item
gets the old fold models' share-weighted average (:class:`bacon_bayes.crossfit.FrozenFit`),
as the old pool's unlabeled items did. Every estimate of the calibrator then works on the
new pool (means, quantiles, groups, comparisons, ranks, item scores, the report), with
power tuning (PPI++) on the fresh labels from :data:`TUNING_MIN_LABELS` of them on
(fewer: the plain difference estimator). Estimates need at least
:data:`MIN_FRESH_LABELS` fresh labels; with fewer, :func:`unvalidated` gives the
surrogate's own means, marked as such.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.crossfit import cross_fit_with, freeze
from bacon_bayes.errors import ValidationError
from bacon_bayes.features import FeatureSet, apply_features
from bacon_bayes.order import names_text, natural_sorted
from bacon_bayes.pool import EvalPool
from bacon_bayes.pool_checks import python_scalar
from bacon_bayes.scale import labels_outside

if TYPE_CHECKING:  # the calibrator calls this module, never the other way round
    from bacon_bayes.calibrator import Calibrator

__all__ = [
    "MIN_FRESH_LABELS",
    "TUNING_MIN_LABELS",
    "Source",
    "freeze_calibrator",
    "fresh_labels_for",
    "new_groups",
    "refit_calibrator",
    "round_surrogates",
    "tunes",
    "unvalidated",
]

#: Fewest fresh labels for an interval from a frozen calibrator: the variance comes from
#: the fresh residuals (coverage checked from 10 up: VALIDATION.md, "The next round").
MIN_FRESH_LABELS = 10
#: Fewer fresh labels than this: a frozen calibrator's estimates do not power-tune (the
#: surrogate's weight lambda is 1, the plain difference estimator). A lambda estimated
#: from a handful of labels makes the interval too short: simulated rounds, 95% intervals,
#: tuned / untuned coverage 0.91-0.92 / 0.95 at 10 fresh labels, 0.936 / 0.949 at 20,
#: 0.945-0.947 / 0.948-0.953 at 40 (untuned 3-9% wider); VALIDATION.md.
TUNING_MIN_LABELS = 40
#: A judge whose new scores fall outside the range it had in the calibrator's pool for
#: more than this share of the new items has changed its scale (refused); so have fresh
#: labels outside the calibrator's labels' range (when it declares no scale).
OUT_OF_RANGE_SHARE = 0.5


@dataclass(frozen=True)
class Source:
    """The round a frozen calibrator was fitted on.

    Attributes
    ----------
    save_id : str or None
        The id of the saved calibrator (``Calibrator.save``), None if never saved.
    n_items, n_labeled : int
        Items and labels of that round.
    label : str
        Its label's name.
    residuals : ndarray
        Its labels' out-of-fold residuals ``y - f(x)`` (item intervals of a new pool
        without fresh labels come from these, assuming the new items resemble the old).
    groups : tuple of str or None
        Its pool's groups (systems), None without a group column.
    """

    save_id: str | None
    n_items: int
    n_labeled: int
    label: str
    residuals: np.ndarray
    groups: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "calibrator_id": self.save_id,
            "n_items": self.n_items,
            "n_labeled": self.n_labeled,
            "label": self.label,
            "residual_sd": float(np.std(self.residuals, ddof=1))
            if self.residuals.size > 1
            else None,
        }


def group_names(groups: Any) -> tuple[str, ...] | None:
    """A pool's group names in natural order (None without groups)."""
    if groups is None:
        return None
    return tuple(natural_sorted(np.unique(np.asarray(groups).astype(str))))


def new_groups(cal: Calibrator) -> dict[str, Any] | None:
    """For ``cal`` applied to a new pool: the groups (systems) its round never saw
    (``new``), those of its round not in this pool (``absent``), and whether its model
    has a group level (``group_level``: a Bayesian judge model's group effects, 0 for a
    new group; without it the surrogate is the same function of the judges for every
    group). None when either pool has no groups or the round is not known."""
    source = getattr(cal, "frozen_", None)
    old = source.groups if source is not None else group_names(cal.pool_.groups)
    if hasattr(cal, "refit_") and source is None:
        return None  # a refit trains on both rounds: no group is new to its models
    now = group_names(cal.pool_.groups)
    if old is None or now is None:
        return None
    from bacon_bayes.bayes.groups import reads_groups

    seen = set(old)
    return {
        "new": [g for g in now if g not in seen],
        "absent": [g for g in old if g not in set(now)],
        "group_level": bool(reads_groups(cal.model_)),
    }


def check_compatible(cal: Calibrator, pool: EvalPool) -> None:
    """Refuse a pool whose label the calibrator cannot speak for: another outcome type,
    other levels, labels outside its scale (judges are checked by
    :func:`bacon_bayes.features.apply_features` and :func:`_check_judge_ranges`)."""
    old, new = cal.pool_.outcome, pool.outcome
    if old.kind != new.kind:
        raise ValidationError(
            f"the calibrator was fitted on a {old.kind} label and the new pool's label "
            f"{pool.label_name!r} is {new.kind}; give the new pool the same outcome type "
            f"(--outcome {old.kind}; outcome={old.kind!r} in EvalPool.from_frame) or fit a "
            "new calibrator"
        )
    if old.levels is not None and tuple(old.levels) != tuple(new.levels or ()):
        raise ValidationError(
            f"the calibrator's label has levels {list(old.levels)} and the new pool's has "
            f"{list(new.levels or [])}: a changed scale; give the same levels (--levels "
            f"{','.join(f'{v:g}' for v in old.levels)}) or fit a new calibrator"
        )
    if cal.scale is not None and (where := labels_outside(pool, *cal.scale)) is not None:
        lo, hi = cal.scale
        raise ValidationError(
            f"{where}: the calibrator was fitted on labels on the scale {lo:g}:{hi:g}, which "
            "it keeps; put this pool's labels on that scale (or fix the ones outside it), or "
            "fit a new calibrator"
        )
    _check_label_range(cal.pool_, pool)


def _check_label_range(old: EvalPool, new: EvalPool) -> None:
    """Without a declared scale, labels mostly outside the range of the calibrator's own
    (0-100 where they were 1-5) are on another scale: refused, as a judge's are."""
    if old.outcome.kind == "categorical" or old.n_labeled < 2 or new.n_labeled < 3:
        return
    before, now = old.y[old.labeled].astype(float), new.y[new.labeled].astype(float)
    lo, hi = float(before.min()), float(before.max())
    span = hi - lo
    outside = float(np.mean((now < lo - 0.05 * span) | (now > hi + 0.05 * span)))
    if span > 0 and outside > OUT_OF_RANGE_SHARE:
        raise ValidationError(
            f"label {new.label_name!r}: {outside:.0%} of this pool's {new.n_labeled} labels "
            f"fall outside the range of the calibrator's labels ({lo:g} to {hi:g}; here "
            f"{now.min():g} to {now.max():g}): labels on another scale; put them on the "
            "calibrator's scale, or fit a new calibrator"
        )


def _check_judge_ranges(old: FeatureSet, new: FeatureSet, pool: EvalPool) -> None:
    """A judge whose new scores mostly fall outside its old clipping range has changed
    scale (0-100 instead of 1-5, say): refused, since the models would extrapolate."""
    means = pool.judge_matrix("mean")
    for judge in old.judges:
        lo, hi, _ = old.params[f"judge:{judge}:mean"]
        x = means[judge].to_numpy(dtype=float)
        x = x[~np.isnan(x)]
        if np.isnan(lo) or x.size == 0:
            continue
        span = hi - lo
        outside = float(np.mean((x < lo - 0.05 * span) | (x > hi + 0.05 * span)))
        if outside > OUT_OF_RANGE_SHARE:
            raise ValidationError(
                f"judge {judge!r} scores {outside:.0%} of the new items outside the range it "
                f"had when the calibrator was fitted ({lo:g} to {hi:g}; new: {x.min():g} to "
                f"{x.max():g}): a changed scale or another judge under the same name; rescale "
                "its scores or fit a new calibrator"
            )


def round_surrogates(
    cal: Calibrator, pool: EvalPool, surrogates: list[str] | None, frozen: bool = True
) -> tuple[str, ...]:
    """The extra surrogates of ``cal`` applied to ``pool`` (the next round).

    Default (None): ``cal``'s own extras, its model back in the means (``no_model``
    dropped): the frozen model costs no cross-fitting and carries the old round's
    labels, where a fresh fit's small-budget rule (:func:`bacon_bayes.surrogates.
    freq_default`) left it out only because its cross-fitted fold models are noisy on few
    labels. Beside it, the judges' leave-one-out ridge is refitted on the fresh labels
    (:func:`freeze_calibrator`). On tester A's WMT22 rounds (session 37: 96 old labels,
    8 new systems, 200 draws on each of two round-2 tables, one with a drifted system)
    the frozen model with the fresh judges' ridge covered the pool mean as often as a
    fresh fit (0.935 and 0.945 vs 0.950 and 0.935 at 48 fresh labels, tuned; 0.895 and
    0.940 vs 0.895 and 0.945 at 24, equal weights; 0.900 and 0.895 vs 0.910 and 0.900 at
    20 uniform), 0.95x as wide at 48 labels; the frozen model alone (``[]``,
    ``--surrogates none``): 0.935 and 0.940 / 0.885 and 0.945 / 0.895 and 0.910, 0.91x as
    wide. Tuning two weights on fewer than 40 fresh labels covered 0.860-0.925.

    ``surrogates``: names as :func:`bacon_bayes.surrogates.resolve` takes them
    (``"small-budget"``: the rule on the fresh labels, a fresh fit's choice); when
    ``frozen``, a fitted one must be among ``cal``'s (frozen), since nothing here fits on
    the old labels (a refit cross-fits any on the new ones).
    """
    from bacon_bayes import surrogates as sur

    if surrogates is None:
        return tuple(n for n in cal.extras_ if n != sur.NO_MODEL)
    size = (pool.n_labeled, cal.features_.X.shape[1])
    names = sur.resolve(surrogates, cal.model_name_, cal.engine_, True, size)
    for name in names:
        if frozen and name not in sur.JUDGE_BASED and name not in cal.extras_:
            saved = ", ".join(n for n in cal.extras_ if n not in sur.JUDGE_BASED) or "none"
            raise ValidationError(
                f"surrogate {name!r} was not fitted with the saved calibrator (its fitted "
                f"extras: {saved}); a calibrator applied to a new round combines the judges' "
                f"surrogates ({', '.join(sorted(sur.JUDGE_BASED))}) and the ones it was saved "
                "with; drop it, or fit a new calibrator on this pool"
            )
    return names


def freeze_calibrator(
    cal: Calibrator, pool: EvalPool, surrogates: list[str] | None = None
) -> Calibrator:
    """``cal``'s fitted models, frozen, as a calibrator of ``pool`` (see the module
    docstring), with the extra surrogates of :func:`round_surrogates`; ``cal`` is left
    as it is."""
    from bacon_bayes import surrogates as sur

    names = round_surrogates(cal, pool, surrogates)
    new = _next_round(cal, pool)
    features = new.features_
    new.power_tuning = tunes(cal, pool.n_labeled)
    X = model_features(cal, features.X, pool)
    new.crossfit_ = freeze(cal.crossfit_, X, pool.y, pool.propensity)
    new.extras_ = {}
    for name in names:
        cf = cal.extras_.get(name)
        if name in sur.JUDGE_BASED:  # the judges' ridge refitted leave-one-out on the new
            new.extras_[name] = sur.fit_extras((name,), pool, features, new.crossfit_)[name]
        else:  # labels; the others unfitted, or frozen
            new.extras_[name] = (
                None if cf is None else freeze(cf, features.X, pool.y, pool.propensity)
            )
    if surrogates is not None:
        new.surrogates = list(surrogates)
    old = cal.pool_
    source = getattr(cal, "frozen_", None)
    new.frozen_ = source or Source(
        save_id=getattr(cal, "save_id_", None),
        n_items=old.n_items,
        n_labeled=old.n_labeled,
        label=old.label_name,
        residuals=(old.y - cal.surrogate_)[old.labeled],
        groups=group_names(old.groups),
    )
    return new


def grouped_features(cal: Calibrator, pool: EvalPool) -> np.ndarray:
    """At ``cal``'s fit on ``pool``: the X its model reads. A Bayesian model is told the
    pool's groups (``cal.model_`` replaced, its ``group_effects`` from ``cal``'s) and reads
    them from a column after the features (:func:`bacon_bayes.bayes.groups.attach_groups`);
    other models read the features alone."""
    X = cal.features_.X
    if cal.group_effects is not False and cal.group_effects != "auto":  # on, or a bad value
        from bacon_bayes.bayes.groups import check_group_option

        check_group_option(
            cal.group_effects,
            engine=cal.engine_,
            groups=pool.groups,
            model=cal.model_,
            family=cal.model_name_,
        )
    if cal.engine_ == "freq" or pool.groups is None:
        return X
    from bacon_bayes.bayes.groups import attach_groups

    cal.model_, X = attach_groups(cal.model_, X, pool.groups, cal.group_effects)
    return X


def model_features(cal: Calibrator, X: np.ndarray, pool: EvalPool) -> np.ndarray:
    """The features ``X`` of ``pool`` as ``cal``'s model reads them: with the items' group
    codes when its judge model has group effects (a group it never saw: effect 0)."""
    if cal.engine_ == "freq":
        return X
    from bacon_bayes.bayes.groups import with_group_column

    return with_group_column(cal.model_, X, pool.groups)


def _next_round(cal: Calibrator, pool: EvalPool) -> Calibrator:
    """A copy of ``cal`` on ``pool``, with the new pool's features built as ``cal``'s
    were, once the pool is checked against it (the models are set by the caller)."""
    cal._check_fitted()
    if not isinstance(pool, EvalPool):
        raise ValidationError(
            f"apply expects an EvalPool (build one with EvalPool.from_frame), got "
            f"{type(pool).__name__}."
        )
    check_compatible(cal, pool)
    _check_fresh(cal, pool)
    features = apply_features(pool, cal.features_)
    _check_judge_ranges(cal.features_, features, pool)
    new = copy.copy(cal)
    new.pool_ = pool
    new.features_ = features
    return new


def trained_on(cal: Calibrator, pool: EvalPool) -> np.ndarray:
    """Which of ``pool``'s items carry a label ``cal``'s models were trained on: an item
    labeled in the pool ``cal`` was fitted on with the same id, the same label and the
    same judge scores (all False for a calibrator applied from another one, whose pool's
    labels did not train its models)."""
    old = cal.pool_
    out = np.zeros(pool.n_items, dtype=bool)
    if hasattr(cal, "frozen_") or not old.n_labeled or not pool.n_labeled:
        return out
    at = pd.Index(old.ids, tupleize_cols=False).get_indexer(pd.Index(pool.ids, tupleize_cols=False))
    both = (at >= 0) & pool.labeled
    both[both] &= old.labeled[at[both]] & (old.y[at[both]] == pool.y[both])
    if not both.any():
        return out
    judges = [j for j in pool.judges if j in old.judges]
    mine = pool.judge_matrix()[judges].to_numpy(dtype=float)[both]
    theirs = old.judge_matrix()[judges].to_numpy(dtype=float)[at[both]]
    same = ((mine == theirs) | (np.isnan(mine) & np.isnan(theirs))).all(axis=1)
    out[np.flatnonzero(both)[same]] = True
    return out


def _check_fresh(cal: Calibrator, pool: EvalPool) -> None:
    """Refuse a pool whose labels include ones ``cal``'s models were trained on
    (:func:`trained_on`; ``cal.fit(pool).predict(pool)``): their residuals are in-sample,
    so the correction and the conformal intervals would rest on them as on fresh labels
    and come out too narrow."""
    reused = trained_on(cal, pool)
    if not reused.any():
        return
    n = int(reused.sum())
    shown = ", ".join(repr(python_scalar(v)) for v in pool.ids[reused][:3])
    more = f" and {n - 3} more" if n > 3 else ""
    whole = n == pool.n_labeled == cal.pool_.n_labeled and pool.n_items == cal.pool_.n_items
    what = (
        "this is the pool the calibrator was fitted on"
        if whole
        else f"{n} of the new pool's {pool.n_labeled} labels (items {shown}{more}) are "
        "labels the calibrator was fitted on (same item, label and judge scores)"
    )
    raise ValidationError(
        f"{what}: the calibrator's models were trained on these labels, so taken as fresh "
        "ones they would give too narrow intervals that undercover. For the pool it was "
        "fitted on use the fitted calibrator itself (cal.item_scores(), "
        "cal.estimate_mean(), ...: their surrogates are cross-fitted out of fold; on the "
        "command line, drop --calibrator); for a pool with more labels fit a new "
        "calibrator on it; to apply it to a next round, give that round's items with "
        "their own labels only"
    )


def tunes(cal: Calibrator, n_fresh: int) -> bool:
    """Whether ``cal`` frozen on a pool with ``n_fresh`` labels power-tunes its estimates:
    as ``cal`` does, from :data:`TUNING_MIN_LABELS` fresh labels on."""
    return bool(cal.power_tuning) and n_fresh >= TUNING_MIN_LABELS


def unused_judges_note(cal: Calibrator) -> str:
    """A note naming the judges of an applied calibrator's pool that its models never
    read (judges added in this round: only the naive average uses them); "" for none."""
    unused = [j for j in cal.pool_.judges if j not in cal.features_.judges]
    if not applied(cal) or not unused:
        return ""
    return (
        f"judge(s) {', '.join(map(repr, unused))} of this pool are not among the saved "
        f"calibrator's ({', '.join(map(repr, cal.features_.judges))}): its models do not "
        "read them, so the calibrated estimates do not use them (the naive average does); "
        "to use them, fit a new calibrator on this pool"
    )


def applied(cal: Calibrator) -> bool:
    """Whether ``cal`` is a saved calibrator applied to a new pool (frozen or refit), its
    fold models the earlier round's."""
    return hasattr(cal, "frozen_") or hasattr(cal, "refit_")


def unvalidated(cal: Calibrator, group: bool = True) -> dict[str, Any]:
    """The frozen surrogate's own mean of the pool (and of each group): no fresh label
    checks it, so it has no interval and is only as good as the old calibration's
    transport to these items."""
    f = cal.surrogate_
    out: dict[str, Any] = {"mean": float(np.mean(f)), "validated": False}
    groups = cal.pool_.groups
    if group and groups is not None:
        names, codes = np.unique(groups.astype(str), return_inverse=True)
        sums = np.bincount(codes, weights=f, minlength=names.size)
        out["groups"] = dict(zip(names.tolist(), (sums / np.bincount(codes)).tolist(), strict=True))
    return out


def refit_calibrator(
    cal: Calibrator, pool: EvalPool, surrogates: list[str] | None = None
) -> Calibrator:
    """A calibrator of ``pool`` whose fold models train on the old round's labels and on
    the new round's out-of-fold labels (cross-fitted over the new labels only, the old
    ones in every fold's training); the AEE correction uses the new labels alone, with
    their inclusion probabilities, so validity never rests on the old round resembling
    the new one. Extra surrogates (:func:`round_surrogates`: by default ``cal``'s, its
    model in the means) are cross-fitted on the new labels."""
    from bacon_bayes import surrogates as sur

    new = _next_round(cal, pool)
    features = new.features_
    old = cal.pool_
    X_old, y_old = model_features(cal, cal.features_.X, old), old.y
    if hasattr(cal, "refit_"):  # a refit itself: the rounds before it train too
        X_old = np.vstack([cal.refit_["X_old"], X_old])
        y_old = np.concatenate([cal.refit_["y_old"], y_old])
    new.crossfit_ = cross_fit_with(
        cal.model_,
        model_features(cal, features.X, pool),
        pool.y,
        X_old,
        y_old,
        folds=cal.folds,
        seed=cal.seed_,
        pi=pool.propensity,
        clusters=pool.prompts,
    )
    names = round_surrogates(cal, pool, surrogates, frozen=False)
    new.extras_ = sur.fit_extras(names, pool, features, new.crossfit_)
    if surrogates is not None:
        new.surrogates = list(surrogates)
    new.refit_ = {
        "n_old_labels": int(np.sum(~np.isnan(y_old))),
        "calibrator_id": getattr(cal, "save_id_", None),
        "X_old": X_old,  # saved with the calibrator: loading refits with them
        "y_old": y_old,
    }
    return new


def fresh_labels_for(
    cal: Calibrator, half_width: float, alpha: float = 0.05, group: str | None = None
) -> dict[str, Any]:
    """Fresh labels of the new pool (drawn uniformly) that a frozen calibrator needs for
    a ``1 - alpha`` interval of half-width ``half_width`` of the pool mean (or of
    ``group``'s mean).

    With a frozen surrogate the AEE mean's variance under uniform sampling of ``n`` of the
    ``N`` items is about ``(1/n - 1/N) s^2``, ``s^2`` the variance of the residuals
    ``y - f`` (power tuning can only lower it), so ``n = z^2 s^2 / (h^2 + z^2 s^2 / N)``.
    ``s^2`` comes from the old round's out-of-fold residuals (which assumes the
    calibration transports) and, when the new pool has at least
    :data:`MIN_FRESH_LABELS` fresh labels, also from them (which measures it). For a
    group, ``N`` is the group's size: the labels the group itself needs
    (``in_group_from_*``) and, scaled by the pool's size over the group's, the labels in
    all that a uniform draw over the pool would need to give it that many
    (``from_old_round``, ``from_fresh_labels``). The fresh residuals are the group's own
    (at least :data:`MIN_FRESH_LABELS` of them; ``group_labels_now``). ``met_from_*``:
    whether the labels in hand (the pool's, or the group's) already reach the half-width
    by that variance.
    """
    if not half_width > 0:
        raise ValidationError(f"--half-width {half_width!r} must be positive")
    pool = cal.pool_
    z = float(stats.norm.ppf(1 - alpha / 2))
    rows = np.ones(pool.n_items, bool)
    if group is not None:
        if pool.groups is None:
            raise ValidationError("--group-mean needs the pool's group column (--group COL)")
        rows = np.asarray(pool.groups).astype(str) == str(group)
        if not rows.any():
            names = names_text(np.unique(np.asarray(pool.groups).astype(str)))
            raise ValidationError(f"no group {group!r} in the pool; groups are {names}")
    size = int(rows.sum())

    def needed(resid: np.ndarray) -> int:
        """Labels of the rows (the pool, or the group) for the half-width."""
        s2 = float(np.var(resid, ddof=1))
        return math.ceil(min(z * z * s2 / (half_width**2 + z * z * s2 / size), size))

    def in_all(n: int) -> int:
        """Those labels as labels of the pool in all, drawn uniformly."""
        return math.ceil(n * pool.n_items / size)

    source = cal.frozen_ if hasattr(cal, "frozen_") else None
    if source is None:
        raise ValidationError("planning a round needs a calibrator applied to the new pool")
    fresh = pool.labeled & rows
    have = int(fresh.sum())
    old_n = needed(source.residuals)
    out: dict[str, Any] = {
        "half_width": half_width,
        "group": group,
        "items": size,
        "from_old_round": in_all(old_n),
    }
    if have >= MIN_FRESH_LABELS:
        fresh_n = needed((pool.y - cal.surrogate_)[fresh])
        out["from_fresh_labels"] = in_all(fresh_n)
    out["fresh_labels_now"] = int(pool.n_labeled)
    if group is not None:  # the group's own labels: what its interval rests on
        out["group_labels_now"] = have
        out["in_group_from_old_round"] = old_n
        if have >= MIN_FRESH_LABELS:
            out["in_group_from_fresh_labels"] = fresh_n
    out["met_from_old_round"] = have >= old_n
    if have >= MIN_FRESH_LABELS:
        out["met_from_fresh_labels"] = have >= fresh_n
    return out
