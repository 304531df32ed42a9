"""Survey tools' exports of human ratings (Qualtrics, Google Forms, SurveyMonkey), given
to ``bacon doctor`` as the table or as ``--labels``: raters' answers, one row per
respondent, not a table of judge scores nor one label per item. Said as such (the tool,
its extra header rows, the responses left out and why, where the items are), with the
line that writes one row per item, the raters' mean and their number, to pass as
``--labels`` beside a table of judge scores.

Followed (CSV exports as the tools write them):

- Qualtrics ("Data & Analysis" > "Export", CSV): three header rows, the questions'
  short names (``StartDate``, ``Status``, ``Finished``, ``ResponseId``, ``Q1_1``...),
  their text (``How relevant is summary 12? - Relevance``) and Qualtrics' ImportId
  (``{"ImportId":"QID1_1"}``), then one row per response. ``Status`` (``Response Type``)
  tells previews, tests and spam (``Survey Preview``, ``Survey Test``, ``Spam``; codes
  1, 2, 8, 9, 12, 17 in a numeric export) from real responses; ``Finished`` (True/False,
  1/0) an incomplete one. The items are the questions (one column per item, the item in
  the question's text), or an embedded data field (``item_id``) with one row per
  response and item.
- Google Forms ("Download responses (.csv)"): ``Timestamp``, often ``Email Address``,
  then one column per question headed by its text (``Summary d17 — how relevant?
  (1-5)``), one row per respondent: wide by item, each item's id inside its header.
- SurveyMonkey ("Export", "All responses data", CSV): two header rows, the question's
  text (once over a matrix's columns) and the answer's (``Response``, or a matrix row's
  ``Summary d01``); ``Respondent ID``, ``Collector ID``, ``Start Date``...
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.csv_format import (
    csv_options,
    csv_source,
    pandas_command,
    read_csv_call,
    sheet_lines,
)
from bacon_bayes.outputs import unused_name
from bacon_bayes.readers import resubmitted
from bacon_bayes.words import MOST_LEVELS, as_numbers, id_text, level_map, mapping_text
from bacon_bayes.workbook import READ_WORKBOOKS, is_workbook, read_workbook

#: the files read as a survey's export: CSV text, an Excel workbook's one sheet (the
#: tools' ``.xlsx`` exports, as their CSV laid out)
_ENDINGS = (".csv", ".csv.gz", ".tsv", ".txt", *READ_WORKBOOKS)
#: a token of a header's text that may be an item's id (``d17``, ``12``, ``doc-1/M1``)
TOKEN = r"[\w./-]*\w"
#: Qualtrics' response metadata, by the short name of its first header row
QUALTRICS_META = {
    "StartDate", "EndDate", "Status", "IPAddress", "Progress", "Duration (in seconds)",
    "Finished", "RecordedDate", "ResponseId", "ResponseID", "RecipientLastName",
    "RecipientFirstName", "RecipientEmail", "ExternalReference", "ExternalDataReference",
    "LocationLatitude", "LocationLongitude", "DistributionChannel", "UserLanguage",
}  # fmt: skip
#: SurveyMonkey's respondent metadata (and ``Custom Data 1``...)
MONKEY_META = {
    "Respondent ID", "Collector ID", "Start Date", "End Date", "IP Address",
    "Email Address", "First Name", "Last Name",
}  # fmt: skip
#: Google Forms' own columns: the time, the respondent's address, a quiz's total
FORMS_META = {"Timestamp", "Email Address", "Email address", "Username", "Score", "Total score"}
#: the first header cell of a Google Forms export, in a few of its languages
FORMS_TIME = {"timestamp", "marca temporal", "horodateur", "zeitstempel", "carimbo de data/hora"}
#: a Qualtrics Status that is no real response: a preview, a test, spam (text or code)
NOT_RESPONSE = "preview|test|spam|^ *(?:1|2|8|9|12|17) *$"
#: an embedded data field or input named like an item's id (``item_id``, ``doc_id``)
_ID = re.compile(r"^(id|uid|key|item)$|(^|[_ .-])(id|uid|key)$", re.IGNORECASE)
#: a field naming the respondent, not the item: a panel's (Prolific's ``PROLIFIC_PID``,
#: ``STUDY_ID``, ``SESSION_ID``; MTurk's ``workerId`` through Qualtrics), a participant's
_RESPONDENT = re.compile(
    r"prolific|^(study|session)[ _]?id$|worker|assignment|^hit[ _]?id$|participant|"
    r"respondent|^(user|rid|pid|psid|panel)([ _]?id)?$",
    re.IGNORECASE,
)
#: examples shown of the ids found
SHOWN = 3


@dataclass
class Survey:
    """A survey tool's export of ratings, read as :func:`read_survey` finds it.

    Attributes
    ----------
    tool : str
        ``Qualtrics``, ``Google Forms`` or ``SurveyMonkey``.
    path : str
        The file.
    read : dict
        The ``pd.read_csv`` options that read the responses under the header row that
        names their columns (``header``; the separator... of :func:`csv_options`).
    below : int
        Header rows under that one (Qualtrics' ImportId row...), dropped from the rows.
    frame : DataFrame
        The responses as the printed line reads them, every one.
    keep : Series
        The responses kept (a Qualtrics preview, test, spam or unfinished one is not).
    dropped : list of str
        Why the others were left out, with their counts.
    filters : str
        The pandas code that keeps them (``lab = lab[...]; ``), ``""``: all kept.
    item : str or None
        Long layout: the column of the items' ids (one row per response and item).
    answers : list of str
        The columns of ratings (wide: one per item).
    pattern : str or None
        Wide: the regular expression that pulls each item's id out of its column's
        header (None: the ids are given in the line column by column).
    ids : dict
        Wide: each answer column's item id.
    other : list of str
        The other questions' columns (text, another question on the items), not used.
    meta : list of bool
        Whether each column is the tool's bookkeeping or the respondent's (times,
        status, ``ResponseId``, a panel's ``PROLIFIC_PID``), by position.
    levels : dict
        Answers written as words of a scale no word reader knows (``Very relevant``),
        each with its number (``{}``: numbers, or Likert answers).
    """

    tool: str
    path: str
    read: dict[str, Any]
    below: int
    frame: pd.DataFrame
    keep: pd.Series
    dropped: list[str] = field(default_factory=list)
    filters: str = ""
    item: str | None = None
    answers: list[str] = field(default_factory=list)
    pattern: str | None = None
    ids: dict[str, str] = field(default_factory=dict)
    other: list[str] = field(default_factory=list)
    levels: dict[str, float] = field(default_factory=dict)
    meta: list[bool] = field(default_factory=list)
    #: headers that number the questions (``Question 1``, ``Question 2``...), no items
    numbered: list[str] = field(default_factory=list)
    #: responses with the same answers on every item, with their lines (kept: said)
    repeats: list[str] = field(default_factory=list)

    @property
    def header_rows(self) -> int:
        """The tool's header rows (3 for Qualtrics, 2 for SurveyMonkey, 1)."""
        return int(self.read.get("header", 0)) + 1 + self.below


def _options(path: Path) -> dict[str, Any]:
    """How to read the export at ``path``: a CSV's options (:func:`csv_options`), or a
    workbook's sheet (its one sheet with cells, :func:`~bacon_bayes.workbook.read_workbook`:
    openpyxl missing is refused with the fix)."""
    if is_workbook(path):
        return {"sheet_name": read_workbook(path, sheet_lines).attrs["sheet"]}
    return csv_options(path)


def _table(path: Path, how: dict[str, Any], **more: Any) -> pd.DataFrame:
    """The export at ``path`` read with ``how`` (:func:`_options`) and ``more``."""
    if "sheet_name" in how:
        return pd.read_excel(path, **how, **more)
    with csv_source(path, whole=False) as source:
        return pd.read_csv(**source, **how, **more)


def _head(path: Path, how: dict[str, Any]) -> list[list[str]]:
    """The first 3 records of the export at ``path`` past its title lines, as text."""
    try:
        head = _table(path, how, header=None, nrows=3, dtype=str, keep_default_na=False)
    except (ValueError, OSError, EOFError, UnicodeDecodeError, pd.errors.ParserError):
        return []
    return [
        ["" if pd.isna(c) else str(c).strip() for c in row] for row in head.itertuples(index=False)
    ]


def _tool(rows: list[list[str]]) -> tuple[str, int, set[str]] | None:
    """The tool whose export starts with the records ``rows``, its header rows under the
    first, and its metadata columns' first header cells; None: no survey export."""
    first = set(rows[0])
    if {"ResponseId", "ResponseID"} & first and {"Finished", "StartDate"} & first:
        under = 0
        for row in rows[1:3]:
            json = sum(c.startswith('{"ImportId"') for c in row) * 2 > len(row)
            if not (json or {"Response ID", "Start Date", "Response Type"} & set(row)):
                break
            under += 1
        return "Qualtrics", under, QUALTRICS_META
    if {"Respondent ID", "Collector ID"} <= first and len(rows) > 1 and not rows[1][0]:
        return "SurveyMonkey", 1, MONKEY_META
    if rows[0][0].casefold() in FORMS_TIME and len(rows[0]) > 2:
        return "Google Forms", 0, FORMS_META
    return None


def _meta(name: str, known: set[str]) -> bool:
    return name in known or name.startswith("Q_") or bool(re.match(r"Custom Data \d+$", name))


def _read(path: Path, read: dict[str, Any], below: int) -> pd.DataFrame:
    return _table(path, read, dtype=str).iloc[below:].reset_index(drop=True)


def _numbers(column: pd.Series) -> bool:
    """Whether most filled cells of ``column`` read as ratings (numbers, Likert words)."""
    filled = int(column.notna().sum())
    return filled > 0 and int(as_numbers(column).notna().sum()) * 2 > filled


#: answers in words of an intensity (``Not at all relevant`` ... ``Extremely relevant``,
#: SurveyMonkey's rating scales) or of quality, by their first words, in their order
_INTENSITY = {"not at all": 1.0, "slightly": 2.0, "somewhat": 3.0, "moderately": 3.0,
              "very": 4.0, "extremely": 5.0}  # fmt: skip
_QUALITY = {"poor": 1.0, "fair": 2.0, "good": 3.0, "very good": 4.0, "excellent": 5.0}


def _ordered(words: list[str]) -> dict[str, float] | None:
    """The numbers of answers ``words`` of a scale whose order their words say: the
    intensities of one adjective (``Slightly relevant``), or quality words; else None."""
    folded = {w: " ".join(w.split()).casefold() for w in words}
    if all(f in _QUALITY for f in folded.values()):
        return {w: _QUALITY[f] for w, f in folded.items()}
    out = {}
    for w, f in folded.items():
        how = next((a for a in _INTENSITY if f.startswith(a + " ")), None)
        if how is None:
            return None
        out[w] = (_INTENSITY[how], f[len(how) + 1 :])
    if len({rest for _, rest in out.values()}) != 1:  # one adjective
        return None
    return {w: level for w, (level, _) in out.items()}


def _ratings(frame: pd.DataFrame, columns: list[str]) -> tuple[list[str], dict[str, float]]:
    """The columns of ``columns`` that hold ratings, their cells read together as one
    scale's: numbers or Likert answers (:func:`~bacon_bayes.words.as_numbers`), else
    words of one scale (``Very relevant``), with their numbers (``{}``: numbers)."""
    if not columns:
        return [], {}
    stack = pd.concat([frame[c] for c in columns], ignore_index=True)
    read = as_numbers(stack).notna().to_numpy()
    filled = stack.notna().to_numpy()
    out, start = [], 0
    for c in columns:
        end = start + len(frame)
        if 0 < filled[start:end].sum() < 2 * read[start:end].sum():
            out.append(c)
        start = end
    if out:
        return out, {}
    few = [c for c in columns if 1 <= frame[c].dropna().nunique() <= MOST_LEVELS]
    if not few:
        return [], {}
    cells = pd.concat([frame[c] for c in few], ignore_index=True).dropna().str.strip()
    words = sorted(set(cells))
    levels = _ordered(words) if len(words) <= MOST_LEVELS else None
    if levels is None and (found := level_map(cells)) is not None:
        levels = found[1]
    if levels is None:
        return [], {}
    return [c for c in few if set(frame[c].dropna().str.strip()) <= set(levels)], levels


def read_survey(path: str | Path) -> Survey | None:
    """The survey export at ``path``, its responses, items and ratings found; None for
    a file that is no survey tool's CSV export, or one of a response per item already
    (a Google Form of an item column and a rating, each item rated once: a labels file
    as it is)."""
    source = Path(path)
    if not source.is_file() or not source.name.lower().endswith(_ENDINGS):
        return None
    how = _options(source)
    rows = _head(source, how)
    found = _tool(rows) if rows and rows[0] else None
    if found is None:
        return None
    tool, under, known = found
    meta = [_meta(c, known) for c in rows[0]]
    frame = _read(source, how, under)
    if frame.shape[1] != len(rows[0]):
        return None
    survey = Survey(tool, str(path), dict(how), under, frame, pd.Series(True, frame.index))
    if tool == "Qualtrics":
        _responses(survey, rows[0])
    names = [str(c) for c in frame.columns]
    meta = [m or bool(_RESPONDENT.search(n)) for n, m in zip(names, meta, strict=True)]
    survey.meta = meta
    items = [n for n, m in zip(names, meta, strict=True) if not m and _ID.search(n)]
    if items:  # one row per response and item
        survey.item = max(items, key=lambda c: frame[c].nunique())
        rest = [n for n, m in zip(names, meta, strict=True) if not m and n != survey.item]
        survey.answers = [c for c in rest if _numbers(frame[c])]
        if not survey.answers:  # words of a scale, read together
            survey.answers, survey.levels = _ratings(frame, rest)
        survey.other = [c for c in rest if c not in survey.answers]
        repeated = frame.loc[survey.keep, survey.item].duplicated().any()
        if not survey.answers or not (under or repeated or not survey.keep.all()):
            return None
        return survey
    rated, survey.levels = _ratings(frame, [n for n, m in zip(names, meta, strict=True) if not m])
    positions = [names.index(c) for c in rated]
    header = [1, 0] if tool == "Qualtrics" and under else [0, 1] if under else [0]
    for h in header[: 1 if tool == "Qualtrics" else 2]:
        if _wide(survey, rows, h, positions):
            answers = set(survey.answers)
            survey.other = [c for c, m in zip(survey.frame.columns, meta, strict=True)
                            if not m and c not in answers]  # fmt: skip
            resubmitted.repeated(survey)  # a respondent's submissions: the last kept
            return survey
    return survey if under or survey.numbered else None  # ratings of no item named: said


def _responses(survey: Survey, first: list[str]) -> None:
    """Qualtrics: the responses kept (not a preview, test or spam by ``Status``, finished
    by ``Finished``), the others counted, the pandas code that keeps them."""
    frame, code, dropped = survey.frame, [], []
    keep = pd.Series(True, frame.index)
    if "Status" in first:
        status = str(frame.columns[first.index("Status")])
        bad = frame[status].str.contains(NOT_RESPONSE, case=False, na=False)
        for value, n in frame.loc[bad, status].value_counts().items():
            dropped.append(f"{n} of {status} {value!r} (a preview, test or spam)")
        keep &= ~bad
        code.append(f"~lab[{status!r}].str.contains({NOT_RESPONSE!r}, case=False, na=False)")
    if "Finished" in first:
        done = str(frame.columns[first.index("Finished")])
        ended = frame[done].str.strip().str.lower().isin(["true", "1"])
        if n := int((keep & ~ended).sum()):
            dropped.append(f"{n} unfinished ({done} False)")
        keep &= ended
        code.append(f"lab[{done!r}].str.strip().str.lower().isin(['true', '1'])")
    survey.keep, survey.dropped = keep, dropped
    survey.filters = f"lab = lab[{' & '.join(code)}]; " if code else ""


def _wide(survey: Survey, rows: list[list[str]], h: int, positions: list[int]) -> bool:
    """Whether the header row ``h`` of ``rows`` names an item in each of the rating
    columns at ``positions`` (one token varying from column to column, the rest of the
    header alike): the columns, their ids and the pattern that pulls them out, set on
    ``survey`` (read with that header row); False: it names none."""
    texts = {k: rows[h][k] for k in positions if k < len(rows[h])}
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], dict[int, str]] = {}
    for k, text in texts.items():
        tokens = re.findall(TOKEN, text)
        for p, token in enumerate(tokens):
            groups.setdefault((tuple(tokens[:p]), tuple(tokens[p + 1 :])), {})[k] = token
    fit = {key: g for key, g in groups.items() if len(g) >= 2 and len(set(g.values())) == len(g)}
    if not fit:
        return False
    (before, after), group = max(fit.items(), key=lambda kv: len(kv[1]))
    if [w.casefold() for w in before] in _QUESTION and all(t.isdigit() for t in group.values()):
        survey.numbered = [rows[h][k] for k in group]  # the form's order, not the items'
        return False
    read = {**survey.read, "header": h} if h else dict(survey.read)
    below = survey.header_rows - h - 1
    frame = _read(Path(survey.path), read, below) if h else survey.frame
    frame.columns = frame.columns.astype(str)
    names = {str(frame.columns[k]): token for k, token in group.items()}
    survey.read, survey.below, survey.frame = read, below, frame
    survey.keep.index = frame.index
    survey.filters = _renamed(survey.filters, rows, h, frame)
    survey.answers, survey.ids = list(names), names
    survey.pattern = next((p for p in _patterns(before, after) if _pulls(p, frame, names)), None)
    return True


#: the words before a number that numbers a form's questions (``Question 1``, ``Q3``)
_QUESTION = [["question"], ["q"], ["frage"], ["pregunta"], ["vraag"]]


def _renamed(code: str, rows: list[list[str]], h: int, frame: pd.DataFrame) -> str:
    """The filters' ``code`` with the columns named as the header row ``h`` names them."""
    for k, name in enumerate(rows[0]):
        if name in ("Status", "Finished") and h:
            code = code.replace(f"lab[{name!r}]", f"lab[{str(frame.columns[k])!r}]")
    return code


def _patterns(before: tuple[str, ...], after: tuple[str, ...]) -> list[str]:
    """Regular expressions that may pull the varying token out of a header whose other
    tokens are ``before`` and ``after`` it: by the word before it, the word after it,
    all the words before it, all the words around it."""
    word = rf"({TOKEN})"
    out = []
    if before:
        out.append(rf"{re.escape(before[-1])}\W+{word}")
    if after:
        out.append(rf"{word}\W+{re.escape(after[0])}")
    if before:
        out.append(r"\W+".join(map(re.escape, before)) + rf"\W+{word}")
    out.append(r"\W+".join([*map(re.escape, before), word, *map(re.escape, after)]))
    return out


def _pulls(pattern: str, frame: pd.DataFrame, names: dict[str, str]) -> bool:
    """Whether ``pattern`` finds the id ``names`` gives in each of those columns' names
    and in no other column's name of ``frame``."""
    for c in map(str, frame.columns):
        hit = re.search(pattern, c)
        if (hit is None) != (c not in names) or (hit and hit.group(1) != names[c]):
            return False
    return True


def _few(names: list[str], n: int = 6) -> str:
    shown = ", ".join(map(repr, names[:n]))
    return shown + (f" and {len(names) - n} more" if len(names) > n else "")


def mean_line(survey: Survey, key: str | None = None) -> tuple[str, str, str]:
    """The line that writes one row per item of ``survey``: its id (column ``key``; the
    long layout's item column keeps its name unless ``key`` is given another), the
    raters' mean (``human``; the long layout: each answer's, named as it) and their
    number (``n_raters``), the responses left out as :func:`read_survey` leaves them out.

    Returns
    -------
    line, out, label : str
        The shell line, the file it writes (never one the folder holds), the label
        column to pass as ``--label``.
    """
    from bacon_bayes.readers.labels_unused import table_stem

    key = key or survey.item or "id"
    stem = table_stem(survey.path) or Path(survey.path).stem
    out = unused_name(f"{stem}_mean")
    read = read_csv_call(survey.path, survey.read, ", dtype=str")
    if "sheet_name" in survey.read:  # a workbook's sheet, with the same options
        read = read.replace("pd.read_csv(", "pd.read_excel(", 1)
    read += f".iloc[{survey.below}:]" * bool(survey.below)
    words = "from bacon_bayes.words import as_numbers; " * (not survey.levels)
    levels = f"{{{mapping_text(survey.levels)}}}"
    convert = f"lambda s: s.str.strip().map({levels})" if survey.levels else "as_numbers"
    if survey.item is not None:
        cols, label = survey.answers, survey.answers[0]
        rename = f".rename(columns={{{survey.item!r}: {key!r}}})" * (key != survey.item)
        code = (
            f"{words}lab = {read}; {survey.filters}"
            f"lab[{cols!r}] = lab[{cols!r}].apply({convert}); "
            f"g = lab.groupby({survey.item!r}, sort=False); out = g[{cols!r}].mean(); "
            f"out['n_raters'] = g[{label!r}].count(); "
            f"out.reset_index(){rename}.to_csv({out!r}, index=False)"
        )
        return pandas_command(code), out, label
    if survey.pattern is not None:
        pick = f"cols = [c for c in lab.columns if re.search(r'{survey.pattern}', c)]; "
        pull = f"r[{key!r}] = r['question'].str.extract(r'{survey.pattern}', expand=False); "
    else:  # the ids column by column
        pick = f"ids = {survey.ids!r}; cols = list(ids); "
        pull = f"r[{key!r}] = r['question'].map(ids); "
    rating = (
        f"r['rating'].str.strip().map({levels})" if survey.levels else "as_numbers(r['rating'])"
    )
    code = (
        f"import re; {words}lab = {read}; {survey.filters}{pick}"
        "r = lab.melt(value_vars=cols, var_name='question', value_name='rating'); "
        f"{pull}r['rating'] = {rating}; "
        f"r.groupby({key!r}, sort=False)['rating'].agg(human='mean', n_raters='count')"
        f".reset_index().to_csv({out!r}, index=False)"
    )
    return pandas_command(code), out, "human"


def _layout(survey: Survey) -> str:
    """How the header rows, the responses and the items of ``survey`` are laid out."""
    n = survey.header_rows
    rows = {
        3: "three header rows (the questions' names, their text, Qualtrics' ImportId)",
        2: "two header rows (the question, then its answer or a matrix's row)",
    }.get(n, "one header row (each question's text)")
    per = (
        f"one row per response and item (the items in {survey.item!r})"
        if survey.item is not None
        else "one row per respondent, one column per item"
    )
    return f"{rows}; {per}: raters' answers, the human labels, not a table of judge scores"


def _read_as(survey: Survey) -> str:
    """How the ratings of ``survey`` are read, in words."""
    if not survey.levels:
        return "numbers or Likert answers: the labels"
    said = ", ".join(f"{w!r} = {v:g}" for w, v in sorted(survey.levels.items(), key=_second))
    check = (
        "" if _ordered(list(survey.levels)) else "; their order guessed from the words: check it"
    )
    return f"words of a scale, read as {said}{check}"


def _second(pair: tuple[str, float]) -> float:
    return pair[1]


def _found(survey: Survey) -> list[tuple[str, str]]:
    """What was found, as (what, said) pairs."""
    kept = survey.frame[survey.keep]
    out = []
    if survey.item is not None:
        per = kept.groupby(survey.item)[survey.answers[0]].count()
        spread = f"{per.min()}-{per.max()}" if per.min() != per.max() else f"{per.min()}"
        out.append(("items", f"{survey.item!r}: {per.size} items, {spread} ratings each"))
        out.append(("ratings", ", ".join(map(repr, survey.answers)) + f" ({_read_as(survey)})"))
    elif survey.answers:
        how = (
            f"by the pattern r'{survey.pattern}' in each header"
            if survey.pattern
            else "one per header, no one pattern pulls them out: given column by column"
        )
        shown = "; ".join(f"{c!r} -> {i!r}" for c, i in list(survey.ids.items())[:SHOWN]) + (
            f"; ... ({len(survey.ids)} ids)" if len(survey.ids) > SHOWN else ""
        )
        out.append(("items", f"{len(survey.ids)} question columns, the item's id found {how}"))
        out.append(("found", shown))
        per = kept[survey.answers].notna().sum()
        spread = f"{per.min()}-{per.max()}" if per.min() != per.max() else f"{per.min()}"
        out.append(("ratings", f"{spread} per item ({_read_as(survey)})"))
    out.append(("responses", f"{int(survey.keep.sum())} of {len(survey.frame)} kept"))
    out += [("left out", d) for d in survey.dropped]
    out += [("repeated", d) for d in survey.repeats]
    if survey.other:
        out.append(("not used", f"{_few(survey.other)}: other questions (text, or other items)"))
    if books := [str(c) for c, m in zip(survey.frame.columns, survey.meta, strict=True) if m]:
        out.append(("not used", f"{_few(books, 4)}: the survey's bookkeeping, the respondents'"))
    return out


def survey_text(path: str | Path) -> str:
    """What ``bacon doctor`` says of a survey export at ``path`` given as the table
    (``""``: no survey export): what it is, the responses left out, the items and how
    they were found, the line that writes each item's mean over its raters and the
    ``bacon doctor`` that joins it as ``--labels`` to a table of judge scores."""
    import shlex

    survey = read_survey(path)
    if survey is None:
        return ""
    lines = [
        f"bacon doctor: {path} (a {survey.tool} survey export, {len(survey.frame)} "
        + ("responses)" if survey.item is None else "rows)"),
        "",
        _layout(survey),
        *(f"  {what:<9} {said}" for what, said in _found(survey)),
        "",
        "what to do:",
    ]
    if not survey.answers:
        return "\n".join([*lines, f"  {_no_items(survey)}"])
    line, out, label = mean_line(survey)
    run = shlex.join(["bacon", "doctor", "JUDGES.csv", "--labels", out, "--label", label])
    whose = "those found above" if survey.item is None else f"those of {survey.item!r}"
    return "\n".join(
        [
            *lines,
            "  write each item's mean rating over its raters (n_raters: how many), one row "
            "per item"
            + ", the responses left out above left out" * bool(survey.dropped)
            + f":\n  {line}",
            "  then pass it as --labels beside your table of judge scores (JUDGES.csv: one "
            f"row per item, its ids {whose}):\n  {run}",
        ]
    )


def _no_items(survey: Survey) -> str:
    if survey.numbered:
        shown = ", ".join(map(repr, survey.numbered[:3]))
        return (
            f"its questions are numbered ({shown}, ... {len(survey.numbered)} of them), which "
            "is the form's order, not the items' ids (read as ids, question 1 would be the "
            "item with id 1): put each item's id in its question's header (Summary d01 — "
            "how relevant?) and export again, or rename the columns to the ids in pandas"
        )
    return (
        f"no item id found: neither a column named like an item's id (an embedded data field "
        f"such as item_id) nor a question whose header names the item ({survey.tool}'s "
        "export must say which item each rating is of: add the item's id to each question's "
        "text, or record it in a field)"
    )


def _id_column(ids: pd.Series, frame: pd.DataFrame, item: str | None) -> tuple[str, int]:
    """The table's column holding most of ``ids`` (``item`` when given), and how many."""
    wanted = set(id_text(ids.dropna()))
    columns = [item] if item is not None and item in frame.columns else list(frame.columns)
    best = max(
        ((str(c), len(wanted & set(id_text(frame[c].dropna())))) for c in columns),
        key=lambda x: x[1],
        default=(item or "id", 0),
    )
    return best if best[1] else (item or "id", 0)


def refuse_labels(
    path: str | Path, frame: pd.DataFrame, item: str | None, table: str | Path | None
) -> None:
    """Refuse a survey export given as ``--labels`` (one row per respondent, not one
    label per item), with what it is and the line that writes each item's mean, keyed
    as the table's ids, and the ``bacon doctor`` that joins it onto ``table``.

    Raises
    ------
    ValidationError
        ``path`` is a survey export (:func:`read_survey`).
    """
    import shlex

    from bacon_bayes.errors import ValidationError

    survey = read_survey(path)
    if survey is None:
        return
    said = "; ".join(f"{what}: {text}" for what, text in _found(survey))
    head = f"labels file {str(path)!r} is a {survey.tool} survey export ({_layout(survey)}; "
    if not survey.answers:
        raise ValidationError(f"{head}{said}): {_no_items(survey)}.")
    ids = survey.frame[survey.item] if survey.item is not None else pd.Series(survey.ids)
    key, hits = _id_column(ids[survey.keep] if survey.item else ids, frame, item)
    found = set(id_text(ids.dropna()))
    match = (
        f"{hits} of its {len(found)} item ids are in the table's column {key!r}"
        if hits
        else f"none of its {len(found)} item ids is the table's (e.g. {sorted(found)[0]!r})"
    )
    line, out, label = mean_line(survey, key)
    run = shlex.join(
        ["bacon", "doctor", str(table or "JUDGES.csv"), "--labels", out, "--label", label]
    )
    raise ValidationError(
        f"{head}{said}); {match}. Write each item's mean rating over its raters "
        f"(n_raters: how many), one row per item: {line}; then: {run}"
    )
