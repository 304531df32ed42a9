"""Does ``bacon plan`` predict what the designs deliver? (issue 32, point 4)

On WMT22 zh-en (``seg_id`` prompts, ``system`` groups, label ``-mqm``, ten metrics as
judges) and TriviaQA (``question`` prompts, ``model`` groups, the binary human verdict,
nine LLM judges): a 3% uniform pilot, the plan's predictions at a 10% budget (designs
drawing every label themselves, ``from_scratch``), and direct Monte Carlo draws at 10%
(library calls: the design's draw, ``Calibrator(engine="freq")`` fitted on it, the AEE pool
mean and the pointwise interval of a named pair's difference). Printed per design: the
predicted and the mean simulated half-width of the pool mean and their ratio, the predicted
power of the named pair at its true difference and the share of draws whose interval
excludes 0. The named pair: the one whose predicted uniform power is nearest 0.5.

Usage: ``python -m benchmarks.plan_check [--trials 200] [--data wmt,triviaqa]``. Needs the
shared data (``../shared/data`` or ``$BACON_SHARED_DATA``); skips with a message otherwise.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.errors import ValidationError
from bacon_bayes.planning import pilot_statistics, predict
from bacon_bayes.planning.plan import _power_t
from bacon_bayes.sampling.designs import uniform
from bacon_bayes.sampling.paired import paired, prompts_for_budget
from benchmarks.adaptive_experiment import find_shared_data

WMT_FILE = Path("wmt22_zhen_mqm/wmt22_zhen_mqm_metrics.csv.gz")
WMT_METRICS = (
    "COMET-22-refA", "BLEURT-20-refA", "metricx_xxl_MQM_2020-refA", "COMETKiwi-src",
    "UniTE-refA", "MS-COMET-22-refA", "BERTScore-refA", "chrF-refA", "BLEU-refA",
    "SEScore-refA",
)  # fmt: skip
TQA_FILE = Path("judging_the_judges_triviaqa/TriviaQA_Judges_w_HumanJudgement_V2.csv.gz")
TQA_JUDGES = (
    "JudgeLM", "Gemma-2B", "Llama3-70B", "Llama-70B", "GPT-4", "Llama-7B", "Llama3-8B",
    "Llama-13B", "Mistral-7B",
)  # fmt: skip
PILOT, BUDGET, ALPHA = 0.03, 0.10, 0.05


def wmt() -> dict[str, Any] | None:
    path = find_shared_data(WMT_FILE)
    if path is None:
        return None
    frame = pd.read_csv(path, usecols=["system", "seg_id", "mqm", *WMT_METRICS])
    frame = frame[frame["mqm"].notna()].reset_index(drop=True)
    frame["y"] = -frame["mqm"]
    return {"name": "WMT22 zh-en", "frame": frame, "judges": list(WMT_METRICS),
            "group": "system", "prompt": "seg_id", "outcome": "nonnegative",
            "levels": None}  # fmt: skip


def triviaqa() -> dict[str, Any] | None:
    path = find_shared_data(TQA_FILE)
    if path is None:
        return None
    df = pd.read_csv(path)
    df = df[df["Human-Eval"].notna()].reset_index(drop=True)
    frame = df[list(TQA_JUDGES)].astype(float)
    frame["y"] = df["Human-Eval"].astype(float)
    frame["model"], frame["question"] = df["model"], df["question"]
    return {"name": "TriviaQA", "frame": frame, "judges": list(TQA_JUDGES), "group": "model",
            "prompt": "question", "outcome": "categorical", "levels": [0.0, 1.0]}  # fmt: skip


def make_pool(data: dict[str, Any], labeled: np.ndarray, design: Any = None) -> EvalPool:
    frame = data["frame"].copy()
    frame["y"] = np.where(labeled, frame["y"], np.nan)
    extra: dict[str, Any] = {}
    if design is not None:
        frame["_pi"], frame["_b"] = design.pi, design.pi_prompt
        extra = {"propensity": "_pi", "prompt_propensity": "_b"}
    return EvalPool.from_frame(
        frame, label="y", judges=data["judges"], outcome=data["outcome"], levels=data["levels"],
        group=data["group"], prompt=data["prompt"], **extra,
    )  # fmt: skip


def draw(data: dict[str, Any], design: str, n: int, seed: int) -> tuple[np.ndarray, Any]:
    frame = data["frame"]
    if design == "uniform":
        return uniform(len(frame), n, seed=seed).selected, None
    prompts = frame[data["prompt"]].astype(str).to_numpy()
    d = paired(prompts, prompts_for_budget(prompts, n), seed=seed)
    return d.selected, d


def check(data: dict[str, Any], trials: int) -> None:
    frame = data["frame"]
    N = len(frame)
    names = sorted(frame[data["group"]].astype(str).unique())
    truth = frame.groupby(frame[data["group"]].astype(str))["y"].mean().reindex(names).to_numpy()
    pilot = uniform(N, round(PILOT * N), seed=12345).selected
    start = time.perf_counter()
    st = pilot_statistics(make_pool(data, pilot))
    print(f"\n== {data['name']}: {N} items, {len(names)} groups, pilot {st.n_labeled} labels "
          f"({time.perf_counter() - start:.1f} s)")  # fmt: skip
    for note in st.assumptions:
        print(f"  {note}")
    n = round(BUDGET * N)
    preds = {d: predict(st, d, n, from_scratch=True) for d in ("uniform", "paired")}
    # the named pair: predicted uniform power at the true difference nearest 0.5
    best, pair = 2.0, (0, 1)
    pu = preds["uniform"]
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            se = np.sqrt(pu.cov[a, a] + pu.cov[b, b])
            pw = _power_t(abs(truth[a] - truth[b]), se, min(pu.df[a], pu.df[b]), ALPHA)
            if abs(pw - 0.5) < best:
                best, pair = abs(pw - 0.5), (a, b)
    a, b = pair
    label = f"{names[a]} - {names[b]}"
    print(f"  named pair {label}: true difference {truth[a] - truth[b]:+.4f}")
    from scipy import stats

    for design, p in preds.items():
        hw_pred = float(stats.t.isf(ALPHA / 2, p.df_pool) * np.sqrt(p.var_pool))
        se_d = float(np.sqrt(p.cov[a, a] + p.cov[b, b] - 2 * p.cov[a, b]))
        pw_pred = _power_t(abs(truth[a] - truth[b]), se_d, min(p.df[a], p.df[b]), ALPHA)
        widths, hits, ests = [], [], []
        start = time.perf_counter()
        for t in range(trials):
            labeled, d = draw(data, design, n, seed=1000 + t)
            try:
                cal = Calibrator(engine="freq", seed=t).fit(make_pool(data, labeled, d))
                e = cal.estimate_mean(ALPHA)
                diffs = cal.compare_groups(ALPHA, simultaneous=False)
            except ValidationError as exc:  # a group without labels in this draw
                print(f"  trial {t} skipped: {exc}")
                continue
            widths.append((e.ci_high - e.ci_low) / 2)
            k = diffs.names.index(label)
            hits.append(diffs.ci_low[k] > 0 or diffs.ci_high[k] < 0)
            ests.append(diffs.estimate[k])
        took = time.perf_counter() - start
        hw_sim, pw_sim = float(np.mean(widths)), float(np.mean(hits))
        print(
            f"  {design:<8} pool-mean half-width predicted {hw_pred:.4f} simulated {hw_sim:.4f} "
            f"ratio {hw_pred / hw_sim:.3f} | {label}: se predicted {se_d:.4f} sd of draws "
            f"{np.std(ests):.4f} | power predicted {pw_pred:.3f} simulated {pw_sim:.3f} "
            f"(diff {pw_pred - pw_sim:+.3f}; {len(widths)} trials, {took:.0f} s)"
        )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.plan_check")
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--data", default="wmt,triviaqa")
    args = p.parse_args(argv)
    loaders = {"wmt": wmt, "triviaqa": triviaqa}
    for key in args.data.split(","):
        data = loaders[key.strip()]()
        if data is None:
            print(f"skipped {key}: shared data not found (set BACON_SHARED_DATA or put it in "
                  "../shared/data)")  # fmt: skip
            continue
        check(data, args.trials)


if __name__ == "__main__":
    main()
