"""The pairwise study harness (issue 44) on a tiny simulated table: no shared data needed.

ppi_py is left out of the harness run: its first call compiles numba code (~15 s)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from benchmarks import pairwise_methods as pm
from benchmarks import pairwise_study as ps


def test_harness_runs_and_resumes(tmp_path: Path) -> None:
    p = ps.simulate_pairs(1200, 5, seed=1)
    methods = ["human", "aee-ref", "bacon-freq", "ppr", "oracle", "oracle+pair"]
    ps.run(p, tmp_path, [300], 3, methods, seed=3)
    for meth in ("human", "aee-ref", "ppr", "oracle"):
        cell = pd.read_csv(tmp_path / f"{meth}_n300.csv")
        assert list(cell.draw) == [0, 1, 2]
    ps.run(p, tmp_path, [300], 3, methods, seed=3)  # resumes: nothing to add
    assert len(pd.read_csv(tmp_path / "human_n300.csv")) == 3
    human = pd.read_csv(tmp_path / "human_n300.csv")
    assert human.cover_mean.between(0, 1).all() and (human.width_mean > 0).all()
    table = ps.markdown(tmp_path)
    assert "| 300 | human | 3 |" in table and "| 300 | ppr | 3 |" in table
    aee = pd.read_csv(tmp_path / "aee-ref_n300.csv")
    # judges that repeat the vote 70% of the time: the AEE is clearly narrower
    assert (aee.width_mean < 0.95 * human.width_mean).all()


def test_same_draws_for_every_method() -> None:
    one = ps.label_draw(1000, 50, 7, seed=5)
    assert np.array_equal(one, ps.label_draw(1000, 50, 7, seed=5))
    assert not np.array_equal(one, ps.label_draw(1000, 50, 8, seed=5))


def test_references_recover_the_pool_fit() -> None:
    p = ps.simulate_pairs(800, 4, seed=2)
    target = pm.bt_fit(p.a, p.b, p.y, p.m)
    assert abs(target.sum()) < 1e-10
    every = pm.bt_human(p.a, p.b, p.y, np.arange(p.y.size), p.m)
    np.testing.assert_allclose(every["estimate"], target, atol=1e-8)
    np.testing.assert_allclose(every["cov"], 0.0, atol=1e-12)  # FPC: no labels missing
    lab = ps.label_draw(p.y.size, 100, 0, seed=0)
    perfect = pm.bt_aee(p.a, p.b, p.y, lab, p.y, p.m, lam=1.0)  # f = y: the pool score
    np.testing.assert_allclose(perfect["estimate"], target, atol=1e-7)
    assert np.abs(perfect["cov"]).max() < 1e-12


def test_human_reference_covers_neither_too_low_nor_too_wide() -> None:
    p = ps.simulate_pairs(1500, 5, seed=4)
    target = pm.bt_fit(p.a, p.b, p.y, p.m)
    z = stats.norm.isf(0.025)
    hits, zs = [], []
    for d in range(200):
        fit = pm.bt_human(p.a, p.b, p.y, ps.label_draw(p.y.size, 300, d, seed=9), p.m)
        se = np.sqrt(np.diag(fit["cov"]))
        zs.append((fit["estimate"] - target) / se)
        hits.append(np.abs(zs[-1]) <= z)
    cover = np.mean(hits)
    assert 0.92 <= cover <= 0.98, cover  # 1,000 model-draws: 0.95 +- 0.02 with margin
    assert 0.85 <= np.std(zs) <= 1.15  # standardised errors: se neither too small nor large


def test_ppr_rank_sets_are_ranges_and_narrow_with_more_labels() -> None:
    p = ps.simulate_pairs(3000, 5, seed=6)
    wh = pm.win_indicators(p.a, p.b, p.y, p.m)
    wj = pm.win_indicators(p.a, p.b, p.verdicts[:, 0], p.m)
    sizes = []
    for n in (100, 2000):
        sets = pm.ppr_rank_sets(wh, wj, ps.label_draw(p.y.size, n, 0, seed=1), 0.05)["sets"]
        assert (sets[:, 0] >= 1).all() and (sets[:, 1] <= p.m).all()
        assert (sets[:, 0] <= sets[:, 1]).all()
        sizes.append(np.mean(sets[:, 1] - sets[:, 0] + 1))
    assert sizes[1] < sizes[0]


def test_oracle_surrogate_is_the_cell_mean() -> None:
    v = np.array([[1.0, 0.5, 0.0], [1.0, 0.5, 0.0], [0.0, 0.0, 0.0]])
    y = np.array([1.0, 0.0, 0.5])
    np.testing.assert_allclose(pm.oracle_surrogate(v, y), [0.5, 0.5, 0.5])


def test_bacon_freq_row_uses_the_package_interface(tmp_path: Path, monkeypatch) -> None:
    """A stand-in ``bacon_bayes.estimate.bradley_terry`` (the reference AEE behind the issue's
    interface) runs through the ``bacon-freq`` row; the real module replaces it on merge."""
    import sys
    import types
    from types import SimpleNamespace

    def bradley_terry(a, b, y, surrogate=None, *, names, n_models, alpha, simultaneous=False):
        lab = np.flatnonzero(~np.isnan(y))
        fit = pm.bt_aee(a, b, y, lab, surrogate, n_models)
        iv = pm.intervals(fit["estimate"], fit["cov"], alpha)
        half = iv["sim_half"] if simultaneous else iv["half"]
        est = fit["estimate"]
        return SimpleNamespace(estimate=est, cov=fit["cov"], ci_low=est - half, ci_high=est + half)

    fake = types.ModuleType("bacon_bayes.estimate.bradley_terry")
    fake.bradley_terry = bradley_terry  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bacon_bayes.estimate.bradley_terry", fake)
    p = ps.simulate_pairs(1000, 4, seed=3)
    ps.run(p, tmp_path, [250], 2, ["aee-ref", "bacon-freq"], seed=1)
    ours = pd.read_csv(tmp_path / "bacon-freq_n250.csv")
    ref = pd.read_csv(tmp_path / "aee-ref_n250.csv")
    np.testing.assert_allclose(ours.width_mean, ref.width_mean)


def test_bound_figures_on_simulated_pairs() -> None:
    text = ps.bound_figures(ps.simulate_pairs(600, 4, seed=0))
    assert "R^2 of the 27 verdict cells" in text


def test_a_failed_peer_draw_is_counted_not_fatal(tmp_path: Path, monkeypatch) -> None:
    def singular(*args, **kwargs):
        raise np.linalg.LinAlgError("Matrix is singular to machine precision.")

    monkeypatch.setattr(pm, "ppi_py_contrasts", singular)
    ps.run(ps.simulate_pairs(600, 4, seed=5), tmp_path, [150], 2, ["human", "ppi_py"], seed=2)
    table = ps.summary(tmp_path).set_index("method")
    assert table.loc["ppi_py", "failed"] == 2 and table.loc["human", "failed"] == 0
