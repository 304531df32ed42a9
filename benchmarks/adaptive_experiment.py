"""The paper's synthetic adaptive-sampling experiment, on embeddings of real text.

Environment (in place of the paper's commercial embeddings of PERSUADE
essays): PCA of the TF-IDF matrix of the 1,200 SummEval summaries
(``summeval_llm_judges_wide.csv.gz``, column ``summary``), PC scores scaled to
unit variance, and the average of the 36 LLM-judge columns
(``judge:<model>|<method>|<dim>``) as the judge signal.

Data-generating process, drawn once per ``lambda`` and then held fixed::

    mu_i      = PC_i1 + ... + PC_i5 + judge_mean_i
    sigma_i^2 = 0.1 * exp(lambda * PC_i1)
    Y_i       ~ N(mu_i, sigma_i^2)

The target is the mean of ``Y`` over the pool (the finite population the
estimators' ``target="pool"`` intervals are for). Each trial draws designs
only, with a total expected budget ``eta * N``:

* ``direct``: simple random sample of ``floor(eta N)``, sample mean.
* ``one-stage``: the same sample, ridge on 10 PCs + judge mean
  (:class:`FixedRidge`, cross-fitted with :func:`bacon_bayes.crossfit.cross_fit`,
  5 folds), AEE mean with constant ``pi``.
* ``two-stage``: uniform pilot of ``round(pi N)``, out-of-fold squared
  residuals, the paper's constrained propensity on PCs 1-5
  (:func:`bacon_bayes.sampling.two_stage`), a Poisson stage 2, AEE with
  ``e_i = p1 + (1 - p1) s_i``.
* ``sd-adaptive``: the same pilot, a frequentist heteroskedastic sd model
  (:class:`~bacon_bayes.sampling.HeteroskedasticSD`, log squared residuals on
  PCs 1-5, cross-fitted for the pilot items; not the Bayesian calibrator), an
  adaptive Poisson wave with the default uniform share, AEE with the
  union-of-waves probabilities.
* ``posterior-variance``: the same pilot and wave rule, with the sd taken from the
  Bayesian gaussian judge model's posterior predictive variance
  (:class:`PosteriorVariance`: the individual judge scores plus PCs 1-5 as its
  embedding, label noise heteroskedastic on that embedding), cross-fitted on the
  pilot labels like ``Calibrator.crossfit_.var()``. Run only when a
  :class:`PosteriorVariance` is passed (it costs NUTS fits).

Pilot items' own probabilities come from designs fitted without their fold of
the pilot (see :mod:`bacon_bayes.sampling.two_stage`).

Run ``python -m benchmarks.adaptive_experiment --help``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from bacon_bayes.bayes import GaussianJudgeModel
from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.crossfit import cross_fit
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate import aee_mean, classical_mean
from bacon_bayes.results import Estimate
from bacon_bayes.sampling import (
    DEFAULT_UNIFORM_SHARE,
    Design,
    adaptive,
    combine_waves,
    cross_fitted_sd,
    two_stage,
    uniform,
)

__all__ = [
    "METHODS",
    "Environment",
    "PosteriorVariance",
    "adaptive_designs",
    "draw_outcomes",
    "find_shared_data",
    "gaussian_environment",
    "run_setting",
    "run_trial",
    "summarise",
    "summeval_environment",
]

METHODS = ("direct", "one-stage", "two-stage", "sd-adaptive", "posterior-variance")
SUMMEVAL_FILE = Path("summeval_llm_judges/summeval_llm_judges_wide.csv.gz")
OUTCOME_PCS = 10
PROPENSITY_PCS = 5


@dataclass(frozen=True)
class Environment:
    """Covariates of the synthetic study.

    Attributes
    ----------
    pcs : ndarray, shape (N, k)
        Embedding principal components, each scaled to unit variance.
    judge_mean : ndarray, shape (N,)
        Average judge score of each item.
    source : str
        Where the covariates come from.
    judges : ndarray, shape (N, J), optional
        The individual judge scores (NaN = missing), read by the Bayesian judge model
        of the ``posterior-variance`` design.
    """

    pcs: np.ndarray
    judge_mean: np.ndarray
    source: str
    judges: np.ndarray | None = None

    @property
    def outcome_features(self) -> np.ndarray:
        """Features of the outcome model: the first 10 PCs and the judge mean."""
        return np.column_stack([self.pcs[:, :OUTCOME_PCS], self.judge_mean])

    @property
    def propensity_features(self) -> np.ndarray:
        """Features of the propensity and sd models: the first 5 PCs."""
        return self.pcs[:, :PROPENSITY_PCS]


def shared_data_roots() -> list[Path]:
    """Where ``shared/data`` is looked for, in order (absolute): ``$BACON_SHARED_DATA``,
    then ``shared/data`` beside the repository (``../shared/data``, as the docs' commands
    name it) or one level further up, and the same beside the main checkout of a git
    worktree (a worktree under ``/tmp`` of a repository at ``/work/main`` finds
    ``/work/shared/data``)."""
    roots = [Path(os.environ["BACON_SHARED_DATA"])] if "BACON_SHARED_DATA" in os.environ else []
    repo = Path(__file__).resolve().parents[1]
    for checkout in dict.fromkeys([repo, *_main_checkout(repo)]):
        roots += [
            parent / "shared" / "data" for parent in (checkout.parent, checkout.parent.parent)
        ]
    return [root.absolute() for root in dict.fromkeys(roots)]


def _main_checkout(repo: Path) -> list[Path]:
    """The main working tree of the git worktree at ``repo`` (its ``.git`` file points at
    ``<main>/.git/worktrees/<name>``, whose ``commondir`` is ``<main>/.git``); none for a
    main checkout or a copy without git."""
    dot_git = repo / ".git"
    if not dot_git.is_file():
        return []
    try:
        line = dot_git.read_text(encoding="utf-8").strip()
        if not line.startswith("gitdir:"):
            return []
        gitdir = (repo / line.removeprefix("gitdir:").strip()).resolve()
        common = gitdir / "commondir"
        if common.is_file():
            gitdir = (gitdir / common.read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return []
    return [gitdir.parent] if gitdir.name == ".git" else []


def find_shared_data(relative: Path = SUMMEVAL_FILE) -> Path | None:
    """Locate ``shared/data/<relative>`` in :func:`shared_data_roots` (None: absent)."""
    for root in shared_data_roots():
        if (root / relative).is_file():
            return root / relative
    return None


def _unit_pcs(matrix: np.ndarray, k: int, seed: int) -> np.ndarray:
    from sklearn.decomposition import PCA

    pcs = PCA(n_components=k, random_state=seed).fit_transform(matrix)
    return pcs / pcs.std(axis=0)


def summeval_environment(path: Path | None = None, *, n_pcs: int = 10) -> Environment:
    """PCA of TF-IDF of the SummEval summaries plus the average judge score."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    path = path or find_shared_data()
    if path is None or not Path(path).is_file():
        raise ValidationError(
            f"{path} not found; pass --data pointing at summeval_llm_judges_wide.csv.gz"
        )
    frame = pd.read_csv(path)
    judges = [c for c in frame.columns if c.startswith("judge:")]
    if "summary" not in frame.columns or not judges:
        raise ValidationError(f"{path} needs a 'summary' column and judge:<...> columns")
    tfidf = TfidfVectorizer(min_df=2, sublinear_tf=True).fit_transform(frame["summary"].fillna(""))
    scores = frame[judges].to_numpy(float)
    judge_mean = np.nanmean(scores, axis=1)
    if np.isnan(judge_mean).any():
        raise ValidationError(f"{path}: some summaries have no judge score at all")
    pcs = _unit_pcs(tfidf.toarray(), n_pcs, 0)
    source = f"SummEval summaries, TF-IDF PCA ({Path(path).name})"
    return Environment(pcs, judge_mean, source, judges=scores)


def gaussian_environment(n: int = 600, *, n_pcs: int = 10, seed: int = 0) -> Environment:
    """Independent Gaussian PCs and a judge mean on a 1-5 scale (for quick tests); three
    individual judges score the judge mean plus noise."""
    rng = np.random.default_rng(seed)
    pcs = rng.normal(size=(n, n_pcs))
    judge = np.clip(3 + 0.6 * rng.normal(size=n), 1, 5)
    judges = judge[:, None] + 0.3 * np.random.default_rng([seed, 1]).normal(size=(n, 3))
    source = f"Gaussian (n={n}, seed={seed})"
    return Environment(pcs / pcs.std(axis=0), judge, source, judges=judges)


def draw_outcomes(env: Environment, lam: float, seed: int) -> np.ndarray:
    """One draw of ``Y`` from the heteroskedastic DGP."""
    rng = np.random.default_rng(seed)
    mu = env.pcs[:, :5].sum(axis=1) + env.judge_mean
    sd = np.sqrt(0.1 * np.exp(lam * env.pcs[:, 0]))
    return mu + sd * rng.normal(size=mu.size)


class FixedRidge(BaseEstimator):
    """Ridge regression with a fixed penalty on standardised features (closed form).

    The experiment's outcome model (the paper: "ridge regression on embedding
    PCs"); with 11 features and hundreds of labels the penalty hardly matters,
    and the closed form keeps thousands of cross-fits fast.
    """

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def fit(self, X: np.ndarray, y: np.ndarray) -> FixedRidge:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        self.center_, self.scale_ = X.mean(axis=0), X.std(axis=0)
        self.scale_[self.scale_ == 0] = 1.0
        Z = (X - self.center_) / self.scale_
        self.intercept_ = float(y.mean())
        gram = Z.T @ Z + self.alpha * np.eye(Z.shape[1])
        self.coef_ = np.linalg.solve(gram, Z.T @ (y - self.intercept_))
        self.noise_var_ = float(np.mean((y - self.predict(X)) ** 2))
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.intercept_ + ((np.asarray(X, float) - self.center_) / self.scale_) @ self.coef_

    def predict_var(self, X: np.ndarray) -> np.ndarray:
        return np.full(np.shape(X)[0], self.noise_var_)


class _ReusedSamplers(GaussianJudgeModel):
    """The gaussian judge model keeping every compiled sampler (by model kind and data
    shapes) for its later fits: the trials refit it on data of equal shapes, and the
    stage-1 posterior is kept by the model itself (same X in every trial)."""

    def _compile(self, kind: str, arrays: dict, labels: dict):
        kept = self.__dict__.setdefault("_samplers_", {})
        key = (kind, tuple((k, np.shape(v)) for k, v in sorted({**arrays, **labels}.items())))
        if key not in kept:
            kept[key] = super()._compile(kind, arrays, labels)
        return kept[key]


class PosteriorVariance:
    """Item sd for the ``posterior-variance`` design: the Bayesian gaussian judge model's
    posterior predictive sd, cross-fitted on a pilot's labels.

    The model reads every individual judge score and PCs 1-5 as its embedding (its
    label noise is heteroskedastic on them: ``label_noise_embedding``). A pilot item
    gets the predictive sd of the fold model that did not see it, every other item
    the fold mixture's (:meth:`bacon_bayes.crossfit.CrossFitResult.var`).

    Cost per pilot: the judge stage depends on X only, so it is sampled once and
    reused by every later pilot (every trial, every lambda); the label stage's
    compiled sampler is reused too. The label stage runs ``label_draws`` draws per
    chain (default 250, against 1,000 for a calibrator): enough for a design, whose
    probabilities need the sd to a few percent, not tail quantiles. The default
    sampler is nutpie on numba (``"nutpie"``): it compiles once (about a minute) and
    then costs microseconds per gradient of this small label model, where the JAX
    backend's per-call overhead made each trial's label stage 4-5 s instead of ~1 s.

    Attributes
    ----------
    seconds : list of float
        Wall-clock seconds of each :meth:`sd` call.
    worst : dict
        Worst convergence figures seen over all fits (``max_rhat``, ``min_ess_bulk``,
        ``divergences``).
    """

    def __init__(
        self,
        env: Environment,
        *,
        folds: int = 5,
        label_draws: int = 250,
        tune: int = 300,
        chains: int = 2,
        seed: int = 0,
        sampler: str = "nutpie",
    ) -> None:
        if env.judges is None:
            raise ValidationError(f"{env.source}: no individual judge scores for the judge model")
        n_judges = env.judges.shape[1]
        self.X = np.column_stack([env.judges, env.propensity_features])
        columns = ColumnSpec.simple(n_judges, 0, env.propensity_features.shape[1])
        self.model = _ReusedSamplers(
            columns,
            tune=tune,
            chains=chains,
            label_draws=label_draws,
            predict_draws=label_draws * chains,
            seed=seed,
            warn=False,
            sampler=sampler,
        )
        self.folds = folds
        self.seconds: list[float] = []
        self.worst = {"max_rhat": 0.0, "min_ess_bulk": np.inf, "divergences": 0}

    def sd(self, y: np.ndarray, labeled: np.ndarray, seed: int) -> np.ndarray:
        """Posterior predictive sd of every item after labeling ``labeled``."""
        start = time.perf_counter()
        cf = cross_fit(
            self.model, self.X, np.where(labeled, y, np.nan), folds=self.folds, seed=seed
        )
        sd = np.sqrt(cf.var())
        self.seconds.append(time.perf_counter() - start)
        for fit in cf.models:
            d = fit.diagnostics_
            self.worst["max_rhat"] = max(self.worst["max_rhat"], float(d.max_rhat))
            self.worst["min_ess_bulk"] = min(self.worst["min_ess_bulk"], float(d.min_ess_bulk))
            self.worst["divergences"] = max(self.worst["divergences"], int(d.n_divergent))
        return sd


def _cross_fit(
    env: Environment, y: np.ndarray, labeled: np.ndarray, seed: int, pi: np.ndarray | None = None
) -> np.ndarray:
    """Cross-fitted surrogate (out-of-fold for labeled items), 5 folds."""
    y_lab = np.where(labeled, y, np.nan)
    return cross_fit(FixedRidge(), env.outcome_features, y_lab, seed=seed, pi=pi).mean


def _aee(env: Environment, y: np.ndarray, labeled: np.ndarray, pi: np.ndarray, seed: int):
    return aee_mean(y, _cross_fit(env, y, labeled, seed, pi), labeled, pi)


def run_trial(
    env: Environment,
    y: np.ndarray,
    *,
    eta: float,
    pilot_rate: float,
    seed: int,
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
    posterior: PosteriorVariance | None = None,
) -> dict[str, Estimate]:
    """Every estimator on fresh designs (seeded) for fixed outcomes ``y``
    (``posterior-variance`` only with ``posterior``)."""
    n_items = y.size
    states = np.random.SeedSequence(seed).generate_state(6)
    s_uniform, s_pilot, s_two, s_sd, s_fold, s_post = (int(s) for s in states)
    base = uniform(n_items, int(np.floor(eta * n_items)), seed=int(s_uniform))
    out = {
        "direct": classical_mean(y, base.selected, base.pi),
        "one-stage": _aee(env, y, base.selected, base.pi, int(s_fold)),
    }
    pilot = uniform(n_items, round(pilot_rate * n_items), seed=int(s_pilot))
    resid = (y - _cross_fit(env, y, pilot.selected, int(s_fold)))[pilot.selected]
    waves = adaptive_designs(
        env, pilot, resid, eta, seeds=(s_two, s_sd), uniform_share=uniform_share
    )
    if posterior is not None:
        sd = posterior.sd(y, pilot.selected, seed=s_fold)
        waves["posterior-variance"] = _adaptive_wave(sd, pilot, eta, s_post, uniform_share)
    for method, (labeled, pi) in waves.items():
        out[method] = _aee(env, y, labeled, pi, int(s_fold))
    return out


def adaptive_designs(
    env: Environment,
    pilot: Design,
    resid: np.ndarray,
    eta: float,
    *,
    seeds: tuple[int, int],
    uniform_share: float = DEFAULT_UNIFORM_SHARE,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Second waves after ``pilot``: (labeled mask, union inclusion probability) per method.

    ``resid`` are the outcome model's out-of-fold residuals on the pilot items;
    both designs spend ``eta * N`` labels in expectation in total.
    """
    z = env.propensity_features
    wave, prop = two_stage(z, resid**2, pilot.selected, pilot.pi, eta, seed=seeds[0])
    out = {"two-stage": (pilot.selected | wave.selected, prop.inclusion)}
    r = np.zeros(z.shape[0])
    r[pilot.selected] = resid
    sd = cross_fitted_sd(z, r, pilot.selected)
    out["sd-adaptive"] = _adaptive_wave(sd, pilot, eta, seeds[1], uniform_share)
    return out


def _adaptive_wave(
    sd: np.ndarray, pilot: Design, eta: float, seed: int, uniform_share: float
) -> tuple[np.ndarray, np.ndarray]:
    """A wave with probabilities proportional to ``sd`` spending the rest of ``eta N``:
    (labeled mask, union inclusion probability)."""
    n_new = (eta - float(pilot.pi.mean())) * sd.size
    wave = adaptive(
        sd, n_new, prior=pilot.pi, eligible=~pilot.selected, uniform_share=uniform_share, seed=seed
    )
    return pilot.selected | wave.selected, combine_waves([pilot, wave])


def run_setting(
    env: Environment,
    y: np.ndarray,
    *,
    eta: float,
    pilot_rate: float,
    trials: int,
    seed: int = 0,
    posterior: PosteriorVariance | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """``trials`` repetitions of :func:`run_trial`; one row per trial and method
    (``progress``: print a line every 50 trials)."""
    rows = []
    start = time.perf_counter()
    for trial in range(trials):
        if progress and trial and trial % 50 == 0:
            print(f"  {trial} trials, {time.perf_counter() - start:.0f}s", flush=True)
        for method, est in run_trial(
            env,
            y,
            eta=eta,
            pilot_rate=pilot_rate,
            seed=seed * 100_003 + trial,
            posterior=posterior,
        ).items():
            rows.append(
                {
                    "trial": trial,
                    "method": method,
                    "estimate": est.estimate,
                    "se": est.se,
                    "ci_low": est.ci_low,
                    "ci_high": est.ci_high,
                    "n_labeled": est.n_labeled,
                }
            )
    return pd.DataFrame(rows)


def summarise(trials: pd.DataFrame, truth: float) -> pd.DataFrame:
    """Bias, SD, MSE, coverage (with its Monte Carlo se) and mean labels per method."""
    out = []
    for method in METHODS:
        t = trials[trials["method"] == method]
        if t.empty:
            continue
        err = t["estimate"].to_numpy() - truth
        covered = (t["ci_low"] <= truth) & (truth <= t["ci_high"])
        cov = float(covered.mean())
        out.append(
            {
                "method": method,
                "bias": float(err.mean()),
                "sd": float(err.std(ddof=1)),
                "mse": float(np.mean(err**2)),
                "coverage": cov,
                "coverage_mc_se": float(np.sqrt(cov * (1 - cov) / len(t))),
                "mean_width": float((t["ci_high"] - t["ci_low"]).mean()),
                "mean_labels": float(t["n_labeled"].mean()),
                "trials": len(t),
            }
        )
    table = pd.DataFrame(out)
    base = table.loc[table["method"] == "one-stage", "mse"]
    if len(base):
        table["mse_vs_one_stage"] = table["mse"] / float(base.iloc[0])
    return table


def _settings(args: argparse.Namespace) -> list[tuple[str, float, float, float]]:
    rows = [("lambda", lam, args.eta, args.pilot) for lam in args.lambdas]
    rows += [("pilot", args.sweep_lambda, args.eta, p) for p in args.pilots]
    rows += [("budget", args.sweep_lambda, e, args.pilot) for e in args.etas]
    return rows


def _plot(results: pd.DataFrame, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    labels = {"lambda": "lambda", "pilot": "pilot rate pi", "budget": "budget eta"}
    keys = {"lambda": "lam", "pilot": "pilot_rate", "budget": "eta"}
    for sweep, xlabel in labels.items():
        part = results[results["sweep"] == sweep]
        if part.empty:
            continue
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
        for method in METHODS:
            m = part[part["method"] == method].sort_values(keys[sweep])
            x = m[keys[sweep]]
            axes[0].plot(x, m["bias"], marker="o", label=method)
            axes[1].plot(x, m["mse"], marker="o", label=method)
            axes[2].errorbar(x, m["coverage"], yerr=2 * m["coverage_mc_se"], marker="o")
        axes[0].axhline(0, color="grey", lw=0.8)
        axes[1].set_yscale("log")
        axes[2].axhline(0.95, color="grey", lw=0.8, ls="--")
        for ax, title in zip(axes, ("bias", "MSE (log scale)", "95% CI coverage"), strict=True):
            ax.set_xlabel(xlabel)
            ax.set_title(title)
        axes[0].legend(fontsize=8)
        fixed = part.iloc[0]
        held = [f"{labels[k]}={fixed[keys[k]]:g}" for k in labels if k != sweep]
        fig.suptitle(
            f"{labels[sweep]} sweep ({', '.join(held)}; {int(fixed['trials'])} trials; "
            "coverage bars: 2 Monte Carlo se)",
            fontsize=9,
        )
        fig.tight_layout()
        path = out / f"{sweep}_sweep.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
    return made


def _markdown(results: pd.DataFrame) -> str:
    cols = ["sweep", "lam", "eta", "pilot_rate", "method", "bias", "sd", "mse"]
    cols += ["mse_vs_one_stage", "coverage", "coverage_mc_se", "mean_labels"]
    table = results[cols].copy()
    header = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    lines = []
    for row in table.itertuples(index=False):
        cells = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return header + "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the sweeps and write the table, CSV and PNG plots to ``--out``."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.adaptive_experiment")
    p.add_argument("--data", type=Path, help="summeval_llm_judges_wide.csv.gz (default: found)")
    p.add_argument("--out", type=Path, default=Path("docs/experiments/adaptive_sampling"))
    p.add_argument("--trials", type=int, default=400)
    p.add_argument("--lambdas", type=float, nargs="+", default=[0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    p.add_argument("--pilots", type=float, nargs="*", default=[0.05, 0.1, 0.15, 0.2, 0.25, 0.3])
    p.add_argument("--etas", type=float, nargs="*", default=[0.2, 0.25, 0.3, 0.35, 0.4, 0.45])
    p.add_argument("--eta", type=float, default=0.4)
    p.add_argument("--pilot", type=float, default=0.15)
    p.add_argument("--sweep-lambda", type=float, default=1.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot-only", action="store_true", help="redraw plots from results.csv")
    p.add_argument(
        "--posterior-variance",
        action="store_true",
        help="also run the Bayesian posterior-variance design (NUTS fits: seconds per trial)",
    )
    p.add_argument("--label-draws", type=int, default=250, help="its label-stage draws/chain")
    args = p.parse_args(argv)
    if args.plot_only:
        for path in _plot(pd.read_csv(args.out / "results.csv"), args.out):
            print(f"wrote {path}")
        return 0
    env = summeval_environment(args.data)
    args.out.mkdir(parents=True, exist_ok=True)
    posterior = (
        PosteriorVariance(env, label_draws=args.label_draws, seed=args.seed)
        if args.posterior_variance
        else None
    )
    outcomes: dict[float, np.ndarray] = {}
    done: dict[tuple[float, float, float], pd.DataFrame] = {}
    parts = []
    start = time.perf_counter()
    for sweep, lam, eta, pilot in _settings(args):
        if lam not in outcomes:
            outcomes[lam] = draw_outcomes(env, lam, seed=args.seed + round(1000 * lam))
        y = outcomes[lam]
        key = (lam, eta, pilot)
        if key not in done:  # a setting shared by two sweeps is run once
            trials = run_setting(
                env,
                y,
                eta=eta,
                pilot_rate=pilot,
                trials=args.trials,
                seed=args.seed,
                posterior=posterior,
                progress=posterior is not None,
            )
            done[key] = summarise(trials, float(y.mean()))
        summary = done[key].copy()
        summary.insert(0, "pilot_rate", pilot)
        summary.insert(0, "eta", eta)
        summary.insert(0, "lam", lam)
        summary.insert(0, "sweep", sweep)
        parts.append(summary)
        print(f"{sweep}: lambda={lam:g} eta={eta:g} pi={pilot:g} done "
              f"({time.perf_counter() - start:.0f}s)", flush=True)  # fmt: skip
        results = pd.concat(parts, ignore_index=True)  # written as it goes
        results.to_csv(args.out / "results.csv", index=False)
        (args.out / "table.md").write_text(_markdown(results))
    for path in _plot(results, args.out):
        print(f"wrote {path}")
    print(f"wrote {args.out / 'results.csv'} and {args.out / 'table.md'} ({env.source})")
    if posterior is not None:
        secs = np.array(posterior.seconds)
        print(
            f"posterior-variance: {secs.size} cross-fits, first {secs[0]:.1f}s (judge stage "
            f"and compiles), then median {np.median(secs[1:]):.2f}s, mean "
            f"{secs[1:].mean():.2f}s per trial; worst convergence {posterior.worst}"
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
