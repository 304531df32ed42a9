"""A file of pairwise comparisons and the roles of its columns, for the commands.

:func:`read_pair_table` reads a CSV/Parquet table with one comparison per row, or any
format :func:`~bacon_bayes.readers.pairwise.read_pairwise` knows (Arena CSV/JSON/JSON
Lines, AlpacaEval ``annotations.json``, MT-Bench judgments, with the MT-Bench human
judgments as ``labels``), and finds the columns that were not named: the canonical
``model_a``, ``model_b`` and ``label`` (also ``winner``, ``human_label``), the judges
(every other column of verdict words whose name does not start with ``human``), the
prompt (``prompt``, ``question_id``, ``prompt_id``), the id (``id`` when unique) and, in
the table ``bacon sample --pairwise`` writes (columns ``to_label`` and ``propensity``),
the comparisons' inclusion probabilities, which its votes must be weighted by.
:func:`looks_pairwise` tells ``bacon doctor`` and ``bacon report`` whether a file is one.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.csv_format import table_header
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import row_place
from bacon_bayes.readers.mt_bench_hub import read_with_labels, table_format, votes_missing
from bacon_bayes.readers.one_hot import marked
from bacon_bayes.readers.pair_hints import LABEL_NAMES
from bacon_bayes.readers.pairwise import (
    _WORDS,
    MT_BENCH_HUMANS,
    VERDICT_HELP,
    _all_verdicts,
    _missing,
    read_pairwise,
    sniff_pairwise,
)
from bacon_bayes.replies import marked_verdicts

__all__ = [
    "PairRoles",
    "looks_pairwise",
    "pairwise_hint",
    "read_pair_table",
]

#: the columns ``bacon sample --pairwise`` adds: the wave drawn and every inclusion probability
WAVE_COLUMNS = ("to_label", "propensity")
PROMPT_NAMES = ("prompt", "question_id", "prompt_id")
#: LMSYS's one-hot human vote (arena-human-preference-55k): read as one vote in ``winner``
ONE_HOT = ("winner_model_a", "winner_model_b", "winner_tie")
ID_NAMES = ("id", "item", "item_id", "battle_id")
#: AlpacaEval's model columns (model A is ``generator_1``) and the fields of its
#: annotations (one row per annotator): a CSV/Parquet of them is read as the JSON is
ALPACA_MODELS = ("generator_1", "generator_2")
ALPACA_ANNOTATIONS = ("instruction", *ALPACA_MODELS, "annotator", "preference")


@dataclass
class PairRoles:
    """Which column is which in a table of comparisons (``format``: the file's)."""

    model_a: str
    model_b: str
    label: str
    judges: list[str]
    prompt: str | None = None
    item: str | None = None
    format: str = "csv"
    notes: list[str] = field(default_factory=list)
    propensity: str | None = None  # the inclusion probabilities of a drawn wave's table
    #: columns that look like a judge's but are not taken for one: why, and the fix
    left_out: list[str] = field(default_factory=list)
    #: columns of numbers or words that may be a judge's verdicts, not taken for one: why
    #: (the ``--judge`` options that take it are added by :meth:`left_out_notes`)
    maybe_judges: dict[str, str] = field(default_factory=dict)

    def left_out_notes(self) -> list[str]:
        """:attr:`left_out`, then the notes on :attr:`maybe_judges`, each with the
        ``--judge`` options that take it beside :attr:`judges` (doctor's, beside the judges
        of its command: :func:`~bacon_bayes.doctor.pairs.maybe_judge_notes`)."""
        every = list(self.maybe_judges)  # several: one list of options takes them all
        return [
            *self.left_out,
            *(f"{why} {name_judges(self.judges, c)}" for c, why in self.maybe_judges.items()),
            *(
                [f"to take all {len(every)} as judges: {name_judges(self.judges, *every)}"]
                if len(every) > 1
                else []
            ),
        ]


def name_judges(judges: Sequence[str], *columns: str) -> str:
    """The ``--judge`` options that take ``columns`` as judges beside ``judges``."""
    return " ".join(f"--judge {shlex.quote(j)}" for j in [*judges, *columns])


def _almost_verdicts(column: pd.Series) -> str | None:
    """Why a column of verdicts but for a few other words (a judge's failures written as
    ``error``) is no judge, and the fix; None for any other column."""
    values = column[[not _missing(v) for v in column]]
    if values.empty or not all(isinstance(v, str) for v in values):
        return None
    ok = values.str.strip().str.lower().isin(list(_WORDS))
    bad = values[~ok]
    if bad.empty or ok.mean() < 0.9:
        return None
    return (
        f"column {str(column.name)!r} holds verdicts but for {len(bad)} cell(s) of other "
        f"words ({_first(column, bad)} the first), so it is not taken as a judge: "
        "empty those cells (a comparison the judge failed on is missing), or name the "
        "judges with --judge once they are fixed"
    )


def _numbers_not_words(column: pd.Series) -> str | None:
    """Why a column of numbers from 0 to 1 (a judge's verdicts as 1 / 0.5 / 0, or its
    probabilities that A wins) is not taken as a judge (the options that take it follow);
    None for any other column and for the columns ``bacon sample --pairwise`` adds."""
    if str(column.name) in WAVE_COLUMNS or pd.api.types.is_bool_dtype(column):
        return None
    number = pd.to_numeric(column, errors="coerce")
    filled = column.notna()
    if not filled.any() or number[filled].isna().any() or number.nunique() < 2:
        return None
    inside = number[filled].between(0, 1)
    if not inside.all():  # a probability a few cells past [0, 1] (1.005): said, not skipped
        past = number[filled][~inside]
        if inside.mean() < 0.95 or (number[filled] % 1 == 0).all():
            return None  # whole numbers past 1 (the Arena's n_votes_same_item): a count
        where = row_place(column, int(column.index.get_loc(past.index[0])))
        return (
            f"column {str(column.name)!r} holds numbers from 0 to 1 but for {len(past)} "
            f"cell(s) ({float(past.iloc[0])!r} at {where} the first), so it is not taken as a "
            "judge; if it is a judge's probability that A "
            "wins, clip those cells to [0, 1] and name the judges:"
        )
    return (
        f"column {str(column.name)!r} holds numbers from 0 to 1, not verdict words (A / B / "
        "tie), so it is not taken as a judge; if it is one (1 = A wins, 0.5 = tie, 0 = B "
        "wins, or its probability that A wins), name the judges:"
    )


def _other_words(column: pd.Series) -> str | None:
    """Why a column of a few words naming A and B but not as verdicts (``Model A``,
    ``Response B``) is not taken as a judge, and the fix (the options that take it
    follow); None for any other column."""
    values = column[[not _missing(v) for v in column]]
    if values.empty or not all(isinstance(v, str) for v in values):
        return None
    words = list(dict.fromkeys(values.str.strip()))
    letters = [{x for x in "AB" if re.search(rf"(?<![A-Za-z]){x}(?![A-Za-z])", w)} for w in words]
    if len(words) > 10 or {"A"} not in letters or {"B"} not in letters:
        return None
    return (
        f"column {str(column.name)!r} holds words naming A and B that are not verdicts "
        f"({', '.join(map(repr, words[:4]))}), so it is not taken as a judge; if it is one, "
        "write its verdicts as A, B or tie (also model_a / model_b, [[A]] / [[B]] / [[C]], "
        "or 1 / 0 / 0.5), then --judge takes it"
    )


def _one_verdict(column: pd.Series) -> str | None:
    """The one verdict a judge gives every comparison it judged (``A``: it always prefers
    the first answer), None when it gives two or more."""
    words = {str(v).strip().lower() for v in column if not _missing(v)}
    said = {_WORDS.get(w, w) for w in words}
    return str(column.dropna().iloc[0]).strip() if len(said) == 1 else None


def _same_verdict(frame: pd.DataFrame, found: list[str], named: bool) -> list[str]:
    """Notes on the judges of ``found`` that say the same on every comparison, taken out of
    ``found`` (they carry nothing on which model is better: the Bayesian engine refuses
    them); a judge the user ``named`` is refused."""
    notes = []
    for j in list(found):
        if (verdict := _one_verdict(frame[j])) is None:
            continue
        n = int(frame[j].notna().sum())
        said = f"says {verdict} on every comparison it judged ({n})"
        if named:
            raise ValidationError(
                f"--judge {j!r} {said}: it carries no information on which model is better; "
                f"drop --judge {shlex.quote(j)} (or check how its verdicts were parsed)."
            )
        found.remove(j)
        notes.append(
            f"column {j!r} {said}, so it is not taken as a judge: it carries no information "
            "on which model is better (check how its verdicts were parsed)"
        )
    return notes


def _first(column: pd.Series, bad: pd.Series) -> str:
    """The first of the ``bad`` cells of ``column`` and where it is (its CSV line, else
    its row from 0): ``'error' at line 5``."""
    pos = int(column.index.get_loc(bad.index[0]))
    return f"{bad.iloc[0]!r} at {row_place(column, pos)}"


def _winner_names(frame: pd.DataFrame, column: str, a: str, b: str) -> pd.Series | str | None:
    """A column whose verdicts name the winning model of each row (``koala-13b``, or a
    tie word) read as A / B / tie against the models in ``a`` and ``b``; or, when at least
    90% of its cells are such and others name neither model of their row, why it is no
    judge and the fix; None for any other column (no cell names a model)."""
    values = frame[column]
    filled = np.array([not _missing(v) for v in values], dtype=bool)
    if not filled.any() or not all(isinstance(v, str) for v in values[filled]):
        return None
    word = values.str.strip().str.casefold()
    out = word.map(_WORDS).where(word.map(_WORDS) == "tie")
    is_a = word == frame[a].astype(str).str.strip().str.casefold()
    is_b = word == frame[b].astype(str).str.strip().str.casefold()
    out = out.mask(is_a & ~is_b, "A").mask(is_b & ~is_a, "B")
    named = int((is_a | is_b)[filled].sum())
    bad = values[filled & out.isna()]
    if named == 0 or len(bad) > 0.1 * filled.sum():
        return None
    if bad.empty:
        return out
    return (
        f"column {column!r} names the winning model of each comparison (or a tie) but for "
        f"{len(bad)} cell(s) that name neither model of their row ({_first(values, bad)} "
        "the first), so it is not taken as a judge: write those as the winner's name, tie, or "
        "leave them empty, and run again"
    )


def _alpaca_preferences(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """A table of AlpacaEval's fields with a preference column per annotator: each column
    of AlpacaEval preferences (1 = output_1 wins, 2 = output_2 wins, 1.5 or 0 = tie, a
    value between 1 and 2 from weighted annotators = 1 + P(output_2 wins); some cell above
    1, so that it is not 1 / 0 / 0.5 verdicts) as verdicts of model A = ``generator_1``:
    A / B / tie, or P(A wins) = 2 - preference where weighted; and a note naming them."""
    out, read = frame.copy(), []
    for c in frame.columns:
        if c in ALPACA_MODELS or pd.api.types.is_bool_dtype(frame[c]):
            continue
        number = pd.to_numeric(frame[c], errors="coerce")
        filled = frame[c].notna()
        if not filled.any() or number[filled].isna().any() or not (number > 1).any():
            continue
        p = number[filled].where(number[filled] != 0, 1.5)
        if not p.between(1, 2).all():
            continue
        if p.isin([1.0, 1.5, 2.0]).all():
            out[c] = number.map({1.0: "A", 1.5: "tie", 0.0: "tie", 2.0: "B"})
        else:
            out[c] = 2.0 - number.where(number != 0, 1.5)
        read.append(str(c))
    notes = [
        f"{', '.join(map(repr, read))}: AlpacaEval preferences (1 = generator_1 wins, 2 = "
        "generator_2 wins, 1.5 or 0 = tie; between 1 and 2: 1 + P(generator_2 wins)), read "
        "as A / B / tie with model A = generator_1"
    ] if read else []  # fmt: skip
    return out, notes


def _vote_columns(frame: pd.DataFrame, roles: list[str]) -> dict[str, int]:
    """The columns of verdicts (or of the winners' names) with empty cells, the human
    votes' mark, each with its count of empty cells."""
    gaps = {}
    for c in map(str, frame.columns):
        values = frame[c]
        empty = int(sum(_missing(v) for v in values))
        if c in roles or not 0 < empty < len(values):
            continue
        number = pd.to_numeric(values, errors="coerce")[values.notna()]
        if (
            _all_verdicts(values.tolist())
            or (number.notna().all() and number.isin([0, 0.5, 1]).all())
            or isinstance(_winner_names(frame, c, roles[0], roles[1]), pd.Series)
        ):
            gaps[c] = empty
    return gaps


def _vote_hint(frame: pd.DataFrame, roles: list[str]) -> str:
    """For the error of a table without a vote column found: the column of verdicts (or
    of the winners' names) with empty cells (:func:`_vote_columns`; the sparsest if
    several), as ``--label COL``; "" when none is."""
    gaps = _vote_columns(frame, roles)
    if not gaps:
        return ""
    c = max(gaps, key=lambda k: gaps[k])
    return (
        f" Column {c!r} holds verdicts and is empty on {gaps[c]} of {len(frame)} rows, as "
        f"human votes are: if it holds them, --label {shlex.quote(c)}."
    )


def _one_hot_vote(frame: pd.DataFrame, label: str | None) -> pd.DataFrame:
    """``frame`` with LMSYS's one-hot human vote (:data:`ONE_HOT`, 0/1 each, empty where
    nobody voted) as one column ``winner`` of A / B / tie, where no label column is named
    or ``winner`` is (as the printed commands name it); unchanged without the three."""
    cols = {str(c).lower(): str(c) for c in frame.columns}
    trio = [cols.get(c) for c in ONE_HOT]
    if not all(trio):
        return frame
    if label in trio:
        raise ValidationError(
            f"--label {label!r} is one of the three columns of one vote ({', '.join(ONE_HOT)}): "
            "with it alone every tie reads as a loss. Drop --label: bacon reads the three "
            "as one vote (A / B / tie)."
        )
    if (label or "winner") != "winner" or "winner" in frame.columns:
        return frame
    choice, voted, bad = marked(frame, trio)  # as a one-hot rating's (readers.one_hot)
    if bad.any():
        k = int(np.argmax(bad))
        cells = (frame[c].iloc[k] for c in trio)
        shown = ", ".join(
            f"{c} {v:g}" if isinstance(v, float) else f"{c} {v}"
            for c, v in zip(trio, cells, strict=True)
        )
        raise ValidationError(
            f"{row_place(frame, k)}: {shown}; "
            "a vote has exactly one of the three at 1 and the others at 0 (all empty: no "
            "vote). Fix that row."
        )
    out = frame.copy()
    out["winner"] = np.where(voted, np.array(["A", "B", "tie"])[choice], None)
    out.attrs["one-hot vote"] = trio
    return out


def _repeated_ids(frame: pd.DataFrame) -> list[str]:
    """A note on the first column named like an id whose ids repeat (so it is not taken
    for the id): the first id seen twice, where, and what the comparisons are keyed by."""
    col = next((c for c in ID_NAMES if c in frame.columns), None)
    if col is None:
        return []
    values = frame[col]
    twice = values.duplicated(keep=False).to_numpy() & values.notna().to_numpy()
    if not twice.any():
        return []
    first = values.iloc[[int(np.argmax(twice))]].tolist()[0]  # 71, not np.int64(71)
    at = " and ".join(row_place(values, int(k)) for k in np.flatnonzero(values.eq(first))[:2])
    more = f"; {int(twice.sum())} rows share an id" if twice.sum() > 2 else ""
    return [
        f"column {col!r} repeats ids ({first!r} at {at}{more}), so it is "
        "not taken for the id and the comparisons are keyed by their row number; give each "
        f"comparison its own id in {col!r} if the ids should key them (e.g. for --labels)"
    ]


def _kind(path: Path) -> str:
    from bacon_bayes.readers import sniff

    return sniff(path)


def _pair_format(path: Path) -> str | None:
    """The pairwise format of a JSON / JSON Lines file (None: not one)."""
    try:
        return sniff_pairwise(path)
    except (ValidationError, ValueError, KeyError, IndexError, TypeError):
        return None


def looks_pairwise(path: str | Path, columns: Sequence[str] | None = None) -> bool:
    """Whether ``path`` holds comparisons: a pairwise JSON format, or a table with the
    columns ``model_a`` and ``model_b`` (``columns``: the table's, when already read)."""
    path = Path(path)
    if not path.is_file():
        return False
    if _kind(path) in ("json", "jsonl"):
        return _pair_format(path) is not None
    if columns is None:
        return False
    return ("model_a" in columns and "model_b" in columns) or all(
        c in columns for c in ALPACA_MODELS
    )


def pairwise_hint(path: str | Path, columns: Sequence[str] | None = None) -> str:
    """For an error of a command run without ``--pairwise``: a sentence saying that
    ``path`` holds comparisons and how to read it so ("" when it does not). A CSV's
    header is read when ``columns`` is not given."""
    try:
        if columns is None and Path(path).is_file() and _kind(Path(path)) == "csv":
            columns = table_header(path)
        pairs = looks_pairwise(path, columns)
    except (OSError, ValueError, ValidationError):
        return ""
    if not pairs:
        return ""
    return (
        f" {Path(path).name} holds comparisons (model A vs model B): add --pairwise "
        f"(bacon doctor {Path(path).name} prints the whole command)."
    )


def _missing_column(option: str, col: str, frame: pd.DataFrame) -> ValidationError:
    cols = ", ".join(map(str, frame.columns[:15]))
    return ValidationError(
        f"{option} {col!r} is not a column of the table (columns: {cols}); pass an existing column."
    )


def _guess(frame: pd.DataFrame, given: str | None, names: Sequence[str], option: str) -> str | None:
    if given is not None:
        if given not in frame.columns:
            raise _missing_column(option, given, frame)
        return given
    return next((c for c in names if c in frame.columns), None)


def read_pair_table(
    path: str | Path,
    *,
    model_a: str | None = None,
    model_b: str | None = None,
    label: str | None = None,
    judges: Sequence[str] | Callable[[list[str]], list[str]] | None = None,
    prompt: str | None = None,
    item: str | None = None,
    labels: str | Path | None = None,
    guess_label: bool = False,
) -> tuple[pd.DataFrame, PairRoles]:
    """Read a file of comparisons and the roles of its columns.

    Parameters
    ----------
    path : str or Path
        CSV / Parquet (one comparison per row) or an Arena, AlpacaEval or MT-Bench file.
    model_a, model_b, label, judges, prompt, item : optional
        Column names; found as the module docstring says when not given. ``judges`` may
        also be a function of the table's column names that returns the judges' (e.g.
        expanding patterns).
    labels : str or Path, optional
        With an MT-Bench judgment file, FastChat's human judgments file (its votes are
        the labels); otherwise a CSV/Parquet of labels joined by id (``label`` names its
        column).
    guess_label : bool
        Without a column of votes named or found by its name, take the one column of
        verdicts with empty cells (the sparsest if several) as the human votes, with a note
        (``bacon doctor``'s reading); otherwise that is refused, naming the column.

    Raises
    ------
    ValidationError
        A column that is not there, or one the table needs and that cannot be found,
        with the option that names it.
    """
    from bacon_bayes.io import read_table
    from bacon_bayes.readers import join_labels
    from bacon_bayes.readers.labels import label_column

    path = Path(path)
    if not path.is_file():
        raise ValidationError(f"file {str(path)!r} does not exist; check the path.")
    kind = _kind(path)
    fmt = _pair_format(path) if kind in ("json", "jsonl") else table_format(path, kind)
    notes: list[str] = []
    if fmt == "mt-bench" and labels is not None and _pair_format(Path(labels)) == "mt-bench":
        frame, meta = read_with_labels(path, labels)  # FastChat's or the Hub's judges' file
        labels = None
    elif fmt is not None:
        frame, meta = read_pairwise(path, fmt)
        if fmt == "mt-bench" and meta.judges and (missing := votes_missing(path, meta.judges)):
            frame.attrs["votes missing"] = missing  # the Hub's gpt4_pair split: its votes
    elif kind in ("csv", "parquet", "xlsx"):
        frame, meta = read_table(path), None
        if "model_a" not in frame.columns and all(c in frame.columns for c in ALPACA_MODELS):
            if all(c in frame.columns for c in ALPACA_ANNOTATIONS):  # annotations.json's
                frame, meta = read_pairwise(path, "alpacaeval")  # records, as a table
            else:  # a preference column per annotator
                frame, said = _alpaca_preferences(frame)
                notes += said
                model_a, model_b = model_a or ALPACA_MODELS[0], model_b or ALPACA_MODELS[1]
                prompt = prompt or ("instruction" if "instruction" in frame.columns else None)
    else:
        raise ValidationError(
            f"{str(path)!r} holds no comparisons bacon knows; pass a CSV or Parquet table "
            "(one comparison per row: model A, model B, the human verdict and judge "
            "verdicts), an Arena file (model_a, model_b, winner), an AlpacaEval "
            "annotations.json or an MT-Bench judgment file."
        )
    if meta is not None:
        notes += meta.notes
        fmt = meta.format
    a = _guess(frame, model_a, ("model_a",), "--model-a")
    b = _guess(frame, model_b, ("model_b",), "--model-b")
    if a is None or b is None:
        raise ValidationError(
            f"{str(path)!r} has no column {'model_a' if a is None else 'model_b'}; name the "
            "columns of the two models with --model-a COL --model-b COL."
        )
    item = _guess(frame, item, () if labels is None else ID_NAMES, "--item")
    if item is None:
        ids = (*ID_NAMES, *(("question_id",) if "prompt" in frame.columns else ()))  # Arena's
        item = next((c for c in ids if c in frame.columns and frame[c].is_unique), None)
        notes += [] if item else _repeated_ids(frame)
    words: dict[str, str] = {}  # a labels file's words kept as written: model names?
    if labels is not None:
        label = label or label_column(frame, labels, item)  # the file's one other column
        own = _guess(frame, None, LABEL_NAMES, "--label")
        if own not in (None, label) and set(WAVE_COLUMNS) <= set(map(str, frame.columns)):
            raise ValidationError(  # its votes were taken for a judge's, the pilot's lost
                f"{str(path)!r} is a table bacon sample --pairwise wrote, whose votes are in "
                f"column {own!r}: with --labels it would be read as a judge. Merge the votes "
                f"file into it with `bacon label import {shlex.quote(str(labels))} --study "
                f"{shlex.quote(str(path))}`, then estimate without --labels."
            )
        frame, item = join_labels(frame, labels, label, item, verdicts=True)
        words = frame.attrs.get("vote words", {})
        if several := frame.attrs.get("several votes"):
            notes.append(
                f"{several} comparisons have several votes in the labels file: label = the "
                "majority (a tie where they split evenly); to count every vote, give each "
                "its own row (and id) in the table of comparisons"
            )
    frame = _one_hot_vote(frame, label)
    lab = _guess(frame, label, LABEL_NAMES, "--label")
    if lab is None and meta is None and all(c in frame.columns for c in WAVE_COLUMNS):
        # a table bacon sample --pairwise wrote, its votes under the name the sample read
        # (--label my_vote): its one column of votes is the label, as the sample took it
        votes = list(_vote_columns(frame, [c for c in (a, b, prompt, item, *WAVE_COLUMNS) if c]))
        if len(votes) == 1:
            lab = votes[0]
            notes.append(
                f"column {lab!r}: the human votes of this table bacon sample --pairwise "
                f"wrote (its one column of verdicts with empty cells; --label {lab})"
            )
    if lab is None and guess_label:
        gaps = _vote_columns(frame, [c for c in (a, b, prompt, item) if c])
        if gaps:
            lab = max(gaps, key=lambda k: gaps[k])
            notes.append(
                f"column {lab!r}: read as the human votes (no column is named label, winner "
                f"or human_label; it is the {'sparsest ' * (len(gaps) > 1)}column of verdicts "
                f"with empty cells, {gaps[lab]} of {len(frame)}); --label COL names another"
            )
    if lab is None:
        raise ValidationError(
            f"{str(path)!r} has no column of human votes (label, winner or human_label); "
            "name it with --label COL (A / B / tie, empty where no human voted)."
            + _vote_hint(frame, [c for c in (a, b, prompt, item) if c])
        )
    if not _all_verdicts(frame[lab]):
        named = _winner_names(frame, lab, a, b)
        if isinstance(named, pd.Series):  # the human vote written as the winner's name,
            # as the judges' may be
            frame[lab] = named
            notes.append(
                f"column {lab!r} (human votes) names the winning model of each comparison (or "
                f"a tie): read as A / B / tie against {a!r} and {b!r}"
            )
        elif labels is not None:  # a labels file's word kept as written, naming no model
            word = next(v for v in frame[lab] if isinstance(v, str) and v not in ("A", "B", "tie"))
            where = words.get(word, f"labels file {str(labels)!r}")
            raise ValidationError(
                f"{where}: {word!r} is not a verdict (nor, on most rows, the winning model of "
                f"its comparison in {a!r} / {b!r}); {VERDICT_HELP}."
            )
    pro = _guess(frame, prompt, PROMPT_NAMES, "--prompt")
    roles = {a, b, lab, pro, item, *frame.attrs.get("one-hot vote", [])}
    if "one-hot vote" in frame.attrs:
        notes.append(
            f"columns {', '.join(map(repr, frame.attrs['one-hot vote']))}: one human vote, "
            "read as A / B / tie (column 'winner')"
        )
    left_out: list[str] = []  # columns like a judge's that are not taken for one, and why
    maybe: dict[str, str] = {}  # of those, the ones --judge takes
    if callable(judges):
        judges = judges([str(c) for c in frame.columns])
    for c in map(str, frame.columns):  # verdicts that name the winner: read as A / B / tie
        if c not in roles and (judges is None or c in judges) and not _all_verdicts(frame[c]):
            if (marked := marked_verdicts(frame[c], _WORDS)) is not None:  # whole replies
                frame[c], how = marked
                notes.append(how)
                continue
            named = _winner_names(frame, c, a, b)
            if isinstance(named, pd.Series):
                frame[c] = named
                notes.append(
                    f"column {c!r} names the winning model of each comparison (or a tie): "
                    f"read as A / B / tie against {a!r} and {b!r}"
                )
            elif named and not judges:
                left_out.append(named)
    if judges:
        for j in judges:
            if j not in frame.columns:
                raise _missing_column("--judge", j, frame)
        found = list(judges)
    elif meta is not None and meta.judges:
        found = list(meta.judges)
    else:
        found = [
            str(c)
            for c in frame.columns
            if c not in roles
            and not str(c).lower().startswith("human")
            and _all_verdicts(frame[c].tolist())
        ]
        for c in frame.columns:
            if c not in roles and str(c) not in found and not str(c).lower().startswith("human"):
                if note := _almost_verdicts(frame[c]) or _other_words(frame[c]):
                    left_out.append(note)  # --judge does not read them either
                elif note := _numbers_not_words(frame[c]):
                    maybe[str(c)] = note
    left_out += _same_verdict(frame, found, named=bool(judges))
    if not found:
        notes_out = PairRoles(a, b, lab, [], left_out=left_out, maybe_judges=maybe)
        raise ValidationError(
            f"{str(path)!r} has no judge verdict columns (A / B / tie); name them with "
            "--judge COL (repeatable)."
            + "".join(f" Note: {n}." for n in notes_out.left_out_notes())
            + (MT_BENCH_HUMANS if fmt == "mt-bench" and meta and not meta.judges else "")
        )
    bad = [j for j in found if j in roles]
    if bad:
        raise ValidationError(
            f"--judge {bad[0]!r} is also the model, label, prompt or id column; drop it."
        )
    weights = None
    if all(c in frame.columns for c in WAVE_COLUMNS) and WAVE_COLUMNS[1] not in roles | set(found):
        weights = WAVE_COLUMNS[1]
        notes.append(
            f"columns {WAVE_COLUMNS[0]!r} and {weights!r}: a table bacon sample --pairwise "
            f"wrote; its votes are weighted by the inclusion probabilities in {weights!r} "
            f"(--propensity {weights})"
        )
    roles_found = PairRoles(
        a, b, lab, found, pro, item, fmt or kind, notes, weights, left_out, maybe
    )
    return frame, roles_found


def drawn_marks(frame: pd.DataFrame) -> np.ndarray:
    """The comparisons a ``bacon sample --pairwise`` wave drew: ``to_label`` = 1, as a
    number or as text (``"1"``, ``1.0``: a table read as text, or resaved); none where
    the table has no ``to_label`` column. The one reading of the mark for every command
    (the votes still pending, the votes imported, the estimate and doctor's refusals)."""
    if WAVE_COLUMNS[0] not in frame.columns:
        return np.zeros(len(frame), dtype=bool)
    return pd.to_numeric(frame[WAVE_COLUMNS[0]], errors="coerce").eq(1).to_numpy()
