"""How doctor (and estimate, which reads the same cells) reads cell values of tables
nobody prepared (tester T1's findings, session 32): decimal commas beside '-', scores
written as fractions, numbers stored as text in Parquet, 'NA' / 'n/a' / '-' as empty
cells in every format, one row numbering, export metadata that is no judge, the count
of labels, and a wholly labeled table without --label."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

from .printed import run_python_line
from .test_doctor_messy import doctor, estimate_json, found, section
from .test_doctor_values import _line, _table


def _estimate(path, judge: str, capsys) -> dict:
    return estimate_json([str(path), "--label", "human", "--judge", judge], capsys)["mean"]


def test_decimal_commas_beside_dashes_are_read_in_every_column(tmp_path, capsys) -> None:
    """Finding 1: a semicolon CSV of decimal commas, a judge's halves written '3,5' and a
    few cells '-': doctor read the column as text and told the user to empty the '3,5'
    cells with the '-' ones. '3,5' is 3.5 in every column of such a file, and '-' is an
    empty cell (as 'NA' is), in doctor and estimate alike."""
    frame = _table()
    rng = np.random.default_rng(3)
    half = rng.random(len(frame)) < 0.2
    frame["llm_a"] = frame["llm_a"] - 0.5 * (half & (frame["llm_a"] > 1))
    cells = frame["llm_a"].map(lambda v: f"{v:g}".replace(".", ",")).astype(object)
    dash = rng.permutation(len(frame))[:9]
    cells.iloc[dash] = "-"
    path = tmp_path / "eu.csv"
    frame.assign(llm_a=cells).to_csv(path, sep=";", decimal=",", index=False)
    out, _ = doctor([str(path)], capsys)
    assert "decimal commas" in out.splitlines()[0]
    assert "llm_a" in found(out, "judge") and "other text" not in out, out
    assert "'-' as empty cells (9 of them)" in _line(out, "judge", "llm_a")
    expected = frame.assign(llm_a=frame["llm_a"].where(~np.isin(np.arange(len(frame)), dash)))
    plain = tmp_path / "plain.csv"
    expected.to_csv(plain, index=False)
    assert _estimate(path, "llm_a", capsys) == _estimate(plain, "llm_a", capsys)


def test_the_labels_line_counts_the_labels(tmp_path, capsys) -> None:
    """Finding 2: "labels: N of M items" printed the most labeled items one judge scored
    (0 with no judge), not the number of labels."""
    frame = _table().drop(columns=["system", "prompt"])  # no group: the labels line
    labeled = np.flatnonzero(frame["human"].notna())
    for k, judge in enumerate(["llm_a", "llm_b", "llm_c"]):
        frame.loc[labeled[k], judge] = np.nan  # each judge misses one labeled item
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert f"labels: {labeled.size} of {len(frame)} items" in out, out


def test_scores_written_as_fractions_are_read_or_named(tmp_path, capsys) -> None:
    """Finding 4: a judge's scores written '4/5' were called a category (or "no group,
    prompt or text") and estimate stopped at '4/5'. Out of one top they are read as the
    score written, and said; out of several tops they are named with the fix, in doctor
    and in estimate's refusal."""
    frame = _table()
    plain = tmp_path / "plain.csv"
    frame.to_csv(plain, index=False)
    frame["llm_a"] = frame["llm_a"].map(lambda v: f"{v:g}/5")
    path = tmp_path / "fractions.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "llm_a" in found(out, "judge"), out
    assert "read as numbers, the top '/5' dropped" in _line(out, "judge", "llm_a")
    assert _estimate(path, "llm_a", capsys) == _estimate(plain, "llm_a", capsys)
    frame.loc[frame.index[1], "llm_a"] = "5/10"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    left = _line(capsys.readouterr().out, "left out", "llm_a")
    assert "as fractions out of 5 and 10: write each as one number on one scale" in left
    assert main(["estimate", str(path), "--label", "human", "--judge", "llm_a"]) == 2
    assert "Write each as one number on one scale (e.g. 0.4 for '2/5')" in capsys.readouterr().err


@pytest.mark.parametrize("missing", [None, "NA", "n/a"])
def test_numbers_stored_as_text_in_parquet_are_read_as_estimate_reads_them(
    tmp_path, capsys, missing
) -> None:
    """Finding 8: a Parquet file whose scores and labels are strings ('4', '4.5'): doctor
    found no label and no judge and offered the label as --prompt, while estimate read
    them; 'NA' / 'n/a' cells (empty cells in a CSV) stopped both. Doctor reads them as
    numbers, says so, and prints the command it prints for the CSV."""
    frame = _table()
    text = frame.copy()
    for c in ["human", "llm_a", "llm_b", "llm_c"]:
        text[c] = frame[c].map(lambda v: missing if np.isnan(v) else f"{v:g}").astype(object)
    text.loc[text.index[:5], "llm_b"] = missing  # a judge's failures, as the labels' gaps
    frame.loc[frame.index[:5], "llm_b"] = np.nan
    csv = tmp_path / "t.csv"
    frame.to_csv(csv, index=False)
    path = tmp_path / "t.parquet"
    text.attrs = {}
    text.to_parquet(path)
    out, cmd = doctor([str(path)], capsys)
    _, csv_cmd = doctor([str(csv)], capsys)
    assert cmd[2:] == csv_cmd[2:] and "--label" in cmd, out
    assert "read as numbers" in _line(out, "label", "human")
    assert "--prompt to use it" not in out
    if missing:
        assert f"{missing!r} as empty cells" in _line(out, "judge", "llm_b")
    assert _estimate(path, "llm_b", capsys) == _estimate(csv, "llm_b", capsys)


def test_doctor_and_estimate_number_a_parquet_row_alike(tmp_path, capsys) -> None:
    """Finding 9: doctor said "row 116" (from 1) where estimate said "row 115" (from 0)
    for the same cell of a Parquet file. Both count from 0, and doctor says so."""
    frame = _table()
    frame["llm_c"] = frame["llm_c"].map(lambda v: f"{v:g}")  # text, as Parquet keeps it
    frame.loc[frame.index[[115, 300]], "llm_c"] = "error"
    path = tmp_path / "t.parquet"
    frame.attrs = {}
    frame.to_parquet(path)
    assert main(["doctor", str(path)]) == 0
    left = _line(capsys.readouterr().out, "left out", "llm_c")
    assert "the first at row 115 (rows counted from 0)" in left, left
    assert main(["estimate", str(path), "--label", "human", "--judge", "llm_c"]) == 2
    assert f"at row 115 (item {frame['id'][115]!r})" in capsys.readouterr().err


def test_a_parquet_category_with_an_unused_level_is_a_group(tmp_path, capsys) -> None:
    """Walk of session 59: a Parquet file whose systems are a pandas category still
    listing a retired system (no row) had no group and no prompt ("no group, prompt or
    text"): the empty level counted as a group of 0 rows. Levels no row has are dropped
    when the file is read; the printed command has the group, whose table has no row for
    the retired system."""
    frame = _table()
    frame["system"] = pd.Categorical(frame["system"], [*sorted(frame["system"].unique()), "M99"])
    path = tmp_path / "t.parquet"
    frame.attrs = {}
    frame.to_parquet(path)
    out, cmd = doctor([str(path)], capsys)
    assert cmd[cmd.index("--group") + 1] == "system", out
    assert main([*cmd, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["groups"]["aee"]["rows"]
    names = {str(r["name"]) for r in rows}
    assert "M99" not in names and len(names) == frame["system"].nunique(), rows[0]


def test_export_metadata_is_never_a_judge(tmp_path, capsys) -> None:
    """Finding 10: on a pilot (about 30 labels, too few to call a column unrelated) a
    Unix timestamp `created_at`, `duration_ms` and `n_words` went into the command as
    judges. Named like metadata, or holding times since 1970 whatever the name, they are
    left out with why and how to use one anyway."""
    frame = _table(labeled=0.03)
    q = frame.attrs["quality"]
    rng = np.random.default_rng(1)
    n = len(frame)
    frame["created_at"] = 1_714_000_000 + np.cumsum(rng.integers(1, 900, n))
    frame["duration_ms"] = (3000 - 1500 * q + rng.normal(0, 200, n)).round()
    frame["n_words"] = (40 + 60 * q + rng.normal(0, 5, n)).round()
    frame["finished"] = 1000 * frame["created_at"] + frame["duration_ms"] + 200 * q
    path = tmp_path / "pilot.csv"
    frame.to_csv(path, index=False)
    out, cmd = doctor([str(path)], capsys)
    judges = [cmd[k + 1] for k, a in enumerate(cmd) if a == "--judge"]
    assert judges == ["llm_*"] or set(judges) == {"llm_a", "llm_b", "llm_c"}, cmd
    for c in ["created_at", "duration_ms", "n_words", "finished"]:
        assert "(pass --judge to use it anyway)" in _line(out, "left out", c), c
    assert "milliseconds since 1970, a timestamp" in _line(out, "left out", "finished")


def test_a_wholly_labeled_table_without_label_points_to_it(tmp_path, capsys) -> None:
    """Finding 12: every row labeled, no --label: doctor ended with "only the raw judge
    average (no human labels): label a sample of items". It names the full label column,
    the doctor command with --label and bacon simulate (whose command doctor prints with
    --label: tests/test_printed_commands.py)."""
    frame = _table(labeled=1.0)
    path = tmp_path / "full.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    can = section(capsys.readouterr().out, "what can be computed")
    assert "no human labels" not in can and "bacon sample" not in can, can
    assert f"bacon doctor {path} --label human gives the command" in can
    assert "with --label it also prints the bacon simulate command" in " ".join(can.split())
    assert "every item is labeled" in can


def test_a_constant_rating_column_is_not_offered_as_the_label(tmp_path, capsys) -> None:
    """Walk of new table shapes: TriviaQA as released, ``Human-Eval`` (True/False) beside
    ``Human-Eval_Confidence`` (True on every row). Doctor offered both ("--label
    Human-Eval_Confidence likewise"), and with that --label printed an estimate of a
    label of one value. A column of one value is named as such, and not offered."""
    frame = _table(labeled=1.0)
    frame["human_confidence"] = True
    path = tmp_path / "full.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    can = " ".join(section(out, "what can be computed").split())
    assert f"bacon doctor {path} --label human gives the command" in can, can
    assert "--label human_confidence likewise" not in can, can
    assert "human_confidence holds one value (1) on every row it fills: no label" in can, can


@pytest.mark.parametrize(
    "form",
    ["Score: {}/5", "[[{}]]", "Rating: [[{}]]", "Rating: {} out of 5", "{} out of 5", "score = {}"],
)
def test_scores_written_as_a_judges_reply_are_read(tmp_path, capsys, form) -> None:
    """Walk of new table shapes: a judge's scores kept as its reply writes them ('Score: 4/5',
    MT-Bench's '[[4]]', 'Rating: 4 out of 5') were called "7 distinct strings ... a
    category, not a prompt", with no word that they were scores; a long table of them was
    not found to be one. They are read as the score written, said, and estimate reads them
    alike."""
    frame = _table()
    plain = tmp_path / "plain.csv"
    frame.to_csv(plain, index=False)
    frame["llm_a"] = frame["llm_a"].map(lambda v: form.format(f"{v:g}"))
    path = tmp_path / "replies.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "llm_a" in found(out, "judge"), out
    assert "read as numbers from a judge's replies" in _line(out, "judge", "llm_a")
    assert _estimate(path, "llm_a", capsys) == _estimate(plain, "llm_a", capsys)


@pytest.mark.parametrize(
    "form",
    [
        "The answer is accurate and covers 3 of the 4 points.\n\nRating: [[{}]]",
        "Coherence is fine (2 issues).\n**Score:** {}/5",
        "Step 1: read it. Step 2: compare.\nThe final score is {}.",
        "Feedback: the response is partly accurate (2 errors). [RESULT] {}",
    ],
)
def test_whole_replies_with_their_score_marked_in_them_are_read(
    tmp_path, capsys, monkeypatch, form
) -> None:
    """Walk of tables nobody prepared (session 59): an MT-Bench-style judge column keeps
    the whole reply, its score at the end ('... Rating: [[8]]'). Doctor took one such
    column for the responses' text and another for the prompt, and said "nothing yet: no
    judge column found". Each reply reads as the last score marked in it; a reply with
    none (a failure) is left empty and counted; estimate reads them alike."""
    frame = _table()
    failed = [4, 9]
    plain = tmp_path / "plain.csv"
    frame.assign(llm_a=frame["llm_a"].where(~frame.index.isin(failed))).to_csv(plain, index=False)
    frame["llm_a"] = frame["llm_a"].map(lambda v: form.format(f"{v:g}")).astype(object)
    frame.loc[failed, "llm_a"] = "I cannot evaluate this response."
    path = tmp_path / "replies.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "'I cannot evaluate this response.'" in _line(out, "left out", "llm_a"), out
    monkeypatch.chdir(tmp_path)
    run_python_line(out)
    out, _ = doctor(["replies_scores.csv"], capsys)
    assert "score marked in a judge's replies" in _line(out, "judge", "llm_a"), out
    scores = tmp_path / "replies_scores.csv"
    assert _estimate(scores, "llm_a", capsys) == _estimate(plain, "llm_a", capsys)


def test_replies_marking_scores_out_of_two_tops_are_not_read() -> None:
    """A column whose replies mark '4/5' in some and '7/10' in others has no one scale."""
    from bacon_bayes.words import word_numbers

    cells = pd.Series(["Fine overall. Score: 4/5", "Weak. Score: 7/10", "Good. Score: 5/5"] * 5)
    assert word_numbers(cells) is None


def test_replies_on_two_tops_or_ids_after_a_word_are_not_read_as_scores(tmp_path) -> None:
    """What the replies' reading leaves: scores out of two tops ('Score: 4/5' beside
    'Score: 7/10': no one scale), words that are no score's ('doc: 12', an id)."""
    from bacon_bayes.words import word_numbers

    tops = pd.Series(["Score: 4/5", "Score: 7/10", "Score: 3/5"] * 5)
    assert word_numbers(tops) is None
    assert word_numbers(pd.Series([f"doc: {k}" for k in range(20)])) is None
    both = pd.Series(["Score: 4/5", "Score: 3"] * 5)
    assert word_numbers(both) is None


@pytest.mark.parametrize("grades", [True, False])
def test_scores_written_as_letters_get_the_numbers_that_rise_with_the_label(
    tmp_path, capsys, monkeypatch, grades
) -> None:
    """Finding H2-1: a judge whose scores are letters (SummEval's multiple-choice judge
    writes A-E, A the lowest; a grader writes A the best) was left out as "5 distinct
    strings shared by the system values ...: a category, not a prompt", and estimate said
    "non-numeric value 'D' ... Fix the value". Doctor now names the letters, says which
    order rises with the label, and prints the line that writes them so, after which the
    judge is taken; estimate names both maps."""
    frame = _table()
    plain = tmp_path / "plain.csv"
    frame.to_csv(plain, index=False)
    order = "EDCBA" if grades else "ABCDE"  # the letter of score 1, 2, ... 5
    frame["llm_a"] = frame["llm_a"].map(lambda v: order[int(v) - 1])
    frame["arm"] = np.array(list("ABCD"))[np.arange(len(frame)) % 4]  # names, not scores
    codes = {s: "ABCDEF"[k % 6] for k, s in enumerate(sorted(frame["system"].unique()))}
    frame["condition"] = frame["system"].map(codes)  # names of groups of unequal quality
    monkeypatch.chdir(tmp_path)
    frame.to_csv("letters.csv", index=False)
    out, _ = doctor(["letters.csv"], capsys)
    why = _line(out, "left out", "llm_a")
    assert "scores written as letters ('A', 'B', 'C', 'D', 'E')" in why
    assert ("E = 1 ... A = 5 rises" if grades else "A = 1 ... E = 5 rises") in why
    assert "letters" not in _line(out, "left out", "arm")
    assert out.count("written as letters") == 1, out
    run_python_line(why)
    again, _ = doctor(why.rsplit("then bacon doctor ", 1)[1].split(), capsys)
    assert "llm_a" in found(again, "judge")
    assert _estimate(tmp_path / "letters_numbers.csv", "llm_a", capsys) == _estimate(
        plain, "llm_a", capsys
    )
    assert main(["estimate", "letters.csv", "--label", "human", "--judge", "llm_a"]) == 2
    err = capsys.readouterr().err
    assert "holds letters ('A'" in err and "{'A': 5, 'B': 4" in err


def test_labels_written_as_letter_grades_get_the_numbers_that_rise_with_the_judges(
    tmp_path, capsys, monkeypatch
) -> None:
    """Finding H2-6: a human's grades (A the best) in a sparse column were called "a
    category, not a prompt", and doctor said "no human labels: label a sample". They are
    now named as the labels, with the numbers that rise with the judges and the line
    that writes them, after which they are the label."""
    frame = _table()
    frame["human"] = frame["human"].map(lambda v: "EDCBA"[int(v) - 1] if v == v else v)
    monkeypatch.chdir(tmp_path)
    frame.to_csv("grades.csv", index=False)
    assert main(["doctor", "grades.csv"]) == 0
    out = capsys.readouterr().out
    assert "none: 'human' holds labels written as letters" in _line(out, "label", "-")
    why = _line(out, "left out", "human")
    assert "E = 1 ... A = 5 rises with the judges" in why
    run_python_line(why)
    again, _ = doctor(["grades_numbers.csv"], capsys)
    assert found(again, "label") == ["human"]


@pytest.mark.parametrize("form", ["lower blocks", "upper blocks", "upper shuffled equal"])
def test_a_group_column_of_letters_oddly_named_is_the_group_not_a_judge(
    tmp_path, capsys, monkeypatch, form
) -> None:
    """A column of group names a / b / c, named like nothing doctor knows ('bucket'), whose
    groups differ in quality (so its letters rise with the label) was left out as "scores
    written as letters: a judge's scores?", and no group was found. Letters that partition
    the items (written in lower case, each in one block of rows, or all on as many rows)
    are a group's names: it is the group."""
    rng = np.random.default_rng(0)
    n = 300
    bucket = np.repeat(list("abc"), n // 3)
    quality = np.select([bucket == "a", bucket == "b"], [2.0, 3.0], 4.0) + rng.normal(0, 0.7, n)
    label = np.clip(np.round(quality), 1, 5)
    frame = pd.DataFrame(
        {
            "id": np.arange(n), "bucket": bucket, "judge_score": quality + rng.normal(0, 0.5, n),
            "human": np.where(rng.random(n) < 0.3, label, np.nan),
        }
    )  # fmt: skip
    if form != "lower blocks":
        frame["bucket"] = frame["bucket"].str.upper()
    if form == "upper shuffled equal":
        frame = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
    monkeypatch.chdir(tmp_path)
    frame.to_csv("pool.csv", index=False)
    out, _ = doctor(["pool.csv"], capsys)
    assert "written as letters" not in out, out
    assert found(out, "group") == ["bucket"]


def test_a_score_s_reasons_are_not_read_as_another_judge(tmp_path, capsys) -> None:
    """Walk of session 59 (DeepEval's results: ``Answer Relevancy score`` beside
    ``Answer Relevancy reason``, "The score is 0.80 because ..."): the reasons were read
    as a second judge, a copy of the score. A column named as reasons is not read so."""
    frame = _table()
    frame["llm_a_reason"] = frame["llm_a"].map(lambda v: f"The score is {v:.2f} because it is ok.")
    path = tmp_path / "deepeval.csv"
    frame.to_csv(path, index=False)
    out, cmd = doctor([str(path)], capsys)
    assert "llm_a_reason" not in found(out, "judge") and "llm_a_reason" not in cmd, out
