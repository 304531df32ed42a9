"""Every command ``bacon plan`` and ``bacon estimate`` print runs exactly as printed
(issue 43): the ``run:`` lines are parsed, split as a shell would and run, on a table
nobody prepared (an ``id`` column found, not named; numeric prompts; a pilot's labels
already in the label column, which ``bacon sample`` records as a uniform first wave)."""

from __future__ import annotations

import html
import json
import shlex
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.study import Study, load_study

from .printed import is_python, run_python_line

READ = ["--label", "human", "--judge", "judge_*", "--group", "system", "--prompt", "doc"]


def table(folder: Path, gap: float = 0.3, seed: int = 5) -> Path:
    """6 systems x 120 numeric prompts, system s5 ahead by ``gap``; 12% labeled."""
    rng = np.random.default_rng(seed)
    systems, prompts = 6, 120
    g = np.repeat(np.arange(systems), prompts)
    p = np.tile(np.arange(prompts), systems)
    y = rng.normal(0, 1, prompts)[p] + gap * (g == systems - 1) + rng.normal(0, 1, g.size)
    frame = pd.DataFrame(
        {"id": [f"x{k:04d}" for k in range(g.size)], "doc": p, "system": [f"s{k}" for k in g]}
    )
    for j in range(3):
        frame[f"judge_{j}"] = y + rng.normal(0, 0.8, g.size)
    frame["human"] = np.where(rng.random(g.size) < 0.12, y, np.nan)
    folder.mkdir(parents=True, exist_ok=True)
    frame.to_csv(folder / "pool.csv", index=False)
    return folder / "pool.csv"


def run_lines(text: str) -> list[list[str]]:
    """The commands of the ``run:`` lines, split as a shell would (without ``bacon``)."""
    out = []
    for line in text.splitlines():
        if line.strip().startswith("run:"):
            words = shlex.split(line.strip()[len("run:") :])
            assert words[0] == "bacon", line
            out.append(words[1:])
    return out


def test_every_design_plan_prints_runs_and_continues_the_pilot(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table(tmp_path)
    assert main(["plan", "pool.csv", *READ, "--top", "--json"]) == 0
    designs = json.loads(capsys.readouterr().out)["designs"]
    commands = {d["design"]: shlex.split(d["command"]) for d in designs if d["command"]}
    assert set(commands) == {"uniform", "stratified", "paired", "adaptive"}
    for design, words in commands.items():
        here = tmp_path / design
        here.mkdir()
        shutil.copy(tmp_path / "pool.csv", here / "pool.csv")
        monkeypatch.chdir(here)
        assert main(words[1:]) == 0, (design, capsys.readouterr().err)
        said = capsys.readouterr().out
        assert "recorded as a first wave drawn uniformly" in said
        study = Study.open(here / "pool.study")
        assert study.config.item == "id"  # found as bacon estimate finds it
        pilot = int(pd.read_csv(here / "pool.csv")["human"].notna().sum())
        assert len(study.labels) == pilot and study.wave_numbers == [1, 2]
        pi = study.wave_probabilities()[:, 0]
        assert np.allclose(pi, pilot / study.n_items)  # uniform unless told otherwise
        budget = int(words[words.index("--budget") + 1])
        drawn = int(study.selected_in()[:, 1].sum())
        assert abs(drawn - budget) <= 0.1 * budget + 6, (design, drawn, budget)
        data = load_study(here / "pool.study", allow_pending=True)
        assert data.frame["human"].notna().sum() == pilot


def test_the_printed_text_commands_run(tmp_path, capsys, monkeypatch):
    """The recommendation's ``run:`` line of ``bacon plan`` and the plan line of
    ``bacon estimate`` (it was ``bacon plan ... --top``, not a command)."""
    monkeypatch.chdir(tmp_path)
    table(tmp_path)
    assert main(["estimate", "pool.csv", *READ, "--engine", "freq"]) == 0
    printed = run_lines(capsys.readouterr().out)
    assert printed and printed[0][0] == "plan" and printed[0][-1] == "--top"
    assert main(printed[0]) == 0
    from_plan = run_lines(capsys.readouterr().out)
    assert len(from_plan) == 1 and from_plan[0][0] == "sample"
    assert main(from_plan[0]) == 0, capsys.readouterr().err
    assert Study.open(tmp_path / "pool.study").wave_numbers == [1, 2]
    # the report's plan line: the same command
    assert main(["report", "pool.csv", *READ, "--engine", "freq", "--out", "r.html"]) == 0
    page = (tmp_path / "r.html").read_text()
    line = html.unescape(page.split("run: ", 1)[1].split("<", 1)[0])
    assert shlex.split(line)[1:] == printed[0]


@pytest.mark.parametrize(
    ("prior", "expected"),
    [("stratified:system", "by_system"), ("pi", "column")],
)
def test_the_pilot_can_be_recorded_as_drawn_otherwise(tmp_path, capsys, prior, expected):
    path = table(tmp_path)
    frame = pd.read_csv(path)
    frame["pi"] = 0.12
    frame.to_csv(path, index=False)
    assert main(["sample", str(path), "--label", "human", "--budget", "20",
                 "--prior-design", prior]) == 0  # fmt: skip
    study = Study.open(tmp_path / "pool.study")
    pi = study.wave_probabilities()[:, 0]
    labeled = frame["human"].notna()
    if expected == "by_system":
        share = labeled.groupby(frame["system"]).transform("mean").to_numpy()
        assert np.allclose(pi, share)
    else:
        assert np.allclose(pi, 0.12)


def test_a_bad_prior_design_or_no_id_is_refused_and_writes_nothing(tmp_path, capsys):
    path = table(tmp_path)
    assert main(["sample", str(path), "--label", "human", "--budget", "20",
                 "--prior-design", "nope"]) == 2  # fmt: skip
    assert "--prior-design names column 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "pool.study").exists()
    pd.read_csv(path).drop(columns="id").to_csv(path, index=False)
    assert main(["sample", str(path), "--label", "human", "--budget", "20"]) == 2
    assert "pass --item COLUMN" in capsys.readouterr().err
    assert not (tmp_path / "pool.study").exists()


def test_no_sample_command_for_a_file_sample_cannot_read(tmp_path, capsys):
    """A JSON Lines log: ``bacon sample`` reads tables and studies only, so the plan
    prints no command it cannot run, and says why."""
    path = table(tmp_path)
    log = tmp_path / "log.jsonl"
    pd.read_csv(path).to_json(log, orient="records", lines=True)
    assert main(["plan", str(log), *READ, "--top"]) == 0
    out = capsys.readouterr().out
    assert not run_lines(out) and "bacon sample draws from a CSV or Parquet table" in out


def test_a_log_sample_cannot_read_gets_the_line_that_writes_it_as_csv(
    tmp_path, capsys, monkeypatch
):
    """Walk of new table shapes: on a JSON Lines file the plan said "write the table out"
    (with pandas' read_json the nested columns doctor named, ``scores.gpt4``, are not
    there), and ``bacon sample`` on it stopped with pandas' "Error tokenizing data". Both
    give the line that writes it as the CSV every command reads, and sample runs on it."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(table(tmp_path))
    with open("log.jsonl", "w") as fh:
        for row in frame.to_dict("records"):
            judges = {k: row.pop(k) for k in list(row) if k.startswith("judge_")}
            fh.write(json.dumps({**row, "scores": judges}) + "\n")
    read = ["--label", "human", "--judge", "scores.*", "--group", "system", "--item", "id"]
    assert main(["plan", "log.jsonl", *read, "--half-width", "0.1"]) == 0
    line = " ".join(capsys.readouterr().out.split()).split("write the table out (", 1)[1]
    assert line.split(") and run bacon plan on ")[1].startswith("log.csv for the command")
    assert main(["sample", "log.jsonl", *read, "--budget", "10"]) == 2
    err = capsys.readouterr().err
    assert "write it out as CSV first (" in err and "Error tokenizing" not in err
    code = shlex.split(err.split("first (", 1)[1].split(") and run bacon sample")[0])[2]
    exec(code, {})
    assert main(["sample", "log.csv", *read, "--budget", "10"]) == 0


def test_no_sample_command_for_labels_joined_from_another_file_says_why(
    tmp_path, capsys, monkeypatch
):
    """With --labels (or --scores) the plan said 'bacon sample draws from a CSV or Parquet
    table ..., not 'pool.csv'' of a CSV table: the reason is the second file, which a
    study's one pool file cannot join; it now says so, and to join them first. Walk of a
    table nobody prepared: "join them into one CSV or Parquet table first" left the join
    to the user; the plan prints the line that joins them (as ``bacon sample --labels``
    does), and the plan on the joined table prints a sample command that runs."""
    monkeypatch.chdir(tmp_path)
    path = table(tmp_path)
    frame = pd.read_csv(path)
    labels = frame[["id", "human"]].dropna().rename(columns={"human": "expert score"})
    labels.to_csv("labels.csv", index=False)
    frame.drop(columns="human").to_csv(path, index=False)
    read = ["--label", "expert score", *READ[2:]]
    assert main(["plan", "pool.csv", *read, "--labels", "labels.csv", "--half-width", "0.1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert not run_lines(out) and "not 'pool.csv'" not in out
    assert (
        "no bacon sample command: a study draws from one pool file holding the judge scores "
        "and the labels, and this plan joined the labels (expert score) from 'labels.csv' "
        "onto 'pool.csv': join them into one table (a row per item, by its id 'id'; the "
        "label column empty where unlabeled): "
    ) in out
    line = shlex.split(out.split("unlabeled): ", 1)[1].split(" and run bacon plan on ")[0])
    assert is_python(line[0]) and line[1] == "-c", out
    exec(line[2], {})
    assert "and run bacon plan on pool_labeled.csv --label 'expert score' (the same" in out
    assert main(["plan", "pool_labeled.csv", *read, "--half-width", "0.04"]) == 0
    (words,) = run_lines(capsys.readouterr().out)
    assert main(words) == 0, capsys.readouterr().err
    # session 58: the join's file never replaces one in the folder (it wrote over it)
    assert main(["plan", "pool.csv", *read, "--labels", "labels.csv", "--half-width", "0.1"]) == 0
    assert "and run bacon plan on pool_labeled2.csv" in " ".join(capsys.readouterr().out.split())


def test_an_error_score_scale_runs_through_the_study(tmp_path, capsys, monkeypatch):
    """An error score (WMT22's MQM: 0 = no error, unbounded below) with
    ``--scale=-inf:0``: the plan's ``bacon sample`` command carries it as one argument
    (it printed ``--scale -inf:0``, which argparse refuses), the study records the open
    end (``study.toml`` could not store -inf), and label import, estimate, status and
    report run on the study with intervals at most 0."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(2)
    n = 300
    truth = -np.where(rng.random(n) < 0.4, 0.0, rng.gamma(1.5, 3.0, n)).round(1)
    frame = pd.DataFrame(
        {
            "id": [f"s{k:03d}" for k in range(n)],
            "system": [f"m{k % 3}" for k in range(n)],
            "metric": truth + rng.normal(0, 2, n),
        }
    )
    frame["mqm"] = np.where(rng.random(n) < 0.15, truth, np.nan)
    frame.to_csv("pool.csv", index=False)
    read = ["--label", "mqm", "--judge", "metric", "--group", "system", "--scale=-inf:0"]
    assert main(["plan", "pool.csv", *read, "--half-width", "0.25"]) == 0
    (words,) = run_lines(capsys.readouterr().out)
    assert "--scale=-inf:0" in words and "-inf:0" not in words
    assert main(words) == 0, capsys.readouterr().err
    assert Study.open(tmp_path / "pool.study").config.scale == [-np.inf, 0.0]
    todo = pd.read_csv("pool.study/todo-wave2.csv", dtype={"id": str})
    todo["mqm"] = pd.Series(truth, index=frame["id"]).loc[todo["id"]].to_numpy()
    todo.to_csv("filled.csv", index=False)
    assert main(["label", "import", "filled.csv", "--study", "pool.study"]) == 0
    capsys.readouterr()
    assert main(["estimate", "pool.study", "--engine", "freq", "--json"]) == 0
    means = json.loads(capsys.readouterr().out)
    assert main(["status", "pool.study"]) == 0
    assert main(["report", "pool.study", "--engine", "freq", "--out", "r.html"]) == 0
    assert means["interval_kind"] == "confidence sequence"
    assert all(row["ci_high"] <= 0 for row in means["groups"]["aee"]["rows"])


def test_plan_without_a_goal_names_the_goals_with_a_command_that_runs(
    tmp_path, capsys, monkeypatch
):
    """``bacon plan`` with no goal stopped with "give exactly one goal: --half-width H
    ..."; it now lists the goals with values from the table's labels and what each asks,
    and an example command that runs as printed (exit 2 still: no question is assumed)."""
    monkeypatch.chdir(tmp_path)
    table(tmp_path)
    capsys.readouterr()
    assert main(["plan", "pool.csv", *READ]) == 2
    err = capsys.readouterr().err
    for goal in ("--half-width", "--group-mean s0", "--difference s0 s1 --delta", "--top"):
        assert goal in err, err
    assert "the pilot's interval gives now" in err
    example = shlex.split(err.split("for example:", 1)[1].strip())
    assert example[0] == "bacon" and "--half-width" in example
    assert main(example[1:]) == 0
    assert "goal: CI half-width <=" in capsys.readouterr().out


def test_the_printed_sample_command_shows_the_labellers_the_response(tmp_path, capsys, monkeypatch):
    """A to-label file of ids, labels and waves gives a labeller nothing to judge: with a
    response text in the pool (as bacon doctor finds it), the `bacon sample` command bacon
    plan prints passes `--show` with it, and bacon sample without --show says so."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(table(tmp_path))
    words = np.array(["the", "answer", "is", "in", "the", "second", "paragraph"])
    rng = np.random.default_rng(0)
    frame["response"] = [" ".join(rng.choice(words, 12 + k % 9)) for k in range(len(frame))]
    frame.to_csv("pool.csv", index=False)
    assert main(["plan", "pool.csv", *READ, "--half-width", "0.04"]) == 0
    (command,) = run_lines(capsys.readouterr().out)
    assert command[0] == "sample" and command[command.index("--show") + 1] == "response"
    assert main([*command, "--out", "todo.csv"]) == 0
    assert "response" in pd.read_csv("todo.csv").columns
    assert "ids only" not in capsys.readouterr().out
    argv = ["sample", "pool.csv", "--study", "bare", "--label", "human", "--judge", "judge_0"]
    assert main([*argv, "--budget", "10", "--out", "bare.csv"]) == 0
    said = capsys.readouterr().out
    assert "the to-label file holds ids only" in said and "--show response on the next" in said
    assert list(pd.read_csv("bare.csv").columns) == ["id", "human", "wave"]
    # the wave is drawn: the hint names the command that rewrites its file with the text
    hint = next(line for line in said.splitlines() if "ids only" in line)
    rewrite = shlex.split(hint.split("`")[1])
    assert rewrite[:2] == ["bacon", "status"] and main(rewrite[1:]) == 0
    assert list(pd.read_csv("bare.csv").columns) == ["id", "human", "wave", "response"]
    # bacon sample STUDY --show COL alone drew nothing and said "needs a budget"
    assert main(["sample", "bare", "--show", "response"]) == 2
    err = capsys.readouterr().err
    assert "bacon status bare --pending-out bare/todo-wave2.csv --show response" in err
    # a pool without a response text: the hint's command named `--show COLUMN`, which
    # fails as printed; it names a pool column now, and runs
    frame.drop(columns="response").to_csv("plain.csv", index=False)
    argv = ["sample", "plain.csv", "--study", "plain", "--label", "human", "--judge", "judge_0"]
    assert main([*argv, "--budget", "10", "--out", "plain_todo.csv"]) == 0
    hint = next(line for line in capsys.readouterr().out.splitlines() if "ids only" in line)
    assert "COLUMN" not in hint
    rewrite = shlex.split(hint.split("`")[1])
    assert main(rewrite[1:]) == 0


def test_the_show_hint_names_the_question_not_a_constant_column(tmp_path, capsys, monkeypatch):
    """Finding T1-17: without a response text the hint named the pool's first other
    column: `--show lp` (one value on every row) or the system, not the question a
    labeller needs. Constant columns are skipped and the prompt comes first."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(table(tmp_path))
    frame.insert(1, "lp", "zh-en")
    frame["question"] = [f"What is asked in document {d}, and why?" for d in frame["doc"]]
    frame.drop(columns="doc").to_csv("pool.csv", index=False)
    argv = ["sample", "pool.csv", "--study", "s", "--label", "human", "--judge", "judge_0",
            "--group", "system", "--budget", "10", "--out", "todo.csv"]  # fmt: skip
    assert main(argv) == 0
    hint = next(line for line in capsys.readouterr().out.splitlines() if "ids only" in line)
    assert "--show question` rewrites it" in hint and "lp" not in hint
    assert "judge_1" not in hint and "system" not in hint  # never a score nor the group
    rewrite = shlex.split(hint.split("`")[1])
    assert main(rewrite[1:]) == 0
    assert "question" in pd.read_csv("todo.csv").columns


def test_the_show_hint_never_offers_scores_labels_or_the_group(tmp_path, capsys, monkeypatch):
    """Tester B finding 7 (round 36): without a response text the hint offered `--show
    system` and other judges' scores (gpt35, ...), and in a pool with an expert rating
    beside the label, that rating (`human`) first: each would anchor or unblind the
    labellers. It offers the item's content only (the prompt, text), else says there is
    none and why the others are not shown."""
    monkeypatch.chdir(tmp_path)
    pool = Path(__file__).resolve().parents[1] / "bacon_bayes/data/example_pool.csv"
    frame = pd.read_csv(pool)
    frame["relevance"] = frame["human"]  # the label asked; `human` an existing rating
    frame.to_csv("pool.csv", index=False)
    argv = ["sample", "pool.csv", "--item", "id", "--label", "relevance", "--judge", "gpt4",
            "--judge", "llama70b", "--group", "system", "--budget", "10"]  # fmt: skip
    assert main([*argv, "--study", "a", "--out", "a.csv"]) == 0
    hint = next(line for line in capsys.readouterr().out.splitlines() if "ids only" in line)
    assert "--show doc_id` rewrites it" in hint
    for column in ("system", "human", "gpt35", "gpt35_mcq", "llama13b", "llama7b"):
        assert column not in hint.split("`")[-1] and f"--show {column}" not in hint
    # no prompt nor text: no runnable command showing a group or scores, the reason said
    frame.drop(columns="doc_id").to_csv("bare.csv", index=False)
    argv[1] = "bare.csv"
    assert main([*argv, "--study", "b", "--out", "b.csv"]) == 0
    hint = next(line for line in capsys.readouterr().out.splitlines() if "ids only" in line)
    assert "bacon doctor finds no text of the items to show the labellers" in hint
    assert "`" not in hint and "--show system" not in hint and "gpt35" not in hint
    assert "Never show them the judges' scores, other labels or the group" in hint


def test_a_plan_on_a_pool_file_names_the_study_started_from_it(tmp_path, monkeypatch, capsys):
    """`bacon plan pool.csv` beside the pool.study a printed `bacon sample pool.csv` made:
    the plan counted only the file's labels and its printed sample added a wave to that
    study, without a word. Now the plan says so, and how to plan on the study."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(
        Path(__file__).resolve().parents[1] / "bacon_bayes/data/example_pool.csv", "pool.csv"
    )
    args = ["--item", "id", "--group", "system", "--judge", "gpt*"]
    assert main(["plan", "pool.csv", "--label", "human", *args, "--half-width", "0.05"]) == 0
    assert "was started from this pool" not in capsys.readouterr().out
    assert main(["sample", "pool.csv", "--label", "human", *args, "--budget", "0.05"]) == 0
    capsys.readouterr()
    assert main(["plan", "pool.csv", "--label", "human", *args, "--half-width", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "a study pool.study was started from this pool" in out and "bacon plan pool.study" in out


def test_a_pool_without_ids_gets_a_line_that_adds_them(tmp_path, monkeypatch, capsys):
    """WMT22, SummEval's and TriviaQA's files as shipped have no column of unique ids, and
    `--item seg_id` is refused (each segment is on 20 rows): `bacon sample` named no way
    on. Now it prints a line that writes the pool with ids (the group and prompt joined
    where they name each row once), and that line's file samples."""
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"system": np.repeat(list("abc"), 40), "seg": np.tile(np.arange(40), 3),
         "judge": rng.normal(size=120), "human": np.nan}
    )  # fmt: skip
    frame.loc[[3, 7], "judge"] = np.nan  # rows no judge scored: a study would refuse them
    frame.to_csv("pool.csv", sep=";", index=False)
    argv = ["--label", "human", "--judge", "judge", "--group", "system", "--prompt", "seg"]
    assert main(["sample", "pool.csv", *argv, "--budget", "10"]) == 2
    err = capsys.readouterr().err
    line = err.split("or add one: ", 1)[1].split(" and sample ")[0]
    code = shlex.split(line)[2]
    assert "df['system'].astype(str) + ':' + df['seg'].astype(str)" in code and "sep=';'" in code
    assert "dropna(subset=['judge'], how='all')" in code
    subprocess.run([sys.executable, "-c", code], check=True)
    ids = pd.read_csv("pool_ids.csv")["id"]
    assert ids.is_unique and ids.iloc[0] == "a:0" and len(ids) == 118
    assert main(["sample", "pool_ids.csv", *argv, "--budget", "10", "--out", "todo.csv"]) == 0


def test_a_long_table_gets_the_pivot_and_a_repeated_id_a_line_that_runs(
    tmp_path, monkeypatch, capsys
):
    """Tester B finding 19 (round 36): on a long table (a row per item and judge) `bacon
    sample` printed a line inserting `id`, which crashed (the table has one, repeated)
    and would have made each item-judge row an item. It prints the pivot now, as
    estimate does; and a table whose `id` repeats gets a line adding another id column."""
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    wide = pd.read_csv(Path(__file__).resolve().parents[1] / "bacon_bayes/data/example_pool.csv")
    keys, judges = ["id", "doc_id", "system", "human"], ["gpt4", "gpt35", "llama70b"]
    long = wide.melt(id_vars=keys, value_vars=judges, var_name="judge", value_name="score")
    long.to_csv("long.csv", index=False)
    argv = ["--label", "human", "--judge", "score", "--budget", "10"]
    assert main(["sample", "long.csv", *argv]) == 2
    err = capsys.readouterr().err
    assert "the table looks long, one row per item and judge" in err
    assert "wide = df.pivot(index='id', columns='judge', values='score')" in err
    assert "df.insert" not in err and not Path("long.study").exists()
    pivot = run_python_line(err)  # the pivot runs as printed, reading the file as sample did
    assert pivot.startswith("import pandas as pd; df = pd.read_csv('long.csv'); ")
    judged = ["--judge", "gpt4", "--judge", "gpt35", "--judge", "llama70b"]  # its columns
    assert main(["sample", "wide.csv", "--label", "human", *judged, "--budget", "10"]) == 0
    # an id column that repeats, in a table that is not long: the line adds `item`
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"id": np.repeat(np.arange(30), 2), "judge": rng.normal(size=60),
                          "human": np.nan})  # fmt: skip
    frame.to_csv("pool.csv", index=False)
    assert (
        main(["sample", "pool.csv", "--label", "human", "--judge", "judge", "--budget", "10"]) == 2
    )
    err = capsys.readouterr().err
    line, then = err.split("or add one: ", 1)[1].split(" and sample ")
    code = shlex.split(line)[2]
    assert "df.insert(0, 'item', range(len(df)))" in code
    subprocess.run([sys.executable, "-c", code], check=True)
    assert then.startswith("pool_ids.csv.") and pd.read_csv("pool_ids.csv")["item"].is_unique
    argv = ["--label", "human", "--judge", "judge", "--budget", "10", "--out", "todo.csv"]
    assert main(["sample", "pool_ids.csv", *argv]) == 0


def test_a_new_study_says_it_has_no_judges_and_refuses_unscored_rows(tmp_path, monkeypatch, capsys):
    """The TriviaQA re-walk: a study started without --judge recorded none and said
    nothing (estimate failed later); one whose pool kept rows no judge scored drew some of
    them and then could not be estimated at all (--drop-unscored is for tables)."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {"id": [f"i{k}" for k in range(60)], "system": np.repeat(list("ab"), 30),
         "judge": rng.normal(size=60), "human": np.nan}
    )  # fmt: skip
    frame.loc[[5, 9], "judge"] = np.nan
    frame.to_csv("pool.csv", index=False)
    base = ["sample", "pool.csv", "--label", "human", "--group", "system", "--budget", "10"]
    assert main([*base, "--judge", "judge"]) == 2
    err = capsys.readouterr().err
    assert (
        "2 row(s) of pool file pool.csv have no score from any judge (the first at line 7)" in err
    )
    assert "Pass --drop-unscored to leave them out of the study" in err
    assert not Path("pool.study").exists()
    frame.drop(index=[5, 9]).to_csv("pool.csv", index=False)
    assert main(base) == 0
    assert "no --judge given, so the study records no judges" in capsys.readouterr().out


def test_the_plan_of_a_group_mean_names_the_interval_estimate_prints(tmp_path, capsys):
    """`bacon plan --group-mean s2 --half-width H` sizes s2's own (pointwise) interval, while
    `bacon estimate`'s group table was only simultaneous over the groups (wider): the plan
    said the goal was met where the table showed s2 at +-0.59 against 0.36. The plan names
    `--pointwise`, which prints that interval."""
    import json

    path = table(tmp_path)
    assert main(["plan", str(path), *READ, "--half-width", "0.5", "--group-mean", "s2"]) == 0
    assert "its own interval: estimate --pointwise" in capsys.readouterr().out
    half = {}
    for extra in ([], ["--pointwise"]):
        assert main(["estimate", str(path), *READ, "--engine", "freq", "--json", *extra]) == 0
        rows = json.loads(capsys.readouterr().out)["groups"]["aee"]["rows"]
        row = next(r for r in rows if r["name"] == "s2")
        half[bool(extra)] = (row["ci_high"] - row["ci_low"]) / 2
    assert half[True] < 0.9 * half[False]


def test_the_plan_of_a_difference_names_the_pair_interval_estimate_pointwise_prints(
    tmp_path, capsys
):
    """`bacon plan --difference A B` sizes the pair's own (pointwise) interval, while
    `bacon estimate` printed only simultaneous pair intervals, `--pointwise` too (finding
    A12: 1.4x the plan's half-width). `--pointwise` now prints each pair at its own level,
    the header says so, and the plan names the option."""
    path = table(tmp_path)
    goal = ["--half-width", "0.5", "--difference", "s1", "s2"]
    assert main(["plan", str(path), *READ, *goal]) == 0
    assert "the pair's own interval: estimate --pointwise" in capsys.readouterr().out
    half, guarantee = {}, {}
    for extra in ([], ["--pointwise"]):
        assert main(["estimate", str(path), *READ, "--engine", "freq", "--json", *extra]) == 0
        compared = json.loads(capsys.readouterr().out)["comparisons"]
        row = next(r for r in compared["differences"] if r["pair"] == "s1 - s2")
        half[bool(extra)] = (row["ci_high"] - row["ci_low"]) / 2
        guarantee[bool(extra)] = (compared["guarantee"], compared["pointwise"])
    assert half[True] < 0.8 * half[False]
    assert guarantee[False][1] is False and guarantee[True][1] is True
    assert main(["estimate", str(path), *READ, "--engine", "freq", "--pointwise"]) == 0
    head = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("comparisons"))
    assert "the interval bacon plan --difference sizes" in head and "--fixed" not in head
    # anytime pairs (a study's default) are wider than the plan's one look: --fixed
    from bacon_bayes.report.comparisons import Comparisons

    anytime = Comparisons("g", 0.05, "pool", "", False, pd.DataFrame(), pd.DataFrame(),
                          guarantee="pointwise; valid at every wave", pointwise=True)  # fmt: skip
    assert "sizes, at one look: --fixed" in anytime._pointwise_note()


def test_plan_takes_pooling_and_estimate_s_plan_command_carries_it(tmp_path, capsys):
    """Finding A15: `bacon plan --pooling separate` was refused (the library takes it), so
    a user estimating with separate means could not plan for them; the `bacon plan`
    command `bacon estimate --pooling separate` prints now asks for that pooling."""
    from bacon_bayes.cli import build_parser
    from bacon_bayes.cli.pool_args import pool_from_args
    from bacon_bayes.cli.printed import plan_command

    path = table(tmp_path)
    goal = ["--half-width", "0.5", "--group-mean", "s2", "--json"]
    for pooling in ("separate", "shrink"):
        assert main(["plan", str(path), *READ, *goal, "--pooling", pooling]) == 0
        assert json.loads(capsys.readouterr().out)["pooling"] == pooling
    args = build_parser().parse_args(["estimate", str(path), *READ, "--pooling", "separate"])
    pool = pool_from_args(args)
    words = shlex.split(plan_command(args, pool))
    assert words[words.index("--pooling") + 1] == "separate"
    assert main([*words[1:], "--json"]) == 0  # runs as printed
    assert json.loads(capsys.readouterr().out)["pooling"] == "separate"


def test_an_id_column_named_item_id_with_a_space_is_found_without_item(tmp_path, capsys):
    """`bacon doctor` took 'Item ID' as the id, but `bacon plan` and `bacon sample` did not
    find it without --item (they knew only id, item and item_id)."""
    frame = pd.read_csv(table(tmp_path)).rename(columns={"id": "Item ID"})
    path = tmp_path / "spaced.csv"
    frame.to_csv(path, index=False)
    study = tmp_path / "spaced.study"
    assert main(["sample", str(path), "--study", str(study), *READ, "--budget", "20",
                 "--out", str(tmp_path / "w.csv")]) == 0  # fmt: skip
    assert 'item = "Item ID"' in (study / "study.toml").read_text()
    assert "Item ID" in pd.read_csv(tmp_path / "w.csv").columns
    capsys.readouterr()
    assert main(["estimate", str(path), *READ, "--engine", "freq", "--json"]) == 0


def test_the_printed_commands_keep_the_rows_drop_unscored_left_out(tmp_path, capsys, monkeypatch):
    """The TriviaQA sweep: `bacon estimate --drop-unscored` printed `bacon plan ... --top`
    without the flag (the plan then kept the unscored rows and asked for 3,427 labels
    against 902), and the plan's `bacon sample` command lacked it too, which `bacon
    sample` did not accept anyway: the study refused the unscored rows."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(table(tmp_path))
    ref = frame[frame["system"] == "s0"].assign(system="ref", id=lambda f: "r" + f["id"])
    ref[[f"judge_{j}" for j in range(3)]] = np.nan  # a reference no judge can score
    pd.concat([frame, ref]).to_csv("pool.csv", index=False)
    assert main(["estimate", "pool.csv", *READ, "--engine", "freq", "--drop-unscored"]) == 0
    printed = run_lines(capsys.readouterr().out)
    assert printed and "--drop-unscored" in printed[0]
    assert main([*printed[0], "--json"]) == 0  # as printed: the 720 scored rows
    designs = json.loads(capsys.readouterr().out)["designs"]
    command = shlex.split(next(d["command"] for d in designs if d["command"]))
    assert "--drop-unscored" in command
    assert main(command[1:]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "--drop-unscored left out 120 row(s) of pool.csv that no judge scored" in out
    study = Study.open(tmp_path / "pool.study")
    assert study.config.drop_unscored and study.n_items == len(frame) == 720
    assert study.unscored == 120 and len(study.labels) == frame["human"].notna().sum()


def test_a_study_estimated_with_pending_items_prints_a_plan_that_reads_them(
    tmp_path, capsys, monkeypatch
):
    """`bacon estimate STUDY --allow-pending` printed `bacon plan STUDY --top`, which
    refused the study's pending items."""
    monkeypatch.chdir(tmp_path)
    table(tmp_path)
    assert main(["sample", "pool.csv", *READ, "--budget", "30"]) == 0
    assert main(["estimate", "pool.study", "--engine", "freq", "--allow-pending"]) == 0
    printed = run_lines(capsys.readouterr().out)
    assert printed and printed[0][-2:] == ["--allow-pending", "--top"]
    assert main(printed[0]) == 0, capsys.readouterr().err


def test_the_estimates_plan_line_names_the_plans_recommendation(tmp_path, capsys, monkeypatch):
    """The TriviaQA sweep: `bacon estimate` said '884 in all, paired design' while the
    `bacon plan ... --top` it printed recommended adaptive (902) and put paired within its
    error (the line compared uniform and paired only). Here errors wide above a judge
    score of 0.5: the line said paired (575), the plan stratified (580)."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    g, p = np.repeat(np.arange(6), 150), np.tile(np.arange(150), 6)
    # s5 ahead by 0.8 (0.6 before the plan took the table's means: its lead in the table
    # above the line, 0.32, is under one standard error, and the line says so)
    z = rng.normal(0, 1, g.size) + 0.8 * (g == 5)
    y = z + rng.normal(0, 1, g.size) * np.where(z > 0.5, 1.5, 0.1)
    frame = pd.DataFrame({"id": [f"x{k:04d}" for k in range(g.size)], "doc": p,
                          "system": [f"s{k}" for k in g]})  # fmt: skip
    for j in range(3):
        frame[f"judge_{j}"] = z + rng.normal(0, 0.2, g.size)
    frame["human"] = np.where(rng.random(g.size) < 0.12, y, np.nan)
    frame.to_csv("pool.csv", index=False)
    assert main(["estimate", "pool.csv", *READ, "--engine", "freq"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("bacon plan: about"))
    assert main([*run_lines(out)[0], "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    best = next(d for d in planned["designs"] if d["design"] == planned["recommended"])
    assert f"({best['labels_needed']} in all, {best['design']} design)" in line, line


@pytest.mark.parametrize("messy", ["words", "spreadsheet"])
def test_the_printed_sample_command_reads_the_pool_as_plan_does(
    tmp_path, capsys, monkeypatch, messy
):
    """Findings T2-1 and T2-6: `bacon sample` read its pool with a reader of its own, so
    the command `bacon plan` printed failed on a table plan had read: labels written as
    Yes/No with '-', 'NA', 'n/a' in the unlabeled rows ("labels that are not numbers"), or
    a spreadsheet's Windows-1252 CSV with a title line and empty rows (`,,,`) at the end
    ("id column 'id' is empty"). It reads the pool as every command does now."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(table(tmp_path), dtype={"id": str})
    labeled = frame["human"].notna()
    if messy == "words":
        rng = np.random.default_rng(3)
        empty = rng.choice(np.array(["-", "NA", "n/a", ""], dtype=object), len(frame))
        frame["human"] = np.where(labeled, np.where(frame["human"] > 0, "Yes", "No"), empty)
        frame.to_csv("pool.csv", index=False)
    else:
        frame["system"] = frame["system"].str.replace("s", "syst\u00e8me ")
        text = frame.to_csv(index=False, lineterminator="\r\n")
        comma = "," * (frame.shape[1] - 1)
        with open("pool.csv", "w", encoding="cp1252", newline="") as out:
            out.write(f"Scores export{comma}\r\n{text}{comma}\r\n{comma}\r\n")
    assert main(["plan", "pool.csv", *READ, "--half-width", "0.03"]) == 0
    (command,) = run_lines(capsys.readouterr().out)
    assert command[0] == "sample"
    assert main(command) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    study = Study.open(tmp_path / "pool.study")
    assert len(study.labels) == int(labeled.sum()) and study.n_items == len(frame)
    if messy == "words":
        assert set(study.labels["human"]) == {0.0, 1.0}
    else:
        assert "2 empty row(s) skipped" in said and "Windows-1252 text" in said


def test_a_long_table_keyed_by_two_columns_gets_lines_that_run_with_its_labels(
    tmp_path, capsys, monkeypatch
):
    """Finding T2-4: a long table whose items are keyed by system and doc_id, and a labels
    file keyed the same way: doctor's pivot wrote no id, and its `bacon doctor wide.csv
    --labels ...` failed as printed ("cannot tell which column joins the labels file").
    The pivot now writes an id of the two keys, doctor prints a line giving the labels
    the same id, and its command joins on it; each runs as printed."""
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(4)
    systems, docs = [f"M{k}" for k in range(6)], [f"doc-{k:03d}" for k in range(40)]
    items = pd.DataFrame([(s, d) for s in systems for d in docs], columns=["system", "doc_id"])
    truth = rng.normal(3, 1, len(items))
    long = pd.concat(
        [items.assign(judge=j, score=truth + rng.normal(0, 0.7, len(items))) for j in "abc"]
    )
    long.to_csv("long.csv", index=False)
    labeled = rng.random(len(items)) < 0.3
    items.assign(relevance=truth)[labeled].to_csv("labels.csv", index=False)
    assert main(["doctor", "long.csv", "--labels", "labels.csv", "--label", "relevance"]) == 0
    flat = capsys.readouterr().out.replace("\n", " ")
    assert "wide.insert(0, 'id'" in run_python_line(flat)  # the pivot, as printed
    line = flat.split("the labels have its id (", 1)[1].split("), add them with: ", 1)[0]
    words = shlex.split(line)
    assert is_python(words[0])
    subprocess.run([sys.executable, *words[1:]], check=True)
    then = shlex.split(flat.split("add them with: ", 1)[1].strip())
    assert then[:3] == ["bacon", "doctor", "wide.csv"] and then[-2:] == ["--item", "id"]
    assert main(then[1:]) == 0
    lines = capsys.readouterr().out.splitlines()
    estimate = shlex.split(lines[lines.index("run:") + 1])
    assert main([*estimate[1:], "--engine", "freq", "--json"]) == 0
    mean = json.loads(capsys.readouterr().out)["mean"]["classical"]["estimate"]
    assert mean == pytest.approx(truth[labeled].mean())


def test_the_simulate_command_doctor_prints_runs(tmp_path, capsys, monkeypatch):
    """Finding T2-9: on a wholly labeled table with rows no judge scored nor anyone
    labeled (TriviaQA's gpt-4t as shipped), doctor printed `bacon simulate FILE --label L
    --out DIR`, which failed twice as printed (no judges; unlabeled rows), and with
    --label it printed no simulate command at all. With --label it prints one carrying
    the judges, group, prompt and --drop-unlabeled, which runs (here with few trials)."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(table(tmp_path))
    rng = np.random.default_rng(1)
    frame["human"] = frame["judge_0"] + rng.normal(0, 0.5, len(frame))
    blank = frame.iloc[:30].assign(id=[f"y{k}" for k in range(30)], human=np.nan)
    blank[["judge_0", "judge_1", "judge_2"]] = np.nan
    pd.concat([frame, blank]).to_csv("pool.csv", index=False)
    assert main(["doctor", "pool.csv"]) == 0
    out = capsys.readouterr().out.replace("\n", " ")
    assert "bacon doctor pool.csv --label human gives the command" in out
    assert "--out DIR" not in out and "also prints the bacon simulate command" in out
    assert main(["doctor", "pool.csv", "--label", "human"]) == 0
    said = capsys.readouterr().out
    line = next(ln for ln in said.splitlines() if "bacon simulate measures" in ln)
    words = shlex.split(line.split("draws samples of them): ", 1)[1])
    assert words[:2] == ["bacon", "simulate"] and "--drop-unlabeled" in words
    assert main([*words[1:], "--trials", "2", "--budgets", "0.2", "--designs", "uniform"]) == 0
    assert (tmp_path / "simulation" / "summary.csv").is_file()


def test_a_plan_beside_a_study_with_a_pending_wave_prints_no_command_that_fails(
    tmp_path, monkeypatch, capsys
):
    """T1 finding 2: a study made from the pool holds a wave of items not yet labeled (a
    printed `bacon sample --design paired` queued most of the pool); a second plan said a
    study existed, and printed a `bacon sample --budget 130` that failed: only 47 items
    were still unselected. Now it names the pending wave and how many items sample can
    still draw, and prints only commands that run."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(
        Path(__file__).resolve().parents[1] / "bacon_bayes/data/example_pool.csv", "pool.csv"
    )
    args = ["--item", "id", "--group", "system", "--judge", "gpt*", "--label", "human"]
    assert main(["sample", "pool.csv", *args, "--budget", "1050"]) == 0  # 30 left open
    capsys.readouterr()
    assert main(["plan", "pool.csv", *args, "--half-width", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "its wave 2 holds 1050 items selected but not yet labeled" in out
    assert "bacon sample draws only from the 30 items no wave selected" in out
    assert "bacon label import them" in out and "bacon plan pool.study" in out
    for command in run_lines(out):
        if command[0] == "sample":
            assert main(command) == 0  # a command printed runs


def test_the_printed_plan_and_sample_commands_carry_folds(tmp_path):
    """Tester B finding 22: `bacon estimate --folds 4` printed `bacon plan ... --top`
    without `--folds` (on an 8-label pilot that plan was refused for too few labels for 5
    folds; on a larger one it fitted another pilot); the plan's `bacon sample` command
    dropped it too. Both now carry the cross-fit the command ran (plan: its seed too)."""
    from bacon_bayes.cli import build_parser
    from bacon_bayes.cli.pool_args import pool_from_args
    from bacon_bayes.cli.printed import plan_command, reading_options

    path = table(tmp_path)
    fit = ["--folds", "4", "--seed", "3"]
    args = build_parser().parse_args(["estimate", str(path), *READ, *fit])
    pool = pool_from_args(args)
    words = shlex.split(plan_command(args, pool))
    assert words[words.index("--folds") + 1] == "4" and words[words.index("--seed") + 1] == "3"
    planned = build_parser().parse_args(words[1:])
    assert (planned.folds, planned.seed) == (4, 3)
    sample = shlex.split(reading_options(planned, pool, sample=True))
    assert sample[sample.index("--folds") + 1] == "4" and "--seed" not in sample
    drawn = build_parser().parse_args(["sample", str(path), "--budget", "10", *sample])
    assert drawn.folds == 4 and drawn.seed == 0  # sample's seed: the draw's, left alone
    default = build_parser().parse_args(["estimate", str(path), *READ])
    assert "--folds" not in plan_command(default, pool)


def test_the_example_goal_halves_the_interval_the_pilot_gives(tmp_path, capsys, monkeypatch):
    """Tester B finding 3: with 60 of 70 items labeled, `bacon plan` without a goal
    offered "--half-width 0.052 (half the 0.1 the 60 labels alone give now)", where
    estimate gave the labels alone 0.039 (finite-population correction) and the judges'
    interval 0.018: the example plan then needed no label. The example now halves the
    interval the pilot gives (the labels-alone one corrected where no fit is at hand), so
    it asks for labels."""
    from scipy import stats

    from bacon_bayes.planning.note import goal_examples
    from bacon_bayes.pool import EvalPool

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(1)
    y = rng.normal(0, 1, 70)
    frame = pd.DataFrame({"id": [f"i{k}" for k in range(70)], "human": y})
    frame["judge_0"] = y + rng.normal(0, 0.3, 70)
    frame.loc[60:, "human"] = np.nan
    frame.to_csv("pool.csv", index=False)
    pool = EvalPool.from_frame(
        frame, label="human", judges=["judge_0"], item="id", outcome="continuous"
    )
    sd = float(np.std(y[:60], ddof=1))
    alone = stats.t.ppf(0.975, 59) * sd * np.sqrt((1 - 60 / 70) / 60)
    goal, why = goal_examples(pool)[0]
    assert goal == f"--half-width {float(f'{alone / 2:.2g}'):g}" and "labels alone" in why
    assert goal_examples(pool, now=0.018)[0][0] == "--half-width 0.009"
    assert main(["plan", "pool.csv", "--label", "human", "--judge", "judge_0"]) == 2
    err = capsys.readouterr().err
    assert "the pilot's interval gives now" in err, err
    example = shlex.split(err.split("for example:", 1)[1].strip())
    assert main([*example[1:], "--json"]) == 0
    designs = json.loads(capsys.readouterr().out)["designs"]
    assert any((d["new_labels"] or 0) > 0 for d in designs), designs  # not already met


def test_labels_missing_whole_groups_are_not_recorded_as_a_uniform_wave(
    tmp_path, capsys, monkeypatch
):
    """Tester B finding 8: labels that estimate calls non-random (two systems with none)
    were recorded by the printed `bacon sample` as "a first wave drawn uniformly", no
    warning. sample now refuses that with the ways out, and the plan's printed sample
    command records them by group (--prior-design stratified:GROUP) and runs."""
    monkeypatch.chdir(tmp_path)
    frame = pd.read_csv(table(tmp_path))
    frame.loc[frame["system"].isin(["s4", "s5"]), "human"] = np.nan
    frame.to_csv("pool.csv", index=False)
    argv = ["sample", "pool.csv", *READ, "--budget", "40"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "cannot be recorded as drawn uniformly" in err and "(s4, s5)" in err
    assert "--prior-design stratified:system" in err and "--existing-labels ignore" in err
    assert not (tmp_path / "pool.study").exists()
    assert main(["plan", "pool.csv", *READ, "--half-width", "0.03", "--json"]) == 0
    designs = json.loads(capsys.readouterr().out)["designs"]
    command = shlex.split(next(d["command"] for d in designs if d["command"]))
    assert command[command.index("--prior-design") + 1] == "stratified:system"
    assert main(command[1:]) == 0, capsys.readouterr().err
    assert "recorded as a first wave drawn by stratified:system" in capsys.readouterr().out


def test_a_judge_pattern_is_printed_as_given_not_column_by_column(tmp_path, capsys, monkeypatch):
    """A walk on TriviaQA: `--judge 'judge:*'` came back in the printed plan as nine
    `--judge` options, one a column; the commands carry the pattern as the user gave it."""
    monkeypatch.chdir(tmp_path)
    table(tmp_path)
    assert main(["estimate", "pool.csv", *READ, "--engine", "freq"]) == 0
    out = capsys.readouterr().out
    lines = run_lines(out)
    assert lines, out
    for words in lines:
        assert words.count("--judge") == 1 and words[words.index("--judge") + 1] == "judge_*"
    assert main(lines[0]) == 0


def test_the_plan_line_under_the_small_budget_surrogates_is_the_plans_count(
    tmp_path, capsys, monkeypatch
):
    """The TriviaQA walk (9 judges, 128 labels): estimate's line said 418 labels where the
    `bacon plan --top` it printed said 415. Under 20 labels a model coefficient estimate
    takes the small-budget surrogates, and its fitted calibrator is the line's pilot; plan
    fitted the model alone. Plan now takes estimate's default surrogates."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(1)
    g, p = np.repeat(np.arange(6), 150), np.tile(np.arange(150), 6)
    z = rng.normal(0, 1, g.size) + 0.5 * (g == 5)
    frame = pd.DataFrame({"id": [f"x{k:04d}" for k in range(g.size)], "doc": p,
                          "system": [f"s{k}" for k in g]})  # fmt: skip
    for j in range(8):
        frame[f"judge_{j}"] = z + rng.normal(0, 0.6 + 0.2 * j, g.size)
    frame["human"] = np.where(rng.random(g.size) < 0.1, z + rng.normal(0, 0.5, g.size), np.nan)
    frame.to_csv("pool.csv", index=False)
    assert main(["estimate", "pool.csv", *READ, "--engine", "freq"]) == 0
    out = capsys.readouterr().out
    assert "small-budget" in out or "judge_ridge" in out, out
    line = next(x for x in out.splitlines() if x.startswith("bacon plan: about"))
    assert main([*run_lines(out)[0], "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    best = next(d for d in planned["designs"] if d["design"] == planned["recommended"])
    assert f"({best['labels_needed']} in all, {best['design']} design)" in line, line


def test_printed_python_lines_name_the_python_that_runs_bacon(monkeypatch, tmp_path):
    """`.venv/bin/bacon doctor FILE` called directly (as the README allows) printed
    `python -c "import pandas ..."`, which the system's python, without pandas or bacon,
    refuses. The line names the interpreter running bacon unless the one on the PATH is
    it (an activated virtualenv); either runs as printed."""
    import os
    import sys

    from bacon_bayes.csv_format import pandas_command

    code = "df = pd.DataFrame({'a': [1]}); df.to_csv('x.csv', index=False)"
    monkeypatch.setenv("PATH", str(tmp_path))  # no python on it
    line = pandas_command(code)
    assert line.startswith(f"{shlex.quote(sys.executable)} -c "), line
    run_python_line(line, cwd=tmp_path)
    assert pd.read_csv(tmp_path / "x.csv")["a"].tolist() == [1]
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), str(tmp_path)]))
    assert pandas_command(code).startswith('python -c "import pandas as pd; df = ')
    # a name the shell reads inside double quotes: single-quoted
    assert pandas_command("df = pd.DataFrame({'$a': [1]})").endswith("""'"'"'$a'"'"': [1]})'""")


@pytest.mark.parametrize(
    ("script", "plain"),
    [
        (r"r = lab['q'].str.extract(r'Summary\W+([\w./-]*\w)')", True),
        (r"s = 'a\\b'", False),
        ("s = 'ends' + '\\", False),
        (r"s = '\d+$'", False),
        ("""s = 'say "hi"'""", False),
        ("s = 'x!y'", False),
    ],
)
def test_a_printed_python_line_is_double_quoted_unless_the_shell_would_change_it(
    script: str, plain: bool
) -> None:
    r"""Walk 60: a survey's id pattern (``Summary\W+(...)``) made the line single-quoted,
    every quote in it written ``'"'"'``, though bash keeps ``\W`` inside double quotes.
    Double-quoted where the shell passes the script as written, single-quoted where it
    would not (a backslash before a backslash or at the end, ``"``, ``$``, a backtick,
    ``!``): either way bash hands Python the script unchanged."""
    import subprocess

    from bacon_bayes.csv_format import python_command

    code = python_command(script).split(" -c ", 1)[1]
    assert code.startswith('"' if plain else "'"), code
    done = subprocess.run(["bash", "-c", f"printf %s {code}"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == script
