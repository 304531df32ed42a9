"""Exceptions raised by bacon_bayes.

Every message names what is wrong (column, row, value) and how to fix it.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

#: the package's folder: a frame whose file lies in it is bacon_bayes's own
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class BaconError(Exception):
    """Base class of all bacon_bayes errors (the CLI prints these without a traceback)."""


class ValidationError(BaconError, ValueError):
    """Input data that cannot be used as given; the message says where and how to fix it."""


class RepeatedIdError(ValidationError):
    """Item ids that repeat in a table (``bacon doctor`` prints the line that fixes the
    file: the command line says so, :meth:`doctor_fixes`)."""

    def doctor_fixes(self, file: str) -> RepeatedIdError:
        """This error with the doctor command on ``file`` that prints the line writing the
        table with one row per id (rows pasted twice dropped, a long table pivoted)."""
        import shlex

        return RepeatedIdError(
            f"{self} bacon doctor {shlex.quote(str(file))} prints the line that writes the "
            "table with one row per id (rows pasted twice dropped; a table of one row per "
            "item and judge pivoted)."
        )


class KeywordError(ValidationError, TypeError):
    """A keyword no parameter of the call takes (a misspelling, another method's); a
    ``TypeError`` as Python's own, whose message names neither the valid keywords nor the
    one meant."""


class NotFittedError(BaconError, RuntimeError):
    """A method that needs a fitted object was called before ``fit``."""


class PoolWarning(UserWarning):
    """A pool the estimates can use but whose intervals may not hold as it is (rows no judge
    scored, a judge that copies the label or depends on which rows were labeled); the
    message says which and how to fix it. ``bacon estimate`` prints these as notes."""


class ConvergenceWarning(UserWarning):
    """The sampler did not converge well enough to trust the posterior.

    ``diagnostics``: the fit's :class:`~bacon_bayes.bayes.diagnostics.Diagnostics` (None
    when raised by hand), from which the command line words its own advice."""

    diagnostics: Any = None


class OlderFileWarning(UserWarning):
    """A file saved by an earlier release lacks a key this release writes; the value
    assumed for it is named in the message (a file of this release lacking it is refused)."""


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` of the caller point at the first
    frame outside bacon_bayes (the user's call), however many of the library's own calls
    lie between (a fixed number points into the library as soon as a path is one call
    longer or shorter)."""
    level, frame = 1, sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def missing_key(current: bool, where: str, what: str, assumed: str, fix: str) -> None:
    """A key missing from a saved file (a calibrator, a judge model): refused when this
    release wrote the file (``current``: its layout is this release's), which always
    writes it; said in an :class:`OlderFileWarning` with the value ``assumed`` when an
    earlier release did. ``where``: the file, ``what``: the key, ``fix``: what to do."""
    if current:
        raise ValidationError(
            f"{where} has no {what}, which this release writes in every save: the file was "
            f"changed after saving. {fix}"
        )
    warnings.warn(
        f"{where} was saved by an earlier release, without {what}; loaded with "
        f"{assumed}, as that release had it. Save it again to record the value.",
        OlderFileWarning,
        stacklevel=user_stacklevel(),
    )
