"""Simulated rounds with known truth: a calibrator fitted on an old round, applied to a new
one (:meth:`bacon_bayes.Calibrator.apply`), in three scenarios of change.

The old round is a pool of systems (groups), three judges linear in a latent quality with
noise, and human labels ``y = 3 + latent + N(0, 0.6^2)``; a share of its items is labeled
and the library's calibrator (frequentist engine, ridge) is fitted on it once per world.
The new round is a fresh pool of the same size, with

* ``new_system``: a system unseen in the old round (quality 2 sd above the old systems),
  judges as before (the old surrogate shrinks its items towards the old round's mean: a
  shifted group);
* ``judge_shift``: one judge (the most trusted) scores one system 0.8 higher than before;
* ``judge_version``: a new version of that judge, ``-0.5 + 1.3 x`` for every item.

For each world, each replication draws ``n`` fresh labels uniformly from the new pool and
records the frozen surrogate's AEE mean (:func:`bacon_bayes.estimate.aee_mean`, as
``Calibrator.apply(pool).estimate_mean``) and group means (``estimate_groups``), the refit's
mean (:func:`bacon_bayes.crossfit.cross_fit_with`, as ``apply(pool, refit=True)``) and the
transport check's verdict per group (:func:`bacon_bayes.transport.transport_check`'s rows).
The frozen surrogate, the features and the calibrator do not depend on the fresh labels,
so they are built once per world; the test suite checks that a replication equals the
library's own calls. Truth is the new pool's mean label (and group means): the target is
the pool.

Every group's true residual mean ``delta`` (of ``y - f`` over its new items) and residual
sd are known, so the transport check's ``drifted`` rate can be set against the power
analysis :func:`bacon_bayes.transport.flag_rate`. One continuing system is *stable* by
construction: its new labels are shifted by its residual mean under the fitted surrogate
(a few hundredths) so that its ``delta`` is exactly 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from bacon_bayes import estimate as est
from bacon_bayes.calibrator import MIN_GROUP_LABELS, Calibrator
from bacon_bayes.crossfit import cross_fit, cross_fit_with
from bacon_bayes.features import apply_features, build_features
from bacon_bayes.frozen import tunes
from bacon_bayes.pool import EvalPool
from bacon_bayes.results import EstimateTable
from bacon_bayes.simulation.regimes import Coverage, Draws
from bacon_bayes.transport import TOLERANCE_SHARE, _row, flag_rate, group_rows

__all__ = [
    "SCENARIOS",
    "RoundCoverage",
    "RoundsResult",
    "TransportRate",
    "World",
    "coverage_rows_table",
    "make_world",
    "study",
    "transport_table",
]

N_PER_GROUP = 500
OLD_LABEL_SHARE = 0.2
NOISE_SD = 0.6
JUDGES = ("j1", "j2", "j3")
#: Mean latent quality of each system.
SYSTEM_MEANS = {"A": 0.0, "B": 0.3, "C": -0.2, "D": 2.0}
OLD_SYSTEMS = ("A", "B", "C")
SCENARIOS: dict[str, str] = {
    "new_system": "new round: A, B and an unseen system D (quality +2), judges as before",
    "judge_shift": "new round: A, B, C; judge j1 scores system B 0.8 higher than before",
    "judge_version": "new round: A, B, C; judge j1 replaced by a version -0.5 + 1.3 x",
}
NEW_SYSTEMS = {
    "new_system": ("A", "B", "D"),
    "judge_shift": ("A", "B", "C"),
    "judge_version": ("A", "B", "C"),
}
#: judge_shift: j1's extra score on system B; judge_version: j1's new offset and scale.
SHIFT = 0.8
VERSION = (-0.5, 1.3)
#: The continuing system made stable (its residual mean exactly 0) in each scenario.
STABLE = {"new_system": "A", "judge_shift": "A", "judge_version": None}
#: Drifted-rate tolerance of the power check (|observed - predicted|).
POWER_TOLERANCE = 0.07


@dataclass
class World:
    """One old round (its fitted calibrator) and the new round it is applied to."""

    scenario: str
    cal: Calibrator  # fitted on the old round
    pool: EvalPool  # the new round, every item labeled (the truth)
    f: np.ndarray  # the frozen surrogate on the new pool
    X_new: np.ndarray  # the new pool's features under the old transform
    X_fresh: np.ndarray  # the new pool's features built on itself (a fresh calibrator)
    X_old: np.ndarray  # the old pool's features and labels (NaN: unlabeled), for refits
    y_old: np.ndarray
    groups: np.ndarray  # str, per new item
    tol: float  # the transport check's default tolerance
    delta: dict[str, float] = field(default_factory=dict)  # true residual mean per group
    sd: dict[str, float] = field(default_factory=dict)  # residual sd per group

    @property
    def y(self) -> np.ndarray:
        return self.pool.y


def _judges(rng: np.random.Generator, latent: np.ndarray) -> np.ndarray:
    n = latent.size
    return np.column_stack(
        [
            0.5 + 0.9 * latent + rng.normal(0, 0.5, n),
            1.0 + 0.6 * latent + rng.normal(0, 0.7, n),
            -0.3 + 1.2 * latent + rng.normal(0, 1.0, n),
        ]
    )


def _round(rng: np.random.Generator, systems: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    groups = np.repeat(np.array(systems), N_PER_GROUP)
    latent = np.array([SYSTEM_MEANS[g] for g in groups]) + rng.normal(0, 1, groups.size)
    X = _judges(rng, latent)
    y = 3.0 + latent + rng.normal(0, NOISE_SD, groups.size)
    return X, y, groups


def _pool(X: np.ndarray, y: np.ndarray, groups: np.ndarray) -> EvalPool:
    df = pd.DataFrame(X, columns=list(JUDGES))
    df["y"], df["system"] = y, groups
    return EvalPool.from_frame(
        df, label="y", judges=list(JUDGES), outcome="continuous", group="system"
    )


def make_world(scenario: str, seed: int = 0) -> World:
    """Draw an old round, fit its calibrator (freq engine), draw the new round of
    ``scenario`` (see :data:`SCENARIOS`) and freeze the calibrator on it."""
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario {scenario!r}: one of {', '.join(SCENARIOS)}")
    rng = np.random.default_rng(seed)
    X_old, y_old, g_old = _round(rng, OLD_SYSTEMS)
    labeled = rng.random(y_old.size) < OLD_LABEL_SHARE
    old = _pool(X_old, np.where(labeled, y_old, np.nan), g_old)
    cal = Calibrator(engine="freq", seed=seed).fit(old)
    X, y, groups = _round(rng, NEW_SYSTEMS[scenario])
    if scenario == "judge_shift":
        X[groups == "B", 0] += SHIFT
    elif scenario == "judge_version":
        X[:, 0] = VERSION[0] + VERSION[1] * X[:, 0]
    pool = _pool(X, y, groups)
    f = cal.apply(pool).surrogate_
    stable = STABLE[scenario]
    if stable is not None:  # its residual mean exactly 0
        rows = groups == stable
        y = y.copy()
        y[rows] -= np.mean(y[rows] - f[rows])
        pool = replace(pool, y=y)
    features = apply_features(pool, cal.features_)
    fresh = build_features(pool, winsor=cal.winsor, n_components=cal.n_components, seed=seed)
    resid = np.std(old.y[old.labeled] - cal.surrogate_[old.labeled], ddof=1)
    world = World(
        scenario,
        cal,
        pool,
        f,
        features.X,
        fresh.X,
        cal.features_.X,
        old.y,
        groups.astype(str),
        TOLERANCE_SHARE * float(resid),
    )
    r = y - f
    for name in np.unique(world.groups):
        rows = world.groups == name
        world.delta[name] = float(np.mean(r[rows]))
        world.sd[name] = float(np.std(r[rows], ddof=1))
    return world


# ---------------------------------------------------------------------------
# one replication
# ---------------------------------------------------------------------------


def _draw(rng: np.random.Generator, n_items: int, n: int) -> np.ndarray:
    mask = np.zeros(n_items, dtype=bool)
    mask[rng.choice(n_items, n, replace=False)] = True
    return mask


def _tuned(world: World, y_lab: np.ndarray, tuning: bool | None) -> bool:
    """The frozen calibrator's power tuning (:func:`bacon_bayes.frozen.tunes`), unless
    ``tuning`` forces it."""
    return tunes(world.cal, int(np.sum(~np.isnan(y_lab)))) if tuning is None else tuning


def frozen_mean(
    world: World, y_lab: np.ndarray, alpha: float, tuning: bool | None = None
) -> tuple[float, float, float]:
    """The frozen surrogate's AEE mean (estimate, ci_low, ci_high) of the new pool with the
    fresh labels ``y_lab`` (NaN: unlabeled), as ``cal.apply(pool).estimate_mean(alpha)``;
    ``tuning`` forces power tuning on or off."""
    tuned = _tuned(world, y_lab, tuning)
    e = est.aee_mean(y_lab, world.f, alpha=alpha, power_tuning=tuned, hajek=world.cal.hajek)
    return e.estimate, e.ci_low, e.ci_high


def frozen_groups(
    world: World, y_lab: np.ndarray, alpha: float, tuning: bool | None = None
) -> EstimateTable:
    """Group means with the frozen surrogate, as ``cal.apply(pool).estimate_groups(alpha,
    pooling="separate")`` (simultaneous max-t, studentised bootstrap; without the
    withholding of small groups)."""
    c = world.cal
    return est.aee_group_means(
        y_lab,
        world.f,
        world.groups,
        alpha=alpha,
        power_tuning=_tuned(world, y_lab, tuning),
        hajek=c.hajek,
        seed=c.seed,
    )


def refit_mean(
    world: World, y_lab: np.ndarray, alpha: float, tuning: bool | None = None
) -> tuple[float, float, float]:
    """The refit's AEE mean, as ``cal.apply(pool, refit=True).estimate_mean(alpha)``."""
    c = world.cal
    fit = cross_fit_with(
        c.model_, world.X_new, y_lab, world.X_old, world.y_old, folds=c.folds, seed=c.seed
    )
    e = est.aee_mean(y_lab, fit.mean, alpha=alpha, power_tuning=c.power_tuning, hajek=c.hajek)
    return e.estimate, e.ci_low, e.ci_high


def fresh_mean(
    world: World, y_lab: np.ndarray, alpha: float, tuning: bool | None = None
) -> tuple[float, float, float]:
    """A calibrator fitted on the fresh labels alone, as
    ``Calibrator(engine="freq", surrogates=[]).fit(pool).estimate_mean(alpha)`` (the
    model's surrogate alone: the default before the small-budget rule of
    :func:`bacon_bayes.surrogates.freq_default`)."""
    c = world.cal
    fit = cross_fit(c.model_, world.X_fresh, y_lab, folds=c.folds, seed=c.seed)
    e = est.aee_mean(y_lab, fit.mean, alpha=alpha, power_tuning=c.power_tuning, hajek=c.hajek)
    return e.estimate, e.ci_low, e.ci_high


def transport_rows(world: World, y_lab: np.ndarray, alpha: float) -> dict[str, dict]:
    """The transport check's row per group (and ``"(all)"``), as
    ``transport_check(cal.apply(pool), alpha=alpha)`` with its default tolerance."""
    lab = ~np.isnan(y_lab)
    r = (y_lab - world.f)[lab]
    g = world.groups[lab]
    out = {"(all)": _row(r, np.ones(r.size), world.tol, alpha, None)}
    return out | group_rows(
        r, np.ones(r.size), world.f[lab], g, list(world.delta), world.tol, alpha
    )


# ---------------------------------------------------------------------------
# the study
# ---------------------------------------------------------------------------


@dataclass
class RoundCoverage(Coverage):
    """Coverage of one estimand with ``n`` fresh labels (the regime is the scenario);
    ``rmse`` of the estimate against the truth."""

    n: int = 0
    rmse: float = float("nan")


@dataclass
class TransportRate:
    """How often the transport check's verdict on one group was ``drifted``, against the
    power analysis :func:`~bacon_bayes.transport.flag_rate` (averaged over the draws,
    each with its group's label count ``n_g``): with the Student-t rule on an estimated
    se (the check's own df: ``n - 1`` for the pool, the moderated variance's for a group)
    and with the normal approximation."""

    scenario: str
    n: int
    group: str
    stable: bool
    delta: float  # true residual mean (averaged over worlds)
    sd: float  # residual sd of the group's new items
    alpha: float
    reps: int
    drifted: float
    holds: float
    predicted: float
    predicted_normal: float
    mean_labels: float

    @property
    def slack(self) -> float:
        """One-sided 99.9% binomial slack above ``alpha`` for a stable group."""
        return 3.09 * float(np.sqrt(self.alpha * (1 - self.alpha) / self.reps))

    @property
    def ok(self) -> bool:
        """A stable group: flagged at most at ``alpha`` (+ slack); a shifted one: within
        :data:`POWER_TOLERANCE` of the prediction."""
        if self.stable:
            return self.drifted <= self.alpha + self.slack
        return abs(self.drifted - self.predicted) <= POWER_TOLERANCE


@dataclass
class RoundsResult:
    coverage: list[RoundCoverage]
    transport: list[TransportRate]


METHODS = {"frozen": frozen_mean, "refit": refit_mean, "fresh": fresh_mean}


def _coverage(
    scenario: str, n: int, estimand: str, method: str, alpha: float, est_, lo, hi, truth, df
) -> RoundCoverage:
    est_, lo, hi, truth, df = (np.asarray(a, dtype=float) for a in (est_, lo, hi, truth, df))
    cover = (lo <= truth) & (truth <= hi)
    if cover.ndim > 1:  # simultaneous: every group at once
        cover = cover.all(axis=1)
    err = est_ - truth
    per = err.reshape(len(lo), -1)
    return RoundCoverage(
        scenario,
        estimand,
        method,
        alpha,
        len(lo),
        float(cover.mean()),
        float(np.mean(hi - lo)),
        float(per.mean()),
        float(per.mean(axis=1).std(ddof=1) / np.sqrt(len(lo))),
        Draws(est_, lo, hi, truth, df),
        n=n,
        rmse=float(np.sqrt(np.mean(err**2))),
    )


def study(
    scenario: str,
    *,
    ns: tuple[int, ...] = (20, 40, 100),
    reps: int = 1000,
    worlds: int = 4,
    alpha: float = 0.05,
    methods: tuple[str, ...] = ("frozen", "refit", "fresh"),
    groups: bool = True,
    shrink: float = 1.0,
    tuning: bool | None = None,
    seed: int = 0,
    progress: bool = False,
) -> RoundsResult:
    """``reps`` replications of fresh labels per ``n`` in ``scenario``, spread over
    ``worlds`` old rounds (each fitted once, see :func:`make_world`).

    Parameters
    ----------
    scenario : str
        One of :data:`SCENARIOS`.
    ns : tuple of int
        Fresh labels per replication (drawn uniformly without replacement).
    reps, worlds : int
        Replications per ``n`` in all, and old rounds (worlds) they are spread over.
    alpha : float
        One minus the confidence level (and the transport check's level).
    methods : tuple of str
        Mean estimators: ``frozen`` (the saved calibrator), ``refit`` (old and new
        labels), ``fresh`` (a calibrator of the fresh labels alone).
    groups : bool
        Also the frozen surrogate's simultaneous group means (over the replications in
        which every group has at least ``MIN_GROUP_LABELS`` labels).
    shrink : float
        Scale every interval's half-width (1: as computed; below 1, a too-narrow
        interval that the band must catch).
    tuning : bool, optional
        Force the frozen calibrator's power tuning on or off (default: the library's
        rule, :func:`bacon_bayes.frozen.tunes`; refit and fresh calibrators always tune).
    seed : int
        Seeds the worlds (``seed * 1000 + k``) and the label draws.
    progress : bool
        Print a line per world and ``n``.

    Returns
    -------
    RoundsResult
        Coverage rows (per ``n``, estimand and method) and transport rows (per ``n``
        and group).
    """
    rng = np.random.default_rng([seed, list(SCENARIOS).index(scenario)])
    per_world = np.diff(np.linspace(0, reps, worlds + 1).round().astype(int))
    acc: dict[tuple, list] = {}
    flags: dict[tuple, list] = {}
    for k in range(worlds):
        w = make_world(scenario, seed * 1000 + k)
        truth_g = np.array([w.y[w.groups == g].mean() for g in w.delta])
        r_all = w.y - w.f
        delta = {"(all)": float(r_all.mean()), **w.delta}
        sd = {"(all)": float(np.std(r_all, ddof=1)), **w.sd}
        cache: dict[tuple, tuple[float, float]] = {}
        for n in ns:
            if progress:
                print(
                    f"  {scenario} world {k + 1}/{worlds} n={n}: {per_world[k]} draws", flush=True
                )
            for _ in range(per_world[k]):
                y_lab = np.where(_draw(rng, w.y.size, n), w.y, np.nan)
                for m in methods:
                    e, lo, hi = METHODS[m](w, y_lab, alpha, tuning)
                    h = shrink * (hi - lo) / 2
                    # the t's df before Satterthwaite's (the labels' n - 1; kept for checks)
                    acc.setdefault((n, "mean", m), []).append((e, e - h, e + h, w.y.mean(), n - 1))
                lab_g = w.groups[~np.isnan(y_lab)]
                if groups and min(np.sum(lab_g == g) for g in w.delta) >= MIN_GROUP_LABELS:
                    t = frozen_groups(w, y_lab, alpha, tuning)
                    eg = np.asarray(t.estimate)
                    hg = shrink * (np.asarray(t.ci_high) - np.asarray(t.ci_low)) / 2
                    df_g = np.broadcast_to(t.details.get("df", np.inf), eg.shape)  # inf: bootstrap
                    acc.setdefault((n, "groups (simultaneous)", "frozen"), []).append(
                        (eg, eg - hg, eg + hg, truth_g, df_g)
                    )
                for name, row in transport_rows(w, y_lab, alpha).items():
                    m_g = int(row["n_labels"])
                    # the check's df: n - 1 for the pool, the moderated variance's for a group
                    df_g = round(float(row["df"])) if m_g >= 3 else 0
                    key = (name, m_g, df_g)
                    if key not in cache:
                        if m_g < 3:
                            cache[key] = (0.0, 0.0)
                        else:
                            se = sd[name] / np.sqrt(m_g)
                            cache[key] = (
                                flag_rate(delta[name], se, w.tol, alpha, df=df_g),
                                flag_rate(delta[name], se, w.tol, alpha),
                            )
                    flags.setdefault((n, name), []).append(
                        (row["verdict"], *cache[key], m_g, delta[name], sd[name])
                    )
    rows = [
        _coverage(scenario, n, estimand, m, alpha, *map(np.array, zip(*v, strict=True)))
        for (n, estimand, m), v in acc.items()
    ]
    stable = STABLE[scenario]
    rates = []
    for (n, name), v in flags.items():
        cols = list(zip(*v, strict=True))
        verdict = np.array(cols[0])
        pred, pred_n, labels, deltas, sds = (np.array(c, dtype=float) for c in cols[1:])
        rates.append(
            TransportRate(
                scenario,
                n,
                str(name),
                name == stable,
                float(deltas.mean()),
                float(sds.mean()),
                alpha,
                len(v),
                float(np.mean(verdict == "drifted")),
                float(np.mean(verdict == "holds")),
                float(pred.mean()),
                float(pred_n.mean()),
                float(labels.mean()),
            )
        )
    return RoundsResult(rows, rates)


def coverage_rows_table(rows: list[RoundCoverage]) -> str:
    """Markdown table of coverage rows with the two-sided 99.9% binomial band."""
    lines = [
        "| scenario | n | estimand | method | reps | coverage | band | mean width | bias (se) "
        "| RMSE | ok |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in rows:
        lo, hi = c.band()
        lines.append(
            f"| {c.regime} | {c.n} | {c.estimand} | {c.method} | {c.reps} | {c.coverage:.3f} "
            f"| {lo:.3f}-{hi:.3f} | {c.mean_width:.4f} | {c.bias:+.4f} ({c.bias_se:.4f}) "
            f"| {c.rmse:.4f} | {'yes' if c.in_band else 'NO'} |"
        )
    return "\n".join(lines)


def transport_table(rates: list[TransportRate]) -> str:
    """Markdown table of the transport check's drifted rates against the power analysis."""
    lines = [
        "| scenario | n | group | delta | residual sd | mean labels | drifted | predicted (t) "
        "| predicted (normal) | holds | ok |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rates:
        what = " (stable)" if r.stable else ""
        lines.append(
            f"| {r.scenario} | {r.n} | {r.group}{what} | {r.delta:+.3f} | {r.sd:.3f} "
            f"| {r.mean_labels:.1f} | {r.drifted:.3f} | {r.predicted:.3f} "
            f"| {r.predicted_normal:.3f} | {r.holds:.3f} | {'yes' if r.ok else 'NO'} |"
        )
    return "\n".join(lines)


def main(reps: int = 1000, ns: tuple[int, ...] = (10, 20, 40, 100), worlds: int = 4) -> None:
    """The full study (VALIDATION.md): ``python -m bacon_bayes.simulation.rounds``."""
    import time

    cov: list[RoundCoverage] = []
    rates: list[TransportRate] = []
    for scenario in SCENARIOS:
        start = time.time()
        res = study(scenario, ns=ns, reps=reps, worlds=worlds, progress=True)
        cov += res.coverage
        rates += res.transport
        print(f"{scenario}: {time.time() - start:.0f} s", flush=True)
    print(coverage_rows_table(cov))
    print()
    print(transport_table(rates))


if __name__ == "__main__":
    main()
