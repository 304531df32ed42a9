"""``bacon judge``: score items with LLM judges (stage 1b, the AI jury)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bacon_bayes.cli.judge_args import add_item_argument, items_id
from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import FORCE_HELP, Output, check_output, claim, output_lock

if TYPE_CHECKING:  # pragma: no cover
    from bacon_bayes.judges.client import JudgeSpec

TABLES = (".parquet", ".csv")
HELP = "score items with LLM judges through OpenAI-compatible endpoints"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "judge",
        help=HELP,
        description=(
            "Run every item past every judge --runs times and write a long table item x judge "
            "x run (score, entropy, perplexity, latency, raw reply, reason for NA). Completed "
            "calls go to a SQLite cache: rerun the same command to resume after an interrupt. "
            "The API key is read from the environment variable named by --api-key-env."
        ),
    )
    p.add_argument("items", help="items table (.csv, .parquet, .jsonl) with an id column")
    p.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="[NAME=]MODEL[@BASE_URL]",
        help="a judge (repeat for a panel)",
    )
    p.add_argument(
        "--judges-file", metavar="TOML", help="judges as [[judge]] tables (model, base_url, ...)"
    )
    p.add_argument(
        "--template", required=True, help="essay | mqm | webdesign, or a .toml/.json template"
    )
    p.add_argument("--out", required=True, help="output table (.parquet or .csv)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    add_item_argument(p)
    p.add_argument("--runs", type=int, default=1, help="calls per item and judge (default 1)")
    p.add_argument(
        "--base-url",
        default=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        help="endpoint for judges without @BASE_URL (default: $OPENAI_BASE_URL or OpenAI)",
    )
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key ('' = send none)",
    )
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (0)")
    p.add_argument(
        "--max-tokens", type=int, default=None, help="reply length cap (default: the template's)"
    )
    p.add_argument(
        "--top-logprobs", type=int, default=5, help="alternatives per token (0 = no logprobs)"
    )
    p.add_argument("--rate", type=float, default=None, help="max requests/second per judge")
    p.add_argument("--concurrency", type=int, default=8, help="calls in flight (default 8)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per attempt (> 0)")
    p.add_argument("--max-attempts", type=int, default=6, help="attempts per call (default 6)")
    p.add_argument("--backoff-base", type=float, default=1.0, help="first backoff, seconds")
    p.add_argument(
        "--backoff-max",
        type=float,
        default=60.0,
        help="longest backoff, seconds (a server's Retry-After may ask for longer: see "
        "--max-retry-after)",
    )
    p.add_argument(
        "--max-retry-after",
        type=float,
        default=600.0,
        help="longest wait a server's Retry-After header gets, seconds (default 600); a "
        "wait beyond --backoff-max is said without -v",
    )
    p.add_argument("--cache", default=None, help="SQLite cache (default: OUT.cache.sqlite)")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on a terminal; else, as in a log file, a plain line "
        "after each 10%% of the calls, at most one every 30 s)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="count the calls (and cached ones), show the first prompt, send nothing",
    )
    p.add_argument("--log", default=None, help="also write the log to this file")
    p.add_argument("-v", "--verbose", action="store_true", help="log every retry")
    p.set_defaults(func=run)


@contextlib.contextmanager
def _logging(verbose: bool, log_file: str | None) -> Iterator[None]:
    """Send the library's log to stderr (and a file) for the duration of the command. The
    file is made (or appended to) at the first record, or when the command ends without
    an error: a refusal before any call logs nothing and leaves no log behind."""
    logger = logging.getLogger("bacon_bayes")
    level = logger.level
    logger.setLevel(logging.INFO if verbose or log_file else logging.WARNING)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    handlers[0].setLevel(logging.INFO if verbose else logging.WARNING)
    if log_file:
        handlers.append(logging.FileHandler(log_file, delay=True))
    for handler in handlers:
        handler.setFormatter(fmt)
        logger.addHandler(handler)
    try:
        yield
        if log_file:  # a run that logged nothing leaves its log too, empty
            Path(log_file).touch()
    finally:
        for handler in handlers:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(level)


def _inputs(args: argparse.Namespace) -> list[str | None]:
    """Every file the command reads: no output may be one of them."""
    from bacon_bayes.judges.templates import BUILTIN

    template = None if args.template in BUILTIN else args.template
    return [args.items, template, args.judges_file]


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.judges.cache import check_cache
    from bacon_bayes.judges.preflight import ready_to_send

    inputs = _inputs(args)  # every output is checked before the log opens and any call
    check_output(args.out, option="--out", inputs=inputs, suffixes=TABLES)
    args.cache = args.cache or str(args.out) + ".cache.sqlite"
    check_cache(args.cache, inputs=[*inputs, args.out], force=args.force)
    if args.log:  # appended to
        check_output(args.log, option="--log", inputs=[*inputs, args.out, args.cache])
    judges = _judges(args)
    if not args.dry_run and not Path(args.cache).exists():  # every call is to send:
        ready_to_send(judges)  # aiohttp and the keys, before any file is made
    with _logging(args.verbose, args.log):
        return _run(args, inputs, judges)


def _judges(args: argparse.Namespace) -> list[JudgeSpec]:
    """The panel of ``--judge`` and ``--judges-file``, the command's defaults filled in.

    Raises
    ------
    ValidationError
        No judge given, or one the parser refuses (naming it and the fix).
    """
    from bacon_bayes.judges.client import load_judges, parse_judge

    defaults = {
        "base_url": args.base_url,
        "api_key_env": args.api_key_env or None,
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "top_logprobs": args.top_logprobs,
        "rate": args.rate,
    }
    judges = [parse_judge(text, **defaults) for text in args.judge]
    if args.judges_file:
        judges += load_judges(args.judges_file, **defaults)
    if not judges:
        raise ValidationError("no judge given; pass --judge MODEL or --judges-file FILE")
    return judges


def _run(args: argparse.Namespace, inputs: list[str | None], judges: list[JudgeSpec]) -> int:
    from bacon_bayes.judges import load_template, plan_jury
    from bacon_bayes.readers import read_any

    template = load_template(args.template)
    items = read_any(args.items)[0]
    args.id = items_id(args.id, items)
    out, cache = Path(args.out), args.cache
    if args.dry_run:
        print(plan_jury(items, judges, template, id_col=args.id, runs=args.runs, cache=cache))
        return 0
    with (
        claim(out, inputs=[*inputs, cache], force=args.force, suffixes=TABLES) as held,
        output_lock(Path(cache).resolve(), f"--cache {cache!r}"),  # one run per cache:
    ):  # another run would ask again the calls this one has in flight
        return _score(args, items, judges, template, held, cache)


def _score(
    args: argparse.Namespace, items: Any, judges: list, template: Any, out: Output, cache: str
) -> int:
    """Run the jury and write the table to the claimed output."""
    from bacon_bayes.judges import RetryPolicy, run_jury
    from bacon_bayes.judges.output import write_table
    from bacon_bayes.judges.parsing import unread_judges

    policy = RetryPolicy(
        max_attempts=args.max_attempts,
        base_delay=args.backoff_base,
        max_delay=args.backoff_max,
        max_retry_after=args.max_retry_after,
    )
    fresh = not Path(cache).exists()  # a cache this run creates: removed if left empty
    try:
        result = run_jury(
            items,
            judges,
            template,
            id_col=args.id,
            runs=args.runs,
            cache=cache,
            concurrency=args.concurrency,
            timeout=args.timeout,
            retry=policy,
            progress=args.progress,  # None: on a terminal only
        )
    except KeyboardInterrupt:
        print(
            f"bacon judge: interrupted; completed calls are in {cache}. "
            "Run the same command again to resume.",
            file=sys.stderr,
        )
        return 130
    summary = result.summary
    n_failed = sum(summary.failed.values())
    if n_failed and n_failed == summary.calls:  # not one reply: nothing worth a table
        print(summary, file=sys.stderr)
        if fresh:  # failed calls are not cached: the new cache is empty, and goes
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(cache + suffix).unlink(missing_ok=True)
        raise ValidationError(
            f"{summary.failures()}. No call produced a score, so {out.given} was not written "
            "(a file already there is left as it was). "
            + summary.advice(rerun="run the same command again")
        )
    write_table(result.table, out.path)
    out.written()
    print(summary, file=sys.stderr)
    print(f"wrote {len(result.table)} rows to {out.given} (cache: {cache})", file=sys.stderr)
    for line in unread_judges(result.table, template):
        print(f"warning: {line}", file=sys.stderr)
    if n_failed:
        print(
            f"{summary.failures()}; they are NA in the output (see 'reason') and not "
            "cached. "
            + summary.advice(rerun="run the same command again (it makes only the failed calls)")
            + ".",
            file=sys.stderr,
        )
    return 0
