"""Tables nobody prepared, round 4 (session 53, H5): what doctor says of a few scores
written as a judge's reply writes them (``4/5`` beside ``4``), of a column of decimal
commas in a semicolon-separated file whose other numbers use points, and of failure
cells to empty, each fix runnable as printed."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from bacon_bayes.cli import main
from bacon_bayes.words import as_numbers, text_numbers

from .printed import run_python_line
from .test_doctor_messy import doctor, estimate_json, found
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
