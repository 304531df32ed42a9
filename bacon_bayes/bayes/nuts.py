"""Drive a NUTS sampler on a PyMC model whose data change between fits.

``compile_sampler`` compiles a model once; ``run`` swaps the data containers
(e.g. the label mask of a cross-fitting fold) and samples. Engines:

* ``"nutpie"``: nutpie's Rust NUTS on a numba-compiled log density;
  data swap without recompiling (``CompiledPyMCModel.with_data``).
* ``"nutpie-jax"``: the same sampler on a JAX-compiled log density and gradient
  (compiles in seconds instead of about a minute; needs ``jax``).
* ``"pymc"``: PyMC's own NUTS (``pm.sample``), data swapped with ``pm.set_data``.
* ``"numpyro"``: PyMC's JAX bridge to numpyro (re-traced at every fit; diagonal mass
  matrix). (PyMC 5.28's blackjax bridge fails with blackjax 1.7: ``progress_bar``.)

``benchmarks/bench_bayes.py`` measures them; ``"auto"`` (the default) is the fastest
measured there, ``"nutpie-jax"``, whatever else is installed (jax is a core dependency):
which optional packages are installed does not change the draws.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from bacon_bayes.bayes.compile_cache import enable_jax_cache
from bacon_bayes.bayes.native import FlatCall, native_start
from bacon_bayes.bayes.settings import SAMPLERS, sampler_problem
from bacon_bayes.errors import ValidationError
from bacon_bayes.progress import SamplingProgress, WithProgress

__all__ = [
    "ENGINES",
    "CompiledSampler",
    "GradDensity",
    "compile_sampler",
    "flat_call",
    "flat_layout",
    "jax_numpy",
    "with_grad_logp",
]

ENGINES = tuple(SAMPLERS)

#: Whether :meth:`CompiledSampler.run_many` has nutpie call a hand-written numba density
#: through a C function pointer (:mod:`~bacon_bayes.bayes.native`) instead of a Python
#: function: the same draws.
NATIVE = True


def resolve_engine(engine: str) -> str:
    """``"auto"`` -> ``"nutpie-jax"``, on every install (falling back to numba's
    ``"nutpie"`` when jax was missing gave other draws for the same seed).

    Measured on the benchmark data (``benchmarks/bench_bayes.py``, BENCHMARKS.md): the
    JAX log density compiles in seconds (numba's in 45-90 s) and its gradient is cheaper;
    numpyro (driven by PyMC, diagonal mass matrix) needs twice the leapfrog steps per
    draw and gives a fraction of the ESS.
    """
    return "nutpie-jax" if engine == "auto" else engine


@dataclass
class CompiledSampler:
    """A model compiled for one engine; ``run`` samples it with new data."""

    model: Any
    engine: str
    compiled: Any = None
    prepare: Callable[[dict], dict] | None = None
    #: the hand-written density as its compiled parts: sampled through a C function
    #: pointer (:mod:`~bacon_bayes.bayes.native`) while :data:`NATIVE` is true
    flat: FlatCall | None = None

    def run(
        self,
        data: dict[str, Any],
        *,
        draws: int,
        tune: int,
        chains: int,
        seed: int,
        target_accept: float = 0.8,
        low_rank: bool = True,
        desc: str = "sampling",
    ) -> tuple[Any, float]:
        """Sample with ``data`` set in the containers; return (InferenceData, seconds).

        ``low_rank`` (nutpie only) adapts a diagonal plus low-rank mass matrix: the
        judge offsets share one direction (the latent mean) that a diagonal one
        cannot follow (measured on the benchmark data: bulk ESS 1,121 instead of 197
        and 7 instead of 9.4 leapfrog steps per draw).
        """
        return self.run_many(
            [data], [seed], draws=draws, tune=tune, chains=chains,
            target_accept=target_accept, low_rank=low_rank, desc=desc,
        )[0]  # fmt: skip

    def run_many(
        self,
        datas: list[dict[str, Any]],
        seeds: list[int],
        *,
        draws: int,
        tune: int,
        chains: int,
        target_accept: float = 0.8,
        low_rank: bool = True,
        desc: str = "sampling",
    ) -> list[tuple[Any, float]]:
        """Sample each of ``datas`` with its seed (as :meth:`run`); return (InferenceData,
        seconds) per data set.

        With several data sets, a hand-written density is sampled natively (through a C
        function pointer, :data:`NATIVE`), all data sets at once, their chains sharing
        the cores: one after another, a core idles whenever one chain of a run finishes
        before the other, and through Python more threads than cores stall on the GIL
        (measured on TriviaQA's five multinomial folds: 25 s one after another through
        Python, 38.7 s all at once through Python, 13-15 s natively all at once). The
        draws are the same either way (each chain's random stream comes from its seed).
        A single run stays in Python: natively it ran no faster (ordinal benchmark 14.6 vs
        15.3 s) and its function pointer costs about 1.3 s to compile per process.
        ``seconds``: from the start until that data set's draws were taken. ``desc``: what
        the progress bar (on a terminal only, :mod:`bacon_bayes.progress`) says is sampled.
        """
        from threadpoolctl import threadpool_limits

        settings = {"draws": draws, "tune": tune, "chains": chains, "target_accept": target_accept}
        cores = settings["cores"] = min(chains, os.cpu_count() or 1)
        runs_text = f"{len(datas)} runs x " if len(datas) > 1 else ""
        progress = SamplingProgress(
            f"{desc} ({runs_text}{chains} chains x {tune + draws} draws)",
            len(datas),
            len(datas) * chains * (tune + draws),
        )
        # chains run in parallel threads/processes: a multi-threaded BLAS would
        # only oversubscribe the cores (measured: 20x slower matrix-vector products)
        with progress, threadpool_limits(limits=1, user_api="blas"):
            start = time.perf_counter()
            if len(datas) > 1 and self.flat is not None and NATIVE:
                nuts = {**settings, "low_rank_modified_mass_matrix": low_rank}
                runs = [
                    native_start(
                        self.flat, self._with_data(data), progress.progress_type(k, cores),
                        seed=seed, **nuts,
                    )
                    for k, (data, seed) in enumerate(zip(datas, seeds, strict=True))
                ]  # fmt: skip
                return [(run.wait(), time.perf_counter() - start) for run in runs]
            out = []
            for k, (data, seed) in enumerate(zip(datas, seeds, strict=True)):
                begin = time.perf_counter()
                idata = self._run(
                    data, seed=seed, low_rank=low_rank, progress=(progress, k), **settings
                )
                out.append((idata, time.perf_counter() - begin))
            return out

    def _with_data(self, data: dict[str, Any]) -> Any:
        """The nutpie model with ``data`` in its containers (and what ``prepare`` adds)."""
        if self.engine == "nutpie-jax":
            import jax.numpy as jnp

            # device arrays once per fit: numpy data would be copied into JAX at
            # every log-density call (measured: 2.8 -> 1.9 ms per gradient, one chain)
            data = {k: jnp.asarray(v) for k, v in data.items()}
        compiled = self.compiled.with_data(**data)
        if self.prepare is not None:  # more arrays the log density reads, once per fit
            shared = {**compiled._shared_data, **self.prepare(compiled._shared_data)}
            compiled = dataclasses.replace(compiled, _shared_data=shared)
        return compiled

    def _run(self, data, *, seed, low_rank, progress, **common):
        """One run through Python; ``common``: the settings nutpie and ``pm.sample`` share;
        ``progress``: the bar and this run's number in it."""
        import pymc as pm

        bar, k = progress
        if self.engine.startswith("nutpie"):
            import nutpie

            return nutpie.sample(
                WithProgress(self._with_data(data), bar.progress_type(k, common["cores"])),
                seed=seed,
                progress_bar=False,
                save_warmup=False,
                low_rank_modified_mass_matrix=low_rank,
                **common,
            )
        with self.model:
            pm.set_data(data)
            kwargs: dict[str, Any] = {}
            if self.engine == "numpyro":
                kwargs = {"nuts_sampler": "numpyro", "chain_method": "parallel"}
            return pm.sample(
                random_seed=seed, progressbar=bar.on, compute_convergence_checks=False,
                **common, **kwargs,
            )  # fmt: skip


def compile_sampler(
    model: Any, engine: str = "auto", density: GradDensity | None = None
) -> CompiledSampler:
    """Compile ``model`` for ``engine`` (once; reuse ``run`` across data sets).

    ``density``: the model's log density written in JAX (or by hand with its gradient,
    :class:`GradDensity`); with ``"nutpie-jax"`` it replaces the one PyTensor translates
    to JAX (see :func:`with_grad_logp`); other engines ignore it.
    """
    if (problem := sampler_problem(engine)) is not None:
        raise ValidationError(problem)
    engine = resolve_engine(engine)
    if engine == "nutpie":
        import nutpie

        return CompiledSampler(model, engine, nutpie.compile_pymc_model(model))
    if engine == "nutpie-jax":
        import nutpie

        jax_numpy()  # float64 and the persistent cache before nutpie compiles anything
        kwargs = {"backend": "jax", "gradient_backend": "jax", "freeze_model": False}
        if density is None:
            return CompiledSampler(model, engine, nutpie.compile_pymc_model(model, **kwargs))
        with _placeholder_logp(model):  # ours replaces it: do not build PyTensor's
            compiled = nutpie.compile_pymc_model(model, **kwargs)
        flat = grad_value_and_grad(model, density)
        return CompiledSampler(
            model,
            engine,
            with_grad_logp(compiled, model, flat),
            density.prepare,
            flat if isinstance(flat, FlatCall) else None,
        )
    if engine == "numpyro" and "jax" not in sys.modules:
        # one XLA device per core, so chains run in parallel (must precede the jax import)
        flag = f"--xla_force_host_platform_device_count={os.cpu_count() or 1}"
        if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
            os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flag}".strip()
    if engine == "numpyro":
        jax_numpy()
    return CompiledSampler(model, engine)


@contextlib.contextmanager
def _placeholder_logp(model: Any) -> Iterator[None]:
    """While nutpie compiles ``model``, its log density is a placeholder (the sum of the
    first free variable's value) instead of the model's own: with a hand-written density
    sampled in its place, nutpie would otherwise rewrite and translate the whole PyTensor
    graph for nothing (measured: 0.7-1.0 s per judge-stage model under load)."""
    import pytensor.tensor as pt

    first = model.rvs_to_values[model.free_RVs[0]]
    model.logp = lambda *args, **kwargs: pt.sum(first)
    try:
        yield
    finally:
        del model.logp


@dataclass(frozen=True)
class GradDensity:
    """A model's log density with its gradient written by hand (for ``compile_sampler``).

    ``flat(layout)``: the function ``(x, data) -> (value, gradient)`` on nutpie's flat
    vector of unconstrained values laid out as ``layout`` (:func:`flat_layout`), with
    the data as the containers' JAX arrays plus what ``prepare(data)`` (run once per
    fit) adds.
    """

    flat: Callable[[list], Callable[[np.ndarray, dict], tuple[float, np.ndarray]]]
    prepare: Callable[[dict], dict] | None = None


def flat_layout(model: Any) -> list[tuple[str, slice, tuple[int, ...]]]:
    """(value-variable name, slice, shape) of each free variable in the flat vector
    nutpie samples (PyMC's order of ``model.free_RVs``, as nutpie 0.16 concatenates
    them in ``compile_pymc._make_functions``)."""
    point = model.initial_point()
    out, start = [], 0
    for rv in model.free_RVs:
        name = model.rvs_to_values[rv].name
        shape = tuple(np.shape(point[name]))
        size = int(np.prod(shape))
        out.append((name, slice(start, start + size), shape))
        start += size
    return out


def jax_numpy() -> Any:
    """``jax.numpy`` in float64 (as PyTensor's JAX backend sets it: the sampler's
    precision; arrays made before would silently be float32), with JAX's persistent
    compilation cache in the user cache directory (:mod:`~bacon_bayes.bayes.compile_cache`)."""
    import jax

    jax.config.update("jax_enable_x64", True)
    enable_jax_cache()
    return jax.numpy


def flat_call(
    compiled: Callable,
    layout: list,
    params: tuple[str, ...],
    args: tuple,
    data_keys: tuple[str, ...],
) -> FlatCall:
    """``(x, data) -> (logp, gradient)`` calling a compiled density
    ``compiled(x, start, *args, *data arrays, grad)`` that writes its gradient into
    ``grad``; ``start`` holds each of ``params``' first index in the flat vector laid out
    as ``layout`` (-1 when absent), the data arrays are ``data[k]`` for ``data_keys``.
    nutpie samples it without Python in the loop (:mod:`~bacon_bayes.bayes.native`)."""
    starts = {name: sl.start for name, sl, _ in layout}
    start = np.array([starts.get(name, -1) for name in params], dtype=np.int64)
    return FlatCall(compiled, start, tuple(args), tuple(data_keys), layout[-1][1].stop)


def grad_value_and_grad(model: Any, density: GradDensity) -> Callable:
    """``(x, data) -> (logp, gradient)`` of a :class:`GradDensity` on nutpie's flat vector."""
    return density.flat(flat_layout(model))


def with_grad_logp(
    compiled: Any, model: Any, value_and_grad: Callable[[np.ndarray, dict], tuple]
) -> Any:
    """A nutpie model compiled from PyMC (``backend="jax"``) sampling ``value_and_grad``
    (:func:`grad_value_and_grad` of a :class:`GradDensity`) instead of PyTensor's
    translation; initial points, stored variables, dims and data handling stay nutpie's
    (the same draws' names and shapes). Replaces a field of
    nutpie 0.16's ``PyFuncModel`` (``_make_logp_func``) and adds the model's data
    containers to ``_shared_data`` (``run`` extends it further):
    ``tests/bayes/test_judge_density.py`` samples through it."""

    def make_logp_func():
        def logp(x, **shared):
            value, grad = value_and_grad(x, shared)
            return float(value), np.asarray(grad, dtype="float64", order="C")

        return logp

    # the data containers the placeholder log density did not read (see compile_sampler)
    jnp = jax_numpy()
    known = compiled._shared_data
    data = {v.name: jnp.asarray(v.get_value()) for v in model.data_vars if v.name not in known}
    return dataclasses.replace(
        compiled, _make_logp_func=make_logp_func, _shared_data={**known, **data}
    )
