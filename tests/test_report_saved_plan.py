"""``bacon report cal.nc``: the comparisons' plan line reads the saved calibrator's own
fit, as the page's group table does (helper W14)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.cli import main


def test_the_plan_line_of_a_saved_calibrator_reads_its_own_fit(tmp_path, monkeypatch):
    """On SummEval coherence (600 items, 85 labels, Bayesian) the page of ``bacon report
    cal.nc`` ranked M17 first (4.365 against M22's 4.356) while its plan line said "the
    top group's lead ...: M22 leads M17 by 0.0144": the line refitted a frequentist
    pilot instead of reading the calibrator the page shows, and named no group column.
    It now reads the saved calibrator (its pooling too) and names its group column."""
    import bacon_bayes.planning as planning

    rng = np.random.default_rng(5)
    n = 240
    q = rng.normal(3, 0.7, n)
    frame = pd.DataFrame(
        {
            "j1": q + rng.normal(0.3, 0.5, n),
            "j2": q + rng.normal(-0.2, 0.7, n),
            "system": np.array(["A", "B", "C", "D"])[np.arange(n) % 4],
            "y": np.where(np.arange(n) % 4 < 3, q, np.nan) * (rng.random(n) < 0.3),
        }
    ).replace(0.0, np.nan)
    pool = EvalPool.from_frame(
        frame, label="y", judges=["j1", "j2"], outcome="continuous", group="system"
    )
    cal = Calibrator(engine="freq", folds=3, seed=7, pooling="separate").fit(pool)
    saved = cal.save(tmp_path / "cal.nc")
    seen: dict = {}
    real = planning.resolution_note

    def spy(pool, alpha=0.05, **kw):
        seen.update(kw, pool=pool)
        return real(pool, alpha, **kw)

    monkeypatch.setattr(planning, "resolution_note", spy)
    assert main(["report", str(saved), "--out", str(tmp_path / "r.html")]) == 0
    pilot = seen["calibrator"]
    assert pilot is not None and pilot.pool_ is seen["pool"]
    assert (pilot.folds, pilot.seed, pilot.pooling) == (3, 7, "separate")
    assert seen["group_column"] == "system" and seen["pooling"] == "separate"
    page = (tmp_path / "r.html").read_text()
    assert "top group" not in page and "top system" in page
