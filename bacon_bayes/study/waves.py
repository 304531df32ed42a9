"""Draw a new sampling wave into a study folder and record it in the manifest.

Budget of a wave: the number of *new* items to send out (a fraction of the
pool when in (0, 1), else a count); exact for fixed-size designs (uniform,
stratified), the expected number for Bernoulli. For ``adaptive`` and
``two-stage`` it is the expected number over the design,
``sum_i (1 - prior_i) p_i = budget`` (for two-stage: the paper's constraint
``mean e <= eta`` with ``eta = mean(prior) + budget / N``), so their rule does
not depend on which items the earlier waves drew and the union-of-waves
probabilities are exact given the fitted model.

``adaptive`` and ``two-stage`` fit the study's outcome model on the labels of
the earlier waves: a cross-fitted ridge regression (:class:`RidgeOutcome`,
:func:`~bacon_bayes.crossfit.cross_fit`) on the study's
``features`` (missing values imputed by the column mean plus a missing flag),
out-of-fold residuals, and for ``adaptive`` the heteroskedastic sd model of
:mod:`bacon_bayes.sampling.sd_model` - or, with ``sd_model="calibrator"``, the
predictive sd of a :class:`~bacon_bayes.Calibrator` (the posterior predictive
sd with a Bayesian engine). They refuse to run while earlier
selected items are still unlabeled.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.crossfit import cross_fit
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import file_line
from bacon_bayes.outcome.ridge import RidgeOutcome
from bacon_bayes.sampling import (
    DEFAULT_UNIFORM_SHARE,
    GROUP_UNIFORM_SHARE,
    MAX_VARIANCE_RATIO,
    Design,
    adaptive,
    bernoulli,
    bin_feature,
    cross_fitted_sd,
    expected_variance_ratio,
    poisson,
    resolve_budget,
    sd_wave_choice,
    stratified,
    two_stage,
    uniform,
    wave_seed,
)
from bacon_bayes.scale import is_binary
from bacon_bayes.study.core import Study, none_left
from bacon_bayes.study.folder import (
    CONFIG_FILE,
    MODEL_DESIGNS,
    atomic_write_text,
    check_max_labels,
    remove_stale_temp_files,
    study_lock,
)
from bacon_bayes.study.panel import PANEL_KEY, check_panel, fingerprints
from bacon_bayes.study.prompts import (
    PAIRED_DESIGNS,
    check_paired_wave,
    labels_left,
    paired_wave,
    uniform_share,
)

__all__ = [
    "DESIGNS",
    "calibrator_sd",
    "draw_wave",
    "pending_items",
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


def _model_inputs(study: Study, folds: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _check_model_labels(study, folds)
    values = study.label_values()
    labeled = ~np.isnan(values)
    X = study_features(study)
    fit = cross_fit(RidgeOutcome(), X, values, folds=folds, seed=seed)
    return X, labeled, np.where(labeled, values - fit.mean, np.nan)


def calibrator_sd(
    study: Study, model: str | None, engine: str, folds: int, seed: int
) -> np.ndarray:
    """Predictive sd of every item from a :class:`~bacon_bayes.Calibrator` fitted on the study.

    A Bayesian model gives the posterior predictive sd (heteroskedastic when the
    model is); a frequentist ridge gives one sd for all items (uniform allocation).
    """
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.study.core import load_study

    pool = load_study(study.root).to_pool()
    cal = Calibrator(model, engine=engine, folds=folds, seed=seed).fit(pool)
    return np.sqrt(cal.crossfit_.var())


def _item_sd(
    study: Study,
    options: dict,
    X: np.ndarray,
    labeled: np.ndarray,
    resid: np.ndarray,
    folds: int,
    seed: int,
) -> tuple[np.ndarray, dict[str, Any]]:
    """The adaptive designs' predicted sd of every item's residual, and how it was got."""
    how: dict[str, Any] = {"sd_model": str(options.get("sd_model", "heteroskedastic"))}
    if how["sd_model"] == "calibrator":
        how["model"] = str(options.get("model") or "default")
        how["engine"] = str(options.get("engine", "auto"))
        sd = calibrator_sd(study, options.get("model"), how["engine"], folds, seed)
    else:
        sd = cross_fitted_sd(X, np.nan_to_num(resid), labeled, folds=folds, seed=seed)
    return sd, how


def _design(
    study: Study,
    design: str,
    budget: float | None,
    seed: int,
    eligible: np.ndarray,
    options: dict,
    prompts: np.ndarray | None,
    draw: int,
) -> Design:
    """The wave of ``design``; ``seed`` fits the outcome model (adaptive, two-stage),
    ``draw`` draws the items."""
    n_total = study.n_items
    if design == "poisson":
        column = options.get("pi_column")
        if not column or column not in study.pool.columns:
            raise ValidationError("the poisson design needs --pi-column naming a pool column")
        return poisson(study.pool[column].to_numpy(float), eligible=eligible, seed=draw)
    if budget is None:
        raise ValidationError(f"the {design} design needs a budget")
    n = resolve_budget(budget, n_total)
    if design in PAIRED_DESIGNS:
        assert prompts is not None  # draw_wave resolves the prompt column first
        folds = int(options.get("folds", 5))
        seed_ = seed

        def item_sd() -> tuple[np.ndarray, dict[str, Any]]:
            X, labeled, resid = _model_inputs(study, folds, seed_)
            return _item_sd(study, options, X, labeled, resid, folds, seed_)

        return paired_wave(study, design, n, draw, eligible, prompts, options, item_sd)
    if design == "uniform":
        return uniform(n_total, round(n), eligible=eligible, seed=draw)
    if design == "bernoulli":
        return bernoulli(
            n_total, min(1.0, n / max(eligible.sum(), 1)), eligible=eligible, seed=draw
        )
    if design == "stratified":
        column = options.get("strata")
        if not column or column not in study.pool.columns:
            raise ValidationError("the stratified design needs --strata naming a pool column")
        strata = study.pool[column]
        if strata.isna().any():
            row = int(np.flatnonzero(strata.isna().to_numpy())[0])
            raise ValidationError(
                f"strata column {column!r} is empty in row {file_line(study.pool, row)}; "
                "fill it in or pick "
                "another column"
            )
        if pd.api.types.is_numeric_dtype(strata) and strata.nunique() > options.get("bins", 5):
            strata = bin_feature(strata.to_numpy(float), options.get("bins", 5))
        proxy = None
        if options.get("allocation", "proportional") == "neyman":
            proxy = study_features(study).mean(axis=1)
        return stratified(
            np.asarray(strata),
            round(n),
            allocation=options.get("allocation", "proportional"),
            proxy=proxy,
            eligible=eligible,
            seed=draw,
        )
    folds = int(options.get("folds", 5))
    X, labeled, resid = _model_inputs(study, folds, seed)
    if design == "adaptive":
        sd, how = _item_sd(study, options, X, labeled, resid, folds, seed)
        share = uniform_share(study, options)
        prior = study.inclusion_probability()
        ratio = expected_variance_ratio(
            sd,
            np.nan_to_num(resid) ** 2,
            labeled,
            weights=1.0 / prior,
            uniform_share=share,
            prior=prior,
            n=n,
        )
        how["expected_variance_ratio"] = round(ratio, 4)
        max_ratio = float(options.get("max_ratio", MAX_VARIANCE_RATIO))
        choice = sd_wave_choice(ratio, int(labeled.sum()), X.shape[1], max_ratio=max_ratio)
        if choice != "adaptive":  # no gain expected, or too few labels to trust the sd
            wave = uniform(n_total, round(n), eligible=eligible, seed=draw)  # step back
            wave.params.update({**how, "requested": "adaptive", "choice": choice})
            return wave
        wave = adaptive(sd, n, prior=prior, eligible=eligible, uniform_share=share, seed=draw)
        wave.params.update(how)  # recorded in the study's waves: which sd model drew it
        few = few_label_groups(study, wave.pi, eligible)
        if few:
            wave.params["few_labels"] = few
        labels = pd.to_numeric(study.labels[study.config.label], errors="coerce")
        if study.config.group and is_binary(labels.to_numpy(float)):
            # adaptive waves broke group means on 0/1 labels (VALIDATION.md, TriviaQA)
            wave.params["binary_group_means"] = True
        return wave
    if design == "two-stage":
        prior = study.inclusion_probability()
        eta = float(prior.mean() + n / n_total)
        wave, _ = two_stage(X, resid[labeled] ** 2, labeled, prior, eta, seed=draw)
        return wave
    raise ValidationError(f"unknown design {design!r}; choose one of {', '.join(DESIGNS)}")


#: An adaptive wave that expects to give a group less than this share of the labels a
#: uniform wave of the same size would names the group (:func:`few_label_groups`).
FEW_LABELS_SHARE = 0.75


def few_label_groups(study: Study, pi: np.ndarray, eligible: np.ndarray) -> list[list[Any]]:
    """The study's groups that a wave of probabilities ``pi`` expects to label far less than
    a uniform wave of the same expected size: ``[name, expected labels, uniform's]`` for
    each group under :data:`FEW_LABELS_SHARE` of uniform's, the fewest first; [] without
    a group column. An adaptive wave follows the predicted sd, and a group whose labels
    look easy (a human reference with mostly no errors) gets few of them, each weighted
    heavily: its mean then rests on the rare large residuals the wave seldom meets
    (WMT22's reference missed its anytime interval 0.18 of the time over 100 sequences of
    adaptive waves, 0.07 under uniform ones; VALIDATION.md)."""
    group = study.config.group
    if group is None or group not in study.pool.columns or not eligible.any():
        return []
    names, codes = np.unique(
        study.pool[group].astype(str).to_numpy()[eligible], return_inverse=True
    )
    got = np.bincount(codes, weights=pi[eligible], minlength=names.size)
    fair = got.sum() * np.bincount(codes, minlength=names.size) / codes.size
    low = np.flatnonzero(got < FEW_LABELS_SHARE * fair)
    low = low[np.argsort(got[low] / fair[low])]
    return [[str(names[k]), round(float(got[k]), 1), round(float(fair[k]), 1)] for k in low]


def draw_wave(
    root: str | Path,
    design: str,
    budget: float | None,
    *,
    seed: int = 0,
    show: Sequence[str] = (),
    max_labels: int | None = None,
    **options: object,
) -> tuple[int, Design]:
    """Draw the next wave of ``design`` in the study ``root`` and commit it.

    Every option is checked first (:func:`validate_wave_options`, with ``show``: the
    pool columns the to-label file will copy), so a refused wave writes nothing.

    Options: ``strata``, ``bins``, ``allocation`` (stratified); ``pi_column``
    (poisson); ``uniform_share``, ``folds`` (adaptive, two-stage); ``sd_model``
    (``"heteroskedastic"``, the default, or ``"calibrator"``), ``model`` and
    ``engine`` (of the calibrator) for adaptive, and ``max_ratio``: an adaptive wave
    follows the predicted sd only when the labels in hand predict a variance ratio
    against a uniform wave below it (default ``MAX_VARIANCE_RATIO``, 0.95; ``inf``
    always follows it) and there are at least ``MIN_LABELS_PER_COEFFICIENT`` labels per
    coefficient of the outcome model; otherwise it is drawn uniformly and records why.

    The paired designs (``paired``, ``paired-subset`` with ``per_prompt``,
    ``paired-adaptive``, which takes the adaptive sd options) draw prompts of the
    study's prompt column, or of ``prompt`` (a pool column, recorded in ``study.toml``
    when the study names none yet; another than the study's is refused); the
    wave records every item's prompt probability and prompt in the manifest.

    ``max_labels``: the labelling budget to record with the wave in a study that records
    none yet and has no label (``bacon sample --max-labels``); the wave is checked
    against it, and a refused wave records nothing.

    Returns the wave number and the design.
    """
    root = Path(root)
    with study_lock(root):
        study = Study.open(root)
        recorded = study.config
        if max_labels is not None:  # refused: another recorded, or none and labels in
            study.config = replace(check_max_labels(root, max_labels), max_labels=max_labels)
        column, prompts = _checked(study, design, budget, show, options)
        remove_stale_temp_files(root)  # the first write: every option was checked
        eligible = study.first_wave() < 0
        wave = (max(study.wave_numbers) + 1) if study.wave_numbers else 1
        # wave 1 draws with the seed; a later one from its own stream (never the uniforms
        # of an earlier wave drawn with the same seed, which would make pi wrong)
        draw_seed = seed if wave == 1 else wave_seed(seed, wave)
        drawn = _design(study, design, budget, seed, eligible, options, prompts, draw_seed)
        if not (np.asarray(drawn.selected, bool) & eligible).any():  # its share moves weights
            raise ValidationError(
                f"this {drawn.name} wave drew no item (its size is random: about "
                f"{float(drawn.pi[eligible].sum()):.1f} expected) and nothing was recorded; "
                "run again with another --seed, or a larger --budget"
            )
        by_prompt = drawn.pi_prompt is not None
        rows = pd.DataFrame(
            {
                "item": study.ids,
                "wave": wave,
                "pi": drawn.pi,
                "selected": drawn.selected.astype(int),
                "design": drawn.name,
                "seed": seed,
                "pi_prompt": drawn.pi_prompt if by_prompt else np.nan,
                "prompt": prompts if by_prompt else "",
            }
        )
        info = {
            "wave": wave,
            "design": drawn.name,
            "seed": seed,
            "budget": budget,
            "expected": float(drawn.pi[eligible].sum()),
            "params": drawn.params,
            PANEL_KEY: fingerprints(study.pool, study.config.item, study.config.judges),
            "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
        waves = [w for w in study.waves if int(w["wave"]) < wave] + [info]
        study.write_waves(waves)
        config = study.config
        if column is not None and config.prompt is None:
            config = replace(config, prompt=column)
        if show and list(show) != config.show:  # the to-label files of later waves too
            config = replace(config, show=list(show))
        if config != recorded:
            atomic_write_text(root / CONFIG_FILE, config.to_toml())
        manifest = (
            pd.concat([study.manifest, rows], ignore_index=True) if len(study.manifest) else rows
        )
        study.write_manifest(manifest)  # the commit point of the wave
    return wave, drawn


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
    _checked(study, design, budget, show, options)


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


def _checked(
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
        _check_model_labels(study, folds)
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


def _check_model_labels(study: Study, folds: int) -> None:
    """The labels a model-based wave is fitted on: none pending, two per fold."""
    values = study.label_values()
    labeled = ~np.isnan(values)
    pending = (study.first_wave() >= 0) & ~labeled
    if pending.any():
        raise ValidationError(
            f"{int(pending.sum())} items of earlier waves have no label yet; import them "
            "before an adaptive wave (its model is fitted on all earlier labels)"
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


def pending_items(
    study: Study, wave: int | None = None, show: list[str] | None = None
) -> pd.DataFrame:
    """Items selected (by ``wave``, or any wave) whose label has not come back.

    Columns: the id, an empty label column to fill in, the wave, then the pool
    columns named in ``show`` (e.g. the text the labelers should read; default: the
    study's, recorded by the last ``bacon sample --show``).
    """
    if not show:
        show = [c for c in study.config.show if c in study.pool.columns]
    first = study.first_wave()
    mask = (first >= 0) & np.isnan(study.label_values())
    if wave is not None:
        mask &= first == wave
    table = pd.DataFrame(
        {study.config.item: study.ids[mask], study.config.label: "", "wave": first[mask]}
    )
    for column in show or []:
        if column not in study.pool.columns:
            raise ValidationError(f"--show column {column!r} is not in the pool file")
        if column in table.columns:
            raise ValidationError(f"--show column {column!r} clashes with a to-do column")
        table[column] = study.pool[column].to_numpy()[mask]
    return table
