"""Issue 41's validation of the anytime intervals on real tables: SummEval relevance (the
shipped sample), TriviaQA and WMT22 (``DATA/trivia.csv``, ``DATA/wmt22.parquet`` from
``python -m benchmarks.comparison_data DATA``; skipped with a message when absent).

    PYTHONPATH=. .venv/bin/python -m benchmarks.anytime_validation [--reps 1000]
        [--looks 10,20] [--designs uniform,stratified,adaptive] [--data /tmp/mc_data]
        [--tables summeval,trivia,wmt22] [--check 3] [--out anytime_validation.csv]

Each sequence labels 20% of the table (the full labels are the truth) in ``K`` equal
waves (10 or 20 looks), drawn by systematic PPS among the items not yet labeled (exact
wave sizes):

``uniform``     equal probabilities;
``stratified``  the wave's labels allocated to the groups (systems) in proportion to their
                items, equal probabilities within a group;
``adaptive``    the package's rule (:mod:`bacon_bayes.sampling.adaptive`) with a simple sd
                model: once the labels number :data:`MIN_LABELS_PER_COEFFICIENT` per
                coefficient of the ridge, probabilities proportional to ``(1 - s) sd /
                mean(sd) + s`` (uniform share ``s``: ``--uniform-share``, by default
                the package's for a study with groups,
                :data:`~bacon_bayes.sampling.GROUP_UNIFORM_SHARE`), ``sd`` the
                residual sd that the earlier waves' labels show in the quartile bins of the
                judge mean (residuals of the ridge fitted on the earlier waves), capped at
                1; uniform before: probabilities that depend on earlier waves.

Every look's estimate is the AEE of the frequentist default in spirit, vectorised over the
sequences instead of a Calibrator fit per look, with the package's surrogate
(:mod:`benchmarks.anytime_surrogate`): below 20 labels per coefficient the judges' ridge
(judges winsorised and standardised over the pool, intercept and the judges' first
principal component free, deviations from it penalised by :data:`PENALTY`, as
:mod:`bacon_bayes.judge_ridge`) cross-fitted leave-one-out in closed form with the weight
1; from there on the package's ridge model on its features (missing-score indicators
included; standardised on the training labels, penalty by leave-one-out) cross-fitted over
the calibrator's five folds (the sequence's index as its seed) with the tuned weight; a
group's unlabeled items get the fold models averaged with its own labels' shares, as the
package's ``surrogate_matrix(groups)`` (the adaptive design's sd bins read a fixed-penalty
5-fold ridge whose Gram matrices accumulate wave by wave). Horvitz-Thompson weights
``1/pi`` with the union-of-waves inclusion ``pi = 1 - prod_w (1 - p_w)`` (for the group means
conditioned on each group's realised labels, as the package's Hajek group estimators), the
Hajek AEE of :func:`bacon_bayes.estimate.core.mean_core` (pool target, finite-population
correction);
group means and one pair's difference as the package's default pooling gives them
(:mod:`benchmarks.anytime_groups`: shrunk with robust EB intervals while some group has
fewer than 10 labels, then the per-group AEE with the pool's weight and bootstrap-t;
``--pooling separate``: moderated t instead of the shrinkage), an unshrunk difference's
variance the sum of its groups' and its t at the smaller of their df. The pool mean's fixed
interval is Student-t with the package's Satterthwaite df
(:func:`bacon_bayes.estimate.core.satterthwaite_df`, capped at ``n - 2``). The anytime
intervals take ``c`` from :mod:`bacon_bayes.estimate.anytime` computed at each look from
the looks up to it, as the package does then (a Student-t look's critical value is its t
at ``c``'s nominal level, a shrunk or bootstrap-t look's distances to its ends the fixed
ones scaled by ``c / z``: :func:`anytime_half`):
alpha-spending with ``max_labels`` the last look's labels, and the confidence sequence
(planned at the first look). ``--check N`` prints the agreement of the last look with
``Calibrator(engine="freq")`` on ``N`` uniform SummEval sequences
(:func:`benchmarks.anytime_harness_check.last_look`).

Per table, design and number of looks: the chance that some look's interval misses (pool
mean, one group mean, one pairwise difference; fixed = the peeking baseline, alpha-spending,
confidence sequence) with its Monte Carlo se; every group's and every pair's (averaged
over them, and the worst; a pair read off its shrunk looks, on the Student-t basis of
:func:`pair_t`); the last look's width over the fixed width;
and the stopping benefit on a pair whose fixed power at 20% is about 0.8 (picked by a
uniform pilot of :data:`PILOT` sequences, seed apart): stopping at the first look where the
anytime interval excludes 0, the mean labels used and the realised power (right sign),
against the labels the fixed plan needs for that power (the fixed single-look power over
the looks, interpolated in labels).
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

from bacon_bayes.estimate import anytime as at
from bacon_bayes.estimate.core import mean_core
from bacon_bayes.order import natural_codes
from bacon_bayes.outcome.base import RIDGE_ALPHAS
from bacon_bayes.sampling import GROUP_UNIFORM_SHARE
from bacon_bayes.sampling.adaptive import MIN_LABELS_PER_COEFFICIENT
from bacon_bayes.sampling.designs import allocate
from benchmarks import anytime_groups
from benchmarks import anytime_surrogate as sur
from benchmarks.anytime_groups import POOLINGS, group_looks, group_pi
from benchmarks.anytime_sim import _pps, _satterthwaite
from benchmarks.small_budget import SUMMEVAL, TRIVIA_JUDGES, WMT_METRICS, WMT_SEGMENTS

ALPHA = 0.05
#: a shrunk row's own-interval floor is read at the boundary for ``FLOOR_X * ALPHA`` (the
#: package's: 2, its fixed floor's ``1 - 2 alpha``); 1, the per-row level, is a candidate
#: measured on 2026-12-04 (VALIDATION.md), not adopted
FLOOR_X = 2.0
SHARE = 0.20
FOLDS = 5
#: ridge penalty on the standardised judges' coefficients off their first principal
#: component (intercept and component free), as :mod:`bacon_bayes.judge_ridge`'s
PENALTY = 24.0
#: the judges' scores are clipped at these quantiles before standardising, as the package's
WINSOR = (0.005, 0.995)
#: a bootstrap-branch pair's Student-t df (:func:`pair_t`): ``"moderated"`` as the
#: package's (``estimate.differences.T_DF``) or ``"fewer"``, its fewer labels less one (the
#: package's before session 52; ``--pair-df fewer``)
PAIR_DF = "moderated"
#: the package's group means switch from moderated-t (and, by default, shrinkage) to
#: bootstrap-t critical values at this many labels per group; misses are also counted
#: only at looks from there on
SETTLED_GROUP = 10
PILOT = 200
CHUNK = 250
KINDS = ("fixed", "alpha-spending", "confidence sequence")
QUANTITIES = ("pool mean", "group mean", "difference")


@dataclass
class Table:
    name: str
    y: np.ndarray  # (N,)
    X: np.ndarray  # (N, J+1): intercept, standardised judges
    g: np.ndarray  # (N,) group codes
    groups: np.ndarray  # group names
    pair: tuple[int, int] = (0, 1)
    #: (N, p) the package's model features (``build_features``); None: ``X``'s judges
    F: np.ndarray | None = None

    @property
    def features(self) -> np.ndarray:
        """(N, p) the features of the package's model (:attr:`F`, else ``X``'s judges)."""
        return self.X[:, 1:] if self.F is None else self.F

    @property
    def pc1(self) -> np.ndarray:
        """The judges' first principal component's unit loadings."""
        return np.linalg.eigh(np.cov(self.X[:, 1:], rowvar=False))[1][:, -1]

    @property
    def n(self) -> int:
        return int(self.y.size)


def _table(name: str, frame: pd.DataFrame, label: str, judges: list[str], group: str) -> Table:
    x = frame[judges].to_numpy(float)
    x = np.where(np.isfinite(x), x, np.nanmean(x, axis=0))
    x = np.clip(x, *np.quantile(x, WINSOR, axis=0))  # as judge_ridge.standardised_judges
    x = (x - x.mean(axis=0)) / np.maximum(x.std(axis=0), 1e-12)
    names, codes = natural_codes(frame[group].to_numpy())  # the package's group order
    X = np.column_stack([np.ones(len(frame)), x])
    F = sur.package_features(frame, judges)
    return Table(name, frame[label].to_numpy(float), X, codes, names, F=F)


def load_tables(
    data: Path, which: tuple[str, ...] = ("summeval", "trivia", "wmt22")
) -> list[Table]:
    """SummEval relevance, TriviaQA, WMT22 (the subsample of benchmarks.small_budget)."""
    out = []
    if "summeval" in which:
        s = pd.read_csv(SUMMEVAL)
        judges = [c for c in s.columns if c.startswith("judge:") and c.endswith("|relevance")]
        out.append(_table("summeval_relevance", s, "expert_mean_relevance", judges, "system"))
    trivia, wmt = data / "trivia.csv", data / "wmt22.parquet"
    if "trivia" in which:
        if trivia.exists():
            out.append(_table("trivia", pd.read_csv(trivia), "y", list(TRIVIA_JUDGES), "model"))
        else:
            print(
                f"skipped trivia: {trivia} is absent (python -m benchmarks.comparison_data {data})"
            )
    if "wmt22" in which:
        if wmt.exists():
            frame = pd.read_parquet(wmt)
            segs = np.sort(frame["seg_id"].unique())
            keep = np.random.default_rng(0).choice(segs, WMT_SEGMENTS, replace=False)
            frame = frame[frame["seg_id"].isin(keep)].reset_index(drop=True)
            out.append(_table("wmt22", frame, "y", list(WMT_METRICS), "system"))
        else:
            print(f"skipped wmt22: {wmt} is absent (python -m benchmarks.comparison_data {data})")
    return out


@dataclass
class Looks:
    """Per sequence (R) and look (K): the pool's estimate and se, each group's (R, m, K)
    and its labels; the pool's labels at each look (K,); each look's labeled items (R, n_K)
    in the order drawn (the first ``labels[k]`` are the labels of look ``k``)."""

    pool: tuple[np.ndarray, np.ndarray, np.ndarray]  # estimate, se, Satterthwaite df
    group: tuple[np.ndarray, ...]  # anytime_groups.FIELDS
    group_n: np.ndarray
    labels: np.ndarray
    order: np.ndarray
    #: the table's pair's shrunk difference (R, K): estimate, se, low, high distances in se
    #: (NaN at looks not shrunk: the difference of the group rows)
    pair: tuple[np.ndarray, ...] = ()
    #: every pair's shrunk difference (R, P, K), pairs ``a < b`` in order, as ``pair``
    #: (empty: not simulated; :func:`every_pair` then reads no shrunk look)
    pairs: tuple[np.ndarray, ...] = ()


def _probabilities(
    t: Table, design: str, labeled: np.ndarray, size: int, score: np.ndarray
) -> np.ndarray:
    """This wave's probabilities (R, N) over all items (the free ones sum to ``size``)."""
    free = ~labeled
    if design == "stratified":  # the package's: allocated on each stratum's unlabeled items
        m = t.groups.size
        nfree = np.stack([free[:, t.g == h].sum(axis=1) for h in range(m)], axis=1)
        alloc = np.stack([allocate(c.astype(float), c, size) for c in nfree])
        rate = alloc / np.maximum(nfree, 1)  # (R, m)
        return np.minimum(rate[:, t.g], 1.0)
    s = score
    p = size * s / (s * free).sum(axis=1, keepdims=True)
    for _ in range(8):  # cap at 1 and spread the excess
        p = np.minimum(p, 1.0)
        p *= size / (p * free).sum(axis=1, keepdims=True)
    return np.minimum(p, 1.0)


def _adaptive_score(
    t: Table, labeled: np.ndarray, beta: np.ndarray, bins: np.ndarray, share: float
) -> np.ndarray:
    """``(1 - s) sd / mean(sd) + s`` with ``sd`` the residual sd by bin of the judge mean
    from the earlier waves (the ridge ``beta`` fitted on them); uniform below
    :data:`MIN_LABELS_PER_COEFFICIENT` labels per coefficient."""
    resid2 = np.where(labeled, (t.y - beta @ t.X.T) ** 2, 0.0)
    sd = np.zeros(labeled.shape)
    for j in range(4):
        inb = labeled[:, bins == j]
        s = np.sqrt(resid2[:, bins == j].sum(axis=1) / np.maximum(inb.sum(axis=1), 1))
        sd[:, bins == j] = s[:, None]
    score = (1 - share) * sd / np.maximum(sd.mean(axis=1, keepdims=True), 1e-12) + share
    early = labeled.sum(axis=1) < MIN_LABELS_PER_COEFFICIENT * t.X.shape[1]
    return np.where(early[:, None], 1.0, score)


def simulate(
    t: Table, design: str, reps: int, looks: int, seed: int, weights: str | None = None,
    pooling: str = "auto", uniform_share: float = GROUP_UNIFORM_SHARE,
) -> Looks:  # fmt: skip
    """``reps`` sequences of ``looks`` waves up to :data:`SHARE` of the table, in chunks.
    ``weights``: ``"union"`` (``1 - prod_w (1 - p_w)``) or ``"sequential"`` (the
    wave-by-wave estimator of :func:`bacon_bayes.inclusion.sequential_propensity`);
    default as the package: sequential for adaptive waves, else the union. ``pooling``:
    the group means' (:mod:`benchmarks.anytime_groups`), ``"auto"`` as the package's."""
    rng = np.random.default_rng(seed)
    weights = weights or ("sequential" if design == "adaptive" else "union")
    parts = [
        _chunk(t, design, min(CHUNK, reps - s), looks, rng, weights, pooling, s, uniform_share)
        for s in range(0, reps, CHUNK)
    ]

    def stack(field: str) -> tuple[np.ndarray, ...]:
        arrays = [getattr(p, field) for p in parts]
        return tuple(np.vstack([a[i] for a in arrays]) for i in range(len(arrays[0])))

    return Looks(
        stack("pool"),  # type: ignore[arg-type]
        stack("group"),
        np.vstack([p.group_n for p in parts]),
        parts[0].labels,
        np.vstack([p.order for p in parts]),
        stack("pair"),
        stack("pairs"),
    )


def _chunk(
    t: Table, design: str, reps: int, looks: int, rng: np.random.Generator, weights: str,
    pooling: str = "auto", start: int = 0, uniform_share: float = GROUP_UNIFORM_SHARE,
) -> Looks:  # fmt: skip
    """Sequences ``start, ..., start + reps - 1`` (a sequence's index is the seed of its
    calibrator's folds)."""
    n, m, J1 = t.n, t.groups.size, t.X.shape[1]
    F1 = np.column_stack([np.ones(n), t.features])  # the package's model's design
    fsum_g = np.stack([F1[t.g == h].sum(axis=0) for h in range(m)])
    total = round(SHARE * n)
    sizes = np.diff(np.round(np.linspace(0, total, looks + 1)).astype(int))
    labeled = np.zeros((reps, n), dtype=bool)
    keep_out = np.ones((reps, n))
    fold = rng.integers(0, FOLDS, (reps, n))
    gram = np.zeros((reps, FOLDS, J1, J1))
    xty = np.zeros((reps, FOLDS, J1))
    pen = np.zeros((J1, J1))
    pen[1:, 1:] = PENALTY * (np.eye(J1 - 1) - np.outer(t.pc1, t.pc1))
    bins = np.digitize(
        t.X[:, 1:].mean(axis=1), np.quantile(t.X[:, 1:].mean(axis=1), [0.25, 0.5, 0.75])
    )
    xsum_g = np.stack([t.X[t.g == h].sum(axis=0) for h in range(m)])  # (m, J+1)
    n_g = np.bincount(t.g, minlength=m)
    order = np.zeros((reps, 0), dtype=np.intp)
    drawn_p = np.zeros((reps, 0))  # each labeled item's probability in its wave
    wave_of = np.zeros(0, dtype=np.intp)
    beta_bar = np.zeros((reps, J1))
    out_pool = np.zeros((3, reps, looks))
    out_group = np.full((len(anytime_groups.FIELDS), reps, m, looks), np.nan)
    out_pair = np.full((4, reps, looks), np.nan)
    out_pairs = np.full((4, reps, m * (m - 1) // 2, looks), np.nan)
    out_n = np.zeros((reps, m, looks))
    rows = np.arange(reps)[:, None]
    for k in range(looks):
        score = np.ones((reps, n))
        if design == "adaptive" and k > 0:
            score = _adaptive_score(t, labeled, beta_bar, bins, uniform_share)
        p = _probabilities(t, design, labeled, int(sizes[k]), score)
        strata = t.g if design == "stratified" else None  # exactly each stratum's count
        new = ~labeled & _pps(np.where(labeled, 0.0, p), rng, strata)
        keep_out *= 1.0 - p
        # the new items in a random order (each row draws exactly sizes[k])
        key = np.where(new, rng.random((reps, n)), np.inf)
        added = np.argsort(key, axis=1)[:, : int(sizes[k])]
        order = np.hstack([order, added])
        drawn_p = np.hstack([drawn_p, p[rows, added]])
        wave_of = np.concatenate([wave_of, np.full(int(sizes[k]), k)])
        labeled |= new
        Xn, yn = t.X[added], t.y[added]  # (R, s, J+1), (R, s)
        onehot = fold[rows, added][..., None] == np.arange(FOLDS)  # (R, s, F)
        gram += np.einsum("rsf,rsj,rsk->rfjk", onehot, Xn, Xn)
        xty += np.einsum("rsf,rsj,rs->rfj", onehot, Xn, yn)
        beta = np.linalg.solve(
            gram.sum(axis=1, keepdims=True) - gram + pen,
            (xty.sum(axis=1, keepdims=True) - xty)[..., None],
        )[..., 0]  # (R, F, J+1): each fold's model fitted on the other folds
        beta_bar = beta.mean(axis=1)
        Xl, yl, gl = t.X[order], t.y[order], t.g[order]
        pil = 1.0 - keep_out[rows, order]
        if weights == "sequential":  # sum_w lam_w T_w, lam_w the wave's share of labels
            share = sizes[: k + 1] / sizes[: k + 1].sum()
            later = share[::-1].cumsum()[::-1] - share
            pil = np.minimum(1.0 / (share[wave_of] / drawn_p + later[wave_of]), 1.0)
        alone = sur.loo_alone(order.shape[1], F1.shape[1] - 1)  # the package's surrogate here
        if alone:
            fl, f_sums, f_sum = sur.loo_ridge(Xl, yl, pil, gl, pen, xsum_g)
        else:
            folds = sur.package_folds(order, np.arange(start, start + reps), FOLDS)
            fl, coef = sur.model_ridge(t.features[order], yl, folds, FOLDS, RIDGE_ALPHAS)
            f_sums, f_sum = sur.fold_ridge(F1[order], fl, pil, gl, folds, coef, fsum_g)
        th, var, lam, _ = mean_core(yl, fl, pil, f_sum, n, lam=1.0 if alone else None)
        df = _satterthwaite(yl, fl, pil, np.ones(yl.shape, dtype=bool), lam)
        out_pool[:, :, k] = th, np.sqrt(var), df
        group_looks(
            yl, fl, group_pi(pil, gl, 1.0 - keep_out, t.g, m), gl, f_sums, n_g, f_sum,
            out_group, out_pair, out_n, k, t.pair, pooling, tuned=not alone, items=order,
            seeds=np.arange(start, start + reps), out_pairs=out_pairs,
        )  # fmt: skip
    labels = np.cumsum(sizes).astype(float)
    pool = (out_pool[0], out_pool[1], out_pool[2])
    return Looks(pool, tuple(out_group), out_n, labels, order, tuple(out_pair), tuple(out_pairs))


#: Most elements of one pass's kernel (rows x grid x grid) in :func:`_spending_kept`.
KERNEL_ELEMENTS = 1_000_000


def _spending_kept(info: np.ndarray, spent: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each row's :func:`bacon_bayes.estimate.anytime.spending_critical_values` on its kept
    looks (``keep``, (R, K); NaN at the others), rows of every pattern in one pass: row by
    row the arithmetic of a call on the row's kept looks alone (the same grid, the same
    operations in the same order), so the same values, without a call per pattern."""
    rows, looks = info.shape
    r = np.arange(rows)
    last = np.where(keep, np.arange(looks), -1).max(axis=1)
    norm = info / info[r, last][:, None]
    inc, prev = np.full(info.shape, np.inf), np.zeros(rows)
    for k in range(looks):  # the increments of the kept looks' normalised information
        on = keep[:, k]
        inc[on, k] = norm[on, k] - prev[on]
        prev = np.where(on, norm[:, k], prev)
    steps = np.sqrt(inc).min(axis=1)
    points = np.clip(at.SPAN / np.maximum(steps, 1e-9), at.GRID, at.MAX_GRID)
    sizes = 2 * (2 ** np.ceil(np.log2(points / at.GRID)) * at.GRID // 2).astype(int) + 1
    c = np.full(info.shape, np.nan)
    for size in np.unique(sizes):
        grid = int(min(size, at.MAX_GRID))
        members = np.flatnonzero(sizes == size)
        step = max(1, KERNEL_ELEMENTS // (grid * grid))
        for s in range(0, members.size, step):
            m = members[s : s + step]
            c[m] = _kept_block(norm[m], spent[m], keep[m], grid)
    return c


def _exit(
    c: np.ndarray, x: np.ndarray, mass: np.ndarray, sd: np.ndarray, root: np.ndarray
) -> np.ndarray:
    """``anytime._exit`` in place (the same operations in the same order)."""
    b = (c * root)[:, None]
    s = sd[:, None]
    low = np.subtract(-b, x)
    low /= s
    special.ndtr(low, out=low)
    high = np.subtract(x, b)
    high /= s
    special.ndtr(high, out=high)
    low += high
    low *= mass
    return low.sum(axis=1)


def _kept_block(info: np.ndarray, spent: np.ndarray, keep: np.ndarray, size: int) -> np.ndarray:
    """:func:`_spending_kept` of rows on one grid (``anytime._spending_block`` with each
    row's kept looks)."""
    rows, looks = info.shape
    r = np.arange(rows)
    c = np.full(info.shape, np.nan)
    first = keep.argmax(axis=1)
    i0, s0 = info[r, first], spent[r, first]
    c0 = np.where(s0 > 0, stats.norm.isf(np.maximum(s0, 1e-300) / 2), np.inf)
    c[r, first] = c0
    simpson, unit = at._simpson(size), np.linspace(-1.0, 1.0, size)
    half = np.where(np.isfinite(c0), c0, 9.0) * np.sqrt(i0)
    x = half[:, None] * unit
    var0 = i0[:, None]
    mass = (
        np.exp(-0.5 * x * x / var0) / np.sqrt(2 * np.pi * var0) * simpson * (x[:, 1:2] - x[:, :1])
    )
    prev_i, prev_s = i0.copy(), s0.copy()
    for k in range(looks):
        act = np.flatnonzero(keep[:, k] & (first < k))
        if not act.size:
            continue
        ik, sk, xa, ma = info[act, k], spent[act, k], x[act], mass[act]
        sd, root = np.sqrt(ik - prev_i[act]), np.sqrt(ik)
        target = sk - prev_s[act]
        lo, hi = np.zeros(act.size), np.full(act.size, 60.0)
        for _ in range(40):  # bisection: the exit chance falls as the boundary rises
            mid = 0.5 * (lo + hi)
            over = _exit(mid, xa, ma, sd, root) > target
            lo, hi = np.where(over, mid, lo), np.where(over, hi, mid)
        ck = np.where(target > 1e-15, hi, np.inf)
        c[act, k] = ck
        half = np.where(np.isfinite(ck), ck * root, xa.max(axis=1) + 9.0 * sd)
        y = half[:, None] * unit
        kernel = np.subtract(y[:, :, None], xa[:, None, :])  # in place, as the package's
        kernel /= sd[:, None, None]
        np.square(kernel, out=kernel)
        kernel *= -0.5
        np.exp(kernel, out=kernel)
        dens = np.einsum("rgh,rh->rg", kernel, ma) / (sd[:, None] * np.sqrt(2 * np.pi))
        x[act], mass[act] = y, dens * simpson * (y[:, 1:2] - y[:, :1])
        prev_i[act], prev_s[act] = ik, sk
    return c


def critical(info: np.ndarray, times: np.ndarray, alpha: float = ALPHA) -> dict[str, np.ndarray]:
    """Each look's critical value (rows (R, K)), per kind, (R, K), at ``alpha`` over the
    looks (a shrunk row's own-interval floor: twice it): one pass over each
    distinct row's looks. A look's alpha-spending value depends on the looks up to it
    alone, so it is the one the package computes then; a look that added no information
    is computed at that look from the looks up to it, as the package does. The confidence
    sequence is planned at the first informative look. The spending values of every row
    and look are computed in one pass (:func:`_spending_kept`; the package's function a
    pattern at a time gave the same values, far more slowly on thousands of rows)."""
    info = np.atleast_2d(info)
    uniq, inv = np.unique(info, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    z = stats.norm.isf(alpha / 2)
    spend, seq = np.full(uniq.shape, np.nan), np.full(uniq.shape, np.nan)
    spent = at.obf_spending(times, alpha)
    kept = np.array([at._usable(row) for row in uniq]).reshape(uniq.shape)
    # a look that added no information: the package merges the earlier one into it and
    # spends up to its time, computed so from the looks up to it: a row of its own whose
    # kept looks are those of the looks up to it
    late = [
        (r, k) for k in range(uniq.shape[1]) for r in np.flatnonzero(~kept[:, k] & (uniq[:, k] > 0))
    ]
    late_keep = np.zeros((len(late), uniq.shape[1]), dtype=bool)
    for j, (r, k) in enumerate(late):
        late_keep[j, : k + 1] = at._usable(uniq[r, : k + 1])
    late_rows = np.array([r for r, _ in late], dtype=int)
    every = np.vstack([uniq, uniq[late_rows]])
    every_keep = np.vstack([kept, late_keep])
    finite = np.isfinite(every).all(axis=1) & every_keep.any(axis=1)
    values = np.full(every.shape, np.nan)
    if finite.any():
        values[finite] = _spending_kept(
            every[finite], np.broadcast_to(spent, every[finite].shape), every_keep[finite]
        )
    patterns: dict[tuple[bool, ...], list[int]] = {}
    for r in range(uniq.shape[0]):
        patterns.setdefault(tuple(kept[r].tolist()), []).append(r)
    u_star = at.mixture_tuning(alpha)
    for pattern, members in patterns.items():
        keep = np.array(pattern)
        if not keep.any():
            continue
        rows = uniq[members][:, keep]
        if finite[members].all():
            c = values[members][:, keep]
        else:  # a row of infinite information: the package's function, as it has it
            c = at.spending_critical_values(rows, np.broadcast_to(spent[keep], rows.shape))
        cs = at.mixture_critical_value(u_star * rows / rows[:, :1], alpha)
        # each look takes the value of the next kept look at or after it
        nxt = np.searchsorted(np.flatnonzero(keep), np.arange(keep.size))
        has = (nxt < keep.sum()) & (uniq[members][:, :] > 0).all(axis=0)
        idx = np.minimum(nxt, keep.sum() - 1)
        for target, vals in ((spend, c), (seq, cs)):
            block = vals[:, idx]
            block[:, ~has] = np.nan
            target[members] = np.where(uniq[members] > 0, block, np.nan)
    for j, (r, k) in enumerate(late):
        v_row = uniq.shape[0] + j
        if finite[v_row]:
            spend[r, k] = values[v_row, k]
        else:
            spend[r, k] = at.sequential_critical_values(uniq[r : r + 1, : k + 1], alpha,
                                                        times=times[: k + 1])[0]  # fmt: skip
    fixed = np.full(uniq.shape, z)
    return {"fixed": fixed[inv], "alpha-spending": spend[inv], "confidence sequence": seq[inv]}


def difference(t: Table, sim: Looks) -> tuple[np.ndarray, ...]:
    """The pair's difference (R, K) as ``compare_groups``': estimate, se, df, critical value,
    distances to the ends in se (shrunk where shrunk; else Student-t at the groups' smaller
    df, on the bootstrap branch at the fewer labels less one: group_table's default)."""
    a, b = t.pair
    d_e, d_se, d_df = pair_t(sim, a, b)
    d_t = d_lo = d_hi = _t(d_df)
    if sim.pair:  # looks whose groups were shrunk: the package's shrunk difference
        shrunk = np.isfinite(sim.pair[0])
        d_e, d_se = np.where(shrunk, sim.pair[0], d_e), np.where(shrunk, sim.pair[1], d_se)
        d_df, d_t = np.where(shrunk, np.inf, d_df), np.where(shrunk, 1.0, d_t)
        d_lo, d_hi = np.where(shrunk, sim.pair[2], d_lo), np.where(shrunk, sim.pair[3], d_hi)
    return d_e, d_se, d_df, d_t, d_lo, d_hi


def pair_t(sim: Looks, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups ``a - b``'s difference, se and Student-t df (R, K) off the shrunk looks: the
    groups' smaller df, on the bootstrap branch the pair's fewer labels less one
    (``group_table``'s default), or with :data:`PAIR_DF` ``"moderated"`` the smaller of
    the df of the variances the groups' intervals take (``n - 1 + d0`` where the moderated
    variance governs, ``n - 1`` where the own one does)."""
    n_a, n_b = sim.group_n[:, a], sim.group_n[:, b]
    d_df = np.fmin(sim.group[2][:, a], sim.group[2][:, b])
    boot = np.isinf(d_df)
    if PAIR_DF == "moderated":
        own = np.fmin(sim.group[8][:, a], sim.group[8][:, b])
        d_df = np.where(boot & np.isfinite(own), np.maximum(own, 1.0), d_df)
    d_df = np.where(np.isinf(d_df), np.maximum(np.minimum(n_a, n_b) - 1.0, 1.0), d_df)
    e, se = sim.group[0][:, [a, b]], sim.group[1][:, [a, b]]
    return e[:, 0] - e[:, 1], np.hypot(se[:, 0], se[:, 1]), d_df


def every_pair(t: Table, sim: Looks, times: np.ndarray) -> list[dict]:
    """Each pair's chance that some look misses (every look spends), on the Student-t
    basis of :func:`pair_t` and at looks whose groups were shrunk the package's shrunk
    difference (:attr:`Looks.pairs`; not read where not simulated), averaged over the
    pairs and the worst pair's, with the last look's width over the fixed width."""
    reps = sim.pool[0].shape[0]
    m = t.groups.size
    sizes = np.bincount(t.g, minlength=m).astype(float)
    info = at.effective_labels(sim.group_n, sizes[None, :, None])
    truth = np.array([t.y[t.g == h].mean() for h in range(m)])
    per = {kind: [] for kind in KINDS}  # type: dict[str, list[float]]
    wide = {kind: [] for kind in KINDS}  # type: dict[str, list[float]]
    names = []
    for p, (a, b) in enumerate(itertools.combinations(range(m), 2)):
        d_e, d_se, d_df = pair_t(sim, a, b)
        shrunk = np.isnan(sim.group[8][:, a]) | np.isnan(sim.group[8][:, b])
        tc = _t(d_df)
        lo = hi = np.where(shrunk, np.nan, tc)
        if sim.pairs:  # the shrunk looks: the shrunk difference, its ends scaled by c / z
            s_e, s_se, s_lo, s_hi = (x[:, p] for x in sim.pairs)
            d_e, d_se = np.where(shrunk, s_e, d_e), np.where(shrunk, s_se, d_se)
            d_df, tc = np.where(shrunk, np.inf, d_df), np.where(shrunk, 1.0, tc)
            lo, hi = np.where(shrunk, s_lo, lo), np.where(shrunk, s_hi, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            i_d = np.where(
                (info[:, a] > 0) & (info[:, b] > 0),
                1.0 / (1.0 / info[:, a] + 1.0 / info[:, b]), 0.0,
            )  # fmt: skip
            err = (d_e - (truth[a] - truth[b])) / d_se  # NaN where no interval: no miss
        crit = critical(i_d, times)
        floor = critical(i_d, times, FLOOR_X * ALPHA)  # the shrunk difference's own floor
        fa, fb = [x[:, a] for x in sim.group], [x[:, b] for x in sim.group]
        for kind in KINDS:
            with np.errstate(invalid="ignore", divide="ignore"):
                f = 1.0 if kind == "fixed" else anytime_half(tc, d_df, crit[kind]) / tc
                half_lo, half_hi = f * lo, f * hi
                if kind != "fixed" and sim.pairs:
                    half_lo, half_hi = anytime_groups.pair_floor(
                        half_lo, half_hi, floor[kind], d_e, d_se, fa, fb
                    )
                missed = (err > half_lo) | (-err > half_hi)
                per[kind].append(float(missed.any(axis=1).mean()))
                wide[kind].append(float(np.nanmean((half_lo + half_hi)[:, -1] / (lo + hi)[:, -1])))
        names.append(f"{t.groups[a]} - {t.groups[b]}")
    return _average_and_worst(per, wide, reps, names, "difference", "pairs", "pair")


def evaluate(t: Table, sim: Looks) -> tuple[list[dict], list[dict]]:
    """The miss and width rows, and the stopping rows, of one cell."""
    a, b = t.pair
    reps, looks = sim.pool[0].shape
    times = sim.labels / sim.labels[-1]
    n_a, n_b = sim.group_n[:, a], sim.group_n[:, b]
    size_a, size_b = float((t.g == a).sum()), float((t.g == b).sum())
    info_a, info_b = at.effective_labels(n_a, size_a), at.effective_labels(n_b, size_b)
    with np.errstate(divide="ignore"):
        info_d = np.where((info_a > 0) & (info_b > 0), 1.0 / (1.0 / info_a + 1.0 / info_b), 0.0)
    pool_info = np.broadcast_to(at.effective_labels(sim.labels, float(t.n)), (reps, looks))
    ga, gb = t.y[t.g == a].mean(), t.y[t.g == b].mean()
    pool_t = _t(sim.pool[2])
    e_a, se_a, df_a, crit_a, lo_a, hi_a, skew_a, ratio_a, _ = (x[:, a] for x in sim.group[:9])
    d_e, d_se, d_df, d_t, d_lo, d_hi = difference(t, sim)
    est = {  # estimate, se, (critical value, low, high distances in se), truth, info, df
        "pool mean": (sim.pool[0], sim.pool[1], (pool_t, pool_t, pool_t), t.y.mean(),
                      pool_info, sim.pool[2]),
        "group mean": (e_a, se_a, (crit_a, lo_a, hi_a), ga, info_a, df_a),
        "difference": (d_e, d_se, (d_t, d_lo, d_hi), ga - gb, info_d, d_df),
    }  # fmt: skip
    rows, stop = [], []
    n_min = np.minimum(n_a, n_b)
    crits = {q: critical(v[4], times) for q, v in est.items()}
    floor_a = critical(info_a, times, FLOOR_X * ALPHA)  # the group's own-interval floor
    floor_d = critical(info_d, times, FLOOR_X * ALPHA)  # a shrunk difference's
    for q, (e, se, (tc, lo, hi), truth, _info, df) in _with_settled_groups(est, n_a, n_min):
        crit = crits[q.split(" (")[0]]
        tcrit = np.broadcast_to(tc, e.shape)
        with np.errstate(invalid="ignore"):
            err = (e - truth) / se  # NaN where no interval: never a miss
        for kind in KINDS:
            with np.errstate(invalid="ignore", divide="ignore"):
                f = 1.0 if kind == "fixed" else anytime_half(tcrit, df, crit[kind]) / tcrit
            half_lo, half_hi = f * lo, f * hi
            if q.startswith("group mean") and kind != "fixed":
                half_lo, half_hi = _reach(half_lo, half_hi, crit[kind], n_a, skew_a, ratio_a)
                half_lo, half_hi = anytime_groups.own_floor(
                    half_lo, half_hi, floor_a[kind], [x[:, a] for x in sim.group]
                )
            if q.startswith("difference") and kind != "fixed" and sim.pairs:
                half_lo, half_hi = anytime_groups.pair_floor(
                    half_lo, half_hi, floor_d[kind], e, se,
                    [x[:, a] for x in sim.group], [x[:, b] for x in sim.group],
                )  # fmt: skip
            with np.errstate(invalid="ignore"):
                missed = (err > half_lo) | (-err > half_hi)
            miss = missed.any(axis=1)
            pm = float(miss.mean())
            with np.errstate(invalid="ignore"):
                ratio = (half_lo + half_hi)[:, -1] / (lo + hi)[:, -1]
            rows.append(
                {"quantity": q, "interval": kind, "some look misses": pm,
                 "mc se": float(np.sqrt(pm * (1 - pm) / reps)),
                 "last width / fixed": float(np.nanmean(ratio))}
            )  # fmt: skip
            if q == "difference":  # every look with an interval; the side that settles
                side, fixed_side = (half_lo, lo) if truth > 0 else (half_hi, hi)
                stop.append(_stopping(e, se, side, truth, sim.labels, fixed_side, kind, t.n))
    return rows + every_group(t, sim, times) + every_pair(t, sim, times), stop


def every_group(t: Table, sim: Looks, times: np.ndarray) -> list[dict]:
    """Each group's chance that some look misses, averaged over the groups (the shrunk
    means' guarantee is on average over groups) and the worst group's."""
    reps = sim.pool[0].shape[0]
    per = {kind: [] for kind in KINDS}  # type: dict[str, list[float]]
    wide = {kind: [] for kind in KINDS}  # type: dict[str, list[float]]
    for h in range(t.groups.size):
        info = at.effective_labels(sim.group_n[:, h], float((t.g == h).sum()))
        crit = critical(info, times)
        floor = critical(info, times, FLOOR_X * ALPHA)  # a shrunk row's own-interval floor
        fields = [x[:, h] for x in sim.group]
        e, se, df, tc, lo, hi, skew, ratio, _ = fields[:9]
        with np.errstate(invalid="ignore", divide="ignore"):
            err = (e - t.y[t.g == h].mean()) / se
            for kind in KINDS:
                f = 1.0 if kind == "fixed" else anytime_half(tc, df, crit[kind]) / tc
                low, high = f * lo, f * hi
                if kind != "fixed":
                    low, high = _reach(low, high, crit[kind], sim.group_n[:, h], skew, ratio)
                    low, high = anytime_groups.own_floor(low, high, floor[kind], fields)
                per[kind].append(float(((err > low) | (-err > high)).any(axis=1).mean()))
                wide[kind].append(float(np.nanmean((low + high)[:, -1] / (lo + hi)[:, -1])))
    names = [str(v) for v in t.groups]
    return _average_and_worst(per, wide, reps, names, "group mean", "groups", "group")


def _average_and_worst(
    per: dict[str, list[float]], wide: dict[str, list[float]], reps: int, names: list[str],
    quantity: str, plural: str, single: str,
) -> list[dict]:  # fmt: skip
    """Per kind, the rows of the miss rates ``per`` (and last widths ``wide``) of the
    ``names`` averaged over them and of the worst."""
    rows = []
    for kind, rates in per.items():
        r, w = np.array(rates), np.array(wide[kind])
        worst = int(r.argmax())
        rows += [
            {"quantity": f"{quantity}, average over {plural}", "interval": kind,
             "some look misses": float(r.mean()),
             "mc se": float(np.sqrt((r * (1 - r)).mean() / reps)),
             "last width / fixed": float(w.mean())},
            {"quantity": f"{quantity}, worst {single}", "interval": kind,
             "some look misses": float(r[worst]),
             "mc se": float(np.sqrt(r[worst] * (1 - r[worst]) / reps)),
             "last width / fixed": float(w[worst]), "group": names[worst]},
        ]  # fmt: skip
    return rows


def anytime_half(tcrit: np.ndarray, df: np.ndarray, c: np.ndarray) -> np.ndarray:
    """A look's critical value, as the package's (:mod:`bacon_bayes.estimate.anytime`): a
    Student-t look (finite ``df``) reads its own t at the normal boundary ``c``'s nominal
    level (:func:`~bacon_bayes.estimate.anytime.studentised`); any other (bootstrap-t) scales
    its fixed critical value ``tcrit`` by ``c / z``."""
    c = np.broadcast_to(c, tcrit.shape)
    df = np.broadcast_to(df, tcrit.shape)
    scaled = tcrit * c / stats.norm.isf(ALPHA / 2)
    return np.where(np.isfinite(df), at.studentised(c, df), scaled)


def _reach(
    low: np.ndarray, high: np.ndarray, c: np.ndarray, n: np.ndarray, skew: np.ndarray,
    ratio: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """A group's anytime distances ``low, high`` (the fixed reach scaled with the rest, as
    the package's) or, with ``--anytime-reach``, joined with the skewed side's reach read
    at the look's boundary ``c`` (:func:`benchmarks.anytime_groups.reach_distances`; a
    candidate, not adopted)."""
    if not anytime_groups.ANYTIME_REACH:
        return low, high
    return anytime_groups.reach_distances(low, high, c, n, np.nan_to_num(skew), ratio)


def _t(df: np.ndarray) -> np.ndarray:
    """Student-t critical values (NaN df: no interval)."""
    return stats.t.isf(ALPHA / 2, np.maximum(df, 1.0))


def _with_settled_groups(est: dict, n_a: np.ndarray, n_min: np.ndarray) -> list[tuple[str, tuple]]:
    """The quantities, and the group mean and difference read only at looks where each
    group has at least :data:`SETTLED_GROUP` labels (the spending still counts every look)."""
    out = list(est.items())
    for q, n in (("group mean", n_a), ("difference", n_min)):
        e, *rest = est[q]
        out.append((f"{q} (>={SETTLED_GROUP})", (np.where(n >= SETTLED_GROUP, e, np.nan), *rest)))
    return out


def _stopping(
    e: np.ndarray, se: np.ndarray, half: np.ndarray, truth: float, labels: np.ndarray,
    tcrit: np.ndarray, kind: str, n: int,
) -> dict:  # fmt: skip
    """Stopping at the first look whose interval excludes 0 (right sign), against the
    fixed plan's labels for the same power."""
    sign = np.sign(truth)
    with np.errstate(invalid="ignore"):
        settled = np.nan_to_num(sign * e / se > half, nan=0.0).astype(bool)
        fixed_hit = np.nan_to_num(sign * e / se > tcrit, nan=0.0).astype(bool)
    first = np.where(settled.any(axis=1), settled.argmax(axis=1), labels.size - 1)
    used = labels[first]
    power = float(settled.any(axis=1).mean())
    curve = fixed_hit.mean(axis=0)  # the fixed plan's power at each look's labels
    need = _labels_for(curve, labels, power)
    return {
        "interval": kind, "fixed power at 20%": float(curve[-1]), "realised power": power,
        "mc se power": float(np.sqrt(power * (1 - power) / e.shape[0])),
        "mean labels used %": 100 * float(used.mean()) / n,
        "mc se labels %": 100 * float(used.std(ddof=1) / np.sqrt(used.size)) / n,
        "fixed labels same power %": 100 * need / n,
    }  # fmt: skip


def _labels_for(curve: np.ndarray, labels: np.ndarray, power: float) -> float:
    """The labels at which the fixed power curve (made non-decreasing) reaches ``power``."""
    c = np.maximum.accumulate(curve)
    if power > c[-1]:
        return float("nan")
    k = int(np.argmax(c >= power))
    if k == 0:
        return float(labels[0] * power / max(c[0], 1e-12))
    lo, hi = c[k - 1], c[k]
    w = (power - lo) / max(hi - lo, 1e-12)
    return float(labels[k - 1] + w * (labels[k] - labels[k - 1]))


def pick_pair(t: Table, seed: int, reps: int = PILOT) -> tuple[tuple[int, int], float]:
    """The pair whose fixed power at 20% (uniform, one look) is nearest 0.8."""
    sim = simulate(t, "uniform", reps, 1, seed + 10_000)
    e, se, dfs = (x[:, :, -1] for x in sim.group[:3])
    truth = np.array([t.y[t.g == h].mean() for h in range(t.groups.size)])
    best, gap = (0, 1), np.inf
    power = 0.0
    for a in range(truth.size):
        for b in range(truth.size):
            if truth[a] <= truth[b]:
                continue
            d, s = e[:, a] - e[:, b], np.sqrt(se[:, a] ** 2 + se[:, b] ** 2)
            df = np.fmin(dfs[:, a], dfs[:, b])
            crit = stats.t.isf(ALPHA / 2, np.maximum(df, 1))
            pw = float(np.nan_to_num(d / s > crit).mean())
            if abs(pw - 0.8) < gap:
                best, gap, power = (a, b), abs(pw - 0.8), pw
    return best, power


def run(
    tables: list[Table],
    designs: tuple[str, ...],
    looks: tuple[int, ...],
    reps: int,
    seed: int,
    out: Path | None = None,
    pooling: str = "auto",
    uniform_share: float = GROUP_UNIFORM_SHARE,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, stops = [], []
    for t in tables:
        t.pair, pw = pick_pair(t, seed)
        print(f"{t.name}: pair {t.groups[t.pair[0]]} - {t.groups[t.pair[1]]} "
              f"(pilot fixed power at 20%: {pw:.2f})", flush=True)  # fmt: skip
        for design in designs:
            for k in looks:
                start = time.perf_counter()
                sim = simulate(t, design, reps, k, seed, pooling=pooling,
                               uniform_share=uniform_share)  # fmt: skip
                r, s = evaluate(t, sim)
                cell = {"table": t.name, "design": design, "looks": k, "reps": reps}
                rows += [{**cell, **x} for x in r]
                stops += [{**cell, "pair": f"{t.groups[t.pair[0]]} - {t.groups[t.pair[1]]}", **x}
                          for x in s]  # fmt: skip
                print(f"  {design} {k} looks: {time.perf_counter() - start:.0f} s", flush=True)
                if out is not None:  # each cell as it ends
                    pd.DataFrame(rows).to_csv(stem_csv(out, "miss"), index=False)
                    pd.DataFrame(stops).to_csv(stem_csv(out, "stop"), index=False)
    return pd.DataFrame(rows), pd.DataFrame(stops)


def stem_csv(stem: Path, kind: str) -> Path:
    """The CSV of a run's ``kind`` rows (``miss`` or ``stop``) beside ``stem``: ``stem``
    plus ``.miss.csv`` (a dot in the stem, ``ad_0.5``, is kept, not replaced)."""
    return stem.with_name(f"{stem.name}.{kind}.csv")


def add_share_option(p: argparse.ArgumentParser) -> None:
    """``--uniform-share`` of the adaptive waves (the package's default for a study with
    groups; the rows in VALIDATION.md before 2026-11-30 ran at 0.2)."""
    p.add_argument("--uniform-share", type=float, default=GROUP_UNIFORM_SHARE,
                   help="the adaptive waves' uniform share (default %(default)s)")  # fmt: skip


def markdown(miss: pd.DataFrame, stop: pd.DataFrame) -> str:
    """The tables of VALIDATION.md: per cell and quantity, each kind's chance that some
    look misses (mc se) and the last look's width over the fixed; then the stopping rows."""

    def cell(r: pd.Series) -> str:
        return f"{r['some look misses']:.3f} ({r['mc se']:.3f})"

    head = (
        "| table | design | looks | n | quantity | fixed (peeking) | alpha-spending | "
        "confidence sequence | last width: spending | sequence |\n|" + "---|" * 10
    )
    lines = [head]
    keys = ["table", "design", "looks", "reps", "quantity"]
    for key, grp in miss.groupby(keys, sort=False):
        by = {r["interval"]: r for _, r in grp.iterrows()}
        lines.append(
            "| " + " | ".join(str(k) for k in key) + " | "
            + " | ".join(cell(by[k]) for k in KINDS)
            + f" | {by['alpha-spending']['last width / fixed']:.2f}"
            + f" | {by['confidence sequence']['last width / fixed']:.2f} |"
        )  # fmt: skip
    lines += [
        "",
        "| table | design | looks | pair | interval | fixed power at 20% | realised power | "
        "mean labels used % | fixed labels for that power % |\n|" + "---|" * 9,
    ]
    for _, r in stop.iterrows():
        lines.append(
            f"| {r['table']} | {r['design']} | {r['looks']} | {r['pair']} | {r['interval']} | "
            f"{r['fixed power at 20%']:.3f} | {r['realised power']:.3f} ({r['mc se power']:.3f}) | "
            f"{r['mean labels used %']:.1f} ({r['mc se labels %']:.1f}) | "
            f"{r['fixed labels same power %']:.1f} |"
        )
    return "\n".join(lines)


def before_after(old_markdown: Path, miss: pd.DataFrame) -> str:
    """Each cell's alpha-spending and confidence-sequence rows of ``miss`` beside the same
    rows of an earlier run's markdown table (e.g. VALIDATION.md's)."""
    old = {}
    for line in old_markdown.read_text().splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) == 10 and c[2].isdigit() and "(" in c[6]:
            old[(c[0], c[1], int(c[2]), c[4])] = (c[6], c[7])
    lines = [
        "| table | design | looks | quantity | alpha-spending before | after | "
        "confidence sequence before | after |\n|" + "---|" * 8
    ]
    for (t, d, k, q), g in miss.groupby(["table", "design", "looks", "quantity"], sort=False):
        by = {
            r["interval"]: f"{r['some look misses']:.3f} ({r['mc se']:.3f})"
            for _, r in g.iterrows()
        }
        o = old.get((t, d, int(k), q), ("-", "-"))
        lines.append(
            f"| {t} | {d} | {k} | {q} | {o[0]} | {by['alpha-spending']} | {o[1]} | "
            f"{by['confidence sequence']} |"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=1000)
    p.add_argument("--looks", default="10,20")
    p.add_argument("--designs", default="uniform,stratified,adaptive")
    p.add_argument("--tables", default="summeval,trivia,wmt22")
    p.add_argument("--data", type=Path, default=Path("/tmp/mc_data"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--check", type=int, default=0, help="Calibrator agreement on N sequences")
    p.add_argument("--out", type=Path, default=None, help="write the tables as CSV (stem)")
    p.add_argument("--markdown", default=None, help="print earlier runs' CSVs (stems a,b)")
    p.add_argument("--before", type=Path, default=None, help="with --markdown: old rows beside")
    p.add_argument("--pooling", choices=POOLINGS, default="auto", help="the group means'")
    p.add_argument(
        "--no-skew-reach",
        action="store_true",
        help="the bootstrap branch's group intervals without the skewed side's reach",
    )
    add_share_option(p)
    p.add_argument(
        "--no-own-floor",
        action="store_true",
        help="shrunk rows' anytime ends scaled by c / z, own-interval floor included (before)",
    )
    p.add_argument(
        "--anytime-reach",
        action="store_true",
        help="candidate: an anytime look reads a skewed group's reach at its own level",
    )
    p.add_argument("--pair-df", choices=("fewer", "moderated"), default="moderated",
                   help="a bootstrap-branch pair's Student-t df (pair_t)")  # fmt: skip
    args = p.parse_args()
    global PAIR_DF
    PAIR_DF = args.pair_df
    anytime_groups.SKEW_REACH = not args.no_skew_reach
    anytime_groups.ANYTIME_REACH = args.anytime_reach
    anytime_groups.OWN_FLOOR = not args.no_own_floor
    if args.markdown:
        stems = [Path(x) for x in args.markdown.split(",")]
        miss = pd.concat([pd.read_csv(stem_csv(x, "miss")) for x in stems])
        stop = pd.concat([pd.read_csv(stem_csv(x, "stop")) for x in stems])
        print(before_after(args.before, miss) if args.before else markdown(miss, stop))
        return
    start = time.perf_counter()
    tables = load_tables(args.data, tuple(args.tables.split(",")))
    fmt = {"float_format": lambda v: f"{v:.3f}", "index": False}
    if args.check:
        summ = next(t for t in tables if t.name.startswith("summeval"))
        summ.pair, _ = pick_pair(summ, args.seed)
        from benchmarks.anytime_harness_check import last_look

        print(last_look(summ, args.check, args.seed).to_string(**fmt))
    looks = tuple(int(v) for v in args.looks.split(","))
    designs = tuple(args.designs.split(","))
    miss, stop = run(
        tables, designs, looks, args.reps, args.seed, args.out, args.pooling, args.uniform_share
    )
    print(miss.to_string(**fmt))
    print(stop.to_string(**fmt))
    if args.out:
        miss.to_csv(stem_csv(args.out, "miss"), index=False)
        stop.to_csv(stem_csv(args.out, "stop"), index=False)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
