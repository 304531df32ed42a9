"""The README runs as written: every ``bacon ...`` command of its ```bash blocks (and the
"Using it" Python snippet) runs in a temporary folder holding the files its ``cp`` lines
copy from the repository, and exits 0 (or the code its trailing ``# exits N`` states).

Commands that cannot run offline or need files the example does not have are listed in
``SKIP`` with the reason.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: Pattern of a command the test does not run -> why.
SKIP = {
    r"^bacon judge ": "calls LLM endpoints over the network (needs an API key)",
    r"^bacon embed ": "downloads an embedding model",
    r"\brun\.eval\b|\bsamples_mytask_": "reads a log written by Inspect AI or lm-eval, which "
    "the example does not ship (tests/test_readers.py runs these README commands on logs the "
    "tools write)",
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


def test_the_readme_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BACON_STATE_DIR", str(tmp_path / ".state"))
    text = README.read_text()
    truth = expert_labels()
    ran, skipped = [], []
    for line in readme_commands(text):
        words = shlex.split(line, comments=True)
        if words[0] == "cp":
            shutil.copy(ROOT / words[1], tmp_path / words[2])
            continue
        if words[0] != "bacon":
            continue  # make demo, export ...: not bacon commands
        reason = next((why for pat, why in SKIP.items() if re.search(pat, line)), None)
        if reason:
            skipped.append((line, reason))
            continue
        if words[1:3] == ["label", "import"]:
            fill_in(tmp_path / words[3], truth)
        try:
            code = main(words[1:])
        except SystemExit as exc:  # argparse refusals
            code = int(exc.code or 0)
        out = capsys.readouterr()
        assert code == expected_code(line), f"{line}\n{out.out[-2000:]}\n{out.err[-2000:]}"
        ran.append(line)
        if "Using it" in text and len(ran) == 1:
            _run_snippet(text)
    assert len(ran) >= 20, ran
    assert {why for _, why in skipped} <= set(SKIP.values())


def _run_snippet(text: str) -> None:
    """The "Using it" Python snippet, on the copied example pool."""
    snippet = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "pool.csv" in b)
    namespace: dict = {}
    exec(compile(snippet, "README.md (Using it)", "exec"), namespace)
    assert namespace["cal"].estimate_mean().ci_low > 1


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
