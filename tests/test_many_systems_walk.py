"""What a new user met walking many systems with few labels each (WMT22 zh-en, 16
systems at 2% labels; TriviaQA, 8 models at 3%; SummEval, 12 systems at 2%) through
doctor, sample, label import, estimate, status, report and plan: each test fails on the
code before its fix."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from bacon_bayes.report.text import scale_note


def test_the_scale_note_prints_no_negative_zero():
    """WMT22's MQM labels are stored as minus the penalty, the best as -0.0: the note
    read "past the labels' range [-15, -0]"."""
    y = np.array([-15.0, -3.0, -0.0, -0.0, -1.0])
    pool = SimpleNamespace(
        outcome=SimpleNamespace(kind="continuous"), n_labeled=5, y=y,
        labeled=np.ones(5, bool),
    )  # fmt: skip
    cal = SimpleNamespace(pool_=pool, bounds_=np.array([-np.inf, np.inf]))
    past = SimpleNamespace(ci_low=np.array([-4.0]), ci_high=np.array([2.0]))
    note = scale_note(cal, [], [past])  # type: ignore[arg-type]
    assert "[-15, 0]" in note and "-0]" not in note
