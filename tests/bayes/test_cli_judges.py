"""``bacon judges``: errors in the fast suite, a real fit under ``make validate``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main


def test_missing_file_is_a_clean_error(tmp_path, capsys):
    code = main(["judges", str(tmp_path / "none.csv"), "--label", "y", "--judges", "a"])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.slow
def test_judges_prints_table_and_writes_plot(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    q = rng.normal(3, 1, n)
    df = pd.DataFrame(
        {
            "y": np.where(np.arange(n) < 120, np.clip(np.round(q), 1, 5), np.nan),
            "a": 1.0 + 0.8 * q + rng.normal(0, 0.5, n),
            "b": -2.0 + 1.5 * q + rng.normal(0, 0.8, n),
        }
    )
    df.to_csv(tmp_path / "t.csv", index=False)
    plot = tmp_path / "bias.png"
    code = main(
        [
            "judges",
            str(tmp_path / "t.csv"),
            "--label",
            "y",
            "--judges",
            "a",
            "b",
            "--plot",
            str(plot),
            "--draws",
            "300",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and plot.exists()
    assert "offset" in out and "noise_human" in out
    lines = [line.split() for line in out.splitlines()]
    header = next(r for r in lines if r[:1] == ["judge"])
    rows = {r[0]: r for r in lines if r[:1] in (["a"], ["b"])}
    col = header.index("scale")  # columns by name: the table leads with the bias
    # the human-scale mapping divides both scales alike: their ratio is 1.5 / 0.8
    ratio = float(rows["b"][col]) / float(rows["a"][col])
    assert ratio == pytest.approx(1.5 / 0.8, rel=0.25)
