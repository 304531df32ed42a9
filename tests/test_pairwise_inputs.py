"""Tables of comparisons a user brings (tester D): rows no comparison can be made of,
votes in a separate file, judges written as probabilities, a saved calibrator's report,
options that do not apply; each said with its CSV line and the fix, and every printed
command running as printed."""

from __future__ import annotations

import shlex

import numpy as np
import pandas as pd

from .test_pairwise_cli import FREQ, SAMPLE, _run


def _arena(tmp_path, name: str, edit=None) -> str:
    frame = pd.read_csv(SAMPLE)
    if edit is not None:
        edit(frame)
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def test_doctor_names_rows_that_compare_a_model_with_itself_or_none(capsys, tmp_path):
    """A self-comparison or an empty model cell passed doctor, which printed a command
    that failed on it ('row 7 compares ...', a 0-based index, not the CSV line); the
    empty cell was also counted as a 21st model. Doctor now names those rows by their CSV
    line and prints no command until they are fixed; estimate names the same lines."""

    def itself(frame: pd.DataFrame) -> None:
        frame.loc[7, "model_b"] = frame.loc[7, "model_a"]

    def empty(frame: pd.DataFrame) -> None:
        frame.loc[9, "model_b"] = None

    for name, edit, said in (
        ("self.csv", itself, "compare a model with itself (line 9;"),
        ("none.csv", empty, "have an empty model cell in 'model_a' or 'model_b' (line 11)"),
    ):
        path = _arena(tmp_path, name, edit)
        code, out, err = _run(["doctor", path], capsys)
        assert code == 0, err
        assert "20 models" in out.splitlines()[0]
        assert said in out
        assert not out.strip().splitlines()[-1].strip().startswith("bacon estimate")
        code, _, err = _run(["estimate", path, "--pairwise", *FREQ], capsys)
        assert code == 2 and said in err, err


def test_pool_errors_name_the_csv_line(capsys, tmp_path):
    """The pairs pool's errors gave pandas' 0-based row index; they give the CSV line,
    as the other commands' do (a frame built in memory: its row from 0)."""
    from bacon_bayes import EvalPool
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.io import read_table

    def dup(frame: pd.DataFrame) -> None:
        frame.loc[5, "id"] = frame.loc[3, "id"]

    frame = read_table(_arena(tmp_path, "dup.csv", dup))
    try:
        EvalPool.from_pairs(frame, model_a="model_a", model_b="model_b", label="label",
                            judges=["gpt4"], item="id")  # fmt: skip
    except ValidationError as exc:
        assert "at lines 5, 7;" in str(exc), exc
    else:
        raise AssertionError("a repeated id was taken")
    code, out, err = _run(["doctor", str(tmp_path / "dup.csv")], capsys)
    assert code == 0, err
    assert "column 'id' repeats ids" in out and "line 5 and line 7" in out


def test_report_of_a_saved_pairwise_calibrator_without_pairwise(capsys, tmp_path):
    """`bacon report SAVED.nc` of a calibrator of comparisons, without --pairwise, wrote a
    means page of the label (P(A wins) 0.508, judge bias, items); it writes the pairwise
    page, as with --pairwise."""
    saved = str(tmp_path / "cal.nc")
    code, _, err = _run(["estimate", SAMPLE, "--pairwise", *FREQ, "--save", saved], capsys)
    assert code == 0, err
    page = tmp_path / "page.html"
    code, _, err = _run(["report", saved, "--out", str(page)], capsys)
    assert code == 0, err
    html = page.read_text()
    assert "pairwise preferences" in html and "Win probabilities" in html
    assert "Population estimates" not in html


def test_a_labels_file_of_votes_written_as_words(capsys, tmp_path):
    """A pairwise --labels file of A / B / tie votes was refused ('label 'A' is not a
    number'); it is read with the verdict words the table's own vote column takes, and
    gives the strengths of the same votes written 1 / 0 / 0.5."""
    frame = pd.read_csv(SAMPLE)
    votes = frame.loc[frame["label"].notna(), ["id", "label"]].rename(columns={"label": "vote"})
    frame.drop(columns="label").to_csv(tmp_path / "t.csv", index=False)
    votes.to_csv(tmp_path / "words.csv", index=False)
    number = votes.assign(vote=votes["vote"].map({"A": 1.0, "B": 0.0, "tie": 0.5}))
    number.to_csv(tmp_path / "numbers.csv", index=False)
    outs = []
    for name in ("words.csv", "numbers.csv"):
        argv = ["--labels", str(tmp_path / name), "--label", "vote"]
        code, out, err = _run(["doctor", str(tmp_path / "t.csv"), *argv], capsys)
        assert code == 0 and "400 with a human vote" in out, err
        code, out, err = _run(["estimate", str(tmp_path / "t.csv"), "--pairwise", *argv, *FREQ],
                              capsys)  # fmt: skip
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1]
    votes.rename(columns={"vote": "label"}).to_csv(tmp_path / "label.csv", index=False)
    for argv in (["--labels", str(tmp_path / "words.csv"), "--label", "vote"],
                 ["--labels", str(tmp_path / "label.csv")]):  # fmt: skip
        out_csv = str(tmp_path / "wave.csv")
        code, out, err = _run(["sample", str(tmp_path / "t.csv"), "--pairwise", *argv,
                               "--budget", "50", "--out", out_csv, "--force"], capsys)  # fmt: skip
        assert code == 0, err
        assert pd.read_csv(out_csv)[argv[-1] if len(argv) > 2 else "label"].notna().sum() == 400
    votes.iloc[[3], 1] = "maybe"
    votes.to_csv(tmp_path / "words.csv", index=False)
    argv = ["--labels", str(tmp_path / "words.csv"), "--label", "vote"]
    code, _, err = _run(["estimate", str(tmp_path / "t.csv"), "--pairwise", *argv, *FREQ], capsys)
    assert code == 2 and "line 5: 'maybe' is not a verdict" in err, err


def test_a_judge_of_probabilities_is_said_and_diagnosed(capsys, tmp_path):
    """A judge written as the probability that A wins (documented as accepted) was left
    out by doctor and estimate without a word, and doctor refused it when named. It is
    said, with the options that take it; named, doctor diagnoses it and estimate uses it."""

    def probabilities(frame: pd.DataFrame) -> None:
        frame["gpt4"] = frame["gpt4"].map({"A": 0.9, "B": 0.1, "tie": 0.5})

    path = _arena(tmp_path, "mixed.csv", probabilities)
    said = "column 'gpt4' holds numbers from 0 to 1"
    fix = "--judge claude3_opus --judge gpt35 --judge gpt4"
    code, out, err = _run(["doctor", path], capsys)
    assert code == 0 and said in out and fix in out, err
    code, out, err = _run(["estimate", path, "--pairwise", *FREQ], capsys)
    assert code == 0 and said in out and fix in out, err
    code, out, err = _run(["doctor", path, *fix.split()], capsys)
    assert code == 0, err
    gpt4, vs_humans = (line for line in out.splitlines() if line.strip().startswith("gpt4 "))
    assert gpt4.split()[1] == "3000" and "0.828" in vs_humans  # its AUC, as the verdicts'
    assert "gpt4: probabilities that A wins" in out
    command = out.strip().splitlines()[-1].strip()
    code, out, err = _run(command.split()[1:], capsys)
    assert code == 0 and "judges claude3_opus, gpt35, gpt4" in out, err


def test_a_judge_of_probabilities_with_a_cell_past_1_is_refused_at_that_cell(capsys, tmp_path):
    """A named judge of probabilities with one cell past 1 (1.02, a rounding slip) made
    doctor blame the column's first cell, a valid 0.9 ('line 2: 0.9 is not a verdict ...
    threshold it'); it names the cell past [0, 1], its line and the fix, as estimate does.
    Not named, doctor left it out without a word (the 0-1 columns' note skipped it)."""

    def probabilities(frame: pd.DataFrame) -> None:
        frame["gpt4"] = frame["gpt4"].map({"A": 0.9, "B": 0.1, "tie": 0.5})
        frame.loc[5, "gpt4"] = 1.02

    path = _arena(tmp_path, "past.csv", probabilities)
    judges = ["--judge", "gpt4", "--judge", "claude3_opus"]
    code, _, err = _run(["doctor", path, *judges], capsys)
    assert code == 2, err
    assert "column 'gpt4', line 7: 1.02" in err and "[0, 1]" in err, err
    code, _, err = _run(["estimate", path, "--pairwise", *judges, *FREQ], capsys)
    assert code == 2 and "1.02 at line 7" in err, err
    code, out, err = _run(["doctor", path], capsys)  # not named: said, not skipped
    assert code == 0, err
    assert "column 'gpt4' holds numbers from 0 to 1 but for 1 cell(s) (1.02 at line 7" in out


def test_tiers_agree_with_the_rank_sets(capsys):
    """Tiers were cut greedily: tier 2 opened at koala-13b and took mpt-7b-chat,
    wizardlm-13b and gpt4all-13b-snoozy, whose rank sets (1-20) say they may rank first.
    A model now joins the first tier whose leader it cannot be told from: every model that
    may rank first is in tier 1, and a lower tier's models are resolved below the leaders
    above them (same in --json)."""
    import json

    from bacon_bayes import Calibrator, EvalPool
    from bacon_bayes.estimate.bt_ranks import _simultaneous_diffs, tiers

    code, out, err = _run(["estimate", SAMPLE, "--pairwise", *FREQ, "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    first = {r["name"] for r in doc["rank_sets"] if r["rank_low"] == 1}
    assert {"mpt-7b-chat", "wizardlm-13b", "gpt4all-13b-snoozy"} <= first
    assert first <= set(doc["tiers"][0])
    pool = EvalPool.from_pairs(
        pd.read_csv(SAMPLE), model_a="model_a", model_b="model_b", label="label",
        judges=["gpt4", "claude3_opus", "gpt35"], prompt="prompt", item="id",
    )  # fmt: skip
    table = Calibrator(engine="freq").fit(pool).estimate_bradley_terry(0.05)
    assert tiers(table) == doc["tiers"]
    diffs = _simultaneous_diffs(table, 0.05)
    below = {
        frozenset(pair)
        for k, pair in enumerate(diffs.details["pairs"])
        if diffs.ci_low[k] > 0 or diffs.ci_high[k] < 0
    }
    for k, tier in enumerate(doc["tiers"]):
        assert all(frozenset((tier[0], m)) not in below for m in tier[1:])
        for upper in doc["tiers"][:k]:
            assert all(frozenset((upper[0], m)) in below for m in tier)
    assert (
        "a model joins the first tier whose leader"
        in _run(["estimate", SAMPLE, "--pairwise", *FREQ], capsys)[1]
    )


def test_model_columns_imply_pairwise_and_comparisons_are_read_as_such(capsys, tmp_path):
    """`bacon doctor FILE --model-a L --model-b R` profiled the comparisons as a table of
    scores ('group left_model', 'no judge column found'), the options dropped silently,
    with no hint at --pairwise. The model columns imply --pairwise. Without them, a table
    whose A / B / tie columns sit beside two columns sharing their model names was profiled
    as items (a verdict column for a group, its votes to map to 1, 2, 3 as a scale) with
    the --pairwise command in a last note; doctor reads it as comparisons, and a column
    of verdicts with empty cells as the human votes (it refused, naming it), and the
    command it prints runs."""
    names = {"model_a": "left_model", "model_b": "right_model", "label": "vote"}

    def rename(frame: pd.DataFrame) -> None:
        frame.columns = [names.get(c, c) for c in frame.columns]

    path = _arena(tmp_path, "names.csv", rename)
    models = ["--model-a", "left_model", "--model-b", "right_model"]
    code, out, err = _run(["doctor", path, *models, "--label", "vote"], capsys)
    assert code == 0 and "pairwise comparisons" in out.splitlines()[0], err
    code, guessed, err = _run(["doctor", path, *models], capsys)
    assert code == 0 and "column 'vote': read as the human votes" in guessed, err
    code, out, err = _run(["doctor", path], capsys)
    assert code == 0, err
    first = out.splitlines()[0]
    assert "columns 'left_model' and 'right_model' share their names" in first
    assert "read as comparisons" in first and "group" not in out
    assert out.split("\n", 2)[2] == guessed  # the same profile as with the columns named
    command = out.strip().splitlines()[-1].strip()
    assert "--model-a left_model --model-b right_model --label vote" in command
    code, out, err = _run(shlex.split(command)[1:], capsys)
    assert code == 0 and "Bradley-Terry strengths" in out, err
    code, _, err = _run(["estimate", path, "--pairwise", *models, *FREQ], capsys)
    assert code == 2 and "--label vote" in err  # estimate takes no vote column unnamed


def test_options_that_do_not_apply_to_comparisons_and_the_outcome_help(capsys):
    """--refit and --pointwise (and --tolerance, --round) were read and ignored with
    --pairwise; they are refused as the other next-round options are. --help gave
    --outcome's default as continuous, though a 0/1 label is estimated as categorical."""
    for given in (["--refit"], ["--pointwise"]):
        code, _, err = _run(["estimate", SAMPLE, "--pairwise", *given, *FREQ], capsys)
        assert code == 2 and f"{given[0]} does not apply to --pairwise" in err, given
    for command in ("estimate", "report", "plan"):
        _, out, _ = _run([command, "--help"], capsys)
        assert "continuous, or categorical for a label of 0 and 1" in " ".join(out.split())


def test_doctor_says_how_it_read_a_semicolon_file(capsys, tmp_path):
    """The pairwise doctor read a semicolon-separated file without saying so, as the
    README promises doctor does on its first line."""
    path = tmp_path / "semi.csv"
    pd.read_csv(SAMPLE).to_csv(path, index=False, sep=";")
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0 and "(csv, semicolon-separated)" in out.splitlines()[0], err


def test_plan_with_labels_hands_over_to_sample(capsys, tmp_path, monkeypatch):
    """`bacon plan --pairwise --labels` (MT-Bench with FastChat's human judgments) could not
    print its `bacon sample` command ('write the table out', with no command for it), and
    `bacon sample` took no --labels: it drew from zero votes, or failed on '0 prompts'.
    sample takes --labels as estimate and plan do; the plan's command runs as printed, the
    table written holds the votes, and its estimate command runs once the wave is voted."""
    import shutil

    from .test_pairwise_cli import DATA

    monkeypatch.chdir(tmp_path)
    for name in ("mt_bench_gpt-4_pair.jsonl", "mt_bench_human_judgments.json"):
        shutil.copy(DATA / name, tmp_path / name)
    argv = ["plan", "mt_bench_gpt-4_pair.jsonl", "--pairwise", "--labels",
            "mt_bench_human_judgments.json", "--half-width", "1.0"]  # fmt: skip
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    command = out.strip().splitlines()[-1].strip()
    assert command.startswith("bacon sample ") and "--labels" in command, out[-400:]
    code, out, err = _run(shlex.split(command)[1:], capsys)
    assert code == 0, err
    assert "expected: each comparison is drawn on its own" in out  # finding 11
    wave = pd.read_csv(tmp_path / "mt_bench_gpt-4_pair-wave.csv")
    voted = int(wave["label"].notna().sum())
    assert voted > 0 and not (wave["to_label"].eq(1) & wave["label"].notna()).any()
    wave.loc[wave["to_label"].eq(1), "label"] = "A"
    wave.to_csv(tmp_path / "mt_bench_gpt-4_pair-wave.csv", index=False)
    estimate = out.strip().splitlines()[-1].strip()
    code, out, err = _run([*shlex.split(estimate)[1:], *FREQ], capsys)
    assert code == 0 and "comparisons of 6 models" in out, err
    code, _, err = _run(["sample", "x.csv", "--labels", "v.csv", "--budget", "5"], capsys)
    assert code == 2 and "--labels applies to --pairwise" in err
    _, out, _ = _run(["sample", "--help"], capsys)
    assert "the expected count" in " ".join(out.split())


def test_every_vote_in_advises_no_simulate_and_simulate_names_vote_words(capsys, tmp_path):
    """A fully voted table of comparisons advised `bacon simulate`, which cannot read
    comparisons, and simulate called its full column of A / B / tie votes 'empty or not a
    number'. The advice is one that runs; simulate says the cells are text (votes)."""
    frame = pd.read_csv(SAMPLE)
    frame["label"] = frame["human_full"]
    path = tmp_path / "full.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["estimate", str(path), "--pairwise", *FREQ], capsys)
    assert code == 0 and "every comparison has its human vote" in out, err
    assert "bacon simulate" not in out
    argv = ["simulate", str(path), "--label", "label", "--judge", "gpt4", "--trials", "2",
            "--budgets", "0.1", "--out", str(tmp_path / "sim")]  # fmt: skip
    code, _, err = _run(argv, capsys)
    assert code == 2 and "holds 'B', not a number, at line 2 (3000 such rows)" in err, err
    assert "votes on comparisons" in err and "empty" not in err


def test_doctor_says_a_judge_that_copies_the_votes_and_leaves_it_out(capsys, tmp_path):
    """T3 #16: a column holding every human vote (here human_full renamed) was taken as a
    judge without the "copy of the label?" note estimate gives, its AUC printed as "1.000
    [nan, nan]", and it went into the printed command, whose estimate then said to leave
    it out. Doctor now says so, leaves it out of the command (pass --judge to keep it), and
    prints an undefined interval as "(no CI)"."""

    def leak(frame: pd.DataFrame) -> None:
        frame["crowd"] = frame.pop("human_full")

    path = _arena(tmp_path, "leak.csv", leak)
    code, out, err = _run(["doctor", path], capsys)
    assert code == 0, err
    assert "nan" not in out, out
    assert "judge 'crowd' equals the label on all 400 labeled rows: a copy of the label?" in out
    assert "left out of the command below (pass --judge to use it anyway)" in out
    # tester A finding 8: a pool mean of the votes says nothing of strengths
    assert "its mean (" not in out and "--label crowd gives the strengths from all" in out
    row = [v for v in out.splitlines() if v.lstrip().startswith("crowd ")][-1]  # vs humans
    assert row.endswith("1.000 (no CI)") and "no CI: too few votes" in out, row
    command = out.strip().splitlines()[-1].split()
    assert "crowd" not in command and command.count("--judge") == 3, command
    code, out, err = _run(command[1:], capsys)  # runs as printed, without the copy's note
    assert code == 0, err
    assert "copy of the label" not in out + err
    # named: kept (the user's choice), with estimate's note
    code, out, err = _run(["doctor", path, "--judge", "gpt4", "--judge", "crowd"], capsys)
    assert code == 0, err
    assert "a copy of the label?" in out and ": leave it out of the judges" in out
    assert "--judge crowd" in out.strip().splitlines()[-1]


def test_doctor_leaves_out_a_judge_scored_only_on_the_voted_rows_or_only_on_the_others(
    capsys, tmp_path
):
    """Tester A finding 6: a judge run only on the comparisons sent to humans (or only on
    the others) went into doctor's command, whose estimate then said its intervals do not
    hold. Doctor now says so and leaves it out of the command (the estimate's own check,
    ``relation.coverage_split``), which then runs without that note."""

    for name, keep, said in (
        ("labonly.csv", "notna", "scored 400 of the 400 labeled rows (100%) but 0 of"),
        ("unlabonly.csv", "isna", "scored 0 of the 400 labeled rows (0%) but"),
    ):

        def blank(frame: pd.DataFrame, keep: str = keep) -> None:
            frame.loc[~getattr(frame["label"], keep)(), "gpt4"] = None

        path = _arena(tmp_path, name, blank)
        code, out, err = _run(["doctor", path], capsys)
        assert code == 0, err
        assert f"judge 'gpt4' {said}" in out, out
        assert "; left out of the command below (pass --judge to use it anyway)" in out
        command = out.strip().splitlines()[-1].split()
        assert "gpt4" not in command and command.count("--judge") >= 1, command
        code, out, err = _run(command[1:], capsys)  # runs as printed, without that note
        assert code == 0, err
        assert "drop it from the judges" not in out + err


def test_doctor_hint_names_only_the_command_judges_and_no_copies(capsys, tmp_path):
    """Tester A finding 8: the "name the judges" hint of a column of numbers listed a judge
    the next note left out as a copy of the votes, and proposed columns that copy the votes
    or a judge's verdicts (as 1 / 0.5 / 0). The hint now lists the command's judges, and
    such columns are said to be copies instead."""
    to_y = {"A": 1.0, "B": 0.0, "tie": 0.5}

    def extra(frame: pd.DataFrame) -> None:
        frame["truth_label"] = frame["human_full"]  # a copy of the votes, as verdicts
        frame["truth_y"] = frame.pop("human_full").map(to_y)  # and as numbers
        frame["gpt4_y"] = frame["gpt4"].map(to_y)  # a judge twice
        frame["score"] = frame["gpt35"].map({"A": 0.8, "B": 0.3, "tie": 0.5})  # maybe one

    path = _arena(tmp_path, "truth.csv", extra)
    code, out, err = _run(["doctor", path], capsys)
    assert code == 0, err
    assert "column 'truth_y' equals the label on all 400 labeled rows" in out, out
    assert "column 'gpt4_y' holds the verdicts of judge 'gpt4' as numbers" in out
    hint = next(line for line in out.splitlines() if "column 'score'" in line)
    assert hint.endswith("--judge gpt4 --judge claude3_opus --judge gpt35 --judge score"), hint
    assert "--judge truth" not in out and "--judge gpt4_y" not in out


def test_votes_written_as_words_beside_votes_written_as_numbers(capsys, tmp_path):
    """``bacon sample --pairwise`` asks for the new votes as A / B / tie "or as its votes
    so far: 0.0 / 0.5 / 1.0"; filling the wave in with words beside the earlier numbers
    made the column text, and estimate refused its own ``'0.0'`` ("is not a verdict; use
    ... 1, 0.5 or 0"). A number written as text is that number: the mixed column gives
    the strengths of the same votes written as words."""
    words = pd.read_csv(SAMPLE)
    mixed = words.copy()
    labeled = np.flatnonzero(mixed["label"].notna().to_numpy())
    first = labeled[: len(labeled) // 2]  # the earlier votes as numbers, the rest as words
    as_number = {"A": "1.0", "B": "0.0", "tie": "0.5"}
    mixed.loc[first, "label"] = mixed.loc[first, "label"].map(as_number)
    outs = []
    for name, frame in (("words.csv", words), ("mixed.csv", mixed)):
        frame.to_csv(tmp_path / name, index=False)
        code, out, err = _run(["estimate", str(tmp_path / name), "--pairwise", *FREQ], capsys)
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1].replace("mixed.csv", "words.csv")


def test_several_judges_written_as_numbers_get_one_option_list_that_takes_them_all(
    capsys, tmp_path
):
    """Walk of new table shapes: the Arena PPR release writes each judge's verdict as
    model A's score (``judge_gpt4_0125_y``: 1 / 0.5 / 0). Doctor refused the table with a
    note per judge, each ending "name the judges: --judge <that one>", so the options to
    copy took one judge. A last note gives the options that take them all, and they run."""
    frame = pd.read_csv(SAMPLE)
    score = {"A": 1.0, "B": 0.0, "tie": 0.5}
    for judge in ("gpt4", "claude3_opus", "gpt35"):
        frame[judge] = frame[judge].map(score)
    path = str(tmp_path / "scores.csv")
    frame.drop(columns="human_full").to_csv(path, index=False)
    code, _, err = _run(["doctor", path], capsys)
    assert code == 2, err
    every = "--judge gpt4 --judge claude3_opus --judge gpt35"
    assert f"to take all 3 as judges: {every}" in err, err
    code, out, err = _run(["doctor", path, *shlex.split(every)], capsys)
    assert code == 0 and "judges: gpt4, claude3_opus, gpt35" in out, err
    # beside a judge of words, doctor proposes the two others with it in one list
    words = pd.read_csv(SAMPLE)
    words["claude3_opus"], words["gpt35"] = frame["claude3_opus"], frame["gpt35"]
    words.drop(columns="human_full").to_csv(path, index=False)
    code, out, err = _run(["doctor", path], capsys)
    assert code == 0 and f"to take all 2 as judges: {every}" in out, err


def test_plan_then_sample_with_a_labels_file_whose_vote_column_is_not_label(capsys, tmp_path):
    """`bacon plan T --pairwise --labels votes.csv` found the votes file's column 'vote'
    (its one column besides the id) and printed `bacon sample T --pairwise ... --labels
    votes.csv` without --label, which sample refused ("labels file has no column 'label'"):
    sample finds the column as plan, estimate and doctor do, and the printed command runs."""
    frame = pd.read_csv(SAMPLE)
    votes = frame.loc[frame["label"].notna(), ["id", "label"]].rename(columns={"label": "vote"})
    frame.drop(columns="label").to_csv(tmp_path / "t.csv", index=False)
    votes.to_csv(tmp_path / "votes.csv", index=False)
    code, out, err = _run(["plan", str(tmp_path / "t.csv"), "--pairwise", "--labels",
                           str(tmp_path / "votes.csv"), "--half-width", "0.3"], capsys)  # fmt: skip
    assert code == 0, err
    line = next(s.strip() for s in out.splitlines() if s.strip().startswith("bacon sample"))
    out_csv = str(tmp_path / "wave.csv")
    code, out, err = _run([*shlex.split(line)[1:], "--out", out_csv], capsys)
    assert code == 0, err
    assert pd.read_csv(out_csv)["vote"].notna().sum() == 400


def test_sample_with_a_labels_file_prints_an_estimate_that_finds_the_votes(capsys, tmp_path):
    """`bacon sample T --pairwise --labels votes.csv` (the votes in column 'vote') wrote
    the wave's table with the votes in 'vote' and printed `bacon estimate WAVE --pairwise
    --propensity propensity ...` without --label, which refused the filled-in table ('no
    column of human votes (label, winner or human_label)'): it names the column."""
    frame = pd.read_csv(SAMPLE)
    votes = frame.loc[frame["label"].notna(), ["id", "label"]].rename(columns={"label": "vote"})
    frame.drop(columns="label").to_csv(tmp_path / "t.csv", index=False)
    votes.to_csv(tmp_path / "votes.csv", index=False)
    out_csv = str(tmp_path / "wave.csv")
    code, out, err = _run(["sample", str(tmp_path / "t.csv"), "--pairwise", "--labels",
                           str(tmp_path / "votes.csv"), "--budget", "100",
                           "--out", out_csv, *FREQ], capsys)  # fmt: skip
    assert code == 0, err
    assert "Fill in column 'vote'" in out
    wave = pd.read_csv(out_csv)
    drawn = wave["to_label"].eq(1)
    truth = frame.set_index("id")["human_full"]
    wave.loc[drawn, "vote"] = wave.loc[drawn, "id"].map(truth)
    wave.to_csv(out_csv, index=False)
    line = out.strip().splitlines()[-1].strip()
    assert line.startswith("bacon estimate"), out
    code, out, err = _run(shlex.split(line)[1:], capsys)
    assert code == 0, err
    assert "comparisons of 20 models" in out


def test_alpacaeval_tables_saved_as_csv_are_comparisons(capsys, tmp_path):
    """An AlpacaEval annotations.json saved as CSV (pd.read_json(...).to_csv) was read by
    doctor as a table of items: it printed `bacon estimate ... --label price_per_example
    --judge preference --group annotator`; and a table of AlpacaEval's fields with a
    preference column per annotator (1 = output_1 wins, 2 = output_2, 1.5 = tie) was read
    with a `--scale 1:3` and generator_1 as a group. Both are comparisons (generator_1 is
    model A), read as the JSON is, and doctor's printed command runs."""
    from .test_pairwise_cli import DATA

    pd.read_json(DATA / "alpacaeval_annotations.json").to_csv(tmp_path / "ann.csv", index=False)
    frame = pd.read_csv(SAMPLE)
    pref = {"A": 1.0, "B": 2.0, "tie": 1.5}
    wide = pd.DataFrame({
        "instruction": frame["prompt"], "output_1": "a", "output_2": "b",
        "generator_1": frame["model_a"], "generator_2": frame["model_b"],
        "preference": frame["label"].map(pref), "gpt4_preference": frame["gpt4"].map(pref),
        "claude_preference": frame["claude3_opus"].map(pref),
    })  # fmt: skip
    wide.to_csv(tmp_path / "wide.csv", index=False)
    for name, argv, votes in (("ann.csv", [], 12), ("wide.csv", ["--label", "preference"], 400)):
        code, out, err = _run(["doctor", str(tmp_path / name), *argv], capsys)
        assert code == 0, err
        assert "pairwise comparisons" in out.splitlines()[0], out
        assert f"{votes} with a human vote" in out.splitlines()[0], out
        command = out.strip().splitlines()[-1].strip()
        assert command.startswith("bacon estimate") and "--pairwise" in command, out
        code, out, err = _run(shlex.split(command)[1:], capsys)
        assert code == 0, err
    assert "judges gpt4_preference, claude_preference" in out


def test_a_table_without_a_vote_column_found_names_the_likely_one(capsys, tmp_path):
    """A table whose human votes are in a column of another name ('winner_model': the
    winner's name, or 1 / 0 / 0.5) was refused with 'has no column of human votes ...
    name it with --label COL', naming no column; estimate's error names the column of
    verdicts with empty cells (the sparsest), and the option that takes it; doctor reads
    that column as the votes, saying so."""
    frame = pd.read_csv(SAMPLE)
    names = np.where(frame["label"].eq("A"), frame["model_a"],
                     np.where(frame["label"].eq("B"), frame["model_b"], "tie"))  # fmt: skip
    for votes in (pd.Series(names).where(frame["label"].notna()),
                  frame["label"].map({"A": 1.0, "B": 0.0, "tie": 0.5})):  # fmt: skip
        table = frame.drop(columns=["label", "human_full"]).assign(winner_model=votes)
        table.to_csv(tmp_path / "t.csv", index=False)
        code, _, err = _run(["estimate", str(tmp_path / "t.csv"), "--pairwise", *FREQ], capsys)
        assert code == 2, err
        assert "Column 'winner_model' holds verdicts and is empty on 2600 of 3000 rows" in err
        code, out, err = _run(["doctor", str(tmp_path / "t.csv")], capsys)
        assert code == 0 and "400 with a human vote" in out, err
        assert "column 'winner_model': read as the human votes" in out
        assert "--label winner_model" in out.strip().splitlines()[-1]


def test_doctor_prints_a_line_that_writes_each_model_one_way(capsys, tmp_path, monkeypatch):
    """Model names written several ways ('gpt-4', 'GPT-4 ', ' gpt-4': 60 models where
    there were 20) were said with 'e.g. df[col].str.strip().str.lower() on both model
    columns', no line to run, and doctor printed the estimate of 60 models. It prints a
    python line that writes each model one way (its most frequent spelling) into a new
    file, which runs as printed; doctor on that file finds the 20 models."""
    from .printed import run_python_line

    frame = pd.read_csv(SAMPLE)
    rng = np.random.default_rng(0)
    for col in ("model_a", "model_b"):
        odd = rng.random(len(frame)) < 0.2
        frame.loc[odd, col] = frame.loc[odd, col].str.upper() + " "
    frame.to_csv(tmp_path / "messy.csv", index=False)
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["doctor", "messy.csv"], capsys)
    assert code == 0, err
    assert "written several ways" in out and "python -c" in out, out
    run_python_line(out, cwd=tmp_path)
    assert "bacon doctor messy_models.csv" in out
    code, out, err = _run(["doctor", "messy_models.csv"], capsys)
    assert code == 0 and "3000 rows, 20 models, 400 with a human vote" in out, err
    assert "gpt-4" in pd.read_csv("messy_models.csv")["model_a"].tolist()


def test_doctor_judge_tables_fit_a_terminal(capsys, tmp_path):
    """The doctor's table of judges on pairs was one table of seven columns, 129
    characters wide on the shipped sample and 140 with the real Arena table's judge names
    (judge_claude3_opus_label): it wrapped in a terminal. It is two tables now, each at
    most 100 wide with those names: how each judge votes (n, position bias, tie rate), and
    how it relates to the human votes (n voted, excess, kappa, AUC); every figure is kept."""
    names = {  # the real table's (arena_ppr.csv.gz)
        "gpt4": "judge_gpt4_0125_label",
        "claude3_opus": "judge_claude3_opus_label",
        "gpt35": "judge_gpt35_turbo_label",
    }

    def rename(frame: pd.DataFrame) -> None:
        new = names | {"label": "human_label"}
        frame.columns = [new.get(c, c) for c in frame.columns]  # in place

    code, out, err = _run(["doctor", _arena(tmp_path, "long.csv", rename)], capsys)
    assert code == 0, err
    lines = out.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("judges on pairs"))
    end = next(i for i, x in enumerate(lines) if x.startswith("run ("))
    table = lines[start:end]  # the tables and their legends
    assert max(map(len, table)) <= 100, "\n".join(table)
    for header in ("position bias (A-B)", "tie rate", "n voted", "excess over human", "kappa"):
        assert header in out, out
    judge = [x for x in table if x.lstrip().startswith("judge_claude3_opus_label")]
    assert len(judge) == 2 and all(x.count("[") == 2 for x in judge[:1]), table
    assert judge[1].count("[") == 3 and " 400 " in judge[1], judge
