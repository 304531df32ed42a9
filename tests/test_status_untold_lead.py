"""A lead under one standard error: ``bacon status STUDY`` gave a count for the top group
("about 3339 more labels", with a caution) where ``bacon estimate STUDY`` on the same
labels said the labels needed cannot be told (H5, a WMT22 walk). One decision
(:func:`bacon_bayes.planning.note.top_lead_untold`, the plan line's) and one wording
now serve both; an open sign whose lead is noise gives no count either."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.cli import main
from bacon_bayes.study import import_labels


def _tied_study(tmp_path: Path, seed: int = 1) -> Path:
    """Four systems of equal means (3.0), 200 items each, two
    judges; a uniform wave of 60 labeled: the top system's lead is noise."""
    rng = np.random.default_rng(seed)
    frames = []
    for system, mu in {"A": 3.0, "B": 3.0, "C": 3.0, "D": 3.0}.items():
        z = rng.normal(mu, 1, 200)
        frames.append(
            pd.DataFrame(
                {
                    "id": [f"{system}{k}" for k in range(200)],
                    "system": system,
                    "truth": z + rng.normal(0, 0.5, 200),
                    "j1": z + rng.normal(0, 0.7, 200),
                    "j2": z + rng.normal(0, 0.9, 200),
                }
            )
        )
    full = pd.concat(frames, ignore_index=True)
    pool = tmp_path / "pool.csv"
    full.drop(columns="truth").assign(human=np.nan).to_csv(pool, index=False)
    root, todo = tmp_path / "s.study", tmp_path / "todo.csv"
    assert main(["sample", str(pool), "--label", "human", "--judge", "j1", "--judge", "j2",
                 "--group", "system", "--item", "id", "--budget", "60", "--study", str(root),
                 "--out", str(todo)]) == 0  # fmt: skip
    drawn = pd.read_csv(todo)
    drawn["human"] = full.set_index("id").loc[drawn["id"], "truth"].to_numpy()
    drawn.to_csv(todo, index=False)
    import_labels(root, todo)
    return root


def test_status_and_estimate_say_alike_that_the_count_cannot_be_told(tmp_path, capsys):
    root = _tied_study(tmp_path)
    capsys.readouterr()
    assert main(["estimate", str(root), "--group", "system", "--engine", "freq"]) == 0
    plan = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("bacon plan:"))
    assert "cannot be told from these labels" in plan, plan
    said = plan.split("each group's own mean), ", 1)[1].split(". ", 1)[0]  # D leads C by ...
    assert main(["status", str(root), "--group", "system", "--engine", "freq"]) == 0
    lines = capsys.readouterr().out.splitlines()
    top = next(ln for ln in lines if ln.strip().startswith("top system"))
    assert said in top, (said, top)  # the same lead, standard error and words
    assert "more labels" not in top, top  # no count where estimate says none can be told
    for line in (ln for ln in lines if "a lead under one standard error" in ln):
        assert "more labels" not in line and "cannot be told" in line, line
