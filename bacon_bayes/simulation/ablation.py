"""Oracle ablation (``bacon simulate --ablation``): how well each feature set predicts
the label when every label is known.

Every configuration is cross-fitted exactly as the estimator cross-fits its surrogate
(the project's features, outcome families and :func:`~bacon_bayes.crossfit.cross_fit`),
on the same K folds of all items, and scored out of fold on every item: ``R^2 = 1 -
SSE/SST`` (SST about the mean of all labels), RMSE and Spearman's rho, plus the mean
within-fold Spearman's rho (pooled ranks mix K fitted models, whose small differences
break the ties of discrete judge scores at random and lower the pooled rho). It is the
paper's oracle table for the user's data: the best a surrogate of that feature set can
do, which is what the AEE estimator's variance reduction follows.

Configurations (``config``):

* calibrated (an outcome model per family and engine): ``judges + embeddings``,
  ``judges``, ``judge: NAME + embeddings`` and ``judge: NAME`` for every judge,
  ``embeddings``;
* ``intercept``: the mean of the labels outside the item's fold (no features);
* uncalibrated, no fitting: ``raw judge average`` (the plain mean of the judge scores an
  item has, on the judges' scale) and ``raw judge: NAME``.

Rows needing an embedding when the table has none are kept with NaN metrics and a note.
The Bayesian engine (slow: one Bayesian cross-fit per row) runs ``judges + embeddings``
and ``judges`` only, unless ``bayes_sets="full"``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.atomic import write_folder
from bacon_bayes.crossfit import cross_fit, make_folds
from bacon_bayes.errors import ValidationError
from bacon_bayes.features import FeatureSet, build_features
from bacon_bayes.outcome import registry
from bacon_bayes.pool import EvalPool
from bacon_bayes.simulation.montecarlo import check_table, spec_pool

__all__ = [
    "AblationSpec", "ablation", "ablation_markdown", "read_ablation", "select_features",
    "write_ablation",
]  # fmt: skip

ENGINES = ("freq", "bayes")
BAYES_SETS = ("basic", "full")
#: what a ``judge:<name>:<kind>`` feature column can be (features.build_features)
JUDGE_KINDS = ("mean", "sd", "has_var", "entropy", "perplexity", "missing")
NO_EMBEDDING = "no embedding columns (pass --embedding PREFIX): not run"
COLUMNS = ["config", "type", "family", "engine", "n_features", "n_items", "r2", "rmse"]
COLUMNS += ["spearman", "spearman_in_fold", "note"]
#: what an ablation writes into its folder
FILES = ("ablation.csv", "ablation.md", "ablation_settings.json")


@dataclass(frozen=True)
class AblationSpec:
    """What to ablate.

    ``models``: outcome families (default: every frequentist family that fits the
    outcome type, and the type's default family for the Bayesian engine; ``ridge`` is
    the ``gaussian`` family under it). ``embedding``: a prefix of embedding columns (or
    None). ``engines``: ``freq`` and/or ``bayes``. ``bayes_sets``: ``basic`` (judges +
    embeddings, judges) or ``full`` (every calibrated configuration).
    """

    label: str
    judges: tuple[str, ...]
    outcome: str = "continuous"
    levels: tuple[float, ...] | None = None
    item: str | None = None
    embedding: str | None = None
    models: tuple[str, ...] | None = None
    engines: tuple[str, ...] = ("freq",)
    bayes_sets: str = "basic"
    folds: int = 5
    seed: int = 0

    def pool(self, frame: pd.DataFrame) -> EvalPool:
        """The fully labeled pool (validated; refuses unlabeled rows with the row)."""
        check_table(
            frame,
            self.label,
            (*self.judges, self.item),
            self.embedding,
            outcome=self.outcome,
            levels=self.levels,
        )
        return spec_pool(frame, self)

    def families(self, pool: EvalPool, fs: FeatureSet) -> list[tuple[str, str]]:
        """``(family, engine)`` pairs to fit, refusing unknown ones before any fit."""
        for engine in self.engines:
            if engine not in ENGINES:
                raise ValidationError(f"engine {engine!r} must be 'freq' or 'bayes'.")
        if self.bayes_sets not in BAYES_SETS:
            raise ValidationError(f"ablation {self.bayes_sets!r} must be 'basic' or 'full'.")
        kind = pool.outcome.kind
        default = registry.default_model(pool.outcome)
        pairs = []
        for engine in self.engines:
            if self.models is not None:
                names = list(self.models)
            elif engine == "freq":  # gaussian is ridge under the frequentist engine
                names = [default] + [m for m in registry.freq_families(kind) if m != default]
            else:
                names = [default]
            for name in names:
                if engine == "bayes" and name == "ridge":
                    name = "gaussian"
                if (name, engine) not in pairs:
                    pairs.append((name, engine))
        for name, engine in pairs:  # the registry's own refusals (unknown, wrong kind)
            registry.make_model(name, engine, pool.outcome, fs)
        return pairs


def select_features(fs: FeatureSet, judges: Sequence[str], embedding: bool) -> FeatureSet:
    """The columns of ``fs`` that belong to ``judges`` (all their kinds) and, when
    ``embedding``, the embedding components; blocks re-indexed."""
    wanted = {f"judge:{j}:{k}" for j in judges for k in JUDGE_KINDS}
    emb = set(fs.blocks["embedding"]) if embedding else set()
    keep = [i for i, n in enumerate(fs.names) if n in wanted or i in emb]
    new = {old: k for k, old in enumerate(keep)}
    blocks = {b: [new[i] for i in idx if i in new] for b, idx in fs.blocks.items()}
    cols = [fs.judges.index(j) for j in judges]
    return FeatureSet(
        X=fs.X[:, keep],
        names=[fs.names[i] for i in keep],
        blocks=blocks,
        judges=tuple(judges),
        judge_missing=fs.judge_missing[:, cols],
        report=fs.report,
    )


def _spearman(pred: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho (NaN when either side is constant)."""
    if np.ptp(pred) > 0 and np.ptp(y) > 0:
        return float(stats.spearmanr(pred, y).statistic)
    return np.nan


def _metrics(y: np.ndarray, pred: np.ndarray, fold_ids: np.ndarray) -> dict[str, float]:
    """Out-of-fold R^2 (SST about the mean of ``y``), RMSE and Spearman's rho over all
    items, and the mean of the within-fold Spearman's rho (``spearman_in_fold``: free of
    the ties that fold-to-fold differences of the fitted model break at random)."""
    resid = y - pred
    sst = float(np.sum((y - y.mean()) ** 2))
    within = [_spearman(pred[fold_ids == k], y[fold_ids == k]) for k in np.unique(fold_ids)]
    return {
        "n_items": int(y.size),
        "r2": 1.0 - float(np.sum(resid**2)) / sst if sst > 0 else np.nan,
        "rmse": float(np.sqrt(np.mean(resid**2))),
        "spearman": _spearman(pred, y),
        "spearman_in_fold": float(np.mean(within)),
    }


def _configs(pool: EvalPool) -> list[tuple[str, tuple[str, ...], bool]]:
    """Calibrated configurations: (name, judges, with embedding); without an embedding
    the single-judge + embedding rows collapse into one (a note)."""
    out = [("judges + embeddings", pool.judges, True), ("judges", pool.judges, False)]
    if pool.embedding is None:
        out.append(("judge: each + embeddings", (), True))
    else:
        out += [(f"judge: {j} + embeddings", (j,), True) for j in pool.judges]
    out += [(f"judge: {j}", (j,), False) for j in pool.judges]
    out.append(("embeddings", (), True))
    return out


def _runs(
    spec: AblationSpec, pool: EvalPool, fs: FeatureSet
) -> list[tuple[str, tuple[str, ...], bool, str, str]]:
    """Every calibrated row in table order: (config, judges, embedding, family, engine)."""
    runs = []
    for family, engine in spec.families(pool, fs):
        for name, judges, emb in _configs(pool):
            basic = name in ("judges + embeddings", "judges")
            if engine == "bayes" and spec.bayes_sets == "basic" and not basic:
                continue
            runs.append((name, judges, emb, family, engine))
    return runs


def ablation(
    frame: pd.DataFrame,
    spec: AblationSpec,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Out-of-fold R^2, RMSE and Spearman of every configuration (one row each).

    Columns: config, type (calibrated/uncalibrated), family, engine, n_features,
    n_items, r2, rmse, spearman, spearman_in_fold, note. Every row uses the same folds
    (``spec.folds``, ``spec.seed``), so rows are paired; deterministic under the seed.
    """
    pool = spec.pool(frame)
    y = pool.y
    fold_ids = make_folds(np.ones(y.size, dtype=bool), spec.folds, spec.seed)
    fs = build_features(pool, seed=spec.seed)
    runs = _runs(spec, pool, fs)
    rows: list[dict] = []
    for done, (name, judges, emb, family, engine) in enumerate(runs, start=1):
        row = {"config": name, "type": "calibrated", "family": family, "engine": engine}
        if emb and pool.embedding is None:
            rows.append({**row, "note": NO_EMBEDDING})
        elif engine == "bayes" and not judges:
            rows.append({**row, "note": "the Bayesian judge models need a judge: not run"})
        else:
            sub = select_features(fs, judges, emb)
            model = registry.make_model(family, engine, pool.outcome, sub)
            fit = cross_fit(model, sub.X, y, fold_ids=fold_ids)
            rows.append({**row, "n_features": sub.X.shape[1], **_metrics(y, fit.mean, fold_ids)})
        if progress:
            progress(done, len(runs))
    rows.extend(_fixed_rows(pool, fold_ids))
    return _typed(pd.DataFrame(rows).reindex(columns=COLUMNS))


def _typed(table: pd.DataFrame) -> pd.DataFrame:
    """Column types of an ablation table (counts may be missing: nullable ints)."""
    for col in ("n_features", "n_items"):
        table[col] = table[col].astype("Int64")
    for col in ("r2", "rmse", "spearman", "spearman_in_fold"):
        table[col] = table[col].astype(float)
    table["note"] = table["note"].astype(object).fillna("").astype(str)
    return table


def read_ablation(path: str | Path) -> pd.DataFrame:
    """Read an ``ablation.csv`` written by :func:`write_ablation` (equal to the table)."""
    return _typed(pd.read_csv(path))


def _fixed_rows(pool: EvalPool, fold_ids: np.ndarray) -> list[dict]:
    """The intercept (out-of-fold label mean) and the raw judge scores (no fitting)."""
    y = pool.y
    intercept = np.empty_like(y)
    for k in np.unique(fold_ids):
        intercept[fold_ids == k] = y[fold_ids != k].mean()
    rows = [{"config": "intercept", "type": "calibrated", "family": "-", "engine": "-",
             "n_features": 0, **_metrics(y, intercept, fold_ids)}]  # fmt: skip
    scores = pool.judge_matrix().to_numpy(float)
    columns = [("raw judge average", scores)]
    columns += [(f"raw judge: {j}", scores[:, [k]]) for k, j in enumerate(pool.judges)]
    for name, mat in columns:
        scored = ~np.isnan(mat).all(axis=1)
        pred = np.nanmean(mat[scored], axis=1)
        note = "" if scored.all() else f"on the {int(scored.sum())} items it scored"
        rows.append(
            {"config": name, "type": "uncalibrated", "family": "-", "engine": "-",
             **_metrics(y[scored], pred, fold_ids[scored]), "note": note}
        )  # fmt: skip
    return rows


def _cell(value: object) -> str:
    if isinstance(value, float):
        return "" if np.isnan(value) else f"{value:.3f}"
    return "" if value is pd.NA else str(value).replace("|", "\\|")


def ablation_markdown(table: pd.DataFrame) -> str:
    """The ablation table as a Markdown table (metrics to 3 decimals)."""
    cols = [c for c in COLUMNS if c != "n_items"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table.iterrows():
        lines.append("| " + " | ".join(_cell(r[c]) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def write_ablation(out: Path, table: pd.DataFrame, spec: AblationSpec) -> list[Path]:
    """Write ``ablation.csv``, ``ablation.md`` and ``ablation_settings.json`` into the
    folder ``out``, atomically (a new folder swapped in whole); a Monte Carlo's files
    written there before are kept."""

    def fill(tmp: Path) -> None:
        table.to_csv(tmp / FILES[0], index=False)
        (tmp / FILES[1]).write_text(ablation_markdown(table))
        (tmp / FILES[2]).write_text(json.dumps(asdict(spec), indent=2))

    write_folder(out, fill)
    return [Path(out) / name for name in FILES]
