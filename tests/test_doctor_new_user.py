"""``bacon doctor`` as a new user runs it on raw tables (the second tryout): a labels file
with one label column and no ``--label``, the id line's reason with ``--labels``, Chinese
source text, a label bounded on one side with a mass at the bound (an MQM error score),
many judges for few labels. Small synthetic frames shaped like WMT22's and SummEval's."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.cli import main
from bacon_bayes.doctor.roles import find_roles
from bacon_bayes.readers import TableMeta

from .test_doctor_raw import mt_table


def _scores_and_labels(tmp_path: Path, label_columns: dict[str, list[float]]) -> tuple[str, str]:
    """A table of two judges keyed by ``item`` and a labels file of 40 of its items."""
    rng = np.random.default_rng(0)
    n = 200
    truth = rng.normal(3, 1, n)
    table = pd.DataFrame(
        {
            "item": [f"i{k:03d}" for k in range(n)],
            "judge_a": truth + rng.normal(0, 0.5, n),
            "judge_b": truth + rng.normal(0, 0.8, n),
        }
    )
    labels = pd.DataFrame({"item": table["item"][:40], **label_columns})
    table.to_csv(tmp_path / "scores.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    return str(tmp_path / "scores.csv"), str(tmp_path / "labels.csv")


def test_labels_file_with_one_label_column_needs_no_label(tmp_path, capsys) -> None:
    """`bacon doctor F --labels L` without --label took nothing and stopped; a labels file
    with one column besides the id has its label column: doctor takes it and prints it in
    the command, and the id's reason is the join, not an --item the user never passed."""
    scores, labels = _scores_and_labels(tmp_path, {"human": list(np.linspace(1, 5, 40))})
    assert main(["doctor", scores, "--labels", labels]) == 0
    out = capsys.readouterr().out
    assert "label     human" in out and "--label human" in out
    id_line = next(line for line in out.splitlines() if line.startswith("  id "))
    assert "--item" not in id_line and "joined on" in id_line
    command = out.split("run:\n", 1)[1].strip()
    assert "--labels" in command


def test_labels_file_with_several_columns_lists_them(tmp_path, capsys) -> None:
    """Two candidate columns: the error lists the labels file's columns."""
    scores, labels = _scores_and_labels(tmp_path, {"human": [1.0] * 40, "note_score": [2.0] * 40})
    assert main(["doctor", scores, "--labels", labels]) == 2
    assert "its columns: item, human, note_score" in capsys.readouterr().err


def test_the_id_reason_with_labels_is_true(tmp_path, capsys) -> None:
    """With --labels and --label but no --item, the id line said "--item"; it is the
    column the labels were joined on. With --item it says --item."""
    scores, labels = _scores_and_labels(tmp_path, {"human": list(np.linspace(1, 5, 40))})
    for extra, reason in (([], "joined on it"), (["--item", "item"], "--item")):
        assert main(["doctor", scores, "--labels", labels, "--label", "human", *extra]) == 0
        out = capsys.readouterr().out
        id_line = next(line for line in out.splitlines() if line.startswith("  id "))
        assert reason in id_line and (extra or "--item" not in id_line)


def chinese(rng: np.random.Generator, n: int, chars: int = 39) -> list[str]:
    """``n`` distinct Chinese sentences of about ``chars`` characters, no spaces."""
    pool = list("我们他们今天明天昨天天气很好非常喜欢这个城市的新闻报道经济发展公司市场价格")
    return [
        "".join(rng.choice(pool, chars + int(rng.integers(-3, 4)))) + f"{k}。" for k in range(n)
    ]


def test_chinese_source_text_is_text() -> None:
    """WMT's `source` (Chinese, 39.6 characters on average) was not seen as text: a wide
    character carries about a word, so it counts twice against the 40-character mark."""
    frame = mt_table()
    rng = np.random.default_rng(1)
    frame["source_text"] = chinese(rng, len(frame))
    roles = find_roles(frame, TableMeta(format="csv"))
    assert "source_text" in roles.text
    assert "counted twice" in roles.reasons["text:source_text"]
    assert roles.response == "hypothesis"  # the input is no response


def test_distinct_chinese_sentences_are_no_id() -> None:
    """Distinct Chinese sentences (no spaces) are texts, not the items' id."""
    frame = mt_table().drop(columns=["seg_id", "source", "hypothesis"])
    frame["hypothesis"] = chinese(np.random.default_rng(2), len(frame), 20)
    roles = find_roles(frame, TableMeta(format="csv"))
    assert roles.item is None
    assert "hypothesis" in roles.text


def error_table(seed: int = 0) -> pd.DataFrame:
    """``mt_table`` with an MQM-like label: 0 (no error) on about a third of the labeled
    rows, else a penalty of minor (1), major (5) and punctuation (0.1) errors."""
    frame = mt_table(seed)
    rng = np.random.default_rng(seed)
    quality = frame["comet"].to_numpy() - 0.8
    errors = rng.poisson(np.exp(0.3 - 15 * quality))
    major = rng.binomial(errors, 0.3)
    mqm = -(errors - major + 5.0 * major + 0.1 * rng.poisson(0.3, len(frame)) * (errors > 0))
    frame["mqm"] = np.where(frame["mqm"].notna(), mqm, np.nan)
    return frame


def test_an_error_score_is_bounded_at_zero_only(tmp_path, capsys) -> None:
    """WMT22's mqm (<= 0, 0 = no error on ~40% of rows) had no scale, so group intervals
    reached +7. Doctor finds the bound 0 and no other (the worst seen need not be the
    worst possible: a bound too narrow would clip wrongly) and prints --scale=-inf:0 as
    one argument (argparse takes '-inf:0' alone for an option); the command runs and no
    interval passes 0. Without it, estimate's note names the same option."""
    import json
    import shlex

    path = tmp_path / "mt.csv"
    error_table().to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    scale_line = next(line for line in out.splitlines() if line.startswith("  scale "))
    assert "-inf:0" in scale_line and "error score" in scale_line
    # the judge-average line agrees with the scale line (it said "no evident scale")
    assert "no evident scale for the label" not in out and "open at one end (-inf:0)" in out
    command = shlex.split(out.split("run:\n", 1)[1].strip())
    assert "--scale=-inf:0" in command
    assert main([*command[1:], "--json"]) == 0

    def strict(word: str) -> None:  # standard JSON has no NaN or Infinity
        raise AssertionError(f"non-standard JSON constant {word}")

    res = json.loads(capsys.readouterr().out, parse_constant=strict)
    assert res["mean"]["aee"]["details"]["range"] == ["-inf", 0.0]
    highs = [row["ci_high"] for row in res["groups"]["aee"]["rows"]]
    assert max(highs) <= 0 and res["mean"]["aee"]["ci_high"] <= 0
    unbounded = [a for a in command[1:] if a != "--scale=-inf:0"]
    assert main(unbounded) == 0
    text = capsys.readouterr().out
    assert "pass --scale=-inf:0" in text


def test_error_scale_only_for_one_side_with_a_mass_at_zero() -> None:
    from bacon_bayes.scale import error_scale

    rng = np.random.default_rng(0)
    penalties = np.where(rng.random(200) < 0.4, 0.0, -rng.exponential(4, 200))
    assert error_scale(penalties).text == "-inf:0"
    assert error_scale(-penalties).text == "0:inf"  # error counts: --outcome nonnegative
    assert error_scale(penalties + 0.5) is None  # both sides of 0
    assert error_scale(np.minimum(penalties, -0.1)) is None  # no mass at 0
    assert error_scale(np.r_[0.0, 0.0, -rng.exponential(4, 200)]) is None  # 2 zeros


def test_many_judges_for_few_labels_are_explained(tmp_path, capsys) -> None:
    """SummEval's wide file: 36 judges (9 per dimension) for 31 coherence labels, kept
    without a word. Doctor keeps the judges of the label's dimension (the others, twins
    of these for another aspect, are left out and said), and says what the estimator
    does with few labels per judge (the judges' ridge below 20 per coefficient)."""
    from bacon_bayes.doctor.judge_notes import RIDGE_BELOW
    from bacon_bayes.surrogates import ALONE_BELOW

    assert RIDGE_BELOW == ALONE_BELOW  # doctor may not import surrogates: kept equal here
    rng = np.random.default_rng(0)
    n = 240
    truth = rng.normal(3, 0.8, n)
    frame = pd.DataFrame({"system": np.tile([f"M{k}" for k in range(6)], n // 6)})
    for dim in ("coherence", "fluency", "relevance"):
        for model in ("gpt4", "gpt35", "llama70b", "llama13b"):
            noise = rng.normal(0, 0.6 if dim == "coherence" else 1.2, n)
            frame[f"judge:{model}|rts|{dim}"] = np.clip(np.round(truth + noise), 1, 5)
    frame["expert_mean_coherence"] = np.where(rng.random(n) < 0.03, np.round(truth * 3) / 3, np.nan)
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out.replace("\n", " ")
    assert "judges for" in out and "the judges' ridge" in out and "first principal" in out
    assert out.count("another aspect than the label's 'coherence'") == 8
    assert "run:" in out and "--judge '*|rts|coherence'" in out.split("run:")[1]


def test_a_benchmark_table_of_human_ratings_and_aspects(tmp_path, capsys) -> None:
    """SummEval's and WMT22's tables as shipped: every item labeled; crowd ratings
    (``turker1_coherence``) and a human protocol's column (WMT's ``mqm``) were taken as
    judges; every aspect of each LLM judge judged the label's one aspect. Now the human
    columns are left out as human ratings, a judge of another aspect than the label's is
    left out when its twin of the label's aspect is there, and doctor says that the
    means are exact and what to run instead."""
    rng = np.random.default_rng(1)
    n = 300
    coh, con = rng.normal(3, 1, n), rng.normal(3, 1, n)
    frame = pd.DataFrame(
        {
            "system": np.repeat(["M1", "M2", "M3"], n // 3),
            "expert_mean_coherence": coh,
            "turker1_coherence": coh + rng.normal(0, 1, n),
            "mqm": -np.abs(coh + rng.normal(0, 1, n)),
            "metricx_xxl_MQM_2020-refA": coh + rng.normal(0, 0.6, n),
            "judge:gpt4|coherence": coh + rng.normal(0, 0.6, n),
            "judge:gpt4|consistency": con + 0.4 * coh + rng.normal(0, 0.6, n),
            "judge:llama|coherence": coh + rng.normal(0, 0.9, n),
        }
    )
    path = tmp_path / "bench.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path), "--label", "expert_mean_coherence"]) == 0
    out = capsys.readouterr().out
    found = (re.match(r"  (judge|left out) +(\S+)", ln) for ln in out.splitlines())
    rows = {m[2]: m.string for m in found if m}
    assert "named like a human rating" in rows["turker1_coherence"]
    assert "named like a human rating" in rows["mqm"]
    assert rows["metricx_xxl_MQM_2020-refA"].startswith("  judge ")
    assert "another aspect than the label's 'coherence'" in rows["judge:gpt4|consistency"]
    assert rows["judge:gpt4|coherence"].startswith("  judge ")
    assert rows["judge:llama|coherence"].startswith("  judge ")
    assert "every item is labeled: the means of these items are exact" in out
    assert "bacon simulate" in out


def test_doctor_says_how_the_labels_were_drawn(tmp_path, capsys) -> None:
    """WMT22 as shipped: doctor said "except 6 with fewer than 5 labels" of systems no
    one rated, and nothing of the labels drawn by segment, which estimate's notes say.
    Doctor now says both, as the estimate will."""
    rng = np.random.default_rng(2)
    q = np.tile(np.arange(100), 6)
    g = np.repeat([f"s{k}" for k in range(6)], 100)
    y = rng.normal(size=q.size)
    drawn = np.isin(q, rng.choice(100, 40, replace=False)) & ~np.isin(g, ["s4", "s5"])
    frame = pd.DataFrame({"system": g, "segment": [f"q{k}" for k in q],
                          "judge": y + rng.normal(0, 0.5, q.size),
                          "human": np.where(drawn, y, np.nan)})  # fmt: skip
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out.replace("\n", " ")
    assert "except 2 without labels (s4, s5)" in out
    assert "2 of 6 'system' groups (200 of 600 items) have no label" in out
    assert "the labels look drawn by prompt" in out
