"""The next round on the command line: ``--calibrator OLD.nc`` (and ``--refit``,
``--tolerance``) on ``bacon estimate`` and ``bacon report``.

The saved calibrator's models score the new pool (frozen, :mod:`bacon_bayes.frozen`);
the new pool's labels correct them. Judges, outcome, levels and scale default to the
saved calibrator's; model options are the saved calibrator's and are refused (``--scale``
and ``--group-effects`` too, unless they are its own), except ``--target`` and
``--pooling``, which pick this round's estimators, and ``--surrogates``, which picks this
round's AEE surrogates (:func:`bacon_bayes.frozen.round_surrogates`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import numpy as np

from bacon_bayes.errors import ValidationError

if TYPE_CHECKING:  # the parser is built without the library (a quick --help)
    from bacon_bayes.calibrator import Calibrator

#: As ``bacon_bayes.frozen.MIN_FRESH_LABELS`` and ``bacon_bayes.transport.TOLERANCE_SHARE``
#: (the options' help shows them without importing the library; tests/test_cli_startup.py).
MIN_FRESH_LABELS = 10
TOLERANCE_SHARE = 0.25

#: Options of a new fit that a saved calibrator fixes, with their defaults.
#: (``--surrogates`` is not among them: it picks the surrogates of this round's means.)
FIXED = {"model": None, "engine": "auto", "preset": None, "folds": 5, "seed": 0}


def add_round_arguments(p: argparse.ArgumentParser) -> None:
    """``--calibrator``, ``--refit``, ``--tolerance``."""
    g = p.add_argument_group("the next round (a calibrator saved from an earlier round)")
    g.add_argument(
        "--calibrator",
        metavar="OLD.nc",
        help="a saved calibrator (Calibrator.save) of an earlier round: its models score "
        "this pool, frozen, and this pool's labels (at least "
        f"{MIN_FRESH_LABELS}) correct them; judges, outcome, levels and scale default to "
        "its own",
    )
    g.add_argument(
        "--refit",
        action="store_true",
        help="with --calibrator: train the models on the old labels and this pool's "
        "(cross-fitted over this pool's); the correction still uses this pool's labels only",
    )
    g.add_argument(
        "--tolerance",
        type=float,
        help="with --calibrator: the surrogate bias (label scale) within which the old "
        f"calibration counts as holding (default {TOLERANCE_SHARE:g} x the old residual sd)",
    )


def load_saved(
    args: argparse.Namespace, scale: tuple[float, float] | None = None
) -> Calibrator | None:
    """The saved calibrator of ``--calibrator`` (None without it), with the command's
    pool options defaulted to its own; refuses model options it fixes (``scale``: the
    parsed ``--scale``)."""
    path = getattr(args, "calibrator", None)
    if not path:
        for flag in ("refit", "tolerance"):
            if getattr(args, flag, None):
                raise ValidationError(f"--{flag} needs --calibrator OLD.nc (a saved calibrator)")
        return None
    if getattr(args, "refit", False) and getattr(args, "tolerance", None) is not None:
        raise ValidationError(
            "--tolerance sets the transport check of a frozen calibrator; with --refit the "
            "models are retrained on both rounds and nothing is checked: drop --tolerance, "
            "or drop --refit to check the old calibration"
        )
    given = [f"--{n}" for n, default in FIXED.items() if getattr(args, n, default) != default]
    if given:
        raise ValidationError(
            f"{', '.join(given)}: the saved calibrator {path!r} fixes the model; drop them "
            "(or fit a new calibrator without --calibrator)"
        )
    from bacon_bayes.calibrator import Calibrator

    saved = Calibrator.load(path)
    round_defaults(args, saved, scale)
    return saved


def round_defaults(
    args: argparse.Namespace, saved: Calibrator, scale: tuple[float, float] | None = None
) -> None:
    """Label, judges, outcome and levels the command line leaves out: the saved
    calibrator's (the label: where no ``--labels`` file gives it; without it `bacon
    report new.csv --calibrator cal.nc` was refused, "--label is required for a table",
    after loading the calibrator: helper W14); ``--scale`` (parsed: ``scale``) and
    ``--group-effects`` other than its own are refused (it fixes them)."""
    refuse_other_settings(args, saved, scale)
    pool = saved.pool_
    if not getattr(args, "label", None) and not getattr(args, "labels", None):
        args.label = pool.label_name
    if not args.judge and not args.scores:
        args.judge = list(pool.judges)
        args.judges_of = args.calibrator  # said when the table lacks one of them
    if args.outcome is None:
        args.outcome = pool.outcome.kind
    if args.levels is None and pool.outcome.levels is not None:
        args.levels = ",".join(f"{v:g}" for v in pool.outcome.levels)


def refuse_other_settings(
    args: argparse.Namespace, saved: Calibrator, scale: tuple[float, float] | None
) -> None:
    """Refuse a ``--scale`` (parsed: ``scale``) or ``--group-effects`` other than the
    saved calibrator's: its models were fitted under them, and a value given here would
    otherwise go unused."""
    path = args.calibrator
    mine = None if saved.scale is None else tuple(float(v) for v in saved.scale)
    if scale is not None and scale != mine:
        own = "none" if mine is None else f"{mine[0]:g}:{mine[1]:g}"
        raise ValidationError(
            f"--scale {args.scale}: the saved calibrator {path!r} fixes the label's scale "
            f"(its own: {own}); drop --scale, put this round's labels on that scale, or fit a "
            "new calibrator without --calibrator"
        )
    effects = {"on": True, "off": False}.get(getattr(args, "group_effects", "auto"), "auto")
    if effects != "auto" and effects != saved.group_effects:
        raise ValidationError(
            f"--group-effects {args.group_effects}: the saved calibrator {path!r} fixes the "
            "model (its group level included); drop --group-effects, or fit a new calibrator "
            "without --calibrator"
        )


def plan_text(result: dict[str, Any], args: argparse.Namespace) -> str:
    """``bacon plan --calibrator``: the fresh labels a half-width needs, each count said
    as labels of the pool in all (and, for a group, of the group itself), with whether
    the labels in hand already reach it."""
    group = result["group"]
    pool_now = result["fresh_labels_now"]
    if group is None:
        what, have = "the pool mean", pool_now
        counted = f"labels of this pool in all; it has {pool_now}"
    else:
        what, have = (
            f"the mean of group {group!r} ({result['items']} items)",
            (result["group_labels_now"]),
        )
        counted = (
            f"labels {group!r} needs of its own, and the labels of this pool in all that a "
            f"uniform draw would take to give it that many; {group!r} has {have} of this "
            f"pool's {pool_now}"
        )
    lines = [
        f"fresh labels for a {1 - args.alpha:.0%} interval of half-width "
        f"{result['half_width']:g} of {what}, with calibrator {args.calibrator!r} frozen "
        f"({counted}):"
    ]

    def count(key: str) -> str:
        total = result[f"from_{key}"]
        met = "already met" if result[f"met_from_{key}"] else f"{_more(result, key, have)} more"
        if group is None:
            return f"{total} in all: {met}"
        return f"{result[f'in_group_from_{key}']} in {group!r} ({total} in the pool in all): {met}"

    lines.append(
        f"  from the old round's residuals (if the calibration transports): {count('old_round')}"
    )
    if "from_fresh_labels" in result:
        where = "this pool" if group is None else f"{group!r}"
        lines.append(
            f"  from the residuals of the {have} fresh labels of {where}: {count('fresh_labels')}"
        )
    else:
        where = "this pool" if group is None else f"{group!r}"
        lines.append(
            f"  (label at least {MIN_FRESH_LABELS} items of {where} to measure it on their own "
            f"residuals; {have} so far)"
        )
    return "\n".join(lines)


def _more(result: dict[str, Any], key: str, have: int) -> int:
    """Labels beyond those in hand (of the pool, or of the group) that a count asks for."""
    need = result[f"from_{key}"] if result["group"] is None else result[f"in_group_from_{key}"]
    return int(need) - have


def apply_saved(
    saved: Calibrator, pool: Any, args: argparse.Namespace, surrogates: list[str] | None = None
) -> Calibrator:
    """The saved calibrator applied to ``pool`` (frozen, or ``--refit``), with the
    surrogates of ``--surrogates`` (None: the calibrator's, its model in the means)."""
    import warnings

    from bacon_bayes.errors import PoolWarning

    with warnings.catch_warnings():  # printed among the pool's notes
        warnings.simplefilter("ignore", PoolWarning)
        cal = saved.apply(pool, refit=args.refit, surrogates=surrogates)
    cal.target = getattr(args, "target", cal.target)
    cal.pooling = getattr(args, "pooling", cal.pooling)  # this round's group estimator
    return cal


def save_and_say(cal: Calibrator, save: Any, name: str) -> str:
    """Save ``cal`` to the claimed output ``save`` (``--save name``); the line saying so,
    with the id of the calibrator it replaced there (an earlier round's, say)."""
    from bacon_bayes.persist import saved_id

    before = saved_id(save.path)
    cal.save(save)
    replaced = f"; it replaced the calibrator saved there before, id {before}" if before else ""
    return f"saved the fitted calibrator to {name!r} (id {cal.save_id_}{replaced})"


def fresh_enough(cal: Calibrator) -> bool:
    """Whether the pool has the fresh labels an estimate needs."""
    return cal.pool_.n_labeled >= MIN_FRESH_LABELS


def round_header(cal: Calibrator, args: argparse.Namespace) -> str:
    """The line saying which calibration scores this pool."""
    src = cal.frozen_.to_dict() if hasattr(cal, "frozen_") else None
    if src is None:  # refit
        info = cal.refit_
        return (
            f"calibrator {args.calibrator!r} (id {info['calibrator_id']}): refit on its "
            f"{info['n_old_labels']} labels and this pool's, {cal.folds}-fold cross-fitting "
            "over this pool's labels, which alone correct it"
        )
    return (
        f"calibrator {args.calibrator!r} (id {src['calibrator_id']}), fitted on "
        f"{src['n_labeled']} labels of {src['n_items']} items: frozen surrogate, "
        f"corrected by this pool's {cal.pool_.n_labeled} fresh labels"
    )


def new_groups_text(cal: Calibrator, group: str = "group") -> str:
    """A line naming the groups (systems) new to a frozen calibrator, and those of its
    round absent here ("" when none or no groups)."""
    from bacon_bayes.frozen import new_groups
    from bacon_bayes.order import names_text

    found = new_groups(cal)
    if found is None or not (found["new"] or found["absent"]):
        return ""
    parts = []
    if found["new"]:
        how = (
            "its group level gives them effect 0"
            if found["group_level"]
            else "the surrogate is the same function of the judges for every one"
        )
        parts.append(
            f"new to the calibrator (no label of theirs calibrated it; {how}): "
            f"{names_text(found['new'])}"
        )
    if found["absent"]:
        parts.append(f"in the calibrator's round, not in this pool: {names_text(found['absent'])}")
    return f"\n{group}s " + "; ".join(parts)


def round_surrogates_note(cal: Calibrator) -> str:
    """How a saved calibrator's model enters this round's AEE means (after the header's
    ``AEE means from ...``): in them, or not (then nothing of the old round is used)."""
    from bacon_bayes.frozen import TUNING_MIN_LABELS
    from bacon_bayes.surrogates import JUDGE_RIDGE, NO_MODEL

    if NO_MODEL in cal.extras_:
        return (
            " (the saved model is not in the means: they use nothing of the old round; "
            "drop --surrogates for the saved model in them)"
        )
    mode = "frozen" if hasattr(cal, "frozen_") else "refit"
    ridge = (
        "the judges' leave-one-out ridge on this pool's fresh labels"
        if JUDGE_RIDGE in cal.extras_
        else ", ".join(n for n in cal.extras_)
    )
    if hasattr(cal, "frozen_"):
        weights = (
            "tuned weights"
            if cal.power_tuning
            else f"equal weights below {TUNING_MIN_LABELS} fresh labels"
        )
    else:
        weights = "tuned weights" if cal.power_tuning else "equal weights"
    alone = " (--surrogates none: the saved model alone)" if cal.surrogates is None else ""
    return f" (the saved model, {mode}, beside {ridge}; {weights}){alone}"


def unvalidated_text(cal: Calibrator, label: str) -> str:
    """The surrogate's own means when the fresh labels are too few for an interval."""
    from bacon_bayes.frozen import unvalidated

    out = unvalidated(cal)
    lines = [
        f"UNVALIDATED: {cal.pool_.n_labeled} fresh label(s), fewer than the "
        f"{MIN_FRESH_LABELS} an interval needs. The saved calibration's own mean of "
        f"{label!r}, which no label of this pool checks (it holds only if the old "
        f"calibration transports to these items): {out['mean']:.4f}"
    ]
    for name, value in out.get("groups", {}).items():
        lines.append(f"  {name}: {value:.4f}")
    lines.append(f"Label at least {MIN_FRESH_LABELS} items of this pool for valid intervals.")
    return "\n".join(lines)


def imputed_note(cal: Calibrator) -> str:
    """A note on judges that skipped items of this pool but never those of the
    calibrator's: their missing scores are filled with the old pool's mean, which the
    models never learnt to discount (the transport check shows what it costs)."""
    imputed = cal.features_.report.get("imputed_without_indicator", {})
    if not imputed:
        return ""
    names = ", ".join(f"{j!r} ({n} items)" for j, n in imputed.items())
    return (
        f"\nnote: {names} gave no score to items of this pool but scored every item of the "
        "calibrator's; those scores are filled with the old pool's mean (the models never "
        "saw a missing score from them): read the transport check of the groups concerned"
    )


def transport_text(cal: Calibrator, args: argparse.Namespace) -> str:
    """The transport check as a table with its tolerance (and :func:`imputed_note`)."""
    from bacon_bayes.order import cell_name
    from bacon_bayes.transport import NEW, NEW_NOTE, pointwise_note, transport_check

    if not hasattr(cal, "frozen_"):
        return imputed_note(cal)
    from bacon_bayes.report.rounds import settle_cells

    table, tol = transport_check(cal, args.tolerance, args.alpha)
    shown = table.copy()
    shown["group"] = [cell_name(g) for g in table["group"]]  # ' M8' apart from M8
    shown["labels_to_settle"] = [
        "-" if v == 0 else cell
        for v, cell in zip(table["labels_to_settle"], settle_cells(table), strict=True)
    ]
    text = shown.to_string(index=False, float_format=lambda v: f"{v:.4f}")
    note = pointwise_note(table, args.alpha)
    if (table["verdict"] == NEW).any():
        text += f"\n{NEW}: {NEW_NOTE}"
    return (
        f"\nTransport check: fresh residual mean (label - frozen surrogate), "
        f"{1 - args.alpha:.0%} intervals; tolerance {tol:.4g} on the label's scale\n{text}"
        + (f"\nnote: {note}" if note else "")
        + imputed_note(cal)
    )


def refit_text(cal: Calibrator, args: argparse.Namespace, saved: Calibrator) -> str:
    """What the old labels bought: the AEE mean's width with them and without."""
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.persist import constructor_args

    if not args.refit:
        return ""
    alone = Calibrator(**constructor_args(saved)).fit(cal.pool_)
    w_with = cal.estimate_mean(args.alpha).width
    w_alone = alone.estimate_mean(args.alpha).width
    return (
        f"\nWhat the old labels bought: the mean's interval is {w_with:.4f} wide with them, "
        f"{w_alone:.4f} with this pool's labels alone (ratio {w_with / w_alone:.3f})"
    )


def round_json(cal: Calibrator, args: argparse.Namespace) -> dict[str, Any]:
    """The round's part of ``--json``."""
    from bacon_bayes.frozen import new_groups
    from bacon_bayes.transport import transport_check

    out: dict[str, Any] = {"calibrator": args.calibrator, "refit": bool(args.refit)}
    if hasattr(cal, "frozen_"):
        out["source"] = cal.frozen_.to_dict()
        if (found := new_groups(cal)) is not None:
            out["groups"] = found
        if fresh_enough(cal):
            table, tol = transport_check(cal, args.tolerance, args.alpha)
            out["transport"] = {
                "tolerance": tol,
                "rows": table.replace({np.nan: None}).to_dict("records"),
            }
    return out
