"""Which critical value makes the simultaneous intervals of all pairwise differences
valid at a few labeled prompts (issue 40 point 3; the choice in
:func:`bacon_bayes.estimate.critical.prompt_contrast_critical_values`).

    PYTHONPATH=. .venv/bin/python -m benchmarks.paired_simultaneous [--draws 300]
    PYTHONPATH=. .venv/bin/python -m benchmarks.paired_simultaneous --rule
    PYTHONPATH=. .venv/bin/python -m benchmarks.paired_simultaneous --trials DIR [DIR ...]

(``--trials``: the table of EXPERIMENTS.md from ``bacon simulate --designs paired``
output folders: per budget, the simultaneous coverage of all pairwise differences among
the draws that have those intervals, the share of draws where they were withheld, the
mean simultaneous half-width and the pointwise coverage.)

Paired data reduced to what the critical value sees: ``G`` prompts, each with a vector of
``m`` group contributions (a common prompt effect, which the differences cancel, plus
independent errors), and the ``m (m - 1) / 2`` differences' one-sample t statistics on
``G - 1`` df. Coverage: the share of draws whose largest ``|t|`` is at most the critical
value. Candidates:

- ``plugin``: today's rule, the normal max-|Z| over the correlation estimated from the
  ``G`` prompts (rank at most ``G - 1``), turned into a t quantile at the same level;
- ``signflip``: the wild cluster bootstrap-t with Rademacher weights (every one of the
  ``2^G`` patterns, standard errors recomputed; quantile "higher");
- ``webb``: the same with Webb's six-point weights (``6^G`` patterns; ``G <= 6``);
- ``exact``: the 95% quantile under exchangeable normal groups (20,000 draws);
- ``bonferroni``: the Student-t quantile at ``alpha / K`` on ``G - 1`` df.

Measured (seeds as in the code, 300 draws, 12 groups, normal errors; coverage, median
critical value):

| prompts | plugin | signflip | webb | exact | bonferroni |
|---|---|---|---|---|---|
| 5 | 0.783 (6.13) | 0.917 (8.13) | 0.920 (8.23) | 0.950 (9.12) | 0.950 (9.26) |
| 6 | 0.850 (5.54) | 0.937 (7.47) | 0.933 (6.96) | 0.957 (7.21) | 0.957 (7.30) |
| 8 | 0.907 (4.81) | 0.960 (5.56) | - | 0.963 (5.57) | 0.973 (5.67) |
| 10 | 0.900 (4.42) | 0.947 (4.88) | - | 0.943 (4.89) | 0.953 (4.98) |

and ``--rule`` (plug-in against Bonferroni as the prompts grow; normal errors, and t(3)
errors with group sds exp(0.5 N(0, 1))):

| groups | prompts | plugin normal / t3 | bonferroni normal / t3 |
|---|---|---|---|
| 4 | 5 | 0.950 / 0.933 | 0.960 / 0.953 |
| 4 | 12 | 0.947 / 0.960 | 0.967 / 0.967 |
| 12 | 5 | 0.817 / 0.880 | 0.933 / 0.990 |
| 12 | 12 | 0.890 / 0.940 | 0.953 / 0.973 |
| 12 | 24 | 0.940 / 0.970 | 0.960 / 0.987 |
| 12 | 48 | 0.933 / 0.960 | 0.953 / 0.973 |
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.estimate.tables import correlation

ALPHA = 0.05


def abs_t(z: np.ndarray) -> np.ndarray:
    """|one-sample t| of each column over the prompts (axis -2)."""
    g = z.shape[-2]
    return np.abs(z.mean(-2) / (z.std(-2, ddof=1) / np.sqrt(g)))


def patterns(g: int, weights: str) -> np.ndarray:
    if weights == "rademacher":
        return np.array(list(itertools.product([1.0, -1.0], repeat=g)))
    w = np.array([-(1.5**0.5), -1.0, -(0.5**0.5), 0.5**0.5, 1.0, 1.5**0.5])
    return np.array(list(itertools.product(w, repeat=g)))


def flip_critical(z_hat: np.ndarray, signs: np.ndarray) -> float:
    m = np.nan_to_num(abs_t(signs[:, :, None] * z_hat[None]), nan=0.0).max(-1)
    return float(np.quantile(m, 1 - ALPHA, method="higher"))


def contrasts(m: int) -> np.ndarray:
    a, b = np.triu_indices(m, 1)
    c = np.zeros((a.size, m))
    c[np.arange(a.size), a], c[np.arange(a.size), b] = 1.0, -1.0
    return c


def exact(g: int, c: np.ndarray, draws: int = 20_000) -> float:
    r = np.random.default_rng(0)
    m = c.shape[1]
    return float(
        np.quantile([abs_t(r.normal(size=(g, m)) @ c.T).max() for _ in range(draws)], 0.95)
    )


def methods(draws: int) -> None:
    rng = np.random.default_rng(1)
    m = 12
    c = contrasts(m)
    k = c.shape[0]
    print("| prompts | plugin | signflip | webb | exact | bonferroni |\n|---|---|---|---|---|---|")
    for g in (5, 6, 8, 10):
        piv = exact(g, c)
        rad = patterns(g, "rademacher")
        webb = patterns(g, "webb") if g <= 6 else None
        names = ("plugin", "signflip", "webb", "exact", "bonferroni")
        hits = dict.fromkeys(names, 0)
        crits: dict[str, list[float]] = {n: [] for n in names}
        sd = np.exp(0.0 * rng.normal(size=m))  # kept: the draws' stream of the table
        for _ in range(draws):
            e = rng.normal(size=(g, m))
            x = 2 * rng.normal(size=(g, 1)) + e * sd
            z = x @ c.T
            t = abs_t(z).max()
            z_hat = z - z.mean(0)
            cur = simultaneous_critical_value(
                correlation(np.cov(z.T)), ALPHA, "maxt", np.full(k, g - 1.0), draws=20_000
            )[0]
            values = (
                cur,
                flip_critical(z_hat, rad),
                flip_critical(z_hat, webb) if webb is not None else np.nan,
                piv,
                stats.t.isf(ALPHA / k / 2, g - 1),
            )
            for n, v in zip(names, values, strict=True):
                hits[n] += t <= v
                crits[n].append(v)
        cells = [
            "-" if np.isnan(crits[n][0]) else f"{hits[n] / draws:.3f} ({np.median(crits[n]):.2f})"
            for n in names
        ]
        print(f"| {g} | " + " | ".join(cells) + " |", flush=True)


def rule(draws: int) -> None:
    rng = np.random.default_rng(2)
    print("| groups | prompts | errors | plugin | bonferroni |\n|---|---|---|---|---|")
    for m in (4, 12):
        c = contrasts(m)
        k = c.shape[0]
        for g in (5, 12, 24, 48):
            for errors in ("normal", "t3"):
                sd = np.exp(0.5 * rng.normal(size=m)) if errors == "t3" else np.ones(m)
                bonf = stats.t.isf(ALPHA / k / 2, g - 1)
                plug = hit_b = 0
                for _ in range(draws):
                    if errors == "normal":
                        e = rng.normal(size=(g, m))
                    else:
                        e = rng.standard_t(3, size=(g, m)) / np.sqrt(3)
                    z = (2 * rng.normal(size=(g, 1)) + e * sd) @ c.T
                    t = abs_t(z).max()
                    cur = simultaneous_critical_value(
                        correlation(np.cov(z.T)), ALPHA, "maxt", np.full(k, g - 1.0), draws=20_000
                    )[0]
                    plug += t <= cur
                    hit_b += t <= bonf
                print(f"| {m} | {g} | {errors} | {plug / draws:.3f} | {hit_b / draws:.3f} |")


def _cols(b: pd.DataFrame, names: list[str], part: str) -> np.ndarray:
    return b[[f"diff:{n}:{part}" for n in names]].to_numpy(float)


def trials_table(folders: list[str]) -> None:
    """Simultaneous and pointwise coverage of the differences in ``bacon simulate``
    output folders (draws without simultaneous intervals: withheld, not covered)."""
    print(
        "| folder | budget | draws | simultaneous coverage | withheld | half-width "
        "| pointwise coverage |\n|---|---|---|---|---|---|---|"
    )
    for folder in folders:
        t = pd.read_parquet(f"{folder}/trials.parquet")
        names = [c[5:-9] for c in t.columns if c.startswith("diff:") and c.endswith(":estimate")]
        groups = sorted({g for n in names for g in n.split(" - ")})
        truth = {g: t[f"group:{g}:truth"].iloc[0] for g in groups}
        for budget, b in t.groupby("budget"):
            d = np.array([truth[n.split(" - ")[0]] - truth[n.split(" - ")[1]] for n in names])

            low, high = _cols(b, names, "sim_low"), _cols(b, names, "sim_high")
            answered = np.isfinite(low).all(axis=1)
            inside = np.all((low <= d) & (d <= high), axis=1)[answered]
            point = (_cols(b, names, "ci_low") <= d) & (d <= _cols(b, names, "ci_high"))
            half = float(np.nanmean((high - low)[answered]) / 2) if answered.any() else np.nan
            cover = f"{inside.mean():.4f}" if answered.any() else "-"
            print(
                f"| {folder} | {budget:g} | {len(b)} | {cover} | {1 - answered.mean():.3f} "
                f"| {half:.3f} | {point.mean():.4f} |"
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--draws", type=int, default=300)
    p.add_argument("--rule", action="store_true", help="plug-in vs Bonferroni as prompts grow")
    p.add_argument("--trials", nargs="+", help="bacon simulate output folders to summarise")
    args = p.parse_args()
    if args.trials:
        trials_table(args.trials)
    else:
        (rule if args.rule else methods)(args.draws)


if __name__ == "__main__":
    main()
