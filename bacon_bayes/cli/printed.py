"""The commands bacon prints for the user to run next (``run:`` lines): the options that
read the pool as the command just run read it (:func:`reading_options`), and the ``bacon
plan`` commands under estimate's and report's comparisons (:func:`plan_command`,
:func:`round_plan_command`). Each runs exactly as printed (``tests/test_printed_commands.py``)."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bacon_bayes.pool import EvalPool


def reading_options(args: argparse.Namespace, pool: EvalPool, *, sample: bool = False) -> str:
    """The options that read ``args.file`` as this command read it, shell-quoted, for a
    command bacon prints (``bacon plan``'s, or with ``sample`` ``bacon sample``'s, which
    reads neither ``--labels``, ``--scores`` nor a propensity), so it runs as printed:
    the rows it left out (``--drop-unscored``), a study's pending items
    (``--allow-pending``) and the cross-fit's ``--folds`` (``--seed``: plan's) too."""
    from bacon_bayes.study.folder import CONFIG_FILE

    study = (Path(args.file) / CONFIG_FILE).is_file()
    given: list[tuple[str, object]] = [("--group", args.group), ("--prompt", args.prompt)]
    if sample:  # a study has its group; --prompt only names its prompts; --show: the text
        given = [given[1], ("--show", getattr(args, "text", None))]  # labellers read
    elif study:  # the judges and embedding the study's pool was read with
        given += [("--judge", j) for j in (args.judge or [])]
        given += [("--embedding", args.embedding)]
    if not study:
        given = [("--item", args.item), ("--label", args.label)]
        if not sample:
            given += [("--labels", args.labels), ("--scores", args.scores)]
        if not args.scores:  # as the user gave them ('judge:*' once, not each column it
            # matches; the pool refuses a judge column rather than drop it), else the found
            given += [("--judge", j) for j in (args.judge or pool.judges)]
        given += [("--group", args.group), ("--prompt", args.prompt)]
        given += [("--outcome", args.outcome), ("--levels", args.levels)]
        given += [("--scale", args.scale)]
        if sample:
            given += [("--show", args.text)]
            given += [("--prior-design", _prior_design(args, pool))]
        else:
            given += [("--propensity", args.propensity), ("--embedding", args.embedding)]
            given += [("--prompt-propensity", args.prompt_propensity)]
    # a value starting with "-" as --name=VALUE: argparse reads --scale -inf:0 as two options
    eq = {True: "=", False: " "}
    words = [f"{k}{eq[str(v)[:1] == '-']}{shlex.quote(str(v))}" for k, v in given if v]
    flags = {"--drop-unscored": not study, "--allow-pending": study and not sample}
    words += [f for f, ok in flags.items() if ok and getattr(args, f[2:].replace("-", "_"), False)]
    if study and not sample and getattr(args, "pending_look", None):
        words.append("--allow-pending")  # read at its last complete wave: plan counts the
        # pending items among the new labels (it refuses them without)
    # the cross-fit this command ran (plan and sample both take --folds; tester B finding
    # 22: a plan printed without it was refused for too few labels for 5 folds); --seed
    # splits plan's folds as estimate's, but is the draw's seed in bacon sample
    fit = [("--folds", getattr(args, "folds", 5), 5)]
    fit += [] if sample else [("--seed", getattr(args, "seed", 0), 0)]
    words += [f"{k} {v}" for k, v, default in fit if v is not None and v != default]
    return " ".join(words)


def _prior_design(args: argparse.Namespace, pool: EvalPool) -> str | None:
    """``bacon sample``'s ``--prior-design`` for the pool's labels: by group where whole
    groups have none that a uniform draw would have reached (sample refuses to record
    them as uniform), else None (its default, uniform)."""
    from bacon_bayes.study.labels import NOT_DRAWN

    never = args.group and any(NOT_DRAWN in note for note in pool.notes)
    return f"stratified:{args.group}" if never else None


def plan_command(args: argparse.Namespace, pool: EvalPool, engine: str = "freq") -> str:
    """``bacon plan FILE ... --top``: the table behind the comparisons' plan line.
    ``engine``: the engine of the calibrator whose table the line quotes (``bayes``
    carried as ``--engine bayes``: plan's ``auto`` means freq, tester A finding 1)."""
    extra = "" if args.alpha == 0.05 else f" --alpha {args.alpha:g}"
    extra += f" --model {shlex.quote(args.model)}" if getattr(args, "model", None) else ""
    preset = getattr(args, "preset", None)  # the pilot the line quoted: its model options
    extra += f" --preset {shlex.quote(str(preset))}" if preset else ""
    extra += " --engine bayes" if engine == "bayes" else ""
    pooling = getattr(args, "pooling", "auto")
    extra += f" --pooling {pooling}" if pooling != "auto" else ""
    extra += " --better lower" if getattr(args, "better", None) == "lower" else ""
    options = reading_options(args, pool)
    return f"bacon plan {shlex.quote(str(args.file))} {options}{extra} --top".replace("  ", " ")


def status_command(
    args: argparse.Namespace, engine: str = "freq", reading: list[tuple[str, str]] | None = None
) -> str:
    """``bacon status STUDY``, as estimate's and report's plan line print it: with the
    settings of the fit whose intervals the line speaks of, so status answers from the
    same intervals: ``reading``, the options that read the study into that fit's pool
    (``--group``, ``--embedding``, ``--text``, ``--prompt``, ``--outcome``, ``--levels``
    as the command took them, :func:`~bacon_bayes.cli.pool_args.study_pool_words`;
    default: ``--group`` alone), ``engine`` (the one that fitted them; status's default
    is freq), ``--model``, ``--pooling``, ``--alpha``, ``--better lower`` and
    ``--allow-pending`` where this command took them."""
    words = ["bacon", "status", str(args.file)]
    given: list[tuple[str, object]] = [("--group", getattr(args, "group", None))]
    given = given if reading is None else list(reading)
    given += [("--model", getattr(args, "model", None))]
    given += [("--engine", engine if engine != "freq" else None)]
    pooling = getattr(args, "pooling", "auto")
    given += [("--pooling", pooling if pooling != "auto" else None)]
    alpha = getattr(args, "alpha", 0.05)
    given += [("--alpha", f"{alpha:g}" if alpha != 0.05 else None)]
    given += [("--better", "lower" if getattr(args, "better", None) == "lower" else None)]
    words += [w for k, v in given if v for w in (k, str(v))]
    words += ["--allow-pending"] if getattr(args, "allow_pending", False) else []
    return shlex.join(words)


def round_plan_command(args: argparse.Namespace, pool: EvalPool) -> str:
    """``bacon plan FILE ... --calibrator PATH``: the plan of a saved calibrator's fresh
    labels (its goal left to the user: a half-width)."""
    extra = "" if args.alpha == 0.05 else f" --alpha {args.alpha:g}"
    options = reading_options(args, pool)
    return (
        f"bacon plan {shlex.quote(str(args.file))} {options} "
        f"--calibrator {shlex.quote(str(args.calibrator))}{extra}"
    ).replace("  ", " ")


def better_rerun(note: str | None, args: argparse.Namespace) -> str | None:
    """The hint to pass ``--better`` (``note``, which says ``pass --better lower`` or
    ``higher``; None or another note as it is) with the command to run: the one just run
    (``args.argv``, as :func:`bacon_bayes.cli.main` keeps it) with that ``--better``
    in place of any it had, so the hint is followed by copying it (it said only "pass
    --better lower", doctor's command carrying it)."""
    way = re.search(r"pass --better (lower|higher)", note or "")
    command = None if way is None else rerun_with(args, "--better", ["--better", way[1]])
    return note if command is None else f"{note}; run: {command}"


def scale_rerun(note: str, args: argparse.Namespace) -> str:
    """The note that intervals reach past the labels' range (``note``, which says ``pass
    --scale=-inf:0``; ``""`` or another note as it is) with the command to run: the one
    just run with that ``--scale``, so the hint is followed by copying it."""
    found = re.search(r"pass (--scale=\S+|--scale \S+) to keep", note)
    command = None if found is None else rerun_with(args, "--scale", shlex.split(found[1]))
    study = Path(str(getattr(args, "file", ""))) / "study.toml"
    if found is not None and command is not None and study.is_file():  # recorded there
        command = shlex.join(["bacon", "sample", str(args.file), *shlex.split(found[1])])
        why = "records it in the study: estimate, status, report and sample --until read it"
        return f"{note}; run: {command} ({why})"
    return note if command is None else f"{note}; run: {command}"


def rerun_with(args: argparse.Namespace, option: str, words: list[str]) -> str | None:
    """The command just run (``args.argv``, as :func:`bacon_bayes.cli.main` keeps it) with
    ``words`` (``--better lower``) in place of any ``option`` it had, shell-quoted; None
    where the command line is not known (a library call)."""
    argv = getattr(args, "argv", None)
    if argv is None:
        return None
    kept, skip = [], False
    for w in argv:
        if skip or w == option or w.startswith(f"{option}="):
            skip = w == option
            continue
        kept.append(w)
    return shlex.join(["bacon", *kept, *words])


def program() -> str:
    """The words that run bacon as this process was run, shell-quoted, for the commands it
    prints: ``bacon`` where the ``bacon`` on the ``PATH`` is this one; else the script's
    path as it was called (``.venv/bin/bacon``), or ``python -m bacon_bayes`` with the
    Python that runs it (:func:`bacon_bayes.csv_format.python_name`)."""
    import shutil
    import sys

    from bacon_bayes.csv_format import python_name

    script = sys.argv[0] if sys.argv else ""
    found = shutil.which("bacon")
    if Path(script).name in ("bacon", "bacon.exe"):  # the console script
        same = found is not None and Path(found).resolve() == Path(script).resolve()
        return "bacon" if same else shlex.quote(script)
    if found is not None and Path(found).parent == Path(sys.executable).parent:
        return "bacon"  # python -m bacon_bayes, beside its environment's script on the PATH
    return f"{python_name()} -m bacon_bayes"


def command_words(commands: tuple[str, ...]) -> re.Pattern[str]:
    """Where a printed line names a ``bacon`` command to run (``bacon estimate pool.csv``,
    ```bacon label import ...```): ``bacon`` before one of ``commands``, not as a line's
    speaker (``bacon doctor: ...``, ``bacon label: error: ...``) nor within a path or a
    word (``.venv/bin/bacon``, ``bacon_bayes``)."""
    names = "|".join(map(re.escape, commands))
    return re.compile(rf"(?<![\w./\\-])bacon(?= (?:{names})\b(?!:))")


#: a shell word single-quoted as :func:`shlex.quote` writes it (``'it'"'"'s'`` for ``it's``),
#: after a space, ``=``, a backtick or a parenthesis (an apostrophe in ``pool's`` is none)
_QUOTED = re.compile(r"""(?:^|(?<=[\s=`(]))'[^']*'(?:"'"'[^']*')*""", re.MULTILINE)


class AsRun:
    """A text stream (stdout, stderr) whose every ``bacon COMMAND`` is written as this
    process was run (:func:`program`): ``python -m bacon_bayes estimate ...`` where
    ``bacon`` is not on the ``PATH``, so every command bacon prints runs as printed.
    Everything else is the stream's own."""

    def __init__(self, stream: Any, words: str, pattern: re.Pattern[str]) -> None:
        self._stream, self._words, self._pattern = stream, words, pattern

    def write(self, text: str) -> int:
        self._stream.write(self.as_run(text))
        return len(text)

    def as_run(self, text: str) -> str:
        """``text`` with its commands as run; a shell-quoted word is left as written (a
        file named ``'bacon report.html'``)."""
        quoted = [m.span() for m in _QUOTED.finditer(text)]

        def words(m: re.Match[str]) -> str:
            inside = any(a < m.start() < b for a, b in quoted)
            return m[0] if inside else self._words

        return self._pattern.sub(words, text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
