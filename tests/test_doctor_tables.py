"""``bacon doctor`` on tables a user brings unprepared (tester C's findings): a judge on a
reversed scale, an error score as the label, spreadsheet summary rows, a long table,
one row per annotator and repeated ids. Each is said, with where and the fix, and no
printed command treats the table as what it is not."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

SUMMEVAL = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "summeval_sample.csv.gz"
JUDGES = {
    "gpt4": "judge:gpt-4-0314|rts|relevance",
    "gpt35": "judge:gpt-3.5-turbo-0301|rts|relevance",
    "llama70b": "judge:llama-2-70b-chat-hf|rts|relevance",
}


def relevance_table(share: float = 0.15, seed: int = 0) -> pd.DataFrame:
    """SummEval relevance, one row per summary: id, system, document, text, three judges
    and the experts' mean relevance on a random ``share`` of the rows."""
    f = pd.read_csv(SUMMEVAL)
    out = pd.DataFrame({"item": np.arange(1, len(f) + 1), "system": f["system"]})
    out["doc_id"], out["summary"] = f["doc_id"], f["summary"]
    for name, column in JUDGES.items():
        out[name] = f[column].astype(float)
    keep = np.random.default_rng(seed).random(len(f)) < share
    out["relevance"] = f["expert_mean_relevance"].where(keep)
    return out


def doctor(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["doctor", str(path)]) == 0
    return capsys.readouterr().out


def command(out: str) -> list[str] | None:
    """doctor's printed command without ``bacon`` (None when it prints none)."""
    lines = out.splitlines()
    return shlex.split(lines[lines.index("run:") + 1])[1:] if "run:" in lines else None


def test_a_reversed_judge_is_said_and_kept_out_of_the_naive_baseline(tmp_path, capsys):
    """A judge on 1:5 with 1 = best was an ordinary judge to doctor, "not checked ... no
    bias" in the bias section, and its raw scores were averaged into the naive baseline
    (3.47 against a truth of 3.72) without a note (finding 3)."""
    table = relevance_table()
    table["llama70b_rank"] = 6 - table.pop("llama70b")
    path = tmp_path / "rank.csv"
    table.to_csv(path, index=False)
    out = doctor(path, capsys)
    row = next(ln for ln in out.splitlines() if ln.startswith("  judge     llama70b_rank"))
    assert "falls as the label rises: a reversed scale?" in row
    assert "no raw-judge average: llama70b_rank (Spearman -0." in out
    assert "does not rise with the label" not in out  # its biases are checked, on -score
    assert "llama70b_rank falls as the label rises (a reversed scale?)" in out
    assert main([*command(out), "--engine", "freq"]) == 0
    est = capsys.readouterr().out
    assert "naive (raw judge avg) left out: llama70b_rank (Spearman -0." in est
    assert "naive (raw judge avg)  " not in est


def test_an_error_score_label_has_its_biases_checked(tmp_path, capsys):
    """A penalty as the label (higher = worse) with judges of quality: every bias check
    was "not checked: its score does not rise with the label: no bias in label points",
    which reads as a clean bill (finding 13). Checked on -label, the over-ratings are
    those of the same table with the label written the other way; an MQM-like penalty
    (0 = no error, a one-sided scale) is said to be an error score."""
    table = relevance_table(0.3)
    table["penalty"] = (4.4 - table.pop("relevance")).clip(lower=0).round(3)
    path = tmp_path / "penalty.csv"
    table.to_csv(path, index=False)
    out = doctor(path, capsys)
    assert "every judge falls as penalty rises (higher = worse?): biases checked on -penalty" in out
    assert "does not rise with the label" not in out
    table["quality"] = -table.pop("penalty")
    table.to_csv(path, index=False)
    flipped = doctor(path, capsys)

    def biases(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if ln.startswith("    ")]

    assert biases(out) == biases(flipped) and biases(out)
    table["penalty"] = table.pop("quality") * -10  # 0 to 30.7: no common scale
    table.to_csv(path, index=False)
    out = doctor(path, capsys)
    assert "an error score (0 = no error)" in out
    assert "every judge falls as penalty rises (an error score: higher = worse)" in out
