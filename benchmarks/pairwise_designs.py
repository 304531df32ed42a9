"""Designs for pairwise human votes (issue 44, point 4) on ``shared/data/arena_ppr``.

    python -m benchmarks.pairwise_designs --draws 150 --out DIR
    python -m benchmarks.pairwise_designs --markdown DIR

Each draw: a uniform pilot of ``--pilot`` votes (a simple random sample), the pilot's
surrogate (5-fold cross-fitted multinomial logit of the vote on the three judges' one-hot
verdicts, :func:`benchmarks.pairwise_methods.crossfit_surrogate`) and sd model (the same
logit on the whole pilot, :func:`bacon_bayes.sampling.pairwise.vote_sd`), then a Poisson
wave of the rest of the budget (``--total`` in expectation) by each design of
:mod:`bacon_bayes.sampling.pairwise`: ``uniform``, ``stratified`` (Neyman over the model
pairs), ``adaptive`` (sd given the judges times the direction norm, uniform share 0.2),
and ``oracle``: the adaptive rule with the TRUE strengths and the TRUE residual variance
given the judges (``E[r^2 | verdict cell]`` over all 26,919 rows, ``r = (y - s) - lam (f -
s)``, ``s`` the full-data win chance, ``f`` the all-row cell mean, ``lam = 0.5``) and no
uniform share: the bound of a design that sees the judges. The estimate is
:func:`bacon_bayes.estimate.bradley_terry.bradley_terry` with the union inclusion
probabilities and a surrogate cross-fitted on all the draw's labels; the target the
Bradley-Terry fit of all rows' votes. Adaptive is also run at smaller totals
(``--adaptive-totals``) to find the votes it needs for uniform's width. The plan check:
:func:`bacon_bayes.planning.pairwise.plan_pairwise` on the pilot predicts each design's
mean half-width at ``--total``; and for ``--half-width`` the recommended design is run at
its recommended budget.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from bacon_bayes.estimate.bradley_terry import bradley_terry
from bacon_bayes.planning.pairwise import pairwise_pilot, plan_pairwise
from bacon_bayes.sampling.adaptive import adaptive_wave
from bacon_bayes.sampling.pairwise import (
    pairwise_adaptive,
    pairwise_uniform,
    wave_probabilities,
)
from benchmarks import pairwise_methods as pm
from benchmarks.pairwise_study import DATA, Pairs, find_shared_data, load_arena

Z = 1.959963984540054


def sd_probs(p: Pairs, lab: np.ndarray) -> np.ndarray:
    """P(y = 0, 0.5, 1 | judges) from a multinomial logit on the labeled rows."""
    z = pm._onehot(p.verdicts)
    cls = np.round(p.y[lab] * 2).astype(int)
    model = LogisticRegression(C=1.0, max_iter=300).fit(z[lab], cls)
    out = np.zeros((p.y.size, 3))
    out[:, model.classes_] = model.predict_proba(z)
    return out


def oracle_sd(p: Pairs, theta: np.ndarray, lam: float = 0.5) -> np.ndarray:
    """sqrt(E[r^2 | verdict cell]) over all rows with the full-data strengths."""
    s = 1.0 / (1.0 + np.exp(-(theta[p.a] - theta[p.b])))
    f = pm.oracle_surrogate(p.verdicts, p.y)
    r2 = ((p.y - s) - lam * (f - s)) ** 2
    return np.sqrt(pm.oracle_surrogate(p.verdicts, r2))


def bound(p: Pairs, pilot: int, total: int, lam: float = 0.5) -> str:
    """Predicted mean half-width at ``total`` from the TRUE residuals of all rows (the
    closed form of :mod:`bacon_bayes.planning.pairwise` with every row's ``r_i^2``), per
    design: uniform; the oracle (``E[r^2 | verdict cell]``); the oracle by cell and pair
    (``E[r^2 | cell, pair]`` shrunk to the cell's by 10 rows, the best a design seeing
    the judges and the pair could do); and the clairvoyant ``pi`` proportional to
    ``|r_i| ||C x_i||`` (knows every vote)."""
    from bacon_bayes.sampling.pairwise import direction_norms, pair_codes, strength_map

    theta = pm.bt_fit(p.a, p.b, p.y, p.m)
    s = 1.0 / (1.0 + np.exp(-(theta[p.a] - theta[p.b])))
    r2 = ((p.y - s) - lam * (pm.oracle_surrogate(p.verdicts, p.y) - s)) ** 2
    n_rows, prior = p.y.size, np.full(p.y.size, pilot / p.y.size)
    cz = np.hstack([np.zeros((p.m, 1)), strength_map(p.a, p.b, theta)])
    g = cz[:, p.a] - cz[:, p.b]
    nrm = direction_norms(p.a, p.b, theta)

    def half(pi: np.ndarray) -> float:
        cov = (g * ((1.0 - pi) / pi * r2)) @ g.T * total / (total - p.m + 1)
        return float(Z * np.sqrt(np.diag(cov)).mean())

    cell = np.round(p.verdicts * 2).astype(int) @ (3 ** np.arange(p.verdicts.shape[1]))
    key = cell * p.m * p.m + pair_codes(p.a, p.b, p.m)
    _, inv = np.unique(key, return_inverse=True)
    # cells of cell x pair hold few rows: shrunk to the cell's mean as if it were 10 rows
    k = np.bincount(inv)
    cell_r2 = pm.oracle_surrogate(p.verdicts, r2)
    by_pair = (np.bincount(inv, r2)[inv] + 10.0 * cell_r2) / (k[inv] + 10.0)
    n_new = total - pilot
    rules = {
        "uniform": pairwise_uniform(n_rows, n_new, prior=prior),
        "oracle (cell)": pairwise_adaptive(p.a, p.b, theta, np.sqrt(pm.oracle_surrogate(
            p.verdicts, r2)), n_new, prior=prior, uniform_share=0.0),
        "oracle (cell x pair)": pairwise_adaptive(p.a, p.b, theta, np.sqrt(by_pair),
                                                  n_new, prior=prior, uniform_share=0.0),
        "clairvoyant |r_i|": adaptive_wave(np.sqrt(r2) * nrm, prior, uniform_share=0.0).target(
            n_new),
    }  # fmt: skip
    base = half(rules["uniform"])
    lines = [
        f"closed-form mean half-width at {total} votes ({pilot} uniform pilot), true residuals:"
    ]
    for name, pi in rules.items():
        w = half(pi)
        lines.append(f"- {name}: {w:.4f} (x{w / base:.4f}; votes for uniform's width "
                     f"{total * (w / base) ** 2:.0f})")  # fmt: skip
    return "\n".join(lines)


def fit(p: Pairs, lab: np.ndarray, pi: np.ndarray, theta: np.ndarray, seed: int) -> dict:
    f = pm.crossfit_surrogate(p.verdicts, p.y, lab, seed)
    y = np.full(p.y.size, np.nan)
    y[lab] = p.y[lab]
    t = bradley_terry(p.a, p.b, y, f, pi, n_models=p.m)
    half = Z * np.asarray(t.se)
    cover = np.abs(np.asarray(t.estimate) - theta) <= half
    return {"n_labeled": lab.size, "half": float(half.mean()), "cover": float(cover.mean()),
            "max_half": float(half.max()), "lam": float(t.details["power_lambda"])}  # fmt: skip


def one_draw(p: Pairs, d: int, args, theta: np.ndarray, osd: np.ndarray) -> list[dict]:
    n_rows = p.y.size
    rng = np.random.default_rng([args.seed, d])
    pilot = rng.choice(n_rows, args.pilot, replace=False)
    prior = np.full(n_rows, args.pilot / n_rows)
    y0 = np.full(n_rows, np.nan)
    y0[pilot] = p.y[pilot]
    f0 = pm.crossfit_surrogate(p.verdicts, p.y, pilot, d)
    pil = pairwise_pilot(p.a, p.b, y0, f0, probs=sd_probs(p, pilot), n_models=p.m)
    totals = [args.total] + [int(x) for x in args.adaptive_totals.split(",") if x]
    plan = plan_pairwise(pil, half_width=args.half_width, budgets=[args.total])
    in_pilot = np.zeros(n_rows, bool)
    in_pilot[pilot] = True
    u = rng.random(n_rows)  # one uniform per row: common random numbers across designs
    rows = []

    def run(design: str, total: int, union: np.ndarray, pred: float | None) -> None:
        wave = wave_probabilities(union, prior)
        lab = np.flatnonzero(in_pilot | (~in_pilot & (u < wave)))
        out = fit(p, lab, union, theta, d)
        rows.append({"draw": d, "design": design, "total": total, "pred_half": pred, **out})

    for total in totals:
        for design in ("uniform", "stratified", "adaptive", "oracle"):
            if total != args.total and design != "adaptive":
                continue
            n_new = total - args.pilot
            if design == "oracle":
                union = pairwise_adaptive(
                    p.a, p.b, theta, osd, n_new, prior=prior, uniform_share=0.0
                )
            elif design == "uniform":
                union = pairwise_uniform(n_rows, n_new, prior=prior)
            else:
                union = pil.design(design)(n_new)
            pred = plan.predicted.get(design, {}).get(total) if total == args.total else None
            run(design, total, union, pred)
    best = plan.recommended
    if best is not None and plan.needed[best] is not None:
        n_rec = int(plan.needed[best])  # type: ignore[arg-type]
        union = pil.design(best)(max(n_rec - args.pilot, 0))
        run(f"plan:{best}", n_rec, union, args.half_width)
    return rows


def run_all(p: Pairs, args) -> pd.DataFrame:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    csv = out / "draws.csv"
    done = pd.read_csv(csv) if csv.exists() else pd.DataFrame()
    start = int(done.draw.max()) + 1 if len(done) else 0
    theta = pm.bt_fit(p.a, p.b, p.y, p.m)
    osd = oracle_sd(p, theta)
    for d in range(start, args.draws):
        t0 = time.time()
        frame = pd.DataFrame(one_draw(p, d, args, theta, osd))
        frame["seconds"] = time.time() - t0
        frame.to_csv(csv, mode="a", header=not csv.exists(), index=False)
    return pd.read_csv(csv)


def _ms(x: pd.Series) -> str:
    return f"{x.mean():.4f} ({x.std(ddof=1) / np.sqrt(len(x)):.4f})"


def markdown(folder: str, total: int = 1000) -> str:
    df = pd.read_csv(Path(folder) / "draws.csv")
    lines = [
        "| design | total | draws | labeled | mean half-width | max half-width | coverage "
        "| predicted half-width | realised / predicted | lambda |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    df["row"] = np.where(df.design.str.startswith("plan:"), "plan: recommended", df.design)
    df["tot"] = np.where(df.row == "plan: recommended", -1, df.total)
    for (design, tot), g in df.groupby(["row", "tot"], sort=False):
        pred = g.pred_half.astype(float)
        ratio = g.half / pred if pred.notna().all() else None
        lines.append(
            f"| {design} | {tot if tot > 0 else 'its own'} | {len(g)} "
            f"| {g.n_labeled.mean():.0f} | {_ms(g.half)} | {_ms(g.max_half)} | {_ms(g.cover)} "
            f"| {_ms(pred) if pred.notna().all() else ''} "
            f"| {_ms(ratio) if ratio is not None else ''} | {g.lam.mean():.3f} |"
        )
    plan = df[df.row == "plan: recommended"]
    if len(plan):
        within = (plan.half / plan.pred_half - 1).abs() <= 0.1
        picks = plan.design.str.removeprefix("plan:").value_counts().to_dict()
        lines.append("")
        lines.append(
            f"- plan check (goal mean half-width {plan.pred_half.iloc[0]:g}): recommended "
            f"{picks}, {plan.total.mean():.0f} votes on average (range {plan.total.min()}-"
            f"{plan.total.max()}); realised / goal {_ms(plan.half / plan.pred_half)}; "
            f"within 10% in {within.mean():.1%} of draws"
        )
    lines.append("")
    wide = df[df.design.isin(["adaptive", "uniform"])].pivot_table(
        index="draw", columns=["design", "total"], values="half"
    )

    def votes_needed(w: pd.DataFrame) -> tuple[float, float]:
        # log-log line of the adaptive width over its totals, solved for uniform's width
        ad = w["adaptive"].mean()
        slope, icpt = np.polyfit(np.log(ad.index.to_numpy(float)), np.log(ad.to_numpy()), 1)
        return float(np.exp((np.log(w["uniform"][total].mean()) - icpt) / slope)), slope

    need, slope = votes_needed(wide)
    rng = np.random.default_rng(0)
    boot = [votes_needed(wide.iloc[rng.integers(0, len(wide), len(wide))])[0] for _ in range(400)]
    uni = float(wide["uniform"][total].mean())
    lines.append(
        f"- adaptive's mean half-width against its total: slope {slope:.3f} on the log-log "
        f"scale; uniform's width at {total} ({uni:.4f}) is reached with {need:.0f} votes "
        f"(bootstrap se over draws {np.std(boot):.0f}; {1 - need / total:.1%} fewer)"
    )
    for design in ("stratified", "adaptive", "oracle"):
        g = df[(df.design == design) & (df.total == total)].set_index("draw").half
        h = df[(df.design == "uniform") & (df.total == total)].set_index("draw").half
        r = (g / h).dropna()
        lines.append(
            f"- {design} / uniform width at {total}: {_ms(r)}; votes for uniform's width "
            f"by the 1/sqrt(n) law: {total * r.mean() ** 2:.0f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=150)
    ap.add_argument("--pilot", type=int, default=300)
    ap.add_argument("--total", type=int, default=1000)
    ap.add_argument("--adaptive-totals", default="800,900")
    ap.add_argument("--half-width", type=float, default=0.33, help="plan goal (logit)")
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--out")
    ap.add_argument("--markdown")
    ap.add_argument("--bound", action="store_true", help="closed-form bounds, true residuals")
    args = ap.parse_args(argv)
    if args.markdown:
        print(markdown(args.markdown, args.total))
        return
    if args.out is None and not args.bound:
        ap.error("--out DIR is required to run")
    path = find_shared_data(DATA)
    if path is None:
        print(f"shared/data/{DATA} not found (set BACON_SHARED_DATA); nothing run")
        return
    if args.bound:
        print(bound(load_arena(path), args.pilot, args.total))
        return
    run_all(load_arena(path), args)
    print(markdown(args.out, args.total))


if __name__ == "__main__":
    main()
