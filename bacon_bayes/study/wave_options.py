"""The designs a study's wave may use, and the checks that refuse a wave before anything
is written (:func:`validate_wave_options`): the budget, the columns to show, the prompt
column, each design's options, and the features and labels of the designs that fit a
model. :mod:`bacon_bayes.study.waves` draws the wave."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.io import file_line
from bacon_bayes.sampling import (
    DEFAULT_UNIFORM_SHARE,
    GROUP_UNIFORM_SHARE,
    MAX_VARIANCE_RATIO,
    resolve_budget,
)
from bacon_bayes.study.core import Study, none_left
from bacon_bayes.study.folder import (
    MODEL_DESIGNS,
)
from bacon_bayes.study.panel import check_panel
from bacon_bayes.study.prompts import (
    PAIRED_DESIGNS,
    check_paired_wave,
    labels_left,
)

__all__ = [
    "DESIGNS",
    "check_model_labels",
    "checked_wave",
    "overrun_note",
    "study_features",
    "validate_wave_options",
]


DESIGNS = (
    "uniform",
    "bernoulli",
    "stratified",
    "poisson",
    "adaptive",
    "two-stage",
    *PAIRED_DESIGNS,
)


def study_features(study: Study) -> np.ndarray:
    """Numeric feature matrix of the study's ``features`` (default: its judges)."""
    columns = list(study.config.features or study.config.judges)
    if not columns:
        raise ValidationError(
            "adaptive designs need features: list judge columns (judges = [...]) or "
            "features = [...] in study.toml"
        )
    blocks = []
    for column in columns:
        if column not in study.pool.columns:
            raise ValidationError(f"feature column {column!r} is not in the pool file")
        values = pd.to_numeric(study.pool[column], errors="coerce")
        junk = values.isna() & study.pool[column].notna()
        if junk.any():
            row = int(np.flatnonzero(junk.to_numpy())[0])
            raise ValidationError(
                f"feature column {column!r} holds a non-number in row "
                f"{file_line(study.pool, row)}: "
                f"{study.pool[column].iloc[row]!r}"
            )
        missing = values.isna().to_numpy()
        if missing.all():
            raise ValidationError(f"feature column {column!r} is empty")
        blocks.append(values.fillna(values.mean()).to_numpy(float))
        if missing.any():
            blocks.append(missing.astype(float))
    return np.column_stack(blocks)


#: Designs that draw a fixed number of items (the budget is rounded to a count).
_FIXED_SIZE = ("uniform", "stratified")
#: Designs that fit the study's outcome model on the labels of earlier waves.
_MODEL_DESIGNS = MODEL_DESIGNS
#: Columns of the to-label file that ``show`` columns may not take.
_TODO_COLUMNS = ("wave",)


def validate_wave_options(
    study: Study,
    design: str,
    budget: float | None,
    *,
    show: Sequence[str] = (),
    **options: object,
) -> None:
    """Refuse a wave of ``design`` that cannot be drawn, before anything is written.

    Checks the budget (a fraction strictly between 0 and 1, or a whole count of at
    least one, not above the items no wave selected yet), the ``show`` columns, the
    prompt column, and the options the design uses (``strata``, ``bins``,
    ``allocation``, ``pi_column``, ``folds``, ``uniform_share``, ``max_ratio``,
    ``sd_model``, ``per_prompt``), and for the designs that fit a model the study's
    features and labels. :func:`draw_wave` calls it before it writes; ``bacon sample``
    also calls it on :meth:`Study.new` before it creates a study folder.

    Parameters
    ----------
    study : Study
        The study (read from its folder, or :meth:`Study.new` before creating it).
    design : str
        One of :data:`DESIGNS`.
    budget : float or None
        New items of the wave (a fraction of the pool if in (0, 1)); ignored by poisson.
    show : sequence of str
        Pool columns to copy into the to-label file.
    **options
        The design options of :func:`draw_wave`.

    Raises
    ------
    ValidationError
        Naming the option and the fix.
    """
    checked_wave(study, design, budget, show, options)


def _check_max_labels(study: Study, n: int, allow_pending: bool = False) -> None:
    """Refuse a wave whose (expected) size takes the study past the budget it records: its
    alpha-spending intervals end there. A wave of random size may still overrun it; its
    look then spends what is left of alpha (:func:`~bacon_bayes.estimate.anytime.
    spending_times`), and no wave can follow. A wave none of whose labels came back counts
    in it, unless ``allow_pending`` (``bacon sample --allow-pending``) counts it as not
    drawn, as the estimates read with it do (:meth:`Study.never_back`)."""
    most = study.config.max_labels
    if most is None:
        return
    never = study.never_back() if study.labels.size else {}
    sent = study.n_selected - (sum(never.values()) if allow_pending else 0)
    if sent + n <= most:
        return
    left = most - sent
    pending = int(study.status()["pending"].sum())
    until = "--until GOAL --allow-pending" if pending and not allow_pending else "--until GOAL"
    room = (
        f"draw at most {left} (--budget {left}), or size the wave with {until}"
        if left > 0
        else "its budget is spent"
    )
    waves = ", ".join(f"wave {w} ({k} items)" for w, k in never.items())
    unused = (
        f" The items of {waves}, none of whose labels came back, are "
        "counted in it; if those labels will never come, --allow-pending counts "
        f"{'that wave' if len(never) == 1 else 'those waves'} as not drawn (as bacon "
        f"estimate and status --allow-pending read the study), leaving "
        f"{left + sum(never.values())}."
        if never and not allow_pending
        else ""
    )
    raise ValidationError(
        f"this wave's {n} items would take the study to {sent + n}, past the labelling "
        f"budget (max_labels = {most}), where its alpha-spending intervals end: "
        f"{room}.{unused} Labels past the budget get one look's intervals only (bacon "
        "estimate --fixed)"
    )


def overrun_note(study: Study, allow_pending: bool = False) -> str:
    """A note when the wave just drawn took the study's selected items past its recorded
    labelling budget: a wave of random size (its look spends what is left of alpha, and
    no wave can follow), or, with ``allow_pending``, earlier waves with no label back that
    the wave was sized as not drawn (:func:`_check_max_labels`): should their labels come
    back after all, the alpha-spending plan is used up at the look that reaches the
    budget (a study walk: three ``--until --allow-pending`` waves of 191, 10 and 191 took
    a study of ``max_labels = 400`` to 612 items, each note saying "size is random" and
    "no wave can follow it"; once the labels came in, estimate and status refused)."""
    most, sent = study.config.max_labels, study.n_selected
    if most is None or sent <= most:
        return ""
    latest = max(study.wave_numbers)
    never = study.never_back() if study.labels.size else {}
    never = {w: k for w, k in never.items() if w != latest}
    if allow_pending and never and sent - sum(never.values()) <= most:
        waves = ", ".join(f"wave {w} ({k} items)" for w, k in never.items())
        return (
            f"note: the study's waves now hold {sent} items, {sent - most} past its "
            f"labelling budget (max_labels = {most}): --allow-pending sized this wave with "
            f"{waves}, no label back, as not drawn. Should their labels come back after "
            f"all, the alpha-spending plan is used up at the look that reaches {most} "
            "labels: bacon estimate and status then refuse the anytime intervals of every "
            "later look (bacon estimate --fixed gives one look's)"
        )
    return (
        f"note: this wave's size is random and it took the study to {sent} items, "
        f"{sent - most} past its labelling budget (max_labels = {most}); its alpha-spending "
        "intervals spend what is left of alpha at this wave, and no wave can follow it"
    )


def checked_wave(
    study: Study,
    design: str,
    budget: float | None,
    show: Sequence[str],
    options: dict[str, Any],
) -> tuple[str | None, np.ndarray | None]:
    """:func:`validate_wave_options`; returns the wave's prompt column and prompts."""
    if design not in DESIGNS:
        raise ValidationError(f"unknown design {design!r}; choose one of {', '.join(DESIGNS)}")
    pool = study.pool
    check_panel(study.root, study.config, pool, study.waves)  # a judge retired or rescored
    for name in show:
        if name not in pool.columns:
            shown = ", ".join(map(str, pool.columns[:12]))
            raise ValidationError(
                f"--show column {name!r} is not in the pool file (columns: {shown}); "
                "name pool columns, separated by commas"
            )
        if name in (study.config.item, study.config.label, *_TODO_COLUMNS):
            raise ValidationError(
                f"--show column {name!r} clashes with a to-do column (the id, the label "
                "and 'wave' are always there); drop it from --show"
            )
    column = _prompt_column(study, design, options.get("prompt"))
    prompts = None if column is None else study.prompts(column)
    eligible = study.first_wave() < 0
    n_open = int(eligible.sum())
    if not n_open:
        raise ValidationError(none_left(study))
    if design == "poisson":
        _check_pi_column(study, options.get("pi_column"))
        return column, prompts
    n = _check_budget(design, budget, study.n_items, n_open)
    _check_max_labels(study, round(n), bool(options.get("allow_pending")))
    folds = _whole(options.get("folds", 5), "folds", 2)
    if design == "stratified":
        _check_strata(study, options)
    if design in ("adaptive", "paired-adaptive"):
        given = options.get("uniform_share")
        share = None if given is None else _number(given, "uniform-share")
        if share is not None and not 0 <= share <= 1:
            raise ValidationError(
                f"--uniform-share {share:g} must be between 0 and 1 (the share of the wave "
                f"drawn uniformly; default {DEFAULT_UNIFORM_SHARE:g}, "
                f"{GROUP_UNIFORM_SHARE:g} on a study with groups)"
            )
        sd_model = options.get("sd_model", "heteroskedastic")
        if sd_model not in ("heteroskedastic", "calibrator"):
            raise ValidationError(f"--sd-model {sd_model!r}: choose heteroskedastic or calibrator")
    if design == "adaptive":
        ratio = _number(options.get("max_ratio", MAX_VARIANCE_RATIO), "max-ratio")
        if not ratio >= 0:
            raise ValidationError(
                f"--max-ratio {ratio:g} must be 0 or more (e.g. {MAX_VARIANCE_RATIO:g}; 0: "
                "never follow the predicted sd, inf: always)"
            )
    if design in PAIRED_DESIGNS:
        assert prompts is not None  # _prompt_column names one for the paired designs
        check_paired_wave(design, n, eligible, prompts, options, labels_left(study))
    if design in _MODEL_DESIGNS:
        study_features(study)
        check_model_labels(study, folds)
    return column, prompts


def _number(value: object, option: str) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"--{option} must be a number, got {value!r}") from exc
    if np.isnan(number):
        raise ValidationError(f"--{option} must be a number, got {value!r}")
    return number


def _whole(value: object, option: str, least: int) -> int:
    number = _number(value, option)
    if number != int(number) or number < least:
        raise ValidationError(
            f"--{option} must be a whole number of at least {least}, got {value!r}"
        )
    return int(number)


def _check_budget(design: str, budget: float | None, n_total: int, n_open: int) -> float:
    """The wave's (expected) number of new items; refuses a budget that is not a
    fraction strictly between 0 and 1 or a whole count >= 1, or exceeds the open items."""
    if budget is None:
        raise ValidationError(
            f"the {design} design needs a budget: pass --budget N (a number of items) or "
            "--budget F (a fraction of the pool between 0 and 1)"
        )
    value = _number(budget, "budget")
    if not np.isfinite(value) or value <= 0 or (value >= 1 and value != int(value)):
        raise ValidationError(
            f"--budget {value:g}: budget must be a fraction of the pool strictly between 0 "
            "and 1 (0.1: a tenth) or a whole number of items of at least 1 (e.g. 20)"
        )
    n = resolve_budget(value, n_total)
    if design in _FIXED_SIZE and round(n) < 1:
        raise ValidationError(
            f"--budget {value:g} is {n:.2g} items of the {n_total}-item pool, which rounds "
            "to none; raise --budget"
        )
    if n > n_open:
        raise ValidationError(
            f"--budget {value:g} asks for {n:g} new items, but only {n_open} items are "
            f"still unlabeled (no wave selected them); lower the budget to {n_open} or less"
        )
    return n


def _check_pi_column(study: Study, column: object) -> None:
    pool = study.pool
    if not column or column not in pool.columns:
        given = "" if not column else f" ({column!r} is not one)"
        raise ValidationError(
            "the poisson design needs --pi-column naming a pool column with every item's "
            f"inclusion probability{given}"
        )
    values = pd.to_numeric(pool[column], errors="coerce").to_numpy(float)
    never = (values == 0) & (study.inclusion_probability() == 0)  # no wave can draw them
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0) | (values > 1) | never)
    if bad.size:
        row, more = int(bad[0]), f" and in {bad.size - 1} other rows" if bad.size > 1 else ""
        raise ValidationError(
            f"--pi-column {column!r} holds {pool[column].tolist()[row]!r} in row "
            f"{file_line(pool, row)} of the pool file (item {str(study.ids[row])!r}){more}; "
            "every item needs a probability of at most 1, and above 0 unless an earlier "
            "wave could draw it (the estimates weight each item by 1/probability): drop "
            "items outside the population from the pool file"
        )


def _check_strata(study: Study, options: dict[str, Any]) -> None:
    column = options.get("strata")
    if not column or column not in study.pool.columns:
        given = "" if not column else f"; {column!r} is not one"
        raise ValidationError(
            "the stratified design needs --strata naming a pool column (a group column, or "
            f"a numeric column cut into --bins bins){given}"
        )
    strata = study.pool[column]
    if strata.isna().any():
        row = int(np.flatnonzero(strata.isna().to_numpy())[0])
        raise ValidationError(
            f"strata column {column!r} is empty in row {file_line(study.pool, row)}; fill it "
            "in or pick another column"
        )
    _whole(options.get("bins", 5), "bins", 1)
    allocation = options.get("allocation", "proportional")
    if allocation not in ("proportional", "neyman"):
        raise ValidationError(f"--allocation {allocation!r}: choose proportional or neyman")
    if allocation == "neyman":
        study_features(study)


def check_model_labels(study: Study, folds: int) -> None:
    """The labels a model-based wave is fitted on: none pending, two per fold."""
    values = study.label_values()
    labeled = ~np.isnan(values)
    pending = (study.first_wave() >= 0) & ~labeled
    if pending.any():
        raise ValidationError(
            f"{int(pending.sum())} items of earlier waves have no label yet; import them "
            "before an adaptive wave (its model is fitted on all earlier labels). If they "
            "will never come, an adaptive wave cannot be drawn (--allow-pending does not "
            "change that): draw the next one with --design uniform or --design stratified "
            "(with --allow-pending for --until)"
        )
    if labeled.sum() < 2 * folds:
        raise ValidationError(
            f"an adaptive wave needs at least {2 * folds} labels from a pilot wave, the "
            f"study has {int(labeled.sum())}; draw a uniform pilot first (or lower --folds)"
        )


def _prompt_column(study: Study, design: str, given: object) -> str | None:
    """The prompt column of a wave: ``given`` or the study's (refusing a clash); None for
    item-level designs of a study without one."""
    recorded = study.config.prompt
    if given is not None and recorded is not None and str(given) != recorded:
        raise ValidationError(
            f"study {study.root} was sampled with prompt column {recorded!r}, not "
            f"{str(given)!r}; drop --prompt or pass --prompt {recorded}"
        )
    column = recorded if given is None else str(given)
    if column is None and design in PAIRED_DESIGNS:
        raise ValidationError(
            f"the {design} design draws prompts and labels their items together: name "
            "the prompt column with --prompt COLUMN (the question, source segment or "
            "document each item answers)"
        )
    return column
