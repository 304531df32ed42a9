"""Excel workbooks (``.xlsx``, ``.xlsm``) read as the table of their one sheet.

Read with openpyxl (the extra ``excel``), the reader pandas uses. A workbook whose cells
are on several sheets is read as the one sheet that is a table (sheets of notes passed
over, and said), else refused with the sheets' names and the lines that write each as CSV:
which one is the table is the user's to say. Older and other spreadsheets (``.xls``, ``.ods``,
``.numbers``) are refused by :func:`bacon_bayes.io.refuse_workbook` with how to save
them as CSV."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from bacon_bayes.errors import ValidationError

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

__all__ = ["READ_WORKBOOKS", "SAVE_AS_CSV", "group_row", "is_workbook", "read_workbook"]

#: most rows above a table's header (a title, a date, a blank line) that are skipped: a
#: CSV's lines (:mod:`bacon_bayes.csv_format`), a sheet's rows (:func:`header_row`)
MAX_PREAMBLE = 10
#: a cell that is a number (a decimal point or comma)
_NUMBER_CELL = re.compile(r"^\s*[-+]?(\d+([.,]\d*)?|[.,]\d+)\s*$")


def group_row(rows: list[list[str]]) -> bool:
    """Whether ``rows[0]`` is a spreadsheet's row of merged group titles above the header
    (``Item info;;;Human;LLM judges;;``): some cells empty, the next row's all filled,
    distinct and no numbers (the header), and numbers in every row below it (the data)."""
    if len(rows) < 3 or len(rows[1]) != len(rows[0]):
        return False
    cells = [c.strip() for c in rows[0]]
    header = [c.strip() for c in rows[1]]
    return (
        any(cells)
        and not all(cells)
        and all(header)
        and len(set(header)) == len(header)
        and not any(_NUMBER_CELL.match(c) for c in cells + header)
        and all(any(_NUMBER_CELL.match(c) for c in row) for row in rows[2:])
    )


#: the workbook files bacon reads (their one sheet)
READ_WORKBOOKS = (".xlsx", ".xlsm")

#: how to save a sheet as the CSV bacon reads, in each spreadsheet program
SAVE_AS_CSV = (
    "Save the sheet as CSV (Excel: File > Save As > CSV UTF-8; LibreOffice: Save As > "
    "Text CSV; Google Sheets: File > Download > CSV) and pass the .csv file"
)


def is_workbook(path: str | Path) -> bool:
    """Whether ``path`` is named as a workbook bacon reads (:data:`READ_WORKBOOKS`)."""
    return Path(path).name.lower().endswith(READ_WORKBOOKS)


def read_workbook(
    path: str | Path, each: Callable[[Path, list[str]], str] | None = None
) -> pd.DataFrame:
    """The table on the one sheet of the workbook at ``path`` that holds cells (empty
    sheets, such as Excel's default ``Sheet2``, are passed over). ``attrs["sheet"]`` names
    it, ``attrs["read as"]`` says it, ``attrs["header"]`` is its header row as written (two
    columns of one name, which pandas renames ``name.1``:
    :func:`bacon_bayes.io.check_header`), ``attrs["header row"]`` the rows above it (a
    title: :func:`header_row`). Rows are numbered as the sheet numbers them, as a CSV's
    lines are.

    Raises
    ------
    ValidationError
        openpyxl is not installed (with the extra to install, or saving as CSV), the file
        is not a readable workbook, or no sheet or several sheets hold cells.
    """
    import pandas as pd

    path = Path(path)
    try:
        import openpyxl  # noqa: F401  (pandas' reader of .xlsx)
    except ImportError:
        raise ValidationError(
            f"{str(path)!r} is an Excel workbook; reading it needs openpyxl: pip install "
            f"'bacon_bayes[excel]' (or pip install openpyxl). Or: {SAVE_AS_CSV}."
        ) from None
    try:
        sheets = pd.read_excel(path, sheet_name=None, header=None, dtype=object)
    except (ValueError, OSError, KeyError, zipfile.BadZipFile) as exc:
        raise ValidationError(
            f"cannot read {str(path)!r} as an Excel workbook ({exc}). {SAVE_AS_CSV}."
        ) from exc
    filled = {str(name): s for name, s in sheets.items() if not s.dropna(how="all").empty}
    tables = {name: s for name, s in filled.items() if _is_table(s)}
    if len(tables) != 1:
        said = (
            "no sheet holds cells"
            if not filled
            else f"{len(filled)} sheets hold cells ({', '.join(map(repr, filled))}), and "
            "bacon reads one table"
        )
        lines = f"; or write each as CSV: {each(path, list(tables or filled))}" if each else ""
        raise ValidationError(
            f"{str(path)!r}: {said}. {SAVE_AS_CSV.replace('the sheet', 'the sheet of the table')}"
            + (f", or delete the other sheets{lines}" if filled else "")
            + "."
        )
    ((name, raw),) = tables.items()
    notes = [n for n in filled if n != name]
    top = header_row(raw)
    sheet = pd.read_excel(path, sheet_name=name, header=top)
    sheet = sheet.loc[:, [not str(c).startswith("Unnamed: ") or sheet[c].notna().any()
                          for c in sheet.columns]]  # fmt: skip
    sheet.attrs["header"] = ["" if pd.isna(v) else str(v) for v in raw.iloc[top]]
    sheet.attrs["sheet"] = name
    sheet.attrs["header row"] = top
    above = f", {top} row(s) above the header skipped" if top else ""
    passed = f", sheets of notes passed over ({', '.join(map(repr, notes))})" if notes else ""
    sheet.attrs["read as"] = f"sheet {name!r} of an Excel workbook{above}{passed}"
    return sheet


def _is_table(raw: pd.DataFrame) -> bool:
    """Whether a sheet's cells (read as written) are a table: at least 2 columns and 3
    rows filled (a sheet of notes is text in one column, or a line or two)."""
    cells = raw.dropna(how="all").dropna(axis=1, how="all")
    return cells.shape[0] >= 3 and cells.shape[1] >= 2


def header_row(raw: pd.DataFrame) -> int:
    """The row (from 0) of a sheet's header, its cells read as written (``header=None``):
    past up to :data:`MAX_PREAMBLE` rows above it (a title, an
    export date, a blank row) and a row of merged group titles, as a CSV's header line is
    found: the first row with at least 2 cells
    filled (a title is one cell; a pandas index's header cell is empty); 0 when no row is
    such."""
    import pandas as pd

    rows = [["" if pd.isna(v) else str(v) for v in r] for r in raw.head(MAX_PREAMBLE + 7).values]
    for k in range(min(MAX_PREAMBLE + 1, len(rows))):
        if sum(bool(c.strip()) for c in rows[k]) >= 2:
            return k + int(group_row(rows[k : k + 6]))
    return 0
