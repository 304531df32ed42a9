"""The package's own anytime group means on TriviaQA, WMT22 (issue 41; WMT22: the
harness's 150 segments x 16 systems) or SummEval relevance (the shipped sample, 12
systems, the judges' relevance scores): ``Calibrator(engine="freq")``
``estimate_groups(simultaneous=False, anytime=True, max_labels)`` at every look of nested
uniform waves up to 20% (a fit per look, so a few hundred sequences at most), per model the
chance that some look's interval misses the model's full-label mean; the pool mean's too
(``estimate_mean(anytime=True, max_labels)``, kind "pool mean"). ``--differences``:
also every pairwise difference (``compare_groups(simultaneous=False, anytime=True)``).
``--design paired``: each wave draws prompts (SummEval's documents, WMT22's segments,
TriviaQA's questions) uniformly and labels every item of them (the pool gets ``prompt=``
and the prompts' inclusion probabilities, so variances are clustered by prompt).
``--design mixed``: a study folder as for adaptive, its waves uniform with every other one
paired on the table's prompts (waves that label single items and waves that label whole
prompts in one study: the anytime information's finite-population correction is the
items'). ``--design adaptive``: each sequence is a study folder (:mod:`bacon_bayes.study`, in a
temporary directory): a uniform first wave, then ``bacon sample STUDY --design adaptive``
waves (:func:`bacon_bayes.study.draw_wave`: the study's cross-fitted ridge on the judges,
the heteroskedastic sd model of its residuals on the earlier waves' labels, Poisson draws
``min(1, c ((1 - s) sd / mean(sd) + s))`` with the expected new labels the wave's budget),
each wave's labels imported (:func:`bacon_bayes.study.import_labels`) and every look
estimated from ``load_study(STUDY).to_pool()``: the wave-by-wave inclusion probabilities
of :func:`bacon_bayes.inclusion.sequential_propensity` and the label waves a study passes.
A wave's budget is what is left of the 20% over the waves left (rounded; its expected
labels, fixed before the draw), so the Poisson total stays near 20%; ``max_labels`` is that
20% times ``1 + --margin`` (a total past it would refuse the alpha-spending plan; counted).
``--max-ratio`` is the wave's ``max_ratio`` option (default ``inf``: always follow the sd
once the labels suffice, as the harness's adaptive waves; the package's default 0.95 steps
back to uniform waves where the sd model predicts no gain). ``--uniform-share`` is the
waves' ``uniform_share`` (default the package's: 0.5 on these studies, which have groups;
each item's probability is at least that share of a uniform wave's, so no weight is more
than twice a uniform one; the figures before 2026-11-29's change were at 0.2).

    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_package_check SEQUENCES [LOOKS]
        [--data /tmp/mc_data] [--out stem] [--table trivia|wmt22|summeval]
        [--differences] [--design uniform|paired|adaptive|mixed] [--max-ratio inf]
        [--margin 0.1]
        [--uniform-share S]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.errors import ValidationError
from bacon_bayes.study import StudyConfig, create_study, draw_wave, import_labels, load_study
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


def _fixed_looks(
    frame: pd.DataFrame, judges: list[str], looks: int, kw: dict, prompt: str | None, r: int
) -> Iterator[tuple[int, EvalPool, np.ndarray, int]]:
    """Each look's pool, labeled rows and ``max_labels`` (the last look's labels) of one
    sequence of nested uniform (or paired) waves."""
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
        yield k, pool, lab, max_labels


def _study_looks(
    frame: pd.DataFrame, judges: list[str], looks: int, kw: dict, r: int, folder: Path,
    adaptive: dict[str, float], waves: dict[str, int], margin: float, mixed: str | None = None,
) -> Iterator[tuple[int, EvalPool, np.ndarray, int]]:  # fmt: skip
    """Each look's pool (as the study folder gives it), labeled rows and ``max_labels`` of
    one sequence of a study: a uniform first wave, then adaptive waves (``adaptive``: their
    options), or (``mixed``: the prompt column) uniform waves with every other one paired;
    ``waves`` counts the designs drawn."""
    root = folder / f"s{r}"
    root.mkdir()
    config = StudyConfig(
        pool=str(folder / "pool.csv"), item="item", label="label", judges=list(judges),
        outcome=kw["outcome"], levels=None if "levels" not in kw else list(kw["levels"]),
        group=kw["group"],
    )  # fmt: skip
    create_study(root, config)
    total, used = round(0.2 * len(frame)), 0
    max_labels = int(np.ceil((1 + margin) * total))
    ids = frame["item"].to_numpy()
    for k in range(1, looks + 1):
        budget = max(1, round((total - used) / (looks - k + 1)))  # whole, fixed before the draw
        if mixed is not None:  # uniform waves, every other one paired on the prompts
            design, options = ("paired", {"prompt": mixed}) if k % 2 == 0 else ("uniform", {})
        else:
            design, options = ("uniform", {}) if k == 1 else ("adaptive", adaptive)
        _, drawn = draw_wave(root, design, budget, seed=1000 * r + k, **options)
        waves[drawn.name] = waves.get(drawn.name, 0) + 1
        chosen = drawn.selected.astype(bool)
        used += int(chosen.sum())
        path = root / f"labels_{k}.csv"
        pd.DataFrame({"item": ids[chosen], "label": frame["y"].to_numpy()[chosen]}).to_csv(
            path, index=False
        )
        import_labels(root, path)
        data = load_study(root)
        yield k, data.to_pool(), np.isfinite(data.frame["label"].to_numpy(dtype=float)), max_labels
    shutil.rmtree(root)


def run(
    frame: pd.DataFrame, judges: list[str], sequences: int, looks: int, table: str = "trivia",
    differences: bool = False, design: str = "uniform", max_ratio: float = np.inf,
    margin: float = 0.1, uniform_share: float | None = None,
) -> pd.DataFrame:  # fmt: skip
    """One row per sequence, look and model (and pair, ``kind`` "difference"): estimate,
    interval, truth, labels."""
    kw = dict(TABLES[table][2])
    prompt = PROMPTS[table] if design == "paired" else None
    truth = frame.groupby(kw["group"])["y"].mean()
    rows, start = [], time.perf_counter()
    refused: dict[int, int] = {}
    waves: dict[str, int] = {}
    folder = Path(tempfile.mkdtemp(prefix="anytime_study_"))
    adaptive = {"max_ratio": max_ratio}
    if uniform_share is not None:
        adaptive["uniform_share"] = uniform_share
    mixed = PROMPTS[table] if design == "mixed" else None
    if design in ("adaptive", "mixed"):  # the study folders' pool file (labels by import)
        if "item" not in frame.columns:
            frame = frame.assign(item=[f"row{i}" for i in range(len(frame))])
        cols = ["item", kw["group"], *judges] + ([mixed] if mixed else [])
        frame[cols].to_csv(folder / "pool.csv", index=False)
    for r in range(sequences):
        sequence = (
            _study_looks(frame, judges, looks, kw, r, folder, adaptive, waves, margin, mixed)
            if design in ("adaptive", "mixed")
            else _fixed_looks(frame, judges, looks, kw, prompt, r)
        )
        max_labels = 0
        for k, pool, lab, max_labels in sequence:
            try:
                cal = Calibrator(engine="freq", seed=r).fit(pool)
                tab = cal.estimate_groups(simultaneous=False, anytime=True, max_labels=max_labels)
            except ValidationError:  # fewer labeled prompts than folds, labels past max_labels
                refused[k] = refused.get(k, 0) + 1
                continue
            n_lab = frame.loc[lab, kw["group"]].value_counts()
            e = cal.estimate_mean(anytime=True, max_labels=max_labels)
            rows.append(
                {"sequence": r, "look": k, "kind": "pool mean", "group": "(pool)",
                 "estimate": e.estimate, "low": e.ci_low, "high": e.ci_high,
                 "truth": float(frame["y"].mean()), "labels": int(lab.sum()),
                 "interval": e.details.get("interval"), "total": int(lab.sum())}
            )  # fmt: skip
            for j, name in enumerate(tab.names):
                rows.append(
                    {"sequence": r, "look": k, "kind": "group", "group": name,
                     "estimate": tab.estimate[j], "low": tab.ci_low[j],
                     "high": tab.ci_high[j], "truth": truth[name],
                     "labels": int(n_lab.get(name, 0)), "interval": tab.details.get("interval"),
                     "total": int(lab.sum())}
                )  # fmt: skip
            if differences:
                d = cal.compare_groups(simultaneous=False, anytime=True, max_labels=max_labels)
                for j, (a, b) in enumerate(d.details["pairs"]):
                    rows.append(
                        {"sequence": r, "look": k, "kind": "difference", "group": d.names[j],
                         "estimate": d.estimate[j], "low": d.ci_low[j], "high": d.ci_high[j],
                         "truth": truth[a] - truth[b],
                         "labels": int(min(n_lab.get(a, 0), n_lab.get(b, 0))),
                         "interval": d.details.get("interval"), "total": int(lab.sum())}
                    )  # fmt: skip
        if (r + 1) % 10 == 0:
            print(f"{r + 1} sequences: {time.perf_counter() - start:.0f} s", flush=True)
    shutil.rmtree(folder)
    if refused:
        print(f"fits refused (look: sequences): {refused}")
    if waves:
        print(f"waves drawn per design: {waves}; max_labels {max_labels}")
    return pd.DataFrame(rows)


def _noise(rate: float, sequences: int, count: int) -> tuple[float, float]:
    """What Monte Carlo noise alone gives ``count`` groups (or pairs) that each miss at
    ``rate`` over ``sequences``: the expected share above 0.05, and the median of the worst
    one (binomial; independent groups, so a little less spread than correlated pairs)."""
    above = float(stats.binom.sf(np.floor(0.05 * sequences), sequences, rate))
    worst = stats.binom.ppf(0.5 ** (1.0 / count), sequences, rate) / sequences
    return above, float(worst)


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
        noise = _noise(some.mean(), by_seq.size, per.size)
        lines.append(
            f"{kind}: some look misses, mean over {per.size} {kind}s {some.mean():.3f} "
            f"(se {by_seq.std() / np.sqrt(by_seq.size):.3f}, {by_seq.size} sequences); worst "
            f"{per.idxmax()} {per.max():.3f}; share above 0.05: {(per > 0.05).mean():.2f}"
            f" (if every one missed at the mean: {noise[0]:.2f}, worst {noise[1]:.3f})\n"
            f"  worst {kind}s: {per.nlargest(8).round(3).to_dict()}\n"
            f"  per look {miss.groupby(part['look']).mean().round(3).tolist()}; answered per "
            f"look {answered.round(2).tolist()}; last look's half-width "
            f"{((last['high'] - last['low']) / 2).mean():.4f}"
            + (
                f"; last look's labels {last['total'].mean():.1f} (range {last['total'].min()}"
                f"-{last['total'].max()})"
                if "total" in last
                else ""
            )
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
    p.add_argument(
        "--design", choices=("uniform", "paired", "adaptive", "mixed"), default="uniform"
    )
    p.add_argument("--max-ratio", type=float, default=np.inf, help="adaptive waves' max_ratio")
    p.add_argument(
        "--uniform-share", type=float, default=None, help="adaptive waves' uniform_share"
    )
    p.add_argument("--margin", type=float, default=0.1, help="max_labels over 20%% (adaptive)")
    args = p.parse_args()
    warnings.filterwarnings("ignore")
    frame, judges = load(args.table, args.data)
    out = run(
        frame,
        judges,
        args.sequences,
        args.looks,
        args.table,
        args.differences,
        args.design,
        args.max_ratio,
        args.margin,
        args.uniform_share,
    )
    if args.out:
        out.to_csv(args.out.with_suffix(".csv"), index=False)
    print(summary(out))


if __name__ == "__main__":
    main()
