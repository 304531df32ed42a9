"""Validation harness of issue 44: Bradley-Terry strengths from judge verdicts plus a few
human votes, on ``shared/data/arena_ppr`` (26,919 Chatbot Arena comparisons of 20 models,
each with a human vote and three LLM judges' verdicts).

    python -m benchmarks.pairwise_study --draws 400 --labels 500,1000,2000 --out DIR
    python -m benchmarks.pairwise_study --markdown DIR
    python -m benchmarks.pairwise_study --bound   # what limits the oracle surrogate

Each draw labels ``n`` rows uniformly at random (seed ``(seed, n, draw)``: the SAME rows
for every method); every other row keeps only its judges. Targets: the Bradley-Terry fit
on all rows' human votes (ties as 0.5, mean-zero log-odds) and its ranks. Methods
(``--methods``):

* ``human``: BT on the labeled votes alone (sandwich se with the FPC; the harness's
  reference, :func:`benchmarks.pairwise_methods.bt_human`).
* ``aee-ref``: the harness's reference augmented estimating equation with the cross-fitted
  surrogate (5 folds over the labeled rows, multinomial logit of the vote on the judges'
  one-hot verdicts, ``E[y]`` for every row), weight power-tuned; a check for the package.
* ``bacon-freq``: the package's ``bacon_bayes.estimate.bradley_terry.bradley_terry`` with
  the same surrogate (skipped with a message while that module is missing).
* ``ppi_py``: ``ppi_logistic_ci`` on the decisive votes (its own target: BT on all decisive
  human votes; contrasts to the most-compared model).
* ``ppr``: Prediction-Powered Ranking (win rates, GPT-4's verdicts), rank sets only.
* ``oracle``: ``aee-ref`` with the surrogate ``E[y | 27 verdict cells]`` fitted on ALL human
  votes (a bound, not a method); ``oracle+pair``: ``p_ab + E[y - p_ab | cell]`` with the
  full-data BT win chance ``p_ab`` (what the judges add beyond the strengths).

One CSV per (method, n) in ``--out`` with one row per draw; a rerun continues where it
stopped. ``--markdown`` prints the tables with Monte Carlo standard errors.
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from benchmarks import pairwise_methods as pm
from benchmarks.adaptive_experiment import find_shared_data

DATA = Path("arena_ppr/arena_ppr.csv.gz")
JUDGES = ("judge_gpt4_0125", "judge_claude3_opus", "judge_gpt35_turbo")
METHODS = ("human", "aee-ref", "bacon-freq", "ppi_py", "ppr", "oracle", "oracle+pair")
FIELDS = (
    "draw cover_mean cover_low sim_cover width_mean sim_width_mean cwidth_mean rank_size "
    "rank_cover own_rank_cover lam n_decisive seconds covered"
).split()


@dataclass
class Pairs:
    """A fully labeled table of comparisons: model codes, human score of A, judges' verdicts."""

    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    verdicts: np.ndarray
    names: tuple[str, ...]

    @property
    def m(self) -> int:
        return len(self.names)


def load_arena(path: Path) -> Pairs:
    """Read ``arena_ppr.csv.gz`` (human_y and the three judges' ``_y`` in {0, 0.5, 1})."""
    df = pd.read_csv(path)
    names = tuple(sorted(set(df.model_a) | set(df.model_b)))
    code = {n: k for k, n in enumerate(names)}
    return Pairs(
        a=df.model_a.map(code).to_numpy(int),
        b=df.model_b.map(code).to_numpy(int),
        y=df.human_y.to_numpy(float),
        verdicts=df[[f"{j}_y" for j in JUDGES]].to_numpy(float),
        names=names,
    )


def simulate_pairs(n_rows: int = 1500, m: int = 5, seed: int = 0) -> Pairs:
    """Comparisons with known strengths, ties (Davidson-style) and three judges of falling
    quality, the last biased towards A (for tests; no shared data needed)."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(-1.0, 1.0, m)
    a = rng.integers(0, m, n_rows)
    b = (a + rng.integers(1, m, n_rows)) % m
    d = theta[a] - theta[b]
    pa, pb, pt = np.exp(d / 2), np.exp(-d / 2), 0.8 * np.ones(n_rows)
    u = rng.random(n_rows) * (pa + pb + pt)
    y = np.where(u < pa, 1.0, np.where(u < pa + pb, 0.0, 0.5))
    verdicts = np.empty((n_rows, 3))
    for k, (keep, bias) in enumerate([(0.7, 0.0), (0.5, 0.0), (0.2, 0.6)]):
        noise = rng.choice([0.0, 0.5, 1.0], n_rows, p=[(1 - bias) / 2, 0.0, (1 + bias) / 2])
        verdicts[:, k] = np.where(rng.random(n_rows) < keep, y, noise)
    return Pairs(a, b, y, verdicts, tuple(f"m{k}" for k in range(m)))


@dataclass
class Truth:
    strength: np.ndarray
    ranks: np.ndarray
    decisive: np.ndarray  # BT on the decisive votes, last-model-free contrasts to ``ref``
    win_ranks: np.ndarray  # ranks of PPR's win rates
    ref: int
    scale: float  # sd of decisive-scale contrasts over that of the pool-scale ones


def truth(p: Pairs) -> Truth:
    strength = pm.bt_fit(p.a, p.b, p.y, p.m)
    dec = p.y != 0.5
    sd = pm.bt_fit(p.a[dec], p.b[dec], p.y[dec], p.m)
    ref = int(np.argmax(np.bincount(np.r_[p.a, p.b], minlength=p.m)))
    keep = np.arange(p.m) != ref
    win = np.nanmean(pm.win_indicators(p.a, p.b, p.y, p.m), axis=0)
    c_dec, c_pool = sd[keep] - sd[ref], strength[keep] - strength[ref]
    return Truth(
        strength,
        pm.true_ranks(strength),
        c_dec,
        pm.true_ranks(win),
        ref,
        float(np.std(c_dec) / np.std(c_pool)),
    )


def oracle(p: Pairs, t: Truth, with_pair: bool = False) -> np.ndarray:
    """The oracle surrogate from ALL human votes: ``E[y | verdict cell]`` (27 cells), or with
    the pair known ``p_ab + E[y - p_ab | cell]`` with ``p_ab`` the full-data BT win chance
    (the best additive function of the pair and the judges)."""
    if not with_pair:
        return pm.oracle_surrogate(p.verdicts, p.y)
    prob = 1.0 / (1.0 + np.exp(-(t.strength[p.a] - t.strength[p.b])))
    return np.clip(prob + pm.oracle_surrogate(p.verdicts, p.y - prob), 0.0, 1.0)


def bound_figures(p: Pairs) -> str:
    """Why the oracle cannot reach ``sqrt(1 - R^2)`` of the raw vote: the strengths' sampling
    variance is that of the vote around its BT prediction ``p_ab`` (the scores ``x (y - p)``),
    and the judges explain far less of that residual than of the vote."""
    t = truth(p)
    prob = 1.0 / (1.0 + np.exp(-(t.strength[p.a] - t.strength[p.b])))
    resid = p.y - prob
    r2_vote = 1 - np.var(p.y - pm.oracle_surrogate(p.verdicts, p.y)) / np.var(p.y)
    r2_resid = 1 - np.var(resid - pm.oracle_surrogate(p.verdicts, resid)) / np.var(resid)
    x = pm.design(p.a, p.b, p.m)
    gy = x * resid[:, None]
    gr = x * (resid - pm.oracle_surrogate(p.verdicts, resid))[:, None]
    score = np.trace(np.cov(gr.T)) / np.trace(np.cov(gy.T))
    pair_lines = "".join(
        f"\n- the best of cells x {kind} pair (5-fold, each cell-pair mean shrunk to its cell's "
        f"as if {k:g} votes, the k of the best out-of-fold fit): out-of-fold R^2 of the "
        f"residual {r2:.3f}, sqrt of the score trace ratio {np.sqrt(tr):.3f}"
        for kind, (k, r2, tr) in cell_pair_bound(p, resid, x).items()
    )
    return (
        f"- variance of the vote {np.var(p.y):.4f}; around the full-data BT prediction "
        f"{np.var(resid):.4f} (the strengths explain {1 - np.var(resid) / np.var(p.y):.3f})\n"
        f"- R^2 of the 27 verdict cells: of the vote {r2_vote:.3f} "
        f"(sqrt(1 - R^2) = {np.sqrt(1 - r2_vote):.3f}); of the vote's BT residual "
        f"{r2_resid:.3f} (sqrt(1 - R^2) = {np.sqrt(1 - r2_resid):.3f})\n"
        f"- trace of the score covariance x (y - p) left by the best cell surrogate: "
        f"{score:.3f} (sqrt = {np.sqrt(score):.3f}, the width ratio with N >> n)"
        f"{pair_lines}"
    )


def cell_pair_bound(
    p: Pairs, resid: np.ndarray, x: np.ndarray, shrink: tuple[float, ...] = (2, 5, 20, 80)
) -> dict[str, tuple[float, float, float]]:
    """Whether the judges' verdicts *with* the model pair could do better than the 27 cells:
    the residual's mean in each (cell, pair), shrunk toward the cell's mean as if ``k``
    votes (the best ``k`` kept: generous), fitted on four fifths of ALL votes and read on
    the fifth left out (the saturated in-sample fit, 4,376 cells, only memorises rows).
    Returns, per pair kind, ``(k, out-of-fold R^2 of the residual, score trace ratio)``."""
    cell = (p.verdicts * 2).astype(int) @ np.array([9, 3, 1])
    fold = np.random.default_rng(0).integers(0, 5, resid.size)
    pairs = {
        "unordered": np.minimum(p.a, p.b) * p.m + np.maximum(p.a, p.b),
        "ordered (position)": p.a * p.m + p.b,
    }
    gy = x * resid[:, None]
    out = {}
    for kind, pair in pairs.items():
        key = cell * p.m * p.m + pair
        best = None
        for k in shrink:
            fit = np.zeros_like(resid)
            for q in range(5):
                train = pd.DataFrame({"cell": cell, "key": key, "r": resid})[fold != q]
                by_cell = train.groupby("cell")["r"].mean()
                by_key = train.groupby("key")["r"].agg(["sum", "count"])
                test = fold == q
                base = pd.Series(cell[test]).map(by_cell).fillna(0.0).to_numpy()
                agg = by_key.reindex(key[test])
                s, c = agg["sum"].fillna(0.0).to_numpy(), agg["count"].fillna(0.0).to_numpy()
                fit[test] = (s + k * base) / (c + k)
            gr = x * (resid - fit)[:, None]
            r2 = 1 - np.var(resid - fit) / np.var(resid)
            row = (k, r2, float(np.trace(np.cov(gr.T)) / np.trace(np.cov(gy.T))))
            best = row if best is None or row[2] < best[2] else best
        assert best is not None
        out[kind] = best
    return out


def _bacon_freq(p: Pairs, lab: np.ndarray, f: np.ndarray, alpha: float) -> dict | None:
    try:
        mod = importlib.import_module("bacon_bayes.estimate.bradley_terry")
    except ModuleNotFoundError:
        return None
    y = np.full(p.y.size, np.nan)
    y[lab] = p.y[lab]
    kw = {"names": p.names, "n_models": p.m, "alpha": alpha}
    point = mod.bradley_terry(p.a, p.b, y, f, **kw)
    sim = mod.bradley_terry(p.a, p.b, y, f, simultaneous=True, **kw)
    return {
        "estimate": np.asarray(point.estimate),
        "cov": np.asarray(point.cov),
        "low": np.asarray(point.ci_low),
        "high": np.asarray(point.ci_high),
        "sim_low": np.asarray(sim.ci_low),
        "sim_high": np.asarray(sim.ci_high),
    }


def _strength_row(fit: dict, t: Truth, alpha: float) -> dict:
    """Metrics of mean-zero strengths with a covariance (human, aee-ref, bacon-freq, oracle)."""
    est, cov = fit["estimate"], fit["cov"]
    iv = pm.intervals(est, cov, alpha)
    low, high = fit.get("low", est - iv["half"]), fit.get("high", est + iv["half"])
    s_low = fit.get("sim_low", est - iv["sim_half"])
    s_high = fit.get("sim_high", est + iv["sim_half"])
    cov_k = (low <= t.strength) & (t.strength <= high)
    keep = np.arange(est.size) != t.ref
    var_c = cov[keep][:, keep] + cov[t.ref, t.ref] - cov[keep, t.ref][:, None] - cov[t.ref, keep]
    sets = pm.rank_sets_maxt(est, cov, alpha)
    z = stats.norm.isf(alpha / 2)
    return {
        "cover_mean": cov_k.mean(),
        "cover_low": float(cov_k[np.argmin(t.strength)]),
        "sim_cover": float(np.all((s_low <= t.strength) & (t.strength <= s_high))),
        "width_mean": float(np.mean(high - low)),
        "sim_width_mean": float(np.mean(s_high - s_low)),
        "cwidth_mean": float(np.mean(2 * z * np.sqrt(np.clip(np.diag(var_c), 0.0, None)))),
        "rank_size": float(np.mean(sets[:, 1] - sets[:, 0] + 1)),
        "rank_cover": float(np.all((sets[:, 0] <= t.ranks) & (t.ranks <= sets[:, 1]))),
        "lam": float(fit.get("lam", np.nan)),
        "covered": "".join("1" if c else "0" for c in cov_k),
    }


def one_draw(
    p: Pairs, t: Truth, method: str, lab: np.ndarray, cache: dict, seed: int, alpha: float
) -> dict | None:
    """One method on one label draw; ``None`` when the method is unavailable."""
    if method in ("aee-ref", "bacon-freq") and "f" not in cache:
        cache["f"] = pm.crossfit_surrogate(p.verdicts, p.y, lab, seed)
    if method == "human":
        return _strength_row(pm.bt_human(p.a, p.b, p.y, lab, p.m), t, alpha)
    if method == "aee-ref":
        return _strength_row(pm.bt_aee(p.a, p.b, p.y, lab, cache["f"], p.m), t, alpha)
    if method in ("oracle", "oracle+pair"):
        if method not in cache:
            cache[method] = oracle(p, t, with_pair=method == "oracle+pair")
        return _strength_row(pm.bt_aee(p.a, p.b, p.y, lab, cache[method], p.m), t, alpha)
    if method == "bacon-freq":
        fit = _bacon_freq(p, lab, cache["f"], alpha)
        return None if fit is None else _strength_row(fit, t, alpha)
    if method == "ppi_py":
        try:
            ci = pm.ppi_py_contrasts(p.a, p.b, p.y, p.verdicts, lab, p.m, t.ref, alpha, seed)
        except np.linalg.LinAlgError:  # e.g. a model that won or lost all its decisive votes
            return {"covered": ""}  # a failed draw: metrics NaN, counted in "failed"
        hit = (ci["low"] <= t.decisive) & (t.decisive <= ci["high"])
        return {
            "cover_mean": hit.mean(),
            "cwidth_mean": float(np.mean(ci["high"] - ci["low"])),
            "n_decisive": float(ci["n_decisive"]),
            "covered": "".join("1" if c else "0" for c in hit),
        }
    if method == "ppr":
        wh = cache.setdefault("win_h", pm.win_indicators(p.a, p.b, p.y, p.m))
        wj = cache.setdefault("win_j", pm.win_indicators(p.a, p.b, p.verdicts[:, 0], p.m))
        r = pm.ppr_rank_sets(wh, wj, lab, alpha)
        s = r["sets"]
        return {
            "rank_size": float(np.mean(s[:, 1] - s[:, 0] + 1)),
            "rank_cover": float(np.all((s[:, 0] <= t.ranks) & (t.ranks <= s[:, 1]))),
            "own_rank_cover": float(np.all((s[:, 0] <= t.win_ranks) & (t.win_ranks <= s[:, 1]))),
            "lam": float(r["lam"]),
        }
    raise ValueError(f"unknown method {method!r}; have {', '.join(METHODS)}")


def label_draw(n_rows: int, n: int, draw: int, seed: int) -> np.ndarray:
    return np.sort(np.random.default_rng([seed, n, draw]).choice(n_rows, n, replace=False))


def _cell(out: Path, method: str, n: int) -> Path:
    return out / f"{method}_n{n}.csv"


def run(
    p: Pairs,
    out: Path,
    labels: list[int],
    draws: int,
    methods: list[str],
    seed: int = 20261129,
    alpha: float = 0.05,
) -> None:
    """Fill ``out/<method>_n<n>.csv`` up to ``draws`` rows each (resumable, draws in order)."""
    out.mkdir(parents=True, exist_ok=True)
    t = truth(p)
    write_meta(p, t, out)
    skipped: set[str] = set()
    for n in labels:
        done = {}
        for meth in methods:
            f = _cell(out, meth, n)
            done[meth] = set(pd.read_csv(f).draw) if f.exists() and f.stat().st_size else set()
        for d in range(draws):
            lab = label_draw(p.y.size, n, d, seed)
            cache: dict = {}
            for meth in methods:
                if d in done[meth] or meth in skipped:
                    continue
                start = time.perf_counter()
                row = one_draw(p, t, meth, lab, cache, seed + d, alpha)
                if row is None:
                    print(f"{meth}: bacon_bayes.estimate.bradley_terry is missing; row skipped")
                    skipped.add(meth)
                    continue
                row = {k: row.get(k, np.nan) for k in FIELDS} | {"draw": d}
                row["seconds"] = time.perf_counter() - start
                f = _cell(out, meth, n)
                pd.DataFrame([row], columns=FIELDS).to_csv(
                    f, mode="a", header=not f.exists(), index=False
                )


def write_meta(p: Pairs, t: Truth, out: Path) -> None:
    """``out/meta.json``: the ppi_py reference model and the decisive/pool scale factor."""
    meta = {"rows": int(p.y.size), "models": p.m, "ppi_ref": p.names[t.ref], "scale": t.scale}
    (out / "meta.json").write_text(json.dumps(meta, indent=1))


def _mc(x: pd.Series) -> str:
    x = x.dropna()
    if x.empty:
        return ""
    se = x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else np.nan
    return f"{x.mean():.3f} ({se:.3f})"


def summary(out: Path) -> pd.DataFrame:
    """One row per (n, method): means over draws with their Monte Carlo se in brackets."""
    meta = out / "meta.json"
    scale = json.loads(meta.read_text())["scale"] if meta.exists() else np.nan
    cells = {}
    for f in sorted(out.glob("*_n*.csv")):
        meth, n = f.stem.rsplit("_n", 1)
        cells[(int(n), meth)] = pd.read_csv(f, dtype={"covered": str}).set_index("draw")
    rows = []
    for (n, meth), b in sorted(cells.items(), key=lambda kv: (kv[0][0], METHODS.index(kv[0][1]))):
        hum, ppi = cells.get((n, "human")), cells.get((n, "ppi_py"))
        bits = b.covered.dropna().astype(str)
        worst = np.nan
        if len(bits):
            bits = bits.str.zfill(bits.str.len().max())  # a CSV read may drop leading zeros
            worst = np.array([list(s) for s in bits], int).mean(axis=0).min()
        failed = int(b.cwidth_mean.isna().sum()) if meth != "ppr" else 0
        row = {"n": n, "method": meth, "draws": len(b), "failed": failed}
        row["coverage per model"] = _mc(b.cover_mean)
        row["worst model"] = "" if np.isnan(worst) else f"{worst:.3f}"
        row["lowest model"] = _mc(b.cover_low)
        row["simultaneous"] = _mc(b.sim_cover)
        row["width"] = _mc(b.width_mean)
        if hum is not None:
            j = b.join(hum.add_suffix("_h"), how="inner")
            row["width / human"] = _mc(j.width_mean / j.width_mean_h)
            row["sim width / human"] = _mc(j.sim_width_mean / j.sim_width_mean_h)
        if ppi is not None and meth != "ppi_py":
            j = b.join(ppi.add_suffix("_p"), how="inner")
            row["contrast width / ppi_py"] = _mc(j.cwidth_mean / j.cwidth_mean_p)
            row["same, scale-matched"] = _mc(scale * j.cwidth_mean / j.cwidth_mean_p)
        row["rank-set size"] = _mc(b.rank_size)
        row["rank coverage"] = _mc(b.rank_cover)
        row["own-target rank coverage"] = _mc(b.own_rank_cover)
        row["lambda"] = _mc(b.lam)
        row["s/draw"] = f"{b.seconds.mean():.2f}"
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


def markdown(out: Path) -> str:
    df = summary(out)
    df = df.loc[:, (df != "").any(axis=0)]
    head = "| " + " | ".join(df.columns) + " |\n|" + "---|" * df.shape[1] + "\n"
    return head + "".join("| " + " | ".join(map(str, r)) + " |\n" for r in df.to_numpy())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--labels", default="500,1000,2000")
    ap.add_argument("--methods", default="human,aee-ref,bacon-freq,ppi_py,ppr")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--markdown", type=Path, metavar="DIR", help="print the tables of DIR")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--bound", action="store_true", help="print the oracle bound's figures")
    a = ap.parse_args(argv)
    if a.markdown:
        print(markdown(a.markdown))
        return
    if a.out is None and not a.bound:
        ap.error("--out DIR is required to run")
    path = find_shared_data(DATA)
    if path is None:
        print(f"shared/data/{DATA} not found (set BACON_SHARED_DATA); nothing run")
        return
    p = load_arena(path)
    if a.bound:
        print(bound_figures(p))
        return
    t = truth(p)
    print(
        f"{p.y.size} rows, {p.m} models; ppi_py reference model {p.names[t.ref]}; "
        f"decisive/pool contrast scale {t.scale:.2f}"
    )
    methods = a.methods.split(",")
    run(p, a.out, [int(x) for x in a.labels.split(",")], a.draws, methods, a.seed)
    print(markdown(a.out))


if __name__ == "__main__":
    main()
