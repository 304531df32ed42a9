"""Bradley-Terry intervals of rarely compared models on ``shared/data/arena_ppr``: before
and after the t-variance inflation ``nu / (nu - 2)`` of the sandwich, on the same draws.

    python -m benchmarks.bt_smallsample --draws 400 --labels 500,1000,2000 --out DIR
    python -m benchmarks.bt_smallsample --report DIR

The draws are those of :mod:`benchmarks.pairwise_study` (the same labeled rows and the same
cross-fitted surrogate, seed ``(20261129, n, draw)``); each keeps the package's estimate,
covariance and effective df per model (``DIR/bt_n<n>.npz``). "main" divides the inflation
back out of the covariance: the plain sandwich. The report prints, per budget, coverage of
the full-data strengths (per model, the worst model, simultaneous max-|t|), mean widths,
and for the least-compared models the labeled comparisons, the studentised error's mean and
sd and ``E[se^2] / var(error)`` under the plain sandwich.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from scipy import stats

from bacon_bayes.estimate.bradley_terry import MIN_DF, bradley_terry
from bacon_bayes.estimate.critical import simultaneous_critical_value
from bacon_bayes.estimate.tables import correlation
from benchmarks import pairwise_methods as pm
from benchmarks import pairwise_study as ps
from benchmarks.adaptive_experiment import find_shared_data

SEED = 20261129


def run(p: ps.Pairs, n: int, draws: int, out: Path) -> None:
    """The package's fit on ``draws`` label draws of ``n`` votes, saved to ``out``."""
    t = ps.truth(p)
    keys = ("err", "cov", "df", "nlab")
    res: dict[str, list] = {k: [] for k in keys}
    for d in range(draws):
        lab = ps.label_draw(p.y.size, n, d, SEED)
        f = pm.crossfit_surrogate(p.verdicts, p.y, lab, SEED + d)
        y = np.full(p.y.size, np.nan)
        y[lab] = p.y[lab]
        fit = bradley_terry(p.a, p.b, y, f, names=p.names, n_models=p.m)
        res["err"].append(fit.estimate - t.strength)
        res["cov"].append(fit.cov)
        res["df"].append(fit.details["effective_df"])
        res["nlab"].append(fit.n_labeled)
    out.mkdir(parents=True, exist_ok=True)
    names = np.array(p.names)
    np.savez(out / f"bt_n{n}.npz", names=names, **{k: np.array(v) for k, v in res.items()})


def _rows(path: Path) -> tuple[list[str], list[str]]:
    d = np.load(path)
    err, cov, df, nlab, names = d["err"], d["cov"], d["df"], d["nlab"], d["names"]
    n = path.stem.split("_n")[-1]
    z0 = stats.norm.isf(0.025)
    table, diag = [], []
    for name in ("plain sandwich (main)", "x nu/(nu-2) (this change)"):
        pw, sim, wid, swid = [], [], [], []
        for i in range(err.shape[0]):
            g = np.sqrt(df[i] / (np.maximum(df[i], MIN_DF) - 2.0))
            c = cov[i] if name.startswith("x") else cov[i] / np.outer(g, g)
            se = np.sqrt(np.diag(c))
            crit = simultaneous_critical_value(correlation(c), 0.05, "maxt", draws=20_000)[0]
            a = np.abs(err[i]) / se
            pw.append(a <= z0)
            sim.append(float((a <= crit).all()))
            wid.append(2 * z0 * se.mean())
            swid.append(2 * crit * se.mean())
        cover = np.mean(pw, axis=0)
        s_se = np.std(sim, ddof=1) / np.sqrt(len(sim))
        table.append(
            f"| {n} | {name} | {len(sim)} | {cover.mean():.3f} | {cover.min():.3f} "
            f"({names[cover.argmin()]}) | {np.mean(sim):.3f} ({s_se:.3f}) | "
            f"{np.mean(wid):.4f} | {np.mean(swid):.4f} |"
        )
    g = np.sqrt(df / (np.maximum(df, MIN_DF) - 2.0))
    var_plain = np.diagonal(cov, axis1=1, axis2=2) / g**2
    zs = err / np.sqrt(var_plain)
    for k in np.argsort(nlab.mean(axis=0))[:4]:
        diag.append(
            f"| {n} | {names[k]} | {nlab[:, k].mean():.1f} ({nlab[:, k].min()}) | "
            f"{df[:, k].mean():.1f} | {zs[:, k].mean():+.3f} | {zs[:, k].std():.3f} | "
            f"{var_plain[:, k].mean() / err[:, k].var():.3f} | "
            f"{(np.abs(zs[:, k]) <= z0).mean():.3f} | "
            f"{(np.abs(zs[:, k]) / g[:, k] <= z0).mean():.3f} |"
        )
    return table, diag


def report(out: Path) -> str:
    """Markdown tables of every ``bt_n*.npz`` in ``out``."""
    paths = sorted(out.glob("bt_n*.npz"), key=lambda f: int(f.stem.split("_n")[-1]))
    rows = [_rows(f) for f in paths]
    head = (
        "| n | variance | draws | coverage per model | worst model | simultaneous | width "
        "| sim width |\n|---|---|---|---|---|---|---|---|\n"
    )
    head2 = (
        "\n| n | least-compared model | labeled comparisons (min) | effective df | "
        "studentised error mean | sd | E[se^2] / var(error) | coverage, main | "
        "coverage, this change |\n|---|---|---|---|---|---|---|---|---|\n"
    )
    return (
        head
        + "".join(r + "\n" for t, _ in rows for r in t)
        + head2
        + "".join(r + "\n" for _, d in rows for r in d)
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--labels", default="500,1000,2000")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--report", type=Path, metavar="DIR")
    a = ap.parse_args(argv)
    if a.report:
        print(report(a.report))
        return
    if a.out is None:
        ap.error("--out DIR is required to run")
    path = find_shared_data(ps.DATA)
    if path is None:
        print(f"shared/data/{ps.DATA} not found (set BACON_SHARED_DATA); nothing run")
        return
    p = ps.load_arena(path)
    for n in (int(x) for x in a.labels.split(",")):
        run(p, n, a.draws, a.out)
    print(report(a.out))


if __name__ == "__main__":
    main()
