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
from bacon_bayes.study.core import Study
from bacon_bayes.study.folder import (
    CONFIG_FILE,
    TO_LABEL_KEY,
    atomic_write_text,
    check_max_labels,
    remove_stale_temp_files,
    study_lock,
)
from bacon_bayes.study.panel import PANEL_KEY, fingerprints
from bacon_bayes.study.prompts import (
    PAIRED_DESIGNS,
    paired_wave,
    uniform_share,
)
from bacon_bayes.study.wave_options import (
    DESIGNS,
    check_model_labels,
    checked_wave,
    study_features,
    validate_wave_options,
)

__all__ = [
    "DESIGNS",
    "calibrator_sd",
    "draw_wave",
    "pending_items",
    "study_features",
    "validate_wave_options",
]


def _model_inputs(study: Study, folds: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    check_model_labels(study, folds)
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
    to_label: str | Path | None = None,
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

    ``to_label``: the to-label file the caller writes after the commit (``bacon sample
    --out``), recorded as not written until
    :func:`~bacon_bayes.study.folder.record_to_label_written` marks it, so a run killed
    in between is found (:meth:`~bacon_bayes.study.Study.unwritten_note`).

    Returns the wave number and the design.
    """
    root = Path(root)
    with study_lock(root):
        study = Study.open(root)
        recorded = study.config
        if max_labels is not None:  # refused: another recorded, or none and labels in
            study.config = replace(check_max_labels(root, max_labels), max_labels=max_labels)
        column, prompts = checked_wave(study, design, budget, show, options)
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
        if to_label is not None:
            info[TO_LABEL_KEY] = {"path": str(to_label), "written": False}
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
