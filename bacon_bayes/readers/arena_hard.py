"""Arena-Hard's judgment files as comparisons of each model with the baseline.

Format (lmarena/arena-hard-auto ``gen_judgment.py``, 2024-2025):
``data/<bench>/model_judgment/<judge>/<model>.jsonl``, one JSON object per line with
``question_id`` (``uid`` in arena-hard-v2.0, beside its ``category``), ``model`` (the
answering model), ``judge`` and ``games``: two games, each with ``user_prompt``,
``judgment`` and ``score`` (``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A``; also ``A<B``...
as ``show_result.py`` reads them; null where no verdict was parsed). Game 1 shows the
baseline's answer as A and the model's as B, game 2 the other way round. The baseline
(``gpt-4-0314`` in arena-hard-v0.1) is the judge configuration's, named in no line.

:func:`read_arena_hard` reads a file or a folder of them (every ``*.jsonl`` under it:
several judges' folders give each judge its columns) into the canonical frame of
:mod:`bacon_bayes.readers.pairwise`: one row per question and model, ``model_a`` the
model, ``model_b`` the baseline, ``label`` empty (no human voted), and per judge two
verdict columns ``<judge>_game1`` and ``<judge>_game2``, both from the model's side
(``A``: the model's answer won).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.readers.meta import TableMeta

__all__ = ["is_arena_hard", "looks_like", "read_arena_hard"]

#: a game's score as who won, A and B as the game showed them (a strong preference a win)
SCORES = {
    "a>>b": "A", "a>b": "A", "b<a": "A", "b<<a": "A",
    "a=b": "tie", "b=a": "tie",
    "b>a": "B", "b>>a": "B", "a<b": "B", "a<<b": "B",
}  # fmt: skip
STRONG = {"a>>b", "b>>a", "a<<b", "b<<a"}
#: the baselines of the released benchmarks (the judge configuration names them)
KNOWN_BASELINES = (
    "arena-hard-v0.1: gpt-4-0314; arena-hard-v2.0: o3-mini-2025-01-31 (hard_prompt), "
    "gemini-2.0-flash-001 (creative_writing)"
)


def looks_like(record: Any) -> bool:
    """Whether a JSON record is an Arena-Hard judgment line (``model``, ``games``)."""
    return isinstance(record, dict) and "model" in record and isinstance(record.get("games"), list)


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*.jsonl") if p.is_file())
    return [path]


def is_arena_hard(path: str | Path) -> bool:
    """Whether ``path`` is an Arena-Hard judgment file, or a folder whose first JSON Lines
    file is one."""
    from bacon_bayes.readers.jsonl import first_object

    path = Path(path)
    if not path.exists() or not (path.is_dir() or path.name.lower().endswith((".jsonl", ".json"))):
        return False
    files = _files(path)
    try:
        return bool(files) and looks_like(first_object(files[0]))
    except (ValidationError, ValueError, OSError):
        return False


def _verdict(game: Any, where: str) -> tuple[str | float, bool]:
    """A game's verdict as A / B / tie of the game's own positions (NaN: none parsed) and
    whether it is a strong preference."""
    score = game.get("score") if isinstance(game, dict) else None
    if score is None or (isinstance(score, str) and not score.strip()):
        return float("nan"), False
    word = str(score).strip().strip("[]").replace(" ", "").lower()
    if word not in SCORES:
        raise ValidationError(
            f"{where}: score {score!r} is not an Arena-Hard verdict (A>>B, A>B, A=B, B>A, "
            "B>>A); fix the line or drop it."
        )
    return SCORES[word], word in STRONG


def _lines(path: Path) -> list[tuple[Path, int, dict[str, Any]]]:
    """Every judgment line of ``path`` with its file and line number."""
    from bacon_bayes.readers.jsonl import read_lines

    files = _files(path)
    if not files:
        raise ValidationError(
            f"{str(path)!r} holds no .jsonl file; pass Arena-Hard's model_judgment/<judge>/ "
            "folder or one of its files."
        )
    out = []
    for f in files:
        for number, record in enumerate(read_lines(f), start=1):
            if not looks_like(record) or not ("question_id" in record or "uid" in record):
                raise ValidationError(
                    f"{str(f)!r} line {number} is no Arena-Hard judgment (question_id or uid, "
                    "model, judge, games); pass the model_judgment/<judge>/ folder alone."
                )
            out.append((f, number, record))
    return out


def _said(lines: list[tuple[Path, int, dict[str, Any]]]) -> str:
    judges = sorted({str(r.get("judge")) for _, _, r in lines})
    models = sorted({str(r["model"]) for _, _, r in lines})
    questions = {str(r.get("question_id", r.get("uid"))) for _, _, r in lines}
    shown = ", ".join(models[:8]) + (", ..." if len(models) > 8 else "")
    return (
        f"Arena-Hard judgments: {len(lines)} lines of judge {', '.join(judges)} on "
        f"{len(models)} models ({shown}) and {len(questions)} questions, two games each "
        "(game 1 shows the baseline's answer first, game 2 the model's)"
    )


def read_arena_hard(
    path: str | Path, baseline: str | None = None
) -> tuple[pd.DataFrame, TableMeta]:
    """Read Arena-Hard judgments (a file or a folder, see the module docstring).

    Parameters
    ----------
    path : str or Path
        ``model_judgment/<judge>/<model>.jsonl``, or a folder of them.
    baseline : str
        The baseline model every line was judged against (no line names it).

    Returns
    -------
    frame, meta
        The canonical frame and its :class:`TableMeta`; ``frame.attrs["votes missing"]``
        says where human votes go (none is in the files) with the line that writes the
        frame as CSV.

    Raises
    ------
    ValidationError
        No baseline (with what was read), a line of another format, a score that is no
        verdict, or a question judged twice for one model by one judge.
    """
    path = Path(path)
    if not path.exists():
        raise ValidationError(f"{str(path)!r} does not exist; check the path.")
    lines = _lines(path)
    said = _said(lines)
    if not baseline:
        raise ValidationError(
            f"{said}; the baseline model is in none of them (game 1 shows it as A): name "
            f"it: bacon doctor {shlex.quote(str(path))} --baseline-model NAME (the judge "
            f"configuration's baseline; {KNOWN_BASELINES}). No human vote is in them "
            "either: doctor then prints the line that writes them as a table of "
            "comparisons, to which human votes go as --labels."
        )
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    seen: dict[tuple[str, str, str], str] = {}
    judges: list[str] = []
    strong: dict[str, int] = {}
    empty, itself = 0, 0
    for f, number, r in lines:
        question, model = r.get("question_id", r.get("uid")), str(r["model"])
        judge, where = str(r.get("judge", "judge")), f"{str(f)!r} line {number}"
        if model == baseline:
            itself += 1
            continue
        if (key := (str(question), model, judge)) in seen:
            raise ValidationError(
                f"{seen[key]} and {where}: judge {judge!r} judged model {model!r} on question "
                f"{question!r} twice; keep one of the two lines."
            )
        seen[key] = where
        row = rows.setdefault(
            key[:2],
            {"id": f"{question}|{model}", "prompt": question, "model_a": model,
             "model_b": baseline, "label": float("nan"),
             **({"category": r["category"]} if "category" in r else {})},
        )  # fmt: skip
        games = list(r["games"]) + [None] * (2 - len(r["games"]))
        for k, game in enumerate(games[:2], start=1):
            column = f"{judge}_game{k}"
            verdict, is_strong = _verdict(game, f"{where}, game {k}")
            if k == 1:  # the baseline shown as A: from the model's side, A and B swap
                verdict = {"A": "B", "B": "A"}.get(verdict, verdict)  # type: ignore[arg-type]
            row[column] = verdict
            strong[column] = strong.get(column, 0) + is_strong
            empty += not isinstance(verdict, str)
            if column not in judges:
                judges.append(column)
    frame = pd.DataFrame(list(rows.values()))
    extra = [c for c in ("category",) if c in frame.columns]
    frame = frame[["id", "prompt", "model_a", "model_b", "label", *judges, *extra]]
    notes = [
        f"{said}: {len(frame)} comparisons, each model (model_a) against the baseline "
        f"{baseline!r} (model_b)",
        "each judge gives two columns, JUDGE_game1 and JUDGE_game2, both as A = the model's "
        "answer won: in game1 it was shown second (the baseline first), in game2 first, so a "
        "lean to the first-shown answer has opposite signs",
    ]
    if sum(strong.values()):
        notes.append(
            f"{sum(strong.values())} verdicts are strong preferences (A>>B / B>>A: "
            + ", ".join(f"{n} in {c}" for c, n in strong.items() if n)
            + "), read as wins (Arena-Hard's show_result counts one as 3 wins)"
        )
    if empty:
        notes.append(f"{empty} game(s) have no verdict (score null): empty cells")
    if itself:
        notes.append(f"{itself} lines judge the baseline {baseline!r} against itself: left out")
    frame.attrs["votes missing"] = _votes_missing(path, baseline, frame)
    meta = TableMeta(
        format="arena-hard", item="id", judges=judges, group="model_a", prompt="prompt",
        notes=notes, judge_kinds={j: "an Arena-Hard judge's verdict (A/B/tie)" for j in judges},
        pairwise=True, model_a="model_a", model_b="model_b", label="label",
        other_scores=extra,
    )  # fmt: skip
    return frame, meta


def flatten_line(path: str | Path, baseline: str) -> tuple[str, str]:
    """The line that writes Arena-Hard judgments ``path`` as a CSV of comparisons (read
    as :func:`read_arena_hard` reads them), and that CSV's name (one the working folder
    does not hold)."""
    from bacon_bayes.csv_format import python_command
    from bacon_bayes.outputs import unused_name

    path = Path(path)
    stem = re.sub(r"[^\w.-]+", "_", path.name if path.is_dir() else path.stem)
    out = unused_name(f"arena_hard_{stem}")
    line = python_command(
        "from bacon_bayes.readers.arena_hard import read_arena_hard; "
        f"read_arena_hard({str(path)!r}, baseline={baseline!r})[0].to_csv({out!r}, index=False)"
    )
    return line, out


def _votes_missing(path: Path, baseline: str, frame: pd.DataFrame) -> str:
    """What doctor says where the votes are missing: the line that writes the comparisons
    as a table, and the votes to give it as ``--labels``."""
    line, out = flatten_line(path, baseline)
    budget = min(len(frame), max(10, round(0.05 * len(frame))))
    first = frame["id"].iloc[0] if len(frame) else "QUESTION|MODEL"
    return (
        "no human vote: Arena-Hard's judgments hold none. Write them as a table of "
        f"comparisons: {line}\nthen draw the comparisons to vote on: bacon sample {out} "
        f"--pairwise --design uniform --budget {budget} (it writes them with to_label = 1), "
        f"or give votes you have as --labels: a CSV of id (as the table writes it: "
        f"{first!r}) and vote (A = the model's answer beat the baseline's, B = the "
        f"baseline's, tie; not named label, the table's empty column): bacon doctor {out} "
        "--labels VOTES.csv --label vote"
    )
