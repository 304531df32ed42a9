"""``bacon doctor`` on tables a user brings unprepared (tester C's findings): a judge on a
reversed scale, an error score as the label, spreadsheet summary rows, a long table,
one row per annotator and repeated ids. Each is said, with where and the fix, and no
printed command treats the table as what it is not."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

from .printed import is_python, run_python_line

SUMMEVAL = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "summeval_sample.csv.gz"
JUDGES = {
    "gpt4": "judge:gpt-4-0314|rts|relevance",
    "gpt35": "judge:gpt-3.5-turbo-0301|rts|relevance",
    "llama70b": "judge:llama-2-70b-chat-hf|rts|relevance",
}


def relevance_table(share: float = 0.15, seed: int = 0) -> pd.DataFrame:
    """SummEval relevance, one row per summary: id, system, document, text, three judges
    and the experts' mean relevance on a random ``share`` of the rows."""
    f = pd.read_csv(SUMMEVAL)
    out = pd.DataFrame({"item": np.arange(1, len(f) + 1), "system": f["system"]})
    out["doc_id"], out["summary"] = f["doc_id"], f["summary"]
    for name, column in JUDGES.items():
        out[name] = f[column].astype(float)
    keep = np.random.default_rng(seed).random(len(f)) < share
    out["relevance"] = f["expert_mean_relevance"].where(keep)
    return out


def write_long_and_labels(
    table: pd.DataFrame, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> pd.DataFrame:
    """Write ``table`` (:func:`relevance_table`) in ``folder`` as ``long.csv``, one row per
    item and judge, and its labels as ``labels.csv``; chdir there; return the long table."""
    labels = table.loc[table["relevance"].notna(), ["item", "relevance"]]
    long = table.drop(columns="relevance").melt(["item", "system"], list(JUDGES), "judge", "score")
    monkeypatch.chdir(folder)
    long.to_csv("long.csv", index=False)
    labels.to_csv("labels.csv", index=False)
    return long


def doctor(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["doctor", str(path)]) == 0
    return capsys.readouterr().out


def command(out: str) -> list[str] | None:
    """doctor's printed command without ``bacon`` (None when it prints none)."""
    lines = out.splitlines()
    return shlex.split(lines[lines.index("run:") + 1])[1:] if "run:" in lines else None


def test_a_reversed_judge_is_said_and_kept_out_of_the_naive_baseline(tmp_path, capsys):
    """A judge on 1:5 with 1 = best was an ordinary judge to doctor, "not checked ... no
    bias" in the bias section, and its raw scores were averaged into the naive baseline
    (3.47 against a truth of 3.72) without a note (finding 3)."""
    table = relevance_table()
    table["llama70b_rank"] = 6 - table.pop("llama70b")
    path = tmp_path / "rank.csv"
    table.to_csv(path, index=False)
    out = doctor(path, capsys)
    row = next(ln for ln in out.splitlines() if ln.startswith("  judge     llama70b_rank"))
    assert "falls as the label rises: a reversed scale?" in row
    assert "no raw-judge average: llama70b_rank (Spearman -0." in out
    assert "does not rise with the label" not in out  # its biases are checked, on -score
    assert "llama70b_rank falls as the label rises (a reversed scale?)" in out
    assert main([*command(out), "--engine", "freq"]) == 0
    est = capsys.readouterr().out
    assert "naive (raw judge avg) left out: llama70b_rank (Spearman -0." in est
    assert "naive (raw judge avg)  " not in est


def test_an_error_score_label_has_its_biases_checked(tmp_path, capsys):
    """A penalty as the label (higher = worse) with judges of quality: every bias check
    was "not checked: its score does not rise with the label: no bias in label points",
    which reads as a clean bill (finding 13). Checked on -label, the over-ratings are
    those of the same table with the label written the other way; an MQM-like penalty
    (0 = no error, a one-sided scale) is said to be an error score."""
    table = relevance_table(0.3)
    table["penalty"] = (4.4 - table.pop("relevance")).clip(lower=0).round(3)
    path = tmp_path / "penalty.csv"
    table.to_csv(path, index=False)
    out = doctor(path, capsys)
    # named a penalty, 0 on the best items: an error score, open above (H5: it took the
    # 0:5 its 0-3.4 values happen to fit, and asked "higher = worse?")
    assert (
        "every judge falls as penalty rises (an error score: higher = worse): biases "
        "checked on -penalty" in out
    )
    assert "--scale 0:inf" in out
    assert "does not rise with the label" not in out
    table["quality"] = -table.pop("penalty")
    table.to_csv(path, index=False)
    flipped = doctor(path, capsys)

    def biases(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if ln.startswith("    ")]

    assert biases(out) == biases(flipped) and biases(out)
    table["penalty"] = table.pop("quality") * -10  # 0 to 30.7: no common scale
    table.to_csv(path, index=False)
    out = doctor(path, capsys)
    assert "an error score (0 = no error)" in out
    assert "every judge falls as penalty rises (an error score: higher = worse)" in out


def test_summary_rows_at_the_end_are_named_not_taken_for_items(tmp_path, capsys):
    """A spreadsheet's footer ('Total' and 'mean' rows) was read as two items: no scale,
    advice to give them a group, and an estimate of 7.15 on a 1-5 label (finding 5)."""
    table = relevance_table()
    path = tmp_path / "totals.csv"
    text = table.to_csv(index=False)
    text += "Total,,,,5577,4408.5,4699,532.3\nmean,,,,4.648,3.674,3.916,3.671\n"
    path.write_text(text)
    out = doctor(path, capsys)
    assert "lines 1202, 1203 look like a spreadsheet's summary rows ('Total' in item; " in out
    assert "write the table without them, " in out and command(out) is None
    assert "scale     1:5" in out and "unknown" not in out  # profiled without them
    # bacon estimate, run on the table without doctor, refuses them (it took them for items)
    assert main(["estimate", str(path), "--label", "relevance", "--judge", "gpt4",
                 "--engine", "freq"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "lines 1202, 1203 look like a spreadsheet's summary rows" in err
    assert "write the table without them, " in err
    path.write_text(table.to_csv(index=False))  # deleted: the command is back
    assert command(doctor(path, capsys)) is not None


def test_a_long_table_is_pivoted_by_its_item_column_keeping_the_label(tmp_path, capsys):
    """The recipe for a long table keyed the pivot by the system, so pivot_table averaged
    each system's 100 items into one row, and it dropped the label (finding 6)."""
    table = relevance_table().drop(columns=["summary", "doc_id"])
    long = table.melt(["item", "system", "relevance"], list(JUDGES), "judge", "score")
    long["relevance"] = long["relevance"].where(long["judge"] == "gpt4")  # on one row only
    path = tmp_path / "long.csv"
    long.sort_values(["item", "judge"]).to_csv(path, index=False)
    out = doctor(path, capsys)
    assert "left out  item      keys the items of the long table" in out
    flat = out.replace("\n", " ")
    recipe = run_python_line(flat, cwd=tmp_path)  # it reads the file as doctor did
    assert recipe.startswith(f"import pandas as pd; df = pd.read_csv({str(path)!r}); ")
    assert "df.pivot(index='item'" in recipe and "pivot_table" not in recipe
    wide = pd.read_csv(tmp_path / "wide.csv").set_index("item").sort_index()
    expect = table.set_index("item").sort_index()
    assert len(wide) == len(table)
    pd.testing.assert_series_equal(wide["relevance"], expect["relevance"])
    pd.testing.assert_series_equal(wide["gpt35"], expect["gpt35"])


def test_a_long_table_with_the_human_as_one_rater_names_it_the_label(tmp_path, capsys):
    """Walk of new table shapes: a long table whose rater column holds the human beside
    the judges ('human' on the labeled items only) was said to hold "4 judges", 'human'
    one of them, and the recipe ended "add the labels", which the table had. Doctor counts
    the judges without it and says its column, once pivoted, is the label."""
    table = relevance_table().drop(columns=["summary", "doc_id"])
    labeled = table[table["relevance"].notna()]
    long = pd.concat(
        [
            table.drop(columns="relevance").melt(
                ["item", "system"], list(JUDGES), "rater", "score"
            ),
            labeled[["item", "system"]].assign(rater="human", score=labeled["relevance"]),
        ]
    ).sort_values(["item", "rater"])
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    flat = " ".join(doctor(path, capsys).split())
    assert f"(3 judges, about {len(table)} rows each, and the human ratings as 'human')" in flat
    assert "take its column 'human' (the human ratings) for the label" in flat
    assert "add the labels" not in flat


def test_a_long_table_with_a_labels_file_gets_its_pivot_first(tmp_path, capsys, monkeypatch):
    """Finding T1-16: a long table with its labels in another file stopped with "the
    table's id column 'item' repeats" (the join came first). Doctor now says the table is
    long, prints its pivot and how to add the labels to the pivoted table, which runs."""
    table = relevance_table().drop(columns=["summary", "doc_id"])
    long = write_long_and_labels(table, tmp_path, monkeypatch)
    assert main(["doctor", "long.csv", "--labels", "labels.csv", "--label", "relevance"]) == 0
    out = capsys.readouterr().out
    assert "long      judge" in out and "run:" not in out
    flat = out.replace("\n", " ")
    assert "the table's id column 'item' repeats" in flat
    then = flat.split("once it is pivoted, add them with: ", 1)[1].strip()
    assert then == "bacon doctor wide.csv --labels labels.csv --label relevance"
    assert "pd.read_csv('long.csv')" in run_python_line(flat)
    assert main(shlex.split(then)[1:]) == 0
    again = command(capsys.readouterr().out)
    assert again is not None and again[again.index("--label") + 1] == "relevance"
    # a table that is not long keeps the join's error
    long.drop(columns="judge").to_csv("long.csv", index=False)
    assert main(["doctor", "long.csv", "--labels", "labels.csv", "--label", "relevance"]) == 2
    assert "the table's id column 'item' repeats" in capsys.readouterr().err


@pytest.mark.parametrize("most_rows_rated", [False, True])
def test_one_row_per_annotator_is_said_and_no_command_takes_ratings_for_items(
    tmp_path, capsys, monkeypatch, most_rows_rated
):
    """Labeled items on three rows (one per expert) were counted as three items each, and
    the printed command (without --item) gave intervals covering 80% (finding 7). The fix
    is a line that runs (it was pandas code to paste): it writes the table with the
    ratings' mean per item, and doctor on that file prints a command with --item. Where
    the raters' rows are most of the rows (40% of items labeled, walk of session 59), the
    ratings were "numeric and dense" and no label was found: a label's share is of the
    items when ids repeat."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    labeled = table[table["relevance"].notna()]
    if most_rows_rated:
        unlabeled = table[table["relevance"].isna()].head(int(1.5 * len(labeled)))
        table = pd.concat([labeled, unlabeled])
    raters = pd.concat(
        [labeled.assign(annotator=f"expert{k}", rating=labeled["relevance"] + d)
         for k, d in ((1, 0.0), (2, 0.5), (3, -0.5))]
    )  # fmt: skip
    rows = pd.concat([raters, table[table["relevance"].isna()].assign(rating=np.nan)])
    rows = rows.drop(columns="relevance").sort_values("item", kind="stable")
    path = tmp_path / "raters.csv"
    rows.to_csv(path, index=False)
    out = doctor(path, capsys)
    assert f"named like an id, but {len(labeled)} ids occur on several rows (up to 3)" in out
    assert "one row per rater ('annotator'), the judges the same on each" in out
    assert command(out) is None
    flat = " ".join(out.split())
    run_python_line(flat)
    then = flat.split("Average the ratings per item first: ", 1)[1].split(", then ", 1)[1]
    assert then.startswith("bacon doctor raters_per_item.csv")
    fixed = pd.read_csv("raters_per_item.csv")
    assert len(fixed) == table["item"].nunique() and fixed["item"].is_unique
    means = fixed.set_index("item")["rating"].dropna()
    np.testing.assert_allclose(means, labeled.set_index("item")["relevance"].loc[means.index])
    again = command(doctor(Path("raters_per_item.csv"), capsys))
    assert again is not None and again[again.index("--item") + 1] == "item"


def test_repeated_ids_with_conflicting_labels_are_named(tmp_path, capsys):
    """20 labeled rows pasted again with another label: doctor demoted the id column and
    printed a command without --item, which took them for 20 more items (finding 8)."""
    table = relevance_table()
    again = table[table["relevance"].notna()].head(20)
    again = again.assign(relevance=6 - again["relevance"])
    path = tmp_path / "dupes.csv"
    pd.concat([table, again]).sort_values("item", kind="stable").to_csv(path, index=False)
    out = doctor(path, capsys)
    row = next(ln for ln in out.splitlines() if ln.startswith("  id "))
    first = int(again["item"].iloc[0])
    assert "named like an id, but 20 ids occur on several rows (up to 2)" in row
    assert f"{first} at lines {first + 1}, {first + 2}" in row
    assert "of them with different labels" in row
    assert command(out) is None and "settle the labels of each repeated id" in out


def test_rows_pasted_twice_with_their_ids_get_a_line_that_runs(tmp_path, capsys, monkeypatch):
    """Three rows of a table with ids pasted again at its end: the fix was pandas code
    (df.drop_duplicates()) to paste somewhere; it is a line that writes the table without
    the copies, and doctor on that file prints a command again."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    pd.concat([table, table.head(3)]).to_csv("copies.csv", index=False)
    out = " ".join(doctor(Path("copies.csv"), capsys).split())
    assert "those rows repeat whole (pasted twice?)" in out and command(out) is None
    run_python_line(out)
    assert out.endswith("then bacon doctor copies_unique.csv")
    assert pd.read_csv("copies_unique.csv").equals(pd.read_csv("copies.csv").head(len(table)))
    assert command(doctor(Path("copies_unique.csv"), capsys)) is not None


def test_estimate_refusing_repeated_ids_names_the_doctor_line_that_fixes_them(
    tmp_path, capsys, monkeypatch
):
    """Estimate refused a table whose ids repeat with "Aggregate repeated rows or pass a
    long judge table", with no way to do it from the command line; doctor prints a line
    that writes the table without the copies. The refusal names that doctor command, and
    it runs."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    pd.concat([table, table.head(3)]).to_csv("copies.csv", index=False)
    args = ["estimate", "copies.csv", "--label", "relevance", "--item", "item"]
    assert main([*args, *(w for j in JUDGES for w in ("--judge", j))]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "has a duplicate id" in err
    assert err.endswith(
        "bacon doctor copies.csv prints the line that writes the table with one row per id "
        "(rows pasted twice dropped; a table of one row per item and judge pivoted)."
    )
    run_python_line(" ".join(doctor(Path("copies.csv"), capsys).split()))
    assert Path("copies_unique.csv").exists()


def test_a_long_table_s_pivot_keeps_the_user_s_files_and_estimate_names_doctor(
    tmp_path, capsys, monkeypatch
):
    """Walk of session 58 (an inspect_ai-style long table of grades, labels in a file of
    their own): estimate refused "keep one row per id" with no way to do it, the pivot
    doctor printed wrote over a ``wide.csv`` already in the folder, and estimate on the
    pivoted table without ``--judge`` said only "no judges given". The refusal names the
    doctor command, the pivot writes ``wide2.csv`` beside the user's ``wide.csv`` and the
    labels line names it, and "no judges given" names the doctor that finds them."""
    table = relevance_table().drop(columns=["summary", "doc_id"])
    write_long_and_labels(table, tmp_path, monkeypatch)
    Path("wide.csv").write_text("mine\n")
    labels = ["--labels", "labels.csv", "--label", "relevance"]
    assert main(["estimate", "long.csv", *labels]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "repeats" in err and "bacon doctor long.csv prints the line that writes" in err, err
    assert main(["doctor", "long.csv", *labels]) == 0
    flat = capsys.readouterr().out.replace("\n", " ")
    then = flat.split("once it is pivoted, add them with: ", 1)[1].strip()
    assert then == "bacon doctor wide2.csv --labels labels.csv --label relevance"
    run_python_line(flat)
    assert Path("wide.csv").read_text() == "mine\n" and Path("wide2.csv").exists()
    assert main(["estimate", "wide2.csv", *labels]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.endswith(
        "bacon doctor wide2.csv --labels labels.csv finds the judge columns and prints the "
        "command with them."
    ), err


def test_a_long_table_whose_scores_hold_error_cells_is_told_to_empty_them_first(tmp_path, capsys):
    """A walk (helper W, session 43): a long table whose score column holds a few 'error'
    cells ended "no judge column found; name one with --judge in bacon estimate", which
    estimate refuses as a long table. The score column's fix comes first; emptied, the
    long table is told with its pivot."""
    table = relevance_table().drop(columns=["summary", "doc_id"])
    long = table.melt(["item", "system", "relevance"], list(JUDGES), "judge", "score")
    long["score"] = long["score"].astype(object)
    long.loc[[5, 50, 500], "score"] = "error"
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    out = doctor(path, capsys)
    assert "name one with --judge" not in out
    assert "column 'score' holds scores but for a few cells of other text" in out, out
    long.loc[[5, 50, 500], "score"] = np.nan
    long.to_csv(path, index=False)
    assert "one row per item and judge" in doctor(path, capsys).replace("\n", " ")


def test_rows_copied_whole_are_named_with_the_fix(tmp_path, capsys, monkeypatch):
    """Walk of a table nobody prepared: an export with 3 rows pasted again at its end
    (every cell the same, the summary text too; no id column) passed doctor without a
    word, and estimate took the copies for 3 more items (a labeled one's label twice).
    Doctor names them, where, and the fix (drop_duplicates, which makes the table one row
    per item again); the command it prints still runs, and estimate says the same."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table().drop(columns="item")
    table.insert(0, "Résumé n°", np.arange(1, len(table) + 1))  # the export's row number
    labeled = int(np.flatnonzero(table["relevance"].notna())[0])
    copies = table.iloc[[3, labeled, 50]]
    path = tmp_path / "copied.csv"
    pd.concat([table, copies]).to_csv(path, index=False)
    out = doctor(path, capsys)
    said = " ".join(out.split())
    n = len(table)
    # the row number, its copies' numbers repeated, was taken for a judge (Spearman 0.29)
    assert "judge     Résumé n°" not in out and "Résumé n° numeric, but named like an id" in said
    assert (
        f"3 rows are copies of an earlier row, every cell the same (lines {n + 2}, {n + 3}, "
        f"{n + 4}: copies of lines 5, {labeled + 2}, 52), "
        f"{int(copies['relevance'].notna().sum())} of them labeled" in said
    ), out
    words = command(out)
    assert words is not None and main([*words, "--engine", "freq"]) == 0
    assert "3 rows are copies of an earlier row" in capsys.readouterr().out
    # the line that drops them runs, and doctor on its table says no more of copies
    line = shlex.split(said.split("drop the copies (", 1)[1].split(", and run bacon on ")[0])
    assert is_python(line[0]) and line[1] == "-c", said
    exec(line[2], {})
    again = doctor(Path("copied_unique.csv"), capsys)
    assert "copies of an earlier row" not in again and "1200 rows" in again
    # cells of lists (a log reader's runs) are compared as written, not a TypeError
    from bacon_bayes.doctor.rows import copied_rows

    runs = pd.DataFrame({"runs": [[1, 2], [1, 2], [3], [4]], "text": ["a", "a", "b", "c"]})
    assert copied_rows(runs).startswith("1 row is a copy of an earlier row, every cell the same")
    # a table of scores alone (no text, no id): equal rows are items that scored alike
    plain = table[["gpt4", "gpt35", "relevance"]].round()
    plain.to_csv(path, index=False)
    assert "copies of an earlier row" not in doctor(path, capsys)


def test_a_long_tables_per_item_column_is_joined_back_not_taken_for_judge_names(tmp_path, capsys):
    """Session 46: WMT22 as one row per segment and metric, with the segment's ``doc``
    beside ``system`` and ``seg_id``: the recipe pivoted on ``['metric', 'doc']``, one
    judge column per metric and document (1,280 of them, nearly all empty). A column
    holding one value per item is joined back, as the label is."""
    rng = np.random.default_rng(0)
    system = np.repeat(["sysA", "sysB", "sysC", "sysD"], 30)
    seg = np.tile(np.arange(1, 31), 4)
    doc = [f"doc{(s - 1) // 5}" for s in seg]
    wide = pd.DataFrame({"system": system, "seg_id": seg, "doc": doc})
    wide["mqm"] = np.where(rng.random(len(wide)) < 0.3, -rng.integers(0, 10, len(wide)), np.nan)
    long = pd.concat(
        [wide.assign(metric=m, score=rng.normal(size=len(wide))) for m in ("comet", "bleu", "chrf")]
    )
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    out = doctor(path, capsys).replace("\n", " ")
    recipe = run_python_line(out, cwd=tmp_path)
    assert "columns='metric'" in recipe
    back = pd.read_csv(tmp_path / "wide.csv")
    assert {"comet", "bleu", "chrf", "doc", "mqm"} <= set(back.columns) and len(back) == 120


def test_group_names_written_several_ways_get_a_line_that_writes_them_one_way(
    tmp_path, capsys, monkeypatch
):
    """Session 46: on an Excel export (semicolons, decimal commas) whose systems were
    written ' m8 ' beside 'M8', doctor said "e.g. in pandas df[col] = ...": no line that
    runs, nor how to read the file back. It prints one that reads the file as doctor does
    and writes each name as its most frequent spelling, and the doctor to run on it."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table(share=0.3)
    odd = np.arange(len(table)) % 5 == 0
    table.loc[odd, "system"] = " " + table.loc[odd, "system"].str.lower() + " "
    table.to_csv("excel.csv", sep=";", decimal=",", index=False)
    out = doctor(Path("excel.csv"), capsys).replace("\n", " ")
    assert "names written several ways" in out and "df[col] =" not in out
    run_python_line(out, cwd=tmp_path)
    assert "then bacon doctor excel_groups.csv" in out
    fixed = pd.read_csv("excel_groups.csv")
    assert sorted(fixed["system"].unique()) == sorted(relevance_table()["system"].unique())
    assert fixed["relevance"].notna().sum() == table["relevance"].notna().sum()
    again = doctor(Path("excel_groups.csv"), capsys)
    assert "names written several ways" not in again


def test_a_long_table_keyed_by_its_group_and_a_question_number_is_pivoted(tmp_path, capsys):
    """Session 46: TriviaQA as one row per answer and judge (``qid`` numbering each
    model's questions, ``model``, ``question``, the human verdict, ``judge``,
    ``verdict``): doctor said "no column keys the items ... add the item's id to each
    row", though the model and the question number do. The pivot is keyed by both."""
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(
        {"qid": np.tile(np.arange(40), 3), "model": np.repeat(["gpt-4", "llama", "mistral"], 40)}
    )
    wide["question"] = [
        f"Which city is number {q} on the long list of cities?" for q in wide["qid"]
    ]
    truth = rng.random(len(wide)) < 0.6
    wide["human"] = np.where(rng.random(len(wide)) < 0.3, truth.astype(float), np.nan)
    long = pd.concat(
        [wide.assign(judge=j, verdict=truth ^ (rng.random(len(wide)) < e)) for j, e in
         (("GPT-4", 0.1), ("Llama3-70B", 0.15), ("JudgeLM", 0.3))]
    )  # fmt: skip
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    out = doctor(path, capsys).replace("\n", " ")
    assert "no column keys the items" not in out
    run_python_line(out, cwd=tmp_path)
    back = pd.read_csv(tmp_path / "wide.csv")
    assert len(back) == 120 and {"GPT-4", "JudgeLM", "human", "question"} <= set(back.columns)
    assert back["human"].notna().sum() == wide["human"].notna().sum()


def test_a_long_tables_pivot_keeps_ids_written_with_leading_zeros(tmp_path, capsys, monkeypatch):
    """Finding H2-2: a long table keyed by ids written with leading zeros (``00007``) and
    its labels in another file keyed alike. Doctor's pivot line read the ids as numbers
    (``7``), so the next printed command refused every label ("match an id of the table
    but for leading zeros"). The pivot now reads them as text, and the command runs."""
    table = relevance_table().drop(columns=["summary", "doc_id"])
    table["item"] = [f"{i:05d}" for i in table["item"]]
    write_long_and_labels(table, tmp_path, monkeypatch)
    assert main(["doctor", "long.csv", "--labels", "labels.csv", "--label", "relevance"]) == 0
    flat = capsys.readouterr().out.replace("\n", " ")
    assert "dtype={'item': 'str'}" in run_python_line(flat)
    then = flat.split("once it is pivoted, add them with: ", 1)[1].strip()
    assert main(shlex.split(then)[1:]) == 0
    again = command(capsys.readouterr().out)
    assert again is not None and again[again.index("--item") + 1] == "item"


def test_a_long_table_whose_scores_are_letters_for_one_judge_is_pivoted(
    tmp_path, capsys, monkeypatch
):
    """Finding H2-3: a long table whose score column holds letters for one judge (a
    multiple-choice judge's A-E) and numbers for the others was not found to be long
    ("score: 14 distinct string(s) ... no group, prompt or text"; "nothing yet: no judge
    column found"). It is now pivoted as any long table; on the pivoted table the letters
    get their numbers, and each printed line runs, the labels file carried along."""
    table = relevance_table().drop(columns=["summary", "doc_id"])
    table["gpt35"] = table["gpt35"].map(lambda v: "ABCDE"[int(v) - 1] if v == v else v)
    long = write_long_and_labels(table, tmp_path, monkeypatch)
    assert long["score"].dtype == object
    assert main(["doctor", "long.csv", "--labels", "labels.csv", "--label", "relevance"]) == 0
    out = capsys.readouterr().out
    assert "long      judge" in out and "the long table's scores, kept as text" in out
    run_python_line(out.replace("\n", " "))
    assert main(["doctor", "wide.csv", "--labels", "labels.csv", "--label", "relevance"]) == 0
    why = next(ln for ln in capsys.readouterr().out.splitlines() if "left out  gpt35" in ln)
    assert "A = 1 ... E = 5 rises with the label" in why
    run_python_line(why)
    then = why.rsplit("then bacon doctor ", 1)[1]
    assert then == "wide_numbers.csv --labels labels.csv --label relevance"
    assert main(["doctor", *shlex.split(then)]) == 0
    again = command(capsys.readouterr().out)
    assert again is not None and "gpt35" in again


def test_rows_copied_in_a_pool_of_questions_and_models_are_named(tmp_path, capsys):
    """Walk of tables nobody prepared (TriviaQA, session 51): a pool of 400 questions x 8
    models with no id column, 3 rows exported twice, was profiled as 3,203 items with no
    word of the copies: no one column tells its items apart (a question repeats across
    models), so copies went unchecked. The question and the model together do: the copies
    are named, with the line that drops them."""
    rng = np.random.default_rng(5)
    q, m = np.meshgrid([f"q{i:03d}" for i in range(60)], ["m-a", "m-b", "m-c"], indexing="ij")
    table = pd.DataFrame(
        {
            "question_id": q.ravel(),
            "model": m.ravel(),
            "judge_a": rng.integers(0, 2, q.size),
            "judge_b": rng.integers(0, 2, q.size),
        }
    )
    path = tmp_path / "answers.csv"
    pd.concat([table, table.iloc[[7, 30]]], ignore_index=True).to_csv(path, index=False)
    out = " ".join(doctor(path, capsys).split())
    n = len(table)
    assert (
        f"2 rows are copies of an earlier row, every cell the same (lines {n + 2}, {n + 3}: "
        "copies of lines 9, 32)" in out
    ), out
    table.to_csv(path, index=False)  # without the copies: nothing said
    assert "copies of an earlier row" not in doctor(path, capsys)


def test_a_row_of_units_under_the_header_is_named_with_the_line_that_drops_it(
    tmp_path, capsys, monkeypatch
):
    """Walk of tables nobody prepared (a German SummEval export, session 51): a row of
    units under the header (``;;Note (1 = sehr gut);Punkte;Sterne``) made every column of
    numbers text; doctor said four times "scores but for 1 cell(s) of other text ... at
    line 2", once per column, and found no label and no judge. It names the row as a
    second header, and the line it prints writes the table without it, which doctor
    then profiles with its label and judges."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(4)
    n = 150
    q = rng.uniform(1, 5, n)
    rows = ["Nr;System;Bewertung;GPT-4;GPT-3.5", ";;Note (1-5);Punkte;Sterne"]
    for i in range(n):
        label = f"{q[i]:.2f}".replace(".", ",") if i % 3 == 0 else ""
        judges = [
            f"{np.clip(q[i] + rng.normal(0, s), 1, 5):.1f}".replace(".", ",") for s in (0.5, 1)
        ]
        rows.append(";".join([f"{i + 1:04d}", f"M{i % 3}", label, *judges]))
    Path("export.csv").write_text("\ufeff" + "\n".join(rows) + "\n", encoding="utf-8")
    out = " ".join(doctor(Path("export.csv"), capsys).split())
    assert (
        "line 2 looks like a second header row (units or scales under the header: "
        "'Note (1-5)', 'Punkte', 'Sterne')" in out
    ), out
    run_python_line(out.split("write the table without it, ", 1)[1], cwd=tmp_path)
    again = doctor(Path("export_no_units.csv"), capsys)
    assert "second header row" not in again
    words = command(again)
    assert words is not None and "--label Bewertung" in " ".join(words), again
    assert "--judge GPT-4 --judge GPT-3.5" in " ".join(words), again


@pytest.mark.parametrize(
    "kind, footer",
    [("csv", ["Total", "Mean"]), ("csv;", ["Mittelwert"]), ("parquet", ["Average"])],
)
def test_a_summary_row_at_the_end_gets_the_line_that_writes_the_table_without_it(
    kind, footer, tmp_path, capsys, monkeypatch
):
    """Session 47 walk: a last row `Mittelwert` (no id, the columns' means in the score
    columns) got only "delete it from the file", from doctor and from estimate's refusal.
    Both print the line that writes the table without it, as for a units row: it runs
    (decimal commas and ';' kept, every id as written), and doctor on what it writes
    prints the command."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table().drop(columns="summary")
    table["item"] = [f"{k:04d}" for k in table["item"]]  # ids with leading zeros
    sums = table[["gpt4", "gpt35", "llama70b", "relevance"]].mean().round(3)
    rows = pd.DataFrame([{"system": word, **sums} for word in footer])
    frame = pd.concat([table, rows], ignore_index=True)
    name = "export.parquet" if kind == "parquet" else "export.csv"
    if kind == "parquet":
        frame.to_parquet(name, index=False)
    else:
        sep, decimal = (";", ",") if kind == "csv;" else (",", ".")
        frame.to_csv(name, index=False, sep=sep, decimal=decimal)
    out = " ".join(doctor(Path(name), capsys).split())
    them = "them" if len(footer) > 1 else "it"
    assert f"'{footer[0]}' in system" in out and "delete" not in out, out
    run_python_line(out.split(f"write the table without {them}, ", 1)[1], cwd=tmp_path)
    written = "export_no_summary." + ("parquet" if kind == "parquet" else "csv")
    again = doctor(Path(written), capsys)
    assert "summary row" not in again
    words = command(again)
    assert words is not None and "--label relevance" in " ".join(words), again
    back = pd.read_parquet(written) if kind == "parquet" else pd.read_csv(
        written, sep=sep, dtype=str
    )  # fmt: skip
    assert back["item"].tolist() == table["item"].tolist()
    args = ["estimate", name, "--label", "relevance", "--judge", "gpt4", "--engine", "freq"]
    assert main(args) == 2
    err = " ".join(capsys.readouterr().err.split())
    again = written.replace("summary.", "summary2.")  # the file doctor's line wrote is kept
    assert f"write the table without {them}, " in err and f"run on {again}." in err, err


def _by_system(table: pd.DataFrame, system_first: bool = True) -> pd.DataFrame:
    """``table`` (:func:`relevance_table`) kept as a spreadsheet of documents by systems:
    a row per document, a column per system and rater (``M10_gpt4``, ``M10_human``...)."""
    wide = table.pivot(index="doc_id", columns="system", values=["gpt4", "gpt35", "relevance"])
    rater = {"gpt4": "gpt4", "gpt35": "gpt35", "relevance": "human"}
    wide.columns = [
        f"{s}_{rater[r]}" if system_first else f"{rater[r]}_{s}" for r, s in wide.columns
    ]
    return wide.reset_index()


def test_a_table_wide_by_system_is_written_one_row_per_answer(tmp_path, capsys, monkeypatch):
    """Walk of session 58: a spreadsheet of documents by systems (``M10_gpt4``,
    ``M10_human``, ``M11_gpt4``, ...) was read as one system's human column for the label
    and every system's judge column for a judge, and doctor printed that estimate. It says
    the columns are named by system and rater, prints no estimate, and its line writes one
    row per answer, on which doctor finds the group, the prompt, the label and the judges
    and its estimate runs."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    _by_system(table).to_csv("by_system.csv", index=False)
    out = doctor(Path("by_system.csv"), capsys)
    flat = " ".join(out.split())
    assert "nothing yet: columns named by system and rater: 12 systems" in flat, flat
    assert "by gpt4, gpt35, human" in flat and "run:" not in out
    assert "near copies" not in flat and "label different items" not in flat
    run_python_line(flat)
    back = pd.read_csv("by_system_answers.csv")
    assert len(back) == len(table) and set(back.columns) == {
        "id", "doc_id", "system", "gpt4", "gpt35", "human"
    }  # fmt: skip
    assert not back["id"].duplicated().any()
    joined = back.merge(table, on=["doc_id", "system"], suffixes=("", "_t"))
    np.testing.assert_array_equal(joined["human"], joined["relevance"])
    np.testing.assert_array_equal(joined["gpt4"], joined["gpt4_t"])
    again = command(doctor(Path("by_system_answers.csv"), capsys))
    assert again is not None
    assert again[again.index("--group") + 1] == "system"
    assert again[again.index("--prompt") + 1] == "doc_id"
    assert again[again.index("--label") + 1] == "human"
    assert main([*again, "--engine", "freq", "--json"]) == 0


ASPECTS = ("relevance", "coherence", "fluency")


def test_a_table_wide_by_system_without_labels_gets_a_pilot_of_answers(
    tmp_path, capsys, monkeypatch
):
    """Walk of session 58: the same spreadsheet with two judges and no labels yet got
    ``bacon sample`` on its documents, with every system's judge column as a judge (24
    judges). Doctor prints the line that writes one row per answer, each with an id, and
    on that file the pilot's sample command, which runs."""
    monkeypatch.chdir(tmp_path)
    wide = _by_system(relevance_table())
    wide = wide[[c for c in wide.columns if not c.endswith("_human")]]
    wide.to_csv("runs.csv", index=False)
    out = doctor(Path("runs.csv"), capsys)
    flat = " ".join(out.split())
    assert "nothing yet: columns named by system and rater: 12 systems" in flat, flat
    assert "bacon sample" not in flat
    run_python_line(flat)
    again = doctor(Path("runs_answers.csv"), capsys)
    lines = again.splitlines()
    words = shlex.split(lines[lines.index("run, to draw the first items to label:") + 1])
    assert words[:3] == ["bacon", "sample", "runs_answers.csv"]
    assert words[words.index("--item") + 1] == "id"
    assert words[words.index("--group") + 1] == "system"
    assert main(words[1:]) == 0


def test_raters_first_or_raters_by_aspect_are_told_apart() -> None:
    """The grid read with the rater first (``human_M10``) is a table wide by system too;
    experts by aspects (``expert1_relevance``, ``expert2_coherence``) with judges are not,
    nor is a table with a column of systems."""
    from bacon_bayes.doctor.wide import system_grid

    table = relevance_table()
    grid = system_grid(_by_system(table, system_first=False))
    assert grid is not None and not grid.system_first and len(grid.systems) == 12
    aspects = pd.DataFrame(
        {
            f"{who}_{aspect}": np.arange(12.0)
            for who in ("expert1", "expert2", "expert3", "gpt4", "claude")
            for aspect in ASPECTS
        }
    )
    assert system_grid(aspects) is None
    assert system_grid(table) is None
    one_human = pd.DataFrame(
        {f"{who}_{aspect}": np.arange(12.0) for who in ("human", "gpt4") for aspect in ASPECTS}
    )
    assert system_grid(one_human) is None
    judges_by_aspect = one_human[[c for c in one_human.columns if c.startswith("gpt4")]]
    judges_by_aspect = judges_by_aspect.assign(**{f"claude_{a}": 1.0 for a in ASPECTS})
    assert system_grid(judges_by_aspect, unlabeled=True) is None
    one_judge = pd.DataFrame({f"M{k}_gpt4": np.arange(12.0) for k in range(8)})
    assert system_grid(one_judge, unlabeled=True) is None  # one rater: too little to tell


@pytest.mark.parametrize("choices", [False, True])
def test_a_labelling_tool_s_rows_per_annotation_give_the_rating_s_mean(
    tmp_path, capsys, monkeypatch, choices
):
    """Walk of session 59 (Label Studio's CSV export: a row per annotation, with
    ``annotation_id``, ``annotator``, ``lead_time``): doctor took ``annotation_id`` (named
    like an annotation) for the label, and its averaging line averaged the ids and kept
    the first rating. An id is never a label; the rating is, and its mean per item is
    written, also when the ratings are a choice's text ('4 - Relevant'), which the
    line's pandas mean refused."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    table["relevance"] = table["relevance"].round()
    labeled = table[table["relevance"].notna()]
    raters = pd.concat(
        [labeled.assign(annotator=f"ann{k}", annotation_id=1000 + 10 * np.arange(len(labeled)) + k,
                        lead_time=12.5 + k, relevance=(labeled["relevance"] + d).clip(1, 5))
         for k, d in ((1, 0.0), (2, 1.0), (3, -1.0))]
    )  # fmt: skip
    rows = pd.concat([raters, table[table["relevance"].isna()]]).sort_values("item", kind="stable")
    if choices:
        names = {1: "Irrelevant", 2: "Weak", 3: "Partly", 4: "Relevant", 5: "Highly relevant"}
        rows["relevance"] = rows["relevance"].map(
            lambda v: v if pd.isna(v) else f"{int(v)} - {names[int(v)]}"
        )
    rows.to_csv("export.csv", index=False)
    out = doctor(Path("export.csv"), capsys)
    assert "  label     relevance " in out, out
    from .test_doctor_messy import section  # each item counted once, not each rating

    per = [ln.split() for ln in section(out, "labels per system").splitlines()[2:]]
    assert sum(int(r[1]) for r in per) == table["item"].nunique(), per
    assert sum(int(r[2]) for r in per) == len(labeled), per
    flat = " ".join(out.split())
    run_python_line(flat.split("Average the ratings per item first: ", 1)[1])
    fixed = pd.read_csv("export_per_item.csv").set_index("item")["relevance"].dropna()
    means = raters.groupby("item")["relevance"].mean()
    np.testing.assert_allclose(fixed.sort_index(), means.loc[fixed.index].sort_index())
    again = command(doctor(Path("export_per_item.csv"), capsys))
    assert again is not None and again[again.index("--label") + 1] == "relevance"
    assert main(again) == 0


def test_several_raters_ratings_packed_in_a_cell_are_the_labels(tmp_path, capsys, monkeypatch):
    """Walk of session 59 (Argilla's flattened export: ``relevance.responses`` holds the
    users' ratings as a list, ``relevance.responses.status`` ``['submitted', ...]``):
    doctor took the status lists for labels written as words (and mapped them to 1 / 2,
    an estimate of how many raters an item had), and called the ratings "several runs
    of a judge". The lists of ratings are the labels, their mean taken by a line that
    runs; lists of words are no levels."""
    from bacon_bayes.words import word_levels

    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    ratings = table["relevance"].round()
    three = np.arange(len(table)) % 3 == 0
    table["relevance.responses"] = [
        None if np.isnan(v) else json.dumps([int(v)] * (3 if t else 1))
        for v, t in zip(ratings, three, strict=True)
    ]
    table["relevance.responses.status"] = [
        None if np.isnan(v) else str(["submitted"] * (3 if t else 1))
        for v, t in zip(ratings, three, strict=True)
    ]
    assert word_levels(table["relevance.responses.status"]) is None
    table.drop(columns="relevance").to_csv("argilla.csv", index=False)
    out = doctor(Path("argilla.csv"), capsys)
    assert "none: 'relevance.responses' holds several ratings a cell" in out, out
    can = " ".join(out.split("what can be computed:", 1)[1].split())
    assert "several raters' ratings of an item in one cell; take their mean" in can
    run_python_line(can)
    again = command(doctor(Path("argilla_scores.csv"), capsys))
    assert again is not None and again[again.index("--label") + 1] == "relevance.responses"
    assert main(again) == 0
