"""Pairwise readers (Arena, AlpacaEval, MT-Bench) on the shipped samples, and the
pairwise judge diagnostics (values and interval coverage both ways)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from bacon_bayes.doctor.pairs import (
    auc_delong,
    auc_interval,
    cohen_kappa,
    mean_interval,
    pair_judge_diagnostics,
    wilson,
)
from bacon_bayes.errors import ValidationError
from bacon_bayes.readers.pairwise import (
    read_alpacaeval,
    read_arena,
    read_mt_bench,
    read_pairwise,
    sniff_pairwise,
)

DATA = Path(__file__).parent / "data" / "pairwise"
SAMPLE = Path(__file__).parent.parent / "bacon_bayes" / "data" / "arena_sample.csv.gz"
CANON = ["id", "prompt", "model_a", "model_b", "label"]
VERDICTS = {"A", "B", "tie"}


def _verdicts_ok(col: pd.Series) -> bool:
    return set(col.dropna()) <= VERDICTS


# ---------------------------------------------------------------- readers


def test_arena_csv_with_judges() -> None:
    df, meta = read_pairwise(DATA / "arena_votes.csv")
    assert meta.format == "arena" and meta.pairwise
    assert list(df.columns) == [*CANON, "gpt4", "claude3_opus", "gpt35"]
    assert meta.judges == ["gpt4", "claude3_opus", "gpt35"]
    assert (meta.model_a, meta.model_b, meta.label) == ("model_a", "model_b", "label")
    assert len(df) == 40 and df["label"].isna().sum() == 10
    assert df["label"].iloc[-10:].isna().all()
    raw = pd.read_csv(DATA / "arena_votes.csv")
    assert list(df["prompt"]) == list(raw["question_id"])
    want = raw["winner"].map({"model_a": "A", "model_b": "B", "tie": "tie", "tie (bothbad)": "tie"})
    pd.testing.assert_series_equal(df["label"], want, check_names=False)
    assert all(_verdicts_ok(df[c]) for c in ["label", *meta.judges])


def test_arena_conversations_jsonl() -> None:
    df, meta = read_pairwise(DATA / "arena_conversations.jsonl")
    assert list(df.columns) == CANON and meta.judges == []  # the voting user is no judge
    assert len(df) == 30 and df["label"].notna().all()
    raw = [json.loads(line) for line in open(DATA / "arena_conversations.jsonl")]
    bothbad = sum(r["winner"] == "tie (bothbad)" for r in raw)
    assert bothbad > 0 and any("bothbad" in n for n in meta.notes)
    assert (df["label"] == "tie").sum() == sum("tie" in r["winner"] for r in raw)


def test_arena_round_trip(tmp_path: Path) -> None:
    df, meta = read_pairwise(DATA / "arena_votes.csv")
    path = tmp_path / "canon.csv"
    df.to_csv(path, index=False)
    back, meta2 = read_arena(path)
    assert meta2.judges == meta.judges
    pd.testing.assert_frame_equal(back, df)
    js = tmp_path / "canon.json"
    df.to_json(js, orient="records")
    back_js, _ = read_arena(js)
    pd.testing.assert_frame_equal(back_js, df)


def test_arena_probability_judge(tmp_path: Path) -> None:
    rows = [
        {"model_a": "x", "model_b": "y", "winner": "model_a", "p": 0.7, "v": 1},
        {"model_a": "y", "model_b": "x", "winner": None, "p": None, "v": 0.5},
    ]
    path = _write(tmp_path, "p.jsonl", rows)
    df, meta = read_arena(path, judges=["p", "v"])
    assert df["p"].iloc[0] == 0.7 and pd.isna(df["p"].iloc[1])
    assert list(df["v"]) == ["A", "tie"] and pd.isna(df["label"].iloc[1])
    assert any("P(A wins)" in n for n in meta.notes)


def test_alpacaeval_annotations() -> None:
    path = DATA / "alpacaeval_annotations.json"
    df, meta = read_pairwise(path)
    judges = ["weighted_alpaca_eval_gpt4_turbo", "alpaca_eval_gpt4_turbo_fn"]
    assert meta.format == "alpacaeval" and meta.judges == judges
    assert list(df.columns) == [*CANON, *judges]
    assert len(df) == 30 and (df["model_a"] == "gpt4_1106_preview").all()
    assert df["label"].notna().sum() == 12
    raw = json.loads(path.read_text())
    fn = df.set_index("prompt")["alpaca_eval_gpt4_turbo_fn"]
    assert fn.iloc[4] == "tie" and fn.iloc[7] == "tie" and pd.isna(fn.iloc[9])  # 1.5, 0, null
    swapped = [
        r for r in raw if r["annotator"] == "human" and r["generator_2"] == "gpt4_1106_preview"
    ]
    assert len(swapped) == 3
    labels = df.set_index("prompt")["label"]
    for r in swapped:  # preference 1 = generator_1 (the model, canonical B) won
        assert labels[r["instruction"]] == ("B" if r["preference"] == 1.0 else "A")
    w = [r for r in raw if r["annotator"] == "weighted_alpaca_eval_gpt4_turbo"]
    graded = sum(1 < r["preference"] < 2 and r["preference"] != 1.5 for r in w)
    assert graded and f"{graded} preferences between 1 and 2" in " ".join(meta.notes)  # said
    probs, _ = read_alpacaeval(path, probabilities=True)
    np.testing.assert_allclose(
        probs["weighted_alpaca_eval_gpt4_turbo"], [2 - r["preference"] for r in w]
    )
    assert _verdicts_ok(probs["label"])


def test_mt_bench_judgments_and_humans() -> None:
    judged, human = DATA / "mt_bench_gpt-4_pair.jsonl", DATA / "mt_bench_human_judgments.json"
    assert sniff_pairwise(judged) == "mt-bench" and sniff_pairwise(human) == "mt-bench"
    df, meta = read_mt_bench(judged, human)
    games = ["gpt-4/pair-v2|game1", "gpt-4/pair-v2|game2"]
    assert list(df.columns) == [*CANON, *games, "turn", "n_votes"]
    assert meta.judges == games and len(df) == 30  # pair-v2-multi-turn: same judge
    assert any("JUDGE|game1 and JUDGE|game2" in n for n in meta.notes)
    rows = [json.loads(line) for line in open(judged)]
    key = df.set_index(["prompt", "turn"])
    word = {"model_1": "A", "model_2": "B", "tie": "tie"}
    for r in rows:  # each game its own column, both as model_1 (= model_a) vs model_2
        got = key.loc[(r["question_id"], r["turn"])]
        assert (got["model_a"], got["model_b"]) == (r["model_1"], r["model_2"])
        for game, field in zip(games, ("g1_winner", "g2_winner"), strict=True):
            if r[field] == "error":
                assert pd.isna(got[game])
            else:
                assert got[game] == word[r[field]]
    # the sample has inconsistent game pairs (FastChat's merged verdict would call them
    # ties) and one error game whose other game is kept
    both = df[games].dropna()
    assert (both[games[0]] != both[games[1]]).sum() >= 3
    assert df[games].isna().sum(axis=1).tolist().count(1) == 1
    # question 96 is listed swapped in the human file: its votes are flipped
    votes = json.loads(human.read_text())
    q96 = [v for v in votes if v["question_id"] == 96 and v["turn"] == 1]
    row = key.loc[(96, 1)]
    assert q96[0]["model_a"] == row["model_b"] and row["n_votes"] == 2
    flipped = [{"model_a": "B", "model_b": "A"}.get(v["winner"], "tie") for v in q96]
    assert row["label"] == (flipped[0] if flipped[0] == flipped[1] else "tie")
    assert df["label"].notna().sum() == 10
    alone, _ = read_pairwise(human)
    assert alone.loc[alone["prompt"] == 96, "model_a"].iloc[0] == "llama-13b"


def test_mt_bench_games_of_a_swapped_row_are_flipped(tmp_path: Path) -> None:
    row = {"question_id": 81, "model_1": "x", "model_2": "y", "g1_winner": "model_1",
           "g2_winner": "model_2", "judge": ["j1", "pair-v2"], "turn": 1}  # fmt: skip
    swapped = row | {"model_1": "y", "model_2": "x", "g2_winner": "error", "judge": ["j2", "p"]}
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (row, swapped)))
    df, meta = read_mt_bench(path)
    assert meta.judges == ["j1/pair-v2|game1", "j1/pair-v2|game2", "j2/p|game1", "j2/p|game2"]
    got = df.iloc[0]
    assert (got["model_a"], got["j1/pair-v2|game1"], got["j1/pair-v2|game2"]) == ("x", "A", "B")
    assert got["j2/p|game1"] == "B" and pd.isna(got["j2/p|game2"])  # y won, as model_1
    assert any(n.startswith("1 judgment rows list their pair the other way") for n in meta.notes)


# ---------------------------------------------------------------- bad input


def _write(tmp_path: Path, name: str, rows: list[dict]) -> Path:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif name.endswith(".json"):
        path.write_text(json.dumps(rows))
    else:
        pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_errors_name_file_row_field_and_fix(tmp_path: Path) -> None:
    ok = {"question_id": "q", "model_a": "x", "model_b": "y", "winner": "model_a"}
    bad = _write(tmp_path, "a.csv", [ok, ok, ok | {"winner": "model_c"}])
    with pytest.raises(
        ValidationError, match=r"a\.csv' row 3, field 'winner'.*'model_c'.*A, B or tie"
    ):
        read_arena(bad)
    same = _write(tmp_path, "s.csv", [ok, ok | {"model_b": "x"}])
    with pytest.raises(ValidationError, match=r"row 2: both models are 'x'"):
        read_arena(same)
    lost = _write(tmp_path, "l.json", [ok, {k: v for k, v in ok.items() if k != "model_b"}])
    with pytest.raises(ValidationError, match=r"row 2: field 'model_b' is missing"):
        read_arena(lost)
    alp = {"instruction": "i", "generator_1": "x", "generator_2": "y", "annotator": "j"}
    pref = _write(
        tmp_path, "p.json", [alp | {"preference": 1}, alp | {"instruction": "k", "preference": 3}]
    )
    with pytest.raises(ValidationError, match=r"row 2, field 'preference'.*3.*1 \(output_1"):
        read_alpacaeval(pref)
    twice = _write(tmp_path, "t.json", [alp | {"preference": 1}, alp | {"preference": 2}])
    with pytest.raises(ValidationError, match=r"rows 1 and 2: judge 'j' judged .* twice"):
        read_alpacaeval(twice)
    # one pair battled twice on an instruction, other outputs (walk of session 59): two
    # battles, where it was refused as one judged twice
    again = [alp | {"output_1": "o1", "output_2": "o2", "preference": 1},
             alp | {"output_1": "o3", "output_2": "o4", "preference": 2}]  # fmt: skip
    battles, _ = read_alpacaeval(_write(tmp_path, "b.json", again))
    assert list(battles["j"]) == ["A", "B"]
    mt = {"question_id": 81, "model_1": "x", "model_2": "y", "g1_winner": "A", "g2_winner": "tie",
          "judge": ["gpt-4", "pair-v2"], "turn": 1}  # fmt: skip
    game = _write(tmp_path, "g.jsonl", [mt])
    with pytest.raises(
        ValidationError, match=r"row 1, field 'g1_winner'.*model_1, model_2, tie or error"
    ):
        read_mt_bench(game)
    other = _write(tmp_path, "o.json", [{"foo": 1}])
    with pytest.raises(ValidationError, match=r"no pairwise format.*model_a, model_b, winner"):
        read_pairwise(other)
    with pytest.raises(ValidationError, match="format 'x' is unknown"):
        read_pairwise(DATA / "arena_votes.csv", format="x")


# ---------------------------------------------------------------- diagnostics


def test_diagnostics_on_shipped_sample() -> None:
    df, meta = read_pairwise(SAMPLE)
    assert meta.judges == ["gpt4", "claude3_opus", "gpt35"]  # human_full is no judge
    assert len(df) == 3000 and df["label"].notna().sum() == 400
    d = pair_judge_diagnostics(df, "label", meta.judges).set_index("judge")
    assert d.loc["label", "role"] == "human" and d.loc["label", "n"] == 400
    for j in meta.judges:
        both = df[["label", j]].dropna()
        want = cohen_kappa_score(both[j], both["label"], labels=["A", "B", "tie"])
        assert d.loc[j, "kappa"] == pytest.approx(want, abs=1e-12)
        assert d.loc[j, "agreement"] == pytest.approx((both[j] == both["label"]).mean())
        assert d.loc[j, "n"] == 3000 and d.loc[j, "n_labeled"] == 400
    assert d.loc["gpt35", "p_a"] > 0.8 and d.loc["gpt35", "position_lo"] > 0.6
    assert d.loc["gpt4", "kappa_lo"] > d.loc["gpt35", "kappa_hi"]
    assert d.loc["gpt4", "auc_lo"] > 0.5


def test_diagnostics_reject_non_verdicts() -> None:
    df = pd.DataFrame({"label": ["A", "B"], "j": ["A", "maybe"]})
    with pytest.raises(ValidationError, match=r"column 'j', row 1: 'maybe' is not a verdict"):
        pair_judge_diagnostics(df, "label", ["j"])
    # a judge of probabilities that A wins: its position bias (mean of 2p - 1) and AUC,
    # no tie rate or kappa (it has no verdicts)
    df = pd.DataFrame({"label": ["A", "B", "A"], "j": [0.7, 0.2, 0.9]})
    row = pair_judge_diagnostics(df, "label", ["j"]).iloc[1]
    assert row["position_bias"] == pytest.approx((0.4 - 0.6 + 0.8) / 3)
    assert row["auc"] == 1.0 and np.isnan(row["tie_rate"]) and np.isnan(row["kappa"])
    with pytest.raises(ValidationError, match="column 'k' is not in the table"):
        pair_judge_diagnostics(df, "label", ["k"])


def _band(hits: int, reps: int, level: float = 0.95) -> None:
    lo, hi = stats.binom.ppf([0.005, 0.995], reps, level)
    assert lo <= hits <= hi, f"coverage {hits}/{reps} outside the 99% band [{lo}, {hi}]"


REPS = 800


def test_share_intervals_cover_both_ways() -> None:
    rng = np.random.default_rng(7)
    p = np.array([0.55, 0.3, 0.15])  # A, B, tie
    draws = rng.choice(3, size=(REPS, 150), p=p)
    tie_hits = bias_hits = 0
    for row in draws:
        lo, hi = wilson(int((row == 2).sum()), len(row))
        tie_hits += lo <= p[2] <= hi
        _, blo, bhi = mean_interval((row == 0).astype(float) - (row == 1))
        bias_hits += blo <= p[0] - p[1] <= bhi
    _band(tie_hits, REPS)
    _band(bias_hits, REPS)


def test_kappa_and_auc_intervals_cover_both_ways() -> None:
    rng = np.random.default_rng(8)
    joint = np.array([[0.22, 0.05, 0.06], [0.04, 0.2, 0.05], [0.08, 0.07, 0.23]])  # judge x human
    rows, cols = joint.sum(1), joint.sum(0)
    pe = rows @ cols
    kappa_true = (np.trace(joint) - pe) / (1 - pe)
    score = np.array([1.0, 0.0, 0.5])
    pos = joint[:, 0] / cols[0]  # judge's verdict given human A
    neg = joint[:, 1] / cols[1]
    auc_true = float(
        sum(
            pos[i] * neg[k] * ((score[i] > score[k]) + 0.5 * (score[i] == score[k]))
            for i in range(3)
            for k in range(3)
        )
    )
    z = stats.norm.ppf(0.975)
    k_hits = a_hits = 0
    for _ in range(REPS):
        cells = rng.choice(9, size=250, p=joint.ravel())
        x, y = cells // 3, cells % 3
        kap, se, _ = cohen_kappa(x, y)
        k_hits += abs(kap - kappa_true) <= z * se
        auc, ase = auc_delong(score[x[y == 0]], score[x[y == 1]])
        lo, hi = auc_interval(auc, ase)
        a_hits += lo <= auc_true <= hi
    _band(k_hits, REPS)
    _band(a_hits, REPS)


def test_json_lines_named_json_are_read(tmp_path: Path) -> None:
    """The Prediction-Powered Ranking repository ships its Arena votes as JSON Lines named
    `human.json`: every reader refused them as "not valid JSON (Extra data: line 2)". A
    `.json` file whose first line is a whole object with more after it is JSON Lines; a
    labels file in JSON Lines joins by id (it was read as a CSV of JSON fragments)."""
    from bacon_bayes.readers import join_labels, read_any, sniff
    from bacon_bayes.readers.pair_table import read_pair_table

    rows = [
        {"question_id": f"q{k}", "model_a": "m1", "model_b": "m2",
         "winner": ["model_a", "model_b", "tie"][k % 3], "gpt4": ["A", "B", "tie"][k % 2]}
        for k in range(12)
    ]  # fmt: skip
    path = tmp_path / "human.json"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert sniff(path) == "jsonl"
    frame, roles = read_pair_table(path)
    assert len(frame) == 12 and roles.judges == ["gpt4"]
    one = tmp_path / "one.json"  # one object on one line is a JSON document
    one.write_text(json.dumps({"a": 1}) + "\n")
    assert sniff(one) == "json"
    labels = tmp_path / "labels.json"
    labels.write_text("\n".join(json.dumps({"id": k, "human": k % 5}) for k in range(4)))
    table = pd.DataFrame({"id": range(10), "judge": np.linspace(0, 1, 10)})
    joined, key = join_labels(table, labels, "human", "id")
    assert key == "id" and joined["human"].notna().sum() == 4
    assert read_any(path)[0].shape[0] == 12


def test_labels_as_a_json_array_of_records(tmp_path: Path) -> None:
    """`--labels labels.json` holding `[{"id": .., "human": ..}, ...]` was read as a CSV
    (one garbled column); it joins by id, and its label column is found without
    `--label`. JSON that is not an array of records is refused with the form to use."""
    from bacon_bayes.readers import join_labels
    from bacon_bayes.readers.labels import label_column

    table = pd.DataFrame({"id": range(10), "judge": np.linspace(0, 1, 10)})
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps([{"id": k, "human": k % 5} for k in range(4)], indent=1))
    assert label_column(table, labels, None) == "human"
    joined, key = join_labels(table, labels, "human", "id")
    assert key == "id" and joined["human"].tolist()[:4] == [0, 1, 2, 3]
    labels.write_text(json.dumps({"id": [0, 1], "human": [1, 2]}))
    with pytest.raises(ValidationError, match="not an array of records"):
        join_labels(table, labels, "human", "id")


def test_left_and_right_are_votes_and_a_one_two_coding_is_refused() -> None:
    """Votes spelled left / right (a labelling tool's first and second answer) were
    refused while A / B / tie were read: they are A and B now, in the readers, the pool and
    the doctor's diagnostics. A coding of 1 / 2 stays refused (its 0 may be a tie, which
    0 = B wins would misread), as does any other word, with the accepted spellings."""
    from bacon_bayes import EvalPool
    from bacon_bayes.doctor.pairs import verdict_codes
    from bacon_bayes.readers.pairwise import to_verdict

    assert [to_verdict(v) for v in ("left", " Right ", "LEFT", "tie")] == ["A", "B", "A", "tie"]
    votes = pd.Series(["left", "right", "tie", None], name="label")
    assert list(verdict_codes(votes, "label", human=True)) == [0, 1, 2, -1]
    df = pd.DataFrame(
        {"model_a": ["m1", "m2", "m3", "m1"], "model_b": ["m2", "m3", "m1", "m3"],
         "label": ["left", "right", "tie", None], "judge": ["right", "left", "A", "B"]}
    )  # fmt: skip
    pool = EvalPool.from_pairs(
        df, model_a="model_a", model_b="model_b", label="label", judges=["judge"]
    )
    assert list(pool.y[:3]) == [1.0, 0.0, 0.5]
    assert list(pool.judge_matrix().iloc[:, 0]) == [0.0, 1.0, 1.0, 0.0]
    for bad in ("2", "maybe"):
        with pytest.raises(ValidationError) as err:
            to_verdict(bad, "column 'label'")
        assert "left / right" in str(err.value) and "1 / 2" in str(err.value), err.value
    df.loc[0, "label"] = "2"
    with pytest.raises(ValidationError, match=r"'2'.*left / right"):
        EvalPool.from_pairs(
            df, model_a="model_a", model_b="model_b", label="label", judges=["judge"]
        )


MODELS = np.array(["m1", "m2", "m3", "m4"])


def _comparisons(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """``n`` comparisons of two of :data:`MODELS` (codes of A and B), the true verdicts and
    a judge's, right 80% of the time."""
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    truth = rng.choice(["A", "B", "tie"], n, p=[0.45, 0.4, 0.15])
    judge = np.where(rng.random(n) < 0.8, truth, rng.choice(["A", "B", "tie"], n))
    return a, b, truth, judge


def test_a_judge_naming_the_assistant_it_prefers_is_read(tmp_path: Path, capsys) -> None:
    """Walk of tables nobody prepared (Arena, session 51): a judge column of MT-Bench-style
    replies (``Assistant A`` / ``Assistant B`` / ``Tie``) was left out of the judges ("holds
    words naming A and B that are not verdicts") beside judges written ``[[A]]`` and
    ``A>B``. Such replies (also ``Response B``, AlpacaEval's ``Output (a)``) are A / B."""
    from bacon_bayes.cli import main
    from bacon_bayes.readers.pairwise import to_verdict

    said = ("Assistant A", "assistant b", "Response A", "Output (b)", "Model B", "Tie")
    assert [to_verdict(v) for v in said] == ["A", "B", "A", "B", "B", "tie"]
    rng = np.random.default_rng(2)
    n = 240
    a, b, truth, judge = _comparisons(rng, n)
    vote = np.where(rng.random(n) < 0.3, truth, "")
    words = {"A": "Assistant A", "B": "Assistant B", "tie": "Tie"}
    pd.DataFrame(
        {
            "model_a": MODELS[a],
            "model_b": MODELS[b],
            "winner": vote,
            "claude": [words[v] for v in judge],
            "gpt4": [f"[[{v if v != 'tie' else 'C'}]]" for v in judge[::-1]],
        }
    ).to_csv(tmp_path / "votes.csv", index=False)
    assert main(["doctor", str(tmp_path / "votes.csv")]) == 0
    out = capsys.readouterr().out
    assert "not verdicts" not in out and "--judge claude" in out, out


def test_a_table_of_preferences_named_by_position_is_read_as_comparisons(
    tmp_path: Path, capsys
) -> None:
    """Walk of session 58 (Arena votes exported as a preference sheet): judges writing
    ``Response 1`` / ``Response 2`` / ``Tie``, models in ``model_1`` / ``model_2`` and the
    people's votes in ``annotator_choice`` (Arena's ``model_a``, ``tie (bothbad)``) were
    refused: "has no judge verdict columns". The words name the first and second answer
    shown (a bare 1 / 2 stays unread: 0 may be a tie there); doctor reads the table as
    comparisons, the sparse verdict column as the votes, and prints an estimate that runs."""
    import shlex

    from bacon_bayes.cli import main
    from bacon_bayes.readers.pairwise import to_verdict

    said = ("Response 1", "response 2", "Output 1", "Answer 2", "Tie")
    assert [to_verdict(v) for v in said] == ["A", "B", "A", "B", "tie"]
    with pytest.raises(ValidationError):
        to_verdict("2")
    rng = np.random.default_rng(4)
    n = 300
    a, b, truth, judge = _comparisons(rng, n)
    arena = {"A": "model_a", "B": "model_b", "tie": "tie (bothbad)"}
    words = {"A": "Response 1", "B": "Response 2", "tie": "Tie"}
    pd.DataFrame(
        {
            "question_id": [f"q{k % 60}" for k in range(n)],
            "model_1": MODELS[a],
            "model_2": MODELS[b],
            "gpt4_preference": [words[v] for v in judge],
            "annotator_choice": [arena[v] if rng.random() < 0.3 else None for v in truth],
        }
    ).to_csv(tmp_path / "prefs.csv", index=False)
    assert main(["doctor", str(tmp_path / "prefs.csv")]) == 0
    out = capsys.readouterr().out
    assert "read as comparisons (--pairwise --model-a model_1 --model-b model_2)" in out
    assert "column 'annotator_choice': read as the human votes" in out
    command = shlex.split(out.split("run (")[1].splitlines()[1])
    assert "--judge" in command and command[command.index("--judge") + 1] == "gpt4_preference"
    assert main(command[1:]) == 0


def test_a_pair_judge_s_whole_replies_are_read_as_the_verdict_marked_last(
    tmp_path: Path, capsys
) -> None:
    """Walk of session 59 (Arena with a judge's whole replies, as FastChat's pair judge
    writes them: '... My final verdict is: [[A]]'): the column was "not used", without a
    reason. Each reply reads as the last verdict it marks; a reply marking none has no
    verdict, and the note counts them; the printed estimate takes the judge and runs."""

    from bacon_bayes.cli import main

    rng = np.random.default_rng(5)
    n = 240
    a, b, truth, judge = _comparisons(rng, n)
    marks = {"A": "[[A]]", "B": "[[B]]", "tie": "[[C]]"}
    replies = [
        f"Both answers cite [[sources]]. Assistant A is brief.\n\nMy final verdict is: {marks[v]}"
        for v in judge
    ]
    replies[7] = "I cannot judge these answers."
    _votes(rng, a, b, truth, gpt4_judgment=replies).to_csv(tmp_path / "votes.csv", index=False)
    out, command = _doctor_run(tmp_path / "votes.csv", capsys)
    assert "column 'gpt4_judgment': the verdict each judge reply marks last" in out, out
    assert "1 reply marks none: no verdict there" in out
    assert command[command.index("--judge") + 1] == "gpt4_judgment"
    assert main([*command[1:], "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert "judges gpt4_judgment;" in result["fitted"], result["fitted"]
    assert any("1 reply marks none" in note for note in result["notes"]), result["notes"]


def test_mt_bench_s_human_judgments_alone_point_to_labels(capsys) -> None:
    """Walk of session 59: doctor on MT-Bench's human judgments file alone said only "no
    judge verdict columns; name them with --judge COL", of a file that has none. It says
    the file is the labels of a judges' file."""
    from bacon_bayes.cli import main

    assert main(["doctor", str(DATA / "mt_bench_human_judgments.json")]) == 2
    err = capsys.readouterr().err
    assert "human judgments alone: pass it as --labels to a judges' file" in err, err


def test_an_arena_table_s_unique_question_id_is_its_id(tmp_path: Path, capsys) -> None:
    """Walk of session 59 (an Arena export: `question_id` unique per battle beside a
    `prompt` column): it was "not used" and the id was the row number, so labels joined
    later and a study's ids hung on the rows' order. Unique, beside a prompt, it is the id."""

    from bacon_bayes.cli import main

    rng = np.random.default_rng(7)
    n = 200
    a, b, truth, judge = _comparisons(rng, n)
    ids = rng.permutation(np.arange(10_000, 10_000 + n))
    prompts = [f"p{k % 40}" for k in range(n)]
    table = _votes(rng, a, b, truth, gpt4=judge, question_id=ids, prompt=prompts)
    table.to_csv(tmp_path / "arena.csv", index=False)
    out, command = _doctor_run(tmp_path / "arena.csv", capsys)
    assert "prompt: prompt, id: question_id" in out, out
    assert command[command.index("--item") + 1] == "question_id"
    assert main(command[1:]) == 0


def _doctor_run(path: Path, capsys) -> tuple[str, list[str]]:
    """Doctor's output on a table of comparisons and the command it prints to run."""
    import shlex

    from bacon_bayes.cli import main

    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    return out, shlex.split(out.split("run (")[1].splitlines()[1])


def _votes(rng: np.random.Generator, a, b, truth, **more) -> pd.DataFrame:
    """Comparisons of :data:`MODELS` ``a`` and ``b`` with a human vote on about 30% of them
    (``truth``; empty elsewhere) and the columns ``more``."""
    vote = np.where(rng.random(len(a)) < 0.3, truth, "")
    return pd.DataFrame({"model_a": MODELS[a], "model_b": MODELS[b], "winner": vote, **more})
