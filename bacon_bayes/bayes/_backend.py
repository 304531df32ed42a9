"""Configure PyTensor before it is first imported.

PyTensor's C backend links a BLAS library for matrix products. With numpy from
pip there is none it can link (numpy's bundled OpenBLAS has renamed symbols),
and PyTensor warns that it falls back to slow code. We fix this here, once,
before PyTensor is imported:

* when a system OpenBLAS is installed (Debian: ``apt-get install libopenblas-dev``),
  PyTensor links it (``blas__ldflags=-lopenblas``);
* otherwise PyTensor's default compilation mode becomes ``NUMBA``: its code is
  compiled by numba, which calls BLAS through scipy itself, so the C backend (the
  only one that needs the link flags) is not used and the empty link flags are
  the truth, not a hidden problem.

A user who set ``PYTENSOR_FLAGS`` or a ``.pytensorrc`` keeps full control: we only
add the flags they did not give. Nothing is changed when PyTensor was imported
before bacon_bayes.bayes (its configuration is fixed by then).
"""

from __future__ import annotations

import ctypes.util
import os
import sys

__all__ = ["BLAS_CHOICE", "configure_pytensor"]

BLAS_CHOICE: str = "unconfigured"


def _system_openblas() -> bool:
    """Whether the dynamic linker can find a system OpenBLAS (``libopenblas.so``)."""
    return ctypes.util.find_library("openblas") is not None


def _user_flags() -> str:
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    rc = os.environ.get("PYTENSORRC", os.path.expanduser("~/.pytensorrc"))
    if os.path.exists(rc):  # a config file: respect it whole
        flags += ",blas__ldflags=<rc>,mode=<rc>"
    return flags


def configure_pytensor() -> str:
    """Choose PyTensor's BLAS link flags or backend; return a short description.

    Returns one of ``"openblas"`` (C backend linked to the system OpenBLAS),
    ``"numba"`` (numba backend, no BLAS link needed), ``"user"`` (the user's own
    flags were kept) or ``"preimported"`` (PyTensor was already imported).
    """
    global BLAS_CHOICE
    if BLAS_CHOICE != "unconfigured":
        return BLAS_CHOICE
    if "pytensor" in sys.modules:
        BLAS_CHOICE = "preimported"
        return BLAS_CHOICE
    given = _user_flags()
    if "blas__ldflags" in given or "mode" in given:
        BLAS_CHOICE = "user"
        return BLAS_CHOICE
    if _system_openblas():
        extra, BLAS_CHOICE = "blas__ldflags=-lopenblas", "openblas"
    else:
        extra, BLAS_CHOICE = "mode=NUMBA,blas__ldflags=", "numba"
    old = os.environ.get("PYTENSOR_FLAGS")
    os.environ["PYTENSOR_FLAGS"] = f"{old},{extra}" if old else extra
    try:
        import pytensor  # noqa: F401  (reads PYTENSOR_FLAGS now, once)
    finally:
        if old is None:
            del os.environ["PYTENSOR_FLAGS"]
        else:
            os.environ["PYTENSOR_FLAGS"] = old
    return BLAS_CHOICE
