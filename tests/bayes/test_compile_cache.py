"""The compiled-code cache: its directory, the off-switch, and fits that load cached
code giving the same draws as fits that compile it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bacon_bayes.bayes import compile_cache
from bacon_bayes.bayes.compile_cache import enable_jax_cache
from bacon_bayes.compiled import cache_dir, numba_function_cache

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("BACON_CACHE", "BACON_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_cache_dir_default_xdg_and_override(clean_env, tmp_path):
    clean_env.setattr(Path, "home", lambda: tmp_path / "home")
    assert cache_dir() == tmp_path / "home" / ".cache" / "bacon_bayes"
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "bacon_bayes"
    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"  # the explicit directory wins over XDG


@pytest.mark.parametrize("value", ["0", "off", "OFF", "false", "no", " No "])
def test_cache_off_switch(clean_env, tmp_path, value):
    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path))
    clean_env.setenv("BACON_CACHE", value)
    assert cache_dir() is None
    assert numba_function_cache(_add_one) is None


@pytest.mark.parametrize("value", ["1", "on", ""])
def test_cache_on_values(clean_env, tmp_path, value):
    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path))
    clean_env.setenv("BACON_CACHE", value)
    assert cache_dir() == tmp_path


@pytest.fixture
def jax_config():
    """JAX's cache settings restored after the test."""
    jax = pytest.importorskip("jax")
    names = (
        "jax_compilation_cache_dir",
        "jax_persistent_cache_min_compile_time_secs",
        "jax_compilation_cache_max_size",
    )
    saved = {name: getattr(jax.config, name) for name in names}
    yield jax
    for name, value in saved.items():
        jax.config.update(name, value)


def test_jax_cache_in_our_directory(clean_env, tmp_path, jax_config):
    jax_config.config.update("jax_compilation_cache_dir", None)
    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path))
    assert enable_jax_cache() == str(tmp_path / "jax")
    assert jax_config.config.jax_compilation_cache_dir == str(tmp_path / "jax")
    assert (tmp_path / "jax").is_dir()
    # every compilation is kept (JAX's default keeps only those over 1 s)
    assert jax_config.config.jax_persistent_cache_min_compile_time_secs == 0.0
    assert jax_config.config.jax_compilation_cache_max_size == compile_cache.JAX_MAX_BYTES


def test_an_entry_left_without_its_access_time_is_repaired(clean_env, tmp_path, jax_config):
    """A process killed between JAX's two writes leaves ``-cache`` without ``-atime``;
    JAX's eviction scan then fails on every later write (seen in `make demo`)."""
    jax_config.config.update("jax_compilation_cache_dir", None)
    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path))
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "jit_f-abc-cache").write_bytes(b"x")
    (tmp_path / "jax" / "jit_g-def-cache").write_bytes(b"y")
    (tmp_path / "jax" / "jit_g-def-atime").write_bytes(b"12345678")
    enable_jax_cache()
    assert (tmp_path / "jax" / "jit_f-abc-atime").stat().st_size == 8
    assert (tmp_path / "jax" / "jit_g-def-atime").read_bytes() == b"12345678"  # kept


def test_jax_cache_off(clean_env, tmp_path, jax_config):
    jax_config.config.update("jax_compilation_cache_dir", None)
    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path))
    clean_env.setenv("BACON_CACHE", "0")
    assert enable_jax_cache() is None
    assert jax_config.config.jax_compilation_cache_dir is None
    assert not (tmp_path / "jax").exists()


def test_jax_cache_keeps_the_users_directory(clean_env, tmp_path, jax_config):
    users = str(tmp_path / "users")
    jax_config.config.update("jax_compilation_cache_dir", users)
    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path / "ours"))
    assert enable_jax_cache() == users
    assert jax_config.config.jax_compilation_cache_dir == users
    assert not (tmp_path / "ours").exists()


def _add_one(x):
    return x + 1.0


def test_numba_cache_written_and_loaded(clean_env, tmp_path):
    numba = pytest.importorskip("numba")
    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path))
    first = numba.njit(_add_one)
    first._cache = numba_function_cache(_add_one)
    assert first(1.0) == 2.0
    assert list((tmp_path / "numba").glob("*/*.nbi")), "no index written in our directory"
    again = numba.njit(_add_one)  # as a new process would: load, not compile
    again._cache = numba_function_cache(_add_one)
    assert again(2.0) == 3.0
    assert sum(again.stats.cache_hits.values()) == 1
    assert sum(again.stats.cache_misses.values()) == 0


def test_judge_likelihood_uses_our_numba_cache(clean_env, tmp_path):
    pytest.importorskip("numba")
    from bacon_bayes.bayes.judge_density import _judges_flat_py
    from bacon_bayes.compiled import compiled_nogil

    clean_env.setenv("BACON_CACHE_DIR", str(tmp_path))
    compiled_nogil.cache_clear()
    try:
        judges = compiled_nogil(_judges_flat_py)
        assert Path(judges._cache.cache_path).is_relative_to(tmp_path / "numba")
        compiled_nogil.cache_clear()
        clean_env.setenv("BACON_CACHE", "0")
        assert type(compiled_nogil(_judges_flat_py)._cache).__name__ == "NullCache"
    finally:
        compiled_nogil.cache_clear()  # later tests build them in their own setting


def _ordinal_judges_model(n_emb: int):
    """A small ordinal judge model (40 items, 3 judges) and its judge-stage PyMC model;
    ``n_emb`` embedding components."""
    pytest.importorskip("jax")
    from bacon_bayes.bayes import OrdinalJudgeModel
    from bacon_bayes.simulation.judges import simulate_judges

    sim = simulate_judges(40, 3, n_emb, family="ordinal", seed=1)
    model = OrdinalJudgeModel(sim.columns, levels=sim.levels)
    return model, model._build_judges_model(model._setup(sim.X, sim.y), {})


CHILD = """
import hashlib, json, sys
import numpy as np
import jax.monitoring
from bacon_bayes.bayes import OrdinalJudgeModel
from bacon_bayes.simulation.judges import simulate_judges

hits = []
jax.monitoring.register_event_duration_secs_listener(
    lambda e, s, **k: hits.append(e) if e.endswith("cache_retrieval_time_sec") else None
)
sim = simulate_judges(120, 3, 0, family="ordinal", seed=5)
y = np.where(np.arange(120) < 60, sim.y, np.nan)
model = OrdinalJudgeModel(sim.columns, levels=sim.levels, draws=20, tune=20, chains=2,
                          label_draws=20, warn=False, seed=2)
fits = model.fit_folds(sim.X, y, np.where(np.isfinite(y), np.arange(120) % 2, -1), 2)
h = hashlib.sha256()
for fit in fits:
    for name in sorted(fit.idata_.posterior.data_vars):
        h.update(np.ascontiguousarray(fit.idata_.posterior[name].values).tobytes())
print(json.dumps({"hash": h.hexdigest(), "jax_hits": len(hits)}))
"""


@pytest.mark.slow  # two fresh processes importing PyMC and JAX: about 30 s under load
def test_warm_cache_fit_equals_cold_fit(tmp_path):
    """Two fresh processes sharing one empty cache directory: the second loads the
    compiled code (JAX's cache hits, numba's index) and draws the same posterior bit
    for bit."""
    pytest.importorskip("jax")
    env = {
        k: v for k, v in os.environ.items() if k not in ("BACON_CACHE", "JAX_COMPILATION_CACHE_DIR")
    }
    env |= {"BACON_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}

    def run() -> dict:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])

    cold = run()
    assert cold["jax_hits"] == 0
    assert list((tmp_path / "jax").iterdir()), "JAX wrote nothing to the cache"
    assert list((tmp_path / "numba").glob("*/*.nbi")), "numba wrote nothing to the cache"
    warm = run()
    assert warm["jax_hits"] > 0
    assert warm["hash"] == cold["hash"]


def test_nutpie_skips_the_replaced_log_density(clean_env):
    """With a hand-written density, nutpie compiles a placeholder log density (not the
    model's) and our sampler still gets every data container; the model is left as it
    was."""
    from bacon_bayes.bayes.judge_density import judges_grad_density
    from bacon_bayes.bayes.nuts import compile_sampler

    clean_env.setenv("BACON_CACHE", "0")
    model, pymc_model = _ordinal_judges_model(n_emb=2)
    density = judges_grad_density(model.resolved_priors())
    compiled = compile_sampler(pymc_model, "nutpie-jax", density)
    assert "logp" not in vars(pymc_model)  # the model's own log density is back
    names = {v.name for v in pymc_model.data_vars}
    assert names <= set(compiled.compiled._shared_data)
    x = np.concatenate([np.ravel(v) for v in pymc_model.initial_point().values()])
    # nutpie's logp function is ours: the judge density at the model's initial point
    value, grad = compiled.compiled._make_logp_func()(
        x, **compiled.compiled._shared_data, **compiled.prepare(compiled.compiled._shared_data)
    )
    expected = pymc_model.compile_logp()(pymc_model.initial_point())
    np.testing.assert_allclose(value, expected, rtol=1e-8)
    assert grad.shape == x.shape


def _ratio(a: float, b: float) -> float:
    return a / b


def test_a_density_dividing_by_zero_gives_inf_not_an_exception(monkeypatch):
    """A judge density that divided by zero at a point NUTS tried raised ZeroDivisionError
    inside nutpie's callback, which stopped the sampler with a Rust panic (`bacon judges` on
    300 SummEval rows, seed 0). The densities' compiled kernels follow numpy's rule: inf or
    nan, which nutpie reads as a divergence."""
    from bacon_bayes.compiled import compiled_nogil

    monkeypatch.setenv("BACON_CACHE", "off")  # compiled here (a cached copy keeps its rule)
    compiled_nogil.cache_clear()
    assert compiled_nogil(_ratio)(1.0, 0.0) == np.inf
    compiled_nogil.cache_clear()
