"""``--engine auto`` says which engine it took and why (helper W14)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from bacon_bayes.cli import main
from bacon_bayes.model_choice import auto_reason


def _table(path, binary: bool = False):
    rng = np.random.default_rng(4)
    n = 200
    q = rng.normal(3, 0.8, n)
    y = (q > 3).astype(float) if binary else q
    pd.DataFrame(
        {
            "a": q + rng.normal(0, 0.5, n),
            "b": q + rng.normal(0.3, 0.7, n),
            "y": np.where(np.arange(n) % 4 == 0, y, np.nan),
        }
    ).to_csv(path, index=False)
    return str(path)


def test_estimate_says_why_engine_auto_took_the_frequentist_model(tmp_path, capsys):
    """On SummEval coherence `bacon estimate` (engine auto, the default) printed "model
    ridge (freq)", and on TriviaQA "model multinomial (freq)", while its help says auto
    takes "the Bayesian judge model when the family has one": nothing said why, nor how
    to fit the Bayesian one. A line under the header now says both; an engine given says
    nothing more."""
    table = _table(tmp_path / "t.csv")
    assert main(["estimate", table, "--label", "y", "--judge", "a,b"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "model ridge (freq)" in out[0]
    assert out[1].startswith("engine: freq (--engine auto, the default: ridge, a continuous")
    assert out[1].endswith("--engine bayes fits the gaussian judge model)")
    binary = _table(tmp_path / "b.csv", binary=True)
    assert main(["estimate", binary, "--label", "y", "--judge", "a,b"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert "the Bayesian multinomial model predicts no better" in line
    assert line.endswith("--engine bayes fits it)")
    assert main(["estimate", table, "--label", "y", "--judge", "a,b", "--engine", "freq"]) == 0
    assert "engine:" not in capsys.readouterr().out


def test_the_reason_names_the_other_engine_and_is_empty_when_one_was_chosen():
    def cal(**kw):
        base = dict(engine="auto", preset=None, model=None, model_name_="ordinal")
        return SimpleNamespace(**{**base, "engine_": "bayes", **kw})

    assert "--engine freq fits the frequentist model" in auto_reason(cal())
    assert auto_reason(cal(engine="bayes")) == ""
    assert auto_reason(cal(preset="ordinal")) == ""
    assert auto_reason(cal(model=object())) == ""


def test_the_report_says_it_in_its_settings(tmp_path):
    table = _table(tmp_path / "t.csv")
    assert main(["report", table, "--label", "y", "--judge", "a,b", "--out",
                 str(tmp_path / "r.html")]) == 0  # fmt: skip
    page = (tmp_path / "r.html").read_text()
    assert "<th>outcome model</th><td>ridge (freq engine; --engine auto, the default" in page
