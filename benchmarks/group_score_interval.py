"""Classical group means from a handful of labels per group: simultaneous coverage of the
score interval (``classical_group_means``' moderated-t path) against the symmetric
moderated t with the pooled prior, on the same uniform draws.

    python -m benchmarks.group_score_interval [--reps 1000]

Every draw that leaves each group at least 2 labels counts (all groups get an
interval; ``bacon simulate``'s summary instead withholds groups under 5 labels and
counts them as covered). The symmetric t is what a constant, untuned surrogate gives
(the same estimates, the prior pooled over all labels). Data: the shipped SummEval
sample (12 systems, 120 labels); WMT22 zh-en MQM (16 systems) and TriviaQA (8
answering models) from ``../shared/data`` when present. TriviaQA's labels are 0/1
verdicts, whose interval is Wilson's (``details["interval"] == "score (two-valued
labels)"``); ``--two-valued`` measures it on TriviaQA at 3-20% labels, the groups' and the
28 differences' (Newcombe's ends) joint and pointwise coverage:

    python -m benchmarks.group_score_interval --two-valued --reps 400
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import estimate as est
from bacon_bayes.demo import load_summeval
from bacon_bayes.estimate.groups import compare
from bacon_bayes.estimate.moderate import TWO_VALUED
from bacon_bayes.estimate.tables import group_codes
from benchmarks.adaptive_experiment import find_shared_data

WMT22 = Path("wmt22_zhen_mqm/wmt22_zhen_mqm_metrics.csv.gz")
TRIVIAQA = Path("judging_the_judges_triviaqa/TriviaQA_Judges_w_HumanJudgement_V2.csv.gz")


def score_tables(y: np.ndarray, groups: np.ndarray, labels: int, reps: int, seed: int = 5):
    """``reps`` uniform draws of ``labels`` labels (each group at least 2): each draw's
    classical table (the score interval), the AEE table of a constant surrogate (the
    symmetric t, the same estimates) and the groups' true means."""
    names, codes = group_codes(groups)  # the estimators' (natural) order of the groups
    truth = np.bincount(codes, weights=y) / np.bincount(codes)
    rng = np.random.default_rng(seed)
    done = 0
    while done < reps:
        lab = rng.choice(y.size, labels, replace=False)
        if np.bincount(codes[lab], minlength=names.size).min() < 2:
            continue
        yy = np.full(y.size, np.nan)
        yy[lab] = y[lab]
        pi = labels / y.size
        t = est.classical_group_means(yy, groups, pi=pi)
        s = est.aee_group_means(yy, np.ones(y.size), groups, pi=pi, power_tuning=False)
        assert t.details["interval"] in ("score t", TWO_VALUED) and list(t.names) == list(names)
        np.testing.assert_allclose(s.estimate, t.estimate, rtol=1e-12)
        yield t, s, truth
        done += 1


def coverage(
    y: np.ndarray, groups: np.ndarray, labels: int, reps: int, seed: int = 5
) -> tuple[float, float, float]:
    """Simultaneous 95% coverage of every group's true mean over ``reps`` uniform draws of
    ``labels`` labels: the score interval's, the symmetric t's, and the score
    interval's mean width over the symmetric one's."""
    score = sym = 0
    width = 0.0
    for t, s, truth in score_tables(y, groups, labels, reps, seed):
        score += bool(np.all((t.ci_low <= truth) & (truth <= t.ci_high)))
        sym += bool(np.all((s.ci_low <= truth) & (truth <= s.ci_high)))
        width += float(np.mean(t.ci_high - t.ci_low) / np.mean(s.ci_high - s.ci_low))
    return score / reps, sym / reps, width / reps


def two_valued(y: np.ndarray, groups: np.ndarray, budget: float, reps: int) -> dict[str, float]:
    """Joint and pointwise 95% coverage of the groups and their differences, and the
    groups' mean width, over ``reps`` uniform draws of ``budget`` of the items."""
    names, codes = group_codes(groups)
    truth = np.bincount(codes, weights=y) / np.bincount(codes)
    d_truth = truth[:, None] - truth[None, :]
    rng, n = np.random.default_rng(7), round(budget * y.size)
    keys = ("groups", "groups pointwise", "diffs", "diffs pointwise", "pointwise width")
    out = dict.fromkeys(keys, 0.0)
    for _ in range(reps):
        lab = np.zeros(y.size, dtype=bool)
        lab[rng.choice(y.size, n, replace=False)] = True
        yy = np.where(lab, y, np.nan)
        for rule, key in (("maxt", ""), ("none", " pointwise")):
            t = est.classical_group_means(yy, groups, lab, n / y.size, simultaneous=rule)
            assert t.details["interval"] == TWO_VALUED and list(t.names) == list(names)
            d = compare(t)
            a, b = np.triu_indices(names.size, 1)  # compare's order of the pairs
            ok_g = (t.ci_low <= truth) & (truth <= t.ci_high)
            ok_d = (d.ci_low <= d_truth[a, b]) & (d_truth[a, b] <= d.ci_high)
            agg = np.all if rule == "maxt" else np.mean
            out["groups" + key] += float(agg(ok_g)) / reps
            out["diffs" + key] += float(agg(ok_d)) / reps
        out["pointwise width"] += float(np.mean(t.ci_high - t.ci_low)) / reps
    return out


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
    p.add_argument("--two-valued", action="store_true", help="TriviaQA's 0/1 verdicts alone")
    args = p.parse_args(argv)
    if args.two_valued:
        if (path := find_shared_data(TRIVIAQA)) is None:
            print(f"skipped: {TRIVIAQA} not found under ../shared/data")
            return
        t = pd.read_csv(path, usecols=["model", "Human-Eval"]).dropna()
        y, groups = t["Human-Eval"].to_numpy(float), t["model"].to_numpy()
        for budget in (0.03, 0.05, 0.1, 0.2):
            row = two_valued(y, groups, budget, args.reps)
            print(budget, {k: round(v, 3) for k, v in row.items()}, flush=True)
        return
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
