"""Doctor on tables nobody prepared (tester B's findings, session 37): a "final score"
column that is the label rounded where there is one and a judge's score elsewhere, a
system written as numbers beside the judges, a judge renamed mid-run, judge cells of JSON
objects, lists of runs or dates, a long table of raters estimated without --item, group
names that differ only by spaces."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bacon_bayes.cli import main

from .printed import run_python_line
from .test_doctor_labels import _rating, _table
from .test_doctor_messy import doctor


def _left_out(out: str, column: str) -> str:
    return next(ln for ln in out.splitlines() if ln.startswith(f"  left out  {column} "))


def test_a_rounded_final_score_is_a_copy_of_the_label(tmp_path, capsys) -> None:
    """Finding 17: ``final_score = round(human) where labeled, else gpt4`` was taken as
    a judge (Spearman 0.94) and the printed command gave 4.43 [4.39, 4.47] against a
    truth of 3.72. It is within half a step of the label on every labeled row: left out
    as a copy of the label; the same with a few labeled rows changed by hand, as long as
    it equals a judge on the unlabeled rows."""
    frame = _table(labeled=100)
    human = np.mean([_rating(frame, 0.7, k) for k in (1, 2, 3)], axis=0)
    frame["human"] = human
    labeled = np.isfinite(human)
    frame["final_score"] = np.where(labeled, np.round(human), frame["judge_a"])
    path = tmp_path / "final.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    line = _left_out(out, "final_score")
    assert "within 0.5 of the label on 100 of the 100 labeled rows" in line
    assert "a copy of the label" in line and "final_score" not in command
    # a few labeled rows moved a point off: still the label here and judge_a elsewhere
    moved = frame.index[labeled][:5]
    frame.loc[moved, "final_score"] = np.clip(frame.loc[moved, "final_score"] + 2, 1, 5)
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    line = _left_out(out, "final_score")
    assert "equal to 'judge_a' on 300 of the 300 unlabeled rows" in line
    assert "final_score" not in command
    # bacon estimate given it as a judge says so
    assert main(["estimate", str(path), "--label", "human", "--judge", "judge_*",
                 "--judge", "final_score", "--engine", "freq"]) == 0  # fmt: skip
    notes = capsys.readouterr().out
    assert "note: judge 'final_score' within 0.5 of the label" in notes
    # the real judges, even the best, are no copies
    assert "judge_a" in " ".join(command) or "judge_*" in command


def test_a_system_written_as_numbers_beside_string_prompts_is_the_group(tmp_path, capsys) -> None:
    """Finding 8: ``ckpt``, a system number (one value per block of items, every one
    answering every document ``doc_id``, a string), was taken as a judge; the group and
    the prompt were lost. A code crossed with the documents is the group, also where
    two systems were given one code (each document then twice under it)."""
    frame = _table(labeled=100)
    frame["human"] = _rating(frame, 0.7, 1)
    frame["ckpt"] = frame["system"].map({"A": 1, "B": 2, "C": 3, "D": 3})
    frame = frame.drop(columns="system")
    path = tmp_path / "ckpt.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert "  group     ckpt" in out and "a system or model id" in out
    assert command[command.index("--group") + 1] == "ckpt"
    assert command[command.index("--prompt") + 1] == "prompt"
    assert "ckpt" not in [command[k + 1] for k, a in enumerate(command) if a == "--judge"]


def test_a_judge_renamed_mid_run_is_named_with_the_merge(tmp_path, capsys, monkeypatch) -> None:
    """Finding 9: ``gpt4`` on the first half of the rows and ``gpt-4`` on the rest (a
    harness upgrade renamed it) were two judges "dense (50% of rows scored)", with no
    word that they never meet. Half a table is not dense; the pair is named with the
    merge, a line that runs (it was pandas code to paste): doctor on the merged file finds
    one judge gpt4 scoring every row."""
    monkeypatch.chdir(tmp_path)
    frame = _table(labeled=100)
    frame["human"] = _rating(frame, 0.7, 1)
    half = np.arange(len(frame)) < len(frame) // 2
    frame["gpt4"] = np.where(half, frame["judge_a"], np.nan)
    frame["gpt-4"] = np.where(half, np.nan, frame["judge_a"])
    frame = frame.drop(columns="judge_a")
    path = tmp_path / "renamed.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    lines = {ln.split()[1]: ln for ln in out.splitlines() if ln.startswith("  judge ")}
    assert "numeric (50% of rows scored)" in lines["gpt4"] and "dense" not in lines["gpt4"]
    assert "never on a row with 'gpt4'" in lines["gpt-4"]
    assert "the two together 100%; one judge renamed mid-run?" in lines["gpt-4"]
    assert "df['gpt4'] = df['gpt4'].fillna(df['gpt-4'])" in lines["gpt-4"]
    assert "never on a row" not in lines["judge_b"] + lines["judge_c"]
    run_python_line(lines["gpt-4"])
    assert lines["gpt-4"].endswith("then bacon doctor renamed_merged.csv")
    out, command = doctor(["renamed_merged.csv"], capsys)
    assert "gpt-4" not in out and "never on a row" not in out
    assert "gpt4" in [command[k + 1] for k, a in enumerate(command) if a == "--judge"]


def test_judge_scores_packed_in_text_are_named_with_the_fix(tmp_path, capsys) -> None:
    """Finding 4: a judge written as JSON objects, as lists of its runs, or as ``4/5``
    turned into dates by a spreadsheet was left out as "a category, not a prompt" (for
    the lists: "pass --prompt to use it"). Each is named for what it holds, with the fix;
    named with --judge, the refusal says the same."""
    frame = _table(labeled=100)
    frame["human"] = _rating(frame, 0.7, 1)
    score = frame["judge_a"].astype(int)
    frame["as_json"] = [f'{{"score": {v}, "reason": "ok"}}' for v in score]
    frame["as_runs"] = [f"[{v}, {v}, {max(v - 1, 1)}]" for v in score]
    frame["as_dates"] = [f"{v:02d}/05/2025" for v in score]
    frame["when"] = [f"{1 + k % 28:02d}/{1 + k % 12:02d}/2025" for k in range(len(frame))]
    path = tmp_path / "packed.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert "JSON objects" in _left_out(out, "as_json")
    assert "map(lambda v: v['score'])" in _left_out(out, "as_json")
    assert "lists of numbers" in _left_out(out, "as_runs") and "take their mean" in out
    for column, values in (("as_json", score), ("as_runs", (3 * score - (score > 1)) / 3)):
        run_python_line(_left_out(out, column), cwd=tmp_path)  # session 58: lines that run
        np.testing.assert_allclose(pd.read_csv(tmp_path / "packed_scores.csv")[column], values)
        (tmp_path / "packed_scores.csv").unlink()
    assert "--prompt" not in _left_out(out, "as_runs")
    assert "dates ('05/05/2025'" not in out and "scores out of 5" in _left_out(out, "as_dates")
    assert "scores packed" not in _left_out(out, "when")  # real dates are no scores
    assert not {"as_json", "as_runs", "as_dates"} & set(command)
    assert main(["doctor", str(path), "--judge", "as_json"]) == 2
    err = capsys.readouterr().err
    assert "--judge 'as_json' is not numeric: it holds scores packed in text" in err


def test_a_long_table_of_raters_without_item_is_refused_with_the_mean(tmp_path, capsys) -> None:
    """Finding 18: one row per item and rater (3 raters on the labeled items, the judges
    the same on each row), estimated without --item, ran on "400 + 200 items" with a note
    to pivot it: each rating was an item, so the target was a mean over ratings, not
    items. It is refused, the rater column named and the ratings' mean per item given."""
    frame = _table(n=200, labeled=40)
    ratings = [_rating(frame, 0.7, k) for k in (1, 2, 3)]
    rated = frame.iloc[frame.attrs["rows"]]
    frame.attrs = {}
    rated.attrs = {}
    raters = [rated.assign(rater=f"r{k}", score=r[rated.index]) for k, r in enumerate(ratings)]
    rest = frame.drop(index=rated.index).assign(rater=np.nan, score=np.nan)
    long = pd.concat([rest, *raters]).rename(columns={"item": "id"})
    path = tmp_path / "raters_long.csv"
    long.to_csv(path, index=False)
    args = ["estimate", str(path), "--label", "score", "--judge", "judge_*", "--engine", "freq"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "one row per item and rater ('rater' names who)" in err
    assert "the mean over ratings, not over items" in err
    assert "cols['score'] = 'mean'" in err and "with --item id" in err and "pivot" not in err


def test_group_names_with_spaces_around_are_quoted_in_tables(tmp_path, capsys) -> None:
    """Finding 19: ``M8`` and `` M8`` (two groups) printed as two rows both reading "M8"
    in every group table. Names with spaces around them are quoted there, as in the
    notes; doctor's labels-per-group table says the names are written several ways; and
    "( and --label X likewise)" lost its stray "and"."""
    from bacon_bayes.doctor.label import _and
    from bacon_bayes.order import cell_name, pair_text

    assert (cell_name(" M8"), cell_name("M8"), cell_name("m8 ")) == ("' M8'", "M8", "'m8 '")
    assert pair_text(" M8", "M9") == "' M8' - M9" and _and(["x"]) == "x"
    frame = _table(labeled=120)
    frame["human"] = _rating(frame, 0.7, 1)
    frame["system"] = np.where(np.arange(len(frame)) % 8 == 0, " A", frame["system"])
    path = tmp_path / "spaces.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    block = out.split("labels per system:\n", 1)[1].split("\n\n", 1)[0]
    assert "  ' A'" in block and "names written several ways" in block
    assert main(["estimate", str(path), "--label", "human", "--judge", "judge_*",
                 "--group", "system", "--engine", "freq"]) == 0  # fmt: skip
    table = capsys.readouterr().out.split("mean per 'system'", 1)[1]
    rows = [ln.strip() for ln in table.splitlines()[2:7]]
    assert any(r.startswith("' A' ") for r in rows) and any(r.startswith("A ") for r in rows)


def test_estimate_names_judge_scores_packed_in_text_as_doctor_does(tmp_path, capsys) -> None:
    """A judge column of JSON objects, of lists of runs or of scores a spreadsheet turned
    into dates: ``bacon estimate --judge`` said 'non-numeric value ... Fix the value' (or
    took 5 distinct cells for word levels to map in order); it now says what the column
    holds and the fix, as ``bacon doctor`` does (one check, ``words.packed_cells``)."""
    frame = _table(n=80, labeled=40)
    frame["human"] = _rating(frame, 0.7, 1)
    score = frame["judge_a"].astype(int)
    frame["as_json"] = [f'{{"score": {v}, "reason": "ok"}}' for v in score]
    frame["as_runs"] = [f"[{v}, {v}, {max(v - 1, 1)}]" for v in score]
    frame["as_dates"] = [f"{v:02d}/05/2025" for v in score]
    path = tmp_path / "packed.csv"
    frame.to_csv(path, index=False)
    fixes = {
        "as_json": "lambda v: v['score']",
        "as_runs": "take their mean",
        "as_dates": "scores out of 5",
    }
    for column, fix in fixes.items():
        args = ["estimate", str(path), "--id", "item", "--label", "human", "--judge", column]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert f"judge column {column!r} holds scores packed in text" in err, err
        assert "line 2 (item 1)" in err and fix in err
        assert "Fix the value" not in err and "map them to numbers" not in err


def test_an_error_score_stored_negated_gets_no_lower_is_better_hint(tmp_path, capsys) -> None:
    """Session 42, WMT22 as shipped: MQM stored as minus the penalty (0 no error, below 0
    worse) rises with every quality judge, so higher is better; the name 'mqm' made doctor
    and estimate say "pass --better lower", which would rank the worst system first. The
    same table with the penalty stored positive (judges falling) keeps the hint."""
    rng = np.random.default_rng(4)
    n, systems = 240, {"A": 1.0, "B": 2.0, "C": 4.0}
    err = np.concatenate([mu * rng.uniform(0.2, 1.8, size=n) for mu in systems.values()])
    frame = pd.DataFrame(
        {
            "id": [f"i{k}" for k in range(err.size)],
            "system": np.repeat(list(systems), n),
            "q1": -err + rng.normal(0, 0.5, err.size),
            "q2": -0.5 * err + rng.normal(0, 0.5, err.size),
        }
    )
    labeled = np.arange(err.size) % 4 == 0
    for sign, hinted in ((-1.0, False), (1.0, True)):
        frame["mqm"] = np.where(labeled, sign * err, np.nan)
        path = tmp_path / f"mqm{sign:+.0f}.csv"
        frame.to_csv(path, index=False)
        out, _ = doctor([str(path)], capsys)
        assert ("--better lower" in out) is hinted, out
        args = ["estimate", str(path), "--label", "mqm", "--judge", "q1", "--judge", "q2"]
        assert main([*args, "--group", "system", "--engine", "freq"]) == 0
        printed = capsys.readouterr().out
        assert ("warning: label 'mqm' looks like an error score" in printed) is hinted, printed


def test_a_group_name_with_spaces_around_is_quoted_in_every_sentence(tmp_path, capsys) -> None:
    """Session 46: with systems written ' m22 ' beside 'M22', estimate said "best system
    not clear:  m22  ranks first", "(shown:  m22 's pairs", plan "top group in the pilot
    (highest mean):  m22 " and doctor "none for 1 without labels ( D )": the name read
    as the one without spaces. Each is quoted, as the group tables already were."""
    frame = _table(labeled=40)
    frame["human"] = _rating(frame, 0.5, 1)
    best = frame["system"] == "A"
    frame.loc[best, ["human", "judge_a", "judge_b", "judge_c"]] += 3
    frame["system"] = frame["system"].replace({"A": " a ", "D": " D "})
    frame.loc[frame["system"] == " D ", "human"] = np.nan
    path = tmp_path / "spaces.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "without labels (' D ')" in out, out
    common = [str(path), "--label", "human", "--judge", "judge_*", "--group", "system"]
    assert main(["estimate", *common, "--engine", "freq"]) == 0
    said = capsys.readouterr().out
    assert "best system: ' a ' (rank interval" in said or "not clear: ' a ' ranks" in said, said
    assert main(["plan", *common, "--top", "--budgets", "60", "--designs", "uniform"]) == 0
    assert "top system in the pilot (highest mean): ' a '" in capsys.readouterr().out


def test_a_verdict_column_that_is_the_label_where_labeled_is_a_copy(tmp_path, capsys) -> None:
    """Session 46: TriviaQA's 0/1 verdicts at 2.5% labels (81), with ``final_verdict`` =
    the human verdict where there is one and GPT-4's elsewhere: doctor took it as a judge
    (Spearman 1.00) and put it in the command, whose AEE is GPT-4's raw mean with the
    plus-four floor for an interval. Under 200 labels a good judge may agree with every
    verdict, but not while equal to another judge on the unlabeled rows: a copy."""
    rng = np.random.default_rng(0)
    n = 1200
    truth = (rng.random(n) < 0.6).astype(float)
    frame = pd.DataFrame({"item": np.arange(n), "system": np.tile(["a", "b", "c"], n // 3)})
    for j, e in (("gpt4", 0.1), ("llama", 0.2)):
        frame[j] = np.abs(truth - (rng.random(n) < e))
    labeled = rng.random(n) < 0.05
    frame["human"] = np.where(labeled, truth, np.nan)
    frame["final_verdict"] = np.where(labeled, truth, frame["gpt4"])
    # a judge that matched every label and agrees with gpt4 on 97% of the rest: no copy
    frame["rerun"] = np.where(labeled, truth, np.abs(frame["gpt4"] - (rng.random(n) < 0.03)))
    path = tmp_path / "verdicts.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    line = _left_out(out, "final_verdict")
    assert f"equals the label on all {labeled.sum()} labeled rows" in line
    assert "equal to 'gpt4' on" in line and "final_verdict" not in command
    assert "gpt4" in command and "rerun" in command  # the real judges are no copies


def test_runs_in_a_json_file_are_averaged_by_a_line_that_reads_it_as_bacon_does(
    tmp_path, capsys
) -> None:
    """Walk of session 58: a JSON file whose judge holds a list of its runs per item
    (``"evaluations": {"gpt4": [4, 5, 4]}``) got pandas code to paste that failed on it
    (``json.loads`` of a list; pandas reads no nested objects as bacon does), and "what can
    be computed" said "name one with --judge". The line reads the file with bacon's reader
    and runs; doctor on what it writes takes the mean as a judge."""
    import json

    frame = _table(labeled=100)
    frame["human"] = _rating(frame, 0.7, 1)
    score = frame["judge_a"].astype(int)
    records = [
        {
            "example_id": f"e{k}",
            "system": str(frame["system"].iloc[k]) if "system" in frame else "s",
            "evaluations": {"gpt4": [int(v), int(v), max(int(v) - 1, 1)]},
            **({} if np.isnan(h) else {"human_rating": float(h)}),
        }
        for k, (v, h) in enumerate(zip(score, frame["human"], strict=True))
    ]
    path = tmp_path / "evals.json"
    path.write_text(json.dumps(records))
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "nothing yet: no judge column found; 'evaluations.gpt4': scores packed in text" in out
    run_python_line(_left_out(out, "evaluations.gpt4"), cwd=tmp_path)
    written = pd.read_csv(tmp_path / "evals_scores.csv")
    np.testing.assert_allclose(written["evaluations.gpt4"], (3 * score - (score > 1)) / 3)
    _, command = doctor([str(tmp_path / "evals_scores.csv")], capsys)
    assert command[command.index("--judge") + 1] == "evaluations.gpt4"


def test_labels_written_as_stars_are_found_and_estimated(tmp_path, capsys) -> None:
    """Walk of session 58: labels from a rating widget (``★★★★☆``) were left out as "a
    category, not a prompt", and doctor offered a pilot as if no item were labeled. They
    are the label, read as the filled stars, and the printed estimate runs."""
    frame = _table(labeled=100)
    frame["human"] = _rating(frame, 0.7, 1)
    stars = frame["human"].map(lambda v: None if np.isnan(v) else "★" * int(v) + "☆" * (5 - int(v)))
    path = tmp_path / "stars.csv"
    frame.assign(human=stars).to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert "the filled stars counted" in out and "--label" in command
    assert command[command.index("--label") + 1] == "human"
    assert main([*command, "--engine", "freq"]) == 0


def test_a_long_table_of_aspects_is_pivoted_one_aspect_at_a_time(tmp_path, capsys) -> None:
    """Walk 60: a long table of judges' scores on several aspects (``dimension``:
    relevance, fluency; the human label one per item and aspect) was pivoted with the
    aspect among the judge columns (``gpt4|fluency`` beside ``gpt4|relevance``) and the
    label left to "settle", which differs between an item's rows. Each aspect is a table
    of its own: the line writes the first aspect's, judges by name and the label joined,
    and the doctor it names then prints a command that runs."""
    rng = np.random.default_rng(2)
    rows = []
    for i in range(200):
        for dim in ("relevance", "fluency"):
            t = rng.normal()
            human = np.clip(np.round(3 + t), 1, 5) if rng.random() < 0.25 else np.nan
            for judge in ("gpt4", "llama"):
                score = np.clip(np.round(3 + t + rng.normal(scale=0.8)), 1, 5)
                rows.append((f"d{i}", f"M{i % 5}", dim, judge, score, human))
    columns = ["item_id", "system", "dimension", "judge", "score", "human"]
    path = tmp_path / "long_dims.csv"
    pd.DataFrame(rows, columns=columns).to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "'dimension' names the aspect each row rates (2: 'fluency', 'relevance')" in out
    assert "settle the label" not in out and "gpt4|" not in out, out
    run_python_line(out.split("Pivot it, with pandas: ", 1)[1], tmp_path)
    wide = pd.read_csv(tmp_path / "wide_fluency.csv")
    assert set(wide.columns) == {"item_id", "system", "human", "gpt4", "llama"} and len(wide) == 200
    out, argv = doctor([str(tmp_path / "wide_fluency.csv")], capsys)
    assert argv[:2] == ["estimate", str(tmp_path / "wide_fluency.csv")], argv
    assert main([*argv, "--engine", "freq"]) == 0
