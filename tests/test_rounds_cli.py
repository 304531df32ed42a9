"""The next round on the command line: the history ledger (``bacon estimate --history``),
the report's round section (``bacon report --calibrator --history --anchor``), ``bacon
drift``, and bad input (a calibrator that does not fit the new pool, a damaged ``.nc``, a
damaged or foreign ledger): exit 2 with a message, and nothing written."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.demo import load_summeval
from bacon_bayes.history import FORMAT

JUDGES = [
    "judge:gpt-4-0314|rts|relevance",
    "judge:llama-2-70b-chat-hf|rts|relevance",
    "judge:gpt-3.5-turbo-0301|rts|relevance",
]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def rounds(tmp_path_factory) -> dict[str, Path]:
    """old.csv (6 systems, 20% labels) with its saved calibrator old.nc and the first line
    of a ledger; new.csv (the other 6 systems, ~6% labels); few.csv (5 labels)."""
    tmp = tmp_path_factory.mktemp("rounds")
    frame = load_summeval()
    rng = np.random.default_rng(0)
    systems = sorted(frame["system"].unique())
    old = frame[frame["system"].isin(systems[:6])].copy()
    new = frame[frame["system"].isin(systems[6:])].copy()
    old["y"] = old["expert_mean_relevance"].where(rng.random(len(old)) < 0.2)
    new["y"] = new["expert_mean_relevance"].where(rng.random(len(new)) < 0.06)
    cols = ["doc_id", "system", "y", *JUDGES]
    paths = {name: tmp / f"{name}.csv" for name in ("old", "new", "few")}
    old[cols].to_csv(paths["old"], index=False)
    new[cols].to_csv(paths["new"], index=False)
    few = new[cols].copy()
    few["y"] = few["y"].where(np.cumsum(few["y"].notna()) <= 5)
    few.to_csv(paths["few"], index=False)
    paths["nc"] = tmp / "old.nc"
    paths["history"] = tmp / "history.jsonl"
    code = main(
        ["estimate", str(paths["old"]), "--label", "y", *[f"--judge={j}" for j in JUDGES],
         "--group", "system", "--scale", "1:5", "--engine", "freq", "--save", str(paths["nc"]),
         "--history", str(paths["history"]), "--round", "r1"]
    )  # fmt: skip
    assert code == 0
    return paths


def _new_round(paths: dict[str, Path], *extra: str, file: str = "new") -> int:
    return main(
        ["estimate", str(paths[file]), "--label", "y", "--group", "system",
         "--calibrator", str(paths["nc"]), *extra]
    )  # fmt: skip


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _ledger(rounds, tmp_path, name: str = "h.jsonl") -> Path:
    """A copy of the fixture's ledger, written by bacon (so the next append passes)."""
    from bacon_bayes.history import append_history

    path = tmp_path / name
    for record in _lines(rounds["history"])[:1]:
        append_history(path, record)
    from bacon_bayes.outputs import record

    record(path)
    return path


def test_history_records_each_round(rounds, tmp_path, capsys):
    ledger = _ledger(rounds, tmp_path)
    saved_id = _lines(rounds["history"])[0]["calibrator"]["saved"]
    assert _new_round(rounds, "--history", str(ledger)) == 0
    assert "round 'new.csv' appended" in capsys.readouterr().out
    assert _new_round(rounds, "--history", str(ledger), "--round", "r3", "--json") == 0
    out = capsys.readouterr()
    json.loads(out.out)  # stdout stays one JSON document; the note goes to stderr
    assert "round 'r3' appended" in out.err
    assert _new_round(rounds, "--history", str(ledger), "--round", "few", file="few") == 0
    first, second, third, fourth = _lines(ledger)
    assert all(r["format"] == FORMAT for r in (first, second, third, fourth))
    assert first["mode"] == "fresh" and first["calibrator"]["saved"] == saved_id
    assert first["transport"] is None and first["round"] == "r1"
    assert second["mode"] == "frozen" and second["calibrator"]["used"] == saved_id
    assert second["round"] == "new.csv" and second["project"]["judges"] == JUDGES
    assert second["project"]["label"] == "y" and second["n_items"] == 600
    mean = second["mean"]
    assert mean["validated"] and mean["ci_low"] < mean["estimate"] < mean["ci_high"]
    assert len(second["groups"]) == 6
    rows = second["transport"]["rows"]
    assert rows[0]["group"] == "(all)" and len(rows) == 7
    assert {r["verdict"] for r in rows} <= {"holds", "drifted", "new", "not enough labels"}
    assert third["round"] == "r3"
    assert fourth["n_labels"] == 5 and fourth["mean"]["validated"] is False
    assert "ci_low" not in fourth["mean"] and fourth["transport"] is None
    # --refit --save records the new calibrator's id beside the one it came from
    assert _new_round(rounds, "--refit", "--save", str(tmp_path / "new.nc"),
                      "--history", str(ledger), "--round", "refit") == 0  # fmt: skip
    refit = _lines(ledger)[-1]
    assert refit["mode"] == "refit" and refit["calibrator"]["used"] == saved_id
    assert refit["calibrator"]["saved"] not in (None, saved_id)


def _report(rounds, out: Path, *extra: str) -> int:
    return main(
        ["report", str(rounds["new"]), "--label", "y", "--group", "system", "--out", str(out),
         *extra]
    )  # fmt: skip


def test_report_shows_the_round_beside_earlier_rounds(rounds, tmp_path, capsys):
    ledger = _ledger(rounds, tmp_path)
    assert _new_round(rounds, "--history", str(ledger), "--round", "r2") == 0
    anchor = pd.read_csv(rounds["new"])
    anchor["v2"] = anchor[JUDGES[0]] + 0.5  # a new version scoring half a point higher
    anchor.to_csv(tmp_path / "anchor.csv", index=False)
    page = tmp_path / "r.html"
    code = _report(rounds, page, "--calibrator", str(rounds["nc"]), "--history", str(ledger),
                   "--round", "r3", "--anchor", str(tmp_path / "anchor.csv"),
                   "--judge-version", f"{JUDGES[0]}=v2")  # fmt: skip
    assert code == 0
    text = page.read_text()
    section = text[text.index('<section id="round">') : text.index('<section id="estimates">')]
    saved_id = _lines(rounds["history"])[0]["calibrator"]["saved"]
    assert f"id {saved_id}" in section and "frozen" in section
    assert "Transport check" in section and re.search(
        r"<td[^>]*>(holds|drifted|not enough)", section
    )
    assert 'alt="trend across rounds"' in section
    for name in ("r1", "r2", "r3"):
        assert f"<td>{name}</td>" in section
    assert (
        section.index("<td>r1</td>") < section.index("<td>r2</td>") < section.index("<td>r3</td>")
    )
    bias = text[text.index('<section id="bias">') : text.index('<section id="calibration">')]
    assert "Judge drift on the anchor set" in bias and "<td>v2</td>" in bias
    assert text.count("data:image/png;base64,") == 6  # 5 of the report + the trend
    # without --calibrator (and --history) the report is as it was: no round section
    plain = tmp_path / "plain.html"
    code = _report(rounds, plain, *[f"--judge={j}" for j in JUDGES], "--engine", "freq")
    assert code == 0
    assert '<section id="round">' not in plain.read_text()
    assert plain.read_text().count("<section") == 8  # with the data check
    if CHROMIUM is not None:  # the page renders, its script runs to its end
        flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu"]
        dom = subprocess.run(
            [*flags, "--dump-dom", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120, check=True,
        ).stdout  # fmt: skip
        assert 'data-ready="1"' in dom and "data-errors=" not in dom
        assert 'id="round"' in dom


def test_bacon_drift(rounds, tmp_path, capsys):
    anchor = pd.read_csv(rounds["new"])
    anchor["v2"] = anchor[JUDGES[0]] + 0.5
    anchor.to_csv(tmp_path / "anchor.csv", index=False)
    args = ["drift", str(tmp_path / "anchor.csv"), "--calibrator", str(rounds["nc"])]
    assert main([*args, "--judge-version", f"{JUDGES[0]}=v2", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["drift"][0]
    assert row["shift_judge"] == pytest.approx(0.5)
    assert row["shift_low"] < row["shift_human"] < row["shift_high"]
    assert main([*args, "--judge-version", f"{JUDGES[0]}=v2"]) == 0
    head = capsys.readouterr().out.splitlines()[0]  # what its scale is (tester B finding 12)
    assert "against the labels themselves" in head and "the scale of its judge-bias table" in head
    assert main([*args, "--judge-version", "v2=v2"]) == 2
    assert "not a judge of the calibrator" in capsys.readouterr().err
    assert main([*args, "--judge-version", f"{JUDGES[0]}"]) == 2
    assert "OLD=NEW" in capsys.readouterr().err


def _nothing_written(tmp_path: Path, before: set[str]) -> None:
    assert {p.name for p in tmp_path.iterdir()} == before


def test_a_calibrator_that_does_not_fit_the_pool_is_refused(rounds, tmp_path, capsys):
    frame = pd.read_csv(rounds["new"])
    frame.drop(columns=JUDGES[1]).to_csv(tmp_path / "missing.csv", index=False)
    scaled = frame.copy()
    scaled[JUDGES[0]] = scaled[JUDGES[0]] * 20  # a 0-100 judge under the same name
    scaled.to_csv(tmp_path / "scaled.csv", index=False)
    frame.assign(y=frame["y"] * 20).to_csv(tmp_path / "labels100.csv", index=False)
    before = {p.name for p in tmp_path.iterdir()}
    outputs = ["--history", str(tmp_path / "h.jsonl")]
    cases = {
        "missing.csv": ([], JUDGES[1]),
        "scaled.csv": ([], "changed scale"),
        "labels100.csv": ([], "fitted on labels on the scale 1:5"),  # another scale
        "new.csv": (["--outcome", "nonnegative"], "continuous label"),  # another label type
    }
    for name, (extra, message) in cases.items():
        table = str(rounds["new"]) if name == "new.csv" else str(tmp_path / name)
        common = [table, "--label", "y", "--group", "system", "--calibrator", str(rounds["nc"]),
                  *extra]  # fmt: skip
        save = ["--refit", "--save", str(tmp_path / "new.nc")]
        assert main(["estimate", *common, *outputs, *save]) == 2, name
        assert message in capsys.readouterr().err, name
        assert main(["report", *common, "--out", str(tmp_path / "r.html")]) == 2, name
        assert message in capsys.readouterr().err, name
        _nothing_written(tmp_path, before)


def test_a_damaged_calibrator_file_is_refused(rounds, tmp_path, capsys):
    damaged = tmp_path / "damaged.nc"
    data = rounds["nc"].read_bytes()
    damaged.write_bytes(data[: len(data) // 2])
    before = {p.name for p in tmp_path.iterdir()}
    args = ["--label", "y", "--calibrator", str(damaged)]
    outputs = ["--save", str(tmp_path / "n.nc"), "--history", str(tmp_path / "h.jsonl")]
    assert main(["estimate", str(rounds["new"]), *args, "--refit", *outputs]) == 2
    err = capsys.readouterr().err
    assert "damaged.nc" in err and "Traceback" not in err
    assert main(["report", str(rounds["new"]), *args, "--out", str(tmp_path / "r.html")]) == 2
    assert "damaged.nc" in capsys.readouterr().err
    assert main(["drift", str(rounds["new"]), "--calibrator", str(damaged),
                 "--judge-version", f"{JUDGES[0]}={JUDGES[1]}"]) == 2  # fmt: skip
    _nothing_written(tmp_path, before)


def test_a_damaged_or_foreign_ledger_is_refused_and_left_alone(rounds, tmp_path, capsys):
    ledger = _ledger(rounds, tmp_path)
    good = ledger.read_bytes()
    save = ["--refit", "--save", str(tmp_path / "new.nc")]
    # a truncated line (a copy cut short): bacon did not write it as it is; --force reads it
    ledger.write_bytes(good + good[: len(good) // 2])
    assert _new_round(rounds, "--history", str(ledger), *save) == 2
    assert "was not written by bacon" in capsys.readouterr().err
    assert _new_round(rounds, "--history", str(ledger), "--force", *save) == 2
    assert "line 2: not a JSON record" in capsys.readouterr().err
    assert not (tmp_path / "new.nc").exists()
    # foreign content
    ledger.write_text('{"format": "something/else"}\n')
    assert _new_round(rounds, "--history", str(ledger), "--force", *save) == 2
    assert "not a bacon history record" in capsys.readouterr().err
    assert ledger.read_text() == '{"format": "something/else"}\n'
    # the report reads a ledger and refuses a damaged one too, writing no page
    assert _report(rounds, tmp_path / "r.html", "--calibrator", str(rounds["nc"]),
                   "--history", str(ledger)) == 2  # fmt: skip
    assert not (tmp_path / "r.html").exists()
    # a ledger of another project (label 'z'): refused, nothing written
    other = pd.read_csv(rounds["old"]).rename(columns={"y": "z"})
    other.to_csv(tmp_path / "other.csv", index=False)
    foreign = tmp_path / "foreign.jsonl"
    assert main(["estimate", str(tmp_path / "other.csv"), "--label", "z",
                 *[f"--judge={j}" for j in JUDGES], "--engine", "freq",
                 "--history", str(foreign)]) == 0  # fmt: skip
    capsys.readouterr()
    kept = foreign.read_bytes()
    assert _new_round(rounds, "--history", str(foreign), *save) == 2
    err = capsys.readouterr().err
    assert "belongs to label 'z'" in err and "pass another --history file" in err.lower()
    assert foreign.read_bytes() == kept and not (tmp_path / "new.nc").exists()
    assert _report(rounds, tmp_path / "r.html", "--calibrator", str(rounds["nc"]),
                   "--history", str(foreign)) == 2  # fmt: skip
    assert "belongs to label 'z'" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()
    # a hand-edited but valid ledger: refused without --force (bacon appends it), read with
    ledger.write_bytes(good.replace(b'"round": "r1"', b'"round": "first"'))
    assert _new_round(rounds, "--history", str(ledger)) == 2
    assert "was not written by bacon" in capsys.readouterr().err
    assert _new_round(rounds, "--history", str(ledger), "--force") == 0
    assert [r["round"] for r in _lines(ledger)] == ["first", "new.csv"]


def test_a_changed_ledger_is_refused_saying_force_appends_to_it(rounds, tmp_path, capsys):
    # --history appends: the refusal of a hand-edited ledger may not say --force replaces it
    ledger = _ledger(rounds, tmp_path)
    edited = ledger.read_bytes().replace(b'"round": "r1"', b'"round": "first"')
    ledger.write_bytes(edited)
    assert _new_round(rounds, "--history", str(ledger)) == 2
    err = capsys.readouterr().err
    assert "refusing to append to it; pass --force to append to it as it is" in err
    assert "replace" not in err
    assert _new_round(rounds, "--history", str(ledger), "--force") == 0
    lines = ledger.read_bytes().splitlines(keepends=True)
    assert len(lines) == 2 and lines[0] == edited  # the edited line kept, the round appended


def test_a_moved_calibrator_and_ledger_are_replaced_without_force(rounds, tmp_path, capsys):
    """``mv next.nc h.jsonl models/``: the next round's --save over the moved calibrator
    and its --history append were refused, "was not written by bacon, or was changed
    since it was: ... pass --force", though neither had changed."""
    saved = tmp_path / "next.nc"
    assert _new_round(rounds, "--refit", "--save", str(saved)) == 0
    models = tmp_path / "models"
    models.mkdir()
    cal = saved.rename(models / "next.nc")
    ledger = _ledger(rounds, tmp_path).rename(models / "h.jsonl")
    capsys.readouterr()
    args = ["--refit", "--save", str(cal), "--history", str(ledger)]
    assert _new_round(rounds, *args) == 0, capsys.readouterr().err
    assert "it replaced the calibrator saved there before" in capsys.readouterr().out
    assert len(_lines(ledger)) == 2
    moved = cal.rename(tmp_path / "again.nc")
    with moved.open("ab") as fh:
        fh.write(b"\0")  # changed since: still refused
    assert _new_round(rounds, "--refit", "--save", str(moved)) == 2
    assert "changed since it was" in capsys.readouterr().err


def test_a_round_with_a_saved_calibrator_offers_no_fresh_top_plan(rounds, capsys):
    """Tester B finding 4: after a frozen (or refit) round, estimate printed `bacon plan
    ... --top`, which fitted a fresh calibrator on the round's labels (not the estimates
    just printed), and adding --calibrator to it was refused. The line now says why no
    top-group plan is offered and names the plan that takes the calibrator, which runs
    once its H and NAME are filled in."""
    import shlex

    for extra in ([], ["--refit"]):
        capsys.readouterr()
        assert _new_round(rounds, "--pointwise", *extra) == 0
        out = capsys.readouterr().out
        line = next(t for t in out.splitlines() if t.startswith("bacon plan:"))
        assert "--top" not in out.split("bacon plan:", 1)[1].replace("`bacon plan --top`", "")
        assert "not predicted for a saved calibrator" in line
    command = line.split("mean: ", 1)[1].replace(" H ", " 0.3 ").replace("NAME", "M17")
    words = shlex.split(command)
    assert "--calibrator" in words and words[0] == "bacon"
    assert main(words[1:]) == 0, capsys.readouterr().err
    assert "with calibrator" in capsys.readouterr().out


def test_pooling_scale_and_group_effects_with_a_calibrator_are_used_or_refused(rounds, capsys):
    """W12: --pooling separate was ignored with --calibrator (shrunk means printed), and
    --scale / --group-effects other than the saved calibrator's went unused without a word
    (the label error then said to fix the scale, which --scale could not)."""
    assert _new_round(rounds, "--pooling", "separate") == 0
    out = capsys.readouterr().out
    assert "simultaneous, max-|t|" in out and "shrunk toward" not in out
    assert _new_round(rounds, "--scale", "1:5") == 0  # its own scale: accepted
    capsys.readouterr()
    assert _new_round(rounds, "--scale", "0:100") == 2
    assert "fixes the label's scale (its own: 1:5)" in capsys.readouterr().err
    assert _new_round(rounds, "--group-effects", "on") == 2
    assert "--group-effects on" in capsys.readouterr().err
    plan = ["plan", str(rounds["new"]), "--label", "y", "--calibrator", str(rounds["nc"])]
    assert main([*plan, "--half-width", "0.2", "--scale", "0:100"]) == 2
    assert "fixes the label's scale" in capsys.readouterr().err


def test_a_judge_of_the_calibrator_missing_from_the_table_is_not_offered_another(
    rounds, tmp_path, capsys
):
    """W12: the calibrator's judges, absent from the new table, got `judge column ... is
    not in the table. Did you mean 'llama7b'?` (another judge, which the calibrator then
    refused); a column spelled otherwise is offered for renaming, no other judge is."""
    frame = pd.read_csv(rounds["new"])
    renamed = frame.rename(columns={JUDGES[0]: JUDGES[0].upper()})
    renamed.to_csv(tmp_path / "renamed.csv", index=False)
    missing = frame.drop(columns=JUDGES[1]).assign(**{JUDGES[1][:-3]: 1.0})
    missing.to_csv(tmp_path / "missing.csv", index=False)
    assert _new_round({**rounds, "t": tmp_path / "renamed.csv"}, file="t") == 2
    err = capsys.readouterr().err
    assert f"calibrator {str(rounds['nc'])!r} was fitted with judge(s) {JUDGES[0]!r}" in err
    assert f"{JUDGES[0].upper()!r} for {JUDGES[0]!r}" in err and "rename the column" in err
    assert _new_round({**rounds, "t": tmp_path / "missing.csv"}, file="t") == 2
    err = capsys.readouterr().err
    assert f"judge(s) {JUDGES[1]!r}" in err and "Did you mean" not in err
    assert "spelled otherwise" not in err and "score the new items" in err


def test_a_judge_named_in_another_case_is_an_error_not_a_traceback(rounds, tmp_path, capsys):
    """W12: the next release's table with a judge column in capitals, read with the old
    release's `--judge` names, ended in `KeyError: 'Column not found'` (a traceback from
    the long-table check); it is the missing-column error, offering the column."""
    frame = pd.read_csv(rounds["new"]).rename(columns={JUDGES[0]: JUDGES[0].upper()})
    frame.to_csv(tmp_path / "upper.csv", index=False)
    args = ["estimate", str(tmp_path / "upper.csv"), "--label", "y",
            *[f"--judge={j}" for j in JUDGES]]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    assert (
        f"judge column {JUDGES[0]!r} is not in the table. Did you mean {JUDGES[0].upper()!r}" in err
    )


def test_the_saved_calibrator_s_label_is_taken_when_label_is_not_given(rounds, capsys):
    """Helper W14: `bacon report se.csv --calibrator cal.nc --out r.html` was refused,
    "--label is required for a table", after the calibrator was loaded (28 s), though the
    calibrator names its label as it names its judges, which were taken. The label is
    now the saved one's too; a table without that column is refused naming it."""
    args = ["estimate", str(rounds["new"]), "--group", "system", "--calibrator", str(rounds["nc"])]
    assert main(args) == 0
    assert "mean of 'y' over the pool" in capsys.readouterr().out
    assert _new_round(rounds) == 0
    with_label = capsys.readouterr().out
    assert main(args) == 0 and capsys.readouterr().out == with_label
    other = pd.read_csv(rounds["new"]).rename(columns={"y": "human"})
    path = rounds["new"].with_name("renamed.csv")
    other.to_csv(path, index=False)
    assert main([*args[:1], str(path), *args[2:]]) == 2
    assert "'y'" in capsys.readouterr().err
