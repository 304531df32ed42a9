"""Tables nobody prepared, round 4 (session 53, H5): what doctor says of a few scores
written as a judge's reply writes them (``4/5`` beside ``4``), of failure cells to empty,
of a column of decimal commas in a semicolon-separated file whose other numbers use
points, and of groups never labeled; and estimate's hint of a scale. Each fix is a line
that runs as printed."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bacon_bayes.cli import main
from bacon_bayes.words import as_numbers, text_numbers

from .printed import run_python_line
from .test_doctor_messy import doctor, estimate_json, found
from .test_doctor_tables import command, relevance_table
from .test_doctor_tables import doctor as doctor_out
from .test_doctor_values import _line, _table


@settings(max_examples=200, deadline=None)
@given(
    cells=st.lists(
        st.tuples(st.integers(1, 5), st.sampled_from(["{}", "{}/5", " {} / 5 ", "{}.0"])),
        min_size=2,
        max_size=40,
    ),
)
def test_scores_out_of_their_top_among_numbers_read_as_the_score(cells) -> None:
    """A judge's 1-5 scores, some kept as its reply wrote them (``4/5``): each reads as the
    score written, in doctor's reading (``as_numbers``) and the reader's (``text_numbers``)
    alike. Fails before: unless most cells were fractions, ``4/5`` read as no number."""
    column = pd.Series([form.format(v) for v, form in cells], dtype=object)
    scores = np.array([float(v) for v, _ in cells])
    fraction = column.str.contains("/").to_numpy()
    plain = scores[~fraction]
    if fraction.sum() <= plain.size and plain.size and plain.max() <= 1:  # 0-1 shares?
        scores[fraction] = np.nan
    np.testing.assert_array_equal(as_numbers(column).to_numpy(), scores)
    if fraction.any() and not np.isnan(scores).any():
        read = text_numbers(column)
        assert read is not None
        np.testing.assert_array_equal(read[0].to_numpy(), scores)


def test_fractions_beside_shares_or_of_other_tops_stay_unread() -> None:
    """On a 0-1 scale ``4/5`` may mean 0.8; ``4/5`` beside ``7/10`` has two tops; a score
    above its top is no score: none is read."""
    for cells in (["0.2", "0.9", "4/5"], ["3", "4/5", "7/10"], ["3", "4", "6/5"]):
        values = as_numbers(pd.Series(cells, dtype=object))
        assert np.isnan(values.iloc[-1]), cells


def test_doctor_names_only_the_failures_beside_scores_out_of_five(tmp_path, capsys) -> None:
    """Finding: a judge column of 1-5 scores with a few ``4/5`` and ``error`` cells was left
    out as "cells of other text ('4/5', 'error', '5/5')" to empty, the scores with the
    failures. Now only the ``error`` cells are named; emptied, the column is a judge whose
    fractions read as the score, in doctor and estimate alike."""
    frame = _table()
    cells = frame["llm_a"].map(lambda v: f"{v:g}").astype(object)
    cells.iloc[[3, 10, 17, 30]] = [f"{v:g}/5" for v in frame["llm_a"].iloc[[3, 10, 17, 30]]]
    cells.iloc[[5, 40]] = "error"
    path = tmp_path / "t.csv"
    frame.assign(llm_a=cells).to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    left = _line(out, "left out", "llm_a")
    assert "2 cell(s) of other text ('error'; the first at line 7)" in left, left
    fixed = tmp_path / "fixed.csv"
    frame.assign(llm_a=cells.replace("error", np.nan)).to_csv(fixed, index=False)
    out, _ = doctor([str(fixed)], capsys)
    assert "llm_a" in found(out, "judge"), out
    assert "4 cell(s) written out of 5 read as the score written" in _line(out, "judge", "llm_a")
    plain = tmp_path / "plain.csv"
    frame.assign(llm_a=frame["llm_a"].where(~np.isin(np.arange(len(frame)), [5, 40]))).to_csv(
        plain, index=False
    )
    common = ["--label", "human", "--judge", "llm_a"]
    assert (
        estimate_json([str(fixed), *common], capsys)["mean"]
        == estimate_json([str(plain), *common], capsys)["mean"]
    )


def test_a_judge_left_out_for_failure_cells_is_said_beside_the_command(tmp_path, capsys) -> None:
    """Walk of session 58: a judge with 3% ``refused`` cells beside other judges was left
    out of the printed command, said only in the columns found, where a user copying the
    command never looks; the strongest judge went missing. What can be computed says so,
    with the line that empties the cells."""
    frame = _table()
    cells = frame["llm_a"].map(lambda v: f"{v:g}").astype(object)
    cells.iloc[[5, 40]] = "refused"
    path = tmp_path / "t.csv"
    frame.assign(llm_a=cells).to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert "llm_a" not in command and "llm_b" in command
    can = " ".join(out.split("what can be computed:")[1].split())
    assert (
        "the command leaves out judge scores: column 'llm_a' holds scores but for a few cells "
        "of other text (above): empty those cells: " in can
    ), can
    run_python_line(can, cwd=tmp_path)
    assert pd.read_csv(tmp_path / "t_scores.csv")["llm_a"].isna().sum() == 2


def test_a_judges_failure_cells_are_emptied_by_the_line_doctor_prints(
    tmp_path, capsys, monkeypatch
) -> None:
    """Finding: a long table whose score column has ``error`` where the judge failed (a
    semicolon file of decimal commas): doctor said "empty those cells and run bacon doctor
    again" with no way to; the user had to write the pandas. It prints the line that
    writes the table with those cells empty, which runs as printed, and doctor on what it
    writes finds the judges (the long table's pivot)."""
    monkeypatch.chdir(tmp_path)
    frame = _table()
    frame.attrs = {}  # the messy table's truth: melt compares attrs
    long = frame.melt(
        id_vars=["id", "prompt", "system", "human"],
        value_vars=["llm_a", "llm_b", "llm_c"],
        var_name="judge",
        value_name="score",
    )
    cells = long["score"].map(lambda v: f"{v:g}").astype(object)
    cells.iloc[[4, 50, 200]] = ["error", " error", "timeout"]
    long.assign(score=cells).to_csv("long.csv", sep=";", decimal=",", index=False)
    assert main(["doctor", "long.csv"]) == 0
    out = capsys.readouterr().out
    can = out.split("what can be computed:")[1]
    assert "empty those cells: " in can and "then bacon doctor long_scores.csv" in can, can
    run_python_line(can, cwd=tmp_path)
    written = pd.read_csv("long_scores.csv")
    assert written["score"].isna().sum() == 3 and written["score"].notna().sum() == len(long) - 3
    assert main(["doctor", "long_scores.csv"]) == 0
    again = capsys.readouterr().out
    assert "a long table: 'judge' names the judge of each row" in again, again
    assert main(["doctor", "long.csv"]) == 0  # the file its line wrote is not replaced
    assert "then bacon doctor long_scores2.csv" in capsys.readouterr().out


def test_decimal_commas_in_a_semicolon_file_of_points_are_named_so_and_fixed(
    tmp_path, capsys, monkeypatch
) -> None:
    """Finding: a semicolon-separated file whose judges write decimal points and whose
    labels, typed in by hand, three decimals after a comma (which the reader leaves as
    text, ``3,250`` being 3.25 or 3250): doctor said the labels were text "in a file
    whose cells are not separated by semicolons" and to save it "as a semicolon-separated
    CSV", which it was. It says the file's other numbers have points, and prints the line
    that writes the labels so, after which doctor takes them as the label."""
    monkeypatch.chdir(tmp_path)
    frame = _table()
    frame["llm_a"] = frame["llm_a"] + 0.5  # decimal points among the judges' numbers
    # three decimals, as a thousands separator writes them: the reader leaves them as text
    human = frame["human"].map(lambda v: "" if np.isnan(v) else f"{v:.3f}".replace(".", ","))
    frame.assign(human=human).to_csv("semi.csv", sep=";", index=False)
    assert main(["doctor", "semi.csv"]) == 0
    out = capsys.readouterr().out
    left = _line(out, "left out", "human")
    assert "in a file whose other numbers are written with a decimal point, each with three" in left
    assert "as a thousands separator writes them" in left, left
    assert "not separated by semicolons" not in out and "semicolon-separated CSV" not in out
    run_python_line(left, cwd=tmp_path)
    assert "then bacon doctor semi_points.csv" in left
    assert main(["doctor", "semi_points.csv"]) == 0
    again = capsys.readouterr().out
    assert found(again, "label") == ["human"], again


@pytest.mark.parametrize("most_kept_labeled", [False, True])
def test_groups_never_labeled_are_left_out_by_a_line_that_runs(
    tmp_path, capsys, monkeypatch, most_kept_labeled
) -> None:
    """Finding (WMT22 at 2%, 4 systems without MQM): doctor said to estimate over the
    labeled groups, "in pandas: df = df[~df['system']...]", a fragment to write a script
    around. It prints the line that writes the table without those groups and the doctor
    to run on it; that doctor finds every group labeled. Walk of session 59: where most
    of the rows kept are labeled, that doctor found no label (a dense column): the line
    names it (--label); and the command printed for every group says the unlabeled
    groups rest on the judges alone."""
    monkeypatch.chdir(tmp_path)
    frame = _table()
    gone = sorted(frame["system"].unique())[: len(frame["system"].unique()) // 2 + 1]
    frame.loc[frame["system"].isin(gone), "human"] = np.nan
    if most_kept_labeled:
        kept = ~frame["system"].isin(gone)
        frame.loc[kept, "human"] = frame.loc[kept, "human"].fillna(frame["llm_a"])
    frame.to_csv("pool.csv", index=False)
    assert main(["doctor", "pool.csv"]) == 0
    out = capsys.readouterr().out
    assert "\n  (over every group: those without labels rest on the judges alone" in out
    note = next(ln for ln in out.splitlines() if "have no label" in ln)
    assert "in pandas: df = df[" not in note
    assert "then bacon doctor pool_labeled_groups.csv --label human" in note
    run_python_line(note, cwd=tmp_path)
    assert set(pd.read_csv("pool_labeled_groups.csv")["system"]) == set(frame["system"]) - set(gone)
    assert main(["doctor", "pool_labeled_groups.csv", "--label", "human"]) == 0
    again = capsys.readouterr().out
    assert "have no label" not in again and "\nrun:\n" in again, again


def test_the_scale_hint_of_intervals_past_the_labels_range_runs(tmp_path, capsys) -> None:
    """Finding (WMT22 study at 3%): estimate said "pass --scale=-inf:0 to keep them inside
    that scale", leaving the user to splice it into the command. It prints the command
    as run with that scale; run, its intervals stay inside and the note is gone."""
    rng = np.random.default_rng(1)
    n = 600
    system = np.repeat(["s1", "s2", "s3"], n // 3)
    zero = rng.random(n) < np.where(system == "s3", 0.9, 0.6)  # an error score, 0 = none
    true = np.where(zero, 0.0, -rng.exponential(np.where(system == "s3", 1.0, 3.0)))
    frame = pd.DataFrame(
        {
            "system": system,
            "metric_a": true + rng.normal(0, 1, n),
            "metric_b": true + rng.normal(0, 1.5, n),
            "mqm": np.where(rng.random(n) < 0.1, true, np.nan),
        }
    )
    path = str(tmp_path / "mq.csv")
    frame.to_csv(path, index=False)
    argv = ["estimate", path, "--label", "mqm", "--judge", "metric_a,metric_b", "--group"]
    assert main([*argv, "system", "--engine", "freq"]) == 0  # main keeps argv: the rerun's
    note = next(ln for ln in capsys.readouterr().out.splitlines() if "reach past" in ln)
    command = shlex.split(note.split("; run: ")[1])
    assert command[0] == "bacon" and command[-1] == "--scale=-inf:0", note
    assert main(command[1:]) == 0
    assert "reach past" not in capsys.readouterr().out


def test_labels_written_as_words_are_mapped_by_a_line_that_runs(
    tmp_path, capsys, monkeypatch
) -> None:
    """Finding: labels written Good / Okay / Bad: doctor gave "e.g. in pandas:
    df['human'] = df['human'].map({...})", a statement to build a script around. It prints
    the line that writes the table with them mapped and the doctor to run on it; that
    doctor takes the column as the label."""
    monkeypatch.chdir(tmp_path)
    frame = _table()
    words = frame["human"].map(lambda v: "Good" if v >= 4 else "Okay" if v >= 3 else "Bad")
    frame.assign(human=words.where(frame["human"].notna())).to_csv("words.csv", index=False)
    assert main(["doctor", "words.csv"]) == 0
    left = _line(capsys.readouterr().out, "left out", "human")
    assert "in pandas: df[" not in left and "then bacon doctor words_levels.csv" in left, left
    run_python_line(left, cwd=tmp_path)
    assert main(["doctor", "words_levels.csv"]) == 0
    assert found(capsys.readouterr().out, "label") == ["human"]


def test_a_long_tables_labels_per_group_count_items_not_rows(tmp_path, capsys) -> None:
    """Finding: on a long table (one row per item and judge, 3 judges) doctor's "labels
    per system" gave 300 items and 27 labels where each system has 100 items and 9 labels:
    its rows, each item three times. It counts items, as the pivoted table will have them,
    and a row one judge failed on is a missing score there, not an item left out."""
    frame = _table()
    frame.attrs = {}
    long = frame.melt(
        id_vars=["id", "prompt", "system", "human"],
        value_vars=["llm_a", "llm_b", "llm_c"],
        var_name="judge",
        value_name="score",
    )
    long.loc[[0, 5], "score"] = np.nan  # a judge's failures
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    table = out.split("labels per system:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    rows = [ln.split() for ln in table[1:] if not ln.strip().startswith("(")]
    shown = {r[0]: (int(r[1]), int(r[2])) for r in rows}
    expected = frame.groupby("system")["human"].agg(["size", "count"])
    assert shown == {s: (int(r["size"]), int(r["count"])) for s, r in expected.iterrows()}
    assert "--drop-unscored" not in out


def _with_subtotals(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (:func:`relevance_table`) as a spreadsheet's export with a subtotal row
    after each system's rows: the id blank, ``<system> Total`` in the system column, the
    system's means in the score columns."""
    table = table.astype({"item": str})  # ids as written, not 1.0 beside a blank
    parts = []
    for system, rows in table.groupby("system", sort=True):
        means = rows[["gpt4", "gpt35", "llama70b", "relevance"]].mean().round(3)
        parts += [rows, pd.DataFrame([{"system": f"{system} Total", **means}])]
    return pd.concat(parts, ignore_index=True)


def test_subtotal_rows_between_the_systems_are_dropped_by_a_line_that_runs(
    tmp_path, capsys, monkeypatch
) -> None:
    """Walk of session 59: Excel's subtotals (a row ``M10 Total`` after each system's
    rows, no id, the system's means) were counted as labeled items, the system column had
    twice the systems so no group was found, and doctor said only "give every row its
    id"; estimate took 'M8 Total' for a system. Doctor names them as summary rows, with
    where they are, and its line writes the table without them, on which doctor finds
    the group and its estimate runs. A system named with a summary word ('total-recall')
    is a system."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    table["system"] = table["system"].replace({"M10": "total-recall"})
    frame = _with_subtotals(table)
    frame.to_csv("subtotals.csv", index=False)
    said = doctor_out(Path("subtotals.csv"), capsys)
    out = " ".join(said.split())
    at = frame.index[frame["item"].isna()] + 2  # the CSV's lines
    places = ", ".join(map(str, at[:5]))
    assert f"lines {places} and {len(at) - 5} more look like a spreadsheet's summary rows" in out
    assert "('M11 Total' in system; 'M12 Total' in system; " in out, out
    assert f"drop(index={list(at - 2)})" in out  # 'total-recall Total' the last
    assert "give every row its id" not in out and command(said) is None
    run_python_line(out.split("write the table without them, ", 1)[1], cwd=tmp_path)
    again = doctor_out(Path("subtotals_no_summary.csv"), capsys)
    assert "summary row" not in again
    assert found(again, "group") == ["system"], again
    words = command(again)
    assert words is not None and "--group system" in " ".join(words), again
    assert main([*words, "--engine", "freq"]) == 0
    assert "total-recall" in capsys.readouterr().out
    args = ["estimate", "subtotals.csv", "--label", "relevance", "--judge", "gpt4"]
    assert main([*args, "--group", "system", "--engine", "freq"]) == 2  # not 'M8 Total'
    assert "look like a spreadsheet's summary rows" in capsys.readouterr().err
    table.to_csv("plain.csv", index=False)  # no subtotal: 'total-recall' is a system
    assert "summary row" not in doctor_out(Path("plain.csv"), capsys)


def test_blank_ids_are_not_counted_as_repeated_ids(tmp_path, capsys) -> None:
    """estimate's note on a table whose id is blank on a few rows said "0 of its ids are
    on several rows (up to 1, ...)": the blank cells were counted as repeats."""
    table = relevance_table()
    table["item"] = table["item"].astype(str)
    table.loc[[3, 7], "item"] = np.nan
    table.to_csv(tmp_path / "blank_ids.csv", index=False)
    args = ["estimate", str(tmp_path / "blank_ids.csv"), "--label", "relevance"]
    assert main([*args, "--judge", "gpt4", "--engine", "freq"]) == 0
    assert "of its ids are on several rows" not in capsys.readouterr().out


def test_a_units_row_gets_its_fix_alone_and_the_table_written_without_it_runs(
    tmp_path, capsys, monkeypatch
) -> None:
    """Walk of session 59: a units row under the header (``,,,,1-5,1-5,1-5,1-5``) got the
    right fix, and beside it a line emptying the '1-5' cells printed once per score
    column, "give every row its id" and "give every item a group (e.g. 'unknown')" (which
    would make the row an item). Only the units row's fix is printed; the table it writes
    gets a command that runs."""
    monkeypatch.chdir(tmp_path)
    table = relevance_table()
    text = table.to_csv(index=False).split("\n", 1)
    Path("units.csv").write_text(text[0] + "\n,,,,1-5,1-5,1-5,1-5\n" + text[1])
    said = doctor_out(Path("units.csv"), capsys)
    out = " ".join(said.split())
    assert "line 2 looks like a second header row (units or scales under the header: " in out
    assert out.count(" -c ") == 1 and "mask(" not in out, out
    assert "every row its id" not in out and "unknown" not in out, out
    assert command(said) is None
    run_python_line(out.split("write the table without it, ", 1)[1], cwd=tmp_path)
    words = command(doctor_out(Path("units_no_units.csv"), capsys))
    assert words is not None and "--label relevance" in " ".join(words)
    assert main([*words, "--engine", "freq"]) == 0


def test_a_judge_counting_errors_has_no_failure_codes_at_zero(tmp_path, capsys) -> None:
    """Walk 59, s6c: a judge that counts errors (0 on two thirds of the rows, lower is
    better) had its 0s called failure codes outside a 1:5 scale, with the advice to blank
    them (then it 'fails more on high labels': a circle), while "what can be computed"
    gave it 0:5. Its 0 is its best and commonest value: part of one scale, said one way;
    and estimate's note of failure codes is not printed either. Real failure codes are
    still found: 0 on many rows of a 1-5 judge whose other scores peak inside the scale,
    0 on every unrated row of a 1-5 label column, -1 and 99."""
    from bacon_bayes.scale import sentinel_codes

    frame = _table()
    rng = np.random.default_rng(5)
    frame["factcheck_errors"] = rng.poisson(np.clip(4.5 - frame["llm_a"], 0, None) * 0.35)
    assert (frame["factcheck_errors"] == 0).mean() > 0.5
    path = tmp_path / "errors.csv"
    frame.to_csv(path, index=False)
    out, argv = doctor([str(path)], capsys)
    assert "factcheck_errors codes" not in out and "failure codes?" not in out, out
    assert "factcheck_errors" in found(out, "judge")
    table = out.split("judges: coverage", 1)[1].split("\n\n", 1)[0]
    scale = next(ln.split()[1] for ln in table.splitlines() if ln.split()[0] == "factcheck_errors")
    assert scale == f"0:{frame['factcheck_errors'].max()}", table
    assert f"factcheck_errors ({scale};" in out  # the naive baseline's reason: the same
    assert argv[0] == "estimate" and main([*argv, "--engine", "freq"]) == 0
    assert "failure code" not in capsys.readouterr().out
    # failure codes at 0 are still found where the others peak inside the scale: a 1-5
    # judge's 0 on 39% of its rows, a label's 0 on every unrated row
    judge = np.r_[np.repeat([1.0, 2, 3, 4, 5], [10, 20, 40, 30, 10]), np.zeros(70)]
    assert sentinel_codes(judge)[0] == {0.0: 70}
    label = np.r_[np.repeat([1.0, 2, 3, 4, 5], [5, 10, 20, 10, 5]), np.zeros(150)]
    assert sentinel_codes(label)[0] == {0.0: 150}
    assert sentinel_codes(np.r_[judge, [-1.0] * 5, [99.0] * 3])[0] == {
        0.0: 70,
        -1.0: 5,
        99.0: 3,
    }


def test_a_1_to_5_judge_s_failures_written_0_are_flagged_and_blanked_by_a_line(
    tmp_path, capsys
) -> None:
    """Walk 59: a 1-5 judge that wrote 0 where it failed, on a tenth of the rows, was taken
    at its word (a 0 next to the scale is a failure code only as a spike), its failures
    its worst score. The other judges and the label rank its 0-scored items like its
    middle levels, not below its 1s: flagged, with the line that blanks them, which runs;
    doctor then has no flag. The command that fits says it too (the judges alone). A judge
    on a true 0-5 scale (0 its worst) and one counting errors (0 its best) are not
    flagged."""
    frame = _table()
    rng = np.random.default_rng(3)
    failed = rng.random(len(frame)) < 0.1
    frame.loc[failed, "llm_c"] = 0
    frame["strict"] = (frame["llm_a"] - 1 - (rng.random(len(frame)) < 0.3)).clip(0, 5)
    frame["errors"] = rng.poisson(np.clip(5 - frame["llm_b"], 0, None) * 0.5)
    assert (frame["strict"] == 0).mean() > 0.05 and (frame["errors"] == 0).mean() > 0.05
    path = tmp_path / "zeros.csv"
    frame.to_csv(path, index=False)
    out, argv = doctor([str(path)], capsys)
    assert main([*argv, "--engine", "freq"]) == 0  # the command that fits says it too
    said = capsys.readouterr()
    assert f"'llm_c': {int(failed.sum())} scores of 0" in said.out + said.err, said
    flagged = [ln.split()[0] for ln in out.splitlines() if ln.split()[1:2] == ["zeros"]]
    assert flagged == ["llm_c"], out
    text = next(ln for ln in out.splitlines() if ln.split()[:2] == ["llm_c", "zeros"])
    assert f"{int(failed.sum())} scores of 0" in text and "failures written 0?" in text
    line = text.split("blanked by: ", 1)[1]
    run_python_line(line.split(", then bacon doctor ", 1)[0], tmp_path)
    blanked = pd.read_csv(tmp_path / "zeros_scores.csv")
    assert blanked["llm_c"].isna().sum() == failed.sum() and (blanked["strict"] == 0).any()
    out, argv = doctor([str(tmp_path / "zeros_scores.csv")], capsys)
    assert " zeros " not in out and main([*argv, "--engine", "freq"]) == 0


def _by_system(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` sorted by system (``M1``, ``M2``, ..., ``M10``), rows renumbered."""
    key = frame["system"].str[1:].astype(int)
    return (
        frame.assign(k=key).sort_values("k", kind="stable").drop(columns="k").reset_index(drop=True)
    )


def test_bookkeeping_numbers_are_no_judges(tmp_path, capsys) -> None:
    """Walk 59, s7b: a batch number (``row // 48`` of rows sorted by system, so it
    follows the systems' quality) and a count of the response's words were taken as
    judges: into the command, which lost the naive baseline, and into the bias section
    ('a shift reads 7.8e+13 label points'). Both are left out, with why; so is a block
    number not named so (equal runs rising with the rows). A judge whose scores the rows
    are sorted by stays a judge."""
    frame = _by_system(_table())
    rng = np.random.default_rng(5)
    frame["response_words"] = rng.integers(20, 300, len(frame)) + 20 * frame["llm_a"].astype(int)
    frame["n_tokens_out"] = frame["response_words"] * 4 // 3
    frame["batch"] = np.arange(len(frame)) // 48
    frame["segment"] = np.arange(len(frame)) // 64  # 16 blocks of 64 rows, one of 32
    path = tmp_path / "meta.csv"
    frame.to_csv(path, index=False)
    out, argv = doctor([str(path)], capsys)
    assert found(out, "judge") == ["llm_a", "llm_b", "llm_c"], out
    assert not {"response_words", "n_tokens_out", "batch", "segment"} & set(argv)
    assert "a length" in _line(out, "left out", "response_words")
    for c in ("batch", "segment"):
        assert "blocks along the rows" in _line(out, "left out", c)
    assert "no raw-judge average" not in out
    # a table sorted by a judge's integer scores: that judge is still one
    frame = _table().sort_values("llm_a", kind="stable").reset_index(drop=True)
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert found(out, "judge") == ["llm_a", "llm_b", "llm_c"], out
    # metrics and judges' counts keep their names' chance; lengths do not
    from bacon_bayes.doctor.names import not_judge_name

    kept = ("bleu", "comet", "chrf", "metricx_xxl", "gpt4_score", "length_penalty", "n_errors")
    assert [c for c in kept if not_judge_name(c)] == []
    lengths = ("hyp_len", "len_output", "n_chars", "num_sentences", "answer_length", "words")
    assert [
        c for c in lengths if not (not_judge_name(c) or "").startswith("named like a len")
    ] == []


def test_a_json_lines_file_gets_the_lines_a_csv_gets(tmp_path, capsys, monkeypatch) -> None:
    """A walk of session 59: on a JSON or JSON Lines file doctor printed no line for a
    judge's failure cells (nor for pivots or label words): pandas does not read such a
    file as bacon does. The lines read it with bacon's ``read_any``, and run."""
    monkeypatch.chdir(tmp_path)
    frame = _table()
    frame["llm_a"] = frame["llm_a"].astype(object)
    frame.loc[[3, 9], "llm_a"] = "error"
    frame.to_json("t.jsonl", orient="records", lines=True)
    out, _ = doctor(["t.jsonl"], capsys)
    left = _line(out, "left out", "llm_a")
    assert "from bacon_bayes.readers import read_any; df = read_any('t.jsonl')[0]" in left, left
    run_python_line(left)
    again, command = doctor(["t_scores.csv"], capsys)
    assert "llm_a" in found(again, "judge") and main(command) == 0
