"""Which column holds the human labels: the one named (``--label``), else a sparse
numeric column, with why; the other sparse columns left out, each with why."""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bacon_bayes.doctor.agreement import alpha, same_scale
from bacon_bayes.doctor.cells import (
    COMMAS,
    COMMAS_FIX,
    LABEL_CELLS_FIX,
    POINTS_FIX,
    WORDS,
    decimal_commas,
    numeric,
    text_cells,
)
from bacon_bayes.doctor.exports import tool_columns, tool_texts
from bacon_bayes.doctor.names import (
    HUMAN_PROTOCOL,
    ID_LIKE,
    LABEL_HINT,
    aspect_ratings,
    tool_verdict,
)
from bacon_bayes.doctor.relation import label_rho
from bacon_bayes.doctor.rows import id_with_repeats
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import row_place
from bacon_bayes.scale import Scale, far_labels, infer_scale, label_codes
from bacon_bayes.words import word_levels

#: a column is dense when at least this share of rows has a value, sparse below
DENSE = 0.5


@dataclass
class LabelChoice:
    """The label column found (None: none), why (``""``: nothing to say), the other
    candidates left out, each with why, and what to say of several raters."""

    label: str | None = None
    reason: str = ""
    left_out: dict[str, str] = field(default_factory=dict)
    #: several raters of the same items, their agreement and the fix (``""``: one rater)
    raters: str = ""


def _values(s: pd.Series) -> str:
    n = int(s.notna().sum())
    return f"{n} value{'' if n == 1 else 's'}"


#: ``(what, code)`` -> the shell line that runs the pandas ``code`` on the table and
#: doctor on the file it writes (:func:`~bacon_bayes.doctor.cells.doctor_again` with the
#: table's read call and file); None where pandas does not read the table as bacon does
Again = Callable[[str, str], str] | None


def choose_label(
    frame: pd.DataFrame,
    kind: str,
    given: str | None,
    joined: bool,
    item: str | None,
    again: Again = None,
) -> LabelChoice:
    """The label column of ``frame`` (a file of format ``kind``): ``given`` (``--label``,
    from a ``--labels`` file when ``joined``), refused when it is not numeric, else the
    sparse numeric column (not the ``item``, nor a tool's judge's: Phoenix's ``score``,
    a RAGAS metric) that varies (a constant one is a confidence or a flag), named like a
    label, with the most values, that the judges relate to most; other raters of the
    items it rates are said, with their agreement, and how to make one label of them
    (``again``: a line that runs, else pandas code). The columns an LLM judge wrote in
    words (Phoenix's verdict, its explanation) are left out, each with why."""
    own = tool_texts(frame, given, again)  # an LLM judge's verdicts in words, reasons
    if given is not None:
        if given in frame.columns and numeric(frame[given]) is None:
            cells = text_cells(frame, given, kind)
            points = "semicolon-separated" in str(frame.attrs.get("read as", ""))
            commas = decimal_commas(frame[given], points)
            levels = word_levels(frame[given])
            raise ValidationError(
                f"--label {given!r} holds labels but for {cells}: {LABEL_CELLS_FIX}, and run again"
                if cells
                else f"--label {given!r} holds {WORDS} {levels[0]}: {levels[1]}, and run again"
                if levels
                else f"--label {given!r} holds {COMMAS} {commas}: "
                f"{POINTS_FIX if points else COMMAS_FIX}, and run again"
                if commas
                else f"--label {given!r} is not numeric (e.g. "
                f"{frame[given].dropna().iloc[0]!r}); a label column holds numbers (or "
                "verdict words such as yes / no)"
            )
        if given not in frame.columns:
            return LabelChoice()
        n = int(frame[given].notna().sum())
        how = "from --labels" if joined else "--label"
        return LabelChoice(given, f"{how}: {n} of {len(frame)} rows labeled", own)
    sparse = []
    ids = _repeated_ids(frame, item)
    tools = tool_columns(frame)  # Phoenix's label, RAGAS's metrics: an LLM judge's
    for c in frame.columns:
        num = numeric(frame[c])
        if num is None or c == item or ID_LIKE.search(str(c)) or tool_verdict(str(c)):
            continue  # annotation_id, DeepEval's success: no label
        if c in tools:  # a column an evaluation tool's judge wrote (exports.tool_columns)
            continue
        if num.notna().sum() >= 2 and _filled(num, ids) < DENSE:
            sparse.append(str(c))
    waves = [c for c in sparse if _wave_kind(frame, c, [d for d in sparse if d != c])]
    sparse = [c for c in sparse if c not in waves] or sparse  # a wave column: no label
    if not sparse:
        return LabelChoice(reason=_no_sparse(frame, item), left_out=own)
    constant = {c for c in sparse if frame[c].nunique() < 2}
    related = _judges_relate(frame, sparse, item) if len(sparse) > 1 else {}
    best = max(related.values(), default=0.0)
    sparse.sort(
        key=lambda c: (
            c in constant,  # a confidence or a flag filled beside the labels
            not LABEL_HINT.search(c),
            related.get(c, 0.0) < best / 2,  # a time or a count filled beside them
            -frame[c].notna().sum(),
        )
    )
    if human := _dense_human(frame, sparse, item, ids):  # a wholly labeled table's label
        return LabelChoice(
            reason=f"none: {human!r} is named like a human rating and has a value on most rows",
            left_out=own
            | {
                c: f"numeric and sparse ({int(frame[c].notna().sum())} of {len(frame)} rows), "
                f"not named like a label, while {human} is named like a human rating with a "
                f"value on most rows: not taken as the label (a judge that scored part of the "
                f"items? with --label {human} doctor takes it as a judge); pass --label "
                f"{shlex.quote(c)} to use it as the label"
                for c in sparse
            },
        )
    mean, rated = _raters_mean(frame, [c for c in sparse if c not in constant])
    if mean is not None:  # the label doctor's raters recipe adds, over any one rater
        sparse.insert(0, sparse.pop(sparse.index(mean)))
    label = sparse[0]
    n = int(frame[label].notna().sum())
    hint = "named like a label, " if LABEL_HINT.search(label) else ""
    out = LabelChoice(
        label, f"{hint}numeric and sparse: {n} of {len(frame)} rows have a value", own
    )
    if label in constant:
        out.reason += f", {_constant(frame[label])}"
    if mean is not None:
        out.reason += f"; the mean of the {len(rated)} raters {_and(rated)}"
    raters = _raters(frame, label, [c for c in sparse[1:] if c not in constant])
    rounds = _rounds(frame, label, [c for c in sparse[1:] if c not in constant])
    if raters:
        out.raters = _raters_note(frame, [label, *raters], again)
        out.reason += f"; one of {len(raters) + 1} raters of the same items (below)"
    elif rounds:  # one label written in several columns, each on its own items
        out.raters = _rounds_note(frame, [label, *rounds], again)
        out.reason += f"; one of {len(rounds) + 1} columns labeling different items (below)"
    for c in sparse[1:]:
        k = int(frame[c].notna().sum())
        if c not in constant and c not in raters and c not in rounds and c not in rated:
            if partial_judge(frame[c], frame[label], label, str(c)):
                continue  # a judge that scored part of the items: the judges' to take
        use = f"pass --label {shlex.quote(str(c))} to use this one"
        out.left_out[c] = (
            f"numeric and sparse ({k} of {len(frame)} rows), but {_constant(frame[c])}; "
            f"{use} anyway"
            if c in constant
            else f"another rater of the items {label} rates (below); {use} alone"
            if c in raters
            else f"labels other items than {label} (below); {use} alone"
            if c in rounds
            else f"one of the raters whose mean is the label column '{label}'; {use} alone"
            if c in rated
            else f"numeric and sparse ({k} of {len(frame)} rows), but {label} was taken as "
            f"the label; {use}"
        )
    return out


def named_like_label(name: str) -> bool:
    """Whether a column's name reads as a human rating's (``human``, ``mqm``)."""
    return bool(LABEL_HINT.search(name) or HUMAN_PROTOCOL.match(name))


def partial_judge(x: pd.Series, label: pd.Series, label_name: str, name: str) -> bool:
    """Whether a sparse numeric column ``x`` beside the ``label`` is a judge that scored
    part of the items (a judge run on a subsample to save cost) rather than another
    label: the label is named like one and ``x`` is not, and ``x`` has scores on
    unlabeled rows too (a column filled beside the labels alone is a rater's, a
    confidence or a time) and on more rows than the labels (a column on fewer is likelier
    another human rating: WMT's Appraise beside MQM), or every row is labeled.
    ``bacon estimate`` imputes its missing scores, with a missing-score indicator."""
    if not named_like_label(label_name) or named_like_label(name):
        return False
    if label.notna().all():
        return True
    return bool((x.notna() & label.isna()).any() and x.notna().sum() > label.notna().sum())


def _repeated_ids(frame: pd.DataFrame, item: str | None) -> pd.Series | None:
    """The items' ids where they repeat (one row per rater of an item: :mod:`.rows`),
    whose share of labeled items, not of rows, tells a sparse label; else None."""
    name = item if item is not None else id_with_repeats(frame, set())
    ids = None if name is None else frame[name]
    return None if ids is None or ids.is_unique else ids


def _filled(values: pd.Series, ids: pd.Series | None) -> float:
    """The share of rows with a value, or of the items with one on some row (``ids``)."""
    if ids is None:
        return float(values.notna().mean())
    return float(values.notna().groupby(ids.to_numpy()).any().mean())


def _dense_human(
    frame: pd.DataFrame, sparse: list[str], item: str | None, ids: pd.Series | None
) -> str | None:
    """A numeric column named like a human rating with a value on most rows (a wholly
    labeled table's labels) when no sparse candidate is named like a label: the sparse
    ones are then judges that scored part of the items, never the label on their own;
    None otherwise."""
    if any(named_like_label(c) for c in sparse):
        return None
    for c in map(str, frame.columns):
        num = numeric(frame[c]) if c != item and named_like_label(c) else None
        if num is not None and _filled(num, ids) >= DENSE and num.nunique() >= 2:
            return c
    return None


#: a column named for the labels' waves (looks): wave, label_wave, wave_id, Waves
WAVE_NAME = re.compile(r"(^|[^a-z])waves?([^a-z]|$)", re.IGNORECASE)


def _wave_kind(frame: pd.DataFrame, column: str, labels: list[str]) -> str:
    """What ``column`` holds when it is the wave of each label of one of ``labels``:
    named like a wave, filled on exactly that label's rows, with numbers or ISO dates
    (``bacon estimate --wave``); ``""`` when it is not."""
    if not WAVE_NAME.search(str(column)):
        return ""
    given = frame[column].notna().to_numpy()
    if not any((frame[c].notna().to_numpy() == given).all() for c in labels) or not given.any():
        return ""
    values = frame[column][given]
    if pd.api.types.is_datetime64_any_dtype(values):
        return "dates"
    if pd.to_numeric(values, errors="coerce").notna().all():
        return "numbers"
    text = values.astype(str).str.strip()
    iso = text.str.fullmatch(r"\d{4}-\d{2}-\d{2}([ T][\d:.]+)?").all()
    return "ISO dates" if iso else ""


def wave_column(frame: pd.DataFrame, label: str | None, item: str | None) -> tuple[str, str] | None:
    """The column of each ``label``'s wave (look), and why: named like a wave, filled on
    exactly the labeled rows, with numbers or ISO dates; ``bacon estimate --wave`` takes
    it for intervals valid at every look. None when there is none."""
    if label is None or label not in frame.columns:
        return None
    for c in map(str, frame.columns):
        if c not in (label, item) and (kind := _wave_kind(frame, c, [label])):
            k = frame[c].dropna().nunique()
            return c, (
                f"named like a wave, {kind} on exactly the labeled rows ({k} wave(s)): the "
                "wave each label came in (--wave: intervals valid at every look)"
            )
    return None


def _constant(s: pd.Series) -> str:
    """What a candidate filled with one value is (a confidence, a flag) rather than a label."""
    value = numeric(s)
    shown = f"{value.dropna().iloc[0]:g}" if value is not None else str(s.dropna().iloc[0])
    return (
        f"the same value ({shown}) on every one of its {int(s.notna().sum())} rows: a "
        "confidence or a flag, not a label? (a constant label has nothing to estimate)"
    )


def _judges_relate(frame: pd.DataFrame, sparse: list[str], item: str | None) -> dict[str, float]:
    """Each sparse candidate's largest |Spearman| with a dense numeric column (a judge's
    scores): labels are what judges score; a candidate no judge relates to is likelier a
    confidence, a time or a count filled on the same rows."""
    dense = [
        c
        for c in frame.columns
        if c != item
        and c not in sparse
        and (num := numeric(frame[c])) is not None
        and num.notna().mean() >= DENSE
    ]
    out = {}
    for c in sparse:
        y = frame[c].astype(float)
        rhos = [label_rho(frame[d].astype(float), y) for d in dense]
        out[c] = max((abs(r) for r in rhos if r is not None and np.isfinite(r)), default=0.0)
    return out


#: digits and lone letters in a column's name: what tells raters apart (``rater 1``,
#: ``expert2_relevance``, ``annotator_b``)
_RATER_MARK = re.compile(r"\d+|(?<![a-z])[a-z](?![a-z])")
#: share of the rows either rater filled that both filled, from which they rate one sample
SAME_ROWS = 0.8


def _raters(frame: pd.DataFrame, label: str, others: list[str]) -> list[str]:
    """The other sparse columns that rate the items ``label`` rates: named alike but for
    a number or a letter (``rater 1``, ``rater 2``), filled on (nearly) the same rows, on
    the label's scale."""
    key = _RATER_MARK.sub("#", label.lower())
    filled = frame[label].notna()
    y = frame[label].to_numpy(dtype=float)
    out = []
    for c in others:
        if _RATER_MARK.sub("#", c.lower()) != key or key == c.lower():
            continue
        both = filled & frame[c].notna()
        x = frame[c].to_numpy(dtype=float)
        if both.sum() >= SAME_ROWS * (filled | frame[c].notna()).sum() and same_scale(x, y):
            out.append(c)
    return out


def _rounds(frame: pd.DataFrame, label: str, others: list[str]) -> list[str]:
    """The other sparse columns named like ``label`` but for a number or a letter
    (``human_round1``, ``human_round2``) that label other rows than it, none in common,
    on its scale: one label's rounds (or annotators) exported as several columns."""
    key = _RATER_MARK.sub("#", label.lower())
    y = frame[label].to_numpy(dtype=float)
    filled = np.isfinite(y)
    out = []
    for c in others:
        x = frame[c].to_numpy(dtype=float)
        if _RATER_MARK.sub("#", c.lower()) != key or key == c.lower():
            continue
        if not (filled & np.isfinite(x)).any() and same_scale(x, y):
            filled |= np.isfinite(x)
            out.append(c)
    return out


def _one_label(frame: pd.DataFrame, code: str, again: Again) -> str:
    """How to add the label column ``code`` computes (pandas on ``df``): the line that
    writes the table with it and runs doctor on that file, else the pandas code."""
    if again is not None:
        return again("label", code)
    return f"e.g. in pandas: {code}; df.to_csv('with_label.csv', index=False), then run " + (
        "bacon doctor on with_label.csv"
    )


def _label_name(frame: pd.DataFrame) -> str:
    """The name of the label column a recipe adds: ``label``, unless the table has one
    (then ``human_label``, unless it has that too: ``label_new``)."""
    names = ("label", "human_label")
    return next((n for n in names if n not in frame.columns), "label_new")


def _rounds_note(frame: pd.DataFrame, columns: list[str], again: Again = None) -> str:
    """One label's rounds in several columns on different items: what the command
    estimates (the first column's labels alone) and how to join them into one label."""
    counts = ", ".join(f"{c}: {int(frame[c].notna().sum())}" for c in columns)
    joined = f"df[{columns[0]!r}]" + "".join(f".fillna(df[{c!r}])" for c in columns[1:])
    total = int(frame[columns].notna().any(axis=1).sum())
    return (
        f"{_and(columns)} label different items ({counts}; no item in two): one label's "
        f"rounds (or annotators) in several columns? The command estimates from "
        f"{columns[0]}'s labels alone; joined, {total} items are labeled: "
        + _one_label(frame, f"df[{_label_name(frame)!r}] = {joined}", again)
    )


#: a column within this of the raters' mean on every row they rate is their mean (one
#: written to two decimals)
MEAN_TOLERANCE = 0.01


def _raters_mean(frame: pd.DataFrame, sparse: list[str]) -> tuple[str | None, list[str]]:
    """A column of ``sparse`` that is the mean of several raters of the same items (also
    in ``sparse``) on every row they rate, as :func:`_raters_note`'s recipe makes it, and
    those raters; ``(None, [])`` when there is none."""
    for first in sparse:
        raters = [first, *_raters(frame, first, [c for c in sparse if c != first])]
        if len(raters) < 2:
            continue
        mean = frame[raters].astype(float).mean(axis=1)
        rows = mean.notna().to_numpy()
        for c in sparse:
            value = frame[c].to_numpy(dtype=float)[rows]
            if c not in raters and np.allclose(value, mean[rows], atol=MEAN_TOLERANCE):
                return c, raters
    return None, []


def _and(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def _raters_note(frame: pd.DataFrame, raters: list[str], again: Again = None) -> str:
    """Several raters of the same items: their agreement, what the command estimates (the
    first rater's mean), and how to make their mean the label."""
    both = frame[raters].notna().all(axis=1)
    value, _ = alpha(frame[raters].to_numpy(dtype=float).T)
    agree = f"Krippendorff's interval alpha {value:.2f}" if np.isfinite(value) else ""
    return (
        f"{_and(raters)} rate the same {int(both.sum())} items: several raters per item"
        + (f" ({agree} between them)" if agree else "")
        + f". The command estimates {raters[0]}'s mean rating alone; the usual label is "
        f"their mean, less noisy than one rater's: "
        + _one_label(frame, f"df[{_label_name(frame)!r}] = df[{raters!r}].mean(axis=1)", again)
    )


def _named_like_labels(frame: pd.DataFrame, item: str | None) -> list[str]:
    """The numeric columns of ``frame`` named like a label, or like an aspect the judges
    score (:func:`~bacon_bayes.doctor.names.aspect_ratings`; not the ``item``)."""
    rated = aspect_ratings([str(c) for c in frame.columns])
    tools = tool_columns(frame)  # a Phoenix verdict read from words: an LLM judge's
    return [
        str(c)
        for c in frame.columns
        if (LABEL_HINT.search(str(c)) or str(c) in rated)
        and numeric(frame[c]) is not None
        and c != item
        and c not in tools
    ]


def full_labels(frame: pd.DataFrame, item: str | None, file: str) -> str:
    """What ``frame`` (read from ``file``) can compute when none of its columns was taken
    as the label but numeric ones named like a label have a value on most rows (at
    least :data:`DENSE`; the labels of a wholly labeled table): their means, with
    ``--label`` (``""``: no such column)."""
    full = [c for c in _named_like_labels(frame, item) if frame[c].notna().mean() >= DENSE]
    # one value on every row it fills (a confidence flag, True throughout): no label
    one = [c for c in full if frame[c].astype(float).nunique() == 1]
    said = "".join(
        f"; {c} holds one value ({frame[c].astype(float).dropna().iloc[0]:g}) on every row "
        "it fills: no label"
        for c in one
    )
    full = [c for c in full if c not in one]
    if not full:
        return f"no label column was taken{said}" if said else ""
    c, k, n = full[0], len(full), int(frame[full[0]].notna().sum())
    if codes := label_codes(frame[c].to_numpy(dtype=float), c, lambda r: row_place(frame, r)):
        return f"no label column was taken: {codes}"  # 0 for 'not rated': labels on few rows
    named = c if k == 1 else _and(full)
    args = f"{shlex.quote(file)} {shlex.join(['--label', c])}"
    every = n == len(frame)
    return (
        f"no label column was taken: {named} "
        f"{'is named like a human rating' if k == 1 else 'are named like human ratings'} "
        f"with a value on most rows. If {c} holds the human labels, "
        + ("every item is labeled" if every else f"{n} of {len(frame)} rows are labeled")
        + f": bacon doctor {args} gives the command"
        + (f" ({_and([f'--label {d}' for d in full[1:]])} likewise)" if k > 1 else "")
        + (
            ", and the means of these items are exact (intervals of width 0, the judges add "
            "nothing to them)"
            if every
            else ""
        )
        + "; with --label it also prints the bacon simulate command that measures what the "
        "judges would save at a label budget (it hides the labels and draws samples of them)" + said
    )


#: the folder the printed ``bacon simulate`` command writes
SIMULATE_OUT = "simulation"

#: ``bacon simulate``'s default label shares and folds (``cli.simulate.MONTE_CARLO``,
#: ``--folds``), and the shares the printed command falls back on when a default share
#: gives fewer than two labels per fold
SIMULATE_BUDGETS = (0.05, 0.1, 0.2)
SIMULATE_FOLDS = 5
_LARGER_BUDGETS = (0.3, 0.5, 0.8)


def simulate_budgets(rows: int) -> list[float] | None:
    """The label shares of the printed ``bacon simulate`` command on a table of ``rows``
    labeled rows: ``[]`` when its default shares all give two labels per cross-fitting
    fold (the command then names none), else up to three shares that do, ``None`` when no
    share under one does (the table is too small to simulate on)."""
    carry = [b for b in SIMULATE_BUDGETS + _LARGER_BUDGETS if round(b * rows) >= 2 * SIMULATE_FOLDS]
    if carry[:1] == [SIMULATE_BUDGETS[0]]:
        return []
    return carry[:3] or None


def simulate_command(estimate: list[str], unlabeled: bool, rows: int) -> list[str] | None:
    """The ``bacon simulate`` command of a table whose ``bacon estimate`` command is
    ``estimate`` (the same file, labels, judges, group and prompt; simulate takes no
    scale, no waves and no ``--better``), which runs as printed: the rows without a label
    left out when there are any (``unlabeled``; the rows no judge scored hold none then),
    with ``--budgets`` the
    ``rows`` labeled rows carry (:func:`simulate_budgets`), written to
    :data:`SIMULATE_OUT`; None when the labeled rows are too few for any budget."""
    budgets = simulate_budgets(rows)
    if budgets is None:
        return None
    out = ["bacon", "simulate"]
    words = iter(estimate[2:])
    for word in words:
        if word in ("--scale", "--wave", "--better"):  # simulate draws its own waves
            next(words)
        elif not word.startswith("--scale=") and word != "--drop-unscored":
            out.append(word)
    if budgets:
        out += ["--budgets", ",".join(f"{b:g}" for b in budgets)]
    return out + ["--drop-unlabeled"] * unlabeled + ["--out", SIMULATE_OUT]


def _no_sparse(frame: pd.DataFrame, item: str | None) -> str:
    """Why no column was taken as the label when none is sparse: the columns named like
    one, with too few values or with a value on most rows (``""``: none such)."""
    dense = _named_like_labels(frame, item)
    few = [c for c in dense if frame[c].notna().sum() < 2]
    dense = [c for c in dense if c not in few]
    said = [f"{c}, named like a label, has {_values(frame[c])}" for c in few]
    if dense:
        shown = ", ".join(dense[:4]) + (f" and {len(dense) - 4} more" if len(dense) > 4 else "")
        said.append(f"numeric columns named like human ratings, with a value on most rows: {shown}")
    if not said:
        return ""
    return (
        f"no numeric column with a value on 2 or more but under {DENSE:.0%} of rows; "
        f"{'; '.join(said)}; pass --label NAME to use one as the label"
    )


def label_scale(
    y: np.ndarray, name: str, place: Callable[[int], str], judge_scales: dict[str, str]
) -> tuple[Scale | None, str]:
    """The label's scale, the one the labels show (:func:`~bacon_bayes.scale.infer_scale`)
    without the ones far outside the others' (typos: 77 among 1-10 labels), and what to
    say of those (``""``: none) with the fix: the command takes the others' scale, which
    ``bacon estimate`` refuses them against.

    Parameters
    ----------
    y, name, place
        The labels (NaN where empty), the label column and where a row is, as
        :func:`~bacon_bayes.scale.label_codes` takes them.
    judge_scales : dict
        Judge -> its scale as ``LOW:HIGH`` (``-``: none), for :func:`_judges_top`.

    Returns
    -------
    scale : Scale or None
    far : str
    """
    said, clean = far_labels(y, name, place)
    if clean is None:
        return _judges_top(infer_scale(y), judge_scales), ""
    how = f"{clean.how}; without the labels far outside it (below)"
    scale = _judges_top(dataclasses.replace(clean, how=how), judge_scales) or clean
    return scale, (
        f"{said} Fix them (or empty those cells: not labeled) and the command below runs: "
        f"it takes --scale {scale.text}, the others' scale, and bacon estimate refuses "
        "labels outside it; if they are right, widen its --scale to hold them"
    )


def _judges_top(scale: Scale | None, judge_scales: dict[str, str]) -> Scale | None:
    """An integer label scale whose top the labels may not have reached yet (1:4 with
    judges on 1:5) taken to the judges' top: a scale too wide only widens intervals, one
    too narrow clips them wrongly and refuses the next wave's top labels."""
    if scale is None or scale.ratings != 1 or "every level seen" not in scale.how:
        return scale
    tops = [
        hi
        for lo, hi in (map(float, t.split(":")) for t in judge_scales.values() if t != "-")
        if lo == scale.low and scale.high < hi <= 10 and scale.high - scale.low >= 2
    ]
    if not tops:
        return scale
    top = min(tops)
    how = (
        f"{scale.how}, and judges score up to {top:g}: taken as {scale.low:g}:{top:g} "
        f"(--scale {scale.text} if {scale.high:g} is the top)"
    )
    return dataclasses.replace(scale, high=top, how=how)


def said_missing(path: str, column: str | None, kind: str) -> str:
    """A note when cells of the label ``column`` of the CSV at ``path`` are written as
    "no value" (``N/A``, ``null``, ``-``: :data:`~bacon_bayes.words.MISSING_WORDS`), which
    bacon reads as no label as it reads an empty cell; ``""`` when none are, or the file
    is no CSV holding the column (a labels file joined, a log). A labeller's ``N/A`` is
    no empty cell: the item was drawn and looked at, and its label is missing, perhaps
    because of its value."""
    from pathlib import Path

    from bacon_bayes.csv_format import csv_options
    from bacon_bayes.words import says_missing

    if column is None or kind not in ("csv", "tsv") or not Path(path).is_file():
        return ""
    try:
        raw = pd.read_csv(
            path, usecols=[column], dtype=str, keep_default_na=False, **csv_options(path)
        )[column]
    except (ValueError, OSError, UnicodeError, pd.errors.ParserError):
        return ""
    said = raw[says_missing(raw)].str.strip()
    if said.empty:
        return ""
    words = ", ".join(f"{w!r} ({n})" for w, n in said.value_counts().items())
    return (
        f"{len(said)} cell(s) of the label {column!r} say no value ({words}), read as no "
        "label: those items count as never labeled. If a labeller wrote them for items "
        "that could not be rated, the labels left are not a random draw of the items sent "
        "(their absence may follow the value): rate those items, or decide what they "
        "count as and write it"
    )
