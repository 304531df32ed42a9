"""Estimands of a streamed pool from its sufficient statistics: the labeled rows (label,
out-of-fold surrogate, inclusion probability, group) plus sums over all items.

The formulas are those of :mod:`bacon_bayes.estimate` (the same ``mean_core``, Student-t
and bootstrap critical values, Woodruff inversion); only the sums over the pool (of the
surrogate, of the predictive CDF, of the inclusion probabilities, item counts) come from
the stream instead of full-length arrays. Equal to the in-memory estimates up to the
order of floating-point summation (tested at ``rtol=1e-10``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.combine import combined_core, min_labels
from bacon_bayes.estimate.core import _estimate, floored_variance, mean_core, satterthwaite_df
from bacon_bayes.estimate.groups import group_tables_from_sums
from bacon_bayes.estimate.quantile import _quantile_from_cdf, cdf_floor, label_atoms
from bacon_bayes.estimate.shrink import choose_pooling, group_corrections, shrink_table
from bacon_bayes.estimate.tables import group_table
from bacon_bayes.grouping import auto_outcome, finished
from bacon_bayes.order import natural_sorted
from bacon_bayes.report.text import naive_noted
from bacon_bayes.results import Estimate, EstimateTable
from bacon_bayes.stream.fit import StreamFit, Sums
from bacon_bayes.stream.scan import LabeledRows, Scan

METHODS = ("aee", "classical", "naive")
#: the rows the streamed naive estimates' note is judged on (:func:`naive_noted`)
MEMORY = "rows held in memory"


def _settings(cal: Calibrator) -> dict[str, Any]:
    return {"hajek": cal.hajek, "target": cal.target}


def design_pi(
    lab: LabeledRows, cal: Calibrator, scan: Scan, codes: np.ndarray, table: pd.DataFrame
) -> np.ndarray:
    """Inclusion probabilities of the labeled rows, conditioned (Hajek form) on the
    realised number of labels per domain (``codes``: domain of each labeled row,
    ``table``: the first pass's per-domain statistics in code order); see
    ``bacon_bayes.estimate.core._conditional_pi``."""
    n, N = len(lab), scan.n_rows
    if lab.pi is None:
        pi = np.full(n, n / N)
        expected = table["n"].to_numpy(dtype=float) * n / N
    elif table["pi_nan"].sum() == 0:
        pi = lab.pi
        expected = table["pi_sum"].to_numpy(dtype=float)
    else:
        return lab.pi
    if not cal.hajek:
        return pi
    n_lab = np.bincount(codes, minlength=len(table)).astype(float)
    scale = n_lab / np.maximum(expected, 1e-300)
    return np.minimum(pi * scale[codes], 1.0)


def _pooled(table: pd.DataFrame) -> tuple[int, float, float]:
    """Item count, mean and summed squared deviation of the judge average over the pool."""
    n = table["n"].to_numpy(dtype=float)
    mean = table["avg_mean"].to_numpy()
    total = n.sum()
    grand = float((n * mean).sum() / total)
    m2 = float(table["avg_m2"].sum() + (n * (mean - grand) ** 2).sum())
    return int(total), grand, m2


def _one_domain(scan: Scan) -> pd.DataFrame:
    return scan.groups.sum().to_frame().T


def mean_estimates(fit: StreamFit, scan: Scan, sums: Sums, alpha: float) -> list[Estimate]:
    """The pool mean: AEE, classical and naive (intervals intersected with the label's
    range, as :meth:`bacon_bayes.Calibrator.estimate_mean`)."""
    lab, cf, kw = fit.labeled, fit.crossfit, _settings(fit.calibrator)
    N = scan.n_rows
    pi = design_pi(lab, fit.calibrator, scan, np.zeros(len(lab), dtype=np.intp), _one_domain(scan))
    P = _model_sums(sums, len(cf.models)).sum(axis=0)
    f_sum = float(cf.mean.sum() + (cf.weights * P).sum())
    tuning = fit.calibrator.power_tuning
    if fit.extras:  # as estimate.aee_mean with an (N, 1 + k) surrogate matrix
        f_lab = fit.labeled_surrogates()
        _check_extras(fit, f_lab.shape[1], tuning)
        f_sums = np.array([f_sum, float(judge_sums(scan.groups).sum())])
        theta, var, lam, n, df = combined_core(
            lab.y, f_lab, pi, f_sums, N, power_tuning=tuning, **kw
        )
        t_df = satterthwaite_df(lab.y, f_lab, pi, lam, float(df), **kw)
        v, floor = floored_variance(float(var), lab.y, pi, N, kw["target"])
        aee = _estimate(
            "mean", "aee", float(theta), v, int(n), N, alpha, df=t_df,
            power_lambda=[float(v) for v in lam], target=kw["target"], **floor,
        )  # fmt: skip
        aee = _noted(aee, fit)
    else:
        theta, var, lam, n = mean_core(lab.y, cf.mean, pi, f_sum, N, power_tuning=tuning, **kw)
        t_df = satterthwaite_df(lab.y, cf.mean, pi, lam, float(n) - 1.0, **kw)
        v, floor = floored_variance(float(var), lab.y, pi, N, kw["target"])
        aee = _estimate(
            "mean", "aee", float(theta), v, int(n), N, alpha, df=t_df,
            power_lambda=float(lam), target=kw["target"], **floor,
        )  # fmt: skip
    zeros = np.zeros(len(lab))
    theta, var, _, n = mean_core(lab.y, zeros, pi, 0.0, N, power_tuning=False, **kw)
    t_df = satterthwaite_df(lab.y, zeros, pi, 1.0, float(n) - 1.0, **kw)
    v, floor = floored_variance(float(var), lab.y, pi, N, kw["target"])
    classical = _estimate(
        "mean", "classical", float(theta), v, int(n), N, alpha, df=t_df,
        target=kw["target"], **floor,
    )  # fmt: skip
    n_all, grand, m2 = _pooled(scan.groups)
    se2 = m2 / (n_all - 1) / n_all if n_all > 1 else float("nan")
    naive = _estimate("mean", "naive", grand, se2, n_all, n_all, alpha, n_labeled=0)
    naive = naive_noted(naive, fit.pool, fit.bounds, MEMORY)
    return [e.clip(*fit.bounds) for e in (aee, classical, naive)]


def judge_sums(table: pd.DataFrame) -> np.ndarray:
    """Per group of a first-pass table, the sum of the items' raw judge averages (the
    judge-mean surrogate's sums)."""
    return table["n"].to_numpy(dtype=float) * table["avg_mean"].to_numpy()


def _check_extras(fit: StreamFit, k: int, tuning: bool) -> None:
    """Enough labels to tune ``k`` surrogates' weights (as ``check_surrogates``)."""
    n = len(fit.labeled)
    if tuning and n < min_labels(k):
        raise ValidationError(
            f"{n} labels are too few to tune the weights of {k} surrogates (at least "
            f"{min_labels(k)} are needed); label more items or combine fewer surrogates."
        )


def _noted(e: Any, fit: StreamFit, combined: bool = True) -> Any:
    """The surrogates behind an AEE estimate, named as ``Calibrator`` names them."""
    names = list(fit.surrogate_names if combined else fit.surrogate_names[:1])
    note: dict[str, Any] = {"surrogates": names}
    if not combined:
        note["surrogates_note"] = "quantiles use the model's own surrogate only"
    return replace(e, details={**e.details, **note})


def _model_sums(sums: Sums, K: int) -> np.ndarray:
    """Per group (rows of ``sums.groups``) each fold model's summed prediction, (G, K)."""
    return sums.groups[[f"p{k}" for k in range(K)]].to_numpy(dtype=float)


def quantile_estimates(
    fit: StreamFit, scan: Scan, sums: Sums, q: float, alpha: float
) -> list[Estimate]:
    """Quantile ``q``: AEE and classical (Woodruff intervals on the fixed grid). The naive
    baseline (an order statistic of the judge average over all items) is not streamed."""
    if not 0.0 < q < 1.0:
        raise ValidationError(f"quantile level q={q!r} must lie strictly between 0 and 1.")
    grid, cdf_sums = fit.model.grid, sums.cdf
    if grid is None or cdf_sums is None:
        raise ValidationError("the stream was fitted without a quantile grid; pass --quantile.")
    lab, cf, kw = fit.labeled, fit.crossfit, _settings(fit.calibrator)
    N = scan.n_rows
    pi = design_pi(lab, fit.calibrator, scan, np.zeros(len(lab), dtype=np.intp), _one_domain(scan))
    ind = (lab.y[None, :] <= grid[:, None]).astype(float)
    pis = np.broadcast_to(pi, ind.shape)
    discrete = fit.pool.outcome.discrete
    atoms = np.isin(grid, label_atoms(lab.y))  # steps of the inverse, as in memory
    phi = cf.cdf(grid)
    out = []
    for method, phi_lab in (("aee", phi), ("classical", np.zeros_like(phi))):
        aee = method == "aee"
        total = phi_lab.sum(axis=0) + (cf.weights[:, None] * cdf_sums).sum(axis=0) * aee
        tuning = fit.calibrator.power_tuning and aee
        theta, var, _, n = mean_core(ind, phi_lab.T, pis, total, N, power_tuning=tuning, **kw)
        if aee:  # the AEE CDF's floor, as in memory (the labels alone get none)
            var = cdf_floor(var, ind, pis, N, kw["target"])
        se = np.sqrt(np.maximum(var, 0.0))
        est = _quantile_from_cdf(
            grid,
            theta,
            se,
            int(n[0]),
            N,
            q,
            alpha,
            discrete,
            method,
            atoms,
            target=kw["target"],
        )
        if aee and fit.extras:
            est = _noted(est, fit, combined=False)
        out.append(est.clip(*fit.bounds))
    return out


def _domains(scan: Scan, lab: LabeledRows) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The first pass's per-group table (in natural order, M8 before M10, as every group
    table: :mod:`bacon_bayes.order`), the names and each labeled row's group code."""
    if lab.groups is None:
        raise ValidationError("the stream has no group column; pass --group COL.")
    table = scan.groups.copy()
    table.index = table.index.astype(str)
    if table.index.has_duplicates:
        table = table.groupby(level=0).sum()
    table = table.reindex(natural_sorted(table.index))
    names = table.index.to_numpy()
    return table, names, pd.Index(names).get_indexer(lab.groups.astype(str))


def group_estimates(
    fit: StreamFit, scan: Scan, sums: Sums, alpha: float, simultaneous: str = "maxt"
) -> list[EstimateTable]:
    """Mean per group (AEE, classical, naive) with simultaneous intervals, as
    :meth:`bacon_bayes.Calibrator.estimate_groups`: shrunk toward the pool's correction
    when the calibrator's ``pooling`` says so (:func:`choose_pooling`; the same functions
    on the labeled rows and the surrogate sums), else separate (studentised bootstrap
    critical values; the AEE and classical bootstraps share their resamples); then
    :func:`~bacon_bayes.grouping.finished` (the label's range, none below 5 labels)."""
    lab, cf, cal = fit.labeled, fit.crossfit, fit.calibrator
    table, names, codes = _domains(scan, lab)
    K = len(cf.models)
    P = _model_sums(sums, K)
    P = pd.DataFrame(P, index=sums.groups.index.astype(str)).groupby(level=0).sum()
    P = P.reindex(names, fill_value=0.0).to_numpy()
    mass = np.zeros((names.size, K))
    np.add.at(mass, (codes, cf.fold_ids), cf.design_weight)
    tot = mass.sum(axis=1, keepdims=True)
    shares = np.where(tot > 0, mass / np.where(tot > 0, tot, 1.0), cf.weights)
    lab_sum = np.bincount(codes, weights=cf.mean, minlength=names.size)
    f_sums = lab_sum + (shares * P).sum(axis=1)
    f_lab = fit.labeled_surrogates()
    if fit.extras:
        _check_extras(fit, f_lab.shape[1], cal.power_tuning)
        f_sums = np.column_stack([f_sums, judge_sums(table)])
    pi = design_pi(lab, cal, scan, codes, table)
    n_g = table["n"].to_numpy(dtype=int)
    none = np.zeros(names.size)
    surrogates = [
        (f_lab, f_sums, f_sums.sum(axis=0), cal.power_tuning),
        (np.zeros(len(lab)), none, none.sum(), False),
    ]
    n_lab = np.bincount(codes, minlength=names.size)
    pooled = choose_pooling(cal.pooling, n_lab) == "shrink"
    # the labels alone: their own means unless shrinkage is asked for (Calibrator.pooling_for)
    shrunk = (pooled, pooled and cal.pooling == "shrink")
    own = iter(
        group_tables_from_sums(
            lab.y, pi, codes, names, [s for s, k in zip(surrogates, shrunk, strict=True) if not k],
            n_g, int(n_g.sum()), alpha=alpha, simultaneous=simultaneous, seed=fit.seed,
            **_settings(cal),
        )
        if not all(shrunk)
        else []
    )  # fmt: skip
    aee, classical = (
        shrink_table(
            names,
            group_corrections(
                lab.y, np.asarray(f), pi, codes, s, t, n_g, int(n_g.sum()),
                power_tuning=tuned, **_settings(cal),
            ),
            n_lab, n_g, alpha=alpha, simultaneous=simultaneous, target=cal.target,
        )
        if k
        else next(own)
        for (f, s, t, tuned), k in zip(surrogates, shrunk, strict=True)
    )  # fmt: skip
    classical = replace(classical, method="classical")
    if fit.extras:
        aee = _noted(aee, fit)
    var = table["avg_m2"].to_numpy() / np.maximum(n_g - 1, 1) / n_g
    naive = group_table(
        "mean", "naive", names, table["avg_mean"].to_numpy(), np.diag(var), n_g, n_g, alpha,
        simultaneous,
    )  # fmt: skip
    naive = naive_noted(
        replace(naive, n_labeled=np.zeros(names.size, dtype=int)), fit.pool, fit.bounds, MEMORY
    )
    aee = finished(aee, fit.bounds)
    if cal.pooling == "auto":  # why auto chose, and the other pooling's widths
        f, s, t, tuned = surrogates[0]

        def other(pooling: str) -> EstimateTable:
            if pooling == "shrink":
                corr = group_corrections(
                    lab.y, np.asarray(f), pi, codes, s, t, n_g, int(n_g.sum()),
                    power_tuning=tuned, **_settings(cal),
                )  # fmt: skip
                alt = shrink_table(
                    names, corr, n_lab, n_g, alpha=alpha, simultaneous=simultaneous,
                    target=cal.target,
                )  # fmt: skip
            else:
                alt = group_tables_from_sums(
                    lab.y, pi, codes, names, [surrogates[0]], n_g, int(n_g.sum()), alpha=alpha,
                    simultaneous=simultaneous, seed=fit.seed, **_settings(cal),
                )[0]  # fmt: skip
            return finished(alt, fit.bounds)

        choice = auto_outcome(aee, n_lab, other)
        if choice is not None:
            details = {**aee.details, "pooling_note": choice["note"], "pooling_auto": choice}
            aee = replace(aee, details=details)
    return [aee, *(finished(t, fit.bounds) for t in (classical, naive))]
