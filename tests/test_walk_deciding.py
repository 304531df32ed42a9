"""A new user's study walk (issue 41, "Deciding", session 61) on tables the product was
not tuned to: WMT22 zh-en with MQM as an error score (0 = no error, no upper end) and
TriviaQA's model answers judged against reference answers. Small synthetic frames shaped
like them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.doctor.roles import find_roles
from bacon_bayes.readers import TableMeta


def _trivia_table(n_questions: int = 60, reference: str = "references") -> pd.DataFrame:
    """TriviaQA as a user keeps it without the few-shot prompt column: an id, the model,
    the question, the reference answers (several spellings a line) and 0/1 judges."""
    rng = np.random.default_rng(0)
    models = [f"model-{k}" for k in range(4)]
    rows = []
    for q in range(n_questions):
        answers = "\n".join(f"Answer {q} spelling {s}" for s in range(3))
        for m in models:
            correct = rng.random() < 0.7
            rows.append(
                {
                    "id": f"{m}-{q}",
                    "model": m,
                    "question": f"Which trivia question number {q} is asked here?",
                    reference: answers,
                    "judge_a": float(correct if rng.random() < 0.9 else not correct),
                    "judge_b": float(correct if rng.random() < 0.8 else not correct),
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("name", ["references", "reference", "gold", "answer_key"])
def test_a_reference_column_is_never_the_response(name: str) -> None:
    """TriviaQA's `references` (the reference answers) was taken as the response text, the
    only text beside the question: a column named reference(s), gold or answer_key is the
    reference the labellers compare with, not the answer they judge."""
    roles = find_roles(_trivia_table(reference=name), TableMeta("csv"))
    assert name in roles.text
    assert roles.response is None


def test_the_response_beside_a_reference_is_still_the_response() -> None:
    frame = _trivia_table()
    frame["response"] = [f"a model's answer {k}" for k in range(len(frame))]
    roles = find_roles(frame, TableMeta("csv"))
    assert roles.response == "response"


def test_doctor_names_the_reference_as_such(tmp_path, capsys) -> None:
    from bacon_bayes.cli import main

    _trivia_table().to_csv(tmp_path / "trivia.csv", index=False)
    assert main(["doctor", str(tmp_path / "trivia.csv")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("  text "))
    assert "references" in line and "(the reference, not the response)" in line


def _wmt_table(labels: int = 0, ref_scored: bool = False, noise: float = 1.0) -> pd.DataFrame:
    """WMT22 zh-en shaped: five systems (the human reference `refA` among them) over 40
    source segments, reference-based metrics that cannot score `refA` (its own reference),
    and an MQM error score (0 = no error, larger is worse) on the first ``labels`` rows."""
    rng = np.random.default_rng(1)
    systems = ["refA", "Online-B", "M2M100", "JDExplore", "Online-W"]
    rows = []
    for seg in range(40):
        for s in systems:
            mqm = float(rng.choice([0, 0, 1, 2, 5, 10]))
            rows.append(
                {
                    "id": f"{s}_{seg}",
                    "system": s,
                    "source": f"源句子第{seg}号，在这里有一些中文文字。",
                    "hypothesis": f"The translation {seg} of {s} with some words.",
                    "COMET-refA": 0.9 - 0.02 * mqm + rng.normal(0, 0.03 * noise),
                    "chrF-refA": 60 - 2 * mqm + rng.normal(0, 5 * noise),
                    "COMETKiwi-src": 0.8 - 0.02 * mqm + rng.normal(0, 0.04 * noise),
                    "mqm": mqm,
                }
            )
    frame = pd.DataFrame(rows)
    ref = frame["system"] == "refA"
    frame.loc[ref, ["COMET-refA", "chrF-refA"]] = np.nan
    if not ref_scored:
        frame = frame.drop(columns="COMETKiwi-src")
    frame.loc[frame.index >= labels, "mqm"] = np.nan
    return frame


@pytest.mark.parametrize("labels", [0, 60])
def test_doctor_says_drop_unscored_drops_a_system_whole(tmp_path, capsys, labels) -> None:
    """Doctor on WMT22 with reference-based metrics only: refA has no judge score, and
    the printed command carries --drop-unscored without saying, before it, that this
    leaves refA out whole: no mean for it and no comparison with it."""
    from bacon_bayes.cli import main

    _wmt_table(labels).to_csv(tmp_path / "wmt.csv", index=False)
    assert main(["doctor", str(tmp_path / "wmt.csv")]) == 0
    out = capsys.readouterr().out
    said, command = out.split("\nrun", 1)
    assert "--drop-unscored" in command
    assert "every row of system 'refA'" in said
    assert "no 'refA' at all: no mean for it and no comparison with it" in said


def _width_after(looks: np.ndarray, n_items: int, most: int, half: float, total: float) -> float:
    """The pool mean's alpha-spending half-width at one more look of ``total`` labels (the
    fewest-labels check of :func:`~bacon_bayes.study.projection.labels_needed`)."""
    from bacon_bayes.estimate import anytime

    info = anytime.effective_labels(looks, n_items)[None, :]
    grown = np.column_stack([info, [[anytime.effective_labels(total, n_items)]]])
    times = np.minimum(np.append(looks, total) / most, 1.0)
    c_now = anytime.sequential_critical_values(info, 0.05, times=looks / most)[0]
    c_then = anytime.sequential_critical_values(grown, 0.05, times=times)[0]
    return float(half * np.sqrt(info[0, -1] / grown[0, -1]) * c_then / c_now)


def test_more_labels_is_the_projection_not_the_budget_left() -> None:
    """`bacon status --half-width 0.51` at 60 of 300 labels said "about 240 more labels",
    the budget left, wherever 219-240 were needed: between its last two candidate counts
    the projection took the larger critical value for the whole stretch, so a goal met
    there came out at the last candidate, the cap. The count is now the fewest labels
    whose projected width meets the goal."""
    from bacon_bayes.estimate import anytime
    from bacon_bayes.study.projection import labels_needed

    looks, n_items, most, half = np.array([60.0]), 2000, 300, 3.0
    info = anytime.effective_labels(looks, n_items)[None, :]

    def grow(total: float) -> np.ndarray:
        return np.atleast_1d(anytime.effective_labels(total, n_items))

    for more in (200, 235):
        goal = np.array([_width_after(looks, n_items, most, half, 60.0 + more)])
        count = labels_needed(
            looks, info, np.array([0.05]), np.array([half]), goal,
            grow=grow, max_labels=most, cap=240.0,
        )[0]  # fmt: skip
        assert more <= count <= more + 1, (more, count)
    # past the budget (the pool's open items as the cap): the count, its last look
    # spending what is left of the budget as an overrun does
    goal = np.array([_width_after(looks, n_items, most, half, 60.0 + 600)])
    count = labels_needed(
        looks, info, np.array([0.05]), np.array([half]), goal,
        grow=grow, max_labels=most, cap=1940.0,
    )[0]  # fmt: skip
    assert 600 <= count <= 601


def _study_with_wave(tmp_path, capsys, *options: str, noise: float = 1.0) -> str:
    """A WMT22-shaped pool (every system scored by COMETKiwi) and a study of it whose
    uniform first wave of 40 is labeled from the table's MQM."""
    from bacon_bayes.cli import main

    truth = _wmt_table(ref_scored=True, labels=200, noise=noise)
    truth.drop(columns="mqm").to_csv(tmp_path / "wmt.csv", index=False)
    args = ["sample", str(tmp_path / "wmt.csv"), "--label", "mqm", "--item", "id"]
    args += ["--judge", "COMET-refA", "--judge", "chrF-refA", "--judge", "COMETKiwi-src"]
    args += ["--group", "system", "--design", "uniform", "--budget", "40", *options]
    assert main(args) == 0
    study = tmp_path / "wmt.study"
    todo = pd.read_csv(study / "todo-wave1.csv")
    todo["mqm"] = todo["id"].map(truth.set_index("id")["mqm"])
    todo.to_csv(study / "todo-wave1.csv", index=False)
    assert main(["label", "import", str(study / "todo-wave1.csv"), "--study", str(study)]) == 0
    capsys.readouterr()
    return str(study)


def test_status_says_a_count_past_the_budget_as_a_count(tmp_path, capsys) -> None:
    """Past what is left of --max-labels, status said "not within max-labels 80 at the
    current rate": no count, as if none could be projected. It now says the projection and,
    beside it, that it is past the labels left; `sample --until` still draws nothing."""
    from bacon_bayes.cli import main

    study = _study_with_wave(tmp_path, capsys, "--max-labels", "80")
    assert main(["status", study, "--half-width", "0.15"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "pool mean within" in x)
    assert "past the 40 left under --max-labels" in line, line
    count = int(line.split("; about ")[1].split()[0])
    assert count > 40
    assert "not within" not in line
    assert main(["sample", study, "--until", "half-width=0.15"]) == 2
    assert "nothing was drawn" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore::bacon_bayes.errors.PoolWarning")
def test_a_study_records_an_error_scale_open_above(tmp_path, capsys) -> None:
    """MQM (0 = no error, larger is worse, no upper end) in a study started without
    --scale: `bacon estimate STUDY` proposed `bacon estimate STUDY --scale 0:inf`, one
    run's fix that status (which has no --scale) never took, and `bacon sample STUDY
    --scale 0:inf` was refused as another study's setting. The study now records it once
    asked: estimate prints that command, it records the scale and draws nothing, and every
    later read keeps the intervals at 0 or above, as a bounded scale's ends."""
    from bacon_bayes.cli import main
    from bacon_bayes.study import StudyConfig
    from bacon_bayes.study.looks import fit_study

    study = _study_with_wave(tmp_path, capsys, noise=20.0)
    before = fit_study(study).estimate_groups(0.05, True)
    assert (np.asarray(before.ci_low) < 0).any()  # the error score's intervals below 0
    assert main(["estimate", study]) == 0
    out = capsys.readouterr().out
    assert f"run: bacon sample {study} --scale 0:inf (records it in the study" in out
    assert main(["sample", study, "--scale", "0:inf"]) == 0
    assert f"study {study} records scale 0:inf" in capsys.readouterr().out
    assert StudyConfig.read(Path(study)).label_range == (0.0, np.inf)
    assert not (tmp_path / "wmt.study" / "todo-wave2.csv").exists()  # no wave drawn
    after = fit_study(study).estimate_groups(0.05, True)
    assert (np.asarray(after.ci_low) >= 0).all()
    assert main(["status", study]) == 0
    assert "reach past the labels' range" not in capsys.readouterr().out
    # a scale some stored label lies outside is refused, nothing recorded
    assert main(["sample", study, "--scale", "0:inf"]) == 0  # the same again: no clash
    capsys.readouterr()


def test_a_scale_the_labels_break_is_not_recorded(tmp_path, capsys) -> None:
    from bacon_bayes.cli import main
    from bacon_bayes.study import StudyConfig

    study = _study_with_wave(tmp_path, capsys)
    assert main(["sample", study, "--scale", "1:inf"]) == 2
    assert "lie outside it" in capsys.readouterr().err
    assert StudyConfig.read(Path(study)).label_range is None


@pytest.mark.parametrize("name", ["mqm_penalty", "MQM errors", "mqm-points"])
def test_an_mqm_column_by_another_suffix_is_no_judge(name: str) -> None:
    """A WMT22 table with its MQM written as a penalty (`mqm_penalty`: 0 = no error) had it
    among the judges of doctor's printed command, beside the metrics it is the truth of;
    `mqm` and `mqm_score` were already read as a human rating."""
    frame = _wmt_table(labels=200, ref_scored=True).rename(columns={"mqm": name})
    roles = find_roles(frame, TableMeta("csv"))
    assert name not in roles.judges


def test_negative_mqm_into_an_error_scale_study_names_the_sign(tmp_path, capsys) -> None:
    """WMT22's MQM is written negative (0 = no error, -25 a major error); imported into a
    study of the penalty (`--scale 0:inf`) it was refused as "must be between 0 and inf",
    with "fix those rows": every row, and the sign the fix."""
    from bacon_bayes.cli import main

    study = _study_with_wave(tmp_path, capsys, "--scale", "0:inf")
    assert main(["sample", study, "--budget", "20", "--out", str(tmp_path / "w2.csv")]) == 0
    truth = _wmt_table(labels=200, ref_scored=True).set_index("id")["mqm"]
    todo = pd.read_csv(tmp_path / "w2.csv")
    todo["mqm"] = -todo["id"].map(truth)
    todo.to_csv(tmp_path / "w2.csv", index=False)
    capsys.readouterr()
    assert main(["label", "import", str(tmp_path / "w2.csv"), "--study", study]) == 2
    err = capsys.readouterr().err
    assert "(must be 0 or more)" in err
    assert "written with the other sign" in err and "write them negated" in err


@pytest.mark.filterwarnings("ignore::bacon_bayes.errors.PoolWarning")
def test_status_scale_names_the_command_that_records_it(tmp_path, capsys) -> None:
    """`bacon status STUDY --scale 0:inf` (the option estimate took) stopped at argparse's
    "unrecognized arguments": it now names the command that records the scale, and takes
    the study's own."""
    from bacon_bayes.cli import main

    study = _study_with_wave(tmp_path, capsys)
    assert main(["status", study, "--scale", "0:inf"]) == 2
    assert f"bacon sample {study} --scale=0:inf" in capsys.readouterr().err
    assert main(["sample", study, "--scale", "0:inf"]) == 0
    assert main(["status", study, "--scale", "0:inf"]) == 0
    assert main(["status", study, "--scale", "0:20"]) == 2
    assert "status reads the study's scale, 0:inf" in capsys.readouterr().err
