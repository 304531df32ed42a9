"""The Hub dataset ``lmsys/mt_bench_human_judgments`` as its two splits are saved: the
``gpt4_pair`` split (judge ``gpt4_pair``: GPT-4's verdicts) is a judge's file, the
``human`` split (judges ``author_N`` / ``expert_N``) its ``--labels``.

Both have the columns ``question_id``, ``model_a``, ``model_b``, ``winner``, ``judge``,
``conversation_a``, ``conversation_b`` and ``turn``, as JSON, JSON Lines, CSV or Parquet;
:func:`~bacon_bayes.readers.pairwise.judge_split` tells them apart by their judges.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pandas as pd

from bacon_bayes.readers.meta import TableMeta
from bacon_bayes.readers.pairwise import _records, judge_split, read_mt_bench

__all__ = ["human_split_beside", "read_with_labels", "table_format", "votes_missing"]

#: the columns of both splits that tell them (the conversations are not read)
SPLIT_COLUMNS = ("question_id", "model_a", "model_b", "winner", "judge", "turn")
#: the files beside a judges' split looked at for its human split, and their largest size
MAX_BESIDE, MAX_BYTES = 20, 200_000_000
ENDINGS = (".json", ".jsonl", ".csv", ".parquet")


def table_format(path: Path, kind: str) -> str | None:
    """``mt-bench`` for a CSV or Parquet table of one split (its columns and judges, as
    :func:`~bacon_bayes.readers.pairwise.judge_split` reads them), None for any other."""
    if kind == "csv":
        from bacon_bayes.csv_format import table_header

        columns = table_header(path)
    elif kind == "parquet":
        import pyarrow.parquet as pq

        columns = pq.read_schema(path).names
    else:
        return None
    if not set(SPLIT_COLUMNS) <= set(columns):
        return None
    return "mt-bench" if judge_split(_records(path)) else None


def read_with_labels(path: Path, labels: str | Path) -> tuple[pd.DataFrame, TableMeta]:
    """MT-Bench judgments ``path`` (FastChat's ``gpt-4_pair.jsonl``, or the Hub's
    ``gpt4_pair`` split) with the human judgments ``labels`` as their votes."""
    if "g1_winner" in _records(path)[0]:
        return read_mt_bench(path, human=labels)
    return read_mt_bench(human=[path, labels])  # the judges' split first: its orientation


def human_split_beside(path: Path) -> Path | None:
    """A file beside ``path`` holding MT-Bench's human split (every judge a person), those
    named ``*human*`` looked at first; None when none of the first :data:`MAX_BESIDE`
    data files there is."""
    files = [
        f for f in sorted(path.parent.iterdir(), key=lambda f: "human" not in f.name.lower())
        if f.is_file() and f != path and f.name.lower().endswith(ENDINGS)
        and f.stat().st_size <= MAX_BYTES
    ]  # fmt: skip
    for f in files[:MAX_BESIDE]:
        try:
            if judge_split(_records(f)) == "human":
                return f
        except (ValueError, KeyError, TypeError, OSError):
            continue  # not a table of records
    return None


def votes_missing(path: str | Path, judges: list[str]) -> str:
    """What doctor says of a judges' split without votes: what it is, where the votes
    are, and the ``bacon doctor`` line with them as ``--labels`` (the human split beside
    it, named as it is there; else the file the Hub's split is to be saved as); "" for
    any other file."""
    path = Path(path)
    if judge_split(_records(path)) != "judges":
        return ""
    shown = ", ".join(map(repr, judges))
    said = (
        f"no human vote: {path.name} holds model judges' verdicts alone (judge {shown}, as "
        "the gpt4_pair split of lmsys/mt_bench_human_judgments holds GPT-4's), read as a "
        "judge column by question, turn and model pair; the human votes are the dataset's "
        "human split (judges author_N / expert_N): give it as --labels. "
    )
    human = human_split_beside(path)
    if human is not None:
        line = shlex.join(["bacon", "doctor", str(path), "--labels", str(human)])
        return said + f"It is beside it: {line}"
    from bacon_bayes.outputs import unused_name

    name = unused_name(str(path.parent / "mt_bench_human"), ".jsonl")
    save = f"load_dataset('lmsys/mt_bench_human_judgments', split='human').to_json({name!r})"
    line = shlex.join(["bacon", "doctor", str(path), "--labels", name])
    return said + f"Save it (Python, datasets: {save}), then: {line}"
