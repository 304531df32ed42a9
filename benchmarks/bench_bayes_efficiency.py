"""Bayesian vs frequentist surrogate on real data at 10% labels (one fixed label draw).

* SummEval (``summeval_llm_judges_wide.csv.gz``): label = expert mean of a dimension
  rounded to the 1-5 scale, ordinal family; judges = that dimension's 9 LLM-judge
  columns ``judge:<model>|<method>|<dim>``; 1,200 summaries, 120 labeled.
* WMT22 zh-en MQM (``wmt22_zhen_mqm_metrics.csv.gz``): label = the MQM error score
  negated (``-mqm``, 0 = no error, larger = worse; the file stores MQM as a negative
  score), hurdle family; judges = 10 automatic metrics; the 30,000 MQM-rated
  segment translations, 3,000 labeled.

For each: the Bayesian model (``engine="bayes"``, default sampler settings), the
frequentist model of the same family, the classical estimate (labels only) and the
naive one (raw judge average). Columns: out-of-fold R^2, RMSE and Spearman of the
surrogate on the labeled items, R^2 on the unlabeled items against their (known)
labels, the AEE standard error and 95% CI width of the pool mean and whether the CI
covers the full-data mean; then the coverage of 90% item intervals (posterior,
conformal) on the held-out labeled items (out-of-fold) and on the unlabeled items
(WMT22, Bayesian hurdle, posterior: held-out items only, 100 posterior draws).

Run: ``python -m benchmarks bayes_efficiency`` (``python -m
benchmarks.bench_bayes_efficiency summeval`` or ``wmt22`` for one data set; add
``--freq-only`` to skip the Bayesian fits, ``--short-nuts`` for 2 chains x (200 + 200)
draws, ``--judge-weights`` / ``--no-judge-weights`` for ``judge_weights=True`` /
``False`` instead of the default ``"auto"``, ``--sqrt`` for the hurdle's
``positive_scale="sqrt"`` instead of ``"auto"``; the note column says what each fold's
fit chose). Skips
with a message when ``shared/data`` is absent (``$BACON_SHARED_DATA`` points there).
"""

from __future__ import annotations

import copy
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes import Calibrator, EvalPool
from benchmarks.adaptive_experiment import SUMMEVAL_FILE, find_shared_data

FRACTION, SEED, ALPHA, LEVEL = 0.1, 0, 0.05, 0.9
DIMENSION = "relevance"
WMT_FILE = Path("wmt22_zhen_mqm/wmt22_zhen_mqm_metrics.csv.gz")
WMT_METRICS = [
    "COMET-22-refA",
    "BLEURT-20-refA",
    "metricx_xxl_MQM_2020-refA",
    "COMETKiwi-src",
    "UniTE-refA",
    "MS-COMET-22-refA",
    "BERTScore-refA",
    "chrF-refA",
    "BLEU-refA",
    "SEScore-refA",
]


#: ``--short-nuts``: 2 chains x (200 tune + 200 draws) instead of the defaults
SHORT_NUTS = False
#: ``--judge-weights``: the Bayesian label link also weighs the judges' scores itself
JUDGE_WEIGHTS: bool | str = "auto"
#: ``--sqrt``: the Bayesian hurdle's positive part on the square-root scale
SQRT = False


def _bayes_model(pool: EvalPool, family: str):
    from bacon_bayes.features import build_features
    from bacon_bayes.outcome import registry

    model = registry.make_model(family, "bayes", pool.outcome, build_features(pool))
    if SHORT_NUTS:
        model.chains, model.tune, model.draws = 2, 200, 200
    model.judge_weights = JUDGE_WEIGHTS
    if SQRT and family == "hurdle":
        model.positive_scale = "sqrt"
    return model


def _keep(n: int) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    mask[np.random.default_rng(SEED).permutation(n)[: round(FRACTION * n)]] = True
    return mask


def summeval(path: Path, dimension: str = DIMENSION) -> tuple[EvalPool, np.ndarray, str]:
    """Pool of SummEval ``dimension`` (10% of labels kept) and every item's label."""
    df = pd.read_csv(path)
    truth = np.clip(np.round(df[f"expert_mean_{dimension}"].to_numpy(float)), 1, 5)
    judges = [c for c in df.columns if c.startswith("judge:") and c.endswith(f"|{dimension}")]
    df["label"] = np.where(_keep(len(df)), truth, np.nan)
    df["item"] = df["doc_id"].astype(str) + "/" + df["system"].astype(str)
    pool = EvalPool.from_frame(
        df, label="label", judges=judges, outcome="ordinal", levels=[1, 2, 3, 4, 5], item="item"
    )
    return pool, truth, "ordinal"


def wmt22(path: Path) -> tuple[EvalPool, np.ndarray, str]:
    """Pool of the MQM-rated WMT22 zh-en translations (10% of labels kept)."""
    df = pd.read_csv(path, usecols=["system", "seg_id", "mqm", *WMT_METRICS])
    df = df[df["mqm"].notna()].reset_index(drop=True)
    truth = -df["mqm"].to_numpy(float)  # MQM error magnitude, >= 0
    df["label"] = np.where(_keep(len(df)), truth, np.nan)
    df["item"] = df["system"].astype(str) + "/" + df["seg_id"].astype(str)
    pool = EvalPool.from_frame(
        df, label="label", judges=WMT_METRICS, outcome="nonnegative", item="item"
    )
    return pool, truth, "hurdle"


def _fit_scores(pred: np.ndarray, y: np.ndarray) -> dict[str, float]:
    resid = y - pred
    return {
        "r2": 1 - np.mean(resid**2) / np.var(y),
        "rmse": float(np.sqrt(np.mean(resid**2))),
        "spearman": float(stats.spearmanr(pred, y).statistic),
    }


#: posterior draws used for the Bayesian hurdle's item intervals on big pools: its CDF
#: integrates over the latent by quadrature for every draw, item and grid point
HEAVY_CDF_DRAWS = 100


def _heldout_posterior(cal: Calibrator, truth: np.ndarray) -> dict[str, float]:
    """Posterior 90% intervals of the held-out labeled items only, each from the model
    of its own fold with a thinned posterior (the full pool's CDF would take hours)."""
    from bacon_bayes.items import posterior_interval

    cf, grid = cal.crossfit_, cal.quantile_grid()
    hit = []
    for k, model in enumerate(cf.models):
        rows = cf.fold_ids == k
        thin = copy.copy(model)
        step = max(1, len(next(iter(model.posterior_.values()))) // HEAVY_CDF_DRAWS)
        thin.posterior_ = {n: v[::step] for n, v in model.posterior_.items()}
        cdf = thin.predict_cdf(cf.X[rows], grid)
        lo, hi = posterior_interval(cdf, grid, LEVEL, cal.pool_.outcome.kind)
        hit.append((lo <= truth[rows]) & (truth[rows] <= hi))
    return {"posterior held-out": float(np.concatenate(hit).mean())}


def _coverage(cal: Calibrator, truth: np.ndarray, heavy: bool) -> dict[str, float]:
    out = {}
    methods = ["posterior", "conformal"]
    if cal.pool_.outcome.discrete:  # whole-level sets, also randomised to the level
        methods.insert(1, "posterior randomised")
    for method in methods:
        if method == "posterior" and heavy:
            out.update(_heldout_posterior(cal, truth))
            out["posterior unlabeled"] = float("nan")
            continue
        table = cal.item_scores(
            level=LEVEL, method=method.split()[0], randomize=method.endswith("randomised")
        )
        hit = ((table["lower"] <= truth) & (truth <= table["upper"])).to_numpy()
        lab = table["labeled"].to_numpy()
        out[f"{method} held-out"] = float(hit[lab].mean())
        out[f"{method} unlabeled"] = float(hit[~lab].mean())
    return out


def compare(
    pool: EvalPool, truth: np.ndarray, family: str, engines: tuple[str, ...] = ("bayes", "freq")
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Surrogate quality and AEE precision per method; item-interval coverage per engine."""
    lab = pool.labeled
    y = pool.y
    full_mean = float(truth.mean())
    rows, cover = [], {}
    cals = {}
    for engine in dict.fromkeys((*engines, "freq")):  # freq also serves the baselines
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = family
            if engine == "bayes":
                model = _bayes_model(pool, family)
            cals[engine] = Calibrator(model, engine=engine, seed=SEED).fit(pool)
        secs = time.perf_counter() - start
        note = f"{secs:.0f} s" + (
            " (2 chains x 200 + 200)" if engine == "bayes" and SHORT_NUTS else ""
        )
        if engine == "bayes" and JUDGE_WEIGHTS != "auto":
            note += f", judge_weights={JUDGE_WEIGHTS}"
        if engine == "bayes" and SQRT and family == "hurdle":
            note += ', positive_scale="sqrt"'
        if engine == "bayes":
            models = cals[engine].crossfit_.models
            for key in ("judge_weights", "sqrt"):  # per-fold choices of the "auto" options
                chosen = [m.constants_[key] for m in models if key in m.constants_]
                if chosen:
                    note += f", {key} in {int(sum(chosen))}/{len(models)} folds"
            diags = [m.diagnostics_ for m in models]
            # a cut fit's folds share one label-stage run: each fold reports all of it
            count = max if models[0]._inference() == "cut" else sum
            note += (
                f"; max R-hat {max(d.max_rhat for d in diags):.3f}, "
                f"{count(d.n_divergent for d in diags)} divergences, "
                f"{sum('converge' in str(w.message) for w in caught)} convergence warnings"
            )
        heavy = engine == "bayes" and family == "hurdle" and pool.n_items > 5000
        cover[engine] = _coverage(cals[engine], truth, heavy)
        f = cals[engine].surrogate_
        e = cals[engine].estimate_mean(ALPHA)
        rows.append(
            {
                "method": f"AEE, {family} {engine}",
                **_fit_scores(f[lab], y[lab]),
                "r2 unlabeled": _fit_scores(f[~lab], truth[~lab])["r2"],
                "se": e.se,
                "ci width": e.ci_high - e.ci_low,
                "covers": e.ci_low <= full_mean <= e.ci_high,
                "note": note,
            }
        )
    naive_pred = pool.judge_average()
    for method in ("classical", "naive"):
        e = cals["freq"].estimate_mean(ALPHA, method)
        fit = _fit_scores(naive_pred[lab], y[lab]) if method == "naive" else {}
        rows.append(
            {
                "method": method,
                **fit,
                "r2 unlabeled": (
                    _fit_scores(naive_pred[~lab], truth[~lab])["r2"] if method == "naive" else None
                ),
                "se": e.se,
                "ci width": e.ci_high - e.ci_low,
                "covers": e.ci_low <= full_mean <= e.ci_high,
                "note": "raw judge average" if method == "naive" else "labels only",
            }
        )
    return pd.DataFrame(rows), pd.DataFrame(cover).T


def _markdown(df: pd.DataFrame) -> str:
    def cell(v):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return "-"
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "NO"
        if isinstance(v, float):
            return f"{v:.4f}"
        return str(v)

    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "---|" * len(df.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])


DATASETS = {"summeval": (SUMMEVAL_FILE, summeval), "wmt22": (WMT_FILE, wmt22)}


def main(names: list[str] | None = None, engines: tuple[str, ...] = ("bayes", "freq")) -> None:
    for name in names or list(DATASETS):
        relative, loader = DATASETS[name]
        path = find_shared_data(relative)
        if path is None:
            print(
                f"skipped {name}: {relative} not found (shared/data is absent; set "
                "BACON_SHARED_DATA to the folder holding it)"
            )
            continue
        start = time.perf_counter()
        pool, truth, family = loader(path)
        print(
            f"\n{name}: {pool.n_items} items, {pool.n_labeled} labeled ({FRACTION:.0%}, seed "
            f"{SEED}), {len(pool.judges)} judges, {family} family; full-data mean "
            f"{truth.mean():.4f}",
            flush=True,
        )
        table, cover = compare(pool, truth, family, engines)
        print(_markdown(table))
        print(f"\n90% item intervals, coverage ({name}):")
        print(_markdown(cover.reset_index(names="engine")))
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"({time.perf_counter() - start:.0f} s, load average {load:.2f})", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    only_freq = "--freq-only" in args  # e.g. WMT22 when there is no time for NUTS on 30,000
    SHORT_NUTS = "--short-nuts" in args
    if "--judge-weights" in args or "--no-judge-weights" in args:
        JUDGE_WEIGHTS = "--judge-weights" in args
    SQRT = "--sqrt" in args
    names = [a for a in args if not a.startswith("--")] or None
    main(names, ("freq",) if only_freq else ("bayes", "freq"))
