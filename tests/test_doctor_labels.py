"""Which column doctor takes for the labels and which for the judges, on tables nobody
prepared (tester C's findings, session 31): several raters' columns on the same rows, a
constant confidence column beside the verdicts, a real judge on a small pilot, a judge
column that is a copy of the label."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bacon_bayes.cli import main

from .printed import run_python_line
from .test_doctor_messy import doctor, found, section


def _table(n: int = 400, labeled: int = 100, seed: int = 0) -> pd.DataFrame:
    """``n`` items of 4 systems answering ``n // 4`` prompts, a quality ``q`` on 1-5 and
    three judges that see it through noise; ``labeled`` rows keep an expert rating."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(1, 5, n)
    frame = pd.DataFrame(
        {"item": np.arange(1, n + 1), "system": np.array(["A", "B", "C", "D"])[np.arange(n) % 4],
         "prompt": [f"p{k // 4}" for k in range(n)]}
    )  # fmt: skip
    for name, sd in (("judge_a", 0.6), ("judge_b", 0.9), ("judge_c", 1.2)):
        frame[name] = np.clip(np.round(q + rng.normal(0, sd, n)), 1, 5)
    frame.attrs["q"] = q
    frame.attrs["rows"] = rng.choice(n, labeled, replace=False)
    return frame


def _rating(frame: pd.DataFrame, sd: float, seed: int) -> np.ndarray:
    """An expert's 1-5 rating of the labeled rows (NaN elsewhere)."""
    rng = np.random.default_rng(seed)
    q, rows = frame.attrs["q"], frame.attrs["rows"]
    out = np.full(len(frame), np.nan)
    out[rows] = np.clip(np.round(q[rows] + rng.normal(0, sd, rows.size)), 1, 5)
    return out


def test_raters_of_the_same_rows_are_said_with_their_mean_as_the_label(
    tmp_path, capsys, monkeypatch
) -> None:
    """Finding 15: 'rater 1', 'rater 2', 'rater 3' filled on the same rows. doctor took
    rater 1 as the label and offered the others as replacements, never saying they rate
    the same items: the command estimates one rater's mean, not the consensus. Now it
    says so, with their agreement and the line that makes their mean the label (a line
    that runs, then doctor on its file, which takes the mean as the label)."""
    monkeypatch.chdir(tmp_path)
    frame = _table()
    for k in (1, 2, 3):
        frame[f"rater {k}"] = _rating(frame, 0.7, k)
    path = tmp_path / "raters.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["rater"]  # 'rater 1' (split on spaces)
    assert "one of 3 raters of the same items (below)" in out
    can = section(out, "what can be computed")
    assert "rater 1, rater 2 and rater 3 rate the same 100 items: several raters per item" in can
    assert "Krippendorff's interval alpha 0." in can
    assert "The command estimates rater 1's mean rating alone" in can
    assert "df[['rater 1', 'rater 2', 'rater 3']].mean(axis=1)" in can
    assert "another rater of the items rater 1 rates (below)" in out
    assert command[command.index("--label") + 1] == "rater 1"
    flat = " ".join(can.split())
    run_python_line(flat)
    assert "then bacon doctor raters_label.csv" in flat
    out, again = doctor(["raters_label.csv"], capsys)
    assert found(out, "label") == ["label"] and "several raters per item" not in out
    assert again[again.index("--label") + 1] == "label"
    # columns filled on the same rows but named apart are no raters of one quantity
    frame = frame.rename(columns={"rater 2": "difficulty", "rater 3": "fluency"})
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "several raters" not in out and "rater 1 was taken as the label" in out


def test_the_raters_mean_the_recipe_adds_is_taken_as_the_label(tmp_path, capsys) -> None:
    """Finding T1-15: after the user added the mean column the raters' recipe printed,
    doctor still took 'annotator_1' and printed the same recipe again. The column equal
    to the raters' mean on their rows is the label now, the raters named as its parts."""
    frame = _table()
    raters = [f"annotator_{k}" for k in (1, 2, 3)]
    for k, name in enumerate(raters, 1):
        frame[name] = _rating(frame, 0.7, k)
    frame["label"] = frame[raters].mean(axis=1)  # the recipe's pandas line
    path = tmp_path / "with_label.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["label"]
    assert "the mean of the 3 raters annotator_1, annotator_2 and annotator_3" in out
    assert "several raters per item" not in out
    assert command[command.index("--label") + 1] == "label"
    left = next(ln for ln in out.splitlines() if "left out  annotator_2" in ln)
    # B F9: it read "one of the raters whose mean label is;"
    assert "one of the raters whose mean is the label column 'label'; pass --label " in left
    # a column that is not their mean (another rater's) takes nothing from them
    frame["label"] = _rating(frame, 0.7, 9)
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "whose mean" not in out


def test_a_constant_confidence_column_is_not_taken_for_the_label(tmp_path, capsys) -> None:
    """Finding 20: 'human_confidence' (1 on every labeled row) before 'Human-Eval' (the
    0/1 verdicts): doctor took the first, and its command estimated a constant (1.0000
    [1.0000, 1.0000]). A candidate that varies, and that the judges relate to, comes
    first; the constant one is named as such."""
    frame = _table()
    verdict = _rating(frame, 0.7, 1)
    frame.insert(0, "human_confidence", np.where(np.isfinite(verdict), 1.0, np.nan))
    frame["Human-Eval"] = np.where(np.isfinite(verdict), (verdict >= 3).astype(float), np.nan)
    path = tmp_path / "conf.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["Human-Eval"]
    assert command[command.index("--label") + 1] == "Human-Eval"
    left = next(ln for ln in out.splitlines() if "left out  human_confidence" in ln)
    assert "the same value (1) on every one of its 100 rows: a confidence or a flag" in left
    # a varying column filled on the same rows that no judge relates to (a time taken)
    frame["human_confidence"] = np.where(
        np.isfinite(verdict), np.random.default_rng(5).uniform(1, 60, len(frame)), np.nan
    )
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert found(out, "label") == ["Human-Eval"]


def _noise_judge(frame: pd.DataFrame, labels: np.ndarray, below: float) -> np.ndarray:
    """A judge of pure noise on 1-5 whose Spearman with ``labels`` is under ``below``."""
    from bacon_bayes.doctor.relation import label_rho

    for seed in range(100):
        x = np.random.default_rng(seed).integers(1, 6, len(frame)).astype(float)
        rho = label_rho(pd.Series(x), pd.Series(labels))
        if rho is not None and abs(rho) < below:
            return x
    raise AssertionError("no seed gives such a judge")


def test_a_judge_is_called_unrelated_only_when_the_labels_can_tell(tmp_path, capsys) -> None:
    """Finding 17: a fixed |Spearman| < 0.1 cut left out real judges on a 30-label pilot
    (its Spearman's standard error is ~0.18) and called them "unrelated". Now a judge
    under the cut is left out only when its 95% interval excludes moderate correlations
    (0.3); on a pilot it is kept, said with its interval."""
    frame = _table(labeled=30)
    frame["human"] = _rating(frame, 0.7, 1)
    frame["llm_w"] = _noise_judge(frame, frame["human"].to_numpy(), 0.1)
    path = tmp_path / "pilot.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    line = next(ln for ln in out.splitlines() if ln.startswith("  judge     llm_w"))
    assert "no clear relation to the label yet (Spearman " in line
    assert "on 30 labels): kept, more labels will tell" in line
    assert "llm_w" in command
    # on 150 labels the same noise is plainly unrelated: left out, with its interval
    frame = _table(labeled=150)
    frame["human"] = _rating(frame, 0.7, 1)
    frame["llm_w"] = _noise_judge(frame, frame["human"].to_numpy(), 0.05)
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    line = next(ln for ln in out.splitlines() if ln.startswith("  left out  llm_w"))
    assert "unrelated to the label (Spearman" in line and "on 150 labels)" in line
    assert "llm_w" not in command


def test_a_copy_of_the_label_is_named_and_left_out_of_the_command(tmp_path, capsys) -> None:
    """From finding 4: a column equal to the label on every labeled row (a leaked
    reference score) was taken as a judge with no remark, and the interval of the printed
    command collapsed to ~1e-6 wide, missing the truth. doctor names it a copy of the
    label and leaves it out of the command; named with --judge, it warns."""
    frame = _table(labeled=100)
    ratings = [_rating(frame, 0.7, k) for k in (1, 2, 3)]
    full = np.mean(ratings, axis=0)  # the mean of 3 ratings, on the labeled rows
    frame["ref_score"] = np.round(frame.attrs["q"] * 3) / 3
    frame.loc[np.isfinite(full), "ref_score"] = full[np.isfinite(full)]
    frame["relevance"] = full
    path = tmp_path / "leak.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    line = next(ln for ln in out.splitlines() if ln.startswith("  left out  ref_score"))
    mean = f"{frame['ref_score'].mean():.4g}"
    assert "equals the label on all 100 labeled rows: a copy of the label?" in line
    assert f"its mean ({mean}) is exact; left out of the judges and the command" in line
    assert "ref_score" not in command and "judge_*" in command
    out, command = doctor([str(path), "--judge", "judge_*", "--judge", "ref_score"], capsys)
    line = next(ln for ln in out.splitlines() if ln.startswith("  judge     ref_score"))
    assert "--judge; equals the label on all 100" in line and "certainty" in line
    # bacon estimate given it as a judge says so too (its interval is ~1e-6 wide)
    assert main(["estimate", str(path), "--label", "relevance", "--judge", "judge_*",
                 "--judge", "ref_score", "--engine", "freq"]) == 0  # fmt: skip
    note = next(ln for ln in capsys.readouterr().out.splitlines() if "ref_score" in ln)
    assert note.startswith("note: judge 'ref_score' equals the label on all 100")
    assert "leave it out of the judges" in note
    # a good judge that agrees with a 0/1 pilot's 30 verdicts is no copy
    frame["verdict"] = np.where(np.isfinite(full), (full >= 3).astype(float), np.nan)
    frame["judge_v"] = (np.round(frame.attrs["q"] * 3) / 3 >= 3).astype(float)
    frame.loc[np.isfinite(full), "judge_v"] = frame["verdict"]
    frame = frame.drop(columns=["relevance", "ref_score"])
    frame.loc[frame.index[np.isfinite(full)][30:], "verdict"] = np.nan
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert "copy of the label" not in out and "judge_*" in command  # judge_v too
