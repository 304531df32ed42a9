"""The README's figures are the ones BENCHMARKS.md measured (no drift between the two)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_timing_in_the_readme_is_in_benchmarks():
    readme = (ROOT / "README.md").read_text()
    benchmarks = (ROOT / "BENCHMARKS.md").read_text()
    timings = re.findall(r"\b\d[\d,]*(?:\.\d+)? s\b", readme)
    assert timings, "the README quotes its speed figures from BENCHMARKS.md"
    missing = [t for t in timings if t not in benchmarks]
    assert not missing, f"README timings not in BENCHMARKS.md: {missing}"


def _options() -> dict[str, set[str]]:
    """Each ``bacon`` command's options (``label import`` as ``label``)."""
    import argparse

    from bacon_bayes.cli import build_parser

    def of(parser: argparse.ArgumentParser) -> set[str]:
        found = {o for a in parser._actions for o in a.option_strings}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    found |= of(child)
        return found

    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: of(parser) for name, parser in commands.choices.items()}


def test_every_option_the_docs_give_a_bacon_command_exists():
    options = _options()
    docs = ["README.md", "EXPERIMENTS.md", "BENCHMARKS.md", "VALIDATION.md"]
    paths = [ROOT / d for d in docs] + sorted((ROOT / "docs").rglob("*.md"))
    unknown = []
    for path in paths:
        text = re.sub(r"\\\n\s*", " ", path.read_text())  # a command continued over lines
        for match in re.finditer(r"\bbacon ([a-z]+)\b([^`\n]*)", text):
            command, rest = match.groups()
            for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", rest):
                if command in options and option not in options[command] | {"--help"}:
                    unknown.append(f"{path.name}: bacon {command} {option}")
    assert not unknown, f"options no command has: {unknown}"


def test_every_section_the_readme_cites_is_there():
    """A README pointer such as (EXPERIMENTS.md, "Small budgets") names a heading of that
    file, or the words a paragraph of it starts with, so a reader finds it by its title."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    cited = re.findall(r"\b(BENCHMARKS|VALIDATION|EXPERIMENTS)\.md,? \"([^\"]+)\"", readme)
    assert len(cited) >= 10, cited
    missing = []
    for name, title in cited:
        lines = (ROOT / f"{name}.md").read_text().splitlines()
        heads = [line.lstrip("#").strip().lower() for line in lines if line.startswith("#")]
        starts = any(line.lower().startswith(title.lower()) for line in lines)
        if not starts and not any(title.lower() in head for head in heads):
            missing.append(f"{name}.md, {title!r}")
    assert not missing, f"README cites sections these files do not have: {missing}"
