"""A study folder whose files are empty, truncated or foreign: clear errors, exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from bacon_bayes.errors import ValidationError
from bacon_bayes.study import Study, import_labels

from .conftest import bacon, fill

DAMAGE = {
    "empty": b"",
    "binary": b"\x89HDF\r\n\x1a\n\x00\x00\xff\xfe garbage",
    "foreign": b"name,size\nfoo,1\n",
}


def _labeled_study(study: Path, pool_file: Path, tmp_path: Path) -> Path:
    import_labels(study, fill(tmp_path / "todo.csv", pool_file, tmp_path / "filled.csv"))
    return study


@pytest.mark.parametrize("kind", ["empty", "binary", "foreign", "truncated"])
@pytest.mark.parametrize("name", ["study.toml", "manifest.csv", "labels.csv", "waves.json"])
def test_damaged_study_files_name_the_file_and_the_fix(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture, name, kind
) -> None:
    root = _labeled_study(study, pool_file, tmp_path)
    path = root / name
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2] if kind == "truncated" else DAMAGE[kind])
    try:
        Study.open(root)
    except ValidationError as exc:
        message = str(exc)
    else:  # a file cut at a line end can still be valid; then it must fail the checks
        pytest.fail(f"a {kind} {name} was accepted")
    assert name in message, message
    capsys.readouterr()
    assert bacon("status", str(root)) == 2
    err = capsys.readouterr().err
    assert name in err and "Traceback" not in err
