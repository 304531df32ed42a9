"""Readers of the files evaluation tools write, and --labels."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.errors import ValidationError
from bacon_bayes.readers import join_labels, read_any
from bacon_bayes.readers.promptfoo import read_promptfoo

from .inspect_fixture import labels, make_log
from .tool_fixtures import labels_frame, lm_eval_truth, write_lm_eval, write_promptfoo

needs_inspect = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None,
    reason="inspect_ai not installed (pip install 'bacon_bayes[inspect]')",
)


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("inspect_ai")
    return make_log(tmp_path_factory.mktemp("inspect"))


def test_inspect_log_written_by_inspect(inspect_log: Path) -> None:
    frame, meta = read_any(inspect_log)
    assert meta.format == "inspect" and meta.item == "id"
    assert meta.judges == ["model_graded_qa"] and meta.other_scores == ["match"]
    assert len(frame) == 70 and set(frame["model_graded_qa"]) == {0.0, 0.5, 1.0}
    row = frame.set_index("id").loc["q003"]
    assert row["model_graded_qa"] == 0.5  # P -> 0.5 by value_to_float
    assert row["input"] == "What is 3+3?" and row["target"] == "6"
    assert row["output"].startswith("The answer is 6")
    assert frame.set_index("id").loc["q005", "model_graded_qa"] == 0.0  # I


@needs_inspect
def test_inspect_epochs_are_runs(tmp_path: Path) -> None:
    frame, meta = read_any(make_log(tmp_path, n=6, epochs=2))
    assert len(frame) == 6 and (frame["epochs"] == 2).all()
    assert meta.scores is not None and sorted(meta.scores["run"].unique()) == [1, 2]
    assert set(meta.scores["judge"]) == {"model_graded_qa"}


def test_inspect_estimate_and_report_in_three_commands(inspect_log: Path, tmp_path: Path) -> None:
    """The README's commands: labels written, estimate, report."""
    labels().to_csv(tmp_path / "labels.csv", index=False)
    log = str(inspect_log)
    lab = str(tmp_path / "labels.csv")
    assert main(["estimate", log, "--labels", lab, "--label", "human"]) == 0
    html = tmp_path / "report.html"
    assert main(["report", log, "--labels", lab, "--label", "human", "--out", str(html)]) == 0
    assert html.stat().st_size > 1000


def test_labels_errors(inspect_log: Path, tmp_path: Path) -> None:
    frame, meta = read_any(inspect_log)
    lab = labels(5)
    bad = pd.concat([lab, pd.DataFrame({"id": ["nope1", "nope2"], "human": [1.0, 0.0]})])
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValidationError, match="'nope1', 'nope2'"):
        join_labels(frame, tmp_path / "bad.csv", "human", meta.item)
    pd.concat([lab, lab.iloc[:1]]).to_csv(tmp_path / "dup.csv", index=False)
    with pytest.raises(ValidationError, match="more than once"):
        join_labels(frame, tmp_path / "dup.csv", "human", meta.item)
    with pytest.raises(ValidationError, match="no column 'score'"):
        join_labels(frame, tmp_path / "dup.csv", "score", meta.item)
    labels(10).to_csv(tmp_path / "ok.csv", index=False)
    joined, key = join_labels(frame, tmp_path / "ok.csv", "human", None)
    assert key == "id" and joined["human"].notna().sum() == 10


@needs_inspect
def test_no_model_graded_scorer_names_the_scorers(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(make_log(tmp_path, n=5)))
    assert log.samples is not None
    for sample in log.samples:
        sample.scores = {"match": sample.scores["match"]}  # type: ignore[index]
    log.eval.scorers = [s for s in log.eval.scorers or [] if s.name == "match"]
    write_eval_log(log, str(tmp_path / "rules.json"))
    _, meta = read_any(tmp_path / "rules.json")
    assert meta.judges == [] and "its scorers: match" in meta.notes[0]
    labels(5).to_csv(tmp_path / "l.csv", index=False)
    with pytest.raises(ValidationError, match="its scorers: match"):
        from bacon_bayes.cli import build_parser
        from bacon_bayes.cli.pool_args import table_from_args

        args = build_parser().parse_args(
            [
                "estimate",
                str(tmp_path / "rules.json"),
                "--labels",
                str(tmp_path / "l.csv"),
                "--label",
                "human",
            ]
        )
        table_from_args(args)


def test_lm_eval_sample_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_lm_eval(tmp_path / "samples_summ_2026-01-01T00-00-00.jsonl", n=80)
    frame, meta = read_any(path)
    assert meta.format == "lm-eval" and meta.item == "doc_id"
    assert meta.judges == ["exact_match", "llm_judge"] and len(frame) == 80
    assert frame["input"].iloc[0].startswith("Question: item 0?")
    assert frame["output"].iloc[0].startswith("answer")
    truth = lm_eval_truth(80)
    labels_frame(list(range(60)), truth[:60], "doc_id").to_csv(tmp_path / "l.csv", index=False)
    args = [str(path), "--labels", str(tmp_path / "l.csv"), "--label", "human"]
    assert main(["estimate", *args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_labeled"] == 60 and out["n_items"] == 80


def test_lm_eval_repeated_doc_ids_refused(tmp_path: Path) -> None:
    """Two task logs put in one file (doc_id 0..n-1 twice) are refused, not merged into n
    rows pairing one task's labels with the other's scores."""
    first = write_lm_eval(tmp_path / "a.jsonl", n=20)
    second = write_lm_eval(tmp_path / "b.jsonl", n=20, seed=3)
    both = tmp_path / "samples_concat_2026-01-01T00-00-00.jsonl"
    both.write_text(first.read_text() + second.read_text())
    with pytest.raises(ValidationError, match=r"doc_id 0 appears twice .* objects 1 and 21"):
        read_any(both)
    assert len(read_any(first)[0]) == 20


def test_promptfoo_results(tmp_path: Path) -> None:
    path = write_promptfoo(tmp_path / "results.json")
    frame, meta = read_any(path)
    assert meta.format == "promptfoo" and meta.group == "provider" and meta.prompt == "test"
    assert meta.judges == ["llm-rubric", "contains"] and len(frame) == 60
    assert frame["id"].iloc[0] == "test0:openai:model-0"
    assert frame["llm-rubric"].between(0, 1).all()
    rng = np.random.default_rng(0)
    ids = frame["id"].iloc[::2].tolist()
    labels_frame(ids, rng.random(len(ids))).to_csv(tmp_path / "l.csv", index=False)
    args = ["estimate", str(path), "--labels", str(tmp_path / "l.csv"), "--label", "human"]
    assert main(args) == 0


def test_promptfoo_same_type_assertions_keyed_by_rubric(tmp_path: Path) -> None:
    """Two llm-rubric assertions without a metric, listed in a different order by odd tests:
    each column holds one rubric's scores (named in the judge's kind), not half of each."""
    doc = json.loads(write_promptfoo(tmp_path / "results.json", n_tests=10).read_text())
    for r in doc["results"]["results"]:
        t = r["testIdx"]
        covers = {"score": 0.9, "assertion": {"type": "llm-rubric", "value": "covers"}}
        concise = {"score": 0.1, "assertion": {"type": "llm-rubric", "value": "is concise"}}
        pair = [covers, concise] if t % 2 == 0 else [concise, covers]
        r["gradingResult"]["componentResults"] = pair
    frame, meta = read_promptfoo(doc, "results.json")
    assert meta.judges == ["llm-rubric", "llm-rubric_2"] and not meta.notes
    assert (frame["llm-rubric"] == 0.9).all() and (frame["llm-rubric_2"] == 0.1).all()
    assert "'is concise'" in meta.judge_kinds["llm-rubric_2"]
    # each test its own rubric: told apart by position, and said
    for r in doc["results"]["results"]:
        for c in r["gradingResult"]["componentResults"]:
            c["assertion"]["value"] += f" of test {r['testIdx']}"
    frame, meta = read_promptfoo(doc, "results.json")
    assert meta.judges == ["llm-rubric", "llm-rubric_2"]
    assert any("mixes rubrics" in n for n in meta.notes)


def test_generic_jsonl_flattened(tmp_path: Path) -> None:
    path = tmp_path / "scores.jsonl"
    rows = [{"id": i, "judge": {"a": i / 10, "b": 1}, "tags": ["x"]} for i in range(4)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    frame, meta = read_any(path)
    assert meta.item == "id" and {"judge.a", "judge.b", "tags"} <= set(frame.columns)
    path.write_text('{"id": 1}\n[1, 2]\n')
    with pytest.raises(ValidationError, match="line 2"):
        read_any(path)
    (tmp_path / "other.json").write_text('{"foo": 1}')
    with pytest.raises(ValidationError, match="neither an Inspect AI log"):
        read_any(tmp_path / "other.json")


def test_readme_commands_run(
    inspect_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's commands, as written: an Inspect AI log plus 60 labels, and an
    lm-eval sample log plus labels (at most three commands each)."""
    import shlex
    import shutil

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("### From the tools you use")[1].split("\n## ")[0]
    blocks = [b.split("```")[0] for b in section.split("```bash\n")[1:]]
    assert len(blocks) == 2
    shutil.copy(inspect_log, tmp_path / "run.eval")
    labels().to_csv(tmp_path / "labels.csv", index=False)
    assert len(labels()) == 60
    write_lm_eval(tmp_path / "samples_mytask_2026-01-01T00-00-00.jsonl", n=80)
    truth = lm_eval_truth(80)[:60]
    labels_frame(list(range(60)), truth, "doc_id").to_csv(tmp_path / "doc_labels.csv", index=False)
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        lines = [line for line in block.splitlines() if line.strip()]
        # the logs written here stand in for the shipped ones the cp lines copy
        commands = [shlex.split(line) for line in lines if not line.startswith("cp ")]
        assert len(commands) <= 3 and {c[1] for c in commands} >= {"estimate", "report"}
        for command in commands:
            assert command[0] == "bacon"
            assert main(command[1:]) == 0, command
    assert (tmp_path / "report.html").is_file() and (tmp_path / "lm_eval.html").is_file()


def test_labels_bad_input_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2 with the file, the column or the ids named, and the fix."""
    path = write_lm_eval(tmp_path / "samples_t.jsonl", n=20)
    labels_frame([1, 2, 99], np.array([1.0, 2.0, 3.0]), "doc_id").to_csv(
        tmp_path / "l.csv", index=False
    )
    base = ["estimate", str(path), "--labels", str(tmp_path / "l.csv")]
    assert main([*base, "--label", "human"]) == 2
    assert "ids are not in the table's column 'doc_id': '99'" in capsys.readouterr().err
    assert main([*base, "--label", "score"]) == 2
    assert "has no column 'score'" in capsys.readouterr().err
    # doctor takes the labels file's one column besides the id, and names the bad ids too
    assert main(["doctor", str(path), "--labels", str(tmp_path / "l.csv")]) == 2
    assert "ids are not in the table's column 'doc_id': '99'" in capsys.readouterr().err


def test_two_columns_of_semicolons_and_decimal_commas_keep_their_header(
    tmp_path: Path,
) -> None:
    """Session 46 walk: a labeller returned a wave as `id;coherence` over rows `M10_...;2,0`
    (a European spreadsheet's), and `bacon label import` read the header as a title above
    a table of two comma-separated columns (`'M10_...;2'`, `'0'`): by commas every row
    has two fields too. On a tie of fields the reading with the header on top wins."""
    from bacon_bayes.csv_format import csv_options
    from bacon_bayes.io import read_table

    path = tmp_path / "labels.csv"
    frame = pd.DataFrame({"id": ["a1", "b2", "c3"], "coherence": [2.0, 3.33, 4.67]})
    frame.to_csv(path, sep=";", decimal=",", index=False)
    assert csv_options(path) == {"sep": ";", "decimal": ","}
    assert read_table(path)["coherence"].tolist() == [2.0, 3.33, 4.67]


@pytest.mark.parametrize(
    ("suffix", "options", "expected"),
    [
        (".csv", {"sep": ";", "decimal": ","}, {"sep": ";", "decimal": ","}),  # a spreadsheet
        (".csv", {"sep": ";"}, {"sep": ";"}),
        (".tsv", {"sep": "\t"}, {"sep": "\t"}),
        (".csv", {"sep": "|"}, {"sep": "|"}),
        (".csv", {}, {}),
        (".csv.gz", {"sep": ";", "decimal": ","}, {"sep": ";", "decimal": ","}),
        (
            ".csv",
            {"sep": ";", "decimal": ",", "encoding": "cp1252"},
            {"sep": ";", "decimal": ",", "encoding": "cp1252"},
        ),  # a Windows spreadsheet's
    ],
)
def test_tables_not_separated_by_commas_are_read(
    tmp_path: Path, suffix: str, options: dict, expected: dict
) -> None:
    """A European spreadsheet's CSV (semicolons, decimal commas), a TSV and a file of bars
    were read as one column, and doctor found nothing in them; now every reader of a user's
    table reads them as their writer meant (the walk of tests/test_messy_walk.py takes one
    through every command)."""
    from bacon_bayes.csv_format import csv_options
    from bacon_bayes.io import read_table

    frame = pd.DataFrame(
        {"id": ["a", "b", "c"], "judge": [3.5, 4.25, 1.0], "human": [3.0, None, 4.5],
         "note": ["x, y", "très", "w"]}
    )  # fmt: skip
    path = tmp_path / f"table{suffix}"
    frame.to_csv(path, index=False, **options)
    assert csv_options(path) == expected
    read = read_table(path)
    assert list(read.columns) == list(frame.columns)
    pd.testing.assert_frame_equal(read, frame, check_dtype=False)
    said = read.attrs["read as"]
    assert ("semicolon" in said) == (options.get("sep") == ";")
    assert ("Windows-1252" in said) == ("encoding" in options)


def test_a_windows_csv_whose_first_64_kb_are_ascii_is_read(tmp_path: Path) -> None:
    """A Windows-1252 byte (é) only past the first 64 KB: the read retries as Windows-1252;
    bytes that are neither encoding are refused with the fix."""
    from bacon_bayes.io import read_table

    rows = ["id,judge,note", *(f"i{k},{k % 5},plain" for k in range(8000)), "last,3,café"]
    path = tmp_path / "late.csv"
    path.write_bytes("\n".join(rows).encode("cp1252"))
    read = read_table(path)
    assert read["note"].iloc[-1] == "café" and read.attrs["read as"] == "Windows-1252 text"
    path.write_bytes(path.read_bytes().replace("é".encode("cp1252"), b"\x81"))
    with pytest.raises(ValidationError, match=r"neither UTF-8 nor Windows-1252.*CSV UTF-8"):
        read_table(path)


def test_a_spreadsheet_workbook_is_refused_with_how_to_save_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An Excel workbook was read as an Inspect AI log (both are zip files) or as a CSV
    without an id column; every command that reads a user's table now says what it is and
    how to save its sheet as CSV, a to-label file saved as a workbook too. (A workbook
    named .xlsx is read since 2026-12-04, tests/test_workbook.py; one that is not a
    readable workbook says so, with the same fix.)"""
    import zipfile

    from bacon_bayes.cli import main as bacon

    book = tmp_path / "scores.ods"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    unnamed = tmp_path / "scores"  # no suffix: told by its contents
    unnamed.write_bytes(book.read_bytes())
    pool = tmp_path / "pool.csv"
    pd.DataFrame({"id": range(40), "j": np.arange(40) % 5, "y": [1.0] * 4 + [None] * 36}).to_csv(
        pool, index=False
    )
    root = tmp_path / "study"
    assert bacon(["sample", str(pool), "--study", str(root), "--budget", "5", "--label", "y",
                  "--out", str(tmp_path / "todo.csv")]) == 0  # fmt: skip
    for argv in (
        ["doctor", str(book)],
        ["estimate", str(unnamed), "--label", "y"],
        ["sample", str(book), "--study", str(tmp_path / "s2"), "--budget", "5"],
        ["label", "import", str(book), "--study", str(root)],
    ):
        capsys.readouterr()
        assert bacon(argv) == 2, argv
        err = capsys.readouterr().err
        assert "is a spreadsheet workbook" in err and "Save the sheet as CSV" in err, err
    broken = tmp_path / "broken.xlsx"  # named as a workbook bacon reads, but no sheet in it
    broken.write_bytes(book.read_bytes())
    assert bacon(["doctor", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "as an Excel workbook (" in err and "Save the sheet as CSV" in err, err


def test_a_title_above_the_header_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A spreadsheet export with a title and a blank line above the header was read as one
    column named by the title (pandas put the other fields in the index), and doctor found
    nothing; now the lines above the header are skipped, said, and counted in the CSV line
    numbers doctor gives."""
    from bacon_bayes.csv_format import csv_options
    from bacon_bayes.io import read_table

    rng = np.random.default_rng(0)
    n = 120
    truth = rng.integers(1, 6, n).astype(float)
    frame = pd.DataFrame(
        {"id": [f"i{k}" for k in range(n)], "judge_a": truth + rng.normal(0, 0.5, n),
         "judge_b": (truth + rng.normal(0, 0.8, n)).round(1).astype(object),
         "human": np.where(np.arange(n) % 4 == 0, truth, np.nan)}
    )  # fmt: skip
    frame.loc[9, "judge_b"] = "error"
    path = tmp_path / "export.csv"
    path.write_text("Evaluation export, 30 Nov 2026\n\n" + frame.to_csv(index=False))
    assert csv_options(path) == {"skiprows": 2}
    read = read_table(path)
    assert list(read.columns) == list(frame.columns) and len(read) == n
    assert read.attrs["read as"] == "2 line(s) above the header skipped"
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "(csv, 2 line(s) above the header skipped, 120 rows)" in out
    assert "('error'; the first at line 13)" in out  # row 9: line 11 of the table, + 2
    assert (
        main(["estimate", str(path), "--label", "human", "--judge", "judge_a", "--engine", "freq"])
        == 0
    )
    # cells of text with line breaks (quoted) in the first rows: records, not lines, so
    # no row is taken for a title
    frame["judge_b"] = ["one\ntwo, three\nfour" if k < 8 else "x" for k in range(n)]
    frame.to_csv(path, index=False)
    assert csv_options(path) == {}
    assert len(read_table(path)) == n


def _excel_export(n: int = 120) -> pd.DataFrame:
    """A table as a spreadsheet holds it: integer ids, a group, two judges, a sparse label."""
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 6, n).astype(float)
    return pd.DataFrame(
        {"item": np.arange(1, n + 1), "system": np.where(np.arange(n) % 2, "A", "B"),
         "judge_a": truth + rng.normal(0, 0.5, n), "judge_b": truth + rng.normal(0, 0.8, n),
         "human": np.where(np.arange(n) % 4 == 0, truth, np.nan)}
    )  # fmt: skip


def test_a_title_block_padded_with_commas_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 18: Excel writes a title block as lines padded with commas to the table's
    width. One such line passed (as a row of group titles), two did not: the first title
    became the header, every column 'Unnamed: N', and doctor advised emptying the header
    names. A line with fewer than two filled cells is no header."""
    from bacon_bayes.csv_format import csv_options
    from bacon_bayes.io import read_table

    frame = _excel_export()
    pad = "," * (len(frame.columns) - 1)
    path = tmp_path / "export.csv"
    title = f"Relevance study export{pad}\nGenerated 2024-05-01{pad}\n"
    path.write_text(title + frame.to_csv(index=False))
    assert csv_options(path) == {"skiprows": 2}
    assert list(read_table(path).columns) == list(frame.columns)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 line(s) above the header skipped" in out and "Unnamed" not in out
    assert "--judge judge_a --judge judge_b" in out


def test_rows_of_empty_cells_are_skipped_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 19: Excel writes ',,,,' for rows it once held. Taken as items, they cost
    the id column (its ids turned to floats), the group and prompt ('empty at lines ...',
    with advice to give them a group 'unknown'). Rows whose every cell is empty are
    skipped, said with their lines by doctor and in estimate's notes; line numbers of
    later rows stay the file's."""
    from bacon_bayes.io import file_line, read_table

    frame = _excel_export()
    frame["judge_b"] = frame["judge_b"].astype(object)
    frame.loc[30, "judge_b"] = "error"  # line 32 of the file, past a blank row at line 10
    body = frame.to_csv(index=False).splitlines()
    blank = "," * (len(frame.columns) - 1)
    path = tmp_path / "export.csv"
    path.write_text("\n".join([*body[:9], blank, *body[9:], blank, blank]) + "\n")
    read = read_table(path)
    assert len(read) == len(frame) and pd.api.types.is_integer_dtype(read["item"])
    assert read.attrs["read as"] == (
        "3 empty row(s) skipped (every cell empty, line(s) 10, 123, 124)"
    )
    assert file_line(read, 30) == 33  # row 30: line 32 of the table, + the blank line
    frame.loc[30, "judge_b"] = 1.0
    frame["judge_b"] = frame["judge_b"].astype(float)
    frame["Unnamed: 6"] = np.nan  # an empty column Excel wrote too: said to be empty
    path.write_text("\n".join([*frame.to_csv(index=False).splitlines(), blank, blank]) + "\n")
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 empty row(s) skipped (every cell empty, line(s) 122, 123), 120 rows" in out
    assert "id        item" in out and "unknown" not in out and "--drop-unscored" not in out
    assert "--item item --judge judge_a --judge judge_b --group system" in out
    assert "Unnamed: 6 empty (no value on any row)" in out
    argv = ["estimate", str(path), "--label", "human", "--judge", "judge_*", "--engine", "freq"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "note: 2 empty row(s) skipped (every cell empty, line(s) 122, 123)" in out


def test_a_header_repeated_as_a_row_is_refused_naming_its_line(tmp_path: Path) -> None:
    """Two CSV files joined with cat: the second header is a row, every column turns to
    text, and doctor called each judge a column with a failure cell. Now the reader says
    what happened, on which line, and the fix."""
    from bacon_bayes.io import read_table

    part = pd.DataFrame({"id": ["a", "b"], "judge": [1.0, 2.0], "human": [1.0, None]})
    path = tmp_path / "joined.csv"
    path.write_text(part.to_csv(index=False) + part.assign(id=["c", "d"]).to_csv(index=False))
    with pytest.raises(ValidationError, match=r"repeats its header as a row at line\(s\) 4 "):
        read_table(path)
    path.write_text("Export\n\n" + path.read_text())  # lines above the header count too
    with pytest.raises(ValidationError, match=r"at line\(s\) 6 \(CSV files joined"):
        read_table(path)
    path.write_text(part.to_csv(index=False))
    assert len(read_table(path)) == 2


def test_study_messages_count_the_lines_above_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pool file with a title above its header: the study reads it from the header, and
    the rows its messages name are the file's lines, title included."""
    rng = np.random.default_rng(2)
    n = 60
    frame = pd.DataFrame(
        {"id": [f"i{k}" for k in range(n)], "sys": np.where(np.arange(n) % 2, "a", "b"),
         "judge": rng.integers(1, 6, n).astype(float), "human": np.nan}
    )  # fmt: skip
    frame.loc[7, "sys"] = np.nan  # data row 7: line 9 of the table, 11 of the file
    pool = tmp_path / "pool.csv"
    pool.write_text("Export of 30 Nov\n\n" + frame.to_csv(index=False))
    argv = ["sample", str(pool), "--study", str(tmp_path / "s"), "--budget", "10",
            "--label", "human", "--judge", "judge", "--design", "stratified", "--strata", "sys",
            "--out", str(tmp_path / "todo.csv")]  # fmt: skip
    assert main(argv) == 2
    assert "strata column 'sys' is empty in row 11" in capsys.readouterr().err
