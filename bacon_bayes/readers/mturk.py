"""An Amazon Mechanical Turk batch results file given to ``bacon doctor`` as the table:
raters' answers, one row per assignment (a worker's answers to a HIT), several workers per
item, not a table of judge scores. Said as such: its items (the HIT's ``Input.<id>``, else
``HITId``), its workers, its answers (the human labels), and the line that writes each
item's mean over its workers, to pass as ``--labels`` beside a table of judge scores.

Followed: MTurk's batch results CSV (``Batch_<id>_batch_results.csv``, as
:mod:`~bacon_bayes.readers.one_hot` reads it): ``HITId``, ``HITTypeId``,
``AssignmentId``, ``WorkerId``, ``AssignmentStatus``, ``WorkTimeInSeconds``..., the
HIT's inputs as ``Input.<name>`` and the answers as ``Answer.<name>``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pandas as pd

from bacon_bayes.outputs import unused_name
from bacon_bayes.readers import one_hot
from bacon_bayes.words import as_numbers

#: an input named like an item's id (``Input.item_id``, ``Input.id``, ``Input.doc_id``)
_ID = re.compile(r"^(id|uid|key|item)$|(^|[_ .-])(id|uid|key)$", re.IGNORECASE)
#: columns named at most in a line
SHOWN = 6


def is_batch(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` is an MTurk batch's results: ``HITId``, ``WorkerId`` and an
    ``Answer.<name>`` column."""
    columns = set(map(str, frame.columns))
    return {"HITId", "WorkerId"} <= columns and any(c.startswith("Answer.") for c in columns)


def item_column(frame: pd.DataFrame) -> str:
    """The column of a batch's items: the ``Input.<name>`` named like an id (the one of
    most distinct values among several: ``item_id`` beside ``doc_id``) with one value
    per HIT, else ``HITId``."""
    found = []
    for c in map(str, frame.columns):
        name = c.removeprefix("Input.")
        if c.startswith("Input.") and _ID.search(name) and frame[c].notna().all():
            if (frame.groupby("HITId")[c].nunique() <= 1).all():
                found.append(c)
    return max(found, key=lambda c: frame[c].nunique(), default="HITId")


def _names(columns: list[str]) -> str:
    shown = ", ".join(columns[:SHOWN])
    return shown + (f" and {len(columns) - SHOWN} more" if len(columns) > SHOWN else "")


def batch_text(frame: pd.DataFrame, path: str | Path) -> str:
    """What ``bacon doctor`` says of an MTurk batch's results read from ``path``
    (``""`` for another table).

    Returns
    -------
    str
        Its items (the column and how many), workers per item, rejected assignments, the
        answers that are numbers (the human labels) and those that are not, the other
        columns (the batch's bookkeeping, the HIT's inputs); then what to do: the line
        that writes each item's mean over its workers (rejected assignments left out;
        an answer written one-hot read as one rating), and the ``bacon doctor`` that
        joins it as ``--labels`` to a table of judge scores.
    """
    if not is_batch(frame):
        return ""
    item = item_column(frame)
    kept = frame
    if one_hot.rejected(frame):
        kept = frame[~frame[one_hot.STATUS].astype(str).str.strip().str.lower().eq("rejected")]
    groups = {b: p for b, p in one_hot.option_groups(frame).items() if b.startswith("Answer.")}
    in_groups = {c for pairs in groups.values() for c, _ in pairs}
    answers = [str(c) for c in frame.columns if str(c).startswith("Answer.")]
    numbers = [
        c
        for c in answers
        if c not in in_groups
        and as_numbers(frame[c]).notna().sum() * 2 > frame[c].notna().sum() > 0
    ]
    text = [c for c in answers if c not in in_groups and c not in numbers]
    workers = kept.groupby(item)["WorkerId"].nunique()
    spread = f"{workers.min()}-{workers.max()}" if workers.size else "0"
    spread = spread if workers.min() != workers.max() else f"{workers.min()}"
    whose = "the HIT's input" if item != "HITId" else "the HITs: no Input.<id> column"
    rows = [
        ("items", item, f"{frame[item].nunique()} items ({whose})"),
        ("raters", "WorkerId", f"{frame['WorkerId'].nunique()} workers, {spread} per item"),
    ]
    rows += [
        ("answer", c, "numbers: the workers' ratings, human labels (not a judge)") for c in numbers
    ]
    rows += [
        ("answer", b, f"written one-hot ({len(p)} options): one rating, human labels")
        for b, p in groups.items()
    ]
    if text:
        rows.append(("left out", _names(text), "answers that are no numbers (text, or empty)"))
    width = max(len(r[1]) for r in rows)
    lines = [
        f"bacon doctor: {path} (an Amazon MTurk batch's results, {len(frame)} rows)",
        "",
        "one row per assignment (a worker's answers to a HIT), several workers per item: "
        "raters' answers, the human labels, not a table of judge scores",
        *(f"  {r[0]:<9} {r[1]:<{width}} {r[2]}" for r in rows),
    ]
    rest = [str(c) for c in frame.columns if str(c) not in {item, "WorkerId", *answers}]
    if rest:
        lines.append(f"  left out  {_names(rest)}: the batch's bookkeeping and the HIT's inputs")
    if n := one_hot.rejected(frame):
        lines.append(f"  rejected  {n} of {len(frame)} assignments ({one_hot.STATUS} 'Rejected')")
    lines += ["", "what to do:", _what_to_do(frame, path, item, numbers, groups)]
    return "\n".join(lines)


def _what_to_do(
    frame: pd.DataFrame,
    path: str | Path,
    item: str,
    numbers: list[str],
    groups: dict[str, list[tuple[str, str]]],
) -> str:
    """The line that writes each item's mean of the answers ``numbers`` (else of the first
    one-hot answer of ``groups``) over its workers, and the doctor to run then."""
    from bacon_bayes.csv_format import pandas_command, pandas_read
    from bacon_bayes.readers.labels_unused import table_stem

    if not numbers and not groups:
        return (
            "  its answers hold no numbers: nothing to use as labels (a rating is an "
            "Answer.<name> column of numbers)"
        )
    stem = table_stem(path)
    if stem is None:
        return (
            "  write each item's mean answer over its workers, one row per item, and pass "
            "that file as --labels beside the table of judge scores"
        )
    label = numbers[0] if numbers else next(iter(groups))
    if numbers:
        out = unused_name(f"{stem}_mean")
        said = frame.attrs.get("verdicts", {})  # words read as numbers: as bacon reads them
        words = [c for c in numbers if c in said or not pd.api.types.is_numeric_dtype(frame[c])]
        read = (
            f"from bacon_bayes.words import as_numbers; lab[{words!r}] = "
            f"lab[{words!r}].apply(as_numbers); "
        )
        line = pandas_command(
            f"lab = {pandas_read(path)}; {read * bool(words)}{one_hot.keep_code(frame)}"
            f"lab.groupby({item!r}, as_index=False)[{numbers!r}].mean()"
            f".to_csv({out!r}, index=False)"
        )
        how = (
            f"  write each item's mean over its workers{one_hot.rejected_note(frame)}:\n  {line}\n"
        )
    else:
        said = one_hot.one_hot_line(path, frame, item, label, groups[label])
        out = shlex.split(said.rsplit("then pass --labels ", 1)[1])[0]  # the file it writes
        how = f"  {said}\n"
    others = numbers[1:]  # in the file the line writes too
    run = shlex.join(["bacon", "doctor", "JUDGES.csv", "--labels", out, "--label", label])
    return (
        how + "  then pass it as --labels beside your table of judge scores (JUDGES.csv: one row "
        f"per item, its ids those of {item}):\n  {run}"
        + (f"\n  (--label {' or '.join(others)} for another answer)" if others else "")
    )


def raters_hint(path: str | Path) -> str:
    """For ``bacon estimate`` (report, plan...) refusing a table without ``--label``: a
    sentence saying that ``path`` holds raters' answers, an MTurk batch's results or a
    survey tool's export (:mod:`~bacon_bayes.readers.surveys`), with the line that writes
    each item's mean over its raters and the doctor that joins it as ``--labels``, as
    ``bacon doctor`` prints them (``""`` for another file)."""
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.io import read_table
    from bacon_bayes.readers.surveys import survey_text

    try:
        said = survey_text(path)
        if not said and Path(path).is_file():
            said = batch_text(read_table(path), path)
    except (OSError, ValueError, ValidationError):
        return ""
    if not said:
        return ""
    what = said.split("\n", 1)[0].split(" (", 1)[1].split(",", 1)[0]  # an Amazon MTurk ...
    todo = ""
    for x in said.split("what to do:\n", 1)[1].splitlines():  # a line ending ':' leads in
        todo += ("" if not todo else " " if todo.endswith(":") else "; ") + x.strip()
    return (
        f" {Path(path).name} is {what}: raters' answers, the human labels, not a table of "
        f"judge scores (bacon doctor {Path(path).name} says more). {todo[:1].upper()}{todo[1:]}."
    )
