"""The narrowest valid interval any linear surrogate of the judges allows at 3% and 5% labels
(issue 35 point 5), against ppi-aipw's measured width and both methods' RMSE.

    PYTHONPATH=. .venv/bin/python -m benchmarks.small_budget --trials 200 --workers 2 \\
        --variants small-budget,model --out small_budget.csv
    PYTHONPATH=. .venv/bin/python -m benchmarks.small_budget_bound --runs small_budget.csv

For each table of :mod:`benchmarks.small_budget` (same data, same WMT22 subsample) and
each budget (``n = round(b N)`` labels of ``N`` items, a uniform draw without
replacement):

* **the oracle surrogate**: the best linear function of the judges fitted on ALL ``N``
  labels (OLS with an intercept on the judges' scores, a missing score at its judge's
  mean). Among linear surrogates it minimises the finite-population variance ``S2_e`` of
  the residuals exactly (the normal equations), so the judge mean and the judges' first
  principal component (both rescaled by their own OLS line, the power-tuned weight on
  all labels) are shown for reference only. Also shown: the calibrator's own model
  (``Calibrator(engine="freq")``, the ridge / logistic / hurdle) fitted on all labels,
  out of fold (5 folds), a non-linear surrogate that is not part of the bound.
* **its exact design-based sd**: the difference estimator ``mean_N f + mean_S (y - f)``
  with a fixed surrogate ``f`` is unbiased under the draw with variance
  ``(1 - n / N) S2_e / n`` exactly (``S2_e`` on ``N - 1``). No estimator that uses a
  linear surrogate of the judges estimated from the ``n`` labels does better than the
  oracle (its coefficients are estimated: to first order its variance is this one times
  ``1 + k / (n - k - 2)`` for ``k`` fitted coefficients, the column ``sd, k fitted``).
* **the narrowest valid interval**: for an estimate ``N(theta, sd^2)`` and an interval
  centred on it whose half-width ``h`` is independent of the error (true for a normal
  mean and its variance estimate), coverage is ``E[2 Phi(h / sd) - 1]``, concave in
  ``h``, so coverage 0.95 needs ``E[h] >= 1.96 sd`` (Jensen): a mean width of at least
  ``2 * 1.96 * sd_oracle``. A t interval on ``n - 1`` df needs ``t_{n-1} / 1.96`` times
  more (1.04x at 36 labels); the bound uses 1.96, the weaker claim. (Assumptions:
  approximate normality of the estimate and independence of its width from its error;
  neither is exact at 36 labels, and skewed labels, SummEval fluency, make the
  independence fail in the direction that needs wider intervals.)
* **measured**: ppi-aipw's (``prognostic_linear``, linear in the judges) and our
  rows' mean width and RMSE from ``--runs`` (the CSV of ``benchmarks.small_budget
  --out``, several files pooled), against the oracle's.

If ppi-aipw's mean width is below ``2 * 1.96 * sd_oracle``, no method using the judges
linearly can match that width and cover 95%: ppi-aipw itself cannot be covering there.

Measured (2026-11-28, ``--runs`` of ``--seed 0`` and ``--seed 1``, 400 draws a table;
EXPERIMENTS.md "Small budgets"): ppi-aipw's mean width is below the narrowest valid width
on 10 of the 12 tables (0.870x on SummEval consistency at 36 labels, where it covers
0.840; geometric mean 0.964x; at or above it only on TriviaQA, 1.006x and 1.102x, and
WMT22 at 120 labels, 0.999x), so a width of at most 1.00x ppi-aipw's (geometric mean),
let alone no table above 1.03x, is out of reach of any valid interval from a linear
surrogate of the judges. RMSE over the oracle sd: ppi-aipw 1.043x, the small-budget
rule 1.032x (geometric means; its width 1.126x the narrowest valid one, of which the t
critical value is 1.02-1.04x and the fitted coefficients' price, ``sd, k fitted``, up to
1.17x at 36 labels).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes import Calibrator
from bacon_bayes.simulation.montecarlo import spec_pool
from benchmarks.small_budget import BUDGETS, PEER, tables

Z = 1.959963984540054


def _judges(frame: pd.DataFrame, judges: tuple[str, ...]) -> np.ndarray:
    X = frame[list(judges)].to_numpy(float)
    return np.where(np.isfinite(X), X, np.nanmean(X, axis=0))


def _ols_resid(y: np.ndarray, X: np.ndarray) -> np.ndarray:
    A = np.column_stack([np.ones(len(y)), X])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    return y - A @ coef


def _pc1(X: np.ndarray) -> np.ndarray:
    sd = X.std(axis=0)
    keep = sd > 0
    Zs = (X[:, keep] - X[:, keep].mean(axis=0)) / sd[keep]
    u, _, _ = np.linalg.svd(Zs, full_matrices=False)
    return u[:, 0]


def oracle_s2(frame: pd.DataFrame, spec, model: bool = True) -> dict[str, float]:
    """``S2_e`` (finite-population variance of the residuals, on ``N - 1``) of each
    surrogate fitted on all labels."""
    y = frame[spec.label].to_numpy(float)
    X = _judges(frame, spec.judges)
    out = {
        "OLS, all judges": float(np.var(_ols_resid(y, X), ddof=1)),
        "judge mean (OLS line)": float(np.var(_ols_resid(y, X.mean(axis=1)[:, None]), ddof=1)),
        "PC1 (OLS line)": float(np.var(_ols_resid(y, _pc1(X)[:, None]), ddof=1)),
    }
    if model:
        cal = Calibrator(engine="freq", seed=0).fit(spec_pool(frame, spec))
        out["our model, out of fold"] = float(np.var(y - cal.surrogate_, ddof=1))
    return out


def measured(runs: list[Path]) -> pd.DataFrame:
    """RMSE and mean width per (table, budget, method) over every draw of ``runs``."""
    frames = []
    for i, path in enumerate(runs):
        t = pd.read_csv(path, usecols=["table", "budget", "method", "trial", "estimate",
                                       "ci_low", "ci_high", "n_labels"])  # fmt: skip
        frames.append(t.assign(run=i))
    return pd.concat(frames, ignore_index=True)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path("/tmp/data"))
    p.add_argument("--runs", default=None, help="comma-separated CSVs of small_budget --out")
    p.add_argument("--ours", default="small-budget", help="our row in --runs to compare")
    p.add_argument("--no-model", action="store_true", help="skip the model oracle (fits)")
    args = p.parse_args(argv)
    runs = measured([Path(r) for r in args.runs.split(",")]) if args.runs else None
    print(
        "| table | budget | n | N | oracle sd | sd, k fitted | min valid width (1.96) | "
        "(t, n-1 df) | ppi-aipw width | / min | ppi-aipw cov | ppi-aipw RMSE / oracle sd | "
        "ours RMSE / oracle sd | ours width / min |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios: dict[str, list[float]] = {"peer_w": [], "peer_r": [], "our_r": [], "our_w": []}
    alts: list[str] = []
    for name, (frame, spec) in tables(args.data).items():
        s2 = oracle_s2(frame, spec, model=not args.no_model)
        alts.append(f"{name}: " + ", ".join(f"{k} {math.sqrt(v):.4f}" for k, v in s2.items()))
        best = s2["OLS, all judges"]
        N, k = len(frame), len(spec.judges)
        truth = float(frame[spec.label].mean())
        for b in BUDGETS:
            n = round(b * N)
            sd = math.sqrt((1 - n / N) * best / n)
            sd_k = sd * math.sqrt(1 + k / max(n - k - 2, 1))
            wmin = 2 * Z * sd
            wmin_t = wmin * stats.t.ppf(0.975, n - 1) / Z
            cells = [f"| {name} | {b:.0%} | {n} | {N} | {sd:.4f} | {sd_k:.4f} | {wmin:.4f} "
                     f"| {wmin_t:.4f} "]  # fmt: skip
            if runs is not None:
                r = runs[(runs["table"] == name) & np.isclose(runs["budget"], b)]
                row = {}
                for m in (PEER, args.ours):
                    g = r[r["method"] == m]
                    cover = (g["ci_low"] <= truth) & (truth <= g["ci_high"])
                    row[m] = (
                        float(np.sqrt(np.mean((g["estimate"] - truth) ** 2))),
                        float((g["ci_high"] - g["ci_low"]).mean()),
                        float(cover.mean()),
                    )
                (pr, pw, pc), (orr, ow, _) = row[PEER], row[args.ours]
                ratios["peer_w"].append(pw / wmin)
                ratios["peer_r"].append(pr / sd)
                ratios["our_r"].append(orr / sd)
                ratios["our_w"].append(ow / wmin)
                cells.append(f"| {pw:.4f} | {pw / wmin:.3f} | {pc:.3f} | {pr / sd:.3f} "
                             f"| {orr / sd:.3f} | {ow / wmin:.3f} |")  # fmt: skip
            else:
                cells.append("| | | | | | |")
            print("".join(cells), flush=True)
    print()
    print("residual sd sqrt(S2_e) of each surrogate fitted on all labels (OLS: the bound's):")
    for line in alts:
        print(f"  {line}")
    if runs is not None:
        geo = {key: float(np.exp(np.mean(np.log(v)))) for key, v in ratios.items()}
        below = sum(v < 1 for v in ratios["peer_w"])
        print(
            f"\nppi-aipw mean width / min valid width: geometric mean {geo['peer_w']:.3f}, "
            f"below 1 on {below} of {len(ratios['peer_w'])} tables (min "
            f"{min(ratios['peer_w']):.3f}); RMSE / oracle sd: ppi-aipw {geo['peer_r']:.3f}, "
            f"{args.ours} {geo['our_r']:.3f}; {args.ours} width / min valid width "
            f"{geo['our_w']:.3f}"
        )


if __name__ == "__main__":
    main()
