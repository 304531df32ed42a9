"""Speed of the Bayesian judge model's whole cross-fit against one default PyMC fit.

Synthetic ordinal data: N = 5,000 items, 1,000 labeled, 8 judges (one uncertainty
feature each, 5% scores missing), 32 embedding components. In the same process:

* baseline: one default ``pm.sample()`` fit (4 chains x 1,000 tune + 1,000 draws) of
  a straightforward hierarchical ordered-probit regression of the 1,000 labels on
  the judge scores and the embedding (per-judge slopes with a hierarchical prior);
* ours: the collapsed judge model's 5-fold cross-fit (``fit_folds``: compiled once,
  each fold refit by changing the label mask; its five fold models also predict
  the unlabeled items), including compilation and predictions for every item.

Run: ``python -m benchmarks bayes`` (``python -m benchmarks.bench_bayes
--sampler=nutpie-jax`` to choose the sampler, ``--engines`` to time the other
samplers too, ``--no-baseline`` to skip the slow baseline).
"""

from __future__ import annotations

import sys
import time

import numpy as np

N, N_LABELED, N_JUDGES, N_EMB, FOLDS = 5000, 1000, 8, 32, 5


def _data(seed: int = 0):
    from bacon_bayes.bayes.simulate import simulate_judges

    sim = simulate_judges(N, N_JUDGES, N_EMB, family="ordinal", seed=seed)
    rng = np.random.default_rng(seed)
    y = np.full(N, np.nan)
    lab = rng.choice(N, N_LABELED, replace=False)
    y[lab] = sim.y[lab]
    return sim, y


def baseline_fit(sim, y) -> tuple[float, dict]:
    """Default pm.sample() of a straightforward ordered-probit regression."""
    import pymc as pm

    lab = np.isfinite(y)
    L = sim.X[:, :N_JUDGES]
    L = np.where(np.isnan(L), np.nanmean(L, axis=0), L)
    Ls = ((L - L.mean(0)) / L.std(0))[lab]
    E = sim.X[lab][:, -N_EMB:]
    levels = np.unique(y[lab])
    yk = np.searchsorted(levels, y[lab])
    with pm.Model():
        mu_b = pm.Normal("slope_mu", 0.0, 1.0)
        sd_b = pm.HalfNormal("slope_sd", 1.0)
        b = pm.Normal("slope", mu_b, sd_b, shape=N_JUDGES)
        theta = pm.Normal("theta", 0.0, 0.5, shape=N_EMB)
        cut = pm.Normal(
            "cutpoints",
            0.0,
            2.5,
            shape=levels.size - 1,
            transform=pm.distributions.transforms.ordered,
            initval=np.linspace(-1.5, 1.5, levels.size - 1),
        )
        pm.OrderedProbit("y", eta=Ls @ b + E @ theta, cutpoints=cut, sigma=1.0, observed=yk)
        start = time.perf_counter()
        idata = pm.sample(progressbar=False, random_seed=0, compute_convergence_checks=False)
        secs = time.perf_counter() - start
    from bacon_bayes.bayes.diagnostics import check_convergence

    return secs, check_convergence(idata, sampler="pymc", seconds=secs, warn=False).to_dict()


def crossfit(sim, y, sampler: str = "nutpie", **kwargs) -> tuple[float, list, np.ndarray]:
    """Whole cross-fit of the collapsed ordinal model; returns (seconds, diagnostics, preds)."""
    from bacon_bayes.bayes import OrdinalJudgeModel
    from bacon_bayes.crossfit import make_folds

    lab = np.isfinite(y)
    fold_ids = make_folds(lab, FOLDS, 0)
    start = time.perf_counter()
    model = OrdinalJudgeModel(sim.columns, levels=sim.levels, sampler=sampler, warn=False, **kwargs)
    fits = model.fit_folds(sim.X, y, fold_ids, FOLDS)
    pred = np.zeros(N)
    sizes = np.bincount(fold_ids[lab], minlength=FOLDS) / lab.sum()
    for k, fit in enumerate(fits):
        own = fold_ids == k
        pred[own] = fit.predict(sim.X[own])
        pred[~lab] += sizes[k] * fit.predict(sim.X[~lab])
    secs = time.perf_counter() - start
    return secs, [f.diagnostics_.to_dict() for f in fits], pred


def _summary(diags: list) -> str:
    return (
        f"max R-hat {max(d['max_rhat'] for d in diags):.4f}, "
        f"min bulk ESS {min(d['min_ess_bulk'] for d in diags):.0f}, "
        f"min tail ESS {min(d['min_ess_tail'] for d in diags):.0f}, "
        f"divergences {sum(d['n_divergent'] for d in diags)}"
    )


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    import bacon_bayes.bayes  # noqa: F401  (configures PyTensor first)
    from bacon_bayes.bayes import _backend

    sampler = next((a.split("=", 1)[1] for a in argv if a.startswith("--sampler=")), "nutpie")
    sim, y = _data()
    print(f"PyTensor BLAS set-up: {_backend.BLAS_CHOICE}", flush=True)
    secs, diags, pred = crossfit(sim, y, sampler)
    r2 = 1 - np.mean((pred - sim.y) ** 2) / np.var(sim.y)
    print(
        f"collapsed ordinal ({sampler}), 5-fold cross-fit: {secs:.1f} s; {_summary(diags)}; "
        f"R^2 {r2:.3f}",
        flush=True,
    )
    if "--engines" in argv:
        lab = np.isfinite(y)
        for eng in ("nutpie", "nutpie-jax", "pymc"):
            s1, d1, _ = crossfit(sim, np.where(lab & (np.arange(N) % 5 > 0), y, np.nan), eng)
            print(f"  engine {eng}: 5 folds {s1:.1f} s; {_summary(d1)}", flush=True)
    if "--no-baseline" not in argv:
        base, bdiag = baseline_fit(sim, y)
        print(
            f"baseline default pm.sample() (straightforward model, one fit): {base:.1f} s; "
            f"{_summary([bdiag])}"
        )
        print(f"ratio whole cross-fit / one baseline fit: {secs / base:.2f}")


if __name__ == "__main__":
    main()
