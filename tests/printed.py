"""Run the ``python -c "..."`` lines bacon prints for the user, as a shell reads them."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path


def is_python(word: str) -> bool:
    """Whether ``word`` is the interpreter a printed line names: ``python`` (the one on the
    ``PATH`` runs bacon) or the full path of the one that runs bacon
    (:func:`bacon_bayes.csv_format.python_command`)."""
    return word == "python" or word == sys.executable


def run_python_line(text: str, cwd: str | Path | None = None) -> str:
    """Run the first ``PYTHON -c CODE`` of ``text`` as printed (the quoting read as a POSIX
    shell reads it, up to the end of ``CODE``) in ``cwd``; returns ``CODE``."""
    found = re.search(r"(?:^|\s)(\S*python)\s+-c\s", text)
    assert found is not None, text
    lexer = shlex.shlex(text[found.start(1) :], posix=True)
    lexer.whitespace_split = True
    words = [str(lexer.get_token()) for _ in range(3)]
    assert is_python(words[0]) and words[1] == "-c", words
    subprocess.run(words, check=True, cwd=cwd)
    return words[2]
