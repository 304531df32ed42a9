"""Returned votes imported into the wave table of ``bacon sample --pairwise``
(``bacon label import VOTES --study WAVE.csv``, :mod:`bacon_bayes.study.pair_votes`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import people_csv


def _wave(tmp_path: Path) -> Path:
    """A wave table as bacon sample --pairwise writes it: 4 pilot votes (ids 1-4), 3
    comparisons drawn (ids 5-7, to_label = 1), 3 neither (ids 8-10)."""
    models = ["m1", "m2", "m3"]
    rows = []
    for i in range(1, 11):
        a, b = models[i % 3], models[(i + 1) % 3]
        vote = {1: "A", 2: "B", 3: "tie", 4: "A"}.get(i, "")
        rows.append(
            {
                "id": str(i), "prompt": f"p{i}", "model_a": a, "model_b": b, "label": vote,
                "gpt4": "AB"[i % 2], "to_label": str(int(5 <= i <= 7)),
                "propensity": "0.4" if i <= 7 else "0.25",
            }
        )  # fmt: skip
    path = tmp_path / "pairs-wave.csv"
    path.write_text(people_csv(pd.DataFrame(rows)), encoding="utf-8")
    return path


def _votes(tmp_path: Path, rows: list[tuple[str, str]], name: str = "votes.csv") -> Path:
    path = tmp_path / name
    pd.DataFrame(rows, columns=["id", "vote"]).to_csv(path, index=False)
    return path


def test_returned_votes_go_into_the_wave_table(tmp_path: Path, capsys) -> None:
    wave = _wave(tmp_path)
    before = pd.read_csv(wave, dtype=str, keep_default_na=False)
    votes = _votes(tmp_path, [("5", "B"), ("6", "model_a"), ("7", "")])
    assert main(["label", "import", str(votes), "--study", str(wave)]) == 0
    out = capsys.readouterr().out
    assert "2 labels added" in out and "1 selected comparisons still pending" in out
    assert "labels read from column 'vote'" in out
    after = pd.read_csv(wave, dtype=str, keep_default_na=False)
    assert list(after["label"]) == ["A", "B", "tie", "A", "B", "A", "", "", "", ""]
    pd.testing.assert_frame_equal(after.drop(columns="label"), before.drop(columns="label"))
    from bacon_bayes.study.pair_votes import import_returned

    done = import_returned(wave, _votes(tmp_path, [("7", "right"), ("1", "left")], "rest.csv"))
    assert (done.added, done.unchanged, done.pending) == (1, 1, 0)
    assert "run `bacon estimate" in str(done) and "--propensity propensity" in str(done)
    assert pd.read_csv(wave)["label"].iloc[6] == "B"  # left / right written as A / B


def test_a_spreadsheet_resave_of_the_wave_partly_filled(tmp_path: Path) -> None:
    from bacon_bayes.study.pair_votes import import_votes

    wave = _wave(tmp_path)
    saved = pd.read_csv(wave, dtype=str, keep_default_na=False)
    saved.loc[saved["id"] == "6", "label"] = "B"
    saved["propensity"] = saved["propensity"].str.replace(".", ",")  # a decimal comma
    resaved = tmp_path / "returned.csv"
    saved.to_csv(resaved, sep=";", index=False)
    summary = import_votes(wave, resaved)
    assert (summary.added, summary.unchanged, summary.pending) == (1, 4, 2)
    assert pd.read_csv(wave).loc[5, "label"] == "B"


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ([("5", "A"), ("9", "B")], "votes on comparisons no wave drew"),
        ([("5", "A"), ("6", "maybe")], "'maybe'"),
        ([("5", "A"), ("5", "B")], "the same comparison voted on more than once"),
        ([("5", "A"), ("77", "B")], "ids not in"),
        ([("5", "A"), ("2", "A")], "(stored: B) at line 3"),
    ],
)
def test_a_doubtful_file_is_refused_whole(tmp_path: Path, rows, said) -> None:
    from bacon_bayes.study.pair_votes import import_votes

    wave = _wave(tmp_path)
    before = wave.read_bytes()
    with pytest.raises(ValidationError) as err:
        import_votes(wave, _votes(tmp_path, rows))
    message = str(err.value)
    assert said in message and "line 3" in message, message
    if "maybe" in said:
        assert "write A, B or tie" in message  # the accepted spellings
    assert wave.read_bytes() == before  # nothing written


def test_ids_that_point_to_other_comparisons_are_refused(tmp_path: Path) -> None:
    from bacon_bayes.study.pair_votes import import_votes

    wave = _wave(tmp_path)
    saved = pd.read_csv(wave, dtype=str, keep_default_na=False)
    saved.loc[saved["id"] == "5", ["label", "model_a"]] = ["A", "m9"]
    saved.to_csv(tmp_path / "returned.csv", index=False)
    with pytest.raises(ValidationError, match=r"column 'model_a' differs .*id='5'"):
        import_votes(wave, tmp_path / "returned.csv")


def test_labels_on_a_wave_table_points_to_the_import(tmp_path: Path, capsys) -> None:
    """`bacon estimate WAVE --pairwise --labels VOTES` (id, vote) read the wave's own vote
    column as a judge: the pilot's votes dropped out of the human votes while the
    propensities still counted them, silently. It is refused with the import to run."""
    wave = _wave(tmp_path)
    votes = _votes(tmp_path, [("5", "B"), ("6", "A"), ("7", "tie")])
    argv = ["estimate", str(wave), "--pairwise", "--labels", str(votes), "--engine", "freq"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "would be read as a judge" in err and f"bacon label import {votes} --study" in err


def test_a_parquet_wave_table_takes_votes_and_stays_parquet(tmp_path: Path, capsys) -> None:
    """`bacon sample --pairwise --out wave.parquet` writes Parquet, but `bacon label import
    VOTES --study wave.parquet` said it was "not a study folder" (only a CSV wave table was
    recognised). It is read as `read_table` reads it and written back as Parquet."""
    wave_csv = _wave(tmp_path)
    wave = tmp_path / "pairs-wave.parquet"
    typed = pd.read_csv(wave_csv, keep_default_na=False, dtype={"label": str, "id": str})
    typed["label"] = typed["label"].replace("", None)
    typed.to_parquet(wave, index=False)
    votes = _votes(tmp_path, [("5", "B"), ("6", "tie")])
    assert main(["label", "import", str(votes), "--study", str(wave)]) == 0
    assert "2 labels added" in capsys.readouterr().out
    after = pd.read_parquet(wave)
    assert list(after["label"].fillna("")) == ["A", "B", "tie", "A", "B", "tie", "", "", "", ""]
    pd.testing.assert_frame_equal(after.drop(columns="label"), typed.drop(columns="label"))


def test_a_vote_written_as_the_winning_models_name(tmp_path: Path) -> None:
    """A returned vote naming the winner (the row's model_a or model_b, any case) was
    refused as "not a verdict"; it is read as A or B. A model's name that is neither of
    the row's is refused, naming the row and its two models."""
    from bacon_bayes.study import import_votes

    wave = _wave(tmp_path)  # id 5: m3 vs m1, 6: m1 vs m2, 7: m2 vs m3
    before = wave.read_bytes()
    with pytest.raises(ValidationError) as err:
        import_votes(wave, _votes(tmp_path, [("5", "m3"), ("6", "m3")]))
    message = str(err.value)
    assert "naming a model that is neither of the comparison's (m1 vs m2)" in message
    assert "line 3 (id='6', vote='m3')" in message
    assert wave.read_bytes() == before
    summary = import_votes(wave, _votes(tmp_path, [("5", "m3"), ("6", "M2"), ("7", "tie")]))
    assert (summary.added, summary.pending) == (3, 0)
    assert list(pd.read_csv(wave)["label"].iloc[4:7]) == ["A", "B", "tie"]


def test_a_second_wave_keeps_the_first_waves_pending_marks(tmp_path: Path, capsys) -> None:
    """A wave drawn on the wave table before the first wave's votes came back set
    `to_label` to the new draw alone: the first wave's pending comparisons lost their mark
    (their votes then refused as "on comparisons no wave drew"). The marks are kept, and
    the new wave draws none of them again."""
    wave = _wave(tmp_path)  # ids 5-7 drawn, pending
    out = tmp_path / "second.csv"
    argv = ["sample", str(wave), "--pairwise", "--budget", "2", "--seed", "1", "--out", str(out)]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert "beside the 3 an earlier wave drew whose votes are still pending" in said
    second = pd.read_csv(out, dtype=str, keep_default_na=False)
    marks = second.set_index("id")["to_label"]
    assert (marks[["5", "6", "7"]] == "1").all()
    from bacon_bayes.study import import_votes

    summary = import_votes(out, _votes(tmp_path, [("5", "A"), ("6", "B"), ("7", "tie")]))
    assert summary.added == 3


@pytest.mark.parametrize("sep", [",", ";"])
def test_a_gzipped_wave_table_is_written_back_gzipped(tmp_path: Path, capsys, sep) -> None:
    """`bacon label import VOTES --study pairs-wave.csv.gz` wrote the wave back as plain
    text under its .gz name (and a semicolon file with commas), so the next import said
    "not a study folder". It is written back as read: gzip, its separator, every other
    cell as it was."""
    import gzip

    plain = _wave(tmp_path)
    before = pd.read_csv(plain, dtype=str, keep_default_na=False)
    wave = tmp_path / "pairs-wave.csv.gz"
    with gzip.open(wave, "wt", encoding="utf-8", newline="") as out:
        out.write(before.to_csv(index=False, sep=sep))
    plain.unlink()
    for rows in ([("5", "B")], [("6", "tie")]):
        assert main(["label", "import", str(_votes(tmp_path, rows)), "--study", str(wave)]) == 0
    assert "1 labels added" in capsys.readouterr().out
    with gzip.open(wave, "rt", encoding="utf-8") as back:  # a gzip stream, or this raises
        text = back.read()
    assert text.splitlines()[0] == sep.join(before.columns)
    after = pd.read_csv(wave, dtype=str, keep_default_na=False, sep=sep)
    assert list(after["label"]) == ["A", "B", "tie", "A", "B", "tie", "", "", "", ""]
    pd.testing.assert_frame_equal(after.drop(columns="label"), before.drop(columns="label"))


def test_the_drawn_mark_is_read_one_way_by_every_command() -> None:
    """``to_label`` = 1 was read by four expressions: two took it from text ("1", a table
    read as strings or resaved), two (bacon estimate --pairwise's refusal of a wave not
    voted on, doctor's) only from numbers, so a wave whose mark was text passed as voted.
    One helper reads it for all."""
    from bacon_bayes.cli.pairwise import _check_drawn_voted
    from bacon_bayes.planning.pairwise import pending_marks
    from bacon_bayes.readers.pair_table import drawn_marks

    frame = pd.DataFrame(
        {"to_label": ["1", " 1", "1.0", "0", "", None], "label": [None, "A", None, None, None, "B"]}
    )
    assert drawn_marks(frame).tolist() == [True, True, True, False, False, False]
    assert pending_marks(frame, "label").tolist() == [True, False, True, False, False, False]
    assert not drawn_marks(frame.drop(columns="to_label")).any()
    with pytest.raises(ValidationError, match="2 comparisons marked to_label = 1"):
        _check_drawn_voted(frame, "label", None)
