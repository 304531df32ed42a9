"""bacon_bayes: budgeted human calibration of multiple AI judges."""

from __future__ import annotations

__version__ = "0.1.0"
