"""Tester D's findings on pairwise preferences (session 37): the order of the JSON
strengths, tiers out of strength order said, --budget 0, and the other checks below."""

from __future__ import annotations

import json

from .test_pairwise_cli import FREQ, SAMPLE, _run


def test_json_strengths_strongest_first_and_tiers_out_of_order_said(capsys):
    """Finding 6: `strengths` came in table order (RWKV first, gpt-4 10th); finding 2:
    tier 1 held models ranked below tier 2's leader without a word."""
    code, out, err = _run(["estimate", SAMPLE, "--pairwise", *FREQ, "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    rows = doc["strengths"]
    assert rows[0]["name"] == "gpt-4"
    shown = [r["estimate"] for r in rows if r["ci_low"] is not None]
    assert shown == sorted(shown, reverse=True)
    est = {r["name"]: r["estimate"] for r in rows}
    tiers = doc["tiers"]
    out_of_order = [
        k for k in range(1, len(tiers))
        if any(est[n] < est[tiers[k][0]] for t in tiers[:k] for n in t)
    ]  # fmt: skip
    assert out_of_order  # on the sample: koala-13b leads tier 2 above three of tier 1
    for k in out_of_order:
        lead = tiers[k][0]
        assert any(f"tier {k + 1}'s leader {lead} has a higher strength" in n
                   for n in doc["notes"]), doc["notes"]  # fmt: skip


def test_budget_zero_is_not_called_missing(capsys, tmp_path):
    """Finding 7: --budget 0 said "--pairwise needs --budget N" though it was given."""
    argv = ["sample", SAMPLE, "--pairwise", "--design", "uniform", "--budget", "0", *FREQ,
            "--out", str(tmp_path / "zero.csv")]  # fmt: skip
    code, _, err = _run(argv, capsys)
    assert code == 2 and "--budget 0: give a positive number" in err, err


def test_judges_on_comparisons_says_it_does_not_take_them(capsys):
    """Finding 4: `bacon judges` on comparisons said "fix the value 'A'" of a valid vote."""
    code, _, err = _run(["judges", SAMPLE, "--label", "label", "--judge", "gpt4"], capsys)
    assert code == 2, err
    assert "holds comparisons" in err and "bacon doctor" in err and "Fix the value" not in err


def test_verdict_words_model_a_model_b_name_their_columns():
    """Finding 3: with --model-a model_b --model-b model_a, a verdict "model_a" was read as
    A (the column passed as model B) and the ranking silently reversed."""
    import numpy as np
    import pandas as pd
    import pytest

    from bacon_bayes.errors import ValidationError
    from bacon_bayes.pairs import pairs_frame

    df = pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "z", "z"],
                       "label": ["model_a", "model_b", "tie"],
                       "j": ["model_b", "model_a", "tie"]})  # fmt: skip
    kw = {"label": "label", "judges": ["j"]}
    right, pr, _ = pairs_frame(df, model_a="model_a", model_b="model_b", **kw)
    swapped, ps, _ = pairs_frame(df, model_a="model_b", model_b="model_a", **kw)
    assert right["__label"].tolist() == [1.0, 0.0, 0.5]
    assert swapped["__label"].tolist() == [0.0, 1.0, 0.5]  # "model_a" is the B column now
    assert swapped["j"].tolist() == [1.0, 0.0, 0.5]
    assert np.array_equal(pr.a, ps.b) and np.array_equal(pr.b, ps.a)
    other = df.rename(columns={"model_b": "right"})
    with pytest.raises(ValidationError, match="names the column 'model_b'"):
        pairs_frame(other, model_a="model_a", model_b="right", **kw)


def test_a_copy_of_the_vote_under_another_name_is_left_out_of_the_judges(capsys, tmp_path):
    """Finding 8: `human_full` renamed `reference` was taken as a judge by estimate
    (intervals 3x too narrow, exit 0, only a note); now left out, with the reason."""
    import pandas as pd

    df = pd.read_csv(SAMPLE).rename(columns={"human_full": "reference"})
    path = tmp_path / "ref.csv"
    df.to_csv(path, index=False)
    code, out, err = _run(["estimate", str(path), "--pairwise", *FREQ], capsys)
    assert code == 0, err
    first = out.splitlines()[0]
    assert "judges" in first and "reference" not in first, first
    assert "judge 'reference' equals the label" in out and "left out of the judges" in out


def test_arena_hard_verdicts_are_read(capsys, tmp_path):
    """Finding 5: a judge column of A>B / B>A / A=B (Arena-Hard's scale) was left out by
    doctor and estimate without a word; it is read as A / B / tie (A>>B a win)."""
    import pandas as pd

    from bacon_bayes.readers.pairwise import to_verdict

    assert [to_verdict(v) for v in ("A>>B", "[[A>B]]", "A=B", "B>A", "b>>a")] == [
        "A", "A", "tie", "B", "B"]  # fmt: skip
    df = pd.read_csv(SAMPLE)
    df["gpt4"] = df["gpt4"].map({"A": "A>B", "B": "B>>A", "tie": "A=B"})
    path = tmp_path / "hard.csv"
    df.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path)], capsys)
    assert code == 0 and "judges: gpt4" in out, err
    code, out, err = _run(["estimate", str(path), "--pairwise", *FREQ], capsys)
    assert code == 0, err
    assert "judges gpt4" in out.splitlines()[0]


def test_doctor_reads_verdict_words_by_the_column_they_name(tmp_path, capsys):
    """bacon doctor's per-judge diagnostics read the verdict words model_a / model_b by
    position when --model-a model_b --model-b model_a were passed, while estimate reads
    them by the column they name: doctor said a position bias of +0.50 for the humans
    where the A column (model_b) won 1 in 4 comparisons (-0.50). Now it agrees, and
    refuses a word naming a column that is neither model, as estimate does."""
    import numpy as np
    import pandas as pd
    import pytest

    from bacon_bayes.doctor.pairs import pair_judge_diagnostics
    from bacon_bayes.errors import ValidationError

    words = ["model_a", "model_a", "model_a", "model_b"] * 10
    df = pd.DataFrame({"id": range(40), "model_a": ["x", "y"] * 20, "model_b": ["z", "w"] * 20,
                       "label": words, "j": words[1:] + words[:1]})  # fmt: skip
    kw = {"label": "label", "judges": ["j"]}
    right = pair_judge_diagnostics(df, **kw, models=("model_a", "model_b"))
    swapped = pair_judge_diagnostics(df, **kw, models=("model_b", "model_a"))
    assert right["position_bias"].tolist() == pytest.approx([0.5, 0.5])
    assert swapped["position_bias"].tolist() == pytest.approx([-0.5, -0.5])
    assert np.allclose(swapped["kappa"][1:], right["kappa"][1:])
    path = tmp_path / "pairs.csv"
    df.to_csv(path, index=False)
    code, out, err = _run(["doctor", str(path), "--model-a", "model_b", "--model-b", "model_a"],
                          capsys)  # fmt: skip
    assert code == 0, err
    human = next(line for line in out.splitlines() if line.strip().startswith("label (human)"))
    assert "-0.500" in human, out
    with pytest.raises(ValidationError, match="names the column 'model_b'"):
        pair_judge_diagnostics(df.rename(columns={"model_b": "right"}), **kw,
                               models=("model_a", "right"))  # fmt: skip
