"""HTML pieces the report's sections share: escaping and the sortable table in a box of
its own (it scrolls sideways when wider than the page)."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

__all__ = ["esc", "scroll_table"]


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
        float_format=lambda v: f"{v:.{digits}f}",
    )
    return f'<div class="scroll">{table}</div>'
