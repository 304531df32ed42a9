"""The report's judge-bias note of a categorical label says what its rates are (helper
W14)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.report.text import rates_note


def test_a_categorical_label_s_bias_note_reads_its_rates(tmp_path):
    """TriviaQA (236 labels, Bayesian multinomial): the report's table gave Llama3-70B an
    fpr of 0.006 beside an fpr_human of 0.156, and its note explained bias, noise and
    signal (a table without them) and named fpr_human only: two rates 25x apart, one of
    them unexplained. The note of a categorical table now says what each is and which to
    read, and no longer the lines' figures."""
    rng = np.random.default_rng(2)
    n = 300
    truth = (rng.random(n) < 0.6).astype(float)
    frame = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.85, truth, 1 - truth),
            "b": np.where(rng.random(n) < 0.75, truth, 1 - truth),
            "y": np.where(np.arange(n) % 4 == 0, truth, np.nan),
        }
    )
    pool = EvalPool.from_frame(frame, label="y", judges=["a", "b"], outcome="categorical")
    page = Calibrator(engine="freq").fit(pool).report(tmp_path / "r.html").read_text()
    bias = page[page.index('<section id="bias">') :]
    bias = bias[: bias.index("</section>")]
    assert "fpr_human and fnr_human" in bias and "the figures to read" in bias
    assert "latent class" not in bias  # the frequentist table has no model rates
    # the Bayesian table has rates only: its note no longer explains bias, noise, signal
    bayes = pd.DataFrame(columns=["judge", "fpr", "fnr", "fpr_human", "mean_0", "noise"])
    said = rates_note(bayes, 0.9)
    assert rates_note(pd.DataFrame(columns=["judge", "bias", "noise_human"]), 0.9) == ""
    assert "against the Bayesian judge model's latent class" in said
    assert "class means (mean_<level>)" in said and said.endswith(
        "90% intervals, each judge's on its own."
    )


def test_a_bayesian_categorical_table_s_note_is_its_rates_alone(monkeypatch):
    """The Bayesian multinomial's table has rates and no lines: its note no longer
    explains bias, noise and signal, figures it does not have."""
    from types import SimpleNamespace

    import bacon_bayes.report.html as html

    table = pd.DataFrame(
        {"judge": ["a"], "type": ["categorical"], "fpr": [0.006], "fpr_low": [0.001],
         "fpr_high": [0.013], "fpr_human": [0.156], "fpr_human_low": [0.11],
         "fpr_human_high": [0.209]}
    )  # fmt: skip
    pool = SimpleNamespace(y=np.array([0.0, 1.0, 1.0]), labeled=np.ones(3, bool))
    cal = SimpleNamespace(pool_=pool, judge_bias=lambda level: table)
    monkeypatch.setattr(html, "_engine_note", lambda cal: "")
    monkeypatch.setattr("bacon_bayes.judge_bias.reversed_judges", lambda pool: np.zeros(1, bool))
    monkeypatch.setattr(html.figures, "data_uri", lambda fig: "data:,")
    page = html._bias(cal, 0.9)  # type: ignore[arg-type]
    assert "latent class, which follows the judges" in page
    assert "noise (human units)" not in page and "signal</b>" not in page
