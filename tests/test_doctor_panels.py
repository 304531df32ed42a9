"""bacon doctor on panels of judges: prompt variants of one model, judges that scored
part of the items, a wholly labeled table with such a judge (tester G, session 38)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from .test_doctor import SUMMEVAL, doctor, found

#: SummEval's relevance judges under the short names a team gives them
SHORT = {
    "gpt-4-0314|rts": "gpt4",
    "gpt-3.5-turbo-0301|rts": "gpt35",
    "gpt-3.5-turbo-0301|mcq": "gpt35_mcq",
    "gpt-3.5-turbo-0301|stareval": "gpt35_star",
    "gpt-3.5-turbo-0301|altrts": "gpt35_alt",
    "llama-2-70b-chat-hf|rts": "llama70b",
    "llama-2-13b-chat-hf|rts": "llama13b",
}


def _panel(share: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """SummEval relevance, judges by short names, ``human`` on a random ``share``."""
    s = pd.read_csv(SUMMEVAL)
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"id": np.arange(len(s)), "system": s["system"], "doc_id": s["doc_id"]})
    for long, short in SHORT.items():
        frame[short] = s[f"judge:{long}|relevance"]
    truth = s["expert_mean_relevance"]
    frame["human"] = np.where(rng.random(len(s)) < share, truth, np.nan)
    return frame


def test_a_base_judge_beside_its_prompt_variants_is_a_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 1: ``gpt35`` beside ``gpt35_mcq``, ``gpt35_star`` (the same model, other
    prompts) was left out as "a human rating of gpt35"; ``gpt4`` beside ``gpt4_t07`` and
    ``gpt4_t1`` (other temperatures) likewise."""
    frame = _panel()
    frame["gpt4_t07"] = frame["gpt4"]
    frame["gpt4_t1"] = frame["gpt4"].where(frame.index % 7 != 0, frame["gpt4"] - 1)
    frame.to_csv(path := tmp_path / "panel.csv", index=False)
    out, command = doctor([str(path)], capsys)
    assert "a human rating of" not in out
    judges = found(out, "judge")
    assert {"gpt4", "gpt35", "gpt35_mcq", "gpt35_star", "gpt4_t07"} <= set(judges), judges
    assert command is not None and "gpt35" in command and "gpt4" in command


def test_a_judge_on_part_of_the_items_is_a_judge_not_a_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 2: ``gpt4`` scored on 40% of the items (a cost-saving subsample) was left
    out as a label candidate ("pass --label gpt4"), and with --label human as "numeric but
    sparse" without a word of --judge; estimate takes it (missing scores imputed)."""
    frame = _panel()
    rng = np.random.default_rng(1)
    frame.loc[rng.random(len(frame)) > 0.4, "gpt4"] = np.nan
    frame.to_csv(path := tmp_path / "ragged.csv", index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["human"]
    assert "gpt4" in found(out, "judge")
    assert "a judge that scored part of the items" in out
    assert command is not None and command[command.index("--judge") + 1] == "gpt4"
    full = frame.assign(human=pd.read_csv(SUMMEVAL)["expert_mean_relevance"])
    full.to_csv(path := tmp_path / "ragged_full.csv", index=False)
    out, command = doctor([str(path), "--label", "human"], capsys)
    assert "gpt4" in found(out, "judge")
    assert command is not None and "gpt4" in command


def test_a_sparse_judge_is_never_the_label_beside_a_dense_human_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 14: on a wholly labeled table, ``gpt4`` on 40% of rows was taken as the
    label (its command estimated a judge's mean from the other judges) over the dense
    column named ``human``. Now no label is taken and doctor names --label human, which
    takes gpt4 as a judge."""
    frame = _panel(share=1.0)
    rng = np.random.default_rng(2)
    frame.loc[rng.random(len(frame)) > 0.4, "gpt4"] = np.nan
    frame.to_csv(path := tmp_path / "full.csv", index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "label") == ["-"] and command is None
    assert "bacon doctor" in out and "--label human gives the command" in out
    assert "pass --label gpt4 to use it as the label" in out
    out, command = doctor([str(path), "--label", "human"], capsys)
    assert command is not None and command[command.index("--label") + 1] == "human"
    assert "gpt4" in found(out, "judge")


def test_a_judge_rescored_on_another_scale_for_some_systems_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 9: gpt4 doubled (1-5 -> 2-10) on four systems passed doctor ("nothing
    found", system bias "none" while every interval was unbounded). Now the scale change
    is named with the systems, and a bias check that cannot bound any shift says so."""
    frame = _panel()
    moved = frame["system"].isin(["M17", "M20", "M22", "M23"])
    frame.loc[moved, "gpt4"] *= 2
    frame.to_csv(path := tmp_path / "mixscale.csv", index=False)
    out, _ = doctor([str(path)], capsys)
    (line,) = [ln for ln in out.splitlines() if ln.startswith("  gpt4") and " scale " in ln]
    assert "M17" in line and "M23" in line and "a scale that changes between groups" in line
    assert "M8" not in line
    bias_lines = out.split("what the judges seem biased by", 1)[1].split("what can be", 1)[0]
    assert "gpt4       none" not in bias_lines and "gpt4 none" not in bias_lines
    assert "not settled" in bias_lines
    frame = _panel()  # the same panel on one scale: no scale flag
    frame.to_csv(path := tmp_path / "one_scale.csv", index=False)
    out, _ = doctor([str(path)], capsys)
    assert "a scale that changes between groups" not in out


def test_a_group_bias_interval_wider_than_the_labels_range_is_no_flag() -> None:
    """Finding 13: WMT22's MEE-refB was flagged for over-rating refA by +29.57 [+9.71,
    +178.75] on an MQM label of range 36.1: the point estimate was inside the range, the
    interval five times wider. Such an interval is too weak to say, as a point estimate
    past the range already was; a well-measured shift is still flagged."""
    from bacon_bayes.doctor.bias import group_bias

    rng = np.random.default_rng(16)
    groups = np.repeat(np.array(list("ABCDEFGH")), 25)
    label = rng.uniform(0, 10, groups.size)
    weak = 0.1 * label + rng.normal(0, 0.5, groups.size) + np.where(groups == "A", 0.6, 0)
    table = group_bias(label, weak, groups)
    row = table[table["group"] == "A"].iloc[0]
    assert row["low"] > 0 and row["high"] - row["low"] > np.ptp(label)  # excludes 0, wide
    assert not row["flagged"] and table.attrs["wide"] == ["A"]
    strong = label + rng.normal(0, 0.5, groups.size) + np.where(groups == "A", 1.0, 0)
    table = group_bias(label, strong, groups)
    assert table.loc[table["group"] == "A", "flagged"].item() and table.attrs["wide"] == []
