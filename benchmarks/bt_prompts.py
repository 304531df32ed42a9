"""Bradley-Terry intervals clustered by prompt (``target="population"``): coverage on
simulated comparisons that share prompts (the simulator of
``tests/test_bradley_terry.py::_prompt_draw``, strong prompt effects, known strengths),
clustered against independent, and the effect on the shipped samples (the arena sample,
whose prompts almost never repeat, and the MT-Bench sample, 15 questions x 2 turns).

    python -m benchmarks.bt_prompts --draws 400
"""

from __future__ import annotations

import argparse
from importlib.resources import files
from pathlib import Path

import numpy as np
from scipy import stats

from bacon_bayes.estimate.bradley_terry import bradley_terry
from tests.test_bradley_terry import _prompt_draw

THETA = np.array([-0.8, -0.3, 0.0, 0.4, 0.7])


def simulation(draws: int, n_prompts: int, labels: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    cov: dict[str, list[np.ndarray]] = {"aee clustered": [], "aee independent": []}
    cov.update({"labels clustered": [], "labels independent": []})
    err, se = [], []
    width: dict[str, list[float]] = {k: [] for k in cov}
    for _ in range(draws):
        a, b, y, f, prompt = _prompt_draw(rng, THETA, n_prompts, labels)
        for name, sur, pr in (("aee clustered", f, prompt), ("aee independent", f, None),
                              ("labels clustered", None, prompt),
                              ("labels independent", None, None)):  # fmt: skip
            t = bradley_terry(a, b, y, sur, n_models=5, target="population", prompts=pr)
            cov[name].append((t.ci_low <= THETA) & (THETA <= t.ci_high))
            width[name].append(float(np.mean(t.ci_high - t.ci_low)))
            if name == "aee clustered":
                err.append(t.estimate - THETA)
                se.append(t.se)
    n = draws * THETA.size
    lo, hi = (v / n for v in stats.binom.interval(0.99, n, 0.95))
    out = [f"{n_prompts} prompts x 10 pairs, {labels} labels, {draws} draws "
           f"(99% band of 0.95 over {n} model-draws: {lo:.3f}-{hi:.3f})"]  # fmt: skip
    for name, c in cov.items():
        ratio = np.mean(width[name]) / np.mean(width["aee clustered"])
        out.append(f"| {name} | {np.mean(c):.3f} | {ratio:.3f} |")
    e, s = np.array(err), np.array(se)
    out.append(f"aee clustered: mean se / sd of error {np.min(s.mean(0) / e.std(0)):.3f}-"
               f"{np.max(s.mean(0) / e.std(0)):.3f}")  # fmt: skip
    return "\n".join(out)


def shipped() -> str:
    """Population-target widths clustered by prompt over independent on the samples: one
    calibrator (folds split by prompt), its surrogate into both variances."""
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.pool import EvalPool
    from bacon_bayes.readers.pair_table import read_pair_table

    here = Path(__file__).resolve().parent.parent
    arena = Path(str(files("bacon_bayes") / "data" / "arena_sample.csv.gz"))
    mt = here / "tests" / "data" / "pairwise"
    cases = [("arena_sample.csv.gz", arena, None),
             ("MT-Bench sample", mt / "mt_bench_gpt-4_pair.jsonl",
              mt / "mt_bench_human_judgments.json")]  # fmt: skip
    out = []
    for name, path, labels in cases:
        df, roles = read_pair_table(path, labels=labels)
        pool = EvalPool.from_pairs(df, model_a=roles.model_a, model_b=roles.model_b,
                                   label=roles.label, judges=roles.judges,
                                   prompt=roles.prompt)  # fmt: skip
        cal = Calibrator(engine="freq", target="population").fit(pool)
        f, p = np.clip(cal.surrogate_, 0.0, 1.0), pool.pairs
        widths, lams = {}, {}
        for key, prompts in (("clustered", pool.prompts), ("independent", None)):
            t = bradley_terry(p.a, p.b, pool.y, f, names=p.names, target="population",
                              prompts=prompts)  # fmt: skip
            widths[key], lams[key] = t.ci_high - t.ci_low, t.details["power_lambda"]
        both = np.isfinite(widths["clustered"]) & np.isfinite(widths["independent"])
        r = widths["clustered"][both] / widths["independent"][both]
        out.append(
            f"{name}: {df[roles.prompt].nunique()} distinct prompts in {len(df)} comparisons, "
            f"{int(np.isfinite(pool.y).sum())} labeled; width clustered / independent: mean "
            f"{r.mean():.3f}, range {r.min():.3f}-{r.max():.3f} over {both.sum()} models; "
            f"lambda {lams['clustered']:.2f} / {lams['independent']:.2f}"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("| method | coverage per model | width / aee clustered |")
    print("|---|---|---|")
    for n_prompts, labels in ((15, 75), (30, 150), (60, 300)):
        print(simulation(args.draws, n_prompts, labels, args.seed))
    print(shipped())


if __name__ == "__main__":
    main()
