"""Peer estimators run on the same label draws as ``bacon simulate`` (extra ``peers``).

:func:`ppi_aipw_rows`: ppi-aipw's semisupervised mean (``ppi_aipw.mean_inference``) with
``prognostic_linear`` and ``monotone_spline`` (``--methods ppi-aipw``; see its docstring
for what it computes).

:func:`cje_pairwise_rows`: cje-eval's paired policy comparison (``cje.analyze_dataset`` then
``EstimationResult.compare_policies``), with every group of the table as one cje *policy*
and the table's prompt column as cje's ``prompt_id``.

What cje computes (cje-eval 0.9.3, the defaults kept here):

* **Judge score.** cje takes one judge score per response (``judge_score``); extra numeric
  fields are only two-stage calibration covariates. We pass the mean over the judges of
  each judge's z-score (standardised with the mean and sd of all the table's scores of
  that judge, which are known without labels; a missing score counts as that judge's
  mean), so judges on different scales (chrF 0-100, COMET about 0-1) weigh alike. With one
  judge this is a monotone map of its raw score, which cje's calibration ignores.
* **Scales.** Judge scores and labels outside [0, 1] are min-max normalised by cje to
  [0, 1] (labels by the range of the labeled rows only: we pass nothing else) and its
  results are mapped back to the label's units.
* **Calibration.** One calibrator for all policies, judge score -> label, fitted on every
  labeled row, cross-fitted in 5 folds split by prompt (fold seed fixed at 42 inside
  ``analyze_dataset``), mode ``auto``: isotonic regression or a "two-stage" map (a spline
  index of the score, then isotonic on its ranks) chosen by cross-validation. Fewer than
  4 labeled prompts: no calibrator, cje returns the raw judge mean (we return NaN rows).
* **Estimator** (direct mode, no logprobs, no fresh draws beyond the table: every row is
  a "fresh draw" of its policy). Per policy, an AIPW-style augmented mean: mean of the
  calibrated scores over all its rows plus the mean residual (label - cross-fitted
  prediction) over its own labeled rows (correction weight one; ``known_propensity``:
  Horvitz-Thompson residuals over the given inclusion probabilities).
* **Intervals** (``inference_method="cluster_robust"``, the default): per-row influence
  values summed per prompt, the difference of two policies' prompt contributions taken
  per prompt (basis ``prompt_cluster_paired`` when both policies cover the same prompts),
  a CR1-style variance over prompts, plus the oracle jackknife (variance of the
  difference over the 5 leave-one-fold calibrators), a t interval with Welch-Satterthwaite
  df (capped at labeled prompts - 1 when a policy is corrected by its own labels). The
  bootstrap (``inference_method="bootstrap"``: cluster bootstrap with calibrator refit,
  2000 replicates by default) is far slower (about 0.13 s a replicate on 30,000 rows).

How it differs from our AEE: cje calibrates one score (a monotone map of the judges'
mean), not a cross-fitted model over all judges and their features; its residual
correction is per policy (each group's own labeled rows), not a pool-level
Horvitz-Thompson correction with group surrogates; and its variance treats the prompts as
a sample from a larger population (clustered by prompt, including the judge-only part, no
finite-population correction), i.e. the AEE's ``target population``, not ``target pool``.
Against a pool's true differences its intervals are therefore expected to over-cover
somewhat; its point estimates are comparable with either target. Its ``representative``
label design assumes each policy's labeled rows are a simple random sample of that
policy's rows: true for uniform item sampling, stratified-by-group sampling and paired
designs that label every group of a uniformly sampled prompt; for designs with unequal
probabilities pass ``propensity`` (per-row inclusion probabilities).
"""

from __future__ import annotations

import logging
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.errors import ValidationError

__all__ = [
    "CJE_AUTHOR", "PPI_AIPW_AUTHOR", "PPI_AIPW_METHODS", "cje_pairwise_rows", "judge_score",
    "ppi_aipw_rows",
]  # fmt: skip

#: Who wrote the estimator (the summary's ``by`` column).
CJE_AUTHOR = "cje-eval (calibrated direct)"


def judge_score(frame: pd.DataFrame, judges: tuple[str, ...]) -> np.ndarray:
    """The single judge score handed to cje: the mean of the judges' z-scores per row.

    A judge's z-score uses the mean and sd of all its scores in ``frame`` (no labels);
    a missing score is that judge's mean (z = 0); a constant judge contributes 0.
    """
    X = frame[list(judges)].to_numpy(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN judge columns
        mu, sd = np.nanmean(X, axis=0), np.nanstd(X, axis=0)
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, np.inf)
    Z = (X - mu) / sd
    Z = np.where(np.isfinite(Z), Z, 0.0)
    return Z.mean(axis=1)


def cje_pairwise_rows(
    frame: pd.DataFrame,
    label: str,
    judges: tuple[str, ...],
    group: str,
    prompt: str | None,
    labeled: np.ndarray,
    alpha: float,
    seed: int,
    *,
    propensity: np.ndarray | None = None,
    inference: str = "cluster_robust",
    n_bootstrap: int | None = None,
) -> list[dict[str, Any]]:
    """cje-eval's paired comparison of the groups on the labeled rows of one draw.

    Only ``frame[label][labeled]`` is passed to cje as oracle labels. Returns one row
    ``{"pair": "a - b", "estimate", "ci_low", "ci_high"}`` per pair of groups (a before b
    in sorted order of the names as strings; the estimate is mean label of a minus b),
    then one row ``{"group": name, "estimate", "ci_low", "ci_high"}`` per group, all at
    level ``1 - alpha``. A pair or group cje gives no interval for (too few labeled
    prompts) has NaN in its interval (and estimate when cje has none).

    ``prompt``: the column of the prompt the groups share (cje's ``prompt_id``: pairing,
    calibration folds and variance clustered by it); None: every row its own prompt (no
    pairing: cje then combines the groups' variances as independent).
    ``propensity``: per-row label inclusion probabilities (cje's ``known_propensity``
    design) for designs that are not a simple random sample within each group.
    ``inference``: cje's ``inference_method`` (``cluster_robust``, ``bootstrap``, ``auto``);
    ``seed`` seeds its bootstrap (cje's calibration folds use its own fixed seed).
    """
    try:
        import cje
    except ImportError as exc:
        raise ValidationError(
            "the cje peer needs cje-eval: pip install 'cje-eval>=0.9.3,<0.10'"
        ) from exc
    labeled = np.asarray(labeled, dtype=bool)
    if labeled.shape != (len(frame),):
        raise ValidationError(
            f"labeled has shape {labeled.shape}; it must be one flag per row ({len(frame)})."
        )
    for col in (label, group, *((prompt,) if prompt else ()), *judges):
        if col not in frame.columns:
            raise ValidationError(f"column {col!r} is not in the table.")
    if not 0 < alpha < 1:
        raise ValidationError(f"alpha {alpha!r} must be in (0, 1).")

    names = frame[group].astype(str).to_numpy()
    if prompt is None:
        prompts = np.array([f"row{i}" for i in range(len(frame))])
    elif frame[prompt].isna().any():
        raise ValidationError(f"prompt column {prompt!r} has missing values.")
    else:
        prompts = frame[prompt].astype(str).to_numpy()
    if propensity is not None:
        propensity = np.asarray(propensity, dtype=float)
        if propensity.shape != (len(frame),) or not (
            np.all(propensity[labeled] > 0) and np.all(propensity <= 1)
        ):
            raise ValidationError(
                "propensity must be one inclusion probability per row, in (0, 1] where labeled."
            )
    score = judge_score(frame, judges)
    y = frame[label].to_numpy(float)
    if not np.isfinite(y[labeled]).all():
        raise ValidationError(f"label {label!r} is missing or not finite on labeled rows.")
    oracle = np.where(labeled, y, np.nan)  # hidden labels never leave this line

    draws: dict[str, list[dict[str, Any]]] = {}
    props: dict[str, list[float]] = {}
    for i in range(len(frame)):
        draws.setdefault(names[i], []).append(
            {
                "prompt_id": prompts[i],
                "row_id": str(i),  # repeated (prompt, group) rows: repeated draws
                "judge_score": float(score[i]),
                "oracle_label": float(oracle[i]) if labeled[i] else None,
            }
        )
        if propensity is not None:
            props.setdefault(names[i], []).append(float(propensity[i]))

    config: dict[str, Any] = {"inference_method": inference}
    if inference != "cluster_robust":
        config["bootstrap_seed"] = int(seed) % 2**31
        if n_bootstrap is not None:
            config["n_bootstrap"] = int(n_bootstrap)
    design: dict[str, Any] = {"label_design": "representative"}
    if propensity is not None:
        design = {
            "label_design": "known_propensity",
            "label_propensities": {k: np.asarray(v) for k, v in props.items()},
        }

    groups = sorted(draws)
    cje_log = logging.getLogger("cje")
    level, cje_log.level = cje_log.level, logging.CRITICAL  # its INFO/WARNING chatter
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = cje.analyze_dataset(
                    fresh_draws_data=draws, estimator_config=config, **design
                )
            except ValueError as exc:  # its refusals name the data problem
                raise ValidationError(f"cje-eval refused the draw: {exc}") from exc
            calibrated = result.method != "naive_direct"  # the raw judge tier: no estimate
            rows = [_pair_row(result, a, b, alpha, calibrated)
                    for k, a in enumerate(groups) for b in groups[k + 1:]]  # fmt: skip
            rows.extend(_group_rows(result, groups, alpha, calibrated))
    finally:
        cje_log.setLevel(level)
    return rows


def _pair_row(result: Any, a: str, b: str, alpha: float, calibrated: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"pair": f"{a} - {b}"}
    if not calibrated:  # fewer than 4 labeled prompts: cje's raw judge tier, no estimate
        return {**row, "estimate": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    try:
        c = result.compare_policies(a, b, alpha=alpha)
    except Exception:  # cje's InferenceUnavailableError: a policy without an interval
        ea, eb = (float(result.estimates[result.target_policies.index(p)]) for p in (a, b))
        return {**row, "estimate": ea - eb, "ci_low": math.nan, "ci_high": math.nan}
    est = float(c["difference"])
    if "ci_lower" in c:
        lo, hi = float(c["ci_lower"]), float(c["ci_upper"])
    else:  # the fall-back bases give an SE and a z-test only
        half = float(stats.norm.ppf(1 - alpha / 2)) * float(c["se_difference"])
        lo, hi = est - half, est + half
    return {**row, "estimate": est, "ci_low": lo, "ci_high": hi}


def _group_rows(
    result: Any, groups: list[str], alpha: float, calibrated: bool
) -> list[dict[str, Any]]:
    policies = list(result.target_policies)
    lo, hi = result.confidence_interval(alpha=alpha)
    rows = []
    for g in groups:
        k = policies.index(g)
        ok = calibrated and np.isfinite(lo[k]) and np.isfinite(hi[k])
        rows.append({
            "group": g,
            "estimate": float(result.estimates[k]) if calibrated else math.nan,
            "ci_low": float(lo[k]) if ok else math.nan,
            "ci_high": float(hi[k]) if ok else math.nan,
        })  # fmt: skip
    return rows


def cje_row(
    frame: pd.DataFrame, spec: Any, labeled: np.ndarray, pi: Any, seed: int
) -> dict[str, Any]:
    """cje-eval on one ``bacon simulate`` trial, as one row of trial columns: its group
    means (``group:<g>:estimate|ci_low|ci_high``) and pairwise differences
    (``diff:<a - b>:estimate|ci_low|ci_high``, pointwise; cje gives no simultaneous
    intervals). cje estimates no pool mean: the row's own ``estimate`` is NaN.
    ``pi``: the trial's inclusion probabilities (None, an array or an ``Inclusion``)."""
    propensity = None if pi is None else np.asarray(getattr(pi, "pi", pi), dtype=float)
    rows = cje_pairwise_rows(
        frame, spec.label, tuple(spec.judges), spec.group, spec.prompt, labeled, spec.alpha,
        seed, propensity=propensity,
    )  # fmt: skip
    out: dict[str, Any] = {"method": "cje", "estimate": math.nan}
    out.update({"ci_low": math.nan, "ci_high": math.nan})
    for r in rows:
        key = f"diff:{r['pair']}" if "pair" in r else f"group:{r['group']}"
        for part in ("estimate", "ci_low", "ci_high"):
            out[f"{key}:{part}"] = r[part]
    return out


#: ppi-aipw's settings run as peer rows (method name -> ``mean_inference`` arguments):
#: ``prognostic_linear`` (the judge mean as the score, the judges as the covariates X:
#: intercept and score coefficient unpenalised, the judges' ridge penalty chosen by 5-fold
#: CV on the labels) and its documented default ``monotone_spline`` on the judge mean.
PPI_AIPW_METHODS = {"ppi-aipw": "prognostic_linear", "ppi-aipw-spline": "monotone_spline"}
#: Who wrote the estimator (the summary's ``by`` column).
PPI_AIPW_AUTHOR = "ppi-aipw (AIPW + calibration)"


def ppi_aipw_rows(
    frame: pd.DataFrame, judges: tuple[str, ...], label: str, labeled: np.ndarray, alpha: float
) -> list[dict[str, Any]]:
    """ppi-aipw's mean (``ppi_aipw.mean_inference``, Wald interval, its default) on the
    labeled rows of one draw, one row per setting of :data:`PPI_AIPW_METHODS`.

    What it computes (ppi-aipw 0.2.2): the calibration map is fitted on *all* the labeled
    rows and applied to them in sample (no cross-fitting); the estimate is the mean of the
    calibrated score over the unlabeled rows plus the mean labeled residual; the standard
    error is ``sqrt(var(labeled part) / n + var(unlabeled part) / N_unlabeled)`` from those
    in-sample residuals, with a normal critical value. A missing judge score is that
    judge's mean over the table.
    """
    try:
        from ppi_aipw import mean_inference
    except ImportError as exc:
        raise ValidationError(
            "method 'ppi-aipw' needs ppi-aipw: pip install --no-deps 'ppi-aipw>=0.2.2,<0.3' (its "
            "xgboost, with CUDA's NCCL, is not needed here)"
        ) from exc
    labeled = np.asarray(labeled, dtype=bool)
    X = frame[list(judges)].to_numpy(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        X = np.where(np.isfinite(X), X, np.nanmean(X, axis=0))
    y = frame[label].to_numpy(float)
    score = X.mean(axis=1)
    lab, unl = labeled, ~labeled
    rows = []
    for name, method in PPI_AIPW_METHODS.items():
        extra = {"X": X[lab], "X_unlabeled": X[unl]} if method == "prognostic_linear" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = mean_inference(y[lab], score[lab], score[unl], method=method, alpha=alpha, **extra)
        lo, hi = (float(np.ravel(v)[0]) for v in r.ci)
        est = float(np.ravel(r.pointestimate)[0])
        rows.append({"method": name, "estimate": est, "ci_low": lo, "ci_high": hi})
    return rows
