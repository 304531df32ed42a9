"""The commands ``bacon doctor`` prints run as printed on the tables it is shown
(tester B, session 36): the shipped tool logs, a small pilot, bacon judge's own long
table and a table with a column of label waves."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.cli import main

from .printed import run_python_line

LOGS = Path(__file__).resolve().parents[1] / "examples" / "logs"


def _simulate_line(out: str) -> list[str]:
    line = next(ln for ln in out.splitlines() if "bacon simulate measures" in ln)
    return shlex.split(line.split("draws samples of them): ", 1)[1])


@pytest.mark.parametrize(
    "log, labels",
    [("run.eval", "labels.csv"), ("samples_mytask_2026-01-01T00-00-00.jsonl", "doc_labels.csv")],
)
def test_the_simulate_command_doctor_prints_on_a_tool_log_runs(
    log, labels, tmp_path, capsys, monkeypatch
):
    """B F1/F2: on the README's Inspect AI and lm-eval logs (60 labels), doctor's
    `bacon simulate` command failed as printed: simulate read the Inspect zip as a CSV
    for its judges ('cannot be read ... Replace or remove it'), refused the lm-eval log
    ('no judges given') although estimate takes the format's judges, and its default
    budget 0.05 gives 3 labels, fewer than two per fold. Now simulate takes the format's
    judges and doctor names budgets the labeled rows carry."""
    monkeypatch.chdir(tmp_path)
    for name in (log, labels):
        shutil.copy(LOGS / name, name)
    assert main(["doctor", log, "--labels", labels, "--label", "human"]) == 0
    words = _simulate_line(capsys.readouterr().out)
    assert words[:3] == ["bacon", "simulate", log] and "--judge" not in words
    assert words[words.index("--budgets") + 1] == "0.2,0.3,0.5"
    assert main([*words[1:], "--trials", "2"]) == 0
    assert (tmp_path / "simulation" / "summary.csv").is_file()


POOL = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "example_pool.csv"


def _few(folder: Path) -> Path:
    """The example pool with its first 8 labels kept (6 prompts: 4 folds, not 5)."""
    import pandas as pd

    frame = pd.read_csv(POOL)
    frame.loc[frame.index[frame["human"].notna()][8:], "human"] = float("nan")
    path = folder / "few.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_pilot_too_small_for_five_folds_gets_commands_that_run(tmp_path, capsys, monkeypatch):
    """B F6: with 8 labels, doctor said 'lower --folds' (it has no --folds) and printed no
    command; plan's goal-less example `bacon plan few.csv ... --half-width 0.42` was refused
    (too few for 5 folds) and the refusal's 'plan without a pilot' named no way. Now
    doctor's command and plan's example carry --folds 4, the most the labels carry, and
    the refusal says how to plan without the pilot."""
    monkeypatch.chdir(tmp_path)
    _few(tmp_path)
    assert main(["doctor", "few.csv"]) == 0
    out = capsys.readouterr().out
    assert "the command takes --folds 4, the most they carry" in out
    lines = out.splitlines()
    estimate = shlex.split(lines[lines.index("run:") + 1])
    assert estimate[:3] == ["bacon", "estimate", "few.csv"] and estimate[-2:] == ["--folds", "4"]
    assert main([*estimate[1:], "--engine", "freq", "--json"]) == 0
    # the report on these options: 8 labels are too few for 90% conformal item intervals,
    # said in their place (the report was refused)
    assert main(["report", *estimate[2:], "--engine", "freq", "--out", "r.html"]) == 0
    assert "No item intervals: 8 labeled items are too few" in Path("r.html").read_text()
    capsys.readouterr()
    read = ["--label", "human", "--judge", "gpt*"]
    assert main(["plan", "few.csv", *read]) == 2
    example = capsys.readouterr().err.split("for example:\n", 1)[1].splitlines()[0]
    words = shlex.split(example)
    assert words[-2:] == ["--folds", "4"]
    assert main(words[1:]) == 0
    assert "recommended:" in capsys.readouterr().out
    assert main(["plan", "few.csv", *read, "--half-width", "0.4"]) == 2
    said = capsys.readouterr().err.replace("\n", " ")
    assert "--folds 4 is the most these labels carry" in said
    assert "plan without a pilot: on a copy of the table with the label column" in said


@pytest.mark.parametrize("dates", [False, True])
def test_doctor_takes_a_wave_column_as_the_labels_waves(dates, tmp_path, capsys, monkeypatch):
    """B F15: a column 'wave' (1/2, or ISO dates, on the labeled rows) was offered as a
    label ('pass --label wave') or called a category, and the printed estimate dropped
    --wave, so its intervals held at one look only. Now doctor names it the waves, puts
    --wave wave in its command (which gives the confidence sequence), and leaves it out
    of its simulate command (simulate draws its own waves)."""
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(POOL)
    labeled = frame.index[frame["human"].notna()]
    wave = pd.Series(1 + (labeled >= labeled[60]), index=labeled)
    frame["wave"] = wave.map({1: "2026-01-05", 2: "2026-02-09"}) if dates else wave
    frame.to_csv("waves.csv", index=False)
    assert main(["doctor", "waves.csv"]) == 0
    out = capsys.readouterr().out
    assert "pass --label wave" not in out and "left out  wave" not in out
    kind = "ISO dates" if dates else "numbers"
    assert f"wave      wave      named like a wave, {kind} on exactly the labeled rows" in out
    lines = out.splitlines()
    estimate = shlex.split(lines[lines.index("run:") + 1])
    assert estimate[estimate.index("--label") + 1] == "human"
    assert estimate[estimate.index("--wave") + 1] == "wave"
    assert main([*estimate[1:], "--engine", "freq"]) == 0
    assert "valid at every wave" in capsys.readouterr().out


def _judge_table() -> pd.DataFrame:
    """The shape of bacon judge's output: 12 items x 2 judges x 3 runs, extra columns."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    rows = [(f"e{i}", j, r) for i in range(12) for j in ("gpt", "llama") for r in (1, 2, 3)]
    frame = pd.DataFrame(rows, columns=["item", "judge", "run"])
    frame["score"] = rng.integers(1, 6, len(frame)).astype(float)
    frame["raw"] = frame["score"].map(lambda v: f"{v:g}")
    frame["expected_score"] = frame["score"] + rng.normal(0, 0.3, len(frame))
    frame["level_probs"] = '{"1": 0.1, "2": 0.2, "3": 0.4, "4": 0.2, "5": 0.1}'
    frame["model"] = frame["judge"].map({"gpt": "gpt-4o-mini", "llama": "llama-3.1-8b"})
    return frame


def test_doctor_names_bacon_judges_own_table_and_its_runs(tmp_path, capsys, monkeypatch):
    """B F11: on the item x judge x run table bacon judge writes, doctor took score, raw
    and expected_score as three judges and model as the group; a long table with a run
    column was said to have 'no column keys the items' though its id was there. Now
    doctor says what bacon judge's table is (--scores, or a pivot averaging the runs),
    and keys a long table with runs by its id, averaging the runs; both recipes run."""
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    scores = _judge_table()
    scores.to_parquet("scores.parquet")
    assert main(["doctor", "scores.parquet"]) == 0
    out = capsys.readouterr().out
    assert "judge     score" not in out and "group     model" not in out
    assert "id        item" in out
    flat = out.replace("\n", " ")
    assert "the long item x judge x run table bacon judge writes (12 items, 2 judges" in flat
    assert "--scores FILE" in flat
    assert "pd.read_parquet('scores.parquet')" in run_python_line(flat)
    wide = pd.read_csv("wide.csv")
    assert wide.shape == (12, 3)
    assert wide["gpt"].iloc[0] == pytest.approx(scores["score"].iloc[:3].mean())
    # a long table with the labels, an id and a run column
    pool = pd.read_csv(POOL).head(240)
    long = pool.melt(
        id_vars=["id", "doc_id", "system", "human"],
        value_vars=["gpt4", "gpt35"],
        var_name="judge",
        value_name="score",
    )
    long = pd.concat([long.assign(run=1), long.assign(run=2)], ignore_index=True)
    long.to_csv("long.csv", index=False)
    assert main(["doctor", "long.csv"]) == 0
    flat = capsys.readouterr().out.replace("\n", " ")
    assert "no column keys the items" not in flat
    assert "'id' keys the items (one row per item and judge in each run of 'run')" in flat
    recipe = run_python_line(flat)
    assert "aggfunc='mean'" in recipe and "pd.read_csv('long.csv')" in recipe
    assert main(["doctor", "wide2.csv"]) == 0  # the first pivot's wide.csv is kept
    lines = capsys.readouterr().out.splitlines()
    estimate = shlex.split(lines[lines.index("run:") + 1])
    assert estimate[:3] == ["bacon", "estimate", "wide2.csv"]
    assert main([*estimate[1:], "--engine", "freq", "--json"]) == 0


def test_columns_named_with_a_dash_first_or_shell_characters_get_commands_that_run(
    tmp_path, capsys, monkeypatch
):
    """Walk of new table shapes: a judge column '-llama70b' went into doctor's command as
    ``--judge -llama70b``, which argparse refuses ("--judge: expected one argument"); a
    value starting with '-' is glued to its option (``--judge=-llama70b``), as --scale's
    is, and names with commas, quotes, stars and spaces run as printed too."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(
        Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "example_pool.csv"
    )
    frame = frame.rename(
        columns={
            "gpt4": "-gpt4",
            "gpt35": "gpt35, v2 (1-5)",
            "llama70b": "llama 'big' *70b*",
            "human": "-human",
            "system": "-system",
        }
    )
    frame[["id", "-system", "-human", "-gpt4", "gpt35, v2 (1-5)", "llama 'big' *70b*"]].to_csv(
        "odd.csv", index=False
    )
    assert main(["doctor", "odd.csv", "--label=-human"]) == 0
    lines = capsys.readouterr().out.splitlines()
    words = shlex.split(lines[lines.index("run:") + 1])
    assert "--judge=-gpt4" in words and "--label=-human" in words and "--group=-system" in words
    assert main([*words[1:], "--engine", "freq", "--json"]) == 0


SUMMEVAL = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "summeval_sample.csv.gz"


@pytest.mark.parametrize("named", [False, True])
def test_the_pools_empty_label_column_gets_the_bacon_sample_command(
    named, tmp_path, capsys, monkeypatch
):
    """Session 47 walk: `bacon doctor pool.csv` on a pool whose own label column
    (`coherence`) is empty said "label a sample of items (bacon sample)" and printed no
    command. It prints the `bacon sample` that draws a uniform pilot into that column
    with the roles it found (id, judges, group, prompt, the judges' scale, the summaries
    to show), found or named with --label, and the command runs as printed."""
    monkeypatch.chdir(tmp_path)
    f = pd.read_csv(SUMMEVAL)
    pool = pd.DataFrame({"item": f["item"], "system": f["system"], "doc": f["doc_id"]})
    pool["summary"] = f["summary"]
    for short, name in (("gpt4", "gpt-4-0314"), ("llama70b", "llama-2-70b-chat-hf")):
        pool[short] = f[f"judge:{name}|rts|coherence"]
    pool["coherence"] = float("nan")
    pool.to_csv("pool.csv", index=False)
    assert main(["doctor", "pool.csv", *(["--label", "coherence"] if named else [])]) == 0
    out = capsys.readouterr().out
    assert "column 'coherence' is empty, so label a sample of items into it" in out, out
    lines = out.splitlines()
    words = shlex.split(lines[lines.index("run, to draw the first items to label:") + 1])
    budget = max(20, -(-len(pool) * 3 // 100))
    assert words == [
        "bacon", "sample", "pool.csv", "--label", "coherence", "--item", "item",
        "--judge", "gpt4", "--judge", "llama70b", "--group", "system", "--prompt", "doc",
        "--scale", "1:5", "--show", "summary", "--design", "uniform", "--budget", str(budget),
    ], words  # fmt: skip
    assert main(words[1:]) == 0
    todo = pd.read_csv(tmp_path / "pool.study" / "todo-wave1.csv")
    assert len(todo) == budget and {"item", "coherence", "summary"} <= set(todo.columns)
    assert "run:" not in lines  # no bacon estimate before any label: it would be refused


def test_a_pool_with_no_label_column_gets_the_bacon_sample_command(tmp_path, capsys, monkeypatch):
    """New user, round 3 (WMT22 zh-en: 5 systems x 150 segments, three metrics, no label
    column yet): doctor said "label a sample of items (bacon sample), then pass them with
    --labels FILE --label COLUMN" and printed no command. It prints the `bacon sample`
    that starts a study collecting a new label ('human', a name the pool does not use),
    and the command runs as printed."""
    monkeypatch.chdir(tmp_path)
    f = pd.read_csv(SUMMEVAL)
    pool = pd.DataFrame({"id": f["item"], "system": f["system"], "doc": f["doc_id"]})
    pool["summary"] = f["summary"]
    pool["human"] = "x"  # a text column of that name: the new label takes the next name
    for short, name in (("gpt4", "gpt-4-0314"), ("llama70b", "llama-2-70b-chat-hf")):
        pool[short] = f[f"judge:{name}|rts|coherence"]
    pool.to_csv("pool.csv", index=False)
    assert main(["doctor", "pool.csv"]) == 0
    out = capsys.readouterr().out
    assert "the pool has no label column, so label a sample of items into a new one, " \
        "'human_label' (name it as you like with --label)" in out, out  # fmt: skip
    lines = out.splitlines()
    words = shlex.split(lines[lines.index("run, to draw the first items to label:") + 1])
    assert words[:5] == ["bacon", "sample", "pool.csv", "--label", "human_label"], words
    assert {"--prompt", "doc", "--group", "system", "--item", "id"} <= set(words), words
    assert main(words[1:]) == 0
    todo = pd.read_csv(tmp_path / "pool.study" / "todo-wave1.csv")
    assert {"id", "human_label"} <= set(todo.columns) and todo["human_label"].isna().all()
    assert "run:" not in lines
