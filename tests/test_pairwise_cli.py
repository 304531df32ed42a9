"""``bacon estimate --pairwise``, ``bacon doctor`` and ``bacon report --pairwise`` on the
shipped Arena sample and the format samples in tests/data/pairwise: output, JSON keys, the
printed command running as printed, bad input exiting 2, the page in headless Chromium."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

SAMPLE = str(files("bacon_bayes") / "data" / "arena_sample.csv.gz")
DATA = Path(__file__).parent / "data" / "pairwise"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FREQ = ["--engine", "freq"]


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refusals
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_estimate_text_on_the_shipped_sample(capsys):
    code, out, err = _run(["estimate", SAMPLE, "--pairwise", *FREQ], capsys)
    assert code == 0, err
    assert "3000 comparisons of 20 models, 400 with a human vote" in out
    assert "frequentist engine, --engine freq" in out
    assert "rank sets" in out and "tiers" in out
    ratio = re.search(r"width ratio (\d\.\d\d)", out)
    assert ratio and 0.5 < float(ratio.group(1)) < 1.0, out[-400:]
    # strongest first: gpt-4 leads the table
    table = out.split("\n")[3:5]
    assert "gpt-4" in table[0], table


def test_estimate_json_keys_and_agreement_with_the_library(capsys):
    from bacon_bayes import Calibrator, EvalPool

    code, out, err = _run(
        ["estimate", SAMPLE, "--pairwise", *FREQ, "--json", "--simultaneous", "--elo"], capsys
    )
    assert code == 0, err
    doc = json.loads(out)
    assert {"strengths", "rank_sets", "tiers", "labels_alone", "width_ratio",
            "win_probability"} <= set(doc)  # fmt: skip
    row = doc["strengths"][0]
    assert {"name", "estimate", "ci_low", "ci_high", "n_labeled"} <= set(row)
    assert doc["simultaneous"] == "maxt" and doc["details"]["scale"] == "elo"
    names = [r["name"] for r in doc["strengths"]]
    assert sorted(n for tier in doc["tiers"] for n in tier) == sorted(names)
    df = pd.read_csv(SAMPLE)
    pool = EvalPool.from_pairs(
        df, model_a="model_a", model_b="model_b", label="label",
        judges=["gpt4", "claude3_opus", "gpt35"], prompt="prompt", item="id",
    )  # fmt: skip
    table = Calibrator(engine="freq").fit(pool).estimate_bradley_terry(0.05, True, scale="elo")
    by_name = {r["name"]: r for r in doc["strengths"]}  # strongest first, not table order
    assert np.allclose([by_name[n]["estimate"] for n in table.names], table.estimate)
    assert np.allclose([by_name[n]["ci_low"] for n in table.names], table.ci_low)
    w = doc["win_probability"]
    assert abs(w["gpt-4"]["llama-13b"] + w["llama-13b"]["gpt-4"] - 1) < 1e-9
    assert w["gpt-4"]["gpt-4"] is None


def test_model_names_written_several_ways_are_said() -> None:
    """Arena rows with 'GPT-4', 'Gpt-4' and 'gpt-4' were read as 60 models of 20, ranked
    apart, without a word: the pool's notes say which names differ only in case/spaces."""
    from bacon_bayes import EvalPool

    df = pd.read_csv(SAMPLE)
    kw = {"model_a": "model_a", "model_b": "model_b", "label": "label", "judges": ["gpt4"]}
    assert not any("written several ways" in n for n in EvalPool.from_pairs(df, **kw).notes)
    df.loc[df.index[::3], "model_a"] = df["model_a"].str.upper()
    notes = [n for n in EvalPool.from_pairs(df, **kw).notes if "written several ways" in n]
    assert (
        len(notes) == 1
        and "20 model name(s)" in notes[0]
        and "'ALPACA-13B', 'alpaca-13b'" in notes[0]
    )


def test_model_names_written_several_ways_are_said_by_doctor_and_estimate(capsys, tmp_path):
    """The pool's note on names written several ways reached only the HTML report:
    `bacon doctor` and `bacon estimate --pairwise` (text and JSON) said nothing while
    ranking 'GPT-4' and 'gpt-4' apart (tester D, finding 1)."""
    df = pd.read_csv(SAMPLE)
    df.loc[df.index[::3], "model_a"] = df["model_a"].str.upper()
    path = tmp_path / "cases.csv"
    df.to_csv(path, index=False)
    said = "model name(s) are written several ways, read as different models"
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0 and said in out, err
    code, out, err = _run(["estimate", str(path), "--pairwise", *FREQ], capsys)
    assert code == 0 and f"note: 20 {said}" in out, err
    code, out, err = _run(["estimate", str(path), "--pairwise", *FREQ, "--json"], capsys)
    assert code == 0 and any(said in n for n in json.loads(out)["notes"]), err


def test_doctor_prints_diagnostics_and_a_command_that_runs_as_printed(capsys):
    code, out, err = _run(["doctor", SAMPLE], capsys)
    assert code == 0, err
    assert "position bias" in out and "kappa" in out and "AUC" in out
    gpt35 = next(line for line in out.splitlines() if line.strip().startswith("gpt35"))
    assert "0.7" in gpt35.split()[2]  # GPT-3.5 says A far more often than B
    command = out.strip().splitlines()[-1].strip()
    assert command.startswith("bacon estimate ") and "--pairwise" in command
    code, out2, err2 = _run(shlex.split(command)[1:], capsys)
    assert code == 0, err2
    assert "width ratio" in out2


@pytest.mark.parametrize(
    "argv",
    [
        ["arena_votes.csv"],
        ["alpacaeval_annotations.json"],
        ["mt_bench_gpt-4_pair.jsonl", "--labels", "mt_bench_human_judgments.json"],
    ],
)
def test_format_samples_doctor_then_estimate(argv, capsys, monkeypatch):
    monkeypatch.chdir(DATA)
    code, out, err = _run(["doctor", *argv], capsys)
    assert code == 0, err
    command = out.strip().splitlines()[-1].strip()
    assert command.startswith("bacon estimate "), out[-500:]
    code, out, err = _run(shlex.split(command)[1:], capsys)
    assert code == 0, err
    assert "Bradley-Terry strengths" in out and "labels alone" in out


def test_a_judge_with_a_failure_word_is_not_dropped_silently(capsys, tmp_path):
    """A judge column of verdicts with one API failure written as 'error' was left out of
    the judges without a word (on Arena the best judge, GPT-4); doctor now says why, where,
    and how to fix it."""
    frame = pd.read_csv(SAMPLE)
    frame.loc[3, "gpt4"] = "error"
    path = tmp_path / "arena.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0, err
    judges = next(line for line in out.splitlines() if line.strip().startswith("judges:"))
    assert "gpt4" not in judges
    assert "column 'gpt4' holds verdicts but for 1 cell(s) of other words ('error' at line 5" in out
    assert "empty those cells" in out


def test_a_model_written_with_spaces_around_is_shown_quoted(capsys, tmp_path):
    """Helper W5's walk: ' gpt-4' beside 'gpt-4' read as two models (said in a note) but
    the right-aligned strengths table and the rank sets showed them alike. A name with
    spaces around it is quoted there, as the group tables do."""
    frame = pd.read_csv(SAMPLE)
    name = str(frame["model_a"].iloc[0])
    rows = frame.index[frame["model_a"] == name][::2]
    frame.loc[rows, "model_a"] = " " + name
    path = tmp_path / "spaces.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["estimate", str(path), "--pairwise", *FREQ], capsys)
    assert code == 0, err
    table = out.split("rank sets", 1)[0]
    assert f"' {name}'" in table and f"' {name}'" in out.split("rank sets", 1)[1]


def test_a_tie_written_as_an_equals_sign_is_a_tie(capsys, tmp_path):
    """Votes written A / B / = (a spreadsheet's tie) were refused at the first '=' as no
    verdict; '=' is a tie for the human votes and the judges alike."""
    frame = pd.read_csv(SAMPLE)
    frame["label"] = frame["label"].replace({"tie": "="})
    frame["gpt35"] = frame["gpt35"].replace({"tie": "="})
    path = tmp_path / "equals.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["estimate", str(path), "--pairwise", "--json", *FREQ], capsys)
    assert code == 0, err
    tied = pd.read_csv(SAMPLE)
    tied.to_csv(tmp_path / "tie.csv", index=False)
    code, again, err = _run(
        ["estimate", str(tmp_path / "tie.csv"), "--pairwise", "--json", *FREQ], capsys
    )
    assert code == 0, err
    assert json.loads(out)["strengths"] == json.loads(again)["strengths"]


def test_a_judge_naming_the_winning_model_is_read_and_its_command_runs(capsys, tmp_path):
    """A judge column holding the winner's model name (or 'tie') was left out by doctor
    without a word, and a judge writing 'draw' was listed, but its printed command failed
    (the pool knew fewer verdict words than the reader): tester C, finding 12."""
    frame = pd.read_csv(SAMPLE)
    side = frame["gpt4"].str.strip().str.upper()
    frame["gpt4"] = np.where(
        side == "A", frame["model_a"], np.where(side == "B", frame["model_b"], "tie")
    )
    frame["gpt35"] = frame["gpt35"].replace({"tie": "draw"})
    path = tmp_path / "names.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0, err
    judges = next(line for line in out.splitlines() if line.strip().startswith("judges:"))
    assert "gpt4" in judges and "names the winning model" in out
    command = out.strip().splitlines()[-1].strip()
    code, out, err = _run(shlex.split(command)[1:], capsys)
    assert code == 0 and "Bradley-Terry strengths" in out, err
    assert "note: column 'gpt4' names the winning model" in out  # estimate says it too
    frame.loc[4, "gpt4"] = "gpt-9"  # neither model of its row: said, with its line
    frame.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert "that name neither model of their row ('gpt-9' at line 6 the first)" in out, err


def test_a_human_vote_naming_the_winning_model_is_read_as_the_judges_are(capsys, tmp_path):
    """Walk of new table shapes: the human vote written as the winner's model name (or
    'tie'), as a judge's is read, stopped doctor ("'oasst-pythia-12b' is not a verdict").
    It is read as A / B / tie against the row's two models and said; the estimate is the
    one of the same votes written A / B / tie."""
    frame = pd.read_csv(SAMPLE)
    vote = frame["label"].str.strip().str.upper()
    frame["label"] = np.where(
        vote == "A", frame["model_a"], np.where(vote == "B", frame["model_b"], frame["label"])
    )
    path = tmp_path / "names.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0, err
    assert "column 'label' (human votes) names the winning model" in out
    command = shlex.split(out.strip().splitlines()[-1].strip())[1:]
    code, named, err = _run([*command, "--json"], capsys)
    assert code == 0, err
    command[command.index(str(path))] = SAMPLE
    code, plain, err = _run([*command, "--json"], capsys)
    assert json.loads(named)["strengths"] == json.loads(plain)["strengths"]


def test_a_labels_file_naming_the_winning_model_is_read_against_the_table(capsys, tmp_path):
    """Helper W's walk: the human votes in a labels file written as the winner's name were
    refused ("'oasst-pythia-12b' is not a verdict") where the same column in the table is
    read. Joined, they are read against the row's two models; a word naming neither is
    refused naming the labels file."""
    frame = pd.read_csv(SAMPLE)
    frame.insert(0, "cid", np.arange(len(frame)))
    vote = frame.pop("label").str.strip().str.upper()
    named = np.where(vote == "A", frame["model_a"], np.where(vote == "B", frame["model_b"], vote))
    table, labels = tmp_path / "pairs.csv", tmp_path / "votes.csv"
    frame.to_csv(table, index=False)
    given = pd.notna(vote)
    pd.DataFrame({"cid": frame["cid"][given], "winner": named[given]}).to_csv(labels, index=False)
    argv = ["doctor", str(table), "--labels", str(labels), "--label", "winner", "--item", "cid"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "names the winning model of each comparison" in out
    bad = pd.read_csv(labels)
    bad.loc[bad.index[:40], "winner"] = "gpt-9"
    bad.to_csv(labels, index=False)
    code, out, err = _run(argv, capsys)
    assert code == 2 and "votes.csv' line" in err and "'gpt-9' is not a verdict" in err, err


def test_lmsys_one_hot_votes_are_read_as_one_vote(capsys, tmp_path):
    """LMSYS's one-hot vote (winner_model_a / winner_model_b / winner_tie) was no label to
    doctor; `--label winner_model_a` read every tie as a B win, and doctor offered the other
    two human columns as judges (tester T3, finding 1)."""
    frame = pd.read_csv(SAMPLE)
    vote = frame.pop("label")
    for name, side in (("winner_model_a", "A"), ("winner_model_b", "B"), ("winner_tie", "tie")):
        frame[name] = np.where(vote.isna(), np.nan, (vote == side).astype(float))
    path = tmp_path / "one_hot.csv"
    frame.drop(columns="human_full").to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0, err
    assert "human vote: winner" in out and "read as A / B / tie (column 'winner')" in out
    judges = next(line for line in out.splitlines() if line.strip().startswith("judges:"))
    assert "winner_" not in judges and "--judge winner_" not in out
    code, printed, err = _run(shlex.split(out.strip().splitlines()[-1].strip())[1:], capsys)
    assert code == 0, err
    reference = tmp_path / "labeled.csv"
    frame.drop(columns=["human_full", "winner_model_a", "winner_model_b", "winner_tie"]).assign(
        label=vote
    ).to_csv(reference, index=False)
    code, same, err = _run(["estimate", str(reference), "--pairwise", "--engine", "freq",
                            "--judge", "gpt4", "--judge", "claude3_opus", "--judge", "gpt35",
                            "--prompt", "prompt", "--item", "id"], capsys)  # fmt: skip
    table = lambda text: text[text.index("Bradley-Terry") :].splitlines()[2:12]  # noqa: E731
    assert code == 0 and table(same) == table(printed), err
    code, _, err = _run(["estimate", str(path), "--pairwise", "--label", "winner_model_a",
                         "--engine", "freq"], capsys)  # fmt: skip
    assert code == 2 and "every tie reads as a loss. Drop --label" in err
    frame.loc[3, ["winner_model_a", "winner_model_b", "winner_tie"]] = [1.0, 1.0, 0.0]  # two
    frame.to_csv(path, index=False)
    code, _, err = _run(["doctor", str(path)], capsys)
    assert code == 2 and "line 5: winner_model_a 1, winner_model_b 1, winner_tie 0" in err


def test_no_vote_yet_asks_for_a_uniform_pilot_that_runs(capsys, tmp_path, monkeypatch):
    """With no human vote yet, plan and a stratified wave said "label items of at least 5
    prompts or lower --folds", which cannot help (tester T3, finding 15): they name the
    uniform pilot, with a command that runs."""
    monkeypatch.chdir(tmp_path)
    pd.read_csv(SAMPLE).assign(label=np.nan).to_csv("bare.csv", index=False)
    for argv in (["plan", "bare.csv", "--pairwise", "--half-width", "0.3"],
                 ["sample", "bare.csv", "--pairwise", "--design", "stratified", "--budget",
                  "100", "--engine", "freq"]):  # fmt: skip
        code, _, err = _run(argv, capsys)
        assert code == 2 and "--folds" not in err and "Draw a uniform pilot first" in err, err
    command = shlex.split(err.split("vote on it: ")[1])
    assert command[-1] == "200"  # 2% of 3,000 comparisons is 60; 10 for each of 20 models
    code, out, err = _run(command[1:], capsys)
    assert code == 0 and "uniform wave" in out, err


def test_estimate_without_pairwise_on_comparisons_says_to_add_it(capsys):
    """`bacon estimate` on a comparisons table without --pairwise stopped at "--label is
    required" or "no judges given", not saying the table holds comparisons."""
    for argv in ([SAMPLE], [SAMPLE, "--label", "label"]):
        code, _, err = _run(["estimate", *argv, *FREQ], capsys)
        assert code == 2 and "holds comparisons (model A vs model B): add --pairwise" in err, err


def test_comparisons_with_label_and_judges_but_no_pairwise_say_to_add_it(
    capsys, tmp_path, monkeypatch
):
    """Tester B finding 14 (round 36): with --label and --judge given, estimate and plan
    stopped at "non-numeric value 'A'" without the --pairwise hint, and bacon sample with
    the --existing-labels ignore it suggested made a study whose judge held A/B/tie,
    refused only at its first estimate, after the labelling."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLE, "arena.csv.gz")
    read = ["arena.csv.gz", "--label", "label", "--judge", "gpt4"]
    hint = "arena.csv.gz holds comparisons (model A vs model B): add --pairwise"
    for argv in (["estimate", *read, *FREQ], ["plan", *read, "--half-width", "0.1"]):
        code, _, err = _run(argv, capsys)
        assert code == 2 and hint in err, err
    code, _, err = _run(["sample", *read, "--budget", "100"], capsys)
    assert code == 2 and hint in err and "--existing-labels ignore" not in err, err
    code, _, err = _run(["sample", *read, "--budget", "100", "--existing-labels", "ignore"], capsys)
    assert code == 2 and hint in err, err
    assert "judge column 'gpt4' of pool file arena.csv.gz has a non-numeric value 'B'" in err
    assert not Path("arena.study").exists() and not list(Path().glob("todo*"))


def test_sample_on_comparisons_without_ids_says_pairwise_first(capsys, tmp_path, monkeypatch):
    """Helper W5's walk: `bacon sample` on a comparisons table with no id column, without
    --pairwise, first printed a line adding an id column to every row, then said to add
    --pairwise; a pairwise sample needs no such column. It says --pairwise alone."""
    monkeypatch.chdir(tmp_path)
    pd.read_csv(SAMPLE).drop(columns="id").to_csv("votes.csv", index=False)
    code, _, err = _run(["sample", "votes.csv", "--label", "label", "--budget", "50"], capsys)
    assert code == 2 and "votes.csv holds comparisons (model A vs model B): add --pairwise" in err
    assert "add one:" not in err and "-c" not in err, err


def test_a_judge_column_of_words_is_refused_before_a_study_is_made(capsys, tmp_path):
    """The same check on a table that holds no comparisons: a judge column of words that
    read as no number is refused with its line and the fix, before the study exists."""
    frame = pd.DataFrame({"id": [f"i{k}" for k in range(40)], "judge": [3.0] * 39 + ["good"]})
    frame["judge"] = frame["judge"].astype(object)
    frame["y"] = [float(k % 5) if k < 10 else None for k in range(40)]
    frame.to_csv(tmp_path / "pool.csv", index=False)
    argv = ["sample", str(tmp_path / "pool.csv"), "--label", "y", "--judge", "judge"]
    code, _, err = _run([*argv, "--budget", "5", "--existing-labels", "ignore"], capsys)
    assert code == 2 and "has a non-numeric value 'good' at line 41 (1 such cells)" in err, err
    assert "--pairwise" not in err and not (tmp_path / "pool.study").exists()


def test_study_commands_on_a_pairwise_wave_say_it_needs_none(capsys, tmp_path):
    """`bacon label import WAVE --study S` and `bacon status WAVE` on the table `bacon
    sample --pairwise` wrote said "create one with bacon sample POOL_FILE --study DIR",
    which --pairwise refuses; `bacon sample` without --pairwise said "pass --item". Each
    now says what the table is and the command to run. The wave's hint said to fill in
    "A / B / tie" in a column of model_a / model_b votes: it names both."""
    src = tmp_path / "arena.csv"
    pd.read_csv(SAMPLE).drop(columns="id").to_csv(src, index=False)
    code, _, err = _run(["sample", str(src), "--budget", "10"], capsys)
    assert code == 2 and "add --pairwise" in err, err
    argv = ["sample", str(src), "--pairwise", "--budget", "50"]
    assert _run(argv, capsys)[0] == 0
    wave = str(tmp_path / "arena-wave.csv")
    # votes spelled as the Arena spells them: the hint says both spellings are read
    arena = pd.read_csv(src)
    arena["label"] = arena["label"].map({"A": "model_a", "B": "model_b", "tie": "tie"})
    arena.to_csv(tmp_path / "spelled.csv", index=False)
    code, out, err = _run(["sample", str(tmp_path / "spelled.csv"), "--pairwise", "--budget",
                           "50"], capsys)  # fmt: skip
    assert code == 0 and "(A / B / tie, or as its votes so far: model_a / model_b)" in out, err
    for argv in (["label", "import", wave, "--study", str(tmp_path / "s")], ["status", wave]):
        code, _, err = _run(argv, capsys)
        assert code == 2 and "comparisons keep no study folder" in err, err
        assert f"`bacon estimate {wave} --pairwise`" in err


def test_every_vote_in_gives_exact_strengths_without_a_warning(capsys, tmp_path):
    """With every comparison voted on (a user checking against the truth) the pool's
    strengths are known exactly (zero width), and the width ratio divided 0 by 0 with a
    RuntimeWarning."""
    frame = pd.read_csv(SAMPLE)
    frame["label"] = frame["human_full"]
    frame.to_csv(tmp_path / "all.csv", index=False)
    code, out, err = _run(["estimate", str(tmp_path / "all.csv"), "--pairwise", *FREQ], capsys)
    assert code == 0 and "RuntimeWarning" not in err, err
    assert "3000 with a human vote" in out


def test_a_bad_human_vote_is_not_called_a_judge_s(capsys, tmp_path):
    """A vote doctor cannot read was explained as "a judge's probability ... leave the judge
    out"; for the human vote column it says so, with the spellings read and the empty
    cell."""
    frame = pd.read_csv(SAMPLE)
    frame.loc[3, "label"] = "model_c"
    frame.to_csv(tmp_path / "bad.csv", index=False)
    code, _, err = _run(["doctor", str(tmp_path / "bad.csv")], capsys)
    assert code == 2 and "human vote column 'label', line 5: 'model_c'" in err, err
    assert "leave the judge out" not in err and "leave the cell empty" in err


def test_doctor_without_human_votes_says_what_to_add(capsys):
    code, out, _ = _run(["doctor", str(DATA / "mt_bench_gpt-4_pair.jsonl")], capsys)
    assert code == 0
    assert "no strengths yet" in out and "--labels" in out
    assert "bacon estimate" not in out


def test_bad_input_exits_2_naming_the_fix(capsys, tmp_path):
    code, _, err = _run(["estimate", SAMPLE, "--pairwise", "--model-a", "nope"], capsys)
    assert code == 2 and "--model-a 'nope'" in err and "columns:" in err
    code, _, err = _run(["estimate", SAMPLE, "--pairwise", "--judge", "gpt4",
                         "--quantile", "0.5"], capsys)  # fmt: skip
    assert code == 2 and "--quantile does not apply" in err
    for flag, value in (("--pooling", "shrink"), ("--group-effects", "on")):  # no groups
        code, _, err = _run(["estimate", SAMPLE, "--pairwise", flag, value], capsys)
        assert code == 2 and f"{flag} does not apply" in err
    # these were read and silently ignored (no scale, text, unscored rows, study or
    # group pairs for comparisons)
    for given in (["--scale", "0:1"], ["--text", "prompt"], ["--drop-unscored"],
                  ["--allow-pending"], ["--fixed"], ["--pairs", "all"], ["--refit"],
                  ["--pointwise"], ["--tolerance", "0.1"], ["--round", "r2"]):  # fmt: skip
        code, _, err = _run(["estimate", SAMPLE, "--pairwise", *given, *FREQ], capsys)
        assert code == 2 and f"{given[0]} does not apply" in err, given
    df = pd.read_csv(SAMPLE).iloc[:200].rename(columns={"model_a": "left"})
    df.to_csv(tmp_path / "t.csv", index=False)
    code, _, err = _run(["estimate", str(tmp_path / "t.csv"), "--pairwise"], capsys)
    assert code == 2 and "--model-a COL" in err
    df = df.rename(columns={"left": "model_a"})
    df.loc[df.index[7], "gpt4"] = "maybe"
    df.to_csv(tmp_path / "t.csv", index=False)
    code, _, err = _run(
        ["estimate", str(tmp_path / "t.csv"), "--pairwise", "--judge", "gpt4", *FREQ], capsys
    )
    assert code == 2 and "'gpt4'" in err and "line 9" in err and "'maybe'" in err
    code, _, err = _run(["estimate", str(DATA / "arena_conversations.jsonl"), "--pairwise"], capsys)
    assert code == 2 and "--judge COL" in err


def test_estimate_save_then_load_gives_the_same_strengths(capsys, tmp_path):
    from bacon_bayes import Calibrator

    out_nc = tmp_path / "bt.nc"
    argv = ["estimate", str(DATA / "arena_votes.csv"), "--pairwise", *FREQ, "--json"]
    code, out, err = _run([*argv, "--save", str(out_nc)], capsys)
    assert code == 0, err
    doc = json.loads(out)
    back = Calibrator.load(out_nc).estimate_bradley_terry()
    by_name = {r["name"]: r["estimate"] for r in doc["strengths"]}  # strongest first
    assert np.allclose([by_name[n] for n in back.names], back.estimate)
    assert doc["engine"] == "freq"
    page = tmp_path / "saved.html"
    code, _, err = _run(["report", str(out_nc), "--pairwise", "--out", str(page)], capsys)
    assert code == 0, err
    assert '<section id="strengths">' in page.read_text()
    # the judges' pair diagnostics: the same table from the saved file as from the fit
    fresh = tmp_path / "fresh.html"
    code, _, err = _run(["report", str(DATA / "arena_votes.csv"), "--pairwise", *FREQ,
                         "--out", str(fresh)], capsys)  # fmt: skip
    assert code == 0, err

    def judges(path: Path) -> str:
        return path.read_text().split('<section id="judges">')[1].split("</section>")[0]

    assert judges(page) == judges(fresh)
    assert "position bias (A - B)" in judges(page) and "gpt35" in judges(page)
    code, _, err = _run(
        ["estimate", str(DATA / "arena_votes.csv"), "--pairwise", "--surrogates", "ridge"], capsys
    )
    assert code == 2 and "--surrogates does not apply" in err


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pairs") / "pairs.html"
    assert main(["report", SAMPLE, "--pairwise", *FREQ, "--out", str(out)]) == 0
    return out


def test_report_has_the_pairwise_sections(page):
    html = page.read_text()
    for key in ("settings", "strengths", "judges"):
        assert f'<section id="{key}">' in html
    assert html.count("data:image/png;base64,") == 2  # strengths and win matrix
    assert "Win probabilities" in html and "Tiers and rank sets" in html
    assert "position bias (A - B)" in html and "gpt35" in html


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install chromium")
def test_pairwise_report_renders_in_headless_chromium(page):
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    dom = subprocess.run(
        [*flags, "--window-size=1400,3000", "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    assert 'data-ready="1"' in dom, "the page's script did not run to its end"
    assert "data-errors=" not in dom, re.search(r"data-errors=\"[^\"]*\"", dom)
    assert 'data-overflow="0"' in dom, re.search(r"<html[^>]*>", dom)


def test_named_columns_patterns_and_parquet(capsys, tmp_path):
    df = pd.read_csv(SAMPLE).iloc[:1500]
    df = df.rename(columns={"model_a": "left", "model_b": "right", "label": "vote",
                            "gpt4": "j_gpt4", "claude3_opus": "j_claude"})  # fmt: skip
    df = df.drop(columns=["gpt35", "human_full"])
    path = tmp_path / "named.parquet"
    df.to_parquet(path)
    argv = ["estimate", str(path), "--pairwise", "--model-a", "left", "--model-b", "right",
            "--label", "vote", "--judge", "j_*", *FREQ, "--json"]  # fmt: skip
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "judges j_gpt4, j_claude" in json.loads(out)["fitted"]
    code, out, err = _run(["doctor", str(path), "--pairwise", "--model-a", "left",
                           "--model-b", "right", "--label", "vote"], capsys)  # fmt: skip
    assert code == 0, err
    command = out.strip().splitlines()[-1].strip()
    assert "--judge j_gpt4 --judge j_claude" in command and "--model-a left" in command
    code, out, err = _run(shlex.split(command)[1:], capsys)
    assert code == 0, err


def _printed(out: str, command: str) -> list[str]:
    line = next(v.strip() for v in out.splitlines() if v.strip().startswith(f"bacon {command}"))
    return shlex.split(line)[1:]


@pytest.mark.parametrize("design", ["uniform", "adaptive"])
def test_sample_pairwise_round_trip(capsys, tmp_path, design):
    """bacon sample --pairwise draws a wave, the printed estimate command runs as printed
    on the filled-in file, uses the propensities and the pilot's folds; a second wave
    chains on the first. The table is meant for people: a cell a spreadsheet would run as
    a formula is neutralised, and read back as it was."""
    src = tmp_path / "arena.csv"
    frame = pd.read_csv(SAMPLE)
    frame.loc[0, "prompt"] = "=HYPERLINK(1)"
    frame.to_csv(src, index=False)
    argv = ["sample", str(src), "--pairwise", "--design", design, "--budget", "250",
            "--engine", "freq", "--seed", "3", "--folds", "4"]  # fmt: skip
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    wave = tmp_path / "arena-wave.csv"
    df = pd.read_csv(wave)
    assert df.loc[0, "prompt"] == "'=HYPERLINK(1)"
    df.loc[0, "prompt"] = "=HYPERLINK(1)"
    new = df["to_label"] == 1
    assert 180 < new.sum() < 320 and df.loc[new, "label"].isna().all()
    assert df["propensity"].between(0, 1).all() and df["propensity"].notna().all()
    assert (df.loc[df["label"].notna(), "propensity"] >= 400 / 3000 - 1e-9).all()
    argv = _printed(out, "estimate")
    # before the votes are in (or with one missing), the propensities do not hold: refused
    code, _, err = _run(argv, capsys)
    assert code == 2 and f"{int(new.sum())} comparisons marked to_label = 1" in err, err
    code, doc, err = _run(["doctor", str(wave)], capsys)  # its command would fail so: said
    assert code == 0 and f"not voted on yet: {int(new.sum())} comparison(s)" in doc, err
    first = int(np.flatnonzero(new)[0])
    df.loc[new, "label"] = df.loc[new, "human_full"]
    df.loc[first, "label"] = np.nan
    df.to_csv(wave, index=False)
    code, _, err = _run(argv, capsys)
    said = f"1 comparison marked to_label = 1 (line {first + 2}, id {int(df.loc[first, 'id'])} "
    assert code == 2 and said in err and "np.int" not in err, err
    df.loc[first, "label"] = df.loc[first, "human_full"]
    df.to_csv(wave, index=False)
    assert argv[-6:] == ["--propensity", "propensity", "--engine", "freq", "--folds", "4"]
    code, out2, err = _run(argv, capsys)
    assert code == 0, err
    assert f"{400 + int(new.sum())} with a human vote" in out2
    assert "inclusion probabilities in 'propensity'" in out2
    # the wave's table without --propensity: doctor's command dropped it and the estimate
    # took the stratified/adaptive votes as a uniform sample; both now weight them
    code, doc, err = _run(["doctor", str(wave)], capsys)
    assert code == 0 and "a table bacon sample --pairwise wrote" in doc, err
    printed = shlex.split(doc.split("\nrun", 1)[1].splitlines()[1])
    assert printed[printed.index("--propensity") + 1] == "propensity"
    bare = [a for a in argv if a not in ("--propensity", "propensity")]
    code, out3, err = _run(bare, capsys)
    assert code == 0 and out3 == out2, err
    # the next wave with the same seed: its own uniforms, not the first wave's (which
    # drew a handful of the 100, those whose uniform fell between the two waves' rates)
    code, _, err = _run(["sample", str(wave), "--pairwise", "--budget", "100", "--seed", "3",
                            "--out", str(tmp_path / "w2.csv")], capsys)  # fmt: skip
    assert code == 0, err
    w2 = pd.read_csv(tmp_path / "w2.csv")
    assert (w2["propensity"] >= df["propensity"] - 1e-12).all()  # the union grows
    assert abs(int(w2["to_label"].sum()) - 100) < 35, int(w2["to_label"].sum())


def test_sample_pairwise_refusals(capsys, tmp_path):
    code, _, err = _run(["sample", SAMPLE, "--pairwise", "--design", "paired",
                         "--budget", "10"], capsys)  # fmt: skip
    assert code == 2 and "--design paired does not apply to --pairwise" in err
    code, _, err = _run(["sample", SAMPLE, "--pairwise", "--until", "best"], capsys)
    assert code == 2 and "--until does not apply" in err
    # study-design options that a pairwise wave read and ignored (an adaptive wave drew
    # with the 0.2 uniform share whatever --uniform-share said)
    for given in (["--uniform-share", "0.5"], ["--max-ratio", "2"], ["--outcome", "ordinal"],
                  ["--allocation", "neyman"], ["--existing-labels", "ignore"]):  # fmt: skip
        code, _, err = _run(["sample", SAMPLE, "--pairwise", "--design", "adaptive",
                             "--budget", "10", *given], capsys)  # fmt: skip
        assert code == 2 and f"{given[0]} does not apply to --pairwise" in err, given
    code, _, err = _run(["sample", SAMPLE, "--pairwise"], capsys)
    assert code == 2 and "--budget N" in err
    code, _, err = _run(["sample", SAMPLE, "--pairwise", "--budget", "5000"], capsys)
    assert code == 2 and "only 2600 comparisons have no vote" in err


def test_plan_pairwise_prints_a_sample_command_that_runs(capsys, tmp_path, monkeypatch):
    """bacon plan --pairwise: labels per design from the frequentist pilot (said so), the
    recommendation, and the bacon sample command, which runs exactly as printed (and is
    the README's)."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.planning.pairwise import pilot_from_calibrator, plan_pairwise

    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLE, tmp_path / "arena_sample.csv.gz")
    argv = ["plan", "arena_sample.csv.gz", "--pairwise", "--half-width", "0.3"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "engine: freq (--engine auto, the default, means freq for a plan" in out
    assert "400 with a human vote" in out
    assert "\nvariance: comparisons independent (target pool)\n" in out
    needed = dict(re.findall(r"^  (uniform|stratified|adaptive) +(\d+) \(", out, re.M))
    assert set(needed) == {"uniform", "stratified", "adaptive"}, out
    df = pd.read_csv(SAMPLE)
    pool = EvalPool.from_pairs(df, model_a="model_a", model_b="model_b", label="label",
                               judges=["gpt4", "claude3_opus", "gpt35"], prompt="prompt",
                               item="id")  # fmt: skip
    lib = plan_pairwise(pilot_from_calibrator(Calibrator(engine="freq").fit(pool)), half_width=0.3)
    assert {d: int(n) for d, n in needed.items()} == lib.needed
    best = re.search(r"^  (\w+) .*<- recommended", out, re.M)
    assert best and best.group(1) == lib.recommended
    argv = _printed(out, "sample")
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert f"\n{shlex.join(['bacon', *argv])}\n" in readme, shlex.join(argv)
    assert argv[argv.index("--design") + 1] == lib.recommended
    assert argv[argv.index("--budget") + 1] == str(lib.needed[lib.recommended] - 400)
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    wave = pd.read_csv(tmp_path / "arena_sample-wave.csv")
    assert abs(wave["to_label"].sum() - (lib.needed[lib.recommended] - 400)) < 60


def test_plan_pairwise_difference_json_and_refusals(capsys):
    argv = ["plan", SAMPLE, "--pairwise", "--difference", "gpt-4", "claude-v1", "--delta",
            "60", "--elo", "--json", "--engine", "freq", "--budgets", "0.5,2000"]  # fmt: skip
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["goal"].startswith("power 0.8 for gpt-4 - claude-v1 = 60 (elo)")
    assert doc["labeled"] == 400 and set(doc["needed"]) == {"uniform", "stratified", "adaptive"}
    assert doc["engine"] == "engine: freq (as --engine asked)"
    pred = doc["predicted"]["uniform"]
    assert set(pred) == {"1500", "2000"} and pred["1500"] < pred["2000"]  # power grows
    assert doc["command"].startswith("bacon sample ") and "--pairwise" in doc["command"]
    assert doc["notes"] == []
    # tester A finding 7: a budget below the pilot's 400 votes is said, not merged away
    argv = ["plan", SAMPLE, "--pairwise", "--half-width", "0.3", "--designs", "uniform",
            "--engine", "freq", "--budgets", "200,300,2000"]  # fmt: skip
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "note: --budgets 200, 300: below the 400 labels the pilot has" in out, out
    assert "at 400" not in out and "at 300" not in out and "at 2000" in out
    code, _, err = _run([*argv[:-1], "0.01"], capsys)
    assert code == 2 and "every budget is below the 400 labels" in err, err
    code, _, err = _run(["plan", SAMPLE, "--pairwise", "--top"], capsys)
    assert code == 2 and "--top does not apply to --pairwise" in err
    for given in (["--scale", "0:1"], ["--drop-unscored"], ["--text", "prompt"]):  # ignored
        code, _, err = _run(["plan", SAMPLE, "--pairwise", "--half-width", "0.3", *given], capsys)
        assert code == 2 and f"{given[0]} does not apply to --pairwise" in err, given
    code, _, err = _run(["plan", SAMPLE, "--pairwise", "--difference", "gpt-4", "x"], capsys)
    assert code == 2 and "--delta D" in err
    code, _, err = _run(["plan", SAMPLE, "--pairwise"], capsys)
    assert code == 2 and "one goal" in err
    code, _, err = _run(["plan", SAMPLE, "--pairwise", "--half-width", "0.3", "--designs",
                         "paired"], capsys)  # fmt: skip
    assert code == 2 and "not a pairwise design" in err


def test_plan_for_a_difference_prints_a_sample_command_aimed_at_it(capsys, tmp_path):
    """`bacon plan --pairwise --difference A B` sized the stratified wave for that
    difference but printed a `bacon sample` without it, which drew a wave for the mean
    strength (on Arena: 37 of 196 comparisons involving A or B, against 195 of 195), far
    from the power the plan promised. The command now carries --difference A B."""
    src = tmp_path / "arena.csv"
    pd.read_csv(SAMPLE).to_csv(src, index=False)
    argv = ["plan", str(src), "--pairwise", "--difference", "gpt-4", "claude-v1", "--delta",
            "0.5", "--designs", "stratified"]  # fmt: skip
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    command = _printed(out, "sample")
    assert command[command.index("--difference") + 1 :][:2] == ["gpt-4", "claude-v1"]
    code, _, err = _run([*command, "--out", str(tmp_path / "w.csv")], capsys)
    assert code == 0, err
    wave = pd.read_csv(tmp_path / "w.csv")
    drawn = wave[wave["to_label"] == 1]
    involved = drawn["model_a"].isin(["gpt-4", "claude-v1"]) | drawn["model_b"].isin(
        ["gpt-4", "claude-v1"]
    )
    assert involved.mean() > 0.9, involved.mean()
    code, _, err = _run(["sample", str(src), "--difference", "a", "b", "--budget", "3"], capsys)
    assert code == 2 and "--difference applies to --pairwise samples" in err


def test_plan_pairwise_refuses_an_empty_propensity_naming_the_row(capsys, tmp_path):
    df = pd.read_csv(SAMPLE).iloc[:600]
    df["propensity"] = np.where(df["label"].notna(), 0.2, np.nan)  # unlabeled rows empty
    df.to_csv(tmp_path / "p.csv", index=False)
    code, _, err = _run(["plan", str(tmp_path / "p.csv"), "--pairwise", "--propensity",
                         "propensity", "--half-width", "0.3"], capsys)  # fmt: skip
    assert code == 2 and "propensity is empty" in err and "row " in err and "fill it in" in err


def test_plan_pairwise_population_target_is_clustered_by_prompt(capsys, tmp_path):
    """--target population on comparisons sharing prompts: the plan predicts the
    variance clustered by prompt (said so, as the library's plan); the pool target's
    comparisons are independent; --target population needs --pairwise."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.planning.pairwise import pilot_from_calibrator, plan_pairwise
    from tests.test_bradley_terry import _prompt_draw

    rng = np.random.default_rng(4)
    a, b, y, f, prompt = _prompt_draw(rng, np.array([-0.8, -0.3, 0.0, 0.4, 0.7]), 30, 60)
    df = pd.DataFrame({"model_a": [f"m{k}" for k in a], "model_b": [f"m{k}" for k in b],
                       "label": y, "judge": np.where(f > 0.6, 1.0, np.where(f < 0.4, 0.0, 0.5)),
                       "prompt": [f"q{k}" for k in prompt]})  # fmt: skip
    path = tmp_path / "mt.csv"
    df.to_csv(path, index=False)
    argv = ["plan", str(path), "--pairwise", "--judge", "judge", "--prompt", "prompt",
            "--half-width", "0.5", *FREQ, "--json"]  # fmt: skip
    code, out, err = _run([*argv, "--target", "population"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["variance"] == "clustered by prompt (target population, 30 prompts)"
    pool = EvalPool.from_pairs(df, model_a="model_a", model_b="model_b", label="label",
                               judges=["judge"], prompt="prompt")  # fmt: skip
    cal = Calibrator(engine="freq", target="population").fit(pool)
    assert doc["needed"] == plan_pairwise(pilot_from_calibrator(cal), half_width=0.5).needed
    # the printed bacon sample command draws for the population target too, as printed
    assert "--target population" in doc["command"], doc["command"]
    code, out, err = _run(shlex.split(doc["command"])[1:], capsys)
    assert code == 0, err
    assert "--target population" in shlex.join(_printed(out, "estimate"))
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert json.loads(out)["variance"] == "comparisons independent (target pool)"
    code, _, err = _run(["plan", str(path), "--half-width", "0.1", "--target", "population"],
                        capsys)  # fmt: skip
    assert code == 2 and "--target population applies to --pairwise" in err


def test_sample_pairwise_population_target_round_trip(capsys, tmp_path):
    """bacon sample --pairwise --target population --design stratified on comparisons
    sharing prompts: the pilot is fitted for the population target (the wave is the
    library's from that pilot, not the pool target's), and the printed estimate command,
    run as printed on the filled-in file, estimates the population target clustered by
    prompt (the prompt column found by name is named in it)."""
    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.planning.pairwise import draw_pairwise_wave, pilot_from_calibrator
    from tests.test_bradley_terry import _prompt_draw

    rng = np.random.default_rng(4)
    a, b, truth, f, prompt = _prompt_draw(rng, np.array([-0.8, -0.3, 0.0, 0.4, 0.7]), 30, 300)
    y = truth.copy()
    y[rng.choice(y.size, y.size - 60, replace=False)] = np.nan
    df = pd.DataFrame({"model_a": [f"m{k}" for k in a], "model_b": [f"m{k}" for k in b],
                       "label": y, "judge": np.where(f > 0.6, 1.0, np.where(f < 0.4, 0.0, 0.5)),
                       "prompt": [f"q{k}" for k in prompt], "truth": truth})  # fmt: skip
    src = tmp_path / "mt.csv"
    df.to_csv(src, index=False)
    argv = ["sample", str(src), "--pairwise", "--design", "stratified", "--budget", "60",
            "--judge", "judge", "--target", "population", *FREQ, "--seed", "2"]  # fmt: skip
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "clustered by prompt (target population, 30 prompts)" in out
    wave = pd.read_csv(tmp_path / "mt-wave.csv")
    pool = EvalPool.from_pairs(df, model_a="model_a", model_b="model_b", label="label",
                               judges=["judge"], prompt="prompt")  # fmt: skip
    labeled = df["label"].notna().to_numpy()
    union = {}
    for target in ("pool", "population"):
        cal = Calibrator(engine="freq", seed=2, target=target)  # sample: --seed splits folds
        pilot = pilot_from_calibrator(cal.fit(pool))
        union[target] = draw_pairwise_wave("stratified", 60.0, labeled=labeled, pilot=pilot,
                                           seed=2)[0]  # fmt: skip
    assert not np.allclose(union["pool"], union["population"])  # the test can tell them apart
    assert np.allclose(wave["propensity"], union["population"])
    new = wave["to_label"] == 1
    assert 30 < new.sum() < 90 and wave.loc[new, "label"].isna().all()
    wave.loc[new, "label"] = wave.loc[new, "truth"]
    wave.to_csv(tmp_path / "mt-wave.csv", index=False)
    printed = _printed(out, "estimate")
    assert "--target population" in shlex.join(printed) and "--prompt prompt" in shlex.join(printed)
    code, out2, err = _run(printed, capsys)
    assert code == 0, err
    assert f"{60 + int(new.sum())} with a human vote" in out2
    assert "target population" in out2 and "clustered by prompt (30 prompts)" in out2
    code, _, err = _run(["sample", str(src), "--budget", "10", "--target", "population"],
                        capsys)  # fmt: skip
    assert code == 2 and "--target population applies to --pairwise" in err


def test_every_comparison_voted_says_the_strengths_are_exact(tmp_path, capsys):
    """Arena as shipped has every vote: doctor's command gave intervals of width 0, 20
    one-model tiers and 'width ratio nan', without a word of why."""
    frame = pd.read_csv(SAMPLE)
    frame["label"] = frame["human_full"]
    path = tmp_path / "all_voted.csv"
    frame.to_csv(path, index=False)
    assert main(["estimate", str(path), "--pairwise", "--engine", "freq"]) == 0
    out = capsys.readouterr().out
    assert "every comparison has its human vote: the pool's strengths are exact" in out
    assert "width ratio nan" not in out


def test_comparisons_in_two_groups_get_no_command_and_no_wave(capsys, tmp_path):
    """Tester A, finding 4: on comparisons that fall apart into two groups of models,
    doctor printed an estimate command that always failed, and sample drew a wave (92
    votes to pay for) that could never be estimated. Now doctor says not yet and sample
    refuses before drawing."""
    frame = pd.read_csv(SAMPLE)
    top = {"gpt-4", "claude-v1", "claude-instant-v1", "gpt-3.5-turbo", "palm-2"}
    a_in, b_in = frame["model_a"].isin(top), frame["model_b"].isin(top)
    path = tmp_path / "apart.csv"
    frame[a_in == b_in].to_csv(path, index=False)
    code, out, _ = _run(["doctor", str(path)], capsys)
    assert "not yet: the comparisons fall apart into 2 groups" in out
    assert "bacon estimate" not in out.split("not yet")[1].split("\n")[0]
    assert "--pairwise --model-a" not in out
    out_csv = tmp_path / "wave.csv"
    code, _, err = _run(["sample", str(path), "--pairwise", "--budget", "100",
                         "--out", str(out_csv)], capsys)  # fmt: skip
    assert code == 2 and "fall apart into 2 groups" in err and "nothing was drawn" in err
    assert not out_csv.exists()
