"""``bacon simulate`` says when the simultaneous difference intervals were withheld (tester
A, session 36, finding 9): a paired design under 6 prompts printed NaN simultaneous
coverage, ``diff_no_interval`` 0 and rank width ``m - 1`` with no reason."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bacon_bayes.simulation.paired_draws import difference_summary, withheld_notes


def _trials(n: int, withheld: int) -> pd.DataFrame:
    """``n`` trials of three groups, the simultaneous pair intervals withheld in the first
    ``withheld`` of them (NaN beside pointwise ones), as the estimator leaves them."""
    groups = ["a", "b", "c"]
    truth = {"a": 1.0, "b": 0.5, "c": 0.0}
    rows = []
    for k in range(n):
        row: dict[str, float | str] = {"design": "paired", "method": "aee", "budget": 0.05}
        for g in groups:
            row[f"group:{g}:truth"] = truth[g]
            row[f"group:{g}:rank_low"] = 1.0 if k < withheld else 1.0 + groups.index(g)
            row[f"group:{g}:rank_high"] = 3.0 if k < withheld else 1.0 + groups.index(g)
        for i, a in enumerate(groups):
            for b in groups[i + 1 :]:
                d = truth[a] - truth[b]
                name = f"diff:{a} - {b}"
                row[f"{name}:estimate"] = d
                row[f"{name}:ci_low"], row[f"{name}:ci_high"] = d - 0.1, d + 0.1
                sim = (np.nan, np.nan) if k < withheld else (d - 0.2, d + 0.2)
                row[f"{name}:sim_low"], row[f"{name}:sim_high"] = sim
        rows.append(row)
    return pd.DataFrame(rows)


def test_withheld_simultaneous_intervals_are_counted_and_said():
    every = difference_summary(_trials(4, 4), ["a", "b", "c"])
    assert np.isnan(every["diff_simultaneous_coverage"])
    assert every["diff_no_interval"] == 0.0  # the pointwise intervals are all there
    assert every["diff_sim_withheld"] == 1.0 and every["diff_sim_withheld_trials"] == 4
    some = difference_summary(_trials(4, 1), ["a", "b", "c"])
    assert some["diff_sim_withheld"] == 0.25 and some["diff_sim_withheld_trials"] == 1
    none = difference_summary(_trials(4, 0), ["a", "b", "c"])
    assert none["diff_sim_withheld_trials"] == 0
    summary = pd.DataFrame(
        [{"design": "paired", "method": "aee", "budget": 0.05, **every},
         {"design": "uniform", "method": "aee", "budget": 0.05, **none}]
    )  # fmt: skip
    lines = withheld_notes(summary, 0.05)
    assert lines[0].startswith("note: paired (aee) at budget 0.05: simultaneous difference")
    assert "withheld in 4 of 4 trials" in lines[0] and "fewer than 6 labeled prompts" in lines[0]
    assert "rank_width is the full range" in lines[1]
    assert not any("uniform" in s for s in lines)
