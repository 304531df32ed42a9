"""The pool mean's alpha-spending boundary on the looks' own correlation (issue 41): each
earlier look refitted as the pool stood, the adjacent looks' cosines handed to the
boundary (:mod:`bacon_bayes.look_fits`); a study's looks fitted once and its report's
sequence, ``bacon estimate`` and the library agreeing."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool, estimands, sequential
from bacon_bayes.estimate import anytime as at
from bacon_bayes.look_fits import LookFit, earlier_fits, hand_over, mean_shape, pool_after_wave
from bacon_bayes.study import import_labels, load_study
from bacon_bayes.study.looks import look_estimates

from .conftest import bacon, fill, record_budget


def _frame(n: int = 600, waves: int = 5, seed: int = 3) -> pd.DataFrame:
    """A pool whose judges miss the label differently over its range, so a surrogate
    refitted on more labels changes; ``waves`` uniform waves of 30 labels."""
    rng = np.random.default_rng(seed)
    y = rng.normal(3.0, 1.0, n)
    wave = np.full(n, np.nan)
    wave[rng.permutation(n)[: 30 * waves]] = np.repeat(np.arange(1, waves + 1), 30)
    return pd.DataFrame(
        {
            "y": np.where(np.isfinite(wave), y, np.nan),
            "j1": y + 0.4 * (y - 3.0) ** 2 + rng.normal(0, 0.6, n),
            "j2": y + rng.normal(0.2, 0.9, n),
            "wave": wave,
        }
    )


def _pool(frame: pd.DataFrame) -> EvalPool:
    return EvalPool.from_frame(
        frame, label="y", judges=["j1", "j2"], outcome="continuous", wave="wave"
    )


def _canonical(cal: Calibrator, max_labels: int) -> tuple[float, float]:
    """Today's interval on the canonical correlation: the boundary so, with the same Hall's
    term on the skewed side (:func:`bacon_bayes.look_fits.mean_shape`)."""
    e = estimands.mean(cal, 0.05, "aee")
    seq = at.anytime_estimate(
        e, sequential.pool_looks(cal), info=sequential.mean_information(cal),
        max_labels=max_labels, shape=mean_shape(cal, e),
    ).clip(*cal.bounds_)  # fmt: skip
    return seq.ci_low, seq.ci_high


def test_the_pool_after_a_wave_is_the_pool_read_with_its_later_labels_blank() -> None:
    frame = _frame()
    pool = _pool(frame)
    later = frame["wave"] > 2
    then = _pool(frame.assign(y=frame["y"].mask(later), wave=frame["wave"].mask(later)))
    assert pool_after_wave(pool, 1) == then  # wave codes 0, 1, 2: waves 1 and 2


def test_a_surrogate_that_does_not_change_between_looks_keeps_today_s_interval() -> None:
    """Looks whose surrogate and weight are the same (handed over as the latest fit's on
    each look's labels) have cosines of exactly 1, and the interval is today's exactly."""
    pool = _pool(_frame())
    cal = Calibrator(engine="freq", power_tuning=False, surrogates=[]).fit(pool)
    f = np.asarray(cal.surrogate_matrix(), float).reshape(pool.n_items, -1)
    waves = pool.waves
    same = [LookFit((waves >= 0) & (waves <= k), f[(waves >= 0) & (waves <= k)], False)
            for k in range(int(waves.max()))]  # fmt: skip
    hand_over(cal, same)
    budget = pool.n_labeled
    e = cal.estimate_mean(anytime=True, max_labels=budget)
    note = e.details["anytime"]
    assert note["correlation"] == at.OWN_CORRELATION and note["cosines"] == [1.0] * 4
    assert (e.ci_low, e.ci_high) == _canonical(cal, budget)


def test_refitted_looks_are_less_correlated_and_the_interval_wider() -> None:
    """The default fit refitted at every look: adjacent cosines below 1, so the boundary
    (on the looks' own correlation) is higher than today's, within the 1.35 bound. The
    confidence sequence (no budget) is unchanged; so are the one-look pool (no
    correlation) and the classical estimate (no surrogate), which say why."""
    pool = _pool(_frame())
    cal = Calibrator(engine="freq").fit(pool)
    budget = pool.n_labeled
    e = cal.estimate_mean(anytime=True, max_labels=budget)
    note = e.details["anytime"]
    cos = np.array(note["cosines"])
    assert note["correlation"] == at.OWN_CORRELATION and cos.size == 4
    assert (cos < 1.0).all() and (cos > 0.8).all(), cos
    low, high = _canonical(cal, budget)
    fixed = cal.estimate_mean()
    assert e.ci_low < low and e.ci_high > high
    assert e.width <= 1.35 * fixed.width
    # each earlier look is the calibrator refitted on the pool as it stood
    look = Calibrator(engine="freq").fit(pool_after_wave(pool, 2))
    held = earlier_fits(cal)[2]
    assert held is not None and np.array_equal(held.labeled, look.pool_.labeled)
    surrogates = np.asarray(look.surrogate_matrix(), float).reshape(pool.n_items, -1)
    assert np.array_equal(held.surrogates, surrogates[look.pool_.labeled])
    kept = cal.surrogate_matrix()  # asked again, nothing is refitted nor recomputed
    assert cal.estimate_mean(anytime=True, max_labels=budget) == e
    assert cal.surrogate_matrix() is kept, "the calibrator's memo was dropped"
    seq = cal.estimate_mean(anytime=True)
    assert "correlation" not in seq.details["anytime"]
    classical = cal.estimate_mean(method="classical", anytime=True, max_labels=budget)
    assert classical.details["anytime"]["correlation"] == at.CANONICAL
    assert "no surrogate" in classical.details["anytime"]["correlation_note"]
    one = Calibrator(engine="freq").fit(pool_after_wave(pool, 0))
    first = one.estimate_mean(anytime=True, max_labels=budget)
    assert first.details["anytime"]["correlation"] == at.CANONICAL


def test_a_look_that_cannot_be_refitted_keeps_the_canonical_correlation_beside_it() -> None:
    frame = _frame()
    wave = frame["wave"].to_numpy().copy()
    wave[np.flatnonzero(wave == 1)[3:]] = 2  # the first wave: 3 labels, fewer than folds
    pool = _pool(frame.assign(wave=wave))
    cal = Calibrator(engine="freq").fit(pool)
    note = cal.estimate_mean(anytime=True, max_labels=pool.n_labeled).details["anytime"]
    assert note["correlation"] == at.OWN_CORRELATION
    assert note["cosines"][0] == 1.0 and max(note["cosines"][1:]) < 1.0
    assert note["correlation_note"].startswith("look 1 could not be refitted")


def _study(tmp_path: Path, waves: int, design: str) -> tuple[Path, Path]:
    """A study of ``waves`` waves of 40 labels, the first uniform, the others ``design``
    (adaptive: following the sd whatever its predicted gain), its budget recorded."""
    frame = _frame(n=300, waves=1, seed=5).drop(columns=["wave"])
    rng = np.random.default_rng(5)
    frame = frame.assign(id=[f"d{i:03d}" for i in range(len(frame))],
                         truth=frame["j2"].round(2) + rng.normal(0, 0.3, len(frame)))  # fmt: skip
    frame = frame.drop(columns=["y"])
    frame.to_csv(pool := tmp_path / "pool.csv", index=False)
    root = tmp_path / "study"
    for k in range(1, waves + 1):
        todo = tmp_path / f"todo{k}.csv"
        where = (
            ("--study", str(root), "--item", "id", "--label", "human", "--judge", "j1,j2")
            if k == 1
            else ()
        )
        first = str(pool) if k == 1 else str(root)
        if k > 1 and design == "adaptive":
            where = ("--design", "adaptive", "--max-ratio", "100")
        args = ("sample", first, *where, "--budget", "40", "--seed", str(k), "--out", str(todo))
        assert bacon(*args) == 0
        if k == 1:
            record_budget(root, 40 * waves + 20)  # a margin for Poisson waves
        import_labels(root, fill(todo, pool, tmp_path / f"filled{k}.csv"))
    return root, pool


class Counted(Calibrator):
    """A calibrator that counts its fits (the looks' fits are shared, never made twice)."""

    fits = 0

    def fit(self, pool: EvalPool) -> Counted:
        type(self).fits += 1
        return super().fit(pool)  # type: ignore[return-value]


@pytest.mark.parametrize("design", ["uniform", "adaptive"])
def test_a_study_s_looks_are_fitted_once_and_every_path_gives_the_library_s_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture, design: str
) -> None:
    """The report's sequence (its looks fitted once, each handed the earlier ones' fits),
    ``bacon estimate STUDY`` and the library (refitting the looks itself) agree; adaptive
    waves too, whose weights at each look differ from the latest's (the cosines weigh
    every look by the latest pool's probabilities)."""
    root, _ = _study(tmp_path, 3, design)
    if design == "adaptive":  # the waves' weights differ item by item
        pool = load_study(root).to_pool()
        assert np.unique(pool.propensity[pool.labeled].round(6)).size > 10
    budget = 140
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        library = Calibrator(engine="freq").fit(load_study(root).to_pool())
    e = library.estimate_mean(anytime=True, max_labels=budget)
    assert e.details["anytime"]["correlation"] == at.OWN_CORRELATION
    assert (np.array(e.details["anytime"]["cosines"]) < 1).all()
    Counted.fits = 0
    cal = Counted(engine="freq").fit(load_study(root).to_pool())
    looks = look_estimates(root, cal, max_labels=budget)
    assert Counted.fits == 3  # the command's fit, and the looks of waves 1 and 2, once each
    last = looks.iloc[-1]
    assert (last["anytime_low"], last["anytime_high"]) == pytest.approx(
        (e.ci_low, e.ci_high), rel=1e-12
    )
    again = cal.estimate_mean(anytime=True, max_labels=budget)  # the looks handed over
    assert Counted.fits == 3 and (again.ci_low, again.ci_high) == (e.ci_low, e.ci_high)
    capsys.readouterr()
    assert bacon("estimate", str(root), "--engine", "freq", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    printed = out["mean"]["aee"]
    assert printed["details"]["anytime"]["cosines"] == pytest.approx(
        e.details["anytime"]["cosines"], rel=1e-12
    )
    assert (printed["ci_low"], printed["ci_high"]) == pytest.approx((e.ci_low, e.ci_high))


def test_the_bayesian_engine_keeps_the_canonical_boundary_and_says_why() -> None:
    """A Bayesian fit per look would be a NUTS run per wave: the boundary stays canonical,
    today's interval exactly, with the reason in the details."""
    pool = _pool(_frame(n=120, waves=2))
    with warnings.catch_warnings():  # a small pool's sampler diagnostics
        warnings.simplefilter("ignore", UserWarning)
        cal = Calibrator(model="gaussian", engine="bayes", folds=2, seed=0).fit(pool)
    e = cal.estimate_mean(anytime=True, max_labels=pool.n_labeled)
    note = e.details["anytime"]
    assert note["correlation"] == at.CANONICAL and note["cosines"] is None
    assert "Bayesian engine" in note["correlation_note"]
    assert (e.ci_low, e.ci_high) == _canonical(cal, pool.n_labeled)


def test_every_look_is_fitted_as_the_latest_was_by_one_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``look_fits._refit`` and ``study.looks.look_estimates`` each built a look's
    calibrator from its own line of settings; one function (``look_fits.fit_look``)
    builds it for both: the latest fit's settings with the seed it drew (``seed=None``)
    and the engine ``auto`` resolved to."""
    import bacon_bayes.look_fits as lf
    import bacon_bayes.study.looks as sl

    made: list[Calibrator] = []
    real = lf.fit_look

    def spy(cal: Calibrator, pool: EvalPool) -> Calibrator:
        made.append(look := real(cal, pool))
        return look

    monkeypatch.setattr(lf, "fit_look", spy)
    monkeypatch.setattr(sl, "fit_look", spy)
    cal = Calibrator(model="ridge", engine="auto", seed=None).fit(_pool(_frame(waves=3)))
    assert len(earlier_fits(cal)) == 2 and len(made) == 2  # looks 1 and 2, refitted
    root, _ = _study(tmp_path, 2, "uniform")
    study_cal = Calibrator(model="ridge", engine="auto", seed=None).fit(load_study(root).to_pool())
    look_estimates(root, study_cal)
    assert len(made) == 3  # the study's look of wave 1 (wave 2's is study_cal itself)
    for look, latest in zip(made, [cal, cal, study_cal], strict=True):
        assert look.seed_ == latest.seed_ and look.engine_ == latest.engine_ == "freq"
        same = {k: v for k, v in latest.get_params().items() if k not in ("seed", "engine")}
        assert {k: look.get_params()[k] for k in same} == same
