"""Arize Phoenix's span annotations given as a labels file (``--labels``): one row per
annotation, each with its ``annotator_kind`` (``HUMAN``, ``LLM``, ``CODE``), its name and
its result (``label``, ``score``, ``explanation``). The human labels are the ``score`` (else
the ``label`` read as numbers) of the ``HUMAN`` rows, one column per annotation name; the
rows of LLM judges and code are evaluations, no labels, left out and said.

Followed: ``phoenix.client``'s ``spans.get_span_annotations_dataframe`` saved as CSV (the
index ``span_id``; ``id``, ``annotation_name``, ``annotator_kind``, ``result.label``,
``result.score``, ``result.explanation``, ``metadata``, ``identifier``, ``source``,
``user_id``, ``created_at``, ``updated_at``) and the frame ``log_span_annotations_dataframe``
takes (``span_id`` or ``context.span_id``, ``name``, ``annotator_kind``, ``label``,
``score``, ``explanation``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.order import names_text
from bacon_bayes.words import level_map, mapping_text, read_numbers

#: the kinds of annotator Phoenix records (``DECISION`` and ``AGENT`` in its newer clients)
KINDS = frozenset({"HUMAN", "LLM", "CODE", "DECISION", "AGENT"})
#: the columns that name what an annotation is on, the first found the labels' id
_TARGETS = ("context.span_id", "span_id", "context.trace_id", "trace_id", "session_id")


def _column(frame: pd.DataFrame, *names: str) -> str | None:
    """The first of ``names`` that is a column of ``frame``, by name but for case."""
    low = {str(c).lower(): str(c) for c in frame.columns}
    return next((low[n] for n in names if n in low), None)


def kind_column(frame: pd.DataFrame) -> str | None:
    """The ``annotator_kind`` column of Phoenix's annotations (every filled cell one of
    :data:`KINDS`), else None."""
    kind = _column(frame, "annotator_kind", "annotatorkind")
    if kind is None:
        return None
    filled = frame[kind].dropna().astype(str).str.strip().str.upper()
    return kind if len(filled) and filled.isin(KINDS).all() else None


def human_labels(frame: pd.DataFrame, path: str | Path) -> pd.DataFrame:
    """``frame`` (the labels file ``path``) as labels: where it is Phoenix's annotations
    (:func:`kind_column`), one row per span (its id column as written), a column per
    annotation name of its HUMAN rows' ``score`` (else ``label`` read as numbers; several
    people's on one span averaged), what was read in ``attrs["read note"]``; any other
    frame as it is.

    Raises
    ------
    ValidationError
        No HUMAN row (the fix: the human annotations' export), no column of what the
        annotations are on, or a name's human labels that are neither numbers nor words
        read as such (the fix: a ``score`` on them).
    """
    kind = kind_column(frame)
    if kind is None:
        return frame
    name = str(path)
    kinds = frame[kind].astype(str).str.strip().str.upper()
    counts = kinds.value_counts()
    seen = ", ".join(f"{k} {n}" for k, n in counts.items())
    human = kinds.eq("HUMAN")
    if not human.any():
        raise ValidationError(
            f"labels file {name!r} is Arize Phoenix's annotations whose column {kind!r} has no "
            f"HUMAN row ({seen}): LLM and CODE annotations are evaluations, judges, no human "
            "labels; add them to the table as judge columns, and pass as --labels the "
            "annotations people made (annotator_kind HUMAN)."
        )
    target = _column(frame, *_TARGETS)
    if target is None:
        raise ValidationError(
            f"labels file {name!r} is Arize Phoenix's annotations (column {kind!r}) without "
            f"the span each is on: give it a column {_TARGETS[1]!r} (the spans' "
            "'context.span_id')."
        )
    named = _column(frame, "annotation_name", "name")
    score = _column(frame, "result.score", "score")
    words = _column(frame, "result.label", "label")
    rows = frame[human.to_numpy()]
    names = ["human"] if named is None else sorted(rows[named].dropna().astype(str).unique())
    columns, said = {}, []
    for each in names:
        part = rows if named is None else rows[rows[named].astype(str).eq(each)]
        values, how = _values(part, score, words, name, each)
        columns[each] = values.groupby(part[target].astype(str).to_numpy()).mean()
        several = int((part[target].astype(str).value_counts() > 1).sum())
        said.append(
            f"{each!r}: the {len(part)} HUMAN rows' {how}"
            + f", the mean of several people's on {several} span(s)" * bool(several)
        )
    out = pd.DataFrame(columns).rename_axis(target).reset_index()
    others = int((~human).sum())
    seen = ", ".join(f"{k} {n}" for k, n in counts.items() if k != "HUMAN")
    out.attrs["read note"] = (
        f"labels file {name!r}: Arize Phoenix's annotations, the human labels "
        f"{'; '.join(said)}"
        + f"; its {others} rows of other annotators ({seen}: evaluations, judges) left out"
        * bool(others)
    )
    out.attrs["left out"] = [
        f"{c!r} of Arize Phoenix's annotations holds every annotator's; the HUMAN rows' are "
        f"the column{'s' * (len(names) > 1)} {names_text(map(repr, names))}: pass --label "
        + " or --label ".join(names)
        for c in (score, words)
        if c is not None
    ]
    return out


def _values(
    part: pd.DataFrame, score: str | None, words: str | None, path: str, each: str
) -> tuple[pd.Series, str]:
    """The human labels of the annotation ``each`` (its HUMAN rows ``part``): their
    ``score``, else their ``label`` read as numbers, and which, in words."""
    if score is not None and (values := pd.to_numeric(part[score], errors="coerce")).notna().any():
        return values, f"column {score!r}"
    if words is not None and part[words].notna().any():
        values, read = read_numbers(part[words])
        if values.notna().sum() == part[words].notna().sum():  # read_table's words too
            said = read[1] if read else part.attrs.get("verdicts", {}).get(words)
            return values, f"column {words!r}" + (f" ({said})" if said else "")
        kinds = ", ".join(map(repr, part[words].dropna().astype(str).unique()[:4]))
        raise ValidationError(
            f"labels file {path!r}: Arize Phoenix's annotation {each!r} has HUMAN labels in "
            f"column {words!r} ({kinds}) that are not numbers, and no score: give the "
            "annotation a score in Phoenix (its annotation config's values), or write them "
            f"as its score{_score_line(path, part[words], score, words)}."
        )
    raise ValidationError(
        f"labels file {path!r}: Arize Phoenix's annotation {each!r} has HUMAN rows without a "
        f"score or label (columns {score!r}, {words!r}): export the annotations with "
        "their results."
    )


def _score_line(path: str, words: pd.Series, score: str | None, column: str) -> str:
    """The line that writes the labels file ``path`` with the words ``words`` of its
    ``column`` as the ``score`` their rows lack (its column ``score``, else a new one; a
    map proposed in the scale's order: to check), and the ``--labels`` file it writes;
    ``""`` where no map is proposed."""
    from bacon_bayes.csv_format import pandas_command, pandas_read
    from bacon_bayes.outputs import unused_name
    from bacon_bayes.readers.labels_unused import table_stem

    levels, stem = level_map(words), table_stem(path)
    if levels is None or stem is None:
        return ""
    out = unused_name(f"{stem}_scores")
    mapped = f"df[{column!r}].map({{{mapping_text(levels[1])}}})"
    filled = mapped if score is None else f"df[{score!r}].fillna({mapped})"
    line = pandas_command(
        f"df = {pandas_read(path)}; df[{score or 'score'!r}] = {filled}; "
        f"df.to_csv({out!r}, index=False)"
    )
    return f" ({levels[2]}; check the map): {line}, then pass --labels {out}"
