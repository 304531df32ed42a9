"""Where compiled code is kept between processes (the cold start of a first fit).

A fresh process compiles the log densities it samples: XLA compiles the JAX ones
(:mod:`~bacon_bayes.bayes.label_density` and nutpie's functions of the PyMC model),
numba the judge density (:mod:`~bacon_bayes.bayes.judge_density`). Both are kept
in a user cache directory so that later processes load them instead:

* the directory (:func:`bacon_bayes.compiled.cache_dir`) is ``$BACON_CACHE_DIR`` when
  set, else ``$XDG_CACHE_HOME/bacon_bayes``, else ``~/.cache/bacon_bayes``; JAX's
  entries go to ``jax/``, numba's to ``numba/``;
* ``BACON_CACHE=0`` (or ``off``, ``false``, ``no``) turns both off;
* a JAX cache the user configured (``JAX_COMPILATION_CACHE_DIR`` or
  ``jax.config.update("jax_compilation_cache_dir", ...)``) is kept as it is.

Only what the chosen backend needs is switched on: the JAX cache when a JAX engine
compiles, numba's when the numba density is compiled. PyTensor keeps its own cache
(``~/.pytensor``, ``PYTENSOR_FLAGS=base_compiledir=...``). Cached code gives the same
draws as freshly compiled code (``tests/bayes/test_compile_cache.py``).
"""

from __future__ import annotations

from pathlib import Path

from bacon_bayes.compiled import cache_dir

__all__ = ["enable_jax_cache"]

#: JAX compilations shorter than this are not written (most of ours take 0.1-1 s,
#: under JAX's own default threshold of 1 s, so that default would keep almost none).
JAX_MIN_COMPILE_SECS = 0.0

#: At most this many bytes in our JAX cache directory (JAX drops the least recently used
#: entries beyond it; one cross-fit of the benchmark data writes about 160 kB).
JAX_MAX_BYTES = 512 * 2**20


def _repair_jax_cache(path: Path) -> None:
    """Give every entry of JAX's size-capped cache its access-time file.

    JAX writes an entry's ``-cache`` file, then its ``-atime`` file; a process killed in
    between leaves an entry without one, and from then on every write's eviction scan
    fails on it (JAX warns "Error writing persistent compilation cache entry ...
    FileNotFoundError ... -atime" and caches nothing more). Writing the missing file,
    stamped now, makes the entry an ordinary one again.
    """
    import time

    for entry in path.glob("*-cache"):
        atime = entry.with_name(entry.name[: -len("-cache")] + "-atime")
        if not atime.exists():
            atime.write_bytes(time.time_ns().to_bytes(8, "little"))


def enable_jax_cache() -> str | None:
    """Point JAX's persistent compilation cache at ``cache_dir() / "jax"`` (once per
    process, before JAX compiles our functions); return the directory JAX uses.

    Leaves a directory the user gave JAX alone, and does nothing when the cache is off.
    JAX's setting is process-wide: later JAX compilations of the process (the user's
    own included) are cached there too.
    """
    import jax

    current = getattr(jax.config, "jax_compilation_cache_dir")  # noqa: B009  (not typed)
    if current:  # set already: by an earlier call of this process, or the user's own
        return current
    root = cache_dir()
    if root is None:
        return None
    path = root / "jax"
    try:
        path.mkdir(parents=True, exist_ok=True)
        _repair_jax_cache(path)
    except OSError:  # a read-only home: compile as before, every time
        return None
    jax.config.update("jax_persistent_cache_min_compile_time_secs", JAX_MIN_COMPILE_SECS)
    jax.config.update("jax_compilation_cache_max_size", JAX_MAX_BYTES)
    jax.config.update("jax_compilation_cache_dir", str(path))
    return str(path)
