"""Tables as spreadsheets and labelling tools export them (tester B, round 37): line
numbers past blank lines and cells of several lines, thousands separators in a file of
decimal commas, summary rows in other languages, notes under the table, labels written
as words."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main


def _table(n: int = 120, seed: int = 1) -> pd.DataFrame:
    """Integer ids, a group, two judges, a label on every fourth row."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n).astype(float)
    return pd.DataFrame(
        {"id": np.arange(1, n + 1), "system": np.where(np.arange(n) % 3, "M1", "M2"),
         "judge_a": np.clip(np.round(truth + rng.normal(0, 0.6, n)), 1, 5),
         "judge_b": np.clip(np.round(truth + rng.normal(0, 0.9, n)), 1, 5),
         "human": np.where(np.arange(n) % 4 == 0, truth, np.nan)}
    )  # fmt: skip


def test_lines_are_the_files_past_blank_lines_and_cells_of_several_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Findings 1 and 14: 'line N' was the row's number + 2, not the file's line, once
    the file had blank lines (skipped by pandas) or a quoted cell holding line breaks (an
    LLM's reply): the user was sent to the wrong line. Messages name the line the
    record starts on."""
    from bacon_bayes.io import csv_lines, file_line, read_table

    frame = _table()
    frame["reply"] = [f"first sentence {k}.\nsecond sentence.\nthird." for k in range(len(frame))]
    frame["judge_b"] = frame["judge_b"].astype(object)
    frame.loc[50, "judge_b"] = "timeout"
    body = frame.to_csv(index=False).splitlines()
    path = tmp_path / "replies.csv"
    # 3 lines per record, 2 blank lines after the 5th record (at lines 17, 18)
    path.write_text("\n".join([*body[:16], "", "", *body[16:]]) + "\n")
    read = read_table(path)
    assert file_line(read, 0) == 2 and file_line(read, 50) == 4 + 3 * 50
    assert list(csv_lines(read)[3:7]) == [11, 14, 19, 22]
    argv = ["estimate", str(path), "--label", "human", "--item", "id", "--judge", "judge_*"]
    assert main([*argv, "--engine", "freq"]) == 2
    assert "'timeout' at line 154 (item 51)" in capsys.readouterr().err
    assert main(["doctor", str(path)]) == 0
    assert "the first at line 154" in capsys.readouterr().out

    plain = _table()  # a summary row past blank lines (finding 1)
    lines = plain.to_csv(index=False, sep=";", decimal=",").splitlines()
    total = "Total;;" + ";".join(["4,2", "4,1", "3,9"])
    path = tmp_path / "excel.csv"
    path.write_text("\n".join([*lines[:10], "", "", *lines[10:], "", total]) + "\n")
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"line {len(lines) + 4} looks like a spreadsheet's summary row" in out
    assert path.read_text().splitlines()[len(lines) + 3].startswith("Total")


@pytest.mark.parametrize("word", ["Summe", "Gesamt", "Moyenne", "Totale", "Totaal", "Promedio"])
def test_summary_rows_in_the_languages_of_decimal_comma_spreadsheets(word: str) -> None:
    """Finding 16: a German Excel's 'Summe' / 'Gesamt' row passed for one more labelled
    item (the label's column mean as its label). The summary words of the languages
    whose CSV conventions bacon reads are known too."""
    from bacon_bayes.doctor.rows import summary_rows

    frame = _table()
    frame["id"] = frame["id"].astype(object)
    row = {"id": word, "judge_a": 3.2, "judge_b": 3.1, "human": 3.4}
    frame = pd.concat([frame, pd.DataFrame([row])], ignore_index=True)
    rows, said = summary_rows(frame, "parquet", command=True)
    assert rows == [len(frame) - 1]
    assert f"row 120 looks like a spreadsheet's summary row ({word!r} in id)" in said


def test_notes_under_the_table_are_named_not_taken_for_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 15: two footnote lines under the table ('Source: ...', 'Note: ...') were
    read as two items with no group, so doctor dropped the group from its command
    without a word. They are named with their lines, like a summary row, left out of the
    profile (the group stays), and refused by estimate."""
    frame = _table()
    path = tmp_path / "footer.csv"
    notes = "\nSource: internal relevance eval, March 2025\nNote: human = mean of 3 experts\n"
    path.write_text(frame.to_csv(index=False) + notes)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "lines 123, 124 look like notes under the table" in out
    assert "group     system" in out
    argv = ["estimate", str(path), "--label", "human", "--item", "id", "--judge", "judge_*"]
    assert main([*argv, "--engine", "freq"]) == 2
    assert "lines 123, 124 look like notes under the table" in capsys.readouterr().err
    empty = frame.copy()  # an item with only its id is no note
    empty.loc[len(empty)] = [121, None, None, None, None]
    path.write_text(empty.to_csv(index=False))
    assert main(["doctor", str(path)]) == 0
    assert "under the table" not in capsys.readouterr().out


def test_thousands_separators_in_a_file_of_decimal_commas(tmp_path: Path) -> None:
    """Finding 7: in a ';' file with decimal commas (a German Excel's), a judge on a
    250-1250 scale written '1.250' was read as 1.25 beside 250 (the file then taken as
    one of decimal points), and the scrambled judge dropped as unrelated to the label.
    A point every three digits is a thousands separator beside whole numbers of 100 and
    more, a decimal point beside small ones ('3.667' beside '4'), and refused, naming
    the column, where the column does not tell."""
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.io import read_table

    frame = _table()
    frame["human"] = frame["human"] + np.where(np.arange(len(frame)) % 8 == 0, 0.5, 0.0)
    big = (frame["judge_a"] * 250).astype(int)
    frame["judge_a"] = [f"{v // 1000}.{v % 1000:03d}" if v >= 1000 else str(v) for v in big]
    path = tmp_path / "de.csv"
    path.write_text(frame.to_csv(index=False, sep=";", decimal=","))
    read = read_table(path)
    assert read["judge_a"].tolist() == big.astype(float).tolist()
    assert read["human"].dropna().tolist() == frame["human"].dropna().tolist()
    assert "'.' as a thousands separator in column(s) 'judge_a'" in read.attrs["read as"]

    means = frame.assign(judge_a=np.where(np.arange(len(frame)) % 3, "3.667", "4"))
    path.write_text(means.to_csv(index=False, sep=";", decimal=","))
    assert set(read_table(path)["judge_a"]) == {3.667, 4.0}

    unclear = frame.assign(judge_a=np.where(np.arange(len(frame)) % 3, "1.250", "50"))
    path.write_text(unclear.to_csv(index=False, sep=";", decimal=","))
    with pytest.raises(ValidationError, match=r"column 'judge_a' writes 80 numbers as '1.250'"):
        read_table(path)


@pytest.mark.parametrize(
    ("sep", "decimal", "thousands"), [(";", ",", "."), (";", ".", ","), (",", ".", ",")]
)
def test_numbers_written_with_separators_and_decimals_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sep: str, decimal: str, thousands: str
) -> None:
    """A judge column formatted "with separators" in a spreadsheet (``1.537,72`` in a
    German export, ``1,537.72`` in a US one, quoted in a comma-separated file) was refused
    as non-numeric by ``estimate`` and left out as 120 distinct strings by ``doctor``
    (session 38). A cell with a thousands separator and the file's decimal mark after it
    is a number one way only; the whole-file and the streamed readers give the clean
    table's estimates."""
    from bacon_bayes.io import read_table

    frame = _table()
    big = frame["judge_a"] * 400.25 + np.arange(len(frame)) % 7  # 400.25 .. 2,007.25
    frame["judge_a"] = [
        f"{v:,.2f}".replace(",", "T").replace(".", decimal).replace("T", thousands) for v in big
    ]
    path, clean = tmp_path / "grouped.csv", tmp_path / "clean.csv"
    path.write_text(frame.to_csv(index=False, sep=sep, decimal=decimal))
    frame.assign(judge_a=big).to_csv(clean, index=False)
    read = read_table(path)
    assert read["judge_a"].tolist() == pytest.approx(big.tolist())
    assert f"'{thousands}' as a thousands separator in column(s) 'judge_a'" in read.attrs["read as"]
    args = ["--label", "human", "--judge", "judge_a", "--judge", "judge_b", "--engine", "freq"]
    means = []
    for more in ([], ["--chunk-rows", "50"]):  # the streamed reader's chunks too
        for f in (clean, path):
            assert main(["estimate", str(f), *args, *more, "--json"]) == 0
            means.append(json.loads(capsys.readouterr().out)["mean"]["aee"]["estimate"])
    assert means[1] == pytest.approx(means[0], abs=1e-9)
    assert means[3] == pytest.approx(means[2], abs=1e-9)


def _words(column: pd.Series, names: dict[float, str]) -> pd.Series:
    return column.map(names).astype(object)


def test_labels_written_with_their_level_name_or_as_quality_words_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 2: labels exported as '3 - Good' (a labelling tool's number and level
    name) or as the words Poor .. Excellent were not read: doctor said there were no
    labels ('label a sample of items') and called the label column a category. The
    number of a 'N - name' cell is read (every number with one name), and the 5 quality
    words as 1-5 when 4 of them at least are written; estimates are those of the numbers."""
    from bacon_bayes.words import word_numbers

    frame = _table()
    names = {1.0: "Poor", 2.0: "Fair", 3.0: "Good", 4.0: "Very good", 5.0: "Excellent"}
    named = _words(frame["human"], {k: f"{k:g} - {v}" for k, v in names.items()})
    read = word_numbers(named)
    assert read is not None and read[0].tolist() == pytest.approx(
        frame["human"].tolist(), nan_ok=True
    )
    read = word_numbers(_words(frame["human"], names))
    assert read is not None and read[0].tolist() == pytest.approx(
        frame["human"].tolist(), nan_ok=True
    )
    untold = word_numbers(pd.Series(["Poor", "Good", "Good", None]))  # 2 levels: which scale?
    assert untold is None or untold[0].iloc[0] != 1.0
    assert word_numbers(pd.Series(["1 - Poor", "2 - Poor", "3 - Good"])) is None  # not one name

    out = {}
    for name, column in {"plain": frame["human"], "named": named}.items():
        path = tmp_path / f"{name}.csv"
        frame.assign(human=column).to_csv(path, index=False)
        assert main(["doctor", str(path)]) == 0
        out[name] = capsys.readouterr().out
        argv = ["estimate", str(path), "--label", "human", "--item", "id", "--judge", "judge_*"]
        assert main([*argv, "--scale", "1:5", "--engine", "freq"]) == 0
        out[name + " estimate"] = capsys.readouterr().out
    assert "named like a label, numeric and sparse: 30 of 120 rows" in out["named"]
    assert (
        "('5 - Excellent' = 5)" in out["named"] or "level names after them dropped" in out["named"]
    )
    aee = [ln for ln in out["plain estimate"].splitlines() if "calibrated (AEE)" in ln]
    assert aee and aee == [ln for ln in out["named estimate"].splitlines() if "(AEE)" in ln]


@pytest.mark.parametrize(
    ("names", "third"), [({1.0: "Yes", 0.0: "No"}, "Partially"), ({1.0: "good", 0.0: "bad"}, "ok")]
)
def test_a_third_word_level_is_a_level_not_cells_to_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], names: dict[float, str], third: str
) -> None:
    """Finding 10: a label written Yes / No / Partially (or good / ok / bad) was read as
    yes / no, and 'Partially' called 'other text ... empty those cells (an item nobody
    labeled)'. Following that deleted real labels, all of one kind, and biased the
    estimate (tester's Monte Carlo: classical coverage 0.60, AEE 0.87). A frequent third
    word is a level: doctor, --label and estimate name the levels with their counts and
    how to map them to numbers, and never advise emptying them."""
    frame = _table(200)
    yes = (frame["human"] >= 3).astype(float).where(frame["human"].notna())
    words = _words(yes, names)
    words[words.index[(yes == 1).to_numpy()][::4]] = third
    path = tmp_path / "levels.csv"
    frame.assign(human=words).to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    n = int((words == third).sum())
    assert "labels written as 3 words" in out and f"{third!r} ({n})" in out
    assert f"{third!r}: 0.5" in out and "empty those cells" not in out
    assert main(["doctor", str(path), "--label", "human"]) == 2
    assert "levels, not failures" in capsys.readouterr().err
    argv = ["estimate", str(path), "--label", "human", "--item", "id", "--judge", "judge_*"]
    assert main([*argv, "--engine", "freq"]) == 2
    err = capsys.readouterr().err
    assert "holds 3 words" in err and "Fix the value" not in err
    rare = words.copy()  # a rare word among verdicts is a failure, named as before
    rare[rare == third] = names[1.0]
    rare[rare.index[rare.notna()][:1]] = "error"
    frame.assign(human=rare).to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    assert "cell(s) of other text ('error'" in capsys.readouterr().out


def test_verdicts_correct_and_wrong_are_one_pair():
    """Session 42: a label written ``correct`` / ``wrong`` (TriviaQA's verdicts as a
    labelling tool exports them) was refused as two words of no pair, by doctor and by
    ``--labels``; ``correct``/``wrong`` and ``right``/``incorrect`` are one verdict, named
    as written."""
    from bacon_bayes.words import word_numbers

    read = word_numbers(pd.Series(["correct", "Wrong", None, "correct"]))
    assert read is not None
    assert read[0].tolist()[:2] == [1.0, 0.0] and np.isnan(read[0][2])
    assert read[1] == "read from words, 'correct' = 1, 'wrong' = 0"
    read = word_numbers(pd.Series(["right", "incorrect", "correct", "wrong"]))
    assert read is not None and read[0].tolist() == [1.0, 0.0, 1.0, 0.0]
    assert read[1] == "read from words, 'correct' / 'right' = 1, 'incorrect' / 'wrong' = 0"
    assert word_numbers(pd.Series(["correct", "incorrect"]))[1] == (
        "read from words, 'correct' = 1, 'incorrect' = 0"
    )


def test_two_verdict_words_of_different_pairs_get_a_yes_no_hint():
    """Two verdict words of no one pair (``yes`` / ``wrong``) are levels to map; the hint
    spoke of "the middle level 0.5", which only a third, non-verdict word has."""
    from bacon_bayes.words import word_levels

    said = word_levels(pd.Series(["yes", "wrong"] * 10, name="v"))
    assert said is not None and "map({'yes': 1, 'wrong': 0})" in said[1]
    assert "middle level" not in said[1] and "1 for each word that says yes" in said[1]
    three = word_levels(pd.Series(["Yes", "No", "Partially"] * 10, name="v"))
    assert three is not None and "the middle level 0.5" in three[1]


def test_estimate_says_how_it_read_a_label_of_words(tmp_path, capsys):
    """Session 42: doctor said "read from words, 'correct' = 1, 'wrong' = 0" and the
    printed command estimated the share of 1 without a word of which word was 1, in the
    table and through ``--labels``."""
    rng = np.random.default_rng(0)
    ok = rng.random(200) < 0.7
    table = pd.DataFrame({"id": [f"q{i}" for i in range(200)]})
    table["j1"], table["j2"] = ok + rng.normal(0, 0.4, 200), ok + rng.normal(0, 0.6, 200)
    words = np.where(ok, "correct", "wrong")
    labeled = np.arange(200) % 4 == 0
    table.assign(verdict=np.where(labeled, words, None)).to_csv(tmp_path / "t.csv", index=False)
    table.to_csv(tmp_path / "scores.csv", index=False)
    pd.DataFrame({"id": table["id"][labeled], "verdict": words[labeled]}).to_csv(
        tmp_path / "labels.csv", index=False
    )
    note = "note: column 'verdict': read from words, 'correct' = 1, 'wrong' = 0"
    for argv in (["t.csv"], ["scores.csv", "--labels", str(tmp_path / "labels.csv")]):
        argv[0] = str(tmp_path / argv[0])
        assert main(["estimate", *argv, "--label", "verdict", "--judge", "j1,j2"]) == 0
        assert note in capsys.readouterr().out


def test_numbers_written_with_the_unicode_minus_sign_are_read(tmp_path, capsys) -> None:
    """Walk of a table nobody prepared: a spreadsheet of a Swedish or Finnish locale writes
    negative numbers with the minus sign U+2212 ('−0,48'), not '-'. Doctor left out a
    metric ("1976 distinct string(s) (e.g. '0.9582')") and the MQM label ("none: no sparse
    numeric column"), and label import refused '−2' as no number. They are numbers, read
    so and said; the study's label import reads them too."""
    frame = _table()
    frame["judge_a"] = frame["judge_a"] - 3.5  # negative scores, with decimals
    frame["human"] = -frame["human"]
    text = frame.to_csv(sep=";", index=False, decimal=",").replace("-", "\u2212")
    path = tmp_path / "sv.csv"
    path.write_text(text, encoding="utf-8")
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "label     human" in out and "judge     judge_a" in out, out
    assert "the minus sign U+2212 ('−') read as '-'" in out
    argv = ["--label", "human", "--judge", "judge_a,judge_b", "--item", "id"]
    assert main(["estimate", str(path), *argv, "--engine", "freq"]) == 0
    capsys.readouterr()
    # a study's label file written by the same spreadsheet
    pool = tmp_path / "pool.csv"
    frame.assign(human=np.where(np.arange(len(frame)) < 60, frame["human"], np.nan)).to_csv(
        pool, index=False
    )
    folder = tmp_path / "pool.study"
    assert main(["sample", str(pool), *argv, "--budget", "10", "--study", str(folder)]) == 0
    todo = pd.read_csv(folder / "todo-wave2.csv", dtype=str)
    todo["human"] = "\u22122"
    todo.to_csv(tmp_path / "done.csv", index=False)
    assert main(["label", "import", str(tmp_path / "done.csv"), "--study", str(folder)]) == 0
    assert "10 labels added" in capsys.readouterr().out
