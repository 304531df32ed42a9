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
