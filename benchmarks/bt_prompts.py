"""Bradley-Terry intervals clustered by prompt (``target="population"``): coverage on
simulated comparisons that share prompts (the simulator of
``tests/test_bradley_terry.py::_prompt_draw``, strong prompt effects, known strengths),
clustered against independent, and the effect on the shipped samples (the arena sample,
whose prompts almost never repeat, and the MT-Bench sample, 15 questions x 2 turns).

    python -m benchmarks.bt_prompts --draws 400

``--plan``: what ``plan_pairwise`` predicts for these estimates. Each draw: a simple
random pilot of a fifth of the comparisons, the pilot's plan at two budgets (clustered
by prompt, the population target's prediction; "independent": the population target
with the prompts ignored; "pool": the pool target's, what ``bacon plan --pairwise``
predicted before it clustered), then a wave by each design to the budget
(``draw_pairwise_wave``) and the clustered population estimate; realised mean
half-width (and ``z`` times the sd of the estimates over draws) over predicted.

    nice -n 10 python -m benchmarks.bt_prompts --plan --draws 200
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


def plan_check(draws: int, n_prompts: int, budgets: tuple[int, int], seed: int) -> str:
    """Realised over predicted mean half-width of the clustered population estimate."""
    from bacon_bayes.planning.pairwise import draw_pairwise_wave, pairwise_pilot, plan_pairwise

    rng = np.random.default_rng(seed)
    n_all = n_prompts * 10
    n0 = n_all // 5
    designs = ("uniform", "stratified")
    rows = {(d, n): {k: [] for k in ("half", "err", "cov", "clustered", "independent", "pool")}
            for d in designs for n in budgets}  # fmt: skip
    for _ in range(draws):
        a, b, y, f, prompt = _prompt_draw(rng, THETA, n_prompts, n_all)
        lab = np.zeros(n_all, dtype=bool)
        lab[rng.choice(n_all, n0, replace=False)] = True
        y0 = np.where(lab, y, np.nan)
        pilots = {"clustered": pairwise_pilot(a, b, y0, f, n_models=5, target="population",
                                              prompts=prompt),
                  "independent": pairwise_pilot(a, b, y0, f, n_models=5, target="population"),
                  "pool": pairwise_pilot(a, b, y0, f, n_models=5)}  # fmt: skip
        for d in designs:
            plans = {k: plan_pairwise(p, half_width=1e-3, designs=[d], budgets=budgets)
                     for k, p in pilots.items()}  # fmt: skip
            for n in budgets:
                union, drawn = draw_pairwise_wave(d, n - n0, labeled=lab, pilot=pilots["clustered"],
                                                  seed=int(rng.integers(2**31)))  # fmt: skip
                t = bradley_terry(a, b, np.where(lab | drawn, y, np.nan), f, union, n_models=5,
                                  target="population", prompts=prompt)  # fmt: skip
                r = rows[(d, n)]
                r["half"].append(float(np.mean(t.ci_high - t.estimate)))
                r["err"].append(t.estimate - THETA)
                r["cov"].append(np.mean((t.ci_low <= THETA) & (THETA <= t.ci_high)))
                for k, plan in plans.items():
                    r[k].append(plan.predicted[d][n])
    z = float(stats.norm.isf(0.025))
    out = [f"{n_prompts} prompts x 10 pairs, pilot {n0} of {n_all}, {draws} draws"]
    for (d, n), r in rows.items():
        half, pred = np.array(r["half"]), np.mean(r["clustered"])
        sd_half = z * float(np.mean(np.std(r["err"], axis=0, ddof=1)))
        ratios = " | ".join(f"{np.mean(half) / np.mean(r[k]):.3f}"
                            for k in ("clustered", "independent", "pool"))  # fmt: skip
        out.append(
            f"| {d} | {n} | {half.mean():.4f} ({half.std(ddof=1) / np.sqrt(draws):.4f}) | "
            f"{np.mean(r['cov']):.3f} | {pred:.4f} | {ratios} | {sd_half / pred:.3f} |"
        )
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
    ap.add_argument("--plan", action="store_true", help="the plan's predictions (docstring)")
    args = ap.parse_args()
    if args.plan:
        print(
            "| design | labels | realised mean half-width | coverage | predicted (clustered) "
            "| realised / predicted: clustered | independent | pool | z sd / clustered |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for n_prompts, budgets in ((30, (120, 200)), (60, (240, 400))):
            print(plan_check(args.draws, n_prompts, budgets, args.seed))
        return
    print("| method | coverage per model | width / aee clustered |")
    print("|---|---|---|")
    for n_prompts, labels in ((15, 75), (30, 150), (60, 300)):
        print(simulation(args.draws, n_prompts, labels, args.seed))
    print(shipped())


if __name__ == "__main__":
    main()
