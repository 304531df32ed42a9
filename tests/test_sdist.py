"""The sdist carries what its own test suite needs, and the license (tester J s39 finding
4: without a MANIFEST.in it shipped tests/*.py but not tests/__init__.py, benchmarks/,
examples/ or the documents the tests read: 32 collection errors; and no license file).

Built for real (``python -m build --sdist``, setuptools 84): 1893 tests collected from the
unpacked sdist, as from the repository. Here the selection is checked offline, by
setuptools' own reading of MANIFEST.in."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the folders whose every file the sdist's tests may import or read
FOLDERS = ("tests", "benchmarks", "examples", "docs", ".ci")
SKIPPED = ("__pycache__", ".pytest_cache")


def _files(folder: Path) -> list[str]:
    return sorted(
        p.relative_to(ROOT).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and not any(s in p.parts for s in SKIPPED) and p.suffix != ".pyc"
    )


def _manifest_selection(candidates: list[str]) -> set[str]:
    """The files of ``candidates`` MANIFEST.in adds to the sdist (setuptools' rules)."""
    filelist = pytest.importorskip("setuptools._distutils.filelist")
    files = filelist.FileList()
    files.allfiles = candidates
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    return set(files.files)


def test_the_sdist_holds_every_file_its_tests_need() -> None:
    needed = [f for folder in FOLDERS for f in _files(ROOT / folder)]
    top = sorted(p.name for p in ROOT.iterdir() if p.is_file())
    needed += [n for n in top if n.endswith(".md") or n in ("Makefile", "LICENSE")]
    assert "tests/__init__.py" in needed and "VALIDATION.md" in needed
    selected = _manifest_selection([*needed, *top])
    missing = [f for f in needed if f not in selected]
    assert not missing, f"MANIFEST.in leaves out of the sdist: {missing[:10]}"


def test_the_mit_license_travels_with_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "2026 the bacon_bayes developers" in text
