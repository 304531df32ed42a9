"""Critical values of simultaneous intervals: max-|t| over a joint normal (or
Student-t rows), Bonferroni, the studentised bootstrap within domains, and contrasts of
group means clustered by prompt at few labeled prompts."""

from __future__ import annotations

import hashlib
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np
from scipy import special

from bacon_bayes.compiled import njit_cached
from bacon_bayes.errors import ValidationError

#: The rules of simultaneous intervals: max-|t|, Bonferroni, none (pointwise).
SIMULTANEOUS = ("maxt", "bonferroni", "none")


def simultaneous_rule(simultaneous: bool | str) -> str:
    """``simultaneous`` as the estimators name it (True: ``"maxt"``, False: ``"none"``),
    refused unless one of :data:`SIMULTANEOUS`: the one check of every estimator and
    pooling."""
    if isinstance(simultaneous, bool | np.bool_):
        return "maxt" if simultaneous else "none"
    if not isinstance(simultaneous, str) or simultaneous not in SIMULTANEOUS:
        raise ValidationError(
            f"simultaneous={simultaneous!r} is not known; use True or 'maxt' (max-|t|), "
            "'bonferroni', or False or 'none' (pointwise)."
        )
    return simultaneous


def simultaneous_critical_value(
    corr: np.ndarray,
    alpha: float,
    method: str = "maxt",
    df: np.ndarray | None = None,
    draws: int = 100_000,
    seed: int = 20261122,
) -> np.ndarray:
    """Critical values ``c_k`` so that all ``|T_k| <= c_k`` hold jointly with ``1 - alpha``.

    ``method="maxt"`` finds ``c`` with ``P(max_k |Z_k| <= c) = 1 - alpha`` for
    ``Z ~ N(0, corr)`` (seeded simulation, so deterministic); ``"bonferroni"``
    uses level ``alpha / m``; ``"none"`` is pointwise. With degrees of freedom
    ``df`` (one per row), each row's critical value is the Student-t quantile at
    the same pointwise level, which keeps small groups honest.
    """
    m = corr.shape[0]
    method = simultaneous_rule(method)
    if method == "none" or m == 1:
        level = alpha
    elif method == "bonferroni":
        level = alpha / m
    elif _is_identity(corr):
        # independent components (disjoint groups): the max-|Z| level is exact (Sidak)
        level = 1.0 - (1.0 - alpha) ** (1.0 / m)
    else:
        c = _maxt_quantile(corr, 1 - alpha, draws, seed)
        level = float(2.0 * special.ndtr(-c))  # stats.norm.sf(c)
    # scipy.special's functions that stats.norm.isf and stats.t.isf call, the same numbers
    # without the distributions' argument checks (0.1 ms a call, on every group table)
    if df is None:
        return np.full(m, -special.ndtri(level / 2.0))
    return -special.stdtrit(np.maximum(np.asarray(df, dtype=float), 1.0), level / 2.0)


#: max-|t| quantiles already simulated, by (digest of the correlation, q, draws, seed):
#: a ranking's rank sets and tiers ask for the same 190 differences of 20 models twice,
#: as do the commands of one session on the same table (0.14 s each)
_MAXT_SEEN: OrderedDict[tuple, float] = OrderedDict()
_MAXT_KEEP = 64
_MAXT_LOCK = threading.Lock()


def _maxt_quantile(corr: np.ndarray, q: float, draws: int, seed: int) -> float:
    """The ``q`` quantile of ``max_k |Z_k|`` over ``draws`` seeded draws of ``Z ~ N(0,
    corr)``; a repeated question is answered from :data:`_MAXT_SEEN` (the same number)."""
    corr = np.ascontiguousarray(corr, dtype=float)
    digest = hashlib.blake2b(corr.tobytes(), digest_size=16).digest()
    key = (digest, corr.shape, float(q), int(draws), int(seed))
    with _MAXT_LOCK:
        if key in _MAXT_SEEN:
            _MAXT_SEEN.move_to_end(key)
            return _MAXT_SEEN[key]
    m = corr.shape[0]
    # eigen-decomposition tolerates singular correlations (e.g. of differences);
    # the directions of eigenvalues below the numerical rank's tolerance are left out
    # (their terms are rounding: +-1e-8 of a correlation's unit variance), so the
    # differences of k groups, of rank k - 1 among k (k - 1) / 2 rows, cost a
    # product of rank k - 1 (190 differences of 20 models: 0.20 s -> 0.055 s)
    vals, vecs = np.linalg.eigh(corr)
    keep = vals > vals.max() * m * np.finfo(float).eps
    root = vecs[:, keep] * np.sqrt(vals[keep])
    base = _base_normals(draws, m, seed)
    base = base if keep.all() else base[keep]
    z = np.empty(base.shape[1])  # max_k |Z_k| per draw, in blocks of draws (the
    for s in range(0, z.size, _BLOCK):  # (m, draws) product of 190 rows was 150 MB)
        block = root @ base[:, s : s + _BLOCK]
        np.abs(block, out=block)
        block.max(axis=0, out=z[s : s + _BLOCK])
    c = upper_quantile(z, q)
    with _MAXT_LOCK:
        _MAXT_SEEN[key] = c
        while len(_MAXT_SEEN) > _MAXT_KEEP:
            _MAXT_SEEN.popitem(last=False)
    return c


def _is_identity(corr: np.ndarray) -> bool:
    """``np.allclose(corr, np.eye(m), atol=1e-10)`` (its default ``rtol=1e-5``: 1e-10 + 1e-5
    on the diagonal, 1e-10 off it; NaN is not close), without ``np.isclose``'s overhead."""
    eye = np.eye(corr.shape[0])
    return bool(np.all(np.abs(corr - eye) <= 1e-10 + 1e-5 * eye))


#: Draws per block of the max-|t| simulation (:func:`simultaneous_critical_value`).
_BLOCK = 8192


def upper_quantile(z: np.ndarray, q: float) -> float:
    """``np.quantile(z, q)`` (1-d, the default linear method), the same number, from a
    partition of only the values above a floor when both order statistics it interpolates
    lie there (of all of ``z`` otherwise): the floor is the ``q - 0.02`` quantile of every
    50th value, so about ``1 - q + 0.02`` of the values are partitioned. An upper quantile
    of 100,000 simulated maxima took 1.3 ms by np.quantile (whose partition also places
    the minimum and maximum), 0.25 ms here."""
    n = z.size
    h = (n - 1) * q  # numpy's virtual index of the linear method
    k = math.floor(h)
    if n >= 1000 and 0 <= k < n - 1:
        sub = z[::50]
        j = max(0, math.floor((sub.size - 1) * (q - 0.02)))
        floor = np.partition(sub, j)[j]
        tail = z[z > floor]
        first = n - tail.size  # the rank of the tail's smallest value
        if k >= first:
            part = np.partition(tail, [k - first, k + 1 - first])
            a, b = part[k - first], part[k + 1 - first]
            g = h - k
            diff = b - a  # numpy's _lerp, its two branches
            return float(b - diff * (1 - g) if g >= 0.5 else a + diff * g)
    return float(np.quantile(z, q))


#: The max-|t| over the contrasts' estimated correlation is used for contrasts of group
#: means clustered by prompt only when the labeled prompts' degrees of freedom are at least
#: this many times the contrasts' rank (below: Bonferroni on the prompts' df; see
#: :func:`prompt_contrast_critical_values`). Measured with normal and heteroscedastic
#: t(3) prompt contributions, 300 draws each: 12 groups (rank 11) covered 0.82-0.88 at 5
#: prompts, 0.89-0.94 at 12, 0.94-0.97 at 24 and 48; 4 groups (rank 3) 0.93-0.95 from 5.
PLUGIN_DF_PER_RANK = 2.0


def min_simultaneous_prompts(alpha: float) -> int:
    """Fewest labeled prompts ``G`` for which a simultaneous ``1 - alpha`` interval of
    contrasts studentised by prompt can be valid without assuming normal prompt errors:
    the smallest ``G`` with ``2^(1 - G) <= alpha`` (6 at alpha 0.05, 5 at 0.10, 8 at 0.01).

    Why: with ``G`` prompts whose contributions are symmetric about 0 (the least a
    resampling method assumes), all ``G`` share a sign with chance ``2^(1 - G)``; for
    contributions of equal size every studentised statistic is then infinite (zero spread),
    so no finite critical value covers. Equivalently the cluster sign-flip distribution has
    ``2^(G - 1)`` distinct values of ``max |t|`` (``s`` and ``-s`` tie), and its levels are
    multiples of ``2^(1 - G)``: at 5 prompts 1/16 = 0.0625 > 0.05."""
    if not 0.0 < alpha < 1.0:
        raise ValidationError(f"alpha={alpha!r} must lie in (0, 1).")
    return max(2, math.ceil(1.0 - math.log2(alpha) - 1e-9))


#: :func:`min_simultaneous_prompts` at the default ``alpha = 0.05``.
MIN_SIMULTANEOUS_PROMPTS = min_simultaneous_prompts(0.05)


def prompt_contrast_critical_values(
    corr: np.ndarray, alpha: float, method: str, df: np.ndarray, rank: int
) -> tuple[np.ndarray, str]:
    """Simultaneous critical values of ``rank``-dimensional contrasts (e.g. all pairwise
    differences of group means: rank ``m - 1``) whose variances are clustered by prompt on
    ``df`` degrees of freedom (the labeled prompts minus one), and the rule used.

    ``method="maxt"`` with ``min(df) >= PLUGIN_DF_PER_RANK * rank``: the max-|t| over the
    estimated correlation (:func:`simultaneous_critical_value`). Below, that correlation is
    estimated from fewer prompts than it has dimensions (rank at most ``G - 1``), its
    max-|Z| is that of a lower-dimensional vector and too small: the simultaneous
    coverage of SummEval relevance's 66 differences was 0.81 / 0.90 / 0.92 / 0.92 at 5 / 6 /
    8 / 10 prompts (400 paired draws each; 0.9625 / 0.9825 / 0.97 from 6 with Bonferroni;
    EXPERIMENTS.md, issue 40 point 3). There the critical
    value is Bonferroni's Student-t quantile at ``alpha / K`` on the prompts' df: valid
    for any correlation when each contrast's t is (exactly so for normal prompt
    contributions; conservatively for normal ones of unequal variances at levels below
    0.08, Bakirov and Szekely 2006, the Ibragimov-Mueller argument), and close to the exact
    value: 12 exchangeable normal groups, 66 differences, exact 95% max-|t| 9.12 / 7.21 /
    5.57 / 4.89 at 5 / 6 / 8 / 10 prompts against Bonferroni's 9.26 / 7.30 / 5.67 / 4.98
    (with 4 degrees of freedom the t's tails are so heavy that their excursions hardly
    overlap). The cluster sign-flip (wild cluster bootstrap-t with Rademacher weights,
    every pattern, standard errors recomputed) was measured too: 0.917 / 0.937 / 0.96 /
    0.947 at 5 / 6 / 8 / 10 prompts (normal, 300 draws), below the band at 5 and 6 where
    its levels are multiples of ``2^(1 - G)``, and no narrower from 8 on;
    Webb's six-point weights gave 0.92 / 0.933 at 5 / 6.
    (``python -m benchmarks.paired_simultaneous``.) ``"bonferroni"`` and ``"none"`` are
    as :func:`simultaneous_critical_value`."""
    df = np.maximum(np.asarray(df, dtype=float), 1.0)
    if method == "maxt" and corr.shape[0] > 1 and float(df.min()) < PLUGIN_DF_PER_RANK * rank:
        crit = simultaneous_critical_value(corr, alpha, "bonferroni", df)
        return crit, "Bonferroni t on the labeled prompts (few prompts for the max-|t|)"
    crit = simultaneous_critical_value(corr, alpha, method, df)
    return crit, {"maxt": "max-|t|", "bonferroni": "Bonferroni t", "none": "pointwise"}[method]


@lru_cache(maxsize=16)
def _base_normals(draws: int, m: int, seed: int) -> np.ndarray:
    """Seeded standard normal draws, shape (m, draws) (the transpose of the seeded
    (draws, m) draws, stored row-major so that a max over the m rows is one pass of
    elementwise maxima), generated once per shape and reused (read-only)."""
    z = np.ascontiguousarray(np.random.default_rng(seed).standard_normal((draws, m)).T)
    z.setflags(write=False)
    return z


def bootstrap_t_critical_values(
    resid: np.ndarray,
    weight: np.ndarray,
    codes: np.ndarray,
    alpha: float,
    method: str = "maxt",
    *,
    hajek: bool = True,
    n_boot: int = 2000,
    seed: int = 0,
    moderation: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Critical values for disjoint domain means from a studentised bootstrap.

    Each domain's labeled items (residuals ``resid = y - lambda f`` with design
    weights ``weight = 1 / pi``) are resampled with replacement within the domain,
    ``n_boot`` times, and the weighted mean of the resample is studentised by its
    own standard error: ``T*_g = (mean* - mean) / se*``. ``method="maxt"``
    returns the ``1 - alpha`` quantile of ``max_g |T*_g|`` for every domain
    (joint coverage of all domains, as Westfall-Young / Romano-Wolf max-T);
    ``"bonferroni"`` and ``"none"`` the per-domain quantiles of ``|T*_g|`` at
    ``1 - alpha / m`` and ``1 - alpha``.

    The t approximation behind the analytic intervals is short for domains with
    a few dozen skewed or unequally weighted labels (measured: simultaneous
    coverage 0.85 at nominal 0.90); the bootstrap learns the studentised
    statistic's real tails from the data. Only the shape comes from the
    bootstrap: the interval is ``estimate +- c_g * se_g`` with the design-based
    ``se_g`` (finite-population correction included), because a with-replacement
    resample knows nothing of the correction. Seeded, hence deterministic.

    ``resid`` of shape (n, k): ``k`` residual vectors of the same labels (e.g. with
    and without a surrogate) on the same resamples, drawn once; the result (k, m)
    equals ``k`` calls with one vector each.

    ``moderation``: ``(a, b)``, each (m,) or (k, m), when the interval's variance is
    the larger of the own and a moderated one, ``a + b v`` (:mod:`.moderate`, ``v``
    the own): each resample is studentised the same way, ``max(v*, a + b v*)``
    (``a`` in the units of the own variance of the sample,
    :func:`resample_moderation`). Without it a resample that misses a domain's rare
    large residuals has a tiny ``se*`` and a huge ``|T*|``, while the interval's
    ``se`` cannot be that small: the critical values blow up (binary labels with a
    good surrogate: 6-12 at 15-20 labels a domain).
    """
    dev, se = bootstrap_resamples(
        resid, weight, codes, hajek=hajek, n_boot=n_boot, seed=seed, moderation=moderation
    )
    crit = np.array(
        [resample_critical_values(d, s, alpha, method) for d, s in zip(dev, se, strict=True)]
    )
    return crit if np.ndim(resid) == 2 else crit[0]


def resample_critical_values(
    dev: np.ndarray, se: np.ndarray, alpha: float, method: str
) -> np.ndarray:
    """The domains' critical values from their resamples (:func:`bootstrap_resamples`, one
    residual vector: ``dev`` and ``se`` of shape (n_boot, m))."""
    return _quantiles(_abs_t(dev, se), alpha, method)


#: Picks (labels x residual vectors x resamples) below which :func:`bootstrap_resamples`
#: runs in the calling thread: 2,000 resamples of 200 labels and two vectors took 2.9 ms
#: of CPU there against 3.2 ms on two threads (5.4 ms wall on a busy 2-core machine,
#: 4.9 ms in one), 1,000 labels 35 ms in one thread and 19 ms on two.
SERIAL_PICKS = 1_000_000


def bootstrap_resamples(
    resid: np.ndarray,
    weight: np.ndarray,
    codes: np.ndarray,
    *,
    hajek: bool = True,
    n_boot: int = 2000,
    seed: int = 0,
    moderation: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The resamples of :func:`bootstrap_t_critical_values` (same arguments): each
    domain's deviation ``mean* - mean`` and studentising ``se*`` (moderated), both of
    shape (k, n_boot, m) (``k`` residual vectors, ``m`` domains)."""
    cols = np.asarray(resid, dtype=float).reshape(len(codes), -1)
    m = int(codes.max()) + 1
    order = np.argsort(codes, kind="stable")
    g = codes[order]
    size = np.bincount(g, minlength=m)
    if np.any(size < 2):
        raise ValidationError(
            f"domain code {int(np.argmax(size < 2))} has {int(size.min())} labeled item(s); "
            "every domain 0..m-1 needs at least 2 for a bootstrap."
        )
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    w = weight[order]
    us = [_centred(cols[order, r], w, g, m, size, hajek) for r in range(cols.shape[1])]
    k = len(us)
    ab = np.zeros((2, k + 1, m))  # a spare row: the kernel reads r + 1 on an odd count
    if moderation is not None:
        ab[:, :k] = [np.broadcast_to(np.asarray(v, dtype=float), (k, m)) for v in moderation]
    dev = np.empty((k + 1, n_boot, m))  # a spare row, as ab's
    se = np.empty((k + 1, n_boot, m))
    kernel = _resample_t()
    key = np.uint64(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])

    # two residual vectors per sweep of the picks, beside the weights (one cache line)
    pairs = [(r, r + 1 < k) for r in range(0, k, 2)]
    data = [np.column_stack([w, us[r], us[r + two]]) for r, two in pairs]
    mods = [np.ascontiguousarray(ab[:, r : r + 2]) for r, _ in pairs]

    def resample(first: int, last: int) -> None:
        # resamples first..last-1, all groups at once (group sizes kept); a pick is a
        # function of (seed, resample, position) only, so any split gives the same picks
        for (r, two), d, mod in zip(pairs, data, mods, strict=True):
            kernel(first, last, key, d, start, size, hajek, two, mod, dev[r], se[r],
                   dev[r + 1], se[r + 1])  # fmt: skip

    parts = max(1, min(4, os.cpu_count() or 1, n_boot))
    if parts == 1 or cols.size * n_boot < SERIAL_PICKS:
        resample(0, n_boot)  # starting threads would cost more than they save
        return dev[:k], se[:k]
    cuts = np.linspace(0, n_boot, parts + 1).astype(int)
    with ThreadPoolExecutor(parts) as pool:  # the loop releases the GIL
        list(pool.map(resample, cuts[:-1].tolist(), cuts[1:].tolist()))
    return dev[:k], se[:k]


def _abs_t(dev: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``|dev| / se``; a resample of one repeated item has se 0, and ``|T|`` is then
    infinite unless it hits the estimate exactly."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(dev) / se
    return np.where(se > 0, t, np.where(np.abs(dev) > 1e-12, np.inf, 0.0))


def bootstrap_pair_critical_values(
    dev: np.ndarray, se: np.ndarray, pairs: Sequence[tuple[int, int]], alpha: float, method: str
) -> np.ndarray:
    """Critical values of the differences ``a - b`` of disjoint domain means, for each
    pair ``(a, b)``, from the same resamples as the domains' (:func:`bootstrap_resamples`,
    one residual vector: ``dev`` and ``se`` of shape (n_boot, m)):
    ``T*_ab = (dev*_a - dev*_b) / sqrt(se*_a^2 + se*_b^2)``, studentised as each domain's
    is, max-|T*| over the pairs (``"maxt"``) or per pair (``"bonferroni"``, ``"none"``)."""
    a = np.array([p[0] for p in pairs], dtype=int)
    b = np.array([p[1] for p in pairs], dtype=int)
    v = se * se
    n_boot = dev.shape[0]
    if method == "maxt" and a.size > 1:
        most = np.empty(n_boot)
        step = max(1, 2_000_000 // max(a.size, 1))  # resamples per chunk: bounded memory
        for lo in range(0, n_boot, step):
            hi = min(n_boot, lo + step)
            t = _abs_t(dev[lo:hi, a] - dev[lo:hi, b], np.sqrt(v[lo:hi, a] + v[lo:hi, b]))
            most[lo:hi] = t.max(axis=1)
        return np.full(a.size, np.quantile(most, 1.0 - alpha, method="higher"))
    return _quantiles(_abs_t(dev[:, a] - dev[:, b], np.sqrt(v[:, a] + v[:, b])), alpha, method)


def _centred(resid: np.ndarray, w: np.ndarray, g: np.ndarray, m: int, size, hajek: bool):
    """Residuals (sorted by domain ``g``) less their domain's (weighted) mean: a
    resample's mean is then its deviation from the estimate."""
    if hajek:
        centre = np.bincount(g, weights=w * resid, minlength=m) / np.bincount(
            g, weights=w, minlength=m
        )
        return resid - centre[g]
    wu = w * resid
    return wu - (np.bincount(g, weights=wu, minlength=m) / size)[g]


def resample_moderation(
    var: np.ndarray,
    moderated: np.ndarray,
    df: np.ndarray,
    d0: float,
    resid: np.ndarray,
    weight: np.ndarray,
    codes: np.ndarray,
    hajek: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``moderation`` of :func:`bootstrap_t_critical_values` for groups whose interval
    variance is ``max(var, moderated)``, ``moderated = a + b var`` with ``b = (df - d0) /
    df`` (:func:`~bacon_bayes.estimate.moderate.moderated_variance`: ``df`` its degrees of
    freedom, ``d0`` the prior's worth in labels): ``(a, b)`` with ``a``
    in the bootstrap's units, the variance of the mean its statistic computes on the
    sample itself (weighted, ``n / (n - 1)``, no finite-population correction). The design
    variance ``var`` is ``q`` times that, so ``a`` is divided by ``q`` (the median over the
    groups where a group's own variance is 0)."""
    m = var.size
    b = (df - d0) / df
    size = np.bincount(codes, minlength=m).astype(float)
    u = _centred(np.asarray(resid, dtype=float), weight, codes, m, size, hajek)
    if hajek:
        s0 = np.bincount(codes, weights=weight, minlength=m)
        own = np.bincount(codes, weights=(weight * u) ** 2, minlength=m) / s0**2
    else:
        own = np.bincount(codes, weights=u * u, minlength=m) / size**2
    own = own * size / np.maximum(size - 1.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where((own > 0) & (var > 0), var / own, np.nan)
    q = np.where(np.isfinite(q), q, np.nanmedian(q) if np.isfinite(q).any() else 1.0)
    return np.maximum(moderated - b * var, 0.0) / q, b


def _quantiles(abs_t: np.ndarray, alpha: float, method: str) -> np.ndarray:
    """Critical values from the resamples' ``|T*|`` (resamples x domains)."""
    m = abs_t.shape[1]
    # "higher": no interpolation towards an infinite draw
    if method == "maxt" and m > 1:
        return np.full(m, np.quantile(abs_t.max(axis=1), 1.0 - alpha, method="higher"))
    level = 1.0 - (alpha / m if method == "bonferroni" else alpha)
    return np.quantile(abs_t, level, axis=0, method="higher")


def _resample_t_py(  # pragma: no cover
    first, last, key, data, start, size, hajek, two, mod, dev, se, dev_v, se_v
):
    """The deviation ``mean*`` and studentising ``se*`` of each group in resamples
    ``first..last-1`` into those rows of ``dev``, ``se`` (residuals ``data[:, 1]``) and of
    ``dev_v``, ``se_v`` (``data[:, 2]``, when ``two``); ``data[:,
    0]`` holds the weights, rows sorted by group (group ``k``: rows ``start[k]`` to
    ``start[k] + size[k]``). Position ``i`` of resample ``b`` picks row ``start[k] +
    floor(U * size[k])``, ``U`` from SplitMix64 at counter ``b * n + i`` (a counter-based
    generator: picks do not depend on how resamples are split over threads); the
    deviation is the resample's weighted (``hajek``) or plain mean, its standard
    error's variance ``v`` raised to ``a + b v`` where that is larger (``mod[0, c,
    k]``, ``mod[1, c, k]``: column ``c`` (0 or 1), group ``k``). Compiled."""
    n = data.shape[0]
    gamma = np.uint64(0x9E3779B97F4A7C15)
    m1 = np.uint64(0xBF58476D1CE4E5B9)
    m2 = np.uint64(0x94D049BB133111EB)
    s30, s27, s31, s32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)

    def mean_se(s0, s1, s2, s3, s4, n, a, b):
        if hajek:
            mean = s1 / s0
            # sum w^2 (u - mean)^2 from sums of w^2 u^2, w^2 u and w^2
            ss = s2 - 2.0 * mean * s3 + mean * mean * s4
            var = max(ss, 0.0) / (s0 * s0)
        else:
            mean = s1 / n
            var = max(s2 / n - mean * mean, 0.0) / n
        var = var * n / max(n - 1.0, 1.0)
        return mean, np.sqrt(max(var, a + b * var))

    for b in range(first, last):
        state = key + np.uint64(b) * np.uint64(n) * gamma
        for k in range(size.size):
            s0 = s1 = s2 = s3 = s4 = 0.0
            t1 = t2 = t3 = 0.0
            lo, nk = start[k], size[k]
            nk_u = np.uint64(nk)
            for _ in range(nk):
                state += gamma
                z = state
                z = (z ^ (z >> s30)) * m1
                z = (z ^ (z >> s27)) * m2
                z = z ^ (z >> s31)
                pick = lo + np.intp(((z >> s32) * nk_u) >> s32)  # floor(U * nk), U = z / 2^64
                ws = data[pick, 0]
                us = data[pick, 1]
                if hajek:
                    wu = ws * us
                    s0 += ws
                    s1 += wu
                    s2 += wu * wu
                    s3 += wu * ws
                    s4 += ws * ws
                    if two:
                        wv = ws * data[pick, 2]
                        t1 += wv
                        t2 += wv * wv
                        t3 += wv * ws
                else:
                    s1 += us
                    s2 += us * us
                    if two:
                        vs = data[pick, 2]
                        t1 += vs
                        t2 += vs * vs
            nf = np.float64(nk)
            dev[b, k], se[b, k] = mean_se(s0, s1, s2, s3, s4, nf, mod[0, 0, k], mod[1, 0, k])
            if two:
                dev_v[b, k], se_v[b, k] = mean_se(
                    s0, t1, t2, t3, s4, nf, mod[0, 1, k], mod[1, 1, k]
                )


@lru_cache(maxsize=1)
def _resample_t():
    """:func:`_resample_t_py` compiled (machine code kept between processes)."""
    return njit_cached(_resample_t_py, nogil=True)
