"""One answer everywhere (issues 40 and 41, "Deciding"): what ``bacon estimate`` prints,
its ``--json``, ``bacon status`` and ``bacon report`` say the same of one study, from the
same functions, with the same settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.study import import_labels


def _study(root: Path, seed: int = 2, budget: int = 60, max_labels: int | None = 400) -> Path:
    """Four systems of 150 items (C ahead), two judges, three embedding columns and a
    text column; one uniform wave of ``budget`` labeled from the truth."""
    rng = np.random.default_rng(seed)
    means = {"A": 3.0, "B": 3.1, "C": 3.6, "D": 2.9}
    system = np.repeat(list(means), 150)
    z = np.repeat(list(means.values()), 150) + rng.normal(0, 1, system.size)
    k = np.tile(np.arange(150), len(means))
    full = pd.DataFrame({"id": [f"{g}{i}" for g, i in zip(system, k, strict=True)]})
    full["system"], full["truth"] = system, z + rng.normal(0, 0.5, z.size)
    full["j1"], full["j2"] = z + rng.normal(0, 0.7, z.size), z + rng.normal(0, 0.9, z.size)
    full["emb_1"] = z + rng.normal(0, 1.0, z.size)
    full["emb_2"], full["emb_3"] = rng.normal(0, 1, (2, z.size))
    full["answer"] = [f"answer {'word ' * int(i % 7)}{i}" for i in k]
    root.mkdir(parents=True, exist_ok=True)
    pool = root / "pool.csv"
    full.drop(columns="truth").assign(human=np.nan).to_csv(pool, index=False)
    study, todo = root / "s.study", root / "todo.csv"
    budget_args = [] if max_labels is None else ["--max-labels", str(max_labels)]
    assert main(["sample", str(pool), "--label", "human", "--judge", "j1", "--judge", "j2",
                 "--group", "system", "--item", "id", "--budget", str(budget), "--study",
                 str(study), "--out", str(todo), *budget_args]) == 0  # fmt: skip
    drawn = pd.read_csv(todo)
    drawn["human"] = full.set_index("id").loc[drawn["id"], "truth"].to_numpy()
    drawn.to_csv(todo, index=False)
    import_labels(study, todo)
    return study


@pytest.fixture(scope="module")
def early_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An alpha-spending study at its first wave (60 of 400 labels): an early look."""
    return _study(tmp_path_factory.mktemp("early"))


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_estimate_json_carries_every_note_the_text_prints(early_study, capsys):
    """``--json`` lacked the early-look note (and the classical column's and the range
    note) that the text prints: a user piping it lost them."""
    capsys.readouterr()
    read = [str(early_study), "--engine", "freq"]
    assert main(["estimate", *read]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert main(["estimate", *read, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    said = _strings(out)
    notes = [ln.removeprefix("note: ") for ln in lines if ln.startswith("note: ")]
    assert any("alpha-spending at 60 of the 400 labels" in n for n in notes), notes
    for note in notes:
        assert any(note in s for s in said), note
    early = next(n for n in notes if n.startswith("alpha-spending at"))
    assert early in out["notes"]
    engine = next((ln for ln in lines if ln.startswith("engine: ")), None)
    if engine is not None:  # which engine auto took, and why
        assert out["engine_reason"] in engine


def _sequence_rows(page: str) -> list[list[str]]:
    """The cells of the report's table of the study's looks ("Across the study's waves")."""
    import re

    part = page[page.index("Across the study's waves") :]
    table = part[part.index("<table") : part.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    return [re.sub(r"<[^>]+>", " ", row).split() for row in rows if "<td" in row]


def test_the_reports_latest_look_is_estimates_with_the_commands_embedding(
    early_study, tmp_path, capsys
):
    """The report refitted its looks without ``--embedding``: its latest look differed
    from ``bacon estimate STUDY --embedding ...`` on the same labels."""
    read = [str(early_study), "--engine", "freq", "--embedding", "emb_", "--surrogates", "none"]
    assert main(["estimate", *read, "--json"]) == 0
    aee = json.loads(capsys.readouterr().out)["mean"]["aee"]
    page = tmp_path / "r.html"
    assert main(["report", *read, "--out", str(page)]) == 0
    capsys.readouterr()
    last = _sequence_rows(page.read_text())[-1]
    # wave, labels, estimate, fixed low, fixed high, anytime low, anytime high, kind
    assert int(last[1]) == 60
    shown = [float(last[k]) for k in (2, 5, 6)]
    assert shown == pytest.approx([aee["estimate"], aee["ci_low"], aee["ci_high"]], abs=6e-5)
    assert main(["estimate", str(early_study), "--engine", "freq", "--surrogates", "none",
                 "--json"]) == 0  # fmt: skip
    plain = json.loads(capsys.readouterr().out)["mean"]["aee"]
    assert abs(plain["ci_low"] - aee["ci_low"]) > 1e-3  # the embedding changes the fit
