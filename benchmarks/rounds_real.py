"""The next round on real data: a calibrator saved on half of the systems, applied to the
other half as the new release with 5% fresh labels (issue 34).

    PYTHONPATH=. .venv/bin/python -m benchmarks.comparison_data /tmp/data
    PYTHONPATH=. .venv/bin/python -m benchmarks.rounds_real [--draws 200] [--data /tmp/data]
        [--only summeval,trivia,wmt22] [--bayes]

For each table (SummEval relevance, shipped; TriviaQA and WMT22 zh-en from
``benchmarks.comparison_data``, skipped with a message when absent) the systems (models)
are split in two halves by a seeded permutation. The old round is the first half with a
uniform share of its labels (SummEval and TriviaQA 20%, WMT22 10%: a labeled earlier round
of realistic size); its calibrator (frequentist engine) is fitted once. The new release is
the other half, every label known (the truth is its mean). Each draw labels 5% of the new
release uniformly and estimates its mean three ways:

* ``frozen``: ``old.apply(pool).estimate_mean()`` (the saved calibrator's surrogate);
* ``fresh``: ``Calibrator(...).fit(pool).estimate_mean()`` (the fresh labels alone);
* ``refit``: ``old.apply(pool, refit=True).estimate_mean()`` (old and new labels);

and the transport check's overall verdict (``transport_check``, default tolerance).
Printed: RMSE, mean width, bias and coverage with its 99.9% binomial band per method,
the verdict tally and the true residual mean of the old surrogate on the new release.
``--bayes`` adds SummEval with the Bayesian engine, the frozen surrogate only (its old
round fitted once; a refit or a fresh Bayesian fit per draw is too slow for 200 draws).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator
from bacon_bayes.demo import load_summeval
from bacon_bayes.pool import EvalPool
from bacon_bayes.simulation.rounds import RoundCoverage
from bacon_bayes.transport import transport_check

FRESH_SHARE = 0.05


@dataclass
class Table:
    """A table with the columns its pool needs and its calibrator's settings."""

    name: str
    df: pd.DataFrame
    label: str
    judges: list[str]
    group: str
    old_share: float
    outcome: str = "continuous"
    levels: tuple[float, ...] | None = None
    cal_kw: dict[str, Any] = field(default_factory=dict)


def summeval(_: Path) -> Table | None:
    df = load_summeval()
    judges = [c for c in df.columns if c.startswith("judge:") and c.endswith("|relevance")]
    return Table(
        "SummEval relevance",
        df,
        "expert_mean_relevance",
        judges,
        "system",
        0.2,
        cal_kw={"scale": (1.0, 5.0)},
    )


def trivia(data: Path) -> Table | None:
    path = data / "trivia.csv"
    if not path.is_file():
        return None
    df = pd.read_csv(path)
    judges = [c for c in df.columns if c not in ("y", "model", "question")]
    return Table("TriviaQA", df, "y", judges, "model", 0.2, "categorical", (0.0, 1.0))


def wmt22(data: Path) -> Table | None:
    path = data / "wmt22.parquet"
    if not path.is_file():
        return None
    df = pd.read_parquet(path)
    judges = [c for c in df.columns if c not in ("y", "system", "seg_id")]
    return Table("WMT22 zh-en (-MQM)", df, "y", judges, "system", 0.1)


TABLES: dict[str, Callable[[Path], Table | None]] = {
    "summeval": summeval,
    "trivia": trivia,
    "wmt22": wmt22,
}


def _pool(t: Table, df: pd.DataFrame, y: np.ndarray) -> EvalPool:
    frame = df[[*t.judges, t.group]].copy()
    frame["label"] = y
    return EvalPool.from_frame(
        frame.reset_index(drop=True),
        label="label",
        judges=t.judges,
        outcome=t.outcome,
        levels=t.levels,
        group=t.group,
    )


def run(
    t: Table,
    draws: int,
    seed: int = 0,
    engine: str = "freq",
    methods: tuple[str, ...] = ("frozen", "refit", "fresh"),
) -> tuple[list[RoundCoverage], dict[str, Any]]:
    """The rounds of one table; coverage rows per method and a summary of the check."""
    rng = np.random.default_rng(seed)
    systems = np.array(sorted(t.df[t.group].astype(str).unique()))
    systems = systems[rng.permutation(systems.size)]
    old_sys, new_sys = sorted(systems[: systems.size // 2]), sorted(systems[systems.size // 2 :])
    is_old = t.df[t.group].astype(str).isin(old_sys).to_numpy()
    old_df, new_df = t.df[is_old], t.df[~is_old]
    y_old = old_df[t.label].to_numpy(dtype=float)
    keep = rng.random(y_old.size) < t.old_share
    kw = {"engine": engine, "seed": seed, **t.cal_kw}
    start = time.time()
    cal = Calibrator(**kw).fit(_pool(t, old_df, np.where(keep, y_old, np.nan)))
    fit_s = time.time() - start
    y_new = new_df[t.label].to_numpy(dtype=float)
    truth = float(y_new.mean())
    base = _pool(t, new_df, np.full(y_new.size, np.nan))
    n_fresh = round(FRESH_SHARE * y_new.size)
    # the old surrogate's true residual mean on the new release (every label known)
    f_new = cal.apply(base.with_labels(list(base.ids), list(y_new))).surrogate_
    delta = float(np.mean(y_new - f_new))
    groups = new_df[t.group].astype(str).to_numpy()
    delta_g = {g: float(np.mean((y_new - f_new)[groups == g])) for g in new_sys}
    out: dict[str, list] = {m: [] for m in methods}
    verdicts: Counter[str] = Counter()
    group_drift: Counter[str] = Counter()
    first = None
    start = time.time()
    for d in range(draws):
        idx = rng.choice(y_new.size, n_fresh, replace=False)
        pool = base.with_labels(list(base.ids[idx]), list(y_new[idx]))
        frozen = cal.apply(pool)
        out["frozen"].append(frozen.estimate_mean())
        table, tol = transport_check(frozen)
        verdicts[table["verdict"].iloc[0]] += 1
        for g, v in zip(table["group"].iloc[1:], table["verdict"].iloc[1:], strict=True):
            group_drift[g] += v == "drifted"
        if first is None:
            first = table
        if "refit" in out:
            out["refit"].append(cal.apply(pool, refit=True).estimate_mean())
        if "fresh" in out:
            out["fresh"].append(Calibrator(**kw).fit(pool).estimate_mean())
        if (d + 1) % 50 == 0:
            print(f"  {t.name}: {d + 1}/{draws} draws, {time.time() - start:.0f} s", flush=True)
    rows = []
    for m, es in out.items():
        e = np.array([x.estimate for x in es])
        lo = np.array([x.ci_low for x in es])
        hi = np.array([x.ci_high for x in es])
        err = e - truth
        c = RoundCoverage(
            t.name,
            f"mean ({engine})",
            m,
            0.05,
            draws,
            float(np.mean((lo <= truth) & (truth <= hi))),
            float(np.mean(hi - lo)),
            float(err.mean()),
            float(err.std(ddof=1) / np.sqrt(draws)),
            n=n_fresh,
            rmse=float(np.sqrt(np.mean(err**2))),
        )
        rows.append(c)
    info = {
        "old": old_sys,
        "new": new_sys,
        "old_labels": int(keep.sum()),
        "old_items": int(y_old.size),
        "new_items": int(y_new.size),
        "fresh": n_fresh,
        "truth": truth,
        "delta": delta,
        "delta_groups": delta_g,
        "tolerance": tol,
        "verdicts": dict(verdicts),
        "group_drifted": {g: group_drift[g] / draws for g in new_sys},
        "first_check": first,
        "fit_seconds": fit_s,
    }
    return rows, info


def table_markdown(rows: list[tuple[RoundCoverage, dict[str, Any]]]) -> str:
    lines = [
        "| data | old round (labels / items) | new release (fresh / items) | method | draws "
        "| RMSE | mean width | bias | coverage | band | ok |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c, info in rows:
        lo, hi = c.band()
        lines.append(
            f"| {c.regime} | {info['old_labels']} / {info['old_items']} "
            f"| {info['fresh']} / {info['new_items']} | {c.method} ({c.estimand[6:-1]}) "
            f"| {c.reps} | {c.rmse:.4f} | {c.mean_width:.4f} "
            f"| {c.bias:+.4f} | {c.coverage:.3f} | {lo:.3f}-{hi:.3f} "
            f"| {'yes' if c.in_band else 'NO'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--data", type=Path, default=Path("/tmp/data"))
    parser.add_argument("--only", default=",".join(TABLES))
    parser.add_argument("--bayes", action="store_true", help="add SummEval, Bayesian engine")
    args = parser.parse_args(argv)
    results: list[tuple[RoundCoverage, dict[str, Any]]] = []
    every = ("frozen", "refit", "fresh")
    runs: list[tuple[str, str, tuple[str, ...]]] = [
        (n, "freq", every) for n in args.only.split(",") if n
    ]
    if args.bayes:  # one Bayesian fit: the frozen surrogate only
        runs.append(("summeval", "bayes", ("frozen",)))
    for name, engine, methods in runs:
        table = TABLES[name](args.data)
        if table is None:
            print(
                f"skipped {name}: {args.data} has no table for it (write it with "
                f"`python -m benchmarks.comparison_data {args.data}`; needs shared/data)"
            )
            continue
        start = time.time()
        rows, info = run(table, args.draws, engine=engine, methods=methods)
        results += [(c, info) for c in rows]
        print(f"\n## {table.name} ({engine}): {time.time() - start:.0f} s")
        print(f"old systems: {', '.join(info['old'])}; new release: {', '.join(info['new'])}")
        print(
            f"truth {info['truth']:.4f}; the old surrogate's true residual mean on the new "
            f"release {info['delta']:+.4f} (tolerance {info['tolerance']:.4f}); per system: "
            + ", ".join(f"{g} {d:+.3f}" for g, d in info["delta_groups"].items())
        )
        print(f"overall transport verdicts over {args.draws} draws: {info['verdicts']}")
        print(
            "share of draws with a system flagged drifted: "
            + ", ".join(f"{g} {r:.2f}" for g, r in info["group_drifted"].items())
        )
        print("the first draw's check:")
        print(info["first_check"].to_string(index=False))
        print(table_markdown([(c, info) for c in rows]), flush=True)
    print("\n" + table_markdown(results))


if __name__ == "__main__":
    main()
