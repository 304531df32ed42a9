"""Exceptions raised by bacon_bayes.

Every message names what is wrong (column, row, value) and how to fix it.
"""

from __future__ import annotations

from typing import Any


class BaconError(Exception):
    """Base class of all bacon_bayes errors (the CLI prints these without a traceback)."""


class ValidationError(BaconError, ValueError):
    """Input data that cannot be used as given; the message says where and how to fix it."""


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
