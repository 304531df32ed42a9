"""An error score stated as a positive penalty (WMT22's MQM as 0 = perfect, larger =
worse, about half the segments at 0): ``bacon doctor`` proposed ``--scale 0:100``, the
common scale its 0-56 values happen to fit, where an error penalty has no upper bound
(H5, a WMT22 walk). It proposes ``--scale 0:inf`` now, and the printed command runs; a
label on a real 0-100 scale (named so, or filling it) keeps ``0:100``. A small synthetic
table shaped like WMT22's (tests must not need the full data)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.cli import main
from bacon_bayes.scale import infer_scale, open_scale


def penalty_table(name: str = "mqm_penalty", seed: int = 0, top: float = 0.0) -> pd.DataFrame:
    """4 systems x 60 segments, two quality metrics falling as the penalty rises, every
    third row labeled: about half the penalties 0, else minor errors (1), majors (5) and
    punctuation (0.1) at segment rates with a long tail, the worst past 50 (so the values
    fit 0:100 by half, as WMT22's 0-56 do); ``top``: the first label set to it."""
    rng = np.random.default_rng(seed)
    n = 60 * 4
    rate = (0.3 + rng.gamma(0.6, 2.0, n)) * (rng.random(n) > 0.4)
    minor, major = rng.poisson(rate), rng.poisson(0.4 * rate)
    p = minor + 5.0 * major + 0.1 * rng.poisson(0.5 * rate)
    p[np.argsort(-rate)[:2]] = [52.3, 56.0]  # badly broken segments
    frame = pd.DataFrame(
        {"id": [f"s{k:03d}" for k in range(n)], "system": [f"sys{k % 4}" for k in range(n)]}
    )
    frame["comet"] = 0.8 - 0.01 * p + rng.normal(0, 0.03, n)
    frame["bleurt"] = 0.7 - 0.012 * p + rng.normal(0, 0.05, n)
    labeled = (np.arange(n) % 3 == 0) | (p >= 50)
    if top:
        p[0] = top
    frame[name] = np.where(labeled, p, np.nan)
    return frame


def _doctor_command(tmp_path: Path, frame: pd.DataFrame, capsys) -> list[str]:
    path = tmp_path / "mt.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    return shlex.split(out.split("run:\n", 1)[1].strip().splitlines()[0])


def test_a_positive_error_penalty_is_open_above(tmp_path, capsys) -> None:
    frame = penalty_table()
    y = frame["mqm_penalty"].to_numpy()
    assert infer_scale(y).text == "0:100"  # what doctor proposed before
    command = _doctor_command(tmp_path, frame, capsys)
    assert "--scale" in command and command[command.index("--scale") + 1] == "0:inf", command
    assert main([*command[1:], "--engine", "freq", "--json"]) == 0  # the command runs
    res = json.loads(capsys.readouterr().out)
    assert res["mean"]["aee"]["details"]["range"] == [0.0, "inf"]
    assert res["mean"]["aee"]["ci_low"] >= 0


def test_a_stated_or_filled_0_100_scale_is_kept(tmp_path, capsys) -> None:
    named = penalty_table("score_0_100")
    command = _doctor_command(tmp_path, named, capsys)
    assert command[command.index("--scale") + 1] == "0:100", command
    filled = penalty_table("rating", top=100.0)  # its values reach the scale's top
    command = _doctor_command(tmp_path, filled, capsys)
    assert command[command.index("--scale") + 1] == "0:100", command


def test_open_scale_decides_by_name_and_reach() -> None:
    y = penalty_table()["mqm_penalty"].to_numpy()
    scale = infer_scale(y)
    assert open_scale(y, scale, "errors").text == "0:inf"
    assert open_scale(y, scale, "label").text == "0:inf"  # 0-60 stop short of 100
    assert open_scale(y, scale, "quality_pct").text == "0:100"
    levels = np.tile(np.arange(7.0), 20)  # a 0-6 rating, every level seen: its own scale
    assert open_scale(levels, infer_scale(levels), "rating").text == "0:6"
    assert open_scale(levels, infer_scale(levels), "error_count").text == "0:inf"
    some = np.tile([0.0, 0, 1, 2, 4, 7], 20)  # levels of 0-10 short of its top: a pilot
    assert open_scale(some, infer_scale(some), "rating").text == "0:10"
    assert open_scale(y + 1, infer_scale(y + 1), "errors").text == "0:100"  # no mass at 0
