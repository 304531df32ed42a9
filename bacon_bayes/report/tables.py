"""HTML pieces the report's sections share: escaping and the sortable table in a box of
its own (it scrolls sideways when wider than the page)."""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.results import NUMERICAL_ZERO

__all__ = ["esc", "fixed", "scroll_table"]


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, never as a negative zero: float noise
    (within :data:`~bacon_bayes.results.NUMERICAL_ZERO` of 0) prints as 0, and a value
    the rounding would show as 0 keeps its sign in two significant digits (``-0.00042``),
    so a bound reads on the side of 0 it is on."""
    if not np.isfinite(value):
        return f"{value:.{digits}f}"
    if abs(value) <= NUMERICAL_ZERO:
        return f"{0.0:.{digits}f}"
    text = f"{value:.{digits}f}"
    return f"{value:.2g}" if float(text) == 0 else text


def esc(value: Any) -> str:
    """``value`` as HTML-escaped text (quotes too)."""
    return html.escape(str(value), quote=True)


def scroll_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A sortable HTML table (values escaped), in a box of its own that scrolls
    sideways when the table is wider than the page."""
    table = frame.to_html(
        index=False,
        escape=True,
        classes="sortable",
        border=0,
        na_rep="",
        float_format=lambda v: fixed(v, digits),
    )
    return f'<div class="scroll">{table}</div>'
