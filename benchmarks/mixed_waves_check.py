"""One look's intervals in a study whose waves mix draws of items and draws of prompts
(issue 41): each of ``--studies`` study folders draws waves by ``--schedule`` (``u``:
uniform, ``p``: paired on the prompts, ``a``: adaptive; one letter per wave of
``--wave`` items, or ``u80,p320,u100`` for sizes of their own; ``s``: stratified by
system), labels them with the
table's labels, and fits ``Calibrator(engine="freq")`` once at the end. Printed: the
studentised errors' sd and the share of 95% intervals that miss, for the systems'
separate means and the pool mean, and the pool mean's RMSE and mean se; the pool mean
twice, as loaded (each wave weighed by its precision where items and prompts mix:
``Inclusion.precision_weighted``) and by the union of the waves (``selected`` dropped).

Tables: the shipped SummEval sample (relevance, prompts the documents; default), or
WMT22 (``--table wmt22``: ``python -m benchmarks.comparison_data /tmp/mc_data``; its
first 250 source segments x 16 systems, 4 metrics as judges, prompts the segments), or
TriviaQA (``--table trivia``: 8 models' 0/1 verdicts on 400 questions, 9 judges).

``--no-inclusion`` drops the pool's prompt-level record (its variance then item by item,
the union of the waves' probabilities kept), to tell where the variance goes wrong.

``--in-memory`` (schedules of ``u`` and ``p`` waves) draws the same waves without study
folders, about 15 times faster: the study's seeds (wave 1 ``seed``, a later wave
``wave_seed(seed, wave)``), its prompt count (``prompts_for_budget``), its label type
(``guess_outcome``) and its inclusion record (the union of the waves, and the wave that
selected each item where items and prompts mix). ``--verify N`` runs the first ``N``
studies both ways and stops unless the estimates agree.

Usage::

    python -m benchmarks.mixed_waves_check --studies 100 --schedule upupupupup
    python -m benchmarks.mixed_waves_check --studies 200 --table wmt22 --schedule u80,p320,u100
    python -m benchmarks.mixed_waves_check --studies 600 --table trivia --schedule uuuupuuu \
        --wave 80 --in-memory
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.sampling.designs import uniform, wave_seed
from bacon_bayes.sampling.paired import design_inclusion, paired, prompts_for_budget
from bacon_bayes.scale import guess_outcome
from bacon_bayes.study import StudyConfig, create_study, import_labels, load_study
from bacon_bayes.study.waves import draw_wave

TABLE = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "summeval_sample.csv.gz"
WMT_JUDGES = ["COMETKiwi-src", "BLEURT-20-refA", "metricx_xxl_MQM_2020-refA", "chrF-refA"]
DESIGNS = {"u": ("uniform", {}), "p": ("paired", {}), "a": ("adaptive", {"engine": "freq"}),
           "s": ("stratified", {})}  # fmt: skip


def _table(name: str, data: str) -> tuple[pd.DataFrame, list[str], str, str]:
    """The table (column ``item`` and the label ``y``), its judges, group and prompt."""
    if name == "trivia":  # 3,200 answers of 8 models to 400 questions, 0/1 verdicts
        frame = pd.read_csv(Path(data) / "trivia.csv")
        return frame, list(frame.columns[:9]), "model", "question"
    if name == "wmt22":
        frame = pd.read_parquet(Path(data) / "wmt22.parquet")
        frame = frame[frame["seg_id"].isin(np.sort(frame["seg_id"].unique())[:250])]
        return frame.reset_index(drop=True), WMT_JUDGES, "system", "seg_id"
    frame = pd.read_csv(TABLE).rename(columns={"expert_mean_relevance": "y"})
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    return frame, judges, "system", "doc_id"


def _waves(schedule: str, wave: int) -> list[tuple[str, int]]:
    if "," in schedule or any(ch.isdigit() for ch in schedule):
        return [(w[0], int(w[1:])) for w in schedule.split(",")]
    return [(kind, wave) for kind in schedule]


def _study_pool(
    folder: Path, r: int, frame: pd.DataFrame, judges: list[str], group: str, prompt: str,
    waves: list[tuple[str, int]],
) -> EvalPool:  # fmt: skip
    """Study ``r`` drawn and labeled wave by wave in a study folder, as a pool."""
    root = folder / f"s{r}"
    ids, y = frame["item"].to_numpy(), frame["y"].to_numpy()
    config = StudyConfig(pool=str(folder / "pool.csv"), item="item", label="label",
                         judges=judges, outcome="continuous", group=group,
                         prompt=prompt)  # fmt: skip
    create_study(root, config)
    for k, (kind, size) in enumerate(waves, 1):
        design, options = DESIGNS[kind]
        options = {**options, "prompt": prompt} if kind == "p" else options
        options = {**options, "strata": group} if kind == "s" else options
        if kind == "a":
            options["max_ratio"] = np.inf
        chosen = draw_wave(root, design, size, seed=1000 * r + k, **options)[1].selected
        path = root / f"labels{k}.csv"
        chosen = chosen.astype(bool)
        pd.DataFrame({"item": ids[chosen], "label": y[chosen]}).to_csv(path, index=False)
        import_labels(root, path)
    pool = load_study(root).to_pool()
    shutil.rmtree(root)
    return pool


def _memory_pool(
    r: int, frame: pd.DataFrame, judges: list[str], group: str, prompt: str,
    waves: list[tuple[str, int]],
) -> EvalPool:  # fmt: skip
    """Study ``r``'s waves (``u`` and ``p`` only) drawn as :func:`_study_pool` draws them,
    without a folder."""
    y, prompts = frame["y"].to_numpy(float), frame[prompt].to_numpy()
    labeled, drawn = np.zeros(y.size, bool), []
    for k, (kind, size) in enumerate(waves, 1):
        seed = 1000 * r + k if k == 1 else wave_seed(1000 * r + k, k)
        if kind == "u":
            d = uniform(y.size, size, eligible=~labeled, seed=seed)
        elif kind == "p":
            n = prompts_for_budget(prompts, size, ~labeled)
            d = paired(prompts, n, eligible=~labeled, seed=seed)
        else:
            raise SystemExit("--in-memory draws u and p waves only")
        drawn.append(d)
        labeled |= d.selected.astype(bool)
    table = frame.assign(label=np.where(labeled, y, np.nan))
    pool = EvalPool.from_frame(table, judges=judges, label="label", group=group,
                               prompt=prompt, outcome=guess_outcome(table, "label"),
                               item="item")  # fmt: skip
    inc = design_inclusion(drawn)
    if inc.mixed:  # the wave that selected each item, as a study records it
        selected = np.full(y.size, -1)
        for w, d in enumerate(drawn):
            selected[d.selected.astype(bool)] = w
        inc = dataclasses.replace(inc, selected=selected)
    return dataclasses.replace(pool, inclusion=inc)


def run(
    studies: int, schedule: str, inclusion: bool = True, *, table: str = "summeval",
    data: str = "/tmp/mc_data", wave: int = 24, in_memory: bool = False, verify: int = 0,
) -> dict[str, float]:  # fmt: skip
    """The studentised errors of the systems' means and the pool mean over ``studies``."""
    frame, judges, group, prompt = _table(table, data)
    frame = frame.assign(item=[f"row{i}" for i in range(len(frame))])
    folder = Path(tempfile.mkdtemp(prefix="mixed_waves_"))
    frame[["item", group, prompt, *judges]].to_csv(folder / "pool.csv", index=False)
    truth, mean = frame.groupby(group)["y"].mean(), float(frame["y"].mean())
    groups: list[float] = []
    pool_err: dict[str, list[tuple[float, float]]] = {"precision": [], "union": []}
    waves = _waves(schedule, wave)
    for r in range(studies):
        if in_memory:
            pool = _memory_pool(r, frame, judges, group, prompt, waves)
        else:
            pool = _study_pool(folder, r, frame, judges, group, prompt, waves)
        if r < verify:
            other = _study_pool(folder, r, frame, judges, group, prompt, waves)
            a, b = (Calibrator(engine="freq", seed=r).fit(p).estimate_mean() for p in (pool, other))
            if not np.allclose([a.estimate, a.se], [b.estimate, b.se], rtol=1e-12, atol=0):
                raise SystemExit(
                    f"study {r}: in memory {a.estimate} ({a.se}), folder {b.estimate} ({b.se})"
                )
        if not inclusion:
            pool = dataclasses.replace(pool, inclusion=None)
        cal = Calibrator(engine="freq", seed=r).fit(pool)
        t = cal.estimate_groups(simultaneous=False, pooling="separate")
        groups += list((t.estimate - truth[list(t.names)].to_numpy()) / t.se)
        e = cal.estimate_mean()
        pool_err["precision"].append((e.estimate - mean, e.se))
        if pool.inclusion is not None and pool.inclusion.selected is not None:
            union = dataclasses.replace(pool.inclusion, selected=None)
            cal = Calibrator(engine="freq", seed=r).fit(dataclasses.replace(pool, inclusion=union))
            e = cal.estimate_mean()
        pool_err["union"].append((e.estimate - mean, e.se))
    shutil.rmtree(folder)
    g = np.array(groups)
    out = {"group_sd": float(np.nanstd(g)), "group_miss": float(np.nanmean(np.abs(g) > 1.96))}
    for name, rows in pool_err.items():
        err, se = np.array(rows).T
        z = err / se
        out |= {
            f"{name}_z_mean": float(z.mean()), f"{name}_sd": float(z.std()),
            f"{name}_miss": float(np.mean(np.abs(z) > 1.96)),
            f"{name}_rmse": float(np.sqrt(np.mean(err**2))), f"{name}_se": float(se.mean()),
        }  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=40)
    ap.add_argument("--schedule", default="upupupupup")
    ap.add_argument("--wave", type=int, default=24)
    ap.add_argument("--table", choices=("summeval", "wmt22", "trivia"), default="summeval")
    ap.add_argument("--data", default="/tmp/mc_data")
    ap.add_argument("--no-inclusion", action="store_true")
    ap.add_argument("--in-memory", action="store_true")
    ap.add_argument("--verify", type=int, default=0)
    args = ap.parse_args()
    out = run(args.studies, args.schedule, not args.no_inclusion, table=args.table,
              data=args.data, wave=args.wave, in_memory=args.in_memory,
              verify=args.verify)  # fmt: skip
    print(
        f"{args.table} {args.schedule} ({args.studies} studies"
        f"{', in memory' if args.in_memory else ''}"
        f"{', no inclusion' if args.no_inclusion else ''}): systems z sd {out['group_sd']:.2f},"
        f" miss {out['group_miss']:.3f}"
    )
    for name in ("precision", "union"):
        print(
            f"  pool mean, {name:9s}: z mean {out[name + '_z_mean']:+.2f} sd "
            f"{out[name + '_sd']:.2f}, miss {out[name + '_miss']:.3f}, RMSE "
            f"{out[name + '_rmse']:.4f}, mean se {out[name + '_se']:.4f}"
        )


if __name__ == "__main__":
    main()
