"""One look's intervals in a study whose waves mix draws of items and draws of prompts
(issue 41): each of ``--studies`` study folders on the shipped SummEval sample (relevance)
draws waves of 24 items by ``--schedule`` (``u``: uniform, ``p``: paired on the
documents), labels them with the experts' mean, and fits ``Calibrator(engine="freq")``
once at the end. Printed: the studentised errors' sd and the share of 95% intervals that
miss, for the systems' separate means and the pool mean.

``--no-inclusion`` drops the pool's prompt-level record (its variance then item by item,
the union of the waves' probabilities kept), to tell where the variance goes wrong.

Usage::

    python -m benchmarks.mixed_waves_check --studies 40 --schedule uuuuuuuuuu
    python -m benchmarks.mixed_waves_check --studies 40 --schedule upupupupup
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator
from bacon_bayes.study import StudyConfig, create_study, import_labels, load_study
from bacon_bayes.study.waves import draw_wave

TABLE = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "summeval_sample.csv.gz"
PROMPT, GROUP, LABEL = "doc_id", "system", "expert_mean_relevance"


def run(studies: int, schedule: str, inclusion: bool = True) -> dict[str, float]:
    """The studentised errors of the systems' means and the pool mean over ``studies``."""
    frame = pd.read_csv(TABLE)
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    frame = frame.assign(item=[f"row{i}" for i in range(len(frame))])
    folder = Path(tempfile.mkdtemp(prefix="mixed_waves_"))
    frame[["item", GROUP, PROMPT, *judges]].to_csv(folder / "pool.csv", index=False)
    truth, mean = frame.groupby(GROUP)[LABEL].mean(), float(frame[LABEL].mean())
    ids, y = frame["item"].to_numpy(), frame[LABEL].to_numpy()
    groups, pool_z = [], []
    for r in range(studies):
        root = folder / f"s{r}"
        config = StudyConfig(pool=str(folder / "pool.csv"), item="item", label="label",
                             judges=judges, outcome="continuous", group=GROUP)  # fmt: skip
        create_study(root, config)
        for k, kind in enumerate(schedule, 1):
            design, options = ("paired", {"prompt": PROMPT}) if kind == "p" else ("uniform", {})
            chosen = draw_wave(root, design, 24, seed=1000 * r + k, **options)[1].selected
            path = root / f"labels{k}.csv"
            chosen = chosen.astype(bool)
            pd.DataFrame({"item": ids[chosen], "label": y[chosen]}).to_csv(path, index=False)
            import_labels(root, path)
        pool = load_study(root).to_pool()
        if not inclusion:
            pool = dataclasses.replace(pool, inclusion=None)
        cal = Calibrator(engine="freq", seed=r).fit(pool)
        t = cal.estimate_groups(simultaneous=False, pooling="separate")
        groups += list((t.estimate - truth[list(t.names)].to_numpy()) / t.se)
        e = cal.estimate_mean()
        pool_z.append((e.estimate - mean) / e.se)
        shutil.rmtree(root)
    shutil.rmtree(folder)
    g, p = np.array(groups), np.array(pool_z)
    return {
        "group_sd": float(np.nanstd(g)),
        "group_miss": float(np.nanmean(np.abs(g) > 1.96)),
        "pool_mean_z": float(p.mean()),
        "pool_sd": float(p.std()),
        "pool_miss": float(np.mean(np.abs(p) > 1.96)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=40)
    ap.add_argument("--schedule", default="upupupupup")
    ap.add_argument("--no-inclusion", action="store_true")
    args = ap.parse_args()
    out = run(args.studies, args.schedule, not args.no_inclusion)
    print(
        f"{args.schedule} ({args.studies} studies{', no inclusion' if args.no_inclusion else ''}):"
        f" systems z sd {out['group_sd']:.2f}, miss {out['group_miss']:.3f} | pool mean z "
        f"mean {out['pool_mean_z']:+.2f} sd {out['pool_sd']:.2f}, miss {out['pool_miss']:.3f}"
    )


if __name__ == "__main__":
    main()
