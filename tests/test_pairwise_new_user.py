"""Tables of comparisons a new user brings, nobody having prepared them (helper W13): a
long table (one row per comparison and judge), ...; each said with the column or row and
the fix, every printed command running as printed."""

from __future__ import annotations

import shlex

import pandas as pd

from .test_pairwise_cli import FREQ, SAMPLE, _run


def _long(tmp_path) -> str:
    """The shipped sample as a long table: one row per comparison and judge."""
    wide = pd.read_csv(SAMPLE).drop(columns="human_full")
    long = wide.melt(
        id_vars=["id", "prompt", "model_a", "model_b", "label"],
        value_vars=["gpt4", "claude3_opus", "gpt35"], var_name="judge", value_name="verdict",
    )  # fmt: skip
    path = tmp_path / "long.csv"
    long.sort_values(["id", "judge"]).to_csv(path, index=False)
    return str(path)


def test_a_long_table_of_comparisons_is_refused_with_its_pivot(capsys, tmp_path):
    """A long table (one row per comparison and judge: columns judge and verdict) was
    read as 9,000 comparisons with one judge 'verdict' mixing three, each human vote
    counted three times: doctor printed a command, and estimate ran, with intervals too
    narrow by about sqrt(3). Every command now refuses it naming the judge column, with
    the pivot that makes one row per comparison, which runs as printed."""
    path = _long(tmp_path)
    for argv in (
        ["doctor", path, "--pairwise", "--label", "label"],
        ["estimate", path, "--pairwise", "--label", "label", *FREQ],
        ["plan", path, "--pairwise", "--label", "label", "--half-width", "0.3"],
    ):
        code, out, err = _run(argv, capsys)
        assert code == 2, (argv, out)
        assert "column 'judge' names the judge of each row" in err, err
        assert "wide.csv" in err
    recipe = err[err.index(" -c ") + 4 :].split(" (pivot refuses")[0]
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", shlex.split(recipe)[0]], cwd=tmp_path, check=True)
    wide = pd.read_csv(tmp_path / "wide.csv")
    assert len(wide) == 3000 and {"gpt4", "claude3_opus", "gpt35"} <= set(wide.columns)
    code, out, err = _run(["doctor", str(tmp_path / "wide.csv")], capsys)
    assert code == 0 and "3000 rows" in out, err
