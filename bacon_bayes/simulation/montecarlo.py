"""Monte Carlo over label draws on a fully labeled table (``bacon simulate``).

How a team decides on a budget and a design before paying for labels: hide the labels,
draw a label sample with a design, estimate as a user would, compare with the truth
(the table's full-data mean), many times. Every trial is seeded from
``(seed, budget, trial)`` alone (:func:`trial_seed`), so results do not depend on where
or in which order trials run (``workers``).

Methods: ``classical`` (labels only), ``aee`` (our calibrated estimator, either
engine) and, under uniform sampling, ``ppi``: ppi_py's PPI++ ``ppi_mean_ci`` on the same
labeled items with the judge mean (``ppi-mean``) and with a cross-fitted RidgeCV over
the judges (``ppi-ridge``) as predictions (optional dependency ``ppi-python``, extra
``peers``); ``ppi-aipw``: ppi-aipw's ``mean_inference`` with ``prognostic_linear`` (row
``ppi-aipw``) and ``monotone_spline`` (row ``ppi-aipw-spline``) on the same labeled items
(:func:`~bacon_bayes.simulation.peers.ppi_aipw_rows`; extra ``peers``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from threadpoolctl import threadpool_limits

from bacon_bayes import surrogates as sur
from bacon_bayes.atomic import write_folder
from bacon_bayes.calibrator import Calibrator
from bacon_bayes.crossfit import make_folds
from bacon_bayes.errors import ValidationError
from bacon_bayes.features import build_features
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.outcome import registry
from bacon_bayes.pool import EvalPool
from bacon_bayes.sampling.adaptive import (
    adaptive,
    combine_waves,
    expected_variance_ratio,
    sd_wave_choice,
)
from bacon_bayes.sampling.designs import stratified, uniform
from bacon_bayes.simulation.paired_draws import (
    PAIRED_DESIGNS,
    difference_columns,
    difference_summary,
    draw_paired,
)
from bacon_bayes.simulation.peers import (
    CJE_AUTHOR,
    PPI_AIPW_AUTHOR,
    PPI_AIPW_METHODS,
    cje_row,
    ppi_aipw_rows,
)
from bacon_bayes.simulation.table import check_table
from bacon_bayes.workers import (
    Interrupts,
    close_dask,
    connect_dask,
    parse_scheduler,
    process_pool,
)

__all__ = [
    "DESIGNS", "METHODS", "SimulationSpec", "check_table", "simulate", "summarise", "trial_seed",
]  # fmt: skip

DESIGNS = ("uniform", "stratified", "adaptive", *PAIRED_DESIGNS)
#: Adaptive design: default share of the budget spent on the uniform pilot. With waves
#: that top up, a smaller pilot leaves more of the budget to follow the predicted sd:
#: TriviaQA at 10% (200 trials) 0.875x the uniform AEE's RMSE with 0.3; SummEval (4
#: dimensions) still steps back in every trial (EXPERIMENTS.md).
PILOT_SHARE = 0.3

METHODS = ("classical", "aee", "ppi", "ppi-aipw", "cje")
#: Rows of methods that estimate the pool mean only (no group means): they have no group
#: metrics (``group_trials`` NaN), whatever the draw.
POOL_ONLY = frozenset({"ppi-mean", "ppi-ridge", *PPI_AIPW_METHODS})
#: The files of a Monte Carlo's output folder (an ablation's files written there stay).
FILES = ("trials.parquet", "summary.csv", "settings.json", "rmse_width.png", "coverage.png")
#: the dask setting that has a LocalCluster's nannies set MALLOC_TRIM_THRESHOLD_ in workers
TRIM_KEY = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"
#: The ``engine`` column of the peers' rows (ppi_py's by default).
ENGINES = {"cje": "cje-eval", **{m: "ppi-aipw" for m in PPI_AIPW_METHODS}}
#: Who wrote each method's estimator (the summary's ``by`` column).
AUTHORS = {"classical": "bacon_bayes", "aee": "bacon_bayes", "ppi-mean": "ppi_py (PPI++)",
           "ppi-ridge": "ppi_py (PPI++)", "cje": CJE_AUTHOR,
           **{m: PPI_AIPW_AUTHOR for m in PPI_AIPW_METHODS}}  # fmt: skip


@dataclass(frozen=True)
class SimulationSpec:
    """What to simulate (a frozen, picklable description shipped to workers)."""

    label: str
    judges: tuple[str, ...]
    outcome: str = "continuous"
    levels: tuple[float, ...] | None = None
    group: str | None = None
    item: str | None = None
    embedding: str | None = None
    #: the prompt column: folds split by prompt, the paired designs draw prompts
    prompt: str | None = None
    #: the calibrator's target; the truth is always the table's own means, so
    #: ``population`` is for studies that draw the table from a larger one
    #: (``benchmarks/population_target.py``)
    target: str = "pool"
    budgets: tuple[float, ...] = (0.05, 0.1, 0.2)
    trials: int = 200
    designs: tuple[str, ...] = ("uniform",)
    methods: tuple[str, ...] = ("classical", "aee")
    engine: str = "freq"
    folds: int = 5
    seed: int = 0
    alpha: float = 0.05
    pilot_share: float = PILOT_SHARE
    #: extra surrogates of the AEE (``Calibrator(surrogates=...)``; None: its default)
    surrogates: tuple[str, ...] | None = None
    #: the label's allowed range (``Calibrator(scale=...)``, ``--scale LOW:HIGH``): the
    #: intervals measured are the ones ``bacon estimate --scale`` reports
    scale: tuple[float, float] | None = None

    def check(self, frame: pd.DataFrame) -> None:
        """Refuse what cannot run, before any trial (column, row and fix named)."""
        check_table(
            frame,
            self.label,
            (*self.judges, self.group, self.item, self.prompt),
            self.embedding,
            outcome=self.outcome,
            levels=self.levels,
        )
        for d in self.designs:
            if d not in DESIGNS:
                raise ValidationError(f"design {d!r} is not known here; use {', '.join(DESIGNS)}.")
        if "stratified" in self.designs and self.group is None:
            raise ValidationError("the stratified design needs --group (the strata).")
        self._check_prompts(frame)
        for m in self.methods:
            if m not in METHODS:
                raise ValidationError(f"method {m!r} is not known; use {', '.join(METHODS)}.")
        if "cje" in self.methods and (self.group is None or self.prompt is None):
            raise ValidationError(
                "method 'cje' compares groups on shared prompts: pass --group and --prompt."
            )
        if self.engine not in ("freq", "bayes"):
            raise ValidationError(f"engine {self.engine!r} must be 'freq' or 'bayes'.")
        self._check_surrogates()
        if not 0 < self.pilot_share < 1:
            raise ValidationError(f"pilot share {self.pilot_share!r} must be in (0, 1).")
        if self.trials < 1:
            raise ValidationError(f"trials must be at least 1, got {self.trials}.")
        n = len(frame)
        for b in self.budgets:
            if not 0 < b <= 1:
                raise ValidationError(f"budget {b!r} must be a share of the table in (0, 1].")
            if round(b * n) < 2 * self.folds:
                raise ValidationError(
                    f"budget {b!r} gives {round(b * n)} labels of {n} rows, fewer than two per "
                    f"cross-fitting fold ({self.folds} folds); raise the budget."
                )

    def _check_prompts(self, frame: pd.DataFrame) -> None:
        """Paired designs need a prompt column without gaps, and budgets of at least one
        prompt per fold."""
        if self.target not in ("pool", "population"):
            raise ValidationError(f"target {self.target!r} must be 'pool' or 'population'.")
        paired_designs = [d for d in self.designs if d in PAIRED_DESIGNS]
        if paired_designs and self.prompt is None:
            raise ValidationError(
                f"the {paired_designs[0]} design draws prompts: pass --prompt COL (the prompt, "
                "question or source segment each item answers)."
            )
        if self.prompt is None:
            return
        missing = frame[self.prompt].isna().to_numpy()
        if missing.any():
            raise ValidationError(
                f"prompt column {self.prompt!r} is empty in row {int(np.argmax(missing))} "
                f"({int(missing.sum())} rows); give every item the prompt it answers."
            )
        if not paired_designs:  # item-level draws: the labels-per-fold check below holds
            return
        sizes = frame.groupby(frame[self.prompt].astype(str)).size()
        for b in self.budgets:
            prompts = round(b * len(frame) / float(sizes.mean()))
            if prompts < self.folds:
                raise ValidationError(
                    f"budget {b!r} labels about {prompts} prompt(s) of {len(sizes)} under a "
                    f"paired design, fewer than one per cross-fitting fold ({self.folds}); "
                    "raise the budget or lower --folds."
                )

    def _check_surrogates(self) -> None:
        """Unknown or unfitting extra surrogates fail before any trial (fix named)."""
        if self.surrogates is None:
            return
        family = registry.DEFAULT_FOR_KIND[self.outcome]
        if self.engine == "bayes" and family == "ridge":
            family = "gaussian"
        for name in sur.resolve(self.surrogates, family, self.engine):
            kinds = registry.KINDS_FOR_MODEL
            if name not in sur.JUDGE_BASED and self.outcome not in kinds[name]:
                fits = registry.freq_families(self.outcome)
                raise ValidationError(
                    f"surrogate {name!r} does not fit a {self.outcome} label; use one of "
                    f"{', '.join(fits)} or {sur.JUDGE_MEAN!r}."
                )

    def calibrator(self, seed: int) -> Calibrator:
        """The unfitted calibrator of the AEE and classical rows of one trial."""
        extras = None if self.surrogates is None else list(self.surrogates)
        return Calibrator(
            engine=self.engine, seed=seed, folds=self.folds, surrogates=extras,
            target=self.target, scale=self.scale,
        )  # fmt: skip


def trial_seed(seed: int, budget: float, trial: int) -> np.random.SeedSequence:
    """The seed of one trial, from (seed, budget, trial) only (budget to 1e-6)."""
    return np.random.SeedSequence(entropy=seed, spawn_key=(round(budget * 1_000_000), trial))


def _draw(
    frame: pd.DataFrame, spec: SimulationSpec, design: str, n: int, groups: Any, seed: int
) -> tuple[np.ndarray, np.ndarray | Inclusion | None, dict[str, Any]]:
    """The labeled items, their inclusion probabilities (None: uniform; an
    :class:`Inclusion` for a design that draws prompts) and what the design chose."""
    size = len(groups)
    if design in PAIRED_DESIGNS:
        return draw_paired(
            frame, spec, design, n, seed, lambda lab, inc: _pool(frame, spec, lab, inc)
        )
    if design == "uniform":
        return uniform(size, n, seed=seed).selected, None, {}
    if design == "stratified":
        d = stratified(np.asarray(groups), n, seed=seed)
        return d.selected, d.pi, {}
    return _adaptive(frame, spec, n, seed)


def _adaptive(
    frame: pd.DataFrame, spec: SimulationSpec, n: int, seed: int
) -> tuple[np.ndarray, np.ndarray | None, dict[str, Any]]:
    """Two waves: a uniform pilot of ``spec.pilot_share`` of the budget, then the rest with
    probabilities proportional to the outcome model's predictive sd (its family's
    predictive variance, fitted on the pilot), mixed with a uniform share, when the pilot
    predicts a variance ratio below ``MAX_VARIANCE_RATIO`` from enough labels
    (:func:`~bacon_bayes.sampling.adaptive.sd_wave_choice`); else uniform over the
    unlabeled items.

    Predicted variance ratio against uniform sampling:
    :func:`~bacon_bayes.sampling.adaptive.expected_variance_ratio` on the pilot's
    out-of-fold residuals (a uniform sample). The final estimate uses every
    label with the union inclusion probability ``1 - (1 - p1)(1 - p2)``
    (:func:`~bacon_bayes.sampling.adaptive.combine_waves`), the second wave's
    probabilities being fixed given the pilot. A pilot too small for the outcome model
    is not fitted at all (its predicted ratio is recorded as NaN).
    """
    size = len(frame)
    n1 = min(n - 1, max(2 * spec.folds, round(spec.pilot_share * n)))
    # common random numbers: the pilot is the first n1 items of the uniform design's draw
    # of this trial, and a wave that steps back takes the rest of that draw, so a trial
    # that finds no gain is exactly the uniform design's trial
    order = np.random.default_rng(seed).choice(size, size=n, replace=False)
    lab = np.zeros(size, dtype=bool)
    lab[order[:n1]] = True
    pilot_pi = np.full(size, n1 / size)
    cal = Calibrator(engine=spec.engine, folds=spec.folds, seed=seed % 2**31)
    pool = _pool(frame, spec, lab, None)
    n_features = build_features(
        pool, winsor=cal.winsor, n_components=cal.n_components, seed=cal.seed
    ).X.shape[1]
    ratio, choice = math.nan, sd_wave_choice(0.0, n1, n_features)
    if choice == "adaptive":  # the pilot is large enough: fit it (else skip the fit)
        cal.fit(pool)
        sd = np.sqrt(cal.crossfit_.var())
        e2 = (frame[spec.label].to_numpy(float) - cal.surrogate_) ** 2
        ratio = expected_variance_ratio(sd, e2, lab, prior=pilot_pi, n=n - n1)
        choice = sd_wave_choice(ratio, n1, n_features)
    if choice != "adaptive":
        # the uniform design's trial exactly: its labels and no probabilities (n / N, but
        # computed through two waves it differed in the last bits, which flipped tied
        # ranks and moved the simultaneous intervals)
        lab[order[n1:]] = True
        return lab, None, {"adaptive_choice": choice, "expected_ratio": ratio}
    wave = adaptive(sd, n - n1, prior=pilot_pi, eligible=~lab, seed=seed + 1)
    pi = combine_waves([pilot_pi, wave.pi])
    return lab | wave.selected, pi, {"adaptive_choice": choice, "expected_ratio": ratio}


def _pool(
    frame: pd.DataFrame,
    spec: SimulationSpec,
    labeled: np.ndarray,
    pi: np.ndarray | Inclusion | None,
) -> EvalPool:
    data = frame.copy()
    data[spec.label] = np.where(labeled, frame[spec.label].to_numpy(float), np.nan)
    if pi is not None:
        data["_inclusion_probability"] = pi.pi if isinstance(pi, Inclusion) else pi
    propensity = None if pi is None else "_inclusion_probability"
    pool = spec_pool(data, spec, group=spec.group, propensity=propensity, prompt=spec.prompt)
    return replace(pool, inclusion=pi) if isinstance(pi, Inclusion) else pool


def spec_pool(data: pd.DataFrame, spec: Any, **extra: Any) -> EvalPool:
    """The pool of ``data`` with a spec's label, judges, outcome, levels, item and
    embedding (``extra``: further :meth:`EvalPool.from_frame` arguments)."""
    return EvalPool.from_frame(
        data,
        label=spec.label,
        judges=list(spec.judges),
        outcome=spec.outcome,
        levels=list(spec.levels) if spec.levels else None,
        item=spec.item,
        embedding=spec.embedding,
        **extra,
    )


def _ppi_rows(frame, spec, labeled, seed) -> list[dict[str, Any]]:
    """ppi_py's PPI++ mean on the same labeled items: judge mean and cross-fitted ridge."""
    try:
        from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
    except ImportError as exc:  # pragma: no cover - only without the extra
        raise ValidationError(
            "method 'ppi' needs ppi_py: pip install ppi-python (or the extra 'peers', which adds "
            "cje-eval and ppi-aipw)"
        ) from exc
    from sklearn.linear_model import RidgeCV

    X = frame[list(spec.judges)].to_numpy(float)
    X = np.where(np.isfinite(X), X, np.nanmean(X, axis=0))
    y = frame[spec.label].to_numpy(float)
    lab = np.flatnonzero(labeled)
    preds = {"ppi-mean": X.mean(axis=1)}
    clusters = None if spec.prompt is None else frame[spec.prompt].astype(str).to_numpy()
    fold_ids = make_folds(labeled, spec.folds, seed, clusters)
    ridge = np.zeros(len(y))
    for k in range(spec.folds):
        train, test = (fold_ids >= 0) & (fold_ids != k), fold_ids == k
        fit = RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(X[train], y[train])
        ridge[test] = fit.predict(X[test])
        ridge[~labeled] += fit.predict(X[~labeled]) / spec.folds
    preds["ppi-ridge"] = ridge
    rows = []
    unl = ~labeled
    for name, f in preds.items():
        est = float(np.ravel(ppi_mean_pointestimate(y[lab], f[lab], f[unl]))[0])
        ci = ppi_mean_ci(y[lab], f[lab], f[unl], alpha=spec.alpha)
        lo, hi = (float(np.ravel(v)[0]) for v in ci)
        rows.append({"method": name, "estimate": est, "ci_low": lo, "ci_high": hi})
    return rows


def run_trial(frame: pd.DataFrame, spec: SimulationSpec, task: tuple) -> list[dict[str, Any]]:
    """Every method's estimate on one label draw (``task`` = (budget, design, trial))."""
    budget, design, trial = task
    ss = trial_seed(spec.seed, budget, trial)
    draw_seed, fold_seed = (int(v) for v in ss.generate_state(2))
    n = round(budget * len(frame))
    groups = frame[spec.group].astype(str).to_numpy() if spec.group else np.zeros(len(frame))
    labeled, pi, chosen = _draw(frame, spec, design, n, groups, draw_seed)
    rows: list[dict[str, Any]] = []
    if {"aee", "classical"} & set(spec.methods):
        cal = spec.calibrator(fold_seed % 2**31).fit(_pool(frame, spec, labeled, pi))
        y = frame[spec.label].to_numpy(float)
        resid = y[labeled] - cal.surrogate_[labeled]
        fit = {"oof_r2": 1 - resid.var() / y[labeled].var(), "oof_rmse": np.sqrt(np.mean(resid**2))}
        if cal.engine_ == "bayes":  # the worst fold's R-hat (both stages of a cut fit)
            fit["max_rhat"] = max(m.diagnostics_.max_rhat for m in cal.crossfit_.models)
        for method in ("classical", "aee"):
            if method not in spec.methods:
                continue
            e = cal.estimate_mean(spec.alpha, method)
            row = {
                "method": method,
                "estimate": e.estimate,
                "ci_low": e.ci_low,
                "ci_high": e.ci_high,
            }
            if method == "aee":
                row.update(fit)
            if spec.group:
                try:
                    row.update(_group_columns(cal, spec, method))
                    row.update(difference_columns(cal, spec, method))
                except ValidationError:  # a group without 2 labels in this draw: no group
                    pass  # estimates (NaN); the summary counts the trials that had them
            rows.append(row)
    if "ppi" in spec.methods and design == "uniform":
        rows.extend(_ppi_rows(frame, spec, labeled, fold_seed % 2**31))
    if "ppi-aipw" in spec.methods and design == "uniform":
        rows.extend(ppi_aipw_rows(frame, tuple(spec.judges), spec.label, labeled, spec.alpha))
    if "cje" in spec.methods:
        rows.append(cje_row(frame, spec, labeled, pi, fold_seed % 2**31))
    for row in rows:
        row.update(chosen)
        row.update(
            {"design": design, "budget": budget, "trial": trial, "n_labels": int(labeled.sum()),
             "engine": spec.engine if row["method"] in ("aee", "classical")
             else ENGINES.get(row["method"], "ppi_py")}
        )  # fmt: skip
    return rows


def _group_columns(cal: Calibrator, spec: SimulationSpec, method: str) -> dict[str, Any]:
    """Per-group estimates and simultaneous intervals, with ranks, as trial columns."""
    table = cal.estimate_groups(spec.alpha, True, method)  # type: ignore[arg-type]
    ranks = cal.rank_groups(spec.alpha, method)  # type: ignore[arg-type]
    out: dict[str, Any] = {}
    for name, est, lo, hi in zip(
        table.names, table.estimate, table.ci_low, table.ci_high, strict=True
    ):
        out[f"group:{name}:estimate"], out[f"group:{name}:ci_low"] = est, lo
        out[f"group:{name}:ci_high"] = hi
    for _, r in ranks.iterrows():
        out[f"group:{r['name']}:rank_low"], out[f"group:{r['name']}:rank_high"] = (
            int(r["rank_low"]), int(r["rank_high"])
        )  # fmt: skip
    return out


def _tasks(spec: SimulationSpec) -> list[tuple]:
    return [(b, d, t) for b in spec.budgets for d in spec.designs for t in range(spec.trials)]


def _run_chunk(args: tuple) -> list[dict[str, Any]]:
    """Trials in a worker process: one thread per process for BLAS and OpenMP, since the
    processes already fill the cores (with the default threads each, two workers on two
    cores ran a small logistic trial 8x slower than one process did)."""
    frame, spec, tasks = args
    with threadpool_limits(limits=1):
        return [row for task in tasks for row in run_trial(frame, spec, task)]


def simulate(
    frame: pd.DataFrame,
    spec: SimulationSpec,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Run every (budget, design, trial) and return one row per trial x method.

    Columns: design, method, engine, budget, trial, n_labels, estimate, ci_low, ci_high,
    truth (the full-data mean), the AEE fit's out-of-fold ``oof_r2``/``oof_rmse`` (and
    with the Bayesian engine its folds' worst R-hat, ``max_rhat``), and
    with a group column ``group:<name>:<estimate|ci_low|ci_high|rank_low|rank_high>``
    plus ``group:<name>:truth``. Rows are sorted by (budget, design, trial, method), so
    the result is the same for any ``workers`` or ``scheduler``.

    ``workers``: local processes. ``scheduler``: the address of a dask.distributed
    scheduler (``tcp://host:8786``), or ``local:N`` for a LocalCluster of N processes on
    loopback; the table is scattered to the workers once and chunks of trials run there
    (extra ``dask``).
    """
    spec.check(frame)
    if workers < 1:
        raise ValidationError(f"--workers must be at least 1, got {workers}")
    if scheduler is not None:
        parse_scheduler(scheduler)  # local:0 or local:x refused before any work
    tasks = _tasks(spec)
    parts = 4 * max(workers, 1) if scheduler is None else 64
    chunks = [c for c in (tasks[i::parts] for i in range(parts)) if c]
    rows: list[dict[str, Any]] = []
    done = 0
    if scheduler is not None:
        for chunk, out in _on_dask(scheduler, frame, spec, chunks):
            rows.extend(out)
            done += len(chunk)
            if progress:
                progress(done, len(tasks))
    elif workers <= 1:
        for task in tasks:
            rows.extend(run_trial(frame, spec, task))
            done += 1
            if progress:
                progress(done, len(tasks))
    else:
        # spawned processes that end with this one (even when it is killed)
        with process_pool(workers) as pool:
            outs = pool.map(_run_chunk, [(frame, spec, c) for c in chunks])
            for chunk, out in zip(chunks, outs, strict=True):
                rows.extend(out)
                done += len(chunk)
                if progress:
                    progress(done, len(tasks))
    trials = pd.DataFrame(rows)
    y = frame[spec.label].to_numpy(float)
    trials["truth"] = float(y.mean())
    if spec.group:
        truth = frame.groupby(frame[spec.group].astype(str))[spec.label].mean()
        for name, value in truth.items():
            trials[f"group:{name}:truth"] = float(value)
    lead = ["design", "method", "engine", "budget", "trial", "n_labels", "estimate"]
    lead += ["ci_low", "ci_high", "truth", "oof_r2", "oof_rmse", "max_rhat"]
    lead = [c for c in lead if c in trials]
    trials = trials[lead + sorted(c for c in trials if c not in lead)]
    order = ["budget", "design", "trial", "method"]
    return trials.sort_values(order, kind="stable").reset_index(drop=True)


def _on_dask(scheduler: str, frame: pd.DataFrame, spec: SimulationSpec, chunks: list):
    """Run the chunks on a dask.distributed cluster; yields (chunk, rows) in chunk order."""
    # without the nanny's default MALLOC_TRIM_THRESHOLD_ (which also fixes glibc's mmap
    # threshold: every large array is then mapped and unmapped anew), as a LocalCluster's
    # workers spent 40% of their time in the kernel and ran a WMT22 sweep at half the
    # local pool's speed (BENCHMARKS.md)
    client, cluster = connect_dask(scheduler, config={TRIM_KEY: None})
    hurry = False
    try:
        # Ctrl-C noted while the cluster works and acted on at the waits (a KeyboardInterrupt
        # raised inside distributed's callbacks is swallowed there); it ends the run
        with Interrupts() as stop:
            shared = client.scatter(frame, broadcast=True)
            futures = [client.submit(_run_chunk_on, shared, spec, c, pure=False) for c in chunks]
            for chunk, future in zip(chunks, futures, strict=True):
                yield chunk, stop.wait(future)
    except BaseException:
        hurry = True
        raise
    finally:
        close_dask(scheduler, client, cluster, hurry=hurry)


def _run_chunk_on(frame: pd.DataFrame, spec: SimulationSpec, tasks: list) -> list[dict]:
    return _run_chunk((frame, spec, tasks))


def coverage_band(trials: int, level: float, conf: float = 0.95) -> tuple[float, float]:
    """Two-sided binomial band for the coverage of ``trials`` intervals of ``level``."""
    lo = stats.binom.ppf((1 - conf) / 2, trials, level) / trials
    hi = stats.binom.ppf(1 - (1 - conf) / 2, trials, level) / trials
    return float(lo), float(hi)


def summarise(trials: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """One row per (design, method, engine, budget): bias, sd, rmse, mean width, coverage
    with its binomial band, label multiplier (classical-uniform MSE / MSE at the same
    budget), the AEE fit's out-of-fold R^2/RMSE and, with groups, simultaneous coverage,
    Spearman and Kendall of the group means with the truth, rank MAE and rank-interval
    coverage."""
    groups = sorted(
        {c.split(":")[1] for c in trials if c.startswith("group:") and c.endswith(":truth")}
    )
    rows = []
    keys = ["design", "method", "engine", "budget"]
    for key, t in trials.groupby(keys, sort=True):
        err = t["estimate"] - t["truth"]
        cover = (t["ci_low"] <= t["truth"]) & (t["truth"] <= t["ci_high"])
        band = coverage_band(len(t), 1 - alpha)
        row = dict(zip(keys, key, strict=True))
        row.update(
            {"by": AUTHORS.get(row["method"], ""), "trials": len(t), "bias": err.mean(),
             "sd": err.std(ddof=1) if len(t) > 1 else math.nan, "rmse": np.sqrt((err**2).mean()),
             "width": (t["ci_high"] - t["ci_low"]).mean(), "coverage": cover.mean(),
             "band_low": band[0], "band_high": band[1],
             "coverage_in_band": bool(band[0] <= cover.mean() <= band[1]),
             "oof_r2": t["oof_r2"].mean() if "oof_r2" in t else math.nan,
             "oof_rmse": t["oof_rmse"].mean() if "oof_rmse" in t else math.nan}
        )  # fmt: skip
        if "max_rhat" in t and t["max_rhat"].notna().any():
            row["max_rhat"] = t["max_rhat"].max()
        if row["method"] in POOL_ONLY and groups:
            row["group_trials"] = math.nan
        elif groups and f"group:{groups[0]}:estimate" in t:
            row.update(_group_summary(t, groups))
            row.update(difference_summary(t, groups))
        rows.append(row)
    summary = pd.DataFrame(rows)
    base = summary[(summary["design"] == "uniform") & (summary["method"] == "classical")]
    mse = base.set_index("budget")["rmse"] ** 2
    summary["label_multiplier"] = [
        mse.get(b, math.nan) / r**2 if r > 0 else math.nan
        for b, r in zip(summary["budget"], summary["rmse"], strict=True)
    ]
    return summary


def _group_summary(t: pd.DataFrame, groups: Sequence[str]) -> dict[str, float]:
    """Group metrics over the trials where every group got estimates (``group_trials``:
    how many; the classical mean of a group the draw gave no label has none)."""
    t = t[t[[f"group:{g}:estimate" for g in groups]].notna().all(axis=1)]
    if t.empty:
        return {"group_trials": 0}
    est = t[[f"group:{g}:estimate" for g in groups]].to_numpy(float)
    low = t[[f"group:{g}:ci_low" for g in groups]].to_numpy(float)
    high = t[[f"group:{g}:ci_high" for g in groups]].to_numpy(float)
    truth = t[[f"group:{g}:truth" for g in groups]].iloc[0].to_numpy(float)
    true_rank = stats.rankdata(-truth, method="min")
    rank_cols = [f"group:{g}:rank_low" for g in groups]
    if not all(c in t for c in rank_cols) or t[rank_cols].isna().all(axis=None):
        rank_cols = []  # a peer without rank intervals (cje)
    rank_low = t[rank_cols].to_numpy(float) if rank_cols else np.full((len(t), 1), np.nan)
    rank_high = (
        t[[f"group:{g}:rank_high" for g in groups]].to_numpy(float) if rank_cols else rank_low
    )
    ranks = np.array([stats.rankdata(-e, method="min") for e in est])
    finite = np.isfinite(low)
    inside = (low <= truth) & (truth <= high)
    return {
        "group_trials": len(t),
        # a peer's pointwise intervals (no rank intervals either) are not simultaneous
        "simultaneous_coverage": float(np.all(inside | ~finite, axis=1).mean())
        if rank_cols
        else math.nan,
        "spearman": float(np.mean([stats.spearmanr(e, truth).statistic for e in est])),
        "kendall": float(np.mean([stats.kendalltau(e, truth).statistic for e in est])),
        "rank_mae": float(np.abs(ranks - true_rank).mean()),
        "rank_coverage": float(
            np.all((rank_low <= true_rank) & (true_rank <= rank_high), axis=1).mean()
        )
        if rank_cols
        else math.nan,
    }


def write_outputs(
    out: Path, trials: pd.DataFrame, summary: pd.DataFrame, spec: SimulationSpec
) -> Path:
    """Write trials.parquet, summary.csv, settings.json and the plots into the folder
    ``out``, atomically (filled under a temporary name and swapped in whole; an ablation
    written there before is kept)."""
    import base64
    import json

    from bacon_bayes.report.figures import simulate_figure

    def fill(tmp: Path) -> None:
        trials.to_parquet(tmp / "trials.parquet", index=False)
        summary.to_csv(tmp / "summary.csv", index=False)
        (tmp / "settings.json").write_text(json.dumps(asdict(spec), indent=2, default=list))
        for name, cols in {
            "rmse_width.png": ["rmse", "width"],
            "coverage.png": ["coverage", "band_low", "band_high"],
        }.items():
            frame = summary[["design", "method", "engine", "budget", *cols]]
            uri = simulate_figure(frame, alpha=spec.alpha)
            (tmp / name).write_bytes(base64.b64decode(uri.split(",", 1)[1]))

    return write_folder(out, fill)
