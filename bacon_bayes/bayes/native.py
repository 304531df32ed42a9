"""nutpie sampling a hand-written numba log density through a C function pointer.

nutpie's Rust sampler calls a Python function for every value and gradient of a
model compiled from PyMC with the JAX backend. With our numba densities that call
itself releases the GIL, but each one still takes it twice (arguments in, results
out), so two chains contend for it, and more samplers than cores stall on it (measured
on TriviaQA's multinomial: the five folds' samplers run at once were slower than one
after another). Here the density is a numba ``cfunc`` that nutpie calls directly, as
its own numba backend does: ``(dim, x, grad, logp, user_data) -> status``, the density's
fixed arguments and data arrays reached through ``user_data`` (an int64 array of
addresses and shapes). The sampler stores the flat vector of unconstrained values per
draw (an identity ``expand``); the model's stored variables (constrained values,
deterministics) are computed afterwards by the JAX model's own ``expand`` function,
draw by draw, so the posterior has the same variables, dims and coords as through
Python (``tests/bayes/test_native.py``: the same draws, bit for bit).

The ``cfunc`` for a density is generated for its argument types and compiled once per
process (a fraction of a second; numba cannot cache generated source).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

__all__ = ["FlatCall", "NativeModel", "NativeRun", "native_start"]

#: The stored variable holding the flat vector of unconstrained values.
FLAT = "__flat"


@dataclasses.dataclass(frozen=True)
class FlatCall:
    """``(x, data) -> (logp, gradient)`` of a compiled density ``kernel(x, start, *args,
    *[data[k] for k in keys], grad)`` that writes its gradient into ``grad``
    (:func:`~bacon_bayes.bayes.nuts.flat_call`); its parts are what :class:`NativeModel`
    passes to the ``cfunc``."""

    kernel: Any
    start: np.ndarray
    args: tuple
    keys: tuple[str, ...]
    size: int

    def __call__(self, x: np.ndarray, data: dict) -> tuple[float, np.ndarray]:
        grad = np.empty(self.size)
        arrays = [data[k] for k in self.keys]
        value = self.kernel(np.asarray(x, dtype=float), self.start, *self.args, *arrays, grad)
        return value, grad


def _encode(value: Any) -> tuple[tuple, list[int]]:
    """An argument's type for the generated ``cfunc`` (``("a", ndim, dtype)``, ``("i",)``
    or ``("f",)``) and its ``user_data`` entries: an array's address and shape (the array
    must stay alive and C-ordered), an int, a float's bits."""
    if isinstance(value, np.ndarray):
        return ("a", value.ndim, value.dtype.str), [value.ctypes.data, *value.shape]
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("boolean arguments are not supported; pass an int")
    if isinstance(value, (int, np.integer)):
        return ("i",), [int(value)]
    return ("f",), [int(np.float64(value).view(np.int64))]


@functools.cache
def _logp_cfunc(kernel: Any, specs: tuple) -> Any:
    """The ``cfunc`` nutpie calls for ``kernel`` with arguments of types ``specs`` (after
    ``x``): ``user_data`` holds, per argument, its address and shape (arrays) or its value
    (int; a float's bits)."""
    import numba

    lines, names, at = [], [], 0
    for n, spec in enumerate(specs):
        name = f"a{n}"
        names.append(name)
        if spec[0] == "a":
            ndim, dtype = spec[1], np.dtype(spec[2])
            shape = ", ".join(f"meta[{at + 1 + d}]" for d in range(ndim))
            lines.append(
                f"    {name} = numba.carray(as_voidptr(meta[{at}]), ({shape},), np.{dtype.name})"
            )
            at += 1 + ndim
        elif spec[0] == "i":
            lines.append(f"    {name} = meta[{at}]")
            at += 1
        else:
            lines.append(f"    {name} = meta[{at}:{at + 1}].view(np.float64)[0]")
            at += 1
    body = "\n".join(lines)
    source = f"""
def logp(dim, x_, grad_, out_, user_data):
    meta = numba.carray(as_voidptr(user_data), ({at},), np.int64)
    x = numba.carray(x_, (dim,))
    grad = numba.carray(grad_, (dim,))
{body}
    value = kernel(x, {", ".join(names)}, grad)
    out = numba.carray(out_, (1,))
    out[0] = value
    if not np.isfinite(value):
        return 4
    for q in range(dim):
        if not np.isfinite(grad[q]):
            return 3
    return 0
"""
    from nutpie.compile_pymc import address_as_void_pointer  # an int64 address as void*

    namespace = {"numba": numba, "np": np, "kernel": kernel}
    namespace["as_voidptr"] = address_as_void_pointer
    exec(compile(source, f"<bacon_bayes cfunc {kernel.py_func.__name__}>", "exec"), namespace)
    sig = numba.types.int64(
        numba.types.uint64,
        numba.types.CPointer(numba.types.double),
        numba.types.CPointer(numba.types.double),
        numba.types.CPointer(numba.types.double),
        numba.types.voidptr,
    )
    return numba.cfunc(sig, nogil=True)(namespace["logp"])


@functools.cache
def _identity_cfunc() -> Any:
    """The ``expand`` nutpie calls per stored draw: the flat vector as it is (compiled
    once per process, 0.3 s; not kept on disk, where numba's ``cache=True`` would write
    beside the installed package)."""
    import numba

    sig = numba.types.int64(
        numba.types.uint64,
        numba.types.uint64,
        numba.types.CPointer(numba.types.double),
        numba.types.CPointer(numba.types.double),
        numba.types.voidptr,
    )

    def expand(dim, expanded, x_, out_, user_data):  # pragma: no cover (compiled)
        x = numba.carray(x_, (dim,))
        out = numba.carray(out_, (dim,))
        for q in range(dim):
            out[q] = x[q]
        return 0

    return numba.cfunc(sig, nogil=True)(expand)


@dataclasses.dataclass(frozen=True)
class NativeModel:
    """A model nutpie samples through C function pointers (see the module docstring)."""

    logp: Any
    user_data: np.ndarray
    keep: list
    n_dim: int
    initial_points: Any

    @classmethod
    def build(cls, flat: FlatCall, data: dict, initial_points: Any) -> NativeModel:
        """``flat``'s density on ``data`` (the arrays its ``keys`` name)."""
        values = [
            np.ascontiguousarray(v) if isinstance(v, np.ndarray) else v
            for v in (flat.start, *flat.args, *(data[k] for k in flat.keys))
        ]
        specs, meta = [], []
        for value in values:
            spec, entries = _encode(value)
            specs.append(spec)
            meta.extend(entries)
        kept = [v for v in values if isinstance(v, np.ndarray)]  # user_data points into them
        logp = _logp_cfunc(flat.kernel, tuple(specs))
        return cls(logp, np.array(meta, dtype=np.int64), kept, flat.size, initial_points)

    @property
    def coords(self) -> dict:
        return {}

    @property
    def shapes(self) -> dict:
        return {FLAT: (self.n_dim,)}

    def _make_sampler(self, settings, init_mean, cores, progress_type, store):
        from nutpie import _lib

        return _lib.PySampler.from_pymc(
            settings, cores, self._make_model(init_mean), progress_type, store
        )

    def _make_model(self, init_mean):
        from nutpie import _lib

        address = self.user_data.ctypes.data
        expand = _lib.ExpandFunc(self.n_dim, self.n_dim, _identity_cfunc().address, address, self)
        logp = _lib.LogpFunc(self.logp.address, address, self)
        sizes = {f"{FLAT}_dim": self.n_dim}
        variables = _lib.PyVariable.new_variables(
            [FLAT], ["float64"], [(self.n_dim,)], sizes, {FLAT: [f"{FLAT}_dim"]}
        )

        def no_adapter(*args, **kwargs):  # transform adaptation is not used here
            raise NotImplementedError

        return _lib.PyMcModel(
            logp, expand, variables, self.n_dim, sizes, {}, self.initial_points, no_adapter
        )


@dataclasses.dataclass(frozen=True)
class NativeRun:
    """A nutpie sampler running :class:`NativeModel` in the background (:func:`native_start`)."""

    sampler: Any
    compiled: Any

    def wait(self) -> Any:
        """The InferenceData the JAX-compiled model would give: its ``expand`` function
        applied to every draw's flat vector, its dims and coords, nutpie's sample stats."""
        import arviz

        idata = self.sampler.wait()
        shared = self.compiled._shared_data
        draws = np.asarray(idata.posterior[FLAT])  # (chain, draw, n_dim)
        expand = functools.partial(self.compiled._make_expand_func(0, 0, 0), **shared)
        per_draw = [expand(x) for x in draws.reshape(-1, draws.shape[-1])]
        head = draws.shape[:2]
        posterior = {
            name: np.stack([p[name] for p in per_draw]).reshape(*head, *np.shape(value))
            for name, value in per_draw[0].items()
        }
        coords = {k: v for k, v in self.compiled.coords.items() if k != "unconstrained_parameter"}
        dims = {k: list(v) for k, v in (self.compiled.dims or {}).items() if k in posterior}
        out = arviz.from_dict(posterior=posterior, coords=coords, dims=dims)
        out.add_groups(sample_stats=idata.sample_stats)
        return out


def native_start(
    flat: FlatCall, compiled: Any, progress_type: Any = None, **settings: Any
) -> NativeRun:
    """Start sampling ``flat``'s density with nutpie, without Python in the loop, on the
    data of the JAX-compiled ``compiled`` (its ``_shared_data``); ``settings``: those of
    ``nutpie.sample`` (``cores`` among them); ``progress_type``: nutpie's progress
    reporting (:class:`~bacon_bayes.progress.SamplingProgress`; None: none). ``.wait()``
    gives the draws."""
    import nutpie

    from bacon_bayes.progress import WithProgress

    model: Any = NativeModel.build(flat, compiled._shared_data, compiled._make_initial_points)
    if progress_type is not None:
        model = WithProgress(model, progress_type)
    sampler = nutpie.sample(
        model, progress_bar=False, save_warmup=False, blocking=False, **settings
    )
    return NativeRun(sampler, compiled)
