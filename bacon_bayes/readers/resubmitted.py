"""A survey's respondents who submitted twice (a Google Form without "Limit to 1
response", a double click on Submit): the same e-mail address on several responses, the
earlier left out of the raters' mean and said with their lines; the same answers on every
item in two responses, said with their lines for the user to judge (two raters may answer
alike)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from bacon_bayes.readers.surveys import Survey

#: a respondent's e-mail address column (Google Forms' ``Email Address``, Qualtrics'
#: ``RecipientEmail``, SurveyMonkey's ``Email Address``)
_EMAIL = re.compile(r"^(e-?mail( address)?|recipient ?email)$", re.IGNORECASE)
#: a response's time (Google Forms' ``Timestamp``, Qualtrics' ``RecordedDate``)
_TIME = re.compile(r"^(timestamp|recorded ?date|end ?date)$", re.IGNORECASE)
#: repeats shown at most
SHOWN = 3


def _where(survey: Survey, rows: list[int], time: str | None) -> str:
    """The lines (a workbook's rows) of the responses ``rows`` of ``survey``, each with
    its time where it has one."""
    unit = "rows" if "sheet_name" in survey.read else "lines"
    first = survey.header_rows + 1  # the file's line of response 0
    said = [f"{first + r}" + (f" ({survey.frame.at[r, time]})" if time else "") for r in rows]
    return f"{unit} {', '.join(said)}"


def repeated(survey: Survey) -> None:
    """Find the repeated submissions of ``survey`` (one row per respondent): the earlier
    responses of an e-mail address that responded again left out (``keep``, the pandas
    code in ``filters``, counted in ``dropped`` with their lines); responses with the same
    answers on every item (at least two) said in ``repeats``, kept."""
    if survey.item is not None or not survey.answers:
        return
    frame, names = survey.frame, [str(c) for c in survey.frame.columns]
    time = next((c for c in names if _TIME.match(c)), None)
    email = next((c for c in names if _EMAIL.match(c)), None)
    kept = frame[survey.keep]
    if email is not None:
        address = kept[email].str.strip().str.casefold()
        again = address.notna() & address.duplicated(keep="last")
        if again.any():
            groups = [kept.index[address == a].tolist() for a in address[again].unique()[:SHOWN]]
            shown = "; ".join(
                f"{frame.at[g[0], email]!r} at {_where(survey, g, time)}" for g in groups
            )
            more = f"; and {address[again].nunique() - SHOWN} more" * (
                address[again].nunique() > SHOWN
            )
            survey.dropped.append(
                f"{int(again.sum())} earlier submission(s) of respondents who submitted "
                f"again ({email!r}: {shown}{more}): the last one kept"
            )
            survey.keep = survey.keep & ~pd.Series(again, index=kept.index).reindex(
                frame.index, fill_value=False
            )
            survey.filters += (
                f"lab = lab[lab[{email!r}].isna() | ~lab[{email!r}].str.strip().str.casefold()"
                ".duplicated(keep='last')]; "
            )
            kept = frame[survey.keep]
    answers = kept[survey.answers]
    full = answers.notna().sum(axis=1) >= 2
    same = answers[full].astype(str).duplicated(keep=False)
    if email is not None:  # two addresses are two people
        same &= kept.loc[full, email].isna() | kept.loc[full, email].duplicated(keep=False)
    if same.any():
        rows = answers[full][same]
        groups = [g.index.tolist() for _, g in rows.groupby(list(rows.columns), dropna=False)]
        shown = "; ".join(_where(survey, g, time) for g in groups[:SHOWN])
        survey.repeats.append(
            f"{len(groups)} set(s) of responses with the same answers on every item ({shown}"
            + f"; and {len(groups) - SHOWN} more" * (len(groups) > SHOWN)
            + "): one person submitting twice? If so, delete the earlier row(s) and run "
            "again; two raters may also answer alike (kept)"
        )
