"""The fixed 95% pool-mean interval of ``Calibrator(engine="freq")`` on TriviaQA at a
large sampling fraction (800 of the 3,200 answers, 25%), against the same draws' AEE with
the surrogate held fixed at the model fitted on every label (``f*``: its finite-population
variance ``(1 - n/N) S^2 / n`` is then exact) and the labels-only mean. A uniform study of
8 waves of 100 is the same draw (its waves' union probabilities are 0.25 for every item,
and its estimate equals the plain pool's), so one draw of ``n`` stands for it.

    PYTHONPATH=. python -m benchmarks.pool_mean_fpc_check DRAWS [--labels 800]
        [--first 0] [--data /tmp/mc_data] [--out draws.jsonl]

``--data``: the folder ``python -m benchmarks.comparison_data`` wrote (``trivia.csv``).
Draw ``s`` is ``numpy.random.default_rng(10000 + s).permutation(N)[:labels]``.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes import estimate as est
from bacon_bayes.outcome.multinomial import MultinomialOutcome
from benchmarks.small_budget import TRIVIA_JUDGES


def draw(table: pd.DataFrame, s: int, n: int) -> tuple[Calibrator, np.ndarray]:
    """The calibrator fitted on draw ``s`` of ``n`` labels, and its labels (NaN elsewhere)."""
    y = np.full(len(table), np.nan)
    sel = np.random.default_rng(10000 + s).permutation(len(table))[:n]
    y[sel] = table["y"].to_numpy(float)[sel]
    frame = table.drop(columns=["y"]).assign(lab=y)
    pool = EvalPool.from_frame(
        frame, label="lab", judges=list(TRIVIA_JUDGES), outcome="categorical",
        levels=[0, 1], group="model", item="id",
    )  # fmt: skip
    return Calibrator(None, engine="freq").fit(pool), y


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("draws", type=int)
    p.add_argument("--labels", type=int, default=800)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--out", type=Path)
    a = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    table = pd.read_csv(a.data / "trivia.csv")
    table.insert(0, "id", [f"t{i:04d}" for i in range(len(table))])
    y_all = table["y"].to_numpy(float)
    truth, n_items = float(y_all.mean()), len(table)
    f_star: np.ndarray | None = None
    rows = []
    for s in range(a.first, a.first + a.draws):
        cal, y = draw(table, s, a.labels)
        if f_star is None:
            X = cal.features_.X
            f_star = MultinomialOutcome().fit(X, y_all).predict_proba(X)[:, 1]
        row = {"s": s}
        for name, e in (
            ("package", cal.estimate_mean(0.05)),
            ("fixed_f", est.aee_mean(y, f_star)),
            ("labels", est.classical_mean(y)),
        ):
            row[name] = [e.estimate, e.se, e.ci_low, e.ci_high]
        rows.append(row)
    if a.out:
        a.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert f_star is not None
    r = y_all - f_star
    exact = np.sqrt((1 - a.labels / n_items) * r.var(ddof=1) / a.labels)
    print(f"{len(rows)} draws of {a.labels} of {n_items}; exact sd with f fixed: {exact:.5f}")
    for name in ("package", "fixed_f", "labels"):
        v = np.array([row[name] for row in rows])
        cover = float(np.mean((v[:, 2] <= truth) & (truth <= v[:, 3])))
        se_cov = np.sqrt(cover * (1 - cover) / len(v))
        print(
            f"{name:8s} cover {cover:.3f} ({se_cov:.3f})  bias {v[:, 0].mean() - truth:+.5f}  "
            f"sd {v[:, 0].std(ddof=1):.5f}  rms se {np.sqrt((v[:, 1] ** 2).mean()):.5f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
