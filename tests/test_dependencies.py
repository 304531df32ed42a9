"""What bacon_bayes imports is declared in pyproject.toml, and ``pip install .`` (no extras)
is enough for the main commands: a streaming estimate among them (tqdm once came only
through a dev dependency's dependency, and ``bacon estimate folder/`` crashed without it).
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

#: Imported but declared by another name (or not at all), and why that is right.
UNDECLARED = {
    "pytensor": "PyMC's own tensor backend, installed and pinned by pymc",
    "distributed": "comes with the dask extra's dask[distributed]",
    "sentence_transformers": "optional, for `bacon embed --model DIR` (embed.py says to "
    "install it; too large for an extra)",
}


def imported_names() -> dict[str, set[str]]:
    """Top-level names of every third-party module bacon_bayes imports -> its files."""
    names: dict[str, set[str]] = {}
    for path in (ROOT / "bacon_bayes").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found = [node.module]
            else:
                continue
            for name in found:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("bacon_bayes", "__future__"):
                    names.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return names


def declared(extras: bool = True) -> set[str]:
    """Distributions pyproject.toml names: the runtime ones (and every extra's)."""
    reqs = list(PYPROJECT["dependencies"])
    if extras:
        reqs += [r for group in PYPROJECT["optional-dependencies"].values() for r in group]
    return {canonicalize_name(Requirement(r).name) for r in reqs}


def runtime_closure() -> set[str]:
    """The runtime dependencies and theirs, as installed (what ``pip install .`` brings)."""
    todo = [Requirement(r) for r in PYPROJECT["dependencies"]]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req = todo.pop()
        key = (canonicalize_name(req.name), frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = md.requires(req.name) or []
        except md.PackageNotFoundError:
            continue
        for text in requires:
            sub = Requirement(text)
            wanted = req.extras or {""}
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in wanted):
                todo.append(sub)
    return {name for name, _ in seen}


def test_every_import_is_declared():
    owners = md.packages_distributions()
    names = declared()
    missing = {
        name: sorted(files)
        for name, files in imported_names().items()
        if name not in UNDECLARED
        and not any(canonicalize_name(d) in names for d in owners.get(name, []))
    }
    assert not missing, f"imported but not in pyproject.toml's dependencies: {missing}"


def test_tqdm_is_a_runtime_dependency():
    # the progress bars (streaming, sampling, cross-fitting) import it outside any extra
    assert "tqdm" in declared(extras=False)


#: In a fresh interpreter: make every installed package outside ``pip install .``'s
#: dependencies unimportable (as if absent), then run each bacon command.
_PROBE = """
import json, sys
for name in {blocked!r}:
    sys.modules[name] = None  # `import name` raises ModuleNotFoundError; find_spec gives None
from bacon_bayes.cli import main
codes = []
for argv in {argvs!r}:
    codes.append(main(argv))
print(json.dumps(codes))
"""


def test_runtime_dependencies_alone_run_the_main_commands(tmp_path):
    closure = runtime_closure() | {"bacon-bayes"}
    blocked = sorted(
        name
        for name, dists in md.packages_distributions().items()
        if name.isidentifier()
        and name not in sys.stdlib_module_names
        and not any(canonicalize_name(d) in closure for d in dists)
    )
    assert "pytest" in blocked  # the probe does hide what `pip install .` leaves out
    pool = pd.read_csv(ROOT / "bacon_bayes/data/example_pool.csv")
    (tmp_path / "parts").mkdir()
    pool.iloc[:600].to_csv(tmp_path / "parts/a.csv", index=False)
    pool.iloc[600:].to_csv(tmp_path / "parts/b.csv", index=False)
    pool.to_csv(tmp_path / "pool.csv", index=False)
    common = ["--label", "human", "--judge", "gpt4,llama70b", "--group", "system"]
    argvs = [
        ["estimate", str(tmp_path / "parts"), *common, "--engine", "freq"],  # streamed
        ["estimate", str(tmp_path / "pool.csv"), *common, "--item", "id", "--engine", "freq"],
        ["doctor", str(tmp_path / "pool.csv")],
    ]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(blocked=blocked, argvs=argvs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == [0, 0, 0], done.stderr[-3000:]


@pytest.mark.parametrize("name", sorted(UNDECLARED))
def test_undeclared_imports_are_still_imported(name):
    # a stale entry in UNDECLARED would hide a real omission later
    assert name in imported_names()


def _make_plan(target: str, tmp_path: Path) -> str:
    """What ``make TARGET`` would run in a fresh clone (no .venv yet), as text."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    done = subprocess.run(
        # --no-print-directory: under `make test` this make is a sub-make, which would
        # wrap its plan in "Entering/Leaving directory" lines
        ["make", "--no-print-directory", "-n", target],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_make_demo_installs_the_runtime_only(tmp_path):
    plan = _make_plan("demo", tmp_path)
    assert "pip install --quiet -e .\n" in plan and "[dev]" not in plan
    assert plan.rstrip().endswith("bacon demo")


def test_make_test_installs_the_dev_extras(tmp_path):
    plan = _make_plan("test", tmp_path)
    assert '-e ".[dev]"' in plan and "pytest" in plan
    assert "make test" in (ROOT / ".ci" / "run").read_text()  # CI runs it from a clone
