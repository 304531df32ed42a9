"""JSON tables in layouts other than a list of records: W&B tables, pandas' orients."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.readers import read_any
from bacon_bayes.readers.jsonl import json_records

from .printed import run_python_line

LAYOUTS = ("wandb", "split", "table", "columns", "index")


def _frame(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    y = rng.integers(1, 6, n).astype(float)
    judge = np.clip(y + rng.integers(-1, 2, n), 1, 5)
    return pd.DataFrame(
        {
            "item_id": [f"q{i:03d}" for i in range(n)],
            "system": np.where(np.arange(n) % 2, "sys-one", "sys-two"),
            "judge_a": judge,
            "judge_runs": [[float(a), float(a) - 1] for a in judge],  # packed: a printed line
            "human": np.where(np.arange(n) % 3 == 0, y, np.nan),
        }
    )


def _write(frame: pd.DataFrame, layout: str, folder: Path) -> Path:
    path = folder / ("scores.table.json" if layout == "wandb" else f"scores_{layout}.json")
    if layout == "wandb":
        doc = {
            "_type": "table",
            "columns": list(frame.columns),
            "data": json.loads(frame.to_json(orient="values")),
            "ncols": frame.shape[1],
            "nrows": frame.shape[0],
        }
        path.write_text(json.dumps(doc))
    elif layout == "index":
        frame.set_index("item_id").to_json(path, orient="index")
    else:
        frame.to_json(path, orient=layout, **({} if layout == "columns" else {"index": False}))
    return path


@pytest.mark.parametrize("layout", LAYOUTS)
def test_json_table_read_as_the_table(tmp_path: Path, layout: str) -> None:
    source = _frame()
    got, meta = read_any(_write(source, layout, tmp_path))
    ids = "id" if layout == "index" else "item_id"  # the row keys: no name in the file
    assert meta.format == "json" and meta.item == ids
    assert list(got[ids]) == list(source["item_id"])
    assert np.allclose(got["judge_a"], source["judge_a"])
    assert np.allclose(got["human"], source["human"], equal_nan=True)
    assert list(got["system"]) == list(source["system"])
    said = {"wandb": "W&B table", "split": "orient='split'", "table": "orient='table'"}
    assert said.get(layout, f"orient='{layout}'") in got.attrs["read as"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_json_table_doctor_and_its_lines(
    tmp_path: Path, layout: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = _write(_frame(), layout, tmp_path)
    assert main(["doctor", path.name]) == 0
    out = capsys.readouterr().out
    assert "read as" in out.splitlines()[0] and "judge     judge_a" in out
    assert f"read_any({path.name!r})" in run_python_line(out, cwd=tmp_path)  # runs as printed
    written = out.split(", then bacon doctor ")[1].split()[0]
    runs = pd.read_csv(tmp_path / written)["judge_runs"]
    assert np.allclose(runs, _frame()["judge_a"] - 0.5)  # the mean of the two runs
    assert main(["doctor", written]) == 0
    capsys.readouterr()
    if layout == "wandb":  # the command doctor prints runs on the file
        command = next(x for x in out.splitlines() if " estimate " in x)
        words = shlex.split(command.split(" estimate ", 1)[1])
        assert main(["estimate", *words]) == 0


def test_other_json_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"a": {"x": 1}, "b": {"y": 2}}))  # no table: keys differ
    with pytest.raises(Exception, match="nor a table"):
        read_any(path)


def test_json_records_reads_the_other_layouts(tmp_path: Path) -> None:
    source = _frame(6).drop(columns="judge_runs")
    for layout in ("split", "columns"):
        rows = json_records(_write(source, layout, tmp_path), "form", columns=True)
        assert [r["item_id"] for r in rows] == list(source["item_id"])
