"""Bradley-Terry strengths on arena_ppr (issue 44): AEE with the calibrator's cross-fitted
surrogate against the human labels alone, on the same label draws.

    python -m benchmarks.bt_arena --draws 30 --labels 1000

Per draw: ``--labels`` rows keep their human vote (uniform without replacement), the
calibrator (engine ``freq``, the ordinal model of the three judges' verdicts) is fitted,
and the AEE and the labels-alone strengths are compared with the full-data target (the
Bradley-Terry fit on all 26,919 human votes). ``--models``: also the surrogate with the
model identities as extra covariates (+1 for model A, -1 for model B, passed as the
pool's embedding), and an in-sample oracle (linear fit of the vote on the 27 judge-verdict
cells with / without the identities, fitted on all rows: the most any surrogate of these
inputs could give), and the oracle on top of the pair's full-data Bradley-Terry chance
(``p_ab + E[y - p_ab | cell]``). ``--engines freq,bayes``: the calibrator's surrogate from
each engine on the same draws (the Bayesian engine with a fixed seed, so its judge stage,
which does not read the labels, is sampled once and reused), with each fit's time;
``bayes-gaussian``: the Bayesian engine with ``model="ordinal"`` (the Gaussian measurement
model of the verdicts, in place of the pairwise judge model it picks on comparisons).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.estimate.bradley_terry import bradley_terry, bradley_terry_fit
from bacon_bayes.pool import EvalPool

DATA = Path("/work/shared/data/arena_ppr/arena_ppr.csv.gz")
JUDGES = ["judge_gpt4_0125_label", "judge_claude3_opus_label", "judge_gpt35_turbo_label"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=30)
    ap.add_argument("--labels", type=int, default=1000)
    ap.add_argument("--models", action="store_true")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--engines", default="freq", help="comma-separated: freq, bayes, bayes-gaussian"
    )
    args = ap.parse_args()
    df = pd.read_csv(DATA)
    base = EvalPool.from_pairs(
        df, model_a="model_a", model_b="model_b", label="human_label", judges=JUDGES
    )
    pairs = base.pairs
    assert pairs is not None
    a, b, m = pairs.a, pairs.b, pairs.n_models
    y_all = base.y.copy()
    full = bradley_terry_fit(a, b, y_all, m)
    ident = np.zeros((a.size, m))
    ident[np.arange(a.size), a], ident[np.arange(a.size), b] = 1.0, -1.0
    oracles: dict[str, np.ndarray] = {}
    if args.models:
        cells = pd.get_dummies(df[JUDGES].astype(str).agg("|".join, axis=1)).to_numpy(float)
        both = np.hstack([cells, ident])
        for name, x in (("oracle: judge cells", cells), ("oracle: cells + models", both)):
            coef = np.linalg.lstsq(np.column_stack([np.ones(a.size), x]), y_all, rcond=None)[0]
            oracles[name] = np.clip(np.column_stack([np.ones(a.size), x]) @ coef, 0.0, 1.0)
        s = 1.0 / (1.0 + np.exp(-(full[a] - full[b])))
        resid = np.linalg.lstsq(cells, y_all - s, rcond=None)[0]
        oracles["oracle: pair BT + cells"] = np.clip(s + cells @ resid, 0.0, 1.0)
        print(f"R^2 of the human vote: BT fit {1 - np.var(y_all - s) / np.var(y_all):.3f}")
        for name, f in oracles.items():
            r2 = 1 - np.var(y_all - f) / np.var(y_all)
            bound = np.sqrt(np.var(y_all - f) / np.var(y_all - s))
            print(f"  {name}: R^2 {r2:.3f}, sqrt(var(y - f) / var(y - s_BT)) {bound:.3f}")
    rng = np.random.default_rng(args.seed)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    rows: dict[str, list[tuple[float, ...]]] = {}
    secs: dict[str, list[float]] = {}
    for r in range(args.draws):
        lab = rng.choice(a.size, args.labels, replace=False)
        y = np.full(a.size, np.nan)
        y[lab] = y_all[lab]
        pool = replace(base, y=y)
        tables = {"labels alone": bradley_terry(a, b, y, None, names=pairs.names)}
        tables["labels alone, simultaneous"] = bradley_terry(
            a, b, y, None, names=pairs.names, simultaneous=True
        )
        for eng in engines:
            tag = "" if eng == "freq" else f" ({eng})"
            start = time.perf_counter()
            model = "ordinal" if eng == "bayes-gaussian" else None
            engine = "bayes" if eng == "bayes-gaussian" else eng
            cal = Calibrator(engine=engine, model=model, seed=r if eng == "freq" else 0)
            fitted = cal.fit(pool)
            secs.setdefault(f"AEE, judges{tag}", []).append(time.perf_counter() - start)
            tables[f"AEE, judges{tag}"] = fitted.estimate_bradley_terry()
            tables[f"AEE, judges{tag}, simultaneous"] = fitted.estimate_bradley_terry(
                simultaneous=True
            )
        if args.models:
            cal = Calibrator(engine="freq", seed=r).fit(replace(pool, embedding=ident))
            tables["AEE, judges + models"] = cal.estimate_bradley_terry()
            for name, f in oracles.items():
                tables[name] = bradley_terry(a, b, y, f, names=pairs.names)
        base_w = np.mean(tables["labels alone"].ci_high - tables["labels alone"].ci_low)
        for name, t in tables.items():
            cov = (t.ci_low <= full) & (full <= t.ci_high)
            w = float(np.mean(t.ci_high - t.ci_low))
            rows.setdefault(name, []).append(
                (float(cov.mean()), float(cov.all()), w / base_w, t.details["power_lambda"])
            )
        print(f"draw {r}: " + ", ".join(f"{k} {v[-1][2]:.3f}" for k, v in rows.items()
                                         if "simultaneous" not in k), flush=True)  # fmt: skip
    print(f"arena_ppr, {args.labels} labels, {args.draws} draws (seed {args.seed})")
    print("| method | coverage per model | simultaneous | mean width / labels alone (se) "
          "| lambda | fit s |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for name, vals in rows.items():
        v = np.array(vals)
        cov, joint, ratio, lam = v.mean(axis=0)
        se = v[:, 2].std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else np.nan
        fit = secs.get(name.removesuffix(", simultaneous"))
        fit_s = f"{np.median(fit):.1f}" if fit else ""
        print(
            f"| {name} | {cov:.3f} | {joint:.3f} | {ratio:.3f} ({se:.3f}) | {lam:.2f} | {fit_s} |"
        )
    for eng in engines[1:]:  # paired difference against the first engine, same draws
        d = np.array(rows[f"AEE, judges ({eng})"])[:, 2] - np.array(rows["AEE, judges"])[:, 2]
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
        print(f"width ratio {eng} - freq, paired over draws: {d.mean():+.4f} (se {se:.4f})")
    for name in (k for k in rows if k.startswith("oracle")):
        d = np.array(rows[name])[:, 2] - np.array(rows["AEE, judges"])[:, 2]
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
        print(f"width ratio {name} - freq, paired over draws: {d.mean():+.4f} (se {se:.4f})")


if __name__ == "__main__":
    main()
