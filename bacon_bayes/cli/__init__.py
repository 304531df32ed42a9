"""The ``bacon`` command line: a thin layer over the library.

Each sub-command lives in its own module of this package and provides
``add_parser(subparsers)`` (which registers the command and sets ``func``).
Register a new command by adding its module name to ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import warnings
from collections.abc import Iterator
from typing import Any

COMMANDS: tuple[str, ...] = (
    "estimate",
    "demo",
    "judge",
    "embed",
    "sample",
    "label",
    "status",
    "judges",
    "report",
    "simulate",
    "plan",
    "drift",
    "doctor",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every registered sub-command."""
    parser = argparse.ArgumentParser(
        prog="bacon",
        description="Budgeted human calibration of multiple AI judges.",
    )
    from bacon_bayes import __version__

    parser.add_argument(
        "--version",
        action="version",
        version=f"bacon_bayes {__version__}",
        help="print the version and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``bacon`` console script."""
    name = "bacon"
    try:
        args = build_parser().parse_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)  # as run (printed.rerun)
        name = f"bacon {args.command}"
        if argv is None and not getattr(args, "json", False):  # a process, its commands as run
            with _as_run():
                return _run(args, name)
        return _run(args, name)
    except KeyboardInterrupt:  # Ctrl-C, in any command: a line, no traceback
        print(
            f"{name}: interrupted; outputs are written whole or not at all, so none was left "
            "half-written: run the same command again",
            file=sys.stderr,
        )
        return 130


@contextlib.contextmanager
def _as_run() -> Iterator[None]:
    """The commands printed (``bacon estimate ...``) as this process was run, on stdout and
    stderr: ``python -m bacon_bayes estimate ...`` where ``bacon`` is not on the ``PATH``
    (:class:`bacon_bayes.cli.printed.AsRun`); nothing changes where it is."""
    from bacon_bayes.cli.printed import AsRun, command_words, program

    words = program()
    if words == "bacon":
        yield
        return
    pattern = command_words(COMMANDS)
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = AsRun(out, words, pattern), AsRun(err, words, pattern)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def _run(args: argparse.Namespace, name: str) -> int:
    """Run the command; errors are a message and exit 2 (1 for a closed pipe)."""
    from bacon_bayes.errors import BaconError

    try:
        with warnings.catch_warnings():
            warnings.showwarning = _shown(args, name, warnings.showwarning)
            return int(args.func(args) or 0)
    except BaconError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader left (``bacon ... | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1
    except OSError as exc:  # a path, permission, disk or network problem: no traceback
        from bacon_bayes.atomic import oserror_text

        print(f"{name}: error: {oserror_text(exc)}", file=sys.stderr)
        return 2
    except RecursionError:  # an input nested thousands deep that no reader caught first
        print(
            f"{name}: error: an input is nested too deeply to read (RecursionError); "
            "flatten it and run again",
            file=sys.stderr,
        )
        return 2


def sampler_settings(args: argparse.Namespace) -> dict[str, str]:
    """How the command sets the sampler settings a convergence advice names: a preset
    file (``--preset``), ``--draws`` (``bacon judges``), or none."""
    if hasattr(args, "preset"):
        from bacon_bayes.bayes.diagnostics import PRESET_SETTINGS

        return PRESET_SETTINGS
    if hasattr(args, "draws"):
        return {"draws": f"--draws, now {args.draws}"}
    return {}


def _shown(args: argparse.Namespace, name: str, show: Any) -> Any:
    """``warnings.showwarning`` for a command: a ``ConvergenceWarning`` is one line in the
    tool's words (``bacon X: warning: ...``, advice in the command's options), not
    Python's warning with a file and a source line; other warnings as ``show`` does."""
    from bacon_bayes.errors import ConvergenceWarning

    said: set[str] = set()  # each fold's fit warns: one line for the same note

    def shown(message: Any, category: Any, *rest: Any, **kw: Any) -> None:
        diag = getattr(message, "diagnostics", None)
        if not (issubclass(category, ConvergenceWarning) and diag is not None):
            show(message, category, *rest, **kw)
            return
        from bacon_bayes.bayes.diagnostics import convergence_note

        note = convergence_note([diag], sampler_settings(args))
        if note not in said:
            said.add(note)
            print(f"{name}: warning: {note}", file=sys.stderr)

    return shown


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
