"""A quick CLI: ``bacon --version`` and ``bacon COMMAND --help`` build the parser without
importing the heavy libraries (the commands import them when they run). The time itself
is measured in ``benchmarks/bench_cli_startup.py``; here only what gets imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bacon_bayes.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]

#: Libraries a parser must not need (each costs 0.1-1 s to import).
HEAVY = (
    "pandas",
    "scipy",
    "sklearn",
    "pymc",
    "pytensor",
    "arviz",
    "xarray",
    "numba",
    "nutpie",
    "jax",
    "dask",
    "matplotlib",
    "pyarrow",
    "aiohttp",
    "inspect_ai",
    "tqdm",
)

#: Run in a fresh interpreter: each invocation, then the heavy modules it left imported.
_PROBE = """
import json, sys
from bacon_bayes.cli import main
heavy = {heavy!r}
out = []
for argv in {argvs!r}:
    try:
        main(argv)
    except SystemExit:
        pass
    loaded = sorted({{m.split(".")[0] for m in sys.modules}} & set(heavy))
    out.append([" ".join(argv), loaded])
print(json.dumps(out))
"""


def _imported_by(argvs: list[list[str]]) -> list[tuple[str, list[str]]]:
    code = _PROBE.format(heavy=HEAVY, argvs=argvs)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [tuple(row) for row in json.loads(done.stdout.splitlines()[-1])]


def test_version_and_help_do_not_import_heavy_libraries():
    argvs = [["--version"], ["--help"]] + [[name, "--help"] for name in COMMANDS]
    argvs.append(["label", "import", "--help"])
    rows = _imported_by(argvs)
    first = next(((cmd, mods) for cmd, mods in rows if mods), None)
    assert first is None, f"`bacon {first[0]}` imported {first[1]}"


def test_the_probe_sees_a_heavy_import():
    # the check can fail: a command that runs (not --help) imports pandas
    rows = _imported_by([["--version"], ["status", "/nonexistent-study"]])
    assert rows[0][1] == [] or "pandas" not in rows[0][1]
    assert "pandas" in rows[1][1]


def test_the_parsers_constants_are_the_librarys():
    # the parsers repeat a few library constants so as not to import the library
    from bacon_bayes import demo, frozen, planning, pool, sampling, stream, study, transport
    from bacon_bayes.cli import demo as cli_demo
    from bacon_bayes.cli import plan, pool_args, rounds, sample
    from bacon_bayes.cli import stream as cli_stream
    from bacon_bayes.study import labels, prompts

    assert pool_args.KINDS == pool.KINDS
    assert cli_demo.DIMENSIONS == demo.DIMENSIONS
    assert rounds.MIN_FRESH_LABELS == frozen.MIN_FRESH_LABELS
    assert rounds.TOLERANCE_SHARE == transport.TOLERANCE_SHARE
    assert cli_stream.DEFAULT_CHUNK_ROWS == stream.DEFAULT_CHUNK_ROWS
    assert plan.DESIGNS == planning.DESIGNS
    assert sample.DESIGNS == study.DESIGNS
    assert sample.DEFAULT_UNIFORM_SHARE == sampling.DEFAULT_UNIFORM_SHARE
    assert sample.GROUP_UNIFORM_SHARE == sampling.GROUP_UNIFORM_SHARE
    assert sample.MIN_LABELS_PER_COEFFICIENT == sampling.MIN_LABELS_PER_COEFFICIENT
    assert sample.DEFAULT_PER_PROMPT == prompts.DEFAULT_PER_PROMPT
    assert sample.PRIOR_DESIGNS == labels.PRIOR_DESIGNS
