"""``bacon judges``: errors in the fast suite, a real fit under ``make validate``."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main


def test_missing_file_is_a_clean_error(tmp_path, capsys):
    code = main(["judges", str(tmp_path / "none.csv"), "--label", "y", "--judges", "a"])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--level", "1.5"], "--level must be between 0 and 1 (e.g. 0.9), got 1.5"),
        (["--draws", "0"], "--draws must be a positive whole number (e.g. 500), got 0"),
    ],
)
def test_bad_level_or_draws_stop_before_the_fit(tmp_path, capsys, monkeypatch, option, said):
    """Tester B finding 6: checked before the table is read and the model fitted (the
    level was refused only after a full NUTS fit; --draws 0 ended in a traceback)."""
    import bacon_bayes.bayes.workflow as workflow

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted before checking the options")

    monkeypatch.setattr(workflow, "fit_pool", no_fit)
    df = pd.DataFrame({"y": [1.0, 2.0, np.nan, 3.0], "a": [1.0, 2.0, 3.0, 4.0]})
    df.to_csv(tmp_path / "t.csv", index=False)
    code = main(["judges", str(tmp_path / "t.csv"), "--label", "y", "--judge", "a", *option])
    assert code == 2 and said in capsys.readouterr().err


def _labels(kind: str, n: int = 60) -> np.ndarray:
    rng = np.random.default_rng(0)
    if kind == "mqm":  # error scores: most segments 0, the rest fractional up to 25
        return np.where(rng.random(n) < 0.4, 0.0, np.round(rng.gamma(1.5, 3.0, n), 1))
    if kind == "means":  # means of three 1-5 ratings
        return np.round(rng.integers(1, 6, (n, 3)).mean(axis=1), 4)
    if kind == "likert":
        return rng.integers(1, 6, n).astype(float)
    return rng.integers(0, 2, n).astype(float)


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("mqm", "hurdle model (nonnegative label 'y'): the labels are non-negative"),
        ("means", "gaussian model (continuous label 'y'): the labels take"),
        ("likert", "ordinal model (ordinal label 'y', 5 levels: 1, 2, 3, 4, 5): the labels are"),
        ("binary", "multinomial model (categorical label 'y', 2 levels: 0, 1): the labels are"),
    ],
)
def test_judges_says_which_model_it_fits_and_chooses_it_from_the_labels(
    kind, words, tmp_path, capsys, monkeypatch
):
    """Tester B finding 11 (second part): without --outcome, ``bacon judges`` fitted an
    ordinal model with a level per label value seen (33 on MQM error scores, 13 on means
    of ratings) and said nothing of it. (The fit is stubbed: the line comes before it.)"""
    from bacon_bayes.cli import judges

    fitted = []
    monkeypatch.setattr(judges, "_fit", lambda args, pool, *rest: fitted.append(pool) or 0)
    y = _labels(kind)
    frame = pd.DataFrame({"y": np.r_[y, [np.nan] * 20], "a": np.arange(80.0)})
    frame.to_csv(tmp_path / "t.csv", index=False)
    argv = ["judges", str(tmp_path / "t.csv"), "--label", "y", "--judge", "a"]
    argv += ["--plot", str(tmp_path / "bias.png")]
    code = main(argv)
    first = capsys.readouterr().out.splitlines()[0]
    assert code == 0 and first.startswith(words), first
    assert "pass --outcome (and --levels) to choose another" in first
    code = main([*argv, "--outcome", "continuous"])
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "gaussian model (continuous label 'y'), as --outcome says"
    assert [p.outcome.kind for p in fitted][1] == "continuous"


@pytest.mark.slow
def test_judges_prints_table_and_writes_plot(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    q = rng.normal(3, 1, n)
    df = pd.DataFrame(
        {
            "y": np.where(np.arange(n) < 120, np.clip(np.round(q), 1, 5), np.nan),
            "a": 1.0 + 0.8 * q + rng.normal(0, 0.5, n),
            "b": -2.0 + 1.5 * q + rng.normal(0, 0.8, n),
        }
    )
    df.to_csv(tmp_path / "t.csv", index=False)
    plot = tmp_path / "bias.png"
    code = main(
        [
            "judges",
            str(tmp_path / "t.csv"),
            "--label",
            "y",
            "--judges",
            "a",
            "b",
            "--plot",
            str(plot),
            "--draws",
            "300",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and plot.exists()
    assert "offset" in out and "noise_human" in out
    lines = [line.split() for line in out.splitlines()]
    header = next(r for r in lines if r[:1] == ["judge"])
    rows = {r[0]: r for r in lines if r[:1] in (["a"], ["b"])}
    col = header.index("scale")  # columns by name: the table leads with the bias
    # the human-scale mapping divides both scales alike: their ratio is 1.5 / 0.8
    ratio = float(rows["b"][col]) / float(rows["a"][col])
    assert ratio == pytest.approx(1.5 / 0.8, rel=0.25)


def test_bias_only_for_judges_on_the_labels_scale(tmp_path, capsys, monkeypatch):
    """Tester D finding 11: ``bacon judges`` printed and plotted a bias of +58 for a 0-100
    judge against a 1-5 label; as ``Calibrator.judge_bias``, bias is blank off the scale."""
    from bacon_bayes.bayes import bias, workflow

    rng = np.random.default_rng(0)
    q = rng.uniform(1, 5, 300)
    pd.DataFrame(
        {"y": np.where(np.arange(300) < 60, np.round(q), np.nan), "on": q + 0.3, "pct": 25 * q}
    ).to_csv(tmp_path / "t.csv", index=False)
    stub = pd.DataFrame(
        {"judge": ["on", "pct"], "bias": [1.0, 57.8], "bias_low": [0.9, 56.9],
         "bias_high": [1.1, 58.8], "offset": [1.0, 0.0], "scale": [1.0, 25.0]}
    )  # fmt: skip
    plotted = []
    monkeypatch.setattr(workflow, "fit_pool", lambda pool, **kw: SimpleNamespace(diagnostics_=None))
    monkeypatch.setattr(bias, "judge_bias", lambda model, level: stub)
    monkeypatch.setattr(bias, "forest_plot", lambda table, path: plotted.append(table))
    args = ["judges", str(tmp_path / "t.csv"), "--label", "y", "--judge", "on", "--judge", "pct",
            "--outcome", "continuous", "--plot", str(tmp_path / "b.png")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "57.8" not in out and "missing judge scores" not in out
    # the level is said (helper W14: 90% here, beside estimate's 95%, said nowhere)
    assert "_low - _high: 90% intervals (--level), each judge's on its own" in out
    assert "the report's judge-bias table pools the cross-fitting folds' models" in out
    assert main([*args, "--level", "0.8", "--force"]) == 0
    assert "_low - _high: 80% intervals (--level)" in capsys.readouterr().out
    table = plotted[0]
    assert table["same_scale"].tolist() == [True, False]
    assert table["bias"].iloc[0] == 1.0
    assert table[["bias", "bias_low", "bias_high"]].iloc[1].isna().all()


def test_scale_gives_a_bias_to_judges_on_the_full_scale_and_a_note_without_it(
    tmp_path, capsys, monkeypatch
):
    """Tester B finding 5 (round 36): README's ``bacon judges`` on the example pool gave
    gpt4 and gpt35 (1-5 judges on a 1-5 label) no bias and no word why: the label's range
    was the labels seen (1.667-5), and the command had no --scale. (The fit is stubbed.)"""
    from pathlib import Path

    import bacon_bayes
    from bacon_bayes.bayes import bias, workflow

    judges = ["gpt4", "gpt35", "llama70b"]
    stub = pd.DataFrame(
        {"judge": judges, "bias": [0.95, -0.02, 0.22], "bias_low": [0.85, -0.12, 0.12],
         "bias_high": [1.05, 0.08, 0.32]}
    )  # fmt: skip
    plotted = []
    monkeypatch.setattr(workflow, "fit_pool", lambda pool, **kw: SimpleNamespace(diagnostics_=None))
    monkeypatch.setattr(bias, "judge_bias", lambda model, level: stub)
    monkeypatch.setattr(bias, "forest_plot", lambda table, path: plotted.append(table))
    pool = Path(bacon_bayes.__file__).parent / "data" / "example_pool.csv"
    args = ["judges", str(pool), "--label", "human", "--judge", "gpt4,gpt35,llama70b",
            "--outcome", "continuous", "--plot", str(tmp_path / "b.png")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert plotted[-1]["same_scale"].tolist() == [False, False, True]
    assert "note: gpt4: no bias: its scores (1 to 5, 1st-99th percentile) are not on the " \
        "label's range 1.667:5 (the labels seen" in out  # fmt: skip
    assert "give it as --scale LOW:HIGH" in out
    assert main([*args, "--scale", "1:5", "--force"]) == 0
    out = capsys.readouterr().out
    assert plotted[-1]["same_scale"].all() and "no bias" not in out
    assert plotted[-1].set_index("judge").loc["gpt4", "bias"] == 0.95
    # labels outside --scale are refused before the fit, naming the first
    assert main([*args, "--scale", "2:5", "--force"]) == 2
    assert "outside the scale 2:5" in capsys.readouterr().err


def test_labels_on_two_of_the_judges_five_levels_name_the_levels_to_declare(
    tmp_path, capsys, monkeypatch
):
    """Helper W14: SummEval coherence labels of 4 and 5 only (41), judges on 1-5. `bacon
    judges` fitted an ordinal model of the two levels and said of every judge "not on the
    label's range 4:5 (its scale)", naming no fix; `bacon estimate --outcome ordinal` said
    "--levels 4,5 ... declares them", the levels it had already. Both now say that only 2
    of the judges' 5 levels have a label, that everything is held within 4 to 5, and
    --levels 1,2,3,4,5. (The fit is stubbed: the notes come before it.)"""
    from bacon_bayes.cli import judges
    from bacon_bayes.pool import EvalPool

    monkeypatch.setattr(judges, "_fit", lambda *args: 0)
    rng = np.random.default_rng(1)
    q = rng.integers(1, 6, 200).astype(float)
    frame = pd.DataFrame(
        {
            "y": np.where((q >= 4) & (np.arange(200) % 3 == 0), q, np.nan),
            "a": np.clip(q + rng.integers(-1, 2, 200), 1, 5),
            "b": np.clip(q + rng.integers(-2, 3, 200) / 2, 1, 5),  # means of two ratings
            "metric": rng.random(200),  # a 0-1 metric: on no whole-number scale, not read
        }
    )
    frame.to_csv(tmp_path / "t.csv", index=False)
    argv = ["judges", str(tmp_path / "t.csv"), "--label", "y", "--judge", "a,b,metric"]
    assert main([*argv, "--plot", str(tmp_path / "p.png")]) == 0
    notes = [n for n in capsys.readouterr().out.splitlines() if n.startswith("note: levels")]
    assert len(notes) == 1 and "only 2 of the 5 levels of the judges' 1-5 scale" in notes[0]
    assert "held within 4 to 5" in notes[0] and "--levels 1,2,3,4,5 (levels=[1, 2, 3" in notes[0]
    from bacon_bayes.judge_bias import off_scale_note

    said = off_scale_note(frame["a"].to_numpy(), 4.0, 5.0, (4.0, 5.0))
    assert "label's range 4:5 (its levels or --scale (scale= in Python))" in said
    pool = EvalPool.from_frame(frame, label="y", judges=["a", "b"], outcome="ordinal")
    assert pool.notes[0] == notes[0].removeprefix("note: ")
    declared = EvalPool.from_frame(
        frame, label="y", judges=["a"], outcome="ordinal", levels=[1, 2, 3, 4, 5]
    )
    assert not any(n.startswith("levels") for n in declared.notes)
    wide = frame.assign(b=frame["b"] * 2)  # judges on 1-5 and on 1-10: no one scale
    pool = EvalPool.from_frame(wide, label="y", judges=["a", "b"], outcome="ordinal")
    assert pool.notes[0].endswith("e.g. when some level has no label yet.")


def test_the_report_s_bayesian_bias_note_says_bacon_judges_differs():
    """Helper W14: on SummEval coherence (85 labels) `bacon judges` gave gpt4 a noise of
    0.463 in human units on a quality sd of 0.698, the report of `bacon estimate`'s fit
    0.364 on 0.553: each output now says the other fits another model."""
    from types import SimpleNamespace

    from bacon_bayes.report.html import _engine_note

    model = SimpleNamespace(posterior_=object(), family="gaussian")
    cal = SimpleNamespace(crossfit_=SimpleNamespace(models=[model, model]))
    assert "bacon judges fits one on all labels: its figures differ" in _engine_note(cal)


def test_judges_says_which_rate_to_read_for_a_categorical_label(tmp_path, capsys, monkeypatch):
    """Helper W14: on TriviaQA `bacon judges` printed Llama3-70B's fpr 0.006 beside its
    fpr_human 0.156 and said nothing of the difference; a note now says what each is and
    that fpr_human is the figure to read. (The Bayesian fit is stubbed.)"""
    from bacon_bayes.bayes import bias, workflow

    rng = np.random.default_rng(0)
    truth = (rng.random(200) < 0.6).astype(float)
    pd.DataFrame(
        {"y": np.where(np.arange(200) % 3 == 0, truth, np.nan),
         "a": np.where(rng.random(200) < 0.9, truth, 1 - truth)}
    ).to_csv(tmp_path / "t.csv", index=False)  # fmt: skip
    stub = pd.DataFrame(
        {"judge": ["a"], "type": ["categorical"], "fpr": [0.006], "fpr_low": [0.001],
         "fpr_high": [0.013], "fnr": [0.004], "fnr_low": [0.001], "fnr_high": [0.009]}
    )  # fmt: skip
    monkeypatch.setattr(workflow, "fit_pool", lambda pool, **kw: SimpleNamespace(diagnostics_=None))
    monkeypatch.setattr(bias, "judge_bias", lambda model, level: stub)
    monkeypatch.setattr(bias, "forest_plot", lambda table, path: None)
    args = ["judges", str(tmp_path / "t.csv"), "--label", "y", "--judge", "a",
            "--plot", str(tmp_path / "b.png")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "fpr_human" in out and "note: Categorical label: each categorical judge's rates" in out
    assert "the figures to read" in out and "against the Bayesian judge model's latent class" in out


def test_judges_says_how_many_scores_each_judge_misses(tmp_path, capsys, monkeypatch):
    """Helper W14: a judge missing on half the rows (SummEval, llama70b: 289 of 600) was
    left out of the judge model there without a word from `bacon judges` (`bacon estimate`
    notes it). (The Bayesian fit is stubbed.)"""
    from bacon_bayes.bayes import bias, workflow

    rng = np.random.default_rng(0)
    q = rng.uniform(1, 5, 300)
    pd.DataFrame(
        {"y": np.where(np.arange(300) < 60, np.round(q), np.nan), "a": q + 0.3,
         "half": np.where(np.arange(300) % 2 == 0, q, np.nan)}
    ).to_csv(tmp_path / "t.csv", index=False)  # fmt: skip
    stub = pd.DataFrame({"judge": ["a", "half"], "bias": [0.3, 0.0], "bias_low": [0.2, -0.1],
                         "bias_high": [0.4, 0.1]})  # fmt: skip
    monkeypatch.setattr(workflow, "fit_pool", lambda pool, **kw: SimpleNamespace(diagnostics_=None))
    monkeypatch.setattr(bias, "judge_bias", lambda model, level: stub)
    monkeypatch.setattr(bias, "forest_plot", lambda table, path: None)
    args = ["judges", str(tmp_path / "t.csv"), "--label", "y", "--judge", "a,half",
            "--outcome", "continuous", "--plot", str(tmp_path / "b.png")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "note: missing judge scores left out of the judge model (nothing imputed): half: " \
        "150 of 300" in out  # fmt: skip
