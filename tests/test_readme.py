"""The README runs as written: every command of its ```bash blocks (and the "Using it"
Python snippet) runs in a temporary folder, in order: ``cp`` copies the files the
repository ships (the example pool, the SummEval sample, the round files, the tool logs in
``examples/logs/``), and every ``bacon ...`` command exits 0 (or the code its trailing
``# exits N`` states).

Only commands that need the network or an API key are left out, each listed in ``SKIP``
with the reason; any other command the README adds fails this test until it runs here.
A command on the user's own items (``bacon embed essays.csv``) gets a small table of them
(:func:`essays`).
"""

from __future__ import annotations

import glob
import re
import shlex
import shutil
from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: Pattern of a command the test does not run -> why (network or API keys only).
SKIP = {
    r"^make demo\b": "creates .venv and installs the package from the registry (network); "
    "the `bacon demo` it then runs fits the Bayesian model (tests/test_calibrator.py runs "
    "`bacon demo --engine freq`)",
    r"^make test\b": "creates .venv and installs the dev extras from the registry "
    "(network), then runs this very suite",
    r"^export OPENAI_API_KEY=": "sets an API key for `bacon judge`",
    r"^bacon judge ": "calls LLM endpoints over the network (needs an API key)",
}


def readme_commands(text: str) -> list[str]:
    """The logical lines (continuations joined) of every ```bash block, in order."""
    lines: list[str] = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append(" ".join(line.split()))
    return lines


def expected_code(line: str) -> int:
    """The exit code a ``# exits N`` comment states (0 without one)."""
    match = re.search(r"#\s*exits (\d+)", line)
    return int(match.group(1)) if match else 0


def expert_labels() -> dict[str, float]:
    """Every example-pool id's expert relevance (to fill in the to-label files)."""
    from benchmarks.make_example_pool import SRC, build

    full = build(pd.read_csv(ROOT / SRC), fraction=1.0)
    return dict(zip(full["id"], full["human"], strict=True))


def fill_in(path: Path, truth: dict[str, float]) -> None:
    """Fill in a to-label file as the labelers would (its second column is the label)."""
    todo = pd.read_csv(path)
    todo[todo.columns[1]] = todo[todo.columns[0]].map(truth)
    todo.to_csv(path, index=False)


def essays(path: Path) -> None:
    """The README's own items for ``bacon embed`` (the essays ``bacon judge`` scores): 40
    SummEval summaries as texts, with the columns the ``essay`` template reads."""
    texts = pd.read_csv(ROOT / "bacon_bayes/data/summeval_sample.csv.gz")["summary"][:40]
    ids = [f"e{k}" for k in range(len(texts))]
    pd.DataFrame({"essay_id": ids, "prompt_name": "News", "full_text": texts}).to_csv(
        path, index=False
    )


def vote(path: Path) -> None:
    """Fill in the votes of a ``bacon sample --pairwise`` wave as the people would (the
    Arena sample's ``human_full`` has every comparison's vote)."""
    wave = pd.read_csv(path)
    drawn = wave["to_label"] == 1
    wave.loc[drawn, "label"] = wave.loc[drawn, "human_full"]
    wave.to_csv(path, index=False)


def test_the_readme_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BACON_STATE_DIR", str(tmp_path / ".state"))
    text = README.read_text()
    truth = expert_labels()
    ran, skipped = [], []
    for line in readme_commands(text):
        words = shlex.split(line, comments=True)
        reason = next((why for pat, why in SKIP.items() if re.search(pat, line)), None)
        if reason:
            skipped.append((line, reason))
            continue
        if words[0] == "cp":
            copy(words[1:], tmp_path)
            continue
        assert words[0] == "bacon", f"a README command this test does not run: {line!r}"
        if words[1:3] == ["label", "import"]:
            fill_in(tmp_path / words[3], truth)
        if words[1] == "estimate" and words[2].endswith("-wave.csv"):
            vote(tmp_path / words[2])
        if words[1] == "embed":
            essays(tmp_path / words[2])
        try:
            code = main(words[1:])
        except SystemExit as exc:  # argparse refusals
            code = int(exc.code or 0)
        out = capsys.readouterr()
        assert code == expected_code(line), f"{line}\n{out.out[-2000:]}\n{out.err[-2000:]}"
        ran.append(line)
        if "Using it" in text and len(ran) == 1:
            _run_snippet(text)
    assert len(ran) >= 25, ran
    # the tool-log sections ran, on the shipped logs
    assert sum("run.eval" in line for line in ran) == 3
    assert sum("samples_mytask_" in line for line in ran) == 2
    assert (tmp_path / "lm_eval.html").is_file()
    # every SKIP entry still matches a README command (no stale reasons)
    assert {why for _, why in skipped} == set(SKIP.values())


def copy(words: list[str], folder: Path) -> None:
    """``cp SRC... DEST`` from the repository into ``folder`` (globs expanded)."""
    *sources, dest = words
    paths = [Path(p) for src in sources for p in sorted(glob.glob(str(ROOT / src)))]
    assert paths, f"cp {' '.join(words)}: nothing in the repository matches"
    target = folder / dest
    for path in paths:
        shutil.copy(path, target / path.name if target.is_dir() else target)


def python_snippets(text: str) -> list[str]:
    """The README's ```python blocks, in order (the first is "Using it")."""
    return re.findall(r"```python\n(.*?)```", text, re.S)


def _run_snippet(text: str) -> None:
    """The "Using it" Python snippet, on the copied example pool."""
    namespace: dict = {}
    exec(compile(python_snippets(text)[0], "README.md (Using it)", "exec"), namespace)
    assert namespace["cal"].estimate_mean().ci_low > 1


#: A snippet that fits the Bayesian judge model (NUTS): run by make validate only.
NUTS = "OrdinalJudgeModel("


def _in_folder(folder: Path) -> None:
    """The files the README's snippets read, copied as its commands copy them."""
    shutil.copy(ROOT / "bacon_bayes/data/example_pool.csv", folder / "pool.csv")
    shutil.copy(ROOT / "bacon_bayes/data/arena_sample.csv.gz", folder)


def test_the_other_python_snippets_run(tmp_path, monkeypatch):
    """Every README ```python block past "Using it" runs as written (a snippet used names
    it never defined, such as ``items``, ``features`` and ``cal``), but the one that fits
    the Bayesian judge model (test_the_bayesian_model_snippet_runs)."""
    monkeypatch.chdir(tmp_path)
    _in_folder(tmp_path)
    rest = [b for b in python_snippets(README.read_text())[1:] if NUTS not in b]
    assert len(rest) >= 2
    for k, block in enumerate(rest):
        exec(compile(block, f"README.md (python block {k + 2})", "exec"), {})


@pytest.mark.slow
def test_the_bayesian_model_snippet_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _in_folder(tmp_path)
    (block,) = [b for b in python_snippets(README.read_text()) if NUTS in b]
    namespace: dict = {}
    exec(compile(block, "README.md (the Bayesian judge model)", "exec"), namespace)
    assert len(namespace["table"]) == 6 and (tmp_path / "model.nc").is_file()


def test_the_example_pool_is_what_its_script_builds():
    from benchmarks.make_example_pool import OUT, SRC, build

    shipped = pd.read_csv(ROOT / OUT)
    built = build(pd.read_csv(ROOT / SRC))
    pd.testing.assert_frame_equal(shipped, built, check_dtype=False)
    assert shipped["human"].notna().sum() == 120
    assert shipped["id"].is_unique


@pytest.mark.parametrize("line", ["bacon estimate x.csv --label y  # exits 2"])
def test_exit_markers(line):
    assert expected_code(line) == 2


def test_the_tool_logs_are_what_their_script_writes(tmp_path):
    from examples.make_tool_logs import LM_EVAL_DOCS, LM_EVAL_LOG, OUT, lm_eval_labels

    from .inspect_fixture import N_SAMPLES, labels
    from .tool_fixtures import write_lm_eval

    assert (OUT / "README.md").is_file()  # what they are, and their license
    built = write_lm_eval(tmp_path / LM_EVAL_LOG, n=LM_EVAL_DOCS)
    assert (OUT / LM_EVAL_LOG).read_text() == built.read_text()
    pd.testing.assert_frame_equal(pd.read_csv(OUT / "doc_labels.csv"), lm_eval_labels())
    pd.testing.assert_frame_equal(pd.read_csv(OUT / "labels.csv"), labels(60))
    from bacon_bayes.readers import read_any

    frame, meta = read_any(OUT / "run.eval")
    assert len(frame) == N_SAMPLES and frame["id"].tolist()[:2] == ["q000", "q001"]
    assert meta.judges == ["model_graded_qa"]


def test_the_readme_withholds_group_intervals_only_where_the_code_does():
    """Finding T4-19: "a group with fewer than 5 labels gets no interval" stood unqualified,
    while the default (shrunk) group means give a 1-label group one; the sentence now
    names the separate means it holds for, and both halves are checked here."""
    from bacon_bayes import Calibrator, EvalPool

    text = " ".join(README.read_text().split())
    for claim in re.findall(r"[^.;]*fewer than 5 labels gets? no interval[^.;]*", text):
        assert "separate" in claim, claim
    frame = pd.read_csv(ROOT / "bacon_bayes" / "data" / "example_pool.csv")
    one = frame.index[(frame["system"] == "M8") & frame["human"].notna()]
    frame.loc[one[1:], "human"] = float("nan")  # M8: one label
    pool = EvalPool.from_frame(
        frame, label="human", judges=["gpt4", "gpt35", "llama70b"], outcome="continuous",
        group="system", item="id",
    )  # fmt: skip
    cal = Calibrator(engine="freq", scale=(1, 5)).fit(pool)
    shrunk = cal.estimate_groups().to_frame().set_index("name").loc["M8"]
    separate = cal.estimate_groups(pooling="separate").to_frame().set_index("name").loc["M8"]
    assert shrunk["n_labeled"] == 1 and pd.notna(shrunk["ci_low"])
    assert pd.isna(separate["ci_low"])
