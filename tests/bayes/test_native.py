"""nutpie sampling the hand-written densities through C function pointers gives the
draws, variables, dims and sample stats that sampling them through Python gives."""

from __future__ import annotations

import numpy as np
import pytest

from bacon_bayes.bayes import ColumnSpec, MultinomialJudgeModel, nuts
from bacon_bayes.bayes.native import FlatCall
from bacon_bayes.simulation.categorical import simulate_categorical

pytest.importorskip("jax")


def _fits(native: bool, monkeypatch) -> tuple[list, np.ndarray]:
    """A 3-fold multinomial cross-fit (its joint density: arrays, int and float arguments;
    the folds sampled at once natively, one after another through Python)."""
    sim = simulate_categorical(300, 3, 1, 2, accuracy=(0.65, 0.9), seed=5)
    y = np.where(np.arange(sim.y.size) < 150, sim.y, np.nan)
    fold_ids = np.where(np.isfinite(y), np.arange(y.size) % 3, -1)
    model = MultinomialJudgeModel(ColumnSpec.simple(4, 0, 2), draws=20, tune=30, seed=2, warn=False)
    monkeypatch.setattr(nuts, "NATIVE", native)
    started = []
    start = nuts.native_start
    monkeypatch.setattr(nuts, "native_start", lambda *a, **k: started.append(1) or start(*a, **k))
    fits = model.fit_folds(sim.X, y, fold_ids, 3)
    assert len(started) == (3 if native else 0)
    return fits, sim.X


def test_native_sampling_equals_python_sampling(monkeypatch):
    (native, X), (python, _) = _fits(True, monkeypatch), _fits(False, monkeypatch)
    for a, b in zip(native, python, strict=True):
        for group in ("posterior", "sample_stats"):
            da, db = a.idata_[group], b.idata_[group]
            assert set(da.data_vars) == set(db.data_vars)
            for name in da.data_vars:
                assert da[name].dims == db[name].dims, name
                np.testing.assert_array_equal(da[name].values, db[name].values, err_msg=name)
            for name in da.coords:
                assert da[name].values.tolist() == db[name].values.tolist()
        np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_flat_call_keeps_its_parts_for_the_native_sampler():
    layout = [("a", slice(0, 2), (2,)), ("b", slice(2, 3), ())]
    kernel = lambda x, start, scale, arr, grad: (grad.__setitem__(slice(None), scale * x), 1.0)[1]  # noqa: E731
    call = nuts.flat_call(kernel, layout, ("b", "z", "a"), (2.0,), ("arr",))
    assert isinstance(call, FlatCall)
    assert call.start.tolist() == [2, -1, 0] and call.size == 3 and call.keys == ("arr",)
    value, grad = call(np.array([1.0, 2.0, 3.0]), {"arr": np.zeros(1)})
    assert value == 1.0 and grad.tolist() == [2.0, 4.0, 6.0]
