"""Issue 43 on a messy table (:mod:`tests.messy_tables`): the naive baseline only on the
label's scale and never outside its interval; doctor flags failure codes, scores constant
within a group and numeric prompt columns, checks every judge, takes overrides that go
into a command that runs; the scale is inferred and said; short answers get a length unit
that fits; a 0/1 label runs as binary; the pairing note counts the prompts; groups in
natural order."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.doctor import bias
from bacon_bayes.results import Estimate

from .messy_tables import LLM_JUDGES, METRICS, Messy, messy_table
from .tool_fixtures import labels_frame, write_promptfoo

ALL = [*LLM_JUDGES, *METRICS]


def _write(tmp_path: Path, spec: Messy | None = None) -> Path:
    path = tmp_path / "messy.csv"
    messy_table(spec).to_csv(path, index=False)
    return path


def _judges(names: list[str]) -> list[str]:
    return [a for j in names for a in ("--judge", j)]


def doctor(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    """``bacon doctor``'s output and its printed command (without ``bacon``)."""
    assert main(["doctor", *argv]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    return out, shlex.split(lines[lines.index("run:") + 1])[1:]


def found(out: str, role: str) -> list[str]:
    block = out.split("columns found:\n", 1)[1].split("\n\n", 1)[0]  # not the tables below
    return [ln.split()[1] for ln in block.splitlines() if ln.startswith(f"  {role:<9} ")]


def section(out: str, head: str) -> str:
    """The lines of ``out`` from the one starting with ``head`` to the next blank line."""
    lines = out.splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.strip().startswith(head))
    end = next((k for k in range(start, len(lines)) if not lines[k].strip()), len(lines))
    return "\n".join(lines[start:end])


def estimate_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["estimate", *args, "--engine", "freq", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _all_estimates(out: dict) -> list[tuple[float, float, float]]:
    rows = [(e["estimate"], e["ci_low"], e["ci_high"]) for e in out["mean"].values()]
    for t in (out.get("groups") or {}).values():
        rows += [(r["estimate"], r["ci_low"], r["ci_high"]) for r in t.get("rows", [])]
    return rows


# ---------------------------------------------------------------- point 2: the naive baseline
def test_naive_left_out_when_judges_are_on_other_scales(tmp_path, capsys) -> None:
    path = _write(tmp_path)
    base = [str(path), "--label", "human", "--item", "id", *_judges(ALL), "--group", "system"]
    out = estimate_json(base, capsys)
    assert "naive" not in out["mean"] and "naive" not in out["groups"]
    assert "bleu" in out["naive_left_out"] and "1:5" in out["naive_left_out"]
    assert main(["estimate", *base, "--engine", "freq"]) == 0
    text = capsys.readouterr().out
    assert "naive (raw judge avg) left out: not every judge is on the label's scale" in text
    assert "naive (raw judge avg)    " not in text
    # the 1-5 judges without the one writing -1 share the label's scale: shown
    shared = [str(path), "--label", "human", *_judges(["llm_a", "llm_c"])]
    assert "naive" in estimate_json(shared, capsys)["mean"]


def test_no_estimate_outside_its_interval_with_a_scale(tmp_path, capsys) -> None:
    path = _write(tmp_path)
    args = [str(path), "--label", "human", *_judges(ALL), "--group", "system", "--scale", "1:5"]
    for est, lo, hi in _all_estimates(estimate_json(args, capsys)):
        if est is not None and lo is not None:
            assert lo - 1e-12 <= est <= hi + 1e-12, (est, lo, hi)
    # the bug of issue 43: a naive mean of 0.0123 clipped to [1, 1]
    e = Estimate("mean", "naive", 0.0123, 0.001, -0.01, 0.03, 0, 10, 0.05).clip(1, 5)
    assert e.ci_low <= e.estimate <= e.ci_high and e.estimate == 1.0


def test_naive_left_out_rule() -> None:
    from bacon_bayes.scale import naive_left_out

    labels = np.array([1, 1.333333, 2.666667, 4.666667, 5])
    same = pd.DataFrame({"a": [1, 2, 3, 4, 5.0], "b": [2, 3, 3, 5, 4.0]})
    assert naive_left_out(labels, same) == ""
    codes = same.assign(b=[-1, 3, 3, 5, 4.0])
    assert "b" in naive_left_out(labels, codes)
    metric = same.assign(b=[0.1, 0.3, 0.5, 0.7, 0.9])
    assert "b (0:1; 5 scores outside)" in naive_left_out(labels, metric)
    # a streamed table counts the rows it holds in memory, and says so (it read as a total)
    held = naive_left_out(labels, metric, rows="rows held in memory")
    assert "b (0:1; 5 scores outside on the rows held in memory)" in held
    # a 1-5 judge that never says 5 is still on a 1-5 label's scale
    assert naive_left_out(labels, same.assign(b=[1, 2, 3, 4, 4.0])) == ""
    assert naive_left_out(labels, metric, (1.0, 5.0)).startswith("not every judge")
    # an error scale open at one end (WMT22's MQM, --scale=-inf:0): said so, not "no
    # evident scale" beside a scale line that shows one
    open_end = naive_left_out(-labels, metric, (-np.inf, 0.0))
    assert "open at one end (-inf:0)" in open_end and "no evident scale" not in open_end


# ---------------------------------------------------------------- point 3: doctor's checks
def test_doctor_flags_failure_codes_and_constant_reference(tmp_path, capsys) -> None:
    out, _ = doctor([str(_write(tmp_path))], capsys)
    scores = section(out, "the judges' scores")
    assert "llm_b" in scores and "28 scores of -1, outside its 1:5 scale" in scores
    assert "ref_match" in scores and "1 on all 96 items of M3" in scores
    assert not any(j in scores for j in ("llm_a", "llm_c", "chrf", "bleu"))
    from bacon_bayes.scale import sentinel_codes

    codes, scale = sentinel_codes(np.r_[np.tile([1.0, 2, 3, 4, 5], 20), [-1, -1, 99]])
    assert codes == {-1.0: 2, 99.0: 1} and scale is not None and scale.text == "1:5"
    # 0 is a score on a 0-10 judge, not a code
    assert sentinel_codes(np.tile(np.arange(11.0), 5))[0] == {}


def test_a_judge_that_wrote_error_in_a_few_cells_is_named_with_the_fix(tmp_path, capsys) -> None:
    # read as strings, a score column with 'error' cells passed for a category, silently
    frame = messy_table()
    rows = [4, 40, 41]
    frame["llm_c"] = frame["llm_c"].astype(object)
    frame.loc[rows, "llm_c"] = ["error", "error", "timeout"]
    path = tmp_path / "failed.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert "llm_c" not in found(out, "judge") + found(out, "group") + found(out, "prompt")
    left = next(ln for ln in out.splitlines() if re.match(r"  left out +llm_c ", ln))
    assert (
        "scores but for 3 cell(s) of other text ('error', 'timeout'; the first at line 6)" in left
    )
    assert "empty those cells" in left
    assert "llm_c" not in command
    assert main([*command, "--engine", "freq"]) == 0
    capsys.readouterr()
    assert main(["doctor", str(path), "--judge", "llm_c"]) == 2
    err = capsys.readouterr().err
    assert "--judge 'llm_c' holds scores but for 3 cell(s) of other text" in err, err
    # emptied, it is a judge again
    frame.loc[rows, "llm_c"] = np.nan
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "llm_c" in found(out, "judge")


def test_doctor_checks_every_judge_or_says_why(tmp_path, capsys) -> None:
    out, _ = doctor([str(_write(tmp_path))], capsys)
    judges = found(out, "judge")
    assert set(judges) == set(ALL)
    groups = section(out, "system: over-rating")
    lengths = section(out, "response length")
    for j in judges:
        assert f"    {j} " in groups, j
        assert f"    {j} " in lengths, j
    # the error rate falls as the label rises: checked on minus its score, and it says so
    # (it was "not checked: its score does not rise with the label", read as no bias)
    # (at these few labels per system every interval is unbounded: "not settled", not "none")
    assert re.search(r"    ter +(none|not settled)", groups) and "does not rise" not in out
    assert "ter falls as the label rises (a reversed scale?): checked on minus its score" in out


def test_doctor_finds_a_numeric_prompt_column(tmp_path, capsys) -> None:
    out, command = doctor([str(_write(tmp_path))], capsys)
    assert found(out, "prompt") == ["prompt"] and "prompt" not in found(out, "judge")
    assert "96 distinct numbers" in out
    assert command[command.index("--prompt") + 1] == "prompt"
    # named like a prompt id but with no group to check it against: never a judge
    frame = messy_table().drop(columns="system")
    frame.to_csv(tmp_path / "nogroup.csv", index=False)
    out, _ = doctor([str(tmp_path / "nogroup.csv")], capsys)
    assert "prompt" not in found(out, "judge") and "named like a prompt id" in out


def test_doctor_overrides_go_into_a_command_that_runs(tmp_path, capsys) -> None:
    path = _write(tmp_path)
    frame = pd.read_csv(path).rename(columns={"human": "score_h", "system": "arm"})
    frame.to_csv(path, index=False)
    argv = [str(path), "--label", "score_h", "--judge", "llm_a,llm_c"]
    out, command = doctor([*argv, "--group", "arm", "--prompt", "prompt"], capsys)
    assert found(out, "judge") == ["llm_a", "llm_c"]
    assert found(out, "group") == ["arm"] and found(out, "prompt") == ["prompt"]
    for flag, value in (("--label", "score_h"), ("--group", "arm"), ("--prompt", "prompt")):
        assert command[command.index(flag) + 1] == value
    assert _judges(["llm_a", "llm_c"]) == [a for a in command if a in ("--judge", "llm_a", "llm_c")]
    assert main([*command, "--engine", "freq"]) == 0  # the engine only: no NUTS fit here
    assert "mean of 'score_h'" in capsys.readouterr().out
    assert main(["doctor", str(path), "--group", "nope"]) == 2
    assert "--group 'nope' is not a column" in capsys.readouterr().err


def test_doctor_orders_groups_naturally(tmp_path, capsys) -> None:
    out, _ = doctor([str(_write(tmp_path))], capsys)
    table = section(out, "labels per system")
    names = [ln.split()[0] for ln in table.splitlines()[2:]]
    assert names == [f"M{k}" for k in range(1, 12)]


# ---------------------------------------------------------------- point 4: the scale
@pytest.mark.parametrize(
    ("label_scale", "ratings", "expected", "how"),
    [
        ("1-5", 3, "1:5", "means of 3 integer ratings"),
        ("1-5", 1, "1:5", "integer levels"),
        ("0-100", 1, "0:100", "integer levels"),
        ("0-100", 2, "0:100", "means of 2 integer ratings"),
        ("0-1", 4, "0:1", "means of 4 integer ratings"),
    ],
)
def test_doctor_infers_the_scale_and_says_how(
    tmp_path, capsys, label_scale, ratings, expected, how
) -> None:
    spec = Messy(label_scale=label_scale, ratings=ratings, labeled=0.1)
    out, command = doctor([str(_write(tmp_path, spec))], capsys)
    assert command[command.index("--scale") + 1] == expected
    line = next(ln for ln in out.splitlines() if ln.startswith("  scale "))
    assert how in line


def test_estimate_suggests_the_inferred_scale(tmp_path, capsys) -> None:
    path = _write(tmp_path)
    # the shrunk classical means reach past the labels' range (their own means, the
    # default since T1 finding 1, keep a score interval within it)
    assert main(["estimate", str(path), "--label", "human", "--judge", "chrf", "--engine", "freq",
                 "--group", "system", "--pooling", "shrink"]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "--scale 1:5" in text and "means of 3 integer ratings" in text
    assert "1.33333:" not in text


def test_infer_scale_cases() -> None:
    from bacon_bayes.scale import infer_scale

    assert infer_scale(np.array([1.333, 2.0, 4.667])).text == "1:5"  # type: ignore[union-attr]
    assert infer_scale(np.array([2, 3, 4, 5.0])).text == "1:5"  # type: ignore[union-attr]
    assert infer_scale(np.array([0, 1.0])).text == "0:1"  # type: ignore[union-attr]
    assert infer_scale(np.array([0.12, 0.57, 0.93])).text == "0:1"  # type: ignore[union-attr]
    assert infer_scale(np.array([-2.3, 0.4, 1.7])) is None
    assert infer_scale(np.array([3.0, 3.0])) is None


# ---------------------------------------------------------------- point 9: the smaller ones
def test_length_unit_fits_short_answers(tmp_path, capsys) -> None:
    spec = Messy(label_scale="0-1", ratings=3, words=(1, 11), labeled=0.1)
    out, _ = doctor([str(_write(tmp_path, spec))], capsys)
    assert "over-rating in label points per word " in out and "per 100 words" not in out
    assert bias.length_unit(np.arange(20.0, 400.0)) == 100.0
    assert bias.length_unit(np.arange(30.0, 90.0)) == 10.0


def test_a_zero_one_label_runs_as_binary(tmp_path, capsys) -> None:
    spec = Messy(label_scale="0-1", ratings=1, labeled=0.1)
    path = _write(tmp_path, spec)
    out = estimate_json([str(path), "--label", "human", *_judges(["llm_a", "bleu"])], capsys)
    assert out["model"] == "multinomial" and out["pool"]["outcome"] == "categorical"
    assert any("takes only 0 and 1" in n for n in out["pool"]["notes"])
    doc, command = doctor([str(path)], capsys)
    assert "binary (categorical)" in doc and "--scale" not in command


def test_pairing_note_counts_the_prompts(tmp_path, capsys) -> None:
    path = write_promptfoo(tmp_path / "results.json")
    ids = [f"test{t}:openai:model-{p}" for p in range(2) for t in range(0, 30, 2)]
    rng = np.random.default_rng(0)
    labels_frame(ids, rng.random(len(ids))).to_csv(tmp_path / "l.csv", index=False)
    argv = ["estimate", str(path), "--labels", str(tmp_path / "l.csv"), "--label", "human"]
    assert main([*argv, "--engine", "freq"]) == 0
    text = capsys.readouterr().out
    assert "the pool has 30 prompts (column 'test')" in text and "(no prompts" not in text


def test_doctor_prints_no_command_the_labels_are_too_few_for(tmp_path, capsys) -> None:
    """A label column with one value is named as such (it said "a value on most rows");
    with labels on fewer prompts than estimate's 5 folds, doctor says why and prints no
    command (its command failed with exit 2)."""
    frame = messy_table(Messy(systems=4, prompts=17, labeled=0.0))
    frame["human"] = np.nan
    frame.loc[[0], "human"] = 3.0
    frame.to_csv(tmp_path / "one.csv", index=False)
    assert main(["doctor", str(tmp_path / "one.csv")]) == 0
    out = capsys.readouterr().out
    assert "human, named like a label, has 1 value; pass --label NAME" in out
    assert "most rows" not in out and "run:" not in out
    frame.loc[[1, 2, 3, 4], "human"] = [2.0, 4.0, 3.0, 5.0]  # 5 labels on 2 prompts
    frame.to_csv(tmp_path / "few.csv", index=False)
    assert main(["doctor", str(tmp_path / "few.csv")]) == 0
    out = capsys.readouterr().out
    assert "run:" not in out
    assert "5 label(s) are too few for bacon estimate (the labels cover 2 prompt(s)" in out
    command = ["estimate", str(tmp_path / "few.csv"), "--label", "human", "--judge", "llm_a"]
    assert main([*command, "--prompt", "prompt", "--engine", "freq"]) == 2
    assert "the labels cover 2 prompt(s)" in capsys.readouterr().err


def test_a_label_top_level_not_yet_seen_takes_the_judges_top(tmp_path, capsys) -> None:
    """Integer labels 1-4 beside judges on 1-5 (a pilot without a 5): the scale is 1:5,
    said so (it was 1:4, and a study begun with it refused the next wave's 5s); without a
    judge on such a scale it stays 1:4."""
    frame = messy_table(Messy(label_scale="1-5", ratings=1, labeled=0.2))
    frame["human"] = frame["human"].clip(upper=4)
    path = tmp_path / "top.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert "integer levels 1-4, every level seen, and judges score up to 5: taken as 1:5" in out
    assert command[command.index("--scale") + 1] == "1:5"
    out, command = doctor([str(path), "--judge", "chrf", "--judge", "bleu"], capsys)
    assert command[command.index("--scale") + 1] == "1:4"


def test_true_false_columns_with_blanks_and_unscored_rows(tmp_path, capsys) -> None:
    """A verdict table as TriviaQA's judges-of-judges ships it: the human verdict and the
    judges as True/False with blank cells (read as objects), and one model's rows that no
    judge scored and nobody labeled. Doctor found no label and no judge, and its command
    (once named) failed on the unscored rows; now both are read as 0/1, the label runs as
    binary, and the printed command leaves the empty rows out, says so, and runs; so does
    the option with the judges' scores in a separate long table (it was refused there)."""
    rng = np.random.default_rng(3)
    n, models = 700, np.repeat([f"model{k}" for k in range(7)], 100)
    truth = rng.random(n) < np.repeat(np.linspace(0.4, 0.9, 7), 100)
    blank = models == "model6"
    cols = {"question": np.tile(np.arange(100), 7), "model": models}
    labeled = (rng.random(n) < 0.2) & ~blank
    cols["human"] = [bool(t) if lab else None for t, lab in zip(truth, labeled, strict=True)]
    for j, flip in (("judge_a", 0.1), ("judge_b", 0.25)):
        said = truth ^ (rng.random(n) < flip)
        cols[j] = [None if b else bool(v) for v, b in zip(said, blank, strict=True)]
    path = tmp_path / "verdicts.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    assert pd.read_csv(path)["human"].dtype == object  # True/False with blanks
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["human"] and found(out, "judge") == ["judge_a", "judge_b"]
    assert "100 row(s) have no judge score and no label (model model6: 100)" in out
    assert "binary (categorical)" in out and command[-1] == "--drop-unscored"
    result = estimate_json(command[1:], capsys)
    assert result["pool"]["outcome"] == "categorical"
    assert any("left out 100 row(s)" in note for note in result["pool"]["notes"])
    # without the option the rows stay in: the naive baseline, undefined on them, is left
    # out with the reason and the option (it failed the whole command)
    assert main(["estimate", *command[1:-1], "--engine", "freq"]) == 0
    said = capsys.readouterr().out
    assert "naive (raw judge avg) left out: 100 row(s) have no judge score at all" in said
    assert "--drop-unscored" in said
    # judge scores from a long table: the option matches them to the rows by item (the
    # table's index when no --item, else the named column) and gives the same estimates
    frame = pd.read_csv(path)
    long = frame.reset_index(names="id").melt(
        id_vars="id", value_vars=["judge_a", "judge_b"], var_name="judge", value_name="score"
    )
    long = long.rename(columns={"id": "item"}).dropna()
    long["score"] = long["score"].astype(float)
    frame.drop(columns=["judge_a", "judge_b"]).reset_index(names="id").to_csv(path, index=False)
    long.to_csv(tmp_path / "scores.csv", index=False)
    scores = ["--scores", str(tmp_path / "scores.csv"), "--drop-unscored"]
    for item in ([], ["--item", "id"]):
        argv = [str(path), "--label", "human", "--group", "model", "--prompt", "question"]
        again = estimate_json([*argv, *scores, *item], capsys)
        assert any("left out 100 row(s)" in note for note in again["pool"]["notes"])
        assert np.ravel(_all_estimates(again)) == pytest.approx(np.ravel(_all_estimates(result)))
    # the long table's id column named as --item names (it had to be called 'item')
    long.rename(columns={"item": "id"}).to_csv(tmp_path / "scores.csv", index=False)
    again = estimate_json([*argv, *scores, "--item", "id"], capsys)
    assert np.ravel(_all_estimates(again)) == pytest.approx(np.ravel(_all_estimates(result)))


def test_verdict_words_are_read_as_zero_one_and_said(tmp_path, capsys) -> None:
    """A verdict table written in words (the human's and the judges' 'correct' /
    'incorrect', any case, blanks where unlabeled): doctor found no label and no judge
    (it took each column for a category); now each is read as 1 / 0, doctor says how, and
    its command runs as binary. A judge of 'yes' / 'no' that wrote 'error' in two cells is
    left out with the cells and the fix, and estimate names the first of them."""
    rng = np.random.default_rng(5)
    n = 400
    truth = rng.random(n) < 0.6
    word = np.array(["Incorrect", "correct "])
    frame = pd.DataFrame(
        {
            "question": np.repeat(np.arange(100), 4),
            "model": np.tile(list("abcd"), 100),
            "judge_a": word[(truth ^ (rng.random(n) < 0.1)).astype(int)],
            "judge_b": np.where(truth ^ (rng.random(n) < 0.2), "yes", "no"),
            "human": np.where(rng.random(n) < 0.2, word[truth.astype(int)], None),
        }
    )
    frame.loc[[3, 50], "judge_b"] = "error"
    path = tmp_path / "words.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["human"] and found(out, "judge") == ["judge_a"]
    said = "read from words, 'correct' = 1, 'incorrect' = 0"
    block = out.split("columns found:\n", 1)[1].split("\n\n", 1)[0]
    assert all(said in ln for ln in block.splitlines() if re.match(r"  (label|judge) ", ln))
    left = next(ln for ln in out.splitlines() if re.match(r"  left out +judge_b ", ln))
    assert "scores but for 2 cell(s) of other text ('error'; the first at line 5)" in left
    result = estimate_json(command[1:], capsys)
    assert result["pool"]["outcome"] == "categorical"
    labeled = frame["human"].notna()
    assert result["mean"]["classical"]["estimate"] == pytest.approx(truth[labeled].mean())
    assert main(["estimate", *command[1:], "--judge", "judge_b", "--engine", "freq"]) == 2
    err = capsys.readouterr().err
    assert "judge column 'judge_b' has a non-numeric value 'error' at line 5 (item" in err, err


def _label_left_out(tmp_path, frame: pd.DataFrame, label: str, capsys) -> tuple[Path, str]:
    """Doctor on ``frame`` written as a CSV: the file, and the line leaving out ``label``,
    which doctor must name as the label column it could not take."""
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"none: {label!r} holds labels but for text cells" in out
    return path, next(ln for ln in out.splitlines() if re.match(rf"  left out +{label} ", ln))


def test_a_label_column_with_a_few_text_cells_is_named_with_the_fix(tmp_path, capsys) -> None:
    """A human who wrote 'unsure' in two cells: doctor found no label and called the column
    a judge's failures, and `doctor --label human` crashed with a traceback (ValueError).
    Now both say it is the label, which cells and the fix."""
    frame = messy_table()
    labeled = np.flatnonzero(frame["human"].notna())
    frame["human"] = frame["human"].astype(object)
    frame.loc[labeled[:2], "human"] = "unsure"
    path, left = _label_left_out(tmp_path, frame, "human", capsys)
    line = labeled[0] + 2
    assert f"2 cell(s) of other text ('unsure'; the first at line {line}): labels?" in left
    assert main(["doctor", str(path), "--label", "human"]) == 2
    err = capsys.readouterr().err
    assert "--label 'human' holds labels but for 2 cell(s)" in err and "Traceback" not in err


def test_a_label_column_s_unknown_marks_are_emptied_by_a_line_that_runs(
    tmp_path, capsys, monkeypatch
) -> None:
    """Walk of session 59: labels with '?' where nobody labeled (pandas reads no '?' as
    empty) got the fix in words only, while a judge's failure cells got a line. One
    line empties both; doctor on the file it writes prints the estimate command."""
    from .printed import run_python_line

    monkeypatch.chdir(tmp_path)
    frame = messy_table()
    unlabeled = np.flatnonzero(frame["human"].isna())
    frame["human"] = frame["human"].astype(object)
    frame.loc[unlabeled[::2], "human"] = "?"
    judge = LLM_JUDGES[0]
    frame[judge] = frame[judge].astype(object)
    frame.loc[[3, 8], judge] = "error"
    frame.to_csv("table.csv", index=False)
    assert main(["doctor", "table.csv"]) == 0
    can = section(capsys.readouterr().out, "what can be computed")
    assert "write each item's label in them: " in can and "for the command" not in can, can
    code = run_python_line(" ".join(can.split()))
    assert "'human'" in code and repr(judge) in code
    assert main(["doctor", "table_scores.csv"]) == 0
    out = capsys.readouterr().out
    run = out.split("\nrun:\n", 1)[1].split()
    assert run[run.index("--label") + 1] == "human" and judge in run, out


def test_the_summary_names_the_label_column_and_its_text_cells(tmp_path, capsys) -> None:
    """One 'unsure' cell in a yes/no label column: the summary said "no human labels: pass
    them with --labels FILE" although the column is there and one cell is bad. It names
    the column, each bad cell (where, value) and the fix."""
    frame = messy_table()
    labeled = np.flatnonzero(frame["human"].notna())
    frame["human"] = frame["human"].astype(object)
    frame.loc[labeled[3], "human"] = "unsure"
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    can = section(capsys.readouterr().out, "what can be computed")
    assert "no human labels" not in can and "--labels FILE" not in can
    assert (
        f"the label column 'human' holds labels but for 'unsure' at line {labeled[3] + 2}: "
        "empty those cells (an item nobody labeled) or write each item's label in them" in can
    )
    from bacon_bayes.doctor.cells import listed_cells  # the first 3, then a count

    cells = pd.DataFrame({"h": ["1", "x", "2", "y", "z", "w"]})
    assert listed_cells(cells, "h", "parquet") == (
        "'x' at row 1, 'y' at row 3, 'z' at row 4 and 1 more (rows counted from 0)"
    )  # from 0, as bacon estimate counts a Parquet file's rows


def test_a_placeholder_on_every_unlabeled_row_is_named_with_the_fix(tmp_path, capsys) -> None:
    """'?' written on every unlabeled row (most rows): the column read as 3 distinct strings
    and doctor found no label. It is named as the label column with the placeholder's cells
    and the fix, under any name. ('-' is an empty cell, as 'n/a' is: test_doctor_cells.py.)"""
    frame = messy_table().rename(columns={"human": "score_h"})
    frame["score_h"] = frame["score_h"].astype(object).where(frame["score_h"].notna(), "?")
    _, left = _label_left_out(tmp_path, frame, "score_h", capsys)
    unlabeled = int((frame["score_h"] == "?").sum())
    assert f"{unlabeled} cell(s) of other text ('?'; the first at line" in left
    assert "labels? Not taken as the label" in left


def test_every_column_gets_a_part_or_a_reason(tmp_path, capsys) -> None:
    """A judge's percentages written as text ('85%') and a column of free notes played no
    part in doctor's output and were not named at all; now every column of the table has
    a line (its part, or why it has none); percentages are read as the number written
    (tester C's finding 9), and said."""
    frame = messy_table()
    rng = np.random.default_rng(6)
    frame["llm_pct"] = [f"{v:.0f}%" for v in 100 * frame.attrs["quality"]]
    frame["note"] = rng.choice([f"batch {k}" for k in range(80)], len(frame))
    frame["blank"] = None
    path = tmp_path / "pct.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    block = out.split("columns found:\n", 1)[1].split("\n\n", 1)[0]
    named = {
        ln.split()[2] if ln.startswith("  left out") else ln.split()[1] for ln in block.splitlines()
    }
    assert set(frame.columns) <= named, set(frame.columns) - named
    left = {ln.split()[2]: ln for ln in block.splitlines() if ln.startswith("  left out")}
    pct = next(ln for ln in block.splitlines() if ln.split()[:2] == ["judge", "llm_pct"])
    assert "read as numbers, the percent sign dropped ('" in pct
    assert "80 distinct string(s)" in left["note"] and "empty" in left["blank"]


def test_verdict_words_only_as_one_whole_pair() -> None:
    """A column is read as 1 / 0 only when every filled cell is one pair's word."""
    from bacon_bayes.words import bools_as_floats

    frame = pd.DataFrame(
        {
            "v": [" Pass", "FAIL", None, "pass"],
            "mixed": ["yes", "no", "correct", None],  # two pairs: words
            "other": ["yes", "no", "maybe", "yes"],  # a third answer: a category
            "group": ["good", "bad", "ugly", "good"],
        }
    )
    read = bools_as_floats(frame)
    assert read["v"].tolist()[:2] == [1.0, 0.0] and np.isnan(read["v"][2]) and read["v"][3] == 1
    for col in ("mixed", "other", "group"):
        assert read[col].tolist() == frame[col].tolist(), col
    assert read.attrs["verdicts"] == {"v": "read from words, 'pass' = 1, 'fail' = 0"}


def test_items_per_group_are_those_the_command_keeps(tmp_path, capsys) -> None:
    """TriviaQA's gpt-4t has 800 rows, 400 of them with no judge score and no label:
    doctor's labels-per-model table counted 800 items while its command (with
    ``--drop-unscored``) estimates from 400; it now counts the rows the command keeps and
    says how many it leaves out, and the counts are the estimate's."""
    rng = np.random.default_rng(4)
    models = np.repeat(["big", "small", "tiny"], [200, 100, 100])
    n = models.size
    truth = rng.random(n) < 0.6
    blank = (models == "big") & (np.arange(n) % 2 == 0)  # half of big's rows
    labeled = (rng.random(n) < 0.25) & ~blank
    cols = {"question": np.arange(n) % 100, "model": models}
    cols["human"] = np.where(labeled, truth.astype(float), np.nan)
    for j, flip in (("judge_a", 0.1), ("judge_b", 0.2)):
        cols[j] = np.where(blank, np.nan, (truth ^ (rng.random(n) < flip)).astype(float))
    path = tmp_path / "verdicts.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    table = section(out, "labels per model").splitlines()[2:]
    items = {ln.split()[0]: int(ln.split()[1]) for ln in table if not ln.strip().startswith("(")}
    assert items == {"big": 100, "small": 100, "tiny": 100}
    assert "100 without a judge score or a label left out, --drop-unscored" in out
    result = estimate_json([*command[1:], "--engine", "freq"], capsys)
    rows = result["groups"]["aee"]["rows"]
    assert {r["name"]: r["n_items"] for r in rows} == items


def test_estimate_names_the_csv_line_past_a_title_and_rows_left_out(tmp_path, capsys):
    """A spreadsheet export (a title and a blank line above the header) whose first rows
    no judge scored, read with --drop-unscored, and a label that is not a number further
    down: the message names the file's line of that cell, as doctor does, not the
    position among the rows kept (it said 'row 3', which is line 10 of the file)."""
    frame = pd.DataFrame(
        {
            "id": [f"it{i}" for i in range(8)],
            "judge": [None, None, None, 0.2, 0.4, 0.6, 0.8, 0.5],
            "human": [1.0, None, 0.0, 1.0, None, None, "n/a?", None],
        }
    )
    path = tmp_path / "export.csv"
    path.write_text("Judge scores, exported 2026-11-30\n\n" + frame.to_csv(index=False))
    argv = ["estimate", str(path), "--label", "human", "--judge", "judge", "--item", "id"]
    assert main([*argv, "--drop-unscored", "--engine", "freq"]) == 2
    err = capsys.readouterr().err
    # the header is line 3; it6 is the table's row 6, so line 3 + 1 + 6 = 10
    assert "'n/a?' at line 10 (item 'it6')" in err, err
