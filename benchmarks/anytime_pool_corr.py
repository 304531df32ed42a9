"""Issue 41: the pool mean's alpha-spending boundary on the looks' own correlation, and the
tuned surrogate weight's optimism, measured on the sequences of
:mod:`benchmarks.anytime_validation` (the same draws as ``anytime_t_looks --pool-misses``).

    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_pool_corr [--reps 4000]
        [--tables summeval] [--designs uniform] [--looks 10] [--seed 101] [--data DIR]
        [--package N]

Every look's pool-mean fit is recorded (its labels' residuals ``r_k = y - ybar - lam_k
(f_k - fbar)`` with the look's own cross-fitted surrogate and weight) and the rules below
are evaluated on the same sequences:

``today``        the package's before session 52: canonical correlation ``sqrt(I_j /
                 I_k)``, information in labels (finite-population corrected);
``own corr``     the correlation of looks ``j < k`` is the canonical one times the cosine
                 of the two looks' influence values on the labels they share, ``cos_jk =
                 sum_{S_j} q r_j r_k / sqrt(sum_{S_j} q r_j^2 sum_{S_j} q r_k^2)`` (``q =
                 w_j w_k (1 - pi_k)``, the coefficients of the Poisson-design covariance
                 ``sum_{S_j} w_j w_k (1 - pi_k) r_j r_k``; exact for equal probabilities
                 within a look); the looks as a Markov (canonical) process in an
                 effective information ``J_k = J_{k-1} (I_k / I_{k-1}) / cos_{k-1,k}^2``
                 (adjacent cosines: :func:`bacon_bayes.estimate.anytime.look_cosines`,
                 :func:`~bacon_bayes.estimate.anytime.correlated_information`; the grid
                 recursion on ``J``, spending times unchanged); cosines 1 give today's;
``weight df``    the tuned weight as one more fitted coefficient: the variance's residual
                 sum of squares over ``n - 2`` instead of ``n - 1``;
``weight delta`` the estimated weight's own variance added (delta method):
                 ``+ (F / N - fbar)^2 Var(lam)``, ``Var(lam) = sum_S (1 - pi) (c fc r)^2 /
                 (sum_S c fc^2)^2``;
``weight both``  the two together; ``own corr + both``, ``own corr + weight df``;
``own corr + Hall``  the package's now: ``own corr`` with the end on the skewed side moved
                 out by Hall's term at the look's critical value
                 (:func:`bacon_bayes.estimate.shape.skew_reach`).

``--package N`` (SummEval): the package itself, ``Calibrator(engine="freq")``
``estimate_mean(anytime=True, max_labels)`` fitted at every look of the first ``N``
sequences (its earlier looks refitted by :mod:`bacon_bayes.look_fits`), against ``own
corr + Hall`` look by look: the distances to both ends' ratios and the adjacent cosines'
largest difference.

Per rule: the chance that some look misses (se), the paired change against today
(sequences rescued / newly missing), the fixed interval's miss per look, and the last
look's half-width over today's fixed one. Diagnostics: the looks' mean estimated cosine
between adjacent looks, the cosine of looks 1 and K against the product of the adjacent
ones (the Markov model), and the empirical correlation of the estimates over sequences
against the canonical one and the mean of ``own corr``'s.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from bacon_bayes.estimate import anytime as at
from bacon_bayes.estimate import shape
from bacon_bayes.estimate.core import mean_core, residual_floor
from benchmarks import anytime_validation as v

#: rows of the grid recursion at once (its kernel is rows x grid^2)
BATCH = 400


class Recorder:
    """Wraps ``anytime_validation.mean_core`` (the pool's fit at each look) and keeps the
    look's labels' residuals, weights, weight, the delta-method term, the estimate's
    skewness and covariance of Hall's term (:func:`bacon_bayes.estimate.anytime.
    skew_moments`) and the residual floor's variance."""

    def __init__(self, core):
        self.core, self.calls = core, []

    def __call__(self, y, f, pi, f_sum, n_items, **kw):
        th, var, lam, n = self.core(y, f, pi, f_sum, n_items, **kw)
        w = 1.0 / pi
        r, fc = residuals(y, f, pi, lam)
        c = w * w * (1.0 - pi)
        var_lam = ((1.0 - pi) * (c * fc * r) ** 2).sum(axis=1) / (c * fc * fc).sum(axis=1) ** 2
        d = np.asarray(f_sum) / n_items - (f - fc)[:, 0]
        tuned = kw.get("lam") is None
        gamma, rho = shape.skew_moments(r, pi)
        floor = np.array([residual_floor(row) for row in y]) * c.sum(axis=1) / n_items**2
        self.calls.append(
            {"r": r, "pi": pi, "n": n, "var": var, "tuned": tuned, "delta": d * d * var_lam,
             "gamma": gamma, "rho": rho, "floor_var": floor,
             "fit": (y, f, f_sum, n_items, kw.get("lam"))}
        )  # fmt: skip
        return th, var, lam, n


def residuals(y, f, pi, lam) -> tuple[np.ndarray, np.ndarray]:
    """A look's AEE residuals ``(y - ybar) - lam (f - fbar)`` (Hajek means, weights
    ``1 / pi``) and its centred surrogate ``f - fbar`` (R, n)."""
    w = 1.0 / pi
    ybar = (w * y).sum(axis=1, keepdims=True) / w.sum(axis=1, keepdims=True)
    fbar = (w * f).sum(axis=1, keepdims=True) / w.sum(axis=1, keepdims=True)
    fc = f - fbar
    return (y - ybar) - lam[:, None] * fc, fc


def reweighed(call: dict, pi: np.ndarray) -> np.ndarray:
    """A recorded look's residuals under other probabilities ``pi`` of its labels, its
    weight retuned under them where it was tuned (the package's
    :func:`bacon_bayes.mean.aee_residuals` with a later pool's propensity)."""
    y, f, f_sum, n_items, lam = call["fit"]
    return residuals(y, f, pi, mean_core(y, f, pi, f_sum, n_items, lam=lam)[2])[0]


def latest_cosines(chunk: list[dict], k: int) -> np.ndarray:
    """(R, k) the adjacent cosines of looks ``1..k+1`` as the package reads them at look
    ``k + 1`` (:func:`bacon_bayes.look_fits.mean_cosines`): every look's residuals weighed
    by the latest look's probabilities of its labels (``pool.propensity``). Under uniform
    waves the cosines of :func:`~bacon_bayes.estimate.anytime.look_cosines` on each look's
    own probabilities; under adaptive ones (the wave-by-wave weights change as waves are
    added) and stratified ones (the strata's union probabilities drift apart) not quite."""
    now = chunk[k]["pi"]
    pis = [now[:, : chunk[j]["pi"].shape[1]] for j in range(k + 1)]
    res = [reweighed(chunk[j], pis[j]) for j in range(k)] + [chunk[k]["r"]]
    return at.look_cosines(res, pis)


def latest_boundaries(chunks: list[list[dict]], info: np.ndarray, times: np.ndarray) -> np.ndarray:
    """(R, K) each look's alpha-spending critical value on the looks' own correlation as
    the package computes it at that look (from the looks up to it, cosines by
    :func:`latest_cosines`); equal to :func:`boundaries` on the looks' own cosines under
    uniform waves."""
    out = np.empty(info.shape)
    out[:, 0] = boundaries(np.ascontiguousarray(info[:, :1]), times[:1])[:, 0]
    for k in range(1, times.size):
        adjacent = np.vstack([latest_cosines(ch, k) for ch in chunks])
        J = at.correlated_information(np.ascontiguousarray(info[:, : k + 1]), adjacent)
        out[:, k] = boundaries(J, times[: k + 1])[:, -1]
    return out


def looks_of(calls: list[dict], looks: int) -> list[list[dict]]:
    """The recorded calls as chunks of ``looks`` consecutive looks."""
    return [calls[s : s + looks] for s in range(0, len(calls), looks)]


def field(chunks: list[list[dict]], name: str) -> np.ndarray:
    """A recorded per-sequence quantity, (R, K)."""
    return np.vstack([np.column_stack([np.broadcast_to(c[name], c["n"].shape) for c in ch])
                      for ch in chunks])  # fmt: skip


def cosines(chunks: list[list[dict]], pairs: list[tuple[int, int]]) -> np.ndarray:
    """(R, len(pairs)) the cosine of looks ``j < k``'s residuals on the labels of ``j``."""
    out = []
    for ch in chunks:
        cols = []
        for j, k in pairs:
            nj = ch[j]["r"].shape[1]
            rj, rk = ch[j]["r"], ch[k]["r"][:, :nj]
            pj, pk = ch[j]["pi"], ch[k]["pi"][:, :nj]
            q = (1.0 - pk) / (pj * pk)
            num = (q * rj * rk).sum(axis=1)
            den = np.sqrt((q * rj * rj).sum(axis=1) * (q * rk * rk).sum(axis=1))
            cols.append(np.clip(num / np.maximum(den, 1e-300), 1e-6, 1.0))
        out.append(np.column_stack(cols))
    return np.vstack(out)


def boundaries(info: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Each look's alpha-spending critical value (R, K), from the looks up to it."""
    spent = at.obf_spending(times, v.ALPHA)
    out = np.empty(info.shape)
    for s in range(0, info.shape[0], BATCH):
        rows = info[s : s + BATCH]
        out[s : s + BATCH] = at.spending_critical_values(rows, np.broadcast_to(spent, rows.shape))
    return out


def evaluate(
    name: str, e, se, df, crit, truth, base_miss, fixed_half, shape=None
) -> tuple[dict, np.ndarray]:
    """One rule's row; ``shape``: the looks' ``(gamma, rho)`` of Hall's term (the
    package's reach on the skewed side, :func:`bacon_bayes.estimate.shape.skew_reach`)."""
    err = np.abs(e - truth) / se
    half = v.anytime_half(v._t(df), df, crit)
    down, up = half, half
    if shape is not None:
        extra = shape.skew_reach(crit, *shape)
        down, up = half + extra[0], half + extra[1]
    z = (e - truth) / se
    miss = (z > down) | (z < -up)
    half = (down + up) / 2.0
    some = miss.any(axis=1)
    p = float(some.mean())
    row = {
        "rule": name,
        "some look misses": round(p, 4),
        "se": round(float(np.sqrt(p * (1 - p) / some.size)), 4),
        "per look": miss.mean(axis=0).round(4).tolist(),
        "fixed per look": (err > v._t(df)).mean(axis=0).round(4).tolist(),
        "last half / today's fixed": round(float(np.mean((half * se)[:, -1] / fixed_half)), 4),
    }
    if base_miss is not None:
        row["rescued / newly missing"] = (
            int((base_miss & ~some).sum()),
            int((~base_miss & some).sum()),
        )
    return row, some


def package_halves(
    t: v.Table, sim: v.Looks, sequences: int, pis: list[np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The package's own alpha-spending distances to the lower and upper ends (R, K),
    adjacent cosines (R, K - 1) and estimates (R, K)
    of the pool mean on the first ``sequences`` of ``sim`` (SummEval), look by look:
    ``Calibrator(engine="freq", seed=r)`` fitted on the waves up to the look, its
    ``estimate_mean(anytime=True, max_labels=last look's labels)`` refitting every earlier
    look itself (:mod:`bacon_bayes.look_fits`). ``pis``: each look's probabilities of its
    labels in the order drawn (R, n_k), the pool's ``propensity`` then (a study's
    ``estimation_weights``: the union, or wave by wave under adaptive waves); None:
    uniform waves, no propensity."""
    import pandas as pd

    from bacon_bayes import Calibrator, EvalPool

    frame = pd.read_csv(v.SUMMEVAL)
    judges = [c for c in frame.columns if c.startswith("judge:") and c.endswith("|relevance")]
    looks = sim.labels.size
    bounds = np.concatenate([[0], sim.labels.astype(int)])
    low, high = np.full((sequences, looks), np.nan), np.full((sequences, looks), np.nan)
    cos = np.full((sequences, looks - 1), np.nan)
    est = np.full((sequences, looks), np.nan)
    for r in range(sequences):
        wave = np.full(t.n, np.nan)
        for k in range(looks):
            wave[sim.order[r, bounds[k] : bounds[k + 1]]] = k + 1
        for k in range(looks):
            w = np.where(wave <= k + 1, wave, np.nan)
            pi = np.full(t.n, np.nan)
            if pis is not None:
                pi[sim.order[r, : bounds[k + 1]]] = pis[k][r]
            pool = EvalPool.from_frame(
                frame.assign(label=np.where(np.isfinite(w), t.y, np.nan), wave=w, pi=pi),
                label="label", judges=judges, outcome="continuous", group="system",
                item="item", wave="wave", propensity=None if pis is None else "pi",
            )  # fmt: skip
            cal = Calibrator(engine="freq", seed=r).fit(pool)
            e = cal.estimate_mean(anytime=True, max_labels=int(sim.labels[-1]))
            low[r, k], high[r, k] = e.estimate - e.ci_low, e.ci_high - e.estimate
            est[r, k] = e.estimate
            if k == looks - 1:
                cos[r] = e.details["anytime"]["cosines"]
        print(f"  package: sequence {r + 1} of {sequences}", flush=True)
    return low, high, cos, est


def package_rows(
    ends: tuple[np.ndarray, np.ndarray], cos: np.ndarray, own: tuple[np.ndarray, np.ndarray],
    today: np.ndarray, adjacent: np.ndarray,
) -> list[dict]:  # fmt: skip
    """The package's distances to its ends and cosines against the harness's rule (the
    package's: own correlation and Hall's term) and today's, look by look, on the same
    sequences."""
    m = ends[0].shape[0]
    ratio = np.concatenate([ends[0] / own[0][:m], ends[1] / own[1][:m]], axis=1)
    half = (ends[0] + ends[1]) / 2
    looks = half.shape[1]
    return [
        {
            "rule": f"package vs the harness's, {m} sequences",
            "lower, upper distance package / harness, mean per look": [
                ratio[:, :looks].mean(axis=0).round(4).tolist(),
                ratio[:, looks:].mean(axis=0).round(4).tolist(),
            ],
            "largest |package / harness - 1|": round(float(np.abs(ratio - 1).max()), 4),
            "half-width package / today's, mean per look": (half / today[:m])
            .mean(axis=0)
            .round(4)
            .tolist(),
            "adjacent cosines package - (a), largest |difference|": round(
                float(np.abs(cos - adjacent[:m]).max()), 4
            ),
        }
    ]


def run_cell(
    t: v.Table, design: str, reps: int, looks: int, seed: int, save: Path | None = None,
    package: int = 0,
) -> list[dict]:  # fmt: skip
    rec = Recorder(v.mean_core)
    own = v.mean_core
    v.mean_core = rec
    try:
        sim = v.simulate(t, design, reps, looks, seed)
    finally:
        v.mean_core = own
    chunks = looks_of(rec.calls, looks)
    e, se, df = sim.pool
    var, n, tuned = field(chunks, "var"), field(chunks, "n"), field(chunks, "tuned")
    assert np.allclose(var, se**2, rtol=1e-10), "recorded fits are not the pool's"
    delta = field(chunks, "delta")
    truth = t.y.mean()
    times = sim.labels / sim.labels[-1]
    info = np.broadcast_to(at.effective_labels(sim.labels, float(t.n)), e.shape)
    adjacent = np.vstack(
        [at.look_cosines([c["r"] for c in ch], [c["pi"] for c in ch]) for ch in chunks]
    )
    first_last = cosines(chunks, [(0, looks - 1)])[:, 0]
    J = at.correlated_information(np.ascontiguousarray(info), adjacent)
    crit_today = boundaries(np.ascontiguousarray(info[:1]), times)
    crit_today = np.broadcast_to(crit_today, e.shape)
    crit_own = boundaries(J, times)
    if save is not None:  # the arrays, for a look at the full correlation
        pairs = [(j, k) for k in range(looks) for j in range(k)]
        full = cosines(chunks, pairs)
        np.savez(save.with_name(f"{save.name}_{t.name}_{design}_{looks}.npz"), e=e, se=se,
                 df=df, info=info, J=J, cos=full, pairs=np.array(pairs), truth=truth,
                 times=times, crit_today=crit_today, crit_own=crit_own)  # fmt: skip
    fixed_half = (v._t(df) * se)[:, -1]
    var_df = np.where(tuned, var * (n - 1.0) / (n - 2.0), var)
    var_delta = np.where(tuned, var + delta, var)
    var_both = np.where(tuned, var_df + delta, var)
    shape = (field(chunks, "gamma"), field(chunks, "rho"))
    rules = [
        ("today", se, crit_today, None),
        ("own corr", se, crit_own, None),
        ("own corr + Hall (the package)", se, crit_own, shape),
        ("weight df", np.sqrt(var_df), crit_today, None),
        ("weight delta", np.sqrt(var_delta), crit_today, None),
        ("weight both", np.sqrt(var_both), crit_today, None),
        ("own corr + weight both", np.sqrt(var_both), crit_own, None),
        ("own corr + weight df", np.sqrt(var_df), crit_own, None),
    ]
    rows, base = [], None
    for name, s, crit, sh in rules:
        row, some = evaluate(name, e, s, df, crit, truth, base, fixed_half, sh)
        base = some if base is None else base
        rows.append(row)
    if package:  # the package itself on the first sequences
        low, high, pcos, _ = package_halves(t, sim, min(package, reps))
        own_half = v.anytime_half(v._t(df), df, crit_own)
        own = [own_half + extra for extra in shape.skew_reach(crit_own, *shape)]
        today_half = v.anytime_half(v._t(df), df, crit_today) * se
        rows += package_rows((low, high), pcos, (own[0] * se, own[1] * se), today_half, adjacent)
    canon = np.sqrt(info[0, :-1] / info[0, 1:])
    z = (e - truth) / se
    emp = np.array([np.corrcoef(z[:, k - 1], z[:, k])[0, 1] for k in range(1, looks)])
    est = e - e.mean(axis=0)
    emp_e = np.array([np.corrcoef(est[:, k - 1], est[:, k])[0, 1] for k in range(1, looks)])
    diag = {
        "rule": "diagnostics",
        "adjacent cosine, mean": adjacent.mean(axis=0).round(4).tolist(),
        "canonical adjacent corr": canon.round(4).tolist(),
        "own adjacent corr, mean": (canon * adjacent).mean(axis=0).round(4).tolist(),
        "empirical adjacent corr of estimates": emp_e.round(4).tolist(),
        "empirical adjacent corr of z": emp.round(4).tolist(),
        "cos(1, K) mean / product of adjacent, mean": (
            round(float(first_last.mean()), 4),
            round(float(adjacent.prod(axis=1).mean()), 4),
        ),
        "last look's critical value: today / own (median, 90%)": (
            round(float(crit_today[0, -1]), 4),
            round(float(np.median(crit_own[:, -1])), 4),
            round(float(np.quantile(crit_own[:, -1], 0.9)), 4),
        ),
        "tuned looks": tuned[0].astype(int).tolist(),
        "weight both: variance up at tuned looks, median": np.round(
            np.median(np.where(tuned, var_both / var, np.nan), axis=0), 4
        ).tolist(),
    }
    return [*rows, diag]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=4000)
    p.add_argument("--looks", default="10")
    p.add_argument("--designs", default="uniform")
    p.add_argument("--tables", default="summeval")
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--seed", type=int, default=101)
    p.add_argument("--save", type=Path, default=None, help="write each cell's arrays (stem)")
    p.add_argument(
        "--package", type=int, default=0,
        help="also run the package (Calibrator) on this many sequences (SummEval)",
    )  # fmt: skip
    args = p.parse_args()
    start = time.perf_counter()
    for t in v.load_tables(args.data, tuple(args.tables.split(","))):
        t.pair, _ = v.pick_pair(t, args.seed)
        for design in args.designs.split(","):
            for k in (int(x) for x in args.looks.split(",")):
                print(f"{t.name} {design} {k} looks, {args.reps} sequences:", flush=True)
                rows = run_cell(t, design, args.reps, k, args.seed, args.save, args.package)
                for row in rows:
                    print(" ", row, flush=True)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
