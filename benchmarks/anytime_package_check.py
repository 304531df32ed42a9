"""The package's own anytime group means on TriviaQA, WMT22 (issue 41; WMT22: the
harness's 150 segments x 16 systems) or SummEval relevance (the shipped sample, 12
systems, the judges' relevance scores): ``Calibrator(engine="freq")``
``estimate_groups(simultaneous=False, anytime=True, max_labels)`` at every look of nested
uniform waves up to 20% (a fit per look, so a few hundred sequences at most), per model the
chance that some look's interval misses the model's full-label mean. ``--differences``:
also every pairwise difference (``compare_groups(simultaneous=False, anytime=True)``).
``--design paired``: each wave draws prompts (SummEval's documents, WMT22's segments,
TriviaQA's questions) uniformly and labels every item of them (the pool gets ``prompt=``
and the prompts' inclusion probabilities, so variances are clustered by prompt).

    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_package_check SEQUENCES [LOOKS]
        [--data /tmp/mc_data] [--out stem] [--table trivia|wmt22|summeval]
        [--differences] [--design uniform|paired]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.errors import ValidationError
from benchmarks.small_budget import SUMMEVAL, TRIVIA_JUDGES, WMT_METRICS, WMT_SEGMENTS

#: each table's file, judges and pool arguments (the harness's, benchmarks.anytime_validation)
TABLES = {
    "trivia": ("trivia.csv", TRIVIA_JUDGES,
               {"outcome": "categorical", "levels": (0.0, 1.0), "group": "model"}),
    "wmt22": ("wmt22.parquet", WMT_METRICS, {"outcome": "continuous", "group": "system"}),
    "summeval": (None, None, {"outcome": "continuous", "group": "system"}),
}  # fmt: skip
#: each table's prompt column (the paired design draws these)
PROMPTS = {"trivia": "question", "wmt22": "seg_id", "summeval": "doc_id"}


def load(table: str, data: Path) -> tuple[pd.DataFrame, list[str]]:
    """The table as the harness reads it (label column ``y``) and its judges."""
    if table == "summeval":
        frame = pd.read_csv(SUMMEVAL)
        judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
        return frame.assign(y=frame["expert_mean_relevance"]), judges
    name, judges, _ = TABLES[table]
    path = data / name
    frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    if table == "wmt22":  # the harness's subsample (benchmarks.anytime_validation)
        segs = np.sort(frame["seg_id"].unique())
        keep = np.random.default_rng(0).choice(segs, WMT_SEGMENTS, replace=False)
        frame = frame[frame["seg_id"].isin(keep)].reset_index(drop=True)
    return frame, list(judges)


def _waves(
    frame: pd.DataFrame, prompts: pd.Series | None, looks: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's wave (NaN: never labeled) and the share of its sampling units (items, or
    prompts) drawn by each look (nested uniform draws without replacement up to 20%)."""
    units = np.arange(len(frame)) if prompts is None else pd.factorize(prompts)[0]
    n_units = int(units.max()) + 1
    total = round(0.2 * n_units)
    sizes = np.diff(np.round(np.linspace(0, total, looks + 1)).astype(int))
    unit_wave = np.full(n_units, np.nan)
    unit_wave[rng.permutation(n_units)[:total]] = np.repeat(np.arange(1, looks + 1), sizes)
    return unit_wave[units], np.cumsum(sizes) / n_units


def run(
    frame: pd.DataFrame, judges: list[str], sequences: int, looks: int, table: str = "trivia",
    differences: bool = False, design: str = "uniform",
) -> pd.DataFrame:  # fmt: skip
    """One row per sequence, look and model (and pair, ``kind`` "difference"): estimate,
    interval, truth, labels."""
    kw = dict(TABLES[table][2])
    prompt = PROMPTS[table] if design == "paired" else None
    truth = frame.groupby(kw["group"])["y"].mean()
    rows, start = [], time.perf_counter()
    refused: dict[int, int] = {}
    for r in range(sequences):
        prompts = None if prompt is None else frame[prompt]
        wave, share = _waves(frame, prompts, looks, np.random.default_rng(r))
        max_labels = int(np.isfinite(wave).sum())
        for k in range(1, looks + 1):
            lab = wave <= k
            data = frame.assign(label=frame["y"].where(lab), wave=np.where(lab, wave, np.nan))
            extra = {}
            if prompt is not None:  # every item of a drawn prompt: both probabilities equal
                data = data.assign(p=np.where(lab, share[k - 1], np.nan))
                extra = {"prompt": prompt, "propensity": "p", "prompt_propensity": "p"}
            pool = EvalPool.from_frame(
                data, label="label", judges=list(judges), wave="wave", **kw, **extra
            )
            try:
                cal = Calibrator(engine="freq", seed=r).fit(pool)
            except ValidationError:  # e.g. fewer labeled prompts than folds: refused
                refused[k] = refused.get(k, 0) + 1
                continue
            tab = cal.estimate_groups(simultaneous=False, anytime=True, max_labels=max_labels)
            n_lab = frame.loc[lab, kw["group"]].value_counts()
            for j, name in enumerate(tab.names):
                rows.append(
                    {"sequence": r, "look": k, "kind": "group", "group": name,
                     "estimate": tab.estimate[j], "low": tab.ci_low[j],
                     "high": tab.ci_high[j], "truth": truth[name],
                     "labels": int(n_lab.get(name, 0)), "interval": tab.details.get("interval")}
                )  # fmt: skip
            if differences:
                d = cal.compare_groups(simultaneous=False, anytime=True, max_labels=max_labels)
                for j, (a, b) in enumerate(d.details["pairs"]):
                    rows.append(
                        {"sequence": r, "look": k, "kind": "difference", "group": d.names[j],
                         "estimate": d.estimate[j], "low": d.ci_low[j], "high": d.ci_high[j],
                         "truth": truth[a] - truth[b],
                         "labels": int(min(n_lab.get(a, 0), n_lab.get(b, 0))),
                         "interval": d.details.get("interval")}
                    )  # fmt: skip
        if (r + 1) % 10 == 0:
            print(f"{r + 1} sequences: {time.perf_counter() - start:.0f} s", flush=True)
    if refused:
        print(f"fits refused (look: sequences): {refused}")
    return pd.DataFrame(rows)


def summary(out: pd.DataFrame) -> str:
    """Per kind (group means, differences): the chance that some look misses, per group or
    pair and averaged (se over sequences), per look, and the last look's half-width."""
    lines = []
    for kind, part in out.groupby(out.get("kind", pd.Series("group", out.index)), sort=False):
        miss = (part["low"] > part["truth"]) | (part["high"] < part["truth"])
        some = miss.groupby([part["sequence"], part["group"]]).any()
        per = some.groupby(level="group").mean()
        by_seq = some.groupby(level="sequence").mean()
        last = part[part["look"] == part["look"].max()]
        answered = np.isfinite(part["low"]).groupby(part["look"]).mean()
        lines.append(
            f"{kind}: some look misses, mean over {per.size} {kind}s {some.mean():.3f} "
            f"(se {by_seq.std() / np.sqrt(by_seq.size):.3f}, {by_seq.size} sequences); worst "
            f"{per.idxmax()} {per.max():.3f}; share above 0.05: {(per > 0.05).mean():.2f}\n"
            f"  worst {kind}s: {per.nlargest(8).round(3).to_dict()}\n"
            f"  per look {miss.groupby(part['look']).mean().round(3).tolist()}; answered per "
            f"look {answered.round(2).tolist()}; last look's half-width "
            f"{((last['high'] - last['low']) / 2).mean():.4f}"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sequences", type=int)
    p.add_argument("looks", type=int, nargs="?", default=10)
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--table", choices=tuple(TABLES), default="trivia")
    p.add_argument("--differences", action="store_true", help="also every pairwise difference")
    p.add_argument("--design", choices=("uniform", "paired"), default="uniform")
    args = p.parse_args()
    warnings.filterwarnings("ignore")
    frame, judges = load(args.table, args.data)
    out = run(frame, judges, args.sequences, args.looks, args.table, args.differences, args.design)
    if args.out:
        out.to_csv(args.out.with_suffix(".csv"), index=False)
    print(summary(out))


if __name__ == "__main__":
    main()
