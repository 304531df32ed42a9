"""The package's shape: no import cycles (function-level imports included), no module
over 700 lines. See ARCHITECTURE.md for the stages and the one-way rule."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bacon_bayes"
MAX_LINES = 700


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, at any depth of its code (``import
    a.b``, ``from a import b`` where b is a module or a name of a, relative imports).
    Imports only needed by type checkers (under ``if TYPE_CHECKING:``) are left out."""
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        skip = {
            id(node)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for child in node.body
            for node in ast.walk(child)
        }
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")
                    up = up[: len(up) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files]
                targets = targets or [base]
            else:
                continue
            for target in targets:
                while target and target not in files:  # a name inside a module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.add(target)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first = last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_checker_finds_a_function_level_cycle(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import x\n    return x\n")
    assert find_cycle(import_graph(pkg)) == ["pkg.a", "pkg.sub.b", "pkg.a"]
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import x\n"
    )
    assert find_cycle(import_graph(pkg)) is None


def test_no_import_cycles():
    cycle = find_cycle(import_graph(PACKAGE))
    assert cycle is None, " -> ".join(cycle or [])


def test_no_module_is_too_long():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, long


def test_the_lazy_public_names_are_typed_for_type_checkers() -> None:
    """`from bacon_bayes import Calibrator` resolved through the lazy `__getattr__` (Any to a
    type checker) and the package shipped no `py.typed`: mypy passed
    `x: int = Calibrator().estimate_mean()`. Every lazy name is imported under TYPE_CHECKING,
    and the marker ships."""
    import importlib.resources

    import bacon_bayes

    assert importlib.resources.files("bacon_bayes").joinpath("py.typed").is_file()
    tree = ast.parse(Path(bacon_bayes.__file__).read_text())
    typed = {
        a.asname or a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for imp in node.body
        if isinstance(imp, ast.ImportFrom)
        for a in imp.names
    }
    assert typed == set(bacon_bayes._EXPORTS)


def test_architecture_md_names_every_module() -> None:
    """ARCHITECTURE.md's table names every top-level module (`name.py`), every subpackage
    (`name/`) and, inside a subpackage, every module (as `name`, `name.py` or
    `package.name`), so a module added without a line there fails here."""
    import re

    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text()
    missing = [
        p.name
        for p in PACKAGE.glob("*.py")
        if p.name != "__init__.py" and f"`{p.name}`" not in text
    ]
    for package in (p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()):
        rows = [x for x in text.splitlines() if x.startswith("| ")]
        (line,) = [x for x in rows if f"`{package.name}/`" in x.split(" | ")[0]]
        for module in package.glob("*.py"):
            name = module.stem
            spelled = rf"`({package.name}\.)?{name}(\.py)?[`.( :]"
            if name != "__init__" and not re.search(spelled, line):
                missing.append(f"{package.name}/{module.name}")
    assert not missing, f"modules ARCHITECTURE.md does not name: {missing}"
