"""Conformal item intervals per system: held-out coverage of every group's items, with one
residual quantile for the pool (as before 2026-12-01) and with each group's scale
(:func:`bacon_bayes.items.group_scales`, today's ``item_scores``), on the same fits.

Per draw: a uniform sample of ``--labels`` items keeps its label, ``Calibrator(engine=
"freq")`` is fitted, and every unlabeled item's interval at ``--level`` is checked against
its hidden label. Both intervals come from the same fit: the pooled one is the split-
conformal quantile of the labeled items' absolute out-of-fold residuals around the same
surrogate, clipped to the same scale.

    PYTHONPATH=. python -m benchmarks.item_group_coverage --table summeval --labels 120 --draws 30
    PYTHONPATH=. python -m benchmarks.item_group_coverage --table wmt22 --labels 150 --draws 20 \\
        [--data /tmp/mc_data]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.items import conformal_quantile

SUMMEVAL = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "summeval_sample.csv.gz"
#: SummEval relevance judges (the example pool's six)
SUMMEVAL_JUDGES = (
    "judge:gpt-4-0314|rts|relevance",
    "judge:gpt-3.5-turbo-0301|rts|relevance",
    "judge:gpt-3.5-turbo-0301|mcq|relevance",
    "judge:llama-2-70b-chat-hf|rts|relevance",
    "judge:llama-2-13b-chat-hf|rts|relevance",
    "judge:llama-2-7b-chat-hf|rts|relevance",
)


def load(table: str, data: Path) -> tuple[pd.DataFrame, list[str], str, tuple[float, float]]:
    """The table (label ``y``, group ``system``, an ``item`` id), its judges, the outcome
    and the label's range."""
    if table == "summeval":
        d = pd.read_csv(SUMMEVAL).rename(columns={"expert_mean_relevance": "y"})
        judges = list(SUMMEVAL_JUDGES)
        return d[["item", "system", "y", *judges]], judges, "continuous", (1.0, 5.0)
    d = pd.read_parquet(data / "wmt22.parquet")  # benchmarks.comparison_data: y = MQM >= 0
    d["item"] = np.arange(len(d))
    judges = [c for c in d.columns if c not in ("system", "seg_id", "y", "item")]
    return d, judges, "nonnegative", (0.0, float(np.ceil(d["y"].max())))


def run(table: str, labels: int, draws: int, level: float, data: Path) -> pd.DataFrame:
    """Per group: held-out coverage and mean width of both intervals over the draws."""
    d, judges, outcome, scale = load(table, data)
    codes, names = pd.factorize(d["system"])
    y = d["y"].to_numpy(float)
    hit = {"pooled": np.zeros(names.size), "by group": np.zeros(names.size)}
    width = {"pooled": np.zeros(names.size), "by group": np.zeros(names.size)}
    count = np.zeros(names.size)
    for draw in range(draws):
        rng = np.random.default_rng(1000 + draw)
        lab = np.zeros(len(d), dtype=bool)
        lab[rng.choice(len(d), labels, replace=False)] = True
        frame = d.copy()
        frame.loc[~lab, "y"] = np.nan
        pool = EvalPool.from_frame(
            frame, label="y", judges=judges, outcome=outcome, group="system", item="item"
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cal = Calibrator(engine="freq", seed=draw, scale=scale).fit(pool)
        f = cal.surrogate_
        q = conformal_quantile(np.abs(y[lab] - f[lab]), level)[0]
        items = cal.item_scores(level)
        ends = {
            "pooled": (np.clip(f - q, *scale), np.clip(f + q, *scale)),
            "by group": (items["lower"].to_numpy(), items["upper"].to_numpy()),
        }
        held = ~lab
        count += np.bincount(codes[held], minlength=names.size)
        for name, (lo, hi) in ends.items():
            covered = (y >= lo) & (y <= hi)
            hit[name] += np.bincount(codes[held], weights=covered[held], minlength=names.size)
            width[name] += np.bincount(codes[held], weights=(hi - lo)[held], minlength=names.size)
    rows = {"group": names}
    for name in hit:
        rows[f"coverage ({name})"] = hit[name] / count
        rows[f"width ({name})"] = width[name] / count
    out = pd.DataFrame(rows)
    total = {"group": "(all items)"}
    for name in hit:
        total[f"coverage ({name})"] = hit[name].sum() / count.sum()
        total[f"width ({name})"] = width[name].sum() / count.sum()
    return pd.concat([out, pd.DataFrame([total])], ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=("summeval", "wmt22"), default="summeval")
    parser.add_argument("--labels", type=int, default=120)
    parser.add_argument("--draws", type=int, default=30)
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    args = parser.parse_args()
    out = run(args.table, args.labels, args.draws, args.level, args.data)
    print("| " + " | ".join(out.columns) + " |")
    print("|" + "---|" * len(out.columns))
    for row in out.itertuples(index=False):
        cells = [row[0], *(f"{v:.3f}" for v in row[1:])]
        print("| " + " | ".join(map(str, cells)) + " |")
    groups = out.iloc[:-1]
    for name in ("pooled", "by group"):
        col = groups[f"coverage ({name})"]
        print(
            f"{name}: all items {out.iloc[-1][f'coverage ({name})']:.3f}, lowest group "
            f"{col.min():.3f} ({groups['group'][col.idxmin()]}), highest {col.max():.3f}, "
            f"sd over groups {col.std(ddof=0):.3f}"
        )


if __name__ == "__main__":
    main()
