"""What a table's keys and shape say: group names written several ways (estimate, report
and plan by groups), an id column with blank cells, a long table whose judge column is
not named like one, repeated rows of a long table, and a pairwise labels file's one
column."""

from __future__ import annotations

import pandas as pd

from bacon_bayes.cli import main

from .printed import run_python_line
from .test_doctor_tables import command, doctor, relevance_table
from .test_pairwise_cli import SAMPLE
from .test_printed_commands import READ, table


def _respelled(folder):
    """The printed-commands table with system s1 also written 'S1' and 's1 '."""
    path = table(folder)
    frame = pd.read_csv(path)
    s1 = frame.index[frame["system"] == "s1"]
    frame.loc[s1[::3], "system"] = "S1"
    frame.loc[s1[1::3], "system"] = "s1 "
    frame.to_csv(path, index=False)
    return path


def test_group_names_written_several_ways_are_said_by_estimate_and_plan(tmp_path, capsys):
    path = _respelled(tmp_path)
    assert main(["estimate", str(path), *READ, "--engine", "freq"]) == 0
    out = capsys.readouterr().out
    note = [line for line in out.splitlines() if "written several ways" in line]
    assert len(note) == 1, out
    assert "1 group name(s)" in note[0] and all(f"{n!r}" in note[0] for n in ("s1", "S1", "s1 "))
    assert "df['system'] = df['system'].str.strip().str.upper()" in note[0]
    assert main(["plan", str(path), *READ, "--top"]) == 0
    assert "group name(s) are written several ways" in capsys.readouterr().out


def _blank_ids(folder, repeat: bool = True):
    """SummEval relevance with ids 'S0000'..., three blank ids (lines 7-9) and, with
    ``repeat``, the id of line 22 written again on line 23; the labels in a second file."""
    frame = relevance_table()
    frame["item"] = [f"S{k:04d}" for k in range(len(frame))]
    frame.loc[5:7, "item"] = None
    if repeat:
        frame.loc[21, "item"] = frame.loc[20, "item"]
    labels = frame[["item", "relevance"]].dropna().drop_duplicates("item")
    frame.drop(columns="relevance").to_csv(folder / "pool.csv", index=False)
    labels.to_csv(folder / "labels.csv", index=False)
    return folder / "pool.csv", folder / "labels.csv"


def test_an_id_column_with_blank_cells_is_the_id_and_its_repeats_are_checked(tmp_path, capsys):
    """Three blank ids made doctor leave 'item' out as "no group, prompt or text" and skip
    the check of its repeated id; the join said the id "repeats nan" (finding 5)."""
    pool, labels = _blank_ids(tmp_path)
    out = doctor(pool, capsys)
    row = next(ln for ln in out.splitlines() if ln.startswith("  id "))
    assert "item" in row and "3 row(s) have no id (lines 7, 8, 9)" in row
    assert "1 ids occur on several rows (up to 2): 'S0020' at lines 22, 23" in row
    assert command(out) is None and "give every row its id" in out
    for argv in (["doctor", str(pool)], ["estimate", str(pool), "--judge", "gpt4"]):
        assert main([*argv, "--labels", str(labels), "--label", "relevance"]) == 2
        err = capsys.readouterr().err
        assert "id column 'item' is empty at lines 7, 8, 9 (3 of 1200 rows have no id)" in err
        assert "nan" not in err


def test_a_repeated_id_in_a_join_is_named_with_its_lines(tmp_path, capsys):
    pool, labels = _blank_ids(tmp_path)
    frame = pd.read_csv(pool)
    frame.loc[5:7, "item"] = ["x5", "x6", "x7"]
    frame.to_csv(pool, index=False)
    assert main(["estimate", str(pool), "--judge", "gpt4", "--labels", str(labels),
                 "--label", "relevance"]) == 2  # fmt: skip
    assert "repeats 'S0020' (at lines 22, 23)" in capsys.readouterr().err


def test_blank_ids_alone_are_named_too(tmp_path, capsys):
    pool, _ = _blank_ids(tmp_path, repeat=False)
    out = doctor(pool, capsys)
    row = next(ln for ln in out.splitlines() if ln.startswith("  id "))
    assert row.split()[1] == "item" and row.endswith("3 row(s) have no id (lines 7, 8, 9)")
    assert "the ids of 'item' are missing on some rows (see the id row above)" in out


def _metric_long(folder):
    """A long table as a melt of a wide one: one row per item and metric (4 metrics, the
    column named ``metric``), the item's label repeated on each of its rows."""
    wide = relevance_table(0.2)
    wide["item"] = [f"seg{k}" for k in range(len(wide))]
    long = wide.melt(
        id_vars=["item", "system", "doc_id", "relevance"],
        value_vars=["gpt4", "gpt35", "llama70b"],
        var_name="metric",
        value_name="score",
    )
    path = folder / "long.csv"
    long.to_csv(path, index=False)
    return path


def test_a_long_table_is_told_by_its_shape_when_its_judge_column_is_named_metric(tmp_path, capsys):
    """A melt whose judge column is 'metric' passed for one row per item: doctor printed
    an estimate command over the repeated rows, every label counted 3 times (finding 6)."""
    path = _metric_long(tmp_path)
    out = doctor(path, capsys)
    assert command(out) is None
    assert "'metric' seems to name the judge of each row ('item' holds each id on 3 rows" in out
    assert "wide = df.pivot(index='item', columns='metric', values='score')" in out
    # estimate without --item would read each row as an item: refused, with the fix
    # (a note before, the intervals printed 3 times too narrow: tester D finding 3)
    assert main(["estimate", str(path), "--label", "relevance", "--judge", "score",
                 "--engine", "freq"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "column 'metric' names the judge of each row (3 values, about 1200 rows each)" in err
    assert "each item and its label would count about 3 times" in err
    assert "wide = df.pivot(index='item', columns='metric', values='score')" in err


def test_a_long_table_keyed_by_system_and_segment_is_told_and_pivoted(
    tmp_path, capsys, monkeypatch
):
    """WMT's own layout: one row per system, segment and metric, no item column (the item
    is the system and its seg_id). Doctor printed an estimate command over the repeated
    rows, each label counted 3 times; estimate said nothing."""
    wide = relevance_table(0.2).drop(columns=["item", "summary", "doc_id"])
    wide["seg_id"] = wide.groupby("system").cumcount() + 1
    long = wide.melt(id_vars=["system", "seg_id", "relevance"], var_name="metric",
                     value_name="score")  # fmt: skip
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    out = doctor(path, capsys)
    assert command(out) is None
    assert "'system' and 'seg_id' hold each id on 3 rows, one per value of 'metric'" in out
    recipe = out[out.index("wide = df.pivot(") : out.index("wide.csv', index=False)") + 23]
    assert "index=['system', 'seg_id'], columns='metric'" in recipe
    assert "left out  system" not in out  # the group, not a left-out key
    monkeypatch.chdir(tmp_path)
    frame = {"df": long}
    exec(recipe, frame)  # the printed pivot, run as printed
    back = pd.read_csv("wide.csv")
    assert len(back) == len(wide)
    assert back["relevance"].notna().sum() == wide["relevance"].notna().sum()
    assert main(["estimate", str(path), "--label", "relevance", "--judge", "score",
                 "--group", "system", "--engine", "freq"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "['system', 'seg_id'] the item, and the label 'relevance' repeats on the rows" in err
    # the pivoted table says nothing of the kind
    assert main(["estimate", "wide.csv", "--label", "relevance", "--judge", "gpt4",
                 "--group", "system", "--engine", "freq"]) == 0  # fmt: skip
    assert "several rows" not in capsys.readouterr().out


def test_a_table_keyed_by_prompt_is_not_taken_for_a_long_one(tmp_path, capsys):
    """'item' naming the document each system answers (one row per document and system,
    the label differing between systems) is no long table, labeled or not."""
    wide = relevance_table(0.3).drop(columns=["item", "gpt35", "llama70b"])
    wide = wide.rename(columns={"doc_id": "item"})
    for name, frame in (("labeled", wide), ("bare", wide.drop(columns="relevance"))):
        path = tmp_path / f"{name}.csv"
        frame.to_csv(path, index=False)
        assert "long table" not in doctor(path, capsys)
    assert main(["estimate", str(tmp_path / "labeled.csv"), "--label", "relevance",
                 "--judge", "gpt4", "--group", "system", "--prompt", "item",
                 "--engine", "freq"]) == 0  # fmt: skip
    assert "looks long" not in capsys.readouterr().out


def test_estimate_refuses_a_long_table_whatever_the_options(tmp_path, capsys):
    """Tester D finding 3: a long table (one row per summary and judge, the label on each
    of a labeled summary's rows) passed to estimate without --group was estimated as if
    every row were an item, each label counted 3 times, the interval too narrow and no
    note; with --group only a note. Refused, whatever the options, with the pivot."""
    wide = relevance_table(0.2).drop(columns=["item", "summary"])
    long = wide.melt(id_vars=["system", "doc_id", "relevance"], var_name="judge",
                     value_name="score")  # fmt: skip
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    base = ["estimate", str(path), "--label", "relevance", "--judge", "score", "--engine", "freq"]
    for extra in ([], ["--prompt", "doc_id"], ["--group", "system"]):
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err
        assert "the table looks long, one row per item and judge: column 'judge'" in err
        assert "index=['system', 'doc_id'], columns='judge', values='score'" in err
    # an id numbering the rows (as `bacon sample`'s fix for a table without ids adds one)
    # keys no item: still refused, pivoted on the item's columns (checker V2: it passed)
    long.insert(0, "id", range(len(long)))
    long.to_csv(path, index=False)
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "the table looks long" in err and "index=['system', 'doc_id']" in err, err
    long = long.drop(columns="id")
    # the label on one row of its item only: told by the judge column's name
    long.loc[long["judge"] != "gpt4", "relevance"] = None
    long.to_csv(path, index=False)
    assert main(base) == 2
    assert "column 'judge' names the judge of each row" in capsys.readouterr().err


def test_a_long_tables_repeated_rows_are_named_and_its_key_kept(tmp_path, capsys):
    """A long table keyed by (system, doc_id) with a few rows repeated: doctor said "no
    column keys the items: add the item's id", an id the table has (finding 7)."""
    wide = relevance_table().drop(columns=["item", "summary", "relevance"])
    long = wide.melt(id_vars=["system", "doc_id"], var_name="judge", value_name="score")
    again = long.iloc[[3, 4, 5]]
    other = long.iloc[[7]].assign(score=long["score"].iloc[7] % 5 + 1)
    long = pd.concat([long, again, other], ignore_index=True)
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    out = doctor(path, capsys).replace("\n", " ")
    assert "no column keys the items" not in out
    first = long.iloc[7]
    assert (
        "['system', 'doc_id'] keys the items (one row per item and judge), but 4 rows repeat "
        "an item and judge (3 of them exact copies of another row; 1 differs from another row "
        f"of their item and judge, e.g. system {first['system']!r}, doc_id {first['doc_id']!r}, "
        f"judge {first['judge']!r} at lines 9, {len(long) + 1})"
    ) in out
    recipe = run_python_line(out, cwd=tmp_path)
    read = f"import pandas as pd; df = pd.read_csv({str(path)!r}); "
    assert recipe.startswith(read + "df = df.drop_duplicates(); df = df.drop_duplicates(")
    assert len(pd.read_csv(tmp_path / "wide.csv")) == len(wide)


def test_labels_without_label_take_the_files_one_other_column(tmp_path, capsys):
    """`--labels FILE` without `--label` was refused by pairwise estimate ("--labels needs
    --label") while doctor took the file's one column besides the id; estimate on a table
    refused it too (finding 11). Every path takes that column now, and its numbers are
    those of --label named."""
    frame = pd.read_csv(SAMPLE)
    votes = frame.loc[frame["label"].notna(), ["id", "label"]].rename(columns={"label": "vote"})
    frame.drop(columns="label").to_csv(tmp_path / "t.csv", index=False)
    votes.to_csv(tmp_path / "votes.csv", index=False)
    pairs = ["estimate", str(tmp_path / "t.csv"), "--pairwise", "--engine", "freq"]
    pool, labels = _blank_ids(tmp_path)
    frame = pd.read_csv(pool)
    frame.loc[5:7, "item"] = ["x5", "x6", "x7"]
    frame.loc[21, "item"] = "x21"
    frame.to_csv(pool, index=False)
    table = ["estimate", str(pool), "--judge", "gpt4", "--engine", "freq"]
    for argv, file, name in ((pairs, "votes.csv", "vote"), (table, labels, "relevance")):
        outs = []
        for label in ([], ["--label", name]):
            assert main([*argv, "--labels", str(tmp_path / file), *label]) == 0
            outs.append(capsys.readouterr().out)
        assert outs[0] == outs[1]
    (tmp_path / "two.csv").write_text("id,vote,who\n1,A,x\n")
    assert main([*pairs, "--labels", str(tmp_path / "two.csv")]) == 2
    assert "several columns besides the id" in capsys.readouterr().err


def test_a_repeated_numeric_id_is_named_as_written():
    """Tester D finding 4: the note read "e.g. np.int64(0)" for a numeric id column."""
    from bacon_bayes.doctor.rows import repeated_item_note

    frame = pd.DataFrame({"id": [0, 1, 2, 0], "y": [1.0, None, 2.0, 1.0], "judge": range(4)})
    note = repeated_item_note(frame, "y", ["judge"])
    assert "(up to 2, e.g. 0), 2 labeled rows among them" in note, note


def test_several_answers_to_a_question_are_no_long_table():
    """Two answers of a system to each question, labeled apart: items of their own."""
    from bacon_bayes.doctor.rows import repeated_item_note

    frame = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "question_id": [1, 1, 2, 2] * 2,
                          "ok": [1, 0, 1, 1, 0, 1, 1, 0], "judge": range(8)})  # fmt: skip
    assert repeated_item_note(frame, "ok", ["judge"], "system") == ""
    frame["ok"] = [1, 1, 0, 0, 1, 1, 0, 0]  # the same label on an item's rows: one item
    assert "columns 'system' and 'question_id' name an item" in repeated_item_note(
        frame, "ok", ["judge"], "system"
    )
