"""One spelling of judge columns for every command: ``--judge COL`` (repeatable).

``--judge`` takes a column name, a shell-style pattern (``'judge:*'``) or several of
either separated by commas, and may be repeated. The older spellings (``--judges a b c``
of ``bacon judges``, ``--judges a,b,c`` of ``bacon sample`` and ``bacon simulate``) still
work as aliases and print a one-line deprecation note on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bacon_bayes.errors import ValidationError

JUDGE_HELP = (
    "judge score column (repeat it; shell-style patterns like 'judge:*' and "
    "comma-separated lists allowed)"
)


class _LegacyJudges(argparse.Action):
    """``--judges``: the old spelling, appended to ``--judge``'s list with a note."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = [values] if isinstance(values, str) else list(values)
        print(
            f"note: {option_string} is deprecated; use --judge COL (repeatable, patterns and "
            "commas allowed)",
            file=sys.stderr,
        )
        current = list(getattr(namespace, self.dest, None) or [])
        setattr(namespace, self.dest, current + given)


class OneLabel(argparse.Action):
    """``--label``: one label column a run; a second, other one is refused (argparse kept
    the last and dropped the first without a word, so ``--label a --label b`` estimated
    ``b`` alone), with how to have each."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        before = getattr(namespace, self.dest, None)
        if before not in (None, self.default, values):
            parser.error(
                f"{option_string} given twice ({before!r}, {values!r}): a run takes one label "
                "column; run the command once per label (bacon doctor FILE --label COL prints "
                "each one's command, with the judges of its aspect)"
            )
        setattr(namespace, self.dest, values)


def add_judge_argument(
    p: argparse.ArgumentParser | Any, *, legacy: str | None = None, help: str = JUDGE_HELP
) -> None:
    """Add ``--judge`` (repeatable) and, when ``legacy`` is given, the old ``--judges``.

    Parameters
    ----------
    p : argparse.ArgumentParser or argument group
        Where to add the options.
    legacy : {"list", "commas"} or None
        The old spelling to keep as an alias: ``"list"`` for ``--judges a b c``,
        ``"commas"`` for ``--judges a,b,c``.
    help : str
        Help text of ``--judge``.
    """
    p.add_argument("--judge", action="append", default=[], metavar="COL", help=help)
    if legacy is not None:
        p.add_argument(
            "--judges",
            dest="judge",
            nargs="+" if legacy == "list" else None,
            action=_LegacyJudges,
            metavar="COLS",
            help="deprecated alias of --judge (kept for old scripts)",
        )


def add_item_argument(p: argparse.ArgumentParser | Any) -> None:
    """``--item COL`` (``--id``, its older spelling, kept), the id column of the items
    table, in ``args.id`` (default None: :func:`items_id`)."""
    p.add_argument(
        "--item",
        "--id",
        dest="id",
        help="item id column (default: item, else a column named id or item_id with unique "
        "values, as the other commands find it; --id is its older spelling)",
    )


def items_id(given: str | None, items: Any) -> str:
    """The id column of an items table: ``given`` (``--item``), else ``item`` (the
    default it always was), else the column the other commands take without ``--item``
    (:func:`bacon_bayes.io.item_column`: ``id``, ``item_id``), else ``item`` (refused by
    the run with the table's columns)."""
    from bacon_bayes.io import item_column

    if given is not None:
        return given
    if "item" in items.columns:
        return "item"
    return item_column(items) or "item"


def split_judges(values: Sequence[str], columns: Sequence[Any] | None = None) -> list[str]:
    """The ``--judge`` values with comma-separated lists split (a value that is a column
    name of ``columns`` is kept whole, commas and spaces around it and all).

    Parameters
    ----------
    values : sequence of str
        The values as given.
    columns : sequence, optional
        The table's columns, when known.

    Returns
    -------
    list of str
        Names and patterns, in order, without empty entries.
    """
    known = {str(c) for c in columns} if columns is not None else set()
    out: list[str] = []
    for value in values:
        parts = [value] if value in known else value.split(",")
        # a column's whole name as it is ('GPT-4 ', spaces and all), else stripped
        out.extend(p if p in known else p.strip() for p in parts if p.strip())
    return out


def judge_columns(values: Sequence[str], columns: Sequence[Any], *, required: bool = True) -> list:
    """Expand ``--judge`` values (names, patterns, comma lists) against ``columns``.

    Parameters
    ----------
    values : sequence of str
        The values of ``--judge`` (and its old aliases).
    columns : sequence
        The table's column names.
    required : bool
        Refuse an empty list.

    Returns
    -------
    list
        Column names, in order, without repeats.

    Raises
    ------
    ValidationError
        No judge given (when ``required``), or a pattern that matches no column.
    """
    from bacon_bayes.stream.source import expand_columns

    names = split_judges(values, columns)
    if required and not names:
        raise ValidationError("no judges given; pass --judge COL (repeatable, patterns allowed)")
    return expand_columns(names, list(columns))


def file_judge_columns(values: Sequence[str], path: str | Path, *, required: bool = True) -> list:
    """:func:`judge_columns` against the header of the table at ``path``.

    Parameters
    ----------
    values : sequence of str
        The values of ``--judge``.
    path : str or Path
        A CSV or Parquet file (only its header is read).
    required : bool
        Refuse an empty list.

    Returns
    -------
    list
        Column names, in order, without repeats.
    """
    from bacon_bayes.stream.source import file_columns

    names = split_judges(values)
    if not any(ch in n for n in names for ch in "*?[") and (names or not required):
        return names  # nothing to expand: the table is read (and checked) later
    return judge_columns(values, file_columns(Path(path)), required=required)
