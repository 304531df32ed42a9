"""Where compiled code is kept between processes, for every part of the package that
compiles (a light module: importing it imports no compiler).

The directory is ``$BACON_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/bacon_bayes``,
else ``~/.cache/bacon_bayes``; ``BACON_CACHE=0`` (or ``off``, ``false``, ``no``) turns
it off. numba's machine code goes to ``numba/`` (:func:`njit_cached`); JAX's cache is
set up by :mod:`bacon_bayes.bayes.compile_cache`.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, ClassVar

__all__ = ["OFF_VALUES", "cache_dir", "compiled_nogil", "njit_cached", "numba_function_cache"]

#: Values of ``BACON_CACHE`` that turn the compiled-code cache off.
OFF_VALUES = frozenset({"0", "off", "false", "no"})


def cache_dir() -> Path | None:
    """The compiled-code cache directory, or None when ``BACON_CACHE`` turns it off."""
    if os.environ.get("BACON_CACHE", "").strip().lower() in OFF_VALUES:
        return None
    given = os.environ.get("BACON_CACHE_DIR", "").strip()
    if given:
        return Path(given).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "bacon_bayes"


def numba_function_cache(py_func: Any) -> Any:
    """A numba cache for ``py_func`` in ``cache_dir() / "numba"`` (set it as the
    dispatcher's ``_cache``), or None when the cache is off or not writable.

    numba's own ``cache=True`` writes beside the source file (inside site-packages)
    or into ``NUMBA_CACHE_DIR``; this keeps our functions with the rest of the cache.
    """
    root = cache_dir()
    if root is None:
        return None
    from numba.core import caching

    directory = root / "numba"

    class Locator(caching.UserProvidedCacheLocator):
        def __init__(self, func: Any, py_file: str) -> None:
            super().__init__(func, py_file)
            self._cache_path = str(directory / self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, func: Any, py_file: str) -> Any:
            # the source-file check and writability test, without numba's CACHE_DIR test
            return super(caching.UserProvidedCacheLocator, cls).from_function(func, py_file)

    class Impl(caching.CompileResultCacheImpl):
        _locator_classes: ClassVar[list] = [Locator]

    class Cache(caching.FunctionCache):
        _impl_class = Impl

    try:
        return Cache(py_func)
    except RuntimeError:  # no locator: the directory is not writable
        return None


def njit_cached(py_func: Any, **options: Any) -> Any:
    """``numba.njit(**options)(py_func)`` with its machine code kept in
    ``cache_dir() / "numba"`` (compiled once, loaded by later processes)."""
    import numba

    compiled = numba.njit(**options)(py_func)
    cache = numba_function_cache(py_func)
    if cache is not None:
        compiled._cache = cache  # what numba's cache=True sets, in our directory
    return compiled


@functools.cache
def compiled_nogil(py_func: Any, fastmath: tuple[str, ...] = ()) -> Any:
    """``py_func`` compiled without the GIL, once per process (:func:`njit_cached`: its
    machine code kept in ``cache_dir() / "numba"``); ``fastmath``: the LLVM fast-math
    flags allowed (e.g. ``("reassoc", "contract")``: sums in any order, fused
    multiply-adds, so loops with sums vectorise). A division by zero gives inf or nan
    (numpy's rule), never an exception: nutpie reads a non-finite density as a divergence,
    where a ``ZeroDivisionError`` in the density stopped the sampler with a panic.
    ``compiled_nogil.cache_clear()`` makes the next call build it anew (e.g. after the
    cache directory changed)."""
    return njit_cached(py_func, nogil=True, fastmath=set(fastmath), error_model="numpy")
