"""Classical group means from a handful of labels per group: simultaneous coverage of the
score interval (``classical_group_means``' moderated-t path) against the symmetric
moderated t with the pooled prior, on the same uniform draws.

    python -m benchmarks.group_score_interval [--reps 1000]

Every draw that leaves each group at least 2 labels counts (all groups get an
interval; ``bacon simulate``'s summary instead withholds groups under 5 labels and
counts them as covered). The symmetric t is what a constant, untuned surrogate gives
(the same estimates, the prior pooled over all labels). Data: the shipped SummEval
sample (12 systems, 120 labels); WMT22 zh-en MQM (16 systems) and TriviaQA (8
answering models) from ``../shared/data`` when present.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import estimate as est
from bacon_bayes.demo import load_summeval
from bacon_bayes.estimate.tables import group_codes
from benchmarks.adaptive_experiment import find_shared_data

WMT22 = Path("wmt22_zhen_mqm/wmt22_zhen_mqm_metrics.csv.gz")
TRIVIAQA = Path("judging_the_judges_triviaqa/TriviaQA_Judges_w_HumanJudgement_V2.csv.gz")


def coverage(
    y: np.ndarray, groups: np.ndarray, labels: int, reps: int, seed: int = 5
) -> tuple[float, float, float]:
    """Simultaneous 95% coverage of every group's true mean over ``reps`` uniform draws of
    ``labels`` labels: the score interval's, the symmetric t's, and the score
    interval's mean width over the symmetric one's."""
    names, codes = group_codes(groups)  # the estimators' (natural) order of the groups
    truth = np.bincount(codes, weights=y) / np.bincount(codes)
    rng = np.random.default_rng(seed)
    score = sym = done = 0
    width = 0.0
    while done < reps:
        lab = rng.choice(y.size, labels, replace=False)
        if np.bincount(codes[lab], minlength=names.size).min() < 2:
            continue
        yy = np.full(y.size, np.nan)
        yy[lab] = y[lab]
        pi = labels / y.size
        t = est.classical_group_means(yy, groups, pi=pi)
        s = est.aee_group_means(yy, np.ones(y.size), groups, pi=pi, power_tuning=False)
        assert t.details["interval"] == "score t" and list(t.names) == list(names)
        np.testing.assert_allclose(s.estimate, t.estimate, rtol=1e-12)
        score += bool(np.all((t.ci_low <= truth) & (truth <= t.ci_high)))
        sym += bool(np.all((s.ci_low <= truth) & (truth <= s.ci_high)))
        width += float(np.mean(t.ci_high - t.ci_low) / np.mean(s.ci_high - s.ci_low))
        done += 1
    return score / reps, sym / reps, width / reps


def tables() -> list[tuple[str, np.ndarray, np.ndarray, tuple[int, ...]]]:
    """(name, labels, groups, label counts) of the data sets at hand."""
    df = load_summeval()
    out = [
        (f"SummEval {d}", df[f"expert_mean_{d}"].to_numpy(float), df["system"].to_numpy(), (120,))
        for d in ("fluency", "consistency", "coherence", "relevance")
    ]
    if (path := find_shared_data(WMT22)) is not None:
        w = pd.read_csv(path, usecols=["system", "mqm"]).dropna()
        out.append(("WMT22 MQM", -w["mqm"].to_numpy(float), w["system"].to_numpy(), (120, 80)))
    if (path := find_shared_data(TRIVIAQA)) is not None:
        t = pd.read_csv(path, usecols=["model", "Human-Eval"]).dropna()
        out.append(("TriviaQA", t["Human-Eval"].to_numpy(float), t["model"].to_numpy(), (56, 40)))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=1000)
    args = p.parse_args(argv)
    print("| data | groups | labels | score interval | symmetric t | width, score / symmetric |")
    print("|---|---|---|---|---|---|")
    for name, y, groups, counts in tables():
        for labels in counts:
            score, sym, width = coverage(y, groups, labels, args.reps)
            m = np.unique(groups).size
            print(
                f"| {name} | {m} | {labels} | {score:.3f} | {sym:.3f} | {width:.3f} |", flush=True
            )


if __name__ == "__main__":
    main()
