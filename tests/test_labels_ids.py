"""``--labels`` files nobody prepared (tester B's findings 11 and 20, session 37): the id
column named ``ID`` in the labels file and ``id`` in the table, and an export of every task
whose unlabelled rows name ids the table does not have."""

from __future__ import annotations

import shlex

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.errors import ValidationError
from bacon_bayes.readers import join_labels

from .printed import is_python, run_python_line


def _files(tmp_path, n: int = 120, labeled: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    q = rng.uniform(1, 5, n)
    system = np.array(["A", "B"])[np.arange(n) % 2]
    table = pd.DataFrame({"id": np.arange(1, n + 1), "system": system})
    for name, sd in (("judge_a", 0.5), ("judge_b", 1.0)):
        table[name] = np.clip(np.round(q + rng.normal(0, sd, n)), 1, 5)
    rows = rng.choice(n, labeled, replace=False)
    labels = pd.DataFrame({"ID": table["id"].to_numpy()[rows], "Score": np.round(q[rows], 2)})
    table.to_csv(tmp_path / "table.csv", index=False)
    return table, labels


def test_an_id_column_named_in_another_case_joins(tmp_path, capsys) -> None:
    """Finding 11: the labels file's ``ID`` against the table's ``id``. Doctor without
    --item said "columns in both: none", with --item id "no id column 'id'", and with
    --item ID crashed with a KeyError traceback. The one column whose name differs only by
    case is the id column, with or without --item (either spelling)."""
    table, labels = _files(tmp_path)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    for item in (None, "id", "ID"):
        joined, key = join_labels(table, tmp_path / "labels.csv", "Score", item)
        assert key == "id" and int(joined["Score"].notna().sum()) == 40
        mapped = joined.set_index("id")["Score"].dropna()
        assert mapped.to_dict() == dict(zip(labels["ID"], labels["Score"], strict=True))
    base = ["doctor", str(tmp_path / "table.csv"), "--labels", str(tmp_path / "labels.csv")]
    for extra in ([], ["--item", "id"], ["--item", "ID"]):
        assert main([*base, "--label", "Score", *extra]) == 0, extra
        assert "40 of 120 rows labeled" in capsys.readouterr().out
    # no column of that name in either spelling: an error naming the labels file's columns
    with pytest.raises(ValidationError, match=r"no id column 'key' \(its columns: ID, Score\)"):
        join_labels(table, tmp_path / "labels.csv", "Score", "key")
    assert main([*base, "--label", "Score", "--item", "key"]) == 2
    assert main(["doctor", str(tmp_path / "table.csv"), "--item", "key"]) == 2
    assert "--item 'key' is not a column" in capsys.readouterr().err


def test_rows_without_a_label_of_ids_not_in_the_table_are_left_out(tmp_path, capsys) -> None:
    """Finding 20: a labelling tool's export of every task (this table's items, most without
    a label, and tasks of another pool without one) was refused for the ids the table does
    not have. A row without a label places nothing: left out, said; an unknown id that
    brings a label is still refused."""
    table, labels = _files(tmp_path)
    labels = labels.rename(columns={"ID": "id", "Score": "human"})
    every = pd.DataFrame({"id": [*table["id"], 5001, 5002, 5003]})
    every = every.merge(labels, on="id", how="left")
    every.to_csv(tmp_path / "all.csv", index=False)
    joined, _ = join_labels(table, tmp_path / "all.csv", "human", "id")
    assert int(joined["human"].notna().sum()) == 40
    assert (
        "3 row(s) without a label have ids not in the table's column 'id'"
        in (joined.attrs["labels note"])
    )
    args = ["estimate", str(tmp_path / "table.csv"), "--labels", str(tmp_path / "all.csv"),
            "--label", "human", "--item", "id", "--judge", "judge_a,judge_b", "--engine",
            "freq"]  # fmt: skip
    assert main(args) == 0
    assert "'5001', '5002', '5003'): left out" in capsys.readouterr().out
    every.loc[every["id"] == 5002, "human"] = 3.0
    every.to_csv(tmp_path / "all.csv", index=False)
    with pytest.raises(ValidationError, match=r"1 ids are not in the table's column 'id': '5002'"):
        join_labels(table, tmp_path / "all.csv", "human", "id")


def test_labels_keyed_by_two_columns_get_the_id_that_joins_them(
    tmp_path, capsys, monkeypatch
) -> None:
    """Walk of new table shapes: WMT labels keyed by system and segment (no id column in
    either file) stopped with "pass --item COLUMN, the table's id column", where no one
    column is the id (--item seg_id then refused its repeats). The error names the two
    columns and the pandas line that makes the id of them; run on both files, the join
    with --item id takes every label."""
    table, labels = _files(tmp_path)
    table["seg"] = (table["id"] + 1) // 2  # A and B translate each segment
    labels = table.loc[table["id"].isin(labels["ID"]), ["system", "seg"]].assign(
        Score=labels.set_index("ID")["Score"].reindex(table["id"]).dropna().to_numpy()
    )
    table = table.drop(columns="id")
    table.to_csv(tmp_path / "table.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    args = ["doctor", str(tmp_path / "table.csv"), "--labels", str(tmp_path / "labels.csv")]
    assert main([*args, "--label", "Score"]) == 2
    err = capsys.readouterr().err
    assert "keyed by system, seg together" in err and "--item item" in err
    run_python_line(err, cwd=tmp_path)  # the printed line, as a shell runs it
    then = shlex.split(err.split("then run: ", 1)[1])
    assert then[:2] == ["bacon", "doctor"], err
    monkeypatch.chdir(tmp_path)
    assert main(then[1:]) == 0
    assert f"{len(labels)} of {len(table)} rows labeled" in capsys.readouterr().out
    joined, key = join_labels(
        pd.read_csv(tmp_path / "table_keyed.csv"), tmp_path / "labels_keyed.csv", "Score", "item"
    )
    assert key == "item" and int(joined["Score"].notna().sum()) == len(labels)
    pd.read_csv(tmp_path / "table_keyed.csv").rename(columns={"item": "id"}).to_csv(
        tmp_path / "table.csv", index=False
    )
    pd.read_csv(tmp_path / "labels_keyed.csv").rename(columns={"item": "id"}).to_csv(
        tmp_path / "labels.csv", index=False
    )

    # without --label, as a user follows the error: the labels file's key columns are the
    # table's too, so its one column besides them is the label (it was refused: "has
    # several columns besides the id (its columns: id, system, seg, Score)")
    assert main(["doctor", str(tmp_path / "table.csv"), "--labels", str(tmp_path / "labels.csv"),
                 "--item", "id"]) == 0  # fmt: skip
    assert "--label Score --item id" in capsys.readouterr().out


def test_a_few_labels_of_items_not_in_the_table_say_how_to_go_on(tmp_path) -> None:
    """Walk of new table shapes: 3 of 40 labels for items since taken out of the table
    were refused with "check that the labels belong to this file" alone, which they did.
    Where the others' ids are all there, the error says so and what to delete; labels
    mostly of another file keep the old advice alone."""
    table, labels = _files(tmp_path)
    labels.loc[:2, "ID"] = [9001, 9002, 9003]
    labels.to_csv(tmp_path / "labels.csv", index=False)
    with pytest.raises(ValidationError) as err:
        join_labels(table, tmp_path / "labels.csv", "Score", "id")
    assert "the other 37 labels' ids are there" in str(err.value)
    assert "delete their rows from the labels file" in str(err.value)
    labels["ID"] = labels["ID"] + 1000  # another pool's labels
    labels.to_csv(tmp_path / "labels.csv", index=False)
    with pytest.raises(ValidationError) as err:
        join_labels(table, tmp_path / "labels.csv", "Score", "id")
    assert "check that the labels belong to this file" in str(err.value)
    assert "delete their rows" not in str(err.value)


def test_sample_with_a_labels_file_prints_the_join_that_starts_the_study(
    tmp_path, capsys, monkeypatch
) -> None:
    """Walk of new table shapes: ``bacon sample POOL --labels L`` (labels kept apart, as
    doctor and estimate take them) said "--labels applies to --pairwise samples; drop it"
    and nothing of how a study gets those labels; label import then refuses them (no wave
    selected them). The error prints the pandas line that joins them onto the pool, whose
    label column the new study records as its first wave."""
    import shlex

    monkeypatch.chdir(tmp_path)
    _, labels = _files(tmp_path)
    # a label named with a space (its --label was printed unquoted, two words to a shell)
    # and an id column named otherwise than the table's
    labels.rename(columns={"ID": "key", "Score": "my score"}).to_csv("labels.csv", index=False)
    argv = ["--item", "id", "--judge", "judge_a", "--judge", "judge_b", "--budget", "10"]
    given = ["--labels", "labels.csv", "--label", "my score"]
    assert main(["sample", "table.csv", *given, *argv]) == 2
    err = capsys.readouterr().err
    assert "--labels applies to --pairwise samples" in err, err
    line = shlex.split(err.split("join them onto the pool: ", 1)[1])
    assert is_python(line[0]) and line[1] == "-c", err
    exec(line[2], {})
    out = line[line.index("sample") + 1]
    assert line[line.index("sample") + 2 : line.index("sample") + 4] == ["--label", "my score"]
    assert main(["sample", out, "--label", "my score", *argv]) == 0
    assert "the 40 labels already in column 'my score'" in capsys.readouterr().out


def test_a_labels_file_keyed_by_an_id_column_of_another_name_joins(tmp_path, capsys) -> None:
    """Walk of a table nobody prepared: scores keyed by ``Item ID`` and a labels file of
    two columns, ``item`` and ``Human verdict``. Doctor stopped with "has several columns
    besides the id" (there was one), with --label with "cannot tell which column joins",
    and with --item 'Item ID' too with "give the labels file's id column that name (rename
    its header cell)". The labels file's one column besides the label whose every id is
    one of a table column's is the id: joined, and said."""
    table, labels = _files(tmp_path)
    table = table.rename(columns={"id": "Item ID"})
    table["Item ID"] = "q" + table["Item ID"].astype(str)
    table.to_csv(tmp_path / "table.csv", index=False)
    labels = labels.rename(columns={"ID": "item", "Score": "Human verdict"})
    labels["item"] = "q" + labels["item"].astype(str)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    for item in (None, "Item ID"):
        joined, key = join_labels(table, tmp_path / "labels.csv", "Human verdict", item)
        assert key == "Item ID" and int(joined["Human verdict"].notna().sum()) == 40
        assert "joined by its column 'item' to the table's 'Item ID'" in joined.attrs["labels note"]
    base = ["doctor", str(tmp_path / "table.csv"), "--labels", str(tmp_path / "labels.csv")]
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "40 of 120 rows labeled" in out and "joined by its column 'item'" in out
    assert "joined on it (it holds every id of the labels file)" in out
    assert "--label 'Human verdict' --item 'Item ID'" in out
    argv = ["estimate", *base[1:], "--label", "Human verdict", "--item", "Item ID", "--judge",
            "judge_a,judge_b", "--engine", "freq"]  # fmt: skip
    assert main(argv) == 0
    assert "joined by its column 'item' to the table's 'Item ID'" in capsys.readouterr().out
    # a labels file whose other column holds no table's ids is still refused
    labels["item"] = "x" + labels["item"]
    labels.to_csv(tmp_path / "labels.csv", index=False)
    with pytest.raises(ValidationError, match="cannot tell which column joins"):
        join_labels(table, tmp_path / "labels.csv", "Human verdict", None)


def _answers(tmp_path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A TriviaQA-like pool (question x answering model, no id column) with two rows
    exported twice, and its labels keyed by ``QID`` and ``Model`` (another name, another
    case), as verdict words."""
    rng = np.random.default_rng(3)
    q, m = np.meshgrid([f"q{i:03d}" for i in range(40)], ["m-a", "m-b", "m-c"], indexing="ij")
    truth = rng.random(q.size) < 0.6
    judge = np.where(rng.random(q.size) < 0.85, truth, ~truth)
    table = pd.DataFrame(
        {"question_id": q.ravel(), "model": m.ravel(), "judge": np.where(judge, "Yes.", "No.")}
    )
    table = pd.concat([table, table.iloc[[4, 9]]], ignore_index=True)
    table.to_csv(tmp_path / "pool.csv", index=False)
    rows = rng.choice(q.size, 45, replace=False)
    labels = pd.DataFrame(
        {
            "Model": m.ravel()[rows],
            "QID": q.ravel()[rows],
            "human": np.where(truth[rows], "correct", "wrong"),
        }
    )
    labels.to_csv(tmp_path / "labels.csv", index=False)
    return table, labels


def test_labels_keyed_by_a_question_and_a_model_named_otherwise(
    tmp_path, capsys, monkeypatch
) -> None:
    """Walk of tables nobody prepared (session 51): TriviaQA labels keyed by ``QID`` and
    ``Model`` against a pool's ``question_id`` and ``model``. The join took ``model`` (the
    same name but for case) as the id and refused the labels as "ids 'm-a' ... appear
    more than once", its fix a line averaging every label of a model into one. The error
    names both key columns and the table's rows exported twice, and prints the line that
    writes both files with one id (the copies dropped) and the doctor to run then, which
    joins every label."""
    monkeypatch.chdir(tmp_path)
    _answers(tmp_path)
    assert main(["doctor", "pool.csv", "--labels", "labels.csv", "--label", "human"]) == 2
    err = capsys.readouterr().err
    assert "keyed by Model, QID (the table's model, question_id) together" in err, err
    assert "2 row(s) of the table are copies of another row (lines 122, 123)" in err, err
    assert "groupby" not in err
    run_python_line(err, cwd=tmp_path)
    then = shlex.split(err.split("then run: ", 1)[1])
    assert main(then[1:]) == 0
    out = capsys.readouterr().out
    assert "45 of 120 rows labeled" in out, out
    assert "'yes' = 1, 'no' = 0" in out and "'correct' = 1, 'wrong' = 0" in out


def test_a_labels_file_with_the_id_and_the_system_joins_on_the_id(tmp_path) -> None:
    """Walk of tables nobody prepared (session 51): a labels file exported with its context
    (``id``, ``system``, the label) was refused as "keyed by id, system together", and the
    printed fix inserted a column ``id`` the files already had (pandas: "cannot insert
    id, already exists"). The column whose every id names one row of the table is the id."""
    table, labels = _files(tmp_path)
    labels = labels.rename(columns={"ID": "id"})
    labels.insert(1, "system", table.set_index("id").loc[labels["id"], "system"].to_numpy())
    labels.to_csv(tmp_path / "labels.csv", index=False)
    joined, key = join_labels(table, tmp_path / "labels.csv", "Score", None)
    assert key == "id" and int(joined["Score"].notna().sum()) == 40
