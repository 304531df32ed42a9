"""Why an early alpha-spending look is wide, said where the user reads it
(:func:`bacon_bayes.report.text.early_look_note`, printed by ``bacon estimate``): a
user's WMT22 study (75 of 375 labels at wave 1) saw pair intervals several times the
fixed ones and nothing said why."""

from __future__ import annotations

import numpy as np
from scipy import stats

from bacon_bayes.estimate import anytime as at
from bacon_bayes.report.text import early_look_note
from bacon_bayes.results import Estimate


def _fixed(df: float = 40.0) -> Estimate:
    crit = float(stats.t.isf(0.025, df))
    return Estimate("mean", "aee", 3.9, 0.54, 3.9 - crit * 0.54, 3.9 + crit * 0.54, 75, 750,
                    0.05, {"df": df})  # fmt: skip


def test_an_early_alpha_spending_look_says_what_was_spent_and_how_wide():
    """75 of 375 labels (20%): O'Brien-Fleming has spent 1.2e-05 of 0.05, the boundary
    1.96 / sqrt(0.2) = 4.38, so the pool mean is 2.2-2.5 times one look's: the note says
    the share, the error spent, the factor and --fixed."""
    e = at.anytime_estimate(_fixed(), np.array([75.0]), 750, max_labels=375)
    note = early_look_note(e)
    assert note is not None
    assert "75 of the 375 labels" in note and "(20%)" in note and "1.2e-05 of its 0.05" in note
    widening = e.details["anytime"]["widening"]
    assert 2.2 < widening < 2.6 and f"{widening:.1f} times one look's" in note
    assert "--fixed" in note and "few degrees of freedom" not in note


def test_rows_on_few_degrees_of_freedom_are_named_as_the_widest():
    """A table whose rows read a Student-t on few df at the boundary's far level widen
    much more than the boundary: the note gives the range and says which are widest."""
    e = at.anytime_estimate(_fixed(), np.array([75.0]), 750, max_labels=375)
    wide = e.details | {"anytime": {"widening": [2.2, 5.6]}}
    table = type("T", (), {"details": wide})()
    note = early_look_note(e, [table])
    assert note is not None and "2.2-5.6 times" in note and "few degrees of freedom" in note


def test_no_note_past_half_the_budget_nor_for_a_confidence_sequence():
    late = at.anytime_estimate(_fixed(), np.array([75.0, 200.0]), 750, max_labels=375)
    assert early_look_note(late) is None
    seq = at.anytime_estimate(_fixed(), np.array([75.0]), 750)
    assert early_look_note(seq) is None
    assert early_look_note(_fixed()) is None
