"""benchmarks/sparse_groups.py (issue 40's Monte Carlo of group means): its metrics on a
hand-made case whose coverage and withholding are known, its oracle against the issue's
SummEval figures, and a three-draw smoke run with a stand-in ``pooling=`` keyword."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks import sparse_groups as sg
from benchmarks.small_budget import DIMENSIONS

NAN = math.nan


def _row(method, trial, kind, name, est, lo, hi, truth, n=3, refused=False):
    withheld = not refused and not (np.isfinite(lo) and np.isfinite(hi))
    return {"method": method, "trial": trial, "kind": kind, "name": name, "estimate": est,
            "ci_low": lo, "ci_high": hi, "truth": truth, "n_labeled": n, "refused": refused,
            "withheld": withheld, "n_labels": 6}  # fmt: skip


def _hand_made() -> pd.DataFrame:
    """Groups A (truth 0) and B (truth 1), the pair A - B (truth -1), four draws.

    ``separate``: draw 0 refused; A's interval [-1, 1] (estimate 0.5) covers in draws 1-3;
    B covers in draw 1 ([0.5, 1.5]), misses in draw 2 ([2, 3]), is withheld in draw 3;
    the pair covers in draw 1, misses in draw 2, is withheld in draw 3. ``half``: the
    same estimates with half-width intervals in every draw (never refused or withheld),
    except group B with no label in draw 0 (no estimate either: not counted as withheld).
    """
    rows = []
    sep = {
        1: [(0.5, -1, 1), (1.0, 0.5, 1.5), (-0.5, -2, 0)],
        2: [(0.5, -1, 1), (2.5, 2, 3), (-2.0, 0, 1)],
        3: [(0.5, -1, 1), (1.0, NAN, NAN), (-0.5, NAN, NAN)],
    }
    cells = [("group", "A", 0.0), ("group", "B", 1.0), ("pair", "A - B", -1.0)]
    for kind, name, truth in cells:
        rows.append(_row("separate", 0, kind, name, NAN, NAN, NAN, truth, refused=True))
    for t, got in sep.items():
        for (kind, name, truth), (e, lo, hi) in zip(cells, got, strict=True):
            rows.append(_row("separate", t, kind, name, e, lo, hi, truth))
    for t in range(4):
        for kind, name, truth in cells:
            if t == 0 and name != "A":
                rows.append(_row("half", 0, kind, name, NAN, NAN, NAN, truth, n=0))
                continue
            e = {"A": 0.5, "B": 1.0, "A - B": -0.5}[name]
            rows.append(_row("half", t, kind, name, e, e - 0.25, e + 0.25, truth))
    return pd.DataFrame(rows)


def test_metrics_on_a_hand_made_case():
    s = sg.summarise(_hand_made()).set_index("method")
    sep, half = s.loc["separate"], s.loc["half"]
    assert sep["trials"] == 4 and sep["refused"] == 0.25
    assert sep["withheld_groups"] == pytest.approx(1 / 6)  # of the 6 answered group cells
    assert sep["withheld_pairs"] == pytest.approx(1 / 3)
    assert sep["coverage"] == pytest.approx(0.75)  # A 3/3, B 1/2
    assert sep["min_coverage"] == pytest.approx(0.5) and sep["min_group"] == "B"
    assert sep["pair_coverage"] == pytest.approx(0.5)
    assert sep["width"] == pytest.approx((2 + 2 + 2 + 1 + 1) / 5)
    rmse_b = math.sqrt((0 + 1.5**2 + 0) / 3)
    assert sep["rmse"] == pytest.approx((0.5 + rmse_b) / 2)
    assert sep["rmse_ratio"] == pytest.approx(1.0) and sep["width_ratio"] == pytest.approx(1.0)
    # half: never refused; B's draw without a label is not counted as withheld
    assert half["refused"] == 0 and half["withheld_groups"] == 0 and half["withheld_pairs"] == 0
    assert half["coverage"] == pytest.approx(0.5)  # A never (0.5 +- 0.25), B always
    assert half["min_group"] == "A" and half["pair_coverage"] == 0
    # on separate's answered cells (A in draws 1-3, B in draws 1-2): widths 0.5 against 1.6
    assert half["width_on_ref"] == pytest.approx(0.5)
    assert half["width_ratio"] == pytest.approx(0.5 / 1.6)
    # on separate's estimated cells, B's errors are 0 (draws 1, 3) and 0 (draw 2)
    assert half["rmse_ratio"] == pytest.approx((0.5 + 0.0) / (0.5 + rmse_b))
    lo, hi = sg.band(4)
    assert (s["band_low"] == lo).all() and hi == pytest.approx(
        0.95 + 2.576 * math.sqrt(0.95 * 0.05 / 4)
    )


def test_oracle_reproduces_the_issue_figures_on_summeval():
    """Issue 40: at n = 10 (5) labels a system, relevance 0.745 (0.62), consistency 0.732
    (0.60), fluency 0.565 (0.44), coherence 0.911 (0.84); with folds holding out systems
    these come out within 0.025."""
    chosen = sg.cells(Path("/nonexistent"), [f"summeval_{d}" for d in DIMENSIONS])
    issue = {"relevance": (0.745, 0.62), "consistency": (0.732, 0.60),
             "fluency": (0.565, 0.44), "coherence": (0.911, 0.84)}  # fmt: skip
    for dim, (at10, at5) in issue.items():
        frame, spec, _ = chosen[f"summeval_{dim}"]
        parts = sg.oracle_parts(frame, spec)
        assert sg.oracle_ratio(*parts, 10) == pytest.approx(at10, abs=0.025)
        assert sg.oracle_ratio(*parts, 5) == pytest.approx(at5, abs=0.025)


def test_three_draws_of_every_method(tmp_path):
    """Three draws of SummEval fluency at 5% (60 labels, 12 systems) through the CLI: every
    method answers every draw, the shrunk rows withhold nothing, and ``--pooled`` summarises
    the written file."""
    out = tmp_path / "raw.csv.gz"
    argv = ["--trials", "3", "--tables", "summeval_fluency", "--budgets", "0.05",
            "--data", str(tmp_path), "--out", str(out)]  # fmt: skip
    today = sg.main([*argv, "--summary", str(tmp_path / "s.csv")]).set_index("method")
    assert set(today.index) == {"separate", "shrink", "auto", "ppi_py"}
    assert (today["refused"] == 0).all() and (today["trials"] == 3).all()
    assert today.loc["shrink", "withheld_groups"] == 0 < today.loc["separate", "withheld_groups"]
    again = sg.main(["--pooled", str(out), "--tables", "summeval_fluency", "--data", str(tmp_path)])
    pd.testing.assert_frame_equal(again.set_index("method"), today, rtol=1e-4)
    assert 0 < today.loc["separate", "oracle"] < 1
