"""Run the ``python -c "..."`` lines bacon prints for the user, as a shell reads them."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path


def run_python_line(text: str, cwd: str | Path | None = None) -> str:
    """Run the first ``python -c CODE`` of ``text`` (the quoting read as a POSIX shell
    reads it, up to the end of ``CODE``) with this interpreter in ``cwd``; returns ``CODE``."""
    lexer = shlex.shlex(text[text.index("python -c ") :], posix=True)
    lexer.whitespace_split = True
    words = [lexer.get_token() for _ in range(3)]
    assert words[:2] == ["python", "-c"], words
    subprocess.run([sys.executable, "-c", words[2]], check=True, cwd=cwd)
    return str(words[2])
