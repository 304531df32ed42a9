"""What the package prints cites evidence a user can look up: a document's section
(VALIDATION.md, EXPERIMENTS.md), never "a tester's study" (tester C, session 36,
finding 1). Comments and docstrings may name where a change came from; strings the
package prints may not."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bacon_bayes"


def _printed_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings."""
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docstrings.add(id(value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_no_output_cites_an_anonymous_tester() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for line, text in _printed_strings(tree):
            if re.search(r"\btester", text, re.I):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {text[:80]!r}")
    assert not found, "\n".join(found)


def test_the_adaptive_evidence_is_in_validation() -> None:
    from bacon_bayes.planning.outlook import ADAPTIVE_BINARY_NOTE
    from bacon_bayes.sampling.adaptive import OPTIMISTIC_RATIO

    validation = (PACKAGE.parent / "VALIDATION.md").read_text()
    for text in (OPTIMISTIC_RATIO, ADAPTIVE_BINARY_NOTE):
        section = re.search(r"VALIDATION\.md, '([^']+)'", text)
        assert section, text
        assert f"## {section[1]}" in validation
