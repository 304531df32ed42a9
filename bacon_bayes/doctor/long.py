"""Long tables, one row per item and judge where bacon reads one row per item: telling
them (``bacon doctor`` from the table alone, :func:`find_long`; a command given the label
and judges, :func:`long_table`), the item x judge x run table ``bacon judge`` writes
(:func:`scores_table`), and the recipe that pivots them to one row per item
(:func:`pivot_recipe`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from bacon_bayes.csv_format import pandas_command, pandas_read
from bacon_bayes.doctor.cells import FAILED, is_str, numeric, read_line
from bacon_bayes.doctor.label import DENSE
from bacon_bayes.doctor.names import (
    ASPECT_WORDS,
    GROUP_HINT,
    ID_LIKE,
    ID_NAMES,
    JUDGE_NAME,
    PROMPT_HINT,
    PROMPT_ID,
    SCORE_NAME,
)
from bacon_bayes.doctor.rows import lines
from bacon_bayes.doctor.strings import (
    MAX_GROUPS,
    TEXT_CHARS,
    TEXT_SCORES,
    categorical,
    is_code,
    several_words,
    text_width,
)
from bacon_bayes.io import item_name
from bacon_bayes.outputs import unused_name

if TYPE_CHECKING:
    from bacon_bayes.doctor.roles import Roles

#: a long table's key holds the items with a few rows repeated when at most this share
#: of its rows repeat an item and judge (:func:`pivot_recipe`)
REPEATED_SHARE = 0.05
#: the most judges a long table's judge column holds (:func:`long_table`)
LONG_JUDGES = 50
#: a long table told by its shape: this share of its ids on exactly as many rows as a
#: column of strings has values, one row per value (:func:`_judge_by_shape`)
LONG_SHARE = 0.9


#: a long table's column naming the aspect each row rates (:func:`_aspect`)
ASPECT_NAME = re.compile(r"aspect|dimension|criteri|attribute|rubric", re.IGNORECASE)


def _aspect(frame: pd.DataFrame, keys: list[str], spec: list[str], label: str | None) -> str | None:
    """The column of ``spec`` (columns varying within an item of ``keys``, beside the
    judge's) that names the aspect each row rates (SummEval's ``dimension``: relevance,
    fluency...): named so (:data:`ASPECT_NAME`), holding aspects' names
    (:data:`~bacon_bayes.doctor.names.ASPECT_WORDS`), or the one the label follows (one
    label per item and value, where an item's rows differ); None where none does. Each
    aspect is a table of its own: the pivot would mix them into one item's judges."""
    for c in spec:
        values = frame[c].dropna().astype(str).str.strip().str.lower().unique()
        named = ASPECT_NAME.search(c) or (
            values.size and pd.Series(values).isin(ASPECT_WORDS).mean() >= 0.5
        )
        follows = label is not None and bool(
            (frame.groupby(keys)[label].nunique() > 1).any()
            and (frame.groupby([*keys, c])[label].nunique() <= 1).all()
        )
        if 2 <= values.size <= MAX_GROUPS and (named or follows):
            return c
    return None


#: a column numbering a judge's repeated runs on an item (bacon judge's ``run``)
RUN_NAME = re.compile(r"^(runs?|epochs?|repeats?|trials?|run_id|sample_idx)$", re.IGNORECASE)


def scores_table(frame: pd.DataFrame, roles: Roles, read: str | None = None) -> bool:
    """Whether ``frame`` is the long item x judge x run table ``bacon judge`` writes
    (columns ``item``, ``judge``, ``run``, ``score``, one row per item, judge and run),
    which ``bacon estimate --scores`` reads beside the items table; if so, ``roles`` says
    so: ``long`` what to do, the item column, and every other column's part. ``read``:
    the pandas call that reads the file (:func:`pivot_recipe`)."""
    core = ["item", "judge", "run", "score"]
    if not set(core) <= set(map(str, frame.columns)):
        return False
    if frame.duplicated(core[:3]).any() or not frame["item"].duplicated().any():
        return False
    items, k, runs = (int(frame[c].nunique()) for c in core[:3])
    roles.item, roles.reasons["id"] = "item", f"the items bacon judge scored ({items})"
    roles.reasons["long"], roles.long_key = "judge", ["item"]
    roles.left_out = {str(c): "a column of bacon judge's table (below)" for c in frame.columns}
    for c in ("item", "judge"):
        del roles.left_out[c]
    out = unused_name("wide")
    recipe = (
        "wide = df.pivot_table(index='item', columns='judge', values='score', "
        f"aggfunc='mean').reset_index(); wide.to_csv({out!r}, index=False)"
    )
    roles.long = (
        f"the long item x judge x run table bacon judge writes ({items} items, {k} judges, "
        f"{runs} run(s)): bacon estimate reads it as --scores beside the table of the items "
        "and their labels, e.g. bacon estimate ITEMS.csv --label COL --item ID --scores "
        "FILE (each judge's mean over runs, and their spread, as features); to look at "
        f"it here, pivot it to one row per item, {_pandas(recipe, read)} (the mean of "
        f"each judge's runs), and run bacon doctor on {out}"
    )
    return True


def _pandas(recipe: str, read: str | None) -> str:
    """``recipe`` (pandas statements on ``df``) as printed: with ``read`` (the call that
    reads the file) a shell line that runs as printed, else an example."""
    if read is None:
        return f"e.g. in pandas: {recipe}"
    return f"with pandas: {pandas_command(f'{read_line(read)}; {recipe}')}"


def _run_column(frame: pd.DataFrame, others: list[str], judge: list[str]) -> str | None:
    """The column numbering runs (:data:`RUN_NAME`) under which the rows of a long table
    repeat an item and judge; None when there is none."""
    return next(
        (c for c in others if RUN_NAME.match(c) and frame.duplicated([*judge, c]).any()), None
    )


#: the formats of JSON files of records, read for a printed line by bacon's ``read_any``
JSON = ("json", "jsonl")


def read_call(path: str | Path, kind: str) -> str | None:
    """The call that reads the table at ``path`` for a printed line: pandas'
    (:func:`~bacon_bayes.csv_format.pandas_read`), bacon's ``read_any`` for a JSON file of
    records (:data:`JSON`), or None for an eval harness's log or no such file."""
    if not Path(path).is_file() or kind not in ("csv", "tsv", "parquet", "xlsx", *JSON):
        return None
    return f"read_any({str(path)!r})[0]" if kind in JSON else pandas_read(path)


def pivot_recipe(
    frame: pd.DataFrame,
    judge: list[str],
    score: str,
    label: str | None,
    keys: list[str],
    kind: str = "csv",
    human: str | None = None,
    read: str | None = None,
    aspect: str | None = None,
) -> tuple[str, list[str]]:
    """How to pivot a long table (the ``judge`` columns name the judge of each row, e.g.
    model and method; ``score`` holds its score) to one row per item: keyed by the column
    holding one row per item and judge (an id named so first), else by ``keys`` when
    those do; the columns with one value per item (group, prompt, the label, which may
    sit on one of its rows only) joined back; ``pivot``, which refuses an item scored
    twice by a judge, where ``pivot_table`` averaged every item of a group into one row.
    A key that holds a few items twice for a judge (rows pasted twice, a judge run
    again: under :data:`REPEATED_SHARE` of the rows) still keys them: the repeated rows
    are named (``kind``: where, as :func:`lines` says) and the recipe drops them first.
    Keyed by several columns, the pivoted table gets an ``id`` of them (:func:`keyed_id`).
    ``human``: the judge name that is the human's (:func:`_human_rater`), whose column
    the pivot makes the label. ``read``: the pandas call that reads the file
    (:func:`~bacon_bayes.csv_format.pandas_read`), which makes the recipe a shell line
    that runs as printed. ``aspect``: the column naming the aspect each row rates
    (:func:`_aspect`): the recipe writes its first aspect's table, and says so. Returns
    the recipe and the columns that key the items (none: it says to add one)."""
    pick = ""
    if aspect is not None:  # one table per aspect: the first one's
        named = sorted(frame[aspect].dropna().unique(), key=str)
        pick = f"df = df[df[{aspect!r}] == {named[0]!r}]; "
        frame = frame[frame[aspect] == named[0]].drop(columns=[aspect])
    others = [str(c) for c in frame.columns if c not in (*judge, score)]
    run = _run_column(frame, others, judge)  # repeated runs: averaged by the pivot
    if run is not None:
        others.remove(run)
        frame = frame.drop_duplicates(
            [c for c in frame.columns if c not in (run, score)]
        )  # an item's rows of one judge: one per run, alike but for the run and score
    one = [
        c
        for c in others
        if c != label
        and frame[c].notna().all()
        and frame[c].nunique() < len(frame)
        and not frame.duplicated([c, *judge]).any()
    ]
    one.sort(key=lambda c: c.lower() not in ID_NAMES)
    key = one[:1] or (keys if keys and not frame.duplicated([*keys, *judge]).any() else [])
    repeats, first = "", ""
    if not key:  # a key but for a few repeated rows: an id named so, else ``keys``
        near = [
            [c]
            for c in others
            if c.lower() in ID_NAMES and c != label and frame[c].nunique() < len(frame)
        ] + [keys]  # an id numbering the rows keys no item
        near = [k for k in near if k and not frame[k].isna().any().any()]
        key = next((k for k in near if frame.duplicated([*k, *judge]).mean() <= REPEATED_SHARE), [])
        if key:
            repeats, first = _repeated_rows(frame, [*key, *judge], kind)
    key = key or _key_with(frame, keys, [c for c in others if c != label], judge)
    columns = repr(judge[0]) if len(judge) == 1 else repr(judge)
    if not key:
        return (
            f"no column keys the items (one row per item and judge), so the rows cannot "
            f"be told apart: add the item's id to each row, then pivot with pandas' pivot "
            f"(index the id, columns {columns}, values {score!r})"
        ), []
    index = repr(key[0]) if len(key) == 1 else repr(key)
    by = frame.groupby(key, sort=False)
    per = [c for c in others if c not in key and bool((by[c].nunique() <= 1).all())]
    clash = label is not None and label not in per
    out = unused_name("wide" if aspect is None else f"wide_{_slug(named[0])}")
    recipe = (
        pick
        + first
        + (
            f"wide = df.pivot(index={index}, columns={columns}, values={score!r}); "
            if run is None
            else f"wide = df.pivot_table(index={index}, columns={columns}, values={score!r}, "
            "aggfunc='mean'); "
        )
        + (
            "wide.columns = ['|'.join(map(str, c)) for c in wide.columns]; "
            if len(judge) > 1
            else ""
        )
        + (f"wide = df.groupby({index})[{per!r}].first().join(wide); " if per else "")
        + "wide = wide.reset_index(); "
        + (f"{keyed_id(key, 'wide')}; " if len(key) > 1 and "id" not in others else "")
        + f"wide.to_csv({out!r}, index=False)"
    )
    each = ""
    if aspect is not None:
        shown = ", ".join(map(repr, named[:6])) + (", ..." if len(named) > 6 else "")
        each = (
            f"{aspect!r} names the aspect each row rates ({len(named)}: {shown}), a table of "
            f"its own each, which the line writes for {named[0]!r} (put another aspect in "
            f"place of {named[0]!r} for its table); "
        )
    return (
        each
        + f"{index} keys the items (one row per item and judge"
        + (f" in each run of {run!r}" if run else "")
        + f"){repeats}. Pivot it, {_pandas(recipe, read)} "
        + (
            "(pivot refuses an item a judge scored twice, where pivot_table would average them), "
            if run is None
            else f"(each judge's mean over its runs, numbered in {run!r}), "
        )
        + (
            f"settle the label {label!r}, which differs between rows of one item, "
            if clash
            else f"take its column {human!r} (the human ratings) for the label, "
            if label is None and human is not None
            else "add the labels, "
            if label is None
            else ""
        )
        + f"and run bacon doctor on {out}"
    ), key


def _slug(value: object) -> str:
    """``value`` as a part of a file name: letters, digits, ``-`` and ``_``."""
    return re.sub(r"[^\w-]+", "_", str(value)).strip("_") or "aspect"


def _key_with(
    frame: pd.DataFrame, keys: list[str], others: list[str], judge: list[str]
) -> list[str]:
    """``keys`` (the group) and one more column of ``others`` that together key the rows
    of each judge (TriviaQA's ``model`` and ``qid``, a question number within each
    model), one named like a prompt or item id first; [] when none does."""
    if not keys:
        return []
    full = [c for c in others if c not in keys and frame[c].notna().all()]
    full.sort(key=lambda c: not (PROMPT_ID.match(c) or item_name(c) or c.lower() in ID_NAMES))
    return next(([*keys, c] for c in full if not frame.duplicated([*keys, c, *judge]).any()), [])


def keyed_id(key: list[str], table: str) -> str:
    """The pandas statement that gives ``table`` (a frame's name in a recipe) an ``id``
    column of the items' ``key`` columns joined (``M10|doc7``): the one column a study
    records the items by, and a labels file is joined on (``--item id``)."""
    return f"{table}.insert(0, 'id', {table}[{key!r}].astype(str).agg('|'.join, axis=1))"


def _repeated_rows(frame: pd.DataFrame, key: list[str], kind: str) -> tuple[str, str]:
    """What to say of the rows of a long table that repeat an item and judge (``key``):
    how many, how many are exact copies of another row, one that differs from another of
    its item and judge with its lines; and the pandas that drops them (the copies, then
    all but the first row of each item and judge)."""
    extra = int(frame.duplicated(key).sum())
    copies = int(frame.duplicated().sum())
    drop = "df = df.drop_duplicates(); "
    if copies == extra:
        return f", but {extra} rows repeat another whole (pasted twice?): drop them first", drop
    rest = frame.drop_duplicates()
    differ = rest[rest.duplicated(key, keep=False)]
    one = differ.iloc[0]
    same = differ.index[(differ[key] == one[key]).all(axis=1)]
    example = ", ".join(f"{c} {one[c]!r}" for c in key)
    said = (
        f", but {extra} rows repeat an item and judge ({copies} of them exact copies of "
        f"another row; {extra - copies} differ{'s' if extra - copies == 1 else ''} from "
        "another row of their item and judge, "
        f"e.g. {example} at {lines(frame, list(same[:3]), kind)}): drop the copies and "
        "settle the others (the recipe keeps the first row of each; average them instead "
        "if they are repeated runs of the judge)"
    )
    return said, f"{drop}df = df.drop_duplicates({key!r}); "


#: a judge's name in a long table that is the human's (``human``, ``gold``, ``expert_1``)
_HUMAN_RATER = re.compile(
    r"(^|[\W_])(human|gold|expert|annotator|manual|crowd|label)s?($|[\W_\d])", re.I
)


def _human_rater(names: pd.Series) -> str | None:
    """The one value of a long table's judge column that names the human (a rater named
    like :data:`_HUMAN_RATER` on fewer rows than every other judge: the labeled items),
    else None."""
    counts = names.value_counts()
    human = [str(v) for v in counts.index if _HUMAN_RATER.search(str(v))]
    if len(human) != 1 or len(counts) < 3:
        return None
    return human[0] if counts[human[0]] < counts.drop(human[0]).min() else None


def find_long(frame: pd.DataFrame, roles: Roles, kind: str, read: str | None = None) -> str | None:
    """What to do when ``frame`` is a long table of judge scores (a column of a few
    repeated strings named like a judge, a dense numeric score): pivot it; else None.
    ``read``: the pandas call that reads the file (:func:`pivot_recipe`)."""
    n = len(frame)
    names = [
        c
        for c in categorical(frame, roles)
        if JUDGE_NAME.search(c) and 2 <= frame[c].nunique() <= MAX_GROUPS
    ]
    shape = None if names else _judge_by_shape(frame, roles)
    names = names or ([shape[0]] if shape else [])
    taken = (roles.item, roles.label)
    dense = [
        str(c)
        for c in frame.columns
        if c not in taken
        and numeric(frame[c]) is not None
        and frame[c].notna().mean() >= DENSE
        and not ID_LIKE.search(str(c))
        and str(c).strip().lower() not in ID_NAMES  # the item numbers are no score
    ]
    judge = names[0] if names else None
    if not any(SCORE_NAME.search(c) for c in dense) and any(
        SCORE_NAME.search(str(c)) and why.startswith(FAILED) for c, why in roles.left_out.items()
    ):
        return None  # its score column has a judge's failures ('error'): those first, not a
        # column of numbers named otherwise (a prompt's ids) taken for the scores
    if names and not dense:  # scores kept as text: 'D' for one judge, '4' for the others
        dense = [c for c in _text_scores(frame, roles) if c != judge]
    if not names or not dense or len(dense) > 3:
        return None
    judge = names[0]
    score = next((c for c in dense if SCORE_NAME.search(c)), dense[0])
    short = [
        c
        for c in categorical(frame, roles)
        if c not in (judge, score)
        and not several_words(frame[c])
        and (is_code(frame[c]) or text_width(frame[c]) < TEXT_CHARS)
    ]
    keys = [c for c in short if GROUP_HINT.search(c) or PROMPT_HINT.search(c) or c in ID_NAMES]
    if shape is not None and len(shape[2]) > 1:
        keys = shape[2]  # the group and an id within it key the items
    if not keys or frame.duplicated(keys).mean() < 0.5:
        return None  # the rows are items (each once): a rater column of a wide table
    by_key = frame.groupby(keys, sort=False)
    # a column of one value per item (WMT's ``doc`` beside ``system`` and ``seg_id``) is
    # joined back by the recipe; only one varying within an item names its judge
    spec = [judge, *(c for c in short if c not in keys and (by_key[c].nunique() > 1).any())]
    aspect = _aspect(frame, keys, spec[1:], roles.label)
    spec = [c for c in spec if c != aspect]
    human = _human_rater(frame[judge]) if roles.label is None else None
    k = frame[judge].nunique() - (human is not None)
    roles.reasons["long"] = judge
    recipe, key = pivot_recipe(frame, spec, score, roles.label, keys, kind, human, read, aspect)
    roles.long_key = key
    roles.left_out.update(dict.fromkeys(key, "keys the items of the long table (below)"))
    if numeric(frame[score]) is None:
        roles.left_out[score] = TEXT_SCORES
    names_it = f"seems to name the judge of each row ({shape[1]}; " if shape else "names the judge"
    return (
        f"a long table: {judge!r} {names_it}"
        + ("" if shape else " of each row (")
        + f"{k} judges, about {(n - int((frame[judge] == human).sum())) // k} rows each"
        + (f", and the human ratings as {human!r}" if human else "")
        + f") and {score!r} holds its score, while "
        f"bacon reads one row per item with one column per judge; {recipe}"
    )


def _text_scores(frame: pd.DataFrame, roles: Roles) -> list[str]:
    """The string columns of ``frame`` named like a score (:data:`SCORE_NAME`), filled on
    most rows with short cells (no text): a long table's scores kept as text, the cells
    of one judge letters or words (its map to numbers is for the pivoted table)."""
    return [
        c
        for c in categorical(frame, roles)
        if SCORE_NAME.search(c)
        and frame[c].notna().mean() >= DENSE
        and not several_words(frame[c])
        and text_width(frame[c]) < TEXT_CHARS
    ]


def _judge_by_shape(frame: pd.DataFrame, roles: Roles) -> tuple[str, str, list[str]] | None:
    """A long table told by its shape when no column is named like a judge (WMT's
    ``metric``, a ``model`` column): the id column (``item``, ``id``), or the group and
    an id that counts within it (a column named like a group: WMT's ``system`` and
    ``seg_id``), holds most ids on
    ``k`` rows (none on more), one per value of a column of ``k`` strings, and the label
    never differs between the rows of an id. A column named like a group (``system``,
    the groups of a table keyed by prompt) counts only when the label repeats on the
    rows of an id. Returns that column, why, and the columns keying the items; or None."""
    ids = [str(c) for c in frame.columns if item_name(c) is not None or str(c).lower() == "uid"]
    label = roles.label
    singles = [[c] for c in dict.fromkeys([c for c in (roles.item, *ids) if c is not None])]
    groups = [c for c in categorical(frame, roles) if GROUP_HINT.search(c)]
    within = [str(c) for c in frame.columns if c in ids or ID_LIKE.search(str(c))]
    pairs = [[g, c] for g in groups for c in within if c != g]
    for key in singles + pairs:
        if frame[key].isna().any().any():
            continue
        by = frame.groupby(key, sort=False)
        counts = by.size()
        k = int(counts.max()) if len(counts) else 0
        if k < 2 or (counts == k).mean() < LONG_SHARE:
            continue
        labels = by[label] if label else None
        if labels is not None and (labels.nunique() > 1).any():
            continue  # the rows of an id are items of their own: it names a prompt
        repeated = labels is not None and bool((labels.count() > 1).any())
        held = f"{key[0]!r} holds" if len(key) == 1 else f"{key[0]!r} and {key[1]!r} hold"
        for c in categorical(frame, roles):
            if c in key or frame[c].nunique() != k or frame.duplicated([*key, c]).any():
                continue
            if repeated or not GROUP_HINT.search(c):
                return c, f"{held} each id on {k} rows, one per value of {c!r}", key
    return None


def long_table(
    frame: pd.DataFrame, label: str, judges: list[str], kind: str = "csv", read: str | None = None
) -> str | None:
    """Why ``frame``, read with one row per item, is a long table (one row per item and
    judge), and the recipe that pivots it; None where it is not.

    Parameters
    ----------
    frame : DataFrame
        The table as ``bacon estimate`` reads it, no item column given.
    label, judges : str, list of str
        The label column and the judge score columns.
    kind : str
        The file's format (``csv``: rows named by their line).
    read : str, optional
        The pandas call that reads the file: the recipe is then a shell line
        (:func:`pivot_recipe`).

    Returns
    -------
    str or None
        Long: a column of a few repeated strings (at most :data:`LONG_JUDGES`) tells
        apart the rows of items keyed by the other columns (each item on several rows,
        those rows not repeating a value of it but for :data:`REPEATED_SHARE`), while it
        is named like a judge (the item's score differing between its rows) or most
        labeled items' label repeats on their rows.
    """
    if label not in frame or not frame[label].notna().any() or not judges:
        return None
    # an id column numbering the rows (one printed fix adds one) names no item of a long
    # table: its rows are told apart by the other columns, as without it
    row_numbers = [x for x in frame.columns if item_name(x) and frame[x].is_unique]
    for c in frame.columns:
        col = frame[c]
        if c == label or c in judges or not is_str(col) or col.isna().any():
            continue
        k = int(col.nunique())
        key = [x for x in frame.columns if x not in (c, label, *judges, *row_numbers)]
        if not 2 <= k <= LONG_JUDGES or not key or frame.duplicated(key).mean() < 0.5:
            continue
        if frame.duplicated([*key, c]).mean() > REPEATED_SHARE:
            continue  # the column does not tell an item's rows apart
        by = frame.groupby(key, dropna=False, sort=False)
        counts = by[label].count()
        counts = counts[counts > 0]  # the labeled items' labeled rows
        repeated = bool((counts > 1).mean() >= 0.5 and (by[label].nunique() <= 1).all())
        varied = (by[judges[0]].nunique() > 1).mean() >= 0.25  # scores differ by judge
        if not (repeated or (JUDGE_NAME.search(str(c)) and varied)):
            continue
        recipe, _ = pivot_recipe(frame, [str(c)], judges[0], label, key, kind, read=read)
        labels = (
            f", and the label {label!r} repeats on the rows of {int((counts > 1).sum())} "
            "labeled items"
            if repeated
            else ""
        )
        return (
            f"the table looks long, one row per item and judge: column {c!r} names the "
            f"judge of each row ({k} values, about {len(frame) // k} rows each), {key!r} "
            f"the item{labels}. bacon reads one row per item, so each item and its label "
            f"would count about {k} times and the intervals come out too narrow. {recipe}, "
            "then pass its judge columns to --judge (if each row is an item after all, "
            "give each an id and pass --item)"
        )
    return None
