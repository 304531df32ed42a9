"""Which column of a table plays which part: id, label, judges, group, prompt, texts.

Each finding comes with the reason it was made, so ``bacon doctor`` can say why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.doctor.cells import (
    COMMAS,
    COMMAS_FIX,
    FAILED,
    JUDGE_CELLS_FIX,
    LABEL_CELLS_FIX,
    MOST_FAILURES,
    POINTS_FIX,
    SCORE_UNITS,
    SPELLING_FIX,
    UNITS,
    WORDS,
    case_variants,
    decimal_commas,
    doctor_again,
    emptied_line,
    failure_texts,
    is_str,
    letter_columns,
    listed_cells,
    numeric,
    one_spelling_line,
    points_line,
    text_cells,
    unit_cells,
    unused_strings,
)
from bacon_bayes.doctor.codes import (
    crossed_codes,
    group_codes,
    integers,
    row_number,
    tracks_scores,
    whole_numbers,
)
from bacon_bayes.doctor.exports import ANYWAY, JUDGE_OWN, tool_judges
from bacon_bayes.doctor.label import DENSE, choose_label, partial_judge, wave_column
from bacon_bayes.doctor.long import find_long, scores_table
from bacon_bayes.doctor.names import (
    GROUP_HINT,
    GROUP_NAME,
    HUMAN_PROTOCOL,
    ID_LIKE,
    ID_NAMES,
    JUDGE_NAME,
    LABEL_HINT,
    PROMPT_HINT,
    PROMPT_ID,
    RESPONSE_HINT,
    aspect_ratings,
    not_judge_name,
    other_aspects,
    rated_name,
    response_of,
)
from bacon_bayes.doctor.relation import (
    copy_of_label,
    coverage_split,
    flat_on_labels,
    label_rho,
    near_copy,
    split_judges,
    weak_relation,
)
from bacon_bayes.doctor.scores import row_blocks, timestamp_like
from bacon_bayes.doctor.strings import (
    MAX_GROUPS,
    TEXT_CHARS,
    categorical,
    is_code,
    several_words,
    text_width,
)
from bacon_bayes.errors import ValidationError
from bacon_bayes.letters import LETTER_LABELS
from bacon_bayes.readers import TableMeta
from bacon_bayes.words import as_numbers, packed_cells, word_levels

#: a numeric prompt column has about one row per prompt and group (at most this many)
ROWS_PER_PROMPT_GROUP = 3
#: a string prompt column may repeat a prompt per group (repeated samples), up to this
#: many rows on average; more, and it is a category (a domain, a task type), not a prompt
ROWS_PER_PROMPT_GROUP_STRINGS = 10
#: a category of fewer values than this is never offered as the prompt (Likert levels)
FEW_PROMPTS = 10
#: a judge scored on fewer rows than this share is not called dense (a column on half the
#: rows is kept as a judge, its missing scores imputed, but is not dense)
MOSTLY = 0.9


@dataclass
class Roles:
    """The columns found, each role with its reason.

    Attributes
    ----------
    item, label, group, prompt, response : str or None
        The id, human-label, group, prompt and response-text columns.
    judges : list of str
        Judge score columns.
    text : list of str
        Text columns (the response first).
    reasons : dict
        Role (or ``judge:NAME``) -> why that column was taken.
    left_out : dict
        Column -> why it plays no part.
    long : str or None
        What to do when the table is long (a column names the judge of each row, one
        score column): pivot it to one row per item, one column per judge; ``long_key``:
        the columns that key its items.
    label_cells : str
        When the label column holds labels but for cells of other text (``unsure``), so
        none was taken: the column, its cells and the fix (``""`` otherwise).
    failed_fix : str
        The shell line that empties the failure cells (``error``) of columns of scores
        left out for them, and the doctor to run then (``""``: none, or no file to read).
    raters : str
        When other columns rate the items the label rates (``rater 1``, ``rater 2``):
        who, their agreement, and how to take their mean as the label (``""`` otherwise).
    wave : str or None
        The column of each label's wave (``--wave``), when one is named so.
    """

    item: str | None = None
    label: str | None = None
    judges: list[str] = field(default_factory=list)
    group: str | None = None
    prompt: str | None = None
    text: list[str] = field(default_factory=list)
    response: str | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    long: str | None = None
    long_key: list[str] = field(default_factory=list)
    label_cells: str = ""
    failed_fix: str = ""
    raters: str = ""
    wave: str | None = None


#: Formats whose id column the reader guesses by its name only (no format of an eval tool)
GENERIC_FORMATS = ("jsonl", "json")


def _find_item(
    frame: pd.DataFrame, meta: TableMeta, given: str | None, roles: Roles, joined: bool = False
) -> None:
    # a JSON (Lines) file's id is the reader's guess by name: checked as a CSV's column is
    generic = meta.format in GENERIC_FORMATS
    if given or (meta.item and not generic):
        roles.item = given or meta.item
        roles.reasons["id"] = (
            "the labels file is joined on it (it holds every id of the labels file)"
            if given and joined
            else "--item"
            if given
            else f"the id of the {meta.format} format"
        )
        return
    unique = [c for c in frame.columns if frame[c].notna().all() and frame[c].is_unique]
    unique = [c for c in unique if is_str(frame[c]) or whole_numbers(frame[c])]
    named = [c for c in unique if str(c).lower() in ID_NAMES]
    unique = [c for c in unique if not several_words(frame[c])]  # distinct texts are no ids
    pick = (named or unique or [None])[0]
    if pick is not None:
        roles.item = str(pick)
        why = "named like an id, " if named else ""
        floats = pd.api.types.is_float_dtype(frame[pick])
        written = "; whole numbers written as 1.0, 2.0, ... (ids compare as 1, 2)" if floats else ""
        roles.reasons["id"] = f"{why}every value distinct ({len(frame)} rows){written}"


def _find_judges(
    frame: pd.DataFrame, meta: TableMeta, given: list[str] | None, roles: Roles
) -> None:
    label = frame[roles.label].astype(float) if roles.label else None
    numbers: dict[Any, Any] = {}  # the columns as numbers, for every judge's _others
    if given:
        for j in given:
            _need(frame, j, "--judge")
            num = numeric(frame[j])
            if num is None and (cells := text_cells(frame, j, meta.format)):
                raise ValidationError(
                    f"--judge {j!r} holds scores but for {cells}: a judge's failures? "
                    f"{JUDGE_CELLS_FIX.capitalize()} and run again"
                )
            if num is None and (packed := packed_cells(frame[j], j)):
                raise ValidationError(f"--judge {j!r} is not numeric: it holds {packed}")
            if num is None:
                raise ValidationError(
                    f"--judge {j!r} is not numeric (e.g. {frame[j].dropna().iloc[0]!r}); "
                    "a judge column holds scores"
                )
            if num.isna().all():  # bacon estimate refuses a judge without a score
                roles.left_out[j] = "--judge, but empty (no score at all): left out of the command"
                continue
            roles.judges.append(j)
            flat = flat_on_labels(num, label)
            copy = copy_of_label(num, label) or near_copy(
                num, label, _others(frame, j, roles, numbers)
            )
            roles.reasons[f"judge:{j}"] = "--judge" + (
                f"; {flat}"
                if flat
                else f"; {copy}; with it as a judge, the intervals claim a certainty they "
                "do not have"
                if copy
                else ""
            )
        return
    if meta.judges:
        for j in meta.judges:
            roles.judges.append(j)
            kind = meta.judge_kinds.get(j, "a score")
            roles.reasons[f"judge:{j}"] = f"{kind} of the {meta.format} file"
        for c in meta.other_scores:
            roles.left_out[c] = "a score that is not model-graded (pass --judge to use it)"
        return
    taken = (roles.item, roles.label, roles.group, roles.prompt)
    rated = aspect_ratings([str(c) for c in frame.columns])
    for c in frame.columns:
        c = str(c)
        num = numeric(frame[c])
        if num is None or c in taken or c in roles.left_out:
            continue
        share = float(num.notna().mean())
        if share == 0:
            roles.left_out[c] = "empty (no value on any row)"
        elif share < DENSE and not (
            label is not None
            and roles.label
            and partial_judge(num, label, roles.label, c)
            and coverage_split(num.notna().to_numpy(), label.notna().to_numpy()) is None
        ):
            roles.left_out[c] = f"numeric but sparse ({share:.0%} of rows){ANYWAY}"
        elif LABEL_HINT.search(c) or HUMAN_PROTOCOL.match(c):
            roles.left_out[c] = "numeric and dense, but named like a human rating"
        elif c in rated:
            roles.left_out[c] = (
                f"numeric and dense, but named as an aspect the judges score ({rated[c]}): a "
                f"human rating of {c}, a label rather than a judge (--label {c} for its "
                f"mean){ANYWAY}"
            )
        elif named := not_judge_name(c, frame.columns):
            roles.left_out[c] = f"numeric, but {named}{ANYWAY}"
        elif when := timestamp_like(num):
            roles.left_out[c] = f"numeric, but {when}{ANYWAY}"
        elif PROMPT_ID.search(c) and integers(num):
            roles.left_out[c] = "numeric, but named like a prompt id (pass --prompt to use it)"
        elif GROUP_NAME.match(c) and integers(num):
            roles.left_out[c] = "whole numbers, but named like a group (pass --group to use it)"
        elif ID_LIKE.search(c) or c.strip().lower() in ID_NAMES:  # 'item': a long
            # table's repeated item numbers were read as its one judge
            roles.left_out[c] = "numeric, but named like an id"
        elif num.nunique() < 2:
            roles.left_out[c] = "numeric but constant"
        elif row_number(num):
            roles.left_out[c] = "numeric, a row number (0, 1, 2, ...)"
        elif blocks := row_blocks(num, c):
            roles.left_out[c] = f"numeric, but {blocks}{ANYWAY}"
        elif flat := flat_on_labels(num, label):
            roles.left_out[c] = f"numeric and dense, but {flat} (pass --judge to use it anyway)"
        elif copy := copy_of_label(num, label) or near_copy(
            num, label, _others(frame, c, roles, numbers)
        ):
            roles.left_out[c] = (
                f"numeric and dense, but {copy}; left out of the judges and the command "
                "(pass --judge to use it anyway)"
            )
        else:
            rho, weak = label_rho(num, label), weak_relation(num, label)
            if weak and weak[1]:
                roles.left_out[c] = f"numeric and dense, but {weak[0]}"
                continue
            roles.judges.append(c)
            dense = "numeric and dense" if share >= MOSTLY else "numeric"
            why = f"{dense} ({np.floor(share * 100):.0f}% of rows scored)"  # 99%, not 100%
            if share < DENSE:  # a judge run on part of the items
                why += ": a judge that scored part of the items (estimate imputes the rest)"
            why += f", {weak[0]}" if weak else ""
            why += f", Spearman {rho:.2f} with the label" if rho is not None and not weak else ""
            roles.reasons[f"judge:{c}"] = why
    for j, why in other_aspects(roles.label, roles.judges, [str(c) for c in frame.columns]).items():
        roles.judges.remove(j)
        roles.reasons.pop(f"judge:{j}", None)
        roles.left_out[j] = f"numeric and dense, but {why} (pass --judge to use it anyway)"


def _others(
    frame: pd.DataFrame, column: str, roles: Roles, numbers: dict[Any, Any] | None = None
) -> pd.DataFrame:
    """The numeric columns of ``frame`` but ``column``, the label and the id (what a
    near copy of the label may be elsewhere: :func:`near_copy`); ``numbers``: every
    column as :func:`numeric` reads it, filled on the first call and reused by the next
    (one read of each column, not one per judge: 36 judges of 110 columns took 1.7 s)."""
    numbers = {} if numbers is None else numbers
    if not numbers:
        numbers.update({c: numeric(frame[c]) for c in frame.columns})
    skip = {column, roles.label, roles.item}
    keep = [c for c in frame.columns if c not in skip and numbers[c] is not None]
    return pd.DataFrame({c: numbers[c] for c in keep}, index=frame.index)


def _need(frame: pd.DataFrame, column: str, option: str) -> None:
    if column not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:12]))
        raise ValidationError(
            f"{option} {column!r} is not a column of the table (columns: {shown}); pass one "
            "of those"
        )


def _find_failed_scores(
    frame: pd.DataFrame, meta: TableMeta, given: list[str] | None, roles: Roles,
    read: str | None = None, file: str | None = None,
) -> None:  # fmt: skip
    """Leave out, with the cells and the fix, string columns of scores but for a few text
    cells: taken as strings they would pass for a group, prompt or category. With the
    file's pandas call ``read`` and its ``file``, the fix of a judge's failure cells is
    the line that empties them (:func:`~bacon_bayes.doctor.cells.emptied_line`)."""
    failed: dict[str, list[str]] = {}
    points = "semicolon-separated" in str(frame.attrs.get("read as", ""))  # decimal points
    # labels written as words: the line that maps them to numbers, and doctor on its file
    mapped = None if read is None or file is None else partial(doctor_again, read, file, "levels")
    # a JSON file's lists and objects: read as bacon reads it (pandas flattens no objects)
    unpack = None if file is None else partial(doctor_again, read or f"read_any({file!r})[0]", file)
    for c in frame.columns:
        if c in (roles.item, roles.label) or c in (given or ()):
            continue
        if roles.left_out.get(str(c), "").startswith(JUDGE_OWN):  # Phoenix's verdict words
            continue
        rated = roles.label is None and (frame[c].notna().mean() < DENSE or rated_name(str(c)))
        if is_str(frame[c]) and (packed := packed_cells(frame[c], str(c), unpack, rated)):
            if rated and "ratings of an item" in packed:  # the labels, several to a cell
                roles.reasons["label"] = f"none: {str(c)!r} holds several ratings a cell (below)"
                roles.label_cells = f"the label column {str(c)!r} holds {packed}"
            roles.left_out[str(c)] = f"{packed}; left out of the judges and the command until then"
            continue
        cells = text_cells(frame, c, meta.format)
        units = None if cells else unit_cells(frame[c])
        label_like = frame[c].notna().mean() < DENSE or LABEL_HINT.search(str(c))  # sparse
        if units and not (label_like and roles.label is None):
            roles.left_out[str(c)] = f"{SCORE_UNITS} {units}, and run again"
            continue
        if units and label_like:
            roles.left_out[str(c)] = f"{UNITS} {units}, and run again"
            roles.reasons["label"] = f"none: {str(c)!r} holds {UNITS} (below)"
            roles.label_cells = f"the label column {str(c)!r} holds {UNITS} {units}, and run again"
        levels = None if cells or units else word_levels(frame[c], mapped)
        if levels and label_like and roles.label is None:
            again = "" if mapped else ", and run again"  # the line runs doctor again
            roles.left_out[str(c)] = f"{WORDS} {levels[0]}: {levels[1]}{again}"
            roles.reasons["label"] = f"none: {str(c)!r} holds {WORDS} words (below)"
            roles.label_cells = (
                f"the label column {str(c)!r} holds {WORDS} {levels[0]}: {levels[1]}{again}"
            )
            continue
        commas = None if cells or units else decimal_commas(frame[c], points)
        # in a semicolon file of decimal points, this column's commas: written as points
        line = points_line(read, file, str(c)) if commas and points else None
        if commas and roles.label is None and label_like:
            fix = f"{POINTS_FIX}: {line}" if line else f"{COMMAS_FIX}, and run again"
            roles.left_out[str(c)] = f"{COMMAS} {commas}: labels? Not taken as the label; {fix}"
            roles.reasons["label"] = f"none: {str(c)!r} holds {COMMAS} (below)"
            roles.label_cells = f"the label column {str(c)!r} holds {COMMAS} {commas}: {fix}"
        elif commas:
            fix = f"{POINTS_FIX}: {line}" if line else f"{COMMAS_FIX} to use the column"
            roles.left_out[str(c)] = f"{COMMAS} {commas}: {fix}"
        if not cells:
            continue
        sparse = float(as_numbers(frame[c]).notna().mean()) < DENSE  # '-' is no value
        if roles.label is None and (sparse or LABEL_HINT.search(str(c))):
            roles.left_out[str(c)] = (
                f"{FAILED} {cells}: labels? Not taken as the label; {LABEL_CELLS_FIX}, and run "
                "again"
            )
            roles.reasons["label"] = f"none: {str(c)!r} holds labels but for text cells (below)"
            listed = listed_cells(frame, str(c), meta.format)
            roles.label_cells = (
                f"the label column {str(c)!r} holds labels but for {listed}: "
                f"{LABEL_CELLS_FIX}, and run again"
            )
            if len(texts := failure_texts(frame[c])) <= MOST_FAILURES:
                failed[str(c)] = texts  # emptied by the judges' failures' line too
        else:
            roles.left_out[str(c)] = (
                f"{FAILED} {cells}: a judge's failures? Not taken as a judge; "
                f"{JUDGE_CELLS_FIX} and run again"
            )
            failed[str(c)] = failure_texts(frame[c])
    if failed and read is not None and file is not None:
        roles.failed_fix = emptied_line(read, file, failed) or ""
    for c in failed if roles.failed_fix else ():
        said = roles.left_out[c].removesuffix(" and run again").removesuffix(",")
        roles.left_out[c] = f"{said}: {roles.failed_fix}"
        if roles.label_cells.startswith(f"the label column {c!r}"):
            said = roles.label_cells.removesuffix(", and run again")
            roles.label_cells = f"{said}: {roles.failed_fix}"


def _take(frame: pd.DataFrame, given: str | None, role: str, roles: Roles) -> bool:
    """Take the column the user named for ``role`` (group or prompt); False without one."""
    if given is None:
        return False
    _need(frame, given, f"--{role}")
    setattr(roles, role, given)
    roles.reasons[role] = f"--{role}: {frame[given].nunique()} distinct values"
    return True


def _find_group(frame: pd.DataFrame, meta: TableMeta, given: str | None, roles: Roles) -> None:
    n = len(frame)
    if _take(frame, given, "group", roles):
        return
    if meta.group and meta.group in frame.columns:
        roles.group = meta.group
        roles.reasons["group"] = f"the {meta.format} file's {meta.group}"
        return
    cands = []
    taken = (roles.item, roles.label)
    crossed = crossed_codes(frame, taken, MAX_GROUPS) if not roles.long else {}
    for c in categorical(frame, roles) + group_codes(frame, taken) + list(crossed):
        if roles.long and JUDGE_NAME.search(c):
            continue  # names the judge of each row, not the items' group
        if c in meta.text and meta.format not in GENERIC_FORMATS:
            continue  # a log's responses, a few short ones repeated: no group
        counts = frame[c].value_counts()
        if 2 <= len(counts) <= min(MAX_GROUPS, n // 2) and counts.min() >= 2:
            cands.append(c)
    cands.sort(key=lambda c: (not GROUP_HINT.search(c), c in crossed, frame[c].nunique()))
    if cands:
        roles.group = cands[0]
        k = frame[roles.group].nunique()
        kind = "strings" if is_str(frame[roles.group]) else "integers, named like a group"
        roles.reasons["group"] = f"{k} distinct {kind}, each repeated (about {n // k} rows each)"
        if roles.group in crossed:
            roles.reasons["group"] = (
                f"{k} distinct integers, each on about {n // k} rows and on a row with every "
                f"value of {crossed[roles.group]!r}: a system or model id, though not named "
                "like one (a score? pass it with --judge)"
            )


def _prompt_candidates(frame: pd.DataFrame, roles: Roles) -> list[tuple[str, bool]]:
    """Columns that may hold the prompt: strings, and numeric columns of whole numbers
    (each with whether it is numeric)."""
    out = [(c, False) for c in categorical(frame, roles) if c != roles.group]
    for c in frame.columns:
        c = str(c)
        num = numeric(frame[c])
        if c in (roles.item, roles.label, roles.group) or num is None:
            continue
        if pd.api.types.is_bool_dtype(frame[c]) or num.isna().any() or not integers(num):
            continue
        out += [(c, True)] * (not tracks_scores(frame, c, (roles.item, roles.group)))
    return out


def _in_blocks(pairs: pd.DataFrame, k: int) -> bool:
    """Whether the ``k`` values (first column) fall in a few blocks, each answered by the
    same groups (second column): a prompt nested in a part of the group (WMT's segments,
    each of one domain, with ``system|domain`` the group)."""
    value, group = pairs.columns
    sets = pairs.groupby(value, observed=True)[group].apply(frozenset)
    return sets.nunique() <= max(1, k // 10)


def _find_prompt(frame: pd.DataFrame, meta: TableMeta, given: str | None, roles: Roles) -> None:
    n = len(frame)
    if _take(frame, given, "prompt", roles) or roles.group is None:
        return
    if meta.prompt and meta.prompt in frame.columns:
        roles.prompt = meta.prompt
        roles.reasons["prompt"] = f"the {meta.format} file's test case, answered by every group"
        return
    best: tuple[float, str, bool] | None = None
    for c, in_numbers in _prompt_candidates(frame, roles):
        k = frame[c].nunique()
        if k < 2 or k > n // 2:
            continue
        shared = frame.groupby(c, observed=True)[roles.group].nunique()
        share = float((shared >= 2).mean())
        # a judge's levels are shared by groups too, but each by many of a group's rows (or
        # by a few groups only): a prompt is answered by most groups, about once by each
        groups = frame[roles.group].nunique()
        per = n / shared.sum()
        few = shared.mean() < 0.8 * groups and not _in_blocks(frame[[c, roles.group]], k)
        if in_numbers and (per > ROWS_PER_PROMPT_GROUP or few):
            continue
        if not in_numbers and per > ROWS_PER_PROMPT_GROUP_STRINGS:
            if share >= 0.8:  # shared by the groups, but many rows of each: say why not
                ids = k >= FEW_PROMPTS and as_numbers(frame[c]).notna().mean() < 0.5  # no scores
                hint = " (pass --prompt to use it)" if ids else ""
                roles.left_out[c] = (
                    f"{k} distinct strings shared by the {roles.group} values, but about "
                    f"{per:.0f} rows per value and {roles.group}: a category, not a prompt{hint}"
                )
            continue
        # the finer of two shared columns: a prompt is answered about once by each group
        # (WMT22's seg_id, one row a system, over its doc, about 15)
        key = share + (0.01 if PROMPT_HINT.search(c) else 0.0) - 0.02 * float(np.log(max(per, 1.0)))
        if share >= 0.8 and (best is None or key > best[0]):
            best = (key, c, in_numbers)
    if best is not None:
        _, roles.prompt, in_numbers = best
        k = frame[roles.prompt].nunique()
        kind = "numbers" if in_numbers else "strings"
        roles.reasons["prompt"] = (
            f"{k} distinct {kind}, each shared by items of several {roles.group} values"
        )


def _find_text(frame: pd.DataFrame, meta: TableMeta, roles: Roles) -> None:
    taken = {roles.group, roles.prompt}
    if meta.text:
        roles.text = [c for c in meta.text if c in frame.columns]
        for c in roles.text:
            roles.reasons[f"text:{c}"] = f"the {meta.format} file's {c} text"
    else:
        for c in categorical(frame, roles):
            if c in taken:
                continue
            chars = float(frame[c].dropna().astype(str).str.len().mean())
            width = text_width(frame[c])
            if width >= TEXT_CHARS and not is_code(frame[c]):
                roles.text.append(c)
                wide = f" ({width:.0f} with wide characters counted twice)"
                wide = wide if f"{width:.0f}" != f"{chars:.0f}" else ""
                roles.reasons[f"text:{c}"] = f"strings of {chars:.0f} characters on average{wide}"
            elif RESPONSE_HINT.search(c) and frame[c].nunique() > len(frame) // 2:
                roles.text.append(c)
                roles.reasons[f"text:{c}"] = (
                    f"named like a response, mostly distinct short strings ({chars:.0f} "
                    "characters on average)"
                )
    if meta.response and meta.response in roles.text:
        roles.response = meta.response
    elif roles.text:
        roles.response = response_of(roles.text)
    if roles.response:
        roles.text = [roles.response, *[c for c in roles.text if c != roles.response]]


def find_roles(
    frame: pd.DataFrame,
    meta: TableMeta,
    *,
    label: str | None = None,
    item: str | None = None,
    labels_joined: bool = False,
    judges: list[str] | None = None,
    group: str | None = None,
    prompt: str | None = None,
    item_joined: bool = False,
    read: str | None = None,
    file: str | None = None,
) -> Roles:
    """Find the id, label, judge, group, prompt and text columns of ``frame``.

    Parameters
    ----------
    frame : DataFrame
        The table (one row per item), as :func:`bacon_bayes.readers.read_any` reads it.
    meta : TableMeta
        What the reader knows (an Inspect log's judges, a promptfoo file's group ...).
    label, item : str, optional
        The label and id columns when the user named them (``--label``, ``--item``).
    labels_joined : bool
        Whether the label column came from a ``--labels`` file.
    item_joined : bool
        Whether ``item`` is the column the labels file was joined on, found rather than
        named by the user.
    judges, group, prompt : optional
        The judge columns, group and prompt column when the user named them (``--judge``,
        ``--group``, ``--prompt``): taken as given.
    read : str, optional
        The pandas call that reads the file, for a long table's pivot recipe
        (:func:`~bacon_bayes.doctor.long.pivot_recipe`).
    file : str, optional
        The file read by ``read``, for the line that writes a group's names one way.

    Returns
    -------
    Roles
        The columns found and why.
    """
    roles = Roles()
    _find_item(frame, meta, item, roles, item_joined)
    again = None if read is None or file is None else partial(doctor_again, read, file)
    found = choose_label(frame, meta.format, label, labels_joined, roles.item, again)
    roles.label, roles.left_out = found.label, {**roles.left_out, **found.left_out}
    if found.reason:
        roles.reasons["label"] = found.reason
    roles.raters = found.raters
    if wave := wave_column(frame, roles.label, roles.item):  # each label's wave (look)
        roles.wave, roles.reasons["wave"] = wave
    _find_failed_scores(frame, meta, judges, roles, read, file)
    skip = [c for c in (roles.item, group, prompt, *(judges or ()), *roles.left_out) if c]
    for col, why in letter_columns(frame, roles.label, skip, file, read).items():
        roles.left_out[col] = why
        if why.startswith(LETTER_LABELS):  # a person's grades, A-E
            roles.reasons["label"] = f"none: {col!r} holds {LETTER_LABELS} (below)"
            roles.label_cells = f"the label column {col!r} holds {why}"
    if not meta.judges and not judges and scores_table(frame, roles, read):
        return roles  # bacon judge's own table: read by --scores, or pivoted
    if not meta.judges and not judges:
        roles.long = find_long(frame, roles, meta.format, read)
    _find_group(frame, meta, group, roles)
    _find_prompt(frame, meta, prompt, roles)
    for c in (roles.group, roles.prompt):  # a long table's key may be the group too
        roles.left_out.pop(c or "", None)
    for role in ("group", "prompt"):
        if (c := getattr(roles, role)) and (spellings := case_variants(frame[c])):
            fix = SPELLING_FIX  # a file pandas reads: the line that writes it so
            if read is not None and file is not None:
                fix = f"write each name one way ({one_spelling_line(file, [c], role + 's')})"
            roles.reasons[role] += f"; names written several ways ({spellings}): {fix}"
    _find_judges(frame, meta, judges, roles)
    tool_judges(frame, roles, again)  # Phoenix's verdict, RAGAS's metrics: said for what
    for j, split in split_judges(frame, roles.judges, again).items():  # one judge renamed mid-run
        roles.reasons[f"judge:{j}"] += f"; {split}"
    _find_text(frame, meta, roles)
    for col, words in frame.attrs.get("verdicts", {}).items():  # words.bools_as_floats
        key = "label" if col == roles.label else f"judge:{col}"
        if key in roles.reasons:
            roles.reasons[key] += f"; {words}"
    named = {roles.item: "id", roles.group: "group", roles.prompt: "prompt"}
    for col, kept in frame.attrs.get("kept words", {}).items():  # io.read_table: NA, None
        if (key := named.get(col, f"text:{col}")) in roles.reasons:
            roles.reasons[key] += f"; {kept}"
    if roles.item is None:
        roles.reasons["id"] = _no_id(frame, roles)
    roles.left_out.pop(roles.reasons.get("long", ""), None)  # the long table's judge names
    roles.left_out.pop(roles.wave or "", None)
    _say_the_rest(frame, roles)
    return roles


def _say_the_rest(frame: pd.DataFrame, roles: Roles) -> None:
    """Every column that plays no part and has no reason yet (strings that are no group,
    prompt or text; numbers when the judges are given) gets one: no column is passed
    over without a word."""
    used = {roles.item, roles.label, roles.group, roles.prompt, roles.wave, *roles.judges}
    used |= set(roles.text)
    long = roles.reasons.get("long")
    for c in map(str, frame.columns):
        if c in used or c in roles.left_out or c == long:
            continue
        filled = frame[c].dropna().astype(str)
        if filled.empty:
            roles.left_out[c] = "empty"
        elif numeric(frame[c]) is not None:
            roles.left_out[c] = "numeric, not taken as a judge (pass --judge to add it)"
        else:
            roles.left_out[c] = unused_strings(filled, MAX_GROUPS)


def response_column(frame: pd.DataFrame, meta: TableMeta | None = None, **known: Any) -> str | None:
    """The response text column :func:`find_roles` finds in ``frame`` (None: none);
    ``meta``: the file's, else a plain table's; ``known``: the roles already known, as
    :func:`find_roles` takes them."""
    return find_roles(frame, meta or TableMeta("csv"), **known).response


def _no_id(frame: pd.DataFrame, roles: Roles) -> str:
    """Why there is no id, and what ``bacon sample`` (which needs one) asks for."""
    why = (
        "none: rows are items by position (fine for bacon estimate; bacon sample and a "
        "study folder record items by id: add a column of unique ids"
    )
    pair = [c for c in (roles.group, roles.prompt) if c is not None]
    if len(pair) == 2 and not frame.duplicated(pair).any() and not frame[pair].isna().any().any():
        a, b = pair
        return f"{why}, e.g. {a} and {b} joined: each pair is one row)"
    return why + ")"
