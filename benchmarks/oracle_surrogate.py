"""How much a better surrogate could buy on SummEval at small budgets: the AEE's RMSE and
mean SE with a few surrogates, relative to a cross-fitted ridge on the same draws.

    python -m benchmarks.oracle_surrogate [--budget 0.05] [--trials 200]

Surrogates (all on the 9 judges of a dimension, judges standardised over the pool):
``ridge`` (RidgeCV cross-fitted over 5 folds of the labeled items; the unlabeled items
get the folds' average), ``ridge+judge mean``, ``first PC`` (label-free: the judges'
first principal component), and ``oracle`` (a RidgeCV fitted on **every** label of the
pool, used as a fixed surrogate: the best linear function of the judges, which no
method that sees only the draw's labels can know), and two non-linear oracles, out of
fold over every label of the pool (10 folds): ``spline oracle`` (RidgeCV on a quadratic
spline basis of each judge, an additive model) and ``trees oracle`` (gradient-boosted
trees). Each AEE tunes its surrogate weights on the draw's labels
(``estimate.combine.combined_core``, uniform draws). The oracle rows bound what a
surrogate of the judges can give: with labels missing at random the AEE's variance is
that of ``Y - lambda f(X)``, smallest for ``f = E[Y | X]``, which they estimate from
1,200 labels.
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.decomposition import PCA
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import SplineTransformer

from bacon_bayes.demo import load_summeval
from bacon_bayes.estimate.combine import combined_core

DIMENSIONS = ("relevance", "coherence", "consistency", "fluency")
ALPHAS = np.logspace(-3, 3, 13)


def _cross_fitted_ridge(z: np.ndarray, y: np.ndarray, lab: np.ndarray, seed: int) -> np.ndarray:
    out = np.zeros(y.size)
    rest = np.setdiff1d(np.arange(y.size), lab)
    for train, test in KFold(5, shuffle=True, random_state=seed).split(lab):
        model = RidgeCV(alphas=ALPHAS).fit(z[lab[train]], y[lab[train]])
        out[lab[test]] = model.predict(z[lab[test]])
        out[rest] += model.predict(z[rest]) / 5
    return out


def _out_of_fold(model: object, z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Predictions of ``model`` for every item from a fit without its fold (10 folds)."""
    return cross_val_predict(model, z, y, cv=KFold(10, shuffle=True, random_state=0))


def study(dim: str, budget: float, trials: int) -> dict[str, tuple[float, float]]:
    """RMSE and mean SE of each surrogate's AEE over the ridge's (same draws)."""
    df = load_summeval()
    x = df[[c for c in df.columns if c.startswith("judge:") and c.endswith(f"|{dim}")]]
    x = x.fillna(x.mean()).to_numpy(float)
    y = df[f"expert_mean_{dim}"].to_numpy(float)
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    fixed = {
        "judge mean": x.mean(axis=1),
        "first PC": PCA(1).fit_transform(z)[:, 0],
        "oracle": RidgeCV(alphas=ALPHAS).fit(z, y).predict(z),
        "spline oracle": _out_of_fold(
            make_pipeline(SplineTransformer(n_knots=4, degree=2), RidgeCV(alphas=ALPHAS)), z, y
        ),
        "trees oracle": _out_of_fold(
            HistGradientBoostingRegressor(
                max_iter=200, learning_rate=0.05, max_leaf_nodes=8, min_samples_leaf=30
            ),
            z,
            y,
        ),
    }
    rows = {"ridge": ["ridge"], "ridge+judge mean": ["ridge", "judge mean"]}
    rows |= {k: [k] for k in ("first PC", "oracle", "spline oracle", "trees oracle")}
    n = round(budget * y.size)
    rng = np.random.default_rng(0)
    err: dict[str, list[tuple[float, float]]] = {k: [] for k in rows}
    for t in range(trials):
        lab = rng.choice(y.size, n, replace=False)
        surr = fixed | {"ridge": _cross_fitted_ridge(z, y, lab, t)}
        for name, cols in rows.items():
            f = np.column_stack([surr[c] for c in cols])
            theta, var = combined_core(y[lab], f[lab], np.full(n, n / y.size), f.sum(0), y.size)[:2]
            err[name].append((float(theta) - y.mean(), float(np.sqrt(var))))
    base = np.array(err["ridge"])
    out = {}
    for name, e in err.items():
        a = np.array(e)
        rmse = np.sqrt(np.mean(a[:, 0] ** 2) / np.mean(base[:, 0] ** 2))
        out[name] = (float(rmse), float(a[:, 1].mean() / base[:, 1].mean()))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=0.05)
    p.add_argument("--trials", type=int, default=200)
    args = p.parse_args(argv)
    shown = ("ridge+judge mean", "first PC", "oracle", "spline oracle", "trees oracle")
    print(f"SummEval, {args.budget:.0%} labels, {args.trials} draws: AEE RMSE / SE, ridge's = 1")
    print("| dimension | " + " | ".join(shown) + " |")
    print("|---" * (len(shown) + 1) + "|")
    for dim in DIMENSIONS:
        r = study(dim, args.budget, args.trials)
        cells = [f"{r[k][0]:.3f} / {r[k][1]:.3f}" for k in shown]
        print(f"| {dim} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
