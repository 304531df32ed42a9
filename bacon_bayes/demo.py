"""The demo: the whole pipeline on the shipped SummEval sample."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.outputs import Output
from bacon_bayes.pool import EvalPool
from bacon_bayes.report import estimates_table, groups_table
from bacon_bayes.report.text import guarantee_note

DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")


def load_summeval() -> pd.DataFrame:
    """The shipped SummEval sample (1,200 summaries; see ``bacon_bayes/data/README.md``)."""
    with resources.as_file(resources.files("bacon_bayes") / "data/summeval_sample.csv.gz") as p:
        return pd.read_csv(p)


def summeval_pool(
    dimension: str = "relevance", fraction: float = 0.1, seed: int = 0
) -> tuple[EvalPool, float]:
    """Pool with ``fraction`` of the expert-mean labels kept (uniform draw under ``seed``).

    Returns the pool and the full-data mean (the truth the estimate should cover).
    """
    df = load_summeval()
    full = df[f"expert_mean_{dimension}"]
    keep = np.random.default_rng(seed).permutation(len(df))[: round(fraction * len(df))]
    df["label"] = np.nan
    df.loc[keep, "label"] = full.iloc[keep]
    judges = [c for c in df.columns if c.startswith("judge:") and c.endswith(f"|{dimension}")]
    pool = EvalPool.from_frame(
        df, label="label", judges=judges, outcome="continuous", group="system", item="item"
    )
    return pool, float(full.mean())


def _against(bias: pd.DataFrame) -> str:
    """What the judges' noise reads against: the Bayesian table's shared quality (its sd
    ``quality_sd``, :mod:`bacon_bayes.bayes.bias`) or the expert labels."""
    if "quality_sd" in bias:
        return f"around the quality the judges share (sd {bias['quality_sd'].iloc[0]:.2f})"
    return "around the expert labels"


def run_demo(
    dimension: str = "relevance",
    fraction: float = 0.1,
    seed: int = 0,
    engine: str = "bayes",
    report: str | Path | Output | None = "demo-report.html",
) -> str:
    """Run the pipeline and return the printed report; also write the HTML page to
    ``report`` (None: no page). ``engine="bayes"`` fits the hierarchical judge model
    (about 20-40 s on 2 cores), ``"freq"`` the ridge (about a second)."""
    pool, truth = summeval_pool(dimension, fraction, seed)
    cal = Calibrator(engine=engine, seed=seed, scale=(1, 5)).fit(pool)  # expert 1-5 ratings
    bias = cal.judge_bias(0.9)
    bias["judge"] = bias["judge"].str.removeprefix("judge:").str.removesuffix(f"|{dimension}")
    groups = [cal.estimate_groups(0.05, True, m) for m in ("aee", "classical")]
    lines = [
        f"SummEval {dimension}: {pool.n_items} summaries from 12 systems, "
        f"{pool.n_labeled} expert labels kept ({fraction:.0%}), {len(pool.judges)} LLM judges.",
        f"Outcome model: {cal.model_name_} ({cal.engine_}), 5-fold cross-fitting.",
        "",
        "1. Mean expert rating over the pool (95% CI):",
        estimates_table([cal.estimate_mean(0.05, m) for m in ("aee", "classical", "naive")]),
        f"Full-data mean (all 1,200 expert labels): {truth:.4f}",
        "",
        f"Mean per system (95% CIs, {guarantee_note(groups[0])}):",
        groups_table(groups),
        "",
        "Systems ranked by calibrated mean (simultaneous rank intervals):",
        cal.rank_groups()[["name", "estimate", "rank", "rank_low", "rank_high"]].to_string(
            index=False, float_format=lambda v: f"{v:.3f}"
        ),
        "",
        "2. Judge bias: judge minus expert at a typical summary, 1-5 scale (90% intervals);",
        f"   noise_human: its error once calibrated to the expert scale, {_against(bias)}:",
        bias[["judge", "bias", "bias_low", "bias_high", "noise_human"]].to_string(
            index=False, float_format=lambda v: f"{v:.3f}"
        ),
        "",
        "3. Items to look at: lowest-scoring unlabeled summaries (90% conformal intervals;",
        "   p_below: the model's own probability of a label below 3, not calibrated):",
        cal.item_scores(0.9, threshold=3.0)
        .query("~labeled")
        .nsmallest(5, "score")[["item", "group", "score", "lower", "upper", "p_below", "flag"]]
        .to_string(index=False, float_format=lambda v: f"{v:.3f}"),
    ]
    if report is not None:
        path = cal.report(report, truth=truth, title=f"SummEval {dimension}: bacon_bayes demo")
        lines += ["", f"HTML report (all sections, opens offline): {Path(path).resolve()}"]
    return "\n".join(lines)
