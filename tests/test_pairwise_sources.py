"""Pairwise sources walked as a new user has them (session 60): the Hub's MT-Bench human
judgments as its two splits, Arena-Hard's judgment files, and preference datasets
(``prompt``, ``chosen``, ``rejected``). Each file is written here, small, in the real
format; the lines doctor prints are run as printed."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from .test_pairwise_cli import _run

MODELS = ["gpt-4", "claude-v1", "gpt-3.5-turbo", "vicuna-13b-v1.2", "alpaca-13b", "llama-13b"]
STRENGTH = dict(zip(MODELS, [1.5, 1.0, 0.6, 0.2, -0.6, -1.2], strict=True))
PAIRS = [(a, b) for k, a in enumerate(MODELS) for b in MODELS[k + 1 :]]


def _bacon_line(text: str, command: str) -> list[str]:
    """The arguments of the first ``bacon COMMAND ...`` that ``text`` prints (written
    ``bacon``, ``.venv/bin/bacon`` or ``python -m bacon_bayes``), from the command on, up
    to the end of its line or a parenthesis after it."""
    found = re.search(rf"(?:\bbacon|-m bacon_bayes) {command} (.*?)(?: \(|$)", text, re.M)
    assert found is not None, f"no bacon {command} line in:\n{text}"
    return [command, *shlex.split(found.group(1))]


def _win(rng: np.random.Generator, a: str, b: str) -> str:
    """A verdict on ``a`` vs ``b`` from a Bradley-Terry model with ties, as MT-Bench spells it."""
    p = 1 / (1 + np.exp(STRENGTH[b] - STRENGTH[a]))
    u = rng.random()
    return "tie" if u < 0.15 else "model_a" if u < 0.15 + 0.85 * p else "model_b"


def _mt_bench_splits(rng: np.random.Generator) -> tuple[list[dict], list[dict]]:
    """The two splits of ``lmsys/mt_bench_human_judgments``: ``gpt4_pair`` (judge
    ``gpt4_pair``, every comparison of 24 questions x 2 turns x a few model pairs) and
    ``human`` (judges ``expert_N`` / ``author_N``, about 60% of those comparisons, some
    twice, a few with the pair listed the other way round)."""
    conversation = [
        {"content": "question", "role": "user"},
        {"content": "answer", "role": "assistant"},
    ]
    gpt4, human = [], []
    for q in range(81, 105):
        for turn in (1, 2):
            for k in rng.choice(len(PAIRS), 3, replace=False):
                a, b = PAIRS[k] if rng.random() < 0.5 else PAIRS[k][::-1]
                common = {"question_id": q, "model_a": str(a), "model_b": str(b)}
                gpt4.append(
                    {**common, "winner": _win(rng, a, b), "judge": "gpt4_pair",
                     "conversation_a": conversation, "conversation_b": conversation,
                     "turn": turn}
                )  # fmt: skip
                for _ in range(int(rng.random() < 0.6) + int(rng.random() < 0.2)):
                    swap = rng.random() < 0.2
                    x, y = (b, a) if swap else (a, b)
                    human.append(
                        {"question_id": q, "model_a": str(x), "model_b": str(y),
                         "winner": _win(rng, x, y), "judge": f"expert_{rng.integers(0, 9)}",
                         "conversation_a": conversation, "conversation_b": conversation,
                         "turn": turn}
                    )  # fmt: skip
    return gpt4, human


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize("judges_file", ["gpt4_pair.jsonl", "gpt4_pair.csv"])
def test_the_hub_s_gpt4_pair_split_is_a_judge_and_its_human_split_the_labels(
    judges_file: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Walk of session 60: the gpt4_pair split of lmsys/mt_bench_human_judgments was read
    as an Arena file, GPT-4's verdicts in ``winner`` taken for the human votes ("no judge
    verdict columns"). Its judge column is all a model judge's: ``winner`` is judge
    ``gpt4_pair``'s verdict keyed by question, turn and model pair; doctor says the human
    split is the labels, with the line (the file beside it, as named there), which runs
    and prints the estimate, which runs."""
    from bacon_bayes.readers.pair_table import read_pair_table

    gpt4, human = _mt_bench_splits(np.random.default_rng(60))
    monkeypatch.chdir(tmp_path)
    if judges_file.endswith(".csv"):
        pd.DataFrame(gpt4).to_csv(judges_file, index=False)
        _jsonl(Path("mt_bench_human.jsonl"), human)
        votes = "mt_bench_human.jsonl"
    else:
        _jsonl(Path(judges_file), gpt4)
        pd.DataFrame(human).to_csv("human_split.csv", index=False)
        votes = "human_split.csv"
    code, out, err = _run(["doctor", judges_file], capsys)
    assert code == 0, err
    assert "judges: gpt4_pair" in out and "0 with a human vote" in out, out
    assert "the human votes are the dataset's human split" in out, out
    line = _bacon_line(out, "doctor")
    assert line == ["doctor", judges_file, "--labels", votes], line
    code, out, err = _run(line, capsys)
    assert code == 0, err
    voted = {(r["question_id"], r["turn"], frozenset((r["model_a"], r["model_b"]))) for r in human}
    assert f"{len(voted)} with a human vote" in out, out
    frame, roles = read_pair_table(judges_file, labels=votes)
    assert roles.judges == ["gpt4_pair"] and len(frame) == len(gpt4)
    first = pd.DataFrame(gpt4)["winner"].map({"model_a": "A", "model_b": "B", "tie": "tie"})
    assert frame["gpt4_pair"].tolist() == first.tolist()  # winner: the judge's verdict
    estimate = _bacon_line(out, "estimate")
    code, out, err = _run(estimate, capsys)
    assert code == 0, err
    assert f"{len(gpt4)} comparisons of 6 models, {len(voted)} with a human vote" in out, out


def test_the_gpt4_pair_split_alone_says_to_save_the_human_split(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """Without the human split beside it, doctor says which split to save and the line to
    run on it."""
    gpt4, _ = _mt_bench_splits(np.random.default_rng(61))
    monkeypatch.chdir(tmp_path)
    _jsonl(Path("gpt4_pair.jsonl"), gpt4)
    code, out, err = _run(["doctor", "gpt4_pair.jsonl"], capsys)
    assert code == 0, err
    assert "split='human').to_json('mt_bench_human.jsonl')" in out, out
    assert _bacon_line(out, "doctor") == [
        "doctor", "gpt4_pair.jsonl", "--labels", "mt_bench_human.jsonl"
    ]  # fmt: skip


def _arena_hard_folder(root: Path, rng: np.random.Generator) -> Path:
    """Arena-Hard's ``model_judgment/<judge>/<model>.jsonl`` for three models on 30
    questions (v0.1's lines: question_id, model, judge, games), game 1 showing the baseline
    as A; one game with no verdict parsed (score null)."""
    folder = root / "model_judgment" / "gpt-4-1106-preview"
    folder.mkdir(parents=True)
    scores = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    for m, model in enumerate(["claude-3-opus", "llama-3-70b", "mixtral-8x7b"]):
        lines = []
        for q in range(30):
            games = [
                {"user_prompt": "<|User Prompt|> ...", "judgment": "... [[A>B]]",
                 "score": str(rng.choice(scores))}
                for _ in range(2)
            ]  # fmt: skip
            if (m, q) == (1, 4):
                games[0]["score"] = None
            lines.append(
                {"question_id": f"{q:032x}", "model": model, "judge": "gpt-4-1106-preview",
                 "games": games}
            )  # fmt: skip
        _jsonl(folder / f"{model}.jsonl", lines)
    return folder


def test_arena_hard_judgments_are_comparisons_with_the_baseline_named(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """Walk of session 60: Arena-Hard's model_judgment/<judge>/<model>.jsonl (each line a
    model's two games against a baseline no line names) was not recognised and had no
    flattening line. Doctor on the folder says what it read and that the baseline is
    needed; with --baseline-model, each judge's two games as columns from the model's
    side, and the line that writes the table, which runs; votes given as --labels to that
    table then give the estimate command, which runs."""
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.readers import read_any
    from bacon_bayes.readers.pairwise import read_pairwise

    from .printed import run_python_line

    monkeypatch.chdir(tmp_path)
    folder = _arena_hard_folder(Path("."), np.random.default_rng(62))
    shown = str(folder)
    code, out, err = _run(["doctor", shown], capsys)
    assert code == 2, out
    assert "90 lines of judge gpt-4-1106-preview on 3 models" in err, err
    assert f"{shown} --baseline-model NAME" in err and "gpt-4-0314" in err, err
    with pytest.raises(ValidationError, match="--baseline-model NAME"):
        read_any(folder / "llama-3-70b.jsonl")  # every reader names the way in
    code, out, err = _run(["doctor", shown, "--baseline-model", "gpt-4-0314"], capsys)
    assert code == 0, err
    assert "judges: gpt-4-1106-preview_game1, gpt-4-1106-preview_game2" in out, out
    assert "90 comparisons, each model (model_a) against the baseline 'gpt-4-0314'" in out
    assert "strong preferences (A>>B / B>>A" in out and "1 game(s) have no verdict" in out
    run_python_line(out)
    table = pd.read_csv("arena_hard_gpt-4-1106-preview.csv")
    raw = [json.loads(x) for x in (folder / "claude-3-opus.jsonl").read_text().splitlines()]
    mine = {"A>>B": "B", "A>B": "B", "A=B": "tie", "B>A": "A", "B>>A": "A"}  # game 1: swapped
    assert table["gpt-4-1106-preview_game1"][:30].tolist() == [
        mine[r["games"][0]["score"]] for r in raw
    ]
    theirs = {"A>>B": "A", "A>B": "A", "A=B": "tie", "B>A": "B", "B>>A": "B"}
    assert table["gpt-4-1106-preview_game2"][:30].tolist() == [
        theirs[r["games"][1]["score"]] for r in raw
    ]
    assert set(table["model_b"]) == {"gpt-4-0314"} and table["label"].isna().all()
    one, _ = read_pairwise(folder / "claude-3-opus.jsonl", baseline="gpt-4-0314")
    pd.testing.assert_frame_equal(one, table[:30].astype(one.dtypes.to_dict()), check_dtype=False)
    rng = np.random.default_rng(3)
    voted = table.sample(45, random_state=4)
    truth = voted["gpt-4-1106-preview_game2"].fillna("tie").to_numpy()
    vote = np.where(rng.random(45) < 0.7, truth, rng.choice(["A", "B", "tie"], 45))
    pd.DataFrame({"id": voted["id"], "vote": vote}).to_csv("VOTES.csv", index=False)
    code, said, err = _run(_bacon_line(out, "sample"), capsys)  # the votes to collect
    assert code == 0 and "to_label = 1" in said, err
    code, out, err = _run(_bacon_line(out, "doctor"), capsys)
    assert code == 0, err
    assert "45 with a human vote" in out, out
    code, out, err = _run(_bacon_line(out, "estimate"), capsys)
    assert code == 0, err
    assert "90 comparisons of 4 models, 45 with a human vote" in out, out


def _conversation(prompt: str, answer: str) -> list[dict]:
    return [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}]


@pytest.mark.parametrize("binarized", [False, True])
def test_a_preference_dataset_is_said_with_the_line_that_randomises_positions(
    binarized: bool, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Walk of session 60: a preference dataset (UltraFeedback binarized's prompt,
    prompt_id, chosen, rejected, messages, score_chosen, score_rejected) got role misreads
    from doctor and no word that the chosen answer always wins. Doctor says what it is and
    why it calibrates no judge as it is, prints the line that puts the answers in random
    positions (which runs: the vote where the chosen answer landed, the ratings a judge
    'rating'), and says the ratings are the rating tool's; doctor on the written table
    reads it as comparisons with the judge."""
    from .printed import run_python_line

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(63)
    rows = []
    for k in range(160):
        good, bad = sorted(rng.integers(1, 11, 2), reverse=True)
        if not binarized and rng.random() < 0.15:  # a rating tool that disagrees, at times
            good, bad = bad, good
        rows.append(
            {"prompt": f"question {k}", "prompt_id": f"{k:064x}",
             "chosen": _conversation(f"question {k}", f"good answer {k}"),
             "rejected": _conversation(f"question {k}", f"poor answer {k}"),
             "messages": _conversation(f"question {k}", f"good answer {k}"),
             "score_chosen": float(good), "score_rejected": float(bad)}
        )  # fmt: skip
    _jsonl(Path("ultrafeedback.jsonl"), rows)
    code, out, err = _run(["doctor", "ultrafeedback.jsonl"], capsys)
    assert code == 0, err
    assert "a preference dataset" in out and "Every row's human verdict is 'chosen wins'" in out
    assert "no positions to calibrate a judge on" in out, out
    assert "'score_chosen' and 'score_rejected' are ratings" in out and "usable as a judge" in out
    assert ("never rate the rejected answer higher" in out) == binarized, out
    run_python_line(out)
    table = pd.read_csv("ultrafeedback_positions.csv")
    assert len(table) == 160 and table["id"].tolist() == [r["prompt_id"] for r in rows]
    a_chosen = table["response_a"].str.startswith("good answer")
    assert (table["winner"] == np.where(a_chosen, "A", "B")).all()
    assert 0.3 < a_chosen.mean() < 0.7  # positions at random
    assert (table["model_a"] == np.where(a_chosen, "chosen", "rejected")).all()
    higher = np.sign(table["rating_a"] - table["rating_b"]).map({1: "A", -1: "B", 0: "tie"})
    assert (table["rating"] == higher).all()
    code, out, err = _run(_bacon_line(out, "doctor"), capsys)
    assert code == 0, err
    assert "160 with a human vote" in out and "judges: rating" in out, out


def test_a_preference_dataset_without_ratings_asks_for_a_judge_s_verdicts(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """Anthropic HH-RLHF's shape (chosen, rejected: whole dialogues, nothing else): the same
    reading, no word of ratings; the table the line writes takes a judge's verdicts, and
    doctor then gives the judge against the votes and no estimate: the "models" are the
    chosen and rejected sides (their strengths said nothing; the estimate it printed ran)."""
    from .printed import run_python_line

    monkeypatch.chdir(tmp_path)
    dialogue = "\n\nHuman: question {k}\n\nAssistant: {how} answer"
    pd.DataFrame(
        {
            "chosen": [dialogue.format(k=k, how="helpful") for k in range(120)],
            "rejected": [dialogue.format(k=k, how="harmful") for k in range(120)],
        }
    ).to_csv("hh.csv", index=False)
    code, out, err = _run(["doctor", "hh.csv"], capsys)
    assert code == 0, err
    assert "a preference dataset" in out and "ratings" not in out, out
    run_python_line(out)
    table = pd.read_csv("hh_positions.csv")
    chosen_at = np.where(table["response_a"].str.endswith("helpful answer"), "A", "B")
    assert (table["winner"] == chosen_at).all() and table["id"].tolist() == list(range(120))
    rng = np.random.default_rng(5)
    table["my_judge"] = np.where(rng.random(120) < 0.8, chosen_at, rng.choice(["A", "B"], 120))
    table.to_csv("hh_positions.csv", index=False)
    code, out, err = _run(_bacon_line(out, "doctor"), capsys)
    assert code == 0, err
    assert "judges: my_judge" in out and "120 with a human vote" in out, out
    assert "no strengths: the compared 'models' are the two sides" in out, out
    assert "bacon estimate" not in out and "kappa" in out
