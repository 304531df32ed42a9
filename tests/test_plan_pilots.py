"""benchmarks.plan_pilots: the interpolation and the report's two criteria."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.plan_pilots import interpolate, report, report_own


def _curves(path, rows):
    pd.DataFrame(rows, columns=["pair", "design", "labels", "trials", "power"]).to_csv(
        path, index=False
    )


def test_interpolate_is_linear_between_cells_and_refuses_outside():
    grid = pd.DataFrame({"labels": [100, 200], "trials": [300, 300]})
    got = interpolate(grid, np.array([0.5, 0.9]), np.array([100.0, 150.0, 200.0]))
    assert got == pytest.approx([0.5, 0.7, 0.9])
    with pytest.raises(ValueError, match="outside the grid"):
        interpolate(grid, np.array([0.5, 0.9]), np.array([250.0]))


def test_report_measures_both_criteria(tmp_path):
    plans = pd.DataFrame({
        "pair": ["A - B"] * 3, "pilot": [0, 1, 2],
        "recommended": ["stratified", "stratified", "uniform"], "labels": [150, 200, 100],
        "pred_power": [0.8, 0.8, 0.8], "pred_power_uniform": [0.7, 0.75, 0.8],
        "need_uniform": [170, 220, 100], "pred_uniform": [0.8, 0.8, 0.8],
        "need_stratified": [150, 200, 120], "pred_stratified": [0.8, 0.8, 0.8],
    })  # fmt: skip
    plans.to_csv(tmp_path / "plans.csv", index=False)
    _curves(tmp_path / "curves.csv", [
        ("A - B", "uniform", 100, 10**6, 0.6), ("A - B", "uniform", 200, 10**6, 0.8),
        ("A - B", "uniform", 250, 10**6, 0.9),
        ("A - B", "stratified", 100, 10**6, 0.5), ("A - B", "stratified", 200, 10**6, 0.9),
    ])  # fmt: skip
    res = report(tmp_path / "plans.csv", tmp_path / "curves.csv", draws=20).set_index("recommended")
    # realised: stratified 0.7 at 150 (uniform 0.7), 0.9 at 200 (uniform 0.8); uniform 0.6
    a = res.loc["all"]
    assert a["pred_minus_real_mean"] == pytest.approx((0.1 - 0.1 + 0.2) / 3, abs=1e-3)
    assert a["pred_minus_real_worst"] == pytest.approx(0.2, abs=1e-3)
    assert a["outside_007"] == 3
    assert a["rec_minus_uniform_worst"] == pytest.approx(0.0, abs=1e-3)
    assert a["below_003"] == 0
    assert res.loc["uniform", "rec_minus_uniform_worst"] == 0.0
    own = report_own(tmp_path / "plans.csv", tmp_path / "curves.csv", draws=20)
    uni = own.set_index("design").loc["uniform"]  # 0.74, 0.84, 0.6 realised
    assert uni["pred_minus_real_mean"] == pytest.approx((0.06 - 0.04 + 0.2) / 3, abs=1e-3)
