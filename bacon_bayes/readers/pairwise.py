"""Reading pairwise-preference files: Chatbot Arena votes, AlpacaEval annotations and
MT-Bench judgments, each into one canonical wide table of comparisons.

The canonical frame has one row per comparison and the columns ``id``, ``prompt``,
``model_a``, ``model_b``, ``label`` (the human verdict ``A``, ``B`` or ``tie``, NaN where
no human voted) and one column per judge holding that judge's verdict (``A``/``B``/
``tie``, NaN where it gave none; MT-Bench: one per judge and game, see
:func:`read_mt_bench`), then any extra columns the format has (``turn``,
``n_votes``). ``A`` means ``model_a``'s answer won. Long sources (one row per judge and
comparison) are pivoted: a comparison is a prompt (and turn) and an unordered pair of
models; its orientation is the first one seen, and a row with the pair the other way round
has its verdict flipped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.pairs import VERDICT_HELP, VERDICTS
from bacon_bayes.readers.meta import TableMeta

__all__ = [
    "PAIR_FORMATS",
    "flip",
    "read_alpacaeval",
    "read_arena",
    "read_mt_bench",
    "read_pairwise",
    "sniff_pairwise",
    "to_verdict",
]

#: The formats :func:`read_pairwise` knows.
PAIR_FORMATS = ("arena", "alpacaeval", "mt-bench", "arena-hard")

_NUMBERS = {1.0: "A", 0.0: "B", 0.5: "tie"}
#: the verdict words (``model_a``, ``tie (bothbad)``, ``[[C]]``, Arena-Hard's ``A>>B`` ...)
#: as who wins: the pool's one table of them (:data:`bacon_bayes.pairs.VERDICTS`)
_WORDS = {k: _NUMBERS[v] for k, v in VERDICTS.items() if not k[:1].isdigit()}


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip() in ("", "nan", "NaN", "null", "None")


def to_verdict(value: Any, where: str = "") -> str | float:
    """One verdict as ``A``, ``B``, ``tie`` or NaN (missing).

    Accepts A/B/tie (any case), left/right (a labelling tool's first and second answer),
    the Arena spellings ``model_a``/``model_b``/``tie``/
    ``tie (bothbad)``, FastChat's ``model_1``/``model_2``, its pair judge's ``[[A]]``/
    ``[[B]]``/``[[C]]`` (C: a tie), Arena-Hard's ``A>>B``/``A>B``/``A=B``/``B>A``/``B>>A``
    (with or without ``[[ ]]``; a strong preference is a win), and 1/0/0.5 (model_a's
    score).

    Raises
    ------
    ValidationError
        Any other value, naming ``where`` (file, row, field).
    """
    if _missing(value):
        return float("nan")
    if isinstance(value, bool):
        raise ValidationError(f"{where}: {value!r} is not a verdict; {VERDICT_HELP}.")
    if isinstance(value, int | float):
        if float(value) in _NUMBERS:
            return _NUMBERS[float(value)]
    elif isinstance(value, str):
        word = value.strip().lower()
        if word in _WORDS:
            return _WORDS[word]
        try:
            number = float(word)
        except ValueError:
            number = float("nan")
        if number in _NUMBERS:
            return _NUMBERS[number]
    raise ValidationError(f"{where}: {value!r} is not a verdict; {VERDICT_HELP}.")


def flip(verdict: str | float) -> str | float:
    """The verdict with the two models swapped (A <-> B; tie and NaN stay)."""
    return {"A": "B", "B": "A"}.get(verdict, verdict) if isinstance(verdict, str) else verdict


def _records(path: Path) -> list[dict[str, Any]]:
    """The rows of a CSV, JSON (a list of records) or JSON Lines file, as dicts."""
    from bacon_bayes.io import read_table
    from bacon_bayes.readers.jsonl import is_json_lines, json_records, read_lines

    if not path.exists():
        raise ValidationError(f"file {str(path)!r} does not exist; check the path.")
    if path.is_dir():
        raise ValidationError(f"{str(path)!r} is a folder; pass a file.")
    name = path.name.lower()
    if name.endswith((".jsonl", ".ndjson")) or (name.endswith(".json") and is_json_lines(path)):
        return read_lines(path)
    if name.endswith(".json"):
        form = (
            "a pairwise file holds one object per comparison, like "
            '[{"model_a": ..., "model_b": ..., ...}]'
        )
        doc = json_records(path, form, columns=True)
        if not doc:
            raise ValidationError(f"{str(path)!r} holds no records; it is empty.")
        return doc
    frame = read_table(path)
    return [dict(zip(frame.columns, row, strict=True)) for row in frame.itertuples(index=False)]


def _require(rows: list[dict[str, Any]], fields: Iterable[str], path: Path, fmt: str) -> None:
    for number, row in enumerate(rows, start=1):
        lost = [f for f in fields if f not in row or _missing(row[f])]
        if lost:
            raise ValidationError(
                f"{str(path)!r} row {number}: field {lost[0]!r} is missing or empty; every "
                f"row of the {fmt} file needs {', '.join(fields)}: fill it or drop the row."
            )


def _pivot(
    long: list[dict[str, Any]], path: Path, human: str = "label"
) -> tuple[pd.DataFrame, list[str], int]:
    """Long verdicts -> the canonical wide frame.

    ``long`` holds dicts with ``key`` (prompt and turn), ``prompt``, ``a``, ``b``,
    ``who`` (``human`` or a judge name), ``verdict``, ``row`` (for messages) and optional
    ``turn``. Several human votes on one comparison give the majority (``tie`` when the
    top two are equally frequent) and an ``n_votes`` column; a judge twice is refused.
    """
    comps: dict[tuple[Any, ...], dict[str, Any]] = {}
    judges: list[str] = []
    several = 0
    for rec in long:
        a, b = str(rec["a"]), str(rec["b"])
        if a == b:
            raise ValidationError(
                f"{str(path)!r} row {rec['row']}: both models are {a!r}; a comparison needs "
                "two different models: fix or drop the row."
            )
        key = (rec["key"], frozenset((a, b)))
        comp = comps.get(key)
        if comp is None:
            comp = {"prompt": rec["prompt"], "model_a": a, "model_b": b, "votes": [], "seen": {}}
            if "turn" in rec:
                comp["turn"] = rec["turn"]
            comps[key] = comp
        verdict = rec["verdict"] if comp["model_a"] == a else flip(rec["verdict"])
        who = rec["who"]
        if who == human:
            if isinstance(verdict, str):
                comp["votes"].append(verdict)
            continue
        if who in comp["seen"]:
            raise ValidationError(
                f"{str(path)!r} rows {comp['seen'][who]} and {rec['row']}: judge {who!r} "
                f"judged the comparison {a} vs {b} on prompt {rec['prompt']!r} twice; keep "
                "one of the two rows."
            )
        comp["seen"][who] = rec["row"]
        comp[who] = verdict
        if who not in judges:
            judges.append(who)
    rows = []
    for comp in comps.values():
        votes = comp.pop("votes")
        comp.pop("seen")
        comp["label"] = _majority(votes)
        comp["n_votes"] = len(votes)
        several += len(votes) > 1
        rows.append(comp)
    frame = pd.DataFrame(rows)
    for j in judges:
        if j not in frame.columns:
            frame[j] = float("nan")
    turn = ["turn"] if "turn" in frame.columns else []
    frame.insert(0, "id", _ids(frame, turn))
    extra = turn + (["n_votes"] if several else [])
    frame = frame[["id", "prompt", "model_a", "model_b", "label", *judges, *extra]]
    return frame.reset_index(drop=True), judges, several


def _majority(votes: list[str]) -> str | float:
    if not votes:
        return float("nan")
    counts = pd.Series(votes).value_counts()
    if len(counts) > 1 and counts.iloc[0] == counts.iloc[1]:
        return "tie"
    return str(counts.index[0])


def _ids(frame: pd.DataFrame, turn: list[str]) -> list[str]:
    parts = [frame["prompt"].astype(str)]
    if turn:
        parts.append("t" + frame["turn"].astype(str))
    parts += [frame["model_a"].astype(str), frame["model_b"].astype(str)]
    ids = parts[0]
    for p in parts[1:]:
        ids = ids + "|" + p
    return list(ids)


def _judge_name(value: Any) -> str:
    """A judge's column name: FastChat's ``["gpt-4", "pair-v2"]`` -> ``gpt-4/pair-v2``
    (the ``-multi-turn`` prompt of turn 2 is the same judge: the suffix is dropped)."""
    if isinstance(value, list | tuple):
        return "/".join(str(v) for v in value).removesuffix("-multi-turn")
    return str(value)


def _meta(fmt: str, judges: list[str], notes: list[str], extra: Sequence[str] = ()) -> TableMeta:
    return TableMeta(
        format=fmt,
        item="id",
        judges=list(judges),
        group="model_a",
        prompt="prompt",
        notes=notes,
        judge_kinds={j: f"a {fmt} judge's verdict (A/B/tie)" for j in judges},
        pairwise=True,
        model_a="model_a",
        model_b="model_b",
        label="label",
        other_scores=list(extra),
    )


# ---------------------------------------------------------------- Arena


def read_arena(
    path: str | Path,
    *,
    judges: Sequence[str] | None = None,
    keep: Sequence[str] = (),
) -> tuple[pd.DataFrame, TableMeta]:
    """Read Chatbot Arena-style votes: one row per comparison.

    Format: the LMSYS ``chatbot_arena_conversations`` / arena human-preference release
    (2023-2024), as CSV, JSON (a list of records) or JSON Lines, with ``model_a``,
    ``model_b`` and ``winner`` in {model_a, model_b, tie, tie (bothbad)} (A/B/tie and
    1/0/0.5 are read too); ``question_id`` (or ``prompt_id``/``prompt``) is the prompt.
    Judge verdict columns are optional: ``judges`` names them, else every other column
    whose values are all verdict words (A/B/tie, model_a, ...) and whose name does not
    start with ``human`` is taken. A named judge column of numbers in [0, 1] that are not
    all 0, 0.5 or 1 is a judge's probability that A wins and is kept as numbers. The
    human vote is ``winner`` (else ``label``, else ``human_label``). Rows are not merged
    (each vote is a comparison); ``winner`` may be empty (no human vote).

    Parameters
    ----------
    path : str or Path
        The file.
    judges : sequence of str, optional
        Judge verdict columns (default: found by their values).
    keep : sequence of str
        Other columns to carry over (e.g. ``language``).

    Returns
    -------
    frame, meta
        The canonical frame (``id``, ``prompt``, ``model_a``, ``model_b``, ``label``,
        judges, ``keep``) and its :class:`TableMeta`.
    """
    path = Path(path)
    rows = _records(path)
    _require(rows, ("model_a", "model_b"), path, "Arena")
    cols = list(dict.fromkeys(k for r in rows for k in r))
    winner = next((c for c in ("winner", "label", "human_label") if c in cols), None)
    if winner is None and not judges:
        raise ValidationError(
            f"{str(path)!r} has no 'winner' column (the human vote: model_a, model_b, tie or "
            "tie (bothbad)) and no judge columns were named; add the column or pass judges=."
        )
    prompt = next((c for c in ("question_id", "prompt_id", "prompt") if c in cols), None)
    ident = next((c for c in ("id", "row_id", "battle_id") if c in cols), None)
    skip = {"model_a", "model_b", winner, prompt, ident, *keep}
    if judges is None:
        judges = [
            c
            for c in cols
            if c not in skip
            and not str(c).lower().startswith("human")
            and _all_verdicts(r.get(c) for r in rows)
        ]
    for j in judges:
        if j not in cols:
            raise ValidationError(
                f"{str(path)!r} has no judge column {j!r}; its columns: {', '.join(cols[:20])}."
            )
    for c in keep:
        if c not in cols:
            raise ValidationError(f"{str(path)!r} has no column {c!r} to keep.")
    probs = {j for j in judges if _probabilities(r.get(j) for r in rows)}
    out: dict[str, list[Any]] = {c: [] for c in ("id", "prompt", "model_a", "model_b", "label")}
    out.update({j: [] for j in judges})
    out.update({c: [] for c in keep})
    bothbad = 0
    for number, r in enumerate(rows, start=1):
        a, b = str(r["model_a"]), str(r["model_b"])
        if a == b:
            raise ValidationError(
                f"{str(path)!r} row {number}: both models are {a!r}; a comparison needs two "
                "different models: fix or drop the row."
            )
        out["id"].append(str(r[ident]) if ident else str(number))
        out["prompt"].append(r[prompt] if prompt else out["id"][-1])
        out["model_a"].append(a)
        out["model_b"].append(b)
        where = f"{str(path)!r} row {number}, field"
        raw = r.get(winner) if winner else None
        bothbad += isinstance(raw, str) and "bothbad" in raw.replace(" ", "").lower()
        out["label"].append(to_verdict(raw, f"{where} {winner!r}"))
        for j in judges:
            value = r.get(j)
            if j in probs:
                out[j].append(float("nan") if value is None or _missing(value) else float(value))
            else:
                out[j].append(to_verdict(value, f"{where} {j!r}"))
        for c in keep:
            out[c].append(r.get(c))
    notes = [f"Arena votes: {len(rows)} comparisons, judges: {', '.join(judges) or 'none'}."]
    if probs:
        notes.append(f"judges {', '.join(sorted(probs))} hold P(A wins), kept as numbers.")
    if bothbad:
        notes.append(f"{bothbad} 'tie (bothbad)' votes are read as tie.")
    return pd.DataFrame(out), _meta("arena", list(judges), notes, keep)


def _probabilities(values: Iterable[Any]) -> bool:
    """Whether a named judge column holds probabilities that A wins: all numbers in
    [0, 1], some of them not 0, 0.5 or 1."""
    seen = set()
    for v in values:
        if _missing(v):
            continue
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
            return False
        seen.add(float(v))
    return bool(seen - set(_NUMBERS))


def _all_verdicts(values: Iterable[Any]) -> bool:
    seen = False
    for v in values:
        if _missing(v):
            continue
        if not isinstance(v, str) or v.strip().lower() not in _WORDS:
            return False
        seen = True
    return seen


# ---------------------------------------------------------------- AlpacaEval


def _preference(value: Any, where: str, probabilities: bool) -> str | float:
    """AlpacaEval's preference: 1 = output_1 wins, 2 = output_2 wins, 1.5 or 0 = tie,
    values between 1 and 2 (weighted annotators) = 1 + P(output_2 wins)."""
    if _missing(value):
        return float("nan")
    try:
        p = float(value)
    except (TypeError, ValueError):
        p = float("nan")
    if math.isnan(p) or isinstance(value, bool) or not (p == 0 or 1 <= p <= 2):
        raise ValidationError(
            f"{where}: {value!r} is not an AlpacaEval preference; it is 1 (output_1 "
            "preferred), 2 (output_2 preferred), 1.5 or 0 (tie), or between 1 and 2 (weighted "
            "annotators): fix the value or drop the record."
        )
    if p == 0:
        p = 1.5
    if probabilities:
        return 2.0 - p
    return "A" if p < 1.5 else "B" if p > 1.5 else "tie"


def _graded(value: Any) -> bool:
    """Whether an AlpacaEval preference is a weighted annotator's, strictly between 1 and
    2 and not a tie (1.5)."""
    try:
        p = float(value)
    except (TypeError, ValueError):
        return False
    return 1.0 < p < 2.0 and p != 1.5


def read_alpacaeval(
    path: str | Path,
    *,
    human: str | Sequence[str] | None = "human",
    probabilities: bool = False,
) -> tuple[pd.DataFrame, TableMeta]:
    """Read an AlpacaEval ``annotations.json``.

    Format: alpaca_eval >= 0.5 (AlpacaEval 2.0, 2024; checked on tatsu-lab/alpaca_eval's
    ``results/*/alpaca_eval_gpt4_turbo_fn/annotations.json`` and ``metrics.py``): a JSON
    list of records with ``instruction``, ``output_1``, ``generator_1``, ``output_2``,
    ``generator_2``, ``annotator`` and ``preference`` (1 = output_1 preferred, 2 =
    output_2, 1.5 = tie, 0 = tie in versions before 0.6, a value between 1 and 2 from
    weighted annotators = 1 + P(output_2 wins); empty = no verdict). Model A is
    ``generator_1``; each annotator becomes a judge column.

    Parameters
    ----------
    path : str or Path
        The JSON (or JSON Lines) file.
    human : str or sequence of str, optional
        Annotator names that are humans: their preference is the ``label`` (default: the
        annotator ``human``).
    probabilities : bool
        Give judges P(A wins) = 2 - preference (a float in [0, 1]) instead of verdicts.
    """
    path = Path(path)
    rows = _records(path)
    _require(rows, ("instruction", "generator_1", "generator_2"), path, "AlpacaEval")
    humans = {human} if isinstance(human, str) else set(human or ())
    long = []
    graded = 0  # preferences between 1 and 2 read as the verdict they lean to
    for number, r in enumerate(rows, start=1):
        who = _judge_name(r.get("annotator", "annotator"))
        where = f"{str(path)!r} row {number}, field 'preference'"
        is_human = who in humans
        verdict = _preference(r.get("preference"), where, probabilities and not is_human)
        graded += isinstance(verdict, str) and _graded(r.get("preference"))
        long.append(
            {
                # a battle: its instruction and outputs (one pair battled twice: two)
                "key": (r["instruction"], frozenset((r.get("output_1"), r.get("output_2")))),
                "prompt": r["instruction"],
                "a": r["generator_1"],
                "b": r["generator_2"],
                "who": "label" if is_human else who,
                "verdict": verdict,
                "row": number,
            }
        )
    if probabilities:
        _orient_probabilities(long)
    frame, judges, several = _pivot(long, path)
    notes = [f"AlpacaEval annotations: {len(frame)} comparisons, judges: {', '.join(judges)}."]
    if several:
        notes.append(f"{several} comparisons have several human votes: label = the majority.")
    if graded:
        notes.append(
            f"{graded} preferences between 1 and 2 (weighted annotators' 1 + P(output_2 wins)) "
            "read as the verdict they lean to (1.49 as A), their weight not kept."
        )
    if humans and frame["label"].isna().all():
        notes.append(f"no annotator named {sorted(humans)}: no human labels.")
    return frame, _meta("alpacaeval", judges, notes)


def _swapped(long: list[dict[str, Any]]) -> list[bool]:
    """For each long record, whether it lists its pair the other way round than the first
    record of its comparison (the orientation :func:`_pivot` keeps)."""
    first: dict[tuple[Any, ...], str] = {}
    out = []
    for rec in long:
        key = (rec["key"], frozenset((str(rec["a"]), str(rec["b"]))))
        out.append(first.setdefault(key, str(rec["a"])) != str(rec["a"]))
    return out


def _orient_probabilities(long: list[dict[str, Any]]) -> None:
    """Turn P(A) of rows whose pair is swapped against the first seen into 1 - P(A)."""
    for rec, swapped in zip(long, _swapped(long), strict=True):
        if swapped and isinstance(rec["verdict"], float):
            rec["verdict"] = 1.0 - rec["verdict"]


# ---------------------------------------------------------------- MT-Bench

_GAME = {"model_1": "A", "model_2": "B", "tie": "tie"}
#: the suffixes of the two game columns of an MT-Bench judge
GAMES = ("game1", "game2")


def _game(g: Any, name: str, where: str) -> str | float:
    """One game's winner (``model_1``/``model_2``/``tie``) as A/B/tie of the pair
    ``model_1`` vs ``model_2``; ``error`` or empty: NaN (the judge gave no verdict)."""
    word = str(g).strip().lower() if not _missing(g) else "error"
    if word not in (*_GAME, "error"):
        raise ValidationError(
            f"{where} {name!r}: {g!r} is not a game winner; FastChat writes model_1, "
            "model_2, tie or error: fix the value or drop the row."
        )
    return float("nan") if word == "error" else _GAME[word]


def _turn_record(
    r: dict[str, Any], a: str, b: str, who: str, verdict: str | float, number: int
) -> dict[str, Any]:
    turn = r.get("turn", 1)
    return {
        "key": (r["question_id"], turn),
        "prompt": r["question_id"],
        "turn": turn,
        "a": r[a],
        "b": r[b],
        "who": who,
        "verdict": verdict,
        "row": number,
    }


def read_mt_bench(
    judgments: str | Path | None = None,
    human: str | Path | Sequence[str | Path] | None = None,
) -> tuple[pd.DataFrame, TableMeta]:
    """Read MT-Bench pairwise judgments and, optionally, its human judgments.

    Formats (FastChat ``fastchat/llm_judge``, 2023-2024):

    - ``judgments``: ``data/mt_bench/model_judgment/gpt-4_pair.jsonl``, one JSON object
      per line with ``question_id``, ``model_1``, ``model_2``, ``g1_winner``, ``g2_winner``
      (``model_1``/``model_2``/``tie``/``error``), ``judge`` (e.g. ``["gpt-4",
      "pair-v2"]``; the judge's name becomes ``gpt-4/pair-v2``, turn 2's
      ``pair-v2-multi-turn`` the same judge) and ``turn``. The judge saw each pair twice:
      game 1 showed ``model_1``'s answer first, game 2 the answers swapped (FastChat
      writes its winner already in model_1/model_2 terms). The two games are kept apart,
      as two judge columns ``JUDGE|game1`` and ``JUDGE|game2``, both verdicts on the same
      pair (``A`` = ``model_a`` = ``model_1`` won), so a judge model sees the position
      bias that FastChat's merged verdict (agree -> that winner, disagree -> tie) hides:
      in ``|game1`` the ``A`` answer was shown first (position bias = lean to the first
      answer), in ``|game2`` second (position bias = minus that lean). ``error`` leaves
      that game's verdict empty. (A judgment row listing its pair the other way round
      than the comparison's first row is flipped, and its positions run the other way;
      a note counts such rows.)
    - ``human``: the ``mt_bench_human_judgments`` release (``human_judgments.json``, a
      JSON list or JSON Lines) with ``question_id``, ``model_a``, ``model_b``, ``winner``
      (model_a/model_b/tie), ``judge`` (``author_N``/``expert_N``: the label; any other
      judge, such as ``["gpt-4", "pair-v2"]``, is a judge column) and ``turn``. The
      Hub's ``lmsys/mt_bench_human_judgments`` has it as two splits: ``human`` (the
      votes) and ``gpt4_pair`` (judge ``gpt4_pair``: GPT-4's verdicts, a judge column);
      several such files (the judges' split first) are read together.

    A comparison is (question, turn, unordered model pair); a row with the pair the other
    way round than first seen has its verdict flipped; several human votes on one
    comparison give the majority (``n_votes`` column).
    """
    if judgments is None and human is None:
        raise ValidationError("read_mt_bench needs a judgments file, a human file or both.")
    long: list[dict[str, Any]] = []
    humans = [human] if isinstance(human, str | Path) else list(human or ())
    where_path = Path(judgments if judgments is not None else humans[0])
    flipped = 0
    if judgments is not None:
        path = Path(judgments)
        rows = _records(path)
        need: tuple[str, ...] = ("question_id", "model_1", "model_2", "g1_winner", "g2_winner")
        _require(rows, (*need, "judge"), path, "MT-Bench judgment")
        for number, r in enumerate(rows, start=1):
            where = f"{str(path)!r} row {number}, field"
            judge = _judge_name(r["judge"])
            for game, field in zip(GAMES, ("g1_winner", "g2_winner"), strict=True):
                verdict = _game(r[field], field, where)
                long.append(
                    _turn_record(r, "model_1", "model_2", f"{judge}|{game}", verdict, number)
                )
        flipped = sum(
            swapped and rec["who"].endswith(f"|{GAMES[0]}")
            for rec, swapped in zip(long, _swapped(long), strict=True)
        )
    for path in map(Path, humans):
        rows = _records(path)
        need = ("question_id", "model_a", "model_b", "winner", "judge")
        _require(rows, need, path, "MT-Bench human")
        for number, r in enumerate(rows, start=1):
            name = _judge_name(r["judge"])
            who = "label" if name.startswith(HUMAN_JUDGES) else name
            verdict = to_verdict(r["winner"], f"{str(path)!r} row {number}, field 'winner'")
            long.append(_turn_record(r, "model_a", "model_b", who, verdict, number))
    frame, judges, several = _pivot(long, where_path)
    notes = [
        f"MT-Bench: {len(frame)} comparisons (question, turn, model pair), judges: "
        f"{', '.join(judges) or 'none'}; {int(frame['label'].notna().sum())} with a human vote."
    ]
    if judgments is not None:
        notes.append(
            "each judge gives two columns, JUDGE|game1 and JUDGE|game2 (the answers shown in "
            "both orders), both as A = model_a won: in game1 model_a's answer was shown "
            "first, in game2 second, so a lean to the first-shown answer has opposite signs."
        )
    if judgments is not None and flipped:
        notes.append(
            f"{flipped} judgment rows list their pair the other way round than the "
            "comparison: their verdicts are flipped, and in their game1 model_a was shown "
            "second."
        )
    if several:
        notes.append(f"{several} comparisons have several human votes: label = the majority.")
    return frame, _meta("mt-bench", judges, notes, ["turn"])


# ---------------------------------------------------------------- sniffing


#: the names MT-Bench's human voters go by (``author_N``, ``expert_N``)
HUMAN_JUDGES = ("author", "expert", "human")
#: a model judge's name: the Hub split's ``gpt4_pair``, FastChat's ``gpt-4/pair-v2``
MODEL_JUDGE = re.compile(r"gpt|claude|gemini|llama|mistral|qwen|palm|pair-v|single-v", re.I)


def judge_split(rows: Sequence[dict[str, Any]]) -> str | None:
    """Which split of MT-Bench's human judgments ``rows`` are: ``human`` where every
    ``judge`` is a person (``author_N``), ``judges`` where every one is a model judge (the
    Hub's ``gpt4_pair`` split); None for other rows (no ``turn``, ``winner``) or a mix."""
    if not rows or not {"turn", "judge", "winner"} <= set(rows[0]):
        return None
    names = {_judge_name(r.get("judge", "")) for r in rows}
    if all(n.startswith(HUMAN_JUDGES) for n in names):
        return "human"
    return "judges" if all(MODEL_JUDGE.search(n) for n in names) else None


#: what a file of MT-Bench's human judgments alone is for (said where it has no judge)
MT_BENCH_HUMANS = (
    " It holds MT-Bench's human judgments alone: pass it as --labels to a judges' file "
    "(FastChat's gpt-4_pair.jsonl: model_1, model_2, g1_winner; or the gpt4_pair split "
    "of lmsys/mt_bench_human_judgments)."
)


def sniff_pairwise(path: str | Path) -> str:
    """Which pairwise format ``path`` holds (``arena``, ``alpacaeval``, ``mt-bench``), from
    the fields of its first record.

    Raises
    ------
    ValidationError
        A file of none of them.
    """
    path = Path(path)
    rows = _records(path)
    first = rows[0]
    if "g1_winner" in first and "model_1" in first:
        return "mt-bench"
    if "preference" in first and "generator_1" in first:
        return "alpacaeval"
    if "games" in first and "model" in first:  # readers.arena_hard
        return "arena-hard"
    if "model_a" in first and "model_b" in first:
        name = _judge_name(first.get("judge", ""))
        if "turn" in first and (name.startswith(HUMAN_JUDGES[:2]) or judge_split(rows)):
            return "mt-bench"
        return "arena"
    raise ValidationError(
        f"{str(path)!r} is no pairwise format bacon knows (fields: "
        f"{', '.join(list(first)[:10])}); pass an Arena file (model_a, model_b, winner), an "
        "AlpacaEval annotations.json (generator_1, generator_2, preference) or an MT-Bench "
        "judgment file (model_1, model_2, g1_winner, g2_winner)."
    )


def read_pairwise(
    path: str | Path, format: str | None = None, baseline: str | None = None
) -> tuple[pd.DataFrame, TableMeta]:
    """Read a pairwise file into the canonical frame (see the module docstring).

    Parameters
    ----------
    path : str or Path
        An Arena, AlpacaEval or MT-Bench file (an MT-Bench human judgments file alone is
        read as labels without judges).
    format : str, optional
        One of :data:`PAIR_FORMATS`; sniffed from the first record when None.
    baseline : str, optional
        Arena-Hard's baseline model (:func:`~bacon_bayes.readers.arena_hard.read_arena_hard`).
    """
    kind = format or sniff_pairwise(path)
    if kind == "arena":
        return read_arena(path)
    if kind == "alpacaeval":
        return read_alpacaeval(path)
    if kind == "arena-hard":
        from bacon_bayes.readers.arena_hard import read_arena_hard

        return read_arena_hard(path, baseline)
    if kind == "mt-bench":
        first = _records(Path(path))[0]
        return read_mt_bench(path) if "g1_winner" in first else read_mt_bench(human=path)
    raise ValidationError(f"format {kind!r} is unknown; pass one of {', '.join(PAIR_FORMATS)}.")
