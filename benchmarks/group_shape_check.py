"""A skewed group's interval from the other groups' tail shape (issues 40 and 41): the
package's group intervals today against the same intervals joined with a skew-corrected
one (:mod:`bacon_bayes.estimate.shape`: the group's skewness shrunk toward the other groups',
as a function of the group's position in the labels' range; Hall 1992's Cornish-Fisher
term), on the same draws.

Tables: WMT22 (16 systems, the anytime harness's 150 segments), TriviaQA (8 models) and
SummEval's four dimensions (12 systems, the shipped sample). The surrogate is a
least-squares line of the label on all judges fitted on the whole table (a stand-in for
the cross-fitted one, as :mod:`benchmarks.skewed_group_check`). Each draw labels ``n``
items of every group without replacement (stratified: ``pi = n / N_g``); the truth is
each group's mean label. Intervals, pointwise 95%:

- ``today``: the package's default before the skew reach (shrunk below 10 labels a group,
  separate from 10 on: the bootstrap-t, its variance at least the moderated one);
- ``+own t``: ``today`` joined with the group's own Student-t interval (own AEE estimate,
  own variance, ``n - 1`` df): what the join does without any skewness;
- ``+own``: ``today`` joined with the own-studentised skew-corrected interval
  ``[own - (t - s) se_own, own + (t + s) se_own]``, ``s = gamma (2 t^2 + 1) / (6 sqrt(n))``
  with ``gamma`` the shrunk skewness (:func:`bacon_bayes.estimate.shape.shrunk_skewness`);
- ``+own, true skewness``: the same with each group's skewness over all its items (an
  oracle: what a perfect skewness estimate would give this rule);
- ``skew reach``: the package's (:func:`bacon_bayes.estimate.shape.skew_join`): ``+own``
  on the skewed side only and only where the group's own variance is below its moderated
  one (labels that have not met the tail), on the bootstrap branch (10 labels or more);
- ``shift``: ``today``'s ends both moved by ``s se_own`` (the same width);
- ``separate``: the separate means at every ``n`` (moderated t below 10 labels).

    PYTHONPATH=. python -m benchmarks.group_shape_check --tables wmt22 --reps 300 \
        [--data /tmp/mc_data] [--labels 5,10,15,20,30]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bacon_bayes.estimate.core import _t_crit as t_crit
from bacon_bayes.estimate.groups import group_means_from_sums
from bacon_bayes.estimate.shape import corrected_ends, shrunk_skewness, skew_shift
from bacon_bayes.estimate.shrink import MIN_SEPARATE_LABELS, shrunk_group_means
from benchmarks import anytime_validation as v

ALPHA = 0.05
SUMMEVAL = ("relevance", "coherence", "consistency", "fluency")
RULES = ("today", "skew reach", "+own t", "+own", "+own, true skewness", "shift", "separate")


def tables(data: Path, which: list[str]) -> list[v.Table]:
    """The named tables (``summeval_<dimension>``, ``trivia``, ``wmt22``)."""
    out = list(v.load_tables(data, tuple(w for w in which if w in ("trivia", "wmt22"))))
    s = pd.read_csv(v.SUMMEVAL)
    for dim in SUMMEVAL:
        if f"summeval_{dim}" in which:
            judges = [c for c in s.columns if c.startswith("judge:") and c.endswith(f"|{dim}")]
            out.append(v._table(f"summeval_{dim}", s, f"expert_mean_{dim}", judges, "system"))
    return out


def one_draw(
    t: v.Table, f: np.ndarray, idx: np.ndarray, n: int, true_gamma: np.ndarray
) -> dict[str, np.ndarray]:
    """Each rule's (low, high) per group on the labeled items ``idx``; row ``"gamma"``:
    the shrunk skewness, ``"se2"``: the separate interval's variance (twice each)."""
    m = t.groups.size
    n_g = np.bincount(t.g, minlength=m)
    g_lab, y_lab, f_lab = t.g[idx], t.y[idx], f[idx]
    pi_lab = n / n_g[g_lab]
    sums = np.bincount(t.g, weights=f, minlength=m)
    args = (y_lab, f_lab, pi_lab, g_lab, t.groups, sums, f.sum(), n_g, t.n)
    sep = group_means_from_sums(*args, simultaneous="none", skew=False)
    reach = sep
    if n >= MIN_SEPARATE_LABELS:
        reach = group_means_from_sums(*args, simultaneous="none")
    lam = float(sep.details["power_lambda"])
    resid = y_lab - lam * f_lab
    nl = np.full(m, float(n))
    mean_r = np.bincount(g_lab, weights=resid, minlength=m) / n
    s2 = np.bincount(g_lab, weights=(resid - mean_r[g_lab]) ** 2, minlength=m) / (n - 1)
    se_own = np.sqrt(s2 / n * (1.0 - n / n_g))
    own_est = lam * sums / n_g + mean_r
    today = sep
    if n < MIN_SEPARATE_LABELS:
        y = np.full(t.n, np.nan)
        y[idx] = t.y[idx]
        today = shrunk_group_means(y, f, t.g, pi=n / n_g[t.g])
    span = float(y_lab.min()), float(y_lab.max())
    gamma = shrunk_skewness(resid, g_lab, today.estimate, *span)[0]
    crit = t_crit(ALPHA, nl)
    now = np.stack([today.ci_low, today.ci_high])
    out = {"today": now, "separate": np.stack([sep.ci_low, sep.ci_high])}
    for rule, gam in (
        ("+own t", 0.0 * gamma),
        ("+own", gamma),
        ("+own, true skewness", true_gamma),
    ):
        lo, hi = corrected_ends(own_est, se_own, crit, gam, nl)
        out[rule] = np.stack([np.minimum(now[0], lo), np.maximum(now[1], hi)])
    out["skew reach"] = np.stack([reach.ci_low, reach.ci_high]) if reach is not sep else now
    out["shift"] = now + skew_shift(gamma, nl, crit, np.ones(m)) * se_own  # up if right-skewed
    out["gamma"] = np.stack([gamma, gamma])
    out["se2"] = np.stack([sep.se**2, sep.se**2])
    return out


def run(t: v.Table, labels: list[int], reps: int, seed: int) -> list[dict]:
    """Per ``n``: each rule's miss (low, high) and width per group over ``reps`` draws."""
    beta = np.linalg.lstsq(t.X, t.y, rcond=None)[0]
    f = t.X @ beta
    m = t.groups.size
    n_g = np.bincount(t.g, minlength=m)
    truth = np.bincount(t.g, weights=t.y, minlength=m) / n_g
    members = [np.flatnonzero(t.g == k) for k in range(m)]
    true_gamma = np.array([stats.skew(t.y[k] - f[k]) for k in members])
    s2 = np.array([np.var(t.y[k] - f[k], ddof=1) for k in members])
    rows = []
    for n in labels:
        rng = np.random.default_rng([seed, n])
        low, high, width = ({r: np.zeros(m) for r in RULES} for _ in range(3))
        gam, se2 = np.zeros(m), np.zeros(m)
        for _ in range(reps):
            idx = np.concatenate([rng.choice(k, n, replace=False) for k in members])
            out = one_draw(t, f, idx, n, true_gamma)
            gam += out["gamma"][0] / reps
            se2 += out["se2"][0] / reps
            for r in RULES:
                lo, hi = out[r]
                low[r] += (truth < lo) / reps
                high[r] += (truth > hi) / reps
                width[r] += (hi - lo) / reps
        var = se2 / (s2 / n * (1.0 - n / n_g))
        rows.append({"n": n, "low": low, "high": high, "width": width, "gamma": gam,
                     "true": true_gamma, "var": var})  # fmt: skip
    return rows


def _miss(row: dict, rule: str) -> np.ndarray:
    return row["low"][rule] + row["high"][rule]


def report(t: v.Table, rows: list[dict], reps: int) -> None:
    """The table's summary per ``n`` and rule, and each group's row."""
    print(f"\n{t.name}: {reps} draws a cell; miss = low + high side; MC se of a group's "
          f"miss near 0.05: {np.sqrt(0.05 * 0.95 / reps):.3f}")  # fmt: skip
    print("| n | rule | miss, average over groups | worst group: miss (low + high) | "
          "width / today: average (largest) |\n|---|---|---|---|---|")  # fmt: skip
    for row in rows:
        for r in RULES:
            miss = _miss(row, r)
            k = int(np.argmax(miss))
            ratio = row["width"][r] / row["width"]["today"]
            print(f"| {row['n']} | {r} | {miss.mean():.3f} | {t.groups[k]}: {miss[k]:.3f} "
                  f"({row['low'][r][k]:.3f} + {row['high'][r][k]:.3f}) | {ratio.mean():.3f} "
                  f"({ratio.max():.3f}) |")  # fmt: skip
    print("\nper group, n: miss today / skew reach / +own t / +own / +own true skewness "
          "/ shift (shift's "
          "low + high side); width +own / today; mean shrunk skewness; the separate "
          "interval's mean variance over the estimate's true variance [the group's "
          "skewness over all its items]:")  # fmt: skip
    for k, name in enumerate(t.groups):
        parts = []
        for row in rows:
            a, b, c, d, e, h = (_miss(row, r)[k] for r in RULES[:6])
            ratio = row["width"]["+own"][k] / row["width"]["today"][k]
            parts.append(
                f"{row['n']}: {a:.3f}/{b:.3f}/{c:.3f}/{d:.3f}/{e:.3f}/{h:.3f} "
                f"({row['low']['shift'][k]:.3f}+{row['high']['shift'][k]:.3f}) x{ratio:.2f} "
                f"g{row['gamma'][k]:+.2f} v{row['var'][k]:.2f}"
            )
        print(f"  {name} [{rows[0]['true'][k]:+.2f}]: " + "; ".join(parts))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=300)
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--tables", default="wmt22,trivia,summeval_relevance")
    p.add_argument("--labels", default="5,10,15,20,30")
    p.add_argument("--seed", type=int, default=20261203)
    args = p.parse_args()
    labels = [int(x) for x in args.labels.split(",")]
    for t in tables(args.data, args.tables.split(",")):
        report(t, run(t, labels, args.reps, args.seed), args.reps)


if __name__ == "__main__":
    main()
