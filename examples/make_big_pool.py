"""Write a synthetic pool of any size as a Parquet dataset (a folder of files), for the
streaming benchmark and for trying ``bacon estimate`` on a pool larger than memory.

    python examples/make_big_pool.py /tmp/big_pool --items 10_000_000 --judges 8 \
        --groups 50 --labels 10_000

Each item has a true label ``y = group effect + N(0, 1)`` (group effects ``N(0, 0.5^2)``,
``--effect-sd 0``: all groups equal); judge ``j`` scores
``a_j + b_j * y + noise`` (its own bias, scale and noise; 1% of judge_0's scores are
missing); ``label`` holds ``y`` for a uniform random sample of ``--labels`` items (exactly
that many) and is empty elsewhere. Files hold ``--rows-per-file`` rows in row groups of
``--row-group`` rows; memory stays at about one file's worth. The true pool mean is
printed and written to ``TRUTH.json`` (not a data file: the reader skips it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def write_pool(
    out: Path,
    items: int,
    judges: int = 8,
    groups: int = 50,
    labels: int = 100_000,
    rows_per_file: int = 4_000_000,
    row_group: int = 1_000_000,
    seed: int = 0,
    effect_sd: float = 0.5,
) -> dict[str, float]:
    """Write the dataset; returns the true mean label of the pool and the label count.
    ``effect_sd``: sd of the groups' true effects (0: every group's mean is the same)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    effect = rng.normal(0.0, 0.5, groups) * (effect_sd / 0.5)
    offset = rng.normal(0.0, 0.5, judges)
    slope = rng.uniform(0.6, 1.4, judges)
    noise = rng.uniform(0.5, 1.5, judges)
    names = np.array([f"g{g:03d}" for g in range(groups)])
    n_files = -(-items // rows_per_file)
    sizes = [min(rows_per_file, items - k * rows_per_file) for k in range(n_files)]
    # exactly `labels` labeled items: a uniform sample, split over files by hypergeometry
    per_file = rng.multivariate_hypergeometric(np.array(sizes), labels)
    total = 0.0
    for k, (n, n_lab) in enumerate(zip(sizes, per_file, strict=True)):
        r = np.random.default_rng([seed, k])
        g = r.integers(0, groups, n)
        y = effect[g] + r.standard_normal(n)
        total += float(y.sum())
        cols: dict[str, pa.Array] = {
            "group": pa.DictionaryArray.from_arrays(pa.array(g, pa.int32()), pa.array(names))
        }
        for j in range(judges):
            s = (offset[j] + slope[j] * y + noise[j] * r.standard_normal(n)).astype(np.float32)
            mask = (r.random(n) < 0.01) if j == 0 else None
            cols[f"judge_{j}"] = pa.array(s, mask=mask)
        label = np.full(n, np.nan)
        pick = r.choice(n, size=int(n_lab), replace=False)
        label[pick] = y[pick]
        cols["label"] = pa.array(label, from_pandas=True)
        pq.write_table(pa.table(cols), out / f"part-{k:05d}.parquet", row_group_size=row_group)
    truth = {"mean": total / items, "items": items, "labels": int(labels)}
    (out / "TRUTH.json").write_text(json.dumps(truth))
    return truth


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path, help="folder to write (created)")
    p.add_argument("--items", type=lambda s: int(s.replace("_", "")), default=1_000_000)
    p.add_argument("--judges", type=int, default=8)
    p.add_argument("--groups", type=int, default=50)
    p.add_argument("--labels", type=lambda s: int(s.replace("_", "")), default=None)
    p.add_argument("--rows-per-file", type=int, default=4_000_000)
    p.add_argument("--row-group", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--effect-sd", type=float, default=0.5, help="sd of the group effects")
    a = p.parse_args()
    labels = a.labels if a.labels is not None else max(a.items // 1000, 10 * a.groups)
    truth = write_pool(
        a.out,
        a.items,
        a.judges,
        a.groups,
        labels,
        a.rows_per_file,
        a.row_group,
        a.seed,
        a.effect_sd,
    )
    print(f"wrote {a.items:,} items ({labels:,} labeled) to {a.out}; true mean {truth['mean']:.6f}")


if __name__ == "__main__":
    main()
