"""``bacon simulate`` with prompts: the paired designs' label draws, and the pairwise
differences of group means as trial columns and summary metrics.

Designs (``--designs``, with ``--prompt``): ``paired`` (a simple random sample of prompts,
every group's item of a drawn prompt labeled), ``paired-subset`` (more prompts, about half
the groups of each, at least two), ``paired-adaptive`` (a paired pilot of ``pilot_share``
of the budget, then prompts drawn with probabilities following the predicted sd of their
residuals, :func:`~bacon_bayes.sampling.paired.prompt_sd`; a pilot of fewer than
:data:`~bacon_bayes.sampling.paired.MIN_PILOT_PROMPTS` prompts steps back to the paired
design's draw of the trial). Each spends the same number
of labels as the item-level designs, in expectation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.errors import ValidationError
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.sampling.paired import (
    PAIRED_DESIGNS,
    adaptive_choice,
    design_inclusion,
    paired,
    paired_adaptive,
    paired_subset,
    prompt_sd,
    prompts_for_budget,
)

__all__ = [
    "PAIRED_DESIGNS",
    "difference_columns",
    "difference_summary",
    "draw_paired",
    "withheld_notes",
]


def draw_paired(
    frame: pd.DataFrame, spec: Any, design: str, n: int, seed: int, fit_pool: Any
) -> tuple[np.ndarray, Inclusion, dict[str, Any]]:
    """The labeled items, the design's :class:`Inclusion` and what it chose, for one trial
    of a paired design with about ``n`` labels (``fit_pool(labeled, inclusion)``: the pool
    of a trial, for the adaptive design's pilot fit)."""
    prompts = frame[spec.prompt].astype(str).to_numpy()
    if design == "paired":
        d = paired(prompts, prompts_for_budget(prompts, n), seed=seed)
        return d.selected, design_inclusion([d]), {}
    if design == "paired-subset":
        n_groups = frame[spec.group].nunique() if spec.group else 2
        per_prompt = max(2.0, math.floor(n_groups / 2))
        d = paired_subset(prompts, float(n), per_prompt, seed=seed)
        return d.selected, design_inclusion([d]), {}
    if design != "paired-adaptive":
        raise ValidationError(f"design {design!r} is not a paired design; use {PAIRED_DESIGNS}.")
    total = prompts_for_budget(prompts, n)
    n1 = min(total - 1, max(spec.folds, round(spec.pilot_share * total)))
    if n1 < spec.folds:
        raise ValidationError(
            f"the paired-adaptive design's pilot has {n1} prompt(s), fewer than the "
            f"{spec.folds} folds; raise the budget."
        )
    choice = adaptive_choice(n1)
    if choice != "adaptive":  # exactly the paired design's trial
        d = paired(prompts, total, seed=seed)
        return d.selected, design_inclusion([d]), {"adaptive_choice": choice}
    pilot = paired(prompts, n1, seed=seed)
    cal = Calibrator(engine=spec.engine, folds=spec.folds, seed=seed % 2**31)
    cal.fit(fit_pool(pilot.selected, design_inclusion([pilot])))
    sd = prompt_sd(prompts, cal.crossfit_.var())
    wave = paired_adaptive(
        prompts, sd, total - n1, prior=pilot.pi_prompt, eligible=~pilot.selected, seed=seed + 1
    )
    return (
        pilot.selected | wave.selected,
        design_inclusion([pilot, wave]),
        {"adaptive_choice": choice},
    )


def difference_columns(cal: Calibrator, spec: Any, method: str) -> dict[str, Any]:
    """Every pairwise difference of group means with its pointwise and simultaneous
    interval, as trial columns ``diff:<a - b>:<estimate|ci_low|ci_high|sim_low|sim_high>``."""
    sim = cal.compare_groups(spec.alpha, True, method)  # type: ignore[arg-type]
    point = cal.compare_groups(spec.alpha, False, method)  # type: ignore[arg-type]
    out: dict[str, Any] = {}
    for k, name in enumerate(sim.names):
        out[f"diff:{name}:estimate"] = float(sim.estimate[k])
        out[f"diff:{name}:ci_low"], out[f"diff:{name}:ci_high"] = point.ci_low[k], point.ci_high[k]
        out[f"diff:{name}:sim_low"], out[f"diff:{name}:sim_high"] = sim.ci_low[k], sim.ci_high[k]
    return out


def difference_summary(t: pd.DataFrame, groups: Sequence[str]) -> dict[str, float]:
    """Pairwise-difference metrics over the trials that have them: RMSE against the pool's
    true differences (median and max over pairs), pointwise coverage (mean and min over
    pairs), simultaneous coverage of all differences, the share of pairs resolved (the
    simultaneous interval excludes 0), and the mean width of the rank intervals."""
    # each pair under the name the trials give it, whatever the order of ``groups`` (the
    # summary's sorted names put M10 before M8, the tables' natural order M8 first)
    pairs = [
        (a, b) if f"diff:{a} - {b}:estimate" in t else (b, a)
        for i, a in enumerate(groups)
        for b in groups[i + 1 :]
    ]
    pairs = [(a, b) for a, b in pairs if f"diff:{a} - {b}:estimate" in t]
    names = [f"{a} - {b}" for a, b in pairs]
    if not names:
        return {}
    t = t[t[[f"diff:{n}:estimate" for n in names]].notna().all(axis=1)]
    if t.empty:
        return {"diff_trials": 0}
    first = t.iloc[0]
    truth = np.array([first[f"group:{a}:truth"] - first[f"group:{b}:truth"] for a, b in pairs])

    def cols(part: str) -> np.ndarray:
        return t[[f"diff:{n}:{part}" for n in names]].to_numpy(float)

    err = cols("estimate") - truth
    rmse = np.sqrt(np.mean(err**2, axis=0))
    # a pair without an interval (a group withheld for too few labels) makes no claim: it
    # counts as covered, as the groups' own summary counts it (``diff_no_interval``: share)
    low = cols("ci_low")
    missing = np.isnan(low)
    inside = ((low <= truth) & (truth <= cols("ci_high"))) | missing
    sim = all(f"diff:{n}:sim_low" in t for n in names)
    sim_low = cols("sim_low") if sim else np.full(err.shape, np.nan)
    sim_high = cols("sim_high") if sim else sim_low
    # a pair with a pointwise interval but no simultaneous one: the estimator withheld it
    # (too few labeled prompts shared, a paired design's small budget): counted apart
    withheld = np.isnan(sim_low) & ~missing if sim else np.zeros(err.shape, dtype=bool)
    sim = sim and bool(np.isfinite(sim_low).any())  # a peer's pointwise intervals only
    sim_inside = ((sim_low <= truth) & (truth <= sim_high)) | np.isnan(sim_low)
    out = {
        "diff_trials": float(len(t)),
        "diff_rmse_median": float(np.median(rmse)),
        "diff_rmse_max": float(rmse.max()),
        "diff_coverage": float(inside.mean()),
        "diff_coverage_min": float(inside.mean(axis=0).min()),
        "diff_no_interval": float(missing.mean()),
        "diff_simultaneous_coverage": float(np.all(sim_inside, axis=1).mean()) if sim else math.nan,
        "diff_resolved": float(((sim_low > 0) | (sim_high < 0)).mean()) if sim else math.nan,
        # the share of pairs, and the trials, whose simultaneous interval was withheld
        # beside a pointwise one (diff_no_interval counts the pointwise ones)
        "diff_sim_withheld": float(withheld.mean()),
        "diff_sim_withheld_trials": float(withheld.any(axis=1).sum()),
    }
    low = [f"group:{g}:rank_low" for g in groups]
    if all(c in t for c in low):
        high = t[[f"group:{g}:rank_high" for g in groups]].to_numpy(float)
        out["rank_width"] = float((high - t[low].to_numpy(float)).mean())
    return out


def withheld_notes(summary: pd.DataFrame, alpha: float) -> list[str]:
    """A line per design, method and budget whose simultaneous difference intervals were
    withheld in some trials (``diff_sim_withheld_trials``): the estimator gives none to a
    pair whose groups share fewer labeled prompts than a simultaneous interval needs, so
    ``diff_simultaneous_coverage`` and ``diff_resolved`` rest on the other trials (NaN:
    none) and the rank intervals, built on those intervals, span every rank there."""
    from bacon_bayes.estimate.critical import min_simultaneous_prompts

    if "diff_sim_withheld_trials" not in summary:
        return []
    short = summary[summary["diff_sim_withheld_trials"].fillna(0) > 0]
    need = min_simultaneous_prompts(alpha)
    lines = [
        f"note: {r['design']} ({r['method']}) at budget {r['budget']:g}: simultaneous "
        f"difference intervals withheld in {int(r['diff_sim_withheld_trials'])} of "
        f"{int(r['diff_trials'])} trials ({100 * r['diff_sim_withheld']:.0f}% of pairs): "
        f"their groups share fewer than {need} labeled prompts"
        for _, r in short.iterrows()
    ]
    if lines:
        lines.append(
            "  there diff_simultaneous_coverage counts a withheld interval as covered and "
            "diff_resolved as unresolved (both NaN when every trial withheld them), and the "
            "rank intervals, built on them, span every rank (rank_width is the full range); "
            "a budget with more prompts gives them; the pointwise intervals (diff_coverage) "
            "are kept"
        )
    return lines
